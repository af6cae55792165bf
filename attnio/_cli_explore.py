"""``attnio explore``: draw a small DAG and play the red-blue pebble game in the browser."""

from __future__ import annotations

import argparse
import sys
import threading
import webbrowser
from pathlib import Path

from attnio.pebble import builders, load_dag, read_moves
from attnio.pebble.errors import ParameterError
from attnio.pebble.moves import VARIANTS


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``attnio explore``."""
    parser = subparsers.add_parser(
        "explore",
        help="explore a small DAG in the browser: optimal pebbling step by step, play by hand",
        description="Draw an attention DAG (or a graph file) and play the red-blue pebble game "
        "on it (docs/game.md): watch the proven optimal pebbling move by move, try moves by "
        "hand, run the solvers, and compare with the catalog's bounds. Serves a page on "
        "127.0.0.1 until Ctrl-C (exit code 130), or writes one self-contained HTML file "
        "with --html.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--dag", choices=builders.KINDS, help="an attention DAG family")
    source.add_argument("--graph", metavar="FILE", help="a DAG file (.json, .graphml, .dot)")
    parser.add_argument("--n", type=int, help="sequence length (with --dag)")
    parser.add_argument("--d", type=int, help="head dimension (with --dag)")
    parser.add_argument("--tree", choices=builders.TREE_SHAPES, default="chain",
                        help="shape of the summation trees (default chain)")  # fmt: skip
    parser.add_argument("--mask", default="causal",
                        help="sparse kinds: causal, full, band:W, local:W (default causal)")  # fmt: skip
    parser.add_argument("--degree", type=int, default=2,
                        help="approx-forward: degree of the feature map (default 2)")  # fmt: skip
    parser.add_argument("--M", type=int, help="red pebbles shown first (default: minimum + 1)")
    parser.add_argument("--variant", choices=VARIANTS, default="standard")
    parser.add_argument("--moves", metavar="FILE", help="a move file (JSON lines) to offer")
    parser.add_argument(
        "--html", metavar="OUT", help="write one self-contained HTML file, no server"
    )
    parser.add_argument("--Ms", metavar="LO:HI",
                        help="--html: the memory sizes to precompute (default: --M only)")  # fmt: skip
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    parser.add_argument("--open", action="store_true", help="open the page in a web browser")
    parser.add_argument("--exact-seconds", type=float, default=20.0, metavar="SECONDS",
                        help="time limit of one exact solve (default 20)")  # fmt: skip
    parser.set_defaults(run=run)


def _instance(args: argparse.Namespace):
    from attnio.explorer import Instance

    options = {"exact_seconds": args.exact_seconds}
    if not args.exact_seconds > 0:
        raise ParameterError(f"--exact-seconds={args.exact_seconds} must be positive")
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
    from attnio.explorer.server import ExplorerServer, serve

    instance = _instance(args)
    M = instance.dag.min_memory + 1 if args.M is None else args.M
    M = instance.check_memory(min(M, instance.max_memory) if args.M is None else M)
    if args.html:
        from attnio.explorer.offline import offline_page

        Ms = _memories(args.Ms, instance) if args.Ms else [M]
        if M in Ms:
            Ms.remove(M)
        Ms.insert(0, M)
        text = offline_page(instance, Ms, args.variant)
        Path(args.html).write_text(text, encoding="utf-8")
        print(f"wrote {args.html} ({len(text) // 1024} KiB; M = {', '.join(map(str, sorted(Ms)))})")
        return 0
    if args.Ms:
        raise ParameterError("--Ms chooses what --html precomputes; the server computes on demand")
    if not 0 <= args.port <= 65535:
        raise ParameterError(f"--port={args.port} must be from 0 (any free port) to 65535")
    server = ExplorerServer(instance, M, args.variant, port=args.port)
    warm = threading.Thread(target=_warm, args=(instance, M, args.variant), daemon=True)
    warm.start()
    print(f"attnio explore: {instance.title}, M={M}")
    print(f"  open {server.url}  (Ctrl-C stops the server)", flush=True)
    if args.open:
        webbrowser.open(server.url)
    serve(server)
    return 0


def _warm(instance, M: int, variant: str) -> None:
    """Compute what the page asks first, so it is ready when the page loads."""
    try:
        instance.bounds(M)
        instance.solve(M, variant, instance.methods()[0])
    except Exception as error:  # the page will ask again and show the error
        print(f"attnio explore: {error}", file=sys.stderr)
