"""Mutation score of ``attnio verify`` and ``attnio prove``: does the checker see a wrong record?

Every catalog record is perturbed in turn, one mutation at a time:

* ``explicit*2``: the explicit expression doubled (a wrong constant);
* ``explicit+n``: a term added to an exact count (a count's term changed);
* ``exponent``: d replaced by d^2 in the asymptotic expression (M by M^2, n by n^2 when
  there is no d), and likewise in an explicit lower bound;
* ``no-conditions``: the conditions dropped;
* ``derived``: the status upgraded to ``derived``.

Constant factors of asymptotic expressions are not mutated: O(f) and O(2f) are the same
claim (an equivalent mutant). Each mutant is swapped into the catalog in-process and
checked with:

1. the record constructor (a mutant it refuses is caught at once);
2. the catalog consistency checks, the algorithm checks that read records (exact counts
   against the cached machine runs, derived counts reproduced, counts above the lower
   bounds) and the pebbling checks (cached replayed pebblings and exact optima against
   the lower bounds): the checks of ``attnio verify`` whose inputs are records;
   (cheapest first, stopping at the first that catches the mutant);
3. if nothing caught it: the obligations of ``attnio prove`` whose claim, assumptions or
   expectation the mutant changes (regenerated from the mutated catalog), stopping at the
   first failure. Unchanged obligations keep their baseline outcome: z3 runs under a
   resource limit, so an unchanged query gives the same answer.

The algorithms' tight-factor and shape checks and the pebbling checks that read no record
are not run per mutant (they read only dense-*-tight, whose mutants the consistency checks
and obligations see). Run from the repository root::

    python benchmarks/mutants.py            # every mutant, Markdown table on stdout
    python benchmarks/mutants.py --only flash-forward-count
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import sys
import time
from collections.abc import Iterator

import sympy as sp

from attnio.algorithms import verification as algorithms_checks
from attnio.bounds import Kind, Status, consistency
from attnio.bounds.errors import RecordError
from attnio.bounds.symbols import M, d, n
from attnio.pebble import verification as pebble_checks
from attnio.proofs import prove
from attnio.proofs.generate import obligations

catalog_module = importlib.import_module("attnio.bounds.catalog")

CHECKS = (
    consistency.check_cells_covered,
    consistency.check_crossovers,
    consistency.check_min_branches,
    consistency.check_sparse_reduces_to_dense,
    consistency.check_asymptotic_growth,
    algorithms_checks.check_counts_equal_closed_forms,
    algorithms_checks.check_derived_counts_reproduced,
    pebble_checks.check_compulsory_matches_catalog,
    pebble_checks.check_heuristic_above_lower_bounds,
    pebble_checks.check_nonvacuous_lower_bounds,
    pebble_checks.check_exact_against_bounds,
    algorithms_checks.check_counts_above_lower_bounds,
    consistency.check_explicit_lower_below_upper,
)
"""The checks of ``attnio verify`` that read catalog records, cheapest first; a mutant is
checked until the first one catches it."""


def _exponent(expr: sp.Expr) -> sp.Expr | None:
    for sym in (d, M, n):
        if sym in expr.free_symbols:
            return expr.subs(sym, sym**2)
    return None


def mutants(record) -> Iterator[tuple[str, dict]]:
    """(label, changed fields) of every mutation of ``record``."""
    count = record.kind is Kind.UPPER and record.explicit is not None
    if record.explicit is not None:
        yield "explicit*2", {"explicit": 2 * record.explicit}
        if count:
            yield "explicit+n", {"explicit": record.explicit + n}
        elif record.kind is Kind.LOWER and _exponent(record.explicit) is not None:
            yield "explicit-exponent", {"explicit": _exponent(record.explicit)}
    if record.asymptotic is not None and _exponent(record.asymptotic) is not None:
        yield "exponent", {"asymptotic": _exponent(record.asymptotic)}
    if record.conditions is not sp.true:
        yield "no-conditions", {"conditions": sp.true}
    if record.status is not Status.DERIVED:
        yield "derived", {"status": Status.DERIVED}


def _swap(original: tuple, name: str, replaced) -> None:
    catalog_module._CATALOG = tuple(replaced if b.name == name else b for b in original)


def _key(obligation) -> tuple:
    return (
        str(obligation.claim),
        tuple(map(str, obligation.assumptions)),
        obligation.expected,
        str(obligation.constant),
    )


def run(only: str | None = None) -> list[dict]:
    """Check every mutant; return one row per mutant with what caught it."""
    original = catalog_module._CATALOG
    baseline = {o.name: _key(o) for o in obligations()}
    for check in CHECKS:  # warm the caches (machine runs, pebblings, exact optima)
        passed, detail = check()
        if passed is False:
            raise SystemExit(f"baseline check {check.__name__} fails: {detail}")
    rows = []
    try:
        for record in original:
            if only is not None and record.name != only:
                continue
            for label, fields in mutants(record):
                start = time.perf_counter()
                caught = []
                try:
                    mutant = dataclasses.replace(record, **fields)
                except RecordError as error:
                    caught.append(f"record: {str(error)[:60]}")
                    mutant = None
                if mutant is not None:
                    _swap(original, record.name, mutant)
                    for check in CHECKS:
                        try:
                            passed, _ = check()
                        except Exception as error:  # a crash is a failed check in verify
                            passed = False
                            caught.append(f"verify: {check.__name__} raised {error!r}"[:80])
                            break
                        if passed is False:
                            caught.append("verify: " + check.__name__.removeprefix("check_"))
                            break
                    if not caught:
                        caught += _prove(baseline)
                    catalog_module._CATALOG = original
                rows.append(
                    {
                        "record": record.name,
                        "mutation": label,
                        "caught": caught,
                        "seconds": round(time.perf_counter() - start, 1),
                    }
                )
                print(
                    f"{record.name} {label}: {'; '.join(caught) or 'SURVIVED'}",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        catalog_module._CATALOG = original
    return rows


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


def _prove(baseline: dict) -> list[str]:
    """The first failing obligation the mutant changed, as a one-item list (empty if none)."""
    changed = [o for o in obligations() if baseline.get(o.name) != _key(o)]
    # Cheap families first: derivation steps and evidence fail fast; constant searches last.
    changed.sort(key=lambda o: _FAMILY_ORDER.index(o.family) if o.family in _FAMILY_ORDER else 99)
    for obligation in changed:
        outcome = prove(obligation)
        if outcome.failed:
            return [f"prove: {obligation.name}"]
    return []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="mutate only this record")
    args = parser.parse_args()
    start = time.perf_counter()
    rows = run(args.only)
    caught = sum(bool(r["caught"]) for r in rows)
    print("| record | mutation | caught by |\n|---|---|---|")
    for r in rows:
        shown = "; ".join(r["caught"][:3]) or "**SURVIVED**"
        print(f"| {r['record']} | {r['mutation']} | {shown} |")
    print(
        f"\n{caught}/{len(rows)} mutants caught ({100 * caught / max(1, len(rows)):.1f}%), "
        f"{time.perf_counter() - start:.0f} s"
    )
    survivors = [f"{r['record']} {r['mutation']}" for r in rows if not r["caught"]]
    if survivors:
        print("survivors: " + ", ".join(survivors))
    return 0 if not survivors else 1


if __name__ == "__main__":
    sys.exit(main())
