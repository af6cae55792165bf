"""Tests of the algorithms' ``attnio verify`` checks."""

from __future__ import annotations


def _off_by_one_low_rank(monkeypatch) -> None:
    """Replace low-rank-forward-count by a copy whose resident threshold is one word late."""
    import dataclasses
    import importlib

    import sympy as sp

    from attnio.bounds import get
    from attnio.bounds.symbols import M

    record = get("low-rank-forward-count")
    (branch, resident), (blocked, _) = record.explicit.args
    assert resident.lhs == M or resident.rhs == M, resident  # M >= words or words <= M
    late = sp.Ge(M, (resident.rhs if resident.lhs == M else resident.lhs) + 1)
    mutant = dataclasses.replace(record, explicit=sp.Piecewise((branch, late), (blocked, True)))
    assert mutant.explicit != record.explicit
    catalog_module = importlib.import_module("attnio.bounds.catalog")
    swapped = tuple(mutant if b.name == record.name else b for b in catalog_module._CATALOG)
    monkeypatch.setattr(catalog_module, "_CATALOG", swapped)


def test_breakpoints_are_where_a_part_jumps() -> None:
    """breakpoints finds the jumps of floors and Piecewise conditions, and nothing else."""
    import sympy as sp

    from attnio.algorithms.verification import breakpoints
    from attnio.bounds.symbols import M, d

    expr = sp.floor(M / (5 * d)) + sp.Piecewise((1, M < 12), (0, True)) + M**2
    assert breakpoints(expr, M, {d: 2}, 1, 30) == [10, 12, 20, 30]
    assert breakpoints(M**2 + d, M, {d: 2}, 1, 30) == []


def test_a_min_undefined_at_the_fixed_values_has_no_breakpoint() -> None:
    """A Min whose argument divides by a block of size 0 at the fixed values (split-KV
    decode backward's count at M = 29, d = 3: floor(M / (4d)) - 2 = 0) switches nowhere:
    breakpoints skips it instead of raising sympy's TypeError on comparing zoo, and still
    finds the other parts' jumps."""
    import sympy as sp

    from attnio.algorithms.verification import breakpoints
    from attnio.bounds.symbols import M, d, n

    block = sp.floor(M / (4 * d)) - 2
    expr = sp.Min(1, sp.ceiling(n / block) - 1) + sp.floor(n / 7)
    assert breakpoints(expr, n, {M: 29, d: 3}, 1, 24) == [7, 14, 21]


def test_an_off_by_one_piecewise_threshold_is_caught_at_its_breakpoint(monkeypatch) -> None:
    """A count record whose Piecewise threshold is one word off passes the grid check (its
    memories step over the threshold) but not the breakpoint check (both checks run on the
    low-rank algorithm alone; every check passes on the shipped catalog in
    tests/test_cli_verify.py::test_verify_thorough_passes_every_check)."""
    from attnio.algorithms import verification

    _off_by_one_low_rank(monkeypatch)
    only = {"low-rank": verification.ALGORITHMS["low-rank"]}
    monkeypatch.setattr(verification, "ALGORITHMS", only)
    monkeypatch.setattr(verification, "BREAKPOINT_SIZES", verification.BREAKPOINT_SIZES[:1])
    monkeypatch.setattr(verification, "BREAKPOINT_MEMORIES", ())
    verification._grid.cache_clear()
    passed, detail = verification.check_counts_at_breakpoints()
    assert passed is False and "low-rank forward" in detail
    verification._grid.cache_clear()
    try:
        assert verification.check_counts_equal_closed_forms()[0] is True
    finally:
        verification._grid.cache_clear()


def test_shape_check_compares_grouped_query_runs():
    """attnio verify's shape check runs the shape algorithms off the square and they agree."""
    from attnio.algorithms import verification

    passed, detail = verification.check_shape_counts()
    assert passed is True and "shape runs" in detail
