"""The data of a figure: series of I/O against M, read from the catalog, the machine and the game.

Everything drawn comes from one of three places: a catalog record evaluated with
``Bound.evaluate`` (closed forms of attnio's schedules, explicit lower bounds), a run of the
two-level machine (``attnio.algorithms.simulate``, counting mode), or a pebbling
(``attnio.pebble``: the exact solver's proven optimum or bounds, or a heuristic). A bound is
kept only where its conditions hold and its value is positive; every point dropped is
listed in :attr:`IOFigure.omitted` so that the caption can say what is not drawn.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from attnio.bounds import Bound, Status, catalog, crossover, get
from attnio.bounds.labels import label

from .errors import FigureError
from .figure import IOFigure, Series


def memory_grid(lo: int, hi: int, points: int) -> list[int]:
    """About ``points`` memory sizes from ``lo`` to ``hi``, spaced geometrically (rounded,
    each once).

    Raises
    ------
    FigureError
        ``lo`` < 1, ``lo`` >= ``hi`` or fewer than two points.
    """
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


BEST_LOWER = "Best derived lower bound"
"""The label of the one lower-bound line a figure draws by default."""


EXTRA_BOUNDS = 4
"""Records ``--bounds`` may add beside the best derived lower bound: one grey line style
each (:data:`attnio.figures.figure.LINE_STYLES` has five, the best line takes one)."""


def lower_bound_records(pass_: str) -> list[Bound]:
    """The records a figure can draw as lower bounds of a dense pass: explicit lower bounds
    in n, d and M alone (any evidence level; ``--bounds`` names them)."""
    return [
        bound
        for bound in catalog(regime="dense", pass_=pass_, kind="lower")
        if bound.explicit is not None and not set(bound.parameters) - {"n", "d", "M"}
    ]


def check_bounds(pass_: str, names: list[str]) -> list[Bound]:
    """The records ``names`` (``attnio plot --bounds``), checked before anything is run.

    Raises
    ------
    FigureError
        A name is not an explicit dense lower bound of ``pass_``, is given twice, or there
        are more than the line styles left beside the best derived lower bound.
    """
    known = {bound.name: bound for bound in lower_bound_records(pass_)}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise FigureError(
            f"bounds={','.join(names)!r}: {', '.join(unknown)} is not an explicit dense "
            f"{pass_} lower bound; choose from: {', '.join(known)}"
        )
    if len(set(names)) != len(names):
        raise FigureError(f"bounds={','.join(names)!r} names a record twice")
    room = EXTRA_BOUNDS
    if len(names) > room:
        raise FigureError(
            f"bounds={','.join(names)!r}: a figure draws at most {room} bounds beside the best "
            f"derived lower bound (one line style each); this asks for {len(names)}"
        )
    return [known[name] for name in names]


def _lower_bounds(
    pass_: str, memories: list[int], n: int, d: int, extra: tuple[str, ...] = ()
) -> tuple[list, list]:
    """The best derived lower bound, one line: at each M the largest of the ``derived``
    explicit lower bounds (the compulsory I/O among them) that hold there, with the record
    attaining it (:attr:`Series.attained`); then each record of ``extra`` on its own line
    (a ``reconstructed`` or ``stated-secondary`` one only when named there), drawn where it
    holds, is positive and exceeds the compulsory I/O."""
    series, omitted = [], []
    records = lower_bound_records(pass_)
    derived = [b for b in records if b.status is Status.DERIVED]
    values = {b.name: bound_series(b, memories, "lower", n=n, d=d)[0].values for b in derived}
    best, attained = [], []
    for k in range(len(memories)):
        candidates = [(v[k], name) for name, v in values.items() if not math.isnan(v[k])]
        top = max(candidates, default=(math.nan, None))
        best.append(top[0])
        attained.append(top[1])
    series.append(
        Series(
            BEST_LOWER,
            "lower",
            tuple(memories),
            tuple(best),
            "best",
            None,
            attained=tuple(attained),
        )
    )
    compulsory = get(f"dense-{pass_}-compulsory")
    floor = float(compulsory.evaluate(n=n, d=d))
    for bound in check_bounds(pass_, list(extra)):
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
    return series, omitted


def attained_ranges(series: Series) -> list[tuple[int, int, str]]:
    """``(first M, last M, record)`` runs of the record that attains the best derived lower
    bound (:attr:`Series.attained`), in order of M."""
    runs: list[tuple[int, int, str]] = []
    for memory, name in zip(series.memories, series.attained or (), strict=False):
        if name is None:
            continue
        if runs and runs[-1][2] == name:
            runs[-1] = (runs[-1][0], memory, name)
        else:
            runs.append((memory, memory, name))
    return runs


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
    bounds: tuple[str, ...] = (),
) -> IOFigure:
    """Closed forms (dense grid), machine counts (``points`` Ms) and lower bounds against M.

    Only dense algorithms are drawn: their counts depend on n, d and M alone. The lower
    bounds are the best derived one as one line and the records named in ``bounds``.

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
    check_bounds(pass_, list(bounds))  # before any machine run
    line_grid = memory_grid(lo, hi, 160)
    marker_grid = memory_grid(lo, hi, points)
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
        more, notes = _lower_bounds(pass_, line_grid, n, d, tuple(bounds))
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
    bounds: tuple[str, ...] = (),
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
    check_bounds(pass_, list(bounds))  # before any search
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
    more, omitted = _lower_bounds(pass_, memories, n, d, tuple(bounds))
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
