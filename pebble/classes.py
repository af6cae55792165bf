"""Graph classes of the dense lower bounds: the properties of a graph each derivation's lemmas use.

The derivations of ``proofs/derivations/lower-*.md`` are proved by hand for every graph
with the properties below, not for one builder. Each property is a statement about a
:class:`~attnio.pebble.dag.Dag` that a function here checks, returning every place it
fails (an empty list: the graph has it). The vertices the properties talk about (the
inputs Q_il, the products Q_il K_jl, the scores S_ij, the second-stage products, the
outputs) are found by the builders' labels (``docs/notation.md``); every structural fact
a lemma uses (predecessor sets, single successors, paths, disjointness) is then checked
on the edges, never read from a label. A failure can therefore mean "not in the class"
or "the labels name another witness"; a pass is a proof that the graph is in the class.

Graphs with heads (``shape-lower.md``, ``shape-compulsory.md``): the labels of
:mod:`attnio.pebble.shapes` carry the head first (``Q[h,i,l]``, ``K[k,j,l]``,
``QK[h,i,j,l]`` with j a key of head h's group); they are read with the rows of the
h_q query heads stacked head-major (row h n_q + i) and the keys of the h_kv key/value
heads likewise, and the pairs are each query head's rows with the keys of its group (the
block diagonal), not every row with every key. A graph built with its heads already
stacked under one-head labels (the schedules' ``masked_streaming_forward`` of the heads'
block diagonal) is read the same way when its heads are given (``heads=(h_q, h_kv)``).
Then every property below is per query head: a pair chain per (head, row, key), the
chains disjoint also across the heads of a group, one accumulator tree per output (dK,
dV of a key/value head summing over every head of its group).

Masked graphs (``causal-lower.md``): given a mask (``mask=``, a boolean rows x keys
matrix), the pairs are its allowed pairs (within the heads' block diagonal, by the same
selection), so every pair-indexed property below is read over them: a score tree, dP tree
and pair chain per allowed pair, an accumulator tree per output over its row's allowed keys
(dK, dV: its key's allowed rows); ``io-ends`` and ``row-sets`` read the rows and keys with
an allowed pair (compulsory.md section 3: a key no query attends to is no product's
operand and has no dK, dV). Without a mask every pair is read, so a masked graph fails
the dense classes where its masked-out pairs have no vertex.

Properties (forward graphs: inputs Q, K, V, outputs O; backward: FlashAttention-2's
inputs Q, K, V, O, dO, L and outputs dQ, dK, dV):

``square``
    one query head and one key/value head, n_q = n_kv: the n^2 pairs the dense
    derivations count (their records are in n).
``causal``
    ``square``, and the pairs read are exactly the causal mask's, (i, j) with j <= i:
    the Z = n (n + 1) / 2 pairs the causal records count.
``allowed-pairs``
    no vertex named for a pair that is not read (a score, product or dP of a masked-out
    pair): the masked graph's products are those of its allowed pairs
    (``causal-lower.md`` section 3).

``io-ends``
    every input named Q, K, V (and O, dO, L backward) is a source with a successor, and
    every output (O, resp. dQ, dK, dV) is a sink that is not a source
    (``compulsory.md``).
``score-trees``
    for every pair (i, j) and every l a product vertex Q_il K_jl whose predecessors are
    exactly the inputs Q_il and K_jl; from each product, following the unique successor
    reaches the vertex S_ij (every vertex on the way other than S_ij has exactly one
    successor); the score tree T_ij (the vertices of these walks) of different pairs are
    disjoint (``lower-large.md`` section 2, ``lower-twostage.md`` Lemma 3).
``dp-trees``
    backward: the same for the products dO_ik V_jk and dP_ij (``lower-families.md``
    Lemma 4).
``pair-chains``
    every second-stage product u (forward ``PV``/``AV[i,j,k]`` with predecessors V_jk and
    one vertex x; backward dS_ij K_jl, dS_ij Q_il, P_ij dO_ik) has a *pair chain* C_ij:
    T_ij (and backward the dP tree), with a shortest path from S_ij (and dP_ij) to x; the
    chains of different pairs are disjoint and hold no input and no second-stage
    product; and from every input the lemma names there is a path to u whose vertices
    other than its ends lie in C_ij (forward: Q_il, K_jl for every l; backward, for
    dS_ij K_jl and dS_ij Q_il: Q_il', K_jl', dO_ik, V_jk for every l', k and L_i, and
    from O_ik a path inside C_ij and the row set R_i; for P_ij dO_ik: Q_il', K_jl')
    (``lower-sharp.md`` Lemma 1, ``lower-accumulators.md`` Lemma 2).
``row-sets``
    backward: for every row i, products dO_ik O_ik with exactly those two predecessors,
    walking by unique successors to D_i; the row sets R_i are disjoint from each other
    and from every pair chain (``lower-sharp.md`` section 2).
``accumulator-trees``
    every output is the root of an *accumulator tree*: from each of its second-stage
    products (forward u_ijk for every j; backward P_ij dO_ik over i for dV_jk,
    dS_ij K_jl over j for dQ_il, dS_ij Q_il over i for dK_jl) following the unique
    successor reaches the output, a sink; every other vertex on the way has exactly one
    successor. The trees are disjoint from each other, from the pair chains and the row
    sets. They may hold vertices with predecessors from outside the tree (a rescale
    factor, a division by l_i): the lemmas never follow a predecessor that is not a tree
    child (``lower-sharp.md`` Lemma 2, ``lower-accumulators.md`` Lemma 1).

References
----------
HK81 (the game); SY24 section 2 (the forward graph); D23 (FlashAttention-2, the online
softmax and the backward formulation); proofs/derivations/*.md (the lemmas).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from attnio.bounds.pebblings import extra_red, red_pebbles
from attnio.bounds.record import Pass

from .dag import Dag
from .errors import PebbleParameterError

__all__ = [
    "CLASSES",
    "COVERAGE",
    "MASKED_CLASSES",
    "PROPERTIES",
    "Coverage",
    "Structures",
    "Violation",
    "graph_pass",
    "in_class",
    "structures",
    "violations",
]

_NAME = re.compile(r"^([A-Za-z*+\-]+)\[([0-9,]+)\]$")


@dataclass(frozen=True)
class Violation:
    """One place where a graph fails a property.

    Attributes
    ----------
    prop : str
        The property (one of :data:`PROPERTIES`).
    where : str
        The vertex, pair or tree and what fails there.
    """

    prop: str
    where: str

    def __str__(self) -> str:
        return f"{self.prop}: {self.where}"


_ROLES: dict[str, tuple[str, int]] = {
    **dict.fromkeys(("Q", "O", "dO", "dQ", "dOO"), ("row", 2)),
    **dict.fromkeys(("L", "D"), ("row", 1)),
    **dict.fromkeys(("K", "V", "dK", "dV"), ("key", 2)),
    **dict.fromkeys(("S", "dP"), ("pair", 2)),
    **dict.fromkeys(("QK", "dOV", "PV", "AV", "dSK", "dSQ", "PdO"), ("pair", 3)),
}
"""The names the properties read: what their first index counts (a query row, a key row,
a pair of both) and their number of indices with one head. With more heads the labels of
``attnio.pebble.shapes`` put the head first (``Q[h,i,l]``, ``K[k,j,l]``, ``QK[h,i,j,l]``
with j a key of head h's group)."""


def _allowed(mask: object, rows: int, keys: int) -> np.ndarray:
    """The mask as a boolean rows x keys array (rows and keys stacked head-major)."""
    array = np.asarray(mask)
    if array.shape != (rows, keys):
        raise PebbleParameterError(
            f"mask of shape {array.shape} must have the graph's shape (rows, keys) = "
            f"({rows}, {keys})"
        )
    if array.dtype != bool:
        if not np.isin(array, (0, 1)).all():
            raise PebbleParameterError("mask entries must be booleans or 0/1")
        array = array.astype(bool)
    return array


class _Graph:
    """A Dag with its named vertices indexed by (name, indices), heads stacked.

    Query rows are stacked head-major (row h n_q + i is row i of query head h) and key rows
    likewise (h_kv n_kv of them); the pairs are (row, key) of a query head and a key of its
    group (all rows x keys with one head): the block diagonal over the groups; with a
    ``mask``, only its allowed pairs of that block diagonal.
    """

    def __init__(self, dag: Dag, heads: tuple[int, int] | None = None, mask: object = None) -> None:
        self.dag = dag
        raw: dict[tuple[str, tuple[int, ...]], int] = {}
        for v, label in enumerate(dag.labels):
            for part in label.split("="):
                match = _NAME.match(part)
                if match:
                    key = (match.group(1), tuple(int(x) for x in match.group(2).split(",")))
                    raw.setdefault(key, v)

        def extent(name: str, arity: int) -> tuple[bool, list[int]]:
            idx = [i for (x, i) in raw if x == name]
            headed = any(len(i) == arity + 1 for i in idx)
            width = arity + 1 if headed else arity
            top = [
                1 + max((i[a] for i in idx if len(i) == width), default=-1) for a in range(width)
            ]
            return headed, ([1] if not headed else []) + top

        q_headed, (h_q, n_q, d_) = extent("Q", 2)
        k_headed, (h_kv, n_kv, _) = extent("K", 2)
        if heads is not None:
            if q_headed or k_headed:
                found = (h_q, h_kv)
                if tuple(heads) != found:
                    raise PebbleParameterError(
                        f"heads={tuple(heads)} but the dag's labels have {found} heads"
                    )
            else:
                h_q, h_kv = heads
                for name, total, h in (("rows", n_q, h_q), ("keys", n_kv, h_kv)):
                    if h < 1 or total % h:
                        raise PebbleParameterError(
                            f"heads={tuple(heads)}: the dag's {total} stacked {name} do not "
                            f"split into {h} heads"
                        )
                n_q, n_kv = n_q // h_q, n_kv // h_kv
        if h_q % max(h_kv, 1):
            raise PebbleParameterError(
                f"the dag has {h_q} query heads, not a multiple of its {h_kv} key/value heads"
            )
        group = h_q // max(h_kv, 1)
        self.heads, self.n_q, self.n_kv, self.d = (h_q, h_kv), n_q, n_kv, d_
        self.rows, self.keys = h_q * n_q, h_kv * n_kv
        self.named: dict[tuple[str, tuple[int, ...]], int] = {}
        for (name, idx), v in raw.items():
            role, arity = _ROLES.get(name, ("", 0))
            headed = q_headed if role in ("row", "pair") else k_headed
            if role and headed:
                if len(idx) != arity + 1:
                    continue
                h, *rest = idx
                if role == "row":
                    idx = (h * n_q + rest[0], *rest[1:])
                elif role == "key":
                    idx = (h * n_kv + rest[0], *rest[1:])
                else:
                    idx = (h * n_q + rest[0], h // group * n_kv + rest[1], *rest[2:])
            self.named.setdefault((name, idx), v)
        span = group * n_q
        allowed = None if mask is None else _allowed(mask, self.rows, self.keys)
        self.pairs = [
            (i, j)
            for i in range(self.rows)
            for j in range(self.keys)
            if i // span == j // n_kv and (allowed is None or allowed[i, j])
        ]
        self.used_rows = {i for i, _ in self.pairs}
        self.used_keys = {j for _, j in self.pairs}
        self.n = self.rows
        self.backward = ("dO", (0, 0)) in self.named
        self.memo: dict[str, tuple] = {}
        self.succ = [set(dag.successors(v).tolist()) for v in range(dag.num_vertices)]
        self.pred = [set(dag.predecessors(v).tolist()) for v in range(dag.num_vertices)]

    def get(self, name: str, *idx: int) -> int | None:
        return self.named.get((name, idx))

    def show(self, v: int) -> str:
        return self.dag.labels[v]

    def walk(self, start: int, root: int) -> tuple[list[int], str | None]:
        """Follow unique successors from ``start`` to ``root``; the vertices, or what fails."""
        path, v = [start], start
        while v != root:
            succ = self.succ[v]
            if len(succ) != 1:
                return path, (
                    f"{self.show(v)} on the way from {self.show(start)} to {self.show(root)} "
                    f"has {len(succ)} successors, not 1"
                )
            (v,) = succ
            path.append(v)
            if len(path) > self.dag.num_vertices:  # pragma: no cover - a Dag has no cycle
                break
        return path, None

    def shortest(self, source: int, target: int) -> list[int] | None:
        """Vertices of a shortest path from ``source`` to ``target`` (both included)."""
        parent = {source: source}
        queue = deque([source])
        while queue:
            v = queue.popleft()
            if v == target:
                path = [v]
                while path[-1] != source:
                    path.append(parent[path[-1]])
                return path[::-1]
            for w in sorted(self.succ[v]):
                if w not in parent:
                    parent[w] = v
                    queue.append(w)
        return None

    def reaches_inside(self, source: int, target: int, inside: set[int]) -> bool:
        """Whether a path runs from ``source`` to ``target`` with every inner vertex in ``inside``."""
        seen = {source}
        queue = deque([source])
        while queue:
            v = queue.popleft()
            for w in self.succ[v]:
                if w == target:
                    return True
                if w in inside and w not in seen:
                    seen.add(w)
                    queue.append(w)
        return False


def graph_pass(dag: Dag) -> Pass:
    """The pass a graph computes, by its inputs: backward when it has the input dO[0,0].

    Raises
    ------
    PebbleParameterError
        The graph has no input named ``Q[0,0]`` (it is not an attention graph).
    """
    return _pass(_Graph(dag))


def _pass(g: _Graph) -> Pass:
    if g.n == 0:
        raise PebbleParameterError("dag has no vertex named Q[0,0]: not an attention graph")
    return Pass.BACKWARD if g.backward else Pass.FORWARD


def _memo(check: Callable[[_Graph], tuple]) -> Callable[[_Graph], tuple]:
    """Compute ``check`` once per graph (its structures are read, never changed)."""

    def once(g: _Graph) -> tuple:
        if check.__name__ not in g.memo:
            g.memo[check.__name__] = check(g)
        return g.memo[check.__name__]

    once.__name__ = check.__name__
    return once


def _missing(prop: str, name: str, idx: tuple[int, ...]) -> Violation:
    return Violation(prop, f"no vertex named {name}[{','.join(map(str, idx))}]")


def _io_ends(g: _Graph) -> list[Violation]:
    prop, out = "io-ends", []
    ins = ("Q", "K", "V", "O", "dO") if g.backward else ("Q", "K", "V")
    outs = ("dQ", "dK", "dV") if g.backward else ("O",)
    for name in ins + outs:
        keyed = name in ("K", "V", "dK", "dV")
        for a in range(g.keys if keyed else g.rows):
            if a not in (g.used_keys if keyed else g.used_rows):
                continue  # no allowed pair: no product's operand, no output (compulsory.md)
            for b in range(g.d):
                v = g.get(name, a, b)
                if v is None:
                    out.append(_missing(prop, name, (a, b)))
                elif name in ins and (g.pred[v] or not g.succ[v]):
                    out.append(
                        Violation(prop, f"input {g.show(v)} is not a source with a successor")
                    )
                elif name in outs and (g.succ[v] or not g.pred[v]):
                    out.append(Violation(prop, f"output {g.show(v)} is not a computed sink"))
    if g.backward:
        for a in sorted(g.used_rows):
            v = g.get("L", a)
            if v is None or g.pred[v] or not g.succ[v]:
                out.append(
                    Violation(prop, f"input L[{a}] is missing or not a source with a successor")
                )
    return out


def _trees(
    g: _Graph, prop: str, product: str, left: str, right: str, root: str
) -> tuple[dict[tuple[int, int], set[int]], list[Violation]]:
    """Trees of ``product[i,j,x]`` (predecessors left[i,x], right[j,x]) rooted at root[i,j]."""
    trees: dict[tuple[int, int], set[int]] = {}
    out: list[Violation] = []
    owner: dict[int, tuple[int, int]] = {}
    for i, j in g.pairs:
        top = g.get(root, i, j)
        if top is None:
            out.append(_missing(prop, root, (i, j)))
            continue
        tree: set[int] = set()
        for x in range(g.d):
            p = g.get(product, i, j, x)
            a, b = g.get(left, i, x), g.get(right, j, x)
            if p is None or a is None or b is None:
                out.append(_missing(prop, product, (i, j, x)))
                continue
            if g.pred[p] != {a, b} or g.pred[a] or g.pred[b]:
                out.append(
                    Violation(
                        prop,
                        f"{g.show(p)} has predecessors "
                        f"{sorted(g.show(u) for u in g.pred[p])}, not the inputs "
                        f"{g.show(a)} and {g.show(b)}",
                    )
                )
            path, fail = g.walk(p, top)
            if fail:
                out.append(Violation(prop, fail))
            tree.update(path)
        for v in tree:
            other = owner.setdefault(v, (i, j))
            if other != (i, j):
                out.append(
                    Violation(prop, f"{g.show(v)} lies in the trees of pairs {other} and {(i, j)}")
                )
        trees[i, j] = tree
    return trees, out


@_memo
def _score_trees(g: _Graph) -> tuple[dict[tuple[int, int], set[int]], list[Violation]]:
    return _trees(g, "score-trees", "QK", "Q", "K", "S")


@_memo
def _dp_trees(g: _Graph) -> tuple[dict[tuple[int, int], set[int]], list[Violation]]:
    return _trees(g, "dp-trees", "dOV", "dO", "V", "dP")


@_memo
def _row_sets(g: _Graph) -> tuple[dict[int, set[int]], list[Violation]]:
    prop, out, rows = "row-sets", [], {}
    for i in sorted(g.used_rows):
        top = g.get("D", i)
        if top is None:
            out.append(_missing(prop, "D", (i,)))
            continue
        rows[i] = set()
        for k in range(g.d):
            p, a, b = g.get("dOO", i, k), g.get("dO", i, k), g.get("O", i, k)
            if p is None or g.pred[p] != {a, b}:
                out.append(
                    Violation(prop, f"dOO[{i},{k}] is missing or its predecessors are not dO, O")
                )
                continue
            path, fail = g.walk(p, top)
            if fail:
                out.append(Violation(prop, fail))
            rows[i].update(path)
    seen: dict[int, int] = {}
    for i, row in rows.items():
        for v in row:
            if seen.setdefault(v, i) != i:
                out.append(
                    Violation(prop, f"{g.show(v)} lies in the row sets of rows {seen[v]} and {i}")
                )
    return rows, out


def _families(g: _Graph) -> list[tuple[str, int, int, int, int, tuple[str, int, int]]]:
    """Second-stage products: (family, i, j, x, vertex, output) for every index."""
    out = []
    if not g.backward:
        for i, j in g.pairs:
            for k in range(g.d):
                v = g.get("PV", i, j, k)
                v = g.get("AV", i, j, k) if v is None else v
                out.append(("PV", i, j, k, -1 if v is None else v, ("O", i, k)))
        return out
    for i, j in g.pairs:
        for x in range(g.d):
            for fam, root in (
                ("dSK", ("dQ", i, x)),
                ("dSQ", ("dK", j, x)),
                ("PdO", ("dV", j, x)),
            ):
                v = g.get(fam, i, j, x)
                out.append((fam, i, j, x, -1 if v is None else v, root))
    return out


def _operand(g: _Graph, fam: str, i: int, j: int, x: int) -> int | None:
    """The input operand of a second-stage product: V_jk, K_jl, Q_il or dO_ik."""
    name, row = {"PV": ("V", j), "dSK": ("K", j), "dSQ": ("Q", i), "PdO": ("dO", i)}[fam]
    return g.get(name, row, x)


@_memo
def _pair_chains(
    g: _Graph,
) -> tuple[dict[tuple[int, int], set[int]], list[Violation]]:
    prop = "pair-chains"
    trees, out = _score_trees(g)
    out = [Violation(prop, f"(score tree) {v.where}") for v in out]
    if g.backward:
        dp, bad = _dp_trees(g)
        out += [Violation(prop, f"(dP tree) {v.where}") for v in bad]
        rows, bad = _row_sets(g)
        out += [Violation(prop, f"(row set) {v.where}") for v in bad]
    families = _families(g)
    products = {v for *_, v, _root in families if v >= 0}
    chains: dict[tuple[int, int], set[int]] = {}
    for fam, i, j, x, u, _root in families:
        if u < 0:
            out.append(_missing(prop, fam, (i, j, x)))
            continue
        y = _operand(g, fam, i, j, x)
        others = g.pred[u] - {y}
        if y not in g.pred[u] or len(g.pred[u]) != 2:
            out.append(
                Violation(
                    prop,
                    f"{g.show(u)} does not have exactly two predecessors, one the input operand",
                )
            )
            continue
        (z,) = others
        chain = chains.setdefault((i, j), set(trees.get((i, j), ())))
        if g.backward:
            chain.update(dp.get((i, j), ()))
        roots = [g.get("S", i, j)] + ([g.get("dP", i, j)] if g.backward and fam != "PdO" else [])
        for r in roots:
            path = None if r is None else g.shortest(r, z)
            if path is None:
                out.append(
                    Violation(prop, f"no path from the root of pair {(i, j)} to {g.show(z)}")
                )
            else:
                chain.update(path)
    owner: dict[int, tuple[int, int]] = {}
    for pair, chain in chains.items():
        for v in chain:
            if not g.pred[v]:
                out.append(Violation(prop, f"the chain of pair {pair} holds the input {g.show(v)}"))
            if v in products:
                out.append(
                    Violation(prop, f"the chain of pair {pair} holds the product {g.show(v)}")
                )
            if owner.setdefault(v, pair) != pair:
                out.append(
                    Violation(
                        prop, f"{g.show(v)} lies in the chains of pairs {owner[v]} and {pair}"
                    )
                )
            if g.backward:
                for r, row in rows.items():
                    if v in row:
                        out.append(
                            Violation(prop, f"{g.show(v)} lies in chain {pair} and row set {r}")
                        )
    if g.backward:
        for r, row in rows.items():
            for v in row & products:
                out.append(Violation(prop, f"the row set {r} holds the product {g.show(v)}"))
    for fam, i, j, x, u, _root in families:
        if u < 0 or (i, j) not in chains:
            continue
        chain = chains[i, j]
        need = [g.get("Q", i, l) for l in range(g.d)] + [g.get("K", j, l) for l in range(g.d)]
        if fam in ("PV",):
            need.append(_operand(g, fam, i, j, x))
        elif fam in ("dSK", "dSQ"):
            need += [g.get("dO", i, k) for k in range(g.d)] + [g.get("V", j, k) for k in range(g.d)]
            need.append(g.get("L", i))
        elif fam == "PdO":
            need.append(g.get("dO", i, x))
        for v in need:
            if v is None:
                out.append(Violation(prop, f"an input of {g.show(u)} is missing"))
            elif v not in g.pred[u] and not g.reaches_inside(v, u, chain):
                out.append(
                    Violation(
                        prop,
                        f"no path from {g.show(v)} to {g.show(u)} inside the chain of {(i, j)}",
                    )
                )
        if fam in ("dSK", "dSQ"):
            inside = chain | rows.get(i, set())
            for k in range(g.d):
                v = g.get("O", i, k)
                if v is None or not g.reaches_inside(v, u, inside):
                    out.append(
                        Violation(
                            prop,
                            f"no path from O[{i},{k}] to {g.show(u)} inside chain {(i, j)} and row set {i}",
                        )
                    )
    return chains, out


def _accumulator_trees(g: _Graph) -> list[Violation]:
    prop = "accumulator-trees"
    chains, bad = _pair_chains(g)
    out = [Violation(prop, f"(pair chains) {v.where}") for v in bad]
    fenced = set().union(*chains.values()) if chains else set()
    if g.backward:
        rows, _ = _row_sets(g)
        fenced |= set().union(*rows.values()) if rows else set()
    trees: dict[tuple[str, int, int], set[int]] = {}
    for fam, i, j, x, u, root in _families(g):
        top = g.get(*root)
        if u < 0 or top is None:
            out.append(Violation(prop, f"{fam}[{i},{j},{x}] or its output {root} is missing"))
            continue
        path, fail = g.walk(u, top)
        if fail:
            out.append(Violation(prop, fail))
        if g.succ[top]:
            out.append(Violation(prop, f"the output {g.show(top)} is not a sink"))
        trees.setdefault(root, set()).update(path)
    owner: dict[int, tuple[str, int, int]] = {}
    for root, tree in trees.items():
        for v in tree:
            if owner.setdefault(v, root) != root:
                out.append(
                    Violation(prop, f"{g.show(v)} lies in the trees of {owner[v]} and {root}")
                )
            if v in fenced:
                out.append(
                    Violation(
                        prop, f"{g.show(v)} of the tree of {root} lies in a pair chain or row set"
                    )
                )
            if not g.pred[v]:
                out.append(Violation(prop, f"the tree of {root} holds the input {g.show(v)}"))
    return out


def _square(g: _Graph) -> list[Violation]:
    if g.heads == (1, 1) and g.n_q == g.n_kv:
        return []
    return [
        Violation(
            "square",
            f"the graph has {g.heads[0]} query heads of {g.n_q} rows and {g.heads[1]} "
            f"key/value heads of {g.n_kv} rows, not one head of n x n",
        )
    ]


def _causal(g: _Graph) -> list[Violation]:
    """The pairs read are the causal mask's: one n x n head, (i, j) for every j <= i."""
    if g.heads != (1, 1) or g.n_q != g.n_kv:
        return [
            Violation(
                "causal",
                f"the graph has {g.heads[0]} query heads of {g.n_q} rows and {g.heads[1]} "
                f"key/value heads of {g.n_kv} rows, not one head of n x n",
            )
        ]
    read = set(g.pairs)
    out = [
        Violation("causal", f"pair {(i, j)} is read but key {j} > query {i}")
        for i, j in g.pairs
        if j > i
    ]
    out += [
        Violation("causal", f"pair {(i, j)} of the causal mask (key {j} <= query {i}) is not read")
        for i in range(g.rows)
        for j in range(i + 1)
        if (i, j) not in read
    ]
    return out


def _allowed_pairs(g: _Graph) -> list[Violation]:
    """No vertex of a pair that is not read (a masked-out pair, or across head groups)."""
    read, shown = set(g.pairs), set()
    out = []
    for (name, idx), v in sorted(g.named.items(), key=lambda item: item[1]):
        if _ROLES.get(name, ("", 0))[0] == "pair" and idx[:2] not in read and v not in shown:
            shown.add(v)
            out.append(
                Violation(
                    "allowed-pairs", f"{g.show(v)} is a vertex of the pair {idx[:2]}, masked out"
                )
            )
    return out


_CHECKS: dict[str, Callable[[_Graph], list[Violation]]] = {
    "square": _square,
    "causal": _causal,
    "allowed-pairs": _allowed_pairs,
    "io-ends": _io_ends,
    "score-trees": lambda g: _score_trees(g)[1],
    "dp-trees": lambda g: _dp_trees(g)[1],
    "pair-chains": lambda g: _pair_chains(g)[1],
    "row-sets": lambda g: _row_sets(g)[1],
    "accumulator-trees": _accumulator_trees,
}

PROPERTIES = tuple(_CHECKS)
"""The graph properties the lemmas use, in the order of the module docstring."""

_BACKWARD_ONLY = ("dp-trees", "row-sets")


def violations(
    dag: Dag, prop: str, *, heads: tuple[int, int] | None = None, mask: object = None
) -> list[Violation]:
    """Every place where ``dag`` fails the property ``prop`` (empty: it has the property).

    Parameters
    ----------
    dag : Dag
        An attention graph: one head (labels ``Q[i,l]``), or the heads of
        :mod:`attnio.pebble.shapes` (labels ``Q[h,i,l]``, ``K[k,j,l]``).
    prop : str
        One of :data:`PROPERTIES`.
    heads : (int, int), optional
        (h_q, h_kv) of a graph whose heads are stacked head-major under one-head labels
        (``masked_streaming_forward`` of the heads' block diagonal): its pairs are then the
        block diagonal, not every row with every key. A graph with head-indexed labels
        must have these heads.
    mask : array_like, optional
        A boolean (or 0/1) rows x keys matrix over the stacked rows and keys: only its
        allowed pairs (of the heads' block diagonal) are read, every pair-indexed property
        taken over them (a score tree and pair chain per allowed pair, the accumulator
        trees over each row's allowed keys and each key's allowed rows), and ``io-ends``
        and ``row-sets`` over the rows and keys with an allowed pair. ``None``: every pair.

    Raises
    ------
    PebbleParameterError
        ``prop`` is not one of :data:`PROPERTIES`, or names a backward property for a
        forward graph, or ``dag`` is not an attention graph, or ``heads`` or ``mask`` does
        not fit it.

    Examples
    --------
    >>> from attnio.pebble.builders import online_forward
    >>> violations(online_forward(2, 1, block=1), "accumulator-trees")
    []
    """
    if prop not in _CHECKS:
        raise PebbleParameterError(f"prop={prop!r} must be one of {PROPERTIES}")
    return _violations(_Graph(dag, heads, mask), prop)


def _violations(g: _Graph, prop: str) -> list[Violation]:
    if prop in _BACKWARD_ONLY and _pass(g) is Pass.FORWARD:
        raise PebbleParameterError(f"prop={prop!r} is a property of backward graphs")
    _pass(g)
    return _CHECKS[prop](g)


_DENSE: dict[tuple[str, Pass], tuple[str, ...]] = {
    ("compulsory", Pass.FORWARD): ("io-ends",),
    ("compulsory", Pass.BACKWARD): ("io-ends",),
    ("lower-large", Pass.FORWARD): ("score-trees",),
    ("lower-large", Pass.BACKWARD): ("score-trees",),
    ("lower-small", Pass.FORWARD): ("score-trees",),
    ("lower-small", Pass.BACKWARD): ("score-trees",),
    ("lower-sharp", Pass.FORWARD): ("pair-chains", "accumulator-trees"),
    ("lower-sharp", Pass.BACKWARD): ("pair-chains", "row-sets", "accumulator-trees"),
    ("lower-twostage", Pass.FORWARD): ("score-trees", "pair-chains", "accumulator-trees"),
    ("lower-twostage", Pass.BACKWARD): ("score-trees", "pair-chains", "accumulator-trees"),
    ("lower-families", Pass.FORWARD): ("score-trees", "pair-chains", "accumulator-trees"),
    ("lower-families", Pass.BACKWARD): (
        "score-trees",
        "dp-trees",
        "pair-chains",
        "row-sets",
        "accumulator-trees",
    ),
    ("lower-segments", Pass.FORWARD): ("score-trees", "pair-chains", "accumulator-trees"),
    ("lower-segments", Pass.BACKWARD): (
        "score-trees",
        "dp-trees",
        "pair-chains",
        "row-sets",
        "accumulator-trees",
    ),
    ("lower-accumulators", Pass.FORWARD): ("pair-chains", "accumulator-trees"),
    ("lower-accumulators", Pass.BACKWARD): ("pair-chains", "row-sets", "accumulator-trees"),
}

MASKED_CLASSES: dict[Pass, tuple[str, ...]] = {
    Pass.FORWARD: ("allowed-pairs", "score-trees", "pair-chains", "accumulator-trees"),
    Pass.BACKWARD: (
        "allowed-pairs",
        "score-trees",
        "dp-trees",
        "pair-chains",
        "row-sets",
        "accumulator-trees",
    ),
}
"""The class ``causal-lower.md`` states for a mask's graphs, any mask: the properties of
``lower-segments``' class (which hold ``lower-sharp``'s) read over the allowed pairs
(``mask=`` of :func:`violations`), and no vertex of a masked-out pair. Its steps hold for
every mask with Z allowed pairs; its records are the causal mask's, so ``CLASSES`` names
it for ``causal-lower`` with the causal mask required (``causal``)."""

CLASSES: dict[tuple[str, Pass], tuple[str, ...]] = {
    **{key: ("square", *props) for key, props in _DENSE.items()},
    ("shape-compulsory", Pass.FORWARD): ("io-ends",),
    ("shape-compulsory", Pass.BACKWARD): ("io-ends",),
    ("shape-lower", Pass.FORWARD): ("pair-chains", "accumulator-trees"),
    ("shape-lower", Pass.BACKWARD): ("pair-chains", "row-sets", "accumulator-trees"),
    ("causal-lower", Pass.FORWARD): ("square", "causal", *MASKED_CLASSES[Pass.FORWARD]),
    ("causal-lower", Pass.BACKWARD): ("square", "causal", *MASKED_CLASSES[Pass.BACKWARD]),
}
"""The class of each derivation (file stem of ``proofs/derivations``) and pass: the
properties its hand-proved lemmas use. The dense derivations count the n^2 pairs of one
head (``square``); ``shape-compulsory`` and ``shape-lower`` hold for h_q query heads of
n_q rows over h_kv key/value heads of n_kv rows, the pairs of each query head with the
keys of its group (``shape-lower``: ``lower-sharp``'s properties, per head);
``causal-lower`` holds for the causal mask's graphs read over its allowed pairs
(:data:`MASKED_CLASSES` with ``causal``; give the mask to :func:`in_class`).
``lower-small`` names the class of its derived Loomis-Whitney records; its ``explicit``
records are reconstructed and have no stated class. Properties are checked by
:func:`violations`."""


def in_class(
    dag: Dag, derivation: str, *, heads: tuple[int, int] | None = None, mask: object = None
) -> list[Violation]:
    """Every violation of the class of ``derivation`` by ``dag`` (empty: in the class).

    ``heads`` and ``mask`` are as for :func:`violations` (a graph with its heads stacked
    under one-head labels; the allowed pairs the properties are read over). The class of
    ``causal-lower`` is read over the mask given: a causal graph checked without its
    mask fails it (every pair above the diagonal has no score tree).

    Raises
    ------
    PebbleParameterError
        No class is stated for ``derivation`` and the graph's pass, or ``heads`` or
        ``mask`` does not fit the graph.

    Examples
    --------
    >>> from attnio.pebble.builders import causal_mask, masked_streaming_forward
    >>> in_class(masked_streaming_forward(causal_mask(3), 1), "causal-lower", mask=causal_mask(3))
    []
    """
    g = _Graph(dag, heads, mask)
    key = (derivation, _pass(g))
    if key not in CLASSES:
        known = sorted({name for name, _ in CLASSES})
        raise PebbleParameterError(f"derivation={derivation!r} has no class; known: {known}")
    out: list[Violation] = []
    for prop in CLASSES[key]:
        out += _violations(g, prop)
    return out


@dataclass(frozen=True)
class Structures:
    """The vertex sets of a graph in the classes, as the properties find them.

    Attributes
    ----------
    n, d : int
        The graph's sizes (read from the inputs Q).
    backward : bool
        Whether it is a backward graph.
    inputs : dict
        (name, index) -> input vertex.
    products : list
        Second-stage products: (family, i, j, x, vertex, input operand, output key).
    chains : dict
        Pair (i, j) -> its pair chain C_ij (``pair-chains``).
    rows : dict
        Row i -> its row set R_i (backward; empty forward).
    trees : dict
        ``"QK"`` (and backward ``"dOV"``) -> pair -> its score (dP) tree.
    stages : dict
        ``"QK"`` (and backward ``"dOV"``) -> (i, j, x, product, left, right) per index.
    accumulators : dict
        Output key -> its accumulator tree.
    """

    n: int
    d: int
    backward: bool
    inputs: dict[tuple[str, tuple[int, ...]], int]
    products: list[tuple[str, int, int, int, int, int, tuple[str, int, int]]]
    chains: dict[tuple[int, int], set[int]]
    rows: dict[int, set[int]]
    trees: dict[str, dict[tuple[int, int], set[int]]]
    stages: dict[str, list[tuple[int, int, int, int, int, int]]]
    accumulators: dict[tuple[str, int, int], set[int]]


def structures(dag: Dag, *, mask: object = None) -> Structures:
    """The structures of a graph of every class of its pass (``lower-families``' class).

    With ``mask`` (a rows x keys boolean matrix), the structures of a masked graph read
    over its allowed pairs: the graph must have :data:`MASKED_CLASSES` of its pass over
    that mask (``mask-lower.md``'s class), and the pairs are the allowed ones.

    Raises
    ------
    PebbleParameterError
        ``dag`` is not in the class of ``lower-families`` (or, with ``mask``, of
        :data:`MASKED_CLASSES` over it; its first violation is named).
    """
    if mask is None:
        bad = in_class(dag, "lower-families")
    else:
        read = _Graph(dag, None, mask)
        bad = [v for prop in MASKED_CLASSES[_pass(read)] for v in _violations(read, prop)]
    if bad:
        raise PebbleParameterError(f"dag is not in the lemmas' class: {bad[0]}")
    g = _Graph(dag, None, mask)
    chains, _ = _pair_chains(g)
    rows = _row_sets(g)[0] if g.backward else {}
    products, acc = [], {}
    for fam, i, j, x, u, root in _families(g):
        y = _operand(g, fam, i, j, x)
        assert y is not None and u >= 0
        products.append((fam, i, j, x, u, y, root))
        top = g.get(*root)
        assert top is not None
        acc.setdefault(root, set()).update(g.walk(u, top)[0])
    names = {"QK": ("Q", "K")} | ({"dOV": ("dO", "V")} if g.backward else {})
    stages = {
        stage: [
            (i, j, x, g.get(stage, i, j, x), g.get(left, i, x), g.get(right, j, x))
            for i, j in g.pairs
            for x in range(g.d)
        ]
        for stage, (left, right) in names.items()
    }
    trees = {"QK": _score_trees(g)[0]} | ({"dOV": _dp_trees(g)[0]} if g.backward else {})
    inputs = {key: v for key, v in g.named.items() if not g.pred[v]}
    return Structures(
        g.n,
        g.d,
        g.backward,
        inputs,
        products,
        chains,
        rows,
        trees,
        stages,
        acc,  # type: ignore[arg-type]
    )


@dataclass(frozen=True)
class Coverage:
    """Which graph a schedule computes and which derivations' classes hold it.

    Attributes
    ----------
    kind : str or None
        The builder kind of the graph the schedule computes (``None``: no kind of
        :data:`~attnio.pebble.builders.BUILDERS`; ``options`` names the builder if any).
    options : str
        The builder options that make it the schedule's graph.
    covered : tuple of str
        Derivations whose class holds the graph (checked by the tests at small sizes,
        and by the hand argument of each derivation's "Graph class" section for all).
    evidence : str
        How the schedule is known to compute that graph; it names the red pebbles of the
        replayed pebbling as :func:`~attnio.bounds.pebblings.red_pebbles` words
        ``extra_red``.
    extra_red : int or None
        c: the red pebbles beyond M the schedule's pebbling needs (the most
        ``tests/test_trace.py`` measured, attained), read from
        :data:`attnio.bounds.pebblings.EXTRA_RED`; None where no pebbling is exported.
        Lower bounds compared with its count are read at M + c.
    """

    kind: str | None
    options: str
    covered: tuple[str, ...]
    evidence: str
    extra_red: int | None = None


_ALL = tuple(dict.fromkeys(name for name, _ in CLASSES if name != "causal-lower"))

_RED = "{red}"
"""Where an evidence names its pebbling's red pebbles: filled by :func:`_with_red_pebbles`."""


def _with_red_pebbles(
    entries: dict[tuple[str, Pass], Coverage],
) -> dict[tuple[str, Pass], Coverage]:
    """Each entry with its ``extra_red`` from :data:`~attnio.bounds.pebblings.EXTRA_RED` and
    its evidence's :data:`_RED` in words (``M + 4 red pebbles``): c is typed once."""
    filled = {}
    for (name, pass_), entry in entries.items():
        extra = extra_red(name, pass_.value)
        if (extra is None) == (_RED in entry.evidence):
            raise PebbleParameterError(
                f"COVERAGE[{name!r}, {pass_.value!r}]: extra_red={extra!r} but its evidence "
                f"{'names' if extra is None else 'does not name'} its red pebbles"
            )
        evidence = (
            entry.evidence if extra is None else entry.evidence.replace(_RED, red_pebbles(extra))
        )
        filled[name, pass_] = replace(entry, evidence=evidence, extra_red=extra)
    return filled


_REPLAYED = "tests/test_trace.py replays its run as a pebbling of this graph"

_REPLAYED_MASKED = (
    "tests/test_trace.py replays its run (n <= 5, d <= 2, M = 1 mod 4 up to 60) as a "
    "pebbling of this graph at exactly the machine's count"
)

_MASKED_FORWARD = (
    "builders.masked_streaming_forward of the mask (the recurrence over each row's keys)"
)

_MASKED_BACKWARD = "builders.masked_backward of the mask (sparse-backward's graph); chain trees"

_CAUSAL = ("compulsory", "causal-lower")

_CAUSAL_CLASS = (
    "the graph, read over the causal mask's pairs (mask=), is in the classes of "
    "causal-lower.md (lower-segments' properties over the allowed pairs, no vertex of a "
    "masked-out pair, the causal mask) and compulsory.md: tests/test_classes.py checks it "
    "at every n <= 5, d <= 2 and both tree shapes"
)

_MASK_CLASS = (
    "the graph, read over its own mask's pairs (mask=), has every property of "
    "causal-lower.md's class but the causal mask, and io-ends (tests/test_classes.py: "
    "n <= 4, d <= 2, chain trees, {masks}); causal-lower.md's steps hold for any mask but "
    "its records are the causal mask's, so no recorded bound but the compulsory I/O "
    "(inputs read, outputs written) covers it and the tightness table divides by none"
)

_WINDOW_CLASS = (
    "the graph, read over its own mask's pairs (mask=), has every property of "
    "causal-lower.md's class but the causal mask, and io-ends (tests/test_classes.py: "
    "n <= 4, d <= 2, chain trees, every width): the properties the window's records "
    "(window-*-lower-large-sharp, M >= d^2, at its Z = w n - w (w - 1) / 2) use, so they "
    "and the compulsory I/O cover it; attnio table --tightness --mask window divides by "
    "the larger of them (the dense tightness table has no masks)"
)

_BLOCK_CLASS = _MASK_CLASS.format(masks="random block masks of every block shape")

_TILE_CLASS = _MASK_CLASS.format(masks="random tile masks of every tile side")

_SHAPES = ("shape-compulsory", "shape-lower")

_SHAPE_CLASS = (
    "the graph, read with its heads (h_q, h_kv) (pairs: each query head's rows with the "
    "keys of its group), is in the classes of shape-lower.md and shape-compulsory.md: "
    "tests/test_classes.py checks it at every shape with n_q, n_kv <= 3, heads 1:1, 2:1, "
    "3:1 and 4:2, d <= 2 and both tree shapes"
)

_SLIDING = (
    "tests/test_trace.py replays its run (the sample window and band masks, n <= 6, "
    "d <= 2, M = 3 mod 4 up to 90) as a pebbling of this graph (a row's scores reduced "
    "at once: maximum, sum, L_i, then the weights) at exactly the machine's count with "
    f"{_RED}; {_WINDOW_CLASS}"
)


_COVERAGE: dict[tuple[str, Pass], Coverage] = {
    ("row-streaming", Pass.FORWARD): Coverage(
        "streaming-forward",
        "",
        _ALL,
        f"{_REPLAYED} at the machine's count with {_RED}",
    ),
    ("flash2", Pass.FORWARD): Coverage(
        "online-forward",
        "block = B_c of FLASH2_FORWARD_BLOCKS",
        _ALL,
        f"{_REPLAYED} at the machine's count with {_RED}",
    ),
    ("row-streaming", Pass.BACKWARD): Coverage(
        "attention-backward",
        "chain trees",
        _ALL,
        f"{_REPLAYED} at the machine's count with {_RED}",
    ),
    ("two-sweep", Pass.BACKWARD): Coverage(
        "attention-backward",
        "chain trees; P_ij and dS_ij computed in both sweeps (a recomputation, same graph)",
        _ALL,
        f"{_REPLAYED} at the machine's count with {_RED}",
    ),
    ("flash2", Pass.BACKWARD): Coverage(
        "attention-backward",
        "chain trees",
        _ALL,
        f"{_REPLAYED} at the machine's count less its 2nd zero words of dQ, with {_RED}",
    ),
    ("flash", Pass.BACKWARD): Coverage(
        "attention-backward",
        "chain trees; D_i recomputed in every step (a recomputation, same graph)",
        _ALL,
        f"{_REPLAYED} at the machine's count less its 2nd zero words of dQ, with {_RED}",
    ),
    ("flash", Pass.FORWARD): Coverage(
        "blockwise-forward",
        "block = B_c of FLASH_FORWARD_BLOCKS",
        _ALL,
        f"{_REPLAYED} at the machine's count less its 2nd + 4n constant words (O = 0, "
        f"l = 0, m = -inf written and read back), with {_RED}",
    ),
    ("standard", Pass.FORWARD): Coverage(
        "twopass-forward",
        "block = the schedule's tile; chain trees; S and P stored and read back",
        _ALL,
        f"{_REPLAYED} at the machine's count with {_RED} (n >= 2; with n = 1 "
        "the graph's m_0 is S_00 and the machine moves that word twice)",
    ),
    ("score-panel", Pass.FORWARD): Coverage(
        "twopass-forward",
        "block = 1; chain trees; S, m and l stored and read back",
        _ALL,
        f"{_REPLAYED} at the machine's count with {_RED} (n >= 2; with n = 1 "
        "the graph's m_0 is S_00 and the machine moves that word twice)",
    ),
    ("square-tiling", Pass.FORWARD): Coverage(
        "sy24-forward",
        "chain trees; A and D stored and read back (stores of intermediates)",
        _ALL,
        f"{_REPLAYED} at the machine's count with {_RED} (n >= 2; with n = 1 "
        "the graph's l_0 is A_00 and the machine moves that word twice)",
    ),
    ("output-stationary", Pass.FORWARD): Coverage(
        "stationary-forward",
        "block = the schedule's tile; chain trees; A, Amax, L stored and read back",
        _ALL,
        f"{_REPLAYED} at the machine's count with {_RED}",
    ),
    ("standard", Pass.BACKWARD): Coverage(
        "attention-backward",
        "chain trees; S, P, dP, dS stored and read back (stores of intermediates)",
        _ALL,
        f"{_REPLAYED} at the machine's count with {_RED}",
    ),
    ("tiled-backward", Pass.BACKWARD): Coverage(
        "attention-backward",
        "chain trees; P and dS stored and read back (stores of intermediates)",
        _ALL,
        f"{_REPLAYED} at the machine's count with {_RED}",
    ),
    ("output-stationary", Pass.BACKWARD): Coverage(
        "attention-backward",
        "chain trees; P and dS stored and read back (stores of intermediates)",
        _ALL,
        f"{_REPLAYED} at the machine's count with {_RED}",
    ),
    ("causal-row-streaming", Pass.FORWARD): Coverage(
        "streaming-forward",
        _MASKED_FORWARD,
        _CAUSAL,
        f"{_REPLAYED_MASKED} with {_RED}; {_CAUSAL_CLASS}",
    ),
    ("causal-row-streaming", Pass.BACKWARD): Coverage(
        "attention-backward",
        _MASKED_BACKWARD,
        _CAUSAL,
        f"{_REPLAYED_MASKED} with {_RED}; {_CAUSAL_CLASS}",
    ),
    ("causal-flash2", Pass.FORWARD): Coverage(
        "online-forward",
        "block = B_c of FLASH2_FORWARD_BLOCKS; mask = the causal mask (builders.online_forward "
        "with mask: each row's key blocks up to its own key, its allowed keys only)",
        _CAUSAL,
        "tests/test_trace.py replays its run (n <= 6, d <= 2, every other M up to 80, both "
        f"tree shapes) as a pebbling of this graph at exactly the machine's count with {_RED}; "
        f"numeric runs match NumPy's causal attention "
        f"(tests/test_interval_masks.py); {_CAUSAL_CLASS} (every key "
        "block size 1..n+1)",
    ),
    ("causal-flash2", Pass.BACKWARD): Coverage(
        "attention-backward",
        _MASKED_BACKWARD,
        _CAUSAL,
        "tests/test_trace.py replays its run (n <= 5, d <= 2, every other M up to 60) as a "
        "pebbling of this graph at the machine's count less its 2nd zero words of dQ, with "
        f"{_RED}; {_CAUSAL_CLASS}",
    ),
    ("window-row-streaming", Pass.FORWARD): Coverage(
        "streaming-forward",
        _MASKED_FORWARD,
        (),
        f"{_REPLAYED_MASKED} with {_RED}; {_WINDOW_CLASS}",
    ),
    ("window-row-streaming", Pass.BACKWARD): Coverage(
        "attention-backward",
        _MASKED_BACKWARD,
        (),
        f"{_REPLAYED_MASKED} with {_RED}; {_WINDOW_CLASS}",
    ),
    ("gqa-row-streaming", Pass.FORWARD): Coverage(
        "streaming-forward",
        "builders.masked_streaming_forward of the heads' block diagonal, rows stacked head-major",
        _SHAPES,
        f"tests/test_trace.py replays its run (a few shapes, d <= 2, M = 1 mod 4 up to 60) "
        f"as a pebbling of this graph at exactly the machine's count with {_RED}; "
        f"{_SHAPE_CLASS}; with one head and n_q = n_kv it is row streaming's graph, in "
        "every dense class too",
    ),
    ("gqa-row-streaming", Pass.BACKWARD): Coverage(
        "attention-backward",
        "builders.masked_backward of the heads' block diagonal (shapes.gqa_backward with "
        "its heads stacked); chain trees",
        _SHAPES,
        f"tests/test_trace.py replays its run (a few shapes, d <= 2, M = 1 mod 4 up to 60) "
        f"as a pebbling of this graph at exactly the machine's count with {_RED}; "
        f"{_SHAPE_CLASS}; with one head and n_q = n_kv it is the dense "
        "backward graph, in every dense class too",
    ),
    ("window-sliding", Pass.FORWARD): Coverage(
        None,
        "builders.sliding_forward_graph of the mask (no kind of attnio pebble --dag); chain trees",
        (),
        _SLIDING,
    ),
    ("window-sliding", Pass.BACKWARD): Coverage(
        "attention-backward",
        _MASKED_BACKWARD,
        (),
        f"{_REPLAYED_MASKED} with {_RED}; {_WINDOW_CLASS}",
    ),
    ("band-sliding", Pass.FORWARD): Coverage(
        None,
        "builders.sliding_forward_graph of the mask (no kind of attnio pebble --dag); chain trees",
        (),
        _SLIDING,
    ),
    ("band-sliding", Pass.BACKWARD): Coverage(
        "attention-backward",
        _MASKED_BACKWARD,
        (),
        f"{_REPLAYED_MASKED} with {_RED}; {_WINDOW_CLASS}",
    ),
    ("split-kv-decode", Pass.FORWARD): Coverage(
        None,
        "builders.split_streaming_forward of the heads' block diagonal, chunks of kv_chunk "
        "keys (no kind of attnio pebble --dag)",
        _SHAPES,
        "tests/test_trace.py replays its run (a few shapes, d <= 2, every M up to 60) as a "
        "pebbling of this graph at the machine's count less the h_q n_q words of L it "
        f"stores twice when there is one chunk, with {_RED}; {_SHAPE_CLASS} (at "
        "every chunk size 1..n_kv)",
    ),
    ("split-kv-decode", Pass.BACKWARD): Coverage(
        "attention-backward",
        "builders.masked_backward of the heads' block diagonal with dq_starts = the first "
        "keys of its key blocks (dQ a tree over the blocks' partial sums); chain trees",
        _SHAPES,
        "tests/test_trace.py replays its run (a few shapes, d <= 2, every M up to 60) as a "
        f"pebbling of this graph at exactly the machine's count with {_RED}; "
        f"{_SHAPE_CLASS} (at every key block size 1..n_kv)",
    ),
    ("gqa-output-stationary", Pass.FORWARD): Coverage(
        "stationary-forward",
        "builders.grouped_stationary_forward: one group per key/value head, its query heads' "
        "rows stacked, key tiles of the schedule's side; chain trees; A, Amax, L stored and "
        "read back",
        _SHAPES,
        "tests/test_trace.py replays its run (a few shapes, d <= 3, every third M from 9 to "
        "60) "
        f"as a pebbling of this graph at exactly the machine's count with {_RED}; "
        f"{_SHAPE_CLASS} (at every tile side 1..n_kv)",
    ),
    ("gqa-output-stationary", Pass.BACKWARD): Coverage(
        "attention-backward",
        "builders.masked_backward of the heads' block diagonal (shapes.gqa_backward with its "
        "heads stacked); chain trees; P and dS stored and read back",
        _SHAPES,
        "tests/test_trace.py replays its run (a few shapes, d <= 3, every third M from 9 to "
        "60) "
        f"as a pebbling of this graph at exactly the machine's count with {_RED}; "
        f"{_SHAPE_CLASS}",
    ),
    ("gqa-flash2", Pass.FORWARD): Coverage(
        "online-forward",
        "builders.grouped_online_forward: one group per key/value head, its query heads' "
        "rows stacked, key blocks of B_c of FLASH2_FORWARD_BLOCKS counted within the group; "
        "chain trees",
        _SHAPES,
        "tests/test_trace.py replays its run (a few shapes, d <= 2, every third M up to 60, "
        f"and M = 8) as a pebbling of this graph at exactly the machine's count with {_RED}; "
        f"{_SHAPE_CLASS} (at every key block size 1..n_kv); with one head and n_q = n_kv "
        "it is FlashAttention-2's graph, in every dense class too",
    ),
    ("gqa-flash2", Pass.BACKWARD): Coverage(
        "attention-backward",
        "builders.masked_backward of the heads' block diagonal (shapes.gqa_backward with "
        "its heads stacked); chain trees",
        _SHAPES,
        "tests/test_trace.py replays its run (a few shapes, d <= 2, every third M up to 60, "
        "and 2:1 heads at d = 3, M = 87) as a pebbling of this graph at the machine's count "
        "less its 2 d h_q n_q zero words "
        f"of dQ, with {_RED}; {_SHAPE_CLASS}; with one head and n_q = n_kv it is the dense "
        "backward graph, in every dense class too",
    ),
    ("gqa-flash", Pass.FORWARD): Coverage(
        "blockwise-forward",
        "builders.grouped_blockwise_forward: one group per key/value head, its query heads' "
        "rows stacked, key blocks of B_c of FLASH_FORWARD_BLOCKS counted within the group; "
        "chain trees",
        _SHAPES,
        "tests/test_trace.py replays its run (a few shapes, d <= 2, every third M up to 60, "
        "and 2:1 heads at d = 3, M = 57) as a pebbling of this graph at the machine's count "
        "less its (2d + 4) h_q n_q constant words (O = 0, l = 0, m = -inf written and read "
        f"back), with {_RED}; {_SHAPE_CLASS} (at every key block size 1..n_kv); with one "
        "head and n_q = n_kv it is FlashAttention's graph, in every dense class too",
    ),
    ("gqa-flash", Pass.BACKWARD): Coverage(
        "attention-backward",
        "builders.masked_backward of the heads' block diagonal (shapes.gqa_backward with "
        "its heads stacked); chain trees; D_i recomputed in every step",
        _SHAPES,
        "tests/test_trace.py replays its run (a few shapes, d <= 2, every third M up to 60) "
        "as a pebbling of this graph at the machine's count less its 2 d h_q n_q zero words "
        f"of dQ, with {_RED}; {_SHAPE_CLASS}; with one head and n_q = n_kv it is the dense "
        "backward graph, in every dense class too",
    ),
    ("gqa-two-sweep", Pass.BACKWARD): Coverage(
        "attention-backward",
        "builders.masked_backward of the heads' block diagonal (shapes.gqa_backward with "
        "its heads stacked); chain trees; P_ij and dS_ij computed in both sweeps (a "
        "recomputation, same graph)",
        _SHAPES,
        "tests/test_trace.py replays its run (a few shapes, d <= 2, every third M up to 60, "
        "and 2:1 heads at d = 2, M = 22) as a pebbling of this graph at exactly the "
        f"machine's count with {_RED} (a recomputed score's chain is computed deepest "
        "operand first, so c does not grow with d); "
        f"{_SHAPE_CLASS}; with one head and n_q = n_kv it is the dense backward graph, in "
        "every dense class too",
    ),
    ("gqa-score-panel", Pass.FORWARD): Coverage(
        "twopass-forward",
        "builders.grouped_twopass_forward: one group per key/value head, its query heads' "
        "rows stacked, key tiles of one key counted within the group; chain trees; S, m and "
        "l stored and read back",
        _SHAPES,
        "tests/test_trace.py replays its run (a few shapes with n_kv >= 2, d <= 2, every "
        f"third M up to 60) as a pebbling of this graph at exactly the machine's count with "
        f"{_RED} (with n_kv = 1 the graph's m_i is S_i0 and the machine moves that word "
        f"twice); {_SHAPE_CLASS}; with one head and n_q = n_kv it is the score-panel "
        "forward's graph, in every dense class too",
    ),
    ("block-sparse-flash", Pass.FORWARD): Coverage(
        "blockwise-forward",
        "block = B_c of FLASH_FORWARD_BLOCKS; mask = the pairs its blocks allow "
        "(flash.element_mask): each row's visited key blocks only",
        (),
        "tests/test_trace.py replays its run (n <= 5, d <= 2, every M up to 60, random "
        "block masks) as a pebbling of this graph at the machine's count less its 2nd + 4n "
        f"constant words, with {_RED}; {_BLOCK_CLASS}",
    ),
    ("block-sparse-flash", Pass.BACKWARD): Coverage(
        "attention-backward",
        "builders.masked_backward of the pairs its blocks allow (flash.element_mask); "
        "chain trees; D_i recomputed in every step",
        (),
        "tests/test_trace.py replays its run (n <= 5, d <= 2, every M up to 60, random "
        "block masks) as a pebbling of this graph at the machine's count less its 2nd zero "
        f"words of dQ and the zero dK, dV rows of unattended keys, with {_RED}; "
        f"{_BLOCK_CLASS}",
    ),
    ("sparse-square-tiling", Pass.FORWARD): Coverage(
        "sy24-forward",
        "chain trees; mask = the pairs its tiles allow (flash.element_mask); A and D "
        "stored and read back",
        (),
        "tests/test_trace.py replays its run (n <= 5, d <= 2, every M up to 60, random "
        "tile masks) as a pebbling of this graph at the machine's count less only words of "
        f"rows with one allowed key (l_i = A_ij moved as both), with {_RED}; "
        f"{_TILE_CLASS}",
    ),
    ("sparse-square-tiling", Pass.BACKWARD): Coverage(
        "attention-backward",
        "builders.masked_backward of the pairs its tiles allow; chain trees; P and dS "
        "stored and read back",
        (),
        "tests/test_trace.py replays its run (n <= 5, d <= 2, every M up to 60, random "
        "tile masks) as a pebbling of this graph at the machine's count less the zero dK, "
        f"dV rows of unattended keys, with {_RED}; {_TILE_CLASS}",
    ),
    ("low-rank", Pass.FORWARD): Coverage(
        "approx-forward",
        "chain trees; [W | w] stored and read back when it does not stay resident",
        (),
        "tests/test_trace.py replays its run (n <= 4, d <= 2, degree <= 2, every M up to "
        "60) as a pebbling of this graph at the machine's count less the constant words of "
        f"the constant feature's row, with {_RED}; it computes another function "
        "than attention, so no derivation's class (all of exact attention) covers it and "
        "only the compulsory I/O bounds it",
    ),
    ("low-rank", Pass.BACKWARD): Coverage(
        "approx-backward-product",
        "chain trees; [W | w] and [dW | dw] stored and read back when they do not stay resident",
        (),
        "tests/test_trace.py replays its run (n <= 3, d <= 2, degree <= 3, M = 3 mod 8 up "
        "to 120) as a pebbling of this graph (dQ and dK pulled back by the product rule, "
        "as approximate.monomial_vjp) at the machine's count less the words holding no "
        f"vertex (the zeros [dW | dw] starts from, the constant feature's w and dw), with {_RED}; "
        "it computes another function than attention, so no derivation's "
        "class covers it (polynomial-backward-lower-dw is derived for approx-backward; "
        "that its lemmas hold on this graph, which wires dW alike, is not checked)",
    ),
    ("low-rank-columns", Pass.FORWARD): Coverage(
        "approx-forward",
        "chain trees; W never stored, each feature and den[i] recomputed per column block",
        (),
        "tests/test_trace.py replays its run (n <= 3, d <= 3, degree <= 2, odd M up to 80) "
        f"as a pebbling of this graph at exactly the machine's count, with {_RED}; "
        "it computes another function than attention, so no derivation's class "
        "(all of exact attention) covers it; polynomial-forward-lower bounds this graph",
    ),
    ("low-rank-columns", Pass.BACKWARD): Coverage(
        None,
        "builders.approx_backward_columns with block = c of LOW_RANK_COLUMN_BACKWARD_BLOCKS "
        "(each column block's share of dphi and dpsi pulled back by the product rule apart, "
        "dQ and dK chains over the shares; approx-backward-product when c >= d; no kind of "
        "attnio pebble --dag); chain trees; W never stored, the partial dQ, dK and D stored "
        "and read back between blocks",
        (),
        "tests/test_trace.py replays its run (n <= 3, d <= 3, degree <= 3, M = 0 mod 3 up "
        "to one block of all d columns) as a pebbling of this graph at exactly the machine's "
        f"count, with {_RED}; it computes another function than attention, so no "
        "derivation's class covers it (polynomial-backward-lower-dw is derived for "
        "approx-backward; that its lemmas hold on this graph, which wires dW alike, is not "
        "checked); only the compulsory I/O is known to bound it",
    ),
}
"""The entries of :data:`COVERAGE`, their red pebbles written :data:`_RED`."""

COVERAGE: dict[tuple[str, Pass], Coverage] = _with_red_pebbles(_COVERAGE)
"""(schedule, pass) -> the graph it computes and the derivations whose class holds it.

Only pairs with ``covered`` non-empty compare a schedule's count with those bounds on
one computation; for the others no bound of ``proofs/derivations`` is known to cover
the schedule. ``tests/test_classes.py`` checks every named graph in every class (n <= 3,
d <= 2, both tree shapes, every key block size; the shape schedules' graphs with their
heads at n_q, n_kv <= 3; the causal schedules' graphs read over the causal mask at
n <= 5, d <= 2, and the other masked schedules' graphs over their masks at n <= 4, in
every property of the masked class but the causal mask) and ``tests/test_trace.py``
replays each schedule's run as a pebbling of it with M + ``extra_red`` red pebbles (c,
typed once in :data:`attnio.bounds.pebblings.EXTRA_RED`; the evidence's wording is made
from it). A schedule whose pebbling needs M + c red pebbles is compared with a bound at
M + c (``docs/notation.md``, schedules as pebblings; ``attnio gap``, the tightness
table's ratios)."""
