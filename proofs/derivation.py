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

from dataclasses import dataclass
from pathlib import Path

import sympy as sp

from attnio.bounds import get
from attnio.bounds.symbols import M, Z, d, n

from .obligation import Expectation, Obligation

DIRECTORY = Path(__file__).parent / "derivations"
"""Where the Markdown derivations live."""


@dataclass(frozen=True)
class Derivation:
    """A written derivation of one or more catalog records.

    Parameters
    ----------
    file : str
        File name under :data:`DIRECTORY`.
    records : tuple of str
        The catalog records whose explicit expression it establishes.
    steps : tuple of Obligation
        The algebraic steps, each expected to hold.
    unchecked : tuple of str
        The steps z3 does not check (combinatorial arguments, cited lemmas), in words.
    complete : bool
        Whether the written argument covers every step (a derivation with a
        known gap, such as an unverified citation, is not complete).
    """

    file: str
    records: tuple[str, ...]
    steps: tuple[Obligation, ...]
    unchecked: tuple[str, ...]
    complete: bool

    @property
    def path(self) -> Path:
        """The Markdown file."""
        return DIRECTORY / self.file


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


_loads = _nonneg("loads", integer=True)
_stores = _nonneg("stores", integer=True)
_keys = _pos("keys", integer=True)
_io = _nonneg("io")


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


def _compulsory() -> Derivation:
    file = "compulsory.md"
    dense_fwd, dense_bwd = get("dense-forward-compulsory"), get("dense-backward-compulsory")
    sparse_fwd, sparse_bwd = get("sparse-forward-compulsory"), get("sparse-backward-compulsory")
    total = _loads + _stores
    steps = (
        _step(
            file,
            "dense-forward-sum",
            sp.Ge(total, dense_fwd.explicit, evaluate=False),
            (_loads >= 3 * n * d, _stores >= n * d),
            (dense_fwd.name,),
            "3nd input loads and nd output stores give the dense forward record",
        ),
        _step(
            file,
            "dense-backward-sum",
            sp.Ge(total, dense_bwd.explicit, evaluate=False),
            (_loads >= 5 * n * d + n, _stores >= 3 * n * d),
            (dense_bwd.name,),
            "5nd + n input loads and 3nd output stores give the dense backward record",
        ),
        _step(
            file,
            "keys-touched",
            sp.Ge(_keys, sp.ceiling(Z / n), evaluate=False),
            (n * _keys >= Z,),
            (sparse_fwd.name,),
            "Z allowed pairs in the columns of k used keys, at most n per column, force "
            "k >= ceil(Z/n)",
        ),
        _step(
            file,
            "sparse-forward-sum",
            sp.Ge(total, sparse_fwd.explicit, evaluate=False),
            (_loads >= n * d + 2 * d * _keys, _stores >= n * d, n * _keys >= Z, n <= Z, n**2 >= Z),
            (sparse_fwd.name,),
            "Q rows, the K and V rows of the used keys, and the O rows give the sparse "
            "forward record",
        ),
        _step(
            file,
            "sparse-backward-sum",
            sp.Ge(total, sparse_bwd.explicit, evaluate=False),
            (
                _loads >= 3 * n * d + n + 2 * d * _keys,
                _stores >= n * d + 2 * d * _keys,
                n * _keys >= Z,
                n <= Z,
                n**2 >= Z,
            ),
            (sparse_bwd.name,),
            "Q, O, dO, L rows, K and V rows of used keys, and dQ, dK, dV stores give the "
            "sparse backward record",
        ),
    )
    unchecked = (
        "every input vertex has a successor, and only R1 puts a red pebble on an input, so "
        "each input is loaded at least once (game rules, docs/game.md)",
        "every output vertex is a non-input sink that must end blue, and only R2 puts a blue "
        "pebble on a non-input, so each output is stored at least once",
        "each used key column holds at most n allowed pairs, so Z <= n k",
    )
    return Derivation(
        file,
        (dense_fwd.name, dense_bwd.name, sparse_fwd.name, sparse_bwd.name),
        steps,
        unchecked,
        complete=True,
    )


def _large() -> Derivation:
    file = "lower-large.md"
    fwd, bwd = get("dense-forward-lower-large-explicit"), get("dense-backward-lower-large-explicit")
    size = _pos("S")
    rows, cols = _nonneg("a"), _nonneg("b")
    products = _nonneg("x")
    parts, part_size = _pos("P", integer=True), _pos("X")
    bound = n**2 * d**2 / (M + 4 * d**2) - M
    steps = [
        _step(
            file,
            "am-gm",
            sp.Le(rows * cols, size**2 / (4 * d**2), evaluate=False),
            (d * rows + d * cols <= size,),
            (),
            "|I*| d + |J*| d <= S implies |I*| |J*| <= S^2 / (4 d^2)",
        ),
        _step(
            file,
            "per-part",
            sp.Le(products, size**2 / (4 * d) + 2 * d * size, evaluate=False),
            (d * rows + d * cols <= size, products <= d * rows * cols + 2 * size * d),
            (),
            "products in a part <= d |I*| |J*| + 2 S d <= S^2 / (4d) + 2 d S",
        ),
        _step(
            file,
            "s-is-2m",
            sp.Eq((2 * M) ** 2 / (4 * d) + 2 * d * (2 * M), M * (M + 4 * d**2) / d, evaluate=False),
            (),
            (),
            "with S = 2M the per-part bound is M (M + 4 d^2) / d",
        ),
        _step(
            file,
            "partition",
            sp.Ge(_io, bound, evaluate=False),
            (
                parts * part_size >= n**2 * d,
                sp.Eq(part_size, M * (M + 4 * d**2) / d, evaluate=False),
                _io >= M * (parts - 1),
            ),
            (),
            "P X >= n^2 d and Q >= M (P - 1) give Q >= n^2 d^2 / (M + 4 d^2) - M",
        ),
    ]
    for record in (fwd, bwd):
        steps.append(
            _step(
                file,
                f"weaken-{record.pass_.value}",
                sp.Ge(bound, record.explicit, evaluate=False),
                _record_conditions(record),
                (record.name,),
                f"for M >= d^2, n^2 d^2 / (M + 4 d^2) - M >= {record.name}'s {record.explicit}",
            )
        )
    unchecked = (
        "HK81 partition lemma: Q >= M (P(G, 2M) - 1) (stated, HK81 Thm 3.1; SY24 Lemma 2.8)",
        "per-part counting lemma: a part of a 2M-partition with dominator set D and minimum "
        "set Min holds at most d |I*| |J*| + 2 S d products Q_il K_jl, with I*, J* the rows of "
        "Q and K wholly in D (hand proof in lower-large.md, section 2)",
        "the backward graph computes S = Q K^T from the inputs Q, K with the same product and "
        "summation-tree structure (FA2 formulation), so the lemma applies to it verbatim",
    )
    return Derivation(file, (fwd.name, bwd.name), tuple(steps), unchecked, complete=True)


def _small() -> Derivation:
    file = "lower-small.md"
    fwd, bwd = get("dense-forward-lower-small-explicit"), get("dense-backward-lower-small-explicit")
    matmul = _nonneg("q_mm")
    steps: list[Obligation] = []
    for record in (fwd, bwd):
        steps.append(
            _step(
                file,
                f"reduction-{record.pass_.value}",
                sp.Ge(_io, record.explicit, evaluate=False),
                (
                    _io + n**2 >= matmul,
                    matmul >= 2 * n * n * d / sp.sqrt(M) - 2 * M,
                    *_record_conditions(record),
                ),
                (record.name,),
                "Q + n^2 >= Q_mm(n, d, n) >= 2 n^2 d / sqrt(M) - 2M gives the record",
            )
        )
    unchecked = (
        "SY24 Thm 3.7's reduction with the constant: a pebbling of attention of cost Q gives "
        "one of Q K^T with S stored, of cost <= Q + n^2 (the constant is not in what we read)",
        "SLLG17's bound Q_mm >= 2 m n k / sqrt(M) - 2M in the red-blue pebble game with "
        "arbitrary summation trees and recomputation: SLLG17 prove it for algorithms "
        "transformed to fused multiply-adds, a different model; full form reconstructed",
    )
    return Derivation(file, (fwd.name, bwd.name), tuple(steps), unchecked, complete=False)


def _small_derived() -> Derivation:
    """The small-cache bound attnio derives itself (section "Loomis-Whitney" of the file)."""
    file = "lower-small.md"
    fwd, bwd = get("dense-forward-lower-small-derived"), get("dense-backward-lower-small-derived")
    size, rows, cols = _pos("S"), _nonneg("a"), _nonneg("b")
    inside, pairs = _nonneg("t"), _nonneg("p")
    parts = _pos("P", integer=True)
    steps = [
        _step(
            file,
            "alt-pairs",
            sp.Le(2 * size + size**2 / (4 * d**2), 5 * M, evaluate=False),
            (sp.Eq(size, 2 * M, evaluate=False), d**2 > M),
            (),
            "with S = 2M and M < d^2 the touched pairs number at most 2S + S^2/(4d^2) < 5M",
        ),
        _step(
            file,
            "alt-loomis-whitney",
            sp.Le(inside, M * sp.sqrt(5 * M), evaluate=False),
            (
                inside**2 <= rows * cols * pairs,
                rows + cols <= size,
                pairs <= 5 * M,
                sp.Eq(size, 2 * M, evaluate=False),
            ),
            (),
            "t^2 <= a b p, a + b <= S = 2M, p <= 5M give t <= M sqrt(5M)",
        ),
        _step(
            file,
            "alt-partition",
            sp.Ge(_io, n**2 * d / (sp.sqrt(5 * M) + 2) - M, evaluate=False),
            (
                parts * (M * sp.sqrt(5 * M) + 2 * M) >= n**2 * d,
                _io >= M * (parts - 1),
            ),
            (),
            "P X >= n^2 d with X = M sqrt(5M) + 2M and Q >= M (P - 1) give "
            "Q >= n^2 d / (sqrt(5M) + 2) - M",
        ),
    ]
    for record in (fwd, bwd):
        steps.append(
            _step(
                file,
                f"alt-record-{record.pass_.value}",
                sp.Ge(n**2 * d / (sp.sqrt(5 * M) + 2) - M, record.explicit, evaluate=False),
                _record_conditions(record),
                (record.name,),
                f"n^2 d / (sqrt(5M) + 2) - M is at least {record.name}'s {record.explicit}",
            )
        )
    unchecked = (
        "HK81 partition lemma: Q >= M (P(G, 2M) - 1) (stated, HK81 Thm 3.1; SY24 Lemma 2.8)",
        "a product p_ijl of a part that is not in the dominator set D has both inputs Q_il, "
        "K_jl in D (its only path from an input is one edge long)",
        "the touched pairs of a part number at most 2S + a b <= 2S + S^2 / (4 d^2): the (A)/(B) "
        "split of the per-part lemma of lower-large.md, section 2",
        "the Loomis-Whitney inequality |T|^2 <= |pi_il(T)| |pi_jl(T)| |pi_ij(T)| for a finite "
        "T in [n] x [n] x [d] (a published theorem)",
        "the backward graph computes S = Q K^T from the inputs Q, K with the same product and "
        "summation-tree structure (FA2 formulation), so the argument applies to it verbatim",
    )
    return Derivation(file, (fwd.name, bwd.name), tuple(steps), unchecked, complete=True)


def _record_conditions(record: object) -> tuple[sp.Basic, ...]:
    return () if record.conditions is sp.true else (record.conditions,)


def derivations() -> tuple[Derivation, ...]:
    """Every derivation: the compulsory costs, then the large-cache and small-cache bounds."""
    return (_compulsory(), _large(), _small(), _small_derived())


def derivation_obligations() -> list[Obligation]:
    """The algebraic steps of every derivation, as obligations expected to hold."""
    return [step for derivation in derivations() for step in derivation.steps]


__all__ = ["DIRECTORY", "Derivation", "derivation_obligations", "derivations"]
