"""Benchmark: a campaign of 200+ units with 1 and 2 Dask workers, then again from the store.

The spec pebbles four small dense attention DAGs at every M from 3 to 10, in both
variants, with the exact solver (a state limit, not a time limit, so every run does
the same work) and two heuristics, and simulates two algorithms at 18 sizes. It runs
into a fresh store with one local worker, into another with two, and then a second
time into the two-worker store, which must answer every unit from the store. The
baseline is the first run with one worker, in the same session.

Run:  .venv/bin/python benchmarks/campaign.py            (a few minutes on 2 cores)
Targets: the second run takes under 5% of the first; two workers beat one.
"""

from __future__ import annotations

import argparse
import pathlib
import tempfile
import time

from attnio.campaign import Store, read_spec, run_campaign

SPEC = """
[[pebble]]
dag = "attention-forward"
n = [1, 2]
d = [1, 2]
M = "3:10"
variants = ["standard", "oneshot"]
solvers = ["exact", "belady", "lru"]
exact = { max_states = %(states)d }

[[simulate]]
algorithm = ["flash", "square-tiling"]
n = [16, 32, 64]
d = 4
M = [64, 128, 256]
"""


def timed(spec, path: pathlib.Path, workers: int) -> tuple[float, object]:
    """Run ``spec`` into the store at ``path``; return wall seconds (spec read included)."""
    start = time.perf_counter()
    with Store(path) as store:
        outcome = run_campaign(spec, store, workers=workers)
    return time.perf_counter() - start, outcome


def main() -> None:
    """Print one row per run: units, from store, ran, failed, seconds, ratio to the baseline."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=300_000, help="exact solver state limit")
    args = parser.parse_args()
    folder = pathlib.Path(tempfile.mkdtemp(prefix="attnio-campaign-"))
    (folder / "spec.toml").write_text(SPEC % {"states": args.states})
    spec = read_spec(folder / "spec.toml")
    print(f"spec: {len(spec.units)} units; stores in {folder}")
    rows = []
    base, outcome = timed(spec, folder / "one.sqlite", 1)
    rows.append(("1 worker, empty store", outcome, base))
    two, outcome = timed(spec, folder / "two.sqlite", 2)
    rows.append(("2 workers, empty store", outcome, two))
    start = time.perf_counter()
    again_spec = read_spec(folder / "spec.toml")
    again, outcome = timed(again_spec, folder / "two.sqlite", 2)
    again += time.perf_counter() - start - again
    rows.append(("2 workers, second run", outcome, again))
    print(
        f"{'run':<24} {'units':>6} {'store':>6} {'ran':>5} {'failed':>6} {'seconds':>8} {'ratio':>7}"
    )
    for name, o, seconds in rows:
        print(
            f"{name:<24} {o.total:>6} {o.from_store:>6} {o.ran:>5} {o.failed:>6} "
            f"{seconds:>8.1f} {seconds / base:>7.3f}"
        )
    size = (folder / "two.sqlite").stat().st_size
    print(f"store size: {size / 1024:.0f} KiB for {len(spec.units)} results")
    print(f"speed-up of 2 workers over 1: {base / two:.2f}x; second run / first: {again / two:.3%}")


if __name__ == "__main__":
    main()
