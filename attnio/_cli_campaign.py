"""``attnio campaign``: run a campaign spec into a result store, report on it, export it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from attnio._arguments import (
    count,
    interactive,
    interrupted,
    positive_float,
    writable_directory,
    writable_file,
)
from attnio._table import to_terminal

NAME = "campaign"
HELP = "run many pebblings and simulations into a result store; report on it"

_EPILOG = """\
examples:
  attnio campaign spec.toml                          # local cluster, one worker per core
  attnio campaign spec.toml --workers 0              # in this process, no Dask
  attnio campaign spec.toml --scheduler tcp://10.0.0.5:8786
  attnio campaign spec.toml --time-limit 600         # stop any unit after 10 minutes
  attnio campaign report --store results.sqlite      # Markdown; --format latex or json
  attnio campaign report --store results.sqlite --format latex -o campaign.tex --bib refs.bib
  attnio campaign export --store results.sqlite --format csv -o results.csv

A second run of the same spec answers every unit from the store. Runs of one spec on one
store at once (two terminals, two machines) split the units: each unit is claimed before
it runs, a claimed unit is left to its run, and the claims of a run that died lapse
after --claim-expiry seconds. An exact result with
proven bounds only runs again when the spec raises max_states or time_limit; a unit
stopped by --time-limit runs again when a later run gives a larger --time-limit or none.
Exit codes:
0 every unit ran (or came from the store, or another run claimed it), 1 a unit failed
or the report found a refuted bound, 2 bad input, 130 interrupted (results written so
far stay in the store).
"""


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio campaign``."""
    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="Run every unit of work of a campaign spec (TOML; see "
        "docs/campaigns.md) that the result store does not hold yet, on a Dask cluster or "
        "in this process; or report on, or export, a store.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "target",
        metavar="SPEC|report|export",
        help="a campaign spec (TOML), or 'report' / 'export' to read a store",
    )
    parser.add_argument(
        "--store",
        metavar="FILE",
        default="results.sqlite",
        help="the SQLite result store (default results.sqlite; created when running a spec)",
    )
    parser.add_argument(
        "--workers",
        type=count(0),
        metavar="N",
        help="local Dask worker processes (default: one per core; 0 runs in this process)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786 (instead of a local cluster)",
    )
    parser.add_argument(
        "--memory-limit",
        default="4GiB",
        metavar="SIZE",
        help="memory limit of each local worker, Dask syntax (default 4GiB)",
    )
    parser.add_argument(
        "--time-limit",
        type=positive_float,
        metavar="SECONDS",
        help="wall-clock limit of every unit on a worker: a unit running longer has its "
        "worker restarted and is stored as an error, the others go on; a later run "
        "with a larger limit (or none) runs it again (default: none; needs Dask "
        "workers, not --workers 0)",
    )
    parser.add_argument(
        "--claim-expiry",
        type=positive_float,
        metavar="SECONDS",
        help="lifetime of this run's claim on a unit, renewed while it runs: another run on "
        "the same store leaves a claimed unit alone until its claim lapses (default 60; "
        "a run that died holds its units this long)",
    )
    parser.add_argument(
        "--format",
        choices=["markdown", "latex", "json", "csv"],
        help="report: markdown (default), latex or json; export: csv (default) or json",
    )
    parser.add_argument(
        "--figures",
        metavar="DIR",
        help="report: also write an IO(M) figure per DAG instance into DIR (PDF and PNG)",
    )
    parser.add_argument(
        "--bib",
        metavar="FILE",
        help="report --format latex: also write the BibTeX entries of the \\cite keys here",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="report/export: write to FILE")
    parser.set_defaults(run=run_command)
    return parser


def run_command(args: argparse.Namespace) -> int:
    """Dispatch on the target: a spec runs, ``report`` reports, ``export`` exports."""
    if args.target in ("report", "export"):
        if (
            args.workers is not None
            or args.scheduler is not None
            or args.time_limit
            or args.claim_expiry
        ):
            raise ValueError(
                f"--workers, --scheduler, --time-limit and --claim-expiry apply to running a "
                f"spec, not to {args.target}"
            )
        if args.output is not None:
            writable_file("-o", args.output)
        if args.figures is not None:
            writable_directory("--figures", args.figures)
        if args.bib is not None:
            if args.target != "report":
                raise ValueError("--bib applies to 'report', not to export")
            writable_file("--bib", args.bib)
        return _report(args) if args.target == "report" else _export(args)
    if args.format or args.figures or args.output or args.bib:
        raise ValueError(
            "--format, --figures, --bib and -o apply to 'report' and 'export', not to a spec"
        )
    if args.workers is not None and args.scheduler is not None:
        raise ValueError("give --workers or --scheduler, not both")
    if args.time_limit is not None and args.workers == 0:
        raise ValueError(
            f"--time-limit {args.time_limit:g} needs Dask workers; --workers 0 runs every "
            "unit in this process, where a running unit cannot be stopped"
        )
    writable_file("--store", args.store)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from attnio.campaign import Store, read_spec, run_campaign
    from attnio.campaign.execution import CLAIM_SECONDS

    spec = read_spec(args.target)
    console = Console(stderr=True)
    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not interactive(),
        transient=True,
    )
    task = None

    def started(count: int) -> None:
        nonlocal task
        task = progress.add_task("campaign", total=count)

    def finished(unit, result) -> None:
        progress.advance(task)

    with Store(args.store) as store, progress:
        store.remember_bounds(spec.bounds)
        outcome = run_campaign(
            spec,
            store,
            workers=args.workers,
            scheduler=args.scheduler,
            memory_limit=args.memory_limit,
            time_limit=args.time_limit,
            on_start=started,
            on_result=finished,
            claim_seconds=args.claim_expiry or CLAIM_SECONDS,
        )
    print(
        f"{outcome.total} units: {outcome.from_store} from the store, {outcome.ran} ran, "
        f"{outcome.failed} failed"
        + (f", {outcome.skipped_units} skipped" if outcome.skipped_units else "")
        + (
            f", {outcome.claimed_elsewhere} claimed by another run"
            if outcome.claimed_elsewhere
            else ""
        )
        + f", in {outcome.seconds:.1f} s; store {args.store}"
    )
    for line in outcome.skipped:
        print(f"skipped: {line}")
    for line in outcome.errors:
        print(f"failed: {line}", file=sys.stderr)
    if outcome.interrupted:
        left = (
            outcome.total
            - outcome.from_store
            - outcome.ran
            - outcome.failed
            - outcome.claimed_elsewhere
        )
        return interrupted(
            f"{left} units did not finish; their results so far are in {args.store}. "
            "Run the same command again to resume."
        )
    return 1 if outcome.failed else 0


def _report(args: argparse.Namespace) -> int:
    from attnio.campaign import Store, build_report

    with Store(args.store, create=False) as store:
        records = store.records()
        report = build_report(records, store.compared_bounds())
    fmt = args.format or "markdown"
    if fmt == "csv":
        raise ValueError("--format csv is for 'export'; report takes markdown, latex or json")
    if fmt == "json":
        text = json.dumps(report.to_dict(), indent=2) + "\n"
    elif fmt == "latex":
        text = report.latex()
    else:
        text = report.markdown()
        if args.output is None:
            text = to_terminal(text)
    if args.figures:
        from attnio.campaign.report import write_figures

        for path in write_figures(report, args.figures):
            print(f"wrote {path}", file=sys.stderr)
    _emit(text, args.output)
    if args.bib:
        from attnio.bounds.citations import bibtex

        with open(args.bib, "w", encoding="utf-8") as handle:
            handle.write(bibtex())
    return 1 if report.refutations or report.errors else 0


def _export(args: argparse.Namespace) -> int:
    from attnio.campaign import export

    fmt = args.format or "csv"
    if fmt not in ("csv", "json"):
        raise ValueError(f"--format {fmt} is for 'report'; export takes csv or json")
    _emit(export(args.store, fmt), args.output)
    return 0


def _emit(text: str, path: str | None) -> None:
    if path is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(path).write_text(text, encoding="utf-8")
