"""The review of a derivation file: each algebraic step's verdict, each lemma listed.

``attnio prove --derivation FILE.md`` reads a derivation document
(:mod:`attnio.proofs.document`, docs/derivations.md), checks each algebraic step with z3
(:func:`attnio.proofs.check.check`) and lists the combinatorial steps, which z3 does not
check. A step is ``proved``; ``refuted``, with a point where its hypotheses hold and its
conclusion fails, evaluated again exactly with sympy (:func:`attnio.proofs.check.confirm`)
before it is shown; or ``unknown``, with the reason.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .check import DEFAULT_TIMEOUT_MS, Counterexample, Outcome, Proved, Unknown, check, confirm
from .check import show_point as _show
from .document import Derivation, read_derivations
from .errors import InconsistentAssumptions
from .obligation import Obligation

PROVED, REFUTED, UNKNOWN = "proved", "refuted", "unknown"
"""The verdicts of an algebraic step."""

NOT_CHECKED = "not machine-checked"
"""The verdict of a combinatorial step (a lemma proved in the prose)."""


@dataclass(frozen=True)
class StepVerdict:
    """One step of a derivation file and what became of it.

    Parameters
    ----------
    step : str
        The obligation's name, ``derivation/<file stem>/<step>`` (a lemma's own name).
    verdict : str
        ``proved``, ``refuted``, ``unknown`` or ``not machine-checked``.
    detail : str
        How it was proved, the refuting point with both sides, or why it is unknown.
    statement : str
        The step in words.
    outcome : Outcome or None
        The checker's outcome (None for a lemma).
    """

    step: str
    verdict: str
    detail: str
    statement: str
    outcome: Outcome | None = None

    def as_json(self) -> dict:
        """The verdict as a JSON object; a refuted step carries its ``point``."""
        row = {
            "step": self.step,
            "verdict": self.verdict,
            "detail": self.detail,
            "statement": self.statement,
        }
        result = None if self.outcome is None else self.outcome.result
        if self.verdict == REFUTED and isinstance(result, Counterexample):
            row["point"] = {k: str(v) for k, v in sorted(result.point.items())}
        return row


def review(
    path: str | Path, timeout_ms: int = DEFAULT_TIMEOUT_MS, jobs: int = 1
) -> tuple[list[StepVerdict], list[StepVerdict]]:
    """Check every algebraic step of the derivation file ``path``; list its lemmas.

    Returns the steps' verdicts, in the file's order, and the lemmas (``not
    machine-checked``).

    Raises
    ------
    DerivationFileError
        The file is malformed (the message names the line and column).
    """
    from .suite import spread  # suite reads the shipped derivations: imported when used

    derivations = read_derivations(path)
    steps = [step for derivation in derivations for step in derivation.steps]
    checked = spread(functools.partial(_outcome, timeout_ms=timeout_ms), steps, jobs)
    return [_verdict(outcome) for outcome in checked], _lemmas(derivations)


def _outcome(step: Obligation, timeout_ms: int) -> Outcome:
    """The checker's outcome of one step; hypotheses without a point make it unknown."""
    try:
        return Outcome(step, check(step, timeout_ms))
    except InconsistentAssumptions as error:
        return Outcome(step, Unknown(f"{error} (the step proves nothing)", ""))


def _verdict(outcome: Outcome) -> StepVerdict:
    step, result = outcome.obligation, outcome.result
    if isinstance(result, Proved):
        verdict, detail = PROVED, result.method
    elif isinstance(result, Counterexample):
        confirmed, why = confirm(step, result.point)
        verdict = REFUTED if confirmed else UNKNOWN
        detail = f"hypotheses hold and the conclusion fails at {_show(result.point)}"
        if result.sides is not None:
            detail += f" (left side {result.sides[0]}, right side {result.sides[1]})"
        if not confirmed:
            detail = f"z3's point was not confirmed exactly: {why}"
    else:
        verdict, detail = UNKNOWN, result.reason
    return StepVerdict(step.name, verdict, detail, step.statement, outcome)


def _lemmas(derivations: tuple[Derivation, ...]) -> list[StepVerdict]:
    return [
        StepVerdict(name, NOT_CHECKED, _WHY.get(status, _WHY[""]), statement)
        for derivation in derivations
        for name, status, statement in _named(derivation.unchecked)
    ]


_WHY = {
    "": "combinatorial: proved by hand in the prose, not by z3",
    "published": "combinatorial: a published theorem, cited in the prose",
    "gap": "combinatorial: a gap in the argument (the derivation is incomplete)",
}


def _named(unchecked: tuple[str, ...]) -> Iterator[tuple[str, str, str]]:
    """Each lemma's name, status and statement (``name (status): statement``)."""
    for text in unchecked:
        head, _, statement = text.partition(": ")
        name, _, status = head.removesuffix(")").partition(" (")
        yield name, status if status in _WHY else "", statement


__all__ = ["NOT_CHECKED", "PROVED", "REFUTED", "UNKNOWN", "StepVerdict", "review"]
