"""Tests of attnio.proofs.obligation, .generate and .derivation: obligations from the catalog."""

from __future__ import annotations

import pickle

import pytest
import sympy as sp

from attnio.bounds import Bound, Status, catalog, get
from attnio.bounds.symbols import M, d, n
from attnio.proofs import (
    Counterexample,
    Expectation,
    Obligation,
    ObligationError,
    Proved,
    check,
    generate,
    prove,
    substitute,
    verification,
)
from attnio.proofs.derivation import derivation_obligations, derivations
from attnio.proofs.obligation import FAMILIES
from attnio.proofs.verification import check_derived_status


@pytest.fixture
def generated(generated_obligations):
    """The catalog's obligations, generated once per session (conftest)."""
    return generated_obligations


def test_names_unique_and_families_known(generated):
    """Every generated obligation has a unique name and a known family."""
    names = [o.name for o in generated]
    assert len(names) == len(set(names))
    assert {o.family for o in generated} <= set(FAMILIES)


def test_every_family_is_generated(generated):
    """The catalog yields obligations of every family the generator documents."""
    assert {o.family for o in generated} == set(FAMILIES)


def test_claims_read_the_records(generated):
    """lower <= upper claims are exactly the records' explicit expressions: nothing retyped."""
    pairs = [o for o in generated if o.family == "lower-le-upper"]
    assert pairs
    for ob in pairs:
        lower, upper = (get(name) for name in ob.sources)
        assert ob.claim == sp.Le(lower.explicit, upper.explicit)


def test_every_explicit_record_is_used(generated):
    """Every record with an explicit expression is the source of some obligation."""
    used = {name for o in generated for name in o.sources}
    for bound in catalog():
        if bound.explicit is not None:
            assert bound.name in used, bound.name


def test_new_records_become_obligations(monkeypatch):
    """A record added to the catalog yields new obligations without code changes."""
    before = len(generate.lower_le_upper())
    extra = Bound(
        name="test-forward-count",
        kind="upper",
        regime="dense",
        pass_="forward",
        cache="any",
        asymptotic=n**2 * d,
        explicit=n**2 * d + 4 * n * d,
        conditions=sp.true,
        source="test",
        status="derived",
        algorithm="test-algorithm",
    )
    original = generate.catalog

    def patched(**filters):
        found = original(**filters)
        return (*found, extra) if filters == {"kind": "upper"} else found

    monkeypatch.setattr(generate, "catalog", patched)
    after = generate.lower_le_upper()
    assert len(after) > before
    assert any(o.name.endswith("<=test-forward-count") for o in after)


def test_expectation_follows_evidence(generated):
    """A claim resting on a reconstructed record is open, not expected to hold."""
    for ob in generated:
        records = [get(name) for name in ob.sources if not name.endswith(".md")]
        if ob.family in ("planted", "derivation") or ob.name.endswith("-any-n"):
            continue
        if any(r.status is Status.RECONSTRUCTED for r in records):
            assert ob.expected is Expectation.OPEN, ob.name


def test_count_monotonicity_is_open(generated):
    """Monotonicity of an exact count is a question (open), not an assertion."""
    for ob in generated:
        if ob.family == "monotonicity" and "-count/explicit/" in ob.name:
            assert ob.expected is Expectation.OPEN


def test_planted_claim_is_expected_to_fail(generated):
    """The planted false claim is in the catalog of obligations and expected to fail."""
    planted = [o for o in generated if o.family == "planted"]
    assert planted and all(o.expected is Expectation.FAILS for o in planted)


def test_derivation_files_exist_and_name_their_records():
    """Each derivation file exists and mentions every record it derives."""
    for derivation in derivations():
        text = derivation.path.read_text(encoding="utf-8")
        for record in derivation.records:
            assert record in text
            get(record)


def test_derivations_are_built_once_per_catalog(monkeypatch):
    """derivations() returns the same tuple while the catalog is the same object, and
    builds it again, reading the new records, once the catalog is replaced."""
    import dataclasses
    import importlib

    catalog_module = importlib.import_module("attnio.bounds.catalog")
    first = derivations()
    assert derivations() is first
    name = next(d.records[0] for d in reversed(first) if d.records)  # mask-lower has none
    swapped = tuple(
        dataclasses.replace(b, explicit=b.explicit * 2) if b.name == name else b
        for b in catalog_module.loaded()
    )
    monkeypatch.setattr(catalog_module, "_CATALOG", swapped)
    again = derivations()
    assert again is not first and again == derivations()
    assert [s.name for d in again for s in d.steps] == [s.name for d in first for s in d.steps]
    changed = [
        (a.claim, b.claim)
        for x, y in zip(first, again, strict=True)
        for a, b in zip(x.steps, y.steps, strict=True)
        if a.claim != b.claim
    ]
    assert changed, f"no step of the rebuilt derivations reads the doubled {name}"


def test_derivation_steps_are_proved(derivation_outcomes):
    """Every algebraic step of every derivation is proved by z3."""
    assert len(derivation_outcomes) == len(derivation_obligations())
    for outcome in derivation_outcomes:
        assert isinstance(outcome.result, Proved), outcome.obligation.name


def test_status_upgrades_are_backed(derivation_outcomes, monkeypatch):
    """Records marked derived from a derivation have complete derivations with proved steps.

    The check reads only the derivation steps' outcomes, so it is given those (proved once
    per session) instead of proving the whole obligation catalog.
    """
    monkeypatch.setattr(verification, "_outcomes", lambda: derivation_outcomes)
    passed, detail = check_derived_status()
    assert passed, detail
    assert get("dense-forward-lower-large-explicit").status is Status.DERIVED
    assert get("dense-forward-lower-small-explicit").status is Status.RECONSTRUCTED


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "Bad Name"}, "name="),
        ({"family": "nonsense"}, "family="),
        ({"claim": n + 1}, "not a relation"),
        ({"assumptions": (n + 1,)}, "not a relation"),
        ({"expected": "maybe"}, "expected="),
        ({"constant": sp.Symbol("C")}, "does not occur"),
        ({"claim": sp.true}, "decided by sympy"),
    ],
)
def test_bad_obligations_are_refused(kwargs, message):
    """A malformed obligation raises ObligationError naming the bad field."""
    fields = dict(
        name="test/ok",
        family="derivation",
        claim=sp.Ge(n, 1, evaluate=False),
        assumptions=(),
        expected="holds",
        sources=(),
        statement="",
    )
    fields.update(kwargs)
    with pytest.raises(ObligationError, match=message):
        Obligation(**fields)


def test_relations_reach_z3_undecided_by_sympy():
    """A relation sympy decides wrongly (1 <= C/(M n) at C = 1) is refuted by z3, not proved.

    sympy 1.14 evaluates ``1 <= 1/(M*n)`` to True for positive integers M and n
    (attnio.proofs.sign); Obligation.at and substitute rebuild it unevaluated.
    """
    C = sp.Symbol("C", positive=True)
    ob = Obligation("test/c", "derivation", sp.Le(1, C / (M * n), evaluate=False), (), "holds",
                    (), "", constant=C)  # fmt: skip
    assert sp.Le(1, 1 / (M * n)) is sp.true  # the sympy rule this guards against
    at_one = ob.at(1)
    assert isinstance(at_one.claim, sp.LessThan)
    assert isinstance(check(at_one), Counterexample)
    assert substitute(sp.And(sp.Le(1, C / (M * n), evaluate=False), M >= 2), {C: 1}) != sp.true


def test_pickling_keeps_every_formula_as_built(generated_obligations):
    """An obligation crosses a process boundary unchanged (the worker pool pickles it).

    Plain pickling rebuilt 1 <= 1/(M*n) with evaluation, into the True sympy decides.
    """
    claim = sp.Le(1, sp.Max(1, 1 / (M * n), evaluate=False) / (M * n), evaluate=False)
    ob = Obligation("test/p", "derivation", claim, (sp.Le(1, 1 / (M * n), evaluate=False),),
                    "holds", ("x",), "s")  # fmt: skip
    back = pickle.loads(pickle.dumps(ob))
    assert back == ob
    assert sp.srepr(back.claim) == sp.srepr(claim)
    for original in generated_obligations[:40]:
        assert pickle.loads(pickle.dumps(original)) == original


def test_an_intermediate_term_travels_and_takes_the_constant():
    """``via`` survives pickling as built, ``at`` substitutes the constant in it too, and an
    intermediate term is refused for a claim that is not lhs <= rhs."""
    C = sp.Symbol("C", positive=True)
    ob = Obligation("test/v", "derivation", sp.Le(n, C * n**2, evaluate=False), (), "holds",
                    (), "", constant=C, via=C * n / (M * n))  # fmt: skip
    assert pickle.loads(pickle.dumps(ob)) == ob
    assert sp.srepr(pickle.loads(pickle.dumps(ob)).via) == sp.srepr(ob.via)
    assert ob.at(3).via == 3 * n / (M * n)
    with pytest.raises(ObligationError, match="via"):
        Obligation("test/v", "derivation", sp.Ge(n, 1, evaluate=False), (), "holds", (), "",
                   via=n)  # fmt: skip


def test_a_chain_of_intermediate_terms_travels_and_takes_the_constant():
    """A ``via`` chain survives pickling term by term and in order, ``at`` substitutes the
    constant in every term, ``chain`` reads one term and a chain alike, and an empty chain
    is refused."""
    from attnio.proofs.obligation import chain

    C = sp.Symbol("C", positive=True)
    ob = Obligation("test/v", "derivation", sp.Le(n, C * n**2, evaluate=False), (), "holds",
                    (), "", constant=C, via=(C * n / (M * n), n))  # fmt: skip
    back = pickle.loads(pickle.dumps(ob))
    assert back == ob and [sp.srepr(t) for t in chain(back)] == [sp.srepr(t) for t in chain(ob)]
    assert chain(ob.at(3)) == (3 * n / (M * n), n)
    single = Obligation("test/v", "derivation", sp.Le(n, n**2, evaluate=False), (), "holds",
                        (), "", via=n)  # fmt: skip
    plain = Obligation("test/v", "derivation", sp.Ge(n, 1, evaluate=False), (), "holds", (), "")
    assert chain(single) == (n,) and chain(plain) == ()
    with pytest.raises(ObligationError, match="via"):
        Obligation("test/v", "derivation", sp.Le(n, n**2, evaluate=False), (), "holds", (), "",
                   via=())  # fmt: skip


def test_lower_le_upper_goes_through_the_majorant_and_the_count_minorant():
    """A lower <= upper obligation's chain is the lower record's majorant, then the count's
    minorant and its steps (COUNT_STEPS), each where it exists, in that order."""
    from attnio.proofs.derivation import COUNT_STEPS, count_minorant, majorant
    from attnio.proofs.generate import lower_le_upper
    from attnio.proofs.obligation import chain

    seen = stepped = 0
    for ob in lower_le_upper():
        lower, upper = ob.sources
        expected = tuple(
            t for t in (majorant(lower, upper), count_minorant(upper)) if t is not None
        ) + (COUNT_STEPS.get(upper, ()) if count_minorant(upper) is not None else ())
        assert chain(ob) == expected, ob.name
        seen += majorant(lower, upper) is not None and count_minorant(upper) is not None
        stepped += upper in COUNT_STEPS
    assert seen > 0 and stepped > 0


def test_at_sets_the_constant():
    """Obligation.at substitutes the constant and keeps everything else."""
    C = sp.Symbol("C", positive=True)
    ob = Obligation("test/c", "tightness", n <= C * M, (), "holds", (), "", constant=C)
    assert ob.at(3).claim == (n <= 3 * M)
    with pytest.raises(ObligationError):
        ob.at(3).at(4)


def _with_record(monkeypatch, replaced: Bound) -> None:
    """Make every consumer see the catalog with ``replaced`` in place of its namesake."""
    import importlib

    catalog_module = importlib.import_module("attnio.bounds.catalog")
    records = tuple(replaced if b.name == replaced.name else b for b in catalog_module._CATALOG)
    monkeypatch.setattr(catalog_module, "_CATALOG", records)


def test_unbacked_derived_status_fails_prove_and_verify(monkeypatch):
    """Upgrading the reconstructed small-cache candidate to derived fails both prove and verify."""
    import dataclasses

    upgraded = dataclasses.replace(get("dense-forward-lower-small-explicit"), status=Status.DERIVED)
    _with_record(monkeypatch, upgraded)
    [ob] = [o for o in generate.evidence() if o.name.endswith(upgraded.name)]
    assert prove(ob).failed
    monkeypatch.setattr(verification, "_outcomes", lambda: [prove(o) for o in generate.evidence()])
    monkeypatch.setattr(verification, "derivations", lambda: ())
    passed, detail = check_derived_status()
    assert passed is False and upgraded.name in detail


def test_derived_record_without_any_backing_fails(monkeypatch):
    """A derived lower record no derivation lists and that is no count is not backed."""
    import dataclasses

    upgraded = dataclasses.replace(get("dense-forward-lower-small"), status=Status.DERIVED)
    backed, why = generate.backing(upgraded)
    assert not backed and "no derivation" in why


def test_standard_records_refutation_is_a_finding():
    """DFE22's O(nd + n^2) on d <= M <= nd is refuted for every K: a finding, not a failure."""
    found = generate.refutations()
    assert {o.sources[0] for o in found} == {"standard-forward-upper", "standard-backward-upper"}
    for ob in found:
        outcome = prove(ob)
        assert isinstance(outcome.result, Proved), ob.name
        assert outcome.verdict == "finding" and not outcome.failed


def test_old_standard_record_fails_the_order_check(monkeypatch):
    """With its published range (no M >= d^2), standard-forward-upper's order obligation fails."""
    import dataclasses

    from attnio.bounds.catalog import STANDARD_AS_STATED

    old = dataclasses.replace(get("standard-forward-upper"), conditions=STANDARD_AS_STATED)
    _with_record(monkeypatch, old)
    [ob] = [o for o in generate.order() if o.name.startswith("order/standard-forward-upper/")]
    outcome = prove(ob)
    assert outcome.failed, outcome.result


def test_backward_twins_pair_by_record_fields():
    """Each forward record's backward twin shares its regime, cache, kind and algorithm, and
    every record named '<x>-forward-<y>' with a '<x>-backward-<y>' record is paired with it."""
    from attnio.bounds import Pass, catalog, get
    from attnio.proofs.generate import _backward_twin

    for forward in catalog(pass_=Pass.FORWARD):
        twin = _backward_twin(forward)
        if twin is not None:
            assert twin.pass_ is Pass.BACKWARD
            fields = ("regime", "cache", "kind", "algorithm")
            assert all(getattr(twin, f) == getattr(forward, f) for f in fields)
        try:
            named = get(forward.name.replace("forward", "backward"))
        except KeyError:
            continue
        if named.kind is forward.kind:
            assert twin == named, forward.name
