"""Tests of attnio.pebble.classes: which attention graphs lie in each derivation's class."""

from __future__ import annotations

import numpy as np
import pytest

from attnio.algorithms.registry import ALGORITHMS
from attnio.bounds.record import Pass
from attnio.pebble import builders
from attnio.pebble.classes import (
    CLASSES,
    COVERAGE,
    PROPERTIES,
    graph_pass,
    in_class,
    violations,
)
from attnio.pebble.dag import Dag
from attnio.pebble.errors import PebbleParameterError

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


def _derivations(pass_: Pass) -> list[str]:
    return [name for name, p in CLASSES if p is pass_]


def _used(pass_: Pass) -> set[str]:
    return {p for (_, q), props in CLASSES.items() if q is pass_ for p in props}


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
        for name in _derivations(pass_):
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
    names is a builder of that pass, one the exhaustive test above checks wherever a
    derivation is said to cover it, and every derivation it lists has a class for that
    pass; every (algorithm, pass) of the registry has an entry."""
    for (name, pass_), cover in COVERAGE.items():
        assert pass_.value in ALGORITHMS[name].runners, name
        if cover.kind is None:
            assert cover.covered == ()
            continue
        assert builders.BUILDERS[cover.kind].pass_ is pass_
        assert cover.kind in GRAPHS or not cover.covered, name
        assert set(cover.covered) <= set(_derivations(pass_))
    every = {(name, Pass(p)) for name, algo in ALGORITHMS.items() for p in algo.runners}
    assert every == set(COVERAGE)
