"""Tests of the tightness table (proofs/tightness.py, attnio table --tightness)."""

from __future__ import annotations

import json

import sympy as sp

from attnio.bounds import get
from attnio.bounds.symbols import M, d, n
from attnio.cli import main
from attnio.proofs.constants import entry_of
from attnio.proofs.generate import UNBOUNDED_ALGORITHMS, corner_table, tightness_table
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
    """Each row names the derived lower bound with the least ratio: the accumulator ones
    (lower-accumulators.md) for the large cache, the shared-budget ones (lower-segments.md)
    for the small cache."""
    from attnio.proofs.tightness import derived_lowers

    table = rows()
    assert {(r.pass_, r.cache) for r in table} == {
        (p, c) for p in ("forward", "backward") for c in ("large", "small")
    }
    for r in table:
        expected = "-shared" if r.cache == "small" else "-accumulators"
        assert r.lower.endswith(expected), r
        assert get(r.lower).status.value == "derived"
        others = derived_lowers(r.pass_, r.cache)
        ratios = [leading_ratio(r.count, lower, r.cache) for lower in others]
        finite = [x.subs(d, 64) for x in ratios if x.is_finite]
        assert r.ratio.subs(d, 64) == min(finite), r


def test_every_row_has_the_least_recorded_constant_of_its_two_searches() -> None:
    """Each row shows the smaller recorded C of its tightness/table and tightness/corner
    searches (every row has one: the corner search bounds the counts z3 does not bound
    against the table's max), from the obligation it names; a stale recording of a changed
    count shows none (tests/test_constants.py says to re-record)."""
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
        assert r.constant == min(proved.values()) == proved[r.obligation], r
        assert r.refuted is not None and r.refuted < r.constant, r


def test_refuted_constants_hold_against_the_max_of_both_searches() -> None:
    """A row's refuted C is refuted against the max of every record of its two searches
    (not only against the records of the search that found the point): at one of the
    recorded points the count exceeds refuted * that max, evaluated here exactly, and
    no recorded point refutes refuted + 1."""
    searches = tightness_table() + tightness_table(UNBOUNDED_ALGORITHMS) + corner_table()
    for r in rows():
        found = [o for o in searches if o.name.endswith(f"/{r.pass_}/{r.cache}/{r.count}")]
        names = {name for o in found for name in o.sources[1:]}
        ratios = []
        for o in found:
            point = (entry_of(o) or {}).get("point")
            if point:
                at = {s: sp.Integer(point[s.name]) for s in (n, d, M)}
                lower = sp.Max(*[get(name).explicit.subs(at) for name in names])
                ratios.append(get(r.count).explicit.subs(at) / lower)
        assert any(x > r.refuted for x in ratios), r
        assert not any(x > r.refuted + 1 for x in ratios), r


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
    assert [x["count"] for x in data] == [r.count for r in table]
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
