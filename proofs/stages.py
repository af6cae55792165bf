"""Recorded deciding stages: claims whose rooted strengthening decides, so the glance at
the plain one, known to run into the processor-time net, is not taken first.

A claim with a symbol under a root (``sqrt(M)``) is proved through a rounding-free
strengthening (:func:`attnio.proofs.check._strengthened`) of either the claim itself
(*plain*) or the claim with each such symbol written as a power of a positive real
(*rooted*). The checker gives the plain one a glance first (``_GLANCE_MS``), then the
rooted one, then, if the glance ended unknown, the plain one at its full budget.
Measured over the catalog (issue 22), wherever the rooted strengthening decides, the glance
at the plain one ends unknown in the processor-time net (2.5 s of processor time each,
15 claims, 38 s of the thorough ``attnio verify``'s 166 s of obligations).

So which strengthening decided a claim is recorded once
(``python benchmarks/stages.py --record``) in ``stages.json`` beside this module, by
the claim's :func:`~attnio.proofs.obligation.fingerprint` (for an obligation with a
constant, the claim at the constant that is re-proved), and the checker tries the rooted
strengthening of a recorded claim first, then the plain one at its full budget.
Nothing is taken from the recording on trust and nothing is skipped: the order changes,
not the stages. A recorded claim whose rooted strengthening is not proved (the recording
stale, or a machine where it does not finish) still gets the plain strengthening at its
full budget and every later stage, as before; a claim the recording does not name is
checked in the default order. A changed formula changes its fingerprint, so the record
no longer applies.
"""

from __future__ import annotations

import datetime
import functools
import json
from collections.abc import Iterable
from pathlib import Path

from .obligation import Obligation, fingerprint

RECORDING = Path(__file__).parent / "stages.json"
"""The recorded claims whose rooted strengthening decides, by fingerprint."""

COMMAND = "python benchmarks/stages.py --record"
"""The command that writes :data:`RECORDING`."""

FORMAT = 1
"""Version of the recording's layout."""

ROOTED = "rooted"
"""The stage of a claim proved through the strengthening of its rooted form."""


@functools.cache
def _read(path: Path) -> dict:
    if not path.is_file():
        return {"claims": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def recorded() -> dict[str, dict]:
    """The recorded claims: ``{fingerprint: {"obligation": name, "stage": stage}}``."""
    return _read(RECORDING)["claims"]


def recorded_on() -> str:
    """The date of the recording (``YYYY-MM-DD``), or ``"never"``."""
    return _read(RECORDING).get("recorded", "never")


def rooted_first(claim: Obligation) -> bool:
    """Whether the recording says the rooted strengthening of ``claim`` decides it.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> claim = sp.Le(sp.ceiling(sp.sqrt(x)), x + 2, evaluate=False)
    >>> rooted_first(Obligation("demo/x", "derivation", claim, (), "holds", (), ""))
    False
    """
    entry = recorded().get(fingerprint(claim))
    return entry is not None and entry.get("stage") == ROOTED


def record(claims: Iterable[Obligation], path: Path | None = None) -> dict:
    """Write ``claims`` (each the claim that was strengthened: an obligation, or one with a
    constant at its constant) as decided by their rooted strengthening to ``path``
    (default :data:`RECORDING`); return what was written."""
    path = RECORDING if path is None else path
    entries = {
        fingerprint(claim): {"obligation": claim.name, "stage": ROOTED}
        for claim in sorted(claims, key=lambda c: c.name)
    }
    written = {
        "format": FORMAT,
        "command": COMMAND,
        "recorded": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "claims": entries,
    }
    path.write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    _read.cache_clear()
    return written


__all__ = ["COMMAND", "RECORDING", "ROOTED", "record", "recorded", "recorded_on", "rooted_first"]
