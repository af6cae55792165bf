"""Pebbling checks of a claim: small attention DAGs, exact optima and replayed pebblings.

On the builder DAGs of the claim's regime and pass (:mod:`attnio.pebble.builders`:
dense forward and backward, sparse forward and backward for a causal mask) and each
memory size M inside the claim's scope:

- the claim's lower side must not exceed an upper bound on the optimum Q(G, M): the
  proven optimum of :func:`attnio.pebble.exact.solve_exact`, or the cost of any
  pebbling it or the heuristic order search found (a real pebbling, replayed by
  :func:`attnio.pebble.replay`; its move file is the refutation);
- the claim's upper side must not fall below the proven optimum, or below the
  lower bound the exact search proved when it stopped at its state limit.

This is the red-blue pebble game (HK81) on SY24's forward graph and the
FlashAttention-2 backward graph, recomputation allowed; the catalog's lower bounds
are statements in that model. An upper bound below Q(G, M) means no schedule of
that graph achieves it. The search stops at a state limit, never a time limit, so
the verdicts do not depend on the machine's load.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator

import sympy as sp

from attnio.bounds import Regime
from attnio.bounds.symbols import ALL
from attnio.pebble import builders, pebble, replay
from attnio.pebble.exact import solve_exact

from .claim import Claim
from .verdict import Evidence

MAX_STATES = 100_000
"""States the exact search may hold per instance before it stops with proven bounds."""

SEARCH_ITERATIONS = 300
"""Orders the heuristic search evaluates per instance (seeded: deterministic)."""

EXACT = {
    ("dense", "forward"): (("attention-forward", 1, 1, 6), ("attention-forward", 1, 2, 6),
                           ("attention-forward", 2, 1, 6)),
    ("dense", "backward"): (("attention-backward", 1, 1, 6), ("attention-backward", 1, 2, 3)),
    ("sparse", "forward"): (("sparse-forward", 2, 1, 6), ("sparse-forward", 3, 1, 3)),
    ("sparse", "backward"): (("sparse-backward", 2, 1, 4),),
}  # fmt: skip
"""(builder, n, d, memory sizes) pebbled exactly, per (regime, pass): that many M from the
DAG's minimum on, and M = number of vertices; sparse ones with a causal mask."""

HEURISTIC = {
    ("dense", "forward"): (("attention-forward", 2, 2, 6), ("attention-forward", 3, 2, 6),
                           ("attention-forward", 4, 1, 6)),
    ("dense", "backward"): (("attention-backward", 2, 1, 6), ("attention-backward", 2, 2, 6)),
    ("sparse", "forward"): (("sparse-forward", 4, 2, 6),),
    ("sparse", "backward"): (("sparse-backward", 3, 1, 6),),
}  # fmt: skip
"""(builder, n, d, memory sizes) pebbled by the order search only (upper bounds on Q)."""

MAX_REFUTATIONS = 3
"""Most pebbling refutations reported per claim (one per DAG)."""

_PARAMETERS = {
    Regime.DENSE: frozenset({"n", "d", "M"}),
    Regime.SPARSE: frozenset({"n", "d", "M", "Z"}),
}


@functools.cache
def _dag(kind: str, n: int, d: int):
    mask = "causal" if kind.startswith("sparse") else None
    dag = builders.build(kind, n, d, mask=mask)
    extra = {"Z": int(builders.mask_from_spec("causal", n).sum())} if mask else {}
    return dag, extra


@functools.cache
def _exact(kind: str, n: int, d: int, M: int, max_states: int):
    dag, _ = _dag(kind, n, d)
    result = solve_exact(dag, M, max_states=max_states)
    replayed = replay(dag, result.moves, M).io
    if replayed != result.io:  # never trust a certificate that does not replay
        raise RuntimeError(f"{kind} n={n} d={d} M={M}: certificate replays to {replayed}")
    return result


@functools.cache
def _heuristic(kind: str, n: int, d: int, M: int):
    dag, _ = _dag(kind, n, d)
    result = pebble(dag, M, heuristic="search", iterations=SEARCH_ITERATIONS, moves=True)
    replayed = replay(dag, result.moves, M).io
    if replayed != result.io:
        raise RuntimeError(f"{kind} n={n} d={d} M={M}: pebbling replays to {replayed}")
    return result


def _points(claim: Claim, table: dict) -> Iterator[tuple[str, int, int, int, dict]]:
    key = (claim.bound.regime.value, claim.bound.pass_.value)
    for kind, n, d, sizes in table.get(key, ()):
        dag, extra = _dag(kind, n, d)
        # the smallest memories, where pebbling is hardest, and M = |V|, where nothing is
        # ever evicted, so that claims about large caches meet an instance too
        for M in sorted({*range(dag.min_memory, dag.min_memory + sizes), dag.num_vertices}):
            point = {"n": n, "d": d, "M": M, **extra}
            if claim.holds_at(point):
                yield kind, n, d, M, point


def _value(expr: sp.Expr, point: dict) -> sp.Expr | None:
    """The exact value of ``expr`` at ``point``; None where it is not a real number."""
    value = sp.nsimplify(expr.subs({ALL[k]: v for k, v in point.items()}))
    return value if value.is_real and value.is_finite else None


def _where(kind: str, n: int, d: int, M: int) -> str:
    mask = " mask=causal" if kind.startswith("sparse") else ""
    return f"{kind} n={n} d={d}{mask} M={M}"


def _command(kind: str, n: int, d: int, M: int, exact: bool) -> str:
    mask = " --mask causal" if kind.startswith("sparse") else ""
    how = " --exact" if exact else " --heuristic search"
    return f"attnio pebble --dag {kind} --n {n} --d {d}{mask} --M {M}{how}"


def pebbling_evidence(claim: Claim, *, max_states: int = MAX_STATES) -> list[Evidence]:
    """Compare the claim's sides with exact and heuristic pebblings of small DAGs."""
    bound = claim.bound
    if bound.explicit is None:
        return [Evidence("pebbling", "not-applicable", "asymptotic-only claim: nothing to "
                         "evaluate at a point")]  # fmt: skip
    allowed = _PARAMETERS.get(bound.regime)
    if allowed is None:
        return [Evidence("pebbling", "not-applicable", f"no builder DAG of the {bound.regime.value} "
                         "regime has a known relation to the error parameters")]  # fmt: skip
    if not set(bound.parameters) <= allowed:
        extra = sorted(set(bound.parameters) - allowed)
        return [Evidence("pebbling", "not-applicable", f"the claim uses {extra}, which a builder "
                         "DAG does not fix")]  # fmt: skip
    start = time.perf_counter()
    found: list[Evidence] = []
    compared = proven = 0
    lower, upper = claim.lower_side, claim.upper_side
    for kind, n, d, M, point in _points(claim, EXACT):
        result = _exact(kind, n, d, M, max_states)
        proven += result.optimal
        where = _where(kind, n, d, M)
        dag, _ = _dag(kind, n, d)
        if lower is not None and (value := _value(lower, point)) is not None:
            compared += 1
            if value > result.io:
                what = f"the proven optimum Q = {result.io}" if result.optimal else (
                    f"a pebbling of cost {result.io} (the optimum is at most that)"
                )  # fmt: skip
                found.append(Evidence(
                    "pebbling", "refuted",
                    f"lower side {value} > {what} of {where}",
                    against=where, point={k: str(v) for k, v in point.items()},
                    claim_value=str(value), other_value=str(result.io),
                    replay=_command(kind, n, d, M, exact=True),
                    moves=tuple(result.moves), dag=dag, memory=M,
                ))  # fmt: skip
        if upper is not None and (value := _value(upper, point)) is not None:
            compared += 1
            if value < result.lower:
                what = f"the proven optimum Q = {result.io}" if result.optimal else (
                    f"the exact search's proven lower bound {result.lower}"
                )  # fmt: skip
                found.append(Evidence(
                    "pebbling", "refuted",
                    f"upper side {value} < {what} of {where}: no pebbling of this graph "
                    "costs less",
                    against=where, point={k: str(v) for k, v in point.items()},
                    claim_value=str(value), other_value=str(result.lower),
                    replay=_command(kind, n, d, M, exact=True),
                    moves=tuple(result.moves), dag=dag, memory=M,
                ))  # fmt: skip
    heuristic = 0
    if lower is not None:
        for kind, n, d, M, point in _points(claim, HEURISTIC):
            result = _heuristic(kind, n, d, M)
            value = _value(lower, point)
            if value is None:
                continue
            heuristic += 1
            compared += 1
            where = _where(kind, n, d, M)
            if value > result.io:
                dag, _ = _dag(kind, n, d)
                found.append(Evidence(
                    "pebbling", "refuted",
                    f"lower side {value} > a replayed pebbling of cost {result.io} of {where}",
                    against=where, point={k: str(v) for k, v in point.items()},
                    claim_value=str(value), other_value=str(result.io),
                    replay=_command(kind, n, d, M, exact=False),
                    moves=tuple(result.moves), dag=dag, memory=M,
                ))  # fmt: skip
    seconds = time.perf_counter() - start
    if found:
        # the first refutation of each DAG, at most MAX_REFUTATIONS: the rest repeat them
        firsts = {}
        for item in found:
            firsts.setdefault(item.against.rsplit(" M=", 1)[0], item)
        return list(firsts.values())[:MAX_REFUTATIONS]
    if not compared:
        return [Evidence("pebbling", "not-applicable", "no small builder DAG lies inside the "
                         "claim's conditions", seconds=seconds)]  # fmt: skip
    return [Evidence(
        "pebbling", "passed",
        f"{compared} comparisons with pebblings of small {bound.regime.value} "
        f"{bound.pass_.value} DAGs ({proven} proven optima, {heuristic} heuristic pebblings, "
        "every certificate replayed)",
        against="builder DAGs", seconds=seconds,
    )]  # fmt: skip


def clear_cache() -> None:
    """Forget the memoised pebblings (they are shared between claims of one process)."""
    for cached in (_dag, _exact, _heuristic):
        cached.cache_clear()


__all__ = ["EXACT", "HEURISTIC", "MAX_STATES", "clear_cache", "pebbling_evidence"]
