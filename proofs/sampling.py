"""Numeric search for the least constant of a claim ``lhs <= C * R``, on a grid of points.

Sampling never proves anything: it finds the largest ratio ``lhs / R`` on a
grid of integer points where the assumptions hold (in floating point), climbs from the
largest ones to better integer points nearby (a deterministic local search), and
re-evaluates those points exactly with sympy. The exact ratio ``rho`` then
*refutes* every integer ``C < rho`` with a confirmed point, which spares the
constant search the z3 calls below ``rho`` and gives the report its lower end.
"""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp

from .obligation import Obligation

_SMALL = (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 24, 32, 48, 64, 100, 128, 256, 512, 1024)
_LARGE = (*_SMALL, 2048, 4096, 2**14, 2**16, 2**20)
_MEMORY_EXTRA = (*range(10, 72), 80, 96, 97, 144, 200, 300, 1000, 4000, 2**18, 2**22)
_MOVABLE = ("n", "d", "M")
"""Integer symbols the local search moves (s and s_c keep their grid values)."""
_STARTS = 8
"""Grid points the local search starts from (the largest ratios)."""
_MOVES = 300
"""Moves per local search, at most."""
_EXACT = 3
"""Candidate points evaluated exactly (the largest float ratios whose assumptions hold)."""
_CEILING = 2.0**40
"""No coordinate is moved above this (floats stay exact integers far beyond it)."""
_MEMORY_IN_D2 = (0.001, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99, 1, 1.1, 1.5, 2, 4,
                 16, 64, 256, 1024)  # fmt: skip
"""M as a multiple of d^2 in the scaled sample (with d^2 - 1 beside them)."""
_ROWS_IN_D = (1, 2, 3, 4, 6, 8, 16, 32, 64, 1024)
"""n as a multiple of d in the scaled sample."""
_GRIDS = {
    "n": _LARGE,
    "d": _SMALL,
    "M": tuple(sorted(set(_LARGE + _MEMORY_EXTRA))),
    "s": (sp.Rational(1, 4), 1),
    "s_c": (sp.Rational(1, 4), 1),
}


def split_constant(obligation: Obligation) -> tuple[sp.Expr, sp.Expr] | None:
    """``(lhs, R)`` for a claim ``lhs <= C * R`` with C free of lhs and R, else None."""
    claim, constant = obligation.claim, obligation.constant
    if constant is None or not isinstance(claim, sp.LessThan):
        return None
    ratio = sp.simplify(claim.rhs / constant)
    if constant in ratio.free_symbols or constant in claim.lhs.free_symbols:
        return None
    return claim.lhs, ratio


def largest_ratio(obligation: Obligation) -> tuple[sp.Expr, dict[str, sp.Expr]] | None:
    """The exact largest ``lhs / R`` found, with its point, or None.

    The grid (and, with d among the symbols, :func:`_scaled`'s second grid) is sampled in
    floating point, :func:`_climb` starts from its :data:`_STARTS` largest ratios, and the
    :data:`_EXACT` best candidates whose assumptions hold exactly are evaluated exactly.
    Only symbols with a grid (n, d, M, s, s_c) may occur; None when another does,
    when the claim is not of the form ``lhs <= C * R`` or no grid point applies.
    """
    parts = split_constant(obligation)
    if parts is None:
        return None
    lhs, ratio_rhs = parts
    symbols = sorted(
        set().union(
            lhs.free_symbols,
            ratio_rhs.free_symbols,
            *(a.free_symbols for a in obligation.assumptions),
        ),
        key=lambda s: s.name,
    )
    if any(sym.name not in _GRIDS for sym in symbols):
        return None
    ratio_of = _ratio_function(symbols, obligation.assumptions, lhs, ratio_rhs)
    grid = [np.array([float(v) for v in _GRIDS[sym.name]]) for sym in symbols]
    mesh = np.stack([axis.ravel() for axis in np.meshgrid(*grid, indexing="ij")])
    names = [sym.name for sym in symbols]
    if "d" in names:
        mesh = np.concatenate([mesh, _scaled(grid, names)], axis=1)
    ratios = ratio_of(mesh)
    if not np.isfinite(ratios).any():
        return None
    order = [i for i in np.argsort(ratios)[::-1][:_STARTS] if np.isfinite(ratios[i])]
    movable = [i for i, sym in enumerate(symbols) if sym.name in _MOVABLE]
    starts = [mesh[:, i] for i in order]
    candidates = [_climb(ratio_of, start, movable) for start in starts] + starts
    # Exact evaluation is slow (sympy's Max of algebraic numbers): rank by the float
    # ratio and evaluate the best few exactly.
    ranked = np.argsort(-ratio_of(np.array(candidates).T), kind="stable")
    best, seen, valid = None, set(), 0
    for index in ranked:
        candidate = candidates[index]
        if tuple(candidate) in seen or valid == _EXACT:
            continue
        seen.add(tuple(candidate))
        point = {sym: _exact(sym, candidate[i]) for i, sym in enumerate(symbols)}
        if not all(a.subs(point) is sp.true for a in obligation.assumptions):
            continue
        bottom_exact = ratio_rhs.subs(point)
        if (bottom_exact > 0) is not sp.true:
            continue
        valid += 1
        value = lhs.subs(point) / bottom_exact  # exact: sp.nsimplify would guess a "simpler"
        # number near it (it turns 100573/14504 into a product of powers that differs
        # in the 17th digit)
        if best is None or (value > best[0]) is sp.true:
            best = (value, {sym.name: v for sym, v in point.items()})
    return best


def _scaled(grid: list[np.ndarray], names: list[str]) -> np.ndarray:
    """The grid's points again with M and n measured in d: M = f d^2 for f in
    :data:`_MEMORY_IN_D2` (rounded, and d^2 - 1), n = g d for g in :data:`_ROWS_IN_D`,
    so the corner M ~ d^2 and the first few blocks are sampled at every d."""
    axes = list(grid)
    at = {name: i for i, name in enumerate(names)}
    if "M" in at:
        axes[at["M"]] = np.arange(len(_MEMORY_IN_D2) + 1, dtype=float)
    if "n" in at:
        axes[at["n"]] = np.array(_ROWS_IN_D, dtype=float)
    points = np.stack([axis.ravel() for axis in np.meshgrid(*axes, indexing="ij")])
    degree = points[at["d"]]
    if "M" in at:
        factors = np.array([*_MEMORY_IN_D2, 0.0])
        index = points[at["M"]].astype(int)
        square = degree**2
        points[at["M"]] = np.where(
            index < len(_MEMORY_IN_D2), np.ceil(square * factors[index]), square - 1
        )
    if "n" in at:
        points[at["n"]] = points[at["n"]] * degree
    return points


def _ratio_function(symbols: list[sp.Symbol], assumptions, lhs: sp.Expr, rhs: sp.Expr):
    """points (one column per point) -> lhs / rhs in floating point, -inf where an
    assumption fails or a side is not finite or rhs <= 0."""
    keeps = [sp.lambdify(symbols, a, "numpy") for a in assumptions]
    top_of = sp.lambdify(symbols, lhs, "numpy")
    bottom_of = sp.lambdify(symbols, rhs, "numpy")

    def ratio_of(points: np.ndarray) -> np.ndarray:
        shape = points.shape[1:]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            keep = np.ones(shape, dtype=bool)
            for test in keeps:
                keep &= np.broadcast_to(np.asarray(test(*points), dtype=bool), shape)
            top = np.broadcast_to(np.asarray(top_of(*points), dtype=float), shape)
            bottom = np.broadcast_to(np.asarray(bottom_of(*points), dtype=float), shape)
            keep = keep & np.isfinite(top) & np.isfinite(bottom) & (bottom > 0)
            return np.where(keep, top / np.where(bottom > 0, bottom, 1), -np.inf)

    return ratio_of


def _climb(ratio_of, start: np.ndarray, movable: list[int]) -> np.ndarray:
    """Local search from a grid point: move to the best neighbour while the ratio grows.

    Neighbours change one integer coordinate (n, d or M) by +-2^j, or scale all of them
    together by 1 +- 2^-j (rounded): the ratio of a count with blocks floor(M / w) and
    ceil(n / b) jumps at points no fixed grid holds (n just above a multiple of the block
    size, M just below one of w). Deterministic; at most :data:`_MOVES` moves, coordinates
    kept in [1, :data:`_CEILING`].
    """
    here = start.astype(float).copy()
    value = ratio_of(here[:, None])[0]
    for _ in range(_MOVES):
        steps = []
        for i in movable:
            j = 1.0
            while j <= max(here[i], 1.0):
                for sign in (1.0, -1.0):
                    step = np.zeros_like(here)
                    step[i] = sign * j
                    steps.append(here + step)
                j *= 2
        for j in range(1, 8):
            for sign in (1.0, -1.0):
                moved = here.copy()
                moved[movable] = np.round(here[movable] * (1 + sign * 2.0**-j))
                steps.append(moved)
        options = np.array(steps).T
        inside = np.all((options[movable] >= 1) & (options[movable] <= _CEILING), axis=0)
        ratios = np.where(inside, ratio_of(options), -np.inf)
        best = int(np.argmax(ratios))
        if not ratios[best] > value * (1 + 1e-12):
            break
        here, value = options[:, best], ratios[best]
    return here


def _exact(sym: sp.Symbol, value: float) -> sp.Expr:
    for candidate in _GRIDS[sym.name]:
        if float(candidate) == value:
            return sp.sympify(candidate)
    return sp.Rational(value)


__all__ = ["largest_ratio", "split_constant"]
