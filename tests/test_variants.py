"""Tests of the game-variant registry: one enum, one entry per variant, strings still accepted."""

from __future__ import annotations

import pytest

from attnio.pebble.errors import ParameterError
from attnio.pebble.variants import GAME_VARIANTS, VARIANTS, Variant, as_variant


def test_every_variant_has_one_registry_entry():
    """The registry holds each variant once, under its own name."""
    assert set(GAME_VARIANTS) == set(Variant)
    assert all(entry.variant is variant for variant, entry in GAME_VARIANTS.items())
    assert VARIANTS == ("standard", "oneshot")


def test_strings_are_variants():
    """A variant equals its string, so callers may pass either."""
    assert as_variant("oneshot") is Variant.ONESHOT and Variant.ONESHOT == "oneshot"
    assert not GAME_VARIANTS[as_variant("oneshot")].recomputation
    assert GAME_VARIANTS[as_variant("standard")].recomputation


def test_unknown_variant_names_the_valid_ones():
    """An unknown variant is refused with its value and the valid names."""
    with pytest.raises(
        ParameterError, match=r"variant='one-shot' must be one of \('standard', 'oneshot'\)"
    ):
        as_variant("one-shot")
