"""Tests of attnio.pebble.patterns: the pattern databases of the exact search's heuristic."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attnio.pebble import _exact_kernels as search_kern
from attnio.pebble import _pattern_kernels as kern
from attnio.pebble import exact as exact_module
from attnio.pebble.builders import attention_forward
from attnio.pebble.dag import Dag
from attnio.pebble.exact import DEFAULT_RULES, solve_exact
from attnio.pebble.exact_reference import reference_optimum
from attnio.pebble.moves import Move, replay
from attnio.pebble.patterns import (
    Pattern,
    PatternSet,
    _local_arrays,
    build_patterns,
    choose_patterns,
    reference_costs,
    table_entries,
)
from strategies import examples, oracle_examples, pattern_choices, pebbling_instances, variants

FORK = Dag.from_edges(6, [(0, 2), (1, 2), (2, 3), (0, 3), (2, 4), (1, 4), (3, 5), (4, 5)])


def _table(dag: Dag, vertices, charged, M: int) -> np.ndarray:
    pred, is_input, weight, goal = _local_arrays(dag, vertices, charged)
    return kern.build_table(pred, is_input, weight, goal, M, kern.binomials(64))


@pytest.mark.kernel_oracle
@settings(max_examples=oracle_examples(150))
@given(st.data(), pebbling_instances(max_vertices=7, extra=2))
@example(None, (FORK, 3)).via("the fork: two outputs sharing inputs")
def test_table_equals_reference(data, instance):
    """Every entry of a kernel-built table equals the plain forward Dijkstra's cost from
    that abstract state (random DAGs, patterns and charged sets)."""
    dag, M = instance
    if data is None:
        vertices, charged = tuple(range(6)), frozenset({0, 2, 3, 5})
    else:
        vertices, charged = data.draw(pattern_choices(dag))
    table = _table(dag, vertices, charged, M)
    pattern = Pattern(vertices, charged, M, table)
    expected = reference_costs(dag, vertices, charged, M)
    assert table.size == table_entries(dag, vertices, M) == len(expected)
    for (red, blue), cost in expected.items():
        assert pattern.value(dag, red, blue) == cost


@pytest.mark.kernel_oracle
@settings(max_examples=oracle_examples(60))
@given(st.data(), pebbling_instances(max_vertices=8, extra=2))
def test_kernel_sum_equals_python_value(data, instance):
    """The search kernel's pattern sum at a random state equals the Python sum of the
    patterns' table entries at the same state."""
    dag, M = instance
    patterns = build_patterns(dag, M, max_entries=4096)
    count = dag.num_vertices
    red = data.draw(st.lists(st.integers(0, count - 1), max_size=M, unique=True))
    blue = data.draw(st.lists(st.integers(0, count - 1), unique=True)) + dag.inputs.tolist()
    packed = patterns.packed(dag)
    red_bits = np.int64(sum(1 << v for v in red))
    blue_bits = np.int64(sum(1 << v for v in set(blue)))
    assert search_kern.pattern_sum(packed, red_bits, blue_bits) == patterns.value(dag, red, blue)


@settings(max_examples=examples(80))
@given(pebbling_instances(max_vertices=8, extra=2), variants)
@example((FORK, 3), "standard")
def test_patterns_never_exceed_the_cost_still_needed(instance, variant):
    """Along an optimal pebbling, the pattern sum at every intermediate state is at most
    the cost the pebbling still spends (the suffix of an optimal pebbling is optimal):
    the heuristic is admissible where it matters."""
    dag, M = instance
    patterns = build_patterns(dag, M, max_entries=1 << 12)
    result = solve_exact(dag, M, variant=variant, rules=())
    for red, blue, _, spent in _states_along(dag, result.moves, variant):
        assert patterns.value(dag, red, blue) <= result.io - spent


def _states_along(dag, moves, variant: str):
    """Yield (red, blue, computed, I/O spent so far) before the first move and after each."""
    red: set[int] = set()
    blue = set(dag.inputs.tolist())
    computed: set[int] = set()
    spent = 0
    yield red, blue, computed, spent
    for move in moves:
        if move.op == "load":
            red.add(move.vertex)
            spent += 1
        elif move.op == "store":
            blue.add(move.vertex)
            spent += 1
        elif move.op == "compute":
            red.add(move.vertex)
            if variant == "oneshot":
                computed.add(move.vertex)
        else:
            red.discard(move.vertex)
        yield red, blue, computed, spent


@settings(max_examples=examples(100))
@given(pebbling_instances(max_vertices=8, extra=3), st.sampled_from([64, 1 << 10, 1 << 16]))
def test_chosen_patterns_respect_the_limits_and_charge_each_vertex_once(instance, cap):
    """Each chosen pattern holds its output, fits ``max_entries``, and no vertex is
    charged by two patterns (what makes the sum admissible)."""
    dag, M = instance
    chosen = choose_patterns(dag, M, max_entries=cap, max_total=4 * cap)
    charged: set[int] = set()
    outputs = set(dag.outputs.tolist())
    for vertices, mine in chosen:
        assert list(vertices) == sorted(set(vertices)) and mine <= set(vertices)
        assert outputs & set(vertices)
        assert table_entries(dag, vertices, M) <= cap
        assert not charged & mine
        charged |= mine
    assert sum(table_entries(dag, v, M) for v, _ in chosen) <= 4 * cap


@pytest.mark.kernel_oracle
@settings(max_examples=oracle_examples(200))
@given(pebbling_instances(max_vertices=7, extra=3), variants)
@example((FORK, 3), "standard")
def test_search_with_patterns_equals_reference(instance, variant):
    """With the pattern databases from the start (no probe, used even where they do not
    raise the start estimate) and, as the only known
    pebbling, an optimal one-shot pebbling made one load more expensive (so the search
    must find an optimum itself, and a heuristic that overestimated anywhere on the way
    would prune it), the solver's optimum is the brute-force optimum."""
    dag, M = instance
    oneshot = solve_exact(dag, M, variant="oneshot", rules=()).moves
    first = int(dag.inputs[0])
    padded = [Move("load", first), Move("delete", first), *oneshot]
    with (
        mock.patch.object(exact_module, "_PROBE_EXPANSIONS", 0),
        mock.patch.object(exact_module, "_seed_pebbling", lambda dag, M: padded),
        mock.patch.object(exact_module, "_patterns_help", lambda *args: True),
    ):
        result = solve_exact(dag, M, variant=variant, rules=DEFAULT_RULES)
    assert result.optimal
    assert result.io == reference_optimum(dag, M, variant=variant)[0]


def test_attention_forward_start_value():
    """On dense forward n=2, d=1, M=3 the databases see 21 of the optimal 25 at the start
    (the plain heuristic sees 8): one pattern per output, the second charging only the
    vertices the first does not."""
    dag = attention_forward(2, 1)
    patterns = build_patterns(dag, 3)
    assert [len(p.vertices) for p in patterns.patterns] == [15, 15]
    assert [len(p.charged) for p in patterns.patterns] == [15, 11]
    assert patterns.value(dag, [], dag.inputs.tolist()) == 21


def test_empty_pattern_set_sums_to_zero():
    """Without patterns the kernel's sum is 0, so the flag off changes nothing."""
    packed = PatternSet(3, ()).packed(FORK)
    assert search_kern.pattern_sum(packed, np.int64(0), np.int64(3)) == 0


@pytest.mark.parametrize(
    ("n", "d", "M", "helps"), [(2, 1, 3, True), (2, 2, 3, True), (2, 1, 7, False)]
)
def test_patterns_are_used_only_where_they_match_the_plain_start_estimate(n, d, M, helps):
    """Dense forward: n=2, d=1, M=3, the databases see 21 against the plain 8 and are used;
    n=2, d=2, M=3, 16 each, used; n=2, d=1, M=7, 5 against 8, the search runs without them."""
    dag = attention_forward(n, d)
    packed = build_patterns(dag, M).packed(dag)
    graph = exact_module._graph_arrays(dag)
    inputs = np.int64(sum(1 << v for v in dag.inputs.tolist()))
    outputs = np.int64(sum(1 << v for v in dag.outputs.tolist()))
    params = np.array([dag.num_vertices, inputs, outputs, M, 0, search_kern.HEURISTIC, 0])
    assert exact_module._patterns_help(graph, params, packed) is helps


def _additive_h(dag: Dag, M: int, variant: str, patterns: PatternSet, red, blue, computed) -> int:
    """The search kernel's heuristic with "additive-patterns" at the state (red, blue, computed)."""
    graph = exact_module._graph_arrays(dag)
    charged = set().union(*(p.charged for p in patterns.patterns)) if patterns.patterns else set()
    flags = search_kern.HEURISTIC | search_kern.PATTERN_DATABASES | search_kern.ADDITIVE_PATTERNS
    params = np.array(
        [
            dag.num_vertices,
            exact_module._bits(dag.inputs),
            exact_module._bits(dag.outputs),
            M,
            int(variant == "oneshot"),
            flags,
            0,
            exact_module._bits(sorted(charged)),
        ],
        dtype=np.int64,
    )
    bits = [np.int64(sum(1 << v for v in vs)) for vs in (red, blue, computed)]
    return int(search_kern.state_h(graph, params, patterns.packed(dag), *bits, np.int64(0)))


def _check_additive_along_optimal(instance, variant: str, cap: int) -> None:
    dag, M = instance
    patterns = build_patterns(dag, M, max_entries=cap, max_total=4 * cap)
    result = solve_exact(dag, M, variant=variant, rules=())
    for red, blue, computed, spent in _states_along(dag, result.moves, variant):
        estimate = _additive_h(dag, M, variant, patterns, red, blue, computed)
        assert estimate <= result.io - spent


@settings(max_examples=examples(100))
@given(pebbling_instances(max_vertices=8, extra=2), variants, st.sampled_from([16, 64, 1 << 10]))
@example((FORK, 3), "standard", 64)
def test_additive_estimate_never_exceeds_the_cost_still_needed(instance, variant, cap):
    """Along an optimal pebbling, the additive estimate (pattern sum plus the plain
    heuristic's moves on uncharged vertices) at every intermediate state is at most the
    cost the pebbling still spends, with patterns small enough to leave vertices
    uncharged: the "additive-patterns" rule is admissible where it matters."""
    _check_additive_along_optimal(instance, variant, cap)


@pytest.mark.slow
@settings(max_examples=examples(300))
@given(
    pebbling_instances(min_vertices=6, max_vertices=9, extra=3),
    variants,
    st.sampled_from([16, 64, 256, 1 << 10]),
)
def test_additive_estimate_never_exceeds_the_cost_still_needed_larger(instance, variant, cap):
    """The same admissibility property on 300 random DAGs of 6 to 9 vertices."""
    _check_additive_along_optimal(instance, variant, cap)


@pytest.mark.kernel_oracle
@settings(max_examples=oracle_examples(80))
@given(pebbling_instances(max_vertices=7, extra=3), variants, st.sampled_from([16, 64, 1 << 10]))
@example((FORK, 3), "standard", 64)
def test_search_with_additive_patterns_equals_reference(instance, variant, cap):
    """As test_search_with_patterns_equals_reference (databases from the start, a seed one
    load too expensive), with small patterns and the "additive-patterns" rule on and off:
    both searches prove the brute-force optimum and their certificates replay to it."""
    dag, M = instance
    oneshot = solve_exact(dag, M, variant="oneshot", rules=()).moves
    first = int(dag.inputs[0])
    padded = [Move("load", first), Move("delete", first), *oneshot]
    expected = reference_optimum(dag, M, variant=variant)[0]
    for rules in (DEFAULT_RULES, (*DEFAULT_RULES, "additive-patterns")):
        with (
            mock.patch.object(exact_module, "_PROBE_EXPANSIONS", 0),
            mock.patch.object(exact_module, "_seed_pebbling", lambda dag, M: padded),
            mock.patch.object(exact_module, "_patterns_help", lambda *args: True),
            mock.patch.object(
                exact_module,
                "build_patterns",
                lambda dag, M, **_: build_patterns(dag, M, max_entries=cap, max_total=4 * cap),
            ),
        ):
            result = solve_exact(dag, M, variant=variant, rules=rules)
        assert result.optimal
        assert result.io == expected
        assert replay(dag, result.moves, M, variant).io == expected


def test_additive_start_value():
    """Dense forward n=2, d=2, M=3: the databases alone see 16 at the start, as does the
    plain heuristic; with the plain moves on uncharged vertices added, 24."""
    dag = attention_forward(2, 2)
    patterns = build_patterns(dag, 3)
    start = ([], dag.inputs.tolist(), [])
    assert patterns.value(dag, *start[:2]) == 16
    assert _additive_h(dag, 3, "standard", patterns, *start) == 24
