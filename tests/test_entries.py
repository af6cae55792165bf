"""Tests of attnio.algorithms.entries: inputs of polynomial attention with known error."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.algorithms import simulate
from attnio.algorithms.approximate import approximate_attention, approximate_exp
from attnio.algorithms.entries import (
    ENTRY_PATTERNS,
    entry_inputs,
    known_error,
    two_score_error,
    worst_pair,
)
from attnio.algorithms.errors import AlgorithmParameterError
from attnio.algorithms.reference import attention
from strategies import examples


@pytest.mark.parametrize("pattern", ENTRY_PATTERNS)
@pytest.mark.parametrize(("n", "d", "bound"), [(1, 1, 0.5), (7, 3, 1.0), (16, 4, 2.0)])
def test_every_family_keeps_q_and_k_within_the_entry_bound(pattern, n, d, bound) -> None:
    """Q and K entries of every family lie in [-B, B], so the inputs belong to the class the
    error bound is stated for; the shapes are n x d."""
    data = entry_inputs(pattern, n, d, bound, approximate_exp(3, d * bound**2))
    assert {k: v.shape for k, v in data.items()} == {"Q": (n, d), "K": (n, d), "V": (n, d)}
    assert np.abs(data["Q"]).max() <= bound and np.abs(data["K"]).max() <= bound


@settings(max_examples=examples(25), deadline=None)
@given(
    n=st.integers(1, 24),
    d=st.integers(1, 4),
    degree=st.integers(0, 8),
    bound=st.sampled_from([0.25, 0.5, 1.0, 2.0]),
)
def test_the_machine_measures_the_known_error(n, d, degree, bound) -> None:
    """On the constant-score and two-score inputs, the error the two-level machine measures
    against exact attention equals the error known in closed form (0 on constant scores,
    at every degree, bound or no bound)."""
    for pattern in ("constant", "two-scores"):
        run = simulate("low-rank", "forward", n, d, 10_000, degree=degree, entry_bound=bound,
                       entries=pattern)  # fmt: skip
        known = known_error(pattern, n, d, bound, approximate_exp(degree, d * bound**2))
        if known is None:  # the polynomial vanishes at a constant score
            continue
        assert abs(run.error - known) <= 1e-9 + 1e-6 * known, (pattern, run.error, known)
        if pattern == "constant":
            assert known == 0


@settings(max_examples=examples(60))
@given(degree=st.integers(0, 20), radius=st.floats(0.01, 20.0), n=st.integers(1, 50))
def test_the_adversary_never_beats_the_error_bound(degree, radius, n) -> None:
    """Where the polynomial method states a finite error bound, the two-score adversary's
    error (the largest of its grid) stays within it: the bound holds where it is tested
    hardest."""
    approx = approximate_exp(degree, radius)
    bound = approx.output_bound(1.0)
    if math.isfinite(bound):
        assert worst_pair(approx, n)[2] <= bound


def test_uniform_entries_hide_what_the_adversary_shows() -> None:
    """At d = 4, B = 1, degree 6 (no finite bound) seeded uniform entries give an error
    below 0.1 (V standard normal), while the two-score input inside the same [-B, B] is
    off by more than 100 max|V| (max|V| = 1): a measured error on benign inputs is no
    accuracy guarantee."""
    approx = approximate_exp(6, 4.0)
    assert not math.isfinite(approx.output_bound(1.0))
    uniform = simulate("low-rank", "forward", 32, 4, 10_000, degree=6, entry_bound=1.0)
    adversary = simulate("low-rank", "forward", 32, 4, 10_000, degree=6, entry_bound=1.0,
                         entries="two-scores")  # fmt: skip
    assert uniform.error < 0.1 < 100 < adversary.error
    assert "error known in closed form" in adversary.note


def test_two_score_error_is_the_error_of_polynomial_attention() -> None:
    """The closed form equals polynomial attention against exact attention, computed with
    the feature map and the reference on the very inputs."""
    approx = approximate_exp(2, 2.0)
    data = entry_inputs("two-scores", 9, 2, 1.0, approx)
    got = approximate_attention(data["Q"], data["K"], data["V"], approx)
    want = attention(data["Q"], data["K"], data["V"]).O
    a, b = (float(x) for x in data["K"][:2] @ data["Q"][0])
    assert two_score_error(approx, a, b, 9) == pytest.approx(np.abs(got - want).max(), rel=1e-9)


def test_unknown_families_and_exact_algorithms_are_refused() -> None:
    """A family that does not exist, and a family given to an exact algorithm, are errors
    naming the valid choices."""
    with pytest.raises(AlgorithmParameterError, match="uniform, constant, two-scores"):
        simulate("low-rank", "forward", 4, 2, 100, degree=1, entries="diagonal")
    with pytest.raises(AlgorithmParameterError, match="entries applies only to low-rank"):
        simulate("flash", "forward", 4, 2, 100, entries="constant")
    with pytest.raises(AlgorithmParameterError, match="needs the polynomial"):
        entry_inputs("two-scores", 4, 2, 1.0)
