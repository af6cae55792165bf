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

References
----------
DFE22 Algorithm 0, Algorithm 3, Theorem 2, Theorem 5.
"""

from __future__ import annotations

import numpy as np

from attnio.bounds.blocks import STANDARD_TILES

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
