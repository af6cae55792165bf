"""Tests of attnio.claims.pebbling: the claim's whole scope on small DAGs, never below the
least memory."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from attnio.claims import ClaimError, check, parse_claims
from attnio.claims.claim import LEAST_MEMORY
from attnio.claims.pebbling import masks
from attnio.pebble import builders, load_dag, read_moves, replay

PEBBLING_ONLY = ("z3", "counting")


def _claim(**fields: str):
    base = {"name": "mine", "kind": "lower", "regime": "dense", "pass": "forward"}
    base.update(fields)
    return parse_claims("[[bound]]\n" + "".join(f"{k} = {v!r}\n" for k, v in base.items()))


def _replays(report, tmp_path) -> None:
    """Every pebbling refutation's certificate replays to the value shown."""
    items = [e for e in report.refutations() if e.check == "pebbling"]
    assert items
    for item in items:
        if item.certificate is None:
            continue
        dag = load_dag(item.certificate.replace(".moves.jsonl", ".dag.json"))
        moves = read_moves(item.certificate, dag)
        assert replay(dag, moves, int(item.point["M"])).io == int(item.other_value)
        assert int(item.other_value) < int(item.claim_value)


def test_the_least_memory_is_every_builder_dags() -> None:
    """LEAST_MEMORY is the least memory of every builder DAG family at small sizes."""
    for kind, n, d in itertools.product(builders.KINDS, (1, 2, 3), (1, 2, 3)):
        assert builders.build(kind, n, d).min_memory == LEAST_MEMORY


def test_masks_cover_every_mask_up_to_permutation() -> None:
    """Every 2 x 2 and 3 x 3 mask with no empty row is a row and column permutation of one
    of masks(n), and no two of masks(n) are."""
    for n in (2, 3):
        chosen = [np.array(m) for m in masks(n)]

        def same(a, b, n=n) -> bool:
            return any(
                np.array_equal(a[np.ix_(p, q)], b)
                for p in itertools.permutations(range(n))
                for q in itertools.permutations(range(n))
            )

        for rows in itertools.product(itertools.product((0, 1), repeat=n), repeat=n):
            mask = np.array(rows, dtype=bool)
            if mask.any(axis=1).all():
                assert sum(same(mask, c) for c in chosen) == 1


def test_a_small_cache_lower_bound_meets_every_small_memory() -> None:
    """4nd + n for cache = small is false at n=1, d=3, M in 4..8 (Q = 12 < 13): the
    pebbling check reaches d = 3 and 4 below d^2 and refutes it with the proven optimum."""
    (report,) = check(_claim(cache="small", expression="4*n*d + n"), skip=PEBBLING_ONLY)
    assert report.verdict == "refuted"
    item = report.refutations()[0]
    assert item.point["d"] in ("3", "4") and "proven optimum" in item.summary


@pytest.mark.slow
def test_a_piecewise_lower_bound_is_refuted_at_its_breakpoint(tmp_path) -> None:
    """Piecewise((4nd + n, d^2 - 1 <= M < d^2), (4nd, True)) is false at n=1, d=3, M=8;
    the refutation's certificate replays."""
    expression = "Piecewise((4*n*d + n, (d**2 - 1 <= M) & (M < d**2)), (4*n*d, True))"
    (report,) = check(_claim(expression=expression), skip=PEBBLING_ONLY, evidence_dir=tmp_path)
    assert report.verdict == "refuted"
    _replays(report, tmp_path)


@pytest.mark.slow
def test_a_sparse_lower_bound_is_refuted_on_a_mask_that_is_not_causal(tmp_path) -> None:
    """2dn + 2dZ/n + 1 exceeds the optimum of the full mask (n=1 or n=2, d=1): sparse claims
    meet every mask at n = 2, not only the causal one."""
    claims = _claim(regime="sparse", expression="2*d*n + 2*d*Z/n + 1",
                    conditions="(n <= Z) & (Z <= n**2)")  # fmt: skip
    (report,) = check(claims, skip=PEBBLING_ONLY, evidence_dir=tmp_path)
    assert report.verdict == "refuted"
    _replays(report, tmp_path)


def test_an_upper_bound_for_every_memory_is_refuted_below_the_least_memory() -> None:
    """100 n^2 d (d + 1) with no condition on M claims a finite cost at M = 1 and 2, where no
    pebbling exists; the refutation names the vertex that cannot be computed."""
    (report,) = check(_claim(kind="upper", expression="100*n**2*d*(d+1)"), skip=PEBBLING_ONLY)
    assert report.verdict == "refuted"
    item = report.refutations()[0]
    assert int(item.point["M"]) < LEAST_MEMORY and "in-degree 2" in item.summary


def test_an_upper_bound_scoped_to_legal_memories_is_not_refuted_below_them() -> None:
    """With M >= 3 the same claim is judged only where pebblings exist: not refuted."""
    claims = _claim(kind="upper", expression="100*n**2*d*(d+1)", conditions="M >= 3")
    (report,) = check(claims, skip=PEBBLING_ONLY)
    assert report.verdict != "refuted", report.summary


def test_a_claim_only_below_the_least_memory_is_refused() -> None:
    """Conditions that admit only M < 3 are an error naming the least memory, not a verdict."""
    with pytest.raises(ClaimError, match="M >= 3"):
        check(_claim(kind="upper", expression="n", conditions="M <= 2"), skip=PEBBLING_ONLY)


def test_a_lower_bound_is_never_judged_below_the_least_memory() -> None:
    """A lower bound huge at M < 3 only holds vacuously there (Q is infinite): no check
    refutes it, and no evidence point lies below the least memory."""
    claims = _claim(expression="Piecewise((10**9, M < 3), (0, True))")
    (report,) = check(claims)
    assert report.verdict != "refuted", report.summary
    for item in report.evidence:
        if item.point and "M" in item.point:
            assert int(item.point["M"]) >= LEAST_MEMORY


def test_sparse_points_keep_at_least_one_key_per_row() -> None:
    """The domain of a sparse claim has n <= Z <= n^2: a point with Z < n is outside it."""
    (claim,) = _claim(regime="sparse", expression="Z")
    assert claim.holds_at({"n": 3, "d": 1, "M": 4, "Z": 3})
    assert not claim.holds_at({"n": 3, "d": 1, "M": 4, "Z": 2})
