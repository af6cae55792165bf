"""Self-consistency checks of the bound catalog, run by ``attnio verify``.

Each check takes no argument and returns ``(passed, detail)``, ``passed`` being
``True``, ``False``, or ``None`` for a check that has nothing to check yet (shown
as skipped, never counted as passed); its docstring's first line is its title. ``CHECKS`` lists them in the order
``attnio verify`` runs them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator

import sympy as sp

from . import symbols
from .catalog import CACHE_BOUNDARY, FULL_DENSITY, catalog, cells, get
from .checks import Check
from .crossover import crossover, min_branches
from .masks import FAMILIES
from .record import Bound, Cache, Kind, Regime, Status
from .symbols import M, feature_rank, n


def check_cells_covered() -> tuple[bool, str]:
    """Every regime x pass x cache cell has a lower and an upper record (or says why not)."""
    missing = []
    for regime, pass_, cache in cells():
        here = catalog(regime=regime, pass_=pass_, cache=cache)
        for side, kinds in (
            ("lower", (Kind.LOWER, Kind.TIGHT)),
            ("upper", (Kind.UPPER, Kind.TIGHT)),
        ):
            if not any(b.kind in kinds for b in here):
                missing.append(f"{regime}/{pass_}/{cache}: no {side} record")
    total = 2 * len(list(cells()))
    if missing:
        return False, "; ".join(missing)
    return True, f"{total} cell sides covered"


def check_crossovers() -> tuple[bool, str]:
    """Every min-form bound's branches meet where the cache regimes meet (M = d^2), at full density."""
    found, bad = [], []
    for bound in catalog():
        point = crossover(bound)
        if point is None:
            continue
        found.append(f"{bound.name}: M={point}")
        if sp.simplify(point.subs(FULL_DENSITY) - CACHE_BOUNDARY) != 0:
            bad.append(
                f"{bound.name}: crossover {point} is not {CACHE_BOUNDARY} (the cache boundary) "
                "at full density"
            )
    if not found:
        return False, "no min-form bound found: the check would be vacuous"
    return (not bad), "; ".join(bad or found)


def shape_at(n_q: int, n_kv: int) -> dict[str, int]:
    """The shape symbols at a grid point: n_q x n_kv with 4 query heads sharing 2 K/V heads."""
    return {"n_q": n_q, "n_kv": n_kv, "h_q": 4, "h_kv": 2}


def _sample_points() -> Iterator[dict[str, int]]:
    for n_val, d_val in ((64, 8), (1024, 16), (4096, 64), (100, 10)):
        yield {"n": n_val, "d": d_val}


def check_min_branches() -> tuple[bool, str]:
    """Each tight min-form bound equals its small-cache lower record below the crossover and its large-cache one above."""
    checked, bad = 0, []
    for bound in catalog(kind="tight"):
        branches = min_branches(bound)
        if branches is None:
            continue
        inner = next(iter(bound.asymptotic.atoms(sp.Min)))
        point = crossover(bound)
        sides = {}
        for cache, factor in ((Cache.SMALL, sp.Rational(1, 4)), (Cache.LARGE, 4)):
            stated = [
                b
                for b in catalog(regime=bound.regime, pass_=bound.pass_, kind="lower")
                if b.cache is cache and b.status in (Status.STATED, Status.STATED_SECONDARY)
            ]
            if not stated:
                bad.append(f"{bound.name}: no stated {cache}-cache lower record to match")
                continue
            sides[cache] = stated[0]
            for params in _sample_points():
                values = {sp.Symbol(k, integer=True, positive=True): v for k, v in params.items()}
                at = point.subs(values) * factor
                values[M] = at
                picked = inner.subs(values)
                expected = stated[0].asymptotic.subs(values)
                checked += 1
                if sp.simplify(picked - expected) != 0:
                    bad.append(
                        f"{bound.name} at {params}, M={at}: min gives {picked}, "
                        f"{stated[0].name} gives {expected}"
                    )
        if len(sides) == 2 and sides[Cache.SMALL].asymptotic == sides[Cache.LARGE].asymptotic:
            bad.append(f"{bound.name}: both sides match the same expression")
    if checked == 0:
        return False, "no tight min-form bound checked: the check would be vacuous"
    return (not bad), "; ".join(bad) or f"{checked} side evaluations agree"


def check_sparse_reduces_to_dense() -> tuple[bool, str]:
    """Every sparse record with a dense counterpart equals it at full density (Theta-equal for upper bounds)."""
    done, bad = [], []
    for bound in catalog(regime=Regime.SPARSE):
        if bound.reduces_to is None:
            continue
        dense = get(bound.reduces_to)
        for which in ("explicit", "asymptotic"):
            mine, theirs = getattr(bound, which), getattr(dense, which)
            if mine is None or theirs is None:
                continue
            full = mine.subs(FULL_DENSITY)
            if sp.simplify(full - theirs) == 0:
                done.append(f"{bound.name} {which} = {dense.name}")
            elif bound.kind is Kind.UPPER and sp.limit(full / theirs, n, sp.oo) == 1:
                done.append(f"{bound.name} {which} ~ {dense.name} as n -> oo")
            else:
                bad.append(
                    f"{bound.name} {which} at full density is {full}, {dense.name} is {theirs}"
                )
    if not done and not bad:
        return False, "no sparse record names a dense counterpart: the check would be vacuous"
    return (not bad), "; ".join(bad or done)


def strip_mask_point(n_val: int, m_val: int, fraction: sp.Rational) -> dict[str, object]:
    """s, s_c and Z of a strip mask on sparse square tiling's tiles at (n, M).

    Every row band allows the first k = max(1, round(fraction * T_n)) column bands, T_n
    bands of side T = floor(sqrt(M / 4)) (1 when M < 4), the last one partial. Heights
    sum to k n, widths to T_n w and Z = n w with w = min(k T, n) keys, so s = k / T_n
    and s_c = w / n differ when T does not divide n: the densities of an actual mask,
    which satisfy every relation the sparse tiling records assume.

    Examples
    --------
    >>> strip_mask_point(10, 36, sp.Rational(1, 2))  # T = 3, bands 3, 3, 3, 1: k = 2
    {'s': 1/2, 's_c': 3/5, 'Z': 60}
    """
    tile = max(1, math.isqrt(m_val // 4))
    bands = -(-n_val // tile)
    k = max(1, round(fraction * bands))
    keys = min(k * tile, n_val)
    return {"s": sp.Rational(k, bands), "s_c": sp.Rational(keys, n_val), "Z": n_val * keys}


def grid() -> Iterator[dict[str, object]]:
    """Parameter points for the numeric checks: d <= n, every cache regime, several densities.

    The mask symbols s, s_c and Z are those of :func:`strip_mask_point` at each (n, M).
    """
    for n_val, d_val in ((16, 4), (64, 8), (256, 16), (1024, 32), (4096, 64)):
        memories = sorted(
            {
                d_val,
                d_val**2 // 4,
                d_val**2 - 1,
                d_val**2,
                4 * d_val**2,
                n_val * d_val // 2,
                n_val * d_val,
            }
        )
        for m_val, (z_frac, g_val) in itertools.product(
            memories, ((sp.Rational(1, 16), 1), (sp.Rational(1, 2), 2), (1, 3))
        ):
            yield {
                "n": n_val,
                "d": d_val,
                "M": m_val,
                **strip_mask_point(n_val, m_val, z_frac),
                "Z_in": n_val * d_val,
                "Z_QK": max(n_val, int(z_frac * n_val**2)),
                "g": g_val,
                "r": int(feature_rank(d_val, g_val)),
                "B": 1,
                "epsilon": sp.Rational(1, 100),
                "w": n_val // 8,
                **shape_at(max(1, n_val // 8), n_val),
            }


def masked_point(bound: Bound, point: dict[str, object]) -> dict[str, object]:
    """``point`` with the Z of ``bound``'s mask family at its n and w (records of one
    family, :data:`attnio.bounds.masks.FAMILIES`), so that a lower bound in Z is compared
    with the family's count on the family's own mask; else ``point`` itself.

    Examples
    --------
    >>> from attnio.bounds import get
    >>> masked_point(get("causal-row-streaming-forward-count"), {"n": 4, "Z": 16})["Z"]
    10
    """
    family = FAMILIES.get(bound.mask) if bound.mask is not None else None
    if family is None or family.pairs is None:
        return point
    values = {symbols.n: point["n"], symbols.w: point.get("w", 1)}
    return {**point, "Z": int(family.pairs.subs(values))}


def _applies(bound: Bound, point: dict[str, object]) -> bool:
    return bound.applies(**{k: point[k] for k in bound.parameters if k in point})


def _value(bound: Bound, which: str, point: dict[str, object]) -> sp.Expr:
    return bound.evaluate(which=which, check=False, **{k: point[k] for k in bound.parameters})


def check_explicit_lower_below_upper() -> tuple[bool | None, str]:
    """On the grid, every explicit lower bound is <= every explicit upper bound of its cell where both apply."""
    lowers = [b for b in catalog(kind="lower") if b.explicit is not None]
    uppers = [b for b in catalog(kind="upper") if b.explicit is not None]
    compared, bad = 0, []
    for point in grid():
        for lower, upper in itertools.product(lowers, uppers):
            if not lower.comparable(upper):
                continue
            here = masked_point(upper, point)
            if not (_applies(lower, here) and _applies(upper, here)):
                continue
            compared += 1
            low, up = _value(lower, "explicit", here), _value(upper, "explicit", here)
            if sp.N(low - up, 30) > 0:
                bad.append(f"{lower.name} = {low} > {upper.name} = {up} at {here}")
    if not uppers:
        return None, "skipped: no explicit upper bound in the catalog yet"
    if compared == 0:
        return False, "explicit bounds never apply together: the check would be vacuous"
    return (not bad), "; ".join(bad[:3]) or f"{compared} comparisons"


_GROWTH_MOVES: tuple[tuple[str, int | sp.Rational], ...] = (
    ("n", 2**10),
    ("d", 2**4),
    ("M", 2**6),
    ("M", sp.Rational(1, 2**6)),
)
"""The moves of the growth check: n up, d up, M up and M down, each by a large factor."""


def _full_density(point: dict[str, object]) -> dict[str, object]:
    point = dict(point)
    point["Z"] = point["Z_QK"] = point["n"] ** 2
    point["s"] = point["s_c"] = 1
    point["Z_in"] = point["n"] * point["d"]
    point["w"] = min(point["n"], 1024)  # the window and band records' width
    point.update(shape_at(point["n"], point["n"]))  # the shape records move with n
    return point


def _growth_points() -> list[tuple[str, dict[str, object], dict[str, object]]]:
    """(move, near, far) point pairs at full density, near points on both sides of M = d^2.

    Near points: n = 2^20, d in {2^4, 2^8, 2^12}, M from d to n d/2 including just
    below, at and just above the cache boundary M = d^2; each moved along n, d and M
    (up and down). A move that crosses a regime boundary is kept: every record that
    applies at both ends is compared there.
    """
    pairs = []
    for d_val in (2**4, 2**8, 2**12):
        n_val = 2**20
        memories = sorted(
            {d_val, d_val**2 // 16, d_val**2 // 2, d_val**2 - 1, d_val**2, 2 * d_val**2,
             16 * d_val**2, n_val * d_val // 2}
        )  # fmt: skip
        for m_val in memories:
            near = _full_density(
                {"n": n_val, "d": d_val, "M": m_val, "g": 2, "B": 1, "epsilon": sp.Rational(1, 100)}
            )
            near["r"] = int(feature_rank(d_val, 2))
            for var, factor in _GROWTH_MOVES:
                far = dict(near, **{var: near[var] * factor})
                if not far[var].is_integer if isinstance(far[var], sp.Basic) else False:
                    continue
                far[var] = int(far[var])
                if far[var] < 1:
                    continue
                far = _full_density(far)
                far["r"] = int(feature_rank(far["d"], 2))
                pairs.append((var, near, far))
    return pairs


_COMPILED: dict[tuple[str, sp.Expr, sp.Basic], tuple[tuple[str, ...], Callable, Callable]] = {}


def _compiled(bound: Bound, expr: sp.Basic) -> tuple[tuple[str, ...], Callable, Callable]:
    """``expr`` and ``bound``'s conditions compiled with ``sympy.lambdify``, once per expression."""
    k = (bound.name, expr, bound.conditions)
    if k not in _COMPILED:
        names = tuple(sorted(bound.parameters))
        syms = [sp.Symbol(name) for name in names]
        plain = {sym: sp.Symbol(str(sym)) for sym in expr.free_symbols}
        plain.update({sym: sp.Symbol(str(sym)) for sym in bound.conditions.free_symbols})
        value = sp.lambdify(syms, expr.subs(plain), modules="math")
        held = sp.lambdify(syms, bound.conditions.subs(plain), modules="math")
        _COMPILED[k] = (names, value, held)
    return _COMPILED[k]


def _fast(bound: Bound, point: dict[str, object], which: str = "asymptotic") -> float | None:
    """The asymptotic (or explicit) value in floating point (None where the conditions fail).

    The record's expressions are compiled once per expression (:func:`_compiled`), so a
    changed record is compiled afresh.
    """
    names, value, held = _compiled(bound, getattr(bound, which))
    args = [float(point[name]) for name in names]
    if not held(*args):
        return None
    return float(value(*args))


def _undefined(bound: Bound, which: str, point: dict[str, object]) -> str | None:
    """Why ``bound``'s ``which`` expression is undefined at ``point`` inside its conditions.

    Evaluated in floating point first; a failure there (a floor that rounds to zero) is
    re-evaluated exactly with sympy before it is reported.
    """
    try:
        value = _fast(bound, point, which)
        if value is None or math.isfinite(value):
            return None
    except (ZeroDivisionError, ValueError, OverflowError, TypeError):
        if _fast_conditions(bound, point) is False:
            return None
    try:
        if not _applies(bound, point):
            return None
    except (TypeError, ValueError):
        return None  # the conditions themselves are undecided here: skipped
    try:
        exact = _value(bound, which, point)
    except (TypeError, ValueError, ZeroDivisionError) as error:
        return f"{bound.name}: {which} undefined at {_show(point)} ({error})"
    if exact.is_finite:
        return None
    return f"{bound.name}: {which} = {exact} at {_show(point)}, inside its conditions"


def _fast_conditions(bound: Bound, point: dict[str, object]) -> bool | None:
    """Whether ``bound``'s conditions hold at ``point``; None where they cannot be evaluated."""
    names, _, held = _compiled(bound, sp.Integer(0))
    try:
        return bool(held(*[float(point[name]) for name in names]))
    except (ZeroDivisionError, ValueError, OverflowError, TypeError):
        return None


def check_asymptotic_growth() -> tuple[bool, str]:
    """No asymptotic lower bound outgrows an asymptotic upper bound of its cell along n, d or M.

    Each comparable pair (a lower or tight record, an upper or tight record) is evaluated
    at both ends of every move of :func:`_growth_points` where both apply at both ends; a
    ratio lower / upper that grows more than 4x to above 1 fails: Omega(f) <= O(g)
    cannot hold with f / g unbounded. Moves along d and M cross the cache boundary
    M = d^2, so records of both regimes meet there.
    """
    with_shape = [b for b in catalog() if b.asymptotic is not None]
    lowers = [b for b in with_shape if b.kind in (Kind.LOWER, Kind.TIGHT)]
    uppers = [b for b in with_shape if b.kind in (Kind.UPPER, Kind.TIGHT)]
    moves = _growth_points()
    values: dict[tuple[str, int], float | None] = {}

    def at(bound: Bound, point: dict[str, object]) -> float | None:
        """The bound's asymptotic value at ``point``, or None where it does not apply."""
        k = (bound.name, id(point))  # the points of ``moves`` live until the check ends
        if k not in values:
            values[k] = _fast(bound, point)
        return values[k]

    compared, bad, directions = 0, [], set()
    for lower, upper in itertools.product(lowers, uppers):
        if lower is upper or not lower.comparable(upper):
            continue
        for var, near, far in moves:
            values_near = (at(lower, near), at(upper, near))
            values_far = (at(lower, far), at(upper, far))
            if None in values_near or None in values_far:
                continue
            if values_near[1] <= 0 or values_far[1] <= 0:
                continue
            compared += 1
            directions.add(var)
            ratio_near = values_near[0] / values_near[1]
            ratio_far = values_far[0] / values_far[1]
            if ratio_far > 4 * ratio_near and ratio_far > 1:
                bad.append(
                    f"{lower.name}/{upper.name} grows from {float(ratio_near):.3g} to "
                    f"{float(ratio_far):.3g} moving {var} from {near[var]} to {far[var]} "
                    f"(n={near['n']}, d={near['d']}, M={near['M']})"
                )
                break
    if compared == 0:
        return False, "no comparable pair: the check would be vacuous"
    return (not bad), "; ".join(bad[:3]) or (
        f"{compared} pairs x moves compared along {', '.join(sorted(directions))}"
    )


def check_upper_records_as_tight_as_counts() -> tuple[bool, str]:
    """No asymptotic upper record of an algorithm outgrows that algorithm's exact count.

    O(f) for an algorithm whose exact count is c must not be looser than c by a growing
    factor: along every move of n and d of :func:`_growth_points` where both records
    apply at both ends, f / c may not grow more than 4x (a count's own asymptotic
    included, which states the count's order). An exponent raised in f (d^2 for d) is a
    weaker, true claim that the other checks cannot see; this one does. The count's
    conditions bound where the comparison is made: outside them the algorithm does not
    run. Moves of M are left out: there the counts' block floors swing f / c by bounded
    factors above 4 (the low-rank count just above its least M is about 13 f, far above
    it about f), and the ``order`` obligations bound c <= C f with a proved C.
    """
    with_algorithm = [b for b in catalog(kind="upper") if b.algorithm is not None]
    counts = [b for b in with_algorithm if b.explicit is not None]
    uppers = [b for b in with_algorithm if b.asymptotic is not None]
    moves = _growth_points()
    values: dict[tuple[str, str, int], float | None] = {}

    compared, bad = 0, []

    def at(bound: Bound, which: str, point: dict[str, object]) -> float | None:
        k = (bound.name, which, id(point))  # the points of ``moves`` live until the check ends
        if k not in values:
            try:
                values[k] = _fast(bound, point, which)
            except (ZeroDivisionError, ValueError, OverflowError):
                values[k] = None  # undefined where its conditions say it applies
                bad.append(
                    f"{bound.name}: {which} undefined at {_show(point)}, inside its conditions"
                )
        return values[k]

    for upper, count in itertools.product(uppers, counts):
        if upper.algorithm != count.algorithm or upper.pass_ is not count.pass_:
            continue
        if not upper.comparable(count):
            continue
        for var, near, far in moves:
            if var == "M":
                continue
            ends = [
                (at(upper, "asymptotic", point), at(count, "explicit", point))
                for point in (near, far)
            ]
            if any(None in pair or pair[1] <= 0 for pair in ends):
                continue
            compared += 1
            (f_near, c_near), (f_far, c_far) = ends
            if f_far / c_far > 4 * (f_near / c_near):
                bad.append(
                    f"O({upper.asymptotic}) of {upper.name} outgrows {count.name} by "
                    f"{(f_far / c_far) / (f_near / c_near):.3g}x moving {var} from {near[var]} "
                    f"to {far[var]} (n={near['n']}, d={near['d']}, M={near['M']})"
                )
                break
    if compared == 0:
        return False, "no upper record met its algorithm's count: the check would be vacuous"
    return (not bad), "; ".join(bad[:3]) or f"{compared} record x count x move comparisons"


def check_conditions_within_cache() -> tuple[bool, str]:
    """Every record of the small (large) cache regime applies only where M < d^2 (M >= d^2).

    On the grid of :func:`grid`, a record that applies at a point outside its cache regime
    fails: its conditions claim more than its cell (an open small-cache record whose
    conditions were dropped would declare the large-cache cell open too). Exact counts of
    algorithms are exempt: they hold wherever their algorithm runs, and their cache names
    the regime the algorithm is designed for.
    """
    compared, bad = 0, []
    for bound in catalog():
        if bound.cache is Cache.ANY or (bound.algorithm is not None and bound.explicit is not None):
            continue  # an exact count holds wherever its algorithm runs; its cache is its design
        for point in grid():
            if not _applies(bound, point):
                continue
            compared += 1
            small = point["M"] < point["d"] ** 2
            if small != (bound.cache is Cache.SMALL):
                bad.append(f"{bound.name} ({bound.cache} cache) applies at {_show(point)}")
                break
    if compared == 0:
        return False, "no record of a cache regime applies on the grid: the check would be vacuous"
    return (not bad), "; ".join(bad[:3]) or f"{compared} record x point pairs inside their cache"


def _small_memory_points() -> Iterator[dict[str, object]]:
    """The points of :func:`grid` and, at each of its (n, d), M = 1, 2, 3 (below every block)."""
    seen = set()
    for point in grid():
        yield point
        key = (point["n"], point["d"], point["Z_QK"])
        if key in seen:
            continue
        seen.add(key)
        for m_val in (1, 2, 3):
            fraction = sp.Rational(point["Z_QK"], point["n"] ** 2)
            yield {**point, "M": m_val, **strip_mask_point(point["n"], m_val, fraction)}


def check_expressions_defined() -> tuple[bool, str]:
    """Every record's expressions are finite wherever its conditions hold, down to M = 1.

    An exact count divides by its number of blocks (``floor(M / (5d + 4))``,
    ``floor(sqrt(M) / 2)``); its conditions must exclude the memories where that is zero,
    as they exclude the memories where its algorithm cannot run. A point where a record's
    conditions themselves cannot be evaluated (they divide by zero there too, before the
    conjunct that excludes it) is skipped for that record.
    """
    compared, bad = 0, []
    for bound in catalog():
        forms = [which for which in ("explicit", "asymptotic") if getattr(bound, which) is not None]
        for point in _small_memory_points() if forms else ():
            problem = next(filter(None, (_undefined(bound, which, point) for which in forms)), None)
            compared += 1
            if problem:
                bad.append(problem)
                break
    if compared == 0:
        return False, "no expression evaluated: the check would be vacuous"
    detail = f"{compared} record x point pairs: finite wherever the conditions hold"
    return (not bad), "; ".join(bad[:3]) or detail


def _show(point: dict[str, object]) -> str:
    return ", ".join(f"{k}={point[k]}" for k in ("n", "d", "M"))


CHECKS: tuple[Check, ...] = (
    check_cells_covered,
    check_expressions_defined,
    check_conditions_within_cache,
    check_crossovers,
    check_min_branches,
    check_sparse_reduces_to_dense,
    check_explicit_lower_below_upper,
    check_asymptotic_growth,
    check_upper_records_as_tight_as_counts,
)
"""The catalog's checks, in the order ``attnio verify`` runs them."""

__all__ = ["CHECKS", "grid", "strip_mask_point"]
