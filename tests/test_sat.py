"""Tests of attnio.pebble.sat: the z3 time-indexed encoding agrees with the exact solver."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings

from attnio.pebble.dag import Dag
from attnio.pebble.errors import InstanceTooLargeError, MemoryTooSmallError, ParameterError
from attnio.pebble.exact import solve_exact
from attnio.pebble.moves import replay
from attnio.pebble.sat import MAX_SAT_VERTICES, sat_optimum
from strategies import examples, pebbling_instances

RECOMPUTE = Dag.from_edges(5, [(0, 1), (0, 2), (1, 2), (0, 3), (2, 3), (1, 4), (3, 4)])


@settings(max_examples=examples(25))
@given(pebbling_instances(max_vertices=6, extra=2))
@example((RECOMPUTE, 3))
def test_sat_proves_the_oneshot_optimum(instance):
    """One-shot: z3 proves the same optimum as the exact solver, with a replayable pebbling."""
    dag, M = instance
    exact = solve_exact(dag, M, variant="oneshot")
    result = sat_optimum(dag, M, variant="oneshot")
    assert result.status == "optimal" and result.proven
    assert result.io == exact.io
    assert replay(dag, result.moves, M, "oneshot").io == result.io


@settings(max_examples=examples(25))
@given(pebbling_instances(max_vertices=6, extra=2))
@example((RECOMPUTE, 3))
def test_sat_within_certificate_horizon_matches_standard_optimum(instance):
    """Standard: with a horizon that fits the exact certificate, z3's minimum is the optimum."""
    dag, M = instance
    exact = solve_exact(dag, M)
    steps = sum(op != "delete" for op, _ in exact.moves)
    result = sat_optimum(dag, M, horizon=steps)
    assert result.status == "optimal-within-horizon" and not result.proven
    assert result.io == exact.io
    assert replay(dag, result.moves, M, "standard").io == result.io


def test_recomputation_gap_seen_by_sat():
    """z3 finds the standard pebbling of cost 2 that recomputes, and proves one-shot needs 4."""
    assert sat_optimum(RECOMPUTE, 3, horizon=8).io == 2
    assert sat_optimum(RECOMPUTE, 3, variant="oneshot").io == 4


def test_too_short_horizon_is_reported_not_guessed():
    """A horizon too short for any pebbling gives status none-within-horizon and io None."""
    result = sat_optimum(RECOMPUTE, 3, horizon=2)
    assert (result.status, result.io) == ("none-within-horizon", None)


def test_short_oneshot_horizon_is_not_a_proof():
    """A one-shot optimum found within a horizon too short for the argument is not 'proven'."""
    exact = solve_exact(RECOMPUTE, 3, variant="oneshot")
    steps = sum(op != "delete" for op, _ in exact.moves)
    result = sat_optimum(RECOMPUTE, 3, variant="oneshot", horizon=steps)
    assert result.io == exact.io
    assert result.proven == (steps >= exact.io - 1 + 4)


def test_refusals():
    """Too many vertices, too little memory and bad horizon or timeout are refused."""
    chain = Dag.from_edges(MAX_SAT_VERTICES + 1, [(i, i + 1) for i in range(MAX_SAT_VERTICES)])
    with pytest.raises(InstanceTooLargeError, match=str(MAX_SAT_VERTICES)):
        sat_optimum(chain, 2)
    with pytest.raises(MemoryTooSmallError):
        sat_optimum(RECOMPUTE, 2)
    for kwargs in ({"horizon": -1}, {"horizon": 2.0}, {"timeout": 0}, {"variant": "x"}):
        with pytest.raises(ParameterError):
            sat_optimum(RECOMPUTE, 3, **kwargs)
