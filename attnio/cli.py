"""The ``attnio`` command line: parses arguments, dispatches to a command module.

Every command lives in its own ``attnio/_cli_<command>.py`` with ``NAME``,
``HELP``, ``add_parser(subparsers)`` and ``run(args) -> int``. Command modules
import only :mod:`argparse` at module level; :func:`main` builds the full parser
of the one command being run, so ``attnio --help`` and ``attnio --version`` never
import numba, z3, sympy or matplotlib. Bad input of any kind becomes one line on
standard error and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from attnio import __version__

COMMAND_MODULES = (
    "attnio._cli_table",
    "attnio._cli_verify",
    "attnio._cli_pebble",
    "attnio._cli_simulate",
    "attnio._cli_prove",
    "attnio._cli_check",
    "attnio._cli_gap",
    "attnio._cli_eval",
    "attnio._cli_plot",
    "attnio._cli_campaign",
    "attnio._cli_explore",
)
"""The command modules, in the order ``attnio --help`` lists them."""

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
"""The reader of standard output went away (128 + SIGPIPE, as shells report it)."""

EXIT_CODES = """\
exit codes:
  0    ok
  1    a check failed, an obligation was not proved, or a claim was refuted
  2    bad input (arguments, files, sizes); one line on standard error
  130  interrupted (Ctrl-C); what was finished so far is printed, outputs marked partial
"""


def commands() -> tuple[ModuleType, ...]:
    """Return the command modules (cheap: they import only argparse at module level)."""
    return tuple(importlib.import_module(name) for name in COMMAND_MODULES)


COMMANDS = commands()


class UsageError(ValueError):
    """A command line that argparse rejects; the message is one line."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        command = self.prog.removeprefix("attnio").strip()
        raise UsageError(f"{command}: {message}" if command else message)


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the epilog's examples as written and shows defaults already in the help."""


def build_parser(command: str | None = "*") -> argparse.ArgumentParser:
    """Return the parser; ``command`` names the one command to register in full.

    ``"*"`` registers every command in full (slow: imports what their options
    list); ``None`` registers none in full (fast: ``attnio --help``).
    """
    parser = _Parser(
        prog="attnio",
        description="Formal bound verification for the I/O complexity of attention.",
        epilog="example:\n  attnio table --regime dense\n  attnio pebble --help\n\n" + EXIT_CODES,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"attnio {__version__}")
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=_Parser, title="commands"
    )
    for module in COMMANDS:
        if command in ("*", module.NAME):
            sub = module.add_parser(subparsers)
            sub.formatter_class = _Formatter
            if sub.epilog is not None and "exit codes" not in sub.epilog:
                sub.epilog = sub.epilog.rstrip() + "\n\n" + EXIT_CODES
        else:
            subparsers.add_parser(module.NAME, help=module.HELP, add_help=False)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    names = {module.NAME for module in COMMANDS}
    for token in argv:
        if token in names:
            return token
        if not token.startswith("-"):
            return None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (see ``EXIT_CODES``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv:
            names = ", ".join(module.NAME for module in COMMANDS)
            raise UsageError(
                f"no command given; usage: attnio COMMAND [options] with COMMAND one of "
                f"{names} (attnio --help, attnio COMMAND --help)"
            )
        parser = build_parser(_command(argv))
        args = parser.parse_args(argv)
        if args.command is None:
            raise UsageError("no command given (attnio --help lists them)")
        return int(args.run(args))
    except KeyboardInterrupt:
        print("attnio: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader closed the pipe (``attnio table | head``): stop quietly, as
        # other command-line tools do, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except (ValueError, TypeError, OSError, MemoryError, OverflowError) as error:
        # Every package's errors subclass ValueError or TypeError and name the
        # offending argument; files that cannot be read raise OSError.
        print(f"attnio: error: {_one_line(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _one_line(error: BaseException) -> str:
    if isinstance(error, MemoryError):
        return "out of memory; choose smaller sizes (--n, --d, --limit)"
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror}"
    text = " ".join(str(error).split())
    return text or type(error).__name__


if __name__ == "__main__":
    sys.exit(main())
