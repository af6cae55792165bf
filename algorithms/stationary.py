"""attnio's output-stationary schedules for small caches, forward and backward.

Square tiling (:mod:`~attnio.algorithms.tiling`) keeps three square tiles in fast memory,
so its side is about sqrt(M) / 2 and each of its two products costs about
4 n^2 d / sqrt(M) words. Here only the output tile stays resident and its factors stream
past it one column (one outer product) at a time, as optimal matrix multiplication
does, so the side is about sqrt(M) and each product costs about 2 n^2 d / sqrt(M):

* stage 1, ``A = exp(Q K^T)``: for each t x t tile of S (rows I, keys J) accumulate the
  outer products ``Q[I, c] K[J, c]^T`` over c = 1..d (2t words a step), then shift each
  row of the tile by its maximum over the tile, ``A_ij = exp(s_ij - m_iJ)``, and store the
  A tile and the t maxima m_iJ. The row band's running maximum m_i and sum
  ``l_i = sum_j exp(s_ij - m_i)`` stay resident (2t words, updated as FlashAttention does)
  and leave as ``L_i = m_i + log l_i`` at the end of the band.
* stage 2, ``O = D^{-1} A V``: for each t x t tile of O (rows I, columns K) accumulate
  ``(f * A[I, j]) V[j, K]`` over the keys j, where ``f_i = exp(m_iJ - L_i)`` for the column
  band J holding j undoes the shift and divides by the row sum. The band's L stays resident
  (t words); the t maxima of each column band are read once per tile of O.

Every stored A entry is at most 1 (each row of a tile has an entry equal to 1) and every
factor f is at most ``1 / l_i <= 1``, so nothing overflows whatever the inputs; what
underflows is a weight below ``exp(-745)`` relative to the row's largest, which is what
the exact softmax rounds away too.

What numerical soundness costs: the tile maxima, ``T_n n`` words out in stage 1 and
``T_k T_n n`` in during stage 2 (T_n = ceil(n / t), T_k = ceil(d / t)), about
n^2 / sqrt(M) + n^2 d / M, below the leading term 4 n^2 d / sqrt(M) + n^2 by a factor of
about sqrt(M). Fast memory holds the tile and four vectors of t words in either stage
(:data:`~attnio.bounds.blocks.OUTPUT_STATIONARY_TILES`: t = floor(sqrt(M)) - 2, so
t^2 + 4t <= M); the exact count is the catalog record
``output-stationary-forward-count``.

The backward pass (FlashAttention-2's formulation, D23 Alg. 2: inputs Q, K, V, O, dO and
the row log-sum-exp L) computes its five products the same way, each with a t x t output
tile resident and its factors streamed one column or row at a time, so each costs about
2 n^2 d / sqrt(M) (:func:`output_stationary_backward`): ``P = exp(Q K^T - L)``, then
``dS = P * (dO V^T - D)`` with ``D = rowsum(dO * O)`` accumulated on the way, then
``dV = P^T dO``, ``dK = dS^T Q`` and ``dQ = dS K``. Fusing two products that share a
factor (two output tiles resident, the shared factor streamed once) at best breaks even:
two a x b tiles (2ab <= M) sharing the a-long factor move a + 2b >= 2 sqrt(2ab) words a
step for 2ab products, at least 2 / sqrt(M) a product, as one tile alone; with nothing
shared it is 2 sqrt(2) / sqrt(M). Keeping a tile of P or dS resident and updating the
gradients from it (read, add, write) moves 3 words where output-stationary moves 2.
Leading term 10 n^2 d / sqrt(M), half of the tiled backward's; exact count
``output-stationary-backward-count``.

References
----------
attnio; the output-stationary (outer-product) order of Smith, Lowery, Langou and van de
Geijn's optimal matrix multiplication (arXiv 1702.02017), applied to every product; D23
Algorithm 2 (the backward formulation, L and D reused instead of the row maxima and sums).
"""

from __future__ import annotations

import numpy as np

from attnio.bounds.blocks import (
    OUTPUT_STATIONARY_BACKWARD_TILES,
    OUTPUT_STATIONARY_TILES,
    StationaryRule,
)

from .errors import BlocksDoNotFitError
from .machine import TwoLevelMachine, blocks
from .tiling import backward_terms, chain_term


def stationary_tile(M: int, rule: StationaryRule = OUTPUT_STATIONARY_TILES) -> int:
    """Return the tile side ``floor(sqrt(M)) - 2`` of ``rule``; refuse M below 9.

    Examples
    --------
    >>> stationary_tile(9), stationary_tile(100)
    (1, 8)
    """
    tile = rule.side(M)
    if tile < 1:
        raise BlocksDoNotFitError(
            f"{rule.label}: M={M} leaves no room for a tile; it needs M >= {rule.least_memory()}"
        )
    return tile


def output_stationary_forward(machine: TwoLevelMachine, n: int, d: int) -> None:
    """Forward pass with both products output-stationary; writes A, Amax, L and O.

    ``A`` (n x n) holds ``exp(s_ij - m_iJ)``, ``Amax`` (n x T_n) the tile row maxima m_iJ,
    ``L`` (n x 1) the log-sum-exp of each row of S and ``O`` (n x d) the attention output.
    """
    grouped_stationary_forward(machine, d, n, n, 1)


def grouped_stationary_forward(
    machine: TwoLevelMachine, d: int, rows: int, keys: int, groups: int
) -> None:
    """:func:`output_stationary_forward` for ``groups`` groups of ``rows`` query rows, each
    against its own ``keys`` key rows (stacked head-major: rows g R + r of Q, L, O and A
    with keys g C + j of K and V; A holds the R x C block of group g in its rows g R..,
    Amax one column per key tile of the group). Every tile of S and O lies in one group,
    so each K and V tile is read once per row band of its group, whatever the heads."""
    tile = stationary_tile(machine.M)
    mc, numeric = machine, machine.numeric
    bands, tiles, cols = blocks(rows, tile), blocks(keys, tile), blocks(d, tile)
    tr = mc.trace
    mc.create("A", groups * rows, keys)
    mc.create("Amax", groups * rows, len(tiles))
    mc.create("L", groups * rows, 1)
    mc.create("O", groups * rows, d)

    for g in range(groups):
        r, c = g * rows, g * keys  # the group's first row and first key
        for ib, (i0, i1) in enumerate(bands):
            i0, i1 = i0 + r, i1 + r
            mc.step(f"stage 1: A = exp(Q K^T), group {g}, row band {ib}")
            m = mc.alloc("m", i1 - i0, fill=-np.inf)
            total = mc.alloc("l", i1 - i0)
            for jb, (j0, j1) in enumerate(tiles):
                S = _accumulate_scores(mc, (i0, i1), (c + j0, c + j1), d)
                top = mc.alloc("top", i1 - i0)
                if numeric:
                    np.max(S, axis=1, keepdims=True, out=top)
                    np.exp(S - top, out=S)
                    new = np.maximum(m, top)
                    total *= np.exp(m - new)
                    total += S.sum(axis=1, keepdims=True) * np.exp(top - new)
                    m[...] = new
                if tr is not None:  # attnio.pebble.builders.stationary_forward, block = tile
                    for a, i in enumerate(range(i0, i1)):
                        tr.compute(f"top[{i},{jb}]", "top", a)
                        for b, j in enumerate(range(c + j0, c + j1)):
                            tr.compute(f"A[{i},{j}]", "S", (a, b))
                        new_m = f"m[{i},{jb}]" if jb else f"top[{i},0]"
                        tr.compute(new_m)  # the machine's temporary "new", uncharged
                        tr.compute(f"l[{i},{jb}]", "l", a)
                        tr.bind("m", a, new_m)
                        tr.release(new_m)
                mc.store("S", "A", i0, i1, j0, j1)
                mc.store("top", "Amax", i0, i1, jb, jb + 1)
                mc.free("S", "top")
            if numeric:
                m += np.log(total)
            if tr is not None:
                for a, i in enumerate(range(i0, i1)):
                    tr.compute(f"L[{i}]", "m", a)
            mc.store("m", "L", i0, i1, 0, 1)
            mc.free("m", "l")

        for ib, (i0, i1) in enumerate(bands):
            i0, i1 = i0 + r, i1 + r
            mc.step(f"stage 2: O = D^-1 A V, group {g}, row band {ib}")
            L = mc.load("Lb", "L", i0, i1, 0, 1)
            for k0, k1 in cols:
                O = mc.alloc("O", i1 - i0, k1 - k0)
                for jb, (j0, j1) in enumerate(tiles):
                    f = mc.load("f", "Amax", i0, i1, jb, jb + 1)
                    if numeric:
                        np.exp(f - L, out=f)
                    if tr is not None:
                        for x, i in enumerate(range(i0, i1)):
                            tr.compute(f"f[{i},{jb}]", "f", x)
                    for j in range(j0, j1):
                        a = mc.load("a", "A", i0, i1, j, j + 1)
                        v = mc.load("v", "V", c + j, c + j + 1, k0, k1)
                        if numeric:
                            O += (f * a) @ v
                        if tr is not None:
                            for x, y, i, k in _pairs(i0, i1, k0, k1):
                                label = chain_term(f"O[{i},{k}]", f"PV[{i},{c + j},{k}]", j, keys)
                                tr.compute(label, "O", (x, y))
                        mc.free("a", "v")
                    mc.free("f")
                mc.store("O", "O", i0, i1, k0, k1)
                mc.free("O")
            mc.free("Lb")


def _accumulate_scores(
    mc: TwoLevelMachine, rows: tuple[int, int], keys: tuple[int, int], d: int
) -> np.ndarray | None:
    """Return a new fast tile ``S`` of ``Q[I] K[J]^T``, output-stationary (stage 1 of both
    passes): the d outer products ``Q[I, x] K[J, x]^T`` added one column at a time,
    ``|I| + |J|`` words a step.

    ``rows = (i0, i1)`` and ``keys = (j0, j1)`` are rows of Q and of K (a group's keys
    already offset). A trace records the chain tree of each S[i, j] over the d indices
    (the vertices :func:`~attnio.algorithms.tiling.backward_terms` names ``S``, the
    forward graphs' too). The caller stores and frees ``S``.
    """
    (i0, i1), (j0, j1) = rows, keys
    S, tr = mc.alloc("S", i1 - i0, j1 - j0), mc.trace
    for x in range(d):
        q = mc.load("q", "Q", i0, i1, x, x + 1)
        k = mc.load("k", "K", j0, j1, x, x + 1)
        if mc.numeric:
            S += q @ k.T
        if tr is not None:
            for a, b, i, j in _pairs(i0, i1, j0, j1):
                tr.compute(chain_term(f"S[{i},{j}]", f"QK[{i},{j},{x}]", x, d), "S", (a, b))
        mc.free("q", "k")
    return S


def _stationary_product(
    mc: TwoLevelMachine,
    out: str,
    left: str,
    right: str,
    dims: tuple[tuple[int, int], tuple[int, int], int],
    tile: int,
    *,
    transposed: bool,
    key0: int = 0,
    terms=None,
) -> None:
    """Write ``out = left^T right`` (``transposed``) or ``left right``, output-stationary.

    ``dims = ((o0, o1), (r0, r1), p)``: the rows o0..o1 of ``out`` (p columns) are the sum
    over the inner index r in r0..r1. ``left`` holds one group's block with its key columns
    counted from ``key0`` (P or dS); ``right`` is indexed by r. For an output tile (rows
    I, columns C) the step over r loads ``left[r, I - key0]`` (transposed: dK, dV, I keys
    and r a query) or ``left[I, r - key0]`` (dQ, r a key), and ``right[r, C]``:
    ``|I| + |C|`` words a step; the tile is stored once at the end. ``terms(row, column,
    r)`` labels the graph's vertex adding term r (for a trace).
    """
    numeric = mc.numeric
    (o0, o1), (r0, r1), p = dims
    for i0, i1 in blocks(o1 - o0, tile):
        i0, i1 = i0 + o0, i1 + o0
        for c0, c1 in blocks(p, tile):
            acc = mc.alloc("acc", i1 - i0, c1 - c0)
            for r in range(r0, r1):
                if transposed:
                    a = mc.load("a", left, r, r + 1, i0 - key0, i1 - key0)
                else:
                    a = mc.load("a", left, i0, i1, r - key0, r - key0 + 1)
                b = mc.load("b", right, r, r + 1, c0, c1)
                if numeric:
                    acc += (a.T if transposed else a) @ b
                if mc.trace is not None and terms is not None:
                    for x, i in enumerate(range(i0, i1)):
                        for y, c in enumerate(range(c0, c1)):
                            mc.trace.compute(terms(i, c, r), "acc", (x, y))
                mc.free("a", "b")
            mc.store("acc", out, i0, i1, c0, c1)
            mc.free("acc")


def output_stationary_backward(machine: TwoLevelMachine, n: int, d: int) -> None:
    """Backward pass with all five products output-stationary; writes P, dS, dQ, dK, dV.

    Inputs Q, K, V, O, dO (n x d) and L (n x 1), FlashAttention-2's formulation (D23
    Alg. 2). Stage 1 writes ``P = exp(Q K^T - L)`` (entries at most 1, as L is the row's
    log-sum-exp), a t x t tile of S resident while ``Q[I, c]`` and ``K[J, c]`` stream past
    it. Stage 2 writes ``dS = P * (dO V^T - D)``: a tile of dP resident while ``dO[I, c]``
    and ``V[J, c]`` stream past it; on the first tile of each row band ``O[I, c]`` streams
    too and ``D_I = rowsum(dO_I * O_I)`` accumulates, resident for the band; the P tile is
    read one row at a time. Stages 3 to 5: ``dV = P^T dO``, ``dK = dS^T Q``, ``dQ = dS K``,
    a t x t output tile resident while a column slice of P or dS and a row slice of dO, Q
    or K stream past it. Fast memory holds the tile and at most four vectors of t words
    (:data:`~attnio.bounds.blocks.OUTPUT_STATIONARY_BACKWARD_TILES`).
    """
    grouped_stationary_backward(machine, d, n, n, 1)


def grouped_stationary_backward(
    machine: TwoLevelMachine, d: int, rows: int, keys: int, groups: int
) -> None:
    """:func:`output_stationary_backward` for ``groups`` groups of ``rows`` query rows,
    each against its own ``keys`` keys (stacked head-major as for
    :func:`grouped_stationary_forward`; P and dS hold each group's R x C block in its rows).
    Every tile lies in one group, so dK and dV of a key sum over all the group's rows."""
    tile = stationary_tile(machine.M, OUTPUT_STATIONARY_BACKWARD_TILES)
    mc, numeric = machine, machine.numeric
    bands, tiles = blocks(rows, tile), blocks(keys, tile)
    allowed = None  # the chains' order: dense, or each group's block of pairs
    if groups > 1 or rows != keys:
        allowed = np.kron(np.eye(groups, dtype=bool), np.ones((rows, keys), dtype=bool))
    terms, tr = backward_terms(rows * groups, d, allowed), mc.trace
    for name, height, width in (
        ("P", rows, keys),
        ("dS", rows, keys),
        ("dQ", rows, d),
        ("dK", keys, d),
        ("dV", keys, d),
    ):
        mc.create(name, groups * height, width)

    for g in range(groups):
        r, c = g * rows, g * keys  # the group's first row and first key
        for ib, (i0, i1) in enumerate(bands):
            i0, i1 = i0 + r, i1 + r
            mc.step(f"stage 1: P = exp(Q K^T - L), group {g}, row band {ib}")
            L = mc.load("Lb", "L", i0, i1, 0, 1)
            for j0, j1 in tiles:
                S = _accumulate_scores(mc, (i0, i1), (c + j0, c + j1), d)
                if numeric:
                    np.exp(S - L, out=S)
                if tr is not None:
                    for a, b, i, j in _pairs(i0, i1, c + j0, c + j1):
                        tr.compute(f"P[{i},{j}]", "S", (a, b))
                mc.store("S", "P", i0, i1, j0, j1)
                mc.free("S")
            mc.free("Lb")

        for ib, (i0, i1) in enumerate(bands):
            i0, i1 = i0 + r, i1 + r
            mc.step(f"stage 2: dS = P * (dO V^T - D), group {g}, row band {ib}")
            D = mc.alloc("Db", i1 - i0)
            for jb, (j0, j1) in enumerate(tiles):
                dP = mc.alloc("dP", i1 - i0, j1 - j0)
                for x in range(d):
                    o_ = mc.load("g", "dO", i0, i1, x, x + 1)
                    v = mc.load("v", "V", c + j0, c + j1, x, x + 1)
                    if numeric:
                        dP += o_ @ v.T
                    if tr is not None:
                        for a, b, i, j in _pairs(i0, i1, c + j0, c + j1):
                            tr.compute(terms["dP"](i, j, x), "dP", (a, b))
                    if jb == 0:
                        o = mc.load("o", "O", i0, i1, x, x + 1)
                        if numeric:
                            D += o_ * o
                        if tr is not None:
                            for a, i in enumerate(range(i0, i1)):
                                tr.compute(chain_term(f"D[{i}]", f"dOO[{i},{x}]", x, d), "Db", a)
                        mc.free("o")
                    mc.free("g", "v")
                for i in range(i0, i1):
                    p = mc.load("p", "P", i, i + 1, j0, j1)
                    if numeric:
                        dP[i - i0] = p * (dP[i - i0] - D[i - i0])
                    if tr is not None:
                        for b, j in enumerate(range(c + j0, c + j1)):
                            tr.compute(f"dS[{i},{j}]", "dP", (i - i0, b))
                    mc.free("p")
                mc.store("dP", "dS", i0, i1, j0, j1)
                mc.free("dP")
            mc.free("Db")

        own, inner = (c, c + keys), (r, r + rows)
        mc.step(f"stage 3: dV = P^T dO, group {g}")
        _stationary_product(mc, "dV", "P", "dO", (own, inner, d), tile, transposed=True,
                            key0=c, terms=terms["dV"])  # fmt: skip
        mc.step(f"stage 4: dK = dS^T Q, group {g}")
        _stationary_product(mc, "dK", "dS", "Q", (own, inner, d), tile, transposed=True,
                            key0=c, terms=terms["dK"])  # fmt: skip
        mc.step(f"stage 5: dQ = dS K, group {g}")
        _stationary_product(mc, "dQ", "dS", "K", (inner, own, d), tile, transposed=False,
                            key0=c, terms=terms["dQ"])  # fmt: skip


def _pairs(i0: int, i1: int, j0: int, j1: int):
    """(row in tile, column in tile, i, j) over a tile, row by row."""
    for a, i in enumerate(range(i0, i1)):
        for b, j in enumerate(range(j0, j1)):
            yield a, b, i, j
