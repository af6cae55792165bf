"""Recorded deciding stages of strengthened proofs, so that calls known to end in the
processor-time net are not made first, or at all when they only choose a certificate.

A claim with floors and ceilings is proved through a rounding-free strengthening
(:func:`attnio.proofs.check._strengthened`), of the claim itself (*plain*) or, when a
symbol sits under a root (``sqrt(M)``), of the claim with each such symbol written as a
power of a positive real (*rooted*). The checker gives the plain one a glance first
(``_GLANCE_MS``), then the rooted one, then, if the glance ended unknown, the plain one at
its full budget. Its SMT-LIB certificate then needs z3 to re-check the strengthening lemma
in a glance (:func:`attnio.proofs.check._certificate`); where z3 does not, the file is the
original query (``FALLBACK_CERTIFICATE``). Measured over the catalog (issue 22): wherever
the rooted strengthening decides, the glance at the plain one ended in the processor-time
net (2.5 s each, 15 claims, 38 s of the thorough ``attnio verify``'s 166 s of
obligations), and the 4 claims whose lemma z3 does not re-check spent 17 s on the glances.

So both are recorded once (``python benchmarks/stages.py --record``) in ``stages.json``
beside this module, by the claim's :func:`~attnio.proofs.obligation.fingerprint` (for an
obligation with a constant, the claim at the constant that is re-proved):

* ``stage`` ``rooted``: the checker tries the rooted strengthening first, then the plain
  one at its full budget. Only the order changes, no stage is left out: a recorded claim
  whose rooted strengthening is not proved (a stale record, or a machine where it does not
  finish) still gets the plain strengthening at its full budget and every later stage.
* ``lemma`` false: the certificate is the original query at once, its header saying it
  was recorded so. The verdict never depends on the lemma's re-check (the strengthening
  is sound by :mod:`attnio.proofs.rounding`'s lemmas); only the certificate does, and the
  thorough round trip parses such a file and does not re-solve it.

A claim the recording does not name is checked in the default order and its lemma
re-checked. A changed formula changes its fingerprint, so its record no longer applies
(``tests/test_stages.py`` names stale records).
"""

from __future__ import annotations

import datetime
import functools
import json
from collections.abc import Iterable
from pathlib import Path

from .obligation import Obligation, fingerprint

RECORDING = Path(__file__).parent / "stages.json"
"""The recorded claims, by fingerprint."""

COMMAND = "python benchmarks/stages.py --record"
"""The command that writes :data:`RECORDING`."""

FORMAT = 1
"""Version of the recording's layout."""

ROOTED = "rooted"
"""The stage of a claim proved through the strengthening of its rooted form."""

PLAIN = "plain"
"""The stage of a claim proved through the strengthening of the claim itself."""


@functools.cache
def _read(path: Path) -> dict:
    if not path.is_file():
        return {"claims": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def recorded() -> dict[str, dict]:
    """The recorded claims: ``{fingerprint: {"obligation": name, "stage": stage, "lemma":
    whether z3 re-checks the strengthening lemma}}``."""
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


def lemma_unchecked(claim: Obligation) -> bool:
    """Whether the recording says z3 does not re-check the strengthening lemma of
    ``claim``'s proof within a glance (its certificate is then the original query)."""
    entry = recorded().get(fingerprint(claim))
    return entry is not None and entry.get("lemma") is False


def record(proofs: Iterable[tuple[Obligation, str, bool]], path: Path | None = None) -> dict:
    """Write the strengthened proofs ``(claim, stage, lemma re-checked)`` that are proved
    through the rooted strengthening or whose lemma z3 does not re-check to ``path``
    (default :data:`RECORDING`); each claim is the one that was strengthened (an
    obligation, or one with a constant at its constant). Return what was written."""
    path = RECORDING if path is None else path
    entries = {
        fingerprint(claim): {"obligation": claim.name, "stage": stage, "lemma": lemma}
        for claim, stage, lemma in sorted(proofs, key=lambda p: p[0].name)
        if stage == ROOTED or not lemma
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


__all__ = [
    "COMMAND",
    "PLAIN",
    "RECORDING",
    "ROOTED",
    "lemma_unchecked",
    "record",
    "recorded",
    "recorded_on",
    "rooted_first",
]
