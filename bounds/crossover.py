"""Crossovers of min-form bounds, computed by solving branch equality.

A min-form bound such as SY24's Theta(min(n^2 d^2 / M, n^2 d / sqrt(M))) has
two branches; the crossover is the value of M where they meet. It is
computed, never typed, so that a typo in either branch shows up as a wrong
crossover.
"""

from __future__ import annotations

import sympy as sp

from .errors import RecordError
from .record import Bound
from .symbols import M


def min_branches(bound: Bound) -> tuple[sp.Expr, sp.Expr] | None:
    """Return the two arguments of the ``Min`` in ``bound.asymptotic``, or ``None``.

    Raises
    ------
    RecordError
        If the expression holds more than one ``Min`` or a ``Min`` of other
        than two arguments, where a single crossover is not defined.
    """
    if bound.asymptotic is None:
        return None
    mins = list(bound.asymptotic.atoms(sp.Min))
    if not mins:
        return None
    if len(mins) > 1 or len(mins[0].args) != 2:
        raise RecordError(
            f"bound {bound.name!r}: crossover needs one two-branch Min, got {bound.asymptotic}"
        )
    first, second = mins[0].args
    return first, second


def crossover(bound: Bound, var: sp.Symbol = M) -> sp.Expr | None:
    """Return the unique positive value of ``var`` where the two branches meet.

    Returns ``None`` for a bound without a ``Min``.

    Raises
    ------
    RecordError
        If the branches never meet for positive ``var``, or meet more than once.

    Examples
    --------
    >>> from attnio.bounds import get
    >>> crossover(get("dense-forward-tight"))
    d**2
    """
    branches = min_branches(bound)
    if branches is None:
        return None
    t = sp.Symbol("t", positive=True)
    equation = sp.Eq(*(b.subs(var, t) for b in branches))
    roots = [root for root in sp.solve(equation, t) if root.is_positive is not False]
    if len(roots) != 1:
        raise RecordError(
            f"bound {bound.name!r}: branches {branches} meet at {var}={roots}, "
            "not at exactly one positive value"
        )
    return sp.simplify(roots[0])
