// The replay page's fold and the pages' words (projections/page/fold.mjs), by Node's own
// runner: `node --test tests/js/` (tests/js/test_node.py runs it under pytest). Every
// expected value is worked by hand from the wire format (docs/wire-schema.json).
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  ENTRY, actsText, applyEvent, bar, clockText, emptyBoard, explanationText, faces, figure, pendingText, readData,
  readEvents, walk, whole,
} from "../../projections/page/fold.mjs";

const orc = { n: "Orc", s: "foes", st: "up", a: 0, vn: "hits", v: 12, vm: 12, bn: "ap", bl: null, bo: null, e: [] };
const hauser = { n: "Hauser", s: "players", st: "up", a: 1, vn: "hits", v: 20, vm: 20, bn: "ap", bl: 3, bo: 5, e: [] };

// Five events: 1 Orc joins, 2 Hauser joins, 3 Hauser hits Orc for 5, 4 (a what-if off 2)
// Hauser hits Orc for 9, 5 (after 3) Orc heals 2. Ids and commands are steps from the
// entry before's; ``back`` is how far back the parent is.
function fight() {
  return {
    format: 1, audience: "gm", encounter: "Bridge", current: "main",
    branches: [{ name: "main", head: 5, split: null, from: null }, { name: "what-if", head: 4, split: 2, from: "main" }],
    strings: ["Orc joins", "Hauser joins", "hit: 14 vs AC 13", " (rolled)", "d20=11", "+3", "Hauser hits Orc",
              "Hauser hits Orc hard", "Orc heals"],
    commands: { 1: "add Orc", 2: "add Hauser", 3: "damage Orc 5 --by Hauser", 4: "damage Orc 9 --by Hauser",
                5: "heal Orc 2" },
    events: [
      [1, null, 1, 0, { k: { r: 0, l: "before the first round", now: [], next: [], end: "" }, o: ["0"], c: { 0: orc },
                        p: [], w: {} }, 0],
      [1, 1, 1, 1, { o: ["0", "1"], c: { 1: hauser } }, 0],
      [1, 1, 1, 6, { c: { 0: { v: 7 } }, p: [["Hauser", "melee-attack", "Orc", "15"]] }, [2, [3, 4, 5]], ["0", 5, "1"]],
      [1, 2, 1, 7, { c: { 0: { v: 3, st: "hurt" } } }, 0, ["0", 9, "1"]],
      [1, 2, 1, 8, { c: { 0: { v: 9 } }, p: [] }, 0, ["0", 2, null, 1]],
    ],
    notes: {}, summarised: null, unit: "hits",
  };
}

test("the entries' ids, parents and commands are read back from their steps", () => {
  const data = fight();
  const byId = readEvents(new Map(), data.events, data.strings, true, { id: 0, cmd: 0 });
  assert.deepEqual([...byId.keys()], [1, 2, 3, 4, 5]);
  assert.deepEqual([...byId.values()].map((e) => [e.parent, e.cmd, e.text]),
    [[null, 1, "Orc joins"], [1, 2, "Hauser joins"], [2, 3, "Hauser hits Orc"], [2, 4, "Hauser hits Orc hard"],
     [3, 5, "Orc heals"]]);
  assert.deepEqual(byId.get(3).h, ["0", 5, "1", 0]);
  assert.deepEqual(byId.get(5).h, ["0", 2, null, 1]);
  // The players' page holds no command: its steps are not read.
  const theirs = readEvents(new Map(), data.events, data.strings, false, { id: 0, cmd: 0 });
  assert.equal(theirs.get(5).cmd, 0);
});

test("a change's entries go on from the last entry read", () => {
  const data = fight(), last = { id: 0, cmd: 0 }, byId = new Map();
  readEvents(byId, data.events.slice(0, 3), data.strings, true, last);
  assert.deepEqual(last, { id: 3, cmd: 3 });
  readEvents(byId, data.events.slice(3), data.strings, true, last);
  assert.deepEqual(last, { id: 5, cmd: 5 });
  assert.equal(byId.get(5).parent, 3);
});

test("a branch's path walks from its head to the root", () => {
  const page = readData(fight());
  assert.deepEqual(page.path("main").map((e) => e.id), [1, 2, 3, 5]);
  assert.deepEqual(page.path("what-if").map((e) => e.id), [1, 2, 4]);
  assert.deepEqual(walk(page.byId, 99), []);
});

test("the deltas fold to the board at any moment of the main branch", () => {
  const page = readData(fight());
  const first = page.board("main", 0);
  assert.deepEqual(first.o, ["0"]);
  assert.deepEqual(first.c, { 0: orc });
  assert.equal(first.k.l, "before the first round");
  const hit = page.board("main", 2);
  assert.deepEqual(hit.o, ["0", "1"]);
  assert.deepEqual(hit.c[0], { ...orc, v: 7 }); // a combatant's delta changes its keys, keeps the rest
  assert.deepEqual(hit.c[1], hauser);
  assert.deepEqual(hit.p, [["Hauser", "melee-attack", "Orc", "15"]]);
  assert.deepEqual([hit.taken, hit.dealt], [{ 0: 5 }, { 1: 5 }]);
  const end = page.board("main");
  assert.equal(end.c[0].v, 9);
  assert.deepEqual(end.p, []); // the pending list comes whole
  assert.deepEqual([end.taken, end.dealt], [{ 0: 5 }, { 1: 5 }]); // a heal is no damage
  assert.deepEqual([end.start, end.start2], [{ 0: 12, 1: 20 }, {}]);
  assert.equal(end.k.l, "before the first round"); // no delta touched the clock
});

test("a switch to another branch folds its own path: what the main line did is not on it", () => {
  const page = readData(fight());
  const whatIf = page.board("what-if");
  assert.deepEqual(whatIf.c[0], { ...orc, v: 3, st: "hurt" });
  assert.deepEqual(whatIf.p, []);
  assert.deepEqual([whatIf.taken, whatIf.dealt], [{ 0: 9 }, { 1: 9 }]);
  assert.deepEqual(page.board("no such branch").c[0].v, 9); // an unknown name: the current branch
});

test("an undo moves the head back: the board is the one before the events undone", () => {
  const data = fight();
  data.branches[0].head = 3;
  const board = readData(data).board("main");
  assert.equal(board.c[0].v, 7);
  assert.deepEqual(board.taken, { 0: 5 });
});

test("folding on from a copy leaves the board it was copied from as it was", () => {
  const page = readData(fight()), path = page.path("main");
  const st = emptyBoard(null, path[0]);
  for (const ev of path.slice(0, 2)) applyEvent(st, ev);
  const before = JSON.parse(JSON.stringify(st));
  applyEvent(JSON.parse(JSON.stringify(st)), path[2]);
  assert.deepEqual(st, before);
});

test("a summarised page's path starts from the damage totals before it, by name", () => {
  const summarised = { before: 10, bases: { 10: { dealt: { Hauser: 4 }, taken: { Orc: 4 } } } };
  const st = emptyBoard(summarised, { id: 10 });
  assert.deepEqual([st.dealt, st.taken], [{ "@Hauser": 4 }, { "@Orc": 4 }]);
  assert.deepEqual(emptyBoard(summarised, { id: 11 }).dealt, {}); // a path that starts past the cut
});

test("an explanation: its lines, the numbers as recorded joined, the GM's command first", () => {
  const data = fight(), page = readData(data), hit = page.byId.get(3);
  assert.equal(explanationText(hit, data.strings, null), "hit: 14 vs AC 13\nas recorded: d20=11, +3 (rolled)");
  assert.equal(explanationText(hit, data.strings, data.commands),
    "command: damage Orc 5 --by Hauser\nhit: 14 vs AC 13\nas recorded: d20=11, +3 (rolled)");
  assert.equal(explanationText(page.byId.get(1), data.strings, data.commands), ""); // 0: nothing to explain
  assert.equal(explanationText({ ...hit, cmd: 42 }, data.strings, data.commands).split("\n")[0], "command: ?");
});

test("the clock's words", () => {
  const k = { l: "round 1, count 35", now: ["Hauser"], next: [], end: "the end of the round" };
  assert.equal(clockText(k, null), "round 1, count 35");
  assert.equal(clockText(k, ""), "ENDED; round 1, count 35");
  assert.equal(clockText(k, "the orcs fled"), "ENDED (the orcs fled); round 1, count 35");
  assert.equal(actsText(k), "now: Hauser; next: the end of the round");
  assert.equal(actsText({ now: ["A", "B"], next: ["C"], end: "" }), "now: A, B; next: C");
  assert.equal(actsText({}), "now: -; next: -");
});

test("a pending action and a figure", () => {
  assert.equal(pendingText(["Hauser", "melee-attack", "Orc", "15"]), "Hauser: melee-attack on Orc (15)");
  assert.equal(pendingText(["Hauser", "dodge", null, ""]), "Hauser: dodge");
  assert.equal(figure(7, 12), "7/12");
  assert.equal(figure(7, null), "7");
  assert.equal(figure("bloodied", undefined), "bloodied");
});

test("a gauge's bar: ten cells filled to the nearest, within the bar", () => {
  assert.equal(bar({ value: 5, maximum: 20 }), "###....... 5/20"); // 2.5 cells rounds up
  assert.equal(bar({ value: 20, maximum: 20 }), "########## 20/20");
  assert.equal(bar({ value: 25, maximum: 20 }), "########## 25/20");
  assert.equal(bar({ value: -4, maximum: 10 }), ".......... -4/10");
  assert.equal(bar({ value: 3, maximum: 0 }), "########## 3/0"); // no zero division: out of at least 1
  assert.equal(bar({ value: "bloodied", maximum: null }), "bloodied");
  assert.equal(bar({ value: 8, maximum: null }), "8");
  assert.equal(bar(null), "");
});

test("the dice faces typed: numbers, else a refusal that says what was typed", () => {
  assert.deepEqual(faces("6,8", "Drake"), [6, 8]);
  assert.deepEqual(faces(" 4 , 5 ", "dmg:Drake"), [4, 5]);
  assert.deepEqual(faces("20", "Drake"), [20]);
  for (const typed of ["6;8", "d20", "6,", "-1", "2.5"]) {
    assert.throws(() => faces(typed, "Drake"), (e) => e.refusal === true &&
      e.message === `the dice of Drake take faces as numbers, e.g. 6,8; not "${typed.trim()}"`);
  }
});

test("a whole number typed, signed or not, else a refusal", () => {
  assert.equal(whole(" 12 ", "at event"), 12);
  assert.equal(whole("-3", "amount"), -3);
  assert.equal(whole("+3", "amount"), 3);
  assert.throws(() => whole("3.5", "at event"), (e) => e.refusal && e.message === 'at event takes a whole number, not "3.5"');
  assert.throws(() => whole("", "at event"), (e) => e.refusal && e.message === 'at event takes a whole number, not ""');
});

test("an entry's positions", () => {
  assert.deepEqual(Object.keys(ENTRY), ["id", "back", "command", "narration", "view", "explanation", "damage"]);
  assert.deepEqual(Object.values(ENTRY), [0, 1, 2, 3, 4, 5, 6]);
});
