"""Polynomial-method attention: a low-rank streaming schedule whose I/O is linear in n.

Approximate ``exp`` on the score range ``[-R, R]``, ``R = d B^2`` (entries of Q and
K bounded by B), by the degree-g Chebyshev interpolant ``p(x) = sum_t c_t x^t``.
Expanding ``(q . k)^t`` by the multinomial theorem gives ``p(q . k) = phi(q) . psi(k)``
with one feature per monomial of degree at most g in d variables,
``r = C(d + g, g)`` of them: ``psi(k)_alpha = k^alpha``,
``phi(q)_alpha = c_|alpha| (|alpha|! / alpha!) q^alpha``. Then
``O_i ~ phi(q_i)^T W / phi(q_i)^T w`` with ``[W | w] = psi(K)^T [V | 1]`` (r x (d + 1)).

Schedule. When ``r (d + 2) + 2d + 1 <= M`` the whole of ``[W | w]`` stays in fast
memory: stream K, V once to build it, then Q once to emit O, 4nd words in all.
Otherwise its rows are cut into feature blocks of ``F = floor(M / (2(d + 2)))``:
each block is built from one pass over K, V and written out, and each block of
``R = floor(M / (2(2d + 1)))`` query rows reads every feature block back:
``2nd ceil(r / F) + r (d + 1)(1 + ceil(n / R)) + 2nd`` words, O(nd + n r d^2 / M).

The row loops charge a one-row feature buffer (r or F words); numeric mode
evaluates each row loop as one NumPy product, which computes the same sums.

Error. Chebyshev interpolation at g + 1 nodes on [-R, R] has
``|p - exp| <= delta = e^R R^(g+1) / (2^g (g+1)!)``. With ``exp >= e^-R`` on the
range, every output entry is within ``2 delta max|V| / (e^-R - delta)`` of exact
attention when ``delta < e^-R`` (the bound is infinite otherwise).

References
----------
theory.md section 5; AS23 (the polynomial method, rank ``n^{o(1)}`` for bounded
entries); SZP26 (I/O almost linear in n, claimed).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.polynomial import Chebyshev, Polynomial

from .errors import ParameterError
from .machine import TwoLevelMachine, blocks

ROUNDING_SLACK = 1e-10
"""Absolute allowance for float64 rounding added to the stated error bound."""


@dataclass(frozen=True)
class Approximation:
    """The polynomial that replaces exp, with its monomial coefficients and its error."""

    degree: int
    radius: float
    coefficients: tuple[float, ...]
    delta: float

    def output_bound(self, v_max: float) -> float:
        """Return the bound on ``|O~ - O|`` entrywise, for ``max|V| = v_max``."""
        floor = math.exp(-self.radius) - self.delta
        if floor <= 0:
            return math.inf
        return 2 * self.delta * v_max / floor + ROUNDING_SLACK


def approximate_exp(degree: int, radius: float) -> Approximation:
    """Return the Chebyshev interpolant of exp of ``degree`` on ``[-radius, radius]``.

    Examples
    --------
    >>> a = approximate_exp(6, 1.0)
    >>> round(sum(a.coefficients), 6), a.delta < 2e-5
    (2.718282, True)
    """
    if isinstance(degree, bool) or not isinstance(degree, int) or degree < 0:
        raise ParameterError(f"degree={degree!r} must be a nonnegative integer")
    if not (radius > 0 and math.isfinite(radius)):
        raise ParameterError(f"score radius {radius!r} must be positive and finite")
    cheb = Chebyshev.interpolate(np.exp, degree, domain=[-radius, radius])
    poly = cheb.convert(kind=Polynomial, domain=[-radius, radius], window=[-radius, radius])
    coefficients = tuple(np.pad(poly.coef, (0, degree + 1 - len(poly.coef))).tolist())
    delta = math.exp(radius) * radius ** (degree + 1) / (2**degree * math.factorial(degree + 1))
    return Approximation(degree, float(radius), coefficients, delta)


@cache
def _monomials(d: int, degree: int) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
    """Multisets of coordinates of size <= degree, and their multinomial weights t!/alpha!."""
    indices, weights = [], []
    for t in range(degree + 1):
        for combo in itertools.combinations_with_replacement(range(d), t):
            indices.append(combo)
            counts = np.bincount(np.array(combo, dtype=int), minlength=d) if combo else []
            weights.append(math.factorial(t) / math.prod(math.factorial(c) for c in counts))
    return tuple(indices), np.array(weights)


def feature_rank(d: int, degree: int) -> int:
    """Return ``r = C(d + g, g)``, the number of features."""
    return math.comb(d + degree, degree)


def key_features(X: np.ndarray, degree: int, lo: int = 0, hi: int | None = None) -> np.ndarray:
    """Return ``psi`` of the rows of X, features ``lo:hi`` (monomials ``x^alpha``)."""
    indices, _ = _monomials(X.shape[1], degree)
    chosen = indices[lo:hi]
    out = np.empty((X.shape[0], len(chosen)))
    for col, combo in enumerate(chosen):
        out[:, col] = np.prod(X[:, list(combo)], axis=1) if combo else 1.0
    return out


def query_features(X: np.ndarray, approx: Approximation, lo: int = 0,
                   hi: int | None = None) -> np.ndarray:
    """Return ``phi`` of the rows of X, features ``lo:hi``: ``c_t (t!/alpha!) x^alpha``."""
    indices, weights = _monomials(X.shape[1], approx.degree)
    scale = np.array([approx.coefficients[len(c)] for c in indices]) * weights
    return key_features(X, approx.degree, lo, hi) * scale[lo:hi]


def schedule(n: int, d: int, r: int, M: int) -> tuple[bool, int, int]:
    """Return ``(resident, F, R)``: whether [W | w] stays in fast memory, feature and row blocks."""
    if r * (d + 2) + 2 * d + 1 <= M:
        return True, r, (M - r * (d + 2)) // (2 * d + 1)
    features, rows = M // (2 * (d + 2)), M // (2 * (2 * d + 1))
    if features < 1 or rows < 1:
        raise ParameterError(
            f"low-rank: M={M} holds neither [W | w] ({r} x {d + 1}) nor one feature block; "
            f"it needs M >= {min(4 * d + 2, r * (d + 2) + 2 * d + 1)}"
        )
    return False, features, rows


def low_rank_forward(machine: TwoLevelMachine, n: int, d: int, *, degree: int,
                     approx: Approximation | None) -> None:
    """Run the streaming polynomial-attention schedule: reads Q, K, V; writes O."""
    mc, numeric = machine, machine.numeric
    r = feature_rank(d, degree)
    resident, F, R = schedule(n, d, r, machine.M)
    mc.create("O", n, d)
    feature_blocks = blocks(r, F)
    if not resident:
        mc.create("W", r, d + 1)
    for f, (f0, f1) in enumerate(feature_blocks):
        mc.step(f"build [W | w] rows {f0}:{f1} from K, V")
        W = mc.alloc(f"W{f}", f1 - f0, d + 1)
        for i0, i1 in blocks(n, R):
            Kb = mc.load("Kb", "K", i0, i1, 0, d)
            Vb = mc.load("Vb", "V", i0, i1, 0, d)
            mc.alloc("psi", f1 - f0)
            if numeric:
                psi = key_features(Kb, degree, f0, f1)
                W[:, :d] += psi.T @ Vb
                W[:, d] += psi.sum(axis=0)
            mc.free("Kb", "Vb", "psi")
        if not resident:
            mc.store(f"W{f}", "W", f0, f1, 0, d + 1)
            mc.free(f"W{f}")
    mc.step("emit O from Q and [W | w]")
    for i0, i1 in blocks(n, R):
        Qb = mc.load("Qb", "Q", i0, i1, 0, d)
        num = mc.alloc("num", i1 - i0, d)
        den = mc.alloc("den", i1 - i0)
        for f, (f0, f1) in enumerate(feature_blocks):
            W = mc.data("W0") if resident else mc.load("Wf", "W", f0, f1, 0, d + 1)
            mc.alloc("phi", f1 - f0)
            if numeric:
                phi = query_features(Qb, approx, f0, f1)
                num += phi @ W[:, :d]
                den += phi @ W[:, d:]
            mc.free("phi")
            if not resident:
                mc.free("Wf")
        if numeric:
            num /= den
        mc.store("num", "O", i0, i1, 0, d)
        mc.free("Qb", "num", "den")
    if resident:
        mc.free("W0")
