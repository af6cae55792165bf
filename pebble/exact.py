"""Exact red-blue pebbling: the proven minimum I/O IO(G, M) of small DAGs, with a certificate.

:func:`solve_exact` runs A* (numba kernels in :mod:`._exact_kernels`) over game states
``(red set, blue set, computed set)`` encoded as one-word bit sets, so graphs of at most
62 vertices; in practice the reach is a few dozen vertices (Q is PSPACE-complete to
compute, DL18; NP-hard in the one-shot variant, PW20). The result carries an optimal move
sequence that :func:`attnio.pebble.moves.replay` re-checks before it is returned. Under
a state or time limit the search stops and reports proven bounds ``lower <= IO <= upper``
with ``optimal=False``; it never claims an optimum it did not prove.

The game (docs/game.md, HK81; one-shot PW20) and the conventions of ``replay``:
inputs are the sources and start blue, outputs are the sinks and must end blue, blue
pebbles are never removed (removing one never helps: every rule's precondition and the
goal are monotone in the blue set), a move must change the state.

Search rules
------------
Each rule below restricts the moves the search tries or merges states. Each is a switch
of ``rules`` and is tested against the search without it (and against the brute force
:func:`attnio.pebble.exact_reference.reference_optimum`, which has none of them). The
argument for each: from any pebbling one can build another, no more expensive, that
obeys the rule; the transformations below are applied in this order and each keeps the
properties established before it.

``"dead-pebbles"``
    A vertex is *dead* when no output still lacking a blue pebble is reachable from it
    (itself included); in the one-shot variant also when it is not an output and all
    its successors are computed. The red pebble of a dead vertex is removed at once, and
    dead vertices are never loaded or computed. Why: the dead set D only grows (blue and
    computed sets only grow) and is closed under successors; a compute of a vertex
    outside D never needs a red pebble in D (its predecessor would then be in D, or, in
    the one-shot case, it would be a successor already computed and cannot be computed
    again); stores of D vertices only serve loads of D vertices. So deleting every move
    on a vertex from the moment it turns dead leaves a legal pebbling (fewer red pebbles
    only free memory) that still ends with every output blue (a missing output is never
    dead), at no greater cost. The blue pebbles of dead non-outputs are also dropped from
    the state (they could only serve loads of dead vertices), which merges states that
    differ only there; ``replay`` still sees them, which changes nothing.
``"output-macro"``
    An output is computed only when it is not blue, and the compute is immediately
    followed by its store and the deletion of its red pebble (one transition of cost 1);
    outputs are never loaded. Why: a red pebble on a sink can only serve a store of that
    sink. In each maximal interval during which an output holds a red pebble, move the
    interval's store (if any) to right after the compute that began the interval (the
    pebble is present throughout) and delete the pebble right after it; an interval
    without a store, an interval begun by a load (it needs the vertex blue already), or
    one after the output is blue is removed entirely.
``"lazy-store"``
    A non-output is stored only immediately before its red pebble is deleted (a
    "write-back" transition: store then delete, cost 1). Why: between a store of a
    non-output ``v`` and the end of that red interval of ``v``, the new blue pebble can
    only serve a load of ``v``, which is impossible while ``v`` is red; so the store can
    be moved to the end of the interval, and dropped when the interval never ends (a
    non-output's blue pebble matters only for later loads).
``"delete-when-full"``
    A red pebble is deleted (or written back) only when all M red pebbles are in use
    (deletions of dead pebbles and of a freshly stored output excepted). Why: a deletion
    at a state with fewer than M red pebbles can be swapped with the next move: a load or
    compute of another vertex then still has a free pebble (the count was below M); a
    load or compute of the same vertex becomes a no-op and is dropped (never more
    expensive); a store or deletion of another vertex commutes. Repeating moves the
    deletion to a full state, to the moment its vertex turns dead, or past the end
    (dropped). A write-back (store then delete) moves as one block.
``"heuristic"``
    A* orders states by ``f = g + h``, with ``h`` = (outputs not yet blue) + (vertices
    that must become red again and can only do so by a load). The second term: let
    ``N`` start as the missing outputs and, going backwards through the topological
    order, add the predecessors of every vertex of ``N`` that is neither red nor blue
    (and, one-shot, not yet computed). Such a vertex must become red again (a missing
    output must be stored, which needs a red pebble; a computation needs all
    predecessors red), and the first time it does is a compute (a load needs a blue
    pebble, which needs a red pebble first), which needs all its predecessors red. So
    every non-red input in ``N`` needs a load, as does (one-shot) every non-red blue
    computed vertex of ``N``; and a computed one-shot vertex of ``N`` without any pebble
    makes the state hopeless. Loads of distinct vertices and stores of distinct outputs
    are distinct moves, so ``h`` never exceeds the remaining cost (admissible). It is
    also consistent: a store or load changes it by at most 1, a compute leaves it
    unchanged (the predecessors it drops from ``N`` are red), a deletion only raises it.
    Off (and "pattern-databases" off), the search is Dijkstra's algorithm.
``"single-successor"`` (standard variant; one-shot has "dead-pebbles" for this)
    Let ``v`` have exactly one successor ``w``. When ``w`` is red, the red pebble of
    ``v`` is removed; when ``w`` is blue, ``v`` is never loaded or stored. Why: the red
    pebble of ``v`` serves only computes of ``w`` and stores of ``v``, whose blue pebble
    in turn serves only loads of ``v``. Follow any pebbling with a *proxy*: from the
    moment that pebble of ``v`` is redundant (``w`` red) or would be loaded (``w``
    blue; load ``w`` instead, same cost, or nothing if ``w`` is red), let a red pebble
    on ``w`` stand for it: a compute of ``w`` from ``v`` becomes a no-op (dropped), a
    deletion of the ``w`` pebble while ``v``'s lives is skipped, a deletion of ``v``'s
    pebble deletes the proxy unless ``w`` holds a pebble of its own, a store of ``v``
    becomes a store of ``w`` (or nothing if ``w`` is blue) and a later load of ``v`` a
    load of ``w``. The proxy never needs more red pebbles than the original, costs no
    more, and leaves every output at least as blue.
``"use-before-delete"``
    A red pebble placed by a load or a compute is not deleted before it was used by a
    compute (as a predecessor) or a store (a write-back counts). Why: if the pebble
    placed at time t1 is deleted at t2 unused, drop both moves; in between the red count
    is one lower and no move needed that pebble, so the pebbling stays legal, and it
    is no more expensive (one load fewer, or one compute fewer). In the one-shot
    variant that compute's value was lost unused, so no successor of the vertex is ever
    computed and dropping the compute forbids nothing. Dropping pairs lowers some red
    counts, which can move other deletions to non-full states; moving those later
    again (``"delete-when-full"``) keeps every use before its deletion, and the process
    ends since each drop shortens the pebbling. The state carries the set of unused red
    pebbles; dead-pebble removal is not a voluntary deletion and is unaffected.
``"pattern-databases"``
    The heuristic becomes the larger of the plain one above and the sum of additive
    pattern databases (:mod:`.patterns`): for each output, the exact optimum of the
    game restricted to the output and its nearest ancestors, from the projection of
    the state, with the cost of each vertex's loads and stores charged to one pattern
    only. Restricting a pebbling to a vertex set leaves a legal pebbling of that
    pattern's game, and patterns charge disjoint moves, so the sum never exceeds the
    remaining cost (argued in full in :mod:`.patterns`); the larger of two admissible
    heuristics is admissible. The databases cost a table build (under half a second for the
    default sizes), so a search first runs ``_PROBE_EXPANSIONS`` expansions with the
    plain heuristic and builds them only if that does not finish; the search then
    restarts, with the databases if they estimate the start state at least as high as
    the plain heuristic and without them otherwise, keeping the probe's proven lower
    bound and best pebbling. Off, no databases are built.
``"additive-patterns"`` (with ``"pattern-databases"`` and ``"heuristic"``)
    The databases' estimate becomes their sum plus the moves the plain heuristic counts
    on vertices that no pattern charges. Why: each pattern's entry bounds the loads and
    stores still needed on the vertices it charges, no two patterns charge the same
    vertex, and every move the plain heuristic counts is a load or store of one
    particular vertex (a store of each missing output, a load of each other counted
    vertex, no vertex twice); keeping only those on uncharged vertices, all the counted
    moves are distinct moves of any pebbling that finishes from the state, so the sum
    never exceeds the remaining cost. It matters where the patterns cover only part of
    the graph: at the start state their sum alone is often below the plain heuristic
    (uncharged inputs and outputs are then not counted at all), which leaves the
    databases off.
``"reload-after-store"``
    Every stored non-output is loaded again later. Why: a blue pebble on a non-output
    serves only loads of that vertex (the goal concerns outputs), so a store not
    followed by a load can be dropped, leaving a legal and cheaper pebbling; an optimal
    pebbling therefore has none (dropping such stores changes no blue output and no
    computed set, so it keeps the other rules' properties). The state carries the set
    P of non-outputs stored and not loaded since; ``h`` counts one future load for each
    vertex of P not already counted (distinct vertices, distinct loads, so ``h`` stays
    admissible; a load removes the vertex from P and from the count at most once, so
    ``h`` stays consistent), and, with ``"dead-pebbles"`` (under which a dead vertex is
    never loaded), a state where a vertex of P is dead is abandoned.

``"symmetry"``
    Every state is stored as its canonical representative under the DAG's
    automorphisms (:mod:`.symmetry`): the smallest image, over a fixed list of
    automorphisms with the identity first, of the state after the move (and after the
    rules above dropped pebbles). Why: the game and every rule above are defined from
    the graph only (predecessors, successors, inputs, outputs, reachability, out-degree,
    red-pebble count), so an automorphism ``s`` maps the transitions of a state ``x``
    one to one onto those of ``s(x)``, with equal costs, and goal states onto goal
    states; the cheapest completion of ``x`` and of ``s(x)`` cost the same, and a
    cheapest path over representatives costs IO(G, M). Any admissible heuristic value of
    ``s(x)`` bounds the remaining cost of ``x`` as well (the pattern databases are not
    symmetric, which costs consistency but not admissibility; the search re-opens
    states). Each transition records which automorphism it applied, and the certificate
    is mapped back through the composed permutations onto the original graph before
    ``replay`` checks it. Automorphisms are enumerated once per graph, at most
    :data:`attnio.pebble.symmetry.DEFAULT_MAX_ELEMENTS` of them.

``"eager-output"``
    When fewer than M red pebbles are in use and some output ``o`` has neither pebble
    (one-shot: is not computed) but all its predecessors red, the only transition tried
    is the output macro of the lowest-numbered such ``o`` (compute, store, delete; cost
    1). Why, from any state ``y`` where it applies: take any pebbling ``p`` that
    finishes from ``y``; it stores ``o`` at least once (``o`` is not blue and must end
    blue). Play the macro first (legal: a pebble is free, the predecessors are red, and
    the red set is unchanged afterwards), then ``p`` without its moves on ``o``: ``o``
    is a sink, so no other move needs its red pebble, the red count never exceeds
    ``p``'s, and ``o`` ends blue; the cost is at most ``p``'s. So the cheapest
    completion of ``y`` is 1 plus that of the macro's result. The other default rules
    are argued by rewriting the moves after a state only, so the search with them is
    exact from every state it reaches; by induction on (cheapest completion, length of a
    shortest cheapest completion under the other rules), it stays exact with this one:
    where the rule applies the forced move loses nothing (the completion drops by 1),
    elsewhere the successors are those of the other rules. (Where the rule's choice of
    the lowest-numbered output is not symmetric, the symmetry rule still holds, since the
    search is exact from every state and the cheapest completion is symmetric.)
    ``"use-before-delete"`` and ``"reload-after-store"`` rewrite moves before a state
    too (they drop a wasted load or store of the past), so with either of them this
    rule is ignored.

Outside the rules, the search never tries a no-op move (load or compute onto a red
vertex, store onto a blue one) and stops expanding a state once ``f`` reaches the cost of
the best complete pebbling known. That is first the cheapest of a Belady-style greedy
pebbling, the order-search heuristic of :mod:`attnio.pebble.heuristic`, the certificate
of a smaller M in :func:`sweep_exact` (a pebbling with M red pebbles is one with more)
and, in the standard variant, the result of a one-shot search (a one-shot pebbling is a
standard one); every candidate is checked by ``replay``.

Memory
------
A stored state costs its state words (int64 ``red`` and ``blue``, plus ``computed`` in the
one-shot variant and one word for each of ``"reload-after-store"`` and
``"use-before-delete"`` when enabled: words that are always 0 are not stored), three
int32 links (cost, parent row, move code: the certificate is rebuilt by following parent
rows and re-playing the recorded move, never from stored copies of the parent), about
2 to 4 int32 hash slots (an open-addressing table of row numbers, at most half full,
doubled when needed) and its share of the queue (int32 entries, reused once popped): 43
to 52 bytes a state measured on the frontier DAGs, against 99 to 147 for the earlier
int64 layout (``benchmarks/exact.py --memory-only``). Rows and queue are allocated once
at their largest size and never copied; the operating system backs only the pages the
search writes. ``max_states`` bounds the rows; ``max_bytes`` bounds the bytes of rows,
slots, queue and buckets together, checked in the kernel before each new state or
entry, and the pattern databases' tables (50 to 62 MB on the frontier DAGs) while a
search holds them; either way a full search stops with proven bounds. The result
reports ``stored_states``, ``queue_entries`` and ``peak_bytes``.

References
----------
HK81 (the game); PW20 (one-shot, NP-hardness); DL18 (PSPACE-completeness).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterable, Sequence
from typing import NamedTuple, NoReturn

import numpy as np

from attnio.bounds.arguments import positive_integer, positive_number

from . import _exact_kernels as kern
from .dag import Dag
from .errors import InstanceTooLargeError, PebbleParameterError, SearchInterrupted
from .heuristic import solve_heuristic
from .moves import Move, check_variant, replay
from .patterns import DEFAULT_MAX_TOTAL, PatternSet, build_patterns
from .player import compulsory_io, play
from .result import Pebbling
from .symmetry import automorphisms, lookup_tables, permute_bits
from .variants import GAME_VARIANTS, Variant

__all__ = [
    "DEFAULT_MAX_STATES",
    "DEFAULT_RULES",
    "EXACT_MAX_VERTICES",
    "RULES",
    "solve_exact",
    "sweep_exact",
]

EXACT_MAX_VERTICES = kern.MAX_VERTICES
"""The largest graph :func:`solve_exact` accepts (one int64 bit set per pebble colour); no
option raises it. Not the builders' memory guard,
:data:`attnio.pebble.builders.BUILD_MAX_VERTICES`."""

DEFAULT_MAX_STATES = 4_000_000
"""The state table's default size: :func:`solve_exact` stops with proven bounds when it is full."""

RULES: dict[str, int] = {
    "delete-when-full": kern.DELETE_WHEN_FULL,
    "output-macro": kern.OUTPUT_MACRO,
    "lazy-store": kern.LAZY_STORE,
    "dead-pebbles": kern.DEAD_PEBBLES,
    "heuristic": kern.HEURISTIC,
    "reload-after-store": kern.RELOAD_AFTER_STORE,
    "use-before-delete": kern.USE_BEFORE_DELETE,
    "single-successor": kern.SINGLE_SUCCESSOR,
    "pattern-databases": kern.PATTERN_DATABASES,
    "symmetry": kern.SYMMETRY,
    "eager-output": kern.EAGER_OUTPUT,
    "additive-patterns": kern.ADDITIVE_PATTERNS,
}
"""Search rules by name (see the module docstring)."""

DEFAULT_RULES: tuple[str, ...] = tuple(
    rule
    for rule in RULES
    if rule not in ("reload-after-store", "use-before-delete", "eager-output", "additive-patterns")
)
"""The rules :func:`solve_exact` enables by default. ``"reload-after-store"`` and
``"use-before-delete"`` are sound but off: each adds a bit set to the state, which splits
states, and on the attention DAGs measured that costs more than it prunes (one-shot dense
forward n=2, d=1, M=3: 0.64M expansions without them, 2.4M with the first, 0.82M with
the second). ``"eager-output"`` is sound but off: A* already finishes ready outputs
early, so it saves little (same graph, standard, M=3: 190k expansions against 203k;
M=4 and 5 and one-shot: within 1%) for a forced-move rule that excludes two others.
``"additive-patterns"`` is sound but off: it raises the proven lower bound at the smallest
M (90 s each, side by side: dense forward n=2, d=2, standard M=3, 40 against 36; n=3, d=1,
one-shot M=3, 42 against 40; backward n=2, d=1, one-shot M=3, 41 against 39) and changes
nothing where the search proves the optimum (forward n=2, d=1, M=3; n=2, d=2, one-shot
M=3: within 0.5% of the expansions), but it also switches the databases on at larger M
(its start estimate reaches the plain one there), which was not measured."""

_SLICE_SECONDS = 0.25
_FIRST_CAPACITY = 1 << 14
_PROBE_EXPANSIONS = 50_000
"""Expansions tried with the plain heuristic before the pattern databases are built."""
_ORDER_SEARCH_FROM = 16
"""Graphs with more vertices also get the order-search heuristic as a seed (about 0.1 s)."""


BYTES_PER_STATE = 5 * 8 + kern.LINK_BYTES + 6 * kern.SLOT_BYTES + 4 * kern.ENTRY_BYTES
"""Most bytes one stored state costs (124): its rows (at most five int64 state words and
three int32 links, 52), hash slots (at most 4 int32 per state, and while they double the
old ones too: 24) and queue entries (at most 4 of three int32 per state, 48). Rows and
entries are never copied. The layout before this one cost up to 256 (int64 rows of 64
bytes, int64 slots, int64 entries, and a copy of the table whenever it grew)."""

OLD_BYTES_PER_STATE = 256
""":data:`BYTES_PER_STATE` of the earlier layout, kept for the side-by-side benchmark."""

MIN_MAX_BYTES = 1 << 20
"""The smallest ``max_bytes`` accepted (1 MiB)."""


def available_memory() -> int | None:
    """Bytes of memory available now (Linux ``MemAvailable``), or ``None`` if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def _slot_count(capacity: int) -> int:
    """Hash slots for a table of ``capacity`` states: a power of two, load factor <= 1/2."""
    return 1 << max(4, math.ceil(math.log2(2 * capacity)))


def solve_exact(
    dag: Dag,
    M: int,
    *,
    variant: str = "standard",
    max_states: int = DEFAULT_MAX_STATES,
    time_limit: float | None = None,
    progress: bool = False,
    rules: Iterable[str] = DEFAULT_RULES,
    max_bytes: int | None = None,
) -> Pebbling:
    """Return the minimum I/O of pebbling ``dag`` with ``M`` red pebbles, with a certificate.

    Parameters
    ----------
    dag : Dag
        At most :data:`EXACT_MAX_VERTICES` vertices.
    M : int
        Red pebbles, at least ``dag.min_memory`` (max in-degree + 1, no sliding).
    variant : {"standard", "oneshot"}
        Recomputation allowed (HK81) or each vertex computed at most once (PW20).
    max_states : int
        Most states the table may hold; the search stops with bounds when it is full.
        Memory grows on demand, to at most :data:`BYTES_PER_STATE` bytes per state; a
        limit whose table could outgrow the available memory is refused (unless
        ``max_bytes`` caps it).
    time_limit : float, optional
        Seconds after which the search stops with bounds.
    progress : bool
        Show a live progress line on stderr (rich).
    rules : iterable of str
        The search rules to enable, a subset of :data:`RULES` (default
        :data:`DEFAULT_RULES`). The set of rules never changes the optimum, only the
        time to reach it.
    max_bytes : int, optional
        Cap on the bytes each search's state rows, hash slots, queue entries and buckets
        hold, with the pattern databases it holds (at least :data:`MIN_MAX_BYTES`, at
        most the memory available): the search stops with proven bounds rather than
        exceed it. The result's ``peak_bytes`` reports what the searches held at their
        peak, ``stored_states`` the states the last one stored.

    Returns
    -------
    Pebbling
        ``optimal=True`` and ``io == lower == upper == IO(G, M)`` when proven; otherwise
        ``optimal=False``, ``lower <= IO(G, M) <= upper == io``. ``moves`` is a pebbling
        of cost ``io`` that :func:`~attnio.pebble.moves.replay` accepts;
        ``method`` is ``"exact"``. ``states_explored`` counts expanded states, in the
        standard variant including those of the one-shot search that seeds the upper
        bound (it gets a quarter of ``max_states`` and of ``time_limit``).

    Raises
    ------
    InstanceTooLargeError
        More than :data:`EXACT_MAX_VERTICES` vertices.
    MemoryTooSmallError
        ``M < dag.min_memory``.
    PebbleParameterError
        Unknown variant or rule, non-positive ``max_states`` or ``time_limit``, a
        ``max_bytes`` below :data:`MIN_MAX_BYTES` or above the available memory.

    References
    ----------
    HK81 (the game), PW20 (one-shot); the rules are argued in the module docstring.

    Examples
    --------
    >>> g = Dag.from_edges(["a", "b", "c", "d"], [(0, 2), (1, 2), (2, 3), (0, 3)])
    >>> p = solve_exact(g, 3)
    >>> p.io, p.optimal, replay(g, p.moves, 3).io
    (3, True, 3)
    """
    return _solve(
        dag, M, variant, max_states, time_limit, progress, rules, seed=None, max_bytes=max_bytes
    )  # fmt: skip


def sweep_exact(
    dag: Dag,
    Ms: Iterable[int],
    *,
    variant: str = "standard",
    max_states: int = DEFAULT_MAX_STATES,
    time_limit: float | None = None,
    progress: bool = False,
    rules: Iterable[str] = DEFAULT_RULES,
    max_bytes: int | None = None,
) -> list[Pebbling]:
    """Solve ``dag`` for every memory size in ``Ms``; results in the order of ``Ms``.

    Sizes are solved in increasing order and each certificate seeds the next size's
    upper bound (a pebbling with M red pebbles is one with M + 1: more memory never
    costs more). ``time_limit`` applies to each size separately. Ctrl-C raises
    :class:`~attnio.pebble.errors.SearchInterrupted` holding the sizes finished and
    the interrupted one's proven bounds.

    Examples
    --------
    >>> g = Dag.from_edges(4, [(0, 2), (1, 2), (2, 3), (0, 3)])
    >>> [p.io for p in sweep_exact(g, [3, 4])]
    [3, 3]
    """
    _check(dag, variant, max_states, time_limit, rules, max_bytes)
    Ms = [dag.validate_memory(M) for M in Ms]
    results: dict[int, Pebbling] = {}
    seed: list[Move] | None = None
    for M in sorted(set(Ms)):
        try:
            result = _solve(
                dag, M, variant, max_states, time_limit, progress, rules, seed=seed,
                max_bytes=max_bytes,
            )  # fmt: skip
        except SearchInterrupted as stop:
            raise SearchInterrupted([*results.values(), *stop.results]) from None
        except KeyboardInterrupt:
            raise SearchInterrupted(list(results.values())) from None
        results[M] = result
        seed = result.moves
    return [results[M] for M in Ms]


# --------------------------------------------------------------------------- driver


def _solve(
    dag: Dag,
    M: int,
    variant: str,
    max_states: int,
    time_limit: float | None,
    progress: bool,
    rules: Iterable[str],
    seed: Sequence[Move] | None,
    shared: dict[str, PatternSet] | None = None,
    max_bytes: int | None = None,
) -> Pebbling:
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    flags = _check(dag, variant, max_states, time_limit, rules, max_bytes)
    memory = (0, 0, 0)
    if flags & (kern.USE_BEFORE_DELETE | kern.RELOAD_AFTER_STORE):
        flags &= ~kern.EAGER_OUTPUT  # its argument needs rules local to the future
    M = dag.validate_memory(M)
    shared = {} if shared is None else shared
    count = dag.num_vertices
    seed_moves = _seed_pebbling(dag, M)
    seed_io = replay(dag, seed_moves, M, variant).io
    hints = [] if seed is None else [list(seed)]
    if count > _ORDER_SEARCH_FROM:
        # the heuristic order search (attnio.pebble.heuristic): Belady on a searched
        # order, each vertex computed once, so legal in both variants; replayed below
        hints.append(solve_heuristic(dag, M, heuristic="search", variant=variant, moves=True).moves)
    expanded = 0
    if GAME_VARIANTS[Variant(variant)].recomputation and seed_io > 0:
        # a one-shot pebbling is a standard one, and the one-shot search is far smaller
        quarter = None if time_limit is None else time_limit / 4
        try:
            oneshot_run = _solve(
                dag,
                M,
                Variant.ONESHOT,
                max(1, max_states // 4),
                quarter,
                False,
                rules,
                None,
                shared,
                max_bytes,
            )
        except SearchInterrupted as stop:
            # a one-shot pebbling is a standard one: the best found is a certificate
            hints.append(stop.results[-1].moves)
            best = min((replay(dag, h, M, variant).io, i) for i, h in enumerate(hints))
            moves = hints[best[1]] if best[0] < seed_io else seed_moves
            upper = min(best[0], seed_io)
            lower = min(compulsory_io(dag), upper)
            raise SearchInterrupted(
                [
                    _finish(
                        dag,
                        M,
                        variant,
                        moves,
                        lower,
                        upper,
                        stop.results[-1].states_explored,
                        start,
                        (0, 0, stop.results[-1].peak_bytes),
                    )
                ]
            ) from None
        hints.append(oneshot_run.moves)
        expanded = oneshot_run.states_explored
        memory = (0, 0, oneshot_run.peak_bytes)
    for hint in hints:
        hint_io = replay(dag, hint, M, variant).io
        if hint_io < seed_io:
            seed_moves, seed_io = hint, hint_io

    graph = _graph_arrays(dag)
    if flags & kern.SYMMETRY:
        if "symmetry" not in shared:
            shared["symmetry"] = automorphisms(dag)
        perms = shared["symmetry"]
    else:
        perms = [np.arange(count, dtype=np.int64)]
    symmetry = lookup_tables(perms)
    params = np.array(
        [
            count,
            _bits(dag.inputs),
            _bits(dag.outputs),
            M,
            int(not GAME_VARIANTS[Variant(variant)].recomputation),
            flags & ~kern.PATTERN_DATABASES,
            _bits(np.flatnonzero(dag.outdegree == 1)),
            0,  # P_CHARGED: set once the pattern databases are built
        ],
        dtype=np.int64,
    )
    display = _Progress(dag, M, variant) if progress else None
    try:
        # first the cheap heuristic for a few expansions: most instances end here; the
        # pattern databases cost a table build and pay off only on the hard ones
        probe = _PROBE_EXPANSIONS if flags & kern.PATTERN_DATABASES else None
        run = _astar(
            graph, params, PatternSet(M, ()).packed(dag), symmetry, seed_io, max_states,
            deadline, display, start, expansions=probe, max_bytes=max_bytes,
        )  # fmt: skip
        expanded += run.expanded
        lower = run.lower
        memory = _memory(memory, run)
        if run.interrupted:
            _stop(dag, M, variant, run, seed_moves, lower, expanded, start, perms, memory)
        if run.status == _PROBE_DONE:
            if "patterns" not in shared:
                # under a memory cap the tables (int64 entries, held twice: the
                # patterns' own and the packed copy) get at most half of it
                total = DEFAULT_MAX_TOTAL if max_bytes is None else max_bytes // 32
                shared["patterns"] = build_patterns(dag, M, max_total=min(total, DEFAULT_MAX_TOTAL))
            if run.goal >= 0:
                seed_moves, seed_io = _certificate(run, perms), run.upper
            run = None  # free the probe's rows before the next search allocates its own
            packed = shared["patterns"].packed(dag)
            params[kern.P_CHARGED] = _bits(
                sorted(set().union(*(p.charged for p in shared["patterns"].patterns)))
            )
            # the databases stay in memory during the search: they count toward
            # max_bytes and peak_bytes (tens of MB on the frontier DAGs)
            tables = sum(p.costs.nbytes for p in shared["patterns"].patterns)
            if _patterns_help(graph, params, packed):
                params[kern.P_FLAGS] = flags
                tables += sum(array.nbytes for array in packed)
            else:
                packed = PatternSet(M, ()).packed(dag)
            cap = None if max_bytes is None else max(1, max_bytes - tables)
            run = _astar(
                graph, params, packed, symmetry, seed_io, max_states, deadline, display,
                start, expansions=None, max_bytes=cap,
            )  # fmt: skip
            expanded += run.expanded
            lower = max(lower, run.lower)
            memory = _memory(memory, run, tables)
            if run.interrupted:
                _stop(dag, M, variant, run, seed_moves, lower, expanded, start, perms, memory)
    finally:
        if display is not None:
            display.close()
    if run.goal >= 0:
        seed_moves = _certificate(run, perms)
    return _finish(
        dag, M, variant, seed_moves, lower, run.upper, expanded, start, memory
    )  # fmt: skip


def _memory(memory: tuple[int, int, int], run: _Run, tables: int = 0) -> tuple[int, int, int]:
    """``(stored states, queue entries, peak bytes)`` after ``run``: its counts, the larger
    peak, ``tables`` (the pattern databases held during the run) added to its own."""
    return run.stored, run.entries, max(memory[2], run.peak_bytes + tables)


def _stop(
    dag: Dag,
    M: int,
    variant: str,
    run: _Run,
    seed_moves: list[Move],
    lower: int,
    expanded: int,
    start: float,
    perms: Sequence[np.ndarray],
    memory: tuple[int, int, int],
) -> NoReturn:
    """Raise :class:`SearchInterrupted` holding the interrupted run's certified bounds."""
    moves = _certificate(run, perms) if run.goal >= 0 else seed_moves
    result = _finish(
        dag, M, variant, moves, min(lower, run.upper), run.upper, expanded, start, memory
    )  # fmt: skip
    raise SearchInterrupted([result])


def _patterns_help(graph: np.ndarray, params: np.ndarray, packed: tuple) -> bool:
    """Whether the databases estimate the start state at least as high as the plain heuristic.

    Below it they mostly slow each expansion down (dense forward n=2, d=2, M=4: 8 against
    16, and a weaker proven bound in 60 s); level with it they can still win deeper in the
    search (same graph, M=3: 16 each, proven lower bound 34 against 31 in 60 s). With
    ``"additive-patterns"`` in ``params``' flags the databases' estimate includes the
    plain heuristic's moves on uncharged vertices.
    """
    zero, inputs = np.int64(0), params[kern.P_INPUTS]
    plain = kern.state_h(graph, params, packed, zero, inputs, zero, zero)
    estimate = kern.pattern_sum(packed, zero, inputs)
    if params[kern.P_FLAGS] & kern.ADDITIVE_PATTERNS and params[kern.P_FLAGS] & kern.HEURISTIC:
        charged = params[kern.P_CHARGED]
        estimate += kern.heuristic_parts(graph, params, zero, inputs, zero, zero, charged)[1]
    return bool(estimate >= plain)


class _Run(NamedTuple):
    """Where one A* run stopped: its status, proven bounds, goal row, rows and memory."""

    status: int
    lower: int
    upper: int
    goal: int
    keys: np.ndarray
    links: np.ndarray
    expanded: int
    interrupted: bool = False
    stored: int = 0
    entries: int = 0
    peak_bytes: int = 0


_PROBE_DONE = -1
"""Status of a run stopped by its expansion budget (the probe before the pattern databases)."""


def _astar(
    graph: np.ndarray,
    params: np.ndarray,
    patterns: tuple[np.ndarray, ...],
    symmetry: np.ndarray,
    seed_io: int,
    max_states: int,
    deadline: float | None,
    display: _Progress | None,
    start: float,
    *,
    expansions: int | None,
    max_bytes: int | None = None,
) -> _Run:
    """Run the A* kernel in time slices until it ends, fills its memory or times out.

    The rows (``keys``, ``links``) and the queue entries are allocated once at their
    largest size (``max_states`` rows, ``4 * max_states`` entries) and never copied: the
    operating system backs a page only once the search writes to it, so memory grows with
    the states actually stored. Only the hash slots grow, by doubling. With ``max_bytes``
    the kernel stops (table or queue full) before :func:`._exact_kernels.search_bytes`
    would exceed it, counting a doubling's old and new slots together. With
    ``expansions``, stop (status ``_PROBE_DONE``) once that many states are expanded
    without an end. Returns proven bounds ``lower <= IO <= upper``.
    """
    width = int(kern.key_columns(params)[3])
    keys = np.empty((max_states, width), dtype=np.int64)
    links = np.empty((max_states, 3), dtype=np.int32)
    slots = np.empty(_slot_count(min(max_states, _FIRST_CAPACITY)), dtype=np.int32)
    buckets = np.empty(max(seed_io, 1), dtype=np.int64)
    entries = np.empty((min(4 * max_states, kern.MAX_ROWS), 3), dtype=np.int32)
    counters = np.zeros(kern.N_COUNTERS, dtype=np.int64)
    kern.init_search(
        graph, params, patterns, keys, links, slots, buckets, entries, counters, seed_io
    )  # fmt: skip
    counters[kern.C_MAX_BYTES] = 0 if max_bytes is None else max_bytes
    peak = int(counters[kern.C_BYTES])
    lower = int(counters[kern.C_LOWER])
    budget = 2_000 if expansions is None else min(2_000, expansions)
    status = kern.PAUSED
    interrupted = False
    while True:
        try:
            tic = time.perf_counter()
            status = kern.search(
                graph,
                params,
                patterns,
                symmetry,
                keys,
                links,
                slots,
                buckets,
                entries,
                counters,
                budget,
            )
            peak = max(peak, int(counters[kern.C_BYTES]))
            upper = int(counters[kern.C_UPPER])
            lower = max(lower, min(int(counters[kern.C_LOWER]), upper))
            if display is not None:
                display.update(counters, lower, upper, time.perf_counter() - start)
            if status == kern.SLOTS_FULL:
                size = 2 * slots.size
                during = int(counters[kern.C_BYTES]) + size * kern.SLOT_BYTES  # old + new
                if max_bytes is not None and during > max_bytes:
                    status = kern.TABLE_FULL  # the memory cap: stop with the bounds
                else:
                    slots = np.full(size, -1, dtype=np.int32)
                    kern.rehash(keys, params, int(counters[kern.C_STATES]), slots)
                    peak = max(peak, during)
                    counters[kern.C_BYTES] = kern.search_bytes(
                        keys, slots, entries, buckets, counters
                    )
                    status = kern.PAUSED
        except KeyboardInterrupt:
            # the rows (parent links, costs) and the counters are only ever extended, so
            # the bounds proven so far and the best goal row still hold
            interrupted = True
            break
        if status != kern.PAUSED:
            break
        if deadline is not None and time.perf_counter() >= deadline:
            break
        if expansions is not None and counters[kern.C_EXPANDED] >= expansions:
            status = _PROBE_DONE
            break
        spent = time.perf_counter() - tic
        budget = int(min(max(budget * _SLICE_SECONDS / max(spent, 1e-6), 1_000), 10_000_000))
    upper = int(counters[kern.C_UPPER])
    lower = max(lower, min(int(counters[kern.C_LOWER]), upper))
    if status == kern.OPTIMAL:
        lower = upper
    return _Run(
        status,
        lower,
        upper,
        int(counters[kern.C_GOAL]),
        keys,
        links,
        int(counters[kern.C_EXPANDED]),
        interrupted,
        int(counters[kern.C_STATES]),
        int(counters[kern.C_ENTRIES]),
        peak,
    )


def _graph_arrays(dag: Dag) -> np.ndarray:
    """The (3, V) predecessor, successor and reach bit sets the kernels read."""
    count = dag.num_vertices
    graph = np.zeros((3, count), dtype=np.int64)
    for v in range(count):
        graph[kern.G_PRED, v] = _bits(dag.predecessors(v))
        graph[kern.G_SUCC, v] = _bits(dag.successors(v))
    for v in range(count - 1, -1, -1):
        reach = np.int64(1) << v
        for w in dag.successors(v).tolist():
            reach |= graph[kern.G_REACH, w]
        graph[kern.G_REACH, v] = reach
    return graph


def _finish(
    dag: Dag,
    M: int,
    variant: str,
    moves: list[Move],
    lower: int,
    upper: int,
    expanded: int,
    start: float,
    memory: tuple[int, int, int] = (0, 0, 0),
) -> Pebbling:
    """The result, after replaying its certificate (never return an unchecked one).

    ``memory`` is ``(stored states, queue entries, peak bytes)`` of the search."""
    played = replay(dag, moves, M, variant)
    if played.io != upper:
        raise RuntimeError(  # an internal bug
            f"exact search certificate replays to io={played.io}, expected {upper}"
        )
    return Pebbling(
        io=played.io,
        loads=played.loads,
        stores=played.stores,
        optimal=lower == upper,
        lower=lower,
        upper=upper,
        variant=variant,
        M=M,
        vertices=dag.num_vertices,
        states_explored=expanded,
        seconds=time.perf_counter() - start,
        moves=moves,
        method="exact",
        stored_states=memory[0],
        queue_entries=memory[1],
        peak_bytes=memory[2],
    )


def _check(
    dag: Dag,
    variant: str,
    max_states: int,
    time_limit: float | None,
    rules: Iterable[str],
    max_bytes: int | None = None,
) -> int:
    if not isinstance(dag, Dag):
        raise PebbleParameterError(f"dag must be an attnio.pebble.Dag, got {type(dag).__name__}")
    check_variant(variant)
    if dag.num_vertices > EXACT_MAX_VERTICES:
        raise InstanceTooLargeError(
            f"graph has {dag.num_vertices} vertices; the exact solver encodes each pebble "
            f"colour as one 64-bit word and accepts at most {EXACT_MAX_VERTICES} vertices "
            "(use a heuristic pebbling for larger graphs)"
        )
    positive_integer("max_states", max_states, PebbleParameterError)
    if max_states > kern.MAX_ROWS // 4:
        raise PebbleParameterError(
            f"max_states={max_states:,} (--limit) exceeds {kern.MAX_ROWS // 4:,}, the most the int32 "
            "row indices of the state table and its queue address"
        )
    available = available_memory()
    if max_bytes is not None:
        positive_integer("max_bytes", max_bytes, PebbleParameterError)
        if max_bytes < MIN_MAX_BYTES:
            raise PebbleParameterError(
                f"max_bytes={max_bytes:,} (--max-bytes) is below {MIN_MAX_BYTES:,}, the least memory cap "
                "the exact search accepts"
            )
        if available is not None and max_bytes > available:
            raise PebbleParameterError(
                f"max_bytes={max_bytes:,} (--max-bytes) exceeds the {available:,} bytes of memory available now"
            )
    elif available is not None and max_states * BYTES_PER_STATE > available:
        raise PebbleParameterError(
            f"max_states={max_states:,} (--limit) may need {max_states * BYTES_PER_STATE:,} "
            f"bytes ({BYTES_PER_STATE} per state) but only {available:,} are available; use "
            f"at most {available // BYTES_PER_STATE:,} states"
        )
    if time_limit is not None:
        positive_number("time_limit", time_limit, PebbleParameterError)
    if isinstance(rules, str):
        raise PebbleParameterError(
            f"rules={rules!r} must be an iterable of rule names, not a string"
        )
    flags = 0
    for rule in rules:
        if rule not in RULES:
            raise PebbleParameterError(f"rule {rule!r} is not one of {tuple(RULES)}")
        flags |= RULES[rule]
    return flags


def _bits(vertices: Iterable[int] | np.ndarray) -> np.int64:
    out = 0
    for v in np.asarray(vertices).tolist():
        out |= 1 << v
    return np.int64(out)


def _certificate(run: _Run, perms: Sequence[np.ndarray]) -> list[Move]:
    """Expand the transitions on the path to ``goal`` into primitive moves.

    With the symmetry rule each stored state is the image ``s(x)`` of the state ``x``
    its transition reached, under the automorphism ``s = perms[sym]`` the transition
    records. The moves are found in each parent's frame and mapped to the original
    graph through ``frame``: the composed permutation taking the vertices of the
    current stored state to those of the real state of the pebbling (the identity at
    the start, which every automorphism fixes); after a transition it becomes
    ``frame o s^-1``.
    """
    keys, links = run.keys, run.links
    chain = []
    state = run.goal
    while links[state, kern.L_PARENT] >= 0:
        chain.append(state)
        state = int(links[state, kern.L_PARENT])
    inverses = [np.argsort(perm) for perm in perms]
    frame = np.arange(len(perms[0]), dtype=np.int64)
    moves: list[Move] = []
    for state in reversed(chain):
        parent = int(links[state, kern.L_PARENT])
        sym, code = divmod(int(links[state, kern.L_MOVE]) >> 1, kern.SYM_CODE)  # low bit: closed
        kind, v = divmod(code, 64)
        local: list[Move] = []
        red = int(keys[parent, kern.S_RED])
        if kind == kern.K_LOAD:
            local.append(Move("load", v))
            red |= 1 << v
        elif kind == kern.K_STORE:
            local.append(Move("store", v))
        elif kind == kern.K_COMPUTE:
            local.append(Move("compute", v))
            red |= 1 << v
        elif kind == kern.K_DELETE:
            local.append(Move("delete", v))
            red &= ~(1 << v)
        elif kind == kern.K_WRITEBACK:
            local += [Move("store", v), Move("delete", v)]
            red &= ~(1 << v)
        elif kind == kern.K_OUTPUT:
            local += [Move("compute", v), Move("store", v), Move("delete", v)]
        else:
            raise RuntimeError(f"exact search recorded an unknown transition code {kind}")
        if sym >= len(perms):
            raise RuntimeError(f"exact search recorded an unknown automorphism {sym}")
        reached = permute_bits(inverses[sym], int(keys[state, kern.S_RED]))
        gone = red & ~reached  # dead pebbles dropped after the move
        local += [Move("delete", u) for u in range(gone.bit_length()) if gone >> u & 1]
        moves += [Move(move.op, int(frame[move.vertex])) for move in local]
        frame = frame[inverses[sym]]
    return moves


def _seed_pebbling(dag: Dag, M: int) -> list[Move]:
    """A legal pebbling in both variants: Belady on the natural order (:func:`.player.play`).

    Each non-input is computed once, so it is legal in both variants; no optimality claimed.
    """
    return play(dag, M, moves=True).moves


class _Progress:
    """A one-line rich progress display on stderr."""

    def __init__(self, dag: Dag, M: int, variant: str) -> None:
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=Console(file=sys.stderr),
            transient=False,
        )
        self._title = f"exact {variant} V={dag.num_vertices} M={M}"
        self._task = self._progress.add_task(self._title, total=None)
        self._progress.start()

    def update(self, counters: np.ndarray, lower: int, upper: int, seconds: float) -> None:
        expanded = int(counters[kern.C_EXPANDED])
        rate = expanded / max(seconds, 1e-9)
        self._progress.update(
            self._task,
            description=(
                f"{self._title}: {lower} <= IO <= {upper}, {expanded:,} expanded, "
                f"{int(counters[kern.C_STATES]):,} stored, {rate:,.0f}/s"
            ),
        )

    def close(self) -> None:
        self._progress.stop()
