"""Public hypothesis strategies for property tests of attention I/O bounds.

attnio's own tests draw from these (``tests/strategies.py`` re-exports them), and so
can anyone's: ``from attnio.testing import points, attention_dags``.

- parameter points: :func:`parameter_points` (every catalog symbol, consistent),
  :func:`points` (inside a bound's conditions, per regime cell, with M at least a
  feasibility minimum and sparse densities of an actual tile mask);
- DAGs: :func:`attention_dags` (every builder of :mod:`attnio.pebble.builders`),
  :func:`dags`, :func:`connected_dags` (random small DAGs), :func:`dag_and_memory`;
- masks: :func:`masks` (n x n attention masks), :func:`block_masks`, :func:`tile_masks`;
- moves: :func:`move_sequences` (legal pebblings, replayed), :func:`topological_orders`;
- sizes: :func:`problem_sizes` for the two-level machine;
- proofs: :func:`proof_expressions`, :func:`proof_points`.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from attnio.bounds import Bound, catalog
from attnio.bounds.consistency import strip_mask_point
from attnio.bounds.symbols import feature_rank
from attnio.pebble.dag import Dag

# ----------------------------------------------------------------------------- bounds


@st.composite
def tile_mask_point(draw: st.DrawFn, n: int, memory: int) -> dict[str, object]:
    """s, s_c and Z of a tile mask of sparse square tiling at (n, M): a random mask when it
    has at most 24 x 24 tiles, else a strip mask (:func:`strip_mask_point`)."""
    from attnio.algorithms.masks import column_weighted_density, expand, row_weighted_density

    tile = max(1, math.isqrt(memory // 4))
    bands = -(-n // tile)
    if bands > 24:
        return strip_mask_point(n, memory, sp.Rational(draw(st.integers(1, 64)), 64))
    coarse = draw(block_masks(bands, bands))
    return {
        "s": sp.Rational(row_weighted_density(coarse, n, tile)),
        "s_c": sp.Rational(column_weighted_density(coarse, n, tile)),
        "Z": int(expand(coarse, n, tile, tile).sum()),
    }


@st.composite
def parameter_points(draw: st.DrawFn, max_n: int = 4096) -> dict[str, object]:
    """A consistent assignment of every catalog symbol: d <= n, n <= Z <= n^2, w <= n, r = C(d+g, g);
    s, s_c and Z are the densities and allowed pairs of one tile mask (:func:`tile_mask_point`);
    n_q, n_kv and the heads a shape (:func:`shape_point`)."""
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, min(n, 256)))
    memory = draw(st.one_of(st.integers(1, 4 * d * d + 8), st.integers(1, n * d + 1)))
    g = draw(st.integers(0, 4))
    return {
        "n": n,
        "d": d,
        "M": memory,
        **draw(tile_mask_point(n, memory)),
        "Z_QK": draw(st.integers(n, n * n)),
        "Z_in": draw(st.integers(1, n * d)),
        "g": g,
        "r": int(feature_rank(d, g)),
        "B": sp.Rational(draw(st.integers(1, 40)), 10),
        "epsilon": sp.Rational(1, draw(st.integers(2, 10**6))),
        "w": draw(st.integers(1, n)),
        **draw(shape_point(n)),
    }


@st.composite
def shape_point(draw: st.DrawFn, max_n: int = 4096) -> dict[str, int]:
    """n_q, n_kv in [1, max_n], h_kv in [1, 8] and h_q a multiple of it, at most 64."""
    h_kv = draw(st.integers(1, 8))
    return {
        "n_q": draw(st.integers(1, max_n)),
        "n_kv": draw(st.integers(1, max_n)),
        "h_q": h_kv * draw(st.integers(1, 64 // h_kv)),
        "h_kv": h_kv,
    }


def records(*, with_explicit: bool = False) -> st.SearchStrategy[Bound]:
    """Catalog records, optionally only those with an explicit expression."""
    pool = [b for b in catalog() if b.asymptotic is not None]
    if with_explicit:
        pool = [b for b in pool if b.explicit is not None]
    return st.sampled_from(pool)


def restrict(point: dict[str, object], bound: Bound) -> dict[str, object]:
    """The entries of ``point`` that ``bound`` uses."""
    return {name: point[name] for name in bound.parameters}


# ---------------------------------------------------------------- attnio.pebble (pebble-core)


@st.composite
def edge_lists(draw, min_vertices: int = 1, max_vertices: int = 9):
    """``(count, edges)`` of a random DAG: edges go from smaller to larger positions."""
    count = draw(st.integers(min_vertices, max_vertices))
    pairs = [(u, v) for v in range(count) for u in range(v)]
    chosen = (
        draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))) if pairs else []
    )
    return count, sorted(chosen)


@st.composite
def dags(draw, min_vertices: int = 1, max_vertices: int = 9, shuffle: bool = True):
    """A random :class:`Dag`; with ``shuffle`` the vertices are given in a random order
    (so the constructor has to renumber them) under random distinct labels."""
    count, edges = draw(edge_lists(min_vertices, max_vertices))
    if not shuffle:
        return Dag.from_edges(count, edges)
    perm = draw(st.permutations(range(count)))
    labels = [f"v{p}" for p in perm]
    # vertex u of the drawn DAG sits at position perm.index(u) of the input
    where = {u: i for i, u in enumerate(perm)}
    return Dag.from_edges(labels, [(where[u], where[v]) for u, v in edges])


@st.composite
def dag_and_memory(draw, min_vertices: int = 1, max_vertices: int = 9, extra: int = 4):
    """A random DAG and a legal number of red pebbles (min_memory .. min_memory + extra)."""
    dag = draw(dags(min_vertices, max_vertices))
    M = draw(st.integers(dag.min_memory, dag.min_memory + extra))
    return dag, M


@st.composite
def topological_orders(draw, dag: Dag) -> np.ndarray:
    """A random topological order of the non-input vertices of ``dag``."""
    indegree = dag.indegree.copy()
    waiting = indegree.copy()
    for v in np.flatnonzero(indegree == 0):
        waiting[dag.successors(v)] -= 1
    ready = sorted(int(v) for v in np.flatnonzero((indegree > 0) & (waiting == 0)))
    order = []
    while ready:
        v = ready.pop(draw(st.integers(0, len(ready) - 1)))
        order.append(v)
        for s in dag.successors(v).tolist():
            waiting[s] -= 1
            if waiting[s] == 0:
                ready.append(s)
    return np.asarray(order, dtype=np.int64)


# ---------------------------------------------------------------- attnio.pebble (pebble-exact)
variants = st.sampled_from(("standard", "oneshot"))
"""The two game variants of docs/game.md."""


@st.composite
def relabellings(draw, dag: Dag) -> Dag:
    """An isomorphic copy of ``dag``: vertices given in a random order under fresh labels."""
    count = dag.num_vertices
    perm = draw(st.permutations(range(count)))
    where = {u: i for i, u in enumerate(perm)}
    labels = [f"w{draw(st.integers(0, 9))}_{i}" for i in range(count)]
    edges = [(where[u], where[v]) for u, v in dag.edges().tolist()]
    return Dag.from_edges(labels, edges)


@st.composite
def connected_dags(draw, min_vertices: int = 2, max_vertices: int = 8) -> Dag:
    """A random DAG with about half of all forward pairs as edges (denser than ``dags``),
    vertices given in a random order under fresh labels."""
    count = draw(st.integers(min_vertices, max_vertices))
    pairs = [(u, v) for v in range(count) for u in range(v)]
    edges = [pair for pair in pairs if draw(st.booleans())]
    perm = draw(st.permutations(range(count)))
    where = {u: i for i, u in enumerate(perm)}
    return Dag.from_edges([f"u{p}" for p in perm], [(where[u], where[v]) for u, v in edges])


@st.composite
def pebbling_instances(draw, min_vertices: int = 1, max_vertices: int = 8, extra: int = 3):
    """A DAG (sparse from ``dags`` or dense from ``connected_dags``) and a legal M."""
    dag = draw(
        st.one_of(
            dags(min_vertices, max_vertices),
            connected_dags(max(2, min_vertices), max_vertices),
        )
    )
    M = draw(st.integers(dag.min_memory, dag.min_memory + extra))
    return dag, M


@st.composite
def symmetric_instances(draw, max_vertices: int = 9, extra: int = 2):
    """A DAG with a non-trivial automorphism and a legal M: a random DAG's non-inputs
    doubled, the copies sharing the inputs (swapping the copies is the automorphism),
    vertices given in a random order; at most ``max_vertices`` vertices."""
    count, edges = draw(edge_lists(2, (max_vertices + 1) // 2))
    if not edges:
        edges = [(0, 1)]
    has_pred = {v for _, v in edges}
    inner = [v for v in range(count) if v in has_pred]
    twin = {v: count + k for k, v in enumerate(inner)}
    copied = [(twin.get(u, u), twin[v]) for u, v in edges]
    total = count + len(inner)
    perm = draw(st.permutations(range(total)))
    where = {u: i for i, u in enumerate(perm)}
    dag = Dag.from_edges(
        [f"s{p}" for p in perm], [(where[u], where[v]) for u, v in [*edges, *copied]]
    )
    M = draw(st.integers(dag.min_memory, dag.min_memory + extra))
    return dag, M


@st.composite
def pattern_choices(draw, dag: Dag, max_size: int = 5):
    """``(vertices, charged)``: a random nonempty vertex set of ``dag`` (increasing) and a
    random subset of it whose loads and stores the pattern charges."""
    size = draw(st.integers(1, min(max_size, dag.num_vertices)))
    vertices = sorted(draw(st.lists(st.integers(0, dag.num_vertices - 1), min_size=size,
                                    max_size=size, unique=True)))  # fmt: skip
    charged = frozenset(v for v in vertices if draw(st.booleans()))
    return tuple(vertices), charged


# ---------------------------------------------------------------- attnio.algorithms


@st.composite
def problem_sizes(draw, max_n: int = 40, max_d: int = 9, max_memory: int | None = None):
    """Draw (n, d, M): n, d small, M anywhere from 1 to above n d (often off block multiples)."""
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    top = max_memory if max_memory is not None else 3 * n * d + 60
    M = draw(
        st.one_of(
            st.integers(1, top),
            st.sampled_from([d * d, d * d - 1, 5 * d + 4, 10 * d + 2, 9 * d + 2, 5 * d + 3]),
        )
    )
    return n, d, max(M, 1)


@st.composite
def block_masks(draw, rows: int, cols: int):
    """Draw a boolean block mask of shape (rows, cols) with no empty row."""
    import numpy as np

    flat = draw(st.lists(st.booleans(), min_size=rows * cols, max_size=rows * cols))
    mask = np.array(flat, dtype=bool).reshape(rows, cols)
    for i in range(rows):
        if not mask[i].any():
            mask[i, draw(st.integers(0, cols - 1))] = True
    return mask


@st.composite
def tile_masks(draw, max_n: int = 40, max_d: int = 6, max_memory: int = 400):
    """Draw (n, d, M, tile mask) for sparse square tiling: T = floor(sqrt(M/4)) often not
    dividing n, the mask's shape (T_n, T_n), no row band empty."""
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    M = draw(st.integers(4, max_memory))
    bands = -(-n // math.isqrt(M // 4))
    return n, d, M, draw(block_masks(bands, bands))


# ---------------------------------------------------------------- attnio.proofs
from attnio.bounds.symbols import M as _M  # noqa: E402
from attnio.bounds.symbols import d as _d  # noqa: E402
from attnio.bounds.symbols import n as _n  # noqa: E402

PROOF_SYMBOLS = (_n, _d, _M)
"""The symbols proof expressions are drawn over (positive integers)."""


def _proof_leaves() -> st.SearchStrategy[sp.Expr]:
    numbers = st.builds(sp.Rational, st.integers(-6, 6), st.integers(1, 4))
    return st.one_of(st.sampled_from(PROOF_SYMBOLS), numbers)


def _proof_extend(children: st.SearchStrategy[sp.Expr]) -> st.SearchStrategy[sp.Expr]:
    pair = st.tuples(children, children)
    return st.one_of(
        pair.map(lambda ab: ab[0] + ab[1]),
        pair.map(lambda ab: ab[0] * ab[1]),
        children.map(lambda a: a / (_M + 1)),
        children.map(lambda a: sp.sqrt(a**2 + 1)),
        children.map(sp.ceiling),
        children.map(sp.floor),
        pair.map(lambda ab: sp.Min(*ab)),
        pair.map(lambda ab: sp.Max(*ab)),
        pair.map(lambda ab: sp.Piecewise((ab[0], _n <= _d), (ab[1], True))),
    )


def proof_expressions() -> st.SearchStrategy[sp.Expr]:
    """Arithmetic expressions over n, d, M with every node kind the translator knows."""
    return st.recursive(_proof_leaves(), _proof_extend, max_leaves=6)


def proof_points() -> st.SearchStrategy[dict[str, int]]:
    """Values for n, d, M (positive integers)."""
    return st.fixed_dictionaries({sym.name: st.integers(1, 400) for sym in PROOF_SYMBOLS})


def rounded_proof_expressions() -> st.SearchStrategy[sp.Expr]:
    """Proof expressions with at least one floor or ceiling, of a quotient that stays fractional."""
    import operator

    rounding = st.sampled_from((sp.floor, sp.ceiling))
    divisor = st.sampled_from((2, 3, _M + 1, _d + 1, 5 * _d + 4))
    combine = st.sampled_from((operator.add, operator.mul, operator.sub))
    return st.builds(
        lambda outer, rnd, inner, k, op: op(outer, rnd(inner / k)),
        proof_expressions(),
        rounding,
        proof_expressions(),
        divisor,
        combine,
    ).filter(lambda expr: bool(expr.atoms(sp.floor, sp.ceiling)))


# ---------------------------------------------------------------- attnio.testing (public)
@st.composite
def points(
    draw: st.DrawFn,
    bound: Bound | None = None,
    *,
    cache: str | None = None,
    max_n: int = 512,
    max_d: int = 64,
    min_memory: int = 1,
) -> dict[str, object]:
    """A parameter point inside ``bound``'s conditions (or any consistent point).

    n >= 1, d >= 1 and M >= ``min_memory`` (the feasibility minimum of what the test
    runs: ``dag.min_memory`` for a pebbling, an algorithm's smallest M); M on the
    ``cache`` side of d^2 (``"small"``: M < d^2, ``"large"``: M >= d^2; default the
    bound's own cache, or either), often at the edges (d^2 - 1, d^2, 5d + 4, n d).
    s, s_c and Z are the densities and allowed pairs of one actual tile mask
    (:func:`tile_mask_point`); w <= n a window's width; r = C(d + g, g). With ``bound``,
    points outside its
    conditions are rejected (``hypothesis.assume``) and the point holds n, d, M and the
    symbols the bound uses.
    """
    from hypothesis import assume

    if cache is None and bound is not None:
        cache = bound.cache.value
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    low, high = max(1, min_memory), max(min_memory, 4 * d * d + n * d + 8)
    if cache == "small":
        high = min(high, d * d - 1)
    elif cache == "large":
        low = max(low, d * d)
    assume(low <= high)
    edges = [m for m in (d * d - 1, d * d, 5 * d + 4, 10 * d + 2, n * d, low, high)
             if low <= m <= high]  # fmt: skip
    memory = draw(st.one_of(st.integers(low, high), st.sampled_from(edges)))
    g = draw(st.integers(0, 4))
    point: dict[str, object] = {
        "n": n,
        "d": d,
        "M": memory,
        **draw(tile_mask_point(n, memory)),
        "Z_QK": draw(st.integers(n, n * n)),
        "Z_in": draw(st.integers(1, n * d)),
        "g": g,
        "r": int(feature_rank(d, g)),
        "B": sp.Rational(draw(st.integers(1, 40)), 10),
        "epsilon": sp.Rational(1, draw(st.integers(2, 10**6))),
        "w": draw(st.integers(1, n)),
        **draw(shape_point(n)),
    }
    if bound is None:
        return point
    mine = {"n": n, "d": d, "M": memory, **restrict(point, bound)}
    assume(bound.applies(**restrict(point, bound)))
    return mine


@st.composite
def masks(draw: st.DrawFn, n: int) -> np.ndarray:
    """An n x n boolean attention mask (query i may attend key j) with no empty row:
    causal, full, a band or local window, or random."""
    from attnio.pebble.builders import mask_from_spec

    width = draw(st.integers(0, max(0, n - 1)))
    spec = draw(
        st.sampled_from(("causal", "full", f"band:{width}", f"local:{width + 1}", "random"))
    )
    if spec != "random":
        return mask_from_spec(spec, n)
    flat = draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))
    mask = np.array(flat, dtype=bool).reshape(n, n)
    for i in range(n):
        if not mask[i].any():
            mask[i, draw(st.integers(0, n - 1))] = True
    return mask


class DagInstance:
    """An attention DAG from a builder with the parameters it was built at.

    Attributes: ``kind`` (one of :data:`attnio.pebble.KINDS`), ``n``, ``d``, ``mask``
    (sparse kinds), ``degree`` (the approx kinds), ``dag``, and ``params``: the
    values of n, d and, for sparse kinds, Z (the mask's allowed pairs) to evaluate a
    bound at.
    """

    def __init__(self, kind: str, n: int, d: int, dag: Dag, mask=None, degree=None) -> None:
        self.kind, self.n, self.d, self.dag, self.mask, self.degree = kind, n, d, dag, mask, degree
        self.params: dict[str, int] = {"n": n, "d": d}
        if mask is not None:
            self.params["Z"] = int(np.asarray(mask).sum())
        if degree is not None:
            self.params["g"] = degree
            self.params["r"] = int(feature_rank(d, degree))

    def __repr__(self) -> str:
        extra = f", Z={self.params['Z']}" if "Z" in self.params else ""
        extra += f", degree={self.degree}" if self.degree is not None else ""
        return f"DagInstance({self.kind}, n={self.n}, d={self.d}{extra}, {self.dag.num_vertices} vertices)"


@st.composite
def attention_dags(
    draw: st.DrawFn,
    kinds: tuple[str, ...] | None = None,
    max_n: int = 3,
    max_d: int = 2,
    max_degree: int = 2,
) -> DagInstance:
    """A :class:`DagInstance` from one of the builders (default every kind of
    :data:`attnio.pebble.KINDS`) at small n and d; sparse kinds get a :func:`masks` mask."""
    from attnio.pebble.builders import KINDS, build

    kind = draw(st.sampled_from(kinds or KINDS))
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    if kind.startswith("sparse"):
        mask = draw(masks(n))
        return DagInstance(kind, n, d, build(kind, n, d, mask=mask), mask=mask)
    if kind.startswith("approx"):
        degree = draw(st.integers(1, max_degree))
        return DagInstance(kind, n, d, build(kind, n, d, degree=degree), degree=degree)
    return DagInstance(kind, n, d, build(kind, n, d))


@st.composite
def move_sequences(draw: st.DrawFn, dag: Dag, M: int) -> list:
    """A legal pebbling of ``dag`` with ``M`` red pebbles (each vertex computed once, so
    legal in both variants): a random topological order played under a random eviction
    policy. :func:`attnio.pebble.replay` accepts it."""
    from attnio.pebble.heuristic import play

    order = draw(topological_orders(dag))
    policy = draw(st.sampled_from(("belady", "lru")))
    return list(play(dag, M, order=order, policy=policy, moves=True).moves)
