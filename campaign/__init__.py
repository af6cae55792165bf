"""Campaigns: many pebbling and simulation runs, a result store, Dask execution.

``attnio.campaign`` owns campaign specs (:func:`read_spec`), the SQLite result store
(:class:`Store`, :func:`load`, :func:`export`), their execution on Dask or in this
process (:func:`run_campaign`) and the report (:func:`build_report`). It reads the
core packages; none of them imports it.
"""

from .errors import CampaignError, SpecError, StoreError
from .execution import Outcome, execute, run_campaign
from .report import Comparison, Report, build_report
from .spec import SOLVERS, Spec, Unit, read_spec
from .store import Store, export, load

__all__ = [
    "SOLVERS",
    "CampaignError",
    "Comparison",
    "Outcome",
    "Report",
    "Spec",
    "SpecError",
    "Store",
    "StoreError",
    "Unit",
    "build_report",
    "execute",
    "export",
    "load",
    "read_spec",
    "run_campaign",
]
