"""Layered drawing of a DAG: named stages for builder DAGs, topological layers otherwise.

The builders of :mod:`attnio.pebble.builders` add vertices stage by stage and name
each vertex after the value it computes (``"Q[0,1]"``, ``"QK[0,1,0]"``,
``"S[0,1]+1"``, ``"exp[0,1]"``, ``"QK[0,0,0]=S[0,0]"``). The *stage* of a vertex
is the name before its first bracket, ``=``, ``+`` or ``^``. A stage's level is the
longest chain of stages it depends on, so stages that do not depend on each other share
a row (the inputs Q, K, V, ... share the first; in the backward pass the products
Q·K, dO·Vᵀ and dO∘O share the second) and the row's title names each of them. Inside a
stage, vertices that depend on each other (summation trees) go on successive rows. If two
stages depend on each other, or for any other DAG, rows are longest-path depth.

The rest is the usual layered drawing (Sugiyama, Tagawa and Toda 1981): an edge that
skips rows gets a *lane*, a point on each row it crosses, placed like a vertex; rows are
ordered by barycentre sweeps down and up, keeping the order with the fewest crossings;
each row is then moved, in order, as close (least squares) to its neighbours as the gaps
allow, a few sweeps down and up. An edge is drawn straight, or through its lanes, which it
crosses vertically, and leaves its tail or enters its head vertically where a straight
line would come near a neighbour: no edge passes within :data:`CLEARANCE` of a vertex it
does not join and no two vertices overlap (tested on every builder at small sizes). It is
a picture, not an optimum. Each vertex gets a short label (:func:`short_label`), written
above it.
"""

from __future__ import annotations

import itertools
import re

import numpy as np

from attnio.pebble import Dag

__all__ = [
    "CLEARANCE",
    "MAX_DRAW_VERTICES",
    "SHORT_LABEL_CHARS",
    "STAGE_TITLES",
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
join: every drawn shape lies within 14.5 of its centre (circles of radius 11, input squares of
half side 11 with corners rounded by 3, output rings of radius 14.5; explorer.js)."""

_SPACING = 46
"""Between the centres of two vertices of a row."""
_LANE = 26
"""Between a vertex and a lane beside it: beyond :data:`CLEARANCE` and the 19 that half a
7-character label spans."""
_LANE_GAP = 14
"""Between two lanes."""
_LANE_WEIGHT = 8.0
"""How much more a lane than a vertex holds to its neighbours' x (long edges run straight)."""
_ROW = 58
_STUB = 18.0
"""How far an edge runs vertically on each side of a row it crosses or leaves: past the 14.5
that the row's shapes reach, so the sloped parts keep clear of every vertex."""
_DOWN = np.array([0.0, _STUB])
_MARGIN = 190
"""Left of the drawing, for the row titles."""
_MIN_WIDTH = 420
_ORDER_SWEEPS = 4
_PLACE_SWEEPS = 4


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


# ---------------------------------------------------------------------------- rows


def _stage_edges(dag: Dag, stages: list[str]) -> dict[str, set[str]]:
    """The stage graph: for each stage (in order of first vertex), the stages fed by it."""
    after: dict[str, set[str]] = {name: set() for name in dict.fromkeys(stages)}
    for u, v in dag.edges().tolist():
        if stages[u] != stages[v]:
            after[stages[u]].add(stages[v])
    return after


def _stage_order(after: dict[str, set[str]]) -> list[str] | None:
    """Stages in a topological order of the stage graph (ties: first appearance), or None."""
    first = list(after)
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
    after = _stage_edges(dag, stages)
    order = _stage_order(after)
    if order is None:  # stages depend on each other both ways: draw by depth
        return _rows_by_depth(dag)
    level = dict.fromkeys(order, 0)
    for name in order:
        for target in after[name]:
            level[target] = max(level[target], level[name] + 1)
    inner = [0] * dag.num_vertices
    for v in range(dag.num_vertices):
        same = [p for p in dag.predecessors(v).tolist() if stages[p] == stages[v]]
        inner[v] = 1 + max((inner[p] for p in same), default=-1)
    keys = sorted({(level[stages[v]], inner[v]) for v in range(dag.num_vertices)})
    row_of = {key: i for i, key in enumerate(keys)}
    rows: list[list[int]] = [[] for _ in keys]
    for v in range(dag.num_vertices):
        rows[row_of[(level[stages[v]], inner[v])]].append(v)
    titles = []
    for group, depth in keys:
        names = [name for name in order if level[name] == group]
        if depth:
            titles.append("")
        elif group == 0 and len(names) > 1:
            titles.append("inputs " + ", ".join(names))
        else:
            titles.append("\n".join(STAGE_TITLES.get(name, name) for name in names))
    return rows, titles


def _rows_by_depth(dag: Dag) -> tuple[list[list[int]], list[str]]:
    depth = [0] * dag.num_vertices
    for v in range(dag.num_vertices):
        depth[v] = 1 + max((depth[p] for p in dag.predecessors(v).tolist()), default=-1)
    rows: list[list[int]] = [[] for _ in range(max(depth) + 1)]
    for v, level in enumerate(depth):
        rows[level].append(v)
    return rows, [f"layer {i}" for i in range(len(rows))]


# ---------------------------------------------------------------------------- lanes and order


class _Layers:
    """The rows of a layered drawing with a lane (a node of its own) on each row an edge
    crosses: nodes ``0 .. n-1`` are the DAG's vertices, the others lanes. The edges out of one
    vertex share its lane on a row (they run as one line until they part)."""

    def __init__(self, dag: Dag, rows: list[list[int]]) -> None:
        self.vertices = dag.num_vertices
        self.rows = [list(row) for row in rows]
        self.row_of = [0] * dag.num_vertices
        for r, row in enumerate(rows):
            for v in row:
                self.row_of[v] = r
        self.up: list[list[int]] = [[] for _ in range(dag.num_vertices)]
        self.down: list[list[int]] = [[] for _ in range(dag.num_vertices)]
        self.chains: list[tuple[int, int, list[int]]] = []
        lane_of: dict[tuple[int, int], int] = {}  # (tail, row): the tail's lane on that row
        for u, v in dag.edges().tolist():
            lanes, previous = [], u
            for r in range(self.row_of[u] + 1, self.row_of[v]):
                node = lane_of.get((u, r))
                if node is None:
                    node = lane_of[u, r] = len(self.up)
                    self.up.append([])
                    self.down.append([])
                    self.row_of.append(r)
                    self.rows[r].append(node)
                    self._join(previous, node)
                lanes.append(node)
                previous = node
            self._join(previous, v)
            self.chains.append((u, v, lanes))

    def _join(self, a: int, b: int) -> None:
        self.down[a].append(b)
        self.up[b].append(a)

    def is_lane(self, node: int) -> bool:
        return node >= self.vertices

    def gap(self, a: int, b: int) -> float:
        """Least distance between neighbours ``a`` and ``b`` of one row."""
        return (_SPACING, _LANE, _LANE_GAP)[self.is_lane(a) + self.is_lane(b)]

    def crossings(self) -> int:
        """Edge crossings between consecutive rows in the current order."""
        position = self._positions()
        total = 0
        for row in self.rows[:-1]:
            pairs = sorted((position[a], position[b]) for a in row for b in self.down[a])
            total += _inversions([b for _, b in pairs])
        return total

    def _positions(self) -> list[int]:
        position = [0] * len(self.up)
        for row in self.rows:
            for i, node in enumerate(row):
                position[node] = i
        return position

    def order(self, fixed_first: bool) -> None:
        """Barycentre sweeps down and up; keep the order with the fewest crossings."""
        best, best_rows = self.crossings(), [list(row) for row in self.rows]
        down = [(r, self.up) for r in range(1, len(self.rows))]
        up = [(r, self.down) for r in range(len(self.rows) - 2, 0 if fixed_first else -1, -1)]
        for sweep in [down, up] * _ORDER_SWEEPS:
            for r, neighbours in sweep:
                self._sort(r, neighbours)
            count = self.crossings()
            if count < best:
                best, best_rows = count, [list(row) for row in self.rows]
        self.rows = best_rows

    def _sort(self, r: int, neighbours: list[list[int]]) -> None:
        position = self._positions()

        def key(node: int) -> tuple[float, int]:
            near = neighbours[node]
            here = position[node]
            return (sum(position[m] for m in near) / len(near) if near else here, here)

        self.rows[r].sort(key=key)

    def place(self) -> list[float]:
        """x of every node: rows packed at their gaps, then moved towards the mean x of their
        neighbours above (sweeping down) or below (sweeping up), then of both."""
        x = [0.0] * len(self.up)
        for row in self.rows:
            at = 0.0
            for i, node in enumerate(row):
                at += self.gap(row[i - 1], node) if i else 0.0
                x[node] = at
            for node in row:
                x[node] -= at / 2
        both = [a + b for a, b in zip(self.up, self.down, strict=True)]
        for _ in range(_PLACE_SWEEPS):
            for r in range(1, len(self.rows)):
                self._fit(self.rows[r], x, self.up)
            for r in range(len(self.rows) - 2, -1, -1):
                self._fit(self.rows[r], x, self.down)
        for row in self.rows:
            self._fit(row, x, both)
        return x

    def _fit(self, row: list[int], x: list[float], neighbours: list[list[int]]) -> None:
        target = [
            sum(x[m] for m in neighbours[node]) / len(neighbours[node])
            if neighbours[node]
            else x[node]
            for node in row
        ]
        weight = [_LANE_WEIGHT if self.is_lane(node) else 1.0 for node in row]
        gaps = [self.gap(a, b) for a, b in itertools.pairwise(row)]
        for node, value in zip(row, _fit_in_order(target, weight, gaps), strict=True):
            x[node] = value


def _inversions(values: list[int]) -> int:
    """Pairs ``i < j`` with ``values[i] > values[j]`` (a Fenwick tree over the values)."""
    size = max(values, default=0) + 1
    tree = [0] * (size + 1)
    count = 0
    for seen, value in enumerate(values):
        i = value + 1  # how many seen so far are <= value
        at_most = 0
        while i > 0:
            at_most += tree[i]
            i -= i & -i
        count += seen - at_most
        i = value + 1
        while i <= size:
            tree[i] += 1
            i += i & -i
    return count


def _fit_in_order(target: list[float], weight: list[float], gaps: list[float]) -> list[float]:
    """Positions ``p`` minimising ``sum(weight * (p - target)**2)`` subject to
    ``p[i + 1] - p[i] >= gaps[i]``: with ``z = p - cumsum(gaps)`` an isotonic regression,
    solved by pooling adjacent violators."""
    offset = [0.0]
    for gap in gaps:
        offset.append(offset[-1] + gap)
    blocks: list[list[float]] = []  # value, weight, count
    for t, w, c in zip(target, weight, offset, strict=True):
        blocks.append([t - c, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, n2 = blocks.pop()
            v1, w1, n1 = blocks.pop()
            blocks.append([(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    z = [value for value, _, count in blocks for _ in range(int(count))]
    return [a + c for a, c in zip(z, offset, strict=True)]


# ---------------------------------------------------------------------------- edges


def _path(
    xy: np.ndarray, lanes: list[tuple[float, float]], u: int, v: int, near: np.ndarray
) -> list[list[float]]:
    """The corners of edge u -> v between its ends: its lanes crossed vertically, a vertical
    start (end) where the first (last) straight segment would pass near a vertex; collinear
    corners dropped."""
    p, q = xy[u], xy[v]
    path = [p]
    for x, y in lanes:
        path += [np.array([x, y - _STUB]), np.array([x, y + _STUB])]
    path.append(q)
    if not _clear(np.stack(path[:2]), near):
        path.insert(1, p + _DOWN)
    if not _clear(np.stack(path[-2:]), near):
        path.insert(-1, q - _DOWN)
    corners = []
    for i in range(1, len(path) - 1):
        (a, b), (c, e) = path[i] - path[i - 1], path[i + 1] - path[i]
        if abs(a * e - b * c) > 1e-9 * (abs(a) + abs(b)) * (abs(c) + abs(e)):  # not collinear
            corners.append([float(path[i][0]), float(path[i][1])])
    return corners


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
        the corners of each edge not drawn as one straight line, from its tail), ``rows``
        (``[{"y", "title"}]``, a title of several stages one per line), ``width``,
        ``height``.

    Examples
    --------
    >>> g = Dag.from_edges(["a", "b", "c"], [(0, 2), (1, 2)])
    >>> picture = layout(g, staged=False)
    >>> picture["y"][0] == picture["y"][1] < picture["y"][2]
    True
    """
    stages = stage_names(dag) if staged else None
    rows, titles = _rows_by_stage(dag, stages) if stages else _rows_by_depth(dag)
    layers = _Layers(dag, rows)
    layers.order(fixed_first=staged)  # builders' inputs stay in matrix order
    x = layers.place()
    low, high = min(x), max(x)
    area = max(high - low + _SPACING, _MIN_WIDTH)
    shift = _MARGIN + (area - (high - low)) / 2 - low
    x = [round(value + shift, 1) for value in x]
    y = [30.0 + _ROW * r for r in layers.row_of]
    xy = np.column_stack([x[: dag.num_vertices], y[: dag.num_vertices]])
    bends = []
    for u, v, lanes in layers.chains:
        rows_near = (layers.row_of[u], layers.row_of[v])
        others = [w for r in rows_near for w in layers.rows[r] if w not in (u, v) and w < len(xy)]
        corners = _path(xy, [(x[m], y[m]) for m in lanes], u, v, xy[others])
        if corners:
            bends.append([u, v, corners])
    return {
        "x": x[: dag.num_vertices],
        "y": y[: dag.num_vertices],
        "stage": stages,
        "short": [short_label(text) for text in dag.labels],
        "bends": sorted(bends),
        "rows": [{"y": 30 + r * _ROW, "title": title} for r, title in enumerate(titles)],
        "width": round(_MARGIN + area + 20),
        "height": 30 + len(rows) * _ROW,
    }
