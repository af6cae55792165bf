"""Exceptions raised by :mod:`attnio.figures`; each subclasses ``ValueError``."""

from __future__ import annotations


class FigureError(ValueError):
    """A figure was asked for with arguments it cannot draw (an unknown width, algorithm, file type)."""
