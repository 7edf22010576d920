// The workbench page: vanilla JS, no external resources. It edits the card table and the
// rule options, asks the server to check them with the CLI's loaders, runs a comparison
// and polls its progress (the polling is also the heartbeat: a page that stops polling
// stops its comparison on the server).
"use strict";

const $ = (id) => document.getElementById(id);
const pageId = (window.crypto && crypto.randomUUID) ? crypto.randomUUID()
  : Array.from({length: 4}, () => Math.random().toString(16).slice(2, 10)).join("");
let state = null;        // /api/state of the current game
let current = null;      // id of the running or last comparison
let pollTimer = null;
let checkTimer = null;
let edited = false;        // edits since the page loaded the game or saved them
let pollFailures = 0;      // polls in a row the server did not answer
const POLL_TRIES = 5;      // then the page says the server is gone (about 1.5 s)
let pollTimeoutSeconds = 15;   // a poll unanswered this long: the server is hung, gone
let lastSnap = null;       // the last snapshot drawn
const openKinds = new Set();   // "players|from|to" of the kinds of change shown open
const allGames = new Map();    // the same key -> every game index of that kind (fetched)
let changedDrawn = "";     // what the changed-games list and the looks' plot last drew
let looksDrawn = "";
const SVG_NS = "http://www.w3.org/2000/svg";   // a namespace name, nothing is loaded
const PALETTE = ["#2a6fb0", "#d0572a", "#3a9a4a", "#8a4fb0", "#b08a2a", "#2aa0a0", "#b02a6f"];
const SHOWN_GAMES = 2000;  // game indices shown per kind (simulate compare lists them all)

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

async function api(method, path, body, timeoutSeconds) {
  // ``timeoutSeconds``: the request is abandoned (an AbortError) when unanswered that long
  const options = {method, headers: {}};
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let timer = null;
  if (timeoutSeconds) {
    const controller = new AbortController();
    options.signal = controller.signal;
    timer = setTimeout(() => controller.abort(), timeoutSeconds * 1000);
  }
  try {
    const response = await fetch(path, options);
    const type = response.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await response.json() : await response.text();
    return {ok: response.ok, status: response.status, data};
  } finally {
    clearTimeout(timer);
  }
}

const NO_ANSWER = "the workbench server does not answer (stopped?)";

async function answered(method, path, body, status) {
  // api(), or null when the server is gone: the page says so, and so does ``status``
  // (the line that was waiting for this answer) when given
  try {
    return await api(method, path, body);
  } catch (err) {
    if (status) status.textContent = `error: ${NO_ANSWER}`;
    serverGone(NO_ANSWER);
    return null;
  }
}

function showProblem(text) {
  const p = $("problem");
  p.textContent = text || "";
  p.hidden = !text;
}

// ------------------------------------------------------------------ loading a game
async function load(game) {
  // another game discards the edits of this one: the designer is asked first, as on
  // leaving the page, and keeps them (and this game) on declining
  if (game && state && game !== state.game && edited &&
      !window.confirm(`Switching to ${game} discards the unsaved edits of ${state.game}. ` +
                      "Switch anyway?")) {
    $("game").value = state.game;
    return;
  }
  await leaveComparison();
  const query = game ? "?game=" + encodeURIComponent(game) : "";
  const answer = await answered("GET", "/api/state" + query);
  if (!answer) return;
  if (!answer.ok) { showProblem(answer.data.error); return; }
  state = answer.data;
  const select = $("game");
  select.replaceChildren(...state.games.map((g) => el("option", {value: g, text: g})));
  select.value = state.game;
  $("loaded").textContent = `${state.title}; backend ${state.backend}`;
  $("start-dir").textContent = state.start_dir;
  $("default-strategy").textContent = state.default_strategy;
  $("games").value = state.default_games;
  $("width").value = state.default_width;
  $("cards-file").textContent = "baseline: " + state.cards.file;
  $("strategy-names").replaceChildren(
    ...state.strategies.map((s) => el("option", {value: s.name, text: s.summary})));
  if (state.saved.cards) $("cards-name").value = state.saved.cards;
  if (state.saved.rules) $("rules-name").value = state.saved.rules;
  buildPlayers();
  buildStrategies();
  buildCards();
  buildRules();
  edited = false;
  document.body.dataset.ready = "1";
}

function running() {
  return Boolean(current) && $("run").disabled;
}

async function leaveComparison() {
  // another game: its comparison stops, and nothing of it stays on the page
  clearTimeout(pollTimer);
  if (running()) await stop();
  current = null;
  lastSnap = null;
  delete document.body.dataset.comparison;
  delete document.body.dataset.state;
  openKinds.clear();
  allGames.clear();
  changedDrawn = looksDrawn = "";
  for (const id of ["results", "looks", "changed", "pace"]) $(id).replaceChildren();
  $("verdict").hidden = true;
  $("answers").hidden = true;
  $("report-link").hidden = true;
  $("report-status").textContent = "";
  $("progress").value = 0;
  $("status").textContent = "idle";
  $("command").textContent = "(run a comparison first)";
  finish();
}

function buildPlayers() {
  const box = $("players");
  box.replaceChildren(el("span", {text: "Player counts to test: "}));
  for (const count of state.player_counts) {
    const box1 = el("input", {type: "checkbox", value: String(count), name: "players"});
    box1.checked = count === state.default_players;
    box1.addEventListener("change", () => { buildStrategies(); scheduleCheck(); });
    box.append(el("label", {}, box1, ` ${count}`));
  }
}

function chosenPlayers() {
  return Array.from(document.querySelectorAll("#players input:checked")).map((b) => Number(b.value));
}

function buildStrategies() {
  const counts = chosenPlayers();
  const most = counts.length ? Math.max(...counts) : state.default_players;
  const slots = state.slots[String(most)] || [];
  const old = strategies();
  const box = $("strategies");
  box.replaceChildren();
  for (const slot of slots) {
    const label = state.strategy_kind === "teams" ? `team ${slot}` : slot;
    const input = el("input", {id: "strategy-" + slot, list: "strategy-names", size: "22",
                               placeholder: state.default_strategy, "data-slot": slot});
    input.value = old[slot] || "";
    input.addEventListener("input", scheduleCheck);
    box.append(el("label", {}, label + " ", input));
  }
}

function strategies() {
  const out = {};
  for (const input of document.querySelectorAll("#strategies input")) {
    if (input.value.trim()) out[input.dataset.slot] = input.value.trim();
  }
  return out;
}

function buildCards() {
  const columns = state.cards.columns;
  const head = el("tr", {}, el("th", {text: "#"}), ...columns.map((c) => el("th", {text: c})));
  $("cards-table").tHead.replaceChildren(head);
  const body = $("cards-table").tBodies[0];
  body.replaceChildren();
  state.cards.rows.forEach((row, r) => {
    const tr = el("tr", {"data-row": String(r)}, el("td", {text: String(r + 1)}));
    row.forEach((value, c) => {
      const input = el("input", {"data-row": String(r), "data-col": columns[c],
                                 "aria-label": `${columns[c]} of row ${r + 1}`});
      input.value = value;
      input.addEventListener("input", scheduleCheck);
      tr.append(el("td", {"data-col": columns[c]}, input));
    });
    body.append(tr);
  });
}

function cards() {
  const rows = Array.from($("cards-table").tBodies[0].rows).map(
    (tr) => Array.from(tr.querySelectorAll("input")).map((i) => i.value));
  return {columns: state.cards.columns, rows};
}

function buildRules() {
  const body = $("rules-table").tBodies[0];
  body.replaceChildren();
  const text = $("rules-text");
  if (!state.rules) {          // a game without declared options: free YAML
    $("rules-table").hidden = true;
    text.hidden = false;
    text.addEventListener("input", scheduleCheck);
    return;
  }
  $("rules-table").hidden = false;
  text.hidden = true;
  for (const option of state.rules) {
    let input;
    if (option.kind === "choice" || option.kind === "bool") {
      const choices = option.kind === "bool" ? ["true", "false"] : option.choices;
      input = el("select", {});
      for (const choice of choices) input.append(el("option", {value: choice, text: choice}));
    } else {
      input = el("input", {size: option.per_players || option.kind === "list" ? "34" : "8"});
    }
    input.value = option.value;
    input.id = "rule-" + option.key;
    input.dataset.key = option.key;
    input.addEventListener(input.tagName === "SELECT" ? "change" : "input", scheduleCheck);
    body.append(el("tr", {"data-key": option.key}, el("td", {}, el("code", {text: option.key})),
                   el("td", {"data-key": option.key}, input), el("td", {text: option.default}),
                   el("td", {text: option.rule_id}), el("td", {text: option.doc})));
  }
}

function rules() {
  if (!state.rules) return {rules_text: $("rules-text").value};
  const out = {};
  for (const input of document.querySelectorAll("#rules-table [data-key] > input, #rules-table [data-key] > select")) {
    out[input.dataset.key] = input.value;
  }
  return {rules: out};
}

function edit() {
  return {game: state.game, players: chosenPlayers(), cards: cards(), strategies: strategies(),
          ...rules()};
}

// ------------------------------------------------------------------ checking
function scheduleCheck() {
  edited = true;
  clearTimeout(checkTimer);
  checkTimer = setTimeout(check, 250);
}

function clearErrors() {
  for (const node of document.querySelectorAll(".bad")) node.classList.remove("bad");
  for (const node of document.querySelectorAll("td .cell-error")) node.remove();
  for (const id of ["card-error", "rule-error", "strategy-error"]) {
    $(id).hidden = true;
    $(id).textContent = "";
  }
  showProblem("");
}

function showError(problem) {
  // Beside the cell (or the option, or the strategies) the CLI's own words.
  let place = null;
  if (problem.part === "cards") {
    $("card-error").textContent = problem.cli;
    $("card-error").hidden = false;
    if (problem.row !== null) {
      const tr = $("cards-table").tBodies[0].rows[problem.row];
      place = tr && (tr.querySelector(`td[data-col="${problem.field}"]`) || tr.cells[1]);
    }
  } else if (problem.part === "rules") {
    $("rule-error").textContent = problem.cli;
    $("rule-error").hidden = false;
    place = document.querySelector(`#rules-table td[data-key="${problem.field}"]`);
  } else if (problem.part === "strategies") {
    $("strategy-error").textContent = problem.cli;
    $("strategy-error").hidden = false;
    const box = problem.field && $("strategy-" + problem.field);
    if (box) box.classList.add("bad");
  } else {
    showProblem(problem.cli);
  }
  if (place) {
    place.classList.add("bad");
    place.append(el("div", {class: "cell-error", text: problem.message}));
  }
}

async function check() {
  if (!state) return false;
  const answer = await answered("POST", "/api/validate", edit());
  if (!answer) return false;
  clearErrors();
  if (!answer.ok) { showProblem(answer.data.error); return false; }
  if (!answer.data.ok) { showError(answer.data.problem); return false; }
  return true;
}

// ------------------------------------------------------------------ running
async function run() {
  clearTimeout(checkTimer);
  clearErrors();
  const body = {...edit(), page: pageId, games: $("games").value.trim(),
                width: $("width").value.trim(), seed: $("seed").value.trim() || "1"};
  if ($("chunk").value.trim()) body.chunk = $("chunk").value.trim();
  const answer = await answered("POST", "/api/run", body);
  if (!answer) return;
  if (!answer.ok) {
    if (answer.data.problem) showError(answer.data.problem);
    else showProblem(answer.data.error);
    return;
  }
  current = answer.data.id;
  document.body.dataset.comparison = current;
  openKinds.clear();
  allGames.clear();
  changedDrawn = looksDrawn = "";
  for (const id of ["changed", "looks"]) $(id).replaceChildren();
  $("answers").hidden = true;
  $("run").disabled = true;
  $("stop").disabled = false;
  $("report").disabled = true;
  $("stronger").disabled = true;
  $("stronger-lines").hidden = true;
  $("stronger-status").textContent = "";
  $("report-link").hidden = true;
  $("verdict").hidden = true;
  $("status").textContent = "starting (the first run of a session compiles the kernels)";
  pollFailures = 0;
  poll();
}

function serverGone(words) {
  // the server stopped or broke: the page says so and keeps the edits for another Run
  clearTimeout(pollTimer);
  document.body.dataset.state = "error";
  $("status").textContent = `error: ${words}; the edits are kept`;
  showProblem(`error: ${words}. The edits on this page are kept: restart the workbench ` +
              "and Run again (or Save them first).");
  finish();
}

async function poll() {
  clearTimeout(pollTimer);
  if (!current) return;
  const ident = current;
  let answer;
  try {
    answer = await api("GET", `/api/run/${ident}`, undefined, pollTimeoutSeconds);
  } catch (err) {
    if (ident !== current) return;
    if (err.name === "AbortError") {   // a hung server: waiting longer would not help
      serverGone(`the workbench server did not answer for ${pollTimeoutSeconds} s ` +
                 "(stopped or hung?)");
      return;
    }
    pollFailures += 1;
    if (pollFailures < POLL_TRIES) { pollTimer = setTimeout(poll, 300); return; }
    serverGone(NO_ANSWER);
    return;
  }
  if (ident !== current) return;   // another game or comparison since
  pollFailures = 0;
  if (!answer.ok) {
    if (answer.status >= 500 || !answer.data.error) {
      serverGone(answer.data.error || `the workbench server answered ${answer.status}`);
    } else {
      showProblem(answer.data.error);
      finish();
    }
    return;
  }
  render(answer.data);
  if (answer.data.state === "starting" || answer.data.state === "running") {
    pollTimer = setTimeout(poll, 300);
  } else {
    finish();
  }
}

function finish() {
  $("run").disabled = false;
  $("stop").disabled = true;
  $("report").disabled = !current;
  $("stronger").disabled = !current;
}

function pct(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(2); }

function intervalBar(d, scale) {
  const bar = el("div", {class: "interval"});
  const zero = el("div", {class: "zero"});
  zero.style.left = "50%";     // CSSOM, not a style attribute: the page's CSP allows it
  bar.append(zero);
  if (d.lo !== null && d.hi !== null) {
    const pos = (x) => Math.max(0, Math.min(100, 50 + 50 * x / scale));
    const left = pos(d.lo), right = pos(d.hi);
    const span = el("div", {class: "span"});
    span.style.left = `${left}%`;
    span.style.width = `${Math.max(0.5, right - left)}%`;
    bar.append(span);
  }
  return bar;
}

function render(snap) {
  $("progress").value = snap.progress;
  const label = {starting: "starting", running: "running", decided: "decided",
                 capped: "cap reached", stopped: "stopped", error: "error"}[snap.state];
  $("status").textContent = `${label}: ${snap.games_per_side.toLocaleString()} games per side ` +
    `of at most ${snap.max_games.toLocaleString()}, look ${snap.looks} of ${snap.looks_planned}` +
    ` (intervals at z = ${snap.z.toFixed(2)})` + (snap.reason ? ` - ${snap.reason}` : "");
  document.body.dataset.state = snap.state;
  if (snap.error) showProblem(snap.error);
  const blocks = [];
  for (const point of snap.points) {
    const widths = point.rows.map((r) => Math.max(Math.abs(r.difference.lo || 0), Math.abs(r.difference.hi || 0)));
    const scale = Math.max(0.005, ...widths) * 1.2;
    const z = snap.z.toFixed(2);
    const table = el("table", {class: "point", "data-players": String(point.players)},
      el("caption", {text: `${point.players} players, ${point.games.toLocaleString()} games per side`}),
      // every interval of the table is at the stopping rule's z, not the plain 95 % one
      el("tr", {}, ...["headline", `baseline % [z = ${z}]`, `edit % [z = ${z}]`,
                       "difference (pp)", `interval (pp, z = ${z})`, "width (pp)", ""]
        .map((t) => el("th", {text: t}))));
    for (const row of point.rows) {
      const d = row.difference;
      table.append(el("tr", {"data-headline": row.headline},
        el("td", {text: row.headline}),
        el("td", {class: "num", text: `${pct(row.baseline.rate)} [${pct(row.baseline.lo)}, ${pct(row.baseline.hi)}]`}),
        el("td", {class: "num", text: `${pct(row.edit.rate)} [${pct(row.edit.lo)}, ${pct(row.edit.hi)}]`}),
        el("td", {class: "num diff", text: d.mean === null ? "–" : (100 * d.mean).toFixed(2)}),
        el("td", {class: "num ci", text: d.lo === null ? "–" : `[${(100 * d.lo).toFixed(2)}, ${(100 * d.hi).toFixed(2)}]`}),
        el("td", {class: "num width", text: d.width_pp === null ? "–" : d.width_pp.toFixed(3)}),
        el("td", {}, intervalBar(d, scale))));
    }
    blocks.push(table);
    if (point.plays_like) {
      blocks.push(el("p", {class: "plays-like", "data-players": String(point.players),
        text: `${point.players} players play exactly like ${point.plays_like} with these rules ` +
              "(the same options once each count's are resolved, and the same seats), so " +
              `their numbers repeat the ${point.plays_like}-player games.`}));
    }
    // each side's balance answer, in the report's and the summary's words
    const balance = Object.entries(point.balance || {}).filter(([, b]) => b);
    if (balance.length) {
      blocks.push(el("ul", {class: "balance", "data-players": String(point.players)},
        ...balance.map(([side, b]) => el("li", {"data-side": side,
          text: `${side}: ${b.words} (${pct(b.value)} % [${pct(b.lo)}, ${pct(b.hi)}] at 95 % ` +
                `as in the summary and the report, not the table's z = ${z}; even ${pct(b.even)} %)`}))));
    }
    // the balance answer's paired difference, edit - baseline, at the table's z
    const changes = (point.balance_change || []).filter((c) => c.difference.mean !== null);
    if (changes.length) {
      blocks.push(el("ul", {class: "balance-change", "data-players": String(point.players)},
        ...changes.map((c) => el("li", {"data-measure": c.measure,
          text: `${c.label}: edit - baseline ${(100 * c.difference.mean).toFixed(2)} pp ` +
                `[${(100 * c.difference.lo).toFixed(2)}, ${(100 * c.difference.hi).toFixed(2)}] ` +
                `(paired, at the table's z = ${z})`}))));
    }
    // why the all-lose rate changed: the unhappy customers of all-lose games by cause
    const causes = point.all_lose_causes;
    if (causes && causes.rows.some((r) => r.baseline || r.edit)) {
      const per1000 = (x) => (1000 * x).toFixed(1);
      const signed = (x) => (x >= 0 ? "+" : "") + per1000(x);
      blocks.push(el("ul", {class: "all-lose-causes", "data-players": String(point.players)},
        el("li", {class: "lead", text: "why the all-lose rate changed: " + (causes.lead ||
          "no clear change in the unhappy customers of all-lose games")}),
        ...causes.rows.map((r) => el("li", {"data-cause": r.cause,
          text: `${r.cause === "all" ? "all causes" : r.cause}: ${per1000(r.baseline)} -> ` +
                `${per1000(r.edit)} unhappy customers of all-lose games per 1,000 games, ` +
                (r.difference.mean === null ? "no interval" :
                 `${signed(r.difference.mean)} [${signed(r.difference.lo)}, ` +
                 `${signed(r.difference.hi)}] (paired, at the table's z = ${z})`)}))));
    }
  }
  $("results").replaceChildren(...blocks);
  renderPace(snap.pace);
  lastSnap = snap;
  drawLooks(snap);
  drawChanged(snap);
  if (snap.verdict) {
    const box = $("verdict");
    box.className = snap.state;
    box.replaceChildren(el("strong", {text: `Verdict (${snap.reason}):`}),
      ...(snap.verdict.notes || []).map((note) => el("p", {class: "verdict-note", text: note})),
      el("ul", {}, ...snap.verdict.lines.map((line) => el("li", {text: line}))));
    box.hidden = false;
  }
  if (snap.commands) {
    $("command").textContent = (snap.commands.note ? `# ${snap.commands.note}\n` : "") +
      "# the edit\n" + snap.commands.edit +
      "\n# the baseline\n" + snap.commands.baseline;
  }
}

// ------------------------------------------------------------------ the looks' plot
function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

function niceStep(range) {
  const raw = range / 4;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  return power * ([1, 2, 5, 10].find((m) => m * power >= raw / 1.5) || 10);
}

function drawLooks(snap) {
  // redrawn only when a look arrives: every look's interval of every headline, so the
  // designer sees it narrow towards the stopping width
  const key = `${snap.id}:${snap.history.length}`;
  if (key === looksDrawn) return;
  looksDrawn = key;
  const figures = [];
  for (const point of snap.points) {
    const players = String(point.players);
    const looks = snap.history.filter((h) => h.intervals[players]);
    if (looks.length) figures.push(...lookFigure(players, looks, snap));
  }
  $("looks").replaceChildren(...figures);
}

function lookFigure(players, looks, snap) {
  const headlines = Object.keys(looks[looks.length - 1].intervals[players]);
  const W = 640, H = 220, left = 56, right = 12, top = 10, bottom = 36;
  let lo = 0, hi = 0;
  for (const look of looks) {
    for (const name of headlines) {
      const d = look.intervals[players][name];
      if (d && d[1] !== null && d[2] !== null) { lo = Math.min(lo, d[1]); hi = Math.max(hi, d[2]); }
    }
  }
  lo *= 100; hi *= 100;                      // percentage points
  if (hi - lo < 1e-6) { lo -= 0.05; hi += 0.05; }
  const pad = 0.06 * (hi - lo);
  lo -= pad; hi += pad;
  // the axis spans the looks so far with headroom, not every planned look: under a high
  // cap the real looks would fill a sliver of it
  const planned = Math.min(Math.max(snap.looks_planned, looks.length),
                           Math.max(10, Math.ceil(looks.length * 1.25)));
  const slot = (W - left - right) / planned;
  const x = (look) => left + slot * (look - 0.5);
  const y = (value) => top + (H - top - bottom) * (hi - value) / (hi - lo);
  const root = svg("svg", {viewBox: `0 0 ${W} ${H}`, role: "img", class: "looks-plot",
                           "data-players": players, "data-looks": looks.length,
                           "aria-label": `${players} players: the difference at each look`});
  const step = niceStep(hi - lo);
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    const at = Math.abs(v) < step / 1e6 ? 0 : v;
    root.append(svg("line", {class: at === 0 ? "axis" : "grid", x1: left, x2: W - right,
                             y1: y(at), y2: y(at)}),
                svg("text", {x: left - 6, y: y(at) + 4, "text-anchor": "end"},
                    (at > 0 ? "+" : "") + at.toFixed(step < 0.1 ? 2 : step < 1 ? 1 : 0)));
  }
  root.append(svg("line", {class: "axis", x1: left, x2: left, y1: top, y2: H - bottom}));
  const every = Math.max(1, Math.ceil(planned / 8));
  for (let look = 1; look <= planned; look += look === 1 && every > 1 ? every - 1 : every) {
    root.append(svg("text", {x: x(look), y: H - bottom + 14, "text-anchor": "middle"},
                    String(look)));
  }
  root.append(svg("text", {x: (left + W - right) / 2, y: H - 4, "text-anchor": "middle"},
                  `look (${looks[looks.length - 1].games.toLocaleString()} games per side ` +
                  `after look ${looks[looks.length - 1].look} of ${snap.looks_planned})`));
  root.append(svg("text", {x: 12, y: (top + H - bottom) / 2, "text-anchor": "middle",
                           transform: `rotate(-90 12 ${(top + H - bottom) / 2})`}, "pp"));
  const spread = Math.min(slot * 0.7, 14);
  for (const look of looks) {
    const group = svg("g", {"data-look": look.look, "data-games": look.games});
    headlines.forEach((name, k) => {
      const d = look.intervals[players][name];
      if (!d || d[1] === null || d[2] === null) return;
      const at = x(look.look) + (headlines.length > 1 ? spread * (k / (headlines.length - 1) - 0.5) : 0);
      const colour = PALETTE[k % PALETTE.length];
      const mark = svg("g", {"data-headline": name});
      mark.append(svg("title", {}, `look ${look.look}, ${look.games.toLocaleString()} games: ` +
        `${name} ${(100 * d[0]).toFixed(2)} pp [${(100 * d[1]).toFixed(2)}, ${(100 * d[2]).toFixed(2)}]`),
        svg("line", {x1: at, x2: at, y1: y(100 * d[1]), y2: y(100 * d[2]), stroke: colour,
                     "stroke-width": Math.max(1, Math.min(3, spread / headlines.length))}),
        svg("circle", {cx: at, cy: y(100 * d[0]), r: 2, fill: colour}));
      group.append(mark);
    });
    root.append(group);
  }
  const legend = el("div", {class: "legend"},
    el("span", {text: `${players} players: the paired difference (edit − baseline) at each ` +
                      `look with its interval (z = ${snap.z.toFixed(2)}); it stops once every ` +
                      `interval is narrower than ${snap.width_pp} pp.`}));
  headlines.forEach((name, k) => {
    const swatch = el("span", {class: "swatch"});
    swatch.style.background = PALETTE[k % PALETTE.length];   // CSSOM: the CSP allows it
    legend.append(swatch, name);
  });
  return [root, legend];
}

// ------------------------------------------------------------------ changed games
function gameLink(snap, players, index) {
  return el("a", {href: `/game/${snap.id}/${players}/${index}`, target: "_blank",
                  rel: "noopener", class: "game", "data-game": String(index),
                  title: `open game ${index}: baseline and edit side by side`,
                  text: String(index)});
}

function drawChanged(snap) {
  // redrawn only when the list changes, so an open kind and a click survive the polling
  const signature = JSON.stringify([snap.id, snap.points.map((p) => [p.players, p.changed])]);
  if (signature === changedDrawn) return;
  changedDrawn = signature;
  const blocks = [];
  for (const point of snap.points) {
    const players = String(point.players);
    const block = el("div", {class: "changed-point", "data-players": players},
      el("h3", {text: `Games the edit changed at ${players} players: ` +
        `${point.changed_games.toLocaleString()} of ${point.games.toLocaleString()}`}));
    if (!point.changed.length) {
      block.append(el("p", {class: "muted", text: "no game ended otherwise"}));
    }
    for (const kind of point.changed) {
      const key = `${players}|${kind.from}|${kind.to}`;
      const details = el("details", {"data-from": kind.from, "data-to": kind.to,
                                     "data-count": String(kind.count)},
        el("summary", {text: `${kind.from} → ${kind.to}: ${kind.count.toLocaleString()} ` +
                             `game${kind.count === 1 ? "" : "s"}`}));
      details.open = openKinds.has(key);
      details.addEventListener("toggle", () => {
        if (details.open) openKinds.add(key); else openKinds.delete(key);
      });
      const box = gamesBox(snap, players, kind, key);
      details.append(box);
      block.append(details);
    }
    blocks.push(block);
  }
  $("changed").replaceChildren(...blocks);
}

function gamesBox(snap, players, kind, key) {
  const full = allGames.get(key);
  const games = full && full.count === kind.count ? full.games : kind.games;
  const box = el("div", {class: "games"},
    ...games.slice(0, SHOWN_GAMES).map((index) => gameLink(snap, players, index)));
  if (games.length < kind.count) {
    const more = el("button", {type: "button", class: "more",
                               text: `all ${kind.count.toLocaleString()}`});
    more.addEventListener("click", () => expand(snap, players, kind, key, box));
    box.append(" ", more);
  } else if (games.length > SHOWN_GAMES) {
    box.append(el("span", {class: "muted", text: ` and ${(games.length - SHOWN_GAMES)
      .toLocaleString()} more (simulate compare lists them all)`}));
  }
  return box;
}

async function expand(snap, players, kind, key, box) {
  const query = new URLSearchParams({players, from: kind.from, to: kind.to});
  const answer = await answered("GET", `/api/run/${snap.id}/changed?${query}`);
  if (!answer) return;
  if (!answer.ok) { showProblem(answer.data.error); return; }
  allGames.set(key, answer.data);
  box.replaceWith(gamesBox(snap, players, {...kind, count: answer.data.count}, key));
}

async function stop() {
  if (!current) return;
  let answer;
  try {
    answer = await api("POST", `/api/run/${current}/stop`);
  } catch (err) {
    serverGone(NO_ANSWER);
    return;
  }
  if (!answer.ok) showProblem(answer.data.error || `the server answered ${answer.status}`);
}

// ------------------------------------------------------------------ keeping
async function save() {
  const body = {...edit(), overwrite: $("overwrite").checked};
  if ($("cards-name").value.trim()) body.cards_name = $("cards-name").value.trim();
  if ($("rules-name").value.trim()) body.rules_name = $("rules-name").value.trim();
  const status = $("save-status");
  const answer = await answered("POST", "/api/save", body, status);
  if (!answer) return;
  if (!answer.ok) {
    status.className = "cell-error";
    status.textContent = answer.data.error;
    if (answer.data.problem) showError(answer.data.problem);
    return;
  }
  status.className = "";
  status.textContent = "saved " + Object.values(answer.data.written).join(", ");
  state.saved = {...state.saved, ...answer.data.written};
  edited = false;
  if (current) poll();
}

async function download(kind) {
  let response;
  try {
    response = await fetch("/api/download", {method: "POST",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify({...edit(), kind})});
  } catch (err) {
    serverGone(NO_ANSWER);
    return;
  }
  if (!response.ok) {
    const refused = await response.json();
    if (refused.problem) showError(refused.problem); else showProblem(refused.error);
    return;
  }
  const blob = await response.blob();
  const name = kind === "cards" ? ($("cards-name").value.trim() || "edited-cards.csv")
    : ($("rules-name").value.trim() || "edited-rules.yaml");
  const a = el("a", {href: URL.createObjectURL(blob), download: name.split("/").pop()});
  document.body.append(a);
  a.click();
  a.remove();
}

async function report() {
  if (!current) return;
  const side = $("report-side").value;
  $("report-status").textContent = `writing the report of the ${side}'s games...`;
  const answer = await answered("POST", `/api/report/${current}`, {side}, $("report-status"));
  if (!answer) return;
  if (!answer.ok) { $("report-status").textContent = answer.data.error; return; }
  $("report-status").textContent = "";
  $("report-link").href = answer.data.url;
  $("report-link").textContent = `open the report of the ${answer.data.side}'s games`;
  $("report-link").hidden = false;
  showAnswers(answer.data, current);
}

// ------------------------------------------------------------ the changes under stronger play
async function stronger() {
  if (!current) return;
  const ident = current;
  const seconds = Number($("stronger-seconds").value) || 60;
  $("stronger").disabled = true;
  $("stronger-status").textContent =
    `playing both sides' games with search on every side (about ${seconds} s per player count)...`;
  const answer = await answered("POST", `/api/stronger/${ident}`, {seconds}, $("stronger-status"));
  $("stronger").disabled = !current;
  if (!answer || ident !== current) return;
  if (!answer.ok) { $("stronger-status").textContent = answer.data.error; return; }
  $("stronger-status").textContent = "";
  showStronger(answer.data.points);
}

function showStronger(points) {
  // per player count: each change beside its paired difference under search (95 %)
  const blocks = points.map((point) => {
    const head = el("h4", {text: point.checked
      ? `${point.players} players: ${point.games.toLocaleString("en")} games with search on ` +
        `every side (${point.seconds} s); each change at 95 %, as simulate compare gives it`
      : `${point.players} players: ${point.words}`});
    const rows = point.checked ? [...point.headlines.map((r) => [r.headline, r]),
                                  ...point.balance.map((r) => [r.label, r])] : [];
    return el("div", {class: "stronger", "data-players": String(point.players)}, head,
      el("ul", {}, ...rows.map(([name, r]) => el("li", {
        "data-status": String(r.status), text: `${name}: ${r.words}`}))));
  });
  $("stronger-lines").replaceChildren(...blocks);
  $("stronger-lines").hidden = false;
}

// ------------------------------------------------------------------ the report's answers
function showAnswers(data, ident) {
  const head = el("tr", {}, ...["question", "where", "answer", ""].map((t) => el("th", {text: t})));
  const rows = data.answers.map((a) => {
    const words = el("td", {class: "answer-words"}, el("div", {text: a.words}));
    const actions = el("td", {});
    if (data.examples.includes(a.question)) {
      const button = el("button", {type: "button", class: "show-example",
                                   text: "show an example"});
      button.addEventListener("click", () => showExample(ident, data.side, a, words, button));
      actions.append(button);
    }
    return el("tr", {"data-question": a.question, "data-players": String(a.players)},
              el("td", {text: a.title}), el("td", {text: a.where}), words, actions);
  });
  // one side's games, never both pooled: the heading says whose
  $("answers").replaceChildren(el("h3", {"data-side": data.side,
                                         text: `The report's answers: the ${data.side}'s games only`}),
                               el("table", {}, head, ...rows));
  $("answers").hidden = false;
}

async function showExample(ident, side, a, cell, button) {
  button.disabled = true;
  for (const old of cell.querySelectorAll(".example")) old.remove();
  const line = el("div", {class: "example", text: "looking for an example game..."});
  cell.append(line);
  const answer = await answered("POST", `/api/example/${ident}`,
                                {question: a.question, players: a.players, variant: a.variant,
                                 side}, line);
  button.disabled = false;
  if (!answer) return;
  if (!answer.ok) { line.textContent = answer.data.error; return; }
  const found = answer.data.example;
  line.replaceChildren(el("span", {text: `${found.shows}, from the ${answer.data.side}'s games: ${found.words}`}));
  if (answer.data.viewer) {
    line.append(" ", el("a", {href: answer.data.viewer, target: "_blank", rel: "noopener",
                              class: "open-example", "data-game": String(found.game_index),
                              text: `open game ${found.game_index}, baseline and edit side by side`}));
  }
}

async function copy() {
  const text = $("command").textContent;
  try {
    await navigator.clipboard.writeText(text);
    $("copy-status").textContent = "copied";
  } catch (err) {
    const range = document.createRange();
    range.selectNodeContents($("command"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    $("copy-status").textContent = document.execCommand("copy") ? "copied" : "selected: press Ctrl-C";
  }
}

// ------------------------------------------------------------------ the game's pace
// Both sides' per-round curves after each look (sim/workbench/pace.py): per player count
// one small inline SVG per panel of the game's curves, baseline and edit on the same
// axes, each mean with its 95 % band; the last panel is the share of games still running.
// Drawn with SVG presentation attributes only (the page's CSP allows no inline styles),
// with the looks' plot's ``svg``.
const PACE_COLORS = {baseline: "#1f77b4", edit: "#d62728"};
const PACE_DASHES = ["", "6 3", "2 2", "9 3 2 3", "1 3"];

function paceBox() {
  let box = $("pace");
  if (!box) {
    box = el("div", {id: "pace"});
    $("results").after(box);
  }
  return box;
}

function paceRuns(values) {
  // [[start, end], ...]: the stretches of indices whose value is a number
  const runs = [];
  let start = null;
  values.forEach((v, i) => {
    if (v !== null && start === null) start = i;
    if (v === null && start !== null) { runs.push([start, i - 1]); start = null; }
  });
  if (start !== null) runs.push([start, values.length - 1]);
  return runs;
}

function pacePlot(title, unit, lines, attrs) {
  // lines: [{side, curve, dash, mean, lo, hi}]; one SVG with a frame, ticks and a title
  const W = 290, H = 165, L = 42, R = 8, T = 20, B = 30;
  const n = Math.max(2, ...lines.map((line) => line.mean.length));
  const values = lines.flatMap((line) => [...line.mean, ...line.lo, ...line.hi])
    .filter((v) => v !== null);
  let lo = Math.min(0, ...values);
  let hi = Math.max(...values, lo + 1e-9);
  if (hi - lo < 1e-9) hi = lo + 1;
  const x = (i) => L + (W - L - R) * i / (n - 1);
  const y = (v) => T + (H - T - B) * (1 - (v - lo) / (hi - lo));
  const plot = svg("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
    class: "pace-plot", ...attrs});
  plot.append(svg("title", {}, title),
    svg("rect", {x: L, y: T, width: W - L - R, height: H - T - B, fill: "none",
      stroke: "#999", "stroke-width": 1}),
    svg("text", {x: L, y: 13, "font-size": 11}, title),
    svg("text", {x: L - 4, y: T + 4, "font-size": 9, "text-anchor": "end"}, hi.toPrecision(3)),
    svg("text", {x: L - 4, y: H - B, "font-size": 9, "text-anchor": "end"}, lo.toPrecision(3)),
    svg("text", {x: L, y: H - B + 12, "font-size": 9, "text-anchor": "middle"}, "0"),
    svg("text", {x: W - R, y: H - B + 12, "font-size": 9, "text-anchor": "middle"}, String(n - 1)),
    svg("text", {x: (L + W - R) / 2, y: H - 4, "font-size": 9, "text-anchor": "middle"}, unit));
  for (const line of lines) {
    const color = PACE_COLORS[line.side] || "#555";
    for (const [a, b] of paceRuns(line.lo.map((v, i) => (v === null || line.hi[i] === null) ? null : v))) {
      const upper = [], lower = [];
      for (let i = a; i <= b; i++) upper.push(`${x(i).toFixed(1)},${y(line.hi[i]).toFixed(1)}`);
      for (let i = b; i >= a; i--) lower.push(`${x(i).toFixed(1)},${y(line.lo[i]).toFixed(1)}`);
      plot.append(svg("polygon", {points: upper.concat(lower).join(" "), fill: color,
        "fill-opacity": 0.2, stroke: "none", "data-band": `${line.side} ${line.curve}`}));
    }
    const parts = paceRuns(line.mean).map(([a, b]) => {
      const points = [];
      for (let i = a; i <= b; i++) points.push(`${i === a ? "M" : "L"}${x(i).toFixed(1)},${y(line.mean[i]).toFixed(1)}`);
      return points.join(" ");
    });
    plot.append(svg("path", {d: parts.join(" "), fill: "none", stroke: color,
      "stroke-width": 1.5, "stroke-dasharray": line.dash, "data-side": line.side,
      "data-curve": line.curve}));
  }
  return plot;
}

function renderPace(pace) {
  const box = paceBox();
  const entries = Object.entries(pace || {});
  if (!entries.length) { box.replaceChildren(); return; }
  const blocks = [el("h3", {text: "The game's pace: baseline (blue) and edit (red), each mean with its 95 % band"})];
  for (const [players, found] of entries) {
    const sides = Object.keys(found.sides);
    const head = sides.map((side) => `${side} n=${found.sides[side].games.toLocaleString()}`).join(", ");
    const point = el("div", {class: "pace-point", "data-players": players},
      el("p", {text: `${players} players (${head}); a mean averages the games still running at that ${found.unit}`}));
    for (const panel of found.panels) {
      const lines = [];
      panel.curves.forEach((curve, k) => {
        for (const side of sides) {
          const c = found.sides[side].curves[curve.name];
          lines.push({side, curve: curve.name, dash: PACE_DASHES[k % PACE_DASHES.length], ...c});
        }
      });
      const title = panel.curves.length > 1
        ? `${panel.name} (${panel.curves.map((c, k) => `${c.name}${k ? " " + ["", "dashed", "dotted", "dash-dot", "sparse"][k % 5] : ""}`).join(", ")})`
        : panel.name;
      point.append(pacePlot(title, found.unit, lines, {"data-panel": panel.name}));
    }
    const running = sides.map((side) => {
      const r = found.sides[side].running;
      const share = r.map((v) => 100 * v / Math.max(1, r[0]));
      return {side, curve: "running", dash: "", mean: share, lo: share.map(() => null), hi: share.map(() => null)};
    });
    point.append(pacePlot("% of games still running", found.unit, running, {"data-panel": "games still running"}));
    blocks.push(point);
  }
  box.replaceChildren(...blocks);
}

// ------------------------------------------------------------------ wiring
window.addEventListener("DOMContentLoaded", () => {
  $("game").addEventListener("change", () => load($("game").value));
  $("run").addEventListener("click", run);
  $("stop").addEventListener("click", stop);
  $("save").addEventListener("click", save);
  $("download-cards").addEventListener("click", () => download("cards"));
  $("download-rules").addEventListener("click", () => download("rules"));
  $("report").addEventListener("click", report);
  $("stronger").addEventListener("click", stronger);
  $("copy").addEventListener("click", copy);
  load(null);
});
// Leaving the page loses its edits and stops its comparison: the browser asks first.
window.addEventListener("beforeunload", (event) => {
  if (running() || edited) {
    event.preventDefault();
    event.returnValue = "";
  }
});
// A closed page stops its work (the server also stops a comparison nobody polls).
window.addEventListener("pagehide", () => {
  if (current && $("run").disabled) navigator.sendBeacon(`/api/run/${current}/stop`);
});
