"""Tests of attnio.proofs.gap: a count over the best derived lower bound at one point."""

from __future__ import annotations

import pytest
import sympy as sp

from attnio.bounds.window import find_window
from attnio.proofs.errors import GapError
from attnio.proofs.gap import describe_gap, measure_gap

POINT = {"n": 65536, "d": 128, "M": 65536}


def test_the_gap_reads_the_one_window_and_stays_inside_its_recorded_constant() -> None:
    """measure_gap's ends are find_window's; at a point inside the tightness table's region
    the ratio is at most the constant z3 proved there (count <= C * max of the derived
    lower bounds), evaluated exactly."""
    gap = measure_gap("dense", "forward", POINT)
    window = find_window("dense", "forward", POINT)
    assert gap.lower == window.lower and gap.upper == window.upper
    assert gap.ratio == gap.upper.value / gap.lower.value and sp.Ge(gap.ratio, 1) is sp.true
    assert gap.interval is not None and gap.interval.count == gap.upper.record
    assert gap.interval_applies
    assert sp.Le(gap.ratio, gap.interval.proved) is sp.true
    text = describe_gap(gap)
    assert "algebra machine-checked; combinatorial lemmas proved by hand" in text
    assert "inside that region" in text


def test_a_point_outside_the_recorded_region_says_so() -> None:
    """n = 32, d = 2, M = 30 is below 4 times row streaming's least M: the interval is shown
    as not applying there."""
    gap = measure_gap("dense", "forward", {"n": 32, "d": 2, "M": 30})
    assert gap.interval is not None and not gap.interval_applies
    assert "outside that region" in describe_gap(gap)


def test_a_user_count_replaces_the_best_schedule() -> None:
    """--count: the user's expression evaluated exactly; no recorded constant; a count below
    the best derived lower bound is flagged."""
    gap = measure_gap("dense", "forward", POINT, count="4*n*d + 2*n**2*d**2/M")
    assert (
        gap.upper.record == "--count"
        and gap.upper.value == 4 * 65536 * 128 + 2 * 65536**2 * 128**2 // 65536
    )
    assert gap.interval is None and gap.to_dict()["upper"]["expression"].startswith("4*n*d")
    low = measure_gap("dense", "forward", POINT, count="n*d")
    assert sp.Lt(low.ratio, 1) is sp.true and "below the best derived lower bound" in describe_gap(
        low
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"regime": "sparse"}, "needs --mask"),
        ({"regime": "sparse", "mask": "window", "window": 65537}, "window=65537 does not fit"),
        ({"regime": "sparse", "mask": "window"}, "needs --window"),
        ({"regime": "sparse", "mask": "stripes"}, "stripes"),
        ({"regime": "approximate", "method": "taylor"}, "--method 'taylor' is not one of"),
        ({"regime": "approximate", "degree": 0}, "--degree 0 must be a positive integer"),
        ({"method": "polynomial"}, "apply to --regime approximate only"),
        ({"regime": "quantum"}, "is not one of: dense, sparse, approximate"),
        ({"mask": "causal"}, "--mask causal applies to --regime sparse"),
        ({"window": 8}, "--window 8 applies to --regime sparse"),
        ({"point": {"n": 4, "d": 64, "M": 2}}, "no schedule of attnio runs"),
        ({"point": {"n": 0, "d": 64, "M": 64}}, "--n 0 must be a positive integer"),
        ({"count": "q*n"}, "unknown symbol 'q'"),
        ({"count": "n - d*M"}, "must be a positive finite number"),
        ({"count": "Z*n"}, "uses Z"),
    ],
)
def test_bad_input_is_one_error_naming_it(kwargs: dict, match: str) -> None:
    """Regimes and masks not covered yet, points where nothing runs, nonpositive sizes and
    bad counts are a GapError (a ValueError: one line, exit 2 at the command line)."""
    args = {"regime": "dense", "point": POINT} | kwargs
    with pytest.raises(GapError, match=match):
        measure_gap(args.pop("regime"), "forward", args.pop("point"), constant=False, **args)


SPARSE = [
    (mask, window, pass_, point)
    for mask, window in (("causal", None), ("window", 1024))
    for pass_ in ("forward", "backward")
    for point in ({"n": 65536, "d": 64, "M": 4096}, {"n": 65536, "d": 256, "M": 16 * 256**2})
]


@pytest.mark.parametrize(("mask", "window", "pass_", "point"), SPARSE)
def test_a_masked_gap_reads_its_family_at_its_z(mask, window, pass_, point) -> None:
    """--regime sparse with a mask: the point gains the mask's Z (and w), the best schedule
    is a derived count of that family, the lower end is the compulsory I/O or, for the
    causal mask and (at M >= d^2) the window, one of its pair bounds (causal-lower.md), and
    the ratio is at least 1 (both ends derived); no constant interval is recorded."""
    gap = measure_gap("sparse", pass_, point, mask=mask, window=window)
    z = 65536 * 65537 // 2 if mask == "causal" else 1024 * 65536 - 1024 * 1023 // 2
    assert gap.point["Z"] == z and gap.point.get("w") == window
    pairs = mask == "causal" or point["M"] >= point["d"] ** 2
    assert gap.lower.record == f"sparse-{pass_}-compulsory" or (
        pairs and gap.lower.record.startswith(f"{mask}-{pass_}-lower-")
    )
    assert gap.upper.record.startswith(f"{mask}-") and gap.upper.record.endswith("-count")
    assert sp.Ge(gap.ratio, 1) is sp.true and gap.interval is None
    payload = gap.to_dict()
    assert payload["mask"] == {"family": mask, "spec": gap.mask.spec, "Z": z, "w": window}
    assert "causal-lower.md" in payload["note"] and "causal-lower.md" in describe_gap(gap)


def test_a_masked_user_count_may_use_z_and_w() -> None:
    """--count with a mask is evaluated at the mask's Z and w."""
    gap = measure_gap("sparse", "forward", POINT, mask="window", window=1024, count="Z*d + w")
    z = 1024 * 65536 - 1024 * 1023 // 2
    assert gap.upper.value == z * 128 + 1024


@pytest.mark.parametrize("pass_", ["forward", "backward"])
def test_approximate_gap_is_the_low_rank_count_over_the_graph_compulsory(pass_: str) -> None:
    """--regime approximate, polynomial, degree 2: the point gains r = C(d + 2, 2); the upper
    end is the low-rank count (4nd forward, 9nd backward when [W | w] fits) and the lower the
    compulsory I/O of the method's graph (4nd, 7nd); blocked (d = 32, M = 4096), the best
    count is the column-blocked schedule's and the ratio exceeds 3, and the note says the
    bounds are the method's graphs', not every epsilon-approximation algorithm's."""
    resident = measure_gap("approximate", pass_, {"n": 65536, "d": 16, "M": 65536}, degree=2)
    n, d = 65536, 16
    assert resident.point["r"] == 153 and resident.method["degree"] == 2
    assert resident.upper.record == f"low-rank-{pass_}-count"
    assert resident.lower.record == f"polynomial-{pass_}-compulsory"
    want = (4 * n * d, 4 * n * d) if pass_ == "forward" else (9 * n * d, 7 * n * d)
    assert (resident.upper.value, resident.lower.value) == want
    blocked = measure_gap("approximate", pass_, {"n": n, "d": 32, "M": 4096}, degree=2)
    assert blocked.upper.record == f"low-rank-columns-{pass_}-count"
    note = describe_gap(blocked)
    assert blocked.ratio > 3 and "the compulsory I/O" in note
    assert "not every epsilon-approximation algorithm" in note


def test_approximate_gap_shows_the_tables_constant_where_w_fits_and_says_none_below() -> None:
    """Where W fits (M >= r d) the approximate gap carries the approximate tightness rows'
    recorded constant for its best schedule, its region naming r, the point inside it;
    below r d it has no interval and says that no constant exists there."""
    from attnio.proofs.approximate_tightness import approximate_rows

    point = {"n": 65536, "d": 32, "M": 65536}
    fits = measure_gap("approximate", "backward", point, degree=2)
    row = next(r for r in approximate_rows(2, 65536, (32,)) if r.pass_ == "backward"
               and r.point["M"] == 65536 and r.count.record == fits.upper.record)  # fmt: skip
    assert fits.interval.proved == row.constant and fits.interval_applies
    assert "r <= n" in fits.to_dict()["constant"]["region"]
    assert f"<= {row.constant} * max(every derived lower bound at M)" in describe_gap(fits)
    below = measure_gap("approximate", "backward", {**point, "M": 4096}, degree=2)
    assert below.interval is None
    assert "none exists for M < r d" in describe_gap(below)


def test_a_schedules_lower_bound_is_read_at_m_plus_its_red_pebbles() -> None:
    """Score-panel's pebbling uses M + 4 red pebbles (EXTRA_RED), so at n = 4096, d = 64,
    M = 2000 its count is divided by the best derived lower bound at M = 2004, which is
    below the one at M: the ratio is larger than the one read at M (the bug: every ratio
    read the bound at M). JSON and text say where the bound is read; each other schedule's
    ratio uses the bound at M + its own c."""
    from attnio.bounds.pebblings import extra_red

    point = {"n": 4096, "d": 64, "M": 2000}
    gap = measure_gap("dense", "forward", point, constant=False)
    assert gap.upper.algorithm == "score-panel" and gap.extra_red == 4 == gap.lower_m - 2000
    assert gap.lower == find_window("dense", "forward", {**point, "M": 2004}).lower
    at_m = find_window("dense", "forward", point).lower
    assert sp.Lt(gap.lower.value, at_m.value) is sp.true
    assert sp.Gt(gap.ratio, gap.upper.value / at_m.value) is sp.true
    payload = gap.to_dict()
    assert payload["lower"]["M"] == 2004 and payload["lower"]["extra_red"] == 4
    assert "read at M + 4 = 2,004" in describe_gap(gap)
    for count, low, extra in gap.others:
        assert extra == extra_red(count.algorithm, "forward")
        raised = {**point, "M": 2000 + (extra or 0)}
        assert low == find_window("dense", "forward", raised).lower, count.algorithm


def test_a_user_count_reads_the_bound_at_m() -> None:
    """--count names no pebbling: the bound is read at M, and the text and JSON say so."""
    gap = measure_gap("dense", "forward", {"n": 4096, "d": 64, "M": 2000}, count="n*d*64")
    assert gap.extra_red is None and gap.lower_m == 2000
    assert gap.to_dict()["lower"]["M"] == 2000
    assert "read at M: your count names no pebbling" in describe_gap(gap)
