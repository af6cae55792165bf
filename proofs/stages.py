"""Recorded deciding stages of proofs, so that calls known to end in the processor-time
net are not made first, or at all when they only choose a certificate.

The checker (:func:`attnio.proofs.check.check`) tries, in order: a rounding-free
strengthening (:func:`attnio.proofs.check._strengthened`) of the claim itself (*plain*)
or, when a symbol sits under a root (``sqrt(M)``), a glance at the plain one, then the
claim with each such symbol written as a power of a positive real (*rooted*), then the
plain one at its full budget; then z3 on the claim, the real relaxation before the
integer query. A strengthened proof's SMT-LIB certificate then needs z3 to re-check the
strengthening lemma in a glance (:func:`attnio.proofs.check._certificate`); where z3
does not, the file is the original query (``FALLBACK_CERTIFICATE``). Measured over the
catalog (issue 22), thorough ``attnio verify``, processor time: the glance at the plain
strengthening ended in the net wherever the rooted one decides (2.5 s each, 15 claims,
38 s); a relaxation ran 15 s into the net before the integer query proved the claim in
0.3 s (two monotonicity claims); 4 lemmas z3 does not re-check spent 17 s on glances.

So which stage decided is recorded once (``python benchmarks/stages.py --record``) in
``stages.json`` beside this module, by the claim's
:func:`~attnio.proofs.obligation.fingerprint` (for an obligation with a constant, the
claim at the constant that is re-proved), and the checker tries that stage first:

* ``stage`` ``rooted``: the rooted strengthening, then the plain one at its full budget;
* ``stage`` ``plain`` (a claim with a root): the plain strengthening at its full budget
  (a glance that proves is the same search), then the rooted one;
* ``stage`` ``integers``: after the strengthenings, the integer query, then the
  relaxation;
* ``lemma`` false: the certificate is the original query at once, its header saying it
  was recorded so.

Only the order changes, no stage is left out: a recorded claim whose recorded stage does
not prove it (a stale record, or a machine where it does not finish in time) still gets
every other stage, at its full budget. The lemma's re-check never decides a verdict (the
strengthening is sound by :mod:`attnio.proofs.rounding`'s lemmas); only the certificate
depends on it, and the thorough round trip parses such a file and does not re-solve it.
A claim the recording does not name is checked in the default order. A changed formula
changes its fingerprint, so its record no longer applies (``tests/test_stages.py``
names stale records).
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

INTEGERS = "integers"
"""The stage of a claim proved by z3 on the integer query."""

STAGES = (ROOTED, PLAIN, INTEGERS)
"""The recorded stages."""


@functools.cache
def _read(path: Path) -> dict:
    if not path.is_file():
        return {"claims": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def recorded() -> dict[str, dict]:
    """The recorded claims: ``{fingerprint: {"obligation": name, "stage": a stage of
    STAGES or "", "lemma": whether z3 re-checks the strengthening lemma}}``."""
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


def plain_first(claim: Obligation) -> bool:
    """Whether the recording says the plain strengthening of ``claim`` (which has a symbol
    under a root) decides it."""
    entry = recorded().get(fingerprint(claim))
    return entry is not None and entry.get("stage") == PLAIN


def integers_first(claim: Obligation) -> bool:
    """Whether the recording says z3's integer query on ``claim`` decides it."""
    entry = recorded().get(fingerprint(claim))
    return entry is not None and entry.get("stage") == INTEGERS


def lemma_unchecked(claim: Obligation) -> bool:
    """Whether the recording says z3 does not re-check the strengthening lemma of
    ``claim``'s proof within a glance (its certificate is then the original query)."""
    entry = recorded().get(fingerprint(claim))
    return entry is not None and entry.get("lemma") is False


def record(proofs: Iterable[tuple[Obligation, str, bool]], path: Path | None = None) -> dict:
    """Write the proofs ``(claim, stage, lemma re-checked)`` to ``path`` (default
    :data:`RECORDING`), each claim the one that was proved (an obligation, or one with a
    constant at its constant) and ``stage`` one of :data:`STAGES` or ``""`` (none to
    record); those with neither a stage nor a lemma z3 does not re-check are left out.
    Return what was written."""
    path = RECORDING if path is None else path
    entries = {
        fingerprint(claim): {"obligation": claim.name, "stage": stage, "lemma": lemma}
        for claim, stage, lemma in sorted(proofs, key=lambda p: p[0].name)
        if stage in STAGES or not lemma
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
    "INTEGERS",
    "PLAIN",
    "RECORDING",
    "ROOTED",
    "STAGES",
    "integers_first",
    "lemma_unchecked",
    "plain_first",
    "record",
    "recorded",
    "recorded_on",
    "rooted_first",
]
