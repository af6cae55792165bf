"""Tests of attnio.proofs.smtlib: standalone SMT-LIB 2 files and the cvc5 cross-check."""

from __future__ import annotations

import sys

import pytest
import sympy as sp

from attnio.bounds.symbols import M, Z, d, n
from attnio.proofs import Obligation, SolverUnavailable, prove, smtlib
from attnio.proofs.generate import planted


def _outcomes():
    claims = [
        ("test/true", n**2 * d**2 / M >= n**2 * d / sp.sqrt(M), (d**2 >= M,)),
        ("test/ceiling", sp.ceiling(Z / n) * n >= Z, ()),
        ("test/min", sp.Min(n, d) <= sp.Max(n, d), ()),
    ]
    outcomes = [
        prove(Obligation(name, "derivation", claim, assumptions, "holds", (), ""))
        for name, claim, assumptions in claims
    ]
    outcomes += [prove(o) for o in planted()]
    return outcomes


def test_files_parse_back_with_z3(tmp_path):
    """Every written file parses back with z3 and gives the answer that decided it."""
    outcomes = _outcomes()
    paths = smtlib.write(outcomes, tmp_path / "out")
    assert len(paths) == len(outcomes)
    for outcome, path in zip(outcomes, paths, strict=True):
        expected = "unsat" if outcome.result.status == "proved" else "sat"
        assert smtlib.z3_answer(path) == expected, path.name
        text = path.read_text(encoding="utf-8")
        assert text.startswith("; attnio obligation")
        assert "(check-sat)" in text and f"(set-info :status {expected})" in text


def test_files_are_standalone_smtlib(tmp_path):
    """Files declare every symbol, set a logic and use no z3-only power operator."""
    paths = smtlib.write(_outcomes(), tmp_path)
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert "(set-logic QF_N" in text
        assert "(^ " not in text and "sqrt" not in text.split("(set-logic")[1]


def test_file_names_are_safe():
    """Obligation names become file names without slashes or comparison signs."""
    assert smtlib.file_name("a/b<=c>=d*e") == "a__b_le_c_ge_d_e.smt2"


def test_cross_check_with_cvc5(tmp_path):
    """cvc5 (a test dependency) agrees with z3 on the written files."""
    outcomes = _outcomes()
    paths = smtlib.write(outcomes, tmp_path)
    expected = ["unsat" if o.result.status == "proved" else "sat" for o in outcomes]
    agreements = smtlib.cross_check(paths, expected, timeout_ms=5000)
    assert all(a.other in ("sat", "unsat", "unknown") for a in agreements)
    assert not any({a.expected, a.other} == {"sat", "unsat"} for a in agreements)
    assert sum(a.agrees for a in agreements) >= len(agreements) - 1


def test_missing_cvc5_is_a_clear_error(tmp_path, monkeypatch):
    """Without the cvc5 package the cross-check raises SolverUnavailable naming the extra."""
    monkeypatch.setitem(sys.modules, "cvc5", None)
    path = smtlib.write(_outcomes()[:1], tmp_path)[0]
    with pytest.raises(SolverUnavailable, match=r"attnio\[cvc5\]"):
        smtlib.cvc5_answer(path)
