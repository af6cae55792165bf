"""Tests of attnio.proofs.translate: the sympy-to-z3 dispatch table."""

from __future__ import annotations

import pytest
import sympy as sp
import z3
from hypothesis import example, given, settings

from attnio.bounds import catalog
from attnio.bounds.symbols import M, Z, d, n
from attnio.proofs import Translator, UnsupportedExpression
from attnio.proofs.verification import check_translation_agrees, evaluate
from strategies import examples, proof_expressions, proof_points


@settings(max_examples=examples(60))
@given(proof_expressions(), proof_points())
@example(sp.ceiling(n / 2) + sp.Max(n, 3), {"n": 5, "d": 1, "M": 1})  # relaxed-floor bug
@example(sp.sqrt(n**2 + 1) / (M + 1), {"n": 42, "d": 1, "M": 133})  # nsimplify's wrong radical
def test_translation_agrees_with_sympy(expr, point):
    """At random points, the z3 translation evaluates to sympy's exact value."""
    subs = {sym: point[sym.name] for sym in expr.free_symbols}
    exact = expr.subs(subs)
    mine = evaluate(expr, {sym.name: point[sym.name] for sym in expr.free_symbols})
    assert abs(sp.N(exact - mine, 40)) <= sp.Rational(1, 10**20) * max(1, abs(sp.N(exact)))


def test_catalog_expressions_agree():
    """Every catalog expression's translation agrees with sympy at seeded random points."""
    passed, detail = check_translation_agrees()
    assert passed, detail


def test_sqrt_becomes_a_positive_variable():
    """sqrt(M) becomes a fresh variable s >= 0 with s*s = M: z3 sees polynomials."""
    translator = Translator()
    translator.translate(sp.sqrt(M))
    text = " ".join(map(str, translator.definitions))
    assert "root2_0*root2_0 == M" in text and "root2_0 >= 0" in text
    solver = z3.Solver()
    solver.add(*translator.definitions, translator.variables["M"] == 4)
    solver.add(translator.translate(sp.sqrt(M)) != 2)
    assert solver.check() == z3.unsat


def test_ceiling_defined_by_integer_variable():
    """ceiling(Z/n) becomes an integer k with n (k - 1) < Z <= n k in integer mode."""
    translator = Translator(integers=True)
    k = translator.translate(sp.ceiling(Z / n))
    solver = z3.Solver()
    solver.add(*translator.side_conditions())
    solver.add(translator.variables["Z"] == 7, translator.variables["n"] == 2, k != 4)
    assert solver.check() == z3.unsat


def test_integer_symbols_are_ints_only_in_integer_mode():
    """Integer symbols are z3 Int (cast to Real) in integer mode and Real in the relaxation."""
    assert "ToReal" in str(Translator(integers=True).translate(n))
    assert "ToReal" not in str(Translator().translate(n))


def test_domains_follow_assumptions():
    """A positive integer gets x >= 1, a positive real x > 0, a nonnegative real x >= 0."""
    x = sp.Symbol("x", positive=True)
    y = sp.Symbol("y", nonnegative=True)
    translator = Translator()
    translator.translate(n + x + y)
    assert {str(c) for c in translator.domains} == {"n >= 1", "x > 0", "y >= 0"}


@pytest.mark.parametrize(
    "expr",
    [sp.sin(n), sp.Float(1.5) * n, sp.pi * n, n**d, sp.Abs(n - d), sp.log(n)],
)
def test_unsupported_expression_is_named(expr):
    """Anything outside the dispatch table raises UnsupportedExpression naming it."""
    with pytest.raises(UnsupportedExpression) as error:
        Translator().translate(expr)
    assert "cannot translate" in str(error.value)
    assert isinstance(error.value, (ValueError, TypeError))


def test_boolean_connectives_and_relations():
    """And, Or, Not, Implies and all six relations translate to z3 Booleans."""
    formula = sp.Implies(sp.And(n < d, sp.Not(sp.Eq(d, M))), sp.Or(n >= M, sp.Ne(n, 3), d > n))
    assert z3.is_bool(Translator().translate_bool(formula))


def test_arithmetic_is_not_a_formula():
    """translate_bool refuses an arithmetic expression."""
    with pytest.raises(UnsupportedExpression, match="expected a relation"):
        Translator().translate_bool(n + 1)


def test_catalog_translates():
    """Every expression and condition of the catalog is inside the dispatch table."""
    for bound in catalog():
        translator = Translator()
        for expr in (bound.explicit, bound.asymptotic):
            if expr is not None:
                translator.translate(expr)
        translator.translate_bool(bound.conditions)


def test_exp_is_known_only_by_true_facts():
    """exp becomes a fresh positive real with e >= 1 + x, monotone, exp(2x) = exp(x)^2: a
    claim that follows from those is proved, one the true exp refutes is not."""
    from attnio.proofs.check import check
    from attnio.proofs.obligation import Expectation, Obligation

    x = sp.Symbol("x", positive=True)

    def status(claim: sp.Basic) -> str:
        obligation = Obligation(
            "demo/exp", "derivation", claim, (x < 1,), Expectation.HOLDS, (), ""
        )
        return check(obligation).status

    assert status(sp.Ge(sp.exp(x), 1 + x, evaluate=False)) == "proved"
    assert status(sp.Le(sp.exp(-2 * x), sp.exp(-x), evaluate=False)) == "proved"
    assert status(sp.Le(sp.exp(x), 1 + x, evaluate=False)) != "proved"
    assert status(sp.Gt(sp.exp(-x), 1 - x / 2, evaluate=False)) != "proved"
