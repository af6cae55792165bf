"""The proofs suite of ``attnio verify``: every obligation, the planted claim, derived statuses.

Each check takes no argument and returns ``(passed, detail)``; ``passed`` is
``None`` (skipped) when there is nothing to check. Registered in
``attnio._cli_verify.SUITES``.

Two tiers (:func:`configure`). The default tier leaves out the obligations of
:data:`~attnio.proofs.suite.THOROUGH_ONLY` (open claims that end unknown within the
budget, whatever the run) and only parses the exported SMT-LIB files back and checks
that they agree with their verdicts; the thorough tier proves every obligation and
re-solves every proof's file (a counterexample's point is checked to be a model of its
file in both tiers). With a :class:`~attnio.proofs.cache.ProofCache`, decided
outcomes of earlier runs are read back (re-checked) instead of proved again.
"""

from __future__ import annotations

import random
import tempfile

import sympy as sp
import z3

from attnio.bounds import Status, catalog
from attnio.bounds.checks import Check
from attnio.bounds.consistency import strip_mask_point

from . import smtlib, stages, suite
from .cache import ProofCache
from .check import (
    DEFAULT_TIMEOUT_MS,
    FALLBACK_CERTIFICATE,
    Counterexample,
    Outcome,
    Proved,
    Unknown,
    prove,
)
from .constants import COMMAND, NOT_REPRODUCED, RECORDED_UNKNOWN, entry_of, recorded_on
from .costs import costly
from .costs import recorded_on as costs_recorded_on
from .derivation import derivations
from .generate import backing, obligations, planted
from .translate import Translator

_OUTCOMES: list[Outcome] = []
_SETTINGS: dict[str, object] = {
    "thorough": False,
    "cache": None,
    "background": None,
    "chosen": None,
}


def configure(thorough: bool = False, cache: ProofCache | None = None, start: bool = False) -> None:
    """Choose the tier and the proof cache of the next run of these checks.

    Parameters
    ----------
    thorough : bool
        Prove every obligation (also those of :data:`~attnio.proofs.suite.THOROUGH_ONLY`)
        and re-solve the exported SMT-LIB file of every proof.
    cache : ProofCache or None
        Where decided outcomes are read and stored; None proves everything.
    start : bool
        Start proving the obligations now, over every usable core
        (:class:`~attnio.proofs.suite.Background`), so that the checks run before the first
        of :data:`USES_OUTCOMES` overlap with the proofs; call :func:`stop` if that check
        will not run after all.
    """
    stop()
    _SETTINGS.update(thorough=bool(thorough), cache=cache, chosen=None)
    _OUTCOMES.clear()
    if start:
        chosen, _ = _chosen()
        _SETTINGS["background"] = suite.Background(
            chosen, DEFAULT_TIMEOUT_MS, jobs=suite.usable_cores(), cache=cache
        )


def stop() -> None:
    """Stop the proofs :func:`configure` started, if any are still running."""
    background = _SETTINGS["background"]
    _SETTINGS["background"] = None
    if background is not None:
        background.stop()


def _chosen() -> tuple[list, list]:
    """The obligations this tier proves, and those it leaves out (generated once per
    :func:`configure`: the proofs and the note on what was left out share them)."""
    if _SETTINGS.get("chosen") is None:
        generated = obligations()
        split = (generated, []) if _SETTINGS["thorough"] else suite.default_tier(generated)
        _SETTINGS["chosen"] = split
    return _SETTINGS["chosen"]


def _outcomes() -> list[Outcome]:
    if not _OUTCOMES:  # over every usable core: the statuses do not depend on it
        background = _SETTINGS["background"]
        if background is not None:
            _OUTCOMES.extend(background.outcomes())
            _SETTINGS["background"] = None
        else:
            chosen, _ = _chosen()
            cache = _SETTINGS["cache"]
            found = suite.outcomes(
                chosen, DEFAULT_TIMEOUT_MS, jobs=suite.usable_cores(), cache=cache
            )
            _OUTCOMES.extend(found)
    return _OUTCOMES


def left_out() -> str:
    """What the default tier left out and how to run it; empty in the thorough tier.

    Examples
    --------
    >>> configure(thorough=True)
    >>> left_out()
    ''
    >>> configure()
    >>> left_out().endswith("run them: attnio verify --thorough")
    True
    """
    if _SETTINGS["thorough"]:
        return ""
    _, skipped = _chosen()
    open_ = [o for o in skipped if o.name in suite.THOROUGH_ONLY]
    seconds = [costly(o) for o in skipped if o.name not in suite.THOROUGH_ONLY]
    return (
        f"left out: {len(open_)} open obligation(s) that end unknown or take minutes "
        f"(attnio.proofs.suite.THOROUGH_ONLY), {len(seconds)} unchanged obligation(s) whose "
        f"recorded proofs took {sum(s for s in seconds if s is not None):.0f} s "
        f"(proofs/costs.json, recorded {costs_recorded_on()}) and the re-solving of the "
        "exported SMT-LIB files; run them: attnio verify --thorough"
    )


def evaluate(expr: sp.Expr, values: dict[str, sp.Expr]) -> sp.Expr:
    """Evaluate ``expr`` through its z3 translation at ``values``.

    The integer-mode translation with its definitions is solved with the symbols
    fixed (floor and ceiling witnesses are then determined; in the real relaxation
    they would not be); the value of the term in the model is returned as a sympy
    number.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> evaluate(sp.ceiling(x / 2) + sp.Max(x, 3), {"x": 5})
    8
    """
    translator = Translator(integers=True)
    term = translator.translate(expr)
    solver = z3.Solver()
    solver.add(*translator.definitions)
    for name, var in translator.variables.items():
        value = sp.Rational(values[name])
        solver.add(var == z3.RealVal(f"{value.p}/{value.q}"))
    if solver.check() != z3.sat:
        raise ValueError(f"the definitions of {expr} admit no value at {values}")
    result = solver.model().eval(term, model_completion=True)
    if z3.is_algebraic_value(result):
        result = result.approx(30)
    return sp.Rational(result.numerator_as_long(), result.denominator_as_long())


def check_translation_agrees() -> tuple[bool | None, str]:
    """The z3 translation of every catalog expression agrees with sympy at random points."""
    rng = random.Random(20240211)
    ranges = {"n": (1, 300), "d": (1, 64), "M": (1, 5000), "Z": (1, 9000), "r": (1, 50)}
    compared, bad = 0, []
    for bound in catalog():
        for expr in (bound.explicit, bound.asymptotic):
            if expr is None:
                continue
            tries = 0
            while tries < 40 and compared < 10**6:
                tries += 1
                values = {
                    name: sp.Integer(rng.randint(*ranges.get(name, (1, 100))))
                    for name in bound.parameters
                }
                mask = {"s", "s_c", "Z"} & set(values)
                if mask:  # the densities and pairs of one actual tile mask at (n, M)
                    point = strip_mask_point(
                        int(values.get("n", 100)),
                        int(values.get("M", rng.randint(1, 5000))),
                        sp.Rational(rng.randint(1, 16), 16),
                    )
                    values.update({name: point[name] for name in mask})
                if not bound.applies(**values):
                    continue
                subs = {sym: values[sym.name] for sym in expr.free_symbols}
                try:  # every symbol at once: sympy's value, without rebuilding each step
                    exact = expr.xreplace(subs)
                except TypeError:
                    exact = expr.subs(subs)
                if not exact.is_finite:
                    continue
                mine = evaluate(expr, {k: values[k] for k in map(str, expr.free_symbols)})
                compared += 1
                if abs(sp.N(exact - mine, 40)) > sp.Rational(1, 10**12) * max(1, abs(sp.N(exact))):
                    bad.append(f"{bound.name}: sympy {exact} vs z3 {mine} at {values}")
                if tries >= 3:
                    break
    if compared == 0:
        return None, "no catalog expression to translate"
    return (not bad), "; ".join(bad[:3]) or f"{compared} evaluations agree"


def check_obligations() -> tuple[bool | None, str]:
    """Every expected-true obligation is proved and no planted claim survives."""
    outcomes = _outcomes()
    if not outcomes:
        return None, "no obligation generated"
    # a recorded constant or refutation that did not reproduce fails, open claim or not
    failed = [
        o
        for o in outcomes
        if o.failed
        or (isinstance(o.result, Unknown) and o.result.reason.startswith(NOT_REPRODUCED))
    ]
    findings = [o.obligation.name for o in outcomes if o.verdict == "finding"]
    unknown = [o.obligation.name for o in outcomes if o.verdict == "unknown"]
    detail = (
        f"{len(outcomes)} obligations, {len(failed)} failed, {len(findings)} findings, "
        f"{len(unknown)} unknown open claims"
    )
    constant = [o.obligation for o in outcomes if o.obligation.constant is not None]
    replayed = sum(1 for o in constant if entry_of(o) is not None)
    detail += (
        f"; {replayed} of {len(constant)} constants re-proved as recorded ({COMMAND}, "
        f"{recorded_on()})"
    )
    if replayed < len(constant):
        detail += f", {len(constant) - replayed} searched (no record of today's text)"
    replayed_unknown = [
        o.obligation.name
        for o in outcomes
        if isinstance(o.result, Unknown) and o.result.reason.startswith(RECORDED_UNKNOWN)
    ]
    if replayed_unknown:
        detail += (
            f"; {len(replayed_unknown)} open claims' recorded searches that proved no constant "
            "replayed at their limit, the full-budget call there not run again (attnio prove "
            f"--search --only NAME searches afresh): {', '.join(replayed_unknown[:3])}"
        )
    names = {o.obligation.name for o in outcomes}
    entries = [e for e in stages.recorded().values() if e["obligation"] in names]
    first = {stage: sum(1 for e in entries if e["stage"] == stage) for stage in stages.STAGES}
    unchecked = sum(1 for e in entries if e.get("lemma") is False)
    if entries:
        tried = ", ".join(f"{count} {stage}" for stage, count in first.items() if count)
        detail += (
            f"; as recorded ({stages.COMMAND}, {stages.recorded_on()}), claims tried their "
            f"deciding stage first ({tried}; every other stage still follows) and "
            f"{unchecked} certificates are the original query without a glance at the lemma"
        )
    cache = _SETTINGS["cache"]
    if isinstance(cache, ProofCache):
        detail += f"; {cache.hits} answered from the proof cache"
    if failed:
        detail += "; failed: " + ", ".join(o.obligation.name for o in failed[:5])
    if findings:
        detail += "; findings: " + ", ".join(findings[:5])
    return (not failed), detail


def check_planted_refuted() -> tuple[bool | None, str]:
    """The planted false claim (Flash never worse than square tiling, M < d^2) is refuted.

    It must end as a counterexample confirmed by sympy.
    """
    outcomes = [prove(o) for o in planted()]
    if not outcomes:
        return None, "no planted claim"
    bad = [o.obligation.name for o in outcomes if not isinstance(o.result, Counterexample)]
    shown = "; ".join(
        f"{o.obligation.name}: {o.result.point}"
        for o in outcomes
        if isinstance(o.result, Counterexample)
    )
    return (not bad), (f"not refuted: {', '.join(bad)}" if bad else shown)


def check_derived_status() -> tuple[bool | None, str]:
    """Every derived record is backed: a complete derivation with every step proved, or a count.

    A record listed by a derivation needs the file, a complete argument, a step reading it
    and every step of the derivation proved; any other ``derived`` record must be an exact
    count of an attnio algorithm (``attnio verify`` runs those on the machine:
    ``algorithms.derived_counts_reproduced``). Anything else fails.
    """
    outcomes = {o.obligation.name: o for o in _outcomes()}
    checked, bad, counts = 0, [], 0
    for derivation in derivations():
        if not derivation.path.is_file():
            bad.append(f"{derivation.file} is missing")
    for bound in catalog(status=Status.DERIVED.value):
        checked += 1
        backed, why = backing(bound)
        if not backed:
            bad.append(f"{bound.name}: {why}")
            continue
        listing = [x for x in derivations() if bound.name in x.records]
        counts += not listing
        for derivation in listing:
            for step in derivation.steps:
                if step.name not in outcomes:
                    bad.append(f"{bound.name}: step {step.name} was not run")
                    continue
                result = outcomes[step.name].result
                if not isinstance(result, Proved):
                    bad.append(f"{bound.name}: step {step.name} is {result.status}")
    if checked == 0:
        return None, "no derived record"
    return (not bad), "; ".join(bad) or (
        f"{checked} derived records backed: {checked - counts} by derivations with every step "
        f"proved, {counts} exact counts"
    )


def check_smtlib_round_trip() -> tuple[bool | None, str]:
    """Every exported SMT-LIB file parses back with z3 and agrees with its verdict.

    Default tier: each file parses, its header names its obligation, its status is the
    verdict's answer (unsat for a proof, sat for a counterexample), and a
    counterexample's point is a model of it. Thorough tier: each proof's file is also
    re-solved in a fresh context, except the fallback certificates of strengthened proofs
    (the original query, which z3 did not decide directly; ``FALLBACK_CERTIFICATE``). A
    re-solved file may answer unknown within its budget (solver incompleteness, not a
    wrong export: a proof was found by the solver that made it); only sat fails the
    check. Unknowns are counted. A counterexample's file is not re-solved: its point,
    re-checked exactly with sympy, is a model of the file (checked above), so it is
    satisfiable, and z3 could only confirm that or, on the hard queries these are,
    spend its whole budget to answer unknown.
    """
    outcomes = [o for o in _outcomes() if isinstance(o.result, Proved | Counterexample)]
    if not outcomes:
        return None, "nothing decided to export"
    bad, undecided = [], 0
    parsing = z3.Context()  # one for every file's parse: a fresh one per query cost 4 s
    with tempfile.TemporaryDirectory() as directory:
        paths = smtlib.write(outcomes, directory)
        for outcome, path in zip(outcomes, paths, strict=True):
            result = outcome.result
            expected = "unsat" if isinstance(result, Proved) else "sat"
            point = result.point if isinstance(result, Counterexample) else None
            name = outcome.obligation.name
            wrong = smtlib.disagreement(path, name, expected, point, context=parsing)
            if wrong:
                bad.append(wrong)
        if not _SETTINGS["thorough"]:
            detail = (
                f"{len(outcomes)} files parse back and agree with their verdicts "
                "(re-solved only with --thorough)"
            )
            return (not bad), "; ".join(bad[:3]) or detail
        # A strengthened proof whose lemma z3 did not re-check exports the original query,
        # which z3 did not decide directly: re-solving it would spend the whole budget to
        # answer unknown. Those files are parsed and checked above, not re-solved.
        texts = [path.read_text(encoding="utf-8") for path in paths]
        fallback = [FALLBACK_CERTIFICATE in text for text in texts]
        refuted = [isinstance(outcome.result, Counterexample) for outcome in outcomes]
        skipped = [a or b for a, b in zip(fallback, refuted, strict=True)]
        solvable = [p for p, skip in zip(paths, skipped, strict=True) if not skip]
        answers = iter(suite.spread(smtlib.z3_answer, solvable, suite.usable_cores()))
        for path, skip in zip(paths, skipped, strict=True):
            if skip:
                continue
            answer = next(answers)
            if answer == "unknown":
                undecided += 1
            elif answer != "unsat":
                bad.append(f"{path.name}: {answer}, expected unsat")
    detail = (
        f"{len(outcomes)} files parse back and agree; the {len(solvable)} proofs among them "
        f"re-solved and none against its verdict"
    )
    if undecided:
        detail += f" ({undecided} re-solved to unknown within the budget)"
    if any(refuted):
        detail += (
            f"; {sum(refuted)} counterexamples' points are models of their files, not re-solved"
        )
    if any(fallback):
        detail += (
            f"; {sum(fallback)} certificates of strengthened proofs are the original query, "
            "not re-solved"
        )
    return (not bad), "; ".join(bad[:3]) or detail


CHECKS: tuple[Check, ...] = (
    check_translation_agrees,
    check_obligations,
    check_planted_refuted,
    check_derived_status,
    check_smtlib_round_trip,
)
"""The proofs checks, in the order ``attnio verify`` runs them."""

USES_OUTCOMES: tuple[Check, ...] = (
    check_obligations,
    check_derived_status,
    check_smtlib_round_trip,
)
"""The checks that read the obligations' outcomes: when one of them will run,
``configure(start=True)`` lets the proofs overlap with the checks before it."""

__all__ = ["CHECKS", "USES_OUTCOMES", "configure", "evaluate", "left_out", "stop"]
