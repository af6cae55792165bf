"""Tests of square tiling (SY24 Alg. 1) and attnio's tiled small-cache backward."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from test_flash import assert_sound

from attnio.algorithms import simulate
from attnio.algorithms.errors import ParameterError
from attnio.algorithms.verification import measured_crossover
from strategies import examples, problem_sizes

CASES = [("square-tiling", "forward"), ("tiled-backward", "backward")]


@pytest.mark.parametrize("name,pass_", CASES)
@settings(max_examples=examples(25))
@given(sizes=problem_sizes(max_n=24, max_d=9, max_memory=120))
@example(sizes=(37, 5, 24))
def test_numbers_counts_and_bounds(name, pass_, sizes):
    """Numbers match the reference, counts equal the closed form and both modes, bounds hold."""
    n, d, M = sizes
    if M < 4:
        with pytest.raises(ParameterError, match="needs M >= 4"):
            simulate(name, pass_, n, d, M)
        return
    run = simulate(name, pass_, n, d, M)
    assert_sound(run)
    assert simulate(name, pass_, n, d, M, numeric=False).counts == run.counts


@settings(max_examples=examples(30))
@given(sizes=problem_sizes(max_n=64, max_d=40, max_memory=1600))
def test_tiled_backward_meets_small_cache_rate(sizes):
    """For 16 <= M < d^2 the tiled backward moves at most 46 (n^2 d + n d^2) / sqrt(M) words.

    With T = floor(sqrt(M/4)) >= sqrt(M)/4: ceil(n/T) <= 4n/sqrt(M) + 1, and n^2, nd, n are
    at most n^2 d / sqrt(M), n d^2 / sqrt(M) when sqrt(M) < d; collecting terms gives 46.
    """
    n, d, M = sizes
    if not 16 <= M < d * d:
        return
    io = simulate("tiled-backward", "backward", n, d, M, numeric=False).counts.io
    assert io <= 46 * (n * n * d + n * d * d) / math.sqrt(M)


def test_square_tiling_wins_below_crossover_and_loses_above():
    """Square tiling beats FlashAttention for M < d^2 and loses well above; they cross near d^2."""
    n, d = 128, 32
    for M, tiling_wins in ((d * d // 2, True), (d * d // 4, True), (32 * d * d, False)):
        tiling = simulate("square-tiling", "forward", n, d, M, numeric=False).counts.io
        flash = simulate("flash", "forward", n, d, M, numeric=False).counts.io
        assert (tiling < flash) is tiling_wins
    point = measured_crossover(n, d, d * d // 4, 16 * d * d)
    assert point is not None and d * d // 4 <= point <= 16 * d * d


@settings(max_examples=examples(20))
@given(sizes=problem_sizes(max_n=60, max_d=12, max_memory=600))
def test_more_memory_never_costs_more(sizes):
    """Doubling M never increases the I/O of square tiling or the tiled backward."""
    n, d, M = sizes
    M = max(M, 4)
    for name, pass_ in CASES:
        small = simulate(name, pass_, n, d, M, numeric=False).counts.io
        assert simulate(name, pass_, n, d, 2 * M, numeric=False).counts.io <= small
