"""Tests of attnio.proofs.suite: selecting obligations and running them over processes."""

from __future__ import annotations

import pytest

from attnio.proofs import ObligationError, outcomes, select, usable_cores


def test_outcomes_over_two_processes_match_one_process() -> None:
    """Two worker processes give the same obligations, in the same order, with the same
    statuses and methods as one process (every z3 call has its own context and limit)."""
    chosen = select("crossover/*")
    alone = list(outcomes(chosen, jobs=1))
    spread = list(outcomes(chosen, jobs=2))
    assert [o.obligation.name for o in spread] == [o.name for o in chosen]
    assert [(o.result.status, o.verdict) for o in spread] == [
        (o.result.status, o.verdict) for o in alone
    ]
    assert [getattr(o.result, "method", None) for o in spread] == [
        getattr(o.result, "method", None) for o in alone
    ]


def test_stopping_early_stops_the_workers() -> None:
    """Leaving the iteration after the first outcome ends the pool without hanging."""
    stream = outcomes(select("crossover/*"), jobs=2)
    first = next(stream)
    stream.close()
    assert first.obligation.name == select("crossover/*")[0].name


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True])
def test_bad_jobs_is_refused(jobs) -> None:
    """A non-positive or non-integer number of jobs is an ObligationError naming it."""
    with pytest.raises(ObligationError, match="jobs"):
        list(outcomes(select("crossover/*"), jobs=jobs))


def test_usable_cores_is_positive() -> None:
    """The default number of workers is at least one."""
    assert usable_cores() >= 1


def test_thorough_only_names_open_obligations_that_exist() -> None:
    """Every obligation the default tier leaves out exists and is open, so leaving it out
    can hide no failure; the default tier keeps every other obligation."""
    from attnio.proofs.suite import THOROUGH_ONLY, default_tier

    generated = select()
    names = {o.name for o in generated}
    assert set(THOROUGH_ONLY) <= names, set(THOROUGH_ONLY) - names
    kept, left = default_tier(generated)
    assert {o.name for o in left} == set(THOROUGH_ONLY)
    assert all(o.expected.value == "open" for o in left)
    assert len(kept) + len(left) == len(generated)


def test_default_tier_refuses_to_leave_out_an_asserted_obligation(monkeypatch) -> None:
    """A name of THOROUGH_ONLY whose obligation must hold is an ObligationError naming it."""
    from attnio.proofs import suite

    chosen = select("crossover/*")
    monkeypatch.setattr(suite, "THOROUGH_ONLY", (chosen[0].name,))
    with pytest.raises(ObligationError, match="only open claims"):
        suite.default_tier(chosen)


def test_verify_tiers_prove_what_they_say(monkeypatch) -> None:
    """attnio verify's default tier proves every obligation but THOROUGH_ONLY, with the
    configured cache; the thorough tier proves all of them."""
    from attnio.proofs import suite, verification
    from attnio.proofs.cache import ProofCache

    given = []

    def record(chosen, timeout_ms, jobs, cache):
        given.append(([o.name for o in chosen], cache))
        return iter(())

    monkeypatch.setattr(suite, "outcomes", record)
    cache = ProofCache("/nonexistent", timeout_ms=3000)
    try:
        verification.configure(thorough=False, cache=cache)
        verification._outcomes()
        verification.configure(thorough=True, cache=None)
        verification._outcomes()
    finally:
        verification.configure()
    (default, used), (thorough, unused) = given
    assert used is cache and unused is None
    assert set(thorough) - set(default) == set(suite.THOROUGH_ONLY)
    assert len(thorough) == len(select())
