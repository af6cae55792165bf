"""Inputs of polynomial-method attention whose error is known: the adversary and the control.

Polynomial attention of degree g (:mod:`attnio.algorithms.approximate`) is within
``error_bound(g, R) * max|V|`` of exact attention on *every* input whose Q and K entries
lie in [-B, B] (scores in [-R, R], ``R = d B^2``). Seeded random entries say little about
that worst case: their scores gather near 0, where the interpolant is most accurate (at
d = 4, B = 1, g = 6, uniform entries give an error of 0.006 max|V|, the two-score input
below 270 max|V|, and the degree has no finite bound there). The families of
:data:`ENTRY_PATTERNS` keep every entry of Q and K inside [-B, B]; the error of the
last two is known in closed form, computed from the polynomial's coefficients and
``exp`` alone (no feature map, no reference implementation):

``uniform``
    Q, K uniform in [-B, B], V standard normal (seeded): the benign case; no known error.
``constant``
    Q uniform in [-B, B] and every row of K the same row: each query scores all keys
    alike, softmax is uniform, and polynomial attention is exact (the mean of V's rows)
    at every degree whose polynomial is nonzero at those scores. Known error: 0.
``two-scores``
    Every row of Q is ``B 1``; the rows of K alternate between ``(a / dB) 1`` and
    ``(b / dB) 1``, so each query scores a against the even keys and b against the odd
    ones, and V's rows alternate between ``+1`` and ``-1``. Every output entry is
    ``(n_a w(a) - n_b w(b)) / (n_a w(a) + n_b w(b))`` with ``w = exp`` (exact) or
    ``w = p`` (polynomial), n_a and n_b the even and odd keys; (a, b) is the pair of a
    grid of [-R, R] with the largest error (:func:`worst_pair`): the adversary. Where the
    degree has no finite bound at B its error is far above any useful epsilon (about 3e5
    max|V| at d = 4, B = 1, g = 3), a certificate that such a run does not meet it.
"""

from __future__ import annotations

import math

import numpy as np

from .approximate import Approximation
from .errors import AlgorithmParameterError

ENTRY_PATTERNS = ("uniform", "constant", "two-scores")
"""Input families of the low-rank algorithm (module docstring)."""

KNOWN = ("constant", "two-scores")
"""The families whose error :func:`known_error` gives in closed form."""

PAIR_GRID = 401
"""Points of [-R, R] (ends included) among which :func:`worst_pair` chooses the two scores."""


def _check(pattern: str) -> None:
    if pattern not in ENTRY_PATTERNS:
        raise AlgorithmParameterError(
            f"entries={pattern!r} is not one of: {', '.join(ENTRY_PATTERNS)}"
        )


def _split(n: int) -> tuple[int, int]:
    """Keys scoring a (even rows) and b (odd rows)."""
    return (n + 1) // 2, n // 2


def two_score_error(approx: Approximation, a: float, b: float, n: int) -> float:
    """The entrywise error of polynomial attention on the two-score input with scores a, b.

    ``|(n_a p(a) - n_b p(b)) / (n_a p(a) + n_b p(b)) - (n_a e^a - n_b e^b) / (n_a e^a +
    n_b e^b)|`` for n keys (n_a even, n_b odd); ``inf`` where the polynomial's
    denominator vanishes.

    Examples
    --------
    >>> from attnio.algorithms.approximate import approximate_exp
    >>> two_score_error(approximate_exp(3, 1.0), -1.0, 1.0, 1)   # one key: exact
    0.0
    """
    n_a, n_b = _split(n)
    p_a, p_b = np.polynomial.polynomial.polyval([a, b], approx.coefficients)
    exact = (n_a * math.exp(a) - n_b * math.exp(b)) / (n_a * math.exp(a) + n_b * math.exp(b))
    denominator = n_a * p_a + n_b * p_b
    if denominator == 0 or not math.isfinite(denominator):
        return math.inf
    return abs(float((n_a * p_a - n_b * p_b) / denominator) - exact)


def worst_pair(approx: Approximation, n: int) -> tuple[float, float, float]:
    """Return ``(a, b, error)``: the two scores of a :data:`PAIR_GRID` grid of [-R, R]
    whose two-score input has the largest finite error, and that error."""
    n_a, n_b = _split(n)
    grid = np.linspace(-approx.radius, approx.radius, PAIR_GRID)
    p = np.polynomial.polynomial.polyval(grid, approx.coefficients)
    e = np.exp(grid)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        approximate = (n_a * p[:, None] - n_b * p[None, :]) / (n_a * p[:, None] + n_b * p[None, :])
        exact = (n_a * e[:, None] - n_b * e[None, :]) / (n_a * e[:, None] + n_b * e[None, :])
        error = np.abs(approximate - exact)
    error = np.where(np.isfinite(error), error, -1.0)
    i, j = np.unravel_index(int(np.argmax(error)), error.shape)
    a, b = float(grid[i]), float(grid[j])
    return a, b, two_score_error(approx, a, b, n)


def entry_inputs(
    pattern: str,
    n: int,
    d: int,
    entry_bound: float,
    approx: Approximation | None = None,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """Return Q, K, V (n x d) of the family ``pattern``, Q and K entries within the bound.

    ``two-scores`` needs the polynomial (``approx``) to choose its scores.

    Raises
    ------
    AlgorithmParameterError
        An unknown pattern, or ``two-scores`` without ``approx``.

    Examples
    --------
    >>> data = entry_inputs("constant", 4, 2, 0.5)
    >>> bool((data["K"] == data["K"][0]).all() and abs(data["Q"]).max() <= 0.5)
    True
    """
    _check(pattern)
    rng = np.random.default_rng(seed)
    if pattern == "uniform":
        Q, K = (rng.uniform(-entry_bound, entry_bound, (n, d)) for _ in range(2))
        return {"Q": Q, "K": K, "V": rng.standard_normal((n, d))}
    if pattern == "constant":
        Q = rng.uniform(-entry_bound, entry_bound, (n, d))
        K = np.tile(rng.uniform(-entry_bound, entry_bound, (1, d)), (n, 1))
        return {"Q": Q, "K": K, "V": rng.standard_normal((n, d))}
    if approx is None:
        raise AlgorithmParameterError("entries='two-scores' needs the polynomial (approx)")
    a, b, _ = worst_pair(approx, n)
    scale = d * entry_bound
    rows = np.where(np.arange(n) % 2 == 0, a / scale, b / scale)
    K = np.clip(np.repeat(rows[:, None], d, axis=1), -entry_bound, entry_bound)
    V = np.repeat(np.where(np.arange(n) % 2 == 0, 1.0, -1.0)[:, None], d, axis=1)
    return {"Q": np.full((n, d), float(entry_bound)), "K": K, "V": V}


def known_error(
    pattern: str, n: int, d: int, entry_bound: float, approx: Approximation, seed: int = 0
) -> float | None:
    """The entrywise error ``max|O~ - O| / max|V|`` of polynomial attention on the inputs
    :func:`entry_inputs` builds, from its closed form; None for ``uniform`` (unknown) and
    where the polynomial vanishes on a ``constant`` input's scores."""
    _check(pattern)
    if pattern == "uniform":
        return None
    data = entry_inputs(pattern, n, d, entry_bound, approx, seed)
    if pattern == "constant":
        scores = data["Q"] @ data["K"][0]
        values = np.polynomial.polynomial.polyval(scores, approx.coefficients)
        return 0.0 if bool(np.all(values != 0)) else None
    scores = data["K"] @ data["Q"][0]  # as realised in floats: a on even keys, b on odd
    return two_score_error(approx, float(scores[0]), float(scores[-1 if n < 2 else 1]), n)


__all__ = [
    "ENTRY_PATTERNS",
    "KNOWN",
    "PAIR_GRID",
    "entry_inputs",
    "known_error",
    "two_score_error",
    "worst_pair",
]
