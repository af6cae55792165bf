"""Standard attention: materialise the n x n matrices in slow memory (DFE22 Alg. 0 and 3).

Every matrix product is a tiled product (:func:`~attnio.algorithms.tiling.tiled_product`)
with square tiles of side ``T = floor(sqrt(M / 3))`` (three tiles fit); the
softmax and the elementwise steps stream T x T tiles of the n x n matrices.

* Forward (DFE22 Alg. 0): ``S = Q K^T`` written; softmax in two sweeps over each
  row band of S (row max and sum, then ``P = exp(S - m) / l`` written); ``O = P V``.
* Backward (DFE22 Alg. 3 on FlashAttention-2's inputs, D23): ``Dvec = rowsum(dO * O)``;
  ``S = Q K^T`` and ``P = exp(S - L)`` written; ``dV = P^T dO``; ``dP = dO V^T``
  written; ``dS = P * (dP - Dvec)`` written; ``dQ = dS K``; ``dK = dS^T Q``.

Its cost is Theta(n d + n^2) once M >= d^2 (DFE22 Thm 2, Thm 5), and
Theta(n^2 d / sqrt(M)) below.

* Score-panel forward (attnio's own, for M near d^2): S written and read once, by
  panels of b = floor((M - d)/(d + 3)) query rows. Pass 1 keeps a block of query rows
  q_i with their running maximum m_i and sum l_i and streams k_j, writing the column
  S_ij of the block; pass 2 keeps the block's output rows o_i with m_i, l_i and streams
  the stored column and v_j, adding exp(S_ij - m_i) / l_i v_j. Leading term
  2 n^2 d / b + 2 n^2: below both row streaming's 4 n^2 d^2 / M and output-stationary
  tiling's 4 n^2 d / sqrt(M) + n^2 for M from about d^2 / 3 to d^2.
  Its two passes, :func:`score_panel_scores` and :func:`score_panel_outputs`, run over
  ranges of rows and keys, so ``attnio.algorithms.shapes.gqa_score_panel_forward`` runs
  them on each key/value head's group of stacked query rows.

References
----------
DFE22 Algorithm 0, Algorithm 3, Theorem 2, Theorem 5.
"""

from __future__ import annotations

import numpy as np

from attnio.bounds.blocks import SCORE_PANEL_BLOCKS, STANDARD_TILES

from .errors import BlocksDoNotFitError
from .machine import TwoLevelMachine, blocks
from .tiling import backward_terms, chain_term, rowsum_product, tiled_product


def standard_tile(M: int) -> int:
    """Return the tile side ``floor(sqrt(M / 3))``; refuse M < 3."""
    tile = STANDARD_TILES.side(M)
    if tile < 1:
        raise BlocksDoNotFitError(
            f"{STANDARD_TILES.label}: M={M} leaves no room for a tile; "
            f"it needs M >= {STANDARD_TILES.tiles}"
        )
    return tile


def standard_forward(machine: TwoLevelMachine, n: int, d: int) -> None:
    """Run standard attention forward: writes S, P and O to slow memory."""
    mc, tile = machine, standard_tile(machine.M)
    numeric = mc.numeric
    for name, cols in (("S", n), ("P", n), ("O", d)):
        mc.create(name, n, cols)
    terms, tr = backward_terms(n, d), mc.trace  # attnio.pebble.builders.twopass_forward
    mc.step("S = Q K^T")
    tiled_product(mc, "S", "Q", "K", (n, d, n), tile, right_t=True, terms=terms["S"])
    mc.step("P = softmax(S)")
    for i0, i1 in blocks(n, tile):
        m = mc.alloc("m", i1 - i0, fill=-np.inf)
        l = mc.alloc("l", i1 - i0)
        for jb, (j0, j1) in enumerate(blocks(n, tile)):
            S = mc.load("Stile", "S", i0, i1, j0, j1)
            if numeric:
                new = np.maximum(m, S.max(axis=1, keepdims=True))
                l[...] = l * np.exp(m - new) + np.exp(S - new).sum(axis=1, keepdims=True)
                m[...] = new
            if tr is not None:  # "new" is the machine's uncharged temporary
                for a, i in enumerate(range(i0, i1)):
                    new_m = f"m[{i},{jb}]" if jb else f"tmax[{i},0]"
                    tr.compute(new_m)
                    tr.compute(f"l[{i},{jb}]" if jb else f"esum[{i},0]", "l", a)
                    tr.bind("m", a, new_m)
                    tr.release(new_m)
            mc.free("Stile")
        for j0, j1 in blocks(n, tile):
            S = mc.load("Stile", "S", i0, i1, j0, j1)
            if numeric:
                S[...] = np.exp(S - m) / l
            if tr is not None:
                for a, i in enumerate(range(i0, i1)):
                    for b, j in enumerate(range(j0, j1)):
                        tr.compute(f"P[{i},{j}]", "Stile", (a, b))
            mc.store("Stile", "P", i0, i1, j0, j1)
            mc.free("Stile")
        mc.free("m", "l")
    mc.step("O = P V")
    tiled_product(
        mc, "O", "P", "V", (n, n, d), tile,
        terms=lambda i, k, j: chain_term(f"O[{i},{k}]", f"PV[{i},{j},{k}]", j, n),
    )  # fmt: skip


def _elementwise(
    mc: TwoLevelMachine,
    n: int,
    tile: int,
    row: str,
    inputs: tuple[str, ...],
    out: str,
    rule,
    label: str = "",
) -> None:
    """Stream T x T tiles of ``inputs`` and a row vector, write ``out = rule(row, *tiles)``
    (the vertex ``label[i,j]`` of the graph, for a trace)."""
    numeric = mc.numeric
    for i0, i1 in blocks(n, tile):
        vec = mc.load("vec", row, i0, i1, 0, 1)
        for j0, j1 in blocks(n, tile):
            tiles = [mc.load(f"in{k}", name, i0, i1, j0, j1) for k, name in enumerate(inputs)]
            if numeric:
                tiles[0][...] = rule(vec, *tiles)
            if mc.trace is not None:
                for a, i in enumerate(range(i0, i1)):
                    for b, j in enumerate(range(j0, j1)):
                        mc.trace.compute(f"{label}[{i},{j}]", "in0", (a, b))
            mc.store("in0", out, i0, i1, j0, j1)
            mc.free(*(f"in{k}" for k in range(len(inputs))))
        mc.free("vec")


def standard_backward(machine: TwoLevelMachine, n: int, d: int) -> None:
    """Run standard attention backward: writes Dvec, S, P, dP, dS and dQ, dK, dV."""
    mc, tile = machine, standard_tile(machine.M)
    for name, cols in (
        ("Dvec", 1),
        ("S", n),
        ("P", n),
        ("dP", n),
        ("dS", n),
        ("dQ", d),
        ("dK", d),
        ("dV", d),
    ):
        mc.create(name, n, cols)
    mc.step("Dvec = rowsum(dO * O)")
    rowsum_product(mc, "Dvec", "dO", "O", n, d, tile)
    terms = backward_terms(n, d)
    mc.step("S = Q K^T")
    tiled_product(mc, "S", "Q", "K", (n, d, n), tile, right_t=True, terms=terms["S"])
    mc.step("P = exp(S - L)")
    _elementwise(mc, n, tile, "L", ("S",), "P", lambda L, S: np.exp(S - L), "P")
    mc.step("dV = P^T dO")
    tiled_product(mc, "dV", "P", "dO", (n, n, d), tile, left_t=True, terms=terms["dV"])
    mc.step("dP = dO V^T")
    tiled_product(mc, "dP", "dO", "V", (n, d, n), tile, right_t=True, terms=terms["dP"])
    mc.step("dS = P * (dP - Dvec)")
    _elementwise(mc, n, tile, "Dvec", ("P", "dP"), "dS", lambda D, P, dP: P * (dP - D), "dS")
    mc.step("dQ = dS K")
    tiled_product(mc, "dQ", "dS", "K", (n, n, d), tile, terms=terms["dQ"])
    mc.step("dK = dS^T Q")
    tiled_product(mc, "dK", "dS", "Q", (n, n, d), tile, left_t=True, terms=terms["dK"])


def score_panel_block(d: int, M: int) -> int:
    """Query rows per panel of :func:`score_panel_forward` (``SCORE_PANEL_BLOCKS``)."""
    rows = SCORE_PANEL_BLOCKS.block(d, M)
    if rows < 1:
        raise BlocksDoNotFitError(
            f"{SCORE_PANEL_BLOCKS.label}: M={M} leaves no room for a block; it needs "
            f"M >= {SCORE_PANEL_BLOCKS.least_memory(d)} words"
        )
    return rows


def score_panel_scores(
    mc: TwoLevelMachine,
    d: int,
    rows: int,
    q: tuple[int, int],
    kv: tuple[int, int],
    step: str = "",
) -> None:
    """Pass 1 of :func:`score_panel_forward` on the query rows ``q`` = [q0, q1) against the
    keys ``kv`` = [k0, k1): panels of ``rows`` query rows resident with m_i and l_i, each
    key row k_j streaming past once per panel; the panel's column S_ij (column j - k0 of
    the slow array S) stored per key, m and l stored per panel. ``step`` prefixes the
    panel in the step labels (a key/value head)."""
    numeric, tr = mc.numeric, mc.trace
    for b, (r0, r1) in enumerate(blocks(q[1] - q[0], rows)):
        r0, r1 = r0 + q[0], r1 + q[0]
        mc.step(f"S by panels and the row statistics, {step}query block {b}")
        Qi = mc.load("Qi", "Q", r0, r1, 0, d)
        m = mc.alloc("m", r1 - r0, fill=-np.inf)
        l = mc.alloc("l", r1 - r0)
        for j in range(*kv):
            kj = mc.load("kj", "K", j, j + 1, 0, d)
            s = mc.alloc("s", r1 - r0)
            if numeric:
                s[...] = Qi @ kj.T
                new = np.maximum(m, s)
                l[...] = l * np.exp(m - new) + np.exp(s - new)
                m[...] = new
            if tr is not None:  # the new maximum is the machine's uncharged temporary
                c = j - kv[0]  # the key's tile (of one key) within its head
                for a, i in enumerate(range(r0, r1)):
                    tr.compute(f"S[{i},{j}]", "s", a)
                    new_m = f"m[{i},{c}]" if c else f"tmax[{i},0]"
                    tr.compute(new_m)
                    tr.compute(f"l[{i},{c}]" if c else f"esum[{i},0]", "l", a)
                    tr.bind("m", a, new_m)
                    tr.release(new_m)
            mc.store("s", "S", r0, r1, j - kv[0], j - kv[0] + 1)
            mc.free("kj", "s")
        mc.store("m", "m", r0, r1, 0, 1)
        mc.store("l", "l", r0, r1, 0, 1)
        mc.free("Qi", "m", "l")


def score_panel_outputs(
    mc: TwoLevelMachine,
    d: int,
    rows: int,
    q: tuple[int, int],
    kv: tuple[int, int],
    step: str = "",
) -> None:
    """Pass 2 of :func:`score_panel_forward` on the query rows ``q`` against the keys
    ``kv``: panels of ``rows`` output rows resident with m_i and l_i; per key j the
    stored column S_ij of the panel and v_j in, o_i += exp(S_ij - m_i) / l_i v_j; O
    stored per panel. ``step`` as :func:`score_panel_scores`."""
    numeric, tr = mc.numeric, mc.trace
    for b, (r0, r1) in enumerate(blocks(q[1] - q[0], rows)):
        r0, r1 = r0 + q[0], r1 + q[0]
        mc.step(f"O = P V by panels, {step}query block {b}")
        m = mc.load("m", "m", r0, r1, 0, 1)
        l = mc.load("l", "l", r0, r1, 0, 1)
        Oi = mc.alloc("Oi", r1 - r0, d)
        for j in range(*kv):
            col = mc.load("col", "S", r0, r1, j - kv[0], j - kv[0] + 1)
            vj = mc.load("vj", "V", j, j + 1, 0, d)
            if numeric:
                col[...] = np.exp(col - m) / l
                Oi += col * vj
            if tr is not None:
                for a, i in enumerate(range(r0, r1)):
                    tr.compute(f"P[{i},{j}]", "col", a)
                    for k in range(d):
                        label = chain_term(
                            f"O[{i},{k}]", f"PV[{i},{j},{k}]", j - kv[0], kv[1] - kv[0]
                        )
                        tr.compute(label, "Oi", (a, k))
            mc.free("col", "vj")
        mc.store("Oi", "O", r0, r1, 0, d)
        mc.free("m", "l", "Oi")


def score_panel_forward(machine: TwoLevelMachine, n: int, d: int) -> None:
    """Run the score-panel forward: writes S, the row statistics m, l and O.

    Panels of ``SCORE_PANEL_BLOCKS.block(d, M)`` query rows. Pass 1
    (:func:`score_panel_scores`): q_i resident with
    m_i and l_i (per key j: S_ij = q_i . k_j, m' = max(m_i, S_ij), l_i <- l_i exp(m_i -
    m') + exp(S_ij - m'), m_i <- m'), the block's column of S stored; m and l stored.
    Pass 2 (:func:`score_panel_outputs`): o_i resident with m_i and l_i; per key j the
    stored column of S and v_j in, o_i += exp(S_ij - m_i) / l_i v_j. Its graph is
    standard attention's (:func:`attnio.pebble.builders.twopass_forward` with key tiles of
    one key); the exact count is the record ``score-panel-forward-count``;
    :func:`attnio.algorithms.shapes.gqa_score_panel_forward` runs the same passes on each
    key/value head's group of stacked query rows.
    """
    rows = score_panel_block(d, machine.M)
    for name, cols in (("S", n), ("m", 1), ("l", 1), ("O", d)):
        machine.create(name, n, cols)
    score_panel_scores(machine, d, rows, (0, n), (0, n))
    score_panel_outputs(machine, d, rows, (0, n), (0, n))
