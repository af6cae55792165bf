"""z3 obligations of a claim against the catalog, checked by :mod:`attnio.proofs`.

Built from the catalog's records the way :mod:`attnio.proofs.generate` builds its
own, as :class:`~attnio.proofs.obligation.Obligation` records checked by
:func:`attnio.proofs.check.check` (relaxation, integers, rounding-free strengthening;
every counterexample confirmed with sympy). For a claim with lower side L and upper
side U (see :mod:`attnio.claims.claim`), inside the claim's scope and the record's
conditions:

- L <= every explicit upper record of the same regime and pass (the exact counts of
  attnio's algorithms): an algorithm moving fewer words than L refutes L;
- every explicit lower record of the same regime and pass <= U, and, for an upper
  bound naming an ``algorithm``, that algorithm's exact count <= U;
- tight claims: E(M') <= C**2 * E(M) for M < M' (the optimum never grows with M);
- lower and upper claims: E non-increasing in M (advisory: a bound need not be).

An approximate algorithm's count never refutes a lower side: the count does not say
whether the algorithm meets the claim's accuracy (:mod:`.counting` refutes with runs
whose error bound does). Only records with evidence ``stated``, ``stated-secondary`` or ``derived``
(:data:`attnio.proofs.generate.SOLID`) can refute; a conflict with a ``reconstructed``
record is reported as advisory. A z3 counterexample is re-evaluated with exact sympy
rationals before it is shown, and counts as a refutation only at a point of n, d, M
alone: a point that also sets a density, a pair count or a rank may not be realised by
any actual mask or feature map, so it is reported as unknown with the point.

Each z3 call gets a budget of :data:`BUDGET_MS`, which :mod:`attnio.proofs.budget` turns
into z3's deterministic resource limit (``rlimit``), so the verdicts do not depend on the
machine's load; processor and wall-clock time are only safety nets.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import sympy as sp

from attnio.bounds import Bound, Kind, Regime
from attnio.bounds.symbols import ALL, M
from attnio.proofs import (
    Counterexample,
    Expectation,
    InconsistentAssumptions,
    Obligation,
    Proved,
    UnsupportedExpression,
    check,
    substitute,
)
from attnio.proofs.generate import SOLID

from .claim import LEAST_MEMORY, Claim
from .errors import ClaimError
from .records import evidence_records
from .verdict import Evidence

BUDGET_MS = 500
"""Budget of one z3 call in milliseconds: a resource limit of 2 million z3 steps
(:func:`attnio.proofs.budget.rlimit`), enough for every obligation of the example claims."""

PLAIN = frozenset({"n", "d", "M"})
"""Parameters at which a z3 counterexample is a refutation by itself."""


def _slug(name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-._").lower()
    return slug or "claim"


def _show_point(point: dict[str, sp.Expr]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(point.items()))


def build_obligation(claim: Claim, what: str, relation: sp.Basic, *assumptions: sp.Basic,
                     sources: tuple[str, ...] = (), statement: str = "") -> Obligation:  # fmt: skip
    """The obligation ``relation`` of ``claim`` on its scope, the extra ``assumptions`` and
    the domain of every symbol involved, named ``claims/<claim>/<what>``."""
    extra = [a for a in assumptions if a is not sp.true]
    relations = [relation, *extra]
    domain = claim.domain(*relations)
    family = "monotonicity" if what.startswith("monotone") else "lower-le-upper"
    return Obligation(
        f"claims/{_slug(claim.name)}/{what}",
        family,
        relation,
        tuple(dict.fromkeys([claim.scope, *extra, *domain])),
        Expectation.OPEN,
        (claim.name, *sources),
        statement or str(relation),
    )


def conditions_evidence(claim: Claim, budget_ms: int = BUDGET_MS) -> Evidence:
    """Check that the claim's scope has a point; raise :class:`ClaimError` if it has none."""
    start = time.perf_counter()
    scope = sp.And(claim.scope, *claim.domain())
    if scope is sp.true:
        return Evidence("conditions", "passed", "no conditions: the claim applies everywhere")
    where = ", ".join(["n, d >= 1", *(str(r) for r in claim.domain())])
    if scope is sp.false:
        raise ClaimError(
            f"claim {claim.name!r}: field 'conditions': {claim.bound.conditions} admits no point "
            f"with {where} (always false; below M = {LEAST_MEMORY} no attention DAG can be "
            "pebbled)"
        )
    ob = Obligation(
        f"claims/{_slug(claim.name)}/conditions",
        "derivation",
        sp.false,
        (scope,),
        Expectation.OPEN,
        (claim.name,),
        "the conditions have a point",
    )
    try:
        result = check(ob, budget_ms)
    except InconsistentAssumptions:
        raise ClaimError(
            f"claim {claim.name!r}: field 'conditions': {claim.scope} admits no point with "
            f"{where} (z3 proved it unsatisfiable; below M = {LEAST_MEMORY} no attention DAG "
            "can be pebbled)"
        ) from None
    except (UnsupportedExpression, TypeError) as error:
        return Evidence("conditions", "unknown", f"z3 cannot decide the conditions: {error}",
                        seconds=time.perf_counter() - start)  # fmt: skip
    seconds = time.perf_counter() - start
    if isinstance(result, Counterexample):
        return Evidence(
            "conditions",
            "passed",
            f"the conditions have a point, e.g. {_show_point(result.point)}",
            point={k: str(v) for k, v in result.point.items()},
            seconds=seconds,
        )
    return Evidence("conditions", "unknown", f"z3 found no point: {getattr(result, 'reason', '')}",
                    seconds=seconds)  # fmt: skip


def _pairs(claim: Claim) -> Iterator[tuple[str, sp.Expr, Bound, bool, str]]:
    """(what, claim side, record, whether the side must be <= the record, statement)."""
    bound = claim.bound
    lower, upper = claim.lower_side, claim.upper_side
    if lower is not None:
        for record in evidence_records(kind="upper"):
            if record.explicit is None or not bound.comparable(record):
                continue
            yield ("lower-vs-" + record.name, lower, record, True,
                   f"the claim's lower side is at most {record.name}")  # fmt: skip
    if upper is not None:
        for record in evidence_records(kind="lower"):
            if record.explicit is None or not record.comparable(bound):
                continue
            yield ("upper-vs-" + record.name, upper, record, False,
                   f"{record.name} is at most the claim's upper side")  # fmt: skip
        if bound.algorithm is not None and bound.kind is Kind.UPPER:
            records = evidence_records(
                kind="upper", pass_=bound.pass_.value, algorithm=bound.algorithm
            )
            for record in records:
                if record.explicit is None or not set(record.parameters) <= (
                    set(bound.parameters) | PLAIN
                ):
                    continue
                yield ("count-" + record.name, upper, record, False,
                       f"{bound.algorithm}'s exact count {record.name} is at most the claim")  # fmt: skip


def _reproduce(record: Bound, point: dict[str, sp.Expr]) -> str:
    """A command that shows the record's value at ``point`` (a machine run for a count)."""
    if record.algorithm is not None and set(point) <= PLAIN and "count" in record.name:
        n, d, memory = (point.get(k) for k in ("n", "d", "M"))
        return (
            f"attnio simulate {record.algorithm} --pass {record.pass_.value} --n {n} --d {d} "
            f"--M {memory} --count-only"
        )
    args = ", ".join(f"{k}={v}" for k, v in sorted(point.items()) if k in record.parameters)
    return (
        f"python -c \"from attnio.bounds import get; print(get('{record.name}').evaluate({args}))\""
    )


def _values(
    claim: Claim, side: sp.Expr, other: sp.Expr, point: dict[str, sp.Expr]
) -> tuple[sp.Expr, sp.Expr]:
    subs = {ALL[name]: sp.nsimplify(value) for name, value in point.items() if name in ALL}
    return sp.nsimplify(side.subs(subs)), sp.nsimplify(other.subs(subs))


def catalog_evidence(claim: Claim, budget_ms: int = BUDGET_MS) -> list[Evidence]:
    """z3 obligations of ``claim`` against the catalog's explicit records, as evidence."""
    found: list[Evidence] = []
    if claim.bound.explicit is None:
        return [
            Evidence(
                "z3",
                "unknown",
                "asymptotic-only claim: O / Omega / Theta hide constants, so no point refutes "
                "it; it is compared by its order (the 'order' check)",
            )
        ]
    for what, side, record, below, statement in _pairs(claim):
        relation = (
            sp.Le(side, record.explicit, evaluate=False)
            if below
            else sp.Le(record.explicit, side, evaluate=False)
        )
        solid = record.status in SOLID
        advisory = not solid
        start = time.perf_counter()
        ob = build_obligation(claim, what, relation, record.conditions, sources=(record.name,),
                         statement=statement)  # fmt: skip
        try:
            result = check(ob, budget_ms)
        except InconsistentAssumptions:
            found.append(Evidence("z3", "not-applicable",
                                  f"the claim's scope and {record.name}'s conditions do not meet",
                                  against=record.name, advisory=advisory,
                                  seconds=time.perf_counter() - start))  # fmt: skip
            continue
        except (UnsupportedExpression, TypeError) as error:
            # TypeError: sympy refuses to compare a value that is not real (a pole, a
            # square root of a negative number) at the point z3 proposed
            found.append(Evidence("z3", "unknown", f"z3 cannot decide it: {error}",
                                  against=record.name, advisory=advisory))  # fmt: skip
            continue
        seconds = time.perf_counter() - start
        status = f"{record.name} ({record.status.value}, {record.source})"
        if isinstance(result, Proved):
            found.append(Evidence("z3", "proved", f"z3 proved: {statement} ({result.method})",
                                  against=record.name, advisory=advisory, seconds=seconds))  # fmt: skip
            continue
        if not isinstance(result, Counterexample):
            found.append(Evidence("z3", "unknown", f"{statement}: z3 undecided ({result.reason})",
                                  against=record.name, advisory=advisory, seconds=seconds))  # fmt: skip
            continue
        point = result.point
        mine, theirs = _values(claim, side, record.explicit, point)
        inside = claim.holds_at(point) and record.applies(
            **{k: v for k, v in point.items() if k in record.parameters}
        ) if set(record.parameters) <= set(point) else False  # fmt: skip
        real = all(v.is_real and v.is_finite for v in (mine, theirs))
        violated = real and ((mine > theirs) if below else (theirs > mine))
        shown = {k: str(v) for k, v in point.items()}
        if not (inside and violated):
            found.append(Evidence("z3", "unknown",
                                  f"{statement}: z3's point {_show_point(point)} was not confirmed "
                                  "by sympy", against=record.name, point=shown,
                                  advisory=advisory, seconds=seconds))  # fmt: skip
            continue
        which = "lower side" if below else "upper side"
        if below:
            text = f"{which} {mine} > {record.name} = {theirs} at {_show_point(point)}"
        else:
            text = f"{which} {mine} < {record.name} = {theirs} at {_show_point(point)}"
        reason = None
        if below and record.regime is Regime.APPROXIMATE and record.algorithm is not None:
            reason = (f"{record.algorithm}'s count says nothing of its error, so it may not "
                      "meet the claim's accuracy")  # fmt: skip
        elif not set(point) <= PLAIN:
            reason = (f"the point sets {sorted(set(point) - PLAIN)}, which no actual mask or "
                      "feature map may realise")  # fmt: skip
        if reason is not None:
            found.append(Evidence("z3", "unknown", f"{text}; {reason}: not a refutation",
                                  against=record.name, point=shown, claim_value=str(mine),
                                  other_value=str(theirs), advisory=advisory,
                                  seconds=seconds))  # fmt: skip
            continue
        if advisory:
            text += f": conflicts with the unverified record {status}, not a refutation"
        else:
            text += f", refuted by {status}"
        found.append(Evidence("z3", "refuted", text, against=record.name, point=shown,
                              claim_value=str(mine), other_value=str(theirs),
                              replay=_reproduce(record, point),
                              advisory=advisory, seconds=seconds))  # fmt: skip
    if not any(not e.advisory for e in found):
        found.append(Evidence("z3", "not-applicable",
                              "no established catalog record of this regime and pass to compare "
                              "with"))  # fmt: skip
    found.extend(monotonicity_evidence(claim, budget_ms))
    return found


def monotonicity_evidence(claim: Claim, budget_ms: int = BUDGET_MS) -> list[Evidence]:
    """Tight: E(M') <= C^2 E(M) for M < M' (refutable); lower/upper: non-increasing (advisory)."""
    expr = claim.bound.explicit
    if expr is None or M not in expr.free_symbols:
        return []
    other = sp.Symbol("M_2", **M.assumptions0)
    moved = expr.subs(M, other)
    tight = claim.kind is Kind.TIGHT
    factor = claim.constant**2
    relation = (
        sp.Le(moved, factor * expr, evaluate=False) if tight else sp.Ge(expr, moved, evaluate=False)
    )
    statement = (
        f"E(M_2) <= {factor} E(M) for M < M_2: the optimum never grows with M"
        if tight
        else "the expression is non-increasing in M (advisory: a bound need not be)"
    )
    ob = build_obligation(claim, "monotone-in-M", relation, substitute(claim.scope, {M: other}), M < other,
                     statement=statement)  # fmt: skip
    start = time.perf_counter()
    try:
        result = check(ob, budget_ms)
    except (InconsistentAssumptions, UnsupportedExpression, TypeError) as error:
        return [Evidence("monotonicity", "unknown", f"{statement}: {error}", advisory=not tight)]
    seconds = time.perf_counter() - start
    if isinstance(result, Proved):
        return [Evidence("monotonicity", "proved", f"z3 proved: {statement}",
                         advisory=not tight, seconds=seconds)]  # fmt: skip
    if isinstance(result, Counterexample):
        point = result.point
        subs = {
            ALL.get(k, other if k == "M_2" else None): sp.nsimplify(v) for k, v in point.items()
        }
        subs.pop(None, None)
        first, second = sp.nsimplify(expr.subs(subs)), sp.nsimplify(moved.subs(subs))
        real = all(v.is_real and v.is_finite for v in (first, second))
        confirmed = real and ((second > factor * first) if tight else (second > first))
        plain = set(point) <= PLAIN | {"M_2"}
        text = f"E = {first} at M = {point.get('M')} but {second} at M = {point.get('M_2')}"
        rest = {k: str(v) for k, v in point.items()}
        if confirmed and tight and plain:
            return [Evidence("monotonicity", "refuted",
                             f"{text} > {factor} * {first}: no optimum does that, since more memory "
                             "never costs more", point=rest, claim_value=str(second),
                             other_value=str(factor * first), seconds=seconds)]  # fmt: skip
        verdict = "refuted" if confirmed and not tight else "unknown"
        return [Evidence("monotonicity", verdict,
                         f"{text}: grows with M (advisory: not a refutation of a "
                         f"{claim.kind.value} bound)" if not tight else f"{text}: not confirmed",
                         point=rest, advisory=not tight, seconds=seconds)]  # fmt: skip
    return [Evidence("monotonicity", "unknown", f"{statement}: z3 undecided ({result.reason})",
                     advisory=not tight, seconds=seconds)]  # fmt: skip


__all__ = [
    "BUDGET_MS",
    "PLAIN",
    "build_obligation",
    "catalog_evidence",
    "conditions_evidence",
    "monotonicity_evidence",
]
