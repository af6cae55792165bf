"""Tests of attnio.proofs.costs: the recording names only today's passing obligations, and
the default tier leaves out exactly the recorded costly ones whose formulas are unchanged."""

from __future__ import annotations

import dataclasses

import sympy as sp

from attnio.proofs import costs, suite
from attnio.proofs.obligation import fingerprint

x = sp.Symbol("x", positive=True)


def _toy(name: str = "monotonicity/toy-cost", rhs: sp.Expr = x + 1, family: str = "monotonicity"):
    from attnio.proofs import Obligation

    return Obligation(name, family, sp.Le(x, rhs, evaluate=False), (), "holds", (), "toy")


def test_every_recorded_obligation_is_a_passing_obligation_of_today(generated_obligations) -> None:
    """Each entry names a generated obligation of the default tier's candidates (not
    THOROUGH_ONLY), matches its text, reached the threshold and was not a failure when
    recorded; a changed formula needs re-recording."""
    generated = {o.name: o for o in generated_obligations}
    stale = []
    for key, entry in costs.recorded().items():
        obligation = generated.get(entry["obligation"])
        if obligation is None or fingerprint(obligation) != key:
            stale.append(entry["obligation"])
            continue
        assert obligation.name not in suite.THOROUGH_ONLY, entry
        assert entry["seconds"] >= costs.COSTLY_SECONDS, entry
        assert entry["status"] in ("proved", "counterexample", "unknown"), entry
        if obligation.expected.value == "holds":
            assert entry["status"] == "proved", entry
    assert not stale, f"re-record ({costs.COMMAND}): {stale}"


def test_the_default_tier_leaves_out_exactly_the_recorded_costly_obligations(
    generated_obligations,
) -> None:
    """The default tier's left-out obligations are THOROUGH_ONLY's and the recorded costly
    ones outside ALWAYS_PROVED's families (derivation steps stay: a derived record needs
    each proved in the run); it keeps every other obligation, so the two parts are the
    whole catalog."""
    kept, left = suite.default_tier(generated_obligations)
    recorded = {
        entry["obligation"]
        for entry in costs.recorded().values()
        if entry["obligation"].split("/", 1)[0] not in suite.ALWAYS_PROVED
    }
    assert {o.name for o in left} == set(suite.THOROUGH_ONLY) | recorded
    assert any(o.family == "derivation" and costs.costly(o) for o in kept)
    assert len(kept) + len(left) == len(generated_obligations)
    assert recorded, "the recording is empty: every obligation would be proved by default"


def test_a_changed_formula_is_back_in_the_default_tier(monkeypatch, tmp_path) -> None:
    """A recorded costly obligation is left out; the same name with another formula (a
    new fingerprint) is kept, as are one recorded below the threshold (not even written)
    and a costly derivation step (ALWAYS_PROVED)."""
    monkeypatch.setattr(costs, "RECORDING", tmp_path / "costs.json")
    costly, cheap = _toy(), _toy("monotonicity/toy-cheap", x + 2)
    step = _toy("derivation/toy-step", x + 4, "derivation")
    costs.record(
        [(c, costs.COSTLY_SECONDS + 1, "proved") for c in (costly, step)]
        + [(cheap, 0.01, "proved")]
    )
    assert costs.costly(costly) == round(costs.COSTLY_SECONDS + 1, 2)
    assert costs.costly(cheap) is None
    changed = dataclasses.replace(costly, claim=sp.Le(x, x + 3, evaluate=False))
    kept, left = suite.default_tier([costly, cheap, changed, step])
    assert left == [costly] and kept == [cheap, changed, step]  # a derivation step stays
    assert [entry["obligation"] for entry in costs.recorded().values()] == [step.name, costly.name]


def test_without_a_recording_nothing_is_costly(monkeypatch, tmp_path) -> None:
    """A missing recording leaves every obligation in the default tier."""
    monkeypatch.setattr(costs, "RECORDING", tmp_path / "absent.json")
    costs._read.cache_clear()
    assert costs.recorded() == {} and costs.recorded_on() == "never"
    assert suite.default_tier([_toy()]) == ([_toy()], [])
