"""Tests of attnio.bounds.forms: leading terms computed from the records."""

from __future__ import annotations

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.bounds import Cache, catalog, get
from attnio.bounds.forms import forms, leading_term
from attnio.bounds.symbols import M, d, n
from strategies import examples


def test_known_leading_terms() -> None:
    """Leading terms of exact counts match the hand analysis (block sizes -> M/(5d+4) etc.)."""
    assert leading_term(get("flash-forward-count").explicit, Cache.LARGE) == 15 * n**2 * d**2 / M
    assert leading_term(get("square-tiling-forward-count").explicit, Cache.SMALL) == (
        8 * n**2 * d / sp.sqrt(M)
    )
    assert leading_term(get("standard-forward-count").explicit, Cache.LARGE) == 5 * n**2
    tight = forms(get("dense-forward-tight")).leading
    assert tight == {Cache.SMALL: n**2 * d / sp.sqrt(M), Cache.LARGE: n**2 * d**2 / M}


def test_leading_term_drops_only_dominated_terms() -> None:
    """A term survives unless another one outgrows it everywhere in the regime."""
    assert leading_term(n**2 + n * d, Cache.SMALL) == n**2
    both = leading_term(n + d**5, Cache.SMALL)
    assert both == n + d**5


@settings(max_examples=examples(25), deadline=None)
@given(
    st.sampled_from([b for b in catalog() if b.explicit is not None and b.cache is not Cache.ANY]),
    st.integers(4, 8),
)
def test_leading_term_approximates_the_explicit_form(bound, k: int) -> None:
    """Deep inside the regime (n = 2^(3k), d = 2^k) the explicit form over its leading term tends to 1."""
    lead = forms(bound).leading.get(bound.cache)
    if lead is None or set(bound.parameters) - {"n", "d", "M"}:
        return
    big_n, big_d = 2 ** (3 * k), 2**k
    big_m = big_d * big_d // 2**k if bound.cache is Cache.SMALL else big_d**2 * 2**k
    subs = {n: big_n, d: big_d, M: big_m}
    ratio = float(bound.explicit.subs(subs) / lead.subs(subs))
    assert abs(ratio - 1) < 0.6, (bound.name, ratio)
