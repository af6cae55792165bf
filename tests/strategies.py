"""Shared hypothesis strategies. Each package appends its own section below its header."""

from __future__ import annotations

import sympy as sp
from hypothesis import strategies as st

from attnio.bounds import Bound, catalog
from attnio.bounds.symbols import feature_rank

# ----------------------------------------------------------------------------- bounds


@st.composite
def parameter_points(draw: st.DrawFn, max_n: int = 4096) -> dict[str, object]:
    """A consistent assignment of every catalog symbol: d <= n, n <= Z <= n^2, r = C(d+g, g)."""
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, min(n, 256)))
    memory = draw(st.one_of(st.integers(1, 4 * d * d + 8), st.integers(1, n * d + 1)))
    z = draw(st.integers(n, n * n))
    g = draw(st.integers(0, 4))
    return {
        "n": n,
        "d": d,
        "M": memory,
        "Z": z,
        "Z_QK": z,
        "Z_in": draw(st.integers(1, n * d)),
        "s": sp.Rational(draw(st.integers(1, 64)), 64),
        "g": g,
        "r": int(feature_rank(d, g)),
        "B": sp.Rational(draw(st.integers(1, 40)), 10),
        "epsilon": sp.Rational(1, draw(st.integers(2, 10**6))),
    }


def records(*, with_explicit: bool = False) -> st.SearchStrategy[Bound]:
    """Catalog records, optionally only those with an explicit expression."""
    pool = [b for b in catalog() if b.asymptotic is not None]
    if with_explicit:
        pool = [b for b in pool if b.explicit is not None]
    return st.sampled_from(pool)


def restrict(point: dict[str, object], bound: Bound) -> dict[str, object]:
    """The entries of ``point`` that ``bound`` uses."""
    return {name: point[name] for name in bound.parameters}
