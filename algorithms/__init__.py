"""Attention algorithms on a two-level machine that counts every word moved.

``attnio.algorithms`` owns the machine, the algorithms (dense, sparse,
approximate), their simulation against the catalog's exact counts, and the
``attnio verify`` checks of that comparison. It may read :mod:`attnio.bounds`;
it must not import ``attnio.pebble`` or ``attnio.proofs``.
"""

from .errors import (
    AlgorithmError,
    CapacityError,
    MachineError,
    MaskError,
    MemoryTooSmallError,
    ParameterError,
    UnknownAlgorithmError,
)
from .machine import Counts, TwoLevelMachine
from .registry import ALGORITHMS, Algorithm, get_algorithm
from .simulation import Run, simulate
from .sweep import Sweep, parse_range, sweep

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "AlgorithmError",
    "CapacityError",
    "Counts",
    "MachineError",
    "MaskError",
    "MemoryTooSmallError",
    "ParameterError",
    "Run",
    "Sweep",
    "TwoLevelMachine",
    "UnknownAlgorithmError",
    "get_algorithm",
    "parse_range",
    "simulate",
    "sweep",
]
