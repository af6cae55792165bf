"""I/O of masked attention against M: the mask's schedules and its best derived lower bound.

The masked counterpart of :func:`attnio.figures.data.algorithm_figure`: for one mask (a
family with its width, at size n), the exact closed form of every ``derived`` count that
applies at each M (solid lines, read by :func:`attnio.bounds.window.find_window` with the
mask's Z and w, as ``attnio gap --regime sparse`` and ``attnio table --tightness --mask``
read them), the two-level machine's counts of the same schedules on the mask (markers), and
the best derived lower bound as one grey line: at each M the largest ``derived`` lower
bound that applies to the mask there (:attr:`attnio.bounds.window.Window.lower`: the
compulsory I/O, and for the causal mask its bounds over the Z allowed pairs), with the
record attaining it. The line is read at M, as the dense figure's is; the tightness table
reads it at M + c of each schedule.
"""

from __future__ import annotations

import math

from attnio.bounds import get
from attnio.bounds.labels import label
from attnio.bounds.masks import Mask
from attnio.bounds.window import find_window, numeric

from .data import BEST_LOWER, memory_grid
from .errors import FigureError
from .figure import IOFigure, Series


def mask_lines(
    mask: Mask, pass_: str, d: int, memories: list[int]
) -> tuple[dict[str, list[float]], dict[str, str], Series]:
    """Per schedule (algorithm) its count at each M (nan where it does not run), its count
    record, and the best derived lower bound at each M as one series.

    Examples
    --------
    >>> from attnio.bounds.masks import make_mask
    >>> counts, records, lower = mask_lines(make_mask("causal", 64), "forward", 4, [8, 64])
    >>> sorted(records), lower.attained
    (['causal-flash2', 'causal-row-streaming'], ('causal-forward-lower-small-shared', \
'causal-forward-lower-large-sharp'))
    """
    counts: dict[str, list[float]] = {}
    records: dict[str, str] = {}
    best, attained = [], []
    for k, memory in enumerate(memories):
        point = {"n": mask.n, "d": d, "M": memory, **mask.point()}
        window = find_window("sparse", pass_, point, mask=mask.family.name)
        for count in window.counts:
            records.setdefault(count.algorithm, count.record)
            line = counts.setdefault(count.algorithm, [math.nan] * len(memories))
            line[k] = float(numeric(count.value))
        lower = window.lower
        positive = lower is not None and lower.value.is_positive
        best.append(float(numeric(lower.value)) if positive else math.nan)
        attained.append(lower.record if positive else None)
    series = Series(BEST_LOWER, "lower", tuple(memories), tuple(best), "best", None,
                    attained=tuple(attained))  # fmt: skip
    return counts, records, series


def mask_figure(
    mask: Mask,
    pass_: str,
    d: int,
    lo: int,
    hi: int,
    points: int = 12,
    measured: bool = True,
) -> IOFigure:
    """The masked schedules' closed forms (dense grid) and machine counts (``points`` Ms)
    against M, with the mask's best derived lower bound as one line.

    Raises
    ------
    FigureError
        A bad pass or range, or no schedule of the mask runs anywhere in ``lo..hi``.
    """
    from attnio.algorithms import simulate
    from attnio.algorithms.errors import MemoryTooSmallError

    if pass_ not in ("forward", "backward"):
        raise FigureError(f"pass={pass_!r} is not one of: forward, backward")
    line_grid, marker_grid = memory_grid(lo, hi, 160), memory_grid(lo, hi, points)
    counts, records, lower = mask_lines(mask, pass_, d, line_grid)
    if not counts:
        raise FigureError(
            f"no derived count of a schedule of the {mask.spec} mask applies for M in "
            f"{lo}..{hi} (n={mask.n}, d={d}): M is too small, or the family has no counted "
            "schedule (causal, window and band have)"
        )
    series: list[Series] = []
    for algorithm, values in counts.items():
        name = label(get(records[algorithm])).removesuffix(", exact")
        series.append(Series(name, "closed", tuple(line_grid), tuple(values), algorithm,
                             records[algorithm]))  # fmt: skip
        if measured:
            found = []
            for memory in marker_grid:
                try:
                    run = simulate(algorithm, pass_, mask.n, d, memory, numeric=False, mask=mask)
                except MemoryTooSmallError:
                    found.append(math.nan)
                    continue
                found.append(float(run.counts.io))
            series.append(Series(name, "measured", tuple(marker_grid), tuple(found), algorithm))
    series.append(lower)
    notes = [f"Mask {mask.spec}, $Z = {mask.pairs()}$ allowed pairs: the counts and lower "
             "bounds that apply to it."]  # fmt: skip
    if all(name is None or name.endswith("-compulsory") for name in lower.attained or ()):
        notes.append("The only derived lower bound for this mask is the compulsory I/O, so the "
                     "gap to it bounds how far a schedule is from optimal and does not "
                     "measure it.")  # fmt: skip
    return IOFigure(pass_, mask.n, d, tuple(series), None, (),
                    subject=f"masked attention's {pass_} pass", notes=tuple(notes))  # fmt: skip


__all__ = ["mask_figure", "mask_lines"]
