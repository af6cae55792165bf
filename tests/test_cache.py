"""Tests of attnio.proofs.cache: decided outcomes on disk, keyed on what z3 sees."""

from __future__ import annotations

import errno
import json
import os
import pathlib

import pytest
import sympy as sp
import z3

from attnio.bounds import check_cache
from attnio.cli import main
from attnio.proofs import Counterexample, Obligation, Proved, Unknown, cache, prove, suite
from attnio.proofs.check import Outcome

x = sp.Symbol("x", integer=True, positive=True)
y = sp.Symbol("y", integer=True, positive=True)

TRUE = Obligation("test/square", "derivation", sp.Ge(x**2, x, evaluate=False), (), "holds", (), "")
FALSE = Obligation(
    "test/planted", "planted", sp.Le(x, 3, evaluate=False), (x >= 2,), "fails", (), ""
)
TIMEOUT = 3000


@pytest.fixture
def store(tmp_path) -> cache.ProofCache:
    return cache.ProofCache(tmp_path / "proofs", timeout_ms=TIMEOUT)


@pytest.fixture(scope="module")
def decided() -> tuple[Outcome, Outcome]:
    proved, refuted = prove(TRUE, TIMEOUT), prove(FALSE, TIMEOUT)
    assert isinstance(proved.result, Proved) and isinstance(refuted.result, Counterexample)
    return proved, refuted


def test_decided_outcomes_read_back_equal(store, decided) -> None:
    """A proof and a counterexample stored are read back with the same status, point,
    witness, method and SMT-LIB text, and count as hits."""
    for outcome in decided:
        assert store.load(outcome.obligation) is None
        assert store.store(outcome)
        again = store.load(outcome.obligation)
        assert again is not None and again.verdict == outcome.verdict
        assert type(again.result) is type(outcome.result)
        assert again.result.smtlib == outcome.result.smtlib
        for field in ("witness", "point", "method", "sides", "constant", "note"):
            assert getattr(again.result, field, None) == getattr(outcome.result, field, None)
    assert (store.hits, store.misses) == (2, 2)


def test_unknown_is_never_stored(store) -> None:
    """An Unknown outcome is not written: the next run computes it again."""
    outcome = Outcome(TRUE, Unknown("budget spent", "(check-sat)"))
    assert store.store(outcome) is False
    assert store.load(TRUE) is None
    assert not list(store.root.rglob("*.json"))


def test_key_changes_with_the_catalog_the_translation_the_solver_and_the_limits(
    monkeypatch,
) -> None:
    """Any change of the claim, an assumption, the intermediate term, the SMT-LIB text z3
    sees, the solver's version or the limits gives another key."""
    base = cache.key(TRUE, TIMEOUT)
    assert cache.key(TRUE, TIMEOUT) == base
    other_claim = Obligation("test/square", "derivation", sp.Ge(x**2, 1, evaluate=False), (),
                             "holds", (), "")  # fmt: skip
    other_assumption = Obligation(
        "test/square", "derivation", TRUE.claim, (x >= 2,), "holds", (), ""
    )
    with_via = Obligation(
        "test/square", "derivation", sp.Le(1, x**2, evaluate=False), (), "holds", (), "", via=x
    )
    changed = {
        cache.key(other_claim, TIMEOUT),
        cache.key(other_assumption, TIMEOUT),
        cache.key(with_via, TIMEOUT),
        cache.key(TRUE, TIMEOUT + 1),
        cache.key(TRUE, TIMEOUT, limit=17),
    }
    with monkeypatch.context() as patch:
        patch.setattr(z3, "get_full_version", lambda: "z3 99.0")
        changed.add(cache.key(TRUE, TIMEOUT))
    with monkeypatch.context() as patch:  # a change of the translation: other SMT-LIB text
        from attnio.proofs.translate import Translator

        original = Translator.side_conditions
        patch.setattr(
            Translator, "side_conditions", lambda self: [*original(self), z3.Real("t") >= 0]
        )
        changed.add(cache.key(TRUE, TIMEOUT))
    with monkeypatch.context() as patch:
        patch.setattr(cache.budget, "RLIMIT_PER_MS", cache.budget.RLIMIT_PER_MS + 1)
        changed.add(cache.key(TRUE, TIMEOUT))
    assert base not in changed and len(changed) == 8


def test_key_does_not_depend_on_earlier_z3_terms() -> None:
    """The key of an integer query (whose SMT-LIB text binds shared terms to names taken
    from z3's term ids) is the same after other z3 terms were created in the process."""
    first = cache.key(TRUE, TIMEOUT)
    a, b = z3.Ints("a b")
    z3.simplify(z3.And(*(a * i + b > i for i in range(50))))
    cache.key(FALSE, TIMEOUT)
    assert cache.key(TRUE, TIMEOUT) == first


def test_key_of_a_catalog_obligation_is_stable() -> None:
    """The key of catalog obligations whose queries z3 prints with shared (let-bound)
    terms, arithmetic and Boolean, is the same on every call and for the copy a worker
    process unpickles (which let bindings z3 prints depends on the terms alive in the
    context, so the text is printed from a fresh one)."""
    import pickle

    from attnio.proofs import select

    chosen = select("lower-le-upper/dense-forward-*<=standard-forward-count")
    assert len(chosen) >= 3
    for obligation in chosen:
        first = cache.key(obligation, TIMEOUT)
        z3.simplify(z3.Real("M") * z3.Real("d") + z3.Real("n"))  # other terms alive
        assert cache.key(obligation, TIMEOUT) == first
        assert cache.key(pickle.loads(pickle.dumps(obligation)), TIMEOUT) == first


def test_suite_over_workers_is_answered_from_the_cache(store) -> None:
    """Outcomes proved in worker processes are stored under the keys the next run
    computes: a second run over two workers proves nothing."""
    from attnio.proofs import select

    chosen = select("lower-le-upper/dense-forward-compulsory<=*")[:2]
    first = list(suite.outcomes(chosen, TIMEOUT, jobs=2, cache=store))
    assert store.misses == 2 and store.hits == 0
    second = list(suite.outcomes(chosen, TIMEOUT, jobs=2, cache=store))
    assert store.hits == 2 and store.misses == 2
    assert [o.verdict for o in second] == [o.verdict for o in first]


def test_a_tampered_counterexample_is_not_served(store, decided) -> None:
    """A stored counterexample whose point no longer violates the claim is a miss, and the
    entry is removed: a cached counterexample must still be one."""
    refuted = decided[1]
    store.store(refuted)
    path = store.path(FALSE)
    entry = json.loads(path.read_text())
    entry["point"] = {"x": "3"}  # x = 3 satisfies x <= 3
    path.write_text(json.dumps(entry))
    assert store.load(FALSE) is None
    assert not path.exists()


def test_a_proof_whose_witness_breaks_an_assumption_is_not_served(store) -> None:
    """A stored proof is served only if its witness satisfies every assumption."""
    ob = Obligation("test/shift", "derivation", sp.Ge(x**2, 2 * x, evaluate=False), (x >= 2,),
                    "holds", (), "")  # fmt: skip
    outcome = prove(ob, TIMEOUT)
    assert isinstance(outcome.result, Proved)
    store.store(outcome)
    path = store.path(ob)
    entry = json.loads(path.read_text())
    entry["witness"] = {"x": "1"}
    path.write_text(json.dumps(entry))
    assert store.load(ob) is None


@pytest.mark.parametrize("text", ["{", "[]", '{"status": "proved"}', '{"status": "maybe"}'])
def test_a_malformed_entry_is_a_miss(store, text) -> None:
    """A file that does not parse or lacks fields is a miss, never an error."""
    path = store.path(TRUE)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    assert store.load(TRUE) is None


def test_clear_removes_every_entry(store, decided) -> None:
    """clear() empties the directory and says how many entries it removed."""
    for outcome in decided:
        store.store(outcome)
    assert store.clear() == 2
    assert store.load(TRUE) is None
    assert store.clear() == 0


def test_directory_follows_xdg(monkeypatch, tmp_path) -> None:
    """The cache sits under $XDG_CACHE_HOME/attnio/proofs, beside the numba cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.directory() == tmp_path / "attnio" / "proofs"
    assert cache.ProofCache().root == tmp_path / "attnio" / "proofs"


def test_suite_proves_only_what_the_cache_lacks(store, monkeypatch) -> None:
    """A second run with a cache proves nothing decided again; an Unknown is proved again
    on every run; the outcomes come back in the order given."""
    calls: list[str] = []
    real = suite.settle

    def counted(obligation, timeout_ms=TIMEOUT):
        calls.append(obligation.name)
        if obligation.name == "test/open":
            return Outcome(obligation, Unknown("left open on purpose", ""))
        return real(obligation, timeout_ms)

    monkeypatch.setattr(suite, "settle", counted)
    unknown = Obligation("test/open", "comparison", sp.Ge(y, 1, evaluate=False), (), "open",
                         (), "")  # fmt: skip
    chosen = [TRUE, unknown, FALSE]
    first = list(suite.outcomes(chosen, TIMEOUT, jobs=1, cache=store))
    assert calls == ["test/square", "test/open", "test/planted"]
    calls.clear()
    second = list(suite.outcomes(chosen, TIMEOUT, jobs=1, cache=store))
    assert calls == ["test/open"]
    assert [o.obligation.name for o in second] == [o.name for o in chosen]
    assert [o.verdict for o in second] == [o.verdict for o in first] == ["ok", "unknown", "ok"]


def test_a_full_disk_stores_nothing_and_warns_once(store, decided, monkeypatch, capsys) -> None:
    """Where the disk is full (each write raises ENOSPC), storing returns False, the suite's
    verdicts are those of a working cache, and one line on stderr names the directory."""
    working = [o.verdict for o in suite.outcomes([TRUE, FALSE], TIMEOUT, jobs=1, cache=store)]
    monkeypatch.setattr(check_cache, "_WARNED", set())
    real = os.replace

    def full(source, target, *args, **kwargs):
        if pathlib.Path(target).is_relative_to(store.root.parent):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))
        return real(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", full)
    other = cache.ProofCache(store.root.parent / "full", timeout_ms=TIMEOUT)
    assert [other.store(outcome) for outcome in decided] == [False, False]
    verdicts = [o.verdict for o in suite.outcomes([TRUE, FALSE], TIMEOUT, jobs=1, cache=other)]
    assert verdicts == working
    assert not [p for p in other.root.rglob("*") if p.is_file()]  # no entry, no temporary
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(other.root) in err and "ENOSPC" in err, err


def test_workers_that_cannot_store_are_reported_once_by_the_parent(tmp_path, monkeypatch,
                                                                   capfd) -> None:  # fmt: skip
    """Workers proving over an unwritable cache (its parent is a file) return their write
    failures to the parent, which prints one line; the verdicts are unchanged."""
    monkeypatch.setattr(check_cache, "_WARNED", set())
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    unwritable = cache.ProofCache(blocker / "proofs", timeout_ms=TIMEOUT)
    found = suite.Background([TRUE, FALSE], TIMEOUT, jobs=2, cache=unwritable).outcomes()
    assert [o.verdict for o in found] == ["ok", "ok"]
    err = capfd.readouterr().err
    assert err.count("attnio: warning: cannot write") == 1, err
    assert "Traceback" not in err


def test_a_bad_entry_in_a_read_only_cache_is_a_miss(store, decided, monkeypatch) -> None:
    """A malformed entry that cannot be removed (a read-only cache) is a miss, not an error."""
    store.store(decided[0])
    store.path(decided[0].obligation).write_text("{", encoding="utf-8")

    def refuse(self, missing_ok=False):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))

    monkeypatch.setattr(pathlib.Path, "unlink", refuse)
    assert store.load(decided[0].obligation) is None


def test_suite_refuses_a_cache_of_another_budget(store) -> None:
    """A cache keyed on another budget is refused, naming both values."""
    with pytest.raises(ValueError, match="timeout_ms"):
        list(suite.outcomes([TRUE], TIMEOUT + 1, jobs=1, cache=store))


def test_cli_clear_cache(monkeypatch, tmp_path, capsys, decided) -> None:
    """attnio verify --clear-cache empties the user's cache directory and says so."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    store = cache.ProofCache(timeout_ms=TIMEOUT)
    for outcome in decided:
        store.store(outcome)
    assert main(["verify", "--clear-cache"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("removed 2 proof(s) from ") and str(store.root) in out
    assert not store.root.exists()
