"""Layered drawing of a DAG: named stages for builder DAGs, topological layers otherwise.

The builders of :mod:`attnio.pebble.builders` add vertices stage by stage and name
each vertex after the value it computes (``"Q[0,1]"``, ``"QK[0,1,0]"``,
``"S[0,1]+1"``, ``"exp[0,1]"``, ``"QK[0,0,0]=S[0,0]"``). The *stage* of a vertex
is the name before its first bracket, ``=``, ``+`` or ``^``; stages are ordered along
their dependencies (ties by first vertex, which the builders add in the order of the
formula); if two stages depend on each other, the drawing falls back to depth. The
leading stages of inputs (Q, K, V, ...) share one row. Inside a stage, vertices that
depend on each other (summation trees) go on successive rows.
Any other DAG is drawn by longest-path depth from the sources.

Rows are ordered by a few barycentre sweeps (each vertex placed at the mean
position of its predecessors), the usual layered-drawing heuristic (Sugiyama,
Tagawa and Toda 1981); it is a picture, not an optimum. An edge whose straight line
would pass through another vertex (an edge that skips rows, as in a DAG drawn as one
column) goes through a gap of each row it crosses instead (:func:`edge_routes`). Each vertex gets a short label (:func:`short_label`) that the
page writes beside it when it fits the spacing.
"""

from __future__ import annotations

import re

import numpy as np

from attnio.pebble import Dag

__all__ = [
    "CLEARANCE",
    "MAX_DRAW_VERTICES",
    "SHORT_LABEL_CHARS",
    "STAGE_TITLES",
    "edge_routes",
    "layout",
    "short_label",
    "stage_names",
]

MAX_DRAW_VERTICES = 600
"""Largest DAG the explorer draws; larger ones are refused with this limit."""

STAGE_TITLES = {
    "Q": "Q (queries)",
    "K": "K (keys)",
    "V": "V (values)",
    "O": "O",
    "dO": "dO (output gradient)",
    "L": "L (log-sum-exp)",
    "QK": "products Q·K",
    "S": "S = QKᵀ (sums)",
    "exp": "exp(S)",
    "rowsum": "row sums",
    "P": "normalisation P",
    "PV": "products P·V",
    "S-L": "S − L",
    "PdO": "products Pᵀ·dO",
    "dV": "dV (sums)",
    "dOV": "products dO·Vᵀ",
    "dP": "dP (sums)",
    "dOO": "products dO∘O",
    "D": "D (row sums)",
    "dP-D": "dP − D",
    "dS": "dS = P∘(dP − D)",
    "dSK": "products dS·K",
    "dQ": "dQ (sums)",
    "dSQ": "products dSᵀ·Q",
    "dK": "dK (sums)",
    "phiK": "features φ(K)",
    "phiQ": "features φ(Q)",
    "W": "W = φ(K)ᵀV",
    "phiKV": "products φ(K)·V",
    "w": "w = φ(K)ᵀ1",
    "phiQw": "products φ(Q)·w",
    "den": "denominators",
    "phiQW": "products φ(Q)·W",
    "num": "numerators",
    "out": "outputs",
}
"""Display titles of the builders' stage names (a missing name is shown as itself)."""

_STAGE = re.compile(r"[^\[=+^]+")

SHORT_LABEL_CHARS = 7
"""Longest label written beside a vertex (at the page's 9 px, it fits the 46 px spacing)."""

CLEARANCE = 15.0
"""Least distance, in drawing units, between an edge and the centre of a vertex it does not
join (the drawn vertex has radius 11, its halo 17)."""

_SPACING = 46
_ROW = 58
_MARGIN = 190


def stage_names(dag: Dag) -> list[str]:
    """Return the stage name of every vertex, from its label (see the module docstring).

    Examples
    --------
    >>> g = Dag.from_edges(["Q[0]", "K[0]", "QK[0,0]=S[0]"], [(0, 2), (1, 2)])
    >>> stage_names(g)
    ['Q', 'K', 'QK']
    """
    out = []
    for label in dag.labels:
        match = _STAGE.match(label.split("=")[0])
        out.append(match.group(0) if match else label)
    return out


def short_label(text: str) -> str:
    """The label drawn beside a vertex: the label up to its first ``=`` when it is at most
    :data:`SHORT_LABEL_CHARS` characters, else its index part, else nothing (hover shows all).

    Examples
    --------
    >>> short_label("Q[0,1]"), short_label("QK[0,1,0]=S[0,1]"), short_label("PdO[10,11,12]")
    ('Q[0,1]', '0,1,0', '')
    """
    head = text.split("=", 1)[0]
    if len(head) <= SHORT_LABEL_CHARS:
        return head
    index = re.search(r"\[([^\]]*)\]", head)
    if index and len(index.group(1)) <= SHORT_LABEL_CHARS:
        return index.group(1)
    return ""


def _clear(path: np.ndarray, points: np.ndarray) -> bool:
    """Whether the polyline ``path`` (k x 2) keeps :data:`CLEARANCE` from every row of
    ``points`` (m x 2)."""
    if len(points) == 0:
        return True
    a, b = path[:-1, None, :], path[1:, None, :]  # segments x 1 x 2
    d = b - a
    length = np.maximum((d * d).sum(-1), 1e-12)
    t = np.clip(((points[None, :, :] - a) * d).sum(-1) / length, 0.0, 1.0)
    gap = a + t[..., None] * d - points[None, :, :]
    return bool(((gap * gap).sum(-1) >= CLEARANCE * CLEARANCE).all())


def _waypoints(p: np.ndarray, q: np.ndarray, rows: list[tuple[float, np.ndarray]]) -> np.ndarray:
    """A path from p to q that crosses each row strictly between them vertically, in a gap
    between its vertices: where the straight line meets the row, or the middle of the
    nearest gap. Between rows, where no vertex is drawn, it runs diagonally."""
    path = [p]
    sign = 1.0 if q[1] > p[1] else -1.0
    for y, xs in rows:
        ideal = p[0] + (q[0] - p[0]) * (y - p[1]) / (q[1] - p[1])
        if len(xs) and np.abs(xs - ideal).min() < CLEARANCE + 4:
            edges = np.concatenate([[xs[0] - _SPACING], xs, [xs[-1] + _SPACING]])
            gaps = (edges[:-1] + edges[1:]) / 2
            ideal = float(gaps[np.abs(gaps - ideal).argmin()])
        path += [np.array([ideal, y - _STUB * sign]), np.array([ideal, y + _STUB * sign])]
    path.append(q)
    return np.stack(path)


_STUB = 18.0
"""How far a routed edge runs straight down from its tail (and up into its head): below
the 14.5 units that the drawn shapes of the tail's row reach."""


def edge_routes(dag: Dag, x: list[float], y: list[float]) -> dict[tuple[int, int], list]:
    """Return the path of each edge that is not drawn as a straight line.

    An edge is straight unless its segment comes within :data:`CLEARANCE` of a vertex it
    does not join; then it becomes a path through waypoints: straight down out of its tail,
    one point on each row it crosses, in a gap between that row's vertices (the dummy
    vertices of a layered drawing), and straight down into its head.
    Only the waypoints are returned, ``[[x, y], ...]`` from the tail's row down.
    """
    xy = np.column_stack([np.asarray(x, dtype=float), np.asarray(y, dtype=float)])
    order = np.argsort(xy[:, 1], kind="stable")
    ys = xy[order, 1]
    row_xs = {float(r): np.sort(xy[xy[:, 1] == r, 0]) for r in np.unique(xy[:, 1])}
    routes: dict[tuple[int, int], list] = {}
    for u, v in dag.edges().tolist():
        top, bottom = sorted((y[u], y[v]))
        lo, hi = np.searchsorted(ys, top, "left"), np.searchsorted(ys, bottom, "right")
        others = order[lo:hi]
        near = xy[others[(others != u) & (others != v)]]
        p, q = xy[u], xy[v]
        if _clear(np.stack([p, q]), near) or top == bottom:
            continue
        between = [(r, xs) for r, xs in sorted(row_xs.items()) if top < r < bottom]
        if y[u] > y[v]:
            between.reverse()
        path = _waypoints(p, q, between)[1:-1]
        # Leave and enter vertically, clear of the neighbours in the ends' own rows.
        down = 1.0 if q[1] > p[1] else -1.0
        stub = min(_STUB, abs(q[1] - p[1]) / 3)
        path = [(p[0], p[1] + down * stub), *path, (q[0], q[1] - down * stub)]
        routes[(u, v)] = [[round(float(a), 1), round(float(b), 1)] for a, b in path]
    return routes


def _stage_order(dag: Dag, stages: list[str]) -> list[str] | None:
    """Stages in a topological order of the stage graph (ties: first appearance), or None."""
    first = list(dict.fromkeys(stages))
    after: dict[str, set[str]] = {name: set() for name in first}
    for u, v in dag.edges().tolist():
        if stages[u] != stages[v]:
            after[stages[u]].add(stages[v])
    waiting = {name: 0 for name in first}
    for targets in after.values():
        for name in targets:
            waiting[name] += 1
    order: list[str] = []
    ready = [name for name in first if waiting[name] == 0]
    while ready:
        name = min(ready, key=first.index)
        ready.remove(name)
        order.append(name)
        for target in after[name]:
            waiting[target] -= 1
            if waiting[target] == 0:
                ready.append(target)
    return order if len(order) == len(first) else None


def _rows_by_stage(dag: Dag, stages: list[str]) -> tuple[list[list[int]], list[str]]:
    order = _stage_order(dag, stages)
    if order is None:  # stages depend on each other both ways: draw by depth
        return _rows_by_depth(dag)
    indegree = dag.indegree.tolist()
    inputs_only = {name: True for name in order}
    for v, name in enumerate(stages):
        inputs_only[name] = inputs_only[name] and indegree[v] == 0
    lead = 0  # the leading stages of inputs share one row
    while lead < len(order) and inputs_only[order[lead]]:
        lead += 1
    lead = max(lead, 1)
    rank = {name: max(i - lead + 1, 0) for i, name in enumerate(order)}
    group_titles = [
        "inputs " + ", ".join(order[:lead]) if lead > 1 else STAGE_TITLES.get(order[0], order[0])
    ] + [STAGE_TITLES.get(name, name) for name in order[lead:]]
    inner = [0] * dag.num_vertices
    for v in range(dag.num_vertices):
        same = [p for p in dag.predecessors(v).tolist() if stages[p] == stages[v]]
        inner[v] = 1 + max((inner[p] for p in same), default=-1)
    keys = sorted({(rank[stages[v]], inner[v]) for v in range(dag.num_vertices)})
    row_of = {key: i for i, key in enumerate(keys)}
    rows: list[list[int]] = [[] for _ in keys]
    for v in range(dag.num_vertices):
        rows[row_of[(rank[stages[v]], inner[v])]].append(v)
    titles = [group_titles[group] if depth == 0 else "" for group, depth in keys]
    return rows, titles


def _rows_by_depth(dag: Dag) -> tuple[list[list[int]], list[str]]:
    depth = [0] * dag.num_vertices
    for v in range(dag.num_vertices):
        depth[v] = 1 + max((depth[p] for p in dag.predecessors(v).tolist()), default=-1)
    rows: list[list[int]] = [[] for _ in range(max(depth) + 1)]
    for v, level in enumerate(depth):
        rows[level].append(v)
    return rows, [f"layer {i}" for i in range(len(rows))]


def layout(dag: Dag, *, staged: bool = True) -> dict[str, object]:
    """Return the drawing of ``dag``: vertex coordinates, stages and row titles (JSON-ready).

    Parameters
    ----------
    dag : Dag
        At most :data:`MAX_DRAW_VERTICES` vertices (the caller checks).
    staged : bool
        Group rows by builder stage (``True``, for builder DAGs) or by topological
        depth (``False``, any DAG).

    Returns
    -------
    dict
        ``x``, ``y`` (by vertex), ``stage`` (by vertex, ``None`` when not staged),
        ``short`` (by vertex, :func:`short_label`), ``bends`` (``[u, v, [[x, y], ...]]``,
        the waypoints of each edge not drawn straight, see :func:`edge_routes`), ``rows``
        (``[{"y", "title"}]``),
        ``width``, ``height``.

    Examples
    --------
    >>> g = Dag.from_edges(["a", "b", "c"], [(0, 2), (1, 2)])
    >>> picture = layout(g, staged=False)
    >>> picture["y"][0] == picture["y"][1] < picture["y"][2]
    True
    """
    stages = stage_names(dag) if staged else None
    rows, titles = _rows_by_stage(dag, stages) if stages else _rows_by_depth(dag)
    position: dict[int, float] = {}
    for row in rows:
        for i, v in enumerate(row):
            position[v] = i - (len(row) - 1) / 2
    for _ in range(3):
        for row in rows[1:]:
            row.sort(key=lambda v: (_barycentre(dag, v, position), v))
            for i, v in enumerate(row):
                position[v] = i - (len(row) - 1) / 2
    widest = max(len(row) for row in rows)
    width = _MARGIN + max(widest * _SPACING, 420) + 20
    centre = _MARGIN + (width - _MARGIN) / 2
    x = [0.0] * dag.num_vertices
    y = [0.0] * dag.num_vertices
    for level, row in enumerate(rows):
        for v in row:
            x[v] = round(centre + position[v] * _SPACING, 1)
            y[v] = 30 + level * _ROW
    routes = edge_routes(dag, x, y)
    reach = max((wx for path in routes.values() for wx, _ in path), default=0.0)
    width = max(width, round(reach + 20))
    return {
        "x": x,
        "y": y,
        "stage": stages,
        "short": [short_label(text) for text in dag.labels],
        "bends": [[u, v, path] for (u, v), path in sorted(routes.items())],
        "rows": [{"y": 30 + level * _ROW, "title": title} for level, title in enumerate(titles)],
        "width": width,
        "height": 30 + len(rows) * _ROW,
    }


def _barycentre(dag: Dag, v: int, position: dict[int, float]) -> float:
    preds = dag.predecessors(v).tolist()
    if not preds:
        return position[v]
    return sum(position[p] for p in preds) / len(preds)
