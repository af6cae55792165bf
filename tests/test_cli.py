"""Tests of attnio.cli and attnio._cli_table: commands and error paths (verify: test_cli_verify.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from attnio.bounds import catalog
from attnio.cli import main


def run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["markdown", "latex", "json"])
def test_table_prints_every_format(capsys: pytest.CaptureFixture, fmt: str) -> None:
    """attnio table prints the whole catalog in each format and exits 0.

    Markdown and JSON name every record; the LaTeX tables show a reader's label instead,
    so every record must have exactly one row with its label, its bound (its explicit form,
    from its relation on, where it has one) and its evidence mark, in the table of its
    regime, pass and side.
    """
    from attnio.bounds.labels import label
    from attnio.bounds.record import SHAPE_PARAMETERS
    from attnio.bounds.render import (
        STATUS_MARKS,
        explicit_relation,
        is_exact_count,
        latex_escape,
        latex_statement,
    )

    code, out, _ = run(capsys, "table", "--format", fmt)
    assert code == 0
    if fmt != "latex":
        assert all(b.name in out for b in catalog())
        return
    found = []
    for table in out.split(r"\begin{table}")[1:]:
        what = table.split(r"\caption{", 1)[1].split(":", 1)[0]
        body = table.split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0]
        for line in body.splitlines():
            if line.endswith("\\\\") and " & " in line:
                cells = line.removesuffix(" \\\\").split(" & ")
                bound = re.sub(
                    r"^(\$(\\mathit\{IO\} \\[gl]eq|\\mathrm\{I/O\} =) ).*",
                    r"\1",
                    cells[1],
                    flags=re.S,
                )
                name = re.sub(r"^\\textbf\{(.*)\}$", r"\1", cells[0])  # the strongest
                found.append((what, name.replace("\\-", ""), bound, cells[-1]))
    sides = {
        "lower": "lower bounds",
        "lower-small": "lower bounds for a small cache",
        "upper": "tight and upper bounds",
        "shapes-lower": "lower bounds for rectangular and grouped-query shapes",
        "shapes": "rectangular and grouped-query shapes",
        "shapes-counts": "exact I/O counts for rectangular and grouped-query shapes",
        "shapes-flash": "FlashAttention's exact I/O counts for rectangular and grouped-query shapes",
        "masks-lower": "lower bounds for causal, sliding-window and band masks",
        "masks": "causal, sliding-window and band masks",
    }

    def side(b) -> str:
        if set(b.parameters) & SHAPE_PARAMETERS:
            if is_exact_count(b):
                return "shapes-flash" if b.algorithm.startswith("gqa-flash") else "shapes-counts"
            return "shapes-lower" if b.kind.value == "lower" else "shapes"
        if b.mask is not None:
            return "masks-lower" if b.kind.value == "lower" else "masks"
        if b.kind.value != "lower":
            return "upper"
        return "lower-small" if b.cache.value == "small" else "lower"

    expected = [
        (
            f"{b.regime.value.capitalize()} attention, {b.pass_.value} pass, "
            + (
                "algorithms' exact I/O counts"
                if is_exact_count(b)
                and side(b)
                not in ("shapes", "shapes-counts", "shapes-flash", "masks", "masks-lower")
                else sides[side(b)]
            ),
            latex_escape(label(b)),
            latex_statement(b) if b.explicit is None else f"${explicit_relation(b)} ",
            STATUS_MARKS[b.status][0],
        )
        for b in catalog()
    ]
    assert sorted(found) == sorted(expected)


def test_table_filters(capsys: pytest.CaptureFixture) -> None:
    """Filters on the command line select the same rows as the Python API."""
    code, out, _ = run(
        capsys,
        "table",
        "--format",
        "json",
        "--regime",
        "dense",
        "--pass",
        "backward",
        "--cache",
        "small",
    )
    assert code == 0
    names = [row["name"] for row in json.loads(out)["bounds"]]
    assert names == [b.name for b in catalog(regime="dense", pass_="backward", cache="small")]


def test_table_writes_a_file(capsys: pytest.CaptureFixture, tmp_path) -> None:
    """--output writes the table to a file instead of standard output."""
    target = tmp_path / "t.md"
    code, out, _ = run(capsys, "table", "--output", str(target))
    assert code == 0 and out == ""
    assert target.read_text().startswith("| name |")


@pytest.mark.parametrize(
    "argv",
    [
        ["--format", "markdown", "--regime", "sparse"],
        ["--format", "json"],
        ["--format", "latex", "--layout", "longtable"],
        ["--format", "latex", "--standalone", "--columns", "name,bound,explicit,source,status"],
    ],
)
def test_table_renders_a_catalog_file_like_attnio_s(capsys, tmp_path, argv: list) -> None:
    """table --catalog FILE on a copy of attnio's catalog.toml prints exactly what table prints."""
    from importlib import resources

    copy = tmp_path / "mine.toml"
    copy.write_text(
        resources.files("attnio.bounds").joinpath("catalog.toml").read_text(encoding="utf-8")
    )
    code, ours, _ = run(capsys, "table", *argv)
    code_file, theirs, _ = run(capsys, "table", "--catalog", str(copy), *argv)
    assert code == code_file == 0 and ours == theirs


def test_table_renders_records_without_label_or_known_source(capsys, tmp_path) -> None:
    """A user's record with no label and a source attnio cannot cite renders in every format:
    its name stands for the label, its source is quoted."""
    mine = tmp_path / "mine.toml"
    mine.write_text(
        '[[bound]]\nname = "my-lower"\nkind = "lower"\nregime = "dense"\npass = "forward"\n'
        'status = "stated"\nasymptotic = "n*d"\nexpression = "2*n*d"\n'
        'source = "my paper, Thm 2"\n'
    )
    for fmt in ("markdown", "latex", "json"):
        code, out, _ = run(capsys, "table", "--catalog", str(mine), "--format", fmt)
        assert code == 0 and "my-lower" in out, fmt
    assert (
        "(my paper, Thm 2)" in run(capsys, "table", "--catalog", str(mine), "--format", "latex")[1]
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["table", "--catalog", "/nonexistent-dir/mine.toml"],
        ["table", "--regime", "quantum"],
        ["table", "--format", "html"],
        ["table", "--bogus"],
        ["nosuchcommand"],
        [],
        ["verify", "--only", "no.such.check"],
        ["table", "--output", "/nonexistent-dir/x.md"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture, argv: list) -> None:
    """Unknown choices, unknown commands and unwritable files give one error line and exit code 2."""
    code, _, err = run(capsys, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attnio: error:")
    assert "Traceback" not in err


def test_console_script_runs() -> None:
    """The installed `attnio` console entry point runs as a separate process."""
    result = subprocess.run(
        [sys.executable, "-m", "attnio.cli", "table", "--kind", "tight"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0 and "dense-forward-tight" in result.stdout
