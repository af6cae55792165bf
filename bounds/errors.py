"""Exceptions raised by :mod:`attnio.bounds`.

Each subclasses a builtin so callers can catch the broad category, and each
message names the argument, its value and what would be valid.
"""

from __future__ import annotations


class BoundError(ValueError):
    """Base class of every error :mod:`attnio.bounds` raises on bad input."""


class BoundParameterError(BoundError):
    """A parameter passed to ``Bound.evaluate`` is missing, nonpositive or outside the bound's conditions."""


ParameterError = BoundParameterError
"""The former name, kept for callers that import it."""


class UnknownBoundError(BoundError, KeyError):
    """No bound of the catalog carries the requested name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class FilterError(BoundError):
    """A catalog filter (regime, pass, cache, kind, status) has a value outside its choices."""


class RecordError(BoundError):
    """A bound record is malformed: an unknown field value or an expression with stray symbols."""


class CatalogFileError(RecordError):
    """A catalog file cannot be read, is not TOML, or its records clash (names, references)."""


class ExpressionError(BoundError):
    """A user's expression or condition text cannot be read (syntax, unknown name, construct)."""


class SreprError(BoundError):
    """An ``srepr`` string is malformed or calls something other than a sympy constructor."""


class MaskSpecError(BoundError):
    """A mask does not fit: unknown family, a width outside its range, an array of the wrong
    shape, not boolean, or with a row that allows no key."""
