"""Benchmark start-up: how long ``attnio --version``, ``--help`` and ``table`` take to run.

Run from the repository root (after ``pip install -e .``):

    .venv/bin/python benchmarks/startup.py            # best of 5 runs each
    .venv/bin/python benchmarks/startup.py --runs 9

Targets: ``attnio --version`` and ``attnio --help`` under 0.5 s, ``attnio table``
under 3 s. The baselines, run side by side in the same session, are a bare Python
start (``python -c pass``) and ``python -c "import sympy"`` (what ``table`` cannot
avoid). Each command is a fresh process; the table reports the best and the median
wall time of ``--runs`` runs and the ratio of the best to the bare Python start.
The command line is run as ``python -m attnio`` so that the numbers do not depend on
where the ``attnio`` script was installed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = (
    ("python -c pass (baseline)", ["-c", "pass"], None),
    ('python -c "import sympy" (baseline)', ["-c", "import sympy"], None),
    ("attnio --version", ["-m", "attnio", "--version"], 0.5),
    ("attnio --help", ["-m", "attnio", "--help"], 0.5),
    ("attnio pebble --help", ["-m", "attnio", "pebble", "--help"], None),
    ("attnio table", ["-m", "attnio", "table"], 3.0),
)


def _time(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    options = parser.parse_args()
    times = {name: [] for name, _, _ in COMMANDS}
    for _ in range(options.runs):  # interleaved, so machine load hits every row alike
        for name, args, _ in COMMANDS:
            times[name].append(_time(args))
    bare = min(times[COMMANDS[0][0]])
    print(f"{'command':40} {'best s':>8} {'median s':>9} {'x python':>9} {'target':>8}")
    failed = False
    for name, _, target in COMMANDS:
        best, median = min(times[name]), statistics.median(times[name])
        verdict = ""
        if target is not None:
            verdict = f"< {target:g} s" + ("" if best < target else " MISSED")
            failed |= best >= target
        print(f"{name:40} {best:8.3f} {median:9.3f} {best / bare:9.1f} {verdict:>8}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
