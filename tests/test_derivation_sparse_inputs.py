"""The part lemmas of proofs/derivations/sparse-inputs.md, checked on small sparse-inputs graphs.

The graph of a sparse-inputs pattern (supports SQ, SK of Q and K): an input per nonzero, a
product Q_il K_jl per shared column of a pair, a chain summation tree per pair with a
product, its root the score S_ij (an output: the lemmas use nothing after the scores).
Lemma 1 (every instance): a part V with dominator set D holds at most t + u v products, t
those in D, u and v the Q and K inputs in D. Lemma 2 (a common dense block R x C in SQ and
R' x C in SK): V holds at most c a b + 2 S c block products, a and b the block rows wholly
in D, S = max(|D|, |Min|). Both are decided by z3 over every (V, D) with D dominating V; a
weakened lemma must fail, so the checks can fail. The records are also compared with Belady
pebblings of the patterns they speak of.
"""

from __future__ import annotations

import math

import pytest
import z3

from attnio.bounds import get
from attnio.pebble import Dag, solve_heuristic

Support = frozenset[tuple[int, int]]


def _graph(sq: Support, sk: Support) -> tuple[Dag, dict]:
    """The score graph of supports ``sq``, ``sk``; the roles of its vertices."""
    labels: list[str] = []
    edges: list[tuple[int, int]] = []

    def vertex(label: str) -> int:
        labels.append(label)
        return len(labels) - 1

    q = {pos: vertex(f"Q{pos}") for pos in sorted(sq)}
    k = {pos: vertex(f"K{pos}") for pos in sorted(sk)}
    products: dict[tuple[int, int, int], int] = {}
    trees: dict[tuple[int, int], list[int]] = {}
    rows = {i for i, _ in sq} | {j for j, _ in sk}
    cols_q = {i: {l for (a, l) in sq if a == i} for i in rows}
    cols_k = {j: {l for (b, l) in sk if b == j} for j in rows}
    for i in sorted(rows):
        out = None
        for j in sorted(rows):
            shared = sorted(cols_q[i] & cols_k[j])
            if not shared:
                continue
            tree = []
            acc = None
            for l in shared:
                p = vertex(f"p{i},{j},{l}")
                edges += [(q[i, l], p), (k[j, l], p)]
                products[i, j, l] = p
                tree.append(p)
                if acc is not None:
                    s = vertex(f"s{i},{j},{l}")
                    edges += [(acc, s), (p, s)]
                    tree.append(s)
                    acc = s
                else:
                    acc = p
            trees[i, j] = tree
            if out is not None:  # the row's output: a chain sum of its scores, as they come
                o = vertex(f"O{i},{j}")
                edges += [(out, o), (acc, o)]
                acc = o
            out = acc
        if out is not None and labels[out].startswith(("p", "s")):  # one score: add a sink
            edges.append((out, vertex(f"O{i}")))
    return Dag.from_edges(labels, edges), {"Q": q, "K": k, "products": products, "trees": trees}


def _encoding(dag: Dag) -> tuple[list, list, list, list]:
    """z3 indicators of V and D, the constraint "D dominates V", and Min's indicators."""
    nv = dag.num_vertices
    xv = [z3.Bool(f"v{x}") for x in range(nv)]
    xd = [z3.Bool(f"d{x}") for x in range(nv)]
    reach = [z3.Bool(f"r{x}") for x in range(nv)]  # a path from an input avoids D up to x
    base = []
    inputs = {int(x) for x in dag.inputs}
    for x in range(nv):  # vertices are numbered in a topological order
        preds = [int(p) for p in dag.predecessors(x)]
        came = z3.BoolVal(True) if x in inputs else z3.Or([reach[p] for p in preds])
        base.append(reach[x] == z3.And(z3.Not(xd[x]), came))
        base.append(z3.Implies(xv[x], z3.Not(reach[x])))
    xmin = [z3.And(xv[x], *[z3.Not(xv[int(s)]) for s in dag.successors(x)]) for x in range(nv)]
    return xv, xd, base, xmin


def _count(bits) -> z3.ArithRef:
    return z3.Sum([z3.If(b, 1, 0) for b in bits]) if bits else z3.IntVal(0)


def _lemma_one_fails(sq: Support, sk: Support, *, weakened: bool = False) -> bool:
    """Whether some (V, D) breaks Lemma 1 (``weakened``: without the t products in D)."""
    dag, roles = _graph(sq, sk)
    xv, xd, base, _ = _encoding(dag)
    prods = list(roles["products"].values())
    held = _count([xv[p] for p in prods])
    t = _count([z3.And(xv[p], xd[p]) for p in prods])
    uv = _count([z3.And(xd[a], xd[b]) for a in roles["Q"].values() for b in roles["K"].values()])
    solver = z3.Solver()
    solver.set("rlimit", 50_000_000)
    solver.add(*base)
    solver.add(held > (uv if weakened else t + uv))
    answer = solver.check()
    assert answer != z3.unknown
    return answer == z3.sat


def _lemma_two_fails(
    sq: Support, sk: Support, block: tuple, *, slack: int = 2, rows_term: bool = True
) -> bool:
    """Whether some (V, D) breaks Lemma 2 for ``block`` = (R, R', C); ``slack`` and
    ``rows_term`` weaken it (S c in place of 2 S c; no c a b)."""
    rows_q, rows_k, cols = block
    dag, roles = _graph(sq, sk)
    xv, xd, base, xmin = _encoding(dag)
    c = len(cols)
    held = _count([xv[roles["products"][i, j, l]] for i in rows_q for j in rows_k for l in cols])
    whole_q = {i: z3.And([xd[roles["Q"][i, l]] for l in cols]) for i in rows_q}
    whole_k = {j: z3.And([xd[roles["K"][j, l]] for l in cols]) for j in rows_k}
    ab = _count([z3.And(whole_q[i], whole_k[j]) for i in rows_q for j in rows_k])
    rows = c * ab if rows_term else 0
    solver = z3.Solver()
    solver.set("rlimit", 50_000_000)
    solver.add(*base)
    solver.add(held > rows + slack * c * _count(xd), held > rows + slack * c * _count(xmin))
    answer = solver.check()
    assert answer != z3.unknown
    return answer == z3.sat


def _block(m: int, c: int, col0: int = 0) -> Support:
    return frozenset((i, l) for i in range(m) for l in range(col0, col0 + c))


RANK_ONE = (_block(3, 1), _block(3, 1))
EMBEDDED = (  # a 2 x 1 block on column 0 inside larger supports
    _block(2, 1) | {(0, 1), (2, 1), (2, 0)},
    _block(2, 1) | {(1, 1), (2, 1)},
)
PATTERNS = [
    ("block-2x2", _block(2, 2), _block(2, 2)),
    ("rank-one-3", *RANK_ONE),
    ("embedded", *EMBEDDED),
    ("skew", frozenset({(0, 0), (0, 1), (1, 1), (2, 0)}), frozenset({(0, 1), (1, 0), (2, 1)})),
]


@pytest.mark.parametrize(("name", "sq", "sk"), PATTERNS, ids=[p[0] for p in PATTERNS])
def test_lemma_one_holds_on_every_part_and_dominator_set(name: str, sq, sk) -> None:
    """No part V and dominator set D of a sparse-inputs score graph hold more than t + u v
    products (t in D, u and v the Q and K inputs in D)."""
    assert not _lemma_one_fails(sq, sk)


def test_lemma_one_without_the_products_in_d_fails() -> None:
    """Dropping t (a product in D needs no operand in D) is false: the check can fail."""
    assert _lemma_one_fails(*RANK_ONE, weakened=True)


BLOCKS = [
    ("block-2x2", _block(2, 2), _block(2, 2), ((0, 1), (0, 1), (0, 1))),
    ("block-3x1", *RANK_ONE, ((0, 1, 2), (0, 1, 2), (0,))),
    ("embedded", *EMBEDDED, ((0, 1), (0, 1), (0,))),
]


@pytest.mark.parametrize(("name", "sq", "sk", "block"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_lemma_two_holds_for_a_block_inside_any_support(name: str, sq, sk, block) -> None:
    """No (V, D) holds more than c a b + 2 S c products of a common dense block, also when
    the supports hold nonzeros outside it."""
    assert not _lemma_two_fails(sq, sk, block)


def test_lemma_two_without_its_rows_term_fails() -> None:
    """Without c a b (the pairs whose rows are wholly in D) and with S c for 2 S c the count
    is false: the check can fail."""
    block = ((0, 1, 2), (0, 1, 2), (0,))
    assert _lemma_two_fails(*RANK_ONE, block, slack=1, rows_term=False)


def test_the_block_record_is_below_belady_on_the_block_pattern() -> None:
    """On B(m, c) the worst-pattern record Z_in^2 / (8M) - M (Z_in = m c, Z_QK = m^2, M >=
    c^2) and the every-instance record Z_QK / M - M are at most Belady's I/O, forward and
    backward records alike, at every M of a sweep."""
    m, c = 16, 2
    dag, _ = _graph(_block(m, c), _block(m, c))
    point = {"n": m, "d": c, "Z_in": m * c, "Z_QK": m * m}
    checked = 0
    for M in range(max(c * c, dag.min_memory), 12):
        io = solve_heuristic(dag, M).io
        for name in (
            "sparse-forward-lower-inputs-block",
            "sparse-backward-lower-inputs-block",
            "sparse-forward-lower-inputs-scores",
        ):
            record = get(name)
            if record.applies(M=M, **point):
                assert record.evaluate(M=M, **point) <= io, (name, M, io)
                checked += 1
    assert checked >= 10


def test_the_score_stage_of_the_cross_pattern_costs_about_the_inputs() -> None:
    """The instance of sparse-inputs.md section 6 (d = 2; Q nonzero on column 1 and at
    (0, 0), K on column 0 and at (0, 1): Z_in = n + 1 each, Z_QK = 2n - 1): Belady
    computes every score within 3n + 2 moves, while the reconstructed shape's branches are
    larger: no every-instance proof from the scores alone."""
    n, M = 400, 16
    sq = frozenset({(i, 1) for i in range(n)} | {(0, 0)})
    sk = frozenset({(j, 0) for j in range(n)} | {(0, 1)})
    dag, roles = _graph(sq, sk)
    z_in, z_qk = n + 1, len(roles["trees"])
    assert (len(sq), len(sk), z_qk) == (z_in, z_in, 2 * n - 1)
    io = solve_heuristic(dag, M).io
    assert io <= 3 * n + 2
    assert min(z_in**2 / M, math.sqrt(z_qk) * z_in / math.sqrt(M)) > 2 * io


def test_the_block_records_apply_only_where_their_pattern_exists() -> None:
    """Wherever a block record applies (integers n, d, M, Z_in, Z_QK of a grid), the
    single-block pattern with m = Z_in / d dense rows of Q and K has exactly Z_in nonzeros in
    each, Z_QK nonzero scores, and m <= n: the worst case it names exists."""
    applied = 0
    for name in ("sparse-forward-lower-inputs-block", "sparse-backward-lower-inputs-block"):
        record = get(name)
        for n in (9,):
            for d in (2, 3):
                for z_in in range(1, n * d + 1):
                    for z_qk in range(1, n * n + 1):
                        for M in (4,):
                            point = {"n": n, "d": d, "M": M, "Z_in": z_in, "Z_QK": z_qk}
                            if not record.applies(**point):
                                continue
                            m, rest = divmod(z_in, d)
                            assert rest == 0 and m * m == z_qk and m <= n, (name, point)
                            sq = _block(m, d)
                            _, roles = _graph(sq, sq)
                            assert (len(sq), len(roles["trees"])) == (z_in, z_qk)
                            applied += 1
    assert applied >= 4
