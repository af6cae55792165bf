"""Tests of attnio.bounds.citations: every source maps to BibTeX keys that the shipped .bib defines."""

from __future__ import annotations

import re

import pytest

from attnio.bounds import Bound, RecordError, catalog, get
from attnio.bounds.citations import (
    ATTNIO_KEY,
    KEYS,
    NO_SOURCE,
    Citation,
    bibliography,
    bibtex,
    citations,
    cite_latex,
    entries,
)


def test_every_record_source_maps_to_known_keys() -> None:
    """Every record cites at least one key with a BibTeX entry, unless it says nothing is published."""
    known = set(entries())
    for bound in catalog():
        cites = citations(bound)
        assert cites or bound.source in NO_SOURCE, bound.name
        assert {c.key for c in cites} <= known, bound.name


def test_every_short_name_and_attnio_have_an_entry() -> None:
    """The .bib defines every paper short name's key and attnio's own, each once."""
    keys = re.findall(r"^@\w+\{([^,]+),", bibtex(), flags=re.M)
    assert len(keys) == len(set(keys))
    assert set(KEYS.values()) | {ATTNIO_KEY} == set(keys)


def test_attnio_derivations_cite_attnio() -> None:
    """A record derived in attnio's own derivations cites attnio."""
    assert Citation(ATTNIO_KEY) in citations(get("dense-forward-lower-large-explicit"))
    assert citations(get("dense-forward-tight")) == (Citation("saha2024io", "Thm. 3.1"),)


def test_unknown_short_name_is_refused() -> None:
    """A source naming a paper without a BibTeX key raises RecordError naming it."""
    record = get("dense-forward-tight")
    fake = Bound(**{**_fields(record), "source": "XY99 Thm 1"})
    with pytest.raises(RecordError, match="XY99"):
        citations(fake)


def test_locators_are_tied_and_bare_keys_share_a_cite() -> None:
    """Locators become \\cite[Thm.~3.7]{...}; works without locators share one \\cite."""
    assert cite_latex(get("dense-forward-lower-small-explicit")) == (
        r"\cite[Thm.~3.7]{saha2024io}, \cite{smith2017tight,attnio}"
    )
    assert cite_latex(get("sparse-backward-upper")) == "--"


def test_bibliography_selects_entries() -> None:
    """bibliography() returns exactly the requested entries and refuses unknown keys."""
    text = bibliography(["attnio", "saha2024io"])
    assert re.findall(r"^@\w+\{([^,]+),", text, flags=re.M) == ["saha2024io", "attnio"]
    with pytest.raises(RecordError, match="nokey"):
        bibliography(["nokey"])


def _fields(bound: Bound) -> dict:
    return {
        "name": bound.name,
        "kind": bound.kind,
        "regime": bound.regime,
        "pass_": bound.pass_,
        "cache": bound.cache,
        "asymptotic": bound.asymptotic,
        "explicit": bound.explicit,
        "conditions": bound.conditions,
        "source": bound.source,
        "status": bound.status,
    }


_ACCENTS = {r"{\'a}": "á", r"{\'e}": "é", r"{\"o}": "ö"}


def _bib_families(entry: str) -> list[str]:
    """The family names of a BibTeX entry's authors, in order, accents decoded."""
    authors = re.search(r"author\s*=\s*\{(.*)\},\n", entry).group(1)
    for code, letter in _ACCENTS.items():
        authors = authors.replace(code, letter)
    return [name.split(",")[0].strip() for name in authors.split(" and ")]


def test_docs_references_name_the_bib_authors() -> None:
    """docs/references.md lists, for every short name, the same authors in the same order as
    the shipped references.bib (each name ends with the bib's family name)."""
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "references.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (\w+) \| (.+) \|$", text, flags=re.MULTILINE))
    every = entries()
    checked = 0
    for short, key in KEYS.items():
        if short not in rows:
            continue
        names = re.split(r",\s*(?:and\s+)?|\s+and\s+", rows[short].split('. "')[0])
        families = _bib_families(every[key])
        assert len(names) == len(families), (short, names, families)
        assert all(n.endswith(f) for n, f in zip(names, families, strict=True)), (short, names)
        checked += 1
    assert checked >= 10 and "LLSSZ24" in rows


def test_bib_entry_names_version_commit_and_derivation_files(tmp_path) -> None:
    """The attnio entry that --bib writes names the package version, the commit the code
    runs from (git's, in this checkout), and each derivation file of the rows; beside it
    the other entries are the shipped ones."""
    import subprocess

    from attnio.bounds.citations import bibtex_for, commit, version

    rows = [get("dense-forward-lower-large-accumulators"), get("dense-forward-compulsory")]
    text = bibtex_for(rows)
    entry = entries()  # the shipped file, unchanged
    assert set(re.findall(r"^@\w+\{([^,]+),", text, flags=re.M)) == set(entry)
    attnio = text[text.index("@misc{attnio,") :].split("\n}\n")[0]
    assert f"version {version()}" in attnio and version() != "unknown"
    assert r"proofs\slash derivations\slash lower-accumulators.md" in attnio
    assert "compulsory.md" in attnio and "lower-sharp.md" not in attnio
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True, check=False).stdout.strip()  # fmt: skip
    if head:
        assert commit().split("+")[0] == head and commit() in attnio


def test_commit_is_unknown_outside_its_own_checkout(tmp_path) -> None:
    """A package folder inside some other git repository (a virtual environment within
    another project) gets commit 'unknown', never that repository's commit."""
    import subprocess

    from attnio.bounds.citations import commit_of

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    package = tmp_path / "venv" / "site-packages" / "bounds"
    package.mkdir(parents=True)
    (package / "catalog.toml").write_text("")
    assert commit_of(package) == "unknown"
    assert commit_of(tmp_path / "nowhere" / "bounds") == "unknown"
