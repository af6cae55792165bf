"""The red-blue pebble game: attention DAGs, a move replayer, heuristic and exact pebbling.

``attnio.pebble`` owns the game (docs/game.md): graphs in compact arrays,
the pure-Python move replayer that checks every pebbling, and the solvers.
It may read :mod:`attnio.bounds`; it must not import ``attnio.algorithms`` or
``attnio.proofs``.
"""

from .builders import BUILDERS, KINDS, BuilderSpec, build
from .dag import GRAPH_FORMATS, GRAPH_SUFFIXES, Dag, load_dag, save_dag
from .errors import (
    CycleError,
    GraphFormatError,
    IllegalMoveError,
    InstanceTooLargeError,
    MemoryTooSmallError,
    MoveFormatError,
    PebbleError,
    PebbleParameterError,
    SearchInterrupted,
)
from .errors import ParameterError as ParameterError  # the former name
from .exact import solve_exact, sweep_exact
from .heuristic import HEURISTICS, solve_heuristic
from .heuristic import pebble as pebble  # the former name of solve_heuristic
from .heuristic import sweep as sweep_heuristic
from .moves import COMPUTE, DELETE, LOAD, STORE, Move, Replay, read_moves, replay, write_moves
from .player import POLICIES, OrderPlayer, compulsory_io, play
from .result import Pebbling
from .sat import SatOptimum, sat_optimum
from .variants import GAME_VARIANTS, VARIANTS, GameVariant, Variant

__all__ = [
    "BUILDERS",
    "COMPUTE",
    "DELETE",
    "GAME_VARIANTS",
    "GRAPH_FORMATS",
    "GRAPH_SUFFIXES",
    "HEURISTICS",
    "KINDS",
    "LOAD",
    "POLICIES",
    "STORE",
    "VARIANTS",
    "BuilderSpec",
    "CycleError",
    "Dag",
    "GameVariant",
    "GraphFormatError",
    "IllegalMoveError",
    "InstanceTooLargeError",
    "MemoryTooSmallError",
    "Move",
    "MoveFormatError",
    "OrderPlayer",
    "PebbleError",
    "PebbleParameterError",
    "Pebbling",
    "Replay",
    "SatOptimum",
    "SearchInterrupted",
    "Variant",
    "build",
    "compulsory_io",
    "load_dag",
    "play",
    "read_moves",
    "replay",
    "sat_optimum",
    "save_dag",
    "solve_exact",
    "solve_heuristic",
    "sweep_exact",
    "sweep_heuristic",
    "write_moves",
]
