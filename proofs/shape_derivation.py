"""The algebraic steps of proofs/derivations/shape-compulsory.md, each a z3 obligation.

Kept apart from :mod:`attnio.proofs.derivation` (the square derivations) so the shape
records (n_q x n_kv, grouped-query heads) add a file and a module without touching the
square ones; :func:`shape_derivations` is read wherever the square ones are.
"""

from __future__ import annotations

import sympy as sp

from attnio.bounds import get
from attnio.bounds.symbols import d, h_kv, h_q, n, n_kv, n_q

from .derivation import Derivation
from .obligation import Expectation, Obligation

FILE = "shape-compulsory.md"
"""The derivation's Markdown file under ``proofs/derivations``."""

_loads = sp.Symbol("loads", nonnegative=True, integer=True)
_stores = sp.Symbol("stores", nonnegative=True, integer=True)


def _step(label: str, claim: sp.Basic, hypotheses: tuple, sources: tuple, words: str) -> Obligation:
    return Obligation(
        f"derivation/{FILE.removesuffix('.md')}/{label}",
        "derivation",
        claim,
        hypotheses,
        Expectation.HOLDS,
        (FILE, *sources),
        words,
    )


def shape_derivations() -> tuple[Derivation, ...]:
    """The shape compulsory derivation (records, z3 steps, hand-proved lemmas)."""
    fwd, bwd = get("shape-forward-compulsory"), get("shape-backward-compulsory")
    square_fwd, square_bwd = get("dense-forward-compulsory"), get("dense-backward-compulsory")
    rows, keys = h_q * n_q, h_kv * n_kv
    total = _loads + _stores
    square = {n_q: n, n_kv: n, h_q: 1, h_kv: 1}
    steps = (
        _step(
            "forward-sum",
            sp.Ge(total, fwd.explicit, evaluate=False),
            (_loads >= rows * d + 2 * keys * d, _stores >= rows * d),
            (fwd.name,),
            "Q loads, one load of each shared K and V row, and O stores give the shape forward "
            "record",
        ),
        _step(
            "backward-sum",
            sp.Ge(total, bwd.explicit, evaluate=False),
            (_loads >= 3 * rows * d + rows + 2 * keys * d, _stores >= rows * d + 2 * keys * d),
            (bwd.name,),
            "Q, O, dO, L loads, one load of each shared K and V row, dQ stores and one store of "
            "each group's dK and dV rows give the shape backward record",
        ),
        _step(
            "square-forward",
            sp.Eq(fwd.explicit.subs(square), square_fwd.explicit, evaluate=False),
            (),
            (fwd.name, square_fwd.name),
            "at n_q = n_kv = n and one head the shape forward record is the square one",
        ),
        _step(
            "square-backward",
            sp.Eq(bwd.explicit.subs(square), square_bwd.explicit, evaluate=False),
            (),
            (bwd.name, square_bwd.name),
            "at n_q = n_kv = n and one head the shape backward record is the square one",
        ),
    )
    unchecked = (
        "every input vertex of the shape graphs has a successor (a K or V vertex feeds the "
        "products of every query head of its group), and only R1 puts a red pebble on an "
        "input, so each input vertex is loaded at least once, shared or not",
        "every output vertex (O; dQ, and dK, dV per key/value head) is a non-input sink that "
        "must end blue, and only R2 puts a blue pebble on a non-input, so each is stored once",
    )
    return (Derivation(FILE, (fwd.name, bwd.name), steps, unchecked, complete=True),)


def shape_derivation_obligations() -> list[Obligation]:
    """The algebraic steps of :func:`shape_derivations`, as obligations expected to hold."""
    return [step for derivation in shape_derivations() for step in derivation.steps]


__all__ = ["FILE", "shape_derivation_obligations", "shape_derivations"]
