"""Block sizes of attnio's FlashAttention algorithms, typed once.

DFE22 takes ``B_c = ceil(M / 4d)``, ``B_r = min(B_c, d)``, which overflows M
words by the score tile and the row statistics. attnio keeps the shape of the
rule and divides M by the exact number of words one unit of block size costs,
so the peak is provably at most M. The count records of
:mod:`attnio.bounds.counts` read these rules symbolically and the algorithms of
:mod:`attnio.algorithms.flash` read them numerically: one rule serves both.

=========================  ======================  =============================
algorithm / pass           large block             small block
=========================  ======================  =============================
flash forward              B_c = floor(M/(5d+4))   B_r = min(B_c, d)
flash backward             B_c = floor(M/(10d+2))  B_r = min(B_c, d)
flash2 forward             B_r = floor(M/(5d+3))   B_c = min(B_r, d)
flash2 backward            B_c = floor(M/(9d+2))   B_r = min(B_c, d)
=========================  ======================  =============================

References
----------
DFE22 Algorithms 1 and 4, Theorems 2 and 5; D23 Algorithms 1 and 2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import sympy as sp

__all__ = [
    "FLASH2_BACKWARD_BLOCKS",
    "FLASH2_FORWARD_BLOCKS",
    "FLASH_BACKWARD_BLOCKS",
    "FLASH_FORWARD_BLOCKS",
    "BlockRule",
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
