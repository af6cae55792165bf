"""Tests of the shape graphs (attnio.pebble.shapes): n_q x n_kv, grouped-query heads."""

from __future__ import annotations

import itertools

import pytest

from attnio.bounds.symbols import d, h_kv, h_q, n_kv, n_q
from attnio.pebble.builders import attention_backward, attention_forward
from attnio.pebble.errors import PebbleParameterError
from attnio.pebble.shapes import (
    Shape,
    gqa_backward,
    gqa_backward_vertices,
    gqa_forward,
    gqa_forward_vertices,
)

SHAPES = [(1, 3, 4, 2), (2, 1, 2, 1), (2, 3, 3, 3), (3, 2, 1, 1), (1, 2, 4, 1)]


def _edges(g):
    return sorted(map(tuple, g.edges().tolist()))


@pytest.mark.parametrize("n_, d_", [(1, 1), (2, 2), (3, 2)])
def test_square_single_head_is_the_square_graph(n_, d_):
    """At n_q = n_kv = n and one head both graphs equal the square ones, label for label."""
    for ours, theirs in ((gqa_forward, attention_forward), (gqa_backward, attention_backward)):
        a, b = ours(Shape(n_, n_), d_), theirs(n_, d_)
        assert list(a.labels) == list(b.labels)
        assert _edges(a) == _edges(b)


@pytest.mark.parametrize("shape, d_", list(itertools.product(SHAPES, (1, 2))))
def test_vertex_formulas(shape, d_):
    """The vertex formulas equal the built graphs' vertex counts."""
    values = {n_q: shape[0], n_kv: shape[1], h_q: shape[2], h_kv: shape[3], d: d_}
    assert gqa_forward(Shape(*shape), d_).num_vertices == gqa_forward_vertices().subs(values)
    assert gqa_backward(Shape(*shape), d_).num_vertices == gqa_backward_vertices().subs(values)


def test_group_shares_key_inputs():
    """A K input vertex feeds products of every query head of its group and of no other."""
    g = gqa_forward(Shape(1, 2, 4, 2), 1)
    labels = list(g.labels)
    k = labels.index("K[1,0,0]")  # key/value head 1 serves query heads 2 and 3
    users = {labels[int(b)] for a, b in g.edges().tolist() if a == k}
    assert {u.split(",")[0] for u in users} == {"QK[2", "QK[3"}
    assert sum(1 for label in labels if label.startswith("K[")) == 2 * 2 * 1


@pytest.mark.parametrize(
    "sizes, match",
    [((1, 4, 6, 4), "multiple"), ((0, 4, 1, 1), "n_q"), ((1, 4, 2, 0), "heads_kv")],
)
def test_bad_shapes_are_refused(sizes, match):
    """A shape whose h_q is not a multiple of h_kv, or with a zero size, is refused by name."""
    with pytest.raises(PebbleParameterError, match=match):
        Shape(*sizes)
