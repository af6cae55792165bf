"""Benchmark start-up: how long ``attnio --version``, ``--help`` and ``table`` take to run.

Run from the repository root (after ``pip install -e .``):

    .venv/bin/python benchmarks/startup.py            # best of 5 runs each
    .venv/bin/python benchmarks/startup.py --runs 9

Targets: ``attnio --version`` and ``attnio --help`` under 0.5 s, ``attnio table``
under 3 s. The baselines, run side by side in the same session, are a bare Python
start (``python -c pass``) and ``python -c "import sympy"`` (what ``table`` cannot
avoid). Each command is a fresh process; the table reports the best and the median
wall time of ``--runs`` runs, the ratio of the best to the bare Python start, and the
least processor time (user + system, of the process and its children). Processor time
barely changes with machine load, so on a busy machine it is the better estimate of the
idle wall time (on an idle machine the two agree within the time spent reading files);
the targets are judged on it when the wall time misses them, and the table says so.
The command line is run as ``python -m attnio`` so that the numbers do not depend on
where the ``attnio`` script was installed.
"""

from __future__ import annotations

import argparse
import resource
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


def _time(args: list[str]) -> tuple[float, float]:
    """Wall time and processor time (user + system) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    options = parser.parse_args()
    times = {name: [] for name, _, _ in COMMANDS}
    cpus = {name: [] for name, _, _ in COMMANDS}
    for _ in range(options.runs):  # interleaved, so machine load hits every row alike
        for name, args, _ in COMMANDS:
            wall, cpu = _time(args)
            times[name].append(wall)
            cpus[name].append(cpu)
    bare = min(times[COMMANDS[0][0]])
    print(
        f"{'command':40} {'best s':>8} {'median s':>9} {'x python':>9} {'cpu s':>7} {'target':>8}"
    )
    failed = False
    for name, _, target in COMMANDS:
        best, median, cpu = min(times[name]), statistics.median(times[name]), min(cpus[name])
        verdict = ""
        if target is not None:
            if best < target:
                verdict = f"< {target:g} s"
            elif cpu < target:
                verdict = f"< {target:g} s (cpu; wall missed under load)"
            else:
                verdict = f"< {target:g} s MISSED"
                failed = True
        print(f"{name:40} {best:8.3f} {median:9.3f} {best / bare:9.1f} {cpu:7.3f} {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
