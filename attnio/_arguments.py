"""Argument types, output-path checks and partial outputs shared by the commands.

Everything here is cheap to import (standard library only): the command modules
use it while building their parsers, before any heavy package is loaded.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
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

    Called before any work, so an unwritable output fails at once. Permission bits
    are not enough (the superuser passes ``os.access`` under ``/proc``): the file is
    opened for appending, and removed again when this call created it.
    """
    target = Path(path)
    if target.is_dir():
        raise ValueError(
            f"{option} {path!r} is a directory; give a file name (e.g. {target / 'out'})"
        )
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{option} {path!r}: directory {str(parent)!r} does not exist")
    existed = target.exists()
    try:
        with open(target, "ab"):
            pass
    except OSError as error:
        raise ValueError(f"{option} {path!r}: cannot write: {_reason(error)}") from None
    if not existed:
        target.unlink(missing_ok=True)
    return target


def writable_directory(option: str, path: str) -> Path:
    """Return ``path`` if it is (or can be created as) a writable directory, else raise.

    The directory is created and a file written in it, as the work will; directories
    this call created are removed again, so a refused or failed run leaves nothing.
    """
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise ValueError(f"{option} {path!r} exists and is not a directory")
    created = []
    missing = target
    while not missing.exists():
        created.append(missing)
        missing = missing.parent
    try:
        for folder in reversed(created):
            folder.mkdir()
        with tempfile.TemporaryFile(dir=target):
            pass
    except OSError as error:
        raise ValueError(f"{option} {path!r}: cannot write: {_reason(error)}") from None
    finally:
        for folder in created:
            if folder.is_dir():
                folder.rmdir()
    return target


def _reason(error: OSError) -> str:
    """The operating system's reason, without the errno and path ``str(error)`` repeats."""
    return error.strerror or str(error)


def interactive() -> bool:
    """Whether progress may be shown: standard error is a terminal."""
    return sys.stderr.isatty()


def interrupted(summary: str) -> int:
    """Report an interrupt after partial output; return exit code 130."""
    print(f"attnio: interrupted; {summary}", file=sys.stderr)
    return 130


_LATEX_LABEL_SPECIALS = set("{}\\%#$&~^ \t\n")


def latex_label(text: str) -> str:
    """Argument type of ``--label``: a LaTeX ``\\label`` key (no spaces, braces, ``\\``, ``%`` ...).

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is empty or holds a character that would break the document.
    """
    if not text or _LATEX_LABEL_SPECIALS & set(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a LaTeX label: give one without spaces and without any of "
            "{ } \\ % # $ & ~ ^"
        )
    return text
