"""Lower bounds for one mask, in the mask's own structure (proofs/derivations/mask-lower.md).

mask-lower.md proves, for the graphs of any mask (normalise-first forward, FlashAttention-2
backward, read over the allowed pairs), IO >= min(Z / 2, max(2 Z d^2 / M, Z d / (2 G))) - M
forward and IO >= min(Z / 2, max(4 Z d (d + 1) / M, Z d / G)) - M backward, with G the
mask's pair ratio (:meth:`attnio.bounds.masks.Mask.pair_ratio`, the largest F(a, b) / (a + b)
of its densest a x b submatrices within a part's budget). This module evaluates them for a
given mask, next to the steps of causal-lower.md at the mask's Z (the large-cache partition
bounds and the shared-budget segment bounds, which causal-lower.md records for the causal
mask only), each read from its derivation's proved step, not retyped.

References
----------
HK81 Thm 3.1 (the partition lemma); attnio's own derivations (mask-lower.md,
causal-lower.md, lower-sharp.md, lower-segments.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from attnio.bounds.masks import Mask

from .derivation import derivations
from .errors import ProofError

STEPS: dict[str, tuple[str, str, str]] = {
    "mask-forward": ("forward", "mask-lower", "fl-partition"),
    "mask-backward": ("backward", "mask-lower", "bl-partition"),
    "z-forward-large": ("forward", "causal-lower", "fl-partition"),
    "z-backward-large": ("backward", "causal-lower", "bl-partition"),
    "z-forward-shared": ("forward", "causal-lower", "shared-segments"),
    "z-backward-shared": ("backward", "causal-lower", "shared-backward-segments"),
}
"""Each bound: its pass, and the derivation step whose conclusion IO >= ... it evaluates."""


@dataclass(frozen=True)
class MaskBound:
    """One lower bound for one mask at (d, M).

    Attributes
    ----------
    name : str
        A key of :data:`STEPS`.
    pass_ : str
        ``forward`` or ``backward``.
    step : str
        The proved step, ``derivation/<file>/<step>``.
    value : float
        IO >= value (may be negative: no information).
    ratio : fractions.Fraction or None
        The pair ratio G used (the mask-lower bounds), else None.
    """

    name: str
    pass_: str
    step: str
    value: float
    ratio: Fraction | None


def _conclusion(file: str, step: str) -> sp.Expr:
    """The right side of the proved step's conclusion ``IO >= expr``."""
    name = f"derivation/{file}/{step}"
    for derivation in derivations():
        for obligation in derivation.steps:
            if obligation.name == name:
                claim = obligation.claim
                io = [s for s in claim.free_symbols if s.name == "io"]
                if isinstance(claim, sp.GreaterThan) and io and claim.lhs == io[0]:
                    return claim.rhs
                raise ProofError(f"step {name!r} does not conclude IO >= an expression")
    raise ProofError(f"no derivation step {name!r}")


def mask_lower_bounds(mask: Mask, d: int, M: int) -> list[MaskBound]:
    """The lower bounds of mask-lower.md and causal-lower.md for ``mask`` at (d, M).

    G is ``mask.pair_ratio(floor(2M / d))`` forward and ``pair_ratio(floor(M / d))``
    backward (exact where F is, an upper bound otherwise, which keeps the bound valid);
    a G of 0 (no part can hold two rows with a pair) is replaced by d, which any G > 0
    bounds as well and which gives Z / 2 - M.

    Raises
    ------
    ProofError
        d or M not a positive integer.

    Examples
    --------
    >>> from attnio.bounds.masks import make_mask
    >>> [round(b.value) for b in mask_lower_bounds(make_mask("causal", 64), 4, 64)][:2]
    [976, 976]
    """
    for label, value in (("d", d), ("M", M)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ProofError(f"{label}={value!r} must be a positive integer")
    ratios = {"forward": mask.pair_ratio(2 * M // d), "backward": mask.pair_ratio(M // d)}
    found = []
    for name, (pass_, file, step) in STEPS.items():
        formula = _conclusion(file, step)
        ratio = ratios[pass_] if file == "mask-lower" else None
        values = {"Z": mask.pairs(), "d": d, "M": M}
        if ratio is not None:
            values["G"] = ratio if ratio > 0 else Fraction(d)
        subs = {
            s: sp.Rational(values[s.name].numerator, values[s.name].denominator)
            if isinstance(values[s.name], Fraction)
            else sp.Integer(values[s.name])
            for s in formula.free_symbols
        }
        value = float(formula.xreplace(subs))
        found.append(MaskBound(name, pass_, f"derivation/{file}/{step}", value, ratio))
    return found


__all__ = ["STEPS", "MaskBound", "mask_lower_bounds"]
