"""Tests of attnio.bounds.consistency: the catalog passes its checks, and each check can fail."""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

from attnio.bounds import consistency
from attnio.bounds.catalog import catalog as real_catalog
from attnio.bounds.catalog import get as real_get
from attnio.bounds.symbols import M, d, n


@pytest.mark.parametrize(
    "check",
    [
        # The growth check compares thousands of record pairs at sample points.
        pytest.param(c, marks=pytest.mark.slow) if c is consistency.check_asymptotic_growth else c
        for c in consistency.CHECKS
    ],
    ids=lambda c: c.__name__,
)
def test_real_catalog_passes(check) -> None:
    """Every consistency check passes on the shipped catalog; one with nothing to check fails here."""
    passed, detail = check()
    assert passed is True, detail
    assert detail


def _patch(monkeypatch: pytest.MonkeyPatch, replace: dict, extra: tuple = ()) -> None:
    """Make the checks see the catalog with ``replace``d records and ``extra`` planted ones."""
    records = tuple(replace.get(b.name, b) for b in real_catalog())

    def fake_catalog(**filters):
        keep = {b.name for b in real_catalog(**filters)}
        planted = tuple(b for b in extra if _matches(b, filters))
        return tuple(b for b in records if b.name in keep) + planted

    def fake_get(name):
        return next(b for b in records if b.name == name) if name in replace else real_get(name)

    monkeypatch.setattr(consistency, "catalog", fake_catalog)
    monkeypatch.setattr(consistency, "get", fake_get)


def test_coverage_check_fails_on_a_missing_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dropping every approximate backward upper record makes the coverage check fail."""

    def fake_catalog(**filters):
        return tuple(
            b
            for b in real_catalog(**filters)
            if not (
                b.regime.value == "approximate"
                and b.pass_.value == "backward"
                and b.kind.value == "upper"
            )
        )

    monkeypatch.setattr(consistency, "catalog", fake_catalog)
    passed, detail = consistency.check_cells_covered()
    assert passed is False and "approximate/backward" in detail


def test_crossover_check_fails_on_a_typo(monkeypatch: pytest.MonkeyPatch) -> None:
    """A branch typo that moves the dense forward crossover away from d^2 fails the check."""
    bad = dataclasses.replace(
        real_get("dense-forward-tight"),
        asymptotic=sp.Min(n**2 * d**2 / M, n**2 * d**3 / sp.sqrt(M)),
    )
    _patch(monkeypatch, {"dense-forward-tight": bad})
    passed, detail = consistency.check_crossovers()
    assert passed is False and "dense-forward-tight" in detail


def test_branch_check_fails_when_branches_are_swapped_against_the_cells(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A small-cache lower record whose shape is the large-cache branch fails the branch check."""
    bad = dataclasses.replace(real_get("dense-forward-lower-small"), asymptotic=n**2 * d**2 / M)
    _patch(monkeypatch, {"dense-forward-lower-small": bad})
    passed, _ = consistency.check_min_branches()
    assert passed is False


def test_reduction_check_fails_when_full_density_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sparse compulsory bound that does not reduce to the dense one fails the reduction check."""
    sparse = real_get("sparse-forward-compulsory")
    bad = dataclasses.replace(sparse, explicit=sparse.explicit + n)
    _patch(monkeypatch, {"sparse-forward-compulsory": bad})
    passed, detail = consistency.check_sparse_reduces_to_dense()
    assert passed is False and "sparse-forward-compulsory" in detail


@pytest.mark.slow
def test_growth_check_fails_when_a_lower_bound_outgrows_an_upper(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A lower bound typed with n^3 outgrows standard attention's n^2 and fails the growth check."""
    bad = dataclasses.replace(real_get("dense-forward-lower-large"), asymptotic=n**3 * d**2 / M)
    _patch(monkeypatch, {"dense-forward-lower-large": bad})
    passed, detail = consistency.check_asymptotic_growth()
    assert passed is False and "dense-forward-lower-large" in detail


def test_explicit_check_fails_when_a_lower_bound_exceeds_a_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A planted exact count below the compulsory bound fails the explicit comparison."""
    count = dataclasses.replace(
        real_get("standard-forward-upper"),
        name="planted-count",
        explicit=n * d,
        status="derived",
        source="attnio.algorithms (planted)",
        source_range=None,
    )
    _patch(monkeypatch, {}, extra=(count,))
    passed, detail = consistency.check_explicit_lower_below_upper()
    assert passed is False and "planted-count" in detail


def _matches(bound, filters: dict) -> bool:
    return all(getattr(bound, k).value == v for k, v in filters.items() if v is not None)


@pytest.mark.parametrize("name", ["standard-forward-upper", "standard-backward-upper"])
def test_growth_check_catches_the_old_standard_records(monkeypatch: pytest.MonkeyPatch, name):
    """O(nd + n^2) for every M (the records before their fix) fails the growth check along d or M."""
    old = dataclasses.replace(real_get(name), conditions=sp.true)
    _patch(monkeypatch, {name: old})
    passed, detail = consistency.check_asymptotic_growth()
    assert passed is False and name in detail
    assert "moving d" in detail or "moving M" in detail


def test_growth_check_moves_along_every_parameter() -> None:
    """The growth check compares along n, d and M, on both sides of M = d^2."""
    passed, detail = consistency.check_asymptotic_growth()
    assert passed, detail
    assert "along M, d, n" in detail
    moves = consistency._growth_points()
    assert {var for var, _, _ in moves} == {"n", "d", "M"}
    assert any(near["M"] < near["d"] ** 2 <= far["M"] for var, near, far in moves if var == "M")


def test_growth_check_catches_a_wrong_memory_exponent(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small-cache lower bound with sqrt(M) replaced by M outgrows square tiling as M falls."""
    name = "dense-forward-lower-small"
    bad = dataclasses.replace(real_get(name), asymptotic=n**2 * d**2 / M)
    _patch(monkeypatch, {name: bad})
    passed, detail = consistency.check_asymptotic_growth()
    assert passed is False and name in detail


@pytest.mark.parametrize(
    "name", ["standard-forward-count", "flash2-backward-count", "low-rank-forward-upper"]
)
def test_count_check_catches_a_raised_exponent(monkeypatch: pytest.MonkeyPatch, name) -> None:
    """d -> d^2 in an algorithm's O(...) record (a weaker, true claim) fails the count check.

    Mutants of ``benchmarks/mutants.py`` (``exponent``) that every other check let through.
    """
    record = real_get(name)
    bad = dataclasses.replace(record, asymptotic=record.asymptotic.subs(d, d**2))
    _patch(monkeypatch, {name: bad})
    passed, detail = consistency.check_upper_records_as_tight_as_counts()
    assert passed is False and name in detail and "moving d" in detail


def test_count_check_fails_where_a_count_is_undefined(monkeypatch: pytest.MonkeyPatch) -> None:
    """A count whose conditions were dropped is undefined (a zero block count): a failure, not a crash."""
    name = "flash2-forward-count"
    _patch(monkeypatch, {name: dataclasses.replace(real_get(name), conditions=sp.true)})
    passed, detail = consistency.check_upper_records_as_tight_as_counts()
    assert passed is False and f"{name}: explicit undefined" in detail


def test_count_check_compares_every_algorithm_with_an_upper_record() -> None:
    """On the shipped catalog the count check passes and compares record, count and move."""
    passed, detail = consistency.check_upper_records_as_tight_as_counts()
    assert passed is True and "comparisons" in detail


def test_cache_check_catches_an_open_record_without_conditions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The open small-cache sparse record with its conditions dropped applies at M >= d^2: fails.

    The ``no-conditions`` mutant of ``sparse-forward-small-upper`` (``benchmarks/mutants.py``).
    """
    name = "sparse-forward-small-upper"
    _patch(monkeypatch, {name: dataclasses.replace(real_get(name), conditions=sp.true)})
    passed, detail = consistency.check_conditions_within_cache()
    assert passed is False and name in detail


def test_cache_check_catches_a_large_cache_record_moved_below_the_boundary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A large-cache lower record whose condition reads M >= d (not d^2) applies in the small cache."""
    name = "dense-forward-lower-large"
    _patch(monkeypatch, {name: dataclasses.replace(real_get(name), conditions=M >= d)})
    passed, detail = consistency.check_conditions_within_cache()
    assert passed is False and name in detail


@pytest.mark.parametrize(
    "name", ["standard-forward-count", "tiled-backward-count", "sparse-square-tiling-forward-count"]
)
def test_defined_check_catches_a_count_without_conditions(
    monkeypatch: pytest.MonkeyPatch, name
) -> None:
    """A count whose conditions were dropped divides by zero blocks at small M: the check fails.

    The ``no-conditions`` mutants of ``benchmarks/mutants.py`` that only crashed a proof before.
    """
    _patch(monkeypatch, {name: dataclasses.replace(real_get(name), conditions=sp.true)})
    passed, detail = consistency.check_expressions_defined()
    assert passed is False and f"{name}: explicit" in detail


def test_defined_check_confirms_a_float_failure_exactly() -> None:
    """floor(sqrt(3 M) / 3) at M = 3 is 1, though 0 in floating point: not reported undefined.

    Regression: the floating-point pass alone flagged standard-forward-count at M = 3.
    """
    point = {"n": 16, "d": 4, "M": 3}
    record = real_get("standard-forward-count")
    assert consistency._undefined(record, "explicit", point) is None
    bad = dataclasses.replace(record, conditions=sp.true)
    assert "inside its conditions" in (
        consistency._undefined(bad, "explicit", {**point, "M": 2}) or ""
    )
