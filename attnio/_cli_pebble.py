"""``attnio pebble``: pebble an attention DAG (or a graph file) exactly or heuristically."""

from __future__ import annotations

import argparse
import json
import sys

from attnio._arguments import (
    count,
    interactive,
    interrupted,
    latex_label,
    memory_range,
    positive_float,
    writable_file,
)
from attnio._progress import ProgressLine
from attnio._table import format_table

NAME = "pebble"
HELP = "pebble an attention DAG or a graph file (red-blue pebble game, exact or heuristic)"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio pebble``."""
    from attnio.pebble import builders
    from attnio.pebble.dag import GRAPH_FORMATS
    from attnio.pebble.heuristic import HEURISTICS
    from attnio.pebble.moves import VARIANTS

    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="Play the red-blue pebble game (docs/game.md) on an element-level "
        "attention DAG or a graph file (.json: attnio's or networkx node-link; .graphml; "
        ".dot; '-' reads standard input) with M red pebbles. 'optimal' is true only when "
        "the optimum is proven.",
        epilog="examples:\n"
        "  attnio pebble --dag attention-forward --n 2 --d 1 --M 4 --exact --json\n"
        "  attnio pebble --dag attention-forward --n 4 --d 2 --M 8 --heuristic search\n"
        "  attnio pebble --dag sparse-backward --n 6 --d 2 --mask local:2 --sweep M=4:12\n"
        "  attnio pebble --graph g.dot --M 5 --moves moves.jsonl\n"
        "  cat g.json | attnio pebble --graph - --M 5\n"
        "  attnio pebble --dag attention-forward --n 2 --d 1 --save-graph g.json "
        "--graph-format node-link",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--dag", choices=builders.KINDS, help="an attention DAG family")
    source.add_argument(
        "--graph", metavar="FILE", help="a DAG file (.json, .graphml, .dot; '-' standard input)"
    )
    parser.add_argument("--n", type=count(), help="sequence length (with --dag)")
    parser.add_argument("--d", type=count(), help="head dimension (with --dag)")
    parser.add_argument(
        "--n-q", type=count(), help="query rows of one head (attention-forward/backward)"
    )
    parser.add_argument("--n-kv", type=count(), help="key/value rows of one head (likewise)")
    parser.add_argument("--heads-q", type=count(), help="query heads (default 1)")
    parser.add_argument(
        "--heads-kv",
        type=count(),
        help="key/value heads, a divisor of --heads-q; a group's query heads share K and V",
    )
    parser.add_argument(
        "--tree",
        choices=builders.TREE_SHAPES,
        help="shape of the summation trees (default chain)",
    )
    parser.add_argument(
        "--mask",
        help="sparse kinds: causal, full, window or band (with --window W), block (with "
        "--block-mask FILE), window:W, band:W, local:W, or a .json or .npy n x n array "
        "file (default causal)",
    )
    parser.add_argument(
        "--window",
        type=count(0),
        metavar="W",
        help="width w of --mask window (i - w < j <= i) or --mask band (|i - j| <= w)",
    )
    parser.add_argument(
        "--block-mask",
        metavar="FILE",
        help="--mask block: a .json or .npy R x C block mask, blocks of ceil(n/R) x ceil(n/C)",
    )
    parser.add_argument(
        "--degree",
        type=count(),
        help="approx-forward, approx-backward: degree g of the feature map (default 2)",
    )
    parser.add_argument(
        "--block",
        type=count(),
        help="online-forward, blockwise-forward: keys per block, FlashAttention's B_c (default 1)",
    )
    parser.add_argument(
        "--max-vertices",
        type=count(),
        default=builders.BUILD_MAX_VERTICES,
        metavar="V",
        help=f"refuse --dag graphs with more vertices (default {builders.BUILD_MAX_VERTICES})",
    )
    memory = parser.add_mutually_exclusive_group()
    memory.add_argument("--M", type=count(), help="red pebbles (fast-memory words)")
    memory.add_argument(
        "--sweep",
        metavar="M=LO:HI",
        type=memory_range,
        help="pebble for every M from LO to HI (inclusive)",
    )
    method = parser.add_mutually_exclusive_group()
    method.add_argument("--exact", action="store_true", help="proven optimum (small DAGs)")
    method.add_argument(
        "--heuristic",
        choices=HEURISTICS,
        default="belady",
        help="heuristic pebbling (default belady on the natural order)",
    )
    parser.add_argument(
        "--variant",
        choices=VARIANTS,
        default="standard",
        help="standard (recomputation allowed) or oneshot (each vertex computed once)",
    )
    parser.add_argument(
        "--limit",
        type=count(),
        metavar="STATES",
        default=4_000_000,
        help="--exact: size of the state table (default 4000000; at most 124 bytes a state)",
    )
    parser.add_argument(
        "--max-bytes",
        type=count(),
        metavar="BYTES",
        help="--exact: cap on the bytes each search's table and queue may hold; the search "
        "stops with proven bounds rather than exceed it (at least 1048576)",
    )
    parser.add_argument(
        "--time-limit",
        type=positive_float,
        metavar="SECONDS",
        help="--exact, --heuristic search: stop after this many seconds "
        "(search default: 5000 iterations)",
    )
    parser.add_argument("--iterations", type=count(), help="--heuristic search: orders to evaluate")
    parser.add_argument(
        "--seed", type=count(0), default=0, help="--heuristic search: random seed (default 0)"
    )
    parser.add_argument(
        "--moves", metavar="FILE", help="write the move sequence as JSON lines (not with --sweep)"
    )
    parser.add_argument(
        "--save-graph",
        metavar="FILE",
        help="write the DAG to FILE (.json, .graphml, .dot) before pebbling; without --M "
        "or --sweep, only write it",
    )
    parser.add_argument(
        "--graph-format",
        choices=tuple(GRAPH_FORMATS),
        help="--save-graph: json (attnio's), node-link (networkx's JSON), graphml or dot "
        "(default: from the suffix; .json is attnio's)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--format",
        choices=("text", "json", "latex"),
        default="text",
        help="output: text (default), json (as --json) or latex (a booktabs table of "
        "optima and proven bounds per M, for papers)",
    )
    parser.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write the report (text, JSON or the LaTeX table) to FILE instead of standard output",
    )
    parser.add_argument(
        "--label",
        metavar="LABEL",
        type=latex_label,
        default="tab:attnio-pebbling",
        help="latex: the table's \\label (default tab:attnio-pebbling); give each table of "
        "one document its own",
    )
    parser.set_defaults(run=run)
    return parser


def _graph(args: argparse.Namespace):
    from attnio.pebble import builders, load_dag
    from attnio.pebble.errors import PebbleParameterError

    shape_given = any(
        getattr(args, name, None) is not None for name in ("n_q", "n_kv", "heads_q", "heads_kv")
    )
    if args.graph:
        shaping = ("n", "d", "tree", "mask", "window", "block_mask", "degree", "block")
        for name in (*shaping, *("n_q",) * shape_given):
            if getattr(args, name) is not None:
                raise PebbleParameterError(
                    f"--{name.replace('_', '-')} shapes a --dag family; it cannot be used "
                    "with --graph"
                )
        return load_dag(args.graph)
    if shape_given:
        from attnio.pebble.shapes import Shape, build_shape

        sizes = [args.n if value is None else value for value in (args.n_q, args.n_kv)]
        for option, value in zip(("--n-q", "--n-kv"), sizes, strict=True):
            if value is None:
                raise PebbleParameterError(f"--dag {args.dag} needs {option} (or --n for both)")
        if args.d is None:
            raise PebbleParameterError(f"--dag {args.dag} needs --d")
        heads = [1 if value is None else value for value in (args.heads_q, args.heads_kv)]
        return build_shape(args.dag, Shape(*sizes, *heads), args.d, tree=args.tree or "chain",
                           max_vertices=args.max_vertices)  # fmt: skip
    for name in ("n", "d"):
        if getattr(args, name) is None:
            raise PebbleParameterError(f"--dag {args.dag} needs --{name}")
    for name in ("mask", "degree", "block"):
        if getattr(args, name) is not None and name not in builders.BUILDERS[args.dag].parameters:
            takes = [k for k, spec in builders.BUILDERS.items() if name in spec.parameters]
            raise PebbleParameterError(
                f"--{name} applies to --dag {' or '.join(takes)}, not to --dag {args.dag}"
            )
    mask = args.mask
    if (
        args.window is not None
        or args.block_mask is not None
        or mask in ("window", "band", "block")
    ):
        from attnio.bounds.masks import Mask

        if "mask" not in builders.BUILDERS[args.dag].parameters:
            raise PebbleParameterError(
                f"--window and --block-mask shape a mask; --dag {args.dag} has none"
            )
        mask = Mask.from_arguments(
            mask, args.n, window=args.window, block_mask=args.block_mask
        ).allowed()
    return builders.build(
        args.dag,
        args.n,
        args.d,
        tree=args.tree or "chain",
        mask=mask,
        degree=2 if args.degree is None else args.degree,
        block=1 if args.block is None else args.block,
        max_vertices=args.max_vertices,
    )


def _pebblings(dag, args: argparse.Namespace) -> list:
    """Solve with the library's solvers (the exact sweep reuses each size's certificate)."""
    if args.exact:
        from attnio.pebble.exact import sweep_exact

        Ms = range(args.sweep[0], args.sweep[1] + 1) if args.sweep else [args.M]
        return sweep_exact(
            dag,
            Ms,
            variant=args.variant,
            max_states=args.limit,
            max_bytes=args.max_bytes,
            time_limit=args.time_limit,
            progress=not args.json and args.format == "text" and interactive(),
        )
    options = {
        "heuristic": args.heuristic,
        "variant": args.variant,
        "iterations": args.iterations,
        "time_limit": args.time_limit,
        "seed": args.seed,
    }
    if args.sweep:
        from attnio.pebble.heuristic import sweep

        Ms = range(args.sweep[0], args.sweep[1] + 1)
        with ProgressLine(enabled=not args.json and args.format == "text") as line:
            return sweep(dag, Ms, progress=line.update, **options)
    from attnio.pebble import pebble

    return [pebble(dag, args.M, moves=bool(args.moves), **options)]


def run(args: argparse.Namespace) -> int:
    """Pebble once (``--M``) or for a range of memory sizes (``--sweep``), then print."""
    from attnio.pebble.errors import PebbleParameterError, SearchInterrupted

    if args.json and args.format not in ("text", "json"):
        raise PebbleParameterError(
            f"--json and --format {args.format} ask for two outputs; give one"
        )
    if args.moves:
        if args.sweep:
            raise PebbleParameterError(
                "--moves writes one pebbling; it cannot be used with --sweep"
            )
        writable_file("--moves", args.moves)
    if args.M is None and args.sweep is None and not args.save_graph:
        raise PebbleParameterError("one of --M, --sweep (or --save-graph alone) is required")
    if args.graph_format and not args.save_graph:
        raise PebbleParameterError("--graph-format applies to --save-graph; give a FILE")
    if args.save_graph:
        writable_file("--save-graph", args.save_graph)
    if args.label != "tab:attnio-pebbling" and args.format != "latex":
        raise PebbleParameterError(f"--label labels a LaTeX table; got --format {args.format}")
    if args.output:
        if args.M is None and args.sweep is None:
            raise PebbleParameterError("--output writes a pebbling report; give --M or --sweep")
        writable_file("--output", args.output)
    dag = _graph(args)
    if args.save_graph:
        from attnio.pebble import save_dag

        save_dag(dag, args.save_graph, format=args.graph_format)
        if args.M is None and args.sweep is None:
            print(f"wrote {args.save_graph}: {dag.num_vertices} vertices, {dag.num_edges} edges")
            return 0
    if args.sweep:
        dag.validate_memory(args.sweep[0])
    try:
        results = _pebblings(dag, args)
    except SearchInterrupted as stop:
        _write_report(dag, args, stop.results, partial=True)
        done = sum(p.optimal for p in stop.results) if args.exact else len(stop.results)
        return interrupted(
            f"{len(stop.results)} pebbling(s) reported above ({done} finished); "
            "bounds lower <= IO <= upper are proven"
        )
    return _write_report(dag, args, results, partial=False)


def _write_report(dag, args: argparse.Namespace, results: list, partial: bool) -> int:
    """:func:`_report` to standard output, or into ``--output`` (then say where it went)."""
    if not args.output:
        return _report(dag, args, results, partial)
    import contextlib

    with open(args.output, "w", encoding="utf-8") as handle, contextlib.redirect_stdout(handle):
        code = _report(dag, args, results, partial)
    print(f"wrote {args.output}")
    return code


def _report(dag, args: argparse.Namespace, results: list, partial: bool) -> int:
    from attnio.bounds.schema import JSON_SCHEMA_VERSION
    from attnio.pebble import write_moves

    if args.moves and results and results[0].moves is not None:
        write_moves(args.moves, results[0].moves, dag)
    rows = [p.to_dict() for p in results]
    for row in rows:
        row["seconds"] = round(row["seconds"], 6)
    sizes = f"n={args.n}"
    if any(getattr(args, k) is not None for k in ("n_q", "n_kv", "heads_q", "heads_kv")):
        sizes = " ".join(
            f"{k}={getattr(args, k)}"
            for k in ("n", "n_q", "n_kv", "heads_q", "heads_kv")
            if getattr(args, k) is not None
        )
    name = "<stdin>" if args.graph == "-" else args.graph or f"{args.dag} {sizes} d={args.d}"
    if args.format == "latex":
        from attnio.bounds.render import latex_escape, render_pebblings_latex

        subject = latex_escape(name) if args.graph else (
            f"the {args.dag} DAG ($n = {args.n}$, $d = {args.d}$)"
        )  # fmt: skip
        text = render_pebblings_latex(
            rows, subject, dag.num_vertices, args.variant, partial, table_label=args.label
        )
        sys.stdout.write(text)
        return 0
    if args.json or args.format == "json":
        record = {
            "schema": JSON_SCHEMA_VERSION,
            "partial": partial,
            "graph": {"name": name, "vertices": dag.num_vertices, "edges": dag.num_edges},
            "results": rows,
        }
        json.dump(record, sys.stdout)
        sys.stdout.write("\n")
        return 0
    method = rows[0]["method"] if rows else ("exact" if args.exact else args.heuristic)
    print(
        f"{name}: {dag.num_vertices} vertices, {dag.num_edges} edges, "
        f"variant {args.variant}, method {method}" + (" (partial: interrupted)" if partial else "")
    )
    columns = ("M", "io", "loads", "stores", "lower", "optimal", "seconds")
    cells = [
        [*(str(row[k]) for k in columns[:5]), "yes" if row["optimal"] else "no",
         f"{row['seconds']:.3f}"]
        for row in rows
    ]  # fmt: skip
    print(format_table(columns, cells))
    return 0
