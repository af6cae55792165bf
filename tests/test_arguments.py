"""Tests of the shared argument validators: one rule, in every package that takes sizes."""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms import TwoLevelMachine, simulate
from attnio.algorithms.errors import ParameterError as AlgorithmParameterError
from attnio.bounds.arguments import positive_integer, positive_number
from attnio.pebble import Dag
from attnio.pebble.builders import attention_forward
from attnio.pebble.errors import ParameterError as PebbleParameterError

BAD_INTEGERS = (0, -3, True, 2.0, "3", None)


@pytest.mark.parametrize("value", BAD_INTEGERS)
def test_every_size_argument_refuses_the_same_values(value):
    """Each package refuses a non-positive, boolean, float or string size, naming it and its value."""
    with pytest.raises(ValueError, match=r"^M=.* must be a positive integer$"):
        positive_integer("M", value)
    with pytest.raises(PebbleParameterError, match=r"M=.* must be a positive integer"):
        Dag.from_edges(3, [(0, 2), (1, 2)]).validate_memory(value)
    with pytest.raises(PebbleParameterError, match=r"n=.* must be a positive integer"):
        attention_forward(value, 1)
    with pytest.raises(AlgorithmParameterError, match=r"M=.* must be a positive integer"):
        TwoLevelMachine(value)
    with pytest.raises(AlgorithmParameterError, match=r"d=.* must be a positive integer"):
        simulate("flash", "forward", 4, value, 100)


def test_numpy_integers_are_sizes():
    """A numpy integer is accepted wherever a Python one is, and comes back as an int."""
    assert positive_integer("M", np.int64(5)) == 5
    assert type(positive_integer("M", np.int64(5))) is int
    assert Dag.from_edges(3, [(0, 2), (1, 2)]).validate_memory(np.int32(3)) == 3


@pytest.mark.parametrize("value", (0, -1.5, True, "2", float("nan")))
def test_time_limits_must_be_positive_numbers(value):
    """A time limit that is not a positive number is refused with its name and value."""
    with pytest.raises(ValueError, match=r"time_limit=.* must be a positive number"):
        positive_number("time_limit", value)


def test_infinite_time_limit_means_no_limit():
    """inf is a valid time limit."""
    assert positive_number("time_limit", float("inf")) == float("inf")
