"""Tests of attnio.algorithms.interval_masks: the causal, window and band schedules move
exactly their records' words, stay within M, and compute NumPy's masked attention."""

from __future__ import annotations

import pytest

from attnio.algorithms import simulate
from attnio.algorithms.errors import AlgorithmError, BlocksDoNotFitError
from attnio.bounds import get
from attnio.bounds.masks import sample_masks

FAMILY = {
    "causal-row-streaming": "causal",
    "causal-flash2": "causal",
    "window-row-streaming": "window",
    "window-sliding": "window",
    "band-sliding": "band",
}


def _memories(d: int, n: int) -> list[int]:
    """M around each schedule's thresholds: the row-streaming and FlashAttention-2 block
    rules and the sliding schedules' interval sizes."""
    values = {6 * d + 2, 6 * d + 3, 8 * d + 4, 10 * d + 5, 12 * d - 1, 12 * d, 16 * d, 20 * d + 3}
    values |= {5 * d + 2, 5 * d + 3, 9 * d + 1, 9 * d + 2, 15 * d + 9, 27 * d + 6}
    for width in (1, 2, 3, n, 2 * n + 1):
        values |= {(2 * d + 1) * (width + 1), (3 * d + 4) * width + 4 * d}
    return sorted(values)


@pytest.mark.parametrize("algorithm", list(FAMILY))
@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_count_equals_closed_form_on_a_grid(algorithm: str, pass_: str) -> None:
    """At n in {1, 2, 3, 4, 6, 9, 11}, d in {1, 2, 3}, each M around a threshold and each sample width,
    the machine's I/O equals the record's closed form (which applies wherever the run
    fits) and the peak stays within M; runs that do not fit are outside the record."""
    record = get(f"{algorithm}-{pass_}-count")
    assert record.mask == FAMILY[algorithm]
    compared = refused = 0
    for n in (1, 2, 3, 4, 6, 9, 11):
        for d in (1, 2, 3):
            for mask in sample_masks(FAMILY[algorithm], n):
                for M in _memories(d, n):
                    point = {"n": n, "d": d, "M": M, **mask.point()}
                    used = {k: v for k, v in point.items() if k in record.parameters}
                    try:
                        run = simulate(algorithm, pass_, n, d, M, numeric=False, mask=mask.spec)
                    except BlocksDoNotFitError:
                        refused += 1
                        assert not record.applies(**used), (mask.spec, n, d, M)
                        continue
                    compared += 1
                    assert run.counts.io == run.closed_form, (mask.spec, n, d, M)
                    assert run.counts.peak <= M
    assert compared > 100 and refused > 0


@pytest.mark.parametrize("algorithm", list(FAMILY))
@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_numerics_match_numpy_masked_attention(algorithm: str, pass_: str) -> None:
    """Numeric runs match the NumPy reference with masked scores set to -inf (relative
    error < 1e-12), at sizes where several blocks and partial blocks occur."""
    for n, d, M in ((9, 2, 40), (13, 3, 120), (17, 2, 400)):
        for mask in sample_masks(FAMILY[algorithm], n):
            try:
                run = simulate(algorithm, pass_, n, d, M, mask=mask.spec)
            except BlocksDoNotFitError:
                continue
            assert run.error < 1e-12, (mask.spec, n, d, M, run.error)
            assert run.matches, (mask.spec, n, d, M)


def test_causal_row_streaming_skips_the_blocks_above_the_diagonal() -> None:
    """Causal row streaming moves fewer words than dense row streaming once there are
    several blocks, and the same when one block holds every row."""
    causal = simulate("causal-row-streaming", "forward", 64, 4, 60, numeric=False)
    dense = simulate("row-streaming", "forward", 64, 4, 60, numeric=False)
    assert causal.counts.io < dense.counts.io
    whole = simulate("causal-row-streaming", "forward", 8, 2, 1000, numeric=False)
    assert (
        whole.counts.io == simulate("row-streaming", "forward", 8, 2, 1000, numeric=False).counts.io
    )


def test_causal_flash2_skips_the_blocks_above_the_diagonal() -> None:
    """Causal FlashAttention-2 moves fewer words than FlashAttention-2 once there are
    several blocks (about half the K, V or query-side traffic), and the same when one
    block holds every row."""
    for pass_, M in (("forward", 4 * 23), ("backward", 4 * 38)):
        causal = simulate("causal-flash2", pass_, 64, 4, M, numeric=False).counts.io
        dense = simulate("flash2", pass_, 64, 4, M, numeric=False).counts.io
        assert causal < dense
        one = simulate("causal-flash2", pass_, 8, 2, 1000, numeric=False).counts.io
        assert one == simulate("flash2", pass_, 8, 2, 1000, numeric=False).counts.io


@pytest.mark.parametrize(
    ("algorithm", "options", "words"),
    [
        ("window-sliding", {"mask": "causal"}, "causal mask"),
        ("window-sliding", {}, "window=W"),
        ("window-row-streaming", {"mask": "window", "window": 9}, "window=9"),
        ("band-sliding", {"mask": "band:8"}, "window=8"),
        ("causal-row-streaming", {"block_density": 0.5}, "block_density"),
        ("causal-flash2", {"mask": "window", "window": 2}, "window mask"),
        ("flash", {"mask": "window", "window": 2}, "dense"),
    ],
)
def test_bad_masks_are_refused(algorithm: str, options: dict, words: str) -> None:
    """A mask of another family, a missing or too large width, and a mask on a dense
    algorithm are refused with a message naming the value."""
    with pytest.raises(
        AlgorithmError if "block" in words or "dense" in words else ValueError
    ) as caught:
        simulate(algorithm, "forward", 8, 2, 400, **options)
    assert words in str(caught.value)
