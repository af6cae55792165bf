"""attnio's row-streaming schedules: one side of attention resident, the other streamed by rows.

The sharp lower bounds of ``proofs/derivations/lower-sharp.md`` count the products that
need the most operands at once: forward, P_ij V_jk needs a query row and a key row and
a value entry; backward, dS_ij K_jl needs the rows q_i, dO_i (with L_i, D_i) and k_j,
v_j. These schedules spend fast memory on exactly those operands and nothing else:

* forward: a block of query rows stays resident with its output rows and its running
  log-sum-exp (2d + 1 words a row); every key row k_j and value row v_j streams past it
  once. The output row is kept normalised (o_i = sum_j exp(s_ij - L_i) v_j), so one word
  per row holds what FlashAttention keeps in two (the running maximum and sum).
* backward (FlashAttention-2's formulation): a block of key rows stays resident with
  its dK and dV rows (4d words a row); each query row q_i, dO_i, L_i, D_i streams past
  it, and dQ_i is read, updated and written back (not read for the first block).

* two-sweep backward: the same key blocks, with dK and dV only (no dQ_i read or
  written per block: 2d + 2 streamed words a query row, not 4d + 2); then a second sweep
  keeps blocks of query rows q_i, dO_i, dq_i, L_i, D_i (3d + 2 words a row) resident
  and streams k_j, v_j past them, recomputing P_ij and dS_ij for dQ. Leading term
  (14 d^2 + 12 d) n^2 / M against row streaming's (16 d^2 + 8 d) n^2 / M (the split of
  FlashAttention-2's backward into a dK, dV kernel and a dQ kernel, with rows streamed).
  Its two sweeps, :func:`two_sweep_keys` and :func:`two_sweep_queries`, run over ranges
  of rows and keys, so ``attnio.algorithms.shapes.gqa_two_sweep_backward`` runs them on
  each key/value head's group of stacked query rows.

Scores are handled d rows (forward) or d keys (backward) at a time, so the scratch is
2d words, not a column of the block; the two-sweep backward handles one score at a time
(2 words of scratch), so its blocks fill M exactly at M = d^2. The block sizes are the rules
:data:`~attnio.bounds.blocks.ROW_STREAMING_FORWARD_BLOCKS` and
:data:`~attnio.bounds.blocks.ROW_STREAMING_BACKWARD_BLOCKS`; the exact counts are the
catalog records ``row-streaming-forward-count`` and ``row-streaming-backward-count``.

References
----------
attnio, proofs/derivations/lower-sharp.md; the loop orders of D23 Algorithms 1 and 2
with one-row streamed blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from attnio.bounds.blocks import (
    ROW_STREAMING_BACKWARD_BLOCKS,
    ROW_STREAMING_FORWARD_BLOCKS,
    TWO_SWEEP_KEY_BLOCKS,
    TWO_SWEEP_QUERY_BLOCKS,
)

from .errors import BlocksDoNotFitError
from .flash import chain_ranks, store_dvec, trace_backward_step
from .machine import TwoLevelMachine, blocks


def _block(rule, d: int, M: int) -> int:
    size = rule.block(d, M)
    if size < 1:
        raise BlocksDoNotFitError(
            f"{rule.label}: M={M} leaves no room for a block; it needs M >= {rule.least_memory(d)} words"
        )
    return size


def forward_block(d: int, M: int) -> int:
    """Query rows per resident block of :func:`row_streaming_forward`."""
    return _block(ROW_STREAMING_FORWARD_BLOCKS, d, M)


def backward_block(d: int, M: int) -> int:
    """Key rows per resident block of :func:`row_streaming_backward`."""
    return _block(ROW_STREAMING_BACKWARD_BLOCKS, d, M)


@dataclass(frozen=True)
class Intervals:
    """Which keys each query row attends to, one interval a row, moving right with the row.

    Query row i (of ``rows``, stacked head-major for several heads) attends to the keys
    ``[start[i], stop[i])`` of ``keys`` key rows; key j is attended to by the queries
    ``[first[j], last[j])``. Dense attention is one interval ``[0, n)`` for every row; a
    causal, window or band mask, and the block diagonal of grouped-query heads, are
    others. The schedules below read only these arrays.
    """

    start: np.ndarray
    stop: np.ndarray
    first: np.ndarray
    last: np.ndarray

    @property
    def rows(self) -> int:
        """Query rows."""
        return len(self.start)

    @property
    def keys(self) -> int:
        """Key rows."""
        return len(self.first)

    @classmethod
    def dense(cls, rows: int, keys: int) -> Intervals:
        """Every query row attends to every key."""
        return cls(
            np.zeros(rows, dtype=np.int64),
            np.full(rows, keys, dtype=np.int64),
            np.zeros(keys, dtype=np.int64),
            np.full(keys, rows, dtype=np.int64),
        )

    def allowed(self) -> np.ndarray:
        """The rows x keys boolean matrix of attended pairs (the graph builders' mask)."""
        j = np.arange(self.keys)
        return (self.start[:, None] <= j) & (j < self.stop[:, None])


def stream_query_block(
    mc: TwoLevelMachine, d: int, r0: int, r1: int, span: Intervals, out: str = "O[{i},{k}]"
) -> None:
    """Load query rows [r0, r1) as ``Qi``, stream the keys their intervals reach past them.

    Leaves the block's output rows ``Oi`` and log-sum-exps ``Li`` allocated (the caller
    stores and frees them); frees ``Qi``. The keys ``[start[r0], stop[r1 - 1])`` stream one
    row at a time; for each key j and each chunk of d rows, the rows whose interval
    holds j (known from i and j, no mask word) get s = q_i . k_j and
    L' = logaddexp(L_i, s): o_i <- exp(L_i - L') o_i + exp(s - L') v_j, L_i <- L'.
    ``out`` labels the block's last output values in a trace (``i``, ``k`` filled in).
    """
    numeric, start, stop = mc.numeric, span.start, span.stop
    Qi = mc.load("Qi", "Q", r0, r1, 0, d)
    Oi = mc.alloc("Oi", r1 - r0, d)
    Li = mc.alloc("Li", r1 - r0, fill=-np.inf)
    # every row of the block attends to every key it streams (dense, grouped heads)
    whole = (start[r0:r1] == start[r0]).all() and (stop[r0:r1] == stop[r1 - 1]).all()
    for j in range(int(start[r0]), int(stop[r1 - 1])):
        kj = mc.load("kj", "K", j, j + 1, 0, d)
        vj = mc.load("vj", "V", j, j + 1, 0, d)
        for a0, a1 in blocks(r1 - r0, d):
            s = mc.alloc("s", a1 - a0)  # the chunk's scores and new log-sum-exps
            t = mc.alloc("t", a1 - a0)
            if whole:
                ok = np.arange(a0, a1)
            else:
                rows = np.arange(r0 + a0, r0 + a1)
                ok = a0 + np.flatnonzero((start[rows] <= j) & (j < stop[rows]))
            if numeric and whole:  # in place, on the chunk's slices
                s[...] = Qi[a0:a1] @ kj.T
                np.logaddexp(Li[a0:a1], s, out=t)
                np.exp(Li[a0:a1] - t, out=Li[a0:a1])  # the old rows' weight
                np.exp(s - t, out=s)  # the new key's weight
                Oi[a0:a1] *= Li[a0:a1]
                Oi[a0:a1] += s * vj
                Li[a0:a1] = t
            elif numeric:
                score = Qi[ok] @ kj.T
                new = np.logaddexp(Li[ok], score)
                Oi[ok] = np.exp(Li[ok] - new) * Oi[ok] + np.exp(score - new) * vj
                Li[ok] = new
            if mc.trace is not None:
                _trace_forward(mc.trace, r0, a0, ok, j, span, d, out)
            mc.free("s", "t")
        mc.free("kj", "vj")
    mc.free("Qi")


def _trace_forward(
    tr, r0: int, a0: int, ok: np.ndarray, j: int, span: Intervals, d: int, out: str
) -> None:
    """The vertices of :func:`attnio.pebble.builders.masked_streaming_forward` this step
    computes (words of the chunk buffers ``s`` and ``t`` at row a - a0)."""
    for a in ok.tolist():
        i, w = r0 + a, a - a0
        head, end = int(span.start[i]), int(span.stop[i]) - 1
        tr.compute(f"S[{i},{j}]", "s", w)
        if j == head:  # t = logaddexp(-inf, s) = s; the old rows' weight exp(-inf) = 0
            tr.bind("t", w, f"S[{i},{j}]")
            tr.bind("Li", a, None)
        else:
            tr.compute(f"lse[{i},{j}]", "t", w)
            tr.compute(f"beta[{i},{j}]", "Li", a)
        tr.compute(f"W[{i},{j}]", "s", w)
        for k in range(d):
            if j > head:
                tr.compute(f"beta*o[{i},{k},{j}]", "Oi", (a, k))
            name = (
                out.format(i=i, k=k)
                if j == end
                else (f"o[{i},{k},{j}]" if j > head else f"PV[{i},{j},{k}]")
            )
            tr.compute(name, "Oi", (a, k))
        tr.bind("Li", a, f"S[{i},{j}]" if j == head else f"lse[{i},{j}]")


def interval_forward(
    machine: TwoLevelMachine,
    d: int,
    span: Intervals,
    groups: Sequence[tuple[int, int, str]],
) -> None:
    """Row streaming forward over query intervals; writes O and L (rows x d, rows x 1).

    ``groups`` are (first row, stop row, step label): the query rows of a group are cut
    into resident blocks of :func:`forward_block` rows, each streaming the keys its
    intervals reach (:func:`stream_query_block`). One group of all rows is row streaming
    (dense or masked); a group per key/value head is the grouped-query schedule.
    """
    br = forward_block(d, machine.M)
    mc = machine
    mc.create("O", span.rows, d)
    mc.create("L", span.rows, 1)
    for g0, g1, label in groups:
        for b, (r0, r1) in enumerate(blocks(g1 - g0, br)):
            mc.step(f"forward, {label}query block {b}")
            stream_query_block(mc, d, g0 + r0, g0 + r1, span)
            mc.store("Oi", "O", g0 + r0, g0 + r1, 0, d)
            mc.store("Li", "L", g0 + r0, g0 + r1, 0, 1)
            mc.free("Oi", "Li")


def interval_backward(
    machine: TwoLevelMachine,
    d: int,
    span: Intervals,
    groups: Sequence[tuple[int, int, str]],
    *,
    partials: bool = False,
) -> None:
    """Row streaming backward (FA2 formulation) over key intervals; writes dQ, dK, dV.

    ``groups`` are (first key, stop key, step label): the key rows of a group are cut
    into resident blocks of :func:`backward_block` rows with their dK, dV rows; block
    ``[c0, c1)`` streams the queries ``[first[c0], last[c1 - 1])``. dQ_i is created (not
    read) in the block of query i's first key and read, updated and written back in the
    later ones. Inside a block the attended pairs come from i and j alone.
    With ``partials``, a group of more than one block writes instead, in its block b, a
    fresh partial sum of dQ_i to row b R + i of the slow array ``dQpart`` (R = span.rows),
    never reading dQ; the caller sums the partials into dQ (split-KV decoding).
    """
    bc = backward_block(d, machine.M)
    start, stop, first, last = span.start, span.stop, span.first, span.last
    mc, numeric = machine, machine.numeric
    mc.create("dQ", span.rows, d)
    most = max(len(blocks(g1 - g0, bc)) for g0, g1, _ in groups)
    if partials and most > 1:
        mc.create("dQpart", most * span.rows, d)
    for name in ("dK", "dV"):
        mc.create(name, span.keys, d)
    store_dvec(mc, span.rows, d)
    chains = (span.keys, chain_ranks(span.allowed())) if mc.trace is not None else None
    for g0, g1, label in groups:
        split = partials and len(blocks(g1 - g0, bc)) > 1
        for b, (c0, c1) in enumerate(blocks(g1 - g0, bc)):
            mc.step(f"backward, {label}key block {b}")
            c0, c1 = c0 + g0, c1 + g0
            Kj = mc.load("Kj", "K", c0, c1, 0, d)
            Vj = mc.load("Vj", "V", c0, c1, 0, d)
            dKj = mc.alloc("dKj", c1 - c0, d)
            dVj = mc.alloc("dVj", c1 - c0, d)
            for i in range(int(first[c0]), int(last[c1 - 1])):
                qi = mc.load("qi", "Q", i, i + 1, 0, d)
                dOi = mc.load("dOi", "dO", i, i + 1, 0, d)
                Li = mc.load("Li", "L", i, i + 1, 0, 1)
                Di = mc.load("Di", "Dvec", i, i + 1, 0, 1)
                fresh = split or start[i] >= c0  # this block holds query i's first key
                own = (b, max(c0, int(start[i])), min(c1, int(stop[i])) - max(c0, int(start[i])))
                dQi = mc.alloc("dQi", 1, d) if fresh else mc.load("dQi", "dQ", i, i + 1, 0, d)
                for a0, a1 in blocks(c1 - c0, d):
                    mc.alloc("p", a1 - a0)  # the chunk's P_ij and dS_ij
                    mc.alloc("ds", a1 - a0)
                    if start[i] <= c0 + a0 and c0 + a1 <= stop[i]:  # every key of the chunk
                        ok = slice(a0, a1)
                    else:
                        keys = np.arange(c0 + a0, c0 + a1)
                        ok = a0 + np.flatnonzero((start[i] <= keys) & (keys < stop[i]))
                    if numeric:
                        prob = np.exp(Kj[ok] @ qi.T - Li)  # P_ij on the attended keys
                        dVj[ok] += prob * dOi
                        grad = prob * (Vj[ok] @ dOi.T - Di)  # dS_ij
                        dQi += grad.T @ Kj[ok]
                        dKj[ok] += grad * qi
                    if mc.trace is not None:
                        whole = isinstance(ok, slice)
                        js = list(range(c0 + a0, c0 + a1)) if whole else (c0 + ok).tolist()
                        trace_backward_step(
                            mc.trace, d, [i], js, "p", "ds", (i, c0 + a0), c0, chains,
                            dq_part=own if split else None,
                        )  # fmt: skip
                    mc.free("p", "ds")
                if split:
                    mc.store("dQi", "dQpart", b * span.rows + i, b * span.rows + i + 1, 0, d)
                else:
                    mc.store("dQi", "dQ", i, i + 1, 0, d)
                mc.free("qi", "dOi", "Li", "Di", "dQi")
            mc.store("dKj", "dK", c0, c1, 0, d)
            mc.store("dVj", "dV", c0, c1, 0, d)
            mc.free("Kj", "Vj", "dKj", "dVj")


def row_streaming_forward(machine: TwoLevelMachine, n: int, d: int) -> None:
    """Forward pass: resident query blocks, K and V streamed one row at a time; writes O and L.

    For each key j and query row i of the block, with s = q_i . k_j and
    L' = logaddexp(L_i, s): o_i <- exp(L_i - L') o_i + exp(s - L') v_j, L_i <- L'.
    """
    interval_forward(machine, d, Intervals.dense(n, n), [(0, n, "")])


def row_streaming_backward(machine: TwoLevelMachine, n: int, d: int) -> None:
    """Backward pass (FA2 formulation): resident key blocks, query rows streamed; writes dQ, dK, dV."""
    interval_backward(machine, d, Intervals.dense(n, n), [(0, n, "")])


def two_sweep_blocks(d: int, M: int) -> tuple[int, int]:
    """Key rows per block of the two-sweep backward's first sweep and query rows per block
    of its second (:data:`~attnio.bounds.blocks.TWO_SWEEP_KEY_BLOCKS`,
    :data:`~attnio.bounds.blocks.TWO_SWEEP_QUERY_BLOCKS`)."""
    return _block(TWO_SWEEP_KEY_BLOCKS, d, M), _block(TWO_SWEEP_QUERY_BLOCKS, d, M)


def two_sweep_keys(
    mc: TwoLevelMachine,
    d: int,
    bc: int,
    q: tuple[int, int],
    kv: tuple[int, int],
    chains: tuple[int, tuple | None],
    step: str = "",
) -> None:
    """Sweep 1 of :func:`two_sweep_backward` on the key rows ``kv`` = [k0, k1) against the
    query rows ``q`` = [q0, q1): blocks of ``bc`` key rows resident with their dK and dV
    rows (stored at the end of the block), each query row q_i, dO_i, L_i, D_i streaming
    past once per block. ``chains`` as
    :func:`~attnio.algorithms.flash.trace_backward_step`; ``step`` prefixes the key block
    in the step labels (a key/value head)."""
    numeric, tr = mc.numeric, mc.trace
    for b, (c0, c1) in enumerate(blocks(kv[1] - kv[0], bc)):
        c0, c1 = c0 + kv[0], c1 + kv[0]
        mc.step(f"backward, sweep 1 (dK, dV), {step}key block {b}")
        Kj = mc.load("Kj", "K", c0, c1, 0, d)
        Vj = mc.load("Vj", "V", c0, c1, 0, d)
        dKj = mc.alloc("dKj", c1 - c0, d)
        dVj = mc.alloc("dVj", c1 - c0, d)
        for i in range(*q):
            qi = mc.load("qi", "Q", i, i + 1, 0, d)
            dOi = mc.load("dOi", "dO", i, i + 1, 0, d)
            Li = mc.load("Li", "L", i, i + 1, 0, 1)
            Di = mc.load("Di", "Dvec", i, i + 1, 0, 1)
            mc.alloc("p", 1)  # one P_ij
            mc.alloc("ds", 1)  # one dS_ij
            if numeric:
                prob = np.exp(Kj @ qi.T - Li)
                dVj += prob * dOi
                grad = prob * (Vj @ dOi.T - Di)
                dKj += grad * qi
            if tr is not None:
                for j in range(c0, c1):
                    trace_backward_step(
                        tr, d, [i], [j], "p", "ds", (i, j), c0, chains, parts=("dV", "dK")
                    )
            mc.free("qi", "dOi", "Li", "Di", "p", "ds")
        mc.store("dKj", "dK", c0, c1, 0, d)
        mc.store("dVj", "dV", c0, c1, 0, d)
        mc.free("Kj", "Vj", "dKj", "dVj")


def two_sweep_queries(
    mc: TwoLevelMachine,
    d: int,
    br: int,
    q: tuple[int, int],
    kv: tuple[int, int],
    chains: tuple[int, tuple | None],
    step: str = "",
) -> None:
    """Sweep 2 of :func:`two_sweep_backward` on the query rows ``q`` = [q0, q1) against
    the key rows ``kv`` = [k0, k1): blocks of ``br`` query rows resident with q_i, dO_i,
    L_i, D_i and dq_i (dQ stored at the end of the block), each key row k_j, v_j
    streaming past once per block, P_ij and dS_ij recomputed. ``chains`` and ``step`` as
    :func:`two_sweep_keys`."""
    numeric, tr = mc.numeric, mc.trace
    for b, (r0, r1) in enumerate(blocks(q[1] - q[0], br)):
        r0, r1 = r0 + q[0], r1 + q[0]
        mc.step(f"backward, sweep 2 (dQ), {step}query block {b}")
        Qi = mc.load("Qi", "Q", r0, r1, 0, d)
        dOi = mc.load("dOb", "dO", r0, r1, 0, d)
        Li = mc.load("Lb", "L", r0, r1, 0, 1)
        Di = mc.load("Db", "Dvec", r0, r1, 0, 1)
        dQi = mc.alloc("dQi", r1 - r0, d)
        for j in range(*kv):
            kj = mc.load("kj", "K", j, j + 1, 0, d)
            vj = mc.load("vj", "V", j, j + 1, 0, d)
            mc.alloc("p", 1)
            mc.alloc("ds", 1)
            if numeric:
                prob = np.exp(Qi @ kj.T - Li)
                grad = prob * (dOi @ vj.T - Di)
                dQi += grad * kj
            if tr is not None:
                for i in range(r0, r1):
                    trace_backward_step(
                        tr, d, [i], [j], "p", "ds", (i, j), j, chains, parts=("dQ",), dq_row0=r0
                    )
            mc.free("kj", "vj", "p", "ds")
        mc.store("dQi", "dQ", r0, r1, 0, d)
        mc.free("Qi", "dOb", "Lb", "Db", "dQi")


def two_sweep_backward(machine: TwoLevelMachine, n: int, d: int) -> None:
    """Backward pass (FA2 formulation) in two sweeps; writes Dvec, dK, dV, then dQ.

    Sweep 1 (:func:`two_sweep_keys`): blocks of
    :data:`~attnio.bounds.blocks.TWO_SWEEP_KEY_BLOCKS` key rows
    resident with their dK and dV rows; each query row q_i, dO_i, L_i, D_i streams past
    and adds P_ij dO_i to dv_j and dS_ij q_i to dk_j. Sweep 2 (:func:`two_sweep_queries`):
    blocks of :data:`~attnio.bounds.blocks.TWO_SWEEP_QUERY_BLOCKS` query rows resident
    with q_i, dO_i, L_i, D_i and dq_i; each key row k_j, v_j streams past and adds
    dS_ij k_j to dq_i (P_ij and dS_ij recomputed). Both sweeps hold one P_ij and one
    dS_ij of scratch; the arithmetic of a step runs vectorised over the block's rows, each
    row's values those of one scalar at a time (the rows are independent). The exact
    count is the record ``two-sweep-backward-count``;
    :func:`attnio.algorithms.shapes.gqa_two_sweep_backward` runs the same sweeps on each
    key/value head's group of stacked query rows.
    """
    bc, br = two_sweep_blocks(d, machine.M)
    machine.create("dQ", n, d)
    for name in ("dK", "dV"):
        machine.create(name, n, d)
    store_dvec(machine, n, d)
    two_sweep_keys(machine, d, bc, (0, n), (0, n), (n, None))
    two_sweep_queries(machine, d, br, (0, n), (0, n), (n, None))
