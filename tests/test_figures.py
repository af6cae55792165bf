"""Tests of attnio.figures: the data drawn, the files written, and the look against a baseline."""

from __future__ import annotations

import importlib
import math
import os
import pathlib

import pytest

from attnio.bounds import Cache, get
from attnio.cli import main
from attnio.figures import (
    FigureError,
    algorithm_figure,
    draw,
    pebbling_figure,
    save,
)
from attnio.figures.draw import STYLE, legend_fits, styles

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


def test_the_negative_bound_is_left_out_and_said(io_data) -> None:
    """The large-cache explicit bound (negative at large M here) is dropped there, and the caption says so."""
    bound = get("dense-forward-lower-large-explicit")
    assert bound.evaluate(n=64, d=8, M=2048) < 0
    caption = io_data.caption()
    assert "Not drawn" in caption and "not positive" in caption
    assert all(s.record != "dense-forward-tight" for s in io_data.series)


def test_legend_uses_readers_labels(io_data) -> None:
    """Legend entries are reader's labels, never record names."""
    fig = draw(io_data, "one")
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "FlashAttention" in texts and "Compulsory I/O" in texts
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
        word = _dash_word(lines[series.record])
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


def test_legends_and_tables_use_the_same_label_for_a_record(io_data) -> None:
    """Each drawn catalog record's legend entry is its reader's label, the one the LaTeX
    table's row shows (a dagger marks a reconstructed one, as the table's evidence column);
    records of one name drawn on both sides of M = d^2 (a small-cache and a large-cache
    record) share one entry, that name without the cache, and one line style."""
    from attnio.bounds.labels import label
    from attnio.bounds.render import render_latex

    fig = draw(io_data, "one")
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    lower = [s for s in io_data.series if s.kind == "lower"]
    twins = 0
    for series in lower:
        bound = get(series.record)
        name = label(bound)
        shared = [s for s in lower if s.group and s.group == series.group]
        if len(shared) > 1:
            twins += 1
            assert name.removesuffix(", small cache").removesuffix(", large cache") == series.label
            assert {get(s.record).cache for s in shared} == {Cache.SMALL, Cache.LARGE}
        else:
            assert series.label.removesuffix(r"$^\dagger$") == name
        assert legend.count(series.label) == 1
        assert render_latex([bound], "name").count(name.replace("Attention", r"\-Attention")) == 1
    assert twins == 2  # the segment bounds near the crossover, M < d^2 and M >= d^2
    styles_of = {
        s.record: st.linestyle
        for s, st in zip(io_data.series, styles(io_data), strict=True)
        if s.kind == "lower"
    }
    joined = [s.record for s in lower if s.group == "Segment lower bound near the crossover"]
    assert len({str(styles_of[r]) for r in joined}) == 1


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
    """`attnio plot algorithms ... -o f.pdf -o f.png` writes both files and prints the caption."""
    pdf, png = tmp_path / "f.pdf", tmp_path / "f.png"
    code = main(["plot", "algorithms", "--n", "32", "--d", "4", "--sweep", "M=8:512",
                 "--points", "5", "-o", str(pdf), "-o", str(png)])  # fmt: skip
    assert code == 0
    assert pdf.read_bytes()[:5] == b"%PDF-" and png.read_bytes()[:4] == b"\x89PNG"
    assert "caption:" in capsys.readouterr().out


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


def test_a_derived_bound_below_another_everywhere_is_left_out_and_named(io_data) -> None:
    """The figure draws no derived lower bound that another derived one tops wherever both are
    drawn (they would crowd the legend past its five line styles); the caption names the better."""
    drawn = {s.record for s in io_data.series if s.kind == "lower"}
    assert "dense-forward-lower-small-segments-corner" in drawn
    assert "dense-forward-lower-small-twostage" not in drawn
    assert "dense-forward-lower-small-sharp" not in drawn
    assert "dense-forward-lower-small-derived" not in drawn
    assert "dense-forward-lower-small-shared" not in drawn  # M >= d^2 / 4 here: below it
    assert any(
        "below Segment lower bound near the crossover, small cache wherever it is drawn" in note
        for note in io_data.omitted
    )
    big = algorithm_figure(["row-streaming"], "forward", 1024, 16, 16, 8192, points=4)
    large = {s.record for s in big.series}
    assert "dense-forward-lower-large-accumulators" in large
    assert "dense-forward-lower-small-shared" in large  # the strongest at M = 16 = d^2 / 16
    # below the sharp bound (which itself tops the accumulator bound below M = 64 d^2 / 11)
    assert "dense-forward-lower-large-explicit" not in large
    assert "dense-forward-lower-large-sharp" in large


def test_a_derived_bound_below_the_larger_of_two_others_is_left_out_and_both_named() -> None:
    """A derived lower bound that no single other one tops but the maximum of two does adds
    nothing to the drawn lower envelope: it is left out and the caption names both; a bound
    that tops the others somewhere stays, and of two equal bounds the later one stays."""
    from attnio.figures.data import Series, _undominated

    def series(record: str, *values: float) -> Series:
        return Series(record, "lower", (1, 2, 3), values, record=record)

    first = series("dense-forward-lower-small-sharp", 10.0, 1.0, 1.0)
    second = series("dense-forward-lower-small-twostage", 1.0, 1.0, 10.0)
    middle = series("dense-forward-lower-small-families", 5.0, 1.0, 5.0)
    equal = series("dense-forward-lower-small-segments", 10.0, 1.0, 1.0)
    kept, notes = _undominated([first, second, middle, equal], [])
    assert [s.record for s in kept] == [
        "dense-forward-lower-small-twostage",
        "dense-forward-lower-small-segments",
    ]
    assert "dense-forward-lower-small-families: below the larger of" in notes[1]
    assert "dense-forward-lower-small-twostage" in notes[1]
    assert "dense-forward-lower-small-segments" in notes[1]
    assert notes[0].startswith(
        "dense-forward-lower-small-sharp: below dense-forward-lower-small-segments"
    )


def test_a_long_legend_fits_inside_the_figure_without_shrinking_the_axes(monkeypatch) -> None:
    """The README's figure (nine legend entries, some long) keeps its legend inside the
    figure's width (a saved file would cut it off) and its axes as tall as with the
    two-column legend that did not fit: the figure grows by the rows the legend gained."""
    drawing = importlib.import_module("attnio.figures.draw")

    data = algorithm_figure(
        ["row-streaming", "flash", "square-tiling", "standard"], "forward", 1024, 16, 16, 8192,
        points=4, measured=False,
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
    """Issue 23's third target: in the README's figure (n = 1024, d = 16, M = 16..8192) a
    derived lower bound other than the compulsory I/O is drawn (so above it) at more than
    half of the large-cache memories M >= d^2 of the line grid (today all 89, both passes;
    88 and 86 before the sharp and accumulator records lost their d^2 terms), and at every
    small-cache one."""
    data = algorithm_figure(["flash"], pass_, 1024, 16, 16, 8192, measured=False)
    drawn = [
        s
        for s in data.series
        if s.kind == "lower"
        and s.record is not None
        and not s.record.endswith("-compulsory")
        and get(s.record).status.value == "derived"
    ]
    memories = drawn[0].memories
    above = [any(not math.isnan(s.values[i]) for s in drawn) for i in range(len(memories))]
    large = [a for a, M in zip(above, memories, strict=True) if M >= 16**2]
    small = [a for a, M in zip(above, memories, strict=True) if M < 16**2]
    assert sum(large) > len(large) / 2 and all(small), (sum(large), len(large))
