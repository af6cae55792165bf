"""Tests of M sweeps: range parsing and the data a plot is drawn from."""

from __future__ import annotations

import pytest

from attnio.algorithms import parse_range, sweep
from attnio.algorithms.errors import ParameterError


@pytest.mark.parametrize("text", ["M=4", "M=a:b", "M=8:8", "M=0:5", "5:3"])
def test_bad_ranges_refused(text):
    """A sweep range that is not lo:hi with 1 <= lo < hi is refused, quoting it."""
    with pytest.raises(ParameterError, match="sweep="):
        parse_range(text)


def test_sweep_collects_measured_bounds_and_crossover():
    """A sweep holds measured I/O (gaps below an algorithm's minimum), bounds and M = d^2."""
    result = sweep(["flash", "square-tiling"], "forward", 64, 8, 16, 4096, points=10)
    assert result.crossover == 64.0
    assert result.measured["flash"][0] is None  # M = 16 < 5d + 4
    assert all(v is not None for v in result.measured["square-tiling"])
    assert result.measured["flash"][1:] == result.closed["flash"][1:]
    assert "dense-forward-compulsory" in result.lower
