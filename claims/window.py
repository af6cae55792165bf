"""A claim's window: its value between the best derived lower bound and the best count.

For a claim that ``attnio check`` neither proves nor refutes, the optimum I/O at each point
of its scope lies in [best derived lower bound, best count]
(:func:`attnio.bounds.window.find_window`, the one evaluation ``attnio gap`` reads too);
this module samples points of the claim's scope and says where the claim's value sits in
that window, so that nobody has to work out by hand that a constant sits in an open window
between two others. It is information, never a verdict: a ratio above 1 on both
sides at sampled points proves nothing about the points in between.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import sympy as sp

from attnio.bounds import Bound
from attnio.bounds.symbols import ALL
from attnio.bounds.window import (
    Standing,
    find_window,
    format_point,
    format_ratio,
    format_words,
    numeric,
)

from .claim import Claim

SAMPLE_N = (1024, 65536)
SAMPLE_D = (16, 64, 128)
SAMPLE_M = (sp.Rational(1, 16), sp.Rational(1, 4), 1, 4, 64)
"""The sampled points of a claim's window: n, d, and M as multiples of d^2 (both caches)."""


@dataclass(frozen=True)
class Sample:
    """A claim's side against the window at one point."""

    point: dict[str, int]
    claim: sp.Expr
    lower: Standing
    upper: Standing


@dataclass(frozen=True)
class ClaimWindow:
    """Where a claim's side sits between the best derived lower bound and the best count.

    Attributes
    ----------
    side : str
        ``lower`` or ``upper``: the claim's side compared.
    samples : tuple of Sample
        The sampled points of the claim's scope where both ends of the window apply.
    """

    side: str
    samples: tuple[Sample, ...]

    def _ratios(self) -> tuple[list[sp.Float], list[sp.Float]]:
        above = [numeric(s.claim / s.lower.value) for s in self.samples]
        below = [numeric(s.upper.value / s.claim) for s in self.samples]
        return above, below

    @property
    def shown(self) -> Sample:
        """The sample the one-line summary shows: the tightest for the claim, where a lower
        side comes nearest the best count (an upper side nearest the best derived lower
        bound); ties go to the first sampled."""
        if self.side == "lower":
            return min(self.samples, key=lambda s: numeric(s.upper.value / s.claim))
        return min(self.samples, key=lambda s: numeric(s.claim / s.lower.value))

    @property
    def summary(self) -> str:
        """One line: the window at :attr:`shown`, and the claim's ratios over the samples."""
        sample = self.shown
        above, below = self._ratios()

        def relation(a: sp.Expr, b: sp.Expr) -> str:
            x, y = numeric(a), numeric(b)
            return "<" if x < y else "=" if x == y else ">"

        return (
            f"window: at {format_point(sample.point)} (the tightest of {len(self.samples)} "
            f"sampled points of the claim's scope) best derived lower "
            f"{format_words(sample.lower.value)} ({sample.lower.record}) "
            f"{relation(sample.lower.value, sample.claim)} claim's {self.side} side "
            f"{format_words(sample.claim)} {relation(sample.claim, sample.upper.value)} best count "
            f"{format_words(sample.upper.value)} ({sample.upper.record}); over the samples, claim / "
            f"best derived lower from {format_ratio(min(above))} to {format_ratio(max(above))}, best "
            f"count / claim from {format_ratio(min(below))} to {format_ratio(max(below))}"
        )

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: the side, the ratio ranges and every sample."""
        above, below = self._ratios()
        return {
            "side": self.side,
            "claim_over_lower": [float(min(above)), float(max(above))],
            "count_over_claim": [float(min(below)), float(max(below))],
            "samples": [
                {
                    "point": dict(s.point),
                    "claim": float(numeric(s.claim)),
                    "lower": s.lower.to_dict(),
                    "upper": s.upper.to_dict(),
                }
                for s in self.samples
            ],
        }


def claim_window(claim: Claim, records: Iterable[Bound] | None = None) -> list[ClaimWindow]:
    """Each side of ``claim`` against the window at sampled points of its scope.

    Only dense claims in n, d and M are sampled (:data:`SAMPLE_N`, :data:`SAMPLE_D`,
    :data:`SAMPLE_M`); points outside the claim's scope and domain, or where no derived
    lower bound or no count applies, are left out. Empty when no point is left.
    """
    bound = claim.bound
    if bound.regime.value != "dense" or not set(bound.parameters) <= {"n", "d", "M"}:
        return []
    chosen = None if records is None else tuple(records)
    sides = [(side, value) for side, value in (("lower", claim.lower_side),
             ("upper", claim.upper_side)) if value is not None]  # fmt: skip
    found: dict[str, list[Sample]] = {side: [] for side, _ in sides}
    for n in SAMPLE_N:
        for d in SAMPLE_D:
            for factor in SAMPLE_M:
                point = {"n": n, "d": d, "M": int(factor * d**2)}
                if not claim.holds_at(point):
                    continue
                window = find_window(bound.regime.value, bound.pass_.value, point,
                                     records=chosen)  # fmt: skip
                if window.lower is None or window.upper is None:
                    continue
                if not window.lower.value.is_positive:
                    continue
                at = {ALL[name]: sp.Integer(v) for name, v in point.items()}
                for side, value in sides:
                    number = value.xreplace(at)
                    if number.is_number and number.is_finite and number.is_positive:
                        found[side].append(Sample(point, number, window.lower, window.upper))
    return [ClaimWindow(side, tuple(found[side])) for side, _ in sides if found[side]]


__all__ = ["SAMPLE_D", "SAMPLE_M", "SAMPLE_N", "ClaimWindow", "Sample", "claim_window"]
