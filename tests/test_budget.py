"""Tests of attnio.proofs.budget: a deterministic resource limit, not the clock, stops z3's calls."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import z3

from attnio.proofs import budget


def test_resource_limit_stops_a_call_deterministically() -> None:
    """A call over its resource limit answers unknown after the same number of steps each time."""
    x, y = z3.Reals("x y")
    spent = []
    for _ in range(3):
        solver = z3.SolverFor("QF_NRA")
        solver.set("rlimit", 2000)
        solver.add(x**3 * y + y**2 * x**2 - 3 * x * y + x**5 > 7, x * y**3 * x < -2, x + y == 1)
        before = solver.statistics().get_key_value("rlimit count")
        assert budget.check(solver) == z3.unknown
        spent.append(solver.statistics().get_key_value("rlimit count") - before)
    assert len(set(spent)) == 1


def test_limit_sets_rlimit_and_safety_nets() -> None:
    """limit() gives a call rlimit proportional to its budget; check() decides easy queries."""
    x = z3.Int("x")
    solver = budget.limit(z3.Solver(), 50)
    solver.add(x * x == 49, x > 0)
    assert budget.check(solver) == z3.sat and solver.model()[x].as_long() == 7
    assert budget.rlimit(50) == 50 * budget.RLIMIT_PER_MS


def test_processor_time_net_interrupts_only_the_running_call() -> None:
    """A call stopped by the processor-time net leaves later calls unaffected."""
    a, b, c = z3.Ints("a b c")
    hard = budget.limit(z3.Solver(), 1)
    hard.set("rlimit", 0)  # no resource limit: only the processor-time net can stop it
    hard.add(a**3 + b**3 == c**3, a > 0, b > 0, c > 0)
    assert budget.check(hard) == z3.unknown
    easy = budget.limit(z3.Solver(), 1000)
    easy.add(a + b == 3, a > b, b > 0)
    assert budget.check(easy) == z3.sat


DETERMINISM_FAMILIES = "comparison/*beats-any-n"
"""The obligations run twice: the comparisons "beats" over every n, whose calls end at the
budget (a counterexample found by a search near its limit, a constant search with unknown
candidates), where a wall-clock timeout made statuses flip with load
(``square-tiling-forward-count/beats-any-n`` did; ``tiled-backward-count/order-any-n``,
which did too, is left out: its search runs to the constant limit, a minute and a half of
processor time per run, and ends unknown). The whole catalog (about 470 obligations) takes
minutes of processor time per run; every obligation is still proved once in the suite
(``attnio verify --thorough`` in ``test_cli.py``). ``--search``: the least constants are
searched afresh, not re-proved from the recording (attnio.proofs.constants)."""


def _statuses() -> dict[str, tuple]:
    out = subprocess.run(
        [
            sys.executable,
            *("-m", "attnio", "prove", "--json", "--search", "--only", DETERMINISM_FAMILIES),
        ],
        capture_output=True,
        text=True,
        timeout=7200,
    ).stdout
    rows = json.loads(out)["outcomes"]
    statuses = {row["obligation"]: (row["status"], row["constant"]) for row in rows}
    assert len(statuses) == 2 and "counterexample" in {s for s, _ in statuses.values()}
    return statuses


@pytest.mark.slow
def test_prove_statuses_are_the_same_under_load() -> None:
    """attnio prove gives the budget-bound obligations the same status and constant idle and
    under CPU load."""
    idle = _statuses()
    # one busy process: with the suite's other worker (and the prove run itself) both cores
    # of the CI machine are loaded; a second busy loop only took processor time from the
    # rest of the suite
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])]
    try:
        loaded = _statuses()
    finally:
        for process in busy:
            process.kill()
            process.wait()
    assert loaded == idle
