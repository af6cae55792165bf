"""Tests of attnio.pebble.lemmas: the part lemmas of the dense derivations on every vertex set."""

from __future__ import annotations

import pytest

from attnio.pebble import builders
from attnio.pebble.errors import PebbleParameterError
from attnio.pebble.lemmas import (
    KINDS,
    LEMMAS,
    Structure,
    check,
    check_exhaustively,
    holds,
    sweep,
)

FORWARD = tuple(lemma for lemma in LEMMAS if lemma != "dp-tree")


def _structure(kind: str, n: int, d: int) -> Structure:
    return Structure.of(builders.build(kind, n, d))


@pytest.mark.parametrize("kind", ["attention-forward", "sy24-forward"])
@pytest.mark.parametrize("lemma", FORWARD)
def test_z3_agrees_with_the_enumeration_of_every_pair_of_sets(kind: str, lemma: str) -> None:
    """On a 7-vertex graph z3 and the obvious enumeration of all 4^7 pairs (V, D) give the
    same answer, for the lemma (holds) and for its mutant."""
    s = _structure(kind, 1, 1)
    for mutant in (False, True):
        assert (
            check(s, lemma, mutant=mutant).status
            == check_exhaustively(s, lemma, mutant=mutant).status
        )
    assert check(s, lemma).status == "holds"


@pytest.mark.parametrize(
    "kind,n,d",
    [("attention-forward", 2, 2), ("attention-backward", 1, 2), ("online-forward", 2, 1)],
)
def test_every_lemma_holds_on_every_part(kind: str, n: int, d: int) -> None:
    """No vertex set V and dominator set D of these graphs violates any lemma (z3 unsat)."""
    s = _structure(kind, n, d)
    for lemma in LEMMAS:
        if lemma == "dp-tree" and not s.backward:
            continue
        assert check(s, lemma).status == "holds", lemma


@pytest.mark.parametrize(
    "lemma,kind,n,d",
    [
        ("pair-chain", "attention-backward", 1, 1),
        ("accumulator", "attention-forward", 2, 1),
        ("score-tree", "attention-backward", 1, 1),
        ("dp-tree", "attention-backward", 1, 1),
        ("per-part", "attention-forward", 3, 1),
        ("touched-pairs", "attention-forward", 3, 1),
    ],
)
def test_each_mutant_is_refuted_by_a_real_part(lemma: str, kind: str, n: int, d: int) -> None:
    """The check can fail: each lemma's false variant gets a counterexample (V, D), which
    the plain predicate confirms: D dominates V and the mutant fails, the lemma holds."""
    s = _structure(kind, n, d)
    found = check(s, lemma, mutant=True)
    assert found.status == "fails"
    part, dom = set(found.part), set(found.dominators)
    assert not holds(s, lemma, part, dom, mutant=True)
    assert holds(s, lemma, part, dom)


def test_bad_arguments_are_refused() -> None:
    """A set that does not dominate the part, an unknown lemma, a backward lemma on a
    forward graph, an enumeration of a large graph and a graph outside the class are refused."""
    s = _structure("attention-forward", 1, 1)
    product = next(u for *_, u, _y, _root in s.products)
    with pytest.raises(PebbleParameterError, match="dom"):
        holds(s, "accumulator", {product}, set())
    with pytest.raises(PebbleParameterError, match="lemma="):
        check(s, "no-such-lemma")
    with pytest.raises(PebbleParameterError, match="backward"):
        check(s, "dp-tree")
    with pytest.raises(PebbleParameterError, match="vertices"):
        check_exhaustively(_structure("attention-forward", 2, 1), "accumulator")
    with pytest.raises(PebbleParameterError, match="class"):
        Structure.of(builders.build("sparse-forward", 2, 1))


@pytest.mark.slow
def test_every_lemma_holds_on_every_part_of_every_small_graph() -> None:
    """Every lemma, on every (V, D) of every graph the derivations name, n <= 2, d <= 2,
    both tree shapes and every key block size: no counterexample and no unknown."""
    rows = sweep([(1, 1), (1, 2), (2, 1), (2, 2)], KINDS, rlimit=20_000_000)
    assert len(rows) > 400
    assert [row for row in rows if row[5].status != "holds"] == []
