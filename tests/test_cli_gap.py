"""Tests of ``attnio gap`` (attnio/_cli_gap.py): text, JSON keys, --count, bad input."""

from __future__ import annotations

import json

import pytest

from attnio.cli import main

POINT = ["--n", "65536", "--d", "128", "--M", "65536"]
SPARSE = ["--regime", "sparse", "--pass", "forward"]


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
    assert payload["upper"]["record"] == "low-rank-columns-backward-count"
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
        (["--regime", "sparse", "--pass", "forward", *POINT], "needs --mask"),
        ([*SPARSE, "--mask", "window", "--window", "70000", *POINT], "window=70000 does not fit"),
        ([*SPARSE, "--mask", "causal", "--window", "8", *POINT], "--window 8 applies only"),
        ([*SPARSE, "--mask", "block", *POINT], "--block-mask"),
        (["--regime", "dense", "--mask", "causal", "--pass", "forward", *POINT], "applies to"),
        (["--regime", "approximate", "--method", "taylor", "--pass", "forward", *POINT], "taylor"),
        (["--degree", "2", "--pass", "forward", *POINT], "approximate only"),
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


@pytest.mark.parametrize(
    ("mask", "pass_", "d", "M"),
    [
        (mask, pass_, d, M)
        for mask in (["causal"], ["window", "--window", "1024"])
        for pass_ in ("forward", "backward")
        for d, M in ((256, 256**2 // 16), (128, 128**2), (64, 16 * 64**2))
    ],
)
def test_a_masked_gap_is_at_least_one(capsys, mask: list, pass_: str, d: int, M: int) -> None:
    """--regime sparse --mask causal / window: JSON with ratio, lower and upper, the mask's
    family, Z and w; the lower end is the compulsory I/O or, for the causal mask at every M
    and the window at M >= d^2, one of its pair bounds (causal-lower.md), whichever is
    larger, and the upper a derived count of the family, so the ratio is at least 1 at
    every point; both notes name the pair bounds' derivation, the window's says its
    small-cache bounds are not recorded."""
    argv = ["gap", "--regime", "sparse", "--mask", *mask, "--pass", pass_, "--n", "65536",
            "--d", str(d), "--M", str(M), "--json"]  # fmt: skip
    assert main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    for end in ("lower", "upper"):
        assert {"record", "value"} <= set(payload[end]), end
    lowers = {r["record"]: r["value"] for r in payload["derived_lowers"]}
    assert f"sparse-{pass_}-compulsory" in lowers
    pairs = any(name.startswith(f"{mask[0]}-{pass_}-lower-") for name in lowers)
    assert pairs == (mask[0] == "causal" or M >= d * d)  # the window's: large cache only
    assert payload["lower"]["record"] == max(lowers, key=lowers.get)
    assert payload["upper"]["record"].startswith(mask[0] + "-")
    assert payload["ratio"] >= 1 and payload["constant"] is None
    assert payload["mask"]["family"] == mask[0] and payload["mask"]["Z"] == payload["point"]["Z"]
    assert payload["mask"]["w"] == (1024 if mask[0] == "window" else None)
    assert "proofs/derivations/causal-lower.md" in payload["note"]
    assert ("below M = d^2" in payload["note"]) == (mask[0] == "window")


def test_a_mask_file_and_a_block_mask_are_read(tmp_path, capsys) -> None:
    """--mask FILE.json (an n x n array) and --mask block --block-mask FILE reach the gap:
    Z is the array's true entries; with no derived count for them, --count gives the upper
    end."""
    array = tmp_path / "mask.json"
    array.write_text(json.dumps([[j <= i for j in range(8)] for i in range(8)]))
    blocks = tmp_path / "blocks.json"
    blocks.write_text(json.dumps([[True, False], [True, True]]))
    small = ["--pass", "forward", "--n", "8", "--d", "4", "--M", "64", "--json"]
    for mask in (["--mask", str(array)], ["--mask", "block", "--block-mask", str(blocks)]):
        assert main(["gap", "--regime", "sparse", *mask, *small, "--count", "Z*d"]) == 0
        payload = json.loads(capsys.readouterr().out)
        z = 36 if mask[1] == str(array) else 48
        assert payload["point"]["Z"] == z and payload["upper"]["value"] == z * 4


@pytest.mark.parametrize(
    "command",
    [
        "attnio gap --regime dense --pass forward --n 65536 --d 128 --M 65536",
        "attnio gap --regime sparse --mask causal --pass forward --n 65536 --d 128 --M 65536",
    ],
)
def test_the_commands_page_shows_what_the_example_prints(capsys, command: str) -> None:
    """docs/commands.md's console blocks of attnio gap (dense, masked) are the command's
    real output."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "commands.md").read_text()
    shown = page.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    assert main(command.split()[1:]) == 0
    assert capsys.readouterr().out == shown


DECODE = ["--n-q", "1", "--n-kv", "65536", "--heads-q", "32", "--heads-kv", "8"]


def test_shape_point_uses_shape_records_with_the_same_keys(capsys) -> None:
    """The decode example of docs/notation.md's shapes: same JSON keys, the shape compulsory bound below the
    group-aware schedule, and the note says the ratio is honest only if the cache is read once."""
    argv = ["gap", "--regime", "dense", "--pass", "forward", *DECODE, "--d", "128", "--M", "65536"]
    assert main([*argv, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["lower"]["record"] == "shape-forward-compulsory"
    assert payload["upper"]["record"] == "gqa-row-streaming-forward-count"
    assert payload["ratio"] == pytest.approx(payload["upper"]["value"] / payload["lower"]["value"])
    assert 1 <= payload["ratio"] < 1.001 and "reads the KV cache once" in payload["note"]
    assert payload["point"] == {"n_q": 1, "n_kv": 65536, "h_q": 32, "h_kv": 8, "d": 128, "M": 65536}


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--n-q", "1", "--n-kv", "64", "--heads-q", "6", "--heads-kv", "4"], "multiple"),
        (["--n-q", "1", "--heads-q", "4"], "give --n-kv"),
        (["--n-q", "0", "--n-kv", "4"], "--n-q: 0 must be"),
    ],
)
def test_bad_shape_is_one_line_and_exit_2(capsys, argv: list, match: str) -> None:
    """A shape whose heads do not group, a missing size or a zero size: one line, exit 2."""
    assert main(["gap", "--pass", "forward", *argv, "--d", "8", "--M", "500"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and match in err, err
