"""Sparse attention: block-sparse FlashAttention (DFE22 Prop 4) and sparse square tiling.

Both skip the blocks of the score matrix a block mask marks empty
(:mod:`~attnio.algorithms.masks`):

* block-sparse FlashAttention runs FlashAttention's loop nest
  (:func:`~attnio.algorithms.flash.flash_forward`, ``flash_backward``) and skips
  the inner step of every empty block; its count is linear in the fraction ``s``
  of nonzero blocks, each block weighted by its number of rows;
* sparse square tiling runs SY24's square tiling
  (:func:`~attnio.algorithms.tiling.square_tiling_forward`) and skips every empty
  T x T tile of A in both phases; backward, the tiled backward
  (:func:`~attnio.algorithms.tiling.tiled_backward`) skips the empty tiles of P and
  dS in all five products. With a partial last band (T not dividing n) the tiles
  differ in size, so the counts are linear in three weights of the nonzero tiles:
  their heights (the transfers of query-side rows, density ``s``), their widths
  (key-side rows, density ``s_c``) and their areas (score tiles, the allowed pairs
  ``Z``); exact for every n (records ``sparse-square-tiling-*-count``).

References
----------
DFE22 Proposition 4 and Algorithm 5; SY24 Algorithm 1. LLSSZ24 gives no sparse
upper bound (noted by its reviewers): these are attnio's.
"""

from __future__ import annotations

import numpy as np

from .flash import backward_blocks, flash_backward, flash_forward, forward_blocks
from .machine import TwoLevelMachine
from .tiling import square_tile, square_tiling_forward, tiled_backward


def block_sparse_flash_forward(
    machine: TwoLevelMachine, n: int, d: int, *, block_mask: np.ndarray
) -> None:
    """Run block-sparse FlashAttention forward (DFE22 Prop 4) with a (T_r, T_c) block mask."""
    flash_forward(machine, n, d, block_mask=block_mask)


def block_sparse_flash_backward(
    machine: TwoLevelMachine, n: int, d: int, *, block_mask: np.ndarray
) -> None:
    """Run block-sparse FlashAttention backward: DFE22 Alg. 4, empty blocks skipped (attnio's)."""
    flash_backward(machine, n, d, block_mask=block_mask)


def sparse_square_tiling_forward(
    machine: TwoLevelMachine, n: int, d: int, *, block_mask: np.ndarray
) -> None:
    """Run square tiling forward skipping the empty T x T tiles of ``block_mask``."""
    square_tiling_forward(machine, n, d, tile_mask=block_mask)


def sparse_tiled_backward(
    machine: TwoLevelMachine, n: int, d: int, *, block_mask: np.ndarray
) -> None:
    """Run the tiled small-cache backward skipping the empty T x T tiles of ``block_mask``."""
    tiled_backward(machine, n, d, tile_mask=block_mask)


def flash_block_shape(pass_: str, d: int, M: int) -> tuple[int, int]:
    """Return the (rows, columns) of one block of block-sparse FlashAttention's mask."""
    return forward_blocks(d, M) if pass_ == "forward" else backward_blocks(d, M)


def tile_block_shape(pass_: str, d: int, M: int) -> tuple[int, int]:
    """Return the (rows, columns) of one tile of sparse square tiling's mask."""
    tile = square_tile(M)
    return tile, tile
