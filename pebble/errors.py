"""Exceptions raised by :mod:`attnio.pebble`.

Every class subclasses :class:`ValueError` through :class:`PebbleError`, so the
command line turns any of them into one line and exit code 2. Each message names
the argument, its value and what would be valid.

Design contract (shared with the exact solver, which may append classes here):

- :class:`PebbleError` -- base class.
- :class:`CycleError` -- the graph has a cycle; ``cycle`` lists its vertex labels.
- :class:`MemoryTooSmallError` -- (a :class:`PebbleParameterError`) ``M`` is below ``max in-degree + 1``; attributes
  ``vertex`` (label of a vertex of maximum in-degree), ``minimum`` and ``M``.
- :class:`GraphFormatError` -- an empty, malformed or unsupported graph or graph file.
- :class:`IllegalMoveError` -- a move breaks the rules of docs/game.md;
  attributes ``index`` (position in the sequence, ``len(moves)`` when the
  sequence ends without every output blue), ``move`` (``None`` in that case)
  and ``reason``.
- :class:`MoveFormatError` -- a move file or move value is malformed.
- :class:`PebbleParameterError` -- any other bad argument (variant, sizes, masks, degrees).
- :class:`InstanceTooLargeError` -- an instance the exact search refuses.
- :class:`SearchInterrupted` -- Ctrl-C during a search or sweep; ``results`` holds
  the pebblings finished (and the interrupted one, with its proven bounds).
"""

from __future__ import annotations

from typing import Any


class PebbleError(ValueError):
    """Base class of every error :mod:`attnio.pebble` raises on bad input."""


class PebbleParameterError(PebbleError):
    """An argument (variant, size, mask, degree, policy) is outside its valid values."""


ParameterError = PebbleParameterError
"""The former name, kept for callers that import it."""


class GraphFormatError(PebbleError):
    """A graph or graph file is empty, malformed, or in an unsupported form."""


class CycleError(PebbleError):
    """The graph has a directed cycle; ``cycle`` holds its vertex labels in order."""

    def __init__(self, cycle: list[str]) -> None:
        self.cycle = list(cycle)
        shown = " -> ".join([*self.cycle, self.cycle[0]]) if self.cycle else "?"
        super().__init__(f"graph has a directed cycle {shown}; the pebble game needs a DAG")


class MemoryTooSmallError(PebbleParameterError):
    """``M`` is below ``max in-degree + 1``: some vertex can never be computed (no sliding)."""

    def __init__(self, M: int, vertex: str, minimum: int) -> None:
        self.M = M
        self.vertex = vertex
        self.minimum = minimum
        super().__init__(
            f"M={M} is too small: vertex {vertex!r} has in-degree {minimum - 1} and computing "
            f"it needs M >= {minimum} red pebbles (docs/game.md, no sliding); "
            f"use M >= {minimum}"
        )


class IllegalMoveError(PebbleError):
    """A move sequence breaks a rule; ``index``, ``move`` and ``reason`` say where and why."""

    def __init__(self, index: int, move: Any, reason: str) -> None:
        self.index = index
        self.move = move
        self.reason = reason
        where = f"move {index} {tuple(move)!r}" if move is not None else f"after {index} moves"
        super().__init__(f"illegal pebbling: {where}: {reason}")


class MoveFormatError(PebbleError):
    """A move (or a line of a move file) is not a valid ``{"op": ..., "vertex": ...}``."""


class InstanceTooLargeError(PebbleError):
    """The exact search refuses an instance beyond its documented reach."""


class SearchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a search or a sweep; ``results`` keeps what was found.

    ``results`` lists the pebblings finished before the interrupt and, for the
    exact search, the interrupted size itself: its certificate and proven bounds
    ``lower <= IO <= upper`` (``optimal`` only if they met).
    """

    def __init__(self, results: list) -> None:
        self.results = list(results)
        super().__init__(f"interrupted after {len(self.results)} result(s)")
