"""The per-part count of proofs/derivations/mask-lower.md, tested on graphs of many masks.

mask-lower.md bounds the products a part completes from the rows in its dominator set D by
the mask's own structure: the products P_ij V_jk (forward) or dS_ij K_jl (backward) outside
D whose pair chain misses D have an allowed pair in I* x J* (the rows wholly in D), so they
number at most d F(|I*|, |J*|), F the densest submatrix of the mask, and F(a, b) <= G (a + b)
with G the mask's pair ratio at the part's budget. Tested here on every HK81 part of Belady
pebblings at every M and on random parts, of forward and backward graphs
(:func:`attnio.pebble.builders.sparse_forward`, ``sparse_backward``) of random masks and of
block, window and causal masks; and :func:`attnio.proofs.masked_lower.mask_lower_bounds`
against causal-lower.md's bounds.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_derivation_sharp import Roles, _minimum_dominator, _random_parts, _segments

from attnio.bounds.masks import block_mask_of, make_mask
from attnio.pebble import builders, lemmas, solve_heuristic
from attnio.proofs.masked_lower import mask_lower_bounds
from strategies import examples


def _random_mask(n: int, seed: int) -> np.ndarray:
    """A seeded random n x n mask with every row and every column allowing a pair."""
    rng = np.random.default_rng(seed)
    allowed = rng.random((n, n)) < rng.choice((0.3, 0.5))
    allowed[np.arange(n), rng.permutation(n)] = True
    return allowed


MASKS = [
    ("attention-forward", 4, 1, "random:1"),
    ("attention-forward", 4, 2, "random:2"),
    ("attention-forward", 5, 1, "random:3"),
    ("attention-forward", 4, 1, "block"),
    ("attention-forward", 4, 1, "window:2"),
    ("attention-backward", 3, 1, "random:4"),
    ("attention-backward", 4, 1, "random:6"),
    ("attention-backward", 3, 1, "causal"),
]
"""Small masked graphs: the kind, n, d and the mask (``random:SEED``, ``block``: the 2 x 2
block mask [[1, 0], [1, 1]], or a spec of :func:`attnio.bounds.masks.parse_mask`)."""


def _mask(spec: str, n: int):
    if spec.startswith("random:"):
        return make_mask("arbitrary", n, array=_random_mask(n, int(spec.split(":")[1])))
    if spec == "block":
        return block_mask_of([[1, 0], [1, 1]], n)
    family, _, width = spec.partition(":")
    return make_mask(family, n, **({"w": int(width)} if width else {}))


_CACHE: dict[tuple[int, str, int], object] = {}


def _cached(mask, what: str, size: int):
    """mask.pairs_table(size) or mask.pair_ratio(size), once per mask and size."""
    key = (id(mask), what, size)
    if key not in _CACHE:
        _CACHE[key] = getattr(mask, what)(size)
    return _CACHE[key]


def _check(roles: Roles, mask, part: set[int], D: set[int], flip: bool = False) -> None:
    """mask-lower.md's per-part count for one part with dominator set D. ``flip`` checks a
    false variant (F without the diagonal's pairs), to show the check can fail."""
    n, d = roles.n, roles.d
    allowed = mask.allowed()
    forward = roles.kind == "attention-forward"
    chain_pairs = {roles.chain[v] for v in D if v in roles.chain}
    if forward:
        I_star, J_star = roles.rows("Q", D, n), roles.rows("K", D, n)
        family, budget = "PV", len(D) // d
    else:
        L_in = {i for i in range(n) if roles.entry["L", (i,)] in D}
        I_star = roles.rows("Q", D, n) & roles.rows("dO", D, n) & L_in
        J_star = roles.rows("K", D, n) & roles.rows("V", D, n)
        family, budget = "dSK", len(D) // (2 * d)
    third = [
        v
        for v in part
        if v in roles.product
        and roles.product[v][0] == family
        and v not in D
        and roles.product[v][1][:2] not in chain_pairs
    ]
    for v in third:
        i, j = roles.product[v][1][:2]
        assert allowed[i, j] and i in I_star and j in J_star, roles.dag.labels[v]
    a, b = len(I_star), len(J_star)
    counted = allowed & ~np.eye(n, dtype=bool) if flip else allowed
    F = int(counted[np.ix_(sorted(I_star), sorted(J_star))].sum())
    assert F <= _cached(mask, "pairs_table", n)[a, b]
    assert len(third) <= d * F
    # the budget: d (a + b) <= |D| forward, 2 d (a + b) <= |D| backward, so a + b <= budget
    assert a + b <= budget
    G = _cached(mask, "pair_ratio", budget)
    assert F <= G * (a + b)
    assert len(third) <= d * G * (a + b)


@pytest.mark.parametrize("kind,n,d,spec", MASKS)
def test_the_masked_count_holds_on_every_part_of_belady_pebblings(kind, n, d, spec) -> None:
    """On every HK81 part of a Belady pebbling at every M (its natural and a minimum
    dominator set) and on random parts of a masked graph: the products outside D whose pair
    chain misses D have an allowed pair in I* x J*, and number at most d F(|I*|, |J*|) <=
    d G (|I*| + |J*|), G the mask's pair ratio at the part's budget."""
    mask = _mask(spec, n)
    build = builders.sparse_forward if kind == "attention-forward" else builders.sparse_backward
    roles = Roles(kind, n, d, build(n, d, mask.allowed()))
    checked = 0
    for M in range(roles.dag.min_memory, roles.dag.num_vertices + 1, 3):
        moves = solve_heuristic(roles.dag, M, moves=True).moves
        for part, D in _segments(roles.dag, moves, M):
            _check(roles, mask, part, D)
            _check(roles, mask, part, _minimum_dominator(roles.dag, part))
            checked += 1
    for part in _random_parts(roles.dag, f"mask-{kind}-{n}-{d}-{spec}", examples(20)):
        _check(roles, mask, part, _minimum_dominator(roles.dag, part))
    assert checked > 10


LEMMA_MASKS = [
    ("attention-forward", 4, 2, "random:7"),
    ("attention-forward", 5, 1, "random:8"),
    ("attention-forward", 4, 3, "block"),
    ("attention-forward", 5, 2, "window:2"),
    ("attention-backward", 4, 1, "random:9"),
    ("attention-backward", 3, 2, "random:10"),
    ("attention-backward", 4, 2, "block"),
]
"""Masked graphs whose lemmas z3 checks on every vertex set and dominator set."""


@pytest.mark.parametrize("kind,n,d,spec", LEMMA_MASKS)
def test_the_pair_chain_and_accumulator_lemmas_hold_on_every_vertex_set(kind, n, d, spec):
    """z3 over every part V and every dominator set D of a masked graph, read over its
    allowed pairs (attnio.pebble.lemmas): the pair-chain lemma (a product outside D whose
    chain misses D has its operand rows in D, so its pair, allowed, lies in I* x J*, and
    the third kind numbers at most d F(|I*|, |J*|)) and the accumulator lemma hold; the
    pair-chain lemma's false variant is refuted, so the check can fail."""
    mask = _mask(spec, n)
    build = builders.sparse_forward if kind == "attention-forward" else builders.sparse_backward
    structure = lemmas.Structure.of(build(n, d, mask.allowed()), mask=mask.allowed())
    assert lemmas.check(structure, "pair-chain").status == "holds"
    assert lemmas.check(structure, "accumulator").status == "holds"
    assert lemmas.check(structure, "pair-chain", mutant=True).status == "fails"


def test_the_check_fails_on_a_false_count() -> None:
    """The check is not vacuous: a part holding every product of a causal graph, with every
    input in D, fails the count when F leaves out the diagonal's pairs (a false F)."""
    mask = make_mask("causal", 3)
    roles = Roles("attention-forward", 3, 1, builders.sparse_forward(3, 1, mask.allowed()))
    inputs = {v for v in range(roles.dag.num_vertices) if roles.dag.indegree[v] == 0}
    part = set(roles.product)
    with pytest.raises(AssertionError):
        _check(roles, mask, part, inputs, flip=True)
    _check(roles, mask, part, inputs)


@pytest.mark.parametrize("spec", ["full", "causal", "window:16", "window:256"])
def test_the_mask_bound_reduces_to_the_z_bounds(spec: str) -> None:
    """mask_lower_bounds: the mask-lower bound is at least causal-lower.md's large-cache
    bound at the same Z, both passes, and equal to it for the full and causal masks
    (fl-equals-z, bl-equals-z; M >= 2 d (d + 1)); each value is the proved step's right side
    at the mask's Z and G."""
    mask = _mask(spec, 1024)
    for d, M in ((4, 64), (8, 256), (16, 4096), (64, 65536)):
        found = {b.name: b for b in mask_lower_bounds(mask, d, M)}
        for pass_ in ("forward", "backward"):
            ours, theirs = found[f"mask-{pass_}"].value, found[f"z-{pass_}-large"].value
            assert ours >= theirs - 1e-6 * abs(theirs)
            if spec in ("full", "causal"):
                assert ours == pytest.approx(theirs)
        Z, G = mask.pairs(), float(found["mask-forward"].ratio)
        expected = min(Z / 2, max(2 * Z * d * d / M, Z * d / (2 * G))) - M
        assert found["mask-forward"].value == pytest.approx(expected)


def test_a_sparse_mask_gains_over_the_z_bound() -> None:
    """On a mask whose submatrices are sparse (the union of two permutations at n = 10,
    d = 1, M = 5: F(a, b) <= a + b, every row and column of degree 2, so G <= 1), the
    mask-lower bound exceeds causal-lower.md's at the same Z: the per-part structure is
    where it gains."""
    n = 10
    index = np.arange(n)
    allowed = np.zeros((n, n), dtype=bool)
    allowed[index, index] = True
    allowed[index, (3 * index + 5) % n] = True
    mask = make_mask("arbitrary", n, array=allowed)
    found = {b.name: b for b in mask_lower_bounds(mask, 1, 5)}
    assert found["mask-forward"].ratio <= 1
    assert found["mask-forward"].value > found["z-forward-large"].value


def test_every_mask_bound_is_below_belady_pebblings_of_random_masks() -> None:
    """Soundness at small sizes: every bound of mask_lower_bounds (mask-lower.md's and the
    Z substitutions of causal-lower.md) is at most the I/O of a Belady pebbling (an upper
    bound on the optimum) of the masked graph, forward and backward, at each M from the
    graph's least memory on, for seeded random masks at n <= 6."""
    checked = 0
    for seed, (n, d) in enumerate(((4, 1), (5, 1), (6, 1), (4, 2))):
        allowed = _random_mask(n, 100 + seed)
        mask = make_mask("arbitrary", n, array=allowed)
        for build, pass_ in (
            (builders.sparse_forward, "forward"),
            (builders.sparse_backward, "backward"),
        ):
            dag = build(n, d, allowed)
            for M in range(dag.min_memory, dag.min_memory + 8, 2):
                io = solve_heuristic(dag, M).io
                for bound in mask_lower_bounds(mask, d, M):
                    if bound.pass_ == pass_:
                        assert bound.value <= io, (n, d, M, bound)
                        checked += 1
    assert checked > 80
