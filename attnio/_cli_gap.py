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
        "lower bound (algebra machine-checked; combinatorial lemmas proved by hand) read at "
        "M + c, c the red pebbles beyond M the schedule's pebbling uses, their "
        "ratio, and the interval z3 proves for the schedule's constant over its whole cell "
        "where the tightness table records one (attnio table --tightness). The optimum lies "
        "between the two; the ratio is how wide that window is. --count replaces the best "
        "schedule by your own kernel's count. Only records whose conditions hold at the "
        "point are used; lower bounds that are not derived are listed apart, never counted. "
        "With --regime sparse and --mask, the mask's Z and w join the point and only that "
        "family's counts are read; the causal mask has derived lower bounds over "
        "its allowed pairs (proofs/derivations/causal-lower.md), the sliding window at "
        "M >= d^2, the other families (and the window below d^2) only the compulsory I/O, "
        "so there the ratio bounds the distance to optimal and does not measure it.",
        epilog="examples:\n"
        "  attnio gap --regime dense --pass forward --n 65536 --d 128 --M 65536\n"
        "  attnio gap --pass backward --n 8192 --d 64 --M 1024 --json\n"
        "  attnio gap --pass forward --n-q 1 --n-kv 65536 --heads-q 32 --heads-kv 8 "
        "--d 128 --M 65536   # decode, grouped-query heads\n"
        "  attnio gap --regime approximate --method polynomial --degree 2 --pass forward "
        "--n 65536 --d 32 --M 4096\n"
        "  attnio gap --pass forward --n 65536 --d 128 --M 65536 "
        "--count '4*n*d + 2*n**2*d**2/M'   # your kernel\n"
        "  attnio gap --regime sparse --mask causal --pass forward --n 65536 --d 128 --M 65536\n"
        "  attnio gap --regime sparse --mask window --window 1024 --pass backward "
        "--n 65536 --d 128 --M 65536",
    )
    parser.add_argument(
        "--regime",
        default="dense",
        help="dense (default); sparse with --mask (its only derived lower bound is the "
        "compulsory I/O); approximate with --method, --degree",
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
    parser.add_argument(
        "--mask",
        default="none",
        help="none (dense), or with --regime sparse: causal, window (--window W), band "
        "(--window W), block (--block-mask FILE), full, or a .json/.npy file of an n x n "
        "boolean array",
    )
    parser.add_argument(
        "--window", type=integer(0), metavar="W", help="the width w of --mask window or band"
    )
    parser.add_argument(
        "--block-mask", metavar="FILE", help="--mask block: a .json or .npy boolean block mask"
    )
    parser.add_argument(
        "--n", type=integer(1), help="sequence length, queries and keys (required today)"
    )
    parser.add_argument(
        "--n-q", type=integer(1), help="query rows of one head (a shape; default --n)"
    )
    parser.add_argument(
        "--n-kv", type=integer(1), help="key/value rows of one head (a shape; default --n)"
    )
    parser.add_argument("--heads-q", type=integer(1), help="query heads (a shape; default 1)")
    parser.add_argument(
        "--heads-kv",
        type=integer(1),
        help="key/value heads, a divisor of --heads-q (a shape; default 1)",
    )
    parser.add_argument("--d", type=integer(1), required=True, help="head dimension")
    parser.add_argument("--M", type=integer(1), required=True, help="fast memory, in words")
    parser.add_argument(
        "--count",
        metavar="EXPR",
        help="your own kernel's I/O count, an expression in n, d and M (with a mask also Z "
        "and w; the claims files' syntax, e.g. '4*n*d + 2*n**2*d**2/M'), in place of the "
        "best schedule",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON: {schema, ratio, lower, upper, point, cell, constant, ...}, lower "
        "and upper each with record and value",
    )
    parser.set_defaults(run=run)
    return parser


def _point(args: argparse.Namespace) -> dict:
    """{n, d, M}; or, when a shape option is given, {n_q, n_kv, h_q, h_kv, d, M}."""
    shape = (args.n_q, args.n_kv, args.heads_q, args.heads_kv)
    if all(value is None for value in shape):
        return {"n": args.n, "d": args.d, "M": args.M}
    from attnio.proofs.errors import GapError

    n_q, n_kv = (args.n if value is None else value for value in shape[:2])
    for option, value in (("--n-q", n_q), ("--n-kv", n_kv)):
        if value is None:
            raise GapError(f"gap: give {option} (or --n for both sizes)")
    heads_q, heads_kv = (1 if value is None else value for value in shape[2:])
    return {"n_q": n_q, "n_kv": n_kv, "h_q": heads_q, "h_kv": heads_kv, "d": args.d, "M": args.M}


def run(args: argparse.Namespace) -> int:
    """Measure the gap at the point and print it (text or JSON)."""
    from attnio.bounds.schema import JSON_SCHEMA_VERSION
    from attnio.proofs.gap import measure_gap

    point = _point(args)
    gap = measure_gap(
        args.regime,
        args.pass_,
        point,
        count=args.count,
        mask=args.mask,
        window=args.window,
        block_mask=args.block_mask,
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
