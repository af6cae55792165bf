"""Tests of standard attention (DFE22 Alg. 0 and 3) on the machine."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from test_flash import assert_sound

from attnio.algorithms import simulate
from attnio.algorithms.errors import ParameterError
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
