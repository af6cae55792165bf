"""Tests of the shape schedules (attnio.algorithms.shapes): counts, numerics, square case."""

from __future__ import annotations

import itertools

import pytest

from attnio.algorithms.errors import AlgorithmParameterError, BlocksDoNotFitError
from attnio.algorithms.simulation import simulate
from attnio.bounds import get

SHAPES = [(1, 37, 4, 2), (5, 23, 6, 3), (7, 7, 2, 2), (3, 40, 3, 1), (8, 5, 1, 1), (2, 64, 8, 8)]
RUNS = [
    ("gqa-row-streaming", "forward"),
    ("gqa-row-streaming", "backward"),
    ("split-kv-decode", "forward"),
    ("split-kv-decode", "backward"),
    ("gqa-output-stationary", "forward"),
    ("gqa-output-stationary", "backward"),
    ("gqa-flash2", "forward"),
    ("gqa-flash2", "backward"),
    ("gqa-flash", "forward"),
    ("gqa-flash", "backward"),
    ("gqa-two-sweep", "backward"),
    ("gqa-score-panel", "forward"),
]


@pytest.mark.parametrize("run", RUNS)
def test_counts_equal_closed_forms(run):
    """Counting-mode I/O equals the count record at many shapes and memories, peak <= M."""
    compared = 0
    for shape, d, M in itertools.product(SHAPES, (1, 3, 8), (27, 48, 49, 97, 200, 1001)):
        try:
            out = simulate(*run, 1, d, M, numeric=False, shape=shape)
        except BlocksDoNotFitError:
            continue
        assert out.closed_form is not None and out.counts.io == out.closed_form, (shape, d, M)
        assert out.counts.peak <= M
        compared += 1
    assert compared > 60


@pytest.mark.parametrize("run", RUNS)
def test_numerics_equal_numpy(run):
    """Numeric runs equal grouped-query attention by the definition, counts equal counting mode."""
    for shape, M in itertools.product(SHAPES[:4], (60, 300)):
        out = simulate(*run, 1, 4, M, shape=shape)
        assert out.error < 1e-12 and out.matches, (shape, M)


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_square_single_head_output_stationary_is_the_dense_schedule(pass_):
    """With n_q = n_kv = n and one head the group-aware output-stationary count equals
    output-stationary-*-count, record and run; with grouped heads it reads K and V fewer
    times than the same heads each with its own copy of K and V (h_kv = h_q)."""
    for n, d, M in itertools.product((1, 9, 37), (2, 5), (9, 60, 400)):
        ours = simulate("gqa-output-stationary", pass_, n, d, M, numeric=False)
        theirs = simulate("output-stationary", pass_, n, d, M, numeric=False)
        assert ours.counts.io == theirs.counts.io == theirs.closed_form == ours.closed_form
    grouped = simulate("gqa-output-stationary", pass_, 1, 8, 100, numeric=False,
                       shape=(2, 64, 8, 1))  # fmt: skip
    separate = simulate("gqa-output-stationary", pass_, 1, 8, 100, numeric=False,
                        shape=(2, 64, 8, 8))  # fmt: skip
    assert grouped.counts.io < separate.counts.io


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_square_single_head_flash2_is_flash2(pass_):
    """With n_q = n_kv = n and one head the group-aware FlashAttention-2 count equals
    flash2-*-count, record and run; with grouped heads it reads K and V fewer times than
    the same heads each with its own copy of K and V (h_kv = h_q), forward, and moves the
    same words less the K, V, dK, dV words of the heads it shares, backward."""
    for n, d, M in itertools.product((1, 9, 37), (2, 5), (60, 97, 400)):
        ours = simulate("gqa-flash2", pass_, n, d, M, numeric=False)
        theirs = simulate("flash2", pass_, n, d, M, numeric=False)
        assert ours.counts.io == theirs.counts.io == theirs.closed_form == ours.closed_form
    values = {"n_q": 64, "n_kv": 64, "h_q": 8, "d": 8, "M": 1000}
    record = get(f"gqa-flash2-{pass_}-count")
    grouped, separate = record.evaluate(**values, h_kv=1), record.evaluate(**values, h_kv=8)
    shared = 2 * 8 * 7 * 64 * (2 if pass_ == "backward" else 1)  # K, V (dK, dV) of 7 heads
    assert grouped < separate
    assert pass_ == "forward" or separate - grouped == shared


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_square_single_head_flash_is_flash(pass_):
    """With n_q = n_kv = n and one head the group-aware FlashAttention count equals
    flash-*-count, record and run; grouped heads move the same words less the K, V (and
    dK, dV) words of the key/value heads they share, and the query side's words do not
    depend on the grouping (FlashAttention reads K and V once: the query rows stream)."""
    for n, d, M in itertools.product((1, 9, 37), (2, 5), (60, 97, 400)):
        ours = simulate("gqa-flash", pass_, n, d, M, numeric=False)
        theirs = simulate("flash", pass_, n, d, M, numeric=False)
        assert ours.counts.io == theirs.counts.io == theirs.closed_form == ours.closed_form
    values = {"n_q": 64, "n_kv": 64, "h_q": 8, "d": 8, "M": 1000}
    record = get(f"gqa-flash-{pass_}-count")
    grouped, separate = record.evaluate(**values, h_kv=1), record.evaluate(**values, h_kv=8)
    shared = 2 * 8 * 7 * 64 * (2 if pass_ == "backward" else 1)  # K, V (dK, dV) of 7 heads
    assert separate - grouped == shared


def test_square_single_head_two_sweep_is_two_sweep():
    """With n_q = n_kv = n and one head the group-aware two-sweep count equals
    two-sweep-backward-count, record and run; grouped heads move the same words less the
    K, V, dK, dV words of the key/value heads they share (sweep 1) and fewer K, V reads in
    sweep 2 (a block of stacked query rows serves every head of its group)."""
    for n, d, M in itertools.product((1, 9, 37), (2, 5), (40, 97, 400)):
        ours = simulate("gqa-two-sweep", "backward", n, d, M, numeric=False)
        theirs = simulate("two-sweep", "backward", n, d, M, numeric=False)
        assert ours.counts.io == theirs.counts.io == theirs.closed_form == ours.closed_form
    values = {"n_q": 64, "n_kv": 64, "h_q": 8, "d": 8, "M": 1000}
    record = get("gqa-two-sweep-backward-count")
    grouped, separate = record.evaluate(**values, h_kv=1), record.evaluate(**values, h_kv=8)
    shared = 4 * 8 * 7 * 64  # K, V, dK, dV of 7 heads
    # sweep 2 reads K, V ceil(512/37) = 14 times with one head, ceil(64/37) = 2 a head with 8
    sweep2 = 2 * 8 * 64 * (8 * 2 - 14)
    assert separate - grouped == shared + sweep2


def test_square_single_head_score_panel_is_score_panel():
    """With n_q = n_kv = n and one head the group-aware score-panel count equals
    score-panel-forward-count, record and run; grouped heads read K and V fewer times
    (a panel of stacked query rows serves every head of its group) and move the same
    Q, S, m, l and O words."""
    for n, d, M in itertools.product((1, 9, 37), (2, 5), (20, 97, 400)):
        ours = simulate("gqa-score-panel", "forward", n, d, M, numeric=False)
        theirs = simulate("score-panel", "forward", n, d, M, numeric=False)
        assert ours.counts.io == theirs.counts.io == theirs.closed_form == ours.closed_form
    values = {"n_q": 64, "n_kv": 64, "h_q": 8, "d": 8, "M": 1000}
    record = get("gqa-score-panel-forward-count")
    grouped, separate = record.evaluate(**values, h_kv=1), record.evaluate(**values, h_kv=8)
    # panels of floor(992/11) = 90 rows: K, V read ceil(512/90) = 6 times with one head,
    # ceil(64/90) = 1 time a head with 8
    assert separate - grouped == 2 * 8 * 64 * (8 * 1 - 6)


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_square_single_head_is_row_streaming(pass_):
    """With n_q = n_kv = n and one head the count equals row-streaming's, record and run."""
    for n, d, M in itertools.product((1, 9, 37), (2, 5), (60, 97, 400)):
        ours = simulate("gqa-row-streaming", pass_, n, d, M, numeric=False)
        theirs = simulate("row-streaming", pass_, n, d, M, numeric=False)
        assert ours.counts.io == theirs.counts.io == theirs.closed_form == ours.closed_form


def test_decode_reads_the_cache_once():
    """At decode (one query row per head, a group fitting a block) K and V are read once."""
    out = simulate("gqa-row-streaming", "forward", 1, 16, 4096, numeric=False,
                   shape=(1, 1000, 8, 2))  # fmt: skip
    assert out.counts.io == 2 * 16 * 2 * 1000 + 2 * 16 * 8 + 8


def test_split_costs_more_than_streaming():
    """The split pays its partials: more words than group-aware streaming at the same point."""
    shape, d, M = (1, 500, 4, 1), 8, 300
    split = get("split-kv-decode-forward-count")
    stream = get("gqa-row-streaming-forward-count")
    values = {"n_q": 1, "n_kv": 500, "h_q": 4, "h_kv": 1, "d": d, "M": M}
    assert split.evaluate(**values) > stream.evaluate(**values)
    assert simulate("split-kv-decode", "forward", 1, d, M, numeric=False, shape=shape).matches


def test_split_backward_pays_two_dq_words_a_row_when_it_splits():
    """Split-KV decode backward moves exactly 2 d h_q n_q words more than group-aware row
    streaming backward when a key/value head has more than one block (each query row's
    partials written and read back, dQ written once), and the same words with one block."""
    for shape, d, M in [((1, 500, 4, 1), 8, 300), ((2, 50, 6, 2), 3, 1000), ((1, 9, 2, 1), 2, 97)]:
        split = simulate("split-kv-decode", "backward", 1, d, M, numeric=False, shape=shape)
        stream = simulate("gqa-row-streaming", "backward", 1, d, M, numeric=False, shape=shape)
        one_block = shape[1] <= M // (4 * d) - 2
        extra = 0 if one_block else 2 * d * shape[0] * shape[2]
        assert split.counts.io == stream.counts.io + extra == split.closed_form, (shape, d, M)
    assert one_block


@pytest.mark.parametrize(
    "algorithm, shape, match",
    [
        ("gqa-row-streaming", (1, 4, 6, 4), "multiple of heads_kv=4"),
        ("gqa-row-streaming", (0, 4, 1, 1), "n_q"),
        ("flash", (1, 4, 1, 1), "gqa-row-streaming"),
    ],
)
def test_bad_shapes_are_refused(algorithm, shape, match):
    """A shape that does not fit, or a shape for a square-only algorithm, is refused by name."""
    with pytest.raises(AlgorithmParameterError, match=match):
        simulate(algorithm, "forward", 4, 2, 100, shape=shape)
