"""An independent exact cross-check: red-blue pebbling as a time-indexed SAT problem in z3.

:func:`sat_optimum` encodes "a pebbling of at most ``k`` I/O moves in at most ``T``
steps" as a propositional formula and finds the least ``k`` that z3 can satisfy. Nothing
of the A* solver (:mod:`.exact`) is reused: no pruning rule, no heuristic, only the
rules of docs/game.md (HK81; one-shot PW20) written as constraints.

Encoding (``t = 0 .. T-1``, ``v`` a vertex): booleans ``red[t][v]``, ``blue[t][v]``
(states ``0..T``) and move choices ``load``, ``store``, ``compute``, ``delete``. One step
is any number of red deletions followed by at most one load, store or compute:

- ``kept = red[t][v] and not delete[t][v]``; ``delete[t][v]`` needs ``red[t][v]``;
- ``load[t][v]`` needs ``blue[t][v]`` and not ``kept``; ``store[t][v]`` needs ``kept``
  and not ``blue[t][v]``; ``compute[t][v]`` needs ``v`` non-input, not ``kept``, and
  ``kept`` on every predecessor (the new pebble counts toward M: no sliding);
- ``red[t+1][v] = kept or load or compute``; ``blue[t+1][v] = blue[t][v] or store``;
- at most ``M`` red pebbles in every state (the count after the deletions of a step is
  at most the count before it, so every intermediate position is covered);
- one-shot: each vertex is computed in at most one step;
- ``red[0]`` empty, ``blue[0]`` = the inputs; every output blue in state ``T``;
- cost: at most ``k`` of the ``load``/``store`` variables are true.

Every model decodes to a move list that :func:`~attnio.pebble.moves.replay` accepts
(the driver checks it), so the minimum found is always at least IO(G, M).

Horizon. Grouping each run of deletions with the move after it (and dropping trailing
deletions), a pebbling with ``q`` I/O moves and ``c`` computes fits in ``q + c`` steps.
In the one-shot variant ``c`` is at most the number of non-inputs ``n``, so when the
least satisfiable bound is ``k`` and ``T >= k - 1 + n``, every pebbling cheaper than
``k`` would have fitted the horizon and none exists: ``k = IO(G, M)`` is *proven*. In
the standard variant recomputation makes ``c`` unbounded a priori, so the result is
only "optimal within horizon T" (an upper bound on Q), and is reported as such.

References
----------
HK81 (the game); PW20 (one-shot). The encoding follows the usual bounded-model-checking
scheme of planning as satisfiability.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from attnio.bounds.arguments import positive_number

from .dag import Dag
from .errors import InstanceTooLargeError, PebbleParameterError
from .moves import Move, check_variant, replay
from .player import play
from .variants import GAME_VARIANTS, Variant

__all__ = ["MAX_SAT_VERTICES", "SatOptimum", "sat_optimum"]

MAX_SAT_VERTICES = 24
"""The largest graph :func:`sat_optimum` encodes (the formula grows as V x T)."""

STATUSES = ("optimal", "optimal-within-horizon", "none-within-horizon", "unknown")
"""What a :class:`SatOptimum` can say, strongest first."""


@dataclass(frozen=True)
class SatOptimum:
    """The outcome of :func:`sat_optimum`.

    ``status`` is one of :data:`STATUSES`: ``"optimal"`` (``io`` is IO(G, M), proven via
    the one-shot horizon argument), ``"optimal-within-horizon"`` (``io`` is the least
    cost of a pebbling of at most ``horizon`` steps, an upper bound on Q),
    ``"none-within-horizon"`` (no pebbling fits, ``io`` is None) or ``"unknown"`` (z3 gave
    up or timed out; ``io`` is the best pebbling found so far, or None).
    """

    status: str
    io: int | None
    horizon: int
    variant: str
    M: int
    seconds: float
    moves: list[Move] | None = field(default=None, compare=False, repr=False)

    @property
    def proven(self) -> bool:
        """True when ``io`` is proven to be IO(G, M)."""
        return self.status == "optimal"


def sat_optimum(
    dag: Dag,
    M: int,
    *,
    variant: str = "standard",
    horizon: int | None = None,
    timeout: float | None = None,
) -> SatOptimum:
    """Return the least I/O of a pebbling of at most ``horizon`` steps, found by z3.

    Parameters
    ----------
    dag : Dag
        At most :data:`MAX_SAT_VERTICES` vertices.
    M : int
        Red pebbles, at least ``dag.min_memory``.
    variant : {"standard", "oneshot"}
        Recomputation allowed (HK81) or not (PW20).
    horizon : int, optional
        Number of steps ``T``. Default: the I/O of a greedy pebbling plus the number of
        non-inputs, which in the one-shot variant is always enough for a proof.
    timeout : float, optional
        Seconds for each z3 call; a timeout gives status ``"unknown"``.

    Returns
    -------
    SatOptimum
        See its docstring; ``moves`` is a pebbling of cost ``io`` checked by ``replay``.

    Raises
    ------
    InstanceTooLargeError
        More than :data:`MAX_SAT_VERTICES` vertices.
    MemoryTooSmallError, PebbleParameterError
        ``M`` too small; bad variant, horizon or timeout.

    References
    ----------
    HK81, PW20 (rules); the horizon argument is in the module docstring.

    Examples
    --------
    >>> g = Dag.from_edges(["a", "b", "c"], [(0, 2), (1, 2)])
    >>> r = sat_optimum(g, 3, variant="oneshot")
    >>> r.status, r.io
    ('optimal', 3)
    """
    start = time.perf_counter()
    check_variant(variant)
    if not isinstance(dag, Dag):
        raise PebbleParameterError(f"dag must be an attnio.pebble.Dag, got {type(dag).__name__}")
    if dag.num_vertices > MAX_SAT_VERTICES:
        raise InstanceTooLargeError(
            f"graph has {dag.num_vertices} vertices; the SAT cross-check encodes at most "
            f"{MAX_SAT_VERTICES} (its formula grows as vertices x horizon)"
        )
    M = dag.validate_memory(M)
    noninputs = int((dag.indegree > 0).sum())
    if horizon is None:
        horizon = play(dag, M).io + noninputs
    if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 0:
        raise PebbleParameterError(f"horizon={horizon!r} must be a non-negative integer")
    if timeout is not None:
        positive_number("timeout", timeout, PebbleParameterError)

    oneshot = not GAME_VARIANTS[Variant(variant)].recomputation
    encoding = _Encoding(dag, M, oneshot, horizon)
    solver = z3.Solver()
    if timeout is not None:
        solver.set("timeout", max(1, int(timeout * 1000)))
    solver.add(*encoding.constraints)
    costs = encoding.costs
    k = 0
    while k <= len(costs):
        solver.push()
        solver.add(z3.AtMost(*costs, k) if costs else z3.BoolVal(True))
        answer = solver.check()
        if answer == z3.sat:
            moves = encoding.decode(solver.model())
            solver.pop()
            played = replay(dag, moves, M, variant)
            if played.io != k:  # k - 1 was unsatisfiable, so the model costs exactly k
                raise RuntimeError(f"SAT model decodes to io={played.io}, expected {k}")
            proven = oneshot and horizon >= played.io - 1 + noninputs
            status = "optimal" if proven else "optimal-within-horizon"
            seconds = time.perf_counter() - start
            return SatOptimum(status, played.io, horizon, variant, M, seconds, moves)
        solver.pop()
        if answer != z3.unsat:  # z3.unknown: a timeout or resource limit
            return SatOptimum("unknown", None, horizon, variant, M, time.perf_counter() - start)
        k += 1
    return SatOptimum("none-within-horizon", None, horizon, variant, M, time.perf_counter() - start)


class _Encoding:
    """The constraints of the module docstring, with the variables kept for decoding."""

    def __init__(self, dag: Dag, M: int, oneshot: bool, horizon: int) -> None:
        count = dag.num_vertices
        preds = [dag.predecessors(v).tolist() for v in range(count)]
        inputs = [not p for p in preds]
        steps = range(horizon)

        def boolean(name: str, t: int, v: int) -> z3.BoolRef:
            return z3.Bool(f"{name}_{t}_{v}")

        red = [[boolean("red", t, v) for v in range(count)] for t in range(horizon + 1)]
        blue = [[boolean("blue", t, v) for v in range(count)] for t in range(horizon + 1)]
        load = [[boolean("load", t, v) for v in range(count)] for t in steps]
        store = [[boolean("store", t, v) for v in range(count)] for t in steps]
        compute = [
            [boolean("compute", t, v) if not inputs[v] else z3.BoolVal(False) for v in range(count)]
            for t in steps
        ]
        delete = [[boolean("delete", t, v) for v in range(count)] for t in steps]
        cs: list[z3.BoolRef] = []
        cs += [z3.Not(red[0][v]) for v in range(count)]
        cs += [blue[0][v] if inputs[v] else z3.Not(blue[0][v]) for v in range(count)]
        cs += [blue[horizon][v] for v in dag.outputs.tolist()]
        for t in steps:
            kept = [z3.And(red[t][v], z3.Not(delete[t][v])) for v in range(count)]
            mains = [x for v in range(count) for x in (load[t][v], store[t][v], compute[t][v])]
            cs.append(z3.AtMost(*[x for x in mains if not z3.is_false(x)], 1))
            for v in range(count):
                cs.append(z3.Implies(delete[t][v], red[t][v]))
                cs.append(z3.Implies(load[t][v], z3.And(blue[t][v], z3.Not(kept[v]))))
                cs.append(z3.Implies(store[t][v], z3.And(kept[v], z3.Not(blue[t][v]))))
                if not inputs[v]:
                    ready = [kept[p] for p in preds[v]]
                    cs.append(z3.Implies(compute[t][v], z3.And(z3.Not(kept[v]), *ready)))
                cs.append(red[t + 1][v] == z3.Or(kept[v], load[t][v], compute[t][v]))
                cs.append(blue[t + 1][v] == z3.Or(blue[t][v], store[t][v]))
            cs.append(z3.AtMost(*red[t + 1], M))
        if oneshot and horizon > 1:
            for v in range(count):
                if not inputs[v]:
                    cs.append(z3.AtMost(*[compute[t][v] for t in steps], 1))
        self.constraints = cs
        self.costs = [x for t in steps for v in range(count) for x in (load[t][v], store[t][v])]
        self._vars = (load, store, compute, delete)
        self._count = count
        self._horizon = horizon

    def decode(self, model: z3.ModelRef) -> list[Move]:
        """The move list of a model: each step's deletions, then its main move."""
        load, store, compute, delete = self._vars
        moves: list[Move] = []
        for t in range(self._horizon):
            true = [v for v in range(self._count) if z3.is_true(model.eval(delete[t][v], True))]
            moves += [Move("delete", v) for v in true]
            for op, grid in (("load", load), ("store", store), ("compute", compute)):
                for v in range(self._count):
                    if z3.is_true(model.eval(grid[t][v], True)):
                        moves.append(Move(op, v))
        return moves
