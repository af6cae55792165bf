"""Notebook pictures of the game's objects: a DAG as layered SVG, a pebbling as an HTML table.

Small and dependency-free on purpose (Jupyter calls them for ``Dag._repr_svg_`` and
``Pebbling._repr_html_``). Vertices are drawn in rows by longest-path depth from the
inputs, inputs as squares and outputs with a double ring; each vertex's label shows
on hover. The interactive explorer (``attnio explore``) draws builder stages instead.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: dag.py and result.py import this module lazily
    from .dag import Dag
    from .result import Pebbling


__all__ = ["MAX_PICTURE_VERTICES", "dag_svg", "pebbling_html"]

MAX_PICTURE_VERTICES = 600
"""Largest DAG drawn; a larger one has no picture (the notebook shows its text repr)."""


def dag_svg(dag: Dag) -> str | None:
    """Return an SVG drawing of ``dag``, or ``None`` above :data:`MAX_PICTURE_VERTICES`.

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


def pebbling_html(pebbling: Pebbling) -> str:
    """Return a small HTML table of a pebbling's cost, bounds and provenance.

    Examples
    --------
    >>> from attnio.pebble import Dag, solve_heuristic
    >>> "<table" in pebbling_html(solve_heuristic(Dag.from_edges(3, [(0, 2), (1, 2)]), 3))
    True
    """
    p = pebbling
    status = (
        "proven optimal" if p.optimal else f"not proven optimal: {p.lower} &le; Q &le; {p.upper}"
    )
    rows = [
        ("I/O", f"{p.io} ({p.loads} loads + {p.stores} stores)"),
        ("status", status),
        ("M, variant", f"{p.M}, {escape(p.variant)}"),
        ("method", escape(p.method or "?")),
        ("vertices", str(p.vertices)),
        ("moves", "not kept" if p.moves is None else str(len(p.moves))),
        ("states explored, seconds", f"{p.states_explored}, {p.seconds:.3f}"),
    ]
    cells = "".join(
        f'<tr><th style="text-align:left">{k}</th><td style="text-align:left">{v}</td></tr>'
        for k, v in rows
    )
    return f"<table>{cells}</table>"
