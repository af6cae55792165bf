"""Record the stage that decides each proof and the certificates whose lemma z3 does not
re-check (proofs/stages.json).

Run from the repository root:

    .venv/bin/python benchmarks/stages.py            # prove, print, compare; write nothing
    .venv/bin/python benchmarks/stages.py --record   # the same, then write the recording

Every obligation ``attnio verify --thorough`` proves is settled as verify settles it
(:func:`attnio.proofs.constants.settle`, one worker per core), in the checker's default
order (the recording in use is ignored); a proof that took at least 2 s of processor time
is settled again with each other stage first (rooted or plain strengthening for a claim
with a root, the integer query for one without a constant), and the stage that took the
least processor time is recorded, when it saves at least a fifth of the default order's. The claims with a
stage to record, and those whose certificate is the original query (z3 did not re-check
the lemma), are printed with the processor time of the default order and of the
recorded stage, next to what the recording in use says, and with ``--record`` written to
``proofs/stages.json`` (:mod:`attnio.proofs.stages`): ``attnio verify`` then tries the
recorded stage first, and writes the original query for the certificates without the
glances at the lemma. Processor times near the net depend on how busy the machine is, so
record on a machine as busy as the one the recording is for.
"""

from __future__ import annotations

import argparse
import importlib
import tempfile
import time
from pathlib import Path

from attnio.proofs import stages, suite
from attnio.proofs.check import FALLBACK_CERTIFICATE, Proved
from attnio.proofs.constants import settle
from attnio.proofs.generate import obligations
from attnio.proofs.obligation import fingerprint

_CHECK = importlib.import_module("attnio.proofs.check")  # the module, not its check()


SLOW = 2.0
"""Processor seconds from which a proof's other stage orders are measured too."""


def _settled(obligation, recording: Path) -> tuple:
    """Settle ``obligation`` with ``recording`` in force: (outcome, processor seconds)."""
    stages.RECORDING = recording
    stages._read.cache_clear()
    start = time.process_time()
    outcome = settle(obligation)
    return outcome, time.process_time() - start


def _lemma_rechecked(result) -> bool:
    """Whether the certificate of ``result`` (a proof) is not the original query."""
    return FALLBACK_CERTIFICATE not in result.smtlib


def _decide(obligation):
    """Settle ``obligation`` in the default order and, when that took at least
    :data:`SLOW` seconds, with each other stage first; return (name, the proved claim, the
    stage to record, whether its lemma was re-checked, processor seconds of the default
    order, of the recorded one), the claim None when it was not proved."""
    folder = Path(tempfile.mkdtemp())
    outcome, seconds = _settled(obligation, folder / "none.json")
    result = outcome.result
    if not isinstance(result, Proved):
        return obligation.name, None, "", True, seconds, seconds
    claim = obligation if obligation.constant is None else obligation.at(result.constant)
    lemma = _lemma_rechecked(result)
    if not lemma and seconds >= SLOW:  # compare the orders without the lemma's glances
        path = folder / "lemma.json"
        stages.record([(claim, "", False)], path)
        seconds = _settled(obligation, path)[1]
    best = (seconds, "")
    if seconds >= SLOW:
        candidates = [stages.ROOTED, stages.PLAIN] if _CHECK._rooted(claim) is not None else []
        if obligation.constant is None and "strengthening" not in result.method:
            candidates.append(stages.INTEGERS)  # check_at has no integer stage
        for candidate in candidates:
            path = folder / f"{candidate}.json"
            stages.record([(claim, candidate, lemma)], path)
            again, spent = _settled(obligation, path)
            if isinstance(again.result, Proved) and spent < best[0]:
                best = (spent, candidate)
    if best[0] > 0.8 * seconds:  # not worth recording: within a fifth of the default order
        best = (seconds, "")
    return obligation.name, claim, best[1], lemma, seconds, best[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write proofs/stages.json")
    args = parser.parse_args()
    before = stages.recorded()
    start = time.perf_counter()
    rows = list(suite.spread(_decide, obligations(), suite.usable_cores()))
    print(f"{len(rows)} obligations settled in {time.perf_counter() - start:.1f} s wall")
    kept = [row for row in rows if row[1] is not None and (row[2] or not row[3])]
    print()
    print("| proved claim | stage | lemma re-checked | default s | recorded stage s | now |")
    print("|---|---|---|---:|---:|---|")
    for name, claim, stage, lemma, seconds, best in kept:
        now = before.get(fingerprint(claim))
        shown = "no" if now is None else f"{now['stage'] or '-'}, lemma {now.get('lemma', True)}"
        print(f"| `{name}` | {stage or '-'} | {lemma} | {seconds:.1f} | {best:.1f} | {shown} |")
    stale = set(before) - {fingerprint(row[1]) for row in kept}
    print(f"\n{len(kept)} claims; {len(stale)} recorded claims no longer so")
    if args.record:
        stages.record([(claim, stage, lemma) for _, claim, stage, lemma, _, _ in kept])
        print(f"written: {stages.RECORDING}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
