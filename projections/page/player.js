// A player's page of `skirmish serve`: their character exactly, the rest of the table as the
// players' policy shows it, and what their link may send (cli/gm_server.py): faces held for
// the GM's next roll, their own action with their own dice, proposals to the GM. Every
// sentence and every figure's label comes from the server's read (/player/state, made by
// projections/page/player_data.py): no ruleset is named here. Every text of the log or of a
// user is set with textContent. Numbers come from the pad: no keyboard is needed.

const $ = (id) => document.getElementById(id);
const el = (tag, text, attrs) => {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
};

// The secret comes after '#' in the player's link; it is kept for this tab and taken off the
// address bar, so a screenshot or a glance does not carry it away.
const KEPT = "skirmish-player-token";
let token = location.hash.slice(1);
if (token) {
  sessionStorage.setItem(KEPT, token);
  history.replaceState(null, "", location.pathname);
} else {
  token = sessionStorage.getItem(KEPT) || "";
}

const POLL = 1000;  // ms between reads; the server answers 204 when nothing moved
let data = null, stopped = false, reading = false;
// The panel open: {kind, title, what, fields: [{key, what, value}], active, aim, targets, ...}.
let panel = null;

function say(text, refused) {
  const box = $("reply");
  box.classList.toggle("refused", Boolean(refused));
  box.textContent = text;
}

function gone(text) {
  stopped = true;
  for (const id of ["top", "send", "panel", "board"]) $(id).hidden = true;
  $("gone").hidden = false;
  $("gone").textContent = text;
  say("", false);
}

async function read() {
  if (stopped || reading) return;
  reading = true;
  try {
    const seen = data ? "?seen=" + data.seq : "";
    const answer = await fetch("/player/state" + seen, { headers: { "X-Skirmish-Token": token }, cache: "no-store" });
    if (answer.status === 204) return;
    if (answer.status === 403) { gone((await answer.text()).trim()); return; }
    if (!answer.ok) { say("The server cannot read the fight (" + answer.status + ")", true); return; }
    data = await answer.json();
    render();
  } catch (e) {
    say("The server cannot be reached (" + e + "); the page tries again every second", true);
  } finally {
    reading = false;
  }
}

// --- what is shown ---------------------------------------------------------------------

function render() {
  const s = data.sheet;
  $("clock").textContent = data.said;
  const mine = Boolean(s && s.acting);
  $("yours").hidden = !mine;
  document.body.classList.toggle("my-turn", mine);
  if (s) {
    $("name").textContent = s.name;
    $("status").textContent = s.status.split(":")[0];
    $("status").title = s.status;
    $("hp").textContent = s.bar.line;
    const whole = Math.max(1, (s.bar.maximum || s.bar.value) + s.bar.extra);
    $("gauge-hp").style.width = (100 * Math.max(0, s.bar.value) / whole) + "%";
    $("gauge-temp").style.width = (100 * s.bar.extra / whole) + "%";
    $("dying").hidden = !s.dying;
    $("dying").textContent = s.dying;
    const dl = $("figures");
    dl.replaceChildren();
    for (const f of s.figures) {
      const row = el("div");
      row.append(el("dt", f.label), el("dd", f.text));
      dl.append(row);
    }
    $("budget").textContent = s.budget;
    $("effects").replaceChildren(...s.effects.map((e) => el("li", e)));
  } else {
    $("name").textContent = data.who;
    $("hp").textContent = "Not on the board";
  }
  drawHolds();
  drawMoves();
  $("proposals").replaceChildren(...data.proposals.map((p) => el("li", "Waiting for the GM: " + p.text, { "data-id": String(p.id) })));
  drawRest();
  if (panel) drawPanel(false);
}

function drawHolds() {
  const box = $("holds");
  box.replaceChildren();
  for (const h of data.holds) {
    const b = el("button", h.what, { type: "button", "data-key": h.key });
    if (data.held.includes(h.key)) b.classList.add("held");
    b.addEventListener("click", () => open({
      kind: "hold", title: h.what, what: "Type the face you rolled: it is held for the GM's next roll of it.",
      fields: [{ key: h.key, what: h.what, value: "" }],
    }));
    box.append(b);
  }
  const what = (key) => (data.holds.find((h) => h.key === key) || { what: key }).what;
  $("held").replaceChildren(...data.held.map((key) => el("li", what(key) + ": held for the GM's next roll", { "data-key": key })));
}

function drawMoves() {
  const box = $("moves");
  box.replaceChildren();
  for (const m of data.moves) {
    const b = el("button", null, { type: "button", "data-move": m.name });
    b.append(el("span", m.name, { class: "what" }), el("span", m.spent || m.label, { class: "label" }));
    b.disabled = Boolean(m.spent);
    b.addEventListener("click", () => open({
      kind: "move", move: m.name, title: m.name, what: m.label, aim: m.aim, targets: [],
      fields: m.rolls.map((k) => ({ key: k.key, what: k.what, value: "", many: true })),
    }));
    box.append(b);
  }
  $("no-moves").hidden = data.moves.length > 0;
}

function drawRest() {
  const list = $("rest");
  list.replaceChildren();
  for (const f of data.rest) {
    const li = el("li", null, { class: f.status + (f.acting ? " acting" : ""), "data-name": f.name });
    const head = el("div");
    head.append(el("span", (f.acting ? "\u25b6 " : "") + f.name, { class: "name" }), el("span", " " + f.side + ", " + f.status));
    li.append(head);
    if (f.band !== undefined) {
      li.append(el("div", "Health: " + f.band));
    } else if (f.vital) {
      li.append(el("div", f.vital.name + " " + f.vital.value + (f.vital.maximum !== null ? " of " + f.vital.maximum : "")));
    }
    const effects = (f.effects || []).map((e) => (typeof e === "string" ? e : e.kind + (e.left !== null && e.left !== undefined ? " " + e.left : "")));
    if (effects.length) li.append(el("div", "Effects: " + effects.join("; ")));
    list.append(li);
  }
}

// --- the panel: what is being typed, with the pad -------------------------------------

function open(spec) {
  if (panel && panel.kind === spec.kind && panel.title === spec.title) { close(); return; }
  panel = Object.assign({ active: 0, aim: "none", targets: [] }, spec);
  drawPanel(true);
  $("panel").scrollIntoView({ block: "end" });
}

function close() {
  panel = null;
  $("panel").hidden = true;
}

function names() {
  const all = data.rest.filter((f) => f.status !== "dead" && f.status !== "left").map((f) => f.name);
  return data.sheet ? [data.who].concat(all) : all;
}

function fill(select, values, first) {
  const was = select.value;
  select.replaceChildren(...(first ? [el("option", first[1], { value: first[0] })] : []),
    ...values.map((v) => el("option", v.text || v, { value: v.value || v })));
  if (Array.from(select.options).some((o) => o.value === was)) select.value = was;
}

function drawPanel(fresh) {
  const p = panel;
  $("panel").hidden = false;
  $("panel-title").textContent = p.title;
  $("panel-what").textContent = p.what;
  $("pick-action").hidden = p.kind !== "declare";
  $("pick-effect").hidden = p.kind !== "effect";
  $("pick-target").hidden = p.aim === "none";
  if (p.kind === "declare") fill($("action"), data.actions.map((a) => ({ value: a.name, text: a.name + (a.cost ? " (" + a.cost + ")" : "") })));
  if (p.kind === "effect") fill($("effect"), data.effects.map((e) => e.name));
  if (p.aim !== "none") {
    const others = names().filter((n) => n !== data.who);
    const values = p.kind === "move" || p.kind === "damage" ? others : names();
    fill($("target"), values, p.aim === "optional" ? ["", "(no target)"] : null);
    if (fresh && p.aim !== "optional" && values.length) $("target").value = values[0];
  }
  const fields = $("fields");
  fields.replaceChildren();
  p.fields.forEach((f, i) => {
    const b = el("button", null, { type: "button", "data-field": f.key, "aria-pressed": String(i === p.active) });
    b.append(el("span", f.what, { class: "what" }), el("output", f.value || "\u2013", { class: "typed" }));
    b.addEventListener("click", () => { p.active = i; drawPanel(false); });
    fields.append(b);
  });
  $("pad").hidden = !p.fields.length;
  const active = p.fields[p.active];
  document.querySelector("[data-pad=',']").disabled = !(active && active.many);
  $("panel-roll").hidden = p.kind !== "move";
  $("panel-send").textContent = p.kind === "hold" ? "Hold for the GM" : p.kind === "move" ? "Declare with my dice" : "Propose to the GM";
}

function typeKey(key) {
  if (!panel || !panel.fields.length) return;
  const f = panel.fields[panel.active];
  if (key === "del") f.value = f.value.slice(0, -1);
  else if (key === ",") { if (f.value && !f.value.endsWith(",") && f.many) f.value += ","; }
  else if (f.value.length < 12) f.value += key;
  drawPanel(false);
}

const facesOf = (text) => text.split(",").filter((t) => t !== "").map(Number);

function request(withDice) {
  const p = panel;
  const target = $("target").value;
  if (p.kind === "hold") {
    const f = p.fields[0];
    if (!f.value) return say("Type the face first", true);
    return { type: "faces", key: f.key, faces: facesOf(f.value) };
  }
  if (p.kind === "move") {
    const command = { type: "declare", who: data.who, action: p.move };
    if (p.aim !== "none") {
      if (!target) return say("Pick the target first", true);
      command.target = target;
    }
    if (withDice) {
      const rolls = {};
      for (const f of p.fields) if (f.value) rolls[f.key] = facesOf(f.value);
      if (!Object.keys(rolls).length) return say("Type your dice first, or let skirmish roll them", true);
      command.rolls = rolls;
    }
    return command;
  }
  const number = (key) => { const f = p.fields.find((x) => x.key === key); return f && f.value ? Number(f.value) : null; };
  let command;
  if (p.kind === "damage") {
    if (number("amount") === null) return say("Type the damage first", true);
    command = { type: "damage", who: target, amount: number("amount") };
  } else if (p.kind === "effect") {
    command = { type: "effect", who: target, kind: $("effect").value };
    if (number("rounds") !== null) command.rounds = number("rounds");
  } else {
    command = { type: "declare", who: data.who, action: $("action").value };
    if (target) command.target = target;
  }
  return { type: "propose", command: command };
}

function proposal(kind) {
  const specs = {
    damage: { title: "Propose damage dealt", what: "The target, and the damage you dealt.", aim: "one",
      fields: [{ key: "amount", what: "Damage", value: "" }] },
    effect: { title: "Propose a condition", what: "Who, the condition, and for how many rounds (none: until ended).",
      aim: "one", fields: [{ key: "rounds", what: "Rounds", value: "" }] },
    declare: { title: "Propose an action", what: "The action, and its target if it has one.", aim: "optional", fields: [] },
  };
  open(Object.assign({ kind: kind }, specs[kind]));
}

// --- a tap: one typed request, its tap id, its answer ---------------------------------

function freshId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (x) => x.toString(16).padStart(2, "0")).join("");
}

async function send(withDice) {
  if (!panel || !data) return;
  const command = request(withDice);
  if (!command) return;
  const body = JSON.stringify({ command: command, branch: "", head: data.head, tap: freshId() });
  let answer;
  try {
    answer = await fetch("/player/run", {
      method: "POST", cache: "no-store",
      headers: { "Content-Type": "application/json", "X-Skirmish-Token": token }, body: body,
    });
  } catch (e) {
    say("The server cannot be reached (" + e + "); tap again", true);
    return;
  }
  if (answer.status === 403) { gone((await answer.text()).trim()); return; }
  const json = (answer.headers.get("content-type") || "").startsWith("application/json");
  const reply = json ? await answer.json() : null;
  if (!reply || !reply.result) { say(json ? "The server's answer is not one this page reads" : (await answer.text()).trim(), true); return; }
  const r = reply.result;
  if (r.kind === "refused") {
    say(r.error, true);
    if (r.code === 3) await read();  // decided on a board that has moved since: read it again
    return;
  }
  say((r.lines || []).join("\n"), false);
  close();
  await read();
}

function wire() {
  for (const key of ["1", "2", "3", "4", "5", "6", "7", "8", "9", ",", "0", "del"]) {
    const label = key === "del" ? "\u232b" : key === "," ? "next die" : key;
    const b = el("button", label, { type: "button", "data-pad": key, "aria-label": key === "del" ? "Delete" : key === "," ? "Next die" : key });
    b.addEventListener("click", () => typeKey(key));
    $("pad").append(b);
  }
  $("panel-off").addEventListener("click", close);
  $("panel-send").addEventListener("click", () => send(true));
  $("panel-roll").addEventListener("click", () => send(false));
  for (const b of document.querySelectorAll("[data-propose]")) b.addEventListener("click", () => proposal(b.dataset.propose));
  if (!token) { gone("This page needs a player's link, with its secret, as serve printed it."); return; }
  read();
  setInterval(read, POLL);
}

wire();
