"""Tests of attnio.figures: the data drawn, the files written, and the look against a baseline."""

from __future__ import annotations

import importlib
import math
import os
import pathlib

import pytest

from attnio.bounds import get
from attnio.cli import main
from attnio.figures import (
    FigureError,
    algorithm_figure,
    draw,
    pebbling_figure,
    save,
)
from attnio.figures.draw import STYLE, legend_fits

BASELINE = pathlib.Path(__file__).parent / "baseline"


@pytest.fixture(scope="module")
def io_data():
    """A small algorithms figure whose range crosses M = d^2 and whose large-cache bound turns negative."""
    return algorithm_figure(["flash", "square-tiling"], "forward", 64, 8, 16, 2048, points=8)


@pytest.fixture(scope="module")
def pebbling_data():
    """Exact and Belady pebblings of SY24's forward DAG at n = 2, d = 1."""
    return pebbling_figure("attention-forward", 2, 1, [4, 5, 6, 7])


def _check_against_baseline(fig, name: str, tmp_path: pathlib.Path) -> None:
    from matplotlib.testing.compare import compare_images

    actual = tmp_path / f"{name}.png"
    save(fig, actual)
    expected = BASELINE / f"{name}.png"
    if os.environ.get("ATTNIO_UPDATE_BASELINE"):
        expected.write_bytes(actual.read_bytes())
    assert expected.exists(), f"no baseline {expected}; set ATTNIO_UPDATE_BASELINE=1 to write it"
    result = compare_images(str(expected), str(actual), tol=3)
    assert result is None, result


def test_algorithms_figure_matches_baseline(io_data, tmp_path) -> None:
    """The one-column algorithms figure looks like the committed baseline (RMS tolerance 3)."""
    _check_against_baseline(draw(io_data, "one"), "algorithms_one_column", tmp_path)


def test_pebbling_figure_matches_baseline(pebbling_data, tmp_path) -> None:
    """The one-column pebbling figure looks like the committed baseline (RMS tolerance 3)."""
    _check_against_baseline(draw(pebbling_data, "one"), "pebbling_one_column", tmp_path)


def test_log_axes_show_no_negative_or_out_of_condition_point(io_data) -> None:
    """Every plotted point is positive and finite, and each bound's points lie inside its conditions."""
    fig = draw(io_data, "two")
    checked = 0
    for line in fig.axes[0].get_lines():
        if line.get_gid() == "crossover":  # a vertical line in axes coordinates
            continue
        xs, ys = line.get_xdata(), line.get_ydata()
        drawn = [(x, y) for x, y in zip(xs, ys, strict=True) if not math.isnan(y)]
        assert all(y > 0 and math.isfinite(y) for _, y in drawn), line.get_label()
        record = line.get_gid()
        if record is None or record.startswith("series-") or not drawn:
            continue
        bound = get(record)
        for x, _ in drawn:
            params = {k: v for k, v in {"n": 64, "d": 8, "M": int(x)}.items()}
            assert bound.applies(**{k: params[k] for k in bound.parameters}), (record, x)
            checked += 1
    assert checked > 50


def test_a_named_bound_is_drawn_only_where_positive_and_the_details_say_so() -> None:
    """--bounds draws a named record (here the large-cache explicit bound, negative at large
    M) where it is positive; the details, not the short caption, say where it is not."""
    from attnio.figures import details

    bound = get("dense-forward-lower-large-explicit")
    assert bound.evaluate(n=1024, d=16, M=8192) < 0
    data = algorithm_figure(
        ["flash"], "forward", 1024, 16, 16, 8192, points=2, measured=False,
        bounds=("dense-forward-lower-large-explicit",),
    )  # fmt: skip
    named = next(s for s in data.series if s.record == bound.name)
    assert math.isnan(named.values[-1])
    assert "not positive" in details(data) and "not positive" not in data.caption()
    assert all(s.record != "dense-forward-tight" for s in data.series)


def test_legend_uses_readers_labels(io_data) -> None:
    """Legend entries are reader's labels, never record names."""
    fig = draw(io_data, "one")
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "FlashAttention" in texts and "Best derived lower bound" in texts
    assert not any("-" in t and t.islower() for t in texts)


@pytest.mark.parametrize(("width", "inches"), [("one", 3.05), ("two", 6.25)])
def test_widths(io_data, width: str, inches: float) -> None:
    """The figure is 3.05 in wide for one column and 6.25 in across two."""
    assert draw(io_data, width).get_size_inches()[0] == pytest.approx(inches)


def _dash_word(line) -> str:
    """Name a drawn line's dash pattern from the pattern itself (independent of the code that
    chose it): solid, dashed, dotted, long-dashed, dash-dotted or dash-dot-dotted."""
    if line.get_linestyle() in ("None", "none", " ", ""):
        return "none"
    _, pattern = line._unscaled_dash_pattern  # what matplotlib strokes
    if not pattern:
        return "solid"
    on = pattern[0::2]
    if len(pattern) == 2:
        if on[0] <= 1.5:
            return "dotted"
        return "long-dashed" if on[0] >= 8 else "dashed"
    dots = sum(1 for length in on if length <= 1.5)
    return {1: "dash-dotted", 2: "dash-dot-dotted"}[dots]


@pytest.fixture(scope="module")
def backward_data():
    """A backward figure: two algorithms and two lower bounds."""
    return algorithm_figure(["flash", "tiled-backward"], "backward", 64, 8, 16, 2048, points=5)


@pytest.mark.parametrize("which", ["io_data", "pebbling_data", "backward_data"])
def test_caption_describes_each_drawn_line_by_its_drawn_style(which, request) -> None:
    """For every lower bound drawn, the caption names that bound's label with the word for
    the dash pattern matplotlib actually strokes; it names no lower bound that is not drawn
    and mentions no style ("dashed", "dotted", ...) that no drawn line has."""
    data = request.getfixturevalue(which)
    fig = draw(data, "one")
    caption = data.caption()
    lines = {line.get_gid(): line for line in fig.axes[0].get_lines() if line.get_gid()}
    drawn = [s for s in data.series if s.kind == "lower"]
    assert drawn, "the figure should draw a lower bound"
    lower_text = caption.split("Lower bounds: ", 1)[1].split(".", 1)[0]
    for series in drawn:
        word = _dash_word(lines[series.record or f"series-lower-{series.group}"])
        assert f"grey {word} line, {series.label}" in lower_text, (word, series.label)
    assert lower_text.count("grey ") == len({s.group or s.label for s in drawn})
    words = {_dash_word(line) for line in lines.values()}
    for word in ("dashed", "dotted", "dash-dotted", "long-dashed", "dash-dot-dotted"):
        said = f" {word} " in caption.replace("grey dotted vertical", "")
        assert not said or word in words, f"caption says {word!r}; nothing is drawn so"
    if any(s.kind == "heuristic" for s in data.series):
        heuristic = next(line for gid, line in lines.items() if gid.startswith("series-heuristic"))
        assert f"squares on a {_dash_word(heuristic)} line" in caption
    if any(s.kind == "exact" for s in data.series):
        exact = next(line for gid, line in lines.items() if gid.startswith("series-exact"))
        assert f"filled circles on a {_dash_word(exact)} line" in caption


def test_caption_of_a_figure_without_lower_bounds_says_none() -> None:
    """A pebbling figure where no lower bound is drawn never says "Lower bounds" or "dashed"."""
    data = pebbling_figure("attention-forward", 1, 1, [3, 4], heuristic="belady")
    data = type(data)(data.pass_, data.n, data.d,
                      tuple(s for s in data.series if s.kind != "lower"), log=False)  # fmt: skip
    caption = data.caption()
    assert "Lower bounds" not in caption and "dashed" not in caption


def test_legends_and_tables_use_the_same_label_for_a_record() -> None:
    """Each named record's legend entry is its reader's label, the one the LaTeX table's
    row shows (a dagger marks a reconstructed one, as the table's evidence column); the
    best derived lower bound has one entry of its own."""
    from attnio.bounds.labels import label
    from attnio.bounds.render import render_latex
    from attnio.figures.data import BEST_LOWER

    data = algorithm_figure(
        ["flash"], "forward", 1024, 16, 16, 8192, points=2, measured=False,
        bounds=("dense-forward-lower-large-explicit", "dense-forward-lower-small-explicit"),
    )  # fmt: skip
    fig = draw(data, "one")
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend.count(BEST_LOWER) == 1
    named = [s for s in data.series if s.kind == "lower" and s.record]
    assert len(named) == 2
    for series in named:
        bound = get(series.record)
        name = label(bound)
        assert series.label.removesuffix(r"$^\dagger$") == name
        assert series.label.endswith(r"$^\dagger$") == (bound.status.value == "reconstructed")
        assert legend.count(series.label) == 1
        assert render_latex([bound], "name").count(name) == 1


def test_figures_fit_a_default_two_column_article(io_data, tmp_path) -> None:
    """Both widths, included at their natural size (one column: figure; two: figure*), make
    no overfull box in LaTeX's default two-column article, on letter and A4 paper."""
    import shutil
    import subprocess

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (apt: texlive-latex-base)")
    save(draw(io_data, "one"), tmp_path / "one.pdf")
    save(draw(io_data, "two"), tmp_path / "two.pdf")
    for paper in ("letterpaper", "a4paper"):
        document = (
            rf"\documentclass[twocolumn,{paper}]{{article}}"
            "\n\\usepackage{graphicx}\n\\begin{document}\n"
            "\\begin{figure}\\includegraphics{one.pdf}\\caption{One column.}\\end{figure}\n"
            "\\begin{figure*}\\includegraphics{two.pdf}\\caption{Two.}\\end{figure*}\n"
            "Text.\\clearpage\n\\end{document}\n"
        )
        (tmp_path / f"{paper}.tex").write_text(document, encoding="utf-8")
        run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                              f"{paper}.tex"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=120, check=False)  # fmt: skip
        assert run.returncode == 0, run.stdout[-2000:]
        log = (tmp_path / f"{paper}.log").read_text(errors="replace")
        assert "Overfull" not in log and "Float too large" not in log, paper


@pytest.mark.parametrize("suffix", [".pdf", ".png", ".svg"])
def test_saved_files_are_deterministic(io_data, tmp_path, suffix: str) -> None:
    """Saving the same figure twice gives the same bytes: no dates, no version strings."""
    first, second = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    save(draw(io_data, "one"), first)
    save(draw(io_data, "one"), second)
    assert first.read_bytes() == second.read_bytes()
    if suffix == ".pdf":
        assert b"CreationDate" not in first.read_bytes()


def test_bad_width_and_suffix_are_refused(io_data, tmp_path) -> None:
    """An unknown width or file type raises FigureError naming the choices."""
    with pytest.raises(FigureError, match="one, two"):
        draw(io_data, "three")
    with pytest.raises(FigureError, match=r"\.pdf, \.png or \.svg"):
        save(draw(io_data, "one"), tmp_path / "x.jpg")
    with pytest.raises(FigureError, match="dense algorithms"):
        algorithm_figure(["low-rank"], "forward", 8, 2, 16, 64)


def test_cli_plot_writes_pdf_and_png_and_prints_the_caption(tmp_path, capsys) -> None:
    """`attnio plot algorithms ... -o f.pdf -o f.png --verbose --json f.json` writes both
    files, prints a short caption and the details (the record attaining the best derived
    lower bound per range of M), and the JSON names that record at each M."""
    import json

    pdf, png, side = tmp_path / "f.pdf", tmp_path / "f.png", tmp_path / "f.json"
    code = main(["plot", "algorithms", "--n", "32", "--d", "4", "--sweep", "M=8:512",
                 "--points", "5", "-o", str(pdf), "-o", str(png), "--verbose",
                 "--json", str(side)])  # fmt: skip
    assert code == 0
    assert pdf.read_bytes()[:5] == b"%PDF-" and png.read_bytes()[:4] == b"\x89PNG"
    out = capsys.readouterr().out
    caption = next(line for line in out.splitlines() if line.startswith("caption:"))
    assert len(caption) < 900 and "Best derived lower bound, M = 8.." in out
    data = json.loads(side.read_text())
    points = data["best_lower_bound"]
    assert points and all(p["record"] is None or p["record"].startswith("dense-forward-")
                          for p in points)  # fmt: skip
    assert data["caption"] == caption.removeprefix("caption: ")


def test_cli_plot_bad_input_exits_2(capsys) -> None:
    """A bad sweep or output suffix exits 2 with one line."""
    assert (
        main(["plot", "algorithms", "--n", "8", "--d", "2", "--sweep", "M=9:3", "-o", "x.pdf"]) == 2
    )
    assert (
        main(["plot", "algorithms", "--n", "8", "--d", "2", "--sweep", "M=3:9", "-o", "x.gif"]) == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("attnio: error:") for line in err)


def test_pebbling_figure_shows_unproven_memories_as_bounds_only() -> None:
    """With a tiny state table, M where the optimum is not proven appear only as proven bounds, never as optima."""
    from attnio.pebble import builders
    from attnio.pebble.exact import solve_exact

    memories = [3, 4, 6]
    data = pebbling_figure("attention-forward", 2, 1, memories, heuristic=None, max_states=2000)
    exact = next(s for s in data.series if s.kind == "exact")
    bars = next(s for s in data.series if s.kind == "exact-bounds")
    dag = builders.build("attention-forward", 2, 1)
    for k, M in enumerate(memories):
        result = solve_exact(dag, M, max_states=2000)
        if result.optimal:
            assert exact.values[k] == result.io and math.isnan(bars.values[k])
        else:
            assert math.isnan(exact.values[k])
            assert (bars.low[k], bars.values[k]) == (result.lower, result.upper)
    assert any(math.isnan(v) for v in exact.values)


def test_the_best_derived_lower_bound_is_one_line_the_maximum_of_the_derived_records(
    io_data,
) -> None:
    """By default a figure draws one lower-bound line: at each M the largest derived lower
    bound that holds there, the record attaining it named per M; no reconstructed or
    stated-secondary record is drawn unless named."""
    from attnio.bounds import Status
    from attnio.figures.data import BEST_LOWER, lower_bound_records

    lowers = [s for s in io_data.series if s.kind == "lower"]
    assert [s.label for s in lowers] == [BEST_LOWER]
    best = lowers[0]
    derived = [b for b in lower_bound_records("forward") if b.status is Status.DERIVED]
    for M, value, record in zip(best.memories, best.values, best.attained, strict=True):
        values = [
            float(b.evaluate(**{k: v for k, v in {"n": 64, "d": 8, "M": M}.items()
                                if k in b.parameters}))
            for b in derived
            if b.applies(**{k: v for k, v in {"n": 64, "d": 8, "M": M}.items()
                            if k in b.parameters})
        ]  # fmt: skip
        assert value == max(v for v in values if v > 0)
        assert get(record).status is Status.DERIVED
        assert float(get(record).evaluate(**{k: v for k, v in {"n": 64, "d": 8, "M": M}.items()
                                             if k in get(record).parameters})) == value  # fmt: skip


def test_bad_bounds_are_refused_before_any_run(monkeypatch, capsys) -> None:
    """`attnio plot --bounds` with an unknown record or more than four exits 2 in one line
    before the machine runs once (the figure used to fail after minutes of runs)."""
    import attnio.algorithms

    def never(*args, **kwargs):
        raise AssertionError("the machine ran before the options were checked")

    monkeypatch.setattr(attnio.algorithms, "simulate", never)
    names = [
        "dense-forward-lower-large-explicit",
        "dense-forward-lower-small-explicit",
        "dense-forward-lower-large-sharp",
        "dense-forward-lower-small-sharp",
        "dense-forward-compulsory",
    ]
    for bounds in (",".join(names), "dense-forward-nothing"):
        code = main(["plot", "algorithms", "--n", "4096", "--d", "64", "--sweep",
                     "M=64:1048576", "--bounds", bounds, "-o", "/tmp/never.pdf"])  # fmt: skip
        assert code == 2
        err = capsys.readouterr().err
        assert "bounds" in err and len(err.strip().splitlines()) == 1


def test_a_long_legend_fits_inside_the_figure_without_shrinking_the_axes(monkeypatch) -> None:
    """The README's figure (nine legend entries, some long) keeps its legend inside the
    figure's width (a saved file would cut it off) and its axes as tall as with the
    two-column legend that did not fit: the figure grows by the rows the legend gained."""
    drawing = importlib.import_module("attnio.figures.draw")

    data = algorithm_figure(
        ["row-streaming", "flash", "square-tiling", "standard"], "forward", 1024, 16, 16, 8192,
        points=4, measured=False, bounds=("dense-forward-lower-large-segments-corner",
        "dense-forward-lower-small-segments-corner", "dense-forward-lower-large-explicit"),
    )  # fmt: skip
    import matplotlib

    fig = draw(data, "one")
    with monkeypatch.context() as patch:
        patch.setattr(drawing, "legend_fits", lambda fig, legend: True)
        wide = draw(data, "one")
    with matplotlib.rc_context(STYLE):  # laid out as saved
        fig.canvas.draw()
        wide.canvas.draw()
    assert not legend_fits(wide, wide.legends[0])  # two columns do not fit: the case tested
    assert legend_fits(fig, fig.legends[0])
    tall, base = fig.axes[0].get_window_extent(), wide.axes[0].get_window_extent()
    assert tall.height >= 0.95 * base.height


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_the_readme_figure_shows_a_derived_lower_bound_above_the_compulsory_io(pass_):
    """Issue 23's third target: in the README's figure (n = 1024, d = 16, M = 16..8192) the
    best derived lower bound is attained by a record other than the compulsory I/O (so it
    is above it) at more than half of the large-cache memories M >= d^2 of the line grid,
    and at every small-cache one."""
    data = algorithm_figure(["flash"], pass_, 1024, 16, 16, 8192, measured=False)
    best = next(s for s in data.series if s.attained is not None)
    above = [not r.endswith("-compulsory") for r in best.attained]
    large = [a for a, M in zip(above, best.memories, strict=True) if M >= 16**2]
    small = [a for a, M in zip(above, best.memories, strict=True) if M < 16**2]
    assert sum(large) > len(large) / 2 and all(small), (sum(large), len(large))
