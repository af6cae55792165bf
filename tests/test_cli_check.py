"""Tests of ``attnio check`` (attnio/_cli_check.py): verdicts, JSON, exit codes, bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attnio.bounds.schema import JSON_SCHEMA_VERSION
from attnio.cli import main
from attnio.pebble import load_dag, read_moves, replay

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "claims.toml"
QUICK = ["--skip", "pebbling", "--skip", "counting"]

TRUE_CLAIM = """
[[bound]]
name = "compulsory"
kind = "lower"
regime = "dense"
pass = "backward"
expression = "8*n*d + n"
"""

PEBBLE_REFUTED = """
[[bound]]
name = "nine-words"
kind = "lower"
regime = "dense"
pass = "forward"
expression = "9"
conditions = "n == 2 and d == 1 and M == 6"
"""


def _write(tmp_path: Path, text: str, name: str = "claims.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.slow
def test_the_readme_shows_what_the_example_prints() -> None:
    """The README's example output has the example's verdict lines (seconds aside)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "$ attnio check examples/claims.toml" in readme
    assert "flash2-forward-upper: proved" in readme
    assert "quadratic-lower: refuted" in readme
    example = EXAMPLE.read_text(encoding="utf-8")
    assert example.split("[[bound]]", 1)[1].strip() in readme


def _console_block(page: str = "README.md") -> list[str]:
    """The lines ``page`` shows for ``attnio check examples/claims.toml`` (prompt, the
    ``echo $?`` that follows and its answer left out)."""
    readme = (ROOT / page).read_text(encoding="utf-8")
    block = readme.split("$ attnio check examples/claims.toml\n", 1)[1].split("```", 1)[0]
    return block.split("$ echo $?", 1)[0].splitlines()


def _without_seconds(lines: list[str]) -> list[str]:
    """``lines`` with the table's seconds cells blanked and trailing spaces dropped."""
    return [re.sub(r" *\d+\.\d(?= │$)", " #", line.rstrip()) for line in lines]


@pytest.mark.slow
def test_the_readme_output_is_what_the_example_prints(capsys, monkeypatch) -> None:
    """examples/claims.toml (in the README): the FlashAttention-2 upper bound is proved from
    its derived count, the quadratic lower bound is refuted, exit 1; and the README's
    console block is the command's real output, line by line (only the seconds column may
    differ), with the README's exit code, and so is docs/commands.md's. (One run of the
    example: the JSON form is tested on a quick claim by test_json_has_one_object_per_claim.)"""
    monkeypatch.setenv("COLUMNS", "100")
    code = main(["check", str(EXAMPLE)])
    out = capsys.readouterr().out
    assert code == 1
    assert re.search(r"flash2-forward-upper\s.*\bproved\b", out), out
    assert re.search(r"quadratic-lower\s.*\brefuted\b", out), out
    shown = _console_block()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"$ echo $?\n{code}\n" in readme
    assert _without_seconds(out.splitlines()) == _without_seconds(shown)
    commands = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert f"$ echo $?\n{code}\n" in commands
    shown = _console_block("docs/commands.md")
    assert _without_seconds(out.splitlines()) == _without_seconds(shown), "docs/commands.md"


def test_json_has_one_object_per_claim(tmp_path, capsys) -> None:
    """--json: one object {schema, partial, results} whatever the number of claims, one
    result per claim with name, verdict and a list of evidence items."""
    path = _write(tmp_path, TRUE_CLAIM)
    assert main(["check", str(path), "--json", *QUICK]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {"schema", "partial", "results"}
    assert payload["schema"] == JSON_SCHEMA_VERSION and payload["partial"] is False
    (row,) = payload["results"]
    assert row["name"] == "compulsory" and row["verdict"] == "proved"
    assert {"check", "verdict", "summary", "point"} <= set(row["evidence"][0])


def test_table_names_each_claim_and_verdict(tmp_path, capsys) -> None:
    """The terminal table lists each claim with its verdict; exit 0 when none is refuted."""
    path = _write(tmp_path, TRUE_CLAIM)
    assert main(["check", str(path), *QUICK]) == 0
    out = capsys.readouterr().out
    assert "compulsory" in out and "proved" in out and "not proofs" in out


def test_refutations_write_replayable_evidence(tmp_path, capsys) -> None:
    """A lower bound above a proven optimum exits 1 and --evidence-dir writes a DAG and
    moves that replay to the optimum it names."""
    path = _write(tmp_path, PEBBLE_REFUTED)
    folder = tmp_path / "evidence"
    code = main(["check", str(path), "--json", "--skip", "z3", "--skip", "counting",
                 "--evidence-dir", str(folder)])  # fmt: skip
    assert code == 1
    (row,) = json.loads(capsys.readouterr().out)["results"]
    item = next(e for e in row["evidence"] if e["verdict"] == "refuted")
    dag = load_dag(item["certificate"].replace(".moves.jsonl", ".dag.json"))
    assert replay(dag, read_moves(item["certificate"], dag), 6).io == item["other_value"] == 8
    assert item["point"] == {"n": 2, "d": 1, "M": 6}


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[[bound]]\nname = 'x'\n", r"missing field\(s\)"),
        (TRUE_CLAIM.replace("8*n*d + n", "8*n*q"), "unknown symbol 'q'"),
        (TRUE_CLAIM.replace("8*n*d + n", "__import__('os').getcwd()"), "not allowed"),
        (TRUE_CLAIM + "conditions = 'M < d and d < M'\n", "admits no point"),
        (
            TRUE_CLAIM.replace('"lower"', '"upper"') + "algorithm = 'flashattention'\n",
            "'algorithm' = 'flashattention' is not one of",
        ),
        ("not toml [", "not valid TOML"),
        ("", r"no \[\[bound\]\] table"),
    ],
)
def test_bad_input_is_one_line_and_exit_two(tmp_path, capsys, text: str, match: str) -> None:
    """Bad claims files give one line on stderr naming the problem and exit 2."""
    path = _write(tmp_path, text)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and re.search(match, err)


def test_missing_file_is_bad_input(tmp_path, capsys) -> None:
    """A file that does not exist is exit 2 naming the file."""
    assert main(["check", str(tmp_path / "none.toml")]) == 2
    assert "none.toml" in capsys.readouterr().err


def test_no_traceback_from_the_installed_command(tmp_path) -> None:
    """The console script prints no traceback on a hostile expression."""
    path = _write(tmp_path, TRUE_CLAIM.replace("8*n*d + n", "().__class__.__mro__"))
    done = subprocess.run(
        [sys.executable, "-m", "attnio.cli", "check", str(path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_one_claim_from_the_command_line_is_checked_as_from_a_file(tmp_path, capsys) -> None:
    """--claim 'KIND: EXPRESSION' with --regime, --pass and --cache gives the verdict and the
    evidence the same claim gets from a TOML file."""
    path = _write(tmp_path, TRUE_CLAIM.replace('name = "compulsory"', 'name = "claim"'))
    assert main(["check", str(path), "--json", *QUICK]) == 0
    from_file = json.loads(capsys.readouterr().out)["results"]
    argv = ["check", "--claim", "lower: 8*n*d + n", "--regime", "dense", "--pass", "backward"]
    assert main([*argv, "--json", *QUICK]) == 0
    from_line = json.loads(capsys.readouterr().out)["results"]
    strip = [{**row, "seconds": 0, "evidence": [{**e, "seconds": 0} for e in row["evidence"]]}
             for row in (*from_file, *from_line)]  # fmt: skip
    assert strip[0] == strip[1] and strip[0]["verdict"] == "proved"


def test_the_quick_path_passes_every_field(capsys) -> None:
    """--condition, --algorithm and --name reach the claim: an upper bound on flash2 below
    its count where the condition holds is refuted and named as asked; exit 1."""
    argv = ["check", "--claim", "upper: n*d", "--regime", "dense", "--pass", "forward",
            "--algorithm", "flash2", "--condition", "M >= 5*d + 3", "--name", "too-low",
            "--json", *QUICK]  # fmt: skip
    assert main(argv) == 1
    (row,) = json.loads(capsys.readouterr().out)["results"]
    assert row["name"] == "too-low" and row["verdict"] == "refuted"
    assert any("flash2" in e["against"] for e in row["evidence"] if e["verdict"] == "refuted")


SPARSE_CLAIM = ["--claim", "lower: n", "--regime", "sparse", "--pass", "forward"]


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        ([], "give FILE"),
        (["--claim", "lower 5*n*d", "--regime", "dense", "--pass", "forward"], "KIND: EXPR"),
        (["--claim", "lower: n", "--regime", "dense"], "needs --pass"),
        (["--claim", "lower: n", "--regime", "dens", "--pass", "forward"], "'dens' is not one"),
        (["--claim", "upper: Omega(n)", "--regime", "dense", "--pass", "forward"], "is Omega"),
        (
            [
                "--claim",
                "lower: n",
                "--regime",
                "dense",
                "--pass",
                "forward",
                "--algorithm",
                "flash",
            ],
            "names the algorithm of an upper bound",
        ),
        ([str(EXAMPLE), "--regime", "dense"], "give FILE or --claim, not both"),
        ([str(EXAMPLE), "--mask", "causal"], "--mask describes a claim given with --claim"),
        ([*SPARSE_CLAIM, "--mask", "causal", "--window", "4"], "field 'window' = 4 needs mask"),
        ([*SPARSE_CLAIM, "--mask", "stripes"], "stripes"),
    ],
)
def test_bad_quick_claims_are_one_line_and_exit_two(capsys, argv: list, match: str) -> None:
    """A malformed or incomplete --claim, or --claim options given with FILE, is one line
    on stderr naming the problem, exit 2."""
    assert main(["check", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and re.search(match, err)


def _shipped_catalog() -> Path:
    import importlib
    from importlib import resources

    name = importlib.import_module("attnio.bounds.catalog").CATALOG_FILE
    return Path(str(resources.files("attnio.bounds").joinpath(name)))


def _no_seconds(rows: list) -> list:
    return [{**row, "seconds": 0, "evidence": [{**e, "seconds": 0} for e in row["evidence"]]}
            for row in rows]  # fmt: skip


def test_the_catalog_is_checked_as_claims_without_itself(capsys) -> None:
    """attnio check --catalog (z3 only, three records: a derived lower bound, a stated
    order, an open record) gives each record its verdict, never with itself as evidence;
    the shipped catalog file given as FILE is checked the same way."""
    chosen = "dense-forward-compulsory,flash-forward-upper,sparse-backward-upper"
    assert main(["check", "--catalog", "--records", chosen, "--json", *QUICK]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    verdicts = {row["name"]: row["verdict"] for row in rows}
    assert verdicts == {
        "dense-forward-compulsory": "consistent-with-catalog",
        "flash-forward-upper": "unknown",
        "sparse-backward-upper": "unknown",
    }
    assert all(row["name"] not in e["against"] for row in rows for e in row["evidence"])
    assert "nothing to check" in rows[2]["summary"]
    argv = ["check", str(_shipped_catalog()), "--records", chosen, "--json", *QUICK]
    assert main(argv) == 0
    assert _no_seconds(json.loads(capsys.readouterr().out)["results"]) == _no_seconds(rows)


def test_every_catalog_record_goes_through_the_command(capsys) -> None:
    """attnio check --catalog reads every record of the shipped catalog and reports one
    verdict each, none refuted (every check skipped but the conditions: seconds)."""
    from attnio.bounds import catalog

    argv = ["check", "--catalog", "--json", "--skip", "z3", *QUICK]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    assert [row["name"] for row in rows] == [record.name for record in catalog()]
    assert not any(row["verdict"] == "refuted" for row in rows)


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--catalog", str(EXAMPLE)], "give FILE or --catalog"),
        (["--catalog", "--claim", "lower: n"], "give --catalog or --claim"),
        (["--catalog", "--regime", "dense"], "--regime describes a claim"),
        ([str(EXAMPLE), "--records", "flash-*"], "--records chooses records"),
        (["--catalog", "--records", "no-such-*"], "matches no record"),
    ],
)
def test_bad_catalog_options_are_one_line_and_exit_two(capsys, argv: list, match: str) -> None:
    """--catalog with FILE or a --claim's fields, --records without --catalog or matching
    nothing: one line naming the problem, exit 2."""
    assert main(["check", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and match in err, err
