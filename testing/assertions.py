"""Assertions for users' property tests: raise AssertionError with a readable counterexample.

:func:`assert_lower_bound` pebbles a DAG (exactly when it is small, else by the
heuristic order search) and fails when the bound exceeds the proven optimum or the
cost of a real pebbling (every pebbling is replayed by :func:`attnio.pebble.replay`
first, so a heuristic pebbling's cost is an upper bound on the optimum too).
:func:`assert_upper_bound` runs an algorithm on the two-level machine and fails when
it moves more words than the bound allows.
"""

from __future__ import annotations

import sympy as sp

from attnio.bounds import Bound
from attnio.bounds.symbols import ALL


class LowerBoundExceededError(AssertionError):
    """A lower bound above the cost of a replayed pebbling: the counterexample, as data.

    Attributes
    ----------
    dag : Dag
        The graph pebbled.
    memory : int
        The red pebbles M.
    value : sympy.Expr
        The bound's value at the point.
    pebbling : Pebbling
        The pebbling that costs less (``pebbling.moves`` replay with
        :func:`attnio.pebble.replay`; ``pebbling.optimal`` says whether it is proven optimal).
    """

    def __init__(self, message: str, dag: object, memory: int, value: object, pebbling: object):
        super().__init__(message)
        self.dag, self.memory, self.value, self.pebbling = dag, memory, value, pebbling


EXACT_VERTICES = 30
"""DAGs with at most this many vertices are pebbled exactly (within ``max_states``)."""


def _value(bound: Bound, params: dict[str, object]) -> sp.Expr:
    if bound.explicit is None:
        raise ValueError(
            f"bound {bound.name!r} has no explicit expression: an asymptotic bound cannot be "
            "checked at a point"
        )
    used = {k: v for k, v in params.items() if k in bound.parameters}
    missing = sorted(set(bound.parameters) - set(params))
    if missing:
        raise ValueError(f"bound {bound.name!r} needs {missing}; got {sorted(params)}")
    if not bound.applies(**used):
        raise ValueError(
            f"bound {bound.name!r} does not apply at {_show(params)}: its conditions are "
            f"{bound.conditions} (draw points with attnio.testing.points(bound))"
        )
    subs = {ALL[k]: sp.nsimplify(v) for k, v in used.items()}
    return sp.nsimplify(bound.explicit.subs(subs))


def _show(params: dict[str, object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def assert_lower_bound(
    bound: Bound, dag: object, M: int, *, max_states: int = 200_000, **params: object
):
    """Fail if ``bound`` (a lower bound) exceeds the I/O of some pebbling of ``dag``.

    Parameters
    ----------
    bound : Bound
        A lower (or tight) bound with an explicit expression.
    dag : Dag or attnio.testing.strategies.DagInstance
        The graph; a ``DagInstance`` (from :func:`attention_dags`) carries n, d, Z.
    M : int
        Red pebbles (fast-memory words), at least ``dag.min_memory``.
    max_states : int
        State limit of the exact search (no time limit: deterministic).
    **params
        Values of the bound's other symbols (n, d, ...) when ``dag`` is a plain Dag.

    Returns
    -------
    Pebbling
        The pebbling compared with (``optimal`` says whether it is proven optimal).

    Raises
    ------
    LowerBoundExceededError
        (an AssertionError) The bound exceeds the proven optimum, or the cost of a
        replayed pebbling; the message gives the point, both values and how the pebbling
        was found, and the error carries the DAG, M and the pebbling with its moves.
    ValueError
        The bound has no explicit expression, misses a parameter, or does not apply.
    """
    from attnio.pebble import pebble, replay
    from attnio.pebble.exact import EXACT_MAX_VERTICES, solve_exact

    graph = getattr(dag, "dag", dag)
    values = {**getattr(dag, "params", {}), **params, "M": M}
    value = _value(bound, values)
    if graph.num_vertices <= min(EXACT_VERTICES, EXACT_MAX_VERTICES):
        result = solve_exact(graph, M, max_states=max_states)
    else:
        result = pebble(graph, M, heuristic="search", moves=True)
    replayed = replay(graph, result.moves, M).io
    if replayed != result.io:
        raise AssertionError(f"internal: a pebbling reported {result.io} but replays to {replayed}")
    if value > result.io:
        what = (
            f"the proven optimum Q = {result.io}"
            if result.optimal
            else f"a pebbling ({result.method}) that costs {result.io} (replayed)"
        )
        raise LowerBoundExceededError(
            f"lower bound {bound.name!r} = {value} exceeds {what} of a {graph.num_vertices}-vertex "
            f"DAG at {_show(values)}; the error's .pebbling.moves ({len(result.moves)} moves) "
            "replay on its .dag with attnio.pebble.replay",
            graph,
            M,
            value,
            result,
        )
    return result


def assert_upper_bound(bound: Bound, algorithm: str, n: int, d: int, M: int, **options: object):
    """Fail if ``algorithm`` moves more words than ``bound`` (an upper bound) at (n, d, M).

    ``options`` go to :func:`attnio.algorithms.simulate` (``block_density`` or ``mask``
    for sparse algorithms, ``degree`` for low-rank); the mask's s, s_c, Z and the rank r
    are passed to the bound. The pass is the bound's.

    Returns
    -------
    Run
        The counted run.

    Raises
    ------
    AssertionError
        The count exceeds the bound: the message gives the point and both values.
    """
    from attnio.algorithms import ALGORITHMS, simulate
    from attnio.algorithms.machine import blocks
    from attnio.algorithms.masks import (
        block_mask,
        column_weighted_density,
        expand,
        random_block_mask,
        row_weighted_density,
    )

    pass_ = bound.pass_.value
    run = simulate(algorithm, pass_, n, d, M, numeric=False, **options)
    values: dict[str, object] = {"n": n, "d": d, "M": M}
    algo = ALGORITHMS[algorithm]
    if algo.regime == "sparse":
        rows, cols = algo.block_shape(pass_, d, M)
        coarse = options.get("mask")
        if coarse is None:
            coarse = random_block_mask(
                len(blocks(n, rows)), len(blocks(n, cols)), options["block_density"],
                int(options.get("seed", 0)),
            )  # fmt: skip
        coarse = block_mask(coarse, n, rows, cols, algorithm)
        values["s"] = sp.Rational(row_weighted_density(coarse, n, rows))
        values["s_c"] = sp.Rational(column_weighted_density(coarse, n, cols))
        values["Z"] = int(expand(coarse, n, rows, cols).sum())
    if "degree" in options:
        values["g"] = int(options["degree"])
        values.update(run.parameters)
    value = _value(bound, values)
    if run.counts.io > value:
        raise AssertionError(
            f"upper bound {bound.name!r} = {value} is below the {run.counts.io} words that "
            f"{algorithm} {pass_} moves on the two-level machine at {_show(values)} "
            f"(attnio simulate {algorithm} --pass {pass_} --n {n} --d {d} --M {M} --count-only)"
        )
    return run


__all__ = ["EXACT_VERTICES", "LowerBoundExceededError", "assert_lower_bound", "assert_upper_bound"]
