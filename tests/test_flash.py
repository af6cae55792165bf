"""Tests of FlashAttention and FlashAttention-2 on the machine (DFE22 Alg. 1, 4; D23)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, settings

from attnio.algorithms import simulate
from attnio.algorithms.errors import CapacityError, ParameterError
from attnio.algorithms.flash import flash_forward
from attnio.algorithms.machine import TwoLevelMachine
from attnio.algorithms.verification import growth_ratio
from attnio.bounds import catalog
from strategies import examples, problem_sizes

MINIMUM = {
    ("flash", "forward"): lambda d: 5 * d + 4,
    ("flash", "backward"): lambda d: 10 * d + 2,
    ("flash2", "forward"): lambda d: 5 * d + 3,
    ("flash2", "backward"): lambda d: 9 * d + 2,
}


def assert_sound(run, regime: str = "dense") -> None:
    """Assert count = closed form, peak <= M, error <= 1e-9, I/O >= applicable lower bounds."""
    assert run.closed_form is not None, run.note
    assert run.counts.io == run.closed_form
    assert run.counts.peak <= run.M
    if run.error is not None:
        assert run.error <= 1e-9
    for bound in catalog(regime=regime, pass_=run.pass_, kind="lower"):
        if bound.explicit is None or set(bound.parameters) - {"n", "d", "M"}:
            continue
        params = {k: getattr(run, k) for k in bound.parameters}
        if bound.applies(**params):
            assert sp.N(bound.evaluate(**params) - run.counts.io, 30) <= 0, bound.name


def assert_sound_or_refused(name: str, pass_: str, n: int, d: int, M: int, least: int) -> None:
    """Assert that below ``least`` the schedule refuses M by naming ``least``, and from it on
    its numeric run is sound (:func:`assert_sound`) and its counting run has the same counts."""
    if M < least:
        with pytest.raises(ParameterError, match=f"needs M >= {least}"):
            simulate(name, pass_, n, d, M, numeric=False)
        return
    run = simulate(name, pass_, n, d, M)
    assert_sound(run)
    assert simulate(name, pass_, n, d, M, numeric=False).counts == run.counts


def assert_exact_around(name: str, pass_: str, n: int, d: int, steps, least: int) -> None:
    """Assert that at every M of ``steps`` and one word either side, from ``least`` on, the
    counting run's I/O is the closed form and its peak at most M."""
    for M in sorted({m + e for m in steps for e in (-1, 0, 1)}):
        if M < least:
            continue
        run = simulate(name, pass_, n, d, M, numeric=False)
        assert run.counts.io == run.closed_form, M
        assert run.counts.peak <= M


@pytest.mark.parametrize("name,pass_", list(MINIMUM))
@settings(max_examples=examples(25))
@given(sizes=problem_sizes())
@example(sizes=(37, 5, 29 * 5 + 3))
def test_numbers_counts_and_bounds(name, pass_, sizes):
    """Numbers match the reference, counts equal the closed form and both modes, bounds hold."""
    n, d, M = sizes
    assert_sound_or_refused(name, pass_, n, d, M, MINIMUM[name, pass_](d))


@pytest.mark.parametrize("name,pass_", list(MINIMUM))
@settings(max_examples=examples(25))
@given(sizes=problem_sizes(max_n=200, max_d=16))
def test_more_memory_never_costs_more(name, pass_, sizes):
    """Doubling M never increases the I/O (counting mode)."""
    n, d, M = sizes
    M = max(M, MINIMUM[name, pass_](d))
    small = simulate(name, pass_, n, d, M, numeric=False).counts.io
    assert simulate(name, pass_, n, d, 2 * M, numeric=False).counts.io <= small


def test_relabelling_keys_changes_nothing():
    """Permuting the key/value rows leaves FlashAttention's output and its counts unchanged."""
    rng = np.random.default_rng(5)
    n, d, M = 23, 4, 120
    Q, K, V = (rng.standard_normal((n, d)) for _ in range(3))
    perm = rng.permutation(n)
    outs = []
    for keys, values in ((K, V), (K[perm], V[perm])):
        mc = TwoLevelMachine(M)
        for name, value in (("Q", Q), ("K", keys), ("V", values)):
            mc.put(name, value)
        flash_forward(mc, n, d)
        outs.append((mc.result("O"), mc.counts()))
    assert np.allclose(outs[0][0], outs[1][0], rtol=1e-12)
    assert outs[0][1] == outs[1][1]


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_io_grows_like_n_squared(pass_):
    """FlashAttention's measured I/O(2n) / I/O(n) is close to 4 at fixed d and M.

    At n = 1024 the ratios are 3.955 (forward) and 3.989 (backward), as near 4 as at
    n = 4096 (3.989, 3.997) for a sixteenth of the block steps."""
    assert 3.8 <= growth_ratio("flash", pass_, 1024, 16, 1024) <= 4.1


def test_peak_error_for_too_small_memory_is_clear():
    """M below one block is refused, naming the minimum."""
    with pytest.raises(ParameterError, match=r"flash forward: M=20 .* needs M >= 84"):
        simulate("flash", "forward", 10, 16, 20)


@pytest.mark.parametrize(
    "d,M,overflows",
    [(64, 16384, True), (8, 100, True), (16, 2048, True), (16, 4096, False), (8, 1024, False)],
)
def test_dfe22_block_sizes_overflow_small_M(d, M, overflows):
    """DFE22's B_c = ceil(M/4d), B_r = min(B_c, d) overflow M for every M <= 4d^2, and beyond.

    K_j, V_j, Q_i, O_i alone take 2 B_c d + 2 B_r d >= M words when B_c <= d; the score
    tile and four row statistics come on top. Above 4d^2 the peak is about 3M/4 + 2d^2 + 4d,
    over M until about M = 8d^2 + 16d (here 2048 = 8 d^2 at d = 16 overflows, 4096 fits).
    attnio's sizes always fit (the other tests).
    """
    import math

    bc = math.ceil(M / (4 * d))
    br = min(bc, d)
    n = 4 * bc
    peak = 2 * bc * d + 2 * br * d + br * bc + 4 * br
    assert (peak > M) is overflows
    machine = TwoLevelMachine(M, numeric=False, algorithm="flash dfe22-sizes")
    for name in ("Q", "K", "V"):
        machine.put(name, (n, d))
    if overflows:
        with pytest.raises(CapacityError, match="flash dfe22-sizes"):
            flash_forward(machine, n, d, block_sizes=(br, bc))
    else:
        flash_forward(machine, n, d, block_sizes=(br, bc))
        assert machine.peak == peak
