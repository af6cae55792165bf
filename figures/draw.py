"""Draw an :class:`~attnio.figures.figure.IOFigure` for a paper and save it deterministically.

Widths fit LaTeX's default two-column article: 3.05 in for one column, 6.25 in across two. Text is
set in Computer Modern (matplotlib's bundled cm fonts, math in mathtext) at the size of a
caption, lines are thin, the legend sits below the axes in as many columns as fit, and
what is not drawn is said in the caption (:func:`attnio.figures.figure.caption`, written
from the same style table the drawing uses, :func:`attnio.figures.figure.styles`), never
silently.
Saved files carry no date or software version, so the same data gives the same bytes.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager

from .errors import FigureError
from .figure import AXIS_LABELS, IOFigure, styles

WIDTHS = {"one": 3.05, "two": 6.25}
"""Figure width in inches: one column of a two-column article, or across both columns.
They fit LaTeX's default ``\\documentclass[twocolumn]{article}`` on letter paper (a column
of 229.5 pt, text 469 pt) and on A4 (221 pt, 452 pt), and the wider templates of
conferences (3.25 to 3.5 in columns)."""

HEIGHTS = {"one": 2.5, "two": 2.7}

STYLE = {
    "font.family": "serif",
    "font.serif": ["cmr10"],
    "mathtext.fontset": "cm",
    "axes.formatter.use_mathtext": True,
    "axes.unicode_minus": False,
    "font.size": 8,
    "axes.labelsize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "axes.linewidth": 0.6,
    "lines.linewidth": 1.1,
    "lines.markersize": 3.5,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.minor.width": 0.4,
    "ytick.minor.width": 0.4,
    "legend.frameon": False,
    "legend.handlelength": 2.2,
    "text.hinting": "none",
    "svg.hashsalt": "attnio",
    "pdf.fonttype": 42,
    "savefig.dpi": 300,
}
"""matplotlib settings of every attnio figure."""

_METADATA = {
    ".pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": "attnio"},
    ".png": {"Software": None},
    ".svg": {"Date": None, "Creator": "attnio"},
}


@contextmanager
def _style() -> Iterator[None]:
    import matplotlib

    matplotlib.use("Agg")
    with matplotlib.rc_context(STYLE):
        yield


def draw(data: IOFigure, width: str = "one"):
    """Return a matplotlib Figure of ``data``, ``width`` ``"one"`` (3.05 in) or ``"two"`` (6.25 in).

    Raises
    ------
    FigureError
        If ``width`` is not one of :data:`WIDTHS`.
    """
    if width not in WIDTHS:
        raise FigureError(f"width={width!r} is not one of: {', '.join(WIDTHS)}")
    with _style():
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(WIDTHS[width], HEIGHTS[width]), layout="constrained")
        _plot(ax, data)
        handles, labels = ax.get_legend_handles_labels()
        columns = 2 if width == "one" else min(4, max(1, len(labels)))
        title = "bounds drawn only where they hold and exceed the compulsory I/O"
        axes_height = None
        while True:
            legend = fig.legend(handles, labels, loc="outside lower center", ncols=columns,
                                title=title if data.omitted else None,
                                title_fontsize=6.5)  # fmt: skip
            legend.get_title().set_fontstyle("italic")
            # Long labels in too many columns run past the figure's edge, and the saved
            # file cuts them off: fewer columns until the legend fits the width.
            fig.canvas.draw()
            if axes_height is None:
                axes_height = ax.get_window_extent().height
            if columns == 1 or legend_fits(fig, legend):
                break
            legend.remove()
            columns -= 1
        for _ in range(3):
            # The legend's extra rows come out of the axes unless the figure grows by them.
            short = axes_height - ax.get_window_extent().height
            if short < 1:
                break
            fig.set_figheight(fig.get_figheight() + short / fig.dpi)
            fig.canvas.draw()
        plt.close(fig)
    return fig


def legend_fits(fig, legend) -> bool:
    """Whether every text and handle of ``legend`` lies inside ``fig``'s width (its padding
    may reach past the edge: it is blank)."""
    boxes = [t.get_window_extent() for t in (*legend.get_texts(), legend.get_title())]
    boxes += [h.get_window_extent() for h in legend.legend_handles if h is not None]
    return all(0 <= box.x0 and box.x1 <= fig.bbox.width for box in boxes if box.width > 0)


def _plot(ax, data: IOFigure) -> None:
    has_line = {s.group for s in data.series if s.kind == "closed"}
    has_points = {s.group for s in data.series if s.kind == "measured"}
    line_of = {s.group: st for s, st in zip(data.series, styles(data), strict=True)
               if s.kind == "closed"}  # fmt: skip
    named: set[str] = set()
    for s, st in zip(data.series, styles(data), strict=True):
        xs, ys = list(s.memories), list(s.values)
        face = st.colour if st.filled else "white"
        gid = s.record or f"series-{s.kind}-{s.group}"
        if s.kind == "closed":
            ax.plot(xs, ys, color=st.colour, ls=st.linestyle, gid=gid,
                    label=None if s.group in has_points else s.label)  # fmt: skip
        elif s.kind == "measured":
            ax.plot(xs, ys, ls="none", marker=st.marker, mfc=face, mec=st.colour, mew=0.8,
                    color=st.colour, gid=gid)  # fmt: skip
            # One legend entry per algorithm: its line with its marker.
            joined = line_of[s.group].linestyle if s.group in has_line else "none"
            ax.plot([], [], color=st.colour, ls=joined, marker=st.marker, mfc=face,
                    mec=st.colour, mew=0.8, label=s.label)  # fmt: skip
        elif s.kind == "lower":  # one legend entry for the records of one group
            entry = s.label if (s.group or s.label) not in named else None
            named.add(s.group or s.label)
            ax.plot(xs, ys, color=st.colour, lw=0.9, ls=st.linestyle, label=entry, gid=gid)
        elif s.kind == "exact":
            ax.plot(xs, ys, ls=st.linestyle, lw=0.8, marker=st.marker, color=st.colour,
                    label=s.label, gid=gid)  # fmt: skip
        elif s.kind == "exact-bounds":
            bars = [
                (x, lo, hi)
                for x, hi, lo in zip(xs, ys, s.low or (), strict=True)
                if not math.isnan(hi)
            ]
            ax.errorbar(
                [x for x, _, _ in bars],
                [(lo + hi) / 2 for _, lo, hi in bars],
                yerr=[[(hi - lo) / 2 for _, lo, hi in bars]] * 2,
                fmt="none",
                ecolor=st.colour,
                elinewidth=0.8,
                capsize=2.5,
                label=s.label,
                gid=gid,
            )
        elif s.kind == "heuristic":
            ax.plot(xs, ys, ls=st.linestyle, lw=0.8, marker=st.marker, mfc=face,
                    color=st.colour, label=s.label, gid=gid)  # fmt: skip
    if data.log:
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        low, high = ax.get_ylim()
        ax.set_ylim(low, high * (high / low) ** 0.12)  # a free band on top for the labels
    else:
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_ylim(bottom=0)
    if data.crossover is not None:
        ax.axvline(data.crossover, color="0.5", lw=0.7, ls=":", gid="crossover")
        ax.annotate(r"$M = d^2$", (data.crossover, 1), xycoords=("data", "axes fraction"),
                    xytext=(2, -2), textcoords="offset points", ha="left", va="top",
                    fontsize=7, color="0.3")  # fmt: skip
    ax.set_xlabel(AXIS_LABELS[data.axis])
    ax.set_ylabel(r"I/O, $\mathit{IO}$ (words)")
    corner = data.setting if data.axis != "M" else rf"$n = {data.n},\ d = {data.d}$"
    ax.text(0.98, 0.97, corner, transform=ax.transAxes, ha="right", va="top", fontsize=7)
    ax.grid(True, which="major", lw=0.3, alpha=0.4)


def save(fig, path: str | os.PathLike[str]) -> None:
    """Write ``fig`` to ``path`` (.pdf, .png or .svg; PNG without a suffix), with no dates or version strings.

    Raises
    ------
    FigureError
        If the suffix is not one of .pdf, .png, .svg.
    """
    suffix = os.path.splitext(os.fspath(path))[1].lower() or ".png"
    if suffix not in _METADATA:
        raise FigureError(f"figure file {os.fspath(path)!r} must end in .pdf, .png or .svg")
    # fontTools logs a harmless note about the bundled cm fonts' old timestamps.
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    with _style():
        fig.savefig(path, format=suffix[1:], metadata=_METADATA[suffix])
