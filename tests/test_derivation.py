"""Tests of attnio.proofs.derivation: the derivations prove the claims recorded before they
became machine-read Markdown files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BASELINE = Path(__file__).parent / "baseline" / "derivation_fingerprints.json"
"""Name, fingerprint, statement and sources of every derivation step, written at commit
2538512 (Python builders) in a fresh process by::

    python -c "import json; from attnio.proofs.derivation import derivation_obligations; \\
    from attnio.proofs.obligation import fingerprint; print(json.dumps({o.name: \\
    {'fingerprint': fingerprint(o), 'statement': o.statement, 'sources': list(o.sources)} \\
    for o in derivation_obligations()}, indent=1, sort_keys=True))"
"""

_STEPS = (
    "import json\n"
    "from attnio.proofs.derivation import derivation_obligations\n"
    "from attnio.proofs.obligation import fingerprint\n"
    "print(json.dumps({o.name: [fingerprint(o), list(o.sources)] "
    "for o in derivation_obligations()}))\n"
)


NEWER_FILES = (
    "shape-compulsory",
    "shape-lower",
    "approximate-compulsory",
    "polynomial-lower",
    "causal-lower",
    "mask-lower",
    "sparse-inputs",
)
"""Derivation files written after the baseline: their steps are new, not in it."""


def test_the_derivations_prove_the_recorded_claims() -> None:
    """Every derivation step of the baseline's files has exactly the name, fingerprint (claim
    and assumptions as sympy trees, symbols with their assumptions) and sources recorded in
    the baseline, and no step is missing or added: the same claims are proved as before.
    Only the files of NEWER_FILES add steps.

    The steps are built in a fresh process, as the baseline was: sympy's cache can change
    the shape of a tree when an equal expression was built earlier in the same process
    (commit ed3055f), which would make this test depend on the tests run before it."""
    done = subprocess.run(
        [sys.executable, "-c", _STEPS], capture_output=True, text=True, timeout=300, check=True
    )
    now = json.loads(done.stdout)
    recorded = json.loads(BASELINE.read_text(encoding="utf-8"))
    newer = {name for name in now if name.split("/")[1] in NEWER_FILES}
    assert sorted(set(now) - newer) == sorted(recorded)
    assert all(name.split("/")[1] in NEWER_FILES for name in set(now) - set(recorded))
    changed = [
        name
        for name, entry in recorded.items()
        if now[name] != [entry["fingerprint"], entry["sources"]]
    ]
    assert not changed, f"{len(changed)} steps changed: {changed}"


def test_every_count_minorant_is_at_most_its_count_on_a_grid() -> None:
    """Each term of COUNT_MINORANTS names a count record and is at most that record's exact
    count, through each of its COUNT_STEPS in increasing order (each at most the next),
    at every point of a grid inside the record's conditions (exact rationals, no z3):
    the lower <= upper chains go through terms that hold, and a minorant typed too large
    fails here, not only as an unknown chain step."""
    import itertools

    import sympy as sp

    from attnio.bounds import Kind, get
    from attnio.bounds.symbols import M, d, h_kv, h_q, n, n_kv, n_q, s, w
    from attnio.proofs.derivation import COUNT_MINORANTS, COUNT_STEPS, count_chain

    grid = {
        n: (1, 7, 64, 300), d: (1, 3, 8), M: (16, 50, 131, 1024, 4099), w: (1, 5, 64),
        n_q: (1, 9), n_kv: (5, 200), h_q: (4, 8), h_kv: (1, 4), s: (sp.Rational(1, 4), 1),
    }  # fmt: skip
    for name, term in COUNT_MINORANTS.items():
        record = get(name)
        assert record.kind is Kind.UPPER and record.explicit is not None, name
        symbols = sorted(record.explicit.free_symbols | term.free_symbols, key=str)
        tried = 0
        for values in itertools.product(*(grid[x] for x in symbols)):
            point = dict(zip(symbols, values, strict=True))
            if point.get(w, 1) > point.get(n, 1) or record.conditions.subs(point) is not sp.true:
                continue
            tried += 1
            terms = [t.subs(point) for t in (*count_chain(name), record.explicit)]
            assert terms[0] == term.subs(point), (name, point)
            assert all(a <= b for a, b in itertools.pairwise(terms)), (name, point, terms)
        assert tried >= 10, (name, tried)
    assert set(COUNT_STEPS) <= set(COUNT_MINORANTS)
