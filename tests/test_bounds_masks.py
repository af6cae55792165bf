"""Tests of attnio.bounds.masks: the mask families, their Z, intervals, densest submatrices
and the refusals of masks that do not fit."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from attnio.bounds.errors import MaskSpecError
from attnio.bounds.masks import (
    FAMILIES,
    Mask,
    block_mask_of,
    make_mask,
    parse_mask,
    sample_masks,
)


def _masks(largest: int):
    for n in range(1, largest + 1):
        yield make_mask("full", n)
        yield make_mask("causal", n)
        yield from (make_mask("window", n, w=w) for w in range(1, n + 1))
        yield from (make_mask("band", n, w=w) for w in range(n))


def test_pairs_formula_counts_the_allowed_entries() -> None:
    """Each named family's Z formula equals the number of true entries of its matrix,
    at every n <= 12 and every width that fits."""
    for mask in _masks(12):
        assert mask.pairs() == int(mask.allowed().sum()), mask.spec


def test_intervals_are_the_rows_and_columns_of_the_matrix() -> None:
    """keys(i) is exactly the allowed keys of query i and queries(j) the queries of key j."""
    for mask in _masks(8):
        allowed = mask.allowed()
        for i in range(mask.n):
            assert list(range(*mask.keys(i))) == np.flatnonzero(allowed[i]).tolist()
            assert list(range(*mask.queries(i))) == np.flatnonzero(allowed[:, i]).tolist()


def test_densest_bounds_every_submatrix_and_is_exact_for_full_and_causal() -> None:
    """densest(a, b) is at least the allowed pairs of every a x b submatrix (exhaustive at
    n <= 5), and equal to the largest for the full and causal masks."""
    for mask in _masks(5):
        allowed = mask.allowed()
        n = mask.n
        for a, b in itertools.product(range(1, n + 1), repeat=2):
            best = max(
                int(allowed[np.ix_(rows, cols)].sum())
                for rows in itertools.combinations(range(n), a)
                for cols in itertools.combinations(range(n), b)
            )
            assert best <= mask.densest(a, b), (mask.spec, a, b)
            if mask.family.name in ("full", "causal"):
                assert best == mask.densest(a, b), (mask.spec, a, b)


def test_specs_and_arguments_name_the_same_masks(tmp_path) -> None:
    """local:W is window:W; --mask window --window W is window:W; a JSON file is arbitrary;
    a block mask expands to its blocks."""
    assert (parse_mask("local:2", 5).allowed() == parse_mask("window:2", 5).allowed()).all()
    assert Mask.from_arguments("band", 6, window=2).spec == "band:2"
    path = tmp_path / "mask.json"
    path.write_text(json.dumps([[1, 0], [1, 1]]), encoding="utf-8")
    chosen = Mask.from_arguments(str(path), 2)
    assert chosen.family.name == "arbitrary" and chosen.pairs() == 3
    block = tmp_path / "blocks.npy"
    np.save(block, np.array([[True, False], [True, True]]))
    expanded = Mask.from_arguments("block", 4, block_mask=str(block)).allowed()
    assert expanded.astype(int).tolist() == [[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]]
    assert set(FAMILIES) == {"full", "causal", "window", "band", "block", "arbitrary"}
    assert [m.spec for m in sample_masks("band", 3)] == ["band:1", "band:2"]


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: make_mask("window", 4, w=5), "window=5"),
        (lambda: make_mask("window", 4, w=0), "window=0"),
        (lambda: make_mask("band", 4, w=4), "window=4"),
        (lambda: Mask.from_arguments("window", 4), "--window"),
        (lambda: Mask.from_arguments("causal", 4, window=2), "--window 2"),
        (lambda: Mask.from_arguments("block", 4), "--block-mask"),
        (lambda: make_mask("arbitrary", 2, array=np.array([[1, 0], [0, 0]])), "row 1"),
        (lambda: make_mask("arbitrary", 2, array=np.array([[2, 0], [1, 1]])), "0/1"),
        (lambda: make_mask("arbitrary", 2, array=np.ones((2, 3))), "shape"),
        (lambda: block_mask_of(np.ones((3, 2)), 4), "(3, 2)"),
        (lambda: block_mask_of(np.ones((5, 1)), 4), "(5, 1)"),
        (lambda: parse_mask("window:x", 4), "'x'"),
        (lambda: parse_mask("stripes", 4), "stripes"),
        (lambda: make_mask("diagonal", 4), "diagonal"),
    ],
)
def test_masks_that_do_not_fit_are_refused_naming_the_argument(build, words) -> None:
    """A window outside 1..n, a band outside 0..n-1, a missing or stray --window or
    --block-mask, an empty row, a non-boolean array, a wrong shape and an unknown family
    are each one MaskSpecError (a ValueError) whose message names the argument and value."""
    with pytest.raises(MaskSpecError, match=None) as caught:
        build()
    assert words in str(caught.value)
    assert isinstance(caught.value, ValueError)


def _brute_pairs(allowed: np.ndarray) -> np.ndarray:
    """F(a, b) for every a, b by brute force: every a rows, then the b largest columns."""
    n = allowed.shape[0]
    table = np.zeros((n + 1, n + 1), dtype=int)
    for a in range(1, n + 1):
        for rows in itertools.combinations(range(n), a):
            sums = np.sort(allowed[list(rows)].sum(axis=0))[::-1]
            table[a, 1:] = np.maximum(table[a, 1:], np.cumsum(sums))
    return table


def _structured_masks():
    """Every named family at n <= 6, seeded random masks and random block masks at n <= 7."""
    yield from _masks(6)
    rng = np.random.default_rng(36)
    for n in range(1, 8):
        for _ in range(4):
            array = rng.random((n, n)) < rng.choice((0.2, 0.5, 0.8))
            array[np.arange(n), rng.integers(0, n, n)] = True
            yield make_mask("arbitrary", n, array=array)
        for rows, cols in ((1, 1), (2, 2), (2, 3), (3, 2)):
            fits = rows <= n and cols <= n and -(-n // -(-n // rows)) == rows
            if fits and -(-n // -(-n // cols)) == cols:
                blocks = rng.random((rows, cols)) < 0.5
                blocks[np.arange(rows), rng.integers(0, cols, rows)] = True
                yield block_mask_of(blocks, n)


def test_submatrix_pairs_is_the_densest_submatrix_of_every_mask() -> None:
    """F(a, b) (submatrix_pairs, and the table pairs_table) equals the brute-force largest
    number of allowed pairs over every a rows and b columns: every family at n <= 6, random
    and block masks at n <= 7 (seed 36); the causal formula and the class enumeration."""
    checked = 0
    for mask in _structured_masks():
        brute = _brute_pairs(mask.allowed())
        assert np.array_equal(mask.pairs_table(mask.n), brute), mask.spec
        for a, b in itertools.product(range(mask.n + 1), repeat=2):
            if (a + b + checked) % 5 == 0:  # a fifth of the (a, b), every one over the masks
                assert mask.submatrix_pairs(a, b) == brute[a, b] == mask.pairs_bound(a, b)
        checked += 1
    assert checked > 100


def test_the_count_bound_past_the_exact_work_is_an_upper_bound(monkeypatch) -> None:
    """Where the enumeration is refused (EXACT_WORK 0), pairs_table is the least of a b and
    the row and column caps: at least F everywhere, at most min(a, b) w for a window, and
    submatrix_pairs refuses a mask with too many classes (one line naming the count)."""
    from attnio.bounds import masks

    monkeypatch.setattr(masks, "EXACT_WORK", 0)
    for mask in _structured_masks():
        brute = _brute_pairs(mask.allowed())
        table = mask.pairs_table(mask.n)
        assert np.all(table >= brute), mask.spec
        if mask.family.name == "window":
            a = np.arange(mask.n + 1)
            assert np.all(table <= np.minimum.outer(a, a) * mask.w)
    monkeypatch.setattr(masks, "EXACT_CLASSES", 2)
    with pytest.raises(MaskSpecError, match="classes"):
        make_mask("window", 5, w=2).submatrix_pairs(2, 2)


def test_pair_ratio_is_the_largest_pairs_per_row_and_column() -> None:
    """pair_ratio(s) is the largest F(a, b) / (a + b) over a, b >= 1, a + b <= s (brute
    force, every s); about s / 4 for the full mask, 1/2 for the width-1 window, and at most
    w / 2 for a window at n = 65536 (from its intervals, no n x n matrix)."""
    from fractions import Fraction

    for mask in itertools.islice(_structured_masks(), 0, None, 3):
        brute = _brute_pairs(mask.allowed())
        for s in range(0, 2 * mask.n + 2):
            ratios = [
                Fraction(int(brute[a, b]), a + b)
                for a in range(1, mask.n + 1)
                for b in range(1, mask.n + 1)
                if a + b <= s
            ]
            assert mask.pair_ratio(s) == max(ratios, default=Fraction(0)), (mask.spec, s)
    assert make_mask("full", 8).pair_ratio(8) == 2
    assert make_mask("window", 8, w=1).pair_ratio(16) == Fraction(1, 2)
    assert make_mask("window", 65536, w=64).pair_ratio(512) <= 32


@pytest.mark.parametrize("a,b", [(-1, 1), (1, 5), (True, 1), (1.5, 1)])
def test_a_submatrix_outside_the_mask_is_refused(a, b) -> None:
    """a and b must be integers in 0..n: one MaskSpecError naming the argument."""
    with pytest.raises(MaskSpecError, match=r"^[ab]="):
        make_mask("causal", 4).submatrix_pairs(a, b)
