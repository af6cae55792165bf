"""Element-level attention DAGs for the shapes people run: n_q x n_kv, h_q query heads sharing h_kv.

Decoding runs a few queries against a long KV cache (n_q << n_kv); grouped-query attention
(GQA) lets the g = h_q / h_kv query heads of a group share one K and one V (MQA: h_kv = 1).
These builders make the graphs of :mod:`attnio.pebble.builders` in those shapes: every
query head has its own Q rows and its own stages (scores, exp, row sums, normalisation,
output), and **the K and V input vertices of a key/value head are shared** by the products
of every query head of its group. In the backward graph dK and dV of a key/value head are
summation trees over the query rows of all heads of the group.

With n_q = n_kv = n and h_q = h_kv = 1 the graphs are exactly
:func:`~attnio.pebble.builders.attention_forward` and
:func:`~attnio.pebble.builders.attention_backward` (same labels, same edges), so ``--n``
keeps its meaning. Labels carry the head when there is more than one (``Q[h,i,l]``,
``K[k,j,l]``).

References
----------
SY24 section 2 (the forward graph); D23 (the backward formulation, docs/notation.md);
GQA's sharing of K and V across a group of query heads (Ainslie et al. 2023).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from attnio.bounds.arguments import positive_integer
from attnio.bounds.shape import check_shape
from attnio.bounds.symbols import d, h_kv, h_q, n_kv, n_q

from .builders import GraphBuilder
from .dag import Dag
from .errors import PebbleParameterError

__all__ = [
    "SHAPE_KINDS",
    "Shape",
    "build_shape",
    "gqa_backward",
    "gqa_backward_vertices",
    "gqa_forward",
    "gqa_forward_vertices",
]


@dataclass(frozen=True)
class Shape:
    """One attention shape: query rows, key rows, query heads, key/value heads.

    Raises
    ------
    PebbleParameterError
        A size is not a positive integer, or ``heads_q`` is not a multiple of ``heads_kv``.

    Examples
    --------
    >>> Shape(1, 16, 4, 2).group
    2
    """

    n_q: int
    n_kv: int
    heads_q: int = 1
    heads_kv: int = 1

    def __post_init__(self) -> None:
        check_shape(self.n_q, self.n_kv, self.heads_q, self.heads_kv, PebbleParameterError)

    @property
    def group(self) -> int:
        """Query heads per key/value head, g = h_q / h_kv."""
        return self.heads_q // self.heads_kv


def _inputs(b: GraphBuilder, base: str, heads: int, rows: int, d_: int) -> list[np.ndarray]:
    out = []
    for h in range(heads):
        m = np.empty((rows, d_), dtype=np.int64)
        prefix = base if heads == 1 else f"{base}[{h},"
        for i in range(rows):
            for k in range(d_):
                label = f"{base}[{i},{k}]" if heads == 1 else f"{prefix}{i},{k}]"
                m[i, k] = b.vertex(label)
        out.append(m)
    return out


def gqa_forward(shape: Shape, d_: int, *, tree: str = "chain") -> Dag:
    """The forward graph of :func:`~attnio.pebble.builders.attention_forward` in ``shape``.

    Inputs Q (h_q heads of n_q x d), K and V (h_kv heads of n_kv x d); query head h
    reads key/value head h // g. Outputs O (h_q heads of n_q x d).

    Examples
    --------
    >>> g = gqa_forward(Shape(1, 3, 2, 1), 2)
    >>> g.num_vertices == gqa_forward_vertices().subs({n_q: 1, n_kv: 3, h_q: 2, h_kv: 1, d: 2})
    True
    """
    positive_integer("d", d_, PebbleParameterError)
    b = GraphBuilder(tree)
    hq, hk, g = shape.heads_q, shape.heads_kv, shape.group
    Qs = _inputs(b, "Q", hq, shape.n_q, d_)
    Ks = _inputs(b, "K", hk, shape.n_kv, d_)
    Vs = _inputs(b, "V", hk, shape.n_kv, d_)
    rows, keys = range(shape.n_q), range(shape.n_kv)
    for h in range(hq):
        Q, K, V = Qs[h], Ks[h // g], Vs[h // g]
        t = "" if hq == 1 else f"{h},"
        prod = {
            (i, j): [b.vertex(f"QK[{t}{i},{j},{l}]", (Q[i, l], K[j, l])) for l in range(d_)]
            for i in rows
            for j in keys
        }
        S = {ij: b.tree(f"S[{t}{ij[0]},{ij[1]}]", prod[ij]) for ij in prod}
        A = {ij: b.vertex(f"exp[{t}{ij[0]},{ij[1]}]", (S[ij],)) for ij in prod}
        ell = [b.tree(f"rowsum[{t}{i}]", [A[i, j] for j in keys]) for i in rows]
        P = {(i, j): b.vertex(f"P[{t}{i},{j}]", (A[i, j], ell[i])) for i, j in prod}
        pv = {
            (i, k): [b.vertex(f"PV[{t}{i},{j},{k}]", (P[i, j], V[j, k])) for j in keys]
            for i in rows
            for k in range(d_)
        }
        for i, k in pv:
            b.tree(f"O[{t}{i},{k}]", pv[i, k])
    return b.dag()


def gqa_forward_vertices() -> sp.Expr:
    """Vertices of :func:`gqa_forward`: inputs h_q n_q d + 2 h_kv n_kv d, and per query head
    4 n_q n_kv d + 2 n_q n_kv - n_q d - n_q (products, score trees, exp, row sums, P, PV
    products, output trees)."""
    per_head = 4 * n_q * n_kv * d + 2 * n_q * n_kv - n_q * d - n_q
    return h_q * n_q * d + 2 * h_kv * n_kv * d + h_q * per_head


def gqa_backward(shape: Shape, d_: int, *, tree: str = "chain") -> Dag:
    """The backward graph of :func:`~attnio.pebble.builders.attention_backward` in ``shape``.

    Inputs Q, O, dO (h_q heads of n_q x d), L (h_q heads of n_q), K, V (h_kv heads of
    n_kv x d). Per query head: S, P = exp(S - L), dP = dO V^T, D = rowsum(dO * O),
    dS = P (dP - D), dQ = dS K. Per key/value head k: dV[j] and dK[j] are summation trees
    over the query rows of every head of group k (the heads that read K_j and V_j).

    Examples
    --------
    >>> g = gqa_backward(Shape(2, 1, 2, 1), 1)
    >>> g.num_vertices == gqa_backward_vertices().subs({n_q: 2, n_kv: 1, h_q: 2, h_kv: 1, d: 1})
    True
    """
    positive_integer("d", d_, PebbleParameterError)
    b = GraphBuilder(tree)
    hq, hk, g = shape.heads_q, shape.heads_kv, shape.group
    rows, keys, cols = range(shape.n_q), range(shape.n_kv), range(d_)
    Qs = _inputs(b, "Q", hq, shape.n_q, d_)
    Ks = _inputs(b, "K", hk, shape.n_kv, d_)
    Vs = _inputs(b, "V", hk, shape.n_kv, d_)
    Os = _inputs(b, "O", hq, shape.n_q, d_)
    dOs = _inputs(b, "dO", hq, shape.n_q, d_)
    Ls = [[b.vertex(f"L[{i}]" if hq == 1 else f"L[{h},{i}]") for i in rows] for h in range(hq)]
    pdo: dict[tuple[int, int, int], list[int]] = {}
    dsq: dict[tuple[int, int, int], list[int]] = {}
    for h in range(hq):
        Q, K, V, O, dO, L = Qs[h], Ks[h // g], Vs[h // g], Os[h], dOs[h], Ls[h]
        t = "" if hq == 1 else f"{h},"
        pairs = [(i, j) for i in rows for j in keys]
        qk = {(i, j): [b.vertex(f"QK[{t}{i},{j},{l}]", (Q[i, l], K[j, l])) for l in cols]
              for i, j in pairs}  # fmt: skip
        S = {(i, j): b.tree(f"S[{t}{i},{j}]", qk[i, j]) for i, j in pairs}
        sh = {(i, j): b.vertex(f"S-L[{t}{i},{j}]", (S[i, j], L[i])) for i, j in pairs}
        P = {(i, j): b.vertex(f"P[{t}{i},{j}]", (sh[i, j],)) for i, j in pairs}
        for j in keys:
            for k in cols:
                pdo.setdefault((h // g, j, k), []).extend(
                    b.vertex(f"PdO[{t}{i},{j},{k}]", (P[i, j], dO[i, k])) for i in rows
                )
        if g == 1:  # the square graph's order: dV before dP
            for j in keys:
                for k in cols:
                    b.tree(f"dV[{t}{j},{k}]", pdo.pop((h // g, j, k)))
        dov = {(i, j): [b.vertex(f"dOV[{t}{i},{j},{k}]", (dO[i, k], V[j, k])) for k in cols]
               for i, j in pairs}  # fmt: skip
        dP = {(i, j): b.tree(f"dP[{t}{i},{j}]", dov[i, j]) for i, j in pairs}
        doo = [[b.vertex(f"dOO[{t}{i},{k}]", (dO[i, k], O[i, k])) for k in cols] for i in rows]
        D = [b.tree(f"D[{t}{i}]", doo[i]) for i in rows]
        diff = {(i, j): b.vertex(f"dP-D[{t}{i},{j}]", (dP[i, j], D[i])) for i, j in pairs}
        dS = {(i, j): b.vertex(f"dS[{t}{i},{j}]", (P[i, j], diff[i, j])) for i, j in pairs}
        dsk = {(i, l): [b.vertex(f"dSK[{t}{i},{j},{l}]", (dS[i, j], K[j, l])) for j in keys]
               for i in rows for l in cols}  # fmt: skip
        for i, l in dsk:
            b.tree(f"dQ[{t}{i},{l}]", dsk[i, l])
        for j in keys:
            for l in cols:
                dsq.setdefault((h // g, j, l), []).extend(
                    b.vertex(f"dSQ[{t}{i},{j},{l}]", (dS[i, j], Q[i, l])) for i in rows
                )
        if g == 1:
            for j in keys:
                for l in cols:
                    b.tree(f"dK[{t}{j},{l}]", dsq.pop((h // g, j, l)))
    u = "" if hk == 1 else "{},"
    for (k, j, c), terms in pdo.items():
        b.tree(f"dV[{u.format(k)}{j},{c}]", terms)
    for (k, j, c), terms in dsq.items():
        b.tree(f"dK[{u.format(k)}{j},{c}]", terms)
    return b.dag()


def gqa_backward_vertices() -> sp.Expr:
    """Vertices of :func:`gqa_backward`: h_q (10 n_q n_kv d + 2 n_q n_kv + 4 n_q d).

    Inputs 3 h_q n_q d + h_q n_q + 2 h_kv n_kv d; per query head 8 n_q n_kv d + 2 n_q n_kv
    + n_q d - n_q; the dV and dK trees of a key/value head add 2 n_kv d (g n_q - 1).
    """
    return h_q * (10 * n_q * n_kv * d + 2 * n_q * n_kv + 4 * n_q * d)


SHAPE_KINDS = {"attention-forward": (gqa_forward, gqa_forward_vertices),
               "attention-backward": (gqa_backward, gqa_backward_vertices)}  # fmt: skip
"""The DAG families (``attnio pebble --dag``) that take a shape, and their builders."""


def build_shape(
    kind: str, shape: Shape, d_: int, *, tree: str = "chain", max_vertices: int = 5_000_000
) -> Dag:
    """Build ``kind`` (a key of :data:`SHAPE_KINDS`) in ``shape``, refusing before anything is
    allocated a graph of more than ``max_vertices`` vertices.

    Raises
    ------
    PebbleParameterError
        Another kind, a bad ``d``, or too many vertices.

    Examples
    --------
    >>> build_shape("attention-forward", Shape(1, 2, 2, 1), 1).num_vertices
    26
    """
    if kind not in SHAPE_KINDS:
        raise PebbleParameterError(
            f"dag={kind!r} takes no shape (--n-q, --n-kv, --heads-q, --heads-kv); those "
            f"apply to: {', '.join(SHAPE_KINDS)}"
        )
    positive_integer("d", d_, PebbleParameterError)
    builder, vertices = SHAPE_KINDS[kind]
    values = {n_q: shape.n_q, n_kv: shape.n_kv, h_q: shape.heads_q, h_kv: shape.heads_kv, d: d_}
    count = int(vertices().subs(values))
    if count > max_vertices:
        raise PebbleParameterError(
            f"dag {kind} with n_q={shape.n_q}, n_kv={shape.n_kv}, heads_q={shape.heads_q}, "
            f"heads_kv={shape.heads_kv}, d={d_} has {count:,} vertices, more than "
            f"max_vertices={max_vertices:,}; choose smaller sizes or raise the limit "
            "(--max-vertices)"
        )
    return builder(shape, d_, tree=tree)
