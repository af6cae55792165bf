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
