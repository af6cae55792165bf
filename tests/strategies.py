"""Hypothesis strategies shared by the test modules, one section per package (append-only)."""

from __future__ import annotations

from hypothesis import strategies as st

# ---------------------------------------------------------------- attnio.algorithms


@st.composite
def problem_sizes(draw, max_n: int = 40, max_d: int = 9, max_memory: int | None = None):
    """Draw (n, d, M): n, d small, M anywhere from 1 to above n d (often off block multiples)."""
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    top = max_memory if max_memory is not None else 3 * n * d + 60
    M = draw(
        st.one_of(
            st.integers(1, top),
            st.sampled_from([d * d, d * d - 1, 5 * d + 4, 10 * d + 2, 9 * d + 2, 5 * d + 3]),
        )
    )
    return n, d, max(M, 1)


@st.composite
def block_masks(draw, rows: int, cols: int):
    """Draw a boolean block mask of shape (rows, cols) with no empty row."""
    import numpy as np

    flat = draw(st.lists(st.booleans(), min_size=rows * cols, max_size=rows * cols))
    mask = np.array(flat, dtype=bool).reshape(rows, cols)
    for i in range(rows):
        if not mask[i].any():
            mask[i, draw(st.integers(0, cols - 1))] = True
    return mask


# ---------------------------------------------------------------- attnio.proofs
import sympy as sp  # noqa: E402
from attnio.bounds.symbols import M as _M  # noqa: E402
from attnio.bounds.symbols import d as _d  # noqa: E402
from attnio.bounds.symbols import n as _n  # noqa: E402

PROOF_SYMBOLS = (_n, _d, _M)
"""The symbols proof expressions are drawn over (positive integers)."""


def _proof_leaves() -> st.SearchStrategy[sp.Expr]:
    numbers = st.builds(sp.Rational, st.integers(-6, 6), st.integers(1, 4))
    return st.one_of(st.sampled_from(PROOF_SYMBOLS), numbers)


def _proof_extend(children: st.SearchStrategy[sp.Expr]) -> st.SearchStrategy[sp.Expr]:
    pair = st.tuples(children, children)
    return st.one_of(
        pair.map(lambda ab: ab[0] + ab[1]),
        pair.map(lambda ab: ab[0] * ab[1]),
        children.map(lambda a: a / (_M + 1)),
        children.map(lambda a: sp.sqrt(a**2 + 1)),
        children.map(sp.ceiling),
        children.map(sp.floor),
        pair.map(lambda ab: sp.Min(*ab)),
        pair.map(lambda ab: sp.Max(*ab)),
        pair.map(lambda ab: sp.Piecewise((ab[0], _n <= _d), (ab[1], True))),
    )


def proof_expressions() -> st.SearchStrategy[sp.Expr]:
    """Arithmetic expressions over n, d, M with every node kind the translator knows."""
    return st.recursive(_proof_leaves(), _proof_extend, max_leaves=6)


def proof_points() -> st.SearchStrategy[dict[str, int]]:
    """Values for n, d, M (positive integers)."""
    return st.fixed_dictionaries({sym.name: st.integers(1, 400) for sym in PROOF_SYMBOLS})
