"""Mask families of sparse attention: which (query, key) pairs a mask allows, by name.

A mask is an n x n boolean matrix; query i attends to key j where it is true, and every
row allows some key. attnio names the families people run, each with its parameters
(symbols of :mod:`attnio.bounds.symbols`) and its number of allowed pairs Z, typed once
here as a sympy expression:

========== ============ ========================================= ==========================
family     parameters   allowed pairs (query i, key j)            Z
========== ============ ========================================= ==========================
full       none         every pair                                n^2
causal     none         j <= i                                    n (n + 1) / 2
window     w, 1..n      i - w < j <= i (causal sliding window)    w n - w (w - 1) / 2
band       w, 0..n-1    |i - j| <= w (symmetric band)             (2 w + 1) n - w (w + 1)
block      block mask   the pairs of the set blocks of an R x C   sum of the set blocks'
                        block mask, blocks of ceil(n / R) rows    areas
                        and ceil(n / C) columns (DFE22 Prop 4)
arbitrary  n x n array  the array's true entries                  the true entries
========== ============ ========================================= ==========================

Besides Z a mask gives what the schedules and the bounds read: the interval of keys of
each query and of queries of each key (full, causal, window and band allow intervals:
:meth:`Mask.keys`, :meth:`Mask.queries`), and :meth:`Mask.densest`, an upper bound on
the allowed pairs of any a x b submatrix (any a rows, any b columns), the quantity a
Loomis-Whitney count takes in place of a b; it is exact for full and causal.
:meth:`Mask.submatrix_pairs` is that quantity F(a, b) exactly (for masks of few distinct
rows or columns), :meth:`Mask.pairs_bound` and :meth:`Mask.pairs_table` an upper bound
always computed, and :meth:`Mask.pair_ratio` the largest F(a, b) / (a + b) within a size,
the mask's structure in the lower bounds of ``proofs/derivations/mask-lower.md``.

Masks come from a spec (:func:`parse_mask`: ``causal``, ``window:W``, a JSON file ...)
or from the command line's arguments (:meth:`Mask.from_arguments`: ``--mask window
--window W``). A mask that does not fit n is refused with :class:`MaskSpecError`, whose
message names the argument and its value.

References
----------
DFE22 Proposition 4 (block-sparse masks); attnio's own families and formulas.
"""

from __future__ import annotations

import functools
import itertools
import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np
import sympy as sp

from . import rational
from .errors import MaskSpecError
from .symbols import n, w


@dataclass(frozen=True)
class Family:
    """A named family of masks.

    Attributes
    ----------
    name : str
        ``full``, ``causal``, ``window``, ``band``, ``block`` or ``arbitrary``.
    parameters : tuple of str
        Names of its symbols beyond n (``("w",)`` for window and band).
    pairs : sympy.Expr or None
        Z in n and the parameters; ``None`` where Z depends on an array.
    meaning : str
        Which pairs it allows, in words.
    """

    name: str
    parameters: tuple[str, ...]
    pairs: sp.Expr | None
    meaning: str

    @property
    def symbols(self) -> dict[str, sp.Symbol]:
        """The family's symbols by name (n and its parameters)."""
        return {"n": n, **({"w": w} if "w" in self.parameters else {})}


FAMILIES: dict[str, Family] = {
    family.name: family
    for family in (
        Family("full", (), n**2, "every pair"),
        Family("causal", (), n * (n + 1) / 2, "key j <= query i"),
        Family("window", ("w",), w * n - w * (w - 1) / 2, "i - w < j <= i"),
        Family("band", ("w",), (2 * w + 1) * n - w * (w + 1), "|i - j| <= w"),
        Family("block", (), None, "the set blocks of a block mask"),
        Family("arbitrary", (), None, "the true entries of an n x n array"),
    )
}
"""Every mask family, by name."""

INTERVAL_FAMILIES = ("full", "causal", "window", "band")
"""Families whose queries each allow one interval of keys (and keys one interval of queries)."""

ALIASES = {"local": "window"}
"""Former spec names: ``local:W`` is ``window:W``."""


@functools.lru_cache(maxsize=4096)
def _family_pairs(family: str, n_: int, w_: int | None) -> int:
    """Z of an interval family at (n, w), from its formula (memoized: a claim's grid asks
    for the same few masks' Z hundreds of thousands of times)."""
    formula = FAMILIES[family].pairs
    point = ((n, sp.Integer(n_)),) + (() if w_ is None else ((w, sp.Integer(w_)),))
    return int(rational.value_at(formula, point))


@dataclass(frozen=True, eq=False)
class Mask:
    """One mask at one n: a family, its width or its array.

    Build it with :func:`parse_mask`, :meth:`from_arguments` or :func:`make_mask`, which
    check it; the constructor does not.
    """

    family: Family
    n: int
    w: int | None = None
    array: np.ndarray | None = field(default=None, repr=False)

    @property
    def spec(self) -> str:
        """The spec :func:`parse_mask` reads back (``window:4``; ``block``, ``arbitrary``)."""
        return self.family.name + ("" if self.w is None else f":{self.w}")

    def allowed(self) -> np.ndarray:
        """The n x n boolean matrix of allowed pairs."""
        if self.array is not None:
            return self.array.copy()
        i, j = np.arange(self.n)[:, None], np.arange(self.n)[None, :]
        name = self.family.name
        if name == "full":
            return np.ones((self.n, self.n), dtype=bool)
        if name == "causal":
            return j <= i
        if name == "window":
            return (j <= i) & (j > i - self.w)
        return np.abs(i - j) <= self.w

    def pairs(self) -> int:
        """Z, the allowed pairs: the family's formula, or the array's true entries.

        Examples
        --------
        >>> make_mask("window", 5, w=2).pairs(), int(make_mask("window", 5, w=2).allowed().sum())
        (9, 9)
        """
        if self.family.pairs is None:
            return int(self.array.sum())
        return _family_pairs(self.family.name, self.n, self.w)

    def values(self, *, pairs: bool = True) -> dict[sp.Symbol, int]:
        """The mask's symbols and their values: n, w where it has one, Z."""
        found: dict[sp.Symbol, int] = {n: self.n}
        if self.w is not None:
            found[w] = self.w
        if pairs:
            found[sp.Symbol("Z", integer=True, positive=True)] = self.pairs()
        return found

    def point(self) -> dict[str, int]:
        """Z and, where the family has it, w, by name: the mask's part of a record's point."""
        return {"Z": self.pairs(), **({} if self.w is None else {"w": self.w})}

    def keys(self, i: int) -> tuple[int, int]:
        """The ``[start, stop)`` interval of keys query ``i`` attends to (interval families).

        Examples
        --------
        >>> make_mask("band", 6, w=1).keys(0), make_mask("window", 6, w=3).keys(4)
        ((0, 2), (2, 5))
        """
        name = self.family.name
        if name == "full":
            return 0, self.n
        if name == "causal":
            return 0, i + 1
        if name == "window":
            return max(0, i - self.w + 1), i + 1
        if name == "band":
            return max(0, i - self.w), min(self.n, i + self.w + 1)
        raise MaskSpecError(f"mask={self.spec!r} allows no interval of keys per query")

    def queries(self, j: int) -> tuple[int, int]:
        """The ``[start, stop)`` interval of queries that attend to key ``j`` (interval families)."""
        name = self.family.name
        if name == "full":
            return 0, self.n
        if name == "causal":
            return j, self.n
        if name == "window":
            return j, min(self.n, j + self.w)
        if name == "band":
            return max(0, j - self.w), min(self.n, j + self.w + 1)
        raise MaskSpecError(f"mask={self.spec!r} allows no interval of queries per key")

    def densest(self, a: int, b: int) -> int:
        """An upper bound on the allowed pairs of any a x b submatrix (a rows, b columns).

        The least of: the a largest row counts, each capped at b; the b largest column
        counts, each capped at a. It is exact for the full and causal masks (the last a
        rows and the first b columns of a causal mask hold sum_{t < a} min(b, n - t)
        pairs), an upper bound for the others; the Loomis-Whitney step of a lower bound
        may take it in place of a b.

        Examples
        --------
        >>> make_mask("causal", 4).densest(2, 2), make_mask("full", 4).densest(2, 3)
        (4, 6)
        """
        if not (1 <= a <= self.n and 1 <= b <= self.n):
            raise MaskSpecError(f"submatrix {a} x {b} must fit the {self.n} x {self.n} mask")
        allowed = self.allowed()
        rows = np.sort(allowed.sum(axis=1))[::-1][:a]
        cols = np.sort(allowed.sum(axis=0))[::-1][:b]
        return int(min(np.minimum(rows, b).sum(), np.minimum(cols, a).sum()))

    def submatrix_pairs(self, a: int, b: int) -> int:
        """F(a, b): the most allowed pairs of any a x b submatrix (any a rows, any b
        columns), exactly; 0 if a or b is 0 (mask-lower.md, section 2).

        Full: a b. Causal: sum_{t < a} min(b, n - t) (the last a rows, the first b
        columns; no a rows have more keys, so it is also :meth:`densest`). Otherwise rows
        with equal patterns are grouped into classes (a block mask has one class per row
        block) and F is the largest, over the vertices of {x : sum x = a, 0 <= x_c <= |c|}
        (every class full or empty but at most one), of the b largest column sums of the
        chosen rows: for fixed rows the best columns are the b largest, and that maximum is
        convex in x, so it is reached at a vertex. The columns' classes are used instead
        when they are fewer.

        Raises
        ------
        MaskSpecError
            a or b outside 0..n, or more than :data:`EXACT_CLASSES` classes both ways (the
            enumeration's 2^classes guard); :meth:`pairs_bound` is the bound always given.

        Examples
        --------
        >>> make_mask("window", 6, w=2).submatrix_pairs(3, 3), make_mask("causal", 5).submatrix_pairs(2, 4)
        (5, 8)
        """
        self._check_submatrix(a, b)
        if a == 0 or b == 0:
            return 0
        name = self.family.name
        if name == "full":
            return a * b
        if name == "causal":
            return sum(min(b, self.n - t) for t in range(a))
        return _exact_pairs(self._classes(), a, b)

    def pairs_bound(self, a: int, b: int) -> int:
        """An upper bound on F(a, b) that is always computed: :meth:`submatrix_pairs`
        where its enumeration fits :data:`EXACT_WORK`, else the least of a b and
        :meth:`densest` (the a largest row counts capped at b, the b largest column counts
        capped at a; at most min(a, b) w for a window or a band of w keys a row)."""
        self._check_submatrix(a, b)
        return int(self.pairs_table(max(a, b))[a, b])

    def pairs_table(self, s: int) -> np.ndarray:
        """The table of :meth:`pairs_bound` at every 0 <= a, b <= min(s, n): F exactly
        (full, causal, or the class enumeration of :meth:`submatrix_pairs` when its work
        fits :data:`EXACT_WORK`), else the least of a b and the row- and column-count caps
        of :meth:`densest`, computed for all a, b at once."""
        if isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 0:
            raise MaskSpecError(f"s={s!r} must be a nonnegative integer")
        top = min(int(s), self.n)
        a = np.arange(top + 1)
        name = self.family.name
        if name == "full":
            return np.outer(a, a)
        if name == "causal":
            degrees = self.n - a[:top]
            capped = np.minimum(degrees[:, None], a[None, :])
            return np.vstack([np.zeros(top + 1, dtype=np.int64), np.cumsum(capped, axis=0)])
        interval = name in INTERVAL_FAMILIES
        exact = None if interval and self.n > EXACT_CLASSES else _exact_table(self._classes(), top)
        if exact is not None:
            return exact
        if interval:  # the degrees from the intervals, no n x n matrix
            index = np.arange(self.n)
            row_degrees = np.array([hi - lo for lo, hi in map(self.keys, index)])
            col_degrees = np.array([hi - lo for lo, hi in map(self.queries, index)])
        else:
            allowed = self.allowed()
            row_degrees, col_degrees = allowed.sum(axis=1), allowed.sum(axis=0)
        rows = np.sort(row_degrees)[::-1][:top]
        cols = np.sort(col_degrees)[::-1][:top]
        by_rows = np.vstack(
            [np.zeros(top + 1, dtype=np.int64), np.cumsum(np.minimum(rows[:, None], a), axis=0)]
        )
        by_cols = np.vstack(
            [np.zeros(top + 1, dtype=np.int64), np.cumsum(np.minimum(cols[:, None], a), axis=0)]
        )
        return np.minimum(np.minimum(np.outer(a, a), by_rows), by_cols.T)

    def pair_ratio(self, s: int) -> Fraction:
        """gamma(s): the largest F(a, b) / (a + b) over a, b >= 1 with a + b <= s (F taken
        as :meth:`pairs_bound`, so an upper bound where F is not exact); 0 for s < 2.

        A part whose dominator set holds r vertices of whole rows, a of Q and b of K,
        d (a + b) <= r, completes from them at most d F(a, b) <= d gamma (a + b) <= gamma r
        products P_ij V_jk (mask-lower.md, section 2): full and causal masks have gamma(s)
        about s / 4, a window of width w at most w / 2.

        Examples
        --------
        >>> make_mask("full", 8).pair_ratio(8), make_mask("window", 8, w=1).pair_ratio(8)
        (Fraction(2, 1), Fraction(1, 2))
        """
        if isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 0:
            raise MaskSpecError(f"s={s!r} must be a nonnegative integer")
        table = self.pairs_table(max(int(s) - 1, 0))
        a = np.arange(table.shape[0])
        sums = a[:, None] + a[None, :]
        valid = (a[:, None] >= 1) & (a[None, :] >= 1) & (sums <= s)
        if not valid.any():
            return Fraction(0)
        ratios = np.where(valid, table / np.maximum(sums, 1), -1.0)
        near = np.argwhere(valid & (ratios >= ratios.max() * (1 - 1e-9)))
        return max(Fraction(int(table[i, j]), int(i + j)) for i, j in near)

    def _check_submatrix(self, a: int, b: int) -> None:
        for name, value in (("a", a), ("b", b)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise MaskSpecError(f"{name}={value!r} must be an integer")
            if not 0 <= value <= self.n:
                raise MaskSpecError(f"{name}={value} must be in 0..{self.n} (the mask's n)")

    def _classes(self) -> tuple[np.ndarray, np.ndarray, bool]:
        """The distinct row patterns (or, when fewer, column patterns, the mask transposed)
        and how many rows share each: the classes :meth:`submatrix_pairs` enumerates."""
        allowed = self.allowed()
        rows, row_sizes = np.unique(allowed, axis=0, return_counts=True)
        cols, col_sizes = np.unique(allowed.T, axis=0, return_counts=True)
        if len(cols) < len(rows):
            return cols, col_sizes, True
        return rows, row_sizes, False

    @classmethod
    def from_arguments(
        cls,
        mask: str | None,
        n_: int,
        *,
        window: int | None = None,
        block_mask: str | np.ndarray | None = None,
    ) -> Mask:
        """The mask of the command line's ``--mask``, ``--window`` and ``--block-mask``.

        ``mask`` is a family name (``causal``, ``full``, ``window`` and ``band`` with
        ``window``, ``block`` with ``block_mask``), a spec of :func:`parse_mask`
        (``window:W``), or the path of a ``.json`` or ``.npy`` file of an n x n array.

        Raises
        ------
        MaskSpecError
            One line naming the argument and its value.

        Examples
        --------
        >>> Mask.from_arguments("window", 8, window=3).spec
        'window:3'
        """
        name = ALIASES.get(mask, mask)
        if name in ("window", "band"):
            if window is None:
                raise MaskSpecError(f"--mask {mask} needs --window W (the width w)")
            return make_mask(name, n_, w=window)
        if window is not None:
            raise MaskSpecError(
                f"--window {window} applies only to --mask window or --mask band, not --mask {mask}"
            )
        if name == "block":
            if block_mask is None:
                raise MaskSpecError("--mask block needs --block-mask FILE (a .json or .npy array)")
            array = (
                read_array(block_mask, "--block-mask")
                if isinstance(block_mask, str)
                else block_mask
            )
            return block_mask_of(array, n_, argument=f"--block-mask {block_mask}"
                                 if isinstance(block_mask, str) else "block_mask")  # fmt: skip
        if block_mask is not None:
            raise MaskSpecError(f"--block-mask applies only to --mask block, not --mask {mask}")
        if mask is None:
            raise MaskSpecError("no mask given: --mask causal, window, band, block or FILE")
        return parse_mask(mask, n_, argument="--mask")


EXACT_CLASSES = 12
"""Most row (or column) classes :meth:`Mask.submatrix_pairs` enumerates: 2^12 subsets of
classes, each with one partial class at most."""

EXACT_WORK = 2_000_000
"""Most column sums :meth:`Mask.pairs_table` computes for its exact table (subsets of full
classes times partial classes and amounts, times the columns); past it the table is the
row- and column-count caps, an upper bound."""


def _vertices(sizes: np.ndarray, most: int):
    """The vertices x of {x : sum x = total, 0 <= x_c <= sizes_c} for every total <= most:
    every class full or empty but at most one, which takes 1 .. sizes_c - 1 rows."""
    count = len(sizes)
    for chosen in range(count + 1):
        for full in itertools.combinations(range(count), chosen):
            taken = int(sizes[list(full)].sum())
            if taken > most:
                continue
            yield full, None, 0
            for c in range(count):
                if c not in full:
                    for rest in range(1, min(int(sizes[c]) - 1, most - taken) + 1):
                        yield full, c, rest


def _exact_pairs(classes: tuple[np.ndarray, np.ndarray, bool], a: int, b: int) -> int:
    """F(a, b) over classes of equal rows: the best vertex x with sum x = a, each with its
    b largest column sums (a and b swapped for column classes)."""
    patterns, sizes, transposed = classes
    if transposed:
        a, b = b, a
    if len(patterns) > EXACT_CLASSES:
        raise MaskSpecError(
            f"mask has {len(patterns)} classes of equal rows and of equal columns; the exact "
            f"F(a, b) enumerates at most {EXACT_CLASSES} (pairs_bound bounds it)"
        )
    weights = patterns.astype(np.int64)
    best = 0
    for full, partial, rest in _vertices(sizes, a):
        if int(sizes[list(full)].sum()) + rest != a:
            continue
        sums = weights[list(full)].T @ sizes[list(full)] if full else np.zeros(
            weights.shape[1], dtype=np.int64)  # fmt: skip
        if partial is not None:
            sums = sums + rest * weights[partial]
        best = max(best, int(np.sort(sums)[::-1][:b].sum()))
    return best


def _exact_table(classes: tuple[np.ndarray, np.ndarray, bool], top: int) -> np.ndarray | None:
    """F(a, b) for every 0 <= a, b <= top by the class enumeration, or None if its work
    passes :data:`EXACT_WORK` or the classes :data:`EXACT_CLASSES`."""
    patterns, sizes, transposed = classes
    count, width = patterns.shape
    if count > EXACT_CLASSES:
        return None
    work = 0
    for chosen in range(count + 1):
        for full in itertools.combinations(range(count), chosen):
            taken = int(sizes[list(full)].sum())
            if taken <= top:
                others = sum(min(int(sizes[c]) - 1, top - taken)
                             for c in range(count) if c not in full)  # fmt: skip
                work += (1 + others) * width
        if work > EXACT_WORK:
            return None
    weights = patterns.astype(np.int64)
    table = np.zeros((top + 1, top + 1), dtype=np.int64)
    for full, partial, rest in _vertices(sizes, top):
        total = int(sizes[list(full)].sum()) + rest
        sums = weights[list(full)].T @ sizes[list(full)] if full else np.zeros(
            width, dtype=np.int64)  # fmt: skip
        if partial is not None:
            sums = sums + rest * weights[partial]
        prefix = np.concatenate([[0], np.cumsum(np.sort(sums)[::-1])])[: top + 1]
        prefix = np.pad(prefix, (0, top + 1 - len(prefix)), mode="edge")
        table[total] = np.maximum(table[total], prefix)
    return table.T.copy() if transposed else table


SAMPLE_WIDTHS = (1, 2, 3, 64, 1024)
"""Widths w of the sample windows and bands of :func:`sample_masks` (those that fit n)."""


def sample_masks(family: str, n_: int) -> tuple[Mask, ...]:
    """The masks of an interval family the checks use at size n: the causal or full mask,
    or each window (widths :data:`SAMPLE_WIDTHS` and n) and band (widths below n) that fits.

    Examples
    --------
    >>> [mask.spec for mask in sample_masks("window", 3)]
    ['window:1', 'window:2', 'window:3']
    """
    if family in ("causal", "full"):
        return (make_mask(family, n_),)
    if family == "window":
        widths = sorted({w for w in SAMPLE_WIDTHS if w <= n_} | {n_})
    elif family == "band":
        widths = [w for w in SAMPLE_WIDTHS if w <= n_ - 1]
    else:
        raise MaskSpecError(f"mask={family!r} has no sample masks; give one of {INTERVAL_FAMILIES}")
    return tuple(make_mask(family, n_, w=width) for width in widths)


def make_mask(
    family: str, n_: int, *, w: int | None = None, array: np.ndarray | None = None
) -> Mask:
    """Return a checked mask of ``family`` at size n.

    Raises
    ------
    MaskSpecError
        Unknown family; a window outside 1..n, a band outside 0..n-1; an array that is
        not n x n boolean (or 0/1) or has a row that allows no key.
    """
    if isinstance(n_, bool) or not isinstance(n_, int | np.integer) or n_ < 1:
        raise MaskSpecError(f"n={n_!r} must be a positive integer")
    name = ALIASES.get(family, family)
    if name not in FAMILIES:
        raise MaskSpecError(f"mask={family!r} is not one of: {', '.join(FAMILIES)}")
    chosen = FAMILIES[name]
    if "w" in chosen.parameters:
        least, most = (1, n_) if name == "window" else (0, n_ - 1)
        if isinstance(w, bool) or not isinstance(w, int | np.integer) or not least <= w <= most:
            raise MaskSpecError(
                f"window={w!r} does not fit n={n_}: a {name} mask needs an integer width "
                f"{least} <= w <= {most}"
            )
        return Mask(chosen, int(n_), w=int(w))
    if w is not None:
        raise MaskSpecError(f"window={w!r} applies only to window and band masks, not {name}")
    if name in ("block", "arbitrary"):
        if array is None:
            raise MaskSpecError(f"a {name} mask needs its array")
        if name == "block":
            return block_mask_of(array, n_)
        return Mask(chosen, int(n_), array=_boolean(array, (n_, n_), "mask"))
    return Mask(chosen, int(n_))


def _boolean(array: object, shape: tuple[int, int], argument: str) -> np.ndarray:
    """``array`` as a boolean array of ``shape``, every row nonempty, else MaskSpecError."""
    try:
        array = np.asarray(array)
    except ValueError:
        raise MaskSpecError(f"{argument} must hold a rectangular array") from None
    if array.shape != shape:
        raise MaskSpecError(f"{argument} has shape {array.shape}; it must be {shape}")
    if array.dtype != bool:
        if array.dtype.kind not in "iuf" or not np.all(np.isin(array, (0, 1))):
            raise MaskSpecError(f"{argument} entries must be 0/1 or booleans")
        array = array.astype(bool)
    empty = np.flatnonzero(~array.any(axis=1))
    if empty.size:
        raise MaskSpecError(
            f"{argument}: row {int(empty[0])} allows no key; every row of attention needs "
            f"an allowed entry ({empty.size} empty rows)"
        )
    return array


def block_mask_of(array: object, n_: int, *, argument: str = "block_mask") -> Mask:
    """The ``block`` mask of an R x C block mask at size n: blocks of ceil(n / R) rows and
    ceil(n / C) columns (the last ones shorter), which must give exactly R x C blocks.

    Examples
    --------
    >>> block_mask_of([[1, 0], [1, 1]], 4).allowed().astype(int).tolist()[1]
    [1, 1, 0, 0]
    """
    try:
        coarse = np.asarray(array)
    except ValueError:
        raise MaskSpecError(f"{argument} must hold a rectangular array") from None
    if coarse.ndim != 2 or 0 in coarse.shape:
        raise MaskSpecError(f"{argument} has shape {coarse.shape}; it must be a 2-d block mask")
    rows, cols = coarse.shape
    if rows > n_ or cols > n_:
        raise MaskSpecError(
            f"{argument} has shape {coarse.shape}: more blocks than the n={n_} rows or columns"
        )
    height, width = -(-n_ // rows), -(-n_ // cols)
    if -(-n_ // height) != rows or -(-n_ // width) != cols:
        raise MaskSpecError(
            f"{argument} has shape {coarse.shape}, which no block size gives at n={n_} "
            f"(blocks of {height} x {width} make {-(-n_ // height)} x {-(-n_ // width)})"
        )
    coarse = _boolean(coarse, (rows, cols), argument)
    fine = coarse[np.ix_(np.arange(n_) // height, np.arange(n_) // width)]
    return Mask(FAMILIES["block"], int(n_), array=fine)


def read_array(path: str, argument: str) -> np.ndarray:
    """The array of a ``.json`` or ``.npy`` file, else MaskSpecError naming ``argument``."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".json", ".npy"):
        raise MaskSpecError(f"{argument} {path!r} must be a .json or .npy file of an array")
    try:
        if suffix == ".npy":
            return np.load(target, allow_pickle=False)
        data = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MaskSpecError(f"{argument} {path!r}: no such file") from None
    except json.JSONDecodeError as error:
        raise MaskSpecError(f"{argument} {path!r} is not valid JSON ({error})") from None
    except UnicodeDecodeError as error:
        raise MaskSpecError(
            f"{argument} {path!r} is not UTF-8 text (byte offset {error.start})"
        ) from None
    except (OSError, ValueError) as error:
        raise MaskSpecError(f"{argument} {path!r} cannot be read ({error})") from None
    try:
        return np.asarray(data)
    except ValueError:
        raise MaskSpecError(f"{argument} {path!r} must hold a rectangular array") from None


def parse_mask(spec: str, n_: int, *, argument: str = "mask") -> Mask:
    """Return the mask named by ``spec`` at size n.

    ``full``, ``causal``, ``window:W`` (or the former ``local:W``), ``band:W``, or the path
    of a ``.json`` or ``.npy`` file of an n x n array of 0/1 or booleans (``arbitrary``).

    Examples
    --------
    >>> parse_mask("band:1", 3).allowed().astype(int).tolist()
    [[1, 1, 0], [1, 1, 1], [0, 1, 1]]
    """
    name, colon, width = spec.partition(":")
    name = ALIASES.get(name, name)
    if name in ("full", "causal") and not colon:
        return make_mask(name, n_)
    if name in ("window", "band") and colon:
        try:
            value = int(width)
        except ValueError:
            raise MaskSpecError(
                f"{argument}={spec!r}: the width {width!r} is not an integer"
            ) from None
        return make_mask(name, n_, w=value)
    if Path(spec).suffix.lower() in (".json", ".npy"):
        array = read_array(spec, f"{argument} file")
        return Mask(
            FAMILIES["arbitrary"], n_, array=_boolean(array, (n_, n_), f"mask file {spec!r}")
        )
    raise MaskSpecError(
        f"{argument}={spec!r} must be causal, full, window:W, band:W (or --window W), or a "
        ".json or .npy file of an n x n array"
    )


__all__ = [
    "ALIASES",
    "EXACT_CLASSES",
    "EXACT_WORK",
    "FAMILIES",
    "INTERVAL_FAMILIES",
    "SAMPLE_WIDTHS",
    "Family",
    "Mask",
    "block_mask_of",
    "make_mask",
    "parse_mask",
    "read_array",
    "sample_masks",
]
