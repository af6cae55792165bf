"""Tests of the algorithms' ``attnio verify`` checks."""

from __future__ import annotations

import pytest

from attnio.algorithms.verification import CHECKS


@pytest.mark.slow
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_check_passes(check):
    """Every algorithms check passes and says what it compared."""
    passed, detail = check()
    assert passed is True, detail
    assert detail
