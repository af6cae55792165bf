"""Benchmark: ``attnio check`` on claims of known truth, as a confusion table.

Run from the repository root::

    python benchmarks/claims.py                       # this tree
    python benchmarks/claims.py --before 424a4fd      # and the tree at that commit, same run

Every ``benchmarks/claims/*.toml`` file holds claims in the format ``attnio check`` reads,
each with ``notes = "true: why"`` or ``notes = "false: why"``: its truth, known from the
literature (the catalog's stated records), from attnio's derived records and exact counts,
or from a perturbation of one of them (a constant off by 2, an exponent off by one, a
condition dropped) with the reason it is false. The script runs ``attnio check --json`` on
each file, in a fresh process per file (``--jobs`` at a time), and prints per tree::

    true claims:  proved / consistent / unknown / refuted
    false claims: refuted / consistent / unknown / proved

``proved`` counts the verdicts ``proved`` and ``implied-by-catalog``; ``consistent`` counts
``consistent-with-catalog`` and ``consistent``. The two error cells (a true claim refuted,
a false claim proved) must be 0: the script exits 1 if either is not, in this tree.
``--before REV`` also checks the tree of commit REV (``git archive``, imported through a
package directory of links, so nothing is installed), in the same run, for a before/after
comparison.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "benchmarks" / "claims"

PROVED = ("proved", "implied-by-catalog")
CONSISTENT = ("consistent-with-catalog", "consistent")


def truths(path: Path) -> dict[str, bool]:
    """Each claim's name -> its truth, read from its ``notes`` (``true: ...``/``false: ...``).

    Raises
    ------
    ValueError
        If a claim's notes state no truth.
    """
    found = {}
    for table in tomllib.loads(path.read_text(encoding="utf-8"))["bound"]:
        label = table.get("notes", "").split(":", 1)[0].strip().lower()
        if label not in ("true", "false"):
            raise ValueError(
                f"{path.name}: claim {table['name']!r}: notes = {table.get('notes')!r} must "
                "start with 'true:' or 'false:'"
            )
        found[table["name"]] = label == "true"
    return found


def _tree(rev: str, folder: Path) -> Path:
    """The source tree of commit ``rev`` under ``folder``, importable as ``attnio``: the
    package directory links each subpackage to its folder (pyproject's package-dir)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True
    ).stdout
    source = folder / "source"
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(source, filter="data")
    setup = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))
    package_dir = setup["tool"]["setuptools"]["package-dir"]
    top = folder / "packages" / "attnio"
    top.mkdir(parents=True)
    for entry in (source / package_dir["attnio"]).iterdir():
        (top / entry.name).symlink_to(entry)
    for name, where in package_dir.items():
        if name != "attnio":
            (top / name.split(".", 1)[1]).symlink_to(source / where)
    return folder / "packages"


def _run(path: Path, pythonpath: str | None, cwd: str) -> tuple[dict[str, str], float]:
    """``attnio check --json`` on one file in a fresh process, from ``cwd`` (not the
    repository root, whose ``attnio`` folder would shadow the tree under test)."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "attnio", "check", "--json", str(path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"attnio check {path.name} exited {done.returncode}: {done.stderr}")
    results = json.loads(done.stdout)["results"]
    return {r["name"]: r["verdict"] for r in results}, time.perf_counter() - start


def _table(label: str, verdicts: dict[str, str], truth: dict[str, bool], seconds: float) -> int:
    """Print the confusion table; return the number of wrong verdicts."""
    rows = {True: dict.fromkeys(("proved", "consistent", "unknown", "refuted"), 0),
            False: dict.fromkeys(("refuted", "consistent", "unknown", "proved"), 0)}  # fmt: skip
    for name, verdict in verdicts.items():
        cell = ("proved" if verdict in PROVED else "consistent" if verdict in CONSISTENT
                else verdict)  # fmt: skip
        rows[truth[name]][cell] += 1
    wrong = rows[True]["refuted"] + rows[False]["proved"]
    print(f"\n{label}: {len(verdicts)} claims, {seconds:.0f} s of attnio check")
    print("| claims | proved | consistent | unknown | refuted | decided |")
    print("|---|---:|---:|---:|---:|---:|")
    for value, name in ((True, "true"), (False, "false")):
        row = rows[value]
        total = sum(row.values())
        decided = row["proved"] if value else row["refuted"]
        print(f"| {name} ({total}) | {row['proved']} | {row['consistent']} | {row['unknown']} | "
              f"{row['refuted']} | {100 * decided / max(total, 1):.0f}% |")  # fmt: skip
    bad = [f"{n} ({v})" for n, v in sorted(verdicts.items())
           if (truth[n] and v == "refuted") or (not truth[n] and v in PROVED)]  # fmt: skip
    if bad:
        print("WRONG: " + ", ".join(bad))
    return wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REV", help="also check the tree of commit REV")
    parser.add_argument("--jobs", type=int, default=2, help="attnio check processes (2)")
    parser.add_argument("--verbose", action="store_true", help="print each claim's verdicts")
    args = parser.parse_args()
    files = sorted(CLAIMS.glob("*.toml"))
    truth: dict[str, bool] = {}
    for path in files:
        truth.update(truths(path))
    with tempfile.TemporaryDirectory() as folder:
        trees: list[tuple[str, str | None]] = [("after (this tree)", None)]
        if args.before:
            trees.append((f"before ({args.before})", str(_tree(args.before, Path(folder)))))
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {
                (label, path): pool.submit(_run, path, pythonpath, folder)
                for label, pythonpath in trees
                for path in files
            }
            outcome = {key: future.result() for key, future in futures.items()}
    print(f"{len(truth)} claims ({sum(truth.values())} true) in {len(files)} files")
    wrong = {}
    verdicts_of = {}
    for label, _ in reversed(trees):
        verdicts = {}
        seconds = 0.0
        for path in files:
            found, spent = outcome[(label, path)]
            verdicts.update(found)
            seconds += spent
        verdicts_of[label] = verdicts
        wrong[label] = _table(label, verdicts, truth, seconds)
    if args.verbose:
        print("\n| claim | truth | " + " | ".join(label for label, _ in reversed(trees)) + " |")
        print("|---|---|" + "---|" * len(trees))
        for name in truth:
            shown = " | ".join(verdicts_of[label][name] for label, _ in reversed(trees))
            print(f"| {name} | {truth[name]} | {shown} |")
    return 1 if wrong["after (this tree)"] else 0


if __name__ == "__main__":
    sys.exit(main())
