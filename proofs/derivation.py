"""The shipped derivations of explicit-constant bounds, each algebraic step a z3 obligation.

A derivation (a Markdown file in ``proofs/derivations/``, read by
:mod:`attnio.proofs.document`; its format in docs/derivations.md) proves a catalog
record's explicit expression. Its steps are of two kinds:

* *algebraic* steps, the rows of its steps table, each an obligation (hypotheses ->
  conclusion) proved by z3; the last step reads the record's expression from the
  catalog, so the derivation proves what the catalog says, not a retyped copy;
* *combinatorial* steps (counting arguments about the pebble game), proved in the
  Markdown file's prose and listed in its lemma table (``unchecked``): z3 checks algebra,
  not combinatorics.

A record may carry status ``derived`` only if its derivation exists and every
algebraic step is proved; :mod:`attnio.proofs.verification` checks that.
"""

from __future__ import annotations

import sympy as sp

from attnio.bounds.catalog import loaded
from attnio.bounds.symbols import M, d, n, r

from .document import DIRECTORY, Derivation, read_derivations
from .obligation import Obligation

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
    "polynomial-forward-lower": sp.Piecewise(
        (4 * d * n, M >= 2 * d + r * (d + 2) + 1), (2 * d * n + 4 * d**2 * n * r / M, True)
    ),
    "polynomial-backward-lower-dw": sp.Piecewise(
        (7 * d * n, M >= 4 * d + 2 * r * (d + 2) + 1), (7 * d * n + 8 * d**2 * n * r / M, True)
    ),
}
"""Per record, a simpler term at least its explicit bound (its denominator without the row
pairs' and the products-in-D terms; for the large-cache corner records also with its
irrational leading constant rounded up to an integer): z3 compares those bounds with the
counts of the algorithms through it, by transitivity (``Obligation.via``), and not
directly, where the mixed denominator keeps it from deciding within its budget
(lower-families.md, section 4) or takes seconds (the corner records: 8.8 s against 0.2 s
through 2 n^2 d^2 / M - 2M for row streaming). The polynomial records' majorants are the
streaming counts' own shapes (4nd or 7nd when [W | w] fits, else the feature-block term's
floor), which z3 compares with the counts without the records' cube roots; directly, it
gave unknown after 220 s (polynomial-lower.md, section 5)."""


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


PAIR_MAJORANTS: dict[tuple[str, str], sp.Expr] = {
    ("dense-backward-lower-small-sharp", "two-sweep-backward-count"): (
        3 * d**2 * n**2 / (2 * M) - M
    ),
    ("dense-backward-lower-small-twostage", "two-sweep-backward-count"): d**2 * n**2 / M - M,
    ("dense-backward-lower-small-derived", "two-sweep-backward-count"): d**2 * n**2 / M - M,
    ("dense-backward-lower-small-families", "two-sweep-backward-count"): (
        3 * d**2 * n**2 / (2 * M) - M
    ),
    ("dense-backward-lower-small-segments", "two-sweep-backward-count"): (
        4 * d**2 * n**2 / M - 3 * M
    ),
    ("dense-backward-lower-small-shared", "two-sweep-backward-count"): (
        5 * d**2 * n**2 / M - 4 * M
    ),
    ("dense-backward-lower-small-segments-corner", "two-sweep-backward-count"): (
        3 * d**2 * n**2 / M - 2 * M
    ),
}
"""Per (lower record, count record), an intermediate term for that one obligation, in
place of :data:`MAJORANTS`: the small-cache records' c d n^2 / sqrt(M) with sqrt(M) < d
raised to c' d^2 n^2 / M, c' >= c rational (3 d n^2 / (2 sqrt(M) + 2) <= 3 d^2 n^2 /
(2M); 4 d n^2 / (3 sqrt(2) sqrt(M) + 4) <= d^2 n^2 / M; sqrt(2), 4, 3 sqrt(2) and
4 / sqrt(3) raised to 3/2, 4, 5 and 3), which z3 compares with the two-sweep count's two
floors without a root: each obligation in about 1 to 2 s, where directly small-sharp and
small-twostage ended unknown after 270 s (through the root-bearing majorant 3 d n^2 /
(2 sqrt(M)) - M, 60 s) and the others took 40 to 77 s."""


def majorant(record: str, upper: str | None = None) -> sp.Expr | None:
    """The intermediate term for lower <= upper obligations of ``record`` (None if none):
    the one of :data:`PAIR_MAJORANTS` for ``(record, upper)`` if any, else
    :data:`MAJORANTS`'s."""
    paired = PAIR_MAJORANTS.get((record, upper)) if upper is not None else None
    return MAJORANTS.get(record) if paired is None else paired


_BUILT: dict[str, tuple] = {}


def derivations() -> tuple[Derivation, ...]:
    """Every derivation of the shipped files (:data:`FILES`): compulsory costs, large- and
    small-cache, sharp, two-stage, every-family, segments, accumulators.

    Read once per catalog (about 1.5 s of processor time, parsing and sympy; the Python
    builders they replaced took 0.9 s), asked for once per derived record: the result is
    kept with the catalog tuple it read (:func:`attnio.bounds.catalog.loaded`) and read
    again when that tuple is replaced, so the record steps read the new records.
    """
    current = loaded()
    built = _BUILT.get("derivations")
    if built is not None and built[0] is current:
        return built[1]
    value = _build()
    _BUILT["derivations"] = (current, value)
    return value


FILES = (
    "compulsory.md",
    "lower-large.md",
    "lower-small.md",
    "lower-sharp.md",
    "lower-twostage.md",
    "lower-families.md",
    "lower-segments.md",
    "lower-accumulators.md",
    "shape-compulsory.md",
    "shape-lower.md",
    "approximate-compulsory.md",
    "polynomial-lower.md",
)
"""The shipped derivation files, under :data:`DIRECTORY`, in the order they are listed."""


def _build() -> tuple[Derivation, ...]:
    return tuple(found for file in FILES for found in read_derivations(DIRECTORY / file))


def derivation_obligations() -> list[Obligation]:
    """The algebraic steps of every derivation, as obligations expected to hold."""
    return [step for derivation in derivations() for step in derivation.steps]


__all__ = [
    "DIRECTORY",
    "FILES",
    "MAJORANTS",
    "Derivation",
    "derivation_obligations",
    "derivations",
    "majorant",
]
