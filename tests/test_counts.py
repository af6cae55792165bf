"""Tests of bounds/counts.py: the exact-count records and how the catalog holds them."""

from __future__ import annotations

import sympy as sp

from attnio.bounds import catalog, get
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
    """Each sparse count is its dense counterpart exactly at s = 1."""
    for bound in COUNTS:
        if bound.reduces_to is not None:
            dense = get(bound.reduces_to)
            assert (
                sp.simplify(bound.explicit.subs(sp.Symbol("s", positive=True), 1) - dense.explicit)
                == 0
            )


def test_counts_are_integers_at_integer_points():
    """Every count evaluates to a nonnegative integer where its conditions hold."""
    for bound in COUNTS:
        params = {"n": 37, "d": 5, "M": 333, "s": sp.Rational(1, 2), "r": 21}
        use = {k: params[k] for k in bound.parameters}
        if bound.applies(**use):
            value = bound.evaluate(**use)
            assert value.is_integer and value >= 0, bound.name
