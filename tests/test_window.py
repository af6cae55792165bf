"""Tests of attnio.bounds.window: the best derived lower bound and the best count at a point."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attnio.bounds import Status, get
from attnio.bounds.errors import BoundParameterError
from attnio.bounds.window import find_window, format_words, numeric

POINT = {"n": 65536, "d": 128, "M": 65536}


@settings(max_examples=30, deadline=None)
@given(
    pass_=st.sampled_from(["forward", "backward"]),
    n=st.integers(1, 1 << 16),
    d=st.integers(1, 256),
    M=st.integers(3, 1 << 20),
)
@example(pass_="forward", n=32, d=2, M=30)  # where the pebbling search finds 4,702 I/O
@example(pass_="backward", n=4096, d=64, M=4095)  # just below the cache crossover
def test_no_derived_lower_bound_exceeds_a_derived_count(pass_, n, d, M) -> None:
    """At any point with M >= 3 (the least memory any attention DAG needs), every derived
    lower bound that applies is at most every derived count that applies, compared exactly:
    a derived lower bound above a schedule's exact count would be a wrong bound."""
    window = find_window("dense", pass_, {"n": n, "d": d, "M": M})
    assert window.lower is not None  # the compulsory I/O applies everywhere
    for count in window.counts:
        assert count.status == "derived" and count.algorithm is not None
        for lower in window.lowers:
            assert sp.Ge(count.value, lower.value) is sp.true, (count, lower)


def test_only_derived_lower_bounds_are_the_best_and_others_are_kept_apart() -> None:
    """In the small cache the reconstructed candidate applies and is listed apart, never
    as the best lower bound; the best is the largest derived one, exactly."""
    window = find_window("dense", "forward", {"n": 65536, "d": 128, "M": 4096})
    assert {s.status for s in window.lowers} == {"derived"}
    assert "dense-forward-lower-small-explicit" in [s.record for s in window.others]
    assert all(s.status != "derived" for s in window.others)
    values = [numeric(s.value) for s in window.lowers]
    assert values == sorted(values, reverse=True)
    best = get(window.lower.record).evaluate(**{"n": 65536, "d": 128, "M": 4096})
    assert best == window.lower.value


def test_records_whose_conditions_fail_are_left_out() -> None:
    """At M = 5 d + 3 FlashAttention-2 runs and FlashAttention (5 d + 4) does not; each count
    is the record's exact value."""
    window = find_window("dense", "forward", {"n": 64, "d": 4, "M": 23})
    names = [s.record for s in window.counts]
    assert "flash2-forward-count" in names and "flash-forward-count" not in names
    for standing in window.counts:
        assert standing.value == get(standing.record).evaluate(n=64, d=4, M=23)
    assert Status.DERIVED.value == window.upper.status


def test_a_point_without_a_parameter_uses_no_record_that_needs_it() -> None:
    """Sparse records need Z or s, or a mask family: with n, d and M only, none of them is
    used (a causal count, in n, d and M alone, says nothing of an unnamed mask)."""
    window = find_window("sparse", "forward", POINT)
    assert window.lower is None and window.upper is None


def test_a_family_record_is_used_only_at_a_point_of_its_family() -> None:
    """The causal counts apply at a causal point and at no window point of the same size."""
    causal = find_window("sparse", "forward", POINT, mask="causal")
    window = find_window("sparse", "forward", {**POINT, "w": 1024}, mask="window")
    assert causal.upper is not None and causal.upper.record.startswith("causal-")
    assert all(not s.record.startswith("causal-") for s in window.counts)


@pytest.mark.parametrize("value", [0, -1, 2.5, True])
def test_a_bad_point_is_refused(value) -> None:
    """A parameter that is not a positive integer is one error naming it."""
    with pytest.raises(BoundParameterError, match="must be a positive integer"):
        find_window("dense", "forward", {**POINT, "M": value})


def test_words_are_exact_integers_or_marked_rounded() -> None:
    """An integer is shown exactly; an irrational value to one decimal, marked ~."""
    assert format_words(sp.Integer(1234567)) == "1,234,567"
    assert format_words(sp.sqrt(2) * 1000) == "~1,414.2"
