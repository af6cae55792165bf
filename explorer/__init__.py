"""Interactive exploration of small instances (``attnio explore``, notebook widget).

``attnio.explorer`` owns the front end (shipped as package data, no network), the
local server and the notebook widget. It reads the core packages; none of them
imports it.
"""

from .errors import ExplorerError, NotebookMissingError, RequestError, TooLargeToDrawError
from .instance import METHODS, Instance
from .layout import MAX_DRAW_VERTICES, layout
from .widget import explore

__all__ = [
    "MAX_DRAW_VERTICES",
    "METHODS",
    "ExplorerError",
    "Instance",
    "NotebookMissingError",
    "RequestError",
    "TooLargeToDrawError",
    "explore",
    "layout",
]
