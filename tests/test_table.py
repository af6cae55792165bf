"""Tests of attnio._table: every command's table fits the terminal, and numbers stay whole."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnio._table import fit_markdown, format_table, is_number, terminal_width
from attnio.cli import main

WIDTH = 60

words = st.text(alphabet="abcdefghij ()*/_-", min_size=0, max_size=40)
numbers = st.integers(0, 10**12).map(str)


@st.composite
def tables(draw):
    """A header and rows: some columns all numbers, the others text."""
    count = draw(st.integers(1, 8))
    kinds = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    header = draw(st.lists(st.text("abcdefgh", min_size=1, max_size=10), min_size=count,
                           max_size=count))  # fmt: skip
    rows = draw(
        st.lists(
            st.tuples(*(numbers if numeric else words for numeric in kinds)).map(list),
            min_size=1,
            max_size=6,
        )
    )
    return header, rows


@given(tables(), st.integers(20, 200))
def test_every_number_survives_whole(table, width) -> None:
    """Whatever the width, every number of the table appears whole in the output."""
    header, rows = table
    out = format_table(header, rows, width=width)
    tokens = set(re.split(r"\s+", out))
    for row in rows:
        for cell in row:
            if is_number(cell):
                assert cell in tokens


@given(tables(), st.integers(20, 200))
def test_lines_fit_unless_a_single_number_is_wider(table, width) -> None:
    """Every line fits the width, unless one number alone is wider than it."""
    header, rows = table
    widest = max((len(c) for row in rows for c in row if is_number(c)), default=0)
    label = max(len(h) for h in header) + 2
    out = format_table(header, rows, width=width)
    for line in out.splitlines():
        assert len(line) <= width or label + widest > width


def test_a_table_that_fits_is_laid_out_in_columns() -> None:
    """A table narrower than the terminal keeps its columns; numbers are right-aligned."""
    out = format_table(["M", "io"], [["4", "35"], ["16", "5"]], width=WIDTH)
    assert out.splitlines() == [" M  io", " 4  35", "16   5"]


def test_columns_env_sets_the_width(monkeypatch) -> None:
    """COLUMNS is the width (as for every terminal program)."""
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    assert terminal_width() == WIDTH


def test_markdown_that_fits_is_kept() -> None:
    """fit_markdown keeps narrow tables and every line outside tables unchanged."""
    text = "# title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert fit_markdown(text, WIDTH) == text


def _fits(out: str) -> None:
    long = [line for line in out.splitlines() if len(line) > WIDTH]
    assert not long, long


@pytest.fixture
def narrow(monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))


def test_pebble_sweep_fits(narrow, capsys) -> None:
    """attnio pebble --sweep prints its table within COLUMNS=60, numbers whole."""
    argv = ["pebble", "--dag", "attention-forward", "--n", "2", "--d", "1", "--sweep", "M=4:6"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    _fits(out.split("\n", 1)[1])  # the title line names the graph; the table follows
    assert re.search(r"\b35\b", out)


def test_simulate_sweep_fits(narrow, capsys) -> None:
    """A simulate sweep of several algorithms fits COLUMNS=60 (one block per M when the
    columns do not fit side by side), every count whole."""
    argv = ["simulate", "flash", "flash2", "standard", "square-tiling", "--n", "256", "--d",
            "16", "--sweep", "M=256:4096", "--points", "3", "--json"]  # fmt: skip
    import json

    assert main(argv) == 0
    counts = json.loads(capsys.readouterr().out)["results"]
    assert main(argv[:-1]) == 0
    out = capsys.readouterr().out
    _fits(out)
    for row in counts:
        if row["io"] is not None:
            assert str(int(row["io"])) in out


def test_check_table_fits(narrow, tmp_path, capsys) -> None:
    """attnio check's verdict table fits COLUMNS=60."""
    path = tmp_path / "claims.toml"
    path.write_text(
        '[[bound]]\nname = "a-rather-long-claim-name-for-the-table"\nkind = "lower"\n'
        'regime = "dense"\npass = "backward"\nexpression = "8*n*d + n"\n',
        encoding="utf-8",
    )
    assert main(["check", str(path), "--skip", "pebbling", "--skip", "counting"]) == 0
    table = [line for line in capsys.readouterr().out.splitlines() if line[:1] in "┏┃┡│└"]
    assert table
    _fits("\n".join(table))


def test_table_fits_a_terminal_and_stays_markdown_in_a_pipe(narrow, capsys, monkeypatch) -> None:
    """attnio table on a 60-column terminal fits it; piped, it is Markdown unchanged."""
    assert main(["table", "--regime", "dense"]) == 0
    piped = capsys.readouterr().out
    assert piped.startswith("| name |")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["table", "--regime", "dense"]) == 0
    shown = capsys.readouterr().out
    _fits(shown)
    assert "dense-forward-compulsory" in shown and "4*d*n" in shown


def test_campaign_report_fits_a_terminal(narrow, tmp_path, capsys, monkeypatch) -> None:
    """attnio campaign report's Markdown tables (one column per M) fit a 60-column
    terminal; headings are left to the terminal."""
    spec, store = tmp_path / "spec.toml", tmp_path / "r.sqlite"
    spec.write_text(
        '[[pebble]]\ndag = "attention-forward"\nn = 1\nd = 1\nM = "3:30"\nsolvers = ["lru"]\n'
    )
    assert main(["campaign", str(spec), "--store", str(store), "--workers", "0"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    main(["campaign", "report", "--store", str(store)])
    out = capsys.readouterr().out
    assert "| Q |" not in out and "30:" in out
    _fits("\n".join(line for line in out.splitlines() if not line.startswith(("#", "**"))))
    assert "attention-forward" in out
