"""Reading claims from TOML: one ``[[bound]]`` table per claim, parsed without ``eval``.

A claims file has the format of attnio's own catalog (:mod:`attnio.bounds.reader`,
docs/catalog.md), read by the same reader and validator, with other defaults and one
field of its own (``constant``)::

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

from pathlib import Path

import sympy as sp

from attnio.bounds import reader
from attnio.bounds.errors import BoundError
from attnio.bounds.expression import parse_expression as _parse_expression

from .claim import Claim
from .errors import ClaimError, ClaimFileError

FIELDS = (*(key for key in reader.FIELDS if key != "reduces_to"), "constant")
"""The keys a ``[[bound]]`` table may have: a catalog record's, less ``reduces_to`` (a
catalog's link between its own records), plus ``constant``."""

REQUIRED = ("name", "kind", "regime", "pass", "expression")
"""The keys every ``[[bound]]`` table must have."""

DEFAULTS = {"cache": "any", "status": "claimed", "source": "user claim", "notes": "", "label": ""}
"""Values of the keys a claim may leave out."""


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
    return parse_claims(reader.read_text(path, "claims file", ClaimFileError), source=str(path))


def parse_claims(text: str, *, source: str = "<string>") -> list[Claim]:
    """Read the claims of TOML ``text``; ``source`` names it in messages."""
    what = f"claims file {source!r}"
    try:
        tables = reader.bound_tables(text, what, ClaimFileError)
        claims = [claim_from_table(table, index) for index, table in enumerate(tables, 1)]
        reader.check_names((claim.bound for claim in claims), what, "claim")
    except ClaimError:
        raise
    except BoundError as error:
        raise ClaimFileError(str(error)) from None
    return claims


def parse_expression(text: object, *, field: str, claim: str, relation: bool = False) -> sp.Basic:
    """:func:`attnio.bounds.expression.parse_expression`, its errors as :class:`ClaimError`."""
    try:
        return _parse_expression(text, field=field, claim=claim, relation=relation)
    except BoundError as error:
        raise ClaimError(str(error)) from None


def claim_from_table(table: object, index: int = 1) -> Claim:
    """Build one :class:`Claim` from a ``[[bound]]`` table (``index`` counts from 1)."""
    try:
        bound = reader.record_from_table(
            table,
            index,
            noun="claim",
            fields=[key for key in FIELDS if key != "constant"],
            required=REQUIRED,
            defaults=DEFAULTS,
            own=("constant",),
        )
    except BoundError as error:
        raise ClaimError(str(error)) from None
    where = f"claim {bound.name!r}"
    constant = table.get("constant", 1)
    if isinstance(constant, bool) or not isinstance(constant, (int, float)):
        raise ClaimError(f"{where}: field 'constant' must be a number >= 1, got {constant!r}")
    if bound.kind.value != "tight" and "constant" in table:
        raise ClaimError(f"{where}: field 'constant' applies only to kind 'tight'")
    try:
        return Claim(
            bound, sp.Rational(repr(constant)) if isinstance(constant, float) else constant
        )
    except (TypeError, ValueError) as error:
        if isinstance(error, ClaimError):
            raise
        raise ClaimError(f"{where}: field 'constant' = {constant!r}: {error}") from None


__all__ = ["FIELDS", "REQUIRED", "claim_from_table", "parse_claims", "read_claims"]
