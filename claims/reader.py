"""Reading claims from TOML: one ``[[bound]]`` table per claim, parsed without ``eval``.

A claims file looks like this::

    [[bound]]
    name = "my-forward-lower"
    kind = "lower"                 # lower, upper or tight
    regime = "dense"               # dense, sparse or approximate
    pass = "forward"               # forward or backward
    cache = "large"                # small (M < d**2), large (M >= d**2) or any (default)
    expression = "n**2*d**2/(16*M) - M"   # or only: asymptotic = "Omega(n**2*d**2/M)"
    conditions = "M >= 4*d"        # optional, default: always
    asymptotic = "Omega(n**2*d**2/M)"  # optional: Omega (lower), O (upper), Theta (tight)
    source = "my draft, Thm 2"     # optional
    algorithm = "flash"            # upper bounds: the algorithm whose cost this is
    constant = 4                   # tight claims: E / C <= Q <= C * E (default 1)
    status = "claimed"             # optional, default claimed

Expressions and conditions use the catalog's symbols (n, d, M, Z, Z_in, Z_QK, s,
s_c, B, epsilon, g, r) and are read by :func:`attnio.bounds.expression.parse_expression`.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from pathlib import Path

import sympy as sp

from attnio.bounds import Bound, Cache, Kind, Pass, Regime, Status
from attnio.bounds.errors import BoundError
from attnio.bounds.expression import parse_expression as _parse_expression

from .claim import Claim
from .errors import ClaimError, ClaimFileError

FIELDS = (
    "name",
    "kind",
    "regime",
    "pass",
    "cache",
    "expression",
    "asymptotic",
    "conditions",
    "source",
    "status",
    "algorithm",
    "constant",
    "notes",
)
"""The keys a ``[[bound]]`` table may have."""

REQUIRED = ("name", "kind", "regime", "pass")
"""The keys every ``[[bound]]`` table must have (and ``expression`` or ``asymptotic``)."""

ASYMPTOTIC = re.compile(r"^\s*(Omega|Theta|O)\s*\((.*)\)\s*$", re.DOTALL)
"""An asymptotic form as written: ``Omega(...)``, ``O(...)`` or ``Theta(...)``."""

ORDER_OF_KIND = {Kind.LOWER: "Omega", Kind.UPPER: "O", Kind.TIGHT: "Theta"}
"""The asymptotic symbol of each kind of claim."""


def read_claims(path: str | Path) -> list[Claim]:
    """Read the claims of a TOML file (see the module docstring for its shape).

    Raises
    ------
    ClaimFileError
        The file cannot be read, is not UTF-8 or not TOML, or has no ``[[bound]]``.
    ClaimError
        A table has a missing, unknown or bad field, an unreadable expression, or
        conditions that no point satisfies; the message names the claim and field.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ClaimFileError(f"claims file {str(path)!r}: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ClaimFileError(f"claims file {str(path)!r} is not UTF-8 text") from None
    return parse_claims(text, source=str(path))


def parse_claims(text: str, *, source: str = "<string>") -> list[Claim]:
    """Read the claims of TOML ``text``; ``source`` names it in messages."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ClaimFileError(f"claims file {source!r} is not valid TOML: {error}") from None
    extra = sorted(set(document) - {"bound"})
    if extra:
        raise ClaimFileError(
            f"claims file {source!r}: unknown top-level key(s) {extra}; write one [[bound]] "
            "table per claim"
        )
    tables = document.get("bound")
    if not isinstance(tables, list) or not tables:
        raise ClaimFileError(
            f"claims file {source!r} has no [[bound]] table; write one [[bound]] per claim"
        )
    claims = [claim_from_table(table, index) for index, table in enumerate(tables, 1)]
    _check_unique(claims, source)
    return claims


def _check_unique(claims: Iterable[Claim], source: str) -> None:
    seen: set[str] = set()
    for claim in claims:
        if claim.name in seen:
            raise ClaimFileError(f"claims file {source!r}: two claims are named {claim.name!r}")
        seen.add(claim.name)


def _text(table: dict, key: str, where: str, default: str | None = None) -> str | None:
    value = table.get(key, default)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ClaimError(f"{where}: field {key!r} must be a string, got {value!r}")
    return value


def _choice(table: dict, key: str, enum_type: type, where: str, default: str | None = None):
    value = _text(table, key, where, default)
    try:
        return enum_type(value)
    except ValueError:
        valid = ", ".join(member.value for member in enum_type)
        raise ClaimError(f"{where}: field {key!r} = {value!r} is not one of: {valid}") from None


def parse_expression(text: object, *, field: str, claim: str, relation: bool = False) -> sp.Basic:
    """:func:`attnio.bounds.expression.parse_expression`, its errors as :class:`ClaimError`."""
    try:
        return _parse_expression(text, field=field, claim=claim, relation=relation)
    except BoundError as error:
        raise ClaimError(str(error)) from None


def _asymptotic(text: str, kind: Kind, where: str, name: str) -> sp.Expr:
    """The growth rate of ``asymptotic = "Omega(...)"`` (or the bare rate), checking that
    its symbol matches the claim's kind."""
    match = ASYMPTOTIC.match(text)
    if match is None:
        return parse_expression(text, field="asymptotic", claim=name)
    symbol, inner = match.groups()
    if symbol != ORDER_OF_KIND[kind]:
        article = "an" if kind is Kind.UPPER else "a"
        raise ClaimError(
            f"{where}: field 'asymptotic' = {text!r} is {symbol}, but {article} {kind.value} claim is "
            f"{ORDER_OF_KIND[kind]}(...)"
        )
    return parse_expression(inner, field="asymptotic", claim=name)


def claim_from_table(table: object, index: int = 1) -> Claim:
    """Build one :class:`Claim` from a ``[[bound]]`` table (``index`` counts from 1)."""
    if not isinstance(table, dict):
        raise ClaimError(f"[[bound]] number {index} is not a table")
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ClaimError(f"[[bound]] number {index}: field 'name' must be a non-empty string")
    name = name.strip()
    where = f"claim {name!r}"
    unknown = sorted(set(table) - set(FIELDS))
    if unknown:
        raise ClaimError(
            f"{where}: unknown field(s) {unknown}; the fields are: {', '.join(FIELDS)}"
        )
    missing = [key for key in REQUIRED if key not in table]
    if missing:
        raise ClaimError(f"{where}: missing field(s) {missing}")
    kind = _choice(table, "kind", Kind, where)
    regime = _choice(table, "regime", Regime, where)
    pass_ = _choice(table, "pass", Pass, where)
    cache = _choice(table, "cache", Cache, where, "any")
    status = _choice(table, "status", Status, where, "claimed")
    if "expression" not in table and "asymptotic" not in table:
        raise ClaimError(f"{where}: missing field 'expression' (or 'asymptotic')")
    explicit = None
    if "expression" in table:
        text = _text(table, "expression", where)
        if ASYMPTOTIC.match(text):
            raise ClaimError(
                f"{where}: field 'expression' = {text!r} is asymptotic; write it as "
                f"asymptotic = {text!r} (expression is the explicit form, with its constants)"
            )
        explicit = parse_expression(text, field="expression", claim=name)
    asymptotic = None
    if "asymptotic" in table:
        asymptotic = _asymptotic(_text(table, "asymptotic", where), kind, where, name)
    conditions = sp.true
    if "conditions" in table:
        text = _text(table, "conditions", where)
        conditions = parse_expression(text, field="conditions", claim=name, relation=True)
        if conditions is sp.false:  # quote the user's text, not sympy's False
            raise ClaimError(
                f"{where}: field 'conditions': {text!r} admits no point with n, d, M >= 1 "
                "(always false)"
            )
    constant = table.get("constant", 1)
    if isinstance(constant, bool) or not isinstance(constant, (int, float)):
        raise ClaimError(f"{where}: field 'constant' must be a number >= 1, got {constant!r}")
    if kind is not Kind.TIGHT and "constant" in table:
        raise ClaimError(f"{where}: field 'constant' applies only to kind 'tight'")
    algorithm = _text(table, "algorithm", where)
    if algorithm is not None and kind is Kind.LOWER:
        raise ClaimError(
            f"{where}: field 'algorithm' names the algorithm of an upper bound; a lower bound "
            "holds for every algorithm"
        )
    try:
        bound = Bound(
            name=name,
            kind=kind,
            regime=regime,
            pass_=pass_,
            cache=cache,
            asymptotic=asymptotic,
            explicit=explicit,
            conditions=conditions,
            source=_text(table, "source", where, "user claim"),
            status=status,
            algorithm=algorithm,
            notes=_text(table, "notes", where, ""),
        )
    except BoundError as error:
        raise ClaimError(f"{where}: {error}") from None
    try:
        return Claim(
            bound, sp.Rational(repr(constant)) if isinstance(constant, float) else constant
        )
    except (TypeError, ValueError) as error:
        if isinstance(error, ClaimError):
            raise
        raise ClaimError(f"{where}: field 'constant' = {constant!r}: {error}") from None


def parse_claim_text(
    text: str,
    *,
    regime: str,
    pass_: str,
    cache: str = "any",
    conditions: str | None = None,
    algorithm: str | None = None,
    epsilon: str | None = None,
    constant: int | float | None = None,
    name: str = "claim",
) -> Claim:
    """Build one :class:`Claim` from a one-line claim ``KIND: EXPRESSION`` (``--claim``).

    The same fields as a ``[[bound]]`` table, read by :func:`claim_from_table`, so a
    claim from the command line gets the same checks and messages as one from a file.

    Parameters
    ----------
    text : str
        ``lower: n**2*d**2/(100*M)``, ``upper: ...`` or ``tight: ...``; the expression
        may also be asymptotic, ``lower: Omega(n**2*d**2/M)`` (O for upper, Theta for
        tight).
    regime, pass_, cache, conditions, algorithm, constant, name
        The table fields of the same names (``pass_`` is ``pass``).
    epsilon : str, optional
        The claim's accuracy: it adds the condition ``epsilon <= EPSILON`` (the claim is
        about every algorithm whose error is at most that).

    Raises
    ------
    ClaimError
        ``text`` has no ``KIND:`` prefix, or a field is bad (as for a table).

    Examples
    --------
    >>> claim = parse_claim_text("lower: n**2*d**2/(100*M)", regime="dense",
    ...                          pass_="forward", cache="large")
    >>> claim.kind.value, str(claim.bound.explicit)
    ('lower', 'd**2*n**2/(100*M)')
    """
    if not isinstance(text, str) or ":" not in text:
        raise ClaimError(
            f"--claim {text!r} must read KIND: EXPRESSION, e.g. 'lower: n**2*d**2/(100*M)' "
            "(KIND one of: lower, upper, tight)"
        )
    kind, expression = (part.strip() for part in text.split(":", 1))
    table: dict[str, object] = {"name": name, "kind": kind, "regime": regime, "pass": pass_,
                                "cache": cache}  # fmt: skip
    if ASYMPTOTIC.match(expression):
        table["asymptotic"] = expression
    else:
        table["expression"] = expression
    if epsilon is not None:
        bound = f"epsilon <= {epsilon}"
        conditions = bound if conditions is None else f"({conditions}) and {bound}"
    for key, value in (("conditions", conditions), ("algorithm", algorithm),
                       ("constant", constant)):  # fmt: skip
        if value is not None:
            table[key] = value
    return claim_from_table(table)


__all__ = [
    "FIELDS",
    "REQUIRED",
    "claim_from_table",
    "parse_claim_text",
    "parse_claims",
    "read_claims",
]
