"""``attnio simulate``: run an attention algorithm on the counting two-level machine."""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from attnio.algorithms import ALGORITHMS, parse_range, simulate, sweep


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``attnio simulate``."""
    parser = subparsers.add_parser(
        "simulate",
        help="run an attention algorithm on the two-level memory machine and count its I/O",
        description="Run ALGORITHM (NumPy float64 by default, --count-only for large n) and "
        "print loads, stores, peak fast memory, the closed-form count from the catalog and "
        "the numeric error. With --sweep M=lo:hi --plot FILE.png, plot measured I/O of one "
        "or more algorithms against M with the catalog's bounds.",
    )
    parser.add_argument(
        "algorithm",
        nargs="+",
        metavar="ALGORITHM",
        help=f"one of: {', '.join(ALGORITHMS)} (several with --sweep)",
    )
    parser.add_argument("--n", type=int, required=True, help="sequence length")
    parser.add_argument("--d", type=int, required=True, help="head dimension")
    parser.add_argument("--M", type=int, help="fast-memory size in words")
    parser.add_argument("--pass", dest="pass_", choices=("forward", "backward"), default="forward")
    masks = parser.add_mutually_exclusive_group()
    masks.add_argument(
        "--mask", metavar="FILE", help=".npy boolean mask: n x n block-constant, or a block mask"
    )
    masks.add_argument(
        "--block-density",
        type=float,
        metavar="s",
        help="density of a random block mask (sparse algorithms)",
    )
    parser.add_argument("--degree", type=int, metavar="g", help="polynomial degree (low-rank)")
    parser.add_argument(
        "--entry-bound",
        type=float,
        metavar="B",
        help="bound on |Q|, |K| entries (low-rank; default 1/sqrt(d))",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument(
        "--count-only",
        action="store_true",
        help="counting mode: no arithmetic, same loop nest and transfers",
    )
    parser.add_argument("--sweep", metavar="M=lo:hi", help="sweep M over [lo, hi]")
    parser.add_argument("--points", type=int, default=24, help="number of M values to sweep")
    parser.add_argument(
        "--plot", metavar="FILE", help="write the sweep's figure here (.pdf, .png or .svg)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Simulate one run, or a sweep of M; print a summary or JSON."""
    if args.sweep is not None:
        return _run_sweep(args)
    if args.M is None:
        raise ValueError("--M is required unless --sweep is given")
    if len(args.algorithm) != 1:
        raise ValueError(f"give one ALGORITHM without --sweep, got {len(args.algorithm)}")
    mask = None if args.mask is None else np.load(args.mask, allow_pickle=False)
    result = simulate(
        args.algorithm[0],
        args.pass_,
        args.n,
        args.d,
        args.M,
        numeric=not args.count_only,
        seed=args.seed,
        mask=mask,
        block_density=args.block_density,
        degree=args.degree,
        entry_bound=args.entry_bound,
    )
    record = {
        "algorithm": result.algorithm,
        "pass": result.pass_,
        "n": result.n,
        "d": result.d,
        "M": result.M,
        "mode": "numeric" if result.numeric else "counting",
        "loads": result.counts.loads,
        "stores": result.counts.stores,
        "io": result.counts.io,
        "peak": result.counts.peak,
        "record": result.record,
        "closed_form": result.closed_form,
        "matches": result.matches,
        "parameters": {k: str(v) for k, v in result.parameters.items()},
        "error": result.error,
        "error_bound": result.error_bound,
        "note": result.note,
    }
    if args.json:
        json.dump(record, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    params = " ".join(f"{k}={v}" for k, v in record["parameters"].items())
    lines = [
        f"{result.algorithm} {result.pass_}  {params}  ({record['mode']} mode)",
        f"  loads        {result.counts.loads}",
        f"  stores       {result.counts.stores}",
        f"  I/O          {result.counts.io}",
        f"  peak memory  {result.counts.peak} of M = {result.M} words",
    ]
    if result.closed_form is None:
        lines.append(f"  closed form  n/a: {result.note}")
    else:
        verdict = "equal" if result.matches else "DIFFERENT"
        lines.append(f"  closed form  {result.closed_form} ({result.record}): {verdict}")
    if result.note and result.closed_form is not None:
        lines.append(f"  note         {result.note}")
    if result.error is not None:
        if result.error_bound is None:
            lines.append(f"  max relative error vs NumPy reference  {result.error:.3g}")
        else:
            lines.append(
                f"  max absolute error vs exact attention  {result.error:.3g} "
                f"(stated bound {result.error_bound:.3g})"
            )
    print("\n".join(lines))
    return 0 if result.matches is not False else 1


def _run_sweep(args: argparse.Namespace) -> int:
    lo, hi = parse_range(args.sweep)
    result = sweep(
        args.algorithm,
        args.pass_,
        args.n,
        args.d,
        lo,
        hi,
        args.points,
        block_density=args.block_density,
        degree=args.degree,
    )
    if args.plot:
        from attnio.figures import draw, save, sweep_figure

        save(draw(sweep_figure(result), "two"), args.plot)
    if args.json:
        json.dump(
            {
                "n": result.n,
                "d": result.d,
                "pass": result.pass_,
                "M": result.memories,
                "measured": result.measured,
                "closed_form": result.closed,
                "lower": result.lower,
                "tight": result.tight,
                "crossover": result.crossover,
            },
            sys.stdout,
            indent=2,
        )
        sys.stdout.write("\n")
        return 0
    names = list(result.measured)
    print("M".rjust(10) + "".join(name.rjust(22) for name in names))
    for k, M in enumerate(result.memories):
        cells = [result.measured[name][k] for name in names]
        print(
            str(M).rjust(10) + "".join(("-" if c is None else f"{c:.6g}").rjust(22) for c in cells)
        )
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0
