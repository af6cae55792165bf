"""Tests of the masked figure (attnio.figures.masks, attnio plot algorithms --mask)."""

from __future__ import annotations

import math

from attnio.bounds import Kind, Status, catalog
from attnio.bounds.masks import make_mask
from attnio.cli import main
from attnio.figures import mask_figure
from attnio.figures.masks import mask_lines


def test_the_lower_line_is_the_maximum_of_the_masks_derived_lower_bounds() -> None:
    """At each M the one lower line is the largest derived lower bound that applies to the
    mask there (its own records and those of no family, evaluated here record by record),
    and names the record attaining it; a bound of another family never counts."""
    mask = make_mask("causal", 256)
    memories = [16, 64, 255, 256, 1024, 8192]
    for pass_ in ("forward", "backward"):
        _, _, line = mask_lines(mask, pass_, 16, memories)
        for k, memory in enumerate(memories):
            point = {"n": 256, "d": 16, "M": memory, **mask.point()}
            values = {}
            for bound in catalog(regime="sparse", pass_=pass_, kind=Kind.LOWER.value):
                used = {p: v for p, v in point.items() if p in bound.parameters}
                if (bound.status is Status.DERIVED and bound.mask in (None, "causal")
                        and set(bound.parameters) <= set(point) and bound.applies(**used)):  # fmt: skip
                    values[bound.name] = float(bound.evaluate(**used))
            top = max(values, key=values.get)
            assert line.attained[k] == top
            assert math.isclose(line.values[k], values[top], rel_tol=1e-12)
        assert any(name.startswith("causal-") for name in line.attained)


def test_closed_forms_and_machine_counts_agree_and_the_cli_draws_them(tmp_path, capsys) -> None:
    """`attnio plot algorithms --mask causal` draws each causal schedule's closed form and its
    two-level machine counts, equal wherever both are drawn, and prints the caption."""
    data = mask_figure(make_mask("causal", 64), "backward", 4, 64, 1024, points=4)
    closed = {s.group: s for s in data.series if s.kind == "closed"}
    measured = [s for s in data.series if s.kind == "measured"]
    assert set(closed) == {"causal-row-streaming", "causal-flash2"} and len(measured) == 2
    compared = 0
    for series in measured:
        line = closed[series.group]
        for memory, value in zip(series.memories, series.values, strict=True):
            if not math.isnan(value):
                assert value == line.values[line.memories.index(memory)]
                compared += 1
    assert compared >= 4
    out = tmp_path / "causal.png"
    argv = ["plot", "algorithms", "--mask", "causal", "--n", "64", "--d", "4", "--sweep",
            "M=64:1024", "--points", "2", "-o", str(out)]  # fmt: skip
    assert main(argv) == 0 and out.stat().st_size > 1000
    assert "Causal row streaming" in capsys.readouterr().out


def test_a_compulsory_only_mask_says_so() -> None:
    """A window figure's only lower bound is the compulsory I/O, and its caption says that
    the gap bounds the distance to optimal; the causal caption does not."""
    window = mask_figure(make_mask("window", 64, w=8), "forward", 4, 64, 1024, measured=False)
    assert "only derived lower bound for this mask is the compulsory I/O" in window.caption()
    causal = mask_figure(make_mask("causal", 64), "forward", 4, 16, 1024, measured=False)
    assert "compulsory" not in causal.caption()
