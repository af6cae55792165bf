"""Sufficient claims without floors and ceilings: bound each rounding in the safe direction.

Exact counts hold ceilings of quotients of floors (``ceiling(n / floor(M /
(5d + 4)))``); z3 must then reason about several fresh integer-like variables
at once, and nonlinear real arithmetic slows down sharply with each one. For a
claim ``lhs <= rhs`` this module builds ``upper(lhs) <= lower(rhs)``, where
``upper(e) >= e`` and ``lower(e) <= e`` at every point, using

* ``x <= ceiling(x) <= x + 1`` and ``floor(x) <= x``,
* ``floor(x) >= x / 2`` when ``x >= 1`` and ``floor(x) >= x - 1`` always; for the
  obligations named in :data:`TIGHT_FLOORS`, ``floor(x) >= max(x / 2, x - 1)`` when
  ``x >= 1`` (within one of floor(x) once x >= 2, where x / 2 loses up to half),
* monotonicity of sums, of products of nonnegative factors, of ``Max``,
  ``Min`` and of positive powers (and antitonicity of negative powers), with
  every sign read from the structure (:mod:`attnio.proofs.sign`), never from
  sympy's assumption rules;
* an irrational constant ``b**(p/q)`` (``sqrt(5)``) is replaced by a rational
  bound on the safe side, checked exactly (``value**q`` against ``b**p``), so z3
  needs no extra variable for it.

The stronger claim implies the original wherever the *side conditions* hold:
each factor of a bounded product and each base of a bounded power whose sign
sympy cannot tell must be nonnegative, and each negative power of a bounded
base needs that base and its bound positive. The checker
proves the side conditions and the stronger claim separately; a refutation of
the stronger claim says nothing about the original.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .sign import surely_nonnegative, surely_positive


class _GiveUp(Exception):  # noqa: N818 (internal control flow, never raised out)
    """The expression has a rounding in a position this module cannot bound."""


@dataclass(frozen=True)
class Strengthening:
    """A claim without roundings that implies the original under ``side_conditions``."""

    claim: sp.Basic
    side_conditions: tuple[sp.Basic, ...]


def _is_surd(expr: sp.Basic) -> bool:
    """A positive rational to a non-integer rational power, such as sqrt(5)."""
    return (
        isinstance(expr, sp.Pow)
        and expr.base.is_Rational
        and expr.base > 0
        and expr.exp.is_Rational
        and not expr.exp.is_integer
    )


def _has_rounding(expr: sp.Basic) -> bool:
    return bool(expr.atoms(sp.floor, sp.ceiling)) or any(
        _is_surd(node) for node in sp.preorder_traversal(expr)
    )


_DIGITS = 12
"""Decimal digits of the rational bounds that replace irrational constants."""


def surd_bound(expr: sp.Pow, up: bool) -> sp.Rational:
    """A rational >= (``up``) or <= the surd ``b**(p/q)``, checked exactly.

    Examples
    --------
    >>> import sympy as sp
    >>> surd_bound(sp.sqrt(5), up=False)
    2236067977499/1000000000000
    """
    base, exponent = sp.Rational(expr.base), sp.Rational(expr.exp)
    scale = 10**_DIGITS
    approx = sp.Rational(int(sp.floor(sp.N(expr, _DIGITS + 10) * scale)), scale)
    step = sp.Rational(1, scale)
    value = approx + step if up else approx
    # value**q against base**p, exactly: nudge until the bound is on the right side
    p, q = exponent.p, exponent.q
    while (value**q >= base**p) is not sp.true if up else (value**q <= base**p) is not sp.true:
        value += step if up else -step
    return value


def _at_least_zero(value: sp.Expr) -> sp.Expr:
    """``Max(value, 0)``: ``value`` itself when its sign is sure, else unevaluated (see .sign)."""
    if value.is_number:
        return sp.Max(value, 0)
    return value if surely_nonnegative(value) else sp.Max(value, 0, evaluate=False)


def _positive(expr: sp.Expr) -> sp.Basic:
    """A condition equivalent to ``expr > 0``, without the rounding when ``expr`` is one."""
    if isinstance(expr, sp.floor):  # floor(x) > 0  <=>  floor(x) >= 1  <=>  x >= 1
        return sp.Ge(expr.args[0], 1, evaluate=False)
    if isinstance(expr, sp.ceiling):  # ceiling(x) > 0  <=>  x > 0
        return sp.Gt(expr.args[0], 0, evaluate=False)
    return sp.Gt(expr, 0, evaluate=False)


TIGHT_FLOORS: tuple[str, ...] = ("tightness/corner/", "tightness/piece/")
"""Name prefixes of the obligations whose strengthening bounds ``floor(x)``, x >= 1, by
``max(x / 2, x - 1)`` instead of ``x / 2``.

Both bounds are sound; the max is within one of the floor when x >= 2, which a block count
such as floor(M / (2d + 1)) - 2 is far above, and z3's proved constants follow it: the
tightness table's corner searches (:func:`attnio.proofs.generate.corner_table`) prove row
streaming forward within 8 with it and 15 without, against a refuted 6 (measured
2026-11-26). It is not the default because the case split costs z3 elsewhere: with it
everywhere, the catalog's Theta claims for FlashAttention's large-cache counts against the
max of three records (``tightness/dense-*-tight/large/flash-*-count``) end unknown at every
C up to 4096, where ``x / 2`` proves 110 and 578."""


def uses_tight_floors(name: str) -> bool:
    """Whether the obligation called ``name`` gets the tight floor bound (:data:`TIGHT_FLOORS`).

    Examples
    --------
    >>> uses_tight_floors("tightness/corner/forward/large/flash-forward-count")
    True
    >>> uses_tight_floors("tightness/table/forward/large/flash-forward-count")
    False
    """
    return name.startswith(TIGHT_FLOORS)


@dataclass
class _Bounder:
    side_conditions: list[sp.Basic]
    tight_floors: bool = False

    def bound(self, expr: sp.Expr, up: bool) -> sp.Expr:
        if not _has_rounding(expr):
            return expr
        if _is_surd(expr):
            return surd_bound(expr, up)
        if isinstance(expr, sp.Add):
            return sp.Add(*[self.bound(arg, up) for arg in expr.args])
        if isinstance(expr, sp.Mul):
            return self._mul(expr, up)
        if isinstance(expr, sp.Pow):
            return self._pow(expr, up)
        if isinstance(expr, sp.ceiling):
            inner = self.bound(expr.args[0], up)
            return inner + 1 if up else inner
        if isinstance(expr, sp.floor):
            inner = self.bound(expr.args[0], up)
            if up:
                return inner
            # built unevaluated: sympy may wrongly decide ``inner >= 1`` (see .sign)
            half = inner / 2
            if self.tight_floors:  # floor(x) >= x - 1 as well: the larger of the two
                half = sp.Max(half, inner - 1, evaluate=False)
            return sp.Piecewise(
                (half, sp.Ge(inner, 1, evaluate=False)), (inner - 1, True), evaluate=False
            )
        if isinstance(expr, (sp.Max, sp.Min)):
            return type(expr)(*[self.bound(arg, up) for arg in expr.args], evaluate=False)
        raise _GiveUp(f"no bound for {type(expr).__name__} around a rounding: {expr}")

    def _mul(self, expr: sp.Mul, up: bool) -> sp.Expr:
        coefficient, factors = expr.as_coeff_mul()
        if coefficient < 0:
            return coefficient * self.bound(sp.Mul(*factors), not up)
        for factor in factors:
            if not surely_nonnegative(factor):
                self.side_conditions.append(sp.Ge(factor, 0, evaluate=False))
        bounded = []
        for factor in factors:
            value = self.bound(factor, up)
            if not up and _has_rounding(factor):
                value = _at_least_zero(value)
            bounded.append(value)
        return coefficient * sp.Mul(*bounded)

    def _pow(self, expr: sp.Pow, up: bool) -> sp.Expr:
        base, exponent = expr.args
        if not exponent.is_Rational:
            raise _GiveUp(f"power {expr} has a non-rational exponent")
        if not surely_nonnegative(base):
            self.side_conditions.append(sp.Ge(base, 0, evaluate=False))
        if exponent > 0:
            inner = self.bound(base, up)
            return (inner if up else _at_least_zero(inner)) ** exponent
        inner = self.bound(base, not up)
        if not surely_positive(inner):
            self.side_conditions.append(_positive(inner))
        if not surely_positive(base):
            self.side_conditions.append(_positive(base))
        return inner**exponent


def strengthen(claim: sp.Basic, tight_floors: bool = False) -> Strengthening | None:
    """Return a rounding-free claim implying ``claim`` (under side conditions), or None.

    ``tight_floors`` bounds a floor by ``max(x / 2, x - 1)`` when x >= 1 (see
    :data:`TIGHT_FLOORS`), else by ``x / 2``.

    None when the claim has no floor or ceiling, is not an inequality, or has a
    rounding in a position without a safe bound (unknown sign, inside a
    ``Piecewise`` or ``Mod``).

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> strengthen(sp.ceiling(x) <= 2 * x + 1).claim
    x + 1 <= 2*x + 1
    """
    if not _has_rounding(claim):
        return None
    if isinstance(claim, (sp.LessThan, sp.StrictLessThan)):
        small, large = claim.lhs, claim.rhs
    elif isinstance(claim, (sp.GreaterThan, sp.StrictGreaterThan)):
        small, large = claim.rhs, claim.lhs
    else:
        return None
    bounder = _Bounder([], tight_floors)
    try:
        upper, lower = bounder.bound(small, True), bounder.bound(large, False)
    except _GiveUp:
        return None
    relation = sp.Lt if isinstance(claim, (sp.StrictLessThan, sp.StrictGreaterThan)) else sp.Le
    return Strengthening(relation(upper, lower, evaluate=False), tuple(bounder.side_conditions))


__all__ = ["TIGHT_FLOORS", "Strengthening", "strengthen", "uses_tight_floors"]
