"""z3 budgets: a deterministic resource limit decides, the wall clock is only a safety net.

A z3 call stopped by a wall-clock timeout answers ``unknown`` on a loaded machine
where it answers ``sat`` or ``unsat`` on an idle one. Every call of
:mod:`attnio.proofs` therefore runs under z3's resource limit (``rlimit``, a
count of z3's internal steps that does not depend on machine load), derived from
the call's budget in milliseconds. Some queries (nonlinear real arithmetic with
large coefficients) spend long stretches in steps z3 does not count, so a
safety net stops a call after :data:`CPU_FACTOR` times its budget of *processor
time of the calling thread* (:func:`check`), which machine load changes far less
than wall-clock time but does change: on a machine whose cores are all busy a step
takes more processor time, so a call that needs nearly the net on an idle machine can
be stopped by it on a busy one (measured 2026-11-27 at load 6: one call unsat after
12.3 s of processor time, the same call stopped at 15.1 s in another run; the
obligation is now proved through intermediate terms far from the net). A wall-clock
timeout of :data:`WALL_CLOCK_FACTOR` times
the budget is the last resort where no thread clock exists. Each call also runs
in a fresh z3 context (:meth:`attnio.proofs.check._Query.solver`): in a shared one,
the terms an earlier call created, and how far it got before a limit stopped it,
change later calls' search.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import z3

__all__ = [
    "CPU_FACTOR",
    "RLIMIT_PER_MS",
    "SEARCH_CPU_FACTOR",
    "WALL_CLOCK_FACTOR",
    "check",
    "limit",
    "rlimit",
    "searching",
]

RLIMIT_PER_MS = 4_000
"""Resource units per millisecond of budget. Calibrated on the obligation suite (284
obligations, about 1,600 z3 calls): decided calls spent at most 2.9 million units, and
z3 spends roughly 150 to 4,500 units per millisecond of processor time. Measured with
fresh contexts, this limit and the nets below: all 279 obligations proved under the old
wall-clock timeout are still proved and the planted false claims still refuted; of the
open comparison claims, ``.../square-tiling-forward-count/beats-any-n`` (unknown before)
is now refuted with a sympy-confirmed counterexample, and
``.../tiled-backward-count/order-any-n`` (refuted before, by one of three seeded
integer searches) is now unknown."""

CPU_FACTOR = 5
"""Processor-time safety net of one call, as a multiple of its budget. Large enough that
the resource limit, not this net, stops every call that spends at least
``RLIMIT_PER_MS / CPU_FACTOR`` = 800 units per millisecond: with 2, a counterexample
search that needs 2.9 million units (about 2 s of processor time idle) was cut off
under CPU load and the claim flipped from refuted to unknown."""

SEARCH_CPU_FACTOR = 1
"""The processor-time net of a call inside a constant search (:func:`searching`), as a
multiple of its budget: a fifth of :data:`CPU_FACTOR`. Some nonlinear queries spend
seconds in steps the resource limit does not count, so near a constant's threshold
whether they finish depends on how fast the processor runs them, and even on what the
process did before (measured: ``count <= 87 * lower`` for FlashAttention's forward count
proved after 9 s in one process and not within 15 s in a fresh one, while C = 89 took
0.2 s in both). A constant the search reports was proved within this net, so re-proving
it under the full net has five times the processor time it needed."""

WALL_CLOCK_FACTOR = 100
"""Wall-clock timeout as a multiple of the budget: a last resort (a stuck call, or a
platform without per-thread processor clocks)."""

_POLL_SECONDS = 0.01

_NET = threading.local()


@contextlib.contextmanager
def searching() -> Iterator[None]:
    """Within this block, this thread's calls stop after :data:`SEARCH_CPU_FACTOR` times
    their budget of processor time (not :data:`CPU_FACTOR`)."""
    before = getattr(_NET, "factor", CPU_FACTOR)
    _NET.factor = SEARCH_CPU_FACTOR
    try:
        yield
    finally:
        _NET.factor = before


def rlimit(budget_ms: int) -> int:
    """Return the resource limit of a call with a budget of ``budget_ms`` milliseconds.

    Examples
    --------
    >>> rlimit(3000)
    12000000
    """
    return max(1, int(budget_ms)) * RLIMIT_PER_MS


def limit(solver: z3.Solver, budget_ms: int) -> z3.Solver:
    """Set ``solver``'s resource limit and wall-clock safety net for ``budget_ms``; return it."""
    solver.set("rlimit", rlimit(budget_ms))
    solver.set("timeout", max(1, int(budget_ms)) * WALL_CLOCK_FACTOR)
    solver.attnio_budget_ms = max(1, int(budget_ms))
    return solver


def check(solver: z3.Solver) -> z3.CheckSatResult:
    """Return ``solver.check()``, interrupted after :data:`CPU_FACTOR` times its budget of
    processor time of this thread (the budget set by :func:`limit`; inside
    :func:`searching`, :data:`SEARCH_CPU_FACTOR` times).

    Without a budget, or where the platform has no per-thread processor clock, this is
    plain ``solver.check()`` under the limits :func:`limit` set.
    """
    budget_ms = getattr(solver, "attnio_budget_ms", None)
    try:
        clock = time.pthread_getcpuclockid(threading.get_ident())
        start = time.clock_gettime(clock)
    except (AttributeError, OSError):
        clock = None
    if budget_ms is None or clock is None:
        return solver.check()
    allowed = budget_ms * getattr(_NET, "factor", CPU_FACTOR) / 1000
    done = threading.Event()

    def watch() -> None:
        while not done.wait(_POLL_SECONDS):
            if time.clock_gettime(clock) - start > allowed:
                solver.interrupt()  # applies only while this solver is running
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        return solver.check()
    finally:
        done.set()
        watcher.join()
