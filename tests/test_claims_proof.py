"""Tests of attnio.claims.proof: claims proved from the catalog's records, and only then."""

from __future__ import annotations

import dataclasses
import importlib

from attnio.bounds import Status, get
from attnio.bounds.symbols import M, n
from attnio.claims import check, parse_claims
from attnio.claims.proof import proof_evidence

Z3_ONLY = ("pebbling", "counting")


def _claim(**fields: str):
    base = {"name": "mine", "kind": "lower", "regime": "dense", "pass": "forward"}
    base.update(fields)
    return parse_claims("[[bound]]\n" + "".join(f"{k} = {v!r}\n" for k, v in base.items()))[0]


def test_new_derived_records_are_picked_up(monkeypatch) -> None:
    """The lemmas are read from the catalog when the check runs: a derived lower record
    added to it (here a planted n^3 / M, for the test only) proves a claim it implies,
    which no record proved before."""
    claim = _claim(expression="n**3/(2*M)")
    (before,) = proof_evidence(claim)
    assert before.verdict == "unknown"
    module = importlib.import_module("attnio.bounds.catalog")
    planted = dataclasses.replace(get("dense-forward-compulsory"), name="planted-lower",
                                  explicit=n**3 / M, asymptotic=n**3 / M)  # fmt: skip
    monkeypatch.setattr(module, "_CATALOG", (*module._CATALOG, planted))
    (after,) = proof_evidence(claim)
    assert after.verdict == "proved" and "planted-lower" in after.against


def test_a_lemma_that_lost_its_level_no_longer_proves(monkeypatch) -> None:
    """A claim proved from a derived record is only implied by the catalog once that record
    is reconstructed: the verdict follows the lemmas' evidence levels."""
    claim = _claim(expression="4*n*d")
    assert check([claim], skip=Z3_ONLY)[0].verdict == "proved"
    module = importlib.import_module("attnio.bounds.catalog")
    record = get("dense-forward-compulsory")
    weaker = dataclasses.replace(record, status=Status.RECONSTRUCTED)
    swapped = tuple(weaker if b.name == record.name else b for b in module._CATALOG)
    monkeypatch.setattr(module, "_CATALOG", swapped)
    assert check([claim], skip=Z3_ONLY)[0].verdict == "implied-by-catalog"


def test_an_upper_bound_on_an_algorithm_is_proved_only_where_it_runs() -> None:
    """flash2's derived count proves a generous upper bound where flash2's blocks fit
    (M >= 5d + 3), but not for every M: below that, flash2 does not run at all."""
    generous = "4*n*d + n + 4*n**2*d*(5*d + 3)/M"
    scoped = _claim(kind="upper", algorithm="flash2", expression=generous,
                    conditions="M >= 5*d + 3")  # fmt: skip
    everywhere = _claim(kind="upper", algorithm="flash2", expression=generous)
    assert [e.verdict for e in proof_evidence(scoped)] == ["proved"]
    assert [e.verdict for e in proof_evidence(everywhere)] == ["unknown"]


def test_a_false_claim_is_never_proved() -> None:
    """The false lower bounds of issue 26 are not implied by any record (z3 finds no proof)."""
    for expression, cache in (("4*n*d + n", "small"), ("5*n*d", "any")):
        items = proof_evidence(_claim(expression=expression, cache=cache))
        assert [e.verdict for e in items] == ["unknown"], expression


def test_tight_claims_need_both_sides() -> None:
    """A tight claim is proved only when both its sides are: 4nd is a lower bound but no
    algorithm moves at most 4nd at every size."""
    tight = _claim(kind="tight", expression="4*n*d")
    items = {e.side: e.verdict for e in proof_evidence(tight)}
    assert items == {"lower": "proved", "upper": "unknown"}
    assert check([tight], skip=Z3_ONLY)[0].verdict not in ("proved", "implied-by-catalog")
