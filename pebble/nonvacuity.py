"""Where a derived lower bound says more than the compulsory I/O: the smallest such graphs.

A lower-bound record of the catalog is *vacuous* on an instance when its value does not
exceed the compulsory I/O (every input loaded once, every output stored once,
:func:`attnio.pebble.player.compulsory_io`, the ``*-compulsory`` records): any pebbling
pays that much, so a pebbling or an exact optimum compared with such a value tests nothing
the compulsory bound did not. :func:`smallest_nonvacuous` finds, for one record, the graph
with the fewest vertices (then the smallest M) on which the record applies (its conditions
hold, M at least the DAG's minimum memory) and its value, rounded up, exceeds the
compulsory record; :func:`closest_vacuous` finds, among the graphs the exact solver
accepts (:data:`attnio.pebble.exact.EXACT_MAX_VERTICES` vertices), the instance where the
record comes nearest to the compulsory one. ``benchmarks/nonvacuous.py`` prints both, with
the exact solver's proven lower end on the second (issue 38).

The scan evaluates each record in floating point over a range of M at once and confirms
every candidate exactly (sympy, as ``attnio verify`` evaluates records), so a value within
rounding of the compulsory one is never counted as above it.

References
----------
HK81 (the game); the records' derivations, proofs/derivations/*.md.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import sympy as sp

from attnio.bounds import catalog, get
from attnio.bounds.arguments import positive_integer
from attnio.bounds.record import Bound

from . import builders
from .errors import PebbleParameterError

__all__ = ["Witness", "closest_vacuous", "derived_lower_records", "smallest_nonvacuous"]

_FAMILIES: dict[tuple[str, str | None, str], tuple[str, str]] = {
    ("dense", None, "forward"): ("attention-forward", "dense-forward-compulsory"),
    ("dense", None, "backward"): ("attention-backward", "dense-backward-compulsory"),
    ("sparse", "causal", "forward"): ("sparse-forward", "sparse-forward-compulsory"),
    ("sparse", "causal", "backward"): ("sparse-backward", "sparse-backward-compulsory"),
}
"""(regime, mask, pass) -> (builder kind, compulsory record) of the families scanned."""


class Witness(NamedTuple):
    """One instance of a lower-bound record: its graph, memory, and the two values.

    ``bound`` is the record's value rounded up (as ``attnio verify`` compares it),
    ``compulsory`` the compulsory record's value on the same graph.
    """

    record: str
    kind: str
    mask: str | None
    n: int
    d: int
    M: int
    vertices: int
    compulsory: int
    bound: int

    @property
    def margin(self) -> int:
        """``bound - compulsory``: positive exactly when the record is not vacuous here."""
        return self.bound - self.compulsory


def derived_lower_records() -> tuple[str, ...]:
    """Names of the explicit derived lower records of the dense and causal forward and
    backward passes in (n, d, M), compulsory records excluded, in catalog order."""
    names = []
    for bound in catalog(kind="lower", status="derived"):
        if _family(bound) is not None and not bound.name.endswith("-compulsory"):
            names.append(bound.name)
    return tuple(names)


def smallest_nonvacuous(
    record: str, *, max_vertices: int = 200_000, max_memory: int = 1024
) -> Witness | None:
    """The graph with the fewest vertices on which ``record`` exceeds the compulsory I/O.

    Graphs are visited by vertex count (then n, then d) up to ``max_vertices``; on
    each, M from the DAG's minimum memory to ``max_memory`` (and at most the vertex
    count: with a red pebble for every vertex the compulsory I/O is the optimum). The
    first instance where the record applies and its value rounded up exceeds the
    compulsory record's is returned, ``None`` if none does within the limits. The
    visit is complete: a family's vertex count grows with n and with d (checked on
    every step of the visit), so no graph of fewer vertices is skipped.

    Parameters
    ----------
    record : str
        One of :func:`derived_lower_records`.
    max_vertices, max_memory : int
        The scan's limits.

    Raises
    ------
    PebbleParameterError
        ``record`` is not an explicit lower record of a scanned family; a limit is not a
        positive integer.

    Examples
    --------
    >>> w = smallest_nonvacuous("dense-forward-lower-large-sharp")
    >>> (w.n, w.d, w.M, w.vertices, w.compulsory, w.bound)
    (9, 1, 3, 495, 36, 38)
    """
    bound, kind, compulsory, mask = _resolve(record, max_vertices, max_memory)
    for vertices, n_, d_ in _sizes(kind, mask, max_vertices):
        found = _first_above(bound, compulsory, kind, mask, n_, d_, vertices, max_memory)
        if found is not None:
            return found
    return None


def closest_vacuous(
    record: str, *, max_vertices: int | None = None, max_memory: int = 1024
) -> Witness | None:
    """The instance with at most ``max_vertices`` vertices where ``record`` comes nearest
    to (or above) the compulsory I/O: the largest ``bound - compulsory``, then the most
    vertices, then the smallest M. ``max_vertices`` defaults to the exact solver's limit
    (:data:`attnio.pebble.exact.EXACT_MAX_VERTICES`). ``None`` if the record applies to
    no such instance.

    Examples
    --------
    >>> w = closest_vacuous("dense-forward-lower-large-sharp")
    >>> (w.n, w.d, w.M, w.vertices, w.compulsory, w.bound)
    (1, 1, 3, 7, 4, -2)
    """
    if max_vertices is None:
        from .exact import EXACT_MAX_VERTICES

        max_vertices = EXACT_MAX_VERTICES
    bound, kind, compulsory, mask = _resolve(record, max_vertices, max_memory)
    screened = []  # (value - compulsory in floating point, vertices, n, d, M)
    for vertices, n_, d_ in _sizes(kind, mask, max_vertices):
        memories = np.arange(_min_memory(kind, n_, d_), min(max_memory, vertices) + 1)
        held = memories[_holds(bound, n_, d_, memories)]
        floor = _compulsory(compulsory, mask, n_, d_)
        for M, value in zip(held.tolist(), _values(bound, n_, d_, held).tolist(), strict=True):
            screened.append((value - floor, vertices, n_, d_, M))
    if not screened:
        return None
    # the best exact margin ceil(v) - c is within 1 of the best float one (v - c), so
    # every instance that may hold it is within 2 of the best float margin
    top = max(item[0] for item in screened)
    best: Witness | None = None
    for margin, vertices, n_, d_, M in screened:
        if margin < top - 2:
            continue
        found = _witness(bound, compulsory, kind, mask, n_, d_, M, vertices)
        if found is None:
            continue
        key = (found.margin, found.vertices, -found.M)
        if best is None or key > (best.margin, best.vertices, -best.M):
            best = found
    return best


def _family(bound: Bound) -> tuple[str, str] | None:
    """(builder kind, compulsory record) of a record scanned here, else ``None``."""
    if bound.kind.value not in ("lower", "tight") or bound.explicit is None:
        return None
    if set(bound.parameters) - {"n", "d", "M"}:
        return None
    return _FAMILIES.get((bound.regime.value, bound.mask, bound.pass_.value))


def _resolve(record: str, max_vertices: int, max_memory: int) -> tuple:
    for name, value in (("max_vertices", max_vertices), ("max_memory", max_memory)):
        positive_integer(name, value, PebbleParameterError)
    bound = get(record)
    family = _family(bound)
    if family is None:
        raise PebbleParameterError(
            f"record={record!r} is not an explicit lower record in (n, d, M) of the dense or "
            "causal forward or backward pass"
        )
    return bound, family[0], get(family[1]), bound.mask


def _sizes(kind: str, mask: str | None, max_vertices: int) -> Iterator[tuple[int, int, int]]:
    """(vertices, n, d) of every graph of the family with at most ``max_vertices``
    vertices, fewest first (then n, then d).

    A best-first visit of the (n, d) grid from (1, 1): each popped size pushes (n + 1, d)
    and (n, d + 1). It is complete because the vertex count grows with n and with d,
    which each push checks.
    """
    heap = [(_vertex_count(kind, mask, 1, 1), 1, 1)]
    seen = {(1, 1)}
    while heap:
        vertices, n_, d_ = heapq.heappop(heap)
        if vertices > max_vertices:
            return
        yield vertices, n_, d_
        for step in ((n_ + 1, d_), (n_, d_ + 1)):
            if step in seen:
                continue
            seen.add(step)
            more = _vertex_count(kind, mask, *step)
            if more <= vertices:
                raise RuntimeError(  # an internal bug: the visit would not be complete
                    f"{kind} has {more} vertices at (n, d) = {step}, not more than {vertices}"
                )
            heapq.heappush(heap, (more, *step))


@functools.cache
def _vertex_count(kind: str, mask: str | None, n_: int, d_: int) -> int:
    """The family's vertex formula (:meth:`~attnio.pebble.builders.BuilderSpec.vertex_count`),
    evaluated as a numeric function: the mask's pair count ``Z`` and non-empty columns
    ``c``, the sizes ``n`` and ``d`` (tests compare it with ``vertex_count``)."""
    formula, names = _vertex_formula(kind)
    values = {"n": n_, "d": d_, "Z": n_ * n_, "c": n_}
    if mask is not None:
        allowed = builders.mask_from_spec(mask, n_)
        values |= {"Z": int(allowed.sum()), "c": int(allowed.any(axis=0).sum())}
    return round(formula(*(values[name] for name in names)))


@functools.cache
def _vertex_formula(kind: str) -> tuple:
    expr = builders.BUILDERS[kind].vertices()
    symbols = sorted(expr.free_symbols, key=str)
    names = tuple(str(s) for s in symbols)
    if set(names) - {"n", "d", "Z", "c"}:
        raise RuntimeError(f"{kind}'s vertex formula has symbols {names}")  # an internal bug
    return sp.lambdify(symbols, expr), names


@functools.cache
def _min_memory(kind: str, n_: int, d_: int) -> int:
    return builders.build(kind, n_, d_).min_memory


@functools.cache
def _numeric(bound: Bound) -> tuple:
    """The record's value and conditions as numpy functions of (M, d, n)."""
    symbols = sp.symbols("M d n", positive=True, integer=True)
    named = {str(s): s for s in bound.explicit.free_symbols | bound.conditions.free_symbols}
    args = [named.get(str(s), s) for s in symbols]
    return sp.lambdify(args, bound.explicit, "numpy"), sp.lambdify(args, bound.conditions, "numpy")


def _values(bound: Bound, n_: int, d_: int, memories: np.ndarray) -> np.ndarray:
    """The record's value at each M (floating point: a screen; exact checks follow)."""
    values = _numeric(bound)[0](memories.astype(float), float(d_), float(n_))
    return np.broadcast_to(np.asarray(values, dtype=float), memories.shape)


def _holds(bound: Bound, n_: int, d_: int, memories: np.ndarray) -> np.ndarray:
    """Where the record's conditions hold (a float screen; exact checks follow)."""
    held = _numeric(bound)[1](memories.astype(float), float(d_), float(n_))
    return np.broadcast_to(np.asarray(held, dtype=bool), memories.shape)


def _first_above(
    bound: Bound,
    compulsory: Bound,
    kind: str,
    mask: str | None,
    n_: int,
    d_: int,
    vertices: int,
    max_memory: int,
) -> Witness | None:
    """The smallest M at which ``bound`` exceeds the compulsory I/O on this graph.

    The values are screened in floating point for every M from 1 (cheap); the graph
    is built for its minimum memory only when some M passes the screen.
    """
    memories = np.arange(1, min(max_memory, vertices) + 1)
    floor = float(_compulsory(compulsory, mask, n_, d_))
    values = _values(bound, n_, d_, memories)
    # a float screen with a margin; every candidate is confirmed exactly
    candidates = memories[(values > floor - 1e-6) & _holds(bound, n_, d_, memories)]
    if candidates.size == 0:
        return None
    low = _min_memory(kind, n_, d_)
    for M in candidates[candidates >= low].tolist():
        found = _witness(bound, compulsory, kind, mask, n_, d_, M, vertices)
        if found is not None and found.margin > 0:
            return found
    return None


def _compulsory(compulsory: Bound, mask: str | None, n_: int, d_: int) -> int:
    params = {"n": n_, "d": d_}
    if mask is not None:
        params["Z"] = int(builders.mask_from_spec(mask, n_).sum())
    return int(compulsory.evaluate(**params))


def _witness(
    bound: Bound,
    compulsory: Bound,
    kind: str,
    mask: str | None,
    n_: int,
    d_: int,
    M: int,
    vertices: int,
) -> Witness | None:
    """The exact values at one instance, ``None`` where the record does not apply."""
    if not bound.applies(n=n_, d=d_, M=M):
        return None
    value = int(sp.ceiling(bound.evaluate(n=n_, d=d_, M=M)))
    return Witness(
        bound.name, kind, mask, n_, d_, M, vertices, _compulsory(compulsory, mask, n_, d_), value
    )
