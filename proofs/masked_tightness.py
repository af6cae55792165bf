"""The masked tightness table: each masked schedule's exact count against the best derived
lower bound of its mask, at points.

The dense tightness table (:mod:`attnio.proofs.tightness`) compares leading terms; a mask's
records carry its allowed pairs Z and width w, so this table reads them where ``attnio
gap --regime sparse`` reads them, at points: n, d and M with the mask's Z and w
(:meth:`attnio.bounds.masks.Mask.point`). At each point every ``derived`` exact count
that applies (:func:`attnio.bounds.window.find_window` with the mask's family: that
family's records, and a record of no family whose parameters the point gives) is divided
by the best ``derived`` lower bound that applies at M + c, c the red pebbles beyond M of
the schedule's pebbling (:func:`attnio.bounds.window.lower_for`, the reading ``attnio gap``
makes, :data:`attnio.bounds.pebblings.EXTRA_RED`). The ratio is exact at the point, not a
limit, and no constant is searched for masks.

Which lower bounds there are is the catalog's: the causal mask has the pair bounds of
``proofs/derivations/causal-lower.md`` (``causal-*-lower-*``) besides the compulsory I/O
(``sparse-*-compulsory``); the other families have the compulsory I/O alone, and the table
says so (:attr:`MaskedTable.compulsory_only`, :func:`attnio.proofs.gap.note_of`).

The points are those of ``benchmarks/masks.py`` by default: n = 65536, d in {64, 128,
256}, M in {d^2/16, d^2, 16 d^2}. A point where no schedule of the mask runs (M below every
count's least M) is a row without a count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

from attnio.bounds import catalog
from attnio.bounds.masks import ALIASES, FAMILIES, Mask
from attnio.bounds.record import Kind, Status
from attnio.bounds.window import Standing, find_window, lower_for, numeric

from .errors import GapError, TightnessError
from .gap import build_mask, note_of

N = 65536
"""The default sequence length (as ``benchmarks/masks.py``)."""

DIMENSIONS = (64, 128, 256)
"""The default head dimensions."""

MEMORIES = ((1, 16), (1, 1), (16, 1))
"""M / d^2 at each d, as (numerator, denominator): d^2/16 (small cache), d^2 and 16 d^2."""

PASSES = ("forward", "backward")


@dataclass(frozen=True)
class MaskedRow:
    """One line of the masked tightness table: one schedule at one point.

    Attributes
    ----------
    pass_ : str
        ``forward`` or ``backward``.
    point : dict
        n, d, M and the mask's Z (and w).
    count : Standing or None
        The schedule's exact count at the point (None: no schedule of the mask runs there).
    lower : Standing or None
        The best derived lower bound at M + c (at M without a count); None: none applies.
    extra_red : int or None
        c of the schedule's pebbling (None: at M).
    """

    pass_: str
    point: dict[str, int]
    count: Standing | None
    lower: Standing | None
    extra_red: int | None = None

    @property
    def ratio(self) -> sp.Expr | None:
        """count / lower, exact (None without a count or a positive lower bound)."""
        if self.count is None or self.lower is None or not self.lower.value.is_positive:
            return None
        return self.count.value / self.lower.value

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: pass, point, count and lower bound (record, value, label), c, ratio."""

        def side(standing: Standing | None) -> dict[str, object] | None:
            return None if standing is None else standing.to_dict()

        ratio = self.ratio
        return {
            "pass": self.pass_,
            "point": dict(self.point),
            "count": side(self.count),
            "lower": side(self.lower),
            "lower_M": self.point["M"] + (self.extra_red or 0),
            "extra_red": self.extra_red,
            "ratio": None if ratio is None else float(numeric(ratio)),
            "ratio_exact": None if ratio is None else sp.sstr(ratio),
        }


@dataclass(frozen=True)
class MaskedTable:
    """The masked tightness table of one mask at size n.

    Attributes
    ----------
    mask : Mask
        The mask (its family, w and Z).
    rows : tuple of MaskedRow
        By pass, then d, then M; at one point the least ratio first.
    compulsory_only : bool
        Whether the catalog has no derived lower bound for this family beyond the
        compulsory I/O (then every row's lower bound is ``sparse-*-compulsory``).
    """

    mask: Mask
    rows: tuple[MaskedRow, ...]
    compulsory_only: bool

    @property
    def note(self) -> str:
        """What the lower bounds are about (:func:`attnio.proofs.gap.note_of`)."""
        return note_of({"n": self.mask.n}, self.mask)


def pair_bound_families() -> tuple[str, ...]:
    """The mask families with a ``derived`` explicit lower bound of their own (``mask``
    set): those whose table reads more than the compulsory I/O.

    Examples
    --------
    >>> pair_bound_families()
    ('causal', 'window')
    """
    found = {
        bound.mask
        for bound in catalog(regime="sparse", kind="lower")
        if bound.mask is not None and bound.status is Status.DERIVED and bound.explicit is not None
    }
    return tuple(sorted(found))


def counted_families() -> tuple[str, ...]:
    """The mask families with a ``derived`` exact count of a schedule of their own.

    Examples
    --------
    >>> counted_families()
    ('band', 'causal', 'window')
    """
    found = {
        bound.mask
        for bound in catalog(regime="sparse", kind=Kind.UPPER.value)
        if bound.mask is not None and bound.status is Status.DERIVED and bound.algorithm
    }
    return tuple(sorted(found))


def _mask(mask: str | Mask, n: int, window: int | None) -> Mask:
    """The checked mask, or one :class:`TightnessError` line (bad name, no count records)."""
    if isinstance(mask, str):
        mask = ALIASES.get(mask, mask)
    if isinstance(mask, str) and mask not in FAMILIES and ":" not in mask:
        raise TightnessError(
            f"table: --mask {mask!r} is not a mask family; the table has "
            f"{', '.join(counted_families())} (--window W for window and band)"
        )
    name = mask.family.name if isinstance(mask, Mask) else mask.partition(":")[0]
    if name not in counted_families():
        why = {
            "full": "the full mask is dense attention: attnio table --tightness",
            "block": "the block-sparse counts (block-sparse-flash-*, sparse-square-tiling-*) "
            "read the block densities s and s_c at the schedule's own block size, which a "
            "mask point does not give",
        }.get(name, "no schedule of it is counted")
        raise TightnessError(
            f"table: --mask {name} has no count records of its own ({why}); the table has "
            f"{', '.join(counted_families())}"
        )
    try:
        return build_mask(mask, n, window=window)
    except GapError as error:
        raise TightnessError(str(error).replace("gap: ", "table: ", 1)) from None


def points(n: int, dimensions: Sequence[int]) -> list[tuple[int, int]]:
    """The (d, M) of the table at each d: M = d^2/16, d^2, 16 d^2 (:data:`MEMORIES`), the
    first left out where it is below one word (d < 4).

    Examples
    --------
    >>> points(65536, (64,)), points(8, (2,))
    ([(64, 256), (64, 4096), (64, 65536)], [(2, 4), (2, 64)])
    """
    found = [(d, d * d * num // den) for d in dimensions for num, den in MEMORIES]
    return [(d, memory) for d, memory in found if memory >= 1]


def masked_rows(
    mask: str | Mask,
    n: int = N,
    dimensions: Sequence[int] = DIMENSIONS,
    *,
    window: int | None = None,
) -> MaskedTable:
    """The masked tightness table of ``mask`` at n, for each d of ``dimensions``.

    Parameters
    ----------
    mask : str or Mask
        A family with count records (``causal``, ``window``, ``band``), a spec
        (``window:1024``), or a :class:`~attnio.bounds.masks.Mask` of size n.
    n : int
        The sequence length.
    dimensions : sequence of int
        The head dimensions d; M runs over d^2/16, d^2 and 16 d^2 at each.
    window : int, optional
        w of ``window`` and ``band``.

    Raises
    ------
    TightnessError
        An unknown family, one with no count records (full, block, arbitrary), a mask that
        does not fit n, or a size that is not a positive integer: one line.

    Examples
    --------
    >>> table = masked_rows("causal", 4096, (64,))
    >>> [(r.point["M"], r.count and r.count.algorithm) for r in table.rows
    ...  if r.pass_ == "forward"]  # doctest: +NORMALIZE_WHITESPACE
    [(256, None), (4096, 'causal-row-streaming'), (4096, 'causal-flash2'),
     (65536, 'causal-row-streaming'), (65536, 'causal-flash2')]
    """
    for name, value in (("--n", n), *(("--d", d) for d in dimensions)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise TightnessError(f"table: {name} {value!r} must be a positive integer")
    chosen = _mask(mask, n, window)
    family = chosen.family.name
    rows: list[MaskedRow] = []
    for pass_ in PASSES:
        for d, memory in points(n, dimensions):
            point = {"n": n, "d": d, "M": memory, **chosen.point()}
            rows.extend(_rows_at(pass_, point, family))
    return MaskedTable(chosen, tuple(rows), family not in pair_bound_families())


def _rows_at(pass_: str, point: dict[str, int], family: str) -> list[MaskedRow]:
    """The rows of one point: each count against the best derived lower at its M + c, the
    least ratio first; one row without a count where no schedule runs."""
    window = find_window("sparse", pass_, point, mask=family)
    if not window.counts:
        return [MaskedRow(pass_, point, None, window.lower)]
    found = []
    for count in window.counts:
        lower, extra = lower_for(count, "sparse", pass_, point, mask=family)
        found.append(MaskedRow(pass_, point, count, lower, extra))
    return sorted(found, key=lambda r: float("inf") if r.ratio is None else numeric(r.ratio))


def render_masked_tightness(
    table: MaskedTable,
    fmt: str = "markdown",
    layout: str = "table",
    label_prefix: str | None = None,
) -> str:
    """The table as Markdown, LaTeX (booktabs, ``table`` or ``table*``) or JSON, with its
    note (:func:`attnio.bounds.render.render_masked_tightness_table`)."""
    from attnio.bounds.render import LABEL_PREFIX, render_masked_tightness_table

    plain = [r.to_dict() for r in table.rows]
    mask = {"family": table.mask.family.name, "spec": table.mask.spec, "n": table.mask.n,
            "Z": table.mask.pairs(), "w": table.mask.w,
            "compulsory_only": table.compulsory_only, "note": table.note}  # fmt: skip
    return render_masked_tightness_table(plain, mask, fmt, layout, label_prefix or LABEL_PREFIX)


__all__ = [
    "DIMENSIONS",
    "MEMORIES",
    "MaskedRow",
    "MaskedTable",
    "N",
    "counted_families",
    "masked_rows",
    "pair_bound_families",
    "points",
    "render_masked_tightness",
]
