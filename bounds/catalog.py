"""The catalog of bounds on the I/O complexity of attention.

Every record is typed here (published and reconstructed bounds) or in
:mod:`attnio.bounds.counts` (exact I/O counts of attnio's algorithms), once.
Evidence levels are those of docs/evidence.md; the status of a record is
never higher than its evidence. docs/results.md presents every record.

Backward-pass records use FlashAttention-2's formulation (D23): inputs Q, K,
V, O, dO (n x d each) and the row log-sum-exp L (n); outputs dQ, dK, dV.
Sparse records about masks count the allowed (i, j) pairs in ``Z`` and assume
every row of the mask has an allowed entry; records about LLSSZ24's sparse
inputs use ``Z_in`` and ``Z_QK``.
"""

from __future__ import annotations

from collections.abc import Iterable

import sympy as sp

from .counts import COUNTS
from .errors import FilterError, UnknownBoundError
from .record import Bound, Cache, Kind, Pass, Regime, Status
from .symbols import Z_QK, M, Z, Z_in, d, n, r, s, s_c
from .terms import (
    BACKWARD_LARGE,
    BACKWARD_SMALL,
    CACHE_BOUNDARY,
    FA2_NOTE,
    FORWARD_LARGE,
    FORWARD_SMALL,
    KEYS_TOUCHED,
)

# ---------------------------------------------------------------- shared terms
# Each formula that more than one record uses is written once here.

COMPULSORY_FORWARD = 4 * n * d
"""Read Q, K, V once and write O once."""

COMPULSORY_BACKWARD = 8 * n * d + n
"""Read Q, K, V, O, dO and L once, write dQ, dK, dV once (FA2 formulation)."""

COMPULSORY_SPARSE_FORWARD = 2 * n * d + 2 * d * KEYS_TOUCHED
"""Read Q, write O (every row is nonempty), read K and V rows of the keys used."""

COMPULSORY_SPARSE_BACKWARD = 4 * n * d + n + 4 * d * KEYS_TOUCHED
"""Read Q, O, dO, L and write dQ for every row; read K, V and write dK, dV for the keys used."""

LARGE_CACHE = M >= CACHE_BOUNDARY
SMALL_CACHE = M < CACHE_BOUNDARY
FLASH_RANGE = sp.And(d <= M, M <= n * d)
STANDARD_RANGE = sp.And(LARGE_CACHE, M <= n * d)
"""Where standard attention's O(nd + n^2) holds: DFE22's d <= M <= nd cut to M >= d^2."""
STANDARD_AS_STATED = FLASH_RANGE
"""DFE22 Thm 2 and Thm 5 state O(nd + n^2) for standard attention on d <= M <= nd."""

LOWER_SMALL_DERIVED = n**2 * d / (sp.sqrt(5 * M) + 2) - M
"""attnio's small-cache bound: HK81's partition with the Loomis-Whitney inequality."""

# The sharp lower bounds of proofs/derivations/lower-sharp.md: each counts the products of
# the graph that need the most operands at once (P V forward; dS K, dS^T Q, P^T dO backward).
LOWER_LARGE_SHARP_FORWARD = 2 * n**2 * d**2 / (M + 4 * d**2) - M
"""Forward, any M (sharpest for M >= d^2): the P V products, HK81's partition."""
LOWER_LARGE_SHARP_BACKWARD = 4 * n**2 * d * (d + 1) / (M + 8 * d * (d + 1)) - M
"""Backward, any M (sharpest for M >= d^2): the dS K products, HK81's partition."""
LOWER_SMALL_SHARP_FORWARD = n**2 * d / (sp.sqrt(2 * M) + 2) - M
"""Forward, M < d^2: the P V products, HK81's partition and Loomis-Whitney."""
LOWER_SMALL_SHARP_BACKWARD = 3 * n**2 * d / (2 * sp.sqrt(M) + 2) - M
"""Backward, M < d^2: the dS K, dS^T Q and P^T dO products together (Cauchy-Schwarz)."""
_SHARP_SOURCE = "proofs/derivations/lower-sharp.md (HK81 Thm 3.1 partition, attnio's per-part lemma"

FULL_DENSITY = {Z: n**2, Z_QK: n**2, Z_in: n * d, s: 1, s_c: 1}
"""Substitution that turns a sparse record into its dense counterpart."""

_STANDARD_NOTE = (
    "DFE22 state O(nd + n^2) for every d <= M <= nd; below M = d^2 it contradicts the "
    "small-cache lower bound Omega(n^2 d / sqrt(M)) (SY24 Thm 3.7; attnio's derived "
    "dense-*-lower-small-derived), so the record keeps M >= d^2, where attnio's exact count "
    "is proved within a constant of it (obligations order/*). The refutation of the stated "
    "range is obligation refutation/*-as-stated."
)


_LLSSZ24_N_GE_D = (
    "Condition n >= d (below d^2) is attnio's: in the FlashAttention-2 backward model the "
    "n d^2 / sqrt(M) term fails for n < d. At n = 1, M = 16 the derived count "
    "tiled-backward-count grows like 13.5 d while (n^2 d + n d^2) / sqrt(M) grows like "
    "d^2 / 4, so no constant makes the Omega hold there; the source's model (a d x d "
    "weight product, see dense-backward-tight) may differ."
)


def _dense() -> list[Bound]:
    fwd, bwd = Pass.FORWARD, Pass.BACKWARD
    dense = Regime.DENSE
    return [
        Bound(
            name="dense-forward-compulsory",
            kind=Kind.LOWER,
            regime=dense,
            pass_=fwd,
            cache=Cache.ANY,
            asymptotic=n * d,
            explicit=COMPULSORY_FORWARD,
            conditions=sp.true,
            source="SZP26 abstract (trivial Omega(nd)); constant: proofs/derivations/compulsory.md",
            status=Status.DERIVED,
            notes="Every input vertex has a successor, so it is loaded at least once; "
            "every output must end blue, so it is stored at least once.",
        ),
        Bound(
            name="dense-forward-tight",
            kind=Kind.TIGHT,
            regime=dense,
            pass_=fwd,
            cache=Cache.ANY,
            asymptotic=sp.Max(n * d, sp.Min(FORWARD_LARGE, FORWARD_SMALL)),
            explicit=None,
            conditions=sp.true,
            source="SY24 Thm 3.1",
            status=Status.STATED,
            notes="SY24 states Theta(min(n^2 d^2 / M, n^2 d / sqrt(M))); the max with the "
            "compulsory nd is attnio's (docs/results.md#dense-forward).",
        ),
        Bound(
            name="dense-forward-lower-large",
            kind=Kind.LOWER,
            regime=dense,
            pass_=fwd,
            cache=Cache.LARGE,
            asymptotic=FORWARD_LARGE,
            explicit=None,
            conditions=LARGE_CACHE,
            source="SY24 Lemma 3.4",
            status=Status.STATED,
            notes="From the Q K^T part of the graph alone.",
        ),
        Bound(
            name="dense-forward-lower-large-explicit",
            kind=Kind.LOWER,
            regime=dense,
            pass_=fwd,
            cache=Cache.LARGE,
            asymptotic=FORWARD_LARGE,
            explicit=FORWARD_LARGE / 8 - M,
            conditions=LARGE_CACHE,
            source="proofs/derivations/lower-large.md (SY24 Lemma 3.4 counting, HK81 Thm 3.1)",
            status=Status.DERIVED,
        ),
        Bound(
            name="dense-forward-lower-small",
            kind=Kind.LOWER,
            regime=dense,
            pass_=fwd,
            cache=Cache.SMALL,
            asymptotic=FORWARD_SMALL,
            explicit=None,
            conditions=SMALL_CACHE,
            source="SY24 Thm 3.7",
            status=Status.STATED,
            notes="Reduction to HK81 rectangular matrix multiplication Omega(mkn / sqrt(M)).",
        ),
        Bound(
            name="dense-forward-lower-small-explicit",
            kind=Kind.LOWER,
            regime=dense,
            pass_=fwd,
            cache=Cache.SMALL,
            asymptotic=FORWARD_SMALL,
            explicit=2 * FORWARD_SMALL - 2 * M - n**2,
            conditions=SMALL_CACHE,
            source="candidate: SY24 Thm 3.7 reduction with SLLG17 (proofs/derivations/lower-small.md)",
            status=Status.RECONSTRUCTED,
        ),
        Bound(
            name="dense-forward-lower-small-derived",
            kind=Kind.LOWER,
            regime=dense,
            pass_=fwd,
            cache=Cache.SMALL,
            asymptotic=FORWARD_SMALL,
            explicit=LOWER_SMALL_DERIVED,
            conditions=SMALL_CACHE,
            source="proofs/derivations/lower-small.md (HK81 Thm 3.1 partition, the per-part "
            "lemma of lower-large.md, the Loomis-Whitney inequality)",
            status=Status.DERIVED,
        ),
        Bound(
            name="dense-forward-lower-large-sharp",
            kind=Kind.LOWER,
            regime=dense,
            pass_=fwd,
            cache=Cache.LARGE,
            asymptotic=FORWARD_LARGE,
            explicit=LOWER_LARGE_SHARP_FORWARD,
            conditions=LARGE_CACHE,
            source=_SHARP_SOURCE + " for the P V products)",
            status=Status.DERIVED,
            notes="Counts the n^2 d products P_ij V_jk, each of which needs a query row, a key "
            "row and a value entry at once; twice the S = Q K^T bound's leading term. The proof "
            "holds for every M (the record keeps M >= d^2, where it is the sharpest), for "
            "SY24's graph and for every graph in which P_ij is computed from q_i and k_j through "
            "vertices of the pair (i, j) alone (FlashAttention's included).",
        ),
        Bound(
            name="dense-forward-lower-small-sharp",
            kind=Kind.LOWER,
            regime=dense,
            pass_=fwd,
            cache=Cache.SMALL,
            asymptotic=FORWARD_SMALL,
            explicit=LOWER_SMALL_SHARP_FORWARD,
            conditions=SMALL_CACHE,
            source=_SHARP_SOURCE + " and the Loomis-Whitney inequality, for the P V products)",
            status=Status.DERIVED,
            notes="Leading constant 1/sqrt(2) ~ 0.707 against the S = Q K^T bound's 1/sqrt(5).",
        ),
        Bound(
            name="dense-forward-lower-any-algorithm",
            kind=Kind.LOWER,
            regime=dense,
            pass_=fwd,
            cache=Cache.ANY,
            asymptotic=sp.Min(FORWARD_LARGE, n**2),
            explicit=None,
            conditions=sp.true,
            source="SY24 Thm 4.8",
            status=Status.STATED,
            notes="Any algorithm, fast matrix multiplication allowed, entries in F_q with q > n: "
            "a different model from the pebble game on SY24's graph.",
        ),
        Bound(
            name="standard-forward-upper",
            kind=Kind.UPPER,
            regime=dense,
            pass_=fwd,
            cache=Cache.ANY,
            asymptotic=n * d + n**2,
            explicit=None,
            conditions=STANDARD_RANGE,
            source="DFE22 Thm 2 (stated for d <= M <= nd; holds only for M >= d^2)",
            status=Status.STATED,
            algorithm="standard",
            notes="Materialises S and P in slow memory. " + _STANDARD_NOTE,
        ),
        Bound(
            name="flash-forward-upper",
            kind=Kind.UPPER,
            regime=dense,
            pass_=fwd,
            cache=Cache.ANY,
            asymptotic=FORWARD_LARGE,
            explicit=None,
            conditions=FLASH_RANGE,
            source="DFE22 Thm 2",
            status=Status.STATED,
            algorithm="flash",
        ),
        Bound(
            name="square-tiling-forward-upper",
            kind=Kind.UPPER,
            regime=dense,
            pass_=fwd,
            cache=Cache.SMALL,
            asymptotic=FORWARD_SMALL,
            explicit=None,
            conditions=SMALL_CACHE,
            source="SY24 Thm 3.5",
            status=Status.STATED,
            algorithm="square-tiling",
            notes="Materialises A (O(n^2) slow-memory space).",
        ),
        Bound(
            name="dense-backward-compulsory",
            kind=Kind.LOWER,
            regime=dense,
            pass_=bwd,
            cache=Cache.ANY,
            asymptotic=n * d,
            explicit=COMPULSORY_BACKWARD,
            conditions=sp.true,
            source="trivial; constant: proofs/derivations/compulsory.md",
            status=Status.DERIVED,
            notes=FA2_NOTE,
        ),
        Bound(
            name="dense-backward-tight",
            kind=Kind.TIGHT,
            regime=dense,
            pass_=bwd,
            cache=Cache.ANY,
            asymptotic=sp.Max(n * d, sp.Min(BACKWARD_LARGE, BACKWARD_SMALL)),
            explicit=None,
            conditions=sp.Or(LARGE_CACHE, n >= d),
            source="LLSSZ24 Thm 1.1",
            status=Status.STATED_SECONDARY,
            notes="The n d^3 / M and n d^2 / sqrt(M) terms suggest Alman and Song's "
            "loss-gradient formulation with a d x d weight product; attnio's graphs and "
            "algorithms use FA2's. The max with nd is attnio's. " + _LLSSZ24_N_GE_D,
        ),
        Bound(
            name="dense-backward-lower-large",
            kind=Kind.LOWER,
            regime=dense,
            pass_=bwd,
            cache=Cache.LARGE,
            asymptotic=BACKWARD_LARGE,
            explicit=None,
            conditions=LARGE_CACHE,
            source="LLSSZ24 Thm 1.1 (large-cache half); FlashAttention optimality Thm 4.1, 4.2",
            status=Status.STATED_SECONDARY,
        ),
        Bound(
            name="dense-backward-lower-large-explicit",
            kind=Kind.LOWER,
            regime=dense,
            pass_=bwd,
            cache=Cache.LARGE,
            asymptotic=FORWARD_LARGE,
            explicit=FORWARD_LARGE / 8 - M,
            conditions=LARGE_CACHE,
            source="proofs/derivations/lower-large.md: the forward argument applied to the "
            "computation of S = Q K^T inside the backward graph",
            status=Status.DERIVED,
            notes=FA2_NOTE,
        ),
        Bound(
            name="dense-backward-lower-small",
            kind=Kind.LOWER,
            regime=dense,
            pass_=bwd,
            cache=Cache.SMALL,
            asymptotic=BACKWARD_SMALL,
            explicit=None,
            conditions=sp.And(SMALL_CACHE, n >= d),
            source="LLSSZ24 Thm 1.1 (small-cache half)",
            status=Status.STATED_SECONDARY,
            notes=_LLSSZ24_N_GE_D,
        ),
        Bound(
            name="dense-backward-lower-small-explicit",
            kind=Kind.LOWER,
            regime=dense,
            pass_=bwd,
            cache=Cache.SMALL,
            asymptotic=FORWARD_SMALL,
            explicit=2 * FORWARD_SMALL - 2 * M - n**2,
            conditions=SMALL_CACHE,
            source="candidate: SY24 Thm 3.7 reduction with SLLG17, applied to the "
            "recomputation of S = Q K^T inside the backward graph",
            status=Status.RECONSTRUCTED,
            notes=FA2_NOTE,
        ),
        Bound(
            name="dense-backward-lower-small-derived",
            kind=Kind.LOWER,
            regime=dense,
            pass_=bwd,
            cache=Cache.SMALL,
            asymptotic=FORWARD_SMALL,
            explicit=LOWER_SMALL_DERIVED,
            conditions=SMALL_CACHE,
            source="proofs/derivations/lower-small.md: the forward argument applied to the "
            "computation of S = Q K^T inside the backward graph",
            status=Status.DERIVED,
            notes=FA2_NOTE,
        ),
        Bound(
            name="dense-backward-lower-large-sharp",
            kind=Kind.LOWER,
            regime=dense,
            pass_=bwd,
            cache=Cache.LARGE,
            asymptotic=FORWARD_LARGE,
            explicit=LOWER_LARGE_SHARP_BACKWARD,
            conditions=LARGE_CACHE,
            source=_SHARP_SOURCE + " for the dS K products)",
            status=Status.DERIVED,
            notes=FA2_NOTE
            + " Counts the n^2 d products dS_ij K_jl: each needs the rows q_i, dO_i, L_i and "
            "D_i (or O_i) and the rows k_j, v_j at once. Holds for every M; the record keeps "
            "M >= d^2, where it is the sharpest.",
        ),
        Bound(
            name="dense-backward-lower-small-sharp",
            kind=Kind.LOWER,
            regime=dense,
            pass_=bwd,
            cache=Cache.SMALL,
            asymptotic=FORWARD_SMALL,
            explicit=LOWER_SMALL_SHARP_BACKWARD,
            conditions=SMALL_CACHE,
            source=_SHARP_SOURCE + ", Loomis-Whitney and Cauchy-Schwarz, for the dS K, dS^T Q "
            "and P^T dO products)",
            status=Status.DERIVED,
            notes=FA2_NOTE + " Leading constant 3/2 against the S = Q K^T bound's 1/sqrt(5).",
        ),
        Bound(
            name="standard-backward-upper",
            kind=Kind.UPPER,
            regime=dense,
            pass_=bwd,
            cache=Cache.ANY,
            asymptotic=n * d + n**2,
            explicit=None,
            conditions=STANDARD_RANGE,
            source="DFE22 Thm 5 (stated for d <= M <= nd; holds only for M >= d^2)",
            status=Status.STATED,
            algorithm="standard",
            notes=_STANDARD_NOTE,
        ),
        Bound(
            name="flash-backward-upper",
            kind=Kind.UPPER,
            regime=dense,
            pass_=bwd,
            cache=Cache.ANY,
            asymptotic=FORWARD_LARGE,
            explicit=None,
            conditions=FLASH_RANGE,
            source="DFE22 Thm 5",
            status=Status.STATED,
            algorithm="flash",
            notes="Optimal for M = Omega(d^2): LLSSZ24 Thm 4.1, 4.2 (stated-secondary).",
        ),
        Bound(
            name="small-cache-backward-upper",
            kind=Kind.UPPER,
            regime=dense,
            pass_=bwd,
            cache=Cache.SMALL,
            asymptotic=BACKWARD_SMALL,
            explicit=None,
            conditions=SMALL_CACHE,
            source="LLSSZ24 Alg. 6, Thm 4.3, 4.4",
            status=Status.STATED_SECONDARY,
            algorithm="tiled-backward",
            notes="The published algorithm's steps were not retrieved; attnio's tiled "
            "backward (square tiling of every backward product) is its stand-in.",
        ),
    ]


def _sparse() -> list[Bound]:
    fwd, bwd = Pass.FORWARD, Pass.BACKWARD
    sparse = Regime.SPARSE
    in_mask = sp.And(n <= Z, Z <= n**2)
    return [
        Bound(
            name="sparse-forward-compulsory",
            kind=Kind.LOWER,
            regime=sparse,
            pass_=fwd,
            cache=Cache.ANY,
            asymptotic=n * d,
            explicit=COMPULSORY_SPARSE_FORWARD,
            conditions=in_mask,
            source="trivial; constant: proofs/derivations/compulsory.md",
            status=Status.DERIVED,
            notes="A mask with Z allowed pairs, every row nonempty.",
            reduces_to="dense-forward-compulsory",
        ),
        Bound(
            name="sparse-forward-lower-inputs",
            kind=Kind.LOWER,
            regime=sparse,
            pass_=fwd,
            cache=Cache.ANY,
            asymptotic=sp.Max(Z_in, sp.Min(Z_in**2 / M, Z_in * sp.sqrt(Z_QK) / sp.sqrt(M))),
            explicit=None,
            conditions=sp.true,
            source="LLSSZ24 (sparse lower bounds; statements not retrieved), PS14",
            status=Status.RECONSTRUCTED,
            notes="Sparse inputs Q, K with Z_in nonzeros and Z_QK nonzero scores. A worst case "
            "over sparsity patterns, not a bound for every instance: a diagonal mask costs "
            "O(nd). The max with Z_in is attnio's. Crossover M = Z_in^2 / Z_QK.",
            reduces_to="dense-forward-tight",
        ),
        Bound(
            name="block-sparse-flash-forward-upper",
            kind=Kind.UPPER,
            regime=sparse,
            pass_=fwd,
            cache=Cache.ANY,
            asymptotic=n * d + FORWARD_LARGE * s,
            explicit=None,
            conditions=sp.And(FLASH_RANGE, s <= 1),
            source="DFE22 Prop 4",
            status=Status.STATED,
            algorithm="block-sparse-flash",
            notes="s is the fraction of nonzero blocks of the block mask.",
            reduces_to="flash-forward-upper",
        ),
        Bound(
            name="sparse-forward-small-upper",
            kind=Kind.UPPER,
            regime=sparse,
            pass_=fwd,
            cache=Cache.SMALL,
            asymptotic=None,
            explicit=None,
            conditions=SMALL_CACHE,
            source="LLSSZ24 gives none (noted by its reviewers)",
            status=Status.OPEN,
            notes="No published sparse small-cache algorithm; attnio's sparse square tiling "
            "supplies one: record sparse-square-tiling-forward-count.",
        ),
        Bound(
            name="sparse-backward-compulsory",
            kind=Kind.LOWER,
            regime=sparse,
            pass_=bwd,
            cache=Cache.ANY,
            asymptotic=n * d,
            explicit=COMPULSORY_SPARSE_BACKWARD,
            conditions=in_mask,
            source="trivial; constant: proofs/derivations/compulsory.md",
            status=Status.DERIVED,
            notes=FA2_NOTE + " A mask with Z allowed pairs, every row nonempty.",
            reduces_to="dense-backward-compulsory",
        ),
        Bound(
            name="sparse-backward-lower-llsszz",
            kind=Kind.LOWER,
            regime=sparse,
            pass_=bwd,
            cache=Cache.ANY,
            asymptotic=None,
            explicit=None,
            conditions=sp.true,
            source="LLSSZ24 (sparse backward lower bounds)",
            status=Status.CLAIMED_UNRETRIEVED,
            notes="LLSSZ24 states fine-grained sparse backward lower bounds for small and large "
            "caches that recover the dense case; the statements were not retrieved.",
        ),
        Bound(
            name="sparse-backward-upper",
            kind=Kind.UPPER,
            regime=sparse,
            pass_=bwd,
            cache=Cache.ANY,
            asymptotic=None,
            explicit=None,
            conditions=sp.true,
            source="none published",
            status=Status.OPEN,
            notes="DFE22 Prop 4 covers the forward pass only and LLSSZ24 gives no sparse upper "
            "bound; attnio supplies records block-sparse-flash-backward-count and "
            "sparse-square-tiling-backward-count.",
        ),
    ]


def _approximate() -> list[Bound]:
    fwd, bwd = Pass.FORWARD, Pass.BACKWARD
    approx = Regime.APPROXIMATE
    return [
        Bound(
            name="approximate-forward-compulsory",
            kind=Kind.LOWER,
            regime=approx,
            pass_=fwd,
            cache=Cache.ANY,
            asymptotic=n * d,
            explicit=None,
            conditions=sp.true,
            source="SZP26 abstract",
            status=Status.STATED,
            notes="No explicit constant: an approximation need not read every input word.",
        ),
        Bound(
            name="approximate-forward-szp26",
            kind=Kind.TIGHT,
            regime=approx,
            pass_=fwd,
            cache=Cache.ANY,
            asymptotic=None,
            explicit=None,
            conditions=sp.true,
            source="SZP26 abstract",
            status=Status.CLAIMED_UNRETRIEVED,
            notes="Claims I/O almost linear in n in most parameter regimes with near-matching "
            "lower bounds; theorem statements not retrieved. Context: AS23 (time n^{1+o(1)} "
            "for d = O(log n), B = o(sqrt(log n)); SETH-hard at B = Theta(sqrt(log n))).",
        ),
        Bound(
            name="low-rank-forward-upper",
            kind=Kind.UPPER,
            regime=approx,
            pass_=fwd,
            cache=Cache.ANY,
            asymptotic=n * d + r * d + n * r * d**2 / M,
            explicit=None,
            conditions=sp.true,
            source="AS23 polynomial method, streaming schedule (docs/results.md#approximate)",
            status=Status.RECONSTRUCTED,
            algorithm="low-rank",
            notes="r = C(d + g, g). 4nd + O(rd) when W = phi(K)^T [V | 1] fits in fast "
            "memory, O(nd + n r d^2 / M) when it is blocked; exact count: record "
            "low-rank-forward-count.",
        ),
        Bound(
            name="approximate-backward-lower",
            kind=Kind.LOWER,
            regime=approx,
            pass_=bwd,
            cache=Cache.ANY,
            asymptotic=None,
            explicit=None,
            conditions=sp.true,
            source="none published",
            status=Status.OPEN,
            notes="AS24 bounds the time of the approximate gradient, not its I/O; no I/O lower "
            "bound is published beyond reading the inputs an algorithm chooses to read.",
        ),
        Bound(
            name="approximate-backward-upper",
            kind=Kind.UPPER,
            regime=approx,
            pass_=bwd,
            cache=Cache.ANY,
            asymptotic=None,
            explicit=None,
            conditions=sp.true,
            source="none published",
            status=Status.OPEN,
            notes="AS24 gives an n^{1+o(1)}-time gradient algorithm for bounded entries but no "
            "I/O analysis; attnio's low-rank backward (record low-rank-backward-count) computes "
            "the gradient of the approximate output, with no error bound against exact gradients.",
        ),
    ]


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


def _build() -> tuple[Bound, ...]:
    records = [*_dense(), *_sparse(), *_approximate(), *COUNTS]
    seen: set[str] = set()
    for record in records:
        if record.name in seen:
            raise RuntimeError(f"duplicate bound name {record.name!r} in the catalog")
        seen.add(record.name)
    return tuple(records)


_CATALOG: tuple[Bound, ...] = _build()


def _choices(value: str | None, enum_type: type, what: str) -> object:
    if value is None:
        return None
    try:
        return enum_type(value)
    except ValueError:
        valid = ", ".join(member.value for member in enum_type)
        raise FilterError(f"{what}={value!r} is not one of: {valid}") from None


def catalog(
    *,
    regime: str | None = None,
    pass_: str | None = None,
    cache: str | None = None,
    kind: str | None = None,
    status: str | None = None,
    algorithm: str | None = None,
) -> tuple[Bound, ...]:
    """Return the bounds that match every given filter, in catalog order.

    A ``cache`` filter of ``small`` or ``large`` also returns the records whose
    cache is ``any``, since they apply there too.

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

    return tuple(bound for bound in _CATALOG if keep(bound))


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
