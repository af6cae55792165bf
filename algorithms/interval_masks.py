"""Schedules for masks whose queries each attend to one interval of keys: causal, window, band.

The causal mask (key j <= query i), the causal sliding window of width w
(i - w < j <= i) and the symmetric band (|i - j| <= w) of :mod:`attnio.bounds.masks`
give each query i an interval ``[lo(i), hi(i))`` of keys and each key j an interval of
queries, both moving right with i and j. The schedules below visit only those
intervals:

* masked row streaming (:func:`masked_row_streaming_forward`, ``..._backward``): the
  loop nest of :mod:`~attnio.algorithms.streaming`, a block of query rows (forward) or
  of key rows (backward) resident, the other side streamed one row at a time, but only
  the rows the block's intervals reach: for the causal mask forward, block t streams
  the keys up to its last row, skipping the blocks above the diagonal; for a window,
  the keys of the block's window only. The block on the diagonal (and the window's
  edge) is masked inside from the indices i and j alone: no word of the mask is ever
  in fast memory, and no mask is stored in slow memory.
* sliding (:func:`sliding_forward`, :func:`sliding_backward`): for a window or a band,
  the rows of the interval stay resident as it slides (a ring of key rows k_j, v_j
  forward; of query rows q_i, dO_i, L_i, D_i, dQ_i backward): each row is loaded once
  per sweep, each output row stored once. It needs the whole interval in fast memory
  (M >= (2d + 1)(w + 1) forward and (3d + 4) w + 4d backward for a window); the count
  is then the least any schedule can move for these inputs and outputs, 4 n d + n
  forward and, with the D = rowsum(dO * O) pass, 9 n d + 3 n backward.

The exact counts are the catalog records ``causal-row-streaming-*-count``,
``window-row-streaming-*-count``, ``window-sliding-*-count`` and
``band-sliding-*-count`` (regime sparse, field ``mask``), equal to the machine's
counts for every n, d, M and w (tests/test_interval_masks.py, ``attnio verify``).

References
----------
attnio's own schedules; the loop orders of D23 Algorithms 1 and 2 with one-row
streamed blocks, restricted to the mask's intervals.
"""

from __future__ import annotations

import numpy as np

from attnio.bounds.masks import Mask

from .errors import BlocksDoNotFitError, MaskError
from .flash import chain_ranks, flash2_backward, flash2_forward, store_dvec, trace_backward_step
from .machine import TwoLevelMachine
from .streaming import Intervals, interval_backward, interval_forward


def _intervals(mask: Mask, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Key starts and stops of every query, query starts and stops of every key."""
    if mask.n != n:
        raise MaskError(f"mask={mask.spec!r} is for n={mask.n}, the run has n={n}")
    try:
        keys = np.array([mask.keys(i) for i in range(n)], dtype=np.int64)
        queries = np.array([mask.queries(j) for j in range(n)], dtype=np.int64)
    except ValueError as error:
        raise MaskError(str(error)) from None
    return keys[:, 0], keys[:, 1], queries[:, 0], queries[:, 1]


def _span(mask: Mask, n: int) -> Intervals:
    start, stop, first, last = _intervals(mask, n)
    return Intervals(start, stop, first, last)


def masked_row_streaming_forward(machine: TwoLevelMachine, n: int, d: int, *, mask: Mask) -> None:
    """Forward pass: resident query blocks, each streaming only the keys its rows attend to.

    Block ``[r0, r1)`` streams the keys ``[lo(r0), hi(r1 - 1))``; for each key j and
    each chunk of d rows, the rows whose interval holds j (known from i and j, no mask
    word) are updated as in :func:`~attnio.algorithms.streaming.row_streaming_forward`
    (both are :func:`~attnio.algorithms.streaming.interval_forward`).
    """
    interval_forward(machine, d, _span(mask, n), [(0, n, "")])


def masked_row_streaming_backward(machine: TwoLevelMachine, n: int, d: int, *, mask: Mask) -> None:
    """Backward pass (FA2 formulation): resident key blocks, each streaming only its queries.

    Block ``[c0, c1)`` streams the queries ``[qlo(c0), qhi(c1 - 1))``; dQ_i is created
    (not read) in the block of query i's first key and read, updated and written back
    in the later ones (:func:`~attnio.algorithms.streaming.interval_backward`).
    """
    interval_backward(machine, d, _span(mask, n), [(0, n, "")])


def masked_flash2_forward(machine: TwoLevelMachine, n: int, d: int, *, mask: Mask) -> None:
    """FlashAttention-2 forward (D23 Alg. 1) visiting only the keys each row block attends to.

    For the causal mask: row block t (rows ``[t B_r, (t + 1) B_r)``) loads the key blocks
    up to its last row, the diagonal one cut at that row; the blocks above the diagonal
    are skipped and the diagonal block is masked from the indices
    (:func:`~attnio.algorithms.flash.flash2_forward` with the mask's key intervals).
    """
    start, stop, _, _ = _intervals(mask, n)
    flash2_forward(machine, n, d, keys=(start, stop))


def masked_flash2_backward(machine: TwoLevelMachine, n: int, d: int, *, mask: Mask) -> None:
    """FlashAttention-2 backward (D23 Alg. 2) visiting only the queries each key block meets.

    For the causal mask: key block t (keys ``[t B_c, (t + 1) B_c)``) streams the query
    rows from its first key on, n - t B_c of them; the diagonal blocks are masked from
    the indices (:func:`~attnio.algorithms.flash.flash2_backward` with the mask's query
    intervals).
    """
    _, _, first, last = _intervals(mask, n)
    flash2_backward(machine, n, d, queries=(first, last))


def _widest(begin: np.ndarray, end: np.ndarray) -> int:
    return int((end - begin).max())


def sliding_forward(machine: TwoLevelMachine, n: int, d: int, *, mask: Mask) -> None:
    """Forward pass, one query row at a time, the keys of its interval resident as it slides.

    Before query i the keys below lo(i) leave fast memory and the keys up to hi(i)
    arrive, so each k_j, v_j is loaded once; the row's scores (one word per key of the
    interval) give o_i and L_i at once. Needs (2d + 1)(R + 1) words, R the widest
    interval (w for a window).
    """
    start, stop, _, _ = _intervals(mask, n)
    widest = _widest(start, stop)
    if machine.M < (2 * d + 1) * (widest + 1):
        raise BlocksDoNotFitError(
            f"sliding forward with mask={mask.spec!r}: M={machine.M} cannot hold the "
            f"{widest} key rows of an interval; it needs M >= (2d + 1)(R + 1) = "
            f"{(2 * d + 1) * (widest + 1)} words"
        )
    mc, numeric = machine, machine.numeric
    mc.create("O", n, d)
    mc.create("L", n, 1)
    held = 0  # keys [low, held) resident
    low = 0
    for i in range(n):
        mc.step(f"forward, query {i}")
        while low < start[i]:
            mc.free(f"k{low}", f"v{low}")
            low += 1
        while held < stop[i]:
            mc.load(f"k{held}", "K", held, held + 1, 0, d)
            mc.load(f"v{held}", "V", held, held + 1, 0, d)
            held += 1
        qi = mc.load("qi", "Q", i, i + 1, 0, d)
        oi = mc.alloc("oi", 1, d)
        Li = mc.alloc("Li", 1)
        s = mc.alloc("s", int(stop[i] - start[i]))
        if numeric:
            keys = range(int(start[i]), int(stop[i]))
            Kw = np.concatenate([mc.data(f"k{j}") for j in keys])
            Vw = np.concatenate([mc.data(f"v{j}") for j in keys])
            s[:, 0] = Kw @ qi[0]
            top = s.max()
            total = np.exp(s - top).sum()
            Li[...] = top + np.log(total)
            oi[...] = (np.exp(s - Li).T @ Vw).reshape(1, d)
        if mc.trace is not None:
            _trace_sliding_row(mc.trace, i, int(start[i]), int(stop[i]), d)
        mc.store("oi", "O", i, i + 1, 0, d)
        mc.store("Li", "L", i, i + 1, 0, 1)
        mc.free("qi", "oi", "Li", "s")
    for j in range(low, held):
        mc.free(f"k{j}", f"v{j}")


def _trace_chain(name: str, leaf: str, t: int, count: int) -> str:
    if t == count - 1:
        return name
    return leaf if t == 0 else f"{name}+{t}"


def _trace_sliding_row(tr, i: int, lo: int, hi: int, d: int) -> None:
    """The vertices of :func:`attnio.pebble.builders.sliding_forward_graph` (chain trees)
    row i computes: S_ij into ``s``; m_i and l_i in registers the machine does not
    charge (its maximum and sum are temporaries); L_i into ``Li``; W_ij over S_ij in
    ``s``; the chains O_ik into ``oi``."""
    count = hi - lo
    for t, j in enumerate(range(lo, hi)):
        tr.compute(f"S[{i},{j}]", "s", t)
    for name, leaf, first in ((f"m[{i}]", f"S[{i},{lo}]", 1), (f"l[{i}]", f"e[{i},{lo}]", 0)):
        held = None  # the running maximum, then the running sum: one register each
        for t in range(first, count):
            label = _trace_chain(name, leaf, t, count)
            tr.compute(label)
            if held is not None:
                tr.release(held)
            held = label
        if held is None:  # one key: m_i is S_ij
            tr.compute(name)
    tr.compute(f"L[{i}]", "Li", 0)
    tr.release(f"m[{i}]")
    tr.release(f"l[{i}]")
    for t, j in enumerate(range(lo, hi)):
        tr.compute(f"W[{i},{j}]", "s", t)
    for k in range(d):
        for t, j in enumerate(range(lo, hi)):
            tr.compute(_trace_chain(f"O[{i},{k}]", f"PV[{i},{j},{k}]", t, count), "oi", (0, k))


def sliding_backward(machine: TwoLevelMachine, n: int, d: int, *, mask: Mask) -> None:
    """Backward pass (FA2 formulation), one key row at a time, its queries resident as they slide.

    The queries of key j's interval stay in fast memory with q_i, dO_i, L_i, D_i and
    dQ_i (3d + 2 words each); a query leaves, storing its finished dQ_i, when the
    interval has passed it (its keys all come before). Each input row is loaded once,
    each gradient row stored once. Needs (3d + 4) R + 4d words, R the widest interval of
    queries (w for a window), besides the D pass of
    :func:`~attnio.algorithms.flash.store_dvec`.
    """
    _, _, first, last = _intervals(mask, n)
    widest = _widest(first, last)
    if machine.M < (3 * d + 4) * widest + 4 * d:
        raise BlocksDoNotFitError(
            f"sliding backward with mask={mask.spec!r}: M={machine.M} cannot hold the "
            f"{widest} query rows of an interval; it needs M >= (3d + 4) R + 4d = "
            f"{(3 * d + 4) * widest + 4 * d} words"
        )
    mc, numeric = machine, machine.numeric
    for name in ("dQ", "dK", "dV"):
        mc.create(name, n, d)
    store_dvec(mc, n, d)
    names = ("q", "dO", "L", "D", "dQ")
    held = low = 0  # queries [low, held) resident
    chains = (n, chain_ranks(_span(mask, n).allowed())) if mc.trace is not None else None

    def leave(i: int) -> None:
        mc.store(f"dQ{i}", "dQ", i, i + 1, 0, d)
        mc.free(*(f"{name}{i}" for name in names))

    for j in range(n):
        mc.step(f"backward, key {j}")
        while low < first[j]:
            leave(low)
            low += 1
        while held < last[j]:
            mc.load(f"q{held}", "Q", held, held + 1, 0, d)
            mc.load(f"dO{held}", "dO", held, held + 1, 0, d)
            mc.load(f"L{held}", "L", held, held + 1, 0, 1)
            mc.load(f"D{held}", "Dvec", held, held + 1, 0, 1)
            mc.alloc(f"dQ{held}", 1, d)
            held += 1
        kj = mc.load("kj", "K", j, j + 1, 0, d)
        vj = mc.load("vj", "V", j, j + 1, 0, d)
        dkj = mc.alloc("dKj", 1, d)
        dvj = mc.alloc("dVj", 1, d)
        width = int(last[j] - first[j])
        p = mc.alloc("p", width)
        ds = mc.alloc("ds", width)
        if numeric:
            rows = range(int(first[j]), int(last[j]))
            Qw, dOw, Lw, Dw = (
                np.concatenate([mc.data(f"{name}{i}") for i in rows])
                for name in ("q", "dO", "L", "D")
            )
            p[...] = np.exp(Qw @ kj.T - Lw)  # P_ij
            dvj[...] = p.T @ dOw
            ds[...] = p * (dOw @ vj.T - Dw)  # dS_ij
            dkj[...] = ds.T @ Qw
            for t, i in enumerate(rows):
                mc.data(f"dQ{i}")[...] += ds[t, 0] * kj
        if mc.trace is not None:
            for i in range(int(first[j]), int(last[j])):
                trace_backward_step(
                    mc.trace, d, [i], [j], "p", "ds", (int(first[j]), j), j, chains, "dQ{}"
                )
        mc.store("dKj", "dK", j, j + 1, 0, d)
        mc.store("dVj", "dV", j, j + 1, 0, d)
        mc.free("kj", "vj", "dKj", "dVj", "p", "ds")
    for i in range(low, held):
        leave(i)
