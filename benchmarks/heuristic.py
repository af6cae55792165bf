"""Benchmark the numba heuristic pebbler against its pure-Python reference, side by side.

Run from the repository root:

    .venv/bin/python benchmarks/heuristic.py            # reference on the medium DAGs only
    .venv/bin/python benchmarks/heuristic.py --full     # reference on the n=128, d=16 DAG too

Targets: at least 20 million moves per second, and the element-level dense
forward DAG with n = 128, d = 16 pebbled with Belady in under 5 s. Times exclude graph
construction (reported separately) and numba compilation (done before timing). A second
table compares the order search with the natural order on small attention DAGs, a third
the heuristics with the exact optimum (``attnio.pebble.exact``, 10 s per instance; an
unproven optimum is shown as its bounds).
"""

from __future__ import annotations

import argparse
import time

from attnio.pebble import builders, reference
from attnio.pebble.heuristic import compile_kernels, natural_order, play, play_cost
from attnio.pebble.search import depth_first_order, search_order


def _best_of(repeats: int, run, *args, **kwargs) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        value = run(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return best, value


def speed_table(full: bool) -> None:
    cases = [("attention-forward", 32, 8), ("attention-backward", 16, 8),
             ("attention-forward", 128, 16)]  # fmt: skip
    print("| dag | n | d | V | build s | M | policy | io | moves | pebble s | with moves s "
          "| kernel s | Mmoves/s | python s | ratio |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind, n, d in cases:
        start = time.perf_counter()
        dag = builders.build(kind, n, d)
        built = time.perf_counter() - start
        order = natural_order(dag)
        big = dag.num_vertices > 200_000
        for M in (64, 1024):
            for policy in ("belady", "lru"):
                whole, _ = _best_of(5, play, dag, M, policy=policy)
                recorded, result = _best_of(1, play, dag, M, policy=policy, moves=True)
                count = len(result.moves)
                fast_only, _ = _best_of(5, play_cost, dag, M, order, policy)
                if big and not full:
                    slow, ratio = "-", "-"
                else:
                    start = time.perf_counter()
                    slow_moves = reference.play_order(dag, order.tolist(), M, policy)
                    slow_s = time.perf_counter() - start
                    assert slow_moves == result.moves, "kernel and reference disagree"
                    slow, ratio = f"{slow_s:.2f}", f"{slow_s / fast_only:.0f}x"
                print(
                    f"| {kind} | {n} | {d} | {dag.num_vertices} | {built:.2f} | {M} | {policy} "
                    f"| {result.io} | {count} | {whole:.3f} | {recorded:.2f} | {fast_only:.3f} "
                    f"| {count / fast_only / 1e6:.1f} | {slow} | {ratio} |"
                )


def search_table() -> None:
    print()
    print(
        "| dag | n | d | V | M | natural Belady | natural LRU | depth-first Belady | "
        "search (5000 iterations) | search s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind, n, d in (
        ("attention-forward", 4, 2),
        ("attention-backward", 3, 2),
        ("approx-forward", 4, 2),
        ("sparse-forward", 6, 2),
    ):
        dag = builders.build(kind, n, d)
        for M in (dag.min_memory + 2, 4 * dag.min_memory):
            belady = play(dag, M).io
            lru = play(dag, M, policy="lru").io
            dfs = play(dag, M, order=depth_first_order(dag)).io
            start = time.perf_counter()
            found = search_order(dag, M, iterations=5000, seed=0)
            seconds = time.perf_counter() - start
            print(
                f"| {kind} | {n} | {d} | {dag.num_vertices} | {M} | {belady} | {lru} | {dfs} | "
                f"{found.io} | {seconds:.2f} |"
            )


def gap_table() -> None:
    from attnio.pebble.exact import solve_exact

    print()
    print("| dag | n | d | V | M | natural Belady | natural LRU | search | exact (standard) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind, n, d in (("attention-forward", 2, 1), ("attention-backward", 1, 1),
                       ("approx-forward", 1, 1), ("sparse-forward", 2, 1)):  # fmt: skip
        dag = builders.build(kind, n, d)
        for M in range(dag.min_memory, dag.min_memory + 4):
            exact = solve_exact(dag, M, time_limit=10.0)
            shown = str(exact.io) if exact.optimal else f"[{exact.lower}, {exact.upper}]"
            print(
                f"| {kind} | {n} | {d} | {dag.num_vertices} | {M} | {play(dag, M).io} | "
                f"{play(dag, M, policy='lru').io} | "
                f"{search_order(dag, M, iterations=5000, seed=0).io} | {shown} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--full",
        action="store_true",
        help="also run the pure-Python reference on the n=128, d=16 DAG (slow)",
    )
    args = parser.parse_args()
    compile_kernels()
    speed_table(args.full)
    search_table()
    gap_table()


if __name__ == "__main__":
    main()
