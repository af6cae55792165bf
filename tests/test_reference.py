"""Tests of the NumPy reference: its gradients against finite differences, its mask semantics."""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms.errors import MaskError, ParameterError
from attnio.algorithms.reference import attention, gradients


@pytest.mark.parametrize("masked", [False, True])
def test_gradients_match_finite_differences(masked):
    """The analytic dQ, dK, dV equal central finite differences of sum(dO * O) to 1e-6."""
    rng = np.random.default_rng(3)
    n, d = 5, 3
    Q, K, V, dO = (rng.standard_normal((n, d)) for _ in range(4))
    mask = (rng.random((n, n)) < 0.6) | np.eye(n, dtype=bool) if masked else None
    grads = gradients(Q, K, V, dO, mask)

    def loss(q, k, v):
        return float(np.sum(dO * attention(q, k, v, mask).O))

    h = 1e-6
    for which, grad in ((0, grads.dQ), (1, grads.dK), (2, grads.dV)):
        for i in range(n):
            for j in range(d):
                args = [Q.copy(), K.copy(), V.copy()]
                args[which][i, j] += h
                up = loss(*args)
                args[which][i, j] -= 2 * h
                down = loss(*args)
                assert abs((up - down) / (2 * h) - grad[i, j]) < 1e-6


def test_mask_restricts_each_row():
    """A masked row is ordinary attention over its allowed keys only."""
    rng = np.random.default_rng(4)
    Q, K, V = (rng.standard_normal((4, 2)) for _ in range(3))
    mask = np.array([[1, 0, 1, 0], [1, 1, 1, 1], [0, 0, 0, 1], [1, 1, 0, 0]], dtype=bool)
    out = attention(Q, K, V, mask).O
    for i in range(4):
        keep = mask[i]
        weights = np.exp(K[keep] @ Q[i])
        assert np.allclose(out[i], weights @ V[keep] / weights.sum(), rtol=1e-12)


def test_bad_inputs_refused():
    """Mismatched shapes, non-finite entries, wrong mask shapes and empty mask rows are refused."""
    Q = np.zeros((3, 2))
    with pytest.raises(ParameterError, match="shape"):
        attention(Q, np.zeros((3, 3)), Q)
    with pytest.raises(ParameterError, match="non-finite"):
        attention(Q, Q, np.full((3, 2), np.nan))
    with pytest.raises(MaskError, match="n x n"):
        attention(Q, Q, Q, np.ones((2, 3)))
    with pytest.raises(MaskError, match="row 1"):
        attention(Q, Q, Q, np.array([[1, 0, 0], [0, 0, 0], [0, 0, 1]]))
