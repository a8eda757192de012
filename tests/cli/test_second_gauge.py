"""crisis's two gauges on every surface that shows a vital: `state` at 80 columns, the
console's bars, the replay page's data (the GM's and the players') and the Markdown report.

crisis.md, Damage: damage "reduces the character's Endurance"; once Endurance is 0 the AP
gain is 2 and later damage goes to Health. The fight: Jack (Endurance 10, Health 8, armour
DR 2 with 3 Durability) and the Drone (Endurance 4, Health 4, no armour). Worked by hand:
3 damage to the Drone leaves Endurance 4 - 3 = 1 and Health 4; 5 to Jack is 5 - DR 2 = 3
off Endurance: 7 of 10, Health 8.
"""

from __future__ import annotations

import json

from rich.console import Console as RichConsole

from skirmish.cli.console import board
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter
from skirmish.projections.page import data as page_data
from skirmish.projections.view import Gauge

from support.cli import Cli

JACK = ("int=1", "speed=2", "endurance=10", "health=8", "armour=1", "dr=2", "durability=3")
DRONE = ("int=0", "speed=1", "endurance=4", "health=4")


def crisis_fight(cli: Cli) -> None:
    cli.ok("new", "Drones", "--rules", "crisis", "--seed", "5")
    cli.ok("add", "Jack", "--side", "players", *[f"--stat={s}" for s in JACK])
    cli.ok("add", "Drone", "--side", "foes", *[f"--stat={s}" for s in DRONE])
    cli.ok("round", "--roll", "Jack=5,5,5", "--roll", "Drone=2,2,2")  # 18 and 7: Jack first
    cli.ok("damage", "Drone", "3")
    cli.ok("damage", "Jack", "5")


def opened(cli: Cli) -> tuple[Store, Encounter]:
    store = Store(cli.db)
    return store, Encounter.open(store)


def test_state_at_80_columns_shows_endurance_beside_health(cli: Cli) -> None:
    crisis_fight(cli)
    lines = cli.ok("state").splitlines()
    assert lines[2].split() == ["name", "side", "status", "Health", "Endurance", "AP", "left", "effects"]
    assert lines[3].split() == [">", "Jack", "players", "fighting", "8/8", "7/10", "4/4", "-"]
    assert lines[4].split() == ["Drone", "foes", "fighting", "4/4", "1/4", "4/4", "-"]
    assert all(len(line) <= 80 for line in lines)


def test_state_json_keeps_view_2_and_the_other_rulesets_have_no_second_gauge(cli: Cli) -> None:
    crisis_fight(cli)
    drone = next(c for c in json.loads(cli.ok("state", "--json"))["combatants"] if c["name"] == "Drone")
    assert "vital2" not in drone and drone["own"]["endurance"] == 1  # view 2's shape, as before
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", "Orc", "--stat", "qu=0", "--stat", "hits=30")
    assert cli.ok("state").splitlines()[2].split() == ["name", "side", "status", "hits", "left", "AP", "left",
                                                       "effects"]


def test_the_consoles_board_has_a_bar_for_each_gauge(cli: Cli) -> None:
    crisis_fight(cli)
    store, enc = opened(cli)
    try:
        shown = enc.view()
    finally:
        store.close()
    out = RichConsole(width=80, record=True, color_system=None)
    out.print(board(shown, None))
    text = out.export_text().splitlines()
    assert text[0].split()[:6] == ["name", "side", "status", "Health", "Endurance", "AP"]
    # Bars of 6 cells: round(6 x value / maximum) filled, at least 1 while above 0.
    # Jack: Health 8/8 -> 6; Endurance 7/10 -> round(4.2) = 4. Drone: 4/4 -> 6; 1/4 -> round(1.5) = 2.
    jack = next(line for line in text if "Jack" in line)
    drone = next(line for line in text if "Drone" in line)
    assert "###### 8/8" in jack and "####.. 7/10" in jack
    assert "###### 4/4" in drone and "##.... 1/4" in drone


def test_the_page_carries_both_gauges_and_the_players_see_a_foes_as_a_band(cli: Cli) -> None:
    crisis_fight(cli)
    store, enc = opened(cli)
    try:
        gm = page_data.build(enc, "gm")
        players = page_data.build(enc, "players")
    finally:
        store.close()

    def rows(data: dict[str, object]) -> dict[str, dict[str, object]]:
        """Each combatant's fields as the page folds them, at the last event."""
        out: dict[str, dict[str, object]] = {}
        for entry in data["events"]:  # type: ignore[attr-defined]
            for key, fields in json.loads(bytes(entry.view)).get("c", {}).items():
                out.setdefault(key, {}).update(fields)
        return {str(f["n"]): f for f in out.values()}

    gm_rows, players_rows = rows(gm), rows(players)
    assert {k: gm_rows["Drone"][k] for k in ("v2n", "v2", "v2m")} == {"v2n": "Endurance", "v2": 1, "v2m": 4}
    assert {k: gm_rows["Jack"][k] for k in ("v2", "v2m")} == {"v2": 7, "v2m": 10}
    # Bands (50 % by default): 1 of 4 is at or below half, badly hurt; Jack's own side exact.
    assert (players_rows["Drone"]["v2"], players_rows["Drone"]["v2m"]) == ("badly hurt", None)
    assert (players_rows["Jack"]["v2"], players_rows["Jack"]["v2m"]) == (7, 10)


def test_the_report_tables_both_gauges(cli: Cli) -> None:
    crisis_fight(cli)
    cli.ok("next")  # Jack is done: the Drone acts
    cli.ok("next")  # the turn ends
    md = cli.ok("export", "--format", "md")
    header = "| combatant | side | Health (start -> end) | Endurance (start -> end) | damage dealt |"
    assert header in md
    assert "| Jack | players | 8 -> 8 | 10 -> 7 |" in md
    assert "| Drone | foes | 4 -> 4 | 4 -> 1 |" in md
    endurance = md.split("## Endurance over rounds")[1].split("## ")[0]
    assert "| Jack | 10 | 7 |" in endurance and "| Drone | 4 | 1 |" in endurance
    assert "Health  Endurance  AP left" in md.split("## Final state")[1]


def test_a_gauge_is_the_contract_any_ruleset_may_fill() -> None:
    """projections/view.py: ``Combatant.gauges()`` is the vital, then vital2 where set."""
    from skirmish.projections.view import Budget, Combatant

    one = Combatant(name="A", side="x", vital=Gauge(name="hits", value=3), budget=Budget(name="AP", left=1))
    two = Combatant(name="B", side="x", vital=Gauge(name="Health", value=3), budget=Budget(name="AP", left=1),
                    vital2=Gauge(name="Endurance", value=2, maximum=5))
    assert [g.name for g in one.gauges()] == ["hits"]
    assert [g.name for g in two.gauges()] == ["Health", "Endurance"]
