"""Running a campaign: units answered from the store, the rest on Dask or in this process.

The client (this process) expands the spec, looks every unit up in the store, sends
the rest to the workers, and writes each result to the store as it arrives, so an
interrupted campaign loses at most the units that were running. Workers run
:func:`execute`, a plain function of plain values: every pebbling it returns has
already been replayed by :func:`attnio.pebble.replay` on the worker, and the store
replays it again when it is read back.

Execution backends
------------------
``workers=0``
    Every unit in this process, one after the other (no Dask; for debugging and tiny
    campaigns).
``workers=N`` (default: the number of cores)
    A :class:`distributed.LocalCluster` of N single-threaded worker processes, each
    with ``memory_limit`` bytes; a worker that exceeds it is restarted and its unit is
    stored as an error saying so. With ``time_limit`` the client also restarts the
    worker of any unit that has been running longer than that many seconds and stores
    the unit as an error naming the limit; a later run with a larger (or no) limit runs
    it again.
``scheduler="tcp://host:8786"``
    An existing Dask scheduler (a real cluster). Its workers need the same attnio
    version installed: a worker of another version refuses each unit, which is stored
    as an error saying so.

Concurrent runs
---------------
Each run claims a unit in the store (:meth:`~attnio.campaign.store.Store.claim`) just
before it starts it (on Dask: before it hands it to the scheduler, which holds at most
two units per worker thread), so runs of one spec on one store split the units and none
runs twice. A unit another run holds is left to it and counted in
``Outcome.claimed_elsewhere``; at the end each such unit is asked for once more, and
one whose claim has lapsed (its run crashed) is taken over. A run renews its claims from
a thread every third of ``claim_seconds`` (:data:`CLAIM_SECONDS` by default) and drops
them when it stops, interrupted or not.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from .errors import CampaignError, StoreError
from .spec import Spec, Unit, dag_from_json
from .store import Store, renew

__all__ = ["CLAIM_SECONDS", "Outcome", "execute", "run_campaign"]

CLAIM_SECONDS = 60.0
"""Default lifetime of a run's claim on a unit; the run renews it every third of this
while it lives, so only the claims of a run that died lapse."""


@dataclass
class Outcome:
    """What one campaign run did: units answered from the store, run, failed, still open.

    ``skipped`` lists the sizes the spec left out and the units that ran but were
    skipped (an M below the algorithm's least feasible fast memory), with the reason.
    ``claimed_elsewhere`` counts the units another run on the same store ran or was
    running instead of this one."""

    total: int
    from_store: int = 0
    ran: int = 0
    failed: int = 0
    skipped_units: int = 0
    claimed_elsewhere: int = 0
    interrupted: bool = False
    seconds: float = 0.0
    skipped: tuple[str, ...] = ()
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """The counts as plain values."""
        return {
            "total": self.total,
            "from_store": self.from_store,
            "ran": self.ran,
            "failed": self.failed,
            "skipped_units": self.skipped_units,
            "claimed_elsewhere": self.claimed_elsewhere,
            "interrupted": self.interrupted,
            "seconds": round(self.seconds, 3),
            "skipped": list(self.skipped),
            "errors": list(self.errors),
        }


def execute(kind: str, params: dict, dag_json: str | None, version: str) -> dict:
    """Run one unit and return its result as plain values (runs on a worker).

    Pebble units return ``status`` (``optimal``, ``bounds`` or ``heuristic``), ``io``,
    ``loads``, ``stores``, ``lower``, ``upper``, ``states``, ``seconds`` and ``moves``
    (a list of ``[op, vertex]``), replayed here before they are returned. Simulate
    units return ``status="count"``, the machine's ``loads``, ``stores``, ``peak``,
    the count record's ``closed_form`` and whether they are equal; a simulate unit whose
    M is below the algorithm's least feasible fast memory returns ``status="skipped"``
    and the ``reason``. Bad parameters raise; the client stores the message as an error
    result.
    """
    from attnio import __version__

    if version != __version__:
        raise CampaignError(
            f"worker runs attnio {__version__}, the client {version}: install the same version"
        )
    if kind == "pebble":
        return _pebble(params, dag_json)
    return _simulate(params)


def _pebble(params: dict, dag_json: str | None) -> dict:
    from attnio.pebble import replay, solve_exact, solve_heuristic

    dag = dag_from_json(dag_json)
    solver, options, M, variant = (
        params["solver"],
        params["options"],
        params["M"],
        params["variant"],
    )
    if solver == "exact":
        result = solve_exact(dag, M, variant=variant, **options)
        status = "optimal" if result.optimal else "bounds"
    else:
        result = solve_heuristic(dag, M, heuristic=solver, variant=variant, moves=True, **options)
        status = "heuristic"
    checked = replay(dag, result.moves, M, variant)
    if checked.io != result.io:
        raise CampaignError(
            f"{solver} returned a pebbling of cost {result.io} that replays to {checked.io}"
        )
    return {
        "status": status,
        "io": result.io,
        "loads": result.loads,
        "stores": result.stores,
        "lower": result.lower,
        "upper": result.upper,
        "states": result.states_explored,
        "seconds": result.seconds,
        "moves": [[op, int(v)] for op, v in result.moves],
    }


def _simulate(params: dict) -> dict:
    from attnio.algorithms import BlocksDoNotFitError, simulate

    options = {k: v for k, v in params.items() if k not in ("algorithm", "pass", "n", "d", "M")}
    start = time.perf_counter()
    try:
        run = simulate(
            params["algorithm"], params["pass"], params["n"], params["d"], params["M"], **options
        )
    except BlocksDoNotFitError as error:  # like a pebble size below the DAG's minimum
        return {"status": "skipped", "reason": str(error), "seconds": time.perf_counter() - start}
    return {
        "status": "count",
        "io": run.counts.io,
        "loads": run.counts.loads,
        "stores": run.counts.stores,
        "peak": run.counts.peak,
        "record": run.record,
        "closed_form": run.closed_form,
        "matches": run.matches,
        "parameters": {
            k: (float(v) if not isinstance(v, int) else v) for k, v in run.parameters.items()
        },
        "error": run.error,
        "seconds": time.perf_counter() - start,
    }


# --------------------------------------------------------------------- the client


def _pending(spec: Spec, store: Store, outcome: Outcome, time_limit: float | None) -> list[Unit]:
    """The units the store cannot answer: absent, bounds-only with a higher limit now, or
    stopped by a time limit smaller than ``time_limit``."""
    todo = []
    for unit in spec.units:
        if store.answers(unit, time_limit=time_limit):
            outcome.from_store += 1
        else:
            todo.append(unit)
    return todo


def run_campaign(
    spec: Spec,
    store: Store,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    memory_limit: str | int = "4GiB",
    time_limit: float | None = None,
    on_result: Callable[[Unit, dict], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    claim_seconds: float = CLAIM_SECONDS,
) -> Outcome:
    """Run every unit of ``spec`` that ``store`` cannot answer; write results as they arrive.

    Parameters
    ----------
    workers : int, optional
        ``0`` runs in this process; ``N`` starts a local cluster of N worker processes
        (default: the number of cores). Ignored when ``scheduler`` is given.
    scheduler : str, optional
        Address of a running Dask scheduler, e.g. ``"tcp://10.0.0.5:8786"``.
    memory_limit : str or int
        Per-worker memory limit of the local cluster (Dask's syntax, e.g. ``"4GiB"``).
    time_limit : float, optional
        Wall-clock seconds a unit of any kind may run on a worker (counted from when
        the scheduler hands it to one). A unit over the limit has its worker restarted
        (the computation stops) and is stored as an error naming the limit; the other
        units go on. A later run with a larger limit, or none, runs it again. Needs
        Dask workers: refused with ``workers=0``, where a running unit cannot be
        stopped.
    on_result, on_start
        Called with each finished unit and its result, and once with the number of
        units about to run (for progress display).
    claim_seconds : float
        Lifetime of this run's claims on its units (renewed while it runs): another
        run of the spec on the same store leaves a claimed unit alone until it lapses.

    Returns
    -------
    Outcome
        Counts of units answered from the store, run, and failed. On
        ``KeyboardInterrupt`` the results written so far stay in the store and the
        outcome says ``interrupted=True``.
    """
    from attnio import __version__

    _check_memory_limit(memory_limit)
    in_process = scheduler is None and workers == 0
    _check_time_limit(time_limit, in_process)
    _check_claim_seconds(claim_seconds)
    start = time.perf_counter()
    outcome = Outcome(total=len(spec.units), skipped=spec.skipped)
    todo = _pending(spec, store, outcome, time_limit)
    if on_start is not None:
        on_start(len(todo))
    owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
    claimed = _claimed(todo, store, owner, claim_seconds, time_limit, outcome)

    def record(unit: Unit, result: dict) -> None:
        store.put(unit, result, owner)
        if result["status"] == "error":
            outcome.failed += 1
            outcome.errors.append(f"{unit.label}: {result['error']}")
        elif result["status"] == "skipped":
            outcome.skipped_units += 1
            outcome.skipped = (*outcome.skipped, f"{unit.label}: {result['reason']}")
        else:
            outcome.ran += 1
        if on_result is not None:
            on_result(unit, result)

    try:
        with _Heartbeat(store, owner, claim_seconds):
            if todo and in_process:
                for unit in claimed:
                    record(unit, _guarded(unit, __version__))
            elif todo:
                _run_dask(
                    claimed, record, __version__, workers, scheduler, memory_limit, time_limit
                )
    except KeyboardInterrupt:
        outcome.interrupted = True
    finally:
        claimed.close()
        # a store that cannot be written now (full disk) keeps the claims until they lapse
        with contextlib.suppress(StoreError):
            store.release(owner)
    outcome.seconds = time.perf_counter() - start
    return outcome


def _claimed(
    todo: list[Unit],
    store: Store,
    owner: str,
    seconds: float,
    time_limit: float | None,
    outcome: Outcome,
) -> Iterator[Unit]:
    """Yield the units of ``todo`` this run claims, each claimed as it is asked for.

    A unit another run holds (or finished meanwhile) is set aside; once ``todo`` is done
    each is asked for once more, so one whose claim lapsed (its run crashed) is taken
    over. What stays with another run is counted in ``outcome.claimed_elsewhere``.
    """
    aside = []
    for unit in todo:
        if store.claim(unit, owner, seconds, time_limit=time_limit) == "claimed":
            yield unit
        else:
            aside.append(unit)
    for unit in aside:
        if store.claim(unit, owner, seconds, time_limit=time_limit) == "claimed":
            yield unit
        else:
            outcome.claimed_elsewhere += 1


class _Heartbeat:
    """A thread that renews the claims of the run ``owner`` every third of ``seconds``
    while the ``with`` block runs (over its own connection to the store)."""

    def __init__(self, store: Store, owner: str, seconds: float) -> None:
        self._arguments = (store.path, owner, seconds)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="attnio-claims", daemon=True)

    def _beat(self) -> None:
        path, owner, seconds = self._arguments
        while not self._stop.wait(seconds / 3):
            # a busy or vanished store this time: the claims last until the next beat
            with contextlib.suppress(sqlite3.Error, StoreError):
                renew(path, owner, seconds)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _check_claim_seconds(claim_seconds: float) -> None:
    """Refuse a claim lifetime that is not a positive finite number of seconds."""
    if (
        isinstance(claim_seconds, bool)
        or not isinstance(claim_seconds, int | float)
        or not math.isfinite(claim_seconds)
        or claim_seconds <= 0
    ):
        raise CampaignError(
            f"claim_seconds={claim_seconds!r} (--claim-expiry) must be a finite number of "
            "seconds > 0"
        )


def _check_memory_limit(memory_limit: str | int) -> None:
    """Refuse a ``memory_limit`` Dask cannot read, before any work starts."""
    from dask.utils import parse_bytes

    if memory_limit == "auto":
        return
    try:
        size = parse_bytes(memory_limit)
    except (ValueError, TypeError):
        size = -1
    if size < 0:
        raise CampaignError(
            f"memory_limit={memory_limit!r} (--memory-limit) must be a size in Dask's "
            "syntax, e.g. '4GiB' or '512MB' ('auto' or 0: Dask's default, no limit)"
        )


def _check_time_limit(time_limit: float | None, in_process: bool) -> None:
    """Refuse a ``time_limit`` that is not a positive number, or that cannot be enforced."""
    if time_limit is None:
        return
    if (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, int | float)
        or not math.isfinite(time_limit)
        or time_limit <= 0
    ):
        raise CampaignError(
            f"time_limit={time_limit!r} (--time-limit) must be a finite number of seconds > 0"
        )
    if in_process:
        raise CampaignError(
            "--time-limit needs Dask workers; --workers 0 runs every unit in this process, "
            "where a running unit cannot be stopped"
        )


def _execute_guarded(kind: str, params: dict, dag_json: str | None, version: str) -> dict:
    """:func:`execute`, with a refused unit returned as an error result, not raised.

    On a Dask worker a raised error would also be logged with its traceback on the
    user's terminal; the client stores the message either way.
    """
    try:
        return execute(kind, params, dag_json, version)
    except (ValueError, TypeError, MemoryError) as error:
        return {"status": "error", "error": f"{type(error).__name__}: {error}"}


def _guarded(unit: Unit, version: str) -> dict:
    return _execute_guarded(unit.kind, unit.params, unit.dag_json, version)


_ENGINES = ("attnio.pebble", "attnio.algorithms")
"""The modules a unit imports; a local worker imports them as it starts."""

_POLL_SECONDS = 0.5
"""How often the client looks for units over the time limit."""


def _run_dask(
    todo: Iterable[Unit],
    record: Callable[[Unit, dict], None],
    version: str,
    workers: int | None,
    scheduler: str | None,
    memory_limit: str | int,
    time_limit: float | None = None,
) -> None:
    try:
        import dask
        from distributed import Client, LocalCluster, wait
    except ImportError:  # pragma: no cover - dask is a dependency
        raise CampaignError(
            "Dask is not installed: pip install 'dask[distributed]', or use --workers 0"
        ) from None

    settings = {
        # One failure is enough: a worker killed for memory would kill the next one too.
        "distributed.scheduler.allowed-failures": 0,
        # A worker holds only the unit it runs, so "processing" means running and the
        # time limit counts from the start of the unit, not from its wait in a queue.
        "distributed.scheduler.worker-saturation": 1.0,
    }
    with contextlib.ExitStack() as stack:
        stack.enter_context(dask.config.set(settings))
        if scheduler is not None:
            client = stack.enter_context(Client(scheduler, timeout="10s"))
        else:
            import os

            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=workers or os.cpu_count() or 1,
                    threads_per_worker=1,
                    processes=True,
                    memory_limit=memory_limit,
                    # None would still bind Dask's HTTP server to port 8787, and warn
                    # when another cluster holds it: any free loopback port will do.
                    dashboard_address="127.0.0.1:0",
                    host="127.0.0.1",
                    silence_logs=logging.ERROR,
                    # Import the engines when a worker (re)starts, before it takes a
                    # unit: a time limit then counts the unit's work, not the imports.
                    preload=list(_ENGINES),
                )
            )
            client = stack.enter_context(Client(cluster))
        # Units are claimed as they are submitted, two per worker thread ahead: another
        # run of the spec on the store takes the rest meanwhile.
        window = 2 * max(1, sum(client.nthreads().values()), workers or 0)
        units = iter(todo)
        futures: dict = {}
        pending: set = set()

        def submit() -> None:
            while len(pending) < window:
                unit = next(units, None)
                if unit is None:
                    return
                future = client.submit(
                    _execute_guarded,
                    unit.kind,
                    unit.params,
                    unit.dag_json,
                    version,
                    key=f"attnio-{unit.key}",
                    pure=False,
                )
                futures[future] = unit
                pending.add(future)

        started: dict[str, float] = {}
        try:
            submit()
            while pending:
                try:
                    done, _ = wait(
                        pending,
                        timeout=None if time_limit is None else _POLL_SECONDS,
                        return_when="FIRST_COMPLETED",
                    )
                except TimeoutError:
                    done = set()
                for future in done:
                    pending.discard(future)
                    record(futures[future], _collect(future, memory_limit))
                if time_limit is not None and pending:
                    for future in _stop_overdue(client, pending, started, time_limit):
                        pending.discard(future)
                        record(
                            futures[future],
                            {
                                "status": "error",
                                "error": f"exceeded --time-limit {time_limit:g} s "
                                "(worker restarted)",
                                "time_limit": time_limit,
                            },
                        )
                submit()
        except KeyboardInterrupt:
            client.cancel(list(futures))
            raise


def _collect(future, memory_limit: str | int) -> dict:
    """The result of a finished future, or an error result saying why there is none."""
    try:
        return future.result()
    except (ValueError, TypeError, MemoryError) as error:
        return {"status": "error", "error": f"{type(error).__name__}: {error}"}
    except Exception as error:  # a killed worker (memory limit) or a lost one
        name = type(error).__name__
        reason = (
            f"worker exceeded memory_limit={memory_limit} or died"
            if name == "KilledWorker"
            else f"{name}: {error}"
        )
        return {"status": "error", "error": reason}


def _stop_overdue(client, pending: set, started: dict[str, float], time_limit: float) -> list:
    """Cancel the units running longer than ``time_limit`` and restart their workers.

    ``started`` maps a task key to when the client first saw it processing on a worker
    (updated here). Returns the futures stopped.
    """
    now = time.monotonic()
    by_key = {future.key: future for future in pending}
    overdue, addresses = [], set()
    for address, keys in client.processing().items():
        for key in keys:
            if key not in by_key:
                continue
            first = started.setdefault(key, now)
            if now - first > time_limit:
                overdue.append(by_key[key])
                addresses.add(address)
    if overdue:
        # Cancel first, so the scheduler does not hand the unit to another worker when
        # its worker goes away; the restart then stops the computation itself.
        client.cancel(overdue, force=True)
        with contextlib.suppress(Exception):  # a worker already gone needs no restart
            client.restart_workers(sorted(addresses), raise_for_error=False)
    return overdue
