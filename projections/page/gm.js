// The GM's page of `skirmish serve`: the board, and every command by taps. Each tap posts
// the words of the command line it stands for; the server runs them as the console runs a
// typed line (cli/gm_server.py). Every text of the log is set with textContent. The forms
// are made from the ruleset's declared inputs: no ruleset is named here.
"use strict";
(function () {
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

  let inputs = null, frame = null, timeline = [], chosen = "", amount = "", stream = null;

  function problem(text) {
    $("problem").hidden = !text;
    $("problem").textContent = text || "";
  }

  function show(reply) {
    const box = $("reply");
    box.classList.toggle("refused", reply.code !== 0);
    box.textContent = (reply.code === 0 ? reply.out : reply.err).trim();
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
    if (frame && next.seq <= frame.seq) return;
    const t = next.timeline;
    if (t.after === null) {
      timeline = t.events.slice();
    } else {
      const at = timeline.findIndex((e) => e[0] === t.after);
      if (at < 0) { load(); return; }  // a gap: read the board and timeline again
      timeline = timeline.slice(0, at + 1).concat(t.events);
    }
    frame = next;
    render();
  }

  function bar(vital) {
    if (!vital || vital.maximum === null || vital.maximum === undefined || typeof vital.value !== "number") {
      return vital ? String(vital.value) : "";
    }
    const cells = 10, full = Math.max(0, Math.min(cells, Math.round(cells * vital.value / Math.max(1, vital.maximum))));
    return "#".repeat(full) + ".".repeat(cells - full) + " " + vital.value + "/" + vital.maximum;
  }

  // The moment as the state's first line says it (text/board.py clock_label and who_acts),
  // in sentences: "Round 1, count 35. Now: Hauser. Next: Orc."; nobody acting, no "Now";
  // a round under way with nobody after, "Next: the end of the round."
  function clockLine(c) {
    let label = c.moment || "before the first " + c.unit;
    if (c.round !== 0) {
      const numbered = c.unit + " " + c.round;
      label = new RegExp("(^|[^A-Za-z0-9_])" + numbered + "($|[^A-Za-z0-9_])").test(c.moment.toLowerCase())
        ? c.moment : numbered + (c.moment ? ", " + c.moment : "");
    }
    let line = label.charAt(0).toUpperCase() + label.slice(1) + ".";
    if (c.now && c.now.length) line += " Now: " + c.now.join(", ") + ".";
    if (c.next && c.next.length) line += " Next: " + c.next.join(", ") + ".";
    else if (c.running) line += " Next: the end of the " + c.unit + ".";
    return line;
  }

  function render() {
    const b = frame.board;
    $("where").textContent = b.encounter + " (" + b.ruleset + "), branch " + b.branch + ", #" + b.head;
    $("clock").textContent = clockLine(b.clock);
    const order = $("order");
    order.replaceChildren();
    for (const f of b.combatants) {
      const li = el("li", null, { class: f.status + (f.acting ? " acting" : "") + (f.name === chosen ? " chosen" : "") });
      const button = el("button", null, { type: "button", "aria-pressed": String(f.name === chosen) });
      const head = el("div");
      head.append(el("span", (f.acting ? "> " : "") + f.name, { class: "name" }), el("span", " (" + f.side + ", " + f.status + ")"));
      button.append(head);
      if (f.vital) {
        button.append(el("div", f.vital.name + ": " + bar(f.vital), { class: "bar" }));
        if (typeof f.vital.maximum === "number" && f.vital.maximum > 0) {
          const p = el("progress", null, { max: String(f.vital.maximum), value: String(Math.max(0, f.vital.value)), "aria-hidden": "true" });
          button.append(p);
        }
      }
      if (f.budget) button.append(el("div", f.budget.name + ": " + f.budget.left + (f.budget.of !== null ? " of " + f.budget.of : "")));
      if (f.effects && f.effects.length) {
        button.append(el("div", "Effects: " + f.effects.map((e) => e.kind + (e.custom ? " (GM's own)" : "") +
          (e.left !== null && e.left !== undefined ? " " + e.left : "") + (e.detail ? " " + e.detail : "")).join("; ")));
      }
      button.addEventListener("click", () => choose(f.name));
      li.append(button);
      order.append(li);
    }
    const pending = $("pending");
    pending.replaceChildren();
    for (const p of b.pending) {
      pending.append(el("li", p.who + ": " + p.action + (p.target ? " at " + p.target : "") +
        (p.resolves !== null && p.resolves !== undefined ? ", resolves " + p.resolves : "")));
    }
    if (!b.pending.length) pending.append(el("li", "none"));
    $("undo").textContent = frame.undo ? "Undo: " + frame.undo : "Undo";
    $("undo").disabled = !frame.undo;
    $("redo").textContent = frame.redo ? "Redo: " + frame.redo : "Redo";
    $("redo").disabled = !frame.redo;
    const branches = $("branches");
    branches.replaceChildren();
    for (const [name, head] of frame.branches) {
      const li = el("li");
      li.append(el("span", name + " at #" + head + (name === b.branch ? " (playing)" : "")));
      const go = el("button", "Switch to " + name, { type: "button" });
      go.disabled = name === b.branch;
      go.addEventListener("click", () => send(["switch", name]));
      li.append(go);
      branches.append(li);
    }
    const list = $("timeline");
    list.replaceChildren();
    for (const [id, text] of timeline.slice().reverse()) {
      const li = el("li");
      const explain = el("button", "#" + id, { type: "button", "aria-label": "Explain event " + id });
      explain.addEventListener("click", () => send(["explain", String(id)]));
      // Step back: a what-if from this event (the branch form, filled; the GM names it).
      const fork = el("button", "Branch here", { type: "button", "aria-label": "Branch from event " + id });
      fork.addEventListener("click", () => {
        $("branching").open = true;
        $("fork").elements.at.value = String(id);
        $("fork").elements.name.focus();
      });
      li.append(explain, el("span", text), fork);
      list.append(li);
    }
    const names = b.combatants.map((f) => f.name);
    for (const select of document.querySelectorAll("select[data-names]")) {
      const was = select.value;
      select.replaceChildren(...(select.dataset.names === "optional" ? [el("option", "(none)", { value: "" })] : []),
        ...names.map((n) => el("option", n, { value: n })));
      select.value = names.includes(was) ? was : (select.dataset.names === "optional" ? "" : (chosen || names[0] || ""));
    }
    $("who").hidden = !chosen || !names.includes(chosen);
    const picked = b.combatants.find((f) => f.name === chosen);
    $("who-name").textContent = picked && picked.vital ? chosen + ": " + picked.vital.name + " " + bar(picked.vital) : chosen;
  }

  function choose(name) {
    chosen = chosen === name ? "" : name;
    amount = "";
    $("amount").textContent = "0";
    for (const select of document.querySelectorAll("select[data-names='who']")) if (chosen) select.value = chosen;
    render();
    // On a phone the pad is under the board: bring it to the thumb (on a laptop it is in view).
    if (chosen) $("who").scrollIntoView({ block: "nearest" });
  }

  async function send(words) {
    document.body.dataset.busy = "1";
    try {
      return await post(words);
    } finally {
      document.body.dataset.busy = "0";
    }
  }

  async function post(words) {
    if (!frame) return false;
    let answer;
    try {
      answer = await fetch("/gm/run", {
        method: "POST", cache: "no-store",
        headers: { "Content-Type": "application/json", "X-Skirmish-Token": token },
        body: JSON.stringify({ words: words, branch: frame.board.branch, head: frame.board.head }),
      });
    } catch (e) {
      show({ code: 1, out: "", err: "Error: the server cannot be reached (" + e + ")" });
      return false;
    }
    if (answer.status === 403) {
      show({ code: 1, out: "", err: "Error: " + (await answer.text()).trim() });
      return false;
    }
    const reply = await answer.json();
    if (reply.frame) apply(reply.frame);
    show(reply);
    return reply.code === 0;
  }

  // --- the forms, from what the ruleset declares ------------------------------------------
  // The GM's dice as typed: KEY=FACES items, a key may hold spaces ("Goblin 2=17 dmg:Goblin 2=3",
  // "Hauser=6,8 Orc=5,5"). What is not such an item goes to the server as it is, which
  // refuses it in the command line's own words.
  function rollWords(text) {
    const item = /\s*([^=;]+?)\s*=\s*(\d+(?:\s*,\s*\d+)*)\s*;?/g;
    const out = [];
    for (const m of text.matchAll(item)) out.push("--roll", m[1] + "=" + m[2].replace(/\s+/g, ""));
    if (text.replace(item, "").trim()) out.push("--roll", text.trim());
    return out;
  }

  // A form whose words are a combatant and an amount is the number pad's (damage, heal):
  // its fields are set under the pad, as taps (a choice of the ruleset's list, a switch).
  const onPad = (f) => f.arguments.length === 2 && f.arguments[0] === "who" && f.arguments[1] === "amount";
  const padOptions = {};

  // One field of a form, or of the pad, made for taps: a box to tick for a switch or a
  // detail of one value ("yes"), a list to pick from for a detail's choices or a target,
  // else a box to type in.
  function field(f, prefix) {
    const name = f.flag === "--with" ? f.key : f.flag.replace(/^--/, "");
    const label = el("label", prefix ? prefix + ": " + name : name);
    label.title = f.doc;
    const one = f.flag === "--with" && f.choices && f.choices.length === 1;
    let input;
    if (f.kind === "switch" || one) {
      input = el("input", null, { type: "checkbox" });
      label.classList.add("tick");
      label.prepend(input);
    } else if (f.flag === "--target") {
      input = el("select", null, { "data-names": "optional" });
      label.append(input);
    } else if (f.choices && f.choices.length) {
      input = el("select");
      input.append(el("option", "(none)", { value: "" }), ...f.choices.map((c) => el("option", c, { value: c })));
      label.append(input);
    } else {
      input = el("input", null, { autocomplete: "off" });
      if (f.kind === "number") input.setAttribute("inputmode", "numeric");
      label.append(input);
    }
    input.dataset.flag = f.flag === "--with" ? "--with " + f.key : f.flag;
    const words = () => {
      if (input.type === "checkbox") {
        if (!input.checked) return [];
        return one ? ["--with", f.key + "=" + f.choices[0]] : [f.flag];
      }
      const v = input.value.trim();
      if (!v) return [];
      return f.flag === "--with" ? ["--with", f.key + "=" + v] : [f.flag, v];
    };
    // After a write the fields are emptied, a target too: the next declaration names its own.
    const reset = () => { if (input.type === "checkbox") input.checked = false; else input.value = ""; };
    return { label, words, reset };
  }

  function makePad() {
    const box = $("pad-options");
    box.replaceChildren();
    for (const f of inputs.forms.filter(onPad)) {
      const made = f.fields.map((spec) => field(spec, f.command));
      padOptions[f.command] = made;
      if (!made.length) continue;
      const set = el("fieldset", null, { "data-pad": f.command });
      set.append(el("legend", f.command + " options"), ...made.map((m) => m.label));
      box.append(set);
    }
  }

  function makeForms() {
    makePad();
    const box = $("forms");
    box.replaceChildren();
    for (const f of inputs.forms) {
      if (f.command === "next" || onPad(f)) continue;
      const form = el("form", null, { "data-command": f.command });
      const set = el("fieldset");
      set.append(el("legend", f.command));
      const parts = [];
      for (const arg of f.arguments) {
        const label = el("label", arg === "kind" ? "effect" : arg);
        let input;
        if (arg === "who") {
          input = el("select", null, { "data-names": "who", name: "who" });
        } else if (arg === "action") {
          input = el("select", null, { name: "action" });
          for (const a of inputs.actions) input.append(el("option", a.name + " (" + a.cost + ")", { value: a.name }));
        } else {
          input = el("input", null, { name: arg, list: "effects-" + f.command, autocomplete: "off" });
          const list = el("datalist", null, { id: "effects-" + f.command });
          for (const e of inputs.effects) list.append(el("option", e.doc, { value: e.name }));
          label.append(list);
        }
        label.append(input);
        set.append(label);
        parts.push({ words: () => [input.value.trim()], reset: () => { if (input.tagName === "INPUT") input.value = ""; } });
      }
      for (const spec of f.fields) {
        const made = field(spec, "");
        set.append(made.label);
        parts.push(made);
      }
      if (f.dice) {
        const label = el("label", "the GM's dice (KEY=FACES, e.g. " + (f.command === "round" ? "NAME=6,8" : "KEY=7") + ")", { class: "wide" });
        const input = el("input", null, { autocomplete: "off", name: "dice", "data-flag": "--roll" });
        label.append(input);
        set.append(label);
        parts.push({
          words: () => rollWords(input.value),
          reset: () => { input.value = ""; },
        });
      }
      set.append(el("button", f.command, { type: "submit", class: "wide" }));
      form.append(set);
      form.addEventListener("submit", async (e) => {
        e.preventDefault();
        const words = [f.command].concat(...parts.map((p) => p.words()));
        if (await send(words)) parts.forEach((p, i) => { if (i >= f.arguments.length) p.reset(); });
      });
      box.append(form);
    }
    render();
  }

  // --- a shell's words: 'quoted', "quoted" and bare, as the command line splits them ------
  function split(line) {
    const words = [];
    let word = null, quote = "";
    for (let i = 0; i < line.length; i++) {
      const ch = line[i];
      if (quote) {
        if (ch === quote) quote = "";
        else if (ch === "\\" && quote === '"' && i + 1 < line.length) word += line[++i];
        else word += ch;
      } else if (ch === "'" || ch === '"') {
        quote = ch; word = word === null ? "" : word;
      } else if (/\s/.test(ch)) {
        if (word !== null) { words.push(word); word = null; }
      } else if (ch === "\\" && i + 1 < line.length) {
        word = (word === null ? "" : word) + line[++i];
      } else {
        word = (word === null ? "" : word) + ch;
      }
    }
    if (quote) return null;
    if (word !== null) words.push(word);
    return words;
  }

  function wire() {
    $("next").addEventListener("click", () => send(["next"]));
    $("undo").addEventListener("click", () => send(["undo"]));
    $("redo").addEventListener("click", () => send(["redo"]));
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
    const withAmount = (verb) => async () => {
      if (!chosen || !amount) { show({ code: 2, out: "", err: "Error: tap a combatant and an amount first" }); return; }
      const options = padOptions[verb] || [];
      const words = [verb, chosen, amount].concat(...options.map((o) => o.words()));
      if (await send(words)) {
        amount = "";
        $("amount").textContent = "0";
        options.forEach((o) => o.reset());
      }
    };
    $("damage").addEventListener("click", withAmount("damage"));
    $("heal").addEventListener("click", withAmount("heal"));
    $("leave").addEventListener("click", () => chosen && send(["leave", chosen]));
    $("return").addEventListener("click", () => chosen && send(["return", chosen]));
    $("why").addEventListener("click", () => chosen && send(["why", chosen]));  // the events behind its figures
    $("fork").addEventListener("submit", async (e) => {
      e.preventDefault();
      const form = e.target;
      const words = ["branch", form.elements.name.value.trim()];
      if (form.elements.at.value.trim()) words.push("--at", form.elements.at.value.trim());
      if (await send(words)) form.reset();
    });
    $("line").addEventListener("submit", async (e) => {
      e.preventDefault();
      const line = $("command").value;
      const words = split(line.replace(/^\s*skirmish\s+/, ""));
      if (words === null) { show({ code: 2, out: "", err: "Error: a quote is not closed" }); return; }
      if (!words.length) return;
      if (await send(words)) $("command").value = "";
    });
    document.addEventListener("keydown", (e) => {
      const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement ? document.activeElement.tagName : "");
      if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "n") { e.preventDefault(); send(["next"]); }
      else if (e.key === "u") { e.preventDefault(); send(["undo"]); }
      else if (e.key === "r") { e.preventDefault(); send(["redo"]); }
      else if (e.key === "/") { e.preventDefault(); $("command").focus(); }
    });
  }

  wire();
  load();
})();
