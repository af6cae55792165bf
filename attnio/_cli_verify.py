"""``attnio verify``: the main job. Runs every package's checks and prints a summary.

Each package contributes a module with a ``CHECKS`` tuple of callables that
return ``(passed, detail)``; ``passed`` is ``True``, ``False`` or ``None``
(skipped: nothing to check). Exit code 0 when no check failed, 1 otherwise.

Two tiers: the default one leaves out the open obligations that end unknown or take
minutes, the unchanged obligations whose recorded proofs take seconds
(:mod:`attnio.proofs.costs`) and the re-solving of the exported SMT-LIB files, and says
so; ``--thorough`` runs everything. Two caches, both skipped by ``--no-cache`` and emptied by ``--clear-cache``:
the result cache (:mod:`attnio.bounds.check_cache`) answers a whole check that passed
or was skipped in an earlier run of the same tier with every file of attnio, the
interpreter and the installed distributions unchanged (a failed check always runs
again); the proof cache (:mod:`attnio.proofs.cache`) keeps decided z3 outcomes, so a
proofs check that does run proves only what changed. Each finished check prints one
line with its time on standard error, also when that is not a terminal.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
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
    "attnio.claims.verification",
    "attnio.proofs.verification",
)
"""Modules whose ``CHECKS`` ``attnio verify`` runs, in order. The proofs suite comes last:
its obligations are proved in the background from the start of the run, so every check
before it runs beside them instead of after them."""


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
        help="also prove the costly obligations (open claims that end unknown; unchanged "
        "obligations whose recorded proofs take seconds, proofs/costs.json) and re-solve "
        "the exported SMT-LIB file of every proof (minutes longer)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the result cache nor the proof cache: run every check "
        "and prove every obligation again",
    )
    parser.add_argument(
        "--clear-cache",
        action="store_true",
        help="empty the proof cache and the result cache ($XDG_CACHE_HOME/attnio/proofs "
        "and .../checks) and exit",
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
        from attnio.bounds import check_cache
        from attnio.proofs.cache import ProofCache

        cache = ProofCache()
        removed = cache.clear()
        print(f"removed {removed} proof(s) from {cache.root}")
        removed = check_cache.clear()
        print(f"removed {removed} check result(s) and note(s) from {check_cache.directory()}")
        return 0
    if args.only == "list":
        for name, check in collect():
            print(f"{name}  {_title(check)}")
        return 0
    checks = collect(args.only)
    stored: dict[str, tuple] = {}
    results_cache = None
    if not args.no_cache:
        from attnio.bounds.check_cache import CheckCache

        results_cache = CheckCache(thorough=args.thorough)
        for name, _ in checks:
            found = results_cache.load(name)
            if found is not None:
                stored[name] = found
    to_run = [(name, check) for name, check in checks if name not in stored]
    note, stop = _configure(checks, to_run, args.thorough, not args.no_cache)
    results: list[dict] = []
    try:
        _run_checks(checks, results, args.json, results_cache, stored)
    except KeyboardInterrupt:
        _report(results, args.json, partial=True)
        return interrupted(f"{len(results)} of {len(checks)} checks finished")
    finally:
        stop()
    return _report(
        results, args.json, note=_note(note, checks, results_cache), cached=not args.no_cache
    )


def _note(note: object, checks: list, cache: object) -> str:
    """The note on what the tiers left out, read from the result cache when it holds it.

    Writing the note generates every obligation (seconds of sympy); its text depends only
    on what the cache's key already covers (the package files, the tier) and on the checks
    selected, so it is stored like a check's result under a name made of that selection.
    """
    if cache is None or not any(n.startswith(("proofs.", "claims.")) for n, _ in checks):
        return note()
    selected = ",".join(sorted(name for name, _ in checks))
    name = "verify.note:" + hashlib.sha256(selected.encode()).hexdigest()[:16]
    found = cache.load(name)
    if found is not None:
        return found[1]
    text = note()
    cache.store(name, True, text, 0.0)
    return text


def _configure(checks: list, to_run: list, thorough: bool, cached: bool) -> tuple:
    """Set the proofs suite's tier and cache when a proofs check is selected.

    When a check that reads the obligations' outcomes will run (``to_run``: not answered
    by the result cache), the proofs start at once in worker processes and go on while
    the checks before it run. Returns a callable that gives the note on what the tiers
    left out (empty when nothing was left out), and one that stops the proofs if they are
    still running (interrupted, or a check raised). The claims and algorithms suites'
    tiers are set here too, and their notes join the proofs suite's.
    """
    claims_note = _configure_claims(checks, thorough)
    algorithms_note = _configure_algorithms(checks, thorough)

    def suites_note() -> str:
        return "\n".join(text for text in (algorithms_note(), claims_note()) if text)

    if not any(name.startswith("proofs.") for name, _ in checks):
        return suites_note, lambda: None
    from attnio.proofs import verification
    from attnio.proofs.cache import ProofCache

    start = any(check in verification.USES_OUTCOMES for _, check in to_run)
    cache = ProofCache() if cached else None
    verification.configure(thorough=thorough, cache=cache, start=start)

    def note() -> str:
        return "\n".join(text for text in (verification.left_out(), suites_note()) if text)

    return note, verification.stop


def _configure_algorithms(checks: list, thorough: bool) -> object:
    """Set the algorithms suite's tier when its numeric check is selected; return its note."""
    if not any(name == "algorithms.numeric_mode" for name, _ in checks):
        return str
    from attnio.algorithms import verification

    verification.configure(thorough=thorough)
    return verification.left_out


def _configure_claims(checks: list, thorough: bool) -> object:
    """Set the claims suite's tier when a claims check is selected; return its note."""
    if not any(name.startswith("claims.") for name, _ in checks):
        return str
    from attnio.claims import verification

    verification.configure(thorough=thorough)
    return verification.left_out


def _run_checks(
    checks: list,
    results: list[dict],
    quiet: bool,
    cache: object = None,
    stored: dict | None = None,
) -> None:
    """Run each check; a bar on a terminal, and one line per finished check in any case.

    A check of ``stored`` (results read from the
    :class:`~attnio.bounds.check_cache.CheckCache` ``cache``) does not run: its row says
    ``cached``. A check that ran and did not fail is stored in ``cache``.
    """
    stored = stored or {}
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
            found = stored.get(name)
            if found is not None:
                passed, detail = found
            else:
                try:
                    passed, detail = check()
                except Exception as error:  # a crashing check is a failed check, reported as such
                    passed, detail = False, f"raised {type(error).__name__}: {error}"
            seconds = time.perf_counter() - start
            if found is None and cache is not None:
                cache.store(name, passed, detail, seconds)
            results.append(
                {
                    "check": name,
                    "title": _title(check),
                    "passed": passed,
                    "detail": detail,
                    "seconds": round(seconds, 3),
                    "cached": found is not None,
                }
            )
            how = "cached, " if found is not None else ""
            line = f"[{len(results)}/{len(checks)}] {name}: {words[passed]} ({how}{seconds:.1f} s)"
            if progress.live.is_started and err.is_terminal:
                progress.console.print(line, markup=False)
            else:
                print(line, file=sys.stderr, flush=True)
            progress.advance(task)


def _report(
    results: list[dict],
    as_json: bool,
    partial: bool = False,
    note: str = "",
    cached: bool = False,
) -> int:
    """Print the results (a table and the notes, or JSON); return the exit code.

    ``cached``: the result cache was in use, so the notes say how many checks it
    answered and how to run them all.
    """
    from attnio.bounds.schema import JSON_SCHEMA_VERSION

    failed = [r for r in results if r["passed"] is False]
    hits = sum(1 for r in results if r.get("cached"))
    if as_json:
        record = {"schema": JSON_SCHEMA_VERSION, "partial": partial, "results": results}
        record["failed"] = len(failed)
        record["left_out"] = note
        record["cached"] = hits
        json.dump(record, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(results, partial)
        if note:
            print(note)
        if cached:
            print(
                f"{hits} of {len(results)} checks answered from the result cache (unchanged "
                "since they last passed or skipped; a failed check always runs); run every "
                "check: attnio verify --no-cache"
            )
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
        if r.get("cached"):
            detail = "cached: " + detail
        table.add_row(r["check"], marks[r["passed"]], f"{r['seconds']:.2f}", detail)
    console.print(table)
    counts = {key: sum(r["passed"] is key for r in results) for key in (True, False, None)}
    console.print(f"{counts[True]} passed, {counts[False]} failed, {counts[None]} skipped")
