"""Tests of attnio's output-stationary small-cache forward schedule (algorithms/stationary.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, settings
from test_flash import assert_sound

from attnio.algorithms import simulate
from attnio.algorithms.errors import ParameterError
from attnio.algorithms.machine import TwoLevelMachine
from attnio.algorithms.reference import attention, relative_error
from attnio.algorithms.stationary import output_stationary_forward, stationary_tile
from attnio.bounds import catalog, get
from attnio.bounds.blocks import OUTPUT_STATIONARY_TILES
from attnio.bounds.symbols import M, d, n
from strategies import examples, problem_sizes

NAME, PASS, RECORD = "output-stationary", "forward", "output-stationary-forward-count"
LEAST = OUTPUT_STATIONARY_TILES.least_memory()


def breakpoints(top: int) -> list[int]:
    """The M at which the tile side becomes t, for t = 1 .. top: (t + 2)^2 words."""
    return [(t + 2) ** 2 for t in range(1, top + 1)]


def test_tile_side_fits_and_is_at_most_one_below_the_largest():
    """For every M up to 5000 the side t has t^2 + 4t <= M, and t + 2 would not fit (t + 1
    fails only where M + 4 reaches the next square); the symbolic side agrees."""
    for M_ in range(LEAST, 5000):
        t = stationary_tile(M_)
        assert t >= 1
        assert OUTPUT_STATIONARY_TILES.words(t) <= M_ < OUTPUT_STATIONARY_TILES.words(t + 2)
        largest = math.isqrt(M_ + 4) - 2
        assert t == largest or (t == largest - 1 and math.isqrt(M_) < math.isqrt(M_ + 4))
    assert OUTPUT_STATIONARY_TILES.side(sp.Integer(10**6 - 1)) == 10**3 - 3
    with pytest.raises(ParameterError, match=f"needs M >= {LEAST}"):
        stationary_tile(LEAST - 1)


@settings(max_examples=examples(40))
@given(sizes=problem_sizes(max_n=30, max_d=12, max_memory=400))
@example(sizes=(37, 5, 24))
@example(sizes=(37, 5, 8))
@example(sizes=(13, 12, LEAST))
@example(sizes=(1, 1, LEAST))
def test_numbers_counts_and_bounds(sizes):
    """Numbers match the reference (O and L), count = closed form in both modes, peak <= M,
    every applicable catalog lower bound is below the count; M < 5 is refused by name."""
    n_, d_, M_ = sizes
    if M_ < LEAST:
        with pytest.raises(ParameterError, match=f"needs M >= {LEAST}"):
            simulate(NAME, PASS, n_, d_, M_, numeric=False)
        return
    run = simulate(NAME, PASS, n_, d_, M_)
    assert_sound(run)
    assert simulate(NAME, PASS, n_, d_, M_, numeric=False).counts == run.counts


@pytest.mark.parametrize("n_,d_", [(1, 1), (7, 3), (37, 5), (20, 24), (64, 8)])
def test_count_at_and_around_every_tile_breakpoint(n_, d_):
    """At every M where the tile side steps, and one word either side, the count is exact.

    The ceilings ceil(n / t) and ceil(d / t) change only where t does, and t = max(n, d) + 1
    makes both 1, so these M cover every breakpoint of every floor and ceiling of the record.
    """
    steps = breakpoints(max(n_, d_) + 1)
    record = get(RECORD)
    for M_ in sorted({m + e for m in steps for e in (-1, 0, 1)}):
        if M_ < LEAST:
            continue
        run = simulate(NAME, PASS, n_, d_, M_, numeric=False)
        assert run.counts.io == run.closed_form == record.evaluate(n=n_, d=d_, M=M_), M_
        assert run.counts.peak <= M_


@pytest.mark.parametrize("M_", breakpoints(6))
def test_peak_is_the_tile_and_four_vectors(M_):
    """With tiles no larger than the problem the peak is exactly t^2 + 4t (= M - 4 here)."""
    run = simulate(NAME, PASS, 40, 20, M_, numeric=False)
    assert run.counts.peak == OUTPUT_STATIONARY_TILES.words(stationary_tile(M_)) == M_ - 4


@settings(max_examples=examples(50))
@given(sizes=problem_sizes(max_n=300, max_d=64, max_memory=6000))
def test_more_memory_never_costs_more(sizes):
    """The closed form never increases from M to M + 1 (t grows with M, T_n and T_k shrink)."""
    n_, d_, M_ = sizes
    record = get(RECORD)
    M_ = max(M_, LEAST)
    assert record.evaluate(n=n_, d=d_, M=M_ + 1) <= record.evaluate(n=n_, d=d_, M=M_)


@settings(max_examples=examples(20))
@given(sizes=problem_sizes(max_n=40, max_d=12, max_memory=300))
def test_doubling_memory_never_costs_more_on_the_machine(sizes):
    """Doubling M never increases the measured I/O (counting mode)."""
    n_, d_, M_ = sizes
    M_ = max(M_, LEAST)
    small = simulate(NAME, PASS, n_, d_, M_, numeric=False).counts.io
    assert simulate(NAME, PASS, n_, d_, 2 * M_, numeric=False).counts.io <= small


def test_every_lower_bound_is_below_the_count_in_both_caches():
    """Every explicit dense forward lower bound that applies is at most the count; the small-
    cache sharp bound is among those compared (so the check is not vacuous)."""
    record = get(RECORD)
    lowers = [
        b
        for b in catalog(regime="dense", pass_="forward", kind="lower")
        if b.explicit is not None and set(b.parameters) <= {"n", "d", "M"}
    ]
    compared = set()
    for n_, d_ in ((16, 4), (64, 16), (256, 32), (1000, 100), (5000, 64)):
        for M_ in sorted({LEAST, 12, 60, d_ * d_ // 4, d_ * d_ - 1, d_ * d_, 4 * d_ * d_}):
            if M_ < LEAST:
                continue
            count = record.evaluate(n=n_, d=d_, M=M_)
            for bound in lowers:
                params = {
                    k: v for k, v in {"n": n_, "d": d_, "M": M_}.items() if k in bound.parameters
                }
                if bound.applies(**params):
                    assert sp.N(bound.evaluate(**params) - count, 30) <= 0, (bound.name, M_)
                    compared.add(bound.name)
    assert "dense-forward-lower-small-sharp" in compared


def _smooth(expr: sp.Expr) -> sp.Expr:
    """Drop the floors and ceilings (their arguments stay): what the leading term sees."""
    return expr.replace(sp.ceiling, lambda x: x).replace(sp.floor, lambda x: x)


def _small_cache_limit(ratio: sp.Expr) -> sp.Expr:
    """n -> oo, then M -> oo with d = delta sqrt(M) (delta > 1: inside the small cache)."""
    delta = sp.Symbol("delta", positive=True)
    at_n = sp.limit(ratio, n, sp.oo)
    return sp.simplify(sp.limit(at_n.subs(d, delta * sp.sqrt(M)), M, sp.oo)), delta


def test_leading_term_is_4_n2_d_over_sqrt_M_plus_n2():
    """count / (4 n^2 d / sqrt(M) + n^2) -> 1 as n -> oo and then M -> oo, d / sqrt(M) fixed."""
    smooth = _smooth(get(RECORD).explicit)
    limit, _ = _small_cache_limit(smooth / (4 * n**2 * d / sp.sqrt(M) + n**2))
    assert limit == 1
    # d fixed instead: per n^2, the part linear in d is d (4 / t + 1 / t^2), t = sqrt(M) - 2,
    # whose sqrt(M) multiple tends to 4; what is left tends to the n^2 term's 1
    per_n2 = sp.expand(sp.limit(smooth / n**2, n, sp.oo))
    linear = per_n2.coeff(d, 1)
    assert sp.limit(linear * sp.sqrt(M), M, sp.oo) == 4
    assert sp.limit(per_n2 - linear * d, M, sp.oo) == 1


def test_leading_ratios_to_the_sharp_lower_bound_and_to_square_tiling():
    """Against the sharp small-cache lower bound the ratio tends to 4 sqrt(2) + sqrt(2) / delta
    (delta = d / sqrt(M)); against square tiling to (4 delta + 1) / (8 delta + 1) < 1."""
    smooth = _smooth(get(RECORD).explicit)
    lower = _smooth(get("dense-forward-lower-small-sharp").explicit)
    limit, delta = _small_cache_limit(smooth / lower)
    assert sp.simplify(limit - (4 * sp.sqrt(2) + sp.sqrt(2) / delta)) == 0
    tiling = _smooth(get("square-tiling-forward-count").explicit)
    limit, delta = _small_cache_limit(smooth / tiling)
    assert sp.simplify(limit - (4 * delta + 1) / (8 * delta + 1)) == 0


@pytest.mark.parametrize("scale", [100.0, 1000.0])
def test_large_scores_neither_overflow_nor_lose_accuracy(scale):
    """With scores in the thousands (exp overflows), O and L still match the reference to 1e-12."""
    rng = np.random.default_rng(3)
    n_, d_, M_ = 23, 6, 45
    Q, K, V = (rng.standard_normal((n_, d_)) for _ in range(3))
    Q *= scale
    machine = TwoLevelMachine(M_)
    for name, value in (("Q", Q), ("K", K), ("V", V)):
        machine.put(name, value)
    output_stationary_forward(machine, n_, d_)
    want = attention(Q, K, V)
    assert np.abs(Q @ K.T).max() > 800  # exp of the raw scores would overflow
    assert np.isfinite(machine.result("A")).all()
    assert machine.result("A").max() == 1.0
    assert relative_error(machine.result("O"), want.O) < 1e-12
    assert relative_error(machine.result("L").ravel(), want.L) < 1e-12
