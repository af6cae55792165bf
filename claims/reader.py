"""Reading claims from TOML: one ``[[bound]]`` table per claim, parsed without ``eval``.

A claims file looks like this::

    [[bound]]
    name = "my-forward-lower"
    kind = "lower"                 # lower, upper or tight
    regime = "dense"               # dense, sparse or approximate
    pass = "forward"               # forward or backward
    cache = "large"                # small (M < d**2), large (M >= d**2) or any (default)
    expression = "n**2*d**2/(16*M) - M"
    conditions = "M >= 4*d"        # optional, default: always
    asymptotic = "n**2*d**2/M"     # optional
    source = "my draft, Thm 2"     # optional
    algorithm = "flash"            # upper bounds: the algorithm whose cost this is
    constant = 4                   # tight claims: E / C <= Q <= C * E (default 1)
    status = "claimed"             # optional, default claimed

Expressions and conditions use the catalog's symbols (n, d, M, Z, Z_in, Z_QK, s,
s_c, B, epsilon, g, r) and are read by :func:`attnio.bounds.expression.parse_expression`.
"""

from __future__ import annotations

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

REQUIRED = ("name", "kind", "regime", "pass", "expression")
"""The keys every ``[[bound]]`` table must have."""


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
    explicit = parse_expression(_text(table, "expression", where), field="expression", claim=name)
    asymptotic = None
    if "asymptotic" in table:
        asymptotic = parse_expression(
            _text(table, "asymptotic", where), field="asymptotic", claim=name
        )
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


__all__ = ["FIELDS", "REQUIRED", "claim_from_table", "parse_claims", "read_claims"]
