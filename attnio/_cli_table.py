"""``attnio table``: print the bound catalog as Markdown, LaTeX or JSON."""

from __future__ import annotations

import argparse
import sys

from attnio._arguments import count, latex_label, writable_file
from attnio._table import to_terminal

NAME = "table"
HELP = "print the bound catalog (Markdown, LaTeX booktabs or JSON)"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio table``."""
    from attnio.bounds import TABLE_FORMATS, Cache, Kind, Pass, Regime, Status
    from attnio.bounds.render import DEFAULT_LATEX_COLUMNS, LATEX_COLUMNS, LAYOUTS

    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="Print one row per bound: its name, asymptotic statement, explicit form, "
        "conditions, source and evidence level (docs/evidence.md). LaTeX tables fit the "
        "text block of a one- or two-column article (one table per regime and pass, or one "
        "longtable), cite their sources with \\cite keys from the BibTeX file that --bib "
        "writes, and need \\usepackage{amsmath,array,booktabs} (and longtable for that "
        "layout).",
        epilog="examples:\n"
        "  attnio table --regime dense --pass forward\n"
        "  attnio table --format latex --regime dense -o bounds.tex --bib refs.bib\n"
        "  attnio table --format latex --layout table* "
        "--columns name,bound,explicit,leading,conditions,source,status\n"
        "  attnio table --format latex --standalone -o catalog.tex\n"
        "  attnio table --format json --status reconstructed\n"
        "  attnio table --catalog my-bounds.toml --format latex --standalone\n"
        "  attnio table --tightness                 # counts against derived lower bounds\n"
        "  attnio table --tightness --format latex --layout table* -o tightness.tex\n"
        "  attnio table --tightness --mask causal     # masked schedules, at points\n"
        "  attnio table --tightness --mask window --window 1024 --n 65536 --d 64,128\n"
        "  attnio table --tightness --regime approximate --degree 2   # polynomial method\n"
        "  attnio table --summary --format latex -o summary.tex   # one row per cell",
    )
    parser.add_argument(
        "--catalog",
        metavar="FILE",
        help="render the records of this TOML file (your own catalog, in the format of "
        "attnio's, docs/catalog.md) instead of attnio's",
    )
    parser.add_argument(
        "--format",
        choices=TABLE_FORMATS,
        default="markdown",
        help="output format (default markdown)",
    )
    parser.add_argument(
        "--regime", choices=[r.value for r in Regime], help="only bounds of this regime"
    )
    parser.add_argument(
        "--pass", dest="pass_", choices=[p.value for p in Pass], help="only this pass"
    )
    parser.add_argument(
        "--cache", choices=[c.value for c in Cache], help="only this cache size (M < d^2 small)"
    )
    parser.add_argument(
        "--kind", choices=[k.value for k in Kind], help="only lower bounds, upper bounds, ..."
    )
    parser.add_argument(
        "--status", choices=[s.value for s in Status], help="only this evidence level"
    )
    parser.add_argument(
        "--columns",
        metavar="LIST",
        help=f"LaTeX: comma-separated columns out of {','.join(LATEX_COLUMNS)} "
        f"(default {','.join(DEFAULT_LATEX_COLUMNS)}, which fits a 3.3-inch column; "
        "adding explicit or leading needs a wider block, and all seven one about 7 "
        "inches wide: table* in a two-column article, or --standalone, whose page "
        "has one)",
    )
    parser.add_argument(
        "--layout",
        choices=LAYOUTS,
        default="table",
        help="LaTeX: one float per regime and pass as wide as the column (table, default), "
        "spanning both columns (table*), or one table over pages (longtable, one-column "
        "documents)",
    )
    parser.add_argument(
        "--standalone",
        action="store_true",
        help="LaTeX: a complete document that compiles as-is with pdflatex",
    )
    parser.add_argument(
        "--label",
        metavar="PREFIX",
        type=latex_label,
        help="LaTeX: start of the tables' \\label keys, PREFIX-dense-forward and so on "
        "(default tab:attnio); give each set of tables in one paper its own",
    )
    parser.add_argument(
        "--tightness",
        action="store_true",
        help="print the tightness table instead: per dense cell (rows grouped by cell) and "
        "algorithm, the ratio of its exact count's leading term to the best derived lower "
        "bound's (read at M + c, c the red pebbles beyond M of the schedule's pebbling), and "
        "the least C z3 proved for count <= C * lower bound at M (recorded by "
        "benchmarks/constants.py), with the command that reproduces it; LaTeX as --layout "
        "table or table*",
    )
    parser.add_argument(
        "--mask",
        help="with --tightness: the masked table of this family (causal; window or band with "
        "--window W): at n = --n, each d of --d and M = d^2/16, d^2, 16 d^2, every exact count "
        "of the mask's schedules over the best derived lower bound of the mask read at M + c "
        "(as attnio gap --regime sparse reads it), exact at the point",
    )
    parser.add_argument(
        "--window", type=count(0), metavar="W", help="--mask window or band: the width w"
    )
    parser.add_argument(
        "--degree",
        type=count(1),
        metavar="G",
        help="with --tightness --regime approximate: the degree g of the polynomial method "
        "(default 2), r = C(d + g, g) features: at n = --n, each d of --d and M = 4096, "
        "16384, 65536, every exact count of the method's schedules over the best derived "
        "lower bound of its graph read at M + c (as attnio gap --regime approximate reads "
        "it), the ratio of leading terms as n -> oo, and the constant z3 proved over M >= r d",
    )
    parser.add_argument(
        "--n",
        type=count(1),
        help="--mask or --regime approximate: the sequence length (default 65536)",
    )
    parser.add_argument(
        "--d",
        metavar="LIST",
        help="--mask or --regime approximate: comma-separated head dimensions (default "
        "64,128,256 for --mask, 16,32 for --regime approximate)",
    )
    parser.add_argument(
        "--summary",
        action="store_true",
        help="print the summary table instead: one row per cell and pass (dense small and "
        "large cache, sparse, approximate) with the best derived lower bound's leading term, "
        "the best schedule's, their ratio and the constant z3 proved (the table a paper "
        "wants)",
    )
    parser.add_argument(
        "--bib", metavar="FILE", help="also write the BibTeX entries of the \\cite keys here"
    )
    parser.add_argument(
        "--output", "-o", metavar="FILE", help="write to this file instead of standard output"
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Print (or write) the filtered catalog."""
    from attnio.bounds import catalog, render
    from attnio.bounds.citations import bibtex_for
    from attnio.bounds.reader import read_catalog
    from attnio.bounds.render import (
        LABEL_PREFIX,
        parse_columns,
        render_latex,
        render_standalone,
    )

    latex_only = (
        args.columns is not None
        or args.standalone
        or args.layout != "table"
        or args.label is not None
    )
    if latex_only and args.format != "latex":
        raise ValueError(
            "--columns, --layout, --label and --standalone shape LaTeX tables; "
            f"got --format {args.format}"
        )
    for option, path in (("--output", args.output), ("--bib", args.bib)):
        if path:
            writable_file(option, path)
    approximate = args.tightness and args.regime == "approximate"
    if args.degree is not None and not approximate:
        raise ValueError(
            "--degree: only the approximate tightness table takes it; give --tightness "
            "--regime approximate"
        )
    if approximate and (args.mask is not None or args.window is not None):
        raise ValueError(
            "--mask and --window make the masked (sparse) table; --regime approximate takes "
            "--degree, --n and --d"
        )
    masked = [option for option, value in (("--mask", args.mask), ("--window", args.window),
              ("--n", args.n), ("--d", args.d)) if value is not None]  # fmt: skip
    if masked and not approximate and (not args.tightness or args.mask is None):
        raise ValueError(
            f"{', '.join(masked)}: only the masked tightness table takes these; give "
            "--tightness --mask FAMILY (or --n and --d with --tightness --regime approximate)"
        )
    if args.tightness or args.summary:
        which = "--tightness" if args.tightness else "--summary"
        if args.tightness and args.summary:
            raise ValueError("--tightness and --summary are two tables; give one")
        if (
            args.columns is not None
            or args.standalone
            or args.layout == "longtable"
            or args.catalog
            or any(value is not None for value in (args.pass_, args.cache, args.kind, args.status))
            or (args.regime is not None and not approximate)
        ):
            raise ValueError(
                f"{which} prints the whole table as one float; it takes only --format, "
                "--layout table or table*, --label, --bib and --output (and, with "
                "--tightness, --regime approximate or --mask)"
            )
        prefix = args.label or LABEL_PREFIX
        if args.tightness and args.mask is not None:
            from attnio.proofs.masked_tightness import (
                DIMENSIONS,
                N,
                masked_rows,
                render_masked_tightness,
            )

            table = masked_rows(args.mask, N if args.n is None else args.n,
                                DIMENSIONS if args.d is None else _dimensions(args.d),
                                window=args.window)  # fmt: skip
            text = render_masked_tightness(table, args.format, args.layout, prefix)
        elif approximate:
            from attnio.proofs.approximate_tightness import (
                DEGREE,
                DIMENSIONS,
                N,
                approximate_rows,
                render_approximate_tightness,
            )

            degree = DEGREE if args.degree is None else args.degree
            found = approximate_rows(degree, N if args.n is None else args.n,
                                     DIMENSIONS if args.d is None else _dimensions(args.d))  # fmt: skip
            text = render_approximate_tightness(found, degree, args.format, args.layout, prefix)
        elif args.tightness:
            from attnio.proofs.tightness import render_tightness, rows

            text = render_tightness(rows(), args.format, args.layout, prefix)
        else:
            from attnio.bounds.render import render_summary
            from attnio.proofs.summary import summary

            text = render_summary(summary(), args.format, args.layout, prefix)
        if args.bib:
            with open(args.bib, "w", encoding="utf-8") as handle:
                regime = (
                    "approximate" if approximate else "dense" if args.mask is None else "sparse"
                )
                handle.write(bibtex_for(catalog(regime=regime)))
        return _emit(text, args)
    columns = parse_columns(args.columns)
    bounds = catalog(
        records=None if args.catalog is None else read_catalog(args.catalog),
        regime=args.regime,
        pass_=args.pass_,
        cache=args.cache,
        kind=args.kind,
        status=args.status,
    )
    if args.format == "latex":
        shape = render_standalone if args.standalone else render_latex
        text = shape(bounds, columns, args.layout, args.label or LABEL_PREFIX)
    else:
        text = render(bounds, args.format)
    if args.bib:
        with open(args.bib, "w", encoding="utf-8") as handle:
            handle.write(bibtex_for(bounds))
    return _emit(text, args)


def _dimensions(text: str) -> tuple[int, ...]:
    """The head dimensions of ``--d LIST`` (comma-separated positive integers)."""
    try:
        found = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        found = ()
    if not found or any(d < 1 for d in found):
        raise ValueError(f"--d {text!r} must be comma-separated positive integers, e.g. 64,128")
    return found


def _emit(text: str, args: argparse.Namespace) -> int:
    """Write ``text`` to ``--output``, or print it (Markdown laid out for the terminal)."""
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(to_terminal(text) if args.format == "markdown" else text)
    return 0
