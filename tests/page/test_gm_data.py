"""The GM's page makes its forms from the typed commands and what each ruleset declares
(projections/page/gm_data.py), so a ruleset added later, like the duel of tests/toy/, gets
its forms for free, and the page's own code names no ruleset and builds no command line:
every form, filled, is a request the door decodes (projections/door/requests.py)."""

from __future__ import annotations

import shlex
from importlib.resources import files
from pathlib import Path
from typing import Any

import msgspec
import pytest

from skirmish.eventlog import commands as c
from skirmish.projections.door import requests as r
from skirmish.projections.door.words import parse
from skirmish.projections.page.gm_data import FORMS, Field, Form, Inputs, inputs
from skirmish.projections.page.gm_lines import board_lines, clock_line
from skirmish.projections.ruleset import get_ruleset, optional_fields, registry
from skirmish.projections.view import Clock

RULESETS = sorted(registry())
ROOT = Path(__file__).resolve().parents[2]


def forms_of(ruleset_id: str) -> dict[str, Form]:
    return {f.type: f for f in inputs(get_ruleset(ruleset_id)).forms}


def test_the_toy_ruleset_is_among_them() -> None:
    assert "duel" in RULESETS  # tests/conftest.py installs it as a third party's would be


def test_the_inputs_are_data_the_page_reads_as_json() -> None:
    made = inputs(get_ruleset("srd-5.2"))
    assert msgspec.json.decode(msgspec.json.encode(made), type=Inputs) == made
    assert made.reads == ("explain", "why", "diff", "verify", "state", "log", "branches")


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_flag_detail_stat_action_and_effect_declared_is_on_the_page(ruleset_id: str) -> None:
    ruleset: Any = get_ruleset(ruleset_id)
    made = inputs(ruleset)
    forms = {form.type: form for form in made.forms}
    assert set(forms) == set(FORMS)
    for name, flag in ruleset.flags.items():
        for command in flag.commands:
            if command in forms:
                kind = r.TAGS[command]
                goes = "field" if name in kind.__struct_fields__ else "detail"  # a flag of its own travels in details
                assert (name, goes) in [(f.key, f.goes) for f in forms[command].fields], (command, name)
    for key, detail in ruleset.details.items():
        for command in detail.commands:
            if command in forms:
                assert (key, "detail") in [(f.key, f.goes) for f in forms[command].fields], (command, key)
    for form in ("add", "set"):
        assert [f.key for f in forms[form].fields if f.goes == "stat"] == list(ruleset.stats)
    assert [a.name for a in made.actions] == list(ruleset.actions)
    assert [a.cost for a in made.actions] == [info.cost for info in ruleset.actions.values()]
    assert [e.name for e in made.effects] == list(ruleset.effects)
    # the GM's own effect, in every ruleset (docs/tutorial.md, Effects)
    assert ("custom", "switch") in [(f.key, f.kind) for f in forms["effect"].fields]


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_shared_flag_the_ruleset_does_not_read_is_not_asked(ruleset_id: str) -> None:
    ruleset: Any = get_ruleset(ruleset_id)
    for form in inputs(ruleset).forms:
        kind = r.TAGS[form.type]
        if not issubclass(kind, c.AtTheTable):
            continue
        asked = {f.key for f in form.fields if f.goes == "field"}
        for name, _ in optional_fields(kind):
            declared = name in ruleset.flags and form.type in ruleset.flags[name].commands
            assert (name in asked) == declared, (form.type, name)


def test_shared_flags_take_their_fields_kind() -> None:
    """hits is a number (Resolve.hits: int | None), end a switch (bool), outcome text."""
    forms = forms_of("ap-countdown")
    resolve = {f.key: f.kind for f in forms["resolve"].fields}
    effect = {f.key: f.kind for f in forms["effect"].fields}
    assert (resolve["hits"], resolve["outcome"], effect["end"]) == ("number", "text", "switch")
    assert next(f for f in forms["resolve"].fields if f.key == "charge").label == "charge"  # `--charge`, a flag of its own


@pytest.mark.parametrize("ruleset_id", ["ap-countdown", "crisis"])
def test_ap_is_a_number_of_the_rulesets_own_that_travels_in_details(ruleset_id: str) -> None:
    """--ap is no field of declare: each ruleset that reads it declares it, an int."""
    ap = [f for f in forms_of(ruleset_id)["declare"].fields if f.key == "ap"]
    assert [(f.goes, f.kind, f.label) for f in ap] == [("detail", "number", "ap")]
    assert ap[0].doc == get_ruleset(ruleset_id).flags["ap"].doc


def test_what_names_a_combatant_an_action_or_an_effect_is_picked() -> None:
    forms = forms_of("srd-5.2")
    pickers = {(form, f.key or f.goes): f.picker for form, spec in forms.items() for f in spec.fields if f.picker}
    assert pickers[("declare", "who")] == pickers[("declare", "target")] == "combatant"
    assert pickers[("declare", "roll")] == "combatant"  # whose dice
    assert pickers[("declare", "action")] == "action"
    assert pickers[("effect", "kind")] == "effect"
    assert pickers[("note", "on")] == pickers[("roll", "who")] == "combatant"
    assert ("roll", "dice") not in pickers  # `roll`'s faces have one key of their own
    assert next(f for f in forms["roll"].fields if f.goes == "roll") == Field(
        key="dice", goes="roll", kind="number", label="faces",
        doc="the faces of the GM's own dice, e.g. 4,5 (else the tool rolls)")


def test_a_detail_of_one_value_is_a_switch_and_of_several_a_choice() -> None:
    declare = {f.key: f for f in forms_of("srd-5.2")["declare"].fields}
    assert (declare["adv"].kind, declare["adv"].choices) == ("switch", ("yes",))
    assert (declare["range"].kind, declare["range"].choices) == ("choice", ("melee", "ranged"))
    assert declare["hit"].kind == "text"  # a number the ruleset reads itself, as --with hit=N
    feint = next(f for f in forms_of("duel")["declare"].fields if f.key == "feint")  # the duel's own `--feint`
    assert (feint.goes, feint.kind, feint.choices) == ("detail", "switch", ("yes",))


def filled(form: Form, ruleset: Any) -> dict[str, Any]:
    """The request a form makes with every field given, as the page makes it."""
    out: dict[str, Any] = {"type": form.type}
    for f in form.fields:
        value: Any = {"number": 1, "text": "x", "switch": True, "choice": (f.choices or ("x",))[0]}[f.kind]
        if f.picker == "action":
            value = next(iter(ruleset.actions), "x")
        if f.goes == "field":
            out[f.key] = value
        elif f.goes == "type":
            out["type"] = f.choices[0]
        elif f.goes == "roll":
            out.setdefault("rolls", {})[f.key or "Orc"] = [1]
        else:
            bag = out.setdefault("details" if f.goes == "detail" else "stats", {})
            bag[f.key] = f.choices[0] if f.kind == "switch" else str(value)
    return out


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_form_filled_is_a_request_the_door_takes(ruleset_id: str) -> None:
    ruleset: Any = get_ruleset(ruleset_id)
    for form in inputs(ruleset).forms:
        made = filled(form, ruleset)
        request = r.from_json(msgspec.json.encode(made))
        assert r.tag(request) == made["type"]
        assert r.tag(request) in r.ROLES["gm"]  # the GM's page may send it
        kind = type(request)
        for f in form.fields:
            if f.goes == "field":
                assert getattr(request, f.key) is not None, (form.type, f.key)
        if form.type == "add":
            assert kind is c.AddHidden  # the switch of `hidden` is the request add-hidden


@pytest.mark.parametrize("ruleset_id", ["srd-5.2", "ap-countdown"])
def test_each_action_says_what_it_takes(ruleset_id: str) -> None:
    ruleset: Any = get_ruleset(ruleset_id)
    declare = {f.key for f in forms_of(ruleset_id)["declare"].fields if not f.required and f.goes != "roll"}
    for name, info in ruleset.actions.items():
        assert info.takes is not None, name
        assert set(info.takes) <= declare, (name, set(info.takes) - declare)
    made = {a.name: a.takes for a in inputs(ruleset).actions}
    assert made == {name: info.takes for name, info in ruleset.actions.items()}


def test_an_action_declared_before_takes_takes_anything() -> None:
    assert all(a.takes is None for a in inputs(get_ruleset("duel")).actions)


def test_what_an_ap_countdown_action_takes() -> None:
    takes = {a.name: a.takes for a in inputs(get_ruleset("ap-countdown")).actions}
    assert takes["melee-attack"] == ("ap", "target", "trigger")
    assert takes["move"] == ("pace", "penalty")
    assert takes["parry"] == ("amount", "target")


def lines(sample: Path, command: str) -> list[list[str]]:
    return [words for line in sample.read_text().splitlines() if (words := shlex.split(line, comments=True))
            and words[0] == command]


@pytest.mark.parametrize("sample", sorted((ROOT / "samples").glob("*.skirmish")), ids=lambda p: p.stem)
def test_every_declaration_of_the_samples_asks_only_what_its_action_takes(sample: Path) -> None:
    """Each sample's `declare` lines, read by the one parser: the flags and details given are
    among those its action's form shows."""
    new = lines(sample, "new")[0]
    ruleset: Any = get_ruleset(new[new.index("--rules") + 1])
    for words in lines(sample, "declare"):
        request = parse(words, lambda: ruleset).request
        assert isinstance(request, c.Declare)
        takes = ruleset.actions[request.action].takes
        if takes is None:
            continue
        given = {name for name, default in optional_fields(c.Declare) if getattr(request, name) != default}
        assert given | set(request.details) <= set(takes), (shlex.join(words), takes)


@pytest.mark.parametrize(("clock", "line"), [
    (Clock(round=0), "Before the first round."),
    (Clock(round=1, running=True, moment="count 35", now=("Hauser",), next=("Orc",)),
     "Round 1, count 35. Now: Hauser. Next: Orc."),
    (Clock(round=1, running=True, moment="count 10", now=("Orc",)), "Round 1, count 10. Now: Orc. Next: the end of the round."),
    (Clock(round=1, moment="after round 1"), "After round 1."),
    (Clock(round=2, unit="turn", running=True, moment="Jack's turn", now=("Jack",)),
     "Turn 2, Jack's turn. Now: Jack. Next: the end of the turn."),
])
def test_the_clock_line_is_made_from_the_clock(clock: Clock, line: str) -> None:
    assert clock_line(clock) == line


def test_the_boards_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from skirmish.cli.main import run_cli
    from skirmish.projections.write.engine import LogFile

    db = str(tmp_path / "bridge.db")
    for words in (["new", "Bridge", "--rules", "ap-countdown", "--seed", "1"],
                  ["add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30"],
                  ["add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40"]):
        assert run_cli(["--db", db, *words]) == 0
    with LogFile(db) as log_file:
        said = board_lines(log_file.open().view())
    assert (said.where, said.clock, said.pending) == ("Bridge (ap-countdown), branch main, #3", "Before the first round.",
                                                      ("none",))
    capsys.readouterr()


@pytest.mark.parametrize("asset", ["gm.js", "fold.mjs", "gm.html", "gm.css"])
def test_the_pages_code_names_no_ruleset(asset: str) -> None:
    text = files("skirmish.projections.page").joinpath(asset).read_text(encoding="utf-8")
    for ruleset_id in RULESETS:
        assert ruleset_id not in text, (asset, ruleset_id)
    for ruleset_id in RULESETS:  # nor an action of one
        for action in get_ruleset(ruleset_id).actions:
            if len(action) > 5:  # short words ("move", "aim") are English, not a ruleset's
                assert f'"{action}"' not in text, (asset, action)


def test_the_pages_code_builds_no_command_line() -> None:
    """No words posted, no shell quoting, no dice text read but faces: "6,8"."""
    text = files("skirmish.projections.page").joinpath("gm.js").read_text(encoding="utf-8")
    for word in ("words:", '"--', "'--", "split(line", "quote", "innerHTML", "matchAll"):
        assert word not in text, word


def test_the_benchmarks_count_the_pads_options_and_the_forms_widgets_as_the_page_makes_them() -> None:
    """benchmarks/gm_live.py's presses: a list is two (open, pick), a box to tick one."""
    from benchmarks.gm_live import presses, widgets

    srd = widgets("srd-5.2")
    # the card, 2 and 1 on the pad, the damage type's list (open, pick), Damage
    assert presses(["damage", "Hauser", "21", "--with", "type=fire"], srd) == 1 + 2 + 2 + 1
    # the card, 5, temporary HP ticked, Heal
    assert presses(["heal", "Hauser", "5", "--with", "temp=yes"], srd) == 1 + 1 + 1 + 1
    # who and action (two each), the target (two), hit typed "4" and its field (two),
    # Advantage ticked (one), whose dice (two) and the faces "6" typed (two), declare (one)
    assert presses(["declare", "Drake", "attack", "--target", "Hauser", "--with", "hit=4", "--with", "adv=yes",
                    "--roll", "Drake=6"], srd) == 2 + 2 + 2 + 2 + 1 + 2 + 2 + 1


def test_a_bestiary_goblin_warriors_card_offers_its_block_as_taps(memory_store: Any) -> None:
    """The SRD 5.2 Goblin Warrior's block (the bundled bestiary): Scimitar +4, 1d6+2 slashing
    (1d4 more with Advantage), Shortbow +4, 1d6+2 piercing (the same), Nimble Escape a Bonus
    Action. The page gets each with its label and the dice keys `declare` reads, as data."""
    from skirmish.eventlog.commands import AddCombatant
    from skirmish.projections.write.imports.bestiary import complete
    from skirmish.projections.page.gm_data import moves
    from skirmish.projections.ruleset import DiceKey, Move
    from support.cli import start
    from support.encounter import do

    ruleset = get_ruleset("srd-5.2")
    enc = start(memory_store, "srd-5.2")
    do(enc, complete(AddCombatant(name="Goblin Warrior"), ruleset)[0])
    do(enc, AddCombatant(name="Ann", side="party", stats={"hp": "20", "ac": "14"}))
    made = moves(ruleset, enc.held_at(enc.head().event_id))
    assert set(made) == {"Goblin Warrior"}  # Ann has no block: nothing beside the table's actions
    assert [(m.name, m.use, m.label, m.spent, m.aim) for m in made["Goblin Warrior"]] == [
        ("Scimitar", "action", "+4, 1d6+2 slashing", "", "one"),
        ("Shortbow", "action", "+4, 1d6+2 piercing", "", "one"),
        ("Nimble Escape", "bonus", "bonus", "", "none"),
    ]
    assert made["Goblin Warrior"][0] == Move(
        name="Scimitar", label="+4, 1d6+2 slashing", aim="one",
        rolls=(DiceKey(key="Goblin Warrior", what="d20 to hit"), DiceKey(key="dmg:Goblin Warrior", what="1d6+2 slashing"),
               DiceKey(key="extra:Goblin Warrior", what="1d4 slashing if advantage")))


def test_a_cards_block_says_what_is_spent(memory_store: Any) -> None:
    """A save action's label and keys, a recharge spent, a use a day gone, legendary uses short."""
    from skirmish.eventlog.commands import AddCombatant, Declare, StartRound
    from skirmish.projections.page.gm_data import moves
    from support.cli import start
    from support.encounter import do

    ruleset = get_ruleset("srd-5.2")
    enc = start(memory_store, "srd-5.2")
    do(enc, AddCombatant(name="Wyrm", side="foes", stats={
        "hp": "120", "ac": "17", "legendary": "1",
        "actions": "Fire Breath: 6d6 fire, DC 15 dex, half, recharge 5; Web: DC 12 dex, 1/day; "
                   "Tail: legendary 2, melee +7, 1d8+4 bludgeoning"}))
    do(enc, AddCombatant(name="Ann", side="party", stats={"hp": "60", "ac": "14"}))
    do(enc, StartRound(rolls={"Wyrm": (20,), "Ann": (2,)}))
    breath, web, tail = moves(ruleset, enc.held_at(enc.head().event_id))["Wyrm"]
    assert (breath.label, breath.spent, breath.aim) == ("DC 15 Dex, 6d6 fire, recharge 5", "", "several")
    assert [k.key for k in breath.rolls] == ["dmg:Wyrm"] and [k.key for k in breath.each] == ["save:"]
    assert (web.label, web.spent) == ("DC 12 Dex, 1/day: 1 left", "")
    assert (tail.label, tail.spent) == ("legendary 2, +7, 1d8+4 bludgeoning", "legendary 2: 1 left")
    do(enc, Declare(who="Wyrm", action="Fire Breath", target="Ann", rolls={"save:Ann": (3,), "dmg:Wyrm": (1,) * 6}))
    breath, web, tail = moves(ruleset, enc.held_at(enc.head().event_id))["Wyrm"]
    assert (breath.label, breath.spent) == ("DC 15 Dex, 6d6 fire, recharge 5: spent", "recharge 5: spent")
