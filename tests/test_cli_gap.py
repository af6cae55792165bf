"""Tests of ``attnio gap`` (attnio/_cli_gap.py): text, JSON keys, --count, bad input."""

from __future__ import annotations

import json

import pytest

from attnio.cli import main

POINT = ["--n", "65536", "--d", "128", "--M", "65536"]


def test_json_has_ratio_lower_and_upper_with_record_and_value(capsys) -> None:
    """--json: "ratio" a number equal to upper / lower, and "lower" and "upper" each with
    "record" and "value"; the lower bound is derived, the upper a schedule's count."""
    assert main(["gap", "--regime", "dense", "--pass", "forward", *POINT, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert {"ratio", "lower", "upper", "point", "cell", "constant", "schema"} <= set(payload)
    assert isinstance(payload["ratio"], float)
    for end in ("lower", "upper"):
        assert {"record", "value"} <= set(payload[end]), end
    assert payload["lower"]["status"] == "derived" and payload["upper"]["algorithm"]
    assert payload["ratio"] == pytest.approx(payload["upper"]["value"] / payload["lower"]["value"])
    assert payload["point"] == {"n": 65536, "d": 128, "M": 65536} and payload["cell"] == "large"
    constant = payload["constant"]
    assert constant["applies_here"] and constant["refuted"] < constant["proved"]
    assert payload["ratio"] <= constant["proved"]


def test_text_names_schedule_lower_bound_ratio_and_evidence(capsys) -> None:
    """The text names the best schedule and lower bound with their records, the ratio and
    what each rests on."""
    assert main(["gap", "--pass", "backward", "--n", "8192", "--d", "64", "--M", "1024"]) == 0
    out = capsys.readouterr().out
    assert "best schedule" in out and "best derived lower" in out and "ratio" in out
    assert "combinatorial lemmas proved by hand" in out and "small cache" in out


def test_approximate_json_has_the_same_interface(capsys) -> None:
    """--regime approximate --method polynomial --degree 2: ratio, lower and upper with record
    and value, and the method with its degree and rank."""
    argv = ["gap", "--regime", "approximate", "--method", "polynomial", "--degree", "2"]
    assert main([*argv, "--pass", "backward", "--n", "65536", "--d", "32", "--M", "16384",
                 "--json"]) == 0  # fmt: skip
    payload = json.loads(capsys.readouterr().out)
    assert payload["lower"]["record"] == "polynomial-backward-compulsory"
    assert payload["upper"]["record"] == "low-rank-backward-count"
    assert payload["ratio"] == pytest.approx(payload["upper"]["value"] / payload["lower"]["value"])
    assert payload["method"] == {"name": "polynomial", "degree": 2, "r": 561}


def test_count_replaces_the_best_schedule(capsys) -> None:
    """--count EXPR: the user's count is the upper end, its record --count."""
    code = main(["gap", "--pass", "forward", *POINT, "--count", "2*n**2*d**2/M", "--json"])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["upper"]["record"] == "--count"
    assert payload["upper"]["value"] == 2 * 65536**2 * 128**2 // 65536
    assert payload["constant"] is None


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--pass", "forward", "--n", "0", "--d", "4", "--M", "64"], "--n: 0 must be"),
        (["--pass", "forward", "--n", "64", "--d", "64", "--M", "2"], "no schedule"),
        (["--regime", "sparse", "--pass", "forward", *POINT], "not yet"),
        (["--regime", "approximate", "--method", "taylor", "--pass", "forward", *POINT], "taylor"),
        (["--degree", "2", "--pass", "forward", *POINT], "approximate only"),
        (["--regime", "dense", "--mask", "causal", "--pass", "forward", *POINT], "not yet"),
        (["--regime", "quantum", "--pass", "forward", *POINT], "not one of"),
        (["--pass", "sideways", *POINT], "invalid choice"),
        (["--pass", "forward", *POINT, "--count", "import os"], "--count"),
        (["--pass", "forward", "--d", "4", "--M", "64"], "give --n"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv: list, match: str) -> None:
    """Nonpositive sizes, a point where nothing runs, regimes and masks not covered yet and
    a bad count: one line on standard error, exit 2."""
    assert main(["gap", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and match in err, err


def test_the_commands_page_shows_what_the_example_prints(capsys) -> None:
    """docs/commands.md's console block of attnio gap is the command's real output."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "commands.md").read_text()
    command = "attnio gap --regime dense --pass forward --n 65536 --d 128 --M 65536"
    shown = page.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    assert main(command.split()[1:]) == 0
    assert capsys.readouterr().out == shown
