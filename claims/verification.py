"""The claims suite of ``attnio verify``: the catalog checked by the pipeline of ``attnio check``.

Checking the shipped catalog is ``attnio check`` on its records
(:func:`attnio.claims.check_catalog`, each record never its own evidence) plus the
engine's self-checks of the other suites. Each check takes no argument and returns
``(passed, detail)``. Registered in ``attnio._cli_verify.SUITES``.

Two tiers (:func:`configure`), as for the proofs suite:

- default: every record with the conditions check and the closed-form counts (every
  algorithm's derived exact count on the grid up to n = 2^20, adversarial masks and
  accuracy points; a refutation is re-evaluated exactly and, when small, re-run on the
  machine), a few seconds;
- thorough (:data:`TIERS`): also the z3 comparisons with every other record, the proofs
  from derived lemmas, the orders of growth, the exact and heuristic pebblings and the
  machine runs at sampled sizes: everything ``attnio check --catalog`` runs, about ten
  minutes on one core.
"""

from __future__ import annotations

from collections import Counter

from attnio.bounds.checks import Check, Tier

from .catalog_check import check_catalog, failures
from .verdict import VERDICTS

TIERS: dict[bool, dict[str, object]] = {
    False: {"skip": ("z3", "pebbling"), "machine_runs": False},
    True: {"skip": (), "machine_runs": True},
}
"""Arguments of :func:`~attnio.claims.check_catalog` in the default (False) and thorough
(True) tier."""

TIER = Tier(
    "left out of claims.catalog_records: the z3 comparisons, proofs and orders, the "
    "pebblings and the machine runs of the claims pipeline on every catalog record "
    "(about ten minutes on one core); run them: attnio verify --thorough, or "
    "attnio check --catalog"
)
"""The suite's tier: which of :data:`TIERS` the next run uses."""
configure = TIER.configure
left_out = TIER.left_out


def check_catalog_records() -> tuple[bool | None, str]:
    """Every catalog record, checked as a claim by attnio check's pipeline, is not refuted."""
    tier = TIERS[TIER.thorough]
    reports = check_catalog(skip=tier["skip"], machine_runs=tier["machine_runs"])
    if not reports:
        return None, "the catalog has no record"
    bad = failures(reports)
    if bad:
        return False, " | ".join(bad)
    counts = Counter(report.verdict for report in reports)
    shown = ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])
    checks = "all checks" if not tier["skip"] else "closed-form counts"
    return True, f"{len(reports)} records ({checks}, none its own evidence): {shown}"


CHECKS: tuple[Check, ...] = (check_catalog_records,)
"""The checks ``attnio verify`` runs for :mod:`attnio.claims`, in order."""

__all__ = ["CHECKS", "TIER", "TIERS", "check_catalog_records", "configure", "left_out"]
