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

from attnio._arguments import interrupted
from attnio._table import wide_console

NAME = "verify"
HELP = "check the catalog, pebblings, algorithms and proofs against each other"

SUITES = (
    "attnio.bounds.consistency",
    "attnio.pebble.verification",
    "attnio.algorithms.verification",
    "attnio.proofs.verification",
)
"""Modules whose ``CHECKS`` ``attnio verify`` runs, in order."""


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio verify``."""
    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="Run every consistency check of attnio and print a summary table. "
        "Exits 1 if any check fails.",
        epilog="examples:\n"
        "  attnio verify\n"
        "  attnio verify --only 'proofs.*' --json\n"
        "  attnio verify --only list",
    )
    parser.add_argument(
        "--only",
        metavar="PATTERN",
        help="run only the checks whose name matches this glob ('list' lists the names)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(run=run)
    return parser


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
        raise ValueError(f"--only={pattern!r} matches no check ('--only list' lists them)")
    return found


def _title(check: object) -> str:
    doc = (getattr(check, "__doc__", None) or "").strip()
    return doc.splitlines()[0] if doc else ""


def run(args: argparse.Namespace) -> int:
    """Run the checks with a progress bar on stderr and a summary on stdout."""
    if args.only == "list":
        for name, check in collect():
            print(f"{name}  {_title(check)}")
        return 0
    checks = collect(args.only)
    results: list[dict] = []
    try:
        _run_checks(checks, results, args.json)
    except KeyboardInterrupt:
        _report(results, args.json, partial=True)
        return interrupted(f"{len(results)} of {len(checks)} checks finished")
    return _report(results, args.json)


def _run_checks(checks: list, results: list[dict], quiet: bool) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    err = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=quiet or not err.is_terminal,
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


def _report(results: list[dict], as_json: bool, partial: bool = False) -> int:
    from attnio.bounds.schema import JSON_SCHEMA_VERSION

    failed = [r for r in results if r["passed"] is False]
    if as_json:
        record = {"schema": JSON_SCHEMA_VERSION, "partial": partial, "results": results}
        record["failed"] = len(failed)
        json.dump(record, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(results, partial)
    return 1 if failed else 0


def _print_table(results: list[dict], partial: bool) -> None:
    from rich.table import Table

    console = wide_console()
    title = "attnio verify (partial: interrupted)" if partial else "attnio verify"
    table = Table(title=title, show_lines=False)
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
