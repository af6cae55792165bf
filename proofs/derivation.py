"""Written derivations of explicit-constant bounds, each algebraic step a z3 obligation.

A derivation (a Markdown file in ``proofs/derivations/``) proves a catalog
record's explicit expression. Its steps are of two kinds:

* *algebraic* steps, stated here as obligations (hypotheses -> conclusion) and
  proved by z3; the last step reads the record's expression from the catalog,
  so the derivation proves what the catalog says, not a retyped copy;
* *combinatorial* steps (counting arguments about the pebble game), written as
  proofs in the Markdown file and listed in ``unchecked``: z3 checks algebra,
  not combinatorics.

A record may carry status ``derived`` only if its derivation exists and every
algebraic step is proved; :mod:`attnio.proofs.verification` checks that.
"""

from __future__ import annotations

import sympy as sp

from attnio.bounds import Bound, get
from attnio.bounds.catalog import loaded
from attnio.bounds.symbols import M, d, n

from .document import DIRECTORY, Derivation, read_derivations
from .obligation import Expectation, Obligation


def _pos(name: str, integer: bool = False) -> sp.Symbol:
    return (
        sp.Symbol(name, positive=True, integer=integer)
        if integer
        else sp.Symbol(name, positive=True)
    )


def _nonneg(name: str, integer: bool = False) -> sp.Symbol:
    # integer=False would make sympy infer nonzero, hence positive: pass it only when True
    return (
        sp.Symbol(name, nonnegative=True, integer=True)
        if integer
        else sp.Symbol(name, nonnegative=True)
    )


_io = _nonneg("io")


def _record_step(file: str, label: str, bound: sp.Expr, record: Bound, words: str) -> Obligation:
    """The step ``bound >= record.explicit`` under the record's conditions; its statement is
    ``words`` followed by the record's name and expression."""
    return _step(
        file,
        label,
        sp.Ge(bound, record.explicit, evaluate=False),
        _record_conditions(record),
        (record.name,),
        f"{words} {record.name}'s {record.explicit}",
    )


def _record_steps(file: str, pairs: list[tuple[Bound, sp.Expr]]) -> list[Obligation]:
    """For each (record, derived bound): the step ``record-NAME`` that the bound is at least
    the record's expression (NAME the record's name without ``dense-``)."""
    return [
        _record_step(
            file,
            f"record-{record.name.removeprefix('dense-')}",
            bound,
            record,
            "the derived bound is at least",
        )
        for record, bound in pairs
    ]


def _step(
    file: str, label: str, claim: sp.Basic, hypotheses: tuple, sources: tuple, statement: str
) -> Obligation:
    stem = file.removesuffix(".md")
    return Obligation(
        f"derivation/{stem}/{label}",
        "derivation",
        claim,
        hypotheses,
        Expectation.HOLDS,
        (file, *sources),
        statement,
    )


KAPPA = sp.Rational(11, 128)
"""The per-segment constant of ``lower-accumulators.md``: 11/128, just above the least
constant the edge step allows, 3/2 - sqrt(2) ~ 0.08579 (where its quadratic in w is a
perfect square); a fraction keeps every step and the record free of sqrt(2)."""


def _accumulators() -> Derivation:
    """The accumulator bound of ``lower-accumulators.md``: segments of M I/O moves, each
    charged for the output partial sums it takes over (in-edges of the witness trees) and
    the ones it hands on (roots), with the P V products' operand rows."""
    file = "lower-accumulators.md"
    record = get("dense-forward-lower-large-accumulators")
    rows, cols, values = _nonneg("a"), _nonneg("b"), _nonneg("c")
    roots, in_edges, in_d, chain = _nonneg("R"), _nonneg("C"), _nonneg("p"), _nonneg("x_C")
    third, credited = _nonneg("t"), _nonneg("N")
    q_rows, k_rows, lam, q = _nonneg("x"), _nonneg("w"), _nonneg("lambda"), _nonneg("q")
    width, segments = _pos("L"), _pos("h", integer=True)
    slope, span, room = sp.Symbol("sigma", real=True), sp.Symbol("A", real=True), _nonneg("K")
    used = d * rows + d * cols + values
    bound = n * (d * n - 2 * KAPPA * M) / (2 * sp.Max(d, 2 * KAPPA * M / d)) - M
    q_is = q >= KAPPA * width  # q = kappa L in the text; each step holds for every q above
    steps = [
        _step(
            file,
            "narrow",
            sp.Le(
                (k_rows - q) * values * (width - k_rows - values),
                (k_rows - q) * k_rows * (width - 2 * k_rows),
                evaluate=False,
            ),
            (k_rows >= q, values <= k_rows, 3 * k_rows <= width),
            (),
            "c <= w <= L / 3: c (L - w - c) is increasing in c up to w, so "
            "(w - q) c (L - w - c) <= (w - q) w (L - 2w)",
        ),
        _step(
            file,
            "edge",
            sp.Le((k_rows - q) * k_rows * (width - 2 * k_rows), k_rows * q * width, evaluate=False),
            (k_rows >= q, 3 * k_rows <= width, q_is),
            (),
            "q >= kappa L = 11 L / 128, w <= L / 3: (w - q)(L - 2w) <= q L "
            "(q L - (w - q)(L - 2w) is a quadratic in w without a real root for "
            "3/2 - sqrt(2) < q / L < 3/2 + sqrt(2), and it grows with q)",
        ),
        _step(
            file,
            "wide",
            sp.Le(
                (k_rows - q) * values * (width - k_rows - values),
                (k_rows - q) * (width - k_rows) ** 2 / 4,
                evaluate=False,
            ),
            (k_rows >= q,),
            (),
            "c (L - w - c) <= (L - w)^2 / 4 (AM-GM), times w - q >= 0",
        ),
        _step(
            file,
            "wide-edge",
            sp.Le((k_rows - q) * (width - k_rows) ** 2, 4 * k_rows * q * width, evaluate=False),
            (3 * k_rows >= width, k_rows <= width, q_is),
            (),
            "L / 3 <= w <= L, q >= kappa L: (w - q)(L - w)^2 <= 4 w q L",
        ),
        _step(
            file,
            "rows-end",
            sp.Le(span * slope, room, evaluate=False),
            (
                sp.Eq(slope, (k_rows - q) * values - q * k_rows, evaluate=False),
                sp.Eq(span, width - k_rows - values, evaluate=False),
                sp.Eq(room, q * k_rows * (k_rows + values), evaluate=False),
                (k_rows - q) * values * (width - k_rows - values) <= k_rows * q * width,
            ),
            (),
            "at x = L - w - c: with sigma = (w - q) c - q w, A = L - w - c and "
            "K = q w (w + c), A sigma <= K is (w - q) c (L - w - c) <= q w L",
        ),
        _step(
            file,
            "rows-line",
            sp.Le(q_rows * slope, room, evaluate=False),
            (q_rows <= span, span * slope <= room, room >= 0),
            (),
            "x sigma is linear in x on [0, A]: at most max(0, A sigma) <= K",
        ),
        _step(
            file,
            "rows",
            sp.Le(
                (k_rows - q) * q_rows * values,
                q * k_rows * (q_rows + k_rows + values),
                evaluate=False,
            ),
            (
                sp.Eq(slope, (k_rows - q) * values - q * k_rows, evaluate=False),
                sp.Eq(room, q * k_rows * (k_rows + values), evaluate=False),
                q_rows * slope <= room,
            ),
            (),
            "(w - q) x c - q w (x + w + c) = x sigma - K <= 0: "
            "(w - q) x c <= q w (x + w + c) whenever x + w + c <= L",
        ),
        _step(
            file,
            "scale",
            sp.Le((cols - lam) * rows * values, lam * cols * used, evaluate=False),
            (
                sp.Eq(q_rows, d * rows, evaluate=False),
                sp.Eq(k_rows, d * cols, evaluate=False),
                sp.Eq(q, lam * d, evaluate=False),
                (k_rows - q) * q_rows * values <= q * k_rows * (q_rows + k_rows + values),
            ),
            (),
            "with x = d a, w = d b, q = lambda d, divided by d^2: "
            "(b - lambda) a c <= lambda b (d a + d b + c)",
        ),
        _step(
            file,
            "roots-many",
            sp.Le(third - lam * roots, lam * used, evaluate=False),
            (
                third <= rows * values,
                third <= roots * cols,
                cols >= lam,
                cols > 0,
                (cols - lam) * rows * values <= lam * cols * used,
            ),
            (),
            "t <= a c, t <= R b, b >= lambda: b (t - lambda R) <= (b - lambda) t "
            "<= (b - lambda) a c, so t - lambda R <= lambda (d a + d b + c)",
        ),
        _step(
            file,
            "roots-few",
            sp.Le(third - lam * roots, lam * used, evaluate=False),
            (third <= roots * cols, cols <= lam),
            (),
            "t <= R b and b <= lambda: t - lambda R <= 0",
        ),
        _step(
            file,
            "per-segment",
            sp.Le(credited - lam * (roots - in_edges), sp.Max(d, lam) * width, evaluate=False),
            (
                credited <= in_d + d * chain + third,
                third - lam * roots <= lam * used,
                used + chain + in_edges + in_d <= width,
            ),
            (),
            "N <= p + d x_C + t and t - lambda R <= lambda (d a + d b + c), the classes of D "
            "disjoint within |D| <= L, each weighed at most max(d, lambda): "
            "N - lambda (R - C) <= max(d, lambda) L",
        ),
        _step(
            file,
            "segments",
            sp.Ge(_io, bound, evaluate=False),
            (
                segments * sp.Max(d, lam) * width + lam * n * d >= n**2 * d,
                sp.Eq(width, 2 * M, evaluate=False),
                sp.Eq(lam * d, KAPPA * width, evaluate=False),
                _io >= M * (segments - 1),
            ),
            (),
            "summed over the h segments of M I/O moves, N totals n^2 d and R - C totals n d: "
            "h max(d, lambda) 2M + lambda n d >= n^2 d with lambda = kappa L / d, and "
            "IO >= M (h - 1) give IO >= n (n d - 2 kappa M) / (2 max(d, 2 kappa M / d)) - M, "
            "with kappa = 11/128",
        ),
    ]
    # ------------------------------------------------------------------ backward
    backward = get("dense-backward-lower-large-accumulators")
    t_q, t_k, r_q, r_k = _nonneg("t_Q"), _nonneg("t_K"), _nonneg("R_Q"), _nonneg("R_K")
    rows_cost = (2 * d + 2) * rows + 2 * d * cols
    back_bound = n * (6 * d * n - M) / (6 * sp.Max(2 * d, M / (6 * d))) - M
    lam_is = sp.Eq(12 * lam * d, width, evaluate=False)
    steps += [
        _step(
            file,
            "bw-roots",
            sp.Le(third - lam * roots, rows * d * (cols - lam), evaluate=False),
            (third <= rows * cols * d, third <= roots * cols, cols >= lam, cols > 0),
            (),
            "t <= a b d and t <= R b with b >= lambda: b (t - lambda R) <= (b - lambda) t "
            "<= (b - lambda) a b d, so t - lambda R <= a d (b - lambda) (the dQ products; "
            "the dK products with a and b exchanged)",
        ),
        _step(
            file,
            "bw-roots-few",
            sp.Le(third - lam * roots, 0, evaluate=False),
            (third <= roots * cols, cols <= lam),
            (),
            "t <= R b and b <= lambda: t - lambda R <= 0",
        ),
        _step(
            file,
            "bw-both",
            sp.Le(
                rows * d * (cols - lam) + cols * d * (rows - lam), lam * rows_cost, evaluate=False
            ),
            (rows_cost <= width, lam_is),
            (),
            "(2d + 2) a + 2 d b <= L and lambda = L / (12 d): "
            "a d (b - lambda) + b d (a - lambda) <= lambda ((2d + 2) a + 2 d b)",
        ),
        _step(
            file,
            "bw-one",
            sp.Le(rows * d * (cols - lam), lam * rows_cost, evaluate=False),
            (rows <= lam,),
            (),
            "a <= lambda: a d (b - lambda) <= lambda d b (and with a, b exchanged, "
            "b d (a - lambda) <= lambda d a when b <= lambda)",
        ),
        _step(
            file,
            "bw-per-segment",
            sp.Le(
                credited - lam * (r_q + r_k - in_edges),
                sp.Max(2 * d, lam) * width,
                evaluate=False,
            ),
            (
                credited <= in_d + 2 * d * chain + t_q + t_k,
                (t_q - lam * r_q) + (t_k - lam * r_k) <= lam * rows_cost,
                rows_cost + chain + in_edges + in_d <= width,
            ),
            (),
            "N <= p + 2 d x_C + t_Q + t_K, the two root terms at most lambda ((2d + 2) a + 2 d b), "
            "the classes of D disjoint within |D| <= L, each weighed at most max(2d, lambda): "
            "N - lambda (R - C) <= max(2d, lambda) L",
        ),
        _step(
            file,
            "bw-segments",
            sp.Ge(_io, back_bound, evaluate=False),
            (
                segments * sp.Max(2 * d, lam) * width + 2 * lam * n * d >= 2 * n**2 * d,
                sp.Eq(width, 2 * M, evaluate=False),
                lam_is,
                _io >= M * (segments - 1),
            ),
            (),
            "summed over the h segments of M I/O moves, N totals 2 n^2 d and R - C totals 2 n d "
            "(the dQ and dK trees): h max(2d, lambda) 2M + 2 lambda n d >= 2 n^2 d with "
            "lambda = M / (6d), and IO >= M (h - 1) give "
            "IO >= n (6 n d - M) / (6 max(2d, M / (6d))) - M",
        ),
    ]
    steps += _record_steps(file, [(record, sp.Max(0, bound)), (backward, sp.Max(0, back_bound))])
    unchecked = (
        "the witness-tree lemma (lower-accumulators.md, section 2: hand proof; every claim of "
        "it tested on the segments of Belady pebblings and of the exact frontier's forward "
        "certificates in tests/test_derivation_accumulators.py)",
        "the pair-chain lemma of lower-sharp.md, in its witness form (section 3: hand proof; "
        "tested likewise)",
    )
    return Derivation(file, (record.name, backward.name), tuple(steps), unchecked, complete=True)


MAJORANTS: dict[str, sp.Expr] = {
    "dense-forward-lower-small-families": sp.sqrt(2) * d * n**2 / sp.sqrt(M) - M,
    "dense-backward-lower-small-families": 5 * d * n**2 / (2 * sp.sqrt(M)) - M,
    "dense-forward-lower-small-segments": 12 * d * n**2 / (5 * sp.sqrt(M)) - 3 * M,
    "dense-backward-lower-small-segments": 4 * d * n**2 / sp.sqrt(M) - 3 * M,
    "dense-forward-lower-small-shared": 2 * sp.sqrt(2) * d * n**2 / sp.sqrt(M) - 4 * M,
    "dense-backward-lower-small-shared": 3 * sp.sqrt(2) * d * n**2 / sp.sqrt(M) - 4 * M,
    "dense-forward-lower-large-segments-corner": 2 * d**2 * n**2 / M - 2 * M,
    "dense-backward-lower-large-segments-corner": 3 * d**2 * n**2 / M - 2 * M,
    "dense-forward-lower-large-accumulators": 32 * d**2 * n**2 / (11 * M),
    "dense-backward-lower-large-accumulators": 6 * d**2 * n**2 / M,
}
"""Per record, a simpler term at least its explicit bound (its denominator without the row
pairs' and the products-in-D terms; for the large-cache corner records also with its
irrational leading constant rounded up to an integer): z3 compares those bounds with the
counts of the algorithms through it, by transitivity (``Obligation.via``), and not
directly, where the mixed denominator keeps it from deciding within its budget
(lower-families.md, section 4) or takes seconds (the corner records: 8.8 s against 0.2 s
through 2 n^2 d^2 / M - 2M for row streaming)."""


MINORANTS: dict[str, sp.Expr] = {
    "dense-forward-lower-large-sharp": 2 * n**2 * d**2 / (M + 4 * d**2) - M,
    "dense-backward-lower-large-sharp": 4 * n**2 * d * (d + 1) / (M + 8 * d * (d + 1)) - M,
}
"""Per record, a smooth term at most its explicit bound: the record as it was before its
per-part count took the larger end value of its two kinds of dominators instead of their
sum (lower-sharp.md, section 4; 2 d^2 / (M + 4 d^2) <= min(2 d^2 / M, 1/2), and likewise
backward). A claim count <= C * max(lower bounds) with the record in the max is tried
through the same max with this term in its place first (``Obligation.via``, in the
constant search too: :func:`attnio.proofs.check.check_at`); the second step, that this
max is at most the true one, is checked with it. Measured 2026-11-26: under the search's
processor-time net z3 proves the Theta record's backward claim for FlashAttention through
it at C = 410 in 0.5 s and against the Min at no C up to 4096."""


def minorant(record: str) -> sp.Expr | None:
    """A smooth term at most ``record``'s explicit bound, for count <= C * lower claims."""
    return MINORANTS.get(record)


def majorant(record: str) -> sp.Expr | None:
    """The intermediate term for lower <= upper obligations of ``record`` (None if none)."""
    return MAJORANTS.get(record)


def _record_conditions(record: object) -> tuple[sp.Basic, ...]:
    return () if record.conditions is sp.true else (record.conditions,)


_BUILT: dict[str, tuple] = {}


def derivations() -> tuple[Derivation, ...]:
    """Every derivation: compulsory costs, large- and small-cache, two-stage, every-family,
    segments, accumulators.

    Built once per catalog (about 0.4 s of sympy each time, asked for once per derived
    record): the result is kept with the catalog tuple it read
    (:func:`attnio.bounds.catalog.loaded`) and built again when that tuple is replaced.
    """
    current = loaded()
    built = _BUILT.get("derivations")
    if built is not None and built[0] is current:
        return built[1]
    value = _build()
    _BUILT["derivations"] = (current, value)
    return value


def _build() -> tuple[Derivation, ...]:
    return (
        *read_derivations(DIRECTORY / "compulsory.md"),
        *read_derivations(DIRECTORY / "lower-large.md"),
        *read_derivations(DIRECTORY / "lower-small.md"),
        *read_derivations(DIRECTORY / "lower-sharp.md"),
        *read_derivations(DIRECTORY / "lower-twostage.md"),
        *read_derivations(DIRECTORY / "lower-families.md"),
        *read_derivations(DIRECTORY / "lower-segments.md"),
        _accumulators(),
    )


def derivation_obligations() -> list[Obligation]:
    """The algebraic steps of every derivation, as obligations expected to hold."""
    return [step for derivation in derivations() for step in derivation.steps]


__all__ = [
    "DIRECTORY",
    "MAJORANTS",
    "Derivation",
    "derivation_obligations",
    "derivations",
    "majorant",
]
