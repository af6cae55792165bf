"""Selecting and running the obligation catalog.

The obligations are generated (:mod:`attnio.proofs.generate`) and checked
(:mod:`attnio.proofs.check`); this module selects them by name and runs them.
"""

from __future__ import annotations

import fnmatch

from attnio.bounds.arguments import positive_number

from .check import DEFAULT_TIMEOUT_MS, Outcome, prove
from .errors import ObligationError
from .generate import obligations
from .obligation import Obligation


def select(pattern: str | None = None) -> list[Obligation]:
    """Return the generated obligations whose name matches the glob ``pattern``.

    Raises
    ------
    ObligationError
        If ``pattern`` matches no obligation.

    Examples
    --------
    >>> names = [o.name for o in select("crossover/dense-forward-tight/*")]
    >>> names  # doctest: +NORMALIZE_WHITESPACE
    ['crossover/dense-forward-tight/meet', 'crossover/dense-forward-tight/small-branch',
     'crossover/dense-forward-tight/large-branch']
    """
    found = obligations()
    if pattern is None:
        return found
    chosen = [o for o in found if fnmatch.fnmatchcase(o.name, pattern)]
    if not chosen:
        families = sorted({o.family for o in found})
        raise ObligationError(
            f"--only={pattern!r} matches no obligation; names look like "
            f"'family/record...', families: {', '.join(families)} (e.g. 'tightness/*')"
        )
    return chosen


def run(pattern: str | None = None, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> list[Outcome]:
    """Check every selected obligation; return the outcomes in catalog order."""
    positive_number("timeout_ms", timeout_ms, ObligationError)
    return [prove(obligation, timeout_ms) for obligation in select(pattern)]


__all__ = ["run", "select"]
