"""Tests of attnio.campaign.report: optima tables and bound comparisons from a store."""

from __future__ import annotations

import json
import pathlib

import pytest

from attnio.bounds import Bound
from attnio.campaign import Store, build_report, load, read_spec, run_campaign

SPEC = """
[[pebble]]
dag = "attention-forward"
n = 2
d = 1
M = [4, 5, 6]
variants = ["standard", "oneshot"]
solvers = ["exact", "belady"]
"""


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    folder = tmp_path_factory.mktemp("report")
    (folder / "spec.toml").write_text(SPEC)
    with Store(folder / "r.sqlite") as store:
        run_campaign(read_spec(folder / "spec.toml"), store, workers=0)
    return folder / "r.sqlite"


@pytest.fixture(scope="module")
def records(store_path: pathlib.Path) -> list[dict]:
    return load(store_path)


def test_optima_are_the_tightest_proven_values(records: list[dict]) -> None:
    """Each (instance, variant, M) shows the exact optimum, the best of every solver's bounds."""
    report = build_report(records)
    row = report.optima[("attention-forward n=2 d=1", "standard")]
    assert {M: row[M][:2] for M in row} == {4: (12, 12), 5: (10, 10), 6: (8, 8)}


def test_catalog_lower_bounds_hold_on_every_result(records: list[dict]) -> None:
    """No catalog lower bound is refuted by a replayed pebbling; each comparison has a verdict."""
    report = build_report(records)
    assert report.comparisons and not report.refutations
    assert {c.verdict for c in report.comparisons} <= {"confirmed", "undecided"}
    assert any(c.bound == "dense-forward-compulsory" for c in report.comparisons)


def _planted() -> Bound:
    return Bound(
        name="planted-too-high",
        kind="lower",
        regime="dense",
        pass_="forward",
        cache="any",
        asymptotic="n**2*d",
        explicit="4*n**2*d + 1",
        conditions=None,
        source="test",
        status="reconstructed",
    )


def test_a_too_high_lower_bound_is_refuted(records: list[dict]) -> None:
    """A planted lower bound above a proven optimum is listed as refuted, with the point."""
    report = build_report(records, [_planted()])
    refuted = report.refutations
    # 4 n^2 d + 1 = 17 exceeds Q = 12, 10, 8 at M = 4, 5, 6, in both variants
    assert len(refuted) == 6
    assert all(c.value == 17 and c.upper < 17 for c in refuted)
    assert "planted-too-high" in report.markdown()


def test_renderings_carry_every_result(records: list[dict], tmp_path: pathlib.Path) -> None:
    """Markdown shows each instance's table; JSON has the schema and every optimum."""
    report = build_report(records)
    text = report.markdown()
    assert "attention-forward n=2 d=1, oneshot" in text and "| Q | 12 | 10 | 8 |" in text
    data = json.loads(json.dumps(report.to_dict()))
    assert data["schema"] >= 1 and len(data["optima"]) == 6


def test_figures_are_written(records: list[dict], tmp_path: pathlib.Path) -> None:
    """One PDF, one PNG and a caption per instance and variant, drawn by attnio.figures."""
    from attnio.campaign.report import write_figures

    paths = write_figures(build_report(records), str(tmp_path / "fig"))
    assert len(paths) == 6 and all(pathlib.Path(p).stat().st_size > 0 for p in paths)
    caption = next(p for p in paths if p.endswith(".txt"))
    assert (
        "Black filled circles on a solid line: the proven optimal pebbling cost."
        in pathlib.Path(caption).read_text()
    )


def test_latex_tables_compile(records: list[dict], tmp_path: pathlib.Path) -> None:
    """The report's LaTeX (the pebble table code) compiles, one labelled table per instance."""
    import shutil
    import subprocess

    text = build_report(records).latex()
    assert text.count(r"\begin{table}") == 2 and "tab:attnio-campaign-2" in text
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    doc = tmp_path / "doc.tex"
    doc.write_text(
        "\\documentclass{article}\\usepackage{amsmath,booktabs}\\begin{document}\n"
        + text
        + "\\end{document}\n"
    )
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    assert "Overfull" not in run.stdout


def test_bound_comparisons_are_tabled_beside_the_optima(records: list[dict]) -> None:
    """Markdown and LaTeX set each compared bound's value beside Q at every M, cited in LaTeX, with verdict marks."""
    report = build_report(records)
    text = report.markdown()
    assert "| Compulsory I/O | 8 | 8 | 8 |" in text  # 4 n d = 8 at n = 2, d = 1
    tex = report.latex()
    assert r"$M$ & $\mathit{IO}$ & $L_{1}$" in tex and r"$L_{1}$ Compulsory I/O \cite{" in tex
    assert r"$4$ & $12$ & $8$" in tex


def test_refuted_bounds_are_marked_and_listed_in_both_formats(records: list[dict]) -> None:
    """A refuted bound is marked at each refuting M and listed after the tables, in Markdown and LaTeX."""
    report = build_report(records, [_planted()])
    assert "| planted-too-high | 17 x | 17 x | 17 x |" in report.markdown()
    tex = report.latex()
    assert r"$17^{\times}$" in tex
    listed = tex.split("Lower bounds refuted by these results:", 1)[1]
    assert listed.count(r"\item planted-too-high") == 6


def test_cli_latex_report_and_bib_fit_a_two_column_article(
    store_path: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """`campaign report --format latex --bib` pasted into a two-column article compiles with BibTeX: no box over 1pt too wide, no undefined citation."""
    import re
    import shutil
    import subprocess

    from attnio.cli import main

    argv = ["campaign", "report", "--store", str(store_path), "--format", "latex"]
    assert main([*argv, "-o", str(tmp_path / "t.tex"), "--bib", str(tmp_path / "refs.bib")]) == 0
    assert "@misc{attnio" in (tmp_path / "refs.bib").read_text()
    for tool in ("pdflatex", "bibtex"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (apt: texlive-latex-base)")
    (tmp_path / "paper.tex").write_text(
        "\\documentclass[twocolumn]{article}\\usepackage{amsmath,booktabs}\\begin{document}\n"
        "\\input{t.tex}\n\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n"
    )
    latex = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"]
    for command in (latex, ["bibtex", "paper"], latex, latex):
        run = subprocess.run(
            command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
        )
        assert run.returncode == 0, run.stdout[-2000:]
    log = (tmp_path / "paper.log").read_text(errors="replace")
    too_wide = [float(w) for w in re.findall(r"Overfull \\hbox \((\d+(?:\.\d+)?)pt", log)]
    assert all(w <= 1.0 for w in too_wide), too_wide
    assert "Float too large" not in log and "undefined" not in log


def test_simulated_counts_are_compared_with_lower_bounds(tmp_path: pathlib.Path) -> None:
    """A count is checked against each explicit lower bound of its cell: catalog bounds hold; a planted bound above the count is refuted and listed."""
    (tmp_path / "sim.toml").write_text(
        "[[simulate]]\nalgorithm = ['flash', 'standard']\nn = 8\nd = 2\nM = [32, 64]\n"
    )
    with Store(tmp_path / "s.sqlite") as store:
        run_campaign(read_spec(tmp_path / "sim.toml"), store, workers=0)
    records = load(tmp_path / "s.sqlite")
    report = build_report(records)
    assert report.count_comparisons and not report.refutations
    assert {c.verdict for c in report.count_comparisons} == {"consistent"}
    assert any(c.bound == "dense-forward-compulsory" for c in report.count_comparisons)
    planted = build_report(records, [_planted()])  # 4 n^2 d + 1 = 513 words at n = 8, d = 2
    ios = {r["label"]: r["io"] for r in records}
    refuted = {c.label for c in planted.refutations}
    assert refuted == {label for label, io in ios.items() if io < 513} and len(refuted) == 4
    assert all(c.by == "count" and c.upper < c.value for c in planted.refutations)
    assert "planted-too-high" in planted.markdown()
    assert planted.latex().count("its count.") == 4


def test_figure_names_are_portable_file_names(tmp_path: pathlib.Path) -> None:
    """Figure files of a masked instance (mask local:1) have only letters, digits, _ . - in their names."""
    import re

    from attnio.campaign.report import write_figures

    (tmp_path / "mask.toml").write_text(
        "[[pebble]]\ndag = 'sparse-forward'\nn = 2\nd = 1\nmask = 'local:1'\nM = [4, 5]\n"
        "solvers = ['belady']\n"
    )
    with Store(tmp_path / "m.sqlite") as store:
        run_campaign(read_spec(tmp_path / "mask.toml"), store, workers=0)
    paths = write_figures(build_report(load(tmp_path / "m.sqlite")), str(tmp_path / "fig"))
    assert len(paths) == 3
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+", pathlib.Path(p).name) for p in paths), paths
