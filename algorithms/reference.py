"""Plain NumPy attention and its analytic gradients: the oracle every algorithm is tested against.

Forward (SY24 form, no 1/sqrt(d) scale): ``O = D^{-1} A V`` with ``A = exp(Q K^T)``
restricted to the allowed pairs of an optional mask, ``D = diag(A 1)``; computed
with the row maximum subtracted, which changes no value. Backward (FlashAttention-2
formulation, D23): ``P = exp(S - L)``, ``dV = P^T dO``, ``dP = dO V^T``,
``Dvec = rowsum(dO * O)``, ``dS = P * (dP - Dvec)``, ``dQ = dS K``, ``dK = dS^T Q``.

References
----------
SY24 section 2 (the forward form); D23 Algorithm 2 (the backward formulation).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import AlgorithmParameterError, MaskError


@dataclass(frozen=True)
class Forward:
    """Output ``O`` (n x d) and row log-sum-exp ``L`` (n) of attention."""

    O: np.ndarray
    L: np.ndarray


@dataclass(frozen=True)
class Backward:
    """Gradients ``dQ``, ``dK``, ``dV`` (n x d each) of attention."""

    dQ: np.ndarray  # noqa: N815 (the paper's name)
    dK: np.ndarray  # noqa: N815 (the paper's name)
    dV: np.ndarray  # noqa: N815 (the paper's name)


def check_inputs(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> tuple[int, int]:
    """Return ``(n, d)`` after checking that Q, K, V are finite n x d arrays."""
    arrays = {"Q": Q, "K": K, "V": V}
    shape = np.shape(Q)
    for name, array in arrays.items():
        if np.ndim(array) != 2 or np.shape(array) != shape:
            raise AlgorithmParameterError(
                f"{name} has shape {np.shape(array)}; Q, K, V must all be n x d, Q is {shape}"
            )
        if not np.all(np.isfinite(array)):
            raise AlgorithmParameterError(f"{name} has non-finite entries; give finite floats")
    return int(shape[0]), int(shape[1])


def check_mask(mask: np.ndarray | None, n: int) -> np.ndarray | None:
    """Return ``mask`` as a boolean n x n array after checking its shape and rows."""
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.shape != (n, n):
        raise MaskError(f"mask has shape {mask.shape}; it must be n x n = {(n, n)}")
    if mask.dtype != bool:
        if not np.all(np.isin(mask, (0, 1))):
            raise MaskError("mask entries must be 0/1 or booleans")
        mask = mask.astype(bool)
    empty = np.flatnonzero(~mask.any(axis=1))
    if empty.size:
        raise MaskError(
            f"mask row {int(empty[0])} allows no key; every row needs an allowed entry "
            f"({empty.size} empty rows)"
        )
    return mask


def attention(
    Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None
) -> Forward:
    """Return attention's output and row log-sum-exp, by the definition.

    Examples
    --------
    >>> import numpy as np
    >>> out = attention(np.zeros((2, 1)), np.zeros((2, 1)), np.array([[1.0], [3.0]]))
    >>> out.O.ravel().tolist(), np.round(out.L, 6).tolist()
    ([2.0, 2.0], [0.693147, 0.693147])
    """
    n, _ = check_inputs(Q, K, V)
    mask = check_mask(mask, n)
    S = Q @ K.T
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    m = S.max(axis=1, keepdims=True)
    A = np.exp(S - m)
    row = A.sum(axis=1, keepdims=True)
    return Forward(O=(A @ V) / row, L=(m + np.log(row)).ravel())


def gradients(
    Q: np.ndarray,
    K: np.ndarray,
    V: np.ndarray,
    dO: np.ndarray,
    mask: np.ndarray | None = None,
) -> Backward:
    """Return ``dQ, dK, dV`` of ``sum(dO * O)`` by the analytic formulas (D23).

    Examples
    --------
    >>> import numpy as np
    >>> g = gradients(np.zeros((2, 1)), np.zeros((2, 1)), np.ones((2, 1)), np.ones((2, 1)))
    >>> g.dV.ravel().tolist()
    [1.0, 1.0]
    """
    forward = attention(Q, K, V, mask)
    S = Q @ K.T
    P = np.exp(S - forward.L[:, None])
    if mask is not None:
        P = np.where(check_mask(mask, Q.shape[0]), P, 0.0)
    dV = P.T @ dO
    dP = dO @ V.T
    Dvec = np.sum(dO * forward.O, axis=1, keepdims=True)
    dS = P * (dP - Dvec)
    return Backward(dQ=dS @ K, dK=dS.T @ Q, dV=dV)


def relative_error(got: np.ndarray, want: np.ndarray) -> float:
    """Return ``max|got - want| / max(max|want|, tiny)``: the error the tests bound."""
    scale = max(float(np.max(np.abs(want))), np.finfo(float).tiny)
    return float(np.max(np.abs(got - want))) / scale
