"""Publication figures: I/O against M for algorithms, pebblings and bounds.

``attnio.figures`` owns the plots: :mod:`.data` collects what a figure shows from the
catalog, the two-level machine and the pebble game; :mod:`.draw` draws it at paper sizes
and saves PDF, PNG or SVG deterministically. It reads the core packages; none of them
imports it. matplotlib is imported only when a figure is drawn.
"""

from .data import IOFigure, Series, algorithm_figure, pebbling_figure, sweep_figure
from .draw import WIDTHS, draw, save
from .errors import FigureError

__all__ = [
    "WIDTHS",
    "FigureError",
    "IOFigure",
    "Series",
    "algorithm_figure",
    "draw",
    "pebbling_figure",
    "save",
    "sweep_figure",
]
