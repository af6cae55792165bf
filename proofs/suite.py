"""Selecting and running the obligation catalog.

The obligations are generated (:mod:`attnio.proofs.generate`) and checked
(:mod:`attnio.proofs.check`); this module selects them by name and runs them.
"""

from __future__ import annotations

import fnmatch
import functools
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from attnio.bounds.arguments import positive_integer, positive_number

from .check import DEFAULT_TIMEOUT_MS, Outcome, prove
from .errors import ObligationError
from .generate import obligations
from .obligation import Obligation


def select(pattern: str | None = None) -> list[Obligation]:
    """Return the generated obligations whose name matches the glob ``pattern``.

    Raises
    ------
    ObligationError
        If ``pattern`` matches no obligation.

    Examples
    --------
    >>> names = [o.name for o in select("crossover/dense-forward-tight/*")]
    >>> names  # doctest: +NORMALIZE_WHITESPACE
    ['crossover/dense-forward-tight/meet', 'crossover/dense-forward-tight/small-branch',
     'crossover/dense-forward-tight/large-branch']
    """
    found = obligations()
    if pattern is None:
        return found
    chosen = [o for o in found if fnmatch.fnmatchcase(o.name, pattern)]
    if not chosen:
        families = sorted({o.family for o in found})
        raise ObligationError(
            f"--only={pattern!r} matches no obligation; names look like "
            f"'family/record...', families: {', '.join(families)} (e.g. 'tightness/*')"
        )
    return chosen


T = TypeVar("T")
R = TypeVar("R")


def usable_cores() -> int:
    """Return the number of processor cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # platforms without affinity masks
        return max(1, os.cpu_count() or 1)


def _ignore_interrupt() -> None:
    # Workers leave Ctrl-C to the parent, which reports what finished and stops them.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def outcomes(
    chosen: Sequence[Obligation], timeout_ms: int = DEFAULT_TIMEOUT_MS, jobs: int = 1
) -> Iterator[Outcome]:
    """Yield :func:`~attnio.proofs.check.prove` of each obligation, in the order given.

    With ``jobs > 1`` the obligations are spread over that many worker processes.
    The statuses do not depend on ``jobs``: every z3 call runs in a fresh context under
    a resource limit (:mod:`attnio.proofs.budget`), so no call sees another's work. If
    the caller stops iterating (or is interrupted), the workers are stopped.

    Raises
    ------
    ObligationError
        If ``timeout_ms`` or ``jobs`` is not a positive integer.
    """
    positive_number("timeout_ms", timeout_ms, ObligationError)
    yield from spread(functools.partial(prove, timeout_ms=timeout_ms), chosen, jobs)


def spread(function: Callable[[T], R], items: Sequence[T], jobs: int) -> Iterator[R]:
    """Yield ``function(item)`` for each item, in order, over ``jobs`` worker processes.

    ``function`` and the items must pickle (a module-level function, plain data). If the
    caller stops iterating (or is interrupted), the workers are stopped.
    """
    positive_integer("jobs", jobs, ObligationError)
    jobs = min(jobs, len(items))
    if jobs <= 1:
        yield from map(function, items)
        return
    # spawn, not fork: a forked z3 or numba runtime may hold locks of a parent thread.
    pool = multiprocessing.get_context("spawn").Pool(jobs, initializer=_ignore_interrupt)
    try:
        yield from pool.imap(function, items, chunksize=1)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def run(
    pattern: str | None = None, timeout_ms: int = DEFAULT_TIMEOUT_MS, jobs: int = 1
) -> list[Outcome]:
    """Check every selected obligation (over ``jobs`` processes); return the outcomes in
    catalog order."""
    return list(outcomes(select(pattern), timeout_ms, jobs))


__all__ = ["outcomes", "run", "select", "usable_cores"]
