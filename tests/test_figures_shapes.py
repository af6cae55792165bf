"""Tests of attnio.figures.shapes: I/O of shapes against the group size or n_q, at fixed M.

(Named for its package: tests/test_shapes.py holds the shape schedules' tests.)
"""

from __future__ import annotations

import math
import shutil
import subprocess

import pytest

from attnio.bounds.window import find_window
from attnio.cli import main
from attnio.figures import draw, save, shape_figure, shape_table
from attnio.figures.shapes import shape_rows

PREFILL = {"n_q": 4096, "n_kv": 65536, "h_q": 32, "h_kv": 8, "d": 128, "M": 65536}
"""A chunked-prefill point (4096 x 65536, 32:8 heads, d = 128, M = 65536)."""


def test_rows_are_the_window_at_each_swept_point():
    """Each row is find_window's least count at its point and the best derived lower bound
    at M + c of that count's pebbling (lower_for; backward, gqa-row-streaming's c = 2), the
    group sweep runs over the divisors of h_q and the n_q sweep from decode to n_kv; at
    decode the compulsory I/O is the lower line, at prefill a sharp shape bound."""
    from attnio.bounds.window import lower_for

    for pass_ in ("forward", "backward"):
        rows = shape_rows(pass_, "group", PREFILL)
        assert [row["x"] for row in rows] == [1, 2, 4, 8, 16, 32]
        for row in rows:
            window = find_window("dense", pass_, row["point"])
            lower, _ = lower_for(window.upper, "dense", pass_, row["point"])
            assert row["point"]["h_kv"] * row["x"] == 32
            assert (row["lower_record"], row["upper_record"]) == (lower.record,
                                                                 window.upper.record)  # fmt: skip
            assert row["lower"] == pytest.approx(float(lower.value), rel=1e-12)
            assert row["ratio"] == pytest.approx(row["upper"] / row["lower"])
    sweep = shape_rows("forward", "n_q", PREFILL)
    assert (sweep[0]["x"], sweep[-1]["x"]) == (1, 65536)
    assert sweep[0]["lower_record"] == "shape-forward-compulsory"
    assert sweep[-1]["lower_record"] == "shape-forward-lower-large-sharp"


def test_the_figure_renders_with_its_axis(tmp_path):
    """The n_q figure draws both lines, names its axis and fixed sizes, and saves as SVG."""
    data = shape_figure("backward", "n_q", PREFILL)
    assert "query rows $n_q$" in data.caption() and "h_{kv} = 8" in data.caption()
    assert all(not math.isnan(v) for s in data.series for v in s.values)
    save(draw(data), tmp_path / "nq.svg")
    assert (tmp_path / "nq.svg").stat().st_size > 1000


def test_the_latex_table_compiles(tmp_path):
    """The booktabs table of the group sweep compiles with pdflatex in a plain article."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (apt: texlive-latex-base)")
    table = shape_table("forward", "group", PREFILL, "latex")
    assert table.count(r"\\") == 7  # the header and six group sizes
    (tmp_path / "t.tex").write_text(table, encoding="utf-8")
    document = ("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                "{\\tiny\\input{t.tex}}\n\\end{document}\n")  # fmt: skip
    (tmp_path / "doc.tex").write_text(document, encoding="utf-8")
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120,
                            check=False)  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:]


def test_plot_shapes_writes_the_table_and_refuses_a_bad_shape(tmp_path, capsys):
    """attnio plot shapes writes the figure and the Markdown table; heads that do not group
    are one error line, exit 2."""
    out, table = tmp_path / "g.png", tmp_path / "g.md"
    argv = ["plot", "shapes", "--axis", "group", "--n-q", "1", "--n-kv", "65536",
            "--heads-q", "32", "--d", "128", "--M", "65536", "-o", str(out),
            "--table", str(table)]  # fmt: skip
    assert main(argv) == 0
    assert out.stat().st_size > 0
    assert table.read_text(encoding="utf-8").count("shape-forward-compulsory") == 6
    capsys.readouterr()
    bad = ["plot", "shapes", "--axis", "n_q", "--n-kv", "64", "--heads-q", "3",
           "--heads-kv", "2", "--d", "8", "--M", "64", "-o", str(out)]  # fmt: skip
    assert main(bad) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "heads_q=3 must be a multiple" in err
