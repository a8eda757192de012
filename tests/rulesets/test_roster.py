"""Roster files: parties and bestiaries read with tomllib, every entry checked before it reaches the log."""

from __future__ import annotations

from pathlib import Path

import pytest

from skirmish.eventlog.commands import AddCombatant
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.store import Store
from skirmish.projections import roster
from skirmish.projections.ruleset import BUILT_IN, get_ruleset

from support.cli import start

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "rosters"


@pytest.mark.parametrize("ruleset_id", sorted(BUILT_IN))
@pytest.mark.parametrize("name", ["party.toml", "bestiary.toml"])
def test_every_sample_roster_holds_for_every_ruleset(name: str, ruleset_id: str) -> None:
    assert roster.check(SAMPLES / name, get_ruleset(ruleset_id)) == []


def test_an_entry_gives_its_side_and_its_stats_under_the_ruleset() -> None:
    entries = roster.load(SAMPLES / "bestiary.toml")
    goblin = roster.find(entries, "goblin", SAMPLES / "bestiary.toml")
    assert goblin.side == "foes"
    assert roster.stats_for(goblin, get_ruleset("ap-countdown"), SAMPLES) == {"qu": "1", "hits": "12"}


def test_count_numbers_the_names(memory_store: Store) -> None:
    """`add Goblin --count 4`: Goblin 1 to Goblin 4 (the engine's shared add decision)."""
    enc = start(memory_store, "ap-countdown")
    added = enc.execute(AddCombatant(name="Goblin", stats={"qu": "1", "hits": "12"}, count=4), "add Goblin --count 4")
    assert [r.event.name for r in added] == ["Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4"]  # type: ignore[attr-defined]
    assert [r.event.name for r in enc.execute(AddCombatant(name="Orc", stats={"qu": "0", "hits": "9"}), "add Orc")] == [  # type: ignore[attr-defined]
        "Orc"]
    with pytest.raises(BadInput, match="--count takes 1 to 100, not 0"):
        enc.execute(AddCombatant(name="Troll", stats={"qu": "0", "hits": "9"}, count=0), "add Troll --count 0")
    with pytest.raises(RuleViolation, match="there is already a combatant named Goblin 1"):
        enc.execute(AddCombatant(name="Goblin", stats={"qu": "1", "hits": "12"}, count=2), "add Goblin --count 2")


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "r.toml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


@pytest.mark.parametrize(("text", "error"), [
    ("[Orc\nside = 1", "is not valid TOML"),
    (b"[Orc]\nside = \"\xff\"", "is not UTF-8 text"),
    ("[Orc]\nside = 3", "side is text"),
    ("[Orc]\nmodular = { agility = \"fast\" }", "modular stat 'agility' must be a whole number, not 'fast'"),
    ("[Orc]\nmodular = { agility = true }", "must be a whole number"),
    ("[Orc]\nhits = 3", "'hits' is neither side, note nor a ruleset's stats table"),
    ("[Orc]\n[orc]", "the name is given twice"),
    ("[\"Orc\\u001b]0;owned\\u0007\"]\nside = \"foes\"", "cannot be a combatant's name"),
    ("Orc = 3", "an entry is a table"),
    ("", "has no entries"),
])
def test_a_bad_roster_is_one_error_naming_the_entry(tmp_path: Path, text: str, error: str) -> None:
    with pytest.raises(BadInput, match=error.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        roster.load(write(tmp_path, text))


def test_check_names_each_entry_at_fault(tmp_path: Path) -> None:
    path = write(tmp_path, "[Orc]\nap-countdown = { qu = 0 }\n[Elf]\nmodular = { agility = 1 }\n[Ok]\n"
                           "ap-countdown = { qu = 0, hits = 9 }\n")
    assert roster.check(path, get_ruleset("ap-countdown")) == [
        "Orc: Orc needs --stat hits=N (hits the combatant can take)",
        f"Elf: roster {str(path)!r}, entry 'Elf' has no ap-countdown stats (it has: modular)",
    ]


def test_a_missing_file_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="cannot read roster"):
        roster.load(tmp_path / "nowhere.toml")
