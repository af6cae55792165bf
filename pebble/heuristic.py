"""Heuristic pebbling: play a compute order with an eviction policy (numba), and improve the order.

A *compute order* lists every non-input vertex once, in a topological order.
:func:`play` computes them in that order with at most ``M`` red pebbles:
missing predecessors are loaded, a full fast memory evicts a victim chosen by
the policy (``"belady"``: furthest next use; ``"lru"``: least recently used),
a victim is stored only if it is still needed and not yet blue, dead values
are deleted at once, and outputs are stored right after their computation.
Every vertex is computed exactly once, so the pebbling is legal in both the
standard and the one-shot variant (HK81, PW20) and is an upper bound on both
optima. :func:`pebble` adds ``"search"``: the order-improving local search of
:mod:`attnio.pebble.search`.

The ``lower`` field of the result is the compulsory cost (:func:`compulsory_io`),
so ``optimal`` is ``True`` only when the pebbling meets it.

References
----------
HK81 (the game); Belady 1966 (furthest-next-use eviction).
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Sequence

import numpy as np

from . import _kernels
from .dag import Dag
from .errors import ParameterError, SearchInterrupted
from .moves import check_variant, decode_moves
from .result import Pebbling

__all__ = [
    "HEURISTICS",
    "POLICIES",
    "compile_kernels",
    "compulsory_io",
    "natural_order",
    "pebble",
    "play",
    "play_cost",
    "sweep",
    "validate_order",
]

POLICIES = ("belady", "lru")
"""Eviction policies of :func:`play`."""

HEURISTICS = (*POLICIES, "search")
"""What :func:`pebble` accepts as ``heuristic``."""

_POLICY_CODES = {"belady": _kernels.BELADY, "lru": _kernels.LRU}


def compulsory_io(dag: Dag) -> int:
    """The compulsory I/O: inputs with a successor (loaded at least once) plus non-input outputs.

    A lower bound on every complete pebbling, in both variants: an input gets a
    red pebble only by a load, an output that is not an input gets a blue one
    only by a store.

    Examples
    --------
    >>> compulsory_io(Dag.from_edges(3, [(0, 2), (1, 2)]))
    3
    """
    indegree, outdegree = dag.indegree, dag.outdegree
    return int(
        np.sum((indegree == 0) & (outdegree > 0)) + np.sum((outdegree == 0) & (indegree > 0))
    )


def natural_order(dag: Dag) -> np.ndarray:
    """The non-input vertices in index order (the builders' stage-by-stage order).

    Examples
    --------
    >>> natural_order(Dag.from_edges(3, [(0, 2), (1, 2)])).tolist()
    [2]
    """
    return np.flatnonzero(dag.indegree > 0).astype(np.int64)


def validate_order(dag: Dag, order: Sequence[int] | np.ndarray) -> np.ndarray:
    """Return ``order`` as int64 if it lists every non-input vertex once, topologically.

    Raises
    ------
    ParameterError
        An entry out of range, an input, a repeat, a missing vertex, or a vertex
        before one of its predecessors.
    """
    array = np.asarray(order)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise ParameterError("order must be a one-dimensional sequence of vertex indices")
    array = array.astype(np.int64)
    count = dag.num_vertices
    if array.size and (array.min() < 0 or array.max() >= count):
        raise ParameterError(f"order has a vertex outside 0..{count - 1}")
    non_inputs = dag.indegree > 0
    if not non_inputs[array].all():
        bad = int(array[np.argmin(non_inputs[array])])
        raise ParameterError(f"order computes input {dag.labels[bad]!r}; inputs are loaded")
    position = np.full(count, -1, dtype=np.int64)
    position[array] = np.arange(array.size)
    if np.unique(array).size != array.size:
        raise ParameterError("order repeats a vertex; each non-input is computed once")
    if array.size != int(non_inputs.sum()):
        missing = np.flatnonzero(non_inputs & (position < 0))
        raise ParameterError(f"order misses vertex {dag.labels[int(missing[0])]!r}")
    edges = dag.edges()
    inner = non_inputs[edges[:, 0]]
    late = inner & (position[edges[:, 0]] > position[edges[:, 1]])
    if late.any():
        u, v = edges[np.argmax(late)].tolist()
        raise ParameterError(
            f"order computes {dag.labels[v]!r} before its predecessor {dag.labels[u]!r}"
        )
    return array


def _check_policy(policy: str) -> int:
    if policy not in _POLICY_CODES:
        raise ParameterError(f"policy={policy!r} must be one of {POLICIES}")
    return _POLICY_CODES[policy]


class _Arrays:
    """The flat arrays the kernel reads, built once per DAG."""

    def __init__(self, dag: Dag) -> None:
        self.pred_ptr = dag.pred_ptr
        self.pred_idx = dag.pred_idx
        self.is_input = np.ascontiguousarray(dag.indegree == 0)
        self.is_output = np.ascontiguousarray((dag.outdegree == 0) & ~self.is_input)
        self.bound = 2 * dag.num_edges + 3 * dag.num_vertices + 8
        if dag.num_vertices * (dag.num_vertices + 1) >= 2**62:
            raise ParameterError(
                f"graph of {dag.num_vertices} vertices and {dag.num_edges} edges is too large "
                "for the heuristic's int64 heap keys"
            )


def _run(arrays: _Arrays, order: np.ndarray, M: int, code: int, record: bool):
    buffer = np.empty((arrays.bound if record else 1, 2), dtype=np.int64)
    status, loads, stores, _computes, made = _kernels.play_order(
        arrays.pred_ptr,
        arrays.pred_idx,
        order,
        arrays.is_input,
        arrays.is_output,
        M,
        code,
        record,
        buffer,
    )
    if status != _kernels.OK:  # each of these is a bug of the kernel, not of the input
        raise RuntimeError(f"heuristic kernel failed with status {status} after {made} moves")
    return int(loads), int(stores), int(made), (buffer[:made] if record else None)


def play_cost(dag: Dag, M: int, order: np.ndarray, policy: str = "belady") -> int:
    """The I/O of playing a validated ``order`` (no result object; for search loops)."""
    loads, stores, _, _ = _run(_Arrays(dag), order, M, _check_policy(policy), False)
    return loads + stores


def play(
    dag: Dag,
    M: int,
    *,
    order: Sequence[int] | np.ndarray | None = None,
    policy: str = "belady",
    variant: str = "standard",
    moves: bool = False,
) -> Pebbling:
    """Pebble ``dag`` by computing ``order`` (default: :func:`natural_order`) under ``policy``.

    Parameters
    ----------
    dag : Dag
        The graph.
    M : int
        Red pebbles, at least ``dag.min_memory``.
    order : sequence of int, optional
        The non-input vertices in a topological order.
    policy : {"belady", "lru"}
        Eviction policy.
    variant : {"standard", "oneshot"}
        Only recorded in the result: the pebbling computes each vertex once, so
        it is legal in both.
    moves : bool
        Return the move sequence too.

    Returns
    -------
    Pebbling
        ``optimal`` is ``True`` only if the cost equals the compulsory lower bound.

    Examples
    --------
    >>> g = Dag.from_edges(["a", "b", "c"], [(0, 2), (1, 2)])
    >>> play(g, 3).io
    3
    """
    start = time.perf_counter()
    M = dag.validate_memory(M)
    check_variant(variant)
    code = _check_policy(policy)
    order = natural_order(dag) if order is None else validate_order(dag, order)
    loads, stores, _, raw = _run(_Arrays(dag), order, M, code, moves)
    return _result(dag, M, variant, policy, loads, stores, raw, start, 0)


def _result(dag, M, variant, method, loads, stores, raw, start, states) -> Pebbling:
    io = loads + stores
    lower = compulsory_io(dag)
    return Pebbling(
        io=io,
        loads=loads,
        stores=stores,
        optimal=io == lower,
        lower=lower,
        upper=io,
        variant=variant,
        M=M,
        vertices=dag.num_vertices,
        states_explored=states,
        seconds=time.perf_counter() - start,
        moves=None if raw is None else decode_moves(raw),
        method=method,
    )


def pebble(
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
    >>> pebble(g, 3, heuristic="lru").io
    3
    """
    if heuristic not in HEURISTICS:
        raise ParameterError(f"heuristic={heuristic!r} must be one of {HEURISTICS}")
    if heuristic != "search":
        return play(dag, M, policy=heuristic, variant=variant, moves=moves)
    from .search import search_order

    start = time.perf_counter()
    M = dag.validate_memory(M)
    check_variant(variant)
    found = search_order(dag, M, iterations=iterations, time_limit=time_limit, seed=seed)
    loads, stores, _, raw = _run(_Arrays(dag), found.order, M, _kernels.BELADY, moves)
    return _result(dag, M, variant, "search", loads, stores, raw, start, found.evaluated)


def sweep(dag: Dag, Ms: Sequence[int], *, heuristic: str = "belady", **options) -> list[Pebbling]:
    """Pebble ``dag`` for every M in ``Ms`` (increasing); the best found I/O as a function of M.

    A pebbling with M' red pebbles is one with any M >= M' too, so each size
    reports the cheapest pebbling found at it or at a smaller size (its
    ``method`` then says ``"<heuristic> (from M=M')"``): the returned upper
    bounds never increase with M. ``options`` go to :func:`pebble`. Ctrl-C raises
    :class:`~attnio.pebble.errors.SearchInterrupted` holding the sizes finished.

    Examples
    --------
    >>> g = Dag.from_edges(3, [(0, 2), (1, 2)])
    >>> [p.io for p in sweep(g, [3, 4])]
    [3, 3]
    """
    Ms = [dag.validate_memory(M) for M in Ms]
    if any(b <= a for a, b in itertools.pairwise(Ms)):
        raise ParameterError(f"Ms={Ms} must be strictly increasing")
    results: list[Pebbling] = []
    for M in Ms:
        try:
            found = pebble(dag, M, heuristic=heuristic, **options)
        except KeyboardInterrupt:
            raise SearchInterrupted(results) from None
        if results and results[-1].io < found.io:
            best = results[-1]
            origin = best.method if "(from" in best.method else f"{best.method} (from M={best.M})"
            found = dataclasses.replace(best, M=M, method=origin, seconds=found.seconds)
        results.append(found)
    return results


def compile_kernels() -> None:
    """Compile (or load from cache) every kernel on a tiny graph, so later timings exclude it."""
    dag = Dag.from_edges(3, [(0, 2), (1, 2)])
    for policy in POLICIES:
        play(dag, 3, policy=policy, moves=True)
    from .search import search_order

    search_order(dag, 3, iterations=2, seed=0)
