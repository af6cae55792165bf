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
docs/notation.md (approximate attention); AS23 (the polynomial method, rank ``n^{o(1)}`` for bounded
entries); SZP26 (I/O almost linear in n, claimed).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.polynomial import Chebyshev, Polynomial

from attnio.bounds.blocks import (
    LOW_RANK_BACKWARD_BLOCKS,
    LOW_RANK_COLUMN_BACKWARD_BLOCKS,
    LOW_RANK_COLUMN_BLOCKS,
    LOW_RANK_FORWARD_BLOCKS,
    ColumnBackwardRule,
    ColumnRule,
    LowRankRule,
)

from .errors import AlgorithmParameterError, BlocksDoNotFitError
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
        return _output_bound(self.delta, self.radius, v_max)


MAX_DEGREE = 200
"""Highest degree :func:`least_degree` tries (the rank r = C(d + g, g) grows fast with g)."""


def interpolation_error(degree: int, radius: float) -> float:
    """Return ``delta = e^R R^(g+1) / (2^g (g+1)!)``, the bound on ``|p - exp|`` on [-R, R].

    The error of Chebyshev interpolation of exp at ``g + 1`` nodes (module docstring),
    computed in logarithms so that high degrees neither overflow nor need the
    interpolant; ``inf`` where it exceeds the floats.

    Examples
    --------
    >>> interpolation_error(0, 1.0) == math.e
    True
    """
    if isinstance(degree, bool) or not isinstance(degree, int) or degree < 0:
        raise AlgorithmParameterError(f"degree={degree!r} must be a nonnegative integer")
    if not (radius > 0 and math.isfinite(radius)):
        raise AlgorithmParameterError(f"score radius {radius!r} must be positive and finite")
    log_delta = (radius + (degree + 1) * math.log(radius) - degree * math.log(2)
                 - math.lgamma(degree + 2))  # fmt: skip
    return math.exp(log_delta) if log_delta < 700 else math.inf


def _output_bound(delta: float, radius: float, v_max: float) -> float:
    floor = math.exp(-radius) - delta
    if floor <= 0:
        return math.inf
    return 2 * delta * v_max / floor + ROUNDING_SLACK


def error_bound(degree: int, radius: float) -> float:
    """Return the bound on ``|O~ - O| / max|V|`` of polynomial attention at ``degree``.

    It holds entrywise for every input whose scores lie in [-R, R] (entries of Q and K
    within B, ``R = d B^2``): ``2 delta / (e^-R - delta)`` plus :data:`ROUNDING_SLACK`
    (module docstring), ``inf`` when ``delta >= e^-R``. Equal to
    ``approximate_exp(degree, radius).output_bound(1.0)`` without building the
    interpolant, so any degree costs the same.

    Examples
    --------
    >>> error_bound(1, 1.0)
    inf
    >>> error_bound(3, 1.0) < 0.081
    True
    """
    return _output_bound(interpolation_error(degree, radius), radius, 1.0)


def derivative_error(degree: int, radius: float) -> float:
    """Return ``delta' = e^R (2R)^g / g!``, a bound on ``|p' - exp|`` on [-R, R].

    p interpolates exp at g + 1 distinct nodes, so by Rolle ``exp - p`` has a zero
    strictly between consecutive nodes: p' (degree g - 1) interpolates exp' = exp at
    those g distinct points, and the interpolation remainder gives ``|exp(x) - p'(x)|
    = exp(eta) |prod (x - xi_i)| / g! <= e^R (2R)^g / g!`` on [-R, R]. ``inf`` for
    degree 0 (p' = 0, no interpolation) and where it exceeds the floats.

    Examples
    --------
    >>> round(derivative_error(2, 1.0), 6) == round(math.e * 2.0, 6)
    True
    """
    if isinstance(degree, bool) or not isinstance(degree, int) or degree < 0:
        raise AlgorithmParameterError(f"degree={degree!r} must be a nonnegative integer")
    if not (radius > 0 and math.isfinite(radius)):
        raise AlgorithmParameterError(f"score radius {radius!r} must be positive and finite")
    if degree == 0:
        return math.inf
    log_delta = radius + degree * math.log(2 * radius) - math.lgamma(degree + 1)
    return math.exp(log_delta) if log_delta < 700 else math.inf


@dataclass(frozen=True)
class GradientBounds:
    """Entrywise bounds on the error of the approximate gradient against the exact one."""

    dQ: float  # noqa: N815 (the paper's name)
    dK: float  # noqa: N815 (the paper's name)
    dV: float  # noqa: N815 (the paper's name)


def gradient_error_bounds(n: int, d: int, degree: int, entry_bound: float) -> GradientBounds:
    """Return bounds on ``|dQ~ - dQ|``, ``|dK~ - dK|``, ``|dV~ - dV|`` entrywise.

    dQ~, dK~, dV~ are the exact gradients of ``sum(dO * O~)``, O~ polynomial attention
    at ``degree`` on ``[-R, R]``, ``R = d B^2``; dQ, dK, dV those of exact attention
    (D23's formulas: ``dV = P^T dO``, ``dP = dO V^T``, ``D = rowsum(dO * O)``, ``dS = P o
    (dP - D)``, ``dQ = dS K``, ``dK = dS^T Q``). Assumptions: every entry of Q, K, V and
    dO lies in [-B, B] (``B = entry_bound``) and ``delta < e^-R``
    (:func:`interpolation_error`); otherwise the bounds are ``inf``.

    Derivation (docs/results.md#approximate). Scores lie in [-R, R], so ``A = e^s >=
    e^-R`` and ``|p(s) - A| <= delta <= eta A`` with ``eta = delta e^R < 1``;
    likewise ``|p'(s) - A| <= eta' A``, ``eta' = delta' e^R``
    (:func:`derivative_error`). Row sums: ``l~ = l (1 + e)``, ``|e| <= eta``. Hence

    - ``|P~ - P| <= rho P``, ``rho = 2 eta / (1 - eta)``;
    - the gradient of O~ in the scores is ``dS~ = (p'(s) / l~) o (dP - D~)`` with ``D~ =
      rowsum(dO * O~)``, and ``|p'(s) / l~ - P| <= rho' P``, ``rho' = (eta + eta') /
      (1 - eta)``;
    - ``|dP| <= R``, ``|D| <= R`` (``|O| <= B``), ``|D~ - D| <= rho R``, so ``|dS~ - dS|
      <= sigma P`` with ``sigma = R (rho' (2 + rho) + rho)``;
    - rows of P sum to 1 and columns to at most ``C = min(n, e^{2R})`` (``P_ij <=
      e^{2R} / n``): ``|dV~ - dV| <= rho B C``, ``|dQ~ - dQ| <= sigma B``,
      ``|dK~ - dK| <= sigma B C``.

    Each bound adds :data:`ROUNDING_SLACK` times ``1 + n B`` for float64 rounding.

    Examples
    --------
    >>> b = gradient_error_bounds(8, 2, 6, 0.5)
    >>> 0 < b.dQ < 1 and b.dK <= 8 * b.dQ and b.dV < b.dK
    True
    >>> gradient_error_bounds(8, 2, 1, 2.0).dQ
    inf
    """
    for name, value in (("n", n), ("d", d)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise AlgorithmParameterError(f"{name}={value!r} must be a positive integer")
    if not (entry_bound > 0 and math.isfinite(entry_bound)):
        raise AlgorithmParameterError(f"entry_bound={entry_bound!r} must be positive and finite")
    radius = d * entry_bound**2
    eta = interpolation_error(degree, radius) * math.exp(radius)
    eta_prime = derivative_error(degree, radius) * math.exp(radius)
    if not eta < 1 or not math.isfinite(eta_prime):
        return GradientBounds(math.inf, math.inf, math.inf)
    rho = 2 * eta / (1 - eta)
    rho_prime = (eta + eta_prime) / (1 - eta)
    sigma = radius * (rho_prime * (2 + rho) + rho)
    columns = min(float(n), math.exp(min(2 * radius, 700.0)))
    slack = ROUNDING_SLACK * (1 + n * entry_bound)
    B = entry_bound
    return GradientBounds(
        dQ=sigma * B + slack, dK=sigma * B * columns + slack, dV=rho * B * columns + slack
    )


def least_degree(radius: float, epsilon: float, max_degree: int = MAX_DEGREE) -> int | None:
    """Return the least degree g <= ``max_degree`` whose :func:`error_bound` is at most
    ``epsilon``, or None: polynomial attention at that degree is within ``epsilon *
    max|V|`` of exact attention on every input with scores in [-R, R].

    Examples
    --------
    >>> least_degree(1.0, 0.1), least_degree(4.0, 0.1), least_degree(1.0, 1e-30)
    (3, 12, None)
    """
    for degree in range(max_degree + 1):
        if error_bound(degree, radius) <= epsilon:
            return degree
    return None


def approximate_exp(degree: int, radius: float) -> Approximation:
    """Return the Chebyshev interpolant of exp of ``degree`` on ``[-radius, radius]``.

    Examples
    --------
    >>> a = approximate_exp(6, 1.0)
    >>> abs(sum(a.coefficients) - math.e) <= a.delta < 2e-5  # p(1) against e
    True
    """
    if isinstance(degree, bool) or not isinstance(degree, int) or degree < 0:
        raise AlgorithmParameterError(f"degree={degree!r} must be a nonnegative integer")
    if not (radius > 0 and math.isfinite(radius)):
        raise AlgorithmParameterError(f"score radius {radius!r} must be positive and finite")
    cheb = Chebyshev.interpolate(np.exp, degree, domain=[-radius, radius])
    poly = cheb.convert(kind=Polynomial, domain=[-radius, radius], window=[-radius, radius])
    coefficients = tuple(np.pad(poly.coef, (0, degree + 1 - len(poly.coef))).tolist())
    return Approximation(degree, float(radius), coefficients, interpolation_error(degree, radius))


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


def query_features(
    X: np.ndarray, approx: Approximation, lo: int = 0, hi: int | None = None
) -> np.ndarray:
    """Return ``phi`` of the rows of X, features ``lo:hi``: ``c_t (t!/alpha!) x^alpha``."""
    indices, weights = _monomials(X.shape[1], approx.degree)
    scale = np.array([approx.coefficients[len(c)] for c in indices]) * weights
    return key_features(X, approx.degree, lo, hi) * scale[lo:hi]


def _feature_scale(d: int, approx: Approximation) -> np.ndarray:
    indices, weights = _monomials(d, approx.degree)
    return np.array([approx.coefficients[len(c)] for c in indices]) * weights


def monomial_vjp(
    X: np.ndarray, G: np.ndarray, degree: int, lo: int = 0, hi: int | None = None
) -> np.ndarray:
    """Return ``J^T G`` row by row, J the Jacobian of the monomials ``x^alpha`` at each row of X.

    ``G`` holds one cotangent per feature ``lo:hi`` (n x (hi - lo)); the result is n x d.
    """
    indices, _ = _monomials(X.shape[1], degree)
    out = np.zeros_like(X)
    for col, combo in enumerate(indices[lo:hi]):
        for p, coordinate in enumerate(combo):
            rest = combo[:p] + combo[p + 1 :]
            factor = np.prod(X[:, list(rest)], axis=1) if rest else 1.0
            out[:, coordinate] += G[:, col] * factor
    return out


def approximate_attention(
    Q: np.ndarray, K: np.ndarray, V: np.ndarray, approx: Approximation
) -> np.ndarray:
    """Return ``phi(Q) W / phi(Q) w`` directly (the reference of the low-rank forward)."""
    phi, psi = query_features(Q, approx), key_features(K, approx.degree)
    return (phi @ (psi.T @ V)) / (phi @ psi.sum(axis=0))[:, None]


def approximate_gradients(
    Q: np.ndarray, K: np.ndarray, V: np.ndarray, dO: np.ndarray, approx: Approximation
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``dQ, dK, dV`` of ``sum(dO * approximate_attention(Q, K, V))``, analytically.

    With ``num = phi W``, ``den = phi w``, ``O = num / den``: ``dnum = dO / den``,
    ``dden = -rowsum(dO * O) / den``, ``dphi = dnum W^T + dden w^T``,
    ``[dW | dw] = phi^T [dnum | dden]``, ``dV = psi dW``, ``dpsi = V dW^T + 1 dw^T``;
    dQ and dK pull dphi and dpsi back through the monomials.
    """
    scale = _feature_scale(Q.shape[1], approx)
    psi_q, psi = key_features(Q, approx.degree), key_features(K, approx.degree)
    phi = psi_q * scale
    W, w = psi.T @ V, psi.sum(axis=0)
    den = phi @ w
    out = (phi @ W) / den[:, None]
    dnum = dO / den[:, None]
    dden = -np.sum(dO * out, axis=1) / den
    dphi = dnum @ W.T + np.outer(dden, w)
    dW, dw = phi.T @ dnum, phi.T @ dden
    dQ = monomial_vjp(Q, dphi * scale, approx.degree)
    dK = monomial_vjp(K, V @ dW.T + dw[None, :], approx.degree)
    return dQ, dK, psi @ dW


def schedule(n: int, d: int, r: int, M: int) -> tuple[bool, int, int]:
    """Return ``(resident, F, R)``: whether [W | w] stays in fast memory, feature and row blocks."""
    least = min(4 * d + 2, r * (d + 2) + 2 * d + 1)
    return _fit_feature_blocks(LOW_RANK_FORWARD_BLOCKS, d, r, M, f"[W | w] ({r} x {d + 1})", least)


def _fit_feature_blocks(
    rule: LowRankRule, d: int, r: int, M: int, tables: str, least: int
) -> tuple[bool, int, int]:
    """Return ``(resident, F, R)`` by ``rule``: whether its ``tables`` (named with their
    shape) stay in fast memory, feature and row blocks; refuse M that holds neither the
    tables nor one feature block, naming the ``least`` M that does."""
    if rule.resident(r, d, M):
        return True, r, rule.resident_rows(r, d, M)
    features, rows = rule.features(d, M), rule.rows(d, M)
    if features < 1 or rows < 1:
        raise BlocksDoNotFitError(
            f"{rule.label}: M={M} holds neither {tables} nor one feature block; "
            f"it needs M >= {least}"
        )
    return False, features, rows


def _accumulate_key_features(
    mc: TwoLevelMachine,
    W: np.ndarray | None,
    n: int,
    d: int,
    R: int,
    degree: int,
    f0: int,
    f1: int,
    buffer: str,
) -> None:
    """Add psi(K)^T [V | 1] (feature rows f0:f1) into the fast block ``W`` = [W | w].

    Streams K and V in row blocks of R; per block, loads Kb and Vb, allocates the feature
    row psi, accumulates (numeric mode only) and frees all three.
    """
    for i0, i1 in blocks(n, R):
        Kb = mc.load("Kb", "K", i0, i1, 0, d)
        Vb = mc.load("Vb", "V", i0, i1, 0, d)
        mc.alloc("psi", f1 - f0)
        if mc.numeric:
            psi = key_features(Kb, degree, f0, f1)
            W[:, :d] += psi.T @ Vb
            W[:, d] += psi.sum(axis=0)
        if mc.trace is not None:
            _trace_key_features(mc.trace, n, d, degree, i0, i1, f0, f1, buffer)
        mc.free("Kb", "Vb", "psi")


def _monomial_label(name: str, row: int, combo: tuple[int, ...], inputs: str) -> str:
    """The vertex of :func:`attnio.pebble.builders.approx_forward` for monomial ``combo``
    of row ``row``: the input coordinate for degree 1, ``name[row]^a.b`` above."""
    if len(combo) == 1:
        return f"{inputs}[{row},{combo[0]}]"
    return f"{name}[{row}]^" + ".".join(str(x) for x in combo)


def _chain(name: str, leaf: str, t: int, count: int) -> str:
    """Label of the t-th vertex of a chain summation of ``count`` terms (the builders').

    A sum of one term is its term ``leaf`` (which the builders name ``name`` too only when
    it is computed: with n = 1, ``W[one, k]`` is the input ``V[0, k]``)."""
    if t == 0 and leaf:
        return leaf
    return name if t == count - 1 else f"{name}+{t}"


def _ones_row(n: int, k: int) -> str:
    """The vertex W[one, k] = sum_j V[j, k] (the constant feature's row): V[0, k] when n = 1."""
    return _chain(f"W[one,{k}]", f"V[0,{k}]", n - 1, n)


def _place(tr, label: str, buf: str, at: tuple[int, int] | int, computed: bool) -> None:
    """Put vertex ``label`` into a word: compute it, or bind it when it is an input."""
    if computed:
        tr.compute(label, buf, at)
    else:
        tr.bind(buf, at, label)


def _trace_key_features(
    tr, n: int, d: int, degree: int, i0: int, i1: int, f0: int, f1: int, buffer: str
) -> None:
    """The vertices of :func:`attnio.pebble.builders.approx_forward` one key row block adds
    to feature rows f0..f1 of [W | w] (buffer ``buffer``): per key row j, its monomials
    psi_j (buffer ``psi``; feature 0 is the constant 1, no vertex), the next term of the
    chains W[a, k] = sum_j psi_ja V_jk (feature 0: the column sums of V) and
    w[a] = sum_j psi_ja (feature 0: the constant n, no vertex)."""
    indices, _ = _monomials(d, degree)
    for j in range(i0, i1):
        for f in range(f0, f1):
            combo, a = indices[f], f - 1
            if combo:
                label = _monomial_label("phiK", j, combo, "K")
                _place(tr, label, "psi", f - f0, len(combo) > 1)
            for k in range(d):
                if combo:
                    term = _chain(f"W[{a},{k}]", f"phiKV[{j},{a},{k}]", j, n)
                    tr.compute(term, buffer, (f - f0, k))
                else:
                    term = _chain(f"W[one,{k}]", f"V[{j},{k}]", j, n)
                    _place(tr, term, buffer, (f - f0, k), j > 0)
            if combo:
                term = _chain(f"w[{a}]", _monomial_label("phiK", j, combo, "K"), j, n)
                _place(tr, term, buffer, (f - f0, d), j > 0 or len(combo) > 1)


def _trace_query_features(
    tr, n: int, d: int, degree: int, i0: int, i1: int, f0: int, f1: int
) -> None:
    """The vertices of :func:`attnio.pebble.builders.approx_forward` one feature block of the
    output pass adds for query rows i0..i1: the monomials phi_i (buffer ``phi``), the next
    term of the chains num[i, k] (buffer ``num``; its first term is W[one, k]) and den[i]
    (buffer ``den``; the constant feature's term is a fused constant)."""
    indices, _ = _monomials(d, degree)
    r = len(indices)
    for i in range(i0, i1):
        for f in range(f0, f1):
            combo, a = indices[f], f - 1
            if combo:
                _place(tr, _monomial_label("phiQ", i, combo, "Q"), "phi", f - f0, len(combo) > 1)
                tr.compute(_chain(f"den[{i}]", f"phiQw[{i},{a}]", a, r - 1), "den", i - i0)
            for k in range(d):
                if combo:
                    tr.compute(_chain(f"num[{i},{k}]", "", f, r), "num", (i - i0, k))
                else:
                    tr.bind("num", (i - i0, k), _ones_row(n, k))


def _add_feature_products(
    mc: TwoLevelMachine,
    n: int,
    d: int,
    degree: int,
    approx: Approximation | None,
    rows: tuple[int, int],
    feature_blocks: list[tuple[int, int]],
    held: str | None,
    loaded: str,
) -> None:
    """Add ``phi(Q_I) [W | w]`` to the fast buffers ``num`` and ``den`` of query rows I (Q_I
    in the fast buffer ``Qb``), feature block by feature block, one block of feature rows
    ``phi`` at a time. ``[W | w]`` is the fast buffer ``held`` when resident; with ``held``
    None each feature block of the slow array W is loaded into ``loaded`` and freed after
    its products. A trace records :func:`_trace_query_features`."""
    i0, i1 = rows
    Qb, num, den = mc.data("Qb"), mc.data("num"), mc.data("den")
    for f0, f1 in feature_blocks:
        W = mc.data(held) if held is not None else mc.load(loaded, "W", f0, f1, 0, d + 1)
        mc.alloc("phi", f1 - f0)
        if mc.numeric:
            phi = query_features(Qb, approx, f0, f1)
            num += phi @ W[:, :d]
            den += phi @ W[:, d:]
        if mc.trace is not None:
            _trace_query_features(mc.trace, n, d, degree, i0, i1, f0, f1)
        mc.free("phi")
        if held is None:
            mc.free(loaded)


def low_rank_forward(
    machine: TwoLevelMachine, n: int, d: int, *, degree: int, approx: Approximation | None
) -> None:
    """Run the streaming polynomial-attention schedule: reads Q, K, V; writes O.

    With a :class:`~attnio.algorithms.trace.Trace` attached, the run is recorded as a
    pebbling of :func:`attnio.pebble.builders.approx_forward` (chain trees).
    """
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
        _accumulate_key_features(mc, W, n, d, R, degree, f0, f1, f"W{f}")
        if not resident:
            mc.store(f"W{f}", "W", f0, f1, 0, d + 1)
            mc.free(f"W{f}")
    mc.step("emit O from Q and [W | w]")
    for i0, i1 in blocks(n, R):
        mc.load("Qb", "Q", i0, i1, 0, d)
        num = mc.alloc("num", i1 - i0, d)
        den = mc.alloc("den", i1 - i0)
        held = "W0" if resident else None
        _add_feature_products(mc, n, d, degree, approx, (i0, i1), feature_blocks, held, "Wf")
        if numeric:
            num /= den
        if mc.trace is not None:
            for i in range(i0, i1):
                for k in range(d):
                    mc.trace.compute(f"out[{i},{k}]", "num", (i - i0, k))
        mc.store("num", "O", i0, i1, 0, d)
        mc.free("Qb", "num", "den")
    if resident:
        mc.free("W0")


def column_schedule(d: int, r: int, M: int) -> tuple[int, int]:
    """Return ``(c, R)`` of the column-blocked forward: columns of W per block, rows per block.

    ``c`` and ``R`` by :data:`attnio.bounds.blocks.LOW_RANK_COLUMN_BLOCKS` (``c`` at
    most d); refuses M that holds no block of one column beside w and two rows.
    """
    return _fit_column_blocks(LOW_RANK_COLUMN_BLOCKS, d, r, M, f"w ({r})")


def _fit_column_blocks(
    rule: ColumnRule | ColumnBackwardRule, d: int, r: int, M: int, beside: str
) -> tuple[int, int]:
    """Return ``(c, R)`` by ``rule``: columns of W (or dW) per block, at most d, and rows
    per block; refuse M that holds no block of one column beside ``beside`` (the other
    resident vectors, with their words) and two rows."""
    columns = rule.columns(r, d, M)
    if columns < 1:
        raise BlocksDoNotFitError(
            f"{rule.label}: M={M} holds no column of W ({r} words) beside {beside} and two "
            f"rows; it needs M >= {rule.least_memory(r, d)}"
        )
    return min(columns, d), rule.rows(r, d, M)


def _trace_key_columns(
    tr, n: int, d: int, degree: int, j: int, k0: int, k1: int, with_w: bool
) -> None:
    """The vertices of :func:`attnio.pebble.builders.approx_forward` key row ``j`` adds to
    columns k0..k1 of W (buffer ``Wc``, feature by feature) and, with ``with_w``, to w
    (buffer ``w``): each monomial psi_j^a goes to the one-word buffer ``psi`` and is
    dropped after its products (recomputed for the next column block)."""
    indices, _ = _monomials(d, degree)
    for f, combo in enumerate(indices):
        a = f - 1
        if combo:
            label = _monomial_label("phiK", j, combo, "K")
            _place(tr, label, "psi", 0, len(combo) > 1)
        for k in range(k0, k1):
            if combo:
                term = _chain(f"W[{a},{k}]", f"phiKV[{j},{a},{k}]", j, n)
                tr.compute(term, "Wc", (f, k - k0))
            else:
                term = _chain(f"W[one,{k}]", f"V[{j},{k}]", j, n)
                _place(tr, term, "Wc", (f, k - k0), j > 0)
        if combo and with_w:
            term = _chain(f"w[{a}]", _monomial_label("phiK", j, combo, "K"), j, n)
            _place(tr, term, "w", f, j > 0 or len(combo) > 1)


def _trace_query_columns(
    tr, n: int, d: int, degree: int, i: int, row: int, k0: int, k1: int
) -> None:
    """The vertices of :func:`attnio.pebble.builders.approx_forward` query row ``i`` (word
    ``row`` of its block) computes for columns k0..k1: the monomials (buffer ``phi``, one
    word), the chain of den[i] (recomputed in every column block) and the chains num[i, k]
    (buffer ``num``), then out[i, k]."""
    indices, _ = _monomials(d, degree)
    r = len(indices)
    for f, combo in enumerate(indices):
        a = f - 1
        if combo:
            _place(tr, _monomial_label("phiQ", i, combo, "Q"), "phi", 0, len(combo) > 1)
            tr.compute(_chain(f"den[{i}]", f"phiQw[{i},{a}]", a, r - 1), "den", row)
        for k in range(k0, k1):
            if combo:
                tr.compute(_chain(f"num[{i},{k}]", "", f, r), "num", (row, k - k0))
            else:
                tr.bind("num", (row, k - k0), _ones_row(n, k))
    for k in range(k0, k1):
        tr.compute(f"out[{i},{k}]", "num", (row, k - k0))


def _build_value_columns(
    mc: TwoLevelMachine,
    w: np.ndarray | None,
    n: int,
    d: int,
    degree: int,
    R: int,
    columns: tuple[int, int],
    *,
    with_w: bool,
) -> np.ndarray | None:
    """Return a new fast block ``Wc = psi(K)^T V[:, C]`` (r x c, C = k0..k1), streaming K
    and V[:, C] in row blocks of R with one feature word ``psi``; with ``with_w`` (the
    first column block) add ``psi(K)^T 1`` to the resident ``w`` on the way.

    With a trace attached, each key row's vertices of W's columns C (and w) are recorded
    (:func:`_trace_key_columns`; the same in the forward's and the backward's graphs).
    The caller frees ``Wc``.
    """
    (k0, k1), tr = columns, mc.trace
    Wc = mc.alloc("Wc", feature_rank(d, degree), k1 - k0)
    for i0, i1 in blocks(n, R):
        Kb = mc.load("Kb", "K", i0, i1, 0, d)
        Vb = mc.load("Vb", "V", i0, i1, k0, k1)
        mc.alloc("psi", 1)
        if mc.numeric:
            psi = key_features(Kb, degree)
            Wc += psi.T @ Vb
            if with_w:
                w += psi.sum(axis=0)[:, None]
        if tr is not None:
            for j in range(i0, i1):
                _trace_key_columns(tr, n, d, degree, j, k0, k1, with_w)
        mc.free("Kb", "Vb", "psi")
    return Wc


def column_blocked_forward(
    machine: TwoLevelMachine, n: int, d: int, *, degree: int, approx: Approximation | None
) -> None:
    """Run the column-blocked polynomial-attention forward: reads Q, K, V; writes O.

    ``w = psi(K)^T 1`` (r words) stays in fast memory throughout. For each block C of c
    columns (:func:`column_schedule`): stream K and V[:, C] in row blocks to build
    ``W[:, C] = psi(K)^T V[:, C]`` (r x c, in fast memory; w too in the first block),
    then stream Q in row blocks and write ``O[:, C] = phi(Q) W[:, C] / phi(Q) w``. The
    features are computed one at a time from the row in fast memory and never stored;
    W is never written to slow memory. K and Q are read once per column block:
    ``2nd ceil(d / c) + 2nd`` words (4nd when c >= d). The numerics are
    :func:`approximate_attention`'s (numeric mode evaluates each row block's features
    as one NumPy product).

    With a :class:`~attnio.algorithms.trace.Trace` attached, the run is recorded as a
    pebbling of :func:`attnio.pebble.builders.approx_forward` (chain trees), each
    feature and den[i] recomputed in every column block.
    """
    mc, numeric = machine, machine.numeric
    r = feature_rank(d, degree)
    c, R = column_schedule(d, r, machine.M)
    mc.create("O", n, d)
    w = mc.alloc("w", r)
    for b, (k0, k1) in enumerate(blocks(d, c)):
        mc.step(f"build W[:, {k0}:{k1}] from K, V")
        Wc = _build_value_columns(mc, w, n, d, degree, R, (k0, k1), with_w=b == 0)
        mc.step(f"emit O[:, {k0}:{k1}] from Q, W[:, {k0}:{k1}] and w")
        for i0, i1 in blocks(n, R):
            Qb = mc.load("Qb", "Q", i0, i1, 0, d)
            num = mc.alloc("num", i1 - i0, k1 - k0)
            mc.alloc("den", i1 - i0)
            mc.alloc("phi", 1)
            if numeric:
                phi = query_features(Qb, approx)
                num += (phi @ Wc) / (phi @ w)
            if mc.trace is not None:
                for i in range(i0, i1):
                    _trace_query_columns(mc.trace, n, d, degree, i, i - i0, k0, k1)
            mc.store("num", "O", i0, i1, k0, k1)
            mc.free("Qb", "num", "den", "phi")
        mc.free("Wc")
    mc.free("w")


def column_backward_schedule(d: int, r: int, M: int) -> tuple[int, int]:
    """Return ``(c, R)`` of the column-blocked backward: columns of W or dW per block, rows.

    By :data:`attnio.bounds.blocks.LOW_RANK_COLUMN_BACKWARD_BLOCKS` (``c`` at most d);
    refuses M that holds no block of one column beside w, dw and two rows.
    """
    return _fit_column_blocks(LOW_RANK_COLUMN_BACKWARD_BLOCKS, d, r, M, f"w and dw ({2 * r})")


def _trace_column_dq(
    tr, n: int, d: int, degree: int, i: int, row: int, k0: int, k1: int, share: int, shares: int
) -> None:
    """Step (2)'s vertices of :func:`attnio.pebble.builders.approx_backward_columns` for
    query row i (word ``row`` of its block) and column block ``share`` (k0..k1): den[i],
    num[i, k] and out[i, k] as the forward computes them (:func:`_trace_query_columns`),
    then per column the next term of D[i]'s chain (``Db``) and dnum[i, k] (in out's word);
    in the last block dden[i] (in den's word). A second sweep recomputes
    each feature for its share of dphi (``dphi``, one word), the next term of dw[a]
    (``dw``, last block) and the share's product-rule terms of dQ (``dQb``)."""
    indices, _ = _monomials(d, degree)
    last = share == shares - 1
    _trace_query_columns(tr, n, d, degree, i, row, k0, k1)  # the forward's sweep and out
    for k in range(k0, k1):
        tr.compute(_chain(f"D[{i}]", f"dOO[{i},{k}]", k, d), "Db", row)
        tr.compute(f"dnum[{i},{k}]", "num", (row, k - k0))
    if last:
        tr.compute(f"dden[{i}]", "den", row)
    terms = k1 - k0 + last
    for f, combo in enumerate(indices):
        if not combo:
            continue
        a = f - 1
        _place(tr, _monomial_label("phiQ", i, combo, "Q"), "phi", 0, len(combo) > 1)
        seed = _share(f"dphi[{i},{a}]", share, shares)
        for t in range(terms):
            tr.compute(_chain(seed, f"dnumW[{i},{a},{k0}]", t, terms), "dphi", 0)
        if last:
            tr.compute(_chain(f"dw[{a}]", f"phiQdden[{i},{a}]", i, n), "dw", f)
        _trace_pullback(tr, "dQ", seed, i, row, f, combo, d, degree, share, shares)


def _trace_column_dw(tr, n: int, d: int, degree: int, i: int, row: int, k0: int, k1: int) -> None:
    """Step (3)'s vertices of :func:`attnio.pebble.builders.approx_backward_columns` for
    query row i: den[i] over a sweep of the features (``phi``, ``den``), dnum[i, k] (in
    dO's word of ``dOb``), then a second sweep adding the row's terms to dW[:, k0:k1]
    (``dWc``; the constant feature's row sums dnum)."""
    indices, _ = _monomials(d, degree)
    r = len(indices)
    for f, combo in enumerate(indices[1:], start=1):
        _place(tr, _monomial_label("phiQ", i, combo, "Q"), "phi", 0, len(combo) > 1)
        tr.compute(_chain(f"den[{i}]", f"phiQw[{i},{f - 1}]", f - 1, r - 1), "den", row)
    for k in range(k0, k1):
        tr.compute(f"dnum[{i},{k}]", "dOb", (row, k - k0))
    for f, combo in enumerate(indices):
        a = f - 1
        if combo:
            _place(tr, _monomial_label("phiQ", i, combo, "Q"), "phi", 0, len(combo) > 1)
        for k in range(k0, k1):
            if combo:
                label = _chain(f"dW[{a},{k}]", f"phiQdnum[{i},{a},{k}]", i, n)
                tr.compute(label, "dWc", (f, k - k0))
            else:
                label = _chain(f"dW[one,{k}]", f"dnum[{i},{k}]", i, n)
                _place(tr, label, "dWc", (f, k - k0), i > 0)


def _trace_column_dk(
    tr, d: int, degree: int, j: int, row: int, k0: int, k1: int, share: int, shares: int
) -> None:
    """Step (4)'s vertices of :func:`attnio.pebble.builders.approx_backward_columns` for
    key row j: per feature, the monomial (``psi``), the next terms of dV[j, k0:k1]
    (``dVb``), the block's share of dpsi (``dpsi``; the last block's adds dw[a]) and its
    product-rule terms of dK (``dKb``)."""
    indices, _ = _monomials(d, degree)
    r, last = len(indices), share == shares - 1
    terms = k1 - k0 + last
    for f, combo in enumerate(indices):
        a = f - 1
        if combo:
            _place(tr, _monomial_label("phiK", j, combo, "K"), "psi", 0, len(combo) > 1)
        for k in range(k0, k1):
            label = _chain(f"dV[{j},{k}]", f"dW[one,{k}]", f, r)
            _place(tr, label, "dVb", (row, k - k0), f > 0)
        if not combo:
            continue
        seed = _share(f"dpsi[{j},{a}]", share, shares)
        for t in range(terms):
            tr.compute(_chain(seed, f"VdW[{j},{a},{k0}]", t, terms), "dpsi", 0)
        _trace_pullback(tr, "dK", seed, j, row, f, combo, d, degree, share, shares)


def column_blocked_backward(
    machine: TwoLevelMachine, n: int, d: int, *, degree: int, approx: Approximation | None
) -> None:
    """Run the column-blocked low-rank backward: reads Q, K, V, dO; writes dQ, dK, dV.

    The gradient of :func:`approximate_gradients`, one block C of c columns of W and dW
    at a time (:func:`column_backward_schedule`), with w and dw resident. Per block:
    (1) stream K, V[:, C] to build ``W[:, C]`` (and w in the first block); (2) stream Q,
    dO[:, C] with the partial dQ and ``D = rowsum(dO * O)``: add ``O[:, C]``'s terms to
    D and ``dnum[:, C] W[:, C]^T`` pulled back through the monomials to dQ; in the last
    block D is complete, so ``dden = -D / den`` finishes dQ and builds dw; (3) stream Q,
    dO[:, C] again to build ``dW[:, C] = phi^T dnum[:, C]`` in W's place; (4) stream K,
    V[:, C] with the partial dK: write ``dV[:, C] = psi dW[:, C]`` and add ``V[:, C]
    dW[:, C]^T`` pulled back to dK (and ``1 dw^T`` in the last block). With b =
    ceil(d / c) blocks, ``nd (8b + 3) + 2n (b - 1)`` words; O and L are not read.

    With a :class:`~attnio.algorithms.trace.Trace` attached, the run is recorded as a
    pebbling of :func:`attnio.pebble.builders.approx_backward_columns` with ``block = c``
    (chain trees): dQ and dK accumulate each block's share of the product rule's terms
    in place, so each is one chain over the shares; the features, den[i] and dnum[i, k]
    are recomputed in each step that uses them.
    """
    mc, numeric = machine, machine.numeric
    r = feature_rank(d, degree)
    c, R = column_backward_schedule(d, r, machine.M)
    for name in ("dQ", "dK", "dV", "D"):
        mc.create(name, n, 1 if name == "D" else d)
    scale = _feature_scale(d, approx) if numeric else None
    w = mc.alloc("w", r)
    dw = mc.alloc("dw", r)
    column_blocks = blocks(d, c)
    last = len(column_blocks) - 1
    for b, (k0, k1) in enumerate(column_blocks):
        width = k1 - k0
        mc.step(f"(1) W[:, {k0}:{k1}] from K, V")
        Wc = _build_value_columns(mc, w, n, d, degree, R, (k0, k1), with_w=b == 0)
        mc.step(f"(2) D and dQ through W[:, {k0}:{k1}]")
        for i0, i1 in blocks(n, R):
            Qb = mc.load("Qb", "Q", i0, i1, 0, d)
            dOb = mc.load("dOb", "dO", i0, i1, k0, k1)
            if b == 0:
                dQb = mc.alloc("dQb", i1 - i0, d)
                Db = mc.alloc("Db", i1 - i0)
            else:
                dQb = mc.load("dQb", "dQ", i0, i1, 0, d)
                Db = mc.load("Db", "D", i0, i1, 0, 1)
            mc.alloc("num", i1 - i0, width)
            mc.alloc("den", i1 - i0)
            mc.alloc("phi", 1)
            mc.alloc("dphi", 1)
            if numeric:
                phi = query_features(Qb, approx)
                den = phi @ w
                Db += np.sum(dOb * ((phi @ Wc) / den), axis=1, keepdims=True)
                dphi = (dOb / den) @ Wc.T
                if b == last:
                    dden = -Db / den
                    dw += phi.T @ dden
                    dphi += dden @ w.T
                dQb += monomial_vjp(Qb, dphi * scale, degree)
            if mc.trace is not None:
                for i in range(i0, i1):
                    _trace_column_dq(mc.trace, n, d, degree, i, i - i0, k0, k1, b, last + 1)
            mc.store("dQb", "dQ", i0, i1, 0, d)
            if b < last:
                mc.store("Db", "D", i0, i1, 0, 1)
            mc.free("Qb", "dOb", "dQb", "Db", "num", "den", "phi", "dphi")
        mc.free("Wc")
        mc.step(f"(3) dW[:, {k0}:{k1}] from Q, dO")
        dWc = mc.alloc("dWc", r, width)
        for i0, i1 in blocks(n, R):
            Qb = mc.load("Qb", "Q", i0, i1, 0, d)
            dOb = mc.load("dOb", "dO", i0, i1, k0, k1)
            mc.alloc("den", i1 - i0)
            mc.alloc("phi", 1)
            if numeric:
                phi = query_features(Qb, approx)
                dWc += phi.T @ (dOb / (phi @ w))
            if mc.trace is not None:
                for i in range(i0, i1):
                    _trace_column_dw(mc.trace, n, d, degree, i, i - i0, k0, k1)
            mc.free("Qb", "dOb", "den", "phi")
        mc.step(f"(4) dV[:, {k0}:{k1}] and dK through dW[:, {k0}:{k1}]")
        for i0, i1 in blocks(n, R):
            Kb = mc.load("Kb", "K", i0, i1, 0, d)
            Vb = mc.load("Vb", "V", i0, i1, k0, k1)
            dKb = mc.alloc("dKb", i1 - i0, d) if b == 0 else mc.load("dKb", "dK", i0, i1, 0, d)
            dVb = mc.alloc("dVb", i1 - i0, width)
            mc.alloc("psi", 1)
            mc.alloc("dpsi", 1)
            if numeric:
                psi = key_features(Kb, degree)
                dVb += psi @ dWc
                dpsi = Vb @ dWc.T
                if b == last:
                    dpsi += dw.T
                dKb += monomial_vjp(Kb, dpsi, degree)
            if mc.trace is not None:
                for j in range(i0, i1):
                    _trace_column_dk(mc.trace, d, degree, j, j - i0, k0, k1, b, last + 1)
            mc.store("dKb", "dK", i0, i1, 0, d)
            mc.store("dVb", "dV", i0, i1, k0, k1)
            mc.free("Kb", "Vb", "dKb", "dVb", "psi", "dpsi")
        mc.free("dWc")
    mc.free("w", "dw")


def backward_schedule(d: int, r: int, M: int) -> tuple[bool, int, int]:
    """Return ``(resident, F, R)`` of the low-rank backward; refuse M without room.

    Resident: [W | w] and [dW | dw] stay in fast memory (2 r (d + 1) words) with two
    feature rows (2r) and R rows of four n x d operands plus one scalar per row.
    Blocked: feature blocks of ``F = floor(M / (4(d + 2)))`` rows of [W | w] and
    [dW | dw] (two blocks and two feature rows take at most M / 2) and row blocks of
    ``R = floor(M / (2(4d + 1)))`` (the other M / 2).
    """
    tables = f"[W | w] and [dW | dw] ({r} x {d + 1} each)"
    least = min(2 * r * (d + 2) + 4 * d + 1, max(4 * d + 8, 8 * d + 2))
    return _fit_feature_blocks(LOW_RANK_BACKWARD_BLOCKS, d, r, M, tables, least)


@cache
def _pullback_order(d: int, degree: int) -> tuple[dict, dict]:
    """The product rule's terms of each coordinate in feature order, as
    :func:`attnio.pebble.builders.approx_backward_product` sums them: ``(index, count)``,
    ``index[f, p]`` the place of position p of feature f in its coordinate's tree and
    ``count[c]`` the terms of coordinate c."""
    indices, _ = _monomials(d, degree)
    index, count = {}, dict.fromkeys(range(d), 0)
    for f, combo in enumerate(indices):
        for p, c in enumerate(combo):
            index[f, p] = count[c]
            count[c] += 1
    return index, count


def _share(label: str, share: int, shares: int) -> str:
    """Column block ``share``'s part of ``label`` in
    :func:`attnio.pebble.builders.approx_backward_columns` (``label`` itself for one block)."""
    return label if shares == 1 else f"{label}@{share}"


def _trace_pullback(
    tr,
    name: str,
    seed: str,
    row: int,
    word: int,
    f: int,
    combo,
    d: int,
    degree: int,
    share: int = 0,
    shares: int = 1,
) -> None:
    """Add feature f's terms to the trees of ``name[row, c]`` (buffer ``name + "b"``, row
    ``word``): the seed vertex ``seed`` itself for a degree-1 feature, else the product
    rule's products (:func:`attnio.pebble.builders.approx_backward_product`); with
    ``shares`` column blocks, the terms of block ``share``, which follow the earlier
    blocks' in each chain (:func:`attnio.pebble.builders.approx_backward_columns`)."""
    index, count = _pullback_order(d, degree)
    a = f - 1
    for p, c in enumerate(combo):
        t = share * count[c] + index[f, p]
        rule = _share(f"{name}rule[{row},{a},{p}]", share, shares)
        leaf = seed if len(combo) == 1 else rule
        label = _chain(f"{name}[{row},{c}]", leaf, t, shares * count[c])
        _place(tr, label, f"{name}b", (word, c), t > 0 or len(combo) > 1)


def _trace_gradient_start(tr, d: int, i0: int, i1: int) -> None:
    """out, D = rowsum(dO * out) (in a register), dnum and dden of query rows i0..i1, after
    the first sweep: out[i, k] and then dnum[i, k] take word (i, k) of ``num``, dden[i]
    the word of den[i]."""
    for i in range(i0, i1):
        previous = None
        for k in range(d):
            tr.compute(f"out[{i},{k}]", "num", (i - i0, k))
            term = _chain(f"D[{i}]", f"dOO[{i},{k}]", k, d)
            tr.compute(term)
            if previous is not None:
                tr.release(previous)
            previous = term
            tr.compute(f"dnum[{i},{k}]", "num", (i - i0, k))
        tr.compute(f"dden[{i}]", "den", i - i0)
        tr.release(previous)


def _trace_query_gradients(
    tr, n: int, d: int, degree: int, i0: int, i1: int, f0: int, f1: int
) -> None:
    """The second sweep's vertices for query rows i0..i1 and features f0..f1: monomials
    (``phi``), dphi (``dphi``), the next terms of dW, dw (``dW``) and of dQ (``dQb``)."""
    indices, _ = _monomials(d, degree)
    for i in range(i0, i1):
        for f in range(f0, f1):
            combo, a = indices[f], f - 1
            if not combo:
                for k in range(d):
                    label = _chain(f"dW[one,{k}]", f"dnum[{i},{k}]", i, n)
                    _place(tr, label, "dW", (f - f0, k), i > 0)
                continue
            _place(tr, _monomial_label("phiQ", i, combo, "Q"), "phi", f - f0, len(combo) > 1)
            for t in range(d + 1):
                leaf = f"dnumW[{i},{a},0]"
                tr.compute(_chain(f"dphi[{i},{a}]", leaf, t, d + 1), "dphi", f - f0)
            for k in range(d):
                label = _chain(f"dW[{a},{k}]", f"phiQdnum[{i},{a},{k}]", i, n)
                tr.compute(label, "dW", (f - f0, k))
            tr.compute(_chain(f"dw[{a}]", f"phiQdden[{i},{a}]", i, n), "dW", (f - f0, d))
            _trace_pullback(tr, "dQ", f"dphi[{i},{a}]", i, i - i0, f, combo, d, degree)


def _trace_key_gradients(tr, d: int, degree: int, j0: int, j1: int, f0: int, f1: int) -> None:
    """Pass 3's vertices for key rows j0..j1 and features f0..f1: monomials (``psi``), the
    next terms of dV (``dVb``), dpsi (``dpsi``) and the next terms of dK (``dKb``)."""
    indices, _ = _monomials(d, degree)
    r = len(indices)
    for j in range(j0, j1):
        for f in range(f0, f1):
            combo, a = indices[f], f - 1
            if combo:
                _place(tr, _monomial_label("phiK", j, combo, "K"), "psi", f - f0, len(combo) > 1)
            for k in range(d):
                label = _chain(f"dV[{j},{k}]", f"dW[one,{k}]", f, r)
                _place(tr, label, "dVb", (j - j0, k), f > 0)
            if not combo:
                continue
            for t in range(d + 1):
                tr.compute(_chain(f"dpsi[{j},{a}]", f"VdW[{j},{a},0]", t, d + 1), "dpsi", f - f0)
            _trace_pullback(tr, "dK", f"dpsi[{j},{a}]", j, j - j0, f, combo, d, degree)


def low_rank_backward(
    machine: TwoLevelMachine, n: int, d: int, *, degree: int, approx: Approximation | None
) -> None:
    """Run the low-rank backward: reads Q, K, V, dO; writes dQ, dK, dV.

    Resident (9nd words): pass 1 builds ``[W | w]`` from K, V; pass 2 streams Q, dO,
    recomputes the output, writes dQ and accumulates ``[dW | dw]``; pass 3 streams
    K, V and writes dK, dV. Blocked: pass 1 writes the feature blocks of ``[W | w]``
    and zeroes ``[dW | dw]`` in slow memory; each query row block sweeps the feature
    blocks twice (output, then dQ with a read-modify-write of each ``[dW | dw]``
    block); pass 3 reads every ``[dW | dw]`` block per key row block. The output O is
    recomputed, so the inputs O and L are not read.
    """
    mc, numeric = machine, machine.numeric
    r = feature_rank(d, degree)
    resident, F, R = backward_schedule(d, r, machine.M)
    feature_blocks = blocks(r, F)
    for name in ("dQ", "dK", "dV"):
        mc.create(name, n, d)
    if not resident:
        mc.create("W", r, d + 1)
        mc.create("dW", r, d + 1)
    scale = _feature_scale(d, approx) if numeric else None

    def weights(f0: int, f1: int, name: str) -> np.ndarray | None:
        if resident:
            return mc.data(name)
        return mc.load(name, name, f0, f1, 0, d + 1)

    def release(*names: str) -> None:
        if not resident:
            mc.free(*names)

    mc.step("pass 1: [W | w] = psi(K)^T [V | 1]")
    for f0, f1 in feature_blocks:
        W = mc.alloc("W", f1 - f0, d + 1)
        _accumulate_key_features(mc, W, n, d, R, degree, f0, f1, "W")
        if not resident:
            mc.store("W", "W", f0, f1, 0, d + 1)
            mc.free("W")
            mc.alloc("dW", f1 - f0, d + 1)
            mc.store("dW", "dW", f0, f1, 0, d + 1)
            mc.free("dW")
    if resident:
        mc.alloc("dW", r, d + 1)
    mc.step("pass 2: dQ and [dW | dw] from Q, dO")
    for i0, i1 in blocks(n, R):
        Qb = mc.load("Qb", "Q", i0, i1, 0, d)
        dOb = mc.load("dOb", "dO", i0, i1, 0, d)
        num = mc.alloc("num", i1 - i0, d)
        den = mc.alloc("den", i1 - i0)
        dQb = mc.alloc("dQb", i1 - i0, d)
        held = "W" if resident else None
        _add_feature_products(mc, n, d, degree, approx, (i0, i1), feature_blocks, held, "W")
        if numeric:
            out = num / den
            num[...] = dOb / den  # dnum
            den[...] = -np.sum(dOb * out, axis=1, keepdims=True) / den  # dden
        if mc.trace is not None:
            _trace_gradient_start(mc.trace, d, i0, i1)
        for f0, f1 in feature_blocks:
            W = weights(f0, f1, "W")
            dW = weights(f0, f1, "dW")
            mc.alloc("phi", f1 - f0)
            mc.alloc("dphi", f1 - f0)
            if numeric:
                phi = query_features(Qb, approx, f0, f1)
                dphi = num @ W[:, :d].T + den @ W[:, d:].T
                dW[:, :d] += phi.T @ num
                dW[:, d:] += phi.T @ den
                dQb += monomial_vjp(Qb, dphi * scale[f0:f1], degree, f0, f1)
            if mc.trace is not None:
                _trace_query_gradients(mc.trace, n, d, degree, i0, i1, f0, f1)
            mc.free("phi", "dphi")
            if not resident:
                mc.store("dW", "dW", f0, f1, 0, d + 1)
            release("W", "dW")
        mc.store("dQb", "dQ", i0, i1, 0, d)
        mc.free("Qb", "dOb", "num", "den", "dQb")
    if resident:
        mc.free("W")
    mc.step("pass 3: dK, dV from K, V and [dW | dw]")
    for i0, i1 in blocks(n, R):
        Kb = mc.load("Kb", "K", i0, i1, 0, d)
        Vb = mc.load("Vb", "V", i0, i1, 0, d)
        dKb = mc.alloc("dKb", i1 - i0, d)
        dVb = mc.alloc("dVb", i1 - i0, d)
        for f0, f1 in feature_blocks:
            dW = weights(f0, f1, "dW")
            mc.alloc("psi", f1 - f0)
            mc.alloc("dpsi", f1 - f0)
            if numeric:
                psi = key_features(Kb, degree, f0, f1)
                dVb += psi @ dW[:, :d]
                dpsi = Vb @ dW[:, :d].T + dW[:, d][None, :]
                dKb += monomial_vjp(Kb, dpsi, degree, f0, f1)
            if mc.trace is not None:
                _trace_key_gradients(mc.trace, d, degree, i0, i1, f0, f1)
            mc.free("psi", "dpsi")
            release("dW")
        mc.store("dKb", "dK", i0, i1, 0, d)
        mc.store("dVb", "dV", i0, i1, 0, d)
        mc.free("Kb", "Vb", "dKb", "dVb")
    if resident:
        mc.free("dW")
