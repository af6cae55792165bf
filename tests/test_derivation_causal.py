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


def _width(spec: str) -> dict[str, int]:
    return {"w": int(spec.split(":")[1])} if ":" in spec else {}


def test_the_checker_rejects_a_planted_violation_on_a_masked_graph() -> None:
    """The part checker is not vacuous on a masked graph: its products with the dominator
    set emptied are refused."""
    roles = _roles("attention-forward", 3, 1, "causal")
    with pytest.raises(AssertionError):
        _check_part(roles, set(roles.product), set())
