// attnio explorer: the red-blue pebble game on a drawn DAG, step by step and by hand.
//
// One plain ES module, no build step and no network. Its entry point is the
// anywidget-style `render({model, el})`; `model.get("data")` is the instance
// (attnio.explorer.instance.Instance.describe) and requests to the Python engine go out
// with `model.send({id, request})` and come back as `msg:custom` messages
// `{id, reply}` or `{id, error}`. The local server page, the self-contained HTML
// file and the notebook widget only differ in that transport (`hostModel`).
//
// The game rules (`Game`) are those of attnio.pebble.replay (HK81, one-shot PW20),
// with the same refusal texts; a test replays random move sequences in both and
// compares them.

export const OPS = ["load", "store", "compute", "delete"];

export const RULES = {
  R1: "R1 load: a red pebble goes only on a vertex with a blue pebble",
  R2: "R2 store: a blue pebble goes only on a vertex with a red pebble",
  R3: "R3 compute: every predecessor must carry a red pebble",
  "R3-input": "R3 compute: inputs are not computed, they are loaded",
  R4: "R4 delete: only a red pebble can be removed",
  capacity: "at most M red pebbles at once",
  duplicate: "a move never adds a pebble the vertex already has",
  "one-shot": "one-shot variant: each vertex is computed at most once",
  goal: "every output must end with a blue pebble",
  format: "a move is an op (load, store, compute, delete) and a vertex index",
};

function pyRepr(text) {
  // Python's repr of a str, for the refusal texts shared with attnio.pebble.replay.
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of text) {
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else out += ch;
  }
  return quote + out + quote;
}

export class Game {
  // The pebbling state of `dag` ({labels, preds, outputs}) with M red pebbles.
  constructor(dag, M, variant) {
    this.dag = dag;
    this.M = M;
    this.variant = variant;
    this.reset();
  }

  reset() {
    const count = this.dag.labels.length;
    this.red = new Array(count).fill(false);
    this.blue = this.dag.preds.map((p) => p.length === 0);
    this.computed = new Array(count).fill(false);
    this.reds = 0;
    this.peak = 0;
    this.loads = 0;
    this.stores = 0;
    this.computes = 0;
    this.history = [];
  }

  get io() {
    return this.loads + this.stores;
  }

  // The refusal of `op` on `vertex`, or null when the move is legal.
  check(op, vertex) {
    const count = this.dag.labels.length;
    if (!OPS.includes(op)) {
      return { rule: "format", reason: `op ${pyRepr(String(op))} is not one of ('load', 'store', 'compute', 'delete')` };
    }
    if (!Number.isInteger(vertex)) {
      return { rule: "format", reason: `vertex ${vertex} is not an integer` };
    }
    if (vertex < 0 || vertex >= count) {
      return { rule: "format", reason: `vertex ${vertex} is outside 0..${count - 1}` };
    }
    const label = pyRepr(this.dag.labels[vertex]);
    const full = { rule: "capacity", reason: `all M=${this.M} red pebbles are in use` };
    if (op === "load") {
      if (this.red[vertex]) return { rule: "duplicate", reason: `vertex ${label} already has a red pebble` };
      if (!this.blue[vertex]) return { rule: "R1", reason: `vertex ${label} has no blue pebble to load` };
      if (this.reds === this.M) return full;
    } else if (op === "store") {
      if (!this.red[vertex]) return { rule: "R2", reason: `vertex ${label} has no red pebble to store` };
      if (this.blue[vertex]) return { rule: "duplicate", reason: `vertex ${label} already has a blue pebble` };
    } else if (op === "compute") {
      const preds = this.dag.preds[vertex];
      if (preds.length === 0) return { rule: "R3-input", reason: `vertex ${label} is an input; load it` };
      if (this.red[vertex]) return { rule: "duplicate", reason: `vertex ${label} already has a red pebble` };
      for (const p of preds) {
        if (!this.red[p]) {
          return { rule: "R3", reason: `predecessor ${pyRepr(this.dag.labels[p])} of ${label} is not red` };
        }
      }
      if (this.variant === "oneshot" && this.computed[vertex]) {
        return { rule: "one-shot", reason: `vertex ${label} computed twice in the one-shot variant` };
      }
      if (this.reds === this.M) return full;
    } else if (!this.red[vertex]) {
      return { rule: "R4", reason: `vertex ${label} has no red pebble to delete` };
    }
    return null;
  }

  // Play the move; return null, or the refusal (and leave the state unchanged).
  apply(op, vertex) {
    const refusal = this.check(op, vertex);
    if (refusal) return refusal;
    this.history.push({ op, vertex, computed: this.computed[vertex], peak: this.peak });
    if (op === "load") {
      this.red[vertex] = true;
      this.reds += 1;
      this.loads += 1;
    } else if (op === "store") {
      this.blue[vertex] = true;
      this.stores += 1;
    } else if (op === "compute") {
      this.red[vertex] = true;
      this.computed[vertex] = true;
      this.reds += 1;
      this.computes += 1;
    } else {
      this.red[vertex] = false;
      this.reds -= 1;
    }
    this.peak = Math.max(this.peak, this.reds);
    return null;
  }

  undo() {
    const last = this.history.pop();
    if (!last) return null;
    const { op, vertex } = last;
    if (op === "load") {
      this.red[vertex] = false;
      this.reds -= 1;
      this.loads -= 1;
    } else if (op === "store") {
      this.blue[vertex] = false;
      this.stores -= 1;
    } else if (op === "compute") {
      this.red[vertex] = false;
      this.computed[vertex] = last.computed;
      this.reds -= 1;
      this.computes -= 1;
    } else {
      this.red[vertex] = true;
      this.reds += 1;
    }
    this.peak = last.peak;
    return last;
  }

  // The refusal for an unfinished pebbling (some output not blue), or null.
  goal() {
    const missing = this.dag.outputs.filter((v) => !this.blue[v]).map((v) => pyRepr(this.dag.labels[v]));
    if (!missing.length) return null;
    const shown = missing.slice(0, 5).join(", ") + (missing.length > 5 ? " ..." : "");
    return { rule: "goal", reason: `${missing.length} output(s) not blue at the end: ${shown}` };
  }
}

// Replay a whole pebbling as attnio.pebble.replay does: the cost, or the first refusal.
export function replayMoves(dag, moves, M, variant) {
  const game = new Game(dag, M, variant);
  for (let index = 0; index < moves.length; index++) {
    const [op, vertex] = moves[index];
    const refusal = game.apply(op, vertex);
    if (refusal) return { ok: false, index, ...refusal };
  }
  const refusal = game.goal();
  if (refusal) return { ok: false, index: moves.length, ...refusal };
  return { ok: true, io: game.io, loads: game.loads, stores: game.stores, computes: game.computes, peak_red: game.peak };
}

// Parse a JSON-lines move file (attnio.pebble.write_moves) into [op, vertex] pairs.
export function parseMoves(text, dag) {
  const moves = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) continue;
    let record;
    try {
      record = JSON.parse(line);
    } catch (error) {
      throw new Error(`line ${i + 1}: not valid JSON`);
    }
    if (!record || typeof record !== "object" || !OPS.includes(record.op) || !Number.isInteger(record.vertex)) {
      throw new Error(`line ${i + 1}: expected {"op": one of ${OPS.join(", ")}, "vertex": int}`);
    }
    if ("label" in record && dag.labels[record.vertex] !== record.label) {
      throw new Error(`line ${i + 1}: vertex ${record.vertex} does not carry label ${JSON.stringify(record.label)}`);
    }
    moves.push([record.op, record.vertex]);
  }
  return moves;
}

// ------------------------------------------------------------------------ hosts

export function requestKey(request) {
  const sorted = {};
  for (const key of Object.keys(request).sort()) sorted[key] = request[key];
  return JSON.stringify(sorted);
}

// A model with anywidget's surface (get, on, send) whose requests go to `transport`.
export function hostModel(data, transport) {
  const listeners = new Map();
  const fire = (event, message) => (listeners.get(event) || []).forEach((cb) => cb(message));
  return {
    get: (key) => (key === "data" ? data : undefined),
    set() {},
    save_changes() {},
    on(event, callback) {
      if (!listeners.has(event)) listeners.set(event, []);
      listeners.get(event).push(callback);
    },
    off(event, callback) {
      if (!listeners.has(event)) return;
      listeners.set(event, listeners.get(event).filter((cb) => cb !== callback));
    },
    send(message) {
      Promise.resolve()
        .then(() => transport(message.request))
        .then(
          (reply) => fire("msg:custom", { id: message.id, reply }),
          (error) => fire("msg:custom", { id: message.id, error: String(error.message || error) }),
        );
    },
  };
}

export function serverTransport(url) {
  return async (request) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request),
    });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    return body;
  };
}

export function staticTransport(responses) {
  return async (request) => {
    const key = requestKey(request);
    if (key in responses) return responses[key];
    throw new Error(
      "not precomputed in this file (it answers only the M values it was written with); " +
        "run `attnio explore` for live solving",
    );
  };
}

// ------------------------------------------------------------------------ view

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function html(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// A tick step for an axis up to about 4 * rough: 1, 2 or 5 times a power of ten, at least 1.
export function niceStep(rough) {
  if (!(rough > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const m of [1, 2, 5, 10]) if (m * power >= rough) return m * power;
  return 10 * power;
}

function describeMove(dag, op, vertex) {
  const rule = { load: "R1", store: "R2", compute: "R3", delete: "R4" }[op];
  const cost = op === "load" || op === "store" ? "cost 1" : "free";
  return `${op} ${dag.labels[vertex]}  (${rule}, ${cost})`;
}

// The page's URL fragment: #step=K (and M=...) opens the page at step K of the pebbling
// at that M, so that a mid-pebbling frame can be linked (or put on a slide).
function fragment() {
  const wanted = {};
  const hash = (typeof location !== "undefined" && location.hash) || "";
  for (const part of hash.replace(/^#/, "").split(/[&;]/)) {
    const [key, value] = part.split("=");
    if ((key === "step" || key === "M") && /^\d+$/.test(value || "")) wanted[key] = Number(value);
  }
  return wanted;
}

class Explorer {
  constructor(model, el) {
    this.model = model;
    this.data = model.get("data");
    this.dag = this.data.dag;
    this.M = this.data.M;
    this.wanted = fragment();
    const M = this.wanted.M;
    const pre = this.data.precomputed;
    if (M !== undefined && (pre ? pre.Ms.includes(M) : M >= this.data.min_memory && M <= this.data.max_memory)) {
      this.M = M;
    }
    this.variant = this.data.variant;
    this.method = this.data.methods[0];
    this.pending = new Map();
    this.nextId = 1;
    this.pebbling = null; // the pebbling being watched
    this.step = 0;
    this.mode = "watch"; // or "play"
    this.hand = null; // Game of the hand play
    this.selected = null;
    this.optimum = null;
    this.timer = null;
    this.onMessage = (message) => {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.error !== undefined) waiting.reject(new Error(message.error));
      else waiting.resolve(message.reply);
    };
    model.on("msg:custom", this.onMessage);
    this.build(el);
    this.load();
  }

  destroy() {
    this.stop();
    if (this.model.off) this.model.off("msg:custom", this.onMessage);
  }

  request(payload) {
    const id = `r${this.nextId++}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.model.send({ id, request: payload });
    });
  }

  // ---------------------------------------------------------------- building

  build(el) {
    const root = html("div", { class: "attnio-explorer", tabindex: "0" }, el);
    this.root = root;
    const head = html("div", { class: "ax-head" }, root);
    html("div", { class: "ax-title" }, head, this.data.title);
    const info = `${this.dag.labels.length} vertices, ${this.dag.edges} edges, ` +
      `min M = ${this.data.min_memory}, compulsory I/O = ${this.data.compulsory}`;
    html("div", { class: "ax-subtitle" }, head, info);

    const bar = html("div", { class: "ax-bar" }, root);
    const mLabel = html("label", {}, bar, "M ");
    const pre = this.data.precomputed;
    if (pre) {
      this.mInput = html("select", { "data-role": "M" }, mLabel);
      for (const M of pre.Ms) html("option", { value: String(M) }, this.mInput, String(M));
      this.mInput.value = String(this.M);
    } else {
      this.mInput = html("input", {
        type: "number", min: String(this.data.min_memory), max: String(this.data.max_memory),
        value: String(this.M), "data-role": "M",
      }, mLabel);
    }
    this.mInput.addEventListener("change", () => {
      const M = Number(this.mInput.value);
      if (!Number.isInteger(M) || M < this.data.min_memory || M > this.data.max_memory) {
        this.say(`M must be an integer from ${this.data.min_memory} to ${this.data.max_memory}`, "error");
        this.mInput.value = String(this.M);
        return;
      }
      this.M = M;
      this.load();
    });
    const vLabel = html("label", {}, bar, " variant ");
    this.variantInput = html("select", { "data-role": "variant" }, vLabel);
    for (const v of this.data.variants) html("option", { value: v }, this.variantInput, v);
    this.variantInput.value = this.variant;
    this.variantInput.addEventListener("change", () => {
      this.variant = this.variantInput.value;
      this.load();
    });
    const sLabel = html("label", {}, bar, " solver ");
    this.methodInput = html("select", { "data-role": "method" }, sLabel);
    for (const m of this.data.methods) html("option", { value: m }, this.methodInput, m);
    const solve = html("button", { "data-role": "solve" }, bar, "Solve");
    solve.addEventListener("click", () => {
      this.method = this.methodInput.value;
      this.solve(this.method);
    });
    const file = html("label", { class: "ax-file" }, bar, " moves file ");
    const fileInput = html("input", { type: "file", accept: ".jsonl,.json,.txt", "data-role": "moves-file" }, file);
    fileInput.addEventListener("change", () => this.readFile(fileInput));
    if (this.data.moves_file) {
      const given = html("button", { "data-role": "given-moves" }, bar, `Load ${this.data.moves_file}`);
      given.addEventListener("click", () => this.givenMoves());
    }

    const main = html("div", { class: "ax-main" }, root);
    this.graph = html("div", { class: "ax-graph" }, main);
    const side = html("div", { class: "ax-side" }, main);
    this.buildSide(side);
    this.drawDag();

    const panels = html("div", { class: "ax-panels" }, root);
    const boundsBox = html("div", { class: "ax-bounds" }, panels);
    html("h3", {}, boundsBox, "Bounds from the catalog");
    this.boundsTable = html("div", { "data-role": "bounds" }, boundsBox);
    const curveBox = html("div", { class: "ax-curve" }, panels);
    html("h3", {}, curveBox, "IO(M) of this DAG");
    const curveBar = html("div", { class: "ax-bar" }, curveBox);
    const lo = this.data.min_memory;
    const hi = Math.min(this.data.max_memory, lo + 9);
    const range = pre && pre.curve ? pre.curve : [lo, hi];
    this.curveLo = html("input", { type: "number", value: String(range[0]), "data-role": "curve-lo" }, curveBar);
    html("span", {}, curveBar, " to ");
    this.curveHi = html("input", { type: "number", value: String(range[1]), "data-role": "curve-hi" }, curveBar);
    const curveButton = html("button", { "data-role": "curve" }, curveBar, "Compute curve");
    curveButton.addEventListener("click", () => this.curve());
    this.curveBox = html("div", { "data-role": "curve-plot" }, curveBox);
    if (pre && pre.curve) this.curve();

    root.addEventListener("keydown", (event) => this.key(event));
  }

  buildSide(side) {
    const status = html("div", { class: "ax-status" }, side);
    this.modeLine = html("div", { class: "ax-mode", "data-role": "mode" }, status);
    this.stepLine = html("div", { "data-role": "step" }, status);
    this.moveLine = html("div", { class: "ax-move", "data-role": "move" }, status);
    const io = html("div", { class: "ax-io" }, status);
    html("span", {}, io, "I/O so far: ");
    this.ioValue = html("b", { "data-role": "io" }, io);
    this.ioDetail = html("span", { "data-role": "io-detail" }, io);
    const red = html("div", {}, status);
    html("span", {}, red, "red pebbles in use: ");
    this.redValue = html("b", { "data-role": "red" }, red);
    this.optimumLine = html("div", { class: "ax-optimum", "data-role": "optimum" }, status);

    const controls = html("div", { class: "ax-controls" }, side);
    const buttons = [
      ["«", "first", () => this.goto(0)],
      ["◀", "previous", () => this.goto(this.step - 1)],
      ["▶ play", "play", () => this.toggle()],
      ["▶", "next", () => this.goto(this.step + 1)],
      ["»", "last", () => this.goto(this.total())],
    ];
    for (const [text, role, action] of buttons) {
      const b = html("button", { "data-role": role, title: role }, controls, text);
      b.addEventListener("click", action);
      if (role === "play") this.playButton = b;
    }
    this.slider = html("input", { type: "range", min: "0", max: "0", value: "0", "data-role": "slider" }, side);
    this.slider.addEventListener("input", () => this.goto(Number(this.slider.value)));

    const play = html("div", { class: "ax-play" }, side);
    const start = html("button", { "data-role": "play-hand" }, play, "Play by hand");
    start.addEventListener("click", () => this.startHand(false));
    const branch = html("button", { "data-role": "branch" }, play, "Continue from this step");
    branch.addEventListener("click", () => this.startHand(true));
    const undo = html("button", { "data-role": "undo" }, play, "Undo");
    undo.addEventListener("click", () => this.undo());
    this.menu = html("div", { class: "ax-menu", "data-role": "menu" }, side);
    this.message = html("div", { class: "ax-message", "data-role": "message" }, side);
    this.hover = html("div", { class: "ax-hover", "data-role": "hover" }, side);
    const legend = html("div", { class: "ax-legend" }, side);
    legend.innerHTML =
      '<span class="ax-key ax-red"></span> red (fast memory) ' +
      '<span class="ax-key ax-blue"></span> blue (slow memory) ' +
      '<span class="ax-key ax-both"></span> both<br>' +
      "square: input (starts blue) · double ring: output (must end blue)<br>" +
      "load and store cost 1 each, compute and delete are free; at most M red at once<br>" +
      "keys: ← → step, space play, Home/End, l s c d on the selected vertex, u undo";
    this.renderMenu();
  }

  drawDag() {
    const lay = this.dag.layout;
    const root = svg("svg", {
      viewBox: `0 0 ${lay.width} ${lay.height}`, class: "ax-dag", "data-role": "dag",
      width: String(lay.width), preserveAspectRatio: "xMidYMin meet",
    }, this.graph);
    for (const row of lay.rows) {
      if (!row.title) continue;
      // a row of several stages names each on a line of its own (explorer/layout.py)
      const lines = row.title.split("\n");
      const t = svg("text", { x: "8", y: String(row.y + 4 - 6.5 * (lines.length - 1)), class: "ax-row" }, root);
      lines.forEach((line, i) => {
        const span = svg("tspan", { x: "8", dy: i ? "13" : "0" }, t);
        span.textContent = line;
      });
    }
    const edges = svg("g", { class: "ax-edges" }, root);
    const bends = new Map((lay.bends || []).map(([u, v, path]) => [`${u},${v}`, path]));
    this.dag.preds.forEach((preds, v) => {
      for (const p of preds) {
        const path = bends.get(`${p},${v}`);
        if (path) {
          // through the gaps of the rows it crosses, never through a vertex (explorer/layout.py)
          const d = `M${lay.x[p]},${lay.y[p]} ` + path.map(([x, y]) => `L${x},${y} `).join("") + `L${lay.x[v]},${lay.y[v]}`;
          svg("path", { d, "data-edge": `${p},${v}` }, edges);
        } else {
          svg("line", { x1: lay.x[p], y1: lay.y[p], x2: lay.x[v], y2: lay.y[v], "data-edge": `${p},${v}` }, edges);
        }
      }
    });
    const outputs = new Set(this.dag.outputs);
    this.nodes = [];
    this.dag.labels.forEach((label, v) => {
      const g = svg("g", { class: "ax-vertex", "data-vertex": String(v), transform: `translate(${lay.x[v]},${lay.y[v]})` }, root);
      svg("circle", { r: "17", class: "ax-halo" }, g);
      if (this.dag.preds[v].length === 0) svg("rect", { x: "-11", y: "-11", width: "22", height: "22", rx: "3", class: "ax-body" }, g);
      else svg("circle", { r: "11", class: "ax-body" }, g);
      if (outputs.has(v)) svg("circle", { r: "14.5", class: "ax-out" }, g);
      const short = lay.short ? lay.short[v] : "";
      if (short) {
        const text = svg("text", { x: "0", y: "-19", class: "ax-short", "text-anchor": "middle" }, g);
        text.textContent = short;
      }
      const title = svg("title", {}, g);
      title.textContent = label;
      g.addEventListener("mouseenter", () => {
        const preds = this.dag.preds[v].map((p) => this.dag.labels[p]).join(", ");
        this.hover.textContent = `${label}` + (preds ? ` ← ${preds}` : " (input)");
      });
      g.addEventListener("click", (event) => {
        event.stopPropagation();
        this.select(v);
      });
      this.nodes.push(g);
    });
  }

  // ---------------------------------------------------------------- data

  async load() {
    this.stop();
    this.mode = "watch";
    this.hand = null;
    this.pebbling = null;
    this.optimum = null;
    this.step = 0;
    this.say("");
    this.refresh();
    this.bounds();
    const preferred = this.data.methods.includes("exact") ? "exact" : "belady";
    this.methodInput.value = preferred;
    await this.solve(preferred);
    if (this.wanted.step !== undefined && this.pebbling) {
      this.goto(this.wanted.step); // the fragment's step, once, on the first pebbling shown
      this.wanted = {};
    }
  }

  async solve(method) {
    const M = this.M;
    const variant = this.variant;
    this.stop();
    this.say(`solving with ${method} at M=${M} … (the very first run compiles the solvers: up to a minute, once)`, "busy");
    let result;
    try {
      result = await this.request({ kind: "solve", M, variant, method });
    } catch (error) {
      this.say(`${method}: ${error.message}`, "error");
      return;
    }
    if (M !== this.M || variant !== this.variant) return; // a newer choice superseded it
    this.show(result, method);
  }

  show(result, method) {
    const check = replayMoves(this.dag, result.moves, result.M, result.variant);
    if (!check.ok || check.io !== result.io) {
      this.say(`the ${method} pebbling does not replay: ${check.reason || "cost differs"}`, "error");
      return;
    }
    if (result.method === "exact") {
      this.optimum = { io: result.io, optimal: result.optimal, lower: result.lower, upper: result.upper };
    }
    this.pebbling = { ...result, name: method };
    this.mode = "watch";
    this.hand = null;
    this.step = 0;
    const what = result.optimal && result.method === "exact"
      ? `proven optimum IO = ${result.io}`
      : result.method === "exact"
        ? `not proven within the limit: ${result.lower} ≤ IO ≤ ${result.upper}`
        : `${result.method}: I/O ${result.io} (an upper bound on IO)`;
    this.say(`${what}; ${result.moves.length} moves (${result.seconds} s). Step with → or play.`, "ok");
    this.refresh();
  }

  async bounds() {
    const M = this.M;
    try {
      const reply = await this.request({ kind: "bounds", M });
      if (M === this.M) this.drawBounds(reply);
    } catch (error) {
      this.boundsTable.textContent = error.message;
    }
  }

  async curve() {
    const low = Number(this.curveLo.value);
    const high = Number(this.curveHi.value);
    this.curveBox.textContent = "computing IO(M) …";
    try {
      const reply = await this.request({ kind: "curve", variant: this.variant, low, high });
      this.drawCurve(reply);
    } catch (error) {
      this.curveBox.textContent = error.message;
    }
  }

  async givenMoves() {
    try {
      const reply = await this.request({ kind: "moves" });
      this.loadMoves(reply.moves, reply.name);
    } catch (error) {
      this.say(error.message, "error");
    }
  }

  readFile(input) {
    const file = input.files && input.files[0];
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => {
      try {
        this.loadMoves(parseMoves(String(reader.result), this.dag), file.name);
      } catch (error) {
        this.say(`${file.name}: ${error.message}`, "error");
      }
    };
    reader.readAsText(file);
  }

  loadMoves(moves, name) {
    const check = replayMoves(this.dag, moves, this.M, this.variant);
    if (!check.ok) {
      const rule = RULES[check.rule] || check.rule;
      this.say(`${name}: move ${check.index} refused (${rule}): ${check.reason}`, "error");
      return;
    }
    this.pebbling = {
      method: name, name, moves, io: check.io, loads: check.loads, stores: check.stores,
      M: this.M, variant: this.variant, optimal: false,
    };
    this.mode = "watch";
    this.hand = null;
    this.step = 0;
    this.say(`${name}: ${moves.length} legal moves, I/O ${check.io}`, "ok");
    this.refresh();
  }

  // ---------------------------------------------------------------- watching

  total() {
    if (this.mode === "play") return this.hand.history.length;
    return this.pebbling ? this.pebbling.moves.length : 0;
  }

  goto(step) {
    if (this.mode === "play") return;
    this.step = Math.max(0, Math.min(step, this.total()));
    if (this.step === this.total()) this.stop();
    this.refresh();
  }

  toggle() {
    if (this.timer) return this.stop();
    if (this.mode !== "watch" || !this.pebbling) return;
    if (this.step >= this.total()) this.step = 0;
    this.timer = setInterval(() => this.goto(this.step + 1), 350);
    this.playButton.textContent = "⏸ pause";
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.playButton) this.playButton.textContent = "▶ play";
  }

  watchedGame() {
    const game = new Game(this.dag, this.M, this.variant);
    if (!this.pebbling) return game;
    for (const [op, v] of this.pebbling.moves.slice(0, this.step)) game.apply(op, v);
    return game;
  }

  // ---------------------------------------------------------------- playing

  startHand(branch) {
    this.stop();
    const game = new Game(this.dag, this.M, this.variant);
    if (branch && this.mode === "watch" && this.pebbling) {
      for (const [op, v] of this.pebbling.moves.slice(0, this.step)) game.apply(op, v);
    } else if (branch && this.mode === "play") {
      return;
    }
    this.hand = game;
    this.mode = "play";
    this.say(branch ? `playing by hand from step ${this.step}` : "playing by hand: click a vertex, choose a move", "ok");
    this.refresh();
  }

  select(vertex) {
    this.selected = vertex;
    this.renderMenu();
    this.refresh();
  }

  renderMenu() {
    this.menu.textContent = "";
    if (this.selected === null) {
      html("span", {}, this.menu, "click a vertex to move a pebble");
      return;
    }
    html("span", { class: "ax-selected", "data-role": "selected" }, this.menu, `${this.dag.labels[this.selected]}: `);
    for (const op of OPS) {
      const b = html("button", { "data-role": `op-${op}` }, this.menu, op);
      b.addEventListener("click", () => this.play(op, this.selected));
    }
  }

  play(op, vertex) {
    if (this.mode !== "play") this.startHand(true);
    const refusal = this.hand.apply(op, vertex);
    if (refusal) {
      this.say(`Refused: ${refusal.reason} — rule: ${RULES[refusal.rule]}`, "error", "refusal");
    } else {
      this.say(describeMove(this.dag, op, vertex), "ok");
      if (!this.hand.goal()) this.finishHand();
    }
    this.refresh();
  }

  finishHand() {
    const mine = this.hand.io;
    const opt = this.optimum;
    let verdict = `All outputs are blue: your pebbling costs ${mine}.`;
    if (opt && opt.optimal) {
      verdict += mine === opt.io ? " You matched the proven optimum." : ` The proven optimum is ${opt.io}: ${mine - opt.io} above it.`;
    } else if (this.pebbling) {
      verdict += mine < this.pebbling.io ? ` You beat ${this.pebbling.name} (${this.pebbling.io}).` : ` ${this.pebbling.name} needs ${this.pebbling.io}.`;
    }
    this.say(verdict, "ok", "done");
  }

  undo() {
    if (this.mode !== "play" || !this.hand) return;
    const last = this.hand.undo();
    this.say(last ? `undid ${last.op} ${this.dag.labels[last.vertex]}` : "nothing to undo", "ok");
    this.refresh();
  }

  // ---------------------------------------------------------------- display

  say(text, tone = "", role = "") {
    this.message.textContent = text;
    this.message.className = `ax-message ${tone ? "ax-" + tone : ""}`;
    this.message.setAttribute("data-kind", role || tone);
  }

  refresh() {
    const game = this.mode === "play" ? this.hand : this.watchedGame();
    const last = this.mode === "play"
      ? game.history[game.history.length - 1]
      : this.step > 0 ? { op: this.pebbling.moves[this.step - 1][0], vertex: this.pebbling.moves[this.step - 1][1] } : null;
    this.nodes.forEach((g, v) => {
      g.classList.toggle("ax-r", game.red[v]);
      g.classList.toggle("ax-b", game.blue[v]);
      g.classList.toggle("ax-current", !!last && last.vertex === v);
      g.classList.toggle("ax-sel", this.selected === v);
    });
    const total = this.total();
    if (this.mode === "play") {
      this.modeLine.textContent = "Playing by hand";
      this.stepLine.textContent = `move ${game.history.length}`;
    } else {
      this.modeLine.textContent = this.pebbling ? `Watching: ${this.pebbling.name}` : "No pebbling yet";
      this.stepLine.textContent = `step ${this.step} / ${total}`;
    }
    this.moveLine.textContent = last ? describeMove(this.dag, last.op, last.vertex) : "start: inputs blue";
    this.ioValue.textContent = String(game.io);
    this.ioDetail.textContent = ` (${game.loads} loads + ${game.stores} stores)`;
    this.redValue.textContent = `${game.reds} / M=${this.M}`;
    this.redValue.classList.toggle("ax-full", game.reds === this.M);
    const opt = this.optimum;
    if (opt && opt.optimal) this.optimumLine.textContent = `proven optimum IO(M=${this.M}) = ${opt.io}`;
    else if (opt) this.optimumLine.textContent = `IO(M=${this.M}): proven ${opt.lower} ≤ IO ≤ ${opt.upper}`;
    else if (this.pebbling) this.optimumLine.textContent = `best shown: ${this.pebbling.io} (${this.pebbling.name}); optimum not known here`;
    else this.optimumLine.textContent = "";
    this.slider.max = String(this.mode === "play" ? 0 : total);
    this.slider.value = String(this.mode === "play" ? 0 : this.step);
    this.slider.disabled = this.mode === "play";
  }

  drawBounds(reply) {
    const rows = reply.rows;
    this.boundsTable.textContent = "";
    if (!rows.length) {
      this.boundsTable.textContent = "no catalog records for a graph file (its regime is unknown); compulsory I/O " + reply.compulsory;
      return;
    }
    const formulas = this.data.formulas || {};
    const math = (parent, svgs, joiner = ", ") => {
      svgs.forEach((markup, i) => {
        if (i) html("span", {}, parent, joiner);
        // typeset on the Python side (explorer/formula.py): trusted SVG, no script
        const box = html("span", { class: "ax-math-box" }, parent);
        box.innerHTML = markup;
      });
    };
    const table = html("table", {}, this.boundsTable);
    const head = html("tr", {}, table);
    for (const h of ["bound", "kind", "evidence", `at M=${reply.M}`, "statement"]) html("th", {}, head, h);
    for (const row of rows) {
      const typeset = formulas[row.name] || { label: row.label, statement: [], conditions: [] };
      const tr = html("tr", { class: `ax-kind-${row.kind}`, "data-role": "bound-row" }, table);
      html("td", { title: row.source, "data-role": "bound-label" }, tr, typeset.label);
      const kind = row.count ? "algorithm's count" : row.kind === "upper" ? "algorithm, upper bound"
        : row.kind === "tight" ? "optimum, up to constants" : "lower bound";
      html("td", {}, tr, kind);
      html("td", { class: `ax-status-${row.status}` }, tr, row.status);
      const value = html("td", { class: "ax-value", "data-role": "bound-value" }, tr);
      if (row.missing) value.textContent = `needs ${row.missing.join(", ")} (not fixed by this DAG)`;
      else if (row.applies === false) {
        value.classList.add("ax-muted");
        html("span", {}, value, "applies only when ");
        math(value, typeset.conditions, " and ");
      } else if (row.applies === null) value.textContent = row.note || "undecided here";
      else if (row.value !== undefined && row.vacuous) {
        value.classList.add("ax-muted");
        value.textContent = row.value <= 0
          ? `vacuous here (${row.exact} ≤ 0)`
          : `vacuous here (${row.exact} < compulsory I/O ${reply.compulsory})`;
      } else if (row.value !== undefined) value.textContent = row.exact;
      else value.textContent = "asymptotic only";
      const formula = html("td", { class: "ax-formula", title: row.source, "data-role": "bound-formula" }, tr);
      math(formula, typeset.statement, " ");
    }
    const bite = reply.bite;
    if (bite) {
      // computed on the Python side from the records (explorer/instance.py, _bite)
      html("p", { class: "ax-note", "data-role": "bounds-bite" }, this.boundsTable, bite.here
        ? `At n = ${bite.page_n}, d = ${bite.d} and M = ${bite.M} the ${bite.label} already exceeds the compulsory I/O.`
        : "The derived lower bounds are about large n (their leading terms grow like n², less " +
          `terms in M), so at n = ${bite.page_n} they fall below the compulsory I/O; at d = ${bite.d} ` +
          `and M = ${bite.M} the first to exceed it is the ${bite.label}, from n = ${bite.n}.`);
    }
  }

  drawCurve(reply) {
    this.curveBox.textContent = "";
    const points = reply.points;
    const width = 640, height = 310, left = 58, right = 250, top = 14, bottom = 40;
    const Ms = points.map((p) => p.M);
    const drawn = reply.bounds.map((s) => ({ ...s, values: s.values.map((v) => (v !== null && v > 0 ? v : null)) }))
      .filter((s) => s.values.some((v) => v !== null));
    const values = points.flatMap((p) => [p.upper, p.lower]);
    for (const s of drawn) for (const v of s.values) if (v !== null) values.push(v);
    const step = niceStep(Math.max(1, ...values) / 4);
    const ymax = Math.ceil(Math.max(1, ...values) / step) * step;
    const xmin = Math.min(...Ms), xmax = Math.max(...Ms);
    const X = (M) => left + (xmax === xmin ? 0.5 : (M - xmin) / (xmax - xmin)) * (width - left - right);
    const Y = (v) => height - bottom - (v / ymax) * (height - top - bottom);
    const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "ax-plot", "data-role": "curve-svg", width: String(width) }, this.curveBox);
    svg("line", { x1: left, y1: Y(0), x2: width - right, y2: Y(0), class: "ax-axis" }, root);
    svg("line", { x1: left, y1: Y(0), x2: left, y2: top, class: "ax-axis" }, root);
    const every = Math.max(1, Math.ceil(Ms.length / 12));
    Ms.forEach((M, i) => {
      if (i % every) return;
      const t = svg("text", { x: X(M), y: height - bottom + 16, class: "ax-tick", "data-role": "x-tick", "text-anchor": "middle" }, root);
      t.textContent = String(M);
    });
    for (let v = 0; v <= ymax + 1e-9; v += step) {
      const t = svg("text", { x: left - 6, y: Y(v) + 4, class: "ax-tick", "data-role": "y-tick", "text-anchor": "end" }, root);
      t.textContent = String(v);
      if (v > 0) svg("line", { x1: left, y1: Y(v), x2: width - right, y2: Y(v), class: "ax-grid" }, root);
    }
    const xl = svg("text", { x: (left + width - right) / 2, y: height - 6, class: "ax-axis-label", "text-anchor": "middle" }, root);
    xl.textContent = "M (red pebbles = fast-memory words)";
    const yl = svg("text", {
      x: 14, y: (top + height - bottom) / 2, class: "ax-axis-label", "data-role": "y-label",
      "text-anchor": "middle", transform: `rotate(-90 14 ${(top + height - bottom) / 2})`,
    }, root);
    yl.textContent = "IO, the words moved";
    const palette = ["#7a5195", "#ef5675", "#ffa600", "#2f9e44", "#1c7ed6", "#868e96", "#d9480f"];
    const legend = [];
    drawn.forEach((series, i) => {
      const color = palette[i % palette.length];
      let path = "";
      series.values.forEach((v, j) => {
        if (v === null) return;
        path += `${path && series.values[j - 1] !== null ? "L" : "M"}${X(Ms[j])},${Y(v)} `;
      });
      svg("path", { d: path, class: `ax-series ax-${series.kind}`, stroke: color }, root);
      series.values.forEach((v, j) => {
        if (v !== null) svg("circle", { cx: X(Ms[j]), cy: Y(v), r: "2.2", fill: color }, root);
      });
      const dagger = series.status === "reconstructed" ? " †" : "";
      // an algorithm's count is the I/O of its own computation (online softmax), not a
      // pebbling of this graph: its legend entry says so
      const other = series.count ? " (other computation)" : "";
      legend.push({ line: { stroke: color, cls: `ax-series ax-${series.kind}` }, text: series.label + dagger + other, title: `${series.kind}, ${series.status}` });
    });
    for (const p of points) {
      if (p.lower < p.upper) svg("line", { x1: X(p.M), y1: Y(p.lower), x2: X(p.M), y2: Y(p.upper), class: "ax-range" }, root);
      const c = svg("circle", { cx: X(p.M), cy: Y(p.upper), r: "4.5", class: p.optimal ? "ax-opt" : "ax-heur" }, root);
      const t = svg("title", {}, c);
      t.textContent = p.optimal ? `M=${p.M}: IO = ${p.upper} (proven)` : `M=${p.M}: ${p.lower} ≤ IO ≤ ${p.upper} (${p.method})`;
    }
    if (points.some((p) => p.optimal)) legend.push({ dot: "ax-opt", text: "IO(M) proven optimal (exact)" });
    if (points.some((p) => !p.optimal)) legend.push({ dot: "ax-heur", text: "best pebbling found; bar: proven range" });
    legend.forEach((entry, i) => {
      const ly = top + 12 + i * 16;
      const g = svg("g", {}, root);
      if (entry.title) svg("title", {}, g).textContent = entry.title;
      if (entry.line) svg("line", { x1: width - right + 8, y1: ly - 4, x2: width - right + 26, y2: ly - 4, stroke: entry.line.stroke, class: entry.line.cls }, g);
      else svg("circle", { cx: width - right + 17, cy: ly - 4, r: "4.5", class: entry.dot }, g);
      const t = svg("text", { x: width - right + 30, y: ly, class: "ax-legend-text", "data-role": "legend-entry" }, g);
      t.textContent = entry.text;
    });
    if (drawn.some((s) => s.count)) {
      html("p", { class: "ax-note", "data-role": "curve-note" }, this.curveBox,
        "The algorithms' curves count the words their schedules move on the two-level " +
        "machine for another computation than this graph (online softmax: a running maximum " +
        "and rescaled accumulators), written for large n; they are not pebblings of this " +
        "graph, and on a graph this small they sit far above the optimum IO(M), the least " +
        "I/O of any pebbling of this graph.");
    }
  }

  key(event) {
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT")) return;
    const k = event.key;
    const moves = { l: "load", s: "store", c: "compute", d: "delete" };
    if (k === "ArrowRight") this.goto(this.step + 1);
    else if (k === "ArrowLeft") this.goto(this.step - 1);
    else if (k === "Home") this.goto(0);
    else if (k === "End") this.goto(this.total());
    else if (k === " ") this.toggle();
    else if (k === "u" || (k === "z" && (event.ctrlKey || event.metaKey))) this.undo();
    else if (moves[k] && this.selected !== null) this.play(moves[k], this.selected);
    else return;
    event.preventDefault();
  }
}

export function render({ model, el }) {
  const explorer = new Explorer(model, el);
  return () => explorer.destroy();
}

export default { render };
