"""I/O of attention shapes against the group size h_q / h_kv or the query rows n_q, at fixed M.

For a kernel design note: how far the best schedule attnio runs is from the best derived
lower bound as grouped-query heads share more (h_q / h_kv from 1, MHA, to h_q, MQA) or as
the query side grows from decode (n_q = 1) to prefill (n_q = n_kv). Both lines are read
from the catalog at each point by :func:`attnio.bounds.window.find_window`: the lower line
is the largest ``derived`` lower bound that applies there (the compulsory I/O of
``shape-compulsory.md`` or the sharp bounds of ``shape-lower.md``), the upper line the least
``derived`` exact count of the shape schedules (``gqa-row-streaming-*``,
``split-kv-decode-*``, ``gqa-output-stationary-*``, ``gqa-flash2-*``, ``gqa-flash-*``,
``gqa-two-sweep-backward-count``, ``gqa-score-panel-forward-count`` and any other count
record written in the shape's sizes). The lower bound is read at M + c, c the red
pebbles beyond M of that count's pebbling (:func:`attnio.bounds.window.lower_for`), as
``attnio gap`` reads it. The same data gives the figure (:func:`attnio.figures.draw`)
and a table (:func:`shape_table`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from attnio.bounds.window import find_window, lower_for, numeric

from .errors import FigureError
from .figure import IOFigure, Series

AXES = ("group", "n_q")
"""What a shape figure sweeps: the group size g = h_q / h_kv (every divisor of h_q), or
the query rows n_q (powers of two from 1 to n_kv)."""

BEST_COUNT = "Best schedule count"
BEST_LOWER = "Best derived lower bound"


def shape_points(axis: str, point: Mapping[str, int]) -> list[tuple[int, dict[str, int]]]:
    """The swept points: (x, the point at x) for ``axis`` around ``point``.

    ``point`` holds ``n_q``, ``n_kv``, ``h_q``, ``h_kv``, ``d``, ``M``; the swept size is
    replaced (``group``: h_kv = h_q / g for each divisor g of h_q; ``n_q``: 1, 2, 4, ...
    up to n_kv, and n_kv itself).

    Raises
    ------
    FigureError
        ``axis`` is not one of :data:`AXES`.

    Examples
    --------
    >>> [x for x, _ in shape_points("group", {"n_q": 1, "n_kv": 8, "h_q": 4, "h_kv": 1,
    ...                                       "d": 2, "M": 64})]
    [1, 2, 4]
    """
    if axis not in AXES:
        raise FigureError(f"axis={axis!r} is not one of: {', '.join(AXES)}")
    if axis == "group":
        heads = point["h_q"]
        return [(g, {**point, "h_kv": heads // g}) for g in range(1, heads + 1) if heads % g == 0]
    sizes = sorted({2**k for k in range(point["n_kv"].bit_length()) if 2**k <= point["n_kv"]}
                   | {point["n_kv"]})  # fmt: skip
    return [(n, {**point, "n_q": n}) for n in sizes]


def shape_rows(pass_: str, axis: str, point: Mapping[str, int]) -> list[dict[str, object]]:
    """Per swept point: x, the best derived lower bound and its record (at M + c of the best
    count's pebbling, at M where no count applies), the best count and its record and
    algorithm, and their ratio (None where a side does not apply)."""
    rows = []
    for x, at in shape_points(axis, point):
        window = find_window("dense", pass_, at)
        lower, upper = window.lower, window.upper
        if upper is not None:
            lower, _ = lower_for(upper, "dense", pass_, at)
        row: dict[str, object] = {"x": x, "point": at, "lower": None, "lower_record": None,
                                  "upper": None, "upper_record": None, "algorithm": None,
                                  "ratio": None}  # fmt: skip
        if lower is not None and lower.value.is_positive:
            row.update(lower=float(numeric(lower.value)), lower_record=lower.record)
        if upper is not None:
            row.update(upper=float(numeric(upper.value)), upper_record=upper.record,
                       algorithm=upper.algorithm)  # fmt: skip
        if row["lower"] and row["upper"]:
            row["ratio"] = float(numeric(upper.value / lower.value))
        rows.append(row)
    return rows


_SETTING = {"group": ("n_q", "n_kv", "h_q", "d", "M"), "n_q": ("n_kv", "h_q", "h_kv", "d", "M")}
_TEX = {"n_q": "n_q", "n_kv": "n_{kv}", "h_q": "h_q", "h_kv": "h_{kv}", "d": "d", "M": "M"}


def setting_text(axis: str, point: Mapping[str, int]) -> str:
    """The fixed sizes of a shape figure, as math: ``$n_q = 1,\\ n_{kv} = 65536, ...$``."""
    return "$" + r",\ ".join(f"{_TEX[k]} = {point[k]}" for k in _SETTING[axis]) + "$"


def shape_figure(pass_: str, axis: str, point: Mapping[str, int]) -> IOFigure:
    """The figure of :func:`shape_rows`: the best count (solid line) and the best derived
    lower bound (grey line, with the record attaining it at each point) against ``axis``.

    Raises
    ------
    FigureError
        A bad axis, or no point where both lines apply.
    """
    rows = shape_rows(pass_, axis, point)
    xs = tuple(int(row["x"]) for row in rows)

    def values(key: str) -> tuple[float, ...]:
        return tuple(math.nan if row[key] is None else float(row[key]) for row in rows)

    if all(row["ratio"] is None for row in rows):
        raise FigureError(
            f"no point of the {axis} sweep has both a derived lower bound and a count"
        )
    attained = tuple(row["lower_record"] for row in rows)
    series = (
        Series(BEST_COUNT, "closed", xs, values("upper"), "best", None),
        Series(BEST_LOWER, "lower", xs, values("lower"), attained=attained),
    )
    notes = ("The solid line is at each point the least exact count of attnio's schedules "
             "that apply there (which one, in the table).",)  # fmt: skip
    return IOFigure(pass_, 0, point["d"], series, subject=f"attention's {pass_} pass",
                    notes=notes, axis=axis, setting=setting_text(axis, point))  # fmt: skip


_HEADER = {"group": ("$h_q / h_{kv}$", "g"), "n_q": ("$n_q$", "n_q")}


def shape_table(pass_: str, axis: str, point: Mapping[str, int], fmt: str = "markdown") -> str:
    """The rows of :func:`shape_rows` as a Markdown table or a LaTeX booktabs ``tabular``
    (``fmt`` ``markdown`` or ``latex``; needs ``\\usepackage{booktabs}``).

    Raises
    ------
    FigureError
        ``fmt`` is not ``markdown`` or ``latex``.
    """
    if fmt not in ("markdown", "latex"):
        raise FigureError(f"fmt={fmt!r} is not one of: markdown, latex")
    rows = shape_rows(pass_, axis, point)

    def number(value: object) -> str:
        return "--" if value is None else f"{value:.4g}"

    def code(value: object) -> str:
        if value is None:
            return "--"
        return f"`{value}`" if fmt == "markdown" else r"\texttt{" + str(value) + "}"

    cells = [(str(row["x"]), number(row["lower"]), code(row["lower_record"]),
              number(row["upper"]), code(row["upper_record"]), number(row["ratio"]))
             for row in rows]  # fmt: skip
    head = _HEADER[axis][fmt == "markdown"]
    titles = (head, "best lower", "record", "best count", "record", "ratio")
    if fmt == "markdown":
        lines = ["| " + " | ".join(titles) + " |", "|" + "---|" * len(titles)]
        lines += ["| " + " | ".join(row) + " |" for row in cells]
        return "\n".join(lines) + "\n"
    setting = setting_text(axis, point)
    lines = [
        f"% attention {pass_} I/O against {axis} at {setting}",
        r"\begin{tabular}{rrlrlr}",
        r"\toprule",
        " & ".join(titles) + r" \\",
        r"\midrule",
        *(" & ".join(row) + r" \\" for row in cells),
        r"\bottomrule",
        r"\end{tabular}",
    ]
    return "\n".join(lines) + "\n"  # record names have no character LaTeX needs escaped
