"""Closed-form checks of a claim: attnio's derived exact counts at sizes far beyond simulation.

Every algorithm of :data:`attnio.algorithms.ALGORITHMS` has an exact count in the catalog
(``flash-forward-count`` ...), a ``derived`` record that the two-level machine reproduces
word for word (``attnio verify``). Evaluating it costs nothing, so a claim is compared with
it on a wide grid (:data:`SIZES`: n up to 2^20, d up to 256, M from the least memory to
2^30) where no simulation could go:

- a lower side (``lower``, or ``tight`` divided by its constant) must be at most the count
  of every algorithm of the claim's exact regime and pass: an algorithm that moves fewer
  words refutes it;
- the upper side of an ``upper`` claim naming an ``algorithm`` must be at least that
  algorithm's count.

Sparse algorithms are judged on the masks hardest for a claim (:data:`PATTERNS`: the full
mask, the diagonal, bands, causal sliding windows, the causal mask, one key per query,
a few keys per query), each covered by the algorithm's own blocks
(:func:`attnio.algorithms.masks.pattern_mask`, the mask the algorithm runs for it), and
the point's Z, s and s_c are those of that mask, so every point is realised by an actual
mask (n <= Z <= n^2) and every value is an integer of the real domain (M at least
:data:`~attnio.claims.claim.LEAST_MEMORY`).

Approximate claims are judged at *accuracy points* (:func:`attnio.claims.accuracy.accuracies`):
for each entry bound B and epsilon, the least polynomial degree g whose worst-case error
bound over every input with Q and K entries in [-B, B] meets epsilon, with r = C(d + g,
g), so a claim scoped to large entries or fine accuracies is compared with the low-rank
run that satisfies it. Only there does the low-rank count refute a lower side; a point
where the degree has no such guarantee refutes nothing, and where its count is below the
claim the evidence names its error on the two-score adversary (the certificate that it
misses the claim's accuracy, :func:`attnio.claims.accuracy.miss`). The backward pass
has no error bound against exact gradients and refutes no lower side; an upper bound
on a named approximate algorithm is compared with its count at every point, whatever its
accuracy.

The grid is screened in floating point; each candidate is then re-evaluated exactly
(sympy rationals: the claim's scope and domain, the record's conditions, both values,
an approximate point's guarantee) before it is shown, and where the run is small enough
(:data:`MACHINE_TRANSFERS`) the machine runs it and must move exactly the count's words
(a refuting low-rank run is repeated on numeric inputs of every family of
:data:`attnio.algorithms.entries.ENTRY_PATTERNS` and must match the errors known in
closed form, :func:`attnio.claims.accuracy.rerun`). Larger points rest on the derived
record (and an approximate one on the error bound of the polynomial method), as a z3
refutation by it does. A lower side in s or s_c (a block shape's density) is compared
with no count.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable, Iterator

import numpy as np
import sympy as sp

from attnio.algorithms import ALGORITHMS, AlgorithmError, simulate
from attnio.algorithms.masks import (
    allowed_pairs,
    column_weighted_density,
    pattern_mask,
    row_weighted_density,
)
from attnio.bounds import Bound, Kind, Regime, Status, get
from attnio.bounds.masks import sample_masks
from attnio.bounds.symbols import ALL

from .accuracy import (
    accuracies,
    accuracy_text,
    guaranteed_error,
    least_epsilon,
    miss,
    misses,
    reproduce_command,
    rerun,
)
from .claim import LEAST_MEMORY, Claim
from .counting import ACCURATE_PASSES
from .records import usable
from .verdict import Evidence, sampled_evidence

SIZES_N = (1, 2, 3, 4, 8, 16, 37, 64, 256, 1024, 4096, 2**14, 2**16, 2**20)
"""Sequence lengths of the grid."""

SIZES_D = (1, 2, 3, 4, 8, 16, 32, 64, 128, 256)
"""Head dimensions of the grid."""

PATTERN_MAX_N = 1024
"""Largest n at which the masks other than ``full`` are built (their Z, s and s_c are read
from the covered block mask); the full mask's are known at every n."""

PATTERN_D = (1, 2, 4, 8, 16, 64)
"""Head dimensions at which the masks other than ``full`` are built."""

PATTERNS = ("full", "diagonal", "band:1", "band:8", "local:4", "local:64", "causal", "sink",
            "rows:2", "rows:16")  # fmt: skip
"""Masks of the sparse points, patterns of :data:`attnio.algorithms.masks.PATTERNS`."""

MACHINE_TRANSFERS = 20_000
"""A refuting point whose count / d is at most this is also run on the machine."""

NUMERIC_MAX_N = 64
"""A refuting point run on the machine is run on numeric inputs up to this n."""

CANDIDATES = 40
"""Candidates of the floating-point screen re-evaluated exactly, per side, before giving up."""

APPROXIMATE_D = (1, 2, 4, 8, 16, 64)
"""Head dimensions of the approximate points."""

APPROXIMATE_MEMORIES = tuple(2**k for k in range(3, 31, 3))
"""Memory sizes of the approximate points besides each algorithm's thresholds
(:func:`approximate_memories`)."""


def memories(n: int, d: int) -> list[int]:
    """Memory sizes of the grid at (n, d): every power of two from 4 to 2^30, the least
    memory, each algorithm's least memory and its neighbours, d^2 on both sides, nd."""
    values = {2**k for k in range(2, 31)} | {LEAST_MEMORY}
    values |= {4 * d + 2, 5 * d + 3, 5 * d + 4, 6 * d + 3, 9 * d + 2, 10 * d + 2, 12 * d,
               d * d - 1, d * d, d * d + 1, 4 * d * d, n * d, 2 * n * d + 8, n * n}  # fmt: skip
    return sorted(v for v in values if v >= LEAST_MEMORY)


def approximate_memories(d: int, r: int) -> list[int]:
    """Memory sizes of an approximate point: :data:`APPROXIMATE_MEMORIES`, the least
    memory, the blocked low-rank schedule's least (4d + 2) and the least that keeps the
    r x (d + 1) feature table resident (2d + r(d + 2) + 1), and twice each."""
    values = {LEAST_MEMORY, *APPROXIMATE_MEMORIES}
    for least in (4 * d + 2, 2 * d + r * (d + 2) + 1):
        values |= {least, 2 * least}
    return sorted(v for v in values if v >= LEAST_MEMORY)


@functools.cache
def _fast(expr: sp.Basic):
    """``expr`` as a float function of its symbols, and their names (screening only)."""
    names = tuple(sorted(str(s) for s in expr.free_symbols))
    return names, sp.lambdify([ALL[k] for k in names], expr, modules=["math"])


def _evaluator(expr: sp.Basic) -> Callable[[dict[str, float]], float | None]:
    """``values -> expr`` at float ``values``, None where it fails (screening only, never
    a verdict).

    Looked up once per expression, not once per point: the lookup hashes ``expr`` and,
    for an expression equal to an earlier one but not the same object (the scope of one
    claim after another's), compares the two trees node by node, which took more than
    the evaluation itself over the grid's 760,000 points.
    """
    names, function = _fast(expr)

    def at(values: dict[str, float]) -> float | None:
        try:
            return float(function(*(values[k] for k in names)))
        except (KeyError, ArithmeticError, TypeError, ValueError):
            return None

    return at


def _screen(relation: sp.Basic) -> Callable[[dict[str, float]], bool]:
    """``values -> whether relation may hold there`` (True when it cannot be screened)."""
    if relation is sp.true:
        return lambda values: True
    at = _evaluator(relation)

    def holds(values: dict[str, float]) -> bool:
        value = at(values)
        return True if value is None else bool(value)

    return holds


@functools.cache
def _as_float(value: object) -> float:
    """``value`` (an int or a sympy number) as a float, for the screen; cached, since the
    accuracy points repeat a few rationals (B, epsilon) over the whole grid."""
    return float(value)


def _float(value: object) -> float:
    """:func:`_as_float`, with Python's ints (most of a grid's values) converted directly."""
    return float(value) if type(value) is int else _as_float(value)


@functools.cache
def _pattern_point(spec: str, n: int, rows: int, cols: int) -> dict | None:
    """Z, s and s_c of the block mask covering ``spec`` with ``rows`` x ``cols`` blocks."""
    if spec == "full":  # every block set, at any n
        return {"Z": n * n, "s": sp.Integer(1), "s_c": sp.Integer(1)}
    try:
        coarse = pattern_mask(spec, n, rows, cols)
    except (AlgorithmError, ValueError):
        return None
    return {
        "Z": allowed_pairs(coarse, n, rows, cols),
        "s": sp.Rational(row_weighted_density(coarse, n, rows)),
        "s_c": sp.Rational(column_weighted_density(coarse, n, cols)),
    }


@functools.cache
def _sample_masks(family: str, n: int) -> tuple:
    """The family's sample masks at n (:func:`attnio.bounds.masks.sample_masks`), once."""
    return sample_masks(family, n)


def _records(claim: Claim, side: str) -> list[tuple[str, Bound]]:
    """(algorithm, its derived exact count) the claim's ``side`` is compared with."""
    bound = claim.bound
    pass_ = bound.pass_.value
    if bound.regime is Regime.APPROXIMATE and side == "lower" and pass_ not in ACCURATE_PASSES:
        return []
    names = [bound.algorithm] if side == "upper" else list(ALGORITHMS)
    found = []
    for name in names:
        algo = ALGORITHMS.get(name)
        if algo is None or algo.regime != bound.regime.value or pass_ not in algo.counts:
            continue
        if bound.mask is not None and algo.mask_family != bound.mask:
            continue  # a claim about one mask family is judged on that family's masks only
        record = get(algo.counts[pass_])
        if not usable(record):  # the record being checked is no evidence for itself
            continue
        if record.status is Status.DERIVED and record.explicit is not None:
            found.append((name, record))
    return found


def _fewest(points: tuple[dict, ...], used: set[str]) -> list[dict]:
    """The accuracy points of least rank for each value of the parameters in ``used``
    (B, epsilon): the low-rank count never decreases with r, so for a lower side that
    uses neither g nor r the others cannot refute where these do not."""
    if {"g", "r"} & used:
        return list(points)
    least: dict[tuple, dict] = {}
    for point in points:
        key = tuple(point[k] for k in ("B", "epsilon") if k in used)
        if key not in least or point["r"] < least[key]["r"]:
            least[key] = point
    return list(least.values())


def _approximate_points(epsilons: bool, lower: bool, used: set[str]) -> Iterator[tuple[dict, None]]:
    """Accuracy points of the grid (module docstring): n, d, M, g, r, B, epsilon and the
    guarantee (None at the points of a lower side where the degree misses epsilon); for a
    lower side only the least ranks (:func:`_fewest`) of the claim's parameters ``used``."""
    for d in APPROXIMATE_D:
        chosen = accuracies(d, epsilons)
        if lower:
            chosen = (*_fewest(chosen, used), *_fewest(misses(d, epsilons), used))
        for accuracy in chosen:
            for n in SIZES_N:
                for M in approximate_memories(d, accuracy["r"]):
                    yield {"n": n, "d": d, "M": M, **accuracy}, None


def _points(name: str, pass_: str, sparse: bool) -> Iterator[tuple[dict, str | None]]:
    """(point, mask pattern) of the grid for algorithm ``name``; dense points carry None."""
    algo = ALGORITHMS[name]
    for n in SIZES_N:
        for d in SIZES_D:
            for M in memories(n, d):
                if not sparse:
                    yield {"n": n, "d": d, "M": M}, None
                    continue
                if algo.mask_family is not None:
                    for mask in _sample_masks(algo.mask_family, n):
                        yield {"n": n, "d": d, "M": M, **mask.point()}, mask.spec
                    continue
                try:
                    rows, cols = algo.block_shape(pass_, d, M)
                except (AlgorithmError, ValueError, ZeroDivisionError):
                    continue
                if rows < 1 or cols < 1:
                    continue
                for spec in PATTERNS:
                    if spec != "full" and (n > PATTERN_MAX_N or d not in PATTERN_D):
                        continue
                    extra = _pattern_point(spec, n, rows, cols)
                    if extra is not None:
                        yield {"n": n, "d": d, "M": M, **extra}, spec


def _exact(expr: sp.Expr, point: dict) -> sp.Expr | None:
    value = sp.nsimplify(expr.subs({ALL[k]: v for k, v in point.items() if k in ALL}))
    return value if value.is_real and value.is_finite else None


def _machine(name: str, pass_: str, point: dict, spec: str | None, count: int,
             accurate: bool = False) -> str | None:  # fmt: skip
    """Run a small point on the machine: on numeric inputs up to n = :data:`NUMERIC_MAX_N`
    (it must match the NumPy reference of the masked attention), else counting words.

    A point of an approximate algorithm runs at its degree; with ``accurate`` (it refutes
    a lower side) the run is repeated on the input families of known error
    (:func:`attnio.claims.accuracy.rerun`) up to n = :data:`NUMERIC_MAX_N`.

    Returns what the run showed, ``''`` if the point is too large to run here (the
    refutation then rests on the derived record), or None if the run disagrees with the
    count, does not run there, or does not compute attention (no refutation then)."""
    n, d, M = (int(point[k]) for k in ("n", "d", "M"))
    if count // d > MACHINE_TRANSFERS:
        return ""
    approximate = "g" in point and ALGORITHMS[name].regime == "approximate"
    if approximate and accurate and n <= NUMERIC_MAX_N:
        checked = rerun(name, pass_, point, count)
        if checked != "":
            if checked is None:
                return None
            return f"the two-level machine moves exactly that many words; {checked}"
    kwargs = {} if spec is None else {"mask": spec}
    if approximate:
        kwargs = {"degree": int(point["g"])}
    numeric = n <= NUMERIC_MAX_N and not approximate
    try:
        run = simulate(name, pass_, n, d, M, numeric=numeric, **kwargs)
    except (AlgorithmError, ValueError):
        return None
    realised = point.get("Z", 0)
    if run.counts.io != count or int(run.parameters.get("Z", realised)) != realised:
        return None
    if not numeric:
        return "the two-level machine moves exactly that many words"
    if run.error is None or not run.error <= 1e-9:
        return None
    return (
        "the two-level machine moves exactly that many words and matches the NumPy reference "
        f"of the attention it computes to relative error {run.error:.1g}"
    )


def _commands(name: str, pass_: str, record: Bound, point: dict, spec: str | None,
              ran: bool) -> str:  # fmt: skip
    evaluate = " ".join(f"--{k} {point[k]}" for k in sorted(record.parameters))
    command = f"attnio eval {record.name} {evaluate}"
    if ran:
        mask = "" if spec is None else f" --mask {spec}"
        degree = f" --degree {point['g']}" if "g" in point else ""
        command = (
            f"attnio simulate {name} --pass {pass_} --n {point['n']} --d {point['d']} "
            f"--M {point['M']}{mask}{degree} --count-only; {command}"
        )
    return command


@dataclasses.dataclass(frozen=True)
class _Group:
    """Points of a grid that have the same parameters: the points as generated (without
    their guarantee), each one's mask pattern and accuracy guarantee, and one float
    column per parameter (the screen's values of :func:`_as_float`)."""

    keys: frozenset[str]
    order: tuple[int, ...]
    points: tuple[dict, ...]
    specs: tuple[str | None, ...]
    guarantees: tuple
    columns: dict[str, np.ndarray]


def _grouped(generated: Iterator[tuple[dict, str | None]]) -> tuple[_Group, ...]:
    """The generated (point, spec) pairs in groups of equal parameters, in order of first
    appearance; within a group the points keep their order."""
    groups: dict[frozenset, list] = {}
    for index, (point, spec) in enumerate(generated):
        guarantee = None
        if "guarantee" in point:
            point = dict(point)
            guarantee = point.pop("guarantee")
        groups.setdefault(frozenset(point), []).append((index, point, spec, guarantee))
    out = []
    for keys, items in groups.items():
        order, points, specs, guarantees = zip(*items, strict=True)
        columns = {k: np.array([_float(point[k]) for point in points]) for k in keys}
        out.append(_Group(keys, order, points, specs, guarantees, columns))
    return tuple(out)


def _grid(name: str, pass_: str, sparse: bool) -> tuple[_Group, ...]:
    """:func:`_points` of algorithm ``name``, grouped, built once per process for all the
    algorithms with the same points: every dense algorithm, every algorithm of one mask
    family; the pattern points of a block-sparse algorithm depend on its block shape."""
    family = ALGORITHMS[name].mask_family
    if not sparse:
        return _shared_grid("dense", None)
    if family is not None:
        return _shared_grid("family", family)
    return _named_grid(name, pass_)


@functools.cache
def _shared_grid(kind: str, family: str | None) -> tuple[_Group, ...]:
    """The grid every dense algorithm (``kind`` "dense") or every algorithm of the mask
    ``family`` is screened on."""
    for name, algo in ALGORITHMS.items():
        if (kind == "dense" and algo.regime == "dense") or (
            kind == "family" and algo.mask_family == family
        ):
            return _grouped(_points(name, next(iter(algo.counts)), kind != "dense"))
    raise ValueError(f"no algorithm has the {kind} grid {family!r}")


@functools.cache
def _named_grid(name: str, pass_: str) -> tuple[_Group, ...]:
    """The pattern points of the block-sparse algorithm ``name``, grouped."""
    return _grouped(_points(name, pass_, True))


@functools.cache
def _approximate_grid(epsilons: bool, lower: bool, used: frozenset[str]) -> tuple[_Group, ...]:
    """:func:`_approximate_points`, grouped, once per process."""
    return _grouped(_approximate_points(epsilons, lower, set(used)))


@dataclasses.dataclass
class _Screened:
    """What the float screen of one record's grid found: the number of points compared,
    the candidates (index in the grid, gap, point, spec, guarantee), and (approximate
    lower sides) the points below the claim whose degree misses its accuracy, in the same
    form; :meth:`sorted` puts both in grid order."""

    compared: int = 0
    candidates: list = dataclasses.field(default_factory=list)
    missed: list = dataclasses.field(default_factory=list)

    def add(self, other: _Screened) -> None:
        """Count and collect what ``other`` found too."""
        self.compared += other.compared
        self.candidates.extend(other.candidates)
        self.missed.extend(other.missed)

    def sorted(self) -> _Screened:
        """This, with the candidates and the missed points in grid order."""
        self.candidates.sort(key=lambda c: c[0])
        self.missed.sort(key=lambda c: c[0])
        return self


@functools.cache
def _vector(expr: sp.Basic):
    """``expr`` as a NumPy function of its symbols, and their names (screening only)."""
    names = tuple(sorted(str(s) for s in expr.free_symbols))
    return names, sp.lambdify([ALL[k] for k in names], expr, modules=["numpy"])


def _column(expr: sp.Basic, group: _Group, rows: np.ndarray) -> np.ndarray:
    """``expr`` at the points ``rows`` (indices) of ``group`` as one float array.

    Raises
    ------
    ArithmeticError
        (``FloatingPointError`` among them) where some point divides by zero, overflows
        or leaves the domain, or the expression uses a parameter the group lacks
        (``KeyError``): the caller then screens that group point by point.
    """
    names, function = _vector(expr)
    with np.errstate(all="raise", under="ignore"):  # math underflows to 0 silently too
        value = function(*(group.columns[k][rows] for k in names))
        return np.broadcast_to(np.asarray(value, dtype=float), rows.shape)


def _screened(grid, needed, side, approximate, scope, value, record) -> _Screened:
    """The float screen of ``grid`` against one record (:func:`_judge`), one NumPy
    evaluation per group of points.

    A group where some point makes NumPy signal a floating-point error (which the
    pointwise screen meets as an exception and treats as "cannot screen") is screened by
    :func:`_screened_pointwise`, the reference this equals
    (``tests/test_claims_closed_forms.py``).
    """
    out = _Screened()
    lower = side == "lower"
    for group in grid:
        if not needed <= group.keys:
            continue
        try:
            rows = np.arange(len(group.points))
            for relation in (scope, record.conditions):  # the values only where both hold
                rows = rows[_kept(relation, group, rows)]
            mine, count = _values(value, group, rows), _values(record.explicit, group, rows)
            valid = np.isfinite(mine) & (count > 0)
            rows, mine, count = rows[valid], mine[valid], count[valid]
            with np.errstate(all="raise", under="ignore"):
                gap = mine / count if lower else _upper_gap(mine, count)
        except (ArithmeticError, KeyError, TypeError, ValueError):
            out.add(_screened_pointwise(_single(group), needed, side, approximate, scope,
                                        value, record))  # fmt: skip
            continue
        for i, ratio in zip(rows.tolist(), gap.tolist(), strict=True):
            item = (group.order[i], ratio, group.points[i], group.specs[i], group.guarantees[i])
            if approximate and lower and item[4] is None:
                if ratio > 1 + 1e-9:
                    out.missed.append(item)
                continue
            out.compared += 1
            if ratio > 1 + 1e-9:
                out.candidates.append(item)
    return out.sorted()


def _kept(relation: sp.Basic, group: _Group, rows: np.ndarray) -> np.ndarray:
    """Whether ``relation`` may hold at each of the points ``rows`` of ``group`` (a mask
    over ``rows``): one NumPy evaluation, or where that signals a floating-point error (an
    exponential's overflow), ``math`` at each point, where the pointwise screen keeps a
    point it cannot evaluate (:func:`_screen`)."""
    if relation is sp.true:
        return np.ones(rows.shape, dtype=bool)
    try:
        return _column(relation, group, rows) != 0
    except (ArithmeticError, KeyError, TypeError, ValueError):
        holds = _screen(relation)
        return np.array(
            [holds({k: _float(v) for k, v in group.points[i].items()}) for i in rows.tolist()],
            dtype=bool,
        )


def _values(expr: sp.Basic, group: _Group, rows: np.ndarray) -> np.ndarray:
    """``expr`` at the points ``rows`` of ``group``, NaN where it cannot be evaluated: one
    NumPy evaluation, or where that signals a floating-point error (a count's division by
    zero at a point its conditions admit), ``math`` at each point, as the pointwise
    screen does (:func:`_evaluator`: None there, so the point is skipped)."""
    try:
        return _column(expr, group, rows)
    except (ArithmeticError, KeyError, TypeError, ValueError):
        at = _evaluator(expr)
        found = (at({k: _float(v) for k, v in group.points[i].items()}) for i in rows.tolist())
        return np.array([np.nan if v is None else v for v in found], dtype=float)


def _upper_gap(mine: np.ndarray, count: np.ndarray) -> np.ndarray:
    """count / mine where mine > 0, else infinity (an upper side at or below zero)."""
    gap = np.full(len(mine), np.inf)
    positive = mine > 0
    gap[positive] = count[positive] / mine[positive]
    return gap


def _single(group: _Group) -> Iterator[tuple[int, dict, str | None, object]]:
    """The points of ``group`` one by one: (index in the grid, point, spec, guarantee)."""
    return zip(group.order, group.points, group.specs, group.guarantees, strict=True)


def _screened_pointwise(points, needed, side, approximate, scope, value, record) -> _Screened:
    """The float screen point by point, with ``math``: the reference of :func:`_screened`
    (a point where an evaluation raises is kept by a relation's screen and skipped by a
    value's)."""
    out = _Screened()
    in_scope, applies = _screen(scope), _screen(record.conditions)
    mine_at, count_at = _evaluator(value), _evaluator(record.explicit)
    for index, point, spec, guarantee in points:
        if not needed <= set(point):
            continue
        values = {k: _as_float(v) for k, v in point.items()}
        if not (in_scope(values) and applies(values)):
            continue
        mine, count = mine_at(values), count_at(values)
        if mine is None or count is None or not (math.isfinite(mine) and count > 0):
            continue
        gap = mine / count if side == "lower" else count / mine if mine > 0 else math.inf
        if approximate and side == "lower" and guarantee is None:
            if gap > 1 + 1e-9:  # below the claim, but no error bound within epsilon
                out.missed.append((index, gap, point, spec, guarantee))
            continue
        out.compared += 1
        if gap > 1 + 1e-9:
            out.candidates.append((index, gap, point, spec, guarantee))
    return out.sorted()


def _judge(claim: Claim, side: str, value: sp.Expr) -> tuple[Evidence | None, int, str | None]:
    """The first confirmed refutation of ``side`` by a closed-form count, the number of
    grid points compared, and (approximate lower sides) why the first run below the claim
    that misses its accuracy does not refute it."""
    bound = claim.bound
    pass_ = bound.pass_.value
    sparse = bound.regime is Regime.SPARSE
    approximate = bound.regime is Regime.APPROXIMATE
    scope = sp.And(claim.scope, *claim.domain())
    wanted = set(bound.parameters) | {str(s) for s in claim.scope.free_symbols}
    epsilons = "epsilon" in wanted
    compared = 0
    candidates, missed = [], []
    for name, record in _records(claim, side):
        needed = frozenset(wanted | set(record.parameters))
        if approximate:
            grid = _approximate_grid(epsilons, side == "lower", frozenset(wanted))
        else:
            grid = _grid(name, pass_, sparse)
        found = _screened(grid, needed, side, approximate, scope, value, record)
        compared += found.compared
        candidates.extend((gap, name, record, point, spec, guarantee)
                          for _, gap, point, spec, guarantee in found.candidates)  # fmt: skip
        missed.extend((gap, name, record, point) for _, gap, point, _, _ in found.missed)
    # the smallest instances first: the easiest to re-run, the machine confirms them
    candidates.sort(key=lambda c: (c[3]["n"] * c[3]["d"], c[3]["M"], -c[0]))
    for _, name, record, point, spec, guarantee in candidates[:CANDIDATES]:
        used = {k: point[k] for k in record.parameters}
        if not (claim.holds_at(point) and record.applies(**used)):
            continue
        mine, count = _exact(value, point), _exact(record.explicit, used)
        if mine is None or count is None or not count.is_integer:
            continue
        if not ((mine > count) if side == "lower" else (mine < count)):
            continue
        accurate = approximate and side == "lower"
        if accurate and not _guaranteed(point, guarantee):
            continue
        machine = _machine(name, pass_, {**point, "guarantee": guarantee}, spec, int(count),
                           accurate)  # fmt: skip
        if machine is None:
            continue
        shown = {k: str(v) for k, v in point.items()}
        where = ", ".join(f"{k}={v}" for k, v in point.items())
        mask = (
            ""
            if spec is None
            else f" under the mask {spec}"
            + (" covered by its blocks" if ALGORITHMS[name].mask_family is None else "")
        )
        relation = ">" if side == "lower" else "<"
        bounded = ", and the polynomial method's error bound" if accurate else ""
        rests = machine or (
            "too large to simulate here: the derived count, which attnio verify checks "
            f"against the machine{bounded}"
        )
        accuracy = f" ({accuracy_text({**point, 'guarantee': guarantee})})" if accurate else ""
        text = (
            f"{side} side {mine} {relation} {record.name} = {count} at {where}: {name} "
            f"{pass_}{mask}{accuracy} moves {count} words ({record.status.value}, "
            f"{record.source}; {rests})"
        )
        return (
            Evidence(
                "closed-form",
                "refuted",
                text,
                against=record.name,
                point=shown,
                claim_value=str(mine),
                other_value=str(count),
                replay=_commands(name, pass_, record, point, spec, bool(machine))
                + ("; " + reproduce_command(name, pass_, point) if "re-run" in machine else ""),
            ),
            compared,
            None,
        )
    return None, compared, _missed(claim, value, missed)


def _guaranteed(point: dict, guarantee: sp.Rational | None) -> bool:
    """Whether the low-rank run at ``point`` is within the point's epsilon on every input
    with entries in [-B, B]: its guarantee, recomputed, times max(1, B) at most epsilon
    (:func:`attnio.claims.accuracy.least_epsilon`)."""
    again = guaranteed_error(int(point["d"]), int(point["g"]), point["B"])
    return (
        guarantee is not None
        and again == guarantee
        and least_epsilon(again, point["B"]) <= point["epsilon"]
    )


def _missed(claim: Claim, value: sp.Expr, missed: list) -> str | None:
    """Why the smallest run below the claim's lower side that misses its accuracy does
    not refute it, re-evaluated exactly; None if there is none."""
    missed.sort(key=lambda c: (c[3]["n"] * c[3]["d"], c[3]["M"], -c[0]))
    seen, distinct = set(), []  # one memory per run: the two-score error does not depend on M
    for item in missed:
        key = tuple(item[3][k] for k in ("n", "d", "g", "B", "epsilon"))
        if key not in seen:
            seen.add(key)
            distinct.append(item)
    for _, name, record, point in distinct[:CANDIDATES]:
        used = {k: point[k] for k in record.parameters}
        if not (claim.holds_at(point) and record.applies(**used)):
            continue
        mine, count = _exact(value, point), _exact(record.explicit, used)
        if mine is None or count is None or not mine > count:
            continue
        why = miss(int(point["d"]), int(point["g"]), point["B"], point["epsilon"],
                   int(point["n"]))  # fmt: skip
        if why is None:
            continue
        where = ", ".join(f"{k}={v}" for k, v in point.items())
        return (
            f"not a refutation: {name} forward moves {count} < {mine} words at {where}, but "
            f"its {why}"
        )
    return None


def closed_form_evidence(claim: Claim) -> list[Evidence]:
    """Compare the claim's sides with the derived exact counts on the grid (module doc)."""
    bound = claim.bound
    if bound.explicit is None:
        return []
    start = time.perf_counter()
    notes, found, compared = [], [], 0
    sides = []
    approximate = bound.regime is Regime.APPROXIMATE
    fixed = {"Z_in", "Z_QK"} if approximate else {"epsilon", "B", "r", "g", "Z_in", "Z_QK"}
    if claim.lower_side is not None:
        if approximate and bound.pass_.value not in ACCURATE_PASSES:
            notes.append(
                f"no approximate {bound.pass_.value} count has an error bound against exact "
                "attention"
            )
        elif {"s", "s_c"} & set(bound.parameters):
            notes.append("a lower bound in s or s_c depends on a block shape")
        elif fixed & set(bound.parameters):
            notes.append("the lower side uses parameters no count fixes")
        else:
            sides.append(("lower", claim.lower_side))
    if claim.upper_side is not None and bound.kind is Kind.UPPER and bound.algorithm:
        sides.append(("upper", claim.upper_side))
    for side, value in sides:
        item, count, why = _judge(claim, side, value)
        compared += count
        if item is not None:
            found.append(item)
        elif why is not None:
            notes.append(why)
    seconds = time.perf_counter() - start
    if found:
        return [dataclasses.replace(item, seconds=seconds) for item in found]
    agreed = (
        f"{compared} derived exact counts at sizes up to n = {SIZES_N[-1]} agree with the claim"
    )
    nothing = "no derived count applies inside the claim's scope"
    return sampled_evidence(
        "closed-form", compared, agreed, "derived exact counts", notes, nothing, seconds
    )


__all__ = [
    "APPROXIMATE_D",
    "APPROXIMATE_MEMORIES",
    "CANDIDATES",
    "MACHINE_TRANSFERS",
    "NUMERIC_MAX_N",
    "PATTERNS",
    "PATTERN_MAX_N",
    "SIZES_D",
    "SIZES_N",
    "approximate_memories",
    "closed_form_evidence",
    "memories",
]
