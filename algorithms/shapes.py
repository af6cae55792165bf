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

The exact counts are the catalog records ``gqa-row-streaming-forward-count``,
``gqa-row-streaming-backward-count`` and ``split-kv-decode-forward-count``; with
n_q = n_kv = n and one head they equal ``row-streaming-*-count``.

References
----------
attnio, proofs/derivations/lower-sharp.md (row streaming); D23 Alg. 1 and 2 (loop orders);
Dao et al., FlashDecoding (2023, split KV); Ainslie et al. 2023 (GQA).
"""

from __future__ import annotations

import numpy as np

from attnio.bounds.shape import check_shape

from .errors import AlgorithmParameterError
from .flash import store_dvec
from .machine import TwoLevelMachine, blocks
from .streaming import backward_block, forward_block

Shape = tuple[int, int, int, int]
"""(n_q, n_kv, heads_q, heads_kv)."""

__all__ = [
    "gqa_row_streaming_backward",
    "gqa_row_streaming_forward",
    "kv_chunk",
    "reference_forward",
    "reference_gradients",
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


def _stream_block(mc: TwoLevelMachine, d: int, r0: int, r1: int, k0: int, k1: int) -> tuple:
    """Load query rows [r0, r1); stream K, V rows [k0, k1) past them; return (Oi, Li) buffers."""
    numeric = mc.numeric
    Qi = mc.load("Qi", "Q", r0, r1, 0, d)
    Oi = mc.alloc("Oi", r1 - r0, d)
    Li = mc.alloc("Li", r1 - r0, fill=-np.inf)
    for j in range(k0, k1):
        kj = mc.load("kj", "K", j, j + 1, 0, d)
        vj = mc.load("vj", "V", j, j + 1, 0, d)
        for a0, a1 in blocks(r1 - r0, d):
            s = mc.alloc("s", a1 - a0)
            t = mc.alloc("t", a1 - a0)
            if numeric:
                s[...] = Qi[a0:a1] @ kj.T
                np.logaddexp(Li[a0:a1], s, out=t)
                np.exp(Li[a0:a1] - t, out=Li[a0:a1])
                np.exp(s - t, out=s)
                Oi[a0:a1] *= Li[a0:a1]
                Oi[a0:a1] += s * vj
                Li[a0:a1] = t
            mc.free("s", "t")
        mc.free("kj", "vj")
    mc.free("Qi")
    return Oi, Li


def gqa_row_streaming_forward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Forward pass, group-aware row streaming; writes O and L (module docstring).

    ``shape`` is (n_q, n_kv, heads_q, heads_kv); ``None`` is (n, n, 1, 1).
    """
    n_q, n_kv, hq, hk = _shape(n, shape)
    rows = hq // hk * n_q
    br = forward_block(d, machine.M)
    mc = machine
    mc.create("O", hq * n_q, d)
    mc.create("L", hq * n_q, 1)
    for k in range(hk):
        for b, (r0, r1) in enumerate(blocks(rows, br)):
            mc.step(f"forward, kv head {k}, query block {b}")
            q0 = k * rows
            _stream_block(mc, d, q0 + r0, q0 + r1, k * n_kv, (k + 1) * n_kv)
            mc.store("Oi", "O", q0 + r0, q0 + r1, 0, d)
            mc.store("Li", "L", q0 + r0, q0 + r1, 0, 1)
            mc.free("Oi", "Li")


def gqa_row_streaming_backward(
    machine: TwoLevelMachine, n: int, d: int, *, shape: Shape | None = None
) -> None:
    """Backward pass (FA2 formulation), group-aware row streaming; writes dQ, dK, dV."""
    n_q, n_kv, hq, hk = _shape(n, shape)
    rows = hq // hk * n_q
    bc = backward_block(d, machine.M)
    mc, numeric = machine, machine.numeric
    mc.create("dQ", hq * n_q, d)
    for name in ("dK", "dV"):
        mc.create(name, hk * n_kv, d)
    store_dvec(mc, hq * n_q, d)
    for k in range(hk):
        for b, (c0, c1) in enumerate(blocks(n_kv, bc)):
            mc.step(f"backward, kv head {k}, key block {b}")
            c0, c1 = c0 + k * n_kv, c1 + k * n_kv
            Kj = mc.load("Kj", "K", c0, c1, 0, d)
            Vj = mc.load("Vj", "V", c0, c1, 0, d)
            dKj = mc.alloc("dKj", c1 - c0, d)
            dVj = mc.alloc("dVj", c1 - c0, d)
            for i in range(k * rows, (k + 1) * rows):
                qi = mc.load("qi", "Q", i, i + 1, 0, d)
                dOi = mc.load("dOi", "dO", i, i + 1, 0, d)
                Li = mc.load("Li", "L", i, i + 1, 0, 1)
                Di = mc.load("Di", "Dvec", i, i + 1, 0, 1)
                dQi = mc.alloc("dQi", 1, d) if b == 0 else mc.load("dQi", "dQ", i, i + 1, 0, d)
                for a0, a1 in blocks(c1 - c0, d):
                    p = mc.alloc("p", a1 - a0)
                    ds = mc.alloc("ds", a1 - a0)
                    if numeric:
                        np.exp(Kj[a0:a1] @ qi.T - Li, out=p)
                        dVj[a0:a1] += p * dOi
                        ds[...] = p * (Vj[a0:a1] @ dOi.T - Di)
                        dQi += ds.T @ Kj[a0:a1]
                        dKj[a0:a1] += ds * qi
                    mc.free("p", "ds")
                mc.store("dQi", "dQ", i, i + 1, 0, d)
                mc.free("qi", "dOi", "Li", "Di", "dQi")
            mc.store("dKj", "dK", c0, c1, 0, d)
            mc.store("dVj", "dV", c0, c1, 0, d)
            mc.free("Kj", "Vj", "dKj", "dVj")


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
            for b, (r0, r1) in enumerate(blocks(rows, br)):
                mc.step(f"split forward, kv head {k}, chunk {c}, query block {b}")
                q0 = k * rows
                _stream_block(mc, d, q0 + r0, q0 + r1, k * n_kv + j0, k * n_kv + j1)
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
            mc.free("oc", "lc")
        mc.store("o", "O", i, i + 1, 0, d)
        mc.store("l", "L", i, i + 1, 0, 1)
        mc.free("o", "l")


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
