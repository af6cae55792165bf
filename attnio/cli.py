"""The ``attnio`` command line: parses arguments, dispatches to a command module.

Every command lives in its own ``attnio/_cli_<command>.py`` with
``add_parser(subparsers)`` and ``run(args) -> int``. Bad input of any kind
becomes one line on standard error and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from attnio import (
    _cli_check,
    _cli_pebble,
    _cli_prove,
    _cli_simulate,
    _cli_table,
    _cli_verify,
)

COMMANDS = (_cli_table, _cli_verify, _cli_pebble, _cli_simulate, _cli_prove, _cli_check)
"""The command modules, in the order ``attnio --help`` lists them."""

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    """Return the parser with every command registered."""
    parser = _Parser(
        prog="attnio",
        description="Formal bound verification for the I/O complexity of attention.",
    )
    from attnio import __version__

    parser.add_argument("--version", action="version", version=f"attnio {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for module in COMMANDS:
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 1 a check failed, 2 bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return int(args.run(args))
    except _UsageError as error:
        print(f"attnio: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ValueError, TypeError, OSError) as error:
        # Every package's errors subclass ValueError or TypeError and name the
        # offending argument; files that cannot be read raise OSError.
        print(f"attnio: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("attnio: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
