"""Every kind of bad input to the command line is one line on stderr and exit code 2.

The table covers the categories a new user hits: empty, truncated, binary and
non-UTF-8 files, cyclic graphs, sizes too large to allocate, integers beyond
int64, negative and zero counts, NaN and infinity, unknown names, and output
paths that cannot be written. Each case runs ``main()`` in-process.
"""

from __future__ import annotations

import io

import pytest

from attnio.cli import main

DAG = ["pebble", "--dag", "attention-forward", "--n", "2", "--d", "1"]
SIM = ["simulate", "flash", "--n", "64", "--d", "8"]

FILES = {
    "empty.json": b"",
    "blank.dot": b"  \n\n",
    "truncated.json": b'{"nodes": ["a", "b"], "edges": [["a"',
    "truncated.graphml": b"<graphml",
    "binary.dot": b"\x89PNG\r\n\x1a\n\x00\x00\x00",
    "latin1.dot": b'digraph { "a" -> "\xff\xfe"; }',
    "cyclic.dot": b"digraph { a -> b; b -> a; }",
    "cyclic.json": b'{"nodes": ["a", "b"], "edges": [["a", "b"], ["b", "a"]]}',
    "wrong.json": b'{"vertices": []}',
    "pickle.npy": b"not a numpy file",
    "g.dot": b"digraph { a -> c; b -> c; }",
    "spec.toml": b'[[pebble]]\ndag = "attention-forward"\nn = 1\nd = 1\nM = 3\n',
    "binary-mask.json": b"\xff\xfe\x00[[1]]",
    "empty-row.json": b"[[1, 0], [0, 0]]",
    "two.json": b"[[2, 0], [1, 1]]",
    "blocks.json": b"[[1, 0], [1, 1], [1, 1]]",
}
SPARSE = ["pebble", "--dag", "sparse-forward", "--n", "4", "--d", "1", "--M", "6"]
WINDOW = ["simulate", "window-sliding", "--n", "8", "--d", "2", "--M", "400"]

CASES = [
    # graph files: empty, truncated, binary, non-UTF-8, cyclic, malformed, missing, unknown
    (["pebble", "--graph", "{tmp}/empty.json", "--M", "4"], "empty"),
    (["pebble", "--graph", "{tmp}/blank.dot", "--M", "4"], "empty"),
    (["pebble", "--graph", "{tmp}/truncated.json", "--M", "4"], "not valid JSON"),
    (["pebble", "--graph", "{tmp}/truncated.graphml", "--M", "4"], "not valid GraphML"),
    (["pebble", "--graph", "{tmp}/binary.dot", "--M", "4"], "binary.dot' is binary"),
    (["pebble", "--graph", "{tmp}/latin1.dot", "--M", "4"], "latin1.dot' is not UTF-8"),
    (["pebble", "--graph", "{tmp}/cyclic.dot", "--M", "4"], "cycle"),
    (["pebble", "--graph", "{tmp}/cyclic.json", "--M", "4"], "cycle"),
    (["pebble", "--graph", "{tmp}/wrong.json", "--M", "4"], "expected one object"),
    (["pebble", "--graph", "{tmp}/missing.json", "--M", "4"], "missing.json"),
    (["pebble", "--graph", "{tmp}", "--M", "4"], "suffix"),
    (["pebble", "--graph", "{tmp}/g.txt", "--M", "4"], "suffix '.txt'"),
    # sizes that would not fit in memory, refused before allocating
    (["pebble", "--dag", "attention-forward", "--n", "100000", "--d", "64", "--M", "100"],
     "--max-vertices"),
    (["pebble", "--dag", "approx-forward", "--n", "2", "--d", "64", "--degree", "12",
      "--M", "4"], "--max-vertices"),
    (["pebble", "--dag", "sparse-forward", "--n", "1000000", "--d", "1", "--M", "4",
      "--mask", "local:2"], "--max-vertices"),
    ([*DAG, "--M", "4", "--max-vertices", "10"], "more than max_vertices=10"),
    ([*DAG, "--M", "4", "--exact", "--limit", "999999999999"], "--limit"),
    (["simulate", "flash", "--n", "10000000", "--d", "64", "--M", "16384"], "--max-words"),
    (["simulate", "low-rank", "--n", "64", "--d", "64", "--M", "2048", "--degree", "12"],
     "--max-words"),
    # counting mode allocates nothing but runs the whole loop nest: its work is bounded
    (["simulate", "flash", "--n", "99999999", "--d", "9999", "--M", "99999999", "--count-only"],
     "more than max_transfers=100,000,000; choose smaller sizes or raise the limit "
     "(--max-transfers)"),
    (["simulate", "standard", "--n", "100000", "--d", "1", "--M", "64", "--count-only"],
     "--max-transfers"),
    ([*SIM, "--M", "512", "--count-only", "--max-transfers", "10"], "more than max_transfers=10"),
    ([*SIM, "--sweep", "M=64:512", "--max-transfers", "10"], "max_transfers=10"),
    # integers beyond int64, negative, zero; NaN and infinity
    ([*DAG, "--M", "99999999999999999999999"], "too large"),
    ([*SIM, "--M", "99999999999999999999999"], "too large"),
    ([*DAG, "--M", "-3"], ">= 1"),
    ([*DAG, "--M", "0"], ">= 1"),
    ([*DAG, "--M", "four"], "not an integer"),
    (["pebble", "--dag", "attention-forward", "--n", "-2", "--d", "1", "--M", "4"], "--n"),
    ([*DAG, "--M", "4", "--exact", "--limit", "0"], "--limit"),
    ([*DAG, "--M", "4", "--exact", "--max-bytes", "1000"], "--max-bytes"),
    ([*DAG, "--M", "4", "--exact", "--max-bytes", "4611686018427387904"], "--max-bytes"),
    ([*DAG, "--M", "4", "--heuristic", "search", "--iterations", "0"], "--iterations"),
    ([*DAG, "--M", "4", "--seed", "-1"], "--seed"),
    ([*DAG, "--M", "4", "--time-limit", "nan"], "finite"),
    ([*DAG, "--M", "4", "--time-limit", "-1"], "finite number > 0"),
    (["pebble", "--dag", "approx-forward", "--n", "2", "--d", "1", "--M", "4", "--degree",
      "0"], "--degree"),
    ([*SIM, "--sweep", "M=64:512", "--points", "0"], "--points"),
    ([*SIM, "--sweep", "M=64:512", "--points", "-5"], "--points"),
    ([*SIM, "--M", "512", "--seed", "-1"], "--seed"),
    ([*SIM, "--M", "3"], "M >= "),
    (["simulate", "block-sparse-flash", "--n", "64", "--d", "8", "--M", "512",
      "--block-density", "nan"], "finite"),
    (["simulate", "block-sparse-flash", "--n", "64", "--d", "8", "--M", "512",
      "--block-density", "1.5"], "(0, 1]"),
    (["simulate", "low-rank", "--n", "64", "--d", "8", "--M", "512", "--degree", "-1"], ">= 0"),
    (["simulate", "low-rank", "--n", "64", "--d", "8", "--M", "512", "--degree", "3",
      "--entry-bound", "inf"], "finite"),
    (["prove", "--timeout", "0"], "--timeout"),
    # sweep grammar (one for both commands)
    ([*SIM, "--sweep", "64:512"], "M=LO:HI"),
    ([*SIM, "--sweep", "M=512:64"], "LO <= HI"),
    ([*DAG, "--sweep", "M=4"], "M=LO:HI"),
    ([*DAG, "--sweep", "N=3:4"], "M=LO:HI"),
    ([*DAG, "--sweep", "M=1:4"], "M >= 3"),
    # unknown names
    (["nosuchcommand"], "invalid choice"),
    (["--bogus"], "unrecognized arguments"),
    (["pebble", "--dag", "nosuch", "--n", "2", "--d", "1", "--M", "4"], "invalid choice"),
    (["simulate", "nosuch", "--n", "64", "--d", "8", "--M", "512"], "nosuch"),
    (["table", "--status", "bogus"], "invalid choice"),
    (["prove", "--only", "nosuch/*"], "matches no obligation"),
    (["verify", "--only", "nosuch"], "--only list"),
    (["pebble", "--dag", "sparse-forward", "--n", "2", "--d", "1", "--M", "4", "--mask",
      "band:x"], "width"),
    (["simulate", "block-sparse-flash", "--n", "64", "--d", "8", "--M", "512", "--mask",
      "{tmp}/pickle.npy"], "pickle.npy"),
    (["pebble", "--dag", "sparse-forward", "--n", "2", "--d", "1", "--M", "4", "--mask",
      "{tmp}/binary-mask.json"], "binary-mask.json' is not UTF-8"),
    (["pebble", "--dag", "sparse-forward", "--n", "2", "--d", "1", "--M", "4", "--mask",
      "{tmp}/missing-mask.json"], "missing-mask.json"),
    (["simulate", "block-sparse-flash", "--n", "64", "--d", "8", "--M", "512", "--mask",
      "{tmp}/missing.npy"], "missing.npy"),
    # masks that do not fit: a window larger than n or < 1, a band as wide as n, an empty
    # row, a non-boolean array, a block mask of the wrong shape, a missing width or file
    ([*WINDOW, "--mask", "window", "--window", "9"], "window=9 does not fit n=8"),
    ([*WINDOW, "--mask", "window", "--window", "0"], "window=0 does not fit n=8"),
    ([*WINDOW, "--mask", "window"], "--mask window needs --window W"),
    ([*WINDOW, "--mask", "causal"], "window-sliding runs window masks"),
    (["simulate", "band-sliding", "--n", "8", "--d", "2", "--M", "400", "--mask", "band",
      "--window", "8"], "window=8 does not fit n=8"),
    (["simulate", "causal-row-streaming", "--n", "8", "--d", "2", "--M", "400", "--window",
      "3"], "--window 3 applies only to --mask window or --mask band"),
    (["simulate", "block-sparse-flash", "--n", "8", "--d", "2", "--M", "400", "--mask",
      "block"], "--mask block needs --block-mask FILE"),
    (["simulate", "block-sparse-flash", "--n", "8", "--d", "2", "--M", "400", "--mask",
      "block", "--block-mask", "{tmp}/blocks.json"], "mask has shape (3, 2)"),
    ([*SPARSE, "--mask", "window", "--window", "5"], "window=5 does not fit n=4"),
    ([*SPARSE, "--mask", "band", "--window", "4"], "window=4 does not fit n=4"),
    ([*SPARSE, "--mask", "causal", "--window", "2"], "--window 2 applies only"),
    (["pebble", "--dag", "sparse-forward", "--n", "2", "--d", "1", "--M", "6", "--mask",
      "{tmp}/empty-row.json"], "row 1 allows no key"),
    (["pebble", "--dag", "sparse-forward", "--n", "2", "--d", "1", "--M", "6", "--mask",
      "{tmp}/two.json"], "entries must be 0/1 or booleans"),
    ([*SPARSE, "--mask", "block", "--block-mask", "{tmp}/blocks.json"],
     "blocks.json has shape (3, 2), which no block size gives at n=4"),
    # missing or conflicting arguments
    ([], "no command given"),
    (["pebble"], "required"),
    ([*DAG], "required"),
    ([*SIM], "--M is required"),
    ([*SIM, "--M", "512", "--plot", "{tmp}/p.png"], "--plot draws a sweep"),
    # options a family or a graph file does not use are refused, not ignored
    ([*DAG, "--M", "4", "--mask", "local:2"], "--mask applies to --dag sparse-forward"),
    ([*DAG, "--M", "4", "--degree", "3"], "--degree applies to --dag approx-forward"),
    ([*DAG, "--M", "4", "--block", "2"], "--block applies to --dag online-forward"),
    (["pebble", "--dag", "online-forward", "--n", "2", "--d", "1", "--M", "4", "--block", "0"],
     "--block"),
    (["pebble", "--graph", "{tmp}/g.dot", "--M", "4", "--mask", "causal"],
     "--mask shapes a --dag family"),
    (["pebble", "--graph", "{tmp}/g.dot", "--M", "4", "--tree", "balanced"],
     "--tree shapes a --dag family"),
    ([*DAG, "--M", "4", "--json", "--format", "latex"], "--json and --format latex"),
    ([*DAG, "--save-graph", "{tmp}/out.dot", "--graph-format", "node-link"],
     "format node-link is written to a .json file, not .dot"),
    ([*DAG, "--M", "4", "--graph-format", "dot"], "--graph-format applies to --save-graph"),
    ([*DAG, "--save-graph", "{tmp}/out.txt"], "suffix '.txt'"),
    ([*DAG, "--save-graph", "/proc/g.json"], "--save-graph '/proc/g.json': cannot write: "),
    (["plot", "algorithms", "--algorithms", ",", "--n", "64", "--d", "8", "--sweep", "M=64:512",
      "-o", "{tmp}/p.png"], "names no algorithm"),
    (["campaign", "{tmp}/spec.toml", "--workers", "0", "--store", "{tmp}/r.sqlite",
      "--memory-limit", "lots"], "--memory-limit"),
    # output paths that cannot be written fail before the work
    ([*DAG, "--M", "4", "--moves", "/nonexistent-dir/m.jsonl"], "does not exist"),
    ([*DAG, "--M", "4", "--moves", "{tmp}"], "is a directory"),
    ([*SIM, "--sweep", "M=64:512", "--plot", "{tmp}"], "is a directory"),
    ([*SIM, "--sweep", "M=64:512", "--plot", "{tmp}/plot.xyz"], "suffix .xyz"),
    ([*SIM, "--sweep", "M=64:512", "--plot", "/nonexistent-dir/p.png"], "does not exist"),
    (["prove", "--smtlib", "{tmp}/empty.json", "--only", "planted/*"], "not a directory"),
    (["table", "-o", "{tmp}"], "is a directory"),
    (["table", "-o", "/nonexistent-dir/t.md"], "does not exist"),
    # paths the permission bits allow but the kernel refuses (the superuser passes os.access)
    ([*DAG, "--M", "4", "--moves", "/proc/m.jsonl"], "--moves '/proc/m.jsonl': cannot write: "),
    ([*SIM, "--sweep", "M=64:512", "--plot", "/proc/p.png"], "--plot '/proc/p.png': cannot write"),
    (["table", "-o", "/proc/t.md"], "--output '/proc/t.md': cannot write: "),
    (["table", "--bib", "/proc/r.bib"], "--bib '/proc/r.bib': cannot write: "),
    (["prove", "--smtlib", "/proc/smt/x", "--only", "planted/*"], "--smtlib '/proc/smt/x': cannot"),
    (["check", "{tmp}/spec.toml", "--evidence-dir", "/proc/e/f"], "--evidence-dir '/proc/e/f': "),
    (["campaign", "{tmp}/spec.toml", "--store", "/proc/r.sqlite"], "--store '/proc/r.sqlite': "),
    (["campaign", "report", "--store", "{tmp}/r.sqlite", "-o", "/proc/r.md"], "-o '/proc/r.md'"),
    (["plot", "algorithms", "--n", "64", "--d", "8", "--sweep", "M=64:512", "-o", "/proc/p.png"],
     "--output '/proc/p.png': cannot write: "),
    # the masked tightness table and figure: a bad mask name, a mask with no count records
    (["table", "--tightness", "--mask", "diagonal"], "--mask 'diagonal' is not a mask family"),
    (["table", "--tightness", "--mask", "full"], "--mask full has no count records"),
    (["table", "--tightness", "--mask", "block"], "--mask block has no count records"),
    (["table", "--tightness", "--mask", "window"], "--mask window needs --window W"),
    (["table", "--tightness", "--mask", "causal", "--d", "64,x"], "--d '64,x' must be"),
    (["table", "--mask", "causal"], "--mask: only the masked tightness table takes these"),
    (["table", "--tightness", "--d", "64"], "--d: only the masked tightness table"),
    # the approximate tightness table: --degree alone, a mask beside it, a bad degree
    (["table", "--degree", "2"], "--degree: only the approximate tightness table takes it"),
    (["table", "--tightness", "--regime", "approximate", "--mask", "causal"],
     "--mask and --window make the masked (sparse) table"),
    (["table", "--tightness", "--regime", "sparse"], "--tightness prints the whole table"),
    (["table", "--tightness", "--regime", "approximate", "--degree", "0"], "--degree"),
    (["plot", "algorithms", "--mask", "diagonal", "--n", "64", "--d", "8", "--sweep",
      "M=64:512", "-o", "{tmp}/p.png"], "mask='diagonal' must be causal"),
    (["plot", "algorithms", "--mask", "full", "--n", "64", "--d", "8", "--sweep", "M=64:512",
      "-o", "{tmp}/p.png"], "no derived count of a schedule of the full mask"),
    (["plot", "algorithms", "--mask", "causal", "--algorithms", "flash", "--n", "64", "--d",
      "8", "--sweep", "M=64:512", "-o", "{tmp}/p.png"], "--algorithms: with --mask"),
]  # fmt: skip


@pytest.fixture
def files(tmp_path):
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "message"), CASES, ids=lambda x: " ".join(x)[:60] if isinstance(x, list) else None
)
def test_bad_input_is_one_line_and_exit_2(capsys, files, argv, message) -> None:
    """Bad input exits 2 with exactly one stderr line naming the problem, never a traceback."""
    argv = [arg.replace("{tmp}", str(files)) for arg in argv]
    code = main(argv)
    _, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and lines[0].startswith("attnio: error: "), err
    assert "Traceback" not in err and "attnio: error: attnio" not in err
    if message is not None:
        assert message in lines[0]


def test_stdin_graph(capsys, monkeypatch) -> None:
    """--graph - reads a graph from standard input; an empty one is a clear error."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"digraph { a -> c; b -> c; }")))
    assert main(["pebble", "--graph", "-", "--M", "3"]) == 0
    assert "<stdin>: 3 vertices" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert main(["pebble", "--graph", "-", "--M", "3"]) == 2
    assert capsys.readouterr().err.strip() == "attnio: error: graph file '<stdin>' is empty"


def test_node_link_json(capsys, tmp_path) -> None:
    """networkx node-link JSON is read as well as attnio's own JSON, with the same cost."""
    import json

    import networkx as nx

    graph = nx.DiGraph([("a", "c"), ("b", "c"), ("c", "d")])
    path = tmp_path / "g.json"
    path.write_text(json.dumps(nx.node_link_data(graph, edges="links")))
    assert main(["pebble", "--graph", str(path), "--M", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert result["vertices"] == 4 and result["io"] == 3


def _interrupt_after(calls: int, function):
    """Wrap ``function`` so that its ``calls``-th call raises KeyboardInterrupt (Ctrl-C)."""
    count = {"n": 0}

    def wrapped(*args, **kwargs):
        count["n"] += 1
        if count["n"] == calls:
            raise KeyboardInterrupt
        return function(*args, **kwargs)

    return wrapped


def test_interrupted_exact_search_keeps_proven_bounds(capsys, monkeypatch, tmp_path) -> None:
    """Ctrl-C in the exact search prints certified bounds, writes a replayable move file, exits 130."""
    import json

    from attnio.pebble import _exact_kernels, builders, read_moves, replay

    monkeypatch.setattr(_exact_kernels, "search", _interrupt_after(2, _exact_kernels.search))
    moves = tmp_path / "m.jsonl"
    argv = [*DAG, "--M", "3", "--exact", "--variant", "oneshot", "--moves", str(moves), "--json"]
    assert main(argv) == 130
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["partial"] is True and len(data["results"]) == 1
    result = data["results"][0]
    assert result["lower"] <= result["io"] == result["upper"]
    dag = builders.attention_forward(2, 1)
    assert replay(dag, read_moves(moves, dag), 3, variant="oneshot").io == result["io"]
    assert err.startswith("attnio: interrupted")


def test_interrupted_sweep_keeps_finished_sizes(capsys, monkeypatch) -> None:
    """Ctrl-C during a heuristic sweep prints the sizes finished, marked partial, and exits 130."""
    import json

    from attnio.pebble import heuristic

    monkeypatch.setattr(
        heuristic, "solve_heuristic", _interrupt_after(3, heuristic.solve_heuristic)
    )
    assert main([*DAG, "--sweep", "M=4:8", "--json"]) == 130
    data = json.loads(capsys.readouterr().out)
    assert data["partial"] is True and [r["M"] for r in data["results"]] == [4, 5]


def test_interrupted_prove_keeps_finished_obligations(capsys, monkeypatch) -> None:
    """Ctrl-C during prove prints the obligations finished, marked partial, and exits 130."""
    import importlib
    import json

    suite = importlib.import_module("attnio.proofs.suite")  # in process: --jobs 1
    monkeypatch.setattr(suite, "settle", _interrupt_after(2, suite.settle))
    argv = ["prove", "--only", "crossover/dense-forward-tight/*", "--json", "--jobs", "1"]
    assert main(argv) == 130
    data = json.loads(capsys.readouterr().out)
    assert data["partial"] is True and len(data["outcomes"]) == 1


@pytest.mark.slow
def test_interrupted_prove_over_workers_stops_them(tmp_path) -> None:
    """Ctrl-C during a prove spread over two worker processes exits 130 with valid JSON
    marked partial, and leaves no worker process behind."""
    import functools
    import json
    import signal
    import subprocess
    import sys
    import time

    process = subprocess.Popen(
        [sys.executable, "-m", "attnio", "prove", "--only", "tightness/*", "--jobs", "2",
         "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a shell that starts pytest in the background ignores SIGINT; children inherit it
        preexec_fn=functools.partial(signal.signal, signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    workers: list[str] = []
    deadline = time.monotonic() + 300  # generous: the pool starts later on a loaded machine
    while len(workers) < 2 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
        workers = subprocess.run(  # the pool's workers (not multiprocessing's resource tracker)
            ["pgrep", "-P", str(process.pid), "-f", "spawn_main"], capture_output=True, text=True
        ).stdout.split()
    # both workers started, and the tightness obligations take minutes: still running; a few
    # seconds more so that they are past their imports and proving (a fixed 20 s sleep
    # spent 40 s of processor time in the two workers for nothing)
    time.sleep(3)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert json.loads(out)["partial"] is True
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert len(workers) == 2  # the pool had started
    alive = [w for w in workers if subprocess.run(["kill", "-0", w]).returncode == 0]
    assert not alive


def test_every_option_is_described_and_every_command_has_an_example() -> None:
    """Each command's help shows an example and the exit codes; each option has a help text."""
    import argparse

    from attnio.cli import build_parser

    parser = build_parser("*")
    commands = parser._subparsers._group_actions[0].choices
    assert set(commands) == {
        "table",
        "verify",
        "pebble",
        "simulate",
        "prove",
        "campaign",
        "explore",
        "plot",
        "check",
        "eval",
        "gap",
    }
    for name, sub in commands.items():
        assert "example" in sub.epilog and "130" in sub.epilog, name
        for action in sub._actions:
            if not isinstance(action, argparse._HelpAction):
                assert action.help, (name, action.option_strings or action.dest)
    assert "exit codes" in parser.format_help()


def test_python_dash_m_and_help_import_nothing_heavy() -> None:
    """python -m attnio --help runs without importing numba, z3, sympy or matplotlib."""
    import subprocess
    import sys

    code = (
        "import sys, runpy; sys.argv = ['attnio', '--help']\n"
        "try:\n    runpy.run_module('attnio', run_name='__main__')\n"
        "except SystemExit as stop:\n    assert stop.code == 0\n"
        "heavy = {'numba', 'z3', 'sympy', 'matplotlib'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "usage: attnio" in done.stdout


def test_only_list_names_the_checks(capsys) -> None:
    """verify --only list prints the check names, one a line, and exits 0."""
    assert main(["verify", "--only", "list"]) == 0
    names = capsys.readouterr().out.split("\n")
    assert any(line.startswith("proofs.smtlib_round_trip") for line in names)


def test_interrupted_simulate_sweep_keeps_finished_runs(capsys, monkeypatch) -> None:
    """Ctrl-C during a simulate sweep prints the runs finished, marked partial, and exits 130."""
    import importlib
    import json

    module = importlib.import_module("attnio.algorithms.sweep")
    monkeypatch.setattr(module, "simulate", _interrupt_after(3, module.simulate))
    argv = [*SIM, "--sweep", "M=64:512", "--points", "4", "--json"]
    assert main(argv) == 130
    data = json.loads(capsys.readouterr().out)
    assert data["partial"] is True and len(data["results"]) == 2
    assert all(isinstance(row["io"], int) for row in data["results"])


def test_plot_writes_exactly_the_path_given(capsys, tmp_path) -> None:
    """--plot FILE without a suffix writes FILE itself (a PNG), not FILE.png."""
    target = tmp_path / "io-plot"
    argv = [*SIM, "--sweep", "M=128:512", "--points", "3", "--plot", str(target)]
    assert main(argv) == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / "io-plot.png").exists()


def test_closed_pipe_is_quiet() -> None:
    """A reader that stops early (``attnio table --format json | head -1``) gets no error line.

    The pipe is closed before attnio starts writing, so its first write fails."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "attnio", "table", "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) in (0, 141)
    assert "error" not in err and "Traceback" not in err, err


def test_output_checks_leave_nothing_behind(tmp_path) -> None:
    """Checking an output path writes nothing: a new file or directory chain is removed
    again, an existing file keeps its content."""
    from attnio._arguments import writable_directory, writable_file

    assert writable_file("-o", str(tmp_path / "new.md")) == tmp_path / "new.md"
    assert writable_directory("--smtlib", str(tmp_path / "a" / "b")) == tmp_path / "a" / "b"
    kept = tmp_path / "kept.md"
    kept.write_text("text")
    writable_file("-o", str(kept))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.md"]
    assert kept.read_text() == "text"
    with pytest.raises(ValueError, match=r"^--smtlib '/proc/a/b': cannot write: "):
        writable_directory("--smtlib", "/proc/a/b")
