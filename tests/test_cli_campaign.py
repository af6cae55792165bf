"""Tests of ``attnio campaign``: run, report, export; bad input is one line and exit 2."""

from __future__ import annotations

import json
import pathlib

import pytest

from attnio.cli import main

SPEC = """
[[pebble]]
dag = "attention-forward"
n = 1
d = 1
M = [3, 4]
solvers = ["exact", "lru"]
"""


def test_run_then_report_then_export(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture) -> None:
    """The second run comes from the store; the report and export read what the runs wrote."""
    spec, store = tmp_path / "spec.toml", tmp_path / "r.sqlite"
    spec.write_text(SPEC)
    assert main(["campaign", str(spec), "--store", str(store), "--workers", "0"]) == 0
    assert "4 ran" in capsys.readouterr().out
    assert main(["campaign", str(spec), "--store", str(store), "--workers", "0"]) == 0
    assert "4 from the store, 0 ran" in capsys.readouterr().out
    assert main(["campaign", "report", "--store", str(store), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["refutations"] == [] and report["optima"]
    out = tmp_path / "r.csv"
    assert main(["campaign", "export", "--store", str(store), "-o", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 5


def test_infeasible_memory_is_a_skipped_unit(tmp_path: pathlib.Path, capsys) -> None:
    """A simulate unit below the algorithm's least feasible M is listed as skipped with
    the reason, and the campaign exits 0 (it used to fail with exit 1)."""
    spec, store = tmp_path / "spec.toml", tmp_path / "r.sqlite"
    spec.write_text('[[simulate]]\nalgorithm = "flash"\nn = 8\nd = 4\nM = [3, 64]\n')
    assert main(["campaign", str(spec), "--store", str(store), "--workers", "0"]) == 0
    out = capsys.readouterr().out
    assert "1 ran, 0 failed, 1 skipped" in out
    assert any(line.startswith("skipped: ") and "M=3" in line for line in out.splitlines())


def test_a_unit_another_run_holds_is_reported_not_run(tmp_path: pathlib.Path, capsys) -> None:
    """A unit claimed by another live run is left to it: the summary says so, the store
    lacks it, and the exit code is 0 (nothing failed)."""
    from attnio.campaign import Store, read_spec

    spec, store = tmp_path / "spec.toml", tmp_path / "r.sqlite"
    spec.write_text(SPEC)
    with Store(store) as opened:
        assert opened.claim(read_spec(spec).units[0], "another run", 3600) == "claimed"
    assert main(["campaign", str(spec), "--store", str(store), "--workers", "0"]) == 0
    assert "0 from the store, 3 ran, 0 failed, 1 claimed by another run" in capsys.readouterr().out
    with Store(store) as opened:
        assert len(opened) == 3


def test_two_processes_on_one_store_run_each_unit_once(tmp_path: pathlib.Path) -> None:
    """Two `attnio campaign` processes of one spec started at once on one store together
    run every unit once: their "ran" counts add up to the number of units, both exit 0
    and the store holds every unit (issue 40: both ran all 52)."""
    import re
    import subprocess
    import sys

    spec, store = tmp_path / "spec.toml", tmp_path / "r.sqlite"
    spec.write_text(
        SPEC.replace("M = [3, 4]", "M = [3, 4, 5, 6, 8]").replace("d = 1", "d = [1, 2]")
    )
    command = [sys.executable, "-m", "attnio", "campaign", str(spec), "--store", str(store),
               "--workers", "0"]  # fmt: skip
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [run.communicate(timeout=300)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outs
    ran = [int(re.search(r"(\d+) ran", out).group(1)) for out in outs]
    from attnio.campaign import Store, read_spec

    total = len(read_spec(spec).units)
    assert sum(ran) == total, outs
    with Store(store) as opened:
        assert len(opened) == total and opened.claims() == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["campaign", "missing.toml", "--workers", "0"], "missing.toml"),
        (["campaign", "report", "--store", "missing.sqlite"], "does not exist"),
        (["campaign", "SPEC", "--workers", "-1"], "--workers"),
        (["campaign", "SPEC", "--workers", "1", "--scheduler", "tcp://127.0.0.1:1"], "not both"),
        (["campaign", "report", "--store", "STORE", "--format", "csv"], "export"),
        (["campaign", "report", "--store", "STORE", "-o", "/no/such/dir/x.md"], "does not exist"),
        (["campaign", "SPEC", "--format", "latex"], "apply to 'report'"),
        (["campaign", "SPEC", "--workers", "0", "--time-limit", "3"], "--time-limit 3 needs"),
        (["campaign", "SPEC", "--time-limit", "0"], "--time-limit: 0 must be a finite number > 0"),
        (["campaign", "SPEC", "--time-limit", "soon"], "--time-limit: 'soon' is not a number"),
        (["campaign", "SPEC", "--time-limit", "-2"], "--time-limit: -2 must be"),
        (["campaign", "report", "--store", "STORE", "--time-limit", "3"], "--claim-expiry apply"),
        (["campaign", "SPEC", "--claim-expiry", "0"], "--claim-expiry: 0 must be a finite"),
        (["campaign", "report", "--store", "STORE", "--claim-expiry", "9"], "to report"),
    ],
)
def test_bad_input_is_one_line(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture, argv: list[str], message: str
) -> None:
    """Each bad invocation exits 2 with one line on stderr naming the problem."""
    spec, store = tmp_path / "spec.toml", tmp_path / "r.sqlite"
    spec.write_text(SPEC)
    from attnio.campaign import Store

    Store(store).close()
    argv = [str(spec) if a == "SPEC" else str(store) if a == "STORE" else a for a in argv]
    argv = [str(tmp_path / a) if a.startswith("missing") else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err
