"""Tests of block masks: conversion, expansion and the row-weighted density."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from attnio.algorithms.machine import blocks
from attnio.algorithms.masks import block_mask, expand, row_weighted_density
from strategies import block_masks


@given(n=st.integers(1, 30), rows=st.integers(1, 8), cols=st.integers(1, 8), data=st.data())
def test_expand_then_coarsen_is_identity(n, rows, cols, data):
    """Expanding a block mask to n x n and coarsening it back gives the same block mask."""
    coarse = data.draw(block_masks(len(blocks(n, rows)), len(blocks(n, cols))))
    fine = expand(coarse, n, rows, cols)
    assert fine.shape == (n, n)
    assert np.array_equal(block_mask(fine, n, rows, cols, "test"), coarse)


@given(n=st.integers(1, 30), rows=st.integers(1, 8), cols=st.integers(1, 8), data=st.data())
def test_row_weighted_density_counts_allowed_row_blocks(n, rows, cols, data):
    """The row-weighted density is (allowed rows x column blocks) / (n T_c), exactly."""
    coarse = data.draw(block_masks(len(blocks(n, rows)), len(blocks(n, cols))))
    per_row = np.repeat(coarse, rows, axis=0)[:n]
    assert row_weighted_density(coarse, n, rows) == Fraction(
        int(per_row.sum()), n * coarse.shape[1]
    )
