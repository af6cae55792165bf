"""The result store: one SQLite file holding every campaign result, keyed by content.

SQLite is embedded (nothing to start) and every result is committed as it arrives,
so a campaign that is interrupted keeps what it finished. Pebblings are stored with
their moves (compressed) and the DAG they pebble, and are replayed by
:func:`attnio.pebble.replay` whenever they are read back: a store that was edited by
hand, or written by a buggy version, cannot slip a wrong cost into a report.

The store is readable without attnio's CLI: :func:`load` returns plain dicts, and
:func:`export` writes CSV or JSON.

Several runs may share one store (two terminals, or machines on one file system): a run
claims each unit (:meth:`Store.claim`) just before it starts, in the transaction that
checks the store cannot answer it, and a unit another run has claimed is left to that run.
A claim names its owner (one per run) and expires: its run renews it (:func:`renew`)
while it lives, so the claims of a run that crashed lapse after their expiry and another
run takes the units over. Every write is a ``BEGIN IMMEDIATE`` transaction and a busy
store is waited for (:data:`BUSY_SECONDS`), never an error.
"""

from __future__ import annotations

import contextlib
import csv
import datetime
import io
import json
import math
import sqlite3
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

from attnio.bounds.schema import JSON_SCHEMA_VERSION

from .errors import StoreError
from .spec import EXACT_LIMITS, Unit, dag_from_json

__all__ = ["BUSY_SECONDS", "FORMAT", "Store", "export", "load", "renew"]

FORMAT = "attnio-campaign-store"
"""Marker in the store's meta table, so another SQLite file is refused with a clear error."""

BUSY_SECONDS = 60.0
"""How long a connection waits for another run's write to the store before giving up."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS dags (digest TEXT PRIMARY KEY, json TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    label TEXT NOT NULL,
    params TEXT NOT NULL,
    status TEXT NOT NULL,
    io INTEGER,
    lower INTEGER,
    upper INTEGER,
    seconds REAL,
    result TEXT NOT NULL,
    certificate BLOB,
    version TEXT NOT NULL,
    updated TEXT NOT NULL
)""",
    # A unit a run is working on: its owner (one per run) and when the claim lapses
    # (seconds since the epoch) unless the run renews it.
    "CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, "
    "expires REAL NOT NULL)",
)

_COLUMNS = ("key", "kind", "label", "params", "status", "io", "lower", "upper", "seconds",
            "result", "certificate", "version", "updated")  # fmt: skip
_FLAT = ("key", "kind", "label", "status", "io", "lower", "upper", "seconds", "version", "updated")


def _effort(options: dict) -> tuple[float, float]:
    """The exact solver's limits as comparable numbers; absent time means unlimited."""
    from attnio.pebble.exact import DEFAULT_MAX_STATES

    return (
        float(options.get("max_states", DEFAULT_MAX_STATES)),
        float(options.get("time_limit", math.inf)),
    )


class Store:
    """An open result store; use as a context manager or call :meth:`close`.

    Parameters
    ----------
    path : str or Path
        The SQLite file; created (with its parent folder) when it does not exist.
    create : bool
        When False, a missing file raises :class:`StoreError` instead.

    Raises
    ------
    StoreError
        The file exists but is not an attnio result store.
    """

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not self.path.exists():
            if not create:
                raise StoreError(f"store {str(self.path)!r} does not exist")
            if not self.path.parent.is_dir():
                raise StoreError(
                    f"store {str(self.path)!r}: folder {str(self.path.parent)!r} does not exist"
                )
        self._db = _connect(self.path)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            # One transaction from the look at the tables to the marker: two runs that
            # create the same new store at once see it either empty or complete.
            with self._transaction():
                tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master")}
                if tables and "meta" not in tables:
                    raise StoreError(
                        f"store {str(self.path)!r} is an SQLite file but not an attnio store"
                    )
                for statement in _SCHEMA:
                    self._db.execute(statement)
                marker = self._db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
                if marker is None and tables:
                    raise StoreError(
                        f"store {str(self.path)!r} is an SQLite file but not an attnio store"
                    )
                if marker is None:
                    self._db.executemany(
                        "INSERT INTO meta VALUES (?, ?)",
                        [("format", FORMAT), ("schema", str(JSON_SCHEMA_VERSION))],
                    )
        except StoreError:
            self._db.close()
            raise
        except sqlite3.OperationalError as error:  # a full disk, a read-only folder
            self._db.close()
            raise StoreError(f"store {str(self.path)!r} cannot be opened ({error})") from None
        except sqlite3.DatabaseError as error:
            self._db.close()
            raise StoreError(
                f"store {str(self.path)!r} is not an SQLite database ({error})"
            ) from None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction, taken at once (``BEGIN IMMEDIATE``): what it reads cannot
        change before it commits, and another run's writer waits for it.

        A write SQLite refuses (a full disk or quota, a read-only file, a store still
        locked after :data:`BUSY_SECONDS`) raises :class:`StoreError` naming the store:
        what was committed before stays.
        """
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.OperationalError as error:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise StoreError(f"store {str(self.path)!r} cannot be written ({error})") from None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def remember_bounds(self, bounds: tuple[str, ...] | None) -> None:
        """Record which catalog bounds the spec's report compares with (None: applicable)."""
        value = json.dumps(None if bounds is None else list(bounds))
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('compare', ?)", (value,))

    def compared_bounds(self) -> tuple[str, ...] | None:
        """The catalog bounds the last spec run into this store asked to compare with."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'compare'").fetchone()
        names = None if row is None else json.loads(row[0])
        return None if names is None else tuple(names)

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    # ---------------------------------------------------------------- lookups

    def _row(self, key: str) -> dict | None:
        row = self._db.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM results WHERE key = ?", (key,)
        ).fetchone()
        return None if row is None else dict(zip(_COLUMNS, row, strict=True))

    def answers(self, unit: Unit, *, time_limit: float | None = None) -> bool:
        """Whether the store holds a result for ``unit`` that running it again cannot improve.

        An exact result with proven bounds only is not an answer when ``unit`` asks
        for a higher state or time limit than every earlier attempt. An error from a
        unit stopped at a run's time limit (``--time-limit``) is not an answer when
        ``time_limit`` is larger, or None (no limit). Other errors are answers.
        """
        row = self._row(unit.key)
        if row is None:
            return False
        if row["status"] == "error":
            stopped_at = json.loads(row["result"]).get("time_limit")
            return stopped_at is None or (time_limit is not None and time_limit <= stopped_at)
        if row["status"] != "bounds":
            return True
        tried = _effort(json.loads(row["params"])["options"])
        wanted = _effort(unit.params["options"])
        return not any(w > t for w, t in zip(wanted, tried, strict=True))

    # ---------------------------------------------------------------- claims

    def claim(
        self, unit: Unit, owner: str, seconds: float, *, time_limit: float | None = None
    ) -> str:
        """Claim ``unit`` for the run ``owner`` for ``seconds``, unless it needs no run.

        In one transaction: the store is asked whether it :meth:`answers` the unit, then
        whether another owner holds an unexpired claim on it; only if neither, the claim
        is (re)written. So of two runs asking at once, exactly one gets the unit.

        Returns
        -------
        str
            ``"answered"`` (the store holds its result now; nothing claimed),
            ``"taken"`` (another run's claim has not expired; nothing claimed) or
            ``"claimed"`` (this run's until ``seconds`` from now, or until renewed).
        """
        now = time.time()
        with self._transaction():
            if self.answers(unit, time_limit=time_limit):
                return "answered"
            row = self._db.execute(
                "SELECT owner, expires FROM claims WHERE key = ?", (unit.key,)
            ).fetchone()
            if row is not None and row[0] != owner and row[1] > now:
                return "taken"
            self._db.execute(
                "INSERT OR REPLACE INTO claims VALUES (?, ?, ?)", (unit.key, owner, now + seconds)
            )
        return "claimed"

    def release(self, owner: str) -> int:
        """Drop every claim of the run ``owner`` (it stops); return how many there were."""
        with self._transaction():
            return self._db.execute("DELETE FROM claims WHERE owner = ?", (owner,)).rowcount

    def claims(self) -> list[tuple[str, str, float]]:
        """Every claim as ``(key, owner, expires)``, expired ones included."""
        return self._db.execute("SELECT key, owner, expires FROM claims ORDER BY key").fetchall()

    # ---------------------------------------------------------------- writing

    def put(self, unit: Unit, result: dict, owner: str | None = None) -> None:
        """Store ``result`` for ``unit`` and commit (with ``owner``: and drop its claim).

        A new exact result for a unit that already holds proven bounds is combined
        with them: both runs' bounds are proven, so the larger lower bound and the
        smaller upper bound (with its certificate) hold. The options recorded are the
        larger limits of the two attempts.
        """
        with self._transaction():  # the read of the old row and the write are one step
            self._put(unit, result)
            if owner is not None:
                self._db.execute(
                    "DELETE FROM claims WHERE key = ? AND owner = ?", (unit.key, owner)
                )

    def _put(self, unit: Unit, result: dict) -> None:
        params = dict(unit.params)
        result = dict(result)
        moves = result.pop("moves", None)
        old = self._row(unit.key)
        if old is not None and unit.kind == "pebble" and old["status"] in ("bounds", "optimal"):
            old_options = json.loads(old["params"])["options"]
            options = dict(params["options"])
            for limit in EXACT_LIMITS:
                values = [o[limit] for o in (old_options, options) if limit in o]
                if limit in options and limit in old_options:
                    options[limit] = max(values)
                else:  # an attempt without the limit was unlimited in it
                    options.pop(limit, None)
            params["options"] = options
            if result["status"] == "error":
                return  # keep the proven bounds; the failed attempt adds nothing
            old_result = json.loads(old["result"])
            if old["upper"] < result["upper"]:
                moves = _decode(old["certificate"])
                for name in ("io", "loads", "stores", "upper"):
                    result[name] = old_result[name]
            result["lower"] = max(result["lower"], old["lower"])
            result["status"] = "optimal" if result["lower"] == result["upper"] else "bounds"
            result["states"] = result.get("states", 0) + old_result.get("states", 0)
            result["seconds"] = result.get("seconds", 0.0) + old_result.get("seconds", 0.0)
        if unit.dag_json is not None:
            self._db.execute(
                "INSERT OR IGNORE INTO dags VALUES (?, ?)", (params["dag_digest"], unit.dag_json)
            )
        from attnio import __version__

        self._db.execute(
            f"INSERT OR REPLACE INTO results ({', '.join(_COLUMNS)}) "
            f"VALUES ({', '.join('?' * len(_COLUMNS))})",
            (
                unit.key,
                unit.kind,
                unit.label,
                json.dumps(params, sort_keys=True),
                result["status"],
                result.get("io"),
                result.get("lower"),
                result.get("upper"),
                result.get("seconds"),
                json.dumps(result, sort_keys=True),
                None if moves is None else zlib.compress(json.dumps(moves).encode()),
                __version__,
                datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            ),
        )

    # ---------------------------------------------------------------- reading

    def records(self, *, replay: bool = True, moves: bool = False) -> list[dict]:
        """Every result as a plain dict, oldest key order; pebblings replayed first.

        Raises
        ------
        StoreError
            A stored pebbling fails replay, or replays to a cost other than the one
            stored; the message names the unit.
        """
        rows = self._db.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM results ORDER BY kind, label"
        ).fetchall()
        dags: dict[str, object] = {}
        out = []
        for raw in rows:
            row = dict(zip(_COLUMNS, raw, strict=True))
            record = {k: row[k] for k in _FLAT}
            record["params"] = json.loads(row["params"])
            record["result"] = json.loads(row["result"])
            certificate = None if row["certificate"] is None else _decode(row["certificate"])
            if replay and certificate is not None:
                record["replayed"] = self._replay(row, record["params"], certificate, dags)
            if moves:
                record["moves"] = certificate
            out.append(record)
        return out

    def _replay(self, row: dict, params: dict, moves: list, dags: dict) -> bool:
        from attnio.pebble import IllegalMoveError, replay

        digest = params["dag_digest"]
        if digest not in dags:
            text = self._db.execute("SELECT json FROM dags WHERE digest = ?", (digest,)).fetchone()
            if text is None:
                raise StoreError(f"store {str(self.path)!r}: {row['label']}: its DAG is missing")
            dags[digest] = dag_from_json(text[0])
        try:
            checked = replay(
                dags[digest], [tuple(m) for m in moves], params["M"], params["variant"]
            )
        except (IllegalMoveError, ValueError) as error:
            raise StoreError(
                f"store {str(self.path)!r}: {row['label']}: its certificate fails replay ({error})"
            ) from None
        if checked.io != row["io"]:
            raise StoreError(
                f"store {str(self.path)!r}: {row['label']}: certificate replays to I/O "
                f"{checked.io}, the store says {row['io']}"
            )
        return True


def _decode(blob: bytes) -> list:
    return json.loads(zlib.decompress(blob))


def _connect(path: Path) -> sqlite3.Connection:
    """A connection that waits :data:`BUSY_SECONDS` for a busy store and leaves every
    transaction to the code (``BEGIN IMMEDIATE`` ... ``COMMIT``)."""
    try:
        return sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
    except sqlite3.DatabaseError as error:
        raise StoreError(f"store {str(path)!r} cannot be opened ({error})") from None


def renew(path: str | Path, owner: str, seconds: float) -> int:
    """Extend every claim of the run ``owner`` in the store at ``path`` to ``seconds`` from
    now; return how many there are. Opens its own connection, so a run's heartbeat
    thread can call it while the run's connection is busy."""
    db = _connect(Path(path))
    try:
        db.execute("BEGIN IMMEDIATE")
        count = db.execute(
            "UPDATE claims SET expires = ? WHERE owner = ?", (time.time() + seconds, owner)
        ).rowcount
        db.execute("COMMIT")
        return count
    finally:
        db.close()


def load(path: str | Path, *, replay: bool = True) -> list[dict]:
    """Return every result of the store at ``path`` as plain dicts (pebblings replayed).

    Each dict has ``key``, ``kind`` (``pebble`` or ``simulate``), ``label``,
    ``status`` (``optimal``, ``bounds``, ``heuristic``, ``count``, ``skipped`` or
    ``error``),
    ``io``, ``lower``, ``upper``, ``seconds``, ``version``, ``updated``, ``params``
    (the unit's parameters) and ``result`` (everything the run returned but its
    moves); pebblings also have ``replayed=True``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> load(pathlib.Path(tempfile.mkdtemp()) / "none.sqlite")
    Traceback (most recent call last):
    ...
    attnio.campaign.errors.StoreError: store '...none.sqlite' does not exist
    """
    with Store(path, create=False) as store:
        return store.records(replay=replay)


def export(path: str | Path, fmt: str = "csv") -> str:
    """Return the store's results as CSV (one flat row per result) or JSON text."""
    records = load(path)
    if fmt == "json":
        return json.dumps({"schema": JSON_SCHEMA_VERSION, "results": records}, indent=2) + "\n"
    if fmt != "csv":
        raise StoreError(f"format={fmt!r} must be 'csv' or 'json'")
    buffer = io.StringIO()
    names = [*_FLAT, "dag", "M", "variant", "solver", "algorithm", "pass", "n", "d"]
    writer = csv.DictWriter(buffer, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    for record in records:
        p = record["params"]
        row = {k: record[k] for k in _FLAT}
        row["dag"] = p["dag"]["name"] if "dag" in p else ""
        for name in ("M", "variant", "solver", "algorithm", "pass", "n", "d"):
            row[name] = p.get(name, "")
        writer.writerow(row)
    return buffer.getvalue()
