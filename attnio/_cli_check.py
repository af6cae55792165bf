"""``attnio check FILE``: check a user's claimed bounds against everything attnio knows."""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from pathlib import Path

from attnio._arguments import interrupted, writable_directory
from attnio._progress import ProgressLine
from attnio._table import wide_console

NAME = "check"
HELP = (
    "check your own bounds (a TOML file, or one --claim) against the catalog, pebblings and "
    "machine counts"
)

EXIT_REFUTED = 1

_STYLE = {
    "refuted": "bold red",
    "proved": "bold green",
    "implied-by-catalog": "green",
    "consistent-with-catalog": "green",
    "consistent": "green",
    "unknown": "yellow",
}


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio check``."""
    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="Read one [[bound]] table per claim from FILE (name, kind, regime, pass, "
        "cache, expression, conditions, algorithm, constant, ...) and check each claim with z3 "
        "against the catalog, with exact and heuristic pebblings of small attention DAGs, and "
        "with the two-level machine's counts at sampled sizes. Verdicts: refuted (a re-checked "
        "counterexample), proved (from derived catalog records, named), implied-by-catalog "
        "(from records some only stated or reconstructed), consistent-with-catalog and "
        "consistent (neither is a proof; each gets its window: the best derived lower bound "
        "and the best count around it at sampled points of its scope), unknown "
        "(docs/verdicts.md). A proof from derived lower bounds rests on their algebra, "
        "machine-checked, and their combinatorial lemmas, proved by hand. Exit 0 when "
        "nothing is refuted, 1 when a claim is. Instead of "
        "FILE, --claim 'KIND: EXPRESSION' with --regime and --pass (and the other fields as "
        "options) checks one claim the same way.",
        epilog="examples:\n"
        "  attnio check examples/claims.toml\n"
        "  attnio check mine.toml --json > verdicts.json\n"
        "  attnio check mine.toml --evidence-dir evidence/ --verbose\n"
        "  attnio check mine.toml --skip pebbling --skip counting   # z3 only, seconds\n"
        "  attnio check --claim 'lower: n**2*d**2/(100*M)' --regime dense --pass forward "
        "--cache large\n"
        "  attnio check --claim 'upper: 4*n*d + n + 4*n**2*d*(5*d + 3)/M' --regime dense "
        "--pass forward --algorithm flash2 --condition 'M >= 5*d + 3'\n"
        "  attnio check --claim 'lower: Omega(n**2*d**2/M)' --regime dense --pass forward "
        "--cache large\n"
        "  attnio check --catalog --skip pebbling --skip counting   # attnio's own records",
    )
    parser.add_argument(
        "file", metavar="FILE", nargs="?", help="TOML file with one [[bound]] per claim"
    )
    parser.add_argument(
        "--catalog",
        action="store_true",
        help="instead of FILE, check every record of attnio's own catalog (bounds/catalog.toml) "
        "the same way, each record never compared with itself nor proved from itself; "
        "giving the shipped catalog file as FILE does the same",
    )
    parser.add_argument(
        "--records",
        metavar="GLOB",
        help="with --catalog: check only the records whose name matches this glob, or one "
        "of several comma-separated globs (the others stay evidence)",
    )
    one = parser.add_argument_group(
        "one claim from the command line (instead of FILE; the fields of a [[bound]] table)"
    )
    one.add_argument(
        "--claim",
        metavar="'KIND: EXPRESSION'",
        help="the claim: KIND lower, upper or tight, EXPRESSION explicit in the catalog's "
        "symbols (n, d, M, Z, s, epsilon, ...) or asymptotic: Omega(...), O(...), Theta(...)",
    )
    one.add_argument("--regime", help="dense, sparse or approximate (required with --claim)")
    one.add_argument("--pass", dest="pass_", help="forward or backward (required with --claim)")
    one.add_argument("--cache", default="any", help="small (M < d**2), large or any (default)")
    one.add_argument(
        "--condition", metavar="RELATION", help="where the claim applies, e.g. 'M >= 4*d'"
    )
    one.add_argument(
        "--algorithm", help="the algorithm an upper bound is about (attnio simulate --help)"
    )
    one.add_argument(
        "--epsilon",
        metavar="EPS",
        help="approximate claims: about algorithms whose error is at most EPS (adds the "
        "condition epsilon <= EPS)",
    )
    one.add_argument(
        "--constant", type=float, help="tight claims: C in E / C <= IO <= C * E (default 1)"
    )
    one.add_argument(
        "--mask",
        help="sparse claims: the mask family the claim is about (causal, window, band, ...; "
        "the claims files' mask field)",
    )
    one.add_argument(
        "--window",
        type=int,
        metavar="W",
        help="with --mask window or band: the claim is about width W only (the claims "
        "files' window field)",
    )
    one.add_argument("--name", default="claim", help="the claim's name in the output")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON instead of the table: {schema, partial, results}, one result per "
        "claim (name, verdict, evidence), the same shape for one claim and many",
    )
    parser.add_argument(
        "--evidence-dir",
        metavar="DIR",
        help="write each pebbling refutation here (created if missing): the DAG (.dag.json) "
        "and its moves (.moves.jsonl), which attnio.pebble.replay accepts",
    )
    parser.add_argument(
        "--skip",
        action="append",
        choices=("z3", "pebbling", "counting"),
        default=[],
        help="leave out a check (repeatable)",
    )
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="list every evidence item, not only refutations",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Read the claims, check them, print the table or JSON; 1 if any claim is refuted."""
    from attnio.claims import check, check_catalog

    if args.evidence_dir:
        writable_directory("--evidence-dir", args.evidence_dir)
    own = _own_catalog(args)
    claims = _records(args.records) if own else _claims(args)
    reports: list = []
    try:
        with ProgressLine(enabled=not args.json) as line:

            def progress(report) -> None:
                reports.append(report)
                line.update(len(reports), len(claims), report.name)

            if own:
                check_catalog(claims, skip=args.skip, evidence_dir=args.evidence_dir,
                              on_report=progress, windows=True)  # fmt: skip
            else:
                check(claims, skip=args.skip, evidence_dir=args.evidence_dir, on_report=progress)
    except KeyboardInterrupt:
        _report(args, reports, partial=True)
        return interrupted(f"{len(reports)} of {len(claims)} claims checked")
    return _report(args, reports, partial=False)


def _own_catalog(args: argparse.Namespace) -> bool:
    """Whether to check attnio's own catalog: ``--catalog``, or FILE the shipped file."""
    shipped = args.file is not None and _is_shipped_catalog(args.file)
    if args.catalog and args.file is not None and not shipped:
        raise ValueError(
            f"check: --catalog checks attnio's own catalog, not FILE {args.file!r}; give FILE "
            "or --catalog, not both"
        )
    if not (args.catalog or shipped):
        if args.records is not None:
            raise ValueError("check: --records chooses records of --catalog; give --catalog")
        return False
    given = [key for key in _ONE_CLAIM if getattr(args, key) is not None]
    if args.claim is not None or given or args.cache != "any" or args.name != "claim":
        option = "--claim" if args.claim is not None else "--" + (given or ["cache"])[0]
        raise ValueError(
            f"check: {option.rstrip('_').replace('_', '-')} describes a claim given with "
            "--claim, not attnio's own catalog; give --catalog or --claim, not both"
        )
    return True


def _records(pattern: str | None) -> list:
    """The catalog's records whose name matches one of the comma-separated globs."""
    from attnio.bounds import catalog

    records = list(catalog())
    if pattern is None:
        return records
    globs = [glob.strip() for glob in pattern.split(",")]
    chosen = [r for r in records if any(fnmatch.fnmatchcase(r.name, glob) for glob in globs)]
    if not chosen:
        raise ValueError(
            f"check: --records={pattern!r} matches no record of the catalog (attnio table "
            "--format json lists them)"
        )
    return chosen


def _is_shipped_catalog(path: str) -> bool:
    """Whether ``path`` is the catalog file attnio reads its own records from."""
    from importlib import resources

    from attnio.bounds.catalog import CATALOG_FILE

    shipped = resources.files("attnio.bounds").joinpath(CATALOG_FILE)
    try:
        return Path(path).resolve() == Path(str(shipped)).resolve()
    except OSError:
        return False


_ONE_CLAIM = ("regime", "pass_", "condition", "algorithm", "epsilon", "constant", "mask", "window")


def _claims(args: argparse.Namespace) -> list:
    """The claims of FILE, or the one claim of ``--claim`` and its fields."""
    from attnio.claims import parse_claim_text, read_claims

    given = [key for key in _ONE_CLAIM if getattr(args, key) is not None]
    if args.file is not None:
        if args.claim is not None or given or args.cache != "any" or args.name != "claim":
            option = "--claim" if args.claim is not None else "--" + (given or ["cache"])[0]
            raise ValueError(
                f"check: {option.rstrip('_').replace('_', '-')} describes a claim given with "
                f"--claim, not one of FILE {args.file!r}; give FILE or --claim, not both"
            )
        return read_claims(args.file)
    if args.claim is None:
        raise ValueError("check: give FILE (a TOML claims file) or --claim 'KIND: EXPRESSION'")
    for key, option in (("regime", "--regime"), ("pass_", "--pass")):
        if getattr(args, key) is None:
            raise ValueError(f"check: --claim {args.claim!r} needs {option}")
    constant = args.constant
    if constant is not None and constant == int(constant):
        constant = int(constant)
    return [
        parse_claim_text(
            args.claim,
            regime=args.regime,
            pass_=args.pass_,
            cache=args.cache,
            conditions=args.condition,
            algorithm=args.algorithm,
            epsilon=args.epsilon,
            constant=constant,
            name=args.name,
            mask=args.mask,
            window=args.window,
        )
    ]


def _report(args: argparse.Namespace, reports: list, partial: bool) -> int:
    from attnio.bounds.schema import JSON_SCHEMA_VERSION

    if args.json:
        payload = {
            "schema": JSON_SCHEMA_VERSION,
            "partial": partial,
            "results": [report.to_dict() for report in reports],
        }
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print(reports, args.verbose)
    return EXIT_REFUTED if any(report.refuted for report in reports) else 0


def _print(reports: list, verbose: bool) -> None:
    from rich.table import Table
    from rich.text import Text

    console = wide_console()
    table = Table(title="attnio check")
    table.add_column("claim", overflow="fold")
    table.add_column("kind")
    table.add_column("verdict")
    table.add_column("seconds", justify="right")
    for report in reports:
        style = _STYLE[report.verdict]
        table.add_row(report.name, report.kind, Text(report.verdict, style=style),
                      f"{report.seconds:.1f}")  # fmt: skip
    console.print(table)
    for report in reports:
        console.print(Text(f"{report.name}: {report.verdict}", style=_STYLE[report.verdict]))
        shown = report.evidence if verbose else report.refutations()
        if not shown:
            console.print(f"  {report.summary}", markup=False, soft_wrap=True)
        for window in report.windows:
            console.print(f"  {window.summary}", markup=False, soft_wrap=True)
        for item in shown:
            note = " (advisory)" if item.advisory else ""
            console.print(
                f"  [{item.check}: {item.verdict}{note}] {item.summary}",
                markup=False,
                soft_wrap=True,
            )
            if item.replay and item.verdict == "refuted":
                console.print(f"      reproduce: {item.replay}", markup=False, soft_wrap=True)
            if item.certificate:
                console.print(
                    f"      certificate: {item.certificate}", markup=False, soft_wrap=True
                )
    from attnio.bounds.record import derived_lower_evidence

    refuted = sum(report.refuted for report in reports)
    console.print(
        f"{len(reports)} claim(s), {refuted} refuted. 'consistent-with-catalog' and "
        "'consistent' are not proofs of a claim; derived lower bounds: "
        f"{derived_lower_evidence()}; --verbose lists every check.",
        soft_wrap=True,
    )
