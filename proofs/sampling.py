"""Numeric search for the least constant of a claim ``lhs <= C * R``, on a grid of points.

Sampling never proves anything: it finds the largest ratio ``lhs / R`` on a
grid of integer points where the assumptions hold (in floating point), and
re-evaluates that point exactly with sympy. The exact ratio ``rho`` then
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
    """The exact largest ``lhs / R`` found on the grid, with its point, or None.

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
    grid = [np.array([float(v) for v in _GRIDS[sym.name]]) for sym in symbols]
    mesh = [axis.ravel() for axis in np.meshgrid(*grid, indexing="ij")]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        keep = np.ones(mesh[0].shape, dtype=bool)
        for assumption in obligation.assumptions:
            keep &= np.asarray(sp.lambdify(symbols, assumption, "numpy")(*mesh), dtype=bool)
        top = np.asarray(sp.lambdify(symbols, lhs, "numpy")(*mesh), dtype=float)
        bottom = np.asarray(sp.lambdify(symbols, ratio_rhs, "numpy")(*mesh), dtype=float)
        keep &= np.isfinite(top) & np.isfinite(bottom) & (bottom > 0)
        if not keep.any():
            return None
        ratios = np.where(keep, top / np.where(bottom > 0, bottom, 1), -np.inf)
    order = np.argsort(ratios)[::-1][:5]
    best = None
    for index in order:
        if not np.isfinite(ratios[index]):
            break
        point = {sym: _exact(sym, mesh[i][index]) for i, sym in enumerate(symbols)}
        if not all(a.subs(point) is sp.true for a in obligation.assumptions):
            continue
        bottom_exact = ratio_rhs.subs(point)
        if (bottom_exact > 0) is not sp.true:
            continue
        value = sp.nsimplify(lhs.subs(point) / bottom_exact)
        if best is None or (value > best[0]) is sp.true:
            best = (value, {sym.name: v for sym, v in point.items()})
    return best


def _exact(sym: sp.Symbol, value: float) -> sp.Expr:
    for candidate in _GRIDS[sym.name]:
        if float(candidate) == value:
            return sp.sympify(candidate)
    return sp.Rational(value)


__all__ = ["largest_ratio", "split_constant"]
