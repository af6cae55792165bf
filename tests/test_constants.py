"""Tests of attnio.proofs.constants: recorded constant searches, re-proved, never trusted."""

from __future__ import annotations

import subprocess
import sys

import pytest
import sympy as sp

from attnio.proofs import constants
from attnio.proofs.check import Counterexample, Proved, Unknown, prove
from attnio.proofs.generate import UNBOUNDED_ALGORITHMS, full_table, tightness_table
from attnio.proofs.obligation import Obligation

n = sp.Symbol("n", integer=True, positive=True)
C = sp.Symbol("C", positive=True)


def _toy(name: str = "order/toy/linear") -> Obligation:
    """n^2 + 3 n <= C n^2 for n >= 1: the least integer C is 4 (at n = 1)."""
    claim = sp.Le(n**2 + 3 * n, C * n**2, evaluate=False)
    return Obligation(name, "order", claim, (), "holds", (), "toy", constant=C)


def test_search_of_the_toy_finds_its_least_constant_and_a_refutation() -> None:
    """The search proves C = 4 and carries the confirmed counterexample at C = 3."""
    outcome = prove(_toy())
    assert isinstance(outcome.result, Proved) and outcome.result.constant == 4
    assert isinstance(outcome.refutation, Counterexample) and outcome.refutation.constant == 3


def test_replay_reproduces_the_search_without_searching() -> None:
    """A record made from a search replays to the same status, constant and note's interval."""
    outcome = prove(_toy())
    entry = constants.entry(outcome)
    assert entry["constant"] == 4 and entry["refuted"] == 3 and entry["point"] == {"n": "1"}
    again = constants.replay(_toy(), entry)
    assert isinstance(again.result, Proved) and again.result.constant == 4
    assert "C is the least" in again.result.note and again.result.smtlib
    assert constants.entry(again) == dict(entry, seconds=constants.entry(again)["seconds"])


def test_a_recorded_constant_that_is_false_is_not_trusted() -> None:
    """A record claiming C = 3 (false at n = 1) replays to unknown with the reason, never proved."""
    entry = constants.entry(prove(_toy()))
    entry.update(constant=3, refuted=None, point=None)
    again = constants.replay(_toy(), entry)
    assert isinstance(again.result, Unknown)
    assert again.result.reason.startswith(constants.NOT_REPRODUCED)


def test_a_recorded_refutation_that_is_wrong_is_not_trusted() -> None:
    """A record whose refuting point satisfies the claim replays to unknown, never proved."""
    entry = constants.entry(prove(_toy()))
    entry.update(point={"n": "5"})  # 25 + 15 <= 3 * 25 holds at n = 5
    again = constants.replay(_toy(), entry)
    assert isinstance(again.result, Unknown)
    assert again.result.reason.startswith(constants.NOT_REPRODUCED)


def test_settle_searches_when_no_record_matches(monkeypatch, tmp_path) -> None:
    """Without a record of the obligation's text, settle runs the search; once recorded, it
    replays the record (and never searches)."""
    monkeypatch.setattr(constants, "RECORDING", tmp_path / "constants.json")
    assert constants.entry_of(_toy()) is None
    searched = constants.settle(_toy())
    assert searched.result.constant == 4 and searched.refutation is not None
    constants.record([searched], 3000)
    assert constants.recorded()["order/toy/linear"]["constant"] == 4
    monkeypatch.setattr(constants, "prove", lambda *a, **k: pytest.fail("searched"))
    again = constants.settle(_toy())
    assert isinstance(again.result, Proved) and again.result.constant == 4


def test_a_changed_claim_does_not_match_its_old_record() -> None:
    """The fingerprint changes with the claim: a record of another text is never replayed."""
    other = Obligation(
        "order/toy/linear",
        "order",
        sp.Le(n**2 + 2 * n, C * n**2, evaluate=False),
        (),
        "holds",
        (),
        "toy",
        constant=C,
    )
    assert constants.fingerprint(other) != constants.fingerprint(_toy())


def test_fingerprints_do_not_depend_on_the_hash_seed() -> None:
    """The same obligation has the same fingerprint in this process and one with another hash
    seed."""
    code = (
        "from attnio.proofs.generate import tightness_table;"
        "from attnio.proofs.constants import fingerprint;"
        "print(fingerprint(tightness_table()[0]))"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed, "PATH": ""},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("12345",)
    }
    assert len(seen) == 1 and constants.fingerprint(tightness_table()[0]) + "\n" in seen


def test_the_recording_holds_every_constant_of_today(generated_obligations) -> None:
    """Every obligation with a constant (and every unbounded tightness row, and every row
    against the max of all derived bounds) has a record of its current text; otherwise
    re-record: python benchmarks/constants.py --record."""
    entries = constants.recorded()
    wanted = [o for o in generated_obligations if o.constant is not None]
    wanted += tightness_table(UNBOUNDED_ALGORITHMS) + full_table()
    stale = [
        o.name
        for o in wanted
        if o.name not in entries or entries[o.name]["fingerprint"] != constants.fingerprint(o)
    ]
    assert not stale, f"re-record ({constants.COMMAND}): {stale}"
    assert set(entries) == {o.name for o in wanted}
    for name, entry in entries.items():
        if entry["constant"] is not None and entry["refuted"] is not None:
            assert entry["refuted"] < entry["constant"], name
        assert entry["status"] in ("proved", "counterexample", "unknown", "sampled"), name


@pytest.mark.parametrize("status", ["proved", "counterexample"])
def test_verify_replays_rather_than_searches_recorded_outcomes(
    status, monkeypatch, generated_obligations
) -> None:
    """settle never calls the search for a record that is proved or refuted everywhere.
    (No search of today's recording proved nothing up to the limit: the sampler refutes
    the two any-n orders outright since 2026-11-26; the replay of such a record is the
    next test's, on a made-up record.)"""
    wanted = [
        o
        for o in generated_obligations
        if o.constant is not None and (constants.entry_of(o) or {}).get("status") == status
    ]
    if not wanted:
        pytest.skip(f"no recorded {status} constant")
    monkeypatch.setattr(constants, "prove", lambda *a, **k: pytest.fail("searched"))
    cheapest = min(wanted, key=lambda o: constants.entry_of(o)["seconds"])
    outcome = constants.settle(cheapest)
    assert outcome.result.status == status


def test_a_search_that_proved_nothing_is_replayed_at_its_limit_and_stays_unknown(
    monkeypatch,
) -> None:
    """The replay of a recorded unknown search tries the limit with the search's stages and,
    undecided there, is unknown, never proved: its recorded refutation confirmed again, its
    reason saying which call is not run again and the command that searches afresh."""
    entry = {"status": "unknown", "constant": None, "refuted": 3, "point": {"n": "1"}}
    tried = []

    def undecided(obligation, constant, timeout_ms, certify=False):
        tried.append(constant)
        return Unknown("planted: the limit undecided", "", 0.0)

    monkeypatch.setattr(constants, "check_at", undecided)
    monkeypatch.setattr(constants, "prove", lambda *a, **k: pytest.fail("searched"))
    outcome = constants.replay(_toy(), entry)
    assert tried == [constants.CONSTANT_LIMIT]
    assert isinstance(outcome.result, Unknown) and outcome.verdict != "ok"
    assert outcome.result.reason.startswith(constants.RECORDED_UNKNOWN)
    assert "attnio prove --search --only 'order/toy/linear'" in outcome.result.reason
    assert isinstance(outcome.refutation, Counterexample) and outcome.refutation.constant == 3


def test_a_stale_unknown_record_whose_limit_is_decided_now_is_searched() -> None:
    """A record saying no C up to the limit was proved, for a claim the limit now proves
    (the toy: C = 4 suffices), is stale: the constant is searched and found."""
    entry = {"status": "unknown", "constant": None, "refuted": 3, "point": {"n": "1"}}
    outcome = constants.replay(_toy(), entry)
    assert isinstance(outcome.result, Proved) and outcome.result.constant == 4


def test_a_wrong_refutation_in_an_unknown_record_is_not_trusted() -> None:
    """An unknown record whose refuting point satisfies the claim fails to reproduce."""
    entry = {"status": "unknown", "constant": None, "refuted": 3, "point": {"n": "5"}}
    outcome = constants.replay(_toy(), entry)
    assert isinstance(outcome.result, Unknown)
    assert outcome.result.reason.startswith(constants.NOT_REPRODUCED)
