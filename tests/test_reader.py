"""Tests of attnio.bounds.reader: catalogs as TOML, validated with one-line errors."""

from __future__ import annotations

import json
from importlib import resources

import pytest
import sympy as sp

from attnio.bounds import RecordError, catalog
from attnio.bounds.errors import CatalogFileError
from attnio.bounds.reader import parse_catalog, read_catalog
from attnio.bounds.symbols import M, d, n

MINE = {
    "name": "my-forward-lower",
    "label": "My lower bound",
    "kind": "lower",
    "regime": "dense",
    "pass": "forward",
    "cache": "large",
    "status": "stated",
    "asymptotic": "n**2*d**2/M",
    "expression": "n**2*d**2/(8*M) - M",
    "conditions": "M >= d**2",
    "source": "SY24 Lemma 3.4",
}


def _toml(*tables: dict) -> str:
    lines = []
    for table in tables:
        lines.append("[[bound]]")
        lines += [
            f"{key} = {json.dumps(value)}" for key, value in table.items() if value is not None
        ]
    return "\n".join(lines) + "\n"


def test_a_table_becomes_the_record_it_describes() -> None:
    """Every field of a [[bound]] table lands in its record, expressions parsed exactly."""
    (record,) = parse_catalog(_toml(MINE))
    assert record.name == "my-forward-lower" and record.label == "My lower bound"
    assert (record.kind.value, record.regime.value, record.pass_.value) == (
        "lower",
        "dense",
        "forward",
    )
    assert record.explicit == n**2 * d**2 / (8 * M) - M
    assert record.conditions == (M >= d**2) and record.asymptotic == n**2 * d**2 / M
    assert record.notes == "" and record.algorithm is None


def test_the_shipped_file_is_the_catalog() -> None:
    """Reading the packaged catalog.toml again gives exactly the records of catalog()."""
    resource = resources.files("attnio.bounds").joinpath("catalog.toml")
    with resources.as_file(resource) as path:
        assert read_catalog(path) == catalog()


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"kind": "lowr"}, "bound 'my-forward-lower': field 'kind' = 'lowr' is not one of"),
        ({"status": None}, r"bound 'my-forward-lower': missing field\(s\) \['status'\]"),
        ({"colour": "red"}, r"unknown field\(s\) \['colour'\]"),
        ({"expression": "n*q"}, "bound 'my-forward-lower': field 'expression': unknown symbol"),
        ({"conditions": "1 > 2"}, "field 'conditions': '1 > 2' admits no point"),
        ({"algorithm": "flash"}, "field 'algorithm' names the algorithm of an upper bound"),
        ({"notes": 3}, "field 'notes' must be a string"),
        ({"status": "open"}, "bound 'my-forward-lower': an 'open' record carries no expression"),
        ({"name": ""}, r"\[\[bound\]\] number 1: field 'name'"),
        ({"source_range": "1 > 2"}, "field 'source_range': '1 > 2' admits no point"),
        ({"source_range": "q <= M"}, "field 'source_range': unknown symbol"),
        ({"source_range": "d <= M", "status": "derived"}, "status 'derived' quotes no paper"),
    ],
)
def test_errors_name_file_record_and_field(change: dict, match: str) -> None:
    """A bad field is one line naming the catalog file, the record and the field."""
    with pytest.raises(RecordError, match=match) as info:
        parse_catalog(_toml({**MINE, **change}), source="mine.toml")
    assert str(info.value).startswith("catalog file 'mine.toml': ")
    assert "\n" not in str(info.value)


def test_file_level_errors_name_the_file(tmp_path) -> None:
    """Duplicate names, dangling reduces_to, no table, bad TOML, a missing file: each names it."""
    cases = [
        (_toml(MINE, MINE), "two records are named 'my-forward-lower'"),
        (
            _toml({**MINE, "reduces_to": "nowhere"}),
            "field 'reduces_to' = 'nowhere' names no record",
        ),
        ("", r"has no \[\[bound\]\] table"),
        ("[[bound]\n", "is not valid TOML"),
        ("title = 'x'\n", "unknown top-level key"),
    ]
    for text, match in cases:
        with pytest.raises(CatalogFileError, match=match):
            parse_catalog(text, source="mine.toml")
    with pytest.raises(CatalogFileError, match=r"nope\.toml"):
        read_catalog(tmp_path / "nope.toml")


def test_defaults_of_a_catalog_record() -> None:
    """Left out: cache any, conditions always, no label, notes empty, no expressions."""
    table = {k: v for k, v in MINE.items() if k not in ("cache", "conditions", "label")}
    table["status"], table["expression"] = "reconstructed", None
    (record,) = parse_catalog(_toml(table))
    assert record.cache.value == "any" and record.conditions is sp.true
    assert record.label == "" and record.explicit is None


def test_the_docs_example_is_a_valid_record() -> None:
    """The ten lines of TOML that docs/catalog.md shows read as the catalog record they copy
    (all but its notes, which the example leaves out)."""
    import dataclasses
    import pathlib
    import re

    page = pathlib.Path(__file__).resolve().parents[1] / "docs" / "catalog.md"
    (block,) = re.findall(r"```toml\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)
    (record,) = parse_catalog(block)
    original = next(b for b in catalog() if b.name == record.name)
    assert record.notes == "" and dataclasses.replace(record, notes=original.notes) == original


def test_the_source_range_is_read_as_a_relation() -> None:
    """source_range (the range the cited statement is made for) is parsed like conditions;
    a record without it has None."""
    (record,) = parse_catalog(_toml({**MINE, "source_range": "d <= M and M <= d*n"}))
    assert record.source_range == sp.And(d <= M, M <= d * n)
    assert parse_catalog(_toml(MINE))[0].source_range is None


def test_a_claim_may_not_give_a_source_range() -> None:
    """A user's claim quotes no paper: source_range in a claims file is an unknown field."""
    from attnio.claims import ClaimError, parse_claims

    text = _toml({"name": "c", "kind": "lower", "regime": "dense", "pass": "forward",
                  "expression": "n*d", "source_range": "d <= M"})  # fmt: skip
    with pytest.raises(ClaimError, match="unknown field"):
        parse_claims(text)
