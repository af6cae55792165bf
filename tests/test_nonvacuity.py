"""Tests of attnio.pebble.nonvacuity: the smallest graphs where a derived lower bound
exceeds the compulsory I/O, and the nearest ones within the exact solver's reach."""

from __future__ import annotations

import pytest
import sympy as sp

from attnio.bounds import get
from attnio.pebble import builders
from attnio.pebble.errors import PebbleParameterError
from attnio.pebble.nonvacuity import (
    _vertex_count,
    closest_vacuous,
    derived_lower_records,
    smallest_nonvacuous,
)
from attnio.pebble.player import compulsory_io
from attnio.pebble.verification import _applicable_lower


def _exact_margins(kind: str, record: str, max_vertices: int, max_memory: int):
    """(vertices, n, d, M, bound - compulsory) of every instance, the bound rounded up and
    evaluated exactly by the record (independent of the module's float screen), the
    compulsory I/O counted on the built graph."""
    bound, out = get(record), []
    for n_ in range(1, 12):
        for d_ in range(1, 12):
            if builders.BUILDERS[kind].vertex_count(n_, d_) > max_vertices:
                continue
            dag = builders.build(kind, n_, d_)
            for M in range(dag.min_memory, min(max_memory, dag.num_vertices) + 1):
                if bound.applies(n=n_, d=d_, M=M):
                    value = int(sp.ceiling(bound.evaluate(n=n_, d=d_, M=M)))
                    out.append((dag.num_vertices, n_, d_, M, value - compulsory_io(dag)))
    return out


def test_smallest_is_above_and_nothing_smaller_is():
    """The witness exceeds the compulsory I/O of its built graph, and no graph with fewer
    vertices (every M up to 12) does, by the evaluation attnio verify uses."""
    record = "dense-forward-lower-large-sharp"
    w = smallest_nonvacuous(record, max_memory=12)
    dag = builders.build(w.kind, w.n, w.d)
    assert (w.vertices, w.compulsory) == (dag.num_vertices, compulsory_io(dag))
    assert w.M >= dag.min_memory and w.margin > 0
    assert dict(_applicable_lower("forward", w.n, w.d, w.M))[record] == w.bound
    smaller = _exact_margins("attention-forward", record, w.vertices - 1, 12)
    assert smaller and max(margin for *_, margin in smaller) <= 0


def test_closest_is_the_largest_margin_within_reach():
    """The nearest instance within a vertex limit has the largest exact margin there."""
    record = "dense-backward-lower-small-sharp"
    w = closest_vacuous(record, max_vertices=60, max_memory=12)
    every = _exact_margins("attention-backward", record, 60, 12)
    assert w.margin == max(margin for *_, margin in every)


def test_none_within_a_too_small_limit():
    """A limit below the first non-vacuous graph finds nothing (the scan stops there)."""
    assert smallest_nonvacuous("causal-forward-lower-large-sharp", max_vertices=500) is None
    w = smallest_nonvacuous("causal-forward-lower-large-sharp", max_vertices=600)
    assert w is not None and w.mask == "causal" and w.margin > 0


def test_vertex_formula_matches_the_builders():
    """The numeric vertex formula the scan orders by equals the built graphs' counts."""
    for kind, mask in (("attention-backward", None), ("sparse-backward", "causal")):
        for n_, d_ in ((1, 1), (2, 3), (4, 2)):
            options = {} if mask is None else {"mask": mask}
            built = builders.build(kind, n_, d_, **options).num_vertices
            assert _vertex_count(kind, mask, n_, d_) == built


def test_records_and_refusals():
    """Only derived explicit lower records of the scanned families are accepted."""
    records = derived_lower_records()
    assert "dense-forward-lower-large-sharp" in records
    assert "causal-backward-lower-small-shared" in records
    assert not any(name.endswith("-compulsory") for name in records)
    with pytest.raises(PebbleParameterError, match="record="):
        smallest_nonvacuous("dense-forward-tight")
    with pytest.raises(PebbleParameterError, match="max_vertices"):
        closest_vacuous("dense-forward-lower-large-sharp", max_vertices=0)
