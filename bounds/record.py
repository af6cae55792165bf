"""The bound record: one frozen value per published or derived bound.

A formula is typed once, in a :class:`Bound`. Tables, z3 obligations,
numeric checks, pebbling checks and plots all read the record.
"""

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass, field
from numbers import Real

import sympy as sp

from . import rational, symbols
from .errors import BoundParameterError, RecordError
from .masks import FAMILIES


class Kind(enum.StrEnum):
    """What a bound says about the I/O cost Q.

    ``lower``: every algorithm (pebbling) costs at least this. ``upper``: a named
    algorithm costs at most this. ``tight``: both, up to constant factors.
    """

    UPPER = "upper"
    LOWER = "lower"
    TIGHT = "tight"


class Regime(enum.StrEnum):
    """Which attention: dense, sparse (masked or sparse inputs) or approximate."""

    DENSE = "dense"
    SPARSE = "sparse"
    APPROXIMATE = "approximate"


class Pass(enum.StrEnum):
    """Forward pass (compute O) or backward pass (compute dQ, dK, dV)."""

    FORWARD = "forward"
    BACKWARD = "backward"


class Cache(enum.StrEnum):
    """Cache regime: ``small`` is M < d^2, ``large`` is M >= d^2, ``any`` is both."""

    SMALL = "small"
    LARGE = "large"
    ANY = "any"


class Status(enum.StrEnum):
    """Evidence level (docs/evidence.md). Never upgraded beyond the evidence.

    ``stated``: read in the paper's theorem text. ``stated-secondary``: read in
    summaries of the paper. ``reconstructed``: shape inferred, unverified.
    ``derived``: derived by attnio, every algebraic step z3-checked (see
    ``proofs/derivations``), or an exact count of an attnio schedule that the
    two-level machine reproduces. ``claimed-unretrieved``: the paper claims a
    result whose statement we could not read. ``open``: nothing is known; the
    record's notes say why. ``claimed``: a user's claim, not yet evidence (the
    records ``attnio check`` reads; never in the catalog, never asserted by attnio).
    """

    STATED = "stated"
    STATED_SECONDARY = "stated-secondary"
    RECONSTRUCTED = "reconstructed"
    DERIVED = "derived"
    CLAIMED_UNRETRIEVED = "claimed-unretrieved"
    OPEN = "open"
    CLAIMED = "claimed"


EXHAUSTIVE_SIZE: int | None = None
"""The size k up to which the lemmas of the derived lower bounds are checked on every part
of their graphs, once such checks exist (None: not yet); :func:`derived_lower_evidence`
then says so."""


def derived_lower_evidence() -> str:
    """What a ``derived`` lower bound rests on, as every output states it (docs/evidence.md).

    >>> derived_lower_evidence()
    'algebra machine-checked; combinatorial lemmas proved by hand'
    """
    text = "algebra machine-checked; combinatorial lemmas proved by hand"
    if EXHAUSTIVE_SIZE is not None:
        text += f"; checked on every part of graphs up to size {EXHAUSTIVE_SIZE}"
    return text


def member(enum_type: type[enum.Enum], value: object, described: str, error: type = RecordError):
    """Return ``enum_type(value)``, or raise ``error`` saying ``described`` is not a choice.

    ``described`` names the argument and its value (``"regime='quantum'"``); the message
    lists the valid values.
    """
    try:
        return enum_type(value)
    except ValueError:
        valid = ", ".join(item.value for item in enum_type)
        raise error(f"{described} is not one of: {valid}") from None


_ASYMPTOTIC_PREFIX = {Kind.UPPER: "O", Kind.LOWER: "Omega", Kind.TIGHT: "Theta"}


def _as_expr(value: object, what: str, name: str) -> sp.Expr | None:
    if value is None:
        return None
    expr = sp.sympify(value)
    unknown = {str(sym) for sym in expr.free_symbols} - set(symbols.ALL)
    if unknown:
        raise RecordError(
            f"bound {name!r}: {what} uses symbols {sorted(unknown)} that are not declared "
            f"in attnio.bounds.symbols (declared: {sorted(symbols.ALL)})"
        )
    return expr


QUOTING = (Status.STATED, Status.STATED_SECONDARY, Status.RECONSTRUCTED)
"""Evidence levels whose record quotes (or reconstructs) a paper's statement, and so may
record the range that statement is made for (``source_range``)."""

BASE_PARAMETERS = frozenset({"n", "d", "M"})
"""The problem sizes every record may use."""

SHAPE_PARAMETERS = frozenset({"n_q", "n_kv", "h_q", "h_kv"})
"""The sizes of a shape record (n_q x n_kv, grouped-query heads) in place of n."""


@dataclass(frozen=True)
class Bound:
    """One bound on the I/O cost of attention.

    Parameters
    ----------
    name : str
        Unique key, lowercase words joined by hyphens.
    kind, regime, pass_, cache, status
        See :class:`Kind`, :class:`Regime`, :class:`Pass`, :class:`Cache`,
        :class:`Status`.
    asymptotic : sympy.Expr or None
        The growth rate inside O / Omega / Theta. ``None`` only for ``open``
        and ``claimed-unretrieved`` records.
    explicit : sympy.Expr or None
        The non-asymptotic form with constants and lower-order terms, when
        one is known. An explicit lower bound holds for *every* instance that
        satisfies ``conditions``; an explicit upper bound is the exact cost of
        the named algorithm, or a proven upper bound on it.
    conditions : sympy.Boolean
        Where the bound applies, over the symbols of :mod:`attnio.bounds.symbols`.
    source : str
        Paper short name (docs/references.md) and theorem, or the attnio module that
        derives it.
    algorithm : str or None
        For upper bounds, the algorithm whose cost this is.
    mask : str or None
        For sparse records about one mask family, its name (a key of
        :data:`attnio.bounds.masks.FAMILIES`: ``causal``, ``window``, ``band`` ...);
        its parameters (``w``) are symbols of the record.
    notes : str
        Model caveats, which formulation, why something is open.
    reduces_to : str or None
        For sparse records, the dense record this one must equal at full
        density (``catalog.FULL_DENSITY``).
    label : str
        The reader's name of the record in tables and figure legends
        (:func:`attnio.bounds.labels.label`); empty when it has none.
    source_range : sympy.Boolean or None
        The range of the cited statement as its source states it (``d <= M and M <=
        d*n`` for DFE22 Thm 2), for records that quote a paper (:data:`QUOTING`); the
        record's conditions must imply it (provenance check
        :func:`attnio.bounds.provenance.check_conditions_within_source_range`). ``None``
        when it is not recorded.
    """

    name: str
    kind: Kind
    regime: Regime
    pass_: Pass
    cache: Cache
    asymptotic: sp.Expr | None
    explicit: sp.Expr | None
    conditions: sp.Basic
    source: str
    status: Status
    algorithm: str | None = None
    mask: str | None = None
    notes: str = ""
    reduces_to: str | None = None
    label: str = ""
    source_range: sp.Basic | None = None
    parameters: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        for attr, enum_type in (
            ("kind", Kind),
            ("regime", Regime),
            ("pass_", Pass),
            ("cache", Cache),
            ("status", Status),
        ):
            raw = getattr(self, attr)
            chosen = member(enum_type, raw, f"bound {self.name!r}: {attr}={raw!r}")
            object.__setattr__(self, attr, chosen)
        object.__setattr__(self, "asymptotic", _as_expr(self.asymptotic, "asymptotic", self.name))
        object.__setattr__(self, "explicit", _as_expr(self.explicit, "explicit", self.name))
        conditions = sp.true if self.conditions is None else sp.sympify(self.conditions)
        _as_expr(conditions, "conditions", self.name)
        object.__setattr__(self, "conditions", conditions)
        if self.mask is not None:
            if self.mask not in FAMILIES:
                raise RecordError(
                    f"bound {self.name!r}: mask={self.mask!r} is not one of: {', '.join(FAMILIES)}"
                )
            if self.regime is not Regime.SPARSE:
                raise RecordError(
                    f"bound {self.name!r}: mask={self.mask!r} applies only to regime 'sparse', "
                    f"not {self.regime.value!r}"
                )
        if self.source_range is not None:
            source_range = sp.sympify(self.source_range)
            _as_expr(source_range, "source_range", self.name)
            if source_range is sp.false:
                raise RecordError(f"bound {self.name!r}: source_range is always false")
            if self.status not in QUOTING:
                raise RecordError(
                    f"bound {self.name!r}: source_range is the range a cited paper states; "
                    f"status {self.status.value!r} quotes no paper (it needs one of: "
                    f"{', '.join(s.value for s in QUOTING)})"
                )
            object.__setattr__(self, "source_range", source_range)
        if self.asymptotic is None and self.status not in (
            Status.OPEN,
            Status.CLAIMED_UNRETRIEVED,
            Status.CLAIMED,
        ):
            raise RecordError(
                f"bound {self.name!r}: asymptotic=None is only allowed for status "
                f"'open', 'claimed-unretrieved' or 'claimed', not {self.status.value!r}"
            )
        if self.status is Status.CLAIMED and self.asymptotic is None and self.explicit is None:
            raise RecordError(
                f"bound {self.name!r}: a 'claimed' record needs an explicit or an "
                "asymptotic expression"
            )
        if self.status is Status.OPEN and (
            self.asymptotic is not None or self.explicit is not None
        ):
            raise RecordError(f"bound {self.name!r}: an 'open' record carries no expression")
        used: set[sp.Symbol] = set(self.conditions.free_symbols)
        for expr in (self.asymptotic, self.explicit):
            if expr is not None:
                used |= expr.free_symbols
        names = tuple(sorted(str(sym) for sym in used))
        object.__setattr__(self, "parameters", names)

    # ------------------------------------------------------------------ display
    @property
    def notation(self) -> str:
        """The asymptotic statement as plain text, e.g. ``Theta(n**2*d)``."""
        if self.asymptotic is None:
            if self.status is Status.CLAIMED:
                return f"claimed: {sp.sstr(self.explicit)}"
            return "unknown" if self.status is Status.OPEN else "claimed, not retrieved"
        return f"{_ASYMPTOTIC_PREFIX[self.kind]}({sp.sstr(self.asymptotic)})"

    def latex(self) -> str:
        """The asymptotic statement in LaTeX math (no dollar signs)."""
        if self.asymptotic is None:
            if self.status is Status.CLAIMED:
                return sp.latex(self.explicit)
            return r"\text{" + ("unknown" if self.status is Status.OPEN else "claimed") + "}"
        prefix = {Kind.UPPER: "O", Kind.LOWER: r"\Omega", Kind.TIGHT: r"\Theta"}[self.kind]
        return rf"{prefix}\left({sp.latex(self.asymptotic, mul_symbol='dot')}\right)"

    def _repr_latex_(self) -> str:
        explicit = "" if self.explicit is None else rf",\quad Q = {sp.latex(self.explicit)}"
        if self.kind is Kind.LOWER and self.explicit is not None:
            explicit = rf",\quad Q \geq {sp.latex(self.explicit)}"
        elif self.kind is Kind.UPPER and self.explicit is not None:
            explicit = rf",\quad Q \leq {sp.latex(self.explicit)}"
        return rf"$\text{{{self.name}}}:\ {self.latex()}{explicit}$"

    def comparable(self, upper: Bound) -> bool:
        """Return whether this (lower) bound and ``upper`` speak of the same instances.

        Same regime and pass, and ``upper`` uses every parameter beyond n, d and M that
        this bound uses, so both can be evaluated at one point. A bound about one mask
        family (``mask``) speaks only of that family's masks: ``upper`` must be of the same
        family, or hold for every mask without a mask parameter (s, Z ...) this bound lacks.
        Both are written in the shape symbols or neither is (n is not n_q or n_kv: a square
        record and a shape record speak of different instances).
        """
        extra = set(self.parameters) - BASE_PARAMETERS
        # about one mask family: comparable with records of that family, or with records
        # for every mask that need no parameter of the mask beyond this one's
        other_family = self.mask is not None and upper.mask != self.mask
        if other_family and (
            upper.mask is not None or set(upper.parameters) - BASE_PARAMETERS - extra
        ):
            return False
        shaped = bool(set(self.parameters) & SHAPE_PARAMETERS)
        return (
            self.regime is upper.regime
            and self.pass_ is upper.pass_
            and extra <= set(upper.parameters)
            and shaped == bool(set(upper.parameters) & SHAPE_PARAMETERS)
        )

    # --------------------------------------------------------------- evaluation
    def applies(self, **params: Real) -> bool:
        """Return whether ``conditions`` hold at ``params``.

        Raises
        ------
        BoundParameterError
            If a parameter the conditions need is missing or invalid.
        """
        subs = _substitutions(self, _named(self.conditions), params)
        value = _at(self.conditions, subs)
        if value not in (sp.true, sp.false):
            raise BoundParameterError(
                f"bound {self.name!r}: conditions {self.conditions} do not decide at {params}"
            )
        return bool(value)

    def evaluate(
        self, *, which: str = "explicit", exact: bool = True, check: bool = True, **params: Real
    ) -> sp.Expr | float:
        """Evaluate the explicit (default) or asymptotic expression at ``params``.

        Parameters
        ----------
        which : {"explicit", "asymptotic"}
            Which expression to evaluate.
        exact : bool
            Return an exact sympy number (a Rational where the value is
            rational) rather than a float.
        check : bool
            Refuse parameters outside ``conditions``.
        **params
            Values for the symbols, by printed name (``n``, ``d``, ``M`` ...).

        Raises
        ------
        BoundParameterError
            If a needed parameter is missing, nonpositive, not an integer where
            the symbol is one, or outside the bound's conditions, or a keyword is
            not a parameter name (a misspelt ``m=`` is refused, not ignored).

        Examples
        --------
        >>> from attnio.bounds import get
        >>> get("dense-forward-compulsory").evaluate(n=8, d=2, M=16)
        64
        """
        if which not in ("explicit", "asymptotic"):
            raise BoundParameterError(f"which={which!r} is not one of: explicit, asymptotic")
        expr = self.explicit if which == "explicit" else self.asymptotic
        if expr is None:
            raise BoundParameterError(f"bound {self.name!r} has no {which} expression")
        named = _named(expr, self.conditions) if check else _named(expr)
        subs = _substitutions(self, named, params)
        if check:
            held = _at(self.conditions, subs)
            if held is not sp.true:
                raise BoundParameterError(
                    f"bound {self.name!r} does not apply at "
                    f"{', '.join(f'{k}={v}' for k, v in sorted(params.items()))}: "
                    f"its conditions are {self.conditions}"
                )
        value = _at(expr, subs)
        if exact:
            return value
        return float(value)


def _at(formula: sp.Basic, subs: dict) -> sp.Basic:
    """``formula`` with every symbol of ``subs`` replaced by its number at once.

    ``subs`` replaces one symbol at a time, and sympy rebuilds (and reasons about the signs
    of) every partly substituted floor, ceiling and Piecewise on the way; ``xreplace``
    replaces all at once, so only numbers are evaluated: the same values (compared on 5,100
    evaluations of the catalog's expressions and conditions, and by
    ``tests/test_record.py``), about 28 times faster, and the closed forms were 90% of the
    processor time of ``attnio verify``'s algorithm checks (issue 22). Where building the
    numbers raises (a condition compares an infinity, ``1 <= ceiling(1/0)``, that ``subs``
    never reaches because an earlier condition of the conjunction is already false), it is
    ``subs`` as before.
    """
    try:
        key = tuple(subs.items())
        hash(key)
    except TypeError:  # a value sympy can take but not hash: no memo
        return rational.value_at(formula, tuple(subs.items()))
    return _at_point(formula, key)


@functools.lru_cache(maxsize=65536)
def _at_point(formula: sp.Basic, point: tuple) -> sp.Basic:
    """:func:`_at`, memoized by the formula and the point (its symbol -> number pairs, in
    the order :func:`_substitutions` builds them): a simulation evaluates its count record
    at its point and the algorithm checks evaluate it again (``closed_form``), and the
    numeric and counting grids share their points; the value is an immutable sympy number,
    the same object each time (:func:`attnio.bounds.rational.value_at`: exact rational
    arithmetic where the value is rational, sympy otherwise)."""
    return rational.value_at(formula, point)


@functools.lru_cache(maxsize=1024)
def _named(*formulas: sp.Basic) -> tuple[tuple[sp.Symbol, str], ...]:
    """The symbols of ``formulas`` with their names, in name order.

    Memoized per formula: the records are evaluated at thousands of points (the algorithm
    checks, the claims' grid), and walking a count's tree for its symbols and printing
    each symbol to sort them took a fifth of each evaluation.
    """
    found = set().union(*(formula.free_symbols for formula in formulas))
    return tuple((sym, str(sym)) for sym in sorted(found, key=str))


def _substitutions(
    bound: Bound, needed: tuple[tuple[sp.Symbol, str], ...], params: dict[str, Real]
) -> dict:
    unknown = sorted(set(params) - set(symbols.ALL))
    if unknown:
        import difflib

        close = [name for name in symbols.ALL if name.lower() == unknown[0].lower()]
        close = close or difflib.get_close_matches(unknown[0], list(symbols.ALL), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise BoundParameterError(
            f"bound {bound.name!r} got unknown parameter {unknown[0]!r}{hint}; it takes "
            f"{', '.join(name for _, name in needed) or 'no parameters'}, and every parameter "
            f"name is one of {', '.join(symbols.ALL)}"
        )
    subs = {}
    for sym, name in needed:
        if name not in params:
            raise BoundParameterError(
                f"bound {bound.name!r} needs parameter {name!r}; got only "
                f"{sorted(params) or 'none'}"
            )
        subs[sym] = _check_value(name, params[name])
    return subs


def _check_value(name: str, value: object) -> sp.Expr:
    if type(value) is int:  # the common case (grid points, simulated runs): no sympy compare
        if value < 0 or (value == 0 and name not in symbols.NONNEGATIVE_NAMES):
            qualifier = "nonnegative" if name in symbols.NONNEGATIVE_NAMES else "positive"
            raise BoundParameterError(f"parameter {name}={value!r} must be {qualifier}")
        return sp.Integer(value)
    if isinstance(value, bool) or not isinstance(value, (Real, sp.Number)):
        raise BoundParameterError(f"parameter {name}={value!r} must be a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise BoundParameterError(f"parameter {name}={value!r} must be finite")
    number = sp.Rational(value) if isinstance(value, float) else sp.sympify(value)
    if name in symbols.INTEGER_NAMES and not number.is_integer:
        raise BoundParameterError(f"parameter {name}={value!r} must be an integer")
    if name in symbols.NONNEGATIVE_NAMES:
        if number < 0:
            raise BoundParameterError(f"parameter {name}={value!r} must be nonnegative")
    elif number <= 0:
        raise BoundParameterError(f"parameter {name}={value!r} must be positive")
    return number
