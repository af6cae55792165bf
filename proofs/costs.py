"""Recorded costs of proofs: the obligations whose proof takes seconds, which the default
tier of ``attnio verify`` leaves to ``--thorough`` while their formulas stay unchanged.

Measured over the default tier (``python benchmarks/costs.py``, two workers on an idle
machine, 2026-11-27): 41 of its 1,182 obligations took 366 of its 534 processor seconds,
among them a lower <= count claim of the column-blocked polynomial backward (63 s), the
causal shared-budget bounds' monotonicity in M (49 s each, proved by z3's split by powers
of n), open claims on nested floors that end unknown or refuted after 16 to 25 s, and
tightness constants re-proved at their recorded C (1 to 7 s each). The other 1,141
prove in 168 s, 0.15 s each on average. So ``python benchmarks/costs.py --record``
proves the default tier once and writes to ``costs.json`` beside this module every
obligation whose outcome took at least :data:`COSTLY_SECONDS`, keyed by its
:func:`~attnio.proofs.obligation.fingerprint` (claim, assumptions, constant symbol).

:func:`attnio.proofs.suite.default_tier` leaves such an obligation out, and ``attnio
verify`` names how many it left and their recorded seconds; ``attnio verify --thorough``
and the test suite prove them all. Nothing is taken on trust from the recording: it never
supplies a verdict, only which unchanged obligation waits for the thorough tier. A changed
formula changes the fingerprint, so the changed obligation is back in the default tier at
once, whatever its cost (``tests/test_costs.py`` names stale entries, which are then
re-recorded).
"""

from __future__ import annotations

import datetime
import functools
import json
from collections.abc import Iterable
from pathlib import Path

from .obligation import Obligation, fingerprint

RECORDING = Path(__file__).parent / "costs.json"
"""The recorded costly obligations, by fingerprint."""

COMMAND = "python benchmarks/costs.py --record"
"""The command that writes :data:`RECORDING`."""

FORMAT = 1
"""Version of the recording's layout."""

COSTLY_SECONDS = 1.0
"""Seconds of a recorded proof from which the default tier leaves it to ``--thorough``.

At this threshold the default tier keeps 96 % of the obligations and 31 % of their
measured processor time (``benchmarks/costs.py``, 2026-11-27)."""


@functools.cache
def _read(path: Path) -> dict:
    if not path.is_file():
        return {"obligations": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def recorded() -> dict[str, dict]:
    """The recorded obligations: ``{fingerprint: {"obligation": name, "seconds": s,
    "status": the recorded result's status}}``."""
    return _read(RECORDING)["obligations"]


def recorded_on() -> str:
    """The date of the recording (``YYYY-MM-DD``), or ``"never"``."""
    return _read(RECORDING).get("recorded", "never")


def costly(obligation: Obligation) -> float | None:
    """The recorded seconds of ``obligation``'s proof when they reach
    :data:`COSTLY_SECONDS` and its formula is the recorded one, else None.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> claim = sp.Le(x, x + 1, evaluate=False)
    >>> costly(Obligation("demo/x", "derivation", claim, (), "holds", (), "")) is None
    True
    """
    entry = recorded().get(fingerprint(obligation))
    if entry is None or entry["seconds"] < COSTLY_SECONDS:
        return None
    return float(entry["seconds"])


def record(timings: Iterable[tuple[Obligation, float, str]], path: Path | None = None) -> dict:
    """Write the ``(obligation, seconds, status)`` that took at least
    :data:`COSTLY_SECONDS` to ``path`` (default :data:`RECORDING`); return what was
    written."""
    path = RECORDING if path is None else path
    entries = {
        fingerprint(obligation): {
            "obligation": obligation.name,
            "seconds": round(seconds, 2),
            "status": status,
        }
        for obligation, seconds, status in sorted(timings, key=lambda t: t[0].name)
        if seconds >= COSTLY_SECONDS
    }
    written = {
        "format": FORMAT,
        "command": COMMAND,
        "recorded": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "costly_seconds": COSTLY_SECONDS,
        "obligations": entries,
    }
    path.write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    _read.cache_clear()
    return written


__all__ = ["COMMAND", "COSTLY_SECONDS", "RECORDING", "costly", "record", "recorded", "recorded_on"]
