"""Tests of attnio.cli, attnio._cli_table and attnio._cli_verify: commands and error paths."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

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
                    r"^(\$(Q \\[gl]eq|\\mathrm\{I/O\} =) ).*", r"\1", cells[1], flags=re.S
                )
                found.append((what, cells[0].replace("\\-", ""), bound, cells[-1]))
    sides = {"lower": "lower bounds", "upper": "tight and upper bounds"}
    expected = [
        (
            f"{b.regime.value.capitalize()} attention, {b.pass_.value} pass, "
            + (
                "algorithms' exact I/O counts"
                if is_exact_count(b)
                else sides["lower" if b.kind.value == "lower" else "upper"]
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


@pytest.fixture
def cache_home(tmp_path, monkeypatch) -> Path:
    """An empty $XDG_CACHE_HOME, so verify neither reads nor fills the user's caches."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path


def test_verify_bounds_suite_passes(capsys: pytest.CaptureFixture, cache_home) -> None:
    """attnio verify --only 'bounds.*' runs the catalog checks and exits 0 with a summary line."""
    code, out, _ = run(capsys, "verify", "--only", "bounds.c*")
    assert code == 0
    assert "passed, 0 failed" in out


def test_verify_only_takes_several_globs(capsys: pytest.CaptureFixture, cache_home) -> None:
    """--only with comma-separated globs runs the checks matching any of them, in order."""
    code, out, _ = run(capsys, "verify", "--json", "--only", "bounds.crossovers,bounds.min_*")
    assert code == 0
    names = [r["check"] for r in json.loads(out)["results"]]
    assert names == ["bounds.crossovers", "bounds.min_branches"]


def test_verify_json_reports_each_check(capsys: pytest.CaptureFixture, cache_home) -> None:
    """attnio verify --json reports every selected check with a pass/fail/skip value."""
    code, out, _ = run(capsys, "verify", "--json", "--only", "bounds.crossovers")
    data = json.loads(out)
    assert code == 0 and data["failed"] == 0
    assert [r["check"] for r in data["results"]] == ["bounds.crossovers"]
    assert data["results"][0]["passed"] is True


def test_verify_reports_each_finished_check_on_stderr(
    capsys: pytest.CaptureFixture, cache_home
) -> None:
    """Not on a terminal, verify still prints one line per finished check with its time on
    standard error, so a piped or CI run is never silent."""
    code, _, err = run(capsys, "verify", "--only", "bounds.c*")
    lines = err.strip().splitlines()
    assert code == 0 and len(lines) >= 3, err
    for index, line in enumerate(lines, start=1):
        assert line.startswith(f"[{index}/{len(lines)}] bounds.c") and line.endswith(" s)"), line
        assert ": pass (" in line


def test_verify_says_what_the_default_tier_left_out(
    capsys: pytest.CaptureFixture, monkeypatch, tmp_path
) -> None:
    """With a proofs check, the default tier names what it left out and how to run it; the
    thorough tier leaves nothing out. JSON carries the same note."""
    from attnio.proofs import suite

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(suite, "THOROUGH_ONLY", ("comparison/planted-not-a-name",))
    code, out, _ = run(capsys, "verify", "--only", "proofs.planted_refuted")
    assert code == 0 and "run them: attnio verify --thorough" in out
    code, out, _ = run(capsys, "verify", "--only", "proofs.planted_refuted", "--thorough")
    assert code == 0 and "left out" not in out
    code, out, _ = run(capsys, "verify", "--only", "proofs.planted_refuted", "--json")
    assert json.loads(out)["left_out"].startswith("left out: 0 open obligation(s)")


@pytest.mark.slow
def test_verify_thorough_passes_every_check(capsys, monkeypatch, tmp_path) -> None:
    """attnio verify --thorough --no-cache passes every check, each saying what it compared:
    the suite's one run of every check and one proof of the whole obligation catalog (every
    expected-true obligation proved, every recorded constant re-proved, every planted claim
    refuted, every SMT-LIB export re-solved without contradiction), with nothing left out.

    One exception keeps the suite within its time: claims.catalog_records runs its default
    tier here (the catalog's records through the closed-form counts). Its thorough tier,
    the whole claims pipeline on every record (about ten minutes on one core), is what
    attnio check --catalog runs; tests/test_claims_catalog.py tests both tiers' choice."""
    from attnio.claims import verification as claims_verification

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setitem(claims_verification.TIERS, True, claims_verification.TIERS[False])
    code, out, err = run(capsys, "verify", "--thorough", "--no-cache", "--json")
    data = json.loads(out)
    assert code == 0 and data["failed"] == 0, [r for r in data["results"] if not r["passed"]]
    assert data["left_out"] == "" and data["partial"] is False
    assert all(r["detail"] for r in data["results"]), data["results"]
    names = {r["check"] for r in data["results"]}
    assert {"proofs.obligations", "proofs.smtlib_round_trip", "proofs.derived_status"} <= names
    assert "claims.catalog_records" in names
    assert all(f"] {name}: pass (" in err for name in names), err  # progress, not a tty
    assert not (tmp_path / "attnio" / "proofs").exists()  # --no-cache wrote nothing


def test_verify_exits_1_when_a_check_fails(
    capsys: pytest.CaptureFixture, monkeypatch, cache_home
) -> None:
    """A failing (or crashing) check makes verify exit 1 and shows FAIL."""
    from attnio import _cli_verify

    def failing():
        """A planted failure."""
        raise RuntimeError("boom")

    monkeypatch.setattr(_cli_verify, "collect", lambda pattern=None: [("planted.fail", failing)])
    code, out, _ = run(capsys, "verify")
    assert code == 1 and "FAIL" in out and "boom" in out


def _planted(monkeypatch, **verdicts: bool | None) -> dict[str, int]:
    """Make verify run one planted check per keyword (its verdict the value); return the
    number of times each ran."""
    from attnio import _cli_verify

    calls = dict.fromkeys(verdicts, 0)

    def make(name: str, verdict: bool | None):
        def check() -> tuple[bool | None, str]:
            """A planted check."""
            calls[name] += 1
            return verdict, f"{name} detail"

        return check

    checks = [(f"planted.{name}", make(name, verdict)) for name, verdict in verdicts.items()]
    monkeypatch.setattr(_cli_verify, "collect", lambda pattern=None: checks)
    return calls


def test_verify_second_run_takes_every_check_from_the_result_cache(
    capsys, monkeypatch, cache_home
) -> None:
    """Run again with nothing changed, verify runs no check: every passed or skipped result
    comes from the result cache, each row says so (JSON: ``cached``; the table: the detail
    starts with ``cached:``) and the note counts them and names --no-cache."""
    calls = _planted(monkeypatch, passes=True, skips=None)
    code, out, _ = run(capsys, "verify", "--json")
    data = json.loads(out)
    assert code == 0 and data["cached"] == 0 and calls == {"passes": 1, "skips": 1}
    assert not any(r["cached"] for r in data["results"])
    code, out, err = run(capsys, "verify", "--json")
    data = json.loads(out)
    assert code == 0 and calls == {"passes": 1, "skips": 1}
    assert data["cached"] == 2 and all(r["cached"] for r in data["results"])
    assert [(r["passed"], r["detail"]) for r in data["results"]] == [
        (True, "passes detail"),
        (None, "skips detail"),
    ]
    assert "planted.passes: pass (cached, " in err
    code, out, _ = run(capsys, "verify")
    assert code == 0 and calls == {"passes": 1, "skips": 1}
    assert "cached: passes detail" in out and "cached: skips detail" in out
    assert "2 of 2 checks answered from the result cache" in out
    assert "attnio verify --no-cache" in out


def test_verify_runs_a_real_check_once_then_from_the_cache(capsys, cache_home) -> None:
    """A real (cheap) check passes, is stored, and the next run reads it back unchanged."""
    code, out, _ = run(capsys, "verify", "--json", "--only", "bounds.crossovers")
    first = json.loads(out)["results"][0]
    assert code == 0 and first["passed"] is True and first["cached"] is False
    code, out, _ = run(capsys, "verify", "--json", "--only", "bounds.crossovers")
    again = json.loads(out)["results"][0]
    assert code == 0 and again["cached"] is True
    assert (again["passed"], again["detail"]) == (True, first["detail"])


def test_verify_runs_every_check_again_after_a_package_file_changed(
    capsys, monkeypatch, cache_home, tmp_path
) -> None:
    """Editing any file of attnio's packages (here a stand-in package added to the key's
    inputs) re-runs every check, however unrelated to it."""
    from attnio.bounds import check_cache

    extra = tmp_path / "package"
    extra.mkdir()
    (extra / "data.toml").write_text("x = 1\n", encoding="utf-8")
    real = check_cache.package_directories
    monkeypatch.setattr(
        check_cache, "package_directories", lambda: {**real(), "attnio.extra": [extra]}
    )
    calls = _planted(monkeypatch, passes=True, skips=None)
    run(capsys, "verify", "--json")
    run(capsys, "verify", "--json")
    assert calls == {"passes": 1, "skips": 1}
    (extra / "data.toml").write_text("x = 2\n", encoding="utf-8")
    code, out, _ = run(capsys, "verify", "--json")
    assert code == 0 and json.loads(out)["cached"] == 0
    assert calls == {"passes": 2, "skips": 2}


def test_verify_never_caches_a_failure(capsys, monkeypatch, cache_home) -> None:
    """A failing or crashing check runs again on every run (and keeps failing there), while
    the passing one beside it comes from the cache."""
    from attnio import _cli_verify

    calls = _planted(monkeypatch, passes=True, fails=False)
    checks = _cli_verify.collect()

    def crashing() -> tuple[bool | None, str]:
        """A planted crash."""
        calls["crashes"] = calls.get("crashes", 0) + 1
        raise RuntimeError("boom")

    monkeypatch.setattr(
        _cli_verify, "collect", lambda pattern=None: [*checks, ("planted.crashes", crashing)]
    )
    for _ in range(2):
        code, out, _ = run(capsys, "verify", "--json")
        assert code == 1 and json.loads(out)["failed"] == 2
    assert calls == {"passes": 1, "fails": 2, "crashes": 2}


def test_verify_no_cache_bypasses_the_result_cache(capsys, monkeypatch, cache_home) -> None:
    """--no-cache runs a check the cache holds, and writes no result."""
    calls = _planted(monkeypatch, passes=True)
    code, out, _ = run(capsys, "verify", "--no-cache")
    assert code == 0 and calls == {"passes": 1} and "result cache" not in out
    assert not (cache_home / "attnio" / "checks").exists()
    run(capsys, "verify")
    code, out, _ = run(capsys, "verify", "--no-cache", "--json")
    assert calls == {"passes": 3} and json.loads(out)["cached"] == 0


def test_verify_clear_cache_empties_both_caches(capsys, monkeypatch, cache_home) -> None:
    """--clear-cache removes the stored check results and the stored proofs, and says how
    many of each; the next run runs every check again."""
    import sympy as sp

    from attnio.proofs import Obligation, prove
    from attnio.proofs.cache import ProofCache

    x = sp.Symbol("x", integer=True, positive=True)
    square = Obligation("test/square", "derivation", sp.Ge(x**2, x, evaluate=False), (),
                        "holds", (), "")  # fmt: skip
    proofs = ProofCache()
    assert proofs.store(prove(square, proofs.timeout_ms))
    calls = _planted(monkeypatch, passes=True, skips=None)
    run(capsys, "verify")
    code, out, _ = run(capsys, "verify", "--clear-cache")
    assert code == 0
    assert "removed 1 proof(s) from " in out and "removed 2 check result(s) from " in out
    assert not proofs.root.exists() and not (cache_home / "attnio" / "checks").exists()
    run(capsys, "verify")
    assert calls == {"passes": 2, "skips": 2}


def test_verify_starts_the_proofs_early_only_for_a_check_that_will_run(
    capsys, monkeypatch, cache_home
) -> None:
    """The obligations start proving at the start of the run when a check reading their
    outcomes will run, and not when the result cache answers that check."""
    from attnio import _cli_verify
    from attnio.proofs import verification

    starts = []

    def configure(thorough=False, cache=None, start=False) -> None:
        starts.append(start)

    monkeypatch.setattr(verification, "configure", configure)
    monkeypatch.setattr(verification, "_outcomes", lambda: [])  # no obligation: skipped
    monkeypatch.setattr(verification, "left_out", lambda: "")
    checks = [("proofs.obligations", verification.check_obligations)]
    monkeypatch.setattr(_cli_verify, "collect", lambda pattern=None: checks)
    assert run(capsys, "verify")[0] == 0
    assert run(capsys, "verify")[0] == 0
    assert starts == [True, False]


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
