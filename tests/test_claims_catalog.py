"""Tests of attnio.claims.catalog_check and attnio.claims.verification: attnio's own catalog
checked by the pipeline of ``attnio check``, each record never its own evidence."""

from __future__ import annotations

import importlib

import pytest

from attnio._cli_verify import SUITES
from attnio.bounds import get
from attnio.bounds.counts import COUNTS
from attnio.bounds.reader import parse_catalog
from attnio.claims import check, check_catalog
from attnio.claims import verification as claims_verification
from attnio.claims.catalog_check import NOTHING_TO_CHECK, failures
from attnio.claims.records import evidence_records, excluded, excluding

catalog_module = importlib.import_module("attnio.bounds.catalog")

Z3_ONLY = ("pebbling", "counting")
CLOSED_FORMS = {"skip": ("z3", "pebbling"), "machine_runs": False}

PLANTED = """
[[bound]]
name = "planted-lower"
label = "Planted lower bound"
kind = "lower"
regime = "dense"
pass = "forward"
status = "derived"
asymptotic = "d*n"
expression = "{expression}"
source = "proofs/derivations/compulsory.md"
"""

KEPT = ("dense-forward-compulsory", *(record.name for record in COUNTS))
"""The records of the small catalogs of these tests: the compulsory bound and every exact
count (the closed-form check reads each algorithm's)."""


def _plant(monkeypatch, expression: str) -> None:
    """Swap in a copy of the catalog file with a planted derived lower record, read by the
    catalog's own reader, cut to :data:`KEPT` and the planted record (fast checks)."""
    text = catalog_module.CATALOG_FILE
    shipped = importlib.resources.files("attnio.bounds").joinpath(text).read_text("utf-8")
    records = parse_catalog(shipped + PLANTED.format(expression=expression), source="copy")
    small = tuple(r for r in records if r.name in (*KEPT, "planted-lower"))
    monkeypatch.setattr(catalog_module, "_CATALOG", small)


def test_excluding_leaves_records_out_only_inside_the_block() -> None:
    """Inside ``excluding`` the named records are not evidence; outside, every record is."""
    name = "flash-forward-count"
    assert name in {r.name for r in evidence_records(algorithm="flash")}
    with excluding([name]):
        assert excluded() == {name}
        assert name not in {r.name for r in evidence_records(algorithm="flash")}
    assert excluded() == frozenset()
    assert name in {r.name for r in evidence_records(algorithm="flash")}


def test_a_record_is_not_its_own_evidence() -> None:
    """Checked as a user's claim, the compulsory record is proved from itself; checked as a
    catalog record it is not (it is consistent with the others), and no evidence item of
    it names it."""
    record = get("dense-forward-compulsory")
    [as_claim] = check([record], skip=Z3_ONLY)
    assert as_claim.verdict == "proved" and record.name in as_claim.summary
    [own] = check_catalog([record], skip=Z3_ONLY)
    assert own.verdict == "consistent-with-catalog", own.summary
    assert all(record.name not in item.against for item in own.evidence)


def test_a_planted_false_record_is_refuted(monkeypatch) -> None:
    """A false derived lower bound planted in a copy of the catalog (5nd, above what
    FlashAttention moves at a large memory) is refuted by the pipeline, by z3 and by the
    closed-form counts, each naming another record; failures() shows it."""
    _plant(monkeypatch, "5*d*n")
    planted = get("planted-lower")
    for options in ({"skip": Z3_ONLY}, CLOSED_FORMS):
        [report] = check_catalog([planted], **options)
        assert report.refuted, (options, report.summary)
        assert all(e.against and e.against != planted.name for e in report.refutations())
    [line] = failures([report])
    assert line.startswith("planted-lower refuted: [closed-form]")


def test_a_planted_true_record_is_not_refuted(monkeypatch) -> None:
    """A true derived lower bound planted the same way (3nd, below the compulsory 4nd) is
    not refuted, and is proved from the compulsory record, not from itself."""
    _plant(monkeypatch, "3*d*n")
    [report] = check_catalog([get("planted-lower")], skip=Z3_ONLY)
    assert report.verdict == "proved" and "dense-forward-compulsory" in report.summary
    assert not failures([report])


def test_records_with_nothing_to_check_say_so() -> None:
    """An open record (no expression, no order of growth) is reported unknown with the
    reason, and no check runs on it."""
    [report] = check_catalog([get("sparse-backward-upper")])
    assert report.verdict == "unknown"
    assert report.summary == NOTHING_TO_CHECK.format(status="open")


def test_verify_check_fails_on_a_planted_false_record(monkeypatch) -> None:
    """The verify check claims.catalog_records (default tier) fails on a catalog with a
    planted false record and names it with its refutation. (It passes on the shipped
    catalog: tests/test_cli_verify.py::test_verify_thorough_passes_every_check.)"""
    assert "attnio.claims.verification" in SUITES
    claims_verification.configure(thorough=False)
    _plant(monkeypatch, "5*d*n")
    passed, detail = claims_verification.check_catalog_records()
    assert passed is False and "planted-lower refuted: [closed-form]" in detail, detail
    assert detail.count(" refuted: ") == 1, detail  # no other record is blamed


@pytest.mark.parametrize("thorough", [False, True])
def test_the_tier_chooses_the_checks(monkeypatch, thorough: bool) -> None:
    """The default tier runs the closed-form counts only and names what it left out; the
    thorough tier runs every check and leaves nothing out."""
    seen = {}

    def fake(**options):
        seen.update(options)
        return []

    monkeypatch.setattr(claims_verification, "check_catalog", fake)
    claims_verification.configure(thorough=thorough)
    try:
        assert claims_verification.check_catalog_records()[0] is None
        assert seen == claims_verification.TIERS[thorough]
        assert (claims_verification.left_out() == "") is thorough
    finally:
        claims_verification.configure(thorough=False)
