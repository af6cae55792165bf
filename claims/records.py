"""The catalog records a check may use as evidence, less the ones it must not.

Every check of :mod:`attnio.claims` reads the catalog through :func:`evidence_records` (z3
comparisons, the lemmas of a proof, orders of growth) or :func:`usable` (one record
found by name, the closed-form counts). Inside :func:`excluding`, the named records are
left out of both: this is how attnio checks its own catalog
(:func:`attnio.claims.check_catalog`), where a record must never be compared with itself
nor proved from itself (it would always be "consistent", or "proved"). Outside it,
nothing is left out, and the checks see the whole catalog.

The names left out are kept in a :class:`contextvars.ContextVar`, so they hold for
the one check that set them, also across threads.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from attnio.bounds import Bound, catalog

_EXCLUDED: ContextVar[frozenset[str]] = ContextVar("attnio_claims_excluded", default=frozenset())


def excluded() -> frozenset[str]:
    """The names of the records the current check may not use as evidence."""
    return _EXCLUDED.get()


@contextmanager
def excluding(names: Iterable[str]) -> Iterator[frozenset[str]]:
    """Leave the records called ``names`` out of the evidence inside the ``with`` block.

    Names already left out by an enclosing block stay left out.

    Examples
    --------
    >>> from attnio.claims.records import excluding, evidence_records
    >>> with excluding(["flash-forward-count"]):
    ...     "flash-forward-count" in [r.name for r in evidence_records(algorithm="flash")]
    False
    """
    token = _EXCLUDED.set(_EXCLUDED.get() | frozenset(names))
    try:
        yield _EXCLUDED.get()
    finally:
        _EXCLUDED.reset(token)


def evidence_records(**filters: str) -> tuple[Bound, ...]:
    """:func:`attnio.bounds.catalog` with ``filters``, less the records left out."""
    left_out = _EXCLUDED.get()
    return tuple(record for record in catalog(**filters) if record.name not in left_out)


def usable(record: Bound) -> bool:
    """Whether ``record`` may serve as evidence (it is not left out)."""
    return record.name not in _EXCLUDED.get()


__all__ = ["evidence_records", "excluded", "excluding", "usable"]
