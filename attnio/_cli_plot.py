"""``attnio plot``: paper figures of I/O against fast-memory size M (PDF, PNG or SVG)."""

from __future__ import annotations

import argparse

from attnio.figures import WIDTHS, algorithm_figure, draw, pebbling_figure, save
from attnio.figures.errors import FigureError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``attnio plot``."""
    parser = subparsers.add_parser(
        "plot",
        help="draw a paper figure of I/O against fast-memory size M (PDF, PNG, SVG)",
        description="Draw I/O against M: 'algorithms' plots the exact closed forms and the "
        "machine's counts of dense algorithms with the catalog's explicit lower bounds and "
        "the crossover M = d^2; 'pebbling' plots the exact optimum and a heuristic pebbling "
        "of a small attention DAG. Bounds are drawn only where they hold and exceed the "
        "compulsory I/O; the printed caption says what is left out.",
    )
    parser.add_argument("what", choices=("algorithms", "pebbling"), help="what to plot")
    parser.add_argument("--n", type=int, required=True, help="sequence length")
    parser.add_argument("--d", type=int, required=True, help="head dimension")
    parser.add_argument("--sweep", metavar="M=LO:HI", required=True, help="range of M")
    parser.add_argument(
        "--algorithms",
        default="flash,square-tiling,standard",
        help="algorithms: comma-separated dense algorithms (default flash,square-tiling,standard)",
    )
    parser.add_argument("--pass", dest="pass_", choices=("forward", "backward"), default="forward")
    parser.add_argument("--points", type=int, default=12, help="algorithms: measured points")
    parser.add_argument(
        "--dag",
        choices=("attention-forward", "attention-backward"),
        default="attention-forward",
        help="pebbling: the DAG family",
    )
    parser.add_argument("--heuristic", default="belady", help="pebbling: heuristic to compare")
    parser.add_argument("--no-exact", action="store_true", help="pebbling: heuristic only")
    parser.add_argument(
        "--time-limit", type=float, metavar="SECONDS", help="pebbling: per exact search"
    )
    parser.add_argument(
        "--width", choices=tuple(WIDTHS), default="one",
        help="one: 3.3 in (one column); two: 7 in (across two columns)",
    )  # fmt: skip
    parser.add_argument(
        "--output", "-o", action="append", required=True, metavar="FILE",
        help="write here (.pdf, .png or .svg); repeat for several formats",
    )  # fmt: skip
    parser.set_defaults(run=run)


def _range(spec: str) -> tuple[int, int]:
    name, _, span = spec.partition("=")
    lo, _, hi = span.partition(":")
    try:
        if name != "M":
            raise ValueError
        low, high = int(lo), int(hi)
    except ValueError:
        raise FigureError(f"--sweep={spec!r} must look like M=LO:HI with integers") from None
    if not 1 <= low < high:
        raise FigureError(f"--sweep={spec!r} needs 1 <= LO < HI")
    return low, high


def run(args: argparse.Namespace) -> int:
    """Collect the figure's data, draw it, write each output, print the caption."""
    lo, hi = _range(args.sweep)
    for path in args.output:
        if not path.lower().endswith((".pdf", ".png", ".svg")):
            raise FigureError(f"--output {path!r} must end in .pdf, .png or .svg")
    if args.what == "algorithms":
        names = [a.strip() for a in args.algorithms.split(",") if a.strip()]
        data = algorithm_figure(names, args.pass_, args.n, args.d, lo, hi, args.points)
    else:
        data = pebbling_figure(
            args.dag, args.n, args.d, list(range(lo, hi + 1)),
            exact=not args.no_exact, heuristic=args.heuristic, time_limit=args.time_limit,
        )  # fmt: skip
    figure = draw(data, args.width)
    for path in args.output:
        save(figure, path)
        print(f"wrote {path}")
    print(f"caption: {data.caption()}")
    return 0
