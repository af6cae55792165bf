"""Recorded constants: the least-C searches, run once, and re-proved at their constant.

An obligation with a constant (``count <= C * lower``, a comparison ``A <= C * B``) is
settled by :func:`~attnio.proofs.check.prove`'s search for the least integer C z3
proves: a sampled refutation, then doubling and bisection, a dozen z3 calls or more.
Which C the search reports is a measurement; that the reported C holds is the check.
So the search runs once (``python benchmarks/constants.py --record``) and its outcome
is shipped in ``constants.json`` beside this module; ``attnio verify`` then re-proves
each recorded C with the stages the search used, with its SMT-LIB certificate, and
re-confirms each recorded refutation exactly with sympy (:func:`settle`). Nothing is
taken from the recording on trust: a recorded C that is not proved again, or a recorded
refuting point that sympy does not confirm, makes the obligation unknown (and
``attnio verify`` fail). A recorded search that proved no C up to the limit (an open
claim) is replayed at the limit with the search's stages, its refutation re-confirmed,
and stays unknown, saying that the search's last, full-budget call at the limit is not
run again and how to run it; should the limit be proved now, the constant is searched.

A record belongs to one obligation text: its *fingerprint* is a digest of the claim and
assumptions as sympy trees. When the catalog changes a formula, the fingerprint no
longer matches, and the obligation is searched again (and the recording is stale until
it is re-recorded; ``tests/test_constants.py`` says so).
"""

from __future__ import annotations

import datetime
import functools
import json
import time
from collections.abc import Iterable
from pathlib import Path

import sympy as sp

from .budget import searching
from .check import (
    CONSTANT_LIMIT,
    DEFAULT_TIMEOUT_MS,
    Counterexample,
    Outcome,
    Proved,
    Query,
    Unknown,
    check_at,
    prove,
    refutation_at,
    sampled_refutation,
)
from .check import show_point as _show
from .obligation import Obligation, fingerprint

RECORDING = Path(__file__).parent / "constants.json"
"""The recorded searches, one entry per obligation with a constant."""

COMMAND = "python benchmarks/constants.py --record"
"""The command that writes :data:`RECORDING`."""

FORMAT = 1
"""Version of the recording's layout."""

NOT_REPRODUCED = "recorded search not reproduced: "
"""How the reason of a replay that did not reproduce its record begins."""

RECORDED_UNKNOWN = "recorded search, replayed at its limit: "
"""How the reason of the replay of a search that proved no constant begins."""


@functools.cache
def _read(path: Path) -> dict:
    if not path.is_file():
        return {"obligations": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def _recording() -> dict:
    return _read(RECORDING)


def recorded() -> dict[str, dict]:
    """The recorded search outcomes (of :data:`RECORDING`), by obligation name."""
    return _recording()["obligations"]


def recorded_on() -> str:
    """The date of the recording (``YYYY-MM-DD``), or ``"never"``."""
    return _recording().get("recorded", "never")


def entry_of(obligation: Obligation, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> dict | None:
    """The record of ``obligation`` if it was recorded for today's text and budget."""
    entry = recorded().get(obligation.name)
    recording = _recording()
    if (
        entry is None
        or entry.get("fingerprint") != fingerprint(obligation)
        or recording.get("timeout_ms") != int(timeout_ms)
        or recording.get("constant_limit") != CONSTANT_LIMIT
    ):
        return None
    return entry


def _point(entry: dict) -> dict[str, sp.Rational]:
    return {name: sp.Rational(value) for name, value in entry["point"].items()}


def replay(obligation: Obligation, entry: dict, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Outcome:
    """Re-prove the recorded constant of ``obligation`` and re-confirm its refutation.

    The outcome is what :func:`~attnio.proofs.check.prove`'s search reported, obtained
    again without the search: the recorded C proved with the search's stages and a
    certificate, the recorded refuting point confirmed with sympy. If either is not
    reproduced the result is :class:`~attnio.proofs.check.Unknown` with the reason. A
    search that proved no constant is replayed at its limit (:func:`_replay_unknown`).
    """
    start = time.perf_counter()
    constant, refuted = entry["constant"], entry["refuted"]
    notes = []
    counterexample = None
    if refuted is not None:
        point = _point(entry)
        counterexample, why = refutation_at(obligation, refuted, point)
        if counterexample is None:
            return Outcome(
                obligation,
                Unknown(
                    f"{NOT_REPRODUCED}the refutation of C = {refuted} at {_show(point)} is "
                    f"not confirmed: {why}",
                    Query(obligation.at(refuted), False).smtlib(),
                    time.perf_counter() - start,
                    constant,
                ),
            )
        notes.append(f"C = {refuted} refuted at {_show(point)}")
    if entry["status"] == "unknown":
        return _replay_unknown(obligation, counterexample, start, timeout_ms)
    if constant is None:  # status counterexample: the search refuted every C up to its limit
        seconds = time.perf_counter() - start
        note = f"sampled ratio above the limit {CONSTANT_LIMIT} (recorded search)"
        fields = dict(counterexample.__dict__, seconds=seconds, note=note)
        return Outcome(obligation, Counterexample(**fields), counterexample)
    result = check_at(obligation, constant, timeout_ms, certify=True)
    seconds = time.perf_counter() - start
    if not isinstance(result, Proved):
        return Outcome(
            obligation,
            Unknown(
                f"{NOT_REPRODUCED}C = {constant} is not proved again: {result.status} "
                f"({getattr(result, 'reason', '')})",
                result.smtlib,
                seconds,
                constant,
            ),
        )
    if refuted == constant - 1:
        note = f"{notes[0]}: C is the least"
    elif refuted is not None:
        note = (
            f"{notes[0]}, so the least constant is in ({refuted}, {constant}]; "
            f"C = {constant} is the least the recorded search proved"
        )
    else:
        note = f"C = {constant} is the least the recorded search proved"
    fields = dict(result.__dict__, constant=constant, seconds=seconds, note=note)
    return Outcome(obligation, Proved(**fields), counterexample)


def _replay_unknown(
    obligation: Obligation,
    counterexample: Counterexample | None,
    start: float,
    timeout_ms: int,
) -> Outcome:
    """The replay of a recorded search that proved no C up to :data:`CONSTANT_LIMIT`.

    The limit is tried again with the search's stages, as the search tried it (the fast
    stages, under the search's processor-time net): if that decides it now, the record is
    stale and the constant is searched afresh. Otherwise the outcome is unknown, as
    recorded, and says that the search's last call, the full-budget check at the limit
    (measured: 21 of the 26 s of processor time of the open ``order-any-n`` backward
    comparison, in the processor-time net and the integer stage's cancelled seeds), is not
    run again, and how to run it.
    """
    with searching():
        again = check_at(obligation, CONSTANT_LIMIT, timeout_ms)
    if not isinstance(again, Unknown):  # decided now: the record is stale, search
        return prove(obligation, timeout_ms)
    reason = (
        f"{RECORDED_UNKNOWN}no C <= {CONSTANT_LIMIT} proved; C = {CONSTANT_LIMIT} not "
        f"proved again with the search's stages ({again.status}); the search's full-budget "
        "check at the limit, which ended unknown when recorded, is not run again "
        f"(attnio prove --search --only '{obligation.name}' searches afresh)"
    )
    note = f"no C <= {CONSTANT_LIMIT} proved (recorded search)"
    if counterexample is not None:
        note += f"; C = {counterexample.constant} refuted at {_show(counterexample.point)}"
    seconds = time.perf_counter() - start
    return Outcome(
        obligation,
        Unknown(reason, again.smtlib, seconds, CONSTANT_LIMIT, note),
        counterexample,
    )


def settle(obligation: Obligation, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Outcome:
    """:func:`replay` an obligation whose constant search is recorded for its text, else
    :func:`~attnio.proofs.check.prove` it (searching, for an obligation with a constant).

    A recorded search that proved no constant (unknown up to the limit) is replayed at the
    limit with the search's stages, and searched afresh only if that proves it now.
    """
    found = entry_of(obligation, timeout_ms) if obligation.constant is not None else None
    if found is None or found["status"] not in ("proved", "counterexample", "unknown"):
        return prove(obligation, timeout_ms)
    return replay(obligation, found, timeout_ms)


def entry(outcome: Outcome) -> dict:
    """The record of one finished search (an outcome of :func:`prove`)."""
    result, refutation = outcome.result, outcome.refutation
    return {
        "fingerprint": fingerprint(outcome.obligation),
        "status": result.status,
        "constant": result.constant if isinstance(result, Proved) else None,
        "refuted": None if refutation is None else refutation.constant,
        "point": None
        if refutation is None
        else {k: str(v) for k, v in sorted(refutation.point.items())},
        "seconds": round(result.seconds, 3),
        "detail": result.note,
    }


def sampled(obligation: Obligation) -> dict:
    """The record of an obligation z3 cannot bound: only the constant sampling refutes.

    Its status is ``sampled``: the grid search's largest ratio rho refutes every
    C < rho (the point confirmed with sympy); no constant is proved.
    """
    found = sampled_refutation(obligation)
    refuted = None if found is None else found.constant
    point = None if found is None else {k: str(v) for k, v in sorted(found.point.items())}
    return {
        "fingerprint": fingerprint(obligation),
        "status": "sampled",
        "constant": None,
        "refuted": refuted,
        "point": point,
        "seconds": None,
        "detail": "no z3 search: z3 does not bound this claim; sampling refutes every C "
        "up to the one recorded",
    }


def record(
    outcomes: Iterable[Outcome],
    timeout_ms: int,
    unbounded: Iterable[Obligation] = (),
    path: Path | None = None,
    keep: Iterable[str] = (),
) -> dict:
    """Write the searches' outcomes (and the samples of ``unbounded``) to ``path``
    (default :data:`RECORDING`), with the entries of the current recording named in
    ``keep`` carried over unchanged (a partial re-recording); return what was written."""
    path = RECORDING if path is None else path
    old = _read(path)["obligations"]
    entries = {name: old[name] for name in keep if name in old}
    entries.update({o.obligation.name: entry(o) for o in outcomes})
    entries.update({o.name: sampled(o) for o in unbounded})
    written = {
        "format": FORMAT,
        "command": COMMAND,
        "recorded": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "timeout_ms": int(timeout_ms),
        "constant_limit": CONSTANT_LIMIT,
        "obligations": entries,
    }
    path.write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    _read.cache_clear()
    return written


__all__ = [
    "COMMAND",
    "NOT_REPRODUCED",
    "RECORDED_UNKNOWN",
    "RECORDING",
    "entry",
    "entry_of",
    "fingerprint",
    "record",
    "recorded",
    "recorded_on",
    "replay",
    "sampled",
    "settle",
]
