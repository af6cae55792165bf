"""Exceptions raised by :mod:`attnio.claims`.

Each subclasses a builtin (``ValueError``) and names the claim, the field and what
would be valid, so the command line can print it as one line with exit code 2.
"""

from __future__ import annotations


class ClaimError(ValueError):
    """A claim cannot be read or checked: a missing or bad field, inconsistent conditions."""


class ClaimFileError(ClaimError):
    """A claims file cannot be read: not found, not UTF-8, not TOML, no ``[[bound]]`` table."""


__all__ = ["ClaimError", "ClaimFileError"]
