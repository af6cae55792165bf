"""Render bound records as Markdown, LaTeX (booktabs) and JSON tables.

The LaTeX tables are written for papers: a reader's label per row, math typeset by sympy
with products as thin spaces, sources as ``\\cite`` commands whose BibTeX entries ship in
``references.bib``, evidence levels as compact marks explained in the caption, and column
widths that are shares of ``\\linewidth`` so that a table fits its column (or, with
``table*``, the page) without overfull boxes. JSON rows carry ``sympy.srepr`` strings so
that other tools rebuild the exact expressions with :func:`attnio.bounds.srepr.parse_srepr`
(no ``eval``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import sympy as sp
from sympy.printing.latex import LatexPrinter

from . import symbols
from .citations import citations, cite_latex, entries
from .errors import FilterError
from .forms import forms
from .labels import label
from .record import Bound, Cache, Kind, Pass, Regime, Status
from .schema import JSON_SCHEMA_VERSION
from .srepr import parse_srepr

TABLE_FORMATS = ("markdown", "latex", "json")
"""The formats :func:`render` writes a table of bounds in."""
COLUMNS = (
    "name",
    "regime",
    "pass",
    "cache",
    "kind",
    "bound",
    "explicit",
    "conditions",
    "source",
    "status",
)


def _plain(expr: sp.Basic | None) -> str:
    return "-" if expr is None else sp.sstr(expr)


def _condition_text(bound: Bound) -> str:
    return "always" if bound.conditions is sp.true else sp.sstr(bound.conditions)


def render_markdown(bounds: Sequence[Bound]) -> str:
    """Return a GitHub Markdown table, one row per bound.

    Examples
    --------
    >>> from attnio.bounds import catalog
    >>> render_markdown(catalog(kind="tight"))[:7]
    '| name '
    """

    def cell(text: str) -> str:
        return text.replace("|", r"\|").replace("\n", " ")

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for b in bounds:
        row = (
            b.name,
            b.regime.value,
            b.pass_.value,
            b.cache.value,
            b.kind.value,
            b.notation,
            _plain(b.explicit),
            _condition_text(b),
            b.source,
            b.status.value,
        )
        lines.append(
            "| "
            + " | ".join(cell(f"`{x}`" if i in (5, 6, 7) else x) for i, x in enumerate(row))
            + " |"
        )
    return "\n".join(lines) + "\n"


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters in running text."""
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in text)


# ----------------------------------------------------------------- math typesetting
PRODUCT = r"\,\penalty900 "
"""The product sign of table cells: a thin space where a line may break if it must."""

_PRINT_ORDER = ("n", "d", "M", "Z", "Z_in", "Z_QK", "s", "s_c", "w", "r", "g", "B", "epsilon")
"""Factors print in this order (n^2 d / M, as papers write them), whatever sympy's sort."""


class _Printer(LatexPrinter):
    """sympy's LaTeX printer with breakable max/min and thin-space products."""

    def _minmax(self, name: str, expr: sp.Basic) -> str:
        args = r",\allowbreak ".join(self._print(arg) for arg in expr.args)
        return rf"\{name}\bigl({args}\bigr)"

    def _print_Mul(self, expr: sp.Mul) -> str:
        # Slash a fraction only over a single factor: n^2 d / M, never n^2 d^2 / 8 M.
        numerator, denominator = sp.fraction(expr, exact=True)
        if isinstance(denominator, sp.Add) and len(denominator.args) >= 3:
            # A long sum below the line is too wide for a narrow column as a \frac, which
            # cannot break: slashed in big parentheses it can break after a +.
            return rf"{self._print(numerator)} / \bigl({self._print(denominator)}\bigr)"
        single = (
            denominator.is_Symbol
            or denominator.is_Integer
            or (denominator.is_Pow and denominator.base.is_Symbol)
        )
        saved = self._settings["fold_short_frac"]
        self._settings["fold_short_frac"] = bool(saved and single)
        try:
            return super()._print_Mul(expr)
        finally:
            self._settings["fold_short_frac"] = saved

    def _print_Max(self, expr: sp.Max) -> str:
        return self._minmax("max", expr)

    def _print_Min(self, expr: sp.Min) -> str:
        return self._minmax("min", expr)


def latex_math(expr: sp.Basic, abbreviations: dict[sp.Basic, sp.Symbol] | None = None) -> str:
    """Return ``expr`` as LaTeX math (no dollar signs) for a table cell.

    Products are thin spaces, factors appear in the order n, d, M, ... (``n^{2}\\,d``
    rather than sympy's ``d n^{2}``), short fractions are slashed, and parentheses,
    ``max`` and ``min`` use ``\\bigl(``/``\\bigr)`` so that a long expression can break
    after a ``+`` or a comma inside a narrow column. ``abbreviations`` replaces
    subexpressions (block sizes) by named symbols before printing.

    Examples
    --------
    >>> from attnio.bounds.symbols import M, d, n
    >>> print(latex_math(n**2 * d / M))
    n^{2}\\,\\penalty900 d / M
    """
    expr = sp.sympify(expr)
    if abbreviations:
        expr = expr.xreplace(abbreviations)
    stand_ins = {}
    names = {}
    for k, name in enumerate(_PRINT_ORDER):
        sym = symbols.ALL[name]
        stand_in = sp.Symbol(f"x{k:02d}", **sym.assumptions0)
        stand_ins[sym] = stand_in
        names[stand_in] = sp.latex(sym)
    for sym in (abbreviations or {}).values():
        names[sym] = f"b_{{{sym.name[1:]}}}"
    printer = _Printer({"mul_symbol": PRODUCT, "symbol_names": names, "fold_short_frac": True})
    text = printer.doprint(expr.xreplace(stand_ins))
    return text.replace(r"\left(", r"\bigl(").replace(r"\right)", r"\bigr)")


def abbreviations(bounds: Sequence[Bound], columns: Sequence[str]) -> dict[sp.Basic, sp.Symbol]:
    """Name each distinct floor (a block size or tile side) in the shown cells b_1, b_2, ...

    Only the explicit forms (in the ``explicit`` column, or the ``bound`` column when there
    is none) and the ``conditions`` column hold floors; the caption defines the names
    (:func:`_definitions`).
    """
    found: list[sp.Basic] = []
    for bound in bounds:
        exprs = []
        if {"explicit", "bound"} & set(columns) and bound.explicit is not None:
            exprs.append(bound.explicit)
        if "conditions" in columns:
            exprs.append(bound.conditions)
        for expr in exprs:
            for atom in sorted(expr.atoms(sp.floor), key=sp.default_sort_key):
                if atom not in found:
                    found.append(atom)
    return {
        atom: sp.Symbol(f"y{k + 1}", integer=True, positive=True) for k, atom in enumerate(found)
    }


def _definitions(names: dict[sp.Basic, sp.Symbol]) -> str:
    if not names:
        return ""
    parts = [f"${latex_math(sym, names)} = {latex_math(atom)}$" for atom, sym in names.items()]
    return " Block sizes: " + ", ".join(parts) + "."


def _breakable(text: str) -> str:
    """Allow a hyphen between the parts of CamelCase words (Flash\\-Attention)."""
    return re.sub(r"([a-z])([A-Z])", r"\1\\-\2", text)


_PREFIX = {Kind.UPPER: "O", Kind.LOWER: r"\Omega", Kind.TIGHT: r"\Theta"}


def latex_statement(bound: Bound) -> str:
    """Return the asymptotic statement, e.g. ``$\\Theta\\bigl(...\\bigr)$``, or a word."""
    if bound.asymptotic is None:
        return "unknown" if bound.status is Status.OPEN else "claimed, not retrieved"
    return rf"${_PREFIX[bound.kind]}\bigl({latex_math(bound.asymptotic)}\bigr)$"


_RELATION = {Kind.LOWER: r"\geq", Kind.UPPER: r"\leq", Kind.TIGHT: "="}


def is_exact_count(bound: Bound) -> bool:
    """Whether ``bound``'s explicit form is an algorithm's exact count of the words it moves
    (a derived upper bound of an algorithm), not a bound on the least I/O of any schedule."""
    return bound.kind is Kind.UPPER and bound.status is Status.DERIVED and bool(bound.algorithm)


def explicit_relation(bound: Bound) -> str:
    """Return the left side of ``bound``'s explicit form in LaTeX: ``\\mathrm{I/O} =`` for an
    algorithm's exact count (:func:`is_exact_count`), else ``Q \\geq``, ``Q \\leq`` or
    ``Q =``, a relation to the least I/O ``Q`` of any schedule.

    Examples
    --------
    >>> from attnio.bounds import get
    >>> print(explicit_relation(get("dense-forward-compulsory")))
    Q \\geq
    >>> print(explicit_relation(get("flash-forward-count")))
    \\mathrm{I/O} =
    """
    if is_exact_count(bound):
        return r"\mathrm{I/O} ="
    return f"Q {_RELATION[bound.kind]}"


_Names = dict[sp.Basic, sp.Symbol]


def _latex_condition(bound: Bound, names: _Names) -> str:
    if bound.conditions is sp.true:
        return "none"
    parts = bound.conditions.args if isinstance(bound.conditions, sp.And) else (bound.conditions,)
    texts = []
    for part in sorted(parts, key=sp.default_sort_key):
        if isinstance(part, sp.Or):
            options = sorted(part.args, key=sp.default_sort_key)
            texts.append(" or ".join(_math_or_conjuncts(a, names) for a in options))
        else:
            texts.append(f"${latex_math(part, names)}$")
    return ", ".join(texts)


def _math_or_conjuncts(expr: sp.Basic, names: _Names) -> str:
    if isinstance(expr, sp.And):
        inner = sorted(expr.args, key=sp.default_sort_key)
        return "(" + " and ".join(f"${latex_math(a, names)}$" for a in inner) + ")"
    return f"${latex_math(expr, names)}$"


_REGIME_MATH = {
    Cache.SMALL: r"$M \leq d^{2}$: ",
    Cache.LARGE: r"$M \geq d^{2}$: ",
    Cache.ANY: "",
}


def _pieces(expr: sp.Expr, names: _Names, head: str = "") -> str:
    """A piecewise expression as one line per piece: ``$e_1$ if $c_1$; $e_2$ otherwise``,
    ``head`` (a relation's left side) before the first."""
    if not isinstance(expr, sp.Piecewise):
        return f"${head}{latex_math(expr, names)}$"
    lines = []
    for k, (piece, cond) in enumerate(expr.args):
        when = "otherwise" if cond is sp.true else f"if {_math_or_conjuncts(cond, names)}"
        lines.append(f"${'' if k else head}{latex_math(piece, names)}$ {when}")
    return ";\\newline ".join(lines)


def _latex_leading(bound: Bound, names: _Names) -> str:
    leading = forms(bound).leading
    return r"\newline ".join(
        _REGIME_MATH[cache] + _pieces(expr, names) for cache, expr in leading.items()
    )


def _latex_explicit(bound: Bound, names: _Names) -> str:
    return "--" if bound.explicit is None else _pieces(bound.explicit, names)


def _latex_bound(bound: Bound, names: _Names) -> str:
    """The explicit form as a relation (``Q \\geq ...``, ``\\mathrm{I/O} = ...``, see
    :func:`explicit_relation`) where the record has one, else the asymptotic statement: the
    ``bound`` cell of a table with no ``explicit`` column, so that rows of one asymptotic form
    but different constants differ."""
    if bound.explicit is None:
        return latex_statement(bound)
    return _pieces(bound.explicit, names, explicit_relation(bound) + " ")


STATUS_MARKS: dict[Status, tuple[str, str]] = {
    Status.STATED: (r"$\bullet$", "stated in the paper's theorem"),
    Status.STATED_SECONDARY: (r"$\circ$", "stated in secondary sources"),
    Status.DERIVED: (r"$\ast$", "derived by attnio, steps machine-checked, or an exact count"),
    Status.RECONSTRUCTED: (r"$\dagger$", "reconstructed, unverified"),
    Status.CLAIMED_UNRETRIEVED: ("?", "claimed, statement not retrieved"),
    Status.OPEN: ("--", "open"),
    Status.CLAIMED: (r"$\triangle$", "a user's claim, not yet evidence"),
}
"""Evidence level -> (compact mark, its legend in the caption)."""


@dataclass(frozen=True)
class _Column:
    header: str
    weight: float
    cell: Callable[[Bound, _Names], str]
    centred: bool = False


LATEX_COLUMNS: dict[str, _Column] = {
    "name": _Column("", 0.27, lambda b, _: _breakable(latex_escape(_reader_name(b)))),
    "bound": _Column("Bound", 0.31, _latex_bound),
    "explicit": _Column("Explicit form", 0.42, _latex_explicit),
    "leading": _Column("Leading term", 0.27, _latex_leading),
    "conditions": _Column("Conditions", 0.21, _latex_condition),
    "source": _Column("Source", 0.21, lambda b, _: _source(b)),
    "status": _Column("Ev.", 0.0, lambda b, _: STATUS_MARKS[b.status][0], centred=True),
}
"""The columns ``render_latex`` can show, with their share of the line width. ``bound`` shows a
record's explicit form where it has one, its asymptotic statement otherwise; beside an
``explicit`` column, always the asymptotic statement."""

DEFAULT_LATEX_COLUMNS = ("name", "bound", "conditions", "source", "status")
"""Columns that fit a 3.3-inch column of a two-column article."""

LAYOUTS = ("table", "table*", "longtable")
"""``table``: one float per (regime, pass), as wide as the column. ``table*``: the same,
spanning both columns of a two-column article. ``longtable``: one table over pages,
grouped by regime and pass (one-column documents only)."""

_KIND_ORDER = {Kind.LOWER: 0, Kind.TIGHT: 1, Kind.UPPER: 2}
_REGIME_TEXT = {
    Regime.DENSE: "Dense attention",
    Regime.SPARSE: "Sparse attention",
    Regime.APPROXIMATE: "Approximate attention",
}


def parse_columns(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """Return the column names of ``text`` (comma-separated or a sequence), checked.

    Raises
    ------
    FilterError
        If a name is not one of :data:`LATEX_COLUMNS` or ``name`` is missing.
    """
    if text is None:
        return DEFAULT_LATEX_COLUMNS
    names = tuple(p.strip() for p in text.split(",")) if isinstance(text, str) else tuple(text)
    unknown = [name for name in names if name not in LATEX_COLUMNS]
    if unknown or not names:
        raise FilterError(
            f"columns={','.join(names)!r} has unknown names {unknown}; choose from: "
            f"{','.join(LATEX_COLUMNS)}"
        )
    if len(set(names)) != len(names):
        raise FilterError(f"columns={','.join(names)!r} names a column twice")
    return names


_FIXED_WIDTH = "1.6em"
"""Width of the centred mark column (``status``): its header "Ev." and one symbol."""


def _column_spec(columns: Sequence[str]) -> str:
    """Paragraph columns whose widths plus the inter-column space make exactly \\linewidth."""
    shared = [c for c in columns if not LATEX_COLUMNS[c].centred]
    total = sum(LATEX_COLUMNS[c].weight for c in shared)
    fixed = len(columns) - len(shared)
    # @{} at both ends: 2 (count - 1) tabcolseps lie between the columns.
    rest = rf"\linewidth-{2 * (len(columns) - 1)}\tabcolsep"
    rest += f"-{_FIXED_WIDTH}" * fixed
    specs = []
    for name in columns:
        column = LATEX_COLUMNS[name]
        if column.centred:
            specs.append(rf">{{\centering\arraybackslash}}p{{{_FIXED_WIDTH}}}")
            continue
        share = round(10000 * column.weight / total)
        specs.append(
            rf">{{\raggedright\arraybackslash\hspace{{0pt}}}}p{{\dimexpr({rest})*{share}/10000\relax}}"
        )
    return "@{}" + "".join(specs) + "@{}"


def _groups(bounds: Sequence[Bound]) -> list[tuple[tuple[Regime, Pass], list[Bound]]]:
    grouped: dict[tuple[Regime, Pass], list[Bound]] = {}
    for bound in bounds:
        grouped.setdefault((bound.regime, bound.pass_), []).append(bound)
    return [(key, sorted(rows, key=lambda b: _KIND_ORDER[b.kind])) for key, rows in grouped.items()]


def _explicit_in_bound(columns: Sequence[str]) -> bool:
    """Whether the ``bound`` column carries the explicit forms: when no column of their own does."""
    return "bound" in columns and "explicit" not in columns


def _rows(bounds: Sequence[Bound], columns: Sequence[str], names: _Names) -> list[str]:
    cells = [LATEX_COLUMNS[c].cell for c in columns]
    if {"bound", "explicit"} <= set(columns):  # the explicit forms have a column of their own
        cells[list(columns).index("bound")] = lambda bound, _: latex_statement(bound)
    lines = []
    previous = None
    for bound in bounds:
        if previous is not None and bound.kind is not previous:
            lines.append(r"\addlinespace[2pt]")
        previous = bound.kind
        lines.append(" & ".join(cell(bound, names) for cell in cells) + r" \\")
    return lines


def _shown_symbols(bounds: Sequence[Bound]) -> list[str]:
    """Names of the symbols beyond n, d and M that the rows use, in printing order."""
    used = {name for bound in bounds for name in bound.parameters}
    return [name for name in _PRINT_ORDER if name in used and name in symbols.MEANINGS]


def _caption(bounds: Sequence[Bound], columns: Sequence[str], what: str, names: _Names) -> str:
    text = (
        f"{what}: I/O bounds (words moved between a fast memory of $M$ words and slow "
        r"memory; $n$ sequence length, $d$ head dimension; small cache $M < d^{2}$, large "
        r"cache $M \geq d^{2}$)."
    )
    extra = _shown_symbols(bounds)
    if extra:
        meanings = "; ".join(
            f"${latex_math(symbols.ALL[name])}$ is {symbols.MEANINGS[name]}" for name in extra
        )
        text += f" Here {meanings}."
    if _explicit_in_bound(columns):
        counts = {is_exact_count(b) for b in bounds if b.explicit is not None}
        if False in counts:
            text += r" $Q$ is the least I/O of any schedule."
        if True in counts:
            text += r" $\mathrm{I/O}$ is the number of words the algorithm moves."
    if "leading" in columns:
        text += (
            r" Leading terms assume $n \geq d$ and $d \leq M \leq d^{2}$ (small cache) or "
            r"$d^{2} \leq M \leq n\,d$ (large cache); empty where the bound already is one."
        )
    text += _definitions(names)
    if "status" in columns:
        present = [s for s in Status if any(b.status is s for b in bounds)]
        legend = "; ".join(f"{STATUS_MARKS[s][0]} {STATUS_MARKS[s][1]}" for s in present)
        text += f" Evidence (Ev.): {legend}."
    return text


def _header(columns: Sequence[str]) -> str:
    return " & ".join(LATEX_COLUMNS[c].header for c in columns) + r" \\"


LABEL_PREFIX = "tab:attnio"
"""Default start of the tables' ``\\label`` keys: ``tab:attnio-dense-forward``, ..."""


def _label(key: tuple | None, prefix: str = LABEL_PREFIX) -> str:
    if key is None:
        return rf"\label{{{prefix}-bounds}}"
    return rf"\label{{{prefix}-{'-'.join(getattr(k, 'value', k) for k in key)}}}"


_SIDES = {
    "lower": "lower bounds",
    "lower-small": "lower bounds for a small cache",
    "upper": "tight and upper bounds",
    "counts": "algorithms' exact I/O counts",
}
"""The floats of a regime and pass: its lower bounds, its tight and upper bounds, and the
exact counts of its algorithms (:func:`is_exact_count`)."""


def _sided(bounds: Sequence[Bound]) -> list[tuple[tuple, list[Bound]]]:
    """The float groups: per regime and pass, the lower bounds, the tight and upper bounds,
    and the exact counts apart.

    One float per regime and pass outgrew a page once the dense cells had two families of
    derived lower bounds and five algorithms each, so each got two; once the rows showed
    the explicit forms, the algorithms' exact counts outgrew a two-column page beside the
    published upper bounds, so they got a third. With the accumulator bounds the dense
    forward lower bounds outgrew a two-column page too, so the small-cache lower bounds
    have a float of their own (the other lower bounds keep the label ``...-lower``).
    """
    found = []
    for (regime, pass_), rows in _groups(bounds):
        lower = [b for b in rows if b.kind is Kind.LOWER]
        sides = {
            "lower": [b for b in lower if b.cache is not Cache.SMALL],
            "lower-small": [b for b in lower if b.cache is Cache.SMALL],
            "upper": [b for b in rows if b.kind is not Kind.LOWER and not is_exact_count(b)],
            "counts": [b for b in rows if is_exact_count(b)],
        }
        found += [((regime, pass_, side), part) for side, part in sides.items() if part]
    return found


def _float(
    env: str,
    key: tuple,
    rows: list[Bound],
    columns: Sequence[str],
    prefix: str = LABEL_PREFIX,
) -> str:
    names = abbreviations(rows, columns)
    what = f"{_REGIME_TEXT[key[0]]}, {key[1].value} pass, {_SIDES[key[2]]}"
    lines = [
        rf"\begin{{{env}}}[tbp]",
        r"\centering",
        r"\footnotesize",
        r"\setlength{\tabcolsep}{3pt}",
        rf"\caption{{{_caption(rows, columns, what, names)}}}{_label(key, prefix)}",
        rf"\begin{{tabular}}{{{_column_spec(columns)}}}",
        r"\toprule",
        _header(columns),
        r"\midrule",
        *_rows(rows, columns, names),
        r"\bottomrule",
        r"\end{tabular}",
        rf"\end{{{env}}}",
    ]
    return "\n".join(lines) + "\n"


def _longtable(bounds: Sequence[Bound], columns: Sequence[str], prefix: str = LABEL_PREFIX) -> str:
    count = len(columns)
    names = abbreviations(bounds, columns)
    lines = [
        r"\begingroup",
        r"\footnotesize",
        r"\setlength{\tabcolsep}{3pt}",
        rf"\begin{{longtable}}{{{_column_spec(columns)}}}",
        rf"\caption{{{_caption(bounds, columns, 'Attention', names)}}}{_label(None, prefix)} \\",
        r"\toprule",
        _header(columns),
        r"\midrule",
        r"\endfirsthead",
        r"\toprule",
        _header(columns),
        r"\midrule",
        r"\endhead",
        r"\midrule",
        rf"\multicolumn{{{count}}}{{@{{}}r@{{}}}}{{\textit{{continued on the next page}}}} \\",
        r"\endfoot",
        r"\bottomrule",
        r"\endlastfoot",
    ]
    for k, (key, rows) in enumerate(_groups(bounds)):
        if k:
            lines.append(r"\midrule")
        heading = f"{_REGIME_TEXT[key[0]]}, {key[1].value} pass"
        lines.append(rf"\multicolumn{{{count}}}{{@{{}}l@{{}}}}{{\textit{{{heading}}}}} \\*")
        lines += _rows(rows, columns, names)
    lines += [r"\end{longtable}", r"\endgroup"]
    return "\n".join(lines) + "\n"


LATEX_PACKAGES = ("amsmath", "array", "booktabs", "longtable")
"""Packages the LaTeX tables need (texlive-latex-base and -recommended)."""


def render_latex(
    bounds: Sequence[Bound],
    columns: str | Sequence[str] | None = None,
    layout: str = "table",
    label_prefix: str = LABEL_PREFIX,
) -> str:
    """Return LaTeX tables of ``bounds`` that fit the text block without overfull boxes.

    Parameters
    ----------
    bounds
        The records, in catalog order; rows are grouped by regime and pass, lower bounds
        first, then tight bounds, then upper bounds (algorithms), with space between kinds.
    columns
        Column names (:data:`LATEX_COLUMNS`), comma-separated or a sequence; default
        :data:`DEFAULT_LATEX_COLUMNS`, which fits a 3.3-inch column.
    layout
        One of :data:`LAYOUTS`.
    label_prefix
        Start of each table's ``\\label``: ``PREFIX-dense-forward-lower`` (its lower bounds),
        ``PREFIX-dense-forward-upper`` (its tight and upper bounds),
        ``PREFIX-dense-forward-counts`` (its algorithms' exact counts) and so on (a
        longtable: ``PREFIX-bounds``). Give each set of tables in one document its own.

    Notes
    -----
    Needs ``\\usepackage{amsmath,array,booktabs}`` (and ``longtable`` for that layout).
    Every column is a ragged-right paragraph whose width is a share of ``\\linewidth``, so
    the table is exactly as wide as the column or page; math breaks at ``+``, relations and
    the commas of ``max``/``min``. Sources are ``\\cite`` commands with the keys of
    ``references.bib`` (``attnio table --bib``).
    """
    names = parse_columns(columns)
    if layout not in LAYOUTS:
        raise FilterError(f"layout={layout!r} is not one of: {', '.join(LAYOUTS)}")
    head = rf"% generated by attnio; needs \usepackage{{{','.join(LATEX_PACKAGES)}}}"
    if layout == "longtable":
        return head + "\n" + _longtable(bounds, names, label_prefix)
    body = [_float(layout, key, rows, names, label_prefix) for key, rows in _sided(bounds)]
    return head + "\n" + "\n".join(body)


def _bibitems(keys: Iterable[str]) -> str:
    every = entries()
    lines = [r"\begin{thebibliography}{99}"]
    for key in keys:
        fields = dict(re.findall(r"^\s*(\w+)\s*=\s*\{(.*)\},?\s*$", every[key], flags=re.M))
        authors = []
        for author in fields["author"].split(" and "):
            if author.startswith("{") and author.endswith("}"):
                authors.append(author[1:-1])
            else:
                authors.append(" ".join(reversed(author.split(", ", 1))))
        who = authors[0] if len(authors) == 1 else ", ".join(authors[:-1]) + " and " + authors[-1]
        where = fields.get("booktitle") or fields.get("howpublished", "")
        parts = [who, fields["title"], f"{where}, {fields['year']}", fields.get("note", "")]
        text = " ".join(p if p.endswith((".", "?", "!")) else p + "." for p in parts if p)
        lines.append(rf"\bibitem{{{key}}} {text}")
    lines.append(r"\end{thebibliography}")
    return "\n".join(lines) + "\n"


def render_standalone(
    bounds: Sequence[Bound],
    columns: str | Sequence[str] | None = None,
    layout: str = "table",
    label_prefix: str = LABEL_PREFIX,
) -> str:
    """Return a complete LaTeX document holding :func:`render_latex`'s tables.

    It compiles as-is with ``pdflatex`` (twice, for the citations): the references are
    typeset from ``references.bib`` into a ``thebibliography`` list, so BibTeX is not needed.
    The page has a 7-inch text block (``geometry``, margins of 0.75 in), wide enough for
    all seven columns in every layout.
    """
    # Here-or-top placement keeps the tables after the heading; \clearpage before the
    # references flushes every float.
    tables = render_latex(bounds, columns, layout, label_prefix).replace("}[tbp]", "}[!htbp]")
    used = {key for b in bounds for key in _cites(b)}
    cited = [key for key in entries() if key in used]
    preamble = [
        r"\documentclass[11pt]{article}",
        r"\usepackage[margin=0.75in]{geometry}",
        rf"\usepackage{{{','.join(LATEX_PACKAGES)}}}",
        r"\begin{document}",
        r"\section*{I/O bounds for attention}",
        "Generated from attnio's bound catalog.",
        "",
    ]
    bib = _bibitems(cited) if cited else ""
    body = tables.split("\n", 1)[1]
    return "\n".join(preamble) + body + "\n\\clearpage\n" + bib + r"\end{document}" + "\n"


def render_pebblings_latex(
    rows: Sequence[dict[str, object]],
    subject: str,
    vertices: int,
    variant: str,
    partial: bool = False,
    table_label: str = "tab:attnio-pebbling",
    compared: Sequence[tuple[Bound, dict[int, tuple[float, str]]]] = (),
) -> str:
    """Return a booktabs table of pebbling costs per M: proven optima, or proven bounds.

    Parameters
    ----------
    rows
        One dict per memory size with ``M``, ``io``, ``optimal``, ``lower``, ``upper`` and
        ``method`` (``attnio.pebble`` results' ``to_dict()``).
    subject
        The graph, as LaTeX text (escape file names with :func:`latex_escape`).
    vertices, variant
        The graph's size and the game variant (``standard`` or ``oneshot``).
    partial
        Whether the run was interrupted (the caption then says so).
    table_label
        The table's LaTeX label (give each table of one document its own).
    compared
        Lower bounds to set beside ``Q``: per bound, ``{M: (value, verdict)}`` with the
        verdict ``confirmed``, ``undecided`` or ``refuted`` (see
        :mod:`attnio.campaign.report`). Each becomes a column :math:`L_i`, named with its
        citation in the caption; ``--`` where the bound does not apply.

    Notes
    -----
    A value is printed as the optimum only when the row says ``optimal`` (the exact solver
    proved it and its certificate replayed); otherwise the row shows the proven bounds
    ``lower <= Q <= upper``, where ``upper`` is the cost of a pebbling actually found.
    """
    lines = [
        rf"% generated by attnio; needs \usepackage{{{','.join(LATEX_PACKAGES[:3])}}}",
        r"\begin{table}[tbp]",
        r"\centering",
        r"\footnotesize",
    ]
    heuristic = any(not row["optimal"] and "exact" not in str(row["method"]) for row in rows)
    # Beside compared bounds the note column goes and a range is written [lower, upper],
    # so that the table still fits a 3.3-inch column.
    ranges = (
        r"$[\text{lower}, \text{upper}]$ is the proven bounds $\text{lower} \leq Q \leq "
        r"\text{upper}$"
        if compared
        else r"is the proven bounds $\text{lower} \leq Q \leq \text{upper}$"
    )
    caption = (
        f"Red-blue pebbling of {subject} ({vertices} vertices, {latex_escape(variant)} game): "
        r"the least I/O $Q$ for each number $M$ of red pebbles. A single value is a proven "
        r"optimum whose move certificate an independent replayer accepted; a range "
        f"{ranges}, the upper one the cost of a pebbling found"
    )
    caption += " by a heuristic" if heuristic else " before the exact search stopped"
    caption += "." + (" The run was interrupted: the table is partial." if partial else "")
    caption += _compared_caption(compared)
    heads = "".join(f" & $L_{{{i + 1}}}$" for i in range(len(compared)))
    last = "" if compared else "l"
    lines += [
        rf"\caption{{{caption}}}\label{{{table_label}}}",
        r"\begin{tabular}{@{}rr" + "r" * len(compared) + last + "@{}}",
        r"\toprule",
        r"$M$ & $Q$" + heads + (r" \\" if compared else r" & \\"),
        r"\midrule",
    ]
    for row in rows:
        if row["optimal"]:
            value, note = f"${row['io']}$", "optimal"
        else:
            value = rf"${row['lower']} \leq Q \leq {row['upper']}$"
            method = str(row["method"])
            note = "search stopped" if "exact" in method else f"heuristic ({latex_escape(method)})"
        if compared:
            if not row["optimal"]:
                value = f"$[{row['lower']}, {row['upper']}]$"
            cells = "".join(f" & {_compared_cell(values.get(row['M']))}" for _, values in compared)
            lines.append(f"${row['M']}$ & {value}{cells} \\\\")
        else:
            lines.append(f"${row['M']}$ & {value} & {note} \\\\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


_VERDICT_MARKS = {"confirmed": "", "undecided": "^{?}", "refuted": r"^{\times}"}


def _compared_caption(compared: Sequence[tuple[Bound, dict]]) -> str:
    if not compared:
        return ""
    names = "; ".join(
        rf"$L_{{{i + 1}}}$ {latex_escape(_reader_name(bound))} {_source(bound)}"
        for i, (bound, _) in enumerate(compared)
    )
    return (
        " Columns $L_i$: the explicit lower bounds at this graph's $n$, $d$ and $M$ (-- where "
        f"a bound's conditions do not hold): {names}. Unmarked: at most the proven lower "
        r"bound on $Q$ (confirmed); $^{?}$ between the proven bounds (undecided); "
        r"$^{\times}$ above the cost of a replayed pebbling (the bound is refuted)."
    )


def _reader_name(bound: Bound) -> str:
    """The record's label; its name when it has none (a record of one's own)."""
    try:
        return label(bound)
    except ValueError:
        return bound.name


def _cites(bound: Bound) -> list[str]:
    """BibTeX keys of the works ``bound`` cites; none when its source names no known work
    (a record of one's own)."""
    try:
        return [c.key for c in citations(bound)]
    except ValueError:
        return []


def _source(bound: Bound) -> str:
    try:
        return cite_latex(bound)
    except ValueError:  # a record of one's own whose source names no known work
        return f"({latex_escape(bound.source)})"


def _compared_cell(entry: tuple[float, str] | None) -> str:
    if entry is None:
        return "--"
    value, verdict = entry
    text = str(int(value)) if float(value).is_integer() else f"{value:.3g}"
    return f"${text}{_VERDICT_MARKS[verdict]}$"


def bound_to_dict(bound: Bound) -> dict[str, object]:
    """Return a JSON-ready dict of ``bound``; expressions appear as text and as ``srepr``."""

    def both(expr: sp.Basic | None) -> dict[str, str] | None:
        return None if expr is None else {"text": sp.sstr(expr), "srepr": sp.srepr(expr)}

    return {
        "name": bound.name,
        "kind": bound.kind.value,
        "regime": bound.regime.value,
        "pass": bound.pass_.value,
        "cache": bound.cache.value,
        "asymptotic": both(bound.asymptotic),
        "explicit": both(bound.explicit),
        "conditions": both(bound.conditions),
        "source": bound.source,
        "status": bound.status.value,
        "algorithm": bound.algorithm,
        "notes": bound.notes,
        "label": _reader_name(bound),
        "cites": _cites(bound),
    }


def render_json(bounds: Sequence[Bound]) -> str:
    """Return ``{"schema": JSON_SCHEMA_VERSION, "bounds": [...]}`` of :func:`bound_to_dict` rows."""
    document = {"schema": JSON_SCHEMA_VERSION, "bounds": [bound_to_dict(b) for b in bounds]}
    return json.dumps(document, indent=2) + "\n"


def expression_from_srepr(text: str) -> sp.Basic:
    """Rebuild an expression from its ``srepr`` string (the JSON table's ``srepr`` field).

    Parsed by :func:`attnio.bounds.srepr.parse_srepr`: only sympy constructor calls
    over an allow-list, never ``eval``.

    Raises
    ------
    SreprError
        ``text`` is not such a string.
    """
    return parse_srepr(text)


def render(bounds: Sequence[Bound], fmt: str) -> str:
    """Render ``bounds`` in format ``fmt`` (one of :data:`TABLE_FORMATS`).

    Raises
    ------
    FilterError
        If ``fmt`` is not one of :data:`TABLE_FORMATS`.
    """
    if fmt not in TABLE_FORMATS:
        raise FilterError(f"format={fmt!r} is not one of: {', '.join(TABLE_FORMATS)}")
    return {"markdown": render_markdown, "latex": render_latex, "json": render_json}[fmt](bounds)
