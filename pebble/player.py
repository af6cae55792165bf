"""The order player: compute a topological order with an eviction policy (numba kernel).

A *compute order* lists every non-input vertex once, in a topological order.
:func:`play` computes them in that order with at most ``M`` red pebbles:
missing predecessors are loaded, a full fast memory evicts a victim chosen by
the policy (``"belady"``: furthest next use; ``"lru"``: least recently used),
a victim is stored only if it is still needed and not yet blue, dead values
are deleted at once, and outputs are stored right after their computation.
Every vertex is computed exactly once, so the pebbling is legal in both the
standard and the one-shot variant (HK81, PW20) and is an upper bound on both
optima. The kernel's pure-Python twin is :func:`attnio.pebble.reference.play_order`.

The ``lower`` field of the result is the compulsory cost (:func:`compulsory_io`),
so ``optimal`` is ``True`` only when the pebbling meets it.

References
----------
HK81 (the game); Belady 1966 (furthest-next-use eviction).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from . import _kernels
from .dag import Dag
from .errors import PebbleParameterError
from .moves import check_variant, decode_moves
from .result import Pebbling

__all__ = [
    "POLICIES",
    "OrderPlayer",
    "compulsory_io",
    "natural_order",
    "play",
    "play_cost",
    "validate_order",
]

POLICIES = ("belady", "lru")
"""Eviction policies of :func:`play`."""

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
    PebbleParameterError
        An entry out of range, an input, a repeat, a missing vertex, or a vertex
        before one of its predecessors.
    """
    array = np.asarray(order)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise PebbleParameterError("order must be a one-dimensional sequence of vertex indices")
    array = array.astype(np.int64)
    count = dag.num_vertices
    if array.size and (array.min() < 0 or array.max() >= count):
        raise PebbleParameterError(f"order has a vertex outside 0..{count - 1}")
    non_inputs = dag.indegree > 0
    if not non_inputs[array].all():
        bad = int(array[np.argmin(non_inputs[array])])
        raise PebbleParameterError(f"order computes input {dag.labels[bad]!r}; inputs are loaded")
    position = np.full(count, -1, dtype=np.int64)
    position[array] = np.arange(array.size)
    if np.unique(array).size != array.size:
        raise PebbleParameterError("order repeats a vertex; each non-input is computed once")
    if array.size != int(non_inputs.sum()):
        missing = np.flatnonzero(non_inputs & (position < 0))
        raise PebbleParameterError(f"order misses vertex {dag.labels[int(missing[0])]!r}")
    edges = dag.edges()
    inner = non_inputs[edges[:, 0]]
    late = inner & (position[edges[:, 0]] > position[edges[:, 1]])
    if late.any():
        u, v = edges[np.argmax(late)].tolist()
        raise PebbleParameterError(
            f"order computes {dag.labels[v]!r} before its predecessor {dag.labels[u]!r}"
        )
    return array


class OrderPlayer:
    """Plays compute orders of one DAG with ``M`` red pebbles under one eviction policy.

    The flat arrays the kernel reads are built once, so a search loop can play
    many orders cheaply. ``M`` must already be validated
    (:meth:`Dag.validate_memory`) and each order validated (:func:`validate_order`)
    or built topologically by the caller.

    Examples
    --------
    >>> g = Dag.from_edges(3, [(0, 2), (1, 2)])
    >>> OrderPlayer(g, 3).cost(natural_order(g))
    3
    """

    def __init__(self, dag: Dag, M: int, policy: str = "belady") -> None:
        if policy not in _POLICY_CODES:
            raise PebbleParameterError(f"policy={policy!r} must be one of {POLICIES}")
        if dag.num_vertices * (dag.num_vertices + 1) >= 2**62:
            raise PebbleParameterError(
                f"graph of {dag.num_vertices} vertices and {dag.num_edges} edges is too large "
                "for the heuristic's int64 heap keys"
            )
        self.dag, self.M, self.policy = dag, M, policy
        self._code = _POLICY_CODES[policy]
        self._is_input = np.ascontiguousarray(dag.indegree == 0)
        self._is_output = np.ascontiguousarray((dag.outdegree == 0) & ~self._is_input)
        self._bound = 2 * dag.num_edges + 3 * dag.num_vertices + 8

    def run(self, order: np.ndarray, record: bool) -> tuple[int, int, np.ndarray | None]:
        """Play ``order``: ``(loads, stores, moves)``, the moves as an op-code array if ``record``."""
        buffer = np.empty((self._bound if record else 1, 2), dtype=np.int64)
        status, loads, stores, _computes, made = _kernels.play_order(
            self.dag.pred_ptr,
            self.dag.pred_idx,
            order,
            self._is_input,
            self._is_output,
            self.M,
            self._code,
            record,
            buffer,
        )
        if status != _kernels.OK:  # each of these is a bug of the kernel, not of the input
            raise RuntimeError(f"heuristic kernel failed with status {status} after {made} moves")
        return int(loads), int(stores), (buffer[:made] if record else None)

    def cost(self, order: np.ndarray) -> int:
        """The I/O of playing ``order`` (no moves recorded; for search loops)."""
        loads, stores, _ = self.run(order, False)
        return loads + stores

    def pebbling(
        self,
        order: np.ndarray,
        *,
        variant: str,
        method: str,
        moves: bool,
        start: float,
        states: int = 0,
    ) -> Pebbling:
        """Play ``order`` and return the result, timed from ``start`` (a perf_counter value)."""
        loads, stores, raw = self.run(order, moves)
        io = loads + stores
        lower = compulsory_io(self.dag)
        return Pebbling(
            io=io,
            loads=loads,
            stores=stores,
            optimal=io == lower,
            lower=lower,
            upper=io,
            variant=variant,
            M=self.M,
            vertices=self.dag.num_vertices,
            states_explored=states,
            seconds=time.perf_counter() - start,
            moves=None if raw is None else decode_moves(raw),
            method=method,
        )


def play_cost(dag: Dag, M: int, order: np.ndarray, policy: str = "belady") -> int:
    """The I/O of playing a validated ``order`` (no result object; for search loops)."""
    return OrderPlayer(dag, M, policy).cost(order)


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
    player = OrderPlayer(dag, M, policy)
    order = natural_order(dag) if order is None else validate_order(dag, order)
    return player.pebbling(order, variant=variant, method=policy, moves=moves, start=start)
