"""Human-readable names of the catalog's records, for table rows and figure legends.

A record's ``name`` is a key for code; a paper's reader sees :func:`label` instead, the
record's ``label`` field (``catalog.toml``). Regime and pass are left out: tables group
rows by them and figures state them in the caption.
"""

from __future__ import annotations

from .errors import UnknownBoundError
from .record import Bound


def label(bound: Bound) -> str:
    """Return the reader's name of ``bound``, e.g. ``"FlashAttention, exact"``.

    Raises
    ------
    UnknownBoundError
        If the record has no label (give its ``[[bound]]`` table a ``label``).

    Examples
    --------
    >>> from attnio.bounds import get
    >>> label(get("flash-forward-count"))
    'FlashAttention, exact'
    """
    if not bound.label:
        raise UnknownBoundError(
            f"bound {bound.name!r} has no reader's label; give its [[bound]] table a 'label' field"
        )
    return bound.label
