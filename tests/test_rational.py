"""Tests for attnio.bounds.rational: the compiled exact evaluation against sympy's own."""

from __future__ import annotations

import random

import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attnio.bounds import catalog, symbols
from attnio.bounds.rational import evaluate

_POINTS = 12
_VALUES = (1, 2, 3, 4, 7, 9, 16, 37, 64, 100, 127, 256, 1024, 4096, 65536)


def _point(formula: sp.Basic, rng: random.Random) -> tuple:
    """A point for every symbol of ``formula``: integers (many perfect squares and cubes, so
    roots are often exact) and, for the real symbols, rationals too."""
    point = []
    for symbol in sorted(formula.free_symbols, key=str):
        if symbol.is_integer:
            value = sp.Integer(rng.choice(_VALUES) + rng.choice((0, 0, 1, -1)))
            if (value <= 0 and not symbol.is_nonnegative) or value < 0:
                value = sp.Integer(1)
        else:
            value = sp.Rational(rng.randint(1, 64), rng.choice((1, 1, 2, 3, 4)))
        point.append((symbol, value))
    return tuple(point)


def _sympy(formula: sp.Basic, point: tuple) -> sp.Basic | None:
    try:
        return formula.xreplace(dict(point))
    except TypeError:  # sympy refuses to build the numbers (a comparison with zoo)
        return None


def test_every_catalog_formula_evaluates_as_sympy_does() -> None:
    """Oracle: at 12 seeded points per expression and condition of every record, the compiled
    value is sympy's, exactly (same number or truth value); and it is not vacuous: most
    evaluations are decided by the compiled path, not handed back to sympy."""
    rng = random.Random(20261128)
    decided = total = 0
    for bound in catalog():
        for formula in (bound.explicit, bound.asymptotic, bound.conditions):
            if formula is None:
                continue
            for _ in range(_POINTS):
                point = _point(formula, rng)
                total += 1
                value = evaluate(formula, point)
                if value is None:
                    continue
                decided += 1
                expected = _sympy(formula, point)
                assert value == expected and type(value) is type(expected), (
                    bound.name,
                    formula,
                    point,
                    value,
                    expected,
                )
    assert decided > 0.6 * total, (decided, total)


def test_irrational_values_and_missing_symbols_are_left_to_sympy() -> None:
    """A root that is irrational at the point, exp of a nonzero number, a division by zero, a
    float value and a symbol without a value are not decided (None), never approximated."""
    n, M = symbols.n, symbols.M
    at = ((n, sp.Integer(8)), (M, sp.Integer(2)))
    assert evaluate(n / sp.sqrt(M), at) is None
    assert evaluate(sp.exp(n), at) is None
    assert evaluate(n / (M - 2), at) is None
    assert evaluate(n + M, ((n, sp.Float(1.5)), (M, sp.Integer(2)))) is None
    assert evaluate(n + symbols.d, at) is None
    assert evaluate(n * sp.sqrt(M), ((n, sp.Integer(8)), (M, sp.Integer(9)))) == 24


_n, _d, _M = symbols.n, symbols.d, symbols.M
_leaves = st.sampled_from([_n, _d, _M, sp.Integer(1), sp.Integer(2), sp.Rational(1, 2)])


def _grow(children: st.SearchStrategy) -> st.SearchStrategy:
    pair = st.tuples(children, children)
    return st.one_of(
        pair.map(lambda p: p[0] + p[1]),
        pair.map(lambda p: p[0] * p[1]),
        pair.map(lambda p: p[0] / (p[1] + 1)),
        pair.map(lambda p: sp.Min(*p)),
        pair.map(lambda p: sp.Max(*p)),
        children.map(sp.floor),
        children.map(sp.ceiling),
        children.map(lambda e: sp.sqrt(e * e)),
        children.map(lambda e: e**2),
        pair.map(lambda p: sp.Piecewise((p[0], p[0] <= p[1]), (p[1], True))),
    )


_formulas = st.recursive(_leaves, _grow, max_leaves=8)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    formula=_formulas,
    n=st.integers(1, 300),
    d=st.integers(1, 40),
    M=st.integers(1, 5000),
)
@example(formula=sp.ceiling(_n / sp.floor(_M / (2 * _d + 1))), n=5, d=1, M=3)
def test_random_formulas_evaluate_as_sympy_does(formula, n, d, M) -> None:
    """Oracle on generated formulas (sums, quotients, floors, ceilings, Min, Max, roots,
    Piecewise): whenever the compiled path decides, it is sympy's value; comparisons of the
    formula with a number decide the same way."""
    point = ((_n, sp.Integer(n)), (_d, sp.Integer(d)), (_M, sp.Integer(M)))
    for candidate in (formula, sp.Le(formula, _n), sp.And(formula >= 1, _M > _d)):
        if candidate in (sp.true, sp.false):
            continue
        value = evaluate(candidate, point)
        if value is not None:
            expected = _sympy(candidate, point)
            assert value == expected and type(value) is type(expected)
