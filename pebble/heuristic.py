"""Heuristic pebbling: Belady or LRU on the natural order, or an order search then Belady.

:func:`solve_heuristic` plays the natural order with an eviction policy
(:mod:`attnio.pebble.player`) or, with ``"search"``, first improves the order
with the local search of :mod:`attnio.pebble.search`. Every pebbling computes
each vertex once, so it is legal in both variants and an upper bound on both
optima; the exact solver is :func:`attnio.pebble.exact.solve_exact`.

References
----------
HK81 (the game); Belady 1966 (furthest-next-use eviction).
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable, Sequence

from .dag import Dag
from .errors import PebbleParameterError, SearchInterrupted
from .moves import check_variant
from .player import (
    POLICIES,
    OrderPlayer,
    compulsory_io,
    natural_order,
    play,
    play_cost,
    validate_order,
)
from .result import Pebbling
from .search import search_order

__all__ = [
    "HEURISTICS",
    "POLICIES",
    "compile_kernels",
    "compulsory_io",
    "natural_order",
    "pebble",
    "play",
    "play_cost",
    "solve_heuristic",
    "sweep",
    "validate_order",
]

HEURISTICS = (*POLICIES, "search")
"""What :func:`solve_heuristic` accepts as ``heuristic``."""


def solve_heuristic(
    dag: Dag,
    M: int,
    *,
    heuristic: str = "belady",
    variant: str = "standard",
    moves: bool = False,
    iterations: int | None = None,
    time_limit: float | None = None,
    seed: int = 0,
) -> Pebbling:
    """Pebble ``dag`` heuristically: ``"belady"``/``"lru"`` on the natural order, or ``"search"``.

    ``"search"`` runs :func:`attnio.pebble.search.search_order` (bounded by
    ``iterations`` and ``time_limit``, seeded by ``seed``) and plays its best
    order with Belady; it never returns a costlier pebbling than Belady on the
    natural order, which is its starting point. ``states_explored`` counts the
    orders it evaluated.

    Examples
    --------
    >>> g = Dag.from_edges(["a", "b", "c"], [(0, 2), (1, 2)])
    >>> solve_heuristic(g, 3, heuristic="lru").io
    3
    """
    if heuristic not in HEURISTICS:
        raise PebbleParameterError(f"heuristic={heuristic!r} must be one of {HEURISTICS}")
    if heuristic != "search":
        return play(dag, M, policy=heuristic, variant=variant, moves=moves)
    start = time.perf_counter()
    M = dag.validate_memory(M)
    check_variant(variant)
    found = search_order(dag, M, iterations=iterations, time_limit=time_limit, seed=seed)
    return OrderPlayer(dag, M).pebbling(
        found.order,
        variant=variant,
        method="search",
        moves=moves,
        start=start,
        states=found.evaluated,
    )


pebble = solve_heuristic
"""The former name of :func:`solve_heuristic`, kept for callers that use it."""


def sweep(
    dag: Dag,
    Ms: Sequence[int],
    *,
    heuristic: str = "belady",
    progress: Callable[[int, int, str], None] | None = None,
    **options,
) -> list[Pebbling]:
    """Pebble ``dag`` for every M in ``Ms`` (increasing); the best found I/O as a function of M.

    A pebbling with M' red pebbles is one with any M >= M' too, so each size
    reports the cheapest pebbling found at it or at a smaller size (its
    ``method`` then says ``"<heuristic> (from M=M')"``): the returned upper
    bounds never increase with M. ``options`` go to :func:`solve_heuristic`. Ctrl-C raises
    :class:`~attnio.pebble.errors.SearchInterrupted` holding the sizes finished.
    ``progress``, if given, is called after each size with (sizes finished, sizes in
    all, a label such as ``"M=5: io 35"``).

    Examples
    --------
    >>> g = Dag.from_edges(3, [(0, 2), (1, 2)])
    >>> [p.io for p in sweep(g, [3, 4])]
    [3, 3]
    """
    Ms = [dag.validate_memory(M) for M in Ms]
    if any(b <= a for a, b in itertools.pairwise(Ms)):
        raise PebbleParameterError(f"Ms={Ms} must be strictly increasing")
    results: list[Pebbling] = []
    for M in Ms:
        try:
            found = solve_heuristic(dag, M, heuristic=heuristic, **options)
        except KeyboardInterrupt:
            raise SearchInterrupted(results) from None
        if results and results[-1].io < found.io:
            best = results[-1]
            origin = best.method if "(from" in best.method else f"{best.method} (from M={best.M})"
            found = dataclasses.replace(best, M=M, method=origin, seconds=found.seconds)
        results.append(found)
        if progress is not None:
            progress(len(results), len(Ms), f"M={M}: io {found.io}")
    return results


def compile_kernels() -> None:
    """Compile (or load from cache) every kernel on a tiny graph, so later timings exclude it."""
    dag = Dag.from_edges(3, [(0, 2), (1, 2)])
    for policy in POLICIES:
        play(dag, 3, policy=policy, moves=True)
    search_order(dag, 3, iterations=2, seed=0)
