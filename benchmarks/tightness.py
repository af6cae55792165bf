"""Benchmark: the tightness table, measured: leading-term ratios and the least C z3 proves.

Run: ``.venv/bin/python benchmarks/tightness.py`` prints the table from the recorded
constant searches (``proofs/constants.json``, written by ``benchmarks/constants.py
--record``, which ``attnio table --tightness`` reads too). The baseline in the same run:
the same counts against the best lower bound the catalog held before the sharp bounds
(``*-lower-large-explicit``, ``*-lower-small-derived``). Every ratio reads the lower
bound at M + c, c the red pebbles beyond M of the schedule's pebbling
(:data:`attnio.bounds.pebblings.EXTRA_RED`); the ``--grid`` peaks are those of the z3
constants and read every bound at M, as the constants do.

``--grid`` samples, for every row, count / max(every derived explicit lower bound of the
cell) for d in {1, 2, 4, ..., 256}, over the z3 constants' region (the cell, n >= d, M
at least four times the count's least M), with the constant searches' sampler (a grid,
then a local search; every peak re-evaluated exactly at an integer point): where the
least constant against today's bounds sits, whatever z3 can prove. Beside it, the
baseline in the same run: the same peaks without the corner records of
``proofs/derivations/lower-segments.md`` (sections 3b and 3c); and the peak at each d.

``--corner`` prints the dense corner table of issue 38: at n = 2^20, d in {64, 128} and
M / d^2 in {1/16, 1/4, 1/2, 1, 2, 4, 8, 16, 64}, the best derived exact count over the
best derived lower bound (:func:`attnio.proofs.gap.measure_gap`, what ``attnio gap``
prints), forward and backward, then which count and which bound are the best at each
point (d = 64). Counts are exact closed forms the two-level machine reproduces; no
timing, no assertion.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import sympy as sp

from attnio.bounds import get
from attnio.bounds.symbols import d
from attnio.proofs.gap import measure_gap
from attnio.proofs.generate import CONSTANT, OUT_OF_CONSTANTS, full_table
from attnio.proofs.sampling import largest_ratio
from attnio.proofs.tightness import leading_ratio, render_tightness, rows

BASELINE = {
    ("forward", "large"): "dense-forward-lower-large-explicit",
    ("backward", "large"): "dense-backward-lower-large-explicit",
    ("forward", "small"): "dense-forward-lower-small-derived",
    ("backward", "small"): "dense-backward-lower-small-derived",
}
"""The best derived lower bound of each cell before lower-sharp.md."""


DEGREES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
"""The head dimensions the grid samples."""

CORNER = OUT_OF_CONSTANTS
"""The corner records of lower-segments.md (sections 3b and 3c), left out for the baseline."""


def _grid_peaks(count: str, pass_: str, cache: str, left_out=()) -> dict[int, tuple[float, dict]]:
    """Per d, the largest sampled count / max(derived lower bounds but ``left_out``) in one
    cell, with the point where it is reached.

    The claim and region are the row's ``tightness/full/*`` obligation's (the cell, n >= d,
    M at least four times the count's least M; every derived bound of the cell) with d
    fixed and the records of ``left_out`` dropped; the search is
    :func:`attnio.proofs.sampling.largest_ratio` (a grid, then a local search from its
    largest ratios), and the peak is its exact ratio at an integer point.
    """
    row = next(o for o in full_table() if o.name.endswith(f"/{pass_}/{cache}/{count}"))
    lower = sp.Max(*(get(name).explicit for name in row.sources[1:] if name not in left_out))
    claim = sp.Le(row.claim.lhs, CONSTANT * lower, evaluate=False)
    peaks: dict[int, tuple[float, dict]] = {}
    for degree in DEGREES:
        fixed = replace(row, claim=claim, assumptions=(*row.assumptions, sp.Eq(d, degree)))
        found = largest_ratio(fixed)
        if found is not None:
            peaks[degree] = (float(found[0]), found[1])
    return peaks


def _grid() -> None:
    print(
        "| cell | algorithm | peak, every derived bound | where "
        "| peak without the corner records (baseline) |"
    )
    print("|---|---|---|---|---|")
    by_d = []
    for r in rows():
        every = _grid_peaks(r.count, r.pass_, r.cache)
        before = _grid_peaks(r.count, r.pass_, r.cache, CORNER)
        ratio, where = max(every.values(), key=lambda peak: peak[0])
        old = max(peak for peak, _ in before.values())
        print(f"| {r.pass_}, {r.cache} | {r.algorithm} | {ratio:.2f} | {where} | {old:.2f} |")
        by_d.append((r, every))
    print()
    print("| cell | algorithm | " + " | ".join(f"d = {d}" for d in DEGREES) + " |")
    print("|---|---|" + "---:|" * len(DEGREES))
    for r, every in by_d:
        cells = [f"{every[d][0]:.2f}" if d in every else "-" for d in DEGREES]
        print(f"| {r.pass_}, {r.cache} | {r.algorithm} | " + " | ".join(cells) + " |")


CORNER_N = 2**20
"""The sequence length of the corner table (issue 38)."""

CORNER_DEGREES = (64, 128)
"""The head dimensions of the corner table."""

CORNER_FRACTIONS = ((1, 16), (1, 4), (1, 2), (1, 1), (2, 1), (4, 1), (8, 1), (16, 1), (64, 1))
"""M / d^2 at the corner table's columns, as (numerator, denominator)."""


def _fraction(num: int, den: int) -> str:
    return f"{num}/{den}" if den > 1 else str(num)


def _corner() -> None:
    """Print the corner table: best count / best derived lower bound at each point."""
    head = " | ".join(_fraction(*f) for f in CORNER_FRACTIONS)
    print("n = 2^20; best derived count / best derived lower bound (attnio gap)")
    print(f"| pass, d | M / d^2 = {head} |")
    print("|---|" + "---:|" * len(CORNER_FRACTIONS))
    best: dict[str, list[tuple[str, str]]] = {}
    for pass_ in ("forward", "backward"):
        for degree in CORNER_DEGREES:
            cells = []
            for num, den in CORNER_FRACTIONS:
                point = {"n": CORNER_N, "d": degree, "M": degree * degree * num // den}
                gap = measure_gap("dense", pass_, point, constant=False)
                cells.append(f"{float(gap.ratio):.2f}")
                if degree == CORNER_DEGREES[0]:
                    best.setdefault(pass_, []).append((gap.upper.record, gap.lower.record))
            print(f"| {pass_}, d = {degree} | " + " | ".join(cells) + " |")
    print()
    print(f"best count and best derived lower bound at d = {CORNER_DEGREES[0]}")
    print("| pass | M / d^2 | count | lower bound |")
    print("|---|---|---|---|")
    for pass_, pairs in best.items():
        for (num, den), (upper, lower) in zip(CORNER_FRACTIONS, pairs, strict=True):
            print(f"| {pass_} | {_fraction(num, den)} | {upper} | {lower} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", action="store_true", help="sampled grid peaks, every cell")
    parser.add_argument(
        "--corner", action="store_true", help="the dense corner table (n = 2^20, M ~ d^2)"
    )
    args = parser.parse_args()
    if args.grid:
        _grid()
        return
    if args.corner:
        _corner()
        return
    table = rows()
    print(render_tightness(table))
    print("baseline: the same counts against the cell's best derived bound before the sharp ones")
    print("| cell | algorithm | against | ratio of leading terms | improvement |")
    print("|---|---|---|---|---|")
    for r in table:
        base = BASELINE[r.pass_, r.cache]
        before = leading_ratio(r.count, base, r.cache, r.extra_red or 0)
        gain = sp.simplify(before / r.ratio)
        print(
            f"| {r.pass_}, {r.cache} | {r.algorithm} | {base} | {sp.sstr(before)} | {sp.sstr(gain)} |"
        )


if __name__ == "__main__":
    main()
