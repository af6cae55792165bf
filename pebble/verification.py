"""Pebbling checks run by ``attnio verify``: small attention DAGs against the bound catalog.

Each check takes no argument and returns ``(passed, detail)``: ``True``,
``False``, or ``None`` when it had nothing to check (skipped, never counted as
passed). The first line of a docstring is the check's title. A heuristic
pebbling's cost is a proven upper bound on IO(G, M) (the replayer re-checks every
one), so an explicit catalog lower bound above it is refuted; the exact optimum
(:func:`attnio.pebble.exact.solve_exact`) is checked only where it was proven.

References
----------
HK81 (the game), SY24 section 2 (the forward graph), D23 (the backward graph).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import sympy as sp

from attnio.bounds import catalog, get
from attnio.bounds.checks import Check
from attnio.bounds.record import Regime

from . import builders, reference
from .dag import Dag
from .heuristic import solve_heuristic
from .moves import replay
from .player import POLICIES, compulsory_io, natural_order, play
from .variants import Variant

_SIZES = ((1, 1), (1, 2), (2, 1), (2, 2), (3, 2))
"""(n, d) of the small dense DAGs the checks pebble."""

_EXACT_INSTANCES = (
    ("attention-forward", 1, 1),
    ("attention-forward", 1, 2),
    ("attention-forward", 2, 1),
    ("attention-backward", 1, 1),
)
"""Instances small enough for the exact solver (at most a few dozen vertices)."""

_EXACT_SECONDS = 4.0
"""Time limit of one exact solve inside ``attnio verify``."""

_PASSES = {
    spec.kind: spec.pass_.value
    for spec in builders.BUILDERS.values()
    if spec.regime is Regime.DENSE and spec.variant_of is None
}
"""Pass of each dense DAG family (from the builder table)."""


def _dense(kind: str, n_: int, d_: int, tree: str = "chain") -> Dag:
    return builders.build(kind, n_, d_, tree=tree)


def _memories(dag: Dag) -> list[int]:
    low = dag.min_memory
    return sorted({low, low + 1, low + 3, 2 * low + 4, dag.num_vertices})


def check_vertex_counts() -> tuple[bool, str]:
    """Every attention DAG builder has exactly the vertex count its formula states."""
    bad, checked = [], 0
    for n_, d_ in _SIZES:
        mask = builders.causal_mask(n_)
        for tree in builders.TREE_SHAPES:
            for spec in builders.BUILDERS.values():
                options = {"mask": mask} if "mask" in spec.parameters else {}
                dag = builders.build(spec.kind, n_, d_, tree=tree, **options)
                formula = spec.vertex_count(n_, d_, **options)
                checked += 1
                if dag.num_vertices != formula:
                    bad.append(
                        f"{spec.kind} n={n_} d={d_} {tree}: built {dag.num_vertices}, "
                        f"formula {formula}"
                    )
    return (not bad), "; ".join(bad) or f"{checked} graphs match their formulas"


def check_compulsory_matches_catalog() -> tuple[bool, str]:
    """The compulsory I/O of the dense DAGs equals the catalog's compulsory records."""
    bad, checked = [], 0
    for kind, record in (
        ("attention-forward", "dense-forward-compulsory"),
        ("attention-backward", "dense-backward-compulsory"),
    ):
        bound = get(record)
        for n_, d_ in _SIZES:
            dag = _dense(kind, n_, d_)
            stated = bound.evaluate(n=n_, d=d_, M=dag.min_memory)
            checked += 1
            if compulsory_io(dag) != stated:
                bad.append(f"{kind} n={n_} d={d_}: graph {compulsory_io(dag)}, {record} {stated}")
    return (not bad), "; ".join(bad) or f"{checked} graphs agree with the catalog"


def check_kernel_matches_reference() -> tuple[bool, str]:
    """The numba heuristic makes the same moves as its pure-Python reference."""
    bad, checked = [], 0
    for kind in ("attention-forward", "attention-backward"):
        for n_, d_ in _SIZES[:4]:
            dag = _dense(kind, n_, d_, tree="balanced")
            order = natural_order(dag)
            for M in _memories(dag):
                for policy in POLICIES:
                    checked += 1
                    fast = play(dag, M, policy=policy, moves=True).moves
                    slow = reference.play_order(dag, order.tolist(), M, policy)
                    if fast != slow:
                        bad.append(f"{kind} n={n_} d={d_} M={M} {policy}")
    return (not bad), "; ".join(bad) or f"{checked} pebblings identical"


def _applicable_lower(
    pass_: str, n_: int, d_: int, M: int, regime: Regime = Regime.DENSE, **extra: int
) -> Iterator[tuple[str, int]]:
    """Explicit lower bounds of ``regime``/``pass_`` that apply at (n, d, M, extra), evaluated."""
    for bound in catalog(regime=regime, pass_=pass_):
        if bound.kind.value not in ("lower", "tight") or bound.explicit is None:
            continue
        params = {"n": n_, "d": d_, "M": M, **extra}
        # a record in parameters the instance lacks (a shape's n_q ...) or about one mask
        # family speaks of other instances
        if set(bound.parameters) - set(params) or bound.mask is not None:
            continue
        if not bound.applies(**params):
            continue
        yield bound.name, int(sp.ceiling(bound.evaluate(**params)))


def _instances() -> Iterator[tuple[str, str, str, Dag, int, int, dict[str, int]]]:
    """(label, regime, pass, DAG, n, d, extra parameters) of the small instances."""
    for kind, pass_ in _PASSES.items():
        for n_, d_ in _SIZES:
            yield f"{kind} n={n_} d={d_}", Regime.DENSE, pass_, _dense(kind, n_, d_), n_, d_, {}
    sparse = [spec for spec in builders.BUILDERS.values() if spec.regime is Regime.SPARSE]
    for kind, pass_ in ((spec.kind, spec.pass_.value) for spec in sparse):
        for n_, d_ in ((2, 1), (3, 2), (4, 1)):
            for spec in ("causal", "local:2"):
                mask = builders.mask_from_spec(spec, n_)
                dag = builders.build(kind, n_, d_, mask=mask)
                yield (f"{kind} n={n_} d={d_} mask={spec}", Regime.SPARSE, pass_, dag, n_, d_,
                       {"Z": int(mask.sum())})  # fmt: skip


@functools.cache
def _pebblings() -> tuple[tuple[str, str, str, int, int, dict, int, int, int], ...]:
    """(label, regime, pass, n, d, extra, M, reported I/O, replayed I/O) of every instance.

    Computed once per process: the pebblings do not depend on the catalog, so the checks
    (and a mutation run) compare every record with the same replayed pebblings.
    """
    found = []
    for where, regime, pass_, dag, n_, d_, extra in _instances():
        for M in _memories(dag):
            result = solve_heuristic(dag, M, heuristic="search", iterations=200, moves=True)
            replayed = replay(dag, result.moves, M)
            found.append((where, regime, pass_, n_, d_, extra, M, result.io, replayed.io))
    return tuple(found)


def check_heuristic_above_lower_bounds() -> tuple[bool | None, str]:
    """Replayed heuristic pebblings of small DAGs cost >= every applicable explicit lower bound."""
    bad, compared = [], 0
    for where, regime, pass_, n_, d_, extra, M, io, replayed_io in _pebblings():
        if replayed_io != io:
            bad.append(f"{where} M={M}: reported {io}, replayed {replayed_io}")
        for name, value in _applicable_lower(pass_, n_, d_, M, regime, **extra):
            compared += 1
            if io < value:
                bad.append(f"{name} = {value} > pebbling {io} at {where} M={M}")
    if not compared and not bad:
        return None, "no explicit lower bound applies to the small instances"
    return (not bad), "; ".join(bad) or f"{compared} bound evaluations below replayed pebblings"


_LARGE_INSTANCES = (
    ("attention-forward", 32, 1, (3,)),
    ("attention-forward", 32, 2, (3, 4)),
    ("attention-forward", 32, 3, (3, 4)),
    ("attention-backward", 32, 1, (3,)),
    ("attention-backward", 64, 2, (3, 4)),
)
"""(kind, n, d, memories) where an explicit small-cache bound exceeds the compulsory I/O:
n^2 d / (sqrt(5M) + 2) - M > 4nd (forward) or 8nd + n (backward) needs n of about
6 (sqrt(5M) + 2) and M < d^2; at d = 1 (M >= d^2) the large-cache sharp and accumulator
bounds do (about 2.9 n^2 d^2 / M against 4 n d), and at M = d^2 = 4 the large-cache corner
bounds (about 4 n^2 / 3 forward and 2.3 n^2 backward)."""


@functools.cache
def _large_pebblings() -> tuple[tuple[str, str, int, int, int, int, int], ...]:
    """(kind, pass, n, d, M, reported I/O, replayed I/O) of the natural-order pebblings."""
    found = []
    for kind, n_, d_, memories in _LARGE_INSTANCES:
        dag = _dense(kind, n_, d_)
        for M in memories:
            result = play(dag, M, moves=True)
            found.append(
                (kind, _PASSES[kind], n_, d_, M, result.io, replay(dag, result.moves, M).io)
            )
    return tuple(found)


def check_nonvacuous_lower_bounds() -> tuple[bool | None, str]:
    """Explicit lower bounds above the compulsory I/O are checked against replayed pebblings.

    On larger DAGs (n = 32, 64) the derived small-cache bounds (M < d^2) and large-cache
    bounds (d = 1) exceed the compulsory bound, so a pebbling tests more than compulsory
    loads and stores. Fails if
    a bound exceeds a replayed pebbling, or if no bound above the compulsory one applies
    (the check would be vacuous). The detail names the bounds exercised above it.
    """
    bad, exercised, compared = [], set(), 0
    for kind, pass_, n_, d_, M, io, replayed_io in _large_pebblings():
        where = f"{kind} n={n_} d={d_} M={M}"
        if replayed_io != io:
            bad.append(f"{where}: reported {io}, replayed {replayed_io}")
        values = dict(_applicable_lower(pass_, n_, d_, M))
        compulsory = max(
            (v for name, v in values.items() if name.endswith("-compulsory")), default=0
        )
        for name, value in values.items():
            compared += 1
            if replayed_io < value:
                bad.append(f"{name} = {value} > replayed pebbling {replayed_io} at {where}")
            elif value > compulsory:
                exercised.add(f"{name} ({value} > compulsory {compulsory} at {where})")
    if bad:
        return False, "; ".join(bad)
    if not exercised:
        return False, "no bound above the compulsory one applies: the check would be vacuous"
    return True, f"{compared} comparisons; above the compulsory bound: " + "; ".join(
        sorted(exercised)
    )


def check_search_improves_natural_order() -> tuple[bool, str]:
    """The order search never costs more than the natural order, and beats it on attention DAGs."""
    worse, better, total = [], 0, 0
    for kind in ("attention-forward", "attention-backward", "approx-forward"):
        dag = builders.build(kind, 3, 2)
        for M in (dag.min_memory + 2, 2 * dag.min_memory + 4):
            total += 1
            natural = play(dag, M).io
            found = solve_heuristic(dag, M, heuristic="search", iterations=300).io
            if found > natural:
                worse.append(f"{kind} M={M}: search {found} > natural {natural}")
            better += found < natural
    if worse or not better:
        return False, "; ".join(worse) or "search never beat the natural order"
    return True, f"search cheaper than the natural order on {better} of {total} instances"


@functools.cache
def _exact(kind: str, n_: int, d_: int, M: int) -> object:
    """The exact solver's result on one small dense instance, computed once per process."""
    from .exact import solve_exact

    return solve_exact(_dense(kind, n_, d_), M, time_limit=_EXACT_SECONDS)


def check_exact_against_bounds() -> tuple[bool | None, str]:
    """Exact optima of tiny attention DAGs: >= lower bounds, <= natural pebbling, monotone in M."""

    bad, proven, unknown = [], 0, 0
    for kind, n_, d_ in _EXACT_INSTANCES:
        dag = _dense(kind, n_, d_)
        previous = None
        for M in range(dag.min_memory, dag.min_memory + 4):
            result = _exact(kind, n_, d_, M)
            if not result.optimal:
                unknown += 1
                previous = None
                continue
            proven += 1
            natural = play(dag, M).io
            where = f"{kind} n={n_} d={d_} M={M}"
            if replay(dag, result.moves, M).io != result.io:
                bad.append(f"{where}: certificate does not replay to {result.io}")
            if result.io > natural:
                bad.append(f"{where}: optimum {result.io} > natural pebbling {natural}")
            if previous is not None and result.io > previous:
                bad.append(f"{where}: optimum {result.io} > optimum {previous} at M-1")
            for name, value in _applicable_lower(_PASSES[kind], n_, d_, M):
                if result.io < value:
                    bad.append(f"{where}: {name} = {value} > optimum {result.io}")
            previous = result.io
    if not proven:
        return None, f"no optimum proven within {_EXACT_SECONDS} s ({unknown} unknown)"
    detail = f"{proven} optima proven and consistent" + (f", {unknown} unknown" if unknown else "")
    return (not bad), "; ".join(bad) or detail


def check_oneshot_not_below_standard() -> tuple[bool | None, str]:
    """Exact one-shot optima of tiny attention DAGs are at least the standard optima."""
    from .exact import solve_exact

    bad, compared = [], 0
    for kind, n_, d_ in _EXACT_INSTANCES[:3]:
        dag = _dense(kind, n_, d_)
        for M in (dag.min_memory, dag.min_memory + 1):
            standard = solve_exact(dag, M, time_limit=_EXACT_SECONDS)
            oneshot = solve_exact(dag, M, variant=Variant.ONESHOT, time_limit=_EXACT_SECONDS)
            if not (standard.optimal and oneshot.optimal):
                continue
            compared += 1
            if oneshot.io < standard.io:
                bad.append(
                    f"{kind} n={n_} d={d_} M={M}: one-shot {oneshot.io} < standard {standard.io}"
                )
    if not compared:
        return None, "no pair of optima proven in time"
    return (not bad), "; ".join(bad) or f"{compared} pairs ordered"


_LEMMA_GRAPHS = (("attention-forward", 2, 1), ("attention-backward", 1, 1))
"""Graphs whose every part ``attnio verify`` checks the part lemmas on (the full sweep:
``benchmarks/lemmas.py`` and ``tests/test_lemmas.py``)."""


def check_part_lemmas() -> tuple[bool | None, str]:
    """The part lemmas of the dense derivations hold on every vertex set of small graphs."""
    from .lemmas import LEMMAS, Structure, check

    bad, checked = [], 0
    for kind, n_, d_ in _LEMMA_GRAPHS:
        s = Structure.of(_dense(kind, n_, d_))
        for lemma in LEMMAS:
            if lemma == "dp-tree" and not s.backward:
                continue
            result = check(s, lemma, rlimit=20_000_000)
            checked += 1
            if result.status != "holds":
                bad.append(f"{lemma} on {kind} n={n_} d={d_}: {result.status}")
    if bad:
        return False, "; ".join(bad)
    return True, f"{checked} lemma checks: no vertex set and dominator set violates one"


CHECKS: tuple[Check, ...] = (
    check_vertex_counts,
    check_compulsory_matches_catalog,
    check_kernel_matches_reference,
    check_heuristic_above_lower_bounds,
    check_nonvacuous_lower_bounds,
    check_search_improves_natural_order,
    check_exact_against_bounds,
    check_oneshot_not_below_standard,
    check_part_lemmas,
)
"""The checks ``attnio verify`` runs for :mod:`attnio.pebble`, in order."""

__all__ = ["CHECKS"]
