"""Benchmark the exact pebbling solver against the pure-Python brute force, side by side.

Run from the repository root:

    .venv/bin/python benchmarks/exact.py                 # everything, 60 s per exact solve
    .venv/bin/python benchmarks/exact.py --time-limit 10 --skip-stretch
    .venv/bin/python benchmarks/exact.py --ilp-only         # the ILP baseline (extra "ilp")
    .venv/bin/python benchmarks/exact.py --memory-only      # bytes per state, old vs new
    .venv/bin/python benchmarks/exact.py --dominance-only --time-limit 30

Targets: the numba solver at least 100x faster than the
pure-Python reference (:func:`attnio.pebble.exact_reference.reference_optimum`) on the
largest instance both finish; dense forward with n = 2, d = 1 proven optimal for every
feasible M in under 10 s each; n = 2, d = 2 as the stretch target, reported either way.

Table 1 runs, per instance and variant at the smallest feasible M (the hardest): the
solver with all rules, the same kernel with every rule off (plain Dijkstra in numba: the
kernel's raw speed against the same algorithm in Python), and the reference, which is
stopped after ``--reference-states`` states. Tables 2 and 3 sweep M, each run also without
the pattern databases (:mod:`attnio.pebble.patterns`) as the baseline. Times exclude numba
compilation (done before timing); solver runs under a second are the best of three. A run
that stops on its limit shows its proven bounds ``[lower, upper]``.

The ILP baseline (:func:`ilp_table`) solves a time-indexed 0/1 model of the same game
(:class:`TimeIndexedModel`) with OR-Tools CP-SAT and HiGHS, one thread each, side by
side with the exact solver; it needs the optional extra (``pip install -e ".[ilp]"``)
and prints which package is missing otherwise.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time

import numpy as np

from attnio.pebble import _exact_kernels as kern
from attnio.pebble import builders
from attnio.pebble import exact as exact_module
from attnio.pebble.errors import InstanceTooLargeError, SearchInterrupted
from attnio.pebble.exact import DEFAULT_RULES, solve_exact
from attnio.pebble.exact_reference import reference_optimum
from attnio.pebble.heuristic import compulsory_io, solve_heuristic
from attnio.pebble.patterns import build_patterns
from attnio.pebble.symmetry import automorphisms


def _cost(result) -> str:
    if result.optimal:
        return str(result.io)
    return f"[{result.lower}, {result.upper}]"


def _rate(result) -> str:
    if result.states_explored == 0:
        return "-"
    return f"{result.states_explored / max(result.seconds, 1e-9):,.0f}"


MAX_STATES = 30_000_000
"""State table limit of every solve (about 5 GB at most)."""


def _fastest(dag, M: int, variant: str, time_limit: float, **kwargs):
    """The fastest of up to 3 identical runs (1 if a run takes over a second)."""
    kwargs["max_states"] = MAX_STATES
    best = solve_exact(dag, M, variant=variant, time_limit=time_limit, **kwargs)
    for _ in range(2):
        if best.seconds > 1.0:
            break
        again = solve_exact(dag, M, variant=variant, time_limit=time_limit, **kwargs)
        best = min(best, again, key=lambda result: result.seconds)
    return best


def compare_table(time_limit: float, reference_states: int) -> None:
    cases = [
        ("attention-forward", 1, 1),
        ("approx-forward", 1, 1),
        ("attention-forward", 1, 2),
        ("attention-backward", 1, 1),
        ("sparse-forward", 2, 1),
        ("attention-forward", 2, 1),
    ]
    print("\n## Exact solver vs pure-Python brute force (smallest feasible M)\n")
    print(
        "| dag | n | d | V | variant | M | Q | exact s | expanded | states/s "
        "| numba Dijkstra s | brute force s | brute/exact | brute/Dijkstra |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind, n, d in cases:
        dag = builders.build(kind, n, d, degree=1)
        M = dag.min_memory
        for variant in ("standard", "oneshot"):
            exact = _fastest(dag, M, variant, time_limit)
            plain = _fastest(dag, M, variant, time_limit, rules=())
            plain_s = f"{plain.seconds:.3f}" if plain.optimal else f"> {time_limit:g}"
            start = time.perf_counter()
            try:
                brute = reference_optimum(dag, M, variant=variant, max_states=reference_states)[0]
                brute_s = time.perf_counter() - start
                if exact.optimal and brute != exact.io:
                    raise RuntimeError(f"{kind} {variant} M={M}: exact {exact.io} != {brute}")
                shown = f"{brute_s:.3f}"
                ratio = f"{brute_s / exact.seconds:,.0f}x" if exact.optimal else "-"
                ratio_plain = f"{brute_s / plain.seconds:,.0f}x" if plain.optimal else "-"
            except InstanceTooLargeError:
                shown = f"> {reference_states:,} states ({time.perf_counter() - start:.0f} s)"
                ratio = ratio_plain = "-"
            print(
                f"| {kind} | {n} | {d} | {dag.num_vertices} | {variant} | {M} | {_cost(exact)} "
                f"| {exact.seconds:.3f} | {exact.states_explored:,} | {_rate(exact)} "
                f"| {plain_s} | {shown} | {ratio} | {ratio_plain} |",
                flush=True,
            )


def sweep_table(kind: str, n: int, d: int, Ms: list[int], time_limit: float) -> None:
    """Every M, both variants, with the default rules and without the pattern databases."""
    dag = builders.build(kind, n, d)
    plain_rules = tuple(rule for rule in DEFAULT_RULES if rule != "pattern-databases")
    print(
        f"\n## {kind} n={n} d={d} (V={dag.num_vertices}), every M, "
        f"time limit {time_limit:g} s each\n"
    )
    print(
        "| variant | M | Q (or proven bounds) | proven | seconds | expanded | states/s "
        "| without pattern databases | seconds | expanded | speed-up |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for variant in ("standard", "oneshot"):
        for M in Ms:
            result = solve_exact(
                dag, M, variant=variant, time_limit=time_limit, max_states=MAX_STATES
            )
            plain = solve_exact(
                dag,
                M,
                variant=variant,
                time_limit=time_limit,
                max_states=MAX_STATES,
                rules=plain_rules,
            )
            if result.optimal and plain.optimal and result.io != plain.io:
                raise RuntimeError(f"{kind} {variant} M={M}: {result.io} != {plain.io}")
            speedup = (
                f"{plain.seconds / result.seconds:,.1f}x"
                if result.optimal and plain.optimal
                else (f"> {plain.seconds / result.seconds:,.0f}x" if result.optimal else "-")
            )
            print(
                f"| {variant} | {M} | {_cost(result)} | {result.optimal} "
                f"| {result.seconds:.2f} | {result.states_explored:,} | {_rate(result)} "
                f"| {_cost(plain)} | {plain.seconds:.2f} | {plain.states_explored:,} "
                f"| {speedup} |",
                flush=True,
            )


FRONTIER = (
    ("attention-forward", 2, 2),
    ("attention-forward", 3, 1),
    ("attention-backward", 2, 1),
)
"""The frontier instances: the largest attention DAGs the one-word state encoding holds."""


def frontier_table(
    time_limit: float,
    cases=FRONTIER,
    variants=("standard", "oneshot"),
    compare: float = 60.0,
    max_states: int = MAX_STATES,
    Ms: tuple[int, ...] | None = None,
    extra_rules: tuple[str, ...] = (),
    max_bytes: int | None = None,
) -> None:
    """Every M of each frontier instance, from the smallest feasible M until Q reaches the
    compulsory I/O (then every larger M has the same Q). Each run proven within
    ``compare`` seconds is repeated without the symmetry reduction, side by side (the
    states-expanded ratio is the fraction the reduction keeps). With ``Ms``, only those
    memory sizes (one cell at a time); ``extra_rules`` are enabled on top of the defaults.
    ``stored`` and ``peak GB`` are the states the last search stored and the most bytes
    its arrays held (``Pebbling.stored_states``, ``Pebbling.peak_bytes``)."""
    plain_rules = tuple(r for r in (*DEFAULT_RULES, *extra_rules) if r != "symmetry")
    print(f"\n## Frontier: every M, time limit {time_limit:g} s each\n")
    head = (
        "| dag | n | d | V | automorphisms | variant | M | Q (or proven bounds) | seconds "
        "| expanded | stored | peak GB |"
    )
    rule = "|---|---|---|---|---|---|---|---|---|---|---|---|"
    if compare:
        head += " without symmetry | seconds | expanded | expanded ratio |"
        rule += "---|---|---|---|"
    print(head)
    print(rule)
    for kind, n, d in cases:
        dag = builders.build(kind, n, d)
        order = len(automorphisms(dag))
        floor = compulsory_io(dag)
        for variant in variants:
            for M in range(dag.min_memory, dag.num_vertices + 1):
                if Ms is not None and M not in Ms:
                    if M > max(Ms):
                        break
                    continue
                result = solve_exact(
                    dag,
                    M,
                    variant=variant,
                    time_limit=time_limit,
                    max_states=max_states,
                    rules=(*DEFAULT_RULES, *extra_rules),
                    max_bytes=max_bytes,
                )
                row = (
                    f"| {kind} | {n} | {d} | {dag.num_vertices} | {order} | {variant} | {M} "
                    f"| {_cost(result)} | {result.seconds:.1f} | {result.states_explored:,} "
                    f"| {result.stored_states:,} | {result.peak_bytes / 1e9:.2f} |"
                )
                if compare and result.optimal and result.seconds <= compare:
                    plain = solve_exact(
                        dag,
                        M,
                        variant=variant,
                        time_limit=time_limit,
                        max_states=max_states,
                        rules=plain_rules,
                    )
                    if result.optimal and plain.optimal and result.io != plain.io:
                        raise RuntimeError(f"{kind} {variant} M={M}: {result.io} != {plain.io}")
                    ratio = (
                        f"{result.states_explored / plain.states_explored:.2f}"
                        if result.optimal and plain.optimal and plain.states_explored
                        else "-"
                    )
                    row += (
                        f" {_cost(plain)} | {plain.seconds:.1f} | {plain.states_explored:,} "
                        f"| {ratio} |"
                    )
                elif compare:
                    row += " not run | | | |"
                print(row, flush=True)
                if result.optimal and result.io == floor:
                    break


ADDITIVE_CASES = (
    ("attention-forward", 2, 1, "standard", 3, 60.0),
    ("attention-forward", 2, 2, "oneshot", 3, 120.0),
    ("attention-forward", 2, 2, "standard", 3, 90.0),
    ("attention-backward", 2, 1, "oneshot", 3, 90.0),
    ("attention-forward", 3, 1, "oneshot", 3, 90.0),
)
"""(dag, n, d, variant, M, seconds) of the "additive-patterns" comparison."""


def additive_table(cases=ADDITIVE_CASES) -> None:
    """The default rules against the same with "additive-patterns", side by side."""
    print('\n## Default rules against "additive-patterns", side by side\n')
    print(
        "| dag | n | d | variant | M | limit s | default rules | expanded "
        "| with additive-patterns | expanded |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind, n, d, variant, M, limit in cases:
        dag = builders.build(kind, n, d)
        cells = []
        for rules in (DEFAULT_RULES, (*DEFAULT_RULES, "additive-patterns")):
            result = solve_exact(
                dag, M, variant=variant, time_limit=limit, max_states=MAX_STATES, rules=rules
            )
            shown = _cost(result) + (f" ({result.seconds:.1f} s)" if result.optimal else "")
            cells.append(f"{shown} | {result.states_explored:,}")
        print(f"| {kind} | {n} | {d} | {variant} | {M} | {limit:g} | {' | '.join(cells)} |")


# --------------------------------------------------------------------------- memory layout

MEMORY_CASES = (
    ("attention-forward", 2, 1, "standard", 3),
    ("attention-forward", 2, 2, "standard", 4),
    ("attention-forward", 2, 2, "oneshot", 3),
    ("attention-forward", 3, 1, "oneshot", 4),
    ("attention-backward", 2, 1, "standard", 8),
)
"""(dag, n, d, variant, M) of the memory-layout comparison."""

MEMORY_BUDGET = 7_680_000_000
"""The memory of the earlier frontier runs' state table bound: 30M states at 256 bytes."""


def _pow2_at_least(x: int) -> int:
    return 1 << max(0, math.ceil(math.log2(max(x, 1))))


def old_layout_peak(states: int, entries: int, max_states: int) -> int:
    """Peak bytes of the earlier layout's arrays for ``states`` stored states and ``entries``
    queue entries, from its array shapes: (capacity, 8) int64 rows doubled from 16,384 by
    copying (old and new table both held while copying), int64 hash slots at most half
    full (old and new both held while rebuilding), (rows, 3) int64 queue entries (24 bytes
    each; their own copies while growing are not counted, so this is a floor)."""
    capacities = [min(max_states, 1 << 14)]
    while capacities[-1] < states and capacities[-1] < max_states:
        capacities.append(min(2 * capacities[-1], max_states))

    def slots(cap: int) -> int:
        return 8 * (1 << max(4, math.ceil(math.log2(2 * cap))))

    capacity = capacities[-1]
    final = 64 * states + slots(capacity) + 24 * entries
    if len(capacities) == 1:
        return final
    previous = capacities[-2]  # the last copy: the full old table and its copy, both held
    queued = entries * previous // max(states, 1)
    return max(final, 128 * previous + slots(previous) + slots(capacity) + 24 * queued)


def new_layout_peak(states: int, entries: int, width: int, max_states: int) -> int:
    """Peak bytes of the current layout's arrays (:func:`._exact_kernels.search_bytes`):
    ``8 * width + 12`` bytes of rows per state, never copied, int32 hash slots at most half
    full and doubled from 2**15 (old and new both held while rebuilding), 12-byte entries."""
    row = 8 * width + kern.LINK_BYTES
    size = 1 << max(4, math.ceil(math.log2(2 * min(max_states, 1 << 14))))
    peak = 0
    while 2 * states > size:  # each doubling happened at size / 2 states
        at = size // 2
        queued = entries * at // max(states, 1)
        peak = max(peak, row * at + kern.SLOT_BYTES * 3 * size + kern.ENTRY_BYTES * queued)
        size *= 2
    return max(peak, row * states + kern.SLOT_BYTES * size + kern.ENTRY_BYTES * entries)


def _within(peak, budget: int, per_state_entries: float) -> int:
    """The most states whose peak (``peak(states, entries)``) fits ``budget`` bytes."""
    low, high = 0, 1 << 34
    while low < high:
        mid = (low + high + 1) // 2
        if peak(mid, int(mid * per_state_entries)) <= budget:
            low = mid
        else:
            high = mid - 1
    return low


def memory_table(time_limit: float, budget: int = MEMORY_BUDGET, cases=MEMORY_CASES) -> None:
    """Bytes per stored state and states within ``budget`` bytes, old layout against new.

    Each case runs once with the current layout (``time_limit`` seconds, default rules);
    its stored states, queue entries and measured peak bytes (``Pebbling.peak_bytes``)
    give the new layout's bytes per state, and the old layout's peak for the same counts
    comes from its array shapes (:func:`old_layout_peak`). ``states in budget`` solves for
    the most states each layout holds in ``budget`` bytes, queue entries growing in the
    ratio this run measured. The admission bound per state (``BYTES_PER_STATE``, what
    ``max_states`` is checked against) was 256 and is 124.
    """
    print(f"\n## Memory layout: bytes per state, old against new (time limit {time_limit:g} s)\n")
    print(
        "| dag | n | d | variant | M | result | seconds | stored | entries | state words "
        "| new peak MB | new B/state | old B/state (same counts) | states in "
        f"{budget / 1e9:.2f} GB, new | old | new / old |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind, n, d, variant, M in cases:
        dag = builders.build(kind, n, d)
        result = solve_exact(dag, M, variant=variant, time_limit=time_limit, max_states=MAX_STATES)
        width = 2 + (variant == "oneshot")  # default rules: red, blue (and computed)
        stored, entries = result.stored_states, result.queue_entries
        old = old_layout_peak(stored, entries, MAX_STATES)
        ratio = entries / max(stored, 1)
        new_states = _within(lambda s, e, w=width: new_layout_peak(s, e, w, 1 << 34), budget, ratio)
        old_states = _within(lambda s, e: old_layout_peak(s, e, 1 << 34), budget, ratio)
        print(
            f"| {kind} | {n} | {d} | {variant} | {M} | {_cost(result)} "
            f"| {result.seconds:.1f} | {stored:,} | {entries:,} | {width} "
            f"| {result.peak_bytes / 1e6:,.0f} | {result.bytes_per_state:.1f} "
            f"| {old / max(stored, 1):.1f} | {new_states:,} | {old_states:,} "
            f"| {new_states / max(old_states, 1):.2f} |",
            flush=True,
        )


DOMINANCE_CASES = (
    ("attention-forward", 3, 1, "standard", 7),
    ("attention-backward", 2, 1, "standard", 9),
    ("attention-backward", 2, 1, "oneshot", 7),
)
"""(dag, n, d, variant, M) of the dominance measurement: open frontier cells."""


def _dominated(first: np.ndarray, second: np.ndarray, sets: np.ndarray, costs: np.ndarray,
               sample: int):  # fmt: skip
    """Which rows (a seeded sample of at most ``sample`` per group of rows equal in both
    ``first`` and ``second``) have another row of their group whose ``sets`` word is a
    strict superset and whose cost is no higher: row index and the index of one such
    row, or -1."""
    rng = np.random.default_rng(0)
    order = np.lexsort((second, first))
    a_sorted, b_sorted = first[order], second[order]
    change = (a_sorted[1:] != a_sorted[:-1]) | (b_sorted[1:] != b_sorted[:-1])
    cuts = np.flatnonzero(np.r_[True, change, True])
    rows, by = [], []
    for a, b in itertools.pairwise(cuts):
        members = order[a:b]
        picked = members if b - a <= sample else rng.choice(members, sample, replace=False)
        for i in picked:
            hit = ((sets[members] & sets[i]) == sets[i]) & (sets[members] != sets[i])
            hit &= costs[members] <= costs[i]
            rows.append(i)
            by.append(members[np.argmax(hit)] if hit.any() else -1)
    return np.array(rows), np.array(by)


def dominance_table(time_limit: float, cases=DOMINANCE_CASES, sample: int = 2000) -> None:
    """How much a dominance rule could prune: the stored states of a time-limited search
    that another stored state dominates (completion never dearer, so a search could skip
    them). Two relations, each over the states the search stored: the same red set (and
    computed set) with a strict superset of blue pebbles, no higher cost (a blue pebble
    only ever saves a store); the same blue (and computed) set with a strict superset of
    red pebbles, no higher cost (deleting pebbles is free), where ``by a parent`` counts
    those whose dominating state is the one they were reached from, by deleting a
    pebble: that state's own transition, which no rule may prune. Groups above
    ``sample`` states are sampled (fixed seed)."""
    print(f"\n## Dominance between stored states (time limit {time_limit:g} s each)\n")
    print(
        "| dag | n | d | variant | M | result | stored | blue superset, same red "
        "| red superset, same blue | of which by a parent |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind, n, d, variant, M in cases:
        runs = []
        astar = exact_module._astar

        def spy(*args, runs=runs, astar=astar, **kwargs):
            runs.append(astar(*args, **kwargs))
            return runs[-1]

        exact_module._astar = spy
        try:
            result = solve_exact(
                builders.build(kind, n, d), M, variant=variant, time_limit=time_limit,
                max_states=MAX_STATES,
            )  # fmt: skip
        except SearchInterrupted as stop:
            result = stop.results[-1]
        finally:
            exact_module._astar = astar
        run = runs[-1]
        count = run.stored
        red, blue = run.keys[:count, 0], run.keys[:count, 1]
        extra = run.keys[:count, 2] if run.keys.shape[1] > 2 else np.zeros(count, np.int64)
        cost, parent = run.links[:count, 0].astype(np.int64), run.links[:count, 1]
        rows, by = _dominated(red, extra, blue, cost, sample)
        blue_share = np.mean(by >= 0)
        rows, by = _dominated(blue, extra, red, cost, sample)
        hit = by >= 0
        parent_hit = hit & (red[np.maximum(parent[rows], 0)] & red[rows] == red[rows])
        parent_hit &= (parent[rows] >= 0) & (blue[np.maximum(parent[rows], 0)] == blue[rows])
        print(
            f"| {kind} | {n} | {d} | {variant} | {M} | {_cost(result)} | {count:,} "
            f"| {blue_share:.2%} | {np.mean(hit):.2%} "
            f"| {np.sum(parent_hit) / max(np.sum(hit), 1):.2%} |",
            flush=True,
        )


# --------------------------------------------------------------------------- ILP baseline


class TimeIndexedModel:
    """The red-blue game as a time-indexed 0/1 program, the model public red-blue ILP solvers use.

    Step ``t = 1..T`` goes from pebble state ``t - 1`` to state ``t``: any stores (of
    vertices red at ``t - 1``), then deletions, then at most one load or compute of a
    vertex that is red at ``t``, whose predecessors are red at ``t``; at most ``M`` red
    pebbles at every state, so the peak of the move sequence is at most ``M`` too. Each
    step therefore plays as a legal sequence of moves (:meth:`moves`, re-checked by
    ``replay``), and any pebbling with at most ``T - 1`` loads and computes is one
    solution (every store and deletion moved to the step of the next load or compute,
    plus one last step for the final stores). One-shot: each vertex computed at most
    once. ``T`` is the caller's: with ``T = (non-inputs) + U + 1`` for a known pebbling
    of cost ``U`` the one-shot model holds an optimum (an optimal one-shot pebbling
    computes each vertex at most once and loads fewer than ``U`` times); the standard
    optimum may recompute, so there the model's optimum is over pebblings of at most
    ``T - 1`` loads and computes, an upper bound on Q that is proven equal to it
    only where it meets a lower bound.

    Variables ``r, b`` (state), ``c, l, s`` (moves), indexed ``[kind][v][t]``; rows are
    ``(indices, coefficients, lower, upper)``, for any 0/1 solver.
    """

    def __init__(self, dag, M: int, variant: str, steps: int) -> None:
        self.M, self.variant, self.steps = M, variant, steps
        count = self.count = dag.num_vertices
        self.inputs = tuple(dag.inputs.tolist())  # no Dag kept: the model is pickled
        self.index: dict[tuple[str, int, int], int] = {}
        self.fixed: dict[int, int] = {}
        for kind in "rbcls":
            for v in range(count):
                for t in range(steps + 1):
                    self.index[kind, v, t] = len(self.index)
        inputs = set(dag.inputs.tolist())
        outputs = set(dag.outputs.tolist())
        for v in range(count):
            for kind in "rcls":
                self.fixed[self.index[kind, v, 0]] = 0
            self.fixed[self.index["b", v, 0]] = int(v in inputs)
            if v in inputs:
                for t in range(steps + 1):
                    self.fixed[self.index["c", v, t]] = 0
            if v in outputs:
                self.fixed[self.index["b", v, steps]] = 1
        self.rows: list[tuple[list[int], list[int], float, float]] = []
        x = self.index
        inf = float("inf")
        for t in range(1, steps + 1):
            self.rows.append(([x["r", v, t] for v in range(count)], [1] * count, -inf, M))
            self.rows.append(
                (
                    [x["c", v, t] for v in range(count)] + [x["l", v, t] for v in range(count)],
                    [1] * (2 * count),
                    -inf,
                    1,
                )
            )
            for v in range(count):
                r, r0 = x["r", v, t], x["r", v, t - 1]
                b, b0 = x["b", v, t], x["b", v, t - 1]
                c, load, s = x["c", v, t], x["l", v, t], x["s", v, t]
                self.rows.append(([r, r0, c, load], [1, -1, -1, -1], -inf, 0))
                self.rows.append(([c, r], [1, -1], -inf, 0))
                self.rows.append(([load, r], [1, -1], -inf, 0))
                self.rows.append(([load, b0], [1, -1], -inf, 0))
                self.rows.append(([s, r0], [1, -1], -inf, 0))
                self.rows.append(([b, b0, s], [1, -1, -1], -inf, 0))
                self.rows.append(([b, b0], [1, -1], 0, inf))  # blue is never removed
                for u in dag.predecessors(v).tolist():
                    self.rows.append(([c, x["r", u, t]], [1, -1], -inf, 0))
        if variant == "oneshot":
            for v in range(count):
                if v not in inputs:
                    cs = [x["c", v, t] for t in range(1, steps + 1)]
                    self.rows.append((cs, [1] * len(cs), -inf, 1))
        self.objective = [
            x[kind, v, t] for kind in "ls" for v in range(count) for t in range(1, steps + 1)
        ]

    def moves(self, value) -> list:
        """The pebbling of a solution ``value(index) -> 0/1``, step by step (see the class)."""
        from attnio.pebble.moves import Move

        x, out = self.index, []
        count = self.count
        red = set()
        blue = set(self.inputs)
        for t in range(1, self.steps + 1):
            now = {v for v in range(count) if value(x["r", v, t])}
            for v in range(count):
                if value(x["s", v, t]) and v not in blue:
                    out.append(Move("store", v))
                    blue.add(v)
            for v in sorted(red - now):
                out.append(Move("delete", v))
            red &= now
            for v in range(count):
                if (value(x["c", v, t]) or value(x["l", v, t])) and v not in red and v in now:
                    out.append(Move("compute" if value(x["c", v, t]) else "load", v))
                    red.add(v)
        return out


def _ilp_cpsat(model: TimeIndexedModel, time_limit: float):
    """Solve with OR-Tools CP-SAT (one worker, fixed seed): (status, lower, upper, moves)."""
    from ortools.sat.python import cp_model

    cp = cp_model.CpModel()
    var = [cp.NewBoolVar(f"x{i}") for i in range(len(model.index))]
    for i, value in model.fixed.items():
        cp.Add(var[i] == value)
    for indices, coefs, lo, hi in model.rows:
        expr = sum(c * var[i] for i, c in zip(indices, coefs, strict=True))
        if lo > float("-inf"):
            cp.Add(expr >= int(lo))
        if hi < float("inf"):
            cp.Add(expr <= int(hi))
    cp.Minimize(sum(var[i] for i in model.objective))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_search_workers = 1
    solver.parameters.random_seed = 0
    status = solver.Solve(cp)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return "no solution", math.ceil(solver.BestObjectiveBound() - 1e-6), None, None
    moves = model.moves(lambda i: solver.BooleanValue(var[i]))
    lower = math.ceil(solver.BestObjectiveBound() - 1e-6)
    upper = round(solver.ObjectiveValue())
    return ("optimal" if status == cp_model.OPTIMAL else "stopped"), lower, upper, moves


def _ilp_highs(model: TimeIndexedModel, time_limit: float):
    """Solve with HiGHS (one thread, fixed seed): (status, lower, upper, moves)."""
    import highspy
    import numpy as np

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 0)
    n = len(model.index)
    lower = np.zeros(n)
    upper = np.ones(n)
    for i, value in model.fixed.items():
        lower[i] = upper[i] = value
    cost = np.zeros(n)
    cost[model.objective] = 1
    h.addVars(n, lower, upper)
    h.changeColsCost(n, np.arange(n, dtype=np.int32), cost)
    h.changeColsIntegrality(
        n, np.arange(n, dtype=np.int32), np.full(n, highspy.HighsVarType.kInteger)
    )
    inf = highs_inf = h.getInfinity()
    for indices, coefs, lo, hi in model.rows:
        h.addRow(
            max(lo, -highs_inf),
            min(hi, inf),
            len(indices),
            np.array(indices, dtype=np.int32),
            np.array(coefs, dtype=np.float64),
        )
    h.run()
    info = h.getInfo()
    status = h.getModelStatus()
    bound = math.ceil(info.mip_dual_bound - 1e-6)
    if info.primal_solution_status != 2:  # no feasible solution
        return "no solution", bound, None, None
    values = h.getSolution().col_value
    moves = model.moves(lambda i: values[i] > 0.5)
    proven = status == highspy.HighsModelStatus.kOptimal
    return ("optimal" if proven else "stopped"), bound, round(info.objective_function_value), moves


ILP_SOLVERS = {"CP-SAT": ("ortools", _ilp_cpsat), "HiGHS": ("highspy", _ilp_highs)}
"""The 0/1 solvers of the baseline: name -> (module it needs, solve function)."""


def _ilp_child(name: str, model: TimeIndexedModel, time_limit: float):
    return ILP_SOLVERS[name][1](model, time_limit)


def _ilp_isolated(name: str, model: TimeIndexedModel, time_limit: float):
    """Solve in a fresh process: ortools and highspy each ship a HiGHS build, and the two
    cannot be loaded into one process (undefined symbols)."""
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_ilp_child, (name, model, time_limit))


def _importable(module: str) -> str | None:
    """None if ``module`` imports in a fresh process, else the error's last line."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False
    )
    if done.returncode == 0:
        return None
    return (done.stderr.strip().splitlines() or ["import failed"])[-1]


def ilp_table(time_limit: float, variant: str = "standard") -> None:
    """The time-indexed ILP (:class:`TimeIndexedModel`) against attnio's exact solver,
    side by side on the same instances, each solve capped at ``time_limit`` seconds.

    Rows print only for the solvers whose package imports (``pip install -e ".[ilp]"``);
    otherwise the table says which package is missing. Every ILP solution is replayed
    (``attnio.pebble.moves.replay``) before its cost is shown.
    """
    from attnio.pebble.moves import replay

    print(f"\n## ILP baseline: time-indexed model, {variant}, {time_limit:g} s cap each\n")
    solvers = {}
    for name, (module, _) in ILP_SOLVERS.items():
        error = _importable(module)
        if error is not None:
            print(f"{name}: not run ({module} is not importable: {error}; "
                  'pip install -e ".[ilp]")')  # fmt: skip
            continue
        solvers[name] = module
    if not solvers:
        return
    print(
        "| dag | n | d | V | M | steps T | attnio Q | attnio s | solver | ILP result "
        "| ILP s | ILP s / attnio s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    cases = [("attention-forward", 2, 1, M) for M in range(3, 7)]
    cases.append(("attention-forward", 2, 2, 3))
    for kind, n, d, M in cases:
        dag = builders.build(kind, n, d)
        exact = solve_exact(dag, M, variant=variant, time_limit=time_limit, max_states=MAX_STATES)
        known = solve_heuristic(dag, M, heuristic="search", variant=variant).io
        noninputs = dag.num_vertices - len(dag.inputs)
        steps = noninputs + known + 1
        model = TimeIndexedModel(dag, M, variant, steps)
        for name in solvers:
            start = time.perf_counter()
            status, lower, upper, moves = _ilp_isolated(name, model, time_limit)
            seconds = time.perf_counter() - start
            if moves is not None:
                # a stopped solve may pay for stores of blue vertices, which the moves skip
                upper = min(upper, replay(dag, moves, M, variant).io)
            if status == "optimal":
                shown = str(upper)
                if exact.optimal and upper < exact.io:
                    raise RuntimeError(f"{name} {kind} M={M}: {upper} below Q = {exact.io}")
            elif upper is None:
                shown = f"[{lower}, -] no solution"
            else:
                shown = f"[{lower}, {upper}]"
            ratio = f"{seconds / exact.seconds:,.0f}x" if exact.optimal else "-"
            print(
                f"| {kind} | {n} | {d} | {dag.num_vertices} | {M} | {steps} | {_cost(exact)} "
                f"| {exact.seconds:.2f} | {name} | {shown} | {seconds:.1f} | {ratio} |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--reference-states", type=int, default=3_000_000)
    parser.add_argument("--skip-stretch", action="store_true", help="skip n = 2, d = 2")
    parser.add_argument(
        "--frontier-only", action="store_true", help="only the frontier table (every M)"
    )
    parser.add_argument(
        "--compare-below",
        type=float,
        default=60.0,
        help="repeat without symmetry the frontier runs proven within this many seconds (0: never)",
    )
    parser.add_argument("--max-states", type=int, default=MAX_STATES)
    parser.add_argument(
        "--ilp-only", action="store_true", help="only the ILP baseline table (optional extra ilp)"
    )
    parser.add_argument("--ilp-time-limit", type=float, default=120.0)
    parser.add_argument(
        "--additive-only", action="store_true", help='only the "additive-patterns" comparison'
    )
    parser.add_argument(
        "--case",
        action="append",
        default=None,
        metavar="KIND:N:D",
        help="frontier instance (repeatable), e.g. attention-forward:2:2",
    )
    parser.add_argument("--variant", action="append", default=None)
    parser.add_argument(
        "--rule", action="append", default=[], help="frontier: a rule on top of the defaults"
    )
    parser.add_argument(
        "--m", type=int, action="append", default=None, help="frontier memory size (repeatable)"
    )
    parser.add_argument(
        "--max-bytes", type=int, default=None, help="frontier: cap on each search's bytes"
    )
    parser.add_argument(
        "--memory-only",
        action="store_true",
        help="only the memory-layout table (bytes per state, old against new)",
    )
    parser.add_argument(
        "--dominance-only",
        action="store_true",
        help="only the dominance measurement (stored states another one dominates)",
    )
    args = parser.parse_args()
    solve_exact(builders.build("attention-forward", 1, 1), 3)  # compile the kernels
    solve_exact(builders.build("attention-forward", 1, 1), 3, variant="oneshot", rules=())
    build_patterns(builders.build("attention-forward", 1, 1), 3)  # compile the table build
    cases = FRONTIER
    if args.case:
        cases = tuple((kind, int(n), int(d)) for kind, n, d in (c.split(":") for c in args.case))
    variants = tuple(args.variant) if args.variant else ("standard", "oneshot")
    if args.ilp_only:
        ilp_table(args.ilp_time_limit)
        return
    if args.additive_only:
        additive_table()
        return
    if args.memory_only:
        memory_table(args.time_limit)
        return
    if args.dominance_only:
        dominance_table(args.time_limit)
        return
    if not args.frontier_only:
        compare_table(args.time_limit, args.reference_states)
        sweep_table("attention-forward", 2, 1, list(range(3, 8)), args.time_limit)
        if not args.skip_stretch:
            sweep_table("attention-forward", 2, 2, list(range(3, 11)), args.time_limit)
        ilp_table(args.ilp_time_limit)
    frontier_table(
        args.time_limit,
        cases,
        variants,
        compare=args.compare_below,
        max_states=args.max_states,
        Ms=tuple(args.m) if args.m else None,
        extra_rules=tuple(args.rule),
        max_bytes=args.max_bytes,
    )


if __name__ == "__main__":
    main()
