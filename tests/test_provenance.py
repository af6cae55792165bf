"""Tests of attnio.bounds.provenance: each check passes on the catalog and fails on a mutant
of its class (evidence level raised, citation unresolved or of the wrong year, conditions
widened beyond the quoted theorem)."""

from __future__ import annotations

import dataclasses
import importlib

import pytest
import sympy as sp

from attnio.bounds import Status, get, provenance
from attnio.bounds.symbols import M, d, n, s

catalog_module = importlib.import_module("attnio.bounds.catalog")


def _with(monkeypatch, name: str, **changes) -> None:
    """Swap record ``name`` of the loaded catalog for a copy with ``changes``."""
    records = tuple(
        dataclasses.replace(b, **changes) if b.name == name else b for b in catalog_module._CATALOG
    )
    monkeypatch.setattr(catalog_module, "_CATALOG", records)


@pytest.mark.parametrize("check", provenance.CHECKS, ids=lambda c: c.__name__)
def test_every_provenance_check_passes_on_the_catalog(check) -> None:
    """The shipped catalog passes every provenance check, none of them vacuously."""
    passed, detail = check()
    assert passed is True, detail


@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("dense-forward-tight", {"source": "SY24"}),  # the theorem number dropped
        ("sparse-forward-lower-inputs", {"status": Status.STATED}),  # raised from reconstructed
        ("approximate-forward-compulsory", {"status": Status.STATED}),  # read in an abstract
        ("dense-forward-lower-small-explicit", {"status": Status.STATED}),  # a candidate
    ],
)
def test_a_stated_record_without_a_theorem_fails(monkeypatch, name, changes) -> None:
    """A stated record whose source names no theorem, lemma or algorithm number, or says it
    was read in a summary or is a candidate, fails check_stated_records_cite_a_theorem."""
    _with(monkeypatch, name, **changes)
    passed, detail = provenance.check_stated_records_cite_a_theorem()
    assert passed is False and name in detail


@pytest.mark.parametrize("source", ["SY23 Thm 3.1", "SY25 Thm 3.1", "SYE24 Thm 3.1"])
def test_a_citation_of_no_entry_or_the_wrong_year_fails(monkeypatch, source) -> None:
    """A source citing a short name with no references.bib entry (a wrong year included)
    fails check_references_resolve, naming the record."""
    _with(monkeypatch, "dense-forward-tight", source=source)
    passed, detail = provenance.check_references_resolve()
    assert passed is False and "dense-forward-tight" in detail


def test_a_key_whose_entry_has_another_year_fails(monkeypatch) -> None:
    """A short name mapped to an entry of another year (SY24 -> the 2022 FlashAttention
    paper) fails check_references_resolve."""
    from attnio.bounds import citations

    monkeypatch.setitem(citations.KEYS, "SY24", "dao2022flashattention")
    passed, detail = provenance.check_references_resolve()
    assert passed is False and "SY24" in detail


@pytest.mark.parametrize(
    ("name", "conditions"),
    [
        ("dense-backward-lower-small", M < d**2),  # "n >= d" of LLSSZ24 Thm 1.1 dropped
        ("dense-backward-tight", sp.true),  # the theorem's "M >= d^2 or n >= d" dropped
        ("dense-backward-lower-large", sp.true),  # a half's cache relation dropped
    ],
)
def test_conditions_widened_beyond_the_quoted_theorem_fail(monkeypatch, name, conditions) -> None:
    """Dropping a condition of a record quoting LLSSZ24 Thm 1.1 (the whole or a half) makes a
    half wider than the whole or the whole wider than its halves: check fails."""
    record = get(name)
    changes = {"conditions": conditions}
    if name == "dense-backward-lower-large":
        changes["cache"] = type(record.cache)("any")
    _with(monkeypatch, name, **changes)
    passed, detail = provenance.check_quoted_theorems_agree()
    assert passed is False, detail
    assert name in detail


def test_points_reach_every_shape() -> None:
    """The points include n < d and n >= d on both sides of M = d^2."""
    shapes = {(p["n"] < p["d"], p["M"] < p["d"] ** 2) for p in provenance._points()}
    assert shapes == {(True, True), (True, False), (False, True), (False, False)}


@pytest.mark.parametrize(
    ("name", "conditions"),
    [
        ("flash-forward-upper", M <= d * n),  # DFE22 Thm 2 without d <= M: the surviving mutant
        ("flash-backward-upper", M <= d * n),  # DFE22 Thm 5 without d <= M: the other one
        ("flash-forward-upper", d <= M),  # without M <= nd
        ("standard-backward-upper", M >= d**2),  # without M <= nd
        ("block-sparse-flash-forward-upper", sp.And(d <= M, s <= 1)),  # Prop 4 without M <= nd
    ],
)
def test_conditions_widened_beyond_the_source_range_fail(monkeypatch, name, conditions) -> None:
    """A record applying outside its source's stated range (conditions dropped from a theorem
    no other record quotes as a tight whole) fails check_conditions_within_source_range,
    which names the record and a point outside the range."""
    _with(monkeypatch, name, conditions=conditions)
    passed, detail = provenance.check_conditions_within_source_range()
    assert passed is False and name in detail and "outside the range" in detail


def test_records_quoting_one_theorem_give_one_range(monkeypatch) -> None:
    """Two records quoting DFE22 Thm 5 with different source ranges fail the check."""
    _with(monkeypatch, "flash-backward-upper", source_range=sp.And(d <= M, M <= 2 * d * n))
    passed, detail = provenance.check_conditions_within_source_range()
    assert passed is False and "different ranges" in detail


def test_a_record_that_applies_nowhere_on_the_grid_fails(monkeypatch) -> None:
    """A range on a record whose conditions hold at no point of the grid is not checked:
    the check says so instead of passing vacuously."""
    _with(monkeypatch, "flash-forward-upper", conditions=sp.And(M <= d * n, n >= 10**9))
    passed, detail = provenance.check_conditions_within_source_range()
    assert passed is False and "no point" in detail


def test_no_source_range_at_all_is_vacuous(monkeypatch) -> None:
    """With no record giving its source's range the check fails as vacuous."""
    records = tuple(dataclasses.replace(b, source_range=None) for b in catalog_module._CATALOG)
    monkeypatch.setattr(catalog_module, "_CATALOG", records)
    passed, detail = provenance.check_conditions_within_source_range()
    assert passed is False and "vacuous" in detail


def test_the_published_ranges_attnio_narrowed_are_the_recorded_source_ranges() -> None:
    """catalog.AS_STATED's published ranges (the refutation obligations) are the
    source_range of the records they name: the range is typed once as data and agrees."""
    from attnio.bounds.catalog import AS_STATED

    for name, (published, *_) in AS_STATED.items():
        assert get(name).source_range == published, name
