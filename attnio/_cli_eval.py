"""``attnio eval``: the value of catalog bounds at one point (n, d, M, ...)."""

from __future__ import annotations

import argparse
import json
import sys

NAME = "eval"
HELP = "evaluate catalog bounds at a point (--n, --d, --M, ...)"

PARAMETERS = ("n", "d", "M", "Z", "Z_in", "Z_QK", "s", "s_c", "w", "B", "epsilon", "g", "r",
              "n_q", "n_kv", "h_q", "h_kv")  # fmt: skip
"""The catalog's symbols (attnio.bounds.symbols.ALL), one option each; kept here as text so
that ``attnio --help`` imports no sympy (a test checks the two agree)."""


SHAPE_OPTIONS = {"n_q": "--n-q", "n_kv": "--n-kv", "h_q": "--heads-q", "h_kv": "--heads-kv"}
"""The shape's options as ``attnio gap``, ``simulate`` and ``pebble`` spell them, accepted
by ``eval`` beside its symbol-named ones (``--h_q``)."""


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``attnio eval``."""
    parser = subparsers.add_parser(
        NAME,
        help=HELP,
        description="Print the explicit value of each named catalog record at the point given "
        "by the options, exactly (a rational where it is one) and as a decimal. Without "
        "RECORD, every record with an explicit form that --regime, --pass, --cache and --kind "
        "keep is evaluated. A record whose conditions do not hold at the point is listed as "
        "not applying, with its conditions; one that needs a parameter not given is an error "
        "when named, and listed as such otherwise. Values of integer symbols (n, d, M, Z, "
        "Z_in, Z_QK, w, g, r, n_q, n_kv, h_q, h_kv) must be integers; the others may be fractions such as 1/2 or 0.1.",
        epilog="examples:\n"
        "  attnio eval dense-forward-compulsory --n 1024 --d 64 --M 4096\n"
        "  attnio eval flash2-forward-count dense-forward-lower-large-sharp "
        "--n 4096 --d 64 --M 65536\n"
        "  attnio eval --regime dense --pass forward --n 4096 --d 4 --M 16384\n"
        "  attnio eval --regime sparse --pass forward --n 64 --d 8 --M 64 --Z 64 --s 1/8 --json",
    )
    parser.add_argument(
        "records", metavar="RECORD", nargs="*", help="catalog record names (attnio table)"
    )
    for name in PARAMETERS:
        also = (SHAPE_OPTIONS[name],) if name in SHAPE_OPTIONS else ()
        parser.add_argument(
            f"--{name}", *also, dest=name, metavar="VALUE", help=f"the value of {name}"
        )
    parser.add_argument("--regime", help="without RECORD: only this regime")
    parser.add_argument("--pass", dest="pass_", help="without RECORD: only this pass")
    parser.add_argument("--cache", help="without RECORD: only this cache size")
    parser.add_argument("--kind", help="without RECORD: only lower or upper bounds")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON {schema, partial, results}: per record its name, kind, status, "
        "applies, value (exact, as text) and decimal",
    )
    parser.set_defaults(run=run)
    return parser


def _number(option: str, text: str):
    """``text`` as an exact sympy number; a one-line error naming ``option`` otherwise."""
    import sympy as sp

    from attnio.bounds.symbols import INTEGER_NAMES, NONNEGATIVE_NAMES

    try:
        value = sp.Rational(text.strip())
    except (TypeError, ValueError, SyntaxError):
        raise ValueError(
            f"eval: --{option} {text!r} is not a number (write an integer, a fraction such "
            "as 1/2 or a decimal)"
        ) from None
    if option in INTEGER_NAMES and not value.is_integer:
        raise ValueError(f"eval: --{option} {text!r} must be an integer")
    least = "nonnegative" if option in NONNEGATIVE_NAMES else "positive"
    if value < 0 or (value == 0 and option not in NONNEGATIVE_NAMES):
        raise ValueError(f"eval: --{option} {text!r} must be {least}")
    return sp.Integer(value) if value.is_integer else value


def _rows(args: argparse.Namespace) -> list[dict[str, object]]:
    from attnio.bounds import catalog, get
    from attnio.bounds.errors import BoundParameterError

    point = {
        name: _number(name, getattr(args, name))
        for name in PARAMETERS
        if getattr(args, name) is not None
    }
    if not point:
        raise ValueError("eval: give the point, e.g. --n 1024 --d 64 --M 4096")
    if "h_q" in point and "h_kv" in point and point["h_q"] % point["h_kv"]:
        raise ValueError(
            f"eval: --heads-q {point['h_q']} must be a multiple of --heads-kv {point['h_kv']}: "
            "the query heads are split into groups that share one K and V head"
        )
    named = bool(args.records)
    if named:
        if any(getattr(args, key) is not None for key in ("regime", "pass_", "cache", "kind")):
            raise ValueError(
                "eval: --regime, --pass, --cache and --kind choose records when no RECORD is "
                "named; name the records or filter, not both"
            )
        records = [get(name) for name in args.records]
    else:
        records = list(
            catalog(regime=args.regime, pass_=args.pass_, cache=args.cache, kind=args.kind)
        )
    rows = []
    for record in records:
        row: dict[str, object] = {"name": record.name, "kind": record.kind.value,
                                  "status": record.status.value}  # fmt: skip
        if record.explicit is None:
            if named:
                raise ValueError(
                    f"eval: record {record.name!r} has no explicit form (only "
                    f"{record.notation}), so it has no value at a point"
                )
            continue
        missing = sorted(set(record.parameters) - set(point))
        if missing:
            if named:
                raise ValueError(
                    f"eval: record {record.name!r} needs --{' --'.join(missing)} (its "
                    f"parameters are {', '.join(record.parameters)})"
                )
            rows.append({**row, "applies": None, "value": None, "decimal": None,
                         "note": f"needs {', '.join(missing)}"})  # fmt: skip
            continue
        used = {k: v for k, v in point.items() if k in record.parameters}
        try:
            applies = record.applies(**used)
        except BoundParameterError as error:
            raise ValueError(f"eval: {error}") from None
        if not applies:
            rows.append({**row, "applies": False, "value": None, "decimal": None,
                         "note": f"conditions {record.conditions} do not hold"})  # fmt: skip
            continue
        value = record.evaluate(**used)
        decimal = float(value) if value.is_real and value.is_finite else None
        rows.append({**row, "applies": True, "value": str(value), "decimal": decimal,
                     "note": ""})  # fmt: skip
    if not rows:
        raise ValueError("eval: no record with an explicit form matches these filters")
    return rows


def run(args: argparse.Namespace) -> int:
    """Evaluate the records at the point and print them (table or JSON)."""
    rows = _rows(args)
    if args.json:
        from attnio.bounds.schema import JSON_SCHEMA_VERSION

        payload = {"schema": JSON_SCHEMA_VERSION, "partial": False, "results": rows}
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    from rich.table import Table

    from attnio._table import wide_console

    shown = ", ".join(
        f"{name}={getattr(args, name)}" for name in PARAMETERS if getattr(args, name) is not None
    )
    table = Table(title=f"attnio eval at {shown}")
    for column in ("record", "kind", "status", "value", "decimal"):
        table.add_column(
            column, overflow="fold", justify="right" if column == "decimal" else "left"
        )
    for row in rows:
        decimal = "" if row["decimal"] is None else f"{row['decimal']:.6g}"
        table.add_row(row["name"], row["kind"], row["status"], row["value"] or row["note"], decimal)
    wide_console().print(table)
    return 0
