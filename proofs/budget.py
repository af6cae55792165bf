"""z3 budgets: a deterministic resource limit decides, the wall clock is only a safety net.

A z3 call stopped by a wall-clock timeout answers ``unknown`` on a loaded machine
where it answers ``sat`` or ``unsat`` on an idle one. Every call of
:mod:`attnio.proofs` therefore runs under z3's resource limit (``rlimit``, a
count of z3's internal steps that does not depend on machine load), derived from
the call's budget in milliseconds. Some queries (nonlinear real arithmetic with
large coefficients) spend long stretches in steps z3 does not count, so a
safety net stops a call after :data:`CPU_FACTOR` times its budget of *processor
time of the calling thread* (:func:`check`), which machine load barely changes,
unlike wall-clock time; a wall-clock timeout of :data:`WALL_CLOCK_FACTOR` times
the budget is the last resort where no thread clock exists.
"""

from __future__ import annotations

import threading
import time

import z3

__all__ = ["CPU_FACTOR", "RLIMIT_PER_MS", "WALL_CLOCK_FACTOR", "check", "limit", "rlimit"]

RLIMIT_PER_MS = 4_000
"""Resource units per millisecond of budget. Calibrated on the obligation suite (284
obligations, about 1,600 z3 calls): decided calls spent at most 1.8 million units, and
z3 spends roughly 150 to 4,500 units per millisecond of processor time, so a call's
budget in units is about what the old wall-clock timeout gave it on an idle machine.
With this value every obligation proved under the wall-clock timeout is still proved,
every counterexample still found, and one open comparison claim that timed out
(``comparison/flash-forward-count/square-tiling-forward-count/beats-any-n``) is now
refuted with a sympy-confirmed counterexample."""

CPU_FACTOR = 2
"""Processor-time safety net of one call, as a multiple of its budget."""

WALL_CLOCK_FACTOR = 20
"""Wall-clock timeout as a multiple of the budget: a last resort (a stuck call, or a
platform without per-thread processor clocks)."""

_POLL_SECONDS = 0.01


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
    processor time of this thread (the budget set by :func:`limit`).

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
    allowed = budget_ms * CPU_FACTOR / 1000
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
