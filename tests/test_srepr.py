"""Tests of attnio.bounds.srepr: srepr strings round-trip, hostile strings are refused."""

from __future__ import annotations

import json

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio.bounds import catalog, render
from attnio.bounds.errors import SreprError
from attnio.bounds.srepr import parse_srepr
from attnio.bounds.symbols import ALL
from strategies import examples


def test_every_catalog_expression_round_trips() -> None:
    """parse_srepr(srepr(e)) == e for every expression and condition of the catalog."""
    rows = json.loads(render(catalog(), "json"))["bounds"]
    seen = 0
    for row in rows:
        for field in ("asymptotic", "explicit", "conditions"):
            if row[field] is not None:
                text = row[field]["srepr"]
                assert sp.srepr(parse_srepr(text)) == text
                seen += 1
    assert seen >= len(rows)


@settings(max_examples=examples(25))
@given(
    st.lists(st.sampled_from(sorted(ALL.values(), key=str)), min_size=1, max_size=4),
    st.integers(-50, 50),
    st.integers(1, 5),
)
def test_random_expressions_round_trip(symbols, constant, power) -> None:
    """Polynomials, quotients, floors, Max/Min and relations over the symbols round-trip."""
    expr = constant * sp.Mul(*symbols) ** power / (symbols[0] + 1)
    for candidate in (expr, sp.floor(expr), sp.Max(expr, symbols[-1]), expr <= symbols[0]):
        assert parse_srepr(sp.srepr(candidate)) == candidate


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("__import__('os').getcwd()", "attribute"),
        ("__import__('os')", "not an allowed sympy constructor"),
        ("Integer(1).__class__", "attribute expressions"),
        ("Symbol('x').__class__.__bases__[0].__subclasses__()", "attribute"),
        ("Add.__globals__", "attribute"),
        ("(lambda: 1)()", "call of an expression"),
        ("[x for x in (1, 2)]", "listcomp"),
        ("{'a': 1}", "dict"),
        ("eval('1')", "not an allowed sympy constructor"),
        ("Integer(1) + Integer(2)", "binop"),
        ("Pow(Integer(10), Integer(10000000000))", "exponent above"),
        ("binomial(Integer(10000000), Integer(5000000))", "binomial"),
        ("Integer(" + "9" * 5000 + ")", "digits"),
        ("Symbol('x', __class__=True)", "assumption"),
        ("Symbol('x', integer=Symbol('y'))", "assumption"),
        ("Integer('1')", "integer literals"),
        ("Add(*[Integer(1)])", "starred"),
        ("Integer(1); import os", "not a Python expression"),
        ("Add(" * 2000 + ")" * 2000, "nested"),
        ("sympify('x')", "not an allowed sympy constructor"),
        ("S", "name 'S'"),
        ("", "not a Python expression"),
    ],
)
def test_hostile_strings_are_refused(text: str, message: str) -> None:
    """Anything but sympy constructor calls over the allow-list raises SreprError naming why."""
    with pytest.raises(SreprError, match=None) as caught:
        parse_srepr(text)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)
