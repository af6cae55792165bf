"""Tests of attnio.pebble.exact_reference: the brute-force oracle on hand-checked cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from attnio.pebble.dag import Dag
from attnio.pebble.errors import InstanceTooLargeError, MemoryTooSmallError, ParameterError
from attnio.pebble.exact_reference import reference_optimum
from attnio.pebble.moves import replay
from strategies import examples, pebbling_instances, variants


@pytest.mark.parametrize(
    ("edges", "count", "M", "expected"),
    [
        ([(0, 1)], 2, 2, 2),  # load a, compute b, store b
        ([(0, 1), (1, 2)], 3, 2, 2),  # a chain slides with delete: load, compute, delete, ...
        ([(0, 2), (1, 2)], 3, 3, 3),  # a join: two loads, one store
        ([(0, 1), (0, 2)], 3, 2, 3),  # a fork with two outputs: one load, two stores
    ],
)
def test_hand_checked_optima(edges, count, M, expected):
    """Small graphs whose optimum is evident by hand get exactly that optimum."""
    dag = Dag.from_edges(count, edges)
    for variant in ("standard", "oneshot"):
        assert reference_optimum(dag, M, variant=variant)[0] == expected


def test_recomputation_beats_one_shot():
    """Where recomputing a value saves a store and a reload, standard (2) < one-shot (4)."""
    # a -> x -> y -> z -> out, a -> y, a -> z, x -> out. At M = 3 the standard game loads a,
    # computes x, y, drops x, computes z, recomputes x from a, computes out, stores it: 2.
    # One-shot cannot recompute x, so x is stored and reloaded: 4.
    dag = Dag.from_edges(5, [(0, 1), (0, 2), (1, 2), (0, 3), (2, 3), (1, 4), (3, 4)])
    assert reference_optimum(dag, 3)[0] == 2
    assert reference_optimum(dag, 3, variant="oneshot")[0] == 4


@settings(max_examples=examples(40))
@given(pebbling_instances(max_vertices=7, extra=2), variants)
def test_reference_pebbling_replays_at_its_cost(instance, variant):
    """The reference's move sequence is legal and costs exactly the optimum it reports."""
    dag, M = instance
    cost, moves = reference_optimum(dag, M, variant=variant)
    assert replay(dag, moves, M, variant).io == cost


@settings(max_examples=examples(30))
@given(pebbling_instances(max_vertices=6, extra=2))
def test_reference_oneshot_at_least_standard(instance):
    """The one-shot optimum is never below the standard optimum."""
    dag, M = instance
    assert reference_optimum(dag, M, variant="oneshot")[0] >= reference_optimum(dag, M)[0]


def test_reference_refuses_past_its_state_limit():
    """The brute force refuses, with InstanceTooLargeError, once it sees too many states."""
    dag = Dag.from_edges(6, [(0, 3), (1, 3), (1, 4), (2, 4), (3, 5), (4, 5)])
    with pytest.raises(InstanceTooLargeError, match="max_states=5"):
        reference_optimum(dag, 3, max_states=5)


def test_reference_refuses_bad_memory_and_variant():
    """M below min_memory and an unknown variant are refused."""
    dag = Dag.from_edges(3, [(0, 2), (1, 2)])
    with pytest.raises(MemoryTooSmallError):
        reference_optimum(dag, 2)
    with pytest.raises(ParameterError):
        reference_optimum(dag, 3, variant="lazy")
