"""Tests of attnio.pebble.builders: vertex-count formulas, structure, masks and refusals."""

from __future__ import annotations

import doctest
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.bounds import get
from attnio.bounds.symbols import Z, d, g, n
from attnio.pebble import builders
from attnio.pebble.builders import (
    BUILDERS,
    KINDS,
    TREE_SHAPES,
    approx_backward,
    approx_backward_columns,
    approx_backward_columns_vertices,
    approx_backward_product,
    approx_backward_product_vertices,
    approx_backward_vertices,
    approx_forward,
    approx_forward_vertices,
    attention_backward,
    attention_backward_vertices,
    attention_forward,
    attention_forward_vertices,
    build,
    causal_mask,
    mask_from_spec,
    nonempty_columns,
    sparse_backward,
    sparse_backward_vertices,
    sparse_forward,
    sparse_forward_vertices,
    weight_columns,
)
from attnio.pebble.errors import ParameterError
from attnio.pebble.heuristic import compulsory_io
from strategies import examples, masks

sizes = st.integers(1, 4)
trees = st.sampled_from(builders.TREE_SHAPES)


def test_docstring_examples() -> None:
    """Every example in the module's docstrings runs as written."""
    assert doctest.testmod(builders).failed == 0


@settings(max_examples=examples(40))
@given(sizes, sizes, trees)
def test_dense_counts(n_: int, d_: int, tree: str) -> None:
    """Dense forward and backward graphs have the vertex counts their formulas state."""
    assert attention_forward(n_, d_, tree=tree).num_vertices == attention_forward_vertices().subs(
        {n: n_, d: d_}
    )
    assert attention_backward(n_, d_, tree=tree).num_vertices == (
        attention_backward_vertices().subs({n: n_, d: d_})
    )


def test_closed_forms() -> None:
    """The dense formulas simplify to 4n^2d + 2n^2 + 2nd - n and 10n^2d + 2n^2 + 4nd."""
    assert attention_forward_vertices() == 4 * n**2 * d + 2 * n**2 + 2 * n * d - n
    assert attention_backward_vertices() == 10 * n**2 * d + 2 * n**2 + 4 * n * d


@settings(max_examples=examples(40))
@given(sizes, sizes, trees, st.data())
def test_sparse_counts(n_: int, d_: int, tree: str, data) -> None:
    """Sparse graphs have the counts their formulas state in Z allowed pairs and c used keys."""
    mask = data.draw(masks(n_))
    subs = {n: n_, d: d_, Z: int(mask.sum()), nonempty_columns: int(mask.any(axis=0).sum())}
    assert sparse_forward(n_, d_, mask, tree=tree).num_vertices == sparse_forward_vertices().subs(
        subs
    )
    assert sparse_backward(n_, d_, mask, tree=tree).num_vertices == (
        sparse_backward_vertices().subs(subs)
    )


@settings(max_examples=examples(30))
@given(sizes, st.integers(1, 3), st.integers(1, 3), trees)
def test_approx_counts(n_: int, d_: int, g_: int, tree: str) -> None:
    """The polynomial-attention graph has the count its formula states."""
    built = approx_forward(n_, d_, g_, tree=tree)
    assert built.num_vertices == approx_forward_vertices().subs({n: n_, d: d_, g: g_})


@settings(max_examples=examples(20))
@given(sizes, st.integers(1, 3), st.integers(1, 3), trees)
def test_approx_backward_counts(n_: int, d_: int, g_: int, tree: str) -> None:
    """The polynomial-attention gradient graph has the count its formula states, its inputs
    are Q, K, V, dO and its sinks are exactly the entries of dQ, dK and dV."""
    built = approx_backward(n_, d_, g_, tree=tree)
    assert built.num_vertices == approx_backward_vertices().subs({n: n_, d: d_, g: g_})
    sinks = sorted(built.labels[v].rpartition("=")[2] for v in built.outputs)
    entries = [f"{x}[{i},{k}]" for x in ("dK", "dQ", "dV") for i in range(n_) for k in range(d_)]
    assert sinks == sorted(entries)
    assert sorted(built.labels[v][:2] for v in built.inputs) == sorted(
        ["Q[", "K[", "V[", "dO"] * (n_ * d_)
    )


@settings(max_examples=examples(20))
@given(sizes, st.integers(1, 3), st.integers(1, 4), trees)
def test_approx_backward_product_counts(n_: int, d_: int, g_: int, tree: str) -> None:
    """The product-rule gradient graph has the count its formula states, the inputs and
    sinks of approx_backward, the same number of vertices at degree <= 2 and more above
    (each position of a monomial of degree >= 3 costs one product, the prefix chain less),
    and each of its products has the seed and the monomial of the other positions as
    predecessors."""
    built = approx_backward_product(n_, d_, g_, tree=tree)
    assert built.num_vertices == approx_backward_product_vertices().subs({n: n_, d: d_, g: g_})
    chain = approx_backward(n_, d_, g_, tree=tree)
    assert (built.num_vertices == chain.num_vertices) is (g_ <= 2)

    def ends(dag) -> list[str]:
        return sorted(dag.labels[v].rpartition("=")[2] for v in (*dag.inputs, *dag.outputs))

    assert ends(built) == ends(chain)
    index = {label: v for v, label in enumerate(built.labels)}
    if d_ >= 2 and g_ >= 2:
        rule = index[f"dQrule[0,{d_ + 1},1]"]  # feature (0, 1), position 1: coordinate 1
        preds = sorted(built.labels[p] for p in built.predecessors(rule).tolist())
        assert preds == ["Q[0,0]", f"dphi[0,{d_ + 1}]"]


@settings(max_examples=examples(20))
@given(st.integers(1, 3), sizes, st.integers(1, 3), st.integers(1, 4), trees)
def test_approx_backward_columns_counts(n_: int, d_: int, g_: int, block: int, tree: str) -> None:
    """The column-blocked gradient graph has the count its formula states; with one block
    (block >= d) it is approx_backward_product; with several, each share of dphi sums only
    its block's columns (the last one's plus dden w), and dQ[0, 0] is one chain over every
    block's share in turn (its first term block 0's share of dphi of feature (0,))."""
    built = approx_backward_columns(n_, d_, g_, tree=tree, block=block)
    values = {n: n_, d: d_, g: g_, weight_columns: block}
    assert built.num_vertices == approx_backward_columns_vertices().subs(values)
    product = approx_backward_product(n_, d_, g_, tree=tree)
    assert (built == product) is (block >= d_)
    shares = -(-d_ // block)
    if shares == 1:
        return
    index = {part: v for v, label in enumerate(built.labels) for part in label.split("=")}

    def sources(v: int) -> set[str]:
        preds = built.predecessors(v).tolist()
        if not preds or built.labels[v].startswith(("dnumW", "ddenw")):
            return {built.labels[v].split("=")[0]}
        return set().union(*(sources(p) for p in preds))

    for s in range(shares):
        columns = range(s * block, min(s * block + block, d_))
        expected = {f"dnumW[0,0,{k}]" for k in columns}
        if s == shares - 1:
            expected.add("ddenw[0,0]")
        assert sources(index[f"dphi[0,0]@{s}"]) == expected
    if tree == "chain":
        at, steps = index["dQ[0,0]"], 0
        while True:
            labels = [built.labels[v] for v in built.predecessors(at).tolist()]
            inner = [v for v in built.predecessors(at).tolist()
                     if built.labels[v].startswith("dQ[0,0]+")]  # fmt: skip
            if not inner:
                break
            at, steps = inner[0], steps + 1
        assert any("dphi[0,0]@0" in label.split("=") for label in labels)
        terms = sum(combo.count(0) for combo in builders._monomials(d_, g_))
        assert steps == shares * terms - 2


@pytest.mark.parametrize("kind", ["forward", "backward"])
def test_full_mask_is_dense(kind: str) -> None:
    """With every pair allowed the sparse graph is the dense graph."""
    full = np.ones((3, 3), dtype=bool)
    dense = attention_forward(3, 2) if kind == "forward" else attention_backward(3, 2)
    sparse = sparse_forward(3, 2, full) if kind == "forward" else sparse_backward(3, 2, full)
    assert sparse == dense


@settings(max_examples=examples(20))
@given(sizes, sizes)
def test_inputs_outputs_and_compulsory(n_: int, d_: int) -> None:
    """Inputs and outputs are the stated matrices; compulsory I/O matches the catalog records."""
    fwd = attention_forward(n_, d_)
    assert (
        sorted(fwd.labels[v][0] for v in fwd.inputs)
        == ["K"] * n_ * d_ + ["Q"] * n_ * d_ + ["V"] * n_ * d_
    )
    assert all("O[" in fwd.labels[v] for v in fwd.outputs)
    assert compulsory_io(fwd) == get("dense-forward-compulsory").evaluate(n=n_, d=d_, M=4)
    bwd = attention_backward(n_, d_)
    names = {label.split("=")[-1].split("[")[0] for label in (bwd.labels[v] for v in bwd.outputs)}
    assert names == {"dQ", "dK", "dV"} and bwd.outputs.size == 3 * n_ * d_
    assert bwd.inputs.size == 5 * n_ * d_ + n_
    assert compulsory_io(bwd) == get("dense-backward-compulsory").evaluate(n=n_, d=d_, M=4)


@settings(max_examples=examples(20))
@given(st.integers(1, 4), st.integers(1, 3), st.data())
def test_sparse_compulsory_above_catalog(n_: int, d_: int, data) -> None:
    """The sparse graphs' compulsory I/O is at least the catalog's sparse compulsory records."""
    mask = data.draw(masks(n_))
    z = int(mask.sum())
    fwd = get("sparse-forward-compulsory").evaluate(n=n_, d=d_, M=4, Z=z)
    bwd = get("sparse-backward-compulsory").evaluate(n=n_, d=d_, M=4, Z=z)
    assert compulsory_io(sparse_forward(n_, d_, mask)) >= fwd
    assert compulsory_io(sparse_backward(n_, d_, mask)) >= bwd


def test_labels_are_readable() -> None:
    """Vertices carry names like Q[0,1], QK[0,1,0], S[0,1]+1, exp[0,1] and O[1,0]."""
    labels = set(attention_forward(2, 3).labels)
    assert {
        "Q[0,1]",
        "QK[0,1,0]",
        "S[0,1]+1",
        "S[0,1]",
        "exp[0,1]",
        "rowsum[1]",
        "P[1,0]",
        "PV[1,0,2]",
        "O[1,0]",
    } <= labels


@pytest.mark.parametrize("tree", builders.TREE_SHAPES)
def test_tree_shapes_differ_in_depth(tree: str) -> None:
    """A chain summation tree of 8 terms is 7 deep, a balanced one 3 deep."""
    dag = attention_forward(1, 8, tree=tree)
    depth = np.zeros(dag.num_vertices, dtype=int)
    for v in range(dag.num_vertices):
        preds = dag.predecessors(v)
        depth[v] = depth[preds].max() + 1 if preds.size else 0
    root = dag.index("S[0,0]")
    assert depth[root] - 1 == (7 if tree == "chain" else 3)


def test_masks_from_specs(tmp_path) -> None:
    """Mask specs give the causal, full, band and local masks, or read a JSON file."""
    assert (mask_from_spec("causal", 3) == causal_mask(3)).all()
    assert mask_from_spec("full", 2).all()
    assert mask_from_spec("local:2", 4).sum(axis=1).tolist() == [1, 2, 2, 2]
    path = tmp_path / "m.json"
    path.write_text(json.dumps([[1, 0], [1, 1]]))
    assert mask_from_spec(str(path), 2).tolist() == [[True, False], [True, True]]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: attention_forward(0, 2), "n=0"),
        (lambda: attention_backward(2, -1), "d=-1"),
        (lambda: attention_forward(2, 2, tree="ternary"), "tree"),
        (lambda: sparse_forward(2, 1, np.zeros((2, 2), bool)), "row 0"),
        (lambda: sparse_backward(2, 1, np.array([[1, 0], [0, 0]])), "row 1"),
        (lambda: sparse_forward(2, 1, np.ones((3, 3), bool)), "shape"),
        (lambda: sparse_forward(2, 1, np.full((2, 2), 2)), "0/1"),
        (lambda: approx_forward(2, 2, 0), "degree=0"),
        (lambda: approx_backward(2, 2, 0), "degree=0"),
        (lambda: build("attention-sideways", 2, 2), "dag="),
        (lambda: mask_from_spec("band:x", 3), "width"),
        (lambda: mask_from_spec("stripes", 3), "causal"),
    ],
)
def test_refusals(call, message: str) -> None:
    """Bad sizes, shapes, masks and degrees are refused naming the argument."""
    with pytest.raises(ParameterError, match=message):
        call()


def test_bad_mask_file(tmp_path) -> None:
    """A mask file that is not JSON is refused."""
    path = tmp_path / "m.json"
    path.write_text("{")
    with pytest.raises(ParameterError, match="not valid JSON"):
        mask_from_spec(str(path), 2)


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.sampled_from(TREE_SHAPES), st.data())
def test_every_registered_builder_has_its_vertex_count(n_, d_, tree, data):
    """Each family of the builder table builds a DAG of exactly its formula's vertex count."""
    mask = data.draw(st.lists(st.booleans(), min_size=n_ * n_, max_size=n_ * n_))
    mask = np.array(mask, dtype=bool).reshape(n_, n_)
    mask[np.arange(n_), np.arange(n_)] = True  # every row nonempty
    for spec in BUILDERS.values():
        options = {"mask": mask} if "mask" in spec.parameters else {}
        dag = build(spec.kind, n_, d_, tree=tree, **options)
        assert dag.num_vertices == spec.vertex_count(n_, d_, **options), spec.kind


def test_builder_table_is_the_kinds():
    """KINDS lists the builder table's families, each with a pass and a regime."""
    assert KINDS == tuple(BUILDERS)
    assert all(spec.kind == kind for kind, spec in BUILDERS.items())


@pytest.mark.parametrize("n_", [1, 2, 3, 4])
@pytest.mark.parametrize("tree", TREE_SHAPES)
def test_one_computation_graphs_have_their_counts_and_outputs(n_: int, tree: str) -> None:
    """SY24's graph, FlashAttention-2's and FlashAttention's online-softmax graphs (every
    key block size 1..n+1) and row streaming's graph have their formulas' vertex counts;
    their outputs are O (and L for FlashAttention-2), and the online graph has one rescale
    factor per row and key block after the first."""
    from attnio.pebble.builders import key_block

    for d_ in (1, 2, 3):
        sizes = {n: n_, d: d_}
        dag = builders.sy24_forward(n_, d_, tree=tree)
        assert dag.num_vertices == builders.sy24_forward_vertices().subs(sizes)
        assert sorted(dag.labels[v].split("=")[-1][0] for v in dag.outputs) == ["O"] * n_ * d_
        dag = builders.streaming_forward(n_, d_, tree=tree)
        assert dag.num_vertices == builders.streaming_forward_vertices().subs(sizes)
        assert len(dag.outputs) == n_ * d_
        for block in range(1, n_ + 2):
            dag = builders.online_forward(n_, d_, tree=tree, block=block)
            formula = builders.online_forward_vertices().subs({**sizes, key_block: block})
            assert dag.num_vertices == formula
            assert len(dag.outputs) == n_ * d_ + n_
            blocks = -(-n_ // block)
            assert sum(label.startswith("alpha[") for label in dag.labels) == n_ * (blocks - 1)
            for build_, count in (
                (builders.blockwise_forward, builders.blockwise_forward_vertices),
                (builders.stationary_forward, builders.stationary_forward_vertices),
                (builders.twopass_forward, builders.twopass_forward_vertices),
            ):
                dag = build_(n_, d_, tree=tree, block=block)
                assert dag.num_vertices == count().subs({**sizes, key_block: block})
                assert len(dag.outputs) == n_ * d_


def test_online_block_is_checked() -> None:
    """A key block size below 1 is refused, naming the argument; --block only shapes the
    online graph's estimate."""
    with pytest.raises(ParameterError, match="block"):
        builders.online_forward(2, 1, block=0)
    with pytest.raises(ParameterError, match="block"):
        build("online-forward", 2, 1, block=0)
    assert builders.estimate_vertices("online-forward", 3, 1, block=3) < (
        builders.estimate_vertices("online-forward", 3, 1, block=1)
    )


def test_grouped_online_forward_is_online_forward_per_group() -> None:
    """With one group it is online_forward (same labels, same edges); with two groups of
    3 rows and 3 keys it has the vertices of two online_forward graphs of 3, row 3
    attends keys 3..5 only, in blocks counted from 0 within the group (keys 3, 4 then 5:
    m[3,0], m[3,1]); a block below 1 is refused."""
    for block in (1, 2, 4):
        assert builders.grouped_online_forward(3, 3, 1, 2, block=block) == (
            builders.online_forward(3, 2, block=block)
        )
    two = builders.grouped_online_forward(3, 3, 2, 2, block=2)
    assert two.num_vertices == 2 * builders.online_forward(3, 2, block=2).num_vertices
    keys = {two.labels[v] for v in two.predecessors(two.index("S[3,5]"))}
    assert (
        keys == {"QK[3,5,0]", "QK[3,5,1]"}
        and "S[3,0]" not in two.labels
        and "S[2,3]" not in two.labels
    )
    assert "m[3,1]" in two.labels and "m[3,2]" not in two.labels
    with pytest.raises(ParameterError, match="block"):
        builders.grouped_online_forward(2, 2, 1, 1, block=0)


def test_grouped_blockwise_forward_is_blockwise_forward_per_group() -> None:
    """With one group it is blockwise_forward (same labels, same edges); with two groups of
    3 rows and 3 keys it has the vertices of two blockwise_forward graphs of 3, row 3
    attends keys 3..5 only, its output renormalised after blocks counted from 0 within
    the group (O[3,0,0] after keys 3, 4, then O[3,0] after key 5); a block below 1 is
    refused."""
    for block in (1, 2, 4):
        assert builders.grouped_blockwise_forward(3, 3, 1, 2, block=block) == (
            builders.blockwise_forward(3, 2, block=block)
        )
    two = builders.grouped_blockwise_forward(3, 3, 2, 2, block=2)
    assert two.num_vertices == 2 * builders.blockwise_forward(3, 2, block=2).num_vertices
    keys = {two.labels[v] for v in two.predecessors(two.index("S[3,5]"))}
    assert keys == {"QK[3,5,0]", "QK[3,5,1]"} and "S[3,0]" not in two.labels
    assert "O[3,0,0]" in two.labels and "O[3,0,1]" not in two.labels
    with pytest.raises(ParameterError, match="block"):
        builders.grouped_blockwise_forward(2, 2, 1, 1, block=0)


def test_grouped_twopass_forward_is_twopass_forward_per_group() -> None:
    """With one group it is twopass_forward (same labels, same edges); with two groups of
    2 rows and 3 keys it has the vertices of two groups' rows, row 2 attends keys 3..5
    only, its tiles of one key counted from 0 within the group (each score its tile's
    maximum, the running maximum m[2,1] over S[2,3] and S[2,4]); a block below 1 is
    refused."""
    for block in (1, 2, 4):
        assert builders.grouped_twopass_forward(3, 3, 1, 2, block=block) == (
            builders.twopass_forward(3, 2, block=block)
        )
    two = builders.grouped_twopass_forward(2, 3, 2, 2, block=1)
    keys = {two.labels[v] for v in two.predecessors(two.index("S[2,5]=tmax[2,2]"))}
    assert keys == {"QK[2,5,0]", "QK[2,5,1]"} and "S[2,0]=tmax[2,0]" not in two.labels
    assert "m[2,2]" in two.labels and "m[2,3]" not in two.labels
    m21 = {two.labels[v] for v in two.predecessors(two.index("m[2,1]"))}
    assert m21 == {"S[2,3]=tmax[2,0]", "S[2,4]=tmax[2,1]"}
    with pytest.raises(ParameterError, match="block"):
        builders.grouped_twopass_forward(2, 2, 1, 1, block=0)


def _block_diagonal(n_q: int, n_kv: int, hq: int, hk: int) -> np.ndarray:
    rows = hq // hk * n_q
    return (np.arange(hq * n_q) // rows)[:, None] == (np.arange(hk * n_kv) // n_kv)[None, :]


@pytest.mark.parametrize("shape", [(1, 3, 2, 1), (2, 3, 4, 2), (3, 2, 1, 1)])
def test_masked_graphs_are_the_sparse_and_grouped_query_graphs(shape) -> None:
    """masked_backward of a square mask is sparse_backward (same labels, same edges);
    of the heads' block diagonal it has gqa_backward's vertices and edges (its heads
    stacked); masked_streaming_forward has rows d + 2 keys d + Z (5d + 4) - rows (2d + 3)
    vertices and, with every pair allowed, is streaming_forward."""
    from attnio.pebble.shapes import Shape, gqa_backward

    mask = np.tril(np.ones((4, 4), dtype=bool))
    a, b = builders.masked_backward(mask, 2), builders.sparse_backward(4, 2, mask)
    assert a.labels == b.labels and np.array_equal(a.edges(), b.edges())
    allowed = _block_diagonal(*shape)
    stacked, heads = builders.masked_backward(allowed, 2), gqa_backward(Shape(*shape), 2)
    assert (stacked.num_vertices, stacked.num_edges) == (heads.num_vertices, heads.num_edges)
    rows, keys = allowed.shape
    forward = builders.masked_streaming_forward(allowed, 2)
    assert forward.num_vertices == rows * 2 + 2 * keys * 2 + allowed.sum() * 14 - rows * 7
    dense, full = (
        builders.streaming_forward(3, 2),
        builders.masked_streaming_forward(np.ones((3, 3)), 2),
    )
    assert dense.labels == full.labels and np.array_equal(dense.edges(), full.edges())


def test_masked_builders_refuse_a_bad_mask() -> None:
    """A mask that is not a matrix, or has a row with no key, is refused by name."""
    with pytest.raises(ParameterError, match="rows x keys"):
        builders.masked_streaming_forward(np.ones(3, dtype=bool), 1)
    with pytest.raises(ParameterError, match="mask row 1"):
        builders.masked_backward(np.array([[1, 0], [0, 0]]), 1)
