"""``attnio table``: print the bound catalog as Markdown, LaTeX or JSON."""

from __future__ import annotations

import argparse
import sys

from attnio.bounds import FORMATS, Cache, Kind, Pass, Regime, Status, catalog, render
from attnio.bounds.citations import bibtex
from attnio.bounds.render import (
    DEFAULT_LATEX_COLUMNS,
    LATEX_COLUMNS,
    LAYOUTS,
    parse_columns,
    render_latex,
    render_standalone,
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``attnio table``."""
    parser = subparsers.add_parser(
        "table",
        help="print the bound catalog (Markdown, LaTeX booktabs or JSON)",
        description="Print one row per bound: its name, asymptotic statement, explicit form, "
        "conditions, source and evidence level. LaTeX tables fit the text block of a one- "
        "or two-column article (one table per regime and pass, or one longtable), cite "
        "their sources with \\cite keys from the BibTeX file --bib writes, and need "
        "\\usepackage{amsmath,array,booktabs} (and longtable for that layout).",
    )
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    parser.add_argument("--regime", choices=[r.value for r in Regime])
    parser.add_argument("--pass", dest="pass_", choices=[p.value for p in Pass])
    parser.add_argument("--cache", choices=[c.value for c in Cache])
    parser.add_argument("--kind", choices=[k.value for k in Kind])
    parser.add_argument("--status", choices=[s.value for s in Status])
    parser.add_argument(
        "--columns",
        metavar="LIST",
        help=f"LaTeX: comma-separated columns out of {','.join(LATEX_COLUMNS)} "
        f"(default {','.join(DEFAULT_LATEX_COLUMNS)}, which fits a 3.3-inch column)",
    )
    parser.add_argument(
        "--layout",
        choices=LAYOUTS,
        default="table",
        help="LaTeX: one float per regime and pass as wide as the column (table), spanning "
        "both columns (table*), or one table over pages (longtable, one-column documents)",
    )
    parser.add_argument(
        "--standalone",
        action="store_true",
        help="LaTeX: a complete document that compiles as-is with pdflatex",
    )
    parser.add_argument(
        "--bib", metavar="FILE", help="also write the BibTeX entries the \\cite keys refer to"
    )
    parser.add_argument("--output", "-o", help="write to this file instead of standard output")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print (or write) the filtered catalog."""
    latex_only = args.columns is not None or args.standalone or args.layout != "table"
    if latex_only and args.format != "latex":
        raise ValueError(
            f"--columns, --layout and --standalone shape LaTeX tables; got --format {args.format}"
        )
    columns = parse_columns(args.columns)
    bounds = catalog(
        regime=args.regime, pass_=args.pass_, cache=args.cache, kind=args.kind, status=args.status
    )
    if args.format == "latex":
        shape = render_standalone if args.standalone else render_latex
        text = shape(bounds, columns, args.layout)
    else:
        text = render(bounds, args.format)
    if args.bib:
        with open(args.bib, "w", encoding="utf-8") as handle:
            handle.write(bibtex())
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0
