"""Tests of attnio.pebble.moves: the replayer enforces every rule and reports the first breach."""

from __future__ import annotations

import doctest
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from attnio.pebble import moves as moves_module
from attnio.pebble.dag import Dag
from attnio.pebble.errors import IllegalMoveError, MoveFormatError, ParameterError
from attnio.pebble.moves import (
    OPS,
    Move,
    decode_moves,
    encode_moves,
    read_moves,
    replay,
    write_moves,
)
from strategies import dag_and_memory, examples

# a -> c <- b, c -> d: inputs a, b; output d
DIAMOND = Dag.from_edges(["a", "b", "c", "d"], [(0, 2), (1, 2), (2, 3)])
GOOD = [
    Move("load", 0), Move("load", 1), Move("compute", 2), Move("delete", 0),
    Move("delete", 1), Move("compute", 3), Move("store", 3),
]  # fmt: skip


def test_docstring_examples() -> None:
    """Every example in the module's docstrings runs as written."""
    assert doctest.testmod(moves_module).failed == 0


def test_legal_sequence_costs() -> None:
    """A legal pebbling is accepted with its loads, stores, computes and peak counted."""
    assert replay(DIAMOND, GOOD, 3) == (3, 2, 1, 2, 3)


def test_tuples_are_moves() -> None:
    """Plain (op, vertex) tuples replay like Move values."""
    assert replay(DIAMOND, [tuple(m) for m in GOOD], 3).io == 3


@pytest.mark.parametrize(
    ("moves", "M", "index", "reason"),
    [
        ([Move("load", 2)], 3, 0, "no blue pebble"),
        ([Move("load", 0), Move("load", 0)], 3, 1, "already has a red"),
        ([Move("load", 0), Move("load", 1), Move("compute", 2), Move("compute", 3)], 3, 3,
         "all M=3"),
        ([Move("compute", 0)], 3, 0, "is an input"),
        ([Move("load", 0), Move("compute", 2)], 3, 1, "'b' of 'c' is not red"),
        ([Move("store", 0)], 3, 0, "no red pebble to store"),
        ([Move("load", 0), Move("store", 0)], 3, 1, "already has a blue"),
        ([Move("delete", 1)], 3, 0, "no red pebble to delete"),
        ([Move("jump", 1)], 3, 0, "not one of"),
        ([Move("load", 9)], 3, 0, "outside"),
        ([Move("load", -1)], 3, 0, "outside"),
        ([("load", "0")], 3, 0, "not an integer"),
        ([("load",)], 3, 0, "not an (op, vertex) pair"),
        (GOOD[:-1], 3, 6, "not blue at the end"),
        ([], 3, 0, "not blue at the end"),
    ],
)  # fmt: skip
def test_illegal_moves_are_reported(moves, M, index, reason) -> None:
    """The first illegal move is reported with its index and the reason."""
    with pytest.raises(IllegalMoveError) as info:
        replay(DIAMOND, moves, M)
    assert info.value.index == index
    assert reason in info.value.reason
    unreadable = index == len(moves) or len(moves[index]) != 2
    assert (info.value.move is None) == unreadable


def test_recomputation_standard_but_not_oneshot() -> None:
    """Computing a vertex twice is legal in the standard variant and illegal in one-shot."""
    seq = [*GOOD[:3], Move("delete", 2), Move("compute", 2), *GOOD[3:]]
    assert replay(DIAMOND, seq, 3).computes == 3
    with pytest.raises(IllegalMoveError) as info:
        replay(DIAMOND, seq, 3, variant="oneshot")
    assert info.value.index == 4 and "one-shot" in info.value.reason


def test_memory_and_variant_are_validated() -> None:
    """Replaying with too few red pebbles or an unknown variant is refused up front."""
    with pytest.raises(ValueError, match="M >= 3"):
        replay(DIAMOND, GOOD, 2)
    with pytest.raises(ParameterError, match="variant"):
        replay(DIAMOND, GOOD, 3, variant="sliding")


def test_isolated_vertex_costs_nothing() -> None:
    """A graph of isolated vertices is complete with no move at all."""
    assert replay(Dag.from_edges(3, []), [], 1).io == 0


@settings(max_examples=examples(60))
@given(dag_and_memory(max_vertices=6), st.data())
def test_random_sequences_accept_or_report(drawn, data) -> None:
    """A random move sequence is accepted with io = loads + stores or refused at an index."""
    dag, M = drawn
    seq = data.draw(
        st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, dag.num_vertices - 1)), max_size=25)
    )
    try:
        result = replay(dag, seq, M)
    except IllegalMoveError as error:
        assert 0 <= error.index <= len(seq)
        if error.index < len(seq):  # the prefix before the bad move is legal so far
            assert error.move == tuple(seq[error.index])
    else:
        assert result.io == result.loads + result.stores
        assert result.peak_red <= M


def test_move_file_round_trip(tmp_path) -> None:
    """Moves written as JSON lines read back equal, with labels checked against the graph."""
    path = tmp_path / "m.jsonl"
    write_moves(path, GOOD, DIAMOND)
    first = json.loads(path.read_text().splitlines()[0])
    assert first == {"op": "load", "vertex": 0, "label": "a"}
    assert read_moves(path, DIAMOND) == GOOD
    write_moves(path, GOOD)
    assert read_moves(path) == GOOD


@pytest.mark.parametrize(
    "line",
    ["{bad", "[1, 2]", '{"op": "fly", "vertex": 1}', '{"op": "load"}',
     '{"op": "load", "vertex": "1"}', '{"op": "load", "vertex": true}',
     '{"op": "load", "vertex": 1, "extra": 2}', '{"op": "load", "vertex": 1, "label": "zzz"}'],
)  # fmt: skip
def test_bad_move_files_are_refused(tmp_path, line: str) -> None:
    """Malformed move lines (or a label naming another vertex) raise MoveFormatError."""
    path = tmp_path / "m.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(MoveFormatError, match="line 1"):
        read_moves(path, DIAMOND)


def test_encode_decode_round_trip() -> None:
    """Op codes LOAD=0, STORE=1, COMPUTE=2, DELETE=3 round-trip through arrays."""
    array = encode_moves(GOOD)
    assert array[:, 0].tolist() == [0, 0, 2, 3, 3, 2, 1]
    assert decode_moves(array) == GOOD
    with pytest.raises(MoveFormatError):
        decode_moves([[7, 0]])
    with pytest.raises(MoveFormatError):
        encode_moves([("hop", 0)])


class ReplayMachine(RuleBasedStateMachine):
    """Plays random legal moves on a fixed DAG while a tiny model tracks the pebbles; any
    prefix must replay with the model's counts, and each illegal move is refused at its index."""

    dag = Dag.from_edges(6, [(0, 2), (1, 2), (2, 3), (1, 4), (3, 5), (4, 5)])
    M = 3

    def __init__(self) -> None:
        super().__init__()
        self.moves: list[Move] = []
        self.red: set[int] = set()
        self.blue = set(self.dag.inputs.tolist())
        self.loads = self.stores = 0

    def _check_illegal(self, move: Move) -> None:
        with pytest.raises(IllegalMoveError) as info:
            replay(self.dag, [*self.moves, move], self.M)
        assert info.value.index == len(self.moves)

    @rule(v=st.integers(0, 5))
    def load(self, v: int) -> None:
        move = Move("load", v)
        if v in self.red or v not in self.blue or len(self.red) == self.M:
            self._check_illegal(move)
            return
        self.moves.append(move)
        self.red.add(v)
        self.loads += 1

    @rule(v=st.integers(0, 5))
    def store(self, v: int) -> None:
        move = Move("store", v)
        if v not in self.red or v in self.blue:
            self._check_illegal(move)
            return
        self.moves.append(move)
        self.blue.add(v)
        self.stores += 1

    @rule(v=st.integers(0, 5))
    def compute(self, v: int) -> None:
        move = Move("compute", v)
        preds = set(self.dag.predecessors(v).tolist())
        if (not preds or v in self.red or not preds <= self.red
                or len(self.red) == self.M):  # fmt: skip
            self._check_illegal(move)
            return
        self.moves.append(move)
        self.red.add(v)

    @rule(v=st.integers(0, 5))
    def delete(self, v: int) -> None:
        move = Move("delete", v)
        if v not in self.red:
            self._check_illegal(move)
            return
        self.moves.append(move)
        self.red.discard(v)

    @invariant()
    def prefix_replays_as_modelled(self) -> None:
        outputs_done = set(self.dag.outputs.tolist()) <= self.blue
        if outputs_done:
            result = replay(self.dag, self.moves, self.M)
            assert (result.loads, result.stores) == (self.loads, self.stores)
        else:
            with pytest.raises(IllegalMoveError) as info:
                replay(self.dag, self.moves, self.M)
            assert info.value.index == len(self.moves) and info.value.move is None


ReplayMachine.TestCase.settings = settings(max_examples=examples(40), stateful_step_count=30)
TestReplayMachine = ReplayMachine.TestCase


def test_kernels_read_the_op_codes_of_moves():
    """The heuristic and exact kernels encode moves with the op codes of attnio.pebble.moves."""
    from attnio.pebble import _exact_kernels, _kernels, moves

    codes = (moves.LOAD, moves.STORE, moves.COMPUTE, moves.DELETE)
    assert (_kernels.LOAD, _kernels.STORE, _kernels.COMPUTE, _kernels.DELETE) == codes
    exact = (_exact_kernels.K_LOAD, _exact_kernels.K_STORE)
    assert (*exact, _exact_kernels.K_COMPUTE, _exact_kernels.K_DELETE) == codes
    assert [moves.OPS[code] for code in codes] == ["load", "store", "compute", "delete"]
