"""Tests of ``attnio prove`` (attnio/_cli_prove.py) and the proofs suite of ``attnio verify``."""

from __future__ import annotations

import json

import sympy as sp

from attnio.bounds.symbols import M, d, n
from attnio.cli import main
from attnio.proofs import Obligation, suite


def test_prove_prints_table_and_exits_zero(capsys, monkeypatch):
    """A selection of true obligations prints a table and exits 0."""
    monkeypatch.setenv("COLUMNS", "200")  # a narrower table folds the name over two lines
    assert main(["prove", "--only", "crossover/dense-forward-tight/*"]) == 0
    out = capsys.readouterr().out
    assert "crossover/dense-forward-tight/meet" in out and "proved" in out


def test_prove_json(capsys):
    """--json prints one record per obligation with status, verdict and constant."""
    assert main(["prove", "--json", "--only", "planted/*"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["failed"] == 0
    row = data["outcomes"][0]
    assert row["status"] == "counterexample" and row["verdict"] == "ok" and row["point"]


def test_prove_writes_smtlib(tmp_path, capsys):
    """--smtlib DIR writes one file per obligation."""
    assert main(["prove", "--only", "derivation/lower-large/*", "--smtlib", str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("*.smt2"))) == 6


def test_unmatched_pattern_is_bad_input(capsys):
    """--only matching nothing is a one-line error with exit code 2."""
    assert main(["prove", "--only", "no-such-obligation"]) == 2
    err = capsys.readouterr().err
    assert "matches no obligation" in err and len(err.strip().splitlines()) == 1


def test_cross_check_needs_smtlib(capsys):
    """--cross-check cvc5 without --smtlib is bad input."""
    assert main(["prove", "--cross-check", "cvc5", "--only", "planted/*"]) == 2
    assert "--smtlib" in capsys.readouterr().err


def test_expected_true_failure_exits_one(monkeypatch, capsys):
    """An expected-true obligation that is refuted makes attnio prove exit 1."""
    false = Obligation(
        "test/false",
        "derivation",
        n**2 * d**2 / M <= n**2 * d / sp.sqrt(M),
        (d**2 > M,),
        "holds",
        (),
        "a false claim asserted as true",
    )
    monkeypatch.setattr(suite, "obligations", lambda: [false])
    assert main(["prove"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_finding_does_not_fail(monkeypatch, capsys):
    """A counterexample to an open claim is reported as a finding with exit 0."""
    false = Obligation(
        "test/open",
        "monotonicity",
        n**2 * d**2 / M <= n**2 * d / sp.sqrt(M),
        (d**2 > M,),
        "open",
        (),
        "an open claim",
    )
    monkeypatch.setattr(suite, "obligations", lambda: [false])
    assert main(["prove"]) == 0
    assert "finding" in capsys.readouterr().out


def test_verify_runs_the_proofs_suite(capsys):
    """attnio verify includes the proofs checks (here the planted claim)."""
    assert main(["verify", "--only", "proofs.planted*"]) == 0
    assert "proofs.planted_refuted" in capsys.readouterr().out


def test_bound_with_inconsistent_conditions_is_bad_input(monkeypatch, capsys):
    """A record whose conditions admit no point makes attnio prove fail with a one-line error."""
    from attnio.bounds import Bound
    from attnio.proofs import generate

    bad = Bound(
        name="test-inconsistent",
        kind="lower",
        regime="dense",
        pass_="forward",
        cache="any",
        asymptotic=n * d,
        explicit=n * d,
        conditions=sp.And(d**2 > M, d**2 + 1 < M),
        source="test",
        status="derived",
    )
    original = generate.catalog
    monkeypatch.setattr(generate, "catalog", lambda **f: (*original(**f), bad))
    monkeypatch.setattr(suite, "obligations", lambda: generate.monotonicity())
    assert main(["prove", "--only", "monotonicity/test-inconsistent/*"]) == 2
    err = capsys.readouterr().err.strip()
    assert "admit no" in err and "test-inconsistent" in err and len(err.splitlines()) == 1


def test_unsupported_expression_is_bad_input(monkeypatch, capsys):
    """An obligation with an expression outside the translator is a one-line error, exit 2."""
    odd = Obligation("test/sin", "derivation", sp.sin(n) <= 1, (), "holds", (), "sin")
    monkeypatch.setattr(suite, "obligations", lambda: [odd])
    assert main(["prove"]) == 2
    assert "cannot translate" in capsys.readouterr().err
