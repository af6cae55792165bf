"""The exact frontier as data: proven IO(M) bounds of attention DAGs with their certificates.

Run from the repository root:

    .venv/bin/python benchmarks/frontier.py --run --case attention-forward:2:2 --variant oneshot
    .venv/bin/python benchmarks/frontier.py --run --case attention-backward:2:1 --m 9 --time-limit 600
    .venv/bin/python benchmarks/frontier.py --record "attention-backward:2:1:standard:9:22:where"
    .venv/bin/python benchmarks/frontier.py --render          # the tables of docs/frontier.md

``docs/frontier/index.json`` holds one entry per cell (DAG family, n, d, variant, M): the
proven bounds ``lower <= IO(M) <= upper``, where each came from, and the file of a pebbling
of cost ``upper`` (``docs/frontier/<cell>.moves.jsonl``, the JSON lines of
:func:`attnio.pebble.write_moves`), which ``tests/test_benchmark_frontier.py`` replays against the DAG
the builders make. ``--run`` solves the cells it is given (:func:`solve_exact`, default
rules) and merges each result in: the higher lower bound and the cheaper certificate win,
every certificate replayed first. Then the two facts every pebbling game obeys tighten
neighbouring cells, each tightening recorded with its reason: a pebbling with M red
pebbles is one with M + 1, so IO is non-increasing in M (an upper bound moves up in M with
its certificate, a lower bound moves down); and a one-shot pebbling is a standard one, so
the standard IO is at most the one-shot IO (an upper bound moves from one-shot to standard
with its certificate, a lower bound from standard to one-shot).

A lower bound below the optimum is proven by the search alone (A* with an admissible
heuristic, argued in :mod:`attnio.pebble.exact`); it has no certificate a replayer could
check, so each entry says which run proved it (``lower_from``).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import sys
from pathlib import Path

from attnio.pebble import builders, read_moves, replay, write_moves
from attnio.pebble.exact import DEFAULT_RULES, solve_exact
from attnio.pebble.heuristic import compulsory_io
from attnio.pebble.symmetry import automorphisms

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "docs" / "frontier"
INDEX = FOLDER / "index.json"
VARIANTS = ("standard", "oneshot")
COMPULSORY = "the compulsory I/O: every input loaded, every output stored, at least once"


def cell_name(dag: str, n: int, d: int, variant: str, M: int) -> str:
    """The file stem of a cell: ``attention-forward-n2-d2-standard-M4``."""
    return f"{dag}-n{n}-d{d}-{variant}-M{M}"


def load(path: Path = INDEX) -> dict:
    """The index (an empty one if the file does not exist)."""
    if not path.exists():
        return {"schema": 1, "cells": []}
    return json.loads(path.read_text(encoding="utf-8"))


def save(index: dict, path: Path = INDEX) -> None:
    """Write the index, its cells sorted, one cell per line."""
    cells = sorted(
        index["cells"],
        key=lambda c: (c["dag"], c["n"], c["d"], VARIANTS.index(c["variant"]), c["M"]),
    )
    lines = ",\n".join("    " + json.dumps(cell) for cell in cells)
    partial = path.with_suffix(".partial")
    partial.write_text(
        f'{{\n  "schema": {index["schema"]},\n  "cells": [\n{lines}\n  ]\n}}\n', encoding="utf-8"
    )
    os.replace(partial, path)  # never a half-written index


def _key(cell: dict) -> tuple:
    """``(dag, n, d, variant, M)`` of a cell."""
    return tuple(cell[k] for k in ("dag", "n", "d", "variant", "M"))


def _find(index: dict, dag: str, n: int, d: int, variant: str, M: int) -> dict | None:
    """The cell ``(dag, n, d, variant, M)`` of the index, or ``None``."""
    wanted = (dag, n, d, variant, M)
    return next((cell for cell in index["cells"] if _key(cell) == wanted), None)


def _offer(
    index: dict, graph, key: tuple, moves, lower: int, lower_from: str, upper_from: str
) -> bool:
    """Merge bounds and a pebbling into the cell ``key``; return whether anything changed.

    The pebbling is replayed under the cell's M and variant first; it replaces the stored
    one only if cheaper, and the lower bound replaces the stored one only if higher."""
    dag, n, d, variant, M = key
    io = replay(graph, moves, M, variant).io
    cell = _find(index, *key)
    if cell is None:
        cell = {"dag": dag, "n": n, "d": d, "variant": variant, "M": M, "V": graph.num_vertices,
                "lower": 0, "upper": None, "lower_from": "", "upper_from": "", "certificate": ""}  # fmt: skip
        index["cells"].append(cell)
    changed = False
    if cell["upper"] is None or io < cell["upper"]:
        name = cell_name(*key) + ".moves.jsonl"
        partial = FOLDER / (name + ".partial")
        write_moves(partial, moves, graph)
        os.replace(partial, FOLDER / name)
        cell.update(upper=io, upper_from=upper_from, certificate=name)
        changed = True
    _consistent(cell, lower, f"{lower_from} (its lower bound)")
    if lower > cell["lower"]:
        cell.update(lower=lower, lower_from=lower_from)
        changed = True
    return changed


def _consistent(cell: dict, lower: int, source: str) -> None:
    """Refuse a lower bound above the cell's certified upper bound: one of the two is wrong."""
    if lower > cell["upper"]:
        raise RuntimeError(
            f"{cell_name(*_key(cell))}: lower bound "
            f"{lower} from {source} exceeds the certified {cell['upper']}; a bug somewhere"
        )


def record(index: dict, spec: str) -> None:
    """Record a lower bound proven by an earlier run: ``KIND:N:D:VARIANT:M:LOWER:WHERE``.

    The cell must already hold a certificate; the bound is kept only if higher."""
    dag, n, d, variant, M, lower, where = spec.split(":", 6)
    cell = _find(index, dag, int(n), int(d), variant, int(M))
    if cell is None:
        raise SystemExit(f"--record {spec!r}: no such cell in the index; --run it first")
    _consistent(cell, int(lower), where)
    if int(lower) > cell["lower"]:
        cell.update(lower=int(lower), lower_from=where)


def tighten(index: dict) -> None:
    """Apply the compulsory I/O, monotonicity in M and standard <= one-shot until nothing
    changes. A row that reached the compulsory I/O is extended (same Q, same certificate)
    to the largest M the other variant's row has."""
    graphs: dict[tuple, object] = {}
    changed = True
    while changed:
        changed = False
        for cell in list(index["cells"]):
            dag, n, d, variant, M = _key(cell)
            graph = graphs.setdefault((dag, n, d), builders.build(dag, n, d))
            floor = compulsory_io(graph)
            if cell["lower"] < floor:
                _consistent(cell, floor, "the compulsory I/O")
                cell.update(lower=floor, lower_from=COMPULSORY)
                changed = True
            moves = read_moves(FOLDER / cell["certificate"], graph)
            last = max(c["M"] for c in index["cells"] if (c["dag"], c["n"], c["d"]) == (dag, n, d))
            done = cell["upper"] == floor and M < last
            targets = [((dag, n, d, variant, M + 1), f"{variant} M={M}, Q non-increasing in M")]
            if variant == "oneshot":
                targets.append(((dag, n, d, "standard", M), f"one-shot M={M}, a standard pebbling"))
            for key, why in targets:
                other = _find(index, *key)
                if other is not None or (done and key[4] == M + 1):
                    changed |= _offer(index, graph, key, moves, 0, "", f"the certificate of {why}")
            down = [((dag, n, d, variant, M - 1), f"{variant} M={M}, Q non-increasing in M")]
            if variant == "standard":
                down.append(((dag, n, d, "oneshot", M), f"standard M={M}, one-shot Q is not lower"))
            for key, why in down:
                other = _find(index, *key)
                if other is not None and cell["lower"] > other["lower"]:
                    _consistent(other, cell["lower"], f"the lower bound of {why}")
                    other.update(lower=cell["lower"], lower_from=f"from {why}")
                    changed = True


@contextlib.contextmanager
def locked():
    """Hold an exclusive lock on the folder while the index is read, changed and written,
    so runs in parallel processes never lose each other's cells."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    with open(FOLDER / ".lock", "w", encoding="ascii") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run(cases, variants, Ms, time_limit: float, max_bytes: int | None, label: str) -> None:
    """Solve every cell asked for, merge it into the index, tighten, save after each cell."""
    for dag, n, d in cases:
        graph = builders.build(dag, n, d)
        floor = compulsory_io(graph)
        for variant in variants:
            for M in range(graph.min_memory, graph.num_vertices + 1):
                if Ms is not None and M not in Ms:
                    if M > max(Ms):
                        break
                    continue
                result = solve_exact(
                    graph, M, variant=variant, time_limit=time_limit, rules=DEFAULT_RULES,
                    max_states=300_000_000, max_bytes=max_bytes,
                )  # fmt: skip
                where = f"{label}: {result.seconds:.0f} s, {result.states_explored:,} expanded"
                how = "optimum" if result.optimal else "best pebbling"
                with locked():
                    index = load()
                    _offer(index, graph, (dag, n, d, variant, M), result.moves, result.lower,
                           f"search ({where})", f"{how} of the search ({where})")  # fmt: skip
                    tighten(index)
                    save(index)
                cell = _find(index, dag, n, d, variant, M)
                print(f"{cell_name(dag, n, d, variant, M)}: this run {_bounds(result.lower, result.upper)}, "
                      f"recorded {_bounds(cell['lower'], cell['upper'])} ({where})", flush=True)  # fmt: skip
                if result.optimal and result.io == floor:
                    break


def _bounds(lower: int, upper: int) -> str:
    return str(upper) if lower == upper else f"[{lower}, {upper}]"


def render(index: dict) -> str:
    """The Markdown tables of the index, one per DAG: a row per variant, a column per M."""
    out = []
    groups: dict[tuple, list] = {}
    for cell in index["cells"]:
        groups.setdefault((cell["dag"], cell["n"], cell["d"]), []).append(cell)
    for (dag, n, d), cells in sorted(groups.items()):
        graph = builders.build(dag, n, d)
        Ms = sorted({c["M"] for c in cells})
        out.append(f"**{dag} n={n} d={d} (V={graph.num_vertices}, compulsory I/O "
                   f"{compulsory_io(graph)}, automorphism group of order "
                   f"{len(automorphisms(graph))})**\n")  # fmt: skip
        out.append("| M | " + " | ".join(str(M) for M in Ms) + " |")
        out.append("|---|" + "---|" * len(Ms))
        for variant in VARIANTS:
            row = {
                c["M"]: _bounds(c["lower"], c["upper"]) for c in cells if c["variant"] == variant
            }
            out.append(f"| {variant} | " + " | ".join(row.get(M, "-") for M in Ms) + " |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="solve cells and merge them in")
    parser.add_argument("--render", action="store_true", help="print the Markdown tables")
    parser.add_argument("--case", action="append", default=[], metavar="KIND:N:D")
    parser.add_argument("--variant", action="append", choices=VARIANTS)
    parser.add_argument("--m", action="append", type=int, metavar="M")
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--max-bytes", type=int, default=7_000_000_000)
    parser.add_argument(
        "--record",
        action="append",
        default=[],
        metavar="KIND:N:D:VARIANT:M:LOWER:WHERE",
        help="a lower bound an earlier run proved (WHERE names the run, as in BENCHMARKS.md or its git history)",
    )
    parser.add_argument("--label", default="run", help="where the run happened, for lower_from")
    args = parser.parse_args()
    if args.run:
        if not args.case:
            sys.exit("--run needs at least one --case KIND:N:D")
        cases = [(k, int(n), int(d)) for k, n, d in (c.split(":") for c in args.case)]
        run(
            cases,
            tuple(args.variant or VARIANTS),
            args.m,
            args.time_limit,
            args.max_bytes,
            args.label,
        )
    if args.record:
        with locked():
            index = load()
            for spec in args.record:
                record(index, spec)
            tighten(index)
            save(index)
    if args.render:
        print(render(load()))


if __name__ == "__main__":
    main()
