"""The bound catalog: every upper and lower bound on attention's I/O, typed once.

``attnio.bounds`` owns the symbols, the :class:`Bound` record, the catalog (the data
file ``catalog.toml`` and its reader, docs/catalog.md), its crossovers, its renderings
and its self-consistency checks. It imports nothing else of attnio: the other packages
read it, never the reverse.
"""

from .catalog import catalog, get
from .checks import Check, CheckResult
from .crossover import crossover
from .errors import BoundError, BoundParameterError, FilterError, RecordError, UnknownBoundError
from .errors import ParameterError as ParameterError  # the former name
from .reader import read_catalog
from .record import Bound, Cache, Kind, Pass, Regime, Status
from .render import TABLE_FORMATS, render

__all__ = [
    "TABLE_FORMATS",
    "Bound",
    "BoundError",
    "BoundParameterError",
    "Cache",
    "Check",
    "CheckResult",
    "FilterError",
    "Kind",
    "Pass",
    "RecordError",
    "Regime",
    "Status",
    "UnknownBoundError",
    "catalog",
    "crossover",
    "get",
    "read_catalog",
    "render",
]
