"""Benchmark: the tightness table, measured: leading-term ratios and the least C z3 proves.

Run: ``.venv/bin/python benchmarks/tightness.py`` prints the table from the recorded
constant searches (``proofs/constants.json``, written by ``benchmarks/constants.py
--record``, which ``attnio table --tightness`` reads too). The baseline in the same run:
the same counts against the best lower bound the catalog held before the sharp bounds
(``*-lower-large-explicit``, ``*-lower-small-derived``).
"""

from __future__ import annotations

import argparse

import sympy as sp

from attnio.proofs.tightness import leading_ratio, render_tightness, rows

BASELINE = {
    ("forward", "large"): "dense-forward-lower-large-explicit",
    ("backward", "large"): "dense-backward-lower-large-explicit",
    ("forward", "small"): "dense-forward-lower-small-derived",
    ("backward", "small"): "dense-backward-lower-small-derived",
}
"""The best derived lower bound of each cell before lower-sharp.md."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    table = rows()
    print(render_tightness(table))
    print("baseline: the same counts against the cell's best derived bound before the sharp ones")
    print("| cell | algorithm | against | ratio of leading terms | improvement |")
    print("|---|---|---|---|---|")
    for r in table:
        base = BASELINE[r.pass_, r.cache]
        before = leading_ratio(r.count, base, r.cache)
        gain = sp.simplify(before / r.ratio)
        print(
            f"| {r.pass_}, {r.cache} | {r.algorithm} | {base} | {sp.sstr(before)} | {sp.sstr(gain)} |"
        )


if __name__ == "__main__":
    main()
