"""Tests of the approximate rows of the tightness table (attnio.proofs.approximate_tightness)."""

from __future__ import annotations

import functools
import itertools
import json

import pytest
import sympy as sp

from attnio.bounds import get
from attnio.bounds.symbols import M, d, feature_rank, n, r
from attnio.bounds.window import find_window
from attnio.proofs.approximate_tightness import (
    UNBOUNDED,
    _leading,
    approximate_rows,
    render_approximate_tightness,
)
from attnio.proofs.constants import entry_of
from attnio.proofs.errors import TightnessError
from attnio.proofs.gap import POLYNOMIAL_NOTE, measure_gap
from attnio.proofs.generate import approximate_table

N = 65536


@functools.cache
def _rows(degree: int = 2, dimensions: tuple[int, ...] = (32,)):
    return approximate_rows(degree, N, dimensions)


def test_rows_are_the_gaps_ratios() -> None:
    """At every point, the rows are attnio gap --regime approximate's: its best schedule
    with the best derived lower bound at M + c and their ratio, and each other schedule with
    its own lower bound, exactly; at d = 32 both cells occur (M < r d and M >= r d)."""
    rows = _rows()
    assert {row.cell for row in rows} == {"M < r d", "M >= r d"}
    points = {(row.pass_, row.point["M"]) for row in rows}
    for pass_, memory in points:
        gap = measure_gap("approximate", pass_, {"n": N, "d": 32, "M": memory},
                          method="polynomial", degree=2, constant=False)  # fmt: skip
        expected = {gap.upper.record: (gap.lower.record, gap.ratio, gap.extra_red)}
        expected |= {s.record: (low.record, s.value / low.value, c) for s, low, c in gap.others}
        found = {row.count.record: (row.lower.record, row.ratio, row.extra_red) for row in rows
                 if (row.pass_, row.point["M"]) == (pass_, memory)}  # fmt: skip
        assert found == expected
    assert len(points) == 6


def test_a_constant_only_where_w_fits_and_it_is_the_recorded_one() -> None:
    """A row has a constant exactly when M >= r d (n >= r, degree 2), the least C recorded
    for its obligation; below r d the row says no constant exists; at degree 1 (outside the
    obligations' g >= 2) the row says it is not proved there."""
    for row in _rows():
        if row.point["M"] >= row.point["r"] * row.point["d"]:
            obligation = next(o for o in approximate_table() if o.name == row.obligation)
            assert row.constant == entry_of(obligation)["constant"]
            assert row.commands[-1] == f"attnio prove --only '{row.obligation}'"
        else:
            assert row.constant is None and row.constant_note == UNBOUNDED
    first = approximate_rows(1, N, (4,))
    assert all(row.constant is None and "outside" in row.constant_note for row in first
               if row.cell == "M >= r d")  # fmt: skip


def test_recorded_constants_hold_at_integer_points_of_their_region() -> None:
    """count <= C * compulsory I/O, exactly, at every integer point of a small grid inside
    each obligation's region (M >= r d, n >= r, r = C(d + 2, 2), the count's conditions):
    the recorded C is not below what the formulas give."""
    for obligation in approximate_table():
        constant = entry_of(obligation)["constant"]
        count, lower = get(obligation.sources[0]), get(obligation.sources[1])
        checked = 0
        for dim, extra, size in itertools.product((1, 3, 8), (0, 300), (1, 50)):
            rank = int(feature_rank(dim, 2))
            at = {d: dim, r: rank, M: rank * dim + extra, n: rank * size}
            if not all(a.subs(at) is sp.true for a in obligation.assumptions):
                continue
            assert count.explicit.subs(at) <= constant * lower.explicit.subs(at)
            checked += 1
        assert checked >= 4


def test_below_r_d_the_ratio_of_leading_terms_grows_without_bound() -> None:
    """At M = 4 (d^2 + 5 d + 7) (inside M < r d for d >= 10, where every schedule runs) the
    ratio of leading terms of each schedule against the best derived lower bound grows with
    d (as d^(1/3) against n d^3 / M^(2/3) at this M, n large): no C exists over M < r d."""
    big = 2**22
    for pass_ in ("forward", "backward"):
        ratios: dict[str, list[float]] = {}
        for dim in (16, 128, 1024):
            rank = int(feature_rank(dim, 2))
            point = {"n": big, "d": dim, "M": 4 * (dim * dim + 5 * dim + 7), "r": rank}
            assert point["M"] < rank * dim
            for count in find_window("approximate", pass_, point).counts:
                ratio = _leading(count, pass_, point, 0)[0]
                ratios.setdefault(count.record, []).append(float(ratio))
        assert len(ratios) == 2
        for found in ratios.values():
            assert found[0] < found[1] < found[2] and found[2] > 3 * found[0]


def test_formats_hold_the_same_rows_and_the_model() -> None:
    """Markdown has one line per row and the note that the bounds are the method's graphs',
    JSON the same rows (ratios exact), LaTeX one line per point (a ratio and C per schedule),
    its label and the model in the caption."""
    rows = _rows()
    data = json.loads(render_approximate_tightness(rows, 2, "json"))
    assert data["method"]["degree"] == 2 and len(data["rows"]) == len(rows)
    for row, plain in zip(rows, data["rows"], strict=True):
        assert sp.sympify(plain["ratio_exact"]) == row.ratio
    markdown = render_approximate_tightness(rows)
    assert sum(line.startswith(("| forward", "| backward"))
               for line in markdown.splitlines()) == len(rows)  # fmt: skip
    assert POLYNOMIAL_NOTE in markdown
    tex = render_approximate_tightness(rows, 2, "latex", "table*", "tab:x")
    assert r"\label{tab:x-tightness-approximate}" in tex and r"\begin{table*}" in tex
    assert r"not for every $\epsilon$-approximation" in tex and tex.count(r"\\") == 1 + 2 + 6


def test_bad_sizes_are_one_clear_error() -> None:
    """A degree, n or d that is not a positive integer raises TightnessError naming it."""
    for args, message in (((0,), "--degree 0"), ((2, 0), "--n 0"), ((2, N, (16, -1)), "--d -1")):
        with pytest.raises(TightnessError, match=message):
            approximate_rows(*args)


def test_the_commands_page_shows_what_the_example_prints(capsys) -> None:
    """docs/commands.md's console block of the approximate table is the command's output."""
    from pathlib import Path

    from attnio.cli import main

    command = "attnio table --tightness --regime approximate --d 32"
    page = (Path(__file__).resolve().parents[1] / "docs" / "commands.md").read_text()
    shown = page.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    assert main(command.split()[1:]) == 0
    assert capsys.readouterr().out == shown
