"""Schedules for the shapes people run: n_q x n_kv, and h_q query heads sharing h_kv K/V heads.

The heads are stacked head-major in slow memory (docs/notation.md): Q, O, dO, dQ are
(h_q n_q) x d with L and Dvec one word a row; K, V, dK, dV are (h_kv n_kv) x d. The
g = h_q / h_kv query heads of group k read key/value head k, and their g n_q query rows
are contiguous, so each schedule treats a group's query rows as one block of rows.

* :func:`gqa_row_streaming_forward`: the row streaming of
  :mod:`attnio.algorithms.streaming`, rectangular and group-aware. A resident block holds
  query rows of *every* head of a group (with their output rows and log-sum-exp); each K
  and V row of the group's key/value head streams past it once. K and V are read
  ceil(g n_q / b) times, not h_q / h_kv times that: one head's rows of a decode step
  (n_q = 1) fill a block of g rows, and the KV cache is read once.
* :func:`gqa_row_streaming_backward`: a block of key rows of one key/value head resident
  with its dK, dV rows; the query rows of every head of the group stream past it, so dK
  and dV sum over the group in fast memory and K, V are read once.
* :func:`split_kv_decode_forward`: FlashDecoding's idea (split the KV sequence, combine
  partial results) on the two-level machine, attnio's own schedule. The KV rows of a
  group are split into chunks of floor(M / (2d)) keys; each chunk runs the forward row
  streaming and stores a partial output row and log-sum-exp per query row; a combine
  pass reads the partials of each query row and writes O and L. The split buys
  parallelism (chunks are independent), which the two-level machine does not reward: it
  costs (h_q n_q)(d + 1)(2P + 1) + ... words more than the group-aware row streaming
  (the count records say exactly how much).
* :func:`gqa_output_stationary_forward`, :func:`gqa_output_stationary_backward`: the
  small-cache output-stationary tiling of :mod:`attnio.algorithms.stationary` on each
  group's stacked query rows, so each K and V tile is read once per row band of the
  group.
* :func:`gqa_flash2_forward`, :func:`gqa_flash2_backward`: FlashAttention-2's loop
  order and block sizes (D23 Alg. 1 and 2; :func:`attnio.algorithms.flash.flash2_forward`
  and ``flash2_backward`` run the same loops on one group) on each group's stacked query
  rows against its key/value head's keys: forward, each K and V tile is loaded once per
  row block of the group, ceil(g n_q / B_r) times; backward, a key block stays resident
  with its dK, dV rows while the row blocks of every head of the group stream past. Its
  blocks are smaller than row streaming's (the score tile and FlashAttention-2's row
  statistics share M), so it moves more words wherever K and V are read more than once.
* :func:`gqa_flash_forward`, :func:`gqa_flash_backward`: FlashAttention's loop order and
  block sizes (DFE22 Alg. 1 and 4; :func:`attnio.algorithms.flash.flash_forward` and
  ``flash_backward`` run the same loops on one group) on each key/value head's keys
  against its group's stacked query rows: a key block of the head is loaded once and the
  row blocks of every head of the group stream past it, so K and V are read once (and dK,
  dV written once) whatever the group size, but the query side (Q, O, l, m forward; Q, O,
  dO, dQ, L backward) is moved once per key block, ceiling(n_kv / B_c) times.
* :func:`gqa_two_sweep_backward`: the two-sweep backward of
  :mod:`attnio.algorithms.streaming` (:func:`~attnio.algorithms.streaming.two_sweep_keys`
  and :func:`~attnio.algorithms.streaming.two_sweep_queries`, which
  ``two_sweep_backward`` runs on one group) on each group: sweep 1 keeps a key block of
  the key/value head resident with its dK, dV rows while the group's stacked query rows
  stream past (dK, dV summed over the group, K and V read once); sweep 2 keeps blocks of
  the group's stacked query rows resident with dO, L, D and dQ while the head's keys
  stream past, so K and V are read ceil(g n_q / b_q) times more, not once per block of
  each query head.
* :func:`gqa_score_panel_forward`: the score-panel forward of
  :mod:`attnio.algorithms.standard` (its two passes,
  :func:`~attnio.algorithms.standard.score_panel_scores` and
  :func:`~attnio.algorithms.standard.score_panel_outputs`) on each group's stacked query
  rows: a panel holds rows of several heads of one group, so each K row (pass 1) and V
  row (pass 2) is read once per panel of the group, ceil(g n_q / b) times; S is written
  and read once (h_q n_q n_kv words each way).
* :func:`split_kv_decode_backward`: the same split backward. The group-aware row
  streaming backward, but each key block writes its own partial dQ rows instead of
  reading and updating dQ, so the blocks are independent; a combine pass sums the
  partials: 2 d words a query row more when a key/value head has more than one block.

The exact counts are the catalog records ``gqa-row-streaming-forward-count``,
``gqa-row-streaming-backward-count``, ``split-kv-decode-forward-count``,
``split-kv-decode-backward-count``, ``gqa-output-stationary-*-count``,
``gqa-flash2-*-count``, ``gqa-flash-*-count``, ``gqa-two-sweep-backward-count`` and
``gqa-score-panel-forward-count``; with n_q = n_kv = n and one head the
first two equal ``row-streaming-*-count``, ``gqa-output-stationary-*-count`` equal
``output-stationary-*-count``, ``gqa-flash2-*-count`` equal ``flash2-*-count`` and
``gqa-flash-*-count`` equal ``flash-*-count``, ``gqa-two-sweep-backward-count`` equals
``two-sweep-backward-count`` and ``gqa-score-panel-forward-count`` equals
``score-panel-forward-count``.

References
----------
attnio, proofs/derivations/lower-sharp.md (row streaming); DFE22 Alg. 1 and 4, D23 Alg. 1
and 2 (loop orders);
Dao et al., FlashDecoding (2023, split KV); Ainslie et al. 2023 (GQA).
"""

from __future__ import annotations

import numpy as np

from attnio.bounds.shape import check_shape

from .errors import AlgorithmParameterError
from .flash import (
    backward2_blocks,
    backward_blocks,
    chain_ranks,
    flash2_backward_keys,
    flash2_forward_rows,
    flash_backward_keys,
    flash_forward_keys,
    forward2_blocks,
    forward_blocks,
    init_forward,
    store_dvec,
    zero_dq,
)
from .machine import TwoLevelMachine, blocks
from .standard import score_panel_block, score_panel_outputs, score_panel_scores
from .stationary import grouped_stationary_backward, grouped_stationary_forward
from .streaming import (
    Intervals,
    backward_block,
    forward_block,
    interval_backward,
    interval_forward,
    stream_query_block,
    two_sweep_blocks,
    two_sweep_keys,
    two_sweep_queries,
)

Shape = tuple[int, int, int, int]
"""(n_q, n_kv, heads_q, heads_kv)."""

__all__ = [
    "gqa_flash2_backward",
    "gqa_flash2_forward",
    "gqa_flash_backward",
    "gqa_flash_forward",
    "gqa_output_stationary_backward",
    "gqa_output_stationary_forward",
    "gqa_row_streaming_backward",
    "gqa_row_streaming_forward",
    "gqa_score_panel_forward",
    "gqa_two_sweep_backward",
    "kv_chunk",
    "reference_forward",
    "reference_gradients",
    "split_kv_decode_backward",
    "split_kv_decode_forward",
    "stacked_rows",
]


def _shape(n: int, shape: Shape | None) -> Shape:
    return check_shape(*(shape or (n, n, 1, 1)), AlgorithmParameterError)


def stacked_rows(shape: Shape) -> tuple[int, int]:
    """Rows of the stacked query side (h_q n_q) and key side (h_kv n_kv)."""
    n_q, n_kv, hq, hk = shape
    return hq * n_q, hk * n_kv


def kv_chunk(d: int, M: int) -> int:
    """Keys per KV chunk of :func:`split_kv_decode_forward`: floor(M / (2d)), the keys
    whose K and V rows would fill fast memory (FlashDecoding's tile of the KV cache)."""
    return max(1, M // (2 * d))


def _span(shape: Shape) -> Intervals:
    """The stacked rows' intervals: the query rows of group k attend to the n_kv keys of
    key/value head k, and those keys to the group's rows (a block diagonal)."""
    n_q, n_kv, hq, hk = shape
    rows = hq // hk * n_q
    head = np.arange(hq * n_q) // rows * n_kv
    group = np.arange(hk * n_kv) // n_kv * rows
    return Intervals(head, head + n_kv, group, group + rows)


def gqa_row_streaming_forward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Forward pass, group-aware row streaming; writes O and L (module docstring).

    ``shape`` is (n_q, n_kv, heads_q, heads_kv); ``None`` is (n, n, 1, 1). It is
    :func:`~attnio.algorithms.streaming.interval_forward` with a group of query rows per
    key/value head, each row attending to its head's keys.
    """
    n_q, _, hq, hk = shape = _shape(n, shape)
    rows = hq // hk * n_q
    groups = [(k * rows, (k + 1) * rows, f"kv head {k}, ") for k in range(hk)]
    interval_forward(machine, d, _span(shape), groups)


def gqa_output_stationary_forward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Forward pass for small caches, group-aware output-stationary tiling; writes A, Amax,
    L and O.

    :func:`~attnio.algorithms.stationary.output_stationary_forward` on each key/value
    head's group: its g n_q query rows (every head of the group, stacked) against its n_kv
    keys. A tile of S or O holds rows of several heads of one group, so each K and V tile
    is read once per row band of the group's g n_q rows, ceil(g n_q / t) times (t the
    tile side), not once per band of each head.
    """
    n_q, n_kv, hq, hk = _shape(n, shape)
    grouped_stationary_forward(machine, d, hq // hk * n_q, n_kv, hk)


def gqa_output_stationary_backward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Backward pass for small caches, group-aware output-stationary tiling; writes P, dS,
    dQ, dK, dV.

    :func:`~attnio.algorithms.stationary.output_stationary_backward` on each key/value
    head's group of g n_q stacked query rows against its n_kv keys: K and V tiles are read
    once per row band of the group, and dK, dV sum over every head of the group inside
    their resident output tiles.
    """
    n_q, n_kv, hq, hk = _shape(n, shape)
    grouped_stationary_backward(machine, d, hq // hk * n_q, n_kv, hk)


def gqa_row_streaming_backward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Backward pass (FA2 formulation), group-aware row streaming; writes dQ, dK, dV.

    :func:`~attnio.algorithms.streaming.interval_backward` with a group of key rows per
    key/value head; the query rows of every head of the group stream past each block.
    """
    _, n_kv, _, hk = shape = _shape(n, shape)
    groups = [(k * n_kv, (k + 1) * n_kv, f"kv head {k}, ") for k in range(hk)]
    interval_backward(machine, d, _span(shape), groups)


def _group_blocks(rows: int, groups: int, size: int) -> list[tuple[int, int]]:
    """Blocks of ``size`` rows of each of ``groups`` groups of ``rows`` stacked rows."""
    return [(k * rows + a, k * rows + b) for k in range(groups) for a, b in blocks(rows, size)]


def _block_diagonal_chains(shape: Shape) -> tuple[int, tuple]:
    """The chains of the heads' block diagonal (:func:`~attnio.algorithms.flash.chain_ranks`)."""
    n_q, n_kv, hq, hk = shape
    head = np.arange(hq * n_q) // (hq // hk * n_q)
    return hq * n_q, chain_ranks(head[:, None] == np.arange(hk * n_kv)[None, :] // n_kv)


def gqa_flash2_forward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Forward pass, FlashAttention-2's loop order on each group; writes O and L.

    For each key/value head k, :func:`~attnio.algorithms.flash.flash2_forward_rows` on its
    group's g n_q stacked query rows (every head of the group) against its n_kv keys:
    row blocks of B_r = floor(M/(5d + 3)) rows of the group, key blocks of
    B_c = min(B_r, d) keys of head k (FLASH2_FORWARD_BLOCKS, as
    :func:`~attnio.algorithms.flash.flash2_forward`). Each K and V tile of head k is
    loaded once per row block of the group, ceiling(g n_q / B_r) times, not once per
    row block of each query head.
    """
    n_q, n_kv, hq, hk = _shape(n, shape)
    rows, total = hq // hk * n_q, hq * n_q
    sizes = forward2_blocks(d, machine.M)
    machine.create("O", total, d)
    machine.create("L", total, 1)
    for k in range(hk):
        q, kv = (k * rows, (k + 1) * rows), (k * n_kv, (k + 1) * n_kv)
        flash2_forward_rows(machine, d, sizes, q, kv, step=f"kv head {k}, ")


def gqa_flash2_backward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Backward pass, FlashAttention-2's loop order on each group; writes dQ, dK, dV.

    Dvec = rowsum(dO * O) and dQ = 0 for every stacked query row, then for each
    key/value head k :func:`~attnio.algorithms.flash.flash2_backward_keys` on its n_kv
    keys against its group's g n_q stacked query rows: key blocks of
    B_c = floor(M/(9d + 2)) keys of head k resident with their dK, dV rows while the
    group's row blocks of B_r = min(B_c, d) rows stream past (FLASH2_BACKWARD_BLOCKS),
    so dK and dV sum over every head of the group in fast memory and K, V are read and
    dK, dV written once.
    """
    n_q, n_kv, hq, hk = shape = _shape(n, shape)
    rows, total = hq // hk * n_q, hq * n_q
    sizes = backward2_blocks(d, machine.M)
    chains: tuple[int, tuple | None] = (total, None)
    if machine.trace is not None:
        chains = _block_diagonal_chains(shape)
    for name, size in (("dQ", total), ("dK", hk * n_kv), ("dV", hk * n_kv)):
        machine.create(name, size, d)
    store_dvec(machine, total, d)
    zero_dq(machine, _group_blocks(rows, hk, sizes[0]), d)
    for k in range(hk):
        q, kv = (k * rows, (k + 1) * rows), (k * n_kv, (k + 1) * n_kv)
        flash2_backward_keys(machine, d, sizes, q, kv, chains, step=f"kv head {k}, ")


def gqa_flash_forward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Forward pass, FlashAttention's loop order on each group; writes O, l, m.

    O = 0, l = 0, m = -inf for every stacked query row, then for each key/value head k
    :func:`~attnio.algorithms.flash.flash_forward_keys` on its n_kv keys against its
    group's g n_q stacked query rows (every head of the group): key blocks of
    B_c = floor(M/(5d + 4)) keys of head k loaded once (the outer loop), row blocks of
    B_r = min(B_c, d) rows of the group whose Q, O, l, m are loaded and O, l, m stored
    for every key block (FLASH_FORWARD_BLOCKS, as
    :func:`~attnio.algorithms.flash.flash_forward`). K and V are read once whatever the
    group size; the query side moves (3d + 4) words a row per key block,
    ceiling(n_kv / B_c) times.
    """
    n_q, n_kv, hq, hk = _shape(n, shape)
    rows, total = hq // hk * n_q, hq * n_q
    sizes = forward_blocks(d, machine.M)
    for name, cols in (("O", d), ("l", 1), ("m", 1)):
        machine.create(name, total, cols)
    init_forward(machine, _group_blocks(rows, hk, sizes[0]), d)
    for k in range(hk):
        q, kv = (k * rows, (k + 1) * rows), (k * n_kv, (k + 1) * n_kv)
        flash_forward_keys(machine, d, sizes, q, kv, step=f"kv head {k}, ")


def gqa_flash_backward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Backward pass, FlashAttention's loop order on each group; writes dQ, dK, dV.

    dQ = 0 for every stacked query row, then for each key/value head k
    :func:`~attnio.algorithms.flash.flash_backward_keys` on its n_kv keys against its
    group's g n_q stacked query rows: key blocks of B_c = floor(M/(10d + 2)) keys of
    head k resident with their dK, dV rows while the group's row blocks of
    B_r = min(B_c, d) rows stream past (FLASH_BACKWARD_BLOCKS; D_i recomputed in every
    step, as DFE22 Alg. 4), so dK and dV sum over every head of the group in fast memory
    and K, V are read and dK, dV written once.
    """
    n_q, n_kv, hq, hk = shape = _shape(n, shape)
    rows, total = hq // hk * n_q, hq * n_q
    sizes = backward_blocks(d, machine.M)
    chains: tuple[int, tuple | None] = (total, None)
    if machine.trace is not None:
        chains = _block_diagonal_chains(shape)
    for name, size in (("dQ", total), ("dK", hk * n_kv), ("dV", hk * n_kv)):
        machine.create(name, size, d)
    zero_dq(machine, _group_blocks(rows, hk, sizes[0]), d)
    for k in range(hk):
        q, kv = (k * rows, (k + 1) * rows), (k * n_kv, (k + 1) * n_kv)
        flash_backward_keys(machine, d, sizes, q, kv, chains, step=f"kv head {k}, ")


def gqa_two_sweep_backward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Backward pass (FA2 formulation), the two-sweep backward on each group; writes Dvec,
    dK, dV, then dQ.

    Dvec = rowsum(dO * O) for every stacked query row; sweep 1,
    :func:`~attnio.algorithms.streaming.two_sweep_keys` for each key/value head k: blocks
    of b_k = floor((M - 2d - 4)/(4d)) of its n_kv key rows resident with their dK, dV rows
    while its group's g n_q stacked query rows (every head of the group) stream past, so
    dK and dV sum over the group in fast memory and K, V are read and dK, dV written
    once; sweep 2, :func:`~attnio.algorithms.streaming.two_sweep_queries` for each k:
    blocks of b_q = floor((M - 2d - 2)/(3d + 2)) of the group's stacked query rows
    resident with dO, L, D and dQ while head k's keys stream past, K and V read
    ceiling(g n_q / b_q) times (TWO_SWEEP_KEY_BLOCKS, TWO_SWEEP_QUERY_BLOCKS, as
    :func:`~attnio.algorithms.streaming.two_sweep_backward`).
    """
    n_q, n_kv, hq, hk = shape = _shape(n, shape)
    rows, total = hq // hk * n_q, hq * n_q
    bc, br = two_sweep_blocks(d, machine.M)
    chains: tuple[int, tuple | None] = (total, None)
    if machine.trace is not None:
        chains = _block_diagonal_chains(shape)
    for name, size in (("dQ", total), ("dK", hk * n_kv), ("dV", hk * n_kv)):
        machine.create(name, size, d)
    store_dvec(machine, total, d)
    groups = [((k * rows, (k + 1) * rows), (k * n_kv, (k + 1) * n_kv)) for k in range(hk)]
    for k, (q, kv) in enumerate(groups):
        two_sweep_keys(machine, d, bc, q, kv, chains, step=f"kv head {k}, ")
    for k, (q, kv) in enumerate(groups):
        two_sweep_queries(machine, d, br, q, kv, chains, step=f"kv head {k}, ")


def gqa_score_panel_forward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Forward pass, the score-panel forward on each group; writes S, m, l and O.

    S is (h_q n_q) x n_kv: row i holds its scores against its key/value head's keys.
    Pass 1, :func:`~attnio.algorithms.standard.score_panel_scores` for each key/value
    head k: panels of b = floor((M - d)/(d + 3)) of its group's g n_q stacked query rows
    (every head of the group) resident with m_i, l_i while head k's keys stream past, the
    panel's column of S stored per key; pass 2,
    :func:`~attnio.algorithms.standard.score_panel_outputs` for each k: the same panels'
    output rows resident while the stored columns and head k's value rows stream past.
    K and V are each read ceiling(g n_q / b) times per key/value head, not once per panel
    of each query head (SCORE_PANEL_BLOCKS, as
    :func:`~attnio.algorithms.standard.score_panel_forward`).
    """
    n_q, n_kv, hq, hk = _shape(n, shape)
    rows, total = hq // hk * n_q, hq * n_q
    size = score_panel_block(d, machine.M)
    for name, cols in (("S", n_kv), ("m", 1), ("l", 1), ("O", d)):
        machine.create(name, total, cols)
    groups = [((k * rows, (k + 1) * rows), (k * n_kv, (k + 1) * n_kv)) for k in range(hk)]
    for k, (q, kv) in enumerate(groups):
        score_panel_scores(machine, d, size, q, kv, step=f"kv head {k}, ")
    for k, (q, kv) in enumerate(groups):
        score_panel_outputs(machine, d, size, q, kv, step=f"kv head {k}, ")


def split_kv_decode_forward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Forward pass split along the KV sequence, partials combined; writes O and L.

    Partial results go to slow arrays ``Opart`` and ``Lpart`` (row c R + r for chunk c
    and stacked query row r, R = h_q n_q); the combine pass merges the chunks of each
    row by log-sum-exp: L = logaddexp over chunks, o = sum_c exp(L_c - L) o_c.
    """
    n_q, n_kv, hq, hk = _shape(n, shape)
    rows, total = hq // hk * n_q, hq * n_q
    br, chunks = forward_block(d, machine.M), blocks(n_kv, kv_chunk(d, machine.M))
    mc, numeric = machine, machine.numeric
    mc.create("Opart", len(chunks) * total, d)
    mc.create("Lpart", len(chunks) * total, 1)
    for k in range(hk):
        for c, (j0, j1) in enumerate(chunks):
            key0 = np.full(total, k * n_kv + j0, dtype=np.int64)
            span = Intervals(key0, key0 + (j1 - j0), key0[:0], key0[:0])  # keys only
            for b, (r0, r1) in enumerate(blocks(rows, br)):
                mc.step(f"split forward, kv head {k}, chunk {c}, query block {b}")
                q0 = k * rows
                stream_query_block(mc, d, q0 + r0, q0 + r1, span, f"Op[{c},{{i}},{{k}}]")
                p0 = c * total + q0
                mc.store("Oi", "Opart", p0 + r0, p0 + r1, 0, d)
                mc.store("Li", "Lpart", p0 + r0, p0 + r1, 0, 1)
                mc.free("Oi", "Li")
    mc.create("O", total, d)
    mc.create("L", total, 1)
    mc.step("combine the chunks")
    for i in range(total):
        o = mc.alloc("o", 1, d)
        ell = mc.alloc("l", 1, fill=-np.inf)
        for c in range(len(chunks)):
            oc = mc.load("oc", "Opart", c * total + i, c * total + i + 1, 0, d)
            lc = mc.load("lc", "Lpart", c * total + i, c * total + i + 1, 0, 1)
            if numeric:
                t = np.logaddexp(ell, lc)
                o *= np.exp(ell - t)
                o += np.exp(lc - t) * oc
                ell[...] = t
            if mc.trace is not None:
                _trace_combine(mc.trace, i, c, c == len(chunks) - 1, d)
            mc.free("oc", "lc")
        mc.store("o", "O", i, i + 1, 0, d)
        mc.store("l", "L", i, i + 1, 0, 1)
        mc.free("o", "l")


def split_kv_decode_backward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Backward pass split along the KV sequence, partial dQ rows summed; writes dQ, dK, dV.

    As :func:`gqa_row_streaming_backward` (a block of a key/value head's key rows resident
    with its dK, dV rows, the query rows of the whole group streaming past it), but the P
    blocks of a key/value head do not share dQ: block b writes its own partial dQ rows
    (slow array ``dQpart``, row b R + r for stacked query row r, R = h_q n_q) and never
    reads dQ, so the blocks are independent (FlashDecoding's split, backward). A combine
    pass reads the P partials of each query row and writes their sum. With P = 1 the
    block writes dQ itself and there is nothing to combine.
    """
    n_q, n_kv, hq, hk = shape = _shape(n, shape)
    groups = [(k * n_kv, (k + 1) * n_kv, f"kv head {k}, ") for k in range(hk)]
    interval_backward(machine, d, _span(shape), groups, partials=True)
    parts, total = len(blocks(n_kv, backward_block(d, machine.M))), hq * n_q
    if parts == 1:
        return
    mc = machine
    mc.step("combine the partial dQ rows")
    for i in range(total):
        dq = mc.load("dq", "dQpart", i, i + 1, 0, d)
        for b in range(1, parts):
            part = mc.load("pc", "dQpart", b * total + i, b * total + i + 1, 0, d)
            if mc.numeric:
                dq += part
            if mc.trace is not None:
                for l in range(d):
                    label = f"dQ[{i},{l}]" if b == parts - 1 else f"dQ[{i},{l}]+{b}"
                    mc.trace.compute(label, "dq", (0, l))
            mc.free("pc")
        mc.store("dq", "dQ", i, i + 1, 0, d)
        mc.free("dq")


def _trace_combine(tr, i: int, c: int, last: bool, d: int) -> None:
    """The vertices of :func:`attnio.pebble.builders.split_streaming_forward` one chunk of
    row i's merge computes (buffers ``o``, ``l``; the loaded partials in ``oc``, ``lc``);
    the merged log-sum-exp before it is stored and the weights are registers."""
    merged = f"L[{i}]" if last else f"Lm[{i},{c}]"  # for c = 0: the partial L in lc
    if c:
        tr.compute(merged)
        tr.compute(f"gamma[{i},{c}]")
    tr.compute(f"delta[{i},{c}]")
    for k in range(d):
        name = f"O[{i},{k}]" if last else f"om[{i},{k},{c}]"
        if c:
            tr.compute(f"gamma*o[{i},{k},{c}]", "o", (0, k))
        tr.compute(name, "o", (0, k))
    tr.release(f"delta[{i},{c}]")
    if c:
        tr.release(f"gamma[{i},{c}]")
        tr.bind("l", 0, merged)
        tr.release(merged)
    else:
        tr.copy("l", 0, "lc", 0)  # logaddexp(-inf, L_0) = L_0


def _heads(X: np.ndarray, heads: int) -> list[np.ndarray]:
    return np.split(X, heads)


def reference_forward(
    Q: np.ndarray, K: np.ndarray, V: np.ndarray, shape: Shape
) -> tuple[np.ndarray, np.ndarray]:
    """Grouped-query attention by the definition: (O, L) stacked head-major.

    Query head h attends to key/value head h // g with O_h = softmax(Q_h K^T) V.
    """
    _, n_kv, hq, hk = shape
    g = hq // hk
    Os, Ls = [], []
    for h, Qh in enumerate(_heads(Q, hq)):
        Kh, Vh = K[h // g * n_kv : (h // g + 1) * n_kv], V[h // g * n_kv : (h // g + 1) * n_kv]
        S = Qh @ Kh.T
        m = S.max(axis=1, keepdims=True)
        A = np.exp(S - m)
        row = A.sum(axis=1, keepdims=True)
        Os.append(A @ Vh / row)
        Ls.append((m + np.log(row)).ravel())
    return np.concatenate(Os), np.concatenate(Ls)


def reference_gradients(
    Q: np.ndarray, K: np.ndarray, V: np.ndarray, dO: np.ndarray, shape: Shape
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dQ, dK, dV of sum(dO * O) for grouped-query attention (D23's formulas per head);
    dK and dV of a key/value head sum over the query heads of its group."""
    n_q, n_kv, hq, hk = shape
    g = hq // hk
    O, L = reference_forward(Q, K, V, shape)
    dQ = np.zeros_like(Q)
    dK, dV = np.zeros_like(K), np.zeros_like(V)
    for h in range(hq):
        q, kv = slice(h * n_q, (h + 1) * n_q), slice(h // g * n_kv, (h // g + 1) * n_kv)
        P = np.exp(Q[q] @ K[kv].T - L[q][:, None])
        dV[kv] += P.T @ dO[q]
        dS = P * (dO[q] @ V[kv].T - np.sum(dO[q] * O[q], axis=1, keepdims=True))
        dQ[q] = dS @ K[kv]
        dK[kv] += dS.T @ Q[q]
    return dQ, dK, dV
