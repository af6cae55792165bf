"""Provenance checks of the catalog, run by ``attnio verify``: evidence levels, citations and
conditions against what the cited source states.

- :func:`check_stated_records_cite_a_theorem`: a ``stated`` record must cite a theorem,
  lemma, proposition, corollary or algorithm number of a paper of ``references.bib``, and
  its source may not say it was read in a summary or is a candidate (that is
  ``stated-secondary`` or ``reconstructed``, docs/evidence.md).
- :func:`check_references_resolve`: every work a record cites has an entry in
  ``references.bib``, whose year is the one its short name and key say (``SY24`` and
  ``saha2024io``: 2024).
- :func:`check_quoted_theorems_agree`: records quoting the same theorem of the same
  paper (a ``tight`` statement and its ``lower`` / ``upper`` halves) must agree: each half
  applies only where the whole does, and when the halves cover both cache sizes, the whole
  applies only where one of them does. A record's conditions widened beyond its theorem's
  range show up as a half wider than its whole, or a whole wider than its halves.
- :func:`check_conditions_within_source_range`: a record that gives the range its cited
  statement is made for (``source_range``, quoted from the paper) applies only inside
  it, and records quoting one statement give it one range. This catches a widening no
  other record shows (a theorem quoted by a single record).

Each check returns ``(passed, detail)`` like the others of ``attnio verify``.
"""

from __future__ import annotations

import itertools
import re

import sympy as sp

from .catalog import catalog
from .checks import Check
from .citations import ATTNIO_KEY, KEYS, Citation, citations, entries
from .errors import RecordError
from .record import QUOTING, Bound, Cache, Kind, Status

THEOREM_WORDS = ("Thm.", "Lem.", "Prop.", "Cor.", "Alg.")
"""Locators that name a statement of a paper (:func:`attnio.bounds.citations.citations`)."""

SECONDARY_WORDS = ("abstract", "summary", "summaries", "review", "candidate", "not retrieved")
"""Words of a source that say the formula was not read in the theorem's text."""

QUOTED = frozenset(QUOTING)
"""Evidence levels whose conditions quote (or reconstruct) a paper's statement."""


def _points(edges: bool = False):
    """Points of every shape the conditions distinguish: n below and above d, M on both sides
    of d^2 and of nd, full masks (Z = n^2, s = 1) and a rank r = d + 1; with ``edges``
    also M next to d and d^2 (d - 1, d + 1, d^2 + 1), where ranges like d <= M begin."""
    for n_val, d_val in itertools.product((1, 2, 4, 16, 64, 256), (1, 2, 4, 16, 64)):
        memories = {3, 4, d_val, d_val**2 - 1, d_val**2, 4 * d_val**2, n_val * d_val,
                    n_val * d_val + 1, 2 * n_val**2 * d_val}  # fmt: skip
        if edges:
            memories |= {d_val - 1, d_val + 1, d_val**2 + 1}
        for m_val in sorted(m for m in memories if m >= 3):
            yield {
                "n": n_val,
                "d": d_val,
                "M": m_val,
                "Z": n_val**2,
                "s": 1,
                "s_c": 1,
                "Z_in": n_val * d_val,
                "Z_QK": n_val**2,
                "g": 1,
                "r": d_val + 1,
                "B": 1,
                "epsilon": sp.Rational(1, 100),
            }


def _in_scope(bound: Bound, point: dict) -> bool:
    """Whether ``point`` lies inside the record's cache cell and conditions."""
    small = point["M"] < point["d"] ** 2
    if (bound.cache is Cache.SMALL and not small) or (bound.cache is Cache.LARGE and small):
        return False
    return bound.applies(**{k: point[k] for k in bound.parameters if k in point})


def _statements(citation: Citation) -> list[str]:
    """The statements a locator names, one each: ``'Thm. 4.3, 4.4'`` -> Thm. 4.3, Thm. 4.4."""
    found, word = [], None
    for part in re.split(r",\s*", citation.locator):
        match = re.match(r"([A-Za-z]+\.)\s*(\S+)", part)
        if match:
            word = match.group(1)
            found.append(f"{word} {match.group(2)}")
        elif word is not None and part.strip():
            found.append(f"{word} {part.strip()}")
    return found


def check_stated_records_cite_a_theorem() -> tuple[bool, str]:
    """Every stated record cites a theorem, lemma or algorithm number of a paper in references.bib.

    A record at level ``stated`` was read in the paper's own theorem (docs/evidence.md), so
    its source names that statement; a source that says it was read in an abstract or a
    summary, or that the formula is a candidate, is ``stated-secondary`` or
    ``reconstructed`` at most.
    """
    known, bad, checked = entries(), [], 0
    for bound in catalog():
        if bound.status is not Status.STATED:
            continue
        checked += 1
        try:
            cited = [c for c in citations(bound) if c.key != ATTNIO_KEY]
        except RecordError as error:
            bad.append(str(error))
            continue
        theorems = [c for c in cited if c.key in known and c.locator.startswith(THEOREM_WORDS)]
        words = [w for w in SECONDARY_WORDS if w in bound.source.lower()]
        if not theorems:
            bad.append(
                f"{bound.name} is stated but its source {bound.source!r} names no theorem, "
                f"lemma or algorithm number ({', '.join(THEOREM_WORDS)}) of a paper in "
                "references.bib"
            )
        elif words:
            bad.append(
                f"{bound.name} is stated but its source {bound.source!r} says {words[0]!r}: "
                "not read in the theorem's text"
            )
    if not checked:
        return False, "no stated record: the check would be vacuous"
    return (not bad), "; ".join(bad[:3]) or f"{checked} stated records cite a theorem"


def _year(entry: str) -> int | None:
    match = re.search(r"\byear\s*=\s*[{\"]?(\d{4})", entry)
    return None if match is None else int(match.group(1))


def _short_year(short: str) -> int:
    """The year of a short name's two digits (``HK81`` -> 1981, ``SY24`` -> 2024)."""
    digits = int(short[-2:])
    return 1900 + digits if digits >= 50 else 2000 + digits


def check_references_resolve() -> tuple[bool, str]:
    """Every cited work resolves to a references.bib entry of the year its short name says.

    Each record's source is read by :func:`attnio.bounds.citations.citations` (a short name
    with no BibTeX key is an error there), each key must have an entry, and the entry's
    year must be the short name's (``SY24``: 2024) and the key's (``saha2024io``).
    """
    known, bad = entries(), []
    for short, key in KEYS.items():
        entry = known.get(key)
        if entry is None:
            bad.append(f"short name {short} -> key {key!r}, which has no references.bib entry")
            continue
        year, key_year = _year(entry), re.search(r"(\d{4})", key)
        if year != _short_year(short) or (key_year and int(key_year.group(1)) != year):
            bad.append(f"{short} -> {key}: references.bib says year {year}")
    cited = 0
    for bound in catalog():
        try:
            found = citations(bound)
        except RecordError as error:
            bad.append(str(error))
            continue
        for citation in found:
            cited += 1
            if citation.key != ATTNIO_KEY and citation.key not in known:
                bad.append(f"{bound.name} cites {citation.key!r}, which has no entry")
    return (not bad), "; ".join(bad[:3]) or f"{cited} citations resolve to entries of their year"


def _groups() -> dict[tuple, list[Bound]]:
    """Quoted records by (regime, pass, paper, statement) they cite."""
    groups: dict[tuple, list[Bound]] = {}
    for bound in catalog():
        if bound.status not in QUOTED:
            continue
        try:
            cited = citations(bound)
        except RecordError:
            continue  # check_references_resolve reports it
        for citation in cited:
            if citation.key == ATTNIO_KEY:
                continue
            for statement in _statements(citation):
                key = (bound.regime, bound.pass_, citation.key, statement)
                groups.setdefault(key, []).append(bound)
    return groups


def check_quoted_theorems_agree() -> tuple[bool, str]:
    """Records quoting one theorem agree on its range: no half wider than the whole, and halves
    that cover both cache sizes cover the whole.

    A tight statement and its lower or upper halves (one paper, one theorem number, one
    regime and pass) are compared at points of every shape (n below and above d, M on both
    sides of d^2): a half applying where the whole does not, or a whole applying where no
    half does although the halves cover both cache sizes, has conditions wider than the
    theorem states.
    """
    bad, compared = [], 0
    points = list(_points())
    for (_, _, key, statement), members in _groups().items():
        wholes = [b for b in members if b.kind is Kind.TIGHT]
        halves = [b for b in members if b.kind is not Kind.TIGHT]
        if not wholes or not halves:
            continue
        caches = {h.cache for h in halves}
        covering = Cache.ANY in caches or {Cache.SMALL, Cache.LARGE} <= caches
        for whole in wholes:
            compared += 1
            for point in points:
                inside = _in_scope(whole, point)
                wider = [h.name for h in halves if _in_scope(h, point) and not inside]
                if wider:
                    bad.append(
                        f"{wider[0]} applies at n={point['n']}, d={point['d']}, M={point['M']} "
                        f"where {whole.name} ({key} {statement}) does not"
                    )
                    break
                if covering and inside and not any(_in_scope(h, point) for h in halves):
                    bad.append(
                        f"{whole.name} applies at n={point['n']}, d={point['d']}, M={point['M']} "
                        f"where none of its halves ({', '.join(h.name for h in halves)}) does"
                    )
                    break
    if not compared:
        return False, "no theorem is quoted by a tight record and its halves: vacuous"
    return (not bad), "; ".join(bad[:3]) or f"{compared} quoted theorems agree with their halves"


def _holds(relation: sp.Basic, point: dict) -> bool:
    """Whether ``relation`` (over the catalog's symbols) is true at ``point``."""
    value = relation.subs({sym: point[str(sym)] for sym in relation.free_symbols})
    return value is sp.true


def check_conditions_within_source_range() -> tuple[bool, str]:
    """Every record that gives its source's range applies only inside it, and records quoting
    one statement give it one range.

    A quoted record's conditions are part of what it quotes (docs/evidence.md): a record
    applying where its cited statement is not made (DFE22 Thm 2's FlashAttention bound
    without ``d <= M``) states more than its source. The range is data
    (``source_range``, docs/catalog.md), so the widening shows: at points of every shape
    (:func:`_points`, with M next to d and d^2), wherever a record applies (its cache size
    and conditions), its ``source_range`` must hold. A record that applies at no point
    fails (the check would be vacuous for it), and so do two records quoting the same
    theorem of the same paper with different ranges.
    """
    bad, checked, compared = [], 0, 0
    points = list(_points(edges=True))
    ranges: dict[tuple[str, str], list[Bound]] = {}
    for bound in catalog():
        if bound.source_range is None:
            continue
        checked += 1
        inside = [point for point in points if _in_scope(bound, point)]
        compared += len(inside)
        outside = next((p for p in inside if not _holds(bound.source_range, p)), None)
        if not inside:
            bad.append(f"{bound.name} applies at no point of the grid: its range is unchecked")
        elif outside is not None:
            bad.append(
                f"{bound.name} applies at n={outside['n']}, d={outside['d']}, M={outside['M']}, "
                f"outside the range of its source ({bound.source}: {bound.source_range})"
            )
        try:
            cited = [c for c in citations(bound) if c.key != ATTNIO_KEY]
        except RecordError:
            continue  # check_references_resolve reports it
        for citation in cited:
            for statement in _statements(citation):
                ranges.setdefault((citation.key, statement), []).append(bound)
    for (key, statement), members in ranges.items():
        if len({m.source_range for m in members}) > 1:
            shown = "; ".join(f"{m.name}: {m.source_range}" for m in members)
            bad.append(f"records quoting {key} {statement} give different ranges ({shown})")
    if not checked:
        return False, "no record gives its source's range (source_range): the check is vacuous"
    return (not bad), "; ".join(bad[:3]) or (
        f"{checked} records inside their source's range at {compared} points"
    )


CHECKS: tuple[Check, ...] = (
    check_stated_records_cite_a_theorem,
    check_references_resolve,
    check_quoted_theorems_agree,
    check_conditions_within_source_range,
)
"""The provenance checks, in the order ``attnio verify`` runs them."""

__all__ = [
    "CHECKS",
    "QUOTED",
    "SECONDARY_WORDS",
    "THEOREM_WORDS",
    "check_conditions_within_source_range",
    "check_quoted_theorems_agree",
    "check_references_resolve",
    "check_stated_records_cite_a_theorem",
]
