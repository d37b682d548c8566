// The class grid's script (served inline by hub/server.py). Tiles follow /events; a click on
// a tile opens that board's projector page; with the controls open, each tile has a field for
// its board's label (Enter keeps it on the board). Test hooks: each tile has data-key and
// data-status; each count has data-seat with data-pit (1..N) or data-store; window.hubLatency
// gets, for every game event drawn, the seconds from the hub reading the event to the frame
// that drew its tile (a reader takes the entries out as they come: hubLatency.splice(0)).
"use strict";
const tiles = {};            // key -> {el, tile, its parts, cells}
let colours = ["#2e7dff", "#ff8c1a", "#2ecc71", "#e84393"];
let standings = null;
window.hubLatency = [];

function h(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function when(t) { return t ? new Date(t * 1000).toLocaleTimeString() : "never"; }

// ------------------------------------------------------------------ layout
function layout() {
  // The header reads from the back of a room: its line about 0.46 of the bar, its buttons
  // 0.34 (28 px and 21 px at 720 lines).
  const bar = Math.max(44, Math.round(window.innerHeight * 0.085));
  document.documentElement.style.setProperty("--bar", bar + "px");
  // With the controls open, the boards or the standings take the rest of the width.
  const panel = document.getElementById("controls");
  document.documentElement.style.setProperty("--panel", panel.hidden ? "0px" : panel.offsetWidth + "px");
  const grid = document.getElementById("grid");
  const n = Math.max(1, Object.keys(tiles).length);
  const W = grid.clientWidth, H = grid.clientHeight;
  let best = {s: -1, c: 1};
  for (let c = 1; c <= n; c++) {
    const r = Math.ceil(n / c), w = W / c, hh = H / r;
    const s = Math.min(w / 2.1, hh);           // a tile is about 2.1 times as wide as high
    if (s > best.s) best = {s: s, c: c};
  }
  const rows = Math.ceil(n / best.c);
  grid.style.gridTemplateColumns = "repeat(" + best.c + ", minmax(0, 1fr))";
  grid.style.gridTemplateRows = "repeat(" + rows + ", minmax(0, 1fr))";
  document.documentElement.style.setProperty("--h", Math.floor(H / rows - 6) + "px");
  for (const k in tiles) fitCounts(tiles[k].el);
  const tbody = document.getElementById("standings-rows");
  const nrows = Math.max(4, tbody.children.length + 2);
  let row = Math.min(56, Math.floor((window.innerHeight - bar - 6) / (nrows + 0.5)));
  document.documentElement.style.setProperty("--row", row + "px");
  const st = document.getElementById("standings"), table = st.querySelector("table");
  const room = () => st.getBoundingClientRect().right - parseFloat(getComputedStyle(st).paddingRight);
  while (!st.hidden && row > 12 && table.getBoundingClientRect().right > room()) {  // every column
    row -= 1;
    document.documentElement.style.setProperty("--row", row + "px");
  }
}

function fitCounts(el) {
  for (const c of el.querySelectorAll(".cell")) {
    const s = Math.min(c.clientWidth, c.clientHeight);
    c.style.fontSize = Math.max(8, Math.floor(s * 0.55)) + "px";
  }
}

// ------------------------------------------------------------------ one tile
// A tile is built once (and again only when its board's shape changes: players or pits);
// each change after that sets the counts and texts in place. Changes are drawn at most once
// an animation frame: a board that moves twice in one frame is drawn once, at its newest.
const pending = new Map();   // key -> the newest tile not drawn yet
const arrived = [];          // [t_event, ...] of the game events not drawn yet
let frame = 0;

function draw(t, snapshot) {
  const entry = tiles[t.key];
  const last = pending.get(t.key) || (entry && entry.tile);
  // a new game event; a snapshot's tiles (on opening, or after a reconnect) carry old ones
  if (!snapshot && t.t_event && (!last || t.t_event !== last.t_event)) arrived.push(t.t_event);
  pending.set(t.key, t);
  if (!frame) frame = requestAnimationFrame(flush);
}

function flush() {
  frame = 0;
  let added = false, relabelled = false;
  for (const t of pending.values()) {
    const entry = tiles[t.key];
    if (!entry) added = true;
    else if (entry.tile.label !== t.label) relabelled = true;
    render(t);
  }
  pending.clear();
  const now = Date.now() / 1000;
  for (const t0 of arrived) window.hubLatency.push(now - t0);
  arrived.length = 0;
  if (added || relabelled) sortTiles();
  if (added) layout();
  summary();
}

function build(t) {
  const el = h("div", "tile");
  el.dataset.key = t.key;
  el.addEventListener("click", (e) => {
    if (e.target.closest(".pick, .label, .redeal")) return;
    window.location.href = "/board/" + encodeURIComponent(t.key) + "/";
  });
  const head = h("div", "head");
  const name = h("span", "name");
  const pick = h("input", "pick");
  pick.type = "checkbox";
  const text = h("span", "label-text");
  const label = h("input", "label");
  label.type = "text"; label.maxLength = 24; label.placeholder = "label";
  label.title = "The board's label: Enter keeps it on the board";
  label.addEventListener("keydown", (e) => {
    if (e.key === "Enter") { label.blur(); post("/api/label", {board: t.key, label: label.value.trim()}); }
    else if (e.key === "Escape") { label.value = tiles[t.key].tile.label; label.blur(); }
  });
  name.append(pick, text, label);
  const status = h("span", "status");
  head.append(name, status);
  const who = h("div", "who");
  const board = h("div", "board");
  const foot = h("div", "foot");
  el.append(head, who, board, foot);
  document.getElementById("grid").appendChild(el);
  return {el: el, tile: null, text: text, label: label, status: status, who: who, board: board,
          foot: foot, shape: "", cells: [], whoText: ""};
}

function render(t) {
  const entry = tiles[t.key] || (tiles[t.key] = build(t));
  entry.tile = t;
  const el = entry.el;
  el.dataset.status = t.status;
  el.className = "tile " + t.status + (t.paused ? " paused" : "");
  entry.text.textContent = t.label || t.port;
  if (document.activeElement !== entry.label) entry.label.value = t.label;
  entry.status.textContent = t.status === "live" ? (t.paused ? "paused" : t.locked ? "locked" : "live")
    : t.status === "held" ? "port held by another program"
    : t.status === "offline" ? "off line since " + when(t.last_seen) : t.status;
  whoLine(entry, t);
  entry.foot.classList.toggle("problem", !!t.problem);
  entry.foot.textContent = t.problem || footText(t);
  if (t.redeal) {  // the board refused its tournament game: one click deals it again
    const again = h("button", "redeal");
    again.textContent = "deal again";
    again.onclick = () => post("/api/redeal", {board: t.key});
    entry.foot.append(" ", again);
  }
  const st = t.state;
  const shape = st ? st.pits.length + "x" + st.pits[0].length : "";
  if (shape !== entry.shape) {
    entry.shape = shape;
    buildBoard(entry, st);
    fitCounts(entry.el);
  }
  if (st) {
    for (const c of entry.cells) {
      const count = String(c.pit === 0 ? st.stores[c.seat] : st.pits[c.seat][c.pit - 1]);
      if (c.el.textContent !== count) c.el.textContent = count;
      c.el.classList.toggle("turn", !st.over && st.turn === c.seat);
    }
  }
}

// Who plays a seat of the game the tile shows: the tournament's player (for a finished game,
// the players of that game, not of the one dealt next), else the seat, and the CPU's level.
function seatName(t, s) {
  const names = t.state && t.state.over ? t.finished_players : t.players;
  if (names && names[s]) return names[s];
  const seat = (t.seats || [])[s];
  return "seat " + s + (seat && seat.kind === "cpu" ? " (CPU " + seat.level + ")" : "");
}

// Both (or every) players and which row is whose, in the seats' colours: with two, seat 1
// plays the top row and seat 0 the bottom one, as the board lies; with more, a row a seat.
function whoLine(entry, t) {
  const st = t.state;
  const n = st ? st.pits.length : 0;
  const names = [];
  for (let s = 0; s < n; s++) names.push(seatName(t, s));
  const where = n === 2 ? ["bottom", "top"] : names.map((_, s) => "row " + (s + 1));
  const order = n === 2 ? [1, 0] : names.map((_, s) => s);
  const key = JSON.stringify([names, colours]);
  if (key === entry.whoText) return;
  entry.whoText = key;
  entry.who.textContent = "";
  order.forEach((s, i) => {
    if (i) entry.who.append(" · ");
    const b = h("b", "", names[s]);
    b.dataset.seat = s;
    b.style.color = colours[s % colours.length];
    entry.who.append(b, " " + where[s]);
  });
}

function footText(t) {
  const st = t.state;
  if (!st) return t.title || "";
  if (st.over) {
    const win = st.places.indexOf(1), draw = st.places.filter(p => p === 1).length > 1;
    return (draw ? "draw" : seatName(t, win) + " won") + " " + st.stores.join(":");
  }
  return seatName(t, st.turn) + " to move · " + t.title;
}

function buildBoard(entry, st) {
  const b = entry.board;
  b.textContent = "";
  entry.cells = [];
  if (!st) return;
  const P = st.pits.length, N = st.pits[0].length;
  const cell = (seat, pit, col, row, span) => {
    const c = h("div", "cell" + (pit === 0 ? " store" : ""));
    c.style.setProperty("--c", colours[seat % colours.length]);
    c.dataset.seat = seat;
    if (pit === 0) c.dataset.store = ""; else c.dataset.pit = pit;
    c.style.gridColumn = col; c.style.gridRow = span ? row + " / span " + span : row;
    b.appendChild(c);
    entry.cells.push({el: c, seat: seat, pit: pit});
  };
  if (P === 2) {     // as the board lies: seat 1 along the top, right to left; stores at the ends
    b.style.gridTemplateColumns = "repeat(" + (N + 2) + ", minmax(0, 1fr))";
    b.style.gridTemplateRows = "repeat(2, minmax(0, 1fr))";
    cell(1, 0, 1, 1, 2);
    for (let p = 1; p <= N; p++) {
      cell(1, p, N + 2 - p, 1);
      cell(0, p, p + 1, 2);
    }
    cell(0, 0, N + 2, 1, 2);
  } else {           // one row a seat: its pits in sowing order, then its store
    b.style.gridTemplateColumns = "repeat(" + (N + 1) + ", minmax(0, 1fr))";
    b.style.gridTemplateRows = "repeat(" + P + ", minmax(0, 1fr))";
    for (let s = 0; s < P; s++) {
      for (let p = 1; p <= N; p++) cell(s, p, p, s + 1);
      cell(s, 0, N + 1, s + 1);
    }
  }
}

function sortTiles() {
  const grid = document.getElementById("grid");
  const key = (e) => { const t = tiles[e.dataset.key].tile; return t ? (t.label || "~" + t.port) : "~"; };
  const els = Array.from(grid.children).sort((a, b) => key(a).localeCompare(key(b), undefined, {numeric: true}));
  els.forEach(e => grid.appendChild(e));
}

// ------------------------------------------------------------------ standings
function drawStandings(s) {
  standings = s;
  const tbody = document.getElementById("standings-rows");
  tbody.innerHTML = "";
  document.getElementById("standings-title").textContent = !s ? "No tournament yet" :
    (s.style === "swiss" ? "Swiss" : "Round robin") + ", round " + s.round + " of " + s.rounds + (s.over ? " (final)" : "");
  for (const r of (s ? s.standings : [])) {
    const tr = h("tr");
    tr.dataset.player = r.name;
    for (const v of [r.place, r.name, r.played, r.won, r.drawn, r.lost, r.points, (r.stores > 0 ? "+" : "") + r.stores])
      tr.appendChild(h("td", "", String(v)));
    tbody.appendChild(tr);
  }
  summary();
  layout();
}

function summary() {
  const all = Object.values(tiles).map(e => e.tile);
  const live = all.filter(t => t.status === "live").length;
  document.getElementById("summary").textContent = live + " of " + all.length + " boards live" +
    (standings ? " · tournament round " + standings.round + " of " + standings.rounds : "");
}

// ------------------------------------------------------------------ views and controls
function show(which) {
  document.getElementById("grid").hidden = which === "standings";
  document.getElementById("standings").hidden = which !== "standings";
  layout();
}
document.getElementById("show-grid").onclick = () => show("grid");
document.getElementById("show-standings").onclick = () => show("standings");
document.getElementById("show-bots").onclick = () => { location.href = "bots"; };   // bots.html
document.getElementById("show-controls").onclick = () => {
  const c = document.getElementById("controls");
  c.hidden = !c.hidden;
  document.body.classList.toggle("controls", !c.hidden);
  layout();
};
if (location.hash === "#standings") show("standings");

function chosen() {
  if (document.querySelector("input[name=for]:checked").value === "all") return null;
  return Array.from(document.querySelectorAll(".tile")).filter(e => e.querySelector(".pick").checked).map(e => e.dataset.key);
}

// The hub's token, from the page the hub served: every POST carries it (hub/guard.py).
const token = document.querySelector('meta[name="hub-token"]').content;

async function post(path, body) {
  const r = await fetch(path, {method: "POST", body: JSON.stringify(body),
                               headers: {"Content-Type": "application/json", "X-Hub-Token": token}});
  const a = await r.json();
  const out = document.getElementById("answer");
  if (r.status === 409 && a.confirm === "replace") { askToReplace(path, body, a.error); return; }
  if (!a.ok) { out.textContent = a.error; return; }
  const bad = Object.entries(a.results).filter(([k, v]) => v !== "ok" && k !== "folder" && k !== "rounds");
  out.textContent = a.results.folder ? "Exported to " + a.results.folder :
    bad.length ? bad.map(([k, v]) => k + ": " + v).join("\n") : "Done.";
}

// A tournament is running: the teacher confirms before it is replaced (its games stay logged).
function askToReplace(path, body, why) {
  const d = document.getElementById("replace");
  document.getElementById("replace-why").textContent = why;
  document.getElementById("replace-yes").onclick = () => { d.close(); post(path, Object.assign({}, body, {replace: true})); };
  document.getElementById("replace-no").onclick = () => {
    d.close(); document.getElementById("answer").textContent = "The running tournament goes on.";
  };
  d.showModal();
}

document.getElementById("controls").addEventListener("click", (e) => {
  const act = e.target.dataset && e.target.dataset.act;
  if (!act) return;
  const v = (id) => document.getElementById(id).value;
  if (act === "settings") {
    const body = {boards: chosen()};
    if (v("variant")) body.variant = v("variant");
    if (v("players")) body.players = +v("players");
    if (v("seeds")) body.seeds = +v("seeds");
    if (v("timer")) body.move_time_limit = +v("timer");
    post("/api/settings", body);
  } else if (act === "tournament") {
    post("/api/tournament", {players: v("entrants").split("\n").map(s => s.trim()).filter(Boolean),
                             style: v("style"), cpu_level: +v("gaplevel")});
  } else if (act === "export") {
    post("/api/export", {});
  } else {
    post("/api/" + act, {boards: chosen()});
  }
});

window.addEventListener("resize", layout);
const source = new EventSource("/events");
source.onmessage = (m) => {
  const d = JSON.parse(m.data);
  if (d.snapshot) {
    if (d.snapshot.colours) colours = d.snapshot.colours;
    d.snapshot.tiles.forEach(t => draw(t, true));
    drawStandings(d.snapshot.standings);
  }
  if (d.tile) draw(d.tile);
  if ("standings" in d) drawStandings(d.standings);
  document.body.dataset.ready = "1";
};
