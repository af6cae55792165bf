"""The self-contained explorer file: every reply the page can ask for, computed beforehand.

For each chosen M the file holds every method's pebbling and the catalog's bounds; it
also holds the IO(M) curve over the chosen range, widened to at least
:data:`CURVE_MIN_POINTS` memory sizes (as far as the DAG allows) so that a file written
for one M still shows how IO falls with M. A request the file was not written
for is answered with a message pointing to ``attnio explore``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .api import answer, request_key
from .instance import Instance
from .page import standalone_page

__all__ = ["CURVE_MIN_POINTS", "curve_range", "offline_page"]

CURVE_MIN_POINTS = 8
"""Fewest memory sizes the self-contained file's IO(M) curve spans (when the DAG has them)."""


def curve_range(instance: Instance, Ms: Sequence[int]) -> tuple[int, int]:
    """The IO(M) curve's range for the file: the chosen Ms' range, extended upwards (then
    downwards) to :data:`CURVE_MIN_POINTS` sizes within ``min_memory .. max_memory``."""
    low, high = min(Ms), max(Ms)
    wanted = min(CURVE_MIN_POINTS, instance.max_memory - instance.dag.min_memory + 1)
    high = min(instance.max_memory, max(high, low + wanted - 1))
    low = max(instance.dag.min_memory, min(low, high - wanted + 1))
    return low, high


def offline_page(instance: Instance, Ms: Sequence[int], variant: str = "standard") -> str:
    """Return the self-contained HTML page for ``instance`` at the memory sizes ``Ms``.

    Parameters
    ----------
    instance : Instance
        What to explore.
    Ms : sequence of int
        The memory sizes offered (the first is shown first); the curve spans their range,
        widened by :func:`curve_range`.
    variant : str
        The game variant the page shows.
    """
    Ms = sorted({instance.check_memory(M) for M in Ms}, key=list(Ms).index)
    replies: dict[str, object] = {}

    def ask(request: dict[str, object]) -> None:
        replies[request_key(request)] = answer(instance, request)

    for M in Ms:
        ask({"kind": "bounds", "M": M})
        for method in instance.methods():
            ask({"kind": "solve", "M": M, "variant": variant, "method": method})
    low, high = curve_range(instance, Ms)
    ask({"kind": "curve", "variant": variant, "low": low, "high": high})
    if instance.moves is not None:
        ask({"kind": "moves"})
    data = instance.describe(Ms[0], variant)
    data["precomputed"] = {"Ms": sorted(Ms), "curve": [low, high]}
    data["variants"] = [variant]
    return standalone_page(data, replies)
