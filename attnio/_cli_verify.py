"""``attnio verify``: the main job. Runs every package's checks and prints a summary.

Each package contributes a module with a ``CHECKS`` tuple of callables that
return ``(passed, detail)``; ``passed`` is ``True``, ``False`` or ``None``
(skipped: nothing to check). Exit code 0 when no check failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import json
import sys
import time

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

SUITES = (
    "attnio.bounds.consistency",
    "attnio.pebble.verification",
    "attnio.algorithms.verification",
    "attnio.proofs.verification",
)
"""Modules whose ``CHECKS`` ``attnio verify`` runs, in order."""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``attnio verify``."""
    parser = subparsers.add_parser(
        "verify",
        help="check the catalog, pebblings, algorithms and proofs against each other",
        description="Run every consistency check of attnio and print a summary table. "
        "Exits 1 if any check fails.",
    )
    parser.add_argument(
        "--only", metavar="PATTERN", help="run only the checks whose name matches this glob"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(run=run)


def collect(pattern: str | None = None) -> list[tuple[str, object]]:
    """Return ``(suite, check)`` pairs of every registered check matching ``pattern``."""
    found = []
    for suite in SUITES:
        module = importlib.import_module(suite)
        short = suite.split(".")[1]
        for check in module.CHECKS:
            name = f"{short}.{check.__name__.removeprefix('check_')}"
            if pattern is None or fnmatch.fnmatch(name, pattern):
                found.append((name, check))
    if not found:
        raise ValueError(f"--only={pattern!r} matches no check")
    return found


def _title(check: object) -> str:
    doc = (getattr(check, "__doc__", None) or "").strip()
    return doc.splitlines()[0] if doc else ""


def run(args: argparse.Namespace) -> int:
    """Run the checks with a progress bar on stderr and a summary on stdout."""
    checks = collect(args.only)
    results = []
    err = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=args.json or not err.is_terminal,
    ) as progress:
        task = progress.add_task("verify", total=len(checks))
        for name, check in checks:
            progress.update(task, description=name)
            start = time.perf_counter()
            try:
                passed, detail = check()
            except Exception as error:  # a crashing check is a failed check, reported as such
                passed, detail = False, f"raised {type(error).__name__}: {error}"
            results.append(
                {
                    "check": name,
                    "title": _title(check),
                    "passed": passed,
                    "detail": detail,
                    "seconds": round(time.perf_counter() - start, 3),
                }
            )
            progress.advance(task)
    failed = [r for r in results if r["passed"] is False]
    if args.json:
        json.dump({"results": results, "failed": len(failed)}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(results)
    return 1 if failed else 0


def _print_table(results: list[dict]) -> None:
    console = Console(width=max(Console().width, 140))
    table = Table(title="attnio verify", show_lines=False)
    table.add_column("check", no_wrap=True)
    table.add_column("result", no_wrap=True)
    table.add_column("s", justify="right")
    table.add_column("detail", overflow="fold")
    marks = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: "[yellow]skip[/]"}
    for r in results:
        detail = r["detail"] if len(r["detail"]) < 400 else r["detail"][:400] + " ..."
        table.add_row(r["check"], marks[r["passed"]], f"{r['seconds']:.2f}", detail)
    console.print(table)
    counts = {key: sum(r["passed"] is key for r in results) for key in (True, False, None)}
    console.print(f"{counts[True]} passed, {counts[False]} failed, {counts[None]} skipped")
