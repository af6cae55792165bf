"""Reading bound records from TOML: attnio's catalog, a user's own catalog, a user's claims.

One format serves all three: a file of ``[[bound]]`` tables, one per record. attnio's
catalog is such a file (``catalog.toml``, package data); ``attnio table --catalog FILE``
renders a user's; :mod:`attnio.claims` reads claims with :func:`record_from_table` and
adds its one field of its own (``constant``). docs/catalog.md shows the format::

    [[bound]]
    name = "my-forward-lower"
    label = "My lower bound"            # the row's name in tables and legends (optional)
    kind = "lower"                      # lower, upper or tight
    regime = "dense"                    # dense, sparse or approximate
    pass = "forward"                    # forward or backward
    cache = "large"                     # small (M < d**2), large (M >= d**2), any (default)
    status = "stated"                   # evidence level, docs/evidence.md
    asymptotic = "n**2*d**2/M"          # inside O / Omega / Theta
    expression = "n**2*d**2/(8*M) - M"  # the explicit form, constants and all
    conditions = "M >= d**2"            # where it holds (default: always)
    source_range = "M >= d**2"          # quoted records: the range the cited statement states
    algorithm = "flash"                 # upper bounds: the algorithm whose cost this is
    mask = "causal"                     # sparse records: the mask family (bounds/masks.py)
    reduces_to = "dense-forward-count"  # sparse records: the dense record at full density
    source = "SY24 Lemma 3.4"           # short name and theorem, or attnio's derivation
    notes = "..."                       # caveats, formulation, why something is open

Expressions and conditions are read by :func:`attnio.bounds.expression.parse_expression`
(no ``eval``). Every error is one line naming the file (when there is one), the record
and the field.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

import sympy as sp

from .errors import BoundError, CatalogFileError, RecordError
from .expression import parse_expression
from .record import Bound, Cache, Kind, Pass, Regime, Status, member

FIELDS = (
    "name",
    "label",
    "kind",
    "regime",
    "pass",
    "cache",
    "status",
    "asymptotic",
    "expression",
    "conditions",
    "source_range",
    "algorithm",
    "mask",
    "reduces_to",
    "source",
    "notes",
)
"""The keys a ``[[bound]]`` table of a catalog may have."""

REQUIRED = ("name", "kind", "regime", "pass", "status", "source")
"""The keys every ``[[bound]]`` table of a catalog must have."""

DEFAULTS: Mapping[str, str] = {"cache": "any", "notes": "", "label": ""}
"""Values of the keys a catalog's table may leave out (expressions: none; conditions: always)."""


def read_catalog(path: str | Path) -> tuple[Bound, ...]:
    """Read and validate a catalog file: its records, in file order.

    Raises
    ------
    CatalogFileError
        The file cannot be read, is not UTF-8 or not TOML, has no ``[[bound]]``, or two
        records share a name or a ``reduces_to`` names no record of the file.
    RecordError
        A table has a missing, unknown or bad field; the message names the file, the
        record and the field.
    """
    return parse_catalog(read_text(path, "catalog file"), source=str(path))


def read_text(path: str | Path, what: str, error: type[Exception] = CatalogFileError) -> str:
    """The UTF-8 text of the file at ``path``; ``error`` naming ``what`` and the path if not.

    Raises ``error`` (a :class:`CatalogFileError` unless told) when the file cannot be read
    or is not UTF-8.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as problem:
        raise error(f"{what} {str(path)!r}: {problem.strerror or problem}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{what} {str(path)!r} is not UTF-8 text") from None


def parse_catalog(text: str, *, source: str = "<string>") -> tuple[Bound, ...]:
    """Read and validate the catalog in TOML ``text``; ``source`` names it in messages."""
    what = f"catalog file {source!r}"
    tables = bound_tables(text, what)
    records = tuple(
        record_from_table(table, index, context=f"{what}: ")
        for index, table in enumerate(tables, 1)
    )
    check_names(records, what)
    names = {record.name for record in records}
    for record in records:
        if record.reduces_to is not None and record.reduces_to not in names:
            raise CatalogFileError(
                f"{what}: bound {record.name!r}: field 'reduces_to' = {record.reduces_to!r} "
                "names no record of this file"
            )
    return records


def bound_tables(text: str, what: str, error: type[BoundError] = CatalogFileError) -> list:
    """The ``[[bound]]`` tables of TOML ``text``; ``what`` names the file in messages.

    Raises ``error`` (a :class:`CatalogFileError` unless told) when the text is not TOML,
    has another top-level key, or no ``[[bound]]`` table.
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        raise error(f"{what} is not valid TOML: {problem}") from None
    extra = sorted(set(document) - {"bound"})
    if extra:
        raise error(
            f"{what}: unknown top-level key(s) {extra}; write one [[bound]] table per record"
        )
    tables = document.get("bound")
    if not isinstance(tables, list) or not tables:
        raise error(f"{what} has no [[bound]] table; write one [[bound]] per record")
    return tables


def check_names(records: Iterable[Bound], what: str, noun: str = "record") -> None:
    """Raise :class:`CatalogFileError` if two ``records`` share a name."""
    seen: set[str] = set()
    for record in records:
        if record.name in seen:
            raise CatalogFileError(f"{what}: two {noun}s are named {record.name!r}")
        seen.add(record.name)


def _text(table: Mapping, key: str, where: str, default: str | None = None) -> str | None:
    value = table.get(key, default)
    if value is None:
        return None
    if not isinstance(value, str):
        raise RecordError(f"{where}: field {key!r} must be a string, got {value!r}")
    return value


def _choice(table: Mapping, key: str, enum_type: type, where: str, default: str | None):
    value = _text(table, key, where, default)
    return member(enum_type, value, f"{where}: field {key!r} = {value!r}")


def record_from_table(
    table: object,
    index: int = 1,
    *,
    context: str = "",
    noun: str = "bound",
    fields: Iterable[str] = FIELDS,
    required: Iterable[str] = REQUIRED,
    defaults: Mapping[str, str] = DEFAULTS,
    own: Iterable[str] = (),
    names: Mapping[str, sp.Symbol] | None = None,
) -> Bound:
    """Build one validated :class:`Bound` from a ``[[bound]]`` table.

    Parameters
    ----------
    table : dict
        The parsed TOML table.
    index : int
        Its place in the file, counted from 1 (named when the table has no name).
    context : str
        Prefix of every message, e.g. ``"catalog file 'mine.toml': "``.
    noun : str
        What a record is called in messages (``bound``; ``claim`` for claims).
    fields, required, defaults
        The keys allowed, the keys needed and the values of missing keys.
    own : iterable of str
        Further keys the caller reads itself (a claim's ``constant``): allowed, ignored here.
    names : mapping of str to sympy.Symbol, optional
        Further names the expressions may use for catalog symbols (a claim's ``heads_q``
        for ``h_q``), passed to :func:`attnio.bounds.expression.parse_expression`.

    Raises
    ------
    RecordError
        One line naming the record (or the table's number) and the field.
    """
    if not isinstance(table, dict):
        raise RecordError(f"{context}[[bound]] number {index} is not a table")
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        raise RecordError(
            f"{context}[[bound]] number {index}: field 'name' must be a non-empty string"
        )
    name = name.strip()
    where = f"{context}{noun} {name!r}"
    allowed = (*fields, *own)
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise RecordError(
            f"{where}: unknown field(s) {unknown}; the fields are: {', '.join(allowed)}"
        )
    missing = [key for key in required if key not in table]
    if missing:
        raise RecordError(f"{where}: missing field(s) {missing}")
    kind = _choice(table, "kind", Kind, where, defaults.get("kind"))

    def expression(key: str, relation: bool = False) -> sp.Basic | None:
        text = _text(table, key, where)
        if text is None:
            return None
        try:
            return parse_expression(
                text, field=key, claim=name, relation=relation, noun=noun, names=names
            )
        except BoundError as error:
            raise RecordError(f"{context}{error}") from None

    conditions = expression("conditions", relation=True)
    if conditions is sp.false:  # quote the text, not sympy's False
        raise RecordError(
            f"{where}: field 'conditions': {table['conditions']!r} admits no point with "
            "n, d, M >= 1 (always false)"
        )
    source_range = expression("source_range", relation=True)
    if source_range is sp.false:
        raise RecordError(
            f"{where}: field 'source_range': {table['source_range']!r} admits no point with "
            "n, d, M >= 1 (always false)"
        )
    algorithm = _text(table, "algorithm", where)
    if algorithm is not None and kind is Kind.LOWER:
        raise RecordError(
            f"{where}: field 'algorithm' names the algorithm of an upper bound; a lower bound "
            "holds for every algorithm"
        )
    try:
        return Bound(
            name=name,
            kind=kind,
            regime=_choice(table, "regime", Regime, where, defaults.get("regime")),
            pass_=_choice(table, "pass", Pass, where, defaults.get("pass")),
            cache=_choice(table, "cache", Cache, where, defaults.get("cache")),
            asymptotic=expression("asymptotic"),
            explicit=expression("expression"),
            conditions=sp.true if conditions is None else conditions,
            source=_text(table, "source", where, defaults.get("source")),
            status=_choice(table, "status", Status, where, defaults.get("status")),
            algorithm=algorithm,
            mask=_text(table, "mask", where),
            notes=_text(table, "notes", where, defaults.get("notes", "")),
            reduces_to=_text(table, "reduces_to", where),
            label=_text(table, "label", where, defaults.get("label", "")).strip(),
            source_range=source_range,
        )
    except RecordError as error:  # the record names itself a bound: say it once
        raise RecordError(f"{context}{error}" if noun == "bound" else f"{where}: {error}") from None


__all__ = [
    "DEFAULTS",
    "FIELDS",
    "REQUIRED",
    "bound_tables",
    "check_names",
    "parse_catalog",
    "read_catalog",
    "read_text",
    "record_from_table",
]
