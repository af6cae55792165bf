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


NEWER_FILES = ("shape-compulsory", "approximate-compulsory", "causal-lower")
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
