"""``attnio table``: print the bound catalog as Markdown, LaTeX or JSON."""

from __future__ import annotations

import argparse
import sys

from attnio.bounds import FORMATS, Cache, Kind, Pass, Regime, Status, catalog, render


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``attnio table``."""
    parser = subparsers.add_parser(
        "table",
        help="print the bound catalog (Markdown, LaTeX booktabs or JSON)",
        description="Print one row per bound: regime, pass, cache, kind, expression, "
        "conditions, source and evidence status.",
    )
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    parser.add_argument("--regime", choices=[r.value for r in Regime])
    parser.add_argument("--pass", dest="pass_", choices=[p.value for p in Pass])
    parser.add_argument("--cache", choices=[c.value for c in Cache])
    parser.add_argument("--kind", choices=[k.value for k in Kind])
    parser.add_argument("--status", choices=[s.value for s in Status])
    parser.add_argument("--output", "-o", help="write to this file instead of standard output")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print (or write) the filtered catalog."""
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
