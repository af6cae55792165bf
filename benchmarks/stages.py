"""Record which strengthened proofs go through the rooted claim, and which certificates z3
cannot re-check the lemma of (proofs/stages.json).

Run from the repository root:

    .venv/bin/python benchmarks/stages.py            # prove, print, compare; write nothing
    .venv/bin/python benchmarks/stages.py --record   # the same, then write the recording

Every obligation ``attnio verify --thorough`` proves is settled as verify settles it
(:func:`attnio.proofs.constants.settle`, one worker per core), in the checker's default
order (the recording in use is ignored): the plain strengthening's glance, then the rooted
one, then the plain one at its full budget, then the lemma of the certificate in a
glance. The claims proved through the rooted strengthening, and those whose certificate is
the original query (z3 did not re-check the lemma), are printed with the processor time
their proof took, next to what the recording in use says, and with ``--record`` written to
``proofs/stages.json`` (:mod:`attnio.proofs.stages`): ``attnio verify`` then tries the
rooted strengthening of the first first, and writes the original query for the second
without the glances.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from attnio.proofs import stages, suite
from attnio.proofs.check import FALLBACK_CERTIFICATE, Proved
from attnio.proofs.constants import settle
from attnio.proofs.generate import obligations
from attnio.proofs.obligation import fingerprint


def _decide(obligation):
    """Settle ``obligation`` in the default order; return (name, the strengthened claim,
    its stage, whether its lemma was re-checked, processor seconds), the claim None when
    no strengthening proved it."""
    stages.RECORDING = Path("/nonexistent/stages.json")  # the default order, in this worker
    start = time.process_time()
    outcome = settle(obligation)
    seconds = time.process_time() - start
    result = outcome.result
    if not (isinstance(result, Proved) and "strengthening" in result.method):
        return obligation.name, None, "", True, seconds
    claim = obligation if obligation.constant is None else obligation.at(result.constant)
    stage = stages.ROOTED if "of the rooted claim" in result.method else stages.PLAIN
    return obligation.name, claim, stage, FALLBACK_CERTIFICATE not in result.smtlib, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write proofs/stages.json")
    args = parser.parse_args()
    before = stages.recorded()
    start = time.perf_counter()
    rows = list(suite.spread(_decide, obligations(), suite.usable_cores()))
    print(f"{len(rows)} obligations settled in {time.perf_counter() - start:.1f} s wall")
    kept = [row for row in rows if row[1] is not None and (row[2] == stages.ROOTED or not row[3])]
    print()
    print("| strengthened claim | stage | lemma re-checked | processor s | recorded now |")
    print("|---|---|---|---:|---|")
    for name, claim, stage, lemma, seconds in kept:
        now = before.get(fingerprint(claim))
        shown = "no" if now is None else f"{now['stage']}, lemma {now.get('lemma', True)}"
        print(f"| `{name}` | {stage} | {lemma} | {seconds:.1f} | {shown} |")
    stale = set(before) - {fingerprint(row[1]) for row in kept}
    print(f"\n{len(kept)} claims; {len(stale)} recorded claims no longer so")
    if args.record:
        stages.record([(claim, stage, lemma) for _, claim, stage, lemma, _ in kept])
        print(f"written: {stages.RECORDING}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
