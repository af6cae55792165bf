"""A slow, obviously correct exact pebbling search: the oracle of the numba solver.

:func:`reference_optimum` runs Dijkstra's algorithm over every reachable game state
``(red set, blue set, computed set)`` with every legal move of docs/game.md and
nothing else: no pruning, no heuristic, no macro moves. Its only conventions are the
ones :func:`attnio.pebble.moves.replay` pins (a move must change the state; ``delete``
removes a red pebble; blue pebbles are never removed), so every path it explores is a
pebbling ``replay`` accepts, and the optimum it returns is IO(G, M) by the correctness of
Dijkstra's algorithm with nonnegative costs (load and store cost 1, compute and delete 0).

It is exponential and pure Python: meant for graphs of at most about ten vertices.

References
----------
HK81 (the game); PW20 (the one-shot variant).
"""

from __future__ import annotations

import heapq
import itertools

from .dag import Dag
from .errors import InstanceTooLargeError
from .moves import Move, check_variant
from .variants import GAME_VARIANTS

__all__ = ["reference_optimum"]


def reference_optimum(
    dag: Dag, M: int, *, variant: str = "standard", max_states: int = 2_000_000
) -> tuple[int, list[Move]]:
    """Return IO(G, M) and an optimal pebbling, by plain Dijkstra over all game states.

    Parameters
    ----------
    dag : Dag
        The graph.
    M : int
        The number of red pebbles, at least ``dag.min_memory``.
    variant : {"standard", "oneshot"}
        ``"oneshot"`` forbids computing a vertex twice (the state then carries the
        set of computed vertices).
    max_states : int
        Refuse (rather than run for hours) once more states than this were seen.

    Returns
    -------
    (int, list of Move)
        The minimum I/O and a pebbling reaching it.

    Raises
    ------
    MemoryTooSmallError, PebbleParameterError
        ``M`` below ``dag.min_memory``; unknown variant.
    InstanceTooLargeError
        More than ``max_states`` states were reached.

    References
    ----------
    HK81 section 2 (the rules), PW20 (one-shot).

    Examples
    --------
    >>> g = Dag.from_edges(["a", "b", "c"], [(0, 2), (1, 2)])
    >>> reference_optimum(g, 3)[0]
    3
    """
    M = dag.validate_memory(M)
    oneshot = not GAME_VARIANTS[check_variant(variant)].recomputation
    count = dag.num_vertices
    preds = [dag.predecessors(v).tolist() for v in range(count)]
    is_input = [not p for p in preds]
    outputs = 0
    for v in dag.outputs.tolist():
        outputs |= 1 << v
    blue0 = 0
    for v in dag.inputs.tolist():
        blue0 |= 1 << v

    start = (0, blue0, 0)  # (red, blue, computed) as bit sets
    best = {start: 0}
    parent: dict[tuple[int, int, int], tuple[tuple[int, int, int], Move]] = {}
    tie = itertools.count()
    heap = [(0, next(tie), start)]
    while heap:
        cost, _, state = heapq.heappop(heap)
        if cost > best[state]:
            continue
        red, blue, computed = state
        if blue & outputs == outputs:
            return cost, _path(parent, state)
        reds = red.bit_count()
        for v in range(count):
            bit = 1 << v
            moves = []
            if red & bit:
                moves.append((Move("delete", v), (red & ~bit, blue, computed), 0))
                if not blue & bit:
                    moves.append((Move("store", v), (red, blue | bit, computed), 1))
            elif reds < M:
                if blue & bit:
                    moves.append((Move("load", v), (red | bit, blue, computed), 1))
                if (
                    not is_input[v]
                    and all(red >> p & 1 for p in preds[v])
                    and not (oneshot and computed & bit)
                ):
                    marked = computed | bit if oneshot else 0
                    moves.append((Move("compute", v), (red | bit, blue, marked), 0))
            for move, nxt, step in moves:
                if cost + step < best.get(nxt, cost + step + 1):
                    if nxt not in best and len(best) >= max_states:
                        raise InstanceTooLargeError(
                            f"the reference search reached max_states={max_states} states on a "
                            f"graph of {count} vertices with M={M}; it is meant for graphs of at "
                            "most about ten vertices (use solve_exact, or raise max_states)"
                        )
                    best[nxt] = cost + step
                    parent[nxt] = (state, move)
                    heapq.heappush(heap, (cost + step, next(tie), nxt))
    raise AssertionError("unreachable: M >= min_memory always admits a pebbling")


def _path(
    parent: dict[tuple[int, int, int], tuple[tuple[int, int, int], Move]],
    state: tuple[int, int, int],
) -> list[Move]:
    moves = []
    while state in parent:
        state, move = parent[state]
        moves.append(move)
    return moves[::-1]
