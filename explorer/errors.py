"""Errors of :mod:`attnio.explorer`; each subclasses a builtin and names the bad value.

- :class:`ExplorerError` (``ValueError``): base class.
- :class:`RequestError`: a request from the page that is malformed or out of range.
- :class:`TooLargeToDrawError`: a DAG with more vertices than the page can draw.
- :class:`NotebookMissingError` (``ImportError``): the notebook widget needs anywidget.
"""

from __future__ import annotations

__all__ = ["ExplorerError", "NotebookMissingError", "RequestError", "TooLargeToDrawError"]


class ExplorerError(ValueError):
    """Base class of the explorer's errors about bad input."""


class RequestError(ExplorerError):
    """A request to the explorer's API is malformed or outside its limits."""


class TooLargeToDrawError(ExplorerError):
    """The DAG has more vertices than the explorer draws."""

    def __init__(self, vertices: int, limit: int) -> None:
        self.vertices = vertices
        self.limit = limit
        super().__init__(
            f"the DAG has {vertices} vertices; attnio explore draws at most {limit} "
            f"(choose smaller n, d, or pebble it with 'attnio pebble')"
        )


class NotebookMissingError(ImportError):
    """``attnio.explore`` needs the optional ``anywidget`` package."""

    def __init__(self) -> None:
        super().__init__(
            "attnio.explore needs the notebook extra: pip install 'attnio[notebook]' "
            "(it installs anywidget)"
        )
