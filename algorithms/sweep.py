"""Sweeps of fast-memory size M: measured I/O of several algorithms with the catalog's bounds.

:func:`sweep` runs the algorithms in counting mode over a geometric grid of M and
collects, at each M, the measured I/O, the explicit lower bounds of the catalog
that apply, and the tight bound; ``attnio.figures.sweep_figure`` turns it into a figure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from attnio.bounds import Kind, Regime, catalog, crossover, get

from .errors import AlgorithmParameterError, BlocksDoNotFitError, SweepInterrupted
from .registry import get_algorithm
from .simulation import simulate


@dataclass(frozen=True)
class Sweep:
    """Measured I/O per algorithm and bound values over a grid of M."""

    n: int
    d: int
    pass_: str
    memories: list[int]
    measured: dict[str, list[float | None]] = field(default_factory=dict)
    closed: dict[str, list[float | None]] = field(default_factory=dict)
    lower: dict[str, list[float | None]] = field(default_factory=dict)
    tight: list[float] = field(default_factory=list)
    crossover: float | None = None

    def to_dict(self) -> dict[str, object]:
        """Return the JSON-ready fields: one row per algorithm and M, then the bounds.

        Measured and closed-form counts are integers (``None`` where M is below an
        algorithm's minimum); bound values are floats.
        """
        rows = [
            {
                "algorithm": name,
                "pass": self.pass_,
                "n": self.n,
                "d": self.d,
                "M": M,
                "io": None if io is None else int(io),
                "closed_form": None if closed is None else int(closed),
            }
            for name, values in self.measured.items()
            for M, io, closed in zip(self.memories, values, self.closed[name], strict=True)
        ]
        return {
            "results": rows,
            "bounds": {"lower": self.lower, "tight": self.tight, "M": self.memories},
            "crossover": self.crossover,
        }


def parse_range(text: str) -> tuple[int, int]:
    """Parse ``M=lo:hi`` (or ``lo:hi``) into two integers with 1 <= lo < hi.

    Examples
    --------
    >>> parse_range("M=64:4096")
    (64, 4096)
    """
    body = text.removeprefix("M=")
    parts = body.split(":")
    try:
        lo, hi = (int(part) for part in parts)
    except ValueError:
        raise AlgorithmParameterError(
            f"sweep={text!r} must look like M=lo:hi with integers"
        ) from None
    if not 1 <= lo < hi:
        raise AlgorithmParameterError(f"sweep={text!r} needs 1 <= lo < hi")
    return lo, hi


def sweep(
    algorithms: list[str],
    pass_: str,
    n: int,
    d: int,
    lo: int,
    hi: int,
    points: int = 24,
    *,
    progress: Callable[[int, int, str], None] | None = None,
    **options,
) -> Sweep:
    """Run each algorithm at ``points`` geometric values of M in [lo, hi] (counting mode).

    An M below an algorithm's minimum leaves a gap (``None``) for that algorithm.
    Ctrl-C raises :class:`~attnio.algorithms.errors.SweepInterrupted` holding the runs
    finished (the others ``None``, the bounds not computed). ``progress``, if given, is
    called after each run with (runs finished, runs in all, a label such as
    ``"flash M=128"``). ``mask`` and ``window`` go to the algorithms of a mask family
    only (``causal-row-streaming`` ...), ``block_density`` to the block-sparse ones.
    """
    for name in algorithms:
        algo = get_algorithm(name)
        if pass_ not in algo.runners:
            raise AlgorithmParameterError(
                f"{name} has no {pass_} pass; it has: {', '.join(algo.runners)}"
            )
    memories = sorted({round(float(m)) for m in np.geomspace(lo, hi, points)})
    result = Sweep(n, d, pass_, memories)
    total, done = len(algorithms) * len(memories), 0
    for name in algorithms:
        own = {k: v for k, v in options.items() if v is not None}
        if get_algorithm(name).mask_family is not None:
            own.pop("block_density", None)  # a family's mask, built from indices
        else:
            own.pop("mask", None)
            own.pop("window", None)
        if get_algorithm(name).regime is not Regime.SPARSE:
            own.pop("block_density", None)
        if get_algorithm(name).regime is not Regime.APPROXIMATE:
            own.pop("degree", None)
        measured: list[float | None] = []
        closed: list[float | None] = []
        result.measured[name] = measured
        result.closed[name] = closed
        for M in memories:
            try:
                run = simulate(name, pass_, n, d, M, numeric=False, **own)
            except BlocksDoNotFitError:
                run = None
            except KeyboardInterrupt:
                for values in (*result.measured.values(), *result.closed.values()):
                    values.extend([None] * (len(memories) - len(values)))
                raise SweepInterrupted(result) from None
            measured.append(None if run is None else float(run.counts.io))
            closed.append(
                None if run is None or run.closed_form is None else float(run.closed_form)
            )
            done += 1
            if progress is not None:
                progress(done, total, f"{name} M={M}")
    for bound in catalog(regime=Regime.DENSE, pass_=pass_, kind=Kind.LOWER):
        if bound.explicit is None or set(bound.parameters) - {"n", "d", "M"}:
            continue
        values = []
        for M in memories:
            params = {k: v for k, v in {"n": n, "d": d, "M": M}.items() if k in bound.parameters}
            ok = bound.applies(**params)
            values.append(float(bound.evaluate(**params)) if ok else None)
        result.lower[bound.name] = values
    tight = get(f"dense-{pass_}-tight")
    result.tight.extend(float(tight.evaluate(which="asymptotic", n=n, d=d, M=M)) for M in memories)
    point = crossover(tight)
    symbol = next(s for s in point.free_symbols if s.name == "d") if point.free_symbols else None
    value = point.subs(symbol, d) if symbol is not None else point
    object.__setattr__(result, "crossover", float(sp.N(value)))
    return result
