"""Asymptotic claims (``Omega``, ``O``, ``Theta``) against the catalog's explicit records.

An asymptotic claim hides its constant, so no single point refutes it; a *direction of
growth* can. Along a direction (one of n, d, M grows without bound, the others fixed at
integers) that stays inside the claim's scope and a record's conditions:

- ``Omega(g)`` says Q >= c g for some c > 0 on large instances. An algorithm's ``derived``
  exact count C is at least the optimum Q, so if g / C grows without bound the claim
  fails: **refuted by the growth**, with the direction, the fixed values and the record.
- ``O(g)`` says Q <= c g. An established explicit lower bound L (``stated``,
  ``stated-secondary`` or ``derived``) with L / g unbounded refutes it, and so does the
  named algorithm's derived count.
- ``Theta(g)``: both.

The limit is taken by sympy on a bound of the record, never on the record itself: with
the fixed parameters put in, every ``ceiling(x)`` whose argument still grows is replaced
by ``x + 1`` and every ``floor(x)`` by ``x`` (an upper bound on a count, for the Omega
side), or by ``x`` and ``x - 1`` (a lower bound on a lower record, for the O side), through
sums, products and powers whose signs are known (:func:`bound_of`); anything else is not
used. A limit of +oo of claim / upper bound then implies the same of claim / count. The
evidence shows the record's exact value and the claim's at two points along the
direction, re-evaluated with exact numbers.

A claim is **proved** when its side follows, with an explicit constant, from the derived
records on its whole scope: ``Omega(g)`` when z3 proves g / C0 <= the largest applicable
derived lower bound, ``O(g)`` when it proves an applicable derived count <= C0 g
(:mod:`.proof`, with C0 = :data:`PROOF_CONSTANT`). Everything else is ``unknown``, with
the reason. Orders in parameters beyond n, d and M (a density, a pair count, a rank) are
not compared: no direction of them is known to be realised by actual masks.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Iterator

import sympy as sp

from attnio.bounds import Bound, Kind, Regime, Status
from attnio.bounds.symbols import ALL
from attnio.proofs.generate import SOLID

from .claim import Claim
from .obligations import BUDGET_MS, PLAIN
from .proof import proof_evidence
from .records import evidence_records
from .verdict import Evidence

PROOF_CONSTANT = 1024
"""The constant C0 with which an asymptotic side is proved from explicit records."""

FIXED = {"n": (1, 16, 1024), "d": (1, 4, 64), "M": (16, 1024, 2**20)}
"""Values at which the parameters that do not grow are fixed, per parameter."""

SHOWN = (10**6, 10**12)
"""Values of the growing parameter at which the evidence shows both sides."""


def _directions() -> Iterator[tuple[str, dict[str, int]]]:
    """(growing parameter, fixed values of the others), n first, then M, then d."""
    for grows in ("n", "M", "d"):
        others = [name for name in ("n", "d", "M") if name != grows]
        for values in itertools.product(*(FIXED[name] for name in others)):
            yield grows, dict(zip(others, values, strict=True))


def bound_of(expr: sp.Expr, t: sp.Symbol, upper: bool) -> sp.Expr | None:
    """An expression at least (``upper``) or at most ``expr`` for every t >= 1 with no
    ``ceiling`` or ``floor`` of t left, or None where attnio cannot tell.

    Parts free of t stay as they are (they are exact numbers once the fixed parameters
    are put in). Sums bound term by term; products of factors that are positive for
    t >= 1; powers of a positive base to a constant exponent (a negative exponent takes
    the other bound of the base, which must be positive); ``ceiling(x) <= x + 1``,
    ``ceiling(x) >= x``, ``floor(x) <= x``, ``floor(x) >= x - 1``.

    Examples
    --------
    >>> t = sp.Symbol("t", positive=True, integer=True)
    >>> bound_of(3 * sp.ceiling(t / 5) + 1, t, upper=True)
    3*t/5 + 4
    """
    if t not in expr.free_symbols:
        return expr
    if expr == t:
        return expr
    if isinstance(expr, sp.Add):
        parts = [bound_of(arg, t, upper) for arg in expr.args]
        return None if any(p is None for p in parts) else sp.Add(*parts)
    if isinstance(expr, sp.Mul):
        coefficient, rest = expr.as_coeff_Mul()
        if coefficient < 0:
            inner = bound_of(rest, t, not upper)
            return None if inner is None else coefficient * inner
        factors = sp.Mul.make_args(rest)
        if not all(_positive(f, t) for f in factors):
            return None
        parts = [bound_of(f, t, upper) for f in factors]
        if any(p is None for p in parts):
            return None
        return coefficient * sp.Mul(*parts)
    if isinstance(expr, sp.Pow):
        base, exponent = expr.args
        if not (exponent.is_number and exponent.is_real) or not _positive(base, t):
            return None
        inner = bound_of(base, t, upper if exponent > 0 else not upper)
        if inner is None or (exponent < 0 and not _positive(inner, t)):
            return None
        return inner**exponent
    if isinstance(expr, sp.ceiling):
        inner = bound_of(expr.args[0], t, upper)
        return None if inner is None else (inner + 1 if upper else inner)
    if isinstance(expr, sp.floor):
        inner = bound_of(expr.args[0], t, upper)
        return None if inner is None else (inner if upper else inner - 1)
    return None


def _positive(expr: sp.Expr, t: sp.Symbol) -> bool:
    """Whether ``expr`` is positive for every t >= 1 (sympy's sign rules, t positive)."""
    return bool(expr.is_positive)


def _eventually(relation: sp.Basic, t: sp.Symbol) -> bool:
    """Whether ``relation`` (over t alone) holds for every large enough t; False where
    attnio cannot tell (a limit of 0, an undecided limit)."""
    if relation is sp.true or relation is sp.false:
        return bool(relation)
    if isinstance(relation, sp.And):
        return all(_eventually(arg, t) for arg in relation.args)
    if isinstance(relation, sp.Or):
        return any(_eventually(arg, t) for arg in relation.args)
    if not isinstance(relation, sp.core.relational.Relational):
        return False
    if t not in relation.free_symbols:
        value = relation.doit()
        return value is sp.true
    bigger = isinstance(relation, (sp.Gt, sp.Ge))
    if not (bigger or isinstance(relation, (sp.Lt, sp.Le))):
        return False
    difference = relation.lhs - relation.rhs if bigger else relation.rhs - relation.lhs
    smooth = bound_of(difference, t, upper=False)
    if smooth is None:
        return False
    limit = _limit(smooth, t)
    return limit is not None and (limit is sp.oo or (limit.is_real and limit > 0))


def _limit(expr: sp.Expr, t: sp.Symbol) -> sp.Expr | None:
    try:
        value = sp.limit(expr, t, sp.oo)
    except (NotImplementedError, ValueError, TypeError, AttributeError):
        return None
    return value if (value is sp.oo or value is -sp.oo or value.is_real) else None


def _unbounded(big: sp.Expr, small: sp.Expr, scope: sp.Basic, record: Bound,
               kind: str) -> Evidence | None:  # fmt: skip
    """The refutation where ``big`` / ``small`` grows without bound in a direction inside
    ``scope`` and the record's conditions; ``kind`` says which is the record's."""
    t = sp.Symbol("t", positive=True, integer=True)
    for grows, fixed in _directions():
        subs = {ALL[k]: sp.Integer(v) for k, v in fixed.items()}
        subs[ALL[grows]] = t
        relation = sp.And(scope, record.conditions).subs(subs)
        if not _eventually(relation, t):
            continue
        top, bottom = big.subs(subs), small.subs(subs)
        if kind == "count":  # the record is the bottom: bound it from above
            bottom = bound_of(bottom, t, upper=True)
        else:  # the record is the top: bound it from below
            top = bound_of(top, t, upper=False)
        if top is None or bottom is None or not _positive(bottom, t):
            continue
        if _limit(top / bottom, t) is not sp.oo:
            continue
        values = [(v, big.subs(subs).subs(t, v), small.subs(subs).subs(t, v)) for v in SHOWN]
        if not all(a.is_real and b.is_real and a > b > 0 for _, a, b in values):
            continue
        held = ", ".join(f"{k} = {v}" for k, v in fixed.items())
        shown = "; ".join(f"at {grows} = {v}: {sp.N(a, 6)} against {sp.N(b, 6)}"
                          for v, a, b in values)  # fmt: skip
        return Evidence(
            "order",
            "refuted",
            "",  # the caller writes the summary, which names the kind of record
            against=record.name,
            point={grows: "oo", **{k: str(v) for k, v in fixed.items()}},
            claim_value=str(values[-1][1] if kind == "count" else values[-1][2]),
            other_value=str(values[-1][2] if kind == "count" else values[-1][1]),
            replay=f"{grows} -> oo with {held}; {shown}",
        )
    return None


def _refutations(claim: Claim) -> tuple[list[Evidence], list[str]]:
    bound = claim.bound
    growth = bound.asymptotic
    found: list[Evidence] = []
    notes: list[str] = []
    scope = sp.And(claim.scope, *claim.domain())
    if bound.kind in (Kind.LOWER, Kind.TIGHT):
        if bound.regime is Regime.APPROXIMATE:
            notes.append("an approximate algorithm's count says nothing of its error, so no "
                         "count refutes an approximate Omega claim")  # fmt: skip
        else:
            for record in evidence_records(kind="upper", regime=bound.regime.value,
                                  pass_=bound.pass_.value):  # fmt: skip
                if record.explicit is None or record.status is not Status.DERIVED:
                    continue
                if not set(record.parameters) <= PLAIN:
                    continue
                item = _unbounded(growth, record.explicit, scope, record, "count")
                if item is not None:
                    direction = item.replay.split(";")[0]
                    found.append(dataclasses.replace(item, summary=(
                        f"Omega({growth}) grows faster than {record.name} ({record.status.value}"
                        f", {record.source}), an algorithm's exact count, as {direction}: "
                        "the claim over the count grows without bound, so no constant makes "
                        "the claim a lower bound")))  # fmt: skip
                    break
    if bound.kind in (Kind.UPPER, Kind.TIGHT):
        records = [r for r in evidence_records(kind="lower", regime=bound.regime.value,
                                      pass_=bound.pass_.value) if r.status in SOLID]  # fmt: skip
        if bound.algorithm is not None:
            records += [r for r in evidence_records(kind="upper", pass_=bound.pass_.value,
                                           algorithm=bound.algorithm)
                        if r.status is Status.DERIVED]  # fmt: skip
        for record in records:
            if record.explicit is None or not set(record.parameters) <= PLAIN:
                continue
            item = _unbounded(record.explicit, growth, scope, record, "lower")
            if item is not None:
                direction = item.replay.split(";")[0]
                what = "a lower bound" if record.kind is Kind.LOWER else "its exact count"
                found.append(dataclasses.replace(item, summary=(
                    f"{record.name} ({record.status.value}, {record.source}), {what}, grows "
                    f"faster than O({growth}) as {direction}: no constant makes the claim an "
                    "upper bound")))  # fmt: skip
                break
    return found, notes


def order_evidence(claim: Claim, budget_ms: int = BUDGET_MS) -> list[Evidence]:
    """Compare an asymptotic-only claim with the catalog (see the module docstring)."""
    bound = claim.bound
    if bound.explicit is not None or bound.asymptotic is None:
        return []
    start = time.perf_counter()
    if not set(bound.parameters) <= PLAIN:
        return [Evidence("order", "unknown",
                         f"the order {bound.asymptotic} uses {sorted(set(bound.parameters) - PLAIN)}"
                         ", whose growth no actual mask or feature map is known to realise; "
                         "asymptotic claims are compared in n, d and M only",
                         seconds=time.perf_counter() - start)]  # fmt: skip
    found, notes = _refutations(claim)
    if found:
        return [dataclasses.replace(e, seconds=time.perf_counter() - start) for e in found]
    constant = sp.Integer(PROOF_CONSTANT)
    growth = bound.asymptotic
    explicit = growth / constant if bound.kind is Kind.LOWER else growth * constant
    scaled = Claim(dataclasses.replace(bound, explicit=explicit),
                   constant if bound.kind is Kind.TIGHT else 1)  # fmt: skip
    if bound.kind is Kind.TIGHT:
        scaled = Claim(dataclasses.replace(bound, explicit=growth), constant)
    proofs = proof_evidence(scaled, budget_ms)
    out = []
    for item in proofs:
        if item.verdict == "proved":
            out.append(dataclasses.replace(item, summary=(
                f"{item.summary}; with the constant {PROOF_CONSTANT} this proves the "
                f"{item.side} side of the asymptotic claim")))  # fmt: skip
        else:
            out.append(dataclasses.replace(item, summary=(
                f"the {item.side} side of the asymptotic claim, with the constant "
                f"{PROOF_CONSTANT}, does not follow from the catalog's explicit records, and "
                "no derived record's growth refutes it in any direction attnio tries"
                + (f" ({'; '.join(notes)})" if notes else ""))))  # fmt: skip
    return out


__all__ = ["FIXED", "PROOF_CONSTANT", "SHOWN", "bound_of", "order_evidence"]
