"""The shape of a self-check, shared by every ``attnio verify`` suite.

A check is a function of no arguments that returns a verdict and a one-line
detail: ``True`` (passed), ``False`` (failed, the detail says where) or
``None`` (nothing to compare, the detail says why; reported, never a pass).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Check", "CheckResult"]

CheckResult = tuple[bool | None, str]
"""A check's verdict and its one-line detail."""

Check = Callable[[], CheckResult]
"""A self-check of ``attnio verify``."""
