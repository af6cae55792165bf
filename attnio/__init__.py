"""attnio: formal bound verification for the I/O complexity of attention.

The front door: the command line (:mod:`attnio.cli`) and re-exports of the
public API of the four core packages (:mod:`attnio.bounds`,
:mod:`attnio.pebble`, :mod:`attnio.algorithms`, :mod:`attnio.proofs`), and
:func:`attnio.check`, which checks a user's claims (:func:`attnio.claims.check`; the
z3 checker of one obligation stays :func:`attnio.proofs.check`). Each name is loaded
on first use, so ``import attnio`` (and ``attnio --version``) stays fast: numba, z3
and matplotlib load only when a name that needs them is used. No logic lives here.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_PACKAGES: dict[str, tuple[str, ...]] = {
    "attnio.bounds": (
        "TABLE_FORMATS", "Bound", "BoundError", "BoundParameterError", "Cache", "Check",
        "CheckResult", "FilterError", "Kind", "Pass", "RecordError", "Regime", "Status",
        "UnknownBoundError", "catalog", "crossover", "get", "read_catalog", "render",
    ),
    "attnio.pebble": (
        "BUILDERS", "COMPUTE", "DELETE", "GAME_VARIANTS", "GRAPH_FORMATS", "GRAPH_SUFFIXES",
        "HEURISTICS", "KINDS", "LOAD", "POLICIES", "STORE", "VARIANTS", "BuilderSpec",
        "CycleError", "Dag", "GameVariant", "GraphFormatError", "IllegalMoveError",
        "InstanceTooLargeError", "MemoryTooSmallError", "Move", "MoveFormatError",
        "OrderPlayer", "PebbleError", "PebbleParameterError", "Pebbling", "Replay",
        "SatOptimum", "SearchInterrupted", "Variant", "build", "compulsory_io", "load_dag",
        "play", "read_moves", "replay", "sat_optimum", "save_dag", "solve_exact",
        "solve_heuristic", "sweep_exact", "sweep_heuristic", "write_moves",
    ),
    "attnio.algorithms": (
        "ALGORITHMS", "Algorithm", "AlgorithmError", "AlgorithmParameterError",
        "BlocksDoNotFitError", "CapacityError", "Counts", "MachineError", "MaskError", "Run",
        "Sweep", "TwoLevelMachine", "UnknownAlgorithmError", "get_algorithm", "parse_range",
        "simulate", "sweep",
    ),
    "attnio.proofs": (
        "CONSTANT_LIMIT", "DEFAULT_TIMEOUT_MS", "Counterexample", "Expectation",
        "InconsistentAssumptions", "Obligation", "ObligationError", "Outcome", "ProofError",
        "Proved", "SolverUnavailable", "Translator", "Unknown", "UnsupportedExpression", "check",
        "confirm", "describe", "outcomes", "prove", "run", "select", "substitute", "usable_cores",
    ),
}  # fmt: skip
"""Each core package's ``__all__`` (a test keeps them equal), re-exported here."""

_EXPORTS = {name: package for package, names in _PACKAGES.items() for name in names}
_EXPORTS["check"] = "attnio.claims"  # attnio.check checks users' claims
_EXPORTS["explore"] = "attnio.explorer"  # the notebook widget (needs attnio[notebook])

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module 'attnio' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
