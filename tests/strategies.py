"""Hypothesis strategies shared by the test modules. Append-only: each package adds its own
section under a comment header naming it."""

from __future__ import annotations

# ---------------------------------------------------------------- attnio.pebble (pebble-core)
import numpy as np
from attnio.pebble.dag import Dag
from hypothesis import strategies as st


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
"""The two game variants of theory.md section 1."""


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
