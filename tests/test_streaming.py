"""Tests of attnio's row-streaming schedules on the two-level machine (algorithms/streaming.py)."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import example, given, settings
from test_flash import assert_sound

from attnio.algorithms import simulate
from attnio.algorithms.errors import ParameterError
from attnio.bounds import get
from attnio.bounds.blocks import ROW_STREAMING_BACKWARD_BLOCKS, ROW_STREAMING_FORWARD_BLOCKS
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
    least = RULES[pass_].least_memory(d_)
    if M_ < least:
        with pytest.raises(ParameterError, match=f"needs M >= {least}"):
            simulate("row-streaming", pass_, n_, d_, M_, numeric=False)
        return
    run = simulate("row-streaming", pass_, n_, d_, M_)
    assert_sound(run)
    assert simulate("row-streaming", pass_, n_, d_, M_, numeric=False).counts == run.counts


@pytest.mark.parametrize("pass_", list(RULES))
@pytest.mark.parametrize("n_,d_", [(1, 1), (7, 3), (37, 5), (64, 8)])
def test_count_at_and_around_every_block_breakpoint(pass_, n_, d_):
    """At every M where the block size steps (and one word either side) the count is exact."""
    rule = RULES[pass_]
    steps = [rule.least_memory(d_) + k * rule.words(d_) for k in range(0, n_ + 1)]
    for M_ in sorted({m + e for m in steps for e in (-1, 0, 1)}):
        if M_ < rule.least_memory(d_):
            continue
        run = simulate("row-streaming", pass_, n_, d_, M_, numeric=False)
        assert run.counts.io == run.closed_form, M_
        assert run.counts.peak <= M_


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
