"""Benchmark the exact pebbling solver against the pure-Python brute force, side by side.

Run from the repository root:

    .venv/bin/python benchmarks/exact.py                 # everything, 60 s per exact solve
    .venv/bin/python benchmarks/exact.py --time-limit 10 --skip-stretch

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
"""

from __future__ import annotations

import argparse
import time

from attnio.pebble import builders
from attnio.pebble.errors import InstanceTooLargeError
from attnio.pebble.exact import DEFAULT_RULES, solve_exact
from attnio.pebble.exact_reference import reference_optimum
from attnio.pebble.heuristic import compulsory_io
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
) -> None:
    """Every M of each frontier instance, from the smallest feasible M until Q reaches the
    compulsory I/O (then every larger M has the same Q). Each run proven within
    ``compare`` seconds is repeated without the symmetry reduction, side by side (the
    states-expanded ratio is the fraction the reduction keeps)."""
    plain_rules = tuple(rule for rule in DEFAULT_RULES if rule != "symmetry")
    print(f"\n## Frontier: every M, time limit {time_limit:g} s each\n")
    head = "| dag | n | d | V | automorphisms | variant | M | Q (or proven bounds) | seconds | expanded |"
    rule = "|---|---|---|---|---|---|---|---|---|---|"
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
                result = solve_exact(
                    dag, M, variant=variant, time_limit=time_limit, max_states=max_states
                )
                row = (
                    f"| {kind} | {n} | {d} | {dag.num_vertices} | {order} | {variant} | {M} "
                    f"| {_cost(result)} | {result.seconds:.1f} | {result.states_explored:,} |"
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
        "--case",
        action="append",
        default=None,
        metavar="KIND:N:D",
        help="frontier instance (repeatable), e.g. attention-forward:2:2",
    )
    parser.add_argument("--variant", action="append", default=None)
    args = parser.parse_args()
    solve_exact(builders.build("attention-forward", 1, 1), 3)  # compile the kernels
    solve_exact(builders.build("attention-forward", 1, 1), 3, variant="oneshot", rules=())
    build_patterns(builders.build("attention-forward", 1, 1), 3)  # compile the table build
    cases = FRONTIER
    if args.case:
        cases = tuple((kind, int(n), int(d)) for kind, n, d in (c.split(":") for c in args.case))
    variants = tuple(args.variant) if args.variant else ("standard", "oneshot")
    if not args.frontier_only:
        compare_table(args.time_limit, args.reference_states)
        sweep_table("attention-forward", 2, 1, list(range(3, 8)), args.time_limit)
        if not args.skip_stretch:
            sweep_table("attention-forward", 2, 2, list(range(3, 11)), args.time_limit)
    frontier_table(
        args.time_limit, cases, variants, compare=args.compare_below, max_states=args.max_states
    )


if __name__ == "__main__":
    main()
