"""The window at one point: the best derived lower bound and the best exact count there.

At one instance (n, d, M and any other parameter the records use), every lower record of
a regime and pass whose conditions hold bounds the optimum I/O from below, and every
exact count of an attnio schedule that runs there bounds it from above. The optimum lies
in the window [best derived lower bound, best count]. This is the one evaluation that
``attnio gap`` (:mod:`attnio.proofs.gap`) and ``attnio check``'s window for a claim
neither proved nor refuted (:mod:`attnio.claims.window`) both read.

Only ``derived`` lower records count as the best lower bound (attnio's own, every
algebraic step z3-checked, combinatorial lemmas proved by hand: docs/evidence.md); the
others that apply are kept apart (:attr:`Window.others`), never mixed in. Only
``derived`` upper records that name an algorithm count as schedules: exact closed forms
the two-level machine reproduces.

Every value is exact (sympy integers, rationals and algebraic numbers at the point);
records are ordered by their values at :data:`DIGITS` significant digits, which can
misorder only values that agree to that many digits, where either choice names the same
number to the precision any output shows.

References
----------
docs/evidence.md (evidence levels), docs/results.md (the records).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import sympy as sp

from .catalog import catalog
from .errors import BoundParameterError
from .pebblings import extra_red, read_at
from .record import Bound, Kind, Status

DIGITS = 60
"""Significant digits at which records' exact values are ordered and ratios shown."""


@dataclass(frozen=True)
class Standing:
    """One record's exact value at a point.

    Attributes
    ----------
    record : str
        The record's name.
    status : str
        Its evidence level.
    value : sympy.Expr
        Its explicit expression at the point, exact.
    algorithm : str or None
        The schedule whose count this is (upper records).
    """

    record: str
    status: str
    value: sp.Expr
    algorithm: str | None = None

    @property
    def number(self) -> float:
        """The value as a float (display and JSON only; comparisons use :func:`numeric`)."""
        return float(numeric(self.value))

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: record, status, value (a number), exact (sympy text), algorithm."""
        return {
            "record": self.record,
            "status": self.status,
            "value": int(self.value) if self.value.is_Integer else self.number,
            "exact": sp.sstr(self.value),
            "algorithm": self.algorithm,
        }


@dataclass(frozen=True)
class Window:
    """What the catalog says about the optimum I/O at one point.

    Attributes
    ----------
    regime, pass_ : str
        Which attention.
    point : dict
        The parameters, by name (integers).
    lower : Standing or None
        The largest ``derived`` explicit lower bound that applies (None: none applies).
    upper : Standing or None
        The least ``derived`` exact count of a schedule that runs there (None: none runs).
    lowers : tuple of Standing
        Every applicable ``derived`` explicit lower bound, largest first.
    counts : tuple of Standing
        Every applicable ``derived`` count, least first.
    others : tuple of Standing
        The applicable explicit lower bounds that are not ``derived`` (stated,
        stated-secondary, reconstructed), largest first: shown apart, never the best.
    """

    regime: str
    pass_: str
    point: dict[str, int]
    lowers: tuple[Standing, ...]
    counts: tuple[Standing, ...]
    others: tuple[Standing, ...]

    @property
    def lower(self) -> Standing | None:
        """The largest applicable ``derived`` lower bound (None: none applies)."""
        return self.lowers[0] if self.lowers else None

    @property
    def upper(self) -> Standing | None:
        """The least applicable ``derived`` count (None: no schedule runs)."""
        return self.counts[0] if self.counts else None


def numeric(value: sp.Expr) -> sp.Float:
    """``value`` at :data:`DIGITS` significant digits (mpmath underneath)."""
    return sp.N(value, DIGITS)


def format_point(point: Mapping[str, int]) -> str:
    """``n=4096, d=64, M=16384``: a point as the outputs show it."""
    return ", ".join(f"{name}={value}" for name, value in point.items())


def format_words(value: sp.Expr) -> str:
    """An exact integer with thousands separators; anything else to one decimal, marked
    ``~`` (the exact value is in the JSON)."""
    return f"{int(value):,}" if value.is_Integer else f"~{float(numeric(value)):,.1f}"


def format_ratio(value: sp.Expr, digits: int = 3) -> str:
    """A ratio to ``digits`` significant digits."""
    return f"{float(numeric(value)):.{digits}g}"


def _usable(record: Bound, point: Mapping[str, int]) -> bool:
    return record.explicit is not None and set(record.parameters) <= set(point)


def _standing(record: Bound, point: Mapping[str, int]) -> Standing | None:
    """The record's exact value at ``point``, or None if its conditions do not hold there."""
    try:
        if not record.applies(**point):
            return None
        value = record.evaluate(check=False, **point)
    except (BoundParameterError, ZeroDivisionError):
        return None
    if not value.is_number or not value.is_finite:
        return None
    return Standing(record.name, record.status.value, value, record.algorithm)


def find_window(
    regime: str,
    pass_: str,
    point: Mapping[str, int],
    *,
    records: Iterable[Bound] | None = None,
    mask: str | None = None,
) -> Window:
    """Return the window of the optimum I/O at ``point`` (module docstring).

    Parameters
    ----------
    regime, pass_ : str
        ``dense``, ``sparse`` or ``approximate``; ``forward`` or ``backward``.
    point : mapping
        Parameter values by name (``n``, ``d``, ``M`` ...). A record is used only when
        every parameter it names is given and its conditions hold at the point.
    records : iterable of Bound, optional
        The records to read (default: the whole catalog of that regime and pass).
    mask : str, optional
        The mask family of the point (a key of :data:`attnio.bounds.masks.FAMILIES`). A
        record about one family (its ``mask``) is used only at a point of that family: a
        causal count says nothing of another mask with the same n, d and M.

    Raises
    ------
    BoundParameterError
        A parameter of ``point`` is not a positive integer.

    Examples
    --------
    >>> window = find_window("dense", "forward", {"n": 1024, "d": 64, "M": 16384})
    >>> window.upper.algorithm, window.lower.status
    ('row-streaming', 'derived')
    """
    for name, value in point.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise BoundParameterError(
                f"point parameter {name}={value!r} must be a positive integer"
            )
    chosen = catalog(regime=regime, pass_=pass_) if records is None else tuple(records)
    lowers, counts, others = [], [], []
    for record in chosen:
        if record.regime.value != regime or record.pass_.value != pass_:
            continue
        if not _usable(record, point) or record.mask not in (None, mask):
            continue
        derived = record.status is Status.DERIVED
        if record.kind is Kind.LOWER:
            standing = _standing(record, point)
            if standing is not None:
                (lowers if derived else others).append(standing)
        elif record.kind is Kind.UPPER and derived and record.algorithm is not None:
            standing = _standing(record, point)
            if standing is not None:
                counts.append(standing)

    def largest_first(standing: Standing) -> sp.Float:
        return -numeric(standing.value)

    return Window(
        regime,
        pass_,
        dict(point),
        tuple(sorted(lowers, key=largest_first)),
        tuple(sorted(counts, key=lambda s: numeric(s.value))),
        tuple(sorted(others, key=largest_first)),
    )


def lower_for(
    count: Standing,
    regime: str,
    pass_: str,
    point: Mapping[str, int],
    *,
    records: Iterable[Bound] | None = None,
    mask: str | None = None,
) -> tuple[Standing | None, int | None]:
    """The best derived lower bound a schedule's count at ``point`` is compared with, and c.

    The schedule's run replays as a pebbling of its own graph with M + c red pebbles
    (:data:`attnio.bounds.pebblings.EXTRA_RED`), so it moves at least IO(G, M + c): the
    lower bound is the best derived one that applies at M + c (:func:`find_window` there).
    Where c is unknown (a user's count, a schedule that exports no pebbling: c None) the
    bound is read at M, as for c = 0.

    Examples
    --------
    >>> point = {"n": 1024, "d": 64, "M": 16384}
    >>> flash2 = next(s for s in find_window("dense", "forward", point).counts
    ...               if s.algorithm == "flash2")
    >>> lower, extra = lower_for(flash2, "dense", "forward", point)
    >>> extra, lower == find_window("dense", "forward", {**point, "M": 16387}).lower
    (3, True)
    """
    extra = extra_red(count.algorithm, pass_)
    at = read_at(dict(point), extra)
    return find_window(regime, pass_, at, records=records, mask=mask).lower, extra


__all__ = [
    "DIGITS",
    "Standing",
    "Window",
    "find_window",
    "format_point",
    "format_ratio",
    "format_words",
    "lower_for",
    "numeric",
]
