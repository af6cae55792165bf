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
Tagawa and Toda 1981); it is a picture, not an optimum.
"""

from __future__ import annotations

import re

from attnio.pebble import Dag

__all__ = ["MAX_DRAW_VERTICES", "STAGE_TITLES", "layout", "stage_names"]

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
        ``rows`` (``[{"y", "title"}]``), ``width``, ``height``.

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
    return {
        "x": x,
        "y": y,
        "stage": stages,
        "rows": [{"y": 30 + level * _ROW, "title": title} for level, title in enumerate(titles)],
        "width": width,
        "height": 30 + len(rows) * _ROW,
    }


def _barycentre(dag: Dag, v: int, position: dict[int, float]) -> float:
    preds = dag.predecessors(v).tolist()
    if not preds:
        return position[v]
    return sum(position[p] for p in preds) / len(preds)
