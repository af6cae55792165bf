"""Table: best derived count over best derived lower bound at the shapes people run.

For each target point (decode, chunked prefill, MQA with a small cache, a GQA backward, an
MHA small-cache backward) and each pass, the best exact count of an attnio schedule that
runs there (derived; the two-level machine reproduces it) and the best derived lower bound
(today the shape compulsory I/O only), read from the catalog by
:func:`attnio.bounds.window.find_window` and, at M + c for a schedule whose pebbling uses
c red pebbles beyond M, :func:`attnio.bounds.window.lower_for`, exactly as ``attnio gap``
does. Where no schedule
runs (M too small for its blocks) the row says so.

A second table gives every shape schedule's count over the best count at each point
(which schedule wins where, and by how much the others lose). A third does the same as
the first for approximate attention (the polynomial method at degree
2, n = 65536, d in {16, 32}, M in {4096, 16384, 65536}: the points of the approximate
regime's issue), with the baseline in the same run: the feature-blocked ``low-rank``
schedule's count alone, as before the column-blocked ``low-rank-columns`` schedule.

Run:  .venv/bin/python benchmarks/shapes.py        (a few seconds)
Targets (stretch): count / lower <= 2 forward and <= 4 backward at the shapes; <= 4 at the
approximate points, forward and backward.
"""

from __future__ import annotations

from attnio.bounds import catalog
from attnio.bounds.symbols import feature_rank
from attnio.bounds.window import find_window, lower_for, numeric

POINTS = (
    ("decode", dict(n_q=1, n_kv=65536, h_q=32, h_kv=8, d=128, M=65536)),
    ("chunked prefill", dict(n_q=4096, n_kv=65536, h_q=32, h_kv=8, d=128, M=65536)),
    ("MQA, small cache", dict(n_q=8192, n_kv=8192, h_q=32, h_kv=1, d=128, M=4096)),
    ("GQA", dict(n_q=4096, n_kv=4096, h_q=32, h_kv=8, d=128, M=65536)),
    ("MHA, small cache", dict(n_q=8192, n_kv=8192, h_q=16, h_kv=16, d=64, M=1024)),
)
"""The five target points; d = 128 and M = 65536 where the targets leave them open."""


def main() -> None:
    """Print one row per point and pass."""
    print(f"{'point':18} {'pass':8} {'best count':>16} {'best lower':>14} {'ratio':>9}  schedule")
    for name, point in POINTS:
        for pass_ in ("forward", "backward"):
            window = find_window("dense", pass_, point)
            lower, upper = window.lower, window.upper
            if upper is None:
                print(f"{name:18} {pass_:8} {'none runs':>16} {int(lower.value):>14,}")
                continue
            lower, _ = lower_for(upper, "dense", pass_, point)
            ratio = float(numeric(upper.value / lower.value))
            print(
                f"{name:18} {pass_:8} {int(upper.value):>16,} {int(lower.value):>14,} "
                f"{ratio:>9.4g}  {upper.algorithm} over {lower.record}"
            )
    print("lower bounds: shape-*-compulsory and shape-*-lower-*-sharp (shape-lower.md)")
    print()
    schedules()
    print()
    approximate()


def schedules() -> None:
    """Print, per point and pass, every shape schedule's count over the best count there
    (1 marks the best; '--' a schedule whose blocks do not fit M): which schedule wins
    where, and by how much the others lose."""
    rows = []
    for name, point in POINTS:
        for pass_ in ("forward", "backward"):
            window = find_window("dense", pass_, point)
            best = window.upper
            ratios = {s.algorithm: float(numeric(s.value / best.value)) for s in window.counts}
            rows.append((name, pass_, ratios))
    names = sorted({a for _, _, ratios in rows for a in ratios})
    print("each schedule's count over the best count at the point")
    print(f"{'point':18} {'pass':8} " + " ".join(f"{a:>21}" for a in names))
    for name, pass_, ratios in rows:
        cells = (f"{ratios[a]:>21.4g}" if a in ratios else f"{'--':>21}" for a in names)
        print(f"{name:18} {pass_:8} " + " ".join(cells))


APPROXIMATE_POINTS = tuple(
    dict(n=65536, d=d, M=M, r=int(feature_rank(d, 2)))
    for d in (16, 32)
    for M in (4096, 16384, 65536)
)
"""The approximate regime's target points: degree 2 (r = C(d + 2, 2))."""


def approximate() -> None:
    """Print one row per approximate point and pass, with the feature-blocked baseline."""
    print("approximate attention, polynomial method, degree 2, n = 65536")
    print(f"{'d':>3} {'M':>6} {'pass':8} {'best count':>14} {'best lower':>12} {'ratio':>7} "
          f"{'low-rank only':>14}  schedule")  # fmt: skip
    for point in APPROXIMATE_POINTS:
        for pass_ in ("forward", "backward"):
            window = find_window("approximate", pass_, point)
            upper = window.upper
            lower, _ = lower_for(upper, "approximate", pass_, point)
            ratio = float(numeric(upper.value / lower.value))
            old = [
                b for b in catalog(regime="approximate", pass_=pass_)
                if b.algorithm != "low-rank-columns"
            ]  # fmt: skip
            base = find_window("approximate", pass_, point, records=old).upper
            before = float(
                numeric(base.value / lower_for(base, "approximate", pass_, point)[0].value)
            )
            print(
                f"{point['d']:>3} {point['M']:>6} {pass_:8} {int(upper.value):>14,} "
                f"{int(lower.value):>12,} {ratio:>7.3g} {before:>14.3g}  "
                f"{upper.algorithm} over {lower.record}"
            )


if __name__ == "__main__":
    main()
