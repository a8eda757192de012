"""The players' policy (projections/policy.py, docs/browser.md, "What each audience sees") in every
ruleset: a fight holding each secret (a what-if branch, a private note, a foe's exact vital
figure, a foe's pending action, the GM's dice for a foe, a hidden foe, the dice key), and
the players' page, exported and served, holds none of it while the GM's holds each."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from skirmish.cli.main import run_cli
from skirmish.eventlog.events import NoteAdded
from skirmish.projections.write.engine import LogFile

from test_live_slips import serving
from test_players_page_slips import BANDS, exported, page_data, served, steps

NOTE = "reinforcements at round 3"


@dataclass(frozen=True)
class Fight:
    ruleset: str
    script: str  # the fight, one command a line
    party: str
    foe: str  # the foe whose figures, dice and pending action are the secrets
    faces: str  # the GM's dice typed for the foe, as an explanation lists them ("7 + 3")
    exact: str  # the foe's vital figure at main's head as the GM's board shows it (value/maximum)
    band: str  # and the band the players see instead
    what_if: str  # the what-if branch's own event's narration (the GM's)


# Each fight: the party member, a foe with typed dice, a foe hidden from its add (Lurker) who
# acts and is hurt, a private note, a public one naming the hidden foe, and a what-if from
# the party member's first action.
FIGHTS = [
    # ap-countdown.md: the Orc's 30 hits less Hauser's 13 leave 17 of 30 (17 > 50 % of 30: hurt).
    Fight("ap-countdown", """
        new Bridge --rules ap-countdown
        add Hauser --side players --stat qu=1 --stat hits=40
        add Orc --side foes --stat qu=0 --stat hits=30
        add Lurker --side foes --stat qu=0 --stat hits=20 --hidden
        round --roll Hauser=6,8 --roll Orc=7,3 --roll Lurker=2,2
        declare Hauser melee-attack --ap 3 --target Orc
        next
        declare Orc melee-attack --target Hauser
        note 2 'reinforcements at round 3' --private
        note 2 'Lurker waits under the bridge'
        next
        declare Lurker melee-attack --target Hauser
        next
        resolve Hauser --outcome hit --hits 13
        branch what-if --at 7
        switch what-if
        damage Orc 29
        switch main
    """, "Hauser", "Orc", "7 + 3", "17/30", "hurt", "Orc takes 29 hits (1 left)"),
    # percent-activity.md: 30 - 13 = 17 of 30: hurt.
    Fight("percent-activity", """
        new Gatehouse --rules percent-activity
        add Hauser --side players --stat qu=1 --stat hits=40
        add Orc --side foes --stat qu=0 --stat hits=30
        add Lurker --side foes --stat qu=0 --stat hits=20 --hidden
        round --roll Hauser=6,8 --roll Orc=7,3 --roll Lurker=1,1
        declare Hauser melee-attack --percent 80 --target Orc
        resolve Hauser --hits 13
        note 2 'reinforcements at round 3' --private
        note 2 'Lurker waits under the bridge'
        next
        declare Orc static-maneuver --percent 150
        next
        damage Lurker 3
        branch what-if --at 7
        switch what-if
        damage Orc 16
        switch main
    """, "Hauser", "Orc", "7 + 3", "17/30", "hurt", "Orc takes 16 hits (14 left), wounded"),
    # crisis.md, Damage: Jack's 7 empty the Drone's 6 Endurance (the rest lost: spill=no);
    # then 2 reach Health: 5 - 2 = 3 of 5 (3 > 50 % of 5: hurt). Its 10 AP action spans turns.
    Fight("crisis", """
        new Hangar --rules crisis
        add Jack --side players --stat int=1 --stat speed=2 --stat endurance=10 --stat health=8 --stat melee=3 --stat might=2
        add Drone --side foes --stat int=0 --stat speed=1 --stat endurance=6 --stat health=5
        add Lurker --side foes --stat int=0 --stat speed=0 --stat endurance=4 --stat health=4 --hidden
        round --roll Jack=5,5,5 --roll Drone=4,3,2 --roll Lurker=1,1,1
        declare Jack attack --target Drone --with skill=3 --with ability=2 --roll Jack=6,6,6
        resolve Jack --hits 7
        damage Drone 2
        note 2 'reinforcements at round 3' --private
        note 2 'Lurker waits under the bridge'
        next
        declare Drone custom --ap 10
        next
        damage Lurker 1
        branch what-if --at 7
        switch what-if
        damage Drone 2
        switch main
    """, "Jack", "Drone", "4 + 3 + 2", "3/5", "hurt", "Drone takes 2 damage: 2 to Endurance (4 left)"),
    # modular.md: the Orc's 25 health less 9 is 16 of 25 (16 > 50 % of 25: hurt); its
    # readied courses are pending. Its 1d100 for initiative is typed: 37.
    Fight("modular", """
        new Courtyard --rules modular
        add Hauser --side players --stat agility=47 --stat dodge=13 --stat health=30
        add Orc --side foes --stat agility=20 --stat dodge=10 --stat health=25
        add Lurker --side foes --stat agility=10 --stat dodge=5 --stat health=12 --hidden
        round --roll Hauser=40 --roll Orc=37 --roll Lurker=3
        declare Hauser skill --target Orc --with skill=sword
        damage Orc 9
        note 2 'reinforcements at round 3' --private
        note 2 'Lurker waits under the bridge'
        next
        declare Orc ready --trigger 'Hauser moves' --with then=skill+move --with else=evade
        next
        damage Lurker 2
        branch what-if --at 7
        switch what-if
        damage Orc 20
        switch main
    """, "Hauser", "Orc", "37", "16/25", "hurt", "Orc takes 20 damage (5 health left)"),
    # phases.md: Rook's initiative 5, a slight wound -1: 4 of 5 (hurt); its initiative is its
    # vital figure, which the turn's start lists. Phases rolls no dice: `faces` is its
    # initiative as that line gives it.
    Fight("phases", """
        new Farmhouse --rules phases
        add Bauer --side players --stat initiative=4 --stat agility=7 --stat bulk=2
        add Rook --side foes --stat initiative=5 --stat agility=5 --stat bulk=1
        add Lurker --side foes --stat initiative=6 --stat agility=3 --stat bulk=1 --hidden
        round
        next
        declare Lurker aim --target Bauer
        next
        declare Rook aim --target Bauer
        effect Rook slight-wound
        note 2 'reinforcements at round 3' --private
        note 2 'Lurker waits under the bridge'
        next
        branch what-if --at 7
        switch what-if
        effect Rook serious-wound
        switch main
    """, "Bauer", "Rook", "Rook 5", "4/5", "hurt", "Rook: serious-wound (-3), initiative now 2"),
    # srd-5.2-combat.md: Hauser's 14 + 5 = 19 hits AC 13; 6 + 4 + 3 = 13 slashing leaves the
    # Orc 17 of 30 HP (17 > 50 % of 30: hurt). The Orc's initiative is the GM's d20, 11, + 2
    # (§2); its Ready is held, pending (§4). The what-if, from before the hit: 30 - 16 = 14.
    Fight("srd-5.2", """
        new Chapel --rules srd-5.2
        add Hauser --side players --stat hp=40 --stat ac=15 --stat dex=1
        add Orc --side foes --stat hp=30 --stat ac=13 --stat dex=2
        add Lurker --side foes --stat hp=20 --stat ac=12 --hidden
        round --roll Hauser=15 --roll Orc=11 --roll Lurker=3
        declare Hauser attack --target Orc --with hit=5 --with damage=2d6+3 --with type=slashing --roll Hauser=14 --roll dmg:Hauser=6,4
        note 2 'reinforcements at round 3' --private
        note 2 'Lurker waits under the bridge'
        next
        declare Orc ready --trigger 'Hauser moves' --with then=attack
        next
        damage Lurker 3
        branch what-if --at 7
        switch what-if
        damage Orc 16
        switch main
    """, "Hauser", "Orc", "d20 +11, init +2", "17/30", "hurt", "Orc takes 16 damage (14 HP left)"),
]
IDS = [f.ruleset for f in FIGHTS]


@pytest.fixture(scope="module")
def fought(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for fight in FIGHTS:
        db = tmp_path_factory.mktemp(fight.ruleset) / "fight.db"
        for line in fight.script.strip().splitlines():
            assert run_cli(["--db", str(db), *shlex.split(line)]) == 0, line
        out[fight.ruleset] = db
    return out


@dataclass(frozen=True)
class Secrets:
    key: str  # the dice key
    private_note: int  # the private note's event


def secrets_of(db: Path) -> Secrets:
    with LogFile(str(db)) as log:
        enc = log.open()
        notes = [r.id for r in enc.events_of_kind(NoteAdded) if isinstance(r.event, NoteAdded) and r.event.private]
        assert len(notes) == 1
        return Secrets(enc.started.key, notes[0])


def rows_named(data: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """Every change to a combatant's row on the page, on every branch it holds."""
    keys = {k for s in steps(data) for k, row in s.delta.get("c", {}).items() if row.get("n") == name}
    return [s.delta["c"][k] for s in steps(data) for k in keys if k in s.delta.get("c", {})]


def board_at_head(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each combatant's row at the current branch's head, folded down its path as page.js
    folds it (an entry's second field: how far back its parent is)."""
    by_id, back, event_id = {s.id: s for s in steps(data)}, {}, 0
    for entry in data["events"]:
        event_id += entry[0]
        back[event_id] = entry[1]
    at: int | None = next(b["head"] for b in data["branches"] if b["name"] == data["current"])
    path = []
    while at is not None:
        path.append(by_id[at])
        at = None if back[at] is None else at - back[at]
    board: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for step in reversed(path):
        for key, row in step.delta.get("c", {}).items():
            board[key] = {**board.get(key, {}), **row}
        order = step.delta.get("o", order)
    return {board[k]["n"]: board[k] for k in order}


def pendings(data: dict[str, Any]) -> set[str]:
    """Whoever has a pending action at some step of the page."""
    return {p[0] for s in steps(data) for p in s.delta.get("p", [])}


def texts(data: dict[str, Any]) -> list[str]:
    """Every narration and explanation line the page can show."""
    return [line for s in steps(data) for line in (s.text, *s.explanation)]


def check_players(data: dict[str, Any], fight: Fight, secrets: Secrets) -> None:
    dump = json.dumps(data)
    # The what-if branch: neither listed nor its events.
    assert [b["name"] for b in data["branches"]] == ["main"]
    assert "what-if" not in dump and fight.what_if not in texts(data)
    # The private note: neither its text nor a step for it.
    assert NOTE not in dump and secrets.private_note not in {s.id for s in steps(data)}
    assert not any("private note" in t.lower() or "made a note" in t.lower() for t in texts(data))
    # The foe's exact vital figure: banded at every step, its maximum and budget left out,
    # and no line naming the foe holds a number (its figure, its dice, its damage).
    rows = rows_named(data, fight.foe)
    assert rows and all(r.get("v", fight.band) in BANDS and r.get("vm") is None and r.get("bl") is None for r in rows)
    assert board_at_head(data)[fight.foe]["v"] == fight.band
    for text in texts(data):
        assert not (re.search(rf"\b{fight.foe}\b", text) and re.search(r"\d", text)), text
    # The GM's dice for the foe: in no line; no explanation of a step naming the foe.
    assert not any(fight.faces in t for t in texts(data))
    for step in steps(data):
        if step.explanation:
            assert not any(re.search(rf"\b{fight.foe}\b", t) for t in (step.text, *step.explanation)), step
    # The foe's pending action: never listed (the party's own are).
    assert fight.foe not in pendings(data)
    # The hidden foe: nowhere, not even its name; and the dice key.
    assert "Lurker" not in dump
    assert secrets.key not in dump and "seed" not in data


def check_gm(data: dict[str, Any], fight: Fight, secrets: Secrets) -> None:
    """The GM's page holds each secret the players' lacks: the test looks in the right places."""
    dump = json.dumps(data)
    assert {b["name"] for b in data["branches"]} == {"main", "what-if"}
    assert fight.what_if in texts(data)
    assert NOTE in dump and secrets.private_note in {s.id for s in steps(data)}
    assert any(fight.faces in t for t in texts(data))
    assert fight.foe in pendings(data)
    head = board_at_head(data)
    assert f"{head[fight.foe]['v']}/{head[fight.foe]['vm']}" == fight.exact
    assert head["Lurker"]["h"] == 1  # on the GM's board, marked hidden
    assert "Lurker waits under the bridge" in dump
    assert data["seed"] == secrets.key


@pytest.mark.parametrize("fight", FIGHTS, ids=IDS)
def test_the_exported_players_page_holds_no_secret(fought: dict[str, Path], fight: Fight) -> None:
    db = fought[fight.ruleset]
    secrets = secrets_of(db)
    check_gm(page_data(exported(db, "gm")), fight, secrets)
    check_players(page_data(exported(db, "players")), fight, secrets)


@pytest.mark.slow
@pytest.mark.parametrize("fight", FIGHTS, ids=IDS)
def test_the_served_players_page_and_its_stream_hold_no_secret(fought: dict[str, Path], fight: Fight,
                                                               tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    db.write_bytes(fought[fight.ruleset].read_bytes())
    secrets = secrets_of(db)
    check_players(page_data(served(db, "players")), fight, secrets)
    with serving(str(db)) as live:
        stream = live.stream()
        # A change on the players' branch: the stream sends the page again, still clean.
        assert run_cli(["--db", str(db), "note", "2", "the bridge is slippery"]) == 0
        # Every page the stream sends is clean, up to the one with the note (a public note is
        # theirs); one built as the stream opened may come first.
        seen = 0
        while True:
            sent = stream.next_page(seen, quiet=False)  # fails if no page comes within its wait
            seen += 1
            check_players(sent, fight, secrets)
            if "the bridge is slippery" in json.dumps(sent):
                break


@pytest.mark.parametrize("fight", FIGHTS, ids=IDS)
def test_a_revealed_foe_appears_from_its_reveal_on(fought: dict[str, Path], fight: Fight, tmp_path: Path) -> None:
    db = tmp_path / "revealed.db"
    db.write_bytes(fought[fight.ruleset].read_bytes())
    assert run_cli(["--db", str(db), "reveal", "Lurker"]) == 0
    data = page_data(exported(db, "players"))
    told = [s for s in steps(data) if "Lurker" in s.text]
    assert [s.text for s in told] == ["Lurker appears on the foes side"]  # no event of its hidden time
    assert board_at_head(data)["Lurker"]["v"] in BANDS
    # Undone, it is hidden again.
    assert run_cli(["--db", str(db), "undo"]) == 0
    db.with_name("players.html").unlink()
    assert "Lurker" not in json.dumps(page_data(exported(db, "players")))


def report(db: Path, *args: str) -> str:
    out = db.with_name(f"report-{'-'.join(args) or 'gm'}.md")
    assert run_cli(["--db", str(db), "export", "--format", "md", "--out", str(out), *args]) == 0
    return out.read_text()


@pytest.mark.parametrize("fight", FIGHTS, ids=IDS)
def test_the_players_report_holds_no_secret(fought: dict[str, Path], fight: Fight, capsys: pytest.CaptureFixture[str]) -> None:
    db = fought[fight.ruleset]
    secrets = secrets_of(db)
    gm, players = report(db), report(db, "--for", "players")
    what_if = report(db, "--branch", "what-if")
    # The GM's reports hold each secret: the test looks in the right places.
    assert fight.what_if in what_if and NOTE in gm and "Lurker" in gm and fight.exact in gm
    assert re.search(rf"^pending: {fight.foe} ", gm, re.M)
    lines = [line.split(" ", 2)[2] for line in players.splitlines() if line.startswith("- #")]
    assert lines and lines[0].startswith("Encounter ")
    for text in lines:  # no narration naming the foe holds a number
        assert not (re.search(rf"\b{fight.foe}\b", text) and re.search(r"\d", text)), text
    assert fight.what_if not in players and "what-if" not in players
    assert NOTE not in players and f"#{secrets.private_note} " not in players
    assert "Lurker" not in players and secrets.key not in players and "verify digest" not in players
    assert fight.exact not in players and fight.faces not in players
    assert not re.search(rf"^pending: {fight.foe} ", players, re.M)
    assert re.search(rf"^{fight.foe} +foes +\w+ +{fight.band} ", players, re.M)  # its band in the final state
    # The players' report follows the current branch.
    capsys.readouterr()
    assert run_cli(["--db", str(db), "export", "--format", "md", "--for", "players", "--branch", "what-if"]) == 2
    assert capsys.readouterr().err.strip() == (
        "Error: the players' report follows the current branch: the what-if branches are the GM's")
