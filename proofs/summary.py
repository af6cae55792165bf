"""The summary table: per cell and pass, the best derived lower bound against the best schedule.

The table a short paper section wants (``attnio table --summary``): one row per cell of
the catalog where records exist (dense forward and backward, small and large cache;
sparse; approximate), with

* the best ``derived`` explicit lower bound of the cell and its leading term;
* the best schedule, the algorithm with the least ratio of leading terms against it, and
  the leading term of its exact count;
* that ratio (:func:`attnio.proofs.tightness.leading_ratio`, the tightness table's);
* the least constant C z3 proved for ``count <= C * max(derived lower bounds)`` over the
  cell, with the largest C refuted at a sampled point (the recording of
  :mod:`attnio.proofs.constants`, read through :func:`attnio.proofs.tightness.rows`).

The dense rows are the tightness table's best row per cell; the sparse and approximate
rows are read from the catalog alone (no constant is searched there). Leading terms are
limits of the records' own expressions, taken in the order of the tightness table
(n -> oo, then d -> oo in the small cache, then M -> oo); nothing is retyped.

References
----------
proofs/derivations/lower-accumulators.md, proofs/derivations/lower-segments.md (the best
derived bounds of today), docs/findings.md (the tightness table).
"""

from __future__ import annotations

import sympy as sp

from attnio.bounds import Cache, Kind, Pass, Regime, Status, catalog, get
from attnio.bounds.render import SummaryRow
from attnio.bounds.symbols import M, d, n

from .tightness import limit_form, rows

_POWERS = tuple(sp.Rational(k, 2) for k in range(6, -7, -1))
"""Exponents tried for a symbol's dominant power, largest first (3 down to -3, in halves)."""


def _dominant(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``c * var**p`` for the largest ``p`` of :data:`_POWERS` whose limit ``c`` of
    ``expr / var**p`` is finite and non-zero (``expr`` itself when none is)."""
    for power in _POWERS:
        coefficient = sp.limit(expr / var**power, var, sp.oo)
        if coefficient != 0 and not coefficient.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
            return coefficient * var**power
    return expr


def leading_term(name: str, cache: str) -> sp.Expr:
    """The leading term of record ``name``'s explicit form in a cell.

    Floors and ceilings smoothed, a clipped ``Max(0, ...)`` unclipped, each ``Min`` or
    ``Max`` replaced by its branch that dominates as n -> oo; then the dominant power of
    n, of d (small cache only: there the tightness table lets d -> oo before M), and of M.

    Examples
    --------
    >>> leading_term("dense-forward-lower-large-accumulators", "large")
    32*d**2*n**2/(11*M)
    >>> leading_term("output-stationary-forward-count", "small")
    4*d*n**2/sqrt(M)
    """
    expr = limit_form(get(name).explicit)
    if isinstance(expr, sp.Piecewise):  # the branch that holds for the least M
        expr = expr.args[-1][0]
    term = _dominant(expr, n)
    if cache == Cache.SMALL.value:
        term = _dominant(term, d)
    if cache != Cache.ANY.value and M in term.free_symbols:
        term = _dominant(term, M)
    return sp.factor(term) if term.is_Mul or term.is_Add else term


def _dense_rows() -> list[SummaryRow]:
    best: dict[tuple[str, str], object] = {}
    for row in rows():
        key = (row.pass_, row.cache)

        def size(r) -> float:
            ratio = r.ratio
            return float(ratio.subs(d, 64)) if ratio.free_symbols else float(ratio)

        if key not in best or size(row) < size(best[key]):
            best[key] = row
    found = []
    for pass_ in (Pass.FORWARD.value, Pass.BACKWARD.value):
        for cache in (Cache.SMALL.value, Cache.LARGE.value):
            row = best.get((pass_, cache))
            if row is None:
                continue
            found.append(
                SummaryRow(
                    regime=Regime.DENSE,
                    pass_=Pass(pass_),
                    cache=Cache(cache),
                    lower=get(row.lower),
                    lower_leading=leading_term(row.lower, cache),
                    count=get(row.count),
                    count_leading=leading_term(row.count, cache),
                    ratio=row.ratio,
                    constant=row.constant,
                    refuted=row.refuted,
                )
            )
    return found


def _other_rows(regime: Regime) -> list[SummaryRow]:
    """Rows of a sparse or approximate pass: its derived lower bound (the first in catalog
    order; today the compulsory I/O is the only one) and the count that applies to every
    cache size, their ratio as n -> oo (no constant is searched there; none shown where it
    depends on M or r, as the approximate counts' does: ``attnio gap`` gives it at a point)."""
    found = []
    for pass_ in Pass:
        records = catalog(regime=regime.value, pass_=pass_.value)
        lowers = [
            b
            for b in records
            if b.kind is Kind.LOWER and b.status is Status.DERIVED and b.explicit is not None
        ]
        counts = [
            b
            for b in records
            if b.kind is Kind.UPPER and b.status is Status.DERIVED and b.explicit is not None
        ]
        if not lowers and not counts:
            continue
        counts.sort(key=lambda b: b.cache is not Cache.ANY)
        lower = lowers[0] if lowers else None
        count = counts[0] if counts else None
        ratio = None
        if lower is not None and count is not None:
            ratio = sp.limit(limit_form(count.explicit) / limit_form(lower.explicit), n, sp.oo)
            if ratio.free_symbols - {d}:  # depends on M (and r): no one number; attnio gap
                ratio = None
        found.append(
            SummaryRow(
                regime=regime,
                pass_=pass_,
                cache=Cache.ANY,
                lower=lower,
                lower_leading=None if lower is None else leading_term(lower.name, "any"),
                count=count,
                count_leading=None if count is None else leading_term(count.name, "any"),
                ratio=ratio,
                constant=None,
                refuted=None,
            )
        )
    return found


def summary() -> list[SummaryRow]:
    """The summary table's rows: dense cells first (forward, backward; small, large cache),
    then sparse, then approximate passes that have derived records."""
    return _dense_rows() + _other_rows(Regime.SPARSE) + _other_rows(Regime.APPROXIMATE)


__all__ = ["leading_term", "summary"]
