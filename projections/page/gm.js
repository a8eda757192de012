// The GM's page of `skirmish serve`: the board, and every command by taps. Each tap posts
// one typed request, {"type": TAG, ...its fields} (projections/door/requests.py), with the
// board it was decided on and an id of the tap; the server runs it through the library and
// answers what it did (cli/gm_server.py). The forms are made from the typed commands and
// the ruleset's declared inputs (projections/page/gm_data.py): no ruleset is named here, no
// command line is built, and every sentence shown is the server's. Every text of the log
// is set with textContent. A module: the words it shares with the replay page (a gauge's
// bar, the dice faces typed) are fold.mjs's, which Node tests.
import { bar, faces, refusal, whole } from "./fold.mjs";

const $ = (id) => document.getElementById(id);
const el = (tag, text, attrs) => {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
};

// The token comes after '#' in the GM's link; it is kept for this tab and taken off the
// address bar, so a screenshot or a glance does not carry it away.
let token = location.hash.slice(1);
if (token) {
  sessionStorage.setItem("skirmish-token", token);
  history.replaceState(null, "", location.pathname);
} else {
  token = sessionStorage.getItem("skirmish-token") || "";
}

let inputs = null, frame = null, timeline = [], chosen = "", amount = "", stream = null, acting = null;
// The stat block action tapped ({who, name}), the targets tapped for it, the faces typed by key.
let tapped = null, aimed = [], typedFaces = {}, drawn = "";
const OTHER = "\u0000other";  // the value of "another key" / "the GM's own" in a list

function problem(text) {
  $("problem").hidden = !text;
  $("problem").textContent = text || "";
}

// What a request did, in the server's sentences; a tap the server had done already (a
// double tap, a retry whose first answer was lost) says so, not as a refusal.
function show(result, repeated) {
  const box = $("reply");
  const refused = result.kind === "refused";
  box.classList.toggle("refused", refused);
  box.classList.toggle("repeated", Boolean(repeated) && !refused);
  const text = refused ? result.error : (result.lines || []).join("\n");
  box.textContent = repeated && !refused ? (result.kind === "recorded" ? "Already recorded: " : "Already done: ") + text : text;
}

function refuse(text) {
  show({ kind: "refused", error: text }, false);
}

async function load() {
  const answer = await fetch("/gm/state", { headers: { "X-Skirmish-Token": token }, cache: "no-store" });
  if (!answer.ok) {
    problem(answer.status === 403 ? "This page needs the GM's link, with its secret, as serve printed it." :
      "The server cannot read the log (" + answer.status + ").");
    return;
  }
  const data = await answer.json();
  inputs = data.inputs;
  frame = null;
  apply(data.frame);
  problem(data.error);
  makeForms();
  listen();
}

function listen() {
  if (stream) stream.close();
  stream = new EventSource("/gm/events?token=" + encodeURIComponent(token) + "&since=" + (frame ? frame.seq : 0));
  stream.addEventListener("change", (e) => apply(JSON.parse(e.data)));
}

// A frame: the board whole, and the events of the branch after the last one this page
// holds (or the whole timeline when `after` is null).
function apply(next) {
  if (!next || (frame && next.seq <= frame.seq)) return;
  const t = next.timeline;
  if (t.after === null) {
    timeline = t.events.slice();
  } else {
    const at = timeline.findIndex((e) => e[0] === t.after);
    if (at < 0) { load(); return; }  // a gap: read the board and timeline again
    timeline = timeline.slice(0, at + 1).concat(t.events);
  }
  frame = next;
  if (inputs) render();
}

// A list's options, keeping what was picked when it is still there.
function fill(select, values, first, last) {
  const was = select.value;
  select.replaceChildren(...(first ? [el("option", first[1], { value: first[0] })] : []),
    ...values.map((v) => el("option", v, { value: v })), ...(last ? [el("option", last[1], { value: last[0] })] : []));
  const kept = Array.from(select.options).some((o) => o.value === was);
  if (kept) select.value = was;
  return kept;
}

function render() {
  const b = frame.board;
  const said = frame.said || { clock: "", where: "", pending: [] };
  $("where").textContent = said.where;
  $("clock").textContent = said.clock;
  drawOrder();
  drawMove();
  drawAsks();
  drawConditions();
  // Each part drawn again only when what it shows has changed: a tap's frame redraws little.
  const pendingKey = JSON.stringify(said.pending);
  if (pendingKey !== keys.pending) {
    keys.pending = pendingKey;
    $("pending").replaceChildren(...said.pending.map((line) => el("li", line)));
  }
  for (const [id, word, what] of [["undo", "Undo", frame.undo], ["redo", "Redo", frame.redo]]) {
    const text = what ? word + ": " + what : word;
    const button = $(id);
    if (button.textContent !== text) button.replaceChildren(el("span", text, { class: "clamp" }));
    button.disabled = !what;
  }
  const branchesKey = JSON.stringify([frame.branches, b.branch]);
  if (branchesKey !== keys.branches) { keys.branches = branchesKey; drawBranches(b); }
  drawTimeline();
  selects(b);
  const names = b.combatants.map((f) => f.name);
  $("who").hidden = !chosen || !names.includes(chosen);
  const picked = b.combatants.find((f) => f.name === chosen);
  $("who-name").textContent = picked && picked.vital ? chosen + ": " + picked.vital.name + " " + bar(picked.vital).replace(/^[#.]+ /, "") : chosen;
}

const keys = { pending: "", branches: "", names: "", effects: "" };
let drawnEvents = [];  // the ids of the timeline's events drawn, oldest first

function drawBranches(b) {
  const branches = $("branches");
  branches.replaceChildren();
  for (const [name, head] of frame.branches) {
    const li = el("li");
    li.append(el("span", name + " at #" + head + (name === b.branch ? " (playing)" : "")));
    const go = el("button", "Switch to " + name, { type: "button" });
    go.disabled = name === b.branch;
    go.addEventListener("click", () => send({ type: "switch", name: name }));
    li.append(go);
    branches.append(li);
  }
}

function eventItem(id, text) {
    const li = el("li");
    const explain = el("button", "#" + id, { type: "button", "aria-label": "Explain event " + id });
    explain.addEventListener("click", () => send({ type: "explain", event: id }));
    // Step back: a what-if from this event (the branch form, filled; the GM names it).
    const fork = el("button", "Branch here", { type: "button", "aria-label": "Branch from event " + id });
    fork.addEventListener("click", () => {
      $("branching").open = true;
      $("fork").elements.at.value = String(id);
      $("fork").elements.name.focus();
    });
    li.append(explain, el("span", text), fork);
    return li;
}

// The timeline, newest first: the events after those drawn are put on top; anything else
// (an undo, a switch) draws it again.
function drawTimeline() {
  const list = $("timeline");
  const ids = timeline.map((e) => e[0]);
  const kept = drawnEvents.length <= ids.length && drawnEvents.every((id, i) => ids[i] === id);
  if (kept && drawnEvents.length === ids.length) return;
  const fresh = kept ? timeline.slice(drawnEvents.length) : timeline;
  const items = fresh.slice().reverse().map(([id, text]) => eventItem(id, text));
  if (kept) list.prepend(...items); else list.replaceChildren(...items);
  drawnEvents = ids;
}

// The lists that name a combatant or an effect follow the board (filled again only when
// the names or the effects on the board change).
function selects(b) {
  const names = b.combatants.map((f) => f.name);
  // Who a form is for: the card tapped, else who acts now, picked again when the turn moves on.
  const first = chosen || b.clock.now.find((n) => names.includes(n));
  const moved = acting !== b.clock.now.join("\n");
  acting = b.clock.now.join("\n");
  const namesKey = JSON.stringify(names);
  const changed = namesKey !== keys.names;
  keys.names = namesKey;
  for (const select of document.querySelectorAll("select[data-picker='combatant']")) {
    const optional = select.dataset.required !== "true";
    const kept = changed || !select.options.length ? fill(select, names, optional ? ["", "(none)"] : null) : true;
    if ((!kept || moved) && !optional && first) select.value = first;
  }
  if (changed) {
    for (const select of document.querySelectorAll("select[data-roll='key']")) fill(select, names, null, [OTHER, "another key..."]);
  }
  const own = inputs.effects.map((e) => e.name);
  const onBoard = [];
  for (const f of b.combatants) for (const e of f.effects || []) if (!own.includes(e.kind) && !onBoard.includes(e.kind)) onBoard.push(e.kind);
  const effectsKey = JSON.stringify(onBoard);
  if (effectsKey !== keys.effects) {
    keys.effects = effectsKey;
    for (const select of document.querySelectorAll("select[data-picker='effect']")) {
      fill(select, own.concat(onBoard), null, [OTHER, "the GM's own..."]);
      select.dispatchEvent(new Event("change"));
    }
  }
}

// --- the cards: one per combatant, drawn again only when what it shows has changed -------
// A card: the button that chooses it (name, status in words and mark, gauge, the ruleset's
// figures and effects as the server words them: frame.cards), its tools (hide or reveal),
// its stat block's actions, and under it the panels of the chosen card and of the action
// tapped (#who: the number pad; #move), so they open under the thumb, not down the page.
const drawnCards = new Map();  // name -> {li, pick, tools, moves, key}

function vitalOf(f) {
  const out = [];
  for (const g of [f.vital, f.vital2]) {
    if (!g || typeof g !== "object") continue;
    const line = el("div", null, { class: "gauge" });
    line.append(el("span", g.name + " ", { class: "label" }), el("span", g.value + (typeof g.maximum === "number" ? "/" + g.maximum : ""), { class: "value" }));
    if (typeof g.maximum === "number" && g.maximum > 0) {
      line.append(el("progress", null, { max: String(g.maximum), value: String(Math.max(0, g.value)), "aria-hidden": "true" }));
    }
    out.push(line);
  }
  return out;
}

function drawCard(slot, f, card, own) {
  const li = slot.li;
  li.className = f.status + (f.acting ? " acting" : "") + (f.name === chosen ? " chosen" : "") + (card && card.hidden ? " hidden-foe" : "");
  li.dataset.name = f.name;
  const pick = slot.pick;
  pick.setAttribute("aria-pressed", String(f.name === chosen));
  const head = el("div", null, { class: "head" });
  head.append(el("span", (f.acting ? "> " : "") + f.name, { class: "name" }), el("span", " " + f.side, { class: "side" }),
    el("span", card ? card.status : f.status, { class: "status s-" + f.status }));
  const parts = [head, ...vitalOf(f)];
  const figures = el("div", null, { class: "figures" });
  for (const text of card ? card.figures : []) figures.append(el("span", text, { class: "figure" }));
  if (f.budget) figures.append(el("span", f.budget.name + " " + f.budget.left + (f.budget.of !== null ? "/" + f.budget.of : ""), { class: "figure" }));
  if (figures.childNodes.length) parts.push(figures);
  const chips = card ? card.chips : (f.effects || []).map((e) => ({ mark: "", said: e.kind, kind: e.kind }));
  if (chips.length) {
    const box = el("div", null, { class: "chips" });
    for (const c of chips) {
      const chip = el("span", null, { class: "chip" });
      if (c.mark) chip.append(el("span", c.mark, { class: "mark", "aria-hidden": "true" }));
      chip.append(el("span", c.said));
      box.append(chip);
    }
    parts.push(box);
  }
  if (card && card.tags.length) {
    const tags = el("div", null, { class: "tags" });
    for (const t of card.tags) tags.append(el("span", t, { class: "tag" }));
    parts.push(tags);
  }
  pick.replaceChildren(...parts);
  // One tap hides it from the players' screens, or shows it again.
  const hidden = Boolean(card && card.hidden);
  const toggle = el("button", hidden ? "Reveal" : "Hide", { type: "button", class: "hide", "data-who": f.name,
    "aria-label": (hidden ? "Reveal " : "Hide ") + f.name + (hidden ? " to the players" : " from the players") });
  toggle.addEventListener("click", () => send({ type: hidden ? "reveal" : "hide", who: f.name }));
  slot.tools.replaceChildren(toggle);
  // Its stat block's actions; a card without any has none (an empty place kept for them).
  const moves = own.length ? movesOf(f.name, own) : el("div", null, { class: "no-moves", hidden: "" });
  slot.moves.replaceWith(moves);
  slot.moves = moves;
}

function drawOrder() {
  const order = $("order"), cards = frame.cards || {}, moves = frame.moves || {};
  const seen = new Set();
  let before = order.firstChild;
  for (const f of frame.board.combatants) {
    seen.add(f.name);
    let slot = drawnCards.get(f.name);
    if (!slot) {
      slot = { li: el("li"), pick: el("button", null, { type: "button", class: "pick" }), tools: el("div", null, { class: "tools" }),
        moves: el("div", null, { class: "no-moves", hidden: "" }), key: "" };
      const name = f.name;
      slot.pick.addEventListener("click", () => choose(name));
      slot.li.append(slot.pick, slot.tools, slot.moves);
      drawnCards.set(f.name, slot);
    }
    const card = cards[f.name] || null, own = moves[f.name] || [];
    const key = JSON.stringify([f, card, own, f.name === chosen, tapped && tapped.who === f.name ? tapped.name : ""]);
    if (slot.key !== key) { drawCard(slot, f, card, own); slot.key = key; }
    if (slot.li !== before) order.insertBefore(slot.li, before);
    before = slot.li.nextSibling;
  }
  for (const [name, slot] of drawnCards) if (!seen.has(name)) { slot.li.remove(); drawnCards.delete(name); }
  // The panels under their cards: the action tapped, then the chosen one's pad.
  const home = $("panels");
  const place = (panel, who) => {
    const slot = who ? drawnCards.get(who) : null;
    const there = slot ? slot.li : home;
    if (panel.parentNode !== there) there.append(panel);
  };
  place($("move"), tapped ? tapped.who : "");
  place($("who"), chosen && drawnCards.has(chosen) ? chosen : "");
  if (chosen && $("who").parentNode === drawnCards.get(chosen).li && $("move").parentNode === $("who").parentNode &&
      $("move").nextSibling !== $("who")) $("who").before($("move"));
}

// --- a stat block's actions: tap one, tap its target(s), then Roll or the dice typed -------
// Each card's actions come from the frame (the ruleset's Move: name, label, what is spent,
// the dice keys), worked out in Python: nothing of a block is read here.
function movesOf(who, own) {
  const box = el("div", null, { class: "moves", role: "group", "aria-label": who + ": its stat block's actions" });
  for (const m of own) {
    const on = tapped !== null && tapped.who === who && tapped.name === m.name;
    const b = el("button", null, { type: "button", "data-move": m.name, "aria-pressed": String(on) });
    b.append(el("span", m.name, { class: "what" }), el("span", m.spent || m.label, { class: "label" }));
    if (m.spent) {
      b.disabled = true;
      b.classList.add("spent");
      b.title = m.name + ": " + m.spent;
    } else {
      b.title = m.name + (m.label ? ": " + m.label : "");
    }
    b.addEventListener("click", () => pickMove(who, m.name));
    box.append(b);
  }
  return box;
}

function moveNow() {
  if (!tapped || !frame) return null;
  const m = ((frame.moves || {})[tapped.who] || []).find((x) => x.name === tapped.name);
  return m && !m.spent ? m : null;
}

function pickMove(who, name) {
  const again = tapped && tapped.who === who && tapped.name === name;
  tapped = again ? null : { who: who, name: name };
  aimed = [];
  typedFaces = {};
  $("move-dice").open = false;  // a fresh tap: Roll first, the dice typed on asking
  render();
  if (tapped) $("move").scrollIntoView({ block: "nearest" });
}

// The dice keys the action tapped reads: the actor's, then each target's (a save's).
function keysOf(m) {
  const keys = m.rolls.map((k) => ({ key: k.key, what: k.what }));
  for (const t of aimed) for (const k of m.each) keys.push({ key: k.key + t, what: t + ": " + k.what });
  return keys;
}

// The panel of the action tapped, drawn again only when what it shows has changed (a
// frame that leaves it alone keeps the faces being typed, and the focus).
function drawMove() {
  const m = moveNow();
  if (tapped && !m) { tapped = null; aimed = []; typedFaces = {}; }
  const names = frame.board.combatants.map((c) => c.name);
  const key = JSON.stringify([tapped, m, aimed, names]);
  $("move").hidden = !m;
  if (key === drawn) return;
  drawn = key;
  if (!m) return;
  aimed = aimed.filter((n) => names.includes(n));
  $("move-name").textContent = tapped.who + ": " + m.name;
  $("move-label").textContent = m.label;
  $("move-aim").textContent = m.aim === "several" ? "Targets: tap each one it is aimed at." :
    m.aim === "one" ? "Target: tap the one it is aimed at." : "";
  const targets = $("move-targets");
  targets.replaceChildren();
  targets.hidden = m.aim === "none";
  if (m.aim !== "none") {
    const me = frame.board.combatants.find((c) => c.name === tapped.who);
    const others = frame.board.combatants.filter((c) => c.name !== tapped.who && c.status !== "dead" && c.status !== "left");
    // The other sides first: a block's action is most often aimed at a foe.
    others.sort((a, b) => (a.side === (me && me.side)) - (b.side === (me && me.side)));
    for (const c of others) {
      const on = aimed.includes(c.name);
      const b = el("button", null, { type: "button", "data-target": c.name, "aria-pressed": String(on) });
      b.append(el("span", c.name, { class: "who" }), el("span", " (" + c.side + (c.vital ? ", " + c.vital.name + " " + c.vital.value : "") + ")"));
      b.addEventListener("click", () => {
        if (m.aim === "one") aimed = on ? [] : [c.name];
        else aimed = on ? aimed.filter((n) => n !== c.name) : aimed.concat([c.name]);
        drawMove();
      });
      targets.append(b);
    }
  }
  const keys = keysOf(m);
  $("move-roll").textContent = keys.length ? "Roll" : "Declare";
  $("move-dice").hidden = !keys.length;
  const faces = $("move-faces");
  faces.replaceChildren();
  for (const k of keys) {
    const label = el("label", k.what + " (" + k.key + ")");
    const box = el("input", null, { autocomplete: "off", inputmode: "numeric", "data-dice": k.key });
    box.placeholder = "faces, e.g. 4 or 3,5";
    box.value = typedFaces[k.key] || "";
    box.addEventListener("input", () => { typedFaces[k.key] = box.value; });
    label.append(box);
    faces.append(label);
  }
}

// The typed Declare of the action tapped: the server rolls, or takes the faces typed.
async function declareMove(withFaces) {
  const m = moveNow();
  if (!m) return;
  if (m.aim !== "none" && !aimed.length) { refuse("tap " + (m.aim === "one" ? "its target" : "its targets") + " first"); return; }
  const command = { type: "declare", who: tapped.who, action: m.name };
  if (aimed.length) command.target = aimed.join("+");
  if (withFaces) {
    const rolls = {};
    try {
      for (const k of keysOf(m)) {
        const t = (typedFaces[k.key] || "").trim();
        if (t) rolls[k.key] = faces(t, k.key);
      }
    } catch (err) {
      if (!err.refusal) throw err;
      refuse(err.message);
      return;
    }
    if (!Object.keys(rolls).length) { refuse("type the faces of a die first, or tap Roll"); return; }
    command.rolls = rolls;
  }
  if (await send(command)) {
    tapped = null;
    aimed = [];
    typedFaces = {};
    render();
  }
}

// The players' proposals waiting for the GM, each with Accept and Decline (the typed
// accept/decline requests, through the one write path), and the dice their phones hold.
let asksDrawn = "";
function drawAsks() {
  const waiting = frame.proposals || [], holding = frame.holding || [];
  const key = JSON.stringify([waiting, holding]);
  if (key === asksDrawn) return;
  asksDrawn = key;
  $("proposals-none").hidden = waiting.length > 0;
  $("proposals").replaceChildren(...waiting.map((p) => {
    const li = el("li", null, { "data-id": String(p.id) });
    const words = el("p");
    words.append(el("span", p.who, { class: "name" }), el("span", ": "), el("span", p.text, { class: "text" }));
    const row = el("div", null, { class: "row" });
    const yes = el("button", "Accept", { type: "button", class: "accept" });
    const no = el("button", "Decline", { type: "button", class: "decline" });
    yes.addEventListener("click", () => send({ type: "accept", id: p.id }));
    no.addEventListener("click", () => send({ type: "decline", id: p.id }));
    row.append(yes, no);
    li.append(words, row);
    return li;
  }));
  $("held").replaceChildren(...holding.map((line) => el("li", line)));
}

// --- a condition in one tap: the ruleset's effects as buttons on the chosen card, with how
// long it lasts (the effect form's rounds, where the ruleset reads them) --------------------
let lasts = 0;  // rounds; 0: until ended
const LASTS = [0, 1, 2, 3, 5, 10];
let kindsDrawn = "";

function drawConditions() {
  const box = $("conditions");
  const form = inputs.forms.find((x) => x.type === "effect");
  box.hidden = !chosen || !form || !inputs.effects.length;
  if (box.hidden) return;
  const rounds = form.fields.find((x) => x.key === "rounds" && x.goes === "field");
  const card = (frame.cards || {})[chosen];
  const on = new Set(card ? card.chips.filter((c) => c.kind).map((c) => c.kind) : []);
  const key = JSON.stringify([chosen, [...on], lasts, Boolean(rounds)]);
  if (key === kindsDrawn) return;
  kindsDrawn = key;
  const row = $("lasts");
  row.hidden = !rounds;
  row.replaceChildren(...(rounds ? [el("span", "Lasts (" + rounds.label + "):", { class: "caption" })] : []),
    ...(rounds ? LASTS : []).map((n) => {
      const b = el("button", n === 0 ? "until ended" : String(n), { type: "button", "data-lasts": String(n), "aria-pressed": String(n === lasts),
        "aria-label": n === 0 ? "until ended" : n + " " + rounds.label });
      b.addEventListener("click", () => { lasts = n; drawConditions(); });
      return b;
    }));
  $("kinds").replaceChildren(...inputs.effects.map((e) => {
    const active = on.has(e.name);
    const b = el("button", null, { type: "button", "data-kind": e.name, "aria-pressed": String(active) });
    if (e.mark) b.append(el("span", e.mark, { class: "mark", "aria-hidden": "true" }));
    b.append(el("span", e.name, { class: "word" }));
    if (active) b.append(el("span", "on: tap to end", { class: "on" }));
    b.addEventListener("click", async () => {
      const command = { type: "effect", who: chosen, kind: e.name };
      if (active) command.end = true;
      else if (lasts && rounds) command.rounds = lasts;
      await send(command);
    });
    return b;
  }));
}

function choose(name) {
  chosen = chosen === name ? "" : name;
  amount = "";
  $("amount").textContent = "0";
  for (const select of document.querySelectorAll("select[data-picker='combatant'][data-required='true']")) if (chosen) select.value = chosen;
  render();
  // The pad opens under the card: the card and its pad brought into view when they are not.
  if (chosen) {
    const pad = $("damage").getBoundingClientRect(), bar = $("actions").getBoundingClientRect();
    const bottom = getComputedStyle($("actions")).position === "fixed" ? bar.top : innerHeight;
    if (pad.bottom > bottom || $("pad").getBoundingClientRect().top < 0) drawnCards.get(chosen).li.scrollIntoView({ block: "start" });
  }
}

// --- a tap: one typed request, its tap id, its answer -----------------------------------
const TRIES = 3;  // a request the network lost is sent again, with the same tap id
let queue = Promise.resolve(), last = null, waiting = 0;

function freshId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (x) => x.toString(16).padStart(2, "0")).join("");
}

function busy(step) {
  waiting += step;
  document.body.dataset.busy = waiting > 0 ? "1" : "0";
}

const pause = (ms) => new Promise((done) => setTimeout(done, ms));

// A tap's id: the same request on the same board as the tap before it is that tap again
// (a double tap, a tap again after no answer came), which the server does once; anything
// else is a fresh tap. A read is never done "already": it is asked afresh.
function tapId(command, branch, head) {
  const key = JSON.stringify([command, branch, head]);
  if (inputs.reads.includes(command.type)) return freshId();
  if (!last || last.key !== key) last = { key: key, id: freshId() };
  return last.id;
}

// Posted one after the other, in the order tapped, each with the board it was tapped on.
function send(command) {
  if (!frame) return Promise.resolve(false);
  const branch = frame.board.branch, head = frame.board.head;
  const tap = tapId(command, branch, head);
  const body = JSON.stringify({ command: command, branch: branch, head: head, tap: tap });
  busy(1);
  const done = queue.then(() => deliver(body, tap)).then((ok) => { busy(-1); return ok; },
    (e) => { busy(-1); refuse("the page could not read the server's answer (" + e + ")"); return false; });
  queue = done;
  return done;
}

async function deliver(body, tap) {
  let answer = null, failure = null;
  for (let attempt = 1; attempt <= TRIES && answer === null; attempt++) {
    try {
      answer = await fetch("/gm/run", {
        method: "POST", cache: "no-store",
        headers: { "Content-Type": "application/json", "X-Skirmish-Token": token }, body: body,
      });
    } catch (e) {
      failure = e;
      if (attempt < TRIES) await pause(400 * attempt);
    }
  }
  if (answer === null) {
    refuse("the server cannot be reached (" + failure + "); tap again: a tap it did already is not done twice");
    return false;
  }
  const json = (answer.headers.get("content-type") || "").startsWith("application/json");
  const reply = json ? await answer.json() : null;
  if (!reply || !reply.result) {
    refuse(json ? "the server's answer is not one this page reads (" + answer.status + ")" : (await answer.text()).trim());
    return false;
  }
  if (reply.frame) apply(reply.frame);
  show(reply.result, reply.repeated);
  const ok = reply.result.kind !== "refused";
  if (!ok && last && last.id === tap) last = null;  // corrected and tapped again, it is a new tap
  return ok;
}

// --- the forms, from the typed commands and what the ruleset declares ---------------------

// The GM's dice: rows of whose (a combatant, or another key the ruleset names) and faces.
function diceInput(f, tag) {
  const box = el("div", null, { class: "dice wide", "data-goes": "roll" });
  box.title = f.doc;
  const rows = [];
  const addRow = () => {
    const row = el("div", null, { class: "roll" });
    const key = el("select", null, { "data-roll": "key", "aria-label": f.label + ": whose" });
    const other = el("input", null, { "data-roll": "other", autocomplete: "off", "aria-label": f.label + ": the key", hidden: "" });
    const typed = el("input", null, { "data-roll": "faces", autocomplete: "off", inputmode: "numeric", "aria-label": f.label + ": faces" });
    typed.placeholder = "faces, e.g. 6,8";
    key.addEventListener("change", () => { other.hidden = key.value !== OTHER; });
    if (frame) fill(key, frame.board.combatants.map((c) => c.name), null, [OTHER, "another key..."]);
    row.append(key, other, typed);
    rows.push({ row: row, key: key, other: other, typed: typed });
    box.insertBefore(row, more);
  };
  const more = el("button", "+ dice", { type: "button", "data-roll": "more" });
  more.addEventListener("click", addRow);
  box.append(el("span", f.label, { class: "caption" }), more);
  if (f.key) {  // one key of its own (`roll`'s faces): no whose
    const typed = el("input", null, { "data-roll": "faces", autocomplete: "off", inputmode: "numeric", "aria-label": f.label });
    typed.placeholder = "e.g. 4,5";
    more.remove();
    box.append(typed);
    return {
      field: f, node: box,
      read: () => { const t = typed.value.trim(); if (!t) return undefined; const o = {}; o[f.key] = faces(t, f.key); return o; },
      reset: () => { typed.value = ""; },
    };
  }
  addRow();
  return {
    field: f, node: box,
    read: () => {
      const out = {};
      let given = false;
      for (const r of rows) {
        const t = r.typed.value.trim();
        if (!t) continue;
        const key = r.key.value === OTHER ? r.other.value.trim() : r.key.value;
        if (!key) throw refusal("whose are the dice " + t + "? pick a combatant or type the key");
        if (Object.prototype.hasOwnProperty.call(out, key)) throw refusal("the dice of " + key + " are given twice");
        out[key] = faces(t, key);
        given = true;
      }
      return given ? out : undefined;
    },
    reset: () => {
      rows.splice(1).forEach((r) => r.row.remove());
      rows[0].typed.value = "";
      rows[0].other.value = "";
    },
  };
}

// One field of a form made for taps: a list to pick from (a combatant, an action, an
// effect, a ruleset's choices), a box to tick (a switch), else a box to type in.
function input(f, tag) {
  if (f.goes === "roll") return diceInput(f, tag);
  const label = el("label", f.label);
  label.title = f.doc;
  const data = { "data-key": f.key, "data-goes": f.goes, name: f.key };
  let node, other = null;
  if (f.picker === "combatant") {
    node = el("select", null, Object.assign({ "data-picker": "combatant", "data-required": String(f.required) }, data));
  } else if (f.picker === "action") {
    node = el("select", null, Object.assign({ "data-picker": "action" }, data));
    for (const a of inputs.actions) node.append(el("option", a.name + (a.cost ? " (" + a.cost + ")" : ""), { value: a.name, title: a.doc }));
  } else if (f.picker === "effect") {
    node = el("select", null, Object.assign({ "data-picker": "effect" }, data));
    other = el("input", null, { "data-key": f.key, "data-own": "true", autocomplete: "off", "aria-label": "the GM's own effect", hidden: "" });
  } else if (f.kind === "switch") {
    node = el("input", null, Object.assign({ type: "checkbox" }, data));
    label.classList.add("tick");
  } else if (f.kind === "choice") {
    node = el("select", null, data);
    node.append(el("option", "(none)", { value: "" }), ...f.choices.map((c) => el("option", c, { value: c })));
  } else {
    node = el("input", null, Object.assign({ autocomplete: "off" }, data));
    if (f.kind === "number") node.setAttribute("inputmode", "numeric");
  }
  if (node.type === "checkbox") label.prepend(node); else label.append(node);
  if (other) label.append(other);
  if (f.picker === "action" || f.picker === "effect") {
    // What the action or effect picked does, in the ruleset's words, under the list.
    const help = el("span", "", { class: "help picked" });
    const said = () => {
      const found = (f.picker === "action" ? inputs.actions : inputs.effects).find((x) => x.name === node.value);
      help.textContent = found ? found.doc : "";
    };
    node.addEventListener("change", said);
    label.append(help);
    label.classList.add("wide");  // a row of its own: the list, and its words under it
    queueMicrotask(said);
  }
  const read = () => {
    if (node.type === "checkbox") {
      if (!node.checked) return undefined;
      return f.goes === "field" ? true : (f.choices[0] || "yes");
    }
    const text = other && node.value === OTHER ? other.value.trim() : node.value.trim();
    if (!text) {
      if (f.default !== null && f.default !== undefined) return f.default;
      if (f.required) throw refusal("`" + f.label + "` is needed");
      return undefined;
    }
    return f.kind === "number" ? whole(text, f.label) : text;
  };
  // After a write the fields are emptied (a target too: the next declaration names its
  // own); who, the action and the effect stay.
  const reset = () => {
    if (node.type === "checkbox") node.checked = false;
    else if (!f.picker || !f.required) node.value = "";
    if (other) other.value = "";
  };
  return { field: f, node: label, control: node, other: other, read: read, reset: reset };
}

// The request a form's fields make: each value where its field says it goes.
function build(tag, parts) {
  const command = { type: tag };
  for (const p of parts) {
    if (p.node.hidden) continue;
    const value = p.read();
    if (value === undefined) continue;
    const f = p.field;
    if (f.goes === "field") command[f.key] = value;
    else if (f.goes === "type") command.type = value;
    else {
      const bag = f.goes === "roll" ? "rolls" : f.goes === "detail" ? "details" : "stats";
      command[bag] = command[bag] || {};
      if (f.goes === "roll") Object.assign(command[bag], value); else command[bag][f.key] = String(value);
    }
  }
  return command;
}

// An action's form asks only what the action takes (ActionInfo.takes; null: anything).
function follow(parts) {
  const action = parts.find((p) => p.field.picker === "action");
  const kind = parts.find((p) => p.field.picker === "effect");
  if (action) {
    const show = () => {
      const picked = inputs.actions.find((a) => a.name === action.control.value);
      const takes = picked ? picked.takes : null;
      for (const p of parts) {
        if (p.field.goes === "roll" || p.field.required) continue;
        p.node.hidden = takes !== null && !takes.includes(p.field.key);
      }
    };
    action.control.addEventListener("change", show);
    show();
  }
  if (kind) {  // the GM's own kind: typed, and marked as theirs
    const custom = parts.find((p) => p.field.key === kind.field.own && p.field.kind === "switch");
    kind.control.addEventListener("change", () => {
      const own = kind.control.value === OTHER;
      kind.other.hidden = !own;
      if (custom) custom.control.checked = own;
    });
  }
}

// A form's help, by tap: each field's label and what it means (the command's and the
// ruleset's words), under a "?" that opens on a tap, never in a tooltip alone.
function helpOf(fields) {
  const box = el("details", null, { class: "qhelp wide" });
  box.append(el("summary", "? What these mean"));
  const list = el("dl");
  for (const f of fields) {
    if (!f.doc) continue;
    list.append(el("dt", f.label), el("dd", f.doc));
  }
  box.append(list);
  return list.childNodes.length ? box : null;
}

const padOptions = {};

function makeForms() {
  keys.names = keys.effects = "";  // the new lists are filled at the next draw
  // What each of the ruleset's conditions does, in its words, under the one-tap buttons.
  $("kinds-said").replaceChildren(...inputs.effects.flatMap((e) => [el("dt", (e.mark ? e.mark + " " : "") + e.name), el("dd", e.doc)]));
  const main = $("forms"), more = $("more-forms"), pad = $("pad-options");
  for (const box of [main, more, pad]) box.replaceChildren();
  for (const spec of inputs.forms) {
    if (spec.place === "pad") {  // the combatant tapped and the amount on the pad; the rest are the pad's options
      const parts = spec.fields.filter((f) => f.key !== "who" && f.key !== "amount").map((f) => input(f, spec.type));
      padOptions[spec.type] = parts;
      if (!parts.length) continue;
      const set = el("fieldset", null, { "data-pad": spec.type });
      set.append(el("legend", spec.type + " options"), ...[helpOf(spec.fields.filter((f) => f.key !== "who" && f.key !== "amount"))].filter(Boolean),
        ...parts.map((p) => p.node));
      pad.append(set);
      continue;
    }
    const form = el("form", null, { "data-type": spec.type });
    const set = el("fieldset");
    set.append(el("legend", spec.type), ...[helpOf(spec.fields)].filter(Boolean));
    const parts = spec.fields.map((f) => input(f, spec.type));
    set.append(...parts.map((p) => p.node));
    set.append(el("button", spec.type, { type: "submit", class: "wide" }));
    form.append(set);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      let command;
      try {
        command = build(spec.type, parts);
      } catch (err) {
        if (!err.refusal) throw err;
        refuse(err.message);
        return;
      }
      if (await send(command)) parts.forEach((p) => p.reset());
    });
    (spec.place === "main" ? main : more).append(form);
    follow(parts);
  }
  render();
}

function wire() {
  $("next").addEventListener("click", () => send({ type: "next" }));
  $("move-roll").addEventListener("click", () => declareMove(false));
  $("move-typed").addEventListener("click", () => declareMove(true));
  $("move-off").addEventListener("click", () => { tapped = null; render(); });
  $("undo").addEventListener("click", () => send({ type: "undo" }));
  $("redo").addEventListener("click", () => send({ type: "redo" }));
  const pad = $("pad");
  for (const key of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "Clear", "0", "Delete"]) {
    const button = el("button", key === "Delete" ? "\u232b" : key, { type: "button", "aria-label": key });
    button.addEventListener("click", () => {
      if (key === "Clear") amount = "";
      else if (key === "Delete") amount = amount.slice(0, -1);
      else if (amount.length < 6) amount += key;
      $("amount").textContent = amount || "0";
    });
    pad.append(button);
  }
  const withAmount = (tag) => async () => {
    if (!chosen || !amount) { refuse("tap a combatant and an amount first"); return; }
    const options = padOptions[tag] || [];
    let command;
    try {
      command = build(tag, options);
    } catch (err) {
      if (!err.refusal) throw err;
      refuse(err.message);
      return;
    }
    command.who = chosen;
    command.amount = Number(amount);
    if (await send(command)) {
      amount = "";
      $("amount").textContent = "0";
      options.forEach((o) => o.reset());
    }
  };
  $("damage").addEventListener("click", withAmount("damage"));
  $("heal").addEventListener("click", withAmount("heal"));
  $("leave").addEventListener("click", () => chosen && send({ type: "leave", who: chosen }));
  $("return").addEventListener("click", () => chosen && send({ type: "return", who: chosen }));
  $("why").addEventListener("click", () => chosen && send({ type: "why", who: chosen }));  // the events behind its figures
  $("fork").addEventListener("submit", async (e) => {
    e.preventDefault();
    const form = e.target;
    const command = { type: "branch", name: form.elements.name.value.trim() };
    try {
      if (form.elements.at.value.trim()) command.at = whole(form.elements.at.value, "at event");
    } catch (err) {
      refuse(err.message);
      return;
    }
    // The page moves onto the new branch: forked, then switched to (the board names it).
    if (await send(command)) {
      form.reset();
      await send({ type: "switch", name: command.name });
    }
  });
  document.addEventListener("keydown", (e) => {
    const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement ? document.activeElement.tagName : "");
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "n") { e.preventDefault(); send({ type: "next" }); }
    else if (e.key === "u") { e.preventDefault(); send({ type: "undo" }); }
    else if (e.key === "r") { e.preventDefault(); send({ type: "redo" }); }
  });
}

// The bar at the bottom of a phone's screen: the page's end padded by its height, so
// nothing hides behind it (CSSOM, which the page's policy allows; no inline style).
function padForBar() {
  const bar = $("actions");
  const fixed = getComputedStyle(bar).position === "fixed";
  const room = fixed ? Math.ceil(bar.getBoundingClientRect().height) + 8 + "px" : "";
  document.body.style.paddingBottom = room;
  document.documentElement.style.scrollPaddingBottom = room;
}

wire();
new ResizeObserver(padForBar).observe($("actions"));
addEventListener("resize", padForBar);
load();
