"""Tests of the shape compulsory derivation (proofs/derivations/shape-compulsory.md)."""

from __future__ import annotations

import itertools

import sympy as sp

from attnio.bounds import get
from attnio.bounds.symbols import h_kv, h_q, n, n_kv, n_q
from attnio.pebble.shapes import Shape, gqa_backward, gqa_forward
from attnio.proofs.check import Proved, prove
from attnio.proofs.derivation import derivations
from attnio.proofs.generate import backing


def _shape_derivation():
    (derivation,) = [x for x in derivations() if x.file == "shape-compulsory.md"]
    return derivation


def test_file_derives_both_records_and_every_step_is_proved():
    """The machine-read file derives both shape records (backed), and z3 proves each of its
    algebraic steps (default resource limit)."""
    derivation = _shape_derivation()
    assert set(derivation.records) == {"shape-forward-compulsory", "shape-backward-compulsory"}
    for record in derivation.records:
        assert backing(get(record))[0]
    assert len(derivation.steps) == 2
    for step in derivation.steps:
        assert isinstance(prove(step).result, Proved), step.name


def test_shape_records_are_the_square_records_at_one_head():
    """At n_q = n_kv = n and h_q = h_kv = 1 each shape record's expression is the square
    record's, exactly (so --n keeps its meaning)."""
    square = {n_q: n, n_kv: n, h_q: 1, h_kv: 1}
    for name in ("forward", "backward"):
        shape = get(f"shape-{name}-compulsory").explicit.subs(square)
        assert sp.simplify(shape - get(f"dense-{name}-compulsory").explicit) == 0, name


def test_compulsory_counts_the_graphs_inputs_and_outputs():
    """The records equal the graphs' input (source) plus output (sink) counts: every input has
    a successor and every output is a sink, so each costs one load or one store."""
    for sizes, d_ in itertools.product([(1, 3, 4, 2), (2, 2, 3, 1), (3, 1, 2, 2)], (1, 2)):
        point = dict(zip(("n_q", "n_kv", "h_q", "h_kv"), sizes, strict=True), d=d_)
        for build, name in ((gqa_forward, "forward"), (gqa_backward, "backward")):
            dag = build(Shape(*sizes), d_)
            assert all(len(dag.successors(v)) for v in dag.inputs)
            value = get(f"shape-{name}-compulsory").evaluate(**point)
            assert value == len(dag.inputs) + len(dag.outputs), (sizes, d_, name)
