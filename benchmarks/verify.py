"""Benchmark: ``attnio verify`` cold, warm and ``--thorough``, and where its time goes.

Run from the repository root:

    .venv/bin/python benchmarks/verify.py             # cold, warm, thorough: times and ratios
    .venv/bin/python benchmarks/verify.py --no-thorough   # cold and warm only
    .venv/bin/python benchmarks/verify.py --profile   # per check, per family, slowest 20

The first form runs the installed ``attnio verify`` three times as a user would, each
in a fresh process with ``XDG_CACHE_HOME`` pointing at a new scratch directory (the
compiled numba kernels stay where they are: ``NUMBA_CACHE_DIR``): *cold* (empty result
and proof caches), *warm* (the same command again, both caches filled by the cold run:
no check should run) and *thorough* (``--thorough --no-cache``: every obligation, every
SMT-LIB file re-solved; ``--no-thorough`` leaves it out). It prints the wall time of
each, the ratios cold/warm and thorough/cold, the seconds of each check in each run,
and the load average before and after. Targets: cold at most 90 s on 2 otherwise idle
cores, warm at most a tenth of cold.

``--units`` proves every obligation (the thorough tier, no cache) over one worker per
core and records, per obligation, its processor time and the z3 resource units
(``rlimit count``) of each call, split into calls that decided (sat or unsat) and calls
that ended unknown; it prints the largest decided call against the limit of one call
and the obligations that ended unknown with what they spent. This is the measurement
the per-call limit and :data:`attnio.proofs.suite.THOROUGH_ONLY` are sized from.

``--profile`` runs the checks in this process (the default tier, or ``--thorough``,
never the cache) and prints the seconds of each check, of each obligation family and of
each expectation (summed over obligations, as measured in the worker that proved each)
and of the 20 slowest obligations with their status.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

import z3


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _verify(cache: str, *options: str) -> tuple[float, dict]:
    from attnio.pebble._jit import cache_directory

    # only the proof cache starts empty: the numba kernels stay in the user's cache
    env = dict(os.environ, XDG_CACHE_HOME=cache, NUMBA_CACHE_DIR=str(cache_directory()))
    command = [sys.executable, "-m", "attnio", "verify", "--json", *options]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"attnio verify {' '.join(options)} printed no JSON:\n{done.stderr[-2000:]}")
    return seconds, report


def compare(thorough: bool = True) -> None:
    """Time cold, warm and (unless ``thorough`` is False) thorough runs and print them with
    their ratios and the seconds of each check in each run."""
    print(f"load average before: {_load()}  (cores: {os.cpu_count()})")
    runs = [("cold (empty cache)", ()), ("warm (same cache)", ())]
    if thorough:
        runs.append(("thorough --no-cache", ("--thorough", "--no-cache")))
    with tempfile.TemporaryDirectory() as cache:
        rows = []
        for label, options in runs:
            seconds, report = _verify(cache, *options)
            rows.append((label, seconds, report))
            print(f"  {label}: {seconds:.1f} s, {report['failed']} failed", flush=True)
    print(f"load average after: {_load()}")
    print()
    print("| run | wall s | checks | from the result cache | failed | left out |")
    print("|---|---:|---:|---:|---:|---|")
    for label, seconds, report in rows:
        left = "yes" if report.get("left_out") else "nothing"
        print(
            f"| {label} | {seconds:.1f} | {len(report['results'])} | "
            f"{report.get('cached', 0)} | {report['failed']} | {left} |"
        )
    cold, warm = rows[0][1], rows[1][1]
    print()
    ratios = f"cold / warm: {cold / warm:.1f}x (warm is {warm / cold:.1%} of cold)"
    if thorough:
        ratios += f"   thorough / cold: {rows[2][1] / cold:.1f}x"
    print(ratios)
    print()
    print("| check | " + " | ".join(f"{label} s" for label, _, _ in rows) + " |")
    print("|---|" + "---:|" * len(rows))
    seconds = [{r["check"]: r["seconds"] for r in report["results"]} for _, _, report in rows]
    for name in seconds[0]:
        cells = " | ".join(f"{column.get(name, float('nan')):.1f}" for column in seconds)
        print(f"| {name} | {cells} |")


def profile(thorough: bool) -> None:
    """Run the checks in this process and print where the time goes."""
    from attnio._cli_verify import collect
    from attnio.proofs import verification

    verification.configure(thorough=thorough, cache=None)
    print(f"load average before: {_load()}")
    start = time.perf_counter()
    checks = []
    for name, check in collect():
        began = time.perf_counter()
        passed, _ = check()
        checks.append((name, passed, time.perf_counter() - began))
    total = time.perf_counter() - start
    print(f"load average after: {_load()}; total {total:.1f} s")
    print()
    print("| check | result | s |")
    print("|---|---|---:|")
    for name, passed, seconds in checks:
        print(f"| {name} | {passed} | {seconds:.1f} |")
    families: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for outcome in verification._OUTCOMES:
        row = families[outcome.obligation.family]
        row["n"] += 1
        row[outcome.result.status] += 1
        row["seconds"] += outcome.result.seconds
    print()
    print("| family | obligations | proved | counterexample | unknown | s (summed) |")
    print("|---|---:|---:|---:|---:|---:|")
    for family, row in sorted(families.items(), key=lambda kv: -kv[1]["seconds"]):
        print(
            f"| {family} | {row['n']} | {row['proved']} | {row['counterexample']} | "
            f"{row['unknown']} | {row['seconds']:.1f} |"
        )
    expected: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for outcome in verification._OUTCOMES:
        row = expected[outcome.obligation.expected.value]
        row["n"] += 1
        row["seconds"] += outcome.result.seconds
        row["slow"] += outcome.result.seconds >= 5
    print()
    print("| expected | obligations | s (summed) | 5 s or more |")
    print("|---|---:|---:|---:|")
    for value, row in sorted(expected.items(), key=lambda kv: -kv[1]["seconds"]):
        print(f"| {value} | {row['n']} | {row['seconds']:.1f} | {row['slow']} |")
    print()
    print("| slowest obligations | expected | status | s |")
    print("|---|---|---|---:|")
    slowest = sorted(verification._OUTCOMES, key=lambda o: -o.result.seconds)[:20]
    for outcome in slowest:
        ob = outcome.obligation
        print(f"| `{ob.name}` | {ob.expected.value} | {outcome.result.status} | "
              f"{outcome.result.seconds:.1f} |")  # fmt: skip


_CALLS: list[tuple[str, int, int, float, str]] = []


def _counted(solver):
    """``attnio.proofs.budget.check``, recording the answer, the units the call spent
    (each call has its own context, so its statistics are its own), its processor time
    and, for an unknown, z3's reason (the resource limit, or "canceled": the net)."""
    from attnio.proofs import budget

    start = time.thread_time()
    answer = budget.check(solver)
    cpu = time.thread_time() - start
    stats = solver.statistics()
    spent = stats.get_key_value("rlimit count") if "rlimit count" in list(stats.keys()) else 0
    reason = solver.reason_unknown() if answer == z3.unknown else ""
    _CALLS.append((str(answer), spent, budget.rlimit(solver.attnio_budget_ms), cpu, reason))
    return answer


def _measured(obligation) -> tuple:
    """Prove ``obligation`` in a worker; return its outcome, processor time and calls."""
    import importlib

    from attnio.proofs import prove

    # the module, not the function attnio.proofs.check re-exports under the same name
    importlib.import_module("attnio.proofs.check").check_budgeted = _counted
    _CALLS.clear()
    start = time.process_time()
    outcome = prove(obligation)
    cpu = time.process_time() - start
    return (
        obligation.name,
        obligation.family,
        obligation.expected.value,
        outcome.result.status,
        outcome.verdict,
        cpu,
        list(_CALLS),
    )


def units() -> None:
    """Prove every obligation over every core and print the units each call spent."""
    from attnio.proofs import budget, suite
    from attnio.proofs.check import DEFAULT_TIMEOUT_MS
    from attnio.proofs.generate import obligations

    print(f"load average before: {_load()}")
    start = time.perf_counter()
    rows = list(suite.spread(_measured, obligations(), suite.usable_cores()))
    print(f"load average after: {_load()}; {time.perf_counter() - start:.1f} s wall")
    limit = budget.rlimit(DEFAULT_TIMEOUT_MS)
    decided = [(u, cap) for row in rows for a, u, cap, *_ in row[6] if a in ("sat", "unsat")]
    undecided = [(u, cap) for row in rows for a, u, cap, *_ in row[6] if a == "unknown"]
    share = max((u / cap for u, cap in decided), default=0)
    print(f"limit of one call of the full budget: {limit:,} units ({DEFAULT_TIMEOUT_MS} ms)")
    print(f"calls: {len(decided)} decided, largest {max(decided, default=(0, 0))[0]:,} units, "
          f"at most {share:.1%} of its own limit; {len(undecided)} unknown, "
          f"{sum(u for u, _ in undecided):,} units spent in them")  # fmt: skip
    total_cpu = sum(row[5] for row in rows)
    print(f"processor time: {total_cpu:.1f} s in all")
    print()
    print("| obligation | expected | status | verdict | cpu s | calls | unknown calls |")
    print("|---|---|---|---|---:|---:|---:|")
    for row in sorted(rows, key=lambda r: -r[5]):
        unknown = sum(1 for a, *_ in row[6] if a == "unknown")
        if row[3] == "unknown" or row[5] > 2:
            print(f"| `{row[0]}` | {row[2]} | {row[3]} | {row[4]} | {row[5]:.1f} | "
                  f"{len(row[6])} | {unknown} |")  # fmt: skip
    with open("verify-units.json", "w", encoding="utf-8") as handle:
        json.dump(rows, handle)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="where the time goes")
    parser.add_argument("--thorough", action="store_true", help="profile the thorough tier")
    parser.add_argument("--units", action="store_true", help="z3 units and time per obligation")
    parser.add_argument(
        "--no-thorough", action="store_true", help="time cold and warm only (thorough: ~15 min)"
    )
    args = parser.parse_args()
    if args.units:
        units()
    elif args.profile:
        profile(args.thorough)
    else:
        compare(thorough=not args.no_thorough)


if __name__ == "__main__":
    main()
