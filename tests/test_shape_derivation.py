"""Tests of the shape compulsory derivation (attnio.proofs.shape_derivation)."""

from __future__ import annotations

import itertools

from attnio.bounds import get
from attnio.pebble.shapes import Shape, gqa_backward, gqa_forward
from attnio.proofs.check import Proved, prove
from attnio.proofs.generate import backing
from attnio.proofs.shape_derivation import shape_derivation_obligations, shape_derivations


def test_file_names_its_records_and_every_step():
    """The Markdown file exists and names each record it derives and each step's name."""
    (derivation,) = shape_derivations()
    text = derivation.path.read_text(encoding="utf-8")
    for record in derivation.records:
        assert record in text and backing(get(record))[0]
    for step in derivation.steps:
        assert f"`{step.name}`" in text


def test_every_step_is_proved():
    """z3 proves each algebraic step (default resource limit)."""
    for step in shape_derivation_obligations():
        assert isinstance(prove(step).result, Proved), step.name


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
