"""Tests of attnio.claims.counting: machine counts refute a claim only where they may."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from attnio.algorithms import simulate
from attnio.algorithms.approximate import approximate_exp
from attnio.claims import check, parse_claims
from attnio.claims.counting import ENTRY_BOUNDS, guaranteed_error


def _claims(**fields: str) -> list:
    base = {"name": "mine", "kind": "lower", "regime": "approximate", "pass": "forward",
            "expression": "5*n*d"}  # fmt: skip
    base.update(fields)
    return parse_claims("[[bound]]\n" + "".join(f'{k} = "{v}"\n' for k, v in base.items()))


def _counting(report) -> list:
    return [e for e in report.evidence if e.check == "counting"]


@pytest.mark.parametrize("d", [1, 2, 4, 8])
@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize("entry_bound", ENTRY_BOUNDS)
def test_the_guaranteed_error_is_at_least_the_algorithms_bound(d, degree, entry_bound) -> None:
    """guaranteed_error is None exactly where the algorithm states no finite bound, and
    otherwise at least that bound per unit max|V|, within three significant digits."""
    stated = approximate_exp(degree, float(d * entry_bound**2)).output_bound(1.0)
    guarantee = guaranteed_error(d, degree, entry_bound)
    if not math.isfinite(stated):
        assert guarantee is None
    else:
        assert stated <= float(guarantee) <= stated * 1.011


def test_an_approximate_refutation_names_an_accuracy_the_run_meets() -> None:
    """A low-rank run refutes an approximate lower bound only with a finite error bound:
    the evidence sets B and epsilon, and the run repeated there has a finite bound within
    epsilon * max|V| and a measured error within it."""
    report = check(_claims(), skip=("z3", "pebbling"))[0]
    assert report.verdict == "refuted"
    (item,) = _counting(report)
    point = {k: sp.Rational(v) for k, v in item.point.items()}
    assert {"B", "epsilon", "g"} <= set(point) and "error at most" in item.summary
    n, d, memory, g = (int(point[k]) for k in ("n", "d", "M", "g"))
    run = simulate("low-rank", "forward", n, d, memory, degree=g, entry_bound=float(point["B"]))
    assert math.isfinite(run.error_bound) and run.error <= run.error_bound
    assert guaranteed_error(d, g, point["B"]) <= point["epsilon"]
    assert run.counts.io == int(item.other_value) < int(item.claim_value)


def test_no_run_refutes_an_accuracy_beyond_every_guarantee() -> None:
    """A claim about accuracies finer than any sampled run guarantees is never refuted by
    a machine count (no run is within its epsilon)."""
    report = check(_claims(conditions="epsilon <= 10**(-30)"), skip=("z3", "pebbling"))[0]
    assert report.verdict != "refuted"
    assert all(e.verdict != "refuted" for e in _counting(report))


def test_the_approximate_backward_never_refutes_a_lower_bound() -> None:
    """The low-rank backward computes the gradient of the approximate output, with no bound
    against exact gradients: its count (9nd when resident) refutes no lower bound."""
    report = check(_claims(**{"pass": "backward", "expression": "50*n*d"}))[0]
    assert report.verdict != "refuted", report.summary
    assert "no approximate backward run has an error bound" in _counting(report)[0].summary


def test_an_approximate_count_record_refutes_no_lower_bound_in_z3() -> None:
    """z3 against low-rank-forward-count finds a point, but the count carries no accuracy,
    so the item is unknown, never refuted."""
    report = check(_claims(expression="20*n*d"), skip=("pebbling", "counting"))[0]
    items = [e for e in report.evidence if e.against == "low-rank-forward-count"]
    assert items and all(e.verdict != "refuted" for e in items)


def test_upper_bounds_on_the_algorithm_are_refuted_whatever_its_accuracy() -> None:
    """An upper bound on what low-rank moves is refuted by its count at any degree: the
    claim is about the algorithm's cost, not its accuracy."""
    claims = _claims(kind="upper", expression="n*d", algorithm="low-rank")
    report = check(claims, skip=("z3", "pebbling"))[0]
    assert report.verdict == "refuted"


def test_an_exact_refutation_is_rerun_on_numeric_inputs() -> None:
    """A machine count refutes an exact regime's lower side only after the same run on
    numeric inputs moves the same words and matches the NumPy reference of attention."""
    report = check(_claims(regime="dense", expression="5*n*d"), skip=("z3", "pebbling"))[0]
    items = [e for e in _counting(report) if e.verdict == "refuted"]
    assert items and "re-run on numeric inputs: it computes forward attention" in items[0].summary


def test_a_run_that_does_not_compute_attention_refutes_nothing(monkeypatch) -> None:
    """If the numeric re-run of a refuting count failed to match exact attention, the count
    would refute nothing: the check names only algorithms that compute the claimed function."""
    import attnio.claims.counting as counting

    real = counting.simulate

    def wrong(*args, **kwargs):
        run = real(*args, **kwargs)
        if kwargs.get("numeric"):
            object.__setattr__(run, "error", 1.0)
        return run

    monkeypatch.setattr(counting, "simulate", wrong)
    report = check(_claims(regime="dense", expression="5*n*d"), skip=("z3", "pebbling"))[0]
    assert all(e.verdict != "refuted" for e in _counting(report))
