"""Tests of the FlashAttention block rules: one rule serves the count records and the algorithms."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from attnio.algorithms import flash
from attnio.bounds.blocks import (
    FLASH2_BACKWARD_BLOCKS,
    FLASH2_FORWARD_BLOCKS,
    FLASH_BACKWARD_BLOCKS,
    FLASH_FORWARD_BLOCKS,
)
from attnio.bounds.symbols import M, d

RULES = {
    flash.forward_blocks: FLASH_FORWARD_BLOCKS,
    flash.backward_blocks: FLASH_BACKWARD_BLOCKS,
    flash.forward2_blocks: FLASH2_FORWARD_BLOCKS,
    flash.backward2_blocks: FLASH2_BACKWARD_BLOCKS,
}


@given(st.integers(1, 64), st.integers(1, 5000))
def test_symbolic_and_integer_block_sizes_agree(dv, Mv):
    """The sympy large block evaluated at (d, M) equals the integer one."""
    for rule in RULES.values():
        symbolic = rule.large_block(d, M).subs({d: dv, M: Mv})
        assert int(symbolic) == rule.large_block(dv, Mv)


@given(st.integers(1, 32), st.integers(1, 3000))
def test_algorithms_use_the_rules(dv, Mv):
    """Each FlashAttention pass takes its block sizes from its rule in attnio.bounds.blocks."""
    for sizes, rule in RULES.items():
        if rule.large_block(dv, Mv) >= 1:
            assert sizes(dv, Mv) == rule.sizes(dv, Mv)
            br, bc = rule.sizes(dv, Mv)
            small = br if rule.large == "columns" else bc
            assert small == min(rule.large_block(dv, Mv), dv)


@given(st.integers(1, 100_000))
def test_tile_sides_agree_with_the_algorithms(Mv):
    """The symbolic tile side at M equals the integer one the tiled algorithms use."""
    from attnio.algorithms.standard import standard_tile
    from attnio.algorithms.tiling import square_tile
    from attnio.bounds.blocks import SQUARE_TILES, STANDARD_TILES

    for rule, side in ((STANDARD_TILES, standard_tile), (SQUARE_TILES, square_tile)):
        assert int(rule.side(M).subs(M, Mv)) == rule.side(Mv)
        if rule.side(Mv) >= 1:
            assert side(Mv) == rule.side(Mv)


@given(st.integers(1, 16), st.integers(1, 40), st.integers(1, 4000))
def test_low_rank_rules_agree_symbolically_and_with_the_schedules(dv, rv, Mv):
    """The low-rank rules give the same blocks symbolically and numerically, and the
    algorithms' schedules read them."""
    from attnio.algorithms.approximate import backward_schedule, schedule
    from attnio.algorithms.errors import BlocksDoNotFitError
    from attnio.bounds.blocks import LOW_RANK_BACKWARD_BLOCKS, LOW_RANK_FORWARD_BLOCKS
    from attnio.bounds.symbols import r

    at = {d: dv, M: Mv, r: rv}
    for rule, plan in (
        (LOW_RANK_FORWARD_BLOCKS, lambda: schedule(1, dv, rv, Mv)),
        (LOW_RANK_BACKWARD_BLOCKS, lambda: backward_schedule(dv, rv, Mv)),
    ):
        resident = rule.resident(rv, dv, Mv)
        assert bool(rule.resident(r, d, M).subs(at)) == resident
        assert int(rule.features(d, M).subs(at)) == rule.features(dv, Mv)
        assert int(rule.rows(d, M).subs(at)) == rule.rows(dv, Mv)
        try:
            planned = plan()
        except BlocksDoNotFitError:
            assert not resident and min(rule.features(dv, Mv), rule.rows(dv, Mv)) < 1
            continue
        if resident:
            assert planned == (True, rv, rule.resident_rows(rv, dv, Mv))
        else:
            assert planned == (False, rule.features(dv, Mv), rule.rows(dv, Mv))
