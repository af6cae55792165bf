"""Table: how far the part lemmas of the dense derivations are checked on every vertex set.

For every graph the derivations name (``attnio.pebble.lemmas.KINDS``: the seven dense
forward graphs and the FlashAttention-2 backward graph), every size (n, d) given, both tree
shapes and every key block size 1..n, and every part lemma of :data:`LEMMAS`
(``dp-tree`` backward only), z3 decides whether some vertex set V with some dominator set D
violates the lemma (:func:`attnio.pebble.lemmas.check`; a model is re-evaluated in plain
Python before it is reported). Each check is printed as it ends (one JSON line with
``--jsonl``); the coverage table at the end gives, per lemma, graph and pass, the sizes
where every variant holds, those left unknown at the resource limit, and the seconds.

Run:  .venv/bin/python benchmarks/lemmas.py                       (n <= 2, d <= 2; about 1 min)

The coverage the derivations state (2026-11-27, on a shared two-core machine; the seconds
are the script's total, or for the first line the z3 seconds of its checks; every check
"holds"):

      .venv/bin/python benchmarks/lemmas.py --sizes 1x1,1x2,2x1,2x2,1x3,3x1,2x3,3x2,4x1,3x3
          every lemma, 1300 checks, 293 s
      .venv/bin/python benchmarks/lemmas.py --sizes 4x2,5x1,4x3,5x2 \
          --lemmas pair-chain,accumulator,score-tree,dp-tree         536 checks, 246 s
      ... --sizes 6x1,5x3,4x4 (same lemmas)                          438 checks, 538 s
      ... --sizes 1x4,2x4,3x4 (same lemmas)                          222 checks, 52 s

The two counting lemmas (per-part, touched-pairs) end unknown at the default rlimit from
n = 4, d = 2 on (about 20 s each).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict

from attnio.pebble.lemmas import KINDS, LEMMAS, Structure, check, graphs


def main(argv: list[str] | None = None) -> None:
    """Run the sweep and print the coverage table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1x1,1x2,2x1,2x2", help="n x d pairs, comma-separated")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--lemmas", default=",".join(LEMMAS))
    parser.add_argument("--rlimit", type=int, default=20_000_000, help="z3 rlimit per check")
    parser.add_argument("--jsonl", action="store_true", help="one JSON line per check")
    args = parser.parse_args(argv)
    sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",")]
    lemmas = args.lemmas.split(",")
    table: dict[tuple[str, str, str], dict] = defaultdict(
        lambda: {"holds": [], "unknown": [], "fails": [], "seconds": 0.0, "vertices": 0}
    )
    start = time.perf_counter()
    for n, d in sizes:
        for kind in args.kinds.split(","):
            for label, dag in graphs(kind, n, d):
                s = Structure.of(dag)
                pass_ = "backward" if s.backward else "forward"
                for lemma in lemmas:
                    if lemma == "dp-tree" and not s.backward:
                        continue
                    result = check(s, lemma, rlimit=args.rlimit)
                    cell = table[lemma, kind, pass_]
                    cell[result.status].append((n, d, label))
                    cell["seconds"] += result.seconds
                    cell["vertices"] = max(cell["vertices"], dag.num_vertices)
                    if args.jsonl:
                        row = dict(kind=kind, n=n, d=d, variant=label, lemma=lemma)
                        row |= dict(vertices=dag.num_vertices, status=result.status)
                        print(json.dumps(row | {"seconds": round(result.seconds, 3)}), flush=True)
                    if result.status == "fails":
                        print(
                            f"FAILS {lemma} {kind} n={n} d={d} {label}: V={sorted(result.part)}"
                            f" D={sorted(result.dominators)}",
                            file=sys.stderr,
                            flush=True,
                        )
    print(
        f"\n{'lemma':14} {'graph':19} {'pass':8} {'every variant holds at (n, d)':34} "
        f"{'unknown':18} {'fails':8} {'max V':>6} {'seconds':>8}"
    )
    for (lemma, kind, pass_), cell in table.items():
        bad = {(n, d) for n, d, _ in cell["unknown"] + cell["fails"]}
        good = sorted({(n, d) for n, d, _ in cell["holds"]} - bad)
        unknown = sorted({(n, d) for n, d, _ in cell["unknown"]})
        fails = sorted({(n, d) for n, d, _ in cell["fails"]})
        show = lambda xs: " ".join(f"{n}x{d}" for n, d in xs) or "-"  # noqa: E731
        print(
            f"{lemma:14} {kind:19} {pass_:8} {show(good):34} {show(unknown):18} "
            f"{show(fails):8} {cell['vertices']:>6} {cell['seconds']:>8.1f}"
        )
    print(f"\ntotal {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
