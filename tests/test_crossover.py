"""Tests of attnio.bounds.crossover: crossovers are computed from the branches."""

from __future__ import annotations

import pytest
import sympy as sp

from attnio.bounds import RecordError, crossover, get
from attnio.bounds.crossover import min_branches
from attnio.bounds.record import Bound
from attnio.bounds.symbols import Z_QK, M, Z_in, d, n


@pytest.mark.parametrize(
    "name", ["dense-forward-tight", "dense-backward-tight", "dense-forward-lower-any-algorithm"]
)
def test_dense_min_forms_cross_at_d_squared(name: str) -> None:
    """Solving branch equality of each dense min-form bound gives M = d^2."""
    assert crossover(get(name)) == d**2


def test_sparse_inputs_cross_at_their_own_boundary() -> None:
    """The sparse-inputs bound crosses at M = Z_in^2 / Z_QK, which is d^2 at full density."""
    point = crossover(get("sparse-forward-lower-inputs"))
    assert sp.simplify(point - Z_in**2 / Z_QK) == 0
    assert point.subs({Z_in: n * d, Z_QK: n**2}) == d**2


def test_bounds_without_a_min_have_no_crossover() -> None:
    """A bound with no Min has no crossover (None), not an error."""
    assert crossover(get("flash-forward-upper")) is None
    assert min_branches(get("flash-forward-upper")) is None


def _planted(expr: sp.Expr) -> Bound:
    return Bound(
        name="planted",
        kind="tight",
        regime="dense",
        pass_="forward",
        cache="any",
        asymptotic=expr,
        explicit=None,
        conditions=sp.true,
        source="test",
        status="stated",
    )


def test_branches_that_never_meet_are_refused() -> None:
    """Parallel branches (no positive crossing) raise RecordError rather than a made-up point."""
    with pytest.raises(RecordError, match="not at exactly one positive value"):
        crossover(_planted(sp.Min(n**2 / M, d**2 / M)))


def test_a_typo_in_a_branch_moves_the_crossover() -> None:
    """A mistyped branch (d instead of d^2) gives a crossover other than d^2: the check would catch it."""
    assert crossover(_planted(sp.Min(n**2 * d / M, n**2 * d / sp.sqrt(M)))) == 1


def test_multiple_mins_are_refused() -> None:
    """An expression with two Mins has no single crossover and raises RecordError."""
    with pytest.raises(RecordError, match="one two-branch Min"):
        crossover(_planted(sp.Min(n, M) + sp.Min(d, M)))
