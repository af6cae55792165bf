"""Exact rational evaluation of a record's formula at a point, without building sympy trees.

A record is evaluated at tens of thousands of integer points by ``attnio verify`` (every
count record at every simulated run, the breakpoints, the claims' grid). sympy rebuilds the
whole expression tree at each point and reasons about the signs of every floor and
ceiling on the way, which was most of the processor time of those checks. Here a formula
is compiled once into nested Python closures over ``int`` and :class:`fractions.Fraction`,
so a point costs a few arithmetic operations per node, with exactly the same value.

Only what is exactly rational is evaluated here: sums, products, integer powers, rational
powers whose roots are exact (``sqrt(64) = 8``), floor, ceiling, Min, Max, comparisons,
And, Or, Not and Piecewise. Anything else (a root that is irrational at this point, ``exp``
of a nonzero number, a division by zero, an infinity, a float, a symbol without a value) is
not decided here: :func:`evaluate` returns ``None`` and the caller evaluates with sympy as
before. So the answer is sympy's, or none. ``tests/test_rational.py`` compares the two on
every expression and condition of the catalog.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction

import sympy as sp

Number = int | Fraction
Value = Number | bool
Compiled = Callable[[dict], Value]


class _NotRationalError(ArithmeticError):
    """The formula, or its value at this point, is not an exact rational (or truth value).

    Control flow only: :func:`evaluate` catches it and returns ``None``; it never leaves
    this module.
    """


def evaluate(formula: sp.Basic, point: tuple[tuple[sp.Symbol, sp.Basic], ...]) -> sp.Basic | None:
    """``formula`` at ``point`` as the sympy number or truth value sympy gives, or ``None``.

    Parameters
    ----------
    formula : sympy.Basic
        An expression or a condition of a record.
    point : tuple of (Symbol, number) pairs
        A value for each symbol; values that are not sympy integers or rationals (a float)
        are not evaluated here.

    Returns
    -------
    sympy.Basic or None
        The same value as ``formula.xreplace(dict(point))`` where that is a rational
        number or a truth value; ``None`` where this module does not decide it.

    Examples
    --------
    >>> import sympy as sp
    >>> n, M = sp.symbols("n M", positive=True)
    >>> evaluate(n**2 / sp.sqrt(M) + sp.floor(n / 3), ((n, sp.Integer(8)), (M, sp.Integer(16))))
    18
    >>> evaluate(n / sp.sqrt(M), ((n, sp.Integer(8)), (M, sp.Integer(2)))) is None
    True
    """
    compiled = _compiled(formula)
    if compiled is None:
        return None
    values = {}
    for symbol, number in point:
        if isinstance(number, sp.Integer):
            values[symbol] = int(number)
        elif isinstance(number, sp.Rational):
            values[symbol] = Fraction(int(number.p), int(number.q))
        else:
            return None
    try:
        value = compiled(values)
    except (_NotRationalError, ZeroDivisionError):
        return None
    if isinstance(value, bool):
        return sp.true if value else sp.false
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    return sp.Integer(value)


def value_at(formula: sp.Basic, point: tuple[tuple[sp.Symbol, sp.Basic], ...]) -> sp.Basic:
    """``formula`` at ``point``: :func:`evaluate` where it decides, else sympy's value.

    sympy replaces every symbol at once (``xreplace``); where building the numbers raises
    (a condition comparing an infinity that an earlier, false part of a conjunction
    guards), it substitutes one symbol at a time (``subs``), as the records always did.

    Examples
    --------
    >>> import sympy as sp
    >>> n, M = sp.symbols("n M", positive=True)
    >>> value_at(n / sp.sqrt(M), ((n, sp.Integer(8)), (M, sp.Integer(2))))
    4*sqrt(2)
    """
    value = evaluate(formula, point)
    if value is not None:
        return value
    subs = dict(point)
    try:
        return formula.xreplace(subs)
    except TypeError:
        return formula.subs(subs)


@functools.lru_cache(maxsize=4096)
def _compiled(formula: sp.Basic) -> Compiled | None:
    """``formula`` compiled once, or ``None`` if it has a node this module does not evaluate."""
    try:
        return _compile(formula)
    except _NotRationalError:
        return None


def _compile(node: sp.Basic) -> Compiled:
    if isinstance(node, sp.Symbol):
        return _symbol(node)
    if isinstance(node, sp.Integer):
        constant: Value = int(node)
        return lambda values: constant
    if isinstance(node, sp.Rational):
        constant = Fraction(int(node.p), int(node.q))
        return lambda values: constant
    if node is sp.true or node is sp.false:
        truth = bool(node)
        return lambda values: truth
    if isinstance(node, sp.Add):
        return _fold(node, lambda values, parts: sum(part(values) for part in parts))
    if isinstance(node, sp.Mul):
        return _fold(node, lambda values, parts: math.prod(part(values) for part in parts))
    if isinstance(node, sp.Pow):
        return _power(node)
    if isinstance(node, (sp.floor, sp.ceiling)):
        (argument,) = (_compile(arg) for arg in node.args)
        rounding = math.floor if isinstance(node, sp.floor) else math.ceil
        return lambda values: rounding(argument(values))
    if isinstance(node, (sp.Min, sp.Max)):
        choose = min if isinstance(node, sp.Min) else max
        return _fold(node, lambda values, parts: choose(part(values) for part in parts))
    if isinstance(node, sp.exp):
        (argument,) = (_compile(arg) for arg in node.args)
        return lambda values: _exp(argument(values))
    if isinstance(node, sp.core.relational.Relational) and node.rel_op in _RELATIONS:
        compare = _RELATIONS[node.rel_op]
        left, right = (_compile(arg) for arg in node.args)
        return lambda values: compare(_number(left(values)), _number(right(values)))
    if isinstance(node, sp.And):
        return _fold(node, lambda values, parts: all([_truth(part(values)) for part in parts]))
    if isinstance(node, sp.Or):
        return _fold(node, lambda values, parts: any([_truth(part(values)) for part in parts]))
    if isinstance(node, sp.Not):
        (argument,) = (_compile(arg) for arg in node.args)
        return lambda values: not _truth(argument(values))
    if isinstance(node, sp.Piecewise):
        return _piecewise(node)
    raise _NotRationalError(type(node).__name__)


_RELATIONS: dict[str, Callable[[Number, Number], bool]] = {
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def _symbol(symbol: sp.Symbol) -> Compiled:
    def value(values: dict) -> Value:
        try:
            return values[symbol]
        except KeyError:
            raise _NotRationalError(str(symbol)) from None

    return value


def _fold(node: sp.Basic, combine: Callable[[dict, tuple[Compiled, ...]], Value]) -> Compiled:
    parts = tuple(_compile(arg) for arg in node.args)
    return lambda values: combine(values, parts)


def _power(node: sp.Pow) -> Compiled:
    base = _compile(node.base)
    exponent = node.exp
    if isinstance(exponent, sp.Integer):
        power = int(exponent)
        if power >= 0:
            return lambda values: _number(base(values)) ** power
        return lambda values: Fraction(_number(base(values))) ** power
    if isinstance(exponent, sp.Rational):
        p, q = int(exponent.p), int(exponent.q)
        return lambda values: Fraction(_root(_number(base(values)), q)) ** p
    raise _NotRationalError(str(exponent))


def _root(value: Number, q: int) -> Number:
    """The exact nonnegative q-th root of ``value``, or :class:`_NotRationalError`."""
    if value < 0:
        raise _NotRationalError("root of a negative number")
    fraction = Fraction(value)
    num, den = _integer_root(fraction.numerator, q), _integer_root(fraction.denominator, q)
    return Fraction(num, den)


def _integer_root(value: int, q: int) -> int:
    """The integer q-th root of ``value >= 0`` if it is exact (Newton's method on integers)."""
    if q == 2:
        root = math.isqrt(value)
    elif value < 2:
        root = value
    else:
        root = 1 << -(-value.bit_length() // q)  # at least the root
        while True:
            smaller = ((q - 1) * root + value // root ** (q - 1)) // q
            if smaller >= root:
                break
            root = smaller
    if root**q != value:
        raise _NotRationalError("irrational root")
    return root


def _exp(value: Value) -> int:
    if _number(value) == 0:
        return 1
    raise _NotRationalError("exp of a nonzero number")


def _number(value: Value) -> Number:
    if isinstance(value, bool):  # sympy compares no truth value with a number
        raise _NotRationalError("a truth value where a number is needed")
    return value


def _truth(value: Value) -> bool:
    if not isinstance(value, bool):
        raise _NotRationalError("a number where a truth value is needed")
    return value


def _piecewise(node: sp.Piecewise) -> Compiled:
    pieces = tuple((_compile(expr), _compile(cond)) for expr, cond in node.args)

    def value(values: dict) -> Value:
        for expr, cond in pieces:
            if _truth(cond(values)):
                return expr(values)
        raise _NotRationalError("no piece applies")

    return value


__all__ = ["evaluate", "value_at"]
