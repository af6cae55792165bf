"""FlashAttention forward and backward (DFE22 Alg. 1 and 4) and FlashAttention-2's loop order (D23).

Each function runs on a :class:`~attnio.algorithms.machine.TwoLevelMachine`
holding the inputs, performs every transfer the paper's algorithm performs, and
leaves its outputs in slow memory. An optional block mask (see
:mod:`~attnio.algorithms.masks`) turns FlashAttention into block-sparse
FlashAttention (DFE22 Prop 4): masked blocks are skipped.

Block sizes follow the rules of :mod:`attnio.bounds.blocks` (the count records
read the same rules): DFE22's ``B_c = ceil(M / 4d)`` overflows M words, so attnio
divides M by the exact number of words one unit of block size costs.

The loops run over ranges of query rows and keys (:func:`flash_forward_keys`,
:func:`flash_backward_keys`, :func:`flash2_forward_rows`, :func:`flash2_backward_keys`),
so :mod:`attnio.algorithms.shapes` runs the same loops on each key/value head's group.

Backward passes use FlashAttention-2's inputs (Q, K, V, O, dO and the row
log-sum-exp L) for both loop orders; DFE22 Alg. 4 reads l and m instead of L.

References
----------
DFE22 Algorithm 1, Algorithm 4, Theorem 2, Theorem 5, Proposition 4; D23 Algorithms 1 and 2.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attnio.bounds.blocks import (
    FLASH2_BACKWARD_BLOCKS,
    FLASH2_FORWARD_BLOCKS,
    FLASH_BACKWARD_BLOCKS,
    FLASH_FORWARD_BLOCKS,
    BlockRule,
)

from .errors import BlocksDoNotFitError
from .machine import TwoLevelMachine, blocks


def _sizes(rule: BlockRule, d: int, M: int) -> tuple[int, int]:
    """Return ``(B_r, B_c)`` of ``rule``, or raise if M leaves no room for a block."""
    if rule.large_block(d, M) < 1:
        raise BlocksDoNotFitError(
            f"{rule.label}: M={M} leaves no room for a block; it needs M >= {rule.words(d)} words"
        )
    return rule.sizes(d, M)


def forward_blocks(d: int, M: int) -> tuple[int, int]:
    """Return ``(B_r, B_c)`` of FlashAttention forward (:data:`~attnio.bounds.blocks.FLASH_FORWARD_BLOCKS`)."""
    return _sizes(FLASH_FORWARD_BLOCKS, d, M)


def backward_blocks(d: int, M: int) -> tuple[int, int]:
    """Return ``(B_r, B_c)`` of FlashAttention backward."""
    return _sizes(FLASH_BACKWARD_BLOCKS, d, M)


def forward2_blocks(d: int, M: int) -> tuple[int, int]:
    """Return ``(B_r, B_c)`` of FlashAttention-2 forward."""
    return _sizes(FLASH2_FORWARD_BLOCKS, d, M)


def backward2_blocks(d: int, M: int) -> tuple[int, int]:
    """Return ``(B_r, B_c)`` of FlashAttention-2 backward."""
    return _sizes(FLASH2_BACKWARD_BLOCKS, d, M)


def flash_forward(
    machine: TwoLevelMachine,
    n: int,
    d: int,
    block_mask: np.ndarray | None = None,
    *,
    block_sizes: tuple[int, int] | None = None,
) -> None:
    """Run FlashAttention forward (DFE22 Alg. 1): reads Q, K, V; writes O, l, m.

    With ``block_mask`` (shape ``(T_r, T_c)``) it is block-sparse FlashAttention
    (DFE22 Prop 4): block (i, j) is skipped when ``block_mask[i, j]`` is false.
    ``block_sizes = (B_r, B_c)`` replaces attnio's rule (the count records then do
    not apply); tests use it to show that DFE22's own sizes overflow M.
    """
    sizes = forward_blocks(d, machine.M) if block_sizes is None else block_sizes
    machine.create("O", n, d)
    machine.create("l", n, 1)
    machine.create("m", n, 1)
    init_forward(machine, blocks(n, sizes[0]), d)
    flash_forward_keys(machine, d, sizes, (0, n), (0, n), block_mask=block_mask)


def init_forward(mc: TwoLevelMachine, rows: list[tuple[int, int]], d: int) -> None:
    """Initialise O = 0, l = 0, m = -inf in slow memory (DFE22 Alg. 1, line 2): per row
    block, store a block of each (alloc, store, free): d + 2 words a row."""
    mc.step("initialise O = 0, l = 0, m = -inf in slow memory")
    for r0, r1 in rows:
        mc.alloc("Oi", r1 - r0, d)
        mc.alloc("li", r1 - r0)
        mc.alloc("mi", r1 - r0, fill=-np.inf)
        mc.store("Oi", "O", r0, r1, 0, d)
        mc.store("li", "l", r0, r1, 0, 1)
        mc.store("mi", "m", r0, r1, 0, 1)
        mc.free("Oi", "li", "mi")


def flash_forward_keys(
    machine: TwoLevelMachine,
    d: int,
    sizes: tuple[int, int],
    rows: tuple[int, int],
    cols: tuple[int, int],
    *,
    block_mask: np.ndarray | None = None,
    step: str = "",
) -> None:
    """FlashAttention's forward loop (DFE22 Alg. 1, lines 5 to 15) on the keys
    ``cols = (k0, k1)`` of K, V against the query rows ``rows = (q0, q1)``: key blocks of
    B_c from k0 (the outer loop; each K_j, V_j loaded once), row blocks of B_r from q0
    (``sizes = (B_r, B_c)``), whose Q_i, O_i, l_i, m_i are loaded and O_i, l_i, m_i stored
    for every key block. Block indices count from k0 and q0 (``block_mask`` and the
    trace's labels). Rows q0..q1 of O, l, m must exist and hold their initial values
    (:func:`init_forward`). :func:`flash_forward` is one call on every row and key;
    :func:`attnio.algorithms.shapes.gqa_flash_forward` one per key/value head, on its
    group's stacked query rows. ``step`` prefixes the step names.
    """
    br, bc = sizes
    (q0, q1), (k0, k1) = rows, cols
    mc, numeric = machine, machine.numeric
    row_blocks = [(q0 + a, q0 + b) for a, b in blocks(q1 - q0, br)]
    key_blocks = [(k0 + a, k0 + b) for a, b in blocks(k1 - k0, bc)]
    visited = [  # the column blocks each row block computes
        [j for j in range(len(key_blocks)) if block_mask is None or block_mask[i, j]]
        for i in range(len(row_blocks))
    ]
    load, store, alloc, free = mc.load, mc.store, mc.alloc, mc.free
    for j, (c0, c1) in enumerate(key_blocks):
        mc.step(f"forward, {step}column block {j}")
        Kj = load("Kj", "K", c0, c1, 0, d)
        Vj = load("Vj", "V", c0, c1, 0, d)
        for i, (r0, r1) in enumerate(row_blocks):
            if block_mask is not None and not block_mask[i, j]:
                continue
            Qi = load("Qi", "Q", r0, r1, 0, d)
            Oi = load("Oi", "O", r0, r1, 0, d)
            li = load("li", "l", r0, r1, 0, 1)
            mi = load("mi", "m", r0, r1, 0, 1)
            S = alloc("S", r1 - r0, c1 - c0)
            mnew = alloc("mnew", r1 - r0)
            lnew = alloc("lnew", r1 - r0)
            if numeric:
                S[...] = Qi @ Kj.T
                np.maximum(mi, S.max(axis=1, keepdims=True), out=mnew)
                np.exp(S - mnew, out=S)  # P~ e^{m~ - m_new} of DFE22 Alg. 1, in place
                alpha = np.exp(mi - mnew)
                lnew[...] = alpha * li + S.sum(axis=1, keepdims=True)
                Oi[...] = (li * alpha * Oi + S @ Vj) / lnew
            if mc.trace is not None:
                seen = visited[i]
                _trace_forward(
                    mc.trace,
                    r0,
                    r1,
                    j,
                    c0,
                    c1,
                    d,
                    renormalise=True,
                    last=j == seen[-1],
                    first=seen[0],
                )
            store("Oi", "O", r0, r1, 0, d)
            store("lnew", "l", r0, r1, 0, 1)
            store("mnew", "m", r0, r1, 0, 1)
            free("Qi", "Oi", "li", "mi", "S", "mnew", "lnew")
        free("Kj", "Vj")


def element_mask(block_mask: np.ndarray, n: int, br: int, bc: int) -> np.ndarray:
    """The n x n mask of the pairs a (T_r, T_c) block mask of br x bc blocks allows."""
    full = np.kron(np.asarray(block_mask, dtype=bool), np.ones((br, bc), dtype=bool))
    return full[:n, :n]


def zero_dq(mc: TwoLevelMachine, rows: list[tuple[int, int]], d: int) -> None:
    """Initialise dQ = 0 in slow memory: per row block, store a zero block (alloc, store, free)."""
    mc.step("initialise dQ = 0 in slow memory")
    for r0, r1 in rows:
        mc.alloc("dQi", r1 - r0, d)
        mc.store("dQi", "dQ", r0, r1, 0, d)
        mc.free("dQi")


def flash_backward(
    machine: TwoLevelMachine, n: int, d: int, block_mask: np.ndarray | None = None
) -> None:
    """Run FlashAttention backward (DFE22 Alg. 4, inputs Q, K, V, O, dO, L); writes dQ, dK, dV.

    Dvec_i = rowsum(dO_i * O_i) is recomputed in every inner step, as in DFE22
    Alg. 4. Only dQ is initialised in slow memory (dK, dV blocks are
    accumulated in fast memory and written once). With ``block_mask``, masked
    blocks are skipped (block-sparse backward).
    """
    br, bc = backward_blocks(d, machine.M)
    mc = machine
    for name in ("dQ", "dK", "dV"):
        mc.create(name, n, d)
    zero_dq(mc, blocks(n, br), d)
    chains = (n, None)
    if mc.trace is not None and block_mask is not None:
        chains = (n, chain_ranks(element_mask(block_mask, n, br, bc)))
    flash_backward_keys(mc, d, (br, bc), (0, n), (0, n), chains, block_mask=block_mask)


def flash_backward_keys(
    machine: TwoLevelMachine,
    d: int,
    sizes: tuple[int, int],
    rows: tuple[int, int],
    cols: tuple[int, int],
    chains: tuple[int, tuple | None],
    *,
    block_mask: np.ndarray | None = None,
    step: str = "",
) -> None:
    """FlashAttention's backward loop (DFE22 Alg. 4, after dQ = 0) on the keys
    ``cols = (k0, k1)`` of K, V against the query rows ``rows = (q0, q1)``: key blocks of
    B_c from k0 resident with their dK, dV rows, row blocks of B_r from q0
    (``sizes = (B_r, B_c)``) streaming past, each loading Q_i, O_i, dO_i, dQ_i, L_i and
    storing dQ_i, with D_i recomputed in every step. Writes dQ and rows k0..k1 of dK, dV,
    which must exist. ``block_mask`` (row block, key block, counted from q0 and k0): the
    blocks skipped; ``chains``: as :func:`trace_backward_step`. ``step`` prefixes the step
    names.
    """
    br, bc = sizes
    (q0, q1), (k0, k1) = rows, cols
    mc, numeric = machine, machine.numeric
    load, store, alloc, free = mc.load, mc.store, mc.alloc, mc.free
    row_blocks = [(q0 + a, q0 + b) for a, b in blocks(q1 - q0, br)]
    for j, (c0, c1) in enumerate(blocks(k1 - k0, bc)):
        c0, c1 = k0 + c0, k0 + c1
        mc.step(f"backward, {step}column block {j}")
        Kj = load("Kj", "K", c0, c1, 0, d)
        Vj = load("Vj", "V", c0, c1, 0, d)
        dKj = alloc("dKj", c1 - c0, d)
        dVj = alloc("dVj", c1 - c0, d)
        for i, (r0, r1) in enumerate(row_blocks):
            if block_mask is not None and not block_mask[i, j]:
                continue
            Qi = load("Qi", "Q", r0, r1, 0, d)
            Oi = load("Oi", "O", r0, r1, 0, d)
            dOi = load("dOi", "dO", r0, r1, 0, d)
            dQi = load("dQi", "dQ", r0, r1, 0, d)
            Li = load("Li", "L", r0, r1, 0, 1)
            S = alloc("S", r1 - r0, c1 - c0)
            dP = alloc("dP", r1 - r0, c1 - c0)
            Di = alloc("Di", r1 - r0)
            if numeric:
                np.exp(Qi @ Kj.T - Li, out=S)  # P_ij
                dVj += S.T @ dOi
                dP[...] = dOi @ Vj.T
                Di[...] = np.sum(dOi * Oi, axis=1, keepdims=True)
                dP[...] = S * (dP - Di)  # dS_ij
                dQi += dP @ Kj
                dKj += dP.T @ Qi
            if mc.trace is not None:
                for a, r in enumerate(range(r0, r1)):
                    mc.trace.compute(f"D[{r}]", "Di", a)  # recomputed in every inner step
                trace_backward_step(
                    mc.trace, d, range(r0, r1), range(c0, c1), "S", "dP", (r0, c0), c0, chains
                )
            store("dQi", "dQ", r0, r1, 0, d)
            free("Qi", "Oi", "dOi", "dQi", "Li", "S", "dP", "Di")
        store("dKj", "dK", c0, c1, 0, d)
        store("dVj", "dV", c0, c1, 0, d)
        free("Kj", "Vj", "dKj", "dVj")


def _chain(name: str, leaf: str, t: int, count: int) -> str:
    """Label of the t-th vertex of a chain summation of ``count`` terms (the builders')."""
    if t == count - 1:
        return name
    return leaf if t == 0 else f"{name}+{t}"


def chain_ranks(allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Positions of each attended pair in the backward graph's chains, for a rows x keys
    mask: (the pair's place among its query's keys, each query's number of keys, its
    place among its key's queries, each key's number of queries)."""
    allowed = np.asarray(allowed, dtype=bool)
    return (
        np.cumsum(allowed, axis=1) - 1,
        allowed.sum(axis=1),
        np.cumsum(allowed, axis=0) - 1,
        allowed.sum(axis=0),
    )


def trace_backward_step(
    tr,
    d: int,
    rows: Sequence[int],
    keys: Sequence[int],
    p_buf: str,
    ds_buf: str,
    origin: tuple[int, int],
    key_row0: int,
    chains: tuple[int, tuple | None],
    dq_buffers: str | None = None,
    dq_part: tuple[int, int, int] | None = None,
    parts: tuple[str, ...] = ("dV", "dK", "dQ"),
    dq_row0: int | None = None,
) -> None:
    """Vertices of :func:`attnio.pebble.builders.attention_backward` (chain trees; with a
    mask, :func:`~attnio.pebble.builders.masked_backward`) one step of a backward
    schedule computes for the query ``rows`` and ``keys``: P_ij into ``p_buf`` and dS_ij into
    ``ds_buf`` (word (i - origin[0], j - origin[1])), the next term of the chains dV_j, dK_j
    (buffers ``dVj``, ``dKj``, row j - key_row0) and dQ_i (buffer ``dQi``, row i - origin[0]).
    ``chains`` is (n, None) for dense attention, or (n, :func:`chain_ranks` of the mask):
    the dV and dK chains run over a key's queries and the dQ chain over a query's keys in
    increasing order, the order every schedule accumulates them in. ``dq_buffers`` (a
    format such as ``"dQ{}"``): query i's dQ row is its own one-row buffer instead.
    ``dq_part = (b, first, count)``: the dQ terms of these keys go to the partial sum
    ``dQp[b,i,l]`` of the ``count`` keys from ``first`` on (``masked_backward`` with
    ``dq_starts``), not to the chain of dQ_i. ``parts``: the chains this step adds a term
    to (a sweep that makes only dV and dK, or only dQ, recomputes P_ij and dS_ij for its own
    chains); ``dq_row0``: row i - dq_row0 of ``dQi`` holds query i's dQ row (default
    i - origin[0])."""
    n, ranks = chains
    for i in rows:
        a = i - origin[0]
        for j in keys:
            b = j - origin[1]
            if ranks is None:
                tj, cj, ti, ci = j, n, i, n
            else:
                tj, cj = int(ranks[0][i, j]), int(ranks[1][i])
                ti, ci = int(ranks[2][i, j]), int(ranks[3][j])
            tr.compute(f"P[{i},{j}]", p_buf, (a, b))
            for k in range(d if "dV" in parts else 0):
                label = _chain(f"dV[{j},{k}]", f"PdO[{i},{j},{k}]", ti, ci)
                tr.compute(label, "dVj", (j - key_row0, k))
            tr.compute(f"dS[{i},{j}]", ds_buf, (a, b))
            dq, row = ("dQi", a) if dq_buffers is None else (dq_buffers.format(i), 0)
            if dq_row0 is not None:
                row = i - dq_row0
            for l in range(d):
                if "dQ" in parts:
                    leaf = f"dSK[{i},{j},{l}]"
                    if dq_part is None:
                        label = _chain(f"dQ[{i},{l}]", leaf, tj, cj)
                    else:
                        b, first, count = dq_part
                        label = _chain(f"dQp[{b},{i},{l}]", leaf, j - first, count)
                    tr.compute(label, dq, (row, l))
                if "dK" in parts:
                    label = _chain(f"dK[{j},{l}]", f"dSQ[{i},{j},{l}]", ti, ci)
                    tr.compute(label, "dKj", (j - key_row0, l))


def store_dvec(machine: TwoLevelMachine, n: int, d: int) -> None:
    """Write Dvec_i = rowsum(dO_i * O_i) to slow memory (D23 Alg. 2, line 4): blocks of
    floor(M / (2d + 1)) rows of dO and O in, one word a row out (2nd + n words)."""
    mc, numeric = machine, machine.numeric
    mc.create("Dvec", n, 1)
    mc.step("Dvec = rowsum(dO * O)")
    for r0, r1 in blocks(n, machine.M // (2 * d + 1)):
        dOr = mc.load("dOr", "dO", r0, r1, 0, d)
        Or = mc.load("Or", "O", r0, r1, 0, d)
        Dr = mc.alloc("Dr", r1 - r0)
        if numeric:
            Dr[...] = np.sum(dOr * Or, axis=1, keepdims=True)
        if mc.trace is not None:
            for a, i in enumerate(range(r0, r1)):
                mc.trace.compute(f"D[{i}]", "Dr", a)
        mc.store("Dr", "Dvec", r0, r1, 0, 1)
        mc.free("dOr", "Or", "Dr")


def _clip(
    spans: tuple[np.ndarray, np.ndarray] | None, a0: int, a1: int, b0: int, b1: int
) -> tuple[int, int]:
    """The part of block ``[b0, b1)`` some index of ``[a0, a1)`` pairs with: spans of
    ``[start(a), stop(a))`` intervals (``None``: all of it)."""
    if spans is None:
        return b0, b1
    return max(b0, int(spans[0][a0:a1].min())), min(b1, int(spans[1][a0:a1].max()))


def _allowed(spans: tuple[np.ndarray, np.ndarray], a0: int, a1: int, b0: int, b1: int):
    """The (a1 - a0) x (b1 - b0) pairs ``start(a) <= b < stop(a)`` allows, from the indices."""
    b = np.arange(b0, b1)
    return (spans[0][a0:a1, None] <= b) & (b < spans[1][a0:a1, None])


def flash2_forward(
    machine: TwoLevelMachine,
    n: int,
    d: int,
    *,
    keys: tuple[np.ndarray, np.ndarray] | None = None,
) -> None:
    """Run FlashAttention-2 forward (D23 Alg. 1): reads Q, K, V; writes O and L.

    With ``keys = (start, stop)`` query i attends to keys ``start[i] <= j < stop[i]``
    (an interval mask, :mod:`~attnio.algorithms.interval_masks`): row block
    ``[r0, r1)`` loads only the keys of its column blocks that one of its rows attends
    to (for the causal mask, the blocks above the diagonal are skipped and the diagonal
    block is cut at key r1 - 1), and masks the rest of each block from the indices.
    A traced run is a pebbling of :func:`~attnio.pebble.builders.online_forward` with
    the mask (each row's allowed keys only; a row with none in a block computes nothing
    there).
    """
    sizes = forward2_blocks(d, machine.M)
    machine.create("O", n, d)
    machine.create("L", n, 1)
    flash2_forward_rows(machine, d, sizes, (0, n), (0, n), keys=keys)


def flash2_forward_rows(
    machine: TwoLevelMachine,
    d: int,
    sizes: tuple[int, int],
    rows: tuple[int, int],
    cols: tuple[int, int],
    *,
    keys: tuple[np.ndarray, np.ndarray] | None = None,
    step: str = "",
) -> None:
    """FlashAttention-2's forward loop (D23 Alg. 1) on the query rows ``rows = (q0, q1)``
    of Q against the keys ``cols = (k0, k1)`` of K and V: row blocks of B_r from q0, key
    blocks of B_c from k0 (``sizes = (B_r, B_c)``), the key blocks counted from 0 in the
    trace's labels. Writes rows q0..q1 of O and L, which must exist. ``keys``: as
    :func:`flash2_forward` (global indices). :func:`flash2_forward` is one call on every
    row and key; :func:`attnio.algorithms.shapes.gqa_flash2_forward` one per key/value
    head, on its group's stacked query rows. ``step`` prefixes the step names.
    """
    br, bc = sizes
    (q0, q1), (k0, k1) = rows, cols
    mc, numeric = machine, machine.numeric
    load, alloc, free = mc.load, mc.alloc, mc.free
    key_blocks = [(k0 + a, k0 + b) for a, b in blocks(k1 - k0, bc)]
    for i, (r0, r1) in enumerate(blocks(q1 - q0, br)):
        r0, r1 = q0 + r0, q0 + r1
        mc.step(f"forward, {step}row block {i}")
        Qi = load("Qi", "Q", r0, r1, 0, d)
        Oi = alloc("Oi", r1 - r0, d)
        li = alloc("li", r1 - r0)
        mi = alloc("mi", r1 - r0, fill=-np.inf)
        for c, block in enumerate(key_blocks):
            c0, c1 = _clip(keys, r0, r1, *block)
            if c0 >= c1:
                continue
            Kj = load("Kj", "K", c0, c1, 0, d)
            Vj = load("Vj", "V", c0, c1, 0, d)
            S = alloc("S", r1 - r0, c1 - c0)
            mnew = alloc("mnew", r1 - r0)
            if numeric:
                S[...] = Qi @ Kj.T
                if keys is not None:
                    S[~_allowed(keys, r0, r1, c0, c1)] = -np.inf
                np.maximum(mi, S.max(axis=1, keepdims=True), out=mnew)
                shift = np.where(np.isfinite(mnew), mnew, 0.0)  # rows with no key yet
                np.exp(S - shift, out=S)
                alpha = np.exp(mi - shift)
                li[...] = alpha * li + S.sum(axis=1, keepdims=True)
                Oi[...] = alpha * Oi + S @ Vj
                mi[...] = mnew
            if mc.trace is not None:
                _trace_forward(
                    mc.trace, r0, r1, c, c0, c1, d, renormalise=False, last=False, keys=keys, bc=bc
                )
            free("Kj", "Vj", "S", "mnew")
        if numeric:
            Oi /= li
            mi += np.log(li)  # L_i = m_i + log l_i
        if mc.trace is not None:
            for a, i in enumerate(range(r0, r1)):
                for k in range(d):
                    mc.trace.compute(f"O[{i},{k}]", "Oi", (a, k))
                mc.trace.compute(f"L[{i}]", "mi", a)
        mc.store("Oi", "O", r0, r1, 0, d)
        mc.store("mi", "L", r0, r1, 0, 1)
        free("Qi", "Oi", "li", "mi")


def _trace_forward(
    tr,
    r0: int,
    r1: int,
    c: int,
    c0: int,
    c1: int,
    d: int,
    *,
    renormalise: bool,
    last: bool,
    first: int = 0,
    keys: tuple[np.ndarray, np.ndarray] | None = None,
    bc: int = 1,
) -> None:
    """The vertices one key block ``c`` (keys c0..c1) of a FlashAttention forward step
    computes for the query rows r0..r1, row by row: those of
    :func:`attnio.pebble.builders.online_forward` (FlashAttention-2) or, with
    ``renormalise``, of :func:`~attnio.pebble.builders.blockwise_forward` (FlashAttention,
    the output divided by the running sum every block; ``last``: the block giving O). The
    rescale factor alpha (and FlashAttention's alpha l) are registers the machine does not
    charge. ``first`` is the first key block the rows compute (a block mask skips some).
    ``keys = (start, stop)`` (an interval mask, key blocks of ``bc``): row i computes its
    keys ``start[i] <= j < stop[i]`` only, nothing in a block without one, and its first
    block is the one of key ``start[i]``.
    """
    for a, i in enumerate(range(r0, r1)):
        own = range(c0, c1)
        if keys is not None:
            own = range(max(c0, int(keys[0][i])), min(c1, int(keys[1][i])))
            first = int(keys[0][i]) // bc
            if not own:
                continue
        for j in own:
            tr.compute(f"S[{i},{j}]", "S", (a, j - c0))
        tr.compute(f"m[{i},{c}]", "mnew", a)
        for j in own:
            tr.compute(f"Pt[{i},{j}]", "S", (a, j - c0))
        scalars = [f"alpha[{i},{c}]", f"alpha*l[{i},{c}]"][: (1 + renormalise) * (c > first)]
        for scalar in scalars:
            tr.compute(scalar)
        tr.compute(f"l[{i},{c}]", "lnew" if renormalise else "li", a)
        for k in range(d):
            if renormalise:
                tr.compute(f"O[{i},{k}]" if last else f"O[{i},{k},{c}]", "Oi", (a, k))
            else:
                tr.compute(f"acc[{i},{k},{c}]", "Oi", (a, k))
        for scalar in reversed(scalars):
            tr.release(scalar)
        if not renormalise:
            tr.bind("mi", a, f"m[{i},{c}]")


def flash2_backward(
    machine: TwoLevelMachine,
    n: int,
    d: int,
    *,
    queries: tuple[np.ndarray, np.ndarray] | None = None,
) -> None:
    """Run FlashAttention-2 backward (D23 Alg. 2): Dvec first, then the column-block loop.

    With ``queries = (first, last)`` key j is attended by the queries
    ``first[j] <= i < last[j]`` (an interval mask): column block ``[c0, c1)`` loads only
    the query rows of its row blocks that attend to one of its keys (for the causal
    mask, the rows from c0 on) and masks the rest of each block from the indices.
    """
    br, bc = backward2_blocks(d, machine.M)
    mc = machine
    chains: tuple[int, tuple | None] = (n, None)
    allowed = None
    if mc.trace is not None and queries is not None:
        allowed = _allowed(queries, 0, n, 0, n).T  # query i x key j
        chains = (n, chain_ranks(allowed))
    for name in ("dQ", "dK", "dV"):
        mc.create(name, n, d)
    store_dvec(mc, n, d)
    zero_dq(mc, blocks(n, br), d)
    flash2_backward_keys(mc, d, (br, bc), (0, n), (0, n), chains, queries=queries, allowed=allowed)


def flash2_backward_keys(
    machine: TwoLevelMachine,
    d: int,
    sizes: tuple[int, int],
    rows: tuple[int, int],
    cols: tuple[int, int],
    chains: tuple[int, tuple | None],
    *,
    queries: tuple[np.ndarray, np.ndarray] | None = None,
    allowed: np.ndarray | None = None,
    step: str = "",
) -> None:
    """FlashAttention-2's column-block loop (D23 Alg. 2, after Dvec and dQ = 0) on the keys
    ``cols = (k0, k1)`` of K, V against the query rows ``rows = (q0, q1)``: key blocks of
    B_c from k0, row blocks of B_r from q0 (``sizes = (B_r, B_c)``). Reads Q, dO, dQ, L,
    Dvec; writes dQ and rows k0..k1 of dK, dV, which must exist. ``queries``: as
    :func:`flash2_backward` (global indices; ``allowed`` its query x key mask for the
    trace); ``chains``: as :func:`trace_backward_step`. ``step`` prefixes the step names.
    """
    br, bc = sizes
    (q0, q1), (k0, k1) = rows, cols
    mc, numeric = machine, machine.numeric
    load, store, alloc, free = mc.load, mc.store, mc.alloc, mc.free
    row_blocks = [(q0 + a, q0 + b) for a, b in blocks(q1 - q0, br)]
    for j, (c0, c1) in enumerate(blocks(k1 - k0, bc)):
        c0, c1 = k0 + c0, k0 + c1
        mc.step(f"backward, {step}column block {j}")
        Kj = load("Kj", "K", c0, c1, 0, d)
        Vj = load("Vj", "V", c0, c1, 0, d)
        dKj = alloc("dKj", c1 - c0, d)
        dVj = alloc("dVj", c1 - c0, d)
        for block in row_blocks:
            r0, r1 = _clip(queries, c0, c1, *block)
            if r0 >= r1:
                continue
            Qi = load("Qi", "Q", r0, r1, 0, d)
            dOi = load("dOi", "dO", r0, r1, 0, d)
            dQi = load("dQi", "dQ", r0, r1, 0, d)
            Li = load("Li", "L", r0, r1, 0, 1)
            Di = load("Di", "Dvec", r0, r1, 0, 1)
            S = alloc("S", r1 - r0, c1 - c0)
            dP = alloc("dP", r1 - r0, c1 - c0)
            if numeric:
                np.exp(Qi @ Kj.T - Li, out=S)
                if queries is not None:
                    S[~_allowed(queries, c0, c1, r0, r1).T] = 0.0
                dVj += S.T @ dOi
                dP[...] = S * (dOi @ Vj.T - Di)
                dQi += dP @ Kj
                dKj += dP.T @ Qi
            if mc.trace is not None:
                for i in range(r0, r1):  # row by row: only the pairs the mask allows
                    seen = (
                        range(c0, c1) if allowed is None else c0 + np.flatnonzero(allowed[i, c0:c1])
                    )
                    trace_backward_step(mc.trace, d, [i], seen, "S", "dP", (r0, c0), c0, chains)
            store("dQi", "dQ", r0, r1, 0, d)
            free("Qi", "dOi", "dQi", "Li", "Di", "S", "dP")
        store("dKj", "dK", c0, c1, 0, d)
        store("dVj", "dV", c0, c1, 0, d)
        free("Kj", "Vj", "dKj", "dVj")
