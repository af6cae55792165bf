"""The combinatorial lemmas of proofs/derivations/lower-sharp.md, tested on real graphs.

z3 checks the algebra of the sharp lower bounds (``derivation/lower-sharp/*``); the
counting lemmas about parts of a partition are hand proofs. Each is tested here on the
element-level graphs of :mod:`attnio.pebble.builders`, on three kinds of parts:

* the parts of real pebblings cut as in HK81's partition lemma (segments of M I/O moves,
  each vertex in the segment of its last computation), from the exact frontier's
  certificates in ``docs/frontier`` and from Belady pebblings at several M;
* random vertex sets and random ancestor-closed sets.

For each part V the test takes a dominator set D of V (a minimum one, from a maximum
flow, or the natural one: what was red at the segment's start or loaded in it) and the
minimum set Min of V, and checks, with S = max(|D|, |Min|):

* the *pair-chain lemma*: a product outside D whose pair chain has no vertex of D has
  every operand row its chain reads wholly in D;
* the *accumulator lemma*: every output summation tree that holds a product of V holds
  a vertex of Min;
* the per-part counts each record's derivation rests on (``fl-per-part``,
  ``bl-per-part``, and the Loomis-Whitney counts for M < d^2);
* the score-tree lemma of lower-twostage.md and the dP-tree lemma and every-family count
  of lower-families.md.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import defaultdict
from pathlib import Path

import networkx as nx
import pytest

from attnio.pebble import Dag, Move, builders, read_moves, replay, solve_heuristic
from attnio.pebble.lemmas import dominates
from strategies import examples

FRONTIER = Path(__file__).resolve().parent.parent / "docs" / "frontier"
_NAME = re.compile(r"^([A-Za-z*-]+)\[([0-9,]+)\](\+\d+)?$")


# ----------------------------------------------------------------- roles of vertices
def _names(label: str) -> list[tuple[str, tuple[int, ...]]]:
    """Every (family, index) a vertex label carries (merged labels carry several)."""
    out = []
    for part in label.split("="):
        match = _NAME.match(part)
        assert match, f"unexpected label {label!r}"
        out.append((match.group(1), tuple(int(x) for x in match.group(2).split(","))))
    return out


CHAIN = {
    "attention-forward": ("QK", "S", "exp", "P"),
    "attention-backward": ("QK", "S", "S-L", "P", "dOV", "dP", "dP-D", "dS"),
    "sy24-forward": ("QK", "S", "exp"),
    "online-forward": ("QK", "S", "S-m", "Pt"),
    "blockwise-forward": ("QK", "S", "S-m", "Pt"),
    "streaming-forward": ("QK", "S", "S-lse", "W"),
    "stationary-forward": ("QK", "S", "S-top", "A", "P"),
    "twopass-forward": ("QK", "S", "S-m", "E", "P"),
}
"""The families of a pair chain: the vertices that belong to one pair (i, j) alone."""
PRODUCTS = {
    "attention-forward": ("PV",),
    "attention-backward": ("dSK", "dSQ", "PdO"),
    "sy24-forward": ("AV",),
    "online-forward": ("PV",),
    "blockwise-forward": ("PV",),
    "streaming-forward": ("PV",),
    "stationary-forward": ("PV",),
    "twopass-forward": ("PV",),
}
"""The product families the sharp bounds count."""


class Roles:
    """What each vertex of an attention graph is, read from its labels."""

    def __init__(self, kind: str, n: int, d: int, dag: Dag | None = None) -> None:
        self.kind, self.n, self.d = kind, n, d
        # ``dag``: a graph with the labels of ``kind``'s, e.g. a masked one
        # (builders.sparse_forward, test_derivation_causal.py)
        self.dag = builders.build(kind, n, d) if dag is None else dag
        self.chain: dict[int, tuple[int, int]] = {}  # vertex -> pair (i, j)
        self.product: dict[int, tuple[str, tuple[int, int, int]]] = {}  # vertex -> family, idx
        self.entry: dict[tuple[str, tuple[int, ...]], int] = {}  # ("Q", (i, l)) -> vertex
        self.row: dict[int, int] = {}  # D-vector vertices of row i (backward)
        self.tree: dict[int, tuple[str, tuple[int, int]]] = {}  # vertex -> output tree
        self.score: dict[int, tuple[int, int]] = {}  # vertex of the tree of S_ij -> (i, j)
        self.qk: dict[int, tuple[int, int, int]] = {}  # product Q_il K_jl -> (i, j, l)
        self.dp: dict[int, tuple[int, int]] = {}  # vertex of the tree of dP_ij -> (i, j)
        self.dov: dict[int, tuple[int, int, int]] = {}  # product dO_ik V_jk -> (i, j, k)
        for v, label in enumerate(self.dag.labels):
            for family, idx in _names(label):
                if family in ("QK", "S"):
                    self.score[v] = idx[:2]
                if family == "QK":
                    self.qk[v] = idx
                if family in ("dOV", "dP"):
                    self.dp[v] = idx[:2]
                if family == "dOV":
                    self.dov[v] = idx
                if family in CHAIN[kind] and len(idx) >= 2:
                    self.chain[v] = idx[:2]
                if family in PRODUCTS[kind]:
                    self.product[v] = (family, idx)
                if family in ("Q", "K", "V", "O", "dO", "L") and self.dag.indegree[v] == 0:
                    self.entry[family, idx] = v
                if family in ("dOO", "D"):
                    self.row[v] = idx[0]
        outputs = {"O", "dQ", "dK", "dV"}
        for v in range(self.dag.num_vertices):
            if self.dag.indegree[v] > 0 and (
                v in self.product
                or any(family in outputs for family, _ in _names(self.dag.labels[v]))
            ):
                path = [v]
                while len(self.dag.successors(path[-1])) == 1:
                    path.append(int(self.dag.successors(path[-1])[0]))
                assert len(self.dag.successors(path[-1])) == 0
                (root,) = [x for x in _names(self.dag.labels[path[-1]]) if x[0] in outputs]
                for w in path:  # every vertex of the tree, rescale products included
                    self.tree[w] = root

    def rows(self, name: str, D: set[int], count: int) -> set[int]:
        """Indices i whose whole row ``name[i, :]`` is in D."""
        return {
            i for i in range(count) if all(self.entry[name, (i, l)] in D for l in range(self.d))
        }


# ------------------------------------------------------------------ parts and sets
def _minimum_dominator(dag, part: set[int]) -> set[int]:
    """A least vertex set meeting every path from an input to ``part`` (a maximum flow)."""
    g = nx.DiGraph()
    for v in range(dag.num_vertices):
        g.add_edge(("in", v), ("out", v), capacity=1)
        if dag.indegree[v] == 0:
            g.add_edge("source", ("in", v))
        if v in part:
            g.add_edge(("out", v), "sink")
        for w in dag.successors(v):
            g.add_edge(("out", v), ("in", int(w)))
    _, (reach, _) = nx.minimum_cut(g, "source", "sink")
    return {v for v in range(dag.num_vertices) if ("in", v) in reach and ("out", v) not in reach}


_dominates = dominates
"""Whether every path from an input to a part meets D (:func:`attnio.pebble.lemmas.dominates`)."""


def _minimum_set(dag, part: set[int]) -> set[int]:
    return {v for v in part if not any(int(w) in part for w in dag.successors(v))}


def _random_parts(dag, seed: str, trials: int):
    """Yield the non-empty parts of ``trials`` random draws from ``dag``'s computed vertices
    (``random.Random(seed)``): odd draws keep each vertex with one probability of 0.1, 0.3
    or 0.6; even draws grow an ancestor-closed set from 1 to 4 vertices, following each
    computed predecessor with probability 0.9."""
    rng = random.Random(seed)
    computed = [v for v in range(dag.num_vertices) if dag.indegree[v] > 0]
    for trial in range(trials):
        if trial % 2:
            part = {v for v in computed if rng.random() < rng.choice((0.1, 0.3, 0.6))}
        else:
            part, stack = set(), rng.sample(computed, rng.randint(1, 4))
            while stack:
                v = stack.pop()
                if v in part or dag.indegree[v] == 0:
                    continue
                part.add(v)
                stack.extend(int(w) for w in dag.predecessors(v) if rng.random() < 0.9)
        if part:
            yield part


def _segments(dag, moves, M: int) -> list[tuple[set[int], set[int]]]:
    """HK81's parts of a pebbling: (vertices last computed in a segment, red at start + loaded)."""
    red: set[int] = set()
    last: dict[int, int] = {}
    dominators: list[set[int]] = [set()]
    io = 0
    for move in moves:
        op, v = move.op, move.vertex
        if op in ("load", "store"):
            if io and io % M == 0:
                dominators.append(set(red))
            io += 1
        if op == "load":
            dominators[-1].add(v)
            red.add(v)
        elif op == "compute":
            last[v] = len(dominators) - 1
            red.add(v)
        elif op == "delete":
            red.discard(v)
    parts: list[set[int]] = [set() for _ in dominators]
    for v, segment in last.items():
        parts[segment].add(v)
    return [(p, D) for p, D in zip(parts, dominators, strict=True) if p]


def _clean(dag, moves) -> list:
    """Step 1 of the segment lemma (lower-segments.md): drop useless computes until none is left.

    A compute of v is useless when v is neither stored nor read by a compute of one of its
    successors before the red pebble it placed is deleted (or the pebbling ends). It is
    dropped with the delete that ends that red pebble; the I/O moves stay as they are.
    """
    moves = list(moves)
    while True:
        placed: dict[int, int] = {}  # v -> index of the compute whose red pebble v carries
        useful: set[int] = set()
        drop: set[int] = set()
        for k, move in enumerate(moves):
            op, v = move.op, move.vertex
            if op == "compute":
                useful.update(placed[int(p)] for p in dag.predecessors(v) if int(p) in placed)
                placed[v] = k
            elif op == "store" and v in placed:
                useful.add(placed[v])
            elif op == "delete" and v in placed:
                if placed[v] not in useful:
                    drop.update((placed[v], k))
                del placed[v]
        drop.update(k for k in placed.values() if k not in useful)
        if not drop:
            return moves
        moves = [move for k, move in enumerate(moves) if k not in drop]


def _io_segments(dag, moves, X: int) -> list[tuple[set[int], set[int], int, int]]:
    """The segment lemma's parts: per segment of X I/O moves, (the vertices computed in it,
    the vertices red at its start or loaded in it, its loads, its stores)."""
    red: set[int] = set()
    parts: list[list] = [[set(), set(), 0, 0]]
    io = 0
    for move in moves:
        op, v = move.op, move.vertex
        if op in ("load", "store"):
            if io and io % X == 0:
                parts.append([set(), set(red), 0, 0])
            io += 1
        if op == "load":
            parts[-1][1].add(v)
            parts[-1][2] += 1
            red.add(v)
        elif op == "store":
            parts[-1][3] += 1
        elif op == "compute":
            parts[-1][0].add(v)
            red.add(v)
        elif op == "delete":
            red.discard(v)
    return [tuple(part) for part in parts]


def _weighted_stages(roles: Roles, part: set[int]) -> int:
    """The forward corner records' count of a part: its products Q_il K_jl once and its
    products P_ij V_jk three times."""
    return sum(1 for v in part if v in roles.qk) + 3 * sum(1 for v in part if v in roles.product)


def _check_segments(roles: Roles, moves, M: int, widths=None) -> int:
    """The segment lemma and the per-segment counts of lower-segments.md on one pebbling.

    The pebbling is cleaned first; for each width X (default 1, M and the 2M, 3M and 4M of
    the records) every segment's computed vertices are dominated by what was red at its start
    or loaded in it (at most M + its loads), its minimum set holds at most M + its stores
    vertices, there are ceil(IO / X) segments, and its products obey the per-segment
    counts with A = |D| and B = |Min|. Returns the number of segments checked.
    """
    dag, d = roles.dag, roles.d
    cleaned = _clean(dag, moves)
    io = replay(dag, moves, M).io
    assert replay(dag, cleaned, M).io == io  # legal, with the same I/O moves
    forward = roles.kind != "attention-backward"
    products = set(roles.qk) | set(roles.dov) | set(roles.product)
    checked = 0
    corner = PRODUCTS[roles.kind]  # with Q K^T forward: the products the corner records count
    for X in widths or (1, M, 2 * M, 3 * M, 4 * M):
        segments = _io_segments(dag, cleaned, X)
        assert len(segments) == max(1, math.ceil(io / X))
        covered = set()
        for part, D, loads, stores in segments:
            assert loads + stores <= X
            assert len(D) <= M + loads
            assert _dominates(dag, D, part)
            Min = _minimum_set(dag, part)
            assert len(Min) <= M + stores, (X, len(Min), M, stores)
            if not part:
                continue
            _check_part(roles, part, D)
            A, B = len(D), len(Min)
            count = len(part & products)
            if forward:
                assert count <= (A + B) * math.sqrt(A) / 4 + A * A / (2 * d) + A + 1e-9
            else:
                assert count <= 3 * math.sqrt(A) * (A + B) / 8 + A * A / d + A + 1e-9
            if X == 2 * M:  # the corner records: two stages forward, three families backward
                root = math.sqrt(M)
                if forward:  # each P V product counted three times (section 3b)
                    stages = _weighted_stages(roles, part)
                    bound, in_d = 8 * M * root / math.sqrt(3), 9 * M
                else:  # the products in D take budget: none added for M >= 2 (section 3b)
                    assert M >= 2
                    stages = sum(1 for v in part if roles.product.get(v, ("",))[0] in corner)
                    bound, in_d = 3 * math.sqrt(3) * M * root / 2, 0
                # M >= d^2 (section 3c): the pair face grows by at most M / d^2
                bound *= max(1.0, root / d)
                assert stages <= bound + in_d + 1e-9
            if X == 4 * M:  # the shared-budget records (section 3d)
                if forward:
                    stages = sum(1 for v in part if v in roles.qk or v in roles.product)
                    rows = 225 * M**4 / (4 * d * d)
                else:
                    stages = sum(1 for v in part if roles.product.get(v, ("",))[0] in corner)
                    rows = 35 * M**4 / (d * d)
                assert stages <= math.sqrt(8 * M**3 + rows) + 5 * M + 1e-9
            if X == 3 * M:
                root = math.sqrt(M)
                if forward:
                    assert count <= 5 * M * root / 2 + 8 * M * M / d + 4 * M + 1e-9
                else:
                    assert count <= 15 * M * root / 4 + 16 * M * M / d + 4 * M + 1e-9
            covered |= part
            checked += 1
        assert products <= covered
    return checked


# ------------------------------------------------------------------ the lemmas
def _check_part(roles: Roles, part: set[int], D: set[int]) -> None:
    """Every lemma of lower-sharp.md for one part with dominator set D."""
    dag, n, d = roles.dag, roles.n, roles.d
    assert _dominates(dag, D, part)
    Min = _minimum_set(dag, part)
    S = max(len(D), len(Min))
    chain_pairs = {roles.chain[v] for v in D if v in roles.chain}
    x_chain = sum(1 for v in D if v in roles.chain)
    # accumulator lemma: every output tree holding a product of the part holds a Min vertex
    trees_with_min = {roles.tree[v] for v in Min if v in roles.tree}
    for v in part:
        if v in roles.product:
            assert roles.tree[v] in trees_with_min, dag.labels[v]
    if roles.kind != "attention-backward":
        I_q, J_k = roles.rows("Q", D, n), roles.rows("K", D, n)
        pv = [v for v in part if v in roles.product]
        outside = [v for v in pv if v not in D]
        for v in outside:
            i, j, k = roles.product[v][1]
            assert (i, j) in chain_pairs or (i in I_q and j in J_k), dag.labels[v]
            assert roles.entry["V", (j, k)] in D, dag.labels[v]
        # fl-rows / fl-per-part
        c = sum(1 for j in J_k for k in range(d) if roles.entry["V", (j, k)] in D)
        in_D = sum(1 for v in D if v in roles.product)
        assert len(pv) <= len(I_q) * c + d * x_chain + in_D
        assert len(pv) <= max(len(D) ** 2 / (8 * d), d * len(D)) + 1e-9
        # fs: Loomis-Whitney, for parts with S < 2 d^2
        if S < 2 * d * d:
            faces = len(chain_pairs) + len(I_q) * len(J_k)
            values = sum(1 for (name, _), v in roles.entry.items() if name == "V" and v in D)
            trees = len({roles.tree[v] for v in outside})
            assert len(outside) ** 2 <= faces * values * trees
            assert len(pv) <= S * math.sqrt(S) / 2 + S + 1e-9
        _check_two_stage(roles, part, D, Min)
        _check_families(roles, part, D, Min)
        return
    # backward
    L_in = {i for i in range(n) if roles.entry["L", (i,)] in D}
    D_row = {roles.row[v] for v in D if v in roles.row} | roles.rows("O", D, n)
    I_star = roles.rows("Q", D, n) & roles.rows("dO", D, n) & L_in & D_row
    J_star = roles.rows("K", D, n) & roles.rows("V", D, n)
    I_q, J_k = roles.rows("Q", D, n), roles.rows("K", D, n)
    families = defaultdict(list)
    for v in part:
        if v in roles.product:
            families[roles.product[v][0]].append(v)
    operand = {"dSK": ("K", 1), "dSQ": ("Q", 0), "PdO": ("dO", 0)}
    for family, members in families.items():
        for v in members:
            if v in D:
                continue
            idx = roles.product[v][1]
            i, j = idx[0], idx[1]
            name, side = operand[family]
            assert roles.entry[name, (idx[side], idx[2])] in D, dag.labels[v]
            if family == "PdO":
                assert (i, j) in chain_pairs or (i in I_q and j in J_k), dag.labels[v]
            else:
                assert (i, j) in chain_pairs or (i in I_star and j in J_star), dag.labels[v]
    dq = families["dSK"]
    in_D = sum(1 for v in D if v in roles.product)
    assert len(dq) <= d * len(I_star) * len(J_star) + d * x_chain + in_D
    assert len(dq) <= max(len(D) ** 2 / (16 * (d + 1)), d * len(D)) + 1e-9
    if S < 2 * d * d:
        total = sum(len(members) for members in families.values())
        assert total <= S * math.sqrt(S / 2) + S + 1e-9
    _check_two_stage(roles, part, D, Min)
    _check_families(roles, part, D, Min)


def _check_two_stage(roles: Roles, part: set[int], D: set[int], Min: set[int], rows=True):
    """The score-tree lemma and the two-stage count of lower-twostage.md, for one part.

    The two stages are the products Q_il K_jl and, forward, P_ij V_jk (into O_ik) or,
    backward, P_ij dO_ik (into dV_jk). ``rows=False`` drops the third alternative of the
    score-tree lemma (a mutant, used to show that the check can fail).
    """
    n, d = roles.n, roles.d
    forward = roles.kind != "attention-backward"
    second, operand = ("PV", "V") if forward else ("PdO", "dO")
    I_q, J_k = roles.rows("Q", D, n), roles.rows("K", D, n)
    chain_pairs = {roles.chain[v] for v in D if v in roles.chain}
    score_min = {roles.score[v] for v in Min if v in roles.score}
    qk = [v for v in part if v in roles.qk and v not in D]
    pv = [v for v in part if roles.product.get(v, ("",))[0] == second and v not in D]
    # score-tree lemma: a product Q_il K_jl of V outside D has its operands in D, and its
    # pair has a Min vertex in the tree of S_ij, a chain vertex in D, or both rows in D
    for v in qk:
        i, j, l = roles.qk[v]
        assert roles.entry["Q", (i, l)] in D and roles.entry["K", (j, l)] in D
        assert (i, j) in score_min or (i, j) in chain_pairs or (rows and i in I_q and j in J_k), (
            roles.dag.labels[v]
        )
    # the union Loomis-Whitney count: the products of both stages outside D as triples
    # (i, j, z), z in [d] + [d], against the budgets of D and Min
    q_Q = sum(1 for (name, _), v in roles.entry.items() if name == "Q" and v in D)
    q_K = sum(1 for (name, _), v in roles.entry.items() if name == "K" and v in D)
    values = sum(1 for (name, _), v in roles.entry.items() if name == operand and v in D)
    x_chain = sum(1 for v in D if v in roles.chain)
    trees = len({roles.tree[v] for v in Min if v in roles.tree and roles.tree[v][0] in ("O", "dV")})
    triples = {roles.qk[v] for v in qk}
    triples |= {(*roles.product[v][1][:2], d + roles.product[v][1][2]) for v in pv}
    assert len(triples) == len(qk) + len(pv)
    ab = len(I_q) * len(J_k)
    # forward the output trees (i, k) sit beside Q's (i, l); backward the trees (j, k)
    # sit beside K's (j, l), and dO's (i, k) beside Q's
    first, other = (q_Q + trees, q_K + values) if forward else (q_Q + values, q_K + trees)
    assert len(triples) ** 2 <= first * other * (len(score_min) + x_chain + ab)
    if forward:  # lower-segments.md, section 3b: each P V triple three times
        weighted = len(qk) + 3 * len(pv)
        faces = (q_Q + 3 * trees) * (q_K + 3 * values)
        assert weighted**2 <= faces * (len(score_min) + x_chain + ab)
    assert q_Q + q_K + values + x_chain <= len(D) and len(score_min) + trees <= len(Min)
    S = max(len(D), len(Min))
    if S < 2 * d * d:
        total = sum(1 for v in part if v in roles.qk or roles.product.get(v, ("",))[0] == second)
        assert total <= 3 * S * math.sqrt(S) / 4 + S + 1e-9


def _check_families(roles: Roles, part: set[int], D: set[int], Min: set[int], rows=True):
    """The dP-tree lemma and the every-family count of lower-families.md, for one part.

    Every product of the part outside D whose pair has both operand rows in D (Q and K;
    for dO V^T, dO and V) is charged to the row pairs, at most d per pair and family; every
    other one is a triple of its family's Loomis-Whitney count, whose pair must have a
    vertex of Min in its score (or dP) tree or a chain vertex in D (the score-tree and
    dP-tree lemmas), and whose operand entries and output tree must be in D and Min.
    ``rows=False`` drops the rows alternative of the dP-tree lemma (a mutant).
    """
    n, d, dag = roles.n, roles.d, roles.dag
    forward = roles.kind != "attention-backward"

    def entries(name: str) -> int:
        return sum(1 for (key, _), v in roles.entry.items() if key == name and v in D)

    I_q, J_k = roles.rows("Q", D, n), roles.rows("K", D, n)
    I_o = set() if forward else roles.rows("dO", D, n)
    J_v = roles.rows("V", D, n)
    chain_pairs = {roles.chain[v] for v in D if v in roles.chain}
    x_chain = sum(1 for v in D if v in roles.chain)
    score_min = {roles.score[v] for v in Min if v in roles.score}
    dp_min = {roles.dp[v] for v in Min if v in roles.dp}
    trees = defaultdict(set)  # output kind -> output trees holding a vertex of Min
    for v in Min:
        if v in roles.tree:
            trees[roles.tree[v][0]].add(roles.tree[v])
    # family -> (triple of the product, its pair face, the two other projections)
    faces: dict[str, list] = defaultdict(list)
    row_pairs = defaultdict(int)
    for v in part:
        if v in D:
            continue
        if v in roles.qk:
            family, (i, j, z) = "QK", roles.qk[v]
            operands = [("Q", (i, z)), ("K", (j, z))]
            allowed, bucket = score_min | chain_pairs, (i in I_q and j in J_k)
        elif v in roles.dov:
            family, (i, j, z) = "dOV", roles.dov[v]
            operands = [("dO", (i, z)), ("V", (j, z))]
            allowed = dp_min | chain_pairs
            bucket = rows and i in I_o and j in J_v
        elif v in roles.product:
            family, (i, j, z) = roles.product[v][0], roles.product[v][1]
            operand = {
                "PV": ("V", (j, z)),
                "AV": ("V", (j, z)),
                "PdO": ("dO", (i, z)),
                "dSK": ("K", (j, z)),
                "dSQ": ("Q", (i, z)),
            }[family]
            operands = [operand]
            assert roles.tree[v] in trees[roles.tree[v][0]], dag.labels[v]  # accumulator
            allowed, bucket = chain_pairs, (i in I_q and j in J_k)
        else:
            continue
        for operand in operands:
            assert roles.entry[operand] in D, dag.labels[v]
        if bucket:
            row_pairs[family] += 1
            continue
        assert (i, j) in allowed, dag.labels[v]  # score-tree, dP-tree and pair-chain lemmas
        faces[family].append((i, j, z, v))
    # the row pairs: at most d products per pair and family
    for family, count in row_pairs.items():
        pairs = len(I_o) * len(J_v) if family == "dOV" else len(I_q) * len(J_k)
        assert count <= d * pairs
    # one Loomis-Whitney per family, on the projections and on the budgets of D and Min
    q_Q, q_K, q_O, q_V = entries("Q"), entries("K"), entries("dO"), entries("V")
    mu_S, mu_P = len(score_min), len(dp_min)
    budget = {
        "QK": q_Q * q_K * (mu_S + x_chain),
        "dOV": q_O * q_V * (mu_P + x_chain),
        "PV": q_V * len(trees["O"]) * x_chain,
        "AV": q_V * len(trees["O"]) * x_chain,
        "PdO": q_O * len(trees["dV"]) * x_chain,
        "dSK": q_K * len(trees["dQ"]) * x_chain,
        "dSQ": q_Q * len(trees["dK"]) * x_chain,
    }
    for family, triples in faces.items():
        t = len(triples)
        pairs = {(i, j) for i, j, _, _ in triples}
        first = {(i, z) for i, _, z, _ in triples}
        second = {(j, z) for _, j, z, _ in triples}
        assert t * t <= len(pairs) * len(first) * len(second)
        assert t * t <= budget[family], family
    assert q_Q + q_K + q_O + q_V + x_chain <= len(D)
    assert mu_S + mu_P + sum(len(t) for t in trees.values()) <= len(Min)
    # the per-part count, for every S (the proof does not use M < d^2)
    S = max(len(D), len(Min))
    families = ("QK", "PV", "AV") if forward else ("QK", "dOV", "PdO", "dSK", "dSQ")
    total = sum(
        1
        for v in part
        if v in roles.qk or v in roles.dov or roles.product.get(v, ("",))[0] in families
    )
    if forward:
        assert total <= S * math.sqrt(S) / 2 + S * S / (2 * d) + S + 1e-9
    else:
        assert total <= S * math.sqrt(S / 2) + S * S / d + S + 1e-9


GRAPHS = [
    ("attention-forward", 2, 1),
    ("attention-forward", 2, 2),
    ("attention-forward", 3, 1),
    ("attention-forward", 1, 3),
    ("attention-backward", 2, 1),
    ("attention-backward", 1, 2),
    ("sy24-forward", 2, 2),
    ("online-forward", 2, 2),
    ("online-forward", 3, 1),
    ("blockwise-forward", 2, 2),
    ("streaming-forward", 2, 2),
    ("stationary-forward", 2, 2),
    ("twopass-forward", 2, 2),
]
"""The graphs whose parts the lemmas are tested on: the reference graphs and the other
graphs of the forward computation (docs/notation.md), all in the lemmas' classes
(attnio.pebble.classes); the online graphs with key blocks of one key."""


def _certificates() -> list[tuple[str, int, int, int, Path]]:
    cells = json.loads((FRONTIER / "index.json").read_text())["cells"]
    return [
        (cell["dag"], cell["n"], cell["d"], cell["M"], FRONTIER / cell["certificate"])
        for cell in cells
        if cell["dag"] in CHAIN and cell.get("certificate")
    ]


@pytest.mark.parametrize("kind,n,d", GRAPHS)
def test_lemmas_hold_on_every_part_of_belady_pebblings(kind: str, n: int, d: int) -> None:
    """Every HK81 part of a Belady pebbling, at every M, satisfies every per-part lemma."""
    roles = Roles(kind, n, d)
    for M in range(roles.dag.min_memory, roles.dag.num_vertices + 1, 2):
        moves = solve_heuristic(roles.dag, M, moves=True).moves
        for part, D in _segments(roles.dag, moves, M):
            _check_part(roles, part, D)
            _check_part(roles, part, _minimum_dominator(roles.dag, part))


def test_lemmas_hold_on_every_part_of_the_frontier_certificates() -> None:
    """Every HK81 part of every dense certificate in docs/frontier satisfies every lemma."""
    checked = 0
    cache: dict[tuple[str, int, int], Roles] = {}
    for kind, n, d, M, path in _certificates():
        roles = cache.setdefault((kind, n, d), Roles(kind, n, d))
        for part, D in _segments(roles.dag, read_moves(path, roles.dag), M):
            _check_part(roles, part, D)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("kind,n,d", GRAPHS)
def test_segment_lemma_holds_on_belady_pebblings(kind: str, n: int, d: int) -> None:
    """Cut into segments of X = 1, M, 2M, 3M I/O moves, every cleaned Belady pebbling meets
    the segment lemma (dominators <= M + loads, minimum set <= M + stores) and the
    per-segment counts of lower-segments.md, at every M."""
    roles = Roles(kind, n, d)
    for M in range(roles.dag.min_memory, roles.dag.num_vertices + 1, 3):
        moves = solve_heuristic(roles.dag, M, moves=True).moves
        assert _check_segments(roles, moves, M) > 0


def test_segment_lemma_holds_on_the_frontier_certificates() -> None:
    """The segment lemma and the per-segment counts on every dense optimal certificate of
    docs/frontier, at X = 1, M, 2M and 3M."""
    checked = 0
    cache: dict[tuple[str, int, int], Roles] = {}
    for kind, n, d, M, path in _certificates():
        roles = cache.setdefault((kind, n, d), Roles(kind, n, d))
        checked += _check_segments(roles, read_moves(path, roles.dag), M)
    assert checked > 100


@pytest.mark.parametrize("kind,n,d", [("attention-forward", 2, 4), ("attention-backward", 2, 3)])
def test_corner_counts_hold_on_segments_of_wider_heads(kind: str, n: int, d: int) -> None:
    """The corner records need M < d^2: on graphs with d = 3 and 4, every cleaned Belady
    pebbling with M < d^2, cut into segments of 2M I/O moves, meets the segment lemma and
    the per-segment counts of both corner records (and every earlier lemma)."""
    roles = Roles(kind, n, d)
    checked = 0
    for M in range(roles.dag.min_memory, d * d):
        moves = solve_heuristic(roles.dag, M, moves=True).moves
        checked += _check_segments(roles, moves, M, widths=(2 * M,))
    assert checked > 20


def _row_streaming_moves(dag, n: int, M: int) -> list:
    """A pebbling of the forward graph with d = 1 and chain trees, by row streaming with
    recomputation: for each block of b = (M - 5) // 3 query rows, one pass over the keys
    sums the row sums l_i, and a second pass recomputes exp(S_ij), forms P_ij and
    accumulates O_i; fast memory holds q_i, l_i and the O_i partial sum of each row, K_j
    and V_j and three temporaries. Each key of the second pass costs 2 loads and computes
    2b products of the two stages: about 2 M^2 / 3 products per segment of 2M I/O moves."""
    at = {part: v for v, label in enumerate(dag.labels) for part in label.split("=")}

    def vertex(name: str) -> int:
        return at[name]

    def score(i: int, j: int) -> int:
        return vertex(f"QK[{i},{j},0]")

    def partial(name: str, j: int) -> int:  # the chain tree's vertex summing terms 0..j
        return vertex(name) if j == n - 1 else vertex(f"{name}+{j}")

    moves: list = []
    rows = (M - 5) // 3
    for start in range(0, n, rows):
        block = range(start, min(n, start + rows))
        moves += [Move("load", vertex(f"Q[{i},0]")) for i in block]
        for j in range(n):  # pass 1: the row sums
            moves.append(Move("load", vertex(f"K[{j},0]")))
            for i in block:
                a = vertex(f"exp[{i},{j}]")
                moves += [Move("compute", score(i, j)), Move("compute", a)]
                moves.append(Move("delete", score(i, j)))
                if j >= 1:
                    prev = vertex(f"exp[{i},0]") if j == 1 else partial(f"rowsum[{i}]", j - 1)
                    moves += [Move("compute", partial(f"rowsum[{i}]", j)), Move("delete", prev)]
                    moves.append(Move("delete", a))
            moves.append(Move("delete", vertex(f"K[{j},0]")))
        for j in range(n):  # pass 2: P and O
            k, v = vertex(f"K[{j},0]"), vertex(f"V[{j},0]")
            moves += [Move("load", k), Move("load", v)]
            for i in block:
                a, p, pv = vertex(f"exp[{i},{j}]"), vertex(f"P[{i},{j}]"), vertex(f"PV[{i},{j},0]")
                moves += [Move("compute", score(i, j)), Move("compute", a)]
                moves += [Move("delete", score(i, j)), Move("compute", p), Move("delete", a)]
                moves += [Move("compute", pv), Move("delete", p)]
                if j >= 1:
                    prev = vertex(f"PV[{i},0,0]") if j == 1 else partial(f"O[{i},0]", j - 1)
                    moves += [Move("compute", partial(f"O[{i},0]", j)), Move("delete", prev)]
                    moves.append(Move("delete", pv))
            moves += [Move("delete", k), Move("delete", v)]
        for i in block:
            out = partial(f"O[{i},0]", n - 1)
            moves += [Move("store", out), Move("delete", out)]
            moves += [Move("delete", partial(f"rowsum[{i}]", n - 1))]
            moves += [Move("delete", vertex(f"Q[{i},0]"))]
    return moves


def test_the_corner_count_above_d_squared_needs_its_factor() -> None:
    """Section 3c of lower-segments.md is not vacuous: a row-streaming pebbling of the
    forward graph with d = 1 and M = 64 = 64 d^2 puts a larger weighted count of the two
    stages' products (Q K^T once, P V three times) in some segment of 2M I/O moves than the
    small-cache corner count 8 M sqrt(M) / sqrt(3) + 9M allows (so that count needs
    M < d^2), and every segment stays within the count for M >= d^2, that times
    sqrt(M) / d in its first term, and meets the segment lemma's budgets."""
    n, d, M = 80, 1, 64
    roles = Roles("attention-forward", n, d)
    moves = _row_streaming_moves(roles.dag, n, M)
    io = replay(roles.dag, moves, M).io
    assert _clean(roles.dag, moves) == moves  # no useless compute to drop
    small = 8 * M * math.sqrt(M) / math.sqrt(3) + 9 * M
    large = 8 * M * math.sqrt(M) / math.sqrt(3) * math.sqrt(M) / d + 9 * M
    most = 0
    segments = _io_segments(roles.dag, moves, 2 * M)
    assert len(segments) == math.ceil(io / (2 * M))
    for part, D, loads, stores in segments:
        assert len(D) <= M + loads and len(_minimum_set(roles.dag, part)) <= M + stores
        stages = _weighted_stages(roles, part)
        assert stages <= large
        most = max(most, stages)
    assert most > small, (most, small)


def test_the_segment_lemma_needs_its_cleaning() -> None:
    """Without step 1 the minimum-set budget fails: recomputing stored outputs uselessly at
    the end puts k sinks in the last segment's minimum set, more than M + its one store;
    cleaning drops those computes and the budget holds."""
    k, M = 6, 2
    g = Dag.from_edges(["a"] + [f"b{i}" for i in range(k)], [(0, i) for i in range(1, k + 1)])
    moves = [Move("load", 0)]
    for i in range(1, k + 1):
        moves += [Move("compute", i), Move("store", i), Move("delete", i)]
    moves += [m for i in range(1, k + 1) for m in (Move("compute", i), Move("delete", i))]
    assert replay(g, moves, M).io == k + 1
    part, _, _, stores = _io_segments(g, moves, 1)[-1]
    assert len(_minimum_set(g, part)) > M + stores
    cleaned = _clean(g, moves)
    assert replay(g, cleaned, M).io == k + 1
    for part, _, _, stores in _io_segments(g, cleaned, 1):
        assert len(_minimum_set(g, part)) <= M + stores


@pytest.mark.parametrize("kind,n,d", GRAPHS)
def test_lemmas_hold_on_random_parts(kind: str, n: int, d: int) -> None:
    """Random vertex sets and ancestor-closed sets, each with a minimum dominator set."""
    roles = Roles(kind, n, d)
    for part in _random_parts(roles.dag, f"{kind}-{n}-{d}", examples(60)):
        _check_part(roles, part, _minimum_dominator(roles.dag, part))


def test_the_checker_rejects_a_planted_violation() -> None:
    """The part checker is not vacuous: a part with its dominator set emptied is refused."""
    roles = Roles("attention-forward", 2, 1)
    part = {v for v in roles.product}
    with pytest.raises(AssertionError):
        _check_part(roles, part, set())


@pytest.mark.slow
@pytest.mark.parametrize("kind,n,d", [("attention-forward", 4, 2), ("attention-backward", 2, 2)])
def test_lemmas_hold_on_the_parts_of_larger_graphs(kind: str, n: int, d: int) -> None:
    """The same lemmas on graphs of 200 to 300 vertices: Belady parts and random parts."""
    test_lemmas_hold_on_every_part_of_belady_pebblings(kind, n, d)
    test_lemmas_hold_on_random_parts(kind, n, d)
    test_segment_lemma_holds_on_belady_pebblings(kind, n, d)


NON_VACUOUS = [
    ("dense-forward-lower-large-sharp", "attention-forward", 9, 1, 3),
    ("dense-backward-lower-large-sharp", "attention-backward", 19, 1, 3),
    ("dense-forward-lower-small-sharp", "attention-forward", 19, 2, 3),
    ("dense-backward-lower-small-sharp", "attention-backward", 16, 2, 3),
    ("dense-forward-lower-small-twostage", "attention-forward", 12, 2, 3),
    ("dense-backward-lower-small-twostage", "attention-backward", 25, 2, 3),
    ("dense-forward-lower-small-families", "attention-forward", 16, 2, 3),
    ("dense-backward-lower-small-families", "attention-backward", 20, 2, 3),
    ("dense-forward-lower-small-segments", "attention-forward", 15, 2, 3),
    ("dense-backward-lower-small-segments", "attention-backward", 21, 2, 3),
    ("dense-forward-lower-small-segments-corner", "attention-forward", 10, 2, 3),
    ("dense-forward-lower-small-shared", "attention-forward", 14, 2, 3),
    ("dense-backward-lower-small-shared", "attention-backward", 14, 2, 3),
    ("dense-backward-lower-small-segments-corner", "attention-backward", 7, 2, 3),
    ("dense-forward-lower-large-segments-corner", "attention-forward", 13, 1, 3),
    ("dense-backward-lower-large-segments-corner", "attention-backward", 13, 1, 3),
]
"""Per sharp, two-stage or every-family record, the smallest n (least d, M = 3, the graphs' least memory) where it
exceeds the compulsory I/O."""


@pytest.mark.parametrize("record,kind,n,d,M", NON_VACUOUS)
def test_sharp_bounds_are_below_pebblings_where_they_first_say_something(record, kind, n, d, M):
    """At the smallest graph where a sharp bound beats the compulsory I/O, a pebbling costs more.

    Below that n the bound is at most the compulsory I/O (so vacuous); at it, the bound is
    a real claim about the graph, and a Belady pebbling (an upper bound on Q) must not
    refute it.
    """
    from attnio.bounds import get

    bound, compulsory = get(record), get(f"dense-{kind.split('-')[1]}-compulsory")
    at = {"n": n, "d": d, "M": M}
    assert bound.evaluate(**at) > compulsory.evaluate(**at)
    smaller = {"n": n - 1, "d": d, "M": M}
    assert bound.evaluate(**smaller) <= compulsory.evaluate(**smaller)
    io = solve_heuristic(builders.build(kind, n, d), M).io
    assert bound.evaluate(**at) <= io


def test_the_score_tree_lemma_needs_its_rows_alternative() -> None:
    """A planted weakening is caught: without "both rows in D" the score-tree lemma fails.

    A Belady pebbling of the forward graph computes whole scores S_ij from rows of Q and K
    held in fast memory; its parts refute the mutant, so the check is not vacuous.
    """
    roles = Roles("attention-forward", 2, 2)
    refuted = 0
    for M in range(roles.dag.min_memory, roles.dag.num_vertices + 1, 2):
        moves = solve_heuristic(roles.dag, M, moves=True).moves
        for part, D in _segments(roles.dag, moves, M):
            _check_two_stage(roles, part, D, _minimum_set(roles.dag, part))
            try:
                _check_two_stage(roles, part, D, _minimum_set(roles.dag, part), rows=False)
            except AssertionError:
                refuted += 1
    assert refuted > 0


def test_the_dp_tree_lemma_needs_its_rows_alternative() -> None:
    """A planted weakening is caught: without "both rows dO_i and v_j in D" the dP-tree
    lemma of lower-families.md fails on real parts, so its check is not vacuous.
    """
    roles = Roles("attention-backward", 2, 1)
    refuted = 0
    for M in range(roles.dag.min_memory, roles.dag.num_vertices + 1, 2):
        moves = solve_heuristic(roles.dag, M, moves=True).moves
        for part, D in _segments(roles.dag, moves, M):
            Min = _minimum_set(roles.dag, part)
            _check_families(roles, part, D, Min)
            try:
                _check_families(roles, part, D, Min, rows=False)
            except AssertionError:
                refuted += 1
    assert refuted > 0


@pytest.mark.parametrize(
    "record", ["dense-forward-lower-large-sharp", "dense-backward-lower-large-sharp"]
)
def test_each_smooth_minorant_is_at_most_its_record(record: str) -> None:
    """The smooth terms the constant searches go through (attnio.proofs.derivation.MINORANTS,
    the records as they were before their per-part count took the larger end value) are at
    most the records wherever those hold (z3), and below them at M = 4 d^2: a minorant
    equal to its record would make the transitivity step say nothing."""
    import sympy as sp

    from attnio.bounds import get
    from attnio.bounds.symbols import M, d, n
    from attnio.proofs import Obligation, check
    from attnio.proofs.derivation import minorant

    bound, smooth = get(record), minorant(record)
    claim = sp.Le(smooth, bound.explicit, evaluate=False)
    assert (
        check(
            Obligation("test/minorant", "derivation", claim, (bound.conditions,), "holds", (), "")
        ).status
        == "proved"
    )
    at = {n: 64, d: 4, M: 64}
    assert smooth.subs(at) < bound.explicit.subs(at)


@pytest.mark.parametrize(
    "kind,n,d,M", [("streaming-forward", 3, 2, 17), ("streaming-forward", 4, 1, 10)]
)
def test_lemmas_hold_on_every_part_of_row_streamings_own_pebbling(
    kind: str, n: int, d: int, M: int
) -> None:
    """The run of row streaming on the two-level machine, replayed as a pebbling of its own
    graph (attnio.algorithms.trace), cut into HK81 parts and into segments: every part and
    segment satisfies every per-part lemma and count (M is the machine's; its pebbling needs
    no more red pebbles)."""
    from attnio.algorithms.streaming import row_streaming_forward
    from attnio.algorithms.trace import record

    roles = Roles(kind, n, d)
    trace, _ = record(row_streaming_forward, roles.dag, n, d, M, dict.fromkeys("QKV", (n, d)))
    moves = [Move(op, v) for op, v in trace.moves]
    parts = _segments(roles.dag, moves, M)
    assert len(parts) > 2
    for part, D in parts:
        _check_part(roles, part, D)
        _check_part(roles, part, _minimum_dominator(roles.dag, part))
    assert _check_segments(roles, moves, M) > 0
