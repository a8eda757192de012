// What the pages work out with no DOM: the fold of the replay page's view deltas back into
// the board at any moment of any branch, and the words both pages show (a figure, the dice
// faces typed). The wire it reads is projections/page/wire.py's (docs/wire-schema.json):
// an entry is an array read by the positions below. An ES module: the GM's page imports it
// (gm.js, from the server beside it); the replay page, one file with no network, holds it
// inline in the same module script as page.js (projections/page/shell.py), so it names no
// route of the server (the players' page holds none); Node tests it (tests/js/).

// The positions of an entry's fields (wire.py's Entry, Harming; a field is only ever added at the end).
export const ENTRY = Object.freeze({ id: 0, back: 1, command: 2, narration: 3, view: 4, explanation: 5, damage: 6 });
// The positions of an entry's damage (wire.py's Hit, HitBy, Healing).
export const HIT = Object.freeze({ victim: 0, amount: 1, by: 2, healed: 3 });

// The page's events by id, read from its entries: each entry's id and command are steps
// from the entry before's (``last``: where the reading stands, {id, cmd}, changed in place).
export function readEvents(byId, entries, strings, gm, last) {
  for (const e of entries) {
    last.id += e[ENTRY.id];
    if (gm) last.cmd += e[ENTRY.command];
    const id = last.id, hit = e[ENTRY.damage];
    byId.set(id, {
      id, parent: e[ENTRY.back] === null ? null : id - e[ENTRY.back], cmd: last.cmd,
      text: strings[e[ENTRY.narration]], d: e[ENTRY.view], x: e[ENTRY.explanation],
      h: hit ? [String(hit[HIT.victim]), hit[HIT.amount], hit[HIT.by] == null ? null : String(hit[HIT.by]),
        hit[HIT.healed] || 0] : null,
    });
  }
  return byId;
}

// A branch's events from the root to its head.
export function walk(byId, head) {
  const out = [];
  let ev = byId.get(head);
  while (ev) { out.push(ev); ev = ev.parent === null ? null : byId.get(ev.parent); }
  return out.reverse();
}

// The summarised totals are by name; the board's combatants by key.
export function keyed(byName) {
  const out = {};
  for (const n in byName) out["@" + n] = byName[n];
  return out;
}

// The board before a path's first event: empty, with the damage totals of the events a long
// fight's page summarised before it (the data's ``summarised.bases``).
export function emptyBoard(summarised, first) {
  const base = summarised && first ? summarised.bases[String(first.id)] : null;
  return { k: {}, o: [], c: {}, p: [], w: {}, dealt: base ? keyed(base.dealt) : {},
           taken: base ? keyed(base.taken) : {}, start: {}, start2: {} };
}

// One event folded on the board: its view delta (the order and the pending list whole, the
// clock, the scene and each combatant key by key), its damage into the totals (not a heal).
export function applyEvent(st, ev) {
  const d = ev.d;
  if (d.k) Object.assign(st.k, d.k);
  if (d.w) Object.assign(st.w, d.w);
  if (d.o) st.o = d.o;
  if (d.p) st.p = d.p;
  if (d.c) {
    for (const key in d.c) {
      st.c[key] = Object.assign({}, st.c[key], d.c[key]);
      if (!(key in st.start)) st.start[key] = st.c[key].v;
      if (!(key in st.start2) && "v2" in st.c[key]) st.start2[key] = st.c[key].v2;
    }
  }
  if (ev.h && !ev.h[3]) {
    st.taken[ev.h[0]] = (st.taken[ev.h[0]] || 0) + ev.h[1];
    if (ev.h[2] !== null) st.dealt[ev.h[2]] = (st.dealt[ev.h[2]] || 0) + ev.h[1];
  }
  return st;
}

export const clone = (st) => JSON.parse(JSON.stringify(st));

// The board after the ``index``-th event (from 0) of a path: its events folded from the start.
export function boardAt(path, index, summarised) {
  const st = emptyBoard(summarised, path[0]);
  for (let i = 0; i <= index && i < path.length; i++) applyEvent(st, path[i]);
  return st;
}

// The page's data read whole: its events by id, and a branch's board at any event of it.
export function readData(data) {
  const byId = readEvents(new Map(), data.events, data.strings, data.audience === "gm", { id: 0, cmd: 0 });
  const branch = (name) => data.branches.find((b) => b.name === name) || data.branches[0];
  return {
    byId,
    path: (name) => walk(byId, branch(name).head),
    board: (name, index) => {
      const path = walk(byId, branch(name).head);
      return boardAt(path, index === undefined ? path.length - 1 : index, data.summarised);
    },
  };
}

// --- words ---------------------------------------------------------------------------------

// A figure with its maximum where there is one: "12/20", else "12".
export const figure = (v, m) => (m === null || m === undefined ? String(v) : v + "/" + m);

// An event's explanation as `explain` prints it: a line each, the numbers as recorded
// joined; the GM's page puts the command that made it first.
export function explanationText(ev, strings, commands) {
  if (!ev.x) return "";
  const lines = ev.x.map((part) => (typeof part === "number" ? strings[part] :
    "as recorded: " + part.slice(1).map((i) => strings[i]).join(", ") + strings[part[0]]));
  if (commands) lines.unshift("command: " + (commands[String(ev.cmd)] || "?"));
  return lines.join("\n");
}

// The clock's line: the end first where the encounter ended (``ended``: its reason, "" none;
// null: not ended), then the clock's label.
export const clockText = (k, ended) =>
  (ended !== null && ended !== undefined ? "ENDED" + (ended ? " (" + ended + ")" : "") + "; " : "") + (k.l || "");

// Who acts now and next; nobody after, the end of the round (or turn).
export const actsText = (k) =>
  "now: " + ((k.now || []).join(", ") || "-") + "; next: " + ((k.next || []).join(", ") || k.end || "-");

// A pending action, [who, action, target, resolves] (wire.py's Waiting).
export const pendingText = (p) => p[0] + ": " + p[1] + (p[2] ? " on " + p[2] : "") + (p[3] ? " (" + p[3] + ")" : "");

// A gauge as a bar of ten cells and its figure: "#####..... 10/20"; a band or no maximum, the value.
export function bar(vital) {
  if (!vital || vital.maximum === null || vital.maximum === undefined || typeof vital.value !== "number") {
    return vital ? String(vital.value) : "";
  }
  const cells = 10, full = Math.max(0, Math.min(cells, Math.round(cells * vital.value / Math.max(1, vital.maximum))));
  return "#".repeat(full) + ".".repeat(cells - full) + " " + vital.value + "/" + vital.maximum;
}

// A refusal the page says before anything is posted (the server would refuse it too).
export function refusal(text) {
  const e = new Error(text);
  e.refusal = true;
  return e;
}

// A whole number as typed, or refused.
export function whole(text, label) {
  const t = text.trim();
  if (!/^[+-]?[0-9]+$/.test(t)) throw refusal(label + " takes a whole number, not \"" + t + "\"");
  return Number(t);
}

// Dice faces as typed, "6,8": numbers, or refused.
export function faces(text, key) {
  const items = text.split(",").map((s) => s.trim());
  if (!items.every((s) => /^[0-9]+$/.test(s))) {
    throw refusal("the dice of " + key + " take faces as numbers, e.g. 6,8; not \"" + text.trim() + "\"");
  }
  return items.map(Number);
}
