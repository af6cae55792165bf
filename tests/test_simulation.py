"""Tests of simulate(): parameter validation and agreement with the catalog records it names."""

from __future__ import annotations

import pytest

from attnio.algorithms import ALGORITHMS, simulate
from attnio.algorithms.errors import ParameterError, UnknownAlgorithmError


def test_unknown_algorithm_lists_the_valid_names():
    """An unknown algorithm name is refused with the list of valid names."""
    with pytest.raises(UnknownAlgorithmError, match="flash2"):
        simulate("flashh", "forward", 8, 2, 100)


@pytest.mark.parametrize("field,value", [("n", 0), ("d", -1), ("M", 2.5), ("n", True)])
def test_nonpositive_sizes_refused(field, value):
    """n, d, M must be positive integers; the message names the argument and its value."""
    sizes = {"n": 8, "d": 2, "M": 100, field: value}
    with pytest.raises(ParameterError, match=f"{field}="):
        simulate("flash", "forward", **sizes)


def test_missing_pass_refused():
    """An algorithm without the requested pass says which passes it has."""
    with pytest.raises(ParameterError, match="has: forward"):
        simulate("square-tiling", "backward", 8, 2, 100)
    with pytest.raises(ParameterError, match="pass='sideways'"):
        simulate("flash", "sideways", 8, 2, 100)


def test_head_dimension_above_sequence_length_runs():
    """No algorithm requires d <= n: d > n runs and still matches its closed form."""
    for name, algo in ALGORITHMS.items():
        if algo.regime != "dense":
            continue
        for pass_ in algo.runners:
            run = simulate(name, pass_, 3, 9, 400)
            assert run.matches and run.error <= 1e-9
