// The replay page: folds the view deltas of projections/replay.py back into the board at
// any moment of any branch. Every text the log holds is set with textContent, never as HTML.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var KEYFRAME = 256; // a full board kept every so many events: scrubbing folds at most this many
  var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];
  var D, S, byId, path, frames, endedAt = -1, at = 0, branch = null, timer = null;

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }
  function svg(tag, attrs) {
    var n = document.createElementNS(SVG, tag);
    for (var k in attrs) n.setAttribute(k, attrs[k]);
    return n;
  }
  function clear(n) { while (n.firstChild) n.removeChild(n.firstChild); return n; }

  var lastId = 0, lastCmd = 0; // the last entry read: a change's entries are steps from it

  function load(data) {
    D = data; S = D.strings; byId = new Map();
    lastId = lastCmd = 0;
    read(D.events);
  }

  function read(events) {
    events.forEach(function (e) {
      lastId += e[0];
      if (D.audience === "gm") lastCmd += e[2];
      var id = lastId;
      byId.set(id, { id: id, parent: e[1] === null ? null : id - e[1], cmd: lastCmd, text: S[e[3]], d: e[4],
                     x: e[5], h: e[6] ? [String(e[6][0]), e[6][1], e[6][2] == null ? null : String(e[6][2]), e[6][3] || 0] : null });
    });
  }

  function branchNamed(name) {
    return D.branches.find(function (b) { return b.name === name; }) || D.branches[0];
  }

  function walk(head) {
    var out = [], ev = byId.get(head);
    while (ev) { out.push(ev); ev = ev.parent === null ? null : byId.get(ev.parent); }
    return out.reverse();
  }

  function empty(first) {
    var base = D.summarised && first ? D.summarised.bases[String(first.id)] : null;
    return { k: {}, o: [], c: {}, p: [], w: {}, dealt: Object.assign({}, base ? keyed(base.dealt) : {}),
             taken: Object.assign({}, base ? keyed(base.taken) : {}), start: {}, start2: {} };
  }
  // The summarised totals are by name; the board's combatants by key.
  function keyed(byName) { var out = {}; for (var n in byName) out["@" + n] = byName[n]; return out; }

  function apply(st, ev) {
    var d = ev.d;
    if (d.k) Object.assign(st.k, d.k);
    if (d.w) Object.assign(st.w, d.w);
    if (d.o) st.o = d.o;
    if (d.p) st.p = d.p;
    if (d.c) for (var key in d.c) {
      st.c[key] = Object.assign({}, st.c[key], d.c[key]);
      if (!(key in st.start)) st.start[key] = st.c[key].v;
      if (!(key in st.start2) && "v2" in st.c[key]) st.start2[key] = st.c[key].v2;
    }
    if (ev.h && !ev.h[3]) {
      st.taken[ev.h[0]] = (st.taken[ev.h[0]] || 0) + ev.h[1];
      if (ev.h[2] !== null) st.dealt[ev.h[2]] = (st.dealt[ev.h[2]] || 0) + ev.h[1];
    }
  }
  function clone(st) { return JSON.parse(JSON.stringify(st)); }

  var tip = null, chartTimer = null; // the board after the path's last event; a chart to draw again

  function select(name) {
    branch = branchNamed(name);
    path = walk(branch.head);
    frames = [];
    endedAt = path.findIndex(function (ev) { return D.ended && String(ev.id) in D.ended; });
    var st = empty(path[0]), points = chartPoints();
    for (var i = 0; i < path.length; i++) {
      apply(st, path[i]);
      points.add(st, path[i], i);
      if (i % KEYFRAME === 0) frames.push(clone(st));
    }
    tip = st;
    var range = $("scrub");
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
    var b = branchNamed(name), end = path[path.length - 1].id, added = [], ev = byId.get(b.head);
    while (ev && ev.id > end) { added.push(ev); ev = ev.parent === null ? null : byId.get(ev.parent); }
    if (!ev || ev.id !== end) return false;
    branch = b;
    for (var i = added.length - 1; i >= 0; i--) {
      path.push(added[i]);
      apply(tip, added[i]);
      var n = path.length - 1;
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
    chartTimer = setTimeout(function () {
      chartTimer = null;
      var st = empty(path[0]), points = chartPoints();
      for (var i = 0; i < path.length; i++) { apply(st, path[i]); points.add(st, path[i], i); }
      drawChart(points);
      moveCursor();
    }, 50);
  }

  function stateAt(i) {
    var k = Math.floor(i / KEYFRAME), st = clone(frames[k]);
    for (var j = k * KEYFRAME + 1; j <= i; j++) apply(st, path[j]);
    return st;
  }

  function row(st, key) { return st.c[key] || {}; }
  function byName(st, name) {
    for (var key in st.c) if (st.c[key].n === name) return key;
    return "@" + name;
  }
  function figure(v, m) { return m === null || m === undefined ? String(v) : v + "/" + m; }

  function show(i) {
    at = Math.max(0, Math.min(i, path.length - 1));
    var ev = path[at], st = stateAt(at);
    $("scrub").value = String(at);
    $("scrub").setAttribute("aria-valuetext", "event #" + ev.id + ", " + (at + 1) + " of " + path.length);
    $("position").textContent = "#" + ev.id + " (" + (at + 1) + " of " + path.length + ")";
    var ended = endedAt >= 0 && at >= endedAt ? D.ended[String(path[endedAt].id)] : null;
    $("clock").textContent = (ended !== null ? "ENDED" + (ended ? " (" + ended + ")" : "") + "; " : "") + (st.k.l || "");
    $("acts").textContent = "now: " + ((st.k.now || []).join(", ") || "-") + "; next: " +
      ((st.k.next || []).join(", ") || st.k.end || "-");
    $("narration").textContent = ev.text;
    showExplanation(ev);
    showNotes(ev);
    showBoard(st);
    showPending(st);
    showSummary(st);
    moveCursor();
    liveStatus();
  }

  function explanationText(ev) {
    if (!ev.x) return "";
    var lines = ev.x.map(function (part) {
      if (typeof part === "number") return S[part];
      return "as recorded: " + part.slice(1).map(function (i) { return S[i]; }).join(", ") + S[part[0]];
    });
    if (D.audience === "gm" && D.commands) lines.unshift("command: " + (D.commands[String(ev.cmd)] || "?"));
    return lines.join("\n");
  }

  function showExplanation(ev) {
    var text = explanationText(ev), button = $("explain"), box = $("explanation");
    button.disabled = !text;
    box.textContent = text || "nothing to explain for this event";
    box.hidden = button.getAttribute("aria-expanded") !== "true";
  }

  function showNotes(ev) {
    var box = clear($("notes"));
    (D.notes[String(ev.id)] || []).forEach(function (n) {
      box.appendChild(el("p", "note", (n[2] ? "Private note #" : "Note #") + n[0] + ": " + n[1]));
    });
  }

  function showBoard(st) {
    var list = clear($("board"));
    st.o.forEach(function (key) {
      var c = row(st, key), li = el("li", [c.s, c.st, c.a ? "acting" : ""].join(" "));
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
      var own = [];
      D.figures.forEach(function (name, i) { if (("o" + i) in c) own.push(name + " " + c["o" + i]); });
      if (own.length) {
        var det = el("details", "own"), sum = el("summary", null, "more");
        det.appendChild(sum);
        det.appendChild(el("div", null, own.join(", ")));
        li.appendChild(det);
      }
      list.appendChild(li);
    });
    if (!st.o.length) list.appendChild(el("li", null, "no combatants yet"));
  }

  function showPending(st) {
    var list = clear($("pending"));
    st.p.forEach(function (p) {
      list.appendChild(el("li", null, p[0] + ": " + p[1] + (p[2] ? " on " + p[2] : "") + (p[3] ? " (" + p[3] + ")" : "")));
    });
    if (!st.p.length) list.appendChild(el("li", "muted", "none"));
  }

  function showSummary(st) {
    var body = clear($("summary"));
    st.o.forEach(function (key) {
      var c = row(st, key), tr = el("tr");
      tr.appendChild(el("td", null, c.n));
      tr.appendChild(el("td", null, c.s));
      tr.appendChild(el("td", null, figure(st.start[key], null) + " → " + figure(c.v, null) +
                        ("v2n" in c ? "; " + c.v2n + " " + st.start2[key] + " → " + c.v2 : "")));
      // The players' version: a foe's damage is its band, and so is what the party dealt it.
      var banded = typeof c.v === "string", party = D.audience === "players" && !banded;
      tr.appendChild(el("td", "num", party ? "-" : (st.dealt[key] || 0) + (st.dealt["@" + c.n] || 0)));
      tr.appendChild(el("td", "num", banded ? c.v : (st.taken[key] || 0) + (st.taken["@" + c.n] || 0)));
      body.appendChild(tr);
    });
  }

  // --- the vital chart: each combatant's figure along the branch, damage marked ---------------
  var chart = { w: 800, h: 220, left: 44, top: 10, bottom: 26 };

  // Each combatant's figure along the branch, a point per horizontal pixel at most, and the
  // damage done: gathered during the branch's one fold.
  function chartPoints() {
    var box = $("chart");
    // As wide as its box (its text stays legible on a phone), within reason.
    chart.w = Math.max(300, Math.min(1400, box.clientWidth || 800));
    var out = { series: {}, marks: [], low: 0, high: 1, buckets: Math.min(path.length, chart.w - chart.left - 10) };
    out.add = function (st, ev, i) {
      var b = Math.floor(i * out.buckets / path.length), keys = ev.d.c ? Object.keys(ev.d.c) : [];
      if (i === 0 || ev.d.o) keys = Object.keys(st.c);
      keys.forEach(function (key) {
        var v = st.c[key].v;
        if (typeof v !== "number") return; // a band, in the players' version
        var s = out.series[key] || (out.series[key] = { name: st.c[key].n, points: [] });
        var last = s.points[s.points.length - 1];
        if (last && last[0] === b) last[1] = v; else s.points.push([b, v]);
        out.low = Math.min(out.low, v); out.high = Math.max(out.high, v);
      });
      if (ev.h && !ev.h[3] && out.series[ev.h[0]]) out.marks.push([b, ev.h[0], ev.h[1], ev.id]);
    };
    return out;
  }

  function drawChart(points) {
    var box = clear($("chart")), legend = clear($("legend"));
    var series = points.series, marks = points.marks, low = points.low, high = points.high, buckets = points.buckets;
    Object.keys(series).forEach(function (key) { // flat to the end of the branch after its last change
      var p = series[key].points, last = p[p.length - 1];
      if (last[0] < buckets - 1) p.push([buckets - 1, last[1]]);
    });
    function valueAt(s, b) {
      var found = s.points[0];
      for (var i = 0; i < s.points.length && s.points[i][0] <= b; i++) found = s.points[i];
      return found[1];
    }
    var plotW = chart.w - chart.left - 10, plotH = chart.h - chart.top - chart.bottom;
    function x(b) { return chart.left + (buckets > 1 ? plotW * b / (buckets - 1) : plotW / 2); }
    function y(v) { return chart.top + plotH - (v - low) / ((high - low) || 1) * plotH; }
    var root = svg("svg", { viewBox: "0 0 " + chart.w + " " + chart.h, role: "img", "aria-labelledby": "chart-title" });
    var title = svg("title", { id: "chart-title" });
    title.textContent = "Vital figure of each combatant along branch " + branch.name + "; dots mark damage taken";
    root.appendChild(title);
    root.appendChild(svg("rect", { x: chart.left, y: chart.top, width: plotW, height: plotH, fill: "#fafafa", stroke: "#ccc" }));
    [low, 0, high].filter(function (v, i, all) { return all.indexOf(v) === i; }).forEach(function (v) {
      var t = svg("text", { x: chart.left - 4, y: y(v) + 4, "text-anchor": "end" });
      t.textContent = String(v);
      root.appendChild(t);
      if (v === 0 && low < 0) root.appendChild(svg("line", { x1: chart.left, x2: chart.left + plotW, y1: y(0), y2: y(0), stroke: "#999", "stroke-dasharray": "4 3" }));
    });
    var keys = Object.keys(series);
    keys.forEach(function (key, k) {
      var colour = PALETTE[k % PALETTE.length], s = series[key];
      var line = svg("polyline", { "class": "series", fill: "none", stroke: colour, "stroke-width": 2,
        points: s.points.map(function (p) { return x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1); }).join(" ") });
      var t = svg("title", {}); t.textContent = s.name; line.appendChild(t);
      root.appendChild(line);
      var item = el("li"), swatch = el("i"); swatch.style.background = colour;
      item.appendChild(swatch); item.appendChild(document.createTextNode(s.name));
      legend.appendChild(item);
      s.colour = colour;
    });
    var seen = {};
    marks.forEach(function (m) {
      var s = series[m[1]], key = m[0] + ":" + m[1];
      if (seen[key]) { seen[key].amount += m[2]; seen[key].title.textContent = s.name + " takes " + seen[key].amount + " " + D.unit + " (to #" + m[3] + ")"; return; }
      var dot = svg("circle", { "class": "damage", cx: x(m[0]).toFixed(1), cy: y(valueAt(s, m[0])).toFixed(1), r: 4, fill: "#fff", stroke: s.colour, "stroke-width": 2 });
      var t = svg("title", {}); t.textContent = s.name + " takes " + m[2] + " " + D.unit + " (#" + m[3] + ")";
      dot.appendChild(t);
      root.appendChild(dot);
      seen[key] = { amount: m[2], title: t };
    });
    var axis = svg("text", { x: chart.left + plotW / 2, y: chart.h - 6, "text-anchor": "middle" });
    axis.textContent = "events of branch " + branch.name + " (" + path.length + ")";
    root.appendChild(axis);
    root.appendChild(svg("line", { id: "cursor", x1: 0, x2: 0, y1: chart.top, y2: chart.top + plotH, stroke: "#1f5fbf", "stroke-width": 2 }));
    chart.x = x; chart.buckets = buckets;
    box.appendChild(root);
  }

  function moveCursor() {
    var cursor = $("cursor");
    if (!cursor) return;
    var pos = chart.x(Math.floor(at * chart.buckets / path.length)).toFixed(1);
    cursor.setAttribute("x1", pos); cursor.setAttribute("x2", pos);
  }

  // --- branches: the picker, and where others split from this one -------------------------------
  function drawBranches() {
    var pick = clear($("branch"));
    D.branches.forEach(function (b) {
      var label = b.name + (b.name === D.current ? " (current)" : "") + (b.split !== null ? ", splits from " + b.from + " after #" + b.split : "");
      var opt = el("option", null, label);
      opt.value = b.name;
      pick.appendChild(opt);
    });
    pick.value = branch ? branch.name : D.current;
  }

  function drawForks() {
    var strip = clear($("forks")), list = clear($("splits"));
    var index = new Map(path.map(function (ev, i) { return [ev.id, i]; }));
    D.branches.forEach(function (b) {
      if (b.name === branch.name || b.split === null || !index.has(b.split)) return;
      var i = index.get(b.split), tick = el("span");
      tick.style.left = (path.length > 1 ? 100 * i / (path.length - 1) : 0) + "%";
      tick.title = b.name + " splits after #" + b.split;
      strip.appendChild(tick);
      var li = el("li"), go = el("button", null, "Switch to " + b.name);
      go.type = "button";
      go.addEventListener("click", function () { choose(b.name, b.split); });
      li.appendChild(document.createTextNode(b.name + " splits after #" + b.split + " "));
      li.appendChild(go);
      list.appendChild(li);
    });
    if (branch.split !== null) {
      var li = el("li"), back = el("button", null, "Back to " + branch.from);
      back.type = "button";
      back.addEventListener("click", function () { choose(branch.from, branch.split); });
      li.appendChild(document.createTextNode("this branch splits from " + branch.from + " after #" + branch.split + " "));
      li.appendChild(back);
      list.appendChild(li);
    }
    if (!list.firstChild) list.appendChild(el("li", "muted", "no other branch splits from this one"));
  }

  function choose(name, eventId) {
    select(name);
    $("branch").value = branch.name;
    var i = path.findIndex(function (ev) { return ev.id === eventId; });
    show(i >= 0 ? i : path.length - 1);
  }

  // --- playing ---------------------------------------------------------------------------------
  function play(on) {
    if (timer) { clearInterval(timer); timer = null; }
    if (on) {
      if (at >= path.length - 1) show(0);
      timer = setInterval(function () { if (at >= path.length - 1) play(false); else show(at + 1); }, Number($("speed").value));
    }
    var button = $("play");
    button.textContent = timer ? "⏸ Pause" : "▶ Play";
    button.setAttribute("aria-pressed", timer ? "true" : "false");
  }

  function header() {
    document.title = D.encounter + ": replay";
    $("title").textContent = D.encounter;
    var keys = Object.keys(D.options);
    // A long list (srd-5.2's 21) would fill a phone's first screen: its count here, the
    // settings in the first event's line.
    var opts = keys.length > 6 ? keys.length + " options, set as the first event says" :
      keys.map(function (k) { return k + "=" + D.options[k]; }).join(", ") || "no options";
    $("ruleset").textContent = D.ruleset + " (" + D.rules_file + "; " + opts + ")" +
      (D.audience === "players" ? "; players' version" : "; GM's version");
    var secret = clear($("secret"));
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
    var keep = branch ? branch.name : null;
    header();
    // The players' version holds the current branch alone: no picker, no list of others.
    $("branches").hidden = $("branch-pick").hidden = D.audience === "players";
    var name = keep && D.branches.some(function (b) { return b.name === keep; }) ? keep : D.current;
    if (!live || !extend(name)) select(name);
    drawBranches();
    show(position === null ? path.length - 1 : position);
  }

  function wire() {
    $("scrub").addEventListener("input", function () { show(Number(this.value)); });
    $("back").addEventListener("click", function () { show(at - 1); });
    $("forward").addEventListener("click", function () { show(at + 1); });
    $("first").addEventListener("click", function () { show(0); });
    $("last").addEventListener("click", function () { show(path.length - 1); });
    $("play").addEventListener("click", function () { play(!timer); });
    $("speed").addEventListener("change", function () { if (timer) play(true); });
    $("branch").addEventListener("change", function () { play(false); select(this.value); show(path.length - 1); });
    $("explain").addEventListener("click", function () {
      var open = this.getAttribute("aria-expanded") !== "true";
      this.setAttribute("aria-expanded", open ? "true" : "false");
      $("explanation").hidden = !open;
    });
    document.addEventListener("keydown", function (e) {
      var tag = e.target && e.target.tagName;
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
  var connection = ""; // "open" or "reconnecting" once the live link was tried
  function liveStatus() {
    if (!connection) return;
    $("live").textContent = connection === "reconnecting" ? "live: reconnecting…" :
      at >= path.length - 1 ? "live: following the branch head" :
      "live: showing #" + path[at].id + ", back from the head (Last » follows it again)";
  }

  function live() {
    if (!window.EventSource || !D.live) return;
    var source = new EventSource(D.live);
    source.addEventListener("state", function (e) {
      start(JSON.parse(e.data), at >= path.length - 1 ? null : at);
      connection = "open";
      liveStatus();
    });
    // A change (cli/live.py): the new events, as steps from the last one the page holds,
    // the strings they add, and whatever else moved (the branches and their heads: the
    // GM's undo, redo, switch); folded into the data. The players' undo to a head the page
    // held: how many events it keeps, and what else moved.
    source.addEventListener("more", function (e) {
      var change = JSON.parse(e.data), whole = "back" in change;
      if (whole) D.events = D.events.slice(0, change.back); // an undo: the events after dropped, read again
      // Added in place (a long fight's page holds 100,000 of them): only the new ones are read.
      (change.strings || []).forEach(function (text) { D.strings.push(text); });
      (change.events || []).forEach(function (entry) { D.events.push(entry); });
      // The GM's version: the new events' commands added; the current branch, the summary
      // and the verify digest as they stand now.
      if (change.commands) D.commands = Object.assign({}, D.commands, change.commands);
      ["branches", "figures", "unit", "notes", "ended", "bands", "current", "summarised", "digest"].forEach(function (key) {
        if (key in change) D[key] = change[key];
      });
      if (whole) load(D); else read(change.events || []);
      redraw(at >= path.length - 1 ? null : at, !whole);
      connection = "open";
      liveStatus();
    });
    source.onerror = function () { connection = "reconnecting"; liveStatus(); };
    source.onopen = function () { connection = "open"; liveStatus(); };
  }

  wire();
  var first = JSON.parse($("replay-data").textContent);
  start(first, first.live ? null : 0); // a live page follows the head; a file starts at the start
  live();
})();
