"""Tests of the ILP baseline of benchmarks/exact.py: the time-indexed model plays the same game.

The model is a benchmark baseline (optional extra ``ilp``); these tests run where OR-Tools
is installed and say so when it is not.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import given, settings

from attnio.pebble.builders import attention_forward
from attnio.pebble.exact_reference import reference_optimum
from attnio.pebble.moves import replay
from strategies import examples, pebbling_instances, variants

pytest.importorskip(
    "ortools", reason="the ILP baseline needs the optional extra: pip install -e '.[ilp]'"
)

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "exact.py"
_SPEC = importlib.util.spec_from_file_location("benchmark_exact", _PATH)
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


def _solve(dag, M, variant):
    steps = dag.num_vertices - len(dag.inputs) + reference_optimum(dag, M, variant=variant)[0] + 1
    model = bench.TimeIndexedModel(dag, M, variant, steps)
    return bench.ILP_SOLVERS["CP-SAT"][1](model, 20.0)


@settings(max_examples=examples(25), deadline=None)
@given(pebbling_instances(max_vertices=6, extra=2), variants)
def test_model_optimum_is_the_game_optimum(instance, variant):
    """On random DAGs of at most 6 vertices, with a horizon that holds an optimal pebbling,
    CP-SAT's optimum of the model is the brute-force Q and its solution replays to it."""
    dag, M = instance
    status, lower, upper, moves = _solve(dag, M, variant)
    expected = reference_optimum(dag, M, variant=variant)[0]
    assert status == "optimal"
    assert lower == upper == expected
    assert replay(dag, moves, M, variant).io == expected


def test_attention_forward_smallest():
    """Dense forward n = 1, d = 1 at M = 3: the model's optimum is Q = 4 in both variants."""
    dag = attention_forward(1, 1)
    for variant in ("standard", "oneshot"):
        status, lower, upper, moves = _solve(dag, 3, variant)
        assert (status, lower, upper) == ("optimal", 4, 4)
        assert replay(dag, moves, 3, variant).io == 4
