"""Tests of attnio.bounds.render: every table format round-trips."""

from __future__ import annotations

import functools
import json
import pathlib
import re
import shutil
import subprocess

import pytest
import sympy as sp

from attnio.bounds import Cache, FilterError, catalog, render
from attnio.bounds.citations import bibtex
from attnio.bounds.errors import SreprError
from attnio.bounds.record import SHAPE_PARAMETERS
from attnio.bounds.render import (
    LATEX_COLUMNS,
    abbreviations,
    expression_from_srepr,
    is_exact_count,
    latex_escape,
    latex_math,
    render_latex,
    render_pebblings_latex,
    render_standalone,
)
from attnio.bounds.schema import JSON_SCHEMA_VERSION
from attnio.bounds.symbols import ALL


def test_markdown_has_one_row_per_bound() -> None:
    """The Markdown table has a header, a rule and exactly one row per record."""
    bounds = catalog()
    lines = [x for x in render(bounds, "markdown").strip().splitlines() if x.startswith("|")]
    assert len(lines) == 2 + len(bounds)
    for bound, line in zip(bounds, lines[2:], strict=True):
        assert line.startswith(f"| {bound.name} ")
        assert line.count(" | ") == 9


def test_json_rebuilds_every_expression_exactly() -> None:
    """JSON rows carry srepr strings that rebuild expressions equal to the records'."""
    document = json.loads(render(catalog(), "json"))
    assert document["schema"] == JSON_SCHEMA_VERSION
    rows = document["bounds"]
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


def _normalised(cell: str) -> str:
    """Undo the typographic hints of table cells so that sympy's LaTeX parser reads them."""
    for hint in (r"\penalty900 ", r"\allowbreak "):
        cell = cell.replace(hint, "")
    cell = cell.replace(r"\,", r" \cdot ")
    return cell.replace(r"\bigl(", r"\left(").replace(r"\bigr)", r"\right)")


def _math_cells(tex: str) -> list[str]:
    rows = [line for line in tex.splitlines() if line.endswith(r" \\") and " & " in line]
    cells = [c for row in rows for c in re.findall(r"\$([^$]+)\$", row)]
    return [_normalised(c) for c in cells if c != r"^{\ddagger}"]  # the narrowing mark


@functools.cache
def _parsed(text: str) -> sp.Basic:
    """sympy's LaTeX parser (lark backend) on ``text``, once per distinct text: the tables
    repeat conditions and block sizes, both layouts show the same expressions, and each
    parse is a fraction of a second of Earley parsing."""
    from sympy.parsing.latex import parse_latex  # needs lark, a test dependency

    return parse_latex(text, backend="lark")


def _block_sizes(tex: str, values: dict) -> dict:
    """The values of the caption's block sizes b_k at ``values``."""
    sizes = {}
    for number, body in re.findall(r"\$b_\{(\d+)\} = (.*?)\$", tex):
        sizes[f"b_{number}"] = _numeric(_parsed(_normalised(body)), values)
    return sizes


def _numeric(expr: sp.Basic, values: dict[str, int]) -> sp.Basic:
    subs = {}
    for sym in expr.free_symbols:
        key = str(sym).replace("{", "").replace("}", "")
        subs[sym] = values[key]
    return expr.subs(subs)


def _record_atoms(bound, both: bool = True) -> list[sp.Basic]:
    """The expressions a reader finds in a record's table row, one per parseable piece: its
    asymptotic and explicit forms (``both``), or the explicit form where it has one."""
    atoms: list[sp.Basic] = []
    shown = (bound.asymptotic, bound.explicit)
    if not both:
        shown = (bound.asymptotic,) if bound.explicit is None else (bound.explicit,)
    for expr in shown:
        if expr is None:
            continue
        if isinstance(expr, sp.Piecewise):
            for piece, cond in expr.args:
                atoms += [piece, *_conjuncts(cond)]
        else:
            atoms.append(expr)
    if bound.source_range is not None and bound.source_range != bound.conditions:
        atoms += _conjuncts(bound.source_range)  # the paper's range, then attnio's narrowed one
    atoms += _conjuncts(bound.conditions)
    return [a for a in atoms if not a.has(sp.Mod)]


def _conjuncts(cond: sp.Basic) -> list[sp.Basic]:
    if cond is sp.true:
        return []
    if isinstance(cond, (sp.And, sp.Or)):
        return [atom for arg in cond.args for atom in _conjuncts(arg)]
    return [cond]


def _cell_atoms(cell: str) -> list[str]:
    cell = re.sub(
        r"^(\\mathit\{IO\} \\geq|\\mathit\{IO\} \\leq|\\mathit\{IO\} =|\\mathrm\{I/O\} =) ",
        "",
        cell,
    )
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
@pytest.mark.parametrize("columns", ["name,bound,explicit,conditions", "name,bound,conditions"])
def test_latex_cells_parse_back_to_the_same_values(columns) -> None:
    """Every math cell of the LaTeX table, with an explicit column or without one (the explicit form then in the Bound column), parses with sympy's LaTeX parser (block sizes from the caption) and evaluates like the record."""
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
        "w": 3,
        "n_q": 11,
        "n_kv": 13,
        "h_q": 4,
        "h_kv": 2,
    }
    assert set(values) == set(ALL)
    parsed = 0
    for bound in catalog():
        atoms = _record_atoms(bound, both="explicit" in columns)
        expected = sorted(map(str, (_as_key(_numeric(a, values)) for a in atoms)))
        got = []
        tex = render_latex([bound], columns)
        known = {**values, **_block_sizes(tex, values), "e": sp.E}  # e^{x}: Euler's number
        for cell in _math_cells(tex):
            for atom in _cell_atoms(cell):
                got.append(_as_key(_numeric(_parsed(atom), known)))
        assert sorted(map(str, got)) == expected, bound.name
        parsed += len(got)
    assert parsed > 60


def test_latex_tables_one_per_regime_and_pass_with_booktabs_rules() -> None:
    """The default LaTeX output has one booktabs table per (regime, pass) cell and side (lower
    bounds, the small-cache ones apart; tight and upper bounds; algorithms' exact counts;
    the shapes' lower bounds, FlashAttention's and the other exact counts and other records
    apart; the masks' lower bounds
    and other records apart) and one row per bound."""
    tex = render(catalog(), "latex")
    cells = {
        (
            b.regime,
            b.pass_,
            "lower" if b.kind.value == "lower" else is_exact_count(b),
            (b.algorithm or "").startswith("gqa-flash"),
        )
        if set(b.parameters) & SHAPE_PARAMETERS
        else (b.regime, b.pass_, "masks-lower" if b.kind.value == "lower" else "masks")
        if b.mask is not None
        else (
            b.regime,
            b.pass_,
            b.kind.value == "lower",
            b.kind.value == "lower" and b.cache.value == "small",
            is_exact_count(b),
        )
        for b in catalog()
    }
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{table}"):
        assert tex.count(rule) == len(cells), rule
    rows = [line for line in tex.splitlines() if line.endswith(r" \\")]
    assert len(rows) == len(catalog()) + len(cells)
    assert r"\resizebox" not in tex
    assert latex_escape("a_b & 50% #1") == r"a\_b \& 50\% \#1"


def test_rows_of_one_asymptotic_form_read_apart_by_their_explicit_forms() -> None:
    """In the default tables every record with an explicit form shows it: LaTeX as ``\\mathit{IO} \\geq``
    (``\\mathrm{I/O} =`` for an algorithm's count) in the Bound column, so that no two rows of
    one table showing explicit forms read alike (three small-cache lower bounds once all read
    Omega(n^2 d / sqrt(M))), and Markdown in its explicit column."""
    bounds = catalog()
    relations = (r"$\mathit{IO} \geq", r"$\mathit{IO} \leq", r"$\mathrm{I/O} =")
    shown = 0
    for table in render(bounds, "latex").split(r"\begin{tabular}")[1:]:
        body = table.split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0]
        cells = [line.split(" & ")[1:3] for line in body.splitlines() if line.endswith(r" \\")]
        explicit = [tuple(c) for c in cells if c[0].startswith(relations)]
        assert len(set(explicit)) == len(explicit), explicit
        shown += len(explicit)
    assert shown == sum(b.explicit is not None for b in bounds) > 30
    markdown = [x for x in render(bounds, "markdown").splitlines() if x.startswith("|")][2:]
    for bound, line in zip(bounds, markdown, strict=True):
        if bound.explicit is not None:
            assert f"| `{sp.sstr(bound.explicit)}` |" in line


def test_latex_rows_name_the_bound_for_a_reader_and_cite_keys() -> None:
    """Rows carry reader's labels (never record names) and \\cite commands (never paths)."""
    tex = render_latex(catalog(), ",".join(LATEX_COLUMNS), "longtable")
    for bound in catalog():
        assert bound.name not in tex
    for internal in ("proofs/", "docs/", "attnio.algorithms", "Omega(", "Q K^T"):
        assert internal not in tex
    assert r"\cite[Thm.~3.1]{saha2024io}" in tex


def test_products_never_slash_over_a_product() -> None:
    """A slashed fraction has a single factor below the bar: n^2 d^2 / (8M) is a frac, not / 8 M."""
    from attnio.bounds import get

    text = latex_math(get("dense-forward-lower-large-explicit").explicit)
    assert r"\frac{n^{2}" in text and "/ 8" not in text
    assert latex_math(get("dense-forward-lower-large").asymptotic).endswith("/ M")


def test_block_sizes_are_named_once_and_defined() -> None:
    """Each distinct floor in the explicit column becomes b_k, defined in the caption."""
    bounds = _square(catalog(regime="dense", pass_="forward"))
    names = abbreviations(bounds, ("explicit",))
    assert len(names) == len(set(names.values())) >= 3
    tex = render_latex(bounds, "name,explicit")
    for k in range(1, len(names) + 1):
        assert f"$b_{{{k}}} = " in tex
    for table in tex.split(r"\begin{tabular}")[1:]:
        assert r"\lfloor" not in table.split(r"\end{tabular}")[0]


def test_bad_columns_and_layouts_are_refused() -> None:
    """Unknown column names or layouts raise FilterError naming the choices."""
    with pytest.raises(FilterError, match="choose from"):
        render_latex(catalog(), "name,colour")
    with pytest.raises(FilterError, match="longtable"):
        render_latex(catalog(), None, "sideways")


# ------------------------------------------------------------------ pdflatex checks
_OVERFULL = re.compile(r"Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide\)")
_FULL = "name,bound,explicit,leading,conditions,source,status"
_WIDE = r"\setlength{\textwidth}{7in}\setlength{\oddsidemargin}{-0.25in}"
_IEEE = _WIDE + r"\setlength{\columnsep}{0.33in}"
FORMS = [
    # (id, documentclass options, extra preamble, catalog filter, columns, layout)
    ("dense-one-column", "", "", {"regime": "dense"}, None, "table"),
    ("dense-two-column", "twocolumn", "", {"regime": "dense"}, None, "table"),
    ("all-one-column", "", "", {}, None, "table"),
    ("all-two-column", "twocolumn", "", {}, None, "table"),
    ("all-3.3in-column", "twocolumn", _IEEE, {}, None, "table"),
    ("all-table-star", "twocolumn", "", {}, None, "table*"),
    ("all-longtable", "", "", {}, None, "longtable"),
    ("full-table-star", "twocolumn", _IEEE, {}, _FULL, "table*"),
    ("full-table-star-article", "twocolumn", "", {}, _FULL, "table*"),
    ("full-longtable-7in", "", _WIDE, {}, _FULL, "longtable"),
]


def _pdflatex(tmp: pathlib.Path, name: str, document: str, bib: bool = False) -> str:
    (tmp / f"{name}.tex").write_text(document, encoding="utf-8")
    runs = [["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"]]
    if bib:
        runs += [["bibtex", name], runs[0]]
    for command in [*runs, runs[0]]:
        result = subprocess.run(
            command, cwd=tmp, capture_output=True, text=True, timeout=120, check=False
        )
        assert result.returncode == 0, result.stdout[-3000:]
    return (tmp / f"{name}.log").read_text(encoding="utf-8", errors="replace")


def _assert_fits(log: str) -> None:
    too_wide = [float(w) for w in _OVERFULL.findall(log)]
    assert all(w <= 1.0 for w in too_wide), f"overfull boxes of {too_wide} pt"
    assert "Float too large" not in log
    assert "Citation" not in log or "undefined" not in log, "a \\cite key is undefined"


def _needs_pdflatex() -> None:
    for tool in ("pdflatex", "bibtex", "pdftoppm"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (apt: texlive-latex-base, poppler-utils)")


def _article(options: str, preamble: str, body: str) -> str:
    return (
        f"\\documentclass[{options}]{{article}}\n"
        "\\usepackage{amsmath,array,booktabs,longtable}\n"
        f"{preamble}\n\\begin{{document}}\n{body}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n"
    )


def test_pasted_dense_table_and_bib_compile_and_fit(tmp_path: pathlib.Path) -> None:
    """`attnio table --format latex --regime dense` and --bib pasted into an article compile with BibTeX, fit, and render."""
    _needs_pdflatex()
    from attnio.cli import main

    assert main(["table", "--format", "latex", "--regime", "dense",
                 "-o", str(tmp_path / "t.tex"), "--bib", str(tmp_path / "refs.bib")]) == 0  # fmt: skip
    log = _pdflatex(tmp_path, "paper", _article("", "", r"\input{t.tex}"), bib=True)
    _assert_fits(log)
    blg = (tmp_path / "paper.blg").read_text()
    assert "Warning" not in blg and "error" not in blg.lower(), blg
    # -singlefile: without it pdftoppm pads the page number to the document's page count
    subprocess.run(["pdftoppm", "-png", "-r", "40", "-singlefile", "paper.pdf", "page"],
                   cwd=tmp_path, check=True, timeout=60)  # fmt: skip
    assert (tmp_path / "page.png").stat().st_size > 1000


@pytest.mark.slow
@pytest.mark.parametrize(("ident", "options", "preamble", "filters", "columns", "layout"), FORMS)
def test_every_table_form_compiles_without_overfull_boxes(
    tmp_path: pathlib.Path, ident, options, preamble, filters, columns, layout
) -> None:
    """Each supported table form compiles in its document class with no box over 1pt too wide and no float too large."""
    _needs_pdflatex()
    from attnio.bounds.citations import bibtex

    (tmp_path / "refs.bib").write_text(bibtex(), encoding="utf-8")
    (tmp_path / "t.tex").write_text(render_latex(catalog(**filters), columns, layout))
    _assert_fits(_pdflatex(tmp_path, ident, _article(options, preamble, r"\input{t.tex}"), True))


@pytest.mark.slow
def test_standalone_document_compiles_as_is(tmp_path: pathlib.Path) -> None:
    """The --standalone document of the whole catalog compiles with pdflatex alone, fits, and renders page 1."""
    _needs_pdflatex()
    log = _pdflatex(tmp_path, "standalone", render_standalone(catalog()))
    _assert_fits(log)
    assert "undefined" not in log
    subprocess.run(["pdftoppm", "-png", "-r", "40", "-f", "1", "-l", "1", "standalone.pdf", "p"],
                   cwd=tmp_path, check=True, timeout=60)  # fmt: skip
    (page,) = tmp_path.glob("p-*1.png")  # pdftoppm pads the number to the page count's width
    assert page.stat().st_size > 1000


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["table", "table*", "longtable"])
def test_standalone_document_fits_all_seven_columns(tmp_path: pathlib.Path, layout: str) -> None:
    """`--standalone --columns` with all seven columns, in every layout, compiles with no box over 1pt too wide and no float too large."""
    _needs_pdflatex()
    log = _pdflatex(tmp_path, "wide", render_standalone(catalog(), _FULL, layout))
    _assert_fits(log)


def test_pebbling_table_shows_optima_only_where_proven(tmp_path: pathlib.Path, capsys) -> None:
    """`attnio pebble --sweep --exact --format latex`: proven optima as values, unproven M as proven bounds; it compiles and fits."""
    from attnio.cli import main

    rows = [
        {"M": 3, "io": 26, "optimal": False, "lower": 10, "upper": 26, "method": "exact"},
        {"M": 4, "io": 12, "optimal": True, "lower": 12, "upper": 12, "method": "exact"},
    ]
    tex = render_pebblings_latex(rows, "a graph", 26, "standard")
    assert (
        r"$10 \leq \mathit{IO} \leq 26$ & search stopped" in tex and "$4$ & $12$ & optimal" in tex
    )
    assert main(["pebble", "--dag", "attention-forward", "--n", "2", "--d", "1",
                 "--sweep", "M=5:6", "--exact", "--format", "latex"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "$5$ & $10$ & optimal" in out and "$6$ & $8$ & optimal" in out
    if shutil.which("pdflatex") is not None:
        (tmp_path / "refs.bib").write_text("")
        body = out + tex
        log = _pdflatex(tmp_path, "pebbling", _article("twocolumn", "", body).replace(
            "\\bibliographystyle{plain}\n\\bibliography{refs}\n", ""))  # fmt: skip
        _assert_fits(log)


def test_unknown_format_is_refused() -> None:
    """render() with an unknown format raises FilterError listing the formats."""
    with pytest.raises(FilterError, match="markdown, latex, json"):
        render(catalog(), "html")


def test_captions_define_every_symbol_beyond_n_d_m() -> None:
    """Each table's caption says what each symbol its rows use beyond n, d and M means
    (Z, Z_in, Z_QK, s, s_c, r, g, B, epsilon)."""
    from attnio.bounds import symbols
    from attnio.bounds.render import _sided

    for layout in ("table", "longtable"):
        tex = render_latex(catalog(), None, layout)
        groups = _sided(catalog()) if layout == "table" else [(None, catalog())]
        captions = re.findall(r"\\caption\{(.*)\}\\label", tex)
        assert len(captions) == len(groups)
        for caption, (_, rows) in zip(captions, groups, strict=True):
            used = {name for bound in rows for name in bound.parameters} - {"n", "d", "M"}
            for name in used:
                sign = latex_math(symbols.ALL[name])
                assert f"${sign}$ is {symbols.MEANINGS[name]}" in caption, (name, caption[:80])


def test_label_prefix_lets_two_sets_of_tables_share_a_paper(tmp_path: pathlib.Path, capsys) -> None:
    """`attnio table --label` renames every \\label, so two sets of tables compile in one
    document without a multiply-defined label; the default keeps tab:attnio-..."""
    from attnio.cli import main

    assert main(["table", "--format", "latex", "--regime", "dense"]) == 0
    first = capsys.readouterr().out
    assert main(["table", "--format", "latex", "--regime", "dense", "--label", "tab:again"]) == 0
    second = capsys.readouterr().out
    assert r"\label{tab:attnio-dense-forward-lower}" in first
    assert r"\label{tab:again-dense-forward-lower}" in second and "tab:attnio" not in second
    assert main(["table", "--format", "markdown", "--label", "tab:x"]) == 2
    assert main(["table", "--format", "latex", "--label", "tab:a b"]) == 2
    capsys.readouterr()
    if shutil.which("pdflatex") is None:
        return
    (tmp_path / "refs.bib").write_text(bibtex(), encoding="utf-8")
    (tmp_path / "t.tex").write_text(first.split("\n", 1)[1] + second.split("\n", 1)[1])
    log = _pdflatex(tmp_path, "twice", _article("twocolumn", "", r"\input{t.tex}"), bib=True)
    assert "multiply defined" not in log
    _assert_fits(log)


def test_bibtex_keeps_the_capitals_of_names(tmp_path: pathlib.Path) -> None:
    """Through BibTeX's plain style (which lower-cases titles), FlashAttention, Flash
    Attention, I/O and attnio keep their letters: they are protected with braces."""
    if shutil.which("bibtex") is None:
        pytest.skip("bibtex is not installed (apt: texlive-binaries)")
    (tmp_path / "refs.bib").write_text(bibtex(), encoding="utf-8")
    (tmp_path / "cite.aux").write_text(
        "\\relax\n\\citation{*}\n\\bibstyle{plain}\n\\bibdata{refs}\n", encoding="utf-8"
    )
    subprocess.run(["bibtex", "cite"], cwd=tmp_path, capture_output=True, timeout=60, check=True)
    bbl = " ".join((tmp_path / "cite.bbl").read_text(encoding="utf-8").split())
    for phrase in ("{FlashAttention}:", "{FlashAttention-2}:", "{Flash Attention}?", "{I/O}",
                   "{attnio}:"):  # fmt: skip
        assert phrase in bbl, phrase


# ------------------------------------------------- the paper's tables: summary and tightness
@functools.cache
def _paper_tables() -> dict[str, str]:
    """The summary and tightness tables in both float layouts (LaTeX), built once."""
    from attnio.bounds.render import render_summary
    from attnio.proofs.summary import summary
    from attnio.proofs.tightness import render_tightness, rows

    table, lines = summary(), rows()
    found = {}
    for layout in ("table", "table*"):
        found[f"summary-{layout}"] = render_summary(table, "latex", layout)
        found[f"tightness-{layout}"] = render_tightness(lines, "latex", layout)
    return found


def _no_overfull(log: str) -> None:
    assert "Overfull \\hbox" not in log, re.findall(r"Overfull \\hbox.*", log)
    assert "Float too large" not in log


@pytest.mark.slow
@pytest.mark.parametrize("options", ["", "twocolumn"])
def test_every_table_compiles_with_no_overfull_box(tmp_path: pathlib.Path, options: str) -> None:
    """Every table (the bound tables of every regime, the summary and the tightness
    table, in table and table* layouts) compiles in a one- and a two-column article with
    0 overfull boxes (read from the log)."""
    _needs_pdflatex()
    (tmp_path / "refs.bib").write_text(bibtex(), encoding="utf-8")
    parts = [render_latex(catalog(), None, "table"), render_latex(catalog(), None, "table*")]
    parts += list(_paper_tables().values())
    body = "\n".join(p.split("\n", 1)[1] for p in parts)
    (tmp_path / "t.tex").write_text(body, encoding="utf-8")
    # every float of the catalog in one document, with no text between them: more than
    # LaTeX's 18 waiting floats, which a paper with this many tables raises the same way
    log = _pdflatex(
        tmp_path, "all", _article(options, "\\extrafloats{100}", "\\input{t.tex}"), True
    )
    _no_overfull(log)


@pytest.mark.parametrize("options", ["", "twocolumn"])
def test_masked_tightness_tables_compile_and_fit(tmp_path: pathlib.Path, options: str) -> None:
    """`attnio table --tightness --mask` in LaTeX (causal, and band, whose only lower bound
    is the compulsory I/O; table and table* layouts) compiles in a one- and a two-column
    article with no overfull box and no float too large."""
    _needs_pdflatex()
    from attnio.cli import main

    parts = []
    for k, (mask, layout) in enumerate([(["causal"], "table"), (["causal"], "table*"),
                                        (["band", "--window", "64"], "table")]):  # fmt: skip
        out = tmp_path / f"m{k}.tex"
        argv = ["table", "--tightness", "--mask", *mask, "--format", "latex", "--layout", layout,
                "--label", f"tab:m{k}", "-o", str(out)]  # fmt: skip
        assert main(argv) == 0
        parts.append(out.read_text(encoding="utf-8"))
    assert "The only lower bound is the compulsory I/O" in parts[2]
    (tmp_path / "t.tex").write_text("\n".join(parts), encoding="utf-8")
    log = _pdflatex(tmp_path, "masked", _article(options, "", "\\input{t.tex}").replace(
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n", ""))  # fmt: skip
    _no_overfull(log)


def test_summary_table_has_one_row_per_cell(capsys) -> None:
    """`attnio table --summary`: the four dense cells, the sparse and the approximate
    passes, in LaTeX (one row each, display names, the derived legend), Markdown and JSON
    (the same rows, in order)."""
    from attnio.cli import main

    assert main(["table", "--summary", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["summary"]
    cells = [(r["regime"], r["pass"], r["cache"]) for r in rows]
    assert cells[:4] == [
        ("dense", p, c) for p in ("forward", "backward") for c in ("small", "large")
    ]
    assert {c[0] for c in cells[4:]} == {"sparse", "approximate"}
    assert all(r["constant"] is not None and r["ratio"] for r in rows[:4])
    tex = _paper_tables()["summary-table"]
    assert "flash2" not in tex and "row-streaming" not in tex and "output-stationary" not in tex
    assert "Row streaming" in tex and "combinatorial lemmas proved by hand" in tex
    assert tex.count(r" \\") == 1 + len(rows) + 3  # header, rows, one heading per regime
    assert main(["table", "--summary", "--layout", "longtable", "--format", "latex"]) == 2


def test_stated_rows_quote_the_papers_conditions_and_mark_the_narrowing() -> None:
    """DFE22 Thm 2 (standard attention, stated for d <= M <= n d, narrowed by attnio to
    M >= d^2) shows the paper's range and a visible narrowing mark in LaTeX (with its
    legend), Markdown and JSON; a quoted record attnio does not narrow carries no mark."""
    bounds = catalog(regime="dense", pass_="forward", kind="upper")
    tex = render(bounds, "latex")
    row = next(x for x in tex.splitlines() if x.startswith("Standard attention &"))
    assert "paper: " in row and r"$^{\ddagger}$" in row and r"d \leq M" in row
    assert "attnio narrows the paper's conditions" in tex
    flash = next(x for x in tex.splitlines() if x.startswith(r"Flash\-Attention &"))
    assert r"\ddagger" not in flash
    markdown = render(bounds, "markdown")
    line = next(x for x in markdown.splitlines() if x.startswith("| standard-forward-upper "))
    assert "paper: " in line and "‡ attnio: " in line and "‡ attnio narrows" in markdown
    data = {b["name"]: b for b in json.loads(render(bounds, "json"))["bounds"]}
    assert data["standard-forward-upper"]["narrowed"] is True
    assert data["standard-forward-upper"]["source_range"]["text"]
    assert data["flash-forward-upper"]["narrowed"] is False


def test_the_strongest_lower_bound_is_marked_and_first() -> None:
    """In each lower-bound float the strongest bound (largest at the strength point) is
    bold and first, the others follow by value; JSON and Markdown mark the same records."""
    from attnio.bounds.render import STRENGTH_POINTS, strength, strongest

    bounds = _square(catalog(regime="dense", pass_="forward", kind="lower"))
    marked = strongest(bounds)
    assert len(marked) == 2  # one per cache size
    tex = render(bounds, "latex")
    for table in tex.split(r"\begin{tabular}")[1:]:
        body = [x for x in table.split(r"\midrule", 1)[1].splitlines() if x.endswith(r" \\")]
        assert body[0].startswith(r"\textbf{")
    for name in marked:
        bound = next(b for b in bounds if b.name == name)
        cache = Cache.SMALL if bound.cache is Cache.SMALL else Cache.LARGE
        assert STRENGTH_POINTS[cache]
        rivals = [strength(b, cache) for b in bounds if b.cache in (cache, Cache.ANY)]
        assert strength(bound, cache) == max(v for v in rivals if v is not None)
    data = json.loads(render(bounds, "json"))["bounds"]
    assert {b["name"] for b in data if b["strongest"]} == marked
    assert all(f"| {name} (strongest) |" in render(bounds, "markdown") for name in marked)


def _square(bounds):
    """The records of square single-head attention (the shape records have a float of
    their own, and no strength point: they are not in n)."""
    return tuple(b for b in bounds if not set(b.parameters) & SHAPE_PARAMETERS)
