"""Mutation score of ``attnio verify`` and ``attnio prove``: does the checker see a wrong record?

Every record of the catalog's data file (``bounds/catalog.toml``) is perturbed in turn, one
mutation at a time, by rewriting its ``[[bound]]`` table in the file's text:

* ``explicit*2``: the explicit expression doubled (a wrong constant);
* ``explicit+n``: a term added to an exact count (a count's term changed);
* ``exponent``: d replaced by d^2 in the asymptotic expression (M by M^2, n by n^2 when
  there is no d), and likewise in an explicit lower bound (``explicit-exponent``);
* ``no-conditions``: the conditions dropped;
* ``derived``: the status upgraded to ``derived``;

and three classes an audit planted that the checks above missed (issue 21), caught by the
provenance checks (``attnio.bounds.provenance``):

* (a) an evidence level raised without what it requires: ``no-theorem`` (a stated
  record's theorem, lemma or algorithm number deleted from its source) and ``stated``
  (a stated-secondary or reconstructed record whose source names no theorem, or says it
  was read in an abstract or is a candidate, raised to ``stated``);
* (b) a citation of the wrong year: ``citation-year`` (the year of the first paper's short
  name moved by one, ``SY24`` -> ``SY25``, the way that names no other work: ``AS23`` ->
  ``AS22``, since ``AS24`` is a paper of the same authors);
* (c) conditions widened beyond the quoted theorem: ``drop-condition-K`` (the K-th
  relation of a stated, stated-secondary or reconstructed record's ``and``-conditions
  dropped, when the cache does not imply it), caught where another record quotes the same
  theorem (a tight whole and its halves) or where the record gives its source's range
  (``source_range``, checked by ``conditions_within_source_range``).

Mutants of these classes not generated, because the catalog's text cannot show them wrong
without the paper itself: a stated-secondary record whose source names a theorem raised
to ``stated`` (only reading the theorem can tell), a short name replaced by another
existing one of the right year.

Mutants that are not generated, because they state a claim exactly as true as the record's
(equivalent mutants, which no check can or should catch):

* constant factors of asymptotic expressions: O(f) and O(2f) are the same claim;
* the conditions of ``block-sparse-flash-forward-upper`` dropped (:data:`EQUIVALENT`):
  O(dn + d^2 n^2 s / M) for block-sparse FlashAttention holds wherever the algorithm
  runs, not only for d <= M <= nd, s <= 1 (the range of DFE22 Prop 4). Above M = nd its dn term
  covers the compulsory cost, below M = 5d + 4 the algorithm does not run, and s <= 1
  holds of every block mask. The obligation
  ``order/block-sparse-flash-forward-upper/block-sparse-flash-forward-count`` proves it
  under the count's conditions alone (the mutant survived it, with every other check).
  The dense ``flash-forward-upper`` has no dn term, so its dropped conditions are a
  false claim and that mutant is generated (and caught).

Each mutated file text is read back by the catalog's own reader (``attnio.bounds.reader``),
swapped into the catalog in-process (the file on disk is never written) and checked with:

1. the reader and validator of the file (a mutant it refuses is caught at once);
2. the catalog consistency checks, the algorithm checks that read records (exact counts
   against the cached machine runs, derived counts reproduced, counts above the lower
   bounds), the pebbling checks (cached replayed pebblings and exact optima against
   the lower bounds) and the catalog through the claims pipeline (default tier): the
   checks of ``attnio verify`` whose inputs are records (cheapest first, stopping at the
   first that catches the mutant);
3. if nothing caught it: the obligations of ``attnio prove`` whose claim, assumptions,
   expectation or constant the mutant changes (regenerated from the mutated catalog),
   cheap families first, stopping at the first failure. Unchanged obligations keep their
   baseline outcome: z3 runs under a resource limit, so an unchanged query gives the same
   answer. A catalog the obligation generator refuses (it raises) is caught: ``attnio
   verify`` counts a crashing check as a failed one.

Where the time goes, and what makes a full run fast without weakening a check:

* the machine runs, replayed pebblings and exact optima are computed once, before the
  first mutant (``attnio verify``'s own per-process caches);
* ``Bound.applies`` and ``Bound.evaluate`` are memoised on the record's *value* and the
  point (:func:`memoise_records`): a mutant differs from the catalog in one record, so
  only that record is re-evaluated on the grids (these two methods were about 80% of a
  mutant's verify checks);
* only the changed obligations go to z3 (step 3), and an obligation whose key another
  mutant already decided is not proved twice;
* ``--jobs 2`` checks mutants in two processes forked after the caches are warm.

The algorithms' tight-factor and shape checks and the pebbling checks that read no record
are not run per mutant (they read only dense-*-tight, whose mutants the consistency checks
and obligations see). Run from the repository root::

    python benchmarks/mutants.py                 # every mutant, Markdown table on stdout
    python benchmarks/mutants.py --only 'flash-*' --jobs 2
    python benchmarks/mutants.py --mutation no-theorem --mutation stated \\
        --mutation citation-year --mutation 'drop-condition-*'   # classes (a), (b), (c)
"""

from __future__ import annotations

import argparse
import fnmatch
import functools
import importlib
import json
import multiprocessing
import re
import sys
import time
import tomllib
from collections.abc import Iterator
from importlib import resources

import sympy as sp

from attnio.algorithms import verification as algorithms_checks
from attnio.bounds import Bound, Kind, Status, consistency, provenance
from attnio.bounds.catalog import LARGE_CACHE, SMALL_CACHE
from attnio.bounds.citations import KEYS
from attnio.bounds.errors import RecordError
from attnio.bounds.reader import parse_catalog
from attnio.bounds.symbols import M, d, n
from attnio.claims import verification as claims_checks
from attnio.pebble import verification as pebble_checks
from attnio.proofs import prove
from attnio.proofs.generate import evidence, obligations

catalog_module = importlib.import_module("attnio.bounds.catalog")

CHECKS = (
    provenance.check_stated_records_cite_a_theorem,
    provenance.check_references_resolve,
    provenance.check_quoted_theorems_agree,
    provenance.check_conditions_within_source_range,
    consistency.check_cells_covered,
    consistency.check_expressions_defined,
    consistency.check_conditions_within_cache,
    consistency.check_crossovers,
    consistency.check_min_branches,
    consistency.check_sparse_reduces_to_dense,
    consistency.check_asymptotic_growth,
    consistency.check_upper_records_as_tight_as_counts,
    algorithms_checks.check_counts_equal_closed_forms,
    algorithms_checks.check_derived_counts_reproduced,
    pebble_checks.check_compulsory_matches_catalog,
    pebble_checks.check_heuristic_above_lower_bounds,
    pebble_checks.check_nonvacuous_lower_bounds,
    pebble_checks.check_exact_against_bounds,
    algorithms_checks.check_counts_above_lower_bounds,
    consistency.check_explicit_lower_below_upper,
    claims_checks.check_catalog_records,
)
"""The checks of ``attnio verify`` that read catalog records, cheapest first; a mutant is
checked until the first one catches it. ``claims.catalog_records`` runs in verify's
default tier (every record through the claims pipeline's closed-form counts, none its own
evidence)."""

_FAMILY_ORDER = (
    "evidence",
    "derivation",
    "refutation",
    "crossover",
    "reduction",
    "monotonicity",
    "lower-le-upper",
    "order",
    "planted",
    "comparison",
    "tightness",
)
"""Obligation families, cheapest first: evidence and derivation steps fail fast, constant
searches (tightness) are the most expensive."""


def memoise_records() -> None:
    """Memoise ``Bound.applies`` and ``Bound.evaluate`` on the record's value and the point.

    Both are pure functions of the (frozen) record and their arguments, so a cached answer
    is the answer; a mutated record is a different key and is evaluated afresh. Calls that
    raise are not cached.
    """
    for name in ("applies", "evaluate"):
        method = getattr(Bound, name)
        if hasattr(method, "memo"):
            continue
        memo: dict = {}

        @functools.wraps(method)
        def cached(self, _method=method, _memo=memo, **params):
            try:
                key = (self, frozenset(params.items()))
                return _memo[key]
            except TypeError:  # an unhashable argument: no caching
                return _method(self, **params)
            except KeyError:
                value = _memo[key] = _method(self, **params)
                return value

        cached.memo = memo
        setattr(Bound, name, cached)


EQUIVALENT = {
    ("block-sparse-flash-forward-upper", "no-conditions"): (
        "the unconditioned O(dn + d^2 n^2 s / M) still holds wherever the algorithm runs"
    ),
    **{
        ("block-sparse-flash-forward-upper", f"drop-condition-{k}"): (
            "one condition dropped: weaker than dropping all, which is equivalent"
        )
        for k in (1, 2, 3)
    },
    **{
        (name, "drop-condition-2"): (
            "M <= nd dropped: the standard algorithm's count is O(dn + n^2) at every M >= d^2"
        )
        for name in ("standard-forward-upper", "standard-backward-upper")
    },
}
"""(record, mutation) pairs not generated: the mutant states a true claim (see above)."""


CACHE_RELATION = {"small": SMALL_CACHE, "large": LARGE_CACHE}
"""The relation each cache size adds to a record's scope (a condition it implies)."""


def _exponent(expr: sp.Expr) -> sp.Expr | None:
    for sym in (d, M, n):
        if sym in expr.free_symbols:
            return expr.subs(sym, sym**2)
    return None


def mutants(record) -> Iterator[tuple[str, dict]]:
    """(label, changed TOML fields) of every mutation of ``record``, equivalent ones left out.

    A field mapped to ``None`` is deleted from the record's table."""
    for label, fields in _mutations(record):
        if (record.name, label) not in EQUIVALENT:
            yield label, fields


def _mutations(record) -> Iterator[tuple[str, dict]]:
    count = record.kind is Kind.UPPER and record.explicit is not None
    if record.explicit is not None:
        yield "explicit*2", {"expression": sp.sstr(2 * record.explicit)}
        if count:
            yield "explicit+n", {"expression": sp.sstr(record.explicit + n)}
        elif record.kind is Kind.LOWER and _exponent(record.explicit) is not None:
            yield "explicit-exponent", {"expression": sp.sstr(_exponent(record.explicit))}
    if record.asymptotic is not None and _exponent(record.asymptotic) is not None:
        yield "exponent", {"asymptotic": sp.sstr(_exponent(record.asymptotic))}
    if record.conditions is not sp.true:
        yield "no-conditions", {"conditions": None}
    if record.status is not Status.DERIVED:
        yield "derived", {"status": Status.DERIVED.value}
    yield from _provenance_mutations(record)


_LOCATOR = re.compile(
    r"\s*\b(?:Thm|Lemma|Prop|Alg|Cor)\.?\s*\d+(?:\.\d+)?(?:\s*,\s*\d+(?:\.\d+)?)*"
)
_SHORT = re.compile(r"\b([A-Z]{1,8})(\d{2})\b")


def _provenance_mutations(record) -> Iterator[tuple[str, dict]]:
    """The mutants of classes (a), (b) and (c) of the module docstring."""
    source = record.source
    if record.status is Status.STATED and _LOCATOR.search(source):
        yield "no-theorem", {"source": _LOCATOR.sub("", source).strip()}
    secondary = any(w in source.lower() for w in provenance.SECONDARY_WORDS)
    if record.status in (Status.STATED_SECONDARY, Status.RECONSTRUCTED) and (
        secondary or not _LOCATOR.search(source)
    ):
        yield "stated", {"status": Status.STATED.value}
    short = next((m for m in _SHORT.finditer(source) if m.group(0) in KEYS), None)
    if short is not None:  # a year by one away that names no other work (AS23 -> AS24 would)
        years = ((int(short.group(2)) + step) % 100 for step in (1, -1))
        moved = next((f"{short.group(1)}{y:02d}" for y in years
                      if f"{short.group(1)}{y:02d}" not in KEYS), None)  # fmt: skip
        if moved is not None:
            yield (
                "citation-year",
                {"source": source[: short.start()] + moved + source[short.end() :]},
            )
    if record.status in provenance.QUOTED and isinstance(record.conditions, sp.And):
        implied = {CACHE_RELATION.get(record.cache.value)}
        for k, relation in enumerate(record.conditions.args):
            if relation in implied:
                continue
            rest = sp.And(*(r for j, r in enumerate(record.conditions.args) if j != k))
            yield f"drop-condition-{k + 1}", {"conditions": sp.sstr(rest)}


def catalog_text() -> str:
    """The text of the shipped catalog file."""
    resource = resources.files("attnio.bounds").joinpath(catalog_module.CATALOG_FILE)
    return resource.read_text(encoding="utf-8")


def mutate_text(text: str, name: str, fields: dict) -> str:
    """``text`` (a catalog file) with record ``name``'s table rewritten with ``fields``.

    Only that table changes: the file is split at its ``[[bound]]`` headers, and the one
    table is written back from its parsed fields (TOML basic strings, one key a line).
    """
    head, *blocks = text.split("\n[[bound]]\n")
    for index, block in enumerate(blocks):
        table = tomllib.loads("[[bound]]\n" + block)["bound"][0]
        if table["name"] != name:
            continue
        for key, value in fields.items():
            if value is None:
                table.pop(key, None)
            else:
                table[key] = value
        lines = [f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in table.items()]
        blocks[index] = "\n".join(lines) + "\n"
        return "\n[[bound]]\n".join([head, *blocks])
    raise KeyError(f"no [[bound]] named {name!r} in the catalog file")


def _key(obligation) -> tuple:
    return (
        str(obligation.claim),
        tuple(map(str, obligation.assumptions)),
        obligation.expected,
        str(obligation.constant),
    )


_STATE: dict = {}
"""Per process: the original catalog, the baseline obligation keys, decided obligations."""


def _prepare() -> None:
    """Warm every cache and record the baseline, once per process (before forking)."""
    memoise_records()
    _STATE["original"] = catalog_module._CATALOG
    _STATE["text"] = catalog_text()
    unchanged = parse_catalog(_STATE["text"])
    if unchanged != _STATE["original"]:
        raise SystemExit("the catalog file does not read back as the loaded catalog")
    _STATE["baseline"] = {o.name: _key(o) for o in obligations()}
    _STATE["decided"] = {}
    for check in CHECKS:  # warm the caches (machine runs, pebblings, exact optima)
        passed, detail = check()
        if passed is False:
            raise SystemExit(f"baseline check {check.__name__} fails: {detail}")


def _verify() -> tuple[list[str], dict[str, float]]:
    """The first record-reading check of ``attnio verify`` that fails, and each one's time."""
    seconds = {}
    for check in CHECKS:
        start = time.perf_counter()
        name = check.__name__.removeprefix("check_")
        try:
            passed, _ = check()
        except Exception as error:  # a crash is a failed check in verify
            return [f"verify: {name} raised {type(error).__name__}"], seconds
        finally:
            seconds[name] = time.perf_counter() - start
        if passed is False:
            return [f"verify: {name}"], seconds
    return [], seconds


def _prove() -> tuple[list[str], int]:
    """The first failing obligation the mutant changed (empty if none), and how many changed."""
    try:
        generated = obligations()
    except Exception as error:  # attnio prove refuses the catalog; verify's check crashes
        caught = [f"prove: obligations raised {type(error).__name__}"]
        # Say too whether the evidence family alone (generated separately) fails.
        caught += [f"prove: {o.name}" for o in evidence() if prove(o).failed][:1]
        return caught, 0
    baseline, decided = _STATE["baseline"], _STATE["decided"]
    changed = [o for o in generated if baseline.get(o.name) != _key(o)]
    changed.sort(key=lambda o: _FAMILY_ORDER.index(o.family) if o.family in _FAMILY_ORDER else 99)
    for obligation in changed:
        key = (obligation.name, _key(obligation))
        if key not in decided:
            try:
                decided[key] = "" if prove(obligation).failed else None
            except Exception as error:  # a crash is a failure of attnio prove
                decided[key] = f" raised {type(error).__name__}"
        if decided[key] is not None:
            return [f"prove: {obligation.name}{decided[key]}"], len(changed)
    return [], len(changed)


def check_mutant(task: tuple[str, str]) -> dict:
    """Check one mutant (record name, mutation label); return its row."""
    name, label = task
    original = _STATE["original"]
    record = next(b for b in original if b.name == name)
    fields = dict(mutants(record))[label]
    start = time.perf_counter()
    caught, seconds, changed = [], {}, None
    try:
        mutated = parse_catalog(mutate_text(_STATE["text"], name, fields), source="mutant")
    except RecordError as error:
        message = str(error).removeprefix("catalog file 'mutant': ")
        caught.append(f"reader: {message[:60]}")
        mutated = None
    if mutated is not None:
        catalog_module._CATALOG = mutated
        try:
            caught, seconds = _verify()
            verified = time.perf_counter()
            if not caught:
                caught, changed = _prove()
                seconds["prove"] = time.perf_counter() - verified
        finally:
            catalog_module._CATALOG = original
    row = {
        "record": name,
        "mutation": label,
        "caught": caught,
        "changed": changed,
        "seconds": time.perf_counter() - start,
        "checks": seconds,
    }
    print(
        f"{name} {label}: {'; '.join(caught) or 'SURVIVED'} ({row['seconds']:.1f} s)",
        file=sys.stderr,
        flush=True,
    )
    return row


def tasks(only: list[str] | None = None, labels: list[str] | None = None) -> list[tuple[str, str]]:
    """(record, mutation) of every mutant of the records matching the globs ``only`` whose
    mutation matches the globs ``labels``."""
    chosen = []
    for record in catalog_module._CATALOG:
        if only and not any(fnmatch.fnmatchcase(record.name, p) for p in only):
            continue
        chosen += [
            (record.name, label)
            for label, _ in mutants(record)
            if not labels or any(fnmatch.fnmatchcase(label, p) for p in labels)
        ]
    return chosen


def run(
    only: list[str] | None = None, jobs: int = 1, labels: list[str] | None = None
) -> list[dict]:
    """Check every mutant; return one row per mutant, in catalog order, with what caught it."""
    chosen = tasks(only, labels)
    _prepare()
    if jobs <= 1:
        return [check_mutant(task) for task in chosen]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return pool.map(check_mutant, chosen, chunksize=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", action="append", help="mutate only records matching this glob (repeatable)"
    )
    parser.add_argument(
        "--mutation", action="append", help="only mutations matching this glob (repeatable)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes checking mutants (1)")
    args = parser.parse_args()
    start = time.perf_counter()
    rows = run(args.only, args.jobs, args.mutation)
    caught = sum(bool(r["caught"]) for r in rows)
    print("| record | mutation | caught by (first check) |\n|---|---|---|")
    for r in rows:
        shown = "; ".join(r["caught"][:3]) or "**SURVIVED**"
        print(f"| {r['record']} | {r['mutation']} | {shown} |")
    print(
        f"\n{caught}/{len(rows)} mutants caught ({100 * caught / max(1, len(rows)):.1f}%), "
        f"{time.perf_counter() - start:.0f} s"
    )
    totals: dict[str, float] = {}
    for r in rows:
        for name, seconds in r["checks"].items():
            totals[name] = totals.get(name, 0.0) + seconds
    shown = ", ".join(f"{k} {v:.0f}" for k, v in sorted(totals.items(), key=lambda kv: -kv[1]))
    print(f"seconds per check, summed over mutants: {shown}", file=sys.stderr)
    survivors = [f"{r['record']} {r['mutation']}" for r in rows if not r["caught"]]
    if survivors:
        print("survivors: " + ", ".join(survivors))
    return 0 if not survivors else 1


if __name__ == "__main__":
    sys.exit(main())
