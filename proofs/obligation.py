"""The obligation record: one claim to prove, under assumptions, with what we expect.

An obligation is data, like a bound: a sympy relation (the claim), the
assumptions under which it must hold, the catalog records it was generated
from, and an expectation that fixes what counts as failure.

Expectation policy
------------------
``holds``
    Every record the claim rests on has evidence ``stated``,
    ``stated-secondary`` or ``derived``, or the claim is a step of a written
    derivation. Anything but *Proved* is a failure of ``attnio prove``.
``open``
    The claim rests on a ``reconstructed`` record, or is a property attnio does
    not assert (monotonicity of an exact count with ceilings, ordering of two
    algorithms' exact counts). A confirmed counterexample is a *finding*,
    reported but not a failure; *Unknown* is reported as unknown.
``fails``
    A planted false claim. Anything but a confirmed counterexample is a
    failure (a proof of it would mean the checker is unsound).
``refutes``
    The claim is attnio's refutation of a published statement (for every
    constant, a point of the published range where a proved lower bound
    exceeds the constant times the published upper bound). Proved, it is a
    *finding*, reported but not a failure; anything else is a failure, since
    attnio reports the finding and must reproduce it.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import re
from dataclasses import dataclass

import sympy as sp

from .errors import ObligationError


class Expectation(enum.StrEnum):
    """What the obligation is expected to end as; see the module docstring."""

    HOLDS = "holds"
    OPEN = "open"
    FAILS = "fails"
    REFUTES = "refutes"


_NAME = re.compile(r"^[a-z0-9][A-Za-z0-9./*=<>_-]*$")


@dataclass(frozen=True)
class Obligation:
    """A claim to check with z3.

    Parameters
    ----------
    name : str
        Unique key, ``family/what``, lowercase.
    family : str
        One of :data:`FAMILIES`.
    claim : sympy.Boolean
        A relation (or Boolean combination) over catalog symbols.
    assumptions : tuple of sympy.Boolean
        Conditions under which the claim must hold (conjunction).
    expected : Expectation
        ``holds``, ``open`` or ``fails``.
    sources : tuple of str
        Names of the catalog records (or derivation files) the claim comes from.
    statement : str
        One sentence in words.
    constant : sympy.Symbol or None
        A symbol of ``claim`` to be replaced by the smallest positive integer
        that makes the claim provable (tightness constants), or ``None``.
    via : sympy.Expr, tuple of sympy.Expr, or None
        For a claim ``lhs <= rhs``: an intermediate term X, or a chain of them X_1, ...,
        X_k. When z3 does not decide the claim directly it may prove it by transitivity,
        ``lhs <= X_1``, ``X_1 <= X_2``, ..., ``X_k <= rhs``, each under the same
        assumptions (:func:`attnio.proofs.check.check`); a counterexample is only ever
        one to the claim itself. ``None`` when there is none.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> claim = sp.Ge(x**2, 0, evaluate=False)  # unevaluated: z3, not sympy, decides it
    >>> ob = Obligation("demo/square", "derivation", claim, (), "holds", (), "x^2 >= 0")
    >>> ob.name
    'demo/square'
    """

    name: str
    family: str
    claim: sp.Basic
    assumptions: tuple[sp.Basic, ...]
    expected: Expectation
    sources: tuple[str, ...]
    statement: str
    constant: sp.Symbol | None = None
    via: sp.Expr | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ObligationError(
                f"obligation name={self.name!r} must start with a lowercase letter or digit "
                "and use only letters, digits and ./-_*=<>"
            )
        if self.family not in FAMILIES:
            raise ObligationError(
                f"obligation {self.name!r}: family={self.family!r} is not one of: "
                f"{', '.join(FAMILIES)}"
            )
        object.__setattr__(self, "expected", _expectation(self.name, self.expected))
        claim = sp.sympify(self.claim)
        if not isinstance(claim, sp.logic.boolalg.Boolean):
            raise ObligationError(
                f"obligation {self.name!r}: claim={claim} is not a relation or Boolean formula"
            )
        if claim is sp.true and self.family != "evidence":
            # sympy decided the relation while it was built, by rules that are not all
            # sound (attnio.proofs.sign), and a True claim is "proved" without z3: build
            # relations with evaluate=False. (A False claim is a satisfiability query:
            # it is proved exactly when the assumptions have no point.)
            raise ObligationError(
                f"obligation {self.name!r}: claim={claim} was decided by sympy before z3 saw "
                "it; build the relation with evaluate=False"
            )
        object.__setattr__(self, "claim", claim)
        assumptions = tuple(sp.sympify(a) for a in self.assumptions)
        for item in assumptions:
            if not isinstance(item, sp.logic.boolalg.Boolean):
                raise ObligationError(
                    f"obligation {self.name!r}: assumption {item} is not a relation or Boolean"
                )
        object.__setattr__(self, "assumptions", assumptions)
        if self.constant is not None and self.constant not in claim.free_symbols:
            raise ObligationError(
                f"obligation {self.name!r}: constant={self.constant} does not occur in the claim"
            )
        if isinstance(self.via, list | tuple):
            if not self.via:
                raise ObligationError(f"obligation {self.name!r}: via=() names no term")
            object.__setattr__(self, "via", tuple(self.via))
        if self.via is not None and not isinstance(claim, sp.Le):
            raise ObligationError(
                f"obligation {self.name!r}: via={self.via} needs a claim lhs <= rhs, not {claim}"
            )

    def __reduce__(self) -> tuple:
        # Pickling (the worker processes of attnio.proofs.suite) would rebuild every
        # relation with sympy's evaluation, which decides some wrongly (attnio.proofs.sign):
        # the formulas travel as trees of (constructor, arguments) and are rebuilt
        # exactly as they were, with evaluation off.
        formulas = tuple(_tree(f) for f in (self.claim, *self.assumptions))
        if isinstance(self.via, tuple):
            via = (_CHAIN, tuple(_tree(term) for term in self.via))
        else:
            via = None if self.via is None else _tree(self.via)
        return (
            _unpickle,
            (self.name, self.family, formulas, self.expected.value, self.sources,
             self.statement, self.constant, via),
        )  # fmt: skip

    def at(self, value: int) -> Obligation:
        """Return this obligation with its constant replaced by ``value``."""
        if self.constant is None:
            raise ObligationError(f"obligation {self.name!r} has no constant to set")
        return Obligation(
            self.name,
            self.family,
            substitute(self.claim, {self.constant: value}),
            self.assumptions,
            self.expected,
            self.sources,
            self.statement,
            via=None
            if self.via is None
            else tuple(substitute(term, {self.constant: value}) for term in self.via)
            if isinstance(self.via, tuple)
            else substitute(self.via, {self.constant: value}),
        )


def chain(obligation: Obligation) -> tuple[sp.Expr, ...]:
    """The intermediate terms of ``obligation``'s ``via``, in order (empty without one).

    Examples
    --------
    >>> x = sp.Symbol("x", positive=True)
    >>> chain(Obligation("demo/c", "derivation", sp.Le(x, 4 * x, evaluate=False), (),
    ...                  "holds", (), "", via=(2 * x, 3 * x)))
    (2*x, 3*x)
    """
    if obligation.via is None:
        return ()
    return obligation.via if isinstance(obligation.via, tuple) else (obligation.via,)


_CHAIN = "chain"
"""Marks a pickled ``via`` that is a chain of terms, not one term's tree."""


def _tree(formula: sp.Basic) -> object:
    """``formula`` as nested ``(constructor, arguments)`` pairs, atoms as themselves."""
    if not formula.args or formula.is_Atom:
        return formula
    return (formula.func, tuple(_tree(arg) for arg in formula.args))


def _grow(tree: object) -> sp.Basic:
    """The formula of :func:`_tree`, rebuilt node by node (call with evaluation off)."""
    if not isinstance(tree, tuple):
        return tree
    func, args = tree
    return func(*(_grow(arg) for arg in args))


def _unpickle(
    name: str,
    family: str,
    formulas: tuple,
    expected: str,
    sources: tuple[str, ...],
    statement: str,
    constant: sp.Symbol | None,
    via: object = None,
) -> Obligation:
    with sp.evaluate(False):
        claim, *assumptions = (_grow(tree) for tree in formulas)
        if isinstance(via, tuple) and via[0] == _CHAIN:
            between = tuple(_grow(term) for term in via[1])
        else:
            between = None if via is None else _grow(via)
    return Obligation(name, family, claim, tuple(assumptions), expected, sources, statement,
                      constant, between)  # fmt: skip


def substitute(formula: sp.Basic, mapping: dict) -> sp.Basic:
    """``formula.subs(mapping)`` that leaves every relation for z3 to decide.

    sympy re-evaluates a relation when its sides change, and its sign rules are
    not all sound (:mod:`attnio.proofs.sign`): ``(1 <= C/(M*n)).subs(C, 1)``
    becomes ``True``. Here each relation is rebuilt unevaluated from its
    substituted sides, and Boolean connectives from their substituted parts.

    Examples
    --------
    >>> from attnio.bounds.symbols import M, n
    >>> C = sp.Symbol("C", positive=True)
    >>> substitute(sp.Le(1, C / (M * n), evaluate=False), {C: 1})
    1 <= 1/(M*n)
    """
    if isinstance(formula, sp.core.relational.Relational):
        lhs, rhs = formula.lhs.subs(mapping), formula.rhs.subs(mapping)
        return type(formula)(lhs, rhs, evaluate=False)
    if isinstance(formula, sp.logic.boolalg.BooleanFunction):
        return type(formula)(*(substitute(arg, mapping) for arg in formula.args))
    return formula.subs(mapping)


def _expectation(name: str, value: object) -> Expectation:
    try:
        return Expectation(value)
    except ValueError:
        raise ObligationError(
            f"obligation {name!r}: expected={value!r} is not one of: "
            f"{', '.join(e.value for e in Expectation)}"
        ) from None


FAMILIES = (
    "lower-le-upper",
    "tightness",
    "crossover",
    "reduction",
    "comparison",
    "monotonicity",
    "order",
    "refutation",
    "evidence",
    "derivation",
    "planted",
)
"""Obligation families: catalog relations first, then the O(...) claims of asymptotic upper
records against exact counts, refutations of published statements, the evidence behind each
derived record, derivation steps and planted claims last."""


def fingerprint(obligation: Obligation) -> str:
    """A digest of ``obligation``'s claim, assumptions and constant symbol (sympy trees):
    the key of its recorded constant search (:mod:`attnio.proofs.constants`) and deciding
    stage (:mod:`attnio.proofs.stages`).

    Examples
    --------
    >>> from attnio.proofs.generate import tightness_table
    >>> len(fingerprint(tightness_table()[0]))
    64
    """
    return _fingerprint(obligation.claim, tuple(obligation.assumptions), obligation.constant)


@functools.lru_cache(maxsize=4096)
def _fingerprint(claim: sp.Basic, assumptions: tuple, constant: sp.Symbol | None) -> str:
    """:func:`fingerprint`, memoized: one proof looks its claim up in both recordings
    several times (its constant, then each stage), and ``srepr`` of a count record is long.
    Keyed by the sympy trees themselves, which compare as ``srepr`` prints them (symbols
    with their assumptions)."""
    digest = hashlib.sha256()
    for part in (sp.srepr(claim), *map(sp.srepr, assumptions), str(constant)):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


__all__ = ["FAMILIES", "Expectation", "Obligation", "chain", "fingerprint", "substitute"]
