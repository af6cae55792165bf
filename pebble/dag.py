"""Immutable DAGs for the red-blue pebble game, in compact arrays for the kernels.

A :class:`Dag` renumbers its vertices ``0 .. V-1`` in a topological order (every
edge goes from a smaller to a larger index) and stores both adjacency directions
as numpy ``int64`` CSR arrays:

- ``pred_ptr`` (``V + 1``) and ``pred_idx``: the predecessors of ``v`` are
  ``pred_idx[pred_ptr[v]:pred_ptr[v + 1]]``, ascending;
- ``succ_ptr`` (``V + 1``) and ``succ_idx``: the successors, ascending;
- ``labels``: the original vertex names as strings, by new index.

The topological order is the one closest to the given vertex order: Kahn's
algorithm always takes the ready vertex that came first in the input. A graph
whose given order is already topological therefore keeps its numbering.

Game conventions (docs/game.md): ``inputs`` are the sources (start blue),
``outputs`` are the sinks (must end blue). An isolated vertex is both: it
starts blue, is already a finished output, and costs nothing. ``min_memory`` is
``max in-degree + 1`` (at least 1): computing a vertex of in-degree ``k`` needs
``k + 1`` red pebbles because no pebble slides.

Files: ``.json`` (``{"nodes": [...], "edges": [[u, v], ...]}``, edges by node
name, or networkx's node-link JSON, read and written: ``save_dag(..., format="node-link")``),
``.graphml`` (via networkx) and ``.dot``
(read by pydot: ``digraph`` or ``strict digraph`` with any attributes; undirected
graphs and subgraphs are refused; written as ``digraph { "a"; "a" -> "b"; }``).
In a notebook a :class:`Dag` shows as a layered SVG drawing (:func:`dag_svg`).

References
----------
HK81 (the game); PW20 (the one-shot variant).
"""

from __future__ import annotations

import heapq
import json
import re
import sys
from collections.abc import Hashable, Iterable, Sequence
from html import escape
from pathlib import Path
from typing import BinaryIO

import networkx as nx
import numpy as np

from attnio.bounds.arguments import positive_integer

from .errors import CycleError, GraphFormatError, MemoryTooSmallError, PebbleParameterError

__all__ = [
    "GRAPH_FORMATS",
    "GRAPH_SUFFIXES",
    "MAX_PICTURE_VERTICES",
    "Dag",
    "dag_svg",
    "load_dag",
    "save_dag",
]

GRAPH_SUFFIXES = (".json", ".graphml", ".dot")

GRAPH_FORMATS: dict[str, str] = {
    "json": ".json",
    "node-link": ".json",
    "graphml": ".graphml",
    "dot": ".dot",
}
"""The formats :func:`save_dag` writes, with the suffix :func:`load_dag` reads them by:
attnio's JSON, networkx's node-link JSON, GraphML and DOT."""
"""File suffixes :func:`load_dag` and :func:`save_dag` understand."""


def _frozen(array: np.ndarray) -> np.ndarray:
    out = np.ascontiguousarray(array, dtype=np.int64)
    out.setflags(write=False)
    return out


def _csr(num_vertices: int, heads: np.ndarray, tails: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (ptr, idx) listing ``tails`` grouped by ``heads``, each group ascending."""
    order = np.lexsort((tails, heads))
    counts = np.bincount(heads, minlength=num_vertices)
    ptr = np.zeros(num_vertices + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr, tails[order].astype(np.int64)


class Dag:
    """An immutable DAG with vertices numbered in a topological order.

    Build one with :meth:`from_networkx`, :meth:`from_edges` or :func:`load_dag`;
    the constructor itself takes already-renumbered CSR arrays and checks them.

    Parameters
    ----------
    labels : sequence of str
        Vertex names by index.
    pred_ptr, pred_idx, succ_ptr, succ_idx : numpy arrays
        The CSR adjacency described in the module docstring.

    Examples
    --------
    >>> g = Dag.from_edges(["a", "b", "c"], [(0, 2), (1, 2)])
    >>> g.num_vertices, g.inputs.tolist(), g.outputs.tolist(), g.min_memory
    (3, [0, 1], [2], 3)
    """

    __slots__ = ("_label_index", "labels", "pred_idx", "pred_ptr", "succ_idx", "succ_ptr")

    labels: tuple[str, ...]
    pred_ptr: np.ndarray
    pred_idx: np.ndarray
    succ_ptr: np.ndarray
    succ_idx: np.ndarray

    def __init__(
        self,
        labels: Sequence[str],
        pred_ptr: np.ndarray,
        pred_idx: np.ndarray,
        succ_ptr: np.ndarray,
        succ_idx: np.ndarray,
    ) -> None:
        labels = tuple(labels)
        count = len(labels)
        if count == 0:
            raise GraphFormatError("graph has no vertices; the pebble game needs at least one")
        if not all(isinstance(label, str) for label in labels):
            raise GraphFormatError("labels must be strings")
        if len(set(labels)) != count:
            raise GraphFormatError(f"labels repeat: {_duplicates(labels)}")
        arrays = [_frozen(a) for a in (pred_ptr, pred_idx, succ_ptr, succ_idx)]
        for name, ptr, idx in (("pred", arrays[0], arrays[1]), ("succ", arrays[2], arrays[3])):
            if ptr.shape != (count + 1,) or ptr[0] != 0 or ptr[-1] != idx.size:
                raise GraphFormatError(f"{name}_ptr is not a CSR pointer for {count} vertices")
            if np.any(np.diff(ptr) < 0) or (idx.size and (idx.min() < 0 or idx.max() >= count)):
                raise GraphFormatError(f"{name}_ptr/{name}_idx are not a valid CSR adjacency")
        heads = np.repeat(np.arange(count), np.diff(arrays[0]))
        if np.any(arrays[1] >= heads):
            raise GraphFormatError("vertices are not numbered in a topological order")
        succ_ptr_check, succ_idx_check = _csr(count, arrays[1], heads)
        if not (
            np.array_equal(succ_ptr_check, arrays[2]) and np.array_equal(succ_idx_check, arrays[3])
        ):
            raise GraphFormatError("succ arrays are not the transpose of the pred arrays")
        _, pred_check_idx = _csr(count, heads, arrays[1])
        if not np.array_equal(pred_check_idx, arrays[1]):
            raise GraphFormatError("predecessor lists must be ascending without repeats")
        if np.any((np.diff(arrays[1]) <= 0) & (np.diff(heads) == 0)):
            raise GraphFormatError("predecessor lists must be ascending without repeats")
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "pred_ptr", arrays[0])
        object.__setattr__(self, "pred_idx", arrays[1])
        object.__setattr__(self, "succ_ptr", arrays[2])
        object.__setattr__(self, "succ_idx", arrays[3])
        object.__setattr__(self, "_label_index", {label: i for i, label in enumerate(labels)})

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Dag is immutable")

    # ----------------------------------------------------------------- constructors

    @classmethod
    def from_edges(
        cls,
        vertices: int | Sequence[Hashable],
        edges: Iterable[tuple[int, int]] | np.ndarray,
    ) -> Dag:
        """Build a DAG from a vertex count (or labels) and edges between vertex positions.

        Parameters
        ----------
        vertices : int or sequence
            The number of vertices (labels become ``"0"``, ``"1"``, ...) or their
            names (converted with ``str``; must stay distinct).
        edges : iterable of (int, int) or array of shape (E, 2)
            Edges ``u -> v`` given by positions ``0 <= u, v < V`` in ``vertices``.

        Raises
        ------
        GraphFormatError
            No vertices, repeated labels, an endpoint out of range, a repeated edge.
        CycleError
            The edges contain a directed cycle (a self-loop is a cycle of length 1).

        Examples
        --------
        >>> Dag.from_edges(2, [(1, 0)]).labels
        ('1', '0')
        """
        if isinstance(vertices, int | np.integer) and not isinstance(vertices, bool):
            if vertices < 1:
                raise GraphFormatError(f"vertices={vertices} must be at least 1")
            names = tuple(str(i) for i in range(int(vertices)))
        else:
            names = tuple(str(v) for v in vertices)
        count = len(names)
        if count == 0:
            raise GraphFormatError("graph has no vertices; the pebble game needs at least one")
        if len(set(names)) != count:
            raise GraphFormatError(f"vertex labels repeat after str(): {_duplicates(names)}")
        pairs = _edge_array(edges, count)
        return cls._from_pairs(names, pairs)

    @classmethod
    def from_networkx(cls, graph: nx.DiGraph) -> Dag:
        """Build a DAG from a networkx ``DiGraph`` (node names become ``str`` labels).

        Raises
        ------
        GraphFormatError
            Not a directed graph, no nodes, or two node names equal after ``str``.
        CycleError
            The graph has a directed cycle, which is named.

        Examples
        --------
        >>> Dag.from_networkx(nx.DiGraph([("x", "y")])).labels
        ('x', 'y')
        """
        if not isinstance(graph, nx.DiGraph) or not graph.is_directed():
            raise GraphFormatError(f"graph must be a networkx DiGraph, got {type(graph).__name__}")
        if graph.is_multigraph():
            raise GraphFormatError("graph must be a DiGraph, not a MultiDiGraph")
        nodes = list(graph.nodes)
        position = {node: i for i, node in enumerate(nodes)}
        pairs = [(position[u], position[v]) for u, v in graph.edges]
        return cls.from_edges(nodes, pairs)

    @classmethod
    def _from_pairs(cls, names: tuple[str, ...], pairs: np.ndarray) -> Dag:
        count = len(names)
        if pairs.size:
            keys = pairs[:, 0] * count + pairs[:, 1]
            unique, seen = np.unique(keys, return_counts=True)
            if np.any(seen > 1):
                u, v = divmod(int(unique[np.argmax(seen > 1)]), count)
                raise GraphFormatError(f"edge {names[u]!r} -> {names[v]!r} is repeated")
            loops = pairs[:, 0] == pairs[:, 1]
            if np.any(loops):
                raise CycleError([names[int(pairs[np.argmax(loops), 0])]])
        if not pairs.size or np.all(pairs[:, 0] < pairs[:, 1]):
            order = list(range(count))  # the given order is already topological
        else:
            order = _topological_order(count, pairs, names)
        new_index = np.empty(count, dtype=np.int64)
        new_index[order] = np.arange(count)
        heads = new_index[pairs[:, 1]] if pairs.size else np.zeros(0, np.int64)
        tails = new_index[pairs[:, 0]] if pairs.size else np.zeros(0, np.int64)
        pred_ptr, pred_idx = _csr(count, heads, tails)
        succ_ptr, succ_idx = _csr(count, tails, heads)
        return cls(tuple(names[i] for i in order), pred_ptr, pred_idx, succ_ptr, succ_idx)

    # ----------------------------------------------------------------- queries

    @property
    def num_vertices(self) -> int:
        """The number of vertices V."""
        return len(self.labels)

    @property
    def num_edges(self) -> int:
        """The number of edges."""
        return int(self.pred_idx.size)

    @property
    def indegree(self) -> np.ndarray:
        """In-degree of every vertex (int64, length V)."""
        return np.diff(self.pred_ptr)

    @property
    def outdegree(self) -> np.ndarray:
        """Out-degree of every vertex (int64, length V)."""
        return np.diff(self.succ_ptr)

    @property
    def inputs(self) -> np.ndarray:
        """The sources (they start with a blue pebble), ascending int64."""
        return np.flatnonzero(self.indegree == 0).astype(np.int64)

    @property
    def outputs(self) -> np.ndarray:
        """The sinks (they must end with a blue pebble), ascending int64."""
        return np.flatnonzero(self.outdegree == 0).astype(np.int64)

    @property
    def max_indegree(self) -> int:
        """The largest in-degree (0 for a graph without edges)."""
        return int(self.indegree.max())

    @property
    def min_memory(self) -> int:
        """The smallest M that admits a pebbling: ``max_indegree + 1`` (no sliding)."""
        return self.max_indegree + 1

    def predecessors(self, vertex: int) -> np.ndarray:
        """The predecessors of ``vertex``, ascending."""
        return self.pred_idx[self.pred_ptr[vertex] : self.pred_ptr[vertex + 1]]

    def successors(self, vertex: int) -> np.ndarray:
        """The successors of ``vertex``, ascending."""
        return self.succ_idx[self.succ_ptr[vertex] : self.succ_ptr[vertex + 1]]

    def index(self, label: str) -> int:
        """The index of the vertex named ``label``.

        Raises
        ------
        PebbleParameterError
            No vertex carries that label.
        """
        try:
            return self._label_index[label]
        except KeyError:
            raise PebbleParameterError(f"label={label!r} names no vertex of this graph") from None

    def edges(self) -> np.ndarray:
        """All edges as an ``(E, 2)`` int64 array of ``(u, v)``, sorted by ``v`` then ``u``."""
        heads = np.repeat(np.arange(self.num_vertices, dtype=np.int64), self.indegree)
        return np.stack([self.pred_idx, heads], axis=1)

    def validate_memory(self, M: int) -> int:
        """Return ``M`` as an int if a pebbling with ``M`` red pebbles exists, else raise.

        Raises
        ------
        PebbleParameterError
            ``M`` is not a positive integer, or above ``2**62`` (the kernels count in int64).
        MemoryTooSmallError
            ``M < min_memory``; names a vertex of maximum in-degree and the minimum.

        Examples
        --------
        >>> Dag.from_edges(3, [(0, 2), (1, 2)]).validate_memory(3)
        3
        """
        M = positive_integer("M", M, PebbleParameterError)
        if M > 2**62:
            raise PebbleParameterError(f"M={M} must be a positive integer of at most 2**62")
        if self.min_memory > M:
            vertex = int(np.argmax(self.indegree))
            raise MemoryTooSmallError(M, self.labels[vertex], self.min_memory)
        return M

    def to_networkx(self) -> nx.DiGraph:
        """Return a networkx ``DiGraph`` with the string labels as node names."""
        graph = nx.DiGraph()
        graph.add_nodes_from(self.labels)
        graph.add_edges_from((self.labels[u], self.labels[v]) for u, v in self.edges().tolist())
        return graph

    def relabel(self, labels: Sequence[str]) -> Dag:
        """Return the same graph with new vertex names (by index)."""
        return Dag(labels, self.pred_ptr, self.pred_idx, self.succ_ptr, self.succ_idx)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dag):
            return NotImplemented
        return self.labels == other.labels and all(
            np.array_equal(a, b)
            for a, b in ((self.pred_ptr, other.pred_ptr), (self.pred_idx, other.pred_idx))
        )

    def __hash__(self) -> int:
        return hash((self.labels, self.pred_ptr.tobytes(), self.pred_idx.tobytes()))

    def __repr__(self) -> str:
        return (
            f"Dag(vertices={self.num_vertices}, edges={self.num_edges}, "
            f"inputs={self.inputs.size}, outputs={self.outputs.size}, "
            f"max_indegree={self.max_indegree})"
        )

    def _repr_svg_(self) -> str | None:
        """A layered drawing for notebooks (``None`` above the drawing limit)."""
        return dag_svg(self)


MAX_PICTURE_VERTICES = 600
"""Largest DAG drawn; a larger one has no picture (the notebook shows its text repr)."""


def dag_svg(dag: Dag) -> str | None:
    """Return an SVG drawing of ``dag``, or ``None`` above :data:`MAX_PICTURE_VERTICES`.

    The notebook picture of a DAG (``Dag._repr_svg_``), small and dependency-free on
    purpose: vertices in rows by longest-path depth from the inputs, inputs as squares and
    outputs with a double ring, each vertex's label on hover. The interactive explorer
    (``attnio explore``) draws builder stages instead.

    Examples
    --------
    >>> from attnio.pebble import Dag
    >>> dag_svg(Dag.from_edges(["a", "b"], [(0, 1)])).startswith("<svg")
    True
    """
    if dag.num_vertices > MAX_PICTURE_VERTICES:
        return None
    depth = [0] * dag.num_vertices
    for v in range(dag.num_vertices):
        depth[v] = 1 + max((depth[p] for p in dag.predecessors(v).tolist()), default=-1)
    rows: list[list[int]] = [[] for _ in range(max(depth) + 1)]
    for v, level in enumerate(depth):
        rows[level].append(v)
    step, gap = 34, 44
    width = max(len(row) for row in rows) * step + 20
    x, y = {}, {}
    for level, row in enumerate(rows):
        left = (width - len(row) * step) / 2 + step / 2
        for i, v in enumerate(row):
            x[v], y[v] = left + i * step, 20 + level * gap
    height = 20 + len(rows) * gap - 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
        f'viewBox="0 0 {width:.0f} {height}">'
    ]
    for u, v in dag.edges().tolist():
        parts.append(
            f'<line x1="{x[u]:.1f}" y1="{y[u]}" x2="{x[v]:.1f}" y2="{y[v]}" '
            'stroke="#b9c0cc" stroke-width="1"/>'
        )
    outputs = set(dag.outputs.tolist())
    for v, label in enumerate(dag.labels):
        title = f"<title>{escape(label)}</title>"
        style = 'fill="#fff" stroke="#1c63d6" stroke-width="2.5"'
        if depth[v] == 0:
            shape = f'<rect x="{x[v] - 8:.1f}" y="{y[v] - 8}" width="16" height="16" {style}/>'
        else:
            shape = f'<circle cx="{x[v]:.1f}" cy="{y[v]}" r="8" fill="#fff" stroke="#8a93a3"/>'
        if v in outputs and depth[v] > 0:
            shape += f'<circle cx="{x[v]:.1f}" cy="{y[v]}" r="11" fill="none" stroke="#8a93a3"/>'
        parts.append(f"<g>{title}{shape}</g>")
    parts.append("</svg>")
    return "".join(parts)


def _duplicates(names: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    dup = []
    for name in names:
        if name in seen and name not in dup:
            dup.append(name)
        seen.add(name)
    return dup[:5]


def _edge_array(edges: Iterable[tuple[int, int]] | np.ndarray, count: int) -> np.ndarray:
    if isinstance(edges, np.ndarray) and edges.dtype.kind in "iu":
        if edges.ndim != 2 or edges.shape[1] != 2:
            if edges.size == 0:
                return np.zeros((0, 2), dtype=np.int64)
            raise GraphFormatError(f"edges array of shape {edges.shape} must have shape (E, 2)")
        bad = (edges < 0) | (edges >= count)
        if bad.any():
            row = edges[np.argmax(bad.any(axis=1))].tolist()
            raise GraphFormatError(f"edge {tuple(row)!r} has an endpoint outside 0..{count - 1}")
        return edges.astype(np.int64)
    try:
        rows = edges.tolist() if isinstance(edges, np.ndarray) else list(edges)
    except TypeError:
        raise GraphFormatError(f"edges={edges!r} must be an iterable of (u, v) pairs") from None
    for row in rows:
        if (
            not isinstance(row, list | tuple)
            or len(row) != 2
            or not all(isinstance(x, int | np.integer) and not isinstance(x, bool) for x in row)
        ):
            raise GraphFormatError(f"edge {row!r} must be a pair (u, v) of vertex positions")
        if not all(0 <= x < count for x in row):
            raise GraphFormatError(f"edge {tuple(row)!r} has an endpoint outside 0..{count - 1}")
    return np.asarray(rows, dtype=np.int64).reshape(-1, 2)


def _topological_order(count: int, pairs: np.ndarray, names: tuple[str, ...]) -> list[int]:
    """Kahn's algorithm, always taking the ready vertex that came first; names a cycle."""
    indegree = np.bincount(pairs[:, 1], minlength=count) if pairs.size else np.zeros(count, int)
    indegree = indegree.tolist()
    succ: list[list[int]] = [[] for _ in range(count)]
    for u, v in pairs.tolist():
        succ[u].append(v)
    ready = [v for v in range(count) if indegree[v] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        u = heapq.heappop(ready)
        order.append(u)
        for v in succ[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                heapq.heappush(ready, v)
    if len(order) < count:
        raise CycleError(_find_cycle(count, pairs, names, set(order)))
    return order


def _find_cycle(count: int, pairs: np.ndarray, names: tuple[str, ...], done: set[int]) -> list[str]:
    graph = nx.DiGraph()
    graph.add_edges_from((u, v) for u, v in pairs.tolist() if u not in done and v not in done)
    cycle = nx.find_cycle(graph)
    return [names[u] for u, _ in cycle]


# --------------------------------------------------------------------- files


def load_dag(path: str | Path, *, stdin: BinaryIO | None = None) -> Dag:
    """Read a DAG from a ``.json``, ``.graphml`` or ``.dot`` file (chosen by suffix).

    ``.json`` holds attnio's ``{"nodes": [...], "edges": [[u, v], ...]}`` or
    networkx's node-link form (``{"nodes": [{"id": ...}], "links": [...]}``).
    The path ``"-"`` reads standard input (or ``stdin``); its format is told from
    the first character (``{`` JSON, ``<`` GraphML, else DOT).

    Raises
    ------
    GraphFormatError
        Unknown suffix, an empty, binary or non-UTF-8 file, or content that is not a
        valid graph; the message names the file.
    CycleError
        The graph has a directed cycle.
    OSError
        The file cannot be read.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.dot")
    >>> save_dag(Dag.from_edges(["a", "b"], [(0, 1)]), path)
    >>> load_dag(path).labels
    ('a', 'b')
    """
    if str(path) == "-":
        name = "<stdin>"
        data = (stdin if stdin is not None else sys.stdin.buffer).read()
        suffix = None
    else:
        path = Path(path)
        name = str(path)
        suffix = path.suffix.lower()
        if suffix not in GRAPH_SUFFIXES:
            raise GraphFormatError(
                f"graph file {name!r}: suffix {suffix!r} is not one of {GRAPH_SUFFIXES} "
                "(or '-' for standard input)"
            )
        if path.is_dir():
            raise GraphFormatError(f"graph file {name!r} is a directory")
        data = path.read_bytes()
    text = _decoded(data, name)
    if suffix is None:
        first = text.lstrip()[:1]
        suffix = {"{": ".json", "<": ".graphml"}.get(first, ".dot")
    try:
        if suffix == ".json":
            return _read_json(text)
        if suffix == ".graphml":
            return _read_graphml(text)
        return _read_dot(text)
    except GraphFormatError as error:
        raise GraphFormatError(f"graph file {name!r}: {error}") from None


def _decoded(data: bytes, name: str) -> str:
    """The text of a graph file; binary, non-UTF-8 or empty content names the file."""
    if b"\x00" in data[:65536]:
        raise GraphFormatError(f"graph file {name!r} is binary, not a graph (it holds NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise GraphFormatError(
            f"graph file {name!r} is not UTF-8 text (byte {data[error.start]:#04x} at "
            f"offset {error.start})"
        ) from None
    if not text.strip():
        raise GraphFormatError(f"graph file {name!r} is empty")
    return text


def save_dag(dag: Dag, path: str | Path, *, format: str | None = None) -> None:
    """Write ``dag`` to a ``.json``, ``.graphml`` or ``.dot`` file.

    ``format`` is one of :data:`GRAPH_FORMATS`; by default the suffix chooses (``.json``
    is attnio's JSON). ``"node-link"`` writes networkx's node-link JSON
    (``networkx.node_link_graph(data, edges="links")`` reads it) to a ``.json`` file. The
    vertex order of the file is the DAG's topological numbering, so
    ``load_dag(path) == dag`` in every format.

    Raises
    ------
    GraphFormatError
        An unknown suffix or format, or a suffix that is not the format's (``load_dag``
        would not read the file back).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.json")
    >>> save_dag(Dag.from_edges(["a", "b"], [(0, 1)]), path, format="node-link")
    >>> load_dag(path).labels
    ('a', 'b')
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in GRAPH_SUFFIXES:
        raise GraphFormatError(
            f"graph file {str(path)!r}: suffix {suffix!r} is not one of {GRAPH_SUFFIXES}"
        )
    if format is None:
        format = suffix.lstrip(".")
    if format not in GRAPH_FORMATS:
        raise GraphFormatError(f"format={format!r} is not one of {list(GRAPH_FORMATS)}")
    if GRAPH_FORMATS[format] != suffix:
        raise GraphFormatError(
            f"graph file {str(path)!r}: format {format} is written to a "
            f"{GRAPH_FORMATS[format]} file, not {suffix}"
        )
    if format == "json":
        text = _write_json(dag)
    elif format == "node-link":
        data = nx.node_link_data(dag.to_networkx(), edges="links")
        text = json.dumps(data) + "\n"
    elif format == "graphml":
        text = "\n".join(nx.generate_graphml(dag.to_networkx())) + "\n"
    else:
        text = _write_dot(dag)
    path.write_text(text, encoding="utf-8")


def _write_json(dag: Dag) -> str:
    edges = [[dag.labels[u], dag.labels[v]] for u, v in dag.edges().tolist()]
    return json.dumps({"nodes": list(dag.labels), "edges": edges}) + "\n"


def _read_json(text: str) -> Dag:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise GraphFormatError(f"not valid JSON ({error})") from None
    if (isinstance(data, dict) and "links" in data) or _node_link(data):
        return _read_node_link(data)
    if not isinstance(data, dict) or set(data) != {"nodes", "edges"}:
        raise GraphFormatError('expected one object {"nodes": [...], "edges": [[u, v], ...]}')
    nodes, edges = data["nodes"], data["edges"]
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise GraphFormatError('"nodes" and "edges" must be lists')
    for node in nodes:
        if not isinstance(node, str | int) or isinstance(node, bool):
            raise GraphFormatError(f"node {node!r} must be a string or an integer")
    names = [str(node) for node in nodes]
    if len(set(names)) != len(names):
        raise GraphFormatError(f"nodes repeat: {_duplicates(names)}")
    position = {name: i for i, name in enumerate(names)}
    pairs = []
    for edge in edges:
        if not isinstance(edge, list) or len(edge) != 2:
            raise GraphFormatError(f"edge {edge!r} must be a list [u, v] of two node names")
        try:
            pairs.append((position[str(edge[0])], position[str(edge[1])]))
        except KeyError as missing:
            raise GraphFormatError(f"edge {edge!r} names node {missing} not in nodes") from None
    return Dag.from_edges(names, pairs)


def _node_link(data: object) -> bool:
    """Whether ``data`` looks like networkx's node-link JSON (nodes are ``{"id": ...}``)."""
    nodes = data.get("nodes") if isinstance(data, dict) else None
    return isinstance(nodes, list) and bool(nodes) and isinstance(nodes[0], dict)


def _read_node_link(data: dict) -> Dag:
    """A DAG from networkx's node-link JSON (``links`` or ``edges``, ``source``/``target``)."""
    key = "links" if "links" in data else "edges"
    if data.get("directed") is False:
        raise GraphFormatError('node-link graph is undirected; set "directed": true')
    try:
        graph = nx.node_link_graph({**data, "directed": True, "multigraph": False}, edges=key)
    except (KeyError, TypeError, ValueError, nx.NetworkXError) as error:
        raise GraphFormatError(
            f"not valid node-link JSON ({type(error).__name__}: {error}); expected "
            f'{{"nodes": [{{"id": ...}}], "{key}": [{{"source": ..., "target": ...}}]}}'
        ) from None
    return Dag.from_networkx(graph)


def _read_graphml(text: str) -> Dag:
    try:
        graph = nx.parse_graphml(text)
    except Exception as error:  # networkx/ElementTree raise many types for bad XML
        raise GraphFormatError(f"not valid GraphML ({type(error).__name__}: {error})") from None
    if not graph.is_directed():
        raise GraphFormatError('GraphML graph is undirected; declare edgedefault="directed"')
    if graph.is_multigraph():
        if any(len(keys) > 1 for _, _, keys in _multi_keys(graph)):
            raise GraphFormatError("GraphML graph has parallel edges")
        graph = nx.DiGraph(graph)
    return Dag.from_networkx(graph)


def _multi_keys(graph: nx.MultiDiGraph) -> Iterable[tuple[object, object, list]]:
    for u, v in set(graph.edges()):
        yield u, v, list(graph[u][v])


def _read_dot(text: str) -> Dag:
    """A DAG from DOT text, parsed by pydot: ``digraph`` or ``strict digraph``, any attributes.

    Vertices are numbered in their order of first appearance (node or edge statement);
    a repeated edge is one edge. Undirected graphs and subgraphs are refused (a subgraph's
    edges would otherwise be lost without notice).
    """
    import contextlib
    import io
    import warnings

    import pydot

    messages = io.StringIO()
    try:
        # pydot prints its parse errors; pyparsing warns about pydot's use of old names
        with contextlib.redirect_stdout(messages), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graphs = pydot.graph_from_dot_data(text)
    except Exception as error:  # pyparsing raises several types
        raise GraphFormatError(f"not valid DOT ({type(error).__name__}: {error})") from None
    if not graphs:
        lines = [line.strip() for line in messages.getvalue().splitlines() if line.strip()]
        reason = next((line for line in lines if line.startswith("Expected")), "cannot parse")
        raise GraphFormatError(f"not valid DOT ({reason})")
    if len(graphs) != 1:
        raise GraphFormatError(f"DOT text holds {len(graphs)} graphs; give one")
    graph = graphs[0]
    if graph.get_type() != "digraph":
        raise GraphFormatError("DOT graph is undirected; the pebble game needs a digraph")
    if graph.get_subgraph_list():
        raise GraphFormatError("DOT subgraphs are not read; list their nodes and edges directly")
    statements = []
    for node in graph.get_node_list():
        name = _dot_name(node.get_name())
        if name not in ("node", "edge", "graph") or node.get_name().startswith('"'):
            statements.append((node.obj_dict.get("sequence", 0), [name]))
    for edge in graph.get_edge_list():
        ends = [_dot_name(edge.get_source()), _dot_name(edge.get_destination())]
        statements.append((edge.obj_dict.get("sequence", 0), ends))
    names: dict[str, int] = {}
    pairs = set()
    for _, ends in sorted(statements, key=lambda item: item[0]):
        chain = [names.setdefault(name, len(names)) for name in ends]
        if len(chain) == 2:
            pairs.add((chain[0], chain[1]))
    if not names:
        raise GraphFormatError("DOT graph has no vertices")
    return Dag.from_edges(list(names), sorted(pairs))


def _dot_name(raw: object) -> str:
    """A DOT identifier as text: outer quotes removed, escapes undone."""
    text = str(raw)
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text


def _dot_quote(label: str) -> str:
    return '"' + label.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _write_dot(dag: Dag) -> str:
    lines = ["digraph {"]
    lines += [f"  {_dot_quote(label)};" for label in dag.labels]
    lines += [
        f"  {_dot_quote(dag.labels[u])} -> {_dot_quote(dag.labels[v])};"
        for u, v in dag.edges().tolist()
    ]
    lines.append("}")
    return "\n".join(lines) + "\n"
