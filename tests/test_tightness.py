"""Tests of the tightness table (proofs/tightness.py, attnio table --tightness)."""

from __future__ import annotations

import json

import numpy as np
import sympy as sp

from attnio.bounds import get
from attnio.bounds.symbols import M, d, n
from attnio.cli import main
from attnio.proofs.constants import entry_of
from attnio.proofs.generate import (
    UNBOUNDED_ALGORITHMS,
    corner_table,
    full_table,
    tightness_table,
)
from attnio.proofs.tightness import leading_ratio, render_tightness, rows


def test_leading_ratios_are_the_limits_of_the_records() -> None:
    """The ratios are limits of the catalog's own expressions: row streaming is 2 + 1/d forward."""
    assert (
        leading_ratio("row-streaming-forward-count", "dense-forward-lower-large-sharp", "large")
        == 2 + 1 / d
    )
    backward = leading_ratio(
        "row-streaming-backward-count", "dense-backward-lower-large-sharp", "large"
    )
    assert sp.simplify(backward - (4 - 2 / (d + 1))) == 0
    assert leading_ratio(
        "square-tiling-forward-count", "dense-forward-lower-small-sharp", "small"
    ) == 8 * sp.sqrt(2)
    # the every-family bounds (lower-families.md): 2 sqrt(2) forward, 4 backward
    assert leading_ratio(
        "output-stationary-forward-count", "dense-forward-lower-small-families", "small"
    ) == 2 * sp.sqrt(2)
    assert (
        leading_ratio(
            "output-stationary-backward-count", "dense-backward-lower-small-families", "small"
        )
        == 4
    )
    # the segment bounds (lower-segments.md): 5/3 forward, 5/2 backward
    assert leading_ratio(
        "output-stationary-forward-count", "dense-forward-lower-small-segments", "small"
    ) == sp.Rational(5, 3)
    assert leading_ratio(
        "output-stationary-backward-count", "dense-backward-lower-small-segments", "small"
    ) == sp.Rational(5, 2)


def test_every_cell_is_compared_with_its_best_derived_lower_bound() -> None:
    """Each row names the derived lower bound with the least ratio, each bound read at
    M + c (c: the red pebbles beyond M of the schedule's pebbling, EXTRA_RED, the row's
    extra_red): the accumulator ones (lower-accumulators.md) for the large cache, the
    shared-budget ones (lower-segments.md) for the small cache."""
    from attnio.bounds.pebblings import extra_red
    from attnio.proofs.tightness import derived_lowers

    table = rows()
    assert {(r.pass_, r.cache) for r in table} == {
        (p, c) for p in ("forward", "backward") for c in ("large", "small")
    }
    for r in table:
        expected = "-shared" if r.cache == "small" else "-accumulators"
        assert r.lower.endswith(expected), r
        assert get(r.lower).status.value == "derived"
        assert r.extra_red == extra_red(r.algorithm, r.pass_) is not None, r
        others = derived_lowers(r.pass_, r.cache)
        ratios = [leading_ratio(r.count, lower, r.cache, r.extra_red) for lower in others]
        finite = [x.subs(d, 64) for x in ratios if x.is_finite]
        assert r.ratio.subs(d, 64) == min(finite), r


def test_every_row_has_the_least_recorded_constant_of_its_searches() -> None:
    """Each row shows the smallest recorded C of its tightness/table and tightness/corner
    searches and, where it has a decision list of pieces, of the largest piece constant
    (every row has one: the corner search bounds the counts z3 does not bound against the
    table's max), from the obligation it names; a stale recording of a changed count shows
    none (tests/test_constants.py says to re-record)."""
    from attnio.proofs.generate import piece_table

    searches = {}
    for o in tightness_table() + tightness_table(UNBOUNDED_ALGORITHMS) + corner_table():
        searches.setdefault(o.name.split("/", 2)[2], []).append(o)
    table = rows()
    assert len(searches) == len(table)
    for r in table:
        found = searches[f"{r.pass_}/{r.cache}/{r.count}"]
        proved = {
            o.name: entry_of(o)["constant"]
            for o in found
            if entry_of(o) is not None and entry_of(o)["status"] == "proved"
        }
        pieces = [o for o in piece_table() if f"/{r.pass_}/{r.cache}/{r.count}/" in o.name]
        if pieces:
            largest = max((entry_of(o)["constant"], o.name) for o in pieces)
            proved[largest[1]] = largest[0]
        assert r.constant == min(proved.values()) == proved[r.obligation], r
        assert r.refuted is not None and r.refuted < r.constant, r


def test_refuted_constants_are_refuted_against_every_derived_bound() -> None:
    """A row's refuted C is refuted against the max of *every* derived lower bound of its
    cell (not only the records its searches used): at the recorded point, inside the
    table's region, count > refuted * that max and count <= (refuted + 1) * that max,
    evaluated here exactly from the catalog records; and every row's interval is
    non-empty."""
    from attnio.proofs.tightness import derived_lowers

    full = {o.name.split("/", 2)[2]: o for o in full_table()}
    for r in rows():
        entry = entry_of(full[f"{r.pass_}/{r.cache}/{r.count}"])
        at = {s: sp.Integer(entry["point"][s.name]) for s in (n, d, M)}
        assert all(
            a.subs(at) is sp.true for a in full[f"{r.pass_}/{r.cache}/{r.count}"].assumptions
        )
        count = get(r.count).explicit.subs(at)
        lowers = [get(name).explicit.subs(at) for name in derived_lowers(r.pass_, r.cache)]
        assert all((count > r.refuted * low) is sp.true for low in lowers), r
        assert any((count <= (r.refuted + 1) * low) is sp.true for low in lowers), r
        assert r.constant is not None and r.refuted < r.constant, r


def test_the_proved_constants_are_against_some_of_the_derived_bounds() -> None:
    """A C proved against the max of a search's records holds against the max of every
    derived bound only if those records are derived bounds of the cell: every search's
    lower records are among them."""
    from attnio.proofs.tightness import derived_lowers

    for o in tightness_table() + corner_table():
        _, _, pass_, cache, _ = o.name.split("/")
        assert set(o.sources[1:]) <= set(derived_lowers(pass_, cache)), o.name


def test_render_formats(capsys, generated_obligations) -> None:
    """Markdown has one row per entry with its command (the sampling one for a count z3 does
    not bound: no obligation has its name); LaTeX compiles-shaped; JSON round-trips."""
    from attnio.proofs.tightness import SAMPLED_COMMAND

    table = rows()
    markdown = render_tightness(table)
    names = {o.name for o in generated_obligations}
    for r in table:
        assert f"`{r.command}`" in markdown
        assert (r.obligation in names) == (r.command != SAMPLED_COMMAND), r
    latex = render_tightness(table, "latex")
    assert r"\label{tab:attnio-tightness}" in latex and latex.count(r"\\") >= len(table) + 1
    data = json.loads(render_tightness(table, "json"))
    assert sorted(x["count"] for x in data) == sorted(r.count for r in table)
    assert {(x["count"], x["extra_red"]) for x in data} == {(r.count, r.extra_red) for r in table}
    assert main(["table", "--tightness", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == data


def test_tightness_refuses_catalog_filters(capsys) -> None:
    """--tightness with a catalog filter or a LaTeX shaping option is one line and exit 2."""
    assert main(["table", "--tightness", "--regime", "dense"]) == 2
    assert "--tightness" in capsys.readouterr().err
    assert main(["table", "--tightness", "--format", "latex", "--standalone"]) == 2


def test_findings_page_shows_the_rendered_table() -> None:
    """docs/findings.md carries exactly what attnio table --tightness prints."""
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "docs" / "findings.md"
    assert render_tightness(rows()) in page.read_text(encoding="utf-8")


def test_the_readme_ratios_are_the_tables() -> None:
    """The README's "How tight" paragraph quotes the table's ratios of leading terms for
    attnio's schedules (row streaming, output-stationary): each quoted expression is in the
    README and equals the row's ratio."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    text = " ".join(readme.split())
    quoted = {
        ("forward", "large", "row-streaming"): (
            "11 (2d + 1) / (16 d)",
            11 * (2 * d + 1) / (16 * d),
        ),
        ("backward", "large", "row-streaming"): ("8/3 + 4/(3d)", sp.Rational(8, 3) + 4 / (3 * d)),
        ("forward", "small", "output-stationary"): ("sqrt(2)", sp.sqrt(2)),
        ("backward", "small", "output-stationary"): ("5 sqrt(2) / 3", 5 * sp.sqrt(2) / 3),
    }
    table = {(r.pass_, r.cache, r.algorithm): r.ratio for r in rows()}
    for key, (shown, value) in quoted.items():
        assert shown in text, shown
        assert sp.simplify(table[key] - value) == 0, (key, table[key])


def test_the_pieces_cover_the_region_once() -> None:
    """Each decision list of PIECES partitions the table's region: at every integer point
    of the region (the row's tightness/corner obligation's assumptions) with d <= 12,
    M <= 40 d^2 and n <= 60 d, exactly one piece's assumptions hold; each list ends with
    the rest (test None), and each piece's bound is a derived lower bound of the cell, so
    the largest piece constant bounds count / max(every derived bound)."""
    from attnio.proofs.generate import PIECES, piece_table
    from attnio.proofs.tightness import derived_lowers

    pieces = piece_table()
    for (pass_, count), tests in PIECES.items():
        assert tests[-1][1] is None
        assert {lower for lower, _ in tests} <= set(derived_lowers(pass_, "large"))
        own = [o for o in pieces if o.name.startswith(f"tightness/piece/{pass_}/large/{count}/")]
        region = next(o for o in corner_table() if o.name.endswith(f"/{pass_}/large/{count}"))
        grid = np.array(
            [
                (mm, dd, nn)
                for dd in range(1, 13)
                for mm in range(dd * dd, 40 * dd * dd + 1, max(1, dd))
                for nn in range(dd, 60 * dd + 1, max(1, dd // 2))
            ],
            dtype=float,
        ).T

        def where(assumptions, grid=grid):
            holds = np.ones(grid.shape[1], dtype=bool)
            for a in assumptions:
                holds &= np.asarray(sp.lambdify((M, d, n), a, "numpy")(*grid), dtype=bool)
            return holds

        inside = where(region.assumptions)
        covered = sum(where(o.assumptions).astype(int) for o in own)
        assert (covered[inside] == 1).all(), count
        assert not covered[~inside].any(), count
        points = int(inside.sum())
        assert points > 10_000


def test_a_row_with_pieces_takes_their_largest_constant() -> None:
    """Row streaming's rows show the piecewise C (the largest of its pieces' recorded
    constants) when it is below both searches', and name a piece: the command proves every
    piece of the list."""
    from attnio.proofs.generate import piece_table

    for r in rows():
        own = [o for o in piece_table() if o.name.startswith(f"tightness/piece/{r.pass_}/")
               and f"/{r.count}/" in o.name]  # fmt: skip
        if not own:
            continue
        largest = max(entry_of(o)["constant"] for o in own)
        assert r.constant == largest and r.obligation in {o.name for o in own}, r
        assert r.command.endswith(f"/{r.count}/*'"), r.command


def test_rows_are_built_once_per_catalog_and_recording(monkeypatch, tmp_path) -> None:
    """rows() gives the same rows without building them again while the catalog and the
    recording are the same objects, and reads a replaced recording: with none, no row has
    a proved or refuted constant."""
    import importlib

    from attnio.proofs import constants

    tightness_module = importlib.import_module("attnio.proofs.tightness")
    first = rows()
    built = []
    monkeypatch.setattr(tightness_module, "_rows", lambda: built.append(1) or [])
    assert rows() == first and not built
    monkeypatch.undo()
    monkeypatch.setattr(constants, "RECORDING", tmp_path / "none.json")
    empty = rows()
    assert [r.count for r in empty] == [r.count for r in first]
    assert all(r.constant is None and r.refuted is None for r in empty)


def test_the_leading_ratio_takes_the_branch_of_a_min_that_is_least_for_large_n_and_m() -> None:
    """The sharp and accumulator records are Mins of two branches (a stored pair-chain
    vertex against rows); as n and then M grow the large-memory branch is the least, and
    the leading ratio is taken against it: row streaming forward to the sharp bound tends
    to 2 + 1/d, as it did before the records had a Min."""
    import sympy as sp

    from attnio.bounds import get
    from attnio.bounds.symbols import M, d, n
    from attnio.proofs.tightness import _in_the_limit, leading_ratio

    sharp = get("dense-forward-lower-large-sharp").explicit
    assert sp.simplify(_in_the_limit(sharp) - (2 * n**2 * d**2 / M - M)) == 0
    assert (
        sp.simplify(
            leading_ratio("row-streaming-forward-count", "dense-forward-lower-large-sharp", "large")
            - (2 + 1 / d)
        )
        == 0
    )
    tied = sp.Min(n**2 / M, n**2 / M + n)  # ratio 1 in the limit: left as it is
    assert _in_the_limit(tied) == tied
    crossing = sp.Min(d * n**2 / M, 2 * n**2 / M)  # ratio d / 2: below 1 at d = 1 only
    assert _in_the_limit(crossing) == crossing


def test_one_rows_interval_is_the_tables() -> None:
    """constant_interval (attnio gap's look-up, no sympy limits) gives the row's proved and
    refuted constants and obligation, and a region that holds at the row's own cell only;
    a count without a row has none."""
    from attnio.proofs.tightness import constant_interval

    for row in [r for r in rows() if r.count in ("row-streaming-forward-count",
                                                 "output-stationary-backward-count")]:  # fmt: skip
        interval = constant_interval(row.pass_, row.cache, row.count)
        assert (interval.proved, interval.refuted, interval.obligation) == (
            row.constant, row.refuted, row.obligation)  # fmt: skip
        assert interval.command == row.command
        inside = {"n": 4096, "d": 16, "M": 4096 if row.cache == "large" else 200}
        outside = {"n": 4096, "d": 16, "M": 100 if row.cache == "large" else 4096}
        assert interval.holds_at(inside) and not interval.holds_at(outside)
    assert constant_interval("forward", "large", "standard-forward-count") is None


def test_a_leading_ratio_reads_the_bound_at_m_plus_c() -> None:
    """leading_ratio with c reads the lower bound at M + c: at finite n, d, M the ratio
    before the limits grows with c (a lower bound that falls in M), and the limit, c a
    constant, is the one at M (FlashAttention-2 forward against the sharp bound, c = 4)."""
    count = get("flash2-forward-count").explicit
    sharp = get("dense-forward-lower-large-sharp").explicit
    at = {n: 4096, d: 64, M: 8192}
    assert (
        count.subs(at) / sharp.subs(M, M + 4).subs(at) > count.subs(at) / sharp.subs(at)
    ) is sp.true
    args = ("flash2-forward-count", "dense-forward-lower-large-sharp", "large")
    assert sp.simplify(leading_ratio(*args, 4) - leading_ratio(*args)) == 0
