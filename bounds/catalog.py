"""The catalog of bounds on the I/O complexity of attention, read from ``catalog.toml``.

Every record is data: one ``[[bound]]`` table of ``catalog.toml`` (package data, next to
this module), in the format of a user's claims (:mod:`attnio.bounds.reader`, docs/catalog.md).
It is read and validated once, when :mod:`attnio.bounds` is imported; an error names the
file, the record and the field. Evidence levels are those of docs/evidence.md; the status
of a record is never higher than its evidence. docs/results.md presents every record.

This module keeps what is not a record: the cache regimes, the substitution to full
density, the lookup and filters, and the published ranges attnio narrowed (:data:`AS_STATED`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from importlib import resources

import sympy as sp

from .errors import FilterError, UnknownBoundError
from .reader import parse_catalog
from .record import Bound, Cache, Kind, Pass, Regime, Status, member
from .symbols import Z_QK, M, Z, Z_in, d, n, s, s_c

CATALOG_FILE = "catalog.toml"
"""The catalog's file name inside the package ``attnio.bounds``."""

CACHE_BOUNDARY = d**2
"""The M where the small cache (M < d^2) ends and the large cache (M >= d^2) begins."""

LARGE_CACHE = M >= CACHE_BOUNDARY
SMALL_CACHE = M < CACHE_BOUNDARY

STANDARD_AS_STATED = sp.And(d <= M, M <= n * d)
"""DFE22 Thm 2 and Thm 5 state O(nd + n^2) for standard attention on d <= M <= nd."""

FULL_DENSITY = {Z: n**2, Z_QK: n**2, Z_in: n * d, s: 1, s_c: 1}
"""Substitution that turns a sparse record into its dense counterpart."""


_SCALE = sp.Symbol("K", integer=True, positive=True)
_DIAGONAL = {n: 100 * _SCALE**2, d: 100 * _SCALE**2, M: 100 * _SCALE**2}
"""n = d = M = 100 K^2: inside d <= M <= nd, below M = d^2."""

AS_STATED: dict[str, tuple[sp.Basic, str, dict[sp.Symbol, sp.Expr], sp.Symbol]] = {
    "standard-forward-upper": (
        STANDARD_AS_STATED,
        "dense-forward-lower-small-derived",
        _DIAGONAL,
        _SCALE,
    ),
    "standard-backward-upper": (
        STANDARD_AS_STATED,
        "dense-backward-lower-small-derived",
        _DIAGONAL,
        _SCALE,
    ),
}
"""Upper records whose published range attnio narrowed: record name -> (the range as
published, the lower record that refutes it, a witness point as a function of a positive
integer K, K). At the witness point, inside the published range, the lower bound exceeds
K times the record's asymptotic expression for every K: no constant makes the published
O(...) hold on its published range (obligations refutation/*)."""


def load() -> tuple[Bound, ...]:
    """Read and validate the shipped ``catalog.toml``: every record, in file order.

    Raises
    ------
    RecordError
        A record of the file is malformed (the message names the file, record and field).
    """
    resource = resources.files(__package__).joinpath(CATALOG_FILE)
    return parse_catalog(resource.read_text(encoding="utf-8"), source=str(resource))


_CATALOG: tuple[Bound, ...] = load()


def loaded() -> tuple[Bound, ...]:
    """Return the catalog in use: the same tuple object until it is replaced (a test or
    ``benchmarks/mutants.py`` swaps it), so a derived result can be cached on its identity.

    Examples
    --------
    >>> loaded() is loaded() and len(loaded()) == len(catalog())
    True
    """
    return _CATALOG


def _choices(value: str | None, enum_type: type, what: str) -> object:
    return None if value is None else member(enum_type, value, f"{what}={value!r}", FilterError)


def catalog(
    *,
    regime: str | None = None,
    pass_: str | None = None,
    cache: str | None = None,
    kind: str | None = None,
    status: str | None = None,
    algorithm: str | None = None,
    records: Sequence[Bound] | None = None,
) -> tuple[Bound, ...]:
    """Return the bounds that match every given filter, in catalog order.

    A ``cache`` filter of ``small`` or ``large`` also returns the records whose
    cache is ``any``, since they apply there too. ``records`` filters a catalog of
    one's own (:func:`attnio.bounds.reader.read_catalog`) instead of attnio's.

    Raises
    ------
    FilterError
        If a filter value is not one of its choices.

    Examples
    --------
    >>> [b.name for b in catalog(regime="dense", pass_="forward", kind="tight")]
    ['dense-forward-tight']
    """
    want_regime = _choices(regime, Regime, "regime")
    want_pass = _choices(pass_, Pass, "pass")
    want_cache = _choices(cache, Cache, "cache")
    want_kind = _choices(kind, Kind, "kind")
    want_status = _choices(status, Status, "status")

    def keep(bound: Bound) -> bool:
        if want_regime is not None and bound.regime is not want_regime:
            return False
        if want_pass is not None and bound.pass_ is not want_pass:
            return False
        if want_cache is not None and bound.cache not in (want_cache, Cache.ANY):
            return False
        if want_kind is not None and bound.kind is not want_kind:
            return False
        if want_status is not None and bound.status is not want_status:
            return False
        return algorithm is None or bound.algorithm == algorithm

    return tuple(bound for bound in (_CATALOG if records is None else records) if keep(bound))


def get(name: str) -> Bound:
    """Return the bound called ``name``.

    Raises
    ------
    UnknownBoundError
        If no bound has that name; the message lists the close names.

    Examples
    --------
    >>> get("dense-forward-tight").source
    'SY24 Thm 3.1'
    """
    if not isinstance(name, str):
        raise UnknownBoundError(
            f"name={name!r} must be a bound's name, a string such as 'dense-forward-tight'"
        )
    for bound in _CATALOG:
        if bound.name == name:
            return bound
    import difflib

    close = difflib.get_close_matches(name, [b.name for b in _CATALOG], n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UnknownBoundError(f"no bound named {name!r}{hint}")


def cells() -> Iterable[tuple[Regime, Pass, Cache]]:
    """Every (regime, pass, cache) cell the catalog must cover, cache small or large."""
    for regime in Regime:
        for pass_ in Pass:
            for cache in (Cache.SMALL, Cache.LARGE):
                yield regime, pass_, cache
