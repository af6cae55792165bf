"""Tests of attnio.testing: the public strategies and the assertion helpers."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.bounds import Bound, get
from attnio.bounds.symbols import M, Z, d, g, n
from attnio.pebble import builders, replay
from attnio.testing import (
    DagInstance,
    LowerBoundExceededError,
    assert_lower_bound,
    assert_upper_bound,
    attention_dags,
    masks,
    move_sequences,
    points,
    records,
)
from strategies import examples

ROOT = Path(__file__).resolve().parents[1]


def _claim(expr, kind="lower", **extra) -> Bound:
    fields = dict(name="mine", kind=kind, regime="dense", pass_="forward", cache="any",
                  asymptotic=None, explicit=expr, conditions=None, source="test",
                  status="claimed")  # fmt: skip
    fields.update(extra)
    return Bound(**fields)


# ------------------------------------------------------------------ strategies


@settings(max_examples=examples(40), deadline=None)
@given(st.data(), records(with_explicit=True))
def test_points_lie_inside_the_bound(data, bound) -> None:
    """points(bound) only draws points where the bound applies, on its cache side of d^2."""
    point = data.draw(points(bound, max_n=256, max_d=32))
    params = {k: point[k] for k in bound.parameters}
    assert bound.applies(**params)
    assert point["n"] >= 1 and point["d"] >= 1 and point["M"] >= 1
    if bound.cache.value == "small":
        assert point["M"] < point["d"] ** 2
    if bound.cache.value == "large":
        assert point["M"] >= point["d"] ** 2


@settings(max_examples=examples(40), deadline=None)
@given(st.data(), st.sampled_from(["small", "large", "any"]), st.integers(1, 40))
def test_points_respect_the_cell_and_the_minimum_memory(data, cache, minimum) -> None:
    """Per cache cell, M is on the right side of d^2 and at least the feasibility minimum;
    s, s_c and Z are those of an actual mask (0 < s, s_c <= 1, n <= Z <= n^2)."""
    point = data.draw(points(cache=cache, min_memory=minimum))
    assert point["M"] >= minimum
    assert cache != "small" or point["M"] < point["d"] ** 2
    assert cache != "large" or point["M"] >= point["d"] ** 2
    assert 0 < point["s"] <= 1 and 0 < point["s_c"] <= 1
    assert point["n"] <= point["Z"] <= point["n"] ** 2


@settings(max_examples=examples(30), deadline=None)
@given(attention_dags(max_n=3, max_d=2))
def test_attention_dags_are_the_builders_graphs(instance: DagInstance) -> None:
    """Every drawn DAG has the vertex count of its builder's formula, one sink per output
    entry at least, and its parameters (Z = the mask's allowed pairs)."""
    dag = instance.dag
    subs = {n: instance.n, d: instance.d}
    if instance.kind == "attention-forward":
        formula = builders.attention_forward_vertices().subs(subs)
    elif instance.kind == "attention-backward":
        formula = builders.attention_backward_vertices().subs(subs)
    elif instance.kind == "approx-forward":
        formula = builders.approx_forward_vertices().subs({**subs, g: instance.degree})
    elif instance.kind == "approx-backward":
        formula = builders.approx_backward_vertices().subs({**subs, g: instance.degree})
    elif builders.BUILDERS[instance.kind].variant_of is not None:  # key blocks of 1
        formula = builders.BUILDERS[instance.kind].vertex_count(instance.n, instance.d)
    elif instance.kind == "sparse-forward":
        formula = builders.sparse_forward_vertices().subs({**subs, Z: instance.params["Z"]})
    else:
        columns = int(np.asarray(instance.mask).any(axis=0).sum())
        formula = builders.sparse_backward_vertices().subs(
            {**subs, Z: instance.params["Z"], builders.nonempty_columns: columns}
        )
    assert dag.num_vertices == int(formula)
    assert len(dag.outputs) >= 1 and len(dag.inputs) >= 1


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(1, 8).flatmap(lambda size: st.tuples(st.just(size), masks(size))))
def test_masks_are_square_with_no_empty_row(drawn) -> None:
    """A mask is n x n boolean and every query row attends at least one key."""
    size, mask = drawn
    assert mask.shape == (size, size) and mask.dtype == bool
    assert mask.any(axis=1).all()


@settings(max_examples=examples(30), deadline=None)
@given(st.data(), attention_dags(kinds=("attention-forward", "sparse-forward"), max_n=2))
def test_move_sequences_replay_in_both_variants(data, instance: DagInstance) -> None:
    """A drawn move sequence is a legal pebbling: the replayer accepts it in both variants."""
    dag = instance.dag
    memory = data.draw(st.integers(dag.min_memory, dag.min_memory + 4))
    moves = data.draw(move_sequences(dag, memory))
    assert replay(dag, moves, memory).io == replay(dag, moves, memory, "oneshot").io


# ------------------------------------------------------------------ assertions


@settings(max_examples=examples(15), deadline=None)
@given(attention_dags(kinds=("attention-forward", "attention-backward"), max_n=2, max_d=2))
def test_the_compulsory_bounds_pass_assert_lower_bound(instance: DagInstance) -> None:
    """The catalog's compulsory lower bounds hold on every small attention DAG."""
    name = "dense-forward-compulsory" if "forward" in instance.kind else "dense-backward-compulsory"
    result = assert_lower_bound(get(name), instance, instance.dag.min_memory + 1)
    assert replay(instance.dag, result.moves, instance.dag.min_memory + 1).io == result.io


def test_assert_lower_bound_refutes_a_bound_above_the_optimum() -> None:
    """9 words at n=2, d=1, M=6 exceeds the proven optimum 8: AssertionError saying so."""
    instance = DagInstance("attention-forward", 2, 1, builders.build("attention-forward", 2, 1))
    with pytest.raises(AssertionError, match=r"= 9 exceeds the proven optimum Q = 8"):
        assert_lower_bound(_claim(sp.Integer(9)), instance, 6)


def test_a_refuted_lower_bound_hands_over_a_pebbling_that_replays() -> None:
    """The AssertionError of a too-high lower bound carries the DAG, M and a pebbling whose
    moves the replayer accepts at a cost below the bound's value (the counterexample replays)."""
    instance = DagInstance("attention-forward", 2, 1, builders.build("attention-forward", 2, 1))
    with pytest.raises(
        LowerBoundExceededError, match=r"\.pebbling\.moves \(\d+ moves\) replay"
    ) as info:
        assert_lower_bound(_claim(sp.Integer(9)), instance, 6)
    error = info.value
    assert isinstance(error, AssertionError) and error.dag is instance.dag and error.memory == 6
    assert replay(error.dag, error.pebbling.moves, error.memory).io == error.pebbling.io == 8
    assert error.value == 9 and error.pebbling.optimal


def test_assert_lower_bound_uses_heuristic_pebblings_on_large_dags() -> None:
    """Above the exact solver's reach a replayed heuristic pebbling refutes a too-high bound:
    its cost is an upper bound on the optimum too."""
    dag = builders.build("attention-forward", 4, 2)
    with pytest.raises(AssertionError, match=r"a pebbling \(search\) that costs"):
        assert_lower_bound(_claim(n**2 * d**2 * 10), dag, 8, n=4, d=2)


def test_assert_lower_bound_refuses_points_outside_the_bound() -> None:
    """A bound that does not apply at the point is a ValueError, never a silent pass."""
    bound = _claim(4 * n * d, conditions=M >= 100)
    with pytest.raises(ValueError, match="does not apply"):
        assert_lower_bound(bound, builders.build("attention-forward", 1, 1), 3, n=1, d=1)


@settings(max_examples=examples(20), deadline=None)
@given(points(get("flash-forward-count"), max_n=64, max_d=8))
def test_exact_counts_pass_assert_upper_bound(point) -> None:
    """The catalog's exact count of FlashAttention is an upper bound the machine meets."""
    assert_upper_bound(get("flash-forward-count"), "flash", point["n"], point["d"], point["M"])


def test_assert_upper_bound_refutes_a_too_low_bound() -> None:
    """A bound below FlashAttention's count fails with the measured count in the message."""
    bound = _claim(3 * n * d, kind="upper", algorithm="flash")
    with pytest.raises(AssertionError, match=r"below the \d+ words that flash forward moves"):
        assert_upper_bound(bound, "flash", 16, 4, 64)


def test_assert_upper_bound_passes_mask_densities() -> None:
    """Sparse runs hand the mask's s, s_c and Z to the bound (here the exact count)."""
    run = assert_upper_bound(
        get("sparse-square-tiling-forward-count"), "sparse-square-tiling", 24, 3, 64,
        block_density=0.5,
    )  # fmt: skip
    assert run.counts.io == run.closed_form


def _readme_test_file() -> str:
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    found = re.search(r"```python\n(# test_my_bound\.py.*?)```", text, re.S)
    assert found, "docs/commands.md lost its user test file"
    return found.group(1)


@pytest.mark.slow
def test_the_readme_user_test_file_runs_with_plain_pytest(tmp_path) -> None:
    """The user test file of docs/commands.md passes under plain pytest, outside the repo."""
    path = tmp_path / "test_my_bound.py"
    path.write_text(_readme_test_file(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\d+ passed", done.stdout)
