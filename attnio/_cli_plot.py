"""``attnio plot``: paper figures of I/O against fast-memory size M (PDF, PNG or SVG)."""

from __future__ import annotations

import argparse

from attnio._arguments import count, memory_range, positive_float, writable_file

NAME = "plot"
HELP = "draw a paper figure of I/O against fast-memory size M (PDF, PNG, SVG)"
_SUFFIXES = (".pdf", ".png", ".svg")


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio plot``."""
    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="Draw I/O against M. 'algorithms': the exact closed forms and the "
        "two-level machine's counts of dense algorithms, with the catalog's explicit lower "
        "bounds and the crossover M = d^2. 'pebbling': the proven optimum and a heuristic "
        "pebbling of a small attention DAG, with the lower bounds. Bounds are drawn only "
        "where they hold, are positive and exceed the compulsory I/O; the printed caption "
        "says what is left out.",
        epilog="examples:\n"
        "  attnio plot algorithms --n 1024 --d 16 --sweep M=16:8192 -o io.pdf -o io.png\n"
        "  attnio plot algorithms --pass backward --algorithms flash,tiled-backward "
        "--n 256 --d 16 --sweep M=16:4096 --width two -o bwd.pdf\n"
        "  attnio plot pebbling --n 2 --d 1 --sweep M=4:7 -o pebbling.pdf",
    )
    parser.add_argument("what", choices=("algorithms", "pebbling"), help="what to plot")
    parser.add_argument("--n", type=count(), required=True, help="sequence length")
    parser.add_argument("--d", type=count(), required=True, help="head dimension")
    parser.add_argument(
        "--sweep", metavar="M=LO:HI", type=memory_range, required=True, help="range of M"
    )
    parser.add_argument(
        "--algorithms",
        default="row-streaming,flash,square-tiling,standard",
        help="algorithms: comma-separated dense algorithms (default row-streaming,flash,square-tiling,standard)",
    )
    parser.add_argument(
        "--pass",
        dest="pass_",
        choices=("forward", "backward"),
        default="forward",
        help="algorithms: which pass (default forward)",
    )
    parser.add_argument(
        "--points", type=count(2), default=12, help="algorithms: measured points (default 12)"
    )
    parser.add_argument(
        "--dag",
        choices=("attention-forward", "attention-backward"),
        default="attention-forward",
        help="pebbling: the DAG family (default attention-forward)",
    )
    parser.add_argument(
        "--heuristic", default="belady", help="pebbling: heuristic to compare (default belady)"
    )
    parser.add_argument("--no-exact", action="store_true", help="pebbling: heuristic only")
    parser.add_argument(
        "--time-limit", type=positive_float, metavar="SECONDS", help="pebbling: per exact search"
    )
    parser.add_argument(
        "--width",
        choices=("one", "two"),
        default="one",
        help="one: 3.05 in (one column of a two-column article, default); two: 6.25 in (across both columns)",
    )
    parser.add_argument(
        "--output",
        "-o",
        action="append",
        required=True,
        metavar="FILE",
        help="write here (.pdf, .png or .svg); repeat for several formats",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Collect the figure's data, draw it, write each output, print the caption."""
    from attnio.figures import algorithm_figure, draw, pebbling_figure, save

    lo, hi = args.sweep
    if lo == hi:
        raise ValueError(f"--sweep M={lo}:{hi} needs LO < HI for a figure")
    for path in args.output:
        if not path.lower().endswith(_SUFFIXES):
            raise ValueError(f"--output {path!r} must end in .pdf, .png or .svg")
        writable_file("--output", path)
    if args.what == "algorithms":
        names = [a.strip() for a in args.algorithms.split(",") if a.strip()]
        if not names:
            raise ValueError(
                f"--algorithms {args.algorithms!r} names no algorithm; give e.g. flash,square-tiling"
            )
        data = algorithm_figure(names, args.pass_, args.n, args.d, lo, hi, args.points)
    else:
        data = pebbling_figure(
            args.dag,
            args.n,
            args.d,
            list(range(lo, hi + 1)),
            exact=not args.no_exact,
            heuristic=args.heuristic,
            time_limit=args.time_limit,
        )
    figure = draw(data, args.width)
    for path in args.output:
        save(figure, path)
        print(f"wrote {path}")
    print(f"caption: {data.caption()}")
    return 0
