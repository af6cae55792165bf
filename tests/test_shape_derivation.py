"""Tests of the shape derivations (proofs/derivations/shape-compulsory.md, shape-lower.md)."""

from __future__ import annotations

import itertools
import math

import pytest
import sympy as sp
from test_derivation_sharp import _dominates, _minimum_dominator, _minimum_set, _names, _segments

from attnio.bounds import get
from attnio.bounds.symbols import h_kv, h_q, n, n_kv, n_q
from attnio.pebble import solve_heuristic
from attnio.pebble.shapes import Shape, gqa_backward, gqa_forward
from attnio.proofs.check import Proved, prove
from attnio.proofs.derivation import derivations
from attnio.proofs.generate import backing


def _shape_derivation():
    (derivation,) = [x for x in derivations() if x.file == "shape-compulsory.md"]
    return derivation


def test_file_derives_both_records_and_every_step_is_proved():
    """The machine-read file derives both shape records (backed), and z3 proves each of its
    algebraic steps (default resource limit)."""
    derivation = _shape_derivation()
    assert set(derivation.records) == {"shape-forward-compulsory", "shape-backward-compulsory"}
    for record in derivation.records:
        assert backing(get(record))[0]
    assert len(derivation.steps) == 2
    for step in derivation.steps:
        assert isinstance(prove(step).result, Proved), step.name


def test_shape_records_are_the_square_records_at_one_head():
    """At n_q = n_kv = n and h_q = h_kv = 1 each shape record's expression is the square
    record's, exactly (so --n keeps its meaning)."""
    square = {n_q: n, n_kv: n, h_q: 1, h_kv: 1}
    for name in ("forward", "backward"):
        shape = get(f"shape-{name}-compulsory").explicit.subs(square)
        assert sp.simplify(shape - get(f"dense-{name}-compulsory").explicit) == 0, name


def test_compulsory_counts_the_graphs_inputs_and_outputs():
    """The records equal the graphs' input (source) plus output (sink) counts: every input has
    a successor and every output is a sink, so each costs one load or one store."""
    for sizes, d_ in itertools.product([(1, 3, 4, 2), (2, 2, 3, 1), (3, 1, 2, 2)], (1, 2)):
        point = dict(zip(("n_q", "n_kv", "h_q", "h_kv"), sizes, strict=True), d=d_)
        for build, name in ((gqa_forward, "forward"), (gqa_backward, "backward")):
            dag = build(Shape(*sizes), d_)
            assert all(len(dag.successors(v)) for v in dag.inputs)
            value = get(f"shape-{name}-compulsory").evaluate(**point)
            assert value == len(dag.inputs) + len(dag.outputs), (sizes, d_, name)


# ------------------------------------------------- shape-lower.md: the grouped lemmas
_HEAD_SIDE = {"Q", "O", "dO", "L", "QK", "S", "exp", "rowsum", "P", "PV", "S-L", "PdO", "dOV",
              "dP", "dOO", "D", "dP-D", "dS", "dSK", "dQ", "dSQ"}  # fmt: skip
_KV_SIDE = {"K", "V", "dK", "dV"}
_CHAIN = {"forward": ("QK", "S", "exp", "P"),
          "backward": ("QK", "S", "S-L", "P", "dOV", "dP", "dP-D", "dS")}  # fmt: skip
_PRODUCTS = {"forward": ("PV",), "backward": ("dSK", "dSQ", "PdO")}


class _ShapeRoles:
    """What each vertex of a shape graph is, its indices with the head (or key/value head)
    first, read from its labels (``Q[h,i,l]``, ``K[k,j,l]``; no head index for one head)."""

    def __init__(self, pass_: str, shape: Shape, d_: int, tree: str = "chain") -> None:
        build = gqa_forward if pass_ == "forward" else gqa_backward
        self.pass_, self.shape, self.d = pass_, shape, d_
        self.dag = build(shape, d_, tree=tree)
        self.chain: dict[int, tuple[int, int, int]] = {}  # vertex -> pair (h, i, j)
        self.product: dict[int, tuple[str, tuple[int, ...]]] = {}  # -> family, (h, i, j, x)
        self.entry: dict[tuple[str, tuple[int, ...]], int] = {}  # ("K", (k, j, l)) -> vertex
        self.row: dict[int, tuple[int, int]] = {}  # vertices of R^h_i -> (h, i)
        self.tree: dict[int, str] = {}  # vertex -> its output tree's root label
        for v, label in enumerate(self.dag.labels):
            for family, idx in _names(label):
                idx = self._full(family, idx)
                if family in _CHAIN[pass_]:
                    self.chain[v] = idx[:3]
                if family in _PRODUCTS[pass_]:
                    self.product[v] = (family, idx)
                if self.dag.indegree[v] == 0:
                    self.entry[family, idx] = v
                if family in ("dOO", "D"):
                    self.row[v] = idx[:2]
        for v in range(self.dag.num_vertices):
            if v in self.product:
                path = [v]
                while len(self.dag.successors(path[-1])) == 1:
                    path.append(int(self.dag.successors(path[-1])[0]))
                assert len(self.dag.successors(path[-1])) == 0  # a tree ends at a sink
                for w in path:
                    self.tree[w] = self.dag.labels[path[-1]]

    def _full(self, family: str, idx: tuple[int, ...]) -> tuple[int, ...]:
        if family in _KV_SIDE and self.shape.heads_kv == 1:
            return (0, *idx)
        if family in _HEAD_SIDE and self.shape.heads_q == 1:
            return (0, *idx)
        return idx

    def rows(self, name: str, D: set[int]) -> set[tuple[int, int]]:
        """(head, row) whose whole row ``name[head, row, :]`` is in D."""
        s = self.shape
        heads, count = (s.heads_kv, s.n_kv) if name in _KV_SIDE else (s.heads_q, s.n_q)
        return {(h, i) for h in range(heads) for i in range(count)
                if all(self.entry[name, (h, i, l)] in D for l in range(self.d))}  # fmt: skip


def _check_shape_part(roles: _ShapeRoles, part: set[int], D: set[int]) -> None:
    """Every lemma and per-part count of shape-lower.md for one part with dominator set D."""
    dag, d_, g = roles.dag, roles.d, roles.shape.group
    assert _dominates(dag, D, part)
    Min = _minimum_set(dag, part)
    S = max(len(D), len(Min))
    chain_pairs = {roles.chain[v] for v in D if v in roles.chain}
    x_chain = sum(1 for v in D if v in roles.chain)
    in_D = sum(1 for v in D if v in roles.product)
    groups = range(roles.shape.heads_kv)
    # grouped accumulator lemma: a tree holding a product of the part holds a Min vertex
    trees_with_min = {roles.tree[v] for v in Min if v in roles.tree}
    for v in part:
        if v in roles.product:
            assert roles.tree[v] in trees_with_min, dag.labels[v]
    I_q, J_k = roles.rows("Q", D), roles.rows("K", D)
    # group-sum: pairs with both rows in D lie in one group, 4 d^2 sum_k a_k b_k <= q^2
    a = {k: sum(1 for h, _ in I_q if h // g == k) for k in groups}
    b = {k: sum(1 for kv, _ in J_k if kv == k) for k in groups}
    q = sum(1 for (name, _), v in roles.entry.items() if name in ("Q", "K") and v in D)
    both = sum(a[k] * b[k] for k in groups)
    assert 4 * d_**2 * both <= q**2
    products = [v for v in part if v in roles.product]
    outside = [v for v in products if v not in D]
    if roles.pass_ == "forward":
        for v in outside:  # grouped pair-chain lemma
            h, i, j, k = roles.product[v][1]
            assert (h, i, j) in chain_pairs or ((h, i) in I_q and (h // g, j) in J_k), dag.labels[v]
            assert roles.entry["V", (h // g, j, k)] in D, dag.labels[v]
        c = {k: sum(1 for kv, j in J_k if kv == k for x in range(d_)
                    if roles.entry["V", (kv, j, x)] in D) for k in groups}  # fmt: skip
        assert len(products) <= sum(a[k] * c[k] for k in groups) + d_ * x_chain + in_D
        assert len(products) <= max(len(D) ** 2 / (8 * d_), d_ * len(D)) + 1e-9
        if S < 2 * d_ * d_:
            values = sum(1 for (name, _), v in roles.entry.items() if name == "V" and v in D)
            trees = len({roles.tree[v] for v in outside})
            assert len(outside) ** 2 <= (len(chain_pairs) + both) * values * trees
            assert len(products) <= S * math.sqrt(S) / 2 + S + 1e-9
        return
    s = roles.shape
    L_in = {(h, i) for h in range(s.heads_q) for i in range(s.n_q)
            if roles.entry["L", (h, i)] in D}  # fmt: skip
    D_row = {roles.row[v] for v in D if v in roles.row} | roles.rows("O", D)
    I_star = I_q & roles.rows("dO", D) & L_in & D_row
    J_star = J_k & roles.rows("V", D)
    operand = {"dSK": ("K", 1), "dSQ": ("Q", 0), "PdO": ("dO", 0)}
    for v in outside:  # grouped pair-chain lemma
        family, (h, i, j, x) = roles.product[v]
        name, side = operand[family]
        owner = h // g if name == "K" else h
        assert roles.entry[name, (owner, (i, j)[side], x)] in D, dag.labels[v]
        rows_q, rows_k = (I_q, J_k) if family == "PdO" else (I_star, J_star)
        assert (h, i, j) in chain_pairs or ((h, i) in rows_q and (h // g, j) in rows_k)
    a_star = {k: sum(1 for h, _ in I_star if h // g == k) for k in groups}
    b_star = {k: sum(1 for kv, _ in J_star if kv == k) for k in groups}
    dq = [v for v in products if roles.product[v][0] == "dSK"]
    assert len(dq) <= d_ * sum(a_star[k] * b_star[k] for k in groups) + d_ * x_chain + in_D
    assert len(dq) <= max(len(D) ** 2 / (16 * (d_ + 1)), d_ * len(D)) + 1e-9
    if S < 2 * d_ * d_:
        assert len(products) <= S * math.sqrt(S / 2) + S + 1e-9


SHAPE_GRAPHS = [
    ("forward", Shape(1, 2, 2, 1), 1, "chain"),  # decode-like, MQA
    ("forward", Shape(1, 2, 2, 1), 2, "balanced"),
    ("forward", Shape(2, 1, 4, 2), 1, "chain"),  # GQA 4:2, more queries than keys
    ("forward", Shape(2, 3, 1, 1), 1, "chain"),  # rectangular, one head
    ("backward", Shape(1, 2, 2, 1), 1, "chain"),
    ("backward", Shape(2, 1, 2, 2), 1, "balanced"),
]
"""Small shape graphs of every kind (decode, grouped, multi-query, rectangular), both tree
shapes: 26 to 62 vertices, so every M of a Belady pebbling is cheap."""


@pytest.mark.parametrize("pass_,shape,d_,tree", SHAPE_GRAPHS)
def test_grouped_lemmas_hold_on_every_part_of_belady_pebblings(pass_, shape, d_, tree):
    """Every HK81 part of a Belady pebbling of a shape graph, at every M, and the same part
    with a minimum dominator set, satisfies every lemma and per-part count of
    shape-lower.md; and the pebbling costs at least the shape records at that M."""
    roles = _ShapeRoles(pass_, shape, d_, tree)
    point = {"n_q": shape.n_q, "n_kv": shape.n_kv, "h_q": shape.heads_q,
             "h_kv": shape.heads_kv, "d": d_}  # fmt: skip
    cache = {True: "large", False: "small"}
    checked = 0
    for M in range(roles.dag.min_memory, roles.dag.num_vertices + 1, 2):
        moves = solve_heuristic(roles.dag, M, moves=True).moves
        io = sum(1 for move in moves if move.op in ("load", "store"))
        record = get(f"shape-{pass_}-lower-{cache[M >= d_ * d_]}-sharp")
        assert io >= record.evaluate(**point, M=M), (M, io)
        for part, D in _segments(roles.dag, moves, M):
            _check_shape_part(roles, part, D)
            _check_shape_part(roles, part, _minimum_dominator(roles.dag, part))
            checked += 1
    assert checked > 10


def test_the_grouped_checker_rejects_a_planted_violation():
    """The shape part checker is not vacuous: a part of every product with its dominator set
    emptied is refused, and so is one whose D holds the K and V rows of the other group."""
    roles = _ShapeRoles("forward", Shape(1, 1, 2, 2), 1)
    with pytest.raises(AssertionError):
        _check_shape_part(roles, set(roles.product), set())
    (v,) = [v for v, (_, idx) in roles.product.items() if idx[0] == 0]  # head 0, group 0
    wrong = {roles.entry[name, idx] for name, idx in (("Q", (0, 0, 0)), ("K", (1, 0, 0)),
                                                      ("V", (1, 0, 0)))}  # fmt: skip
    with pytest.raises(AssertionError):
        _check_shape_part(roles, {v}, wrong)


def test_shape_lower_records_are_the_dense_sharp_records_at_one_head():
    """At n_q = n_kv = n and one head each shape-lower record is its lower-sharp record."""
    square = {n_q: n, n_kv: n, h_q: 1, h_kv: 1}
    for pass_, cache in itertools.product(("forward", "backward"), ("large", "small")):
        shape = get(f"shape-{pass_}-lower-{cache}-sharp")
        dense = get(f"dense-{pass_}-lower-{cache}-sharp")
        assert sp.simplify(shape.explicit.subs(square) - dense.explicit) == 0, (pass_, cache)
        assert shape.status == "derived"


def test_shape_lower_file_derives_its_records():
    """shape-lower.md derives the four shape records and z3 proves its group-sum step."""
    (derivation,) = [x for x in derivations() if x.file == "shape-lower.md"]
    assert set(derivation.records) == {
        f"shape-{p}-lower-{c}-sharp" for p in ("forward", "backward") for c in ("large", "small")
    }
    (step,) = [s for s in derivation.steps if s.name.endswith("/groups-add")]
    assert isinstance(prove(step).result, Proved)
