"""Tests of the algorithms' ``attnio verify`` checks."""

from __future__ import annotations

import pytest

from attnio.algorithms.verification import CHECKS
from attnio.bounds.consistency import check_explicit_lower_below_upper


@pytest.mark.slow
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_check_passes(check):
    """Every algorithms check passes and says what it compared."""
    passed, detail = check()
    assert passed is True, detail
    assert detail


def test_catalog_lower_bounds_stay_below_the_counts():
    """The catalog's explicit-lower-below-upper check passes now that exact counts exist."""
    passed, detail = check_explicit_lower_below_upper()
    assert passed is True, detail
