"""How far from optimal: a count against the best derived lower bound, at a point or a scope.

One of two readers of one evaluation (:func:`attnio.bounds.window.find_window`, the best derived
lower bound and the best exact count at a point):

* :func:`measure_gap`, behind ``attnio gap``: at one instance, the best schedule attnio
  knows (or the user's own count, ``--count``), the best derived lower bound, their ratio,
  and the interval the tightness table records for the schedule's constant over its whole
  cell (:func:`attnio.proofs.tightness.constant_interval`), with whether the point lies in
  the region where that interval is proved;
* :func:`attnio.claims.window.claim_window`, behind ``attnio check``'s window line for a
  claim neither proved nor refuted: the claim's value against that window at sampled
  points of its scope.

The optimum lies in [best derived lower bound, best count] wherever both apply; a ratio
says how wide that window is, not where the optimum is inside it. Lower bounds count only
at the ``derived`` level (algebra machine-checked; combinatorial lemmas proved by hand:
:func:`~attnio.bounds.record.derived_lower_evidence`); counts only as ``derived`` exact
counts of attnio's schedules, which the two-level machine reproduces.

The interface is the one the masked, shaped and approximate regimes will extend
(``mask``, shapes, methods): the point is a mapping of the catalog's symbols, so a
record in new symbols is used as soon as the point names them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy as sp

from attnio.bounds import Bound
from attnio.bounds.errors import BoundError
from attnio.bounds.expression import parse_expression
from attnio.bounds.masks import Mask
from attnio.bounds.pebblings import extra_red, read_at, red_pebbles
from attnio.bounds.record import derived_lower_evidence
from attnio.bounds.symbols import ALL
from attnio.bounds.window import (
    Standing,
    Window,
    find_window,
    format_point,
    format_ratio,
    format_words,
    lower_for,
    numeric,
)

from .approximate_tightness import POLYNOMIAL_NOTE, constant_interval
from .errors import GapError

if TYPE_CHECKING:
    from .tightness import Interval

COUNT_RECORD = "--count"
"""The record name a user's own count carries in a :class:`Gap`."""

COUNT_EVIDENCE = "exact count; the two-level machine reproduces it"
"""What a ``derived`` count rests on."""

GRAPH_NOTE = (
    "each derived lower bound holds for every graph of the class its derivation states, and "
    "every dense schedule's run replays as a pebbling of its own graph in that class "
    "(docs/notation.md#schedules-as-pebblings) with M + c red pebbles (c <= 6: values kept "
    "in uncharged registers), which moves at least the optimum with M + c, so each "
    "schedule's ratio reads the bound at M + c"
)
"""Which computation each side of the ratio is about, printed with every gap."""

MASK_NOTE = (
    "the only derived lower bound for this mask family is the compulsory I/O (each input "
    "read and each output written once: sparse-forward-compulsory, sparse-backward-compulsory, "
    "in n, d and Z), so the ratio bounds how far the schedule is from optimal and does not "
    "measure it; the compulsory I/O holds for every graph with these inputs and outputs, "
    "the masked schedules' own graphs among them (io-ends over their allowed pairs, "
    "checked at n <= 4 by tests/test_classes.py); the bounds over the allowed pairs' "
    "products are recorded for the causal mask and the sliding window only"
)
"""What the lower end of a masked gap is, for a family without derived pair bounds."""
MASK_PAIRS_NOTE = (
    "causal mask: besides the compulsory I/O, the derived lower bounds count the "
    "products of the Z allowed pairs (proofs/derivations/causal-lower.md: the dense sharp and "
    "shared-budget bounds with n^2 replaced by Z), proved for the mask's normalise-first graph "
    "and every graph with the dense classes' properties over the allowed pairs; the causal "
    "schedules' own graphs (masked online-softmax graphs, on which their pebblings replay) "
    "have those properties, checked at n <= 5, d <= 2 (tests/test_classes.py) and argued "
    "by hand for all sizes"
)
"""What the lower end of a causal gap is: :data:`MASK_NOTE`'s families have less."""
MASK_WINDOW_NOTE = (
    "sliding window: besides the compulsory I/O, at M >= d^2 the derived lower bounds count "
    "the products of the Z = w n - w (w - 1) / 2 allowed pairs (proofs/derivations/"
    "causal-lower.md: the dense sharp bounds with n^2 replaced by Z), proved for the mask's "
    "normalise-first graph and every graph with the dense classes' properties over the "
    "allowed pairs; the window schedules' own graphs (masked online-softmax graphs, on which "
    "their pebblings replay) have those properties, checked at n <= 4, d <= 2 "
    "(tests/test_classes.py) and argued by hand for all sizes; below M = d^2 the window's "
    "shared-budget bounds are not recorded, so there the compulsory I/O is its only derived "
    "lower bound and the ratio bounds how far the schedule is from optimal"
)
"""What the lower end of a window gap is: pair bounds at M >= d^2 only."""
PAIR_BOUND_FAMILIES = ("causal", "window")
"""Mask families with derived lower bounds beyond the compulsory I/O (causal-lower.md)."""
SHAPE_NOTE = (
    "shapes (n_q x n_kv, grouped-query heads): the derived lower bounds are the compulsory "
    "I/O (shape-*-compulsory), which charges each K and V row of a key/value head once, and "
    "the sharp bounds of lower-sharp.md over the h_q n_q n_kv pairs (shape-*-lower-*-sharp, "
    "for the graphs of attnio.pebble.shapes); where the compulsory I/O dominates (decode), a "
    "ratio near 1 is honest only because the schedule really reads the KV cache once "
    "(gqa-row-streaming does when a group's h_q / h_kv * n_q query rows fit one resident "
    "block); the dense accumulator, family and segment bounds are not generalised to shapes, "
    "so elsewhere the ratio may overstate the gap"
)
"""Printed with every gap at a shape point (one that names n_q, n_kv, h_q, h_kv)."""

SHAPE_PARAMETERS = ("n_q", "n_kv", "h_q", "h_kv")
"""The point's sizes in place of n for a shape (docs/notation.md)."""

METHODS = ("polynomial",)
"""The approximation methods ``attnio gap --regime approximate`` knows."""


def note_of(
    point: Mapping[str, int], mask: Mask | None = None, method: Mapping | None = None
) -> str:
    """What the two sides of the ratio are about: :data:`MASK_PAIRS_NOTE` for a causal
    mask, :data:`MASK_WINDOW_NOTE` for a sliding window, :data:`MASK_NOTE` for another mask,
    :data:`POLYNOMIAL_NOTE` for an approximation method, :data:`SHAPE_NOTE` at a shape
    point (each with a compulsory I/O as the only derived lower bound, which holds for
    every graph with those inputs and outputs), :data:`GRAPH_NOTE` otherwise."""
    if mask is not None:
        if mask.family.name not in PAIR_BOUND_FAMILIES:
            return MASK_NOTE
        return MASK_WINDOW_NOTE if mask.family.name == "window" else MASK_PAIRS_NOTE
    if method is not None:
        return POLYNOMIAL_NOTE
    return SHAPE_NOTE if "n_q" in point else GRAPH_NOTE


def cache_of(point: Mapping[str, int]) -> str:
    """``small`` (M < d^2) or ``large`` (M >= d^2) at a point with d and M."""
    return "large" if point["M"] >= point["d"] ** 2 else "small"


@dataclass(frozen=True)
class Gap:
    """The gap at one point: a count against the best derived lower bound.

    Attributes
    ----------
    window : Window
        Every applicable record at the point.
    lower : Standing
        The best derived lower bound.
    upper : Standing
        The best schedule's count, or the user's (record :data:`COUNT_RECORD`).
    count : str or None
        The user's count expression, as given.
    mask : attnio.bounds.masks.Mask or None
        The mask (sparse regime), whose Z and w are in the point; None for dense.
    interval : attnio.proofs.tightness.Interval or None
        The tightness table's interval for the best schedule's constant in this cell
        (None with a user's count, or when the table has no row for the schedule).
    extra_red : int or None
        c: the red pebbles beyond M of the best schedule's pebbling
        (:data:`attnio.bounds.pebblings.EXTRA_RED`); :attr:`lower` is the best derived
        lower bound at M + c. None (read at M): a user's count, or a schedule that exports
        no pebbling.
    bounds : Window or None
        The window at M + c, whose lower bounds :attr:`lower` is the best of (None: the
        same as :attr:`window`, c = 0 or None).
    others : tuple of (Standing, Standing, int or None)
        Every other applicable count with the best derived lower bound at M + its c and
        that c (None: read at M).
    """

    window: Window
    lower: Standing
    upper: Standing
    count: str | None = None
    interval: Interval | None = None
    mask: Mask | None = None
    method: dict[str, object] | None = None
    extra_red: int | None = None
    bounds: Window | None = None
    others: tuple[tuple[Standing, Standing, int | None], ...] = ()

    @property
    def point(self) -> dict[str, int]:
        """The point, by parameter name."""
        return self.window.point

    @property
    def cell(self) -> str:
        """``small`` or ``large``: the cache regime at the point."""
        return cache_of(self.point)

    @property
    def lower_m(self) -> int:
        """The M at which :attr:`lower` is read: the point's M plus c (0 when c is None)."""
        return self.point["M"] + (self.extra_red or 0)

    @property
    def reading(self) -> str:
        """Where :attr:`lower` is read and why, one clause (``describe_gap``)."""
        if self.extra_red is None:
            why = "your count names no pebbling" if self.count is not None else (
                "the schedule exports no pebbling")  # fmt: skip
            return f"at M: {why}"
        at = "M" if self.extra_red == 0 else f"M + {self.extra_red} = {self.lower_m:,}"
        return f"at {at}: the schedule's pebbling uses {red_pebbles(self.extra_red)}"

    @property
    def ratio(self) -> sp.Expr:
        """upper / lower, exact (the lower bound is positive: :func:`measure_gap` checks)."""
        return self.upper.value / self.lower.value

    @property
    def interval_applies(self) -> bool:
        """Whether the point lies in the region where :attr:`interval` is proved."""
        return self.interval is not None and self.interval.holds_at(self.point)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: ratio, lower, upper, point, cell, constant, other lower bounds."""
        constant = None
        if self.interval is not None:
            constant = {
                "count": self.interval.count,
                "proved": self.interval.proved,
                "refuted": self.interval.refuted,
                "applies_here": self.interval_applies,
                "region": _region(self.interval.region),
                "reproduce": self.interval.command,
            }
        upper = self.upper.to_dict()
        if self.count is not None:
            upper["expression"] = self.count
        return {
            "regime": self.window.regime,
            "pass": self.window.pass_,
            "mask": None if self.mask is None else _mask_dict(self.mask),
            "method": self.method,
            "point": dict(self.point),
            "cell": self.cell,
            "ratio": float(numeric(self.ratio)),
            "ratio_exact": sp.sstr(self.ratio),
            "lower": {
                **self.lower.to_dict(),
                "evidence": derived_lower_evidence(),
                "M": self.lower_m,
                "extra_red": self.extra_red,
            },
            "upper": {
                **upper,
                "evidence": COUNT_EVIDENCE if self.count is None else "the user's count",
            },
            "constant": constant,
            "counts": [s.to_dict() for s in self.window.counts],
            "derived_lowers": [s.to_dict() for s in (self.bounds or self.window).lowers],
            "other_lowers": [s.to_dict() for s in (self.bounds or self.window).others],
            "note": note_of(self.point, self.mask, self.method),
        }


def _mask_dict(mask: Mask) -> dict[str, object]:
    """JSON-ready: the mask's family, spec, Z and w (None outside window and band)."""
    return {"family": mask.family.name, "spec": mask.spec, "Z": mask.pairs(), "w": mask.w}


def build_mask(
    mask: str | Mask | None,
    n_: int,
    *,
    window: int | None = None,
    block_mask: str | None = None,
) -> Mask:
    """The mask of ``--mask``, ``--window`` and ``--block-mask`` at ``n_``
    (:meth:`attnio.bounds.masks.Mask.from_arguments`); a :class:`Mask` is checked against n.

    Raises
    ------
    GapError
        No mask, or one that does not fit n (a window wider than n, a block mask of the
        wrong shape, an empty row): one line naming the argument and its value.
    """
    if isinstance(mask, Mask):
        if mask.n != n_:
            raise GapError(f"gap: the mask {mask.spec!r} is of n={mask.n}, the point's n={n_}")
        return mask
    if mask is None or mask == "none":
        raise GapError(
            "gap: --regime sparse needs --mask: causal, window --window W, band --window W, "
            "block --block-mask FILE, or a .json/.npy file of an n x n boolean array"
        )
    try:
        return Mask.from_arguments(mask, n_, window=window, block_mask=block_mask)
    except ValueError as error:
        raise GapError(f"gap: {error}") from None


def _user_count(text: str, point: Mapping[str, int]) -> Standing:
    """The user's count at ``point``, exact; one clear error if it cannot be evaluated."""
    try:
        expr = parse_expression(text, field="EXPR", claim="--count", noun="option")
    except BoundError as error:
        raise GapError(f"gap: {error}") from None
    unknown = sorted(str(s) for s in expr.free_symbols if str(s) not in point)
    if unknown:
        raise GapError(
            f"gap: --count {text!r} uses {', '.join(unknown)}; at this point only "
            f"{', '.join(point)} have values"
        )
    value = expr.xreplace({ALL[name]: sp.Integer(v) for name, v in point.items()})
    if not (value.is_number and value.is_finite and value.is_positive):
        raise GapError(
            f"gap: --count {text!r} is {sp.sstr(value)} at {format_point(point)}; a count "
            "must be a positive finite number of words"
        )
    return Standing(COUNT_RECORD, "claimed", value)


_NO_COUNT = {
    True: "every count's conditions fail: M is too small",
    False: "no derived count of a schedule for this mask applies: M is too small, or no "
    "schedule of the mask's family is counted",
}
"""Why no schedule runs at a point, without a mask (True) and with one (False)."""


def _check_arguments(
    regime: str,
    pass_: str,
    point: Mapping[str, int],
    mask: str | Mask | None,
    window: int | None,
    block_mask: str | None,
    method: str | None = None,
    degree: int | None = None,
) -> None:
    """One :class:`GapError` for a regime, pass, mask or method option or size
    :func:`measure_gap` does not take."""
    if regime not in ("dense", "sparse", "approximate"):
        raise GapError(f"gap: --regime {regime!r} is not one of: dense, sparse, approximate")
    if regime != "approximate" and (method is not None or degree is not None):
        raise GapError("gap: --method and --degree apply to --regime approximate only")
    if pass_ not in ("forward", "backward"):
        raise GapError(f"gap: --pass {pass_!r} is not one of: forward, backward")
    masked = mask is not None and mask != "none"
    if regime != "sparse" and (masked or window is not None or block_mask is not None):
        given = f"--mask {mask}" if masked else (
            f"--window {window}" if window is not None else "--block-mask")  # fmt: skip
        raise GapError(
            f"gap: {given} applies to --regime sparse; {regime} attention has no mask (--mask none)"
        )
    shaped = any(name in point for name in SHAPE_PARAMETERS)
    if shaped and regime != "dense":
        raise GapError("gap: --n-q, --n-kv, --heads-q and --heads-kv apply to --regime dense")
    for name in (*SHAPE_PARAMETERS, "d", "M") if shaped else ("n", "d", "M"):
        value = point.get(name)
        if value is None:
            raise GapError(f"gap: give --{name}")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise GapError(f"gap: --{name} {value!r} must be a positive integer")
    if shaped and point["h_q"] % point["h_kv"]:
        raise GapError(
            f"gap: --heads-q {point['h_q']} must be a multiple of --heads-kv {point['h_kv']}: "
            "the query heads are split into groups that share one K and V head"
        )


def measure_gap(
    regime: str,
    pass_: str,
    point: Mapping[str, int],
    *,
    count: str | None = None,
    mask: str | Mask | None = None,
    window: int | None = None,
    block_mask: str | None = None,
    constant: bool = True,
    records: Iterable[Bound] | None = None,
    method: str | None = None,
    degree: int | None = None,
) -> Gap:
    """The gap at ``point``: best count (or ``count``) over the best derived lower bound.

    Parameters
    ----------
    regime, pass_ : str
        ``dense``, ``sparse`` or ``approximate``; ``forward`` or ``backward``.
    point : mapping
        ``n``, ``d``, ``M`` (positive integers); for ``sparse`` the mask's Z and w are
        added (:meth:`attnio.bounds.masks.Mask.point`); or, for dense attention of another
        shape, ``n_q``, ``n_kv``, ``h_q``, ``h_kv``, ``d``, ``M`` (h_q a multiple of h_kv)
        in place of ``n``.
    count : str, optional
        The user's own kernel's count, an expression in the point's symbols (read by the
        claims files' parser, never ``eval``), in place of the best schedule.
    mask : str or Mask, optional
        ``sparse`` only, and required there: a family name (``causal``, ``window``,
        ``band``, ``block``, ``full``), a spec (``window:1024``) or a ``.json``/``.npy``
        file; its records (``mask``) are read at its Z and w (no constant interval).
    window, block_mask : optional
        ``--window W`` of ``window`` and ``band``; ``--block-mask FILE`` of ``block``.
    constant : bool
        Look up the tightness table's interval for the best schedule (about a second).
    records : iterable of Bound, optional
        The records to read (default: the catalog).
    method, degree : str and int, optional
        ``approximate`` only: the method (``polynomial``, the default) and its degree g
        (default 2); the point gains the feature rank ``r = C(d + g, g)``.

    Raises
    ------
    GapError
        A regime or mask not covered yet, a point where no derived lower bound or no
        count applies, a lower bound that is not positive there, or a bad ``count``.

    Examples
    --------
    >>> gap = measure_gap("dense", "forward", {"n": 4096, "d": 64, "M": 16384}, constant=False)
    >>> gap.upper.algorithm, bool(gap.ratio >= 1)
    ('row-streaming', True)
    """
    _check_arguments(regime, pass_, point, mask, window, block_mask, method, degree)
    chosen = method_ = None
    if regime == "sparse":
        chosen = build_mask(mask, point["n"], window=window, block_mask=block_mask)
        point = {**point, **chosen.point()}
    if regime == "approximate":
        point, method_ = _polynomial_point(point, method, degree)
    family = None if chosen is None else chosen.family.name
    window_ = find_window(regime, pass_, point, records=records, mask=family)
    where = _where(regime, pass_, point, chosen, method_)
    if window_.lower is None:
        raise GapError(f"gap: no derived lower bound of the catalog applies {where}")
    if not window_.lower.value.is_positive:
        raise GapError(f"gap: the best derived lower bound {where} is not positive")
    if count is not None:
        upper = _user_count(count, point)
    elif window_.upper is None:
        raise GapError(f"gap: no schedule of attnio runs {where} ({_NO_COUNT[chosen is None]}); "
                       "give your own with --count")  # fmt: skip
    else:
        upper = window_.upper
    bounds, extra, others = _at_red_pebbles(window_, upper, count, records, family, where)
    interval = _constant_interval(regime, pass_, point, upper) if constant and not count else None
    return Gap(window_, bounds.lower, upper, count, interval, chosen, method_, extra,
               None if bounds is window_ else bounds, others)  # fmt: skip


def _constant_interval(
    regime: str, pass_: str, point: Mapping[str, int], upper: Standing
) -> Interval | None:
    """The tightness table's interval for the best schedule's count in the point's cell:
    the dense table's (one square head), the approximate table's, or None."""
    from .tightness import constant_interval as dense_interval

    if regime == "dense" and "n_q" not in point:
        return dense_interval(pass_, cache_of(point), upper.record)
    if regime == "approximate":
        return constant_interval(pass_, point, upper.record)
    return None


def _at_red_pebbles(
    window: Window,
    upper: Standing,
    count: str | None,
    records: Iterable[Bound] | None,
    family: str | None,
    where: str,
) -> tuple[Window, int | None, tuple[tuple[Standing, Standing, int | None], ...]]:
    """The window at M + c of the best schedule (c its pebbling's red pebbles beyond M; the
    window itself for c = 0, a user's count or c None), c, and each other count with the
    best derived lower bound at M + its own c (:func:`attnio.bounds.window.lower_for`)."""
    regime, pass_, point = window.regime, window.pass_, window.point
    bounds, extra = window, None
    if count is None:
        extra = extra_red(upper.algorithm, pass_)
        if extra:
            bounds = find_window(regime, pass_, read_at(point, extra), records=records,
                                 mask=family)  # fmt: skip
    if bounds.lower is None or not bounds.lower.value.is_positive:
        raise GapError(f"gap: no positive derived lower bound applies at M + {extra} {where}")
    others = []
    for other in window.counts:
        if other.record != upper.record:
            low, c = lower_for(other, regime, pass_, point, records=records, mask=family)
            if low is not None and low.value.is_positive:
                others.append((other, low, c))
    return bounds, extra, tuple(others)


def _where(
    regime: str, pass_: str, point: Mapping[str, int], mask: Mask | None, method: Mapping | None
) -> str:
    """``dense forward at n=..., d=..., M=...`` and the method or mask, for error messages."""
    where = f"{regime} {pass_} at {format_point(point)}"
    if method is not None:
        where += f" ({method['name']}, degree {method['degree']})"
    if mask is not None:
        where += f" (mask {mask.spec})"
    return where


def _polynomial_point(
    point: Mapping[str, int], method: str | None, degree: int | None
) -> tuple[dict[str, int], dict[str, object]]:
    """The point with the feature rank r of the polynomial method at ``degree``."""
    from attnio.bounds.symbols import feature_rank

    method = "polynomial" if method is None else method
    if method not in METHODS:
        raise GapError(f"gap: --method {method!r} is not one of: {', '.join(METHODS)}")
    degree = 2 if degree is None else degree
    if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
        raise GapError(f"gap: --degree {degree!r} must be a positive integer")
    d = point.get("d")
    if not isinstance(d, int) or isinstance(d, bool) or d < 1:
        raise GapError(f"gap: --d {d!r} must be a positive integer")
    rank = int(feature_rank(d, degree))
    return {**point, "r": rank}, {"name": method, "degree": degree, "r": rank}


def _region(relations: Iterable[sp.Basic]) -> list[str]:
    """The relations of a region, conjunctions flattened, each once, as text."""
    flat = (part for relation in relations for part in sp.And.make_args(relation))
    return list(dict.fromkeys(sp.sstr(part) for part in flat))


def describe_gap(gap: Gap) -> str:
    """The text ``attnio gap`` prints: one fact a line."""
    point = gap.point
    cell = "M >= d^2" if gap.cell == "large" else "M < d^2"
    lines = [f"attnio gap: {gap.window.regime} {gap.window.pass_} at {format_point(point)} "
             f"({gap.cell} cache, {cell})"]  # fmt: skip
    if gap.mask is not None:
        lines.append(f"  mask                {gap.mask.spec}: {gap.mask.family.meaning}, "
                     f"Z = {gap.mask.pairs():,} allowed pairs")  # fmt: skip
    if gap.count is None:
        upper = gap.upper
        lines.append(
            f"  best schedule       {format_words(upper.value)} words: {upper.algorithm} "
            f"({upper.record}, derived: {COUNT_EVIDENCE})"
        )
    else:
        lines.append(f"  your count          {format_words(gap.upper.value)} words: {gap.count}")
    lower = gap.lower
    lines.append(
        f"  best derived lower  {format_words(lower.value)} words: {lower.record} "
        f"(derived: {derived_lower_evidence()}), read {gap.reading}"
    )
    lines.append(f"  ratio               {format_ratio(numeric(gap.ratio), 4)}")
    if numeric(gap.ratio) < 1 and gap.count is not None:
        lines.append(
            "  your count is below the best derived lower bound: no pebbling of the graph "
            "that bound covers moves that few words (docs/notation.md: check the count, or "
            "which computation your kernel performs)"
        )
    elif numeric(gap.ratio) < 1:
        lines.append(
            "  a derived lower bound exceeds a derived count here: one of the two records is "
            "wrong (attnio verify)"
        )
    interval = gap.interval
    if interval is not None and interval.proved is not None:
        region = ", ".join(_region(interval.region))
        where = "inside" if gap.interval_applies else "outside"
        low = "" if interval.refuted is None else f"({interval.refuted}, "
        lines.append(
            f"  constant over the cell: z3 proves {interval.count} <= {interval.proved} * "
            f"max(every derived lower bound at M) wherever {region}; the least such constant is in "
            f"{low or '(0, '}{interval.proved}] ({interval.command}); this point is {where} "
            "that region"
        )
    elif gap.count is None and gap.mask is not None:
        lines.append(
            "  constant over the cell: none searched for masks (attnio table --tightness "
            "--mask: ratios at points)"
        )
    elif (
        gap.count is None
        and gap.method is not None
        and gap.point["M"] < gap.point["r"] * gap.point["d"]
    ):
        lines.append(
            "  constant over the cell: none exists for M < r d, where the ratio is unbounded "
            "(attnio table --tightness --regime approximate)"
        )
    elif gap.count is None:
        lines.append("  constant over the cell: none recorded for this schedule")
    if gap.others:
        shown = ", ".join(
            f"{s.algorithm} {format_ratio(numeric(s.value / low.value), 4)}"
            for s, low, _ in gap.others[:3]
        )
        lines.append(
            f"  other schedules     {shown} (count / best derived lower at M + its pebbling's c)"
        )
    lines.append(f"  note                {note_of(point, gap.mask, gap.method)}")
    for other in gap.window.others:
        if numeric(other.value) > numeric(lower.value):
            lines.append(
                f"  not counted         {format_words(other.value)} words: {other.record} "
                f"({other.status}, not derived)"
            )
    return "\n".join(lines)


__all__ = [
    "COUNT_EVIDENCE",
    "COUNT_RECORD",
    "GRAPH_NOTE",
    "MASK_NOTE",
    "MASK_PAIRS_NOTE",
    "MASK_WINDOW_NOTE",
    "METHODS",
    "POLYNOMIAL_NOTE",
    "SHAPE_NOTE",
    "Gap",
    "build_mask",
    "cache_of",
    "describe_gap",
    "measure_gap",
    "note_of",
]
