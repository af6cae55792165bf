"""Benchmark: how far the causal and window schedules are from the best derived lower bound.

Run: ``.venv/bin/python benchmarks/masks.py`` prints, at n = 65536, d in {64, 128, 256}
and M in {d^2/16, d^2, 16 d^2}, for the causal mask and the window of width w = 1024,
forward and backward: the least exact count of attnio's schedules of that mask family
(records with ``mask`` = the family, evaluated where their conditions hold), which record
it is, its ratio to the best derived lower bound that applies at the family's Z and w and
at M + c, c the red pebbles beyond M of the schedule's pebbling
(:func:`attnio.bounds.window.lower_for`: the causal mask's pair bounds of
``proofs/derivations/causal-lower.md`` where they apply, else ``sparse-*-compulsory``), and
beside it the baseline: its ratio to ``sparse-*-compulsory`` alone, the only derived
sparse lower bound before. A cell with no applicable schedule (the small cache, below the
row-streaming schedules' least memory) prints ``-``.
"""

from __future__ import annotations

import sympy as sp

from attnio.bounds import catalog, get
from attnio.bounds.masks import make_mask
from attnio.bounds.window import Standing, lower_for

N = 65536
DIMENSIONS = (64, 128, 256)
WIDTH = 1024


def memories(d: int) -> tuple[int, ...]:
    """The cache sizes of a row: d^2/16, d^2 and 16 d^2."""
    return (d * d // 16, d * d, 16 * d * d)


def best(family: str, pass_: str, point: dict) -> tuple[str, int] | None:
    """(record, value) of the least count of ``family``'s schedules at ``point``, if any."""
    found = []
    for record in catalog(regime="sparse", pass_=pass_, kind="upper"):
        if record.mask != family or record.explicit is None:
            continue
        used = {k: v for k, v in point.items() if k in record.parameters}
        if record.applies(**used):
            found.append((int(record.evaluate(**used)), record.name))
    return None if not found else min(found)[::-1]


def main() -> None:
    """Print the table."""
    print(f"n = {N}; window w = {WIDTH}; ratio = best count / best derived lower bound "
          "(baseline: / sparse-*-compulsory) at the mask's Z")  # fmt: skip
    print(f"{'mask':<8} {'pass':<9} {'d':>4} {'M':>8}  {'ratio':>9}  {'baseline':>9}  "
          "best record, best lower bound")  # fmt: skip
    for family, width in (("causal", None), ("window", WIDTH)):
        mask = make_mask(family, N, w=width)
        for pass_ in ("forward", "backward"):
            compulsory = get(f"sparse-{pass_}-compulsory")
            for d in DIMENSIONS:
                for M in memories(d):
                    point = {"n": N, "d": d, "M": M, **mask.point()}
                    baseline = compulsory.evaluate(n=N, d=d, Z=point["Z"])
                    found = best(family, pass_, point)
                    if found is None:
                        print(f"{family:<8} {pass_:<9} {d:>4} {M:>8}  {'-':>9}  {'-':>9}  "
                              "none applies")  # fmt: skip
                        continue
                    name, value = found
                    count = Standing(name, "derived", sp.Integer(value), get(name).algorithm)
                    lower, _ = lower_for(count, "sparse", pass_, point, mask=family)
                    ratio, against = float(value / lower.value), float(value / baseline)
                    print(f"{family:<8} {pass_:<9} {d:>4} {M:>8}  {ratio:>9.2f}  {against:>9.2f}  "
                          f"{name}, {lower.record}")  # fmt: skip


if __name__ == "__main__":
    main()
