"""Does the exact solver reach a derived lower bound above the compulsory I/O? (issue 38)

Run from the repository root:

    .venv/bin/python benchmarks/nonvacuous.py                    # all three tables
    .venv/bin/python benchmarks/nonvacuous.py --max-states 200000  # a smaller budget

Table 1: for each derived lower record of the dense and causal forward and backward
passes, the smallest graph (fewest vertices, then smallest M) where its value, rounded
up, exceeds the compulsory I/O (:func:`attnio.pebble.nonvacuity.smallest_nonvacuous`),
and what the exact solver does with it: every such graph has hundreds of vertices or
more, past the solver's one-word state encoding
(:data:`attnio.pebble.exact.EXACT_MAX_VERTICES`), so it refuses them.

Table 2: for each record, the instance within the solver's reach where the record comes
nearest to the compulsory I/O (:func:`attnio.pebble.nonvacuity.closest_vacuous`), solved
exactly: the optimum (certificate replayed) or the proven lower end.

Table 3: the largest graphs of each family the solver takes, at their smallest memory,
solved with the state budget: the proven lower end against the compulsory I/O and the
best derived bound that applies there.

Every solve has a state budget (``--max-states``, a resource limit, so the verdict does
not depend on the machine's load), never a time limit. A lower end is proven either way:
the smallest ``f = g + h`` left on A*'s queue, ``h`` admissible (``attnio.pebble.exact``).
"""

from __future__ import annotations

import argparse
import functools
import time

import sympy as sp

from attnio.bounds import catalog
from attnio.pebble import builders
from attnio.pebble.errors import InstanceTooLargeError
from attnio.pebble.exact import EXACT_MAX_VERTICES, solve_exact
from attnio.pebble.heuristic import compile_kernels
from attnio.pebble.moves import replay
from attnio.pebble.nonvacuity import closest_vacuous, derived_lower_records, smallest_nonvacuous
from attnio.pebble.player import compulsory_io

_LARGEST = (
    ("attention-forward", None, 2, 2),
    ("attention-forward", None, 1, 10),
    ("attention-backward", None, 2, 1),
    ("attention-backward", None, 1, 4),
    ("sparse-forward", "causal", 2, 2),
    ("sparse-backward", "causal", 2, 1),
)
"""(kind, mask, n, d) of the largest graphs of each family within the solver's reach."""


@functools.cache
def _solve(kind: str, mask: str | None, n_: int, d_: int, M: int, max_states: int) -> tuple:
    """(result, seconds) of the exact solver with a state budget; the certificate replayed."""
    options = {} if mask is None else {"mask": mask}
    dag = builders.build(kind, n_, d_, **options)
    tic = time.perf_counter()
    result = solve_exact(dag, M, max_states=max_states)
    seconds = time.perf_counter() - tic
    if replay(dag, result.moves, M).io != result.io:
        raise RuntimeError(f"{kind} n={n_} d={d_} M={M}: the certificate does not replay")
    return result, seconds


def _verdict(result) -> str:
    return f"optimum {result.io}" if result.optimal else f"{result.lower} <= IO <= {result.upper}"


def smallest_table(max_vertices: int) -> None:
    """Table 1: the smallest non-vacuous instance of each record."""
    print("\n## 1. Smallest graph where each derived lower record exceeds the compulsory I/O")
    print(f"(graphs of at most {max_vertices:,} vertices scanned; exact solver: at most "
          f"{EXACT_MAX_VERTICES} vertices)\n")  # fmt: skip
    print("| record | instance | vertices | compulsory | derived bound | exact solver |")
    print("|---|---|---:|---:|---:|---|")
    for record in derived_lower_records():
        tic = time.perf_counter()
        w = smallest_nonvacuous(record, max_vertices=max_vertices)
        scan = time.perf_counter() - tic
        if w is None:
            print(f"| `{record}` | none up to {max_vertices:,} vertices ({scan:.1f} s scan) "
                  "| | | | |")  # fmt: skip
            continue
        try:
            options = {} if w.mask is None else {"mask": w.mask}
            solve_exact(builders.build(w.kind, w.n, w.d, **options), w.M, max_states=1)
            solver = "ran (unexpected)"
        except InstanceTooLargeError:
            solver = f"refused: {w.vertices} > {EXACT_MAX_VERTICES} vertices"
        where = f"{w.kind}{'/' + w.mask if w.mask else ''} n={w.n} d={w.d} M={w.M}"
        print(f"| `{record}` | {where} | {w.vertices:,} | {w.compulsory} | {w.bound} | {solver} |")


def closest_table(max_states: int) -> None:
    """Table 2: the nearest instance within reach of each record, solved (records that
    share their nearest instance share a row)."""
    print(f"\n## 2. Within the solver's reach: where each record comes nearest the compulsory "
          f"I/O (state budget {max_states:,})\n")  # fmt: skip
    print("| instance | vertices | compulsory | derived bounds (records) | exact | "
          "states expanded | seconds |")  # fmt: skip
    print("|---|---:|---:|---|---|---:|---:|")
    rows: dict[tuple, list[str]] = {}
    for record in derived_lower_records():
        w = closest_vacuous(record)
        if w is None:
            print(f"| none within {EXACT_MAX_VERTICES} vertices | | | `{record}` | | | |")
            continue
        key = (w.kind, w.mask, w.n, w.d, w.M, w.vertices, w.compulsory)
        rows.setdefault(key, []).append(f"{w.bound} (`{record}`)")
    for (kind, mask, n_, d_, M, vertices, compulsory), bounds in rows.items():
        result, seconds = _solve(kind, mask, n_, d_, M, max_states)
        where = f"{kind}{'/' + mask if mask else ''} n={n_} d={d_} M={M}"
        print(f"| {where} | {vertices} | {compulsory} | {', '.join(bounds)} | "
              f"{_verdict(result)} | {result.states_explored:,} | {seconds:.2f} |")  # fmt: skip


def _best_derived(kind: str, mask: str | None, n_: int, d_: int, M: int) -> tuple[str, int]:
    """The largest derived lower record applying at the instance (name, value rounded up)."""
    names = set(derived_lower_records())
    spec = builders.BUILDERS[kind]
    best = ("none", -(10**9))
    for bound in catalog(regime=spec.regime.value, pass_=spec.pass_.value):
        if bound.name not in names or bound.mask != mask:
            continue
        if bound.applies(n=n_, d=d_, M=M):
            value = int(sp.ceiling(bound.evaluate(n=n_, d=d_, M=M)))
            best = max(best, (bound.name, value), key=lambda item: item[1])
    return best


def largest_table(max_states: int) -> None:
    """Table 3: the largest graphs within reach at their smallest memory."""
    print(f"\n## 3. The largest graphs within reach, smallest M (state budget {max_states:,})\n")
    print("| instance | vertices | compulsory | best derived bound | exact | "
          "states expanded | seconds |")  # fmt: skip
    print("|---|---:|---:|---|---|---:|---:|")
    for kind, mask, n_, d_ in _LARGEST:
        options = {} if mask is None else {"mask": mask}
        dag = builders.build(kind, n_, d_, **options)
        M = dag.min_memory
        result, seconds = _solve(kind, mask, n_, d_, M, max_states)
        name, value = _best_derived(kind, mask, n_, d_, M)
        where = f"{kind}{'/' + mask if mask else ''} n={n_} d={d_} M={M}"
        print(f"| {where} | {dag.num_vertices} | {compulsory_io(dag)} | {value} (`{name}`) | "
              f"{_verdict(result)} | {result.states_explored:,} | {seconds:.1f} |")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-states", type=int, default=400_000,
                        help="state budget of each exact solve (default 400,000)")  # fmt: skip
    parser.add_argument("--max-vertices", type=int, default=200_000,
                        help="largest graph table 1 scans (default 200,000)")  # fmt: skip
    parser.add_argument("--tables", default="123", help="which tables to print (default 123)")
    args = parser.parse_args(argv)
    compile_kernels()
    solve_exact(builders.build("attention-forward", 1, 1), 3)  # compile the exact kernels
    if "1" in args.tables:
        smallest_table(args.max_vertices)
    if "2" in args.tables:
        closest_table(args.max_states)
    if "3" in args.tables:
        largest_table(args.max_states)


if __name__ == "__main__":
    main()
