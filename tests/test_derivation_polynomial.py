"""The combinatorial lemmas of proofs/derivations/polynomial-lower.md, tested on real graphs.

z3 checks the algebra of ``polynomial-forward-lower`` and ``polynomial-backward-lower-dw``
(``derivation/polynomial-lower/*``); the face lemmas (F, W, N, dW) are hand proofs. Each
is tested here on every segment of 1, M and 3M I/O moves of cleaned Belady pebblings of
the builders' ``approx-forward`` and ``approx-backward`` graphs (g = 2, both tree
shapes), with the per-segment counts of section 3 evaluated on the faces measured there.
"""

from __future__ import annotations

import math
import re

import pytest
from test_derivation_sharp import _clean, _dominates, _io_segments, _minimum_set

from attnio.pebble import builders, replay, solve_heuristic

_LABEL = re.compile(r"^(\w+)\[([^\]]*)\](?:\^([\d.]+))?(?:\+\d+)?(?:=.*)?$")


class Roles:
    """The vertices the lemmas name, read from the builder's labels (n >= 2, g = 2)."""

    def __init__(self, backward: bool, n: int, d: int, tree: str) -> None:
        build = builders.approx_backward if backward else builders.approx_forward
        self.dag = build(n, d, 2, tree=tree)
        self.n, self.d, self.backward = n, d, backward
        monos = builders._monomials(d, 2)
        self.square = {a: combo for a, combo in enumerate(monos) if len(combo) == 2}
        product = "phiQdnum" if backward else "phiQW"
        self.Q, self.V, self.D_rows, self.features = {}, set(), {}, {}
        self.products: dict[int, tuple[int, int, int]] = {}
        self.pair_sets: dict[tuple[int, int], set[int]] = {}  # X(a, k) or Z(a, k)
        self.acc: dict[tuple[int, int], set[int]] = {}  # Y(i, k), forward
        for v in range(self.dag.num_vertices):
            found = _LABEL.match(self.dag.labels[v])
            if not found:
                continue
            name, idx, mono = found.group(1), found.group(2), found.group(3)
            if idx.startswith("one"):
                continue
            ix = tuple(int(x) for x in idx.split(","))
            if name == "Q":
                self.Q[ix] = v
            elif name == "V":
                self.V.add(v)
            elif name == "phiQ" and mono and mono.count(".") == 1:
                self.features[v] = (ix[0], tuple(int(x) for x in mono.split(".")))
            elif name in ("dnum", "dO"):
                self.D_rows[v] = ix
            if name == product and ix[1] in self.square:
                self.products[v] = ix
            if not backward and name in ("phiKV", "W") and len(ix) == 2:
                self.pair_sets.setdefault(ix, set()).add(v)
            if not backward and name == "phiKV" and ix[1] in self.square:
                self.pair_sets.setdefault((ix[1], ix[2]), set()).add(v)
            if not backward and (name in ("num", "out") or name == "phiQW"):
                key = (ix[0], ix[-1])
                self.acc.setdefault(key, set()).add(v)
            if backward and name == "phiQdnum" and ix[1] in self.square:
                self.pair_sets.setdefault((ix[1], ix[2]), set()).add(v)
            if backward and name == "dW":
                self.pair_sets.setdefault(ix, set()).add(v)
        self.pair_sets = {p: s for p, s in self.pair_sets.items() if p[0] in self.square}
        self.feature_of = {(i, combo): v for v, (i, combo) in self.features.items()}

    def check_graph_class(self) -> None:
        """The wiring the lemmas use (the file's Graph class section)."""
        dag = self.dag
        for v, (i, (c1, c2)) in self.features.items():
            assert {int(p) for p in dag.predecessors(v)} == {self.Q[i, c1], self.Q[i, c2]}
        for key, members in self.pair_sets.items():
            roots = [u for u in members if not any(int(w) in members for w in dag.successors(u))]
            assert len(roots) == 1, key  # one tree, one root
        if self.backward:
            for v, (i, k) in self.D_rows.items():
                if self.dag.labels[v].startswith("dnum"):
                    assert self.Q and any(int(p) == self._dO(i, k) for p in dag.predecessors(v))
        else:
            for members in self.acc.values():
                for u in members:
                    assert all(int(w) in members for w in dag.successors(u))

    def _dO(self, i: int, k: int) -> int:
        return next(v for v, ix in self.D_rows.items()
                    if ix == (i, k) and self.dag.labels[v].startswith("dO"))  # fmt: skip


def _check_segment(roles: Roles, part, D, loads, stores, M, X) -> tuple[int, int]:
    """Every face lemma and per-segment count of polynomial-lower.md on one segment."""
    dag, n = roles.dag, roles.n
    assert _dominates(dag, D, part)
    Min = _minimum_set(dag, part)
    assert len(D) <= M + loads and len(Min) <= M + stores
    products = {v: roles.products[v] for v in part if v in roles.products}
    q = sum(1 for v in roles.Q.values() if v in D)
    hf = sum(1 for v in roles.features if v in D)
    pair_union = set().union(*roles.pair_sets.values())
    y = len(D & pair_union)
    faces_ak, faces_ik = set(), set()
    t_h = t_c = 0
    for i, a, k in products.values():
        c1, c2 = roles.square[a]
        feature = roles.feature_of[i, (c1, c2)]
        if feature in D:
            t_h += 1
        else:  # Lemma F
            assert roles.Q[i, c1] in D and roles.Q[i, c2] in D
            t_c += 1
        faces_ak.add((a, k))
        faces_ik.add((i, k))
    if roles.backward:
        rows = {ix: set() for ix in roles.D_rows.values()}
        for v, ix in roles.D_rows.items():
            rows[ix].add(v)
        e = sum(1 for v in roles.D_rows if v in D)
        m = len(Min & pair_union)
        full = [k for k in range(roles.d) if all(rows[j, k] & D for j in range(n))]
        for i, k in faces_ik:  # Lemma dW (i)
            assert rows[i, k] & D
        for a, k in faces_ak:  # Lemma dW (ii)
            assert (roles.pair_sets[a, k] & (D | Min)) or k in full
        w = len(faces_ak)
        assert w <= y + m + len(roles.square) * len(full)
        assert q + hf + y + e <= len(D)
        ik = e
    else:
        v_in = len(D & roles.V)
        full = [k for k in range(roles.d)
                if all(any(dag.labels[u] == f"V[{j},{k}]" for u in D) for j in range(n))]  # fmt: skip
        for a, k in faces_ak:  # Lemma W
            assert (roles.pair_sets[a, k] & D) or k in full
        acc_union = set().union(*roles.acc.values())
        m = len(Min & acc_union)
        for i, k in faces_ik:  # Lemma N
            assert roles.acc[i, k] & Min
        w = len(faces_ak)
        assert w <= y + len(roles.square) * len(full)
        assert q + hf + y + v_in <= len(D) and m <= len(Min)
        ik = m
    # Loomis-Whitney and the fractional cover, with the faces bounded as in section 3
    assert t_h**2 <= hf * w * ik
    assert t_c**3 <= q**2 * w**2 * ik
    if X == 3 * M:  # the per-segment count of section 4
        bound = (
            2 * 2 ** (1 / 3) * M ** (5 / 3) + 5 * math.sqrt(15) * M**1.5 / 9
            if not roles.backward
            else 74 ** (1 / 3) * M ** (5 / 3) + math.sqrt(14) * M**1.5
        )
        assert t_h + t_c <= bound * (1 + 1e-12)
    return t_h + t_c, len(products)


_STEP = {(False, 2): 12, (False, 3): 6, (True, 2): 12, (True, 3): 40}
"""Every how many M a graph is pebbled (the larger graphs less often: CI time)."""

GRAPHS = [
    (False, 2, 2, "chain"),
    (False, 3, 2, "chain"),
    (False, 3, 2, "balanced"),
    (True, 2, 2, "chain"),
    (True, 3, 2, "balanced"),
]


@pytest.mark.parametrize("backward,n,d,tree", GRAPHS)
def test_face_lemmas_hold_on_every_segment_of_belady_pebblings(backward, n, d, tree) -> None:
    """On every segment of 1, M and 3M I/O moves of cleaned Belady pebblings, at every
    few M, Lemmas F, W, N (forward), dW (backward) and the per-segment counts hold, and
    the segments hold every degree-two product at least once."""
    roles = Roles(backward, n, d, tree)
    roles.check_graph_class()
    total = len(set(roles.products))
    assert total == n * d * d * (d + 1) // 2
    checked = 0
    for M in range(roles.dag.min_memory, roles.dag.num_vertices + 1, _STEP[backward, n]):
        moves = solve_heuristic(roles.dag, M, moves=True).moves
        cleaned = _clean(roles.dag, moves)
        io = replay(roles.dag, cleaned, M).io
        for X in (1, M, 3 * M):
            seen: set[int] = set()
            for part, D, loads, stores in _io_segments(roles.dag, cleaned, X):
                _check_segment(roles, part, D, loads, stores, M, X)
                seen |= {v for v in part if v in roles.products}
                checked += 1
            assert len(seen) == total
        assert io >= 1
    assert checked > 20


def test_the_checker_rejects_a_wrong_face() -> None:
    """The lemma check can fail: a segment whose D lacks the entries of Q its features
    need (a planted D without them) violates Lemma F."""
    roles = Roles(False, 2, 2, "chain")
    M = roles.dag.min_memory + 6
    moves = _clean(roles.dag, solve_heuristic(roles.dag, M, moves=True).moves)
    part, D, loads, stores = _io_segments(roles.dag, moves, 10**9)[0]
    with pytest.raises(AssertionError):
        _check_segment(roles, part, D - set(roles.Q.values()), loads, stores, M, 10**9)
