"""Tests of attnio.pebble.heuristic and attnio.pebble.search: kernel vs reference, legality,
metamorphic properties, and comparisons with the exact solver."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from attnio.pebble import builders, heuristic, reference, search
from attnio.pebble.dag import Dag
from attnio.pebble.errors import MemoryTooSmallError, ParameterError
from attnio.pebble.exact import solve_exact
from attnio.pebble.heuristic import (
    compile_kernels,
    compulsory_io,
    natural_order,
    pebble,
    play,
    validate_order,
)
from attnio.pebble.moves import replay
from attnio.pebble.search import depth_first_order, search_order
from strategies import dag_and_memory, dags, examples, oracle_examples, topological_orders


@pytest.fixture(scope="session", autouse=True)
def _compiled() -> None:
    """Compile the numba kernels once so hypothesis deadlines time runs, not compilation."""
    compile_kernels()


@pytest.mark.parametrize("module", [heuristic, search])
def test_docstring_examples(module) -> None:
    """Every example in the module's docstrings runs as written."""
    assert doctest.testmod(module).failed == 0


@pytest.mark.kernel_oracle
@settings(max_examples=oracle_examples(150))
@given(dag_and_memory(max_vertices=10), st.sampled_from(["belady", "lru"]), st.data())
@example((Dag.from_edges(3, [(0, 2), (1, 2)]), 3), "belady", None)
def test_kernel_matches_reference(drawn, policy: str, data) -> None:
    """The numba kernel makes exactly the moves of the pure-Python reference on any order."""
    dag, M = drawn
    order = natural_order(dag) if data is None else data.draw(topological_orders(dag))
    fast = play(dag, M, order=order, policy=policy, moves=True)
    slow = reference.play_order(dag, order.tolist(), M, policy)
    assert fast.moves == slow


@settings(max_examples=examples(100))
@given(
    dag_and_memory(max_vertices=12),
    st.sampled_from(["belady", "lru", "search"]),
    st.sampled_from(["standard", "oneshot"]),
)
def test_every_pebbling_replays(drawn, method: str, variant: str) -> None:
    """Every returned move sequence is accepted by the replayer at the reported cost."""
    dag, M = drawn
    result = pebble(dag, M, heuristic=method, variant=variant, moves=True, iterations=20)
    replayed = replay(dag, result.moves, M, variant=variant)
    assert (replayed.io, replayed.loads, replayed.stores) == (
        result.io,
        result.loads,
        result.stores,
    )
    assert result.upper == result.io >= result.lower == compulsory_io(dag)
    assert result.optimal == (result.io == result.lower)


@given(dags(max_vertices=12))
def test_enough_memory_costs_the_compulsory_io(dag: Dag) -> None:
    """With a red pebble for every vertex, Belady and LRU pay exactly the compulsory I/O."""
    for policy in ("belady", "lru"):
        result = play(dag, max(dag.num_vertices, dag.min_memory), policy=policy)
        assert result.io == compulsory_io(dag) and result.optimal


@given(dag_and_memory(max_vertices=10), st.randoms(use_true_random=False))
def test_label_renaming_changes_nothing(drawn, rnd) -> None:
    """Renaming vertices (same structure and numbering) leaves every cost unchanged."""
    dag, M = drawn
    names = [f"n{i}" for i in range(dag.num_vertices)]
    rnd.shuffle(names)
    renamed = dag.relabel(names)
    for method in ("belady", "lru", "search"):
        assert (
            pebble(dag, M, heuristic=method, iterations=10).io
            == pebble(renamed, M, heuristic=method, iterations=10).io
        )


@given(dag_and_memory(max_vertices=10))
def test_search_never_worse_than_natural(drawn) -> None:
    """The order search ends at or below Belady on the natural order."""
    dag, M = drawn
    found = search_order(dag, M, iterations=30, seed=1)
    assert found.io <= found.natural_io == play(dag, M).io
    validate_order(dag, found.order)
    assert play(dag, M, order=found.order).io == found.io


@given(dags(max_vertices=12))
def test_depth_first_order_is_valid(dag: Dag) -> None:
    """The depth-first order lists every non-input vertex once, topologically."""
    validate_order(dag, depth_first_order(dag))


@pytest.mark.parametrize("kind", ["attention-forward", "attention-backward", "approx-forward"])
def test_search_beats_natural_order_on_attention(kind: str) -> None:
    """On small attention DAGs the search finds cheaper pebblings than the natural order."""
    dag = builders.build(kind, 3, 2)
    M = dag.min_memory + 3
    assert pebble(dag, M, heuristic="search", iterations=200).io < play(dag, M).io


def test_search_is_reproducible() -> None:
    """The same seed and iteration count give the same order."""
    dag = builders.attention_forward(2, 2)
    first = search_order(dag, 5, iterations=100, seed=7)
    second = search_order(dag, 5, iterations=100, seed=7)
    assert np.array_equal(first.order, second.order)


def test_bad_arguments_are_refused() -> None:
    """Too little memory, unknown policies, bad orders and budgets are refused clearly."""
    dag = Dag.from_edges(["a", "b", "c", "d"], [(0, 2), (1, 2), (2, 3)])
    with pytest.raises(MemoryTooSmallError):
        play(dag, 2)
    with pytest.raises(ParameterError, match="policy"):
        play(dag, 3, policy="fifo")
    with pytest.raises(ParameterError, match="heuristic"):
        pebble(dag, 3, heuristic="magic")
    with pytest.raises(ParameterError, match="variant"):
        play(dag, 3, variant="sliding")
    for order, message in (
        ([3, 2], "before its predecessor"),
        ([2], "misses"),
        ([0, 2, 3], "input"),
        ([2, 2, 3], "repeats"),
        ([2, 9], "outside"),
        ([[2, 3]], "one-dimensional"),
    ):
        with pytest.raises(ParameterError, match=message):
            play(dag, 3, order=order)
    with pytest.raises(ParameterError, match="iterations"):
        search_order(dag, 3, iterations=-1)
    with pytest.raises(ParameterError, match="time_limit"):
        search_order(dag, 3, time_limit=0)


def test_outputs_stored_once_values_stored_only_when_needed() -> None:
    """Each output is stored once; a non-output is stored only when evicted while still needed."""
    dag = builders.attention_forward(2, 2)
    result = play(dag, dag.min_memory + 1, moves=True)
    stored = [v for op, v in result.moves if op == "store"]
    assert len(stored) == len(set(stored))
    outputs = set(dag.outputs.tolist())
    assert outputs <= set(stored)
    for position, (op, v) in enumerate(result.moves):
        if op == "store" and v not in outputs:
            later = result.moves[position + 1 :]
            assert ("load", v) in later


# ------------------------------------------------------------ against the exact solver


@settings(max_examples=examples(25), deadline=None)
@given(dag_and_memory(max_vertices=7, extra=2))
def test_heuristic_not_below_exact(drawn) -> None:
    """Heuristic pebblings never cost less than the proven optimum (both variants).

    The exact solver's own metamorphic properties (more memory, one-shot against
    standard, relabelling) are tested in test_exact.py.
    """
    dag, M = drawn
    for variant in ("standard", "oneshot"):
        best = solve_exact(dag, M, variant=variant)
        assert best.optimal
        for method in ("belady", "lru", "search"):
            assert pebble(dag, M, heuristic=method, iterations=20).io >= best.io


@settings(max_examples=examples(40))
@given(dags(max_vertices=9), st.data())
def test_too_little_memory_refused_everywhere(dag: Dag, data) -> None:
    """Every entry point refuses M below max in-degree + 1 with MemoryTooSmallError."""
    assume(dag.min_memory > 1)
    M = data.draw(st.integers(1, dag.min_memory - 1))
    calls = [
        lambda: play(dag, M),
        lambda: pebble(dag, M, heuristic="search", iterations=2),
        lambda: search_order(dag, M, iterations=2),
        lambda: replay(dag, [], M),
        lambda: solve_exact(dag, M),
    ]
    for call in calls:
        with pytest.raises(MemoryTooSmallError) as info:
            call()
        assert info.value.minimum == dag.min_memory


@pytest.mark.kernel_oracle
@pytest.mark.parametrize("kind", builders.KINDS)
@pytest.mark.parametrize("policy", ["belady", "lru"])
def test_kernel_matches_reference_on_attention(kind: str, policy: str) -> None:
    """On attention DAGs (long runs that compact the eviction heap) kernel and reference agree."""
    dag = builders.build(kind, 3, 2, tree="balanced")
    for M in (dag.min_memory, dag.min_memory + 5, 40):
        for order in (natural_order(dag), depth_first_order(dag)):
            fast = play(dag, M, order=order, policy=policy, moves=True).moves
            assert fast == reference.play_order(dag, order.tolist(), M, policy)


@pytest.mark.slow
@pytest.mark.kernel_oracle
@settings(max_examples=oracle_examples(60), deadline=None)
@given(dag_and_memory(min_vertices=15, max_vertices=40, extra=10), st.data())
def test_kernel_matches_reference_larger(drawn, data) -> None:
    """On larger random DAGs and random orders the kernel still makes the reference's moves."""
    dag, M = drawn
    order = data.draw(topological_orders(dag))
    for policy in ("belady", "lru"):
        fast = play(dag, M, order=order, policy=policy, moves=True).moves
        assert fast == reference.play_order(dag, order.tolist(), M, policy)


@settings(max_examples=examples(40))
@given(dags(max_vertices=10), st.sampled_from(["belady", "lru", "search"]))
def test_sweep_is_monotone_and_replays(dag: Dag, method: str) -> None:
    """A sweep's best-found I/O never increases with M and each reported pebbling replays."""
    Ms = list(range(dag.min_memory, dag.min_memory + 5))
    results = heuristic.sweep(dag, Ms, heuristic=method, moves=True, iterations=10)
    assert [r.M for r in results] == Ms
    ios = [r.io for r in results]
    assert ios == sorted(ios, reverse=True)
    for r in results:
        assert replay(dag, r.moves, r.M).io == r.io
    with pytest.raises(ParameterError, match="increasing"):
        heuristic.sweep(dag, [dag.min_memory + 1, dag.min_memory])
