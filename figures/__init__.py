"""Publication figures: I/O against M for algorithms, pebblings and bounds; I/O of shapes
against the group size or the query rows at fixed M (:mod:`.shapes`).

``attnio.figures`` owns the plots: :mod:`.figure` holds what one figure shows and how each
series is drawn and described (its caption); :mod:`.data` collects it from the catalog,
the two-level machine and the pebble game; :mod:`.draw` draws it at paper sizes and saves
PDF, PNG or SVG deterministically. It reads the core packages; none of them
imports it. matplotlib is imported only when a figure is drawn.
"""

from .data import algorithm_figure, pebbling_figure, sweep_figure
from .draw import WIDTHS, draw, save
from .errors import FigureError
from .figure import LINE_STYLES, IOFigure, Series, caption, details, styles
from .masks import mask_figure
from .shapes import shape_figure, shape_table

__all__ = [
    "LINE_STYLES",
    "WIDTHS",
    "FigureError",
    "IOFigure",
    "Series",
    "algorithm_figure",
    "caption",
    "details",
    "draw",
    "mask_figure",
    "pebbling_figure",
    "save",
    "shape_figure",
    "shape_table",
    "styles",
    "sweep_figure",
]
