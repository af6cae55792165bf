"""The bound catalog: every upper and lower bound on attention's I/O, typed once.

``attnio.bounds`` owns the symbols, the :class:`Bound` record, the catalog, its
crossovers, its renderings and its self-consistency checks. It imports nothing
else of attnio: the other packages read it, never the reverse.
"""

from .catalog import catalog, get
from .crossover import crossover
from .errors import BoundError, FilterError, ParameterError, RecordError, UnknownBoundError
from .record import Bound, Cache, Kind, Pass, Regime, Status
from .render import FORMATS, render

__all__ = [
    "FORMATS",
    "Bound",
    "BoundError",
    "Cache",
    "FilterError",
    "Kind",
    "ParameterError",
    "Pass",
    "RecordError",
    "Regime",
    "Status",
    "UnknownBoundError",
    "catalog",
    "crossover",
    "get",
    "render",
]
