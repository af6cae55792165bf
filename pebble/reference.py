"""Slow, obviously correct pure-Python twins of the numba kernels in :mod:`._kernels`.

The tests require the kernels to produce the very same move sequences as these
functions on random DAGs; the benchmarks time both side by side.
"""

from __future__ import annotations

from collections.abc import Sequence

from .dag import Dag
from .moves import Move

__all__ = ["play_order"]


def play_order(dag: Dag, order: Sequence[int], M: int, policy: str) -> list[Move]:
    """Return the moves that play ``order`` with ``M`` red pebbles under ``policy``.

    ``order`` lists the non-input vertices in a topological order; ``policy`` is
    ``"belady"`` (evict the red vertex whose next use is furthest, ties to the
    larger index) or ``"lru"`` (evict the least recently used; a vertex is used
    when it is computed and when a computation reads it). The victim must not be
    a predecessor of the vertex being computed; it is stored first unless it is
    already blue. Predecessors are loaded in ascending order; values without a
    further use are deleted right after the computation; outputs are stored and
    deleted right after theirs. No argument checking: the driver does it.
    """
    uses: dict[int, list[int]] = {v: [] for v in range(dag.num_vertices)}
    for t, v in enumerate(order):
        for p in dag.predecessors(v).tolist():
            uses[p].append(t)
    outputs = set(dag.outputs.tolist())
    red: set[int] = set()
    blue = set(dag.inputs.tolist())
    last_touch: dict[int, int] = {}
    consumed = dict.fromkeys(range(dag.num_vertices), 0)
    clock = 0
    moves: list[Move] = []

    def evict(pinned: set[int], t: int) -> None:
        candidates = [u for u in red if u not in pinned]
        if policy == "belady":
            victim = max(candidates, key=lambda u: (uses[u][consumed[u]], u))
        else:
            victim = min(candidates, key=lambda u: last_touch[u])
        if victim not in blue:
            blue.add(victim)
            moves.append(Move("store", victim))
        red.remove(victim)
        moves.append(Move("delete", victim))

    for t, v in enumerate(order):
        preds = dag.predecessors(v).tolist()
        pinned = set(preds)
        for p in preds:
            if p in red:
                continue
            if len(red) == M:
                evict(pinned, t)
            red.add(p)
            moves.append(Move("load", p))
        if len(red) == M:
            evict(pinned, t)
        red.add(v)
        moves.append(Move("compute", v))
        for p in preds:
            consumed[p] += 1
            if consumed[p] == len(uses[p]):
                red.remove(p)
                moves.append(Move("delete", p))
            else:
                clock += 1
                last_touch[p] = clock
        if v in outputs:
            blue.add(v)
            red.remove(v)
            moves += [Move("store", v), Move("delete", v)]
        else:
            clock += 1
            last_touch[v] = clock
    return moves
