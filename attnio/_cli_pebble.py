"""``attnio pebble``: pebble an attention DAG (or a graph file) exactly or heuristically."""

from __future__ import annotations

import argparse
import json
import sys

from attnio.pebble import builders, load_dag, write_moves
from attnio.pebble.errors import ParameterError
from attnio.pebble.heuristic import HEURISTICS, pebble, sweep
from attnio.pebble.moves import VARIANTS

FIELDS = (
    "io", "loads", "stores", "optimal", "lower", "upper", "variant", "M", "vertices",
    "states_explored", "seconds", "method",
)  # fmt: skip
"""The fields ``--json`` prints for each pebbling."""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``attnio pebble``."""
    parser = subparsers.add_parser(
        "pebble",
        help="pebble an attention DAG or a graph file (red-blue pebble game, exact or heuristic)",
        description="Play the red-blue pebble game (rules: docs/game.md) on an element-level "
        "attention DAG or a graph file (.json, .graphml, .dot) with M red pebbles. "
        "'optimal' is true only when the optimum is proven.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--dag", choices=builders.KINDS, help="an attention DAG family")
    source.add_argument("--graph", metavar="FILE", help="a DAG file (.json, .graphml, .dot)")
    parser.add_argument("--n", type=int, help="sequence length (with --dag)")
    parser.add_argument("--d", type=int, help="head dimension (with --dag)")
    parser.add_argument(
        "--tree",
        choices=builders.TREE_SHAPES,
        default="chain",
        help="shape of the summation trees (default chain)",
    )
    parser.add_argument(
        "--mask",
        default="causal",
        help="sparse kinds: causal, full, band:W, local:W or a JSON n x n array "
        "file (default causal)",
    )
    parser.add_argument(
        "--degree",
        type=int,
        default=2,
        help="approx-forward: degree g of the feature map (default 2)",
    )
    memory = parser.add_mutually_exclusive_group(required=True)
    memory.add_argument("--M", type=int, help="red pebbles (fast-memory words)")
    memory.add_argument(
        "--sweep", metavar="M=LO:HI", help="pebble for every M from LO to HI (inclusive)"
    )
    method = parser.add_mutually_exclusive_group()
    method.add_argument("--exact", action="store_true", help="proven optimum (small DAGs)")
    method.add_argument(
        "--heuristic",
        choices=HEURISTICS,
        default="belady",
        help="heuristic pebbling (default belady on the natural order)",
    )
    parser.add_argument("--variant", choices=VARIANTS, default="standard")
    parser.add_argument(
        "--limit",
        type=int,
        metavar="STATES",
        default=4_000_000,
        help="--exact: size of the state table (default 4000000)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help="--exact, --heuristic search: stop after this many seconds "
        "(search default: 5000 iterations)",
    )
    parser.add_argument("--iterations", type=int, help="--heuristic search: evaluations")
    parser.add_argument("--seed", type=int, default=0, help="--heuristic search: random seed")
    parser.add_argument(
        "--moves", metavar="FILE", help="write the move sequence as JSON lines (not with --sweep)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def _graph(args: argparse.Namespace):
    if args.graph:
        for name in ("n", "d"):
            if getattr(args, name) is not None:
                raise ParameterError(
                    f"--{name} sizes a --dag family; it cannot be used with --graph"
                )
        return load_dag(args.graph)
    for name in ("n", "d"):
        if getattr(args, name) is None:
            raise ParameterError(f"--dag {args.dag} needs --{name}")
    return builders.build(
        args.dag, args.n, args.d, tree=args.tree, mask=args.mask, degree=args.degree
    )


def _sweep_range(spec: str) -> range:
    name, _, span = spec.partition("=")
    lo, _, hi = span.partition(":")
    try:
        if name != "M":
            raise ValueError
        low, high = int(lo), int(hi)
    except ValueError:
        raise ParameterError(f"--sweep={spec!r} must look like M=LO:HI") from None
    if not 1 <= low <= high:
        raise ParameterError(f"--sweep={spec!r} needs 1 <= LO <= HI")
    return range(low, high + 1)


def _solve(dag, M: int, args: argparse.Namespace, moves: bool):
    if args.exact:
        from attnio.pebble.exact import solve_exact

        return solve_exact(
            dag,
            M,
            variant=args.variant,
            max_states=args.limit,
            time_limit=args.time_limit,
            progress=not args.json and sys.stderr.isatty(),
        )
    return pebble(
        dag,
        M,
        heuristic=args.heuristic,
        variant=args.variant,
        moves=moves,
        iterations=args.iterations,
        time_limit=args.time_limit,
        seed=args.seed,
    )


def run(args: argparse.Namespace) -> int:
    """Pebble once (``--M``) or for a range of memory sizes (``--sweep``), then print."""
    dag = _graph(args)
    if args.sweep:
        if args.moves:
            raise ParameterError("--moves writes one pebbling; it cannot be used with --sweep")
        Ms = _sweep_range(args.sweep)
        dag.validate_memory(Ms.start)
        if args.exact:
            results = [_solve(dag, M, args, moves=False) for M in Ms]
        else:
            results = sweep(dag, Ms, heuristic=args.heuristic, variant=args.variant,
                            iterations=args.iterations, time_limit=args.time_limit,
                            seed=args.seed)  # fmt: skip
    else:
        results = [_solve(dag, args.M, args, moves=bool(args.moves))]
    if args.moves:
        write_moves(args.moves, results[0].moves, dag)
    rows = [{key: getattr(p, key) for key in FIELDS} for p in results]
    for row in rows:
        row["seconds"] = round(row["seconds"], 6)
    if args.json:
        json.dump(rows if args.sweep else rows[0], sys.stdout)
        sys.stdout.write("\n")
        return 0
    name = args.graph or f"{args.dag} n={args.n} d={args.d}"
    print(
        f"{name}: {dag.num_vertices} vertices, {dag.num_edges} edges, "
        f"variant {args.variant}, method {rows[0]['method']}"
    )
    print(
        f"{'M':>6} {'io':>10} {'loads':>10} {'stores':>10} {'lower':>10} {'optimal':>8} "
        f"{'seconds':>9}"
    )
    for row in rows:
        print(
            f"{row['M']:>6} {row['io']:>10} {row['loads']:>10} {row['stores']:>10} "
            f"{row['lower']:>10} {'yes' if row['optimal'] else 'no':>8} "
            f"{row['seconds']:>9.3f}"
        )
    return 0
