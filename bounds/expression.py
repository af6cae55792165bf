"""Safe reading of a user's expression or condition into sympy: no ``eval`` anywhere.

``attnio check`` reads bounds that other people wrote (a TOML file, a string in a
test). sympy's ``sympify`` and ``parse_expr`` evaluate their input with Python's
``eval``, so user text never reaches them. :func:`parse_expression` parses the text
with :mod:`ast` and walks the tree against an allow-list, building sympy objects
directly:

- numbers (integers, and decimals read as exact rationals: ``0.5`` is ``1/2``);
- the catalog's symbols by printed name (:data:`attnio.bounds.symbols.ALL`: ``n``,
  ``d``, ``M``, ``Z``, ``Z_in``, ``Z_QK``, ``s``, ``s_c``, ``B``, ``epsilon``, ``g``,
  ``r``) and ``True`` / ``False``;
- ``+ - * / **``, unary minus and plus;
- calls of :data:`FUNCTIONS` (``sqrt``, ``log``, ``exp``, ``floor``, ``ceiling``,
  ``Min``, ``Max``, ``Abs``, ``binomial``, ``Piecewise`` ...) with positional
  arguments only;
- relations ``< <= > >= == !=`` (chains like ``d <= M < d**2`` are conjunctions) and
  ``and`` / ``or`` / ``not``, ``& | ~``, ``And`` / ``Or`` / ``Not``.

Everything else (attribute access, subscripts, strings, lambdas, comprehensions,
keyword arguments, unknown names) is refused with one line that names the claim,
the field and the offending piece. Sizes are capped so that no input makes sympy
compute a huge number.
"""

from __future__ import annotations

import ast
import functools
import math
from collections.abc import Mapping

import sympy as sp

from . import symbols
from .errors import ExpressionError

MAX_LENGTH = 2000
"""Longest expression text accepted, in characters."""

MAX_NODES = 400
"""Most syntax-tree nodes accepted in one expression."""

MAX_DIGITS = 30
"""Most digits of a number literal."""

MAX_EXPONENT = 64
"""Largest absolute value of a numeric exponent, also once sympy has combined nested powers
(``(x**60)**60`` is ``x**3600``)."""

MAX_VALUE_DIGITS = 2000
"""Most decimal digits of a number that a power of numbers may produce."""

CONSTANTS: dict[str, sp.Basic] = {"True": sp.true, "False": sp.false}
"""Names other than the catalog's symbols that stand for a value."""

_ARITY: dict[str, tuple[int, int | None]] = {
    "sqrt": (1, 1),
    "log": (1, 2),
    "exp": (1, 1),
    "floor": (1, 1),
    "ceiling": (1, 1),
    "ceil": (1, 1),
    "Min": (1, None),
    "min": (1, None),
    "Max": (1, None),
    "max": (1, None),
    "Abs": (1, 1),
    "abs": (1, 1),
    "binomial": (2, 2),
    "Piecewise": (1, None),
    "And": (1, None),
    "Or": (1, None),
    "Not": (1, 1),
}

FUNCTIONS: dict[str, object] = {
    "sqrt": sp.sqrt,
    "log": sp.log,
    "exp": sp.exp,
    "floor": sp.floor,
    "ceiling": sp.ceiling,
    "ceil": sp.ceiling,
    "Min": sp.Min,
    "min": sp.Min,
    "Max": sp.Max,
    "max": sp.Max,
    "Abs": sp.Abs,
    "abs": sp.Abs,
    "binomial": sp.binomial,
    "Piecewise": sp.Piecewise,
    "And": sp.And,
    "Or": sp.Or,
    "Not": sp.Not,
}
"""The functions an expression may call, by the name it uses."""

_DECIDES_SIGNS = (sp.Min, sp.Max, sp.Abs)
"""Functions whose evaluation compares their arguments by sympy's sign rules, which are
not all sound for symbolic arguments (1 <= 1/(M*n) evaluates to True): with a symbol
among the arguments they, relations and Piecewise conditions are left unevaluated and
decided where they are used (z3, or numbers at a point)."""


def _numbers(*values: sp.Basic) -> bool:
    """Whether every value is free of symbols (then sympy's evaluation is exact)."""
    return not any(value.free_symbols for value in values)


_RELATIONS = {
    ast.Lt: sp.Lt,
    ast.LtE: sp.Le,
    ast.Gt: sp.Gt,
    ast.GtE: sp.Ge,
    ast.Eq: sp.Eq,
    ast.NotEq: sp.Ne,
}


def parse_expression(
    text: object,
    *,
    field: str,
    claim: str,
    relation: bool = False,
    noun: str = "claim",
    names: Mapping[str, sp.Symbol] | None = None,
) -> sp.Basic:
    """Return the sympy object that ``text`` denotes, built without ``eval``.

    Parameters
    ----------
    text : str
        The expression (``relation=False``) or condition (``relation=True``), in
        Python syntax over the catalog's symbols.
    field : str
        The field it came from (``expression``, ``conditions`` ...), for messages.
    claim : str
        The name of the claim (or record) it belongs to, for messages.
    relation : bool
        Whether a relation or Boolean formula is wanted rather than a number.
    noun : str
        What the record is called in messages: ``claim``, or ``bound`` in a catalog.
    names : mapping of str to sympy.Symbol, optional
        Symbols of the text's own beyond the catalog's, by the name the text uses (the
        variables a derivation declares, :mod:`attnio.proofs.document`); a name here
        stands for its symbol instead of a catalog symbol of the same name.

    Raises
    ------
    ExpressionError
        One line naming the claim and field: a syntax error, a name outside the
        catalog's symbols and :data:`FUNCTIONS`, a construct outside the allow-list,
        a number too large, or a number where a condition is wanted (and the reverse).

    Examples
    --------
    >>> parse_expression("n**2*d**2/(8*M) - M", field="expression", claim="mine")
    -M + d**2*n**2/(8*M)
    >>> parse_expression("M >= d**2 and n >= d", field="conditions", claim="mine", relation=True)
    (n >= d) & (M >= d**2)
    """
    where = f"{noun} {claim!r}: field {field!r}"
    if not isinstance(text, str):
        raise ExpressionError(f"{where}: must be a string, got {type(text).__name__} {text!r}")
    if not text.strip():
        raise ExpressionError(f"{where}: is empty")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"{where}: is {len(text)} characters long; at most {MAX_LENGTH}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        column = f" at column {error.offset}" if error.offset else ""
        raise ExpressionError(f"{where}: syntax error{column} in {text!r}") from None
    except (RecursionError, MemoryError, ValueError):
        raise ExpressionError(f"{where}: {text!r} is nested too deeply to read") from None
    count = sum(1 for _ in ast.walk(tree))
    if count > MAX_NODES:
        raise ExpressionError(f"{where}: has {count} syntax nodes; at most {MAX_NODES}")
    reader = _Reader(where, names or {})
    try:
        value = reader.read(tree.body)
    except RecursionError:
        raise ExpressionError(f"{where}: {text!r} is nested too deeply to read") from None
    except (TypeError, ValueError, AttributeError) as error:
        if isinstance(error, ExpressionError):
            raise
        raise ExpressionError(f"{where}: sympy refused {text!r} ({error})") from None
    value = reader.restore(value)
    if value.has(sp.I, sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise ExpressionError(f"{where}: {text!r} is not real and finite ({value})")
    for power in value.atoms(sp.Pow):
        if power.exp.is_number and abs(power.exp) > MAX_EXPONENT:
            raise ExpressionError(
                f"{where}: exponent beyond +-{MAX_EXPONENT} once powers are combined "
                f"({power}) in {text!r}"
            )
    is_boolean = _is_condition(value)
    if relation and not is_boolean:
        raise ExpressionError(
            f"{where}: {text!r} is a number, not a condition (write a relation such as 'M >= d**2')"
        )
    if not relation and is_boolean:
        raise ExpressionError(f"{where}: {text!r} is a condition, not a number")
    return value


def _digits(number: sp.Expr) -> float:
    """Decimal digits of ``number``'s numerator or denominator, whichever is longer (of its
    magnitude when it is not rational), without printing it."""
    if number.is_Rational:
        return max(abs(number.p).bit_length(), number.q.bit_length()) * 0.30103 + 1
    magnitude = sp.Abs(number).evalf(15)
    if magnitude == 0:
        return 1.0
    return abs(float(sp.log(magnitude, 10).evalf(15))) + 1


class _Reader:
    """Walk an allow-listed syntax tree and build the sympy object.

    The catalog's symbols are read as stand-ins that are only known to be real, and
    :meth:`restore` puts the symbols back without evaluating anything: sympy's
    evaluation then simplifies only by rules that hold for every real value. Built over
    the catalog's positive integer symbols directly, sympy would apply its sign rules,
    which are wrong for some of them (it takes ``1/(M*n) - 1`` to be non-negative, so
    ``sqrt((1/(M*n) - 1)**2)`` would become ``1/(M*n) - 1``, negative for ``M*n > 1``).
    """

    def __init__(self, where: str, names: Mapping[str, sp.Symbol]) -> None:
        self.where = where
        self.names = names
        self.stand_ins: dict[sp.Symbol, sp.Dummy] = {}

    def restore(self, value: sp.Basic) -> sp.Basic:
        """``value`` with the catalog's symbols in place of their stand-ins, unevaluated.

        Sums and products get their terms back in sympy's canonical order (which depends
        on the symbols' names and kinds), so the result is equal, as a sympy object, to
        the same expression built from the catalog's symbols.
        """
        back = {dummy: symbol for symbol, dummy in self.stand_ins.items()}

        def rebuild(node: sp.Basic) -> sp.Basic:
            if node in back:
                return back[node]
            if not node.args:
                return node
            args = [rebuild(arg) for arg in node.args]
            if all(new is old for new, old in zip(args, node.args, strict=True)):
                return node
            if isinstance(node, (sp.Add, sp.Mul)):
                args.sort(key=functools.cmp_to_key(sp.Basic.compare))
            with sp.evaluate(False):
                return node.func(*args)

        return rebuild(value)

    def fail(self, node: ast.AST, what: str) -> ExpressionError:
        text = ast.unparse(node) if isinstance(node, ast.expr) else type(node).__name__
        return ExpressionError(f"{self.where}: {what}: {text!r}")

    def read(self, node: ast.AST) -> sp.Basic:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise self.fail(node, f"{_describe(node)} is not allowed")
        return method(node)

    # ----------------------------------------------------------------- leaves
    def _Constant(self, node: ast.Constant) -> sp.Basic:
        value = node.value
        if isinstance(value, bool):
            return sp.true if value else sp.false
        if isinstance(value, int):
            if len(str(abs(value))) > MAX_DIGITS:
                raise self.fail(node, f"number with more than {MAX_DIGITS} digits")
            return sp.Integer(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.fail(node, "number is not finite")
            digits = repr(value)
            if len(digits) > MAX_DIGITS + 8:
                raise self.fail(node, "number is too long")
            return sp.Rational(digits)
        raise self.fail(node, f"{type(value).__name__} constant is not allowed")

    def _Name(self, node: ast.Name) -> sp.Basic:
        if node.id in self.names or node.id in symbols.ALL:
            symbol = self.names.get(node.id) or symbols.ALL[node.id]
            if symbol not in self.stand_ins:
                self.stand_ins[symbol] = sp.Dummy(node.id, real=True)
            return self.stand_ins[symbol]
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        if node.id in FUNCTIONS:
            raise self.fail(node, f"function {node.id} must be called")
        known = ", ".join(sorted({*symbols.ALL, *self.names}))
        raise ExpressionError(
            f"{self.where}: unknown symbol {node.id!r} (the symbols are: {known}; "
            f"the functions: {', '.join(sorted(FUNCTIONS))})"
        )

    # ----------------------------------------------------------------- arithmetic
    def _number(self, node: ast.AST) -> sp.Expr:
        value = self.read(node)
        if _is_condition(value) or not isinstance(value, sp.Expr):
            raise self.fail(node, "a condition is used where a number is needed")
        return value

    def _condition(self, node: ast.AST, hint: str = "") -> sp.Basic:
        value = self.read(node)
        if not _is_condition(value):
            raise self.fail(node, "a number is used where a condition is needed" + hint)
        return value

    def _BinOp(self, node: ast.BinOp) -> sp.Basic:
        if isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            hint = " (& and | bind tighter than comparisons: write (a <= b) & (c <= d) or 'and')"
            left, right = self._condition(node.left, hint), self._condition(node.right, hint)
            return sp.And(left, right) if isinstance(node.op, ast.BitAnd) else sp.Or(left, right)
        left, right = self._number(node.left), self._number(node.right)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            if right == 0:
                raise self.fail(node, "division by zero")
            return left / right
        if isinstance(node.op, ast.Pow):
            if right.is_number:
                if not right.is_real or abs(right) > MAX_EXPONENT:
                    raise self.fail(node, f"exponent beyond +-{MAX_EXPONENT}")
                if left == 0 and right.is_negative:
                    raise self.fail(node, "division by zero")
                if left.is_number and abs(right) * _digits(left) > MAX_VALUE_DIGITS:
                    raise self.fail(node, f"a number beyond {MAX_VALUE_DIGITS} digits")
                if left.is_number and not (left.is_rational and right.is_integer):
                    # keep irrational powers of numbers symbolic but bounded
                    return sp.Pow(left, right)
            return left**right
        raise self.fail(node, f"operator {type(node.op).__name__} is not allowed")

    def _UnaryOp(self, node: ast.UnaryOp) -> sp.Basic:
        if isinstance(node.op, (ast.Not, ast.Invert)):
            return sp.Not(self._condition(node.operand))
        operand = self._number(node.operand)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return operand
        raise self.fail(node, f"operator {type(node.op).__name__} is not allowed")

    # ----------------------------------------------------------------- logic
    def _BoolOp(self, node: ast.BoolOp) -> sp.Basic:
        parts = [self._condition(value) for value in node.values]
        return sp.And(*parts) if isinstance(node.op, ast.And) else sp.Or(*parts)

    def _Compare(self, node: ast.Compare) -> sp.Basic:
        terms = [self._number(node.left), *(self._number(c) for c in node.comparators)]
        parts = []
        for op, left, right in zip(node.ops, terms, terms[1:], strict=False):
            relation = _RELATIONS.get(type(op))
            if relation is None:
                raise self.fail(node, f"comparison {type(op).__name__} is not allowed")
            parts.append(relation(left, right, evaluate=_numbers(left, right)))
        return parts[0] if len(parts) == 1 else sp.And(*parts)

    # ----------------------------------------------------------------- calls
    def _Call(self, node: ast.Call) -> sp.Basic:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            called = ast.unparse(node.func)
            raise ExpressionError(
                f"{self.where}: call of {called!r} is not allowed (the functions are: "
                f"{', '.join(sorted(FUNCTIONS))})"
            )
        name = node.func.id
        if node.keywords:
            raise self.fail(node, f"{name} takes no keyword arguments")
        if any(isinstance(arg, ast.Starred) for arg in node.args):
            raise self.fail(node, f"{name} takes no starred arguments")
        least, most = _ARITY[name]
        if len(node.args) < least or (most is not None and len(node.args) > most):
            wanted = (
                f"{least}"
                if least == most
                else f"{least} or more"
                if most is None
                else (f"{least} to {most}")
            )
            raise self.fail(node, f"{name} takes {wanted} argument(s), got {len(node.args)}")
        if name == "Piecewise":
            pieces = [self._piece(arg) for arg in node.args]
            return sp.Piecewise(*pieces, evaluate=_numbers(*(c for _, c in pieces)))
        if name in ("And", "Or", "Not"):
            return FUNCTIONS[name](*(self._condition(arg) for arg in node.args))
        args = [self._number(arg) for arg in node.args]
        big = [a for a in args if a.is_number and a.is_real and abs(a) > 10**4]
        if name == "binomial" and big:
            raise self.fail(node, "binomial of numbers above 10000")
        if name == "exp" and big:
            raise self.fail(node, "exp of a number above 10000")
        if FUNCTIONS[name] in _DECIDES_SIGNS:
            return FUNCTIONS[name](*args, evaluate=_numbers(*args))
        return FUNCTIONS[name](*args)

    def _piece(self, node: ast.AST) -> tuple[sp.Expr, sp.Basic]:
        if not isinstance(node, ast.Tuple) or len(node.elts) != 2:
            raise self.fail(node, "each Piecewise argument must be a pair (value, condition)")
        return self._number(node.elts[0]), self._condition(node.elts[1])


def _is_condition(value: object) -> bool:
    """Whether ``value`` is a relation or Boolean formula (a sympy Symbol is not)."""
    return isinstance(
        value,
        (sp.core.relational.Relational, sp.logic.boolalg.BooleanFunction,
         sp.logic.boolalg.BooleanAtom),
    )  # fmt: skip


def _describe(node: ast.AST) -> str:
    names = {
        "Attribute": "attribute access",
        "Subscript": "subscripting",
        "Lambda": "lambda",
        "IfExp": "an if-expression",
        "ListComp": "a comprehension",
        "GeneratorExp": "a generator",
        "Tuple": "a tuple",
        "List": "a list",
        "Dict": "a dict",
        "Set": "a set",
        "NamedExpr": "an assignment",
        "JoinedStr": "an f-string",
        "Starred": "a starred expression",
    }
    return names.get(type(node).__name__, type(node).__name__)


__all__ = ["CONSTANTS", "FUNCTIONS", "MAX_LENGTH", "parse_expression"]
