"""Benchmark: counting-mode simulation of FlashAttention at n = 65536, d = 128, 16 values of M.

Counting mode executes the schedule (every loop iteration and every transfer on the
two-level machine, without arithmetic); the closed form is evaluated afterwards only
to show the counts agree. The baseline in the same run is NumPy mode (float64
arithmetic) on the same schedule, at a smaller n where it finishes, next to counting
mode at that n.

Run:  .venv/bin/python benchmarks/simulate.py            (about 10 s + 30 s)
      .venv/bin/python benchmarks/simulate.py --numeric-n 2048 --points 16
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from attnio.algorithms.flash import flash_backward, flash_forward
from attnio.algorithms.machine import TwoLevelMachine
from attnio.bounds import get

RUNNERS = {"forward": flash_forward, "backward": flash_backward}


def run_once(pass_: str, n: int, d: int, M: int, numeric: bool, seed: int = 0) -> tuple[int, float]:
    """Run FlashAttention ``pass_`` once; return (I/O, seconds spent executing the schedule)."""
    machine = TwoLevelMachine(M, numeric=numeric, algorithm=f"flash {pass_}")
    rng = np.random.default_rng(seed)
    for name in ("Q", "K", "V", "O", "dO"):
        machine.put(name, rng.standard_normal((n, d)) / d**0.25 if numeric else (n, d))
    machine.put("L", rng.standard_normal((n, 1)) if numeric else (n, 1))
    start = time.perf_counter()
    RUNNERS[pass_](machine, n, d)
    return machine.loads + machine.stores, time.perf_counter() - start


def main() -> None:
    """Print the counting-mode table at large n and the numeric-vs-counting comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=65536)
    parser.add_argument("--d", type=int, default=128)
    parser.add_argument("--points", type=int, default=16)
    parser.add_argument("--lo", type=int, default=2**17, help="smallest M (default 8 d^2)")
    parser.add_argument("--hi", type=int, default=2**23, help="largest M (default n d)")
    parser.add_argument("--numeric-n", type=int, default=2048)
    args = parser.parse_args()
    n, d = args.n, args.d
    memories = sorted({round(float(m)) for m in np.geomspace(args.lo, args.hi, args.points)})

    print(f"FlashAttention counting mode, n = {n}, d = {d}, {len(memories)} values of M")
    print(f"{'M':>9} {'pass':>9} {'I/O (machine)':>16} {'= closed form':>14} {'seconds':>8}")
    total = 0.0
    for M in memories:
        for pass_ in ("forward", "backward"):
            io, seconds = run_once(pass_, n, d, M, numeric=False)
            total += seconds
            closed = int(get(f"flash-{pass_}-count").evaluate(n=n, d=d, M=M))
            print(f"{M:>9} {pass_:>9} {io:>16} {io == closed!s:>14} {seconds:>8.3f}")
    print(f"total counting-mode time for {2 * len(memories)} runs: {total:.2f} s\n")

    small = args.numeric_n
    scale = (n / small) ** 2
    print(f"Same schedule, NumPy mode vs counting mode at n = {small}, d = {d}")
    print(f"(counting: best of 5; last column: NumPy time scaled by (n/{small})^2 to n = {n},")
    print(" an extrapolation, since the work of both modes grows like n^2 at fixed d and M)")
    print(
        f"{'M':>9} {'pass':>9} {'numeric s':>10} {'counting s':>11} {'ratio':>8} "
        f"{'same I/O':>9} {'numeric s at n':>15}"
    )
    for M in (memories[0], memories[len(memories) // 2], memories[-1]):
        for pass_ in ("forward", "backward"):
            io_num, t_num = run_once(pass_, small, d, M, numeric=True)
            counted = [run_once(pass_, small, d, M, numeric=False) for _ in range(5)]
            io_cnt, t_cnt = counted[0][0], min(t for _, t in counted)
            print(
                f"{M:>9} {pass_:>9} {t_num:>10.3f} {t_cnt:>11.5f} {t_num / t_cnt:>8.0f} "
                f"{io_num == io_cnt!s:>9} {t_num * scale:>15.0f}"
            )


if __name__ == "__main__":
    main()
