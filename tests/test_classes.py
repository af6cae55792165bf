"""Tests of attnio.pebble.classes: which attention graphs lie in each derivation's class."""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms import flash
from attnio.algorithms.registry import ALGORITHMS
from attnio.bounds.record import Pass
from attnio.pebble import builders
from attnio.pebble.classes import (
    CLASSES,
    COVERAGE,
    MASKED_CLASSES,
    PROPERTIES,
    graph_pass,
    in_class,
    violations,
)
from attnio.pebble.dag import Dag
from attnio.pebble.errors import PebbleParameterError
from attnio.pebble.shapes import Shape, gqa_backward, gqa_forward

GRAPHS = (
    "attention-forward",
    "sy24-forward",
    "online-forward",
    "blockwise-forward",
    "stationary-forward",
    "twopass-forward",
    "streaming-forward",
    "attention-backward",
)


def _instances():
    for kind in GRAPHS:
        for n_ in (1, 2, 3):
            for d_ in (1, 2):
                for tree in builders.TREE_SHAPES:
                    blocks = (
                        range(1, n_ + 2) if "block" in builders.BUILDERS[kind].parameters else (1,)
                    )
                    for block in blocks:
                        yield kind, n_, d_, tree, block


MASK_DERIVATIONS = ("causal-lower",)
"""Derivations whose class is read over a mask's allowed pairs (``mask=``)."""


def _derivations(pass_: Pass) -> list[str]:
    return [name for name, p in CLASSES if p is pass_]


def _dense(pass_: Pass) -> list[str]:
    return [name for name in _derivations(pass_) if name not in MASK_DERIVATIONS]


def _used(pass_: Pass) -> set[str]:
    return {p for name in _dense(pass_) for p in CLASSES[name, pass_]}


@pytest.mark.parametrize("kind", GRAPHS)
def test_every_graph_is_in_every_class_of_its_pass(kind: str) -> None:
    """Exhaustively for n <= 3, d <= 2, both tree shapes and every key block size 1..n+1,
    each of attnio's dense graphs (normalise-first, SY24's, FlashAttention-2's online
    softmax, FlashAttention's renormalised online softmax, row streaming's log-sum-exp,
    the FA2 backward) has every property of every derivation's class of its pass."""
    for kind_, n_, d_, tree, block in _instances():
        if kind_ != kind:
            continue
        dag = builders.build(kind, n_, d_, tree=tree, block=block)
        pass_ = graph_pass(dag)
        held = {p for p in PROPERTIES if p in _used(pass_) and violations(dag, p) == []}
        for name in _dense(pass_):
            assert set(CLASSES[name, pass_]) <= held, (kind, n_, d_, tree, block, name)


def _edited(dag: Dag, add=(), remove=()) -> Dag:
    index = {label: v for v, label in enumerate(dag.labels)}
    edges = {tuple(e) for e in dag.edges().tolist()}
    edges -= {(index[a], index[b]) for a, b in remove}
    edges |= {(index[a], index[b]) for a, b in add}
    return Dag.from_edges(dag.labels, np.array(sorted(edges), dtype=np.int64).reshape(-1, 2))


FAILURES = [
    # a score-tree vertex with a second successor
    ("attention-forward", "score-trees", {"add": [("QK[0,0,0]", "exp[0,1]")]}),
    # P_00 no longer computed from S_00: no path from Q_0l to the products P_00 V_0k
    (
        "attention-forward",
        "pair-chains",
        {"remove": [("exp[0,0]", "P[0,0]"), ("exp[0,0]", "rowsum[0]")]},
    ),
    # a product of O_00's tree also feeds O_10: not a tree
    ("attention-forward", "accumulator-trees", {"add": [("PV[0,0,0]", "O[1,0]")]}),
    ("online-forward", "accumulator-trees", {"add": [("PV[0,1,0]", "O[1,0]")]}),
    # an output that feeds another vertex
    ("sy24-forward", "io-ends", {"add": [("O[0,0]", "O[1,0]")]}),
    ("attention-backward", "dp-trees", {"add": [("dOV[0,0,0]", "dS[1,1]")]}),
    ("attention-backward", "row-sets", {"add": [("dOO[0,0]", "dS[1,1]")]}),
    # P_01 no longer computed from S_01
    ("attention-backward", "pair-chains", {"remove": [("S-L[0,1]", "P[0,1]")]}),
]


@pytest.mark.parametrize(("kind", "prop", "edit"), FAILURES)
def test_each_property_fails_on_a_graph_without_it(kind: str, prop: str, edit: dict) -> None:
    """Each checker can fail: one edge added or removed where the lemma needs its structure
    gives a violation of that property (n = 2, d = 2, chain trees)."""
    dag = builders.build(kind, 2, 2)
    assert violations(dag, prop) == []
    found = violations(_edited(dag, **edit), prop)
    assert found and all(v.prop == prop for v in found)


def test_checks_refuse_what_they_cannot_judge() -> None:
    """An unknown property, a backward property on a forward graph and a graph without
    Q[0,0] are refused with the argument named."""
    dag = builders.build("attention-forward", 1, 1)
    with pytest.raises(PebbleParameterError, match="prop="):
        violations(dag, "nonsense")
    with pytest.raises(PebbleParameterError, match="backward"):
        violations(dag, "row-sets")
    with pytest.raises(PebbleParameterError, match="derivation="):
        in_class(dag, "lower-nonsense")
    with pytest.raises(PebbleParameterError, match="Q\\[0,0\\]"):
        graph_pass(Dag.from_edges(["a", "b"], np.array([[0, 1]])))
    assert set(PROPERTIES) >= {p for props in CLASSES.values() for p in props}


def test_the_coverage_table_names_real_schedules_and_checked_graphs() -> None:
    """Every schedule of the coverage table is an algorithm of that pass; every graph it
    names is a builder of that pass, one the exhaustive tests here check wherever a
    derivation is said to cover it (the dense graphs above, without a mask or heads; the
    stacked shape graphs of SHAPE_SCHEDULES below, covered by the shape derivations
    alone; the masked graphs of MASKED_SCHEDULES below, every masked schedule's, covered
    by compulsory and causal-lower for the causal mask and by none for another), and every
    derivation it lists has a class for that pass; every (algorithm, pass) of the registry
    has an entry."""
    for (name, pass_), cover in COVERAGE.items():
        assert pass_.value in ALGORITHMS[name].runners, name
        assert set(cover.covered) <= set(_derivations(pass_))
        if (name, pass_) in SHAPE_SCHEDULES:
            assert set(cover.covered) == {"shape-lower", "shape-compulsory"}, name
            continue
        if (name, pass_) in MASKED_SCHEDULES:  # read over its mask (tests below)
            causal = MASKED_SCHEDULES[name, pass_][0] == "causal"
            assert cover.covered == (CAUSAL_COVERED if causal else ()), name
            continue
        if cover.covered:  # a dense graph: no mask, no heads
            assert "mask" not in cover.options and "heads" not in cover.options, name
        if cover.kind is None:
            assert cover.covered == ()
            continue
        assert builders.BUILDERS[cover.kind].pass_ is pass_
        assert cover.kind in GRAPHS or not cover.covered, name
        assert set(cover.covered) <= set(_derivations(pass_))
    every = {(name, Pass(p)) for name, algo in ALGORITHMS.items() for p in algo.runners}
    assert every == set(COVERAGE)
    masked = {key for key, cover in COVERAGE.items() if "mask" in cover.options}
    assert masked - set(SHAPE_SCHEDULES) == set(MASKED_SCHEDULES)


CAUSAL_COVERED = ("compulsory", "causal-lower")
"""What the causal schedules' coverage lists: their graphs, read over the causal mask."""


def _family_masks(family: str, n_: int):
    """(mask, key block) of a family at n: the causal mask; every window width and band
    half-width; random block masks (seed n) of every br x bc blocks, and of every square
    tile side, with an allowed block in every row (the schedules' element masks)."""
    if family == "causal":
        yield builders.causal_mask(n_), 1
        return
    if family in ("window", "band"):
        for w in range(1, n_ + 1):
            yield builders.mask_from_spec(f"{family}:{w - (family == 'band')}", n_), 1
        return
    rng = np.random.default_rng(n_)
    shapes = [(s, s) for s in range(1, n_ + 1)]
    if family == "block":
        shapes = [(r, c) for r in range(1, n_ + 1) for c in range(1, n_ + 1)]
    for br, bc in shapes:
        rows, cols = -(-n_ // br), -(-n_ // bc)
        blocks = rng.random((rows, cols)) < 0.6
        blocks[np.arange(rows), rng.integers(0, cols, rows)] = True
        yield flash.element_mask(blocks, n_, br, bc), bc


def _streaming(mask, d_, tree, block):
    return [builders.masked_streaming_forward(mask, d_, tree=tree)]


def _backward(mask, d_, tree, block):
    return [builders.masked_backward(mask, d_, tree=tree)]


def _sliding(mask, d_, tree, block):
    return [builders.sliding_forward_graph(mask, d_, tree=tree)]


def _causal_flash2(mask, d_, tree, block):
    """online_forward with the mask at every key block size 1..n+1 (B_c of any M)."""
    n_ = len(mask)
    return [
        builders.online_forward(n_, d_, tree=tree, block=b, mask=mask) for b in range(1, n_ + 2)
    ]


def _block_sparse(mask, d_, tree, block):
    return [builders.blockwise_forward(len(mask), d_, tree=tree, block=block, mask=mask)]


def _sparse_tiling(mask, d_, tree, block):
    return [builders.sy24_forward(len(mask), d_, tree=tree, mask=mask)]


MASKED_SCHEDULES = {
    ("causal-row-streaming", Pass.FORWARD): ("causal", _streaming),
    ("causal-row-streaming", Pass.BACKWARD): ("causal", _backward),
    ("causal-flash2", Pass.FORWARD): ("causal", _causal_flash2),
    ("causal-flash2", Pass.BACKWARD): ("causal", _backward),
    ("window-row-streaming", Pass.FORWARD): ("window", _streaming),
    ("window-row-streaming", Pass.BACKWARD): ("window", _backward),
    ("window-sliding", Pass.FORWARD): ("window", _sliding),
    ("window-sliding", Pass.BACKWARD): ("window", _backward),
    ("band-sliding", Pass.FORWARD): ("band", _sliding),
    ("band-sliding", Pass.BACKWARD): ("band", _backward),
    ("block-sparse-flash", Pass.FORWARD): ("block", _block_sparse),
    ("block-sparse-flash", Pass.BACKWARD): ("block", _backward),
    ("sparse-square-tiling", Pass.FORWARD): ("tile", _sparse_tiling),
    ("sparse-square-tiling", Pass.BACKWARD): ("tile", _backward),
}
"""Masked schedule -> its mask family and the graphs its runs replay on
(tests/test_trace.py; COVERAGE names the builder), for a mask and its key block."""

_CAUSAL = [key for key, (family, _) in MASKED_SCHEDULES.items() if family == "causal"]


@pytest.mark.parametrize("key", _CAUSAL, ids=lambda key: f"{key[0]}-{key[1].value}")
def test_causal_schedules_graphs_are_in_the_causal_class(key) -> None:
    """Exhaustively for n <= 5, d <= 2 and both tree shapes (causal FlashAttention-2's
    forward at every key block size 1..n+1), the graph each causal schedule's run replays
    on (masked_streaming_forward, online_forward with the mask, masked_backward of the
    causal mask), read over the causal mask's pairs, is in the class of causal-lower.md
    (the dense segment class over the allowed pairs, no vertex of a masked-out pair, the
    causal mask) and of compulsory.md."""
    _, build = MASKED_SCHEDULES[key]
    checked = 0
    for n_ in range(1, 6):
        for mask, block in _family_masks("causal", n_):
            for d_ in (1, 2):
                for tree in builders.TREE_SHAPES:
                    for dag in build(mask, d_, tree, block):
                        assert graph_pass(dag) is key[1]
                        for name in CAUSAL_COVERED:
                            assert in_class(dag, name, mask=mask) == [], (key, n_, d_, tree, name)
                        checked += 1
    assert checked >= 5 * 2 * 2


_OTHER_MASKED = [key for key in MASKED_SCHEDULES if key not in _CAUSAL]


@pytest.mark.parametrize("key", _OTHER_MASKED, ids=lambda key: f"{key[0]}-{key[1].value}")
def test_other_masked_graphs_are_in_the_masked_class_of_their_mask(key) -> None:
    """For n <= 4, d <= 2, chain trees, every window width and band half-width and random
    block and tile masks, the graph each window, band, block-sparse and sparse-tiling
    schedule replays on has, over its own mask's pairs, every property of causal-lower.md's
    class but the causal mask (MASKED_CLASSES, which its steps use for any mask) and
    io-ends; it is in causal-lower's class exactly when its mask is the causal one (a
    window of width n)."""
    family, build = MASKED_SCHEDULES[key]
    checked = causal = 0
    for n_ in range(1, 5):
        for mask, block in _family_masks(family, n_):
            is_causal = bool((mask == builders.causal_mask(n_)).all())
            for d_ in (1, 2):
                for dag in build(mask, d_, "chain", block):
                    for prop in (*MASKED_CLASSES[key[1]], "io-ends"):
                        assert violations(dag, prop, mask=mask) == [], (key, n_, d_, prop)
                    assert (violations(dag, "causal", mask=mask) == []) is is_causal
                    checked += 1
                    causal += is_causal
    assert checked > causal > 0 or family != "window"
    assert checked > 10


def test_a_causal_graph_is_checked_over_its_mask_only() -> None:
    """Read without its mask, a causal graph misses the pairs above the diagonal (each
    named); with the causal mask, a graph missing the pair (2, 1) has no score tree there,
    and read over its own mask that pair is not the causal mask's; the dense graph read
    over the causal mask has vertices of masked-out pairs (each named once)."""
    causal = builders.causal_mask(3)
    dag = builders.masked_streaming_forward(causal, 1)
    found = [str(v) for v in in_class(dag, "causal-lower")]
    assert "causal: pair (0, 1) is read but key 1 > query 0" in found
    assert "score-trees: no vertex named S[0,1]" in found
    assert in_class(dag, "lower-sharp") != []
    holed = causal.copy()
    holed[2, 1] = False
    for build in (builders.masked_streaming_forward, builders.masked_backward):
        dag = build(holed, 1)
        found = [str(v) for v in in_class(dag, "causal-lower", mask=causal)]
        assert found[0] == "score-trees: no vertex named S[2,1]", found
        assert not any(v.startswith("causal:") for v in found)
        assert [str(v) for v in in_class(dag, "causal-lower", mask=holed)] == [
            "causal: pair (2, 1) of the causal mask (key 1 <= query 2) is not read"
        ]
    dense = builders.streaming_forward(3, 1)
    assert [str(v) for v in in_class(dense, "causal-lower", mask=causal)] == [
        f"allowed-pairs: {label} is a vertex of the pair {pair}, masked out"
        for pair in ((0, 1), (0, 2), (1, 2))
        for label in (
            f"QK[{pair[0]},{pair[1]},0]=S[{pair[0]},{pair[1]}]",
            f"PV[{pair[0]},{pair[1]},0]",
        )
    ]


CAUSAL_FAILURES = [
    # a product of pair (2, 0) also summed into S_21: two pairs' score trees meet
    (builders.masked_streaming_forward, "score-trees", {"add": [("QK[2,0,0]", "S[2,1]")]}),
    # a product of O_20's tree also feeds O_10: not a tree
    (builders.masked_streaming_forward, "accumulator-trees", {"add": [("PV[2,0,0]", "O[1,0]")]}),
    (builders.masked_backward, "dp-trees", {"add": [("dOV[2,0,0]", "dP[2,1]")]}),
    # dK_00 loses the term of pair (2, 0): that product is a sink
    (builders.masked_backward, "accumulator-trees", {"remove": [("dSQ[2,0,0]", "dK[0,0]")]}),
]


@pytest.mark.parametrize(("build", "prop", "edit"), CAUSAL_FAILURES)
def test_masked_properties_fail_on_an_edited_causal_graph(build, prop, edit) -> None:
    """The checks read over a mask can fail: one edge that joins two allowed pairs'
    trees or cuts an accumulator tree of a causal graph (n = 3, d = 2) is a violation of
    that property, and the graph leaves causal-lower's class."""
    causal = builders.causal_mask(3)
    dag = build(causal, 2)
    assert in_class(dag, "causal-lower", mask=causal) == []
    edited = _edited(dag, **edit)
    assert edited.num_edges != dag.num_edges
    found = violations(edited, prop, mask=causal)
    assert found and all(v.prop == prop for v in found)
    assert in_class(edited, "causal-lower", mask=causal) != []


def test_a_mask_must_fit_the_graph() -> None:
    """A mask of another shape than the graph's rows x keys, or with entries other than
    booleans or 0/1, is refused with the argument named."""
    dag = builders.masked_streaming_forward(builders.causal_mask(3), 1)
    with pytest.raises(PebbleParameterError, match="mask of shape"):
        violations(dag, "score-trees", mask=builders.causal_mask(2))
    with pytest.raises(PebbleParameterError, match="mask entries"):
        in_class(dag, "causal-lower", mask=2 * builders.causal_mask(3))


def test_each_coverage_states_its_red_pebbles_once_as_data() -> None:
    """extra_red is EXTRA_RED's c for the schedule (None only where no pebbling is
    exported), every (algorithm, pass) of a count record has an entry there, and the
    evidence names exactly that many red pebbles: "M + c red pebbles" (or "M red pebbles"),
    once, and no other number of them."""
    import re

    from attnio.bounds.counts import COUNTS
    from attnio.bounds.pebblings import EXTRA_RED, red_pebbles

    assert set(EXTRA_RED) == {(b.algorithm, b.pass_.value) for b in COUNTS}
    for (name, pass_), cover in COVERAGE.items():
        assert cover.extra_red == EXTRA_RED[name, pass_.value], name
        stated = re.findall(r"M(?: \+ \d+)? red pebbles", cover.evidence)
        if cover.extra_red is None:
            assert stated == [] and "not exported" in cover.evidence, name
        else:
            assert stated == [red_pebbles(cover.extra_red)], (name, stated)
    assert COVERAGE["flash", Pass.FORWARD].extra_red == 6
    assert "with M + 6 red pebbles" in COVERAGE["flash", Pass.FORWARD].evidence


SHAPES = [
    (n_q, n_kv, hq, hk)
    for n_q in (1, 2, 3)
    for n_kv in (1, 2, 3)
    for hq, hk in ((1, 1), (2, 1), (3, 1), (4, 2))
]
"""(n_q, n_kv, heads_q, heads_kv): rectangular one head, multi-query with groups of 2 and
3, grouped-query 4:2 (two groups: pairs and trees must stay apart across groups)."""


def _stacked(shape: tuple[int, int, int, int]) -> np.ndarray:
    """The heads' block diagonal over head-major stacked rows (the schedules' mask)."""
    n_q, n_kv, hq, hk = shape
    head = np.arange(hq * n_q) // (hq // hk * n_q)
    return head[:, None] == np.arange(hk * n_kv)[None, :] // n_kv


def _split(shape, d_, tree):
    """split_streaming_forward at every chunk size 1..n_kv (kv_chunk's cuts per head)."""
    _, n_kv, _, hk = shape
    for chunk in range(1, n_kv + 1):
        starts = [k * n_kv + j for k in range(hk) for j in range(0, n_kv, chunk)]
        yield builders.split_streaming_forward(_stacked(shape), d_, starts, tree=tree)


def _split_backward(shape, d_, tree):
    """masked_backward with dQ over partials at every key block size 1..n_kv."""
    _, n_kv, _, hk = shape
    for chunk in range(1, n_kv + 1):
        starts = [k * n_kv + j for k in range(hk) for j in range(0, n_kv, chunk)]
        yield builders.masked_backward(_stacked(shape), d_, tree=tree, dq_starts=starts)


def _tiles(shape, d_, tree):
    """grouped_stationary_forward at every key tile side 1..n_kv."""
    n_q, n_kv, hq, hk = shape
    for tile in range(1, n_kv + 1):
        yield builders.grouped_stationary_forward(
            hq // hk * n_q, n_kv, hk, d_, tree=tree, block=tile
        )


def _online_blocks(shape, d_, tree):
    """grouped_online_forward at every key block size 1..n_kv."""
    n_q, n_kv, hq, hk = shape
    for block in range(1, n_kv + 1):
        yield builders.grouped_online_forward(hq // hk * n_q, n_kv, hk, d_, tree=tree, block=block)


def _blockwise_blocks(shape, d_, tree):
    """grouped_blockwise_forward at every key block size 1..n_kv."""
    n_q, n_kv, hq, hk = shape
    for block in range(1, n_kv + 1):
        yield builders.grouped_blockwise_forward(
            hq // hk * n_q, n_kv, hk, d_, tree=tree, block=block
        )


def _stacked_backward(shape, d_, tree):
    """masked_backward of the heads' block diagonal."""
    return [builders.masked_backward(_stacked(shape), d_, tree=tree)]


SHAPE_SCHEDULES = {
    ("gqa-row-streaming", Pass.FORWARD): lambda s, d_, t: [
        builders.masked_streaming_forward(_stacked(s), d_, tree=t)
    ],
    ("gqa-row-streaming", Pass.BACKWARD): _stacked_backward,
    ("gqa-output-stationary", Pass.BACKWARD): _stacked_backward,
    ("split-kv-decode", Pass.FORWARD): _split,
    ("split-kv-decode", Pass.BACKWARD): _split_backward,
    ("gqa-output-stationary", Pass.FORWARD): _tiles,
    ("gqa-flash2", Pass.FORWARD): _online_blocks,
    ("gqa-flash2", Pass.BACKWARD): _stacked_backward,
    ("gqa-flash", Pass.FORWARD): _blockwise_blocks,
    ("gqa-flash", Pass.BACKWARD): _stacked_backward,
    ("gqa-two-sweep", Pass.BACKWARD): _stacked_backward,
    ("gqa-score-panel", Pass.FORWARD): lambda s, d_, t: [
        builders.grouped_twopass_forward(s[2] // s[3] * s[0], s[1], s[3], d_, tree=t)
    ],
}
"""Shape schedule -> the graphs its runs replay on (tests/test_trace.py), heads stacked
under one-head labels."""

SHAPE_BUILDERS = {
    Pass.FORWARD: lambda s, d_, t: [gqa_forward(Shape(*s), d_, tree=t)],
    Pass.BACKWARD: lambda s, d_, t: [gqa_backward(Shape(*s), d_, tree=t)],
}


_DISTINCT = [
    key
    for place, (key, build) in enumerate(SHAPE_SCHEDULES.items())
    if build not in list(SHAPE_SCHEDULES.values())[:place]
]
"""The schedules whose graphs another schedule's entry does not already build."""


@pytest.mark.parametrize(
    "graphs",
    [*_DISTINCT, *SHAPE_BUILDERS],
    ids=lambda key: (
        "-".join(str(getattr(x, "value", x)) for x in key)
        if isinstance(key, tuple)
        else f"gqa-{key.value}"
    ),
)
def test_every_shape_graph_is_in_the_shape_classes(graphs) -> None:
    """Exhaustively for n_q, n_kv <= 3, heads 1:1, 2:1, 3:1 (MQA) and 4:2 (GQA), d <= 2
    and both tree shapes, each graph a shape schedule pebbles (row streaming's over the
    heads' block diagonal, forward and backward; split-KV decoding's at every chunk size,
    forward and backward; group-aware output-stationary tiling's at every tile side,
    backward on row streaming's graph)
    with heads (h_q, h_kv), and the head-indexed graphs of attnio.pebble.shapes, have every
    property of shape-lower's and shape-compulsory's classes, pairs taken per query head
    with the keys of its group; with more than one head or n_q != n_kv they are not in
    the square classes of the dense derivations."""
    build = SHAPE_SCHEDULES.get(graphs) or SHAPE_BUILDERS[graphs]
    stacked = graphs in SHAPE_SCHEDULES
    checked = 0
    for shape in SHAPES:
        heads = shape[2:] if stacked else None
        for d_ in (1, 2):
            for tree in builders.TREE_SHAPES:
                for dag in build(shape, d_, tree):
                    pass_ = graph_pass(dag)
                    for name in ("shape-lower", "shape-compulsory"):
                        assert in_class(dag, name, heads=heads) == [], (graphs, shape, d_, name)
                    square = shape[2:] == (1, 1) and shape[0] == shape[1]
                    assert (violations(dag, "square", heads=heads) == []) is square
                    checked += 1
    assert checked >= 2 * 2 * len(SHAPES)
    assert pass_ in (Pass.FORWARD, Pass.BACKWARD)


SHAPE_FAILURES = [
    # a product of head 1 also summed into head 0's score: two heads' chains meet
    ("forward", (1, 2, 2, 1), None, {"add": [("QK[1,0,0,0]", "S[0,0,0]")]}, "pair-chains"),
    # a product of head 1 also summed into head 0's output: not a tree
    ("forward", (1, 2, 2, 1), None, {"add": [("PV[1,0,1,0]", "O[0,0,0]")]}, "accumulator-trees"),
    # the dK tree of a key/value head loses head 1's term: that product is a sink
    (
        "backward",
        (1, 2, 2, 1),
        None,
        {"remove": [("dSQ[1,0,0,0]", "dK[0,0]")]},
        "accumulator-trees",
    ),
]


@pytest.mark.parametrize(("pass_", "shape", "heads", "edit", "prop"), SHAPE_FAILURES)
def test_shape_properties_fail_where_heads_share_more_than_k_and_v(
    pass_, shape, heads, edit, prop
) -> None:
    """The per-head checks can fail on head-indexed labels: an edge that makes two query
    heads share a chain vertex or an accumulator tree, or that cuts a group's dK tree,
    is a violation of that property (d = 2; the graph without the edit has none)."""
    dag = SHAPE_BUILDERS[Pass(pass_)](shape, 2, "chain")[0]
    assert in_class(dag, "shape-lower", heads=heads) == []
    edited = _edited(dag, **edit)
    assert edited.num_edges != dag.num_edges
    found = violations(edited, prop, heads=heads)
    assert found and all(v.prop == prop for v in found)


def test_stacked_heads_must_be_named_and_fit() -> None:
    """A stacked grouped-query graph read as one head (every row with every key) misses
    the pairs across groups, so it is not in shape-lower's class without its heads; heads
    that do not divide its rows, or disagree with head-indexed labels, are refused."""
    dag = builders.masked_streaming_forward(_stacked((2, 2, 4, 2)), 1)
    assert in_class(dag, "shape-lower", heads=(4, 2)) == []
    assert any("no vertex named S" in v.where for v in in_class(dag, "shape-lower"))
    with pytest.raises(PebbleParameterError, match="heads="):
        in_class(dag, "shape-lower", heads=(3, 1))
    with pytest.raises(PebbleParameterError, match="heads="):
        in_class(gqa_forward(Shape(1, 2, 2, 1), 1), "shape-lower", heads=(2, 2))


NOTATION_ROWS = {
    "row streaming, forward": [("row-streaming", "forward")],
    "FlashAttention-2, forward": [("flash2", "forward")],
    "FlashAttention, forward": [("flash", "forward")],
    "row streaming, backward": [("row-streaming", "backward")],
    "FlashAttention-2, backward": [("flash2", "backward")],
    "FlashAttention, backward": [("flash", "backward")],
    "standard attention, backward": [("standard", "backward")],
    "two-sweep, backward": [("two-sweep", "backward")],
    "square tiling (SY24 Alg. 1), forward": [("square-tiling", "forward")],
    "standard attention, forward": [("standard", "forward")],
    "score-panel, forward": [("score-panel", "forward")],
    "output-stationary, forward": [("output-stationary", "forward")],
    "tiled backward, backward": [("tiled-backward", "backward")],
    "output-stationary, backward": [("output-stationary", "backward")],
    "causal and window row streaming, forward": [
        ("causal-row-streaming", "forward"),
        ("window-row-streaming", "forward"),
    ],
    "causal and window row streaming, window and band sliding, backward": [
        ("causal-row-streaming", "backward"),
        ("window-row-streaming", "backward"),
        ("window-sliding", "backward"),
        ("band-sliding", "backward"),
    ],
    "causal FlashAttention-2, forward": [("causal-flash2", "forward")],
    "causal FlashAttention-2, backward": [("causal-flash2", "backward")],
    "grouped-query row streaming, forward": [("gqa-row-streaming", "forward")],
    "grouped-query row streaming, backward": [("gqa-row-streaming", "backward")],
    "window and band sliding, forward": [
        ("window-sliding", "forward"),
        ("band-sliding", "forward"),
    ],
    "block-sparse FlashAttention, forward": [("block-sparse-flash", "forward")],
    "block-sparse FlashAttention, backward": [("block-sparse-flash", "backward")],
    "sparse square tiling, forward": [("sparse-square-tiling", "forward")],
    "sparse square tiling, backward": [("sparse-square-tiling", "backward")],
    "split-KV decoding, forward": [("split-kv-decode", "forward")],
    "group-aware output-stationary, forward": [("gqa-output-stationary", "forward")],
    "group-aware output-stationary, backward": [("gqa-output-stationary", "backward")],
    "split-KV decoding, backward": [("split-kv-decode", "backward")],
    "group-aware FlashAttention-2, forward": [("gqa-flash2", "forward")],
    "group-aware FlashAttention-2, backward": [("gqa-flash2", "backward")],
    "group-aware FlashAttention, forward": [("gqa-flash", "forward")],
    "group-aware FlashAttention, backward": [("gqa-flash", "backward")],
    "group-aware two-sweep, backward": [("gqa-two-sweep", "backward")],
    "group-aware score-panel, forward": [("gqa-score-panel", "forward")],
    "low-rank (polynomial method), forward": [("low-rank", "forward")],
    "low-rank, column-blocked, forward": [("low-rank-columns", "forward")],
    "low-rank (polynomial method), backward": [("low-rank", "backward")],
    "low-rank, column-blocked, backward": [("low-rank-columns", "backward")],
}
"""docs/notation.md's coverage table: each row's schedules (algorithm, pass)."""


def test_the_notation_table_states_each_schedules_red_pebbles() -> None:
    """docs/notation.md's table of schedules as pebblings has a row for every schedule
    that exports a pebbling, and its "red pebbles" column is COVERAGE's extra_red."""
    import re
    from pathlib import Path

    from attnio.bounds.pebblings import red_pebbles

    page = (Path(__file__).resolve().parents[1] / "docs" / "notation.md").read_text()
    table = page.split("| schedule | graph | I/O of the pebbling | red pebbles |\n", 1)[1]
    stated = {}
    for line in table.splitlines()[1:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        stated[cells[0]] = cells[-1]
    assert set(stated) == set(NOTATION_ROWS)
    keys = [key for row in NOTATION_ROWS.values() for key in row]
    exported = {(a, p.value) for (a, p), c in COVERAGE.items() if c.extra_red is not None}
    assert sorted(keys) == sorted(exported)
    for row, schedules in NOTATION_ROWS.items():
        for name, pass_ in schedules:
            extra = COVERAGE[name, Pass(pass_)].extra_red
            assert f"{stated[row]} red pebbles" == red_pebbles(extra), (row, name, pass_)
