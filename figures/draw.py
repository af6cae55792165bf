"""Draw an :class:`~attnio.figures.data.IOFigure` for a paper and save it deterministically.

Widths fit LaTeX's default two-column article: 3.05 in for one column, 6.25 in across two. Text is
set in Computer Modern (matplotlib's bundled cm fonts, math in mathtext) at the size of a
caption, lines are thin, the legend sits below the axes in as many columns as fit, and
what is not drawn is said in the caption (:func:`caption`, written from the same
style table the drawing uses), never silently.
Saved files carry no date or software version, so the same data gives the same bytes.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import FigureError

if TYPE_CHECKING:  # data imports this module for captions; no cycle at run time
    from .data import IOFigure

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

_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
"""Okabe-Ito colours, distinguishable in colour-blind vision and in greyscale by marker."""
_COLOUR_NAMES = ("blue", "vermilion", "green", "purple", "orange", "sky blue")
_MARKERS = ("o", "s", "^", "D", "v", "P")
_MARKER_NAMES = ("circles", "squares", "triangles", "diamonds", "down triangles", "plus signs")
LINE_STYLES: tuple[tuple[str, object], ...] = (
    ("dashed", (0, (4, 2))),
    ("dotted", (0, (1, 1.5))),
    ("dash-dotted", (0, (6, 2, 1.5, 2))),
    ("long-dashed", (0, (9, 3))),
    ("dash-dot-dotted", (0, (6, 1.5, 1.5, 1.5, 1.5, 1.5))),
)
"""The lower bounds' grey line styles, in the order they are given out, with the word the
caption uses for each (a figure shows at most this many lower bounds)."""
_LOWER_GREY = "0.35"
_METADATA = {
    ".pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": "attnio"},
    ".png": {"Software": None},
    ".svg": {"Date": None, "Creator": "attnio"},
}


@dataclass(frozen=True)
class Style:
    """How one series is drawn, and the words a caption uses for it."""

    words: str
    colour: str = "black"
    linestyle: object = "-"
    marker: str | None = None
    filled: bool = True


def styles(data: IOFigure) -> list[Style]:
    """Return the style of each of ``data.series``, in order: what :func:`draw` draws and
    what :func:`caption` describes.

    Raises
    ------
    FigureError
        If the figure holds more lower bounds than there are line styles.
    """
    groups = list(dict.fromkeys(s.group for s in data.series if s.kind in ("closed", "measured")))
    colour = {g: k % len(_COLOURS) for k, g in enumerate(groups)}
    marker = {g: k % len(_MARKERS) for k, g in enumerate(groups)}
    lowers = list(dict.fromkeys(s.group or s.label for s in data.series if s.kind == "lower"))
    if len(lowers) > len(LINE_STYLES):
        raise FigureError(
            f"a figure draws at most {len(LINE_STYLES)} lower bounds (records of one name on "
            f"both sides of M = d^2 count once); this one has {len(lowers)}"
        )
    out = []
    for s in data.series:
        if s.kind == "closed":
            k = colour[s.group]
            out.append(Style(f"solid {_COLOUR_NAMES[k]} line", _COLOURS[k]))
        elif s.kind == "measured":
            k, m = colour[s.group], marker[s.group]
            out.append(Style(f"open {_COLOUR_NAMES[k]} {_MARKER_NAMES[m]}", _COLOURS[k], "none",
                             _MARKERS[m], filled=False))  # fmt: skip
        elif s.kind == "lower":  # one style per group: a bound's records in both caches
            word, pattern = LINE_STYLES[lowers.index(s.group or s.label)]
            out.append(Style(f"grey {word} line", _LOWER_GREY, pattern))
        elif s.kind == "exact":
            out.append(Style("black filled circles on a solid line", "black", "-", "o"))
        elif s.kind == "exact-bounds":
            out.append(Style("black error bars", "black", "none"))
        elif s.kind == "heuristic":
            out.append(Style(f"open {_COLOUR_NAMES[1]} squares on a dotted line", _COLOURS[1],
                             (0, (1, 1.5)), "s", filled=False))  # fmt: skip
        else:  # pragma: no cover - KINDS is closed
            raise FigureError(f"series kind {s.kind!r} has no drawing style")
    return out


def caption(data: IOFigure) -> str:
    """Return the caption of ``data`` as drawn (plain text with $...$ math): each style is
    described from :func:`styles`, the same table :func:`draw` draws with."""
    drawn = [(s, st) for s, st in zip(data.series, styles(data), strict=True) if _visible(s)]
    parts = [f"I/O of {data.subject or 'attention'} against the fast-memory size $M$ "
             f"($n = {data.n}$, $d = {data.d}$)."]  # fmt: skip
    closed = [f"{_COLOUR_NAMES[_COLOURS.index(st.colour)]}, {s.label}"
              for s, st in drawn if s.kind == "closed"]  # fmt: skip
    measured = [f"{st.words.removeprefix('open ')}, {s.label}"
                for s, st in drawn if s.kind == "measured"]  # fmt: skip
    if closed:
        parts.append("Solid lines, the exact closed-form I/O of each schedule: "
                     + "; ".join(closed) + ".")  # fmt: skip
    if measured:
        parts.append("Open markers, the words moved as counted on the two-level machine: "
                     + "; ".join(measured) + ".")  # fmt: skip
    for s, st in drawn:
        if s.kind == "exact":
            parts.append(f"{st.words.capitalize()}: the proven optimal pebbling cost.")
        elif s.kind == "exact-bounds":
            parts.append(
                f"{st.words.capitalize()}: proven bounds where the exact search stopped early."
            )
        elif s.kind == "heuristic":
            parts.append(f"{st.words.capitalize()}: {s.label}, a heuristic pebbling's cost "
                         "(an upper bound on the optimum).")  # fmt: skip
    lower = list(
        dict.fromkeys(
            f"{st.words}, {s.label}" + (_BEST_WORDS if s.attained is not None else "")
            for s, st in drawn
            if s.kind == "lower"
        )
    )
    if lower:
        parts.append("Lower bounds: " + "; ".join(lower) + ".")
    if data.crossover is not None:
        parts.append(
            "Thin grey dotted vertical line: the crossover $M = d^2$ of the optimal "
            "bound's branches."
        )
    if any(s.kind == "lower" and "dagger" in s.label for s, _ in drawn):
        parts.append(r"$^\dagger$ reconstructed, unverified.")
    parts.extend(data.notes)
    if data.omitted:
        parts.append("Some named bounds are not drawn everywhere (see the details).")
    return " ".join(parts)


_BEST_WORDS = (
    " (at each $M$ the largest of attnio's derived lower bounds that hold there; "
    "which one, in the details)"
)


def details(data: IOFigure) -> str:
    """The long part of a caption, for a side file or ``--verbose``: which record attains
    the best derived lower bound over which range of M, and what is not drawn where."""
    lines = []
    for series in data.series:
        if series.attained is None:
            continue
        runs: list[list] = []
        for memory, name in zip(series.memories, series.attained, strict=True):
            if name is None:
                continue
            if runs and runs[-1][2] == name:
                runs[-1][1] = memory
            else:
                runs.append([memory, memory, name])
        for first, last, name in runs:
            lines.append(f"{series.label}, M = {first}..{last}: {name}")
    lines += [f"Not drawn: {note}" for note in data.omitted]
    return "\n".join(lines)


def _visible(series) -> bool:
    values = list(series.values) + list(series.low or ())
    return any(not math.isnan(v) for v in values)


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
    ax.set_xlabel(r"fast memory $M$ (words)")
    ax.set_ylabel(r"I/O, $\mathit{IO}$ (words)")
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
