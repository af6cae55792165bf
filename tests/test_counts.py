"""Tests of bounds/counts.py: which catalog records are exact counts, and that they are."""

from __future__ import annotations

import sympy as sp

from attnio.bounds import catalog, get
from attnio.bounds.catalog import FULL_DENSITY
from attnio.bounds.counts import COUNTS


def test_counts_are_derived_upper_records_in_the_catalog():
    """Every count is an upper, derived record with an explicit form, present in the catalog."""
    names = {b.name for b in catalog()}
    for bound in COUNTS:
        assert bound.kind.value == "upper" and bound.status.value == "derived"
        assert bound.explicit is not None and bound.algorithm
        assert bound.name in names


def test_published_algorithm_names_are_reused():
    """Counts use the algorithm names of the catalog's published upper records."""
    published = {b.algorithm for b in catalog(kind="upper") if b.status.value != "derived"}
    mine = {b.algorithm for b in COUNTS}
    assert published - {None} <= mine


def test_sparse_counts_equal_dense_at_full_density():
    """Each sparse count is its dense counterpart exactly at full density (s = s_c = 1, Z = n^2)."""
    for bound in COUNTS:
        if bound.reduces_to is not None:
            dense = get(bound.reduces_to)
            assert sp.simplify(bound.explicit.subs(FULL_DENSITY) - dense.explicit) == 0


def test_counts_are_integers_at_integer_points():
    """Every count evaluates to a nonnegative integer where its conditions hold."""
    params = {"n": 37, "d": 5, "M": 333, "r": 21, "n_q": 3, "n_kv": 37, "h_q": 4, "h_kv": 2, "w": 5}
    masks = {
        # flash blocks at d = 5, M = 333 are 5 x 11: each row band allows two column bands
        "block-sparse-flash": {"s": sp.Rational(1, 2)},
        # tiles of 9, bands 9, 9, 9, 9, 1; the diagonal and the last column band allowed:
        # heights 37 + 36, widths 37 + 4, Z = 4 * 81 + 1 + 4 * 9
        "sparse-square-tiling": {
            "s": sp.Rational(73, 185),
            "s_c": sp.Rational(41, 185),
            "Z": 361,
        },
    }
    applied = set()
    for bound in COUNTS:
        point = {**params, **masks.get(bound.algorithm, {})}
        use = {k: point[k] for k in bound.parameters}
        if bound.applies(**use):
            value = bound.evaluate(**use)
            assert value.is_integer and value >= 0, bound.name
            applied.add(bound.name)
    assert {f"sparse-square-tiling-{p}-count" for p in ("forward", "backward")} <= applied


def test_every_count_record_is_an_algorithm_s_and_its_runs_reproduce_it():
    """Each count record of catalog.toml is the registered count of its algorithm and pass,
    and the two-level machine's counting runs move exactly its closed form (the check of
    attnio verify, on the grid of every algorithm)."""
    from attnio.algorithms import ALGORITHMS
    from attnio.algorithms.verification import check_counts_equal_closed_forms

    registered = {record for algo in ALGORITHMS.values() for record in algo.counts.values()}
    assert registered == {bound.name for bound in COUNTS}
    passed, detail = check_counts_equal_closed_forms()
    assert passed is True, detail
