"""Tests of standard attention (DFE22 Alg. 0 and 3) on the machine."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from test_flash import assert_exact_around, assert_sound, assert_sound_or_refused

from attnio.algorithms import simulate
from attnio.algorithms.errors import ParameterError
from attnio.bounds.blocks import SCORE_PANEL_BLOCKS
from strategies import examples, problem_sizes


@pytest.mark.parametrize("pass_", ["forward", "backward"])
@settings(max_examples=examples(25))
@given(sizes=problem_sizes(max_n=24, max_d=8, max_memory=150))
def test_numbers_counts_and_bounds(pass_, sizes):
    """Numbers match the reference, counts equal the closed form and both modes, bounds hold."""
    n, d, M = sizes
    if M < 3:
        with pytest.raises(ParameterError, match="needs M >= 3"):
            simulate("standard", pass_, n, d, M)
        return
    run = simulate("standard", pass_, n, d, M)
    assert_sound(run)
    assert simulate("standard", pass_, n, d, M, numeric=False).counts == run.counts


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_quadratic_in_n_once_cache_is_large(pass_):
    """At M = 3d^2 + 3 (tiles of side d) standard attention costs Theta(nd + n^2).

    Forward: 3 ceil(n/d) nd + 5 n^2 + nd <= 8 n^2 + 4 nd; backward:
    5nd + 3n + 7 ceil(n/d) nd + 10 n^2 <= 17 n^2 + 15 nd.
    """
    coefficients = {"forward": (8, 4), "backward": (17, 15)}[pass_]
    for n, d in ((64, 8), (200, 16), (99, 5)):
        run = simulate("standard", pass_, n, d, 3 * d * d + 3, numeric=False)
        assert run.counts.io <= coefficients[0] * n * n + coefficients[1] * n * d


@settings(max_examples=examples(25))
@given(sizes=problem_sizes())
@example(sizes=(37, 5, 2 * 5 + 2))
@example(sizes=(37, 5, 2 * 5 + 3))
@example(sizes=(64, 8, 32))
def test_score_panel_numbers_counts_and_bounds(sizes):
    """The score-panel forward: O matches the reference, the count equals the record
    score-panel-forward-count in both modes, every lower bound holds; below its least M
    (2d + 3) it refuses with that M."""
    n, d, M = sizes
    assert_sound_or_refused("score-panel", "forward", n, d, M, SCORE_PANEL_BLOCKS.least_memory(d))


@pytest.mark.parametrize("n,d", [(1, 1), (7, 3), (37, 5), (64, 8)])
def test_score_panel_count_at_and_around_every_block_breakpoint(n, d):
    """At every M where the panel steps (and one word either side) the count is the
    closed form and the peak at most M."""
    rule = SCORE_PANEL_BLOCKS
    steps = [rule.least_memory(d) + k * rule.words(d) for k in range(n + 1)]
    assert_exact_around("score-panel", "forward", n, d, steps, rule.least_memory(d))


def test_score_panel_is_the_best_forward_count_near_the_corner():
    """At n = 2^20, d = 64 the score-panel count is below every other dense forward count
    at M = d^2 / 2 and M = d^2 (issue 38's corner) and above row streaming's at 2 d^2."""
    from attnio.bounds import get
    from attnio.bounds.counts import COUNTS

    mine = get("score-panel-forward-count")
    others = [
        r for r in COUNTS if r is not mine and r.pass_ is mine.pass_ and r.regime is mine.regime
    ]
    for M, best in ((64**2 // 2, True), (64**2, True), (2 * 64**2, False)):
        point = {"n": 2**20, "d": 64, "M": M}
        here = mine.evaluate(**point)
        below = [
            here < r.evaluate(**point)
            for r in others
            if set(r.parameters) <= set(point) and r.applies(**point)
        ]
        assert all(below) if best else not all(below), M
