"""Tests of attnio.proofs.sampling: sampled ratios refute constants with exact points."""

from __future__ import annotations

import sympy as sp

from attnio.bounds.symbols import M, d, n
from attnio.proofs import Obligation, confirm
from attnio.proofs.sampling import largest_ratio, split_constant

C = sp.Symbol("C", positive=True)


def _ob(claim, assumptions=()):
    return Obligation("test/c", "tightness", claim, assumptions, "holds", (), "", constant=C)


def test_largest_ratio_is_exact_and_refutes_below():
    """The sampled ratio is exact, and every integer below it is refuted at the sampled point."""
    ob = _ob(n + 3 * d <= C * n * d)
    rho, point = largest_ratio(ob)
    assert rho == 4  # at n = d = 1
    assert confirm(ob.at(3), point)[0]
    assert not confirm(ob.at(4), point)[0]


def test_assumptions_restrict_the_grid():
    """Only grid points where the assumptions hold are sampled."""
    ob = _ob(n <= C * M, (n <= M, M >= 10))
    rho, point = largest_ratio(ob)
    assert point["M"] >= point["n"] and rho <= 1


def test_split_constant_needs_linear_form():
    """Only claims lhs <= C * R with C outside lhs and R are sampled."""
    assert split_constant(_ob(n <= C * M)) == (n, M)
    assert split_constant(_ob(C * n <= C**2 * M)) is None
