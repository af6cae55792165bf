"""The symbols every bound is written in, declared once with their assumptions.

Python names avoid sympy's reserved single letters (``I``, ``N``, ``S``, ``E``,
``O``); docs/notation.md explains each printed name.

=========  ==========================================================  ==============
symbol     meaning                                                     assumptions
=========  ==========================================================  ==============
``n``      sequence length                                             positive integer
``d``      head dimension                                              positive integer
``M``      fast-memory size in words                                   positive integer
``Z``      allowed (i, j) pairs of a sparse mask (nonzeros of S)       positive integer
``Z_in``   nonzeros of the sparse inputs Q, K (LLSSZ24's setting)      positive integer
``Z_QK``   nonzeros of the score matrix Q K^T (LLSSZ24's setting)      positive integer
``s``      fraction of nonzero blocks of a block mask (DFE22 Prop 4),  positive real, <= 1
           each block weighted by its number of rows (DFE22's plain
           fraction when the block size divides n)
``s_c``    the same fraction with each block weighted by its number    positive real, <= 1
           of columns (sparse square tiling's key-side transfers)
``w``      width of a sliding-window or band mask (bounds/masks.py)    positive integer
``B``      bound on the entries of Q and K (approximate attention)     positive real
``eps``    additive error of approximate attention                     positive real
``g``      degree of the polynomial approximating exp                  nonnegative integer
``r``      rank of the feature map, C(d + g, g) for the standard map   positive integer
``n_q``    query rows of one head (decode: 1 to 8; prefill: n)         positive integer
``n_kv``   key and value rows of one head (the KV cache length)        positive integer
``h_q``    query heads                                                 positive integer
``h_kv``   key/value heads; h_q is a multiple of h_kv (GQA; MQA when   positive integer
           h_kv = 1; MHA when h_kv = h_q)
=========  ==========================================================  ==============
"""

from __future__ import annotations

import sympy as sp

n = sp.Symbol("n", integer=True, positive=True)
d = sp.Symbol("d", integer=True, positive=True)
M = sp.Symbol("M", integer=True, positive=True)

Z = sp.Symbol("Z", integer=True, positive=True)
Z_in = sp.Symbol("Z_in", integer=True, positive=True)
Z_QK = sp.Symbol("Z_QK", integer=True, positive=True)
s = sp.Symbol("s", positive=True)
s_c = sp.Symbol("s_c", positive=True)
w = sp.Symbol("w", integer=True, positive=True)

entry_bound = sp.Symbol("B", positive=True)
eps = sp.Symbol("epsilon", positive=True)
g = sp.Symbol("g", integer=True, nonnegative=True)
r = sp.Symbol("r", integer=True, positive=True)

n_q = sp.Symbol("n_q", integer=True, positive=True)
n_kv = sp.Symbol("n_kv", integer=True, positive=True)
h_q = sp.Symbol("h_q", integer=True, positive=True)
h_kv = sp.Symbol("h_kv", integer=True, positive=True)

ALL: dict[str, sp.Symbol] = {
    sym.name: sym
    for sym in (n, d, M, Z, Z_in, Z_QK, s, s_c, w, entry_bound, eps, g, r, n_q, n_kv, h_q, h_kv)
}
"""Every symbol by its printed name: the keys ``Bound.evaluate`` accepts."""

MEANINGS: dict[str, str] = {
    "Z": "the number of allowed $(i, j)$ pairs of the sparse mask (nonzeros of $S$)",
    "Z_in": "the number of nonzeros of the sparse inputs $Q$, $K$",
    "Z_QK": "the number of nonzeros of the score matrix $Q K^{T}$",
    "s": "the fraction of nonzero blocks of a block mask, each block weighted by its rows",
    "s_c": "the same fraction with each block weighted by its columns",
    "w": "the width of a sliding-window or band mask",
    "B": "a bound on the entries of $Q$ and $K$ (and of $V$, $dO$ where a record says so)",
    "epsilon": "the additive entrywise error of the approximation",
    "g": "the degree of the polynomial approximating $\\exp$",
    "r": "the rank of the feature map, $\\binom{d+g}{g}$ for the standard map",
    "n_q": "the number of query rows of one head",
    "n_kv": "the number of key and value rows of one head",
    "h_q": "the number of query heads",
    "h_kv": "the number of key/value heads, a divisor of $h_q$",
}
"""What each symbol beyond n, d and M means, in a table caption's words (LaTeX text)."""

INTEGER_NAMES = frozenset(name for name, sym in ALL.items() if sym.is_integer)
"""Names of the symbols that only take integer values."""

NONNEGATIVE_NAMES = frozenset({"g"})
"""Names of the symbols that may be zero; every other symbol must be positive."""


def feature_rank(dim: sp.Expr | int, degree: sp.Expr | int) -> sp.Expr:
    """Return the number of monomials of degree at most ``degree`` in ``dim`` variables.

    This is the rank r = C(d + g, g) of the polynomial feature map of
    docs/notation.md (approximate attention).

    Examples
    --------
    >>> feature_rank(2, 2)
    6
    """
    return sp.binomial(sp.sympify(dim) + degree, degree)
