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
from attnio.bounds.symbols import M, d, h_kv, h_q, n, n_kv, n_q, r, s, w

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
    # the causal records' n (n + 1) as n^2 + n, the n term bounded by the counts' own d n
    # term (sqrt(M) >= 1): z3 compares one power of n^2 in 0.1 s where two powers of
    # n (n + 1) took it 49 s (split by powers of n after the relaxation's net)
    "causal-forward-lower-small-shared": sp.sqrt(2) * d * n**2 / sp.sqrt(M) + 2 * d * n - 4 * M,
    "causal-backward-lower-small-shared": 3 * sp.sqrt(2) * d * n**2 / (2 * sp.sqrt(M))
    + 3 * d * n
    - 4 * M,
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


def _streamed(fixed: sp.Expr, words: sp.Expr, pairs: sp.Expr, width: sp.Expr) -> sp.Expr:
    """``fixed + words * pairs * width / M``: a streaming count's minorant (below)."""
    return fixed + words * pairs * width / M


_CAUSAL = n**2 / 2  # at most the causal mask's n (n + 1) / 2 pairs; one power of n
_WINDOW = n * w - w**2 / 2  # at most the window's n w - w (w - 1) / 2 pairs
_GROUPED = h_q * n_q * n_kv

COUNT_MINORANTS: dict[str, sp.Expr] = {
    # row streaming: blocks of b < M/(2d + 1) query rows (forward), b < M/(4d) key rows
    # (backward); one streamed row moves 2d words forward, 4d + 2 backward
    "row-streaming-forward-count": _streamed(2 * d * n + n, 2 * d, n**2, 2 * d + 1),
    "row-streaming-backward-count": _streamed(5 * d * n + n, 4 * d + 2, n**2, 4 * d),
    "causal-row-streaming-forward-count": _streamed(2 * d * n + n, 2 * d, _CAUSAL, 2 * d + 1),
    "causal-row-streaming-backward-count": _streamed(5 * d * n + n, 4 * d + 2, _CAUSAL, 4 * d),
    "gqa-row-streaming-forward-count": _streamed(
        2 * d * h_q * n_q + h_q * n_q, 2 * d, _GROUPED, 2 * d + 1
    ),
    "gqa-row-streaming-backward-count": _streamed(
        d * h_q * n_q + 4 * d * h_kv * n_kv + h_q * n_q, 4 * d + 2, _GROUPED, 4 * d
    ),
    # split-KV decoding's backward: group-aware row streaming's, plus partial dQ rows
    "split-kv-decode-backward-count": _streamed(
        d * h_q * n_q + 4 * d * h_kv * n_kv + h_q * n_q, 4 * d + 2, _GROUPED, 4 * d
    ),
    # the corner's two-sweep backward (key blocks of b <= M/(4d), then query blocks of
    # b <= M/(3d + 2)) and score-panel forward (panels of b <= M/(d + 3) query rows)
    "two-sweep-backward-count": 9 * d * n + 3 * n + (14 * d**2 + 12 * d) * n**2 / M,
    "score-panel-forward-count": 2 * d * n + 4 * n + 2 * n**2 + 2 * d * (d + 3) * n**2 / M,
    # FlashAttention (-2): blocks of b <= M/(5d + 4), M/(10d + 2), M/(5d + 3), M/(9d + 2)
    "flash-forward-count": _streamed(3 * d * n + 2 * n, 3 * d + 4, n**2, 5 * d + 4),
    "flash-backward-count": _streamed(5 * d * n, 5 * d + 1, n**2, 10 * d + 2),
    "flash2-forward-count": _streamed(2 * d * n + n, 2 * d, n**2, 5 * d + 3),
    "flash2-backward-count": _streamed(7 * d * n + n, 4 * d + 2, n**2, 9 * d + 2),
    "causal-flash2-forward-count": _streamed(2 * d * n + n, 2 * d, _CAUSAL, 5 * d + 3),
    "causal-flash2-backward-count": _streamed(7 * d * n + n, 4 * d + 2, _CAUSAL, 9 * d + 2),
    # the window's row streaming: through COUNT_STEPS; forward with n fixed only (the
    # step drops up to 2 d n of the count's 4 d n + n when it drops the Min)
    "window-row-streaming-forward-count": _streamed(n, 2 * d, _WINDOW, 2 * d + 1),
    "window-row-streaming-backward-count": _streamed(5 * d * n + n, 4 * d + 2, _WINDOW, 4 * d),
    "block-sparse-flash-forward-count": _streamed(
        3 * d * n + 2 * n, 3 * d + 4, s * n**2, 5 * d + 4
    ),
    "block-sparse-flash-backward-count": _streamed(5 * d * n, 5 * d + 1, s * n**2, 10 * d + 2),
    # tilings: square tiles of t <= sqrt(M)/k rows, so ceiling(m/t) >= k m/sqrt(M); the
    # Q K^T tiles' d-blocks moving n^2 words each counted once (standard: 4 sqrt(3) and
    # 10 sqrt(3) rounded down)
    "output-stationary-forward-count": 4 * d * n**2 / sp.sqrt(M) + n**2 + d * n + 2 * n,
    "output-stationary-backward-count": 10 * d * n**2 / sp.sqrt(M) + 3 * n**2 + 4 * d * n + n,
    "square-tiling-forward-count": 8 * d * n**2 / sp.sqrt(M) + n**2 + d * n + 2 * n,
    "tiled-backward-count": 20 * d * n**2 / sp.sqrt(M) + 3 * n**2 + 5 * d * n + 3 * n,
    "standard-forward-count": 6 * d * n**2 / sp.sqrt(M) + 4 * n**2 + d * n,
    "standard-backward-count": 17 * d * n**2 / sp.sqrt(M) + 7 * n**2 + 5 * d * n + 3 * n,
}
"""Per count record, a smooth term at most its exact count: lower <= upper obligations
go through it (``Obligation.via``, after the lower record's majorant), because z3 decides
a smooth lower bound against a smooth term in about a second where it needs a minute, or
does not decide within its budget, against the count's nested floors (measured
2026-11-27: ``shape-forward-lower-large-sharp <= gqa-row-streaming-forward-count`` 73 s
directly, 0.8 s through it; ``dense-backward-lower-small-derived <=
row-streaming-backward-count`` unknown after 146 s at load 9, 1.0 s through it).

Each is ``fixed + words * Z * k / M`` for a schedule that streams rows past resident blocks
of b < M/k rows: a block of b rows meets at most b pairs (i, j) of the mask per row
streamed past it, so with Z allowed pairs at least Z / b > Z k / M rows are streamed in
all, each moving ``words`` words; ``fixed`` is what the schedule moves once. Z is n^2
(dense), n^2/2 (causal: below its n(n + 1)/2 pairs, in one power of n, like the causal
majorants above),
h_q n_q n_kv (grouped heads) or s n^2 (a block-sparse mask of density s). The argument is
not trusted: every obligation proves its step ``term <= count`` with z3 (one more step
of the chain), and a chain that fails falls back to the claim itself."""


_WB = sp.floor(M / (4 * d)) - 2  # the windowed backward's key block
_WQ = sp.floor((n - w + 1) / _WB)  # its blocks that stream the full b + w - 1 queries
_WT = sp.ceiling(n / _WB)
_FB = sp.floor(M / (2 * d + 1)) - 2  # the windowed forward's query block

COUNT_STEPS: dict[str, tuple[sp.Expr, ...]] = {
    # keys streamed: n + b c (c - 1)/2 + (w - 1)(T - c) >= n + (w - 1)(T - (C + 1)/2),
    # C = ceiling((w - 1)/b) >= c: the Min's two cases in one term without the Min
    "window-row-streaming-forward-count": (
        4 * d * n + n + d * (w - 1) * (2 * sp.ceiling(n / _FB) - sp.ceiling((w - 1) / _FB) - 1),
    ),
    # queries streamed Q = k (b + w - 1) + (the tail's T - k blocks, n - t b each) >=
    # k w + (T - k)(n - k b)/2 >= k w + (n - k b)^2/(2b) >= (n w - w^2/2)/b: the last
    # is (n - k b - w)^2 >= 0
    "window-row-streaming-backward-count": (
        5 * d * n + n + (4 * d + 2) * (n * w - w**2 / 2) / _WB,
        5 * d * n + n + (4 * d + 2) * (_WQ * w + (n - _WQ * _WB) ** 2 / (2 * _WB)),
        5 * d * n + n + (4 * d + 2) * (_WQ * w + (_WT - _WQ) * (n - _WQ * _WB) / 2),
        5 * d * n + n + (4 * d + 2) * (_WQ * (_WB + w - 1) + (_WT - _WQ) * (n - _WQ * _WB) / 2),
    ),
}
"""Per count record whose minorant z3 does not prove in one query, the terms between the
minorant and the count, in increasing order (each at most the next, the last at most the
count): the count's own floors and ceilings kept, one rounding or one case of its Min
dropped per step, so each step is a query z3 decides in about a second. The lower <= count
chains go through them after the minorant (:func:`count_chain`); each step is proved like
any other link, so nothing about them is trusted; a step with roundings on both sides is
tried by the real relaxation first (:func:`attnio.proofs.check.check_via`). Measured
2026-11-28 (``attnio prove --only '*window*'``): the windowed row streaming's forward
minorant against its count directly, unknown after 68 s, through its step 0.4 s and 0.8
s; the backward's directly unknown after 85 s, through its four steps 1.2 s in all with
the sharp lower record's link."""


def count_minorant(record: str) -> sp.Expr | None:
    """A smooth term at most count record ``record``'s exact count (None if none)."""
    return COUNT_MINORANTS.get(record)


def count_chain(record: str) -> tuple[sp.Expr, ...]:
    """The terms from count record ``record``'s minorant up to its count, in increasing
    order: the minorant, then its :data:`COUNT_STEPS` (empty if it has no minorant)."""
    found = count_minorant(record)
    return () if found is None else (found, *COUNT_STEPS.get(record, ()))


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
    "causal-lower.md",
    "mask-lower.md",
    "sparse-inputs.md",
)
"""The shipped derivation files, under :data:`DIRECTORY`, in the order they are listed."""


def _build() -> tuple[Derivation, ...]:
    return tuple(found for file in FILES for found in read_derivations(DIRECTORY / file))


def derivation_obligations() -> list[Obligation]:
    """The algebraic steps of every derivation, as obligations expected to hold."""
    return [step for derivation in derivations() for step in derivation.steps]


__all__ = [
    "COUNT_MINORANTS",
    "COUNT_STEPS",
    "DIRECTORY",
    "FILES",
    "MAJORANTS",
    "Derivation",
    "count_chain",
    "count_minorant",
    "derivation_obligations",
    "derivations",
    "majorant",
]
