"""Tests of attnio's row-streaming schedules on the two-level machine (algorithms/streaming.py)."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import example, given, settings
from test_flash import assert_exact_around, assert_sound_or_refused

from attnio.bounds import get
from attnio.bounds.blocks import (
    ROW_STREAMING_BACKWARD_BLOCKS,
    ROW_STREAMING_FORWARD_BLOCKS,
    TWO_SWEEP_KEY_BLOCKS,
    TWO_SWEEP_QUERY_BLOCKS,
)
from attnio.bounds.symbols import M, d, n
from strategies import examples, problem_sizes

RULES = {"forward": ROW_STREAMING_FORWARD_BLOCKS, "backward": ROW_STREAMING_BACKWARD_BLOCKS}


@pytest.mark.parametrize("pass_", list(RULES))
@settings(max_examples=examples(25))
@given(sizes=problem_sizes())
@example(sizes=(37, 5, 6 * 5 + 1))
@example(sizes=(37, 5, 9 * 5 + 2))
def test_numbers_counts_and_bounds(pass_, sizes):
    """Numbers match the reference, the count equals the closed form, every lower bound holds."""
    n_, d_, M_ = sizes
    assert_sound_or_refused("row-streaming", pass_, n_, d_, M_, RULES[pass_].least_memory(d_))


@pytest.mark.parametrize("pass_", list(RULES))
@pytest.mark.parametrize("n_,d_", [(1, 1), (7, 3), (37, 5), (64, 8)])
def test_count_at_and_around_every_block_breakpoint(pass_, n_, d_):
    """At every M where the block size steps (and one word either side) the count is exact."""
    rule = RULES[pass_]
    steps = [rule.least_memory(d_) + k * rule.words(d_) for k in range(0, n_ + 1)]
    assert_exact_around("row-streaming", pass_, n_, d_, steps, rule.least_memory(d_))


@pytest.mark.parametrize("pass_", list(RULES))
@settings(max_examples=examples(25))
@given(sizes=problem_sizes(max_n=120, max_d=12))
def test_more_memory_never_costs_more(pass_, sizes):
    """The closed form never increases with M (metamorphic: a larger block is never worse)."""
    n_, d_, M_ = sizes
    record = get(f"row-streaming-{pass_}-count")
    M_ = max(M_, RULES[pass_].least_memory(d_))
    here = record.evaluate(n=n_, d=d_, M=M_)
    assert record.evaluate(n=n_, d=d_, M=M_ + 1) <= here


@pytest.mark.parametrize(
    "pass_,lower,ratio",
    [
        ("forward", "dense-forward-lower-large-sharp", 2 + 1 / d),
        ("backward", "dense-backward-lower-large-sharp", 4 - 2 / (d + 1)),
    ],
)
def test_leading_term_ratio_to_the_sharp_lower_bound(pass_, lower, ratio):
    """Count / sharp lower bound tends to 2 + 1/d forward and 4 - 2/(d + 1) backward (n, M large;
    of the record's Min, the branch that is the least there)."""
    from attnio.proofs.tightness import _in_the_limit

    count = get(f"row-streaming-{pass_}-count").explicit
    bound = _in_the_limit(get(lower).explicit)
    assert not bound.has(sp.Min)
    # drop the floors and ceilings: the leading term is what remains as n and then M grow
    smooth = count.replace(sp.ceiling, lambda x: x).replace(sp.floor, lambda x: x)
    limit = sp.limit(sp.limit(smooth / bound, n, sp.oo), M, sp.oo)
    assert sp.simplify(limit - ratio) == 0


@settings(max_examples=examples(25))
@given(sizes=problem_sizes())
@example(sizes=(37, 5, 6 * 5 + 3))
@example(sizes=(37, 5, 6 * 5 + 4))
@example(sizes=(64, 8, 64))
def test_two_sweep_numbers_counts_and_bounds(sizes):
    """The two-sweep backward: dQ, dK, dV match the reference, the count equals the record
    two-sweep-backward-count in both modes, every lower bound holds; below its least M it
    refuses with that M."""
    n_, d_, M_ = sizes
    least = max(TWO_SWEEP_KEY_BLOCKS.least_memory(d_), TWO_SWEEP_QUERY_BLOCKS.least_memory(d_))
    assert_sound_or_refused("two-sweep", "backward", n_, d_, M_, least)


@pytest.mark.parametrize("n_,d_", [(1, 1), (7, 3), (37, 5), (64, 8)])
def test_two_sweep_count_at_and_around_every_block_breakpoint(n_, d_):
    """At every M where either sweep's block steps (and one word either side) the count is
    the closed form and the peak at most M."""
    steps = {
        rule.least_memory(d_) + k * rule.words(d_)
        for rule in (TWO_SWEEP_KEY_BLOCKS, TWO_SWEEP_QUERY_BLOCKS)
        for k in range(n_ + 1)
    }
    assert_exact_around(
        "two-sweep", "backward", n_, d_, steps, TWO_SWEEP_KEY_BLOCKS.least_memory(d_)
    )


def test_two_sweep_beats_row_streaming_in_the_large_cache():
    """Its leading term is (7d + 6) / (8d + 4) of row streaming backward's ((14 d^2 + 12 d)
    n^2 / M against (16 d^2 + 8 d) n^2 / M), and at the corner points of issue 38 (n = 2^20, d = 64, M /
    d^2 in {1, 2, 4, 8, 16, 64}) its count is below every other backward count there."""
    from attnio.bounds.counts import COUNTS

    mine = get("two-sweep-backward-count")
    smooth = mine.explicit.replace(sp.ceiling, lambda x: x).replace(sp.floor, lambda x: x)
    other = get("row-streaming-backward-count").explicit
    other = other.replace(sp.ceiling, lambda x: x).replace(sp.floor, lambda x: x)
    assert (
        sp.simplify(
            sp.limit(sp.limit(smooth / other, n, sp.oo), M, sp.oo) - (7 * d + 6) / (8 * d + 4)
        )
        == 0
    )
    for ratio in (1, 2, 4, 8, 16, 64):
        point = {"n": 2**20, "d": 64, "M": ratio * 64**2}
        here = mine.evaluate(**point)
        for record in COUNTS:
            if record is mine or record.pass_ is not mine.pass_ or record.regime is not mine.regime:
                continue
            if set(record.parameters) <= set(point) and record.applies(**point):
                assert here < record.evaluate(**point), (ratio, record.name)
