"""Tests of attnio.proofs.suite: selecting obligations and running them over processes."""

from __future__ import annotations

import fnmatch

import pytest

from attnio.proofs import ObligationError, outcomes, usable_cores


@pytest.fixture
def crossovers(generated_obligations) -> list:
    """The crossover obligations, cut from the session's generated catalog (generating it
    again costs seconds; ``select`` itself is tested by its doctest and the CLI tests)."""
    return [o for o in generated_obligations if fnmatch.fnmatchcase(o.name, "crossover/*")]


def test_outcomes_over_two_processes_match_one_process(crossovers) -> None:
    """Two worker processes give the same obligations, in the same order, with the same
    statuses and methods as one process (every z3 call has its own context and limit)."""
    chosen = crossovers
    alone = list(outcomes(chosen, jobs=1))
    spread = list(outcomes(chosen, jobs=2))
    assert [o.obligation.name for o in spread] == [o.name for o in chosen]
    assert [(o.result.status, o.verdict) for o in spread] == [
        (o.result.status, o.verdict) for o in alone
    ]
    assert [getattr(o.result, "method", None) for o in spread] == [
        getattr(o.result, "method", None) for o in alone
    ]


def test_stopping_early_stops_the_workers(crossovers) -> None:
    """Leaving the iteration after the first outcome ends the pool without hanging."""
    stream = outcomes(crossovers, jobs=2)
    first = next(stream)
    stream.close()
    assert first.obligation.name == crossovers[0].name


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True])
def test_bad_jobs_is_refused(jobs, crossovers) -> None:
    """A non-positive or non-integer number of jobs is an ObligationError naming it."""
    with pytest.raises(ObligationError, match="jobs"):
        list(outcomes(crossovers, jobs=jobs))


def test_usable_cores_is_positive() -> None:
    """The default number of workers is at least one."""
    assert usable_cores() >= 1


def test_thorough_only_names_open_obligations_that_exist(generated_obligations) -> None:
    """Every obligation THOROUGH_ONLY names exists, is open (leaving it out can hide no
    failure) and is left out of the default tier; the rest of what the tier leaves out
    is the recorded costly obligations (tests/test_costs.py)."""
    from attnio.proofs.costs import costly
    from attnio.proofs.suite import THOROUGH_ONLY, default_tier

    generated = generated_obligations
    names = {o.name for o in generated}
    assert set(THOROUGH_ONLY) <= names, set(THOROUGH_ONLY) - names
    kept, left = default_tier(generated)
    only = [o for o in left if o.name in THOROUGH_ONLY]
    assert {o.name for o in only} == set(THOROUGH_ONLY)
    assert all(o.expected.value == "open" for o in only)
    assert all(costly(o) is not None for o in left if o.name not in THOROUGH_ONLY)
    assert len(kept) + len(left) == len(generated)


def test_default_tier_refuses_to_leave_out_an_asserted_obligation(monkeypatch, crossovers) -> None:
    """A name of THOROUGH_ONLY whose obligation must hold is an ObligationError naming it."""
    from attnio.proofs import suite

    chosen = crossovers
    monkeypatch.setattr(suite, "THOROUGH_ONLY", (chosen[0].name,))
    with pytest.raises(ObligationError, match="only open claims"):
        suite.default_tier(chosen)


def test_verify_tiers_prove_what_they_say(monkeypatch, generated_obligations) -> None:
    """attnio verify's default tier proves every obligation but THOROUGH_ONLY's and the
    recorded costly ones, with the configured cache; the thorough tier proves all of them."""
    from attnio.proofs import costs, suite, verification
    from attnio.proofs.cache import ProofCache

    given = []
    monkeypatch.setattr(verification, "obligations", lambda: list(generated_obligations))

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
    costly = {
        entry["obligation"]
        for entry in costs.recorded().values()
        if entry["obligation"].split("/", 1)[0] not in suite.ALWAYS_PROVED
    }
    assert set(thorough) - set(default) == set(suite.THOROUGH_ONLY) | costly
    assert len(thorough) == len(generated_obligations)


def test_background_matches_outcomes_and_fills_the_cache(tmp_path, crossovers) -> None:
    """Proved in the background over two workers, the obligations come back in the order
    given with the statuses one process gives; each decided one is stored by its worker
    under the key the next run computes, so a second background run proves nothing."""
    from attnio.proofs.cache import ProofCache
    from attnio.proofs.suite import Background

    chosen = crossovers
    alone = list(outcomes(chosen, jobs=1))
    store = ProofCache(tmp_path, timeout_ms=3000)
    first = Background(chosen, 3000, jobs=2, cache=store)
    assert first.started
    found = first.outcomes()
    assert [o.obligation for o in found] == chosen
    assert [o.verdict for o in found] == [o.verdict for o in alone]
    assert (store.hits, store.misses) == (0, len(chosen))
    again = Background(chosen, 3000, jobs=2, cache=store).outcomes()
    assert [o.verdict for o in again] == [o.verdict for o in alone]
    assert (store.hits, store.misses) == (len(chosen), len(chosen))


def test_background_with_one_job_starts_nothing_and_stops_cleanly(crossovers) -> None:
    """With one job nothing starts early and the outcomes are proved on collection; stopping
    a started run before collecting ends its workers without hanging."""
    from attnio.proofs.suite import Background

    chosen = crossovers
    single = Background(chosen, jobs=1)
    assert not single.started
    assert [o.obligation.name for o in single.outcomes()] == [o.name for o in chosen]
    started = Background(chosen, jobs=2)
    started.stop()
    started.stop()
