"""One parser: the typer app declares each command of projections/door/words.py for its help
and completion only, and these tests hold its declarations to the parser's specs; the
parser's reading of words is checked against requests written out by hand."""

from __future__ import annotations

import time
from typing import Any

import pytest
import typer

from skirmish.cli import main  # noqa: F401 - registers every command on the app
from skirmish.cli.app import app, command_name
from skirmish.eventlog import commands as c
from skirmish.eventlog.errors import BadInput
from skirmish.projections.door import requests as r
from skirmish.projections.ruleset import get_ruleset
from skirmish.projections.door.words import SPECS, Unparsed, as_typed, parse, shared_flags, split_line


def typer_command(name: str) -> Any:
    group = typer.main.get_command(app)
    return group.commands[name]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_typer_app_declares_what_the_parser_reads(name: str) -> None:
    spec = SPECS[name]
    command = typer_command(name)
    declared = {opt for p in command.params if not isinstance(p, typer.core.TyperArgument) for opt in p.opts}
    read = {*spec.options, *spec.shell, *(shared_flags(spec.table) if spec.table is not None else {})}
    assert declared - {"--help"} == read, name
    arguments = [p.name for p in command.params if isinstance(p, typer.core.TyperArgument)]
    assert len(arguments) == len(spec.arguments), (name, arguments)


def test_every_command_of_the_app_is_the_parsers_or_the_command_lines_alone() -> None:
    names = {command_name(info) for info in app.registered_commands}
    assert names - set(SPECS) == {"new", "use", "encounters", "rules", "import", "export", "serve", "play", "run",
                                  "amend", "bestiary"}  # bestiary: the bundled data, no encounter
    assert set(SPECS) - names == set()


# The requests these lines stand for, written out by hand from each command's help.
LINES: list[tuple[str, Any]] = [
    ("damage Orc 7", c.Damage(who="Orc", amount=7)),
    ("damage Orc -5", c.Damage(who="Orc", amount=-5)),  # the ruleset's refusal names it, not the parser's
    ("heal 'Goblin 1' 3 --with kind=potion", c.Heal(who="Goblin 1", amount=3, details={"kind": "potion"})),
    ('declare "Goblin 1" melee-attack --target Ann --roll "Goblin 1=12,4"',
     c.Declare(who="Goblin 1", action="melee-attack", target="Ann", rolls={"Goblin 1": (12, 4)})),
    ("effect Orc poisoned --rounds 2 --end", c.ApplyEffect(who="Orc", kind="poisoned", rounds=2, end=True)),
    ("effect scene fog --custom --per-round 1", c.ApplyEffect(who="scene", kind="fog", custom=True, per_round=1)),
    ("add Orc --side foes --stat hp=7 --stat ac=13 --count 2", c.AddCombatant(name="Orc", side="foes",
                                                                              stats={"hp": "7", "ac": "13"}, count=2)),
    ("add Spy --hidden", c.AddHidden(name="Spy")),
    ("note 12 'a #hash, kept'", c.AddNote(event=12, text="a #hash, kept")),
    ("note --on Orc hello --private", c.AddNote(event=0, text="hello", on="Orc", private=True)),
    ("set Orc hp=9", c.SetStats(who="Orc", stats={"hp": "9"})),
    ("rename Orc Grub", c.Rename(who="Orc", to="Grub")),
    ("roll 2d6+3 --for Orc --why trap --roll 4,5", c.RollDice(dice="2d6+3", who="Orc", why="trap", rolls={"dice": (4, 5)})),
    ("bands fresh hurt=100 'near death'=15", c.ChooseBands(full="fresh", bands=(("hurt", 100), ("near death", 15)))),
    ("leave Orc --reason flees", c.Leave(who="Orc", reason="flees")),
    ("end --reason truce", c.EndEncounter(reason="truce")),
    ("undo 3", r.Undo(steps=3)),
    ("redo", r.Redo()),
    ("branch what-if --before 7", r.Branch(name="what-if", before=7)),
    ("switch main", r.Switch(name="main")),
    ("explain 9 --json", r.Explain(event=9)),
    ("why Orc 'hits left' --limit 0", r.Why(who="Orc", figure="hits left", limit=0)),
    ("state --at 4 --wide", r.State(at=4, wide=True)),
    ("log --limit 0", r.Log(limit=0)),
    ("round --roll Orc=5 -- ", c.StartRound(rolls={"Orc": (5,)})),
]


@pytest.mark.parametrize(("line", "expected"), LINES, ids=[line for line, _ in LINES])
def test_a_line_reads_as_the_request_it_stands_for(line: str, expected: Any) -> None:
    parsed = parse(split_line(line))
    assert parsed.request == expected
    assert parse(split_line(as_typed(parsed.request))).request == expected  # as the log keeps a page's tap


@pytest.mark.parametrize("ruleset_id", ["ap-countdown", "crisis"])
def test_ap_is_the_rulesets_own_flag_and_travels_in_details(ruleset_id: str) -> None:
    """--ap is no field of declare: ap-countdown and crisis each declare it, and it reads as
    `--with ap=N` would; without the encounter's ruleset the parser does not know it."""
    line = 'declare "Goblin 1" melee-attack --ap 3 --target Ann --roll "Goblin 1=12,4"'
    expected = c.Declare(who="Goblin 1", action="melee-attack", target="Ann", rolls={"Goblin 1": (12, 4)},
                         details={"ap": "3"})
    ruleset = get_ruleset(ruleset_id)
    parsed = parse(split_line(line), lambda: ruleset)
    assert parsed.request == expected
    assert parse(split_line(as_typed(parsed.request)), lambda: ruleset).request == expected
    # Knowing the ruleset (as the GM's page does), the log keeps the flag as the GM types it.
    typed = as_typed(parsed.request, ruleset)
    assert "--ap 3" in typed and "--with" not in typed, typed
    assert parse(split_line(typed), lambda: ruleset).request == expected
    with pytest.raises(Unparsed, match="`declare` takes no option '--ap'"):
        parse(split_line(line))


@pytest.mark.parametrize(("line", "said"), [
    ("damage Orc", "`damage` needs its AMOUNT (damage WHO AMOUNT)"),
    ("damage Orc seven", "AMOUNT takes a whole number, not 'seven'"),
    ("damage Orc 7 8", "`damage` takes damage WHO AMOUNT; '8' is one word too many"),
    ("damage Orc 7 --frob 2", "`damage` takes no option '--frob'"),
    ("state --json=yes", "--json is a switch: it takes no value ('--json=yes')"),
    ("serve --port 9", "`serve` is not taken here: the page is served already"),
    ("add Orc --from bestiary.toml", "`add --from` reads or writes a file of the GM's machine: run it from the shell"),
    ("frobnicate", "no command 'frobnicate' (`skirmish --help` lists them)"),
])
def test_words_that_are_not_a_request_say_why_in_one_line(line: str, said: str) -> None:
    with pytest.raises(Unparsed) as caught:
        parse(split_line(line))
    assert str(caught.value) == said


@pytest.mark.parametrize(("line", "words"), [
    ("a 'b c' \"d e\" f\\ g", ["a", "b c", "d e", "f g"]),
    ("note 3 'it''s'", ["note", "3", "its"]),
    ('x "a \\"q\\" b"', ["x", 'a "q" b']),
    ("x a # the rest", ["x", "a"]),
    ("  ", []),
])
def test_a_line_splits_as_a_shell_splits_it(line: str, words: list[str]) -> None:
    import shlex

    assert split_line(line) == words == shlex.split(line, comments=True)


def test_a_hash_inside_a_word_is_the_words_as_in_a_shell() -> None:
    assert split_line("note --on Orc took#2 # a comment") == ["note", "--on", "Orc", "took#2"]


def test_splitting_is_linear_and_bounded() -> None:
    """The shell splitter took 92 s on a 1 MB word; this one refuses past 8 KB at once, and
    an 8 KB line of the worst shapes splits in well under a second."""
    started = time.monotonic()
    with pytest.raises(BadInput, match="at most 8,192"):
        split_line("x" * 5_000_000)
    for worst in ("a" * 8000, "'" + "b" * 8000 + "'", '"' + "\\\"" * 4000 + '"', "x " * 4000):
        split_line(worst)
    with pytest.raises(BadInput, match="quote is not closed"):
        split_line('"' + "c" * 8000)
    assert time.monotonic() - started < 1


def test_the_command_line_bounds_text_fields_as_the_console_and_the_page(cli: Any) -> None:
    """The same bound at every door: a note past 2,000 characters, a name past 200, refused
    in one line naming the field, and nothing recorded (the fast path and the typer app)."""
    cli.ok("new", "Bounds", "--rules", "srd-5.2")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=15", "--stat", "ac=13", "--stat", "dex=1")
    before = cli.ok("log", "--json")
    assert cli.fails("note", "--on", "Orc", "n" * 2001) == "Error: text is 2,001 characters: at most 2,000 are taken"
    assert cli.fails("add", "O" * 201) == "Error: name is 201 characters: at most 200 are taken"
    assert cli.fails("damage", "Orc", "3", "--with", "type=" + "f" * 201).startswith("Error: details type= is 201")
    assert cli.ok("log", "--json") == before
    cli.ok("note", "--on", "Orc", "n" * 2000)
