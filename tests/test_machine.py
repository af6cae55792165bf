"""Tests of the two-level machine: exact word counts, the capacity limit, both modes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.algorithms.errors import CapacityError, MachineError, ParameterError
from attnio.algorithms.machine import TwoLevelMachine, blocks
from strategies import examples


def test_transfer_costs_its_words():
    """A load or store of an r x c slice costs exactly r * c words, and data moves with it."""
    mc = TwoLevelMachine(20)
    mc.put("X", np.arange(12.0).reshape(3, 4))
    mc.create("Y", 3, 4)
    block = mc.load("b", "X", 1, 3, 0, 3)
    assert block.tolist() == [[4.0, 5.0, 6.0], [8.0, 9.0, 10.0]]
    mc.store("b", "Y", 0, 2, 1, 4)
    assert (mc.loads, mc.stores, mc.peak) == (6, 6, 6)
    assert mc.result("Y")[0, 1:].tolist() == [4.0, 5.0, 6.0]
    assert np.isnan(mc.result("Y")[2, 0])


def test_capacity_error_names_step_and_buffer():
    """Exceeding M raises at once, naming the algorithm, the step and the buffer."""
    mc = TwoLevelMachine(5, algorithm="demo")
    mc.put("X", np.zeros((4, 4)))
    mc.step("the step")
    mc.load("a", "X", 0, 1, 0, 4)
    with pytest.raises(CapacityError, match=r"demo, step 'the step': buffer 'b' of 4 words"):
        mc.load("b", "X", 1, 2, 0, 4)
    assert mc.peak == 4 and mc.loads == 4


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "8"])
def test_bad_memory_refused(bad):
    """A fast memory that is not a positive integer is refused with its value in the message."""
    with pytest.raises(ParameterError, match="M="):
        TwoLevelMachine(bad)


def test_bad_slices_and_buffers_refused():
    """Empty or out-of-range slices, unknown arrays, double allocation and unknown frees raise."""
    mc = TwoLevelMachine(100)
    mc.put("X", np.zeros((3, 3)))
    with pytest.raises(MachineError, match="outside"):
        mc.load("a", "X", 0, 4, 0, 1)
    with pytest.raises(MachineError, match="empty"):
        mc.load("a", "X", 1, 1, 0, 1)
    with pytest.raises(MachineError, match="no slow array"):
        mc.load("a", "Z", 0, 1, 0, 1)
    mc.alloc("a", 2)
    with pytest.raises(MachineError, match="already allocated"):
        mc.alloc("a", 1)
    with pytest.raises(MachineError, match="does not fit"):
        mc.store("a", "X", 0, 1, 0, 1)
    with pytest.raises(MachineError, match="no fast buffer"):
        mc.free("b")


@st.composite
def programs(draw):
    """Random sequences of loads, stores, allocations and frees on a 6 x 5 array."""
    ops = []
    for _ in range(draw(st.integers(1, 25))):
        r0 = draw(st.integers(0, 5))
        r1 = draw(st.integers(r0 + 1, 6))
        c0 = draw(st.integers(0, 4))
        c1 = draw(st.integers(c0 + 1, 5))
        ops.append((draw(st.sampled_from(["load", "alloc", "store", "free"])), r0, r1, c0, c1))
    return ops


def _execute(mc: TwoLevelMachine, ops) -> tuple[int, int, int, str | None]:
    held: list[tuple[str, tuple[int, int]]] = []
    try:
        for k, (op, r0, r1, c0, c1) in enumerate(ops):
            if op == "load":
                mc.load(f"b{k}", "X", r0, r1, c0, c1)
                held.append((f"b{k}", (r1 - r0, c1 - c0)))
            elif op == "alloc":
                mc.alloc(f"b{k}", r1 - r0, c1 - c0)
                held.append((f"b{k}", (r1 - r0, c1 - c0)))
            elif op == "store" and held:
                name, (rows, cols) = held[-1]
                mc.store(name, "Y", 0, rows, 0, cols)
            elif op == "free" and held:
                mc.free(held.pop(0)[0])
    except CapacityError as error:
        return mc.loads, mc.stores, mc.peak, str(error)
    return mc.loads, mc.stores, mc.peak, None


@settings(max_examples=examples(60))
@given(programs(), st.integers(1, 40))
def test_counting_mode_equals_numeric_mode(ops, M):
    """Counting mode records the same loads, stores, peak and capacity error as numeric mode."""
    results = []
    for numeric in (True, False):
        mc = TwoLevelMachine(M, numeric=numeric)
        mc.put("X", np.arange(30.0).reshape(6, 5) if numeric else (6, 5))
        mc.create("Y", 6, 5)
        results.append(_execute(mc, ops))
    assert results[0] == results[1]
    assert results[0][2] <= M


@given(st.integers(0, 200), st.integers(1, 50))
def test_blocks_partition_the_range(total, size):
    """blocks() cuts range(total) into consecutive blocks of size, only the last shorter."""
    cuts = blocks(total, size)
    covered = [i for start, stop in cuts for i in range(start, stop)]
    assert covered == list(range(total))
    assert all(stop - start == size for start, stop in cuts[:-1])
