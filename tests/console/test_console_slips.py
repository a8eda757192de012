"""The console shows the table asked for as it is now: the newest event last, marked; undone events gone; pins kept."""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from skirmish.cli.main import run_cli

pytest.importorskip("textual")
from test_console import screen  # noqa: E402

from skirmish.cli.console import CommandLine, Console  # noqa: E402
from skirmish.cli.session import Session  # noqa: E402

from support.cli import Cli  # noqa: E402
from support.terminal import SCRIPT, Terminal  # noqa: E402

pytestmark = pytest.mark.slow  # the console on a pty and under the pilot, over long timelines: `pytest -m "not slow"` leaves it out

# Every expected event id is counted from the commands typed: each `new`, `add` (of one
# combatant) and `damage` here records one event, and ids run on through the file, so the
# Nth command of a fresh file records #N (`add --count 3` records three).

# At 80x24 with two combatants the timeline has 10 rows: 24 less the where lines (2), the
# board's header and two rows (3), the pending line (1), the replies with their top
# border (5), the hint (1), the command line (1) and the footer (1).
ROWS = 10


def record(db: str, lines: list[str]) -> None:
    """Another terminal's commands, typed one by one."""
    for line in lines:
        assert run_cli(["--db", db, *shlex.split(line)]) == 0, line


def timeline(app: Console) -> list[str]:
    """The timeline's rows as the GM sees them: between the pending line and the replies'
    border, trailing blank rows left out."""
    lines = [line.rstrip() for line in screen(app).splitlines()]
    top = next(i for i, line in enumerate(lines) if line.startswith("pending:")) + 1
    bottom = next(i for i, line in enumerate(lines) if line.startswith("─"))
    rows = lines[top:bottom]
    while rows and not rows[-1]:
        rows.pop()
    return rows


def board_rows(app: Console) -> list[str]:
    """The board's rows (below the two where lines, above the pending line)."""
    lines = screen(app).splitlines()
    return lines[2:next(i for i, line in enumerate(lines) if line.startswith("pending:"))]


def ids(rows: list[str]) -> list[str]:
    """Each timeline row's mark and event id: ["  #3", "> #4"]."""
    return [row[:2] + row[2:].split(" ", 1)[0] for row in rows]


async def until(pilot: object, done: Callable[[], bool], seconds: float = 8.0) -> None:
    """Wait for the console to follow the file (it looks twice a second; a loaded machine
    is slower)."""
    for _ in range(int(seconds / 0.05)):
        if done():
            return
        await pilot.pause(0.05)  # type: ignore[attr-defined]


def run_console(db: str, play: Callable[[Console, object], object], size: tuple[int, int] = (80, 24)) -> None:
    session = Session(db)

    async def main() -> None:
        app = Console(session)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await play(app, pilot)  # type: ignore[misc]

    try:
        asyncio.run(main())
    finally:
        session.close()


async def enter(pilot: object, app: Console, line: str) -> None:
    app.query_one(CommandLine).value = line
    await pilot.press("enter")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]


# --- the newest event at the foot of the timeline ---------------------------------------------


@pytest.mark.parametrize("events", [5, ROWS, ROWS + 1, ROWS + 16],
                         ids=["fewer-than-rows", "as-many-as-rows", "one-more-than-rows", "many-more"])
def test_the_timeline_ends_on_the_newest_event_marked(tmp_path: Path, events: int) -> None:
    """``events`` in the branch once a `damage` is typed in the console: `new` (#1), two
    `add` (#2, #3), and `damage Orc 2` for every other; each takes 2 of the Orc's 100."""
    db = str(tmp_path / "fight.db")
    record(db, ['new Ford --rules ap-countdown', "add Hauser --side players --stat qu=1 --stat hits=40",
                "add Orc --side foes --stat qu=0 --stat hits=100", *["damage Orc 2"] * (events - 4)])

    def expected(newest: int) -> list[str]:
        first = max(1, newest - ROWS + 1)
        return [f"  #{n}" for n in range(first, newest)] + [f"> #{newest}"]

    def damage_row(mark: str, event: int) -> str:
        return f"{mark} #{event} Orc takes 2 hits ({100 - 2 * (event - 3)} left)"

    async def play(app: Console, pilot: object) -> None:
        # As it opens: the events the other terminal recorded, the newest last.
        assert ids(timeline(app)) == expected(events - 1), screen(app)
        await enter(pilot, app, "damage Orc 2")
        rows = timeline(app)
        assert ids(rows) == expected(events), screen(app)
        assert rows[-1] == damage_row(">", events)
        assert rows[-2] == damage_row(" ", events - 1)

    run_console(db, play)


def test_a_line_wider_than_the_screen_is_cut_so_the_clock_and_the_newest_event_stay_in_view(tmp_path: Path) -> None:
    """80 columns: a long encounter name and a long effect are cut at the edge, never
    wrapped onto the row below (which would push the clock line out of the two where
    lines, and the newest event out of the bottom of the timeline)."""
    name = "The ambush at the old stone bridge over the river Wend, third night of the march"
    kind = "a-custom-curse-whose-name-goes-on-well-past-the-eighty-columns-of-the-gm-terminal"
    db = str(tmp_path / "fight.db")
    record(db, [f'new "{name}" --rules ap-countdown', "add Hauser --side players --stat qu=1 --stat hits=40",
                "add Orc --side foes --stat qu=0 --stat hits=100", "round --roll Hauser=6,8 --roll Orc=5,5",
                *["damage Orc 2"] * 4, f"effect Orc {kind} --custom --rounds 2",
                f"effect Hauser {kind} --custom --rounds 2"])

    async def play(app: Console, pilot: object) -> None:
        await enter(pilot, app, "damage Orc 2")
        lines = screen(app).splitlines()
        assert all(len(line) <= 80 for line in lines)
        assert lines[0].startswith("The ambush at the old stone bridge") and lines[0].rstrip().endswith("…")
        # ap-countdown.md, Initiative: Hauser's 6+8 + Qu 1 = 15, and 4 AP x 5 makes 35; the
        # Orc's 5+5 + 0 = 10, 30. The count starts at 35 with Hauser; the Orc is next.
        assert lines[1].startswith("round 1, count 35; now: Hauser; next: Orc"), screen(app)
        rows = timeline(app)
        # new, two adds, round, four damages (#5-#8), two effects (#9, #10), the damage typed (#11).
        # The board's effects wrap, at most 3 rows a combatant (the third ending in "…"):
        # header and 2 x 3 rows leave the timeline 24 - 2 - 7 - 1 - 5 - 1 - 1 - 1 = 6 rows.
        assert ids(rows) == [f"  #{n}" for n in range(6, 11)] + ["> #11"], screen(app)
        curse = [line for line in lines if "a-custom-curse-whose-name-" in line and not line.lstrip().startswith("#")]
        assert len(curse) == 2 and all(line.rstrip().endswith("a-custom-curse-whose-name-") for line in curse)
        assert rows[-1] == "> #11 Orc takes 2 hits (90 left)"
        assert rows[-2].startswith("  #10 Hauser is a-custom-curse") and rows[-2].endswith("…")

    run_console(db, play)


# --- another process's undo ------------------------------------------------------------------


class Undo(NamedTuple):
    """How the goblins' command (#5-#7) is taken back, and what the console then shows."""

    typed: list[str]  # by the co-GM, in another terminal ([]: Ctrl+Z in the console)
    kept: list[str]  # the timeline's events then
    newest: str  # its last row
    orc: str  # the Orc's bar now
    stops: list[str]  # where PgUp x4 then PgDn x4 stop ("now": back at the head)


# Back at #4 (the goblins' command undone): the Orc has 30 - 2 (5.6 of 6 cells -> 6).
BACK_AT_4 = (["#1", "#2", "#3", "#4"], "> #4 Orc takes 2 hits (28 left)", "###### 28/30",
             ["#3", "#2", "#1", "#1", "#2", "#3", "now", "now"])
UNDOS = {
    "undo in another terminal": Undo(["undo"], *BACK_AT_4),
    # A new blow (#8) after the undo, both before the console looks: #8 follows #4; 30 - 2 - 3.
    "undo and a new blow in another terminal": Undo(
        ["undo", "damage Orc 3"], ["#1", "#2", "#3", "#4", "#8"], "> #8 Orc takes 3 hits (25 left)", "#####. 25/30",
        ["#4", "#3", "#2", "#1", "#2", "#3", "#4", "now"]),
    "ctrl+z in the console": Undo([], *BACK_AT_4),
}


@pytest.mark.parametrize("how", list(UNDOS))
def test_undone_events_leave_the_timeline_and_pgup_never_stops_on_them(tmp_path: Path, how: str) -> None:
    typed, kept, newest, orc, stops = UNDOS[how]
    head = kept[-1]
    db = str(tmp_path / "fight.db")
    record(db, ['new Ford --rules ap-countdown', "add Hauser --side players --stat qu=1 --stat hits=40",
                "add Orc --side foes --stat qu=0 --stat hits=30"])

    async def play(app: Console, pilot: object) -> None:
        # The co-GM: a blow (#4), three goblins in one command (#5-#7), seen by the console...
        record(db, ["damage Orc 2", "add Goblin --side foes --stat qu=0 --stat hits=9 --count 3"])
        await until(pilot, lambda: ids(timeline(app))[-1:] == ["> #7"])
        assert ids(timeline(app)) == ["  #1", "  #2", "  #3", "  #4", "  #5", "  #6", "> #7"], screen(app)
        # ... then the goblins taken back.
        if typed:
            app.watching = False  # both of the co-GM's commands land before the console looks
            record(db, typed)
            app.watching = True
        else:
            await pilot.press("ctrl+z")  # type: ignore[attr-defined]
        await until(pilot, lambda: ids(timeline(app))[-1:] == [f"> {head}"])
        rows = timeline(app)
        assert ids(rows) == [f"  {n}" for n in kept[:-1]] + [f"> {head}"], screen(app)
        assert rows[-1] == newest
        assert not any("Goblin" in line for line in board_rows(app)), screen(app)

        # PgUp walks back from now to the first event (and stays there); PgDn walks forward
        # to now. None of the undone #5-#7 is ever a stop.
        seen = []
        for key in ["pageup"] * 4 + ["pagedown"] * 4:
            await pilot.press(key)  # type: ignore[attr-defined]
            await pilot.pause()  # type: ignore[attr-defined]
            where = screen(app).splitlines()[0]
            seen.append(where.split()[1] if where.startswith(" PAST") else "now")
            marked = [row for row in ids(timeline(app)) if row.startswith(">")]
            assert marked == [f"> {head if seen[-1] == 'now' else seen[-1]}"], screen(app)
        assert seen == stops
        assert any("Orc" in line and orc in line for line in board_rows(app)), screen(app)

    run_console(db, play)


# --- which table the console opens --------------------------------------------------------------


@pytest.fixture
def two_tables(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> str:
    """Ford (Hauser and an Orc of 30 hits), then Keep (a Troll of 50), current; Keep has a
    branch what-if on which the Troll took 5, and main is its current branch again."""
    for name in ("SKIRMISH_ENCOUNTER", "SKIRMISH_BRANCH"):
        monkeypatch.delenv(name, raising=False)
    for line in ("new Ford --rules ap-countdown", "add Hauser --side players --stat qu=1 --stat hits=40",
                 "add Orc --side foes --stat qu=0 --stat hits=30",
                 "new Keep --rules ap-countdown", "add Troll --side foes --stat qu=0 --stat hits=50",
                 "branch what-if", "switch what-if", "damage Troll 5", "switch main"):
        cli.ok(*shlex.split(line))
    return cli.db


def hits(cli: Cli, encounter: str, branch: str, who: str) -> int:
    view = json.loads(cli.ok("--encounter", encounter, "--on", branch, "state", "--json"))
    return next(int(c["vital"]["value"]) for c in view["combatants"] if c["name"] == who)


class Pin(NamedTuple):
    words: list[str]  # before `play` (or `play NAME` itself)
    env: dict[str, str]
    where: str  # the console's first line
    shown: str  # a bar on its board
    typed: str  # a command typed in the console
    after: str  # the bar it leaves
    absent: str  # the other encounter's fighter, not on this board
    hits: tuple[int, int, int]  # then: Ford's Orc, Keep's Troll on main, on what-if


FORD = ("Ford (ap-countdown), branch main, at #3", "###### 30/30", "damage Orc 3", "#####. 27/30", "Troll",
        (27, 50, 45))
WHAT_IF = ("Keep (ap-countdown), branch what-if, at #6", "#####. 45/50", "damage Troll 3", "#####. 42/50", "Orc",
           (30, 50, 42))
# Ford: #1 new, #2 and #3 its adds; 27/30 of 6 cells is 5.4 -> 5. Keep's what-if: #6 is the
# Troll's 5 (45/50: 5.4 cells -> 5), then 3 more (42/50: 5.04 -> 5). Keep's main never moves.
PINS = {
    "--encounter": Pin(["--encounter", "Ford"], {}, *FORD),
    "SKIRMISH_ENCOUNTER": Pin([], {"SKIRMISH_ENCOUNTER": "Ford"}, *FORD),
    "--on": Pin(["--on", "what-if"], {}, *WHAT_IF),
    "SKIRMISH_BRANCH": Pin([], {"SKIRMISH_BRANCH": "what-if"}, *WHAT_IF),
    # The encounter named to `play` is the one played, whatever the shell is pinned to.
    "play NAME": Pin(["play", "Ford"], {"SKIRMISH_ENCOUNTER": "Keep"}, *FORD),
}


@pytest.mark.parametrize("pin", sorted(PINS))
def test_the_installed_console_opens_the_pinned_table_and_plays_there(
    two_tables: str, cli: Cli, monkeypatch: pytest.MonkeyPatch, pin: str
) -> None:
    case = PINS[pin]
    assert SCRIPT, "the `skirmish` console script is not installed beside this Python"
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)  # the console's own terminal, pinned
    words = case.words if case.words[:1] == ["play"] else [*case.words, "play"]
    term = Terminal([SCRIPT, "--db", two_tables, *words])
    for name in case.env:
        monkeypatch.delenv(name)  # the checks below read the file from an unpinned shell
    try:
        text = term.wait_for(case.shown)
        assert case.where in text and case.absent not in text, text
        term.type(case.typed + "\r")
        term.wait_for(case.after)
        term.type("\x11")  # Ctrl+Q
        assert term.process.wait(10) == 0
    finally:
        term.close()
    # The console's command landed on the pinned table, and nowhere else.
    assert (hits(cli, "Ford", "main", "Orc"), hits(cli, "Keep", "main", "Troll"),
            hits(cli, "Keep", "what-if", "Troll")) == case.hits


@pytest.mark.parametrize(("words", "env", "named"), [
    (["--encounter", "Nowhere"], {}, "'Nowhere'"),
    ([], {"SKIRMISH_ENCOUNTER": "Nowhere"}, "'Nowhere'"),
    (["--on", "nowhere"], {}, "'nowhere'"),
    ([], {"SKIRMISH_BRANCH": "nowhere"}, "'nowhere'"),
], ids=["--encounter", "SKIRMISH_ENCOUNTER", "--on", "SKIRMISH_BRANCH"])
def test_a_pin_to_no_table_is_one_error_line_before_the_screen_opens(
    two_tables: str, cli: Cli, monkeypatch: pytest.MonkeyPatch, words: list[str], env: dict[str, str], named: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # Named before any terminal is asked for: not "needs a terminal", which pytest's stdin is not.
    assert named in cli.fails(*words, "play")
