// The replay page: folds the view deltas of projections/page/data.py back into the board at
// any moment of any branch. Every text the log holds is set with textContent, never as HTML.
// It runs in one module script after fold.mjs (projections/page/shell.py puts them together:
// the page is one file that opens with no network), whose functions it calls: readEvents,
// walk, emptyBoard, applyEvent, clone, explanationText, clockText, actsText, pendingText, figure.
const SVG = "http://www.w3.org/2000/svg";
const KEYFRAME = 256; // a full board kept every so many events: scrubbing folds at most this many
const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];
let D, S, byId, path, frames, endedAt = -1, at = 0, branch = null, timer = null;

const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== undefined && text !== null) n.textContent = String(text);
  return n;
}
function svg(tag, attrs) {
  const n = document.createElementNS(SVG, tag);
  for (const k in attrs) n.setAttribute(k, attrs[k]);
  return n;
}
function clear(n) { while (n.firstChild) n.removeChild(n.firstChild); return n; }

let reading = { id: 0, cmd: 0 }; // the last entry read: a change's entries are steps from it

function load(data) {
  D = data; S = D.strings; byId = new Map();
  reading = { id: 0, cmd: 0 };
  read(D.events);
}

function read(events) { readEvents(byId, events, S, D.audience === "gm", reading); }

const branchNamed = (name) => D.branches.find((b) => b.name === name) || D.branches[0];
const empty = (first) => emptyBoard(D.summarised, first);
const apply = applyEvent;
let tip = null, chartTimer = null; // the board after the path's last event; a chart to draw again

function select(name) {
  branch = branchNamed(name);
  path = walk(byId, branch.head);
  frames = [];
  endedAt = path.findIndex((ev) => D.ended && String(ev.id) in D.ended);
  const st = empty(path[0]), points = chartPoints();
  for (let i = 0; i < path.length; i++) {
    apply(st, path[i]);
    points.add(st, path[i], i);
    if (i % KEYFRAME === 0) frames.push(clone(st));
  }
  tip = st;
  const range = $("scrub");
  range.max = String(Math.max(0, path.length - 1));
  drawForks();
  if (chartTimer) { clearTimeout(chartTimer); chartTimer = null; }
  drawChart(points);
}

// A live change that carries the branch shown on down its path (a command, a redo): the
// new events folded on the board the page holds, and the chart (which spans the whole
// path) drawn again just after the board is shown. False: the path changed under the
// page (an undo, another branch), which select folds again.
function extend(name) {
  if (!branch || branch.name !== name || !tip || !path.length) return false;
  let b = branchNamed(name), end = path[path.length - 1].id, added = [], ev = byId.get(b.head);
  while (ev && ev.id > end) { added.push(ev); ev = ev.parent === null ? null : byId.get(ev.parent); }
  if (!ev || ev.id !== end) return false;
  branch = b;
  for (let i = added.length - 1; i >= 0; i--) {
    path.push(added[i]);
    apply(tip, added[i]);
    const n = path.length - 1;
    if (n % KEYFRAME === 0) frames.push(clone(tip));
    if (endedAt < 0 && D.ended && String(added[i].id) in D.ended) endedAt = n;
  }
  $("scrub").max = String(Math.max(0, path.length - 1));
  drawForks();
  if (added.length) chartLater();
  return true;
}

function chartLater() {
  if (chartTimer) clearTimeout(chartTimer);
  chartTimer = setTimeout(() => {
    chartTimer = null;
    const st = empty(path[0]), points = chartPoints();
    for (let i = 0; i < path.length; i++) { apply(st, path[i]); points.add(st, path[i], i); }
    drawChart(points);
    moveCursor();
  }, 50);
}

function stateAt(i) {
  const k = Math.floor(i / KEYFRAME), st = clone(frames[k]);
  for (let j = k * KEYFRAME + 1; j <= i; j++) apply(st, path[j]);
  return st;
}

function row(st, key) { return st.c[key] || {}; }

function show(i) {
  if (!path) return; // the board first: the replay waits for the history
  at = Math.max(0, Math.min(i, path.length - 1));
  let ev = path[at], st = stateAt(at);
  $("scrub").value = String(at);
  $("scrub").setAttribute("aria-valuetext", "event #" + ev.id + ", " + (at + 1) + " of " + path.length);
  $("position").textContent = "#" + ev.id + " (" + (at + 1) + " of " + path.length + ")";
  const ended = endedAt >= 0 && at >= endedAt ? D.ended[String(path[endedAt].id)] : null;
  $("clock").textContent = clockText(st.k, ended);
  $("acts").textContent = actsText(st.k);
  $("narration").textContent = ev.text;
  showExplanation(ev);
  showNotes(ev);
  showBoard(st);
  showPending(st);
  showSummary(st);
  moveCursor();
  liveStatus();
}

function showExplanation(ev) {
  const text = explanationText(ev, S, D.audience === "gm" && D.commands), button = $("explain"), box = $("explanation");
  button.disabled = !text;
  box.textContent = text || "nothing to explain for this event";
  box.hidden = button.getAttribute("aria-expanded") !== "true";
}

function showNotes(ev) {
  const box = clear($("notes"));
  (D.notes[String(ev.id)] || []).forEach((n) => {
    box.appendChild(el("p", "note", (n[2] ? "Private note #" : "Note #") + n[0] + ": " + n[1]));
  });
}

function showBoard(st) {
  const list = clear($("board"));
  st.o.forEach((key) => {
    const c = row(st, key), li = el("li", [c.s, c.st, c.a ? "acting" : ""].join(" "));
    if (c.a) li.appendChild(el("span", "mark", "▶ acts now: "));
    li.appendChild(el("span", "name", c.n));
    li.appendChild(el("span", "status", c.st));
    if (c.h) li.appendChild(el("span", "hidden-mark", "hidden from the players"));
    li.appendChild(el("div", "side muted", c.s));
    li.appendChild(el("div", "vital", c.vn + ": " + figure(c.v, c.vm)));
    // A second gauge where the rules keep one (crisis's Endurance): shown beside the vital.
    if ("v2n" in c) li.appendChild(el("div", "vital", c.v2n + ": " + figure(c.v2, c.v2m)));
    if (c.bl !== null && c.bl !== undefined) li.appendChild(el("div", "budget", c.bn + ": " + figure(c.bl, c.bo)));
    li.appendChild(el("div", "effects", (c.e && c.e.length) ? c.e.join("; ") : "no effects"));
    if (c.nt && c.nt.length) li.appendChild(el("div", "noted", "notes: " + c.nt.join("; ")));
    const own = [];
    D.figures.forEach((name, i) => { if (("o" + i) in c) own.push(name + " " + c["o" + i]); });
    if (own.length) {
      const det = el("details", "own"), sum = el("summary", null, "more");
      det.appendChild(sum);
      det.appendChild(el("div", null, own.join(", ")));
      li.appendChild(det);
    }
    list.appendChild(li);
  });
  if (!st.o.length) list.appendChild(el("li", null, "no combatants yet"));
}

function showPending(st) {
  const list = clear($("pending"));
  st.p.forEach((p) => {
    list.appendChild(el("li", null, pendingText(p)));
  });
  if (!st.p.length) list.appendChild(el("li", "muted", "none"));
}

function showSummary(st) {
  const body = clear($("summary"));
  st.o.forEach((key) => {
    const c = row(st, key), tr = el("tr");
    tr.appendChild(el("td", null, c.n));
    tr.appendChild(el("td", null, c.s));
    tr.appendChild(el("td", null, figure(st.start[key], null) + " → " + figure(c.v, null) +
                      ("v2n" in c ? "; " + c.v2n + " " + st.start2[key] + " → " + c.v2 : "")));
    // The players' version: a foe's damage is its band, and so is what the party dealt it.
    const banded = typeof c.v === "string", party = D.audience === "players" && !banded;
    tr.appendChild(el("td", "num", party ? "-" : (st.dealt[key] || 0) + (st.dealt["@" + c.n] || 0)));
    tr.appendChild(el("td", "num", banded ? c.v : (st.taken[key] || 0) + (st.taken["@" + c.n] || 0)));
    body.appendChild(tr);
  });
}

// --- the vital chart: each combatant's figure along the branch, damage marked ---------------
const chart = { w: 800, h: 220, left: 44, top: 10, bottom: 26 };

// Each combatant's figure along the branch, a point per horizontal pixel at most, and the
// damage done: gathered during the branch's one fold.
function chartPoints() {
  const box = $("chart");
  // As wide as its box (its text stays legible on a phone), within reason.
  chart.w = Math.max(300, Math.min(1400, box.clientWidth || 800));
  const out = { series: {}, marks: [], low: 0, high: 1, buckets: Math.min(path.length, chart.w - chart.left - 10) };
  out.add = (st, ev, i) => {
    let b = Math.floor(i * out.buckets / path.length), keys = ev.d.c ? Object.keys(ev.d.c) : [];
    if (i === 0 || ev.d.o) keys = Object.keys(st.c);
    keys.forEach((key) => {
      const v = st.c[key].v;
      if (typeof v !== "number") return; // a band, in the players' version
      const s = out.series[key] || (out.series[key] = { name: st.c[key].n, points: [] });
      const last = s.points[s.points.length - 1];
      if (last && last[0] === b) last[1] = v; else s.points.push([b, v]);
      out.low = Math.min(out.low, v); out.high = Math.max(out.high, v);
    });
    if (ev.h && !ev.h[3] && out.series[ev.h[0]]) out.marks.push([b, ev.h[0], ev.h[1], ev.id]);
  };
  return out;
}

function drawChart(points) {
  const box = clear($("chart")), legend = clear($("legend"));
  const series = points.series, marks = points.marks, low = points.low, high = points.high, buckets = points.buckets;
  Object.keys(series).forEach((key) => { // flat to the end of the branch after its last change
    const p = series[key].points, last = p[p.length - 1];
    if (last[0] < buckets - 1) p.push([buckets - 1, last[1]]);
  });
  function valueAt(s, b) {
    let found = s.points[0];
    for (let i = 0; i < s.points.length && s.points[i][0] <= b; i++) found = s.points[i];
    return found[1];
  }
  const plotW = chart.w - chart.left - 10, plotH = chart.h - chart.top - chart.bottom;
  function x(b) { return chart.left + (buckets > 1 ? plotW * b / (buckets - 1) : plotW / 2); }
  function y(v) { return chart.top + plotH - (v - low) / ((high - low) || 1) * plotH; }
  const root = svg("svg", { viewBox: "0 0 " + chart.w + " " + chart.h, role: "img", "aria-labelledby": "chart-title" });
  const title = svg("title", { id: "chart-title" });
  title.textContent = "Vital figure of each combatant along branch " + branch.name + "; dots mark damage taken";
  root.appendChild(title);
  root.appendChild(svg("rect", { x: chart.left, y: chart.top, width: plotW, height: plotH, fill: "#fafafa", stroke: "#ccc" }));
  [low, 0, high].filter((v, i, all) => all.indexOf(v) === i).forEach((v) => {
    const t = svg("text", { x: chart.left - 4, y: y(v) + 4, "text-anchor": "end" });
    t.textContent = String(v);
    root.appendChild(t);
    if (v === 0 && low < 0) root.appendChild(svg("line", { x1: chart.left, x2: chart.left + plotW, y1: y(0), y2: y(0), stroke: "#999", "stroke-dasharray": "4 3" }));
  });
  let keys = Object.keys(series);
  keys.forEach((key, k) => {
    const colour = PALETTE[k % PALETTE.length], s = series[key];
    const line = svg("polyline", { "class": "series", fill: "none", stroke: colour, "stroke-width": 2,
      points: s.points.map((p) => x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1)).join(" ") });
    const t = svg("title", {}); t.textContent = s.name; line.appendChild(t);
    root.appendChild(line);
    const item = el("li"), swatch = el("i"); swatch.style.background = colour;
    item.appendChild(swatch); item.appendChild(document.createTextNode(s.name));
    legend.appendChild(item);
    s.colour = colour;
  });
  const seen = {};
  marks.forEach((m) => {
    const s = series[m[1]], key = m[0] + ":" + m[1];
    if (seen[key]) { seen[key].amount += m[2]; seen[key].title.textContent = s.name + " takes " + seen[key].amount + " " + D.unit + " (to #" + m[3] + ")"; return; }
    const dot = svg("circle", { "class": "damage", cx: x(m[0]).toFixed(1), cy: y(valueAt(s, m[0])).toFixed(1), r: 4, fill: "#fff", stroke: s.colour, "stroke-width": 2 });
    const t = svg("title", {}); t.textContent = s.name + " takes " + m[2] + " " + D.unit + " (#" + m[3] + ")";
    dot.appendChild(t);
    root.appendChild(dot);
    seen[key] = { amount: m[2], title: t };
  });
  const axis = svg("text", { x: chart.left + plotW / 2, y: chart.h - 6, "text-anchor": "middle" });
  axis.textContent = "events of branch " + branch.name + " (" + path.length + ")";
  root.appendChild(axis);
  root.appendChild(svg("line", { id: "cursor", x1: 0, x2: 0, y1: chart.top, y2: chart.top + plotH, stroke: "#1f5fbf", "stroke-width": 2 }));
  chart.x = x; chart.buckets = buckets;
  box.appendChild(root);
}

function moveCursor() {
  const cursor = $("cursor");
  if (!cursor) return;
  const pos = chart.x(Math.floor(at * chart.buckets / path.length)).toFixed(1);
  cursor.setAttribute("x1", pos); cursor.setAttribute("x2", pos);
}

// --- branches: the picker, and where others split from this one -------------------------------
function drawBranches() {
  const pick = clear($("branch"));
  D.branches.forEach((b) => {
    const label = b.name + (b.name === D.current ? " (current)" : "") + (b.split !== null ? ", splits from " + b.from + " after #" + b.split : "");
    const opt = el("option", null, label);
    opt.value = b.name;
    pick.appendChild(opt);
  });
  pick.value = branch ? branch.name : D.current;
}

function drawForks() {
  const strip = clear($("forks")), list = clear($("splits"));
  const index = new Map(path.map((ev, i) => [ev.id, i]));
  D.branches.forEach((b) => {
    if (b.name === branch.name || b.split === null || !index.has(b.split)) return;
    let i = index.get(b.split), tick = el("span");
    tick.style.left = (path.length > 1 ? 100 * i / (path.length - 1) : 0) + "%";
    tick.title = b.name + " splits after #" + b.split;
    strip.appendChild(tick);
    const li = el("li"), go = el("button", null, "Switch to " + b.name);
    go.type = "button";
    go.addEventListener("click", () => { choose(b.name, b.split); });
    li.appendChild(document.createTextNode(b.name + " splits after #" + b.split + " "));
    li.appendChild(go);
    list.appendChild(li);
  });
  if (branch.split !== null) {
    const li = el("li"), back = el("button", null, "Back to " + branch.from);
    back.type = "button";
    back.addEventListener("click", () => { choose(branch.from, branch.split); });
    li.appendChild(document.createTextNode("this branch splits from " + branch.from + " after #" + branch.split + " "));
    li.appendChild(back);
    list.appendChild(li);
  }
  if (!list.firstChild) list.appendChild(el("li", "muted", "no other branch splits from this one"));
}

function choose(name, eventId) {
  select(name);
  $("branch").value = branch.name;
  let i = path.findIndex((ev) => ev.id === eventId);
  show(i >= 0 ? i : path.length - 1);
}

// --- playing ---------------------------------------------------------------------------------
function play(on) {
  if (!path) return;
  if (timer) { clearInterval(timer); timer = null; }
  if (on) {
    if (at >= path.length - 1) show(0);
    timer = setInterval(() => { if (at >= path.length - 1) play(false); else show(at + 1); }, Number($("speed").value));
  }
  const button = $("play");
  button.textContent = timer ? "⏸ Pause" : "▶ Play";
  button.setAttribute("aria-pressed", timer ? "true" : "false");
}

function header() {
  document.title = D.encounter + ": replay";
  $("title").textContent = D.encounter;
  let keys = Object.keys(D.options);
  // A long list (srd-5.2's 21) would fill a phone's first screen: its count here, the
  // settings in the first event's line.
  const opts = keys.length > 6 ? keys.length + " options, set as the first event says" :
    keys.map((k) => k + "=" + D.options[k]).join(", ") || "no options";
  $("ruleset").textContent = D.ruleset + " (" + D.rules_file + "; " + opts + ")" +
    (D.audience === "players" ? "; players' version" : "; GM's version");
  const secret = clear($("secret"));
  if (D.audience === "gm") {
    secret.appendChild(el("span", null, (typeof D.seed === "string" ? "dice key " : "dice seed ") + D.seed +
      "; verify digest " + D.digest));
  } else {
    secret.appendChild(el("span", null, "Foes' " + "figures are shown as bands: " + D.bands.words + "."));
  }
  $("summarised").hidden = !D.summarised;
  if (D.summarised) $("summarised").textContent = "Long fight: the events before #" + D.summarised.before +
    " are folded into the board the replay starts from (the jsonl export holds them all).";
  $("unit").textContent = D.unit ? "(" + D.unit + ")" : "";
}

function start(data, position) {
  load(data);
  redraw(position);
}

function redraw(position, live) {
  const keep = branch ? branch.name : null;
  header();
  // The players' version holds the current branch alone: no picker, no list of others.
  $("branches").hidden = $("branch-pick").hidden = D.audience === "players";
  const name = keep && D.branches.some((b) => b.name === keep) ? keep : D.current;
  if (!live || !extend(name)) select(name);
  drawBranches();
  show(position === null ? path.length - 1 : position);
}

function wire() {
  $("scrub").addEventListener("input", (e) => show(Number(e.target.value)));
  $("back").addEventListener("click", () => { show(at - 1); });
  $("forward").addEventListener("click", () => { show(at + 1); });
  $("first").addEventListener("click", () => { show(0); });
  $("last").addEventListener("click", () => { show(path.length - 1); });
  $("play").addEventListener("click", () => { play(!timer); });
  $("speed").addEventListener("change", () => { if (timer) play(true); });
  $("branch").addEventListener("change", (e) => { play(false); select(e.target.value); show(path.length - 1); });
  $("explain").addEventListener("click", (e) => {
    const open = e.currentTarget.getAttribute("aria-expanded") !== "true";
    e.currentTarget.setAttribute("aria-expanded", open ? "true" : "false");
    $("explanation").hidden = !open;
  });
  document.addEventListener("keydown", (e) => {
    const tag = e.target && e.target.tagName;
    if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && e.target.type !== "range") || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === " " && tag !== "BUTTON") { e.preventDefault(); play(!timer); }
    else if (tag !== "INPUT" && (e.key === "ArrowLeft" || e.key === "j")) { e.preventDefault(); show(at - 1); }
    else if (tag !== "INPUT" && (e.key === "ArrowRight" || e.key === "l")) { e.preventDefault(); show(at + 1); }
    else if (tag !== "INPUT" && e.key === "Home") { e.preventDefault(); show(0); }
    else if (tag !== "INPUT" && e.key === "End") { e.preventDefault(); show(path.length - 1); }
  });
}

// What a served page says of its link to the table: following the head only while it
// shows the head; scrubbed back, where it is and how to follow again.
let connection = ""; // "open" or "reconnecting" once the live link was tried
function liveStatus() {
  if (!connection || !path) return;
  $("live").textContent = connection === "reconnecting" ? "live: reconnecting…" :
    at >= path.length - 1 ? "live: following the branch head" :
    "live: showing #" + path[at].id + ", back from the head (Last » follows it again)";
}

function live() {
  if (!window.EventSource || !D.live) return;
  const source = new EventSource(D.live);
  source.addEventListener("state", (e) => {
    start(JSON.parse(e.data), at >= path.length - 1 ? null : at);
    connection = "open";
    liveStatus();
  });
  // A change (cli/live.py): the new events, as steps from the last one the page holds,
  // the strings they add, and whatever else moved (the branches and their heads: the
  // GM's undo, redo, switch); folded into the data. The players' undo to a head the page
  // held: how many events it keeps, and what else moved.
  source.addEventListener("more", (e) => {
    const change = JSON.parse(e.data), whole = "back" in change;
    if (whole) D.events = D.events.slice(0, change.back); // an undo: the events after dropped, read again
    // Added in place (a long fight's page holds 100,000 of them): only the new ones are read.
    (change.strings || []).forEach((text) => { D.strings.push(text); });
    (change.events || []).forEach((entry) => { D.events.push(entry); });
    // The GM's version: the new events' commands added; the current branch, the summary
    // and the verify digest as they stand now.
    if (change.commands) D.commands = Object.assign({}, D.commands, change.commands);
    ["branches", "figures", "unit", "notes", "ended", "bands", "current", "summarised", "digest"].forEach((key) => {
      if (key in change) D[key] = change[key];
    });
    if (whole) load(D); else read(change.events || []);
    redraw(at >= path.length - 1 ? null : at, !whole);
    connection = "open";
    liveStatus();
  });
  source.onerror = () => { connection = "reconnecting"; liveStatus(); };
  source.onopen = () => { connection = "open"; liveStatus(); };
}

// The table's TV (page.css): `#tv` or `?tv` in the address hides the replay controls.
function tvSwitch() {
  const on = location.hash === "#tv" || new URLSearchParams(location.search).has("tv");
  document.documentElement.classList.toggle("tv", on);
}

// --- the board first (a served page: cli/live.py's head) ------------------------------------
// The board at the head as the server holds it (the view the events' deltas fold to), drawn
// before any event is read; the history (the whole data: every event of the branch) is
// fetched after it, and the replay, the chart, the damage table and Explain wait for it.
const REPLAY = ["scrub", "first", "back", "play", "forward", "last", "speed", "explain"];

function boardFirst(data) {
  D = data; S = D.strings;
  const h = D.head, b = h.board || {};
  header();
  $("branches").hidden = $("branch-pick").hidden = D.audience === "players";
  const st = { k: b.k || {}, o: b.o || [], c: b.c || {}, p: b.p || [], w: b.w || {},
               dealt: {}, taken: {}, start: {}, start2: {} };
  REPLAY.forEach((id) => { $(id).disabled = true; });
  const range = $("scrub");
  range.max = range.value = String(Math.max(0, h.count - 1));
  $("position").textContent = h.count ? "#" + h.id + " (" + h.count + " of " + h.count + ")" : "";
  $("clock").textContent = clockText(st.k, h.ended);
  $("acts").textContent = actsText(st.k);
  $("narration").textContent = h.narration;
  $("explanation").hidden = true;
  showNotes({ id: h.id });
  showBoard(st);
  showPending(st);
  const body = clear($("summary")), tr = el("tr"), td = el("td", "muted", "the fight's history is loading…");
  td.colSpan = 5;
  tr.appendChild(td);
  body.appendChild(tr);
  $("live").textContent = "live: loading the fight's history…";
}

function history(address, tries) {
  fetch(address, { headers: { Accept: "application/json" } }).then((answer) => {
    if (!answer.ok) throw new Error("HTTP " + answer.status);
    return answer.json();
  }).then((whole) => {
    REPLAY.forEach((id) => { $(id).disabled = false; });
    start(whole, null);
    live();
  }).catch(() => {
    $("live").textContent = "live: the fight's history did not load; trying again…";
    setTimeout(() => history(address, tries + 1), Math.min(10000, 1000 * (tries + 1)));
  });
}

tvSwitch();
window.addEventListener("hashchange", tvSwitch);
wire();
const first = JSON.parse($("replay-data").textContent);
if (first.head) {
  boardFirst(first);
  // After the board is on the screen: the history's reading and fold never hold it back.
  requestAnimationFrame(() => setTimeout(() => history(first.history, 0), 0));
} else {
  start(first, first.live ? null : 0); // a live page follows the head; a file starts at the start
  live();
}
