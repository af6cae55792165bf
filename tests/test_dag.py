"""Tests of attnio.pebble.dag: renumbering, CSR arrays, validation and file round trips."""

from __future__ import annotations

import doctest
import itertools
import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attnio.pebble import dag as dag_module
from attnio.pebble.dag import GRAPH_FORMATS, Dag, load_dag, save_dag
from attnio.pebble.errors import (
    CycleError,
    GraphFormatError,
    MemoryTooSmallError,
    ParameterError,
    PebbleError,
)
from strategies import dags, edge_lists, examples


def _edge_set(dag: Dag) -> set[tuple[str, str]]:
    return {(dag.labels[u], dag.labels[v]) for u, v in dag.edges().tolist()}


def test_docstring_examples() -> None:
    """Every example in the module's docstrings runs as written."""
    assert doctest.testmod(dag_module).failed == 0


@given(dags())
def test_numbering_is_topological(dag: Dag) -> None:
    """Every edge goes from a smaller to a larger vertex index."""
    edges = dag.edges()
    assert np.all(edges[:, 0] < edges[:, 1])


@given(dags())
def test_csr_directions_agree(dag: Dag) -> None:
    """The successor arrays are exactly the transpose of the predecessor arrays."""
    from_preds = {(int(p), v) for v in range(dag.num_vertices) for p in dag.predecessors(v)}
    from_succs = {(u, int(s)) for u in range(dag.num_vertices) for s in dag.successors(u)}
    assert from_preds == from_succs
    assert dag.pred_ptr.dtype == dag.succ_idx.dtype == np.int64


@given(edge_lists())
def test_from_edges_keeps_edges(drawn: tuple[int, list]) -> None:
    """Building from edges preserves the labelled edge set and the vertex set."""
    count, edges = drawn
    dag = Dag.from_edges(count, edges)
    assert set(dag.labels) == {str(i) for i in range(count)}
    assert _edge_set(dag) == {(str(u), str(v)) for u, v in edges}


def test_given_topological_order_is_kept() -> None:
    """A vertex order that is already topological is kept as the numbering."""
    dag = Dag.from_edges(["x", "a", "b"], [(0, 2), (1, 2)])
    assert dag.labels == ("x", "a", "b")


def test_renumbering_prefers_given_order() -> None:
    """When vertices must move, Kahn's algorithm takes the earliest ready vertex first."""
    dag = Dag.from_edges(["c", "a", "b"], [(1, 0), (2, 0)])
    assert dag.labels == ("a", "b", "c")


@given(dags())
def test_inputs_outputs_degrees(dag: Dag) -> None:
    """Inputs are the sources, outputs the sinks and min_memory is max in-degree + 1."""
    assert dag.inputs.tolist() == [v for v in range(dag.num_vertices) if dag.indegree[v] == 0]
    assert dag.outputs.tolist() == [v for v in range(dag.num_vertices) if dag.outdegree[v] == 0]
    assert dag.min_memory == max(int(dag.indegree.max()), 0) + 1


def test_isolated_vertex_is_input_and_output() -> None:
    """An isolated vertex is both an input and an output."""
    dag = Dag.from_edges(["lonely", "a", "b"], [(1, 2)])
    assert 0 in dag.inputs.tolist() and 0 in dag.outputs.tolist()
    assert dag.min_memory == 2


def test_dag_is_immutable() -> None:
    """Neither attributes nor arrays of a Dag can be changed."""
    dag = Dag.from_edges(2, [(0, 1)])
    with pytest.raises(AttributeError):
        dag.labels = ("x", "y")  # type: ignore[misc]
    with pytest.raises(ValueError):
        dag.pred_idx[0] = 1


@given(dags(), st.sampled_from([".json", ".graphml", ".dot"]))
def test_file_round_trip(tmp_path_factory, dag: Dag, suffix: str) -> None:
    """Saving then loading a DAG in every format gives back an equal DAG."""
    path = tmp_path_factory.mktemp("g") / f"graph{suffix}"
    save_dag(dag, path)
    assert load_dag(path) == dag


@given(dags(), st.sampled_from(sorted(GRAPH_FORMATS)))
def test_every_format_round_trips(tmp_path_factory, dag: Dag, format: str) -> None:
    """Saving in any format (attnio's JSON, networkx node-link JSON, GraphML, DOT) then
    loading gives back an equal DAG."""
    path = tmp_path_factory.mktemp("g") / f"graph{GRAPH_FORMATS[format]}"
    save_dag(dag, path, format=format)
    assert load_dag(path) == dag


@given(dags())
def test_node_link_output_is_what_networkx_reads(tmp_path_factory, dag: Dag) -> None:
    """The node-link file is networkx's own format: networkx reads it as the same
    directed graph, and the file names its edges "links" as networkx writes them."""
    path = tmp_path_factory.mktemp("g") / "graph.json"
    save_dag(dag, path, format="node-link")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["directed"] is True and "links" in data
    graph = nx.node_link_graph(data, edges="links")
    assert list(graph.nodes) == list(dag.labels)
    assert set(graph.edges) == set(dag.to_networkx().edges)


@pytest.mark.parametrize(
    ("name", "format", "match"),
    [
        ("g.dot", "node-link", "written to a .json file"),
        ("g.json", "graphml", "written to a .graphml file"),
        ("g.json", "yaml", "not one of"),
        ("g.txt", None, "suffix '.txt'"),
    ],
)
def test_save_refuses_a_format_it_could_not_read_back(tmp_path, name, format, match) -> None:
    """save_dag refuses an unknown format or a suffix load_dag would read as another format."""
    with pytest.raises(GraphFormatError, match=match):
        save_dag(Dag.from_edges(2, [(0, 1)]), tmp_path / name, format=format)


@pytest.mark.parametrize("format", sorted(GRAPH_FORMATS))
def test_awkward_labels_round_trip(tmp_path, format: str) -> None:
    """Labels with quotes, backslashes, spaces and arrows survive every format."""
    labels = ['a "quoted" one', "back\\slash", "S[0,1]+2", "x -> y", "digraph"]
    dag = Dag.from_edges(labels, [(0, 1), (1, 2), (3, 4), (0, 4)])
    path = tmp_path / f"g{GRAPH_FORMATS[format]}"
    save_dag(dag, path, format=format)
    assert load_dag(path) == dag


@given(dags())
def test_networkx_round_trip(dag: Dag) -> None:
    """to_networkx then from_networkx gives back an equal DAG."""
    assert Dag.from_networkx(dag.to_networkx()) == dag


def test_from_networkx_stringifies_names() -> None:
    """Node names of any hashable type become their str() labels."""
    dag = Dag.from_networkx(nx.DiGraph([((0, 1), 5), (5, "z")]))
    assert dag.labels == ("(0, 1)", "5", "z")


def test_cycle_is_refused_and_named() -> None:
    """A cycle is refused with its vertices listed in order."""
    with pytest.raises(CycleError) as info:
        Dag.from_networkx(nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]))
    cycle = info.value.cycle
    assert sorted(cycle) == ["a", "b", "c"]
    assert "->" in str(info.value)


@given(edge_lists(min_vertices=2), st.data())
def test_random_cycles_are_refused(drawn, data) -> None:
    """Adding a back edge along a path of a DAG makes it refused with a real cycle named."""
    count, edges = drawn
    u = data.draw(st.integers(0, count - 2))
    v = data.draw(st.integers(u + 1, count - 1))
    edges = sorted(set(edges) | {(u, v), (v, u)})
    with pytest.raises(CycleError) as info:
        Dag.from_edges(count, edges)
    cycle = [int(x) for x in info.value.cycle]
    closed = [*cycle, cycle[0]]
    assert all((a, b) in edges for a, b in itertools.pairwise(closed))


def test_self_loop_is_a_cycle() -> None:
    """A self-loop is refused as a cycle of length one."""
    with pytest.raises(CycleError) as info:
        Dag.from_edges(["a", "b"], [(0, 1), (1, 1)])
    assert info.value.cycle == ["b"]


@pytest.mark.parametrize(
    ("vertices", "edges"),
    [(0, []), ([], []), (2, [(0, 2)]), (2, [(0, 1), (0, 1)]), (["a", "a"], []),
     (3, [(0, 1, 2)]), (3, [("0", 1)]), (3, 5), ([1, "1"], [])],
)  # fmt: skip
def test_malformed_edges_are_refused(vertices, edges) -> None:
    """Empty graphs, repeated labels or edges, bad endpoints and bad pairs are refused."""
    with pytest.raises(GraphFormatError):
        Dag.from_edges(vertices, edges)


def test_multigraph_and_undirected_refused() -> None:
    """Only a networkx DiGraph is accepted."""
    with pytest.raises(GraphFormatError):
        Dag.from_networkx(nx.Graph([(1, 2)]))
    with pytest.raises(GraphFormatError):
        Dag.from_networkx(nx.MultiDiGraph([(1, 2)]))


@given(dags())
def test_memory_validation(dag: Dag) -> None:
    """M below max in-degree + 1 is refused naming a vertex of that in-degree; enough M passes."""
    assert dag.validate_memory(dag.min_memory) == dag.min_memory
    if dag.min_memory > 1:
        with pytest.raises(MemoryTooSmallError) as info:
            dag.validate_memory(dag.min_memory - 1)
        error = info.value
        assert error.minimum == dag.min_memory
        assert dag.indegree[dag.index(error.vertex)] == dag.max_indegree
        assert str(dag.min_memory) in str(error)


@pytest.mark.parametrize("M", [0, -1, 2.5, "3", True, None])
def test_memory_must_be_positive_integer(M) -> None:
    """M that is not a positive integer is refused with a ValueError."""
    with pytest.raises(ParameterError):
        Dag.from_edges(2, [(0, 1)]).validate_memory(M)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("g.json", ""),
        ("g.json", "   \n"),
        ("g.json", "{not json"),
        ("g.json", "[1, 2]"),
        ("g.json", '{"nodes": ["a"]}'),
        ("g.json", '{"nodes": ["a"], "edges": [["a", "b"]]}'),
        ("g.json", '{"nodes": ["a", "a"], "edges": []}'),
        ("g.json", '{"nodes": [], "edges": []}'),
        ("g.json", '{"nodes": ["a", "b"], "edges": [["a"]]}'),
        ("g.json", '{"nodes": [null], "edges": []}'),
        ("g.graphml", "<graphml><broken"),
        (
            "g.graphml",
            '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
            '<graph edgedefault="undirected"><node id="a"/><node id="b"/><edge source="a" '
            'target="b"/></graph></graphml>',
        ),
        ("g.dot", "graph { a -- b; }"),
        ("g.dot", "digraph { subgraph x { a; } }"),
        ("g.dot", "digraph { }"),
        ("g.dot", "digraph { a -> ; }"),
        ("g.dot", "digraph { a -> b"),
        ("g.dot", "digraph { a -> b; } digraph { c; }"),
        ("g.txt", "a b"),
    ],
)
def test_bad_files_are_refused(tmp_path, name: str, text: str) -> None:
    """Empty, malformed or unsupported graph files raise GraphFormatError naming the file."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GraphFormatError) as info:
        load_dag(path)
    assert name in str(info.value)


def test_cyclic_file_is_refused(tmp_path) -> None:
    """A graph file with a cycle is refused with CycleError."""
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"nodes": ["a", "b"], "edges": [["a", "b"], ["b", "a"]]}))
    with pytest.raises(CycleError):
        load_dag(path)


def test_missing_file_is_oserror(tmp_path) -> None:
    """A missing file raises OSError (the CLI reports it in one line)."""
    with pytest.raises(OSError):
        load_dag(tmp_path / "absent.json")


def test_dot_strict_digraph_with_attributes() -> None:
    """DOT is read by pydot: strict digraphs and attributes are accepted, repeated edges merge."""
    text = 'strict digraph G { node [shape=box]; a -> b [color=red]; "c" [label="x"]; a -> b; }'
    dag = dag_module._read_dot(text)
    assert dag.labels == ("a", "b", "c")
    assert _edge_set(dag) == {("a", "b")}


def test_dot_subset_reader() -> None:
    """The DOT reader takes names, chains, bare and quoted identifiers and comments."""
    text = '// c\ndigraph G {\n  "a" -> b -> "c d"; # chain\n  e\n  /* block */ b -> e;\n}\n'
    dag = dag_module._read_dot(text)
    assert set(dag.labels) == {"a", "b", "c d", "e"}
    assert _edge_set(dag) == {("a", "b"), ("b", "c d"), ("b", "e")}


@settings(max_examples=examples(30))
@given(dags())
@example(Dag.from_edges(1, []))
def test_errors_are_value_errors(dag: Dag) -> None:
    """Every pebble error is a ValueError so the CLI reports it in one line."""
    with pytest.raises(ValueError):
        dag.validate_memory(0)
    assert issubclass(PebbleError, ValueError)


def test_constructor_checks_arrays() -> None:
    """The raw constructor refuses arrays that are not a topologically numbered CSR pair."""
    good = Dag.from_edges(3, [(0, 2), (1, 2)])
    args = [good.pred_ptr, good.pred_idx, good.succ_ptr, good.succ_idx]
    assert Dag(good.labels, *args) == good
    for bad in (
        [np.array([0, 0, 0, 1]), np.array([2]), np.array([0, 1, 1, 1]), np.array([0])],
        [good.pred_ptr, good.pred_idx, np.array([0, 0, 1, 2]), good.succ_idx],
        [np.array([0, 0]), np.array([]), np.array([0, 0]), np.array([])],
        [good.pred_ptr, np.array([1, 0]), good.succ_ptr, good.succ_idx],
    ):
        with pytest.raises(GraphFormatError):
            Dag(good.labels, *bad)
    with pytest.raises(GraphFormatError):
        Dag(("a", "a", "b"), *args)
