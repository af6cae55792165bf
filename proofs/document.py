"""The derivation document: a Markdown proof whose tables the machine reads.

A derivation file (docs/derivations.md) is prose with tables. Four kinds of table are
read, each recognised by its header row; any other table is prose:

``| variable | domain |`` (optional column ``symbol``)
    The file's own symbols: ``positive``, ``nonnegative``, ``real``, ``integer``,
    ``positive integer`` or ``nonnegative integer``. The catalog's symbols (``n``, ``d``,
    ``M``, ``Z`` ...) need no declaration; a declared name hides a catalog one. ``symbol``
    names the sympy symbol when it differs from the name the expressions use (the
    shipped files keep the names their recorded obligations have: ``IO`` is ``io``).
``| term | expression |``
    Abbreviations: a term's name in a later expression stands for its expression, in
    parentheses (a term may use the terms above it).
``| step | hypotheses | conclusion |`` (optional columns ``statement`` and ``records``)
    The algebraic steps, each an obligation ``derivation/<file stem>/<step>`` that z3
    checks: the hypotheses, separated by ``;``, imply the conclusion. Expressions are
    read by the claims files' parser (:func:`attnio.bounds.expression.parse_expression`).
    A side of a conclusion may be ``record(NAME)``: the catalog record's explicit
    expression, read from the catalog, not retyped; the record's conditions are added to
    the hypotheses unless each of them is written there already. ``records`` names
    further catalog records the step is about.
``| lemma | statement |`` (optional column ``status``: ``hand proof``, ``published`` or
``gap``)
    The combinatorial steps z3 does not check, with their proofs in the prose. A ``gap``
    (an argument not checked by anyone, such as a reconstructed citation) makes the
    derivation incomplete.

Each steps table starts a derivation; the lemma tables after it, up to the next steps
table, are its lemmas. The records a derivation establishes are those its steps read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from attnio.bounds import get, symbols
from attnio.bounds.errors import BoundError
from attnio.bounds.expression import FUNCTIONS, parse_expression

from .errors import DerivationFileError
from .obligation import Expectation, Obligation

DIRECTORY = Path(__file__).parent / "derivations"
"""Where the shipped derivations live."""

DOMAINS: dict[str, dict[str, bool]] = {
    "positive": {"positive": True},
    "nonnegative": {"nonnegative": True},
    "real": {"real": True},
    "integer": {"integer": True},
    "positive integer": {"positive": True, "integer": True},
    "nonnegative integer": {"nonnegative": True, "integer": True},
}
"""The domains a variable may have, with the sympy assumptions each gives its symbol."""

STATUSES = ("hand proof", "published", "gap")
"""What a lemma may rest on; a ``gap`` makes its derivation incomplete."""

_RECORD = re.compile(r"record\(\s*([^()\s]*)\s*\)")
_PLACEHOLDER = "record_read_from_the_catalog"
_STAND_IN = sp.Symbol(_PLACEHOLDER)
_DECIDABLE = (sp.Le, sp.Lt, sp.Ge, sp.Gt)
_SEPARATOR = re.compile(r"^\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*$")


@dataclass(frozen=True)
class Derivation:
    """A written derivation of one or more catalog records.

    Parameters
    ----------
    file : str
        File name (under ``directory``).
    records : tuple of str
        The catalog records whose explicit expression it establishes.
    steps : tuple of Obligation
        The algebraic steps, each expected to hold.
    unchecked : tuple of str
        The steps z3 does not check (combinatorial arguments, cited lemmas), in words.
    complete : bool
        Whether the written argument covers every step (a derivation with a
        known gap, such as an unverified citation, is not complete).
    directory : pathlib.Path
        Where the file is (default: the shipped derivations' :data:`DIRECTORY`).
    """

    file: str
    records: tuple[str, ...]
    steps: tuple[Obligation, ...]
    unchecked: tuple[str, ...]
    complete: bool
    directory: Path = field(default=DIRECTORY, compare=False)

    @property
    def path(self) -> Path:
        """The Markdown file."""
        return self.directory / self.file


@dataclass
class _Table:
    """One Markdown table: its header and its rows, each with its line number."""

    line: int
    header: tuple[str, ...]
    rows: list[tuple[int, tuple[str, ...]]]


@dataclass
class _Part:
    """A derivation being read: its steps, the records they read, its lemmas."""

    steps: list[Obligation] = field(default_factory=list)
    records: list[str] = field(default_factory=list)
    lemmas: list[str] = field(default_factory=list)
    complete: bool = True


def read_derivations(path: str | Path) -> tuple[Derivation, ...]:
    """Read the derivations of a Markdown file (see the module docstring for its tables).

    Raises
    ------
    DerivationFileError
        One line naming the file, the line and the column: the file cannot be read, has
        no steps table, or a cell is malformed (an unknown domain or record, an expression
        the parser refuses, a hypothesis or conclusion that is not a relation).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DerivationFileError(
            f"derivation file {str(path)!r}: cannot be read ({error})"
        ) from None
    return _Reader(path).read(text)


class _Reader:
    """Reads one file's tables in order into derivations."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stem = path.name.removesuffix(".md")
        self.names: dict[str, sp.Symbol] = {}
        self.terms: dict[str, str] = {}
        self.parts: list[_Part] = []
        self.label = ""
        self.parsed: dict[tuple[str, bool], sp.Basic] = {}
        self.labels: set[str] = set()

    def fail(self, line: int, column: str, message: str) -> DerivationFileError:
        return DerivationFileError(
            f"derivation file {str(self.path)!r}: line {line}, column {column!r}: {message}"
        )

    def read(self, text: str) -> tuple[Derivation, ...]:
        for table in _tables(text):
            kind = _kind(table.header)
            if kind == "variable":
                self.declare(table)
            elif kind == "term":
                self.define(table)
            elif kind == "step":
                self.parts.append(_Part())
                self.steps(table)
            elif kind == "lemma":
                if not self.parts:
                    raise self.fail(table.line, "lemma", "a lemma table before any steps table")
                self.lemmas(table, self.parts[-1])
        if not self.parts:
            raise self.fail(1, "step", "no table with the columns step | hypotheses | conclusion")
        return tuple(
            Derivation(
                self.path.name,
                tuple(part.records),
                tuple(part.steps),
                tuple(part.lemmas),
                part.complete,
                self.path.parent,
            )
            for part in self.parts
        )

    # ------------------------------------------------------------------ tables
    def declare(self, table: _Table) -> None:
        header = ("variable", "domain", "symbol")
        for line, (name, domain, symbol) in _cells(table, header, self.fail, ("symbol",)):
            name, symbol = name.strip("`"), symbol.strip("`") or name.strip("`")
            if not name.isidentifier() or not symbol.isidentifier():
                raise self.fail(line, "variable", f"{name!r} (symbol {symbol!r}) is not a name")
            assumptions = DOMAINS.get(" ".join(domain.lower().split()))
            if assumptions is None:
                raise self.fail(line, "domain", f"{domain!r} is not one of: {', '.join(DOMAINS)}")
            if name in self.names:
                raise self.fail(line, "variable", f"{name!r} is declared twice")
            self.names[name] = sp.Symbol(symbol, **assumptions)

    def define(self, table: _Table) -> None:
        for line, (name, expression) in _cells(table, ("term", "expression"), self.fail):
            name = name.strip("`")
            taken = {*self.names, *self.terms, *symbols.ALL, *FUNCTIONS, _PLACEHOLDER}
            if not name.isidentifier() or name in taken:
                raise self.fail(line, "term", f"{name!r} is not a new name")
            text = self.expand(expression.replace("`", ""))
            self.parse(text, line, "expression", f"term {name}", relation=False)
            self.terms[name] = text

    def lemmas(self, table: _Table, part: _Part) -> None:
        header = ("lemma", "statement", "status")
        for line, (name, statement, status) in _cells(table, header, self.fail, ("status",)):
            status = " ".join(status.lower().split()) or "hand proof"
            if status not in STATUSES:
                raise self.fail(line, "status", f"{status!r} is not one of: {', '.join(STATUSES)}")
            name = name.strip("`") or "lemma"
            shown = name if status == "hand proof" else f"{name} ({status})"
            part.lemmas.append(f"{shown}: {statement}")
            part.complete = part.complete and status != "gap"

    def steps(self, table: _Table) -> None:
        header = ("step", "hypotheses", "conclusion", "statement", "records")
        part = self.parts[-1]
        for line, cells in _cells(table, header, self.fail, ("statement", "records")):
            part.steps.append(self.step(line, *cells, part))

    # ------------------------------------------------------------------ one step
    def step(
        self, line: int, label: str, given: str, wanted: str, words: str, named: str, part: _Part
    ) -> Obligation:
        label = label.strip("`").removeprefix(f"derivation/{self.stem}/")
        self.label = label or f"line {line}"
        if label in self.labels:
            raise self.fail(line, "step", f"step {label!r} appears twice in the file")
        self.labels.add(label)
        record, claim = self.conclusion(line, wanted.replace("`", ""))
        hypotheses = [
            self.hypothesis(line, text)
            for text in given.replace("`", "").split(";")
            if text.strip() and text.strip() != "-"
        ]
        sources = []
        if record is not None:
            conditions = record.conditions
            written = set(hypotheses) | {h.reversed for h in hypotheses if hasattr(h, "reversed")}
            needed = conditions.args if isinstance(conditions, sp.And) else (conditions,)
            if conditions is not sp.true and not all(c in written for c in needed):
                hypotheses.append(conditions)
            sources.append(record.name)
            if record.name not in part.records:
                part.records.append(record.name)
        for name in (n.strip("` ") for n in named.split(",")):
            if name and name not in sources:
                self.record(line, "records", name)
                sources.append(name)
        if not words.strip():
            words = (
                f"the derived bound is at least {record.name}'s {record.explicit}"
                if record is not None
                else f"{'; '.join(map(str, hypotheses)) or 'always'} imply {claim}"
            )
        try:
            return Obligation(
                f"derivation/{self.stem}/{label}",
                "derivation",
                claim,
                tuple(hypotheses),
                Expectation.HOLDS,
                (self.path.name, *sources),
                words.strip(),
            )
        except ValueError as error:
            raise self.fail(line, "step", str(error)) from None

    def conclusion(self, line: int, text: str) -> tuple[object | None, sp.Basic]:
        found = _RECORD.findall(text)
        if len(found) > 1:
            raise self.fail(line, "conclusion", "reads more than one record")
        record = self.record(line, "conclusion", found[0]) if found else None
        text = self.expand(_RECORD.sub(_PLACEHOLDER, text))
        claim = self.parse(text, line, "conclusion", relation=True)
        if not isinstance(claim, sp.core.relational.Relational):
            raise self.fail(line, "conclusion", f"{text!r} is not one relation")
        if record is None:
            return None, claim
        sides = [record.explicit if s == _STAND_IN else s for s in claim.args]
        if any(s.has(_STAND_IN) for s in sides):
            raise self.fail(line, "conclusion", "record(...) must be a whole side of it")
        return record, type(claim)(*sides, evaluate=False)

    def hypothesis(self, line: int, text: str) -> sp.Basic:
        value = self.parse(self.expand(text), line, "hypotheses", relation=True)
        if isinstance(value, _DECIDABLE) and all(side.is_Atom for side in value.args):
            # a relation of a symbol and a number or symbol, as the relation operators build
            # it: the domains may decide it (x >= 0 for a nonnegative x is True, and stays)
            value = type(value)(*value.args)
            if value is sp.false:
                raise self.fail(line, "hypotheses", f"{text.strip()!r} never holds")
        return value

    def record(self, line: int, column: str, name: str) -> object:
        try:
            record = get(name)
        except (BoundError, KeyError, ValueError) as error:
            raise self.fail(line, column, f"no catalog record {name!r} ({error})") from None
        if record.explicit is None:
            raise self.fail(line, column, f"record {name!r} has no explicit expression")
        return record

    def expand(self, text: str) -> str:
        for name, value in reversed(self.terms.items()):
            text = re.sub(rf"\b{re.escape(name)}\b", f"({value})", text)
        return text

    def parse(
        self, text: str, line: int, column: str, claim: str = "", relation: bool = True
    ) -> sp.Basic:
        key = (text, relation)
        if key not in self.parsed:
            names = {**self.names, _PLACEHOLDER: _STAND_IN}
            try:
                self.parsed[key] = parse_expression(
                    text,
                    field=column,
                    claim=claim or self.label,
                    relation=relation,
                    noun="step",
                    names=names,
                )
            except ValueError as error:
                raise self.fail(line, column, str(error)) from None
        return self.parsed[key]


def _tables(text: str) -> list[_Table]:
    """Every Markdown table of ``text`` (a header, a separator row, then rows), but those
    inside fenced code blocks (an example shown in the prose is not read)."""
    lines = text.splitlines()
    tables, index, fenced = [], 0, False
    while index < len(lines):
        if lines[index].lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            index += 1
        elif (
            not fenced
            and lines[index].lstrip().startswith("|")
            and index + 1 < len(lines)
            and _SEPARATOR.match(lines[index + 1].strip())
        ):
            header, start = tuple(c.lower() for c in _split(lines[index])), index + 1
            rows, index = [], index + 2
            while index < len(lines) and lines[index].lstrip().startswith("|"):
                rows.append((index + 1, _split(lines[index])))
                index += 1
            tables.append(_Table(start, header, rows))
        else:
            index += 1
    return tables


def _split(line: str) -> tuple[str, ...]:
    """The cells of a table row; ``\\|`` stands for a ``|`` inside a cell."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return tuple(cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", body))


def _kind(header: tuple[str, ...]) -> str | None:
    """Which table a header starts: ``variable``, ``term``, ``step``, ``lemma`` or None."""
    if header[:2] == ("variable", "domain"):
        return "variable"
    if header[:2] == ("term", "expression"):
        return "term"
    if header[:3] == ("step", "hypotheses", "conclusion"):
        return "step"
    if header[:1] == ("lemma",) and "statement" in header:
        return "lemma"
    return None


def _cells(
    table: _Table, columns: tuple[str, ...], fail: object, optional: tuple[str, ...] = ()
) -> list[tuple[int, tuple[str, ...]]]:
    """Each row's cells in the order of ``columns`` (a missing optional column is empty);
    ``fail(line, column, message)`` makes the error of a malformed table."""
    unknown = [c for c in table.header if c not in columns]
    if unknown:
        raise fail(
            table.line, unknown[0], f"unknown column (the columns are: {', '.join(columns)})"
        )
    missing = [c for c in columns if c not in table.header and c not in optional]
    if missing:
        raise fail(table.line, missing[0], "the table has no such column")
    found = []
    for number, cells in table.rows:
        if len(cells) != len(table.header):
            raise fail(
                number,
                table.header[min(len(cells), len(table.header)) - 1],
                f"{len(cells)} cells, the header has {len(table.header)} "
                "(write a | inside a cell as \\|)",
            )
        row = dict(zip(table.header, cells, strict=True))
        found.append((number, tuple(row.get(c, "") for c in columns)))
    return found


__all__ = ["DIRECTORY", "DOMAINS", "STATUSES", "Derivation", "read_derivations"]
