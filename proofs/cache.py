"""The proof cache: each obligation's decided outcome, stored under the text z3 sees.

A second ``attnio verify`` with nothing changed should not prove the catalog again.
:class:`ProofCache` stores the outcome of each obligation in one small JSON file
named by :func:`key`, a SHA-256 digest of everything that decides the outcome:

- the obligation's name, family, expectation, constant and its formulas (``srepr``),
- the SMT-LIB text of its relaxed and of its integer query (what z3 is asked),
- the solver's name and full version,
- the limits: the call budget, :data:`~attnio.proofs.check.CONSTANT_LIMIT` and the
  resource and processor-time factors of :mod:`attnio.proofs.budget`,
- the source text of the modules of :mod:`attnio.proofs` that translate, strengthen,
  sample and check (:data:`SOURCES`).

Any change of the catalog, the translation, the checker or the solver therefore misses
the cache and re-proves. Only two kinds of result are stored: :class:`~attnio.proofs.check.Proved`
and :class:`~attnio.proofs.check.Counterexample`. An :class:`~attnio.proofs.check.Unknown`
is never stored, so it is computed again on every run. Nothing read back is
trusted as it is: a stored counterexample is confirmed again with sympy at its point
(:func:`~attnio.proofs.check.confirm`), a stored proof's witness must satisfy every
assumption, and an entry that fails this, or does not parse, is dropped and its
obligation proved again.

The cache lives in :func:`directory`: ``$XDG_CACHE_HOME/attnio/proofs``, else
``~/.cache/attnio/proofs`` (``%LOCALAPPDATA%\\attnio\\proofs`` on Windows), the same
root as the compiled-kernel cache of :mod:`attnio.pebble`.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
from pathlib import Path

import sympy as sp
import z3

from attnio.bounds.check_cache import clear, user_cache, write_entry

from . import budget
from .check import (
    CONSTANT_LIMIT,
    Counterexample,
    Outcome,
    Proved,
    Query,
    Result,
    confirm,
    sides_at,
    symbols_of,
)
from .obligation import Obligation

FORMAT = 1
"""Version of the entry layout; part of every key, so a new layout never reads an old one."""

SOURCES = (
    "budget.py",
    "check.py",
    "constants.json",
    "constants.py",
    "obligation.py",
    "rounding.py",
    "sampling.py",
    "sign.py",
    "translate.py",
)
"""Files of :mod:`attnio.proofs` whose text is part of every key (the recorded constants
too: a new recording re-proves the obligations it records)."""


def directory() -> Path:
    """Return the proof cache's directory (not created here): ``proofs`` in attnio's
    directory of the user's cache (:func:`attnio.bounds.check_cache.user_cache`)."""
    return user_cache("proofs")


def solver_version() -> str:
    """Return the solver's name and full version, as it enters every key.

    Examples
    --------
    >>> solver_version().startswith("z3 ")
    True
    """
    return f"z3 {z3.get_full_version()}"


@functools.cache
def _sources_digest() -> str:
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in SOURCES:
        digest.update(name.encode())
        path = here / name
        digest.update(path.read_bytes() if path.is_file() else b"(missing)")
    return digest.hexdigest()


_LET_NAME = re.compile(r"(\?x|\$x|a!)\d+\b")


def _canonical(text: str) -> str:
    """``text`` with z3's let-bound names renumbered in order of appearance.

    z3 names a shared term after its term id (``?x28`` for an arithmetic term, ``$x27``
    for a Boolean one), which depends on every term created before it in the process;
    the renumbered text depends on the query alone.

    Examples
    --------
    >>> _canonical("(let ((?x28 (f x))) (let (($x9 (> ?x28 1))) (g ?x28 ?x31 $x9)))")
    '(let ((?x0 (f x))) (let (($x1 (> ?x0 1))) (g ?x0 ?x2 $x1)))'
    """
    names: dict[str, str] = {}

    def rename(match: re.Match) -> str:
        return names.setdefault(match.group(0), f"{match.group(1)}{len(names)}")

    return _LET_NAME.sub(rename, text)


def _query_text(obligation: Obligation, integers: bool) -> str:
    """The SMT-LIB text of ``obligation``'s query (assumptions, side conditions and the
    negated claim) as z3 is asked it, in canonical form.

    The text is printed from a fresh z3 context, like the one each call of the checker
    gets: in the shared default context, which subterms z3 prints as ``let`` bindings
    depends on every other term alive in the process.
    """
    text = Query(obligation, integers).solver(1).to_smt2()
    return _canonical(text)


def key(obligation: Obligation, timeout_ms: int, limit: int = CONSTANT_LIMIT) -> str:
    """Return the cache key of ``obligation`` checked with a budget of ``timeout_ms`` per call.

    The key is a SHA-256 digest of the text z3 sees (the obligation's relaxed and
    integer SMT-LIB queries), the formulas as sympy trees, the solver and its version,
    the limits, and the checker's source (see the module docstring).
    """
    parts = [
        f"format {FORMAT}",
        solver_version(),
        f"timeout_ms {int(timeout_ms)} constant_limit {int(limit)}",
        f"rlimit_per_ms {budget.RLIMIT_PER_MS} cpu_factor {budget.CPU_FACTOR} "
        f"wall_clock_factor {budget.WALL_CLOCK_FACTOR}",
        f"checker {_sources_digest()}",
        obligation.name,
        obligation.family,
        obligation.expected.value,
        sp.srepr(obligation.constant),
        sp.srepr(obligation.claim),
        *(sp.srepr(a) for a in obligation.assumptions),
        f"via {sp.srepr(obligation.via)}",
        _query_text(obligation, integers=False),
        _query_text(obligation, integers=True),
    ]
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def _number(text: str) -> sp.Rational:
    value = sp.Rational(text)  # parses "p/q" and integers; never evaluates code
    if not isinstance(value, sp.Rational):
        raise ValueError(f"cached value {text!r} is not a rational number")
    return value


def _encode(result: Result) -> dict | None:
    if isinstance(result, Proved):
        values = {"witness": {k: str(sp.Rational(v)) for k, v in result.witness.items()}}
        values["method"] = result.method
    elif isinstance(result, Counterexample):
        values = {"point": {k: str(sp.Rational(v)) for k, v in result.point.items()}}
    else:
        return None  # an Unknown is never stored
    values.update(
        status=result.status,
        smtlib=result.smtlib,
        seconds=result.seconds,
        constant=result.constant,
        note=result.note,
    )
    return values


def _decode(obligation: Obligation, entry: dict) -> Result | None:
    """The stored result, re-checked against ``obligation``; None if it does not hold up."""
    constant = entry["constant"]
    instance = obligation if constant is None else obligation.at(int(constant))
    common = {
        "smtlib": str(entry["smtlib"]),
        "seconds": float(entry["seconds"]),
        "constant": None if constant is None else int(constant),
        "note": str(entry["note"]),
    }
    if entry["status"] == "proved":
        witness = {k: _number(v) for k, v in entry["witness"].items()}
        symbols = symbols_of(instance)
        subs = {sym: witness[name] for name, sym in symbols.items() if name in witness}
        # a symbol without a value leaves its assumptions unevaluated: not true, a miss
        for assumption in instance.assumptions:
            if assumption.subs(subs) is not sp.true:
                return None
        return Proved(str(entry["method"]), witness, **common)
    if entry["status"] == "counterexample":
        point = {k: _number(v) for k, v in entry["point"].items()}
        confirmed, _ = confirm(instance, point)
        if not confirmed:
            return None
        return Counterexample(point, sides_at(instance, point), **common)
    return None


class ProofCache:
    """Decided outcomes on disk, one JSON file per :func:`key`.

    Parameters
    ----------
    root : str or Path or None
        The directory; :func:`directory` when None.
    timeout_ms : int
        The budget of one z3 call, part of every key.
    limit : int
        The constant search's limit, part of every key.

    Examples
    --------
    >>> import tempfile
    >>> import sympy as sp
    >>> from attnio.proofs import Obligation, prove
    >>> x = sp.Symbol("x", integer=True, positive=True)
    >>> ob = Obligation("demo/square", "derivation", sp.Ge(x**2, x, evaluate=False), (),
    ...                 "holds", (), "x^2 >= x")
    >>> cache = ProofCache(tempfile.mkdtemp(), timeout_ms=3000)
    >>> cache.load(ob) is None
    True
    >>> cache.store(prove(ob, 3000))
    True
    >>> cache.load(ob).result.status
    'proved'
    """

    def __init__(
        self, root: str | Path | None = None, timeout_ms: int = 3000, limit: int = CONSTANT_LIMIT
    ) -> None:
        self.root = Path(root) if root is not None else directory()
        self.timeout_ms = int(timeout_ms)
        self.limit = int(limit)
        self.hits = 0
        self.misses = 0

    def path(self, obligation: Obligation) -> Path:
        """Return the file that holds (or would hold) ``obligation``'s outcome."""
        digest = key(obligation, self.timeout_ms, self.limit)
        return self.root / digest[:2] / f"{digest}.json"

    def load(self, obligation: Obligation) -> Outcome | None:
        """Return the stored outcome of ``obligation``, re-checked, or None.

        A missing, unreadable or malformed entry, or one whose counterexample sympy no
        longer confirms or whose witness breaks an assumption, is a miss (and a bad
        entry is removed).
        """
        path = self.path(obligation)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            result = _decode(obligation, entry)
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, ValueError, TypeError, KeyError, AttributeError, sp.SympifyError):
            result = None
        if result is None:
            with contextlib.suppress(OSError):  # a read-only cache keeps its bad entry
                path.unlink(missing_ok=True)
            self.misses += 1
            return None
        self.hits += 1
        return Outcome(obligation, result)

    def store(self, outcome: Outcome) -> bool:
        """Store ``outcome`` if it is decided (Proved or Counterexample); return whether it was.

        A directory that cannot be written (full, read-only) is not an error: the outcome
        is simply not stored (the next run proves it again), and
        :func:`~attnio.bounds.check_cache.warn_unwritable` says so once.
        """
        entry = _encode(outcome.result)
        if entry is None:
            return False
        return write_entry(self.path(outcome.obligation), entry, self.root)

    def clear(self) -> int:
        """Remove every stored entry; return how many files were removed."""
        return clear(self.root)


__all__ = ["FORMAT", "SOURCES", "ProofCache", "directory", "key", "solver_version"]
