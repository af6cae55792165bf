"""Square tiling for small caches: SY24's forward algorithm and attnio's tiled backward.

Every matrix product is computed tile by tile with square tiles of side T: an
output tile stays in fast memory while the matching tiles of the two factors
stream through it. The n x n intermediates (A forward; P and dS backward) are
written to slow memory. With T = floor(sqrt(M / 4)) three tiles and one row
vector of T words fit in M.

* Forward (SY24 Alg. 1, Thm 3.5): ``A = exp(Q K^T)`` tile by tile, with the row
  sums ``D = A 1`` accumulated on the way; then ``O = D^{-1} A V``.
* Backward (attnio's design for LLSSZ24's small-cache algorithm, whose steps we
  could not read): ``Dvec = rowsum(dO * O)``; ``P = exp(Q K^T - L)``;
  ``dS = P * (dO V^T - Dvec)``; ``dV = P^T dO``, ``dQ = dS K``, ``dK = dS^T Q``,
  each a tiled product. It moves ``5nd + 3n + 7 ceil(n/T) nd + (3 + 3 ceil(d/T)) n^2``
  words (the record ``tiled-backward-count``). For 16 <= M < d^2 this is at most
  ``46 (n^2 d + n d^2) / sqrt(M)``: T >= sqrt(M) / 4 gives ceil(n/T) <= 4n/sqrt(M) + 1
  and ceil(d/T) <= 4d/sqrt(M) + 1, so the count is at most
  ``12nd + 3n + 6n^2 + 40 n^2 d / sqrt(M)``; and sqrt(M) < d gives
  n^2 < n^2 d / sqrt(M), n <= nd < n d^2 / sqrt(M). That is LLSSZ24's small-cache
  rate O((n^2 d + n d^2) / sqrt(M)) (tests/test_tiling.py checks the constant).

An optional tile mask (``T_n x T_n`` booleans) skips the score tiles it marks
empty: the sparse square tiling of :mod:`~attnio.algorithms.sparse`.

References
----------
SY24 Algorithm 1 and Theorem 3.5; LLSSZ24 Algorithm 6, Theorems 4.3 and 4.4 (the
small-cache backward bound this algorithm meets); HK81 (square tiling of matmul).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from attnio.bounds.blocks import SQUARE_TILES

from .errors import BlocksDoNotFitError
from .flash import chain_ranks, element_mask
from .machine import TwoLevelMachine, blocks

Hook = Callable[[int, int, int], None]


def square_tile(M: int) -> int:
    """Return SY24's tile side ``floor(sqrt(M / 4))``; refuse M < 4."""
    tile = SQUARE_TILES.side(M)
    if tile < 1:
        raise BlocksDoNotFitError(
            f"{SQUARE_TILES.label}: M={M} leaves no room for a tile; "
            f"it needs M >= {SQUARE_TILES.tiles}"
        )
    return tile


def tiled_product(
    mc: TwoLevelMachine,
    out: str,
    left: str,
    right: str,
    dims: tuple[int, int, int],
    tile: int,
    *,
    left_t: bool = False,
    right_t: bool = False,
    row_start: Hook | None = None,
    row_end: Hook | None = None,
    epilogue: Callable[[int, int, int, int, np.ndarray | None], None] | None = None,
    active_out: Callable[[int, int], bool] | None = None,
    active_inner: Callable[[int, int, int], bool] | None = None,
    terms: Callable[[int, int, int], str] | None = None,
) -> None:
    """Compute ``out = op(left) @ op(right)`` (m x p, inner k) with square tiles.

    ``op`` transposes a factor stored transposed (``left_t``: left is k x m;
    ``right_t``: right is p x k). For each output tile (row band outer):
    accumulate over the inner tiles, call ``epilogue(i0, i1, j0, j1, C)``
    (which may load and free buffers of its own and change C in place), store the
    tile. ``row_start`` / ``row_end`` run around each row band.
    ``active_out(ib, jb)`` false skips an output tile; ``active_inner(ib, jb, kb)``
    false skips an inner step. ``terms(i, j, t)`` labels the vertex of the graph that adds
    the t-th inner term to out[i, j] (a chain over t, the order the tiles accumulate in),
    for a :class:`~attnio.algorithms.trace.Trace` attached to the machine.
    """
    m, k, p = dims
    numeric = mc.numeric
    inner = blocks(k, tile)
    for ib, (i0, i1) in enumerate(blocks(m, tile)):
        if row_start is not None:
            row_start(ib, i0, i1)
        for jb, (j0, j1) in enumerate(blocks(p, tile)):
            if active_out is not None and not active_out(ib, jb):
                continue
            C = mc.alloc("C", i1 - i0, j1 - j0)
            for kb, (k0, k1) in enumerate(inner):
                if active_inner is not None and not active_inner(ib, jb, kb):
                    continue
                if left_t:
                    A = mc.load("A", left, k0, k1, i0, i1)
                else:
                    A = mc.load("A", left, i0, i1, k0, k1)
                if right_t:
                    B = mc.load("B", right, j0, j1, k0, k1)
                else:
                    B = mc.load("B", right, k0, k1, j0, j1)
                if numeric:
                    C += (A.T if left_t else A) @ (B.T if right_t else B)
                if mc.trace is not None and terms is not None:
                    for a, i in enumerate(range(i0, i1)):
                        for b, j in enumerate(range(j0, j1)):
                            for t in range(k0, k1):
                                mc.trace.compute(terms(i, j, t), "C", (a, b))
                mc.free("A", "B")
            if epilogue is not None:
                epilogue(i0, i1, j0, j1, C)
            mc.store("C", out, i0, i1, j0, j1)
            mc.free("C")
        if row_end is not None:
            row_end(ib, i0, i1)


def square_tiling_forward(
    machine: TwoLevelMachine, n: int, d: int, tile_mask: np.ndarray | None = None
) -> None:
    """Run SY24 Alg. 1: writes A = exp(Q K^T), D = A 1 and O = D^{-1} A V to slow memory."""
    mc, tile = machine, square_tile(machine.M)
    numeric = mc.numeric
    ranks = None
    if tile_mask is not None and mc.trace is not None:
        ranks = chain_ranks(element_mask(tile_mask, n, tile, tile))

    def place(i: int, j: int) -> tuple[int, int]:
        """Pair (i, j)'s place in row i's chains and their length (the masked graph's)."""
        return (j, n) if ranks is None else (int(ranks[0][i, j]), int(ranks[1][i]))

    mc.create("A", n, n)
    mc.create("D", n, 1)
    mc.create("O", n, d)
    state: dict[str, np.ndarray | None] = {}

    def open_rowsum(ib: int, i0: int, i1: int) -> None:
        state["D"] = mc.alloc("Di", i1 - i0)

    def exp_and_sum(i0: int, i1: int, j0: int, j1: int, C: np.ndarray | None) -> None:
        if numeric:
            np.exp(C, out=C)
            state["D"] += C.sum(axis=1, keepdims=True)
        if mc.trace is not None:  # SY24's graph (attnio.pebble.builders.sy24_forward)
            for a, i in enumerate(range(i0, i1)):
                for b, j in enumerate(range(j0, j1)):
                    mc.trace.compute(f"exp[{i},{j}]", "C", (a, b))
                    label = chain_term(f"rowsum[{i}]", f"exp[{i},{j}]", *place(i, j))
                    mc.trace.compute(label, "Di", a)

    def close_rowsum(ib: int, i0: int, i1: int) -> None:
        mc.store("Di", "D", i0, i1, 0, 1)
        mc.free("Di")

    mc.step("phase 1: A = exp(Q K^T), D = A 1")
    tiled_product(
        mc,
        "A",
        "Q",
        "K",
        (n, d, n),
        tile,
        right_t=True,
        row_start=open_rowsum,
        epilogue=exp_and_sum,
        row_end=close_rowsum,
        active_out=None if tile_mask is None else (lambda ib, jb: tile_mask[ib, jb]),
        terms=lambda i, j, l: chain_term(f"S[{i},{j}]", f"QK[{i},{j},{l}]", l, d),
    )

    def load_rowsum(ib: int, i0: int, i1: int) -> None:
        state["D"] = mc.load("Di", "D", i0, i1, 0, 1)

    def normalise(i0: int, i1: int, j0: int, j1: int, C: np.ndarray | None) -> None:
        if numeric:
            C /= state["D"]
        if mc.trace is not None:
            for a, i in enumerate(range(i0, i1)):
                for b, k in enumerate(range(j0, j1)):
                    mc.trace.compute(f"O[{i},{k}]", "C", (a, b))

    mc.step("phase 2: O = D^{-1} A V")
    tiled_product(
        mc,
        "O",
        "A",
        "V",
        (n, n, d),
        tile,
        row_start=load_rowsum,
        epilogue=normalise,
        row_end=lambda ib, i0, i1: mc.free("Di"),
        active_inner=None if tile_mask is None else (lambda ib, jb, kb: tile_mask[ib, kb]),
        terms=lambda i, k, j: chain_term(f"U[{i},{k}]", f"AV[{i},{j},{k}]", *place(i, j)),
    )


def chain_term(name: str, leaf: str, t: int, count: int) -> str:
    """Label of the vertex adding the t-th of ``count`` terms in the builders' chain trees."""
    if t == count - 1:
        return name
    return leaf if t == 0 else f"{name}+{t}"


def backward_terms(
    n: int, d: int, allowed: np.ndarray | None = None
) -> dict[str, Callable[[int, int, int], str]]:
    """The ``terms`` of each tiled product of the backward graph (chain trees): for the
    output named, (row, column, inner index) -> the label of the vertex adding that term.
    With an n x n ``allowed`` mask, the graph is
    :func:`~attnio.pebble.builders.masked_backward`'s: the chains of dQ_i run over query
    i's allowed keys, those of dV_j and dK_j over key j's queries."""
    ranks = None if allowed is None else chain_ranks(allowed)

    def by_key(i: int, j: int) -> tuple[int, int]:  # (place, count) in dQ_i's chain
        return (j, n) if ranks is None else (int(ranks[0][i, j]), int(ranks[1][i]))

    def by_query(i: int, j: int) -> tuple[int, int]:  # in dV_j's and dK_j's chains
        return (i, n) if ranks is None else (int(ranks[2][i, j]), int(ranks[3][j]))

    return {
        "S": lambda i, j, l: chain_term(f"S[{i},{j}]", f"QK[{i},{j},{l}]", l, d),
        "dP": lambda i, j, k: chain_term(f"dP[{i},{j}]", f"dOV[{i},{j},{k}]", k, d),
        "dV": lambda j, k, i: chain_term(f"dV[{j},{k}]", f"PdO[{i},{j},{k}]", *by_query(i, j)),
        "dQ": lambda i, l, j: chain_term(f"dQ[{i},{l}]", f"dSK[{i},{j},{l}]", *by_key(i, j)),
        "dK": lambda j, l, i: chain_term(f"dK[{j},{l}]", f"dSQ[{i},{j},{l}]", *by_query(i, j)),
    }


def rowsum_product(
    mc: TwoLevelMachine, out: str, left: str, right: str, n: int, d: int, tile: int
) -> None:
    """Write ``out = rowsum(left * right)`` (n x 1) streaming T x T tiles of both n x d inputs."""
    numeric = mc.numeric
    for i0, i1 in blocks(n, tile):
        acc = mc.alloc("acc", i1 - i0)
        for c0, c1 in blocks(d, tile):
            X = mc.load("X", left, i0, i1, c0, c1)
            Y = mc.load("Y", right, i0, i1, c0, c1)
            if numeric:
                acc += np.sum(X * Y, axis=1, keepdims=True)
            if mc.trace is not None:  # the chain of D_i in the backward graph
                for a, i in enumerate(range(i0, i1)):
                    for t in range(c0, c1):
                        mc.trace.compute(chain_term(f"D[{i}]", f"dOO[{i},{t}]", t, d), "acc", a)
            mc.free("X", "Y")
        mc.store("acc", out, i0, i1, 0, 1)
        mc.free("acc")


def tiled_backward(
    machine: TwoLevelMachine, n: int, d: int, tile_mask: np.ndarray | None = None
) -> None:
    """Run attnio's small-cache backward: square tiling of every backward product.

    Inputs Q, K, V, O, dO (n x d) and L (n x 1); writes Dvec, P, dS (intermediates)
    and dQ, dK, dV. With ``tile_mask`` (T_n x T_n), the empty tiles of P and dS are
    neither computed nor read (the sparse tiled backward).
    """
    if tile_mask is None:
        on_tile = on_row_inner = on_column_inner = None
    else:

        def on_tile(ib: int, jb: int) -> bool:  # output tile (i, j) of P or dS
            return tile_mask[ib, jb]

        def on_row_inner(ib: int, jb: int, kb: int) -> bool:  # dQ: dS tile (i, k)
            return tile_mask[ib, kb]

        def on_column_inner(ib: int, jb: int, kb: int) -> bool:  # dV, dK: tile (k, j)
            return tile_mask[kb, ib]

    mc, tile = machine, square_tile(machine.M)
    numeric = mc.numeric
    allowed = None
    if tile_mask is not None and mc.trace is not None:
        allowed = element_mask(tile_mask, n, tile, tile)
    terms = backward_terms(n, d, allowed)
    for name, rows, cols in (
        ("Dvec", n, 1),
        ("P", n, n),
        ("dS", n, n),
        ("dQ", n, d),
        ("dK", n, d),
        ("dV", n, d),
    ):
        mc.create(name, rows, cols)
    state: dict[str, np.ndarray | None] = {}

    mc.step("Dvec = rowsum(dO * O)")
    rowsum_product(mc, "Dvec", "dO", "O", n, d, tile)

    def load_row(source: str) -> Hook:
        def hook(ib: int, i0: int, i1: int) -> None:
            state["row"] = mc.load("row", source, i0, i1, 0, 1)

        return hook

    def free_row(ib: int, i0: int, i1: int) -> None:
        mc.free("row")

    def probabilities(i0: int, i1: int, j0: int, j1: int, C: np.ndarray | None) -> None:
        if numeric:
            np.exp(C - state["row"], out=C)
        if mc.trace is not None:
            for a, i in enumerate(range(i0, i1)):
                for b, j in enumerate(range(j0, j1)):
                    mc.trace.compute(f"P[{i},{j}]", "C", (a, b))

    mc.step("P = exp(Q K^T - L)")
    tiled_product(
        mc,
        "P",
        "Q",
        "K",
        (n, d, n),
        tile,
        right_t=True,
        row_start=load_row("L"),
        epilogue=probabilities,
        row_end=free_row,
        active_out=on_tile,
        terms=terms["S"],
    )

    def score_gradient(i0: int, i1: int, j0: int, j1: int, C: np.ndarray | None) -> None:
        P = mc.load("Ptile", "P", i0, i1, j0, j1)
        if numeric:
            C[...] = P * (C - state["row"])
        if mc.trace is not None:
            for a, i in enumerate(range(i0, i1)):
                for b, j in enumerate(range(j0, j1)):
                    mc.trace.compute(f"dS[{i},{j}]", "C", (a, b))
        mc.free("Ptile")

    mc.step("dS = P * (dO V^T - Dvec)")
    tiled_product(
        mc,
        "dS",
        "dO",
        "V",
        (n, d, n),
        tile,
        right_t=True,
        row_start=load_row("Dvec"),
        epilogue=score_gradient,
        row_end=free_row,
        active_out=on_tile,
        terms=terms["dP"],
    )
    mc.step("dV = P^T dO")
    tiled_product(
        mc, "dV", "P", "dO", (n, n, d), tile, left_t=True, active_inner=on_column_inner,
        terms=terms["dV"],
    )  # fmt: skip
    mc.step("dQ = dS K")
    tiled_product(
        mc, "dQ", "dS", "K", (n, n, d), tile, active_inner=on_row_inner, terms=terms["dQ"]
    )
    mc.step("dK = dS^T Q")
    tiled_product(
        mc, "dK", "dS", "Q", (n, n, d), tile, left_t=True, active_inner=on_column_inner,
        terms=terms["dK"],
    )  # fmt: skip
