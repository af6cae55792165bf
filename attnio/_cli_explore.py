"""``attnio explore``: draw a small DAG and play the red-blue pebble game in the browser."""

from __future__ import annotations

import argparse
import sys
import threading

from attnio._arguments import count, positive_float, writable_file

NAME = "explore"
HELP = "explore a small DAG in the browser: the optimal pebbling step by step, play by hand"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio explore``."""
    from attnio.pebble import VARIANTS, builders

    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="Draw an attention DAG (or a graph file) and play the red-blue pebble "
        "game on it (docs/game.md): watch the proven optimal pebbling move by move, try "
        "moves by hand (an illegal move is refused, naming its rule), run the solvers, "
        "and compare with the catalog's bounds and this DAG's IO(M) curve. Serves a page "
        "on 127.0.0.1 until Ctrl-C (exit code 130), or writes one self-contained HTML "
        "file with --html. Nothing is fetched from the network.",
        epilog="examples:\n"
        "  attnio explore --dag attention-forward --n 2 --d 1 --M 4\n"
        "  attnio explore --dag attention-backward --n 1 --d 1 --variant oneshot\n"
        "  attnio explore --dag attention-forward --n 2 --d 1 --M 4 --Ms 3:8 --html out.html\n"
        "  attnio explore --graph g.dot --M 5 --moves moves.jsonl",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--dag", choices=builders.KINDS, help="an attention DAG family")
    source.add_argument("--graph", metavar="FILE", help="a DAG file (.json, .graphml, .dot)")
    parser.add_argument("--n", type=count(), help="sequence length (with --dag)")
    parser.add_argument("--d", type=count(), help="head dimension (with --dag)")
    parser.add_argument(
        "--tree",
        choices=builders.TREE_SHAPES,
        default="chain",
        help="shape of the summation trees (default chain)",
    )
    parser.add_argument(
        "--mask", default="causal", help="sparse kinds: causal, full, band:W, local:W"
    )
    parser.add_argument(
        "--degree", type=count(), default=2, help="approx kinds: degree of the feature map"
    )
    parser.add_argument("--M", type=count(), help="red pebbles shown first (default: minimum + 1)")
    parser.add_argument(
        "--variant",
        choices=VARIANTS,
        default="standard",
        help="standard (recomputation allowed) or oneshot (each vertex computed once)",
    )
    parser.add_argument("--moves", metavar="FILE", help="a move file (JSON lines) to offer")
    parser.add_argument("--html", metavar="OUT", help="write one self-contained HTML file")
    parser.add_argument(
        "--Ms", metavar="LO:HI", help="--html: the memory sizes to precompute (default: --M)"
    )
    parser.add_argument(
        "--port", type=count(0), default=0, help="server port (default: any free port)"
    )
    parser.add_argument("--open", action="store_true", help="also open the page in a browser")
    parser.add_argument(
        "--exact-seconds",
        type=positive_float,
        default=20.0,
        metavar="SECONDS",
        help="time limit of one exact solve; past it the page shows proven bounds (default 20)",
    )
    parser.set_defaults(run=run)
    return parser


def _instance(args: argparse.Namespace):
    from pathlib import Path

    from attnio.explorer import Instance
    from attnio.pebble import load_dag, read_moves
    from attnio.pebble.errors import ParameterError

    options = {"exact_seconds": args.exact_seconds}
    if args.graph:
        for name in ("n", "d"):
            if getattr(args, name) is not None:
                raise ParameterError(
                    f"--{name} sizes a --dag family; it cannot be used with --graph"
                )
        instance = Instance.from_dag(load_dag(args.graph), Path(args.graph).name, **options)
    else:
        for name in ("n", "d"):
            if getattr(args, name) is None:
                raise ParameterError(f"--dag {args.dag} needs --{name}")
        instance = Instance.from_builder(
            args.dag, args.n, args.d, tree=args.tree, mask=args.mask, degree=args.degree,
            **options,
        )  # fmt: skip
    if args.moves:
        instance.moves = read_moves(args.moves, instance.dag)
        instance.moves_name = Path(args.moves).name
    return instance


def _memories(spec: str, instance) -> list[int]:
    from attnio.pebble.errors import ParameterError

    low, sep, high = spec.partition(":")
    try:
        Ms = list(range(int(low), int(high) + 1)) if sep else [int(low)]
    except ValueError:
        raise ParameterError(f"--Ms={spec!r} must look like LO:HI or M") from None
    if not Ms:
        raise ParameterError(f"--Ms={spec!r} needs LO <= HI")
    for M in Ms:
        instance.check_memory(M)
    return Ms


def run(args: argparse.Namespace) -> int:
    """Serve the explorer on 127.0.0.1 (until Ctrl-C) or write it as one HTML file."""
    from attnio.pebble.errors import ParameterError

    if args.html:
        target = writable_file("--html", args.html)
    elif args.Ms:
        raise ParameterError("--Ms chooses what --html precomputes; the server computes on demand")
    if args.port > 65535:
        raise ParameterError(f"--port={args.port} must be from 0 (any free port) to 65535")
    instance = _instance(args)
    if args.M is None:
        M = min(instance.dag.min_memory + 1, instance.max_memory)
    else:
        M = instance.check_memory(args.M)
    if args.html:
        from attnio.explorer.offline import offline_page

        Ms = [M] + [m for m in (_memories(args.Ms, instance) if args.Ms else []) if m != M]
        text = offline_page(instance, Ms, args.variant)
        target.write_text(text, encoding="utf-8")
        shown = ", ".join(map(str, sorted(Ms)))
        print(f"wrote {args.html} ({len(text) // 1024} KiB; M = {shown})")
        return 0
    from attnio.explorer.server import ExplorerServer, serve

    try:
        server = ExplorerServer(instance, M, args.variant, port=args.port)
    except OSError as error:
        raise ParameterError(
            f"--port={args.port}: {error.strerror or error} on 127.0.0.1 (choose another "
            "port, or 0 for any free one)"
        ) from None
    warm = threading.Thread(target=_warm, args=(instance, M, args.variant), daemon=True)
    warm.start()
    print(f"attnio explore: {instance.title}, M={M}")
    print(f"  open {server.url}  (Ctrl-C stops the server)", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(server.url)
    serve(server)
    return 0


def _warm(instance, M: int, variant: str) -> None:
    """Compute what the page asks first, so it is ready when the page loads."""
    try:
        instance.bounds(M)
        instance.compile()
        instance.solve(M, variant, instance.methods()[0])
    except Exception as error:  # the page asks again and shows the error itself
        print(f"attnio explore: {error}", file=sys.stderr)
