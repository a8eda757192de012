"""One name policy: names compared after NFKC and case folding, and a name that only looks
like one already taken (a Cyrillic or Greek letter drawn like a Latin one, a fullwidth
form, an accent typed as a combining mark) refused with its did-you-mean: in `add`, in a
roster, for a new or imported encounter. Stored names are never folded: a log made before
the policy, with two look-alike combatants, replays and decides as it did.

The look-alike strings are spelled with escapes, so the test says which letter is which.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from skirmish.eventlog.commands import AddCombatant, Damage
from skirmish.eventlog.store import Store
from skirmish.projections import names, roster
from skirmish.projections.write.engine import Encounter

from support.cli import Cli, start

CYRILLIC_O = "\u041erc"  # О, CYRILLIC CAPITAL LETTER O
GREEK_O = "\u039frc"  # Ο, GREEK CAPITAL LETTER OMICRON
FULLWIDTH_O = "\uff2frc"  # Ｏ, FULLWIDTH LATIN CAPITAL LETTER O
JOSE_NFC = "Jos\u00e9"  # é as one code point
JOSE_NFD = "Jose\u0301"  # e + COMBINING ACUTE ACCENT
STATS = ["--stat", "qu=1", "--stat", "hits=40"]


def look_alike_error(name: str, other: str, what: str = "a combatant") -> str:
    return (f"Error: {name!r} looks like {other!r}, already {what} here (a letter from another alphabet, "
            f"or a different form of one): did you mean {other}?")


def test_the_spellings_are_what_they_claim() -> None:
    assert unicodedata.name(CYRILLIC_O[0]) == "CYRILLIC CAPITAL LETTER O"
    assert unicodedata.name(GREEK_O[0]) == "GREEK CAPITAL LETTER OMICRON"
    assert unicodedata.name(FULLWIDTH_O[0]) == "FULLWIDTH LATIN CAPITAL LETTER O"
    assert JOSE_NFC != JOSE_NFD and unicodedata.normalize("NFC", JOSE_NFD) == JOSE_NFC


@pytest.mark.parametrize("typed", [CYRILLIC_O, GREEK_O, FULLWIDTH_O, "Or\u0441"],
                         ids=["cyrillic-O", "greek-O", "fullwidth-O", "cyrillic-c"])
def test_add_refuses_a_name_that_looks_like_one_at_the_table(cli: Cli, typed: str) -> None:
    """Before, each of these was a combatant of its own, printed like the Orc."""
    cli.ok("new", "Fight", "--rules", "ap-countdown")
    cli.ok("add", "Orc", *STATS)
    assert cli.fails("add", typed, *STATS) == look_alike_error(typed, "Orc")
    assert cli.code == 1
    assert [c["name"] for c in __import__("json").loads(cli.ok("state", "--json"))["combatants"]] == ["Orc"]


def test_add_refuses_an_accent_typed_another_way_and_damage_finds_it_however_typed(cli: Cli) -> None:
    cli.ok("new", "Fight", "--rules", "ap-countdown")
    cli.ok("add", JOSE_NFC, *STATS)
    assert cli.fails("add", JOSE_NFD, *STATS) == look_alike_error(JOSE_NFD, JOSE_NFC)
    # Typed the other way, the damage still lands on José (40 - 3 = 37).
    assert cli.ok("damage", JOSE_NFD, "3").strip().endswith(f"{JOSE_NFC} takes 3 hits (37 left)")


def test_the_same_name_in_another_case_is_refused_as_before(cli: Cli) -> None:
    cli.ok("new", "Fight", "--rules", "ap-countdown")
    cli.ok("add", "Orc", *STATS)
    assert cli.fails("add", "ORC", *STATS) == "Error: there is already a combatant named ORC"


def test_a_count_that_would_make_a_look_alike_is_refused(cli: Cli) -> None:
    cli.ok("new", "Fight", "--rules", "ap-countdown")
    cli.ok("add", "Orc 2", *STATS)
    name = f"{CYRILLIC_O} 2"
    assert cli.fails("add", CYRILLIC_O, "--count", "3", *STATS) == look_alike_error(name, "Orc 2")


def test_a_roster_refuses_look_alike_entries_and_finds_an_entry_however_typed(tmp_path: Path) -> None:
    path = tmp_path / "bestiary.toml"
    path.write_text(f'[Orc]\nmodular = {{ agility = 20, dodge = 10, health = 12 }}\n\n["{CYRILLIC_O}"]\nside = "foes"\n',
                    encoding="utf-8")
    with pytest.raises(Exception) as info:
        roster.load(path)
    assert str(info.value) == (f"roster {str(path)!r}, entry {CYRILLIC_O!r}: {CYRILLIC_O!r} looks like 'Orc', "
                               "already an entry here (a letter from another alphabet, or a different form of one): "
                               "did you mean Orc?")
    path.write_text(f'["{JOSE_NFC}"]\nmodular = {{ agility = 20, dodge = 10, health = 12 }}\n', encoding="utf-8")
    assert roster.find(roster.load(path), JOSE_NFD, path).name == JOSE_NFC


def test_a_new_or_imported_encounter_whose_name_looks_like_one_in_the_file_is_refused(cli: Cli, tmp_path: Path) -> None:
    cli.ok("new", "Fight", "--rules", "ap-countdown")
    lookalike = "F\u0456ght"  # і, CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I
    assert cli.fails("new", lookalike, "--rules", "ap-countdown") == look_alike_error(lookalike, "Fight", "an encounter")
    other = Cli(str(tmp_path / "other.db"), cli.capsys)
    other.ok("new", lookalike, "--rules", "ap-countdown")
    other.ok("export", "--out", str(tmp_path / "other.jsonl"))
    assert cli.fails("import", str(tmp_path / "other.jsonl")) == look_alike_error(lookalike, "Fight", "an encounter")
    assert [line.split()[0] for line in cli.ok("encounters").splitlines() if line.strip()][-1:] != [lookalike]


def test_a_log_made_before_the_policy_replays_and_decides_as_it_did(
    file_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two look-alike combatants, added while nothing refused them: each is still found by its
    own spelling, and the fold is never applied to a stored name."""
    enc = start(file_store)
    with monkeypatch.context() as before_the_policy:
        before_the_policy.setattr(names, "look_alike", lambda name, taken: None)
        for name in ("Orc", CYRILLIC_O):
            enc.execute(AddCombatant(name=name, stats={"qu": "1", "hits": "40"}), f"add {name}")
    enc.execute(Damage(who=CYRILLIC_O, amount=7), "damage")
    enc.execute(Damage(who="Orc", amount=2), "damage")
    again = Encounter.open(file_store)
    vital = {c.name: c.vital.value for c in again.view().combatants}
    assert vital == {"Orc": 38, CYRILLIC_O: 33}  # 40 - 2 and 40 - 7, each its own


def test_fold_and_skeleton() -> None:
    assert names.fold(f"  {FULLWIDTH_O} ") == "orc"
    assert names.fold(JOSE_NFD) == names.fold(JOSE_NFC) == "jos\u00e9"
    assert names.skeleton(CYRILLIC_O) == names.skeleton(GREEK_O) == "orc"
    assert names.skeleton("Hauser") != names.skeleton("Mira")
