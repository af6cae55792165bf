"""The three forms of a bound: explicit, asymptotic, and its leading term under assumptions.

A record holds the explicit expression (constants and lower-order terms) and the asymptotic
growth rate. The leading term is computed here from the record, never typed: floors and
ceilings are smoothed (``floor(x) -> x``, ``ceiling(x) -> x + 1``), products are expanded,
and a term is dropped when another one grows at least as fast everywhere in the regime and
strictly faster somewhere. "Grows" is measured on the exponents of a scaling: every symbol
is a power of one growing parameter, ``d`` the first power, and the exponents of ``n``,
``M``, ``Z``, ... range over the corners of the regime's assumptions (:data:`ASSUMPTIONS`).
A ``Max``/``Min`` keeps only the argument that dominates; a term whose exponent cannot be
read (a function other than floor, ceiling, Max, Min) leaves the leading term undefined.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sympy as sp

from .record import Bound, Cache
from .symbols import ALL

_GROWTH = 8
"""Exponent standing for "much larger" at a corner of a regime."""

ASSUMPTIONS: dict[Cache, str] = {
    Cache.SMALL: r"n \geq d,\ d \leq M \leq d^{2}",
    Cache.LARGE: r"n \geq d,\ d^{2} \leq M \leq n d",
}
"""The assumptions under which each regime's leading term is taken (LaTeX math)."""


def _corners(cache: Cache, names: set[str]) -> list[dict[str, float]]:
    """Exponent assignments at the corners of ``cache``'s regime (d has exponent 1).

    Only the symbols in ``names`` vary; the others are fixed, which keeps the corner count
    small for the usual expressions in n, d and M alone.
    """
    choices: dict[str, object] = {
        "s": (0, -1),
        "s_c": (0, -1),
        "r": (0, _GROWTH),
    }
    corners = []
    for a in (1, _GROWTH):
        relative = {
            "M": (1, 2) if cache is Cache.SMALL else (2, a + 1),
            "Z": (a, 2 * a),
            "Z_in": (a, a + 1),
            "Z_QK": (a, 2 * a),
            **choices,
        }
        varying = [name for name in relative if name in names or name == "M"]
        for values in itertools.product(*(relative[name] for name in varying)):
            corner = dict.fromkeys(ALL, 0.0)
            corner.update({"n": a, "d": 1, **dict(zip(varying, values, strict=True))})
            corners.append(corner)
    return corners


class _UnreadableError(Exception):
    pass


def _exponent(expr: sp.Basic, corner: dict[str, float]) -> float:
    if expr.is_Number:
        return 0.0
    if expr.is_Symbol:
        return float(corner[expr.name])
    if isinstance(expr, sp.Mul):
        return sum(_exponent(arg, corner) for arg in expr.args)
    if isinstance(expr, sp.Pow) and expr.exp.is_Number:
        return float(expr.exp) * _exponent(expr.base, corner)
    if isinstance(expr, (sp.Add, sp.Max)):
        return max(_exponent(arg, corner) for arg in expr.args)
    if isinstance(expr, sp.Min):
        return min(_exponent(arg, corner) for arg in expr.args)
    raise _UnreadableError(expr)


def _smooth(expr: sp.Basic) -> sp.Basic:
    if expr.is_Atom:
        return expr
    args = [_smooth(arg) for arg in expr.args]
    if isinstance(expr, sp.floor):
        return args[0]
    if isinstance(expr, sp.ceiling):
        return args[0] + 1
    return expr.func(*args)


def _dominates(first: list[float], second: list[float]) -> bool:
    """Whether a term with exponents ``first`` outgrows one with ``second`` in the regime."""
    pairs = list(zip(first, second, strict=True))
    return all(x >= y - 1e-12 for x, y in pairs) and any(x > y + 1e-12 for x, y in pairs)


def _lead(expr: sp.Basic, corners: list[dict[str, float]]) -> sp.Expr:
    if isinstance(expr, sp.Piecewise):
        return sp.Piecewise(*((_lead(piece, corners), cond) for piece, cond in expr.args))
    expr = sp.expand(expr)
    terms = []
    for term in sp.Add.make_args(expr):
        terms.append(_lead_atoms(term, corners))
    terms = list(sp.Add.make_args(sp.expand(sp.Add(*terms))))
    exps = [[_exponent(t, c) for c in corners] for t in terms]
    kept = [
        t
        for k, t in enumerate(terms)
        if not any(_dominates(exps[j], exps[k]) for j in range(len(terms)) if j != k)
    ]
    return sp.Add(*kept)


def _lead_atoms(term: sp.Basic, corners: list[dict[str, float]]) -> sp.Basic:
    """Resolve each Max/Min inside ``term`` to its dominant argument where one dominates."""
    if isinstance(term, (sp.Max, sp.Min)):
        args = [_lead(arg, corners) for arg in term.args]
        exps = [[_exponent(a, c) for c in corners] for a in args]
        for k, arg in enumerate(args):
            others = [exps[j] for j in range(len(args)) if j != k]
            if isinstance(term, sp.Max):
                if all(_dominates(exps[k], o) or exps[k] == o for o in others):
                    return arg
            elif all(_dominates(o, exps[k]) or exps[k] == o for o in others):
                return arg
        return term.func(*args)
    if term.is_Atom or not term.args:
        return term
    return term.func(*(_lead_atoms(arg, corners) for arg in term.args))


def leading_term(expr: sp.Expr, cache: Cache) -> sp.Expr | None:
    """Return the leading term of ``expr`` under the assumptions of ``cache``'s regime.

    Returns ``None`` when a term's growth cannot be read (for example a binomial).

    Examples
    --------
    >>> from attnio.bounds import get
    >>> leading_term(get("flash-forward-count").explicit, Cache.LARGE)
    15*d**2*n**2/M
    """
    if cache is Cache.ANY:
        raise ValueError("cache=any has no single regime; pass Cache.SMALL or Cache.LARGE")
    unknown = {s.name for s in expr.free_symbols} - set(ALL)
    if unknown:
        raise ValueError(f"expression uses undeclared symbols {sorted(unknown)}")
    try:
        return _lead(_smooth(expr), _corners(cache, {s.name for s in expr.free_symbols}))
    except _UnreadableError:
        return None


@dataclass(frozen=True)
class Forms:
    """A bound's explicit expression, asymptotic rate and leading term per regime.

    ``leading`` maps a cache regime to the leading term there; a record that holds in every
    regime with the same leading term in both maps ``Cache.ANY`` to it. It is empty when no
    leading term differs from the asymptotic rate or none can be computed.
    """

    explicit: sp.Expr | None
    asymptotic: sp.Expr | None
    leading: dict[Cache, sp.Expr] = field(default_factory=dict)


def forms(bound: Bound) -> Forms:
    """Return the three forms of ``bound``; the leading term from its explicit form if any.

    Examples
    --------
    >>> from attnio.bounds import get
    >>> forms(get("dense-forward-tight")).leading[Cache.SMALL]
    d*n**2/sqrt(M)
    """
    source = bound.explicit if bound.explicit is not None else bound.asymptotic
    if source is None:
        return Forms(bound.explicit, bound.asymptotic)
    caches = (Cache.SMALL, Cache.LARGE) if bound.cache is Cache.ANY else (bound.cache,)
    found = {cache: leading_term(source, cache) for cache in caches}
    if any(value is None for value in found.values()):
        return Forms(bound.explicit, bound.asymptotic)
    values = list(found.values())
    if len(values) == 2 and sp.expand(values[0] - values[1]) == 0:
        found = {Cache.ANY: values[0]}
    if all(sp.expand(v - bound.asymptotic) == 0 for v in found.values() if v is not None):
        found = {}
    return Forms(bound.explicit, bound.asymptotic, found)
