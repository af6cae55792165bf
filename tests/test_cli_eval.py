"""Tests of ``attnio eval`` (attnio/_cli_eval.py): catalog bounds at a point, bad input."""

from __future__ import annotations

import json
import re

import pytest

from attnio._cli_eval import PARAMETERS
from attnio.bounds import get
from attnio.bounds.symbols import ALL
from attnio.cli import main


def test_the_options_are_the_catalog_symbols() -> None:
    """One option per symbol of attnio.bounds.symbols.ALL, no more, no fewer."""
    assert set(PARAMETERS) == set(ALL)


def test_a_named_record_is_evaluated_exactly(capsys) -> None:
    """The value printed is the record's own evaluate() at the point, exact and decimal."""
    argv = ["eval", "dense-forward-lower-large-sharp", "flash2-forward-count", "--n", "4096",
            "--d", "64", "--M", "65536", "--json"]  # fmt: skip
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    for row in rows:
        value = get(row["name"]).evaluate(n=4096, d=64, M=65536)
        assert row["applies"] is True and row["value"] == str(value)
        assert row["decimal"] == pytest.approx(float(value))


def test_a_cell_lists_records_that_do_not_apply_or_need_more(capsys) -> None:
    """Without RECORD, every explicit record of the filtered cell is listed; one whose
    conditions fail says so, one needing a parameter not given names it."""
    assert main(["eval", "--regime", "sparse", "--pass", "forward", "--n", "64", "--d", "8",
                 "--M", "64", "--Z", "64", "--s", "1/8", "--json"]) == 0  # fmt: skip
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["results"]}
    assert rows["block-sparse-flash-forward-count"]["applies"] is True
    assert any(row["applies"] is None and "needs" in row["note"] for row in rows.values())
    assert main(["eval", "--regime", "dense", "--pass", "forward", "--n", "8", "--d", "4",
                 "--M", "64", "--json"]) == 0  # fmt: skip
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["results"]}
    small = rows["dense-forward-lower-small-sharp"]
    assert small["applies"] is False and "M < d**2" in small["note"]


def test_the_shape_options_are_spelled_as_in_gap(capsys) -> None:
    """--n-q, --n-kv, --heads-q, --heads-kv give n_q, n_kv, h_q, h_kv, as --n_q ... do."""
    shape = ["--n-q", "1", "--n-kv", "64", "--heads-q", "4", "--heads-kv", "2", "--d", "8"]
    assert main(["eval", "shape-forward-compulsory", *shape, "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["results"]
    point = {"n_q": 1, "n_kv": 64, "h_q": 4, "h_kv": 2, "d": 8}
    assert row["value"] == str(get("shape-forward-compulsory").evaluate(**point))


def test_the_table_shows_the_value(capsys) -> None:
    """The terminal table names the record and its value."""
    assert main(["eval", "dense-forward-compulsory", "--n", "1024", "--d", "64"]) == 0
    out = capsys.readouterr().out
    assert "dense-forward-compulsory" in out and str(get("dense-forward-compulsory")
                                                     .evaluate(n=1024, d=64)) in out  # fmt: skip


UNGROUPED = ["shape-forward-compulsory", "--n-q", "1", "--n-kv", "8", "--heads-q", "3",
             "--heads-kv", "2", "--d", "1"]  # fmt: skip
"""A shape whose query heads do not split into groups of its key/value heads."""


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["nosuch", "--n", "3"], "no bound named 'nosuch'"),
        (["dense-forward-compulsory", "--n", "x", "--d", "1"], "--n 'x' is not a number"),
        (["dense-forward-compulsory", "--n", "3"], "needs --d"),
        (["dense-forward-compulsory", "--n", "3", "--d", "2", "--M", "-1"], "must be positive"),
        (["dense-forward-compulsory", "--n", "3.5", "--d", "2"], "must be an integer"),
        (["dense-forward-compulsory"], "give the point"),
        (["--regime", "foo", "--n", "3"], "'foo' is not one of"),
        (["dense-forward-compulsory", "--regime", "dense", "--n", "3", "--d", "1"], "not both"),
        (UNGROUPED, "--heads-q 3 must be a multiple of --heads-kv 2"),
    ],
)
def test_bad_input_is_one_line_and_exit_two(capsys, argv: list, match: str) -> None:
    """Unknown records, non-numbers, missing or out-of-domain values: one line, exit 2."""
    assert main(["eval", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and re.search(match, err)
