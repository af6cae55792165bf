"""Proofs of a claim from the catalog's records: each side of the claim implied by lemmas.

A claim's lower side L is *implied* by the catalog's explicit lower records R_1, ..., R_k
of its regime and pass when z3 proves, on the claim's scope and domain,

    (cond_1 and L <= R_1) or ... or (cond_k and L <= R_k),

that is L <= the largest R_i that applies at each point. Every R_i is a lower bound on
the optimum Q where its conditions hold, so Q >= L everywhere in the scope. An upper side
U is implied by the explicit upper records (exact counts of attnio's algorithms) in the
same way with R_i <= U; for an upper bound that names an ``algorithm`` only that
algorithm's records count, and each must apply (the algorithm runs) wherever it is used.
A tight claim needs both sides.

The lemmas are read from the catalog when the check runs, so new records are used as
they appear. Which records may serve decides the strength of the result:

- every lemma ``derived`` (attnio's own, every step z3-checked, or an exact count the
  machine reproduces): the claim is **proved** (:data:`~attnio.claims.verdict.PROVED`);
- some lemma ``stated``, ``stated-secondary`` or ``reconstructed``: the claim is only
  **implied by the catalog** (:data:`~attnio.claims.verdict.IMPLIED`), as strong as the
  weakest lemma; the evidence names each lemma with its level.

One record at a time is tried first, so the evidence names as few lemmas as suffice;
then all of them together. Every z3 call runs under the deterministic resource limit of
:mod:`attnio.proofs.budget`; a Proved result always carries a witness point of the scope
(no vacuous proofs).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import sympy as sp

from attnio.bounds import Bound, Kind, Status
from attnio.proofs import InconsistentAssumptions, Proved, UnsupportedExpression, check

from .claim import Claim
from .obligations import BUDGET_MS, build_obligation
from .records import evidence_records
from .verdict import Evidence

PROOF_LEVELS = frozenset({Status.DERIVED})
"""Evidence levels of the lemmas of a proof."""

WEAKER_LEVELS = frozenset(
    {Status.DERIVED, Status.STATED, Status.STATED_SECONDARY, Status.RECONSTRUCTED}
)
"""Evidence levels of the lemmas of an implication (a weaker verdict)."""


def _lemmas(claim: Claim, side: str, levels: frozenset[Status]) -> list[Bound]:
    bound = claim.bound
    kind = "lower" if side == "lower" else "upper"
    records = evidence_records(kind=kind, regime=bound.regime.value, pass_=bound.pass_.value)
    chosen = [r for r in records if r.explicit is not None and r.status in levels]
    if side == "upper" and bound.kind is Kind.UPPER and bound.algorithm is not None:
        chosen = [r for r in chosen if r.algorithm == bound.algorithm]
    return chosen


def _relation(side: str, value: sp.Expr, lemmas: Iterable[Bound]) -> sp.Basic:
    cases = []
    for record in lemmas:
        compare = (
            sp.Le(value, record.explicit, evaluate=False)
            if side == "lower"
            else sp.Le(record.explicit, value, evaluate=False)
        )
        cases.append(sp.And(record.conditions, compare, evaluate=False))
    return sp.Or(*cases, evaluate=False) if len(cases) > 1 else cases[0]


def _attempt(claim: Claim, side: str, value: sp.Expr, lemmas: list[Bound], budget_ms: int):
    relation = _relation(side, value, lemmas)
    names = "_".join(r.name for r in lemmas) if len(lemmas) < 4 else f"{len(lemmas)}-records"
    listed = ", ".join(r.name for r in lemmas)
    ob = build_obligation(claim, f"proof-{side}-{names}", relation,
                     statement=f"the claim's {side} side follows from {listed}")  # fmt: skip
    try:
        return check(ob, budget_ms)
    except (InconsistentAssumptions, UnsupportedExpression, TypeError):
        return None


def _side(claim: Claim, side: str, value: sp.Expr, budget_ms: int) -> Evidence | None:
    start = time.perf_counter()
    for check_name, levels in (("proof", PROOF_LEVELS), ("implication", WEAKER_LEVELS)):
        lemmas = _lemmas(claim, side, levels)
        if not lemmas:
            continue
        tries = [[record] for record in lemmas] + ([lemmas] if len(lemmas) > 1 else [])
        for used in tries:
            result = _attempt(claim, side, value, used, budget_ms)
            if isinstance(result, Proved):
                named = ", ".join(f"{r.name} ({r.status.value}, {r.source})" for r in used)
                which = "the largest applicable of" if len(used) > 1 else "the record"
                kind = "lower bounds" if side == "lower" else "upper bounds"
                return Evidence(
                    check_name,
                    "proved",
                    f"z3 proved the claim's {side} side from {which} {named}: they are "
                    f"{kind} wherever their conditions hold, and on the claim's whole scope "
                    f"one of them applies and is {'at least' if side == 'lower' else 'at most'} "
                    f"the claim ({result.method})",
                    against=", ".join(r.name for r in used),
                    side=side,
                    lemmas=tuple((r.name, r.status.value) for r in used),
                    seconds=time.perf_counter() - start,
                )
    return Evidence(
        "proof",
        "unknown",
        f"the claim's {side} side does not follow from the catalog's explicit {side} records "
        "(z3 proved no combination of them at least as strong on the claim's scope)",
        side=side,
        seconds=time.perf_counter() - start,
    )


def proof_evidence(claim: Claim, budget_ms: int = BUDGET_MS) -> list[Evidence]:
    """Try to prove each side of ``claim`` from the catalog's records (module docstring)."""
    if claim.bound.explicit is None:
        return []
    items = []
    for side, value in (("lower", claim.lower_side), ("upper", claim.upper_side)):
        if value is not None:
            item = _side(claim, side, value, budget_ms)
            if item is not None:
                items.append(item)
    return items


__all__ = ["PROOF_LEVELS", "WEAKER_LEVELS", "proof_evidence"]
