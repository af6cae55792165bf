"""Tests of attnio.proofs.sampling: sampled ratios refute constants with exact points."""

from __future__ import annotations

import numpy as np
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


def test_local_search_finds_the_jump_the_grid_misses():
    """Above n = 5000 the grid holds only n = 2^14, 2^16, 2^20 (ratio below 10.4); the
    local search climbs to n = 5001, just past a multiple of the block, where
    10000 ceil(n / 1000) / n = 60000 / 5001 > 11, so C = 11 is refuted there."""
    ob = _ob(10000 * sp.ceiling(n / 1000) <= C * n, (n >= 5000,))
    rho, point = largest_ratio(ob)
    assert rho == sp.Rational(60000, 5001) and point == {"n": 5001}
    assert confirm(ob.at(11), point)[0]
    assert not confirm(ob.at(12), point)[0]


def test_scaled_sample_holds_the_corner_at_every_d():
    """Beside the fixed grid, M is sampled in units of d^2 (d^2 - 1 and d^2 included) and n
    in units of d, at every d of the grid."""
    from attnio.proofs.sampling import _GRIDS, _scaled

    grid = [np.array([float(v) for v in _GRIDS[name]]) for name in ("M", "d", "n")]
    points = {tuple(p) for p in _scaled(grid, ["M", "d", "n"]).T}
    for degree in (3, 17, 1024):
        assert (degree**2 - 1, degree, 3 * degree) in points
        assert (degree**2, degree, degree) in points


def test_the_ratio_is_the_exact_rational_not_a_guess_near_it():
    """Regression: the ratio was passed through sympy.nsimplify, which turns 100573/14504
    (the ratio of output-stationary forward to the max of the small-cache derived bounds at
    M = 48, d = 16, n = 22) into 3*2**(430/661)*3**(178/661)*5**(116/661)*7**(596/661)/7,
    a different number."""
    ob = _ob(sp.Le(sp.Integer(100573), C * 14504 * n, evaluate=False), (n <= 4,))
    rho, point = largest_ratio(ob)
    assert rho == sp.Rational(100573, 14504) and point == {"n": 1}
