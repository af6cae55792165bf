"""Tests of attnio.claims.accuracy: a low-rank run refutes an approximate claim only with a
worst-case accuracy, re-checked on inputs whose error is known."""

from __future__ import annotations

import math

import pytest
import sympy as sp

import attnio.algorithms.approximate as approximate
from attnio.algorithms.approximate import error_bound
from attnio.claims import accuracy, parse_claims
from attnio.claims.accuracy import (
    ENTRY_BOUNDS,
    EPSILONS,
    MAX_DEGREE,
    accuracies,
    guaranteed_error,
    miss,
    misses,
    rerun,
)
from attnio.claims.closed_forms import closed_form_evidence
from attnio.claims.counting import counting_evidence


def _clear() -> None:
    for cached in (accuracy.guaranteed_error, accuracy._least, accuracy.accuracies,
                   accuracy.misses):  # fmt: skip
        cached.cache_clear()


@pytest.fixture
def optimistic(monkeypatch):
    """The polynomial method's error bound made 30 times too small (a wrong bound)."""
    real = approximate._output_bound
    monkeypatch.setattr(approximate, "_output_bound", lambda *a: real(*a) / 30)
    _clear()
    yield
    monkeypatch.undo()
    _clear()


def _claim(expression: str, conditions: str):
    text = (
        '[[bound]]\nname = "mine"\nkind = "lower"\nregime = "approximate"\npass = "forward"\n'
        f'expression = "{expression}"\nconditions = "{conditions}"\n'
    )
    return parse_claims(text)[0]


@pytest.mark.parametrize("d", [1, 2, 4, 8, 16, 64])
def test_every_accuracy_point_is_guaranteed_within_its_epsilon(d) -> None:
    """Each accuracy point's guarantee is at least the method's error bound at its degree
    and score range, and at most its epsilon, times B where B > 1 (so the point also meets
    AS23's reading: V's entries within B, epsilon an absolute error); r is C(d + g, g)."""
    for point in accuracies(d, True):
        radius = float(d * point["B"] ** 2)
        assert error_bound(point["g"], radius) <= float(point["guarantee"])
        assert point["guarantee"] * max(1, point["B"]) <= point["epsilon"]
        assert point["r"] == math.comb(d + point["g"], point["g"])


@pytest.mark.parametrize("d", [1, 4, 16])
def test_the_degree_chosen_for_an_epsilon_is_the_least(d) -> None:
    """For each B and epsilon of the ladders, the least degree of the accuracy points that
    meets epsilon is the least degree whose guarantee meets it (up to the cap)."""
    points = accuracies(d, True)
    for entry_bound in ENTRY_BOUNDS:
        for epsilon in EPSILONS:
            least = next((g for g in range(MAX_DEGREE + 1)
                          if (e := guaranteed_error(d, g, entry_bound)) is not None
                          and e * max(1, entry_bound) <= epsilon), None)  # fmt: skip
            chosen = [p["g"] for p in points if p["B"] == entry_bound and p["epsilon"] == epsilon]
            assert (min(chosen) if chosen else None) == least, (entry_bound, epsilon)


def test_miss_points_have_no_guarantee_within_their_epsilon() -> None:
    """The points of runs that may not refute have no finite guarantee, or one above their
    epsilon."""
    for point in misses(4, True):
        guarantee = guaranteed_error(4, point["g"], point["B"])
        assert guarantee is None or guarantee * max(1, point["B"]) > point["epsilon"]


def test_a_wrong_error_bound_refutes_nothing_the_adversary_disproves(optimistic) -> None:
    """Were the error bound 30 times too small, no run would refute 4nd + n (n >= 8): each
    candidate is re-run on the two-score input inside [-B, B], whose error exceeds the
    (wrong) guarantee. Re-checked on seeded uniform inputs alone, the same wrong bound
    would have produced refutations (the test has teeth)."""
    claim = _claim("4*n*d + n", "n >= 8")
    for evidence in (counting_evidence, closed_form_evidence):
        assert all(e.verdict != "refuted" for e in evidence(claim)), evidence.__name__
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(accuracy, "ENTRY_PATTERNS", ("uniform",))
        assert any(e.verdict == "refuted" for e in counting_evidence(claim))


def test_the_true_bound_refutes_the_same_claim() -> None:
    """With the method's true bound the same claim is refuted, the run re-checked on every
    input family, the known errors matched."""
    (item,) = counting_evidence(_claim("4*n*d + n", "n >= 8"))
    assert item.verdict == "refuted"
    for family in ("uniform inputs", "constant inputs (known: 0)", "two-scores inputs (known:"):
        assert family in item.summary


def test_a_run_that_misses_its_known_error_refutes_nothing(monkeypatch) -> None:
    """If the measured error on an input of known error differed from the closed form, the
    run would not compute what the method states: rerun refuses it."""
    point = {"n": 8, "d": 2, "M": 64, "g": 3, "B": sp.Rational(1, 2),
             "guarantee": guaranteed_error(2, 3, sp.Rational(1, 2))}  # fmt: skip
    from attnio.algorithms import simulate

    io = simulate("low-rank", "forward", 8, 2, 64, degree=3, numeric=False).counts.io
    assert rerun("low-rank", "forward", point, io)
    real = accuracy.known_error
    monkeypatch.setattr(accuracy, "known_error", lambda *a, **k: (real(*a, **k) or 0) + 1e-3)
    assert rerun("low-rank", "forward", point, io) is None
    monkeypatch.undo()
    assert rerun("low-rank", "forward", point, io + 1) is None  # another count: refused too


def test_miss_is_a_certificate_or_nothing() -> None:
    """miss names an error above epsilon on the two-score input, and says nothing where the
    guarantee meets epsilon or where one key makes every degree exact (n = 1)."""
    text = miss(4, 3, sp.Integer(1), sp.Rational(1, 10), 16)
    assert text is not None and "no finite error bound" in text and "> epsilon = 1/10" in text
    assert miss(4, 3, sp.Rational(1, 4), sp.Rational(1, 10), 16) is None
    assert miss(4, 3, sp.Integer(1), sp.Rational(1, 10), 1) is None


def test_accuracy_fields_refute_only_with_a_run_within_the_claims_epsilon() -> None:
    """A claims file's epsilon and entry_bound fields scope an approximate claim: with
    epsilon = 1/100 and entry_bound = 1/2 a run guaranteed within 1/100 refutes 100 n d; with
    epsilon = 10^-40 no run of any degree up to MAX_DEGREE is guaranteed within it, so
    nothing refutes the same expression."""

    def claim(epsilon: str):
        text = (
            '[[bound]]\nname = "mine"\nkind = "lower"\nregime = "approximate"\n'
            f'pass = "forward"\nexpression = "100*n*d"\nepsilon = "{epsilon}"\n'
            'entry_bound = "1/2"\n'
        )
        return parse_claims(text)[0]

    coarse = claim("1/100")
    assert str(coarse.bound.conditions) == "(B <= 1/2) & (epsilon <= 1/100)"
    (item,) = counting_evidence(coarse)
    assert item.verdict == "refuted" and "within the claim's epsilon" in item.summary
    (item,) = counting_evidence(claim("1/10**40"))
    assert item.verdict != "refuted"
