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
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

import sympy as sp

from .errors import ObligationError


class Expectation(enum.StrEnum):
    """What the obligation is expected to end as; see the module docstring."""

    HOLDS = "holds"
    OPEN = "open"
    FAILS = "fails"


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

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> ob = Obligation("demo/square", "derivation", x**2 >= 0, (), "holds", (), "x^2 >= 0")
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

    def at(self, value: int) -> Obligation:
        """Return this obligation with its constant replaced by ``value``."""
        if self.constant is None:
            raise ObligationError(f"obligation {self.name!r} has no constant to set")
        return Obligation(
            self.name,
            self.family,
            self.claim.subs(self.constant, value),
            self.assumptions,
            self.expected,
            self.sources,
            self.statement,
        )


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
    "derivation",
    "planted",
)
"""Obligation families in report order; derivation steps and planted claims last."""

__all__ = ["FAMILIES", "Expectation", "Obligation"]
