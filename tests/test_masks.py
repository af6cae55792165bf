"""Tests of block masks: conversion, expansion, the weighted densities and their relations."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attnio.algorithms.errors import MaskError
from attnio.algorithms.machine import blocks
from attnio.algorithms.masks import (
    allowed_pairs,
    block_mask,
    column_weighted_density,
    expand,
    pattern_mask,
    row_weighted_density,
)
from attnio.algorithms.tiling import square_tile
from attnio.bounds import get
from attnio.pebble.builders import mask_from_spec
from attnio.pebble.errors import PebbleParameterError
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


@pytest.mark.parametrize("spec", ["full", "diagonal", "band:0", "band:2", "causal", "local:1",
                                  "local:3", "sink", "rows:1", "rows:3"])  # fmt: skip
@pytest.mark.parametrize("n", [1, 5, 8])
@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (3, 2), (4, 4)])
def test_pattern_mask_is_the_least_block_mask_covering_its_pattern(spec, n, shape):
    """pattern_mask sets exactly the blocks the pattern touches: its expansion contains the
    pattern (equal to it for 1 x 1 blocks, and to the builders' masks of the same name),
    every row allows a key, and allowed_pairs counts the expansion's pairs."""
    rows, cols = shape
    coarse = pattern_mask(spec, n, rows, cols)
    pattern = pattern_mask(spec, n, 1, 1)
    fine = expand(coarse, n, rows, cols)
    assert fine.any(axis=1).all() and (fine | ~pattern).all()
    for i, (r0, r1) in enumerate(blocks(n, rows)):
        for j, (c0, c1) in enumerate(blocks(n, cols)):
            assert coarse[i, j] == pattern[r0:r1, c0:c1].any()
    assert allowed_pairs(coarse, n, rows, cols) == int(fine.sum())
    width = int(spec.partition(":")[2] or 0)
    fits = width <= (n - 1 if spec.startswith("band") else n)
    if spec in ("full", "causal") or (spec.startswith(("band", "local")) and fits):
        assert (pattern == mask_from_spec(spec, n)).all()
    elif spec.startswith(("band", "local")):  # a window wider than n is one clear error there
        with pytest.raises(PebbleParameterError, match="does not fit"):
            mask_from_spec(spec, n)
    if spec == "diagonal":
        assert (pattern == np.eye(n, dtype=bool)).all()


@pytest.mark.parametrize("spec", ["band", "band:-1", "local:0", "rows:0", "wavy"])
def test_pattern_mask_refuses_an_unknown_pattern(spec):
    """A pattern that is not one of PATTERNS (or a bad width) is a MaskError naming it."""
    with pytest.raises(MaskError, match=re.escape(repr(spec))):
        pattern_mask(spec, 4, 1, 1)
