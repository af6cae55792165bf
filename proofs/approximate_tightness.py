"""The approximate rows of the tightness table: the polynomial method's schedules against the
derived lower bounds of the method's own graphs, at points, with a constant where W fits.

Approximate attention by the polynomial method of degree g (AS23; the gradient AS24) has
r = C(d + g, g) features, and its exact counts (``low-rank-*-count``,
``low-rank-columns-*-count``) depend on M against r d: the r x d matrix W = psi(K)^T V stays
in fast memory or is blocked. So, as the masked table (:mod:`attnio.proofs.masked_tightness`)
does, this table reads the records at points, where ``attnio gap --regime approximate
--method polynomial --degree G`` reads them: at n, each d, r = C(d + g, g) and M in
{4096, 16384, 65536} (the points of issue 37's targets), every ``derived`` exact count that
runs against the best ``derived`` lower bound at M + c (c the red pebbles beyond M of the
schedule's pebbling, :func:`attnio.bounds.window.lower_for`). Each row has

* the **ratio** at the point, exact;
* the **ratio of leading terms**: the limit n -> oo of count / lower at the point's d, M and
  r (floors and ceilings kept: d, M and r are numbers), against the lower bound whose
  leading term in n is the largest;
* the **constant over the cell**: in the cell M >= r d, the least C z3 proved for
  count <= C * ``polynomial-{pass}-compulsory`` over M >= r d, n >= r, (d + 1)(d + 2) <= 2 r
  (every degree g >= 2) and the count's conditions
  (:func:`attnio.proofs.generate.approximate_table`, recorded in ``proofs/constants.json``);
  a C against the compulsory I/O is a C against the max of every derived lower bound. In
  the cell M < r d no constant exists: there the counts grow as n d^2 r / M while the
  derived lower bounds are of order n d + n d^3 / M^(2/3), and the ratio is unbounded
  over the cell (at M = 4 (d^2 + 5 d + 7), inside it for every d >= 10, the columns
  schedules' ratio of leading terms grows without bound in d: ``tests``).

The lower bounds bound pebblings of the polynomial method's graphs (``attnio pebble --dag
approx-forward`` / ``approx-backward``), not every epsilon-approximation algorithm; the
table's note says so (:data:`POLYNOMIAL_NOTE`, which ``attnio gap`` prints too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

from attnio.bounds import get
from attnio.bounds.symbols import M, d, feature_rank, n, r
from attnio.bounds.window import Standing, find_window, lower_for, numeric

from .constants import entry_of
from .errors import TightnessError
from .generate import approximate_table
from .obligation import Obligation
from .tightness import Interval

N = 65536
"""The default sequence length (issue 37's target points)."""

DIMENSIONS = (16, 32)
"""The default head dimensions (issue 37's target points)."""

MEMORIES = (4096, 16384, 65536)
"""The fast-memory sizes M of every d (issue 37's target points)."""

DEGREE = 2
"""The default degree g of the polynomial method."""

PASSES = ("forward", "backward")

PROVE_COMMAND = "attnio prove --only '{name}'"
"""How to reproduce a row's constant."""

GAP_COMMAND = (
    "attnio gap --regime approximate --method polynomial --degree {g} --pass {pass_} "
    "--n {n} --d {d} --M {M}"
)
"""How to reproduce a row's ratio at its point."""

UNBOUNDED = "none exists for M < r d (the ratio is unbounded over that cell)"
"""The constant's text in the cell where the polynomial method blocks W."""

POLYNOMIAL_NOTE = (
    "approximate, polynomial method: the derived lower bounds are those of the method's "
    "own graphs (attnio pebble --dag approx-forward / approx-backward): the compulsory I/O "
    "and, at degree g >= 2, polynomial-forward-lower and polynomial-backward-lower-dw, "
    "order n d^3 / M^(2/3); they bound pebblings of those graphs, not every "
    "epsilon-approximation algorithm, and the ratio is an upper end of the true gap"
)
"""The note of an approximate gap: which bound the lower side is and what is missing."""


NOTE = (
    POLYNOMIAL_NOTE + "; the constant C over the cell M >= r d is proved by z3 against the "
    "compulsory I/O alone, for n >= r and every degree g >= 2"
)
"""The note printed under the table."""


@dataclass(frozen=True)
class ApproximateRow:
    """One line of the approximate tightness table: one schedule at one point.

    Attributes
    ----------
    pass_ : str
        ``forward`` or ``backward``.
    point : dict
        n, d, M and r = C(d + g, g).
    degree : int
        g.
    count : Standing or None
        The schedule's exact count (None: no schedule runs at the point).
    lower : Standing or None
        The best derived lower bound at M + c (at M without a count).
    extra_red : int or None
        c of the schedule's pebbling.
    leading : sympy.Expr or None
        lim n -> oo of count / lower, against ``leading_lower``.
    leading_lower : str or None
        The lower bound whose leading term in n is the largest at the point.
    constant : int or None
        The least C z3 proved over the cell (None: see ``constant_note``).
    constant_note : str
        What ``constant`` is, or why there is none.
    obligation : str or None
        The obligation whose recorded search gave ``constant``.
    """

    pass_: str
    point: dict[str, int]
    degree: int
    count: Standing | None
    lower: Standing | None
    extra_red: int | None
    leading: sp.Expr | None
    leading_lower: str | None
    constant: int | None
    constant_note: str
    obligation: str | None

    @property
    def cell(self) -> str:
        """``M >= r d`` (W = psi(K)^T V fits in fast memory) or ``M < r d``."""
        return "M >= r d" if self.point["M"] >= self.point["r"] * self.point["d"] else "M < r d"

    @property
    def ratio(self) -> sp.Expr | None:
        """count / lower at the point, exact (None without a count or a positive lower)."""
        if self.count is None or self.lower is None or not self.lower.value.is_positive:
            return None
        return self.count.value / self.lower.value

    @property
    def commands(self) -> tuple[str, ...]:
        """The commands that reproduce the ratio (``attnio gap``) and the constant."""
        p = self.point
        found = [GAP_COMMAND.format(g=self.degree, pass_=self.pass_, n=p["n"], d=p["d"],
                                    M=p["M"])]  # fmt: skip
        if self.constant is not None and self.obligation is not None:
            found.append(PROVE_COMMAND.format(name=self.obligation))
        return tuple(found)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: the point, cell, both sides, the ratios, the constant, the commands."""

        def side(standing: Standing | None) -> dict[str, object] | None:
            return None if standing is None else standing.to_dict()

        ratio, leading = self.ratio, self.leading
        return {
            "pass": self.pass_,
            "point": dict(self.point),
            "degree": self.degree,
            "cell": self.cell,
            "count": side(self.count),
            "lower": side(self.lower),
            "lower_M": self.point["M"] + (self.extra_red or 0),
            "extra_red": self.extra_red,
            "ratio": None if ratio is None else float(numeric(ratio)),
            "ratio_exact": None if ratio is None else sp.sstr(ratio),
            "leading": None if leading is None else float(numeric(leading)),
            "leading_exact": None if leading is None else sp.sstr(leading),
            "leading_lower": self.leading_lower,
            "constant": self.constant,
            "constant_note": self.constant_note,
            "obligation": self.obligation,
            "commands": list(self.commands),
        }


def approximate_rows(
    degree: int = DEGREE, n_: int = N, dimensions: Sequence[int] = DIMENSIONS
) -> list[ApproximateRow]:
    """The approximate tightness table: by pass, d and M, the least ratio first at a point.

    Parameters
    ----------
    degree : int
        g of the polynomial method (r = C(d + g, g)).
    n_ : int
        The sequence length.
    dimensions : sequence of int
        The head dimensions; M runs over :data:`MEMORIES` at each.

    Raises
    ------
    TightnessError
        A degree, n or d that is not a positive integer: one line.

    Examples
    --------
    >>> rows = approximate_rows(2, 65536, (16,))
    >>> [(r.pass_, r.point["M"], r.count.algorithm, r.constant) for r in rows][:2]
    [('forward', 4096, 'low-rank', 14), ('forward', 4096, 'low-rank-columns', 3)]
    """
    for name, value in (("--degree", degree), ("--n", n_), *(("--d", x) for x in dimensions)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise TightnessError(f"table: {name} {value!r} must be a positive integer")
    obligations = {o.name: o for o in approximate_table()}
    found: list[ApproximateRow] = []
    for pass_ in PASSES:
        for dim in dimensions:
            for memory in MEMORIES:
                point = {"n": n_, "d": dim, "M": memory, "r": int(feature_rank(dim, degree))}
                found.extend(_rows_at(pass_, point, degree, obligations))
    return found


def _rows_at(
    pass_: str, point: dict[str, int], degree: int, obligations: dict[str, Obligation]
) -> list[ApproximateRow]:
    """The rows of one point, the least ratio first; one row without a count where no
    schedule runs."""
    window = find_window("approximate", pass_, point)
    if not window.counts:
        return [ApproximateRow(pass_, point, degree, None, window.lower, None, None, None,
                               None, "no schedule runs", None)]  # fmt: skip
    found = []
    for count in window.counts:
        lower, extra = lower_for(count, "approximate", pass_, point)
        leading, against = _leading(count, pass_, point, extra or 0)
        name = f"tightness/approximate/{pass_}/{count.record}"
        constant, note = _constant(obligations.get(name), point)
        found.append(ApproximateRow(pass_, point, degree, count, lower, extra, leading, against,
                                    constant, note, name))  # fmt: skip
    return sorted(found, key=lambda row: float("inf") if row.ratio is None else numeric(row.ratio))


def _leading(
    count: Standing, pass_: str, point: dict[str, int], extra: int
) -> tuple[sp.Expr | None, str | None]:
    """lim n -> oo of count / lower at the point's d, M (M + c for the lower) and r, against
    the applicable derived lower bound of the largest leading term in n."""
    fixed = {d: point["d"], M: point["M"], r: point["r"]}
    at = {**point, "M": point["M"] + extra}
    best: tuple[sp.Expr, str] | None = None
    for lower in find_window("approximate", pass_, at).lowers:
        expr = get(lower.record).explicit.subs({**fixed, M: at["M"]})
        slope = sp.limit(expr / n, n, sp.oo)
        if slope.is_positive and slope.is_finite and (best is None or slope > best[0]):
            best = (slope, lower.record)
    if best is None:
        return None, None
    slope = sp.limit(get(count.record).explicit.subs(fixed) / n, n, sp.oo)
    return sp.nsimplify(slope / best[0]), best[1]


def _constant(obligation: Obligation | None, point: dict[str, int]) -> tuple[int | None, str]:
    """The recorded least C of the row's obligation if the point lies in its region, else
    None and why."""
    if point["M"] < point["r"] * point["d"]:
        return None, UNBOUNDED
    if obligation is None:
        return None, "no obligation for this count"
    at = {s: sp.Integer(point[s.name]) for s in (n, d, M, r)}
    if not all(a.subs(at) is sp.true for a in obligation.assumptions):
        return None, "not proved here: the point is outside M >= r d, n >= r, g >= 2"
    entry = entry_of(obligation)
    if entry is None or entry["status"] != "proved":
        return None, f"not recorded ({PROVE_COMMAND.format(name=obligation.name)} searches it)"
    return int(entry["constant"]), "over M >= r d, n >= r, g >= 2"


def constant_interval(pass_: str, point: dict[str, int], count: str) -> Interval | None:
    """The recorded constant of ``count`` over the cell M >= r d, as the dense table's
    :class:`~attnio.proofs.tightness.Interval` (no refuted end: the search refuted no C), or
    None when the point is not in that cell or no constant is recorded for today's text.

    Read by ``attnio gap --regime approximate`` (:func:`attnio.proofs.gap.measure_gap`).

    Examples
    --------
    >>> interval = constant_interval("forward", {"n": 65536, "d": 16, "M": 4096, "r": 153},
    ...                              "low-rank-columns-forward-count")
    >>> interval.proved, interval.holds_at({"n": 65536, "d": 16, "M": 4096, "r": 153})
    (3, True)
    """
    name = f"tightness/approximate/{pass_}/{count}"
    obligation = next((o for o in approximate_table() if o.name == name), None)
    constant, _ = _constant(obligation, point)
    if obligation is None or constant is None:
        return None
    return Interval(pass_, "any", count, constant, None, name, obligation.assumptions)


def render_approximate_tightness(
    rows: Sequence[ApproximateRow],
    degree: int = DEGREE,
    fmt: str = "markdown",
    layout: str = "table",
    label_prefix: str | None = None,
) -> str:
    """The table as Markdown, LaTeX (booktabs, ``table`` or ``table*``) or JSON, with its
    note (:func:`attnio.bounds.render.render_approximate_tightness_table`)."""
    from attnio.bounds.render import LABEL_PREFIX, render_approximate_tightness_table

    method = {"name": "polynomial", "degree": degree, "note": NOTE}
    return render_approximate_tightness_table([row.to_dict() for row in rows], method, fmt,
                                              layout, label_prefix or LABEL_PREFIX)  # fmt: skip


__all__ = [
    "DEGREE",
    "DIMENSIONS",
    "MEMORIES",
    "NOTE",
    "POLYNOMIAL_NOTE",
    "UNBOUNDED",
    "ApproximateRow",
    "N",
    "approximate_rows",
    "constant_interval",
    "render_approximate_tightness",
]
