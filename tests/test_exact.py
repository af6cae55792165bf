"""Tests of attnio.pebble.exact: the numba A* solver against the brute force and itself."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attnio.pebble import _exact_kernels as kern
from attnio.pebble import exact as exact_module
from attnio.pebble.builders import attention_forward
from attnio.pebble.dag import Dag
from attnio.pebble.errors import InstanceTooLargeError, MemoryTooSmallError, ParameterError
from attnio.pebble.exact import DEFAULT_RULES, EXACT_MAX_VERTICES, RULES, solve_exact, sweep_exact
from attnio.pebble.exact_reference import reference_optimum
from attnio.pebble.moves import replay
from strategies import examples, oracle_examples, pebbling_instances, relabellings, variants

DIAMOND = Dag.from_edges(["a", "b", "c", "d"], [(0, 2), (1, 2), (2, 3), (0, 3)])
# two outputs sharing inputs, a recomputation candidate at small M
FORK = Dag.from_edges(6, [(0, 2), (1, 2), (2, 3), (0, 3), (2, 4), (1, 4), (3, 5), (4, 5)])


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels() -> None:
    """Compile the numba kernels once so hypothesis deadlines measure running time only."""
    for variant in ("standard", "oneshot"):
        solve_exact(DIAMOND, 3, variant=variant, rules=())
        solve_exact(FORK, 3, variant=variant)


def _check_certificate(dag: Dag, M: int, variant: str, result) -> None:
    played = replay(dag, result.moves, M, variant)
    assert played.io == result.io == result.upper
    assert (played.loads, played.stores) == (result.loads, result.stores)


@pytest.mark.kernel_oracle
@settings(max_examples=oracle_examples(300))
@given(pebbling_instances(max_vertices=7, extra=3), variants)
@example((DIAMOND, 3), "standard")
@example((FORK, 3), "oneshot")
def test_exact_equals_reference(instance, variant):
    """On random DAGs of at most 7 vertices the solver's optimum is the brute-force optimum."""
    dag, M = instance
    result = solve_exact(dag, M, variant=variant)
    assert result.optimal
    assert result.io == reference_optimum(dag, M, variant=variant)[0]
    _check_certificate(dag, M, variant, result)


@pytest.mark.slow
@settings(max_examples=examples(400))
@given(pebbling_instances(min_vertices=8, max_vertices=9, extra=3), variants)
def test_exact_equals_reference_nine_vertices(instance, variant):
    """On random DAGs of 8 or 9 vertices the solver's optimum is the brute-force optimum."""
    dag, M = instance
    result = solve_exact(dag, M, variant=variant)
    assert result.optimal
    assert result.io == reference_optimum(dag, M, variant=variant)[0]
    _check_certificate(dag, M, variant, result)


@pytest.mark.parametrize("rule", [*RULES, "none", "all"])
@settings(max_examples=examples(100))
@given(pebbling_instances(max_vertices=8, extra=3), variants)
def test_each_rule_preserves_the_optimum(rule, instance, variant):
    """Toggling any one search rule, or running with none or all of them, leaves the proven
    optimum unchanged."""
    dag, M = instance
    default = solve_exact(dag, M, variant=variant)
    if rule == "none":
        rules = ()
    elif rule == "all":
        rules = tuple(RULES)
    else:
        rules = set(DEFAULT_RULES) ^ {rule}
    toggled = solve_exact(dag, M, variant=variant, rules=rules)
    assert default.optimal and toggled.optimal
    assert toggled.io == default.io
    _check_certificate(dag, M, variant, toggled)


@settings(max_examples=examples(30))
@given(pebbling_instances(max_vertices=8, extra=2), variants)
def test_more_memory_never_costs_more(instance, variant):
    """IO(G, M + 1) <= IO(G, M) for both variants."""
    dag, M = instance
    small = solve_exact(dag, M, variant=variant)
    large = solve_exact(dag, M + 1, variant=variant)
    assert large.io <= small.io


@settings(max_examples=examples(30))
@given(pebbling_instances(max_vertices=8, extra=2))
def test_oneshot_never_cheaper_than_standard(instance):
    """Forbidding recomputation never lowers the optimum: one-shot >= standard."""
    dag, M = instance
    assert solve_exact(dag, M, variant="oneshot").io >= solve_exact(dag, M).io


@settings(max_examples=examples(30))
@given(st.data(), pebbling_instances(max_vertices=8, extra=2), variants)
def test_relabelling_changes_nothing(data, instance, variant):
    """An isomorphic copy (shuffled labels and topological numbering) has the same optimum."""
    dag, M = instance
    copy = data.draw(relabellings(dag))
    assert solve_exact(copy, M, variant=variant).io == solve_exact(dag, M, variant=variant).io


@settings(max_examples=examples(30))
@given(pebbling_instances(min_vertices=5, max_vertices=8, extra=2), variants, st.integers(1, 200))
def test_state_limit_reports_sound_bounds(instance, variant, max_states):
    """With a tiny state table the result is lower <= IO <= upper, optimal only if proven."""
    dag, M = instance
    truth = solve_exact(dag, M, variant=variant).io
    result = solve_exact(dag, M, variant=variant, max_states=max_states)
    assert result.lower <= truth <= result.upper == result.io
    assert result.optimal == (result.lower == result.upper)
    if result.optimal:
        assert result.io == truth
    _check_certificate(dag, M, variant, result)


@settings(max_examples=examples(30))
@given(pebbling_instances(min_vertices=4, max_vertices=7, extra=2), variants, st.integers(1, 60))
@example((FORK, 3), "standard", 4)
def test_budget_lower_end_never_exceeds_the_reference_optimum(instance, variant, max_states):
    """Stopped by its state budget, the proven lower end (the least f = g + h on A*'s queue)
    never exceeds the brute-force optimum, which shares none of the search's rules."""
    dag, M = instance
    truth = reference_optimum(dag, M, variant=variant)[0]
    result = solve_exact(dag, M, variant=variant, max_states=max_states)
    assert result.lower <= truth <= result.upper
    assert not result.optimal or result.io == truth


@settings(max_examples=examples(40))
@given(pebbling_instances(min_vertices=4, max_vertices=8, extra=2), variants)
def test_growing_from_tiny_arrays_changes_nothing(instance, variant):
    """Starting with room for 2 states (so the table and queue grow and searches resume
    after TABLE_FULL / QUEUE_FULL) gives the same proven optimum as the brute force."""
    dag, M = instance
    saved = exact_module._FIRST_CAPACITY
    exact_module._FIRST_CAPACITY = 2
    try:
        result = solve_exact(dag, M, variant=variant)
    finally:
        exact_module._FIRST_CAPACITY = saved
    assert result.optimal
    assert result.io == reference_optimum(dag, M, variant=variant)[0]
    _check_certificate(dag, M, variant, result)


def test_state_limit_stops_unproven_on_a_hard_instance():
    """A hard instance under a 1000-state table stops with optimal=False and valid bounds."""
    dag = attention_forward(2, 1)
    result = solve_exact(dag, 3, max_states=1000)
    assert not result.optimal
    assert 8 <= result.lower < result.upper == result.io
    _check_certificate(dag, 3, "standard", result)


@settings(max_examples=examples(30))
@given(pebbling_instances(min_vertices=4, max_vertices=8, extra=2), variants)
def test_memory_cap_on_small_graphs_changes_nothing(instance, variant):
    """Under the smallest memory cap small graphs still prove the brute-force optimum, and
    the reported peak stays within the cap."""
    dag, M = instance
    cap = exact_module.MIN_MAX_BYTES
    result = solve_exact(dag, M, variant=variant, max_bytes=cap)
    assert result.optimal
    assert result.io == reference_optimum(dag, M, variant=variant)[0]
    assert 0 < result.peak_bytes <= cap
    _check_certificate(dag, M, variant, result)


def test_memory_cap_stops_with_sound_bounds():
    """A hard instance (standard dense forward n=2, d=1, M=3: about 200k expansions) under
    a 1 MiB cap stops unproven, with sound bounds, a replayed certificate and a peak
    within the cap."""
    dag = attention_forward(2, 1)
    cap = exact_module.MIN_MAX_BYTES
    variant = "standard"
    result = solve_exact(dag, 3, variant=variant, max_bytes=cap)
    assert not result.optimal
    assert 8 <= result.lower < result.upper == result.io
    assert 25 <= result.upper  # Q = 25 in both variants (test_attention_forward_hardest_memory)
    assert result.lower <= 25
    assert 0 < result.peak_bytes <= cap
    _check_certificate(dag, 3, variant, result)


@pytest.mark.parametrize("variant", ["standard", "oneshot"])
def test_reports_the_memory_it_used(variant):
    """``peak_bytes`` counts at least the stored states' rows (two int64 words, a third
    one-shot, and three int32 links) and the queue entries (three int32), and at most the
    admission bound of ``BYTES_PER_STATE`` per state once the table is large."""
    dag = attention_forward(2, 1)
    # few rules, so the search stores many states in 2 s
    result = solve_exact(dag, 3, variant=variant, time_limit=2.0, rules=("delete-when-full",))
    width = 2 + (variant == "oneshot")
    rows = result.stored_states * (8 * width + kern.LINK_BYTES)
    assert result.stored_states > 100_000
    assert result.peak_bytes >= rows + result.queue_entries * kern.ENTRY_BYTES
    assert result.bytes_per_state <= exact_module.BYTES_PER_STATE
    assert result.bytes_per_state == result.peak_bytes / result.stored_states


def test_key_columns_are_the_words_the_search_can_set():
    """The stored state words are red and blue, then computed (one-shot), pending
    (reload-after-store) and unused (use-before-delete), each in its own column."""
    for oneshot in (0, 1):
        for flags in (0, kern.RELOAD_AFTER_STORE, kern.USE_BEFORE_DELETE, kern.ALL_FLAGS):
            params = np.zeros(8, dtype=np.int64)
            params[kern.P_ONESHOT], params[kern.P_FLAGS] = oneshot, flags
            comp, pend, unused, width = kern.key_columns(params)
            present = [c for c in (comp, pend, unused) if c >= 0]
            assert sorted(present) == list(range(2, width))
            assert (comp >= 0) == bool(oneshot)
            assert (pend >= 0) == bool(flags & kern.RELOAD_AFTER_STORE)
            assert (unused >= 0) == bool(flags & kern.USE_BEFORE_DELETE)


def test_time_limit_stops_with_sound_bounds():
    """A hard instance under a short time limit stops with sound bounds and a certificate."""
    dag = attention_forward(2, 1)
    result = solve_exact(dag, 3, time_limit=0.5)
    assert result.lower <= result.upper == result.io
    assert result.lower >= 8  # the compulsory 6 loads and 2 stores
    assert result.seconds < 30
    _check_certificate(dag, 3, "standard", result)


def test_attention_forward_small_values():
    """Dense forward n=2, d=1 (26 vertices): proven optima for M = 4..7 and both variants agree
    with the compulsory cost 8 once M >= 6."""
    dag = attention_forward(2, 1)
    results = sweep_exact(dag, [4, 5, 6, 7], variant="oneshot")
    assert all(r.optimal for r in results)
    assert [r.io for r in results][2:] == [8, 8]
    for M, result in zip([4, 5, 6, 7], results, strict=True):
        _check_certificate(dag, M, "oneshot", result)
        standard = solve_exact(dag, M)
        assert standard.optimal and standard.io <= result.io


def test_attention_forward_hardest_memory():
    """Dense forward n=2, d=1 at M=3, the hardest feasible M: both variants prove Q = 25
    (the standard search needs the pattern databases; 142 s and a 120M-state table
    without them), and the certificates replay."""
    dag = attention_forward(2, 1)
    for variant in ("standard", "oneshot"):
        result = solve_exact(dag, 3, variant=variant)
        assert result.optimal and result.io == 25
        _check_certificate(dag, 3, variant, result)


def test_sweep_matches_single_solves():
    """sweep_exact returns, in the order asked, what solve_exact returns for each M."""
    Ms = [5, 3, 4]
    swept = sweep_exact(FORK, Ms)
    assert [r.M for r in swept] == Ms
    assert [r.io for r in swept] == [solve_exact(FORK, M).io for M in Ms]


def test_progress_display_runs(capsys):
    """progress=True draws on stderr and changes nothing in the result."""
    shown = solve_exact(FORK, 3, progress=True)
    assert shown.io == solve_exact(FORK, 3).io
    assert "exact standard" in capsys.readouterr().err


def test_isolated_and_trivial_graphs_cost_nothing_or_the_compulsory():
    """A graph of isolated vertices costs 0; a single edge costs one load and one store."""
    assert solve_exact(Dag.from_edges(3, []), 1).io == 0
    edge = solve_exact(Dag.from_edges(2, [(0, 1)]), 2)
    assert (edge.io, edge.optimal) == (2, True)


def test_refuses_too_many_vertices():
    """A graph beyond the one-word bit-set encoding is refused, naming size and limit."""
    chain = Dag.from_edges(EXACT_MAX_VERTICES + 1, [(i, i + 1) for i in range(EXACT_MAX_VERTICES)])
    with pytest.raises(
        InstanceTooLargeError, match=f"{EXACT_MAX_VERTICES + 1} vertices.*{EXACT_MAX_VERTICES}"
    ):
        solve_exact(chain, 2)


def test_refuses_too_little_memory():
    """M below max in-degree + 1 is refused (no sliding)."""
    with pytest.raises(MemoryTooSmallError, match="M >= 3"):
        solve_exact(DIAMOND, 2)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"variant": "eager"},
        {"max_states": 0},
        {"max_states": 2.5},
        {"time_limit": 0},
        {"time_limit": -1.0},
        {"rules": ["heuristic", "magic"]},
        {"rules": "heuristic"},
        {"max_bytes": 0},
        {"max_bytes": 2.5},
        {"max_bytes": exact_module.MIN_MAX_BYTES - 1},
        {"max_bytes": 1 << 60},
        {"max_states": kern.MAX_ROWS},
    ],
)
def test_refuses_bad_arguments(kwargs):
    """Bad variant, state limit, time limit, rule names or memory cap raise ParameterError."""
    with pytest.raises(ParameterError):
        solve_exact(DIAMOND, 3, **kwargs)


def test_refuses_non_dag():
    """Anything but a Dag is refused with a ParameterError naming the type."""
    with pytest.raises(ParameterError, match="list"):
        solve_exact([(0, 1)], 2)  # type: ignore[arg-type]


@settings(max_examples=examples(40))
@given(pebbling_instances(max_vertices=7, extra=2), variants)
def test_heuristic_at_start_is_a_lower_bound(instance, variant):
    """The A* heuristic of the start state never exceeds the optimum (admissibility)."""
    dag, M = instance
    import numpy as np

    graph = np.zeros((3, dag.num_vertices), dtype=np.int64)
    for v in range(dag.num_vertices):
        graph[kern.G_PRED, v] = sum(1 << int(p) for p in dag.predecessors(v))
    inputs = sum(1 << int(v) for v in dag.inputs)
    outputs = sum(1 << int(v) for v in dag.outputs)
    params = np.array(
        [dag.num_vertices, inputs, outputs, M, int(variant == "oneshot"), kern.ALL_FLAGS, 0],
        dtype=np.int64,
    )
    h0 = kern.heuristic(graph, params, np.int64(0), np.int64(inputs), np.int64(0), np.int64(0))
    assert h0 <= reference_optimum(dag, M, variant=variant)[0]


def test_reported_memory_includes_the_pattern_databases():
    """``peak_bytes`` counts the pattern databases a search holds, and a memory cap covers
    them too: dense forward n=2, d=2, M=3 builds tens of MB of tables, which a 20 MB cap
    shrinks to fit, the peak staying within the cap. Bug fixed: the tables were neither
    reported nor capped."""
    dag = attention_forward(2, 2)
    free = solve_exact(dag, 3, variant="oneshot", time_limit=5.0)
    tables = sum(p.costs.nbytes for p in exact_module.build_patterns(dag, 3).patterns)
    assert tables > 20_000_000
    rows = free.stored_states * (8 * 3 + kern.LINK_BYTES) + free.queue_entries * kern.ENTRY_BYTES
    assert free.peak_bytes >= rows + tables
    cap = 20_000_000
    capped = solve_exact(dag, 3, variant="oneshot", time_limit=5.0, max_bytes=cap)
    assert 0 < capped.peak_bytes <= cap
    assert capped.lower <= 52 <= capped.upper  # IO = 52 (docs/frontier.md)
    _check_certificate(dag, 3, "oneshot", capped)
