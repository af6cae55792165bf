"""Tables that fit the terminal: one layout rule for every command that prints a table.

:func:`terminal_width` is the width every table is laid out for (``COLUMNS`` first, then
the terminal, 160 when standard output is not a terminal); rich tables read it through
:func:`wide_console`. :func:`format_table` lays out plain tables: numbers are never cut
or wrapped; when the natural layout is too wide, text cells wrap (at spaces where they
can), and when even the numbers do not fit side by side, each row becomes a block of
``header: value`` lines. :func:`fit_markdown` applies the same rule to the Markdown
tables of ``attnio table`` and ``attnio campaign report`` when a person reads them on a
terminal (piped or written to a file they stay Markdown). Standard library only.
"""

from __future__ import annotations

import re
import shutil
import sys
import textwrap
from collections.abc import Sequence

_NUMBER = re.compile(r"^[-+]?(\d[\d,_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?%?$")
_GAPS = ("-", "")
"""Cells that stand for no value in a column of numbers (aligned with the numbers)."""
_MIN_TEXT = 8
"""Narrowest a wrapped text column becomes."""


def terminal_width() -> int:
    """Columns to lay tables out in: ``$COLUMNS``, else the terminal's, else 160."""
    return max(20, shutil.get_terminal_size((160, 24)).columns)


def wide_console():
    """A rich console on standard output, as wide as :func:`terminal_width`."""
    from rich.console import Console

    return Console(width=terminal_width())


def is_number(cell: str) -> bool:
    """Whether ``cell`` reads as a number (never wrapped or cut).

    Examples
    --------
    >>> is_number("8,238,530,560"), is_number("0.590"), is_number("yes")
    (True, True, False)
    """
    return bool(_NUMBER.match(cell.strip()))


def _wrap(cell: str, width: int) -> list[str]:
    """``cell`` in lines of at most ``width``, broken at spaces, long words split; numbers
    stay whole (a number longer than ``width`` keeps its own line)."""
    lines = textwrap.wrap(cell, width, break_long_words=False, break_on_hyphens=False) or [""]
    out = []
    for line in lines:
        while len(line) > width and not is_number(line):
            out.append(line[:width])
            line = line[width:]
        out.append(line)
    return out


def format_table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    width: int | None = None,
    gap: int = 2,
) -> str:
    """Lay out ``rows`` under ``header`` within ``width`` columns (default the terminal's).

    Columns whose cells are all numbers are right-aligned and never wrapped; the other
    columns wrap when the table is too wide. When the numbers alone do not fit, each row
    is printed as ``header: value`` lines instead, so nothing is ever cut.

    Examples
    --------
    >>> print(format_table(["M", "io"], [["4", "35"], ["5", "20"]]))
    M  io
    4  35
    5  20
    >>> print(format_table(["name", "io"], [["a long name", "35"]], width=12))
    name      io
    a long    35
    name
    """
    width = terminal_width() if width is None else width
    header = [str(h) for h in header]
    rows = [[str(c) for c in row] for row in rows]
    count = len(header)
    numeric = [
        any(is_number(row[i]) for row in rows)
        and all(is_number(row[i]) or row[i] in _GAPS for row in rows)
        for i in range(count)
    ]
    natural = [max([len(header[i]), *(len(row[i]) for row in rows)]) for i in range(count)]
    widths = list(natural)
    spare = width - gap * (count - 1) - sum(natural)
    if spare < 0:
        text = [i for i in range(count) if not numeric[i]]
        fixed = sum(natural[i] for i in range(count) if numeric[i]) + gap * (count - 1)
        room = width - fixed
        floor = sum(min(natural[i], _MIN_TEXT) for i in text)
        if not text or room < floor:
            return _records(header, rows, width)
        # each text column gets its floor, then the rest in proportion to what it lacks
        lacking = {i: natural[i] - min(natural[i], _MIN_TEXT) for i in text}
        rest, total = room - floor, sum(lacking.values())
        for i in text:
            widths[i] = min(natural[i], _MIN_TEXT) + (lacking[i] * rest // total if total else 0)
    lines = []
    for row in [header, *rows]:
        cells = [[row[i]] if numeric[i] else _wrap(row[i], widths[i]) for i in range(count)]
        for k in range(max(len(c) for c in cells)):
            parts = []
            for i, cell in enumerate(cells):
                piece = cell[k] if k < len(cell) else ""
                parts.append(piece.rjust(widths[i]) if numeric[i] else piece.ljust(widths[i]))
            lines.append((" " * gap).join(parts).rstrip())
    return "\n".join(lines)


def _records(header: list[str], rows: list[list[str]], width: int) -> str:
    """Each row as ``header: value`` lines (values wrapped, numbers whole), blank-separated."""
    label = max(len(h) for h in header) + 2
    blocks = []
    for row in rows:
        lines = []
        for name, cell in zip(header, row, strict=True):
            pieces = [cell] if is_number(cell) else _wrap(cell, max(width - label, _MIN_TEXT))
            lines.append(f"{name + ':':<{label}}{pieces[0]}")
            lines.extend(" " * label + piece for piece in pieces[1:])
        blocks.append("\n".join(line.rstrip() for line in lines))
    return "\n\n".join(blocks)


def fit_markdown(text: str, width: int | None = None) -> str:
    """Re-lay each Markdown table of ``text`` wider than ``width`` with :func:`format_table`.

    Only for a person at a terminal: call it when standard output is one. Tables that fit
    and lines outside tables that fit are kept as they are; a longer line of prose (a note
    under a table, not a heading) wraps at spaces.
    """
    width = terminal_width() if width is None else width
    out: list[str] = []
    lines = text.split("\n")
    k = 0
    while k < len(lines):
        if not _is_row(lines[k]):
            line = lines[k]
            # a note under a table (prose) wraps at spaces; headings stay as they are
            if len(line) > width and not line.startswith(("#", "`")):
                out.extend(_wrap(line, width))
            else:
                out.append(line)
            k += 1
            continue
        start = k
        while k < len(lines) and _is_row(lines[k]):
            k += 1
        block = lines[start:k]
        if max(len(line) for line in block) <= width or len(block) < 2:
            out.extend(block)
            continue
        cells = [_cells(line) for line in block]
        body = [row for row in cells[2:] if len(row) == len(cells[0])]
        if not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", block[1].strip()) or len(body) < len(cells[2:]):
            out.extend(block)
            continue
        out.append(format_table(cells[0], body, width=width))
    return "\n".join(out)


def to_terminal(text: str) -> str:
    """``text`` with its Markdown tables fitted when standard output is a terminal."""
    return fit_markdown(text) if sys.stdout.isatty() else text


def _is_row(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) > 1 and stripped.startswith("|") and stripped.endswith("|")


def _cells(line: str) -> list[str]:
    parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [part.strip().replace("\\|", "|").strip("`") for part in parts]
