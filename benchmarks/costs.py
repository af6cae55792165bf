"""Record which obligations of the default tier take seconds to prove (proofs/costs.json).

Run from the repository root:

    .venv/bin/python benchmarks/costs.py            # prove, print the table; write nothing
    .venv/bin/python benchmarks/costs.py --record   # the same, then write the recording

Every obligation of ``attnio verify``'s default tier, the costly ones included (only
THOROUGH_ONLY's open claims are left out, as there), is settled as verify settles it
(:func:`attnio.proofs.constants.settle`), over one worker process per usable core, and
the processor time of each is measured in its worker. Printed: per family, the
obligations, their processor seconds, and how many of them and how many seconds reach
:data:`attnio.proofs.costs.COSTLY_SECONDS` (the baseline beside it: the whole tier); then
the costly obligations, slowest first. With ``--record`` those that pass are written to
``proofs/costs.json`` (:mod:`attnio.proofs.costs`), which the default tier then leaves to
``attnio verify --thorough``. Processor times grow when the machine is busy: record on an
idle one.
"""

from __future__ import annotations

import argparse
import collections
import time

from attnio.proofs import costs, suite
from attnio.proofs.constants import settle
from attnio.proofs.generate import obligations


def _timed(obligation) -> tuple[str, float, str, str]:
    """Settle ``obligation``; return its name, processor seconds, status and verdict."""
    start = time.process_time()
    outcome = settle(obligation)
    return obligation.name, time.process_time() - start, outcome.result.status, outcome.verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write proofs/costs.json")
    parser.add_argument("--jobs", type=int, default=suite.usable_cores())
    args = parser.parse_args()

    chosen = [o for o in obligations() if o.name not in suite.THOROUGH_ONLY]
    by_name = {o.name: o for o in chosen}
    began = time.perf_counter()
    timings = list(suite.spread(_timed, chosen, args.jobs))
    wall = time.perf_counter() - began

    rows: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for name, seconds, _, verdict in timings:
        row = rows[name.split("/", 1)[0]]
        row["n"] += 1
        row["s"] += seconds
        row["FAIL"] += verdict == "FAIL"
        if seconds >= costs.COSTLY_SECONDS:
            row["costly"] += 1
            row["costly_s"] += seconds
    print(f"{'family':16} {'n':>5} {'FAIL':>5} {'s':>8} | {'costly':>6} {'costly s':>9}")
    total: collections.Counter = collections.Counter()
    for family, row in sorted(rows.items()):
        total.update(row)
        print(
            f"{family:16} {row['n']:5d} {row['FAIL']:5d} {row['s']:8.1f} | "
            f"{row['costly']:6d} {row['costly_s']:9.1f}"
        )
    print(
        f"{'all (baseline)':16} {total['n']:5d} {total['FAIL']:5d} {total['s']:8.1f} | "
        f"{total['costly']:6d} {total['costly_s']:9.1f}"
    )
    kept = total["s"] - total["costly_s"]
    print(
        f"default tier after the recording: {total['n'] - total['costly']} obligations, "
        f"{kept:.1f} processor s ({kept / max(total['s'], 1e-9):.0%} of the baseline); "
        f"wall {wall:.1f} s over {args.jobs} worker(s)"
    )
    print(f"\ncostly (>= {costs.COSTLY_SECONDS} s), slowest first:")
    for name, seconds, status, verdict in sorted(timings, key=lambda t: -t[1]):
        if seconds >= costs.COSTLY_SECONDS:
            print(f"  {seconds:7.1f} s  {status:14} {verdict:8} {name}")
    if args.record:
        # a failing obligation stays in the default tier, where verify shows the failure
        passing = [(by_name[n], s, st) for n, s, st, verdict in timings if verdict != "FAIL"]
        written = costs.record(passing)
        print(f"\nwrote {len(written['obligations'])} obligations to {costs.RECORDING}")


if __name__ == "__main__":
    main()
