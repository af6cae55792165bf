"""What one I/O-against-M figure shows, and how each of its series is drawn and described.

:class:`IOFigure` holds the series (:mod:`.data` collects them from the catalog, the
two-level machine and the pebble game); :func:`styles` gives each series its colour, line
and marker, and :func:`caption` describes the figure from those same styles, so that what
:mod:`.draw` draws and what the caption says cannot drift apart. No matplotlib here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .errors import FigureError

KINDS = ("closed", "measured", "lower", "exact", "exact-bounds", "heuristic")
"""What a series is: an exact closed form, a machine count, an explicit lower bound, a
proven pebbling optimum, the proven bounds of an unfinished exact search, a heuristic
pebbling. How each is drawn is :func:`styles`."""


@dataclass(frozen=True)
class Series:
    """One drawn series: a reader's label, its kind, and values at memory sizes.

    ``values`` holds ``nan`` where nothing is drawn; ``low`` holds the lower ends of
    ``exact-bounds`` error bars. ``group`` ties a closed form to its measured points (one
    colour); ``record`` names the catalog record the values come from, if any.
    """

    label: str
    kind: str
    memories: tuple[int, ...]
    values: tuple[float, ...]
    group: str = ""
    record: str | None = None
    low: tuple[float, ...] | None = None
    attained: tuple[str | None, ...] | None = None
    """For the best derived lower bound: the record whose value it is at each M."""


@dataclass(frozen=True)
class IOFigure:
    """Everything one I/O-against-M figure shows, and what its caption must say."""

    pass_: str
    n: int
    d: int
    series: tuple[Series, ...]
    crossover: float | None = None
    omitted: tuple[str, ...] = ()
    subject: str = ""
    log: bool = True
    notes: tuple[str, ...] = field(default=())
    axis: str = "M"
    """What the x values (``Series.memories``) are: ``M``, or for a shape figure
    (:mod:`.shapes`) the group size ``group`` or the query rows ``n_q``."""
    setting: str = ""
    """The fixed sizes, as math, when ``axis`` is not ``M`` (``n`` and ``d`` otherwise)."""

    def caption(self) -> str:
        """Return a caption a paper can use as it is (plain text with $...$ math), written
        from the styles the figure is drawn with (:func:`caption`)."""
        return caption(self)


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


AXIS_WORDS = {
    "M": "the fast-memory size $M$",
    "group": "the group size $h_q / h_{kv}$ (query heads per key/value head)",
    "n_q": "the query rows $n_q$ (decode to prefill)",
}
"""How a caption names each x axis."""
AXIS_LABELS = {
    "M": r"fast memory $M$ (words)",
    "group": r"group size $h_q / h_{kv}$",
    "n_q": r"query rows $n_q$",
}
"""Each x axis's label."""


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
    if data.axis == "M":
        parts = [f"I/O of {data.subject or 'attention'} against the fast-memory size $M$ "
                 f"($n = {data.n}$, $d = {data.d}$)."]  # fmt: skip
    else:
        parts = [f"I/O of {data.subject or 'attention'} against {AXIS_WORDS[data.axis]} "
                 f"({data.setting})."]  # fmt: skip
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
            f"{st.words}, {s.label}"
            + (_BEST_WORDS.replace("each $M$", _EACH[data.axis]) if s.attained is not None else "")
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


_EACH = {"M": "each $M$", "group": "each group size", "n_q": "each $n_q$"}
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
