"""Element-level attention DAGs: every scalar operation is a vertex.

Each builder adds vertices stage by stage in the order of the formula (all
products, then all sums, then ...), which is the *natural schedule* that
:func:`attnio.pebble.player.play` plays by default: the unfused "standard
attention" order that materialises every intermediate (DFE22 Thm 2's baseline).
Each builder has a ``*_vertices`` function giving its vertex count as a sympy
expression in the symbols of :mod:`attnio.bounds.symbols`; the tests check it
against the built graph.

Conventions.

- Summation trees are binary: a sum of ``m`` terms takes ``m - 1`` addition
  vertices whatever the shape (``"chain"``: ((a + b) + c) + ...; ``"balanced"``:
  pairwise by levels, SY24 allows any shape). A sum of one term is that term.
- Operations with constants (a scale, adding a constant) are fused into the
  vertex that produces their operand: constants are not vertices.
- Labels: inputs ``"Q[i,l]"``; products ``"QK[i,j,l]"``; a tree's root carries
  the value's name ``"S[i,j]"`` and its inner additions ``"S[i,j]+t"``; the sum
  of a single computed term is that term, renamed ``"QK[0,0,0]=S[0,0]"``.
- Inputs are the sources (loaded), outputs the sinks (stored), as in
  docs/game.md. In the sparse builders the rows ``K[j]``, ``V[j]`` of a key
  ``j`` that no query attends to stay in the graph as isolated vertices (an
  isolated vertex is an input that is already a finished output; it costs 0).

References
----------
SY24 section 2 (the forward graph); D23 (the backward formulation, see
docs/notation.md); DFE22 Prop 4 (masks); AS23 and docs/notation.md (the feature map).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy as sp

from attnio.bounds.arguments import positive_integer
from attnio.bounds.record import Pass, Regime
from attnio.bounds.symbols import Z, d, feature_rank, g, n

from .dag import Dag
from .errors import PebbleParameterError

__all__ = [
    "BUILDERS",
    "BUILD_MAX_VERTICES",
    "KINDS",
    "TREE_SHAPES",
    "BuilderSpec",
    "approx_backward",
    "approx_backward_columns",
    "approx_backward_columns_vertices",
    "approx_backward_product",
    "approx_backward_product_vertices",
    "approx_backward_vertices",
    "approx_forward",
    "approx_forward_vertices",
    "attention_backward",
    "attention_backward_vertices",
    "attention_forward",
    "attention_forward_vertices",
    "blockwise_forward",
    "blockwise_forward_vertices",
    "build",
    "causal_mask",
    "estimate_vertices",
    "mask_from_spec",
    "masked_backward",
    "masked_streaming_forward",
    "online_forward",
    "online_forward_vertices",
    "sliding_forward_graph",
    "sparse_backward",
    "sparse_backward_vertices",
    "sparse_forward",
    "sparse_forward_vertices",
    "split_streaming_forward",
    "stationary_forward",
    "stationary_forward_vertices",
    "streaming_forward",
    "streaming_forward_vertices",
    "sy24_forward",
    "sy24_forward_vertices",
    "twopass_forward",
    "twopass_forward_vertices",
]

TREE_SHAPES = ("chain", "balanced")
"""Shapes of summation trees."""

nonempty_columns = sp.Symbol("c", integer=True, positive=True)
"""Keys attended to by at least one query (mask columns with an allowed entry)."""

key_block = sp.Symbol("B_c", integer=True, positive=True)
"""Keys per block of the online-softmax graph (FlashAttention-2's B_c)."""

weight_columns = sp.Symbol("c_W", integer=True, positive=True)
"""Columns of W and dW per block of the column-blocked low-rank backward's graph."""


class _Builder:
    """Collects labelled vertices and edges in a topological order."""

    def __init__(self, shape: str) -> None:
        if shape not in TREE_SHAPES:
            raise PebbleParameterError(f"tree={shape!r} must be one of {TREE_SHAPES}")
        self.shape = shape
        self.labels: list[str] = []
        self.heads: list[int] = []
        self.tails: list[int] = []
        self.computed: set[int] = set()

    def vertex(self, label: str, preds: tuple[int, ...] = ()) -> int:
        index = len(self.labels)
        self.labels.append(label)
        if preds:
            self.computed.add(index)
        for p in dict.fromkeys(preds):  # a repeated operand is one edge
            self.tails.append(p)
            self.heads.append(index)
        return index

    def tree(self, name: str, terms: list[int]) -> int:
        """Add a summation tree over ``terms``; return its root (labelled ``name``)."""
        count = len(terms)
        if count == 1:
            term = terms[0]
            if term in self.computed:  # the one term is the sum: name it so
                self.labels[term] = f"{self.labels[term]}={name}"
            return term
        made = 0

        def add(a: int, b: int) -> int:
            nonlocal made
            made += 1
            return self.vertex(name if made == count - 1 else f"{name}+{made}", (a, b))

        if self.shape == "chain":
            acc = terms[0]
            for t in terms[1:]:
                acc = add(acc, t)
            return acc
        level = list(terms)
        while len(level) > 1:
            nxt = [add(level[k], level[k + 1]) for k in range(0, len(level) - 1, 2)]
            if len(level) % 2:
                nxt.append(level[-1])
            level = nxt
        return level[0]

    def matrix(self, name: str, rows: int, cols: int) -> np.ndarray:
        out = np.empty((rows, cols), dtype=np.int64)
        for i in range(rows):
            for k in range(cols):
                out[i, k] = self.vertex(f"{name}[{i},{k}]")
        return out

    def dag(self) -> Dag:
        edges = np.stack(
            [np.asarray(self.tails, dtype=np.int64), np.asarray(self.heads, dtype=np.int64)],
            axis=1,
        )
        return Dag.from_edges(self.labels, edges)


GraphBuilder = _Builder
"""The collector of labelled vertices the builders share (:mod:`attnio.pebble.shapes` uses it)."""


def _grouped_inputs(b: _Builder, rows: int, keys: int, groups: int, d_: int) -> tuple:
    """Q of ``groups * rows`` rows and K, V of ``groups * keys`` rows: group g's query rows
    ``g rows ..`` read its keys ``g keys ..`` (one key/value head per group)."""
    return (
        b.matrix("Q", groups * rows, d_),
        b.matrix("K", groups * keys, d_),
        b.matrix("V", groups * keys, d_),
    )


def _check_size(**sizes: int) -> None:
    for name, value in sizes.items():
        positive_integer(name, value, PebbleParameterError)


def _check_mask(mask: object, n_: int | None) -> np.ndarray:
    """The mask as a boolean array; ``n_ = None`` takes any rows x keys shape."""
    array = np.asarray(mask)
    if n_ is None and (array.ndim != 2 or 0 in array.shape):
        raise PebbleParameterError(f"mask of shape {array.shape} must be a rows x keys matrix")
    if n_ is not None and array.shape != (n_, n_):
        raise PebbleParameterError(
            f"mask of shape {array.shape} must have shape (n, n) = ({n_}, {n_})"
        )
    if array.dtype != bool:
        if not np.isin(array, (0, 1)).all():
            raise PebbleParameterError("mask entries must be booleans or 0/1")
        array = array.astype(bool)
    empty = np.flatnonzero(~array.any(axis=1))
    if empty.size:
        raise PebbleParameterError(
            f"mask row {int(empty[0])} has no allowed key; every query must attend to a key "
            f"(rows without one: {empty[:5].tolist()})"
        )
    return array


def causal_mask(n_: int) -> np.ndarray:
    """The causal mask: query ``i`` attends to keys ``j <= i``.

    Examples
    --------
    >>> int(causal_mask(3).sum())
    6
    """
    _check_size(n=n_)
    return np.tril(np.ones((n_, n_), dtype=bool))


# --------------------------------------------------------------------- forward


def _forward(b: _Builder, n_: int, d_: int, allowed: np.ndarray) -> None:
    Q = b.matrix("Q", n_, d_)
    K = b.matrix("K", n_, d_)
    V = b.matrix("V", n_, d_)
    pairs = [(i, j) for i in range(n_) for j in range(n_) if allowed[i, j]]
    prod = {
        (i, j): [b.vertex(f"QK[{i},{j},{l}]", (Q[i, l], K[j, l])) for l in range(d_)]
        for i, j in pairs
    }
    S = {(i, j): b.tree(f"S[{i},{j}]", prod[i, j]) for i, j in pairs}
    A = {(i, j): b.vertex(f"exp[{i},{j}]", (S[i, j],)) for i, j in pairs}
    row = [[j for j in range(n_) if allowed[i, j]] for i in range(n_)]
    ell = [b.tree(f"rowsum[{i}]", [A[i, j] for j in row[i]]) for i in range(n_)]
    Ahat = {(i, j): b.vertex(f"P[{i},{j}]", (A[i, j], ell[i])) for i, j in pairs}
    pv = {
        (i, k): [b.vertex(f"PV[{i},{j},{k}]", (Ahat[i, j], V[j, k])) for j in row[i]]
        for i in range(n_)
        for k in range(d_)
    }
    for i in range(n_):
        for k in range(d_):
            b.tree(f"O[{i},{k}]", pv[i, k])


def attention_forward(n_: int, d_: int, *, tree: str = "chain") -> Dag:
    """The normalise-first element-level forward graph of dense attention, O = (D^{-1} A) V.

    Stages: inputs Q, K, V (n x d); products Q_il K_jl; a summation tree per
    S_ij; A_ij = exp(S_ij); row-sum trees l_i; normalisation P_ij = A_ij / l_i;
    products P_ij V_jk; summation trees O_ik (the outputs). No product P_ij V_jk
    exists before the whole row sum l_i; SY24's own graph (A V first, then the row
    scaling) is :func:`sy24_forward`, the online-softmax graph of the one-pass
    schedules :func:`online_forward` and :func:`streaming_forward`.

    Parameters
    ----------
    n_, d_ : int
        Sequence length and head dimension.
    tree : {"chain", "balanced"}
        Shape of every summation tree.

    Examples
    --------
    >>> g = attention_forward(2, 2)
    >>> g.num_vertices == attention_forward_vertices().subs({n: 2, d: 2})
    True
    """
    _check_size(n=n_, d=d_)
    b = _Builder(tree)
    _forward(b, n_, d_, np.ones((n_, n_), dtype=bool))
    return b.dag()


def attention_forward_vertices() -> sp.Expr:
    """Vertices of :func:`attention_forward`: 3nd + n^2 d + n^2 (d-1) + n^2 + n(n-1) + n^2
    + n^2 d + nd(n-1) = 4 n^2 d + 2 n^2 + 2 n d - n.
    """
    return sp.expand(sparse_forward_vertices().subs(Z, n**2))


def sparse_forward(n_: int, d_: int, mask: object, *, tree: str = "chain") -> Dag:
    """The forward graph of :func:`attention_forward` restricted to a mask's allowed pairs.

    Only allowed (i, j) have products, scores, exp and normalised entries; row
    sums and the sums of O run over the allowed keys of each row.

    Raises
    ------
    PebbleParameterError
        ``mask`` is not an n x n boolean (or 0/1) array, or has an empty row.

    Examples
    --------
    >>> sparse_forward(3, 1, causal_mask(3)).num_vertices
    39
    """
    _check_size(n=n_, d=d_)
    allowed = _check_mask(mask, n_)
    b = _Builder(tree)
    _forward(b, n_, d_, allowed)
    return b.dag()


def sparse_forward_vertices() -> sp.Expr:
    """Vertices of :func:`sparse_forward` with ``Z`` allowed pairs: 3nd + Zd + Z(d-1) + Z
    + (Z - n) + Z + Zd + d(Z - n) = 4Zd + 2Z + 2nd - n.
    """
    return 3 * n * d + Z * d + Z * (d - 1) + Z + (Z - n) + Z + Z * d + d * (Z - n)


def sy24_forward(n_: int, d_: int, *, tree: str = "chain", mask: object = None) -> Dag:
    """SY24's forward graph: O = D^{-1} (A V), the products A_ij V_jk first, the row scaling last.

    Stages: inputs Q, K, V; products Q_il K_jl and the trees of S_ij; A_ij = exp(S_ij);
    row-sum trees l_i; products A_ij V_jk (labelled ``"AV[i,j,k]"``); summation trees
    U_ik over j; the outputs O_ik = U_ik / l_i. Unlike :func:`attention_forward` a
    product A_ij V_jk needs only its own pair's score, so a schedule can pebble a row in
    one pass over the keys. With an n x n ``mask``, only the allowed pairs (the row sums
    and the sums U over each row's allowed keys): sparse square tiling's graph.

    Examples
    --------
    >>> g_ = sy24_forward(2, 2)
    >>> g_.num_vertices == sy24_forward_vertices().subs({n: 2, d: 2})
    True
    """
    _check_size(n=n_, d=d_)
    b = _Builder(tree)
    Q = b.matrix("Q", n_, d_)
    K = b.matrix("K", n_, d_)
    V = b.matrix("V", n_, d_)
    allowed = np.ones((n_, n_), dtype=bool) if mask is None else _check_mask(mask, n_)
    keys = [np.flatnonzero(allowed[i]).tolist() for i in range(n_)]
    prod = {
        (i, j): [b.vertex(f"QK[{i},{j},{l}]", (Q[i, l], K[j, l])) for l in range(d_)]
        for i in range(n_)
        for j in keys[i]
    }
    S = {pair: b.tree(f"S[{pair[0]},{pair[1]}]", terms) for pair, terms in prod.items()}
    A = {(i, j): b.vertex(f"exp[{i},{j}]", (S[i, j],)) for i, j in S}
    ell = [b.tree(f"rowsum[{i}]", [A[i, j] for j in keys[i]]) for i in range(n_)]
    av = {
        (i, k): [b.vertex(f"AV[{i},{j},{k}]", (A[i, j], V[j, k])) for j in keys[i]]
        for i in range(n_)
        for k in range(d_)
    }
    for (i, k), terms in av.items():
        b.vertex(f"O[{i},{k}]", (b.tree(f"U[{i},{k}]", terms), ell[i]))
    return b.dag()


def sy24_forward_vertices() -> sp.Expr:
    """Vertices of :func:`sy24_forward`: 3nd + n^2 d + n^2 (d-1) + n^2 + n(n-1) + n^2 d
    + nd(n-1) + nd = 4 n^2 d + n^2 + 3 n d - n (the normalise-first graph's n^2 divisions
    P_ij become the n d divisions of the outputs).
    """
    return 4 * n**2 * d + n**2 + 3 * n * d - n


def _online_row(
    b: _Builder,
    i: int,
    n_: int,
    d_: int,
    Q,
    K,
    V,
    block: int,
    renormalise: bool = False,
    allowed: np.ndarray | None = None,
    first: int = 0,
) -> None:
    """One query row of FlashAttention-2's forward graph, keys in blocks of ``block``
    (``renormalise``: FlashAttention's, the output divided by the running sum every block;
    ``allowed``: only the key blocks with an allowed key of row i, whole for
    FlashAttention, and for FlashAttention-2 only the allowed keys of each). The row
    attends to the ``n_`` keys from ``first`` on (its key/value head's, heads stacked);
    block indices count from 0 there."""
    stop = first + n_
    every = [(c, j, min(j + block, stop)) for c, j in enumerate(range(first, stop, block))]
    visited = [span for span in every if allowed is None or allowed[i, span[1] : span[2]].any()]
    S = {}
    for _, j0, j1 in visited:
        for j in range(j0, j1):
            if renormalise or allowed is None or allowed[i, j]:
                terms = [b.vertex(f"QK[{i},{j},{l}]", (Q[i, l], K[j, l])) for l in range(d_)]
                S[j] = b.tree(f"S[{i},{j}]", terms)
    m = ell = None
    acc: list[int | None] = [None] * d_
    if renormalise:
        _renormalised_row(b, i, n_, d_, V, S, visited)
        return
    for c, j0, j1 in visited:
        keys = [j for j in range(j0, j1) if j in S]
        previous = [] if m is None else [m]
        m_new = b.tree(f"m[{i},{c}]", previous + [S[j] for j in keys])
        P = {}
        for j in keys:
            shifted = b.vertex(f"S-m[{i},{j}]", (S[j], m_new))
            P[j] = b.vertex(f"Pt[{i},{j}]", (shifted,))
        if m is None:
            ell = b.tree(f"l[{i},{c}]", list(P.values()))
            for k in range(d_):
                pv = [b.vertex(f"PV[{i},{j},{k}]", (P[j], V[j, k])) for j in keys]
                acc[k] = b.tree(f"acc[{i},{k},{c}]", pv)
        else:
            alpha = b.vertex(f"alpha[{i},{c}]", (b.vertex(f"m-m[{i},{c}]", (m, m_new)),))
            scaled = b.vertex(f"alpha*l[{i},{c}]", (alpha, ell))
            ell = b.tree(f"l[{i},{c}]", [scaled, *P.values()])
            for k in range(d_):
                kept = b.vertex(f"alpha*acc[{i},{k},{c}]", (alpha, acc[k]))
                pv = [b.vertex(f"PV[{i},{j},{k}]", (P[j], V[j, k])) for j in keys]
                acc[k] = b.tree(f"acc[{i},{k},{c}]", [kept, *pv])
        m = m_new
    for k in range(d_):
        b.vertex(f"O[{i},{k}]", (acc[k], ell))
    b.vertex(f"L[{i}]", (m, ell))


def _renormalised_row(b: _Builder, i: int, n_: int, d_: int, V, S: dict, spans: list) -> None:
    """FlashAttention's row over the key blocks ``spans`` ((block index, first, stop))."""
    m = ell = None
    out: list[int] = []
    for c, j0, j1 in spans:
        keys = range(j0, j1)
        m_new = b.tree(f"m[{i},{c}]", ([] if m is None else [m]) + [S[j] for j in keys])
        P = [b.vertex(f"Pt[{i},{j}]", (b.vertex(f"S-m[{i},{j}]", (S[j], m_new)),)) for j in keys]
        last = c == spans[-1][0]
        if m is None:
            ell = b.tree(f"l[{i},{c}]", P)
            kept = [[] for _ in range(d_)]
        else:
            alpha = b.vertex(f"alpha[{i},{c}]", (b.vertex(f"m-m[{i},{c}]", (m, m_new)),))
            scaled = b.vertex(f"alpha*l[{i},{c}]", (alpha, ell))
            ell = b.tree(f"l[{i},{c}]", [scaled, *P])
            kept = [[b.vertex(f"alpha*l*O[{i},{k},{c}]", (scaled, out[k]))] for k in range(d_)]
        new = []
        for k in range(d_):
            pv = [b.vertex(f"PV[{i},{j},{k}]", (P[j - j0], V[j, k])) for j in keys]
            total = b.tree(f"U[{i},{k},{c}]", kept[k] + pv)
            new.append(b.vertex(f"O[{i},{k}]" if last else f"O[{i},{k},{c}]", (total, ell)))
        out, m = new, m_new


def blockwise_forward(
    n_: int, d_: int, *, tree: str = "chain", block: int = 1, mask: object = None
) -> Dag:
    """FlashAttention's forward graph (DFE22 Alg. 1): online softmax, the output renormalised
    after every key block of ``block`` keys.

    As :func:`online_forward` up to the running sums, then per key block c the output
    O_ik^(c) = (alpha_i^(c) l_i^(c-1) O_ik^(c-1) + sum_j P~_ij V_jk) / l_i^(c): the product
    alpha_i^(c) l_i^(c-1) (shared with the running sum), the product with O_ik^(c-1), a tree
    over it and the block's products, a division. The last O_ik^(c) is the output O_ik;
    the running statistics are not outputs (the schedule stores them as intermediates).
    With an n x n ``mask``, row i runs over the key blocks holding an allowed key only
    (each whole, labels keeping the block's index): block-sparse FlashAttention's graph
    (DFE22 Prop 4) for the pairs its block mask allows.

    Examples
    --------
    >>> g_ = blockwise_forward(3, 2, block=2)
    >>> g_.num_vertices == blockwise_forward_vertices().subs({n: 3, d: 2, key_block: 2})
    True
    """
    _check_size(n=n_, d=d_, block=block)
    b = _Builder(tree)
    Q = b.matrix("Q", n_, d_)
    K = b.matrix("K", n_, d_)
    V = b.matrix("V", n_, d_)
    allowed = None if mask is None else _check_mask(mask, n_)
    for i in range(n_):
        _online_row(b, i, n_, d_, Q, K, V, block, renormalise=True, allowed=allowed)
    return b.dag()


def blockwise_forward_vertices() -> sp.Expr:
    """Vertices of :func:`blockwise_forward` with T = ceil(n / B_c) key blocks.

    Per row: S n d + n (d - 1); maxima n - 1; P~ 2n; alpha 2 (T - 1); running sum
    n - 1 + (T - 1); per output column n products, n - 1 additions, T - 1 rescale products
    and T divisions. Total 3nd + n (4nd + 3n + (2d + 3) T - 2d - 5).
    """
    T = sp.ceiling(n / key_block)
    return 3 * n * d + n * (4 * n * d + 3 * n + (2 * d + 3) * T - 2 * d - 5)


def online_forward(
    n_: int, d_: int, *, tree: str = "chain", block: int = 1, mask: object = None
) -> Dag:
    """FlashAttention-2's forward graph (D23 Alg. 1): online softmax over key blocks of ``block``.

    Per query row i and key block c (keys j0..j1): the running maximum
    m_i^(c) = max(m_i^(c-1), S_ij over the block) (a tree, with m_i^(c-1) as a term);
    P~_ij = exp(S_ij - m_i^(c)) (a subtraction, then exp); for c >= 1 the rescale factor
    alpha_i^(c) = exp(m_i^(c-1) - m_i^(c)); the running sum
    l_i^(c) = alpha_i^(c) l_i^(c-1) + sum_j P~_ij and the accumulators
    acc_ik^(c) = alpha_i^(c) acc_ik^(c-1) + sum_j P~_ij V_jk (a product, then a tree over
    it and the block's products ``"PV[i,j,k]"``); at the end O_ik = acc_ik / l_i and the
    row log-sum-exp L_i = m_i + log l_i. Outputs O and L. The row block size of the
    schedule does not change the graph; the key block size does.

    Parameters
    ----------
    n_, d_ : int
        Sequence length and head dimension.
    tree : {"chain", "balanced"}
        Shape of every summation and maximum tree.
    block : int
        Keys per block (FlashAttention-2's B_c), 1 <= block; a block of n or more keys
        is one block (the two-pass graph with one rescale-free update).
    mask : array_like, optional
        An n x n boolean mask: row i runs over the key blocks holding an allowed key of
        its own only, and over the allowed keys of each (labels keep the block's index),
        its first such block starting the recurrence (no rescale factor). This is the
        graph causal FlashAttention-2 computes (``attnio.algorithms.interval_masks``,
        blocks above the diagonal skipped, the diagonal block masked from the indices).

    Raises
    ------
    PebbleParameterError
        A size is not a positive integer, or ``mask`` is not an n x n boolean (or 0/1)
        matrix with an allowed key in every row.

    Examples
    --------
    >>> g_ = online_forward(3, 2, block=2)
    >>> g_.num_vertices == online_forward_vertices().subs({n: 3, d: 2, key_block: 2})
    True
    >>> online_forward(2, 1, block=2, mask=causal_mask(2)).num_vertices  # row 0: key 0
    25
    """
    _check_size(n=n_, d=d_, block=block)
    allowed = None if mask is None else _check_mask(mask, n_)
    b = _Builder(tree)
    Q = b.matrix("Q", n_, d_)
    K = b.matrix("K", n_, d_)
    V = b.matrix("V", n_, d_)
    for i in range(n_):
        _online_row(b, i, n_, d_, Q, K, V, block, allowed=allowed)
    return b.dag()


def grouped_online_forward(
    rows: int, keys: int, groups: int, d_: int, *, tree: str = "chain", block: int = 1
) -> Dag:
    """:func:`online_forward` for ``groups`` groups of ``rows`` query rows, each with its
    own ``keys`` keys in blocks of ``block`` (stacked head-major: row g R + r attends keys
    g C .. g C + C - 1; block indices count within the group). The graph of group-aware
    FlashAttention-2 (``attnio.algorithms.shapes.gqa_flash2_forward``): one group per
    key/value head, its rows those of every query head of the group.

    Examples
    --------
    >>> grouped_online_forward(3, 3, 1, 2, block=2).num_vertices == online_forward(
    ...     3, 2, block=2).num_vertices
    True
    """
    return _grouped_rows(rows, keys, groups, d_, tree, block, renormalise=False)


def grouped_blockwise_forward(
    rows: int, keys: int, groups: int, d_: int, *, tree: str = "chain", block: int = 1
) -> Dag:
    """:func:`blockwise_forward` for ``groups`` groups of ``rows`` query rows, each with its
    own ``keys`` keys in blocks of ``block`` (stacked head-major as
    :func:`grouped_online_forward`; block indices count within the group). The graph of
    group-aware FlashAttention (``attnio.algorithms.shapes.gqa_flash_forward``): one
    group per key/value head, its rows those of every query head of the group.

    Examples
    --------
    >>> grouped_blockwise_forward(3, 3, 1, 2, block=2).num_vertices == blockwise_forward(
    ...     3, 2, block=2).num_vertices
    True
    """
    return _grouped_rows(rows, keys, groups, d_, tree, block, renormalise=True)


def _grouped_rows(
    rows: int, keys: int, groups: int, d_: int, tree: str, block: int, *, renormalise: bool
) -> Dag:
    """The online-softmax rows of :func:`grouped_online_forward` (``renormalise``: of
    :func:`grouped_blockwise_forward`)."""
    _check_size(rows=rows, keys=keys, groups=groups, d=d_, block=block)
    b = _Builder(tree)
    Q, K, V = _grouped_inputs(b, rows, keys, groups, d_)
    for i in range(groups * rows):
        first = i // rows * keys
        _online_row(b, i, keys, d_, Q, K, V, block, renormalise=renormalise, first=first)
    return b.dag()


def online_forward_vertices() -> sp.Expr:
    """Vertices of :func:`online_forward` with T = ceil(n / B_c) key blocks.

    Per row: S n d + n (d - 1); maxima n - 1; P~ 2n; alpha 2 (T - 1); running sum
    n - 1 + (T - 1); per output column n products, n - 1 + (T - 1) accumulation
    vertices and one division; L 1. Total 3nd + n (4nd + 3n + (d + 3) T - d - 4).
    """
    T = sp.ceiling(n / key_block)
    return 3 * n * d + n * (4 * n * d + 3 * n + (d + 3) * T - d - 4)


def stationary_forward(n_: int, d_: int, *, tree: str = "chain", block: int = 1) -> Dag:
    """The output-stationary forward graph (``attnio.algorithms.stationary``): a maximum per
    key tile of ``block`` keys.

    Per query row i and key tile J: top_iJ, the maximum of the tile's S_ij (a tree);
    a_ij = exp(S_ij - top_iJ); the running maximum m_iJ = max(m_i,J-1, top_iJ) (m_i0 is
    top_i0); the running sum l_iJ = l_i,J-1 exp(m_i,J-1 - m_iJ) + (sum_J a_ij)
    exp(top_iJ - m_iJ); L_i = m_i + log l_i; then f_iJ = exp(top_iJ - L_i), the
    probabilities P_ij = f_iJ a_ij and the output trees O_ik over the products P_ij V_jk.
    L is not a sink (it feeds f), so the schedule's store of L is a store of an
    intermediate.

    Examples
    --------
    >>> g_ = stationary_forward(3, 2, block=2)
    >>> g_.num_vertices == stationary_forward_vertices().subs({n: 3, d: 2, key_block: 2})
    True
    """
    _check_size(n=n_, d=d_, block=block)
    return grouped_stationary_forward(n_, n_, 1, d_, tree=tree, block=block)


def grouped_stationary_forward(
    rows: int, keys: int, groups: int, d_: int, *, tree: str = "chain", block: int = 1
) -> Dag:
    """:func:`stationary_forward` for ``groups`` groups of ``rows`` query rows, each with
    its own ``keys`` keys in tiles of ``block`` (stacked head-major: row g R + r attends
    keys g C .. g C + C - 1; tile indices count within the group). The graph of
    grouped-query output-stationary tiling (``attnio.algorithms.shapes``): one group per
    key/value head, its rows those of every query head of the group.

    Examples
    --------
    >>> grouped_stationary_forward(2, 2, 1, 1).num_vertices == stationary_forward(2, 1).num_vertices
    True
    """
    _check_size(rows=rows, keys=keys, groups=groups, d=d_, block=block)
    b = _Builder(tree)
    Q, K, V = _grouped_inputs(b, rows, keys, groups, d_)
    spans = [(j, min(j + block, keys)) for j in range(0, keys, block)]
    for i in range(groups * rows):
        first = i // rows * keys
        S, A, top = [], [], []
        m = ell = None
        for j in range(first, first + keys):
            terms = [b.vertex(f"QK[{i},{j},{l}]", (Q[i, l], K[j, l])) for l in range(d_)]
            S.append(b.tree(f"S[{i},{j}]", terms))
        for c, (j0, j1) in enumerate(spans):
            t = b.tree(f"top[{i},{c}]", S[j0:j1])
            top.append(t)
            for j in range(j0, j1):
                shifted = b.vertex(f"S-top[{i},{first + j}]", (S[j], t))
                A.append(b.vertex(f"A[{i},{first + j}]", (shifted,)))
            m_new = t if m is None else b.vertex(f"m[{i},{c}]", (m, t))
            total = b.tree(f"sumA[{i},{c}]", A[j0:j1])
            e = b.vertex(f"e[{i},{c}]", (b.vertex(f"top-m[{i},{c}]", (t, m_new)),))
            if m is None:
                ell = b.vertex(f"l[{i},{c}]", (total, e))
            else:
                r = b.vertex(f"r[{i},{c}]", (b.vertex(f"m-m[{i},{c}]", (m, m_new)),))
                kept = b.vertex(f"l*r[{i},{c}]", (ell, r))
                ell = b.vertex(f"l[{i},{c}]", (kept, b.vertex(f"sumA*e[{i},{c}]", (total, e))))
            m = m_new
        L = b.vertex(f"L[{i}]", (m, ell))
        f = [
            b.vertex(f"f[{i},{c}]", (b.vertex(f"top-L[{i},{c}]", (t, L)),))
            for c, t in enumerate(top)
        ]
        P = [b.vertex(f"P[{i},{first + j}]", (f[j // block], A[j])) for j in range(keys)]
        for k in range(d_):
            products = [
                b.vertex(f"PV[{i},{first + j},{k}]", (P[j], V[first + j, k])) for j in range(keys)
            ]
            b.tree(f"O[{i},{k}]", products)
    return b.dag()


def stationary_forward_vertices() -> sp.Expr:
    """Vertices of :func:`stationary_forward` with T = ceil(n / B_c) key tiles.

    Per row: S 2nd - n; per tile of b keys, its maximum b - 1, a 2b, its sum b - 1, e 2
    and one product, and after the first tile 5 more (m, r, l r, the sum); L 1; f 2T;
    P n; output trees d (2n - 1). Total 3nd + n (4nd + 4n + 8T - d - 4).
    """
    T = sp.ceiling(n / key_block)
    return 3 * n * d + n * (4 * n * d + 4 * n + 8 * T - d - 4)


def twopass_forward(n_: int, d_: int, *, tree: str = "chain", block: int = 1) -> Dag:
    """Standard attention's forward graph (``attnio.algorithms.standard``): two passes over
    the stored scores, key tiles of ``block`` keys.

    Per query row i and key tile J, the first pass: tmax_iJ, the tile's maximum (a tree);
    m_iJ = max(m_i,J-1, tmax_iJ) (m_i0 is tmax_i0); e_ij = exp(S_ij - m_iJ) and their sum
    over the tile; l_iJ = l_i,J-1 exp(m_i,J-1 - m_iJ) + that sum (l_i0 is the sum). The
    second pass: P_ij = exp(S_ij - m_i) / l_i with the last m_i, l_i (a subtraction, exp
    and a division); then the output trees over P_ij V_jk.

    Examples
    --------
    >>> g_ = twopass_forward(3, 2, block=2)
    >>> g_.num_vertices == twopass_forward_vertices().subs({n: 3, d: 2, key_block: 2})
    True
    """
    _check_size(n=n_, d=d_, block=block)
    b = _Builder(tree)
    Q = b.matrix("Q", n_, d_)
    K = b.matrix("K", n_, d_)
    V = b.matrix("V", n_, d_)
    for i in range(n_):
        _twopass_row(b, i, n_, d_, Q, K, V, block)
    return b.dag()


def grouped_twopass_forward(
    rows: int, keys: int, groups: int, d_: int, *, tree: str = "chain", block: int = 1
) -> Dag:
    """:func:`twopass_forward` for ``groups`` groups of ``rows`` query rows, each with its
    own ``keys`` keys in tiles of ``block`` (stacked head-major as
    :func:`grouped_online_forward`; tile indices count within the group). The graph of
    the group-aware score-panel forward
    (``attnio.algorithms.shapes.gqa_score_panel_forward``, key tiles of one key): one
    group per key/value head, its rows those of every query head of the group.

    Examples
    --------
    >>> grouped_twopass_forward(3, 3, 1, 2, block=2) == twopass_forward(3, 2, block=2)
    True
    """
    _check_size(rows=rows, keys=keys, groups=groups, d=d_, block=block)
    b = _Builder(tree)
    Q, K, V = _grouped_inputs(b, rows, keys, groups, d_)
    for i in range(groups * rows):
        _twopass_row(b, i, keys, d_, Q, K, V, block, first=i // rows * keys)
    return b.dag()


def _twopass_row(
    b: _Builder, i: int, n_: int, d_: int, Q, K, V, block: int, first: int = 0
) -> None:
    """One query row of :func:`twopass_forward`, attending to the ``n_`` keys from
    ``first`` on (its key/value head's, heads stacked); tile indices count from 0 there."""
    keys = range(first, first + n_)
    spans = [(j, min(j + block, first + n_)) for j in range(first, first + n_, block)]
    S = {}
    for j in keys:
        terms = [b.vertex(f"QK[{i},{j},{l}]", (Q[i, l], K[j, l])) for l in range(d_)]
        S[j] = b.tree(f"S[{i},{j}]", terms)
    m = ell = None
    for c, (j0, j1) in enumerate(spans):
        t = b.tree(f"tmax[{i},{c}]", [S[j] for j in range(j0, j1)])
        m_new = t if m is None else b.vertex(f"m[{i},{c}]", (m, t))
        e = [
            b.vertex(f"e[{i},{j}]", (b.vertex(f"S-mt[{i},{j}]", (S[j], m_new)),))
            for j in range(j0, j1)
        ]
        total = b.tree(f"esum[{i},{c}]", e)
        if m is None:
            ell = total
        else:
            r = b.vertex(f"r[{i},{c}]", (b.vertex(f"m-m[{i},{c}]", (m, m_new)),))
            ell = b.vertex(f"l[{i},{c}]", (b.vertex(f"l*r[{i},{c}]", (ell, r)), total))
        m = m_new
    P = {}
    for j in keys:
        E = b.vertex(f"E[{i},{j}]", (b.vertex(f"S-m[{i},{j}]", (S[j], m)),))
        P[j] = b.vertex(f"P[{i},{j}]", (E, ell))
    for k in range(d_):
        b.tree(f"O[{i},{k}]", [b.vertex(f"PV[{i},{j},{k}]", (P[j], V[j, k])) for j in keys])


def twopass_forward_vertices() -> sp.Expr:
    """Vertices of :func:`twopass_forward` with T = ceil(n / B_c) key tiles.

    Per row: S 2nd - n; per tile of b keys, its maximum b - 1, e 2b, their sum b - 1,
    and after the first tile 5 more (m, the rescale factor r, l r, l); P 3n; output trees
    d (2n - 1). Total 3nd + n (4nd + 6n + 3T - d - 5).
    """
    T = sp.ceiling(n / key_block)
    return 3 * n * d + n * (4 * n * d + 6 * n + 3 * T - d - 5)


def streaming_forward(n_: int, d_: int, *, tree: str = "chain") -> Dag:
    """Row streaming's forward graph (``attnio.algorithms.streaming``): a running log-sum-exp.

    Per query row i, keys j in order: L_i^(0) = S_i0 and
    L_i^(j) = logaddexp(L_i^(j-1), S_ij); the new key's weight W_ij = exp(S_ij - L_i^(j))
    (a subtraction, then exp); for j >= 1 the old rows' weight
    beta_ij = exp(L_i^(j-1) - L_i^(j)); the output row, kept normalised,
    o_ik^(j) = beta_ij o_ik^(j-1) + W_ij V_jk (products ``"PV[i,j,k]"``), whose last value
    is the output O_ik. L_i^(n-1) feeds W_i,n-1, so it is not a sink: the schedule's
    store of L is a store of an intermediate. ``tree`` shapes the score trees only
    (the recurrences are chains).

    Examples
    --------
    >>> g_ = streaming_forward(3, 2)
    >>> g_.num_vertices == streaming_forward_vertices().subs({n: 3, d: 2})
    True
    """
    _check_size(n=n_, d=d_)
    return masked_streaming_forward(np.ones((n_, n_), dtype=bool), d_, tree=tree)


def masked_streaming_forward(mask: object, d_: int, *, tree: str = "chain") -> Dag:
    """The graph of :func:`streaming_forward` over the allowed pairs of a rows x keys mask.

    Query row i runs its recurrence over its allowed keys j in increasing order: the
    first key starts it (L_i = S_ij, o_ik = W_ij V_jk), every later one updates it, the
    last gives O_ik. This is the graph row streaming computes restricted to a causal,
    window or band mask (``attnio.algorithms.interval_masks``) and, for a block-diagonal
    mask over head-major stacked rows (query rows of group k against the keys of
    key/value head k), the graph of grouped-query row streaming
    (``attnio.algorithms.shapes``). Inputs Q (rows x d), K and V (keys x d). With Z
    allowed pairs it has rows d + 2 keys d + Z (5d + 4) - rows (2d + 3) vertices.

    Raises
    ------
    PebbleParameterError
        ``mask`` is not a boolean (or 0/1) matrix, or has an empty row.

    Examples
    --------
    >>> rows, keys, Z_, d_ = 3, 3, 6, 2  # the causal mask of 3 rows
    >>> masked_streaming_forward(causal_mask(3), d_).num_vertices == (
    ...     rows * d_ + 2 * keys * d_ + Z_ * (5 * d_ + 4) - rows * (2 * d_ + 3))
    True
    """
    allowed = _check_mask(mask, None)
    _check_size(d=d_)
    rows, keys = allowed.shape
    b = _Builder(tree)
    Q = b.matrix("Q", rows, d_)
    K = b.matrix("K", keys, d_)
    V = b.matrix("V", keys, d_)
    for i in range(rows):
        _streaming_row(b, i, np.flatnonzero(allowed[i]).tolist(), d_, Q, K, V, f"O[{i},{{}}]")
    return b.dag()


def _streaming_row(b: _Builder, i: int, attended: list, d_: int, Q, K, V, out: str) -> tuple:
    """Row i's running log-sum-exp recurrence over the keys ``attended``; the last values
    of the output row are labelled ``out.format(k)``. Return (last L, last output row)."""
    lse = None
    acc: list[int] = []
    for j in attended:
        terms = [b.vertex(f"QK[{i},{j},{l}]", (Q[i, l], K[j, l])) for l in range(d_)]
        s = b.tree(f"S[{i},{j}]", terms)
        new = s if lse is None else b.vertex(f"lse[{i},{j}]", (lse, s))
        w = b.vertex(f"W[{i},{j}]", (b.vertex(f"S-lse[{i},{j}]", (s, new)),))
        last = j == attended[-1]
        if lse is None:
            for k in range(d_):
                name = f"PV[{i},{j},{k}]" + (f"={out.format(k)}" if last else "")
                acc.append(b.vertex(name, (w, V[j, k])))
        else:
            beta = b.vertex(f"beta[{i},{j}]", (b.vertex(f"lse-lse[{i},{j}]", (lse, new)),))
            for k in range(d_):
                kept = b.vertex(f"beta*o[{i},{k},{j}]", (beta, acc[k]))
                pv = b.vertex(f"PV[{i},{j},{k}]", (w, V[j, k]))
                name = out.format(k) if last else f"o[{i},{k},{j}]"
                acc[k] = b.vertex(name, (kept, pv))
        lse = new
    return lse, acc


def sliding_forward_graph(mask: object, d_: int, *, tree: str = "chain") -> Dag:
    """The graph of the sliding-window forward (``attnio.algorithms.interval_masks``):
    each row's scores reduced at once, then the output in one pass.

    Per query row i over its allowed keys: the scores S_ij; their maximum m_i (a tree);
    l_i = sum_j exp(S_ij - m_i) (a subtraction and exp per key, then a tree);
    L_i = m_i + log l_i; the weights W_ij = exp(S_ij - L_i) (a subtraction, then exp); the
    products W_ij V_jk and their trees O_ik. Outputs O and L.

    Examples
    --------
    >>> sliding_forward_graph(causal_mask(2), 1).num_vertices  # 6 inputs, rows 7 and 16
    29
    """
    allowed = _check_mask(mask, None)
    _check_size(d=d_)
    rows, keys = allowed.shape
    b = _Builder(tree)
    Q = b.matrix("Q", rows, d_)
    K = b.matrix("K", keys, d_)
    V = b.matrix("V", keys, d_)
    for i in range(rows):
        attended = np.flatnonzero(allowed[i]).tolist()
        S = {}
        for j in attended:
            terms = [b.vertex(f"QK[{i},{j},{l}]", (Q[i, l], K[j, l])) for l in range(d_)]
            S[j] = b.tree(f"S[{i},{j}]", terms)
        m = b.tree(f"m[{i}]", [S[j] for j in attended])
        shifted = [
            b.vertex(f"e[{i},{j}]", (b.vertex(f"S-m[{i},{j}]", (S[j], m)),)) for j in attended
        ]
        ell = b.tree(f"l[{i}]", shifted)
        lse = b.vertex(f"L[{i}]", (m, ell))
        W = {
            j: b.vertex(f"W[{i},{j}]", (b.vertex(f"S-L[{i},{j}]", (S[j], lse)),)) for j in attended
        }
        for k in range(d_):
            b.tree(f"O[{i},{k}]", [b.vertex(f"PV[{i},{j},{k}]", (W[j], V[j, k])) for j in attended])
    return b.dag()


def split_streaming_forward(mask: object, d_: int, starts: object, *, tree: str = "chain") -> Dag:
    """The graph of split-KV decoding: :func:`masked_streaming_forward` per chunk of keys,
    then the chunks' partial results merged by a second running log-sum-exp.

    Each row's attended keys are cut into chunks, a new one at every key in ``starts``
    (FlashDecoding's split of the KV sequence). Chunk c of row i runs the recurrence of
    :func:`masked_streaming_forward` over its keys, ending in the partial output
    ``Op[c,i,k]`` and the partial log-sum-exp (the chunk's last L). The merge, in chunk
    order: Lm_i^(0) = the first partial L; Lm_i^(c) = logaddexp(Lm_i^(c-1), L_c) for
    c >= 1; the weights delta_ic = exp(L_c - Lm_i^(c)) (a subtraction, then exp) and, for
    c >= 1, gamma_ic = exp(Lm_i^(c-1) - Lm_i^(c)); the output
    om_ik^(c) = gamma_ic om_ik^(c-1) + delta_ic Op[c,i,k] (om^(0) = delta_i0 Op[0,i,k]);
    the last om is O_ik and the last Lm is L_i (outputs both).

    Examples
    --------
    >>> g_ = split_streaming_forward(np.ones((1, 4), dtype=bool), 1, [0, 2])
    >>> [label for label in g_.labels if label.startswith(("Lm[", "L["))]
    ['Lm[0,1]=L[0]']
    """
    allowed = _check_mask(mask, None)
    _check_size(d=d_)
    cuts = {int(j) for j in np.asarray(starts).ravel()}
    rows, keys = allowed.shape
    b = _Builder(tree)
    Q = b.matrix("Q", rows, d_)
    K = b.matrix("K", keys, d_)
    V = b.matrix("V", keys, d_)
    for i in range(rows):
        chunks: list[list[int]] = []
        for j in np.flatnonzero(allowed[i]).tolist():
            if not chunks or j in cuts:
                chunks.append([])
            chunks[-1].append(j)
        ell = None
        out: list[int] = []
        for c, chunk in enumerate(chunks):
            part, partial = _streaming_row(b, i, chunk, d_, Q, K, V, f"Op[{c},{i},{{}}]")
            last = c == len(chunks) - 1
            new = part if ell is None else b.vertex(f"Lm[{i},{c}]", (ell, part))
            if last:
                b.labels[new] += f"=L[{i}]"
            delta = b.vertex(f"delta[{i},{c}]", (b.vertex(f"Lp-Lm[{i},{c}]", (part, new)),))
            if ell is not None:
                gamma = b.vertex(f"gamma[{i},{c}]", (b.vertex(f"Lm-Lm[{i},{c}]", (ell, new)),))
            for k in range(d_):
                name = f"O[{i},{k}]" if last else f"om[{i},{k},{c}]"
                if ell is None:
                    out.append(b.vertex(name, (delta, partial[k])))
                else:
                    kept = b.vertex(f"gamma*o[{i},{k},{c}]", (gamma, out[k]))
                    fresh = b.vertex(f"delta*o[{i},{k},{c}]", (delta, partial[k]))
                    out[k] = b.vertex(name, (kept, fresh))
            ell = new
    return b.dag()


def streaming_forward_vertices() -> sp.Expr:
    """Vertices of :func:`streaming_forward`: per row, S n d + n (d - 1), log-sum-exp n - 1,
    weights 2n, old-row weights 2 (n - 1), per output column n products and 2 (n - 1)
    update vertices; total 3nd + n (5nd + 4n - 2d - 3).
    """
    return 3 * n * d + n * (5 * n * d + 4 * n - 2 * d - 3)


# --------------------------------------------------------------------- backward


def _backward(b: _Builder, d_: int, allowed: np.ndarray, dq_starts: set | None = None) -> None:
    rows, keys = allowed.shape
    Q = b.matrix("Q", rows, d_)
    K = b.matrix("K", keys, d_)
    V = b.matrix("V", keys, d_)
    O = b.matrix("O", rows, d_)
    dO = b.matrix("dO", rows, d_)
    L = [b.vertex(f"L[{i}]") for i in range(rows)]
    pairs = [(i, j) for i in range(rows) for j in range(keys) if allowed[i, j]]
    row = [[j for j in range(keys) if allowed[i, j]] for i in range(rows)]
    col = [[i for i in range(rows) if allowed[i, j]] for j in range(keys)]
    qk = {
        (i, j): [b.vertex(f"QK[{i},{j},{l}]", (Q[i, l], K[j, l])) for l in range(d_)]
        for i, j in pairs
    }
    S = {(i, j): b.tree(f"S[{i},{j}]", qk[i, j]) for i, j in pairs}
    shifted = {(i, j): b.vertex(f"S-L[{i},{j}]", (S[i, j], L[i])) for i, j in pairs}
    P = {(i, j): b.vertex(f"P[{i},{j}]", (shifted[i, j],)) for i, j in pairs}
    pdo = {
        (j, k): [b.vertex(f"PdO[{i},{j},{k}]", (P[i, j], dO[i, k])) for i in col[j]]
        for j in range(keys)
        for k in range(d_)
        if col[j]
    }
    for j, k in pdo:
        b.tree(f"dV[{j},{k}]", pdo[j, k])
    dov = {
        (i, j): [b.vertex(f"dOV[{i},{j},{k}]", (dO[i, k], V[j, k])) for k in range(d_)]
        for i, j in pairs
    }
    dP = {(i, j): b.tree(f"dP[{i},{j}]", dov[i, j]) for i, j in pairs}
    doo = [[b.vertex(f"dOO[{i},{k}]", (dO[i, k], O[i, k])) for k in range(d_)] for i in range(rows)]
    Dvec = [b.tree(f"D[{i}]", doo[i]) for i in range(rows)]
    diff = {(i, j): b.vertex(f"dP-D[{i},{j}]", (dP[i, j], Dvec[i])) for i, j in pairs}
    dS = {(i, j): b.vertex(f"dS[{i},{j}]", (P[i, j], diff[i, j])) for i, j in pairs}
    dsk = {
        (i, l): [b.vertex(f"dSK[{i},{j},{l}]", (dS[i, j], K[j, l])) for j in row[i]]
        for i in range(rows)
        for l in range(d_)
    }
    for i, l in dsk:
        chunks: list[list[int]] = []
        for j, term in zip(row[i], dsk[i, l], strict=True):
            if not chunks or (dq_starts is not None and j in dq_starts):
                chunks.append([])
            chunks[-1].append(term)
        if len(chunks) > 1:
            parts = [b.tree(f"dQp[{c},{i},{l}]", terms) for c, terms in enumerate(chunks)]
            b.tree(f"dQ[{i},{l}]", parts)
        else:
            b.tree(f"dQ[{i},{l}]", dsk[i, l])
    dsq = {
        (j, l): [b.vertex(f"dSQ[{i},{j},{l}]", (dS[i, j], Q[i, l])) for i in col[j]]
        for j in range(keys)
        for l in range(d_)
        if col[j]
    }
    for j, l in dsq:
        b.tree(f"dK[{j},{l}]", dsq[j, l])


def attention_backward(n_: int, d_: int, *, tree: str = "chain") -> Dag:
    """The element-level backward graph of dense attention, FlashAttention-2's formulation (D23).

    Inputs Q, K, V, O, dO (n x d) and L (n). S = Q K^T (products and trees);
    P_ij = exp(S_ij - L_i) (a subtraction, then exp); dV = P^T dO; dP = dO V^T;
    D_i = rowsum(dO * O); dS_ij = P_ij (dP_ij - D_i) (a subtraction, then a
    product); dQ = dS K; dK = dS^T Q. Outputs dQ, dK, dV (the sinks). No 1/sqrt(d)
    scale (SY24's form).

    Examples
    --------
    >>> g = attention_backward(2, 1)
    >>> g.num_vertices == attention_backward_vertices().subs({n: 2, d: 1})
    True
    """
    _check_size(n=n_, d=d_)
    b = _Builder(tree)
    _backward(b, d_, np.ones((n_, n_), dtype=bool))
    return b.dag()


def attention_backward_vertices() -> sp.Expr:
    """Vertices of :func:`attention_backward`: 10 n^2 d + 2 n^2 + 4 n d."""
    return sp.expand(sparse_backward_vertices().subs({Z: n**2, nonempty_columns: n}))


def sparse_backward(n_: int, d_: int, mask: object, *, tree: str = "chain") -> Dag:
    """The backward graph of :func:`attention_backward` restricted to a mask's allowed pairs.

    A key ``j`` that no query attends to has dK_j = dV_j = 0, constants that
    are not vertices; its inputs K_j, V_j are isolated.

    Raises
    ------
    PebbleParameterError
        ``mask`` is not an n x n boolean (or 0/1) array, or has an empty row.

    Examples
    --------
    >>> sparse_backward(2, 1, causal_mask(2)).num_vertices
    44
    """
    _check_size(n=n_, d=d_)
    allowed = _check_mask(mask, n_)
    b = _Builder(tree)
    _backward(b, d_, allowed)
    return b.dag()


def masked_backward(mask: object, d_: int, *, tree: str = "chain", dq_starts: object = None) -> Dag:
    """The graph of :func:`sparse_backward` for a rows x keys mask.

    Inputs Q, O, dO (rows x d), L (rows), K and V (keys x d); the dQ trees run over each
    query's allowed keys and the dK, dV trees over each key's queries, in increasing
    order. For a block-diagonal mask over head-major stacked rows it is
    :func:`attnio.pebble.shapes.gqa_backward` with the heads' rows stacked (labels
    ``Q[h n_q + i, l]`` instead of ``Q[h,i,l]``): the graph grouped-query row streaming
    computes.

    With ``dq_starts`` (keys), each query's keys are cut into chunks, a new one at every
    key in ``dq_starts``; with more than one chunk, dQ_il is a tree over the chunks'
    partial sums ``dQp[c,i,l]`` (each a tree over its chunk's dS K products): the graph of
    split-KV decoding backward (``attnio.algorithms.shapes``).

    Raises
    ------
    PebbleParameterError
        ``mask`` is not a boolean (or 0/1) matrix, or has an empty row.

    Examples
    --------
    >>> masked_backward(causal_mask(2), 1).num_vertices
    44
    >>> g_ = masked_backward(np.ones((1, 3), dtype=bool), 1, dq_starts=[0, 2])
    >>> [label for label in g_.labels if "dQ" in label]
    ['dSK[0,2,0]=dQp[1,0,0]', 'dQp[0,0,0]', 'dQ[0,0]']
    """
    allowed = _check_mask(mask, None)
    _check_size(d=d_)
    b = _Builder(tree)
    cuts = None if dq_starts is None else {int(j) for j in np.asarray(dq_starts).ravel()}
    _backward(b, d_, allowed, cuts)
    return b.dag()


def sparse_backward_vertices() -> sp.Expr:
    """Vertices of :func:`sparse_backward` with ``Z`` allowed pairs and ``c`` attended keys.

    Inputs 5nd + n; S: Zd + Z(d-1); P: 2Z; dV: Zd + d(Z - c); dP: Zd + Z(d-1);
    D: nd + n(d-1); dS: 2Z; dQ: Zd + d(Z - n); dK: Zd + d(Z - c). Total
    10 Zd + 2Z + 6nd - 2cd.
    """
    c = nonempty_columns
    return (
        5 * n * d
        + n
        + Z * d
        + Z * (d - 1)
        + 2 * Z
        + Z * d
        + d * (Z - c)
        + Z * d
        + Z * (d - 1)
        + n * d
        + n * (d - 1)
        + 2 * Z
        + Z * d
        + d * (Z - n)
        + Z * d
        + d * (Z - c)
    )


# --------------------------------------------------------------------- approximate


def _monomials(d_: int, g_: int) -> list[tuple[int, ...]]:
    """Exponent vectors of degree 1..g, ordered by degree then lexicographically."""
    out = []
    for degree in range(1, g_ + 1):
        for combo in itertools.combinations_with_replacement(range(d_), degree):
            out.append(combo)
    return out


def _features(b: _Builder, name: str, X: np.ndarray, row: int, monos: list) -> dict:
    """Monomials of row ``row`` of ``X``: degree 1 are the inputs, degree e from degree e-1."""
    feat: dict[tuple[int, ...], int] = {}
    for combo in monos:
        if len(combo) == 1:
            feat[combo] = int(X[row, combo[0]])
        else:
            label = f"{name}[{row}]^" + ".".join(str(x) for x in combo)
            feat[combo] = b.vertex(label, (feat[combo[:-1]], int(X[row, combo[-1]])))
    return feat


def approx_forward(n_: int, d_: int, degree: int, *, tree: str = "chain") -> Dag:
    """Element-level graph of low-rank polynomial attention (docs/notation.md, approximate attention).

    phi(x) holds the monomials of degree <= g of the d coordinates, r = C(d + g, g)
    features; the polynomial's coefficients are constants fused into the
    vertices that use them. Degree-1 monomials are the input coordinates, a
    degree-e monomial is one product of a degree-(e-1) monomial and a coordinate,
    and the degree-0 feature is the constant 1. Then W = phi(K)^T V (r x d: the
    row of the constant feature is the column sums of V), w = phi(K)^T 1 (its
    constant entry n is not a vertex), and out_ik = (phi(q_i)^T W_k) /
    (phi(q_i)^T w), a product and a summation tree for numerator and denominator,
    then one division.

    Raises
    ------
    PebbleParameterError
        ``degree`` < 1 (degree 0 makes every output independent of Q and K).

    Examples
    --------
    >>> g_ = approx_forward(2, 2, 2)
    >>> g_.num_vertices == approx_forward_vertices().subs({n: 2, d: 2, g: 2})
    True
    """
    _check_size(n=n_, d=d_, degree=degree)
    b = _Builder(tree)
    _approx_forward(b, n_, d_, degree)
    return b.dag()


def approx_forward_vertices() -> sp.Expr:
    """Vertices of :func:`approx_forward`, with r = C(d + g, g) features (r - 1 non-constant).

    Inputs 3nd; monomials of degree >= 2 of every key and query row 2n(r - 1 - d);
    W's constant row d(n - 1); the other rows of W (r - 1) d (2n - 1); w (r - 1)(n - 1);
    denominators n(r - 1) + n(r - 2); numerators 2 n d (r - 1); outputs n d.
    """
    r1 = feature_rank(d, g) - 1
    return (
        3 * n * d
        + 2 * n * (r1 - d)
        + d * (n - 1)
        + r1 * d * (2 * n - 1)
        + r1 * (n - 1)
        + n * r1
        + n * (r1 - 1)
        + 2 * n * d * r1
        + n * d
    )


def _approx_forward(b: _Builder, n_: int, d_: int, degree: int) -> dict:
    """Add the inputs Q, K, V and the forward graph of :func:`approx_forward`; return its parts."""
    Q = b.matrix("Q", n_, d_)
    K = b.matrix("K", n_, d_)
    V = b.matrix("V", n_, d_)
    monos = _monomials(d_, degree)
    fk = [_features(b, "phiK", K, j, monos) for j in range(n_)]
    fq = [_features(b, "phiQ", Q, i, monos) for i in range(n_)]
    W0 = [b.tree(f"W[one,{k}]", [int(V[j, k]) for j in range(n_)]) for k in range(d_)]
    W = {}
    for a, combo in enumerate(monos):
        for k in range(d_):
            terms = [b.vertex(f"phiKV[{j},{a},{k}]", (fk[j][combo], V[j, k])) for j in range(n_)]
            W[a, k] = b.tree(f"W[{a},{k}]", terms)
    w = [b.tree(f"w[{a}]", [fk[j][combo] for j in range(n_)]) for a, combo in enumerate(monos)]
    den, out = [], {}
    for i in range(n_):
        terms = [b.vertex(f"phiQw[{i},{a}]", (fq[i][combo], w[a])) for a, combo in enumerate(monos)]
        den.append(b.tree(f"den[{i}]", terms))
        for k in range(d_):
            terms = [W0[k]] + [
                b.vertex(f"phiQW[{i},{a},{k}]", (fq[i][combo], W[a, k]))
                for a, combo in enumerate(monos)
            ]
            num = b.tree(f"num[{i},{k}]", terms)
            out[i, k] = b.vertex(f"out[{i},{k}]", (num, den[i]))
    return {"Q": Q, "K": K, "V": V, "monos": monos, "fk": fk, "fq": fq, "W": W, "w": w,
            "den": den, "out": out}  # fmt: skip


def _monomial_adjoint(
    b: _Builder, name: str, X: np.ndarray, row: int, feat: dict, monos: list, seeds: list
) -> None:
    """Reverse-mode pull-back of the cotangents ``seeds[0]`` (one per monomial; one column
    block) to row ``row`` of X.

    Each monomial of degree >= 2 is the product of its prefix and its last coordinate
    (:func:`_features`), so its total adjoint (its seed plus one product per monomial
    extending it) sends one product to its prefix and one to its last coordinate. The
    sums are trees; the roots ``name[row,c]`` are the outputs.
    """
    (seed,) = seeds
    children: dict[tuple[int, ...], list[int]] = {m: [] for m in monos}
    last: dict[int, list[int]] = {c: [] for c in range(X.shape[1])}
    for combo in reversed(monos):  # longer monomials first: their adjoints are complete
        terms = [seed[combo]] + children[combo]
        if len(combo) == 1:
            c = combo[0]
            b.tree(f"{name}[{row},{c}]", terms + last[c])
            continue
        label = ".".join(str(x) for x in combo)
        total = b.tree(f"{name}bar[{row}]^{label}", terms)
        prefix, c = combo[:-1], combo[-1]
        children[prefix].append(b.vertex(f"{name}barX[{row}]^{label}", (total, int(X[row, c]))))
        last[c].append(b.vertex(f"{name}barP[{row}]^{label}", (total, feat[prefix])))


def approx_backward(n_: int, d_: int, degree: int, *, tree: str = "chain") -> Dag:
    """Element-level graph of the gradient of low-rank polynomial attention.

    The forward graph of :func:`approx_forward` (the output is recomputed, as the
    low-rank backward schedule does, so O and L are not inputs) and the reverse-mode
    graph of ``sum(dO * out)`` with respect to Q, K, V, the formulas of
    :func:`attnio.algorithms.approximate.approximate_gradients`: ``dnum_ik = dO_ik /
    den_i``; ``dden_i`` from ``rowsum(dO * out)`` and ``den_i``; ``dphi_ia`` (non-constant
    features a) a tree over ``dnum_ik W_ak`` and ``dden_i w_a``; ``dW_ak = sum_i
    phi(q_i)_a dnum_ik`` (the constant row is a tree over dnum); ``dw_a = sum_i
    phi(q_i)_a dden_i``; ``dpsi_ja`` a tree over ``V_jk dW_ak`` and ``dw_a``; ``dV_jk`` a
    tree over ``dW_0k`` and ``psi(k_j)_a dW_ak``; dQ and dK pull dphi and dpsi back
    through the monomials (:func:`_monomial_adjoint`). Constants (the polynomial's
    coefficients, the constant feature) are fused into the vertices that use them.
    Inputs Q, K, V, dO; outputs (sinks) dQ, dK, dV.

    Raises
    ------
    PebbleParameterError
        ``degree`` < 1 (as :func:`approx_forward`).

    Examples
    --------
    >>> g_ = approx_backward(2, 2, 2)
    >>> g_.num_vertices == approx_backward_vertices().subs({n: 2, d: 2, g: 2})
    True
    """
    _check_size(n=n_, d=d_, degree=degree)
    b = _Builder(tree)
    _approx_backward(b, n_, d_, degree, _monomial_adjoint)
    return b.dag()


def _product_rule_adjoint(
    b: _Builder, name: str, X: np.ndarray, row: int, feat: dict, monos: list, seeds: list
) -> None:
    """Pull the cotangents ``seeds`` back to row ``row`` of X by the product rule, as
    :func:`attnio.algorithms.approximate.monomial_vjp` does, one column block's share
    (a dict, one cotangent per monomial) after another.

    For each share, each monomial (in order) and each position p of its multiset, one
    term to the coordinate at p: the share itself for a degree-1 monomial, else the
    product ``name + "rule[row,a,p]"`` (``@s`` appended for share s of several) of the
    share with the monomial of the other positions (an input coordinate, or a feature of
    the forward graph). The roots ``name[row,c]`` are summation trees over each
    coordinate's terms in that order: the shares' terms one share after another.
    """
    terms: dict[int, list[int]] = {c: [] for c in range(X.shape[1])}
    for s, seed in enumerate(seeds):
        for a, combo in enumerate(monos):
            for p, c in enumerate(combo):
                rest = combo[:p] + combo[p + 1 :]
                if not rest:
                    terms[c].append(seed[combo])
                    continue
                factor = int(X[row, rest[0]]) if len(rest) == 1 else feat[rest]
                label = _share(f"{name}rule[{row},{a},{p}]", s, len(seeds))
                terms[c].append(b.vertex(label, (seed[combo], factor)))
    for c, found in terms.items():
        b.tree(f"{name}[{row},{c}]", found)


def _share(label: str, s: int, shares: int) -> str:
    """The label of column block s's share of ``label``: ``label@s``, or ``label`` when
    there is one block."""
    return label if shares == 1 else f"{label}@{s}"


def approx_backward_product(n_: int, d_: int, degree: int, *, tree: str = "chain") -> Dag:
    """Element-level graph of the gradient of low-rank polynomial attention, pulled back
    through the monomials by the product rule: the low-rank backward schedule's graph.

    :func:`approx_backward` with dQ and dK built as the schedule
    (:func:`attnio.algorithms.approximate.low_rank_backward`) computes them: per monomial
    and per position of its multiset, the cotangent times the monomial of the other
    positions (:func:`_product_rule_adjoint`), summed per coordinate in the order of the
    features. At degree g <= 2 it has the vertices of :func:`approx_backward` (the
    other positions of a degree-two monomial are one coordinate); the summation trees of
    dQ and dK add in another order.

    Examples
    --------
    >>> g_ = approx_backward_product(2, 2, 3)
    >>> g_.num_vertices == approx_backward_product_vertices().subs({n: 2, d: 2, g: 3})
    True
    """
    _check_size(n=n_, d=d_, degree=degree)
    b = _Builder(tree)
    _approx_backward(b, n_, d_, degree, _product_rule_adjoint)
    return b.dag()


def approx_backward_columns(
    n_: int, d_: int, degree: int, *, tree: str = "chain", block: int = 1
) -> Dag:
    """Element-level graph of the gradient of low-rank polynomial attention, one block of
    ``block`` columns of W and dW at a time: the column-blocked backward schedule's graph.

    :func:`approx_backward_product` with dphi and dpsi cut into shares, as
    :func:`attnio.algorithms.approximate.column_blocked_backward` computes them: for the
    column blocks C_1, ..., C_b of ``block`` columns (the last shorter; b = ceil(d /
    block)), share s of ``dphi_ia`` is a tree over ``dnum_ik W_ak`` for k in C_s, and the
    last share adds ``dden_i w_a`` (likewise dpsi with ``V_jk dW_ak`` and ``dw_a``). Each
    share is pulled back through the monomials by the product rule apart (the pull-back
    is linear, so the sum is the gradient's), and ``dQ[i,c]`` and ``dK[j,c]`` are chains
    over every share's terms, block after block. Everything else (W, w, D, dnum, dden,
    dW, dw, dV) is the vertices of :func:`approx_backward_product`. With ``block >= d``
    it is :func:`approx_backward_product`, labels and all. Like
    :func:`split_streaming_forward` it is no kind of :data:`BUILDERS` (``attnio pebble
    --dag``); :data:`attnio.pebble.classes.COVERAGE` names it.

    Raises
    ------
    PebbleParameterError
        ``degree`` or ``block`` < 1.

    Examples
    --------
    >>> g_ = approx_backward_columns(2, 3, 2, block=2)
    >>> g_.num_vertices == approx_backward_columns_vertices().subs(
    ...     {n: 2, d: 3, g: 2, weight_columns: 2})
    True
    >>> approx_backward_columns(2, 2, 2, block=2).labels == approx_backward_product(2, 2, 2).labels
    True
    """
    _check_size(n=n_, d=d_, degree=degree, block=block)
    b = _Builder(tree)
    _approx_backward(b, n_, d_, degree, _product_rule_adjoint, columns=block)
    return b.dag()


def _approx_backward(
    b: _Builder, n_: int, d_: int, degree: int, adjoint: Callable, columns: int | None = None
) -> None:
    """Add the forward graph and the reverse mode of :func:`approx_backward`, pulling dphi
    and dpsi back through the monomials with ``adjoint``; with ``columns``, dphi and dpsi
    are one share per block of that many columns of W and dW (:func:`approx_backward_columns`)."""
    f = _approx_forward(b, n_, d_, degree)
    Q, K, V, monos, fk, fq = f["Q"], f["K"], f["V"], f["monos"], f["fk"], f["fq"]
    step = d_ if columns is None else columns
    spans = [(k0, min(k0 + step, d_)) for k0 in range(0, d_, step)]
    last = len(spans) - 1
    dO = b.matrix("dO", n_, d_)
    dnum = {(i, k): b.vertex(f"dnum[{i},{k}]", (dO[i, k], f["den"][i]))
            for i in range(n_) for k in range(d_)}  # fmt: skip
    dden = []
    for i in range(n_):
        terms = [b.vertex(f"dOO[{i},{k}]", (dO[i, k], f["out"][i, k])) for k in range(d_)]
        dden.append(b.vertex(f"dden[{i}]", (b.tree(f"D[{i}]", terms), f["den"][i])))
    dphi: list[dict] = [{} for _ in spans]
    for i in range(n_):
        for a, combo in enumerate(monos):
            for s, (k0, k1) in enumerate(spans):
                terms = [b.vertex(f"dnumW[{i},{a},{k}]", (dnum[i, k], f["W"][a, k]))
                         for k in range(k0, k1)]  # fmt: skip
                if s == last:
                    terms.append(b.vertex(f"ddenw[{i},{a}]", (dden[i], f["w"][a])))
                label = _share(f"dphi[{i},{a}]", s, len(spans))
                dphi[s][combo] = dphi[s].get(combo, {}) | {i: b.tree(label, terms)}
    dW0 = [b.tree(f"dW[one,{k}]", [dnum[i, k] for i in range(n_)]) for k in range(d_)]
    dW = {}
    for a, combo in enumerate(monos):
        for k in range(d_):
            terms = [b.vertex(f"phiQdnum[{i},{a},{k}]", (fq[i][combo], dnum[i, k]))
                     for i in range(n_)]  # fmt: skip
            dW[a, k] = b.tree(f"dW[{a},{k}]", terms)
    dw = []
    for a, combo in enumerate(monos):
        terms = [b.vertex(f"phiQdden[{i},{a}]", (fq[i][combo], dden[i])) for i in range(n_)]
        dw.append(b.tree(f"dw[{a}]", terms))
    for j in range(n_):
        seeds: list[dict] = [{} for _ in spans]
        for a, combo in enumerate(monos):
            for s, (k0, k1) in enumerate(spans):
                terms = [b.vertex(f"VdW[{j},{a},{k}]", (V[j, k], dW[a, k])) for k in range(k0, k1)]
                label = _share(f"dpsi[{j},{a}]", s, len(spans))
                seeds[s][combo] = b.tree(label, terms + [dw[a]] * (s == last))
        for k in range(d_):
            terms = [dW0[k]] + [
                b.vertex(f"psidW[{j},{a},{k}]", (fk[j][combo], dW[a, k]))
                for a, combo in enumerate(monos)
            ]
            b.tree(f"dV[{j},{k}]", terms)
        adjoint(b, "dK", K, j, fk[j], monos, seeds)
    for i in range(n_):
        seeds = [{combo: share[combo][i] for combo in monos} for share in dphi]
        adjoint(b, "dQ", Q, i, fq[i], monos, seeds)


def approx_backward_vertices() -> sp.Expr:
    """Vertices of :func:`approx_backward`, with r = C(d + g, g) features (r - 1 non-constant).

    The forward graph with dO as a fourth input (:func:`approx_forward_vertices` + nd);
    dnum nd; dden 2nd; dphi n (r - 1)(2d + 1); dW's constant row d(n - 1); the other rows
    of dW (r - 1) d (2n - 1); dw (r - 1)(2n - 1); dpsi 2nd(r - 1); dV 2nd(r - 1); the
    pull-backs through the monomials of degree >= 2, four vertices each (two products,
    two tree additions), for every row of Q and of K: 8n(r - 1 - d).
    """
    r1 = feature_rank(d, g) - 1
    return (
        approx_forward_vertices()
        + n * d
        + n * d
        + 2 * n * d
        + n * r1 * (2 * d + 1)
        + d * (n - 1)
        + r1 * d * (2 * n - 1)
        + r1 * (2 * n - 1)
        + 2 * n * d * r1
        + 2 * n * d * r1
        + 8 * n * (r1 - d)
    )


def approx_backward_product_vertices() -> sp.Expr:
    """Vertices of :func:`approx_backward_product`.

    Those of :func:`approx_backward` less its pull-backs (8n(r - 1 - d)), plus the
    product rule's for every row of Q and of K: the monomials of degree 1..g have
    T = d C(d + g, g - 1) positions in all, and each position of a monomial of degree
    >= 2 is one product and one addition of a coordinate's tree, 2(T - d) per row.
    """
    r1 = feature_rank(d, g) - 1
    positions = d * sp.binomial(d + g, g - 1)
    return approx_backward_vertices() - 8 * n * (r1 - d) + 4 * n * (positions - d)


def approx_backward_columns_vertices() -> sp.Expr:
    """Vertices of :func:`approx_backward_columns`, with b = ceil(d / c_W) column blocks.

    Those of :func:`approx_backward_product`, less one addition per further share of each
    dphi_ia and dpsi_ja (a share of m terms takes m - 1 additions: 2n(r - 1)(b - 1) in
    all), plus, for every further share and every row of Q and of K, the product rule's
    T - d products and T additions (T = d C(d + g, g - 1) positions, as there):
    2n(b - 1)(2T - d).
    """
    r1 = feature_rank(d, g) - 1
    positions = d * sp.binomial(d + g, g - 1)
    more = sp.ceiling(d / weight_columns) - 1
    return (
        approx_backward_product_vertices() - 2 * n * r1 * more + 2 * n * more * (2 * positions - d)
    )


# --------------------------------------------------------------------- registry


def _symbol_values(
    n_: int, d_: int, mask: np.ndarray | None, degree: int, block: int = 1
) -> dict[sp.Symbol, int]:
    values = {n: n_, d: d_, g: degree, Z: n_ * n_, nonempty_columns: n_, key_block: block}
    if mask is not None:
        values[Z] = int(mask.sum())
        values[nonempty_columns] = int(mask.any(axis=0).sum())
    return values


@dataclass(frozen=True)
class BuilderSpec:
    """One DAG family: what it computes, how to build it and how many vertices it has.

    Attributes
    ----------
    kind : str
        The family's name (``attnio pebble --dag`` takes it).
    pass_ : Pass
        The pass of attention the graph computes.
    regime : Regime
        Dense, sparse (masked) or approximate attention.
    builder : callable
        ``(n, d, *, tree, [mask], [degree]) -> Dag``.
    vertices : callable
        ``() -> sympy expression`` of the vertex count in n, d and the
        family's parameters (``Z`` and ``c`` of a mask, ``g`` the degree).
    parameters : tuple of str
        The options the builder takes besides ``n`` and ``d``.
    variant_of : str or None
        For another graph of the same function (a different order of the arithmetic,
        as the online softmax of the one-pass schedules), the kind whose function it
        computes; ``None`` for the reference graph of its pass and regime. The checks
        of ``attnio verify`` that compare pebblings with the catalog run on the reference
        graphs; which bounds cover which graph is :data:`attnio.pebble.classes.COVERAGE`.
    """

    kind: str
    pass_: Pass
    regime: Regime
    builder: Callable[..., Dag]
    vertices: Callable[[], sp.Expr]
    parameters: tuple[str, ...]
    variant_of: str | None = None

    def vertex_count(
        self,
        n_: int,
        d_: int,
        *,
        mask: np.ndarray | None = None,
        degree: int = 2,
        block: int = 1,
    ) -> int:
        """The vertex count the formula gives for these sizes.

        For a masked family without ``mask``, every pair is allowed (``Z = n^2``): the
        largest count over all masks.
        """
        return int(self.vertices().subs(_symbol_values(n_, d_, mask, degree, block)))


BUILDERS: dict[str, BuilderSpec] = {
    spec.kind: spec
    for spec in (
        BuilderSpec(
            "attention-forward",
            Pass.FORWARD,
            Regime.DENSE,
            attention_forward,
            attention_forward_vertices,
            ("tree",),
        ),
        BuilderSpec(
            "attention-backward",
            Pass.BACKWARD,
            Regime.DENSE,
            attention_backward,
            attention_backward_vertices,
            ("tree",),
        ),
        BuilderSpec(
            "sparse-forward",
            Pass.FORWARD,
            Regime.SPARSE,
            sparse_forward,
            sparse_forward_vertices,
            ("tree", "mask"),
        ),
        BuilderSpec(
            "sparse-backward",
            Pass.BACKWARD,
            Regime.SPARSE,
            sparse_backward,
            sparse_backward_vertices,
            ("tree", "mask"),
        ),
        BuilderSpec(
            "sy24-forward",
            Pass.FORWARD,
            Regime.DENSE,
            sy24_forward,
            sy24_forward_vertices,
            ("tree",),
            "attention-forward",
        ),
        BuilderSpec(
            "online-forward",
            Pass.FORWARD,
            Regime.DENSE,
            online_forward,
            online_forward_vertices,
            ("tree", "block"),
            "attention-forward",
        ),
        BuilderSpec(
            "blockwise-forward",
            Pass.FORWARD,
            Regime.DENSE,
            blockwise_forward,
            blockwise_forward_vertices,
            ("tree", "block"),
            "attention-forward",
        ),
        BuilderSpec(
            "stationary-forward",
            Pass.FORWARD,
            Regime.DENSE,
            stationary_forward,
            stationary_forward_vertices,
            ("tree", "block"),
            "attention-forward",
        ),
        BuilderSpec(
            "twopass-forward",
            Pass.FORWARD,
            Regime.DENSE,
            twopass_forward,
            twopass_forward_vertices,
            ("tree", "block"),
            "attention-forward",
        ),
        BuilderSpec(
            "streaming-forward",
            Pass.FORWARD,
            Regime.DENSE,
            streaming_forward,
            streaming_forward_vertices,
            ("tree",),
            "attention-forward",
        ),
        BuilderSpec(
            "approx-forward",
            Pass.FORWARD,
            Regime.APPROXIMATE,
            approx_forward,
            approx_forward_vertices,
            ("tree", "degree"),
        ),
        BuilderSpec(
            "approx-backward",
            Pass.BACKWARD,
            Regime.APPROXIMATE,
            approx_backward,
            approx_backward_vertices,
            ("tree", "degree"),
        ),
        BuilderSpec(
            "approx-backward-product",
            Pass.BACKWARD,
            Regime.APPROXIMATE,
            approx_backward_product,
            approx_backward_product_vertices,
            ("tree", "degree"),
            "approx-backward",
        ),
    )
}
"""Every DAG family, by kind: the one table the command line and the checks read."""

KINDS = tuple(BUILDERS)
"""The DAG families :func:`build` makes (the names ``attnio pebble --dag`` takes)."""


def mask_from_spec(spec: str, n_: int) -> np.ndarray:
    """Return the n x n mask named by ``spec`` (:func:`attnio.bounds.masks.parse_mask`).

    ``"causal"`` (key j <= query i), ``"full"``, ``"window:W"`` (causal sliding window,
    i - W < j <= i; ``"local:W"`` is its former name), ``"band:W"`` (|i - j| <= W), or the
    path of a ``.json`` or ``.npy`` file holding an n x n array of 0/1 or booleans.

    Examples
    --------
    >>> mask_from_spec("band:1", 3).astype(int).tolist()
    [[1, 1, 0], [1, 1, 1], [0, 1, 1]]
    """
    from attnio.bounds.errors import MaskSpecError
    from attnio.bounds.masks import parse_mask

    _check_size(n=n_)
    try:
        return parse_mask(spec, n_).allowed()
    except MaskSpecError as error:
        raise PebbleParameterError(str(error)) from None


BUILD_MAX_VERTICES = 5_000_000
"""Largest graph :func:`build` makes unless ``max_vertices`` (``--max-vertices``) raises it:
a memory guard, each vertex costs about 200 bytes while building, so this is about 1 GB.
Not the exact solver's limit, :data:`attnio.pebble.exact.EXACT_MAX_VERTICES`."""


def estimate_vertices(kind: str, n_: int, d_: int, *, degree: int = 2, block: int = 1) -> int:
    """Vertex count of ``kind`` at (n, d), from its formula, before anything is allocated.

    The sparse kinds are counted with every pair allowed (``Z = n^2``), an upper bound.

    Examples
    --------
    >>> estimate_vertices("attention-forward", 2, 1)
    26
    """
    if kind not in KINDS:
        raise PebbleParameterError(f"dag={kind!r} must be one of {KINDS}")
    _check_size(n=n_, d=d_)
    spec = BUILDERS[kind]
    if "degree" in spec.parameters:
        _check_size(degree=degree)
    if "block" in spec.parameters:
        _check_size(block=block)
    return spec.vertex_count(n_, d_, degree=degree, block=block)


def _check_vertices(
    kind: str, n_: int, d_: int, degree: int, max_vertices: int, block: int = 1
) -> None:
    _check_size(max_vertices=max_vertices)
    count = estimate_vertices(kind, n_, d_, degree=degree, block=block)
    parameters = BUILDERS[kind].parameters
    shown = (
        f"n={n_}, d={d_}"
        + (f", degree={degree}" if "degree" in parameters else "")
        + (f", block={block}" if "block" in parameters else "")
    )
    if count > max_vertices:
        raise PebbleParameterError(
            f"dag {kind} with {shown} has {count:,} vertices, more than max_vertices="
            f"{max_vertices:,}; choose smaller sizes or raise the limit (--max-vertices)"
        )
    if "mask" in parameters and n_ * n_ > 100 * max_vertices:
        raise PebbleParameterError(
            f"dag {kind} with n={n_} needs an n x n mask of {n_ * n_:,} entries, more than "
            f"100 * max_vertices={100 * max_vertices:,}; choose a smaller n or raise the "
            "limit (--max-vertices)"
        )


def build(
    kind: str,
    n_: int,
    d_: int,
    *,
    tree: str = "chain",
    mask: object | None = None,
    degree: int = 2,
    block: int = 1,
    max_vertices: int = BUILD_MAX_VERTICES,
) -> Dag:
    """Build the DAG family ``kind`` (one of :data:`KINDS`).

    ``mask`` (an array, or a spec for :func:`mask_from_spec`; default causal) is
    used by the sparse kinds; ``degree`` by ``"approx-forward"`` and ``"approx-backward"``;
    ``block`` (keys per block) by ``"online-forward"``, ``"blockwise-forward"``,
    ``"stationary-forward"`` and ``"twopass-forward"``. The vertex count
    is estimated first (:func:`estimate_vertices`); a graph above ``max_vertices``
    is refused before anything is allocated.

    Raises
    ------
    PebbleParameterError
        Unknown kind, non-positive sizes, or more than ``max_vertices`` vertices.

    Examples
    --------
    >>> build("sparse-forward", 3, 1).num_vertices
    39
    """
    _check_vertices(kind, n_, d_, degree, max_vertices, block)
    spec = BUILDERS[kind]
    options: dict[str, object] = {"tree": tree}
    if "degree" in spec.parameters:
        options["degree"] = degree
    if "block" in spec.parameters:
        options["block"] = block
    if "mask" in spec.parameters:
        if mask is None:
            mask = "causal"
        options["mask"] = mask_from_spec(mask, n_) if isinstance(mask, str) else mask
    return spec.builder(n_, d_, **options)
