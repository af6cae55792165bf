"""Exceptions raised by :mod:`attnio.proofs`.

Each subclasses a builtin (``ValueError`` or ``TypeError``) so the command line
turns it into one line and exit code 2; each message names the offending
argument, its value and what would be valid.
"""

from __future__ import annotations


class ProofError(ValueError):
    """Base class of every error :mod:`attnio.proofs` raises on bad input."""


class UnsupportedExpression(ProofError, TypeError):  # noqa: N818 (public names, kept for compatibility)
    """The translator met a sympy expression outside its dispatch table."""


class InconsistentAssumptions(ProofError):  # noqa: N818 (public names, kept for compatibility)
    """An obligation's assumptions admit no point, so any claim would hold vacuously."""


class ObligationError(ProofError):
    """An obligation is malformed: a claim that is not a relation, a bad name or option."""


class SolverUnavailable(ProofError):  # noqa: N818 (public names, kept for compatibility)
    """An optional solver (cvc5) was requested but is not installed."""


class GapError(ProofError):
    """``attnio gap`` cannot answer at the given point: no record applies there, a bad
    ``--count``, or a regime or mask it does not cover yet."""


class DerivationFileError(ProofError):
    """A derivation file is malformed; the message names the file, line and column."""


class TightnessError(ProofError):
    """``attnio table --tightness --mask`` cannot build the table: an unknown mask family,
    one with no count records, a mask that does not fit n, or a bad size."""
