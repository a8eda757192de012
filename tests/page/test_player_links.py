"""A link per player character of `skirmish serve`, over HTTP against the real server: what a
player's link may send (the role table's "player" row, for their character only), that what
it sends is recorded as theirs (`explain` says whose phone rolled it), the GM's revoke,
accept and decline, the bounded queue of proposals, and what a player's link reads (their
character exactly, the players' policy for the rest, no secret).

What is expected comes from the rules text (srd-5.2-combat.md §2: Initiative is a d20 plus
the Dexterity modifier) or from the GM's own command typed at the command line on a copy."""

from __future__ import annotations

import http.client
import json
import re
import secrets
import shlex
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from skirmish.cli.main import run_cli
from skirmish.eventlog.commands import Damage
from skirmish.projections.door import requests as r
from support.cli import Cli
from support.served import Served, serving
from test_players_policy import FIGHTS, NOTE, Fight, secrets_of

pytestmark = pytest.mark.slow  # a real server per test

pytest.importorskip("uvicorn")

HEADER = "X-Skirmish-Token"


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


@pytest.fixture
def table(cli: Cli) -> Cli:
    """An srd-5.2 fight: Ann and Bob of the party, an Orc (a foe, 15 HP), a hidden Shade.
    Ties of Initiative go by Dexterity (option ties=dex): a round of the tool's dice never
    waits for the GM to order a tie."""
    cli.ok("new", "Ford", "--rules", "srd-5.2", "--option", "ties=dex")
    cli.ok("add", "Ann", "--side", "party", "--stat", "hp=20", "--stat", "ac=14", "--stat", "dex=2")
    cli.ok("add", "Bob", "--side", "party", "--stat", "hp=18", "--stat", "ac=12", "--stat", "dex=1")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "hp=15", "--stat", "ac=13", "--stat", "dex=1")
    cli.ok("add", "Shade", "--side", "foes", "--hidden", "--stat", "hp=9", "--stat", "ac=12", "--stat", "dex=3")
    return cli


def said(served: Served) -> str:
    served.gm_link()  # waits for the links to be printed
    return served.said.read_text()


def links_of(served: Served) -> dict[str, str]:
    """Each character's link's secret, as `serve` printed it."""
    text = said(served)
    for _ in range(100):
        found = dict(re.findall(r"^(\w+)'s link: http://\S+/player#(\S+)", text, re.M))
        if found:
            return found
        import time

        time.sleep(0.05)
        text = served.said.read_text()
    raise AssertionError(text)


def gm_token(served: Served) -> str:
    return urlsplit(served.gm_link()).fragment


def call(served: Served, method: str, path: str, token: str | None, body: Any = None,
         headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    sent = dict(headers or {})
    if token is not None:
        sent[HEADER] = token
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        sent.setdefault("Content-Type", "application/json")
    conn.request(method, path, body=data, headers=sent)
    answer = conn.getresponse()
    out = answer.status, answer.read()
    conn.close()
    return out


def write(served: Served, path: str, token: str | None, command: dict[str, Any], head: int = 0,
          branch: str = "main") -> tuple[int, dict[str, Any] | bytes]:
    status, body = call(served, "POST", path, token,
                        {"command": command, "branch": branch, "head": head, "tap": secrets.token_hex(8)})
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body


def player(served: Served, secret: str, command: dict[str, Any], head: int = 0) -> tuple[int, dict[str, Any] | bytes]:
    return write(served, "/player/run", secret, command, head)


def gm(served: Served, command: dict[str, Any], head: int) -> dict[str, Any]:
    status, reply = write(served, "/gm/run", gm_token(served), command, head)
    assert status == 200 and isinstance(reply, dict), reply
    result: dict[str, Any] = reply["result"]
    return result


def read(served: Served, secret: str) -> dict[str, Any]:
    status, body = call(served, "GET", "/player/state", secret)
    assert status == 200, body
    data: dict[str, Any] = json.loads(body)
    return data


def head_of(cli: Cli) -> int:
    return int(json.loads(cli.ok("state", "--json"))["at"])


def test_serve_prints_a_link_per_party_character(table: Cli) -> None:
    with serving(table.db) as served:
        found = links_of(served)
        assert set(found) == {"Ann", "Bob"}  # the party's side; the Orc and the hidden Shade are foes
        secrets_ = [*found.values(), gm_token(served)]
        assert len(set(secrets_)) == 3 and all(len(s) >= 32 for s in secrets_)


def test_initiative_faces_typed_on_a_link_are_that_players(table: Cli) -> None:
    """Ann's link holds 17 for her initiative; the GM's `round` decides it as hers: 17 + 2
    (Dex) = 19 (srd-5.2-combat.md §2), and `explain` says her link rolled it."""
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        status, reply = player(served, ann, {"type": "faces", "key": "Ann", "faces": [17]})
        assert status == 200 and isinstance(reply, dict) and reply["result"]["kind"] == "held", reply
        assert read(served, ann)["held"] == ["Ann"]
        result = gm(served, {"type": "round"}, head_of(table))
        assert result["kind"] == "recorded", result
        event = result["events"][0]  # the round's start, with every initiative
        assert read(served, ann)["held"] == []  # used once
    explained = table.ok("explain", str(event))
    assert "Ann 19" in explained.splitlines()[0], explained
    assert "dice: 1d20 = 17 = 17 (Ann's dice, from Ann's link)" in explained, explained
    assert re.search(r"rolled \d+ \(score\): 19 = d20 \+ init\n\s+d20 \+17, init \+2\n"
                     r"\s+dice: 1d20 = 17 = 17 \(Ann's dice, from Ann's link\)", explained), explained
    assert explained.count("(rolled by skirmish)") == 3 and "the GM's dice" not in explained  # Bob, the Orc, the Shade
    data = json.loads(table.ok("explain", str(event), "--json"))
    sources = {d["roll"]["source"] for d in _numbers(data) if d.get("roll")}
    assert "player:Ann" in sources and "gm" not in sources


def _numbers(data: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(data, dict):
        if "roll" in data:
            found.append(data)
        for value in data.values():
            found += _numbers(value)
    elif isinstance(data, list):
        for value in data:
            found += _numbers(value)
    return found


def test_a_players_own_attack_faces_are_recorded_as_theirs(table: Cli) -> None:
    """Ann declares her attack on the Orc from her link with her d20 and damage dice: the
    same figures as the GM's line with the same faces on a copy (d20 15 + 5 = 20 against
    AC 13 hits; 4 + 2 = 6 damage: srd-5.2-combat.md), the dice marked as hers."""
    table.ok("round", "--roll", "Ann=20", "--roll", "Bob=2", "--roll", "Orc=1", "--roll", "Shade=1")
    twin = table.db + ".twin.db"
    shutil.copy(table.db, twin)
    at = head_of(table)
    attack = {"type": "declare", "who": "Ann", "action": "attack", "target": "Orc",
              "rolls": {"Ann": [15], "dmg:Ann": [4]}, "details": {"hit": "+5", "damage": "1d6+2"}}
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        status, reply = player(served, ann, attack, at)
        assert status == 200 and isinstance(reply, dict), reply
        result = reply["result"]
        assert result["kind"] == "recorded", result
        assert reply["frame"] is None  # a player reads no GM frame
        assert read(served, ann)["rest"][-1]["band"] in ("hurt", "badly hurt")
    explained = table.ok("explain", str(result["events"][0]))
    assert "Ann attacks Orc: 20 (d20 + attack bonus vs AC 13), hits" in explained.splitlines()[0], explained
    assert "1d20 = 15 = 15 (Ann's dice, from Ann's link)" in explained, explained
    damage = table.ok("explain", str(result["events"][1]))
    assert "6 damage" in damage.splitlines()[0] and "(Ann's dice, from Ann's link)" in damage, damage
    other = Cli(twin, table.capsys)
    other.ok("declare", "Ann", "attack", "--target", "Orc", "--with", "hit=+5", "--with", "damage=1d6+2",
             "--roll", "Ann=15", "--roll", "dmg:Ann=4")
    assert json.loads(other.ok("state", "--json"))["combatants"] == json.loads(table.ok("state", "--json"))["combatants"]


def test_a_players_dice_stay_theirs_when_the_past_is_amended(table: Cli) -> None:
    """Ann's attack from her link (d20 15 + 5 = 20 against AC 13 hits, 4 + 2 = 6 damage,
    as above); the GM then amends Bob's earlier damage to the Orc, so Ann's attack is
    decided again on the amended branch: the same faces, still her link's, the Orc at
    15 - 1 - 6 = 8 where the original branch has 15 - 3 - 6 = 6."""
    table.ok("round", "--roll", "Ann=20", "--roll", "Bob=2", "--roll", "Orc=1", "--roll", "Shade=1")
    table.ok("damage", "Orc", "3")
    hurt = head_of(table)
    attack = {"type": "declare", "who": "Ann", "action": "attack", "target": "Orc",
              "rolls": {"Ann": [15], "dmg:Ann": [4]}, "details": {"hit": "+5", "damage": "1d6+2"}}
    with serving(table.db) as served:
        status, reply = player(served, links_of(served)["Ann"], attack, hurt)
        assert status == 200 and isinstance(reply, dict) and reply["result"]["kind"] == "recorded", reply
    orc = {c["name"]: c for c in json.loads(table.ok("state", "--json"))["combatants"]}["Orc"]
    assert orc["vital"]["value"] == 6
    amended = json.loads(table.ok("amend", str(hurt), "--json", "--", "damage", "Orc", "1"))
    redone = amended["commands"][1]
    assert not redone["skipped"] and len(redone["new"]) == 2, amended
    table.ok("switch", amended["branch"])
    orc = {c["name"]: c for c in json.loads(table.ok("state", "--json"))["combatants"]}["Orc"]
    assert orc["vital"]["value"] == 8
    explained = table.ok("explain", str(redone["new"][0]))
    assert "Ann attacks Orc: 20" in explained.splitlines()[0], explained
    assert "1d20 = 15 = 15 (Ann's dice, from Ann's link)" in explained and "the GM's dice" not in explained, explained
    damage = table.ok("explain", str(redone["new"][1]))
    assert "(Ann's dice, from Ann's link)" in damage, damage


def test_no_client_says_whose_dice_they_are(table: Cli) -> None:
    """Whose dice a command's faces are is recorded by the server from the link they came
    by: a request that carries ``typed_by`` is refused on the GM's link and a player's, as
    is a proposal carrying it, and nothing is recorded."""
    table.ok("round", "--roll", "Ann=20", "--roll", "Bob=2", "--roll", "Orc=1", "--roll", "Shade=1")
    at = head_of(table)
    forged = {"type": "declare", "who": "Ann", "action": "attack", "target": "Orc", "rolls": {"Ann": [20]},
              "typed_by": {"Ann": "player:Bob"}}
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        for status, reply in (write(served, "/gm/run", gm_token(served), forged, at),
                              player(served, ann, forged, at),
                              player(served, ann, {"type": "propose", "command": forged}, at)):
            assert status == 400 and isinstance(reply, dict), reply
            assert "typed_by is set by the server" in reply["result"]["error"], reply
    assert head_of(table) == at


def test_a_link_acts_for_its_character_only(table: Cli) -> None:
    """Ann's link: Bob's action, Bob's dice, a foe's, a key of Bob's in her own action: each
    refused in one line, nothing recorded."""
    at = head_of(table)
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        for command in ({"type": "declare", "who": "Bob", "action": "dodge"},
                        {"type": "declare", "who": "Ann", "action": "dodge", "rolls": {"Bob": [3]}},
                        {"type": "declare", "who": "Ann", "action": "dodge", "rolls": {"dmg:Bob": [3]}},
                        {"type": "faces", "key": "Bob", "faces": [12]},
                        {"type": "faces", "key": "death:Bob", "faces": [12]},
                        {"type": "faces", "key": "Orc", "faces": [1]},
                        {"type": "propose", "command": {"type": "declare", "who": "Bob", "action": "dodge"}},
                        {"type": "propose", "command": {"type": "damage", "who": "Orc", "amount": 3,
                                                        "rolls": {"Orc": [1]}}}):
            status, reply = player(served, ann, command, at)
            assert status == 200 and isinstance(reply, dict), (command, reply)
            assert reply["result"]["kind"] == "refused" and "Ann" in reply["result"]["error"], (command, reply)
            assert "\n" not in reply["result"]["error"]
    assert head_of(table) == at


def test_every_tag_outside_the_player_row_is_refused(table: Cli) -> None:
    """Every request tag the door knows, sent on Ann's link about Ann: those the "player"
    row does not name are refused (the typed door's table), before anything is decided."""
    at = head_of(table)
    fields: dict[str, Any] = {"who": "Ann", "name": "X", "event": 1, "a": "main", "b": "main", "amount": 1,
                              "action": "dodge", "kind": "prone", "side": "party", "text": "hi", "to": "Anna",
                              "dice": "1d6", "id": 1, "key": "Ann", "faces": [3], "stats": {}, "bands": []}
    outside = sorted(set(r.TAGS) - r.ROLES["player"])
    assert {"next", "round", "damage", "undo", "accept", "decline", "revoke-link", "state", "explain"} <= set(outside)
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        for name in outside:
            kind = r.TAGS[name]
            body = {"type": name, **{k: v for k, v in fields.items() if k in kind.__struct_fields__}}
            status, reply = player(served, ann, body, at)
            assert isinstance(reply, dict), (name, reply)
            error = reply["result"]["error"]
            assert reply["result"]["kind"] == "refused" and error.count("\n") == 0, (name, reply)
            if status == 200:  # decoded: refused by the role
                assert "not for a player's link" in error, (name, error)
    assert head_of(table) == at


def test_writes_need_the_links_secret_and_the_same_origin(table: Cli) -> None:
    at = head_of(table)
    command = {"type": "faces", "key": "Ann", "faces": [5]}
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        assert player(served, "", command)[0] == 403
        assert player(served, gm_token(served), command)[0] == 403  # the GM's token is no player's link
        assert player(served, ann + "x", command)[0] == 403
        status, _ = write(served, "/player/run", None, command)
        assert status == 403
        status, _ = call(served, "POST", "/player/run", ann, {"command": command, "branch": "main", "head": 0, "tap": "t"},
                         {"Origin": "http://evil.example"})
        assert status == 403
        status, _ = call(served, "GET", "/player/state", None)
        assert status == 403
        status, _ = call(served, "GET", "/player/state", ann, headers={"Host": "evil.example"})
        assert status != 200
        status, _ = call(served, "POST", "/player/run", ann, {"command": {"type": "propose", "command": {
            "type": "damage", "who": "Orc", "amount": 1, "rolls": {"Ann": list(range(1, 9000))}}},
            "branch": "main", "head": 0, "tap": "t"})
        assert status in (400, 413)
        # A text field past its bound: refused in one line.
        status, reply = player(served, ann, {"type": "propose", "command": {"type": "declare", "who": "Ann",
                                                                              "action": "x" * 5000}})
        assert status == 400 and isinstance(reply, dict) and "characters" in reply["result"]["error"]
    assert head_of(table) == at


def test_a_revoked_link_is_refused_and_the_new_one_works(table: Cli) -> None:
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        bob = links_of(served)["Bob"]
        status, reply = player(served, bob, {"type": "revoke-link", "who": "Ann"})
        assert isinstance(reply, dict) and reply["result"]["kind"] == "refused"  # the GM's alone
        result = gm(served, {"type": "revoke-link", "who": "Ann"}, head_of(table))
        assert result["kind"] == "revoked", result
        new = result["data"]["link"].split("#", 1)[1]
        assert new != ann
        assert call(served, "GET", "/player/state", ann)[0] == 403
        assert player(served, ann, {"type": "faces", "key": "Ann", "faces": [5]})[0] == 403
        assert read(served, new)["who"] == "Ann"
        assert read(served, bob)["who"] == "Bob"  # the others' links stay
        assert new in served.said.read_text()  # said on the GM's terminal too


def test_a_proposal_accepted_becomes_the_command_and_names_its_proposer(table: Cli) -> None:
    """Ann proposes 4 damage to the Orc; the GM accepts: the log holds what the GM's own
    `damage Orc 4` holds (checked on a copy), then a note naming Ann."""
    twin = table.db + ".twin.db"
    shutil.copy(table.db, twin)
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        status, reply = player(served, ann, {"type": "propose", "command": {"type": "damage", "who": "Orc", "amount": 4}})
        assert status == 200 and isinstance(reply, dict) and reply["result"]["kind"] == "proposed", reply
        number = reply["result"]["data"]["id"]
        status, body = call(served, "GET", "/gm/state", gm_token(served))
        waiting = json.loads(body)["frame"]["proposals"]
        assert [(p["id"], p["who"], p["text"]) for p in waiting] == [(number, "Ann", "damage Orc 4")]
        assert read(served, ann)["proposals"] == [{"id": number, "text": "damage Orc 4"}]
        result = gm(served, {"type": "accept", "id": number}, head_of(table))
        assert result["kind"] == "recorded", result
        assert any("Proposed by Ann" in line for line in result["lines"])
        status, body = call(served, "GET", "/gm/state", gm_token(served))
        assert json.loads(body)["frame"]["proposals"] == []
    other = Cli(twin, table.capsys)
    other.ok("damage", "Orc", "4")
    assert json.loads(other.ok("state", "--json"))["combatants"] == json.loads(table.ok("state", "--json"))["combatants"]
    explained = table.ok("explain", str(result["events"][0]))
    assert "proposed by Ann on Ann's link" in explained, explained


def test_a_declined_proposal_leaves_the_log_as_it_was(table: Cli) -> None:
    before = table.ok("log", "--all")
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        _, reply = player(served, ann, {"type": "propose", "command": {"type": "effect", "who": "Orc", "kind": "prone"}})
        assert isinstance(reply, dict) and reply["result"]["kind"] == "proposed", reply
        number = reply["result"]["data"]["id"]
        result = gm(served, {"type": "decline", "id": number}, head_of(table))
        assert result["kind"] == "declined", result
        assert gm(served, {"type": "accept", "id": number}, head_of(table))["kind"] == "refused"  # gone
        assert read(served, ann)["proposals"] == []
    assert table.ok("log", "--all") == before


def test_the_proposals_are_bounded(table: Cli) -> None:
    at = head_of(table)
    with serving(table.db) as served:
        found = links_of(served)
        ann = found["Ann"]
        for n in range(r.PLAYER_PROPOSALS):
            _, reply = player(served, ann, {"type": "propose", "command": {"type": "damage", "who": "Orc", "amount": n + 1}})
            assert isinstance(reply, dict) and reply["result"]["kind"] == "proposed", reply
        _, reply = player(served, ann, {"type": "propose", "command": {"type": "damage", "who": "Orc", "amount": 9}})
        assert isinstance(reply, dict) and reply["result"]["kind"] == "refused", reply
        assert reply["result"]["error"].count("\n") == 0 and "waiting" in reply["result"]["error"]
        status, body = call(served, "GET", "/gm/state", gm_token(served))
        assert len(json.loads(body)["frame"]["proposals"]) == r.PLAYER_PROPOSALS
        # Held faces are bounded too: a key typed again replaces its faces.
        for n in range(r.PLAYER_HELD + 3):
            key = "Ann" if n == 0 else f"k{n}:Ann"
            _, reply = player(served, ann, {"type": "faces", "key": key, "faces": [2]})
            assert isinstance(reply, dict)
        assert len(read(served, ann)["held"]) == r.PLAYER_HELD
    assert r.PLAYER_PROPOSALS * 2 <= r.PROPOSALS <= 64  # a small cap overall, whatever the links
    assert head_of(table) == at


def test_a_players_read_shows_their_character_and_the_policy_for_the_rest(table: Cli) -> None:
    table.ok("damage", "Orc", "4")
    table.ok("damage", "Ann", "3")
    with serving(table.db) as served:
        found = links_of(served)
        ann = found["Ann"]
        status, body = call(served, "GET", "/player/state", ann)
        text = body.decode()
        data = json.loads(body)
    gm_view = {c["name"]: c for c in json.loads(table.ok("state", "--json"))["combatants"]}
    assert data["who"] == "Ann"
    me = data["me"]
    assert me["name"] == "Ann" and me["vital"]["value"] == 17 == gm_view["Ann"]["vital"]["value"]  # 20 - 3
    names = [c["name"] for c in data["rest"]]
    assert "Shade" not in names and "Shade" not in text  # hidden from the players
    orc = next(c for c in data["rest"] if c["name"] == "Orc")
    assert "vital" not in orc and orc["band"] in ("hurt", "badly hurt", "unhurt")
    assert orc["band"] == "hurt"  # 11 of 15 left: below full, above half
    assert "11" not in json.dumps(orc) and "15" not in json.dumps(orc)
    bob = next(c for c in data["rest"] if c["name"] == "Bob")
    assert bob["vital"]["value"] == 18  # the party's figures are the players' to see
    for secret in [*found.values(), urlsplit(served.gm_link()).fragment]:
        assert secret not in text
    assert "seed" not in text and "key" not in data
    assert "branch" not in data and "main" not in text  # no branch's name (the players' policy)


def test_the_player_read_passes_the_players_policy_checks(table: Cli, tmp_path: Path) -> None:
    """The players' policy suite's checks that apply to a read of one moment: no hidden
    combatant, no foe's vital figure or maximum, no foe's pending action, no secret."""
    table.ok("round", "--roll", "Ann=20", "--roll", "Bob=2", "--roll", "Orc=10", "--roll", "Shade=1")
    table.ok("note", "--private", "--on", "Orc", "the orc is a spy")
    with serving(table.db) as served:
        found = links_of(served)
        for who, secret in found.items():
            data = read(served, secret)
            text = json.dumps(data)
            assert "Shade" not in text and "spy" not in text
            for fighter in data["rest"]:
                if fighter["side"] == "foes":
                    assert set(fighter) == {"name", "side", "status", "acting", "band", "effects"}
            assert all(p["who"] not in ("Orc", "Shade") for p in data["pending"])
            assert "own" not in data["clock"] or not data["clock"]["own"] or data["clock"]["own"] == {}
            for other in [*found.values(), gm_token(served)]:
                assert other not in text
            assert data["me"]["name"] == who


def test_a_death_save_held_on_a_link_waits_for_the_turn_that_rolls_it(table: Cli) -> None:
    """Ann is down (srd-5.2-combat.md §9: a character at 0 HP makes a death save at the start
    of each of her turns). Her link holds 15 for ``death:Ann``: the GM's `next` to Bob's and
    the Orc's turns roll no death save, so the faces stay held (the GM's commands are not
    refused for them); the `next` that starts her turn decides it with her faces, as hers:
    15 is a success (10 or higher)."""
    table.ok("round", "--roll", "Ann=20", "--roll", "Bob=2", "--roll", "Orc=1", "--roll", "Shade=1")
    table.ok("damage", "Ann", "20")
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        _, reply = player(served, ann, {"type": "faces", "key": "death:Ann", "faces": [15]})
        assert isinstance(reply, dict) and reply["result"]["kind"] == "held", reply
        turns = []
        for _ in range(8):
            result = gm(served, {"type": "next"}, head_of(table))
            assert result["kind"] == "recorded", result
            turns.append(result)
            if not read(served, ann)["held"]:
                break
        assert read(served, ann)["held"] == []
        assert "Ann's turn" in " ".join(turns[-1]["lines"]) and len(turns) >= 3  # Bob's, the Orc's (and the Shade's) first
        saved = next(n for n, line in zip(turns[-1]["events"], turns[-1]["lines"]) if "death save" in line)
    explained = table.ok("explain", str(saved))
    assert "15" in explained.splitlines()[0] and "success" in explained.splitlines()[0], explained
    assert "1d20 = 15 = 15 (Ann's dice, from Ann's link)" in explained, explained
    assert "next" in explained  # the GM's command: the stored text is the GM's


def test_faces_that_fit_no_roll_never_block_the_gms_command(table: Cli) -> None:
    """Ann's link holds 25 for her initiative, which no d20 shows: the GM's `round` is
    recorded all the same, her initiative rolled by skirmish, and the faces are dropped."""
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        _, reply = player(served, ann, {"type": "faces", "key": "ann", "faces": [25]})
        assert isinstance(reply, dict) and reply["result"]["kind"] == "held", reply
        result = gm(served, {"type": "round"}, head_of(table))
        assert result["kind"] == "recorded", result
        assert read(served, ann)["held"] == []
    explained = table.ok("explain", str(result["events"][0]))
    assert "link" not in explained and "25" not in explained.split("\n", 1)[1], explained
    assert explained.count("(rolled by skirmish)") == 4  # Ann, Bob, the Orc, the Shade


def test_a_players_write_on_a_moved_board_is_refused(table: Cli) -> None:
    """Ann's attack decided on the board at one head, sent after the GM moved it: refused as
    the GM's own tap would be (exit 3), nothing recorded."""
    table.ok("round", "--roll", "Ann=20", "--roll", "Bob=2", "--roll", "Orc=1", "--roll", "Shade=1")
    at = head_of(table)
    table.ok("damage", "Orc", "1")
    attack = {"type": "declare", "who": "Ann", "action": "attack", "target": "Orc", "rolls": {"Ann": [15]},
              "details": {"hit": "+5", "damage": "1d6+2"}}
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        _, reply = player(served, ann, attack, at)
        assert isinstance(reply, dict) and reply["result"]["kind"] == "refused" and reply["result"]["code"] == 3, reply
    assert head_of(table) == at + 1


def test_a_character_marked_pc_on_another_side_has_a_link_too(cli: Cli) -> None:
    """srd-5.2 marks characters with ``pc`` (1 by default on a side named heroes; the stat
    given otherwise): Cleo of the heroes and Dax, a foe given pc=1, get links though --party
    is the default (players, party, pcs); the Wolf, a monster of the foes, does not."""
    cli.ok("new", "Keep", "--rules", "srd-5.2", "--option", "ties=dex")
    cli.ok("add", "Cleo", "--side", "heroes", "--stat", "hp=12", "--stat", "ac=13")
    cli.ok("add", "Dax", "--side", "foes", "--stat", "hp=12", "--stat", "ac=13", "--stat", "pc=1")
    cli.ok("add", "Wolf", "--side", "foes", "--stat", "hp=11", "--stat", "ac=13")
    with serving(cli.db) as served:
        assert set(links_of(served)) == {"Cleo", "Dax"}


def test_an_accepted_proposals_dice_are_the_proposers(table: Cli) -> None:
    """Bob proposes his attack with his own dice (d20 12: 12 + 4 = 16 against AC 13 hits; 3 + 2
    = 5 damage, srd-5.2-combat.md); the GM accepts it: the attack is recorded with Bob's dice
    as his, and a note names him."""
    table.ok("round", "--roll", "Ann=2", "--roll", "Bob=20", "--roll", "Orc=1", "--roll", "Shade=1")
    attack = {"type": "declare", "who": "Bob", "action": "attack", "target": "Orc", "rolls": {"Bob": [12], "dmg:Bob": [3]},
              "details": {"hit": "+4", "damage": "1d6+2"}}
    with serving(table.db) as served:
        bob = links_of(served)["Bob"]
        _, reply = player(served, bob, {"type": "propose", "command": attack})
        assert isinstance(reply, dict) and reply["result"]["kind"] == "proposed", reply
        result = gm(served, {"type": "accept", "id": reply["result"]["data"]["id"]}, head_of(table))
        assert result["kind"] == "recorded", result
    explained = table.ok("explain", str(result["events"][0]))
    assert "Bob attacks Orc: 16" in explained.splitlines()[0] and "hits" in explained.splitlines()[0], explained
    assert "1d20 = 12 = 12 (Bob's dice, from Bob's link)" in explained, explained
    assert "proposed by Bob on Bob's link" in explained
    damage = table.ok("explain", str(result["events"][1]))
    assert "5 damage" in damage.splitlines()[0] and "1d6 = 3 = 3 (Bob's dice, from Bob's link)" in damage, damage


def test_serves_requests_are_refused_by_the_library_in_one_line(tmp_path: Path) -> None:
    """faces, propose, accept, decline and revoke-link are answered by `serve` alone: the
    library's perform (the console's) refuses them in one line."""
    from skirmish.eventlog.errors import BadInput
    from skirmish.projections.door.perform import _read

    for request in (r.Faces(key="Ann", faces=(3,)), r.Accept(id=1), r.Decline(id=1), r.RevokeLink(who="Ann"),
                    r.Propose(command=Damage(who="Orc", amount=1))):
        with pytest.raises(BadInput, match="is `serve`'s"):
            _read(None, None, request)  # type: ignore[arg-type]


def test_a_concentration_save_held_on_a_link_is_the_players(table: Cli) -> None:
    """Ann concentrates on Bless; her link holds 9 for ``con:Ann``. The GM's `damage Ann 6`
    asks her save (srd-5.2-combat.md §11: DC max(10, half the damage) = 10; d20 9 + Con
    save 0 = 9, under 10: Concentration lost) and decides it with her faces, as hers."""
    table.ok("round", "--roll", "Ann=20", "--roll", "Bob=2", "--roll", "Orc=1", "--roll", "Shade=1")
    table.ok("declare", "Ann", "magic", "--with", "spell=Bless", "--with", "concentration=yes")
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        assert read(served, ann)["me"]["own"]["concentration"] == "Bless"  # her own figures, exactly
        _, reply = player(served, ann, {"type": "faces", "key": "con:Ann", "faces": [9]})
        assert isinstance(reply, dict) and reply["result"]["kind"] == "held", reply
        result = gm(served, {"type": "damage", "who": "Ann", "amount": 6}, head_of(table))
        assert result["kind"] == "recorded", result
        assert read(served, ann)["me"]["own"]["concentration"] == ""
    saved = next(n for n, line in zip(result["events"], result["lines"]) if "DC 10" in line)
    explained = table.ok("explain", str(saved))
    assert "Ann rolls 9 against DC 10" in explained.splitlines()[0], explained
    assert "1d20 = 9 = 9 (Ann's dice, from Ann's link)" in explained, explained
    assert "command: damage Ann 6 --roll con:Ann=9" in explained  # the GM's command, with the faces it took


def test_a_save_the_gm_asks_takes_the_players_faces(table: Cli) -> None:
    """The GM asks Ann a Dexterity save (`roll 1d20+2 --for Ann --why 'Dex save'`); her link
    holds 11 for ``save:Ann``: the roll is 11 + 2 = 13 with her dice, as hers. Bob's held
    save stays for his own."""
    with serving(table.db) as served:
        found = links_of(served)
        _, reply = player(served, found["Ann"], {"type": "faces", "key": "save:Ann", "faces": [11]})
        assert isinstance(reply, dict) and reply["result"]["kind"] == "held", reply
        _, reply = player(served, found["Bob"], {"type": "faces", "key": "save:Bob", "faces": [4]})
        assert isinstance(reply, dict) and reply["result"]["kind"] == "held", reply
        result = gm(served, {"type": "roll", "dice": "1d20+2", "who": "Ann", "why": "Dex save"}, head_of(table))
        assert result["kind"] == "recorded", result
        assert read(served, found["Ann"])["held"] == [] and read(served, found["Bob"])["held"] == ["save:Bob"]
    explained = table.ok("explain", str(result["events"][0]))
    assert "1d20+2 = 11 + 2 = 13" in explained.splitlines()[0], explained
    assert "1d20 = 11 = 11 (Ann's dice, from Ann's link)" in explained, explained
    logged = table.ok("log").splitlines()[-1]  # the log's own line says whose dice, as for the GM's
    assert logged.endswith("Roll for Ann (Dex save): 1d20+2 = 11 + 2 = 13 (Ann's dice, from Ann's link)"), logged


def test_initiative_faces_held_are_no_attacks_d20(table: Cli) -> None:
    """Faces held under Ann's own name are her Initiative: the GM's round that types her
    Initiative itself leaves them held, and so does the GM's declare of her attack (its d20,
    under her name too, is rolled by skirmish)."""
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        player(served, ann, {"type": "faces", "key": "Ann", "faces": [17]})
        result = gm(served, {"type": "round", "rolls": {"Ann": [20], "Bob": [2], "Orc": [1], "Shade": [1]}},
                    head_of(table))
        assert result["kind"] == "recorded" and read(served, ann)["held"] == ["Ann"], result
        attack = {"type": "declare", "who": "Ann", "action": "attack", "target": "Orc",
                  "details": {"hit": "+5", "damage": "1d6+2"}}
        result = gm(served, attack, head_of(table))
        assert result["kind"] == "recorded" and read(served, ann)["held"] == ["Ann"], result
    explained = table.ok("explain", str(result["events"][0]))
    assert "(rolled by skirmish)" in explained and "link" not in explained, explained


@pytest.mark.parametrize("fight", FIGHTS, ids=[f.ruleset for f in FIGHTS])
def test_the_players_policy_suites_fights_read_on_a_players_link(fight: Fight, tmp_path: Path) -> None:
    """The players' policy suite's fights (tests/page/test_players_policy.py: a what-if
    branch, a private note, a foe's exact figure, its pending action, a hidden foe, the dice
    key), read on the party member's own link: the checks of a read of one moment hold: no
    what-if, no private note, the foe banded as the suite says with no figure of its own, no
    pending action of the foe, no hidden foe, no dice key, no secret of any link."""
    db = tmp_path / "fight.db"
    for line in fight.script.strip().splitlines():
        assert run_cli(["--db", str(db), *shlex.split(line)]) == 0, line
    hidden = secrets_of(db)
    with serving(str(db)) as served:
        found = links_of(served)
        assert fight.party in found
        data = read(served, found[fight.party])
        every = [*found.values(), gm_token(served)]
    dump = json.dumps(data)
    assert data["me"]["name"] == fight.party
    assert "what-if" not in dump and fight.what_if not in dump
    assert NOTE not in dump
    foe = next(c for c in data["rest"] if c["name"] == fight.foe)
    assert foe["band"] == fight.band and set(foe) == {"name", "side", "status", "acting", "band", "effects"}
    assert not re.search(r"\d", json.dumps(foe)) and fight.exact not in dump
    assert fight.foe not in {p["who"] for p in data["pending"]}
    assert "Lurker" not in dump
    assert hidden.key not in dump and "seed" not in dump
    assert not any(secret in dump for secret in every)


def test_a_players_reply_tells_no_foes_figure_and_no_hidden_name(table: Cli) -> None:
    """Ann's attack on the Orc from her link: her reply names the events recorded, not the
    Orc's HP left (her read bands it); an attack on the hidden Shade is answered as one on a
    name nobody has, nothing recorded."""
    table.ok("round", "--roll", "Ann=20", "--roll", "Bob=2", "--roll", "Orc=1", "--roll", "Shade=1")
    at = head_of(table)
    attack = {"type": "declare", "who": "Ann", "action": "attack", "rolls": {"Ann": [15], "dmg:Ann": [4]},
              "details": {"hit": "+5", "damage": "1d6+2"}}
    with serving(table.db) as served:
        ann = links_of(served)["Ann"]
        _, hidden = player(served, ann, {**attack, "target": "Shade"}, at)
        _, nobody = player(served, ann, {**attack, "target": "Nobody"}, at)
        assert isinstance(hidden, dict) and isinstance(nobody, dict)
        assert hidden["result"]["error"].replace("Shade", "X") == nobody["result"]["error"].replace("Nobody", "X")
        assert head_of(table) == at
        _, reply = player(served, ann, {**attack, "target": "Orc"}, at)
        assert isinstance(reply, dict) and reply["result"]["kind"] == "recorded", reply
    text = json.dumps(reply)
    assert "9 HP" not in text and "HP left" not in text  # 15 - 6 = 9: the GM's to know
    assert table.ok("state", "--json").count('"Orc"') == 1


def test_each_players_link_is_printed_with_a_qr_code_of_it() -> None:
    """`serve` on the table's network: each character's line with its link, and a QR code of
    exactly that link (cli/links.py draws it, tests/page/test_serve_links.py reads it); on
    loopback, the lines without a code, as for the GM's link."""
    pytest.importorskip("segno")
    from skirmish.cli import gm_server, links

    class Desk:
        def open_links(self, party: Any) -> dict[str, str]:
            assert tuple(party) == ("party",)
            return {"Ann": "ann-secret", "Bob": "bob-secret"}

    for no_qr in ("", "No QR code: a phone cannot open 127.0.0.1"):
        told = links.Told([], "http://192.0.2.7:8000/gm#the-gm-token", no_qr)
        lines: list[str] = []
        codes: list[str] = []
        gm_server.tell_players(Desk(), ("party",), told, True, False, lines.append, codes.append)  # type: ignore[arg-type]
        assert [line.split(" (")[0] for line in lines] == ["Ann's link: http://192.0.2.7:8000/player#ann-secret",
                                                          "Bob's link: http://192.0.2.7:8000/player#bob-secret"]
        assert not any("the-gm-token" in line for line in lines + codes)
        expected = ["\n".join(links.qr_lines(f"http://192.0.2.7:8000/player#{s}")) for s in ("ann-secret", "bob-secret")]
        assert codes == ([] if no_qr else expected)


def test_a_character_who_joins_later_gets_a_link_from_the_gm(table: Cli) -> None:
    """Cleo joins the party while `serve` runs: the GM's `revoke-link Cleo` makes her first
    link; the Orc, a foe, gets none."""
    with serving(table.db) as served:
        links_of(served)
        table.ok("add", "Cleo", "--side", "party", "--stat", "hp=9", "--stat", "ac=11")
        assert gm(served, {"type": "revoke-link", "who": "Orc"}, head_of(table))["kind"] == "refused"
        result = gm(served, {"type": "revoke-link", "who": "Cleo"}, head_of(table))
        assert result["kind"] == "revoked", result
        assert read(served, result["data"]["link"].split("#", 1)[1])["me"]["name"] == "Cleo"
