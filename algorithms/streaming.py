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

Scores are handled d rows (forward) or d keys (backward) at a time, so the scratch is
2d words, not a column of the block. The block sizes are the rules
:data:`~attnio.bounds.blocks.ROW_STREAMING_FORWARD_BLOCKS` and
:data:`~attnio.bounds.blocks.ROW_STREAMING_BACKWARD_BLOCKS`; the exact counts are the
catalog records ``row-streaming-forward-count`` and ``row-streaming-backward-count``.

References
----------
attnio, proofs/derivations/lower-sharp.md; the loop orders of D23 Algorithms 1 and 2
with one-row streamed blocks.
"""

from __future__ import annotations

import numpy as np

from attnio.bounds.blocks import ROW_STREAMING_BACKWARD_BLOCKS, ROW_STREAMING_FORWARD_BLOCKS

from .errors import BlocksDoNotFitError
from .flash import store_dvec, trace_backward_step
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


def row_streaming_forward(machine: TwoLevelMachine, n: int, d: int) -> None:
    """Forward pass: resident query blocks, K and V streamed one row at a time; writes O and L.

    For each key j and query row i of the block, with s = q_i . k_j and
    L' = logaddexp(L_i, s): o_i <- exp(L_i - L') o_i + exp(s - L') v_j, L_i <- L'.
    """
    br = forward_block(d, machine.M)
    mc, numeric = machine, machine.numeric
    mc.create("O", n, d)
    mc.create("L", n, 1)
    for b, (r0, r1) in enumerate(blocks(n, br)):
        mc.step(f"forward, query block {b}")
        Qi = mc.load("Qi", "Q", r0, r1, 0, d)
        Oi = mc.alloc("Oi", r1 - r0, d)
        Li = mc.alloc("Li", r1 - r0, fill=-np.inf)
        for j in range(n):
            kj = mc.load("kj", "K", j, j + 1, 0, d)
            vj = mc.load("vj", "V", j, j + 1, 0, d)
            for a0, a1 in blocks(r1 - r0, d):
                s = mc.alloc("s", a1 - a0)
                t = mc.alloc("t", a1 - a0)
                if numeric:
                    s[...] = Qi[a0:a1] @ kj.T
                    np.logaddexp(Li[a0:a1], s, out=t)
                    np.exp(Li[a0:a1] - t, out=Li[a0:a1])  # the old rows' weight
                    np.exp(s - t, out=s)  # the new key's weight
                    Oi[a0:a1] *= Li[a0:a1]
                    Oi[a0:a1] += s * vj
                    Li[a0:a1] = t
                if mc.trace is not None:
                    _trace_forward(mc.trace, r0, a0, a1, j, n, d)
                mc.free("s", "t")
            mc.free("kj", "vj")
        mc.store("Oi", "O", r0, r1, 0, d)
        mc.store("Li", "L", r0, r1, 0, 1)
        mc.free("Qi", "Oi", "Li")


def _trace_forward(tr, r0: int, a0: int, a1: int, j: int, n: int, d: int) -> None:
    """The vertices of :func:`attnio.pebble.builders.streaming_forward` this step computes."""
    for a in range(a0, a1):
        i, w = r0 + a, a - a0
        tr.compute(f"S[{i},{j}]", "s", w)
        if j == 0:  # t = logaddexp(-inf, s) = s; the old rows' weight exp(-inf) = 0
            tr.bind("t", w, f"S[{i},{j}]")
            tr.bind("Li", a, None)
        else:
            tr.compute(f"lse[{i},{j}]", "t", w)
            tr.compute(f"beta[{i},{j}]", "Li", a)
        tr.compute(f"W[{i},{j}]", "s", w)
        for k in range(d):
            if j:
                tr.compute(f"beta*o[{i},{k},{j}]", "Oi", (a, k))
            name = f"O[{i},{k}]" if j == n - 1 else (f"o[{i},{k},{j}]" if j else f"PV[{i},{j},{k}]")
            tr.compute(name, "Oi", (a, k))
        tr.bind("Li", a, f"S[{i},{j}]" if j == 0 else f"lse[{i},{j}]")


def row_streaming_backward(machine: TwoLevelMachine, n: int, d: int) -> None:
    """Backward pass (FA2 formulation): resident key blocks, query rows streamed; writes dQ, dK, dV."""
    bc = backward_block(d, machine.M)
    mc, numeric = machine, machine.numeric
    for name in ("dQ", "dK", "dV"):
        mc.create(name, n, d)
    store_dvec(mc, n, d)
    for b, (c0, c1) in enumerate(blocks(n, bc)):
        mc.step(f"backward, key block {b}")
        Kj = mc.load("Kj", "K", c0, c1, 0, d)
        Vj = mc.load("Vj", "V", c0, c1, 0, d)
        dKj = mc.alloc("dKj", c1 - c0, d)
        dVj = mc.alloc("dVj", c1 - c0, d)
        for i in range(n):
            qi = mc.load("qi", "Q", i, i + 1, 0, d)
            dOi = mc.load("dOi", "dO", i, i + 1, 0, d)
            Li = mc.load("Li", "L", i, i + 1, 0, 1)
            Di = mc.load("Di", "Dvec", i, i + 1, 0, 1)
            dQi = mc.alloc("dQi", 1, d) if b == 0 else mc.load("dQi", "dQ", i, i + 1, 0, d)
            for a0, a1 in blocks(c1 - c0, d):
                p = mc.alloc("p", a1 - a0)
                ds = mc.alloc("ds", a1 - a0)
                if numeric:
                    np.exp(Kj[a0:a1] @ qi.T - Li, out=p)  # P_ij
                    dVj[a0:a1] += p * dOi
                    ds[...] = p * (Vj[a0:a1] @ dOi.T - Di)  # dS_ij
                    dQi += ds.T @ Kj[a0:a1]
                    dKj[a0:a1] += ds * qi
                if mc.trace is not None:
                    trace_backward_step(mc.trace, n, d, i, i + 1, c0 + a0, c0 + a1, "p", "ds", a0)
                mc.free("p", "ds")
            mc.store("dQi", "dQ", i, i + 1, 0, d)
            mc.free("qi", "dOi", "Li", "Di", "dQi")
        mc.store("dKj", "dK", c0, c1, 0, d)
        mc.store("dVj", "dV", c0, c1, 0, d)
        mc.free("Kj", "Vj", "dKj", "dVj")
