"""One progress line on standard error, shown only when standard error is a terminal.

``prove``, ``check`` and the sweeps of ``pebble`` and ``simulate`` report each finished
item as ``[k/total] label`` on one rewritten line. Standard library only: cheap to
import while the parsers are built.
"""

from __future__ import annotations

import sys
from types import TracebackType

from attnio._arguments import interactive


class ProgressLine:
    """``[k/total] label`` rewritten in place on standard error; silent when it is not a terminal.

    Use as a context manager: on normal exit the line is erased; when an exception
    (Ctrl-C) leaves the block the last line stays, ended by a newline, so it says where
    the work stopped.

    Parameters
    ----------
    enabled : bool
        ``False`` silences the line even on a terminal (for example under ``--json``).

    Examples
    --------
    >>> with ProgressLine(enabled=False) as line:
    ...     line.update(1, 2, "first")
    >>> line.shown
    False
    """

    def __init__(self, *, enabled: bool = True) -> None:
        self.shown = bool(enabled) and interactive()

    def update(self, done: int, total: int, label: str) -> None:
        """Show that ``done`` of ``total`` items are finished, the last one ``label``."""
        if self.shown:
            print(f"\r\033[K[{done}/{total}] {label}", end="", file=sys.stderr, flush=True)

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if not self.shown:
            return
        if kind is None:
            print("\r\033[K", end="", file=sys.stderr, flush=True)
        else:
            print(file=sys.stderr, flush=True)
