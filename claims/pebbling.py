"""Pebbling checks of a claim: small attention DAGs, exact optima and replayed pebblings.

On the builder DAGs of the claim's regime and pass (:mod:`attnio.pebble.builders`:
dense forward and backward, sparse forward and backward for a mask) the claim is judged
at every memory size M inside its scope, from the least memory in which the DAG can be
pebbled at all up to the number of vertices |V| (and at larger M, where nothing is
ever evicted and IO(G, M) = Q(G, |V|)):

- the claim's lower side must not exceed an upper bound on the optimum IO(G, M): the
  proven optimum of :func:`attnio.pebble.exact.solve_exact`, or the cost of any
  pebbling it or the heuristic order search found (a real pebbling, replayed by
  :func:`attnio.pebble.replay`; its move file is the refutation);
- the claim's upper side must not fall below the proven optimum, or below the
  lower bound the exact search proved when it stopped at its state limit;
- an upper side must not be finite where no pebbling exists: below the least memory
  (:data:`attnio.claims.claim.LEAST_MEMORY`) a vertex of in-degree 2 can never be
  computed, so Q is infinite, and a claim whose scope reaches there is refuted with the
  vertex that cannot be computed (every other check keeps to M >= that memory).

The exact instances (:data:`EXACT`) are the (n, d) whose DAG the exact search closes
within its state limit at most M, in at most a second per M on one core: for dense
forward claims n = 1 with d up to 4 (M on both sides of d^2) and n = 2, d = 1; for dense
backward n = 1, d <= 2; for sparse claims n = 1, every mask with no empty row at n = 2,
d = 1 (up to permuting queries and keys, which gives an isomorphic DAG) and, forward,
the causal and diagonal masks at n = 3. Larger DAGs (n = 2 with d = 2, the backward
at n = 2) stay open at small M under the state limit and are pebbled heuristically. IO(G, M) never grows with M, and equals Q(G, |V|) from the
first M where a pebbling reaches that value, so each DAG is solved at the M in the
claim's scope until that happens and the rest is known.

This is the red-blue pebble game (HK81) on SY24's forward graph and the
FlashAttention-2 backward graph, recomputation allowed; the catalog's lower bounds
are statements in that model. An upper bound below IO(G, M) means no schedule of
that graph achieves it. The search stops at a state limit, never a time limit, so
the verdicts do not depend on the machine's load.
"""

from __future__ import annotations

import functools
import itertools
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import sympy as sp

from attnio.bounds import Regime
from attnio.bounds.masks import INTERVAL_FAMILIES, make_mask
from attnio.bounds.symbols import ALL
from attnio.pebble import builders, pebble, replay
from attnio.pebble.errors import MemoryTooSmallError
from attnio.pebble.exact import solve_exact

from .claim import LEAST_MEMORY, Claim
from .verdict import Evidence

MAX_STATES = 100_000
"""States the exact search may hold per instance before it stops with proven bounds."""

SEARCH_ITERATIONS = 300
"""Orders the heuristic search evaluates per instance (seeded: deterministic)."""

ALL_MASKS = "all"
"""In :data:`EXACT`: every mask with no empty row, up to permuting queries and keys."""

EXACT = {
    ("dense", "forward"): (("attention-forward", 1, 1, None), ("attention-forward", 1, 2, None),
                           ("attention-forward", 1, 3, None), ("attention-forward", 1, 4, None),
                           ("attention-forward", 2, 1, None)),
    ("dense", "backward"): (("attention-backward", 1, 1, None), ("attention-backward", 1, 2, None)),
    ("sparse", "forward"): (("sparse-forward", 1, 1, "full"), ("sparse-forward", 1, 2, "full"),
                            ("sparse-forward", 1, 3, "full"), ("sparse-forward", 2, 1, ALL_MASKS),
                            ("sparse-forward", 3, 1, "causal"), ("sparse-forward", 3, 1, "band:0")),
    ("sparse", "backward"): (("sparse-backward", 1, 1, "full"), ("sparse-backward", 1, 2, "full"),
                             ("sparse-backward", 2, 1, ALL_MASKS)),
}  # fmt: skip
"""(builder, n, d, mask) pebbled exactly, per (regime, pass), at every M of the claim's
scope from the DAG's least memory on (see the module docstring)."""

HEURISTIC = {
    ("dense", "forward"): (("attention-forward", 2, 2, 6), ("attention-forward", 3, 2, 6),
                           ("attention-forward", 4, 1, 6)),
    ("dense", "backward"): (("attention-backward", 2, 1, 6), ("attention-backward", 2, 2, 6)),
    ("sparse", "forward"): (("sparse-forward", 2, 2, 6), ("sparse-forward", 4, 2, 6)),
    ("sparse", "backward"): (("sparse-backward", 3, 1, 6),),
}  # fmt: skip
"""(builder, n, d, memory sizes) pebbled by the order search only (upper bounds on Q), with
a causal mask for the sparse ones: that many M from the DAG's minimum on, and M = |V|."""

LARGE_MEMORIES = tuple(2**k for k in range(4, 21))
"""Memory sizes beyond |V| at which a claim is also judged (IO(G, M) = Q(G, |V|) there)."""

MAX_REFUTATIONS = 3
"""Most pebbling refutations reported per claim (one per DAG)."""

_PARAMETERS = {
    Regime.DENSE: frozenset({"n", "d", "M"}),
    Regime.SPARSE: frozenset({"n", "d", "M", "Z", "w"}),
}

Mask = tuple[tuple[bool, ...], ...] | None


def masks(n: int) -> list[tuple[tuple[bool, ...], ...]]:
    """Every n x n mask with no empty row, one per class under permuting rows and columns.

    Permuting the queries and the keys relabels the sparse DAG's vertices, so the masks of
    one class have the same optimum at every M.

    Examples
    --------
    >>> len(masks(2)), len(masks(3))
    (4, 23)
    """
    rows = [r for r in itertools.product((False, True), repeat=n) if any(r)]
    classes = {}
    for mask in itertools.product(rows, repeat=n):
        array = np.array(mask)
        key = min(
            array[np.ix_(p, q)].tobytes()
            for p in itertools.permutations(range(n))
            for q in itertools.permutations(range(n))
        )
        classes.setdefault(key, mask)
    return sorted(classes.values(), key=lambda m: (-int(np.sum(m)), m))


def _instances(table: dict, key: tuple[str, str]) -> Iterator[tuple[str, int, int, Mask]]:
    for kind, n, d, spec in table.get(key, ()):
        if spec is None:
            yield kind, n, d, None
        elif spec == ALL_MASKS:
            yield from ((kind, n, d, mask) for mask in masks(n))
        else:
            array = builders.mask_from_spec(spec, n)
            yield kind, n, d, tuple(tuple(bool(x) for x in row) for row in array)


@functools.cache
def _dag(kind: str, n: int, d: int, mask: Mask):
    if mask is None:
        return builders.build(kind, n, d), {}
    array = np.array(mask, dtype=bool)
    return builders.build(kind, n, d, mask=array), {"Z": int(array.sum())}


@functools.cache
def _exact(kind: str, n: int, d: int, mask: Mask, M: int, max_states: int):
    dag, _ = _dag(kind, n, d, mask)
    result = solve_exact(dag, M, max_states=max_states)
    replayed = replay(dag, result.moves, M).io
    if replayed != result.io:  # never trust a certificate that does not replay
        raise RuntimeError(f"{kind} n={n} d={d} M={M}: certificate replays to {replayed}")
    return result


@functools.cache
def _heuristic(kind: str, n: int, d: int, M: int):
    dag, _ = _dag(kind, n, d, _causal(kind, n))
    result = pebble(dag, M, heuristic="search", iterations=SEARCH_ITERATIONS, moves=True)
    replayed = replay(dag, result.moves, M).io
    if replayed != result.io:
        raise RuntimeError(f"{kind} n={n} d={d} M={M}: pebbling replays to {replayed}")
    return result


def _causal(kind: str, n: int) -> Mask:
    if not kind.startswith("sparse"):
        return None
    return tuple(tuple(bool(x) for x in row) for row in builders.mask_from_spec("causal", n))


@dataclass(frozen=True)
class _Bounds:
    """Proven bounds on IO(G, M) and a replayed pebbling of cost ``upper`` with ``memory``
    red pebbles (at most M: a pebbling with fewer red pebbles is one with more)."""

    lower: int
    upper: int
    moves: tuple
    memory: int

    @property
    def optimal(self) -> bool:
        return self.lower == self.upper


class _Frontier:
    """IO(G, M) of one DAG at increasing M, solved only where it is not yet known.

    Q is non-increasing in M and IO(G, M) >= Q(G, |V|) for every M, so once a pebbling at
    some M costs Q(G, |V|), every larger M has that optimum, with that pebbling.
    """

    def __init__(self, kind: str, n: int, d: int, mask: Mask, max_states: int) -> None:
        self.key = (kind, n, d, mask)
        self.max_states = max_states
        dag, _ = _dag(*self.key)
        self.size = dag.num_vertices
        top = _exact(*self.key, self.size, max_states)
        self.floor = top.lower  # a lower bound on IO(G, M) at every M
        self.settled: tuple[int, _Bounds] | None = None

    def at(self, M: int) -> _Bounds:
        if self.settled is not None and M >= self.settled[0]:
            return self.settled[1]
        result = _exact(*self.key, min(M, self.size), self.max_states)
        bounds = _Bounds(max(result.lower, self.floor), result.io, tuple(result.moves),
                         min(M, self.size))  # fmt: skip
        if bounds.upper == self.floor and (self.settled is None or M < self.settled[0]):
            self.settled = (M, bounds)
        return bounds


def _memories(claim: Claim, dag, n: int, d: int) -> list[int]:
    """Every M from the DAG's least memory to |V|, and larger ones, in ascending order."""
    top = range(dag.min_memory, dag.num_vertices + 1)
    return sorted({*top, *(m for m in LARGE_MEMORIES if m > dag.num_vertices),
                   d * d - 1, d * d, d * d + 1} - set(range(dag.min_memory)))  # fmt: skip


def _exact_points(claim: Claim, max_states: int) -> Iterator[tuple[tuple, int, dict, _Bounds]]:
    key = (claim.bound.regime.value, claim.bound.pass_.value)
    for kind, n, d, mask, width in _family_instances(claim, _instances(EXACT, key)):
        dag, extra = _dag(kind, n, d, mask)
        extra.update(width)
        frontier = None
        for M in _memories(claim, dag, n, d):
            point = {"n": n, "d": d, "M": M, **extra}
            if not claim.holds_at(point):
                continue
            frontier = frontier or _Frontier(kind, n, d, mask, max_states)
            yield (kind, n, d, mask), M, point, frontier.at(M)


def _family_instances(claim: Claim, instances: Iterator) -> Iterator[tuple]:
    """``instances`` with the width of their mask (``{}`` when it has none); for a claim
    about one interval mask family (``mask = "causal"``, ``"window"`` ...) each DAG size of
    ``instances`` once per mask of that family at its n, every width that fits, instead."""
    family = claim.bound.mask
    if family is None or family == "arbitrary":
        yield from ((*instance, {}) for instance in instances)
        return
    if family not in INTERVAL_FAMILIES:
        return  # a block mask's blocks are not fixed by a claim: no DAG of its own
    seen = set()
    for kind, n, d, _ in instances:
        if (kind, n, d) in seen:
            continue
        seen.add((kind, n, d))
        widths = {"window": range(1, n + 1), "band": range(n)}.get(family, [None])
        for width in widths:
            array = make_mask(family, n, w=width).allowed()
            mask = tuple(tuple(bool(x) for x in row) for row in array)
            yield kind, n, d, mask, ({} if width is None else {"w": width})


def _value(expr: sp.Expr, point: dict) -> sp.Expr | None:
    """The exact value of ``expr`` at ``point``; None where it is not a real number."""
    value = sp.nsimplify(expr.subs({ALL[k]: v for k, v in point.items()}))
    return value if value.is_real and value.is_finite else None


def _spec(n: int, mask: Mask) -> str | None:
    """A ``--mask`` spec that builds ``mask``, if one does."""
    for spec in ("full", "causal", *(f"band:{w}" for w in range(n))):
        if np.array_equal(builders.mask_from_spec(spec, n), np.array(mask, dtype=bool)):
            return spec
    return None


def _shown(mask: Mask) -> str:
    return json.dumps([[int(x) for x in row] for row in mask], separators=(",", ":"))


def _where(kind: str, n: int, d: int, mask: Mask, M: int) -> str:
    shown = "" if mask is None else f" mask={_spec(n, mask) or _shown(mask)}"
    return f"{kind} n={n} d={d}{shown} M={M}"


def _command(kind: str, n: int, d: int, mask: Mask, M: int, exact: bool) -> str:
    how = " --exact" if exact else " --heuristic search"
    if mask is None:
        return f"attnio pebble --dag {kind} --n {n} --d {d} --M {M}{how}"
    spec = _spec(n, mask)
    if spec is not None:
        return f"attnio pebble --dag {kind} --n {n} --d {d} --mask {spec} --M {M}{how}"
    return (
        f"attnio pebble --dag {kind} --n {n} --d {d} --mask mask.json --M {M}{how} "
        f"(mask.json holding {_shown(mask)})"
    )


def below_least_memory(claim: Claim) -> list[Evidence]:
    """Refute an upper side that is finite somewhere no pebbling exists (M < LEAST_MEMORY).

    The point is searched among small builder DAGs of the claim's regime and pass (sparse
    ones with a causal mask) and re-checked: the exact solver must refuse the DAG at that
    M, naming a vertex it can never compute.
    """
    upper = claim.upper_side
    allowed = _PARAMETERS.get(claim.bound.regime)
    if upper is None or allowed is None or not set(claim.bound.parameters) <= allowed:
        return []
    if claim.bound.mask not in (None, "causal", "arbitrary"):
        return []  # the DAGs below carry the causal mask
    kind = {"forward": "attention-forward", "backward": "attention-backward"}[
        claim.bound.pass_.value
    ]
    if claim.bound.regime is Regime.SPARSE:
        kind = kind.replace("attention", "sparse")
    for n, d, M in itertools.product(range(1, 5), range(1, 5), range(1, LEAST_MEMORY)):
        mask = _causal(kind, n)
        dag, extra = _dag(kind, n, d, mask)
        point = {"n": n, "d": d, "M": M, **extra}
        if not claim.holds_at(point, domain=False) or (value := _value(upper, point)) is None:
            continue
        try:
            solve_exact(dag, M, max_states=1)
        except MemoryTooSmallError as error:
            where = _where(kind, n, d, mask, M)
            return [Evidence(
                "pebbling", "refuted",
                f"upper side {value} is finite at M={M}, where no pebbling of {where} exists "
                f"(vertex {error.vertex!r} has in-degree {error.minimum - 1} and needs "
                f"{error.minimum} red pebbles): Q is infinite there; the claim's scope "
                f"reaches below the least memory {LEAST_MEMORY} (add the condition "
                f"M >= {LEAST_MEMORY})",
                against=where, point={k: str(v) for k, v in point.items()},
                claim_value=str(value), other_value="oo",
                replay=_command(kind, n, d, mask, M, exact=True),
            )]  # fmt: skip
    return []


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
    found: list[Evidence] = below_least_memory(claim)
    compared = proven = instances = 0
    lower, upper = claim.lower_side, claim.upper_side
    seen = set()
    for (kind, n, d, mask), M, point, result in _exact_points(claim, max_states):
        if (kind, n, d, mask) not in seen:
            seen.add((kind, n, d, mask))
            instances += 1
        proven += result.optimal
        where = _where(kind, n, d, mask, M)
        dag, _ = _dag(kind, n, d, mask)
        shown = {k: str(v) for k, v in point.items()}
        if lower is not None and (value := _value(lower, point)) is not None:
            compared += 1
            if value > result.upper:
                what = f"the proven optimum Q = {result.upper}" if result.optimal else (
                    f"a pebbling of cost {result.upper} (the optimum is at most that)"
                )  # fmt: skip
                fewer = (
                    "" if result.memory == M else f" (a pebbling with {result.memory} red pebbles)"
                )
                found.append(Evidence(
                    "pebbling", "refuted",
                    f"lower side {value} > {what} of {where}{fewer}",
                    against=where, point=shown,
                    claim_value=str(value), other_value=str(result.upper),
                    replay=_command(kind, n, d, mask, M, exact=True),
                    moves=result.moves, dag=dag, memory=M,
                ))  # fmt: skip
        if upper is not None and (value := _value(upper, point)) is not None:
            compared += 1
            if value < result.lower:
                what = f"the proven optimum Q = {result.upper}" if result.optimal else (
                    f"the exact search's proven lower bound {result.lower}"
                )  # fmt: skip
                found.append(Evidence(
                    "pebbling", "refuted",
                    f"upper side {value} < {what} of {where}: no pebbling of this graph "
                    "costs less",
                    against=where, point=shown,
                    claim_value=str(value), other_value=str(result.lower),
                    replay=_command(kind, n, d, mask, M, exact=True),
                    moves=result.moves, dag=dag, memory=M,
                ))  # fmt: skip
    heuristic = 0
    if lower is not None:
        for kind, n, d, sizes in HEURISTIC.get((bound.regime.value, bound.pass_.value), ()):
            mask = _causal(kind, n)
            dag, extra = _dag(kind, n, d, mask)
            low = dag.min_memory
            for M in sorted({*range(low, low + sizes), dag.num_vertices}):
                point = {"n": n, "d": d, "M": M, **extra}
                if not claim.holds_at(point) or (value := _value(lower, point)) is None:
                    continue
                result = _heuristic(kind, n, d, M)
                heuristic += 1
                compared += 1
                if value > result.io:
                    where = _where(kind, n, d, mask, M)
                    found.append(Evidence(
                        "pebbling", "refuted",
                        f"lower side {value} > a replayed pebbling of cost {result.io} of {where}",
                        against=where, point={k: str(v) for k, v in point.items()},
                        claim_value=str(value), other_value=str(result.io),
                        replay=_command(kind, n, d, mask, M, exact=False),
                        moves=tuple(result.moves), dag=dag, memory=M,
                    ))  # fmt: skip
    seconds = time.perf_counter() - start
    if found:
        # the first refutation of each DAG, at most MAX_REFUTATIONS: the rest repeat them
        firsts: dict[str, Evidence] = {}
        for item in found:
            firsts.setdefault(item.against.rsplit(" M=", 1)[0], item)
        return list(firsts.values())[:MAX_REFUTATIONS]
    if not compared:
        return [Evidence("pebbling", "not-applicable", "no small builder DAG lies inside the "
                         "claim's conditions", seconds=seconds)]  # fmt: skip
    return [Evidence(
        "pebbling", "passed",
        f"{compared} comparisons with pebblings of {instances} small {bound.regime.value} "
        f"{bound.pass_.value} DAGs at every M of the claim's scope ({proven} proven optima, "
        f"{heuristic} heuristic pebblings, every certificate replayed)",
        against="builder DAGs", seconds=seconds,
    )]  # fmt: skip


def clear_cache() -> None:
    """Forget the memoised pebblings (they are shared between claims of one process)."""
    for cached in (_dag, _exact, _heuristic):
        cached.cache_clear()


__all__ = [
    "EXACT",
    "HEURISTIC",
    "MAX_STATES",
    "below_least_memory",
    "clear_cache",
    "masks",
    "pebbling_evidence",
]
