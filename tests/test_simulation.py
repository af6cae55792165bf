"""Tests of simulate(): parameter validation and agreement with the catalog records it names."""

from __future__ import annotations

import pytest

from attnio.algorithms import ALGORITHMS, simulate
from attnio.algorithms.errors import ParameterError, UnknownAlgorithmError


def test_unknown_algorithm_lists_the_valid_names():
    """An unknown algorithm name is refused with the list of valid names."""
    with pytest.raises(UnknownAlgorithmError, match="flash2"):
        simulate("flashh", "forward", 8, 2, 100)


@pytest.mark.parametrize("field,value", [("n", 0), ("d", -1), ("M", 2.5), ("n", True)])
def test_nonpositive_sizes_refused(field, value):
    """n, d, M must be positive integers; the message names the argument and its value."""
    sizes = {"n": 8, "d": 2, "M": 100, field: value}
    with pytest.raises(ParameterError, match=f"{field}="):
        simulate("flash", "forward", **sizes)


def test_missing_pass_refused():
    """An algorithm without the requested pass says which passes it has."""
    with pytest.raises(ParameterError, match="has: forward"):
        simulate("square-tiling", "backward", 8, 2, 100)
    with pytest.raises(ParameterError, match="pass='sideways'"):
        simulate("flash", "sideways", 8, 2, 100)


def test_head_dimension_above_sequence_length_runs():
    """No algorithm requires d <= n: d > n runs and still matches its closed form."""
    for name, algo in ALGORITHMS.items():
        if algo.regime != "dense":
            continue
        for pass_ in algo.runners:
            run = simulate(name, pass_, 3, 9, 400)
            assert run.matches and run.error <= 1e-9


CASES = [
    ("standard", "forward", {}),
    ("standard", "backward", {}),
    ("flash", "forward", {}),
    ("flash", "backward", {}),
    ("flash2", "forward", {}),
    ("flash2", "backward", {}),
    ("square-tiling", "forward", {}),
    ("tiled-backward", "backward", {}),
    ("block-sparse-flash", "forward", {"block_density": 0.5}),
    ("sparse-square-tiling", "backward", {"block_density": 0.5}),
    ("low-rank", "forward", {"degree": 2}),
    ("low-rank", "backward", {"degree": 2}),
    ("low-rank-columns", "forward", {"degree": 2}),
    ("low-rank-columns", "backward", {"degree": 2}),
]


@pytest.mark.parametrize(("algorithm", "pass_", "options"), CASES)
def test_transfer_estimate_bounds_the_transfers_made(monkeypatch, algorithm, pass_, options):
    """The work estimate (closed-form I/O / d) is at least the number of load and store
    calls the run makes, so --max-transfers bounds the running time."""
    from attnio.algorithms import machine
    from attnio.algorithms.simulation import estimate_transfers
    from attnio.bounds import get

    calls = []
    for name in ("load", "store"):
        original = getattr(machine.TwoLevelMachine, name)

        def counted(self, *args, _original=original):
            calls.append(1)
            return _original(self, *args)

        monkeypatch.setattr(machine.TwoLevelMachine, name, counted)
    run = simulate(algorithm, pass_, 96, 4, 256, numeric=False, **options)
    record = get(ALGORITHMS[algorithm].counts[pass_])
    used = {k: v for k, v in run.parameters.items() if k in record.parameters}
    assert estimate_transfers(record, 4, used) >= len(calls) > 0


def test_too_much_work_is_refused_before_running():
    """A counting run estimated above max_transfers is refused with the number and the
    option that raises it, before the machine runs."""
    with pytest.raises(ParameterError, match=r"about [\d,]+ transfers.*--max-transfers"):
        simulate("flash", "forward", 10**8, 10**4, 10**8, numeric=False)
    with pytest.raises(ParameterError, match="max_transfers=10;"):
        simulate("flash", "forward", 64, 8, 512, numeric=False, max_transfers=10)
