"""Draw an :class:`~attnio.figures.data.IOFigure` for a paper and save it deterministically.

Widths follow the common article layouts: 3.3 in for one column, 7 in across two. Text is
set in Computer Modern (matplotlib's bundled cm fonts, math in mathtext) at the size of a
caption, lines are thin, the legend sits below the axes in as many columns as fit, and
what is not drawn is said in the caption (:meth:`IOFigure.caption`), never silently.
Saved files carry no date or software version, so the same data gives the same bytes.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager

from .data import IOFigure
from .errors import FigureError

WIDTHS = {"one": 3.3, "two": 7.0}
"""Figure width in inches: one column of a two-column article, or the full text width."""

HEIGHTS = {"one": 2.6, "two": 2.9}

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

_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
"""Okabe-Ito colours, distinguishable in colour-blind vision and in greyscale by marker."""
_MARKERS = ("o", "s", "^", "D", "v", "P")
_DASHES = ((0, (4, 2)), (0, (1.5, 1.5)), (0, (6, 2, 1.5, 2)), (0, (3, 1, 1, 1)))
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
    """Return a matplotlib Figure of ``data``, ``width`` ``"one"`` (3.3 in) or ``"two"`` (7 in).

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
        legend = fig.legend(handles, labels, loc="outside lower center", ncols=columns,
                            title=title if data.omitted else None,
                            title_fontsize=6.5)  # fmt: skip
        legend.get_title().set_fontstyle("italic")
        plt.close(fig)
    return fig


def _plot(ax, data: IOFigure) -> None:
    groups = list(dict.fromkeys(s.group for s in data.series if s.kind in ("closed", "measured")))
    colour = {g: _COLOURS[k % len(_COLOURS)] for k, g in enumerate(groups)}
    marker = {g: _MARKERS[k % len(_MARKERS)] for k, g in enumerate(groups)}
    dashes = iter(_DASHES)
    has_line = {s.group for s in data.series if s.kind == "closed"}
    has_points = {s.group for s in data.series if s.kind == "measured"}
    for s in data.series:
        xs, ys = list(s.memories), list(s.values)
        if s.kind == "closed":
            ax.plot(xs, ys, color=colour[s.group], gid=s.record,
                    label=None if s.group in has_points else s.label)  # fmt: skip
        elif s.kind == "measured":
            ax.plot(xs, ys, ls="none", marker=marker[s.group], mfc="white",
                    mec=colour[s.group], mew=0.8, color=colour[s.group])  # fmt: skip
            # One legend entry per algorithm: its line with its marker.
            ax.plot([], [], color=colour[s.group] if s.group in has_line else "none",
                    marker=marker[s.group], mfc="white", mec=colour[s.group], mew=0.8,
                    label=s.label)  # fmt: skip
        elif s.kind == "lower":
            ax.plot(xs, ys, color="0.35", lw=0.9, ls=next(dashes, "--"), label=s.label,
                    gid=s.record)  # fmt: skip
        elif s.kind == "exact":
            ax.plot(xs, ys, ls="-", lw=0.8, marker="o", color="black", label=s.label)
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
                ecolor="black",
                elinewidth=0.8,
                capsize=2.5,
                label=s.label,
            )
        elif s.kind == "heuristic":
            ax.plot(xs, ys, ls=":", lw=0.8, marker="s", mfc="white", color=_COLOURS[1],
                    label=s.label)  # fmt: skip
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
    ax.set_xlabel(r"fast memory $M$ (words)")
    ax.set_ylabel(r"I/O $Q$ (words)")
    ax.text(0.98, 0.97, rf"$n = {data.n},\ d = {data.d}$", transform=ax.transAxes,
            ha="right", va="top", fontsize=7)  # fmt: skip
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
