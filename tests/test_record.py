"""Tests of attnio.bounds.record: the Bound record and its evaluation."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import example, given
from hypothesis import strategies as st

from attnio.bounds import Bound, ParameterError, RecordError, get
from attnio.bounds.symbols import ALL, M, d, n
from tests.strategies import parameter_points, records, restrict


@given(records(), parameter_points())
def test_evaluate_agrees_with_substitution(bound: Bound, point: dict) -> None:
    """Evaluating a record equals substituting the same values into its sympy expression."""
    params = restrict(point, bound)
    if not bound.applies(**params):
        with pytest.raises(ParameterError, match="does not apply"):
            bound.evaluate(which="asymptotic", **params)
        return
    for which in ("asymptotic", "explicit"):
        expr = getattr(bound, which)
        if expr is None:
            continue
        expected = expr.subs({ALL[k]: sp.sympify(v) for k, v in params.items()})
        got = bound.evaluate(which=which, **params)
        assert sp.simplify(got - expected) == 0
        assert bound.evaluate(which=which, exact=False, **params) == pytest.approx(
            float(expected), rel=1e-12
        )


def test_exact_evaluation_is_rational_where_the_value_is() -> None:
    """An explicit bound without radicals evaluates to an exact sympy Integer or Rational."""
    value = get("dense-forward-lower-large-explicit").evaluate(n=1000, d=3, M=10)
    assert isinstance(value, sp.Rational)
    assert value == sp.Rational(1000**2 * 9, 80) - 10


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n": 8, "d": 2}, "needs parameter 'M'"),
        ({"n": 0, "d": 2, "M": 4}, "n=0 must be positive"),
        ({"n": -3, "d": 2, "M": 4}, "n=-3 must be positive"),
        ({"n": 8.5, "d": 2, "M": 4}, "n=8.5 must be an integer"),
        ({"n": "8", "d": 2, "M": 4}, "n='8' must be a real number"),
        ({"n": True, "d": 2, "M": 4}, "must be a real number"),
        ({"n": 8, "d": 2, "M": float("inf")}, "must be finite"),
        ({"n": 8, "d": 4, "M": 4}, "does not apply"),
    ],
)
def test_bad_parameters_are_refused_by_name(params: dict, message: str) -> None:
    """A missing, nonpositive, non-integer or out-of-condition parameter raises ParameterError naming it."""
    with pytest.raises(ParameterError, match=message):
        get("dense-forward-lower-large-explicit").evaluate(**params)


def test_out_of_condition_evaluation_is_allowed_when_unchecked() -> None:
    """check=False evaluates outside the conditions (for plots), but still validates values."""
    bound = get("dense-forward-lower-large-explicit")
    assert bound.evaluate(check=False, n=8, d=4, M=4) == sp.Rational(64 * 16, 32) - 4
    with pytest.raises(ParameterError):
        bound.evaluate(check=False, n=8, d=4, M=0)


def test_which_must_name_an_expression() -> None:
    """Asking for an expression that is not explicit/asymptotic, or is absent, raises."""
    with pytest.raises(ParameterError, match="which='both'"):
        get("dense-forward-tight").evaluate(which="both", n=1, d=1, M=1)
    with pytest.raises(ParameterError, match="no explicit expression"):
        get("dense-forward-tight").evaluate(n=1, d=1, M=1)


def _record(**overrides: object) -> Bound:
    fields = {
        "name": "planted",
        "kind": "lower",
        "regime": "dense",
        "pass_": "forward",
        "cache": "any",
        "asymptotic": n * d,
        "explicit": None,
        "conditions": sp.true,
        "source": "test",
        "status": "stated",
    }
    fields.update(overrides)
    return Bound(**fields)


@pytest.mark.parametrize("field", ["kind", "regime", "pass_", "cache", "status"])
def test_unknown_field_values_are_refused(field: str) -> None:
    """A record with a value outside its enum raises RecordError naming the field and choices."""
    with pytest.raises(RecordError, match=f"{field}='bogus' is not one of"):
        _record(**{field: "bogus"})


def test_undeclared_symbols_are_refused() -> None:
    """An expression over a symbol not declared in attnio.bounds.symbols raises RecordError."""
    with pytest.raises(RecordError, match=r"\['x'\]"):
        _record(asymptotic=sp.Symbol("x") * n)


@example(status="stated")
@given(st.sampled_from(["stated", "stated-secondary", "reconstructed", "derived"]))
def test_only_open_or_claimed_records_may_lack_an_expression(status: str) -> None:
    """asymptotic=None is refused unless the status is open or claimed-unretrieved."""
    with pytest.raises(RecordError, match="asymptotic=None"):
        _record(asymptotic=None, status=status)
    _record(asymptotic=None, status="claimed-unretrieved")


def test_open_records_carry_no_expression() -> None:
    """An 'open' record with an expression is refused: open means nothing is known."""
    with pytest.raises(RecordError, match="'open' record carries no expression"):
        _record(status="open")


def test_records_are_frozen_and_list_their_parameters() -> None:
    """Records are immutable and know which symbols they use."""
    bound = _record(conditions=M >= d**2)
    assert bound.parameters == ("M", "d", "n")
    with pytest.raises(AttributeError):
        bound.name = "other"  # type: ignore[misc]


def test_repr_latex_shows_the_statement() -> None:
    """The notebook representation names the bound and gives its asymptotic and explicit forms."""
    text = get("dense-forward-lower-small-explicit")._repr_latex_()
    assert text.startswith("$") and text.endswith("$")
    assert r"\Omega" in text and r"\geq" in text and "dense-forward-lower-small-explicit" in text


def test_comparable_needs_same_regime_pass_and_parameters():
    """A lower and an upper bound are comparable only within one regime and pass, and only
    when the upper uses every parameter beyond n, d, M that the lower uses."""
    compulsory = get("sparse-forward-compulsory")  # uses Z
    assert compulsory.comparable(get("sparse-square-tiling-forward-count"))  # uses Z
    assert not compulsory.comparable(get("block-sparse-flash-forward-count"))  # s only
    assert not compulsory.comparable(get("flash-forward-count"))  # dense
    assert not get("dense-forward-compulsory").comparable(get("flash-backward-count"))
    assert get("dense-forward-compulsory").comparable(get("flash-forward-count"))


def test_misspelt_parameter_is_refused() -> None:
    """A keyword that names no parameter (m for M) raises, naming it and the valid names."""
    from attnio.bounds import get
    from attnio.bounds.errors import ParameterError

    with pytest.raises(ParameterError, match=r"unknown parameter 'm'.*did you mean 'M'"):
        get("dense-forward-compulsory").evaluate(n=8, d=2, M=16, m=4096)


def test_get_needs_a_string() -> None:
    """get(None) raises a one-line UnknownBoundError, not a TypeError from inside."""
    from attnio.bounds import get
    from attnio.bounds.errors import UnknownBoundError

    with pytest.raises(UnknownBoundError, match="name=None"):
        get(None)


def test_derived_lower_evidence_says_what_is_machine_checked(monkeypatch) -> None:
    """The words every output uses for a derived lower bound: algebra machine-checked,
    lemmas by hand; once exhaustive checks exist, their size is added."""
    from attnio.bounds import record

    assert record.derived_lower_evidence() == (
        "algebra machine-checked; combinatorial lemmas proved by hand"
    )
    monkeypatch.setattr(record, "EXHAUSTIVE_SIZE", 7)
    assert record.derived_lower_evidence().endswith(
        "; checked on every part of graphs up to size 7"
    )
