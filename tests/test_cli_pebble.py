"""Tests of ``attnio pebble``: output fields, move files, sweeps, graph files and bad input."""

from __future__ import annotations

import json

import pytest

from attnio.bounds.schema import JSON_SCHEMA_VERSION
from attnio.cli import main
from attnio.pebble import builders, read_moves, replay, save_dag
from attnio.pebble.heuristic import compile_kernels

FIELDS = {
    "io",
    "loads",
    "stores",
    "optimal",
    "lower",
    "upper",
    "variant",
    "M",
    "vertices",
    "states_explored",
    "seconds",
}


@pytest.fixture(scope="module", autouse=True)
def _compiled() -> None:
    """Compile the kernels once for the module."""
    compile_kernels()


def _json(capsys, argv: list[str]):
    """Run ``argv``; return its JSON results (one pebbling for --M, the list for --sweep)."""
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == JSON_SCHEMA_VERSION and data["partial"] is False
    return data["results"] if "--sweep" in argv else data["results"][0]


@pytest.mark.parametrize("heuristic", ["belady", "lru", "search"])
def test_json_fields(capsys, heuristic: str) -> None:
    """--json prints one object with every required field and io = loads + stores."""
    out = _json(
        capsys,
        [
            "pebble",
            "--dag",
            "attention-forward",
            "--n",
            "2",
            "--d",
            "2",
            "--M",
            "5",
            "--heuristic",
            heuristic,
            "--iterations",
            "50",
            "--json",
        ],
    )
    assert set(out) >= FIELDS
    assert out["io"] == out["loads"] + out["stores"] == out["upper"]
    assert out["vertices"] == builders.attention_forward(2, 2).num_vertices
    assert out["M"] == 5 and out["variant"] == "standard"


@pytest.mark.parametrize("kind", builders.KINDS)
def test_every_dag_kind(capsys, kind: str, tmp_path) -> None:
    """Every DAG family pebbles and its --moves file replays at the printed cost."""
    moves = tmp_path / "moves.jsonl"
    out = _json(
        capsys,
        [
            "pebble",
            "--dag",
            kind,
            "--n",
            "3",
            "--d",
            "2",
            "--M",
            "6",
            *(["--mask", "local:2"] if kind.startswith("sparse") else []),
            "--variant",
            "oneshot",
            "--moves",
            str(moves),
            "--json",
        ],
    )
    dag = builders.build(kind, 3, 2, mask="local:2")
    assert replay(dag, read_moves(moves, dag), 6, variant="oneshot").io == out["io"]


@pytest.mark.parametrize("suffix", [".json", ".graphml", ".dot"])
def test_graph_files(capsys, tmp_path, suffix: str) -> None:
    """--graph reads each file format and gives the same cost as the built DAG."""
    dag = builders.attention_backward(2, 1)
    path = tmp_path / f"g{suffix}"
    save_dag(dag, path)
    from_file = _json(capsys, ["pebble", "--graph", str(path), "--M", "4", "--json"])
    built = _json(
        capsys,
        ["pebble", "--dag", "attention-backward", "--n", "2", "--d", "1", "--M", "4", "--json"],
    )
    assert from_file["io"] == built["io"]


@pytest.mark.parametrize("format", ["json", "node-link", "graphml", "dot"])
def test_save_graph_writes_what_graph_reads(capsys, tmp_path, format: str) -> None:
    """--save-graph alone writes the built DAG in the chosen format (node-link JSON
    included) and exits 0; --graph reads it back as the same DAG, with the same cost."""
    from attnio.pebble import GRAPH_FORMATS, load_dag

    path = tmp_path / f"g{GRAPH_FORMATS[format]}"
    argv = ["pebble", "--dag", "attention-backward", "--n", "2", "--d", "1"]
    assert main([*argv, "--save-graph", str(path), "--graph-format", format]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {path}")
    assert load_dag(path) == builders.attention_backward(2, 1)
    from_file = _json(capsys, ["pebble", "--graph", str(path), "--M", "4", "--json"])
    built = _json(capsys, [*argv, "--M", "4", "--json", "--save-graph", str(path)])
    assert from_file["io"] == built["io"]


def test_sweep(capsys) -> None:
    """--sweep prints one row per M, as JSON a list in increasing M."""
    rows = _json(
        capsys,
        [
            "pebble",
            "--dag",
            "attention-forward",
            "--n",
            "2",
            "--d",
            "2",
            "--sweep",
            "M=3:7",
            "--json",
        ],
    )
    assert [r["M"] for r in rows] == [3, 4, 5, 6, 7]
    assert (
        main(["pebble", "--dag", "attention-forward", "--n", "2", "--d", "2", "--sweep", "M=3:4"])
        == 0
    )
    text = capsys.readouterr().out
    assert "io" in text and len(text.strip().splitlines()) == 4


def test_text_output(capsys) -> None:
    """Without --json a header line and a table row are printed."""
    assert main(["pebble", "--dag", "approx-forward", "--n", "2", "--d", "2", "--M", "4"]) == 0
    out = capsys.readouterr().out
    assert "approx-forward n=2 d=2" in out and "belady" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--dag", "attention-forward", "--n", "2", "--d", "2", "--M", "2"], "M >= 3"),
        (["--dag", "attention-forward", "--n", "2", "--M", "4"], "--d"),
        (["--dag", "attention-forward", "--n", "0", "--d", "1", "--M", "4"], "--n: 0"),
        (["--dag", "sparse-forward", "--n", "2", "--d", "1", "--M", "4", "--mask", "x"], "mask"),
        (["--graph", "missing.json", "--M", "4"], "missing.json"),
        (["--graph", "g.json", "--n", "4", "--M", "4"], "--graph"),
        (["--dag", "attention-forward", "--n", "2", "--d", "2", "--sweep", "M=4"], "M=LO:HI"),
        (["--dag", "attention-forward", "--n", "2", "--d", "2", "--sweep", "M=5:4"], "LO <= HI"),
        (["--dag", "attention-forward", "--n", "2", "--d", "2", "--sweep", "M=1:4"], "M >= 3"),
        (
            [
                "--dag",
                "attention-forward",
                "--n",
                "2",
                "--d",
                "2",
                "--sweep",
                "M=3:4",
                "--moves",
                "m.jsonl",
            ],
            "--sweep",
        ),
        (["--dag", "attention-forward", "--n", "2", "--d", "2"], "required"),
        (
            [
                "--dag",
                "attention-forward",
                "--n",
                "2",
                "--d",
                "2",
                "--M",
                "4",
                "--exact",
                "--heuristic",
                "lru",
            ],
            "not allowed",
        ),
    ],
)
def test_bad_input_exits_2(capsys, argv: list[str], message: str) -> None:
    """Bad arguments print one error line naming the problem and exit with code 2."""
    assert main(["pebble", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_bad_graph_file_exits_2(capsys, tmp_path) -> None:
    """A cyclic or malformed graph file is one error line and exit code 2."""
    path = tmp_path / "c.dot"
    path.write_text("digraph { a -> b; b -> a; }")
    assert main(["pebble", "--graph", str(path), "--M", "3"]) == 2
    assert "cycle" in capsys.readouterr().err


def test_exact_option(capsys, tmp_path) -> None:
    """--exact reports a proven optimum with a certificate that replays."""
    moves = tmp_path / "m.jsonl"
    out = _json(
        capsys,
        [
            "pebble",
            "--dag",
            "attention-forward",
            "--n",
            "1",
            "--d",
            "2",
            "--M",
            "4",
            "--exact",
            "--moves",
            str(moves),
            "--json",
        ],
    )
    dag = builders.attention_forward(1, 2)
    assert out["optimal"] is True and out["lower"] == out["io"] == out["upper"]
    assert replay(dag, read_moves(moves, dag), 4).io == out["io"]


def test_exact_reports_its_memory_under_a_cap(capsys) -> None:
    """--exact --max-bytes reports the stored states and a peak within the cap in the JSON."""
    cap = 1 << 20
    argv = ["pebble", "--dag", "attention-forward", "--n", "1", "--d", "2", "--M", "4"]
    out = _json(capsys, [*argv, "--exact", "--json", "--max-bytes", str(cap)])
    assert out["optimal"] is True
    assert out["stored_states"] > 0 and 0 < out["peak_bytes"] <= cap


@pytest.mark.parametrize("fmt", ["latex", "json", "text"])
def test_output_writes_the_report_to_a_file(capsys, tmp_path, fmt: str) -> None:
    """`--format F -o FILE` writes exactly what standard output would carry to FILE and
    prints only where it went; a LaTeX table carries the `--label` it was given."""
    argv = ["pebble", "--dag", "attention-forward", "--n", "1", "--d", "1", "--sweep", "M=3:4",
            "--exact", "--format", fmt]  # fmt: skip
    extra = ["--label", "tab:forward-n1"] if fmt == "latex" else []
    assert main([*argv, *extra]) == 0
    printed = capsys.readouterr().out
    path = tmp_path / f"report.{fmt}"
    assert main([*argv, *extra, "-o", str(path)]) == 0
    assert capsys.readouterr().out == f"wrote {path}\n"
    written = path.read_text(encoding="utf-8")
    if fmt == "text":  # the seconds column differs between two runs
        assert written.splitlines()[0] == printed.splitlines()[0]
        assert [line.split()[:6] for line in written.splitlines()[1:]] == [
            line.split()[:6] for line in printed.splitlines()[1:]
        ]
    elif fmt == "json":
        strip = lambda text: [{**r, "seconds": 0} for r in json.loads(text)["results"]]  # noqa: E731
        assert strip(written) == strip(printed)
    else:
        assert written == printed and r"\label{tab:forward-n1}" in written


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--label", "tab:a b"], "not a LaTeX label"),
        (["--label", "tab:{x}"], "not a LaTeX label"),
        (["--format", "text", "--label", "tab:x"], "--label labels a LaTeX table"),
        (["-o", "/no/such/dir/out.tex"], "does not exist"),
    ],
)
def test_bad_label_or_output_exits_2(capsys, extra: list[str], message: str) -> None:
    """A label that would break the document, --label without LaTeX, or an unwritable -o:
    one error line, exit 2, before any pebbling."""
    argv = ["pebble", "--dag", "attention-forward", "--n", "1", "--d", "1", "--M", "3"]
    fmt = [] if "--format" in extra else ["--format", "latex"]
    assert main([*argv, *fmt, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_shape_options_build_the_grouped_query_graph(capsys):
    """--n-q, --n-kv, --heads-q, --heads-kv pebble the shape graph: its lower bound is the
    shape compulsory I/O (inputs plus outputs, shared K and V counted once)."""
    from attnio.cli import main

    argv = ["pebble", "--dag", "attention-forward", "--n-q", "1", "--n-kv", "3"]
    assert main([*argv, "--heads-q", "2", "--heads-kv", "1", "--d", "1", "--M", "6"]) == 0
    out = capsys.readouterr().out
    assert "40 vertices" in out and "n_q=1 n_kv=3 heads_q=2 heads_kv=1" in out


def test_bad_shape_is_one_line_and_exit_2(capsys):
    """heads_q not a multiple of heads_kv, or a shape for a family without one: exit 2."""
    from attnio.cli import main

    for dag, heads, match in (("attention-forward", "3", "multiple"),
                              ("sparse-forward", "2", "takes no shape")):  # fmt: skip
        argv = ["pebble", "--dag", dag, "--n-q", "1", "--n-kv", "3", "--heads-q", heads]
        assert main([*argv, "--heads-kv", "2", "--d", "1", "--M", "6"]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and match in err, err
