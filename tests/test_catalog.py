"""Tests of attnio.bounds.catalog: coverage, filtering, lookup and evidence labels."""

from __future__ import annotations

import pathlib

import pytest

from attnio.bounds import (
    Cache,
    FilterError,
    Kind,
    Regime,
    Status,
    UnknownBoundError,
    catalog,
    get,
)
from attnio.bounds.catalog import cells
from attnio.bounds.consistency import grid

REPO = pathlib.Path(__file__).resolve().parents[1]


def test_names_are_unique_and_hyphenated() -> None:
    """Every record has a unique lowercase hyphenated name."""
    names = [b.name for b in catalog()]
    assert len(names) == len(set(names))
    assert all(name == name.lower() and " " not in name and "_" not in name for name in names)


def test_every_cell_has_a_lower_and_an_upper_record() -> None:
    """Each regime x pass x {small, large} cell has a lower (or tight) and an upper (or tight) record."""
    for regime, pass_, cache in cells():
        here = catalog(regime=regime, pass_=pass_, cache=cache)
        assert any(b.kind in (Kind.LOWER, Kind.TIGHT) for b in here), (regime, pass_, cache)
        assert any(b.kind in (Kind.UPPER, Kind.TIGHT) for b in here), (regime, pass_, cache)


def test_required_algorithm_upper_bounds_are_present() -> None:
    """The per-algorithm upper bounds attnio implements all have records in the catalog."""
    for name in (
        "standard-forward-upper",
        "flash-forward-upper",
        "flash-backward-upper",
        "square-tiling-forward-upper",
        "small-cache-backward-upper",
        "block-sparse-flash-forward-upper",
        "low-rank-forward-upper",
        "dense-forward-compulsory",
        "dense-backward-compulsory",
    ):
        assert get(name).kind is Kind.UPPER or "compulsory" in name


def test_cache_filter_includes_any_records() -> None:
    """Filtering on a small or large cache also returns the records that apply to any cache."""
    small = catalog(regime="dense", pass_="forward", cache="small")
    assert {b.cache for b in small} == {Cache.SMALL, Cache.ANY}
    assert all(b.cache is Cache.ANY for b in catalog(cache="any"))


def test_filters_combine() -> None:
    """Every returned record matches every given filter."""
    found = catalog(regime="sparse", pass_="backward", kind="lower")
    assert found
    assert all(b.regime is Regime.SPARSE and b.kind is Kind.LOWER for b in found)
    assert catalog(status="stated-secondary")
    assert all(b.status is Status.STATED_SECONDARY for b in catalog(status="stated-secondary"))


@pytest.mark.parametrize("name", ["regime", "pass_", "cache", "kind", "status"])
def test_unknown_filter_values_are_refused(name: str) -> None:
    """A filter value outside its choices raises FilterError listing the valid ones."""
    with pytest.raises(FilterError, match="is not one of"):
        catalog(**{name: "nonsense"})


def test_unknown_names_suggest_close_ones() -> None:
    """get() of an unknown name raises UnknownBoundError with close suggestions."""
    with pytest.raises(UnknownBoundError, match="did you mean dense-forward-tight"):
        get("dense-forward-tigth")


def test_statuses_cite_their_evidence() -> None:
    """Stated records cite a theorem, lemma, proposition or abstract; derived ones a derivation or module."""
    for bound in catalog():
        if bound.status in (Status.STATED, Status.STATED_SECONDARY):
            assert any(
                word in bound.source for word in ("Thm", "Lemma", "Prop", "abstract", "Alg")
            ), bound.name
        if bound.status is Status.DERIVED:
            assert "derivations/" in bound.source or "attnio." in bound.source, bound.name
        if bound.status in (Status.OPEN, Status.CLAIMED_UNRETRIEVED):
            assert bound.notes, f"{bound.name} must say why nothing is known"


def test_cited_derivations_exist() -> None:
    """Every derivation file a record cites exists in proofs/derivations."""
    for bound in catalog():
        for word in bound.source.replace(";", " ").split():
            if word.startswith("proofs/derivations/"):
                assert (REPO / word.rstrip(".,:;")).is_file(), f"{bound.name} cites {word}"


def test_nothing_reconstructed_is_labelled_stated() -> None:
    """The reconstructed explicit-constant candidates are never labelled stated."""
    for name in ("dense-forward-lower-large-explicit", "dense-forward-lower-small-explicit"):
        assert get(name).status in (Status.RECONSTRUCTED, Status.DERIVED)
    assert get("sparse-forward-lower-inputs").status is Status.RECONSTRUCTED
    assert get("dense-backward-tight").status is Status.STATED_SECONDARY


def test_explicit_lower_bounds_match_their_asymptotic_shape() -> None:
    """For large n, an explicit lower bound is a positive constant fraction of its asymptotic form."""
    checked = 0
    for bound in catalog(kind="lower"):
        if bound.explicit is None:
            continue
        for point in grid():
            point = dict(point, n=2**20, Z=2**40, n_q=2**20, n_kv=2**20)  # large n, every shape
            params = {k: point[k] for k in bound.parameters}
            if not bound.applies(**params):
                continue
            ratio = bound.evaluate(**params) / bound.evaluate(which="asymptotic", **params)
            assert 0 < ratio <= 16, (bound.name, params, ratio)
            checked += 1
    assert checked > 50


# ------------------------------------------------------------------ the snapshot

SNAPSHOT = pathlib.Path(__file__).resolve().parent / "baseline" / "catalog_snapshot.json"
"""Every record's fields as they were when the catalog was still typed in Python (issue 24).

A deliberate change of a record changes this file too: ``python tests/test_catalog.py``
rewrites it from the loaded catalog, and the diff shows what changed."""


def snapshot_rows() -> list[dict]:
    """Every field of every record, expressions as ``srepr`` (exact sympy structure)."""
    import sympy as sp

    from attnio.bounds.citations import citations
    from attnio.bounds.labels import label

    def srepr(expr: object) -> str | None:
        return None if expr is None else sp.srepr(expr)

    return [
        {
            "name": b.name,
            "kind": b.kind.value,
            "regime": b.regime.value,
            "pass": b.pass_.value,
            "cache": b.cache.value,
            "status": b.status.value,
            "asymptotic": srepr(b.asymptotic),
            "explicit": srepr(b.explicit),
            "conditions": srepr(b.conditions),
            "source": b.source,
            "citations": [[c.key, c.locator] for c in citations(b)],
            "algorithm": b.algorithm,
            "notes": b.notes,
            "reduces_to": b.reduces_to,
            "parameters": list(b.parameters),
            "label": label(b),
            "notation": b.notation,
            # only where given, so records without one keep their snapshot rows
            **({} if b.source_range is None else {"source_range": srepr(b.source_range)}),
            **({} if b.mask is None else {"mask": b.mask}),
        }
        for b in catalog()
    ]


SHAPE_SYMBOLS = frozenset({"n_q", "n_kv", "h_q", "h_kv"})
"""The symbols of the shape records (n_q x n_kv, grouped-query heads), added after the snapshot."""


def test_catalog_equals_the_snapshot_record_by_record() -> None:
    """The loaded catalog, without the records written in the shape symbols, has the
    snapshot's records, in its order, each with the same expressions (same sympy structure), conditions, source, citations, evidence, notes,
    algorithm, label and every other field."""
    import json

    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))["records"]
    # records in the shape symbols are additions; every other record is unchanged
    loaded = [row for row in snapshot_rows() if not set(row["parameters"]) & SHAPE_SYMBOLS]
    assert [r["name"] for r in loaded] == [r["name"] for r in expected]
    for now, before in zip(loaded, expected, strict=True):
        for field in before:
            assert now[field] == before[field], f"record {before['name']!r}: field {field!r}"
        assert set(now) == set(before), before["name"]


def test_shape_records_are_the_only_additions() -> None:
    """The records beyond the snapshot are written in a shape symbol, and some exist (the
    filter above is not vacuous): the square single-head records are exactly the snapshot's."""
    import json

    expected = {r["name"] for r in json.loads(SNAPSHOT.read_text(encoding="utf-8"))["records"]}
    added = [row for row in snapshot_rows() if row["name"] not in expected]
    assert added and all(set(row["parameters"]) & SHAPE_SYMBOLS for row in added)


if __name__ == "__main__":  # rewrite the snapshot after a deliberate change of the catalog
    import json

    document = {"records": [r for r in snapshot_rows() if not set(r["parameters"]) & SHAPE_SYMBOLS]}
    SNAPSHOT.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def test_llssz24_backward_small_cache_bounds_need_n_at_least_d() -> None:
    """LLSSZ24's backward small-cache Omega((n^2 d + n d^2)/sqrt(M)) fails for n < d in
    attnio's FlashAttention-2 model: at n = 1, M = 16 the derived tiled-backward count over
    that term tends to 0 as d grows. The records say n >= d below d^2, and do not apply at
    those points."""
    import itertools

    from attnio.bounds.symbols import M, d, n

    term = get("dense-backward-lower-small").asymptotic
    count = get("tiled-backward-count")
    ratios = [
        count.evaluate(n=1, d=size, M=16) / term.subs({n: 1, d: size, M: 16})
        for size in (64, 256, 1024, 4096)
    ]
    assert all(later < earlier / 3 for earlier, later in itertools.pairwise(ratios))
    for name in ("dense-backward-lower-small", "dense-backward-tight"):
        record = get(name)
        assert not record.applies(n=1, d=64, M=16), name
        assert record.applies(n=64, d=64, M=16), name
        assert "n >= d" in record.notes
