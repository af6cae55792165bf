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
    expression = "n**2*d**2/(16*M) - M"   # or only: asymptotic = "Omega(n**2*d**2/M)"
    conditions = "M >= 4*d"        # optional, default: always
    asymptotic = "Omega(n**2*d**2/M)"  # optional: Omega (lower), O (upper), Theta (tight)
    source = "my draft, Thm 2"     # optional
    algorithm = "flash"            # upper bounds: the algorithm whose cost this is
    constant = 4                   # tight claims: E / C <= IO <= C * E (default 1)
    status = "claimed"             # optional, default claimed
    epsilon = "1/1000"             # approximate: the claim's accuracy, adds epsilon <= 1/1000
    entry_bound = "1/2"            # approximate: the entries' bound, adds B <= 1/2

Expressions and conditions use the catalog's symbols (n, d, M, Z, Z_in, Z_QK, s,
s_c, B, epsilon, g, r; for shapes n_q, n_kv, h_q, h_kv in place of n: docs/notation.md;
``heads_q`` and ``heads_kv`` may be written for h_q and h_kv, as the command line's
``--heads-q`` and ``--heads-kv`` name them) and are read by
:func:`attnio.bounds.expression.parse_expression`.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import sympy as sp

from attnio.bounds import reader, symbols
from attnio.bounds.errors import BoundError
from attnio.bounds.expression import parse_expression as _parse_expression
from attnio.bounds.record import Kind
from attnio.bounds.shape import check_shape

from .claim import Claim
from .errors import ClaimError, ClaimFileError

FIELDS = (*(key for key in reader.FIELDS if key not in ("reduces_to", "source_range")),
          "constant", "epsilon", "entry_bound")  # fmt: skip
"""The keys a ``[[bound]]`` table may have: a catalog record's, less ``reduces_to`` (a
catalog's link between its own records) and ``source_range`` (the range a cited paper
states, which a claim does not quote), plus ``constant``, ``epsilon`` and ``entry_bound``."""

NAMES = {"heads_q": symbols.h_q, "heads_kv": symbols.h_kv}
"""The names a claim may use for catalog symbols besides theirs: the shape's head counts as
:data:`attnio.bounds.shape.SHAPE_NAMES` and the command line (``--heads-q``) spell them."""

ACCURACY = {"epsilon": "epsilon", "entry_bound": "B"}
"""The accuracy fields of an approximate claim and the symbol each bounds from above:
``epsilon = E`` adds the condition ``epsilon <= E`` (the claim is about every algorithm
within that error), ``entry_bound = X`` adds ``B <= X`` (on inputs with entries within
that bound), as ``--epsilon`` does on the command line."""

REQUIRED = ("name", "kind", "regime", "pass")
"""The keys every ``[[bound]]`` table must have (and ``expression`` or ``asymptotic``)."""

ASYMPTOTIC = re.compile(r"^\s*(Omega|Theta|O)\s*\((.*)\)\s*$", re.DOTALL)
"""An asymptotic form as written: ``Omega(...)``, ``O(...)`` or ``Theta(...)``."""

ORDER_OF_KIND = {Kind.LOWER: "Omega", Kind.UPPER: "O", Kind.TIGHT: "Theta"}
"""The asymptotic symbol of each kind of claim."""

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
        return _parse_expression(text, field=field, claim=claim, relation=relation, names=NAMES)
    except BoundError as error:
        raise ClaimError(str(error)) from None


def _rate(table: object, index: int) -> object:
    """``table`` with an asymptotic claim's ``Omega(...)`` (``O``, ``Theta``) reduced to its
    growth rate, after checking that the symbol matches the claim's kind; one of
    ``expression`` and ``asymptotic`` must be there, and ``expression`` is never asymptotic."""
    if not isinstance(table, dict) or any(key not in table for key in REQUIRED):
        return table  # the reader says what is wrong
    where = f"claim {table.get('name', f'number {index}')!r}"
    if "expression" not in table and "asymptotic" not in table:
        raise ClaimError(f"{where}: missing field 'expression' (or 'asymptotic')")
    text = table.get("expression")
    if isinstance(text, str) and ASYMPTOTIC.match(text):
        raise ClaimError(
            f"{where}: field 'expression' = {text!r} is asymptotic; write it as "
            f"asymptotic = {text!r} (expression is the explicit form, with its constants)"
        )
    text = table.get("asymptotic")
    match = ASYMPTOTIC.match(text) if isinstance(text, str) else None
    if match is None:
        return table
    symbol, inner = match.groups()
    try:
        kind = Kind(table.get("kind"))
    except ValueError:
        return table  # the reader names the valid kinds
    if symbol != ORDER_OF_KIND[kind]:
        article = "an" if kind is Kind.UPPER else "a"
        raise ClaimError(
            f"{where}: field 'asymptotic' = {text!r} is {symbol}, but {article} {kind.value} "
            f"claim is {ORDER_OF_KIND[kind]}(...)"
        )
    return {**table, "asymptotic": inner}


def _accuracy(table: object, index: int) -> object:
    """``table`` with its accuracy fields (:data:`ACCURACY`) turned into conditions; they
    apply to approximate claims only and must be positive numbers or expressions."""
    if not isinstance(table, dict) or not any(key in table for key in ACCURACY):
        return table
    where = f"claim {table.get('name', f'number {index}')!r}"
    if table.get("regime") != "approximate":
        given = ", ".join(key for key in ACCURACY if key in table)
        raise ClaimError(f"{where}: field {given} applies only to regime 'approximate'")
    table = dict(table)
    parts = [] if table.get("conditions") is None else [f"({table['conditions']})"]
    for key, symbol in ACCURACY.items():
        if key not in table:
            continue
        value = table.pop(key)
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ClaimError(f"{where}: field {key!r} must be a positive number, got {value!r}")
        parsed = parse_expression(str(value), field=key, claim=where)
        if not (parsed.is_number and parsed.is_positive and parsed.is_finite):
            raise ClaimError(f"{where}: field {key!r} = {value!r} must be a positive number")
        parts.append(f"{symbol} <= {value}")
    table["conditions"] = " and ".join(parts)
    return table


def claim_from_table(table: object, index: int = 1) -> Claim:
    """Build one :class:`Claim` from a ``[[bound]]`` table (``index`` counts from 1)."""
    table = _accuracy(_rate(table, index), index)
    try:
        bound = reader.record_from_table(
            table,
            index,
            noun="claim",
            fields=[key for key in FIELDS if key not in ("constant", *ACCURACY)],
            required=REQUIRED,
            defaults=DEFAULTS,
            own=("constant", "window"),
            names=NAMES,
        )
    except BoundError as error:
        raise ClaimError(str(error)) from None
    where = f"claim {bound.name!r}"
    _check_heads(bound.conditions, where)
    if "window" in table:
        bound = _with_window(bound, table["window"], where)
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


def _check_heads(conditions: sp.Basic, where: str) -> None:
    """Refuse conditions that fix the head counts to a shape that does not group.

    ``heads_q == 3 and heads_kv == 2`` admits no attention call (the query heads are
    split into groups of one K and V head each), so any claim would hold there vacuously:
    one line naming the values, as :func:`attnio.bounds.shape.check_shape` words it.
    """
    fixed: dict[sp.Symbol, sp.Basic] = {}
    for atom in sp.And.make_args(conditions):
        if isinstance(atom, sp.Eq):
            for side, other in ((atom.lhs, atom.rhs), (atom.rhs, atom.lhs)):
                if side in NAMES.values() and other.is_number:
                    fixed[side] = other
    if len(fixed) < 2:
        return
    try:
        check_shape(1, 1, fixed[symbols.h_q], fixed[symbols.h_kv], ClaimError)
    except ClaimError as error:
        raise ClaimError(f"{where}: field 'conditions': {error}") from None


def _with_window(bound, width: object, where: str):
    """``bound`` about the masks of its family of width ``width`` only: ``w == width`` joins
    its conditions (a claim's ``window = 1024`` with ``mask = "window"`` or ``"band"``)."""
    if bound.mask not in ("window", "band"):
        raise ClaimError(
            f'{where}: field \'window\' = {width!r} needs mask = "window" or "band", '
            f"not {bound.mask!r}"
        )
    least = 1 if bound.mask == "window" else 0
    if isinstance(width, bool) or not isinstance(width, int) or width < least:
        raise ClaimError(f"{where}: field 'window' must be an integer >= {least}, got {width!r}")
    return dataclasses.replace(
        bound, conditions=sp.And(bound.conditions, sp.Eq(symbols.w, width)), parameters=()
    )


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
    mask: str | None = None,
    window: int | None = None,
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
    regime, pass_, cache, conditions, algorithm, constant, name, mask, window
        The table fields of the same names (``pass_`` is ``pass``; ``mask = "causal"``,
        ``window = 1024`` with ``mask = "window"`` or ``"band"``).
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
                       ("constant", constant), ("mask", mask), ("window", window)):  # fmt: skip
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
