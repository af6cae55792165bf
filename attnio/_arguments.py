"""Argument types, output-path checks and partial outputs shared by the commands.

Everything here is cheap to import (standard library only): the command modules
use it while building their parsers, before any heavy package is loaded.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

LARGEST_INT = 2**62
"""Largest integer an option accepts: kernels count in int64, and no size needs more."""


def count(minimum: int = 1):
    """Return an argparse type: an integer in ``[minimum, 2**62]`` (sizes, counts, seeds)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} must be an integer >= {minimum}")
        if value > LARGEST_INT:
            raise argparse.ArgumentTypeError(f"{text} is too large: at most 2**62 = {LARGEST_INT}")
        return value

    parse.__name__ = "integer"
    return parse


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0 (seconds, bounds)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text} must be a finite number > 0")
    return value


def fraction(text: str) -> float:
    """An argparse type: a finite number in (0, 1] (densities)."""
    value = positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"{text} must be in (0, 1]")
    return value


def memory_range(text: str) -> tuple[int, int]:
    """Parse ``--sweep M=LO:HI`` (integers, 1 <= LO <= HI), the one sweep grammar.

    Examples
    --------
    >>> memory_range("M=64:4096")
    (64, 4096)
    """
    name, equals, span = text.partition("=")
    lo, colon, hi = span.partition(":")
    try:
        if name != "M" or not equals or not colon:
            raise ValueError
        low, high = int(lo), int(hi)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} must look like M=LO:HI with integers, e.g. M=64:4096"
        ) from None
    if not 1 <= low <= high <= LARGEST_INT:
        raise argparse.ArgumentTypeError(f"{text!r} needs 1 <= LO <= HI <= 2**62")
    return low, high


def writable_file(option: str, path: str) -> Path:
    """Return ``path`` if a file can be written there, else raise naming ``option``.

    Called before any work, so an unwritable output fails at once.
    """
    target = Path(path)
    if target.is_dir():
        raise ValueError(
            f"{option} {path!r} is a directory; give a file name (e.g. {target / 'out'})"
        )
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{option} {path!r}: directory {str(parent)!r} does not exist")
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{option} {path!r}: file is not writable")
    if not target.exists() and not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {path!r}: directory {str(parent)!r} is not writable")
    return target


def writable_directory(option: str, path: str) -> Path:
    """Return ``path`` if it is (or can be created as) a writable directory, else raise."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise ValueError(f"{option} {path!r} exists and is not a directory")
    existing = target
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {path!r}: {str(existing)!r} is not a writable directory")
    return target


def interactive() -> bool:
    """Whether progress may be shown: standard error is a terminal."""
    return sys.stderr.isatty()


def interrupted(summary: str) -> int:
    """Report an interrupt after partial output; return exit code 130."""
    print(f"attnio: interrupted; {summary}", file=sys.stderr)
    return 130


def wide_console():
    """A rich console for tables on standard output: the terminal's width, or 160 when piped."""
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=160)
