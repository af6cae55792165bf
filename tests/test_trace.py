"""Tests of attnio.algorithms.trace: machine runs replayed as pebblings of their own graphs."""

from __future__ import annotations

import doctest

import pytest

from attnio.algorithms import flash, standard, stationary, streaming, tiling, trace
from attnio.algorithms.errors import BlocksDoNotFitError, MachineError
from attnio.algorithms.trace import Trace, record
from attnio.bounds.record import Pass
from attnio.pebble import builders
from attnio.pebble.classes import COVERAGE
from attnio.pebble.errors import IllegalMoveError
from attnio.pebble.moves import replay

FORWARD_INPUTS = ("Q", "K", "V")


def _extra(name: str, pass_: str) -> int:
    """c of COVERAGE (attnio.bounds.pebblings.EXTRA_RED): the red pebbles beyond M a
    schedule's runs are replayed with, and the most they may need."""
    extra = COVERAGE[name, Pass(pass_)].extra_red
    assert extra is not None, (name, pass_)
    return extra


def _attained(most: int, name: str, pass_: str) -> None:
    """The most red pebbles beyond M the runs needed (none below M) is COVERAGE's c: c
    is not more than a run needed (the replays with M + c show it is not less)."""
    assert max(most, 0) == _extra(name, pass_), (name, pass_, most)


FORWARD = {
    "row-streaming": (0, None),
    "flash2": (0, (6, 3, 54)),
    "flash": (1, (6, 3, 57)),
    "square-tiling": (0, (2, 1, 4)),
    "output-stationary": (0, None),
    "standard": (0, (2, 1, 3)),
    "score-panel": (0, (4, 2, 12)),
}
"""Forward schedule -> (constant words per (2nd + 4n), an instance where its extra red
pebbles, COVERAGE's c, are needed). Row streaming's scratch fits in the words its step buffers
leave free (at these sizes; not proved for all); FlashAttention-2's needs up to 3 more with
chain trees (a chain summation's scratch and the rescale factor alpha, which the machine
keeps in an uncharged register); FlashAttention's up to 6 with balanced trees and 5 with
chains (alpha and alpha l in registers, a tree's scratch, the sum before its division); square tiling (SY24's graph) up to 2. A
trace computes a missing vertex's deepest operand first (Sethi and Ullman's order), so a
chain's products are not all red at once. FlashAttention writes O = 0, l = 0, m = -inf to slow memory and reads them back:
2nd + 4n words of constants. With n = 1 SY24's graph has l_0 = A_00 (one vertex), which
square tiling stores and loads twice, and standard attention's graph has m_0 = S_00:
those repeats are not counted as constants. The score-panel forward runs on standard
attention's graph with key tiles of one key; it needs up to 4 more red pebbles, as
standard attention does (the new maximum in a register, the rescaled sum's scratch), and
with n = 1 it stores and loads m_0 = S_00 twice too."""


def _graph(name: str, n: int, d: int, M: int, tree: str):
    if name == "row-streaming":
        return streaming.row_streaming_forward, builders.streaming_forward(n, d, tree=tree)
    if name == "square-tiling":
        return tiling.square_tiling_forward, builders.sy24_forward(n, d, tree=tree)
    if name == "score-panel":
        return standard.score_panel_forward, builders.twopass_forward(n, d, tree=tree, block=1)
    if name == "standard":
        block = standard.standard_tile(M)
        return standard.standard_forward, builders.twopass_forward(n, d, tree=tree, block=block)
    if name == "output-stationary":
        block = stationary.stationary_tile(M)
        graph = builders.stationary_forward(n, d, tree=tree, block=block)
        return stationary.output_stationary_forward, graph
    if name == "flash2":
        block = flash.forward2_blocks(d, M)[1]
        return flash.flash2_forward, builders.online_forward(n, d, tree=tree, block=block)
    block = flash.forward_blocks(d, M)[1]
    return flash.flash_forward, builders.blockwise_forward(n, d, tree=tree, block=block)


def test_docstring_examples() -> None:
    """The module's examples run."""
    assert doctest.testmod(trace).failed == 0


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_runs_replay_at_the_machines_count(name: str) -> None:
    """Each forward run (n, d in {1, 2, 4}, every third M up to 60 at which the schedule
    fits, and the instance FORWARD names), with chain and with balanced summation trees
    where its graph has both, is a legal pebbling of the graph of its computation with
    M + c red pebbles (c of COVERAGE), whose I/O is the machine's loads plus stores less
    exactly its constant words; c is the most any run needed (FlashAttention's: with
    balanced trees, at the instance named)."""
    constants, attained = FORWARD[name]
    extra = _extra(name, "forward")
    chained = name in ("square-tiling", "output-stationary", "standard", "score-panel")
    trees = ("chain",) if chained else builders.TREE_SHAPES  # these sum S in steps
    most = -(10**9)
    sizes = [(n, d, M) for n in (1, 2, 4) for d in (1, 2, 4) for M in range(3, 61, 3)]
    for tree in trees:
        for n, d, M in sizes + ([attained] if attained else []):
            try:
                runner, dag = _graph(name, n, d, M, tree)
                inputs = dict.fromkeys(FORWARD_INPUTS, (n, d))
                moves, counts = record(runner, dag, n, d, M, inputs)
            except BlocksDoNotFitError:
                continue
            result = replay(dag, moves.moves, M + extra)
            if n > 1 or name not in ("square-tiling", "standard", "score-panel"):
                assert moves.unmatched == constants * (2 * n * d + 4 * n), (n, d, M)
            assert result.io == counts.io - moves.unmatched, (n, d, M)
            most = max(most, result.peak_red - M)
    _attained(most, name, "forward")


def test_a_wrong_graph_is_refused() -> None:
    """A run traced against another graph fails: row streaming is not a pebbling of the
    normalise-first graph (it has no vertex W[0,0]), and FlashAttention-2's moves with key
    blocks of 1 are not a pebbling of the graph with key blocks of 2."""
    dag = builders.attention_forward(2, 1)
    with pytest.raises(MachineError, match="no vertex"):
        record(
            streaming.row_streaming_forward, dag, 2, 1, 10, dict.fromkeys(FORWARD_INPUTS, (2, 1))
        )
    M = 80
    assert flash.forward2_blocks(2, M)[1] == 2
    narrow = builders.online_forward(3, 2, block=1)
    with pytest.raises((MachineError, IllegalMoveError)):
        moves, _ = record(
            flash.flash2_forward, narrow, 3, 2, M, dict.fromkeys(FORWARD_INPUTS, (3, 2))
        )
        replay(narrow, moves.moves, M + 4)


def test_binding_a_value_not_in_fast_memory_is_refused() -> None:
    """bind names the vertex that is not red."""
    dag = builders.streaming_forward(1, 1)
    tr = Trace(dag, {"Q": "Q"})
    tr.on_alloc("x", 1, 1)
    with pytest.raises(MachineError, match="not in fast memory"):
        tr.bind("x", 0, "Q[0,0]")


BACKWARD = {
    "row-streaming": (streaming.row_streaming_backward, 0, (5, 2, 25)),
    "flash2": (flash.flash2_backward, 2, (3, 3, 87)),
    "flash": (flash.flash_backward, 2, (4, 2, 44)),
    "standard": (standard.standard_backward, 0, (1, 1, 3)),
    "tiled-backward": (tiling.tiled_backward, 0, (4, 2, 4)),
    "output-stationary": (stationary.output_stationary_backward, 0, None),
    "two-sweep": (streaming.two_sweep_backward, 0, (2, 2, 22)),
}
"""Backward schedule -> (runner, words per n d that are no vertex, an instance where its
extra red pebbles, COVERAGE's c, are needed). c is the most any run
needed at n <= 5, d <= 3 and every M up to 60 (row streaming needs M + 1 already at
n = 2, d = 1, M = 12: a chain's new term and its sum beside the old partial sum when the
key block fills M exactly); it is not proved for all sizes.
FlashAttention and FlashAttention-2 write dQ = 0 to slow memory and read those zeros
back: 2 n d words of constants, which the pebbling does not move. The two-sweep backward
computes P_ij and dS_ij in both sweeps (a recomputation, replayed as one)."""


@pytest.mark.parametrize("name", sorted(BACKWARD))
def test_backward_runs_replay_at_the_machines_count(name: str) -> None:
    """Each backward run (n <= 3, d <= 2, every fourth M up to 60 at which it fits, and
    the instance BACKWARD names) is a
    legal pebbling of FlashAttention-2's backward graph with chain trees (the order the
    schedules accumulate dQ, dK, dV in), with M + c red pebbles (c of COVERAGE); its I/O
    is the machine's count less exactly the constant words, and c is attained."""
    runner, constants, attained = BACKWARD[name]
    extra = _extra(name, "backward")
    most = -(10**9)
    sizes = [(n, d, M) for n in (1, 2, 3) for d in (1, 2) for M in range(3, 61, 4)]
    for n, d, M in sizes + ([attained] if attained else []):
        dag = builders.attention_backward(n, d)
        shapes = {x: (n, d) for x in ("Q", "K", "V", "O", "dO")} | {"L": (n, 1)}
        try:
            moves, counts = record(runner, dag, n, d, M, shapes)
        except BlocksDoNotFitError:
            continue
        result = replay(dag, moves.moves, M + extra)
        assert moves.unmatched == constants * n * d, (n, d, M)
        assert result.io == counts.io - constants * n * d, (n, d, M)
        most = max(most, result.peak_red - M)
    _attained(most, name, "backward")


def test_a_numeric_run_records_the_same_pebbling_and_result() -> None:
    """A trace changes nothing a run computes: FlashAttention-2 on real data with a trace
    attached writes the same O as without one, and records the same moves as the counting
    run."""
    import numpy as np

    from attnio.algorithms.machine import TwoLevelMachine

    n, d, M = 4, 2, 40
    rng = np.random.default_rng(0)
    data = {x: rng.standard_normal((n, d)) for x in FORWARD_INPUTS}
    dag = builders.online_forward(n, d, block=flash.forward2_blocks(d, M)[1])
    outputs = []
    for traced in (False, True):
        machine = TwoLevelMachine(M)
        for name, value in data.items():
            machine.put(name, value)
        if traced:
            machine.trace = Trace(dag, {x: x for x in FORWARD_INPUTS})
        flash.flash2_forward(machine, n, d)
        outputs.append(machine.result("O"))
    assert np.array_equal(outputs[0], outputs[1])
    counted, _ = record(flash.flash2_forward, dag, n, d, M, dict.fromkeys(FORWARD_INPUTS, (n, d)))
    assert machine.trace.moves == counted.moves


def _masks():
    from attnio.bounds.masks import sample_masks

    for family in ("causal", "window", "band"):
        for n in (1, 2, 3, 5):
            yield from sample_masks(family, n)


def _stacked_mask(shape: tuple[int, int, int, int]):
    """The block diagonal of grouped-query heads over head-major stacked rows."""
    import numpy as np

    n_q, n_kv, hq, hk = shape
    rows = hq // hk * n_q
    head = np.arange(hq * n_q) // rows
    return head[:, None] == np.arange(hk * n_kv)[None, :] // n_kv


SHAPES = [(1, 3, 2, 1), (2, 3, 2, 1), (2, 2, 4, 2), (3, 2, 1, 1), (1, 4, 3, 3)]
"""(n_q, n_kv, heads_q, heads_kv): decoding, GQA, MQA, rectangular and multi-head."""


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_interval_and_shape_runs_replay_at_the_machines_count(pass_: str) -> None:
    """Masked row streaming (every sample causal, window and band mask at n in {1, 2, 3,
    5}), the sliding backward (window and band) and grouped-query row streaming (SHAPES),
    d in {1, 2}, M = 1 mod 4 up to 60 at which they fit: each run is a legal pebbling of
    the streaming forward graph or the backward graph (chain trees) restricted to its
    attended pairs (the block diagonal of the heads for GQA, rows stacked head-major),
    with M + c red pebbles, c of its schedule's COVERAGE and attained by each schedule,
    whose I/O is exactly the machine's loads plus stores (no constant words). Band row
    streaming has no count record (no schedule of the registry): it is replayed with the
    largest c of the others, not checked for attainment."""
    from functools import partial

    from attnio.algorithms import interval_masks, shapes

    runs = []
    for mask in _masks():
        family = mask.family.name
        for d in (1, 2):
            runner = getattr(interval_masks, f"masked_row_streaming_{pass_}")
            name = None if family == "band" else f"{family}-row-streaming"
            runs.append((name, partial(runner, mask=mask), mask.allowed(), mask.n, d))
            if pass_ == "backward" and family != "causal":
                runner = partial(interval_masks.sliding_backward, mask=mask)
                runs.append((f"{family}-sliding", runner, mask.allowed(), mask.n, d))
    for shape in SHAPES:
        for d in (1, 2):
            runner = getattr(shapes, f"gqa_row_streaming_{pass_}")
            runs.append(
                ("gqa-row-streaming", partial(runner, shape=shape), _stacked_mask(shape),
                 shape[0], d)
            )  # fmt: skip
    names = {run[0] for run in runs} - {None}
    compared, most = 0, dict.fromkeys(names, -(10**9))
    for name, runner, allowed, n, d in runs:
        extra = _extra(name, pass_) if name else max(_extra(x, pass_) for x in names)
        rows, keys = allowed.shape
        if pass_ == "forward":
            dag = builders.masked_streaming_forward(allowed, d)
            arrays = {"Q": (rows, d), "K": (keys, d), "V": (keys, d)}
        else:
            dag = builders.masked_backward(allowed, d)
            arrays = {x: (rows, d) for x in ("Q", "O", "dO")} | {"L": (rows, 1)}
            arrays |= {"K": (keys, d), "V": (keys, d)}
        for M in range(1, 61, 4):
            try:
                moves, counts = record(runner, dag, n, d, M, arrays)
            except BlocksDoNotFitError:
                continue
            result = replay(dag, moves.moves, M + extra)
            assert moves.unmatched == 0, (allowed.tolist(), d, M)
            assert result.io == counts.io, (allowed.tolist(), d, M)
            if name:
                most[name] = max(most[name], result.peak_red - M)
            compared += 1
    assert compared > 100
    for name in sorted(names):
        _attained(most[name], name, pass_)


def test_low_rank_forward_replays_at_the_machines_count() -> None:
    """The low-rank (polynomial-method) forward at n in {2, 3, 4}, d in {1, 2}, degree in
    {1, 2} and every M up to 60 at which it fits is a legal pebbling of approx_forward
    (chain trees) with M + 2 red pebbles, attained; its I/O is the machine's count less
    exactly the constant words of the constant feature's row of [W | w] (w_0 = n, no
    vertex): none when [W | w] stays resident, else its one store and one load per
    query row block."""
    import math
    from functools import partial

    from attnio.algorithms import approximate

    most = -(10**9)
    for n in (2, 3, 4):
        for d in (1, 2):
            for degree in (1, 2):
                dag = builders.approx_forward(n, d, degree)
                runner = partial(approximate.low_rank_forward, degree=degree, approx=None)
                for M in range(3, 61):
                    try:
                        moves, counts = record(runner, dag, n, d, M, dict.fromkeys("QKV", (n, d)))
                    except BlocksDoNotFitError:
                        continue
                    rank = math.comb(d + degree, degree)
                    resident, _, rows = approximate.schedule(n, d, rank, M)
                    constants = 0 if resident else 1 + -(-n // rows)
                    result = replay(dag, moves.moves, M + _extra("low-rank", "forward"))
                    assert moves.unmatched == constants, (n, d, degree, M)
                    assert result.io == counts.io - constants, (n, d, degree, M)
                    most = max(most, result.peak_red - M)
    _attained(most, "low-rank", "forward")


def test_column_blocked_low_rank_forward_replays_at_the_machines_count() -> None:
    """The column-blocked low-rank forward at n in {2, 3}, d in {1, 2, 3}, degree in
    {1, 2} and every odd M up to 80 at which it fits is a legal pebbling of approx_forward
    (chain trees) with M + 1 red pebbles, attained, at exactly the machine's count: it
    moves only words of Q, K, V and O (W is never stored), recomputing each feature and
    den[i] per column block."""
    from functools import partial

    from attnio.algorithms import approximate

    most, compared, blocked = -(10**9), 0, 0
    for n in (2, 3):
        for d in (1, 2, 3):
            for degree in (1, 2):
                dag = builders.approx_forward(n, d, degree)
                runner = partial(approximate.column_blocked_forward, degree=degree, approx=None)
                for M in range(3, 81, 2):
                    try:
                        moves, counts = record(runner, dag, n, d, M, dict.fromkeys("QKV", (n, d)))
                    except BlocksDoNotFitError:
                        continue
                    result = replay(dag, moves.moves, M + _extra("low-rank-columns", "forward"))
                    assert moves.unmatched == 0, (n, d, degree, M)
                    assert result.io == counts.io, (n, d, degree, M)
                    most = max(most, result.peak_red - M)
                    compared += 1
                    blocked += counts.io > 4 * n * d
    print(compared, blocked)
    assert compared > 100 and blocked > 10
    _attained(most, "low-rank-columns", "forward")


def test_low_rank_backward_replays_at_the_machines_count() -> None:
    """The low-rank backward at n in {2, 3}, (d, degree) in {(1, 3), (2, 1), (2, 2), (2, 3)}
    and every M = 3 mod 8 up to 120 at which it runs is a legal pebbling of
    approx_backward_product (its graph: dQ and dK pulled back by the product rule, chain
    trees) with M red pebbles, attained (the register of D[i] and the scratch values fit
    beside the words the machine charges); its I/O is the machine's count less exactly the words that hold
    no vertex: none when [W | w] and [dW | dw] stay resident, else the zeros [dW | dw]
    starts from (stored, then loaded by the first row block), the constant feature's w
    word (stored once, loaded by both sweeps of each row block) and its dw word (stored
    and loaded once per row block of pass 2, loaded once per row block of pass 3)."""
    import math
    from functools import partial

    from attnio.algorithms import approximate

    most, blocked = -(10**9), 0
    for n in (2, 3):
        for d, degree in ((1, 3), (2, 1), (2, 2), (2, 3)):
            dag = builders.approx_backward_product(n, d, degree)
            runner = partial(approximate.low_rank_backward, degree=degree, approx=None)
            arrays = dict.fromkeys(("Q", "K", "V", "dO"), (n, d))
            for M in range(3, 121, 8):
                try:
                    moves, counts = record(runner, dag, n, d, M, arrays)
                except BlocksDoNotFitError:
                    continue
                rank = math.comb(d + degree, degree)
                resident, _, rows = approximate.backward_schedule(d, rank, M)
                words = 0 if resident else 2 * rank * (d + 1) + 5 * -(-n // rows)
                result = replay(dag, moves.moves, M + _extra("low-rank", "backward"))
                assert moves.unmatched == words, (n, d, degree, M)
                assert result.io == counts.io - words, (n, d, degree, M)
                most = max(most, result.peak_red - M)
                blocked += not resident
    assert blocked > 10
    _attained(most, "low-rank", "backward")


def test_column_blocked_low_rank_backward_replays_at_the_machines_count() -> None:
    """The column-blocked low-rank backward at n in {2, 3}, (d, degree) in {(1, 3), (2, 2),
    (3, 1), (3, 2)} and every M = 0 mod 3 at which it runs, up to one block of all d
    columns, is a legal pebbling of approx_backward_columns with the schedule's block of
    columns (its graph: each block's share of dphi and dpsi pulled back by the product
    rule apart, dQ and dK chains over the shares) with M red pebbles, attained, at exactly
    the machine's count: every word it moves holds a vertex (the partial dQ, dK and D
    between blocks too), each feature, den[i] and dnum[i, k] recomputed where needed."""
    import math
    from functools import partial

    from attnio.algorithms import approximate

    most, blocked = -(10**9), 0
    for n in (2, 3):
        for d, degree in ((1, 3), (2, 2), (3, 1), (3, 2)):
            rank = math.comb(d + degree, degree)
            runner = partial(approximate.column_blocked_backward, degree=degree, approx=None)
            arrays = dict.fromkeys(("Q", "K", "V", "dO"), (n, d))
            for M in range(3, 200, 3):
                try:
                    columns, _ = approximate.column_backward_schedule(d, rank, M)
                except BlocksDoNotFitError:
                    continue
                dag = builders.approx_backward_columns(n, d, degree, block=columns)
                moves, counts = record(runner, dag, n, d, M, arrays)
                result = replay(dag, moves.moves, M)
                assert moves.unmatched == 0, (n, d, degree, M)
                assert result.io == counts.io, (n, d, degree, M)
                most = max(most, result.peak_red - M)
                blocked += columns < d
                if columns == d:
                    break
    assert blocked > 20
    assert most == 0


def test_low_rank_runs_replay_with_one_row() -> None:
    """With n = 1 every low-rank schedule (forward and backward, feature- and
    column-blocked; d <= 2, degree <= 2, every M = 0 mod 3 up to 60 at which it runs) is
    a legal pebbling of its graph with M + 2 red pebbles (as many as the forwards take with
    more rows) whose I/O is the machine's count less
    the words that are no move. Regression: with one row the constant feature's row
    W[one, k] of its graph is the input V[0, k] (a sum of one term), and the traces named
    the vertex W[one, k], which that graph lacks, so the runs raised."""
    import math
    from functools import partial

    from attnio.algorithms import approximate

    def columns(d: int, degree: int, M: int):
        block = approximate.column_backward_schedule(d, math.comb(d + degree, degree), M)[0]
        return builders.approx_backward_columns(1, d, degree, block=block)

    runs = (
        (approximate.low_rank_forward, lambda d, g, M: builders.approx_forward(1, d, g)),
        (approximate.column_blocked_forward, lambda d, g, M: builders.approx_forward(1, d, g)),
        (approximate.low_rank_backward, lambda d, g, M: builders.approx_backward_product(1, d, g)),
        (approximate.column_blocked_backward, columns),
    )
    replayed = 0
    for runner, graph in runs:
        names = ("Q", "K", "V", "dO") if "backward" in runner.__name__ else ("Q", "K", "V")
        for d in (1, 2):
            for degree in (1, 2):
                for M in range(3, 61, 3):
                    try:
                        dag = graph(d, degree, M)
                        moves, counts = record(
                            partial(runner, degree=degree, approx=None),
                            dag,
                            1,
                            d,
                            M,
                            dict.fromkeys(names, (1, d)),
                        )
                    except BlocksDoNotFitError:
                        continue
                    result = replay(dag, moves.moves, M + 2)
                    assert result.io == counts.io - moves.unmatched, (runner, d, degree, M)
                    replayed += 1
    assert replayed > 100


def test_sliding_forward_replays_at_the_machines_count() -> None:
    """The window and band sliding forward (every sample mask at n in {1, 2, 3, 6},
    d in {1, 2}, M = 3 mod 4 up to 90 at which it fits) is a legal pebbling of
    sliding_forward_graph (chain trees) with M + 2 red pebbles, attained (the running
    maximum and sum in registers), at exactly the machine's count."""
    from functools import partial

    from attnio.algorithms import interval_masks
    from attnio.bounds.masks import sample_masks

    most, compared = {}, 0
    for family in ("window", "band"):
        extra = _extra(f"{family}-sliding", "forward")
        for n in (1, 2, 3, 6):
            for mask in sample_masks(family, n):
                for d in (1, 2):
                    dag = builders.sliding_forward_graph(mask.allowed(), d)
                    runner = partial(interval_masks.sliding_forward, mask=mask)
                    for M in range(3, 91, 4):
                        try:
                            moves, counts = record(
                                runner, dag, n, d, M, dict.fromkeys(FORWARD_INPUTS, (n, d))
                            )
                        except BlocksDoNotFitError:
                            continue
                        result = replay(dag, moves.moves, M + extra)
                        assert moves.unmatched == 0, (mask.spec, d, M)
                        assert result.io == counts.io, (mask.spec, d, M)
                        most[family] = max(most.get(family, -(10**9)), result.peak_red - M)
                        compared += 1
    assert compared > 100
    for family, peak in most.items():
        _attained(peak, f"{family}-sliding", "forward")


def test_split_kv_decode_replays_at_the_machines_count() -> None:
    """Split-KV decoding (SHAPES and one long KV row, d in {1, 2}, every M up to 60 at
    which it fits) is a legal pebbling of split_streaming_forward (its chunks' starts
    from kv_chunk) with M red pebbles; its I/O is the machine's count less exactly the
    words it stores twice: with one chunk the merged L_i is the chunk's partial L_i,
    written to Lpart and to L (h_q n_q words); with more, none."""
    from functools import partial

    from attnio.algorithms import shapes

    most, compared = -(10**9), 0
    for shape in [*SHAPES, (1, 5, 1, 1)]:
        n_q, n_kv, hq, hk = shape
        for d in (1, 2):
            for M in range(3, 61):
                chunk = shapes.kv_chunk(d, M)
                starts = [k * n_kv + j for k in range(hk) for j in range(0, n_kv, chunk)]
                dag = builders.split_streaming_forward(_stacked_mask(shape), d, starts)
                arrays = {"Q": (hq * n_q, d), "K": (hk * n_kv, d), "V": (hk * n_kv, d)}
                runner = partial(shapes.split_kv_decode_forward, shape=shape)
                try:
                    moves, counts = record(runner, dag, n_q, d, M, arrays)
                except BlocksDoNotFitError:
                    continue
                twice = hq * n_q if chunk >= n_kv else 0
                result = replay(dag, moves.moves, M + _extra("split-kv-decode", "forward"))
                assert moves.unmatched == twice, (shape, d, M)
                assert result.io == counts.io - twice, (shape, d, M)
                most = max(most, result.peak_red - M)
                compared += 1
    assert compared > 100
    _attained(most, "split-kv-decode", "forward")


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_gqa_output_stationary_replays_at_the_machines_count(pass_: str) -> None:
    """Group-aware output-stationary tiling (SHAPES and one long KV row, d in {1, 2, 3},
    every third M from 9 to 60) is a legal pebbling, with M red pebbles and at exactly the
    machine's count, of grouped_stationary_forward (one group per key/value head, its
    query heads' rows stacked, key tiles of the schedule's side, chain trees) forward, and
    of masked_backward of the heads' block diagonal (chain trees; P and dS stored and
    read back) backward."""
    from functools import partial

    from attnio.algorithms import shapes

    most, compared = -(10**9), 0
    runner_of = getattr(shapes, f"gqa_output_stationary_{pass_}")
    for shape in [*SHAPES, (1, 5, 1, 1)]:
        n_q, n_kv, hq, hk = shape
        for d in (1, 2, 3):
            arrays = {"Q": (hq * n_q, d), "K": (hk * n_kv, d), "V": (hk * n_kv, d)}
            if pass_ == "backward":
                arrays |= {x: (hq * n_q, d) for x in ("O", "dO")} | {"L": (hq * n_q, 1)}
                dag = builders.masked_backward(_stacked_mask(shape), d)
            for M in range(9, 61, 3):
                if pass_ == "forward":
                    tile = stationary.stationary_tile(M)
                    dag = builders.grouped_stationary_forward(
                        hq // hk * n_q, n_kv, hk, d, block=tile
                    )
                runner = partial(runner_of, shape=shape)
                moves, counts = record(runner, dag, n_q, d, M, arrays)
                result = replay(dag, moves.moves, M + _extra("gqa-output-stationary", pass_))
                assert moves.unmatched == 0, (shape, d, M)
                assert result.io == counts.io, (shape, d, M)
                most = max(most, result.peak_red - M)
                compared += 1
    assert compared > 250
    _attained(most, "gqa-output-stationary", pass_)


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_gqa_flash2_replays_at_the_machines_count(pass_: str) -> None:
    """Group-aware FlashAttention-2 (SHAPES and one long KV row, d in {1, 2}, every third
    M up to 60 at which it fits, and a 2:1 instance where its c is needed: d = 1, M = 8
    forward, d = 3, M = 87 backward) is a legal pebbling, with M + c red pebbles (c of COVERAGE, attained),
    forward of grouped_online_forward (one group per key/value head, its query heads'
    rows stacked, key blocks of B_c counted within the group, chain trees) at exactly the
    machine's count, backward of masked_backward of the heads' block diagonal (chain
    trees) at the count less the 2 d h_q n_q zero words of dQ written and read back."""
    from functools import partial

    from attnio.algorithms import shapes

    most, compared = -(10**9), 0
    runner_of = getattr(shapes, f"gqa_flash2_{pass_}")
    runs = [(s, d, M) for s in [*SHAPES, (1, 5, 1, 1)] for d in (1, 2) for M in range(3, 61, 3)]
    runs += [((1, 3, 2, 1), 1, 8)] if pass_ == "forward" else [((2, 3, 2, 1), 3, 87)]
    for shape, d, M in runs:
        n_q, n_kv, hq, hk = shape
        arrays = {"Q": (hq * n_q, d), "K": (hk * n_kv, d), "V": (hk * n_kv, d)}
        try:
            sizes = getattr(flash, f"{pass_}2_blocks")(d, M)
        except BlocksDoNotFitError:
            continue
        if pass_ == "forward":
            dag = builders.grouped_online_forward(hq // hk * n_q, n_kv, hk, d, block=sizes[1])
            constants = 0
        else:
            arrays |= {x: (hq * n_q, d) for x in ("O", "dO")} | {"L": (hq * n_q, 1)}
            dag = builders.masked_backward(_stacked_mask(shape), d)
            constants = 2 * d * hq * n_q
        moves, counts = record(partial(runner_of, shape=shape), dag, n_q, d, M, arrays)
        result = replay(dag, moves.moves, M + _extra("gqa-flash2", pass_))
        assert moves.unmatched == constants, (shape, d, M)
        assert result.io == counts.io - constants, (shape, d, M)
        most = max(most, result.peak_red - M)
        compared += 1
    assert compared > 150
    _attained(most, "gqa-flash2", pass_)


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_gqa_flash_replays_at_the_machines_count(pass_: str) -> None:
    """Group-aware FlashAttention (SHAPES and one long KV row, d in {1, 2}, every third M
    up to 60 at which it fits, and forward a 2:1 instance where its c is needed: d = 3,
    M = 57; the others need M + 5 at most) is a legal
    pebbling, with M + c red pebbles (c of COVERAGE, attained), forward of
    grouped_blockwise_forward (one group per key/value head, its query heads' rows
    stacked, key blocks of B_c counted within the group, chain trees) at the machine's
    count less the (2d + 4) h_q n_q words of O = 0, l = 0, m = -inf written and read
    back, backward of masked_backward of the heads' block diagonal (chain trees; D_i
    recomputed in every step) at the count less the 2 d h_q n_q zero words of dQ."""
    from functools import partial

    from attnio.algorithms import shapes

    most, compared = -(10**9), 0
    runner_of = getattr(shapes, f"gqa_flash_{pass_}")
    runs = [(s, d, M) for s in [*SHAPES, (1, 5, 1, 1)] for d in (1, 2) for M in range(3, 61, 3)]
    runs += [((2, 6, 2, 1), 3, 57)] if pass_ == "forward" else []
    for shape, d, M in runs:
        n_q, n_kv, hq, hk = shape
        arrays = {"Q": (hq * n_q, d), "K": (hk * n_kv, d), "V": (hk * n_kv, d)}
        try:
            sizes = getattr(flash, f"{pass_}_blocks")(d, M)
        except BlocksDoNotFitError:
            continue
        if pass_ == "forward":
            dag = builders.grouped_blockwise_forward(hq // hk * n_q, n_kv, hk, d, block=sizes[1])
            constants = (2 * d + 4) * hq * n_q
        else:
            arrays |= {x: (hq * n_q, d) for x in ("O", "dO")} | {"L": (hq * n_q, 1)}
            dag = builders.masked_backward(_stacked_mask(shape), d)
            constants = 2 * d * hq * n_q
        moves, counts = record(partial(runner_of, shape=shape), dag, n_q, d, M, arrays)
        result = replay(dag, moves.moves, M + _extra("gqa-flash", pass_))
        assert moves.unmatched == constants, (shape, d, M)
        assert result.io == counts.io - constants, (shape, d, M)
        most = max(most, result.peak_red - M)
        compared += 1
    assert compared > 100
    _attained(most, "gqa-flash", pass_)


def test_gqa_two_sweep_replays_at_the_machines_count() -> None:
    """The group-aware two-sweep backward (SHAPES and one long KV row, d in {1, 2}, every
    third M up to 60 at which it fits, and a 2:1 instance where its c is needed: d = 2,
    M = 22) is a legal pebbling of masked_backward of the heads' block diagonal (chain
    trees; P_ij and dS_ij computed in both sweeps) at exactly the machine's count, with
    M + c red pebbles (c of COVERAGE, attained). c = d + 1 at d <= 3 (M = 22 and 30 need
    M + 3 and M + 4): a score recomputed in sweep 2 needs its d products q_ik k_jk and
    S_ij red at once beside a full block, where the machine holds one scratch word."""
    from functools import partial

    from attnio.algorithms import shapes

    most, compared = -(10**9), 0
    runs = [(s, d, M) for s in [*SHAPES, (1, 5, 1, 1)] for d in (1, 2) for M in range(3, 61, 3)]
    for shape, d, M in [*runs, ((1, 3, 2, 1), 2, 22)]:
        n_q, n_kv, hq, hk = shape
        arrays = {x: (hq * n_q, d) for x in ("Q", "O", "dO")} | {"L": (hq * n_q, 1)}
        arrays |= {"K": (hk * n_kv, d), "V": (hk * n_kv, d)}
        dag = builders.masked_backward(_stacked_mask(shape), d)
        runner = partial(shapes.gqa_two_sweep_backward, shape=shape)
        try:
            moves, counts = record(runner, dag, n_q, d, M, arrays)
        except BlocksDoNotFitError:
            continue
        result = replay(dag, moves.moves, M + _extra("gqa-two-sweep", "backward"))
        assert moves.unmatched == 0, (shape, d, M)
        assert result.io == counts.io, (shape, d, M)
        most = max(most, result.peak_red - M)
        compared += 1
    assert compared > 100
    _attained(most, "gqa-two-sweep", "backward")


def test_gqa_score_panel_replays_at_the_machines_count() -> None:
    """The group-aware score-panel forward (SHAPES and one long KV row, d in {1, 2}, every
    third M up to 60 at which it fits) is a legal pebbling of grouped_twopass_forward (one
    group per key/value head, its query heads' rows stacked, key tiles of one key counted
    within the group, chain trees) at exactly the machine's count, with M + c red pebbles
    (c of COVERAGE, attained: the new maximum in a register and the rescaled sum's
    scratch, as the dense score panel)."""
    from functools import partial

    from attnio.algorithms import shapes

    most, compared = -(10**9), 0
    runs = [(s, d, M) for s in [*SHAPES, (1, 5, 1, 1)] for d in (1, 2) for M in range(3, 61, 3)]
    for shape, d, M in runs:
        n_q, n_kv, hq, hk = shape
        arrays = {"Q": (hq * n_q, d), "K": (hk * n_kv, d), "V": (hk * n_kv, d)}
        dag = builders.grouped_twopass_forward(hq // hk * n_q, n_kv, hk, d, block=1)
        runner = partial(shapes.gqa_score_panel_forward, shape=shape)
        try:
            moves, counts = record(runner, dag, n_q, d, M, arrays)
        except BlocksDoNotFitError:
            continue
        result = replay(dag, moves.moves, M + _extra("gqa-score-panel", "forward"))
        assert moves.unmatched == 0, (shape, d, M)
        assert result.io == counts.io, (shape, d, M)
        most = max(most, result.peak_red - M)
        compared += 1
    assert compared > 100
    _attained(most, "gqa-score-panel", "forward")


def test_split_kv_decode_backward_replays_at_the_machines_count() -> None:
    """Split-KV decoding backward (SHAPES and one long KV row, d in {1, 2}, every M up to
    60 at which it fits) is a legal pebbling of masked_backward of the heads' block
    diagonal with dQ summed over partials per key block (dq_starts = the blocks' first
    keys; chain trees) with M + 2 red pebbles, attained, at exactly the machine's count
    (the partials are vertices, written once and read once)."""
    from functools import partial

    from attnio.algorithms import shapes
    from attnio.algorithms.machine import blocks
    from attnio.algorithms.streaming import backward_block

    most, compared, split = -(10**9), 0, 0
    for shape in [*SHAPES, (1, 5, 1, 1)]:
        n_q, n_kv, hq, hk = shape
        rows, keys = hq * n_q, hk * n_kv
        for d in (1, 2):
            arrays = {x: (rows, d) for x in ("Q", "O", "dO")} | {"L": (rows, 1)}
            arrays |= {"K": (keys, d), "V": (keys, d)}
            for M in range(3, 61):
                try:
                    chunk = backward_block(d, M)
                except BlocksDoNotFitError:
                    continue
                starts = [k * n_kv + j for k in range(hk) for j, _ in blocks(n_kv, chunk)]
                dag = builders.masked_backward(_stacked_mask(shape), d, dq_starts=starts)
                runner = partial(shapes.split_kv_decode_backward, shape=shape)
                try:
                    moves, counts = record(runner, dag, n_q, d, M, arrays)
                except BlocksDoNotFitError:
                    continue
                result = replay(dag, moves.moves, M + _extra("split-kv-decode", "backward"))
                assert moves.unmatched == 0, (shape, d, M)
                assert result.io == counts.io, (shape, d, M)
                most = max(most, result.peak_red - M)
                compared += 1
                split += chunk < n_kv
    assert compared > 100 and split > 50
    _attained(most, "split-kv-decode", "backward")


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_block_sparse_flash_replays_at_the_machines_count(pass_: str) -> None:
    """Block-sparse FlashAttention (n in {2, 3, 4, 5}, d in {1, 2}, every M up to 60 at
    which it fits, random block masks with a block in every row, seed 0) is a legal
    pebbling of its graph for the pairs its blocks allow: forward, blockwise_forward
    with the mask (its visited key blocks), M + 6 red pebbles, the count less the
    2nd + 4n constants of the dense run; backward, masked_backward (chain trees), M + 2,
    the count less the 2nd zeros of dQ and the zero dK, dV rows (2d words) of each key
    no query attends to. The extra red pebbles are attained."""
    from functools import partial

    import numpy as np

    from attnio.algorithms import sparse

    rng = np.random.default_rng(0)
    extra = _extra("block-sparse-flash", pass_)
    most, compared = -(10**9), 0
    for n in (2, 3, 4, 5):
        for d in (1, 2):
            for M in range(3, 61):
                try:
                    br, bc = getattr(flash, f"{pass_}_blocks")(d, M)
                except BlocksDoNotFitError:
                    continue
                rows, cols = -(-n // br), -(-n // bc)
                block_mask = rng.random((rows, cols)) < 0.6
                block_mask[np.arange(rows), rng.integers(0, cols, rows)] = True
                allowed = flash.element_mask(block_mask, n, br, bc)
                if pass_ == "forward":
                    dag = builders.blockwise_forward(n, d, block=bc, mask=allowed)
                    arrays = dict.fromkeys(FORWARD_INPUTS, (n, d))
                    constants = 2 * n * d + 4 * n
                else:
                    dag = builders.masked_backward(allowed, d)
                    arrays = {x: (n, d) for x in ("Q", "K", "V", "O", "dO")} | {"L": (n, 1)}
                    constants = 2 * n * d + 2 * d * int((~allowed.any(axis=0)).sum())
                runner = getattr(sparse, f"block_sparse_flash_{pass_}")
                runner = partial(runner, block_mask=block_mask)
                moves, counts = record(runner, dag, n, d, M, arrays)
                result = replay(dag, moves.moves, M + extra)
                assert moves.unmatched == constants, (n, d, M)
                assert result.io == counts.io - constants, (n, d, M)
                most = max(most, result.peak_red - M)
                compared += 1
    assert compared > 50
    _attained(most, "block-sparse-flash", pass_)


def test_causal_flash2_forward_replays_at_the_machines_count() -> None:
    """Causal FlashAttention-2 forward (n in {1, ..., 6}, d in {1, 2}, every other M up
    to 80 at which it fits, both tree shapes) is a legal pebbling of online_forward with
    the causal mask and the schedule's key blocks B_c (each row's allowed keys only, its
    first block the one of key 0) with M + 3 red pebbles (one fewer than dense
    FlashAttention-2 needs), attained with chain trees; its I/O is exactly the machine's
    count (the pairs above the diagonal, and the masked part of each diagonal block,
    compute no vertex)."""
    from functools import partial

    from attnio.algorithms import interval_masks
    from attnio.bounds.masks import make_mask

    most, compared = {}, 0
    for n in (1, 2, 3, 4, 5, 6):
        mask = make_mask("causal", n)
        runner = partial(interval_masks.masked_flash2_forward, mask=mask)
        for d in (1, 2):
            for M in range(3, 81, 2):
                try:
                    block = flash.forward2_blocks(d, M)[1]
                except BlocksDoNotFitError:
                    continue
                for tree in builders.TREE_SHAPES:
                    dag = builders.online_forward(n, d, tree=tree, block=block, mask=mask.allowed())
                    arrays = dict.fromkeys(FORWARD_INPUTS, (n, d))
                    try:
                        moves, counts = record(runner, dag, n, d, M, arrays)
                    except BlocksDoNotFitError:
                        continue
                    result = replay(dag, moves.moves, M + _extra("causal-flash2", "forward"))
                    assert moves.unmatched == 0, (n, d, M, tree)
                    assert result.io == counts.io, (n, d, M, tree)
                    most[tree] = max(most.get(tree, -(10**9)), result.peak_red - M)
                    compared += 1
    assert compared > 100
    _attained(most["chain"], "causal-flash2", "forward")
    assert most["balanced"] <= _extra("causal-flash2", "forward")


def test_causal_flash2_backward_replays_at_the_machines_count() -> None:
    """Causal FlashAttention-2 backward (n in {1, ..., 5}, d in {1, 2}, every other M up
    to 60 at which it fits) is a legal pebbling of masked_backward of the causal mask
    (chain trees) with M + 2 red pebbles, attained; its I/O is the machine's count less
    the 2nd zero words of dQ written and read back (the pairs above the diagonal, and the
    masked part of each diagonal block, compute no vertex)."""
    from functools import partial

    from attnio.algorithms import interval_masks
    from attnio.bounds.masks import make_mask

    most, compared = -(10**9), 0
    for n in (1, 2, 3, 4, 5):
        mask = make_mask("causal", n)
        runner = partial(interval_masks.masked_flash2_backward, mask=mask)
        for d in (1, 2):
            dag = builders.masked_backward(mask.allowed(), d)
            arrays = {x: (n, d) for x in ("Q", "K", "V", "O", "dO")} | {"L": (n, 1)}
            for M in range(3, 61, 2):
                try:
                    moves, counts = record(runner, dag, n, d, M, arrays)
                except BlocksDoNotFitError:
                    continue
                result = replay(dag, moves.moves, M + _extra("causal-flash2", "backward"))
                assert moves.unmatched == 2 * n * d, (n, d, M)
                assert result.io == counts.io - 2 * n * d, (n, d, M)
                most = max(most, result.peak_red - M)
                compared += 1
    assert compared > 100
    _attained(most, "causal-flash2", "backward")


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_sparse_square_tiling_replays_at_the_machines_count(pass_: str) -> None:
    """Sparse square tiling (n in {2, 3, 4, 5}, d in {1, 2}, every M up to 60 at which it
    fits, random tile masks with a tile in every row, seed 0) is a legal pebbling of its
    graph for the pairs its tiles allow, with M + 2 red pebbles, attained: forward,
    sy24_forward with the mask, at the machine's count less only words of rows with one
    allowed key (their l_i is A_ij, stored and loaded as both; at most 3 a row, none
    without such a row); backward, masked_backward (chain trees), at the count less
    exactly the zero dK, dV rows (2d words) of each key no query attends to."""
    from functools import partial

    import numpy as np

    from attnio.algorithms import sparse

    rng = np.random.default_rng(0)
    most, compared = -(10**9), 0
    for n in (2, 3, 4, 5):
        for d in (1, 2):
            for M in range(3, 61):
                try:
                    side = tiling.square_tile(M)
                except BlocksDoNotFitError:
                    continue
                tiles = -(-n // side)
                tile_mask = rng.random((tiles, tiles)) < 0.6
                tile_mask[np.arange(tiles), rng.integers(0, tiles, tiles)] = True
                allowed = flash.element_mask(tile_mask, n, side, side)
                if pass_ == "forward":
                    dag = builders.sy24_forward(n, d, mask=allowed)
                    arrays = dict.fromkeys(FORWARD_INPUTS, (n, d))
                    runner = sparse.sparse_square_tiling_forward
                else:
                    dag = builders.masked_backward(allowed, d)
                    arrays = {x: (n, d) for x in ("Q", "K", "V", "O", "dO")} | {"L": (n, 1)}
                    runner = sparse.sparse_tiled_backward
                try:
                    moves, counts = record(
                        partial(runner, block_mask=tile_mask), dag, n, d, M, arrays
                    )
                except BlocksDoNotFitError:
                    continue
                result = replay(dag, moves.moves, M + _extra("sparse-square-tiling", pass_))
                if pass_ == "forward":
                    single = int((allowed.sum(axis=1) == 1).sum())
                    assert moves.unmatched <= 3 * single, (n, d, M)
                else:
                    empty = int((~allowed.any(axis=0)).sum())
                    assert moves.unmatched == 2 * d * empty, (n, d, M)
                assert result.io == counts.io - moves.unmatched, (n, d, M)
                most = max(most, result.peak_red - M)
                compared += 1
    assert compared > 50
    _attained(most, "sparse-square-tiling", pass_)
