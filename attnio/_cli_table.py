"""``attnio table``: print the bound catalog as Markdown, LaTeX or JSON."""

from __future__ import annotations

import argparse
import sys

from attnio._arguments import writable_file

NAME = "table"
HELP = "print the bound catalog (Markdown, LaTeX booktabs or JSON)"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio table``."""
    from attnio.bounds import TABLE_FORMATS, Cache, Kind, Pass, Regime, Status

    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="Print one row per bound: regime, pass, cache, kind, expression, "
        "conditions, source and evidence status (docs/evidence.md).",
        epilog="examples:\n"
        "  attnio table --regime dense --pass forward\n"
        "  attnio table --format latex -o bounds.tex\n"
        "  attnio table --format json --status reconstructed",
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
        "--output", "-o", metavar="FILE", help="write to this file instead of standard output"
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Print (or write) the filtered catalog."""
    from attnio.bounds import catalog, render

    if args.output:
        writable_file("--output", args.output)
    bounds = catalog(
        regime=args.regime, pass_=args.pass_, cache=args.cache, kind=args.kind, status=args.status
    )
    text = render(bounds, args.format)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0
