"""Tests of attnio.claims: reading claims, and the verdicts of check on planted claims."""

from __future__ import annotations

import json

import pytest
import sympy as sp

from attnio.bounds import Bound, Status, catalog, get
from attnio.bounds.symbols import M, d, n
from attnio.claims import Claim, ClaimError, ClaimFileError, check, parse_claims, read_claims
from attnio.claims.claim import CACHE_CONDITION
from attnio.claims.verdict import verdict_of
from attnio.pebble import load_dag, read_moves, replay

NO_NUMERICS = ("pebbling", "counting")


def _toml(**fields: object) -> str:
    base = {"name": "mine", "kind": "lower", "regime": "dense", "pass": "forward",
            "expression": "4*n*d"}  # fmt: skip
    base.update(fields)
    lines = ["[[bound]]"]
    for key, value in base.items():
        if value is None:
            continue
        lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def _claim(**fields: object) -> Claim:
    return parse_claims(_toml(**fields))[0]


def _bound(expr: sp.Expr, kind: str = "lower", **extra: object) -> Bound:
    fields = dict(name="planted", kind=kind, regime="dense", pass_="forward", cache="any",
                  asymptotic=None, explicit=expr, conditions=None, source="test",
                  status="claimed")  # fmt: skip
    fields.update(extra)
    return Bound(**fields)


# ------------------------------------------------------------------ the record


def test_claimed_records_need_no_asymptotic_form_and_render() -> None:
    """A 'claimed' record may lack an asymptotic form and still shows itself (notation,
    LaTeX); the catalog holds none (its tables need a reader's label, which only catalog
    records have)."""
    bound = _bound(4 * n * d)
    assert bound.status is Status.CLAIMED and bound.notation.startswith("claimed")
    assert "d n" in bound.latex() or "n d" in bound.latex()
    assert not catalog(status="claimed")


def test_claimed_records_need_some_expression() -> None:
    """A 'claimed' record with neither an explicit nor an asymptotic form is refused."""
    with pytest.raises(ValueError, match="needs an explicit or an asymptotic"):
        _bound(None)


# ------------------------------------------------------------------ reading


def test_a_table_becomes_a_claim_with_defaults() -> None:
    """Defaults: cache any, status claimed, source 'user claim', conditions always."""
    claim = _claim()
    bound = claim.bound
    assert (bound.cache.value, bound.status.value, bound.source) == ("any", "claimed", "user claim")
    assert bound.conditions is sp.true and bound.explicit == 4 * n * d and claim.constant == 1


def test_a_claim_names_the_heads_as_the_issue_and_the_command_line_do() -> None:
    """heads_q and heads_kv are h_q and h_kv (with n_q, n_kv): the claim reads as the shape
    record, and conditions fixing heads that group (32:8) are accepted."""
    from attnio.bounds.symbols import h_kv, h_q, n_kv, n_q

    expression, conditions = (
        "2*d*heads_q*n_q + 2*d*heads_kv*n_kv",
        "heads_q == 32 and heads_kv == 8",
    )
    (claim,) = parse_claims(_toml(expression=expression, conditions=conditions))
    assert claim.bound.explicit == get("shape-forward-compulsory").explicit
    assert claim.bound.conditions == sp.And(sp.Eq(h_q, 32), sp.Eq(h_kv, 8))
    assert {n_q, n_kv} <= claim.bound.explicit.free_symbols


def test_cache_adds_its_relation_to_the_scope() -> None:
    """cache = small restricts the claim to M < d**2; large to M >= d**2."""
    small = _claim(cache="small", conditions="n >= d")
    assert small.scope == sp.And(n >= d, CACHE_CONDITION[small.bound.cache])
    assert small.holds_at({"n": 4, "d": 2, "M": 3}) and not small.holds_at({"n": 4, "d": 2, "M": 4})


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"kind": "lowr"}, "field 'kind' = 'lowr' is not one of: upper, lower, tight"),
        ({"pass": None}, r"missing field\(s\) \['pass'\]"),
        ({"colour": "red"}, r"unknown field\(s\) \['colour'\]"),
        ({"expression": "n*q"}, "claim 'mine': field 'expression': unknown symbol 'q'"),
        ({"expression": "n*"}, "claim 'mine': field 'expression': syntax error"),
        ({"conditions": "M < d and M > d"}, "claim 'mine': field 'conditions'.*admits no point"),
        ({"conditions": "M < 1"}, "claim 'mine': field 'conditions'.*admits no point"),
        ({"conditions": "n*d"}, "field 'conditions'.*not a condition"),
        ({"conditions": "1 > 2"}, r"'conditions': '1 > 2' admits no point"),
        ({"constant": 2}, "'constant' applies only to kind 'tight'"),
        ({"kind": "tight", "constant": 0.5}, "at least 1"),
        ({"algorithm": "flash"}, "names the algorithm of an upper bound"),
        (
            {"kind": "upper", "algorithm": "flashattention"},
            "field 'algorithm' = 'flashattention' is not one of: standard, flash, flash2",
        ),
        (
            {"kind": "upper", "algorithm": "flash", "regime": "sparse"},
            "'flash' has no sparse forward pass.*block-sparse-flash, sparse-square-tiling",
        ),
        (
            {"kind": "upper", "algorithm": "square-tiling", "pass": "backward"},
            "'square-tiling' has no dense backward pass.*tiled-backward",
        ),
        ({"regime": "denser"}, "field 'regime' = 'denser' is not one of: dense, sparse"),
        ({"pass": "forwards"}, "field 'pass' = 'forwards' is not one of: forward, backward"),
        ({"cache": "tiny"}, "field 'cache' = 'tiny' is not one of: small, large, any"),
        ({"expression": 4}, "field 'expression' must be a string"),
        ({"status": "open"}, "carries no expression"),
        ({"name": ""}, "field 'name' must be a non-empty string"),
        (
            {"conditions": "heads_q == 3 and heads_kv == 2"},
            "field 'conditions': heads_q=3 must be a multiple of heads_kv=2",
        ),
        ({"conditions": "h_kv == 0 and h_q == 4"}, "heads_kv=0 must be a positive integer"),
    ],
)
def test_bad_tables_give_one_line_naming_claim_and_field(fields: dict, match: str) -> None:
    """Every bad field is a ClaimError of one line naming the claim (or table) and field."""
    with pytest.raises(ClaimError, match=match) as info:
        claims = parse_claims(_toml(**fields))
        check(claims, skip=("z3", *NO_NUMERICS))  # the conditions are checked first
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "no \\[\\[bound\\]\\] table"),
        ("[[bound]\n", "not valid TOML"),
        ("title = 'x'\n", "unknown top-level key"),
        (_toml() + _toml(), "two claims are named 'mine'"),
    ],
)
def test_bad_files_are_refused(text: str, match: str) -> None:
    """Empty, malformed or duplicated claim files raise ClaimFileError."""
    with pytest.raises(ClaimFileError, match=match):
        parse_claims(text)


def test_unreadable_files_name_the_file(tmp_path) -> None:
    """A missing or non-UTF-8 file raises ClaimFileError naming it."""
    with pytest.raises(ClaimFileError, match=r"nope\.toml"):
        read_claims(tmp_path / "nope.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ClaimFileError, match="not UTF-8"):
        read_claims(binary)


# ------------------------------------------------------------------ verdicts


def _refutation(report, check_name: str):
    found = [e for e in report.refutations() if e.check == check_name]
    assert found, f"no {check_name} refutation in {report.to_dict()}"
    return found[0]


def test_a_too_high_lower_bound_is_refuted_by_an_exact_count() -> None:
    """5nd is above an algorithm's exact count somewhere: z3 finds the point, and the values
    shown are the claim's and the record's exact values there."""
    (report,) = check([_bound(5 * n * d)], skip=NO_NUMERICS)
    assert report.verdict == "refuted"
    item = _refutation(report, "z3")
    point = {k: sp.Integer(v) for k, v in item.point.items()}
    record = get(item.against)
    assert sp.Integer(item.other_value) == record.evaluate(
        **{k: point[k] for k in record.parameters}
    )
    assert sp.Integer(item.claim_value) == 5 * point["n"] * point["d"]
    assert sp.Integer(item.claim_value) > sp.Integer(item.other_value)
    assert item.replay.startswith("attnio simulate")


def test_a_too_low_upper_bound_is_refuted_by_the_machine_and_by_z3() -> None:
    """An upper bound on FlashAttention below its count is refuted by a machine run (the
    count shown is the measured one) and by z3 against the exact-count record."""
    bound = _bound(3 * n * d + n**2 * d**2 / M, kind="upper", algorithm="flash",
                   conditions=M >= 5 * d + 4)  # fmt: skip
    (report,) = check([bound], skip=("pebbling",))
    assert report.verdict == "refuted"
    counted = _refutation(report, "counting")
    from attnio.algorithms import simulate

    p = {k: int(v) for k, v in counted.point.items()}
    assert simulate("flash", "forward", p["n"], p["d"], p["M"], numeric=False).counts.io == int(
        counted.other_value
    )
    assert "flash-forward-count" in {e.against for e in report.refutations()}


def test_a_lower_bound_above_a_proven_optimum_is_refuted_with_replaying_moves(tmp_path) -> None:
    """A lower bound of 9 at n=2, d=1, M=6 exceeds the proven optimum 8: the refutation's
    move file replays to 8 on the written DAG."""
    bound = _bound(sp.Integer(9), conditions=sp.And(sp.Eq(n, 2), sp.Eq(d, 1), sp.Eq(M, 6)))
    (report,) = check([bound], skip=("z3", "counting"), evidence_dir=tmp_path)
    assert report.verdict == "refuted"
    item = _refutation(report, "pebbling")
    assert "proven optimum Q = 8" in item.summary
    dag_file = item.certificate.replace(".moves.jsonl", ".dag.json")
    dag = load_dag(dag_file)
    assert replay(dag, read_moves(item.certificate, dag), 6).io == 8 == int(item.other_value)


def test_an_upper_bound_below_a_proven_optimum_is_refuted() -> None:
    """'Some algorithm moves at most 7 words' at n=2, d=1, M=6 is below the proven optimum 8."""
    bound = _bound(sp.Integer(7), kind="upper",
                   conditions=sp.And(sp.Eq(n, 2), sp.Eq(d, 1), sp.Eq(M, 6)))  # fmt: skip
    (report,) = check([bound], skip=("z3", "counting"))
    item = _refutation(report, "pebbling")
    assert "upper side 7 < the proven optimum Q = 8" in item.summary


def test_a_true_lower_bound_is_consistent_with_the_catalog() -> None:
    """n^2 d^2 / M for M >= d^2 is below every exact count, but z3 does not derive it from
    the lower records: z3 proves every comparison, and the verdict says that this is not a
    proof. (Until 2026-11-26 the example was n^2 / M, which the sharp record's n^2 / 2 - M
    branch now implies with the compulsory I/O: that claim is proved today.)"""
    (report,) = check([_bound(n**2 * d**2 / M, conditions=M >= d**2)], skip=NO_NUMERICS)
    assert report.verdict == "consistent-with-catalog" and "not a proof" in report.summary
    assert not report.refutations()
    # neither proved nor refuted: the window (best derived lower, best count) around it
    (window,) = report.windows
    assert window.side == "lower" and all(s.point["M"] >= s.point["d"] ** 2 for s in window.samples)
    assert report.to_dict()["window"][0]["side"] == "lower"


def test_a_lower_bound_implied_by_a_derived_record_is_proved() -> None:
    """4nd is the derived compulsory bound: proved, naming that record as the lemma."""
    (report,) = check([_bound(4 * n * d)], skip=NO_NUMERICS)
    assert report.verdict == "proved"
    (item,) = [e for e in report.evidence if e.check == "proof"]
    assert item.against == "dense-forward-compulsory" and item.side == "lower"


@pytest.mark.slow
def test_a_true_lower_bound_survives_every_check() -> None:
    """4nd survives z3, the pebblings and the counts; every check says what it compared."""
    (report,) = check([_bound(4 * n * d)])
    assert report.verdict == "proved"
    checks = {e.check: e.verdict for e in report.evidence}
    assert checks["pebbling"] == "passed" and checks["counting"] == "passed"


def test_tight_claims_are_checked_both_ways_with_their_constant() -> None:
    """Theta(nd) with constant 4 claims Q <= 4nd, which the derived explicit lower bounds (the
    large-cache one and any other derived one) refute for long sequences."""
    text = _toml(kind="tight", expression="n*d", constant=4)
    (report,) = check(parse_claims(text), skip=NO_NUMERICS)
    assert report.verdict == "refuted"
    refuting = [e for e in report.refutations() if e.check == "z3"]
    assert refuting and all(e.summary.startswith("upper side") for e in refuting)
    against = {e.against for e in refuting}
    assert "dense-forward-lower-large-explicit" in against
    derived = {b.name for b in catalog(regime="dense", pass_="forward", kind="lower",
                                       status="derived")}  # fmt: skip
    assert against <= derived
    item = refuting[0]
    point = {k: sp.Integer(v) for k, v in item.point.items()}
    assert sp.Integer(item.claim_value) == 4 * point["n"] * point["d"]


def test_tight_claims_must_not_grow_with_memory() -> None:
    """A tight claim E = n d M (constant 1) grows with M, which no optimum does: refuted."""
    (report,) = check(parse_claims(_toml(kind="tight", expression="n*d*M")), skip=NO_NUMERICS)
    assert any(e.check == "monotonicity" for e in report.refutations())


def test_asymptotic_only_claims_are_judged_by_their_order_not_at_points() -> None:
    """A claim with only an asymptotic form is refuted by no point (no z3, pebbling or
    counting refutation) but by its growth: Omega(n^2 d^2 / M) at every cache size grows
    faster than a count as d grows (the small cache), and the order check says so."""
    bound = _bound(None, asymptotic=n**2 * d**2 / M)
    (report,) = check([bound])
    assert report.verdict == "refuted"
    assert {e.check for e in report.refutations()} == {"order"}
    assert any("asymptotic-only" in e.summary for e in report.evidence if e.check == "z3")


def test_sparse_points_alone_do_not_refute() -> None:
    """A z3 point that sets a density is not a refutation by itself (no mask may realise it);
    the machine's run on an actual mask is."""
    bound = _bound(s_times := sp.Symbol("s", positive=True) * n * d, kind="upper",
                   regime="sparse", algorithm="block-sparse-flash",
                   conditions=M >= 5 * d + 4)  # fmt: skip
    assert s_times.free_symbols
    (report,) = check([bound], skip=NO_NUMERICS)
    assert all(e.verdict != "refuted" for e in report.evidence if e.check == "z3")
    (report,) = check([bound], skip=("z3", "pebbling"))
    assert report.verdict == "refuted" and _refutation(report, "counting").point["s"]


def test_verdicts_do_not_change_between_runs() -> None:
    """Two runs give the same verdicts, item by item (z3 resource limits, state-limited
    searches, fixed seeds); z3 may pick another counterexample point in a second run in the
    same process, so points are not compared."""
    claims = [_bound(5 * n * d), _bound(4 * n * d, name="other")]
    first = [r.to_dict() for r in check(claims, skip=("counting",))]
    second = [r.to_dict() for r in check(claims, skip=("counting",))]
    strip = lambda rows: [  # noqa: E731
        (r["verdict"], [(e["check"], e["verdict"], e["against"]) for e in r["evidence"]])
        for r in rows
    ]
    assert strip(first) == strip(second)
    json.dumps(first)


def test_check_refuses_what_is_not_a_bound() -> None:
    """Passing something other than a Bound or Claim, or an unknown check, is a ClaimError."""
    with pytest.raises(ClaimError, match=r"pass attnio\.bounds\.Bound"):
        check(["4*n*d"])
    with pytest.raises(ClaimError, match="skip"):
        check([_bound(4 * n * d)], skip=("magic",))


def test_attnio_check_is_the_public_entry() -> None:
    """attnio.check is attnio.claims.check."""
    import attnio

    assert attnio.check is check


@pytest.mark.parametrize(
    "fields",
    [
        {"expression": "sqrt(M - 10) + log(n)"},
        {"kind": "upper", "algorithm": "flash", "expression": "n*d/(M - 12)",
         "conditions": "M >= 5*d + 4"},
    ],
)  # fmt: skip
def test_expressions_undefined_somewhere_are_checked_where_defined(fields) -> None:
    """A pole or a complex value at some points never crashes a check: those points are
    skipped, z3 says unknown where it cannot decide, and real counterexamples still refute."""
    (report,) = check(parse_claims(_toml(**fields)), skip=("pebbling",))
    assert report.verdict == "refuted"
    assert all(e.point is None or "zoo" not in str(e.point) for e in report.evidence)


def test_a_claim_sympy_would_rewrite_is_checked_as_written() -> None:
    """A false lower bound stays unproved when sympy's sign rules would have made it true.

    4nd + 2 sqrt((1/(M n) - 1)^2) is 4nd + 2 - 2/(M n), above the optimum 4nd at large M.
    Bug fixed: the reader let sympy rewrite the square root to 1/(M n) - 1 (its sign rules
    take that to be non-negative), which turned the claim into 4nd - 2 + 2/(M n), a true
    and proved lower bound.
    """
    text = _toml(expression="4*n*d + 2*sqrt((1/(M*n) - 1)**2)")
    (report,) = check(parse_claims(text), skip=NO_NUMERICS)
    assert report.verdict != "consistent-with-catalog"


def test_only_derived_lemmas_make_a_proof() -> None:
    """'proved' rests on derived records only: n^2 d^2 / (100 M) for M >= d^2 follows from
    the derived large-cache bound and the compulsory one together; a claim that follows
    only from a reconstructed record is 'implied-by-catalog', never 'proved'.

    The reconstructed claim is 1.9 n^2 d / sqrt(M) - 2M - n^2, just under the reconstructed
    record's 2 n^2 d / sqrt(M) - 2M - n^2 and above every derived bound at M = d^2 / 4
    (n^2 d / sqrt(M) - 2M - n^2, the claim this test used before, became provable from
    the derived segment bounds of lower-segments.md).
    """
    large = _bound(n**2 * d**2 / (100 * M), cache="large")
    claim = sp.Rational(19, 10) * n**2 * d / sp.sqrt(M) - 2 * M - n**2
    recon = _bound(claim, cache="small", name="recon")
    strong, weak = check([large, recon], skip=NO_NUMERICS)
    assert strong.verdict == "proved", strong.summary
    (item,) = [e for e in strong.evidence if e.check == "proof"]
    assert all(get(name).status is Status.DERIVED for name in item.against.split(", "))
    assert "dense-forward-lower-large-explicit" in item.against
    assert weak.verdict == "implied-by-catalog", weak.summary
    (item,) = [e for e in weak.evidence if e.check == "implication"]
    assert {get(name).status for name in item.against.split(", ")} != {Status.DERIVED}
    # the one-line summary names each non-derived lemma with its level, not only --verbose
    weak_lemmas = [name for name, level in item.lemmas if level != "derived"]
    assert weak_lemmas and weak.summary.startswith("rests on records not derived: ")
    for name in weak_lemmas:
        assert f"{name} ({get(name).status.value})" in weak.summary
    assert "combinatorial lemmas proved by hand" in strong.summary
    assert not weak.windows and not strong.windows  # only for claims neither proved nor refuted


def test_an_implied_verdict_names_its_weak_lemma_in_the_summary() -> None:
    """The summary of implied-by-catalog leads with the records that are not derived and
    their levels (a backward small-cache claim once rested on a reconstructed record and
    only --verbose said so)."""
    from attnio.claims import Evidence

    item = Evidence("implication", "proved", "z3 proved ...", side="lower",
                    against="dense-backward-compulsory, dense-backward-lower-small-explicit",
                    lemmas=(("dense-backward-compulsory", "derived"),
                            ("dense-backward-lower-small-explicit", "reconstructed")))  # fmt: skip
    verdict, summary = verdict_of([item])
    assert verdict == "implied-by-catalog"
    assert summary.startswith(
        "rests on records not derived: dense-backward-lower-small-explicit (reconstructed); "
    )
    assert "dense-backward-compulsory (derived)" not in summary


def test_the_other_verdicts_say_they_are_not_proofs() -> None:
    """Only 'proved' and 'implied-by-catalog' read as proofs; consistent-with-catalog says
    in its summary that it is not one."""
    from attnio.claims import VERDICTS

    assert [v for v in VERDICTS if "proved" in v or "implied" in v] == [
        "proved",
        "implied-by-catalog",
    ]


def test_an_unknown_algorithm_is_refused_from_python_too() -> None:
    """A Bound naming an algorithm attnio does not have is a ClaimError naming the valid ones,
    not a claim whose count check is skipped in silence."""
    bound = _bound(n * d, kind="upper", algorithm="flashattention")
    with pytest.raises(ClaimError, match="is not one of: standard, flash"):
        check([bound], skip=("z3", *NO_NUMERICS))


def test_a_claim_scoped_to_one_cache_size_is_judged_only_there() -> None:
    """An upper bound on FlashAttention-2 for cache = large: the small-cache lower records do
    not meet its scope, and that blocks neither consistent-with-catalog nor the proof
    from flash2's derived count."""
    text = _toml(name="flash2-large", kind="upper", cache="large", algorithm="flash2",
                 expression="4*n*d + n + 4*n**2*d*(5*d + 3)/M", conditions="M >= 5*d + 3")  # fmt: skip
    (report,) = check(parse_claims(text), skip=NO_NUMERICS)
    items = [e for e in report.evidence if e.check == "z3"]
    assert any(e.verdict == "not-applicable" for e in items)
    assert report.verdict == "proved", report.summary
    without_proof = [e for e in report.evidence if e.check != "proof"]
    assert verdict_of(without_proof)[0] == "consistent-with-catalog"


def test_no_refutation_at_a_non_integer_point() -> None:
    """A lower bound huge only for 1 < n < 2 holds at every integer size: z3's real
    relaxation may find n = 3/2, but no check refutes the claim there."""
    text = _toml(expression="Piecewise((10**9, (n > 1) & (n < 2)), (0, True))")
    (report,) = check(parse_claims(text), skip=NO_NUMERICS)
    assert report.verdict != "refuted", report.summary
    for item in report.evidence:
        for value in (item.point or {}).values():
            assert sp.Rational(value).is_integer


def test_a_lower_bound_the_sharp_records_imply_is_proved() -> None:
    """n^2 / M follows from the derived records since the sharp record's n^2 / 2 - M branch
    (2026-11-26) covers what the compulsory I/O does not: proved, not only consistent."""
    (report,) = check([_bound(n**2 / M)], skip=NO_NUMERICS)
    assert report.verdict == "proved" and not report.refutations()


def test_a_claim_names_its_mask_family_and_window() -> None:
    """mask = "window" with window = 1024 joins w == 1024 to the claim's conditions; a
    window without a window or band mask, a mask outside the sparse regime and an unknown
    family are refused naming the field."""
    text = """
[[bound]]
name = "mine"
kind = "lower"
regime = "sparse"
pass = "forward"
mask = "window"
window = 1024
expression = "4*d*n"
source = "test"
"""
    (claim,) = parse_claims(text)
    assert claim.bound.mask == "window" and "w" in claim.bound.parameters
    assert claim.holds_at({"n": 4096, "d": 8, "M": 64, "w": 1024})
    assert not claim.holds_at({"n": 4096, "d": 8, "M": 64, "w": 512})
    for old, new, words in (
        ('mask = "window"', 'mask = "causal"', "field 'window'"),
        ('regime = "sparse"', 'regime = "dense"', "regime 'sparse'"),
        ('mask = "window"', 'mask = "stripes"', "'stripes'"),
    ):
        with pytest.raises(ClaimError, match=words):
            parse_claims(text.replace(old, new))


def test_a_one_line_claim_takes_the_mask_and_window_fields_as_a_file_does() -> None:
    """parse_claim_text(mask=, window=) (attnio check --claim --mask --window) builds the
    same bound as the claims file's mask and window fields, and refuses what they refuse."""
    from attnio.claims import parse_claim_text

    line = parse_claim_text(
        "lower: 4*d*n", regime="sparse", pass_="forward", mask="window", window=1024, name="c"
    )
    (table,) = parse_claims(
        '[[bound]]\nname = "c"\nkind = "lower"\nregime = "sparse"\npass = "forward"\n'
        'mask = "window"\nwindow = 1024\nexpression = "4*d*n"\n'
    )
    assert line.bound.mask == "window" and line.bound.conditions == table.bound.conditions
    assert line.holds_at({"n": 4096, "d": 8, "M": 64, "w": 1024})
    assert not line.holds_at({"n": 4096, "d": 8, "M": 64, "w": 512})
    with pytest.raises(ClaimError, match="field 'window'"):
        parse_claim_text("lower: n", regime="sparse", pass_="forward", mask="causal", window=4)


def test_a_bound_about_one_mask_family_is_compared_only_with_its_family() -> None:
    """A causal-mask lower bound is comparable with the causal counts and with records for
    every mask that need no mask parameter it lacks, never with another family's counts or
    with a block-sparse count in s and Z."""
    (claim,) = parse_claims(
        '[[bound]]\nname = "c"\nkind = "lower"\nregime = "sparse"\npass = "forward"\n'
        'mask = "causal"\nexpression = "2*d*n"\nsource = "test"\n'
    )
    assert claim.bound.comparable(get("causal-row-streaming-forward-count"))
    assert not claim.bound.comparable(get("window-sliding-forward-count"))
    assert not claim.bound.comparable(get("block-sparse-flash-forward-count"))


def test_shape_claims_are_checked_against_the_shape_records() -> None:
    """A claim in n_q, n_kv, h_q, h_kv meets the shape records: reading the KV cache once per
    key/value head is proved a lower bound (from shape-forward-compulsory); twice that is
    not proved (the group-aware schedule reads it once at decode)."""
    from attnio.bounds.symbols import h_kv, n_kv

    (lower,) = check([_bound(2 * d * h_kv * n_kv)], skip=NO_NUMERICS)
    assert lower.verdict == "proved"
    (high,) = check([_bound(4 * d * h_kv * n_kv)], skip=NO_NUMERICS)
    assert high.verdict != "proved"


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"epsilon": "1/10"}, "applies only to regime 'approximate'"),
        ({"regime": "approximate", "epsilon": "-1"}, "'epsilon' = '-1' must be a positive"),
        ({"regime": "approximate", "entry_bound": "n"}, "'entry_bound' = 'n' must be a positive"),
        ({"regime": "approximate", "epsilon": True}, "'epsilon' must be a positive number"),
    ],
)
def test_accuracy_fields_are_checked(fields: dict, match: str) -> None:
    """epsilon and entry_bound apply to approximate claims only and must be positive numbers."""
    with pytest.raises(ClaimError, match=match):
        _claim(**fields)


def test_accuracy_fields_become_conditions() -> None:
    """epsilon = E and entry_bound = X add epsilon <= E and B <= X to the claim's conditions."""
    claim = _claim(regime="approximate", conditions="n >= 2", epsilon="1/1000", entry_bound=0.5)
    assert claim.bound.conditions == sp.And(
        n >= 2, sp.Symbol("epsilon", positive=True) <= sp.Rational(1, 1000),
        sp.Symbol("B", positive=True) <= sp.Rational(1, 2),
    )  # fmt: skip
