"""Benchmark: the tightness table, measured: leading-term ratios and the least C z3 proves.

Run: ``.venv/bin/python benchmarks/tightness.py`` prints the table from the recorded
constant searches (``proofs/constants.json``, written by ``benchmarks/constants.py
--record``, which ``attnio table --tightness`` reads too). The baseline in the same run:
the same counts against the best lower bound the catalog held before the sharp bounds
(``*-lower-large-explicit``, ``*-lower-small-derived``).

``--grid`` samples, for every row, count / max(every derived explicit lower bound of the
cell) over d in {4, ..., 256}, n from d to 10^6 and M below d^2 (small cache) or from d^2
to 1024 d^2 (large cache), at least four times the count's least M as for the z3
constants: where the least grid constant sits, whatever z3 can prove. Beside it, the
baseline in the same run: the same peaks without the corner records of
``proofs/derivations/lower-segments.md`` (sections 3b and 3c); and the peak at each d.
"""

from __future__ import annotations

import argparse

import sympy as sp

from attnio.bounds import catalog, get
from attnio.proofs.generate import OUT_OF_CONSTANTS
from attnio.proofs.tightness import leading_ratio, render_tightness, rows

BASELINE = {
    ("forward", "large"): "dense-forward-lower-large-explicit",
    ("backward", "large"): "dense-backward-lower-large-explicit",
    ("forward", "small"): "dense-forward-lower-small-derived",
    ("backward", "small"): "dense-backward-lower-small-derived",
}
"""The best derived lower bound of each cell before lower-sharp.md."""


DEGREES = (4, 8, 16, 32, 64, 128, 256)
"""The head dimensions the grid samples."""

CORNER = OUT_OF_CONSTANTS
"""The corner records of lower-segments.md (sections 3b and 3c), left out for the baseline."""


def _grid_peaks(count: str, pass_: str, cache: str, left_out=()) -> dict[int, tuple[float, dict]]:
    """Per d, the largest sampled count / max(derived lower bounds but ``left_out``) in one
    cell, with the point where it is reached."""
    record = get(count)
    lowers = [
        b
        for b in catalog(regime="dense", pass_=pass_, kind="lower")
        if b.status.value == "derived"
        and b.explicit is not None
        and b.cache.value in (cache, "any")
        and b.name not in left_out
    ]
    peaks: dict[int, tuple[float, dict]] = {}
    for d in DEGREES:
        peak: tuple[float, dict] = (0.0, {})
        for n in sorted({d, 2 * d, 4 * d, 16 * d, 64 * d, 1024 * d, 10**6}):
            if cache == "small":
                fractions = (0.001, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99)
                memories = {int(d * d * f) for f in fractions} | {d * d - 1}
            else:
                memories = {int(d * d * f) for f in (1, 1.1, 1.5, 2, 4, 16, 64, 256, 1024)}
            for M in sorted(memories):
                at = {"n": n, "d": d, "M": M}
                if M < 1 or not (record.applies(**at) and record.applies(n=n, d=d, M=M // 4 or 1)):
                    continue
                lower = max(float(b.evaluate(**at)) for b in lowers if b.applies(**at))
                ratio = float(record.evaluate(**at)) / lower
                if ratio > peak[0]:
                    peak = (ratio, at)
        if peak[1]:
            peaks[d] = peak
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", action="store_true", help="sampled grid peaks, every cell")
    if parser.parse_args().grid:
        _grid()
        return
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
