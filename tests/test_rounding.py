"""Tests of attnio.proofs.rounding: rounding-free strengthenings are sound bounds."""

from __future__ import annotations

import sympy as sp
from hypothesis import assume, example, given, reject, settings

from attnio.bounds.symbols import M, d, n
from attnio.proofs.rounding import _Bounder, _GiveUp, strengthen, uses_tight_floors
from strategies import examples, proof_points, rounded_proof_expressions


@settings(max_examples=examples(80))
@given(rounded_proof_expressions(), proof_points())
@example(n * sp.ceiling(n / sp.floor(M / (5 * d + 4))), {"n": 7, "d": 1, "M": 17})
@example(-sp.floor(sp.sqrt(M) / 2) + sp.ceiling(d / 3), {"n": 1, "d": 5, "M": 30})
# sympy 1.14 evaluates sqrt(17)/((M+1)(d+1)) >= 1 to True; the floor's lower bound then
# dropped its x < 1 branch and claimed floor(0.69) >= 0.34
@example(n + sp.floor(sp.sqrt(17) / ((M + 1) * (d + 1))), {"n": 1, "d": 1, "M": 2})
def test_bounds_enclose_the_expression(expr, point):
    """Where the side conditions hold, lower(e) <= e <= upper(e) (oracle: sympy at the point),
    with the default floor bound and the tight one of TIGHT_FLOORS.

    Every drawn expression has a floor or ceiling, so the bounds differ from it.
    """
    subs = {sym: point[sym.name] for sym in (n, d, M)}
    exact = expr.subs(subs)
    assume(exact.is_finite)
    for up, tight in ((True, False), (False, False), (True, True), (False, True)):
        bounder = _Bounder([], tight)
        try:
            bound = bounder.bound(expr, up)
        except _GiveUp:
            reject()
        if not all(c.subs(subs) is sp.true for c in bounder.side_conditions):
            continue
        assert not bound.atoms(sp.floor, sp.ceiling)
        value = bound.subs(subs)
        assume(value.is_finite)
        assert (value >= exact) if up else (value <= exact)


def test_strengthening_removes_roundings_and_keeps_direction():
    """The strengthened claim has no floor or ceiling and the original's direction."""
    claim = n * sp.ceiling(n / sp.floor(M / (5 * d + 4))) <= 4 * n**2
    strong = strengthen(claim)
    assert strong is not None
    assert not strong.claim.atoms(sp.floor, sp.ceiling)
    assert isinstance(strong.claim, sp.LessThan)
    assert any("> 0" in str(c) for c in strong.side_conditions)


def test_no_strengthening_without_rounding_or_for_equalities():
    """Claims without roundings, and equalities, get no strengthening."""
    assert strengthen(n <= M) is None
    assert strengthen(sp.Eq(sp.ceiling(n / 2), d)) is None
    assert strengthen(sp.Piecewise((sp.ceiling(n / 2), n > d), (n, True)) <= M) is None


def test_the_tight_floor_bound_loses_at_most_one_far_above_one():
    """With tight floors (the tightness table's corner searches) the lower bound of floor(x)
    is max(x / 2, x - 1) for x >= 1: within one of floor(x) once x >= 2, where the default
    x / 2 halves a block count such as floor(M / (2d + 1)); below 1 both are x - 1."""
    block = sp.floor(M / (2 * d + 1))
    tight = _Bounder([], tight_floors=True).bound(block, False)
    half = _Bounder([]).bound(block, False)
    assert tight.subs({M: 300, d: 1}) == 99 and half.subs({M: 300, d: 1}) == 50
    assert tight.subs({M: 4, d: 1}) == half.subs({M: 4, d: 1}) == sp.Rational(2, 3)
    assert tight.subs({M: 2, d: 1}) == half.subs({M: 2, d: 1}) == -sp.Rational(1, 3)
    assert uses_tight_floors("tightness/corner/forward/large/row-streaming-forward-count")
    assert not uses_tight_floors("tightness/table/forward/large/flash2-forward-count")
