"""Counting checks of a claim: attnio's algorithms on the two-level machine at sampled sizes.

At a fixed grid of sizes (n, d, M) inside the claim's scope the algorithms of
:data:`attnio.algorithms.ALGORITHMS` run in counting mode and the machine counts
every word moved:

- an upper bound naming an ``algorithm`` must be at least that algorithm's count;
- a lower side must be at most every algorithm's count of the regime and pass (an
  algorithm that moves fewer words refutes it).

Sparse algorithms run on a seeded random block mask (:data:`MASKS`;
:mod:`attnio.claims.closed_forms` judges the adversarial masks by their closed-form counts
and re-runs its refuting points here). The row- and column-weighted densities s, s_c and the allowed pairs Z of each
point are computed from the mask the algorithm runs, so every point is realised by an
actual mask (n <= Z <= n^2). A machine count refutes a lower side of an exact regime only
after the run is repeated on numeric inputs, moving the same words and matching the NumPy
reference of (masked) attention. Low-rank runs at degrees g = 1, 2 and 3 with r = C(d + g, g). The grid is
fixed, so the verdicts are reproducible.

An approximate algorithm refutes the lower side of an approximate claim only with an
accuracy the claim admits. A low-rank forward run at degree g, for inputs whose Q and K
entries lie in [-B, B], is within ``epsilon * max|V|`` of exact attention entrywise, with
``epsilon`` the error bound of :mod:`attnio.algorithms.approximate` rounded up
(:func:`attnio.claims.accuracy.guaranteed_error`), on *every* such input; a degree too
low for the score range has no finite bound and never refutes, and neither does the
low-rank backward pass (the gradient of the approximate output, with no bound against
exact gradients). The claim is evaluated at that B and epsilon (or a larger epsilon its
conditions admit), and the refuting run is re-run on numeric inputs of every family of
:data:`attnio.algorithms.entries.ENTRY_PATTERNS` inside [-B, B], where its measured error
must lie within its bound and equal the error known in closed form on the constant-score
control and the two-score adversary (:func:`attnio.claims.accuracy.rerun`), before it is
shown. Higher degrees, larger entries and large n are judged by the closed forms
(:mod:`attnio.claims.closed_forms`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator

import sympy as sp

from attnio.algorithms import ALGORITHMS, AlgorithmError, simulate
from attnio.algorithms.machine import blocks
from attnio.algorithms.masks import (
    allowed_pairs,
    block_mask,
    column_weighted_density,
    pattern_mask,
    random_block_mask,
    row_weighted_density,
)
from attnio.bounds import Kind, Regime
from attnio.bounds.masks import sample_masks
from attnio.bounds.symbols import ALL

from .accuracy import (
    ENTRY_BOUNDS,
    EPSILONS,
    accuracy_text,
    guaranteed_error,
    least_epsilon,
    reproduce_command,
    rerun,
)
from .claim import Claim
from .verdict import Evidence, sampled_evidence

SIZES = ((1, 1), (2, 1), (3, 2), (8, 2), (16, 4), (37, 3), (64, 8))
"""(n, d) of the sampled runs."""

DENSITY = 0.5
"""Block density of the random masks of the sparse runs (seed 0)."""

MASKS = (f"random:{DENSITY}",)
"""Masks of the sparse machine runs: ``random:DENSITY`` (a seeded random block mask) or a
pattern of :data:`attnio.algorithms.masks.PATTERNS` covered by each algorithm's blocks; a
point is judged once per distinct block mask. The adversarial patterns (the diagonal,
bands, windows, causal, one key per query ...) at these sizes and far larger ones are
judged by the algorithms' derived closed-form counts (:mod:`attnio.claims.closed_forms`),
whose small refuting points the machine re-runs."""

DEGREES = (1, 2, 3)
"""Polynomial degrees of the low-rank runs."""

ACCURATE_PASSES = ("forward",)
"""Passes whose low-rank runs carry an error bound against exact attention (the backward
computes the gradient of the approximate output, with no bound against exact gradients)."""


def _accuracies(claim: Claim, point: dict) -> Iterator[dict]:
    """The points of an approximate run at which the claim may be judged: each B of
    :data:`ENTRY_BOUNDS` with a finite guaranteed error, at the least epsilon it meets
    (:func:`attnio.claims.accuracy.least_epsilon`) and at each larger epsilon of
    :data:`EPSILONS`, inside the claim's scope."""
    if claim.bound.pass_.value not in ACCURATE_PASSES:
        return
    for entry_bound in ENTRY_BOUNDS:
        guarantee = guaranteed_error(point["d"], point["g"], entry_bound)
        if guarantee is None:
            continue
        least = least_epsilon(guarantee, entry_bound)
        for epsilon in (least, *(e for e in EPSILONS if e > least)):
            yield {**point, "B": entry_bound, "epsilon": epsilon, "guarantee": guarantee}


def memories(n: int, d: int) -> list[int]:
    """Memory sizes tried at (n, d): around each algorithm's minimum, d^2 and n d."""
    values = {d, 2 * d, d * d, d * d + 1, 4 * d * d, 5 * d + 4, 9 * d + 2, 10 * d + 2,
              12 * d + 4, 16 * d, n * d, 2 * n * d + 8, 3, 4, 16, 64}  # fmt: skip
    return sorted(v for v in values if v >= 1)


def _mask_options(name: str, pass_: str, n: int, d: int, M: int) -> list[tuple[dict, dict, str]]:
    """(simulate's mask arguments, the point's Z, s and s_c, command flags) of each distinct
    block mask of :data:`MASKS` for sparse algorithm ``name`` at (n, d, M)."""
    try:
        rows, cols = ALGORITHMS[name].block_shape(pass_, d, M)
    except (AlgorithmError, ValueError, ZeroDivisionError):
        return []
    if rows < 1 or cols < 1:
        return []
    options, seen = [], set()
    for spec in MASKS:
        kind, _, density = spec.partition(":")
        try:
            if kind == "random":
                coarse = random_block_mask(
                    len(blocks(n, rows)), len(blocks(n, cols)), float(density), 0
                )
                coarse = block_mask(coarse, n, rows, cols, name)
                kwargs, flags = {"block_density": float(density)}, f" --block-density {density}"
            else:
                coarse = pattern_mask(spec, n, rows, cols)
                kwargs, flags = {"mask": spec}, f" --mask {spec}"
        except (AlgorithmError, ValueError):
            continue
        key = coarse.tobytes() + bytes(coarse.shape)
        if key in seen:
            continue
        seen.add(key)
        extra = {
            "s": sp.Rational(row_weighted_density(coarse, n, rows)),
            "s_c": sp.Rational(column_weighted_density(coarse, n, cols)),
            "Z": allowed_pairs(coarse, n, rows, cols),
        }
        options.append((kwargs, extra, flags))
    return options


def _runs(
    claim: Claim,
    names: list[str],
    judge_at: Callable[[Claim, dict], Iterable[dict]] | None = None,
) -> Iterator[tuple[str, dict, object, str, dict]]:
    """(algorithm, point, counting run, command, simulate's options) at each grid point inside the claim's
    scope; ``judge_at`` turns a run's point into the points the claim is judged at (the
    accuracies of an approximate run), else the point itself."""
    pass_ = claim.bound.pass_.value
    for n, d in SIZES:
        for M in memories(n, d):
            for name in names:
                algo = ALGORITHMS[name]
                if pass_ not in algo.runners:
                    continue
                options: list[tuple[dict, dict, str]] = [({}, {}, "")]
                if algo.mask_family is not None:
                    options = [
                        ({"mask": mask.spec}, mask.point(), f" --mask {mask.spec}")
                        for mask in sample_masks(algo.mask_family, n)
                    ]
                elif algo.regime == "sparse":
                    options = _mask_options(name, pass_, n, d, M)
                elif algo.regime == "approximate":
                    options = [
                        ({"degree": g}, {"g": g, "r": int(sp.binomial(d + g, g))}, f" --degree {g}")
                        for g in DEGREES
                    ]
                for kwargs, extra, flags in options:
                    base = {"n": n, "d": d, "M": M, **extra}
                    run = None
                    for point in judge_at(claim, base) if judge_at else (base,):
                        shown = {k: v for k, v in point.items() if k != "guarantee"}
                        if not set(claim.bound.parameters) <= set(shown):
                            continue
                        if not claim.holds_at(shown):
                            continue
                        if run is None:
                            try:
                                run = simulate(name, pass_, n, d, M, numeric=False, **kwargs)
                            except (AlgorithmError, ValueError):
                                break  # M too small for this algorithm's blocks
                        command = (
                            f"attnio simulate {name} --pass {pass_} --n {n} --d {d} --M {M}"
                            f"{flags} --count-only"
                        )
                        yield name, point, run, command, kwargs


def _value(expr: sp.Expr, point: dict) -> sp.Expr | None:
    """The exact value of ``expr`` at ``point``; None where it is not a real number."""
    value = sp.nsimplify(expr.subs({ALL[k]: v for k, v in point.items() if k in ALL}))
    return value if value.is_real and value.is_finite else None


def _refuted(what: str, name: str, bound, point: dict, value, run, command: str) -> Evidence:
    """The evidence of a machine count that refutes one side of a claim at ``point``."""
    return Evidence(
        "counting",
        "refuted",
        f"{what} on the two-level machine at " + ", ".join(f"{k}={v}" for k, v in point.items()),
        against=f"{name} {bound.pass_.value}",
        point={k: str(v) for k, v in point.items()},
        claim_value=str(value),
        other_value=str(run.counts.io),
        replay=command,
    )


def _computes_attention(name: str, pass_: str, point: dict, kwargs: dict, run) -> str | None:
    """Re-run an exact algorithm's refuting count on numeric inputs: it must move the same
    words and match the NumPy reference of (masked) attention; say so, else None.

    The reference uses the mask the algorithm runs, so a sparse count stands for attention
    under a mask with the point's Z allowed pairs."""
    n, d, M = point["n"], point["d"], point["M"]
    try:
        numeric = simulate(name, pass_, n, d, M, numeric=True, **kwargs)
    except (AlgorithmError, ValueError):
        return None
    if numeric.counts.io != run.counts.io or numeric.error is None or not numeric.error <= 1e-9:
        return None
    if "Z" in point and int(numeric.parameters.get("Z", point["Z"])) != int(point["Z"]):
        return None
    mask = f" under the mask {kwargs['mask']}" if "mask" in kwargs else ""
    return (
        f"re-run on numeric inputs: it computes {pass_} attention{mask} with relative error "
        f"{numeric.error:.1g} against the NumPy reference"
    )


def _accurate_refutation(name: str, bound, point: dict, value: sp.Expr, run) -> Evidence | None:
    """The refutation of an approximate lower side by a low-rank run, re-checked.

    The run is repeated on numeric inputs of every family of
    :data:`attnio.algorithms.entries.ENTRY_PATTERNS` inside [-B, B]
    (:func:`attnio.claims.accuracy.rerun`): the same words, the measured error within its
    bound, and the error known in closed form on the constant-score and two-score inputs
    (otherwise None: no refutation). The evidence names the guaranteed accuracy.
    """
    pass_ = bound.pass_.value
    checked = rerun(name, pass_, point, run.counts.io)
    if checked is None:
        return None
    shown = {k: v for k, v in point.items() if k != "guarantee"}
    return _refuted(
        f"lower side {value} > {name} {pass_} ({accuracy_text(point)}; "
        f"{checked or 'degree too high to re-run here'}), which moves {run.counts.io} words",
        name, bound, shown, value, run, reproduce_command(name, pass_, point),
    )  # fmt: skip


def counting_evidence(claim: Claim) -> list[Evidence]:
    """Compare the claim's sides with machine counts at sampled sizes."""
    bound = claim.bound
    if bound.explicit is None:
        return [Evidence("counting", "not-applicable", "asymptotic-only claim: nothing to "
                         "evaluate at a point")]  # fmt: skip
    start = time.perf_counter()
    lower, upper = claim.lower_side, claim.upper_side
    found: list[Evidence] = []
    compared = 0
    notes = []
    regime = bound.regime.value
    approximate = bound.regime is Regime.APPROXIMATE
    if lower is not None:
        if not approximate and {"epsilon", "B"} & set(bound.parameters):
            notes.append("the lower side uses the error parameters, which no exact run fixes")
        elif regime == "sparse" and {"s", "s_c"} & set(bound.parameters):
            notes.append("a lower bound in s or s_c depends on a block shape; compared with no run")
        elif approximate and bound.pass_.value not in ACCURATE_PASSES:
            notes.append(
                f"no approximate {bound.pass_.value} run has an error bound against exact "
                "attention, so none can refute a lower side"
            )
        else:
            names = [
                name
                for name, algo in ALGORITHMS.items()
                if algo.regime == regime and (bound.mask is None or algo.mask_family == bound.mask)
            ]
            judge_at = _accuracies if approximate else None
            for name, point, run, command, kwargs in _runs(claim, names, judge_at):
                value = _value(lower, point)
                if value is None:
                    continue
                compared += 1
                if value <= run.counts.io:
                    continue
                where = f"{name} {bound.pass_.value}, which moves {run.counts.io} words"
                if not approximate:
                    computes = _computes_attention(name, bound.pass_.value, point, kwargs, run)
                    if computes is None:
                        continue
                    found.append(_refuted(f"lower side {value} > {where} ({computes})", name,
                                          bound, point, value, run, command))  # fmt: skip
                    break
                item = _accurate_refutation(name, bound, point, value, run)
                if item is not None:
                    found.append(item)
                    break
    if upper is not None and bound.kind is Kind.UPPER:
        name = bound.algorithm
        if name is None:
            notes.append("the upper bound names no algorithm, so no count can refute it")
        elif name not in ALGORITHMS:
            notes.append(f"attnio has no algorithm {name!r} (it has: {', '.join(ALGORITHMS)})")
        elif bound.pass_.value not in ALGORITHMS[name].runners:
            notes.append(f"{name} has no {bound.pass_.value} pass")
        else:
            for _, point, run, command, _ in _runs(claim, [name]):
                value = _value(upper, point)
                if value is None:
                    continue
                compared += 1
                if value < run.counts.io:
                    where = f"{run.counts.io} words that {name} {bound.pass_.value} moves"
                    found.append(_refuted(f"upper side {value} < {where}", name, bound,
                                          point, value, run, command))  # fmt: skip
                    break
    seconds = time.perf_counter() - start
    if found:
        return found
    agreed = f"{compared} machine counts at sampled sizes agree with the claim"
    nothing = "no sampled size lies inside the claim's conditions"
    return sampled_evidence(
        "counting", compared, agreed, "two-level machine", notes, nothing, seconds
    )


__all__ = [
    "ACCURATE_PASSES",
    "DEGREES",
    "DENSITY",
    "ENTRY_BOUNDS",
    "EPSILONS",
    "MASKS",
    "SIZES",
    "counting_evidence",
    "guaranteed_error",
    "memories",
]
