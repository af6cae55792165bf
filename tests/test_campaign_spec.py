"""Tests of attnio.campaign.spec: reading TOML specs into keyed units of work."""

from __future__ import annotations

import pathlib

import pytest

from attnio.campaign import SpecError, read_spec

TINY = """
[[pebble]]
dag = "attention-forward"
n = 1
d = [1, 2]
M = "2:5"
variants = ["standard", "oneshot"]
solvers = ["exact", "belady"]
exact = { max_states = 100000, time_limit = 5 }

[[simulate]]
algorithm = ["flash", "square-tiling"]
n = [16, 32]
d = 4
M = 64
"""


def _write(tmp_path: pathlib.Path, text: str, name: str = "spec.toml") -> pathlib.Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_units_cover_the_product_of_the_fields(tmp_path: pathlib.Path) -> None:
    """A spec expands to one unit per DAG, feasible M, variant and solver, plus each simulation."""
    spec = read_spec(_write(tmp_path, TINY))
    pebble = [u for u in spec.units if u.kind == "pebble"]
    simulate = [u for u in spec.units if u.kind == "simulate"]
    # d=1: M=3..5 feasible (min 3); d=2: M=3..5 (min 3) -> 2 DAGs x 3 M x 2 variants x 2 solvers
    assert len(pebble) == 2 * 3 * 2 * 2
    assert len(simulate) == 2 * 2
    assert {u.params["M"] for u in pebble} == {3, 4, 5}
    assert any("M < 3" in line for line in spec.skipped)
    assert len({u.key for u in spec.units}) == len(spec.units)


def test_keys_are_stable_and_ignore_exact_limits(tmp_path: pathlib.Path) -> None:
    """The same spec gives the same keys; raising an exact limit keeps them, a new option does not."""
    first = read_spec(_write(tmp_path, TINY, "a.toml"))
    again = read_spec(_write(tmp_path, TINY, "b.toml"))
    assert [u.key for u in first.units] == [u.key for u in again.units]
    raised = read_spec(
        _write(tmp_path, TINY.replace("time_limit = 5", "time_limit = 50"), "c.toml")
    )
    assert {u.key for u in raised.units} == {u.key for u in first.units}
    other = read_spec(
        _write(tmp_path, TINY.replace('"exact", "belady"', '"exact", "lru"'), "d.toml")
    )
    assert {u.key for u in other.units} != {u.key for u in first.units}


def test_keys_depend_on_the_version(tmp_path: pathlib.Path) -> None:
    """A unit's key includes attnio's version, so results of another version are not reused."""
    path = _write(tmp_path, TINY)
    assert {u.key for u in read_spec(path, version="0.0.1").units}.isdisjoint(
        u.key for u in read_spec(path, version="0.0.2").units
    )


def test_duplicate_units_run_once(tmp_path: pathlib.Path) -> None:
    """Two tables naming the same unit of work give it once."""
    spec = read_spec(_write(tmp_path, TINY + TINY.split("[[simulate]]")[0]))
    assert len(spec.units) == len(read_spec(_write(tmp_path, TINY, "x.toml")).units)


def test_graph_files_are_keyed_by_content(tmp_path: pathlib.Path) -> None:
    """A DAG read from a file is keyed by its content, not by its path."""
    (tmp_path / "g.dot").write_text("digraph { a -> c; b -> c; }\n")
    (tmp_path / "h.dot").write_text("digraph { a -> c; b -> c; }\n")
    body = 'graph = "{}"\nM = 3\nsolvers = ["belady"]\n'
    one = read_spec(_write(tmp_path, "[[pebble]]\n" + body.format("g.dot"), "one.toml"))
    two = read_spec(_write(tmp_path, "[[pebble]]\n" + body.format("h.dot"), "two.toml"))
    assert [u.key for u in one.units] == [u.key for u in two.units]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[pebble]]\ndag = 'nope'\nn = 1\nd = 1\nM = 3\n", "dag='nope' is not one of"),
        ("[[pebble]]\ndag = 'attention-forward'\nn = 1\nd = 1\n", "field 'M' is required"),
        ("[[pebble]]\ndag = 'attention-forward'\nn = 0\nd = 1\nM = 3\n", "positive integers"),
        ("[[pebble]]\ndag = 'attention-forward'\nn = 1\nd = 1\nM = '5:3'\n", "1 <= lo <= hi"),
        (
            "[[pebble]]\ndag = 'attention-forward'\nn = 1\nd = 1\nM = 3\ncolour = 1\n",
            "unknown fields",
        ),
        (
            "[[pebble]]\ndag = 'attention-forward'\nn = 1\nd = 1\nM = 3\nsolvers = ['magic']\n",
            "valid",
        ),
        (
            "[[pebble]]\ndag = 'attention-forward'\nn = 1\nd = 1\nM = 3\nexact = { depth = 3 }\n",
            "options ['depth'] are unknown",
        ),
        ("[[simulate]]\nalgorithm = 'flash'\nn = 8\nd = 2\nM = 2.5\n", "must hold integers"),
        ("[[simulate]]\nalgorithm = 'block-sparse-flash'\nn = 8\nd = 2\nM = 64\n", "block_density"),
        (
            "[[simulate]]\nalgorithm = 'square-tiling'\npass = 'backward'\nn = 8\nd = 2\nM = 64\n",
            "no backward",
        ),
        (
            "[[pebble]]\ndag = 'attention-forward'\nn = 1\nd = 1\nM = 3\n"
            "solvers = ['search']\nsearch = { seed = -1 }\n",
            "nonnegative integer",
        ),
        ("[compare]\nbounds = ['no-such-record']\n", "unknown records"),
        ("[[pebble]\n", "not valid TOML"),
        ("[other]\n", "unknown tables"),
        ("", "names no unit of work"),
    ],
)
def test_bad_specs_name_the_table_and_field(
    tmp_path: pathlib.Path, text: str, message: str
) -> None:
    """Every malformed spec raises SpecError (a ValueError) naming what is wrong."""
    with pytest.raises(SpecError, match=message.replace("[", r"\[").replace("]", r"\]")):
        read_spec(_write(tmp_path, text))


def test_binary_spec_is_refused(tmp_path: pathlib.Path) -> None:
    """A spec that is not UTF-8 text is refused with the file named."""
    path = tmp_path / "spec.toml"
    path.write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(SpecError, match="not UTF-8"):
        read_spec(path)


def test_the_documented_spec_reads_and_seed_zero_is_the_default(tmp_path: pathlib.Path) -> None:
    """The spec shown in docs/campaigns.md reads as-is; an explicit search seed 0 keys as the default."""
    docs = pathlib.Path(__file__).resolve().parents[1] / "docs" / "campaigns.md"
    text = docs.read_text().split("```toml\n", 1)[1].split("```", 1)[0]
    assert "seed = 0" in text
    assert read_spec(_write(tmp_path, text)).units
    base = "[[pebble]]\ndag = 'attention-forward'\nn = 1\nd = 1\nM = 3\nsolvers = ['search']\n"
    default = read_spec(_write(tmp_path, base, "a.toml")).units
    explicit = read_spec(_write(tmp_path, base + "search = { seed = 0 }\n", "b.toml")).units
    assert [u.key for u in default] == [u.key for u in explicit]
