"""Order-improving search for heuristic pebbling: better compute orders than the natural one.

Two starting orders are played with Belady (:func:`attnio.pebble.player.play`):
the natural (stage-by-stage) order and :func:`depth_first_order`, which computes
a vertex as soon as it becomes ready after its predecessor (a fused,
FlashAttention-like order on attention DAGs). The cheaper one seeds a local
search that moves one vertex at a time between its last predecessor and its
first successor (so the order stays topological): right after the predecessor,
right before the successor, or at a uniformly random place, each with
probability 1/3. It keeps a move when the cost does not grow, and stops after
``iterations`` attempts or ``time_limit`` seconds. It is seeded, hence reproducible for a fixed
iteration count, and never ends above its starting cost.

References
----------
HK81 (the game); the schedule-search view of red-blue pebbling follows PW20's
observation that the optimal order, not only the eviction, drives the cost.
"""

from __future__ import annotations

import heapq
import time
from typing import NamedTuple

import numpy as np

from attnio.bounds.arguments import positive_number

from .dag import Dag
from .errors import PebbleParameterError
from .player import OrderPlayer, natural_order

__all__ = ["SearchResult", "depth_first_order", "search_order"]

DEFAULT_ITERATIONS = 5000
"""Local-search evaluations when neither ``iterations`` nor ``time_limit`` is given."""


class SearchResult(NamedTuple):
    """The best order found, its Belady cost, the natural order's cost, and orders evaluated."""

    order: np.ndarray
    io: int
    natural_io: int
    evaluated: int


def depth_first_order(dag: Dag) -> np.ndarray:
    """A topological order of the non-input vertices that computes newly ready successors first.

    After computing ``v``, the successors of ``v`` that became ready are
    computed next (smallest index first, depth first); when none is pending,
    the smallest-index ready vertex is taken.

    Examples
    --------
    >>> g = Dag.from_edges(5, [(0, 2), (0, 3), (2, 4), (3, 4), (1, 3)])
    >>> depth_first_order(g).tolist()
    [2, 3, 4]
    """
    indegree = dag.indegree.tolist()
    pred_ptr, succ_ptr = dag.pred_ptr.tolist(), dag.succ_ptr.tolist()
    succ_idx = dag.succ_idx.tolist()
    waiting = list(indegree)
    for v in range(dag.num_vertices):
        if indegree[v] == 0:
            for s in succ_idx[succ_ptr[v] : succ_ptr[v + 1]]:
                waiting[s] -= 1
    ready = [v for v in range(dag.num_vertices) if indegree[v] > 0 and waiting[v] == 0]
    heapq.heapify(ready)
    queued = [False] * dag.num_vertices
    stack: list[int] = []
    order: list[int] = []
    del pred_ptr
    while stack or ready:
        if stack:
            v = stack.pop()
        else:
            v = heapq.heappop(ready)
            if queued[v]:
                continue
        if queued[v]:
            continue
        queued[v] = True
        order.append(v)
        fresh = []
        for s in succ_idx[succ_ptr[v] : succ_ptr[v + 1]]:
            waiting[s] -= 1
            if waiting[s] == 0:
                fresh.append(s)
        stack.extend(reversed(fresh))
    return np.asarray(order, dtype=np.int64)


def search_order(
    dag: Dag,
    M: int,
    *,
    iterations: int | None = None,
    time_limit: float | None = None,
    seed: int = 0,
) -> SearchResult:
    """Search for a compute order whose Belady pebbling is cheap; see the module docstring.

    Parameters
    ----------
    dag : Dag
        The graph.
    M : int
        Red pebbles, at least ``dag.min_memory``.
    iterations : int, optional
        Local-search evaluations (default :data:`DEFAULT_ITERATIONS` when no
        ``time_limit`` is given, unbounded otherwise).
    time_limit : float, optional
        Seconds for the local search.
    seed : int
        Seed of the random moves.

    Examples
    --------
    >>> g = Dag.from_edges(3, [(0, 2), (1, 2)])
    >>> search_order(g, 3, iterations=10).io
    3
    """
    M = dag.validate_memory(M)
    if iterations is not None and (isinstance(iterations, bool) or iterations < 0):
        raise PebbleParameterError(f"iterations={iterations!r} must be a nonnegative integer")
    if time_limit is not None:
        positive_number("time_limit", time_limit, PebbleParameterError)
    if iterations is None and time_limit is None:
        iterations = DEFAULT_ITERATIONS
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    cost = OrderPlayer(dag, M, "belady").cost

    natural = natural_order(dag)
    natural_io = cost(natural)
    fused = depth_first_order(dag)
    fused_io = cost(fused)
    current, current_io = (fused, fused_io) if fused_io < natural_io else (natural, natural_io)
    evaluated = 2
    length = current.size
    if length < 2:
        return SearchResult(current, current_io, natural_io, evaluated)
    rng = np.random.default_rng(seed)
    non_input = dag.indegree > 0
    pred_ptr, pred_idx = dag.pred_ptr, dag.pred_idx
    succ_ptr, succ_idx = dag.succ_ptr, dag.succ_idx
    position = np.full(dag.num_vertices, -1, dtype=np.int64)
    step = 0
    while iterations is None or step < iterations:
        if deadline is not None and time.perf_counter() > deadline:
            break
        step += 1
        position[current] = np.arange(length)
        i = int(rng.integers(length))
        v = current[i]
        preds = pred_idx[pred_ptr[v] : pred_ptr[v + 1]]
        preds = preds[non_input[preds]]
        succs = succ_idx[succ_ptr[v] : succ_ptr[v + 1]]
        # positions once v is removed from index i
        before, after = position[preds], position[succs]
        lo = int((before - (before > i)).max()) + 1 if preds.size else 0
        hi = int((after - (after > i)).min()) if succs.size else length - 1
        if hi <= lo:
            continue
        kind = int(rng.integers(3))  # next to its last predecessor, first successor, or anywhere
        k = lo if kind == 0 else hi if kind == 1 else int(rng.integers(lo, hi + 1))
        if k == i:
            continue
        candidate = np.insert(np.delete(current, i), k, v)
        candidate_io = cost(candidate)
        evaluated += 1
        if candidate_io <= current_io:
            current, current_io = candidate, candidate_io
    return SearchResult(current, current_io, natural_io, evaluated)
