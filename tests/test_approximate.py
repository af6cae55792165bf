"""Tests of polynomial-method attention: its error bound, exact count and linear growth."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.algorithms import simulate
from attnio.algorithms.approximate import _monomials, approximate_exp, feature_rank
from attnio.algorithms.errors import ParameterError
from attnio.algorithms.verification import growth_ratio
from attnio.bounds.symbols import feature_rank as catalog_rank
from strategies import examples


@settings(max_examples=examples(30))
@given(
    n=st.integers(1, 40),
    d=st.integers(1, 4),
    degree=st.integers(0, 6),
    M=st.integers(1, 2000),
    radius=st.sampled_from([0.25, 0.5, 1.0]),
)
def test_error_within_bound_and_count_exact(n, d, degree, M, radius):
    """Output error stays within the stated bound; counts equal the closed form in both modes."""
    bound = math.sqrt(radius / d)  # entries in [-B, B] keep scores in [-radius, radius]
    try:
        run = simulate("low-rank", "forward", n, d, M, degree=degree, entry_bound=bound)
    except ParameterError as error:
        assert "holds neither" in str(error)
        assert 4 * d + 2 > M
        return
    assert run.error <= run.error_bound
    assert run.counts.io == run.closed_form
    assert run.counts.peak <= M
    counting = simulate("low-rank", "forward", n, d, M, degree=degree, numeric=False)
    assert counting.counts == run.counts


@settings(max_examples=examples(30))
@given(
    n=st.integers(1, 40),
    d=st.integers(1, 4),
    degree=st.integers(0, 4),
    M=st.integers(1, 400),
    radius=st.sampled_from([0.25, 0.5, 1.0]),
)
def test_column_blocked_error_within_bound_and_count_exact(n, d, degree, M, radius):
    """The column-blocked forward computes the low-rank forward's output (to rounding), so
    its error stays within the stated bound; its I/O equals low-rank-columns-forward-count
    in both modes, its peak is at most M, and it refuses exactly the M below 2r + 2d + 5."""
    bound = math.sqrt(radius / d)
    least = 2 * feature_rank(d, degree) + 2 * d + 5
    try:
        run = simulate("low-rank-columns", "forward", n, d, M, degree=degree, entry_bound=bound)
    except ParameterError as error:
        assert "holds no column" in str(error) and M < least
        return
    assert M >= least
    blocked = simulate("low-rank", "forward", n, d, max(M, 4 * d + 2), degree=degree,
                       entry_bound=bound)  # fmt: skip
    assert run.error <= run.error_bound
    assert abs(run.error - blocked.error) <= 1e-12
    assert run.counts.io == run.closed_form
    assert run.counts.peak <= M
    counting = simulate("low-rank-columns", "forward", n, d, M, degree=degree, numeric=False)
    assert counting.counts == run.counts


def test_column_blocked_beats_feature_blocks_at_the_target_point():
    """At degree 2, n = 65536, d = 32, M = 4096 the column-blocked count is 14nd (c = 6
    columns, 6 blocks), under 35% of the feature-blocked low-rank count there; the machine's
    counting run moves exactly that."""
    from attnio.bounds import get

    point = {"n": 65536, "d": 32, "M": 4096, "r": feature_rank(32, 2)}
    columns = get("low-rank-columns-forward-count").evaluate(**point)
    assert columns == 14 * 65536 * 32
    assert columns < 0.35 * get("low-rank-forward-count").evaluate(**point)
    run = simulate("low-rank-columns", "forward", 4096, 32, 4096, degree=2, numeric=False)
    assert run.counts.io == run.closed_form == 14 * 4096 * 32


def test_resident_schedule_reads_inputs_once():
    """When [W | w] fits, the schedule moves exactly the compulsory 4nd words."""
    run = simulate("low-rank", "forward", 500, 4, 10_000, degree=3, numeric=False)
    assert run.counts.io == 4 * 500 * 4


@pytest.mark.parametrize("M", [64, 4096])
def test_io_grows_linearly_in_n(M):
    """The measured I/O(2n) / I/O(n) is close to 2, resident or blocked."""
    assert 1.95 <= growth_ratio("low-rank", "forward", 1024, 8, M, degree=2) <= 2.05


@given(d=st.integers(1, 6), degree=st.integers(0, 5))
def test_feature_rank_is_the_catalogs(d, degree):
    """The number of monomials equals C(d + g, g), the catalog's feature_rank."""
    assert len(_monomials(d, degree)[0]) == feature_rank(d, degree) == catalog_rank(d, degree)


@given(degree=st.integers(0, 10), radius=st.floats(0.05, 2.0))
def test_polynomial_error_within_delta(degree, radius):
    """The interpolant's error on a fine grid of [-R, R] is at most the stated delta."""
    import numpy as np

    approx = approximate_exp(degree, radius)
    xs = np.linspace(-radius, radius, 2001)
    values = np.polynomial.polynomial.polyval(xs, approx.coefficients)
    assert np.max(np.abs(values - np.exp(xs))) <= approx.delta * (1 + 1e-9) + 1e-13


def test_bad_parameters_refused():
    """A missing or negative degree and a nonpositive entry bound are refused."""
    with pytest.raises(ParameterError, match="degree"):
        simulate("low-rank", "forward", 8, 2, 100)
    with pytest.raises(ParameterError, match="degree=-1"):
        simulate("low-rank", "forward", 8, 2, 100, degree=-1)
    with pytest.raises(ParameterError, match="entry_bound"):
        simulate("low-rank", "forward", 8, 2, 100, degree=2, entry_bound=0.0)
    with pytest.raises(ParameterError, match="exact"):
        simulate("flash", "forward", 8, 2, 100, degree=2)


def test_approximate_gradients_match_finite_differences():
    """The analytic gradient of the approximate output equals central finite differences."""
    import numpy as np

    from attnio.algorithms.approximate import approximate_attention, approximate_gradients

    rng = np.random.default_rng(7)
    n, d = 5, 3
    Q, K = (rng.uniform(-0.5, 0.5, (n, d)) for _ in range(2))
    V, dO = (rng.standard_normal((n, d)) for _ in range(2))
    approx = approximate_exp(3, d * 0.25)
    grads = approximate_gradients(Q, K, V, dO, approx)
    h = 1e-6
    for which, grad in enumerate(grads):
        for i in range(n):
            for j in range(d):
                args = [Q.copy(), K.copy(), V.copy()]
                args[which][i, j] += h
                up = np.sum(dO * approximate_attention(*args, approx))
                args[which][i, j] -= 2 * h
                down = np.sum(dO * approximate_attention(*args, approx))
                assert abs((up - down) / (2 * h) - grad[i, j]) < 1e-6


@settings(max_examples=examples(30))
@given(n=st.integers(1, 30), d=st.integers(1, 4), degree=st.integers(0, 4), M=st.integers(1, 1500))
def test_backward_counts_and_numbers(n, d, degree, M):
    """The backward matches its reference and its closed form in both modes (9nd if resident)."""
    r = feature_rank(d, degree)
    resident = 2 * r * (d + 2) + 4 * d + 1 <= M
    if not resident and max(8 * d + 2, 4 * d + 8) > M:
        with pytest.raises(ParameterError, match="holds neither"):
            simulate("low-rank", "backward", n, d, M, degree=degree, numeric=False)
        return
    run = simulate("low-rank", "backward", n, d, M, degree=degree)
    assert run.counts.io == run.closed_form
    assert (run.counts.io == 9 * n * d) is resident
    assert run.counts.peak <= M and run.error <= 1e-9
    counting = simulate("low-rank", "backward", n, d, M, degree=degree, numeric=False)
    assert counting.counts == run.counts


@settings(max_examples=examples(30))
@given(n=st.integers(1, 30), d=st.integers(1, 4), degree=st.integers(0, 3), M=st.integers(1, 600))
def test_column_blocked_backward_counts_and_numbers(n, d, degree, M):
    """The column-blocked backward computes the gradient of the approximate output (the
    reference approximate_gradients, to rounding), moves exactly
    low-rank-columns-backward-count in both modes within M, 11nd with one column block,
    and refuses exactly the M below 3r + 4d + 10."""
    r = feature_rank(d, degree)
    if M < 3 * r + 4 * d + 10:
        with pytest.raises(ParameterError, match="holds no column"):
            simulate("low-rank-columns", "backward", n, d, M, degree=degree, numeric=False)
        return
    run = simulate("low-rank-columns", "backward", n, d, M, degree=degree)
    assert run.counts.io == run.closed_form
    assert (run.counts.io == 11 * n * d) is (M >= 2 * r + 4 * d + 6 + d * (r + 4))
    assert run.counts.peak <= M and run.error <= 1e-9
    counting = simulate("low-rank-columns", "backward", n, d, M, degree=degree, numeric=False)
    assert counting.counts == run.counts


def test_column_blocked_backward_at_the_target_point():
    """At degree 2, n = 65536, d = 32, M = 4096 the column-blocked backward moves 59nd + 12n
    words (c = 5 columns, 7 blocks), under a quarter of the feature-blocked backward's count
    there; the machine's counting run at n = 2048 moves exactly its closed form."""
    from attnio.bounds import get

    point = {"n": 65536, "d": 32, "M": 4096, "r": feature_rank(32, 2)}
    columns = get("low-rank-columns-backward-count").evaluate(**point)
    assert columns == 59 * 65536 * 32 + 12 * 65536
    assert 4 * columns < get("low-rank-backward-count").evaluate(**point)
    run = simulate("low-rank-columns", "backward", 2048, 32, 4096, degree=2, numeric=False)
    assert run.counts.io == run.closed_form == 59 * 2048 * 32 + 12 * 2048


@pytest.mark.parametrize("M", [60, 4096])
def test_backward_io_grows_linearly_in_n(M):
    """The backward's measured I/O(2n) / I/O(n) is close to 2, resident or blocked."""
    assert 1.95 <= growth_ratio("low-rank", "backward", 1024, 4, M, degree=2) <= 2.05


@given(degree=st.integers(0, 30), radius=st.floats(0.01, 30.0))
def test_error_bound_is_the_approximations_bound(degree, radius):
    """error_bound (no interpolant) equals the bound of the interpolant it describes."""
    from attnio.algorithms.approximate import error_bound

    stated = approximate_exp(degree, radius).output_bound(1.0)
    assert error_bound(degree, radius) == pytest.approx(stated, rel=1e-12) or (
        math.isinf(stated) and math.isinf(error_bound(degree, radius))
    )


def test_interpolation_error_at_high_degree_does_not_overflow():
    """Degrees whose (g + 1)! exceeds the floats still get their (tiny) delta: the error is
    computed in logarithms, so the least degree for wide score ranges can be found."""
    from attnio.algorithms.approximate import interpolation_error, least_degree

    assert 0 < interpolation_error(170, 4.0) < 1e-200  # 171! exceeds the floats
    assert least_degree(64.0, 0.01) is not None


@given(radius=st.floats(0.01, 40.0), exponent=st.integers(1, 9))
def test_least_degree_is_least(radius, exponent):
    """least_degree's bound is within epsilon and the degree below it is not."""
    from attnio.algorithms.approximate import MAX_DEGREE, error_bound, least_degree

    epsilon = 10.0**-exponent
    degree = least_degree(radius, epsilon)
    if degree is None:
        assert all(error_bound(g, radius) > epsilon for g in range(MAX_DEGREE + 1))
        return
    assert error_bound(degree, radius) <= epsilon
    assert degree == 0 or error_bound(degree - 1, radius) > epsilon


@settings(max_examples=examples(40), derandomize=True, deadline=None)
@given(
    n=st.integers(1, 16),
    d=st.integers(1, 3),
    degree=st.integers(1, 10),
    entry_bound=st.sampled_from([0.3, 0.5, 0.7, 1.0]),
    corners=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_gradient_error_within_derived_bound(n, d, degree, entry_bound, corners, seed):
    """The approximate gradient (the low-rank backward's) stays within gradient_error_bounds of
    the exact attention gradient on inputs with entries in [-B, B], uniform or at the corners."""
    import numpy as np

    from attnio.algorithms.approximate import approximate_gradients, gradient_error_bounds
    from attnio.algorithms.reference import gradients

    bounds = gradient_error_bounds(n, d, degree, entry_bound)
    rng = np.random.default_rng(seed)
    if corners:
        Q, K, V, dO = (entry_bound * rng.choice([-1.0, 1.0], (n, d)) for _ in range(4))
    else:
        Q, K, V, dO = (rng.uniform(-entry_bound, entry_bound, (n, d)) for _ in range(4))
    dQ, dK, dV = approximate_gradients(Q, K, V, dO, approximate_exp(degree, d * entry_bound**2))
    exact = gradients(Q, K, V, dO)
    assert np.max(np.abs(dQ - exact.dQ)) <= bounds.dQ
    assert np.max(np.abs(dK - exact.dK)) <= bounds.dK
    assert np.max(np.abs(dV - exact.dV)) <= bounds.dV


def test_gradient_error_bound_is_finite_and_shrinks_with_degree():
    """The gradient bound is infinite when delta >= e^-R and decreases to 0 as the degree grows,
    so the property test above is not vacuous."""
    from attnio.algorithms.approximate import gradient_error_bounds

    assert math.isinf(gradient_error_bounds(8, 2, 1, 1.0).dQ)
    values = [gradient_error_bounds(8, 2, g, 0.5).dK for g in (6, 10, 14)]
    assert values[0] > values[1] > values[2] and values[0] < 0.1
