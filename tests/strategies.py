"""Shared hypothesis strategies. Each package appends its own under a header naming it."""

from __future__ import annotations

# ----------------------------------------------------------------- attnio.proofs
import sympy as sp
from attnio.bounds.symbols import M, d, n
from hypothesis import strategies as st

PROOF_SYMBOLS = (n, d, M)
"""The symbols proof expressions are drawn over (positive integers)."""


def _leaves() -> st.SearchStrategy[sp.Expr]:
    numbers = st.builds(sp.Rational, st.integers(-6, 6), st.integers(1, 4))
    return st.one_of(st.sampled_from(PROOF_SYMBOLS), numbers)


def _extend(children: st.SearchStrategy[sp.Expr]) -> st.SearchStrategy[sp.Expr]:
    pair = st.tuples(children, children)
    return st.one_of(
        pair.map(lambda ab: ab[0] + ab[1]),
        pair.map(lambda ab: ab[0] * ab[1]),
        children.map(lambda a: a / (M + 1)),
        children.map(lambda a: sp.sqrt(a**2 + 1)),
        children.map(sp.ceiling),
        children.map(sp.floor),
        pair.map(lambda ab: sp.Min(*ab)),
        pair.map(lambda ab: sp.Max(*ab)),
        pair.map(lambda ab: sp.Piecewise((ab[0], n <= d), (ab[1], True))),
    )


def proof_expressions() -> st.SearchStrategy[sp.Expr]:
    """Arithmetic expressions over n, d, M with every node kind the translator knows."""
    return st.recursive(_leaves(), _extend, max_leaves=6)


def proof_points() -> st.SearchStrategy[dict[str, int]]:
    """Values for n, d, M (positive integers)."""
    return st.fixed_dictionaries({sym.name: st.integers(1, 400) for sym in PROOF_SYMBOLS})
