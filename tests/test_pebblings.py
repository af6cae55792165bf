"""Tests of attnio.bounds.pebblings: the red pebbles beyond M of each schedule's pebbling."""

from __future__ import annotations

import doctest

from attnio.bounds import pebblings
from attnio.bounds.pebblings import EXTRA_RED, extra_red, read_at, red_pebbles


def test_docstring_examples() -> None:
    """The module's examples run."""
    assert doctest.testmod(pebblings).failed == 0


def test_extra_red_is_the_tables_and_none_elsewhere() -> None:
    """extra_red reads EXTRA_RED; an algorithm it does not list (a user's count, None) has
    none, and every recorded c is a nonnegative integer or None."""
    for (algorithm, pass_), extra in EXTRA_RED.items():
        assert extra_red(algorithm, pass_) == extra
        assert extra is None or (isinstance(extra, int) and extra >= 0)
    assert extra_red("no-such-schedule", "forward") is None
    assert extra_red(None, "backward") is None


def test_read_at_raises_m_only() -> None:
    """read_at adds c to M and leaves every other parameter; None or 0 leaves the point."""
    point = {"n": 8, "d": 2, "M": 40, "Z": 36}
    assert read_at(point, 3) == {"n": 8, "d": 2, "M": 43, "Z": 36}
    assert read_at(point, None) == point == read_at(point, 0)
    assert red_pebbles(0) == "M red pebbles" and red_pebbles(7) == "M + 7 red pebbles"
