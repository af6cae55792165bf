"""Tests of the masked tightness table (attnio.proofs.masked_tightness)."""

from __future__ import annotations

import functools
import json

import pytest
import sympy as sp

from attnio.bounds.masks import make_mask
from attnio.bounds.window import find_window
from attnio.proofs.errors import TightnessError
from attnio.proofs.gap import (
    MASK_NOTE,
    MASK_PAIRS_NOTE,
    MASK_WINDOW_NOTE,
    PAIR_BOUND_FAMILIES,
    measure_gap,
)
from attnio.proofs.masked_tightness import (
    masked_rows,
    pair_bound_families,
    points,
    render_masked_tightness,
)

N = 4096


@functools.cache
def _table(mask: str, window: int | None = None):
    return masked_rows(mask, N, (64,), window=window)


@pytest.mark.parametrize(("mask", "window"), [("causal", None), ("window", 256)])
def test_rows_are_the_gaps_ratios(mask: str, window: int | None) -> None:
    """At every point with a schedule, the table's rows are attnio gap's: its best schedule
    with the best derived lower bound at M + c and their ratio, and each other schedule with
    its own lower bound (gap.others), exactly."""
    table = _table(mask, window)
    compared = 0
    for point in {(r.pass_, r.point["M"]) for r in table.rows if r.count is not None}:
        pass_, memory = point
        gap = measure_gap("sparse", pass_, {"n": N, "d": 64, "M": memory}, mask=mask,
                          window=window, constant=False)  # fmt: skip
        expected = {gap.upper.record: (gap.lower.record, gap.ratio, gap.extra_red)}
        expected |= {s.record: (low.record, s.value / low.value, c) for s, low, c in gap.others}
        found = {r.count.record: (r.lower.record, r.ratio, r.extra_red) for r in table.rows
                 if (r.pass_, r.point["M"]) == point}  # fmt: skip
        assert found == expected
        compared += 1
    assert compared >= 4


def test_lower_bound_is_read_at_m_plus_c() -> None:
    """A schedule with c > 0 (causal FlashAttention-2 forward, c = 3) is compared with the
    best derived lower bound at M + c, not at M; a point where no schedule runs keeps the
    bound at M and has no ratio."""
    rows = _table("causal").rows
    flash = next(r for r in rows if r.count and r.count.algorithm == "causal-flash2"
                 and r.pass_ == "forward")  # fmt: skip
    assert flash.extra_red == 3
    at = {**flash.point, "M": flash.point["M"] + 3}
    assert flash.lower == find_window("sparse", "forward", at, mask="causal").lower
    assert flash.lower != find_window("sparse", "forward", flash.point, mask="causal").lower
    empty = next(r for r in rows if r.count is None)
    assert empty.ratio is None and empty.point["M"] == 64 * 64 // 16
    assert empty.lower == find_window("sparse", empty.pass_, empty.point, mask="causal").lower


def test_only_the_compulsory_io_where_no_pair_bound_and_the_table_says_so() -> None:
    """Band tables compare with sparse-*-compulsory alone and carry the note that it is the
    only derived lower bound; the causal table reads its pair bounds, the window's reads its
    pair bounds at M >= d^2 and the compulsory I/O below. The families with pair bounds in
    the catalog are the ones attnio gap's note names."""
    assert set(pair_bound_families()) == set(PAIR_BOUND_FAMILIES)
    band = _table("band", 64)
    assert band.compulsory_only and band.note == MASK_NOTE
    assert {r.lower.record for r in band.rows} == {
        "sparse-forward-compulsory", "sparse-backward-compulsory"}  # fmt: skip
    markdown = render_masked_tightness(band)
    assert "the only derived lower bound for this mask family is the compulsory I/O" in markdown
    assert "The only lower bound is the compulsory I/O" in render_masked_tightness(
        band, "latex")  # fmt: skip
    window = _table("window", 4096)  # wide enough for its pair bounds to pass the compulsory
    assert not window.compulsory_only and window.note == MASK_WINDOW_NOTE
    large = {r.lower.record for r in window.rows if r.point["M"] >= r.point["d"] ** 2}
    assert large == {"window-forward-lower-large-sharp", "window-backward-lower-large-sharp"}
    small = {r.lower.record for r in window.rows if r.point["M"] < r.point["d"] ** 2}
    assert small == {"sparse-forward-compulsory", "sparse-backward-compulsory"}
    causal = _table("causal")
    assert not causal.compulsory_only and causal.note == MASK_PAIRS_NOTE
    assert any(r.lower.record.startswith("causal-") for r in causal.rows)


def test_formats_hold_the_same_rows() -> None:
    """Markdown has one line per row, JSON the same rows (ratios exact and as floats), LaTeX
    one line per point with a column per schedule and its mask's label."""
    table = _table("causal")
    data = json.loads(render_masked_tightness(table, "json"))
    assert data["mask"]["spec"] == "causal" and len(data["rows"]) == len(table.rows)
    for row, plain in zip(table.rows, data["rows"], strict=True):
        if row.ratio is not None:
            assert sp.sympify(plain["ratio_exact"]) == row.ratio
    lines = render_masked_tightness(table).splitlines()
    assert sum(line.startswith("| forward") or line.startswith("| backward")
               for line in lines) == len(table.rows)  # fmt: skip
    tex = render_masked_tightness(table, "latex", "table*", "tab:x")
    assert r"\label{tab:x-tightness-causal}" in tex and r"\begin{table*}" in tex
    assert tex.count(r"$d^{2}$ &") == 2  # one row per point: d^2 once per pass


def test_bad_masks_are_one_clear_error() -> None:
    """An unknown family, one without count records (full, block), a window without its
    width or wider than n, and a bad size each raise TightnessError naming the argument."""
    cases = [
        (("diagonal",), {}, "--mask 'diagonal' is not a mask family"),
        (("full",), {}, "the full mask is dense attention"),
        (("block",), {}, "s and s_c"),
        (("window",), {}, "--mask window needs --window W"),
        (("window", 64, (8,)), {"window": 65}, "window=65 does not fit n=64"),
        (("causal", 0), {}, "--n 0 must be a positive integer"),
    ]
    for args, options, message in cases:
        with pytest.raises(TightnessError, match=message):
            masked_rows(*args, **options)


def test_points_leave_out_memories_below_one_word() -> None:
    """M runs over d^2/16, d^2 and 16 d^2; below d = 4 the first is no memory and is left
    out (a table at d = 2 still builds)."""
    assert points(8, (4, 2)) == [(4, 1), (4, 16), (4, 256), (2, 4), (2, 64)]
    table = masked_rows(make_mask("band", 16, w=2), 16, (2,))
    assert {r.point["M"] for r in table.rows} == {4, 64}


def test_the_commands_page_shows_what_the_example_prints(capsys) -> None:
    """docs/commands.md's console block of the masked table is the command's real output."""
    from pathlib import Path

    from attnio.cli import main

    command = "attnio table --tightness --mask causal --d 128"
    page = (Path(__file__).resolve().parents[1] / "docs" / "commands.md").read_text()
    shown = page.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    assert main(command.split()[1:]) == 0
    assert capsys.readouterr().out == shown
