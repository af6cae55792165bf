"""``attnio simulate``: run an attention algorithm on the counting two-level machine."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from attnio._arguments import (
    count,
    fraction,
    interrupted,
    memory_range,
    positive_float,
    writable_file,
)
from attnio._progress import ProgressLine
from attnio._table import format_table

NAME = "simulate"
HELP = "run an attention algorithm on the two-level memory machine and count its I/O"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio simulate``."""
    from attnio.algorithms import ALGORITHMS
    from attnio.algorithms.simulation import MAX_TRANSFERS, MAX_WORDS

    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="Run ALGORITHM (NumPy float64 by default, --count-only for large n) and "
        "print loads, stores, peak fast memory, the closed-form count from the catalog and "
        "the numeric error. With --sweep M=LO:HI --plot FILE.png, plot measured I/O of one "
        "or more algorithms against M with the catalog's bounds.",
        epilog="examples:\n"
        "  attnio simulate flash --n 1024 --d 64 --M 16384\n"
        "  attnio simulate flash --n 65536 --d 128 --M 131072 --count-only\n"
        "  attnio simulate low-rank --n 4096 --d 8 --M 2048 --degree 3\n"
        "  attnio simulate window-row-streaming --n 4096 --d 64 --M 65536 --mask window "
        "--window 256\n"
        "  attnio simulate gqa-row-streaming --n-q 1 --n-kv 65536 --heads-q 32 --heads-kv 8 "
        "--d 128 --M 65536 --count-only\n"
        "  attnio simulate flash square-tiling --n 256 --d 16 --sweep M=32:4096 --plot io.png",
    )
    parser.add_argument(
        "algorithm",
        nargs="+",
        metavar="ALGORITHM",
        help=f"one of: {', '.join(ALGORITHMS)} (several with --sweep)",
    )
    parser.add_argument(
        "--n",
        type=count(),
        help="sequence length: n queries and n keys, one head (required unless --n-q and "
        "--n-kv give a shape)",
    )
    parser.add_argument("--n-q", type=count(), help="query rows of one head (shape algorithms)")
    parser.add_argument(
        "--n-kv", type=count(), help="key/value rows of one head (shape algorithms)"
    )
    parser.add_argument("--heads-q", type=count(), help="query heads (default 1)")
    parser.add_argument(
        "--heads-kv", type=count(), help="key/value heads, a divisor of --heads-q (default 1)"
    )
    parser.add_argument("--d", type=count(), required=True, help="head dimension")
    parser.add_argument("--M", type=count(), help="fast-memory size in words")
    parser.add_argument(
        "--pass",
        dest="pass_",
        choices=("forward", "backward"),
        default="forward",
        help="which pass to run (default forward)",
    )
    masks = parser.add_mutually_exclusive_group()
    masks.add_argument(
        "--mask",
        metavar="FAMILY|FILE|PATTERN",
        help="sparse algorithms: causal, full, window or band (with --window W), block (with "
        "--block-mask FILE), a .npy or .json boolean mask (n x n block-constant, or a block "
        "mask), or a pattern the algorithm's blocks cover: diagonal, band:W, window:W, "
        "local:W, sink, rows:K; the causal-, window- and band- algorithms run their family's "
        "mask, built from indices",
    )
    parser.add_argument(
        "--window",
        type=count(0),
        metavar="W",
        help="width w of --mask window (i - w < j <= i, 1 <= w <= n) or --mask band "
        "(|i - j| <= w, w < n)",
    )
    parser.add_argument(
        "--block-mask",
        metavar="FILE",
        help="--mask block: a .npy or .json R x C block mask (block-sparse algorithms: the "
        "shape of their blocks)",
    )
    masks.add_argument(
        "--block-density",
        type=fraction,
        metavar="s",
        help="density in (0, 1] of a random block mask (sparse algorithms)",
    )
    parser.add_argument("--degree", type=count(0), metavar="g", help="polynomial degree (low-rank)")
    parser.add_argument(
        "--entry-bound",
        type=positive_float,
        metavar="B",
        help="bound on |Q|, |K| entries (low-rank; default 1/sqrt(d))",
    )
    parser.add_argument(
        "--entries",
        choices=("uniform", "constant", "two-scores"),
        help="family of the inputs (low-rank; default uniform): constant scores per query "
        "(the polynomial is exact), or the two scores where it errs most (its error is "
        "known in closed form)",
    )
    parser.add_argument("--seed", type=count(0), default=0, help="seed of the random inputs")
    parser.add_argument(
        "--count-only",
        action="store_true",
        help="counting mode: no arithmetic, same loop nest and transfers",
    )
    parser.add_argument(
        "--sweep", metavar="M=LO:HI", type=memory_range, help="sweep M over [LO, HI]"
    )
    parser.add_argument(
        "--points", type=count(), default=24, help="number of M values to sweep (default 24)"
    )
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="write the sweep's figure to this file (.pdf, .png or .svg; 7 in wide)",
    )
    parser.add_argument(
        "--max-words",
        type=count(),
        default=MAX_WORDS,
        metavar="WORDS",
        help=f"refuse runs estimated to allocate more words (default {MAX_WORDS})",
    )
    parser.add_argument(
        "--max-transfers",
        type=count(),
        default=MAX_TRANSFERS,
        metavar="T",
        help="refuse runs estimated (closed-form I/O / d) to make more machine transfers, "
        f"which bound the running time, also with --count-only (default {MAX_TRANSFERS:,})",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)
    return parser


def shape_of(args: argparse.Namespace) -> tuple[int, int, int, int] | None:
    """(n_q, n_kv, heads_q, heads_kv) from the shape options (n_q, n_kv default --n, heads
    1); None when none is given. Shared by the commands that take a shape."""
    given = (args.n_q, args.n_kv, args.heads_q, args.heads_kv)
    if all(value is None for value in given):
        return None
    n_q, n_kv = (args.n if value is None else value for value in given[:2])
    for option, value in (("--n-q", n_q), ("--n-kv", n_kv)):
        if value is None:
            raise ValueError(f"give {option} (or --n for both sizes)")
    heads_q, heads_kv = (1 if value is None else value for value in given[2:])
    return n_q, n_kv, heads_q, heads_kv


def run(args: argparse.Namespace) -> int:
    """Simulate one run, or a sweep of M; print a summary or JSON."""
    shape = shape_of(args)
    if args.n is None and shape is None:
        raise ValueError("--n is required (or, for a shape, --n-q and --n-kv)")
    if shape is not None and args.sweep is not None:
        raise ValueError("--sweep runs n x n single-head shapes only; drop the shape options")
    if args.plot and args.sweep is None:
        raise ValueError("--plot draws a sweep; give --sweep M=LO:HI too")
    if args.sweep is not None:
        return _run_sweep(args)
    if args.M is None:
        raise ValueError("--M is required unless --sweep is given")
    if len(args.algorithm) != 1:
        raise ValueError(f"give one ALGORITHM without --sweep, got {len(args.algorithm)}")
    from attnio.algorithms import simulate

    result = simulate(
        args.algorithm[0],
        args.pass_,
        shape[1] if args.n is None else args.n,
        args.d,
        args.M,
        shape=shape,
        numeric=not args.count_only,
        seed=args.seed,
        mask=_mask_argument(args),
        block_density=args.block_density,
        window=args.window,
        degree=args.degree,
        entry_bound=args.entry_bound,
        entries=args.entries,
        max_words=args.max_words,
        max_transfers=args.max_transfers,
    )
    record = result.to_dict()
    if args.json:
        _dump([record], partial=False)
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


def _mask_argument(args: argparse.Namespace):
    """simulate's ``mask`` from --mask and --block-mask (--window goes as it is)."""
    if args.block_mask is not None or args.mask == "block":
        if args.mask != "block":
            raise ValueError(f"--block-mask applies only to --mask block, not --mask {args.mask}")
        if args.block_mask is None:
            raise ValueError("--mask block needs --block-mask FILE (a .npy or .json block mask)")
        return _load_mask(args.block_mask, "--block-mask")
    if args.mask is None or args.mask in ("causal", "full", "window", "band", "local"):
        return args.mask
    return _load_mask(args.mask)


def _load_mask(path: str, option: str = "--mask"):
    import numpy as np

    from attnio.algorithms.masks import PATTERNS

    name = path.partition(":")[0]
    if name == "window" or (
        not path.lower().endswith((".npy", ".json"))
        and any(p.partition(":")[0] == name for p in PATTERNS)
    ):
        return path  # a pattern: simulate covers it with the algorithm's blocks
    if path.lower().endswith(".json"):
        from attnio.bounds.masks import read_array

        return read_array(path, option)
    try:
        return np.load(path, allow_pickle=False)
    except (ValueError, EOFError) as error:
        raise ValueError(f"{option} {path!r} is not a .npy array file ({error})") from None


def _dump(results: list[dict], partial: bool, **extra: object) -> None:
    from attnio.bounds.schema import JSON_SCHEMA_VERSION

    record = {"schema": JSON_SCHEMA_VERSION, "partial": partial, "results": results, **extra}
    json.dump(record, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _run_sweep(args: argparse.Namespace) -> int:
    from attnio.algorithms import sweep
    from attnio.algorithms.errors import SweepInterrupted

    if args.M is not None:
        raise ValueError("--M and --sweep exclude each other; --sweep M=LO:HI gives the range")
    if args.block_mask is not None or (
        args.mask is not None and args.mask not in ("causal", "window", "band")
    ):
        raise ValueError(
            "--mask FILE and --block-mask apply to one run; sweeps draw random block masks "
            "(--block-density) and run the causal-, window- and band- algorithms' --mask "
            "causal, window or band"
        )
    if args.entries is not None:
        raise ValueError("--entries applies to one run; sweeps count words only")
    if args.plot:
        writable_file("--plot", args.plot)
        suffix = Path(args.plot).suffix.lower().lstrip(".")
        if suffix not in ("", "png", "pdf", "svg"):
            raise ValueError(f"--plot {args.plot!r}: suffix .{suffix} is not .png, .pdf or .svg")
    lo, hi = args.sweep
    try:
        with ProgressLine(enabled=not args.json) as line:
            result = sweep(
                args.algorithm,
                args.pass_,
                args.n,
                args.d,
                lo,
                hi,
                args.points,
                progress=line.update,
                block_density=args.block_density,
                mask=args.mask,
                window=args.window,
                degree=args.degree,
                max_words=args.max_words,
                max_transfers=args.max_transfers,
            )
    except SweepInterrupted as stop:
        data = stop.result.to_dict()
        finished = [row for row in data.pop("results") if row["io"] is not None]
        if args.json:
            _dump(finished, partial=True, **data)
        else:
            for row in finished:
                print(f"{row['algorithm']:>22} M={row['M']:<10} io={row['io']}")
        return interrupted(f"{len(finished)} runs of the sweep finished (shown above)")
    if args.plot:
        from attnio.figures import draw, save, sweep_figure

        save(draw(sweep_figure(result), "two"), args.plot)
    if args.json:
        data = result.to_dict()
        _dump(data.pop("results"), partial=False, **data)
        return 0
    names = list(result.measured)
    rows = [
        [str(M), *(_cell(result.measured[name][k]) for name in names)]
        for k, M in enumerate(result.memories)
    ]
    print(format_table(["M", *names], rows))
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def _cell(count: float | None) -> str:
    """A sweep cell: ``-`` where M is too small, else the exact count (never rounded)."""
    if count is None:
        return "-"
    return str(int(count)) if float(count).is_integer() else f"{count:.6g}"
