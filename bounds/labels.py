"""Human-readable names of the catalog's records, for table rows and figure legends.

A record's ``name`` is a key for code; a paper's reader sees :func:`label` instead. Regime
and pass are left out: tables group rows by them and figures state them in the caption.
"""

from __future__ import annotations

from .errors import UnknownBoundError
from .record import Bound

LABELS: dict[str, str] = {
    "dense-forward-compulsory": "Compulsory I/O",
    "dense-forward-tight": "Optimal I/O",
    "dense-forward-lower-large": "Lower bound, large cache",
    "dense-forward-lower-large-explicit": "Explicit lower bound, large cache",
    "dense-forward-lower-small": "Lower bound, small cache",
    "dense-forward-lower-small-explicit": "Explicit lower bound, small cache",
    "dense-forward-lower-small-derived": "Derived lower bound, small cache",
    "dense-forward-lower-large-sharp": "Sharp lower bound, large cache",
    "dense-forward-lower-small-sharp": "Sharp lower bound, small cache",
    "dense-forward-lower-any-algorithm": "Lower bound, any algorithm",
    "standard-forward-upper": "Standard attention",
    "flash-forward-upper": "FlashAttention",
    "square-tiling-forward-upper": "Square tiling",
    "dense-backward-compulsory": "Compulsory I/O",
    "dense-backward-tight": "Optimal I/O",
    "dense-backward-lower-large": "Lower bound, large cache",
    "dense-backward-lower-large-explicit": "Explicit lower bound, large cache",
    "dense-backward-lower-small": "Lower bound, small cache",
    "dense-backward-lower-small-explicit": "Explicit lower bound, small cache",
    "dense-backward-lower-small-derived": "Derived lower bound, small cache",
    "dense-backward-lower-large-sharp": "Sharp lower bound, large cache",
    "dense-backward-lower-small-sharp": "Sharp lower bound, small cache",
    "standard-backward-upper": "Standard attention",
    "flash-backward-upper": "FlashAttention",
    "small-cache-backward-upper": "Small-cache algorithm",
    "sparse-forward-compulsory": "Compulsory I/O",
    "sparse-forward-lower-inputs": "Lower bound, sparse inputs",
    "block-sparse-flash-forward-upper": "Block-sparse FlashAttention",
    "sparse-forward-small-upper": "Small-cache algorithm",
    "sparse-backward-compulsory": "Compulsory I/O",
    "sparse-backward-lower-llsszz": "Fine-grained lower bounds",
    "sparse-backward-upper": "Upper bound",
    "approximate-forward-compulsory": "Compulsory I/O",
    "approximate-forward-szp26": "Near-linear I/O",
    "low-rank-forward-upper": "Polynomial-method attention",
    "approximate-backward-lower": "Lower bound",
    "approximate-backward-upper": "Upper bound",
    "standard-forward-count": "Standard attention, exact",
    "standard-backward-count": "Standard attention, exact",
    "flash-forward-count": "FlashAttention, exact",
    "flash-backward-count": "FlashAttention, exact",
    "flash2-forward-count": "FlashAttention-2, exact",
    "flash2-backward-count": "FlashAttention-2, exact",
    "row-streaming-forward-count": "Row streaming, exact",
    "row-streaming-backward-count": "Row streaming, exact",
    "square-tiling-forward-count": "Square tiling, exact",
    "output-stationary-forward-count": "Output-stationary tiling, exact",
    "tiled-backward-count": "Tiled backward, exact",
    "block-sparse-flash-forward-count": "Block-sparse FlashAttention, exact",
    "block-sparse-flash-backward-count": "Block-sparse FlashAttention, exact",
    "sparse-square-tiling-forward-count": "Sparse square tiling, exact",
    "sparse-square-tiling-backward-count": "Sparse square tiling, exact",
    "low-rank-forward-count": "Polynomial-method attention, exact",
    "low-rank-backward-count": "Polynomial-method attention, exact",
}
"""Record name -> reader's label. Every record of the catalog has one (tests/test_labels.py)."""


def label(bound: Bound) -> str:
    """Return the reader's name of ``bound``, e.g. ``"FlashAttention, exact"``.

    Raises
    ------
    UnknownBoundError
        If the record has no label yet (add it to :data:`LABELS`).

    Examples
    --------
    >>> from attnio.bounds import get
    >>> label(get("flash-forward-count"))
    'FlashAttention, exact'
    """
    try:
        return LABELS[bound.name]
    except KeyError:
        raise UnknownBoundError(
            f"bound {bound.name!r} has no reader's label; add one to attnio.bounds.labels.LABELS"
        ) from None
