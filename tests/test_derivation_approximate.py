"""The hand lemmas of proofs/derivations/approximate-compulsory.md, tested numerically.

z3 checks the algebra (``derivation/approximate-compulsory/*``); the estimates of how far
one flipped input word moves the exact output (forward) or gradient (backward) on the
derivation's hard input are hand proofs. Each is checked here against the exact
attention of :mod:`attnio.algorithms.reference` at many sizes: the largest move of any
output entry is at least the derivation's bound for every word of every input.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from attnio.algorithms.reference import attention, gradients
from attnio.proofs.check import check
from attnio.proofs.derivation import derivations


def _hard_input(n: int, d: int, B: float) -> tuple[np.ndarray, ...]:
    """Q = B, K and V rows of sign tau_j (floor(n/2) negative keys), dO = B."""
    tau = np.array([1.0] * (n - n // 2) + [-1.0] * (n // 2))
    K = B * np.repeat(tau[:, None], d, axis=1)
    return np.full((n, d), B), K, K.copy(), np.full((n, d), B)


def _moves(n: int, d: int, B: float, backward: bool) -> dict[str, float]:
    """For each input matrix, the least over its words of the largest output move."""
    Q, K, V, dO = _hard_input(n, d, B)
    names = ("Q", "K", "V", "dO") if backward else ("Q", "K", "V")

    def outputs(args: dict[str, np.ndarray]) -> np.ndarray:
        if backward:
            g = gradients(args["Q"], args["K"], args["V"], args["dO"])
            return np.concatenate([g.dQ, g.dK, g.dV])
        return attention(args["Q"], args["K"], args["V"]).O

    base_args = {"Q": Q, "K": K, "V": V, "dO": dO}
    base = outputs(base_args)
    least = {}
    for name in names:
        worst = math.inf
        for i, k in itertools.product(range(n), range(d)):
            flipped = {key: value.copy() for key, value in base_args.items()}
            flipped[name][i, k] = -flipped[name][i, k]
            worst = min(worst, float(np.max(np.abs(outputs(flipped) - base))))
        least[name] = worst
    return least


SIZES = [(n, d, B) for n in (2, 3, 4, 7) for d in (1, 2, 3) for B in (0.3, 0.7, 1.0)]


@pytest.mark.parametrize(("n", "d", "B"), SIZES)
def test_every_flipped_word_moves_an_output_by_the_stated_amount(n, d, B):
    """On the hard input, flipping any word of Q, K, V (and dO) moves some output entry
    (gradient entry) by at least the derivation's bound for that matrix."""
    u, h = math.exp(-2 * d * B * B), 1 - math.exp(-2 * B * B)
    forward = _moves(n, d, B, backward=False)
    stated = {"V": 2 * B * u / n, "K": 2 * B * h * u / (3 * n), "Q": B**3 * u}
    for name, bound in stated.items():
        assert forward[name] >= bound * (1 - 1e-9), (name, forward[name], bound)
    backward = _moves(n, d, B, backward=True)
    stated = {"dO": 2 * B * u / n, "V": B**3 * u * u / n, "K": B * h * u / 3,
              "Q": B * h * u / (2 * n)}  # fmt: skip
    for name, bound in stated.items():
        assert backward[name] >= bound * (1 - 1e-9), (name, backward[name], bound)


def test_one_query_row_is_not_read_at_n_1():
    """At n = 1 the output is V whatever Q and K are: the records' n >= 2 is needed."""
    assert _moves(1, 2, 1.0, backward=False)["Q"] == 0.0


def test_every_step_is_proved():
    """Every algebraic step of the derivation is proved by z3."""
    derivation = next(x for x in derivations() if x.file == "approximate-compulsory.md")
    assert derivation.path.is_file() and len(derivation.steps) == 17
    for step in derivation.steps:
        assert check(step).status == "proved", step.name


@pytest.mark.parametrize("kind", ["approx-forward", "approx-backward"])
def test_every_input_of_the_polynomial_graphs_has_a_successor(kind):
    """Every input vertex of the polynomial method's graphs feeds some vertex (so each is
    loaded in every pebbling), and the sinks are exactly the 4nd / 7nd the records count
    minus the inputs: nd forward, 3nd backward."""
    from attnio.pebble.builders import build

    for n, d, g in itertools.product((1, 2, 3), (1, 2, 3), (1, 2, 3)):
        dag = build(kind, n, d, degree=g)
        assert all(dag.outdegree[v] > 0 for v in dag.inputs), (kind, n, d, g)
        inputs, outputs = (3, 1) if kind == "approx-forward" else (4, 3)
        assert (len(dag.inputs), len(dag.outputs)) == (inputs * n * d, outputs * n * d)
