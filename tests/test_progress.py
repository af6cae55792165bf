"""Tests of attnio._progress: one progress line on stderr for long commands, only on a terminal."""

from __future__ import annotations

import io
import json
import re

import pytest

from attnio._progress import ProgressLine
from attnio.cli import main

SWEEP = ["pebble", "--dag", "attention-forward", "--n", "2", "--d", "1", "--sweep", "M=4:6"]
SIMULATE = ["simulate", "flash", "--n", "64", "--d", "8", "--sweep", "M=128:512", "--points", "3"]


class FakeTerminal(io.StringIO):
    """A standard error that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _terminal(monkeypatch) -> FakeTerminal:
    """Replace standard error by a fake terminal. Called in the test body: pytest's
    capture replaces sys.stderr again after the fixtures are set up."""
    stream = FakeTerminal()
    monkeypatch.setattr("sys.stderr", stream)
    return stream


def _lines(text: str) -> list[str]:
    """The ``[k/total] label`` updates written to a terminal, in order."""
    return re.findall(r"\r\x1b\[K(\[\d+/\d+\] [^\r\n]*)", text)


def test_pebble_sweep_shows_each_size_on_a_terminal(capsys, monkeypatch) -> None:
    """A heuristic sweep reports each finished size as [k/total] on one rewritten stderr
    line, erased at the end; stdout is the same as without a terminal, where stderr
    stays empty."""
    terminal = _terminal(monkeypatch)
    assert main(SWEEP) == 0
    shown = terminal.getvalue()
    assert [line.split(":")[0] for line in _lines(shown)] == ["[1/3] M=4", "[2/3] M=5", "[3/3] M=6"]
    assert shown.endswith("\r\x1b[K")
    table = capsys.readouterr().out
    plain = io.StringIO()
    monkeypatch.setattr("sys.stderr", plain)
    assert main(SWEEP) == 0
    assert plain.getvalue() == ""
    seconds = re.compile(r"\s+[\d.]+$")  # the timing column differs between runs
    assert [seconds.sub("", s) for s in capsys.readouterr().out.splitlines()] == [
        seconds.sub("", s) for s in table.splitlines()
    ]


def test_simulate_sweep_shows_each_run_on_a_terminal(capsys, monkeypatch) -> None:
    """A simulate sweep reports each finished run (algorithm and M) as [k/total]."""
    terminal = _terminal(monkeypatch)
    assert main(SIMULATE) == 0
    lines = _lines(terminal.getvalue())
    assert lines[0].startswith("[1/3] flash M=") and lines[-1].startswith("[3/3] flash M=")
    assert "M" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [[*SWEEP, "--json"], [*SIMULATE, "--json"]])
def test_no_progress_with_json(capsys, monkeypatch, argv) -> None:
    """--json output is for programs: no progress line, even on a terminal."""
    terminal = _terminal(monkeypatch)
    assert main(argv) == 0
    assert terminal.getvalue() == ""
    assert json.loads(capsys.readouterr().out)["results"]


def test_no_progress_when_stderr_is_not_a_terminal(monkeypatch) -> None:
    """Piped or redirected standard error gets no progress line."""
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    with ProgressLine() as line:
        line.update(1, 2, "first")
    assert not line.shown and stream.getvalue() == ""


def test_interrupt_keeps_the_last_line(monkeypatch) -> None:
    """When Ctrl-C leaves the block, the last line stays (ended by a newline) to say where
    the work stopped."""
    terminal = _terminal(monkeypatch)
    with pytest.raises(KeyboardInterrupt), ProgressLine() as line:
        line.update(1, 3, "first")
        raise KeyboardInterrupt
    assert terminal.getvalue() == "\r\x1b[K[1/3] first\n"


def test_check_reports_each_claim(tmp_path, capsys, monkeypatch) -> None:
    """attnio check shows each claim as it is checked, through the same line."""
    terminal = _terminal(monkeypatch)
    path = tmp_path / "claims.toml"
    path.write_text(
        '[[bound]]\nname = "compulsory"\nkind = "lower"\nregime = "dense"\npass = "backward"\n'
        'expression = "8*n*d + n"\n',
        encoding="utf-8",
    )
    assert main(["check", str(path), "--skip", "pebbling", "--skip", "counting"]) == 0
    assert _lines(terminal.getvalue()) == ["[1/1] compulsory"]
