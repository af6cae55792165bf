"""Tests of attnio.pebble.verification: the checks can fail, and are registered with verify
(that each passes on the shipped code: tests/test_cli_verify.py, the thorough verify)."""

from __future__ import annotations

import pytest

from attnio._cli_verify import SUITES
from attnio.pebble import verification
from attnio.pebble.heuristic import compile_kernels


@pytest.fixture(scope="module", autouse=True)
def _compiled() -> None:
    """Compile the kernels once for the module."""
    compile_kernels()


def test_registered() -> None:
    """The pebble suite is one of the suites attnio verify runs."""
    assert "attnio.pebble.verification" in SUITES


def test_titles() -> None:
    """Every check has a one-line title."""
    for check in verification.CHECKS:
        assert check.__doc__ and check.__doc__.strip().splitlines()[0]


def test_lower_bound_check_can_fail(monkeypatch) -> None:
    """A lower bound above the pebblings makes the check fail (it is not vacuous)."""
    monkeypatch.setattr(verification, "_applicable_lower", lambda *a, **k: iter([("fake", 10**9)]))
    passed, detail = verification.check_heuristic_above_lower_bounds()
    assert passed is False and "fake" in detail


def test_lower_bound_check_skips_without_bounds(monkeypatch) -> None:
    """With no applicable bound the check reports skipped, not passed."""
    monkeypatch.setattr(verification, "_applicable_lower", lambda *a, **k: iter([]))
    passed, _ = verification.check_heuristic_above_lower_bounds()
    assert passed is None


def test_exact_check_can_fail(monkeypatch) -> None:
    """A lower bound above the proven optima makes the exact check fail."""
    monkeypatch.setattr(verification, "_applicable_lower", lambda *a, **k: iter([("fake", 10**9)]))
    monkeypatch.setattr(verification, "_EXACT_INSTANCES", (("attention-forward", 1, 1),))
    passed, detail = verification.check_exact_against_bounds()
    assert passed is False and "fake" in detail


def test_part_lemma_check_can_fail(monkeypatch) -> None:
    """A lemma that z3 refutes makes the part-lemma check fail (it is not vacuous)."""
    from attnio.pebble import lemmas

    real = lemmas.check
    monkeypatch.setattr(lemmas, "check", lambda s, lemma, **k: real(s, lemma, mutant=True, **k))
    passed, detail = verification.check_part_lemmas()
    assert passed is False and "score-tree" in detail
