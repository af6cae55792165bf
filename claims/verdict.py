"""Verdicts and evidence: what ``attnio check`` says about each claim, as plain data.

A claim's verdict is one of :data:`VERDICTS`:

``refuted``
    A re-checked counterexample: a point inside the claim's conditions, the claim's
    value there, the other value and what it comes from (a catalog record, an exact
    or heuristic pebbling whose moves replay, or a count of the two-level machine).
``proved``
    Nothing refuted, and z3 proved each side of the claim from ``derived`` records of
    the catalog (:mod:`attnio.claims.proof`): a lower side at most the largest derived
    lower bound that applies, at every point of the claim's scope; an upper side at least
    the exact count of an algorithm that runs there (the named one, if any). The
    evidence names the lemmas. This is a proof of the claim, as sound as those records.
``implied-by-catalog``
    As ``proved``, but some lemma is ``stated``, ``stated-secondary`` or
    ``reconstructed``: the claim follows from those records, and is as strong as the
    weakest of them (a reconstructed record is unverified). The evidence names each
    lemma with its evidence level.
``consistent-with-catalog``
    Nothing refuted, and z3 proved every obligation against the catalog's explicit
    records (the claim's lower side at most every applicable exact count and explicit
    upper bound, its upper side at least every applicable explicit lower bound and, for
    an upper bound on a named algorithm, at least that algorithm's exact count). Not a
    proof of the claim: a lower bound below every known algorithm's count may still be
    above the optimum (being below every count is necessary, not sufficient), and an
    upper bound above every known lower bound may still be below what any algorithm
    achieves. Only an upper bound on a named algorithm whose ``derived`` exact count z3
    proved at most the claim is settled by it; the verdict does not say so separately.
``consistent``
    Nothing refuted and at least one check passed; the evidence lists what was
    checked and what stayed unknown. Not a proof.
``unknown``
    Nothing refuted and nothing passed; the evidence says why (an asymptotic-only
    claim, no applicable record, no point inside the conditions, a solver limit).

Each :class:`Evidence` item has its own verdict, one of :data:`EVIDENCE_VERDICTS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from attnio.bounds.record import derived_lower_evidence

REFUTED = "refuted"
PROVED = "proved"
IMPLIED = "implied-by-catalog"
CONSISTENT_WITH_CATALOG = "consistent-with-catalog"
CONSISTENT = "consistent"
UNKNOWN = "unknown"

VERDICTS = (REFUTED, PROVED, IMPLIED, CONSISTENT_WITH_CATALOG, CONSISTENT, UNKNOWN)
"""A claim's possible verdicts, strongest finding first."""

EVIDENCE_VERDICTS = ("refuted", "proved", "passed", "unknown", "not-applicable")
"""An evidence item's verdict: ``refuted`` (a re-checked counterexample), ``proved`` (a z3
proof), ``passed`` (a numeric comparison that held), ``unknown`` (undecided, with the
reason), ``not-applicable`` (the check had nothing to compare, with the reason)."""

CHECKS = (
    "conditions",
    "z3",
    "pebbling",
    "counting",
    "closed-form",
    "monotonicity",
    "expression",
    "proof",
    "implication",
    "order",
)
"""Where an evidence item comes from."""


@dataclass(frozen=True)
class Evidence:
    """One check of one claim and its outcome.

    Attributes
    ----------
    check : str
        One of :data:`CHECKS`.
    verdict : str
        One of :data:`EVIDENCE_VERDICTS`.
    summary : str
        One line saying what was compared and what came out.
    against : str
        What the claim was compared with: a catalog record name, a DAG instance, an
        algorithm and pass.
    point : dict or None
        The parameter values of a counterexample (or of the comparison), as strings.
    claim_value, other_value : str or None
        Exact values at ``point``: the claim's, and the one it was compared with.
    replay : str
        For a refutation, how to reproduce it (a command or a Python call).
    certificate : str or None
        Path of a written move file (``--evidence-dir``), when one was written.
    advisory : bool
        A property the claim need not have (monotonicity of a lower or upper bound):
        reported, never counted towards the claim's verdict.
    side : str or None
        For ``proof`` and ``implication`` items: the side of the claim (``lower`` or
        ``upper``) they are about.
    lemmas : tuple of (str, str)
        For ``proof`` and ``implication`` items: each record the proof used, with its
        evidence level.
    """

    check: str
    verdict: str
    summary: str
    against: str = ""
    point: dict[str, str] | None = None
    claim_value: str | None = None
    other_value: str | None = None
    replay: str = ""
    certificate: str | None = None
    advisory: bool = False
    side: str | None = None
    seconds: float = 0.0
    lemmas: tuple[tuple[str, str], ...] = ()
    moves: tuple | None = field(default=None, compare=False, repr=False)
    dag: object | None = field(default=None, compare=False, repr=False)
    memory: int | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.check not in CHECKS:
            raise ValueError(f"check={self.check!r} is not one of: {', '.join(CHECKS)}")
        if self.verdict not in EVIDENCE_VERDICTS:
            raise ValueError(
                f"verdict={self.verdict!r} is not one of: {', '.join(EVIDENCE_VERDICTS)}"
            )

    def to_dict(self) -> dict[str, object]:
        """The JSON-ready fields (moves and DAG left out; ``certificate`` names the file).

        Integer values are JSON integers; other exact values (``3136/3``, ``3*sqrt(6)``)
        are strings in sympy's notation.
        """
        point = None if self.point is None else {k: _number(v) for k, v in self.point.items()}
        return {
            "check": self.check,
            "verdict": self.verdict,
            "summary": self.summary,
            "against": self.against,
            "point": point,
            "claim_value": _number(self.claim_value),
            "other_value": _number(self.other_value),
            "replay": self.replay,
            "certificate": self.certificate,
            "advisory": self.advisory,
            "side": self.side,
            "lemmas": [{"record": name, "status": status} for name, status in self.lemmas],
            "seconds": round(self.seconds, 3),
        }


def sampled_evidence(
    check: str,
    compared: int,
    agreed: str,
    against: str,
    notes: list[str],
    nothing: str,
    seconds: float,
) -> list[Evidence]:
    """The one evidence item of a sampling check that refuted nothing.

    ``passed`` with ``agreed`` ("N ... agree with the claim") when ``compared`` points
    were compared, else ``not-applicable`` with the notes (or ``nothing``) as the reason.
    """
    if compared:
        summary = agreed + (f" ({'; '.join(notes)})" if notes else "")
        return [Evidence(check, "passed", summary, against=against, seconds=seconds)]
    reason = "; ".join(notes) or nothing
    return [Evidence(check, "not-applicable", reason, seconds=seconds)]


def _number(text: str | None) -> int | str | None:
    """``text`` as an int when it is one, else unchanged."""
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return text


@dataclass(frozen=True)
class ClaimReport:
    """The verdict on one claim with its evidence.

    Attributes
    ----------
    name : str
        The claim's name.
    kind : str
        ``lower``, ``upper`` or ``tight``.
    verdict : str
        One of :data:`VERDICTS`, from :func:`verdict_of`.
    summary : str
        One line: the refutation, or what was checked.
    evidence : tuple of Evidence
        Every check run, in order.
    windows : tuple
        For a claim neither proved nor refuted, each side's window at sampled points of
        its scope (:class:`attnio.claims.window.ClaimWindow`: the best derived lower bound
        and the best count around the claim); empty otherwise.
    """

    name: str
    kind: str
    verdict: str
    summary: str
    evidence: tuple[Evidence, ...]
    seconds: float = 0.0
    windows: tuple = ()

    @property
    def refuted(self) -> bool:
        """Whether a re-checked counterexample refutes the claim."""
        return self.verdict == REFUTED

    def refutations(self) -> list[Evidence]:
        """The evidence items that refute the claim."""
        return [e for e in self.evidence if e.verdict == "refuted" and not e.advisory]

    def to_dict(self) -> dict[str, object]:
        """The JSON-ready report: name, kind, verdict, summary and the evidence list."""
        return {
            "name": self.name,
            "kind": self.kind,
            "verdict": self.verdict,
            "summary": self.summary,
            "seconds": round(self.seconds, 3),
            "window": [window.to_dict() for window in self.windows],
            "evidence": [item.to_dict() for item in self.evidence],
        }


def verdict_of(evidence: list[Evidence] | tuple[Evidence, ...]) -> tuple[str, str]:
    """Return ``(verdict, summary)`` of a claim from its evidence (see the module docstring)."""
    counted = [e for e in evidence if not e.advisory]
    refuted = [e for e in counted if e.verdict == "refuted"]
    if refuted:
        first = refuted[0]
        more = f" (and {len(refuted) - 1} more refutation(s))" if len(refuted) > 1 else ""
        return REFUTED, first.summary + more
    tally: dict[str, dict[str, int]] = {}
    for item in counted:
        tally.setdefault(item.check, {}).setdefault(item.verdict, 0)
        tally[item.check][item.verdict] += 1
    parts = []
    for check, counts in tally.items():
        shown = ", ".join(f"{count} {verdict}" for verdict, count in counts.items())
        parts.append(f"{check}: {shown}")
    described = "; ".join(parts) or "no check applied"
    proofs = [e for e in counted if e.check in ("proof", "implication")]
    sides = {e.side for e in proofs}
    by_derived = {e.side for e in proofs if e.check == "proof" and e.verdict == "proved"}
    by_catalog = {e.side for e in proofs if e.verdict == "proved"}
    lemmas = "; ".join(f"{e.side} side: {e.against}" for e in proofs if e.verdict == "proved")
    if sides and by_derived == sides:
        rests = ""
        if "lower" in sides:
            rests = f"; derived lower bounds: {derived_lower_evidence()}"
        return PROVED, f"proved from derived records ({lemmas}){rests}"
    if sides and by_catalog == sides:
        weak = {name: status for e in proofs if e.verdict == "proved"
                for name, status in e.lemmas if status != "derived"}  # fmt: skip
        named = ", ".join(f"{name} ({status})" for name, status in weak.items())
        resting = f"rests on records not derived: {named}; " if named else ""
        return IMPLIED, (
            f"{resting}follows from catalog records ({lemmas}); as strong as the weakest of them"
        )
    # a record whose conditions do not meet the claim's scope (the other cache size) has
    # nothing to say about the claim: it neither supports nor blocks the verdict
    z3_items = [e for e in counted if e.check == "z3" and e.verdict != "not-applicable"]
    # satisfiable conditions say nothing about the claim's truth
    passed = [e for e in counted if e.verdict in ("proved", "passed") and e.check != "conditions"]
    if z3_items and all(e.verdict == "proved" for e in z3_items):
        return CONSISTENT_WITH_CATALOG, (
            f"within every applicable catalog record (z3 proved each comparison), not a proof "
            f"of the claim ({described})"
        )
    if passed:
        return CONSISTENT, f"nothing refuted, not a proof ({described})"
    reasons = list(
        dict.fromkeys(e.summary for e in counted if e.verdict in ("unknown", "not-applicable"))
    )
    return UNKNOWN, "; ".join(reasons[:2]) or described


__all__ = [
    "CHECKS",
    "CONSISTENT",
    "CONSISTENT_WITH_CATALOG",
    "EVIDENCE_VERDICTS",
    "IMPLIED",
    "PROVED",
    "REFUTED",
    "UNKNOWN",
    "VERDICTS",
    "ClaimReport",
    "Evidence",
    "sampled_evidence",
    "verdict_of",
]
