"""The result of pebbling a DAG, shared by the heuristic and the exact solver.

:class:`Pebbling` fields (design contract):

- ``io``, ``loads``, ``stores``: the cost of the pebbling found (``io = loads + stores``);
- ``optimal``: ``True`` only when the search proved ``io`` minimal, never otherwise;
- ``lower``, ``upper``: proven bounds on IO(G, M) (``lower`` may be a trivial bound,
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

In a notebook a pebbling shows as a small HTML table (:func:`pebbling_html`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from html import escape

from .errors import PebbleParameterError
from .moves import Move

__all__ = ["Pebbling", "pebbling_html"]


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
        return pebbling_html(self)

    def to_dict(self) -> dict[str, object]:
        """Return the JSON-ready fields (``moves`` reduced to their count)."""
        out = asdict(self)
        out["moves"] = None if self.moves is None else len(self.moves)
        return out


def pebbling_html(pebbling: Pebbling) -> str:
    """Return a small HTML table of a pebbling's cost, bounds and provenance.

    Examples
    --------
    >>> from attnio.pebble import Dag, solve_heuristic
    >>> "<table" in pebbling_html(solve_heuristic(Dag.from_edges(3, [(0, 2), (1, 2)]), 3))
    True
    """
    p = pebbling
    status = (
        "proven optimal" if p.optimal else f"not proven optimal: {p.lower} &le; Q &le; {p.upper}"
    )
    rows = [
        ("I/O", f"{p.io} ({p.loads} loads + {p.stores} stores)"),
        ("status", status),
        ("M, variant", f"{p.M}, {escape(p.variant)}"),
        ("method", escape(p.method or "?")),
        ("vertices", str(p.vertices)),
        ("moves", "not kept" if p.moves is None else str(len(p.moves))),
        ("states explored, seconds", f"{p.states_explored}, {p.seconds:.3f}"),
    ]
    cells = "".join(
        f'<tr><th style="text-align:left">{k}</th><td style="text-align:left">{v}</td></tr>'
        for k, v in rows
    )
    return f"<table>{cells}</table>"
