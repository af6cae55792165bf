"""Tests of attnio.proofs.stages: a recorded stage changes the order in which the checker's
stages are tried, never which are, and a recorded lemma changes only the certificate."""

from __future__ import annotations

import importlib

import pytest
import sympy as sp

from attnio.proofs import Obligation, Proved, stages
from attnio.proofs.constants import entry_of
from attnio.proofs.obligation import fingerprint

check = importlib.import_module("attnio.proofs.check")  # the module, not its check()

x = sp.Symbol("x", integer=True, positive=True)
x_root = sp.Symbol("x_root", positive=True)


def _toy() -> Obligation:
    """ceiling(sqrt(x)) <= x + 2: both its plain strengthening (sqrt(x) + 1 <= x + 2) and
    its rooted one (x_root + 1 <= x_root**2 + 2) are proved at once."""
    claim = sp.Le(sp.ceiling(sp.sqrt(x)), x + 2, evaluate=False)
    return Obligation("derivation/toy-root", "derivation", claim, (), "holds", (), "toy")


def _attempts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Record (claim name, budget) of every relaxed call the strengthening makes."""
    calls: list[tuple[str, int]] = []
    relaxed = check._check_relaxed

    def spy(part: Obligation, timeout_ms: int, **options):
        calls.append((part.name, timeout_ms))
        return relaxed(part, timeout_ms, **options)

    monkeypatch.setattr(check, "_check_relaxed", spy)
    return calls


def test_a_recorded_claim_tries_its_rooted_strengthening_first(monkeypatch, tmp_path) -> None:
    """With the claim recorded, the first call is the rooted strengthening at the full
    budget (no glance at the plain one) and the claim is proved through it."""
    monkeypatch.setattr(stages, "RECORDING", tmp_path / "stages.json")
    stages.record([(_toy(), stages.ROOTED, True)])
    assert stages.rooted_first(_toy()) and not stages.lemma_unchecked(_toy())
    calls = _attempts(monkeypatch)
    result = check._strengthened(_toy(), check.DEFAULT_TIMEOUT_MS, certify=False)
    assert isinstance(result, Proved) and "of the rooted claim" in result.method, result
    assert calls[0] == ("derivation/toy-root/rooted/strengthened-0", check.DEFAULT_TIMEOUT_MS)
    assert not any(budget < check.DEFAULT_TIMEOUT_MS for _, budget in calls)


def test_an_unrecorded_claim_glances_at_the_plain_strengthening_first(monkeypatch, tmp_path):
    """Without a record the default order holds: a glance at the plain strengthening,
    which proves the toy claim."""
    monkeypatch.setattr(stages, "RECORDING", tmp_path / "none.json")
    assert not stages.rooted_first(_toy())
    calls = _attempts(monkeypatch)
    result = check._strengthened(_toy(), check.DEFAULT_TIMEOUT_MS, certify=False)
    assert isinstance(result, Proved) and "rooted" not in result.method, result
    assert calls[0] == ("derivation/toy-root/strengthened-0", check._GLANCE_MS)


def test_a_recorded_claim_whose_rooted_form_fails_gets_the_plain_one(monkeypatch, tmp_path):
    """A stale record (the rooted strengthening no longer proves) loses nothing: the plain
    strengthening still gets its full budget and proves the claim."""
    planted = Obligation(  # a false rooted form: ceiling(x_root) <= 0
        "derivation/toy-root/rooted",
        "derivation",
        sp.Le(sp.ceiling(x_root), 0, evaluate=False),
        (),
        "holds",
        (),
        "",
    )
    monkeypatch.setattr(check, "_rooted", lambda obligation: (planted, {x: x_root**2}))
    monkeypatch.setattr(stages, "RECORDING", tmp_path / "stages.json")
    stages.record([(_toy(), stages.ROOTED, True)])
    calls = _attempts(monkeypatch)
    result = check._strengthened(_toy(), check.DEFAULT_TIMEOUT_MS, certify=False)
    assert isinstance(result, Proved) and "rooted" not in result.method, result
    assert calls[0][0].startswith("derivation/toy-root/rooted/")
    assert ("derivation/toy-root/strengthened-0", check.DEFAULT_TIMEOUT_MS) in calls


def test_a_recorded_lemma_gives_the_original_query_without_a_glance(monkeypatch, tmp_path):
    """A claim recorded as one whose lemma z3 does not re-check is still proved through its
    strengthening; its certificate is the original query, saying it was recorded, and no
    lemma query is asked. Unrecorded, the same claim's lemma is re-checked."""
    monkeypatch.setattr(stages, "RECORDING", tmp_path / "stages.json")
    plain = check._strengthened(_toy(), check.DEFAULT_TIMEOUT_MS)
    assert check.FALLBACK_CERTIFICATE not in plain.smtlib and "STRENGTHENING LEMMA" in plain.smtlib
    stages.record([(_toy(), stages.PLAIN, False)])
    assert stages.lemma_unchecked(_toy()) and not stages.rooted_first(_toy())
    monkeypatch.setattr(check, "_lemma", lambda *a, **k: pytest.fail("lemma asked"))
    result = check._strengthened(_toy(), check.DEFAULT_TIMEOUT_MS)
    assert isinstance(result, Proved) and result.method == plain.method
    assert check.FALLBACK_CERTIFICATE in result.smtlib and stages.COMMAND in result.smtlib


def test_a_recorded_plain_stage_gets_the_full_budget_at_once(monkeypatch, tmp_path) -> None:
    """A claim recorded as decided by its plain strengthening gets it at the full budget
    first (no glance), then the rooted one should it fail."""
    monkeypatch.setattr(stages, "RECORDING", tmp_path / "stages.json")
    stages.record([(_toy(), stages.PLAIN, True)])
    assert stages.plain_first(_toy()) and not stages.rooted_first(_toy())
    calls = _attempts(monkeypatch)
    result = check._strengthened(_toy(), check.DEFAULT_TIMEOUT_MS, certify=False)
    assert isinstance(result, Proved) and "rooted" not in result.method, result
    assert calls[0] == ("derivation/toy-root/strengthened-0", check.DEFAULT_TIMEOUT_MS)


def _queries(monkeypatch: pytest.MonkeyPatch, integers_unknown: bool) -> list[bool]:
    """Record whether each negated query asked is the integer one; with
    ``integers_unknown``, every integer query ends unknown at once (resource limit 1)."""
    asked: list[bool] = []
    solver = check._Query.solver

    def spy(self, timeout_ms, negate=True, seed=0):
        built = solver(self, timeout_ms, negate, seed)
        if negate:
            asked.append(self.integers)
            if integers_unknown and self.integers:
                built.set("rlimit", 1)
        return built

    monkeypatch.setattr(check._Query, "solver", spy)
    return asked


_N = sp.Symbol("n", integer=True, positive=True)
_LINEAR = Obligation(
    "derivation/toy-linear", "derivation", sp.Gt(_N + 1, _N, evaluate=False), (), "holds", (), ""
)


def test_a_recorded_integer_stage_asks_the_integer_query_first(monkeypatch, tmp_path) -> None:
    """A claim recorded as decided by the integer query is asked it before the relaxation;
    unrecorded, the relaxation comes first."""
    monkeypatch.setattr(stages, "RECORDING", tmp_path / "stages.json")
    asked = _queries(monkeypatch, integers_unknown=False)
    assert isinstance(check.check(_LINEAR), Proved) and asked[0] is False
    stages.record([(_LINEAR, stages.INTEGERS, True)])
    asked.clear()
    result = check.check(_LINEAR)
    assert isinstance(result, Proved) and result.method == "z3 unsat (integers)"
    assert asked[0] is True


def test_a_recorded_integer_stage_that_fails_still_gets_the_relaxation(monkeypatch, tmp_path):
    """A stale integer record loses nothing: when the integer query ends unknown, the
    relaxation is asked and proves the claim."""
    monkeypatch.setattr(stages, "RECORDING", tmp_path / "stages.json")
    stages.record([(_LINEAR, stages.INTEGERS, True)])
    asked = _queries(monkeypatch, integers_unknown=True)
    result = check.check(_LINEAR)
    assert isinstance(result, Proved) and result.method == "z3 unsat (real relaxation)"
    assert asked[0] is True and False in asked


def test_only_stages_and_unchecked_lemmas_are_recorded(tmp_path) -> None:
    """A proof with no stage to record whose lemma z3 re-checks is the default: record()
    leaves it out."""
    written = stages.record([(_toy(), "", True)], tmp_path / "stages.json")
    assert written["claims"] == {}


def test_every_recorded_claim_is_a_claim_of_today(generated_obligations) -> None:
    """Each record names a generated obligation and matches its text (for an obligation
    with a constant, at the recorded constant); a changed formula needs re-recording."""
    generated = {o.name: o for o in generated_obligations}
    stale = []
    for key, entry in stages.recorded().items():
        obligation = generated.get(entry["obligation"])
        if obligation is not None and obligation.constant is not None:
            recorded = entry_of(obligation)
            constant = None if recorded is None else recorded["constant"]
            obligation = None if constant is None else obligation.at(constant)
        if obligation is None or fingerprint(obligation) != key:
            stale.append(entry["obligation"])
        assert entry["stage"] in (*stages.STAGES, "") and entry["lemma"] in (True, False)
        assert entry["stage"] or entry["lemma"] is False
    assert not stale, f"re-record ({stages.COMMAND}): {stale}"
