"""Tests of attnio.campaign.execution: units run once, on Dask or in process, resumably."""

from __future__ import annotations

import collections
import contextlib
import json
import pathlib
import re
import threading
import time

import pytest

from attnio.campaign import Store, build_report, execute, load, read_spec, run_campaign

SPEC = """
[[pebble]]
dag = "attention-forward"
n = 1
d = [1, 2]
M = [3, 4, 6]
variants = ["standard", "oneshot"]
solvers = ["exact", "belady", "lru"]

[[simulate]]
algorithm = ["flash", "standard"]
pass = ["forward", "backward"]
n = 8
d = 2
M = [32, 64]
"""


@pytest.fixture
def spec(tmp_path: pathlib.Path):
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    return read_spec(path)


def test_second_run_answers_everything_from_the_store(tmp_path: pathlib.Path, spec) -> None:
    """Every unit runs once: the second run of the same spec runs nothing."""
    with Store(tmp_path / "r.sqlite") as store:
        first = run_campaign(spec, store, workers=0)
        second = run_campaign(spec, store, workers=0)
    assert (first.ran, first.failed, first.from_store) == (len(spec.units), 0, 0)
    assert (second.ran, second.from_store) == (0, len(spec.units))


def test_results_are_the_engines_answers(tmp_path: pathlib.Path, spec) -> None:
    """Stored pebblings equal a direct call of the solver; stored counts equal their closed forms."""
    from attnio.pebble import build, pebble
    from attnio.pebble.exact import solve_exact

    with Store(tmp_path / "r.sqlite") as store:
        run_campaign(spec, store, workers=0)
    for record in load(tmp_path / "r.sqlite"):
        p = record["params"]
        if record["kind"] == "simulate":
            assert record["result"]["matches"] is True
            continue
        dag = build(p["dag"]["kind"], p["dag"]["n"], p["dag"]["d"])
        if p["solver"] == "exact":
            direct = solve_exact(dag, p["M"], variant=p["variant"])
            assert record["status"] == "optimal" and record["io"] == direct.io
        else:
            direct = pebble(dag, p["M"], heuristic=p["solver"], variant=p["variant"])
            assert record["io"] == direct.io


def test_interrupted_campaign_resumes(tmp_path: pathlib.Path, spec) -> None:
    """Ctrl-C keeps the results written so far; the next run runs only the rest."""
    seen = []

    def stop_after_three(unit, result) -> None:
        seen.append(unit)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with Store(tmp_path / "r.sqlite") as store:
        first = run_campaign(spec, store, workers=0, on_result=stop_after_three)
        assert first.interrupted and len(store) == 3
        second = run_campaign(spec, store, workers=0)
    assert second.from_store == 3 and second.ran == len(spec.units) - 3


def test_bad_unit_is_stored_as_an_error_not_a_crash(tmp_path: pathlib.Path) -> None:
    """A unit whose parameters the engine refuses is stored as an error with the message."""
    path = tmp_path / "spec.toml"
    path.write_text('[[simulate]]\nalgorithm = "low-rank"\nn = 64\nd = 64\nM = 2048\ndegree = 12\n')
    spec = read_spec(path)
    with Store(tmp_path / "r.sqlite") as store:
        outcome = run_campaign(spec, store, workers=0)
    assert outcome.failed == 1 and "max_words" in outcome.errors[0]
    assert load(tmp_path / "r.sqlite")[0]["status"] == "error"


def test_memory_below_an_algorithms_minimum_is_skipped_not_failed(tmp_path: pathlib.Path) -> None:
    """A simulate unit whose M is below the algorithm's least feasible M is stored and
    reported as skipped with the reason (as pebble sizes below a DAG's minimum are),
    never as a failure; the feasible sizes of the same table run."""
    path = tmp_path / "spec.toml"
    path.write_text('[[simulate]]\nalgorithm = "flash"\nn = 8\nd = 4\nM = [3, 64]\n')
    spec = read_spec(path)
    with Store(tmp_path / "r.sqlite") as store:
        outcome = run_campaign(spec, store, workers=0)
        again = run_campaign(spec, store, workers=0)
    assert (outcome.failed, outcome.ran, outcome.errors) == (0, 1, [])
    (line,) = outcome.skipped
    assert "M=3" in line and "needs M >=" in line
    assert again.from_store == 2 and again.failed == 0
    statuses = sorted(r["status"] for r in load(tmp_path / "r.sqlite"))
    assert statuses == ["count", "skipped"]
    report = build_report(load(tmp_path / "r.sqlite"))
    assert report.errors == [] and len(report.skipped) == 1
    assert "## Units skipped" in report.markdown() and report.to_dict()["skipped"]


def _counting(monkeypatch) -> collections.Counter:
    """Count every execution of a unit, by key (from any thread)."""
    from attnio.campaign import execution

    runs: collections.Counter = collections.Counter()
    lock = threading.Lock()
    real = execution._execute_guarded

    def counted(kind, params, dag_json, version):
        with lock:
            runs[json.dumps(params, sort_keys=True)] += 1
        return real(kind, params, dag_json, version)

    monkeypatch.setattr(execution, "_execute_guarded", counted)
    return runs


def test_two_runs_at_once_split_the_units_and_run_each_once(
    tmp_path: pathlib.Path, spec, monkeypatch
) -> None:
    """Two runs of one spec started together on one store (two threads, two connections)
    each run a share of the units, no unit runs twice, none is lost, and each counts what
    the other ran as claimed by another run (issue 40: both ran all 52)."""
    runs = _counting(monkeypatch)
    both_started = threading.Barrier(2, timeout=60)
    outcomes: list = []

    def one_run() -> None:
        with Store(tmp_path / "r.sqlite") as store:
            outcomes.append(
                run_campaign(
                    spec,
                    store,
                    workers=0,
                    on_start=lambda count: both_started.wait(),
                    on_result=lambda unit, result: time.sleep(0.01),  # let the other claim
                )
            )

    threads = [threading.Thread(target=one_run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    first, second = outcomes
    total = len(spec.units)
    assert sorted(runs.values()) == [1] * total  # every unit ran, exactly once
    assert first.ran + second.ran == total and first.ran > 0 and second.ran > 0
    assert (first.claimed_elsewhere, second.claimed_elsewhere) == (second.ran, first.ran)
    assert first.failed == second.failed == 0
    with Store(tmp_path / "r.sqlite") as store:
        assert len(store) == total and store.claims() == []


def test_an_expired_claim_of_a_crashed_run_is_taken_over(tmp_path: pathlib.Path, spec) -> None:
    """Units claimed by a run that died (its claims lapsed) are run; a unit whose claim is
    alive is left to its run, counted as claimed elsewhere, and its claim kept."""
    with Store(tmp_path / "r.sqlite") as store:
        alive, *dead = spec.units
        assert store.claim(alive, "alive", 3600) == "claimed"
        for unit in dead:
            assert store.claim(unit, "crashed", 0.01) == "claimed"
        time.sleep(0.05)
        outcome = run_campaign(spec, store, workers=0)
        assert (outcome.ran, outcome.claimed_elsewhere) == (len(dead), 1)
        assert len(store) == len(dead) and not store.answers(alive)
        assert [(key, owner) for key, owner, _ in store.claims()] == [(alive.key, "alive")]


def test_a_run_keeps_its_claim_on_a_unit_longer_than_the_claim(
    tmp_path: pathlib.Path, spec, monkeypatch
) -> None:
    """A unit running longer than the claim's lifetime stays claimed (the run renews it),
    so another run does not start it too."""
    from attnio.campaign import execution

    real = execution._execute_guarded
    unit = spec.units[0]
    seen: list[str] = []

    def slow(kind, params, dag_json, version):
        if params == unit.params and not seen:
            time.sleep(0.5)  # > claim_seconds: the heartbeat renews meanwhile
            with Store(tmp_path / "r.sqlite") as other:
                seen.append(other.claim(unit, "other", 60))
        return real(kind, params, dag_json, version)

    monkeypatch.setattr(execution, "_execute_guarded", slow)
    with Store(tmp_path / "r.sqlite") as store:
        outcome = run_campaign(spec, store, workers=0, claim_seconds=0.15)
    assert seen == ["taken"] and outcome.ran == len(spec.units)


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), "60", True])
def test_claim_seconds_must_be_positive(tmp_path: pathlib.Path, spec, seconds) -> None:
    """A claim lifetime that is not a finite positive number is refused, naming it."""
    message = re.escape(f"claim_seconds={seconds!r}")
    with Store(tmp_path / "r.sqlite") as store, pytest.raises(ValueError, match=message):
        run_campaign(spec, store, workers=0, claim_seconds=seconds)


def test_version_mismatch_is_refused() -> None:
    """A worker refuses a unit from a client running another attnio version."""
    with pytest.raises(ValueError, match="install the same version"):
        execute("simulate", {}, None, "0.0.0-other")


@pytest.mark.parametrize(
    ("workers", "time_limit", "message"),
    [
        (0, 3, "--time-limit needs Dask workers; --workers 0"),
        (1, 0, "time_limit=0 (--time-limit) must be"),
        (1, -1.5, "time_limit=-1.5"),
        (1, float("inf"), "time_limit=inf"),
        (1, "3", "time_limit='3'"),
    ],
)
def test_time_limit_is_refused_in_process_and_when_not_positive(
    tmp_path: pathlib.Path, spec, workers: int, time_limit, message: str
) -> None:
    """A time limit that is not a finite positive number, or that cannot be enforced
    (every unit in this process), is refused before any unit runs or any worker starts."""
    with Store(tmp_path / "r.sqlite") as store:
        with pytest.raises(ValueError, match=re.escape(message)):
            run_campaign(spec, store, workers=workers, time_limit=time_limit)
        assert len(store) == 0


@pytest.mark.slow
def test_local_cluster_gives_the_in_process_results(tmp_path: pathlib.Path, spec) -> None:
    """A LocalCluster of two worker processes stores the same results as running in process."""
    with Store(tmp_path / "a.sqlite") as store:
        run_campaign(spec, store, workers=0)
    with Store(tmp_path / "b.sqlite") as store:
        outcome = run_campaign(spec, store, workers=2, memory_limit="2GiB")
    assert outcome.ran == len(spec.units) and outcome.failed == 0
    a = {r["key"]: (r["status"], r["io"], r["lower"]) for r in load(tmp_path / "a.sqlite")}
    b = {r["key"]: (r["status"], r["io"], r["lower"]) for r in load(tmp_path / "b.sqlite")}
    assert a == b


@pytest.mark.slow
def test_existing_scheduler_on_loopback(tmp_path: pathlib.Path, spec) -> None:
    """A campaign pointed at a running scheduler's tcp://127.0.0.1 address runs there."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        with Store(tmp_path / "r.sqlite") as store:
            outcome = run_campaign(spec, store, scheduler=cluster.scheduler_address)
    assert outcome.ran == len(spec.units) and outcome.failed == 0
    assert all(r.get("replayed", True) for r in load(tmp_path / "r.sqlite"))


@pytest.mark.slow
def test_local_cluster_starts_quietly_while_port_8787_is_taken(tmp_path: pathlib.Path) -> None:
    """A local cluster neither warns nor fails when Dask's default HTTP port 8787 is taken (by another cluster or campaign)."""
    import socket
    import warnings

    (tmp_path / "one.toml").write_text("[[simulate]]\nalgorithm = 'flash'\nn = 8\nd = 2\nM = 64\n")
    with socket.socket() as holder:
        with contextlib.suppress(OSError):  # already taken is as good
            holder.bind(("", 8787))
            holder.listen()
        with warnings.catch_warnings(), Store(tmp_path / "r.sqlite") as store:
            warnings.simplefilter("error")
            outcome = run_campaign(read_spec(tmp_path / "one.toml"), store, workers=1)
    assert outcome.ran == 1 and outcome.failed == 0


@pytest.mark.slow
def test_a_refused_unit_on_dask_is_stored_without_a_traceback(
    tmp_path: pathlib.Path, capfd: pytest.CaptureFixture
) -> None:
    """On a local cluster a unit the engine refuses is stored as an error, and no worker traceback reaches the terminal."""
    (tmp_path / "big.toml").write_text(
        "[[pebble]]\ndag = 'attention-forward'\nn = 3\nd = 2\nM = 6\nsolvers = ['exact']\n"
    )
    with Store(tmp_path / "r.sqlite") as store:
        outcome = run_campaign(read_spec(tmp_path / "big.toml"), store, workers=1)
    assert outcome.failed == 1
    (record,) = load(tmp_path / "r.sqlite")
    assert record["status"] == "error" and "at most 62 vertices" in record["result"]["error"]
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Compute Failed" not in err


LONG_AND_QUICK = """
[[pebble]]
dag = "attention-forward"
n = 2
d = 2
M = 3
variants = ["standard"]
solvers = ["exact"]
exact = { max_states = 20000000, time_limit = 3600 }  # about a minute idle, 1.3 GB

[[simulate]]
algorithm = "flash"
pass = "forward"
n = 8
d = 2
M = [32, 64]
"""


@pytest.mark.slow
def test_time_limit_stops_a_long_unit_and_the_others_finish(tmp_path: pathlib.Path) -> None:
    """With time_limit=10 on a local cluster, an exact unit that runs for about a minute is
    stopped and stored as an error naming the limit, the quick units succeed (10 s leaves
    room for a loaded machine: at 3 s a quick unit of a fresh worker was stopped in CI),
    the run ends within two minutes, and a rerun with the same limit answers everything from
    the store while a rerun with a larger limit runs the stopped unit again."""
    import time

    (tmp_path / "spec.toml").write_text(LONG_AND_QUICK)
    spec = read_spec(tmp_path / "spec.toml")
    start = time.monotonic()
    with Store(tmp_path / "r.sqlite") as store:
        outcome = run_campaign(spec, store, workers=2, memory_limit="4GiB", time_limit=10)
        elapsed = time.monotonic() - start
        same = [u for u in spec.units if not store.answers(u, time_limit=10)]
        pending = [u for u in spec.units if not store.answers(u, time_limit=20)]
        unlimited = [u for u in spec.units if not store.answers(u)]
    assert elapsed < 120
    assert (outcome.ran, outcome.failed) == (2, 1)
    (error,) = outcome.errors
    assert "exceeded --time-limit 10 s" in error and "M=3" in error
    records = {r["kind"]: r for r in load(tmp_path / "r.sqlite") if r["status"] == "error"}
    assert "exceeded --time-limit 10 s" in records["pebble"]["result"]["error"]
    assert same == [] and [u.kind for u in pending] == ["pebble"]
    assert [u.kind for u in unlimited] == ["pebble"]
