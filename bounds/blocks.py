"""Block and tile sizes of attnio's algorithms, typed once.

DFE22 takes ``B_c = ceil(M / 4d)``, ``B_r = min(B_c, d)``, which overflows M
words by the score tile and the row statistics. attnio keeps the shape of the
rule and divides M by the exact number of words one unit of block size costs,
so the peak is provably at most M. The algorithms of :mod:`attnio.algorithms.flash`
read these rules; the count records of ``catalog.toml`` write the same sizes out in
their expressions (``floor(M/(5*d + 4))``), and the machine's runs of the algorithms
check every count (:mod:`attnio.bounds.counts`).

=========================  ======================  =============================
algorithm / pass           large block             small block
=========================  ======================  =============================
flash forward              B_c = floor(M/(5d+4))   B_r = min(B_c, d)
flash backward             B_c = floor(M/(10d+2))  B_r = min(B_c, d)
flash2 forward             B_r = floor(M/(5d+3))   B_c = min(B_r, d)
flash2 backward            B_c = floor(M/(9d+2))   B_r = min(B_c, d)
=========================  ======================  =============================

The tiled algorithms use square tiles of side ``T = floor(sqrt(M / k))``, k
tiles fitting in fast memory: k = 3 for standard attention, k = 4 for square
tiling and the tiled backward (:class:`TileRule`). attnio's output-stationary
schedule keeps one output tile and a few vectors of its side resident
(:class:`StationaryRule`), so its tiles are about twice as wide. The low-rank (polynomial
method) passes keep their feature table resident when it fits, else split M in
halves between feature blocks and row blocks (:class:`LowRankRule`).

References
----------
DFE22 Algorithms 0, 1 and 4, Theorems 2 and 5; D23 Algorithms 1 and 2; SY24 Algorithm 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import sympy as sp

__all__ = [
    "FLASH2_BACKWARD_BLOCKS",
    "FLASH2_FORWARD_BLOCKS",
    "FLASH_BACKWARD_BLOCKS",
    "FLASH_FORWARD_BLOCKS",
    "LOW_RANK_BACKWARD_BLOCKS",
    "LOW_RANK_COLUMN_BACKWARD_BLOCKS",
    "LOW_RANK_COLUMN_BLOCKS",
    "LOW_RANK_FORWARD_BLOCKS",
    "OUTPUT_STATIONARY_BACKWARD_TILES",
    "OUTPUT_STATIONARY_TILES",
    "ROW_STREAMING_BACKWARD_BLOCKS",
    "ROW_STREAMING_FORWARD_BLOCKS",
    "SCORE_PANEL_BLOCKS",
    "SQUARE_TILES",
    "STANDARD_TILES",
    "TWO_SWEEP_KEY_BLOCKS",
    "TWO_SWEEP_QUERY_BLOCKS",
    "BlockRule",
    "ColumnBackwardRule",
    "ColumnRule",
    "LowRankRule",
    "StationaryRule",
    "StreamRule",
    "SweepRule",
    "TileRule",
]


@dataclass(frozen=True)
class BlockRule:
    """How one FlashAttention pass sizes its blocks from d and M.

    Attributes
    ----------
    label : str
        The algorithm and pass, as error messages name it (``"flash forward"``).
    cost : callable
        ``d -> words`` one unit of the large block size costs in fast memory;
        plain arithmetic, so it takes an int or a sympy expression.
    large : {"columns", "rows"}
        Which block is ``floor(M / cost(d))``; the other is ``min(large, d)``.

    Examples
    --------
    >>> FLASH_FORWARD_BLOCKS.sizes(4, 100)
    (4, 4)
    >>> FLASH_FORWARD_BLOCKS.sizes(2, 100)
    (2, 7)
    """

    label: str
    cost: Callable
    large: Literal["columns", "rows"]

    def words(self, d):
        """Words one unit of the large block size costs (int or sympy, as ``d``)."""
        return self.cost(d)

    def large_block(self, d, M):
        """The large block size: ``M // words(d)`` for ints, ``floor(M / words(d))`` symbolically."""
        if isinstance(M, sp.Basic) or isinstance(d, sp.Basic):
            return sp.floor(M / self.words(d))
        return M // self.words(d)

    def sizes(self, d: int, M: int) -> tuple[int, int]:
        """Return ``(B_r, B_c)`` for integer ``d`` and ``M`` (the large block may be 0)."""
        big = self.large_block(d, M)
        return (min(big, d), big) if self.large == "columns" else (big, min(big, d))


FLASH_FORWARD_BLOCKS = BlockRule("flash forward", lambda d: 5 * d + 4, "columns")
"""K_j, V_j, Q_i, O_i, the B_r x B_c scores and four row statistics (DFE22 Alg. 1)."""

FLASH_BACKWARD_BLOCKS = BlockRule("flash backward", lambda d: 10 * d + 2, "columns")
"""DFE22 Alg. 4 with FlashAttention-2's inputs."""

FLASH2_FORWARD_BLOCKS = BlockRule("flash2 forward", lambda d: 5 * d + 3, "rows")
"""D23 Alg. 1: the outer loop runs over query blocks, so the query block is the large one."""

FLASH2_BACKWARD_BLOCKS = BlockRule("flash2 backward", lambda d: 9 * d + 2, "columns")
"""D23 Alg. 2."""


@dataclass(frozen=True)
class TileRule:
    """Square tiles of side ``floor(sqrt(M / tiles))``: ``tiles`` of them fit in M words.

    Examples
    --------
    >>> SQUARE_TILES.side(100), STANDARD_TILES.side(100)
    (5, 5)
    """

    label: str
    tiles: int

    def side(self, M):
        """The tile side: ``isqrt(M // tiles)`` for an int, ``floor(sqrt(M / tiles))`` symbolically."""
        if isinstance(M, sp.Basic):
            return sp.floor(sp.sqrt(M / self.tiles))
        return math.isqrt(M // self.tiles)


STANDARD_TILES = TileRule("standard attention", 3)
"""Standard attention (DFE22 Alg. 0): two operand tiles and one product tile."""

SQUARE_TILES = TileRule("square tiling", 4)
"""SY24 Alg. 1 and the tiled backward: three tiles and one row of statistics."""


def _floor_div(M, words):
    return (
        sp.floor(M / words)
        if isinstance(M, sp.Basic) or isinstance(words, sp.Basic)
        else M // words
    )


@dataclass(frozen=True)
class LowRankRule:
    """How a low-rank pass sizes its blocks: a resident feature table, or halves of M.

    Attributes
    ----------
    label : str
        The pass, as error messages name it.
    table : callable
        ``(r, d) -> words`` of the feature tables the pass keeps ([W | w], and
        [dW | dw] backward) for ``r`` features.
    row : callable
        ``d -> words`` one row of work costs.

    The table is resident when ``table(r, d) + row(d) <= M``; otherwise feature
    blocks of ``floor(M / (2 table(1, d)))`` features and row blocks of
    ``floor(M / (2 row(d)))`` rows each take at most half of M. Plain arithmetic,
    so every method takes ints or sympy expressions.

    Examples
    --------
    >>> LOW_RANK_FORWARD_BLOCKS.features(2, 100), LOW_RANK_FORWARD_BLOCKS.rows(2, 100)
    (12, 10)
    """

    label: str
    table: Callable
    row: Callable

    def resident_words(self, r, d):
        """Words of the resident schedule's tables and one row of work."""
        return self.table(r, d) + self.row(d)

    def resident(self, r, d, M):
        """Whether the tables stay in fast memory (a sympy relation for symbols)."""
        return self.resident_words(r, d) <= M

    def resident_rows(self, r, d, M):
        """Rows per block when the tables are resident."""
        return _floor_div(M - self.table(r, d), self.row(d))

    def features(self, d, M):
        """Features per block when the tables are not resident."""
        return _floor_div(M, 2 * self.table(1, d))

    def rows(self, d, M):
        """Rows per block when the tables are not resident."""
        return _floor_div(M, 2 * self.row(d))


LOW_RANK_FORWARD_BLOCKS = LowRankRule("low-rank", lambda r, d: r * (d + 2), lambda d: 2 * d + 1)
"""[W | w] (r x (d + 1)) and one feature row; a row of K, V (or of Q, O, den)."""

LOW_RANK_BACKWARD_BLOCKS = LowRankRule(
    "low-rank backward", lambda r, d: 2 * r * (d + 2), lambda d: 4 * d + 1
)
"""[W | w] and [dW | dw] (r x (d + 1) each) and two feature rows; a row of four operands."""


@dataclass(frozen=True)
class ColumnRule:
    """How the column-blocked low-rank forward sizes its blocks: columns of W, then rows.

    The pass keeps ``w = psi(K)^T 1`` (r words) and a block of ``c`` columns of
    ``W = psi(K)^T V`` (r c words) resident, and streams rows of d + c + 1 words (a row
    of K and of V's block, or of Q, O's block and den) with one feature word. So
    ``c = floor((M - r - 2d - 3) / (r + 2))`` (two rows fit beside the block, so that a
    run makes at most as many transfers as its count / d) and, with the block of
    ``min(c, d)`` columns in place, ``floor((M - r (1 + min(c, d)) - 1) / (d + min(c, d)
    + 1)) >= 2`` rows. A plain floor of M, so the count record's expression (its
    ``ceiling(d / c)`` blocks) stays in the shape z3 bounds. Plain arithmetic: ints or
    sympy expressions.

    Examples
    --------
    >>> LOW_RANK_COLUMN_BLOCKS.columns(561, 32, 4096), LOW_RANK_COLUMN_BLOCKS.rows(561, 32, 4096)
    (6, 4)
    """

    label: str

    def columns(self, r, d, M):
        """Columns of W per block (0 or less when M holds no block of one column)."""
        return _floor_div(M - r - 2 * d - 3, r + 2)

    def least_memory(self, r, d):
        """The least M with a block of one column: ``2r + 2d + 5``."""
        return 2 * r + 2 * d + 5

    def rows(self, r, d, M):
        """Rows per block beside a block of ``min(columns, d)`` columns (ints only)."""
        width = min(self.columns(r, d, M), d)
        return (M - r * (1 + width) - 1) // (d + width + 1)


LOW_RANK_COLUMN_BLOCKS = ColumnRule("low-rank-columns")
"""w and a block of c columns of W resident; a row of K and V's block (or Q, O's block, den)."""


@dataclass(frozen=True)
class ColumnBackwardRule:
    """How the column-blocked low-rank backward sizes its blocks: columns of W or dW, rows.

    The pass keeps w and dw (2r words) and one block of ``c`` columns of W or of dW (r c
    words) resident, and streams rows of at most 2d + 2c + 2 words (Q, dQ, dO's block,
    O's block, den and D; or K, dK, V's and dV's blocks) with two feature words. So
    ``c = floor((M - 2r - 4d - 6) / (r + 4))`` (two rows fit beside the block) and, with
    the block of ``min(c, d)`` columns in place, ``floor((M - r (2 + min(c, d)) - 2) /
    (2d + 2 min(c, d) + 2)) >= 2`` rows.

    Examples
    --------
    >>> LOW_RANK_COLUMN_BACKWARD_BLOCKS.columns(561, 32, 4096)
    5
    >>> LOW_RANK_COLUMN_BACKWARD_BLOCKS.rows(561, 32, 4096)
    2
    """

    label: str

    def columns(self, r, d, M):
        """Columns of W (or dW) per block (0 or less when M holds no block of one column)."""
        return _floor_div(M - 2 * r - 4 * d - 6, r + 4)

    def least_memory(self, r, d):
        """The least M with a block of one column: ``3r + 4d + 10``."""
        return 3 * r + 4 * d + 10

    def rows(self, r, d, M):
        """Rows per block beside a block of ``min(columns, d)`` columns (ints only)."""
        width = min(self.columns(r, d, M), d)
        return (M - r * (2 + width) - 2) // (2 * d + 2 * width + 2)


LOW_RANK_COLUMN_BACKWARD_BLOCKS = ColumnBackwardRule("low-rank-columns backward")
"""w, dw and a block of c columns of W or dW resident; a row of Q, dQ, dO's and O's blocks,
den and D (or of K, dK, V's and dV's blocks)."""


@dataclass(frozen=True)
class StreamRule:
    """attnio's row-streaming schedules: one resident block, the other side streamed by rows.

    A block of ``floor(M / words(d)) - reserve`` resident rows, each costing ``words(d)``;
    the ``reserve`` rows' worth of words holds what streams (at most ``fixed(d)`` words,
    ``fixed(d) <= reserve * words(d)``). The forward pass keeps query rows (q_i, the output
    row o_i and the running log-sum-exp L_i: 2d + 1 words each) and streams k_j, v_j (2d)
    with scores handled d rows at a time (2d scratch): fixed 4d. The backward pass keeps
    key rows (k_j, v_j, dk_j, dv_j: 4d words each) and streams q_i, dO_i, dQ_i, L_i, D_i
    (3d + 2) with d keys at a time (2d scratch): fixed 5d + 2. The block is a plain floor
    of M over a constant minus a constant, the shape z3 bounds well.

    Examples
    --------
    >>> ROW_STREAMING_FORWARD_BLOCKS.block(4, 100), ROW_STREAMING_BACKWARD_BLOCKS.block(4, 100)
    (9, 4)
    """

    label: str
    words: Callable
    fixed: Callable
    reserve: int = 2

    def least_memory(self, d):
        """The least M with a block of one row."""
        return (self.reserve + 1) * self.words(d)

    def block(self, d, M):
        """Rows per resident block (0 or less when M is too small)."""
        return _floor_div(M, self.words(d)) - self.reserve


ROW_STREAMING_FORWARD_BLOCKS = StreamRule(
    "row-streaming forward", lambda d: 2 * d + 1, lambda d: 4 * d
)
"""Query rows q_i, o_i, L_i resident; k_j, v_j streamed; scores d rows at a time."""

ROW_STREAMING_BACKWARD_BLOCKS = StreamRule(
    "row-streaming backward", lambda d: 4 * d, lambda d: 5 * d + 2
)
"""Key rows k_j, v_j, dk_j, dv_j resident; q_i, dO_i, dQ_i, L_i, D_i streamed; d keys at a time."""


@dataclass(frozen=True)
class SweepRule:
    """One sweep of attnio's two-sweep backward: resident rows and a fixed streamed part.

    A block of ``floor((M - fixed(d)) / words(d))`` resident rows, each costing
    ``words(d)`` words, beside ``fixed(d)`` words of what streams past it and its scalar
    scratch: the largest block that fits exactly (:mod:`attnio.algorithms.streaming`).

    Examples
    --------
    >>> TWO_SWEEP_KEY_BLOCKS.block(64, 4096), TWO_SWEEP_QUERY_BLOCKS.block(64, 4096)
    (15, 20)
    >>> TWO_SWEEP_KEY_BLOCKS.least_memory(4)
    28
    """

    label: str
    words: Callable
    fixed: Callable

    def least_memory(self, d):
        """The least M with a block of one row."""
        return self.words(d) + self.fixed(d)

    def block(self, d, M):
        """Rows per resident block (0 or less when M is too small)."""
        return _floor_div(M - self.fixed(d), self.words(d))


TWO_SWEEP_KEY_BLOCKS = SweepRule("two-sweep backward", lambda d: 4 * d, lambda d: 2 * d + 4)
"""Sweep 1: key rows k_j, v_j, dk_j, dv_j resident (4d words a row); q_i, dO_i, L_i, D_i
stream (2d + 2) with one P_ij and one dS_ij of scratch (2)."""

TWO_SWEEP_QUERY_BLOCKS = SweepRule("two-sweep backward", lambda d: 3 * d + 2, lambda d: 2 * d + 2)
"""Sweep 2: query rows q_i, dO_i, dq_i, L_i, D_i resident (3d + 2 words a row); k_j, v_j
stream (2d) with one P_ij and one dS_ij of scratch (2)."""


SCORE_PANEL_BLOCKS = SweepRule("score-panel forward", lambda d: d + 3, lambda d: d)
"""Both passes of the score-panel forward: query rows resident with one of q_i or o_i
(d words) and m_i, l_i and a score word (3); one k_j or v_j row streams (d)."""


@dataclass(frozen=True)
class StationaryRule:
    """Output-stationary square tiles: one t x t output tile and ``vectors`` vectors of t words.

    The side is ``t = floor(sqrt(M)) - h`` for ``vectors = 2h``, so that
    ``t^2 + 2 h t = floor(sqrt(M))^2 - h^2 <= M``. It is the largest side that fits except
    when ``M + h^2`` reaches the next square (then one less): the exact largest,
    ``floor(sqrt(M + h^2)) - h``, puts a sum under the root, which z3 could not bound (the
    tightness obligation stayed unknown), while ``floor(sqrt(M))`` is a plain floor of a
    root of M, which it bounds. The least M with a side of 1 is ``(h + 1)^2``.

    Examples
    --------
    >>> OUTPUT_STATIONARY_TILES.side(9), OUTPUT_STATIONARY_TILES.side(100)
    (1, 8)
    >>> OUTPUT_STATIONARY_TILES.words(8), OUTPUT_STATIONARY_TILES.least_memory()
    (96, 9)
    """

    label: str
    vectors: int

    def __post_init__(self) -> None:
        if self.vectors < 0 or self.vectors % 2:
            raise ValueError(f"vectors={self.vectors!r} must be even and nonnegative")

    def words(self, side):
        """Words the resident tile and vectors of side ``side`` take."""
        return side * side + self.vectors * side

    def least_memory(self) -> int:
        """The least M with a tile of side 1: ``(h + 1)^2``."""
        return (self.vectors // 2 + 1) ** 2

    def side(self, M):
        """The tile side: ``isqrt(M) - h`` for an int (h = vectors / 2), a floor symbolically."""
        half = self.vectors // 2
        if isinstance(M, sp.Basic):
            return sp.floor(sp.sqrt(M)) - half
        return math.isqrt(M) - half


OUTPUT_STATIONARY_TILES = StationaryRule("output-stationary forward", 4)
"""A t x t tile resident with four vectors of t words. Stage 1 (a tile of S = Q K^T): a
column of Q and a row of K^T streaming past it, the row band's running maximum and sum,
and (after the stream) the tile's row maxima. Stage 2 (a tile of O = D^{-1} A V): a column
of A and a row of V streaming past it, the row band's log-sum-exp and the rescaling
factors of one column band of A."""

OUTPUT_STATIONARY_BACKWARD_TILES = StationaryRule("output-stationary backward", 4)
"""The backward pass's rule: a t x t tile resident with at most four vectors of t words. The
P stage: a column of Q and of K^T and the row band's L. The dS stage: a column of dO, of
V^T and (first tile of a band) of O, and the band's D = rowsum(dO * O); then one row of P.
The dV, dK, dQ stages: a column slice of P or dS and a row slice of dO, Q or K."""
