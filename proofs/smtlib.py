"""SMT-LIB 2 export of obligations, and a cross-check of the files with cvc5.

Each file asserts the side conditions, the assumptions and the *negated*
claim of one obligation, in the form whose answer decided it (the real
relaxation, QF_NRA, or the integer query, QF_NIRA), followed by
``(check-sat)``: ``unsat`` means the claim holds. A claim z3 proved through a
rounding-free strengthening is exported as a *certificate of the original
claim*: queries separated by ``(reset)``, all of which must be unsat (the
strengthened claim, its side conditions, and the strengthening lemma, split into
``small <= upper`` and ``lower <= large`` or as one implication), or, when z3
could not re-check the lemma, the original obligation alone; the file's header
comment says which (:func:`attnio.proofs.check._certificate`). Any SMT-LIB 2 solver can
re-check it; :func:`cross_check` runs cvc5 (the optional extra ``cvc5``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import sympy as sp
import z3

from .budget import check as check_budgeted
from .budget import limit
from .check import RESET, Counterexample, Outcome, Proved
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


_SEED = re.compile(r"^\(set-option :random-seed (\d+)\)$", re.MULTILINE)


def z3_answer(path: str | Path, timeout_ms: int = 3000) -> str:
    """Parse an exported file back with z3 and return its answer: sat, unsat or unknown.

    Each file gets a fresh z3 context, as a standalone solver run would: in the shared
    default context the terms of earlier work change z3's search, and a satisfiable
    file could answer unknown within the timeout. A query's ``(set-option :random-seed
    k)``, the seed that decided it, is honoured (z3's parser ignores a script's options).
    """
    answers = []
    for script in Path(path).read_text(encoding="utf-8").split(RESET):
        context = z3.Context()
        solver = limit(z3.Solver(ctx=context), timeout_ms)
        seed = _SEED.search(script)
        if seed:  # the seed that decided the query (z3's API ignores the script's options)
            solver.set("random_seed", int(seed.group(1)))
        solver.add(z3.parse_smt2_string(script, ctx=context))
        answer = check_budgeted(solver)
        answers.append("unsat" if answer == z3.unsat else "sat" if answer == z3.sat else "unknown")
    return combine(answers)


def disagreement(
    path: str | Path,
    name: str,
    expected: str,
    point: dict | None = None,
    context: z3.Context | None = None,
) -> str:
    """Parse an exported file back with z3 and check that it agrees with its verdict, unsolved.

    Every query of the file must parse (in a fresh z3 context, or in ``context`` when one
    is given: each parse declares its own symbols, so a file parses alike in either; a
    context costs milliseconds to make, more than parsing most files), the header must
    name the obligation ``name`` and the first query's ``:status`` annotation must be
    ``expected`` (``unsat`` for a proof, ``sat`` for a counterexample). For a
    counterexample, the file's assertions with its symbols fixed at ``point`` must not be
    unsat (the point is a model of the file; with every symbol fixed the query is easy),
    checked in a fresh context always. Re-solving the file is :func:`z3_answer`'s work.

    Returns
    -------
    str
        Empty when the file agrees, else what is wrong.
    """
    text = Path(path).read_text(encoding="utf-8")
    if f"; attnio obligation {name}\n" not in text:
        return f"{Path(path).name}: header does not name {name}"
    scripts = text.split(RESET)
    status = re.search(r"\(set-info :status (\w+)\)", scripts[0])
    if status is None or status.group(1) != expected:
        found = status.group(1) if status else "none"
        return f"{Path(path).name}: status {found}, expected {expected}"
    parsed = []
    for number, script in enumerate(scripts):
        fresh = context is None or (number == 0 and point is not None)
        within = z3.Context() if fresh else context
        try:
            parsed.append((within, z3.parse_smt2_string(script, ctx=within)))
        except z3.Z3Exception as error:
            return f"{Path(path).name}: does not parse ({error})"
    if point is None:
        return ""
    context, assertions = parsed[0]
    solver = limit(z3.Solver(ctx=context), 1000)
    solver.add(assertions)
    values = {str(k): sp.Rational(v) for k, v in point.items()}
    for var in _constants(assertions):
        value = values.get(var.decl().name())
        if value is not None:
            term = z3.ToReal(var) if var.is_int() else var
            solver.add(term == z3.RealVal(f"{value.p}/{value.q}", context))
    if check_budgeted(solver) == z3.unsat:
        return f"{Path(path).name}: its counterexample's point is not a model of the file"
    return ""


def _constants(assertions: z3.AstVector) -> list[z3.ExprRef]:
    """The uninterpreted constants (the file's declared symbols) in ``assertions``."""
    found: dict[str, z3.ExprRef] = {}
    seen: set[int] = set()
    stack = list(assertions)
    while stack:
        term = stack.pop()
        if term.get_id() in seen:
            continue
        seen.add(term.get_id())
        if z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found[term.decl().name()] = term
        stack.extend(term.children())
    return list(found.values())


def combine(answers: list[str]) -> str:
    """The answer of a file of several queries that must all be unsat to certify its claim.

    ``unsat`` when every query is unsat, ``sat`` when one is sat (the certificate fails),
    else ``unknown``.

    Examples
    --------
    >>> combine(["unsat", "unsat"]), combine(["unsat", "unknown"]), combine(["sat"])
    ('unsat', 'unknown', 'sat')
    """
    if answers and all(a == "unsat" for a in answers):
        return "unsat"
    if "sat" in answers:
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


_CVC5_QUERY = """
import sys, cvc5
manager = cvc5.TermManager()
solver = cvc5.Solver(manager)
solver.setOption("tlimit-per", sys.argv[1])
solver.setOption("produce-models", "false")
parser = cvc5.InputParser(solver)
parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, sys.stdin.read(), "query")
symbols = parser.getSymbolManager()
while True:
    command = parser.nextCommand()
    if command.isNull():
        break
    output = command.invoke(solver, symbols).strip()
    if output.split(" ")[0] in ("sat", "unsat", "unknown"):
        print(output.split(" ")[0], flush=True)
"""


def cvc5_answer(path: str | Path, timeout_ms: int = 10000) -> str:
    """Run cvc5 (Python bindings) on an SMT-LIB file; return sat, unsat or unknown.

    Each query of the file runs in a fresh cvc5 inside a child process that is killed
    after twice the timeout (plus start-up time): cvc5's own time limit is not always
    honoured in nonlinear arithmetic, and ``(reset)`` would drop it.

    Raises
    ------
    SolverUnavailable
        If the ``cvc5`` package is not installed (``pip install attnio[cvc5]``).
    """
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("cvc5") is None:
        raise SolverUnavailable(
            "--cross-check cvc5 needs the cvc5 package: pip install 'attnio[cvc5]'"
        )
    answers = []
    for script in Path(path).read_text(encoding="utf-8").split(RESET):
        try:
            done = subprocess.run(
                [sys.executable, "-c", _CVC5_QUERY, str(int(timeout_ms))],
                input=script,
                capture_output=True,
                text=True,
                timeout=2 * timeout_ms / 1000 + 10,
                check=False,
            )
            lines = done.stdout.split()
            answers.append(lines[-1] if lines else "unknown")
        except subprocess.TimeoutExpired:
            answers.append("unknown")
    return combine(answers)


def cross_check(
    paths: Iterable[Path], expected: Iterable[str], timeout_ms: int = 10000
) -> list[Agreement]:
    """Run cvc5 on each file and pair its answer with the expected (z3's) one."""
    return [
        Agreement(Path(p), e, cvc5_answer(p, timeout_ms))
        for p, e in zip(paths, expected, strict=True)
    ]


__all__ = [
    "RESET",
    "Agreement",
    "combine",
    "cross_check",
    "cvc5_answer",
    "disagreement",
    "file_name",
    "write",
    "z3_answer",
]
