"""Tests of attnio.pebble.verification: the checks run, pass, and are registered with verify."""

from __future__ import annotations

import importlib.util

import pytest
from attnio.pebble import verification
from attnio.pebble.heuristic import compile_kernels

from attnio._cli_verify import SUITES

_EXACT = importlib.util.find_spec("attnio.pebble.exact") is not None


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


@pytest.mark.parametrize("check", verification.CHECKS, ids=lambda c: c.__name__)
def test_checks_pass(check) -> None:
    """Each check passes (exact-dependent checks need the exact solver)."""
    if ("exact" in check.__name__ or "oneshot" in check.__name__) and not _EXACT:
        pytest.skip("attnio.pebble.exact is not installed on this branch")
    passed, detail = check()
    assert passed is not False, detail
    assert isinstance(detail, str) and detail
