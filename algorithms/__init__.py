"""Attention algorithms on a two-level machine that counts every word moved.

``attnio.algorithms`` owns the machine, the algorithms (dense, sparse,
approximate), their simulation against the catalog's exact counts, and the
``attnio verify`` checks of that comparison. It may read :mod:`attnio.bounds`;
it must not import ``attnio.pebble`` or ``attnio.proofs``.
"""

from .errors import (
    AlgorithmError,
    AlgorithmParameterError,
    BlocksDoNotFitError,
    CapacityError,
    MachineError,
    MaskError,
    UnknownAlgorithmError,
)
from .errors import MemoryTooSmallError as MemoryTooSmallError  # the former name
from .errors import ParameterError as ParameterError  # the former name
from .machine import Counts, TwoLevelMachine
from .registry import ALGORITHMS, Algorithm, get_algorithm
from .simulation import Run, simulate
from .sweep import Sweep, parse_range, sweep

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "AlgorithmError",
    "AlgorithmParameterError",
    "BlocksDoNotFitError",
    "CapacityError",
    "Counts",
    "MachineError",
    "MaskError",
    "Run",
    "Sweep",
    "TwoLevelMachine",
    "UnknownAlgorithmError",
    "get_algorithm",
    "parse_range",
    "simulate",
    "sweep",
]
