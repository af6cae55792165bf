"""Tests of block masks: conversion, expansion, the weighted densities and their relations."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attnio.algorithms.machine import blocks
from attnio.algorithms.masks import (
    block_mask,
    column_weighted_density,
    expand,
    row_weighted_density,
)
from attnio.algorithms.tiling import square_tile
from attnio.bounds import get
from strategies import block_masks, examples, tile_masks


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


@given(n=st.integers(1, 30), rows=st.integers(1, 8), cols=st.integers(1, 8), data=st.data())
def test_column_weighted_density_counts_allowed_column_blocks(n, rows, cols, data):
    """The column-weighted density is (allowed columns x row blocks) / (n T_r), exactly."""
    coarse = data.draw(block_masks(len(blocks(n, rows)), len(blocks(n, cols))))
    per_column = np.repeat(coarse, cols, axis=1)[:, :n]
    assert column_weighted_density(coarse, n, cols) == Fraction(
        int(per_column.sum()), n * coarse.shape[0]
    )


def _weighted_sums(coarse: np.ndarray, n: int, tile: int) -> tuple[int, int, int]:
    """(sum of heights, sum of widths, sum of areas) over the nonzero tiles, by brute force."""
    spans = [b - a for a, b in blocks(n, tile)]
    nonzero = [(i, j) for i in range(len(spans)) for j in range(len(spans)) if coarse[i, j]]
    return (
        sum(spans[i] for i, _ in nonzero),
        sum(spans[j] for _, j in nonzero),
        sum(spans[i] * spans[j] for i, j in nonzero),
    )


@pytest.mark.slow
@settings(max_examples=examples(300))
@given(problem=tile_masks(max_n=40, max_memory=400))
@example(problem=(7, 1, 36, np.array([[False, False, True]] * 3)))  # only the 1-wide band
@example(problem=(5, 1, 16, np.eye(3, dtype=bool)))  # T = 2: bands of 2, 2, 1
def test_tile_mask_relations_hold(problem):
    """Every tile mask with no empty row band satisfies the relations the sparse tiling records assume."""
    n, _, M, coarse = problem
    tile = square_tile(M)
    bands = len(blocks(n, tile))
    heights, widths, area = _weighted_sums(coarse, n, tile)
    fine = expand(coarse, n, tile, tile)
    keys = int(fine.any(axis=0).sum())
    assert area == fine.sum()
    assert n <= heights <= n * bands and widths <= n * bands and area <= n * n
    assert widths >= keys >= -(-area // n)
    assert area <= tile * heights and area <= tile * widths
    params = {
        "n": n,
        "M": M,
        "s": row_weighted_density(coarse, n, tile),
        "s_c": column_weighted_density(coarse, n, tile),
        "Z": area,
    }
    assert params["s"] == Fraction(heights, n * bands)
    assert params["s_c"] == Fraction(widths, n * bands)
    for name in ("sparse-square-tiling-forward-count", "sparse-square-tiling-backward-count"):
        bound = get(name)
        assert bound.applies(**{k: v for k, v in params.items() if k in bound.parameters})
