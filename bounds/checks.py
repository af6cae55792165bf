"""The shape of a self-check, shared by every ``attnio verify`` suite.

A check is a function of no arguments that returns a verdict and a one-line
detail: ``True`` (passed), ``False`` (failed, the detail says where) or
``None`` (nothing to compare, the detail says why; reported, never a pass).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Check", "CheckResult", "Tier"]

CheckResult = tuple[bool | None, str]
"""A check's verdict and its one-line detail."""

Check = Callable[[], CheckResult]
"""A self-check of ``attnio verify``."""


class Tier:
    """Which tier a suite's next run is in: the default one, or ``attnio verify --thorough``.

    ``attnio verify`` calls :meth:`configure` before the suite's checks run, and prints
    :meth:`left_out` (what the default tier leaves out, and how to run it).

    Parameters
    ----------
    left_out : str
        The note of the default tier.

    Examples
    --------
    >>> tier = Tier("left out of x: y; run them: attnio verify --thorough")
    >>> tier.thorough, tier.left_out().startswith("left out of x")
    (False, True)
    >>> tier.configure(thorough=True)
    >>> tier.thorough, tier.left_out()
    (True, '')
    """

    def __init__(self, left_out: str) -> None:
        self.thorough = False
        self._note = left_out

    def configure(self, thorough: bool = False) -> None:
        """Choose the tier of the suite's next run."""
        self.thorough = bool(thorough)

    def left_out(self) -> str:
        """What the default tier leaves out and how to run it; empty in the thorough tier."""
        return "" if self.thorough else self._note
