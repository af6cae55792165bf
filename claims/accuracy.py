"""The accuracy of a low-rank run: when it may refute an approximate claim, and the re-check.

An approximate lower bound says that every algorithm whose output is within ``epsilon *
max|V|`` of exact attention, on every input whose Q and K entries lie in [-B, B], moves
at least so many words. A low-rank forward run at degree g refutes it only if it is such
an algorithm: if epsilon is at least its *guaranteed* error (:func:`guaranteed_error`,
the worst-case bound of :func:`attnio.algorithms.approximate.error_bound` over every
such input, rounded up). Nothing measured on particular inputs can stand in for it: an
error measured on seeded random inputs may be tiny where the run is far off elsewhere
(at d = 4, B = 1, g = 6: 0.006 max|V| on uniform entries, 270 max|V| on the two-score
input of :mod:`attnio.algorithms.entries`), and an input on which the polynomial is
exact (every query scoring all keys alike) says nothing of the others.

The inputs with known error behaviour serve the two other sides:

Where B > 1 a run must meet ``epsilon / B`` (:func:`least_epsilon`), so that a refutation
also holds for the reading of AS23, where V's entries lie in [-B, B] too and epsilon bounds
the absolute error.

- *Where the degree suffices*, any B and epsilon: :func:`accuracies` gives, for each entry
  bound of :data:`ENTRY_BOUNDS` and each epsilon of :data:`EPSILONS`, the least degree
  whose guarantee meets it (up to :data:`MAX_DEGREE`, so a claim scoped to large entries
  or fine accuracies meets the run that satisfies it), and :func:`rerun` repeats a
  refuting run on numeric inputs of every family of
  :data:`~attnio.algorithms.entries.ENTRY_PATTERNS` inside [-B, B] before it is shown: the
  same words, the measured error within the run's bound on each, and equal to the error
  known in closed form on the constant-score input (0: a known-answer control of the
  implementation) and on the two-score adversary (where the bound is nearly attained).
- *Where it does not*: :func:`miss` gives, for a run that moves fewer words than the
  claim but has no guarantee within its epsilon at its B, the run's error on the
  two-score input inside [-B, B], computed in closed form: the certificate that this
  run is not an algorithm the claim is about, shown as a note, never a refutation.
"""

from __future__ import annotations

import functools
import math

import sympy as sp

from attnio.algorithms import AlgorithmError, simulate
from attnio.algorithms.approximate import (
    ROUNDING_SLACK,
    approximate_exp,
    error_bound,
    least_degree,
)
from attnio.algorithms.entries import ENTRY_PATTERNS, entry_inputs, known_error, worst_pair

MAX_DEGREE = 60
"""Highest degree of an accuracy point (:func:`accuracies`)."""

ENTRY_BOUNDS = (sp.Rational(1, 8), sp.Rational(1, 4), sp.Rational(1, 2), sp.Integer(1),
                sp.Integer(2), sp.Integer(4))  # fmt: skip
"""Bounds B on the entries of Q and K at which a low-rank run's accuracy is stated: the
score range is [-d B^2, d B^2]; a larger B needs a higher degree for the same error."""

EPSILONS = (sp.Rational(1, 10**9), sp.Rational(1, 10**6), sp.Rational(1, 1000),
            sp.Rational(1, 100), sp.Rational(1, 10), sp.Rational(1, 2), sp.Integer(1))  # fmt: skip
"""Errors epsilon at which runs are chosen (the least degree meeting each) and judged
besides a run's guaranteed one: a run within its guarantee is within every larger
epsilon, which a claim's conditions may require."""

NUMERIC_DEGREE = 16
"""Highest degree re-run on numeric inputs: beyond it the interpolant's monomial
coefficients lose float64 accuracy on wide score ranges (:func:`rerun` says so)."""

NUMERIC_RANK = 5_000
"""Highest rank r re-run on numeric inputs (the run holds n x r feature matrices)."""

KNOWN_TOLERANCE = 1e-9
"""Absolute allowance (plus a relative 1e-6) between a measured error and the known one."""


@functools.cache
def guaranteed_error(d: int, degree: int, entry_bound: sp.Rational) -> sp.Rational | None:
    """An upper bound on ``|O~ - O| / max|V|`` of low-rank attention at ``degree``.

    It holds entrywise for every input whose Q and K entries lie in
    ``[-entry_bound, entry_bound]``: :func:`attnio.algorithms.approximate.error_bound` at
    the score radius ``d B^2``, raised by a relative 1e-9 against floating-point rounding
    and rounded up to three significant digits. ``None`` where the degree is too low for
    the score range and no finite bound exists.

    Examples
    --------
    >>> guaranteed_error(4, 1, sp.Rational(1, 2)) is None      # range [-1, 1], degree 1
    True
    >>> guaranteed_error(4, 2, sp.Rational(1, 2))
    89/100
    """
    bound = error_bound(degree, float(d * entry_bound**2))
    if not math.isfinite(bound):
        return None
    value = bound * (1 + 1e-9)
    exponent = math.floor(math.log10(value)) - 2
    return sp.Rational(math.ceil(value / 10.0**exponent)) * sp.Rational(10) ** exponent


def least_epsilon(guarantee: sp.Rational, entry_bound: sp.Rational) -> sp.Rational:
    """The least epsilon a run with ``guarantee`` (per unit max|V|) meets under either
    reading of a claim's epsilon: ``guarantee * max(1, B)``.

    attnio reads epsilon as an error of at most ``epsilon * max|V|`` (docs/verdicts.md),
    which the guarantee meets; AS23 bounds the entries of V by B as well and reads epsilon
    as an absolute error, which ``guarantee * max|V| <= guarantee * B`` meets when B > 1
    only with the factor B. Asking for both keeps a refutation sound under either.

    Examples
    --------
    >>> least_epsilon(sp.Rational(1, 10), sp.Integer(4)), least_epsilon(sp.Rational(1, 10), sp.Rational(1, 2))
    (2/5, 1/10)
    """
    return guarantee * sp.Max(1, entry_bound)


@functools.cache
def _least(d: int, entry_bound: sp.Rational, epsilon: sp.Rational) -> int | None:
    scale = float(sp.Max(1, entry_bound))
    degree = least_degree(float(d * entry_bound**2), float(epsilon) / scale, MAX_DEGREE)
    # the rounded guarantee may exceed the bound: step up until it meets epsilon
    while degree is not None and degree <= MAX_DEGREE:
        guarantee = guaranteed_error(d, degree, entry_bound)
        if guarantee is not None and least_epsilon(guarantee, entry_bound) <= epsilon:
            return degree
        degree += 1
    return None


@functools.cache
def accuracies(d: int, epsilons: bool) -> tuple[dict, ...]:
    """The accuracy points at head dimension d: dicts of g, r, B, epsilon and guarantee.

    For each B of :data:`ENTRY_BOUNDS`: the least degree meeting each epsilon of
    :data:`EPSILONS` (and the degrees 0 to 3) whose guarantee is finite, each with r =
    C(d + g, g). Each is given at the least epsilon it meets (:func:`least_epsilon`),
    and, with ``epsilons`` (the claim uses epsilon), at every larger epsilon of
    :data:`EPSILONS`.

    Examples
    --------
    >>> min(p["g"] for p in accuracies(1, False) if p["B"] == 2)   # scores in [-4, 4]
    11
    """
    found = []
    for entry_bound in ENTRY_BOUNDS:
        degrees = {_least(d, entry_bound, epsilon) for epsilon in EPSILONS} | {0, 1, 2, 3}
        for degree in sorted(g for g in degrees if g is not None):
            guarantee = guaranteed_error(d, degree, entry_bound)
            if guarantee is None:
                continue
            least = least_epsilon(guarantee, entry_bound)
            chosen = [least]
            if epsilons:
                chosen += [e for e in EPSILONS if e > least]
            rank = math.comb(d + degree, degree)
            for epsilon in chosen:
                found.append({"g": degree, "r": rank, "B": entry_bound, "epsilon": epsilon,
                              "guarantee": guarantee})  # fmt: skip
    return tuple(found)


@functools.cache
def misses(d: int, epsilons: bool) -> tuple[dict, ...]:
    """Points of the degrees 0 to 3 whose guarantee does *not* meet epsilon at some B of
    :data:`ENTRY_BOUNDS`: dicts of g, r, B, epsilon and ``guarantee`` None.

    With ``epsilons``, at each epsilon of :data:`EPSILONS` below the least the degree
    meets (:func:`least_epsilon`; every one, where it has no guarantee); without, only
    where no finite guarantee exists (epsilon 1 is shown). A run at such a point never
    refutes (:func:`miss` says why).
    """
    found = []
    for entry_bound in ENTRY_BOUNDS:
        for degree in range(4):
            guarantee = guaranteed_error(d, degree, entry_bound)
            if epsilons:
                chosen = [e for e in EPSILONS
                          if guarantee is None or e < least_epsilon(guarantee, entry_bound)]  # fmt: skip
            else:
                chosen = [] if guarantee is not None else [EPSILONS[-1]]
            rank = math.comb(d + degree, degree)
            for epsilon in chosen:
                found.append({"g": degree, "r": rank, "B": entry_bound, "epsilon": epsilon,
                              "guarantee": None})  # fmt: skip
    return tuple(found)


def rerun(name: str, pass_: str, point: dict, io: int) -> str | None:
    """Re-check a refuting low-rank run at ``point`` (n, d, M, g, B, guarantee) on numeric
    inputs of every family of :data:`~attnio.algorithms.entries.ENTRY_PATTERNS`.

    Each run must move ``io`` words, its measured error must lie within its bound (which
    lies within the guarantee), and on ``constant`` and ``two-scores`` it must equal the
    error known in closed form. Returns what the runs showed, ``''`` where the degree or
    rank is too high to run here (the refutation then rests on the derived count and the
    guarantee), or None when a run disagrees (no refutation).
    """
    n, d, M, g = (int(point[k]) for k in ("n", "d", "M", "g"))
    entry_bound = float(point["B"])
    if g > NUMERIC_DEGREE or math.comb(d + g, g) > NUMERIC_RANK:
        return ""
    approx = approximate_exp(g, d * entry_bound**2)
    shown = []
    for pattern in ENTRY_PATTERNS:
        try:
            run = simulate(name, pass_, n, d, M, numeric=True, degree=g,
                           entry_bound=entry_bound, entries=pattern)  # fmt: skip
        except (AlgorithmError, ValueError):
            return None
        if run.counts.io != io or run.error is None or run.error_bound is None:
            return None
        v_max = float(abs(entry_inputs(pattern, n, d, entry_bound, approx)["V"]).max())
        within = float(point["guarantee"]) * v_max + ROUNDING_SLACK
        if not (run.error <= run.error_bound and run.error <= within):
            return None
        known = known_error(pattern, n, d, entry_bound, approx)
        if known is not None and not abs(run.error - known) <= KNOWN_TOLERANCE + 1e-6 * known:
            return None
        shown.append(f"{run.error:.2g} on {pattern} inputs"
                     + ("" if known is None else f" (known: {known:.2g})"))  # fmt: skip
    return (
        f"re-run on numeric inputs within [-B, B]: measured error {', '.join(shown)}, "
        "each within the run's bound and the guarantee"
    )


def accuracy_text(point: dict) -> str:
    """The accuracy a refuting low-rank run at ``point`` guarantees, for the evidence."""
    least = least_epsilon(point["guarantee"], point["B"])
    absolute = f" (at most {least} if V's entries lie in [-B, B] too)" if point["B"] > 1 else ""
    return (
        f"degree {point['g']}, entries of Q and K within B = {point['B']}: error at most "
        f"{point['guarantee']} * max|V| entrywise on every such input{absolute}, within the "
        f"claim's epsilon = {point['epsilon']}"
    )


def reproduce_command(name: str, pass_: str, point: dict) -> str:
    """The command that re-runs a low-rank point on the two-score adversary."""
    return (
        f"attnio simulate {name} --pass {pass_} --n {point['n']} --d {point['d']} "
        f"--M {point['M']} --degree {point['g']} --entry-bound {float(point['B'])} "
        "--entries two-scores"
    )


def miss(d: int, degree: int, entry_bound: sp.Rational, epsilon: sp.Rational,
         n: int) -> str | None:  # fmt: skip
    """Why a low-rank run at ``degree`` is not within ``epsilon`` at B = ``entry_bound``
    for n keys: its guarantee there, and its error on the two-score input inside [-B, B]
    (closed form), which exceeds epsilon. None if its guarantee meets epsilon after all,
    or the two-score input does not show it missing epsilon (no certificate)."""
    guarantee = guaranteed_error(d, degree, entry_bound)
    if guarantee is not None and least_epsilon(guarantee, entry_bound) <= epsilon:
        return None
    approx = approximate_exp(degree, float(d * entry_bound**2))
    a, b, error = worst_pair(approx, n)
    if not error > epsilon * (1 + 1e-6) + KNOWN_TOLERANCE:
        return None
    stated = "no finite error bound" if guarantee is None else f"error bound {guarantee}"
    return (
        f"degree {degree} at B = {entry_bound}, d = {d} has {stated}: on the two-score input "
        f"(scores {a:.3g} and {b:.3g}, entries within B) its error is {error:.3g} * max|V| "
        f"> epsilon = {epsilon}"
    )


__all__ = [
    "ENTRY_BOUNDS",
    "EPSILONS",
    "KNOWN_TOLERANCE",
    "MAX_DEGREE",
    "NUMERIC_DEGREE",
    "NUMERIC_RANK",
    "accuracies",
    "accuracy_text",
    "guaranteed_error",
    "least_epsilon",
    "miss",
    "misses",
    "reproduce_command",
    "rerun",
]
