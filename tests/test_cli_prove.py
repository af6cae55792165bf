"""Tests of ``attnio prove`` (attnio/_cli_prove.py) and the proofs suite of ``attnio verify``."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
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


_MINE = """# My bound

The cost IO is at least the loads, which are at least n d (a counting lemma).

| variable | domain |
|---|---|
| `IO` | nonnegative |
| `loads` | nonnegative integer |

| step | hypotheses | conclusion |
|---|---|---|
| `loads` | `IO >= loads; loads >= n*d` | `IO >= n*d` |
| `double` | `IO >= n*d` | `IO >= {double}` |

| lemma | statement |
|---|---|
| counting | each of the n d inputs is loaded at least once |
"""


def _prove_file(tmp_path, capsys, text: str, *options: str) -> tuple[int, dict]:
    path = tmp_path / "mine.md"
    path.write_text(text, encoding="utf-8")
    code = main(["prove", "--derivation", str(path), "--json", "--jobs", "1", *options])
    return code, json.loads(capsys.readouterr().out)


def test_a_users_false_step_is_refuted_at_a_point_checked_again(tmp_path, capsys):
    """A derivation a user writes with a false step (IO >= n d does not give IO >= 2 n d)
    exits 1: that step is refuted at a point where, evaluated here with exact fractions, the
    hypothesis holds and the conclusion fails; the true step is proved, the lemma listed."""
    code, data = _prove_file(tmp_path, capsys, _MINE.format(double="2*n*d"))
    assert code == 1 and data["failed"] == 1
    verdicts = {row["step"]: row for row in data["steps"]}
    assert verdicts["derivation/mine/loads"]["verdict"] == "proved"
    wrong = verdicts["derivation/mine/double"]
    assert wrong["verdict"] == "refuted"
    point = {k: Fraction(str(sp.Rational(v))) for k, v in wrong["point"].items()}
    assert point["IO"] >= point["n"] * point["d"] and point["IO"] < 2 * point["n"] * point["d"]
    assert [(r["step"], r["verdict"]) for r in data["lemmas"]] == [
        ("counting", "not machine-checked")
    ]


def test_the_corrected_derivation_is_proved_and_exported(tmp_path, capsys):
    """The same file with the step corrected (IO >= n d / 2) exits 0, every step proved,
    and --smtlib writes one file per step; --json lists one entry per step with its name
    and verdict."""
    out = tmp_path / "smt"
    code, data = _prove_file(tmp_path, capsys, _MINE.format(double="n*d/2"), "--smtlib", str(out))
    assert code == 0 and data["failed"] == 0
    assert [(r["step"], r["verdict"]) for r in data["steps"]] == [
        ("derivation/mine/loads", "proved"),
        ("derivation/mine/double", "proved"),
    ]
    assert sorted(p.name for p in out.glob("*.smt2")) == sorted(
        Path(r["smtlib"]).name for r in data["steps"]
    )


@pytest.mark.parametrize(
    ("broken", "where"),
    [
        ("n*d/2 +", "line 13, column 'conclusion'"),
        ("mystery", "line 13, column 'conclusion'"),
        ("record(no-such-record)", "line 13, column 'conclusion'"),
    ],
)
def test_a_malformed_derivation_is_one_line_naming_line_and_column(tmp_path, capsys, broken, where):
    """A syntax error, an undeclared name or an unknown record exits 2 with one line that
    names the file's line and the table's column."""
    path = tmp_path / "mine.md"
    path.write_text(_MINE.format(double=broken), encoding="utf-8")
    assert main(["prove", "--derivation", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert where in err and len(err.splitlines()) == 1, err


def test_a_domain_outside_the_list_is_bad_input(tmp_path, capsys):
    """A variable whose domain is not one of the six is refused, naming its line and the
    column 'domain'."""
    path = tmp_path / "mine.md"
    path.write_text(_MINE.format(double="n*d").replace("| nonnegative |", "| natural |"))
    assert main(["prove", "--derivation", str(path)]) == 2
    assert "line 7, column 'domain'" in capsys.readouterr().err


def test_the_example_of_docs_derivations_is_proved(tmp_path, capsys):
    """The complete example file of docs/derivations.md is proved step by step."""
    docs = Path(__file__).parent.parent / "docs" / "derivations.md"
    [example] = re.findall(r"```markdown\n(.*?)```", docs.read_text(encoding="utf-8"), re.S)
    code, data = _prove_file(tmp_path, capsys, example)
    assert code == 0 and {r["verdict"] for r in data["steps"]} == {"proved"}
    assert len(data["steps"]) == 2 and len(data["lemmas"]) == 1
