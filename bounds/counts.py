"""Exact I/O counts of attnio's algorithms, as upper-bound records of the catalog.

Each record is the closed-form number of words the algorithm of
``attnio.algorithms`` moves (loads plus stores) on the two-level machine, with
every ceiling of a partial last block; the machine reproduces it exactly
(tests/test_flash.py and siblings, ``attnio verify``). This module imports
nothing of attnio but :mod:`attnio.bounds`: the algorithms read these records,
never the reverse.

Block and tile sizes are the rules of :mod:`attnio.bounds.blocks`, which the
algorithms read too: FlashAttention blocks, square tiles (``T = floor(sqrt(M / 3))``
standard, ``floor(sqrt(M / 4))`` square tiling and tiled backward,
``floor(sqrt(M)) - 2`` output-stationary) and the low-rank blocks.
"""

from __future__ import annotations

import sympy as sp

from .blocks import (
    FLASH2_BACKWARD_BLOCKS,
    FLASH2_FORWARD_BLOCKS,
    FLASH_BACKWARD_BLOCKS,
    FLASH_FORWARD_BLOCKS,
    LOW_RANK_BACKWARD_BLOCKS,
    LOW_RANK_FORWARD_BLOCKS,
    OUTPUT_STATIONARY_TILES,
    ROW_STREAMING_BACKWARD_BLOCKS,
    ROW_STREAMING_FORWARD_BLOCKS,
    SQUARE_TILES,
    STANDARD_TILES,
)
from .record import Bound, Cache, Kind, Pass, Regime, Status
from .symbols import M, Z, d, n, r, s, s_c
from .terms import (
    BACKWARD_SMALL_WITH_ND,
    FA2_NOTE,
    FLASH_ORDER,
    FORWARD_SMALL_WITH_ND,
    KEYS_TOUCHED,
    STANDARD_ORDER,
)

FWD, BWD = Pass.FORWARD, Pass.BACKWARD

# ------------------------------------------------------------------ block sizes
FLASH_FORWARD_COLUMNS = FLASH_FORWARD_BLOCKS.large_block(d, M)
FLASH_BACKWARD_COLUMNS = FLASH_BACKWARD_BLOCKS.large_block(d, M)
FLASH2_FORWARD_ROWS = FLASH2_FORWARD_BLOCKS.large_block(d, M)
FLASH2_BACKWARD_COLUMNS = FLASH2_BACKWARD_BLOCKS.large_block(d, M)
STANDARD_TILE = STANDARD_TILES.side(M)
SQUARE_TILE = SQUARE_TILES.side(M)
LOW_RANK_FEATURES = LOW_RANK_FORWARD_BLOCKS.features(d, M)
LOW_RANK_ROWS = LOW_RANK_FORWARD_BLOCKS.rows(d, M)
LOW_RANK_RESIDENT = LOW_RANK_FORWARD_BLOCKS.resident(r, d, M)
"""[W | w] (r x (d + 1)), one feature row and one row of K, V (or of Q, O, den) fit."""


def _blocks(size: sp.Expr, block: sp.Expr) -> sp.Expr:
    return sp.ceiling(size / block)


# ------------------------------------------------------------------ the counts
FLASH_FORWARD_INNER = _blocks(n, FLASH_FORWARD_COLUMNS) * n * (3 * d + 4)
FLASH_BACKWARD_INNER = _blocks(n, FLASH_BACKWARD_COLUMNS) * n * (5 * d + 1)

FLASH_FORWARD = 3 * n * d + 2 * n + FLASH_FORWARD_INNER
"""Initialise O, l, m (nd + 2n); K, V once (2nd); per (i, j): Q_i, O_i, l_i, m_i in and
O_i, l_i, m_i out."""

FLASH_BACKWARD = 5 * n * d + FLASH_BACKWARD_INNER
"""Initialise dQ (nd); K, V in and dK, dV out once (4nd); per (i, j): Q_i, O_i, dO_i,
dQ_i, L_i in and dQ_i out."""

FLASH2_FORWARD = 2 * n * d + n + 2 * n * d * _blocks(n, FLASH2_FORWARD_ROWS)
"""Q in, O and L out once; K and V in once per query block."""

FLASH2_BACKWARD = 7 * n * d + n + _blocks(n, FLASH2_BACKWARD_COLUMNS) * n * (4 * d + 2)
"""Dvec (2nd + n), initialise dQ (nd), K, V, dK, dV (4nd); per (i, j): Q_i, dO_i, dQ_i,
L_i, Dvec_i in and dQ_i out."""

ROW_STREAMING_FORWARD = (
    2 * n * d + n + 2 * n * d * _blocks(n, ROW_STREAMING_FORWARD_BLOCKS.block(d, M))
)
"""Q in, O and L out once; every key and value row once per resident query block."""

ROW_STREAMING_BACKWARD = (
    5 * n * d + n + _blocks(n, ROW_STREAMING_BACKWARD_BLOCKS.block(d, M)) * n * (4 * d + 2)
)
"""Dvec (2nd in, n out); K, V in and dK, dV out once (4nd); per resident key block, every
q_i, dO_i, L_i, Dvec_i in and dQ_i out, and dQ_i in for every block but the first (-nd)."""

_TN_STD, _TK_STD = _blocks(n, STANDARD_TILE), _blocks(d, STANDARD_TILE)
_TN_SQ, _TK_SQ = _blocks(n, SQUARE_TILE), _blocks(d, SQUARE_TILE)

STANDARD_FORWARD = 3 * _TN_STD * n * d + (4 + _TK_STD) * n**2 + n * d
"""S = Q K^T (2 T_n nd in, n^2 out), two softmax sweeps (2n^2 in, n^2 out), O = P V
(T_k n^2 + T_n nd in, nd out)."""

STANDARD_BACKWARD = 5 * n * d + 3 * n + 7 * _TN_STD * n * d + (7 + 3 * _TK_STD) * n**2

SQUARE_TILING_FORWARD = 3 * _TN_SQ * n * d + (1 + _TK_SQ) * n**2 + 2 * n + n * d
"""A = exp(Q K^T) (2 T_n nd in, n^2 + n out), O = D^{-1} A V (T_k n^2 + T_n nd + n in, nd out)."""

_OUTPUT_STATIONARY_TILE = OUTPUT_STATIONARY_TILES.side(M)
_TN_OS, _TK_OS = _blocks(n, _OUTPUT_STATIONARY_TILE), _blocks(d, _OUTPUT_STATIONARY_TILE)

OUTPUT_STATIONARY_FORWARD = (
    3 * _TN_OS * n * d + (1 + _TK_OS) * n**2 + (1 + _TK_OS) * _TN_OS * n + 2 * n + n * d
)
"""Tiles of side t = floor(sqrt(M)) - 2, T_n = ceil(n/t), T_k = ceil(d/t). Stage 1: per
tile of S, a column of Q and of K^T per inner index (2 T_n nd in in all); the A tile, its row
maxima (T_n n) and, per row band, L (n) out. Stage 2: per row band L in (n); per tile of O,
per column band of A its row maxima (T_k T_n n in all), per key j a column of A and a row of
V (T_k n^2 + T_n nd); O out (nd)."""

_ROW_WEIGHTED = s * n * _TN_SQ
"""Sum over the nonzero tiles of the tile's height (rows): s = that sum / (n T_n)."""
_COLUMN_WEIGHTED = s_c * n * _TN_SQ
"""Sum over the nonzero tiles of the tile's width (keys): s_c = that sum / (n T_n)."""

SPARSE_SQUARE_TILING_FORWARD = (
    (_ROW_WEIGHTED + 2 * _COLUMN_WEIGHTED) * d + (1 + _TK_SQ) * Z + 2 * n + n * d
)
"""Per nonzero tile (I, J) of height r_I and width c_J: Q_I (r_I d) and K_J (c_J d) in and
the A tile (r_I c_J) out, then the A tile (T_k r_I c_J) and V_J (c_J d) in; every row band:
D out and in (2n); O out (nd). The tile areas sum to Z."""

SPARSE_SQUARE_TILING_MASK = sp.And(
    s <= 1,
    s_c <= 1,
    Z <= n**2,
    n <= _ROW_WEIGHTED,
    KEYS_TOUCHED <= _COLUMN_WEIGHTED,
    Z <= SQUARE_TILE * _ROW_WEIGHTED,
    Z <= SQUARE_TILE * _COLUMN_WEIGHTED,
)
"""Relations that hold for every tile mask with no empty row band (tests/test_masks.py):
both weighted sums are at most n T_n and Z at most n^2; every row band has a nonzero tile,
so the heights sum to at least n; the nonzero tiles cover every allowed key, and some
query row allows ceil(Z / n) of them; a tile is at most T wide and at most T high."""

TILED_BACKWARD = 5 * n * d + 3 * n + 7 * _TN_SQ * n * d + (3 + 3 * _TK_SQ) * n**2

SPARSE_TILED_BACKWARD = (
    5 * n * d + 3 * n + (4 * _ROW_WEIGHTED + 3 * _COLUMN_WEIGHTED) * d + (3 + 3 * _TK_SQ) * Z
)
"""Dvec, the L and Dvec rows and the dQ, dK, dV stores as dense (5nd + 3n). Per nonzero tile
(I, J) of height r_I and width c_J: Q_I, dO_I (for P, dS) and dO_I, Q_I (for dV, dK) in,
r_I d each; K_J, V_J, K_J (for P, dS, dQ) in, c_J d each; the P tile out and in for dS, the
dS tile out (3 r_I c_J); P in T_k times for dV, dS T_k times each for dQ and dK
(3 T_k r_I c_J)."""

LOW_RANK_FORWARD = sp.Piecewise(
    (4 * n * d, LOW_RANK_RESIDENT),
    (
        2 * n * d * _blocks(r, LOW_RANK_FEATURES)
        + r * (d + 1) * (1 + _blocks(n, LOW_RANK_ROWS))
        + 2 * n * d,
        True,
    ),
)

LOW_RANK_BACKWARD_RESIDENT = LOW_RANK_BACKWARD_BLOCKS.resident(r, d, M)
"""[W | w] and [dW | dw] (r x (d + 1) each), two feature rows and one row of work fit."""
LOW_RANK_BACKWARD_FEATURES = LOW_RANK_BACKWARD_BLOCKS.features(d, M)
LOW_RANK_BACKWARD_ROWS = LOW_RANK_BACKWARD_BLOCKS.rows(d, M)

LOW_RANK_BACKWARD = sp.Piecewise(
    (9 * n * d, LOW_RANK_BACKWARD_RESIDENT),
    (
        2 * n * d * _blocks(r, LOW_RANK_BACKWARD_FEATURES)
        + 7 * n * d
        + 2 * r * (d + 1)
        + 5 * r * (d + 1) * _blocks(n, LOW_RANK_BACKWARD_ROWS),
        True,
    ),
)
"""Resident: K, V twice, Q, dO once in; dQ, dK, dV out. Blocked: [W | w] built per feature
block (2nd each) and written, [dW | dw] zeroed; per query row block [W | w] read twice and
[dW | dw] read and written; per key row block [dW | dw] read."""


def _count(
    name: str,
    pass_: Pass,
    cache: Cache,
    asymptotic: sp.Expr,
    explicit: sp.Expr,
    conditions: sp.Basic,
    source: str,
    algorithm: str,
    notes: str = "",
    regime: Regime = Regime.DENSE,
    reduces_to: str | None = None,
) -> Bound:
    return Bound(
        name=name,
        kind=Kind.UPPER,
        regime=regime,
        pass_=pass_,
        cache=cache,
        asymptotic=asymptotic,
        explicit=explicit,
        conditions=conditions,
        source=source,
        status=Status.DERIVED,
        algorithm=algorithm,
        notes="Exact count of words moved, reproduced by the two-level machine. " + notes,
        reduces_to=reduces_to,
    )


COUNTS: tuple[Bound, ...] = (
    _count(
        "standard-forward-count",
        FWD,
        Cache.ANY,
        STANDARD_ORDER,
        STANDARD_FORWARD,
        M >= 3,
        "DFE22 Alg. 0; attnio.algorithms.standard",
        "standard",
        "Tiles of side floor(sqrt(M/3)); S and P written to slow memory.",
    ),
    _count(
        "standard-backward-count",
        BWD,
        Cache.ANY,
        STANDARD_ORDER,
        STANDARD_BACKWARD,
        M >= 3,
        "DFE22 Alg. 3; attnio.algorithms.standard",
        "standard",
        FA2_NOTE + " S, P, dP, dS written to slow memory.",
    ),
    _count(
        "flash-forward-count",
        FWD,
        Cache.ANY,
        FLASH_ORDER,
        FLASH_FORWARD,
        FLASH_FORWARD_BLOCKS.words(d) <= M,
        "DFE22 Alg. 1; attnio.algorithms.flash",
        "flash",
        "Block sizes B_c = floor(M/(5d+4)), B_r = min(B_c, d): DFE22's ceil(M/4d) "
        "overflows M words by the score tile and row statistics. Writes O, l, m.",
    ),
    _count(
        "flash-backward-count",
        BWD,
        Cache.ANY,
        FLASH_ORDER,
        FLASH_BACKWARD,
        FLASH_BACKWARD_BLOCKS.words(d) <= M,
        "DFE22 Alg. 4; attnio.algorithms.flash",
        "flash",
        FA2_NOTE
        + " B_c = floor(M/(10d+2)), B_r = min(B_c, d); only dQ initialised in slow memory.",
    ),
    _count(
        "flash2-forward-count",
        FWD,
        Cache.ANY,
        FLASH_ORDER,
        FLASH2_FORWARD,
        FLASH2_FORWARD_BLOCKS.words(d) <= M,
        "D23 Alg. 1; attnio.algorithms.flash",
        "flash2",
        "B_r = floor(M/(5d+3)), B_c = min(B_r, d). Writes O and L.",
    ),
    _count(
        "flash2-backward-count",
        BWD,
        Cache.ANY,
        FLASH_ORDER,
        FLASH2_BACKWARD,
        FLASH2_BACKWARD_BLOCKS.words(d) <= M,
        "D23 Alg. 2; attnio.algorithms.flash",
        "flash2",
        FA2_NOTE + " B_c = floor(M/(9d+2)), B_r = min(B_c, d).",
    ),
    _count(
        "row-streaming-forward-count",
        FWD,
        Cache.ANY,
        FLASH_ORDER,
        ROW_STREAMING_FORWARD,
        ROW_STREAMING_FORWARD_BLOCKS.least_memory(d) <= M,
        "attnio.algorithms.streaming; attnio's own schedule: proofs/derivations/lower-sharp.md",
        "row-streaming",
        "A block of floor(M/(2d + 1)) - 2 query rows stays resident with its output rows "
        "and running log-sum-exp; K and V stream past it one row at a time. Leading term "
        "2 (2d + 1) n^2 d / M, 2 + 1/d times the sharp lower bound's 2 n^2 d^2 / M. "
        "Writes O and L.",
    ),
    _count(
        "row-streaming-backward-count",
        BWD,
        Cache.ANY,
        FLASH_ORDER,
        ROW_STREAMING_BACKWARD,
        ROW_STREAMING_BACKWARD_BLOCKS.least_memory(d) <= M,
        "attnio.algorithms.streaming; attnio's own schedule: proofs/derivations/lower-sharp.md",
        "row-streaming",
        FA2_NOTE + " A block of floor(M/(4d)) - 2 key rows stays resident with its "
        "dK and dV rows; the query side streams past it one row at a time. Leading term "
        "4d (4d + 2) n^2 / M, 4 - 2/(d + 1) times the sharp lower bound's 4 d (d + 1) n^2 / M.",
    ),
    _count(
        "square-tiling-forward-count",
        FWD,
        Cache.SMALL,
        FORWARD_SMALL_WITH_ND + n**2,
        SQUARE_TILING_FORWARD,
        M >= 4,
        "SY24 Alg. 1; attnio.algorithms.tiling",
        "square-tiling",
        "Tiles of side floor(sqrt(M/4)); A = exp(Q K^T) written.",
    ),
    _count(
        "output-stationary-forward-count",
        FWD,
        Cache.SMALL,
        FORWARD_SMALL_WITH_ND + n**2,
        OUTPUT_STATIONARY_FORWARD,
        OUTPUT_STATIONARY_TILES.least_memory() <= M,
        "attnio.algorithms.stationary; attnio's own schedule",
        "output-stationary",
        "Both products output-stationary: a tile of S, then of O, of side "
        "floor(sqrt(M)) - 2 stays resident while one column of each factor streams "
        "past it. A is stored shifted by its tile's row maxima, which are stored too and "
        "undone in the second stage. Leading term 4 n^2 d / sqrt(M) + n^2, half of square "
        "tiling's 8 n^2 d / sqrt(M). Writes A, its tile row maxima, O and L.",
    ),
    _count(
        "tiled-backward-count",
        BWD,
        Cache.SMALL,
        BACKWARD_SMALL_WITH_ND + n**2,
        TILED_BACKWARD,
        M >= 4,
        "attnio.algorithms.tiling (stand-in for LLSSZ24 Alg. 6)",
        "tiled-backward",
        FA2_NOTE + " Square tiling of every backward product, tiles of side floor(sqrt(M/4)); "
        "P and dS written. n^2 <= n^2 d / sqrt(M) when M < d^2, so the count is "
        "O((n^2 d + n d^2) / sqrt(M)) there.",
    ),
    _count(
        "block-sparse-flash-forward-count",
        FWD,
        Cache.ANY,
        n * d + s * n**2 * d**2 / M,
        3 * n * d + 2 * n + s * FLASH_FORWARD_INNER,
        sp.And(FLASH_FORWARD_BLOCKS.words(d) <= M, s <= 1),
        "DFE22 Prop 4 (Alg. 1 with empty blocks skipped); attnio.algorithms.sparse",
        "block-sparse-flash",
        "s = fraction of nonzero blocks of the (T_r x T_c) block mask, each block weighted "
        "by its number of rows (the plain fraction when B_r divides n).",
        regime=Regime.SPARSE,
        reduces_to="flash-forward-count",
    ),
    _count(
        "block-sparse-flash-backward-count",
        BWD,
        Cache.ANY,
        n * d + s * n**2 * d**2 / M,
        5 * n * d + s * FLASH_BACKWARD_INNER,
        sp.And(FLASH_BACKWARD_BLOCKS.words(d) <= M, s <= 1),
        "attnio.algorithms.sparse (DFE22 Alg. 4 with empty blocks skipped)",
        "block-sparse-flash",
        FA2_NOTE + " s as for the forward count, with the backward block sizes.",
        regime=Regime.SPARSE,
        reduces_to="flash-backward-count",
    ),
    _count(
        "sparse-square-tiling-forward-count",
        FWD,
        Cache.SMALL,
        n * d + Z + sp.Max(s, s_c) * n**2 * d / sp.sqrt(M),
        SPARSE_SQUARE_TILING_FORWARD,
        sp.And(M >= 4, SPARSE_SQUARE_TILING_MASK),
        "SY24 Alg. 1 with empty tiles skipped; attnio.algorithms.sparse",
        "sparse-square-tiling",
        "Tiles of side T = floor(sqrt(M/4)), the last row band and column band partial; "
        "s and s_c = fractions of nonzero tiles weighted by their rows and by their "
        "columns, Z = allowed pairs of the block-constant mask; exact for every n.",
        regime=Regime.SPARSE,
        reduces_to="square-tiling-forward-count",
    ),
    _count(
        "sparse-square-tiling-backward-count",
        BWD,
        Cache.SMALL,
        n * d + Z + sp.Max(s, s_c) * (n**2 * d + n * d**2) / sp.sqrt(M),
        SPARSE_TILED_BACKWARD,
        sp.And(M >= 4, SPARSE_SQUARE_TILING_MASK),
        "attnio.algorithms.sparse (tiled backward with empty tiles skipped)",
        "sparse-square-tiling",
        FA2_NOTE + " s, s_c and Z as for the forward count; exact for every n.",
        regime=Regime.SPARSE,
        reduces_to="tiled-backward-count",
    ),
    _count(
        "low-rank-forward-count",
        FWD,
        Cache.ANY,
        n * d + r * d + n * r * d**2 / M,
        LOW_RANK_FORWARD,
        sp.Or(LOW_RANK_RESIDENT, 4 * d + 2 <= M),
        "AS23 polynomial method (docs/results.md#approximate); attnio.algorithms.approximate",
        "low-rank",
        "r = C(d + g, g) features. 4nd when [W | w] stays in fast memory; otherwise "
        "feature blocks of floor(M/(2(d+2))) rows are written once and read back by "
        "every block of floor(M/(2(2d+1))) query rows.",
        regime=Regime.APPROXIMATE,
    ),
    _count(
        "low-rank-backward-count",
        BWD,
        Cache.ANY,
        n * d + r * d + n * r * d**2 / M,
        LOW_RANK_BACKWARD,
        sp.Or(LOW_RANK_BACKWARD_RESIDENT, sp.And(8 * d + 2 <= M, 4 * d + 8 <= M)),
        "attnio.algorithms.approximate (gradient of the polynomial-method attention)",
        "low-rank",
        "Gradient of the approximate output sum(dO * O~) w.r.t. Q, K, V (not of exact "
        "attention); O~ is recomputed, so O and L are not read. 9nd when [W | w] and "
        "[dW | dw] stay in fast memory; otherwise feature blocks of floor(M/(4(d+2))) rows "
        "and row blocks of floor(M/(2(4d+1))).",
        regime=Regime.APPROXIMATE,
    ),
)
"""The exact counts, one record per algorithm and pass."""
