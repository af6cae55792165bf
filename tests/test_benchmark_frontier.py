"""The frontier data (docs/frontier) and the script that keeps it (benchmarks/frontier.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from attnio.pebble import builders, read_moves, replay, solve_exact
from attnio.pebble.moves import Move

_ROOT = Path(__file__).resolve().parent.parent
_SPEC = importlib.util.spec_from_file_location(
    "benchmark_frontier", _ROOT / "benchmarks" / "frontier.py"
)
frontier = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(frontier)

_INDEX = frontier.load()
_CELLS = _INDEX["cells"]


def _id(cell: dict) -> str:
    return frontier.cell_name(*frontier._key(cell))


def test_the_index_holds_the_frontier_instances() -> None:
    """The index covers every M of the three dense frontier DAGs of docs/frontier.md, both
    variants."""
    held = {(c["dag"], c["n"], c["d"], c["variant"]) for c in _CELLS}
    for dag, n, d in (("attention-forward", 2, 2), ("attention-forward", 3, 1),
                      ("attention-backward", 2, 1)):  # fmt: skip
        for variant in frontier.VARIANTS:
            assert (dag, n, d, variant) in held


@pytest.mark.parametrize("cell", _CELLS, ids=_id)
def test_every_certificate_replays_to_its_upper_bound(cell: dict) -> None:
    """Each cell's move file is a legal pebbling, under the cell's M and variant, of the DAG
    the builders make today (labels checked move by move), costing exactly the recorded
    upper bound, and the recorded lower bound does not exceed it."""
    graph = builders.build(cell["dag"], cell["n"], cell["d"])
    assert graph.num_vertices == cell["V"]
    moves = read_moves(frontier.FOLDER / cell["certificate"], graph)
    assert replay(graph, moves, cell["M"], cell["variant"]).io == cell["upper"]
    assert 0 <= cell["lower"] <= cell["upper"]
    assert cell["lower_from"] and cell["upper_from"]


def test_the_bounds_obey_the_game() -> None:
    """Q is non-increasing in M and the standard Q is at most the one-shot Q: no recorded
    lower bound exceeds an upper bound those facts carry over (tighten applied them)."""
    cells = {(c["dag"], c["n"], c["d"], c["variant"], c["M"]): c for c in _CELLS}
    for (dag, n, d, variant, M), cell in cells.items():
        above = cells.get((dag, n, d, variant, M - 1))
        if above is not None:
            assert cell["lower"] <= above["upper"] and cell["upper"] <= above["upper"]
        if variant == "standard" and (dag, n, d, "oneshot", M) in cells:
            other = cells[(dag, n, d, "oneshot", M)]
            assert cell["upper"] <= other["upper"] and cell["lower"] <= other["upper"]


def test_the_frontier_page_shows_the_index() -> None:
    """docs/frontier.md's tables are the index rendered, so the two never disagree."""
    page = (_ROOT / "docs" / "frontier.md").read_text(encoding="utf-8")
    assert frontier.render(_INDEX) in page


def _tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str = "attention-forward"):
    """Cells M = 3, 4 of both variants of ``kind`` at n = d = 1, in a scratch folder.
    Forward: Q = 4 = the compulsory I/O from M = 3. Backward: Q = 15, 12 above 9."""
    monkeypatch.setattr(frontier, "FOLDER", tmp_path)
    graph = builders.build(kind, 1, 1)
    index = {"schema": 1, "cells": []}
    for variant in frontier.VARIANTS:
        for M in (3, 4):
            result = solve_exact(graph, M, variant=variant)
            frontier._offer(index, graph, (kind, 1, 1, variant, M),
                            result.moves, 0, "", "test")  # fmt: skip
    return graph, index


def test_offer_keeps_the_cheaper_certificate_and_the_higher_lower_bound(
    tmp_path, monkeypatch
) -> None:
    """A dearer pebbling never replaces a cheaper one; a lower bound only ever rises; a
    lower bound above the certified upper bound is refused as a contradiction."""
    graph, index = _tiny(tmp_path, monkeypatch)
    key = ("attention-forward", 1, 1, "standard", 4)
    cell = frontier._find(index, *key)
    best = cell["upper"]
    wasted = [Move("load", graph.inputs[0]), Move("delete", graph.inputs[0])]
    dearer = wasted + read_moves(tmp_path / cell["certificate"], graph)
    assert replay(graph, dearer, 4, "standard").io == best + 1
    assert not frontier._offer(index, graph, key, dearer, 0, "", "dearer")
    assert cell["upper"] == best
    assert frontier._offer(index, graph, key, dearer, best - 1, "a run", "dearer")
    assert cell["lower"] == best - 1 and cell["lower_from"] == "a run"
    assert not frontier._offer(index, graph, key, dearer, best - 2, "weaker", "dearer")
    with pytest.raises(RuntimeError, match="exceeds the certified"):
        frontier._offer(index, graph, key, dearer, best + 1, "wrong", "dearer")


def test_tighten_carries_bounds_along_m_and_between_variants(tmp_path, monkeypatch) -> None:
    """A certificate moves to M + 1 and from one-shot to standard; a lower bound moves to
    M - 1 and from standard to one-shot; each move names its reason; the saved index
    reads back equal."""
    graph, index = _tiny(tmp_path, monkeypatch, "attention-backward")
    for cell in index["cells"]:
        cell["lower"] = 9  # the compulsory I/O, as tighten would set it
    standard4 = frontier._find(index, "attention-backward", 1, 1, "standard", 4)
    standard4["lower"] = standard4["upper"]
    # make the one-shot M = 4 cell hold a dear pebbling: tighten must bring M = 3's back
    oneshot4 = frontier._find(index, "attention-backward", 1, 1, "oneshot", 4)
    oneshot3 = frontier._find(index, "attention-backward", 1, 1, "oneshot", 3)
    wasted = [Move("load", graph.inputs[0]), Move("delete", graph.inputs[0])] * 3
    dear = wasted + read_moves(tmp_path / oneshot3["certificate"], graph)
    frontier.write_moves(tmp_path / oneshot4["certificate"], dear, graph)
    oneshot4["upper"] = replay(graph, dear, 4, "oneshot").io
    frontier.tighten(index)
    assert oneshot4["upper"] == oneshot3["upper"]
    assert oneshot4["upper_from"] == "the certificate of oneshot M=3, Q non-increasing in M"
    moves = read_moves(tmp_path / oneshot4["certificate"], graph)
    assert replay(graph, moves, 4, "oneshot").io == oneshot4["upper"]
    standard3 = frontier._find(index, "attention-backward", 1, 1, "standard", 3)
    assert standard3["lower"] == standard4["upper"] and "non-increasing" in standard3["lower_from"]
    assert oneshot4["lower"] == standard4["upper"] and "one-shot" in oneshot4["lower_from"]
    frontier.save(index, tmp_path / "index.json")
    assert json.loads((tmp_path / "index.json").read_text())["cells"] == sorted(
        index["cells"], key=lambda c: (frontier.VARIANTS.index(c["variant"]), c["M"])
    )


def test_tighten_extends_a_row_that_reached_the_compulsory_io(tmp_path, monkeypatch) -> None:
    """A row whose optimum reached the compulsory I/O (Q = 4 from M = 3 at n = d = 1) is
    extended to the other row's largest M, at the same Q, with a certificate that replays
    and the compulsory I/O named as the lower bound's reason."""
    graph, index = _tiny(tmp_path, monkeypatch)
    index["cells"] = [c for c in index["cells"] if (c["variant"], c["M"]) != ("standard", 4)]
    frontier.tighten(index)
    cell = frontier._find(index, "attention-forward", 1, 1, "standard", 4)
    assert cell is not None
    assert cell["lower"] == cell["upper"] == 4
    assert cell["lower_from"] == frontier.COMPULSORY
    moves = read_moves(tmp_path / cell["certificate"], graph)
    assert replay(graph, moves, 4, "standard").io == 4
