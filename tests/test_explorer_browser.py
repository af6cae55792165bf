"""The explorer's front end in a real browser: headless Chromium driven by Selenium.

Skips (with the reason) only when chromium or chromedriver is absent; CI installs both.
Screenshots are taken under pytest's temporary directory (``explorer-screens``) and kept
as test artifacts in ``test-artifacts/screenshots/`` of the checkout (git ignores it), or in
the folder ``ATTNIO_SCREENSHOTS`` names.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnio.explorer import Instance
from attnio.explorer.offline import offline_page
from attnio.explorer.server import ExplorerServer
from attnio.pebble import Dag, IllegalMoveError, replay, solve_heuristic
from attnio.pebble.moves import OPS
from strategies import dags, examples

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="headless browser tests need chromium and chromedriver (apt: chromium chromium-driver)",
)

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WAIT = 60


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="attnio-chromium-")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(WAIT)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def screens(tmp_path_factory):
    return tmp_path_factory.mktemp("explorer-screens")


ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "screenshots"
"""Where the screenshots stay after the run (CI keeps the checkout's test-artifacts/)."""


def _keep(driver, screens: Path, name: str) -> Path:
    path = screens / name
    driver.save_screenshot(str(path))
    kept = Path(os.environ.get("ATTNIO_SCREENSHOTS") or ARTIFACTS)
    kept.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, kept / name)
    return path


def _text(driver, role: str) -> str:
    return driver.find_element(By.CSS_SELECTOR, f"[data-role={role}]").text


def _wait_text(driver, role: str, predicate) -> str:
    WebDriverWait(driver, WAIT).until(lambda d: predicate(_text(d, role)))
    return _text(driver, role)


@pytest.fixture(scope="module")
def small():
    """attention-forward n=2, d=1: the newcomer's example (26 vertices)."""
    return Instance.from_builder("attention-forward", 2, 1, exact_seconds=60)


@pytest.fixture(scope="module")
def offline_file(small, tmp_path_factory):
    path = tmp_path_factory.mktemp("explorer-html") / "explore.html"
    path.write_text(offline_page(small, [4, 5]), encoding="utf-8")
    return path


# --------------------------------------------------------------- game logic vs replay


def _python(dag: Dag, moves, M: int, variant: str) -> dict:
    try:
        result = replay(dag, moves, M, variant)
    except IllegalMoveError as error:
        return {"ok": False, "index": error.index, "reason": error.reason}
    return {"ok": True, **result._asdict()}


def _javascript(driver, dag: Dag, moves, M: int, variant: str) -> dict:
    payload = {
        "labels": list(dag.labels),
        "preds": [dag.predecessors(v).tolist() for v in range(dag.num_vertices)],
        "outputs": dag.outputs.tolist(),
    }
    out = driver.execute_script(
        "const r = window.attnioExplorer.replayMoves(arguments[0], arguments[1], arguments[2],"
        " arguments[3]); delete r.rule; return r;",
        payload,
        [list(m) for m in moves],
        M,
        variant,
    )
    return out


@st.composite
def move_sequences(draw):
    """A small DAG, M, a variant and moves: random, a legal pebbling, or one with a change."""
    dag = draw(dags(min_vertices=1, max_vertices=7))
    M = draw(st.integers(dag.min_memory, dag.min_memory + 2))
    variant = draw(st.sampled_from(["standard", "oneshot"]))
    random_move = st.tuples(st.sampled_from(OPS), st.integers(0, dag.num_vertices - 1))
    style = draw(st.sampled_from(["random", "legal", "changed", "cut"]))
    if style == "random":
        return dag, M, variant, draw(st.lists(random_move, max_size=14))
    moves = [tuple(m) for m in solve_heuristic(dag, M, heuristic="lru", moves=True).moves]
    if style == "changed" and moves:
        at = draw(st.integers(0, len(moves)))
        moves.insert(at, draw(random_move))
    if style == "cut" and moves:
        moves = moves[: draw(st.integers(0, len(moves) - 1))]
    return dag, M, variant, moves


def test_game_logic_agrees_with_replay(browser, offline_file):
    """The front end's Game accepts and refuses exactly the moves attnio.pebble.replay does,
    with the same refusal text at the same index, and counts the same I/O and peak."""
    browser.get(offline_file.as_uri())
    WebDriverWait(browser, WAIT).until(lambda d: d.execute_script("return !!window.attnioExplorer"))
    seen = {"ok": 0, "refused": 0}

    @settings(
        max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow], deadline=None
    )
    @given(move_sequences())
    def check(case):
        dag, M, variant, moves = case
        expected = _python(dag, moves, M, variant)
        assert _javascript(browser, dag, moves, M, variant) == expected
        seen["ok" if expected["ok"] else "refused"] += 1

    check()
    assert seen["ok"] and seen["refused"], seen


def test_game_logic_quotes_labels_as_python(browser, offline_file):
    """Labels with quotes and backslashes appear in refusals exactly as Python's repr shows them."""
    browser.get(offline_file.as_uri())
    WebDriverWait(browser, WAIT).until(lambda d: d.execute_script("return !!window.attnioExplorer"))
    dag = Dag.from_edges(["it's", 'say "hi"', "a\\b", "both'\""], [(0, 3), (1, 3), (2, 3)])
    for v in range(4):
        for op in OPS:
            moves = [(op, v)]
            assert _javascript(browser, dag, moves, 4, "standard") == _python(
                dag, moves, 4, "standard"
            )


# --------------------------------------------------------------- the pages


def _step_to_end_and_refuse(driver, certificate_io: int, screens: Path, name: str) -> None:
    _wait_text(driver, "message", lambda t: "proven optimum" in t)
    driver.find_element(By.CSS_SELECTOR, "[data-role=last]").click()
    io = _text(driver, "io")
    assert int(io) == certificate_io
    assert "/ " in _text(driver, "step")
    _keep(driver, screens, f"{name}-end.png")
    # back to the start with the keyboard, one step forward
    root = driver.find_element(By.CSS_SELECTOR, ".attnio-explorer")
    root.send_keys(Keys.HOME)
    root.send_keys(Keys.ARROW_RIGHT)
    assert _text(driver, "step").startswith("step 1 /")
    # an illegal move: compute an output whose predecessors are not red
    driver.find_element(By.CSS_SELECTOR, "[data-vertex='25']").click()
    driver.find_element(By.CSS_SELECTOR, "[data-role=op-compute]").click()
    message = driver.find_element(By.CSS_SELECTOR, "[data-role=message]")
    assert message.get_attribute("data-kind") == "refusal"
    assert "is not red" in message.text and "R3 compute" in message.text
    _keep(driver, screens, f"{name}-refused.png")


def test_server_page_end_to_end(browser, small, screens):
    """The server page steps the proven optimal pebbling to its end with the certificate's I/O,
    refuses an illegal move naming its rule, recomputes for a new M, and plays a whole
    pebbling by hand to the optimum."""
    certificate = small.solve(4, "standard", "exact")
    assert certificate["optimal"]
    server = ExplorerServer(small, 4, "standard")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    try:
        browser.get(server.url)
        _step_to_end_and_refuse(browser, certificate["io"], screens, "server")
        # change M: the page asks the server and shows the new optimum
        expected = small.solve(6, "standard", "exact")["io"]
        field = browser.find_element(By.CSS_SELECTOR, "[data-role=M]")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys("6", Keys.TAB)
        text = _wait_text(browser, "optimum", lambda t: "IO(M=6)" in t)
        assert text.endswith(f"= {expected}")
        _wait_text(browser, "message", lambda t: "proven optimum" in t)
        # play the optimal pebbling by hand, by clicks, and reach the optimum
        browser.find_element(By.CSS_SELECTOR, "[data-role=play-hand]").click()
        moves = small.solve(6, "standard", "exact")["moves"]
        for op, vertex in moves:
            browser.find_element(By.CSS_SELECTOR, f"[data-vertex='{vertex}']").click()
            browser.find_element(By.CSS_SELECTOR, f"[data-role=op-{op}]").click()
        message = _text(browser, "message")
        assert "You matched the proven optimum" in message
        assert int(_text(browser, "io")) == expected
        # undo takes the last move back
        browser.find_element(By.CSS_SELECTOR, "[data-role=undo]").click()
        last_cost = 1 if moves[-1][0] in ("load", "store") else 0
        assert int(_text(browser, "io")) == expected - last_cost
        assert _text(browser, "step") == f"move {len(moves) - 1}"
        # the curve
        for role, value in (("curve-lo", "4"), ("curve-hi", "7")):
            field = browser.find_element(By.CSS_SELECTOR, f"[data-role={role}]")
            field.send_keys(Keys.CONTROL, "a")
            field.send_keys(value)
        browser.find_element(By.CSS_SELECTOR, "[data-role=curve]").click()
        WebDriverWait(browser, WAIT).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "[data-role=curve-svg] circle.ax-opt")
        )
        _keep(browser, screens, "server-curve.png")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_server_page_switches_to_the_one_shot_variant(browser, small):
    """On the server page the variant menu asks the engine for the one-shot optimum, and hand
    play then refuses a recomputation naming the one-shot rule, as the replayer does; the
    same recomputation is legal in the standard variant."""
    server = ExplorerServer(small, 4, "standard")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    moves = [("load", 0), ("load", 2), ("compute", 6), ("delete", 6), ("compute", 6)]
    try:
        browser.get(server.url)
        _wait_text(browser, "message", lambda t: "proven optimum" in t)
        expected = {}
        for variant in ("standard", "oneshot"):
            select = browser.find_element(By.CSS_SELECTOR, "[data-role=variant]")
            select.find_element(By.CSS_SELECTOR, f"option[value='{variant}']").click()
            expected[variant] = small.solve(4, variant, "exact")["io"]
            text = _wait_text(browser, "message", lambda t: "proven optimum" in t)
            assert f"proven optimum IO = {expected[variant]}" in text
            browser.find_element(By.CSS_SELECTOR, "[data-role=play-hand]").click()
            for op, vertex in moves:
                browser.find_element(By.CSS_SELECTOR, f"[data-vertex='{vertex}']").click()
                browser.find_element(By.CSS_SELECTOR, f"[data-role=op-{op}]").click()
            message = browser.find_element(By.CSS_SELECTOR, "[data-role=message]")
            if variant == "standard":
                replay_ok = _python(small.dag, moves, 4, variant)
                assert message.get_attribute("data-kind") != "refusal"
                assert _text(browser, "step") == f"move {len(moves)}"
                assert "index" not in replay_ok or replay_ok["index"] >= len(moves)
            else:
                refused = _python(small.dag, moves, 4, variant)
                assert refused["ok"] is False and refused["index"] == len(moves) - 1
                assert message.get_attribute("data-kind") == "refusal"
                assert "one-shot" in message.text and refused["reason"] in message.text
                assert _text(browser, "step") == f"move {len(moves) - 1}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_offline_file_works_from_file_url(browser, small, offline_file, screens):
    """The self-contained file, opened from file://, steps the proven optimum to its end,
    refuses an illegal move, switches to another precomputed M and draws the curve."""
    browser.get(offline_file.as_uri())
    _step_to_end_and_refuse(browser, small.solve(4, "standard", "exact")["io"], screens, "file")
    select = browser.find_element(By.CSS_SELECTOR, "[data-role=M]")
    select.find_element(By.CSS_SELECTOR, "option[value='5']").click()
    text = _wait_text(browser, "optimum", lambda t: "IO(M=5)" in t)
    assert text.endswith(f"= {small.solve(5, 'standard', 'exact')['io']}")
    assert browser.find_elements(By.CSS_SELECTOR, "[data-role=curve-svg] circle")
    assert "Compulsory I/O" in _text(browser, "bounds")


def test_the_url_fragment_opens_the_page_at_a_step_and_m(browser, small, offline_file):
    """`#step=3&M=5` opens the file at M = 5 with the proven optimum shown at step 3 (a
    frame to link to); a fragment naming an M the file has not is ignored."""
    browser.get("about:blank")  # a new fragment on the page already open would not reload it
    browser.get(offline_file.as_uri() + "#step=3&M=5")
    text = _wait_text(browser, "optimum", lambda t: "IO(M=5)" in t)
    assert text.endswith(f"= {small.solve(5, 'standard', 'exact')['io']}")
    total = len(small.solve(5, "standard", "exact")["moves"])
    assert _wait_text(browser, "step", lambda t: t.startswith("step 3 ")) == f"step 3 / {total}"
    browser.get("about:blank")
    browser.get(offline_file.as_uri() + "#step=2&M=9")
    assert "IO(M=4)" in _wait_text(browser, "optimum", lambda t: "IO(M=" in t)
    assert _wait_text(browser, "step", lambda t: t.startswith("step 2 ")).startswith("step 2 /")


def test_what_a_reader_sees_in_the_bounds_panel_and_the_curve(browser, small, tmp_path, screens):
    """A file written for one M: the bounds panel shows the tables' labels, typeset formulas
    (SVG, no ``**`` or ``sqrt(`` code, no record ids), "vacuous here" for the negative
    large-cache bound, "applies only when" with a typeset condition; the IO(M) plot spans
    several M, has a y-axis label, integer 1-2-5 ticks, one legend entry per drawn thing
    and the note on the algorithms' counts; vertices carry short labels."""
    from attnio.bounds import catalog

    path = tmp_path / "one-M.html"
    path.write_text(offline_page(small, [4]), encoding="utf-8")
    browser.get(path.as_uri())
    WebDriverWait(browser, WAIT).until(
        lambda d: (
            d.find_elements(By.CSS_SELECTOR, "[data-role=curve-svg]")
            and d.find_elements(By.CSS_SELECTOR, "[data-role=bound-row]")
        )
    )
    bounds = _text(browser, "bounds")
    for bound in catalog():
        assert bound.name not in bounds
    assert "**" not in bounds and "sqrt(" not in bounds and "d**2" not in bounds
    rows = browser.find_elements(By.CSS_SELECTOR, "[data-role=bound-row]")
    labels = [r.find_element(By.CSS_SELECTOR, "[data-role=bound-label]").text for r in rows]
    assert "Explicit lower bound, large cache" in labels and "FlashAttention, exact" in labels
    for row in rows:
        assert row.find_elements(By.CSS_SELECTOR, "[data-role=bound-formula] svg")
    by_label = dict(zip(labels, rows, strict=True))
    value = by_label["Explicit lower bound, large cache"].find_element(
        By.CSS_SELECTOR, "[data-role=bound-value]"
    )
    assert value.text.startswith("vacuous here")
    small_cache = by_label["Explicit lower bound, small cache"].find_element(
        By.CSS_SELECTOR, "[data-role=bound-value]"
    )
    assert small_cache.text.startswith("applies only when")
    assert small_cache.find_elements(By.CSS_SELECTOR, "svg")
    ticks = [int(t.text) for t in browser.find_elements(By.CSS_SELECTOR, "[data-role=y-tick]")]
    step = ticks[1] - ticks[0]
    assert ticks[0] == 0 and all(b - a == step for a, b in itertools.pairwise(ticks))
    assert step / 10 ** (len(str(step)) - 1) in (1, 2, 5)
    xs = browser.find_elements(By.CSS_SELECTOR, "[data-role=x-tick]")
    assert len(xs) >= 6
    assert (
        "IO, the words moved" in browser.find_element(By.CSS_SELECTOR, "[data-role=y-label]").text
    )
    legend = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "[data-role=legend-entry]")]
    curve = small.curve("standard", 3, 10)
    drawn = [s for s in curve["bounds"] if any(v is not None and v > 0 for v in s["values"])]
    expected = (
        len(drawn)
        + any(p["optimal"] for p in curve["points"])
        + any(not p["optimal"] for p in curve["points"])
    )
    assert len(legend) == expected and "Compulsory I/O" in legend
    assert "another computation than this graph" in _text(browser, "curve-note")
    counts = [s for s in drawn if s["count"]]
    assert counts and all(f"{s['label']} (other computation)" in legend for s in counts)
    bite = small.bounds(4)["bite"]
    assert bite is not None and bite["n"] > 2
    assert f"from n = {bite['n']}" in _text(browser, "bounds-bite")
    shorts = browser.find_elements(By.CSS_SELECTOR, "[data-role=dag] text.ax-short")
    assert len(shorts) == len(small.dag.labels)
    _keep(browser, screens, "reader-one-M.png")


def test_hover_slider_play_and_keys(browser, small, offline_file):
    """Hovering a vertex names it and its predecessors; the slider goes to a step with the
    I/O of that prefix of the certificate; play advances and stops; in hand play the keys
    l and u load the selected input (I/O 1) and undo it (I/O 0)."""
    from selenium.webdriver.common.action_chains import ActionChains

    browser.get(offline_file.as_uri())
    _wait_text(browser, "message", lambda t: "proven optimum" in t)
    moves = small.solve(4, "standard", "exact")["moves"]
    labels = small.dag.labels
    vertex = browser.find_element(By.CSS_SELECTOR, "[data-vertex='8']")
    ActionChains(browser).move_to_element(vertex).perform()
    preds = ", ".join(labels[p] for p in small.dag.predecessors(8))
    assert _wait_text(browser, "hover", bool) == f"{labels[8]} ← {preds}"
    assert "S[1,0]" in labels[8]
    step = 10
    browser.execute_script(
        "const s = arguments[0]; s.value = arguments[1];"
        " s.dispatchEvent(new Event('input', {bubbles: true}));",
        browser.find_element(By.CSS_SELECTOR, "[data-role=slider]"),
        str(step),
    )
    assert _text(browser, "step") == f"step {step} / {len(moves)}"
    assert int(_text(browser, "io")) == sum(op in ("load", "store") for op, _ in moves[:step])
    browser.find_element(By.CSS_SELECTOR, "[data-role=play]").click()
    _wait_text(browser, "step", lambda t: int(t.split()[1]) > step + 1)
    browser.find_element(By.CSS_SELECTOR, "[data-role=play]").click()
    stopped = _text(browser, "step")
    time.sleep(1)
    assert _text(browser, "step") == stopped
    browser.find_element(By.CSS_SELECTOR, "[data-role=play-hand]").click()
    browser.find_element(By.CSS_SELECTOR, "[data-vertex='0']").click()
    root = browser.find_element(By.CSS_SELECTOR, ".attnio-explorer")
    root.send_keys("l")
    assert int(_text(browser, "io")) == 1 and _text(browser, "step") == "move 1"
    root.send_keys("u")
    assert int(_text(browser, "io")) == 0 and _text(browser, "step") == "move 0"


def test_each_solver_runs_on_demand(browser, small, offline_file):
    """Choosing Belady, LRU or the order search and pressing Solve shows that pebbling as an
    upper bound (never an optimum), and it steps to its end at the reply's I/O."""
    browser.get(offline_file.as_uri())
    _wait_text(browser, "message", lambda t: "proven optimum" in t)
    for method in ("belady", "lru", "search"):
        reply = small.solve(4, "standard", method)
        select = browser.find_element(By.CSS_SELECTOR, "[data-role=method]")
        select.find_element(By.CSS_SELECTOR, f"option[value='{method}']").click()
        browser.find_element(By.CSS_SELECTOR, "[data-role=solve]").click()
        text = _wait_text(browser, "message", lambda t, m=method: t.startswith(f"{m}:"))
        assert f"{method}: I/O {reply['io']} (an upper bound on IO)" in text
        browser.find_element(By.CSS_SELECTOR, "[data-role=last]").click()
        assert int(_text(browser, "io")) == reply["io"]
        assert _text(browser, "step") == f"step {len(reply['moves'])} / {len(reply['moves'])}"


def test_an_unproven_exact_result_shows_its_bounds(browser, tmp_path):
    """An exact solve stopped by its state limit is shown as 'lower <= IO <= upper', never as
    a proven optimum, and its pebbling still steps to its end at the replayed cost."""
    instance = Instance.from_builder("attention-forward", 2, 1, max_states=200)
    reply = instance.solve(4, "standard", "exact")
    assert not reply["optimal"]
    page = tmp_path / "limited.html"
    page.write_text(offline_page(instance, [4]), encoding="utf-8")
    browser.get(page.as_uri())
    bracket = f"{reply['lower']} ≤ IO ≤ {reply['upper']}"
    text = _wait_text(browser, "message", lambda t: "not proven within the limit" in t)
    assert bracket in text and "proven optimum" not in text
    assert _text(browser, "optimum") == f"IO(M=4): proven {bracket}"
    browser.find_element(By.CSS_SELECTOR, "[data-role=last]").click()
    assert int(_text(browser, "io")) == reply["io"]


# A stand-in for anywidget's front end: it imports the widget's module from a blob URL (as
# anywidget does), hands render() a model whose custom messages go through window.outbox to
# the test, which answers them with the widget's own Python handler.
_WIDGET_HOST = """<!doctype html>
<html><head><meta charset="utf-8"><style>__CSS__</style></head><body><div id="el"></div>
<script type="module">
const esm = __ESM__;
const data = __DATA__;
const listeners = [];
window.outbox = [];
const model = {
  get: (key) => (key === "data" ? data : undefined),
  on: (event, callback) => { if (event === "msg:custom") listeners.push(callback); },
  off: () => {},
  send: (content) => { window.outbox.push(content); },
};
window.deliver = (content) => listeners.forEach((callback) => callback(content, []));
const url = URL.createObjectURL(new Blob([esm], { type: "text/javascript" }));
const module = await import(url);
module.default.render({ model, el: document.getElementById("el") });
</script></body></html>
"""


def _inline(value: object) -> str:
    return json.dumps(value).replace("<", "\\u003c")


def test_the_notebook_widget_module_plays_against_the_kernel(browser, tmp_path):
    """attnio.explore's widget: its own ES module, loaded as anywidget loads it, draws the DAG
    from the widget's data; its requests, answered by the widget's Python handler as custom
    messages, show the proven optimum and step to the certificate's I/O."""
    pytest.importorskip("anywidget")
    import attnio

    widget = attnio.explore("attention-forward", 2, 1, M=4)
    replies: list = []
    widget.send = replies.append  # what the kernel would send to the page
    page = tmp_path / "widget.html"
    text = _WIDGET_HOST.replace("__CSS__", widget._css)
    text = text.replace("__ESM__", _inline(widget._esm)).replace("__DATA__", _inline(widget.data))
    page.write_text(text, encoding="utf-8")
    browser.get_log("browser")  # drain what earlier pages logged
    browser.get(page.as_uri())

    def pump(until) -> str:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for content in browser.execute_script("return window.outbox.splice(0);") or []:
                widget._answer(widget, content, [])
            for reply in replies:
                browser.execute_script("window.deliver(arguments[0]);", reply)
            replies.clear()
            message = browser.find_elements(By.CSS_SELECTOR, "[data-role=message]")
            if message and until(message[0].text):
                return message[0].text
            time.sleep(0.05)
        raise AssertionError(f"the widget page never showed the expected message: {replies}")

    certificate = widget.instance.solve(4, "standard", "exact")
    assert f"proven optimum IO = {certificate['io']}" in pump(lambda t: "proven optimum" in t)
    assert len(browser.find_elements(By.CSS_SELECTOR, "[data-vertex]")) == 26
    browser.find_element(By.CSS_SELECTOR, "[data-role=last]").click()
    assert int(_text(browser, "io")) == certificate["io"]
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe


def test_move_files_load_and_illegal_ones_are_refused(browser, tmp_path):
    """The page plays the move file given on the command line, and a chosen file with an
    illegal move is refused at that move, naming the rule, as the replayer does."""
    from attnio.pebble import write_moves

    instance = Instance.from_builder("attention-forward", 1, 1)
    moves = solve_heuristic(instance.dag, 3, moves=True).moves
    instance.moves, instance.moves_name = moves, "given.jsonl"
    page = tmp_path / "moves.html"
    page.write_text(offline_page(instance, [3]), encoding="utf-8")
    browser.get(page.as_uri())
    _wait_text(browser, "message", lambda t: "proven optimum" in t)
    browser.find_element(By.CSS_SELECTOR, "[data-role=given-moves]").click()
    io = replay(instance.dag, moves, 3).io
    _wait_text(browser, "message", lambda t: f"legal moves, I/O {io}" in t)
    browser.find_element(By.CSS_SELECTOR, "[data-role=last]").click()
    assert int(_text(browser, "io")) == io
    bad = tmp_path / "bad.jsonl"
    write_moves(bad, [*moves[:2], ("store", moves[0][1]), *moves[2:]], instance.dag)
    with pytest.raises(IllegalMoveError) as refused:
        replay(instance.dag, [*moves[:2], ("store", moves[0][1]), *moves[2:]], 3)
    browser.find_element(By.CSS_SELECTOR, "[data-role=moves-file]").send_keys(str(bad))
    text = _wait_text(browser, "message", lambda t: "refused" in t)
    assert f"move {refused.value.index} refused" in text and refused.value.reason in text


@pytest.mark.parametrize(
    ("kind", "n", "d"),
    [
        ("attention-backward", 1, 1),
        ("sparse-forward", 2, 1),
        ("approx-forward", 1, 1),
        (None, 0, 0),
    ],
)
def test_every_family_draws_and_plays(browser, tmp_path, kind, n, d):
    """Each builder family (in stages) and a graph file (in layers) draws every vertex and
    steps its first pebbling to the end at the reply's I/O, with no error in the console."""
    if kind is None:
        dag = Dag.from_edges(["a", "b", "c", "d", "e"], [(0, 2), (1, 2), (2, 3), (0, 4), (3, 4)])
        instance = Instance.from_dag(dag, "g.json")
    else:
        instance = Instance.from_builder(kind, n, d)
    M = instance.dag.min_memory + 1
    page = tmp_path / "family.html"
    page.write_text(offline_page(instance, [M]), encoding="utf-8")
    browser.get_log("browser")  # drain what earlier pages logged
    browser.get(page.as_uri())
    method = instance.methods()[0]
    expected = instance.solve(M, "standard", method)["io"]
    _wait_text(browser, "message", lambda t: "moves" in t)
    assert len(browser.find_elements(By.CSS_SELECTOR, "[data-vertex]")) == instance.dag.num_vertices
    browser.find_element(By.CSS_SELECTOR, "[data-role=last]").click()
    assert int(_text(browser, "io")) == expected
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe
