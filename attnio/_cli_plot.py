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
        "two-level machine's counts of dense algorithms, with the best derived lower bound "
        "(one line: at each M the largest of attnio's derived lower bounds) and the "
        "crossover M = d^2. 'pebbling': the proven optimum and a heuristic pebbling of a "
        "small attention DAG, with the same lower bound. --bounds adds named records (a "
        "reconstructed or stated-secondary one only so). Every option is checked before "
        "anything runs; the printed caption is short, --verbose adds which record attains "
        "the lower bound where, --json FILE writes it all. 'shapes': at a fixed M, the best "
        "schedule count and the best derived lower bound of n_q x n_kv attention with h_q "
        "query heads grouped over h_kv, against the group size h_q / h_kv (--axis group) or "
        "the query rows n_q from decode to prefill (--axis n_q); --table FILE (.md or .tex) "
        "writes the same points as a table.",
        epilog="examples:\n"
        "  attnio plot algorithms --n 1024 --d 16 --sweep M=16:8192 -o io.pdf -o io.png\n"
        "  attnio plot algorithms --pass backward --algorithms flash,tiled-backward "
        "--n 256 --d 16 --sweep M=16:4096 --width two -o bwd.pdf\n"
        "  attnio plot algorithms --mask causal --n 1024 --d 16 --sweep M=256:16384 "
        "-o causal.pdf\n"
        "  attnio plot pebbling --n 2 --d 1 --sweep M=4:7 -o pebbling.pdf\n"
        "  attnio plot shapes --axis n_q --n-kv 65536 --heads-q 32 --heads-kv 8 --d 128 "
        "--M 65536 -o nq.pdf --table nq.tex",
    )
    parser.add_argument("what", choices=("algorithms", "pebbling", "shapes"), help="what to plot")
    parser.add_argument("--n", type=count(), help="sequence length (algorithms, pebbling)")
    parser.add_argument("--d", type=count(), required=True, help="head dimension")
    parser.add_argument(
        "--sweep", metavar="M=LO:HI", type=memory_range, help="range of M (algorithms, pebbling)"
    )
    parser.add_argument(
        "--axis", choices=("group", "n_q"), default="group",
        help="shapes: sweep the group size h_q / h_kv over the divisors of --heads-q, or "
        "n_q over 1, 2, 4, ... up to --n-kv (default group)",
    )  # fmt: skip
    parser.add_argument("--M", type=count(), help="shapes: fast-memory size")
    parser.add_argument("--n-q", type=count(), default=1, help="shapes: query rows (default 1)")
    parser.add_argument("--n-kv", type=count(), help="shapes: key/value rows")
    parser.add_argument("--heads-q", type=count(), default=1, help="shapes: query heads")
    parser.add_argument(
        "--heads-kv", type=count(), default=1,
        help="shapes, --axis n_q: key/value heads, a divisor of --heads-q (default 1)",
    )  # fmt: skip
    parser.add_argument(
        "--table", metavar="FILE",
        help="shapes: also write the swept points as a table (.md Markdown, .tex booktabs)",
    )  # fmt: skip
    parser.add_argument(
        "--algorithms",
        help="algorithms: comma-separated dense algorithms (default row-streaming,flash,square-tiling,standard)",
    )
    parser.add_argument(
        "--mask",
        help="algorithms: draw the schedules of this mask instead (causal; window or band "
        "with --window W), each where its count applies, and the best derived lower bound "
        "of the mask (at each M the largest derived lower bound that applies to it)",
    )
    parser.add_argument(
        "--window", type=count(0), metavar="W", help="--mask window or band: the width w"
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
        "--bounds",
        metavar="NAMES",
        default="",
        help="also draw these explicit lower-bound records (comma-separated, at most 4), "
        "each on its own grey line",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="also print the caption's details: the record attaining the best derived lower "
        "bound over each range of M, and what is not drawn",
    )
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="write the figure's data here: caption, details, and per M the best derived "
        "lower bound and the record attaining it",
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
    from attnio.figures import algorithm_figure, pebbling_figure
    from attnio.figures.data import check_bounds

    for path in args.output:
        if not path.lower().endswith(_SUFFIXES):
            raise ValueError(f"--output {path!r} must end in .pdf, .png or .svg")
        writable_file("--output", path)
    if args.json:
        writable_file("--json", args.json)
    if args.what == "shapes":
        return _shapes(args)
    if args.mask is None and args.window is not None:
        raise ValueError(f"--window {args.window} applies to --mask window or band")
    if args.mask is not None:
        return _masked(args)
    for option, value in (("--n", args.n), ("--sweep", args.sweep)):
        if value is None:
            raise ValueError(f"plot {args.what}: {option} is required")
    lo, hi = args.sweep
    if lo == hi:
        raise ValueError(f"--sweep M={lo}:{hi} needs LO < HI for a figure")
    bounds = tuple(b.strip() for b in args.bounds.split(",") if b.strip())
    pass_ = args.pass_ if args.what == "algorithms" else args.dag.rsplit("-", 1)[1]
    check_bounds(pass_, list(bounds))  # every limit before any run
    if args.what == "algorithms":
        chosen = "row-streaming,flash,square-tiling,standard" if args.algorithms is None else (
            args.algorithms)  # fmt: skip
        names = [a.strip() for a in chosen.split(",") if a.strip()]
        if not names:
            raise ValueError(
                f"--algorithms {args.algorithms!r} names no algorithm; give e.g. flash,square-tiling"
            )
        data = algorithm_figure(
            names, args.pass_, args.n, args.d, lo, hi, args.points, bounds=bounds
        )
    else:
        data = pebbling_figure(
            args.dag,
            args.n,
            args.d,
            list(range(lo, hi + 1)),
            exact=not args.no_exact,
            heuristic=args.heuristic,
            time_limit=args.time_limit,
            bounds=bounds,
        )
    return _emit(args, data)


def _masked(args: argparse.Namespace) -> int:
    """``attnio plot algorithms --mask``: the mask's schedules and its best derived lower bound."""
    from attnio.bounds.masks import Mask
    from attnio.figures import mask_figure

    if args.what != "algorithms":
        raise ValueError(f"--mask {args.mask} applies to plot algorithms, not plot {args.what}")
    given = [option for option, value in (("--algorithms", args.algorithms),
             ("--bounds", args.bounds or None)) if value is not None]  # fmt: skip
    if given:
        raise ValueError(f"{', '.join(given)}: with --mask the figure draws every counted "
                         "schedule of the mask and its best derived lower bound")  # fmt: skip
    for option, value in (("--n", args.n), ("--sweep", args.sweep)):
        if value is None:
            raise ValueError(f"plot algorithms --mask: {option} is required")
    lo, hi = args.sweep
    if lo == hi:
        raise ValueError(f"--sweep M={lo}:{hi} needs LO < HI for a figure")
    mask = Mask.from_arguments(args.mask, args.n, window=args.window)
    data = mask_figure(mask, args.pass_, args.d, lo, hi, args.points)
    return _emit(args, data)


def _shapes(args: argparse.Namespace) -> int:
    """``attnio plot shapes``: the figure (and --table) of a shape sweep at fixed M."""
    from attnio.bounds.shape import check_shape
    from attnio.figures import shape_figure, shape_table

    for option, value in (("--n-kv", args.n_kv), ("--M", args.M)):
        if value is None:
            raise ValueError(f"plot shapes: {option} is required")
    if args.table and not args.table.lower().endswith((".md", ".tex")):
        raise ValueError(f"--table {args.table!r} must end in .md or .tex")
    if args.table:
        writable_file("--table", args.table)
    heads_kv = 1 if args.axis == "group" else args.heads_kv
    check_shape(args.n_q, args.n_kv, args.heads_q, heads_kv)
    point = {"n_q": args.n_q, "n_kv": args.n_kv, "h_q": args.heads_q, "h_kv": heads_kv,
             "d": args.d, "M": args.M}  # fmt: skip
    data = shape_figure(args.pass_, args.axis, point)

    def table() -> None:
        fmt = "latex" if args.table.lower().endswith(".tex") else "markdown"
        with open(args.table, "w", encoding="utf-8") as handle:
            handle.write(shape_table(args.pass_, args.axis, point, fmt))
        print(f"wrote {args.table}")

    return _emit(args, data, table if args.table else None)


def _emit(args: argparse.Namespace, data, extra=None) -> int:
    """Draw ``data``, write each ``--output``, print the caption, run ``extra`` (another
    output of the figure), then the ``--verbose`` details and the ``--json`` file."""
    from attnio.figures import details, draw, save

    figure = draw(data, args.width)
    for path in args.output:
        save(figure, path)
        print(f"wrote {path}")
    print(f"caption: {data.caption()}")
    if extra is not None:
        extra()
    if args.verbose:
        print(details(data))
    if args.json:
        _write_json(args.json, data, details(data))
        print(f"wrote {args.json}")
    return 0


def _write_json(path: str, data, text: str) -> None:
    """The figure's caption, details and best derived lower bound per M, as JSON."""
    import json
    import math

    best = [s for s in data.series if s.attained is not None]
    document = {
        "caption": data.caption(),
        "details": text.splitlines(),
        "best_lower_bound": [
            {"M": m, "value": None if math.isnan(v) else v, "record": r}
            for s in best
            for m, v, r in zip(s.memories, s.values, s.attained, strict=True)
        ],
    }
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
        handle.write("\n")
