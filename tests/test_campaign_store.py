"""Tests of attnio.campaign.store: results keyed by content, replayed when read back."""

from __future__ import annotations

import json
import pathlib
import sqlite3
import zlib

import pytest

from attnio.campaign import Store, StoreError, execute, export, load, read_spec

SPEC = """
[[pebble]]
dag = "attention-forward"
n = 1
d = 1
M = [3, 4]
solvers = ["exact", "belady"]
exact = { max_states = 100000 }
"""


@pytest.fixture
def spec(tmp_path: pathlib.Path):
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    return read_spec(path)


def _run_into(store: Store, units) -> None:
    from attnio import __version__

    for unit in units:
        store.put(unit, execute(unit.kind, unit.params, unit.dag_json, __version__))


def test_round_trip_replays_every_certificate(tmp_path: pathlib.Path, spec) -> None:
    """Every stored pebbling is read back as plain values and replays to its stored cost."""
    with Store(tmp_path / "r.sqlite") as store:
        _run_into(store, spec.units)
        assert all(store.answers(u) for u in spec.units)
    records = load(tmp_path / "r.sqlite")
    assert len(records) == len(spec.units)
    assert all(r["replayed"] for r in records)
    exact = [r for r in records if r["params"]["solver"] == "exact"]
    assert all(r["status"] == "optimal" and r["lower"] == r["io"] == r["upper"] for r in exact)


def test_tampered_certificate_is_refused(tmp_path: pathlib.Path, spec) -> None:
    """A certificate edited in the database fails replay when read back, naming the unit."""
    path = tmp_path / "r.sqlite"
    with Store(path) as store:
        _run_into(store, spec.units[:1])
    db = sqlite3.connect(path)
    key, blob = db.execute("SELECT key, certificate FROM results").fetchone()
    moves = json.loads(zlib.decompress(blob))
    db.execute(
        "UPDATE results SET certificate = ? WHERE key = ?",
        (zlib.compress(json.dumps(moves[1:]).encode()), key),
    )
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=r"fails replay|replays to"):
        load(path)


def test_understated_cost_is_refused(tmp_path: pathlib.Path, spec) -> None:
    """A stored cost lower than its certificate's replayed cost is refused."""
    path = tmp_path / "r.sqlite"
    with Store(path) as store:
        _run_into(store, spec.units[:1])
    db = sqlite3.connect(path)
    db.execute("UPDATE results SET io = io - 1")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="replays to I/O"):
        load(path)


def test_bounds_only_results_are_combined_and_resumed(tmp_path: pathlib.Path) -> None:
    """A bounds-only exact result reruns only with a higher limit; the bounds combine soundly."""
    path = tmp_path / "spec.toml"
    path.write_text(SPEC.replace("max_states = 100000", "max_states = 10"))
    low = read_spec(path)
    with Store(tmp_path / "r.sqlite") as store:
        unit = next(u for u in low.units if u.params["solver"] == "exact" and u.params["M"] == 3)
        first = {"status": "bounds", "io": 9, "loads": 7, "stores": 2, "lower": 6, "upper": 9,
                 "states": 10, "seconds": 0.1, "moves": None}  # fmt: skip
        store.put(unit, first)
        assert store.answers(unit)
        path.write_text(SPEC.replace("max_states = 100000", "max_states = 1000000"))
        high = read_spec(path)
        again = next(u for u in high.units if u.key == unit.key)
        assert not store.answers(again)
        store.put(again, {**first, "lower": 5, "upper": 8, "io": 8, "loads": 6})
        record = store._row(unit.key)
        assert (record["lower"], record["upper"], record["status"]) == (6, 8, "bounds")
        assert json.loads(record["params"])["options"]["max_states"] == 1_000_000
        assert store.answers(again)


def test_other_sqlite_files_are_refused(tmp_path: pathlib.Path) -> None:
    """An SQLite file that is not an attnio store, or a non-database, is refused clearly."""
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="not an attnio store"):
        Store(other)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not an SQLite database"):
        Store(junk)
    with pytest.raises(StoreError, match="does not exist"):
        load(tmp_path / "missing.sqlite")


def test_export_csv_and_json(tmp_path: pathlib.Path, spec) -> None:
    """CSV has one row per result with the key fields; JSON carries the schema version."""
    path = tmp_path / "r.sqlite"
    with Store(path) as store:
        _run_into(store, spec.units)
    rows = export(path, "csv").splitlines()
    assert rows[0].startswith("key,kind,label,status,io")
    assert len(rows) == 1 + len(spec.units)
    data = json.loads(export(path, "json"))
    assert data["schema"] >= 1 and len(data["results"]) == len(spec.units)
    with pytest.raises(StoreError, match="format"):
        export(path, "xml")


def test_a_claim_is_one_runs_until_stored_released_or_expired(tmp_path, spec) -> None:
    """A unit claimed by one run is refused to another until the claim lapses; its owner
    may claim again; storing the result drops the claim and then the unit needs no run;
    release drops what a run still holds; renew keeps a short claim alive."""
    import time

    from attnio.campaign.store import renew

    first, second = spec.units[:2]
    with Store(tmp_path / "r.sqlite") as store:
        assert store.claim(first, "a", 60) == "claimed"
        assert store.claim(first, "b", 60) == "taken"
        assert store.claim(first, "a", 60) == "claimed"
        _run_into(store, [first])  # a store written without an owner keeps the claim
        assert store.claim(first, "b", 60) == "answered"
        assert store.claim(second, "a", 0.2) == "claimed"
        assert renew(store.path, "a", 60) == 2
        time.sleep(0.3)
        assert store.claim(second, "b", 60) == "taken"  # renewed: still a's
        assert store.release("a") == 2 and store.claims() == []
        assert store.claim(second, "b", 0.01) == "claimed"
        time.sleep(0.05)
        assert store.claim(second, "a", 60) == "claimed"  # b's claim lapsed: taken over
        from attnio import __version__

        result = execute(second.kind, second.params, second.dag_json, __version__)
        store.put(second, result, "a")
        assert store.claims() == [] and store.claim(second, "b", 60) == "answered"


def test_runs_creating_one_store_at_once_all_open_it(tmp_path) -> None:
    """Eight connections creating the same new store at the same moment all open it: the
    look at the tables and the writing of the marker are one transaction (a run that
    looked between another's tables and its marker was told 'not an attnio store')."""
    import threading

    path = tmp_path / "new.sqlite"
    start = threading.Barrier(8, timeout=60)
    errors: list[BaseException] = []

    def open_store() -> None:
        start.wait()
        try:
            Store(path).close()
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=open_store) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    with Store(path) as store:
        assert len(store) == 0


def test_a_full_disk_is_one_clear_error_and_keeps_what_was_stored(full_disk, spec) -> None:
    """A store whose disk fills up mid-campaign raises StoreError naming the store (the
    CLI prints one line, not an sqlite3 traceback); the results committed before stay."""
    import os

    (full_disk / "filler").unlink()
    path = full_disk / "r.sqlite"
    first, *rest = spec.units
    with Store(path) as store:
        _run_into(store, [first])
        filler = os.open(full_disk / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(filler, b"\0" * 1024):
                pass
        except OSError:
            pass
        finally:
            os.close(filler)
        with pytest.raises(StoreError, match=r"r\.sqlite' cannot be written"):
            _run_into(store, rest)
    (full_disk / "filler").unlink()
    assert [r["key"] for r in load(path)][:1] == [first.key]
