"""Tests of ``attnio simulate``: one run, JSON, a sweep with its plot, and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attnio.bounds.schema import JSON_SCHEMA_VERSION
from attnio.cli import main


def test_single_run_prints_counts_and_closed_form(capsys):
    """A run prints loads, stores, peak, the closed form (equal) and the numeric error."""
    assert main(["simulate", "flash", "--n", "40", "--d", "4", "--M", "100"]) == 0
    out = capsys.readouterr().out
    for word in ("loads", "stores", "peak memory", "flash-forward-count): equal", "error"):
        assert word in out


def test_json_output_is_complete(capsys):
    """--json prints one object with the counts, the record's value and the error."""
    code = main(
        ["simulate", "low-rank", "--n", "30", "--d", "3", "--M", "500", "--degree", "3", "--json"]
    )
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == JSON_SCHEMA_VERSION and len(data["results"]) == 1
    record = data["results"][0]
    assert code == 0 and record["matches"] is True
    assert record["error"] <= record["error_bound"]
    assert record["io"] == record["loads"] + record["stores"]


def test_mask_file_and_backward(tmp_path, capsys):
    """A block mask given as a .npy file drives block-sparse FlashAttention backward."""
    path = tmp_path / "mask.npy"
    np.save(path, np.eye(5, dtype=bool))
    code = main(
        [
            "simulate",
            "block-sparse-flash",
            "--n",
            "20",
            "--d",
            "4",
            "--M",
            "170",
            "--pass",
            "backward",
            "--mask",
            str(path),
            "--count-only",
            "--json",
        ]
    )
    assert code == 0 and json.loads(capsys.readouterr().out)["results"][0]["matches"] is True


def test_mask_pattern_covered_by_the_blocks(capsys):
    """--mask diagonal runs the block mask that covers the diagonal with the algorithm's
    blocks: the reported point moves 3456 words, equal to the closed form; a pattern with a
    bad width exits 2 naming it."""
    args = ["simulate", "block-sparse-flash", "--n", "64", "--d", "8", "--M", "64"]
    assert main([*args, "--mask", "diagonal", "--count-only", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["results"][0]
    assert record["io"] == 3456 and record["matches"] is True
    assert main([*args, "--mask", "band:x"]) == 2
    assert "'band:x'" in capsys.readouterr().err


def test_sweep_writes_a_png(tmp_path, capsys):
    """--sweep with --plot writes a PNG and prints the measured table."""
    path = tmp_path / "sweep.png"
    code = main(
        [
            "simulate",
            "flash",
            "square-tiling",
            "--n",
            "64",
            "--d",
            "8",
            "--sweep",
            "M=16:2048",
            "--points",
            "8",
            "--plot",
            str(path),
        ]
    )
    assert code == 0 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "square-tiling" in capsys.readouterr().out


def test_sweep_table_prints_exact_counts(capsys):
    """The sweep table prints each count in full (it printed 1.52013e+06 for 1520128)."""
    from attnio.algorithms import simulate

    argv = ["simulate", "square-tiling", "--n", "256", "--d", "16", "--sweep", "M=40:40"]
    assert main(argv) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1].split()
    exact = simulate("square-tiling", "forward", 256, 16, 40, numeric=False).counts.io
    assert last == ["40", str(exact)] and exact >= 10**6


def test_bad_input_exits_2_with_one_line(capsys):
    """Too small M, a wrong mask shape, a bad sweep or a missing file exit 2 with one line."""
    cases = [
        ["simulate", "flash", "--n", "10", "--d", "16", "--M", "20"],
        ["simulate", "flash", "--n", "10", "--d", "2", "--sweep", "M=9:3"],
        [
            "simulate",
            "block-sparse-flash",
            "--n",
            "10",
            "--d",
            "2",
            "--M",
            "40",
            "--mask",
            "/nonexistent/mask.npy",
        ],
        ["simulate", "flash", "flash2", "--n", "10", "--d", "2", "--M", "40"],
        ["simulate", "flash", "--n", "10", "--d", "2", "--M", "40", "--entries", "constant"],
        [
            "simulate",
            "low-rank",
            "--n",
            "8",
            "--d",
            "2",
            "--degree",
            "1",
            "--entries",
            "two-scores",
            "--sweep",
            "M=20:80",
        ],
    ]
    for argv in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("attnio: error:") and err.count("\n") == 1


def test_entries_two_scores_prints_the_known_error(capsys):
    """--entries two-scores runs low-rank on the adversarial input inside [-B, B]; the note
    gives the error known in closed form, which the measured error equals."""
    argv = ["simulate", "low-rank", "--n", "16", "--d", "4", "--M", "200", "--degree", "3",
            "--entry-bound", "0.5", "--entries", "two-scores", "--json"]  # fmt: skip
    assert main(argv) == 0
    (record,) = json.loads(capsys.readouterr().out)["results"]
    known = float(record["note"].split("error known in closed form ")[1].split(" ")[0])
    assert abs(record["error"] - known) <= 5e-3 * known  # the note shows 3 digits
    assert record["error"] <= record["error_bound"]


def test_shape_options_run_a_shape_algorithm(capsys):
    """--n-q, --n-kv, --heads-q, --heads-kv run a shape schedule whose count equals its record."""
    argv = ["simulate", "split-kv-decode", "--n-q", "3", "--n-kv", "100", "--heads-q", "4"]
    assert main([*argv, "--heads-kv", "2", "--d", "8", "--M", "300", "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert result["matches"] is True and result["error"] < 1e-12
    assert result["parameters"]["h_q"] == "4" and result["parameters"]["n_kv"] == "100"


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["gqa-row-streaming", "--n-q", "1", "--n-kv", "9", "--heads-q", "3", "--heads-kv", "2"],
         "multiple of heads_kv=2"),
        (["flash", "--n-q", "1", "--n-kv", "9"], "gqa-row-streaming"),
        (["flash"], "--n is required"),
        (["gqa-row-streaming", "--n-q", "1"], "give --n-kv"),
    ],
)  # fmt: skip
def test_bad_shape_is_one_line_and_exit_2(capsys, argv, match):
    """A shape that does not fit, a shape for a square algorithm, or no size: one line, exit 2."""
    assert main(["simulate", *argv, "--d", "4", "--M", "200"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and match in err, err
