"""Self-consistency checks of the bound catalog, run by ``attnio verify``.

Each check takes no argument and returns ``(passed, detail)``, ``passed`` being
``True``, ``False``, or ``None`` for a check that has nothing to check yet (shown
as skipped, never counted as passed); its docstring's first line is its title. ``CHECKS`` lists them in the order
``attnio verify`` runs them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import sympy as sp

from .catalog import FULL_DENSITY, catalog, cells, get
from .checks import Check
from .crossover import crossover, min_branches
from .record import Bound, Cache, Kind, Regime, Status
from .symbols import M, feature_rank, n
from .terms import CACHE_BOUNDARY


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
            }


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
            if not (_applies(lower, point) and _applies(upper, point)):
                continue
            compared += 1
            low, up = _value(lower, "explicit", point), _value(upper, "explicit", point)
            if sp.N(low - up, 30) > 0:
                bad.append(f"{lower.name} = {low} > {upper.name} = {up} at {point}")
    if not uppers:
        return None, "skipped: no explicit upper bound in the catalog yet"
    if compared == 0:
        return False, "explicit bounds never apply together: the check would be vacuous"
    return (not bad), "; ".join(bad[:3]) or f"{compared} comparisons"


def _growth_points() -> list[tuple[dict[str, object], dict[str, object]]]:
    """Pairs (n = 2^20, n = 2^30) of the grid's points at full density, without repeats."""
    pairs, seen = [], set()
    for point in grid():
        near, far = dict(point, n=2**20), dict(point, n=2**30)
        for p in (near, far):
            p["Z"] = p["Z_QK"] = p["n"] ** 2
            p["s"] = p["s_c"] = 1
            p["Z_in"] = p["n"] * p["d"]
        key = tuple(sorted((k, str(v)) for k, v in near.items()))
        if key not in seen:
            seen.add(key)
            pairs.append((near, far))
    return pairs


def check_asymptotic_growth() -> tuple[bool, str]:
    """No asymptotic lower bound outgrows an asymptotic upper bound of its cell as n grows."""
    with_shape = [b for b in catalog() if b.asymptotic is not None]
    lowers = [b for b in with_shape if b.kind in (Kind.LOWER, Kind.TIGHT)]
    uppers = [b for b in with_shape if b.kind in (Kind.UPPER, Kind.TIGHT)]
    points = _growth_points()
    values: dict[tuple[str, int], tuple[sp.Expr, sp.Expr] | None] = {}

    def at(bound: Bound, index: int) -> tuple[sp.Expr, sp.Expr] | None:
        """The bound's asymptotic value at the near and far point, or None where it does not apply."""
        key = (bound.name, index)
        if key not in values:
            near, far = points[index]
            applies = _applies(bound, near) and _applies(bound, far)
            values[key] = (
                (_value(bound, "asymptotic", near), _value(bound, "asymptotic", far))
                if applies
                else None
            )
        return values[key]

    compared, bad = 0, []
    for lower, upper in itertools.product(lowers, uppers):
        if lower is upper or not lower.comparable(upper):
            continue
        for index, (near, _) in enumerate(points):
            low, up = at(lower, index), at(upper, index)
            if low is None or up is None:
                continue
            compared += 1
            ratio_near, ratio_far = sp.N(low[0] / up[0]), sp.N(low[1] / up[1])
            if ratio_far > 4 * ratio_near and ratio_far > 1:
                bad.append(
                    f"{lower.name}/{upper.name} grows from {ratio_near:.3g} to "
                    f"{ratio_far:.3g} at {near}"
                )
                break
    if compared == 0:
        return False, "no comparable pair: the check would be vacuous"
    return (not bad), "; ".join(bad[:3]) or f"{compared} pairs x points compared"


CHECKS: tuple[Check, ...] = (
    check_cells_covered,
    check_crossovers,
    check_min_branches,
    check_sparse_reduces_to_dense,
    check_explicit_lower_below_upper,
    check_asymptotic_growth,
)
"""The catalog's checks, in the order ``attnio verify`` runs them."""

__all__ = ["CHECKS", "grid", "strip_mask_point"]
