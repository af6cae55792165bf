"""Tests of attnio.claims.window: a claim's value between the best derived lower bound and
the best count, at sampled points of its scope."""

from __future__ import annotations

import sympy as sp

from attnio.bounds.symbols import M, d, n
from attnio.bounds.window import find_window
from attnio.claims import parse_claim_text
from attnio.claims.window import claim_window


def test_each_sample_lies_in_the_scope_and_reads_the_one_window() -> None:
    """A large-cache lower claim is sampled only where M >= d^2 and n >= d, and each
    sample's ends are find_window's at that point; the one-line summary names both records
    and the ratio ranges."""
    claim = parse_claim_text("lower: 3*n**2*d**2/M", regime="dense", pass_="forward",
                             cache="large", conditions="n >= d")  # fmt: skip
    (window,) = claim_window(claim)
    assert window.side == "lower" and window.samples
    for sample in window.samples:
        p = sample.point
        assert p["M"] >= p["d"] ** 2 and p["n"] >= p["d"]
        at = find_window("dense", "forward", p)
        assert (sample.lower, sample.upper) == (at.lower, at.upper)
        assert sample.claim == (3 * n**2 * d**2 / M).subs({n: p["n"], d: p["d"], M: p["M"]})
    shown = window.shown
    assert (
        sp.Le(shown.upper.value / shown.claim, min(s.upper.value / s.claim for s in window.samples))
        is sp.true
    )  # the tightest sample
    text = window.summary
    assert shown.lower.record in text and shown.upper.record in text
    assert "claim / best derived lower from" in text and "best count / claim from" in text
    payload = window.to_dict()
    assert payload["side"] == "lower" and len(payload["samples"]) == len(window.samples)
    assert payload["claim_over_lower"][0] <= payload["claim_over_lower"][1]


def test_a_tight_claim_gets_a_window_per_side() -> None:
    """A tight claim has a lower side E / C and an upper side C E: one window each."""
    claim = parse_claim_text("tight: n**2*d**2/M", regime="dense", pass_="forward",
                             cache="large", constant=4)  # fmt: skip
    assert [w.side for w in claim_window(claim)] == ["lower", "upper"]


def test_claims_in_other_symbols_get_no_window() -> None:
    """A sparse claim in Z is not sampled (no point of n, d and M alone decides it)."""
    claim = parse_claim_text("lower: Z*d", regime="sparse", pass_="forward")
    assert claim_window(claim) == []


def test_check_gives_windows_only_when_asked_and_only_to_undecided_claims() -> None:
    """check() gives a claim judged only by closed forms ('consistent') its window, one per
    side, and none with windows=False (attnio verify's catalog check asks for none)."""
    from attnio.claims import check

    claim = parse_claim_text("lower: 2*n*d", regime="dense", pass_="forward")
    fast = {"skip": ("z3", "pebbling"), "machine_runs": False}
    (report,) = check([claim], **fast)
    assert report.verdict == "consistent", report.summary
    assert [w.side for w in report.windows] == ["lower"]
    (quiet,) = check([claim], windows=False, **fast)
    assert quiet.verdict == "consistent" and quiet.windows == ()
