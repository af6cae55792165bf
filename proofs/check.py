"""Checking an obligation with z3: Proved, Counterexample or Unknown. Never prints.

The checker negates the claim under the assumptions and asks z3 for a point.

1. *Relaxation* (:class:`~attnio.proofs.translate.Translator` with
   ``integers=False``): nonlinear real arithmetic, decided by z3's nlsat.
   ``unsat`` proves the claim on every real point, hence on every integer one.
2. *Integers*: if the relaxation found a point that does not survive
   confirmation, the query is re-asked with integer symbols (undecidable in
   general, so it may end unknown).

A z3 model is never reported as it is: it is mapped back to the obligation's
symbols (exact rationals; an algebraic value is replaced by a rational
approximation), substituted into the sympy assumptions and claim, and only if
sympy confirms that every assumption holds and the claim fails is it a
:class:`Counterexample`. Otherwise the result is :class:`Unknown` with the
reason. Every Proved also carries a sympy-confirmed *witness*: an integer
point where the assumptions hold, so no proof is vacuous; assumptions with no
point raise :class:`~attnio.proofs.errors.InconsistentAssumptions`.

Every z3 call runs under a deterministic resource limit derived from its
budget in milliseconds (:mod:`attnio.proofs.budget`), with processor-time and
wall-clock safety nets for the steps z3 does not count (a verdict close to the
processor-time net can change under heavy load; see that module); z3's answers are
compared with ``z3.sat``,
``z3.unsat`` and ``z3.unknown``, never with strings.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp
import z3

from attnio.bounds.arguments import positive_number

from . import stages
from .budget import check as check_budgeted
from .budget import limit, searching
from .errors import InconsistentAssumptions, ObligationError
from .obligation import Expectation, Obligation, chain, substitute
from .rounding import strengthen, uses_tight_floors
from .sampling import largest_ratio
from .translate import Translator

_SEEDS = (0, 7, 13)
_GLANCE_MS = 500

DEFAULT_TIMEOUT_MS = 3000
"""Budget of one z3 call, in milliseconds: its resource limit is
:func:`attnio.proofs.budget.rlimit` of it (the wall clock only a safety net)."""

CONSTANT_LIMIT = 4096
"""Largest constant a tightness search tries."""


# ------------------------------------------------------------------- results
@dataclass(frozen=True)
class Proved:
    """z3 answered unsat for the negated claim: the claim holds under the assumptions.

    ``method`` says which query decided (relaxation or integers); ``witness`` is a
    point where every assumption holds (sympy-confirmed); ``smtlib`` is the query.
    """

    method: str
    witness: dict[str, sp.Expr]
    smtlib: str
    seconds: float = 0.0
    constant: int | None = None
    note: str = ""

    status = "proved"


@dataclass(frozen=True)
class Counterexample:
    """A point, confirmed with sympy, where every assumption holds and the claim fails."""

    point: dict[str, sp.Expr]
    sides: tuple[sp.Expr, sp.Expr] | None
    smtlib: str
    seconds: float = 0.0
    constant: int | None = None
    note: str = ""

    status = "counterexample"


@dataclass(frozen=True)
class Unknown:
    """Neither a proof nor a confirmed counterexample; ``reason`` says why."""

    reason: str
    smtlib: str
    seconds: float = 0.0
    constant: int | None = None
    note: str = ""

    status = "unknown"


Result = Proved | Counterexample | Unknown


@dataclass(frozen=True)
class Outcome:
    """An obligation with its result and the verdict under the expectation policy.

    ``refutation`` is, for a constant search (:func:`prove`), the sympy-confirmed
    counterexample at the largest constant it refuted (None if it refuted none).
    """

    obligation: Obligation
    result: Result
    refutation: Counterexample | None = None

    @property
    def verdict(self) -> str:
        """``ok``, ``finding``, ``unknown`` (open obligations) or ``FAIL``.

        A ``holds`` obligation is ``ok`` only when proved; a ``fails`` (planted)
        obligation is ``ok`` only with a confirmed counterexample; an ``open``
        obligation is ``ok`` when proved, a ``finding`` with a counterexample; a
        ``refutes`` obligation (attnio's refutation of a published statement) is a
        ``finding`` when proved and ``FAIL`` otherwise.
        """
        expected, result = self.obligation.expected, self.result
        if expected is Expectation.HOLDS:
            return "ok" if isinstance(result, Proved) else "FAIL"
        if expected is Expectation.FAILS:
            return "ok" if isinstance(result, Counterexample) else "FAIL"
        if expected is Expectation.REFUTES:
            return "finding" if isinstance(result, Proved) else "FAIL"
        if isinstance(result, Proved):
            return "ok"
        return "finding" if isinstance(result, Counterexample) else "unknown"

    @property
    def failed(self) -> bool:
        """Whether this outcome makes ``attnio prove`` exit non-zero."""
        return self.verdict == "FAIL"


# ------------------------------------------------------------------- queries
@dataclass
class _Query:
    obligation: Obligation
    integers: bool
    translator: Translator = field(init=False)
    assumptions: list[z3.BoolRef] = field(init=False)
    negated: z3.BoolRef = field(init=False)

    def __post_init__(self) -> None:
        self.translator = Translator(integers=self.integers)
        self.assumptions = [self.translator.translate_bool(a) for a in self.obligation.assumptions]
        self.negated = z3.Not(self.translator.translate_bool(self.obligation.claim))

    def solver(self, timeout_ms: int, negate: bool = True, seed: int = 0) -> z3.Solver:
        # A fresh context per call: in a shared one, the terms an earlier call created (and
        # how far it got before a limit stopped it) change z3's search in later calls.
        context = z3.Context()
        solver = z3.Solver(ctx=context) if self.integers else z3.SolverFor("QF_NRA", ctx=context)
        limit(solver, timeout_ms)
        if seed:
            solver.set("random_seed", seed)
        terms = [*self.translator.side_conditions(), *self.assumptions]
        if negate:
            terms.append(self.negated)
        solver.add(*(term.translate(context) for term in terms))
        return solver

    def smtlib(self, seed: int = 0) -> str:
        """The query as an SMT-LIB 2 script; with a nonzero ``seed``, the random seed that
        decided it is set first (``(set-option :random-seed ...)``, which
        :func:`attnio.proofs.smtlib.z3_answer` honours): nonlinear integer search is
        seed-sensitive, and with z3's default seed the same query may not end within the
        budget."""
        solver = z3.Solver()
        solver.add(*self.translator.side_conditions(), *self.assumptions, self.negated)
        logic = "QF_NIRA" if self.integers else "QF_NRA"
        header = (
            f"; attnio obligation {self.obligation.name}\n"
            + _printed(self.obligation.claim, tuple(self.obligation.assumptions))
            + "; asserts the assumptions and the NEGATED claim: unsat means the claim holds.\n"
            + (f"(set-option :random-seed {seed})\n" if seed else "")
            + f"(set-logic {logic})\n"
        )
        return header + solver.to_smt2()

    def points(self, model: z3.ModelRef) -> list[dict[str, sp.Expr]]:
        """The model's values of the obligation's symbols, and integer roundings of them."""
        base: dict[str, sp.Expr] = {}
        for name, var in self.translator.variables.items():
            base[name] = _value(model.eval(var.translate(model.ctx), model_completion=True))
        integer_names = [
            name
            for name, sym in self.translator.symbols.items()
            if sym.is_integer and not base[name].is_integer
        ]
        if not integer_names:
            return [base]
        if len(integer_names) > 4:
            return []
        points = []
        for choice in itertools.product((math.floor, math.ceil), repeat=len(integer_names)):
            point = dict(base)
            for name, rounding in zip(integer_names, choice, strict=True):
                point[name] = sp.Integer(rounding(base[name]))
            points.append(point)
        return points


@functools.lru_cache(maxsize=1024)
def _printed(claim: sp.Basic, assumptions: tuple) -> str:
    """The comment lines of an SMT-LIB script that show its claim and assumptions, memoized:
    one obligation's queries (each rounding mode and seed, each strengthened part) share
    them, and printing a count record's sympy tree costs as much as solving most queries."""
    shown = " & ".join(map(str, assumptions)) or "none"
    return f"; claim: {claim}\n; assumptions: {shown}\n"


def _value(term: z3.ExprRef) -> sp.Expr:
    if z3.is_int_value(term):
        return sp.Integer(term.as_long())
    if z3.is_rational_value(term):
        return sp.Rational(term.numerator_as_long(), term.denominator_as_long())
    if z3.is_algebraic_value(term):
        approx = term.approx(40)
        return sp.Rational(approx.numerator_as_long(), approx.denominator_as_long())
    if z3.is_app_of(term, z3.Z3_OP_TO_REAL):
        return _value(term.arg(0))
    raise ObligationError(f"z3 model value {term} is not a number")


def _symbols(obligation: Obligation) -> dict[str, sp.Symbol]:
    found: dict[str, sp.Symbol] = {}
    for expr in (obligation.claim, *obligation.assumptions):
        for sym in expr.free_symbols:
            found[sym.name] = sym
    return found


def _holds(expr: sp.Basic, subs: dict) -> bool | None:
    """Whether ``expr`` is true at the point ``subs`` (numbers for symbols), None if sympy
    does not decide it there.

    Every symbol is replaced at once (``xreplace``), so only numbers are evaluated, the
    way :func:`attnio.bounds.record._at` evaluates the records: ``subs`` replaces one symbol
    at a time and re-derives the signs of every partly substituted floor, Min and
    relation on the way: under the profiler, a sixth of the z3 workers' processor time
    went to confirming witnesses and counterexamples here. Where that does not give a
    truth value (a part that only ``subs`` rewrites, or building the numbers raises),
    ``subs`` decides as before.
    """
    try:
        value = expr.xreplace(subs)
    except (TypeError, ValueError, ZeroDivisionError):
        value = None
    if value is not sp.true and value is not sp.false:
        value = expr.subs(subs)
    if value is sp.true:
        return True
    if value is sp.false:
        return False
    return None


def confirm(obligation: Obligation, point: dict[str, sp.Expr]) -> tuple[bool, str]:
    """Return whether sympy confirms ``point`` violates the claim under the assumptions.

    The point must give every symbol a value of its type (an integer for an
    integer symbol, a positive value for a positive one).
    """
    subs = {}
    for name, sym in _symbols(obligation).items():
        if name not in point:
            return False, f"no value for {name}"
        value = sp.nsimplify(point[name])
        if sym.is_integer and not value.is_integer:
            return False, f"{name}={value} is not an integer"
        if sym.is_positive and not value.is_positive:
            return False, f"{name}={value} is not positive"
        if sym.is_nonnegative and value.is_negative:
            return False, f"{name}={value} is negative"
        subs[sym] = value
    for assumption in obligation.assumptions:
        held = _holds(assumption, subs)
        if held is not True:
            return False, f"assumption {assumption} is {held} there"
    held = _holds(obligation.claim, subs)
    if held is False:
        return True, "claim fails"
    return False, f"the claim evaluates to {held} there"


_SHRINK = (10, 30, 60, 120)
"""Powers of two by which :func:`_with_smaller_reals` divides one real symbol."""


def _with_smaller_reals(
    points: list[dict[str, sp.Expr]], obligation: Obligation
) -> list[dict[str, sp.Expr]]:
    """The points, then each with one positive real (non-integer) symbol divided by 2^k.

    z3 sees ``exp`` only through facts every exponential satisfies, so a model's value of
    a small real such as epsilon may exceed a threshold the true exp sets; a smaller value
    often meets it. Every candidate is re-evaluated with sympy before it is accepted.
    """
    symbols = _symbols(obligation)
    reals = [name for name, sym in symbols.items() if sym.is_positive and not sym.is_integer]
    out = list(points)
    for point in points:
        for name in reals:
            if name in point:
                out.extend({**point, name: point[name] / 2**k} for k in _SHRINK)
    return out


def _witness(query: _Query, timeout_ms: int) -> dict[str, sp.Expr] | None:
    """A sympy-confirmed point of the assumptions, or None if z3 cannot find one."""
    for integers in (False, True):
        q = query if query.integers == integers else _Query(query.obligation, integers)
        solver = q.solver(timeout_ms, negate=False)
        answer = check_budgeted(solver)
        if answer == z3.unsat:
            raise InconsistentAssumptions(
                f"obligation {query.obligation.name!r}: the assumptions "
                f"{' & '.join(map(str, query.obligation.assumptions)) or '(none)'} admit no "
                f"{'integer' if integers else 'real'} point, so any claim would hold vacuously"
            )
        if answer == z3.sat:
            for point in _with_smaller_reals(q.points(solver.model()), query.obligation):
                subs = {
                    sym: point[name]
                    for name, sym in _symbols(query.obligation).items()
                    if name in point
                }
                if all(_holds(a, subs) is True for a in query.obligation.assumptions):
                    return {k: v for k, v in point.items() if k in _symbols(query.obligation)}
    return None


def check(obligation: Obligation, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Result:
    """Check one obligation without a constant; return Proved, Counterexample or Unknown.

    Raises
    ------
    InconsistentAssumptions
        If z3 shows the assumptions have no point.
    UnsupportedExpression
        If the claim or an assumption holds an expression the translator does not know.
    ObligationError
        If the obligation still has a constant to search (use :func:`prove`).

    Examples
    --------
    >>> import sympy as sp
    >>> from attnio.proofs.obligation import Obligation
    >>> x = sp.Symbol("x", integer=True, positive=True)
    >>> check(Obligation("demo/x", "derivation", x**2 >= x, (), "holds", (), "")).status
    'proved'

    An obligation with an intermediate term (``via``) is first tried by transitivity
    (:func:`check_via`); only a proof comes from there, and anything else from the claim
    itself.
    """
    if obligation.via is not None and obligation.constant is None:
        chained = check_via(obligation, timeout_ms)
        if chained is not None:
            return chained
    return _check(obligation, timeout_ms, split=True)


TRANSITIVE_CERTIFICATE = "; certificate: TRANSITIVITY through the intermediate term"
"""How the certificate of a proof by transitivity announces itself (:func:`check_via`)."""


def check_via(obligation: Obligation, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Proved | None:
    """Prove ``lhs <= rhs`` as ``lhs <= X`` and ``X <= rhs``, X the obligation's ``via``
    (or through each term of a chain, in order).

    Both steps are checked like any claim, under the obligation's assumptions. The
    result is a proof when both are proved, else None (the caller then checks the claim
    itself: a counterexample to a step is not one to the claim). The certificate is the
    two steps' certificates, one after the other, separated by ``(reset)``: every query
    must answer unsat.

    Examples
    --------
    >>> import sympy as sp
    >>> from attnio.proofs.obligation import Obligation
    >>> x = sp.Symbol("x", positive=True)
    >>> claim = sp.Le(x / (x + 1), x + 1, evaluate=False)
    >>> check_via(Obligation("demo/v", "derivation", claim, (), "holds", (), "", via=x)).method
    'transitivity through x: z3 unsat (real relaxation); then z3 unsat (real relaxation)'
    """
    if obligation.via is None or not isinstance(obligation.claim, sp.Le):
        return None
    return _transitive(obligation, lambda step: _check_step(step, timeout_ms), True)


def _rounded_on_both_sides(claim: sp.Basic) -> bool:
    """Whether both sides of ``claim`` hold a floor or a ceiling."""
    return all(side.atoms(sp.floor, sp.ceiling) for side in claim.args)


def _check_step(step: Obligation, timeout_ms: int) -> Result:
    """One step of a chain: the real relaxation first when both of its sides keep the
    count's roundings (:data:`~attnio.proofs.derivation.COUNT_STEPS`), then every stage.

    The rounding-free strengthening bounds each floor and ceiling on its own, so it loses
    what the two sides' shared roundings say together; z3 may spend its whole
    processor-time net on it before the relaxation, which keeps one variable per rounding,
    decides. Measured 2026-11-28: the windowed backward count's steps under M < d^2,
    strengthening 25 s and 31 s to end unknown, relaxation 0.1 s each. Only the order
    changes: a step the relaxation does not prove gets every stage as before.
    """
    if _rounded_on_both_sides(step.claim):
        quick = _check_relaxed(step, timeout_ms)
        if isinstance(quick, Proved):
            return quick
    return _check(step, timeout_ms, split=True)


def _transitive(
    obligation: Obligation, check_step: Callable[[Obligation], Result], certify: bool
) -> Proved | None:
    """``lhs <= X_1``, ``X_1 <= X_2``, ..., ``X_k <= rhs`` (the ``via`` chain), each
    checked by ``check_step``: a proof when every step is proved, with the steps' queries
    separated by ``(reset)`` as its certificate (``certify``), else None (at the first step
    not proved: the later ones are not tried).

    A positive rational factor of both sides of a step (the constant of C * X <= C * R)
    is divided out: z3 proves X <= R in 0.02 s where it ends unknown on 410 X <= 410 R
    (FlashAttention backward's Theta claim, 2026-11-26)."""
    start = time.perf_counter()
    terms = (obligation.claim.lhs, *chain(obligation), obligation.claim.rhs)
    last = len(terms) - 2
    steps = []
    for index, (left, right) in enumerate(itertools.pairwise(terms)):
        (k_left, rest_left), (k_right, rest_right) = left.as_coeff_Mul(), right.as_coeff_Mul()
        if k_left == k_right and k_left.is_positive:
            left, right = rest_left, rest_right
        words = "left" if index == 0 else "right" if index == last else f"middle {index}"
        step = Obligation(
            obligation.name,
            obligation.family,
            sp.Le(left, right, evaluate=False),
            obligation.assumptions,
            Expectation.HOLDS,
            obligation.sources,
            f"{words} step of: {obligation.statement}",
        )
        result = check_step(step)
        if not isinstance(result, Proved):
            return None
        steps.append(result)
    between = ", then ".join(str(term) for term in chain(obligation))
    text = ""
    if certify:
        text = (
            _certificate_head(obligation)
            + f"{TRANSITIVE_CERTIFICATE} X = {between}: the queries below, separated by "
            "(reset),\n; must all answer unsat: those of each step lhs <= X_1, ..., X_k <= rhs, "
            "in order.\n" + RESET.join(step.smtlib for step in steps)
        )
    return Proved(
        f"transitivity through {between}: " + "; then ".join(step.method for step in steps),
        steps[-1].witness,
        text,
        time.perf_counter() - start,
    )


def check_whole(obligation: Obligation, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Result:
    """:func:`check` without the coefficient split: z3 on the whole claim only."""
    return _check(obligation, timeout_ms, split=False)


def check_plain(obligation: Obligation, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Result:
    """z3 on the whole claim only (relaxation, then integers): the benchmark's baseline."""
    return _check(obligation, timeout_ms, split=False, strategies=False)


def _check(
    obligation: Obligation,
    timeout_ms: int,
    split: bool,
    integers_stage: bool = True,
    strategies: bool = True,
) -> Result:
    if obligation.constant is not None:
        raise ObligationError(
            f"obligation {obligation.name!r} has a constant {obligation.constant}: use prove()"
        )
    positive_number("timeout_ms", timeout_ms, ObligationError)
    start = time.perf_counter()
    notes: list[str] = []
    last: _Query | None = None  # its SMT-LIB text is printed only for the result
    strong = _strengthened(obligation, timeout_ms) if strategies else None
    if strong is not None:
        return _with(strong, None, time.perf_counter() - start, "")
    order = (False, True) if integers_stage else (False,)
    if integers_stage and strategies and stages.integers_first(obligation):
        # recorded (attnio.proofs.stages): the integer query decides this claim and the
        # relaxation ends in the processor-time net; the relaxation still follows
        order = (True, False)
    for integers in order:
        if integers and split:
            found = _split_by_powers(obligation, timeout_ms)
            if found is not None:
                return Proved(*found, time.perf_counter() - start)
        query = last = _Query(obligation, integers)
        # Nonlinear integer search is sensitive to z3's random choices: a few seeds, each
        # with a share of the timeout, make the answer far less erratic.
        seeds = _SEEDS if integers else (0,)
        for seed in seeds:
            solver = query.solver(timeout_ms // len(seeds), seed=seed)
            answer = check_budgeted(solver)
            if answer != z3.unknown:
                break
        mode = "integers" if integers else "real relaxation"
        if answer == z3.unsat:
            witness = _witness(query, timeout_ms)
            if witness is None:
                return Unknown(
                    f"{mode}: claim proved but no point of the assumptions was found, so the "
                    "proof may be vacuous",
                    query.smtlib(seed),
                    time.perf_counter() - start,
                )
            return Proved(
                f"z3 unsat ({mode})", witness, query.smtlib(seed), time.perf_counter() - start
            )
        if answer == z3.sat:
            reasons = []
            for point in query.points(solver.model()):
                confirmed, why = confirm(obligation, point)
                if confirmed:
                    shown = {k: v for k, v in point.items() if k in _symbols(obligation)}
                    return Counterexample(
                        shown,
                        _sides(obligation, shown),
                        query.smtlib(),
                        time.perf_counter() - start,
                    )
                reasons.append(why)
            notes.append(f"{mode}: z3 point not confirmed ({'; '.join(reasons[:2]) or 'none'})")
        else:
            notes.append(f"{mode}: z3 unknown ({solver.reason_unknown()})")
    text = last.smtlib() if last is not None else ""
    return Unknown("; ".join(notes), text, time.perf_counter() - start)


def _check_relaxed(
    obligation: Obligation,
    timeout_ms: int,
    text: bool = True,
    witness: dict[str, sp.Expr] | None = None,
) -> Result:
    """The real relaxation alone (no strengthening, no integers, no split).

    ``text`` False leaves the result's SMT-LIB text empty: the parts of a strengthening
    (:func:`_strengthened`) are certified by :func:`_certificate`, never by their own
    text, and printing each part's query cost as much as solving most of them.
    ``witness``: a sympy-confirmed point of ``obligation``'s assumptions already found
    (for the same assumptions), used instead of searching for one again.
    """
    start = time.perf_counter()
    query = _Query(obligation, False)
    solver = query.solver(timeout_ms)
    answer = check_budgeted(solver)
    if answer == z3.unsat:
        witness = witness or _witness(query, timeout_ms)
        if witness is not None:
            smtlib = query.smtlib() if text else ""
            return Proved(
                "z3 unsat (real relaxation)", witness, smtlib, time.perf_counter() - start
            )
    smtlib = query.smtlib() if text else ""
    return Unknown(f"real relaxation: {answer}", smtlib, time.perf_counter() - start)


def _rooted(obligation: Obligation) -> tuple[Obligation, dict] | None:
    """The obligation with each symbol under a square (or higher) root written as a power.

    A positive symbol x inside a non-integer power (``sqrt(5 M)``) is replaced by
    ``x_root**q`` with ``x_root > 0`` real: every positive x has such a root, so the claim
    over every x_root > 0 implies the claim over every x (the relaxation drops x's
    integrality, which only makes the claim stronger), and sympy then turns
    ``sqrt(5 M)`` into ``sqrt(5) M_root``: a polynomial in M_root. None when no symbol
    sits under a root.
    """
    exprs = (obligation.claim, *obligation.assumptions)
    roots: dict[sp.Symbol, int] = {}
    for expr in exprs:
        for node in sp.preorder_traversal(expr):
            if isinstance(node, sp.Pow) and node.exp.is_Rational and not node.exp.is_integer:
                for sym in node.base.free_symbols:
                    if sym.is_positive:
                        roots[sym] = math.lcm(roots.get(sym, 1), int(node.exp.q))
    if not roots:
        return None
    subs = {sym: sp.Symbol(f"{sym.name}_root", positive=True) ** q for sym, q in roots.items()}
    rooted = Obligation(
        f"{obligation.name}/rooted",
        obligation.family,
        substitute(obligation.claim, subs),
        tuple(substitute(a, subs) for a in obligation.assumptions),
        Expectation.HOLDS,
        obligation.sources,
        "the claim with every symbol under a root written as a power of a positive real",
    )
    return rooted, subs


def _strengthened(obligation: Obligation, timeout_ms: int, certify: bool = True) -> Proved | None:
    """Prove a rounding-free strengthening (see ``rounding``) and its side conditions.

    When the claim has a symbol under a root, the strengthening is tried on the rooted
    claim (:func:`_rooted`) too. The Proved result's SMT-LIB text is a certificate of the
    original claim (:func:`_certificate`); with ``certify=False`` it is empty (the
    constant search of :func:`prove` certifies only the constant it reports: the
    certificate's lemma check is the most expensive z3 call of a strengthened proof).
    """
    # (target, substitution, budget of each call). With a root in the claim, the plain
    # strengthening gets a glance first and, only if a call of it ended unknown, its full
    # budget after the rooted one: measured, where the rooted one proves a claim the plain
    # one mostly spends the whole processor-time net (15 s) to answer unknown. Nothing the
    # single full-budget pass proved is lost: the plain claim still gets its full budget.
    # A claim recorded as decided by its rooted strengthening (attnio.proofs.stages) skips
    # the glance, which ends in the processor-time net there: rooted first, then plain at
    # its full budget, so a rooted attempt that fails here loses nothing either. One
    # recorded as decided by its plain strengthening gets it at its full budget at once (a
    # glance that proves is the same search), then the rooted one.
    attempts: list[tuple[Obligation, dict, int]] = [(obligation, {}, timeout_ms)]
    glanced = False
    rooted = _rooted(obligation)
    if rooted is not None and stages.rooted_first(obligation):
        attempts = [(*rooted, timeout_ms), (obligation, {}, timeout_ms)]
    elif rooted is not None and stages.plain_first(obligation):
        attempts = [(obligation, {}, timeout_ms), (*rooted, timeout_ms)]
    elif rooted is not None:
        glance = min(timeout_ms, _GLANCE_MS)
        attempts = [(obligation, {}, glance), (*rooted, timeout_ms)]
        if glance < timeout_ms:
            attempts.append((obligation, {}, timeout_ms))
            glanced = True
    undecided = True
    for number, (target, subs, budget) in enumerate(attempts):
        if glanced and number == 2 and not undecided:
            break  # the glance was decided (sat): a longer look answers the same
        strong = strengthen(target.claim, uses_tight_floors(obligation.name))
        if strong is None:
            continue
        parts = [strong.claim, *strong.side_conditions]
        results = []
        for index, claim in enumerate(parts):
            part = Obligation(
                f"{target.name}/strengthened-{index}",
                obligation.family,
                claim,
                target.assumptions,
                Expectation.HOLDS,
                obligation.sources,
                "rounding-free strengthening" if index == 0 else "side condition",
            )
            # every part has the target's assumptions: the first part's witness (a point
            # of them, confirmed with sympy) is one for each side condition too
            known = results[0].witness if results else None
            result = _check_relaxed(part, budget, text=False, witness=known)
            if not isinstance(result, Proved):
                if number == 0:
                    undecided = result.reason.endswith("unknown")
                break
            results.append(result)
        else:
            witness = results[0].witness
            if subs:
                found = _witness(_Query(obligation, False), timeout_ms)
                if found is None:
                    continue
                witness = found
            rooted_note = " of the rooted claim" if subs else ""
            method = (
                f"z3 unsat on a rounding-free strengthening{rooted_note} and "
                f"{len(parts) - 1} side condition(s) (real relaxation)"
            )
            text = _certificate(obligation, target, subs, strong, timeout_ms) if certify else ""
            return Proved(method, witness, text)
    return None


def _certificate(
    original: Obligation, target: Obligation, subs: dict, strong: object, timeout_ms: int
) -> str:
    """SMT-LIB text that certifies the ORIGINAL claim of a strengthened proof.

    Queries separated by ``(reset)``, each to answer unsat. For an original claim
    ``small <= large`` (or ``<``) strengthened to ``upper <= lower``: (1) under the
    assumptions (with the roots x = x_root**q, x_root > 0, of a rooted claim) the
    strengthened claim holds; (2) its side conditions hold (when it has any); then the
    strengthening lemma, under the original assumptions, the definitions of the original's
    floors and ceilings, the roots and the side conditions: (3) ``small <= upper`` and (4)
    ``lower <= large``, so ``small <= upper <= lower <= large``. The lemma is split so: as
    one implication (the strengthened claim and side conditions imply the original claim)
    z3 leaves it unknown for most count claims, and re-solving (1) and (2) as one query
    ran into the processor-time net where each alone is unsat at once (measured, issue 22).
    When z3 does not re-check the split lemma within a glance (``_GLANCE_MS``) here, the
    lemma as one implication gets a glance; when that is not unsat either, the file is the
    original obligation alone (integer query), which a solver may leave unknown, at once
    for a claim the recording of :mod:`attnio.proofs.stages` names as one whose lemma z3
    does not re-check within a glance. The header says which.
    """
    if stages.lemma_unchecked(original):
        return _original_certificate(original, recorded=True)
    claim = original.claim
    if isinstance(claim, (sp.LessThan, sp.StrictLessThan)):
        small, large = claim.lhs, claim.rhs
    else:  # strengthen() returns None for anything but an inequality
        small, large = claim.rhs, claim.lhs
    upper, lower = strong.claim.lhs, strong.claim.rhs
    sides = tuple(strong.side_conditions)
    queries = _strengthened_queries(original, target, strong.claim, sides)
    roots = f" (with {', '.join(f'{k} = {v}' for k, v in subs.items())})" if subs else ""
    given = "the definitions of the original's roundings" + (" and roots" if subs else "")
    split = [
        _lemma(original, subs, sides, sp.Le(small, upper, evaluate=False), timeout_ms),
        _lemma(original, subs, sides, sp.Le(lower, large, evaluate=False), timeout_ms),
    ]
    head = _certificate_head(original)
    if all(text is not None for text in split):
        return _split_lemma_certificate(head, queries, split, bool(sides), roots, given)
    whole = _lemma(original, subs, (strong.claim, *sides), original.claim, timeout_ms)
    if whole is None:
        return _original_certificate(original)
    return (
        head + "; certificate: the STRENGTHENED CLAIM, its side conditions and the "
        f"STRENGTHENING LEMMA, {len(queries) + 1} queries separated by (reset);\n"
        f"; each must answer unsat: (1) the assumptions imply the strengthened claim{roots}"
        + (f"; (2) they imply its side conditions{roots}" if sides else "")
        + f";\n; ({len(queries) + 1}) the original assumptions, {given}, the strengthened "
        "claim and side conditions imply the original claim.\n"
        + RESET.join(queries)
        + RESET
        + f"; ({len(queries) + 1}) the strengthening lemma\n"
        + whole
    )


def _strengthened_queries(
    original: Obligation, target: Obligation, claim: sp.Basic, sides: tuple
) -> list[str]:
    """The first queries of :func:`_certificate`: under ``target``'s assumptions, the
    strengthened ``claim`` (1) and, when there are any, its side conditions ``sides`` (2)."""
    parts = [(claim, "strengthened claim")]
    if sides:
        parts.append((sp.And(*sides), "side conditions of the strengthened claim"))
    return [
        _Query(
            Obligation(
                f"{original.name}/certificate-{number}",
                original.family,
                part,
                target.assumptions,
                Expectation.HOLDS,
                original.sources,
                what,
            ),
            False,
        ).smtlib()
        for number, (part, what) in enumerate(parts, start=1)
    ]


def _split_lemma_certificate(
    head: str, queries: list[str], split: list[str], sides: bool, roots: str, given: str
) -> str:
    """:func:`_certificate`'s file when z3 re-checked both halves of the strengthening lemma
    (``split``: small <= upper, lower <= large) after the strengthened ``queries``."""
    first, second = len(queries) + 1, len(queries) + 2
    return (
        head + "; certificate: the STRENGTHENED CLAIM upper <= lower, its side conditions "
        "and the STRENGTHENING LEMMA small <= upper, lower <= large (the original claim "
        "is small <= large),\n"
        f"; {len(queries) + 2} queries separated by (reset), each must answer unsat: "
        f"(1) the assumptions imply the strengthened claim{roots}"
        + (f"; (2) they imply its side conditions{roots}" if sides else "")
        + f";\n; ({first}) the original assumptions, {given} and the side conditions "
        f"imply small <= upper; ({second}) they imply lower <= large.\n"
        + RESET.join(queries)
        + RESET
        + f"; ({first}) the strengthening lemma, small <= upper\n"
        + split[0]
        + RESET
        + f"; ({second}) the strengthening lemma, lower <= large\n"
        + split[1]
    )


RESET = "\n(reset)\n"
"""Separates the queries of a certificate file (a strengthened claim, its side conditions,
the lemma); :mod:`attnio.proofs.smtlib` exports it."""


def _lemma(
    original: Obligation, subs: dict, given: tuple, goal: sp.Basic, timeout_ms: int
) -> str | None:
    """The SMT-LIB query of one implication of a strengthening lemma, if z3 re-checks it
    (unsat) within a glance; None otherwise.

    The query asserts the original assumptions, the roots of ``subs`` (x = x_root**q,
    x_root > 0), ``given`` and the negation of ``goal``, with the definitions of every
    floor and ceiling in them.
    """
    translator = Translator(integers=False)
    lemma = [translator.translate_bool(a) for a in original.assumptions]
    for sym, power in subs.items():
        root = next(iter(power.free_symbols))
        lemma.append(translator.translate(root) > 0)
        lemma.append(translator.translate(sp.Eq(sym, power)))
    lemma += [translator.translate_bool(g) for g in given]
    lemma.append(z3.Not(translator.translate_bool(goal)))
    context = z3.Context()  # fresh, like every verdict's call (see _Query.solver)
    # A glance, not the full budget: the verdict does not depend on this re-check (the
    # strengthening is sound by attnio.proofs.rounding's lemmas), only which certificate
    # is written; measured, a lemma z3 does not settle in a glance runs into the
    # processor-time net (15 s for the default budget) and is not settled there either.
    solver = limit(z3.SolverFor("QF_NRA", ctx=context), min(timeout_ms, _GLANCE_MS))
    solver.add(*(term.translate(context) for term in (*translator.side_conditions(), *lemma)))
    if check_budgeted(solver) != z3.unsat:
        return None
    text = z3.Solver()
    text.add(*translator.side_conditions(), *lemma)
    return "(set-logic QF_NRA)\n" + text.to_smt2()


def _certificate_head(original: Obligation) -> str:
    return f"; attnio obligation {original.name}\n; claim: {original.claim}\n" + (
        f"; assumptions: {' & '.join(map(str, original.assumptions)) or 'none'}\n"
    )


FALLBACK_CERTIFICATE = "; certificate: the ORIGINAL obligation"
"""How the fallback certificate of a strengthened proof announces itself: the original
query, which z3 did not decide directly (that is why the strengthening was used), so
re-solving it is expected to end unknown."""


def _original_certificate(original: Obligation, recorded: bool = False) -> str:
    """The fallback certificate of a strengthened proof: the original integer query
    (``recorded``: the recording of :mod:`attnio.proofs.stages` says z3 does not re-check
    the lemma within a glance, so it was not tried)."""
    why = (
        f"whose lemma z3 does not re-check within a glance (recorded: {stages.COMMAND})"
        if recorded
        else "whose lemma it could not re-check here"
    )
    return (
        _certificate_head(original) + FALLBACK_CERTIFICATE + " (integer query). z3 proved it "
        f"through a rounding-free strengthening {why};\n"
        "; this file asks the original question: unsat certifies the claim, and a solver "
        "may answer unknown.\n" + _Query(original, True).smtlib()
    )


def _split_by_powers(
    obligation: Obligation, timeout_ms: int
) -> tuple[str, dict[str, sp.Expr], str] | None:
    """Prove ``lhs <= rhs`` through the coefficients of ``rhs - lhs`` in a positive symbol.

    If ``rhs - lhs = sum_i c_i x**i`` with ``x > 0`` (x free of the c_i) and every
    ``c_i >= 0`` is proved under the same assumptions, the claim holds. Sufficient,
    not necessary: used only after z3 gave no answer on the whole claim.

    Returns the method, a witness and the certificate: the coefficients' own certificates
    separated by ``(reset)``, every one of which must answer unsat (the whole claim, which
    z3 did not decide, would only end unknown when re-solved).
    """
    claim = obligation.claim
    if isinstance(claim, (sp.LessThan, sp.StrictLessThan)):
        gap = claim.rhs - claim.lhs
    elif isinstance(claim, (sp.GreaterThan, sp.StrictGreaterThan)):
        gap = claim.lhs - claim.rhs
    else:
        return None
    strict = isinstance(claim, (sp.StrictLessThan, sp.StrictGreaterThan))
    gap = sp.expand(gap)
    for var in sorted(gap.free_symbols, key=lambda sym: sym.name):
        if not var.is_positive:
            continue
        try:
            poly = sp.Poly(gap, var)
        except sp.PolynomialError:
            continue
        coefficients = [c for c in poly.all_coeffs() if c != 0]
        if len(coefficients) < 2:
            continue
        witness, certificates = None, []
        for index, coefficient in enumerate(coefficients):
            relation = sp.Gt if strict and index == len(coefficients) - 1 else sp.Ge
            part = Obligation(
                f"{obligation.name}/coefficient-{index}",
                obligation.family,
                relation(coefficient, 0, evaluate=False),
                obligation.assumptions,
                Expectation.HOLDS,
                obligation.sources,
                f"coefficient {index} of the gap in {var}",
            )
            result = check_whole(part, timeout_ms)
            if not isinstance(result, Proved):
                break
            witness = witness or result.witness
            certificates.append(result.smtlib)
        else:
            method = f"z3 unsat for each coefficient of rhs - lhs in powers of {var} > 0"
            head = _certificate_head(obligation) + (
                f"; certificate: rhs - lhs = sum_i c_i {var}**i with {var} > 0 (sympy's "
                f"expansion); the claim holds if every c_i >= 0,\n; {len(coefficients)} "
                "coefficients, each certificate below (separated by (reset)) must answer "
                "unsat.\n"
            )
            return method, witness, head + RESET.join(certificates)
    return None


def _sides(obligation: Obligation, point: dict[str, sp.Expr]) -> tuple[sp.Expr, sp.Expr] | None:
    claim = obligation.claim
    if not isinstance(claim, sp.core.relational.Relational):
        return None
    subs = {sym: point[sym.name] for sym in claim.free_symbols}
    return sp.nsimplify(_value_at(claim.lhs, subs)), sp.nsimplify(_value_at(claim.rhs, subs))


def _value_at(expr: sp.Expr, subs: dict) -> sp.Expr:
    """``expr`` at the point ``subs`` (a number for each of its symbols).

    Every symbol is replaced at once (``xreplace``), as :func:`_holds` does: ``subs``
    rebuilt each partly substituted ``Min`` and ``Max`` of a count and compared its
    arguments symbolically, seconds per refuting point. Where that raises or leaves a
    symbol, ``subs`` as before.
    """
    try:
        value = expr.xreplace(subs)
    except (TypeError, ValueError, ZeroDivisionError):
        value = None
    if value is None or value.free_symbols:
        value = expr.subs(subs)
    return value


def check_at(
    obligation: Obligation,
    constant: int,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    certify: bool = False,
) -> Result:
    """Check ``obligation`` at one value of its constant, with the stages :func:`prove`'s
    search uses (so a constant it reported is proved again the same way).

    Fast stages only (relaxation, rounding-free strengthening): the integer stage mostly
    times out on the false side of the threshold. With ``certify``, a proof carries its
    SMT-LIB certificate (as :func:`prove`'s reported constant does); otherwise none.
    """
    instance = obligation.at(constant)
    if instance.via is not None:
        chained = _via_at(instance, timeout_ms, certify)
        if chained is not None:
            return chained
    return _fast(instance, timeout_ms, certify)


def _fast(instance: Obligation, timeout_ms: int, certify: bool) -> Result:
    """:func:`check_at`'s stages on an obligation without a constant left."""
    if strengthen(instance.claim) is not None:
        # The strengthening is lossy: when it fails, a short look at the whole claim.
        proof = _strengthened(instance, timeout_ms, certify=certify)
        return proof or _check_relaxed(instance, min(timeout_ms, _GLANCE_MS))
    return _check(instance, timeout_ms, split=False, integers_stage=False)


def _via_at(instance: Obligation, timeout_ms: int, certify: bool) -> Proved | None:
    """``lhs <= X`` and ``X <= rhs`` with :func:`check_at`'s stages, X the ``via`` term.

    The constant search's form of :func:`check_via`: a proof when both steps are proved
    (the certificate, with ``certify``, is both steps' queries separated by ``(reset)``),
    else None, and the caller checks the claim itself.
    """
    return _transitive(instance, lambda step: _fast(step, timeout_ms, certify), certify)


def _bracket(
    attempt: Callable[[int], Result], results: dict[int, Result], low: int, limit: int
) -> tuple[int, int] | None:
    """:func:`prove`'s doubling: ``(low, high)`` with ``high`` proved and ``low`` not (or
    the largest value below ``high`` tried and not proved), or None when no C <= ``limit``
    proved, the rungs halfway between the doubling ones included.
    """
    high = low + 1
    first = high
    while not isinstance(attempt(high), Proved):
        low = high
        if high >= limit:
            # z3's answer is not monotone in C (a relaxation can fail at 916 and prove at
            # 776): before giving up, the rungs halfway (x 3/2) between the doubling ones.
            rungs = [r for k in range(64) if (r := (3 * first << k) // 2) < limit]
            high = next((r for r in rungs if isinstance(attempt(r), Proved)), None)
            if high is None:
                return None
            tried = [c for c, r in results.items() if c < high and not isinstance(r, Proved)]
            return max(tried, default=first - 1), high
        high = min(2 * high, limit)
    return low, high


def _bisect(attempt: Callable[[int], Result], low: int, high: int) -> int:
    """The least C in ``(low, high]`` proved by bisection, ``high`` proved and ``low`` not."""
    while high - low > 1:
        middle = (low + high) // 2
        if isinstance(attempt(middle), Proved):
            high = middle
        else:
            low = middle
    return high


def _least_note(
    results: dict[int, Result], high: int, refuted: Counterexample | None
) -> tuple[str, Counterexample | None]:
    """What C - 1 gave, for :func:`prove`'s note, and the refutation to report (C - 1's,
    when it was refuted; else the sampled one, ``refuted``)."""
    below = results.get(high - 1)
    if below is None:
        return "C = 1 is the least", refuted
    if isinstance(below, Counterexample):
        note = f"C = {high - 1} refuted at {_show(below.point)}: C is the least"
        return note, _with(below, high - 1, below.seconds, "")
    note = f"C = {high - 1}: {below.status}"
    if refuted is not None:
        note += (
            f"; C = {refuted.constant} refuted at {_show(refuted.point)}, so the least "
            f"constant is in ({refuted.constant}, {high}]"
        )
    return note, refuted


def prove(
    obligation: Obligation, timeout_ms: int = DEFAULT_TIMEOUT_MS, limit: int = CONSTANT_LIMIT
) -> Outcome:
    """Check ``obligation``; for one with a constant, find the smallest integer that proves it.

    For a claim ``lhs <= C * R`` a grid search (:mod:`attnio.proofs.sampling`)
    first finds a point with a large exact ratio ``rho = lhs / R``: every integer
    C < rho is refuted there (the point is confirmed with sympy). The search then
    doubles C from the first candidate until z3 proves the claim (or ``limit`` is
    passed) and bisects between the last unproved and the first proved value,
    using the fast stages only (relaxation and rounding-free strengthening); if no rung of
    the doubling proves, the rungs halfway between them (x 3/2) are tried before the
    search gives up, as z3's answer is not monotone in C. The
    reported C is proved; ``note`` says what C - 1 gave: *refuted* (so C is the
    least integer constant) or *unknown* (C is the least z3 proved, and the least
    true constant lies between the sampled ratio and C). The search's calls run under
    a fifth of the processor-time net (:func:`~attnio.proofs.budget.searching`), so the
    reported C is proved again, under the full net, where it was found; ``refutation``
    of the outcome is the confirmed counterexample at the largest refuted C.
    :mod:`attnio.proofs.constants` records searches and re-proves them.
    """
    if obligation.constant is None:
        return Outcome(obligation, check(obligation, timeout_ms))
    start = time.perf_counter()
    results: dict[int, Result] = {}

    def attempt(value: int) -> Result:
        if value not in results:
            with searching():  # a reported C was proved well inside the full net
                results[value] = check_at(obligation, value, timeout_ms)
        return results[value]

    low, refuted = 0, None
    sample = largest_ratio(obligation)
    if sample is not None:
        refuted = sampled_refutation(obligation, sample)
        if refuted is not None:
            low = refuted.constant
            results[low] = refuted
    if low >= limit:
        return Outcome(
            obligation,
            _with(
                refuted,
                low,
                time.perf_counter() - start,
                f"sampled ratio {sp.N(sample[0], 6)} > limit {limit}",
            ),
            refuted,
        )
    bracket = _bracket(attempt, results, low, limit)
    if bracket is None:
        last = check(obligation.at(limit), timeout_ms)
        return Outcome(
            obligation,
            _with(last, limit, time.perf_counter() - start, f"no C <= {limit} proved"),
            refuted,
        )
    high = _bisect(attempt, *bracket)
    if isinstance(results[high], Proved) and not results[high].smtlib:
        # The same queries again, now with the certificate of this constant (should a call
        # stopped by the processor-time net not repeat, the original query certifies it).
        instance = obligation.at(high)
        results[high] = _strengthened(instance, timeout_ms) or _with_smtlib(
            results[high], _original_certificate(instance)
        )
    note, refuted = _least_note(results, high, refuted)
    seconds = time.perf_counter() - start
    return Outcome(obligation, _with(results[high], high, seconds, note), refuted)


def refutation_at(
    obligation: Obligation, constant: int, point: dict[str, sp.Expr]
) -> tuple[Counterexample | None, str]:
    """The counterexample to ``obligation`` at ``constant`` at ``point``, confirmed with
    sympy, or None with the reason it is not one."""
    instance = obligation.at(constant)
    confirmed, why = confirm(instance, point)
    if not confirmed:
        return None, why
    found = Counterexample(
        point, _sides(instance, point), _Query(instance, False).smtlib(), constant=constant
    )
    return found, ""


def sampled_refutation(
    obligation: Obligation, sample: tuple[sp.Expr, dict[str, sp.Expr]] | None = None
) -> Counterexample | None:
    """The refutation of the largest integer C below the ratio the grid search samples
    (:func:`~attnio.proofs.sampling.largest_ratio`; ``sample`` if already taken), or None."""
    sample = largest_ratio(obligation) if sample is None else sample
    if sample is None:
        return None
    rho, point = sample
    below = int(sp.ceiling(rho)) - 1
    return refutation_at(obligation, below, point)[0] if below >= 1 else None


def _with_smtlib(result: Result, text: str) -> Result:
    return type(result)(**dict(result.__dict__, smtlib=text))


def _with(result: Result, constant: int | None, seconds: float, note: str) -> Result:
    fields = dict(result.__dict__, constant=constant, seconds=seconds, note=note)
    return type(result)(**fields)


def _show(point: dict[str, sp.Expr]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(point.items()))


def describe(result: Result) -> str:
    """A one-line description of a result, for tables."""
    if isinstance(result, Proved):
        text = result.method
    elif isinstance(result, Counterexample):
        text = _show(result.point)
        if result.sides is not None:
            text += f" (lhs={result.sides[0]}, rhs={result.sides[1]})"
    else:
        text = result.reason
    return f"{text}; {result.note}" if result.note else text


__all__ = [
    "CONSTANT_LIMIT",
    "DEFAULT_TIMEOUT_MS",
    "FALLBACK_CERTIFICATE",
    "TRANSITIVE_CERTIFICATE",
    "Counterexample",
    "Outcome",
    "Proved",
    "Result",
    "Unknown",
    "check",
    "check_plain",
    "check_via",
    "check_whole",
    "confirm",
    "describe",
    "prove",
    "refutation_at",
    "sampled_refutation",
]


Query = _Query
"""The z3 query of an obligation (relaxed or integer); public for the proof cache's keys."""
symbols_of = _symbols
"""The sympy symbols of an obligation by name; public for the proof cache."""
sides_at = _sides
"""Both sides of an obligation's claim at a point; public for the proof cache."""
show_point = _show
"""A point as ``k=v, ...`` in name order, as notes print it."""
