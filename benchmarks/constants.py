"""Record the least-constant searches that ``attnio verify`` re-proves (proofs/constants.json).

Run from the repository root:

    .venv/bin/python benchmarks/constants.py            # search, print, compare; write nothing
    .venv/bin/python benchmarks/constants.py --record   # the same, then write the recording
    .venv/bin/python benchmarks/constants.py --record --only NAME   # re-record some only

With ``--only``, only the obligations whose name contains NAME are searched (and the
obligations with no entry of their current text, which must be searched anyway); the
other entries of the recording are kept as they are. ``--only sampled`` searches nothing
that is recorded and prints the sampled refutations of the tightness table's counts that
z3 does not bound and of every count against the max of every derived bound of its cell
(``tightness/full/*``, the lower ends of the table's intervals); they are sampled on
every run.

Every obligation with a constant (``attnio prove --only list`` shows them: the
``tightness/*``, ``comparison/*``, ``reduction/*`` and ``order/*`` claims of the form
``A <= C * B``) is searched for the least integer C z3 proves
(:func:`attnio.proofs.check.prove`, one worker per core); the tightness table's
algorithms that z3 does not bound, and every row against the max of all the cell's derived
bounds, are sampled. The table printed compares each new
search with the recording in use, side by side: the constant, the refuted constant and
the seconds of the search, then what ``attnio verify`` spends instead on the new record
(re-proving its C and re-confirming its refutation, :func:`attnio.proofs.constants.replay`,
in a fresh worker: a record that does not replay shows ``unknown`` there).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time

from attnio.proofs import constants, suite
from attnio.proofs.check import DEFAULT_TIMEOUT_MS, prove
from attnio.proofs.generate import (
    UNBOUNDED_ALGORITHMS,
    full_table,
    obligations,
    tightness_table,
)


def _replayed(found, timeout_ms: int):
    """Replay one new search's record as ``attnio verify`` will: (outcome, seconds)."""
    start = time.perf_counter()
    entry = constants.entry(found)
    if entry["status"] in ("proved", "counterexample"):
        outcome = constants.replay(found.obligation, entry, timeout_ms)
    else:  # verify searches an obligation whose search proved nothing
        outcome = constants.settle(found.obligation, timeout_ms)
    return outcome, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write proofs/constants.json")
    parser.add_argument("--only", help="search only the obligations whose name contains this")
    args = parser.parse_args()
    timeout = DEFAULT_TIMEOUT_MS
    everything = [o for o in obligations() if o.constant is not None]
    chosen = everything
    if args.only:
        chosen = [o for o in everything if args.only in o.name or constants.entry_of(o) is None]
    before = constants.recorded()
    jobs = suite.usable_cores()
    print(f"load average before: {os.getloadavg()[0]:.2f}; {len(chosen)} searches, {jobs} workers")
    start = time.perf_counter()
    found = list(suite.spread(functools.partial(prove, timeout_ms=timeout), chosen, jobs))
    searched = time.perf_counter() - start
    replays = list(suite.spread(functools.partial(_replayed, timeout_ms=timeout), found, jobs))
    replayed = time.perf_counter() - start - searched
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print()
    print(
        "| obligation | status | C | refuted | recorded C | recorded refuted | search s | verify s |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for outcome, (again, seconds) in zip(found, replays, strict=True):
        new = constants.entry(outcome)
        old = before.get(outcome.obligation.name, {})
        print(
            f"| `{outcome.obligation.name}` | {new['status']} | {new['constant']} | "
            f"{new['refuted']} | {old.get('constant', '-')} | {old.get('refuted', '-')} | "
            f"{outcome.result.seconds:.1f} | {seconds:.1f} ({again.result.status}) |"
        )
    unbounded = tightness_table(UNBOUNDED_ALGORITHMS) + full_table()
    for obligation in unbounded:  # no obligation: only the sampled refutation
        new = constants.sampled(obligation)
        old = before.get(obligation.name, {})
        print(
            f"| `{obligation.name}` | sampled | - | {new['refuted']} | - | "
            f"{old.get('refuted', '-')} | - | - |"
        )
    print()
    print(f"searches: {searched:.0f} s wall; verify's replays of the recording in use: "
          f"{replayed:.0f} s wall; ratio {searched / max(replayed, 1e-9):.1f}")  # fmt: skip
    if args.record:
        searched = {o.name for o in chosen}
        keep = [o.name for o in everything if o.name not in searched]
        constants.record(found, timeout, unbounded, keep=keep)
        print(f"wrote {constants.RECORDING} ({len(found)} searched, {len(keep)} kept)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
