"""The tightness table: how far each dense cell's best exact count is from its derived lower bound.

Two numbers per (cell, algorithm), both read from the catalog, never retyped:

* the **ratio of leading terms**: the exact count at M over the best ``derived`` explicit
  lower bound of the cell read at M + c, c the red pebbles beyond M of the schedule's
  pebbling (:data:`attnio.bounds.pebblings.EXTRA_RED`: it moves at least the optimum with
  M + c), with floors and ceilings dropped, in the limit n -> oo and then (small cache)
  d -> oo and M -> oo: a sympy limit, computed here (c is a constant, so the limit is the
  one at M; reading at M + c makes that a statement about one computation);
* the **least constant C** with ``count <= C * max(every derived lower bound)`` over the
  cell with n >= d and M at least four times the schedule's least M, as an interval
  (refuted, proved]. The upper end is the least C z3 proves against the max of some of
  those bounds (so against all of them): the least of up to three searches, the
  obligations ``tightness/table/*`` of :func:`attnio.proofs.generate.tightness_table`,
  ``tightness/corner/*`` of :func:`attnio.proofs.generate.corner_table` (against the
  corner bound and the compulsory I/O alone) and, for the large-cache rows, the largest
  constant of the pieces ``tightness/piece/*`` of
  :func:`attnio.proofs.generate.piece_table` (one bound on each piece of the region).
  The lower end is refuted against the max
  of every derived bound at an integer point the sampler found
  (``tightness/full/*`` of :func:`attnio.proofs.generate.full_table`, status
  ``sampled``), the ratio there evaluated exactly. The search takes minutes, so its
  outcome is recorded with every other constant search (:mod:`attnio.proofs.constants`,
  ``python benchmarks/constants.py --record``), and ``attnio verify`` re-proves each
  recorded C; ``tests/test_tightness.py`` checks that the recording holds today's
  obligations. The constant reads every bound at M, as its obligations state it:
  count(M) <= C * lower(M) does not give count(M) <= C * lower(M + c).

References
----------
proofs/derivations/lower-sharp.md (the sharp bounds), proofs/derivations/lower-large.md.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import sympy as sp

from attnio.bounds import Cache, get
from attnio.bounds.catalog import loaded
from attnio.bounds.pebblings import extra_red
from attnio.bounds.symbols import M, d, n, r

from .constants import entry_of, recorded
from .generate import (
    UNBOUNDED_ALGORITHMS,
    corner_table,
    full_table,
    piece_table,
    tightness_table,
)
from .generate import derived_lowers as _derived_lowers
from .obligation import Obligation

COMMAND = "attnio prove --only '{name}'"
"""How to reproduce one recorded constant."""

SAMPLED_COMMAND = "python benchmarks/constants.py --only sampled"
"""How to reproduce the sampled refutations of the counts z3 does not bound."""


@dataclass(frozen=True)
class Row:
    """One line of the tightness table.

    Attributes
    ----------
    pass_, cache : str
        The dense cell.
    algorithm, count : str
        The algorithm and its exact-count record.
    lower : str
        The derived lower bound the ratio is taken against (the one giving the least ratio).
    ratio : sympy.Expr
        Ratio of leading terms (a number, or an expression in d for the large cache).
    constant : int or None
        Least C z3 proved over the grid (None: not recorded for today's count).
    refuted : int or None
        The largest C refuted against the max of every derived bound (at the recorded
        sampled point of ``tightness/full/*``), so the least C lies in (refuted, constant].
    obligation : str
        The obligation whose search gave ``constant``.
    extra_red : int or None
        c: the red pebbles beyond M of the schedule's pebbling; ``ratio`` reads ``lower``
        at M + c (None: at M, no pebbling recorded). ``constant`` and ``refuted`` read
        every bound at M.
    """

    pass_: str
    cache: str
    algorithm: str
    count: str
    lower: str
    ratio: sp.Expr
    constant: int | None
    refuted: int | None
    obligation: str
    extra_red: int | None = None

    @property
    def command(self) -> str:
        """The command that reproduces ``constant`` (or, for a count z3 does not bound, the
        sampled refutation)."""
        if self.obligation in _unbounded():
            return SAMPLED_COMMAND
        if self.obligation.startswith("tightness/piece/"):  # every piece of its list
            return COMMAND.format(name=self.obligation.rsplit("/", 1)[0] + "/*")
        return COMMAND.format(name=self.obligation)


@functools.cache
def _unbounded() -> frozenset[str]:
    return frozenset(o.name for o in tightness_table(UNBOUNDED_ALGORITHMS))


def _smooth(expr: sp.Expr) -> sp.Expr:
    return expr.replace(sp.ceiling, lambda x: x).replace(sp.floor, lambda x: x)


def _unclipped(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each ``Max(0, f, ...)`` read as ``Max(f, ...)``: a lower bound clipped
    at 0 (``dense-forward-lower-large-accumulators``) is its unclipped form once n is large,
    which is where :func:`leading_ratio` takes its first limit."""
    return expr.replace(
        lambda e: isinstance(e, sp.Max) and sp.S.Zero in e.args,
        lambda e: sp.Max(*(a for a in e.args if a != 0)),
    )


def _in_the_limit(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each Min (Max) of branches replaced by the branch that is the least
    (largest) as n -> oo and then M -> oo, decided by the limits of the branches' ratios:
    ``dense-forward-lower-large-sharp``'s Min(2 n^2 d^2 / M, n^2 / 2) - M is
    2 n^2 d^2 / M - M there (the ratio 4 d^2 / M tends to 0). A Min whose branches keep a
    ratio of 1 in the limit, or whose ratio sympy does not decide, is left as it is."""

    def pick(node: sp.Expr) -> sp.Expr:
        if not isinstance(node, (sp.Min, sp.Max)):
            return node
        best = node.args[0]
        for other in node.args[1:]:
            ratio = sp.limit(sp.limit(best / other, n, sp.oo), M, sp.oo)
            # a number (0 and oo included), else undecided: a ratio in d, say, may cross 1
            if not (ratio.is_number and ratio.is_extended_real) or ratio == 1:
                return node
            smaller = bool(ratio < 1)
            if smaller != isinstance(node, sp.Min):
                best = other
        return best

    return expr.replace(lambda e: isinstance(e, (sp.Min, sp.Max)), pick)


def limit_form(expr: sp.Expr) -> sp.Expr:
    """``expr`` as :func:`leading_ratio` takes its limits: floors and ceilings smoothed, a
    clipped ``Max(0, ...)`` unclipped, each Min or Max replaced by the branch that dominates
    as n -> oo (read by :mod:`attnio.proofs.summary` for its leading terms)."""
    return _in_the_limit(_unclipped(_smooth(expr)))


@functools.cache
def leading_ratio(count: str, lower: str, cache: str, extra: int = 0) -> sp.Expr:
    """Limit of count / lower: n -> oo, then (small cache) d -> oo, then M -> oo; the
    lower bound read at M + ``extra`` (the red pebbles beyond M of the count's pebbling).

    Examples
    --------
    >>> leading_ratio("row-streaming-forward-count", "dense-forward-lower-large-sharp", "large")
    2 + 1/d
    >>> leading_ratio("flash2-forward-count", "dense-forward-lower-large-sharp", "large", 4)
    5 + 3/d
    """
    bound = _in_the_limit(_unclipped(get(lower).explicit.subs(M, M + extra)))
    ratio = sp.limit(_smooth(get(count).explicit) / bound, n, sp.oo)
    if cache == Cache.SMALL.value:
        ratio = sp.limit(ratio, d, sp.oo)
    return sp.simplify(sp.limit(ratio, M, sp.oo))


def derived_lowers(pass_: str, cache: str) -> list[str]:
    """The derived explicit lower bounds of a dense cell (what the table compares against)."""
    return [b.name for b in _derived_lowers(pass_, Cache(cache))]


def _extra(count: str, pass_: str) -> int | None:
    """c of the count's schedule (:func:`attnio.bounds.pebblings.extra_red`)."""
    return extra_red(get(count).algorithm, pass_)


def _best(count: str, pass_: str, cache: str) -> tuple[str, sp.Expr]:
    """(lower bound, ratio) of the least leading ratio, each bound read at M + c."""
    extra = _extra(count, pass_) or 0
    options = []
    for lower in derived_lowers(pass_, cache):
        ratio = leading_ratio(count, lower, cache, extra)
        if ratio.is_finite:
            options.append((lower, ratio))

    def size(option: tuple[str, sp.Expr]) -> float:
        value = option[1]
        return float(value.subs(d, 64)) if value.free_symbols else float(value)

    return min(options, key=size)


_KEPT: dict[str, tuple] = {}


def rows() -> list[Row]:
    """The tightness table: one row per dense cell and compared algorithm.

    Built once per catalog and recording (about 10 s of sympy): the result is kept with
    the catalog tuple (:func:`attnio.bounds.catalog.loaded`) and the recording
    (:func:`attnio.proofs.constants.recorded`) it read, and built again when either is
    replaced.
    """
    current = (loaded(), recorded())
    kept = _KEPT.get("rows")
    if kept is not None and all(a is b for a, b in zip(kept[0], current, strict=True)):
        return list(kept[1])
    table = _rows()
    _KEPT["rows"] = (current, tuple(table))
    return table


def _rows() -> list[Row]:
    """The rows of :func:`rows`.

    A row's C is the least of the searches that bound its count
    (:func:`~attnio.proofs.generate.tightness_table` against the max of most derived
    bounds, :func:`~attnio.proofs.generate.corner_table` against the corner bound and the
    compulsory I/O, and the largest constant of its pieces,
    :func:`~attnio.proofs.generate.piece_table`, when every piece has one): each proves
    count <= C * L for L the max of some derived bounds of the cell (on a piece, one
    bound; the pieces cover the region), so count <= C * (the max of every derived bound)
    too. The refuted constant
    is taken against that max of every derived bound
    (:func:`~attnio.proofs.generate.full_table`): the recorded sampled point is evaluated
    again here, exactly, and refutes every integer below the ratio there.
    """
    tables = _tables()
    found = []
    for obligation in tightness_table() + tightness_table(UNBOUNDED_ALGORITHMS):
        interval = _interval(obligation, tables)
        lower, ratio = _best(interval.count, interval.pass_, interval.cache)
        found.append(
            Row(interval.pass_, interval.cache, get(interval.count).algorithm, interval.count,
                lower, ratio, interval.proved, interval.refuted, interval.obligation,
                _extra(interval.count, interval.pass_))
        )  # fmt: skip
    return found


@dataclass(frozen=True)
class Interval:
    """The least constant C with count <= C * max(every derived lower bound) over a region.

    Attributes
    ----------
    pass_, cache, count : str
        The dense cell and the exact-count record.
    proved : int or None
        Least C z3 proved (None: none recorded for today's count).
    refuted : int or None
        Largest C refuted at the recorded sampled point, evaluated exactly.
    obligation : str
        The obligation whose search gave ``proved``.
    region : tuple of sympy.Basic
        Where the interval holds: the cell, n >= d, the count's conditions and M at least
        four times the count's least M (the assumptions of its ``tightness/full/*``
        obligation).
    """

    pass_: str
    cache: str
    count: str
    proved: int | None
    refuted: int | None
    obligation: str
    region: tuple[sp.Basic, ...]

    @property
    def command(self) -> str:
        """The command that reproduces ``proved`` (as :attr:`Row.command`)."""
        return Row(self.pass_, self.cache, "", self.count, "", sp.S.One, self.proved,
                   self.refuted, self.obligation).command  # fmt: skip

    def holds_at(self, point: dict[str, int]) -> bool:
        """Whether ``point`` (n, d, M; r for the approximate rows) lies inside :attr:`region`
        (exact)."""
        at = {s: sp.Integer(point[s.name]) for s in (n, d, M, r) if s.name in point}
        return all(relation.subs(at) is sp.true for relation in self.region)


def _tables() -> tuple[dict, dict, dict]:
    """The corner, full and piece obligations by row: what :func:`_interval` reads."""
    corner = {o.name.replace("tightness/corner/", "", 1): o for o in corner_table()}
    full = {o.name.replace("tightness/full/", "", 1): o for o in full_table()}
    pieces_of: dict[str, list[Obligation]] = {}
    for piece in piece_table():  # tightness/piece/{pass}/{cache}/{count}/{k}
        pieces_of.setdefault(piece.name.rsplit("/", 1)[0], []).append(piece)
    return corner, full, pieces_of


def _interval(obligation: Obligation, tables: tuple[dict, dict, dict]) -> Interval:
    """The recorded interval of one row of the table (see :func:`_rows`)."""
    corner, full, pieces_of = tables
    _, _, pass_, cache, count = obligation.name.split("/")
    searches = [obligation]
    twin = corner.get(f"{pass_}/{cache}/{count}")
    if twin is not None:
        searches.append(twin)
    pieces = pieces_of.get(f"tightness/piece/{pass_}/{cache}/{count}", [])
    constant, source = _proved(searches, pieces)
    whole = full[f"{pass_}/{cache}/{count}"]
    return Interval(pass_, cache, count, constant, _refuted(whole), source, whole.assumptions)


def constant_interval(pass_: str, cache: str, count: str) -> Interval | None:
    """The tightness table's recorded interval for ``count`` in a dense cell, or None.

    The same interval as the row of :func:`rows`, without its leading ratio (no sympy
    limits: about a second). None when the table has no row for ``count`` in that cell.

    Examples
    --------
    >>> interval = constant_interval("forward", "large", "row-streaming-forward-count")
    >>> interval.refuted < interval.proved
    True
    """
    name = f"tightness/table/{pass_}/{cache}/{count}"
    for obligation in tightness_table() + tightness_table(UNBOUNDED_ALGORITHMS):
        if obligation.name == name:
            return _interval(obligation, _tables())
    return None


def _proved(searches: list, pieces: list) -> tuple[int | None, str]:
    """(least proved C, the obligation that proved it) over the searches and, if every
    piece of the row's decision list has one, the largest C of the pieces; an obligation
    without a recording of today's text counts as not searched."""

    def proved(obligation) -> int | None:
        entry = entry_of(obligation)
        if entry is not None and entry["status"] == "proved":
            return entry["constant"]
        return None

    found = [(c, o.name) for o in searches if (c := proved(o)) is not None]
    piecewise = [(c, o.name) for o in pieces if (c := proved(o)) is not None]
    if pieces and len(piecewise) == len(pieces):
        found.append(max(piecewise))
    if not found:
        return None, searches[0].name
    return min(found)


def _refuted(full: Obligation) -> int | None:
    """The largest integer C the recorded point of ``full`` refutes, evaluated exactly
    (None: no recording of today's text, or no point).

    The count and every lower bound are evaluated exactly at the point, one record at a
    time (sympy's Max of a dozen algebraic numbers takes seconds); the largest is picked
    at 60 digits, and C is then checked exactly against every record: count > C * L for
    each L, lowered by one while it is not.
    """
    entry = entry_of(full)
    point = None if entry is None else entry.get("point")
    if not point:
        return None
    at = {s: sp.Integer(point[s.name]) for s in (n, d, M) if s.name in point}
    if not all(a.subs(at) is sp.true for a in full.assumptions):
        return None
    count = full.claim.lhs.subs(at)
    lowers = [get(name).explicit.subs(at) for name in full.sources[1:]]
    largest = max(lowers, key=lambda value: sp.N(value, 60))
    if not largest.is_positive:
        return None
    refuted = int(sp.ceiling(count / largest)) - 1
    while refuted >= 1 and not all((count > refuted * low) is sp.true for low in lowers):
        refuted -= 1
    return refuted if refuted >= 1 else None


def render_tightness(
    table: list[Row], fmt: str = "markdown", layout: str = "table", label_prefix: str | None = None
) -> str:
    """The table as Markdown, LaTeX (booktabs, ``table`` or ``table*``) or JSON, grouped by
    cell with display names (:func:`attnio.bounds.render.render_tightness_table`)."""
    from attnio.bounds.render import LABEL_PREFIX, render_tightness_table

    plain = [
        {
            "pass": r.pass_,
            "cache": r.cache,
            "count": r.count,
            "lower": r.lower,
            "ratio": r.ratio,
            "constant": r.constant,
            "refuted": r.refuted,
            "command": r.command,
            "extra_red": r.extra_red,
        }
        for r in table
    ]
    return render_tightness_table(plain, fmt, layout, label_prefix or LABEL_PREFIX)


__all__ = [
    "Interval",
    "Row",
    "constant_interval",
    "derived_lowers",
    "leading_ratio",
    "limit_form",
    "render_tightness",
    "rows",
]
