"""Benchmark: the whole obligation catalog of ``attnio prove`` against plain z3.

Run: ``.venv/bin/python benchmarks/prove.py [--timeout MS]``

Prints, per obligation family, the number of obligations, how they ended and the
wall time of attnio's checker (relaxation, rounding-free strengthening, sampled
constants, seeds, coefficient split), and beside it a baseline in the same run:
plain z3 on the whole claim (relaxation then integer query, no strategy), on the
same obligations, with constants fixed at the value attnio found. Target: the
whole catalog in under 60 s on 2 cores, no unknown among expected-true
obligations.
"""

from __future__ import annotations

import argparse
import collections
import time

from attnio.proofs import DEFAULT_TIMEOUT_MS, Proved, prove
from attnio.proofs.check import check_plain
from attnio.proofs.generate import obligations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT_MS)
    parser.add_argument("--baseline-timeout", type=int, default=2000)
    args = parser.parse_args()

    generated = obligations()
    start = time.perf_counter()
    outcomes = []
    for obligation in generated:
        began = time.perf_counter()
        outcome = prove(obligation, args.timeout)
        outcomes.append((outcome, time.perf_counter() - began))
    total = time.perf_counter() - start

    baseline_total = 0.0
    rows: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for outcome, seconds in outcomes:
        ob = outcome.obligation
        row = rows[ob.family]
        row["n"] += 1
        row[outcome.verdict] += 1
        row["seconds"] += seconds
        instance = ob if ob.constant is None else ob.at(outcome.result.constant)
        began = time.perf_counter()
        plain = check_plain(instance, args.baseline_timeout)
        elapsed = time.perf_counter() - began
        baseline_total += elapsed
        row["base_seconds"] += elapsed
        row["base_proved"] += isinstance(plain, Proved)
        row["proved"] += isinstance(outcome.result, Proved)

    header = (
        f"{'family':16} {'n':>4} {'ok':>4} {'FAIL':>4} {'find':>4} {'unk':>4} "
        f"{'proved':>6} {'attnio s':>9} | {'plain z3 proved':>15} {'plain s':>8} "
        f"{'time ratio':>10}"
    )
    print(header)
    print("-" * len(header))
    for family, row in rows.items():
        ratio = row["base_seconds"] / row["seconds"] if row["seconds"] else float("nan")
        print(
            f"{family:16} {row['n']:4d} {row['ok']:4d} {row['FAIL']:4d} {row['finding']:4d} "
            f"{row['unknown']:4d} {row['proved']:6d} {row['seconds']:9.2f} | "
            f"{row['base_proved']:15d} {row['base_seconds']:8.2f} {ratio:10.2f}"
        )
    failed = sum(row["FAIL"] for row in rows.values())
    proved = sum(row["proved"] for row in rows.values())
    base = sum(row["base_proved"] for row in rows.values())
    print("-" * len(header))
    print(
        f"{'total':16} {len(outcomes):4d} {'':>4} {failed:4d} {'':>4} {'':>4} {proved:6d} "
        f"{total:9.2f} | {base:15d} {baseline_total:8.2f}"
    )
    print(
        f"target: whole catalog < 60 s -> {'met' if total < 60 else 'MISSED'} ({total:.1f} s); "
        f"expected-true not proved: {failed}"
    )
    constants = [
        (o.obligation.name, o.result.constant, o.result.note)
        for o, _ in outcomes
        if o.obligation.constant is not None
    ]
    if constants:
        print("\nconstants (least C z3 proved; note on C - 1):")
        for name, value, note in constants:
            print(f"  C = {value:5d}  {name}  [{note}]")


if __name__ == "__main__":
    main()
