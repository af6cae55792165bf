"""Tests of attnio.bounds.symbols: declared once, with assumptions, no reserved names."""

from __future__ import annotations

import sympy as sp

from attnio.bounds import symbols


def test_no_symbol_shadows_a_sympy_singleton() -> None:
    """No declared symbol is printed as one of sympy's reserved letters I, N, S, E, O."""
    assert not set(symbols.ALL) & {"I", "N", "S", "E", "O", "Q"}


def test_sizes_are_positive_integers() -> None:
    """n, d, M and the sparse counts are positive integers, so z3 and sympy may assume it."""
    for name in ("n", "d", "M", "Z", "Z_in", "Z_QK", "r"):
        assert symbols.ALL[name].is_integer and symbols.ALL[name].is_positive


def test_feature_rank_counts_monomials() -> None:
    """C(d + g, g) equals the number of monomials of degree <= g in d variables."""
    import itertools

    for dim in range(1, 5):
        for degree in range(4):
            count = sum(
                1
                for exps in itertools.product(range(degree + 1), repeat=dim)
                if sum(exps) <= degree
            )
            assert symbols.feature_rank(dim, degree) == count
    assert symbols.feature_rank(symbols.d, 1) == sp.binomial(symbols.d + 1, 1)
