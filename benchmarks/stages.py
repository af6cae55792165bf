"""Record which claims their rooted strengthening decides (proofs/stages.json).

Run from the repository root:

    .venv/bin/python benchmarks/stages.py            # prove, print, compare; write nothing
    .venv/bin/python benchmarks/stages.py --record   # the same, then write the recording

Every obligation ``attnio verify --thorough`` proves is settled as verify settles it
(:func:`attnio.proofs.constants.settle`, one worker per core), in the checker's default
order (the recording in use is ignored): the plain strengthening's glance, then the rooted
one, then the plain one at its full budget. The claims proved through the rooted
strengthening (the obligation itself, or for an obligation with a constant the claim at
its constant) are printed with the processor time their proof took, next to what the
recording in use says, and with ``--record`` written to ``proofs/stages.json``
(:mod:`attnio.proofs.stages`), so that ``attnio verify`` tries the rooted strengthening of
those claims first.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from attnio.proofs import stages, suite
from attnio.proofs.check import Proved
from attnio.proofs.constants import settle
from attnio.proofs.generate import obligations
from attnio.proofs.obligation import fingerprint


def _decide(obligation):
    """Settle ``obligation`` in the default order; return (name, the strengthened claim if
    its rooted strengthening decided it, processor seconds)."""
    stages.RECORDING = Path("/nonexistent/stages.json")  # the default order, in this worker
    start = time.process_time()
    outcome = settle(obligation)
    seconds = time.process_time() - start
    result = outcome.result
    if not (isinstance(result, Proved) and "of the rooted claim" in result.method):
        return obligation.name, None, seconds
    claim = obligation if obligation.constant is None else obligation.at(result.constant)
    return obligation.name, claim, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write proofs/stages.json")
    args = parser.parse_args()
    before = stages.recorded()
    start = time.perf_counter()
    rows = list(suite.spread(_decide, obligations(), suite.usable_cores()))
    print(f"{len(rows)} obligations settled in {time.perf_counter() - start:.1f} s wall")
    rooted = [(name, claim, seconds) for name, claim, seconds in rows if claim is not None]
    print()
    print("| claim decided by its rooted strengthening | processor s | recorded now |")
    print("|---|---:|---|")
    for name, claim, seconds in rooted:
        now = "yes" if fingerprint(claim) in before else "no"
        print(f"| `{name}` | {seconds:.1f} | {now} |")
    stale = set(before) - {fingerprint(claim) for _, claim, _ in rooted}
    print(f"\n{len(rooted)} claims; {len(stale)} recorded claims no longer decided so")
    if args.record:
        stages.record([claim for _, claim, _ in rooted])
        print(f"written: {stages.RECORDING}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
