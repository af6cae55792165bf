"""Terms that both the catalog and the count records use, typed once.

The growth terms are the non-compulsory parts of the bounds: a bound's order is
the compulsory ``nd`` plus one of them (:data:`FLASH_ORDER` and its siblings say
so in their names). The catalog's lower bounds and the exact counts of
:mod:`attnio.bounds.counts` read them from here.

References
----------
SY24 Theorem 3.1 (forward); LLSSZ24 (backward, large and small cache).
"""

from __future__ import annotations

import sympy as sp

from .symbols import M, Z, d, n

__all__ = [
    "BACKWARD_LARGE",
    "BACKWARD_SMALL",
    "BACKWARD_SMALL_WITH_ND",
    "CACHE_BOUNDARY",
    "FA2_NOTE",
    "FLASH_ORDER",
    "FORWARD_LARGE",
    "FORWARD_SMALL",
    "FORWARD_SMALL_WITH_ND",
    "KEYS_TOUCHED",
    "STANDARD_ORDER",
]

CACHE_BOUNDARY = d**2
"""The M where the small cache (M < d^2) ends and the large cache (M >= d^2) begins."""

FORWARD_LARGE = n**2 * d**2 / M
"""Forward growth term when M >= d^2 (no compulsory nd)."""
FORWARD_SMALL = n**2 * d / sp.sqrt(M)
"""Forward growth term when M < d^2 (no compulsory nd)."""
BACKWARD_LARGE = (n**2 * d**2 + n * d**3) / M
"""Backward growth term when M >= d^2 (no compulsory nd)."""
BACKWARD_SMALL = (n**2 * d + n * d**2) / sp.sqrt(M)
"""Backward growth term when M < d^2 (no compulsory nd)."""

FLASH_ORDER = n * d + FORWARD_LARGE
"""nd + n^2 d^2 / M: the order of every FlashAttention count, forward and backward.

The backward counts have no n d^3 / M term (BACKWARD_LARGE's), which is at most
nd when M >= d^2."""
FORWARD_SMALL_WITH_ND = n * d + FORWARD_SMALL
"""nd + n^2 d / sqrt(M)."""
BACKWARD_SMALL_WITH_ND = n * d + BACKWARD_SMALL
"""nd + (n^2 d + n d^2) / sqrt(M)."""
STANDARD_ORDER = n * d + n**2 + FORWARD_SMALL
"""nd + n^2 + n^2 d / sqrt(M): the standard algorithm writes the n x n scores."""

KEYS_TOUCHED = sp.ceiling(Z / n)
"""Some row has at least ceil(Z / n) allowed keys, so at least that many keys are used."""

FA2_NOTE = "FlashAttention-2 formulation: inputs Q, K, V, O, dO, L; outputs dQ, dK, dV."
"""The backward records' formulation (D23): what they read and write."""
