"""Tests of attnio.bounds.render: every table format round-trips."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
import sympy as sp

from attnio.bounds import FilterError, catalog, render
from attnio.bounds.errors import SreprError
from attnio.bounds.render import expression_from_srepr, latex_escape
from attnio.bounds.symbols import ALL


def test_markdown_has_one_row_per_bound() -> None:
    """The Markdown table has a header, a rule and exactly one row per record."""
    bounds = catalog()
    lines = render(bounds, "markdown").strip().splitlines()
    assert len(lines) == 2 + len(bounds)
    for bound, line in zip(bounds, lines[2:], strict=True):
        assert line.startswith(f"| {bound.name} |")
        assert line.count(" | ") == 9


def test_json_rebuilds_every_expression_exactly() -> None:
    """JSON rows carry srepr strings that rebuild expressions equal to the records'."""
    rows = json.loads(render(catalog(), "json"))
    assert len(rows) == len(catalog())
    for bound, row in zip(catalog(), rows, strict=True):
        assert row["name"] == bound.name and row["status"] == bound.status.value
        for field in ("asymptotic", "explicit", "conditions"):
            original = getattr(bound, field)
            if original is None:
                assert row[field] is None
                continue
            assert expression_from_srepr(row[field]["srepr"]) == original


def test_srepr_reader_has_no_builtins() -> None:
    """The srepr reader cannot reach Python builtins: it refuses names outside sympy's."""
    with pytest.raises(SreprError):
        expression_from_srepr("__import__('os')")


def _math_cells(tex: str) -> list[str]:
    return re.findall(r"\$([^$]+)\$", tex)


def _numeric(expr: sp.Basic, values: dict[str, int]) -> sp.Basic:
    subs = {}
    for sym in expr.free_symbols:
        key = str(sym).replace("{", "").replace("}", "")
        subs[sym] = values[key]
    return expr.subs(subs)


def _record_atoms(bound) -> list[sp.Basic]:
    """The expressions a reader finds in a record's table row, one per parseable piece."""
    atoms: list[sp.Basic] = []
    for expr in (bound.asymptotic, bound.explicit):
        if expr is None:
            continue
        if isinstance(expr, sp.Piecewise):
            for piece, cond in expr.args:
                atoms += [piece, *_conjuncts(cond)]
        else:
            atoms.append(expr)
    atoms += _conjuncts(bound.conditions)
    return [a for a in atoms if not a.has(sp.Mod)]


def _conjuncts(cond: sp.Basic) -> list[sp.Basic]:
    if cond is sp.true:
        return []
    if isinstance(cond, (sp.And, sp.Or)):
        return [atom for arg in cond.args for atom in _conjuncts(arg)]
    return [cond]


def _cell_atoms(cell: str) -> list[str]:
    body = re.sub(r"^(O|\\Omega|\\Theta)\\left\((.*)\\right\)$", r"\2", cell, flags=re.S)
    if "\\begin{cases}" not in body:
        return [] if "\\bmod" in body else re.split(r"\\wedge|\\vee", body)
    inner = body.split("\\begin{cases}", 1)[1].split("\\end{cases}", 1)[0]
    atoms = []
    for branch in inner.split("\\\\"):
        piece, _, cond = branch.partition("&")
        atoms.append(piece)
        if "\\text{for}" in cond:
            atoms += re.split(r"\\wedge|\\vee", cond.split("\\text{for}\\:", 1)[1])
    return atoms


def _as_key(value: sp.Basic) -> object:
    if isinstance(value, sp.logic.boolalg.BooleanAtom) or value in (True, False):
        return bool(value)
    return round(float(sp.N(value, 30)), 6)


@pytest.mark.slow
def test_latex_cells_parse_back_to_the_same_values() -> None:
    """Every math cell of the LaTeX table parses with sympy's LaTeX parser and evaluates like the record."""
    from sympy.parsing.latex import parse_latex  # needs lark, a test dependency

    values = {
        "n": 40,
        "d": 5,
        "M": 100_003,
        "Z": 50,
        "Z_QK": 60,
        "Z_in": 70,
        "s": sp.Rational(1, 2),
        "s_c": sp.Rational(3, 5),
        "g": 2,
        "r": 21,
        "B": 3,
        "epsilon": sp.Rational(1, 7),
    }
    assert set(values) == set(ALL)
    parsed = 0
    for bound in catalog():
        expected = sorted(map(str, (_as_key(_numeric(a, values)) for a in _record_atoms(bound))))
        got = []
        for cell in _math_cells(render([bound], "latex")):
            for atom in _cell_atoms(cell):
                got.append(_as_key(_numeric(parse_latex(atom, backend="lark"), values)))
        assert sorted(map(str, got)) == expected, bound.name
        parsed += len(got)
    assert parsed > 60


def test_latex_table_is_booktabs_and_escapes_text() -> None:
    """The LaTeX table uses booktabs rules and escapes special characters in text cells."""
    tex = render(catalog(), "latex")
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert tex.count(rule) == 1
    rows = [line for line in tex.splitlines() if line.endswith(r" \\")]
    assert len(rows) == len(catalog()) + 1
    assert latex_escape("a_b & 50% #1") == r"a\_b \& 50\% \#1"


@pytest.mark.slow
def test_latex_table_compiles() -> None:
    """The LaTeX table compiles as-is with pdflatex, booktabs, array and amsmath, where a TeX engine is installed."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed; the parse-back test covers the cells")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        doc = (
            "\\documentclass{article}\n\\usepackage{booktabs,array,amsmath}\n\\usepackage[margin=1cm,"
            "landscape]{geometry}\n\\begin{document}\n"
            + render(catalog(), "latex")
            + "\\end{document}\n"
        )
        with open(f"{tmp}/table.tex", "w") as handle:
            handle.write(doc)
        result = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "table.tex"],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, result.stdout[-2000:]


def test_unknown_format_is_refused() -> None:
    """render() with an unknown format raises FilterError listing the formats."""
    with pytest.raises(FilterError, match="markdown, latex, json"):
        render(catalog(), "html")
