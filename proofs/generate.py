"""Obligations generated from the bound catalog: nothing here retypes a formula.

Every claim below is built from the expressions of catalog records, selected by
kind, regime, pass, cache and algorithm, so that new records (for instance the
exact counts of :mod:`attnio.bounds.counts`) become obligations automatically.
The families:

1. ``lower-le-upper``: every explicit lower bound <= every explicit upper bound
   (exact count) of the same regime and pass, where both apply.
2. ``tightness``: for each Theta record with a two-branch ``Min``, each side of
   its crossover, and each algorithm whose asymptotic upper record has the
   order of that side's branch: its exact count <= C * max(explicit lower
   bounds of that side), with the smallest integer C that z3 proves.
3. ``crossover``: the branches meet at the computed crossover, and the ``Min``
   equals the stated small-cache record below it and the large-cache one above.
4. ``reduction``: sparse records at full density equal (lower) or are
   Theta-equal (upper) to their dense counterparts; approximate upper records
   are >= the compulsory term; backward records dominate forward ones.
5. ``comparison``: the paper comparisons of :data:`PAPER_COMPARISONS`, on exact
   counts, plus the planted false claim (family ``planted``).
6. ``monotonicity``: every expression is non-increasing in M and
   non-decreasing in n and d over its conditions.

Expectation policy (see :mod:`attnio.proofs.obligation`): a claim is expected
to hold when every record it rests on is ``stated``, ``stated-secondary`` or
``derived``; it is ``open`` when a record is ``reconstructed``, and for claims
attnio does not assert (monotonicity and ordering of exact counts).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import sympy as sp

from attnio.bounds import (
    Bound,
    Cache,
    Kind,
    Pass,
    Regime,
    Status,
    catalog,
    crossover,
    get,
)
from attnio.bounds.catalog import FULL_DENSITY
from attnio.bounds.crossover import min_branches
from attnio.bounds.record import BASE_PARAMETERS
from attnio.bounds.symbols import M, d, n, r

from .derivation import count_chain, majorant, minorant
from .obligation import Expectation, Obligation

SOLID = frozenset({Status.STATED, Status.STATED_SECONDARY, Status.DERIVED})
"""Evidence levels under which a claim is expected to hold."""

CONSTANT = sp.Symbol("C", positive=True)
"""The constant of tightness and comparison claims, searched by ``check.prove``."""

PAPER_COMPARISONS: tuple[tuple[str, str], ...] = (
    ("flash-forward-upper", "square-tiling-forward-upper"),
    ("flash-backward-upper", "small-cache-backward-upper"),
)
"""(slower, faster) asymptotic upper records compared below the crossover (SY24 Sec. 3,
LLSSZ24): the faster algorithm beats the slower by the ratio of their asymptotics. Record
names only: the ratio is computed from the records."""

PAPER_REGIME = d <= n
"""The papers compare algorithms for sequences at least as long as the head dimension; each
comparison is also generated without it (``-any-n``, open) to see what happens outside."""


def _expect(*records: Bound) -> Expectation:
    return Expectation.HOLDS if all(r.status in SOLID for r in records) else Expectation.OPEN


def _is_count(bound: Bound) -> bool:
    return bound.kind is Kind.UPPER and bound.algorithm is not None and bound.explicit is not None


def _expressions(bound: Bound) -> Iterable[tuple[str, sp.Expr]]:
    for which in ("explicit", "asymptotic"):
        expr = getattr(bound, which)
        if expr is not None:
            yield which, expr


def _conditions(*records: Bound) -> tuple[sp.Basic, ...]:
    found: list[sp.Basic] = []
    for record in records:
        if record.conditions is not sp.true and record.conditions not in found:
            found.append(record.conditions)
    return tuple(found)


# --------------------------------------------------------------- 1. lower <= upper
def lower_le_upper() -> list[Obligation]:
    """Every explicit lower bound <= every explicit upper bound of its regime and pass.

    Each goes through the lower record's majorant (for this count, if
    :data:`~attnio.proofs.derivation.PAIR_MAJORANTS` has one, else
    :data:`~attnio.proofs.derivation.MAJORANTS`'s) and the count's minorant
    (:data:`~attnio.proofs.derivation.COUNT_MINORANTS`) where they exist, else it is
    checked directly.
    """
    lowers = [b for b in catalog(kind=Kind.LOWER) if b.explicit is not None]
    uppers = [b for b in catalog(kind=Kind.UPPER) if b.explicit is not None]
    found = []
    for lower, upper in itertools.product(lowers, uppers):
        if not lower.comparable(upper):
            continue
        found.append(
            Obligation(
                f"lower-le-upper/{lower.name}<={upper.name}",
                "lower-le-upper",
                sp.Le(lower.explicit, upper.explicit, evaluate=False),
                _conditions(lower, upper),
                _expect(lower, upper),
                (lower.name, upper.name),
                f"the explicit lower bound {lower.name} is at most {upper.name} where both apply",
                via=_chain(majorant(lower.name, upper.name), *count_chain(upper.name)),
            )
        )
    return found


def _chain(*terms: sp.Expr | None) -> tuple[sp.Expr, ...] | None:
    """The intermediate terms given (None left out), or None when there are none."""
    found = tuple(term for term in terms if term is not None)
    return found or None


# --------------------------------------------------------------- 2. tightness
_PROBE = {n: 64, d: 8}


def _sides(bound: Bound) -> list[tuple[Cache, sp.Basic, sp.Expr]]:
    """(cache, condition, branch of the Min there) for a two-branch Min record."""
    branches = min_branches(bound)
    point = crossover(bound)
    sides = []
    for cache, condition, factor in (
        (Cache.SMALL, point > M, sp.Rational(1, 4)),
        (Cache.LARGE, point <= M, 4),
    ):
        at = {**_PROBE, M: point.subs(_PROBE) * factor}
        values = [b.subs(at) for b in branches]
        branch = branches[0] if values[0] <= values[1] else branches[1]
        sides.append((cache, condition, branch))
    return sides


def _same_order(expr: sp.Expr, branch: sp.Expr) -> bool:
    """Whether expr / branch is free of M and tends to a positive constant as n grows."""
    ratio = sp.simplify(expr / branch)
    if M in ratio.free_symbols:
        return False
    limit = sp.limit(ratio, n, sp.oo)
    return bool(limit.is_number and limit.is_positive and limit.is_finite)


CORNER_PAIRS = {
    (pass_name, cache): (
        f"dense-{pass_name}-lower-{cache.value}-segments-corner",
        f"dense-{pass_name}-compulsory",
    )
    for pass_name in ("forward", "backward")
    for cache in (Cache.LARGE, Cache.SMALL)
}
"""Per dense cell, the corner bound of ``proofs/derivations/lower-segments.md`` and the
compulsory I/O: the second lower term the tightness table's constants are searched against.

With these two alone in the max z3 bounds every count of the table, the four of
:data:`UNBOUNDED_ALGORITHMS` too (measured 2026-11-26 with the search of
:func:`attnio.proofs.check.prove`: 3 to 30 s a search; the obligations are named in
:data:`attnio.proofs.rounding.TIGHT_FLOORS`, which halves most of their constants); with a
third record in the max (the sharp bound of the large cell) the searches end unknown at
every C up to 4096, as they do with the corner bounds added to the max of
:func:`tightness_table` (see :data:`OUT_OF_CONSTANTS`). Both records are derived lower bounds of the cell, so a C proved
against their max is proved against the max of every derived bound."""


OUT_OF_CONSTANTS = tuple(corner for corner, _ in CORNER_PAIRS.values())
"""The corner bounds of :data:`CORNER_PAIRS`: derived lower bounds z3 compares with every
count directly but that are left out of the max :func:`tightness_table`'s constants are
searched against: with the two small-cache corner bounds of
``proofs/derivations/lower-segments.md`` in it, four of the six small-cache searches ended
unknown (``benchmarks/constants.py --record --only stale``, 2026-11-25, 703 s of searches;
square tiling forward went 26 -> 21, the other four from 41..54 to none), and
``attnio verify`` spent up to 196 s settling each unknown one; with the two large-cache
corner bounds in it, all four large-cache searches ended unknown (2026-11-26, 219 s of
searches; FlashAttention forward 110 and 89, FlashAttention-2 forward 423 and
FlashAttention backward 578 to none). Not kept."""


def _explicit_lowers(regime: object, pass_: object, cache: Cache) -> list[Bound]:
    """The explicit lower bounds a cell's constants are taken against (the max of them).

    A record that z3 compares with the counts only through an intermediate term
    (:func:`attnio.proofs.derivation.majorant`) is left out: inside the max its mixed
    denominator keeps z3 from deciding any constant (measured: every small-cache search
    ended unknown with the per-family bounds in the max, and proved C = 26 to 54 without
    them). So are the records of :data:`OUT_OF_CONSTANTS`. A constant against the max of
    the others is still a proved constant.
    """
    return [
        b
        for b in catalog(regime=regime, pass_=pass_, kind=Kind.LOWER)
        if b.explicit is not None
        and b.cache in (cache, Cache.ANY)
        and set(b.parameters) <= BASE_PARAMETERS
        and majorant(b.name) is None
        and b.name not in OUT_OF_CONSTANTS
    ]


def _counts(regime: object, pass_: object, algorithm: str) -> list[Bound]:
    return [
        b
        for b in catalog(regime=regime, pass_=pass_, kind=Kind.UPPER, algorithm=algorithm)
        if b.explicit is not None
    ]


def _smooth(lowers: list[Bound]) -> sp.Expr | None:
    """C * the max of ``lowers`` with each record's smooth minorant in its place, or None
    when no record has one (:data:`attnio.proofs.derivation.MINORANTS`)."""
    terms = [minorant(b.name) for b in lowers]
    if all(term is None for term in terms):
        return None
    return CONSTANT * sp.Max(
        *[b.explicit if t is None else t for b, t in zip(lowers, terms, strict=True)]
    )


def tightness() -> list[Obligation]:
    """Exact counts of algorithms claimed optimal on a side are <= C * the explicit lower bounds."""
    found = []
    for tight in catalog(kind=Kind.TIGHT):
        if min_branches(tight) is None:
            continue
        for cache, condition, branch in _sides(tight):
            lowers = _explicit_lowers(tight.regime, tight.pass_, cache)
            if not lowers:
                continue
            lower = sp.Max(*[b.explicit for b in lowers]) if len(lowers) > 1 else lowers[0].explicit
            via = _smooth(lowers)
            optimal = [
                u
                for u in catalog(regime=tight.regime, pass_=tight.pass_, kind=Kind.UPPER)
                if u.asymptotic is not None
                and u.algorithm is not None
                and u.cache in (cache, Cache.ANY)
                and _same_order(u.asymptotic, branch)
            ]
            for claimed in optimal:
                for count in _counts(tight.regime, tight.pass_, claimed.algorithm):
                    found.append(
                        Obligation(
                            f"tightness/{tight.name}/{cache.value}/{count.name}",
                            "tightness",
                            sp.Le(count.explicit, CONSTANT * lower, evaluate=False),
                            (condition, *_conditions(count, *lowers)),
                            _expect(tight, claimed, count, *lowers),
                            (tight.name, claimed.name, count.name, *(b.name for b in lowers)),
                            f"{count.name} <= C * max({', '.join(b.name for b in lowers)}) for "
                            f"{cache.value} cache ({tight.source}: Theta)",
                            constant=CONSTANT,
                            via=via,
                        )
                    )
    return found


TABLE_ALGORITHMS = {
    ("forward", Cache.LARGE): ("flash", "flash2"),
    ("forward", Cache.SMALL): ("square-tiling", "output-stationary"),
    ("backward", Cache.SMALL): ("tiled-backward", "output-stationary"),
}
"""The algorithms whose exact counts the tightness table compares, per dense cell."""

UNBOUNDED_ALGORITHMS = {
    ("forward", Cache.LARGE): ("row-streaming",),
    ("backward", Cache.LARGE): ("flash", "flash2", "row-streaming"),
}
"""Algorithms of the tightness table z3 bounds against no C of the table's max, so no
obligation of :func:`tightness_table` (their constants come from :func:`corner_table`).

Against the large-cache lower bounds with the sharp records in the max, z3 ends unknown
for these counts at every C up to 4096 (recorded 2026-11-25, ``benchmarks/tightness.py
--record``): row streaming's blocks floor(M / w) - 2 (an offset the rounding-free
strengthening handles badly) and the backward counts against 4 n^2 d (d + 1) /
(M + 8 d (d + 1)) - M. Against the corner bound and the compulsory I/O alone
(:func:`corner_table`) z3 bounds each of them, and ``attnio.proofs.tightness`` shows
that C."""

_AWAY = 4
"""The table's cells start at this many times an algorithm's least feasible M."""


def tightness_table(table: dict | None = None) -> list[Obligation]:
    """count <= C * max(derived explicit lower bounds) in each dense cell, n >= d, away from min M.

    Only ``derived`` lower bounds (no reconstructed candidate), so each claim is expected
    to hold; the cell is M >= d^2 (large) or M < d^2 (small), with n >= d and M at least
    four times the count's least feasible M (its condition ``a <= M`` scaled), away from
    one-row blocks. The least C proved for each algorithm is the tightness table
    (``attnio table --tightness``, :mod:`attnio.proofs.tightness`).
    """
    found = []
    for (pass_name, cache), algorithms in (TABLE_ALGORITHMS if table is None else table).items():
        lowers = [
            b for b in _explicit_lowers("dense", pass_name, cache) if b.status is Status.DERIVED
        ]
        if not lowers:
            continue
        lower = sp.Max(*[b.explicit for b in lowers]) if len(lowers) > 1 else lowers[0].explicit
        cell = M >= d**2 if cache is Cache.LARGE else M < d**2
        for algorithm in algorithms:
            for count in _counts("dense", pass_name, algorithm):
                away = _away(count)
                found.append(
                    Obligation(
                        f"tightness/table/{pass_name}/{cache.value}/{count.name}",
                        "tightness",
                        sp.Le(count.explicit, CONSTANT * lower, evaluate=False),
                        (cell, PAPER_REGIME, *_conditions(count, *lowers), *away),
                        _expect(count, *lowers),
                        (count.name, *(b.name for b in lowers)),
                        f"{count.name} <= C * max({', '.join(b.name for b in lowers)}) for "
                        f"{cache.value} cache, n >= d, M >= {_AWAY}x the count's least M",
                        constant=CONSTANT,
                    )
                )
    return found


def corner_table() -> list[Obligation]:
    """count <= C * max(corner bound, compulsory I/O) in each dense cell, as :func:`tightness_table`.

    One obligation per algorithm of :data:`TABLE_ALGORITHMS` and
    :data:`UNBOUNDED_ALGORITHMS`, over the same region (the cell, n >= d, M at least four
    times the count's least M), against the pair of :data:`CORNER_PAIRS`. The tightness
    table (:mod:`attnio.proofs.tightness`) takes for each row the smaller C proved by this
    search and by :func:`tightness_table`'s.
    """
    return _table_rows(
        "corner",
        lambda pass_name, cache: [get(name) for name in CORNER_PAIRS[pass_name, cache]],
        lambda pass_name, cache, names: f"max({', '.join(names)}) for {cache.value} cache, n >= d",
    )


def _table_rows(family: str, lowers_of, against) -> list[Obligation]:
    """``tightness/{family}/{pass}/{cache}/{count}``: count <= C * max(``lowers_of(pass,
    cache)``) for every row of the tightness table, over its region (the cell, n >= d, M at
    least four times the count's least M); ``against(pass, cache, names)`` words the max
    in the statement."""
    found = []
    for pass_name, cache in CORNER_PAIRS:
        lowers = lowers_of(pass_name, cache)
        names = [b.name for b in lowers]
        lower = sp.Max(*[b.explicit for b in lowers])
        cell = M >= d**2 if cache is Cache.LARGE else M < d**2
        algorithms = (*TABLE_ALGORITHMS.get((pass_name, cache), ()),
                      *UNBOUNDED_ALGORITHMS.get((pass_name, cache), ()))  # fmt: skip
        for algorithm in algorithms:
            for count in _counts("dense", pass_name, algorithm):
                found.append(
                    Obligation(
                        f"tightness/{family}/{pass_name}/{cache.value}/{count.name}",
                        "tightness",
                        sp.Le(count.explicit, CONSTANT * lower, evaluate=False),
                        (cell, PAPER_REGIME, *_conditions(count, *lowers), *_away(count)),
                        _expect(count, *lowers),
                        (count.name, *names),
                        f"{count.name} <= C * {against(pass_name, cache, names)}, "
                        f"M >= {_AWAY}x the count's least M",
                        constant=CONSTANT,
                    )
                )
    return found


def _forward_pieces() -> tuple[tuple[str, sp.Basic | None], ...]:
    return (
        ("dense-forward-compulsory", d * n <= sp.Rational(9, 4) * M),
        ("dense-forward-lower-large-accumulators", M >= 12 * d**2),
        ("dense-forward-lower-large-segments-corner", None),
    )


def _row_streaming_forward_pieces() -> tuple[tuple[str, sp.Basic | None], ...]:
    """:func:`_forward_pieces` with the compulsory I/O again for n d up to 3M near the
    corner, where row streaming's ratio peaked (5.06 at d = 4, M = 116, n = 83, before the
    accumulator record lost its d^2 term; 2.71 there now)."""
    first, accumulators, corner = _forward_pieces()
    return (first, accumulators, ("dense-forward-compulsory", d * n <= 3 * M), corner)


def _backward_pieces() -> tuple[tuple[str, sp.Basic | None], ...]:
    """The accumulator bound where it beats the compulsory I/O (n d >= 2M, far from the
    corner), the compulsory I/O for n d up to 3M, the accumulator bound from M = 6 d^2,
    the compulsory I/O again up to n d = 37/10 M (where the corner bound's leading term,
    4 n^2 d^2 / (sqrt(3) M) - 2M, meets 8 n d: at n d / M = 3.70), the corner bound."""
    return (
        ("dense-backward-lower-large-accumulators", sp.And(d * n >= 2 * M, M >= 8 * d**2)),
        ("dense-backward-compulsory", d * n <= 3 * M),
        ("dense-backward-lower-large-accumulators", M >= 6 * d**2),
        ("dense-backward-compulsory", 10 * d * n <= 37 * M),
        ("dense-backward-lower-large-segments-corner", None),
    )


PIECES = {
    ("forward", "row-streaming-forward-count"): _row_streaming_forward_pieces(),
    **{("forward", f"{a}-forward-count"): _forward_pieces() for a in ("flash", "flash2")},
    **{("backward", f"{a}-backward-count"): _backward_pieces() for a in ("row-streaming", "flash", "flash2")},
}  # fmt: skip
"""Piecewise constants: per (pass, count) of the large-cache tightness table, a decision
list of (derived lower bound, test). Piece k is the table's region where test k holds and
no earlier test does (the last test is None: the rest), so the pieces cover the region by
construction; :func:`piece_table` asks z3 for count <= C * (that one bound) on each piece.
With the largest of those constants, count <= C * max(every derived bound) on the whole
region. Each piece has one bound, where the corner search of :func:`corner_table` puts two
in a max and the whole region in one claim; the tests follow where each bound is the
largest (the compulsory I/O for n d up to a few M, the accumulator bound far from
M = d^2, the corner bound near it; ``python
benchmarks/tightness.py --grid`` samples them). The lists were chosen for row streaming
among a few thresholds (2 to 4 for n d / M, 3 to 12 for M / d^2) by the largest piece
constant :func:`attnio.proofs.check.prove` found, 2026-11-26: row streaming forward 6, 5,
6 and 6 on its four pieces (the corner search: 8; nine other lists, after the sharper
accumulator record, gave 6 or 7: z3 ends unknown at 5 on a compulsory piece, where the
least constant sampled is above 4), backward 9, 10, 10, 12 and 12 (the corner search:
17; the four-piece list used before the sharper accumulator record gave 13, and nine
others 13 to 16); FlashAttention and FlashAttention-2 take their pass's list as it is."""


def piece_table() -> list[Obligation]:
    """count <= C * L_k on piece k of the table's region, for each list of :data:`PIECES`.

    The region is :func:`corner_table`'s (the large cache, n >= d, M at least four times the
    count's least M); piece k adds its test and the negation of every earlier one. Named
    ``tightness/piece/{pass}/large/{count}/{k}``; their strengthening uses the tight floor
    bound (:data:`attnio.proofs.rounding.TIGHT_FLOORS`).
    """
    found = []
    for (pass_name, name), pieces in PIECES.items():
        count = get(name)
        earlier: list[sp.Basic] = []
        for k, (lower_name, test) in enumerate(pieces):
            lower = get(lower_name)
            own = () if test is None else (test,)
            found.append(
                Obligation(
                    f"tightness/piece/{pass_name}/large/{name}/{k}",
                    "tightness",
                    sp.Le(count.explicit, CONSTANT * lower.explicit, evaluate=False),
                    (
                        M >= d**2,
                        PAPER_REGIME,
                        *_conditions(count, lower),
                        *_away(count),
                        *earlier,
                        *own,
                    ),
                    _expect(count, lower),
                    (name, lower_name),
                    f"{name} <= C * {lower_name} for large cache, n >= d, M >= {_AWAY}x the "
                    f"count's least M, on piece {k} of {len(pieces)}"
                    + ("" if test is None else f" ({test})"),
                    constant=CONSTANT,
                )
            )
            if test is not None:
                earlier.append(sp.Not(test))
    return found


def derived_lowers(pass_name: str, cache: Cache) -> list[Bound]:
    """Every derived explicit lower bound of a dense cell (in n, d and M only)."""
    return [
        b
        for b in catalog(regime="dense", pass_=pass_name, kind=Kind.LOWER)
        if b.status is Status.DERIVED
        and b.explicit is not None
        and b.cache in (cache, Cache.ANY)
        and set(b.parameters) <= BASE_PARAMETERS
    ]


def full_table() -> list[Obligation]:
    """count <= C * max(every derived explicit lower bound of the cell), as :func:`corner_table`.

    One obligation per row of the tightness table, over the same region (the cell,
    n >= d, M at least four times the count's least M), against the max of *every*
    ``derived`` lower bound of the cell: the per-family, segment, shared-budget,
    accumulator and corner records too. z3 searches none of them (with those records in
    the max it decides no constant; see :data:`OUT_OF_CONSTANTS`), so they are not in
    :func:`obligations`: they are sampled (:func:`attnio.proofs.sampling.largest_ratio`)
    and recorded with status ``sampled`` by ``benchmarks/constants.py --record``. The point
    recorded refutes every C below the ratio there against the best lower bound attnio
    has, the lower end of the table's interval; the upper end is the C proved against a
    sub-max (:func:`tightness_table`, :func:`corner_table`), a C against every record too.
    """
    return _table_rows(
        "full",
        derived_lowers,
        lambda pass_name, cache, names: (
            f"max(every derived lower bound of the {pass_name} {cache.value}-cache cell), n >= d"
        ),
    )


# ------------------------------------------------- the approximate rows of the table
def approximate_table() -> list[Obligation]:
    """count <= C * compulsory I/O of the polynomial method's graph, where W fits: M >= r d.

    One obligation ``tightness/approximate/{pass}/{count}`` per ``derived`` exact count of
    the approximate regime (the polynomial method's schedules), over the cell M >= r d,
    n >= r (writing the r x (d + 1) matrix [W | w] once is then within O(n d)),
    (d + 1)(d + 2) <= 2 r (every degree g >= 2, r = C(d + g, g)) and the count's
    conditions, against ``polynomial-{pass}-compulsory`` alone: a C proved against it is a
    C against the max of every derived lower bound of the method's graph too. Below r d no
    constant exists (:mod:`attnio.proofs.approximate_tightness`). The least C proved is the
    constant of the approximate rows of ``attnio table --tightness --regime approximate``.
    """
    found = []
    for pass_name in ("forward", "backward"):
        compulsory = get(f"polynomial-{pass_name}-compulsory")
        for count in catalog(regime="approximate", pass_=pass_name, kind="upper"):
            if count.status is not Status.DERIVED or not _is_count(count):
                continue
            found.append(
                Obligation(
                    f"tightness/approximate/{pass_name}/{count.name}",
                    "tightness",
                    sp.Le(count.explicit, CONSTANT * compulsory.explicit, evaluate=False),
                    (
                        M >= r * d,
                        r <= n,
                        (d + 1) * (d + 2) <= 2 * r,
                        *_conditions(count, compulsory),
                    ),
                    _expect(count, compulsory),
                    (count.name, compulsory.name),
                    f"{count.name} <= C * {compulsory.name} for M >= r d, n >= r, degree g >= 2",
                    constant=CONSTANT,
                )
            )
    return found


def _away(count: Bound) -> tuple[sp.Basic, ...]:
    """The conditions ``a <= M`` of ``count`` scaled: M at least :data:`_AWAY` times ``a``."""
    return tuple(
        sp.Le(_AWAY * c.lhs, c.rhs, evaluate=False)
        for c in sp.And.make_args(count.conditions)
        if isinstance(c, sp.LessThan) and c.rhs == M
    ) + tuple(
        sp.Ge(c.lhs, _AWAY * c.rhs, evaluate=False)
        for c in sp.And.make_args(count.conditions)
        if isinstance(c, sp.GreaterThan) and c.lhs == M
    )


# --------------------------------------------------------------- 3. crossovers
def crossovers() -> list[Obligation]:
    """Branches meet at the computed crossover; the Min picks the stated record on each side."""
    found = []
    for bound in catalog():
        branches = min_branches(bound)
        if branches is None:
            continue
        point = crossover(bound)
        first, second = (b.subs(M, point) for b in branches)
        found.append(
            Obligation(
                f"crossover/{bound.name}/meet",
                "crossover",
                sp.Eq(first, second, evaluate=False),
                (),
                _expect(bound),
                (bound.name,),
                f"the branches of {bound.name} meet at M = {point}",
            )
        )
        if bound.kind is not Kind.TIGHT:
            continue
        inner = next(iter(bound.asymptotic.atoms(sp.Min)))
        for cache in (Cache.SMALL, Cache.LARGE):
            stated = [
                b
                for b in catalog(regime=bound.regime, pass_=bound.pass_, kind=Kind.LOWER)
                if b.cache is cache
                and b.status in (Status.STATED, Status.STATED_SECONDARY)
                and b.asymptotic is not None
            ]
            for side in stated[:1]:
                found.append(
                    Obligation(
                        f"crossover/{bound.name}/{cache.value}-branch",
                        "crossover",
                        sp.Eq(inner, side.asymptotic, evaluate=False),
                        _conditions(side),
                        _expect(bound, side),
                        (bound.name, side.name),
                        f"under {side.conditions} the Min of {bound.name} is {side.name}'s bound",
                    )
                )
    return found


# --------------------------------------------------------------- 4. reductions
def _twin_key(bound: Bound) -> tuple:
    return (
        bound.regime,
        bound.cache,
        bound.kind,
        bound.algorithm,
        bound.explicit is None,
        bound.status is Status.DERIVED,
    )


def _backward_twin(bound: Bound) -> Bound | None:
    """The backward record of the same regime, cache, kind, algorithm, form and derivedness, if any.

    Where several match, the one named like ``bound`` with "backward" for "forward"; where
    several match and none is so named, none: the forward record was derived for the forward
    graph alone (``dense-forward-lower-large-accumulators``), and pairing it with one of
    several backward records would be a guess, not a reduction.
    """
    if bound.pass_ is not Pass.FORWARD:
        return None
    twins = [b for b in catalog(pass_=Pass.BACKWARD) if _twin_key(b) == _twin_key(bound)]
    named = [b for b in twins if b.name == bound.name.replace("forward", "backward")]
    if len(twins) > 1:
        return named[0] if len(named) == 1 else None
    return twins[0] if twins else None


def reductions() -> list[Obligation]:
    """Sparse at full density = dense; approximate >= compulsory; backward >= forward."""
    return [
        *_sparse_reductions(),
        *_compulsory_reductions(),
        *_twin_reductions(),
        *_count_reductions(),
    ]


def _sparse_reductions() -> list[Obligation]:
    """Each sparse record at full density against the dense record it reduces to: an upper
    bound at least it and at most C times it, any other record equal to it."""
    found = []
    for sparse in catalog(regime=Regime.SPARSE):
        if sparse.reduces_to is None:
            continue
        dense = get(sparse.reduces_to)
        assumptions = tuple(c.subs(FULL_DENSITY) for c in _conditions(sparse)) + _conditions(dense)
        assumptions = tuple(a for a in assumptions if a is not sp.true)
        for which, expr in _expressions(sparse):
            theirs = getattr(dense, which)
            if theirs is None:
                continue
            full = expr.subs(FULL_DENSITY)
            base = f"reduction/{sparse.name}/{which}"
            sources = (sparse.name, dense.name)
            if sparse.kind is Kind.UPPER:
                found.append(
                    Obligation(
                        f"{base}>={dense.name}",
                        "reduction",
                        sp.Ge(full, theirs, evaluate=False),
                        assumptions,
                        _expect(sparse, dense),
                        sources,
                        f"{sparse.name} at full density is at least {dense.name}",
                    )
                )
                found.append(
                    Obligation(
                        f"{base}<=c*{dense.name}",
                        "reduction",
                        sp.Le(full, CONSTANT * theirs, evaluate=False),
                        assumptions,
                        _expect(sparse, dense),
                        sources,
                        f"{sparse.name} at full density is at most C times {dense.name}",
                        constant=CONSTANT,
                    )
                )
            else:
                found.append(
                    Obligation(
                        f"{base}={dense.name}",
                        "reduction",
                        sp.Eq(full, theirs, evaluate=False),
                        assumptions,
                        _expect(sparse, dense),
                        sources,
                        f"{sparse.name} at full density equals {dense.name}",
                    )
                )
    return found


def _compulsory_reductions() -> list[Obligation]:
    """Each approximate record that is not a lower bound is at least the compulsory term
    (the asymptotic form) of every approximate lower bound of its pass."""
    found = []
    compulsory = [
        b for b in catalog(regime=Regime.APPROXIMATE, kind=Kind.LOWER) if b.asymptotic is not None
    ]
    for bound in catalog(regime=Regime.APPROXIMATE):
        if bound.kind is Kind.LOWER:
            continue
        for which, expr in _expressions(bound):
            for lower in compulsory:
                if lower.pass_ is not bound.pass_:
                    continue
                found.append(
                    Obligation(
                        f"reduction/{bound.name}/{which}>={lower.name}",
                        "reduction",
                        sp.Ge(expr, lower.asymptotic, evaluate=False),
                        _conditions(bound, lower),
                        _expect(bound, lower),
                        (bound.name, lower.name),
                        f"{bound.name} is at least the compulsory term of {lower.name}",
                    )
                )
    return found


def _twin_reductions() -> list[Obligation]:
    """Each backward record at least its forward twin (:func:`_backward_twin`); open for
    upper bounds, which need not dominate one another."""
    found = []
    for forward in catalog(pass_=Pass.FORWARD):
        backward = _backward_twin(forward)
        if backward is None or backward.kind is not forward.kind:
            continue
        for which, expr in _expressions(forward):
            theirs = getattr(backward, which)
            if theirs is None:
                continue
            found.append(
                Obligation(
                    f"reduction/{backward.name}/{which}>={forward.name}",
                    "reduction",
                    sp.Ge(theirs, expr, evaluate=False),
                    _conditions(forward, backward),
                    _expect(forward, backward)
                    if forward.kind is not Kind.UPPER
                    else Expectation.OPEN,
                    (backward.name, forward.name),
                    f"the backward {backward.name} dominates the forward {forward.name}",
                )
            )
    return found


def _count_reductions() -> list[Obligation]:
    """Each backward exact count at least the forward count of the same algorithm and
    regime (open), where the two are not twins already compared."""
    found = []
    counts = [b for b in catalog() if _is_count(b)]
    for forward, backward in itertools.product(counts, counts):
        if (
            forward.pass_ is Pass.FORWARD
            and backward.pass_ is Pass.BACKWARD
            and forward.algorithm == backward.algorithm
            and forward.regime is backward.regime
            and set(forward.parameters) <= set(backward.parameters)
            and _backward_twin(forward) != backward  # twins done above
        ):
            found.append(
                Obligation(
                    f"reduction/{backward.name}>={forward.name}",
                    "reduction",
                    sp.Ge(backward.explicit, forward.explicit, evaluate=False),
                    _conditions(forward, backward),
                    Expectation.OPEN,
                    (backward.name, forward.name),
                    f"{backward.name}'s exact count is at least {forward.name}'s",
                )
            )
    return found


# --------------------------------------------------------------- 5. comparisons
def comparisons() -> list[Obligation]:
    """The papers' comparisons on exact counts, and the planted false claim."""
    found = []
    for slow_name, fast_name in PAPER_COMPARISONS:
        try:
            slow, fast = get(slow_name), get(fast_name)
        except KeyError:
            continue
        factor = sp.simplify(slow.asymptotic / fast.asymptotic)
        side = _conditions(fast)
        for slow_count in _counts(slow.regime, slow.pass_, slow.algorithm):
            for fast_count in _counts(fast.regime, fast.pass_, fast.algorithm):
                sources = (slow.name, fast.name, slow_count.name, fast_count.name)
                pair = f"{slow_count.name}/{fast_count.name}"
                base = (*side, *_conditions(slow_count, fast_count))
                claims = (
                    (
                        "beats",
                        sp.Le(
                            factor * fast_count.explicit,
                            CONSTANT * slow_count.explicit,
                            evaluate=False,
                        ),
                        f"{fast_count.name} beats {slow_count.name} by a factor of order {factor}",
                    ),
                    (
                        "order",
                        sp.Le(
                            slow_count.explicit,
                            CONSTANT * factor * fast_count.explicit,
                            evaluate=False,
                        ),
                        f"{fast_count.name} beats {slow_count.name} by at most C * {factor}",
                    ),
                )
                for label, claim, statement in claims:
                    found.append(
                        Obligation(
                            f"comparison/{pair}/{label}",
                            "comparison",
                            claim,
                            (*base, PAPER_REGIME),
                            _expect(slow, fast, slow_count, fast_count),
                            sources,
                            f"{statement}, for n >= d",
                            constant=CONSTANT,
                        )
                    )
                    found.append(
                        Obligation(
                            f"comparison/{pair}/{label}-any-n",
                            "comparison",
                            claim,
                            base,
                            Expectation.OPEN,
                            sources,
                            f"{statement}, for every n",
                            constant=CONSTANT,
                        )
                    )
    found.extend(planted())
    return found


def planted() -> list[Obligation]:
    """A false claim that must end as a confirmed counterexample.

    "FlashAttention is never worse than square tiling for M < d^2", on the exact
    counts when the catalog has them, else on the asymptotic records.
    """
    slow, fast = get(PAPER_COMPARISONS[0][0]), get(PAPER_COMPARISONS[0][1])
    pairs = [
        (s, f)
        for s in _counts(slow.regime, slow.pass_, slow.algorithm)
        for f in _counts(fast.regime, fast.pass_, fast.algorithm)
    ]
    found = []
    for slow_count, fast_count in pairs:
        found.append(
            Obligation(
                f"planted/{slow_count.name}<={fast_count.name}",
                "planted",
                sp.Le(slow_count.explicit, fast_count.explicit, evaluate=False),
                (*_conditions(fast), *_conditions(slow_count, fast_count)),
                Expectation.FAILS,
                (slow_count.name, fast_count.name),
                "planted false claim: FlashAttention is never worse than square tiling for M < d^2",
            )
        )
    if not found:
        found.append(
            Obligation(
                f"planted/{slow.name}<={fast.name}",
                "planted",
                sp.Le(slow.asymptotic, fast.asymptotic, evaluate=False),
                _conditions(fast),
                Expectation.FAILS,
                (slow.name, fast.name),
                "planted false claim: FlashAttention is never worse than square tiling for M < d^2",
            )
        )
    return found


# --------------------------------------------------------------- 7. order of upper records
def order() -> list[Obligation]:
    """Each asymptotic upper record O(f) holds for its algorithm's exact count: count <= C f.

    Under the record's conditions and the count's, for n >= d (the papers' regime). A
    wrong exponent, constant-free shape or dropped condition in an O(...) record shows as
    a sampled ratio above every constant z3 can prove.
    """
    found = []
    for upper in catalog(kind="upper"):
        if upper.asymptotic is None or upper.algorithm is None or upper.explicit is not None:
            continue
        for count in _counts(upper.regime, upper.pass_, upper.algorithm):
            if not set(upper.parameters) - BASE_PARAMETERS <= set(count.parameters):
                continue
            found.append(
                Obligation(
                    f"order/{upper.name}/{count.name}",
                    "order",
                    sp.Le(count.explicit, CONSTANT * upper.asymptotic, evaluate=False),
                    (*_conditions(upper, count), PAPER_REGIME),
                    _expect(upper, count),
                    (upper.name, count.name),
                    f"{count.name} is O({upper.asymptotic}) where {upper.name} applies, n >= d",
                    constant=CONSTANT,
                )
            )
    return found


# --------------------------------------------------------------- 8. refutations
def refutations() -> list[Obligation]:
    """Published ranges attnio narrowed: for every K, a lower bound beats K times the claim.

    For each record of ``catalog.AS_STATED``: at the witness point (a function of a
    positive integer K) the point lies in the published range and where the refuting
    lower bound applies, and that bound exceeds K times the record's asymptotic
    expression. Proved for every K, no constant makes the published O(...) hold on its
    published range: a finding (expectation ``refutes``). The refuting record must be
    stated or derived, else the obligation is not generated.
    """
    from attnio.bounds.catalog import AS_STATED

    found = []
    for name, (published, refuted_by, point, scale) in AS_STATED.items():
        upper, lower = get(name), get(refuted_by)
        if lower.explicit is None or lower.status not in SOLID:
            continue
        claim = sp.And(
            published.subs(point),
            lower.conditions.subs(point),
            sp.Gt(lower.explicit.subs(point), scale * upper.asymptotic.subs(point), evaluate=False),
        )
        shown = ", ".join(f"{k} = {v}" for k, v in point.items())
        found.append(
            Obligation(
                f"refutation/{upper.name}-as-stated/{lower.name}",
                "refutation",
                claim,
                (),
                Expectation.REFUTES,
                (upper.name, lower.name),
                f"{upper.source}: for every integer {scale} >= 1, at {shown} (inside the "
                f"published range {published}), {lower.name} > {scale} * "
                f"({upper.asymptotic}), so no constant makes the published bound hold there",
            )
        )
    return found


# --------------------------------------------------------------- 9. evidence
def backing(bound: Bound) -> tuple[bool, str]:
    """Whether a ``derived`` record is backed, and by what (or why not).

    Backed means: listed by a written derivation whose file exists, whose argument is
    complete and which has an algebraic step reading the record (those steps are
    obligations of their own, which must be proved); or an exact count of an attnio
    algorithm (an upper record with an algorithm, an explicit expression and a source in
    ``attnio.algorithms``), which ``attnio verify`` runs on the two-level machine.
    """
    from .derivation import derivations

    listing = [x for x in derivations() if bound.name in x.records]
    if listing:
        problems = []
        for derivation in listing:
            if not derivation.path.is_file():
                problems.append(f"{derivation.file} is missing")
            if not derivation.complete:
                problems.append(f"{derivation.file} has a gap ({'; '.join(derivation.unchecked)})")
            if not any(bound.name in step.sources for step in derivation.steps):
                problems.append(f"no step of {derivation.file} reads the record")
        if problems:
            return False, "; ".join(problems)
        files = ", ".join(x.file for x in listing)
        return True, f"derivation {files}, every step an obligation of its own"
    if (
        bound.kind is Kind.UPPER
        and bound.algorithm is not None
        and bound.explicit is not None
        and "attnio.algorithms" in bound.source
    ):
        return True, f"exact count of {bound.algorithm}, reproduced by the two-level machine"
    return False, "no derivation lists it and it is not an exact count of an attnio algorithm"


def evidence() -> list[Obligation]:
    """Every ``derived`` record is backed by a derivation or a reproduced count.

    The claim is ``true`` when :func:`backing` finds the backing and ``false`` otherwise,
    so an unbacked ``derived`` record ends as a counterexample and fails ``attnio prove``.
    """
    found = []
    for bound in catalog(status=Status.DERIVED.value):
        backed, why = backing(bound)
        found.append(
            Obligation(
                f"evidence/{bound.name}",
                "evidence",
                sp.true if backed else sp.false,
                (),
                Expectation.HOLDS,
                (bound.name,),
                f"{bound.name} is derived: {why}",
            )
        )
    return found


# --------------------------------------------------------------- 6. monotonicity
def monotonicity() -> list[Obligation]:
    """Every expression is non-increasing in M and non-decreasing in n and d over its conditions."""
    found = []
    for bound in catalog():
        for which, expr in _expressions(bound):
            for var in (n, d, M):
                if var not in expr.free_symbols:
                    continue
                other = sp.Symbol(f"{var.name}_2", **var.assumptions0)
                moved = expr.subs(var, other)
                claim = (
                    sp.Ge(expr, moved, evaluate=False)
                    if var is M
                    else sp.Le(expr, moved, evaluate=False)
                )
                conditions = _conditions(bound)
                assumptions = (*conditions, *(c.subs(var, other) for c in conditions), var < other)
                expected = (
                    Expectation.OPEN if which == "explicit" and _is_count(bound) else _expect(bound)
                )
                direction = "non-increasing" if var is M else "non-decreasing"
                found.append(
                    Obligation(
                        f"monotonicity/{bound.name}/{which}/{var.name}",
                        "monotonicity",
                        claim,
                        assumptions,
                        expected,
                        (bound.name,),
                        f"the {which} expression of {bound.name} is {direction} in {var.name}",
                    )
                )
    return found


def obligations() -> list[Obligation]:
    """Every obligation generated from the catalog, plus the derivation steps."""
    from .derivation import derivation_obligations

    return [
        *lower_le_upper(),
        *tightness(),
        *tightness_table(),
        *corner_table(),
        *piece_table(),
        *approximate_table(),
        *crossovers(),
        *reductions(),
        *comparisons(),
        *monotonicity(),
        *order(),
        *refutations(),
        *evidence(),
        *derivation_obligations(),
    ]


__all__ = [
    "CONSTANT",
    "CORNER_PAIRS",
    "OUT_OF_CONSTANTS",
    "PAPER_COMPARISONS",
    "PIECES",
    "SOLID",
    "approximate_table",
    "backing",
    "comparisons",
    "corner_table",
    "crossovers",
    "derived_lowers",
    "evidence",
    "full_table",
    "lower_le_upper",
    "monotonicity",
    "obligations",
    "order",
    "piece_table",
    "planted",
    "reductions",
    "refutations",
    "tightness",
    "tightness_table",
]
