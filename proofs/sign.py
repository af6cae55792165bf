"""A sound, structural sign test for the catalog's expressions.

sympy's assumption system answers ``is_nonnegative`` and ``is_positive`` by
rules that are not all sound: with positive integer symbols, sympy 1.14 says
``1/(M*n) - 1`` is nonnegative (false at ``M = 2``) and, from the same rule,
evaluates ``1 <= 1/(M*n)`` to ``True`` and ``Max(1, 1/(M*n))`` to ``1/(M*n)``.
A verification step that skips a side condition, multiplies through a
denominator or drops a ``Max`` branch because sympy said so could report a
wrong "proved". Everything in :mod:`attnio.proofs` that needs a sign uses
:func:`surely_positive` and :func:`surely_nonnegative` instead: they answer
``True`` only from the structure of the expression (sums and products of
positive parts, powers of positive bases, the declared sign of a symbol, the
exact value of a number) and ``False`` whenever they cannot tell, so a
``True`` is always right and a ``False`` only costs a side condition for z3
to prove.
"""

from __future__ import annotations

import sympy as sp

_PRECISION = 50
"""Significant digits used to decide the sign of an irrational number."""


def _number_sign(expr: sp.Expr) -> int | None:
    """-1, 0 or 1 for a number whose sign is certain, else None."""
    if expr.is_Rational:
        return 0 if expr.p == 0 else (1 if expr.p > 0 else -1)
    value = sp.N(expr, _PRECISION)
    if not value.is_real or not value.is_Number:
        return None
    # a nonzero value far above the evaluation error has the sign it shows
    if abs(value) > sp.Float(10) ** (10 - _PRECISION):
        return 1 if value > 0 else -1
    return None


def surely_positive(expr: sp.Basic) -> bool:
    """Whether ``expr > 0`` follows from its structure alone (``False``: cannot tell).

    Examples
    --------
    >>> from attnio.bounds.symbols import M, n
    >>> surely_positive(n**2 / M + 1)
    True
    >>> surely_positive(1 / (M * n) - 1)
    False
    """
    if not isinstance(expr, sp.Expr):
        return False
    if expr.is_number:
        return _number_sign(expr) == 1
    if isinstance(expr, sp.Symbol):
        return expr.is_positive is True  # the sign the symbol was declared with
    if isinstance(expr, sp.Add):
        return all(surely_nonnegative(a) for a in expr.args) and any(
            surely_positive(a) for a in expr.args
        )
    if isinstance(expr, sp.Mul):
        return all(surely_positive(a) for a in expr.args)
    if isinstance(expr, sp.Pow):
        return surely_positive(expr.base) and bool(expr.exp.is_real)
    if isinstance(expr, sp.Max):
        return any(surely_positive(a) for a in expr.args)
    if isinstance(expr, sp.Min):
        return all(surely_positive(a) for a in expr.args)
    if isinstance(expr, sp.ceiling):
        return surely_positive(expr.args[0])
    return False


def surely_nonnegative(expr: sp.Basic) -> bool:
    """Whether ``expr >= 0`` follows from its structure alone (``False``: cannot tell).

    Examples
    --------
    >>> from attnio.bounds.symbols import M, d
    >>> surely_nonnegative(sp.floor(M / d))
    True
    >>> surely_nonnegative(M - d**2)
    False
    """
    if not isinstance(expr, sp.Expr):
        return False
    if expr.is_number:
        return _number_sign(expr) in (0, 1)
    if surely_positive(expr):
        return True
    if isinstance(expr, sp.Symbol):
        return expr.is_nonnegative is True
    if isinstance(expr, (sp.Add, sp.Mul)):
        return all(surely_nonnegative(a) for a in expr.args)
    if isinstance(expr, sp.Pow):
        exponent = expr.exp
        if exponent.is_Integer and exponent % 2 == 0 and exponent > 0:
            return bool(expr.base.is_extended_real)  # an even power of a real number
        return surely_nonnegative(expr.base) and bool(exponent.is_positive)
    if isinstance(expr, sp.Max):
        return any(surely_nonnegative(a) for a in expr.args)
    if isinstance(expr, sp.Min):
        return all(surely_nonnegative(a) for a in expr.args)
    if isinstance(expr, (sp.floor, sp.ceiling)):
        return surely_nonnegative(expr.args[0])
    return False


__all__ = ["surely_nonnegative", "surely_positive"]
