"""The hand-proved part lemmas of the dense lower bounds, checked on every vertex set of a graph.

The derivations of ``proofs/derivations/lower-*.md`` rest on combinatorial lemmas about one
part V of a partition: a dominator set D of V (every path from an input to a vertex of V
meets D) and the minimum set Min of V (its vertices with no successor in V). Each lemma is
stated here as a predicate on (V, D), with the graph's structures (score trees, dP trees,
pair chains, row sets, accumulator trees) taken from :mod:`attnio.pebble.classes`, where
they are read off the edges:

``pair-chain``
    ``lower-sharp.md`` Lemma 1: a second-stage product u in V \\ D whose pair chain C_ij
    has no vertex of D has its operand, and every input its chain reads (forward Q_il,
    K_jl for every l; backward for dS K and dS Q also dO_ik, V_jk for every k, L_i and a
    vertex of R_i or the whole row O_i), in D.
``accumulator``
    ``lower-sharp.md`` Lemma 2: every accumulator tree that holds a vertex of V holds a
    vertex of Min.
``score-tree``
    ``lower-twostage.md`` Lemma 3: a product Q_il K_jl in V \\ D has Q_il and K_jl in D,
    and its pair has a vertex of Min in the score tree, a vertex of D in C_ij, or both
    rows q_i and k_j wholly in D.
``dp-tree``
    ``lower-families.md`` Lemma 4: the same for dO_ik V_jk, the dP tree and the rows dO_i,
    v_j (backward).
``per-part``
    ``lower-large.md`` section 2: V holds at most d a b + 2 S d products Q_il K_jl, with
    S = max(\\|D\\|, \\|Min\\|) and a, b the rows of Q and K wholly in D.
``touched-pairs``
    ``lower-small.md``: the pairs with a product Q_il K_jl in V number at most 2S + a b.

Two checkers decide "the lemma holds for every (V, D) of the graph, D any dominator set of
V": :func:`check` (z3 over the indicator variables of V and D, the usual reachability
encoding of domination; unsat proves the lemma on the graph, a model is a counterexample
that :func:`holds` re-evaluates before it is returned) and :func:`check_exhaustively`, the
slow obvious reference that enumerates every pair of vertex sets (graphs of at most
:data:`MAX_ENUMERATED` vertices). Neither prunes by symmetry. V may hold any vertex, inputs
included, and D need not be minimal or bounded: that quantifies over more sets than a part
of an S-partition, so a pass covers every such part.

The pebbling lemmas (``lower-segments.md``'s segment lemma, ``lower-accumulators.md``'s
witness-tree lemma and the pair-chain lemma in its witness form) quantify over pebblings,
not vertex sets, and are not checked here.

References
----------
HK81 (S-partitions, dominator and minimum sets); proofs/derivations/*.md (the lemmas).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

import z3

from .builders import BUILDERS, TREE_SHAPES, build
from .classes import structures
from .dag import Dag
from .errors import PebbleParameterError

__all__ = [
    "KINDS",
    "LEMMAS",
    "MAX_ENUMERATED",
    "USES",
    "LemmaCheck",
    "Structure",
    "check",
    "check_exhaustively",
    "dominates",
    "graphs",
    "holds",
    "sweep",
]

LEMMAS = ("pair-chain", "accumulator", "score-tree", "dp-tree", "per-part", "touched-pairs")
"""The part lemmas, in the order of the module docstring."""

_BACKWARD_ONLY = ("dp-tree",)

USES: dict[str, tuple[str, ...]] = {
    "lower-large": ("per-part",),
    "lower-small": ("score-tree", "touched-pairs"),
    "lower-sharp": ("pair-chain", "accumulator"),
    "lower-twostage": ("pair-chain", "accumulator", "score-tree"),
    "lower-families": ("pair-chain", "accumulator", "score-tree", "dp-tree"),
    "lower-segments": ("pair-chain", "accumulator", "score-tree", "dp-tree"),
    "lower-accumulators": ("pair-chain", "accumulator"),
}
"""The part lemmas each derivation uses (its own and those it quotes); ``dp-tree`` only
backward. ``lower-small`` uses only the first clause of ``score-tree`` (operands of a
product outside D are in D)."""

MAX_ENUMERATED = 10
"""The largest graph :func:`check_exhaustively` enumerates (at most 4^10 pairs of sets)."""


@dataclass(frozen=True)
class Structure:
    """The vertex sets of one attention graph the lemmas talk about.

    Attributes
    ----------
    dag : Dag
        The graph.
    n, d : int
        Its sizes.
    backward : bool
        Whether it is a backward graph.
    products : tuple
        Second-stage products: (family, i, j, x, vertex, operand, output key).
    chains : dict
        Pair -> the pair chain C_ij (``classes``' pair-chains).
    rows : dict
        Row -> the row set R_i (backward; empty forward).
    accumulators : dict
        Output key -> its accumulator tree (products, partial sums, output).
    stages : dict
        ``"QK"`` (and backward ``"dOV"``) -> list of (i, j, x, vertex, left, right) with
        left, right the two input operands.
    trees : dict
        ``"QK"``/``"dOV"`` -> pair -> the score tree or dP tree.
    inputs : dict
        (name, index) -> input vertex (Q, K, V, and backward O, dO, L).
    """

    dag: Dag
    n: int
    d: int
    backward: bool
    products: tuple[tuple[str, int, int, int, int, int, tuple[str, int, int]], ...]
    chains: dict[tuple[int, int], frozenset[int]]
    rows: dict[int, frozenset[int]]
    accumulators: dict[tuple[str, int, int], frozenset[int]]
    stages: dict[str, tuple[tuple[int, int, int, int, int, int], ...]]
    trees: dict[str, dict[tuple[int, int], frozenset[int]]]
    inputs: dict[tuple[str, tuple[int, ...]], int]

    @classmethod
    def of(cls, dag: Dag, *, mask: object = None) -> Structure:
        """Read the structures of ``dag`` (:func:`attnio.pebble.classes.structures`), over
        the allowed pairs of ``mask`` if given (a masked graph, ``mask-lower.md``).

        Raises
        ------
        PebbleParameterError
            ``dag`` is not in the class of ``lower-families`` (every structure above), or
            with ``mask``, in the masked class over it.
        """
        g = structures(dag, mask=mask)
        return cls(
            dag,
            g.n,
            g.d,
            g.backward,
            tuple(g.products),
            {p: frozenset(c) for p, c in g.chains.items()},
            {r: frozenset(s) for r, s in g.rows.items()},
            {k: frozenset(s) for k, s in g.accumulators.items()},
            {k: tuple(v) for k, v in g.stages.items()},
            {s: {p: frozenset(t) for p, t in ts.items()} for s, ts in g.trees.items()},
            dict(g.inputs),
        )

    def row(self, name: str, i: int) -> list[int]:
        """The input vertices of row ``i`` of ``name`` (Q, K, V, O, dO)."""
        return [self.inputs[name, (i, x)] for x in range(self.d)]


# ------------------------------------------------------------------ the predicates
class _Sets:
    """Set operations for the predicates: plain Python on concrete (V, D)."""

    def __init__(self, s: Structure, part: set[int], dom: set[int]) -> None:
        self.part, self.dom = part, dom
        succ = [set(s.dag.successors(v).tolist()) for v in range(s.dag.num_vertices)]
        self.minimum = {v for v in part if not succ[v] & part}

    def v(self, x: int) -> bool:
        return x in self.part

    def d(self, x: int) -> bool:
        return x in self.dom

    def m(self, x: int) -> bool:
        return x in self.minimum

    @staticmethod
    def all(xs: Iterable[bool]) -> bool:
        return all(xs)

    @staticmethod
    def any(xs: Iterable[bool]) -> bool:
        return any(xs)

    @staticmethod
    def neg(x: bool) -> bool:
        return not x

    @staticmethod
    def implies(a: bool, b: bool) -> bool:
        return (not a) or b

    def at_most(self, held: list[bool], pairs: list[bool], w_pairs: int, w_size: int) -> bool:
        """Whether sum(held) <= w_pairs * sum(pairs) + w_size * max(|D|, |Min|)."""
        size = max(len(self.dom), len(self.minimum))
        return sum(held) <= w_pairs * sum(pairs) + w_size * size


class _Formulas:
    """The same operations on z3 terms over the indicators of V, D and Min."""

    def __init__(self, s: Structure) -> None:
        dag = s.dag
        nv = dag.num_vertices
        self.xv = [z3.Bool(f"v{x}") for x in range(nv)]
        self.xd = [z3.Bool(f"d{x}") for x in range(nv)]
        reach = [z3.Bool(f"r{x}") for x in range(nv)]
        self.base = []
        for x in range(nv):  # reach over-approximates what inputs reach avoiding D
            preds = [reach[int(p)] for p in dag.predecessors(x)]
            src = z3.BoolVal(True) if not preds else z3.Or(preds)
            self.base.append(z3.Implies(z3.And(z3.Not(self.xd[x]), src), reach[x]))
            self.base.append(z3.Not(z3.And(reach[x], self.xv[x])))
        self.xm = [
            z3.And(self.xv[x], *[z3.Not(self.xv[int(w)]) for w in dag.successors(x)])
            for x in range(nv)
        ]

    def v(self, x: int):
        return self.xv[x]

    def d(self, x: int):
        return self.xd[x]

    def m(self, x: int):
        return self.xm[x]

    @staticmethod
    def all(xs: Iterable) -> z3.BoolRef:
        return z3.And(list(xs))

    @staticmethod
    def any(xs: Iterable) -> z3.BoolRef:
        return z3.Or(list(xs))

    @staticmethod
    def neg(x):
        return z3.Not(x)

    @staticmethod
    def implies(a, b):
        return z3.Implies(a, b)

    def at_most(self, held: list, pairs: list, w_pairs: int, w_size: int) -> z3.BoolRef:
        """sum(held) <= w_pairs * sum(pairs) + w_size * max(|D|, |Min|), as the negation
        of two pseudo-Boolean constraints (one per set the maximum may come from)."""
        over = [
            z3.PbGe(
                [(h, 1) for h in held]
                + [(p, -w_pairs) for p in pairs if w_pairs]
                + [(x, -w_size) for x in size],
                1,
            )
            for size in (self.xd, self.xm)
        ]
        return z3.Not(z3.And(over))


def _clauses(s: Structure, lemma: str, o, mutant: bool = False) -> list:
    """The lemma as a list of claims, each true or a z3 term (the lemma is their conjunction).

    ``mutant`` states a weaker-hypothesis or stronger-conclusion variant that is false,
    so that a check can be seen to fail: pair-chain without "C_ij has no vertex of D";
    accumulator with Min sought among the tree's products only; score-tree and dP-tree
    without their rows alternative; per-part with S d in place of d a b + 2 S d; touched-pairs
    with S in place of 2S + a b (these two fail from n = 3, d = 1 on).
    """
    n, d = s.n, s.d
    out = []
    if lemma == "pair-chain":
        for fam, i, j, x, u, y, _root in s.products:
            need = [o.d(y)] + [o.d(q) for q in s.row("Q", i) + s.row("K", j)]
            if fam in ("dSK", "dSQ"):
                need += [o.d(q) for q in s.row("dO", i) + s.row("V", j)]
                need.append(o.d(s.inputs["L", (i,)]))
                need.append(
                    o.any([o.d(r) for r in s.rows[i]] + [o.all(o.d(q) for q in s.row("O", i))])
                )
            elif fam == "PdO":
                need.append(o.d(s.inputs["dO", (i, x)]))
            quiet = o.all(o.neg(o.d(c)) for c in s.chains[i, j])
            hypotheses = [o.v(u), o.neg(o.d(u))] + ([] if mutant else [quiet])
            out.append(o.implies(o.all(hypotheses), o.all(need)))
    elif lemma == "accumulator":
        leaves = {u for *_, u, _y, _root in s.products}
        for tree in s.accumulators.values():
            held = [t for t in tree if t in leaves] if mutant else tree
            out.append(o.implies(o.any(o.v(t) for t in tree), o.any(o.m(t) for t in held)))
    elif lemma in ("score-tree", "dp-tree"):
        stage, left, right = ("QK", "Q", "K") if lemma == "score-tree" else ("dOV", "dO", "V")
        for i, j, _x, u, a, b in s.stages[stage]:
            rows = o.all(o.d(q) for q in s.row(left, i) + s.row(right, j))
            alternatives = [
                o.any(o.m(t) for t in s.trees[stage][i, j]),
                o.any(o.d(c) for c in s.chains[i, j]),
            ] + ([] if mutant else [rows])
            claim = o.all([o.d(a), o.d(b), o.any(alternatives)])
            out.append(o.implies(o.all([o.v(u), o.neg(o.d(u))]), claim))
    elif lemma in ("per-part", "touched-pairs"):
        row_q = [o.all(o.d(q) for q in s.row("Q", i)) for i in range(n)]
        row_k = [o.all(o.d(k) for k in s.row("K", j)) for j in range(n)]
        ab = [o.all([row_q[i], row_k[j]]) for i in range(n) for j in range(n)]
        if lemma == "per-part":
            held = [o.v(u) for _i, _j, _x, u, _a, _b in s.stages["QK"]]
            weights = (0, d) if mutant else (d, 2 * d)
        else:
            by_pair: dict[tuple[int, int], list[int]] = {}
            for i, j, _x, u, _a, _b in s.stages["QK"]:
                by_pair.setdefault((i, j), []).append(u)
            held = [o.any(o.v(u) for u in us) for us in by_pair.values()]
            weights = (0, 1) if mutant else (1, 2)
        out.append(o.at_most(held, ab, *weights))
    else:
        raise PebbleParameterError(f"lemma={lemma!r} must be one of {LEMMAS}")
    return out


def dominates(dag: Dag, dom: set[int], part: set[int]) -> bool:
    """Whether every path from an input to a vertex of ``part`` meets ``dom``."""
    seen, stack = set(), [int(v) for v in dag.inputs if int(v) not in dom]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        if v in part:
            return False
        seen.add(v)
        stack.extend(int(w) for w in dag.successors(v) if int(w) not in dom)
    return True


def holds(s: Structure, lemma: str, part: set[int], dom: set[int], mutant: bool = False) -> bool:
    """Whether ``lemma`` holds for the part ``part`` with dominator set ``dom``.

    Raises
    ------
    PebbleParameterError
        ``dom`` does not dominate ``part``, or the lemma is unknown or backward-only.
    """
    _known(s, lemma)
    if not dominates(s.dag, dom, part):
        raise PebbleParameterError("dom is not a dominator set of part")
    return all(_clauses(s, lemma, _Sets(s, part, dom), mutant))


def _known(s: Structure, lemma: str) -> None:
    if lemma not in LEMMAS:
        raise PebbleParameterError(f"lemma={lemma!r} must be one of {LEMMAS}")
    if lemma in _BACKWARD_ONLY and not s.backward:
        raise PebbleParameterError(f"lemma={lemma!r} is a lemma of backward graphs")


@dataclass(frozen=True)
class LemmaCheck:
    """The answer of a check of one lemma on every (V, D) of one graph.

    Attributes
    ----------
    lemma : str
        The lemma.
    status : str
        ``"holds"`` (no counterexample exists), ``"fails"`` (a re-evaluated
        counterexample) or ``"unknown"`` (z3 stopped at its resource limit).
    part, dominators : frozenset of int
        The counterexample (empty unless it fails).
    seconds : float
        Wall-clock time of the check.
    """

    lemma: str
    status: str
    part: frozenset[int] = frozenset()
    dominators: frozenset[int] = frozenset()
    seconds: float = 0.0


def check(
    s: Structure, lemma: str, *, mutant: bool = False, rlimit: int = 50_000_000
) -> LemmaCheck:
    """Decide with z3 whether ``lemma`` holds on every part of the graph and every dominator set.

    Unsat of "D dominates V and the lemma fails" proves the lemma on the graph; a model is
    decoded and re-evaluated by :func:`holds` (plain Python) before it is reported.

    Raises
    ------
    PebbleParameterError
        Unknown or backward-only lemma.
    AssertionError
        A z3 model that the plain predicate does not confirm (an encoding bug).
    """
    _known(s, lemma)
    start = time.perf_counter()
    o = _Formulas(s)
    solver = z3.SolverFor("QF_FD")  # Booleans and pseudo-Boolean sums only
    solver.set("rlimit", rlimit)
    solver.add(*o.base)
    claims = _clauses(s, lemma, o, mutant)
    solver.add(z3.Not(z3.And(claims)) if claims else z3.BoolVal(False))
    answer = solver.check()
    seconds = time.perf_counter() - start
    if answer == z3.unsat:
        return LemmaCheck(lemma, "holds", seconds=seconds)
    if answer == z3.unknown:
        return LemmaCheck(lemma, "unknown", seconds=seconds)
    model = solver.model()
    nv = s.dag.num_vertices
    part = {x for x in range(nv) if z3.is_true(model.eval(o.xv[x], model_completion=True))}
    dom = {x for x in range(nv) if z3.is_true(model.eval(o.xd[x], model_completion=True))}
    assert not holds(s, lemma, part, dom, mutant), "z3 model is not a counterexample"
    return LemmaCheck(lemma, "fails", frozenset(part), frozenset(dom), seconds)


def check_exhaustively(s: Structure, lemma: str, *, mutant: bool = False) -> LemmaCheck:
    """The slow obvious reference: every pair (V, D) of vertex sets with D dominating V.

    Raises
    ------
    PebbleParameterError
        The graph has more than :data:`MAX_ENUMERATED` vertices; unknown lemma.
    """
    _known(s, lemma)
    nv = s.dag.num_vertices
    if nv > MAX_ENUMERATED:
        raise PebbleParameterError(
            f"dag has {nv} vertices; check_exhaustively takes at most {MAX_ENUMERATED}"
        )
    start = time.perf_counter()
    for mask in range(1 << nv):  # every D; then every V among what D cuts off
        dom = {x for x in range(nv) if mask >> x & 1}
        free = [x for x in range(nv) if dominates(s.dag, dom, {x})]
        for bits in range(1 << len(free)):
            part = {x for k, x in enumerate(free) if bits >> k & 1}
            if not all(_clauses(s, lemma, _Sets(s, part, dom), mutant)):
                return LemmaCheck(
                    lemma, "fails", frozenset(part), frozenset(dom), time.perf_counter() - start
                )
    return LemmaCheck(lemma, "holds", seconds=time.perf_counter() - start)


# ------------------------------------------------------------------ the sweep
KINDS = (
    "attention-forward",
    "sy24-forward",
    "online-forward",
    "blockwise-forward",
    "streaming-forward",
    "stationary-forward",
    "twopass-forward",
    "attention-backward",
)
"""The graphs the derivations name (their "Graph class" sections)."""


def graphs(kind: str, n: int, d: int) -> list[tuple[str, Dag]]:
    """Every variant of one graph: both tree shapes and, where it applies, every key block."""
    blocks = range(1, n + 1) if "block" in BUILDERS[kind].parameters else (1,)
    out = []
    for tree in TREE_SHAPES:
        for block in blocks:
            options = {"tree": tree}
            if "block" in BUILDERS[kind].parameters:
                options["block"] = block
            label = f"tree={tree}" + (f",block={block}" if "block" in options else "")
            out.append((label, build(kind, n, d, **options)))
    return out


def sweep(
    sizes: Iterable[tuple[int, int]], kinds: Iterable[str] = KINDS, *, rlimit: int = 50_000_000
) -> list[tuple[str, int, int, str, int, LemmaCheck]]:
    """Check every lemma on every variant of every graph of ``kinds`` at ``sizes``.

    Returns rows (kind, n, d, variant, vertices, check); every lemma of :data:`LEMMAS` that
    applies to the graph's pass.
    """
    rows = []
    for kind in kinds:
        for n, d in sizes:
            for label, dag in graphs(kind, n, d):
                s = Structure.of(dag)
                for lemma in LEMMAS:
                    if lemma in _BACKWARD_ONLY and not s.backward:
                        continue
                    rows.append(
                        (kind, n, d, label, dag.num_vertices, check(s, lemma, rlimit=rlimit))
                    )
    return rows
