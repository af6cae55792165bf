"""SMT-LIB 2 export of obligations, and a cross-check of the files with cvc5.

Each file asserts the side conditions, the assumptions and the *negated*
claim of one obligation, in the form whose answer decided it (the real
relaxation, QF_NRA, or the integer query, QF_NIRA), followed by
``(check-sat)``: ``unsat`` means the claim holds. Any SMT-LIB 2 solver can
re-check it; :func:`cross_check` runs cvc5 (the optional extra ``cvc5``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import z3

from .budget import check as check_budgeted
from .budget import limit
from .check import Counterexample, Outcome, Proved
from .errors import SolverUnavailable


def file_name(obligation_name: str) -> str:
    """A file name for an obligation: its name with every non-word character replaced.

    Examples
    --------
    >>> file_name("lower-le-upper/a<=b")
    'lower-le-upper__a_le_b.smt2'
    """
    text = obligation_name.replace("<=", "_le_").replace(">=", "_ge_").replace("/", "__")
    return re.sub(r"[^A-Za-z0-9_.=-]", "_", text) + ".smt2"


def write(outcomes: Iterable[Outcome], directory: str | Path) -> list[Path]:
    """Write one ``.smt2`` file per outcome into ``directory`` (created if missing).

    Raises
    ------
    OSError
        If the directory cannot be created or written.
    """
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for outcome in outcomes:
        path = target / file_name(outcome.obligation.name)
        expected = {Proved: "unsat", Counterexample: "sat"}.get(type(outcome.result), "unknown")
        text = (
            outcome.result.smtlib.replace(
                "(set-info :status unknown)", f"(set-info :status {expected})", 1
            )
            if expected != "unknown"
            else outcome.result.smtlib
        )
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def z3_answer(path: str | Path, timeout_ms: int = 3000) -> str:
    """Parse an exported file back with z3 and return its answer: sat, unsat or unknown.

    Each file gets a fresh z3 context, as a standalone solver run would: in the shared
    default context the terms of earlier work change z3's search, and a satisfiable
    file could answer unknown within the timeout.
    """
    context = z3.Context()
    solver = limit(z3.Solver(ctx=context), timeout_ms)
    solver.add(z3.parse_smt2_file(str(path), ctx=context))
    answer = check_budgeted(solver)
    if answer == z3.unsat:
        return "unsat"
    if answer == z3.sat:
        return "sat"
    return "unknown"


@dataclass(frozen=True)
class Agreement:
    """z3's and another solver's answers on one exported file."""

    path: Path
    expected: str
    other: str

    @property
    def agrees(self) -> bool:
        """True when both decided and gave the same answer."""
        return self.expected == self.other and self.other in ("sat", "unsat")


def cvc5_answer(path: str | Path, timeout_ms: int = 10000) -> str:
    """Run cvc5 (Python bindings) on an SMT-LIB file; return sat, unsat or unknown.

    Raises
    ------
    SolverUnavailable
        If the ``cvc5`` package is not installed (``pip install attnio[cvc5]``).
    """
    try:
        import cvc5
    except ImportError:
        raise SolverUnavailable(
            "--cross-check cvc5 needs the cvc5 package: pip install 'attnio[cvc5]'"
        ) from None
    manager = cvc5.TermManager()
    solver = cvc5.Solver(manager)
    solver.setOption("tlimit-per", str(int(timeout_ms)))
    solver.setOption("produce-models", "false")
    parser = cvc5.InputParser(solver)
    parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, str(path))
    symbols = parser.getSymbolManager()
    answer = "unknown"
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        output = command.invoke(solver, symbols).strip()
        if output in ("sat", "unsat", "unknown"):
            answer = output
    return answer


def cross_check(
    paths: Iterable[Path], expected: Iterable[str], timeout_ms: int = 10000
) -> list[Agreement]:
    """Run cvc5 on each file and pair its answer with the expected (z3's) one."""
    return [
        Agreement(Path(p), e, cvc5_answer(p, timeout_ms))
        for p, e in zip(paths, expected, strict=True)
    ]


__all__ = ["Agreement", "cross_check", "cvc5_answer", "file_name", "write", "z3_answer"]
