"""The GM's page of `skirmish serve` over HTTP: who may write (the token, the same origin,
the Host), that a tap records exactly what the CLI line records, that a refusal or a write
on a moved board records nothing, and that the GM's stream carries what changed.

Each test runs the real command as a process (tests/support/served.py) and checks the file
from outside with the command line. What is expected comes from the same line typed at the
CLI on a copy of the file (one path for every write), or from the rules text where a figure
is named (the comments say how)."""

from __future__ import annotations

import http.client
import json
import secrets
import shutil
import socket
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from skirmish.projections.door.requests import to_json
from skirmish.projections.door.words import parse
from skirmish.projections.ruleset import get_ruleset
from support.cli import Cli
from support.served import Served, serving

pytestmark = pytest.mark.slow  # a real server per test

pytest.importorskip("uvicorn")


@pytest.fixture(autouse=True)
def unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKIRMISH_ENCOUNTER", raising=False)
    monkeypatch.delenv("SKIRMISH_BRANCH", raising=False)


@pytest.fixture
def bridge(cli: Cli) -> Cli:
    """#1 the encounter, #2 the Orc (30 hits, a foe), #3 Hauser (40 hits, a player)."""
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    return cli


def token_of(served: Served) -> str:
    link = urlsplit(served.gm_link())
    assert link.path == "/gm" and link.query == ""  # the secret is after '#': never sent in a request line
    return link.fragment


def request(served: Served, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
            raw: bytes | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    sent = {"Content-Type": "application/json", **(headers or {})} if data is not None else dict(headers or {})
    conn.request(method, path, body=data, headers=sent)
    answer = conn.getresponse()
    out = answer.status, answer.read()
    conn.close()
    return out


def typed(words: list[str] | dict[str, Any]) -> dict[str, Any]:
    """A command's JSON form: given as a dict, or the command line ``words`` stand for (the
    parser is tested in tests/cli/test_one_parser.py; here, the server)."""
    if isinstance(words, dict):
        return words
    return to_json(parse(words, lambda: get_ruleset("ap-countdown")).request)  # the bridge's: its own --ap


def asked(words: list[str] | dict[str, Any], head: int, branch: str = "main", tap: str | None = None) -> dict[str, Any]:
    return {"command": typed(words), "branch": branch, "head": head, "tap": tap or secrets.token_hex(8)}


def post(served: Served, token: str | None, words: list[str] | dict[str, Any], head: int, branch: str = "main",
         headers: dict[str, str] | None = None, tap: str | None = None) -> tuple[int, dict[str, Any] | bytes]:
    """Post a typed command; its reply as the command line would have said it: code, out
    (its lines) and err (its one `Error:` line), and whether it was ``repeated``."""
    sent = dict(headers or {})
    if token is not None:
        sent["X-Skirmish-Token"] = token
    status, body = request(served, "POST", "/gm/run", asked(words, head, branch, tap), sent)
    if status not in (200, 400):
        return status, body
    reply = json.loads(body)
    result = reply["result"]
    out = "".join(f"{line}\n" for line in result["lines"]) if result["kind"] != "refused" else ""
    err = f"Error: {result['error']}\n" if result["kind"] == "refused" else ""
    return status, {"code": result["code"], "out": out, "err": err, "repeated": reply["repeated"]}


def everything(cli: Cli) -> list[dict[str, Any]]:
    """Every event, head move and undone event of the file as `log --all --json` prints them,
    without the wall-clock time they were recorded at."""
    out = cli.ok("log", "--all", "--json")
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    for row in rows:
        row.pop("recorded_at", None)
    return rows


def commands(db: str) -> list[str]:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return [text for (text,) in conn.execute("SELECT text FROM commands ORDER BY id")]


# --- who may write ---------------------------------------------------------------------------------

@pytest.mark.parametrize("token", [None, "", "not-the-token"], ids=["none", "empty", "wrong"])
def test_a_write_without_the_token_or_with_a_wrong_one_is_403_and_records_nothing(bridge: Cli, token: str | None) -> None:
    before = everything(bridge)
    with serving(bridge.db) as served:
        real = token_of(served)
        assert token != real
        status, body = post(served, token, ["damage", "Orc", "7"], head=3)
        assert status == 403, body
        assert body == b"a write needs the GM's token (the link serve printed)\n"
        # The secret is not in the query either: a token in the address is no token.
        status, _ = request(served, "POST", f"/gm/run?token={real}", {**asked(["damage", "Orc", "7"], 3), "branch": "main",
                                                                      "head": 3})
        assert status == 403
    assert everything(bridge) == before


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},  # a script on another site
    {"Origin": "null"},  # a sandboxed frame or a file
    {"Sec-Fetch-Site": "cross-site"},  # a form on another site, as Chromium labels it
    {"Sec-Fetch-Site": "same-site"},  # another port or subdomain is another origin
], ids=["origin", "null-origin", "cross-site", "same-site"])
def test_a_cross_origin_post_is_refused_even_with_the_token(bridge: Cli, headers: dict[str, str]) -> None:
    before = everything(bridge)
    with serving(bridge.db) as served:
        status, body = post(served, token_of(served), ["damage", "Orc", "7"], head=3, headers=headers)
        assert status == 403
        assert body == b"a write comes from the GM's page only (same origin)\n"
    assert everything(bridge) == before


def test_a_form_post_is_not_a_write(bridge: Cli) -> None:
    """A cross-site HTML form can send text/plain or form data without asking first; a write
    is JSON, which a page of another site cannot send without the server's leave."""
    before = everything(bridge)
    with serving(bridge.db) as served:
        status, _ = request(served, "POST", "/gm/run", raw=json.dumps(asked(["damage", "Orc", "7"], 3)).encode(),
                            headers={"Content-Type": "text/plain", "X-Skirmish-Token": token_of(served)})
        assert status == 415
    assert everything(bridge) == before


def test_the_gms_data_and_stream_need_the_token_and_its_shell_holds_none(bridge: Cli) -> None:
    bridge.ok("note", "1", "reinforcements at round 3", "--private")
    with serving(bridge.db) as served:
        token = token_of(served)
        assert request(served, "GET", "/gm/state")[0] == 403
        assert request(served, "GET", "/gm/state", headers={"X-Skirmish-Token": "nope"})[0] == 403
        assert request(served, "GET", "/gm/events?token=nope")[0] == 403
        status, shell = request(served, "GET", "/gm")
        assert status == 200
        assert b"Orc" not in shell and b"Hauser" not in shell and token.encode() not in shell
        status, state = request(served, "GET", "/gm/state", headers={"X-Skirmish-Token": token})
        assert status == 200
        names = [c["name"] for c in json.loads(state)["frame"]["board"]["combatants"]]
        assert sorted(names) == ["Hauser", "Orc"]


def test_each_server_makes_its_own_token(bridge: Cli) -> None:
    with serving(bridge.db) as one:
        first = token_of(one)
    with serving(bridge.db) as two:
        second = token_of(two)
    assert first != second
    assert len(first) >= 32  # token_urlsafe(24): 192 random bits


@pytest.mark.parametrize("path", ["/", "/events", "/gm/run"])
@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_the_players_routes_refuse_writes(bridge: Cli, path: str, method: str) -> None:
    before = everything(bridge)
    with serving(bridge.db) as served:
        status, _ = request(served, method, path, asked(["damage", "Orc", "7"], 3))
        if path == "/gm/run" and method == "POST":
            assert status == 403  # the GM's route, and no token
        else:
            assert status == 405
        _, page = request(served, "GET", "/")
        assert b"/gm" not in page and token_of(served).encode() not in page
    assert everything(bridge) == before


@pytest.mark.parametrize("path", ["/gm", "/gm/state", "/gm/run"])
def test_a_forged_host_is_refused_on_the_gms_routes(bridge: Cli, path: str) -> None:
    """DNS rebinding: a site whose name was pointed at 127.0.0.1 sends its own name."""
    before = everything(bridge)
    with serving(bridge.db) as served:
        token = token_of(served)
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        conn.putrequest("POST" if path == "/gm/run" else "GET", path, skip_host=True)
        conn.putheader("Host", f"evil.example:{served.port}")
        conn.putheader("X-Skirmish-Token", token)
        body = json.dumps(asked(["damage", "Orc", "7"], 3)).encode()
        if path == "/gm/run":
            conn.putheader("Content-Type", "application/json")
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body if path == "/gm/run" else None)
        answer = conn.getresponse()
        assert answer.status == 421
        assert b"Orc" not in answer.read()
        conn.close()
    assert everything(bridge) == before


# --- one path for every write ---------------------------------------------------------------------

TURN = [
    ["round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5"],
    ["declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc"],  # a tap logs the ruleset's own flag as the GM types it
    ["next"],
    ["damage", "Orc", "7"],
    ["effect", "Orc", "bleeding", "--per-round", "2"],
    ["undo"],
    ["redo"],
]


def test_taps_record_what_the_cli_lines_record(bridge: Cli, tmp_path: Path) -> None:
    typed = str(tmp_path / "typed.db")
    shutil.copy(bridge.db, typed)
    at_the_cli = Cli(typed, bridge.capsys)
    with serving(bridge.db) as served:
        token = token_of(served)
        head = 3
        for words in TURN:
            status, reply = post(served, token, words, head)
            assert status == 200 and isinstance(reply, dict)
            out = at_the_cli.ok(*words)
            assert (reply["code"], reply["out"], reply["err"]) == (0, out, at_the_cli.err), words
            assert not reply["repeated"]
            head = json.loads(at_the_cli.ok("state", "--json"))["head"]
    assert everything(bridge) == everything(at_the_cli)
    assert commands(bridge.db) == commands(typed)
    assert commands(bridge.db)[-7:] == [" ".join(w) for w in TURN]  # as typed (no word needs quoting)


@pytest.mark.parametrize("words", [
    ["damage", "Nobody", "3"],  # no such combatant
    ["damage", "Orc", "-5"],  # damage must be at least 1 hit (docs/tutorial.md)
    ["declare", "Hauser", "melee-attack", "--ap", "3"],  # no round started
    {"type": "undo", "steps": "many"},  # not the command's shape
    {"type": "export", "out": "/tmp/x"},  # a file of the GM's machine: the shell's business
    {"type": "damage", "who": "Orc", "amount": 1, "db": "/tmp/other.db"},  # a field it has not: refused, not ignored
], ids=["unknown", "negative", "no-round", "shape", "export", "db"])
def test_a_refusal_returns_its_one_line_and_records_nothing(bridge: Cli, tmp_path: Path, words: Any) -> None:
    before = everything(bridge)
    typed_db = str(tmp_path / "typed.db")
    shutil.copy(bridge.db, typed_db)
    with serving(bridge.db) as served:
        status, reply = post(served, token_of(served), words, head=3)
    assert status == (200 if isinstance(words, list) else 400) and isinstance(reply, dict)
    assert reply["code"] != 0 and reply["out"] == ""
    lines = reply["err"].strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), reply
    if isinstance(words, list):  # the CLI's own line, word for word
        at_the_cli = Cli(typed_db, bridge.capsys)
        at_the_cli(*words)
        assert lines[0] == at_the_cli.err.strip().splitlines()[0]
    assert everything(bridge) == before


def test_a_write_on_a_moved_board_is_refused(bridge: Cli) -> None:
    with serving(bridge.db) as served:
        token = token_of(served)
        bridge.ok("damage", "Orc", "2")  # #4, from the GM's terminal: the page still shows #3
        after_terminal = everything(bridge)
        status, reply = post(served, token, ["damage", "Orc", "7"], head=3)
        assert status == 200 and isinstance(reply, dict)
        assert reply["code"] == 3  # as the CLI's "branch moved" (docs/database.md)
        assert reply["err"] == ("Error: the board moved: another writer recorded up to #4: Orc takes 2 hits (28 left); "
                                "look at it and tap again\n")  # 30 - 2
        assert everything(bridge) == after_terminal
        status, reply = post(served, token, ["damage", "Orc", "7"], head=4)  # on the board as it is now
        assert isinstance(reply, dict) and reply["code"] == 0  # #5
        bridge.ok("undo")  # the terminal takes it back: the head is #4 again
        status, reply = post(served, token, ["damage", "Orc", "1"], head=5)
        assert isinstance(reply, dict) and reply["code"] == 3
        assert reply["err"] == "Error: the board moved: branch 'main' moved back to #4 (an undo); look at it and tap again\n"
        bridge.ok("redo")
    # 30 - 2 - 7 = 21 hits left
    orc = next(c for c in json.loads(bridge.ok("state", "--json"))["combatants"] if c["name"] == "Orc")
    assert orc["vital"]["value"] == 21


def test_a_switch_by_tap_moves_the_gm_and_the_players_and_another_shells_does_not(bridge: Cli) -> None:
    # main: #1-#3, #4 Orc takes 2 (28). what-if from #3.
    bridge.ok("damage", "Orc", "2")
    bridge.ok("branch", "what-if", "--at", "3")
    with serving(bridge.db) as served:
        token = token_of(served)
        status, reply = post(served, token, ["switch", "what-if"], head=4)
        assert isinstance(reply, dict) and reply == {"code": 0, "out": "On branch 'what-if', at #3\n", "err": "", "repeated": False}
        status, reply = post(served, token, ["damage", "Orc", "5"], head=3, branch="what-if")
        assert isinstance(reply, dict) and reply["code"] == 0, reply  # #5 on what-if: 30 - 5 = 25
        bridge.ok("switch", "main")  # another shell: the page stays on what-if
        time.sleep(1.5)
        state = json.loads(request(served, "GET", "/gm/state", headers={"X-Skirmish-Token": token})[1])
        board = state["frame"]["board"]
        assert (board["branch"], board["head"]) == ("what-if", 5)
        _, page = request(served, "GET", "/")
        assert b'"current":"what-if"' in page  # the players' screens follow the GM's switch


# --- the GM's stream ----------------------------------------------------------------------------------

def read_frames(served: Served, token: str, since: int, count: int, last_event_id: int | None = None) -> list[tuple[int, dict[str, Any], int]]:
    """The first ``count`` frames of the GM's stream: (id, data, bytes of the frame)."""
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=15)
    headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
    conn.request("GET", f"/gm/events?token={token}&since={since}", headers=headers)
    answer = conn.getresponse()
    assert answer.status == 200
    frames: list[tuple[int, dict[str, Any], int]] = []
    lines: list[bytes] = []
    while len(frames) < count:
        line = answer.readline()
        if line == b"\n":
            fields = dict(l.decode().split(": ", 1) for l in lines if not l.startswith(b":") and b": " in l)
            if fields.get("event") == "change":
                frames.append((int(fields["id"]), json.loads(fields["data"]), sum(len(l) for l in lines)))
            lines = []
        else:
            lines.append(line.rstrip(b"\n"))
    conn.close()
    return frames


def test_a_change_reaches_the_gms_stream_with_only_the_new_events(bridge: Cli) -> None:
    with serving(bridge.db) as served:
        token = token_of(served)
        state = json.loads(request(served, "GET", "/gm/state", headers={"X-Skirmish-Token": token})[1])
        seq = state["frame"]["seq"]
        assert [e[0] for e in state["frame"]["timeline"]["events"]] == [1, 2, 3]
        got: list[Any] = []
        reader = threading.Thread(target=lambda: got.extend(read_frames(served, token, seq, 1)))
        reader.start()
        time.sleep(0.5)
        bridge.ok("damage", "Orc", "6")  # #4: 30 - 6 = 24
        reader.join(10)
        assert len(got) == 1
        number, frame, _ = got[0]
        assert number == frame["seq"] > seq
        assert frame["timeline"] == {"after": 3, "events": [[4, "Orc takes 6 hits (24 left)"]]}
        assert frame["undo"] == "damage Orc 6"
        bridge.ok("damage", "Hauser", "1")  # #5, while no stream is open: a phone asleep
        time.sleep(1)
        # It comes back with the last id it had: it gets what it missed, from #4 on.
        caught = read_frames(served, token, 0, 1, last_event_id=number)
        assert caught[0][1]["timeline"] == {"after": 4, "events": [[5, "Hauser takes 1 hits (39 left)"]]}


def test_a_tap_on_a_deleted_database_is_refused(bridge: Cli) -> None:
    """The server's connection holds the deleted file: a tap recorded there would be lost."""
    with serving(bridge.db) as served:
        token = token_of(served)
        for suffix in ("", "-wal", "-shm"):
            Path(bridge.db + suffix).unlink(missing_ok=True)
        status, reply = post(served, token, ["damage", "Orc", "7"], head=3)
        assert isinstance(reply, dict) and reply["code"] == 5, reply  # the file cannot be used (StoreError)
        assert reply["err"] == (f"Error: the database {bridge.db} was deleted or replaced under the server: "
                                "restart `skirmish serve` to play on the file there now\n")
        time.sleep(1)
    assert f"the GM's page cannot read {bridge.db}: the database {bridge.db} was deleted" in served.said.read_text()
    assert not Path(bridge.db).exists()


def test_two_tabs_tapping_at_once_record_one_command(bridge: Cli) -> None:
    """Two GM tabs on the same board tap at the same moment: one lands, the other is told the
    board moved; never both, never a fork."""
    with serving(bridge.db) as served:
        token = token_of(served)
        replies: list[Any] = []
        start = threading.Barrier(2)

        def tab(amount: str) -> None:
            start.wait()
            replies.append(post(served, token, ["damage", "Orc", amount], head=3)[1])

        tabs = [threading.Thread(target=tab, args=(n,)) for n in ("4", "5")]
        for t in tabs:
            t.start()
        for t in tabs:
            t.join(30)
    assert sorted(r["code"] for r in replies) == [0, 3], replies
    landed = next(r for r in replies if r["code"] == 0)
    amount = int(landed["out"].split(" takes ")[1].split(" ")[0])
    assert orc_hits(bridge) == 30 - amount
    assert [e["id"] for e in everything(bridge) if e.get("kind") == "ap.damage-taken"] == [4]


def orc_hits(cli: Cli) -> int:
    state = json.loads(cli.ok("state", "--json"))
    value: int = next(c for c in state["combatants"] if c["name"] == "Orc")["vital"]["value"]
    return value


# --- the role table: what the GM's link may send ------------------------------------------------


def cli_command_names() -> list[str]:
    from skirmish.cli import main  # noqa: F401 - registers every command on the app
    from skirmish.cli.app import app, command_name

    return sorted({command_name(info) for info in app.registered_commands} | {"roster"})


def test_every_command_the_cli_knows_is_in_the_gms_role_or_refused(bridge: Cli, tmp_path: Path) -> None:
    """Every command name the command line knows, sent as a typed command through the GM's
    link (with and without a leading `skirmish`, and with a path where one could go): the
    ones the role table names run on this table; every other one is refused in one line,
    and none touches a file or another encounter."""
    from skirmish.projections.door.requests import ROLES

    names = cli_command_names()
    assert "serve" in names and "import" in names and "new" in names  # the list is the app's
    outside = tmp_path / "outside.txt"
    with serving(bridge.db) as served:
        before_files = files_beside(bridge.db)
        token = token_of(served)
        for name in names:
            for kind in (name, f"skirmish {name}", "skirmish"):
                body = {"type": kind, "name": "PWN", "path": str(outside), "file": "/etc/passwd", "out": str(outside)}
                status, reply = post(served, token, body, head=3)
                assert status == 400 and isinstance(reply, dict), (kind, reply)
                assert reply["code"] != 0 and reply["err"].count("\n") == 1, (kind, reply)
            allowed = name in ROLES["gm"]
            assert allowed == (name not in {"new", "use", "import", "export", "roster", "serve", "play", "run", "amend",
                                             "replay", "encounters", "rules", "bestiary"}), name
        # A read the role names is answered in the response, nothing recorded.
        status, reply = post(served, token, {"type": "explain", "event": 3}, head=3)
        assert status == 200 and isinstance(reply, dict) and reply["code"] == 0 and "#3" in reply["out"], reply
    assert not outside.exists()
    assert files_beside(bridge.db) == before_files
    assert [row["name"] for row in json.loads(bridge.ok("encounters", "--json"))] == ["Bridge"]


def files_beside(db: str) -> list[str]:
    """The files in the database's folder, less SQLite's own beside it (they come and go)."""
    return sorted(p.name for p in Path(db).parent.iterdir() if not p.name.endswith(("-wal", "-shm")))


def test_the_players_role_sends_nothing() -> None:
    from skirmish.eventlog.errors import BadInput
    from skirmish.projections.door.requests import ROLES, TAGS, allowed

    assert ROLES["players"] == frozenset()
    for line in (["next"], ["damage", "Orc", "3"], ["undo"], ["explain", "3"], ["note", "--on", "Orc", "hi"]):
        with pytest.raises(BadInput, match="players' page sends no commands"):
            allowed("players", parse(line).request)
    assert len(TAGS) > 30 and not set(TAGS) & ROLES["players"]


def test_a_double_tap_is_done_once_and_said_so(bridge: Cli) -> None:
    """Next tapped twice on one board: two taps (two ids), the same command, the same head.
    The second is the first one's reply, marked repeated: one `next` recorded, and no
    "another writer" blamed for the GM's own tap. A retry of one tap (the same id) too."""
    bridge.ok("round", "--roll", "Hauser=6,8", "--roll", "Orc=5,5")  # #4: the order 14 (Hauser) / 10 (Orc)
    bridge.ok("declare", "Hauser", "melee-attack", "--ap", "3", "--target", "Orc")
    head = json.loads(bridge.ok("state", "--json"))["head"]
    with serving(bridge.db) as served:
        token = token_of(served)
        first = post(served, token, ["damage", "Orc", "3"], head=head)[1]
        second = post(served, token, ["damage", "Orc", "3"], head=head)[1]
        assert isinstance(first, dict) and isinstance(second, dict)
        assert first["code"] == 0 and not first["repeated"]
        assert second["repeated"] and second["code"] == 0 and second["out"] == first["out"]
        retried = post(served, token, ["damage", "Orc", "4"], head=head + 1, tap="the-same-tap")[1]
        again = post(served, token, ["damage", "Orc", "4"], head=head + 1, tap="the-same-tap")[1]
        assert isinstance(retried, dict) and isinstance(again, dict) and again["repeated"] and not retried["repeated"]
        # A different command on the old board is still refused: it is not the same tap.
        other = post(served, token, ["damage", "Orc", "5"], head=head)[1]
        assert isinstance(other, dict) and other["code"] == 3
    assert orc_hits(bridge) == 30 - 3 - 4


@pytest.mark.parametrize("size", [400 * 1024, 5 * 1024 * 1024])
def test_a_huge_note_is_refused_at_once_and_the_next_tap_answers(bridge: Cli, size: int) -> None:
    with serving(bridge.db) as served:
        token = token_of(served)
        started = time.monotonic()
        body = json.dumps(asked({"type": "note", "event": 3, "text": "x" * size}, 3)).encode()
        # Answered from its head alone, before the body is sent: 413, too large.
        with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
            sock.sendall(f"POST /gm/run HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\nContent-Type: application/json\r\n"
                         f"X-Skirmish-Token: {token}\r\nContent-Length: {len(body)}\r\n\r\n".encode())
            assert sock.recv(64).startswith(b"HTTP/1.1 413 ")
        status, reply = post(served, token, {"type": "note", "event": 3, "text": "y" * 2001}, head=3)
        assert status == 400 and isinstance(reply, dict) and "at most 2,000" in reply["err"]
        status, reply = post(served, token, ["damage", "Orc", "1"], head=3)
        assert isinstance(reply, dict) and reply["code"] == 0
        assert time.monotonic() - started < 5
    assert orc_hits(bridge) == 29


def test_a_note_on_a_combatant_is_taken_from_the_page(bridge: Cli) -> None:
    """`--on`, `--from` and `--out` were taken for the command line's own flags wherever they
    stood, so the page refused `note --on Orc hello`: a typed note names its combatant."""
    with serving(bridge.db) as served:
        token = token_of(served)
        status, reply = post(served, token, {"type": "note", "event": 0, "on": "Orc", "text": "--from the ridge"}, head=3)
        assert status == 200 and isinstance(reply, dict) and reply["code"] == 0, reply
    assert "--from the ridge" in bridge.ok("state", "--wide")
