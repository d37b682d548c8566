"""The projector page served by `web`: one self-contained HTML file (no outside resources).

It draws every pit and store as a big ring in its seat's colour with the count inside, the
seat to move highlighted, finished seats dimmed, the last move marked, and the commentary in
large type. The layout is computed from the state: two seats face each other with the
stores at the ends; three or four seats sit on the sides of a triangle or square with each
store at the corner after its pits, counterclockwise as the board plays.
"""

PAGE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Mancala board</title>
<style>
 body { margin:0; background:#111; color:#eee; font-family:system-ui,sans-serif; }
 header { display:flex; justify-content:space-between; align-items:baseline; padding:12px 24px; }
 h1 { font-size:2.2rem; margin:0; }
 #status { font-size:1.4rem; color:#aaa; }
 main { display:flex; gap:24px; padding:0 24px; }
 #board { flex:3; }
 svg { width:100%; height:auto; max-height:88vh; }
 #notes { flex:2; font-size:1.7rem; line-height:1.35; }
 #notes p { margin:0 0 .6em 0; color:#bbb; }
 #notes p:last-child { color:#fff; font-weight:600; }
 .count { font-size:44px; font-weight:700; fill:#fff; text-anchor:middle; dominant-baseline:central; }
 .store .count { font-size:60px; }
 .label { font-size:30px; font-weight:600; fill:#999; text-anchor:middle; }
 .pit { cursor:default; }
 .control .pit { cursor:pointer; }
</style></head>
<body>
<header><h1 id="title">Mancala board</h1><div id="status">connecting&hellip;</div></header>
<main><div id="board"><svg id="svg" viewBox="0 0 1000 700"></svg></div><div id="notes"></div></main>
<script>
const CONTROL = __CONTROL__;
const NS = "http://www.w3.org/2000/svg";
function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
// Where each seat's pits and store go: lists of [x, y] for pits 1..N, and the store.
function layout(players, pits) {
  const spots = [];
  if (players === 2) {
    const x0 = 180, x1 = 820, dx = (x1 - x0) / (pits - 1 || 1);
    const bottom = [], top = [];
    for (let i = 0; i < pits; i++) { bottom.push([x0 + i * dx, 480]); top.push([x1 - i * dx, 220]); }
    spots.push({pits: bottom, store: [925, 350], label: [500, 600]});
    spots.push({pits: top, store: [75, 350], label: [500, 100]});
    return spots;
  }
  // A triangle or square filling a 1000 x 1000 view, seat 0 along the bottom edge.
  const side = 800, r = side / (2 * Math.sin(Math.PI / players));
  const cx = 500, cy = players === 3 ? 600 : 500;
  const start = (270 - 180 / players) * Math.PI / 180;
  const corner = k => { const a = start + k * 2 * Math.PI / players; return [cx + r * Math.cos(a), cy - r * Math.sin(a)]; };
  for (let s = 0; s < players; s++) {
    const a = corner(s), b = corner(s + 1), list = [];
    for (let i = 0; i < pits; i++) {
      const f = 0.24 + 0.56 * i / (pits - 1 || 1);
      list.push([a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f]);
    }
    const store = [b[0] + (cx - b[0]) * 0.3, b[1] + (cy - b[1]) * 0.3];
    const mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    spots.push({pits: list, store: store, label: [mid[0] + (cx - mid[0]) * 0.55, mid[1] + (cy - mid[1]) * 0.55]});
  }
  return spots;
}
function side_gap(pits) { return 0.56 * 800 / (pits - 1 || 1); }
function ring(svg, x, y, radius, colour, count, opts) {
  const g = el("g", {class: opts.store ? "store" : "pit", "data-seat": opts.seat, "data-pit": opts.pit}, svg);
  if (opts.last) el("circle", {cx: x, cy: y, r: radius + 12, fill: "none", stroke: "#fff", "stroke-width": 4, "stroke-dasharray": "8 6"}, g);
  if (opts.turn) el("circle", {cx: x, cy: y, r: radius + 10, fill: colour, opacity: 0.35}, g);
  el("circle", {cx: x, cy: y, r: radius, fill: "#1d1d1d", stroke: colour, "stroke-width": opts.turn ? 16 : 10,
                opacity: opts.dim ? 0.3 : 1}, g);
  const t = el("text", {x: x, y: y, class: "count"}, g);
  t.textContent = count;
  if (CONTROL && !opts.store) g.addEventListener("click", () => press(opts.seat, opts.pit));
  return g;
}
function press(seat, pit) {
  fetch("/press", {method: "POST", headers: {"Content-Type": "application/json"},
                   body: JSON.stringify({seat: seat, pit: pit})})
    .then(r => r.json()).then(a => { if (!a.ok) note(a.error.message, true); });
}
function note(text) { const p = document.createElement("p"); p.textContent = text; document.getElementById("notes").appendChild(p); }
function draw(snap) {
  const st = snap.state; if (!st) return;
  document.getElementById("title").textContent = snap.title || "Mancala board";
  const turn = st.over ? "Game over" : "Seat " + st.turn + " to move";
  document.getElementById("status").textContent = (snap.live === false ? "board disconnected - " : "") + turn;
  const svg = document.getElementById("svg");
  svg.innerHTML = "";
  svg.setAttribute("class", CONTROL ? "control" : "");
  const players = st.pits.length, pits = st.pits[0].length;
  const spots = layout(players, pits);
  svg.setAttribute("viewBox", players === 2 ? "0 0 1000 700" : "0 0 1000 1000");
  const radius = players === 2 ? Math.min(48, 560 / (pits + 1) / 2 + 8) : Math.min(52, 0.6 * side_gap(pits));
  let last = null;
  if (snap.record && snap.record.sown && snap.record.sown.length) last = snap.record.sown[snap.record.sown.length - 1];
  for (let s = 0; s < players; s++) {
    const colour = snap.colours[s % snap.colours.length];
    const dim = st.active.indexOf(s) < 0;
    const turnSeat = st.turn === s;
    for (let i = 0; i < pits; i++) {
      const [x, y] = spots[s].pits[i];
      ring(svg, x, y, radius, colour, st.pits[s][i], {seat: s, pit: i + 1, dim: dim, turn: turnSeat,
           last: last && last[0] === s && last[1] === i + 1});
    }
    const [sx, sy] = spots[s].store;
    ring(svg, sx, sy, radius * (players === 2 ? 1.45 : 1.25), colour, st.stores[s], {seat: s, pit: 0, store: true, dim: dim, turn: turnSeat,
         last: last && last[0] === s && last[1] === 0});
    const place = st.places[s] ? " - place " + st.places[s] : (turnSeat ? " - to move" : "");
    const lab = el("text", {x: spots[s].label[0], y: spots[s].label[1], class: "label", fill: colour}, svg);
    lab.textContent = "Seat " + s + place;
    lab.style.fill = colour;
  }
  const notes = document.getElementById("notes");
  notes.innerHTML = "";
  (snap.notes || []).forEach(t => note(t));
  document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
}
const source = new EventSource("/events");
source.onmessage = e => draw(JSON.parse(e.data));
source.onerror = () => { document.getElementById("status").textContent = "reconnecting to the host tool..."; };
</script></body></html>
"""
