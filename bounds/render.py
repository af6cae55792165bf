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
from .catalog import get
from .citations import citations, cite_latex, entries
from .errors import FilterError
from .forms import forms
from .labels import label
from .record import SHAPE_PARAMETERS, Bound, Cache, Kind, Pass, Regime, Status
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
    """The Markdown conditions: a quoted record's paper's range first, and where attnio
    narrows it, the narrowed range after a mark (``‡``, explained under the table)."""
    own = "always" if bound.conditions is sp.true else sp.sstr(bound.conditions)
    if is_narrowed(bound):
        return f"paper: {sp.sstr(bound.source_range)}; ‡ attnio: {own}"
    return own


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
    marked = strongest(bounds)
    for b in bounds:
        row = (
            b.name + (" (strongest)" if b.name in marked else ""),
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
    notes = []
    if marked:
        notes.append(
            "(strongest): the largest lower bound of its regime, pass and cache size at "
            "n = 65536, d = 64 and M = 16384 (large cache) or 1024 (small cache), stated or "
            "derived."
        )
    if any(is_narrowed(b) for b in bounds):
        notes.append(f"‡ {NARROWED_LEGEND}.")
    if any(b.status is Status.DERIVED and b.kind is Kind.LOWER for b in bounds):
        notes.append(f"Derived lower bounds: {_DERIVED_LEGEND.split(': ', 1)[1]}.")
    return "\n".join(lines) + "\n" + ("\n" + "\n\n".join(notes) + "\n" if notes else "")


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

_PRINT_ORDER = (
    "n", "d", "M", "Z", "Z_in", "Z_QK", "s", "s_c", "w", "r", "g", "B", "epsilon",
    "n_q", "n_kv", "h_q", "h_kv",
)  # fmt: skip
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
    algorithm's exact count (:func:`is_exact_count`), else ``\\mathit{IO} \\geq``,
    ``\\mathit{IO} \\leq`` or ``\\mathit{IO} =``, a relation to the least I/O ``IO`` of any
    schedule (docs/notation.md: Q is the query matrix).

    Examples
    --------
    >>> from attnio.bounds import get
    >>> print(explicit_relation(get("dense-forward-compulsory")))
    \\mathit{IO} \\geq
    >>> print(explicit_relation(get("flash-forward-count")))
    \\mathrm{I/O} =
    """
    if is_exact_count(bound):
        return r"\mathrm{I/O} ="
    return rf"\mathit{{IO}} {_RELATION[bound.kind]}"


_Names = dict[sp.Basic, sp.Symbol]


NARROWED_MARK = r"$^{\ddagger}$"
"""The LaTeX mark of a quoted record whose conditions attnio narrowed (:func:`is_narrowed`)."""
NARROWED_LEGEND = "attnio narrows the paper's conditions to where the bound holds"


def is_narrowed(bound: Bound) -> bool:
    """Whether ``bound`` quotes a paper (it has a ``source_range``) but applies on a
    narrower range than the paper states (DFE22 Thm 2, stated for d <= M <= n d, holds
    only for M >= d^2).

    Examples
    --------
    >>> from attnio.bounds import get
    >>> is_narrowed(get("standard-forward-upper")), is_narrowed(get("flash-forward-upper"))
    (True, False)
    """
    return bound.source_range is not None and bound.conditions != bound.source_range


def _latex_condition(bound: Bound, names: _Names) -> str:
    """The conditions cell: a quoted record's own paper's conditions (``source_range``),
    and where attnio narrows them the narrowed ones after a mark (:data:`NARROWED_MARK`)."""
    if is_narrowed(bound):
        paper = _latex_conjuncts(bound.source_range, names)
        ours = _latex_conjuncts(bound.conditions, names)
        return f"paper: {paper};\\newline{NARROWED_MARK}\\,attnio: {ours}"
    if bound.source_range is not None:
        return _latex_conjuncts(bound.source_range, names)
    return _latex_conjuncts(bound.conditions, names)


def _latex_conjuncts(conditions: sp.Basic, names: _Names) -> str:
    if conditions is sp.true:
        return "none"
    parts = conditions.args if isinstance(conditions, sp.And) else (conditions,)
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
    """The explicit form as a relation (``\\mathit{IO} \\geq ...``, ``\\mathrm{I/O} = ...``, see
    :func:`explicit_relation`) where the record has one, else the asymptotic statement: the
    ``bound`` cell of a table with no ``explicit`` column, so that rows of one asymptotic form
    but different constants differ."""
    if bound.explicit is None:
        return latex_statement(bound)
    return _pieces(bound.explicit, names, explicit_relation(bound) + " ")


STATUS_MARKS: dict[Status, tuple[str, str]] = {
    Status.STATED: (r"$\bullet$", "stated in the paper's theorem"),
    Status.STATED_SECONDARY: (r"$\circ$", "stated in secondary sources"),
    Status.DERIVED: (
        r"$\ast$",
        "derived by attnio (algebra machine-checked; combinatorial lemmas proved by hand), "
        "or an exact count",
    ),
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


STRENGTH_POINTS: dict[Cache, dict[str, int]] = {
    Cache.LARGE: {"n": 2**16, "d": 64, "M": 2**14},
    Cache.SMALL: {"n": 2**16, "d": 64, "M": 2**10},
}
"""Where lower bounds are compared for strength: n = 65536, d = 64 and M = 16384 (large
cache, inside d^2 <= M <= n d) or M = 1024 (small cache, inside d <= M < d^2)."""

_COMPARABLE = frozenset({Status.STATED, Status.DERIVED})
"""Evidence levels a strongest bound may have (a reconstructed formula is never marked)."""


def strength(bound: Bound, cache: Cache) -> float | None:
    """``bound``'s explicit value at :data:`STRENGTH_POINTS` of ``cache`` (None: it has no
    explicit form in n, d and M, or its conditions fail there).

    Examples
    --------
    >>> from attnio.bounds import get
    >>> strength(get("dense-forward-compulsory"), Cache.LARGE)
    16777216.0
    """
    if bound.explicit is None or not set(bound.parameters) <= {"n", "d", "M"}:
        return None
    at = {symbols.ALL[k]: v for k, v in STRENGTH_POINTS[cache].items()}
    if bound.conditions.subs(at) is not sp.true:
        return None
    value = sp.N(bound.explicit.subs(at))
    return float(value) if value.is_real else None


def _strength_cache(bound: Bound) -> Cache:
    return Cache.SMALL if bound.cache is Cache.SMALL else Cache.LARGE


def strongest(bounds: Sequence[Bound]) -> set[str]:
    """Names of the strongest lower bound of each regime, pass and cache size of ``bounds``:
    the ``stated`` or ``derived`` one with the largest :func:`strength` (a bound for every
    cache size competes in both). Not a proof of dominance everywhere: the comparison is at
    one point per cache size, as the table captions say."""
    best: dict[tuple, tuple[float, str]] = {}
    # a bound for every cache size competes only for the sizes that have bounds of their own
    sized = {b.cache for b in bounds if b.kind is Kind.LOWER} - {Cache.ANY}
    for bound in bounds:
        if bound.kind is not Kind.LOWER or bound.status not in _COMPARABLE:
            continue
        caches = (
            tuple(sized or (Cache.SMALL, Cache.LARGE))
            if bound.cache is Cache.ANY
            else (bound.cache,)
        )
        for cache in caches:
            value = strength(bound, cache)
            key = (bound.regime, bound.pass_, cache)
            if value is not None and (key not in best or value > best[key][0]):
                best[key] = (value, bound.name)
    return {name for _, name in best.values()}


def _order(bound: Bound) -> tuple:
    """Rows of a group: lower bounds (large cache, then small; the strongest first, records
    without an explicit form after), then tight, then upper bounds."""
    if bound.kind is not Kind.LOWER:
        return (_KIND_ORDER[bound.kind], 0, 0.0)
    value = strength(bound, _strength_cache(bound))
    return (
        _KIND_ORDER[bound.kind],
        bound.cache is Cache.SMALL,
        float("inf") if value is None else -value,
    )


def _groups(bounds: Sequence[Bound]) -> list[tuple[tuple[Regime, Pass], list[Bound]]]:
    grouped: dict[tuple[Regime, Pass], list[Bound]] = {}
    for bound in bounds:
        grouped.setdefault((bound.regime, bound.pass_), []).append(bound)
    return [(key, sorted(rows, key=_order)) for key, rows in grouped.items()]


def _explicit_in_bound(columns: Sequence[str]) -> bool:
    """Whether the ``bound`` column carries the explicit forms: when no column of their own does."""
    return "bound" in columns and "explicit" not in columns


def _rows(bounds: Sequence[Bound], columns: Sequence[str], names: _Names) -> list[str]:
    cells = [LATEX_COLUMNS[c].cell for c in columns]
    if {"bound", "explicit"} <= set(columns):  # the explicit forms have a column of their own
        cells[list(columns).index("bound")] = lambda bound, _: latex_statement(bound)
    marked = strongest(bounds)
    lines = []
    previous = None
    for bound in bounds:
        if previous is not None and bound.kind is not previous:
            lines.append(r"\addlinespace[2pt]")
        previous = bound.kind
        texts = [cell(bound, names) for cell in cells]
        if bound.name in marked and columns[0] == "name":
            texts[0] = rf"\textbf{{{texts[0]}}}"
        lines.append(" & ".join(texts) + r" \\")
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
            text += r" $\mathit{IO}$ is the least I/O of any schedule."
        if True in counts:
            text += r" $\mathrm{I/O}$ is the number of words the algorithm moves."
    if "leading" in columns:
        text += (
            r" Leading terms assume $n \geq d$ and $d \leq M \leq d^{2}$ (small cache) or "
            r"$d^{2} \leq M \leq n\,d$ (large cache); empty where the bound already is one."
        )
    text += _definitions(names)
    if strongest(bounds) and columns[0] == "name":
        text += (
            r" Bold: the strongest lower bound of its cache size, the largest at $n = 2^{16}$, "
            r"$d = 64$ and $M = 2^{14}$ (large) or $2^{10}$ (small), where the others are "
            "sorted by value."
        )
    if "conditions" in columns and any(is_narrowed(b) for b in bounds):
        text += f" Conditions: the paper's; {NARROWED_MARK} {NARROWED_LEGEND}."
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
    "shapes-lower": "lower bounds for rectangular and grouped-query shapes",
    "shapes": "rectangular and grouped-query shapes",
    "shapes-counts": "exact I/O counts for rectangular and grouped-query shapes",
    "shapes-flash": "FlashAttention's exact I/O counts for rectangular and grouped-query shapes",
    "masks-lower": "lower bounds for causal, sliding-window and band masks",
    "masks": "causal, sliding-window and band masks",
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
    have a float of their own (the other lower bounds keep the label ``...-lower``). The
    records of other shapes (in n_q, n_kv, h_q, h_kv) and of the masks have a float of
    their own each; with the causal mask's derived lower bounds the masks' float outgrew a
    two-column page, so their lower bounds have a float of their own (``...-masks-lower``);
    with group-aware FlashAttention-2's counts the shapes' float did too, so theirs have
    one as well (``...-shapes-lower``), and with the group-aware FlashAttention, two-sweep
    and score-panel counts the shapes' exact counts got two, FlashAttention's
    (``...-shapes-flash``) and the others' (``...-shapes-counts``)."""
    found = []
    for (regime, pass_), every in _groups(bounds):
        shaped = [b for b in every if set(b.parameters) & SHAPE_PARAMETERS]
        masked = [b for b in every if b.mask is not None]
        rows = [b for b in every if b not in shaped and b not in masked]
        lower = [b for b in rows if b.kind is Kind.LOWER]
        sides = {
            "lower": [b for b in lower if b.cache is not Cache.SMALL],
            "lower-small": [b for b in lower if b.cache is Cache.SMALL],
            "upper": [b for b in rows if b.kind is not Kind.LOWER and not is_exact_count(b)],
            "counts": [b for b in rows if is_exact_count(b)],
            "shapes-lower": [b for b in shaped if b.kind is Kind.LOWER],
            "shapes": [b for b in shaped if b.kind is not Kind.LOWER and not is_exact_count(b)],
            "shapes-counts": [b for b in shaped if is_exact_count(b) and not _flash(b)],
            "shapes-flash": [b for b in shaped if is_exact_count(b) and _flash(b)],
            "masks-lower": [b for b in masked if b.kind is Kind.LOWER],
            "masks": [b for b in masked if b.kind is not Kind.LOWER],
        }
        found += [((regime, pass_, side), part) for side, part in sides.items() if part]
    return found


def _flash(bound: Bound) -> bool:
    """Whether ``bound`` counts a FlashAttention schedule (v1 or v2) of other shapes."""
    return (bound.algorithm or "").startswith("gqa-flash")


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
    ``lower <= IO <= upper``, where ``upper`` is the cost of a pebbling actually found.
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
        r"$[\text{lower}, \text{upper}]$ is the proven bounds $\text{lower} \leq \mathit{IO} \leq "
        r"\text{upper}$"
        if compared
        else r"is the proven bounds $\text{lower} \leq \mathit{IO} \leq \text{upper}$"
    )
    caption = (
        f"Red-blue pebbling of {subject} ({vertices} vertices, {latex_escape(variant)} game): "
        r"the least I/O $\mathit{IO}$ for each number $M$ of red pebbles. A single value is a proven "
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
        r"$M$ & $\mathit{IO}$" + heads + (r" \\" if compared else r" & \\"),
        r"\midrule",
    ]
    for row in rows:
        if row["optimal"]:
            value, note = f"${row['io']}$", "optimal"
        else:
            value = rf"${row['lower']} \leq \mathit{{IO}} \leq {row['upper']}$"
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
        r"bound on $\mathit{IO}$ (confirmed); $^{?}$ between the proven bounds (undecided); "
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
        "source_range": both(bound.source_range),
        "narrowed": is_narrowed(bound),
    }


def render_json(bounds: Sequence[Bound]) -> str:
    """Return ``{"schema": JSON_SCHEMA_VERSION, "bounds": [...]}`` of :func:`bound_to_dict` rows."""
    marked = strongest(bounds)
    rows = [{**bound_to_dict(b), "strongest": b.name in marked} for b in bounds]
    document = {"schema": JSON_SCHEMA_VERSION, "bounds": rows}
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


# ------------------------------------------------------------ tightness and summary tables
_CELL_ORDER = {
    (Pass.FORWARD, Cache.SMALL): 0,
    (Pass.FORWARD, Cache.LARGE): 1,
    (Pass.BACKWARD, Cache.SMALL): 2,
    (Pass.BACKWARD, Cache.LARGE): 3,
}
_CACHE_MATH = {Cache.SMALL: r"$M < d^{2}$", Cache.LARGE: r"$M \geq d^{2}$", Cache.ANY: "any $M$"}
_CACHE_TEXT = {Cache.SMALL: "M < d^2", Cache.LARGE: "M >= d^2", Cache.ANY: "any M"}
_DERIVED_LEGEND = "derived by attnio: algebra machine-checked; combinatorial lemmas proved by hand"
"""What a ``derived`` lower bound's evidence is (docs/evidence.md), in every caption."""


def algorithm_name(bound: Bound) -> str:
    """The reader's name of the algorithm of an exact-count record: its label without
    ``, exact`` (``FlashAttention-2``), else its name.

    Examples
    --------
    >>> from attnio.bounds import get
    >>> algorithm_name(get("flash2-forward-count"))
    'FlashAttention-2'
    """
    return re.sub(r", exact$", "", _reader_name(bound))


def short_name(bound: Bound) -> str:
    """A lower bound's label without its cache size (the table's cell says it).

    Examples
    --------
    >>> from attnio.bounds import get
    >>> short_name(get("dense-forward-lower-large-accumulators"))
    'Accumulator lower bound'
    """
    return re.sub(r", (small|large) cache$", "", _reader_name(bound))


def _ratio_size(ratio: sp.Expr | None) -> float:
    """A ratio's size for sorting: its value at d = 64 when it depends on d."""
    if ratio is None:
        return float("inf")
    value = ratio.subs(symbols.d, 64) if ratio.free_symbols else ratio
    return float(value) if value.is_finite else float("inf")


def _p_columns(shares: Sequence[float]) -> str:
    """Ragged-right paragraph columns taking ``shares`` of ``\\linewidth`` (minus the space
    between them), so that a table is exactly as wide as its column or page."""
    rest = rf"\linewidth-{2 * (len(shares) - 1)}\tabcolsep"
    total = sum(shares)
    specs = [
        rf">{{\raggedright\arraybackslash\hspace{{0pt}}}}"
        rf"p{{\dimexpr({rest})*{round(10000 * s / total)}/10000\relax}}"
        for s in shares
    ]
    return "@{}" + "".join(specs) + "@{}"


def _check_layout(layout: str) -> str:
    if layout not in ("table", "table*"):
        raise FilterError(f"layout={layout!r}: this table is a float, table or table*")
    return layout


def _float_lines(env: str, caption: str, label_key: str, spec: str, body: list[str]) -> str:
    lines = [
        rf"% generated by attnio; needs \usepackage{{{','.join(LATEX_PACKAGES[:3])}}}",
        rf"\begin{{{env}}}[tbp]",
        r"\centering",
        r"\footnotesize",
        r"\setlength{\tabcolsep}{3pt}",
        rf"\caption{{{caption}}}\label{{{label_key}}}",
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        *body,
        r"\bottomrule",
        r"\end{tabular}",
        rf"\end{{{env}}}",
    ]
    return "\n".join(lines) + "\n"


def _interval(constant: int | None, refuted: int | None, latex: bool) -> str:
    """The least C as ``6 (4, 6]``, ``none (> 4)`` or ``--``."""
    if constant is None:
        if refuted is None:
            return "--"
        return rf"none ($> {refuted}$)" if latex else f"none proved (> {refuted})"
    if refuted is None:
        return f"${constant}$" if latex else str(constant)
    return (
        rf"${constant}$ $({refuted}, {constant}]$"
        if latex
        else f"{constant} ({refuted}, {constant}]"
    )


def render_tightness_table(
    rows: Sequence[dict[str, object]],
    fmt: str = "markdown",
    layout: str = "table",
    label_prefix: str = LABEL_PREFIX,
) -> str:
    """Return the tightness table (:mod:`attnio.proofs.tightness`) grouped by dense cell.

    Parameters
    ----------
    rows
        One dict per (cell, algorithm) with ``pass`` and ``cache`` (values of
        :class:`Pass` and :class:`Cache`), ``count`` and ``lower`` (record names),
        ``ratio`` (a sympy expression), ``constant`` and ``refuted`` (int or None) and
        ``command`` (what reproduces the constant); optionally ``extra_red``, the red
        pebbles beyond M of the schedule's pebbling, c: the ratio reads the lower bound at
        M + c (None: at M).
    fmt
        ``markdown``, ``latex`` or ``json``.
    layout
        LaTeX: ``table`` (as wide as the column) or ``table*`` (both columns).
    label_prefix
        LaTeX: the table's label is ``PREFIX-tightness``.

    Rows are grouped by cell (forward small, forward large, backward small, backward
    large cache), the least ratio first; algorithms and bounds go by their display
    names (:func:`algorithm_name`, :func:`short_name`).
    """
    if fmt not in TABLE_FORMATS:
        raise FilterError(f"format={fmt!r} is not one of: {', '.join(TABLE_FORMATS)}")
    _check_layout(layout)
    ordered = sorted(
        rows,
        key=lambda r: (
            _CELL_ORDER[(Pass(r["pass"]), Cache(r["cache"]))],
            _ratio_size(r["ratio"]),
        ),
    )
    if fmt == "json":
        return (
            json.dumps(
                [
                    {
                        "pass": r["pass"],
                        "cache": r["cache"],
                        "algorithm": get(str(r["count"])).algorithm,
                        "algorithm_label": algorithm_name(get(str(r["count"]))),
                        "count": r["count"],
                        "lower": r["lower"],
                        "lower_label": _reader_name(get(str(r["lower"]))),
                        "ratio": str(r["ratio"]),
                        "constant": r["constant"],
                        "refuted": r["refuted"],
                        "command": r["command"],
                        "extra_red": r.get("extra_red"),
                    }
                    for r in ordered
                ],
                indent=2,
            )
            + "\n"
        )
    if fmt == "markdown":
        out = [
            "| cell | algorithm | against | ratio of leading terms | C proved, (refuted, proved] "
            "| reproduce |",
            "|---|---|---|---|---|---|",
        ]
        for r in ordered:
            cell = f"{r['pass']}, {_CACHE_TEXT[Cache(r['cache'])]}"
            out.append(
                f"| {cell} | {algorithm_name(get(str(r['count'])))} | "
                f"{short_name(get(str(r['lower'])))} | {sp.sstr(r['ratio'])} | "
                f"{_interval(r['constant'], r['refuted'], False)} | `{r['command']}` |"
            )
        return "\n".join(out) + "\n"
    caption = (
        "Exact I/O counts of attnio's schedules against its best derived lower bound, per "
        r"dense cell: the ratio of leading terms, and the least $C$ with "
        r"$\mathrm{count} \leq C \cdot$ the largest derived lower bound over the cell, as "
        r"an interval (refuted, proved by z3]. Lower bounds " + _DERIVED_LEGEND + "."
    )
    body = [r"Algorithm & Against & Leading ratio & $C$ \\"]
    previous = None
    for r in ordered:
        cell = (Pass(r["pass"]), Cache(r["cache"]))
        if cell != previous:
            body.append(r"\midrule")
            heading = f"{cell[0].value.capitalize()} pass, {_CACHE_MATH[cell[1]]}"
            body.append(rf"\multicolumn{{4}}{{@{{}}l@{{}}}}{{\textit{{{heading}}}}} \\")
            previous = cell
        body.append(
            f"{_breakable(latex_escape(algorithm_name(get(str(r['count'])))))} & "
            f"{latex_escape(short_name(get(str(r['lower']))))} & "
            f"${_ratio_math(r['ratio'])}$ & {_interval(r['constant'], r['refuted'], True)} \\\\"
        )
    spec = _p_columns((0.27, 0.29, 0.24, 0.20))
    return _float_lines(layout, caption, f"{label_prefix}-tightness", spec, body)


_MEMORY_TEXT = {(1, 16): "d^2/16", (1, 1): "d^2", (16, 1): "16 d^2"}
_MEMORY_MATH = {(1, 16): r"$d^{2}/16$", (1, 1): r"$d^{2}$", (16, 1): r"$16\,d^{2}$"}


def _memory_fraction(point: dict[str, int]) -> tuple[int, int] | None:
    """M / d^2 of a point as one of the masked table's fractions (None: another M)."""
    d2, memory = point["d"] ** 2, point["M"]
    for num, den in _MEMORY_TEXT:
        if d2 * num // den == memory:
            return num, den
    return None


def _at_m(extra: int | None, latex: bool) -> str:
    """Where a masked row's lower bound is read: ``at M`` or ``at M + c``."""
    if not extra:
        return "at $M$" if latex else "at M"
    return f"at $M + {extra}$" if latex else f"at M + {extra}"


def render_masked_tightness_table(
    rows: Sequence[dict[str, object]],
    mask: dict[str, object],
    fmt: str = "markdown",
    layout: str = "table",
    label_prefix: str = LABEL_PREFIX,
) -> str:
    """Return the masked tightness table (:mod:`attnio.proofs.masked_tightness`).

    Parameters
    ----------
    rows
        One dict per (point, schedule) as :meth:`MaskedRow.to_dict
        <attnio.proofs.masked_tightness.MaskedRow.to_dict>` gives it: ``pass``, ``point``
        (n, d, M, Z, w), ``count`` and ``lower`` (each None or a dict with ``record``),
        ``extra_red`` (c: the lower bound is read at M + c), ``ratio`` (a float or None).
    mask
        ``family``, ``spec``, ``n``, ``Z``, ``w``, ``compulsory_only`` (no derived lower
        bound beyond the compulsory I/O for this family) and ``note`` (what the bounds
        are about).
    fmt, layout, label_prefix
        As :func:`render_tightness_table`; the LaTeX label is ``PREFIX-tightness-MASK``.

    Rows keep their order (by pass, d and M; the least ratio first at a point); schedules
    and bounds go by their display names in LaTeX, by record names in Markdown.
    """
    if fmt not in TABLE_FORMATS:
        raise FilterError(f"format={fmt!r} is not one of: {', '.join(TABLE_FORMATS)}")
    _check_layout(layout)
    if fmt == "json":
        return json.dumps({"schema": JSON_SCHEMA_VERSION, "mask": dict(mask),
                           "rows": list(rows)}, indent=2) + "\n"  # fmt: skip
    spec = str(mask["spec"])
    head = (f"mask {spec}, n = {mask['n']}, Z = {mask['Z']:,} allowed pairs; ratio = exact count "
            "/ best derived lower bound read at M + c (c the red pebbles beyond M of the "
            "schedule's pebbling), exact at each point")  # fmt: skip
    if fmt == "markdown":
        out = [head, "", "| pass, d | M | schedule | best derived lower bound | ratio |",
               "|---|---|---|---|---|"]  # fmt: skip
        for r in rows:
            point, count, lower = r["point"], r["count"], r["lower"]
            fraction = _memory_fraction(point)
            where = "" if fraction is None else f" ({_MEMORY_TEXT[fraction]})"
            schedule = ("none runs (M below every count's least M)" if count is None
                        else algorithm_name(get(str(count["record"]))))  # fmt: skip
            against = "none applies" if lower is None else (
                f"{lower['record']}, {_at_m(r['extra_red'], False)}")  # fmt: skip
            ratio = "-" if r["ratio"] is None else f"{r['ratio']:.4g}"
            out.append(f"| {r['pass']}, d = {point['d']} | {point['M']}{where} | {schedule} | "
                       f"{against} | {ratio} |")  # fmt: skip
        out += ["", f"note: {mask['note']}"]
        return "\n".join(out) + "\n"
    bounds = (
        "The only lower bound is the compulsory I/O (each input read and each output written "
        "once), so a ratio bounds how far a schedule is from optimal and does not measure it."
        if mask["compulsory_only"]
        else "Lower bounds: the compulsory I/O and the mask's bounds over its $Z$ allowed pairs."
    )
    caption = (
        f"Exact I/O counts of attnio's schedules for the {latex_escape(spec)} mask "
        f"($n = {mask['n']}$, $Z = {mask['Z']}$) against the best derived lower bound at each "
        r"point, read at $M + c$ ($c$: the red pebbles beyond $M$ of the schedule's "
        f"pebbling): exact ratios, one column per schedule, -- where it does not run. "
        f"{bounds} Lower bounds {_DERIVED_LEGEND}."
    )
    first = {str(r["count"]["algorithm"]): str(r["count"]["record"]) for r in rows[::-1]
             if r["count"]}  # fmt: skip
    schedules = list(dict.fromkeys(str(r["count"]["algorithm"]) for r in rows if r["count"]))
    names = [_breakable(latex_escape(algorithm_name(get(first[a])))) for a in schedules]
    body = [r"$d$ & $M$ & Against & " + " & ".join(names) + r" \\"]
    width = 3 + len(schedules)
    by_point: dict[tuple, list] = {}
    for r in rows:
        by_point.setdefault((r["pass"], r["point"]["d"], r["point"]["M"]), []).append(r)
    previous = None
    for (pass_, d, memory), found in by_point.items():
        if pass_ != previous:
            body.append(r"\midrule")
            body.append(rf"\multicolumn{{{width}}}{{@{{}}l@{{}}}}{{\textit{{{pass_.capitalize()} "
                        r"pass}} \\")  # fmt: skip
            previous = pass_
        fraction = _memory_fraction(found[0]["point"])
        shown = f"${memory}$" if fraction is None else _MEMORY_MATH[fraction]
        lowers = dict.fromkeys(latex_escape(short_name(get(str(r["lower"]["record"]))))
                               for r in found if r["lower"] is not None)  # fmt: skip
        ratios = {str(r["count"]["algorithm"]): r["ratio"] for r in found if r["count"]}
        cells = ["--" if ratios.get(name) is None else f"${ratios[name]:.4g}$"
                 for name in schedules]  # fmt: skip
        body.append(f"${d}$ & {shown} & {' / '.join(lowers) or '--'} & "
                    + " & ".join(cells) + r" \\")  # fmt: skip
    share = 0.5 / max(len(schedules), 1)
    spec_ = _p_columns((0.08, 0.13, 0.29, *(share for _ in schedules)))
    label_key = f"{label_prefix}-tightness-{mask['family']}"
    return _float_lines(layout, caption, label_key, spec_, body)


def render_approximate_tightness_table(
    rows: Sequence[dict[str, object]],
    method: dict[str, object],
    fmt: str = "markdown",
    layout: str = "table",
    label_prefix: str = LABEL_PREFIX,
) -> str:
    """Return the approximate tightness table (:mod:`attnio.proofs.approximate_tightness`).

    Parameters
    ----------
    rows
        One dict per (point, schedule) as :meth:`ApproximateRow.to_dict
        <attnio.proofs.approximate_tightness.ApproximateRow.to_dict>` gives it: ``pass``,
        ``point`` (n, d, M, r), ``cell``, ``count`` and ``lower`` (each None or a dict with
        ``record``), ``extra_red``, ``ratio`` and ``leading`` (floats or None),
        ``constant`` (an int or None), ``constant_note`` and ``commands``.
    method
        ``name`` (polynomial), ``degree`` and ``note`` (what the bounds are about).
    fmt, layout, label_prefix
        As :func:`render_tightness_table`; the LaTeX label is ``PREFIX-tightness-approximate``.
    """
    if fmt not in TABLE_FORMATS:
        raise FilterError(f"format={fmt!r} is not one of: {', '.join(TABLE_FORMATS)}")
    _check_layout(layout)
    if fmt == "json":
        return json.dumps({"schema": JSON_SCHEMA_VERSION, "method": dict(method),
                           "rows": list(rows)}, indent=2) + "\n"  # fmt: skip
    degree = method["degree"]
    ns = sorted({r["point"]["n"] for r in rows})
    size = ", ".join(str(x) for x in ns)

    def number(value: object) -> str:
        return "-" if value is None else f"{value:.4g}"

    if fmt == "markdown":
        head = (f"approximate attention, {method['name']} method of degree g = {degree}, "
                f"n = {size}, r = C(d + g, g) features; ratio = exact count / best derived "
                "lower bound read at M + c (c the red pebbles beyond M of the schedule's "
                "pebbling), exact at each point; n -> oo: the ratio of the leading terms in "
                "n at the point's d, M and r; C: the least constant z3 proved for count <= "
                "C * lower over the cell")  # fmt: skip
        out = [head, "", "| pass, d, r | M (cell) | schedule | best derived lower bound | "
               "ratio | n -> oo | C over the cell | reproduce |",
               "|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for r in rows:
            point, count, lower = r["point"], r["count"], r["lower"]
            schedule = "none runs" if count is None else str(count["record"])
            against = "none applies" if lower is None else (
                f"{lower['record']}, {_at_m(r['extra_red'], False)}")  # fmt: skip
            constant = r["constant_note"] if r["constant"] is None else (
                f"{r['constant']} ({r['constant_note']})")  # fmt: skip
            commands = "; ".join(f"`{c}`" for c in r["commands"]) or "-"
            out.append(f"| {r['pass']}, d = {point['d']}, r = {point['r']} | {point['M']} "
                       f"({r['cell']}) | {schedule} | {against} | {number(r['ratio'])} | "
                       f"{number(r['leading'])} | {constant} | {commands} |")  # fmt: skip
        out += ["", f"note: {method['note']}"]
        return "\n".join(out) + "\n"
    caption = (
        f"I/O of attnio's schedules for approximate attention (polynomial method, $g = {degree}$, "
        f"$r = \\binom{{d+g}}{{g}}$, $n = {size}$) over the best derived lower bound of the "
        "method's graph at $M + c$: exact ratio (as $n \\to \\infty$) and the least $C$ z3 "
        "proved over $M \\ge r d$, $n \\ge r$, $g \\ge 2$ (none exists over $M < r d$). The "
        "bounds hold for pebblings of that graph, not for every $\\epsilon$-approximation "
        "algorithm."
    )
    first = {str(r["count"]["algorithm"]): str(r["count"]["record"]) for r in rows[::-1]
             if r["count"]}  # fmt: skip
    schedules = list(dict.fromkeys(str(r["count"]["algorithm"]) for r in rows if r["count"]))
    names = [_breakable(latex_escape(algorithm_name(get(first[a])))) for a in schedules]
    body = [r"$d$ & $M$ & Against & " + " & ".join(rf"{name} & $C$" for name in names) + r" \\"]
    width = 3 + 2 * len(schedules)
    by_point: dict[tuple, list] = {}
    for r in rows:
        by_point.setdefault((r["pass"], r["point"]["d"], r["point"]["M"]), []).append(r)
    previous = None
    for (pass_, dim, memory), found in by_point.items():
        if pass_ != previous:
            body.append(r"\midrule")
            body.append(rf"\multicolumn{{{width}}}{{@{{}}l@{{}}}}{{\textit{{{pass_.capitalize()} "
                        r"pass}} \\")  # fmt: skip
            previous = pass_
        lowers = dict.fromkeys(_approximate_lower(str(r["lower"]["record"])) for r in found
                               if r["lower"] is not None)  # fmt: skip
        by_schedule = {str(r["count"]["algorithm"]): r for r in found if r["count"]}
        cells = []
        for name in schedules:
            row = by_schedule.get(name)
            if row is None or row["ratio"] is None:
                cells += ["--", "--"]
                continue
            leading = "" if row["leading"] is None else f" (${row['leading']:.4g}$)"
            constant = "--" if row["constant"] is None else f"${row['constant']}$"
            cells += [f"${row['ratio']:.4g}${leading}", constant]
        body.append(f"${dim}$ & ${memory}$ & {' / '.join(lowers) or '--'} & "
                    + " & ".join(cells) + r" \\")  # fmt: skip
    share = 0.6 / max(len(schedules), 1)
    spec_ = _p_columns(
        (0.05, 0.11, 0.22, *(s for _ in schedules for s in (share * 0.78, share * 0.22)))
    )
    return _float_lines(layout, caption, f"{label_prefix}-tightness-approximate", spec_, body)


def _approximate_lower(record: str) -> str:
    """A lower bound of the approximate table in LaTeX, short: the compulsory I/O by name."""
    if record.endswith("-compulsory"):
        return "compulsory"
    return latex_escape(short_name(get(record)))


@dataclass(frozen=True)
class SummaryRow:
    """One row of the summary table (:func:`attnio.proofs.summary.summary`).

    Attributes
    ----------
    regime, pass_, cache
        The cell (``Cache.ANY`` for the sparse and approximate passes).
    lower, lower_leading
        The best derived lower bound of the cell and its leading term (None: none derived).
    count, count_leading
        The best schedule's exact-count record and its leading term (None: none).
    ratio
        count / lower in the limit (None when either is missing; oo when unbounded).
    constant, refuted
        The least C z3 proved for count <= C * max(derived lower bounds), the largest C
        refuted at a sampled point (None: not searched or not recorded).
    """

    regime: Regime
    pass_: Pass
    cache: Cache
    lower: Bound | None
    lower_leading: sp.Expr | None
    count: Bound | None
    count_leading: sp.Expr | None
    ratio: sp.Expr | None
    constant: int | None
    refuted: int | None


def _ratio_text(ratio: sp.Expr | None, latex: bool) -> str:
    if ratio is None:
        return "--"
    if ratio == sp.oo:
        return r"$\infty$" if latex else "unbounded"
    return f"${_ratio_math(ratio)}$" if latex else sp.sstr(ratio)


def _ratio_math(ratio: sp.Expr) -> str:
    """A ratio in d as partial fractions (11/8 + 11/(16 d)): narrow, and it breaks at +."""
    if ratio.free_symbols == {symbols.d}:
        ratio = sp.apart(ratio, symbols.d)
    return latex_math(ratio)


def render_summary(
    rows: Sequence[SummaryRow],
    fmt: str = "markdown",
    layout: str = "table",
    label_prefix: str = LABEL_PREFIX,
) -> str:
    """Return the summary table: per cell and pass, the best derived lower bound's leading
    term, the best schedule's, their ratio and the proved constant.

    ``layout`` (``table`` or ``table*``) and ``label_prefix`` (label ``PREFIX-summary``)
    shape the LaTeX float; it fits a 3.3-inch column.
    """
    if fmt not in TABLE_FORMATS:
        raise FilterError(f"format={fmt!r} is not one of: {', '.join(TABLE_FORMATS)}")
    _check_layout(layout)

    def expr(e: sp.Expr | None) -> dict[str, str] | None:
        return None if e is None else {"text": sp.sstr(e), "srepr": sp.srepr(e)}

    if fmt == "json":
        document = {
            "schema": JSON_SCHEMA_VERSION,
            "summary": [
                {
                    "regime": r.regime.value,
                    "pass": r.pass_.value,
                    "cache": r.cache.value,
                    "lower": None if r.lower is None else r.lower.name,
                    "lower_label": None if r.lower is None else _reader_name(r.lower),
                    "lower_status": None if r.lower is None else r.lower.status.value,
                    "lower_leading": expr(r.lower_leading),
                    "count": None if r.count is None else r.count.name,
                    "algorithm": None if r.count is None else r.count.algorithm,
                    "algorithm_label": None if r.count is None else algorithm_name(r.count),
                    "count_leading": expr(r.count_leading),
                    "ratio": None if r.ratio is None else str(r.ratio),
                    "constant": r.constant,
                    "refuted": r.refuted,
                }
                for r in rows
            ],
        }
        return json.dumps(document, indent=2) + "\n"
    if fmt == "markdown":
        out = [
            "| cell | best derived lower bound | its leading term | best schedule | its leading "
            "term | ratio | C proved, (refuted, proved] |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            cell = f"{r.regime.value} {r.pass_.value}, {_CACHE_TEXT[r.cache]}"
            out.append(
                f"| {cell} | {'none derived' if r.lower is None else short_name(r.lower)} | "
                f"{'-' if r.lower_leading is None else '`' + sp.sstr(r.lower_leading) + '`'} | "
                f"{'none' if r.count is None else algorithm_name(r.count)} | "
                f"{'-' if r.count_leading is None else '`' + sp.sstr(r.count_leading) + '`'} | "
                f"{_ratio_text(r.ratio, False)} | {_interval(r.constant, r.refuted, False)} |"
            )
        return "\n".join(out) + "\n"
    caption = (
        "Best derived lower bound and best schedule per cell, leading terms ($n \\to \\infty$; "
        r"$d \leq M < d^{2}$ small, $d^{2} \leq M \leq n\,d$ large cache), their ratio, and the "
        r"least $C$ with $\mathrm{count} \leq C \cdot$ the derived lower bounds, as "
        "(refuted, proved by z3]. Lower bounds " + _DERIVED_LEGEND + "; counts exact."
    )
    body = [r"Cell & Lower bound & Schedule & Ratio & $C$ \\"]
    previous = None
    for r in rows:
        if r.regime is not previous:
            body.append(r"\midrule")
            body.append(
                rf"\multicolumn{{5}}{{@{{}}l@{{}}}}{{\textit{{{_REGIME_TEXT[r.regime]}}}}} \\"
            )
            previous = r.regime
        cell = f"{r.pass_.value}, {_CACHE_MATH[r.cache]}"
        lower = "none derived" if r.lower_leading is None else f"${latex_math(r.lower_leading)}$"
        count = (
            "none"
            if r.count is None
            else f"{_breakable(latex_escape(algorithm_name(r.count)))}: "
            + ("" if r.count_leading is None else f"${latex_math(r.count_leading)}$")
        )
        body.append(
            f"{cell} & {lower} & {count} & {_ratio_text(r.ratio, True)} & "
            f"{_interval(r.constant, r.refuted, True)} \\\\"
        )
    spec = _p_columns((0.15, 0.24, 0.33, 0.14, 0.14))
    return _float_lines(layout, caption, f"{label_prefix}-summary", spec, body)
