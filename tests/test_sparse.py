"""Tests of block-sparse FlashAttention (DFE22 Prop 4) and sparse square tiling."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attnio.algorithms import simulate
from attnio.algorithms.errors import MaskError
from attnio.algorithms.machine import blocks
from attnio.algorithms.masks import expand
from attnio.algorithms.registry import get_algorithm
from attnio.algorithms.tiling import square_tile
from attnio.bounds import get
from strategies import block_masks, examples, problem_sizes, tile_masks

CASES = [
    ("block-sparse-flash", "forward"),
    ("block-sparse-flash", "backward"),
    ("sparse-square-tiling", "forward"),
    ("sparse-square-tiling", "backward"),
]


def _minimum(name: str, pass_: str, d: int) -> int:
    if name == "sparse-square-tiling":
        return 4
    return 5 * d + 4 if pass_ == "forward" else 10 * d + 2


@pytest.mark.parametrize("name,pass_", CASES)
@settings(max_examples=examples(25))
@given(sizes=problem_sizes(max_n=30, max_d=6, max_memory=200), data=st.data())
def test_numbers_counts_and_lower_bounds(name, pass_, sizes, data):
    """Masked outputs match the masked reference; counts equal the closed form where it applies."""
    n, d, M = sizes
    M = max(M, _minimum(name, pass_, d))
    rows, cols = get_algorithm(name).block_shape(pass_, d, M)
    mask = data.draw(block_masks(len(blocks(n, rows)), len(blocks(n, cols))))
    run = simulate(name, pass_, n, d, M, mask=mask)
    assert run.error <= 1e-9
    assert run.counts.peak <= M
    assert simulate(name, pass_, n, d, M, mask=mask, numeric=False).counts == run.counts
    assert run.counts.io == run.closed_form
    fine = np.repeat(np.repeat(mask, rows, axis=0), cols, axis=1)[:n, :n]
    compulsory = get(f"sparse-{pass_}-compulsory")
    assert compulsory.evaluate(n=n, d=d, Z=int(fine.sum())) <= run.counts.io


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@settings(max_examples=examples(60))
@given(problem=tile_masks(max_n=60, max_d=9, max_memory=600))
@example(problem=(37, 5, 333, np.eye(5, dtype=bool)))  # T = 9: bands 9, 9, 9, 9, 1
@example(problem=(10, 3, 36, np.array([[True, False, False, True]] * 4)))  # T = 3: 3, 3, 3, 1
@example(problem=(10, 3, 36, np.array([[False, False, False, True]] * 4)))  # 1-wide keys only
@example(problem=(10, 3, 36, np.tril(np.ones((4, 4), dtype=bool))))  # causal, partial corner
@example(problem=(4, 7, 100, np.ones((1, 1), dtype=bool)))  # T = 5 > n: one partial tile
def test_sparse_tiling_count_is_exact_for_partial_tiles(pass_, problem):
    """Sparse square tiling moves exactly its record's words for every n, d, M and tile mask."""
    n, d, M, coarse = problem
    run = simulate("sparse-square-tiling", pass_, n, d, M, mask=coarse, numeric=False)
    assert run.counts.peak <= M
    assert run.counts.io == run.closed_form
    assert {"s", "s_c", "Z"} <= set(run.parameters)
    tile = square_tile(M)
    assert run.parameters["Z"] == int(expand(coarse, n, tile, tile).sum())


@pytest.mark.parametrize("name,pass_", CASES)
@settings(max_examples=examples(15))
@given(sizes=problem_sizes(max_n=40, max_d=6, max_memory=300))
def test_full_mask_costs_the_dense_count(name, pass_, sizes):
    """With every block allowed the sparse algorithm moves exactly the dense algorithm's words."""
    n, d, M = sizes
    M = max(M, _minimum(name, pass_, d))
    dense = {
        ("block-sparse-flash", "forward"): "flash",
        ("block-sparse-flash", "backward"): "flash",
        ("sparse-square-tiling", "forward"): "square-tiling",
        ("sparse-square-tiling", "backward"): "tiled-backward",
    }[name, pass_]
    full = simulate(name, pass_, n, d, M, block_density=1.0, numeric=False)
    assert full.counts == simulate(dense, pass_, n, d, M, numeric=False).counts


def test_fewer_blocks_cost_less():
    """Removing allowed blocks from a mask never increases the I/O."""
    n, d, M = 64, 4, 200
    rows, cols = get_algorithm("block-sparse-flash").block_shape("forward", d, M)
    shape = (len(blocks(n, rows)), len(blocks(n, cols)))
    dense = np.ones(shape, dtype=bool)
    diagonal = np.zeros(shape, dtype=bool)
    diagonal[np.arange(shape[0]), np.arange(shape[0]) % shape[1]] = True
    costs = [
        simulate("block-sparse-flash", "forward", n, d, M, mask=m, numeric=False)
        for m in (diagonal, dense)
    ]
    assert costs[0].counts.io < costs[1].counts.io


def test_bad_masks_refused():
    """Masks of the wrong shape, not constant on a block, or with an empty row are refused."""
    n, d, M = 12, 2, 40  # flash forward blocks: B_c = 2, B_r = 2
    with pytest.raises(MaskError, match="shape"):
        simulate("block-sparse-flash", "forward", n, d, M, mask=np.ones((5, 5), bool))
    ragged = np.ones((n, n), dtype=bool)
    ragged[0, 0] = False
    with pytest.raises(MaskError, match="not constant on block"):
        simulate("block-sparse-flash", "forward", n, d, M, mask=ragged)
    empty = np.ones((6, 6), dtype=bool)
    empty[2] = False
    with pytest.raises(MaskError, match="block row 2"):
        simulate("block-sparse-flash", "forward", n, d, M, mask=empty)
    with pytest.raises(MaskError, match="exactly one"):
        simulate("block-sparse-flash", "forward", n, d, M)
    with pytest.raises(MaskError, match="dense"):
        simulate("flash", "forward", n, d, M, block_density=0.5)
    with pytest.raises(MaskError, match=r"\(0, 1\]"):
        simulate("block-sparse-flash", "forward", n, d, M, block_density=0.0)
