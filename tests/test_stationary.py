"""Tests of attnio's output-stationary small-cache schedules, forward and backward
(algorithms/stationary.py)."""

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
from attnio.algorithms.reference import attention, gradients, relative_error
from attnio.algorithms.stationary import (
    output_stationary_backward,
    output_stationary_forward,
    stationary_tile,
)
from attnio.bounds import catalog, get
from attnio.bounds.blocks import OUTPUT_STATIONARY_BACKWARD_TILES, OUTPUT_STATIONARY_TILES
from attnio.bounds.symbols import M, d, n
from strategies import examples, problem_sizes

NAME, PASS, RECORD = "output-stationary", "forward", "output-stationary-forward-count"
LEAST = OUTPUT_STATIONARY_TILES.least_memory()
BACKWARD_RECORD = "output-stationary-backward-count"
RECORDS = {"forward": RECORD, "backward": BACKWARD_RECORD}
RULES = {"forward": OUTPUT_STATIONARY_TILES, "backward": OUTPUT_STATIONARY_BACKWARD_TILES}


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


@pytest.mark.parametrize("pass_", list(RULES))
@settings(max_examples=examples(40))
@given(sizes=problem_sizes(max_n=30, max_d=12, max_memory=400))
@example(sizes=(37, 5, 24))
@example(sizes=(37, 5, 8))
@example(sizes=(13, 12, LEAST))
@example(sizes=(1, 1, LEAST))
def test_numbers_counts_and_bounds(pass_, sizes):
    """Numbers match the reference (O and L forward; dQ, dK, dV backward), count = closed
    form in both modes, peak <= M, every applicable catalog lower bound is below the count;
    M < 9 is refused by name."""
    n_, d_, M_ = sizes
    least = RULES[pass_].least_memory()
    if M_ < least:
        with pytest.raises(ParameterError, match=f"needs M >= {least}"):
            simulate(NAME, pass_, n_, d_, M_, numeric=False)
        return
    run = simulate(NAME, pass_, n_, d_, M_)
    assert run.record == RECORDS[pass_]
    assert_sound(run)
    assert simulate(NAME, pass_, n_, d_, M_, numeric=False).counts == run.counts


@pytest.mark.parametrize("pass_", list(RULES))
@pytest.mark.parametrize("n_,d_", [(1, 1), (7, 3), (37, 5), (20, 24), (64, 8)])
def test_count_at_and_around_every_tile_breakpoint(pass_, n_, d_):
    """At every M where the tile side steps, and one word either side, the count is exact.

    The ceilings ceil(n / t) and ceil(d / t) change only where t does, and t = max(n, d) + 1
    makes both 1, so these M cover every breakpoint of every floor and ceiling of the record.
    """
    steps = breakpoints(max(n_, d_) + 1)
    record = get(RECORDS[pass_])
    for M_ in sorted({m + e for m in steps for e in (-1, 0, 1)}):
        if M_ < RULES[pass_].least_memory():
            continue
        run = simulate(NAME, pass_, n_, d_, M_, numeric=False)
        assert run.counts.io == run.closed_form == record.evaluate(n=n_, d=d_, M=M_), M_
        assert run.counts.peak <= M_


@pytest.mark.parametrize("pass_", list(RULES))
@pytest.mark.parametrize("M_", breakpoints(6))
def test_peak_is_the_tile_and_four_vectors(pass_, M_):
    """With tiles no larger than the problem the peak is exactly t^2 + 4t (= M - 4 here)."""
    rule = RULES[pass_]
    run = simulate(NAME, pass_, 40, 20, M_, numeric=False)
    assert run.counts.peak == rule.words(stationary_tile(M_, rule)) == M_ - 4


@pytest.mark.parametrize("pass_", list(RULES))
@settings(max_examples=examples(50))
@given(sizes=problem_sizes(max_n=300, max_d=64, max_memory=6000))
def test_more_memory_never_costs_more(pass_, sizes):
    """The closed form never increases from M to M + 1 (t grows with M, T_n and T_k shrink)."""
    n_, d_, M_ = sizes
    record = get(RECORDS[pass_])
    M_ = max(M_, RULES[pass_].least_memory())
    assert record.evaluate(n=n_, d=d_, M=M_ + 1) <= record.evaluate(n=n_, d=d_, M=M_)


@pytest.mark.parametrize("pass_", list(RULES))
@settings(max_examples=examples(20))
@given(sizes=problem_sizes(max_n=40, max_d=12, max_memory=300))
def test_doubling_memory_never_costs_more_on_the_machine(pass_, sizes):
    """Doubling M never increases the measured I/O (counting mode)."""
    n_, d_, M_ = sizes
    M_ = max(M_, RULES[pass_].least_memory())
    small = simulate(NAME, pass_, n_, d_, M_, numeric=False).counts.io
    assert simulate(NAME, pass_, n_, d_, 2 * M_, numeric=False).counts.io <= small


@pytest.mark.parametrize("pass_", list(RULES))
def test_every_lower_bound_is_below_the_count_in_both_caches(pass_):
    """Every explicit dense lower bound of the pass that applies is at most the count; the
    small-cache sharp bound is among those compared (so the check is not vacuous)."""
    record = get(RECORDS[pass_])
    lowers = [
        b
        for b in catalog(regime="dense", pass_=pass_, kind="lower")
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
    assert f"dense-{pass_}-lower-small-sharp" in compared


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


def test_backward_leading_term_is_10_n2_d_over_sqrt_M_plus_3_n2():
    """Backward: count / (10 n^2 d / sqrt(M) + 3 n^2) -> 1 as n -> oo and then M -> oo with
    d / sqrt(M) fixed: five products at 2 n^2 d / sqrt(M) each, and P written, read, dS written."""
    smooth = _smooth(get(BACKWARD_RECORD).explicit)
    limit, _ = _small_cache_limit(smooth / (10 * n**2 * d / sp.sqrt(M) + 3 * n**2))
    assert limit == 1


def test_backward_leading_ratios_to_the_sharp_lower_bound_and_to_the_tiled_backward():
    """Against the sharp small-cache backward lower bound the ratio tends to 20/3 + 2 / delta
    (delta = d / sqrt(M)), so 20/3 ~ 6.7 as delta grows, against the tiled backward's 40/3;
    against the tiled backward itself to (10 delta + 3) / (20 delta + 3) < 1."""
    smooth = _smooth(get(BACKWARD_RECORD).explicit)
    lower = _smooth(get("dense-backward-lower-small-sharp").explicit)
    limit, delta = _small_cache_limit(smooth / lower)
    assert sp.simplify(limit - (sp.Rational(20, 3) + 2 / delta)) == 0
    assert sp.limit(limit, delta, sp.oo) == sp.Rational(20, 3)
    tiled = _smooth(get("tiled-backward-count").explicit)
    limit, delta = _small_cache_limit(smooth / tiled)
    assert sp.simplify(limit - (10 * delta + 3) / (20 * delta + 3)) == 0


@pytest.mark.parametrize("n_,d_,M_", [(64, 16, 100), (100, 32, 400), (37, 12, 50)])
def test_backward_beats_the_tiled_backward_in_the_small_cache(n_, d_, M_):
    """Inside the small cache (M < d^2) the machine's backward I/O is below the tiled
    backward's at the same (n, d, M)."""
    ours = simulate(NAME, "backward", n_, d_, M_, numeric=False).counts.io
    assert ours < simulate("tiled-backward", "backward", n_, d_, M_, numeric=False).counts.io


@pytest.mark.parametrize("scale", [100.0, 1000.0])
def test_backward_large_scores_neither_overflow_nor_lose_accuracy(scale):
    """With scores in the hundreds and thousands (exp of the largest raw score overflows),
    every stored P entry is in [0, 1] up to rounding and dQ, dK, dV together match the
    reference to 1e-9 (one scale for the three: with one-hot rows dQ is rounding noise)."""
    rng = np.random.default_rng(5)
    n_, d_, M_ = 19, 6, 40
    Q, K, V, dO = (rng.standard_normal((n_, d_)) for _ in range(4))
    Q *= scale
    forward = attention(Q, K, V)
    machine = TwoLevelMachine(M_)
    for name, value in (("Q", Q), ("K", K), ("V", V), ("O", forward.O), ("dO", dO)):
        machine.put(name, value)
    machine.put("L", forward.L)
    output_stationary_backward(machine, n_, d_)
    assert np.abs(Q @ K.T).max() > 710  # exp(710) overflows float64
    P = machine.result("P")
    assert np.isfinite(P).all() and P.min() >= 0.0 and P.max() <= 1.0 + 1e-9
    want = gradients(Q, K, V, dO)
    names = ("dQ", "dK", "dV")
    got = np.concatenate([machine.result(name) for name in names])
    assert relative_error(got, np.concatenate([getattr(want, name) for name in names])) < 1e-9
