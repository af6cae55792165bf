"""Run an algorithm of the registry on the two-level machine and compare it with the catalog.

:func:`simulate` builds seeded inputs, runs the algorithm in numeric or counting
mode, reads its exact-count record from :mod:`attnio.bounds` and, in numeric
mode, measures the error against :mod:`~attnio.algorithms.reference`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from attnio.bounds import get
from attnio.bounds.arguments import positive_integer
from attnio.bounds.masks import Mask, make_mask, parse_mask
from attnio.bounds.record import Bound, Regime
from attnio.bounds.shape import check_shape

from . import approximate, reference, shapes
from .entries import ENTRY_PATTERNS, entry_inputs, known_error
from .errors import AlgorithmParameterError, MaskError
from .machine import Counts, TwoLevelMachine, blocks
from .masks import (
    block_mask,
    column_weighted_density,
    expand,
    pattern_mask,
    random_block_mask,
    row_weighted_density,
)
from .registry import ALGORITHMS, PASSES, get_algorithm


@dataclass(frozen=True)
class Run:
    """The outcome of one simulated run.

    Attributes
    ----------
    counts : Counts
        Loads, stores and peak fast-memory use measured by the machine.
    record : str
        Name of the catalog record holding the algorithm's exact count.
    closed_form : int or None
        That record's value at this run's parameters; ``None`` when the record's
        conditions do not hold here (``note`` says why).
    parameters : dict
        The values substituted into the record: n, d, M and, as the record uses them,
        the mask's densities s and s_c and allowed pairs Z, or the rank r.
    error : float or None
        Numeric mode: relative error (exact algorithms) or maximal absolute error
        (approximate) against the NumPy reference; ``None`` when counting.
    error_bound : float or None
        Approximate algorithms: the stated bound on the absolute error.
    """

    algorithm: str
    pass_: str
    n: int
    d: int
    M: int
    numeric: bool
    counts: Counts
    record: str
    closed_form: int | None
    parameters: dict = field(default_factory=dict)
    error: float | None = None
    error_bound: float | None = None
    note: str = ""

    @property
    def matches(self) -> bool | None:
        """Whether the measured I/O equals the closed form (``None`` if it does not apply)."""
        return None if self.closed_form is None else self.counts.io == self.closed_form

    def to_dict(self) -> dict[str, object]:
        """Return the JSON-ready fields (integers stay integers, parameters as strings).

        Examples
        --------
        >>> simulate("flash", "forward", 8, 2, 64, numeric=False).to_dict()["mode"]
        'counting'
        """
        return {
            "algorithm": self.algorithm,
            "pass": self.pass_,
            "n": self.n,
            "d": self.d,
            "M": self.M,
            "mode": "numeric" if self.numeric else "counting",
            "loads": self.counts.loads,
            "stores": self.counts.stores,
            "io": self.counts.io,
            "peak": self.counts.peak,
            "record": self.record,
            "closed_form": self.closed_form,
            "matches": self.matches,
            "parameters": {k: str(v) for k, v in self.parameters.items()},
            "error": self.error,
            "error_bound": self.error_bound,
            "note": self.note,
        }


def _positive(name: str, value: object) -> int:
    return positive_integer(name, value, AlgorithmParameterError)


def inputs(
    n: int,
    d: int,
    seed: int = 0,
    entry_bound: float | None = None,
    entries: str = "uniform",
    approx: approximate.Approximation | None = None,
) -> dict[str, np.ndarray]:
    """Return seeded Q, K, V (n x d); with ``entry_bound``, Q and K entries in [-B, B] from
    the family ``entries`` of :data:`attnio.algorithms.entries.ENTRY_PATTERNS` (uniform
    by default; ``two-scores`` needs the polynomial ``approx``)."""
    if entry_bound is not None:
        return entry_inputs(entries, n, d, entry_bound, approx, seed)
    rng = np.random.default_rng(seed)
    Q, K, V = (rng.standard_normal((n, d)) / d**0.25 for _ in range(3))
    return {"Q": Q, "K": K, "V": V}


MAX_WORDS = 2**27
"""Most words (8 bytes each, so 1 GiB) a simulation may allocate unless ``max_words`` raises it."""


def estimate_words(regime: str, n: int, d: int, *, numeric: bool, rank: int = 0) -> int:
    """Words a simulation allocates, estimated from its sizes before anything is allocated.

    Numeric runs hold about ten n x d arrays (inputs, outputs, gradients) and the
    reference's n x n score matrix; sparse runs an n x n mask; low-rank runs two
    n x r feature matrices and an r x d product.

    Examples
    --------
    >>> estimate_words("dense", 1024, 64, numeric=False)
    0
    """
    words = 10 * n * d + n * n if numeric else 0
    if Regime(regime) is Regime.SPARSE:
        words += n * n
    return words + 2 * n * rank + rank * d


MAX_TRANSFERS = 10**8
"""Most transfers (estimated, :func:`estimate_transfers`) a simulation may run unless
``max_transfers`` raises it: the machine makes about half a million transfers a second,
and the estimate is at least four times the true number, so about a minute at most."""


def estimate_transfers(record: Bound, d: int, used: dict) -> int | None:
    """Machine transfers of a run, estimated before it runs: its count record's words / d.

    The closed form (the words the run will move, :mod:`attnio.bounds.counts`) divided by
    d, as if each transfer moved one row of d words; transfers move rows, tiles and
    blocks, so this overestimates the work (by 4 to 55 times on the algorithms of
    :mod:`attnio.algorithms`). ``None`` where the record does not apply at ``used`` or
    the blocks do not fit (the run then refuses with its own message).

    Examples
    --------
    >>> estimate_transfers(get("flash-forward-count"), 8, {"n": 64, "d": 8, "M": 512})
    1552
    """
    value = _closed_form(record, used)
    return None if value is None else value // d


def _closed_form(record: Bound, used: dict) -> int | None:
    """The count record's value at ``used``; None where it does not apply or is not a
    positive number (blocks that do not fit)."""
    if not record.applies(**used):
        return None
    value = record.evaluate(check=False, **used)  # the conditions were just found to hold
    if not (value.is_finite and value.is_positive):
        return None
    return int(value)


def _check_transfers(transfers: int | None, max_transfers: int, shown: str) -> None:
    if transfers is not None and transfers > max_transfers:
        raise AlgorithmParameterError(
            f"{shown} would make about {transfers:,} transfers (its closed-form I/O / d), "
            f"more than max_transfers={max_transfers:,}; choose smaller sizes or raise the "
            "limit (--max-transfers)"
        )


def _check_words(words: int, max_words: int, shown: str) -> None:
    if words > max_words:
        raise AlgorithmParameterError(
            f"{shown} needs about {words:,} words of memory, more than max_words="
            f"{max_words:,}; choose smaller sizes, --count-only, or raise the limit "
            "(--max-words)"
        )


def simulate(
    algorithm: str,
    pass_: str,
    n: int,
    d: int,
    M: int,
    *,
    numeric: bool = True,
    seed: int = 0,
    mask: np.ndarray | str | Mask | None = None,
    block_density: float | None = None,
    window: int | None = None,
    degree: int | None = None,
    entry_bound: float | None = None,
    entries: str | None = None,
    max_words: int = MAX_WORDS,
    max_transfers: int = MAX_TRANSFERS,
    shape: tuple[int, int, int, int] | None = None,
) -> Run:
    """Run ``algorithm``'s ``pass_`` at (n, d, M) and compare with its closed-form count.

    Parameters
    ----------
    mask, block_density
        Sparse algorithms only: a block mask (or a block-constant n x n mask, or the
        name of a pattern of :data:`~attnio.algorithms.masks.PATTERNS`, covered by the
        algorithm's blocks), or the density of a random block mask (seeded by ``seed``).
        An algorithm of one mask family (``causal-row-streaming`` ...) takes a mask of
        that family: a :class:`~attnio.bounds.masks.Mask`, a spec (``causal``,
        ``window:W``) or the family's name with ``window``; the causal family's mask is
        the default.
    window
        The width w of ``mask="window"`` or ``mask="band"``.
    degree, entry_bound
        ``low-rank`` only: polynomial degree g, and the bound B on the entries of
        Q and K (default ``1 / sqrt(d)``, so the score range is [-1, 1]).
    entries
        ``low-rank`` only: the family of the inputs, one of
        :data:`~attnio.algorithms.entries.ENTRY_PATTERNS` (default ``uniform``); on
        ``constant`` and ``two-scores`` the run's note gives the error known in closed
        form, which the measured ``error`` matches.

    max_words
        Refuse (before allocating) a run estimated to need more words of memory
        (:func:`estimate_words`).
    max_transfers
        Refuse (before running) a run estimated to make more machine transfers
        (:func:`estimate_transfers`): counting mode runs the whole loop nest, so its
        time grows with the transfers, not with memory.
    shape
        ``(n_q, n_kv, heads_q, heads_kv)`` for the algorithms of
        :mod:`attnio.algorithms.shapes` (default ``(n, n, 1, 1)``, so ``n`` keeps its
        meaning); other algorithms accept only that default.

    Raises
    ------
    AlgorithmParameterError, MaskError, UnknownAlgorithmError, CapacityError
        On bad parameters, with the valid range in the message.

    Examples
    --------
    >>> run = simulate("flash", "forward", 64, 8, 512)
    >>> run.counts.io == run.closed_form, run.error < 1e-12
    (True, True)
    """
    algo = get_algorithm(algorithm)
    if pass_ not in PASSES:
        raise AlgorithmParameterError(f"pass={pass_!r} is not one of: {', '.join(PASSES)}")
    if pass_ not in algo.runners:
        raise AlgorithmParameterError(
            f"{algorithm} has no {pass_} pass; it has: {', '.join(algo.runners)}"
        )
    n, d, M = _positive("n", n), _positive("d", d), _positive("M", M)
    max_words = _positive("max_words", max_words)
    max_transfers = _positive("max_transfers", max_transfers)
    rank = 0
    if algo.regime is Regime.APPROXIMATE and isinstance(degree, int | np.integer) and degree >= 0:
        rank = math.comb(d + int(degree), int(degree))
    shown = f"{algorithm} {pass_} with n={n}, d={d}" + (f", degree={degree}" if rank else "")
    options: dict = {}
    params: dict = {"n": n, "d": d, "M": M}
    if shape is not None or algo.shapes:
        shape = check_shape(*(shape or (n, n, 1, 1)), AlgorithmParameterError)
        if not algo.shapes and shape != (n, n, 1, 1):
            raise AlgorithmParameterError(
                f"{algorithm} runs n x n single-head attention; shape (n_q, n_kv, heads_q, "
                f"heads_kv)={shape} needs one of: "
                + ", ".join(name for name, a in ALGORITHMS.items() if a.shapes)
            )
    if algo.shapes:
        options["shape"] = shape
        params.update(zip(("n_q", "n_kv", "h_q", "h_kv"), shape, strict=True))
        shown = f"{algorithm} {pass_} with n_q={shape[0]}, n_kv={shape[1]}, heads_q={shape[2]}, heads_kv={shape[3]}, d={d}"
        rows, keys = shapes.stacked_rows(shape)
        words = 6 * (rows + keys) * d + shape[0] * shape[1] if numeric else 0
        _check_words(words, max_words, shown)
    else:
        _check_words(
            estimate_words(algo.regime, n, d, numeric=numeric, rank=rank), max_words, shown
        )
    fine_mask = None
    approx = None
    if algo.mask_family is not None:
        if block_density is not None:
            raise MaskError(
                f"{algorithm} runs {algo.mask_family} masks; block_density does not apply"
            )
        chosen = family_mask(algorithm, algo.mask_family, n, mask, window)
        options["mask"] = chosen
        fine_mask = chosen.allowed()
        params.update({str(k): v for k, v in chosen.values().items() if str(k) != "n"})
    elif algo.regime is Regime.SPARSE:
        rows, cols = algo.block_shape(pass_, d, M)
        if (mask is None) == (block_density is None):
            raise MaskError(f"{algorithm} needs exactly one of mask and block_density")
        if mask is None:
            mask = random_block_mask(
                len(blocks(n, rows)), len(blocks(n, cols)), block_density, seed
            )
        elif isinstance(mask, str) or window is not None:
            mask = pattern_mask(_pattern(mask, n, window), n, rows, cols)
        coarse = block_mask(mask, n, rows, cols, algorithm)
        options["block_mask"] = coarse
        fine_mask = expand(coarse, n, rows, cols)
        params["s"] = row_weighted_density(coarse, n, rows)
        params["s_c"] = column_weighted_density(coarse, n, cols)
        params["Z"] = int(fine_mask.sum())
    elif mask is not None or block_density is not None or window is not None:
        raise MaskError(f"{algorithm} is dense; a mask applies only to sparse algorithms")
    if algo.regime is Regime.APPROXIMATE:
        if degree is None:
            raise AlgorithmParameterError(f"{algorithm} needs a polynomial degree (degree=g >= 0)")
        if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) or degree < 0:
            raise AlgorithmParameterError(f"degree={degree!r} must be a nonnegative integer")
        degree = int(degree)
        if entry_bound is None:
            entry_bound = 1 / math.sqrt(d)
        if not (entry_bound > 0 and math.isfinite(entry_bound)):
            raise AlgorithmParameterError(
                f"entry_bound={entry_bound!r} must be positive and finite"
            )
        if entries is None:
            entries = "uniform"
        if entries not in ENTRY_PATTERNS:
            raise AlgorithmParameterError(
                f"entries={entries!r} is not one of: {', '.join(ENTRY_PATTERNS)}"
            )
        approx = approximate.approximate_exp(degree, d * entry_bound**2) if numeric else None
        options.update(degree=degree, approx=approx)
        params["r"] = approximate.feature_rank(d, degree)
    elif degree is not None:
        raise AlgorithmParameterError(f"{algorithm} is exact; degree applies only to low-rank")
    elif entries is not None:
        raise AlgorithmParameterError(f"{algorithm} is exact; entries applies only to low-rank")

    record = get(algo.counts[pass_])
    used = {k: v for k, v in params.items() if k in record.parameters}
    shown = f"{shown}, M={M}"
    closed = _closed_form(record, used)
    _check_transfers(None if closed is None else closed // d, max_transfers, shown)

    machine = TwoLevelMachine(M, numeric=numeric, algorithm=f"{algorithm} {pass_}")
    if algo.shapes:
        data = _place_shape(machine, pass_, d, seed, options["shape"])
    else:
        data = _place(machine, pass_, n, d, seed, entry_bound if approx else None, fine_mask,
                      entries or "uniform", approx)  # fmt: skip
    algo.runners[pass_](machine, n, d, **options)

    note = ""
    if closed is None:
        note = f"{record.name} does not apply here: its conditions are {record.conditions}"
    error = bound = None
    if numeric:
        if algo.shapes:
            error, bound, remark = _compare_shape(machine, pass_, data, options["shape"]), None, ""
        else:
            error, bound, remark = _compare(machine, algorithm, pass_, data, fine_mask, approx)
        if approx is not None and pass_ == "forward" and entries != "uniform":
            known = known_error(entries, n, d, entry_bound, approx, seed)
            if known is not None:
                remark = f"{entries} inputs: error known in closed form {known:.3g} * max|V|"
        note = "; ".join(part for part in (note, remark) if part)
    return Run(
        algorithm,
        pass_,
        n,
        d,
        M,
        numeric,
        machine.counts(),
        record.name,
        closed,
        used,
        error,
        bound,
        note,
    )


def family_mask(algorithm: str, family: str, n: int, mask: object, window: int | None) -> Mask:
    """The mask of ``family`` an algorithm of that family runs: ``mask`` as a
    :class:`~attnio.bounds.masks.Mask`, a spec or a family name with ``window``.

    Raises
    ------
    MaskError
        If the mask is of another family or does not fit n (the message names it).

    Examples
    --------
    >>> family_mask("window-sliding", "window", 8, "window", 3).spec
    'window:3'
    """
    if isinstance(mask, Mask):
        chosen = mask
        if chosen.n != n:
            raise MaskError(f"mask={chosen.spec!r} is for n={chosen.n}, the run has n={n}")
    elif mask is None and family == "causal" and window is None:
        chosen = make_mask("causal", n)
    elif mask is None:
        if window is None:
            raise MaskError(f"{algorithm} runs {family} masks: give mask={family!r} and window=W")
        chosen = Mask.from_arguments(family, n, window=window)
    elif isinstance(mask, str):
        chosen = Mask.from_arguments(mask, n, window=window)
    else:
        raise MaskError(
            f"{algorithm} runs {family} masks, built from indices; give its name, not an array"
        )
    if chosen.family.name != family:
        raise MaskError(
            f"{algorithm} runs {family} masks; mask={chosen.spec!r} is a {chosen.family.name} mask"
        )
    return chosen


def _pattern(mask: object, n: int, window: int | None) -> str:
    """The pattern of :data:`~attnio.algorithms.masks.PATTERNS` a block-sparse algorithm
    covers for the spec ``mask`` (``window``/``band`` with ``window``, ``window:W``,
    ``causal`` ...), checked to fit n as a mask of :mod:`attnio.bounds.masks`."""
    if mask in ("window", "band", "local"):
        if window is None:
            raise MaskError(f"mask={mask!r} needs window=W (--window W)")
        mask = f"{mask}:{window}"
    elif window is not None:
        raise MaskError(f"window={window} applies only to mask='window' or 'band', not {mask!r}")
    if not isinstance(mask, str):
        raise MaskError(f"mask={mask!r} must be a pattern name")
    name, _, width = mask.partition(":")
    if name in ("causal", "full", "window", "local", "band"):
        parse_mask(mask, n)  # a window larger than n, a negative band ...: refused here
    return f"local:{width}" if name == "window" else mask


def _place(
    machine: TwoLevelMachine,
    pass_: str,
    n: int,
    d: int,
    seed: int,
    entry_bound: float | None,
    mask: np.ndarray | None,
    entries: str = "uniform",
    approx: approximate.Approximation | None = None,
) -> dict[str, np.ndarray]:
    names = ("Q", "K", "V") if pass_ == "forward" else ("Q", "K", "V", "O", "dO", "L")
    if not machine.numeric:
        for name in names:
            machine.put(name, (n, 1 if name == "L" else d))
        return {}
    data = inputs(n, d, seed, entry_bound, entries, approx)
    if pass_ == "backward":
        forward = reference.attention(data["Q"], data["K"], data["V"], mask)
        data["O"], data["L"] = forward.O, forward.L
        data["dO"] = np.random.default_rng(seed + 1).standard_normal((n, d))
    for name in names:
        machine.put(name, data[name])
    return data


def _place_shape(
    machine: TwoLevelMachine, pass_: str, d: int, seed: int, shape: tuple[int, int, int, int]
) -> dict[str, np.ndarray]:
    """Place stacked head-major inputs (docs/notation.md): Q, O, dO, L with h_q n_q rows,
    K, V with h_kv n_kv rows; seeded as :func:`inputs`."""
    rows, keys = shapes.stacked_rows(shape)
    sizes = {"Q": rows, "K": keys, "V": keys, "O": rows, "dO": rows, "L": rows}
    names = ("Q", "K", "V") if pass_ == "forward" else tuple(sizes)
    if not machine.numeric:
        for name in names:
            machine.put(name, (sizes[name], 1 if name == "L" else d))
        return {}
    rng = np.random.default_rng(seed)
    data = {name: rng.standard_normal((sizes[name], d)) / d**0.25 for name in ("Q", "K", "V")}
    if pass_ == "backward":
        data["O"], data["L"] = shapes.reference_forward(data["Q"], data["K"], data["V"], shape)
        data["dO"] = np.random.default_rng(seed + 1).standard_normal((rows, d))
    for name in names:
        machine.put(name, data[name])
    return data


def _compare_shape(
    machine: TwoLevelMachine, pass_: str, data: dict, shape: tuple[int, int, int, int]
) -> float:
    """Relative error of a shape run against grouped-query attention by the definition."""
    Q, K, V = data["Q"], data["K"], data["V"]
    if pass_ == "backward":
        names = ("dQ", "dK", "dV")
        got = np.concatenate([machine.result(name) for name in names])
        want = np.concatenate(shapes.reference_gradients(Q, K, V, data["dO"], shape))
        return reference.relative_error(got, want)
    O, L = shapes.reference_forward(Q, K, V, shape)
    if "L" in machine.slow:
        got = machine.result("L").ravel()
    else:  # FlashAttention's row statistics: L = m + log l
        got = machine.result("m").ravel() + np.log(machine.result("l").ravel())
    return max(
        reference.relative_error(machine.result("O"), O),
        reference.relative_error(got, L),
    )


def _compare(
    machine: TwoLevelMachine,
    algorithm: str,
    pass_: str,
    data: dict,
    mask: np.ndarray | None,
    approx,
) -> tuple[float, float | None, str]:
    """Return (error, error bound or None, note) of a numeric run against its reference."""
    Q, K, V = data["Q"], data["K"], data["V"]
    names = ("dQ", "dK", "dV")
    if pass_ == "backward":
        got = np.concatenate([machine.result(name) for name in names])
        exact = reference.gradients(Q, K, V, data["dO"], mask)
        exact_all = np.concatenate([getattr(exact, k) for k in names])
        if approx is not None:
            want = np.concatenate(approximate.approximate_gradients(Q, K, V, data["dO"], approx))
            gap = reference.relative_error(got, exact_all)
            note = (
                f"error is against the gradient of the approximate output; against exact "
                f"attention's gradients it is {gap:.3g} (no bound derived)"
            )
            return reference.relative_error(got, want), None, note
        # one scale for the three gradients: dQ = dK = 0 exactly when n = 1
        return reference.relative_error(got, exact_all), None, ""
    want = reference.attention(Q, K, V, mask)
    got = machine.result("O")
    if approx is not None:
        bound = approx.output_bound(float(np.abs(V).max()))
        return float(np.max(np.abs(got - want.O))), bound, ""
    errors = [reference.relative_error(got, want.O)]
    if "L" in machine.slow:
        errors.append(reference.relative_error(machine.result("L").ravel(), want.L))
    if "l" in machine.slow:
        L = machine.result("m").ravel() + np.log(machine.result("l").ravel())
        errors.append(reference.relative_error(L, want.L))
    return max(errors), None, ""
