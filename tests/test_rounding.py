"""Tests of attnio.proofs.rounding: rounding-free strengthenings are sound bounds."""

from __future__ import annotations

import sympy as sp
from hypothesis import assume, example, given, reject, settings

from attnio.bounds.symbols import M, d, n
from attnio.proofs.rounding import _Bounder, _GiveUp, strengthen
from strategies import examples, proof_points, rounded_proof_expressions


@settings(max_examples=examples(80))
@given(rounded_proof_expressions(), proof_points())
@example(n * sp.ceiling(n / sp.floor(M / (5 * d + 4))), {"n": 7, "d": 1, "M": 17})
@example(-sp.floor(sp.sqrt(M) / 2) + sp.ceiling(d / 3), {"n": 1, "d": 5, "M": 30})
# sympy 1.14 evaluates sqrt(17)/((M+1)(d+1)) >= 1 to True; the floor's lower bound then
# dropped its x < 1 branch and claimed floor(0.69) >= 0.34
@example(n + sp.floor(sp.sqrt(17) / ((M + 1) * (d + 1))), {"n": 1, "d": 1, "M": 2})
def test_bounds_enclose_the_expression(expr, point):
    """Where the side conditions hold, lower(e) <= e <= upper(e) (oracle: sympy at the point).

    Every drawn expression has a floor or ceiling, so the bounds differ from it.
    """
    subs = {sym: point[sym.name] for sym in (n, d, M)}
    exact = expr.subs(subs)
    assume(exact.is_finite)
    for up in (True, False):
        bounder = _Bounder([])
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
