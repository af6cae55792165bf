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
