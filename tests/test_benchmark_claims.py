"""Tests of benchmarks/claims.py and its claim files: they parse and carry a truth label.

The benchmark itself (every claim through ``attnio check``) is not run here: it takes
minutes; ``python benchmarks/claims.py`` does."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from attnio.claims import read_claims

ROOT = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location(
    "benchmark_claims", ROOT / "benchmarks" / "claims.py"
)
benchmark = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(benchmark)

FILES = sorted((ROOT / "benchmarks" / "claims").glob("*.toml"))


def test_the_benchmark_has_sixty_claims_of_every_kind() -> None:
    """At least 60 claims, true and false, across every regime, pass and cache size."""
    claims = [c for path in FILES for c in read_claims(path)]
    assert len(claims) >= 60
    seen = {(c.bound.regime.value, c.bound.pass_.value) for c in claims}
    assert {r for r, _ in seen} == {"dense", "sparse", "approximate"}
    assert {p for _, p in seen} == {"forward", "backward"}
    assert {c.bound.cache.value for c in claims} >= {"small", "large", "any"}
    truths = {}
    for path in FILES:
        truths.update(benchmark.truths(path))
    assert set(truths.values()) == {True, False} and len(truths) == len(claims)


@pytest.mark.parametrize("path", FILES[:2], ids=lambda p: p.name)
def test_a_claim_file_parses_and_labels_every_claim(path) -> None:
    """Each claim of a file is read by attnio's claim reader, and its notes start with
    'true:' or 'false:' and a reason."""
    claims = read_claims(path)
    for claim in claims:
        label, _, why = claim.bound.notes.partition(":")
        assert label in ("true", "false") and why.strip(), claim.name


def test_a_claim_without_a_truth_label_is_refused(tmp_path) -> None:
    """benchmark.truths refuses a claim whose notes state no truth, naming it."""
    path = tmp_path / "bad.toml"
    path.write_text('[[bound]]\nname = "x"\nkind = "lower"\nregime = "dense"\npass = "forward"\n'
                    'expression = "n*d"\nnotes = "maybe"\n')  # fmt: skip
    with pytest.raises(ValueError, match="'x'"):
        benchmark.truths(path)
