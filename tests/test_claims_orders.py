"""Tests of attnio.claims.orders: asymptotic claims judged by their growth."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import example, given
from hypothesis import strategies as st

from attnio.claims import ClaimError, check, parse_claim_text, parse_claims
from attnio.claims.orders import bound_of

NUMERIC = ("pebbling", "counting")
DENSE = {"regime": "dense", "pass_": "forward"}


def _report(text: str, **fields):
    return check([parse_claim_text(text, **{**DENSE, **fields})], skip=NUMERIC)[0]


def test_an_omega_claim_above_a_count_is_refuted_with_its_direction() -> None:
    """Omega(n^3) grows faster than the standard algorithm's derived count as n grows:
    refuted by the order check, naming the direction, the fixed values and the record,
    with both values at two points along it, the claim's the larger."""
    report = _report("lower: Omega(n**3)")
    (item,) = report.refutations()
    assert report.verdict == "refuted" and item.check == "order"
    assert item.point["n"] == "oo" and "n -> oo with" in item.replay
    assert item.against.endswith("-count") and "derived" in item.summary
    assert sp.Integer(item.claim_value) > sp.Integer(item.other_value)


def test_an_omega_claim_implied_by_derived_lower_bounds_is_proved() -> None:
    """Omega(n^2 d^2 / M) at the large cache follows from the derived lower bounds with the
    constant 1024: proved, naming the lemmas."""
    report = _report("lower: Omega(n**2*d**2/M)", cache="large")
    assert report.verdict == "proved"
    (item,) = [e for e in report.evidence if e.check == "proof"]
    assert "constant 1024" in item.summary and "dense-forward-lower-large" in item.against


def test_an_o_claim_below_a_lower_bound_is_refuted() -> None:
    """O(n d) is below the derived large-cache lower bound n^2 d^2 / (8M) - M as n grows."""
    (item,) = _report("upper: O(n*d)").refutations()
    assert item.check == "order" and "lower bound" in item.summary


def test_an_o_claim_on_a_named_algorithm_is_proved_from_its_count() -> None:
    """O(n^2 d^2 / M + n d) for flash2 where it runs follows from its derived count."""
    report = _report("upper: O(n**2*d**2/M + n*d)", cache="large", algorithm="flash2",
                     conditions="M >= 5*d + 3")  # fmt: skip
    assert report.verdict == "proved"


def test_theta_needs_both_sides_and_the_compulsory_term_refutes_it() -> None:
    """Theta(n^2 d^2 / M) at the large cache: as M grows with n = d = 1 the claim tends to 0
    while every computation moves the 4 n d input and output words: refuted."""
    (item,) = _report("tight: Theta(n**2*d**2/M)", cache="large").refutations()
    assert item.point["M"] == "oo" and item.against == "dense-forward-compulsory"


def test_a_direction_outside_the_scope_is_not_used() -> None:
    """With n <= 1000 no direction lets n grow, and in d or M the claim n^3 stays fixed:
    not refuted, and not proved (unknown, with the reason)."""
    report = _report("lower: Omega(n**3)", conditions="n <= 1000")
    assert report.verdict == "unknown" and "no derived record's growth" in report.summary


def test_orders_in_mask_parameters_are_unknown() -> None:
    """Omega(Z d) for sparse attention: no direction of Z is known to be realised."""
    report = _report("lower: Omega(Z*d)", regime="sparse")
    assert report.verdict == "unknown" and "['Z']" in report.summary


def test_asymptotic_claims_need_no_expression_in_toml() -> None:
    """asymptotic = "Omega(...)" alone is a claim; its symbol must match the kind, and an
    asymptotic form written as the expression is refused with a hint."""
    table = '[[bound]]\nname = "x"\nkind = "lower"\nregime = "dense"\npass = "forward"\n'
    (claim,) = parse_claims(table + 'asymptotic = "Omega(n**2*d**2/M)"\n')
    assert claim.bound.explicit is None and str(claim.bound.asymptotic) == "d**2*n**2/M"
    with pytest.raises(ClaimError, match="is O, but a lower claim is Omega"):
        parse_claims(table + 'asymptotic = "O(n)"\n')
    with pytest.raises(ClaimError, match="write it as asymptotic"):
        parse_claims(table + 'expression = "Omega(n)"\n')
    with pytest.raises(ClaimError, match="missing field 'expression' \\(or 'asymptotic'\\)"):
        parse_claims(table)


T = sp.Symbol("t", positive=True, integer=True)
SHAPES = (
    3 * sp.ceiling(T / 5) + 2 * T,
    T**2 / sp.floor(T / 3 + 1),
    T * sp.ceiling(T / sp.floor(sp.Integer(17) / 4)) - sp.floor(T / 2),
    sp.sqrt(sp.ceiling(T / 7)) + 1 / (sp.floor(T / 2) + 1),
)


@given(st.integers(0, len(SHAPES) - 1), st.integers(1, 10**6))
@example(1, 3)
def test_bounds_of_records_hold_at_every_t(which: int, value: int) -> None:
    """bound_of(upper=True) is at least the expression and bound_of(upper=False) at most
    it, at every integer t >= 1 (exact arithmetic)."""
    expr = SHAPES[which]
    exact = expr.subs(T, value)
    high, low = bound_of(expr, T, upper=True), bound_of(expr, T, upper=False)
    assert high is not None and low is not None
    assert not high.has(sp.ceiling, sp.floor) and not low.has(sp.ceiling, sp.floor)
    assert low.subs(T, value) <= exact <= high.subs(T, value)
