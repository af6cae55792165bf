"""Translation of sympy expressions into z3 terms, by one explicit dispatch table.

The translator knows symbols, rational numbers, sums, products, powers with
rational exponents, ``exp``, ``Min``, ``Max``, ``Piecewise``, ``floor``, ``ceiling``,
``Mod``, relations and the Boolean connectives. Anything else raises
:class:`~attnio.proofs.errors.UnsupportedExpression` naming the expression: no
string fallback, no approximation.

Every arithmetic term is a z3 ``Real``. Two modes:

``integers=False`` (the *relaxation*)
    Every symbol is a z3 ``Real``; an integer symbol only gets its bound
    (``n >= 1`` for a positive integer). Floors and ceilings become reals
    ``k`` with ``k <= x < k + 1`` (``k - 1 < x <= k``), plus the facts the
    relaxation would lose and every true floor satisfies: ``x >= 1 -> k >= 1`` and
    ``k >= x / 2``,
    ``x >= 0 -> k >= 0`` (``x > 0 -> k >= 1`` for a ceiling), and monotonicity
    between any two floors (ceilings): ``x1 <= x2 -> k1 <= k2``. The formula then lies in
    nonlinear real arithmetic, which z3's nlsat decides. Every integer point
    is a point of the relaxation, so a claim proved here holds on the integers.
``integers=True``
    Integer symbols and floor/ceiling witnesses are z3 ``Int`` (cast with
    ``ToReal``), so facts that need integrality can be proved; nonlinear
    integer arithmetic is undecidable, so this mode may answer unknown.

A rational power ``x**(p/q)`` becomes ``r**p`` for a fresh ``r >= 0`` with
``x >= 0 -> r**q = x``; division ``a / b`` stays SMT-LIB's total real division.
``exp(x)`` becomes a fresh real ``e`` with only facts every true exponential
satisfies: ``e > 0``, ``e >= 1 + x``, ``x = 0 -> e = 1``, monotonicity
between any two exponentials (``x1 <= x2 -> e1 <= e2``), ``exp(2x) = exp(x)^2`` and
``exp(x) exp(-x) = 1`` when both occur; a proof from these
holds for the real exp (the approximate-attention thresholds of
``bounds/catalog.toml`` need no more).
Every definition is satisfiable for every value of the original symbols, so
the translation never makes assumptions inconsistent (no vacuous proofs).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp
import z3
from sympy.core.parameters import global_parameters

from .errors import UnsupportedExpression
from .sign import surely_positive


@dataclass
class Translator:
    """Translate sympy expressions into z3, collecting definitions of fresh variables.

    Parameters
    ----------
    integers : bool
        Declare integer symbols (and floor/ceiling witnesses) as z3 ``Int``;
        otherwise relax them to reals.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> t = Translator()
    >>> term = t.translate(sp.sqrt(x) + 1)
    >>> len(t.definitions), sorted(t.variables)
    (2, ['x'])
    """

    integers: bool = False
    variables: dict[str, z3.ArithRef] = field(default_factory=dict)
    symbols: dict[str, sp.Symbol] = field(default_factory=dict)
    definitions: list[z3.BoolRef] = field(default_factory=list)
    domains: list[z3.BoolRef] = field(default_factory=list)
    _fresh: dict[tuple, z3.ArithRef] = field(default_factory=dict)
    _roundings: list[tuple] = field(default_factory=list)
    _exponentials: list[tuple] = field(default_factory=list)

    # ------------------------------------------------------------ public API
    def translate(self, expr: sp.Basic) -> z3.ExprRef:
        """Return the z3 term (arithmetic) or formula (Boolean) for ``expr``.

        Raises
        ------
        UnsupportedExpression
            If ``expr`` contains a node outside the dispatch table.
        """
        expr = sp.sympify(expr)
        for cls in type(expr).__mro__:
            handler = _DISPATCH.get(cls)
            if handler is not None:
                return handler(self, expr)
        raise UnsupportedExpression(
            f"cannot translate {sp.srepr(expr)} (a {type(expr).__name__}) to z3; supported: "
            f"{', '.join(sorted(c.__name__ for c in _DISPATCH))}"
        )

    def translate_bool(self, expr: sp.Basic) -> z3.BoolRef:
        """Translate ``expr`` and require a Boolean result.

        Raises
        ------
        UnsupportedExpression
            If ``expr`` is arithmetic, not a relation or Boolean combination.
        """
        term = self.translate(expr)
        if not z3.is_bool(term):
            raise UnsupportedExpression(
                f"expected a relation or Boolean formula, got the arithmetic expression {expr}"
            )
        return term

    def side_conditions(self) -> list[z3.BoolRef]:
        """Domains of the symbols met so far and definitions of the fresh variables."""
        return [*self.domains, *self.definitions]

    # ----------------------------------------------------------- handlers
    def _symbol(self, expr: sp.Symbol) -> z3.ArithRef:
        name = expr.name
        known = self.symbols.get(name)
        if known is not None and known != expr:
            raise UnsupportedExpression(
                f"two different symbols are both named {name!r} ({known.assumptions0} and "
                f"{expr.assumptions0}); rename one"
            )
        if name in self.variables:
            return self.variables[name]
        var = z3.ToReal(z3.Int(name)) if expr.is_integer and self.integers else z3.Real(name)
        if expr.is_integer and expr.is_positive:
            self.domains.append(var >= 1)
        elif expr.is_integer and expr.is_nonnegative:
            self.domains.append(var >= 0)
        elif expr.is_positive:
            self.domains.append(var > 0)
        elif expr.is_nonnegative:
            self.domains.append(var >= 0)
        self.variables[name] = var
        self.symbols[name] = expr
        return var

    def _rational(self, expr: sp.Rational) -> z3.ArithRef:
        return z3.RealVal(Fraction(int(expr.p), int(expr.q)))

    def _add(self, expr: sp.Add) -> z3.ArithRef:
        terms = [self.translate(arg) for arg in expr.args]
        return z3.Sum(*terms) if len(terms) > 1 else terms[0]

    def _mul(self, expr: sp.Mul) -> z3.ArithRef:
        factors = [self.translate(arg) for arg in expr.args]
        return z3.Product(*factors) if len(factors) > 1 else factors[0]

    def _pow(self, expr: sp.Pow) -> z3.ArithRef:
        base, exponent = expr.args
        if not exponent.is_Rational:
            raise UnsupportedExpression(
                f"cannot translate {expr}: only rational exponents are supported, got {exponent}"
            )
        p, q = int(exponent.p), int(exponent.q)
        root = self.translate(base) if q == 1 else self._root(base, q)
        power = _power(root, abs(p))
        return power if p >= 0 else 1 / power

    def _root(self, base: sp.Expr, q: int) -> z3.ArithRef:
        key = ("root", base, q)
        if key not in self._fresh:
            inner = self.translate(base)
            root = z3.Real(f"root{q}_{len(self._fresh)}")
            self.definitions.append(root >= 0)
            self.definitions.append(z3.Implies(inner >= 0, _power(root, q) == inner))
            self._fresh[key] = root
        return self._fresh[key]

    def _rounding(self, expr: sp.Basic, up: bool) -> z3.ArithRef:
        key = ("ceiling" if up else "floor", expr.args[0])
        if key not in self._fresh:
            # x = a / b with b > 0: define k by b (k - 1) < a <= b k (ceiling) or
            # b k <= a < b (k + 1) (floor), which stays polynomial.
            numerator, denominator = _split(expr.args[0])
            a, b = self.translate(numerator), self.translate(denominator)
            name = f"{key[0]}_{len(self._fresh)}"
            k = z3.ToReal(z3.Int(name)) if self.integers else z3.Real(name)
            if up:
                self.definitions.append(z3.And(b * (k - 1) < a, a <= b * k))
                self.definitions.append(z3.Implies(a > 0, k >= 1))
            else:
                self.definitions.append(z3.And(b * k <= a, a < b * (k + 1)))
                self.definitions.append(z3.Implies(a >= b, z3.And(k >= 1, 2 * b * k >= a)))
                self.definitions.append(z3.Implies(a >= 0, k >= 0))
            # floor and ceiling are non-decreasing: a1/b1 <= a2/b2 -> k1 <= k2 (b1, b2 > 0).
            for other_up, a2, b2, k2 in self._roundings:
                if other_up is up:
                    self.definitions.append(z3.Implies(a * b2 <= a2 * b, k <= k2))
                    self.definitions.append(z3.Implies(a2 * b <= a * b2, k2 <= k))
            self._roundings.append((up, a, b, k))
            self._fresh[key] = k
        return self._fresh[key]

    def _exp(self, expr: sp.exp) -> z3.ArithRef:
        key = ("exp", expr.args[0])
        if key not in self._fresh:
            x = self.translate(expr.args[0])
            e = z3.Real(f"exp_{len(self._fresh)}")
            self.definitions.append(e > 0)
            self.definitions.append(e >= 1 + x)
            self.definitions.append(z3.Implies(x == 0, e == 1))
            arg = expr.args[0]
            for arg2, x2, e2 in self._exponentials:  # exp is increasing
                self.definitions.append(z3.Implies(x <= x2, e <= e2))
                self.definitions.append(z3.Implies(x2 <= x, e2 <= e))
                if sp.expand(arg - 2 * arg2) == 0:  # sympy writes exp(x)**2 as exp(2x)
                    self.definitions.append(e == e2 * e2)
                elif sp.expand(arg2 - 2 * arg) == 0:
                    self.definitions.append(e2 == e * e)
                elif sp.expand(arg + arg2) == 0:  # sympy writes 1/exp(x) as exp(-x)
                    self.definitions.append(e * e2 == 1)
            self._exponentials.append((arg, x, e))
            self._fresh[key] = e
        return self._fresh[key]

    def _floor(self, expr: sp.floor) -> z3.ArithRef:
        return self._rounding(expr, up=False)

    def _ceiling(self, expr: sp.ceiling) -> z3.ArithRef:
        return self._rounding(expr, up=True)

    def _mod(self, expr: sp.Mod) -> z3.ArithRef:
        # a mod b = a - b q with q = floor(a / b): 0 <= a - b q < b for b > 0.
        key = ("mod", expr)
        if key not in self._fresh:
            a, b = (self.translate(arg) for arg in expr.args)
            name = f"quotient_{len(self._fresh)}"
            q = z3.ToReal(z3.Int(name)) if self.integers else z3.Real(name)
            rest = a - b * q
            self.definitions.append(z3.Implies(b > 0, z3.And(rest >= 0, rest < b)))
            self._fresh[key] = rest
        return self._fresh[key]

    def _min(self, expr: sp.Min) -> z3.ArithRef:
        terms = [self.translate(arg) for arg in expr.args]
        result = terms[0]
        for term in terms[1:]:
            result = z3.If(term < result, term, result)
        return result

    def _max(self, expr: sp.Max) -> z3.ArithRef:
        terms = [self.translate(arg) for arg in expr.args]
        result = terms[0]
        for term in terms[1:]:
            result = z3.If(term > result, term, result)
        return result

    def _piecewise(self, expr: sp.Piecewise) -> z3.ArithRef:
        pieces = [(self.translate(value), self.translate_bool(cond)) for value, cond in expr.args]
        if expr.args[-1][1] is sp.true:
            result = pieces[-1][0]
            pieces = pieces[:-1]
        else:
            # Undefined outside every branch: an unconstrained value, so a claim must hold
            # whatever it is (sound, and the definition stays satisfiable).
            key = ("undefined", expr)
            if key not in self._fresh:
                self._fresh[key] = z3.Real(f"undefined_{len(self._fresh)}")
            result = self._fresh[key]
        for value, cond in reversed(pieces):
            result = z3.If(cond, value, result)
        return result

    def _relation(self, expr: sp.core.relational.Relational) -> z3.BoolRef:
        # a R b  <=>  (a - b) R 0  <=>  numerator R 0 when a - b = numerator / denominator
        # with a denominator sympy knows to be positive: z3 then sees polynomials.
        numerator, denominator = _split(expr.lhs - expr.rhs)
        if denominator == 1:
            lhs, rhs = self.translate(expr.lhs), self.translate(expr.rhs)
        else:
            lhs, rhs = self.translate(numerator), z3.RealVal(0)
        return _RELATIONS[type(expr)](lhs, rhs)

    def _and(self, expr: sp.And) -> z3.BoolRef:
        return z3.And(*[self.translate_bool(arg) for arg in expr.args])

    def _or(self, expr: sp.Or) -> z3.BoolRef:
        return z3.Or(*[self.translate_bool(arg) for arg in expr.args])

    def _not(self, expr: sp.Not) -> z3.BoolRef:
        return z3.Not(self.translate_bool(expr.args[0]))

    def _implies(self, expr: sp.Implies) -> z3.BoolRef:
        return z3.Implies(self.translate_bool(expr.args[0]), self.translate_bool(expr.args[1]))

    def _true(self, expr: sp.Basic) -> z3.BoolRef:
        return z3.BoolVal(True)

    def _false(self, expr: sp.Basic) -> z3.BoolRef:
        return z3.BoolVal(False)


def _split(expr: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """``(a, b)`` with ``expr == a / b`` and ``b`` known positive, else ``(expr, 1)``.

    Memoized (:func:`_split_once`): a proof translates the same relations and roundings
    again and again (each part of a strengthening, its witness query, the integer query,
    the certificate), and under the profiler ``together`` here took a fifth of the z3
    workers' processor time.
    """
    return _split_once(expr, global_parameters.evaluate)


@functools.lru_cache(maxsize=8192)
def _split_once(expr: sp.Expr, evaluate: bool) -> tuple[sp.Expr, sp.Expr]:
    """:func:`_split`, keyed by the expression (a sympy tree, symbols with their
    assumptions) and by whether sympy evaluates, the only state its answer depends on."""
    numerator, denominator = sp.fraction(sp.together(expr))
    if denominator != 1 and surely_positive(denominator):
        return sp.expand(numerator), denominator
    return expr, sp.Integer(1)


def _power(base: z3.ArithRef, exponent: int) -> z3.ArithRef:
    """``base ** exponent`` as an explicit product (portable SMT-LIB, no ``^``)."""
    if exponent == 0:
        return z3.RealVal(1)
    return z3.Product(*([base] * exponent)) if exponent > 1 else base


_RELATIONS: dict[type, Callable] = {
    sp.StrictLessThan: lambda a, b: a < b,
    sp.LessThan: lambda a, b: a <= b,
    sp.StrictGreaterThan: lambda a, b: a > b,
    sp.GreaterThan: lambda a, b: a >= b,
    sp.Equality: lambda a, b: a == b,
    sp.Unequality: lambda a, b: a != b,
}

_DISPATCH: dict[type, Callable[[Translator, sp.Basic], z3.ExprRef]] = {
    sp.Symbol: Translator._symbol,
    sp.Rational: Translator._rational,  # Integer, One, Zero, Half ... are subclasses
    sp.Add: Translator._add,
    sp.Mul: Translator._mul,
    sp.Pow: Translator._pow,
    sp.exp: Translator._exp,
    sp.Min: Translator._min,
    sp.Max: Translator._max,
    sp.Piecewise: Translator._piecewise,
    sp.floor: Translator._floor,
    sp.ceiling: Translator._ceiling,
    sp.Mod: Translator._mod,
    **dict.fromkeys(_RELATIONS, Translator._relation),
    sp.And: Translator._and,
    sp.Or: Translator._or,
    sp.Not: Translator._not,
    sp.Implies: Translator._implies,
    sp.logic.boolalg.BooleanTrue: Translator._true,
    sp.logic.boolalg.BooleanFalse: Translator._false,
}
"""The dispatch table: sympy class -> handler. Lookup walks the class's MRO."""

__all__ = ["Translator"]
