// The projector page's script (served inline by mancala_host/views/web.py; webpage.py says what the
// page shows). The board's plan comes from the server in mm; the SVG's view box is in mm, so
// the whole board scales with the window. Nothing here loads anything from outside.
"use strict";
const CONTROL = document.body.dataset.control === "true";   // web --control: a click presses
const NS = "http://www.w3.org/2000/svg";
const FLASH_MS = 360;          // as the board's mancala_fw/display/animation.py
const ORD = ["", "1st", "2nd", "3rd", "4th"];
let plan = null, planKey = "", rings = {}, labels = [], colours = [], vb = null;
let shown = null;              // {pits, stores} on the page now
let seq = null, anim = null, snapNow = null, again = null;  // again: the seat that moves again

function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
function key(seat, pit) { return seat + "." + pit; }   // pit 0: the store

// ---------------------------------------------------------------- the board, from the plan
function build(p) {
  plan = p; rings = {}; labels = [];
  const svg = document.getElementById("svg");
  svg.innerHTML = "";
  svg.setAttribute("class", CONTROL ? "control" : "");
  const under = el("g", {}, svg);
  el("g", {id: "caplayer"}, svg);     // a capture's line, under the rings it joins
  const top = el("g", {}, svg);
  const pitR = p.pit_mm / 2, storeR = p.store_mm / 2, sw = p.pit_mm * 0.1;
  for (const [x, y] of p.unused)
    el("circle", {cx: x, cy: y, r: pitR - sw / 2, class: "unused", "stroke-width": sw * 0.4,
                  "stroke-dasharray": (sw * 0.6) + " " + (sw * 0.6)}, under);
  if (p.opposite === "shifted") {
    const n = p.seats[0].pits.length;
    for (let i = 0; i < n; i++) {
      const a = p.seats[0].pits[i], b = p.seats[1].pits[n - 1 - i];
      el("line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: "pairline", "stroke-width": sw * 0.35,
                  "stroke-dasharray": (sw * 0.8) + " " + (sw * 0.5)}, under);
    }
  }
  p.seats.forEach((seat, s) => {
    const colour = colours[s % colours.length];
    seat.pits.forEach(([x, y], i) => ring(top, x, y, pitR, sw, colour, s, i + 1));
    ring(top, seat.store[0], seat.store[1], storeR, sw * 1.2, colour, s, 0);
  });
  const lab = el("g", {}, svg);
  p.seats.forEach((seat, s) => {
    const t = el("text", {class: "label", "data-label": s, fill: colours[s % colours.length]}, lab);
    labels.push({text: t, seat: seat});
  });
  placeLabels(p.pit_mm * (p.seats.every(x => x.inside) ? 0.5 : 0.45));
  const cap = [];
  if (p.opposite === "shifted")
    cap.push("Kalah uses the " + p.seats[0].pits.length + " pits nearest each store: the dashed lines join the pits opposite each other, which capture from each other.");
  document.getElementById("caption").textContent = cap.join(" ");
  fit();
}

function ring(parent, x, y, r, sw, colour, seat, pit) {
  const store = pit === 0;
  const attrs = {class: "ring " + (store ? "store" : "pit"), "data-seat": seat, style: "--c:" + colour};
  attrs[store ? "data-store" : "data-pit"] = store ? "" : pit;
  const g = el("g", attrs, parent);
  el("circle", {cx: x, cy: y, r: r - sw / 2, fill: "#1c1c1c", class: "body"}, g);
  el("circle", {cx: x, cy: y, r: r - sw, fill: colour, opacity: .28, class: "tint"}, g);
  el("circle", {cx: x, cy: y, r: r - sw, fill: "#fff", class: "flashfill"}, g);
  el("circle", {cx: x, cy: y, r: r - sw / 2, fill: "none", stroke: colour, "stroke-width": sw, class: "edge"}, g);
  el("circle", {cx: x, cy: y, r: r * 0.72, fill: "none", stroke: "#fff", "stroke-width": sw * 0.45,
                "stroke-dasharray": (sw * 0.9) + " " + (sw * 0.55), class: "inner"}, g);
  const t = el("text", {x: x, y: store ? y - r * 0.08 : y, class: "count", "font-size": store ? r * 0.8 : r * 0.95}, g);
  t.textContent = "";
  let tag = null;
  if (store) {
    tag = el("text", {x: x, y: y + r * 0.52, class: "tag", "font-size": r * 0.3}, g);
    tag.textContent = "again";
  }
  if (CONTROL && !store) g.addEventListener("click", () => press(seat, pit));
  rings[key(seat, pit)] = {g: g, text: t, x: x, y: y, r: r};
}

// Labels sit beside their seat's row (webplan.py says which way); the words change, so the
// space is measured with the longest words a label can have, then shrunk until no label
// touches another label or a ring.
function labelWords(s, st) {
  const name = "Seat " + s;
  if (!st) return [name, ""];
  const place = st.places && st.places[s];
  if (place) {
    const tie = st.places.filter(q => q === place).length > 1 ? " (tie)" : "";
    return [name, ORD[place] + " place" + tie];
  }
  if (st.active && st.active.indexOf(s) < 0) return [name, "out"];
  if (st.turn === s) return [name, again === s ? "moves again" : "to move"];
  return [name, ""];
}
function setLabel(L, words, size) {
  const t = L.text, [x, y] = L.seat.label, to = L.seat.toward;
  t.innerHTML = "";
  t.setAttribute("font-size", size);
  const two = L.seat.inside;
  const anchor = to === "left" ? "end" : to === "right" ? "start" : "middle";
  t.setAttribute("text-anchor", anchor);
  const a = el("tspan", {x: x}, t); a.textContent = words[0];
  const b = el("tspan", {class: "state"}, t);
  if (two) { b.setAttribute("x", x); b.setAttribute("dy", "1.15em"); b.textContent = words[1]; }
  else b.textContent = words[1] ? "  \u00b7 " + words[1] : "";
  // Place the block: its near edge on the anchor point, growing away from the row.
  t.setAttribute("x", x); t.setAttribute("y", y);
  const box = t.getBBox();
  let dy = 0;
  if (to === "down") dy = y - box.y;
  else if (to === "up") dy = y - (box.y + box.height);
  else dy = y - (box.y + box.height / 2);
  t.setAttribute("transform", "translate(0," + dy + ")");
}
function boxOf(e) {
  const b = e.getBBox(), tr = e.getAttribute("transform");
  const dy = tr ? parseFloat(tr.split(",")[1]) : 0;
  return {x: b.x, y: b.y + dy, w: b.width, h: b.height};
}
function hit(a, b) { return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h; }
function placeLabels(size) {
  // Only a Kalah game (two seats) can end in a tie.
  const widest = ["Seat 0", plan.seats.length === 2 ? "1st place (tie)" : "moves again"];
  for (let tries = 0; tries < 8; tries++) {
    labels.forEach((L, s) => setLabel(L, ["Seat " + s, widest[1]], size));
    const boxes = labels.map(L => boxOf(L.text));
    let clash = false;
    for (let i = 0; i < boxes.length && !clash; i++) {
      for (let j = i + 1; j < boxes.length; j++) if (hit(boxes[i], boxes[j])) clash = true;
      for (const k in rings) {
        const R = rings[k];
        if (hit(boxes[i], {x: R.x - R.r, y: R.y - R.r, w: 2 * R.r, h: 2 * R.r})) clash = true;
      }
    }
    if (!clash) break;
    size *= 0.85;
  }
  plan.labelSize = size;
  // The view box: every ring, every label at its widest, and the pads nobody uses.
  let x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
  const grow = b => { x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y); x1 = Math.max(x1, b.x + b.w); y1 = Math.max(y1, b.y + b.h); };
  for (const k in rings) { const R = rings[k]; grow({x: R.x - R.r, y: R.y - R.r, w: 2 * R.r, h: 2 * R.r}); }
  plan.unused.forEach(([x, y]) => grow({x: x - plan.pit_mm / 2, y: y - plan.pit_mm / 2, w: plan.pit_mm, h: plan.pit_mm}));
  labels.forEach(L => grow(boxOf(L.text)));
  const m = plan.pit_mm * 0.12;
  vb = {x: x0 - m, y: y0 - m, w: x1 - x0 + 2 * m, h: y1 - y0 + 2 * m};
  document.getElementById("svg").setAttribute("viewBox", [vb.x, vb.y, vb.w, vb.h].join(" "));
  labels.forEach((L, s) => setLabel(L, labelWords(s, snapNow && snapNow.state), size));
}

// ---------------------------------------------------------------- filling the window
function fit() {
  const W = window.innerWidth, H = window.innerHeight;
  const u = Math.max(14, Math.min(H / 22, W / 36));
  document.documentElement.style.setProperty("--u", u + "px");
  const head = document.querySelector("header").offsetHeight + document.getElementById("caption").offsetHeight +
    document.getElementById("exact").offsetHeight;
  const main = document.getElementById("main");
  main.style.top = head + "px";
  if (!vb) return;
  const pad = u * 0.5, gap = u * 0.6;
  const aw = W - 2 * pad, ah = H - head - 2 * pad;
  const sideW = Math.max(0.3 * aw, 11 * u), belowH = Math.max(0.2 * ah, 3.9 * u);
  const sSide = Math.min((aw - sideW - gap) / vb.w, ah / vb.h);
  const sBelow = Math.min(aw / vb.w, (ah - belowH - gap) / vb.h);
  const board = document.getElementById("board"), notes = document.getElementById("notes");
  if (sSide > sBelow) {
    // Until the first note the board stands in the middle of the screen, not in a column
    // beside an empty one (a square board on a wide screen used only its left half).
    const bw = vb.w * sSide, bh = vb.h * sSide;
    const left = notes.querySelector("p") ? pad : pad + (aw - bw) / 2;
    Object.assign(board.style, {left: left + "px", top: (pad + (ah - bh) / 2) + "px", width: bw + "px", height: bh + "px"});
    Object.assign(notes.style, {left: (pad + bw + gap) + "px", top: pad + "px", width: (aw - bw - gap) + "px", height: ah + "px"});
  } else {
    const bw = vb.w * sBelow, bh = vb.h * sBelow;
    Object.assign(board.style, {left: (pad + (aw - bw) / 2) + "px", top: pad + "px", width: bw + "px", height: bh + "px"});
    Object.assign(notes.style, {left: pad + "px", top: (pad + bh + gap) + "px", width: aw + "px", height: (ah - bh - gap) + "px"});
  }
  fitNewest();
  document.body.dataset.fitted = W + "x" + H;
}
// The newest note comes first, in the biggest type; if it is too long for the space it
// shrinks (never below 0.6 of the full size) rather than run off the screen.
function fitNewest() {
  const notes = document.getElementById("notes"), p = notes.querySelector("p[data-newest]");
  if (!p) return;
  const u = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--u"));
  let size = u;
  p.style.fontSize = size + "px";
  while (p.offsetHeight > notes.clientHeight && size > 0.6 * u) { size *= 0.92; p.style.fontSize = size + "px"; }
  // Older notes that would be cut off at the bottom are left out whole.
  let full = false;
  notes.querySelectorAll("p:not([data-newest])").forEach(q => {
    q.style.display = "";
    if (full || q.offsetTop + q.offsetHeight > notes.clientHeight) { q.style.display = "none"; full = true; }
  });
}
window.addEventListener("resize", () => { if (plan) placeLabels(plan.labelSize); fit(); });

// ---------------------------------------------------------------- counts and marks
function setCount(seat, pit, n) {
  const R = rings[key(seat, pit)];
  if (R && R.text.textContent !== String(n)) R.text.textContent = String(n);
}
function show(c) {
  shown = {pits: c.pits.map(r => r.slice()), stores: c.stores.slice()};
  c.pits.forEach((row, s) => row.forEach((n, i) => setCount(s, i + 1, n)));
  c.stores.forEach((n, s) => setCount(s, 0, n));
}
function mark(cls, seat, pit, on) {
  const R = rings[key(seat, pit)];
  if (R) R.g.classList.toggle(cls, on);
}
function clearMarks(classes) {
  for (const k in rings) classes.forEach(c => rings[k].g.classList.remove(c));
}
function captureLine(cap) {
  const layer = document.getElementById("caplayer");
  layer.innerHTML = "";
  if (!cap) return;
  const a = rings[key(cap.seat, cap.pit)], b = rings[key(cap.from[0], cap.from[1])];
  if (a && b) el("line", {x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "capline", "stroke-width": plan.pit_mm * 0.12}, layer);
}
// The seat to move, finished seats, labels and the header: the state after the animation.
function showState(st, live) {
  plan.seats.forEach((seat, s) => {
    const out = st.active.indexOf(s) < 0;
    for (let p = 0; p <= seat.pits.length; p++) {
      mark("turn", s, p, st.turn === s && p > 0 && !out);
      mark("dim", s, p, out && !st.over);
    }
  });
  labels.forEach((L, s) => setLabel(L, labelWords(s, st), plan.labelSize));
  let words;
  if (st.over) words = "Game over: " + result(st);
  else words = "Seat " + st.turn + (again === st.turn ? " moves again" : " to move");
  const status = document.getElementById("status");
  status.textContent = (live === false ? "board disconnected - " : "") + words;
  status.style.color = st.over ? "#fff" : colours[st.turn % colours.length];
}
// The header says who won; every seat's label gives its place.
function result(st) {
  const first = st.places.map((p, s) => [p, s]).filter(x => x[0] === 1).map(x => x[1]);
  if (first.length > 1) return "a draw";
  return first.length ? "seat " + first[0] + " wins" : "";
}

// ---------------------------------------------------------------- the sowing, stone by stone
function stopAnim() {
  if (!anim) return;
  anim.timers.forEach(clearTimeout);
  const rest = anim.steps.slice(anim.next);
  anim.next = anim.steps.length;
  rest.forEach(f => f[1]());
  anim = null;
  delete document.body.dataset.sowing;
}
// Replays one move from `before`; ends on the state of a.snap (the move's snapshot, or a later
// one of the same move, such as the game over that follows the last move).
function sow(before, rec, ms, snap) {
  const c = {pits: before.pits.map(r => r.slice()), stores: before.stores.slice()};
  const steps = [], s = rec.seat;
  const a = {steps: steps, next: 0, timers: [], snap: snap};
  clearMarks(["played", "captured", "again", "hand", "flash"]);
  captureLine(null);
  steps.push([0, () => { c.pits[s][rec.pit - 1] = 0; mark("played", s, rec.pit, true); show(c); }]);
  let t = 0, last = null;
  for (const [ss, pp] of rec.sown) {
    t += ms;
    steps.push([t, () => {
      if (last) mark("hand", last[0], last[1], false);
      if (pp === 0) c.stores[ss] += 1; else c.pits[ss][pp - 1] += 1;
      mark("hand", ss, pp, true); last = [ss, pp]; show(c);
    }]);
  }
  const cap = rec.capture;
  if (cap) {
    t += ms;
    const spots = [[cap.seat, cap.pit], [cap.from[0], cap.from[1]], [cap.seat, 0]];
    steps.push([t, () => { if (last) mark("hand", last[0], last[1], false); spots.forEach(([x, y]) => mark("flash", x, y, true)); captureLine(cap); }]);
    t += FLASH_MS;
    steps.push([t, () => {
      c.pits[cap.seat][cap.pit - 1] = 0; c.pits[cap.from[0]][cap.from[1] - 1] = 0; c.stores[cap.seat] += cap.stones;
      spots.forEach(([x, y]) => mark("flash", x, y, false));
      mark("captured", cap.seat, cap.pit, true); mark("captured", cap.from[0], cap.from[1], true); show(c);
    }]);
  }
  if (rec.sweep || (rec.finished && rec.finished.length) || rec.over) {
    t += ms;
    steps.push([t, () => {
      if (last) mark("hand", last[0], last[1], false);
      c.pits.forEach((row, ss) => row.forEach((n, i) => { if (n) mark("flash", ss, i + 1, true); }));
    }]);
    t += FLASH_MS;
  }
  t += ms;
  steps.push([t, () => {
    clearMarks(["hand", "flash"]);
    again = rec.extra && !rec.over ? s : null;
    if (again !== null) mark("again", s, 0, true);
    const now = a.snap;
    show(now.state);
    anim = null;
    delete document.body.dataset.sowing;
    showState(now.state, now.live);
  }]);
  anim = a;
  document.body.dataset.sowing = "1";
  const start = performance.now();
  steps.forEach((step, i) => {
    a.timers.push(setTimeout(() => {
      if (anim !== a || a.next > i) return;
      while (a.next <= i) { const f = steps[a.next]; a.next += 1; f[1](); }
    }, Math.max(0, step[0] - (performance.now() - start))));
  });
}

// ---------------------------------------------------------------- notes, press, the stream
const SEAT_WORD = /\b([Ss]eat) (\d)\b/g;
function notesHtml(list) {
  const notes = document.getElementById("notes");
  const had = notes.querySelector("p") !== null;
  notes.innerHTML = "";
  list.slice().reverse().forEach((text, i) => {
    const p = document.createElement("p");
    p.setAttribute("data-note", "");
    if (i === 0) p.setAttribute("data-newest", "");
    let at = 0, m;
    SEAT_WORD.lastIndex = 0;
    while ((m = SEAT_WORD.exec(text))) {
      p.appendChild(document.createTextNode(text.slice(at, m.index)));
      const b = document.createElement("b");
      b.textContent = m[1] + "\u00a0" + m[2];
      b.style.color = colours[Number(m[2]) % colours.length];
      p.appendChild(b);
      at = m.index + m[0].length;
    }
    p.appendChild(document.createTextNode(text.slice(at)));
    notes.appendChild(p);
  });
  if (had !== list.length > 0) fit(); else fitNewest();  // the first note: the board moves aside
}
function press(seat, pit) {   // with the token web served the page with (hub/guard.py)
  fetch("/press", {method: "POST", headers: {"Content-Type": "application/json", "X-Hub-Token": document.body.dataset.token},
                   body: JSON.stringify({seat: seat, pit: pit})})
    .then(r => r.json()).then(a => { if (!a.ok) document.getElementById("caption").textContent = a.error.message; });
}
function onSnapshot(snap) {
  const st = snap.state;
  if (!st || !snap.plan) return;
  snapNow = snap;
  colours = snap.colours;
  document.getElementById("title").textContent = snap.title || "Mancala board";
  const k = JSON.stringify(snap.plan);
  if (k !== planKey) { stopAnim(); planKey = k; build(snap.plan); shown = null; }
  notesHtml(snap.notes || []);
  if (snap.seq !== seq) {
    const first = seq === null;
    seq = snap.seq;
    stopAnim();
    const rec = snap.record;
    if (!first && rec && rec.kind === "sow" && snap.before && shown) {
      sow(snap.before, rec, snap.stone_ms, snap);
    } else {
      clearMarks(["played", "captured", "again", "hand", "flash"]);
      captureLine(null);
      again = rec && rec.kind === "sow" && rec.extra && !rec.over ? rec.seat : null;
      if (again !== null) mark("again", again, 0, true);
      if (rec && rec.kind === "sow") {
        mark("played", rec.seat, rec.pit, true);
        if (rec.capture) { mark("captured", rec.capture.seat, rec.capture.pit, true); mark("captured", rec.capture.from[0], rec.capture.from[1], true); captureLine(rec.capture); }
      }
      show(st);
      showState(st, snap.live);
    }
  } else if (anim) {
    anim.snap = snap;
  } else {
    show(st);
    showState(st, snap.live);
  }
  clearMarks(["hinted"]);
  if (snap.hint) mark("hinted", snap.hint.seat, snap.hint.pit, true);
  // web --exact only: the snapshot has no "exact" without it.
  const ex = snap.exact, exEl = document.getElementById("exact"), exText = ex ? ex.text : "";
  if (exEl.textContent !== exText) { exEl.textContent = exText; fit(); }
  clearMarks(["exactbest"]);
  if (ex && ex.pits) ex.pits.forEach(p => mark("exactbest", ex.seat, p, true));
  document.body.dataset.seq = String(snap.seq);
  document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
}
const source = new EventSource("/events");
source.onmessage = e => onSnapshot(JSON.parse(e.data));
source.onerror = () => { document.getElementById("status").textContent = "reconnecting to the host tool..."; };
fit();
