"""Tests of attnio.proofs.summary: the summary table's rows are the tightness table's best."""

from __future__ import annotations

import sympy as sp

from attnio.bounds.symbols import d
from attnio.proofs.summary import leading_term, summary
from attnio.proofs.tightness import rows


def test_dense_rows_are_the_least_ratio_rows_and_their_leading_terms_give_the_ratio() -> None:
    """Each dense row's schedule is the tightness row with the least ratio in its cell
    (d = 64 for ratios in d), its constant that row's, and the ratio of the two leading
    terms shown is the ratio shown (so the row reads consistently)."""
    table = rows()
    dense = [r for r in summary() if r.regime.value == "dense"]
    assert len(dense) == 4
    for row in dense:
        same = [t for t in table if (t.pass_, t.cache) == (row.pass_.value, row.cache.value)]

        def size(ratio: sp.Expr) -> float:
            return float(ratio.subs(d, 64))

        best = min(same, key=lambda t: size(t.ratio))
        assert row.count.name == best.count and row.lower.name == best.lower
        assert (row.constant, row.refuted) == (best.constant, best.refuted)
        assert sp.simplify(row.count_leading / row.lower_leading - row.ratio) == 0, row


def test_leading_terms_of_a_sparse_count_keep_the_density() -> None:
    """A sparse count's leading term keeps s and M (no M -> oo for a row of every cache
    size), and the sparse rows' ratio against the compulsory I/O is unbounded."""
    term = leading_term("block-sparse-flash-forward-count", "any")
    assert {s.name for s in term.free_symbols} == {"n", "d", "M", "s"}
    sparse = [r for r in summary() if r.regime.value == "sparse"]
    assert sparse and all(r.ratio == sp.oo and r.constant is None for r in sparse)


def test_commands_page_shows_the_rendered_summary() -> None:
    """docs/commands.md carries exactly what `attnio table --summary` prints (Markdown)."""
    from pathlib import Path

    from attnio.bounds.render import render_summary

    page = Path(__file__).resolve().parent.parent / "docs" / "commands.md"
    assert render_summary(summary()) in page.read_text(encoding="utf-8")
