"""``check(claims)``: every check attnio knows, run on each claim, with a verdict per claim.

The order is z3 against the catalog (:mod:`.obligations`), pebbling of small DAGs
(:mod:`.pebbling`), then counts: the derived closed forms at large sizes and adversarial
masks (:mod:`.closed_forms`) and the two-level machine's (:mod:`.counting`); skipping
``counting`` skips both. Each
produces :class:`~attnio.claims.verdict.Evidence`; :func:`~attnio.claims.verdict.verdict_of`
turns the evidence into the claim's verdict. A claim neither proved nor refuted also gets its
window (:func:`~attnio.claims.window.claim_window`): the best derived lower bound and the best
count around it at sampled points of its scope.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from attnio.bounds import Bound
from attnio.pebble import save_dag, write_moves

from .claim import Claim, as_claim
from .closed_forms import closed_form_evidence
from .counting import counting_evidence
from .errors import ClaimError
from .obligations import BUDGET_MS, catalog_evidence, conditions_evidence
from .orders import order_evidence
from .pebbling import MAX_STATES, pebbling_evidence
from .proof import proof_evidence
from .records import evidence_records, excluding
from .verdict import CONSISTENT, CONSISTENT_WITH_CATALOG, ClaimReport, Evidence, verdict_of
from .window import claim_window

CHECKS = ("z3", "pebbling", "counting")
"""The checks :func:`check` runs unless told to skip some."""


def check(
    bounds: Iterable[Bound | Claim],
    *,
    skip: Iterable[str] = (),
    evidence_dir: str | Path | None = None,
    budget_ms: int = BUDGET_MS,
    max_states: int = MAX_STATES,
    on_report: Callable[[ClaimReport], None] | None = None,
    exclude_self: bool = False,
    machine_runs: bool = True,
    windows: bool = True,
) -> list[ClaimReport]:
    """Check each claim against everything attnio knows; return one report per claim.

    Parameters
    ----------
    bounds : iterable of Bound or Claim
        The claims, e.g. from :func:`attnio.claims.read_claims` or built in Python
        with :class:`attnio.bounds.Bound` (status ``claimed``).
    skip : iterable of str
        Checks of :data:`CHECKS` not to run.
    evidence_dir : path, optional
        Write each pebbling refutation here: the DAG (``.dag.json``) and its moves
        (``.moves.jsonl``), which :func:`attnio.pebble.replay` accepts.
    budget_ms : int
        Budget of one z3 call, turned into z3's deterministic resource limit
        (:mod:`attnio.proofs.budget`).
    max_states : int
        State limit of one exact pebbling search.
    on_report : callable, optional
        Called with each claim's report as soon as it is done (progress, partial output).
    exclude_self : bool
        Leave each claim's own name out of the catalog records used as its evidence
        (z3 comparisons, lemmas of proofs, orders, closed-form counts;
        :mod:`attnio.claims.records`): how attnio checks its own catalog
        (:func:`attnio.claims.check_catalog`), where a record must not be its own evidence.
    machine_runs : bool
        False leaves out the machine runs at sampled sizes of the ``counting`` check and
        keeps its closed-form counts (which re-run the machine only to confirm a
        refutation).
    windows : bool
        Give each claim neither proved nor refuted its window
        (:func:`attnio.claims.window.claim_window`, about a second per claim).

    Raises
    ------
    ClaimError
        A claim that is not a Bound or Claim, or whose conditions admit no point.

    Examples
    --------
    >>> from attnio.bounds import Bound
    >>> from attnio.bounds.symbols import n, d
    >>> mine = Bound(name="mine", kind="lower", regime="dense", pass_="forward",
    ...              cache="any", asymptotic=None, explicit=5 * n * d, conditions=None,
    ...              source="draft", status="claimed")
    >>> check([mine], skip=("pebbling", "counting"))[0].verdict
    'refuted'
    """
    claims = [as_claim(item) for item in bounds]
    skip = set(skip)
    unknown = skip - set(CHECKS)
    if unknown:
        raise ClaimError(f"skip={sorted(unknown)} is not a subset of: {', '.join(CHECKS)}")
    names = [c.name for c in claims]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ClaimError(f"two claims share the name(s) {duplicates}")
    conditions = {c.name: conditions_evidence(c, budget_ms) for c in claims}  # bad input first
    reports = []
    for claim in claims:
        start = time.perf_counter()
        evidence: list[Evidence] = [conditions[claim.name]]
        with excluding([claim.name] if exclude_self else []):
            if "z3" not in skip:
                evidence.extend(catalog_evidence(claim, budget_ms))
                evidence.extend(proof_evidence(claim, budget_ms))
                evidence.extend(order_evidence(claim, budget_ms))
            if "pebbling" not in skip:
                evidence.extend(pebbling_evidence(claim, max_states=max_states))
            if "counting" not in skip:
                evidence.extend(closed_form_evidence(claim))
                if machine_runs:
                    evidence.extend(counting_evidence(claim))
        if evidence_dir is not None:
            evidence = _write_certificates(claim, evidence, Path(evidence_dir))
        verdict, summary = verdict_of(evidence)
        around: tuple = ()
        if windows and verdict in (CONSISTENT_WITH_CATALOG, CONSISTENT):  # neither way
            with excluding([claim.name] if exclude_self else []):
                records = evidence_records(regime=claim.bound.regime.value,
                                           pass_=claim.bound.pass_.value)  # fmt: skip
            around = tuple(claim_window(claim, records))
        report = ClaimReport(
            claim.name,
            claim.kind.value,
            verdict,
            summary,
            tuple(evidence),
            time.perf_counter() - start,
            around,
        )
        reports.append(report)
        if on_report is not None:
            on_report(report)
    return reports


def _write_certificates(claim: Claim, evidence: list[Evidence], folder: Path) -> list[Evidence]:
    from dataclasses import replace

    folder.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", claim.name).strip("-.") or "claim"
    out = []
    for index, item in enumerate(evidence):
        if item.moves is None or item.dag is None:
            out.append(item)
            continue
        stem = folder / f"{slug}-{index}"
        dag_path, moves_path = stem.with_suffix(".dag.json"), stem.with_suffix(".moves.jsonl")
        save_dag(item.dag, dag_path)
        write_moves(moves_path, list(item.moves), item.dag)
        python = (
            'python -c "from attnio.pebble import load_dag, read_moves, replay; '
            f"g = load_dag('{dag_path}'); print(replay(g, read_moves('{moves_path}', g), "
            f'{item.memory}).io)"'
        )
        out.append(replace(item, certificate=str(moves_path), replay=f"{item.replay}; {python}"))
    return out


__all__ = ["CHECKS", "check"]
