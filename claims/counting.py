"""Counting checks of a claim: attnio's algorithms on the two-level machine at sampled sizes.

At a fixed grid of sizes (n, d, M) inside the claim's scope the algorithms of
:data:`attnio.algorithms.ALGORITHMS` run in counting mode and the machine counts
every word moved:

- an upper bound naming an ``algorithm`` must be at least that algorithm's count;
- a lower side must be at most every algorithm's count of the regime and pass (an
  algorithm that moves fewer words refutes it).

Sparse algorithms run on a seeded random block mask whose row- and column-weighted
densities s, s_c and allowed pairs Z are computed from the mask itself; low-rank
runs at degrees g = 1 and 2 with r = C(d + g, g). The grid is fixed, so the
verdicts are reproducible.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import sympy as sp

from attnio.algorithms import ALGORITHMS, AlgorithmError, simulate
from attnio.algorithms.machine import blocks
from attnio.algorithms.masks import (
    block_mask,
    column_weighted_density,
    expand,
    random_block_mask,
    row_weighted_density,
)
from attnio.bounds import Kind
from attnio.bounds.symbols import ALL

from .claim import Claim
from .verdict import Evidence

SIZES = ((1, 1), (2, 1), (3, 2), (8, 2), (16, 4), (37, 3), (64, 8))
"""(n, d) of the sampled runs."""

DENSITY = 0.5
"""Block density of the random masks of the sparse runs (seed 0)."""

DEGREES = (1, 2)
"""Polynomial degrees of the low-rank runs."""


def memories(n: int, d: int) -> list[int]:
    """Memory sizes tried at (n, d): around each algorithm's minimum, d^2 and n d."""
    values = {d, 2 * d, d * d, d * d + 1, 4 * d * d, 5 * d + 4, 9 * d + 2, 10 * d + 2,
              12 * d + 4, 16 * d, n * d, 2 * n * d + 8, 3, 4, 16, 64}  # fmt: skip
    return sorted(v for v in values if v >= 1)


def _runs(claim: Claim, names: list[str]) -> Iterator[tuple[str, dict, object, str]]:
    pass_ = claim.bound.pass_.value
    for n, d in SIZES:
        for M in memories(n, d):
            for name in names:
                algo = ALGORITHMS[name]
                if pass_ not in algo.runners:
                    continue
                options: list[tuple[dict, dict, str]] = [({}, {}, "")]
                if algo.regime == "sparse":
                    try:
                        rows, cols = algo.block_shape(pass_, d, M)
                        if rows < 1 or cols < 1:
                            continue
                        coarse = random_block_mask(
                            len(blocks(n, rows)), len(blocks(n, cols)), DENSITY, 0
                        )
                        coarse = block_mask(coarse, n, rows, cols, name)
                    except (AlgorithmError, ValueError, ZeroDivisionError):
                        continue
                    extra = {
                        "s": sp.Rational(row_weighted_density(coarse, n, rows)),
                        "s_c": sp.Rational(column_weighted_density(coarse, n, cols)),
                        "Z": int(expand(coarse, n, rows, cols).sum()),
                    }
                    options = [({"block_density": DENSITY}, extra, f" --block-density {DENSITY}")]
                elif algo.regime == "approximate":
                    options = [
                        ({"degree": g}, {"g": g, "r": int(sp.binomial(d + g, g))}, f" --degree {g}")
                        for g in DEGREES
                    ]
                for kwargs, extra, flags in options:
                    point = {"n": n, "d": d, "M": M, **extra}
                    if not set(claim.bound.parameters) <= set(point):
                        continue
                    if not claim.holds_at(point):
                        continue
                    try:
                        run = simulate(name, pass_, n, d, M, numeric=False, **kwargs)
                    except (AlgorithmError, ValueError):
                        continue  # M too small for this algorithm's blocks
                    command = (
                        f"attnio simulate {name} --pass {pass_} --n {n} --d {d} --M {M}"
                        f"{flags} --count-only"
                    )
                    yield name, point, run, command


def _value(expr: sp.Expr, point: dict) -> sp.Expr | None:
    """The exact value of ``expr`` at ``point``; None where it is not a real number."""
    value = sp.nsimplify(expr.subs({ALL[k]: v for k, v in point.items() if k in ALL}))
    return value if value.is_real and value.is_finite else None


def _refuted(what: str, name: str, bound, point: dict, value, run, command: str) -> Evidence:
    """The evidence of a machine count that refutes one side of a claim at ``point``."""
    return Evidence(
        "counting",
        "refuted",
        f"{what} on the two-level machine at " + ", ".join(f"{k}={v}" for k, v in point.items()),
        against=f"{name} {bound.pass_.value}",
        point={k: str(v) for k, v in point.items()},
        claim_value=str(value),
        other_value=str(run.counts.io),
        replay=command,
    )


def counting_evidence(claim: Claim) -> list[Evidence]:
    """Compare the claim's sides with machine counts at sampled sizes."""
    bound = claim.bound
    if bound.explicit is None:
        return [Evidence("counting", "not-applicable", "asymptotic-only claim: nothing to "
                         "evaluate at a point")]  # fmt: skip
    start = time.perf_counter()
    lower, upper = claim.lower_side, claim.upper_side
    found: list[Evidence] = []
    compared = 0
    notes = []
    regime = bound.regime.value
    if lower is not None:
        if {"epsilon", "B"} & set(bound.parameters):
            notes.append("the lower side uses the error parameters, which no run fixes")
        elif regime == "sparse" and {"s", "s_c"} & set(bound.parameters):
            notes.append("a lower bound in s or s_c depends on a block shape; compared with no run")
        else:
            names = [name for name, algo in ALGORITHMS.items() if algo.regime == regime]
            for name, point, run, command in _runs(claim, names):
                value = _value(lower, point)
                if value is None:
                    continue
                compared += 1
                if value > run.counts.io:
                    where = f"{name} {bound.pass_.value}, which moves {run.counts.io} words"
                    found.append(_refuted(f"lower side {value} > {where}", name, bound,
                                          point, value, run, command))  # fmt: skip
                    break
    if upper is not None and bound.kind is Kind.UPPER:
        name = bound.algorithm
        if name is None:
            notes.append("the upper bound names no algorithm, so no count can refute it")
        elif name not in ALGORITHMS:
            notes.append(f"attnio has no algorithm {name!r} (it has: {', '.join(ALGORITHMS)})")
        elif bound.pass_.value not in ALGORITHMS[name].runners:
            notes.append(f"{name} has no {bound.pass_.value} pass")
        else:
            for _, point, run, command in _runs(claim, [name]):
                value = _value(upper, point)
                if value is None:
                    continue
                compared += 1
                if value < run.counts.io:
                    where = f"{run.counts.io} words that {name} {bound.pass_.value} moves"
                    found.append(_refuted(f"upper side {value} < {where}", name, bound,
                                          point, value, run, command))  # fmt: skip
                    break
    seconds = time.perf_counter() - start
    if found:
        return found
    if compared:
        return [Evidence("counting", "passed",
                         f"{compared} machine counts at sampled sizes agree with the claim"
                         + (f" ({'; '.join(notes)})" if notes else ""),
                         against="two-level machine", seconds=seconds)]  # fmt: skip
    reason = "; ".join(notes) or "no sampled size lies inside the claim's conditions"
    return [Evidence("counting", "not-applicable", reason, seconds=seconds)]


__all__ = ["DEGREES", "DENSITY", "SIZES", "counting_evidence", "memories"]
