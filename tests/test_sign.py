"""The structural sign test: its True is never wrong, and it knows the catalog's shapes."""

from __future__ import annotations

import itertools

import pytest
import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attnio.bounds.symbols import M, d, n
from attnio.proofs.sign import surely_nonnegative, surely_positive
from strategies import examples, proof_expressions

_GRID = list(itertools.product((1, 2, 7), repeat=3))


def _values(expr: sp.Expr) -> list[sp.Expr]:
    values = []
    for point in _GRID:
        value = expr.subs(dict(zip((n, d, M), point, strict=True)))
        if value.is_finite and value.is_real:
            values.append(value)
    return values


def _monomials() -> st.SearchStrategy[sp.Expr]:
    """c * n^i d^j M^k with small exponents of either sign: sympy's unsound shape."""
    exponent = st.integers(-2, 2)
    return st.builds(
        lambda c, i, j, k: c * n**i * d**j * M**k,
        st.sampled_from((sp.Integer(1), sp.Integer(3), sp.Rational(1, 2), sp.Rational(5, 4))),
        exponent,
        exponent,
        exponent,
    )


def _sums() -> st.SearchStrategy[sp.Expr]:
    constant = st.sampled_from((0, 1, -1, -2, sp.Rational(-1, 4), sp.sqrt(2) - 1, 1 - sp.sqrt(2)))
    sign = st.sampled_from((1, -1))
    return st.builds(lambda a, s, b, c: a + s * b + c, _monomials(), sign, _monomials(), constant)


@settings(max_examples=examples(200))
@given(st.one_of(_sums(), proof_expressions()))
@example(1 / (M * n) - 1)  # sympy 1.14: is_nonnegative is True, false at M = 2
@example(sp.Rational(3, 4) - 1 / (M * d**2 * n**2))  # sympy: is_negative True, false at M = 2
@example(sp.Rational(-1, 4) + 3 / (d**2 * n**2))  # sympy: is_positive True, false at d = 4
def test_a_sure_sign_holds_at_every_point(expr):
    """surely_positive (surely_nonnegative) implies > 0 (>= 0) at every sampled point."""
    values = _values(expr)
    if surely_positive(expr):
        assert all(v > 0 for v in values), expr
    if surely_nonnegative(expr):
        assert all(v >= 0 for v in values), expr


def test_sympy_still_gets_the_planted_shapes_wrong_or_this_module_is_redundant():
    """The reason for this module: sympy decides a false sign for 1/(M n) - 1.

    If a sympy release fixes it, this test fails; the module stays correct either way
    (it only ever answers from the structure).
    """
    assert (1 / (M * n) - 1).is_nonnegative is True
    assert sp.Le(1, 1 / (M * n)) is sp.true
    assert surely_nonnegative(1 / (M * n) - 1) is False


@pytest.mark.parametrize(
    "expr",
    [
        5 * d + 4,
        M * sp.sqrt(M),
        n**2 * d**2 / M + n * d,
        sp.sqrt(5 * M) + 2,
        sp.ceiling(n / (5 * d + 4)),
        sp.floor(M / (5 * d + 4)),
        sp.Max(n * d, n**2 * d / M - 1),
        sp.sqrt(17),
    ],
)
def test_the_catalogs_positive_shapes_are_recognised(expr):
    """Denominators and factors of the catalog's counts are known positive (no lost proofs)."""
    assert surely_positive(expr) or surely_nonnegative(expr)


@pytest.mark.parametrize(
    "expr",
    [
        M - d**2,
        1 / (M * n) - 1,
        sp.floor(M / d) - 1,
        sp.sqrt(2) - sp.Rational(141421356, 10**8) - 1,
    ],
)
def test_unknown_signs_are_not_claimed(expr):
    """Expressions that can be negative are not claimed nonnegative."""
    assert not surely_nonnegative(expr)
