"""``attnio prove``: check the obligation catalog with z3 and print a table."""

from __future__ import annotations

import argparse
import json
import sys

from attnio._arguments import count, interrupted, writable_directory
from attnio._progress import ProgressLine
from attnio._table import wide_console

NAME = "prove"
HELP = "prove the inequalities between the catalog's bounds with z3"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio prove``."""
    from attnio.proofs.check import DEFAULT_TIMEOUT_MS

    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="Check every obligation generated from the bound catalog (lower <= "
        "upper, tightness constants, crossovers, reductions, comparisons, monotonicity, "
        "derivation steps). Exits 1 if an expected-true obligation is not proved or a planted "
        "false claim is not refuted; counterexamples to open claims are findings "
        "(docs/verdicts.md).",
        epilog="examples:\n"
        "  attnio prove --only 'tightness/*'\n"
        "  attnio prove --only list\n"
        "  attnio prove --only 'derivation/*' --smtlib smt/ --cross-check cvc5\n"
        "  attnio prove --json > outcomes.json\n"
        "  attnio prove --derivation proofs/derivations/lower-large.md",
    )
    parser.add_argument("--json", action="store_true", help="print the outcomes as JSON")
    parser.add_argument(
        "--derivation",
        metavar="FILE.md",
        help="check the algebraic steps of a derivation file instead (docs/derivations.md): "
        "each proved, refuted at a point checked again exactly, or unknown; exits 0 only "
        "if every one is proved",
    )
    parser.add_argument(
        "--smtlib",
        metavar="DIR",
        help="write each obligation as a standalone SMT-LIB 2 file into DIR (created if missing)",
    )
    parser.add_argument(
        "--only",
        metavar="PATTERN",
        help="check only the obligations whose name matches this glob ('list' lists the names)",
    )
    parser.add_argument(
        "--timeout",
        type=count(),
        default=DEFAULT_TIMEOUT_MS,
        metavar="MS",
        help=f"budget of one z3 call in ms (default {DEFAULT_TIMEOUT_MS}): it sets z3's "
        "deterministic resource limit; a call z3 spends in steps the limit does not count "
        "stops at 5x its budget of processor time, so a verdict needing nearly that much "
        "can change on a heavily loaded machine (docs/verdicts.md)",
    )
    parser.add_argument(
        "--jobs",
        type=count(),
        default=None,
        metavar="N",
        help="worker processes (default: one per usable core); the statuses do not depend on it",
    )
    parser.add_argument(
        "--search",
        action="store_true",
        help="search the least constant of every obligation with one afresh instead of "
        "re-proving the recorded one (proofs/constants.json; minutes)",
    )
    parser.add_argument(
        "--cross-check",
        choices=["cvc5"],
        help="re-check the SMT-LIB files with cvc5 (needs --smtlib)",
    )
    parser.set_defaults(run=run_command)
    return parser


def run_command(args: argparse.Namespace) -> int:
    """Run the obligations, print the table (or JSON), write and cross-check files."""
    from attnio.proofs import outcomes, select, usable_cores

    if args.cross_check and not args.smtlib:
        raise ValueError("--cross-check cvc5 needs --smtlib DIR to write the files it checks")
    if args.smtlib:
        writable_directory("--smtlib", args.smtlib)
    if args.derivation is not None:
        if args.only or args.search or args.cross_check:
            raise ValueError("--derivation checks one file: it takes no --only, --search, "
                             "--cross-check")  # fmt: skip
        return _derivation(args)
    if args.only == "list":
        for obligation in select():
            print(obligation.name)
        return 0
    chosen = select(args.only)
    finished = []
    jobs = args.jobs or usable_cores()
    try:
        with ProgressLine(enabled=not args.json) as line:
            for outcome in outcomes(chosen, args.timeout, jobs, search=args.search):
                finished.append(outcome)
                line.update(len(finished), len(chosen), outcome.obligation.name)
    except KeyboardInterrupt:
        _report(args, finished, partial=True)
        return interrupted(f"{len(finished)} of {len(chosen)} obligations finished")
    return _report(args, finished, partial=False)


def _derivation(args: argparse.Namespace) -> int:
    """``--derivation FILE``: each step's verdict, the lemmas; 0 only if all are proved."""
    from attnio.bounds.schema import JSON_SCHEMA_VERSION
    from attnio.proofs import smtlib, usable_cores
    from attnio.proofs.review import PROVED, review

    steps, lemmas = review(args.derivation, args.timeout, args.jobs or usable_cores())
    rows = [step.as_json() for step in steps]
    if args.smtlib:
        decided = [s.outcome for s in steps if s.outcome.result.smtlib]
        paths = iter(smtlib.write(decided, args.smtlib))
        for step, row in zip(steps, rows, strict=True):
            if step.outcome.result.smtlib:
                row["smtlib"] = str(next(paths))
    failed = sum(step.verdict != PROVED for step in steps)
    if args.json:
        document = {
            "schema": JSON_SCHEMA_VERSION,
            "derivation": args.derivation,
            "steps": rows,
            "lemmas": [lemma.as_json() for lemma in lemmas],
            "failed": failed,
        }
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_derivation(args.derivation, rows, [lemma.as_json() for lemma in lemmas])
    return 1 if failed else 0


def _print_derivation(file: str, rows: list[dict], lemmas: list[dict]) -> None:
    from rich.markup import escape
    from rich.table import Table

    console = wide_console()
    table = Table(title=f"attnio prove --derivation {file}")
    table.add_column("step", overflow="fold")
    table.add_column("verdict")
    table.add_column("detail", overflow="fold")
    marks = {"proved": "[green]proved[/]", "refuted": "[red]refuted[/]"}
    for r in [*rows, *lemmas]:
        detail = r["detail"] if len(r["detail"]) < 200 else r["detail"][:200] + " ..."
        verdict = marks.get(r["verdict"], f"[yellow]{r['verdict']}[/]")
        table.add_row(escape(r["step"]), verdict, escape(detail))
    console.print(table)
    count = {v: sum(r["verdict"] == v for r in rows) for v in ("proved", "refuted", "unknown")}
    console.print(
        f"{len(rows)} algebraic steps: {count['proved']} proved, {count['refuted']} refuted, "
        f"{count['unknown']} unknown; {len(lemmas)} combinatorial steps not machine-checked"
    )


def _report(args: argparse.Namespace, outcomes: list, partial: bool) -> int:
    from attnio.bounds.schema import JSON_SCHEMA_VERSION
    from attnio.proofs import smtlib

    rows = [_row(o) for o in outcomes]
    agreements = []
    if args.smtlib and outcomes:
        paths = smtlib.write(outcomes, args.smtlib)
        for row, path in zip(rows, paths, strict=True):
            row["smtlib"] = str(path)
        if args.cross_check and not partial:
            expected = [
                {"proved": "unsat", "counterexample": "sat"}.get(r["status"], "unknown")
                for r in rows
            ]
            agreements = smtlib.cross_check(paths, expected, args.timeout)
            for row, agreement in zip(rows, agreements, strict=True):
                row["cvc5"] = agreement.other
    failed = [r for r in rows if r["verdict"] == "FAIL"]
    conflicts = [a for a in agreements if {a.expected, a.other} == {"sat", "unsat"}]
    if args.json:
        json.dump(
            {
                "schema": JSON_SCHEMA_VERSION,
                "partial": partial,
                "outcomes": rows,
                "failed": len(failed),
                "solver_conflicts": len(conflicts),
            },
            sys.stdout,
            indent=2,
        )
        sys.stdout.write("\n")
    else:
        _print(rows, agreements, partial)
    return 1 if failed or conflicts else 0


def _row(outcome: object) -> dict:
    from attnio.proofs import describe

    ob, result = outcome.obligation, outcome.result
    row = {
        "obligation": ob.name,
        "family": ob.family,
        "expected": ob.expected.value,
        "status": result.status,
        "verdict": outcome.verdict,
        "constant": result.constant,
        "seconds": round(result.seconds, 3),
        "detail": describe(result),
        "statement": ob.statement,
        "sources": list(ob.sources),
    }
    if hasattr(result, "point"):
        row["point"] = {k: str(v) for k, v in result.point.items()}
    return row


def _print(rows: list[dict], agreements: list, partial: bool) -> None:
    from rich.table import Table

    console = wide_console()
    table = Table(title="attnio prove (partial: interrupted)" if partial else "attnio prove")
    for column, options in (
        ("obligation", {"overflow": "fold"}),
        ("expected", {}),
        ("status", {}),
        ("verdict", {}),
        ("C", {"justify": "right"}),
        ("s", {"justify": "right"}),
        ("detail", {"overflow": "fold"}),
    ):
        table.add_column(column, **options)
    marks = {
        "ok": "[green]ok[/]",
        "FAIL": "[red]FAIL[/]",
        "finding": "[yellow]finding[/]",
        "unknown": "[yellow]unknown[/]",
    }
    for r in rows:
        detail = r["detail"] if len(r["detail"]) < 200 else r["detail"][:200] + " ..."
        if "cvc5" in r:
            detail = f"cvc5: {r['cvc5']}; {detail}"
        table.add_row(
            r["obligation"],
            r["expected"],
            r["status"],
            marks[r["verdict"]],
            "" if r["constant"] is None else str(r["constant"]),
            f"{r['seconds']:.2f}",
            detail,
        )
    console.print(table)
    count = {v: sum(r["verdict"] == v for r in rows) for v in ("ok", "FAIL", "finding", "unknown")}
    console.print(
        f"{len(rows)} obligations: {count['ok']} ok, {count['FAIL']} failed, "
        f"{count['finding']} findings, {count['unknown']} unknown (open claims)"
    )
    if agreements:
        agree = sum(a.agrees for a in agreements)
        conflicts = sum({a.expected, a.other} == {"sat", "unsat"} for a in agreements)
        console.print(
            f"cvc5 cross-check: {agree}/{len(agreements)} agree, {conflicts} conflict, "
            f"{len(agreements) - agree - conflicts} undecided by one solver"
        )
