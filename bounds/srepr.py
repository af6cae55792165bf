"""Read ``sympy.srepr`` strings back into expressions without ``eval``.

The JSON table (:func:`attnio.bounds.render.render_json`) carries each
expression as its ``srepr`` string, e.g.
``Mul(Integer(2), Symbol('n', integer=True, positive=True))``. :func:`parse_srepr`
rebuilds it from Python's :mod:`ast`: it accepts only calls of the sympy
constructors in :data:`CONSTRUCTORS`, integer and string literals, the keyword
assumptions of ``Symbol`` and the constants in :data:`CONSTANTS`. Attribute
access, subscripts, lambdas, comprehensions, operators, any other name, and
numbers too large to evaluate safely are refused with a :class:`SreprError`.
"""

from __future__ import annotations

import ast

import sympy as sp
from sympy.functions.elementary.piecewise import ExprCondPair

from .errors import SreprError

__all__ = ["CONSTANTS", "CONSTRUCTORS", "MAX_LENGTH", "parse_srepr"]

CONSTRUCTORS = {
    name: getattr(sp, name)
    for name in (
        "Add", "Mul", "Pow", "Integer", "Rational", "Float", "Symbol",
        "And", "Or", "Not", "LessThan", "StrictLessThan", "GreaterThan",
        "StrictGreaterThan", "Equality", "Unequality", "Max", "Min", "Piecewise",
        "ceiling", "floor", "log", "exp", "Abs", "binomial",
    )
} | {"ExprCondPair": ExprCondPair}  # fmt: skip
"""The sympy constructors an srepr string may call (everything the catalog uses, and kin)."""

CONSTANTS = {
    "true": sp.true,
    "false": sp.false,
    "oo": sp.oo,
    "pi": sp.pi,
    "E": sp.E,
}
"""Bare names an srepr string may use (sympy prints these singletons by name)."""

ASSUMPTIONS = frozenset(
    (
        "integer", "positive", "negative", "nonnegative", "nonpositive", "real",
        "rational", "finite", "zero", "nonzero", "even", "odd", "prime", "commutative",
    )
)  # fmt: skip
"""Keyword arguments ``Symbol`` accepts (each with a literal True or False)."""

MAX_LENGTH = 1_000_000
"""Longest srepr string read, in characters."""

MAX_DIGITS = 1_000
"""Most digits of an integer literal."""

MAX_EXPONENT = 10_000
"""Largest absolute numeric exponent (or binomial argument) evaluated."""


def parse_srepr(text: str) -> sp.Basic:
    """Rebuild a sympy expression from its ``srepr`` string, allowing only sympy constructors.

    Parameters
    ----------
    text : str
        A string printed by :func:`sympy.srepr`.

    Raises
    ------
    SreprError
        ``text`` is not an srepr string over :data:`CONSTRUCTORS` and
        :data:`CONSTANTS` (the message names what was refused), or is too large.

    Examples
    --------
    >>> parse_srepr("Mul(Integer(2), Symbol('n', integer=True, positive=True))")
    2*n
    >>> parse_srepr("__import__('os').getcwd()")
    Traceback (most recent call last):
    ...
    attnio.bounds.errors.SreprError: srepr: a call of an attribute is not allowed; only calls of sympy constructors (Abs, Add, ...) are read
    """
    if not isinstance(text, str):
        raise SreprError(f"srepr must be a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise SreprError(f"srepr string of {len(text)} characters is longer than {MAX_LENGTH}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
        return _build(tree.body)
    except SyntaxError as error:
        raise SreprError(f"srepr: not a Python expression ({error.msg})") from None
    except RecursionError:
        raise SreprError("srepr: expression nested too deeply") from None


def _names() -> str:
    shown = sorted(CONSTRUCTORS, key=str.lower)
    return f"{shown[0]}, {shown[1]}, ..."


def _build(node: ast.expr) -> object:
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            if len(str(abs(value))) > MAX_DIGITS:
                raise SreprError(f"srepr: integer literal with more than {MAX_DIGITS} digits")
            return value
        if isinstance(value, str):
            return value
        raise SreprError(f"srepr: literal {value!r} of type {type(value).__name__} is not allowed")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = _build(node.operand)
        if isinstance(operand, int) and not isinstance(operand, bool):
            return -operand
        raise SreprError("srepr: unary minus applies only to integer literals")
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        raise SreprError(f"srepr: name {node.id!r} is not a sympy constant or constructor call")
    if isinstance(node, ast.Tuple):
        return tuple(_build(item) for item in node.elts)
    if isinstance(node, ast.Call):
        return _call(node)
    kind = type(node).__name__.lower()
    raise SreprError(f"srepr: {kind} expressions are not allowed; only sympy constructor calls")


def _call(node: ast.Call) -> sp.Basic:
    if not isinstance(node.func, ast.Name):
        kind = "an attribute" if isinstance(node.func, ast.Attribute) else "an expression"
        raise SreprError(
            f"srepr: a call of {kind} is not allowed; only calls of sympy constructors "
            f"({_names()}) are read"
        )
    name = node.func.id
    if name not in CONSTRUCTORS:
        raise SreprError(
            f"srepr: {name!r} is not an allowed sympy constructor (allowed: "
            f"{', '.join(sorted(CONSTRUCTORS, key=str.lower))})"
        )
    if any(isinstance(arg, ast.Starred) for arg in node.args):
        raise SreprError("srepr: starred arguments are not allowed")
    args = [_build(arg) for arg in node.args]
    keywords = {}
    for keyword in node.keywords:
        if name not in ("Symbol", "Float") or keyword.arg is None:
            raise SreprError(f"srepr: {name} takes no keyword arguments here")
        value = _build(keyword.value)
        if name == "Symbol" and (keyword.arg not in ASSUMPTIONS or not isinstance(value, bool)):
            raise SreprError(
                f"srepr: Symbol assumption {keyword.arg}={value!r} is not allowed "
                f"(allowed: {', '.join(sorted(ASSUMPTIONS))}, each True or False)"
            )
        if name == "Float" and (keyword.arg != "precision" or not isinstance(value, int)):
            raise SreprError(f"srepr: Float keyword {keyword.arg} is not allowed")
        keywords[keyword.arg] = value
    _check_arguments(name, args)
    try:
        return CONSTRUCTORS[name](*args, **keywords)
    except (TypeError, ValueError, AttributeError, sp.SympifyError) as error:
        raise SreprError(f"srepr: {name}{tuple(args)!r} is not valid ({error})") from None


def _check_arguments(name: str, args: list) -> None:
    if name in ("Integer", "Rational"):
        if not args or not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            raise SreprError(f"srepr: {name} takes integer literals")
    elif name == "Symbol":
        if len(args) != 1 or not isinstance(args[0], str) or not args[0]:
            raise SreprError("srepr: Symbol takes one non-empty name string")
    elif name == "Float":
        if len(args) != 1 or not isinstance(args[0], str | int):
            raise SreprError("srepr: Float takes one string or integer literal")
    elif any(not isinstance(a, sp.Basic | tuple) for a in args):
        raise SreprError(f"srepr: {name} takes sympy expressions, not Python literals")
    if name == "Pow" and len(args) == 2:
        base, exponent = args
        if isinstance(exponent, sp.Number) and base.is_Number and abs(exponent) > MAX_EXPONENT:
            raise SreprError(f"srepr: numeric power with exponent above {MAX_EXPONENT}")
    if name == "binomial" and any(isinstance(a, sp.Number) and abs(a) > MAX_EXPONENT for a in args):
        raise SreprError(f"srepr: binomial with a numeric argument above {MAX_EXPONENT}")
