"""Exceptions raised by :mod:`attnio.algorithms`.

Each subclasses a builtin so the command line can catch the broad category, and
each message names the argument, its value and what would be valid.
"""

from __future__ import annotations


class AlgorithmError(ValueError):
    """Base class of every error :mod:`attnio.algorithms` raises on bad input."""


class CapacityError(AlgorithmError):
    """A step of an algorithm would hold more than M words in fast memory."""


class AlgorithmParameterError(AlgorithmError):
    """A size (n, d, M, degree, entry bound) is outside what the algorithm accepts."""


class BlocksDoNotFitError(AlgorithmParameterError):
    """M is below the smallest fast memory an algorithm's blocks fit in; the message names it."""


ParameterError = AlgorithmParameterError
"""The former name, kept for callers that import it."""

MemoryTooSmallError = BlocksDoNotFitError
"""The former name (it clashed with :class:`attnio.pebble.MemoryTooSmallError`)."""


class MaskError(AlgorithmError):
    """A sparsity mask has the wrong shape, type, or an all-masked row."""


class UnknownAlgorithmError(AlgorithmError, KeyError):
    """No algorithm of the registry carries the requested name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class MachineError(AlgorithmError):
    """A transfer names an array or buffer the machine does not hold, or a slice outside it."""


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a sweep; ``result`` holds the runs finished (the rest ``None``)."""

    def __init__(self, result: object) -> None:
        self.result = result
        super().__init__("sweep interrupted")
