"""Block masks: which blocks of the score matrix a block-sparse algorithm visits.

A block-sparse algorithm tiles the n x n score matrix into blocks fixed by its
block sizes and skips the blocks its mask marks empty (DFE22 Prop 4). attnio
takes the mask either as a block mask of shape (row blocks, column blocks) or as
an n x n mask that is constant on every block; it refuses any other mask, since
masking inside a block would need the mask's words in fast memory.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .errors import MaskError
from .machine import blocks


def block_mask(
    mask: np.ndarray, n: int, row_block: int, col_block: int, algorithm: str
) -> np.ndarray:
    """Return the boolean block mask of ``mask`` for blocks of ``row_block x col_block``.

    Raises
    ------
    MaskError
        If the mask has neither shape, is not constant on a block, or leaves a row empty.

    Examples
    --------
    >>> import numpy as np
    >>> block_mask(np.kron(np.eye(2), np.ones((2, 2))), 4, 2, 2, "demo").tolist()
    [[True, False], [False, True]]
    """
    rows, cols = blocks(n, row_block), blocks(n, col_block)
    mask = np.asarray(mask)
    if mask.dtype != bool:
        if mask.size and not np.all(np.isin(mask, (0, 1))):
            raise MaskError("mask entries must be 0/1 or booleans")
        mask = mask.astype(bool)
    if mask.shape == (len(rows), len(cols)):
        coarse = mask.copy()
    elif mask.shape == (n, n):
        coarse = np.zeros((len(rows), len(cols)), dtype=bool)
        for i, (r0, r1) in enumerate(rows):
            for j, (c0, c1) in enumerate(cols):
                tile = mask[r0:r1, c0:c1]
                if tile.any() and not tile.all():
                    raise MaskError(
                        f"{algorithm}: mask is not constant on block ({i}, {j}) = rows "
                        f"[{r0}:{r1}), columns [{c0}:{c1}) of its {row_block} x {col_block} "
                        f"blocks; give a block-constant n x n mask or a block mask of shape "
                        f"{(len(rows), len(cols))}"
                    )
                coarse[i, j] = tile.all()
    else:
        raise MaskError(
            f"{algorithm}: mask has shape {mask.shape}; it must be n x n = {(n, n)} or a block "
            f"mask of shape {(len(rows), len(cols))} for blocks of {row_block} x {col_block}"
        )
    empty = np.flatnonzero(~coarse.any(axis=1))
    if empty.size:
        raise MaskError(
            f"{algorithm}: block row {int(empty[0])} of the mask allows no key; every row of "
            "attention needs an allowed entry"
        )
    return coarse


def expand(coarse: np.ndarray, n: int, row_block: int, col_block: int) -> np.ndarray:
    """Return the n x n mask that is ``coarse[i, j]`` on block (i, j)."""
    rows = np.repeat(np.arange(coarse.shape[0]), row_block)[:n]
    cols = np.repeat(np.arange(coarse.shape[1]), col_block)[:n]
    return coarse[np.ix_(rows, cols)]


def _sizes(total: int, size: int) -> np.ndarray:
    """The lengths of the blocks of :func:`~attnio.algorithms.machine.blocks` ``(total,
    size)``, as int64, without building the list of ranges (the claims' grid asks for
    them at tens of thousands of block shapes).

    Examples
    --------
    >>> _sizes(5, 2).tolist()
    [2, 2, 1]
    """
    return np.minimum(size, total - np.arange(0, total, size, dtype=np.int64))


def row_weighted_density(coarse: np.ndarray, n: int, row_block: int) -> Fraction:
    """Return the fraction of nonzero blocks, each weighted by its number of rows.

    Equal to the plain fraction of nonzero blocks when ``row_block`` divides n; it is
    the density ``s`` of the block-sparse FlashAttention count records.
    """
    heights = _sizes(n, row_block)
    return Fraction(int((coarse * heights[:, None]).sum()), n * coarse.shape[1])


def column_weighted_density(coarse: np.ndarray, n: int, col_block: int) -> Fraction:
    """Return the fraction of nonzero blocks, each weighted by its number of columns.

    Equal to the plain fraction of nonzero blocks when ``col_block`` divides n; it is
    the density ``s_c`` of the sparse square tiling count records, whose key and value
    transfers scale with the widths of the nonzero tiles.

    Examples
    --------
    >>> import numpy as np
    >>> coarse = np.array([[True, True], [False, True]])  # n = 3: widths 2 and 1
    >>> column_weighted_density(coarse, 3, 2), row_weighted_density(coarse, 3, 2)
    (Fraction(2, 3), Fraction(5, 6))
    """
    widths = _sizes(n, col_block)
    return Fraction(int((coarse * widths[None, :]).sum()), n * coarse.shape[0])


def random_block_mask(
    n_row_blocks: int, n_col_blocks: int, density: float, seed: int = 0
) -> np.ndarray:
    """Return a random block mask with about ``density`` of its blocks set, no row empty.

    Block (i, i mod columns) is always set so that every row has an allowed key;
    the others are set independently with the probability that makes the expected
    fraction ``density``.
    """
    if not 0 < density <= 1:
        raise MaskError(f"block density {density!r} must be in (0, 1]")
    rng = np.random.default_rng(seed)
    coarse = rng.random((n_row_blocks, n_col_blocks)) < density
    coarse[np.arange(n_row_blocks), np.arange(n_row_blocks) % n_col_blocks] = True
    return coarse


PATTERNS = ("full", "diagonal", "band:W", "causal", "local:W", "sink", "rows:K")
"""Mask patterns :func:`pattern_mask` knows. Each names an n x n pattern of allowed
(query, key) pairs, every row with at least one: ``full``; ``diagonal`` (key i for query
i); ``band:W`` (|i - j| <= W); ``causal`` (j <= i); ``local:W`` (a causal sliding window,
i - W < j <= i); ``sink`` (every query attends to key 0 only); ``rows:K`` (K keys per
query, spread: j = i + t floor(n / K) mod n for t < K)."""


def _pattern_pairs(spec: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The (query, key) index arrays of the pattern ``spec`` at size n (not ``causal``)."""
    name, _, arg = spec.partition(":")
    i = np.arange(n)
    if spec == "diagonal":
        return i, i
    if spec == "sink":
        return i, np.zeros(n, dtype=int)
    if name in ("band", "local", "rows") and arg.isdigit():
        w = int(arg)
        if name == "band":
            offsets = np.arange(-w, w + 1)
        elif name == "local" and w >= 1:
            offsets = np.arange(-(w - 1), 1)
        elif name == "rows" and w >= 1:
            k = min(w, n)
            step = max(1, n // k)
            rows = np.repeat(i, k)
            return rows, (rows + np.tile(np.arange(k) * step, n)) % n
        else:
            offsets = None
        if offsets is not None:
            rows = np.repeat(i, len(offsets))
            cols = rows + np.tile(offsets, n)
            keep = (cols >= 0) & (cols < n)
            return rows[keep], cols[keep]
    raise MaskError(
        f"mask pattern {spec!r} is not one of: {', '.join(PATTERNS)} (W >= 0 for band, "
        "W >= 1 for local, K >= 1 for rows)"
    )


def pattern_mask(spec: str, n: int, row_block: int, col_block: int) -> np.ndarray:
    """Return the block mask that covers the pattern ``spec`` for blocks of the given size.

    A block is set when the pattern allows some pair inside it, so the block-constant mask
    it stands for (:func:`expand`) contains the pattern; it is the mask a block-sparse
    algorithm with these blocks runs for that pattern. With blocks of one row and one
    column it is the pattern itself.

    Parameters
    ----------
    spec : str
        One of :data:`PATTERNS`.
    n : int
        Sequence length.
    row_block, col_block : int
        Rows and columns of one block (the algorithm's ``block_shape``).

    Raises
    ------
    MaskError
        If ``spec`` names no pattern or a block size is below 1.

    Examples
    --------
    >>> pattern_mask("diagonal", 4, 2, 2).astype(int).tolist()
    [[1, 0], [0, 1]]
    >>> pattern_mask("sink", 4, 1, 2).astype(int).tolist()
    [[1, 0], [1, 0], [1, 0], [1, 0]]
    """
    if row_block < 1 or col_block < 1:
        raise MaskError(
            f"mask pattern {spec!r}: block of {row_block} x {col_block} must be at least 1 x 1"
        )
    n_rows, n_cols = -(-n // row_block), -(-n // col_block)  # len(blocks(n, size))
    if spec == "full":
        return np.ones((n_rows, n_cols), dtype=bool)
    if spec == "causal":
        last_row = np.minimum(n, (np.arange(n_rows) + 1) * row_block) - 1
        first_col = np.arange(n_cols) * col_block
        return first_col[None, :] <= last_row[:, None]
    rows, cols = _pattern_pairs(spec, n)
    coarse = np.zeros((n_rows, n_cols), dtype=bool)
    coarse[rows // row_block, cols // col_block] = True
    return coarse


def allowed_pairs(coarse: np.ndarray, n: int, row_block: int, col_block: int) -> int:
    """Return Z, the pairs the block-constant mask of ``coarse`` allows (no n x n array).

    Examples
    --------
    >>> allowed_pairs(np.array([[True, False], [True, True]]), 3, 2, 2)
    7
    """
    heights, widths = _sizes(n, row_block), _sizes(n, col_block)
    return int(heights @ coarse.astype(np.int64) @ widths)
