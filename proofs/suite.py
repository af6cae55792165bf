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
from attnio.bounds.check_cache import held_warnings, warn_held

from .cache import ProofCache
from .check import CONSTANT_LIMIT, DEFAULT_TIMEOUT_MS, Outcome, prove
from .constants import settle
from .costs import costly
from .errors import ObligationError
from .generate import obligations
from .obligation import Expectation, Obligation


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


THOROUGH_ONLY: tuple[str, ...] = (
    "comparison/flash-backward-count/tiled-backward-count/order-any-n",
    "monotonicity/window-row-streaming-forward-count/explicit/d",
    "monotonicity/window-row-streaming-backward-count/explicit/M",
    "monotonicity/window-row-streaming-backward-count/explicit/d",
    "monotonicity/window-row-streaming-backward-count/explicit/n",
    "monotonicity/causal-row-streaming-forward-count/explicit/d",
    "monotonicity/causal-row-streaming-backward-count/explicit/d",
    "monotonicity/causal-row-streaming-backward-count/explicit/n",
    "reduction/window-row-streaming-backward-count/explicit>=window-row-streaming-forward-count",
    "monotonicity/causal-flash2-backward-count/explicit/d",
    "reduction/causal-flash2-backward-count/explicit>=causal-flash2-forward-count",
    "reduction/split-kv-decode-backward-count/explicit>=split-kv-decode-forward-count",
    "monotonicity/gqa-output-stationary-forward-count/explicit/M",
    "monotonicity/two-sweep-backward-count/explicit/d",
)
"""Obligations only ``attnio verify --thorough`` proves: open claims that end unknown, or
that take minutes.

Each is an ``open`` obligation (a claim attnio does not assert), so leaving it out can
hide no failure. The first ends unknown after a constant search up to
:data:`~attnio.proofs.check.CONSTANT_LIMIT` (13% of the catalog's z3 time when it was
measured). The others are the monotonicity and backward-over-forward claims of the
causal and windowed row-streaming counts, whose nested floors (a block of
floor(M/(4d)) - 2 rows inside ceiling(n/b) and floor((n - w + 1)/b)) give z3 nonlinear
integer queries it does not decide: measured 2026-11-27 (``attnio prove --json``, 2
cores at load average 10, with and without z3's Groebner heuristic), each ended unknown
in at least one run, after 62 to 636 s, several calls running far past their processor
net because z3 did not stop at its interrupt; together they were 1,100 to 1,600 s of
the 2,600 to 2,700 s the whole catalog took. ``attnio verify`` used to spend 6 min 34 s
cold, most of it in them. Of causal FlashAttention-2's counts, the monotonicity in d of
the backward ended unknown after 70 s and the backward-over-forward claim was proved after
124 s (``attnio prove --only '*causal-flash2*'``, the same machine). The last two, of the
split-KV decode backward and the group-aware output-stationary forward counts, ended
unknown after 33 to 40 s and 59 s (``attnio prove --only '*split-kv-decode-backward*'``,
``'*gqa-output-stationary*'``, 2026-11-27, a loaded machine); the two-sweep backward
count's monotonicity in d was proved after about 26 s in two runs and ended unknown at
26.8 s in a third (``attnio prove --only '*two-sweep*'``).
"""


ALWAYS_PROVED: tuple[str, ...] = ("derivation", "planted", "refutation")
"""Families the default tier proves whatever their recorded cost: the steps of the
derivations (a record is ``derived`` only with every step proved in the run:
``proofs.derived_status``), the planted false claim (the checker's self-test) and attnio's
refutations of published statements."""


def default_tier(chosen: Sequence[Obligation]) -> tuple[list[Obligation], list[Obligation]]:
    """Split ``chosen`` into the obligations the default tier proves and those it leaves out:
    the open claims of :data:`THOROUGH_ONLY`, and the obligations whose recorded proof is
    costly (:func:`attnio.proofs.costs.costly`: unchanged formulas whose proof took
    seconds when it was recorded) outside :data:`ALWAYS_PROVED`, which ``attnio verify
    --thorough`` proves.

    Raises
    ------
    ObligationError
        If a name of :data:`THOROUGH_ONLY` is an obligation that is not ``open``.
    """
    kept, left = [], []
    for obligation in chosen:
        if obligation.name in THOROUGH_ONLY:
            if obligation.expected is not Expectation.OPEN:
                raise ObligationError(
                    f"THOROUGH_ONLY names {obligation.name!r}, expected "
                    f"{obligation.expected.value!r}: only open claims may be left out"
                )
            left.append(obligation)
        elif obligation.family not in ALWAYS_PROVED and costly(obligation) is not None:
            left.append(obligation)
        else:
            kept.append(obligation)
    return kept, left


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
    chosen: Sequence[Obligation],
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    jobs: int = 1,
    cache: ProofCache | None = None,
    search: bool = False,
) -> Iterator[Outcome]:
    """Yield the outcome of each obligation, in the order given.

    An obligation with a constant whose search is recorded for its text
    (:mod:`attnio.proofs.constants`) is re-proved at its recorded constant, its recorded
    refutation re-confirmed (:func:`~attnio.proofs.constants.settle`); with ``search``,
    or without a matching record, the least constant is searched afresh
    (:func:`~attnio.proofs.check.prove`), as is every other obligation checked.

    With ``jobs > 1`` the obligations are spread over that many worker processes.
    The statuses do not depend on ``jobs``: every z3 call runs in a fresh context under
    a resource limit (:mod:`attnio.proofs.budget`), so no call sees another's work. If
    the caller stops iterating (or is interrupted), the workers are stopped.

    With a ``cache`` (:class:`~attnio.proofs.cache.ProofCache` of the same
    ``timeout_ms``), obligations whose decided outcome it holds are answered from it
    (re-checked as it reads them), only the others are proved, and each newly decided
    outcome is stored.

    Raises
    ------
    ObligationError
        If ``timeout_ms`` or ``jobs`` is not a positive integer, or the cache's budget
        is not ``timeout_ms``.
    """
    positive_number("timeout_ms", timeout_ms, ObligationError)
    check = functools.partial(prove if search else settle, timeout_ms=timeout_ms)
    if cache is None:
        yield from spread(check, chosen, jobs)
        return
    if cache.timeout_ms != int(timeout_ms):
        raise ObligationError(
            f"cache.timeout_ms={cache.timeout_ms} differs from timeout_ms={timeout_ms}"
        )
    found = [cache.load(obligation) for obligation in chosen]
    missing = [ob for ob, hit in zip(chosen, found, strict=True) if hit is None]
    fresh = spread(check, missing, jobs)
    try:
        for obligation, hit in zip(chosen, found, strict=True):
            if hit is not None:
                yield hit
                continue
            # the obligation as given, not the worker's rebuilt copy: the key is the one
            # the next run computes from the generated obligation
            found = next(fresh)
            outcome = Outcome(obligation, found.result, found.refutation)
            cache.store(outcome)
            yield outcome
    finally:
        fresh.close()  # stops the workers if the caller stopped early


def _answer(
    obligation: Obligation,
    timeout_ms: int,
    root: str | None,
    limit: int,
    search: bool,
) -> tuple[Outcome, bool, list]:
    """The outcome of ``obligation``, whether the proof cache at ``root`` held it, and the
    cache's write failures (:func:`~attnio.bounds.check_cache.held_warnings`).

    Runs in a worker of :class:`Background`: a miss is proved (:func:`outcomes` says how)
    and, decided, stored under the key of the worker's copy, which is the key of the
    generated obligation (``tests/test_cache.py`` checks that unpickling keeps it).
    """
    cache = None if root is None else ProofCache(root, timeout_ms, limit)
    if cache is not None:
        hit = cache.load(obligation)
        if hit is not None:
            return hit, True, []
    outcome = (prove if search else settle)(obligation, timeout_ms=timeout_ms)
    # a cache that cannot be written is reported by the parent, once, not by each worker
    with held_warnings() as held:
        if cache is not None:
            cache.store(outcome)
    return outcome, False, list(held)


class Background:
    """The outcomes of ``chosen``, proved over worker processes while the caller goes on.

    Like :func:`outcomes` (the same statuses, cache reads and stores), but the work starts
    at construction and :meth:`outcomes` collects it: ``attnio verify`` proves the
    obligations while its other checks run, instead of leaving a core idle during those
    and proving afterwards. The cache keys are computed in the workers too, not one by
    one before the first proof. With ``jobs`` 1 nothing starts early: :meth:`outcomes`
    proves in this process.

    Parameters
    ----------
    chosen : sequence of Obligation
        The obligations, in the order :meth:`outcomes` returns them.
    timeout_ms, jobs, cache, search
        As for :func:`outcomes`.
    """

    def __init__(
        self,
        chosen: Sequence[Obligation],
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        jobs: int = 1,
        cache: ProofCache | None = None,
        search: bool = False,
    ) -> None:
        positive_number("timeout_ms", timeout_ms, ObligationError)
        positive_integer("jobs", jobs, ObligationError)
        if cache is not None and cache.timeout_ms != int(timeout_ms):
            raise ObligationError(
                f"cache.timeout_ms={cache.timeout_ms} differs from timeout_ms={timeout_ms}"
            )
        self.chosen = list(chosen)
        self._arguments = (timeout_ms, cache, search)
        self._pool = None
        self._pending: list = []
        jobs = min(jobs, len(self.chosen))
        if jobs <= 1:
            return
        answer = functools.partial(
            _answer,
            timeout_ms=int(timeout_ms),
            root=None if cache is None else str(cache.root),
            limit=CONSTANT_LIMIT if cache is None else cache.limit,
            search=search,
        )
        # spawn, not fork: a forked z3 or numba runtime may hold locks of a parent thread.
        self._pool = multiprocessing.get_context("spawn").Pool(jobs, initializer=_ignore_interrupt)
        self._pending = [self._pool.apply_async(answer, (ob,)) for ob in self.chosen]
        self._pool.close()

    @property
    def started(self) -> bool:
        """Whether worker processes are proving (False with one job: nothing starts early)."""
        return self._pool is not None

    def outcomes(self) -> list[Outcome]:
        """Wait for every outcome and return them in the order given; the workers are then
        stopped (also if this is interrupted). Counts the cache's hits and misses."""
        timeout_ms, cache, search = self._arguments
        if self._pool is None:
            return list(outcomes(self.chosen, timeout_ms, 1, cache, search))
        found = []
        try:
            for obligation, pending in zip(self.chosen, self._pending, strict=True):
                outcome, hit, held = pending.get()
                warn_held(held)
                if cache is not None:
                    cache.hits += hit
                    cache.misses += not hit
                found.append(Outcome(obligation, outcome.result, outcome.refutation))
        finally:
            self.stop()
        return found

    def stop(self) -> None:
        """Stop the workers (what they had not finished is lost); safe to call again."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()


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
    pattern: str | None = None,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    jobs: int = 1,
    search: bool = False,
) -> list[Outcome]:
    """Check every selected obligation (over ``jobs`` processes); return the outcomes in
    catalog order (``search``: see :func:`outcomes`)."""
    return list(outcomes(select(pattern), timeout_ms, jobs, search=search))


__all__ = [
    "ALWAYS_PROVED",
    "THOROUGH_ONLY",
    "Background",
    "default_tier",
    "outcomes",
    "run",
    "select",
    "usable_cores",
]
