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
  panel = Object.assign({ active: 0, aim: "none", targets: [], values: {} }, spec);
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
  $("pick-action").hidden = p.kind !== "declare" && p.kind !== "own";
  $("pick-effect").hidden = p.kind !== "effect";
  $("pick-target").hidden = p.aim === "none";
  if (p.kind === "declare" || p.kind === "own") fill($("action"), data.actions.map((a) => ({ value: a.name, text: a.name + (a.cost ? " (" + a.cost + ")" : "") })));
  if (p.kind === "own") {
    p.aim = takes(p).includes("target") ? "optional" : "none";
    $("pick-target").hidden = p.aim === "none";
    if (fresh || p.built !== $("action").value) drawDetails();
  } else {
    $("details").replaceChildren();
    $("panel-why").hidden = true;
  }
  if (p.kind === "effect") fill($("effect"), data.effects.map((e) => e.name));
  $("pick-targets").hidden = p.aim !== "several";
  if (p.aim === "several") {
    $("pick-target").hidden = true;
    drawTargets();
  } else if (p.aim !== "none") {
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
  $("panel-roll").hidden = p.kind !== "move" && p.kind !== "own";
  $("panel-send").textContent = p.kind === "hold" ? "Hold for the GM" : p.kind === "move" || p.kind === "own" ? "Declare with my dice" : "Propose to the GM";
}

// --- an action of the rules: its inputs as the ruleset declares them, its dice as it rolls them

// The declare inputs the action picked reads (the ruleset's ``takes``; null: every one), in
// the order it names them; the rest of the ruleset's are not asked.
function takes(p) {
  const action = data.actions.find((a) => a.name === $("action").value);
  const all = data.details.map((d) => d.key).concat(["target"]);
  return action && action.takes ? action.takes.filter((k) => all.includes(k)) : all;
}

const SHOWN_FIRST = 3;  // inputs shown before "More": the action's first (an attack's bonus, damage, type)

function drawDetails() {
  const p = panel;
  p.built = $("action").value;
  const box = $("details");
  box.replaceChildren();
  const asked = takes(p).filter((k) => k !== "target").map((k) => data.details.find((d) => d.key === k)).filter(Boolean);
  let into = box;
  asked.forEach((d, i) => {
    if (i === SHOWN_FIRST) {
      const more = el("details");
      more.append(el("summary", "More (" + asked.slice(SHOWN_FIRST).map((x) => x.label).join(", ") + ")"));
      box.append(more);
      into = more;
    }
    const label = el("label", null, { class: "detail" });
    label.append(el("span", d.label, { class: "what" }), el("span", d.doc, { class: "doc" }));
    let control;
    if (d.kind === "choice") {
      control = el("select", null, { "data-detail": d.key });
      control.append(el("option", "(none)", { value: "" }), ...d.choices.map((c) => el("option", c, { value: c })));
    } else if (d.kind === "switch") {
      control = el("select", null, { "data-detail": d.key });
      control.append(el("option", "no", { value: "" }), el("option", d.choices[0] || "yes", { value: d.choices[0] || "yes" }));
    } else {
      control = el("input", null, { "data-detail": d.key, autocomplete: "off", inputmode: d.kind === "number" ? "numeric" : "text" });
    }
    control.value = p.values[d.key] || "";
    control.addEventListener(control.tagName === "SELECT" ? "change" : "input", () => { p.values[d.key] = control.value; askDice(); });
    label.append(control);
    into.append(label);
  });
  askDice();
}

// The declare as it would be sent, without dice: what the server is asked the dice of.
function ownCommand() {
  const p = panel;
  const command = { type: "declare", who: data.who, action: $("action").value };
  const target = p.aim === "none" ? "" : $("target").value;
  if (target) command.target = target;
  for (const key of takes(p)) {
    const d = data.details.find((x) => x.key === key);
    const value = (p.values[key] || "").trim();
    if (!d || !value) continue;
    if (d.goes === "detail") (command.details = command.details || {})[key] = value;
    else command[key] = d.kind === "number" && /^-?\d+$/.test(value) ? Number(value) : value;
  }
  return command;
}

// Which dice keys the declare rolls, as the ruleset decides it (the server's /player/dice,
// nothing recorded): each a field for the pad, the faces typed kept by key.
let asking = 0;
function askDice() {
  const mine = ++asking;
  setTimeout(async () => {
    if (mine !== asking || !panel || panel.kind !== "own") return;
    const p = panel;
    let reply;
    try {
      const answer = await fetch("/player/dice", {
        method: "POST", cache: "no-store",
        headers: { "Content-Type": "application/json", "X-Skirmish-Token": token },
        body: JSON.stringify({ command: ownCommand() }),
      });
      if (answer.status === 403) { gone((await answer.text()).trim()); return; }
      reply = await answer.json();
    } catch (e) {
      reply = { rolls: [], error: "The server cannot be reached (" + e + ")" };
    }
    if (mine !== asking || panel !== p) return;
    const typed = Object.fromEntries(p.fields.map((f) => [f.key, f.value]));
    p.fields = reply.rolls.map((k) => ({ key: k.key, what: k.what + " (" + k.key + ")", value: typed[k.key] || "", many: true }));
    p.active = Math.min(p.active, Math.max(0, p.fields.length - 1));
    $("panel-why").hidden = !reply.error;
    $("panel-why").textContent = reply.error;
    drawPanel(false);
  }, 200);
}

// Several targets (a breath, a spell): a button each, tapped on and off, in the board's order.
function drawTargets() {
  const p = panel;
  const others = names().filter((n) => n !== data.who);
  p.targets = p.targets.filter((n) => others.includes(n));
  $("targets").replaceChildren(...others.map((n) => {
    const on = p.targets.includes(n);
    const b = el("button", n, { type: "button", "data-target": n, "aria-pressed": String(on) });
    b.addEventListener("click", () => {
      p.targets = on ? p.targets.filter((x) => x !== n) : others.filter((x) => x === n || p.targets.includes(x));
      drawPanel(false);
    });
    return b;
  }));
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
  if (p.kind === "move" || p.kind === "own") {
    const command = p.kind === "own" ? ownCommand() : { type: "declare", who: data.who, action: p.move };
    if (p.kind === "move" && p.aim === "several") {
      if (!p.targets.length) return say("Tap its targets first", true);
      command.target = p.targets.join("+");
    } else if (p.kind === "move" && p.aim !== "none") {
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
  $("own-action").addEventListener("click", () => open({
    kind: "own", title: "An action of the rules", what: "The action, what it reads, its target; then your dice on the pad.", fields: [],
  }));
  $("action").addEventListener("change", () => { if (panel && panel.kind === "own") drawPanel(false); });
  $("target").addEventListener("change", () => { if (panel && panel.kind === "own") askDice(); });
  if (!token) { gone("This page needs a player's link, with its secret, as serve printed it."); return; }
  read();
  setInterval(read, POLL);
}

wire();
