"""Automorphisms of a pebbling DAG, for the symmetry reduction of the exact search.

An *automorphism* of a DAG is a permutation ``s`` of its vertices that maps edges onto
edges (``(u, v)`` is an edge exactly when ``(s[u], s[v])`` is); it then also maps the
inputs (sources) onto the inputs and the outputs (sinks) onto the outputs. The
attention DAGs have many: permuting the query rows ``i``, the key rows ``j`` (where the
summation trees over ``j`` allow it) and the head coordinates ``l`` of a dense forward
graph, with the matching relabelling of every intermediate, maps the graph onto itself.

*Why the search may merge symmetric states.* The red-blue game and every search rule
of :mod:`.exact` are defined from the graph alone (predecessors, successors, inputs,
outputs, reachability, out-degree), never from vertex numbers, so an automorphism
``s`` maps the legal moves of a state ``x`` one to one onto the legal moves of the
image state ``s(x)`` (each field of the state, a vertex set, mapped element-wise), with
the same costs, and maps goal states (every output blue) to goal states. Hence the
cheapest cost to finish from ``x`` and from ``s(x)`` are equal, and A* may store and
expand one representative per set of symmetric states: the cheapest path over
representatives costs exactly IO(G, M). The representative :func:`canonical_state`
picks is the smallest image of the state, field by field as integers, over a fixed
list of automorphisms (identity first); it is always *some* image of the state, so the
argument above holds for any list of automorphisms, a whole group or a part of one
(a part only merges fewer states). A certificate stays a real pebbling of the
original graph: each transition records which automorphism turned its result into the
stored representative, and :mod:`.exact` maps the moves back through the composed
permutations before :func:`attnio.pebble.moves.replay` checks them.

The automorphisms are enumerated once per graph by VF2 (networkx's
``DiGraphMatcher`` of the graph against itself, vertices matched by role: input,
output, other), up to ``max_elements`` of them, and each is verified before use.

References
----------
L. P. Cordella, P. Foggia, C. Sansone and M. Vento, "A (sub)graph isomorphism
algorithm for matching large graphs", IEEE TPAMI 26(10), 2004 (VF2); E. A. Emerson
and A. P. Sistla, "Symmetry and model checking", FMSD 9, 1996 (searching a quotient
by a symmetry group); HK81 (the game).
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np
from networkx.algorithms.isomorphism import DiGraphMatcher

from .dag import Dag
from .errors import PebbleParameterError

__all__ = [
    "DEFAULT_MAX_ELEMENTS",
    "automorphisms",
    "canonical_state",
    "is_automorphism",
    "lookup_tables",
    "permute_bits",
]

DEFAULT_MAX_ELEMENTS = 512
"""Most automorphisms :func:`automorphisms` enumerates (the search tries each per state)."""


def automorphisms(dag: Dag, max_elements: int = DEFAULT_MAX_ELEMENTS) -> list[np.ndarray]:
    """Return automorphisms of ``dag`` as index arrays ``s`` (vertex ``v`` goes to ``s[v]``).

    Parameters
    ----------
    dag : Dag
        The graph.
    max_elements : int
        Stop after this many (the identity included). The list is then part of the
        automorphism group; canonicalising under part of the group is still sound, it
        merges fewer states (module docstring).

    Returns
    -------
    list of numpy.ndarray
        The identity first, then the others in VF2's order, each checked by
        :func:`is_automorphism`.

    Examples
    --------
    >>> fork = Dag.from_edges(3, [(0, 1), (0, 2)])
    >>> [s.tolist() for s in automorphisms(fork)]
    [[0, 1, 2], [0, 2, 1]]
    """
    if isinstance(max_elements, bool) or not isinstance(max_elements, int) or max_elements < 1:
        raise PebbleParameterError(f"max_elements={max_elements!r} must be a positive integer")
    count = dag.num_vertices
    graph = nx.DiGraph()
    indeg, outdeg = dag.indegree, dag.outdegree
    for v in range(count):
        graph.add_node(v, role=(int(indeg[v] == 0), int(outdeg[v] == 0)))
    graph.add_edges_from(dag.edges().tolist())
    matcher = DiGraphMatcher(graph, graph, node_match=lambda a, b: a["role"] == b["role"])
    identity = np.arange(count, dtype=np.int64)
    found = [identity]
    for mapping in matcher.isomorphisms_iter():
        if len(found) >= max_elements:
            break
        perm = np.array([mapping[v] for v in range(count)], dtype=np.int64)
        if np.array_equal(perm, identity):
            continue
        if not is_automorphism(dag, perm):  # never trust the enumeration blindly
            raise RuntimeError("VF2 returned a permutation that is not an automorphism")
        found.append(perm)
    return found


def is_automorphism(dag: Dag, perm: Sequence[int] | np.ndarray) -> bool:
    """Whether ``perm`` (vertex ``v`` to ``perm[v]``) maps the edge set of ``dag`` onto itself.

    Examples
    --------
    >>> is_automorphism(Dag.from_edges(3, [(0, 1), (0, 2)]), [0, 2, 1])
    True
    >>> is_automorphism(Dag.from_edges(3, [(0, 1), (0, 2)]), [1, 0, 2])
    False
    """
    perm = np.asarray(perm, dtype=np.int64)
    count = dag.num_vertices
    if perm.shape != (count,) or sorted(perm.tolist()) != list(range(count)):
        return False
    edges = {tuple(e) for e in dag.edges().tolist()}
    return {(int(perm[u]), int(perm[v])) for u, v in edges} == edges


def lookup_tables(perms: Sequence[np.ndarray]) -> np.ndarray:
    """Byte lookup tables of the permutations, as :func:`permute_bits` and the kernels read them.

    ``tables[k, byte, value]`` is the image under ``perms[k]`` of the bit set
    ``value << (8 * byte)``; the image of a bit set is the OR of the images of its 8 bytes.
    """
    count = len(perms[0]) if len(perms) else 0
    images = np.zeros((len(perms), 64), dtype=np.int64)  # image of each single vertex
    for k, perm in enumerate(perms):
        images[k, :count] = np.left_shift(np.int64(1), np.asarray(perm, dtype=np.int64))
    tables = np.zeros((len(perms), 8, 256), dtype=np.int64)
    for byte in range(8):
        for value in range(1, 256):
            low = (value & -value).bit_length() - 1  # the lowest set bit, then the rest
            tables[:, byte, value] = (
                tables[:, byte, value & (value - 1)] | images[:, 8 * byte + low]
            )
    return tables


def permute_bits(perm: Sequence[int] | np.ndarray, bits: int) -> int:
    """The image of the vertex set ``bits`` (vertex ``v`` is bit ``v``) under ``perm``.

    Examples
    --------
    >>> permute_bits([2, 0, 1], 0b011)
    5
    """
    out = 0
    for v in range(len(perm)):
        if bits >> v & 1:
            out |= 1 << int(perm[v])
    return out


def canonical_state(
    perms: Sequence[np.ndarray], state: Sequence[int]
) -> tuple[tuple[int, ...], int]:
    """The smallest image of ``state`` (a tuple of vertex sets) and the index of its permutation.

    Images are compared as tuples of integers; on a tie the earlier permutation wins, so
    with the identity first an already smallest state keeps index 0. The slow reference
    of the search kernel's canonicalisation.

    Examples
    --------
    >>> canonical_state([[0, 1, 2], [0, 2, 1]], (0b100, 0b001))
    ((2, 1), 1)
    """
    if len(perms) == 0:
        raise PebbleParameterError("perms must hold at least one permutation (the identity)")
    best: tuple[int, ...] | None = None
    which = 0
    for k, perm in enumerate(perms):
        image = tuple(permute_bits(perm, int(x)) for x in state)
        if best is None or image < best:
            best, which = image, k
    return best, which  # type: ignore[return-value]
