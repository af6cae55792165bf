"""The result of pebbling a DAG, shared by the heuristic and the exact solver.

:class:`Pebbling` fields (design contract):

- ``io``, ``loads``, ``stores``: the cost of the pebbling found (``io = loads + stores``);
- ``optimal``: ``True`` only when the search proved ``io`` minimal, never otherwise;
- ``lower``, ``upper``: proven bounds on Q(G, M) (``lower`` may be a trivial bound,
  ``upper == io`` for any complete pebbling);
- ``variant`` (``"standard"`` or ``"oneshot"``), ``M``, ``vertices``;
- ``states_explored``: states the search expanded (0 for a plain heuristic);
- ``seconds``: wall time;
- ``moves``: the move sequence, or ``None`` if it was not requested;
- ``method``: a short name of what produced it (``"belady"``, ``"lru"``, ``"search"``,
  ``"exact"``...);
- ``stored_states``, ``queue_entries``, ``peak_bytes``: the exact search's memory (0
  elsewhere): states and queue entries its last search used, and the most bytes its state
  rows, hash slots and queue held at once (``bytes_per_state`` is their ratio).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .errors import PebbleParameterError
from .moves import Move

__all__ = ["Pebbling"]


@dataclass(frozen=True)
class Pebbling:
    """A pebbling's cost and (optionally) its moves; see the module docstring for the fields.

    Examples
    --------
    >>> p = Pebbling(io=3, loads=2, stores=1, optimal=False, lower=2, upper=3,
    ...              variant="standard", M=2, vertices=3, states_explored=0, seconds=0.0)
    >>> p.to_dict()["io"]
    3
    """

    io: int
    loads: int
    stores: int
    optimal: bool
    lower: int
    upper: int
    variant: str
    M: int
    vertices: int
    states_explored: int
    seconds: float
    moves: list[Move] | None = field(default=None, compare=False, repr=False)
    method: str = ""
    stored_states: int = 0
    queue_entries: int = 0
    peak_bytes: int = 0

    def __post_init__(self) -> None:
        if self.io != self.loads + self.stores:
            raise PebbleParameterError(
                f"io={self.io} must equal loads + stores = {self.loads + self.stores}"
            )
        if not self.lower <= self.upper:
            raise PebbleParameterError(f"lower={self.lower} exceeds upper={self.upper}")
        if self.optimal and not self.lower == self.io == self.upper:
            raise PebbleParameterError(
                f"optimal=True needs lower == io == upper, got "
                f"{self.lower}, {self.io}, {self.upper}"
            )

    @property
    def bytes_per_state(self) -> float:
        """``peak_bytes / stored_states`` (0.0 when nothing was stored)."""
        return self.peak_bytes / self.stored_states if self.stored_states else 0.0

    def _repr_html_(self) -> str:
        """A small table for notebooks."""
        from .picture import pebbling_html

        return pebbling_html(self)

    def to_dict(self) -> dict[str, object]:
        """Return the JSON-ready fields (``moves`` reduced to their count)."""
        out = asdict(self)
        out["moves"] = None if self.moves is None else len(self.moves)
        return out
