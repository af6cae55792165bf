"""A user's claim: a :class:`~attnio.bounds.Bound` record plus what ``check`` needs to read it.

What a claim asserts about the I/O cost Q (words moved between a fast memory of M
words and slow memory), for every instance inside its *scope* (its conditions and,
for ``cache = small`` or ``large``, ``M < d**2`` or ``M >= d**2``):

``lower`` with explicit expression E
    every algorithm (every pebbling of the computation) moves at least E words:
    the optimum Q*(n, d, M) >= E. Its *lower side* is E.
``upper`` with explicit expression E
    the named ``algorithm`` moves at most E words (without an algorithm: some
    algorithm does, so Q* <= E). Its *upper side* is E.
``tight`` with explicit expression E and constant C (default 1)
    E / C <= Q* <= C * E. Its lower side is E / C, its upper side C * E.

Only explicit expressions are checked at points. An ``asymptotic`` form (O, Omega,
Theta) hides its constants and lower-order terms, so no finite point can refute it; a
claim with only an asymptotic form is compared with the catalog by its order in a
direction of growth (:mod:`attnio.claims.orders`).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from attnio.bounds import Bound, Cache, Kind
from attnio.bounds.catalog import LARGE_CACHE, SMALL_CACHE
from attnio.bounds.symbols import ALL

from .errors import ClaimError


def _least_memory() -> int:
    from attnio.pebble import builders

    return min(builders.build(kind, 1, 1).min_memory for kind in builders.KINDS)


LEAST_MEMORY: int = _least_memory()
"""The least fast memory in which an attention computation can run at all: every builder
DAG has vertices of in-degree 2, and computing one needs 3 red pebbles (docs/game.md, no
sliding). Below it no pebbling exists, so Q is infinite: a lower bound holds there
vacuously and an upper bound fails."""

DOMAIN: dict[str, sp.Basic] = {
    "M": ALL["M"] >= LEAST_MEMORY,
    "s": ALL["s"] <= 1,
    "s_c": ALL["s_c"] <= 1,
    "Z": sp.And(ALL["n"] <= ALL["Z"], ALL["Z"] <= ALL["n"] ** 2),
    "Z_QK": ALL["Z_QK"] <= ALL["n"] ** 2,
    "Z_in": ALL["Z_in"] <= ALL["n"] * ALL["d"],
}
"""Relations every real instance satisfies, added to each check for the symbols it uses:
a memory of at least :data:`LEAST_MEMORY` words, densities at most 1, between n and n^2
allowed pairs (every row of a mask allows a key, docs/notation.md), at most nd input
nonzeros. No check evaluates a claim outside them."""

CACHE_CONDITION = {Cache.SMALL: SMALL_CACHE, Cache.LARGE: LARGE_CACHE, Cache.ANY: sp.true}
"""The relation a claim's ``cache`` adds to its conditions."""


@dataclass(frozen=True)
class Claim:
    """A bound to check, with the constant of a tight claim.

    Parameters
    ----------
    bound : Bound
        The record: kind, regime, pass, cache, explicit expression, conditions.
    constant : sympy.Rational
        For ``tight`` claims, C in E / C <= IO <= C * E (at least 1); 1 otherwise.
    """

    bound: Bound
    constant: sp.Rational | int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.bound, Bound):
            raise ClaimError(
                f"a claim must be an attnio.bounds.Bound, got {type(self.bound).__name__}"
            )
        constant = sp.Rational(self.constant)
        if constant < 1:
            raise ClaimError(f"claim {self.name!r}: constant={constant} must be at least 1")
        if constant != 1 and self.bound.kind is not Kind.TIGHT:
            raise ClaimError(
                f"claim {self.name!r}: constant={constant} applies only to kind 'tight', "
                f"not {self.bound.kind.value!r}"
            )
        object.__setattr__(self, "constant", constant)
        if self.bound.algorithm is not None:
            _check_algorithm(self.name, self.bound)

    @property
    def name(self) -> str:
        """The claim's name (the record's)."""
        return self.bound.name

    @property
    def kind(self) -> Kind:
        """lower, upper or tight."""
        return self.bound.kind

    @property
    def scope(self) -> sp.Basic:
        """Where the claim applies: its conditions and its cache relation."""
        return sp.And(self.bound.conditions, CACHE_CONDITION[self.bound.cache])

    @property
    def lower_side(self) -> sp.Expr | None:
        """The value Q must be at least (lower: E, tight: E / C), or None."""
        if self.bound.explicit is None or self.kind is Kind.UPPER:
            return None
        return self.bound.explicit / self.constant

    @property
    def upper_side(self) -> sp.Expr | None:
        """The value Q must be at most (upper: E, tight: C * E), or None."""
        if self.bound.explicit is None or self.kind is Kind.LOWER:
            return None
        return self.bound.explicit * self.constant

    def domain(self, *exprs: sp.Basic) -> tuple[sp.Basic, ...]:
        """The :data:`DOMAIN` relations of the symbols used by the claim and ``exprs``."""
        used = {str(sym) for sym in self.scope.free_symbols} | set(self.bound.parameters)
        for expr in exprs:
            used |= {str(sym) for sym in expr.free_symbols}
        return tuple(DOMAIN[name] for name in sorted(used) if name in DOMAIN)

    def holds_at(self, point: dict[str, object], *, domain: bool = True) -> bool:
        """Whether ``point`` lies inside the scope and (unless ``domain`` is False) the
        :data:`DOMAIN` relations (sympy, exact)."""
        subs = {ALL[name]: _exact(value) for name, value in point.items() if name in ALL}
        relations = (self.scope, *self.domain()) if domain else (self.scope,)
        return all(relation.subs(subs) is sp.true for relation in relations)


def _check_algorithm(name: str, bound: Bound) -> None:
    """Refuse an ``algorithm`` attnio does not have, or one of another regime or pass."""
    from attnio.algorithms import ALGORITHMS

    where = f"claim {name!r}: field 'algorithm'"
    algorithm = ALGORITHMS.get(bound.algorithm)
    if algorithm is None:
        raise ClaimError(f"{where} = {bound.algorithm!r} is not one of: {', '.join(ALGORITHMS)}")
    regime, pass_ = bound.regime.value, bound.pass_.value
    same = [k for k, a in ALGORITHMS.items() if a.regime.value == regime and pass_ in a.runners]
    if algorithm.regime.value != regime or pass_ not in algorithm.runners:
        raise ClaimError(
            f"{where} = {bound.algorithm!r} has no {regime} {pass_} pass (it is "
            f"{algorithm.regime.value}, passes {', '.join(algorithm.runners)}); the {regime} "
            f"{pass_} algorithms are: {', '.join(same) or 'none'}"
        )


def _exact(value: object) -> sp.Basic:
    """``value`` as an exact sympy number: ints and sympy numbers as they are, floats and
    text through :func:`sympy.nsimplify` (slow: it searches for a closed form)."""
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, int):
        return sp.Integer(value)
    return sp.nsimplify(value)


def as_claim(item: object) -> Claim:
    """Return ``item`` as a :class:`Claim` (a :class:`Bound` gets constant 1)."""
    if isinstance(item, Claim):
        return item
    if isinstance(item, Bound):
        return Claim(item)
    raise ClaimError(
        f"cannot check {type(item).__name__} {item!r}: pass attnio.bounds.Bound records "
        "or attnio.claims.Claim"
    )


__all__ = ["CACHE_CONDITION", "DOMAIN", "LEAST_MEMORY", "Claim", "as_claim"]
