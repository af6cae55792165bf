"""Benchmark: the tightness table, measured: leading-term ratios and the least C z3 proves.

Run: ``.venv/bin/python benchmarks/tightness.py`` prints the table from the recording;
``--record`` first re-runs the least-C search of every ``tightness/table/*`` obligation
(``attnio prove --only 'tightness/table/*' --json``, minutes on 2 cores) and writes its
outcome to ``proofs/tightness.json``, which ``attnio table --tightness`` reads. The
baseline in the same run: the same counts against the best lower bound the catalog held
before the sharp bounds (``*-lower-large-explicit``, ``*-lower-small-derived``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
from pathlib import Path

import sympy as sp

from attnio.bounds import get
from attnio.proofs.tightness import RECORDING, leading_ratio, render_tightness, rows

BASELINE = {
    ("forward", "large"): "dense-forward-lower-large-explicit",
    ("backward", "large"): "dense-backward-lower-large-explicit",
    ("forward", "small"): "dense-forward-lower-small-derived",
    ("backward", "small"): "dense-backward-lower-small-derived",
}
"""The best derived lower bound of each cell before lower-sharp.md."""


def record(timeout: int | None) -> None:
    command = [
        str(Path(sys.executable).parent / "attnio"),
        "prove",
        "--only",
        "tightness/table/*",
        "--json",
    ]
    if timeout:
        command += ["--timeout", str(timeout)]
    began = datetime.datetime.now(datetime.UTC)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    outcomes = json.loads(done.stdout)["outcomes"]
    entries = {}
    for outcome in outcomes:
        name = outcome["obligation"]
        count = get(name.split("/")[-1])
        if outcome["status"] != "proved":
            print(f"{name}: {outcome['status']} ({outcome['detail']})", file=sys.stderr)
            continue
        found = re.search(r"C = (\d+) refuted", outcome["detail"])
        least = "C is the least" in outcome["detail"]
        constant = int(outcome["constant"])
        entries[name] = {
            "count": sp.srepr(count.explicit),
            "constant": constant,
            "refuted": constant - 1 if least else (int(found.group(1)) if found else None),
            "seconds": outcome["seconds"],
            "detail": outcome["detail"],
        }
    RECORDING.write_text(
        json.dumps(
            {
                "command": " ".join(command[1:]),
                "recorded": began.strftime("%Y-%m-%d"),
                "obligations": entries,
            },
            indent=2,
        )
        + "\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="re-run the z3 search and record it")
    parser.add_argument("--timeout", type=int, help="budget of one z3 call in ms")
    args = parser.parse_args()
    if args.record:
        record(args.timeout)
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
