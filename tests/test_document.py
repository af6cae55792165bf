"""Tests of attnio.proofs.document: the tables of a derivation file become obligations."""

from __future__ import annotations

import pytest
import sympy as sp

from attnio.bounds import get
from attnio.bounds.symbols import M, d, n
from attnio.proofs.document import read_derivations
from attnio.proofs.errors import DerivationFileError

_FILE = """# Demo

| variable | domain | symbol |
|---|---|---|
| `IO` | nonnegative | `io` |
| `k` | positive integer | |

| term | expression |
|---|---|
| `bound` | `n**2*d**2/(8*M) - M` |

| step | hypotheses | conclusion | statement |
|---|---|---|---|
| `auto` | `IO >= bound` | `IO >= record(dense-forward-lower-large-explicit)` | \\|I\\| words |
| `written` | `IO >= bound; M >= d**2` | `IO >= record(dense-forward-lower-large-explicit)` | |
| `domain` | `k >= 0; IO >= k` | `IO >= 0` | |

| lemma | status | statement |
|---|---|---|
| counting | gap | not checked by anyone |
"""


def _read(tmp_path, text: str):
    path = tmp_path / "demo.md"
    path.write_text(text, encoding="utf-8")
    return read_derivations(path)


def test_a_record_step_reads_the_catalog_and_its_conditions_once(tmp_path) -> None:
    """record(NAME) is the record's explicit expression; its conditions are added to the
    hypotheses when they are not written there, and not twice when they are. A term stands
    for its expression; the symbol column names the sympy symbol."""
    [derivation] = _read(tmp_path, _FILE)
    record = get("dense-forward-lower-large-explicit")
    auto, written, _ = derivation.steps
    io = sp.Symbol("io", nonnegative=True)
    assert auto.name == "derivation/demo/auto" and auto.claim.rhs == record.explicit
    assert auto.assumptions == (io >= n**2 * d**2 / (8 * M) - M, record.conditions)
    assert written.assumptions == (io >= n**2 * d**2 / (8 * M) - M, M >= d**2)
    assert auto.sources == ("demo.md", record.name) and auto.statement == "|I| words"
    assert derivation.records == (record.name,)


def test_a_hypothesis_its_domains_decide_is_true_and_a_gap_makes_it_incomplete(tmp_path):
    """k >= 0 for a positive integer k is decided True by the domains (as the relation
    operators of the former Python builders made it); a lemma with status gap makes the
    derivation incomplete, and the lemma is listed with its status."""
    [derivation] = _read(tmp_path, _FILE)
    assert derivation.steps[2].assumptions[0] is sp.true
    assert not derivation.complete
    assert derivation.unchecked == ("counting (gap): not checked by anyone",)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (("| nonnegative |", "| natural |"), "line 5, column 'domain'"),
        (("IO >= k`", "IO >= j`"), "line 16, column 'hypotheses'"),
        (("`IO >= 0` |", "`IO >= 0 >= k` |"), "line 16, column 'conclusion'"),
        (("`k >= 0; ", "`k < 0; "), "line 16, column 'hypotheses'"),
        (("| `domain` | `k", "| `domain` | extra | `k"), "line 16, column 'statement'"),
        (("| `domain` |", "| `auto` |"), "line 16, column 'step'"),
        (("| `bound` |", "| `n` |"), "line 10, column 'term'"),
    ],
)
def test_malformed_cells_name_their_line_and_column(tmp_path, change, where) -> None:
    """An unknown domain, an undeclared name, a conclusion that is not one relation, a
    hypothesis that never holds, a row with too many cells, a step named twice and a term
    named like a catalog symbol (which would replace it everywhere) are refused, naming the
    file's line and the table's column."""
    with pytest.raises(DerivationFileError, match=where):
        _read(tmp_path, _FILE.replace(*change))


def test_a_table_in_a_fenced_code_block_is_not_read(tmp_path) -> None:
    """A steps table shown as an example inside ``` fences is prose: a file with no other
    steps table is refused, and the fenced example's steps are not read."""
    with pytest.raises(DerivationFileError, match="no table with the columns"):
        _read(tmp_path, "# Example\n\n```markdown\n" + _FILE + "```\n")
    example = "| step |" + _FILE.split("| step |")[1]
    [derivation] = _read(tmp_path, _FILE + "\n```\n" + example + "```\n")
    assert len(derivation.steps) == 3
