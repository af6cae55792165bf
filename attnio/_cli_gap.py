"""``attnio gap``: how far the best schedule (or your kernel) is from the best derived lower bound."""

from __future__ import annotations

import argparse
import json
import sys

from attnio._arguments import count as integer

NAME = "gap"
HELP = "how far from optimal at one shape: best schedule (or --count) over the best derived lower bound"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio gap``."""
    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="At one point (n, d, M), print the best schedule attnio knows (its "
        "derived exact count, which the two-level machine reproduces), the best derived "
        "lower bound (algebra machine-checked; combinatorial lemmas proved by hand), their "
        "ratio, and the interval z3 proves for the schedule's constant over its whole cell "
        "where the tightness table records one (attnio table --tightness). The optimum lies "
        "between the two; the ratio is how wide that window is. --count replaces the best "
        "schedule by your own kernel's count. Only records whose conditions hold at the "
        "point are used; lower bounds that are not derived are listed apart, never counted.",
        epilog="examples:\n"
        "  attnio gap --regime dense --pass forward --n 65536 --d 128 --M 65536\n"
        "  attnio gap --pass backward --n 8192 --d 64 --M 1024 --json\n"
        "  attnio gap --regime approximate --method polynomial --degree 2 --pass forward "
        "--n 65536 --d 32 --M 4096\n"
        "  attnio gap --pass forward --n 65536 --d 128 --M 65536 "
        "--count '4*n*d + 2*n**2*d**2/M'   # your kernel",
    )
    parser.add_argument(
        "--regime",
        default="dense",
        help="dense (default) or approximate (with --method, --degree); sparse: not yet "
        "(no mask modelled)",
    )
    parser.add_argument(
        "--method",
        help="approximate: the approximation, polynomial (the default there)",
    )
    parser.add_argument(
        "--degree",
        type=integer(1),
        help="approximate, polynomial: degree g of the feature map (default 2)",
    )
    parser.add_argument(
        "--pass", dest="pass_", required=True, choices=("forward", "backward"), help="the pass"
    )
    parser.add_argument("--mask", default="none", help="none (dense; masks: not yet)")
    parser.add_argument(
        "--n", type=integer(1), help="sequence length, queries and keys (required today)"
    )
    parser.add_argument("--d", type=integer(1), required=True, help="head dimension")
    parser.add_argument("--M", type=integer(1), required=True, help="fast memory, in words")
    parser.add_argument(
        "--count",
        metavar="EXPR",
        help="your own kernel's I/O count, an expression in n, d and M (the claims files' "
        "syntax, e.g. '4*n*d + 2*n**2*d**2/M'), in place of the best schedule",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON: {schema, ratio, lower, upper, point, cell, constant, ...}, lower "
        "and upper each with record and value",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Measure the gap at the point and print it (text or JSON)."""
    from attnio.bounds.schema import JSON_SCHEMA_VERSION
    from attnio.proofs.gap import measure_gap

    point = {"n": args.n, "d": args.d, "M": args.M}
    gap = measure_gap(
        args.regime,
        args.pass_,
        point,
        count=args.count,
        mask=args.mask,
        method=args.method,
        degree=args.degree,
    )
    if args.json:
        json.dump({"schema": JSON_SCHEMA_VERSION, **gap.to_dict()}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from attnio.proofs.gap import describe_gap

        print(describe_gap(gap))
    return 0
