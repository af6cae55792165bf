"""Tests of attnio._cli_verify: the main job's checks, tiers, caches and progress lines.

Apart from tests/test_cli.py so that pytest-xdist can run the one
thorough verify of the suite beside the other command tests instead of after them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import run


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


def test_the_numeric_runs_follow_the_tier(capsys, monkeypatch, tmp_path) -> None:
    """The default tier runs the numeric check on its sizes and says what it left out; the
    thorough tier runs more sizes (more runs) and leaves nothing out."""
    from attnio.algorithms import verification

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(
        verification, "NUMERIC_SIZES", {False: ((16, 4),), True: ((16, 4), (37, 5))}
    )
    counts = {}
    for tier in ((), ("--thorough",)):
        code, out, _ = run(capsys, "verify", "--only", "algorithms.numeric_mode", "--json", *tier)
        data = json.loads(out)
        assert code == 0, data
        counts[tier] = int(data["results"][0]["detail"].split()[0])
        assert ("numeric runs at n = 64" in data["left_out"]) is (tier == ())
    assert 0 < counts[()] < counts[("--thorough",)]


@pytest.mark.slow
def test_verify_thorough_passes_every_check(capsys, monkeypatch, tmp_path) -> None:
    """attnio verify --thorough --no-cache passes every check, each saying what it compared:
    the suite's one run of every check and one proof of the whole obligation catalog (every
    expected-true obligation proved, every recorded constant re-proved, every planted claim
    refuted, every SMT-LIB export re-solved without contradiction), with nothing left out.

    One exception keeps the suite within its time: claims.catalog_records runs its default
    tier here (the catalog's records through the closed-form counts). Its thorough tier,
    the whole claims pipeline on every record (about ten minutes on one core), is what
    attnio check --catalog runs; tests/test_claims_catalog.py tests both tiers' choice.
    The obligations of THOROUGH_ONLY are left out too: open claims that z3 ends unknown
    after minutes each (nested floors), so they cannot fail here, and attnio verify
    --thorough proves them; tests/test_suite.py checks that each is an open obligation."""
    from attnio.claims import verification as claims_verification
    from attnio.proofs import generate, suite
    from attnio.proofs import verification as proof_verification

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setitem(claims_verification.TIERS, True, claims_verification.TIERS[False])
    monkeypatch.setattr(
        proof_verification,
        "obligations",
        lambda: [o for o in generate.obligations() if o.name not in suite.THOROUGH_ONLY],
    )
    code, out, err = run(capsys, "verify", "--thorough", "--no-cache", "--json")
    data = json.loads(out)
    assert code == 0 and data["failed"] == 0, [r for r in data["results"] if not r["passed"]]
    assert data["left_out"] == "" and data["partial"] is False
    assert all(r["detail"] for r in data["results"]), data["results"]
    # every check passes outright: one that found nothing to check (skip) fails here
    assert [r["check"] for r in data["results"] if r["passed"] is not True] == []
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
    assert (
        "removed 1 proof(s) from " in out and "removed 2 check result(s) and note(s) from " in out
    )
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


def test_verify_reads_the_left_out_note_from_the_cache(capsys, monkeypatch, cache_home) -> None:
    """The note on what the default tier left out (it generates every obligation) is
    written once: a second run with nothing changed reads it back from the result cache
    and does not compute it again; --no-cache computes it."""
    from attnio.proofs import verification

    monkeypatch.setattr(verification, "left_out", lambda: "left out: planted")
    code, out, _ = run(capsys, "verify", "--json", "--only", "proofs.planted_refuted")
    assert code == 0 and json.loads(out)["left_out"] == "left out: planted"

    def fail() -> str:
        raise AssertionError("the note was computed again")

    monkeypatch.setattr(verification, "left_out", fail)
    code, out, _ = run(capsys, "verify", "--json", "--only", "proofs.planted_refuted")
    assert code == 0 and json.loads(out)["left_out"] == "left out: planted"
    with pytest.raises(AssertionError, match="computed again"):
        run(capsys, "verify", "--json", "--only", "proofs.planted_refuted", "--no-cache")


def test_verify_on_a_full_cache_disk_passes_with_one_warning(capsys, monkeypatch, tmp_path) -> None:
    """With every cache write under $XDG_CACHE_HOME raising ENOSPC (a full disk: the result
    cache, the proof cache and a kernel numba compiles), verify gives the verdicts of a
    working cache, exits 0 and prints one warning line (issue 40: it failed six checks)."""
    import errno
    import os

    import sympy as sp

    from attnio import _cli_verify
    from attnio.bounds import check_cache
    from attnio.pebble import _jit
    from attnio.proofs import Obligation, cache, suite

    def kernel_compiles() -> tuple[bool, str]:
        """A planted check that compiles a cached numba kernel, as the pebble checks do."""

        @_jit.njit(cache=True)
        def triple(x):
            return 3 * x

        return triple(14) == 42, "compiled"

    def proof_cached() -> tuple[bool, str]:
        """A planted check that proves through the proof cache, as the proofs checks do."""
        x = sp.Symbol("x", integer=True, positive=True)
        square = Obligation("test/square", "derivation", sp.Ge(x**2, x, evaluate=False), (),
                            "holds", (), "")  # fmt: skip
        found = suite.outcomes([square], 3000, jobs=1, cache=cache.ProofCache(timeout_ms=3000))
        return [o.verdict for o in found] == ["ok"], "proved"

    checks = _cli_verify.collect("bounds.crossovers")
    checks += [("planted.kernel_compiles", kernel_compiles), ("planted.proof", proof_cached)]
    monkeypatch.setattr(_cli_verify, "collect", lambda pattern=None: checks)
    monkeypatch.setattr(_jit.config, "CACHE_DIR", "")
    real = os.replace

    def full(source, target, *args, **kwargs):
        if str(target).startswith(str(tmp_path / "full")):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))
        return real(source, target, *args, **kwargs)

    verdicts = {}
    for home in ("working", "full"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / home))
        if home == "full":
            monkeypatch.setattr(check_cache, "_WARNED", set())
            monkeypatch.setattr(os, "replace", full)
        code, out, err = run(capsys, "verify", "--json")
        data = json.loads(out)
        verdicts[home] = [(r["check"], r["passed"]) for r in data["results"]]
        warnings = [line for line in err.splitlines() if line.startswith("attnio: warning")]
        assert code == 0 and data["failed"] == 0, out
        assert len(warnings) == (home == "full"), err
    assert verdicts["full"] == verdicts["working"]
    assert str(tmp_path / "full" / "attnio") in warnings[0] and "ENOSPC" in warnings[0]
    for folder in ("numba", "checks", "proofs"):  # each cache is written when it can be
        assert [p for p in (tmp_path / "working" / "attnio" / folder).rglob("*") if p.is_file()]
    assert not [p for p in (tmp_path / "full").rglob("*") if p.is_file()]
