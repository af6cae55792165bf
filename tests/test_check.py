"""Tests of attnio.proofs.check: every status path and the verdict policy."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.bounds.symbols import M, d, n
from attnio.proofs import (
    Counterexample,
    Expectation,
    InconsistentAssumptions,
    Obligation,
    ObligationError,
    Outcome,
    Proved,
    Unknown,
    check,
    confirm,
    prove,
)
from attnio.proofs.generate import planted
from strategies import examples

x = sp.Symbol("x", integer=True, positive=True)
y = sp.Symbol("y", integer=True, positive=True)
z = sp.Symbol("z", integer=True, positive=True)


def _ob(claim, assumptions=(), expected="holds", constant=None):
    return Obligation(
        "test/claim", "derivation", claim, assumptions, expected, (), "test", constant=constant
    )


def test_true_claim_is_proved_with_a_witness():
    """A true claim ends Proved, with a witness where every assumption holds."""
    result = check(_ob(n**2 * d**2 / M >= n**2 * d / sp.sqrt(M), (d**2 >= M,)))
    assert isinstance(result, Proved)
    point = {sp.Symbol(k, integer=True, positive=True): v for k, v in result.witness.items()}
    assert (d**2 >= M).subs(point) is sp.true


def test_false_claim_gives_a_confirmed_counterexample():
    """A false claim ends as a counterexample that sympy confirms, integers where needed."""
    ob = _ob(n**2 * d**2 / M <= n**2 * d / sp.sqrt(M), (d**2 > M,))
    result = check(ob)
    assert isinstance(result, Counterexample)
    assert all(v.is_integer for v in result.point.values())
    assert confirm(ob, result.point)[0]


def test_unconfirmable_model_is_unknown():
    """A relaxation model that is not an integer counterexample is reported unknown, not refuted."""
    result = check(_ob(sp.Ne(x**2, 2 * y**2)), timeout_ms=300)
    assert isinstance(result, Unknown)
    assert "not confirmed" in result.reason or "unknown" in result.reason


def test_hard_query_times_out_as_unknown():
    """Fermat's cubes (true, hard) with a tiny timeout end Unknown, never Proved."""
    result = check(_ob(sp.Ne(x**3 + y**3, z**3)), timeout_ms=50)
    assert isinstance(result, Unknown)
    assert result.reason


def test_inconsistent_assumptions_raise():
    """Assumptions without a point raise InconsistentAssumptions instead of proving vacuously."""
    with pytest.raises(InconsistentAssumptions, match="admit no"):
        check(_ob(n >= 100, (n > 5, n < 3)))


def test_integer_inconsistent_assumptions_raise():
    """Assumptions with real but no integer points raise: a proof would be vacuous on integers."""
    with pytest.raises(InconsistentAssumptions, match="integer"):
        check(_ob(n >= 100, (3 * n > 3 * d + 1, 3 * n < 3 * d + 2)))


def test_planted_false_claim_is_refuted():
    """The planted claim (FlashAttention never worse than square tiling for M < d^2) is refuted."""
    obligations = planted()
    assert obligations
    for obligation in obligations:
        outcome = prove(obligation)
        assert isinstance(outcome.result, Counterexample)
        assert confirm(obligation, outcome.result.point)[0]
        assert outcome.verdict == "ok"


def test_constant_search_finds_least_constant():
    """The least integer C with n + 3 <= C n is 4, and C = 3 is refuted at n = 1."""
    C = sp.Symbol("C", positive=True)
    outcome = prove(_ob(n + 3 <= C * n, constant=C))
    assert isinstance(outcome.result, Proved)
    assert outcome.result.constant == 4
    assert "refuted" in outcome.result.note


def test_constant_search_certifies_the_constant_it_reports():
    """A constant found through a rounding-free strengthening ships a certificate (the
    search certifies only the reported constant, not every candidate it proved)."""
    C = sp.Symbol("C", positive=True)
    outcome = prove(_ob(2 * sp.ceiling(n / 2) <= C * n, constant=C))
    # the strengthening n + 2 <= C n proves C = 3; C = 2 (true) stays unknown
    assert isinstance(outcome.result, Proved) and outcome.result.constant == 3
    assert "strengthening" in outcome.result.method
    assert "; certificate:" in outcome.result.smtlib and "(check-sat)" in outcome.result.smtlib


@settings(max_examples=examples(15))
@given(st.integers(1, 40))
def test_constant_search_matches_exact_least(k):
    """For n + k <= C n the search returns C = k + 1, the exact least integer constant."""
    C = sp.Symbol("C", positive=True)
    outcome = prove(_ob(n + k <= C * n, constant=C))
    assert outcome.result.constant == k + 1


def test_ceiling_claim_needs_integers():
    """k >= ceiling(Z/n) from Z <= n k needs integrality and is proved in integer mode."""
    Z = sp.Symbol("Z", integer=True, positive=True)
    result = check(_ob(x >= sp.ceiling(Z / n), (n * x >= Z,)))
    assert isinstance(result, Proved)


def test_rounding_strengthening_proves_count_bound():
    """A claim with nested floor/ceiling is proved through its rounding-free strengthening."""
    claim = n * sp.ceiling(n / sp.floor(M / (5 * d + 4))) <= 2 * n**2 * (5 * d + 4) / M + n
    result = check(_ob(claim, (5 * d + 4 <= M,)))
    assert isinstance(result, Proved)


@pytest.mark.parametrize(
    ("expected", "result", "verdict"),
    [
        ("holds", Proved("m", {}, ""), "ok"),
        ("holds", Counterexample({}, None, ""), "FAIL"),
        ("holds", Unknown("why", ""), "FAIL"),
        ("open", Proved("m", {}, ""), "ok"),
        ("open", Counterexample({}, None, ""), "finding"),
        ("open", Unknown("why", ""), "unknown"),
        ("fails", Counterexample({}, None, ""), "ok"),
        ("fails", Proved("m", {}, ""), "FAIL"),
        ("fails", Unknown("why", ""), "FAIL"),
        ("refutes", Proved("m", {}, ""), "finding"),
        ("refutes", Counterexample({}, None, ""), "FAIL"),
        ("refutes", Unknown("why", ""), "FAIL"),
    ],
)
def test_verdict_policy(expected, result, verdict):
    """Unknown never counts as proved; a counterexample to an open claim is a finding, and so
    is a proved refutation of a published statement (which must be proved)."""
    outcome = Outcome(_ob(sp.Ge(n, 1, evaluate=False), expected=expected), result)
    assert outcome.verdict == verdict
    assert outcome.failed is (verdict == "FAIL")


def test_check_refuses_constants_and_bad_timeouts():
    """check() refuses an obligation with an unsearched constant and a nonpositive timeout."""
    C = sp.Symbol("C", positive=True)
    with pytest.raises(ObligationError, match="use prove"):
        check(_ob(n <= C * n, constant=C))
    with pytest.raises(ObligationError, match="timeout_ms"):
        check(_ob(sp.Ge(n, 1, evaluate=False)), timeout_ms=0)


def test_expectation_enum_accepts_strings():
    """An obligation takes its expectation as a string and stores the enum; others are refused."""
    assert {e.value for e in Expectation} == {"holds", "open", "fails", "refutes"}
    for value in ("holds", "open", "fails", "refutes"):
        assert _ob(sp.Ge(n, 1, evaluate=False), expected=value).expected is Expectation(value)
    with pytest.raises(
        ObligationError, match="expected='maybe' is not one of: holds, open, fails, refutes"
    ):
        _ob(sp.Ge(n, 1, evaluate=False), expected="maybe")


def test_a_claim_is_proved_through_its_intermediate_term_with_both_steps_certified():
    """With ``via`` X, check proves lhs <= rhs as lhs <= X and X <= rhs, and the certificate
    holds both steps' queries, each answering unsat when re-solved."""
    from attnio.proofs.check import TRANSITIVE_CERTIFICATE

    lower = 2 * d**2 * n**2 / (sp.sqrt(2) * d * sp.sqrt(M) + 2 * M + 2 * d) - M
    middle = sp.sqrt(2) * d * n**2 / sp.sqrt(M) - M
    ob = Obligation("test/via", "lower-le-upper", sp.Le(lower, 8 * d * n**2 / sp.sqrt(M),
                    evaluate=False), (M < d**2,), "holds", (), "test", via=middle)  # fmt: skip
    result = check(ob)
    assert isinstance(result, Proved) and result.method.startswith("transitivity through")
    assert (
        TRANSITIVE_CERTIFICATE in result.smtlib and "; attnio obligation test/via" in result.smtlib
    )
    assert _every_query_unsat(result.smtlib) >= 2


def test_a_false_intermediate_step_never_refutes_the_claim():
    """An intermediate term that is not between the sides proves nothing and refutes
    nothing: a true claim is still proved directly, a false one refuted on the claim itself.
    """
    wrong = x**3  # x <= x**3 holds, x**3 <= 2*x does not
    true = check(_via(sp.Le(x, 2 * x, evaluate=False), wrong))
    assert isinstance(true, Proved) and not true.method.startswith("transitivity")
    false = check(_via(sp.Le(2 * x, x, evaluate=False), x))
    assert isinstance(false, Counterexample)
    assert confirm(_ob(sp.Le(2 * x, x, evaluate=False)), false.point)[0]


def test_a_chain_of_intermediate_terms_proves_step_by_step_and_a_broken_link_falls_back():
    """With a chain X_1, X_2, check proves lhs <= rhs through every link (three steps, three
    certificates, each unsat when re-solved); a chain with one false link gives no proof by
    transitivity, and the true claim is then proved directly."""

    claim = sp.Le(x, 4 * x + 1, evaluate=False)
    result = check(_via(claim, (2 * x, 3 * x)))
    assert isinstance(result, Proved) and result.method.startswith(
        "transitivity through 2*x, then 3*x"
    )
    assert _every_query_unsat(result.smtlib) >= 3
    broken = check(_via(claim, (2 * x, x**3)))  # 2x <= x^3 fails at x = 1
    assert isinstance(broken, Proved) and not broken.method.startswith("transitivity")


def _every_query_unsat(certificate: str) -> int:
    """Re-solve each query of a certificate (separated by ``(reset)``), asserting every one
    answers unsat; return how many there were."""
    import z3

    from attnio.proofs.smtlib import RESET

    scripts = certificate.split(RESET)
    for script in scripts:
        context = z3.Context()
        solver = z3.Solver(ctx=context)
        solver.add(z3.parse_smt2_string(script, ctx=context))
        assert solver.check() == z3.unsat
    return len(scripts)


def _via(claim, via):
    return Obligation("test/claim", "derivation", claim, (), "holds", (), "test", via=via)


def test_the_constant_search_tries_the_halfway_rungs_before_giving_up(monkeypatch):
    """z3's answer is not monotone in C: in the recorded search of FlashAttention backward's
    Theta claim it proved 578 and 776 but not 916, 1832 or 3664, and a search doubling
    from 229 gave up. A stand-in that proves exactly C in [700, 800]: the doubling rungs
    1, 2, ..., 4096 all fail, the halfway rung 768 proves, and bisection down to the
    largest unproved rung below it (512) ends at 700, with C = 699 unknown."""
    import importlib

    from attnio.proofs.check import Proved, Unknown, prove

    check_module = importlib.import_module("attnio.proofs.check")  # not the function

    C = sp.Symbol("C", positive=True)
    x = sp.Symbol("n", positive=True, integer=True)
    ob = Obligation("test/ladder", "tightness", sp.Le(x, C * x), (x <= 4,), "holds", (), "",
                    constant=C)  # fmt: skip
    asked = []

    def stand_in(obligation, constant, timeout_ms, certify=False):
        asked.append(constant)
        if 700 <= constant <= 800:
            return Proved("relaxation", {"n": 1}, "(check-sat)", constant=constant)
        return Unknown("stand-in", "(check-sat)", constant=constant)

    monkeypatch.setattr(check_module, "check_at", stand_in)
    monkeypatch.setattr(check_module, "largest_ratio", lambda ob: None)
    outcome = prove(ob)
    assert outcome.result.status == "proved" and outcome.result.constant == 700
    assert {1024, 2048, 4096, 768} <= set(asked) and "C = 699: unknown" in outcome.result.note


def test_check_at_proves_a_constant_claim_through_its_via_term():
    """A claim count <= C * R with an intermediate term X = C * R' (R' <= R) is proved at a
    constant as count <= C * R' and then C * R' <= C * R, with a certificate holding both
    steps; a via term that is not at most R gives no proof by transitivity, and the claim
    is checked itself."""
    from attnio.proofs.check import TRANSITIVE_CERTIFICATE, Proved, check_at

    C = sp.Symbol("C", positive=True)
    x = sp.Symbol("x", positive=True)
    claim = sp.Le(x + 1, C * sp.Max(x, 1), evaluate=False)
    good = Obligation("test/via", "tightness", claim, (), "holds", (), "", constant=C,
                      via=C * (x + 1) / 2)  # fmt: skip
    result = check_at(good, 2, certify=True)
    assert isinstance(result, Proved) and result.method.startswith("transitivity")
    assert TRANSITIVE_CERTIFICATE in result.smtlib and "(reset)" in result.smtlib
    wrong = Obligation("test/via", "tightness", claim, (), "holds", (), "", constant=C,
                       via=C * (x + 2))  # fmt: skip
    result = check_at(wrong, 2)
    assert isinstance(result, Proved) and not result.method.startswith("transitivity")


def test_a_chain_step_with_roundings_on_both_sides_tries_the_relaxation_first(monkeypatch):
    """A step of a via chain with a floor on both sides (a COUNT_STEPS step) is proved by
    the real relaxation without the rounding-free strengthening being tried; a step with a
    floor on one side only still gets the strengthening first."""
    import importlib

    check_module = importlib.import_module("attnio.proofs.check")
    x = sp.Symbol("x", positive=True, integer=True)
    tried = []
    strengthened = check_module._strengthened

    def spy(obligation, timeout_ms, certify=True):
        tried.append(obligation.claim)
        return strengthened(obligation, timeout_ms, certify)

    monkeypatch.setattr(check_module, "_strengthened", spy)
    both = sp.Le(sp.floor(x / 2), sp.floor(x / 2) + 1, evaluate=False)
    step = Obligation("test/step", "derivation", both, (), "holds", (), "")
    result = check_module._check_step(step, 3000)
    assert result.status == "proved" and "relaxation" in result.method and not tried
    one = sp.Le(sp.floor(x / 2), x, evaluate=False)
    result = check_module._check_step(Obligation("test/one", "derivation", one, (), "holds",
                                                 (), ""), 3000)  # fmt: skip
    assert result.status == "proved" and tried == [one]


def test_the_theta_claim_of_flash_backward_is_proved_through_the_smooth_sharp_bound():
    """Regression (2026-11-26): with the sharp record's Min, z3 proves FlashAttention
    backward's Theta claim at no C under the search's processor-time net; through the
    record's smooth minorant (attnio.proofs.derivation.MINORANTS) it proves C = 410, once
    the constant both sides of C * X <= C * R carry is divided out (z3 ends unknown on
    410 X <= 410 R and proves X <= R at once)."""
    from attnio.proofs.budget import searching
    from attnio.proofs.check import Proved, check_at
    from attnio.proofs.generate import tightness

    (ob,) = [
        o
        for o in tightness()
        if o.name == "tightness/dense-backward-tight/large/flash-backward-count"
    ]
    assert ob.via is not None
    with searching():
        result = check_at(ob, 410)
    assert isinstance(result, Proved) and result.method.startswith("transitivity"), result
