"""z3 proofs of the inequalities between the catalog's bounds.

``attnio.proofs`` owns the sympy-to-z3 translator, the obligations generated
from the bound catalog, the checker (Proved / Counterexample / Unknown), the
SMT-LIB export and the written derivations. It reads :mod:`attnio.bounds`
only; it must not import ``attnio.pebble`` or ``attnio.algorithms``.
"""

from .check import (
    CONSTANT_LIMIT,
    DEFAULT_TIMEOUT_MS,
    Counterexample,
    Outcome,
    Proved,
    Unknown,
    check,
    confirm,
    describe,
    prove,
)
from .errors import (
    InconsistentAssumptions,
    ObligationError,
    ProofError,
    SolverUnavailable,
    UnsupportedExpression,
)
from .obligation import Expectation, Obligation, substitute
from .suite import outcomes, run, select, usable_cores
from .translate import Translator

__all__ = [
    "CONSTANT_LIMIT",
    "DEFAULT_TIMEOUT_MS",
    "Counterexample",
    "Expectation",
    "InconsistentAssumptions",
    "Obligation",
    "ObligationError",
    "Outcome",
    "ProofError",
    "Proved",
    "SolverUnavailable",
    "Translator",
    "Unknown",
    "UnsupportedExpression",
    "check",
    "confirm",
    "describe",
    "outcomes",
    "prove",
    "run",
    "select",
    "substitute",
    "usable_cores",
]
