"""The red-blue pebble game: attention DAGs, a move replayer, heuristic and exact pebbling.

``attnio.pebble`` owns the game (docs/game.md): graphs in compact arrays,
the pure-Python move replayer that checks every pebbling, and the solvers.
It may read :mod:`attnio.bounds`; it must not import ``attnio.algorithms`` or
``attnio.proofs``.
"""

from .builders import KINDS, build
from .dag import Dag, load_dag, save_dag
from .errors import (
    CycleError,
    GraphFormatError,
    IllegalMoveError,
    InstanceTooLargeError,
    MemoryTooSmallError,
    MoveFormatError,
    ParameterError,
    PebbleError,
    SearchInterrupted,
)
from .heuristic import compulsory_io, pebble, play
from .moves import COMPUTE, DELETE, LOAD, STORE, Move, Replay, read_moves, replay, write_moves
from .result import Pebbling

__all__ = [
    "COMPUTE",
    "DELETE",
    "KINDS",
    "LOAD",
    "STORE",
    "CycleError",
    "Dag",
    "GraphFormatError",
    "IllegalMoveError",
    "InstanceTooLargeError",
    "MemoryTooSmallError",
    "Move",
    "MoveFormatError",
    "ParameterError",
    "PebbleError",
    "Pebbling",
    "Replay",
    "SearchInterrupted",
    "build",
    "compulsory_io",
    "load_dag",
    "pebble",
    "play",
    "read_moves",
    "replay",
    "save_dag",
    "write_moves",
]
