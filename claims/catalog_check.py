"""attnio's own catalog checked as claims: ``attnio check --catalog`` and ``attnio verify``.

Every record of the catalog (``bounds/catalog.toml``, read at import by the same reader
and validator as a user's claims file) goes through :func:`attnio.claims.check`, the
pipeline of ``attnio check``, with one difference: the record being checked is never its
own evidence. Its name is left out (:mod:`attnio.claims.records`) of the records z3
compares it with, of the lemmas a proof of it may use, of the orders of growth it is
compared with and of the closed-form counts, so no record is "consistent" with itself
or "proved" from itself. Every other record of the catalog stays evidence, and the
numeric checks (exact and heuristic pebblings, the machine's counts) never read a record.

What each kind of record can get:

- an explicit lower bound (``derived``, ``reconstructed``): refuted by an algorithm that
  moves fewer words, a cheaper pebbling, or a smaller exact count; otherwise ``proved``
  when other derived lower bounds imply it, or consistent;
- an exact count of an algorithm (``upper``, ``derived``, with ``algorithm``): checked as
  an upper bound on that algorithm, which is what a claim of it says: refuted by a
  machine run above it, an optimum above it or an established lower bound above it.
  That it is the algorithm's *exact* count (not only an upper bound) is checked by
  ``attnio verify``'s algorithm checks (``counts_equal_closed_forms``), not here;
- an asymptotic-only record (``stated`` O, Omega, Theta): compared by its order of
  growth along the directions of :mod:`attnio.claims.orders`, refuted by a derived
  record that outgrows it, ``proved`` with an explicit constant from derived records;
- a record with neither an expression nor an order (``open``, ``claimed-unretrieved``):
  nothing to check; its report is ``unknown`` and says so.

The catalog fails the check when any record is ``refuted``: a refutation of a record by
another record means one of the two is wrong, and the evidence names both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from attnio.bounds import Bound, catalog

from .check import check
from .obligations import BUDGET_MS
from .pebbling import MAX_STATES
from .verdict import ClaimReport, Evidence

NOTHING_TO_CHECK = (
    "nothing to check: the record has neither an expression nor an order of growth "
    "(status {status})"
)
"""Summary of a record with neither ``expression`` nor ``asymptotic``."""


def checkable(record: Bound) -> bool:
    """Whether ``record`` states something a check can test: an expression or an order."""
    return record.explicit is not None or record.asymptotic is not None


def check_catalog(
    records: Sequence[Bound] | None = None,
    *,
    skip: Iterable[str] = (),
    machine_runs: bool = True,
    evidence_dir: str | Path | None = None,
    budget_ms: int = BUDGET_MS,
    max_states: int = MAX_STATES,
    on_report: Callable[[ClaimReport], None] | None = None,
    windows: bool = False,
) -> list[ClaimReport]:
    """Check each catalog record as a claim, never with itself as evidence.

    Parameters
    ----------
    records : sequence of Bound, optional
        The records to check (default: the whole catalog, in catalog order). The
        evidence is always the loaded catalog less the record being checked.
    skip : iterable of str
        Checks of :data:`attnio.claims.CHECKS` not to run.
    machine_runs : bool
        False leaves out the machine runs at sampled sizes (``counting``) and keeps the
        closed-form counts, which cost almost nothing (``attnio verify``'s default tier).
    evidence_dir, budget_ms, max_states, on_report, windows
        As for :func:`attnio.claims.check`; ``windows`` is off by default here, so that
        ``attnio verify`` spends no time on windows it does not show (``attnio check
        --catalog`` turns it on).

    Returns
    -------
    list of ClaimReport
        One per record, in order; a record with nothing to check gets ``unknown`` with
        :data:`NOTHING_TO_CHECK` as its summary.

    Examples
    --------
    >>> from attnio.bounds import get
    >>> [report] = check_catalog([get("dense-forward-compulsory")],
    ...                          skip=("pebbling", "counting"))
    >>> report.verdict  # every other record agrees; it does not prove itself
    'consistent-with-catalog'
    """
    chosen = list(catalog() if records is None else records)
    out = []
    for record in chosen:
        if checkable(record):
            [report] = check(
                [record],
                skip=skip,
                machine_runs=machine_runs,
                evidence_dir=evidence_dir,
                budget_ms=budget_ms,
                max_states=max_states,
                exclude_self=True,
                windows=windows,
            )
        else:
            report = _nothing(record)
        out.append(report)
        if on_report is not None:
            on_report(report)
    return out


def _nothing(record: Bound) -> ClaimReport:
    summary = NOTHING_TO_CHECK.format(status=record.status.value)
    return ClaimReport(
        record.name,
        record.kind.value,
        "unknown",
        summary,
        (Evidence("expression", "not-applicable", summary),),
    )


def failures(reports: Iterable[ClaimReport]) -> list[str]:
    """One line per refuted record: its name and each refutation with its evidence."""
    lines = []
    for report in reports:
        if not report.refuted:
            continue
        shown = "; ".join(f"[{e.check}] {e.summary}" for e in report.refutations())
        lines.append(f"{report.name} refuted: {shown}")
    return lines


__all__ = ["NOTHING_TO_CHECK", "check_catalog", "checkable", "failures"]
