"""Old logs: a database written by an earlier skirmish replays to the same state, forever.

tests/fixtures/bridge-ambush.db is samples/bridge-ambush.skirmish as skirmish 0.1.0
(schema 1) stored it, made once by tests/fixtures/make_fixtures.py and committed with
what it must replay to (bridge-ambush.expected.json). Event layouts may move on; each
change bumps the event's ``version`` and registers an upcaster (eventlog/events.py) that
turns the old stored body into the new layout when it is read. The stored bytes are
never rewritten, so the hash chain, and ``verify``'s digest, stay as they were.

tests/fixtures/exports/ holds every sample fight (one per ruleset) exported as JSON lines
(tests/fixtures/make_exports.py), with the digest and states each must import to.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import msgspec
import pytest

from skirmish.eventlog.errors import StoreError
from skirmish.eventlog.events import Codec
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter, codec_for

from support.cli import Cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OLD_DB = FIXTURES / "bridge-ambush.db"
EXPECTED: dict[str, Any] = json.loads((FIXTURES / "bridge-ambush.expected.json").read_text())


def agrees_with_view_1(new: dict[str, Any], old: dict[str, Any]) -> None:
    """A state as `state --json` prints it now (view 2: projections/view.py) holds every
    figure the committed view-1 state (written by skirmish 0.1.0) held, with its value.

    View 1 put each ruleset's figures at the top level of a combatant; view 2 keeps them
    in ``own`` beside the core (the vital figure, the budget, effects). Every view-1 figure
    still kept under its name is compared, the vital one through ``vital``; effects by
    kind and rounds left; pending actions by who and what.
    """
    assert new["view"] == 2
    for key in ("encounter", "ruleset", "at"):
        assert new[key] == old[key], key
    if old["at"] == old["head"]:  # view 1 named the current branch and head for any --at
        assert (new["branch"], new["head"]) == (old["branch"], old["head"])
    assert new["clock"]["round"] == old["round"]
    old_rows = {c["name"]: c for c in old["combatants"]}
    new_rows = {c["name"]: c for c in new["combatants"]}
    assert set(new_rows) == set(old_rows)
    compared = 0
    for name, was in old_rows.items():
        now = new_rows[name]
        flat = {**now["own"], "side": now["side"], now["vital"]["name"].replace(" ", "_"): now["vital"]["value"]}
        for key, value in was.items():
            if key in flat:
                kept = flat[key]
                if isinstance(kept, list) and (value is None or isinstance(value, str)):
                    # phases' acts_in: "4 3 2 1" is now [4, 3, 2, 1], and None (acts in no phase) []
                    kept = " ".join(str(v) for v in kept) or None
                assert kept == value, (name, key, kept, value)
                compared += 1
        lasting = {e["kind"]: e["left"] for e in now["effects"]}
        for effect in was.get("effects", []):
            assert effect["kind"] in lasting, (name, effect)
            if "rounds" in effect and effect["rounds"] is not None:
                assert lasting[effect["kind"]] == effect["rounds"], (name, effect)
    # Three figures a combatant at least (the side, the vital figure and one more): a
    # rename that drops them all from the comparison fails here, not silently.
    assert compared >= 3 * len(old_rows), compared
    assert sorted((p["who"], p["action"]) for p in new["pending"]) == sorted(
        (p["who"], p["action"]) for p in old["pending"])


def rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    raw = sqlite3.connect(path)
    try:
        return {t: raw.execute(f"SELECT * FROM {t} ORDER BY id").fetchall()
                for t in ("encounters", "commands", "events", "head_moves")}
    finally:
        raw.close()


@pytest.fixture
def old_log(tmp_path: Path, cli: Cli) -> Path:
    """A copy of the committed file (opening one writes -wal and -shm beside it)."""
    path = tmp_path / "old.db"
    shutil.copy(OLD_DB, path)
    cli.db = str(path)
    return path


def test_the_old_log_replays_to_the_state_it_was_written_with(cli: Cli, old_log: Path) -> None:
    now = json.loads(cli.ok("state", "--json"))
    agrees_with_view_1(now, EXPECTED["state"])
    branches = {b["name"]: b["head"] for b in json.loads(cli.ok("branches", "--json"))}
    what_if = json.loads(cli.ok("state", "--json", "--at", str(branches["what-if"])))
    agrees_with_view_1(what_if, EXPECTED["what_if"])
    assert what_if["branch"] == "what-if"  # view 1 named the current branch here
    assert [json.loads(line)["kind"] for line in cli.ok("log", "--all", "--json").splitlines()] == EXPECTED["events"]
    # Replaying step by step ends where the fold does.
    store = Store(str(old_log), create=False)
    try:
        enc = Encounter.open(store)
        *_, (_, last) = enc.replay()
        shown = json.loads(msgspec.json.encode(enc.ruleset.view(last)))
        assert shown == {k: v for k, v in now.items() if k in shown}
    finally:
        store.close()


def test_the_old_log_verifies_to_its_digest_and_reading_rewrites_nothing(cli: Cli, old_log: Path) -> None:
    before = rows(old_log)
    cli.ok("verify", "--expect", EXPECTED["digest"])
    cli.ok("state", "--json")
    cli.ok("log", "--all", "--json")
    cli.ok("replay")
    assert rows(old_log) == before
    assert rows(OLD_DB) == before  # and the committed file is what it was when written


def test_play_goes_on_in_an_old_log(cli: Cli, old_log: Path) -> None:
    """New events (current layouts) follow old ones (stored layouts) on one branch."""
    # The Orc is down in the old log: it rolls no initiative (ap-countdown.md, Initiative).
    cli.ok("round", "--roll", "Hauser=5,5", "--roll", "Mira=5,5", "--roll", "Archer=2,2")
    cli.ok("damage", "Orc", "2")
    view = json.loads(cli.ok("state", "--json"))
    orc = next(c for c in view["combatants"] if c["name"] == "Orc")
    assert orc["own"]["damage"] == next(c for c in EXPECTED["state"]["combatants"] if c["name"] == "Orc")["damage"] + 2
    cli.ok("verify")


# --- upcasting ---------------------------------------------------------------------------------


def stored_versions(path: Path) -> dict[str, int]:
    raw = sqlite3.connect(path)
    try:
        return dict(raw.execute("SELECT kind, max(version) FROM events GROUP BY kind"))
    finally:
        raw.close()


def test_the_fixture_still_holds_events_of_an_older_layout() -> None:
    """At least one kind of event in the old log is stored in a version older than today's:
    the replay above goes through an upcaster, not just the current decoder."""
    codec = codec_for("ap-countdown")
    stored = stored_versions(OLD_DB)
    assert stored == EXPECTED["versions"]
    older = {kind: v for kind, v in stored.items() if v < codec.versions[kind]}
    assert older, "no event of the fixture is older than today's layouts"


def test_old_damage_events_are_upcast_on_read_and_stored_as_they_were(old_log: Path) -> None:
    """ap.damage-taken version 1 stored the hits taken as ``amount``; version 2 calls them ``hits``."""
    store = Store(str(old_log), create=False)
    try:
        enc = Encounter.open(store)
        old = [r for r in store.all_events(enc.row.id) if r.kind == "ap.damage-taken"]
        assert old and all(r.version == 1 for r in old)
        for row in old:
            body = json.loads(row.body)
            assert "amount" in body and "hits" not in body  # the bytes as version 1 wrote them
            event = enc.decode(row).event
            assert type(event).__name__ == "DamageTaken" and event.version == 2
            upcast = json.loads(enc.codec.encode(event))
            # Fields added to a derivation since (``per``) come back at their defaults.
            assert upcast["hits"].pop("per") == 1
            assert upcast == {**{k: v for k, v in body.items() if k != "amount"}, "hits": body["amount"]}
    finally:
        store.close()


def test_new_damage_is_stored_in_the_new_layout_beside_the_old(cli: Cli, old_log: Path) -> None:
    cli.ok("damage", "Orc", "2")
    raw = sqlite3.connect(old_log)
    try:
        stored = raw.execute("SELECT version, body FROM events WHERE kind = 'ap.damage-taken' ORDER BY id").fetchall()
    finally:
        raw.close()
    assert {v for v, _ in stored} == {1, 2}
    assert stored[-1][0] == 2 and '"hits":{"value":2' in stored[-1][1]
    log = [json.loads(line) for line in cli.ok("log", "--json").splitlines() if '"ap.damage-taken"' in line]
    assert all("hits" in e and "amount" not in e for e in log)  # one layout for readers, whatever was stored
    cli.ok("verify")


def append_raw(path: Path, kind: str, version: int, body: bytes) -> None:
    """What a newer skirmish might have written: a row this one cannot read."""
    from skirmish.eventlog.store import NewEvent

    store = Store(str(path), create=False)
    try:
        enc = Encounter.open(store)
        store.append(enc.row.id, enc.head(), "from the future", b"{}", [NewEvent(kind, version, body)])
    finally:
        store.close()


@pytest.mark.parametrize(("kind", "version", "error"), [
    ("ap.damage-taken", 3, "Error: event {id} (ap.damage-taken) cannot be read: it has layout version 3, this "
                           "skirmish knows 2: it was written by a newer skirmish; upgrade to read it"),
    ("ap.morale-broken", 1, "Error: event {id} (ap.morale-broken) cannot be read: this skirmish does not know its "
                            "kind: it was written by a newer skirmish or a newer version of the encounter's "
                            "ruleset; upgrade to read it"),
])
def test_an_event_from_a_newer_skirmish_is_one_clear_error(
    cli: Cli, old_log: Path, kind: str, version: int, error: str
) -> None:
    append_raw(old_log, kind, version, b'{"type":"' + kind.encode() + b'","who":"Orc","hits":{"value":1}}')
    before = rows(old_log)
    error = error.format(id=before["events"][-1][0])
    assert cli.fails("state") == error
    assert cli.fails("damage", "Orc", "1") == error
    assert cli.code == 5
    assert rows(old_log) == before
    cli.ok("verify")  # the hash chain does not need to understand an event to check it


@pytest.mark.parametrize(("version", "body", "why"), [
    (2, b'{"type":"ap.damage-taken","who":"Orc","hits":{"val', "Input data was truncated"),
    (2, b'{"type":"ap.damage-taken",,}', "JSON is malformed"),
    (2, b'{"type":"ap.damage-taken","who":"Orc"}', "missing required field `hits`"),
    (2, b'["ap.damage-taken","Orc"]', "Expected `object`, got `array`"),
    (1, b'{"type":"ap.damage-taken","who":"Orc","hits_left":3}',
     "its body is not layout version 1 of ap.damage-taken: it has no field 'amount'"),
    (1, b'{"type":"ap.damage-taken","who":"Orc","amount":7,"hits_left":3}', "Expected `object`, got `int`"),
    (0, b'{"type":"ap.damage-taken","who":"Orc"}', "it has layout version 0, which no skirmish writes"),
    (99, b'{}', "it has layout version 99, this skirmish knows 2"),
])
def test_a_stored_event_that_cannot_be_read_is_one_store_error_naming_its_row(
    cli: Cli, old_log: Path, version: int, body: bytes, why: str
) -> None:
    """Whatever is wrong with a stored body, the reader gets one StoreError (exit 5) naming the
    row and its kind: never a KeyError or a msgspec error, shown as an internal error."""
    append_raw(old_log, "ap.damage-taken", version, body)
    row = rows(old_log)["events"][-1][0]
    store = Store(str(old_log), create=False)
    try:
        enc = Encounter.open(store)
        for read in (lambda: enc.state_at(row), lambda: list(enc.replay()), lambda: enc.log(everything=True)):
            with pytest.raises(StoreError) as raised:
                read()
            assert str(raised.value).startswith(f"event {row} (ap.damage-taken) cannot be read: "), raised.value
            assert why in str(raised.value)
    finally:
        store.close()
    assert cli.fails("state").startswith(f"Error: event {row} (ap.damage-taken) cannot be read: ")
    assert cli.code == 5


def test_upcasters_run_one_version_at_a_time() -> None:
    import msgspec

    from skirmish.eventlog.events import Event

    class Wound(Event, frozen=True, tag="test.wound"):
        version = 3
        where: str
        hits: int
        bleeding: bool = False

    steps: list[int] = []

    def v1(body: dict[str, Any]) -> dict[str, Any]:  # 1 -> 2: "amount" renamed "hits"
        steps.append(1)
        return {**{k: v for k, v in body.items() if k != "amount"}, "hits": body["amount"]}

    def v2(body: dict[str, Any]) -> dict[str, Any]:  # 2 -> 3: "location" split into where and bleeding
        steps.append(2)
        where, _, bleeding = body.pop("location").partition("+")
        return {**body, "where": where, "bleeding": bleeding == "bleeding"}

    codec = Codec([Wound], {("test.wound", 1): v1, ("test.wound", 2): v2})
    old = b'{"type":"test.wound","location":"arm+bleeding","amount":4}'
    assert codec.decode(old, "test.wound", 1, 1) == Wound(where="arm", hits=4, bleeding=True)
    assert steps == [1, 2]
    middle = b'{"type":"test.wound","location":"leg","hits":2}'
    assert codec.decode(middle, "test.wound", 2, 2) == Wound(where="leg", hits=2)
    assert steps == [1, 2, 2]
    current = msgspec.json.encode(Wound(where="head", hits=9))
    assert codec.decode(current, "test.wound", 3, 3) == Wound(where="head", hits=9)
    assert steps == [1, 2, 2]
    with pytest.raises(StoreError, match="layout version 4, this skirmish knows 3"):
        codec.decode(current, "test.wound", 4, 1)


def test_upcasters_on_the_event_class_run_one_version_at_a_time() -> None:
    from skirmish.eventlog.events import Event

    class Wound(Event, frozen=True, tag="test.wound"):
        version = 3
        where: str
        hits: int

        @staticmethod
        def upcast_v1_v2(body: dict[str, Any]) -> dict[str, Any]:
            return {**{k: v for k, v in body.items() if k != "amount"}, "hits": body["amount"]}

        @staticmethod
        def upcast_v2_v3(body: dict[str, Any]) -> dict[str, Any]:
            return {**{k: v for k, v in body.items() if k != "location"}, "where": body["location"]}

    codec = Codec([Wound], {})
    assert codec.decode(b'{"type":"test.wound","location":"arm","amount":4}', "test.wound", 1, 1) == Wound(
        where="arm", hits=4
    )


def test_a_codec_is_not_built_with_a_step_of_an_upcaster_chain_missing() -> None:
    """A gap fails when the ruleset's codec is built, naming the event and the step, not
    when (maybe months later) an old row of that version is read."""
    from skirmish.eventlog.events import Event

    class Wound(Event, frozen=True, tag="test.wound"):
        version = 3
        hits: int

        @staticmethod
        def upcast_v1_v2(body: dict[str, Any]) -> dict[str, Any]:
            return body

    with pytest.raises(TypeError, match=r"event test\.wound \(Wound\) is at layout version 3 but has no "
                                        r"upcaster from version 2 to 3: give the class a static method upcast_v2_v3"):
        Codec([Wound], {})
    # The step may be registered by tag instead; the first one missing is named.
    assert Codec([Wound], {("test.wound", 2): lambda body: body}).versions == {"test.wound": 3}
    with pytest.raises(TypeError, match="two upcasters from version 1 to 2"):
        Codec([Wound], {("test.wound", 1): lambda body: body, ("test.wound", 2): lambda body: body})

    class Scar(Event, frozen=True, tag="test.scar"):
        version = 2
        where: str

    with pytest.raises(TypeError, match=r"event test\.scar \(Scar\) is at layout version 2 but has no upcaster "
                                        "from version 1 to 2"):
        Codec([Scar], {})


EXPORTS = sorted((FIXTURES / "exports").glob("*.jsonl"))


def test_there_is_an_old_export_of_every_ruleset() -> None:
    from skirmish.projections.ruleset import BUILT_IN

    rulesets = {json.loads(p.with_suffix(".expected.json").read_text())["ruleset"] for p in EXPORTS}
    assert rulesets == set(BUILT_IN)


@pytest.mark.parametrize("export", EXPORTS, ids=[p.stem for p in EXPORTS])
def test_an_old_export_imports_to_the_state_and_digest_it_was_written_with(cli: Cli, export: Path) -> None:
    """tests/fixtures/exports/*.jsonl: each sample exported by an earlier skirmish
    (tests/fixtures/make_exports.py), committed with what it must import to."""
    expected = json.loads(export.with_suffix(".expected.json").read_text())
    before = export.read_bytes()
    cli.ok("import", str(export))
    assert cli.ok("verify").split("digest ")[1].strip() == expected["digest"]
    heads = {b["name"]: b["head"] for b in json.loads(cli.ok("branches", "--json"))}
    assert set(heads) == set(expected["heads"])
    for name, head in heads.items():
        now, was = json.loads(cli.ok("state", "--json", "--at", str(head))), expected["heads"][name]
        if "view" in was:  # written as view 2 or later: every figure it held is still there
            holds(now, was)
        else:
            agrees_with_view_1(now, was)
    assert export.read_bytes() == before


def holds(new: Any, old: Any, where: str = "state") -> None:
    """``new`` holds every field ``old`` held, with its value (a field added since is fine)."""
    if isinstance(old, dict):
        assert isinstance(new, dict), where
        for key, value in old.items():
            assert key in new, f"{where}.{key}"
            holds(new[key], value, f"{where}.{key}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), where
        for i, (a, b) in enumerate(zip(new, old)):
            holds(a, b, f"{where}[{i}]")
    else:
        assert new == old, (where, new, old)
