"""Validation of the numeric arguments every attnio package accepts, with one rule each.

The packages raise their own error classes (each subclasses :class:`ValueError`),
so each validator takes the class to raise. Messages name the argument, its value
and what would be valid.
"""

from __future__ import annotations

from numbers import Integral, Real

__all__ = ["positive_integer", "positive_number"]


def positive_integer(name: str, value: object, error: type[Exception] = ValueError) -> int:
    """Return ``value`` as an int if it is an integer of at least 1, else raise ``error``.

    Python and numpy integers are accepted; booleans, floats and strings are not.

    Examples
    --------
    >>> positive_integer("M", 4)
    4
    >>> positive_integer("M", 0)
    Traceback (most recent call last):
    ...
    ValueError: M=0 must be a positive integer
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise error(f"{name}={value!r} must be a positive integer")
    return int(value)


def positive_number(name: str, value: object, error: type[Exception] = ValueError) -> float:
    """Return ``value`` as a float if it is a positive number (``inf``: no limit), else raise ``error``.

    Used for time limits and timeouts; the argument's name carries its unit
    (``timeout_ms``) when it is not seconds.

    Examples
    --------
    >>> positive_number("time_limit", 2)
    2.0
    """
    if isinstance(value, bool) or not isinstance(value, Real) or not value > 0:
        raise error(f"{name}={value!r} must be a positive number")
    return float(value)
