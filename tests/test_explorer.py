"""The explorer's Python side: layout, instance, request validation, server, command, widget."""

from __future__ import annotations

import functools
import http.client
import itertools
import json
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import pytest
from hypothesis import given, settings

from attnio.bounds.schema import JSON_SCHEMA_VERSION
from attnio.cli import main
from attnio.explorer import (
    MAX_DRAW_VERTICES,
    Instance,
    NotebookMissingError,
    RequestError,
    TooLargeToDrawError,
    layout,
)
from attnio.explorer.api import answer, request_key, validate
from attnio.explorer.layout import stage_names
from attnio.explorer.page import ASSETS, asset
from attnio.explorer.server import READ_TIMEOUT, ExplorerServer
from attnio.pebble import Dag, builders, replay, solve_heuristic
from attnio.pebble.dag import MAX_PICTURE_VERTICES
from strategies import dags, examples


@pytest.fixture(scope="module")
def small():
    return Instance.from_builder("attention-forward", 2, 1, exact_seconds=120)


# ------------------------------------------------------------------ layout


def test_builder_stages_follow_the_formula():
    """The forward DAG's stages are named from its labels, in the order of the formula."""
    dag = builders.build("attention-forward", 2, 2)
    assert list(dict.fromkeys(stage_names(dag))) == [
        "Q", "K", "V", "QK", "S", "exp", "rowsum", "P", "PV", "O",
    ]  # fmt: skip


@settings(max_examples=examples(60))
@given(dags(min_vertices=1, max_vertices=12))
def test_topological_layers_put_every_edge_downwards(dag):
    """In topological layers every edge goes to a strictly lower row; every vertex is placed."""
    picture = layout(dag, staged=False)
    assert len(picture["x"]) == len(picture["y"]) == dag.num_vertices
    for u, v in dag.edges().tolist():
        assert picture["y"][u] < picture["y"][v]


@pytest.mark.parametrize("kind", builders.KINDS)
def test_stage_layers_never_point_upwards(kind):
    """For every builder family, edges never go to a higher row of the staged drawing; the
    graphs with running statistics (whose stages depend on each other, as an accumulator
    and its rescaled copy) are drawn by longest-path layers, as the layout promises."""
    dag = builders.build(kind, 3, 2, block=2)
    picture = layout(dag, staged=True)
    assert all(picture["y"][u] <= picture["y"][v] for u, v in dag.edges().tolist())
    titles = [row["title"] for row in picture["rows"] if row["title"]]
    recurrent = ("online", "blockwise", "stationary", "streaming")
    if kind.startswith(recurrent):
        assert titles[0] == "layer 0"
    else:
        assert titles[0].startswith("inputs Q, K, V")
        assert len(titles) < len(set(stage_names(dag)))
    inputs = set(dag.inputs.tolist()) - set(dag.outputs.tolist())
    assert len({picture["y"][v] for v in inputs}) == 1


def test_too_large_to_draw_is_refused_with_the_limit():
    """A DAG above the drawing limit is refused, and the message states the limit."""
    dag = builders.build("attention-forward", 8, 4)
    assert dag.num_vertices > MAX_DRAW_VERTICES
    with pytest.raises(TooLargeToDrawError, match=str(MAX_DRAW_VERTICES)):
        Instance.from_builder("attention-forward", 8, 4)


# ------------------------------------------------------------------ instance and requests


def test_exact_solve_is_the_replayed_certificate(small):
    """The exact reply is a proven optimum whose moves the replayer accepts at the same cost."""
    reply = small.solve(4, "standard", "exact")
    assert reply["optimal"] and reply["lower"] == reply["io"] == reply["upper"] == 12
    assert replay(small.dag, [tuple(m) for m in reply["moves"]], 4).io == reply["io"]


def test_exact_past_its_limit_reports_proven_bounds_not_an_optimum(small):
    """Under its state limit the exact solver's reply is not 'optimal': it brackets the proven
    optimum between a sound lower bound and a replayed pebbling's cost."""
    limited = Instance.from_builder("attention-forward", 2, 1, max_states=200)
    reply = limited.solve(4, "standard", "exact")
    optimum = small.solve(4, "standard", "exact")
    assert optimum["optimal"] and reply["optimal"] is False
    assert reply["lower"] <= optimum["io"] <= reply["upper"] == reply["io"]
    assert reply["lower"] < reply["upper"]
    assert replay(limited.dag, [tuple(m) for m in reply["moves"]], 4).io == reply["io"]


@pytest.mark.parametrize("method", ["belady", "lru", "search"])
def test_heuristic_replies_are_legal_and_never_claim_more(small, method):
    """Heuristic replies replay at their cost and are never below the proven optimum."""
    reply = small.solve(4, "oneshot", method)
    assert replay(small.dag, [tuple(m) for m in reply["moves"]], 4, "oneshot").io == reply["io"]
    assert reply["io"] >= small.solve(4, "standard", "exact")["io"]


def test_bounds_rows_carry_evidence_and_values(small):
    """The bounds panel evaluates the compulsory record at the DAG's compulsory I/O and labels
    every row with its evidence status; rows outside their conditions say so."""
    rows = {row["name"]: row for row in small.bounds(4)["rows"]}
    assert rows["dense-forward-compulsory"]["value"] == small.bounds(4)["compulsory"] == 8
    assert all(row["status"] for row in rows.values())
    assert rows["dense-forward-lower-small"]["applies"] is False


def test_curve_is_monotone_and_proven_where_marked(small):
    """IO(M) never increases with M, and every point marked optimal equals the exact optimum."""
    curve = small.curve("standard", 4, 6)
    uppers = [p["upper"] for p in curve["points"]]
    assert uppers == sorted(uppers, reverse=True)
    for point in curve["points"]:
        assert point["lower"] <= point["upper"]
        if point["optimal"]:
            assert point["upper"] == small.solve(point["M"], "standard", "exact")["io"]
    assert any(s["name"] == "dense-forward-compulsory" for s in curve["bounds"])


@pytest.mark.parametrize(
    ("request_", "fragment"),
    [
        ([], "JSON object"),
        ({"kind": "shell"}, "kind"),
        ({"kind": "bounds"}, "exactly the fields"),
        ({"kind": "bounds", "M": 4, "path": "/etc/passwd"}, "exactly the fields"),
        ({"kind": "bounds", "M": True}, "type int"),
        ({"kind": "bounds", "M": "4"}, "type int"),
        ({"kind": "bounds", "M": 2}, "M=2"),
        ({"kind": "bounds", "M": 10**9}, "M=1000000000"),
        ({"kind": "solve", "M": 4, "variant": "fast", "method": "exact"}, "variant"),
        ({"kind": "solve", "M": 4, "variant": "standard", "method": "guess"}, "method"),
        ({"kind": "curve", "variant": "standard", "low": 3, "high": 26}, "at most"),
        ({"kind": "curve", "variant": "standard", "low": 6, "high": 5}, "low <= high"),
        ({"kind": "moves"}, "no moves file"),
    ],
)
def test_bad_requests_are_refused_naming_the_field(small, request_, fragment):
    """Every malformed or out-of-range request is refused before any work, naming the field."""
    with pytest.raises(RequestError, match=fragment):
        answer(small, request_)


def test_request_key_is_order_free():
    """The static page's reply key does not depend on the order of the request's fields."""
    assert request_key({"kind": "bounds", "M": 4}) == request_key({"M": 4, "kind": "bounds"})
    assert validate({"kind": "moves"}) == {"kind": "moves"}


# ------------------------------------------------------------------ server


@pytest.fixture(scope="module")
def server(small):
    server = ExplorerServer(small, 4, "standard")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def _call(server, method, path, body=None, host=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=60)
    headers = {"Content-Type": "application/json", **(headers or {})}
    if host is not None:
        headers["Host"] = host
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def test_server_binds_loopback_and_serves_the_page(server):
    """The server listens on 127.0.0.1 and serves the page and exactly the shipped assets."""
    assert server.server_address[0] == "127.0.0.1"
    status, page = _call(server, "GET", "/")
    assert status == 200 and b"/static/explorer.js" in page
    for name in ASSETS:
        status, body = _call(server, "GET", f"/static/{name}")
        assert status == 200 and body.decode() == asset(name)
    for path in ("/static/../instance.py", "/static/explorer.py", "/etc/passwd", "/api"):
        assert _call(server, "GET", path)[0] == 404


def test_server_validates_requests(server):
    """The API answers a valid request, refuses bad JSON, bad fields, oversized bodies,
    foreign Host headers and origins and non-JSON posts, always with a JSON error; every
    JSON reply carries the schema version."""
    good = json.dumps({"kind": "bounds", "M": 4}).encode()
    replies = []

    def call(*args, **kwargs):
        status, body = _call(server, "POST", "/api", *args, **kwargs)
        replies.append(json.loads(body))
        return status, replies[-1]

    status, body = call(good)
    assert status == 200 and body["M"] == 4
    status, body = call(b"{not json")
    assert status == 400 and "not JSON" in body["error"]
    status, body = call(json.dumps({"kind": "bounds", "M": 1}).encode())
    assert status == 400 and "M=1" in body["error"]
    assert call(b" " * 5000)[0] == 413
    assert call(good, host="evil.example:80")[0] == 403
    assert call(good, headers={"Origin": "http://evil.example"})[0] == 403
    assert call(good, headers={"Origin": server.url.rstrip("/")})[0] == 200
    assert call(good, headers={"Content-Type": "text/plain"})[0] == 415
    status, page = _call(server, "GET", "/nothing")
    replies.append(json.loads(page))
    assert status == 404
    assert all(reply["schema"] == JSON_SCHEMA_VERSION for reply in replies)


def test_deeply_nested_json_gets_a_400_not_a_traceback(server, capfd):
    """A body of 4,000 nested brackets (within the size limit) is answered 400 with a JSON
    error, and nothing is printed to standard error (no traceback of a RecursionError)."""
    for body in (b"[" * 4000, b"[" * 2000 + b"]" * 2000):
        status, reply = _call(server, "POST", "/api", body)
        assert status == 400 and "nested too deeply" in json.loads(reply)["error"]
    assert _call(server, "POST", "/api", json.dumps({"kind": "bounds", "M": 4}).encode())[0] == 200
    assert "Traceback" not in capfd.readouterr().err


def test_a_half_sent_body_is_dropped_after_the_read_timeout(small):
    """A client that announces 100 bytes, sends 10 and stops is disconnected after the read
    timeout; the server goes on answering other clients meanwhile."""
    import socket

    server = ExplorerServer(small, 4, "standard", read_timeout=0.5)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        port = server.server_address[1]
        stalled = socket.create_connection(("127.0.0.1", port), timeout=30)
        stalled.sendall(
            b"POST /api HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n" % port + b'{"kind": "b'
        )
        assert (
            _call(server, "POST", "/api", json.dumps({"kind": "bounds", "M": 4}).encode())[0] == 200
        )
        start = time.monotonic()
        assert stalled.recv(1024) == b""  # closed by the server, with no reply
        assert time.monotonic() - start < 20
        stalled.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert 0 < READ_TIMEOUT <= 60  # the command's server has a timeout too


def test_a_burst_of_30_clients_gets_300_replies(server):
    """30 clients posting 10 solve requests each, all at once, each request on a new
    connection, get 300 replies 200 and no reset (the listening backlog was the standard
    library's 5: 16 to 19 of 300 were reset, issue 40). Bounded: every call has a timeout
    and the threads are joined with one."""
    assert server.request_queue_size >= 64
    body = json.dumps({"kind": "solve", "M": 4, "variant": "standard", "method": "belady"})
    assert _call(server, "POST", "/api", body.encode())[0] == 200  # solved once, then cached
    start = threading.Barrier(30, timeout=60)
    statuses: list[int] = []
    failures: list[BaseException] = []

    def client() -> None:
        start.wait()
        for _ in range(10):
            try:
                statuses.append(_call(server, "POST", "/api", body.encode())[0])
            except (OSError, http.client.HTTPException) as error:
                failures.append(error)

    threads = [threading.Thread(target=client, daemon=True) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert failures == [] and statuses == [200] * 300


def test_clients_that_go_away_mid_request_leave_no_traceback(server, capfd):
    """20 clients that send a request's headers and half its body and go away (half of them
    with a reset) are dropped without a traceback or any line on stderr, and the server
    answers the next client."""
    import socket
    import struct

    port = server.server_address[1]
    head = (
        b"POST /api HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n" % port
    )
    for k in range(20):
        client = socket.create_connection(("127.0.0.1", port), timeout=30)
        if k % 2:  # close with a reset (RST) instead of an orderly FIN
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.sendall(head + b'{"kind": "b')
        client.close()
    assert _call(server, "POST", "/api", json.dumps({"kind": "bounds", "M": 4}).encode())[0] == 200
    time.sleep(0.5)  # let the dropped connections' threads finish
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize(
    "request_",
    [
        {"kind": "bounds", "M": 4},
        {"kind": "curve", "variant": "standard", "low": 4, "high": 5},
        {"kind": "solve", "M": 4, "variant": "standard", "method": "belady"},
    ],
)
def test_every_api_reply_carries_the_schema(small, request_):
    """Every reply of the request dispatcher (server, widget, static page) has "schema",
    and adding it leaves the instance's cached reply unchanged."""
    reply = answer(small, request_)
    assert reply["schema"] == JSON_SCHEMA_VERSION
    assert answer(small, request_) == reply


# ------------------------------------------------------------------ command


def test_html_file_is_self_contained(tmp_path):
    """`attnio explore --html` writes one file with the module, style and replies inlined
    and no address outside the file."""
    out = tmp_path / "x.html"
    code = main(
        ["explore", "--dag", "attention-forward", "--n", "1", "--d", "1", "--M", "3",
         "--Ms", "3:4", "--html", str(out)]
    )  # fmt: skip
    assert code == 0
    text = out.read_text()
    assert "function render" in text and "staticTransport" in text
    assert ".attnio-explorer" in text
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in text and "src=" not in text


def test_moves_file_is_offered_to_the_page(tmp_path):
    """A move file given on the command line is offered to the page (and precomputed in the
    HTML file) as read by read_moves; without one, the page's request is refused."""
    from attnio.pebble import write_moves

    dag = builders.build("attention-forward", 1, 1)
    moves = solve_heuristic(dag, 3, moves=True).moves
    path = tmp_path / "m.jsonl"
    write_moves(path, moves, dag)
    out = tmp_path / "m.html"
    argv = ["explore", "--dag", "attention-forward", "--n", "1", "--d", "1", "--M", "3"]
    assert main([*argv, "--moves", str(path), "--html", str(out)]) == 0
    text = out.read_text()
    start = text.index('id="attnio-replies">') + len('id="attnio-replies">')
    replies = json.loads(text[start : text.index("</script>", start)])
    offered = replies[request_key({"kind": "moves"})]
    assert offered["moves"] == [[op, v] for op, v in moves]
    instance = Instance.from_builder("attention-forward", 1, 1)
    instance.moves, instance.moves_name = moves, "m.jsonl"
    reply = answer(instance, {"kind": "moves"})
    assert reply == {
        "schema": JSON_SCHEMA_VERSION,
        "name": "m.jsonl",
        "moves": [[op, v] for op, v in moves],
    }


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--dag", "attention-forward", "--n", "8", "--d", "4"], str(MAX_DRAW_VERTICES)),
        (["--dag", "attention-forward", "--n", "2"], "needs --d"),
        (["--dag", "attention-forward", "--n", "2", "--d", "1", "--M", "2"], "M=2"),
        (["--dag", "attention-forward", "--n", "2", "--d", "1", "--Ms", "3:4"], "--html"),
    ],
)
def test_bad_command_lines_exit_2(argv, fragment, capsys):
    """Bad input to `attnio explore` is one line on stderr and exit code 2."""
    assert main(["explore", *argv]) == 2
    assert fragment in capsys.readouterr().err


def test_a_port_in_use_is_bad_input(capsys):
    """`attnio explore --port P` with P taken on 127.0.0.1 is one line naming --port and its
    value, exit 2 (not an OSError's bare text)."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = [
            "explore",
            "--dag",
            "attention-forward",
            "--n",
            "1",
            "--d",
            "1",
            "--port",
            str(port),
        ]
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"--port={port}" in err and "in use" in err and len(err.strip().splitlines()) == 1


def test_command_serves_and_stops():
    """`attnio explore` prints a 127.0.0.1 URL, serves the page, and Ctrl-C (SIGINT) stops it
    with exit code 130."""
    command = [sys.executable, "-m", "attnio.cli", "explore", "--dag", "attention-forward",
               "--n", "1", "--d", "1", "--M", "3"]  # fmt: skip
    # A shell that starts pytest in the background ignores SIGINT, and children inherit
    # that: the server gets the default disposition back so that Ctrl-C reaches it.
    default_sigint = functools.partial(signal.signal, signal.SIGINT, signal.SIG_DFL)
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=default_sigint,
    ) as process:
        try:
            start = time.monotonic()
            url = None
            while url is None and time.monotonic() - start < 60:
                line = process.stdout.readline()
                if "http://127.0.0.1:" in line:
                    url = line.split()[1]
            assert url is not None
            with urllib.request.urlopen(url, timeout=60) as response:
                assert b"attnio-explorer" in response.read()
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=60) == 130
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


# ------------------------------------------------------------------ notebook


def test_explore_without_anywidget_says_what_to_install(monkeypatch):
    """attnio.explore without anywidget raises an ImportError naming attnio[notebook]."""
    import attnio

    monkeypatch.setitem(sys.modules, "anywidget", None)
    with pytest.raises(NotebookMissingError, match=r"attnio\[notebook\]"):
        attnio.explore("attention-forward", 1, 1)


def test_widget_answers_requests_in_the_kernel():
    """The widget carries the front-end module and answers its requests (and refusals)."""
    pytest.importorskip("anywidget")
    import attnio

    widget = attnio.explore("attention-forward", 1, 1, M=3)
    assert "export function render" in widget._esm
    assert widget.data["M"] == 3 and widget.data["host"] == "widget"
    sent = []
    widget.send = sent.append
    widget._answer(widget, {"id": "a", "request": {"kind": "bounds", "M": 3}}, [])
    widget._answer(widget, {"id": "b", "request": {"kind": "bounds", "M": 0}}, [])
    assert sent[0]["id"] == "a" and sent[0]["reply"]["M"] == 3
    assert sent[1]["id"] == "b" and "M=0" in sent[1]["error"]


def test_rich_reprs():
    """A Dag draws as SVG with every label on hover (none above the limit); a Pebbling shows
    its cost and whether it is proven."""
    dag = builders.build("attention-forward", 1, 1)
    picture = dag._repr_svg_()
    assert picture.startswith("<svg") and all(f"<title>{x}</title>" in picture for x in dag.labels)
    big = Dag.from_edges(MAX_PICTURE_VERTICES + 1, [])
    assert big._repr_svg_() is None
    table = solve_heuristic(dag, 3)._repr_html_()
    assert "I/O" in table and "proven" in table


def test_every_front_end_file_ships_as_package_data():
    """Every file the pages use is shipped: pyproject's package data covers explorer/static."""
    import pathlib
    import tomllib

    repo = pathlib.Path(__file__).resolve().parents[1]
    patterns = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["attnio.explorer"]
    shipped = {p for pattern in patterns for p in (repo / "explorer").glob(pattern)}
    assert {repo / "explorer" / "static" / name for name in ASSETS} <= shipped
    assert set((repo / "explorer" / "static").iterdir()) <= shipped


@pytest.mark.parametrize(
    "name",
    [
        *(f"attnio.explorer.{m}" for m in ("layout", "instance", "api", "page", "offline")),
        *(f"attnio.explorer.{m}" for m in ("server", "widget", "errors")),
    ],
)
def test_docstring_examples_run(name):
    """Every >>> example in the explorer's modules gives its output (the pebble modules'
    notebook pictures, in dag.py and result.py, are tests/test_docs.py's)."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


# ------------------------------------------------------------------ what a reader sees


def test_bounds_rows_carry_labels_and_typeset_formulas(small):
    """Every bounds row names its record by the tables' label, and the page data holds each
    record's statement and conditions as SVG (no sympy code such as ``**``)."""
    from attnio.bounds import get
    from attnio.bounds.labels import label

    data = small.describe(4)
    rows = small.bounds(4)["rows"]
    assert rows
    for row in rows:
        typeset = data["formulas"][row["name"]]
        assert row["label"] == typeset["label"] == label(get(row["name"]))
        assert typeset["statement"] and all(s.startswith("<svg") for s in typeset["statement"])
        for markup in typeset["statement"] + typeset["conditions"]:
            assert "**" not in markup and "<script" not in markup and "<metadata" not in markup
    flash = data["formulas"]["flash-forward-count"]
    assert len(flash["conditions"]) == 1  # 5 d + 4 <= M


def test_a_bound_at_or_below_zero_or_the_compulsory_io_is_vacuous(small):
    """A lower bound's row is ``vacuous`` exactly when its value is at most zero or below the
    DAG's compulsory I/O; the compulsory bound itself is not."""
    reply = small.bounds(4)
    rows = {row["name"]: row for row in reply["rows"]}
    assert rows["dense-forward-lower-large-explicit"]["value"] < 0
    assert rows["dense-forward-lower-large-explicit"]["vacuous"] is True
    assert rows["dense-forward-compulsory"]["vacuous"] is False
    for row in reply["rows"]:
        if "value" in row and row["kind"] != "upper":
            expected = row["value"] <= 0 or row["value"] < reply["compulsory"]
            assert row["vacuous"] is expected, row["name"]
        if row["kind"] == "upper":
            assert "vacuous" not in row


def test_formulas_typeset_every_record_of_the_catalog():
    """mathtext reads the LaTeX of every record's statement and conditions (piecewise
    forms one line per piece), and each SVG's ids are its own."""
    import re

    from attnio.bounds import catalog
    from attnio.explorer.formula import condition_svgs, statement_svgs

    ids: dict[str, str] = {}
    for bound in catalog():
        lines = statement_svgs(bound)
        pieces = len(bound.explicit.args) if type(bound.explicit).__name__ == "Piecewise" else 1
        assert len(lines) == (pieces if bound.explicit is not None else 1), bound.name
        for markup in lines + condition_svgs(bound):
            for ident in re.findall(r'id="([^"]+)"', markup):
                assert ids.setdefault(ident, markup) == markup


SHAPE_REACH = 14.5
"""How far a drawn vertex reaches from its centre (explorer.js): circles of radius 11, input
squares of half side 11 with corners rounded by 3 (8 * sqrt(2) + 3 = 14.3), output rings of
radius 14.5."""


def _distances(corners, points):
    """The least distance from each of ``points`` (m x 2) to the polyline ``corners`` (k x 2)."""
    import numpy as np

    a, b = corners[:-1, None, :], corners[1:, None, :]
    d = b - a
    t = np.clip(((points[None] - a) * d).sum(-1) / (d * d).sum(-1), 0.0, 1.0)
    return np.sqrt(((a + t[..., None] * d - points[None]) ** 2).sum(-1)).min(axis=0)


def _shared_stretches(segments):
    """Pairs of edges, among ``segments`` (``(edge, (x0, y0), (x1, y1))``), that run along
    each other: two segments on one line whose extents overlap by more than 0.5."""
    import numpy as np

    lines: dict[tuple, list] = {}
    for edge, start, end in segments:
        start, end = np.array(start, float), np.array(end, float)
        direction = (end - start) / np.hypot(*(end - start))
        if direction[0] < 0 or (direction[0] == 0 and direction[1] < 0):
            direction = -direction
        offset = start[0] * direction[1] - start[1] * direction[0]
        key = (round(direction[0], 4), round(direction[1], 4), round(offset, 1))
        extent = sorted((start @ direction, end @ direction))
        lines.setdefault(key, []).append((edge, *extent))
    return {
        (a, b)
        for group in lines.values()
        for (a, lo_a, hi_a), (b, lo_b, hi_b) in itertools.combinations(group, 2)
        if min(hi_a, hi_b) - max(lo_a, lo_b) > 0.5
    }


def _assert_drawn_apart(dag, picture):
    """No two vertices overlap; every edge stays in the drawing, goes down, keeps CLEARANCE
    (more than a vertex's reach) from every vertex it does not join and runs along no edge
    it shares no vertex with; no two short labels (9 px monospace, centred 19 above their
    vertex) overlap."""
    import numpy as np

    from attnio.explorer.layout import CLEARANCE

    assert CLEARANCE > SHAPE_REACH
    xy = np.column_stack([picture["x"], picture["y"]]).astype(float)
    assert len(xy) == dag.num_vertices
    apart = np.sqrt(((xy[:, None] - xy[None]) ** 2).sum(-1)) + np.diag([np.inf] * len(xy))
    assert apart.min() >= 2 * SHAPE_REACH
    bends = {(u, v): path for u, v, path in picture["bends"]}
    segments = []
    for u, v in dag.edges().tolist():
        corners = np.array([xy[u], *bends.get((u, v), []), xy[v]], dtype=float)
        assert (np.diff(corners[:, 1]) >= 0).all() and corners[-1, 1] > corners[0, 1]
        assert (corners >= 0).all() and (corners[:, 0] <= picture["width"]).all()
        assert (corners[:, 1] <= picture["height"]).all()
        others = np.delete(xy, [u, v], axis=0)
        if len(others):
            assert _distances(corners, others).min() >= CLEARANCE, (u, v)
        segments += [((u, v), a, b) for a, b in itertools.pairwise(corners.tolist())]
    for a, b in _shared_stretches(segments):
        assert set(a) & set(b), (a, b)
    width = np.array([9 * 0.62 * len(text) for text in picture["short"]])
    for a, b in itertools.combinations(np.flatnonzero(width), 2):
        side_by_side = abs(xy[a, 0] - xy[b, 0]) >= (width[a] + width[b]) / 2
        assert side_by_side or abs(xy[a, 1] - xy[b, 1]) >= 12, (a, b)


SMALL_DRAWINGS = [
    pytest.param(kind, n, d, options, id=f"{kind}-{n}-{d}-" + "-".join(map(str, options.values())))
    for kind in builders.KINDS
    for n, d in itertools.product((1, 2), repeat=2)
    for options in (
        [{"tree": "chain"}, {"tree": "balanced"}]
        + ([{"mask": "full"}, {"mask": "band:0"}] if kind.startswith("sparse") else [])
        + ([{"degree": 1}] if kind.startswith("approx") else [])
    )
]


@pytest.mark.parametrize(("kind", "n", "d", "options"), SMALL_DRAWINGS)
def test_small_builder_drawings_keep_vertices_and_edges_apart(kind, n, d, options):
    """For every builder at n, d in {1, 2} (both summation trees, three sparse masks, two
    feature degrees), the staged drawing puts no two vertices in one place, draws no edge
    through a vertex it does not join, gives every vertex a short label and lets no two
    labels overlap; the backward DAG at n = d = 1, once drawn as one column, sets its
    independent products side by side."""
    dag = builders.build(kind, n, d, **options)
    picture = layout(dag)
    _assert_drawn_apart(dag, picture)
    assert all(picture["short"])
    if n == d == 1 and kind.endswith("backward"):
        computed = set(range(dag.num_vertices)) - set(dag.inputs.tolist())
        assert len({picture["y"][v] for v in computed}) < len(computed)


@settings(max_examples=examples(60))
@given(dags(min_vertices=1, max_vertices=14))
def test_layered_drawings_keep_vertices_and_edges_apart(dag):
    """A graph file drawn in topological layers has the same geometry: no two vertices in
    one place, no edge through a vertex it does not join."""
    _assert_drawn_apart(dag, layout(dag, staged=False))


def test_short_labels_fit_and_name_the_vertex():
    """Each vertex's short label is at most SHORT_LABEL_CHARS characters and is its label's
    head or the index part of it."""
    from attnio.explorer.layout import SHORT_LABEL_CHARS

    dag = builders.build("attention-backward", 2, 1)
    picture = layout(dag)
    assert len(picture["short"]) == dag.num_vertices
    assert sum(bool(s) for s in picture["short"]) == dag.num_vertices  # all fit at n=2, d=1
    for text, short in zip(dag.labels, picture["short"], strict=True):
        assert len(short) <= SHORT_LABEL_CHARS
        assert short in (text.split("=")[0], text.split("[", 1)[-1].split("]")[0], "")


def test_the_offline_curve_spans_several_memory_sizes(small):
    """An --html file written for one M still carries an IO(M) curve over CURVE_MIN_POINTS
    sizes (as far as the DAG allows), containing that M."""
    from attnio.explorer.offline import CURVE_MIN_POINTS, curve_range

    for Ms in ([4], [26], [3], [4, 5]):
        low, high = curve_range(small, Ms)
        assert low <= min(Ms) and max(Ms) <= high
        assert high - low + 1 == CURVE_MIN_POINTS
        assert small.dag.min_memory <= low and high <= small.max_memory


def test_a_bound_with_a_square_root_reads_as_a_decimal() -> None:
    """A record whose value at the point is irrational (a square root of 3 in the forward
    corner bound, here negative, so vacuous) is shown as an approximate decimal, never as
    sympy code; a rational value stays exact. (Found when the corner record gained its
    sqrt(3): the bounds panel printed "-8 + 32*sqrt(3)/(9*sqrt(3) + 32)".)"""
    from attnio.bounds import get
    from attnio.explorer.instance import _row

    point = {"n": 2, "d": 1, "M": 4}
    corner = _row(get("dense-forward-lower-large-segments-corner"), point, 8)
    assert corner["exact"].startswith("≈ ") and "sqrt" not in corner["exact"]
    assert abs(float(corner["exact"][2:]) - corner["value"]) <= 1e-5 * abs(corner["value"])
    assert corner["vacuous"]
    assert _row(get("dense-forward-compulsory"), point, 8)["exact"] == "8"


def test_the_bounds_reply_says_where_the_derived_bounds_start_to_bite() -> None:
    """At n = 2, d = 1, M = 5 every derived lower bound is at most the compulsory I/O; the
    reply's ``bite`` names the least n at which one exceeds it at that d and M (none does
    at n - 1), computed from the records."""
    from attnio.bounds import Status, catalog

    instance = Instance.from_builder("attention-forward", 2, 1)
    bite = instance.bounds(5)["bite"]
    assert bite["here"] is False and (bite["d"], bite["M"], bite["page_n"]) == (1, 5, 2)
    records = catalog(regime="dense", pass_="forward", kind="lower")

    def exceeds(n: int) -> bool:
        floor = 4 * n * 1
        point = {"n": n, "d": 1, "M": 5}
        return any(
            b.status is Status.DERIVED
            and not b.name.endswith("-compulsory")
            and b.explicit is not None
            and set(b.parameters) <= set(point)
            and b.applies(**point)
            and b.evaluate(**point) > floor
            for b in records
        )

    assert exceeds(bite["n"]) and not exceeds(bite["n"] - 1)
