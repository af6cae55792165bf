"""The combinatorial lemmas of proofs/derivations/causal-lower.md, tested on masked graphs.

causal-lower.md carries the dense per-part and per-segment counts of lower-sharp.md and
lower-segments.md over to the graphs of a mask (:func:`attnio.pebble.builders.sparse_forward`
and :func:`~attnio.pebble.builders.sparse_backward`, the normalise-first graph restricted to
the allowed pairs). Its two combinatorial claims are tested here on small causal and
sliding-window graphs:

* every lemma of the dense files holds on every part of the masked graph (the pair-chain,
  accumulator, score-tree and dP-tree lemmas, and each per-part and per-segment count), on
  the HK81 parts and the I/O segments of Belady pebblings at every M and on random parts,
  with the checkers of ``test_derivation_sharp.py``;
* the masked graph holds exactly Z d products of each family the counts sum over (Q K^T
  and P V forward; Q K^T, P^T dO, dS K and dS^T Q backward), Z the mask's allowed pairs:
  for the sliding window of width w, Z = w n - w (w - 1) / 2, the Z of its records
  (``window-*-lower-large-sharp``).
"""

from __future__ import annotations

import pytest
from test_derivation_sharp import (
    Roles,
    _check_part,
    _check_segments,
    _minimum_dominator,
    _random_parts,
    _segments,
)

from attnio.bounds.masks import make_mask
from attnio.pebble import builders, solve_heuristic
from strategies import examples

MASKED = [
    ("attention-forward", 3, 1, "causal"),
    ("attention-forward", 3, 2, "causal"),
    ("attention-forward", 4, 1, "causal"),
    ("attention-forward", 4, 1, "window:2"),
    ("attention-backward", 3, 1, "causal"),
    ("attention-backward", 2, 2, "causal"),
    ("attention-forward", 5, 1, "window:1"),
    ("attention-backward", 3, 1, "window:2"),
    ("attention-backward", 4, 1, "window:3"),
]
"""Small masked graphs: the dense kind whose labels they carry, n, d and the mask spec."""


def _roles(kind: str, n: int, d: int, spec: str) -> Roles:
    """The roles of the masked graph of ``kind`` (normalise-first, FlashAttention-2 backward)."""
    build = builders.sparse_forward if kind == "attention-forward" else builders.sparse_backward
    return Roles(kind, n, d, build(n, d, builders.mask_from_spec(spec, n)))


@pytest.mark.parametrize("kind,n,d,spec", MASKED)
def test_lemmas_hold_on_every_part_of_belady_pebblings_of_masked_graphs(kind, n, d, spec):
    """Every HK81 part of a Belady pebbling of a masked graph, at every M, with its natural
    and a minimum dominator set, satisfies every per-part lemma of the dense files."""
    roles = _roles(kind, n, d, spec)
    checked = 0
    for M in range(roles.dag.min_memory, roles.dag.num_vertices + 1, 2):
        moves = solve_heuristic(roles.dag, M, moves=True).moves
        for part, D in _segments(roles.dag, moves, M):
            _check_part(roles, part, D)
            _check_part(roles, part, _minimum_dominator(roles.dag, part))
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("kind,n,d,spec", MASKED)
def test_segment_counts_hold_on_belady_pebblings_of_masked_graphs(kind, n, d, spec):
    """Cut into segments of X = 1, M, 2M, 3M and 4M I/O moves, every cleaned Belady pebbling
    of a masked graph meets the segment lemma and every per-segment count, at every M."""
    roles = _roles(kind, n, d, spec)
    checked = 0
    for M in range(roles.dag.min_memory, roles.dag.num_vertices + 1, 3):
        moves = solve_heuristic(roles.dag, M, moves=True).moves
        checked += _check_segments(roles, moves, M)
    assert checked > 10


@pytest.mark.parametrize("kind,n,d,spec", MASKED[::2])
def test_lemmas_hold_on_random_parts_of_masked_graphs(kind, n, d, spec):
    """Random vertex sets and ancestor-closed sets of a masked graph, each with a minimum
    dominator set, satisfy every per-part lemma."""
    roles = _roles(kind, n, d, spec)
    for part in _random_parts(roles.dag, f"{kind}-{n}-{d}-{spec}", examples(60)):
        _check_part(roles, part, _minimum_dominator(roles.dag, part))


@pytest.mark.parametrize("kind,n,d,spec", MASKED)
def test_a_masked_graph_holds_z_d_products_of_each_family(kind, n, d, spec):
    """The partition steps' totals: Z d products Q_il K_jl and Z d of each second-stage
    family, one per allowed pair and index, none of a masked-out pair."""
    roles = _roles(kind, n, d, spec)
    allowed = make_mask(spec.split(":")[0], n, **_width(spec)).allowed()
    Z = int(allowed.sum())
    assert Z < n * n  # the mask removes pairs: the counts below are not the dense ones
    assert len(roles.qk) == Z * d
    assert all(allowed[i, j] for i, j, _ in roles.qk.values())
    families = ("PV",) if kind == "attention-forward" else ("dSK", "dSQ", "PdO")
    for family in families:
        members = [idx for fam, idx in roles.product.values() if fam == family]
        assert len(members) == Z * d, family
        assert all(allowed[i, j] for i, j, _ in members), family


def test_the_window_has_the_pairs_its_records_count() -> None:
    """The causal sliding window of width w over n rows (query i sees keys i - w < j <= i)
    has Z = w n - w (w - 1) / 2 allowed pairs, the Z of the window records' derivation
    steps, at every w <= n <= 8; and every row i sees min(i + 1, w) keys."""
    for n in range(1, 9):
        for w in range(1, n + 1):
            allowed = make_mask("window", n, w=w).allowed()
            assert int(allowed.sum()) == w * n - w * (w - 1) // 2, (n, w)
            assert [int(row.sum()) for row in allowed] == [min(i + 1, w) for i in range(n)]


def test_a_window_submatrix_holds_at_most_min_a_b_times_w_pairs() -> None:
    """The window's geometry (causal-lower.md, section 5): every a x b submatrix (any a
    rows, any b columns) of the sliding window of width w holds at most min(a, b) w allowed
    pairs, and at most Mask.densest(a, b); exhaustively for w <= n <= 6. One row (or
    column) attains it with its w pairs."""
    import itertools

    import numpy as np

    for n in range(1, 7):
        for w in range(1, n + 1):
            mask = make_mask("window", n, w=w)
            allowed = mask.allowed().astype(int)
            best = {}
            for a in range(1, n + 1):
                for rows in itertools.combinations(range(n), a):
                    sums = allowed[list(rows)]
                    for b in range(1, n + 1):
                        for cols in itertools.combinations(range(n), b):
                            pairs = int(sums[:, list(cols)].sum())
                            best[a, b] = max(best.get((a, b), 0), pairs)
            for (a, b), pairs in best.items():
                assert pairs <= min(a, b) * w and pairs <= mask.densest(a, b), (n, w, a, b)
            assert best[1, n] == w and best[n, 1] == w and np.all(allowed.sum(axis=1) <= w)


@pytest.mark.parametrize("n,d,w", [(4, 1, 2), (5, 1, 2), (4, 2, 1)])
def test_a_window_part_completes_the_pairs_of_its_rows_submatrix_only(n, d, w) -> None:
    """On every HK81 part of Belady pebblings of a forward window graph and on random parts:
    the products P_ij V_jk outside D whose pair has no chain vertex in D number at most d
    times the allowed pairs of I* x J* (I*, J*: the rows of Q and K wholly in D), and those
    pairs at most min(|I*|, |J*|) w: the per-part count fl-rows with the window's geometry
    in place of |I*| |J*|."""
    roles = _roles("attention-forward", n, d, f"window:{w}")
    allowed = make_mask("window", n, w=w).allowed()

    def check(part: set[int], D: set[int]) -> None:
        rows_q, rows_k = roles.rows("Q", D, n), roles.rows("K", D, n)
        chain_pairs = {roles.chain[v] for v in D if v in roles.chain}
        completed = [
            v
            for v in part
            if v in roles.product and v not in D and roles.product[v][1][:2] not in chain_pairs
        ]
        pairs = sum(1 for i in rows_q for j in rows_k if allowed[i, j])
        assert all(roles.product[v][1][:2] in {(i, j) for i in rows_q for j in rows_k}
                   for v in completed)  # fmt: skip
        assert len(completed) <= d * pairs
        assert pairs <= min(len(rows_q), len(rows_k)) * w

    checked = 0
    for M in range(roles.dag.min_memory, roles.dag.num_vertices + 1, 2):
        moves = solve_heuristic(roles.dag, M, moves=True).moves
        for part, D in _segments(roles.dag, moves, M):
            check(part, D)
            check(part, _minimum_dominator(roles.dag, part))
            checked += 1
    for part in _random_parts(roles.dag, f"window-geometry-{n}-{d}-{w}", examples(30)):
        check(part, _minimum_dominator(roles.dag, part))
    assert checked > 10


def _width(spec: str) -> dict[str, int]:
    return {"w": int(spec.split(":")[1])} if ":" in spec else {}


def test_the_checker_rejects_a_planted_violation_on_a_masked_graph() -> None:
    """The part checker is not vacuous on a masked graph: its products with the dominator
    set emptied are refused."""
    roles = _roles("attention-forward", 3, 1, "causal")
    with pytest.raises(AssertionError):
        _check_part(roles, set(roles.product), set())
