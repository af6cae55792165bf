"""Which catalog records are exact I/O counts of attnio's algorithms.

A count record is an ``upper``, ``derived`` record of ``catalog.toml`` with an explicit
``expression`` and the ``algorithm`` whose exact count it is: the closed-form number of
words the algorithm of ``attnio.algorithms`` moves (loads plus stores) on the two-level
machine, with every ceiling of a partial last block, block and tile sizes by the rules of
:mod:`attnio.bounds.blocks`. The machine reproduces each one exactly (tests/test_flash.py
and siblings, ``attnio verify``). The algorithms find their counts through the
``algorithm`` field (:mod:`attnio.algorithms.registry`); nothing here is typed twice.
"""

from __future__ import annotations

from .catalog import catalog
from .record import Bound, Kind, Status


def is_count(bound: Bound) -> bool:
    """Whether ``bound`` is the exact count of a named algorithm (see the module docstring)."""
    return (
        bound.kind is Kind.UPPER
        and bound.status is Status.DERIVED
        and bound.algorithm is not None
        and bound.explicit is not None
    )


COUNTS: tuple[Bound, ...] = tuple(bound for bound in catalog() if is_count(bound))
"""The exact counts, one record per algorithm and pass, in catalog order."""

__all__ = ["COUNTS", "is_count"]
