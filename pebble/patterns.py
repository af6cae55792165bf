"""Pattern databases: a memory-aware admissible heuristic for the exact pebbling search.

The plain heuristic of :mod:`.exact` counts the loads and stores that are forced
whatever the memory; with few red pebbles most of the I/O of an optimal pebbling is
spent on memory pressure, which it does not see (dense forward n=2, d=1, M=3:
it estimates 8 at the start, the optimum is 25). A pattern database sees it on a
small part of the graph, exactly:

*Restriction.* Let ``P`` be any set of vertices. Keep, from a pebbling of the DAG,
only the moves on vertices of ``P``. The result is a legal pebbling of the *pattern
game* on ``P``: the standard game in which predecessors outside ``P`` count as red
(a compute of a vertex of ``P`` needs its predecessors in ``P`` red), at most ``M``
red pebbles on ``P`` (there are at most ``M`` in all), loads need a blue pebble
(whether a vertex is blue depends only on the moves on it), and the outputs in ``P``
still end blue. So the optimal pattern-game cost from the projection of a state is a
lower bound on the cost still needed from that state, for any search rules of
:mod:`.exact` (they only restrict pebblings) and in both variants (a one-shot
pebbling is a standard one).

*Cost partition.* Each pattern charges a weight of 0 or 1 for a load or store of each
of its vertices, and every vertex is charged by at most one pattern. The loads and
stores counted by different patterns are then distinct moves of the pebbling, so the
*sum* of the patterns' costs is still a lower bound (additive pattern databases).

Each pattern's table holds the optimal pattern-game cost from every abstract state,
computed once by a backward 0-1 breadth-first search (:mod:`._pattern_kernels`); the
search adds the entries of a state's projections, and :mod:`.exact` takes the larger
of that sum and its plain heuristic. Patterns are chosen greedily: for each output
in turn, the output and then its nearest ancestors while the table stays within
``max_entries``; each pattern charges the vertices no earlier pattern charges.
:func:`reference_costs` is the slow, obviously correct dictionary version of one
table, against which the kernel is tested.

References
----------
J. C. Culberson and J. Schaeffer, "Pattern databases", Computational Intelligence
14(3), 1998 (pattern databases); A. Felner, R. E. Korf and S. Hanan, "Additive
pattern database heuristics", JAIR 22, 2004 (additive databases by a partition of
the costs); HK81 (the game).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from . import _exact_kernels as search_kern
from . import _pattern_kernels as kern
from .dag import Dag

__all__ = [
    "DEFAULT_MAX_ENTRIES",
    "DEFAULT_MAX_TOTAL",
    "Pattern",
    "PatternSet",
    "build_patterns",
    "choose_patterns",
    "reference_costs",
]

DEFAULT_MAX_ENTRIES = 1 << 21
"""Most abstract states in one pattern's table (about 2M: about half a second to build)."""

DEFAULT_MAX_TOTAL = 1 << 23
"""Most abstract states over all patterns of one search."""

MAX_PATTERN = search_kern.MAX_PATTERN


@dataclass(frozen=True)
class Pattern:
    """One pattern: its vertices (increasing), the ones it charges, and its cost table."""

    vertices: tuple[int, ...]
    charged: frozenset[int]
    M: int
    costs: np.ndarray

    def value(self, dag: Dag, red: Iterable[int], blue: Iterable[int]) -> int:
        """Table entry of the projection of the state ``(red, blue)`` (blue inputs implied)."""
        inputs = set(dag.inputs.tolist())
        local = {v: j for j, v in enumerate(self.vertices)}
        red_mask = sum(1 << local[v] for v in set(red) if v in local)
        blue_bits = 0
        position = 0
        blue = set(blue)
        for v in self.vertices:
            if v not in inputs:
                blue_bits |= int(v in blue) << position
                position += 1
        binom = kern.binomials(64)
        offsets = kern.red_offsets(len(self.vertices), self.M, binom)
        rank = kern.rank_of(red_mask, len(self.vertices), offsets, binom)
        return int(self.costs[rank * (1 << position) + blue_bits])


@dataclass(frozen=True)
class PatternSet:
    """The patterns of one (DAG, M), packed for the search kernel by :meth:`packed`."""

    M: int
    patterns: tuple[Pattern, ...]

    @property
    def entries(self) -> int:
        """Abstract states over all tables."""
        return sum(int(p.costs.size) for p in self.patterns)

    def value(self, dag: Dag, red: Iterable[int], blue: Iterable[int]) -> int:
        """The heuristic's pattern part at a state: the sum of the patterns' entries."""
        red, blue = set(red), set(blue)
        return sum(p.value(dag, red, blue) for p in self.patterns)

    def packed(self, dag: Dag) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(vertices, info, costs, binom)`` as :func:`._exact_kernels.pattern_sum` reads them."""
        count = len(self.patterns)
        vertices = np.full((count, MAX_PATTERN), -1, dtype=np.int64)
        info = np.zeros((count, search_kern.INFO_WIDTH), dtype=np.int64)
        binom = kern.binomials(64)
        inputs = set(dag.inputs.tolist())
        offset = 0
        for k, pattern in enumerate(self.patterns):
            a = len(pattern.vertices)
            vertices[k, :a] = pattern.vertices
            position = 0
            for j, v in enumerate(pattern.vertices):
                if v in inputs:
                    info[k, search_kern.INFO_BLUE + j] = -1
                else:
                    info[k, search_kern.INFO_BLUE + j] = position
                    position += 1
            offsets = kern.red_offsets(a, self.M, binom)
            info[k, search_kern.INFO_OFFSETS : search_kern.INFO_OFFSETS + offsets.size] = offsets
            info[k, 0], info[k, 1], info[k, 2] = a, position, offset
            offset += pattern.costs.size
        costs = (
            np.concatenate([p.costs for p in self.patterns])
            if count
            else np.zeros(0, dtype=np.int64)
        )
        return vertices, info, costs, binom


def table_entries(dag: Dag, vertices: Sequence[int], M: int) -> int:
    """Abstract states of a pattern: red sets of size <= M times blue sets of its non-inputs."""
    inputs = set(dag.inputs.tolist())
    a = len(vertices)
    reds = sum(math.comb(a, k) for k in range(min(a, M) + 1))
    return reds << sum(1 for v in vertices if v not in inputs)


def choose_patterns(
    dag: Dag, M: int, *, max_entries: int = DEFAULT_MAX_ENTRIES, max_total: int = DEFAULT_MAX_TOTAL
) -> list[tuple[tuple[int, ...], frozenset[int]]]:
    """Return ``(vertices, charged)`` of each pattern, chosen greedily (module docstring).

    For each output in increasing order: start from the output and add its ancestors
    in breadth-first order (nearest first), skipping a vertex whose addition would
    make the table larger than ``max_entries`` or the pattern larger than
    ``MAX_PATTERN``. The pattern charges its vertices that no earlier pattern
    charges; a pattern that would charge nothing, or push the total over
    ``max_total``, is not built.
    """
    charged: set[int] = set()
    chosen = []
    total = 0
    for output in dag.outputs.tolist():
        members = [output]
        seen = {output}
        queue = deque([output])
        while queue:
            v = queue.popleft()
            for u in sorted(dag.predecessors(v).tolist(), reverse=True):
                if u in seen:
                    continue
                seen.add(u)
                queue.append(u)
                if (
                    len(members) < MAX_PATTERN
                    and table_entries(dag, [*members, u], M) <= max_entries
                ):
                    members.append(u)
        mine = frozenset(members) - charged
        size = table_entries(dag, members, M)
        if not mine or size > max_entries or total + size > max_total:
            continue
        charged |= mine
        total += size
        chosen.append((tuple(sorted(members)), mine))
    return chosen


def build_patterns(
    dag: Dag, M: int, *, max_entries: int = DEFAULT_MAX_ENTRIES, max_total: int = DEFAULT_MAX_TOTAL
) -> PatternSet:
    """Choose the patterns of ``dag`` for ``M`` red pebbles and build their tables."""
    binom = kern.binomials(64)
    patterns = []
    for vertices, charged in choose_patterns(dag, M, max_entries=max_entries, max_total=max_total):
        pred, is_input, weight, goal = _local_arrays(dag, vertices, charged)
        costs = kern.build_table(pred, is_input, weight, goal, M, binom)
        patterns.append(Pattern(vertices, charged, M, costs))
    return PatternSet(M, tuple(patterns))


def _local_arrays(
    dag: Dag, vertices: Sequence[int], charged: Iterable[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.int64]:
    local = {v: j for j, v in enumerate(vertices)}
    charged = set(charged)
    inputs = set(dag.inputs.tolist())
    outputs = set(dag.outputs.tolist())
    pred = np.zeros(len(vertices), dtype=np.int64)
    for j, v in enumerate(vertices):
        for u in dag.predecessors(v).tolist():
            if u in local:
                pred[j] |= 1 << local[u]
    is_input = np.array([int(v in inputs) for v in vertices], dtype=np.int64)
    weight = np.array([int(v in charged) for v in vertices], dtype=np.int64)
    # an input that is also an output (an isolated vertex) is blue from the start
    goal = np.int64(sum(1 << j for j, v in enumerate(vertices) if v in outputs and v not in inputs))
    return pred, is_input, weight, goal


def reference_costs(
    dag: Dag, vertices: Sequence[int], charged: Iterable[int], M: int
) -> dict[tuple[frozenset[int], frozenset[int]], int]:
    """The optimal pattern-game cost from every abstract state, by plain Dijkstra.

    Slow and obviously correct: states are ``(red, blue)`` frozensets of DAG
    vertices (``blue`` only non-inputs), the moves are the game's four moves applied
    forwards, and each state's cost is a separate forward search to the goal.
    Used by the tests on tiny patterns only.
    """
    members = set(vertices)
    charged = set(charged)
    inputs = set(dag.inputs.tolist()) & members
    goal = (set(dag.outputs.tolist()) & members) - inputs
    preds = {v: set(dag.predecessors(v).tolist()) & members for v in members}
    non_inputs = sorted(members - inputs)

    def moves(red: frozenset[int], blue: frozenset[int]):
        for v in members:
            if v in red:
                yield red - {v}, blue, 0  # delete
                if v not in inputs and v not in blue:
                    yield red, blue | {v}, int(v in charged)  # store
            elif len(red) < M:
                if v in inputs or v in blue:
                    yield red | {v}, blue, int(v in charged)  # load
                if v not in inputs and preds[v] <= red:
                    yield red | {v}, blue, 0  # compute

    def cost(start: tuple[frozenset[int], frozenset[int]]) -> int:
        best = {start: 0}
        frontier = [(0, 0, start)]
        tie = itertools.count(1)
        while frontier:
            g, _, state = heapq.heappop(frontier)
            if g > best[state]:
                continue
            if goal <= state[1]:
                return g
            for red, blue, c in moves(*state):
                if g + c < best.get((red, blue), math.inf):
                    best[(red, blue)] = g + c
                    heapq.heappush(frontier, (g + c, next(tie), (red, blue)))
        raise AssertionError("the goal is always reachable")  # pragma: no cover

    out = {}
    for size in range(min(M, len(members)) + 1):
        for red in itertools.combinations(sorted(members), size):
            for flags in itertools.product((0, 1), repeat=len(non_inputs)):
                blue = frozenset(v for v, f in zip(non_inputs, flags, strict=True) if f)
                out[(frozenset(red), blue)] = cost((frozenset(red), blue))
    return out
