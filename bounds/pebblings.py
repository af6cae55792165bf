"""The red pebbles each schedule's run needs as a pebbling of its own graph, beyond M.

A run of a schedule on the two-level machine with M words replays as a pebbling of the
graph it computes (``attnio.algorithms.trace``, ``docs/notation.md#schedules-as-pebblings``)
with M + c red pebbles, c the values the machine keeps in uncharged registers: the scratch
of a summation and the rescale factors of online softmax. Such a pebbling moves at least
the optimum IO(G, M + c), so a schedule's count at M is compared with a lower bound read
at M + c, never at M: ``attnio gap`` and the tightness table's ratios read
:func:`extra_red`. This table is the one place c is typed; ``attnio.pebble.classes.COVERAGE``
reads it for its evidence, and ``tests/test_trace.py`` replays every run with M + c red
pebbles and checks that c is the most its runs needed (attained), at the sizes it lists: a
measured value, not proved for all sizes.

References
----------
HK81 (the red-blue pebble game); tests/test_trace.py (the measurements).
"""

from __future__ import annotations

EXTRA_RED: dict[tuple[str, str], int | None] = {
    ("row-streaming", "forward"): 0,
    ("flash2", "forward"): 3,
    ("flash", "forward"): 6,
    ("square-tiling", "forward"): 2,
    ("output-stationary", "forward"): 0,
    ("standard", "forward"): 4,
    ("score-panel", "forward"): 4,
    ("row-streaming", "backward"): 2,
    ("flash2", "backward"): 2,
    ("flash", "backward"): 2,
    ("standard", "backward"): 2,
    ("tiled-backward", "backward"): 2,
    ("output-stationary", "backward"): 0,
    ("two-sweep", "backward"): 3,
    ("causal-row-streaming", "forward"): 0,
    ("causal-row-streaming", "backward"): 2,
    ("window-row-streaming", "forward"): 0,
    ("window-row-streaming", "backward"): 2,
    ("causal-flash2", "forward"): 3,
    ("causal-flash2", "backward"): 2,
    ("window-sliding", "forward"): 2,
    ("window-sliding", "backward"): 2,
    ("band-sliding", "forward"): 2,
    ("band-sliding", "backward"): 2,
    ("gqa-row-streaming", "forward"): 0,
    ("gqa-row-streaming", "backward"): 2,
    ("split-kv-decode", "forward"): 0,
    ("split-kv-decode", "backward"): 2,
    ("gqa-output-stationary", "forward"): 0,
    ("gqa-output-stationary", "backward"): 0,
    ("gqa-flash2", "forward"): 4,
    ("gqa-flash2", "backward"): 2,
    ("gqa-flash", "forward"): 5,
    ("gqa-flash", "backward"): 2,
    ("gqa-two-sweep", "backward"): 3,
    ("gqa-score-panel", "forward"): 4,
    ("block-sparse-flash", "forward"): 5,
    ("block-sparse-flash", "backward"): 2,
    ("sparse-square-tiling", "forward"): 2,
    ("sparse-square-tiling", "backward"): 2,
    ("low-rank", "forward"): 2,
    ("low-rank", "backward"): 0,
    ("low-rank-columns", "forward"): 1,
    ("low-rank-columns", "backward"): 0,
}
"""(algorithm, pass) -> c: the red pebbles beyond M its run's pebbling needs, the most
``tests/test_trace.py`` measured (max(0, peak - M) over its runs, attained), or None
where a run exports no pebbling (every schedule exports one now). The algorithms are those of the count
records (``algorithm`` field)."""


def extra_red(algorithm: str | None, pass_: str) -> int | None:
    """c of :data:`EXTRA_RED` for a count's algorithm and pass (None: none recorded).

    Examples
    --------
    >>> extra_red("flash2", "forward"), extra_red("low-rank-columns", "backward")
    (3, 0)
    >>> extra_red(None, "forward") is None
    True
    """
    return EXTRA_RED.get((algorithm, pass_)) if algorithm is not None else None


def red_pebbles(extra: int) -> str:
    """The red pebbles of a pebbling with ``extra`` beyond M, in words.

    Examples
    --------
    >>> red_pebbles(0), red_pebbles(4)
    ('M red pebbles', 'M + 4 red pebbles')
    """
    return "M red pebbles" if extra == 0 else f"M + {extra} red pebbles"


def read_at(point: dict[str, int], extra: int | None) -> dict[str, int]:
    """``point`` with M raised by ``extra`` red pebbles (unchanged when ``extra`` is None):
    where a lower bound is read against a schedule whose pebbling needs M + c.

    Examples
    --------
    >>> read_at({"n": 8, "d": 2, "M": 40}, 4)
    {'n': 8, 'd': 2, 'M': 44}
    """
    return dict(point) if not extra else {**point, "M": point["M"] + extra}


__all__ = ["EXTRA_RED", "extra_red", "read_at", "red_pebbles"]
