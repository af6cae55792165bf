"""The data of a figure: series of I/O against M, read from the catalog, the machine and the game.

Everything drawn comes from one of three places: a catalog record evaluated with
``Bound.evaluate`` (closed forms of attnio's schedules, explicit lower bounds), a run of the
two-level machine (``attnio.algorithms.simulate``, counting mode), or a pebbling
(``attnio.pebble``: the exact solver's proven optimum or bounds, or a heuristic). A bound is
kept only where its conditions hold and its value is positive; every point dropped is
listed in :attr:`IOFigure.omitted` so that the caption can say what is not drawn.
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import sympy as sp

from attnio.bounds import Bound, Status, catalog, crossover, get
from attnio.bounds.labels import label

from .errors import FigureError
from .figure import IOFigure, Series


def _grid(lo: int, hi: int, points: int) -> list[int]:
    if not 1 <= lo < hi:
        raise FigureError(f"memory range {lo}:{hi} needs 1 <= lo < hi")
    if points < 2:
        raise FigureError(f"points={points} must be at least 2")
    return sorted({round(float(m)) for m in np.geomspace(lo, hi, points)})


def _lower_label(bound: Bound) -> str:
    """The record's reader's label (the tables' name); a dagger marks a reconstructed bound,
    as the tables' evidence column does."""
    text = label(bound)
    if bound.status is Status.RECONSTRUCTED:
        text += r"$^\dagger$"
    return text


def _condition_text(bound: Bound) -> str:
    return "$" + sp.latex(bound.conditions).replace(r"\wedge", r",\ ") + "$"


def bound_series(
    bound: Bound, memories: list[int], kind: str, group: str = "", **params: int
) -> tuple[Series, list[str]]:
    """Evaluate ``bound``'s explicit form at each M; ``nan`` outside its conditions or at values <= 0.

    Returns the series and the notes on what was dropped (for the caption).
    """
    values, outside, nonpositive = [], False, False
    for M in memories:
        point = {"M": M, **params}
        needed = {k: v for k, v in point.items() if k in bound.parameters}
        if not bound.applies(**needed):
            values.append(math.nan)
            outside = True
            continue
        value = float(bound.evaluate(**needed))
        if value <= 0:
            values.append(math.nan)
            nonpositive = True
            continue
        values.append(value)
    name = _lower_label(bound) if kind == "lower" else label(bound).removesuffix(", exact")
    notes = []
    if outside:
        notes.append(f"outside its conditions ({_condition_text(bound)})")
    if nonpositive:
        notes.append("where it is not positive")
    series = Series(name, kind, tuple(memories), tuple(values), group or name, bound.name)
    return series, notes


def _lower_bounds(pass_: str, memories: list[int], n: int, d: int) -> tuple[list, list]:
    """The explicit lower bounds in n, d, M, each drawn only where it says more than the
    compulsory I/O (below it, the compulsory bound is the better lower bound)."""
    series, omitted = [], []
    compulsory = get(f"dense-{pass_}-compulsory")
    floor = float(compulsory.evaluate(n=n, d=d))
    for bound in catalog(regime="dense", pass_=pass_, kind="lower"):
        if bound.explicit is None or set(bound.parameters) - {"n", "d", "M"}:
            continue
        one, notes = bound_series(bound, memories, "lower", n=n, d=d)
        if bound.name != compulsory.name:
            kept = tuple(v if v > floor else math.nan for v in one.values)
            if any(v <= floor for v in one.values if not math.isnan(v)):
                notes.append("where it is below the compulsory I/O")
            one = Series(one.label, one.kind, one.memories, kept, one.group, one.record)
        joined = ", ".join(notes[:-1]) + (" and " if len(notes) > 1 else "") + "".join(notes[-1:])
        if all(math.isnan(v) for v in one.values):
            omitted.append(f"{one.label}: nowhere in this range ({joined})")
            continue
        if notes:
            omitted.append(f"{one.label}: {joined}")
        series.append(one)
    kept, omitted = _undominated(series, omitted)
    return _join_cache_twins(kept), omitted


_CACHE_SUFFIX = re.compile(r", (small|large) cache$")


def _join_cache_twins(series: list) -> list:
    """Give the lower bounds drawn on both sides of M = d^2 under one name (a record per
    cache, ``"Sharp lower bound, small cache"`` and ``"..., large cache"``) one group and
    that name without the cache, so that the figure draws them as one line style with one
    legend entry; a bound drawn alone keeps its label."""
    groups: dict[str, list[int]] = {}
    for k, one in enumerate(series):
        groups.setdefault(_CACHE_SUFFIX.sub("", one.label), []).append(k)
    out = list(series)
    for name, members in groups.items():
        if len(members) > 1:
            for k in members:
                out[k] = dataclasses.replace(series[k], label=name, group=name)
    return out


def _undominated(series: list, omitted: list) -> tuple[list, list]:
    """Drop a derived lower bound that the other derived ones, taken together, are at least
    as high as wherever it is drawn: it adds nothing to their maximum on this range. The
    caption names the drawn bounds that cover it (each dropped bound lies below the maximum
    of those still drawn). Of two equal bounds the later one is kept."""
    from attnio.bounds import Status

    def derived(one: Series) -> bool:
        return bool(one.record) and get(one.record).status is Status.DERIVED

    def drawn(one: Series) -> list[int]:
        return [k for k, value in enumerate(one.values) if not math.isnan(value)]

    def tops(one: Series, others: list) -> list[float]:
        out = []
        for k in drawn(one):
            values = [o.values[k] for o in others if not math.isnan(o.values[k])]
            out.append(max(values) if values else math.nan)
        return out

    kept, dropped = list(series), []
    for one in series:
        others = [other for other in kept if other is not one and derived(other)]
        if not derived(one) or not drawn(one) or not others:
            continue
        top = tops(one, others)
        if all(
            not math.isnan(t) and t >= one.values[k] for k, t in zip(drawn(one), top, strict=True)
        ):
            kept.remove(one)
            dropped.append(one)
    for one in dropped:
        others = [other for other in kept if derived(other)]
        pairs = list(zip(drawn(one), tops(one, others), strict=True))
        alone = [o.label for o in others if all(o.values[k] >= one.values[k] for k, _ in pairs)]
        cover = alone[:1] or [o.label for o in others if any(o.values[k] == t for k, t in pairs)]
        if len(cover) == 1:
            omitted.append(f"{one.label}: below {cover[0]} wherever it is drawn")
        else:
            names = ", ".join(cover[:-1]) + f" and {cover[-1]}"
            omitted.append(f"{one.label}: below the larger of {names} wherever it is drawn")
    return kept, omitted


def _crossover(pass_: str, d: int) -> float | None:
    point = crossover(get(f"dense-{pass_}-tight"))
    if point is None:
        return None
    return float(point.subs({s: d for s in point.free_symbols if s.name == "d"}))


def algorithm_figure(
    algorithms: list[str],
    pass_: str,
    n: int,
    d: int,
    lo: int,
    hi: int,
    points: int = 12,
    measured: bool = True,
    lower: bool = True,
) -> IOFigure:
    """Closed forms (dense grid), machine counts (``points`` Ms) and lower bounds against M.

    Only dense algorithms are drawn: their counts depend on n, d and M alone.

    Raises
    ------
    FigureError
        If an algorithm is unknown, not dense, or has no ``pass_`` pass.
    """
    from attnio.algorithms import ALGORITHMS, simulate
    from attnio.algorithms.errors import MemoryTooSmallError

    if pass_ not in ("forward", "backward"):
        raise FigureError(f"pass={pass_!r} is not one of: forward, backward")
    for name in algorithms:
        algo = ALGORITHMS.get(name)
        dense = [a for a, x in ALGORITHMS.items() if x.regime == "dense"]
        if algo is None or algo.regime != "dense":
            raise FigureError(f"algorithm={name!r} is not one of the dense algorithms: {dense}")
        if pass_ not in algo.counts:
            raise FigureError(f"{name} has no {pass_} pass; it has: {', '.join(algo.counts)}")
    line_grid = _grid(lo, hi, 160)
    marker_grid = _grid(lo, hi, points)
    series: list[Series] = []
    omitted: list[str] = []
    for name in algorithms:
        record = get(ALGORITHMS[name].counts[pass_])
        closed, _ = bound_series(record, line_grid, "closed", group=name, n=n, d=d)
        series.append(closed)
        if measured:
            values = []
            for M in marker_grid:
                try:
                    run = simulate(name, pass_, n, d, M, numeric=False)
                except MemoryTooSmallError:
                    values.append(math.nan)
                    continue
                values.append(float(run.counts.io))
            series.append(
                Series(closed.label, "measured", tuple(marker_grid), tuple(values), name, None)
            )
    if lower:
        more, notes = _lower_bounds(pass_, line_grid, n, d)
        series += more
        omitted += notes
    return IOFigure(
        pass_,
        n,
        d,
        tuple(series),
        _crossover(pass_, d),
        tuple(omitted),
        subject=f"attention's {pass_} pass",
    )


_DAG_PASS = {"attention-forward": "forward", "attention-backward": "backward"}


def pebbling_figure(
    dag_kind: str,
    n: int,
    d: int,
    memories: list[int],
    exact: bool = True,
    heuristic: str | None = "belady",
    variant: str = "standard",
    max_states: int = 4_000_000,
    time_limit: float | None = None,
) -> IOFigure:
    """Exact and heuristic pebbling costs of a small attention DAG against M, with lower bounds.

    Raises
    ------
    FigureError
        If ``dag_kind`` is not a dense attention DAG, or neither exact nor heuristic is asked.
    """
    from attnio.pebble import builders
    from attnio.pebble.heuristic import pebble

    if dag_kind not in _DAG_PASS:
        raise FigureError(f"dag={dag_kind!r} is not one of: {', '.join(_DAG_PASS)}")
    if not exact and heuristic is None:
        raise FigureError("ask for the exact optimum, a heuristic, or both")
    pass_ = _DAG_PASS[dag_kind]
    dag = builders.build(dag_kind, n, d)
    dag.validate_memory(min(memories))
    series: list[Series] = []
    if exact:
        from attnio.pebble.exact import solve_exact

        results = [
            solve_exact(dag, M, variant=variant, max_states=max_states, time_limit=time_limit)
            for M in memories
        ]
        proven = [float(r.io) if r.optimal else math.nan for r in results]
        series.append(Series("Exact optimum", "exact", tuple(memories), tuple(proven), "exact"))
        if not all(r.optimal for r in results):
            high = [math.nan if r.optimal else float(r.upper) for r in results]
            low = [math.nan if r.optimal else float(r.lower) for r in results]
            series.append(
                Series(
                    "Proven bounds",
                    "exact-bounds",
                    tuple(memories),
                    tuple(high),
                    "exact",
                    None,
                    tuple(low),
                )
            )
    if heuristic is not None:
        values = tuple(float(pebble(dag, M, heuristic=heuristic, variant=variant).io)
                       for M in memories)  # fmt: skip
        name = {"belady": "Belady"}.get(heuristic, heuristic.capitalize())
        series.append(Series(f"Heuristic ({name})", "heuristic", tuple(memories), values, "h"))
    more, omitted = _lower_bounds(pass_, memories, n, d)
    return IOFigure(
        pass_,
        n,
        d,
        tuple(series + more),
        None,
        tuple(omitted),
        subject=f"pebbling the {pass_} attention DAG ({dag.num_vertices} vertices, {variant} game)",
        log=False,
    )


def sweep_figure(result: object) -> IOFigure:
    """Turn an ``attnio.algorithms.Sweep`` (``attnio simulate --sweep``) into a figure.

    Closed forms and counts come from the sweep; lower bounds are re-evaluated from the
    catalog on the sweep's grid, so that what is dropped is reported.
    """
    memories = list(result.memories)
    series: list[Series] = []
    from attnio.algorithms import ALGORITHMS

    for name, values in result.measured.items():
        record = ALGORITHMS[name].counts.get(result.pass_)
        text = label(get(record)).removesuffix(", exact") if record else name
        closed = tuple(math.nan if v is None else v for v in result.closed[name])
        if not all(math.isnan(v) for v in closed):
            series.append(Series(text, "closed", tuple(memories), closed, name, record))
        counts = tuple(math.nan if v is None else v for v in values)
        series.append(Series(text, "measured", tuple(memories), counts, name))
    more, omitted = _lower_bounds(result.pass_, memories, result.n, result.d)
    return IOFigure(
        result.pass_,
        result.n,
        result.d,
        tuple(series + more),
        result.crossover,
        tuple(omitted),
        subject=f"attention's {result.pass_} pass",
    )
