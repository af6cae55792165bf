"""The variants of the red-blue pebble game, as an enum and a registry.

``standard`` is the game of HK81: a vertex may be computed any number of times.
``oneshot`` is PW20's one-shot game: each vertex is computed at most once.
:class:`Variant` is a :class:`~enum.StrEnum`, so the plain strings keep working
at the API boundary (``variant="oneshot"``); inside attnio the code tests the
registry's properties (:attr:`GameVariant.recomputation`), not strings.

References
----------
HK81 (the game); PW20 (the one-shot variant).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .errors import PebbleParameterError

__all__ = ["GAME_VARIANTS", "VARIANTS", "GameVariant", "Variant", "as_variant"]


class Variant(enum.StrEnum):
    """A game variant's name: ``standard`` (HK81) or ``oneshot`` (PW20)."""

    STANDARD = "standard"
    ONESHOT = "oneshot"


@dataclass(frozen=True)
class GameVariant:
    """One variant of the game: whether a vertex may be computed again, and its source."""

    variant: Variant
    recomputation: bool
    source: str
    description: str


GAME_VARIANTS: dict[Variant, GameVariant] = {
    Variant.STANDARD: GameVariant(
        Variant.STANDARD, True, "HK81", "recomputation allowed (the red-blue pebble game)"
    ),
    Variant.ONESHOT: GameVariant(
        Variant.ONESHOT, False, "PW20", "each vertex computed at most once"
    ),
}
"""Every game variant, by name."""

VARIANTS: tuple[str, ...] = tuple(variant.value for variant in Variant)
"""The variant names, as accepted on the command line."""


def as_variant(variant: str) -> Variant:
    """Return ``variant`` as a :class:`Variant`, or raise :class:`PebbleParameterError` naming the valid ones.

    Examples
    --------
    >>> as_variant("oneshot") is Variant.ONESHOT
    True
    """
    try:
        return Variant(variant)
    except ValueError:
        raise PebbleParameterError(f"variant={variant!r} must be one of {VARIANTS}") from None
