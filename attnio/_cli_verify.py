"""``attnio verify``: the main job. Runs every package's checks and prints a summary.

Each package contributes a module with a ``CHECKS`` tuple of callables that
return ``(passed, detail)``; ``passed`` is ``True``, ``False`` or ``None``
(skipped: nothing to check). Exit code 0 when no check failed, 1 otherwise.

Two tiers: the default one leaves out the open obligations that only end unknown
and the re-solving of the exported SMT-LIB files, and says so; ``--thorough`` runs
everything. Decided z3 outcomes are kept in the proof cache
(:mod:`attnio.proofs.cache`) unless ``--no-cache``; ``--clear-cache`` empties it.
Each finished check prints one line with its time on standard error, also when that
is not a terminal.
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
    "attnio.bounds.provenance",
    "attnio.pebble.verification",
    "attnio.algorithms.verification",
    "attnio.proofs.verification",
    "attnio.claims.verification",
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
        "  attnio verify --thorough --no-cache\n"
        "  attnio verify --only 'proofs.*' --json\n"
        "  attnio verify --only list\n"
        "  attnio verify --clear-cache",
    )
    parser.add_argument(
        "--only",
        metavar="PATTERN",
        help="run only the checks whose name matches this glob, or one of several "
        "comma-separated globs ('list' lists the names)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--thorough",
        action="store_true",
        help="also prove the open obligations that end unknown and re-solve every exported "
        "SMT-LIB file (minutes longer)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the proof cache: prove every obligation again",
    )
    parser.add_argument(
        "--clear-cache",
        action="store_true",
        help="empty the proof cache ($XDG_CACHE_HOME/attnio/proofs) and exit",
    )
    parser.set_defaults(run=run)
    return parser


def collect(pattern: str | None = None) -> list[tuple[str, object]]:
    """Return ``(suite, check)`` pairs of every registered check matching ``pattern``.

    ``pattern`` is a glob, or several separated by commas (a check matching any is kept).
    """
    globs = None if pattern is None else [p.strip() for p in pattern.split(",")]
    found = []
    for suite in SUITES:
        module = importlib.import_module(suite)
        short = suite.split(".")[1]
        for check in module.CHECKS:
            name = f"{short}.{check.__name__.removeprefix('check_')}"
            if globs is None or any(fnmatch.fnmatch(name, glob) for glob in globs):
                found.append((name, check))
    if not found:
        raise ValueError(f"--only={pattern!r} matches no check ('--only list' lists them)")
    return found


def _title(check: object) -> str:
    doc = (getattr(check, "__doc__", None) or "").strip()
    return doc.splitlines()[0] if doc else ""


def run(args: argparse.Namespace) -> int:
    """Run the checks with a progress bar on stderr and a summary on stdout."""
    if args.clear_cache:
        from attnio.proofs.cache import ProofCache

        cache = ProofCache()
        removed = cache.clear()
        print(f"removed {removed} proof(s) from {cache.root}")
        return 0
    if args.only == "list":
        for name, check in collect():
            print(f"{name}  {_title(check)}")
        return 0
    checks = collect(args.only)
    note = _configure(checks, args.thorough, not args.no_cache)
    results: list[dict] = []
    try:
        _run_checks(checks, results, args.json)
    except KeyboardInterrupt:
        _report(results, args.json, partial=True)
        return interrupted(f"{len(results)} of {len(checks)} checks finished")
    return _report(results, args.json, note=note())


def _configure(checks: list, thorough: bool, cached: bool) -> object:
    """Set the proofs suite's tier and cache when a proofs check is selected.

    Returns a callable that gives the note on what the tier left out (empty when
    nothing was left out or no proofs check ran). The claims suite's tier is set here
    too, and its note joins the proofs suite's.
    """
    claims_note = _configure_claims(checks, thorough)
    if not any(name.startswith("proofs.") for name, _ in checks):
        return claims_note
    from attnio.proofs import verification
    from attnio.proofs.cache import ProofCache

    verification.configure(thorough=thorough, cache=ProofCache() if cached else None)
    return lambda: "\n".join(note for note in (verification.left_out(), claims_note()) if note)


def _configure_claims(checks: list, thorough: bool) -> object:
    """Set the claims suite's tier when a claims check is selected; return its note."""
    if not any(name.startswith("claims.") for name, _ in checks):
        return str
    from attnio.claims import verification

    verification.configure(thorough=thorough)
    return verification.left_out


def _run_checks(checks: list, results: list[dict], quiet: bool) -> None:
    """Run each check; a bar on a terminal, and one line per finished check in any case."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    err = Console(stderr=True, highlight=False)
    words = {True: "pass", False: "FAIL", None: "skip"}
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
            seconds = time.perf_counter() - start
            results.append(
                {
                    "check": name,
                    "title": _title(check),
                    "passed": passed,
                    "detail": detail,
                    "seconds": round(seconds, 3),
                }
            )
            line = f"[{len(results)}/{len(checks)}] {name}: {words[passed]} ({seconds:.1f} s)"
            if progress.live.is_started and err.is_terminal:
                progress.console.print(line, markup=False)
            else:
                print(line, file=sys.stderr, flush=True)
            progress.advance(task)


def _report(results: list[dict], as_json: bool, partial: bool = False, note: str = "") -> int:
    from attnio.bounds.schema import JSON_SCHEMA_VERSION

    failed = [r for r in results if r["passed"] is False]
    if as_json:
        record = {"schema": JSON_SCHEMA_VERSION, "partial": partial, "results": results}
        record["failed"] = len(failed)
        record["left_out"] = note
        json.dump(record, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(results, partial)
        if note:
            print(note)
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
