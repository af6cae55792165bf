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
    )
    _patch(monkeypatch, {}, extra=(count,))
    passed, detail = consistency.check_explicit_lower_below_upper()
    assert passed is False and "planted-count" in detail


def _matches(bound, filters: dict) -> bool:
    return all(getattr(bound, k).value == v for k, v in filters.items() if v is not None)
