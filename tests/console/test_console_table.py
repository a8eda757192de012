"""The console at 80x24 in every ruleset, as the GM plays each sample's opening: the newest
event stays the last row of the timeline, marked, whatever the lines' width; what is cut
ends in an ellipsis; the console's advice names commands as the console takes them."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path

import pytest

from skirmish.cli.main import run_cli
from skirmish.eventlog.store import Store

pytest.importorskip("textual")
from test_console import screen  # noqa: E402

from skirmish.cli.console import CommandLine, Console  # noqa: E402
from skirmish.cli.session import Session  # noqa: E402
from textual.widgets import RichLog  # noqa: E402

pytestmark = pytest.mark.slow  # ten commands under the pilot in each ruleset

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
# Each ruleset's sample (docs/rulesets/): its `new` and first `add` lines are
# recorded by another terminal, the next ten lines are typed in the console.
OPENINGS = {
    "ap-countdown": "bridge-ambush.skirmish",
    "crisis": "hangar-breach.skirmish",
    "modular": "courtyard-brawl.skirmish",
    "percent-activity": "gatehouse-percent.skirmish",
    "phases": "farmhouse-ambush.skirmish",
    "srd-5.2": "chapel-drake.skirmish",
}
SET_UP = 4  # `new` and three `add`: every sample has at least that many before its first round


def lines_of(sample: str) -> list[str]:
    text = (SAMPLES / sample).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def head_of(db: str) -> int:
    """The current branch's head, read from the file, not from the console."""
    store = Store(db)
    try:
        row = store.current_encounter()
        return store.head(row.id, store.current_branch(row.id)).event_id
    finally:
        store.close()


def test_every_ruleset_has_an_opening() -> None:
    from skirmish.projections.ruleset import BUILT_IN
    assert set(OPENINGS) == set(BUILT_IN)
    for sample in OPENINGS.values():
        assert len(lines_of(sample)) >= SET_UP + 10


@pytest.mark.parametrize("ruleset", sorted(OPENINGS))
def test_ten_commands_at_80x24_keep_the_newest_event_in_view(tmp_path: Path, ruleset: str) -> None:
    """After each command, and as the console opens: the last row of the timeline is the
    head, marked `>`; no row is wider than the screen; the two where lines hold the
    encounter and the clock (a wrapped first line would push the clock down)."""
    lines = lines_of(OPENINGS[ruleset])
    db = str(tmp_path / "fight.db")
    for line in lines[:SET_UP]:
        assert run_cli(["--db", db, *shlex.split(line)]) == 0, line
    session = Session(db)

    def check(app: Console) -> None:
        shown = screen(app).splitlines()
        assert all(len(row) <= 80 for row in shown), screen(app)
        assert shown[0].startswith(lines[0].split('"')[1]), screen(app)  # the encounter's name
        assert shown[1].startswith(("round", "turn", "before", "after")), screen(app)  # the clock
        top = next(i for i, row in enumerate(shown) if row.startswith("pending:"))
        bottom = next(i for i, row in enumerate(shown) if row.startswith("─"))
        rows = [row.rstrip() for row in shown[top + 1:bottom] if row.strip()]
        marked = [row for row in rows if row.startswith(">")]
        assert marked == rows[-1:], screen(app)
        assert rows[-1].startswith(f"> #{head_of(db)} "), screen(app)
        for row in rows:
            assert len(row) < 80 or row.endswith("…"), screen(app)

    async def main() -> None:
        app = Console(session)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            check(app)
            for line in lines[SET_UP:SET_UP + 10]:
                app.query_one(CommandLine).value = line
                await pilot.press("enter")
                await pilot.pause()
                check(app)

    try:
        asyncio.run(main())
    finally:
        session.close()


def test_the_consoles_advice_names_commands_as_the_console_takes_them(tmp_path: Path) -> None:
    """The console takes `switch what-if`, not `skirmish switch what-if`; a script still
    runs from the shell (`skirmish run FILE`), which the console says as it is."""
    db = str(tmp_path / "fight.db")
    for line in ("new Ford --rules ap-countdown", "add Hauser --side players --stat qu=1 --stat hits=40",
                 "add Orc --side foes --stat qu=0 --stat hits=30", "leave Orc"):
        assert run_cli(["--db", db, *shlex.split(line)]) == 0, line
    session = Session(db)

    async def main() -> None:
        app = Console(session)
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.pause()
            for line in ("branch what-if", "round --roll Hauser=6,8", "declare Orc move", "run fight.skirmish"):
                app.query_one(CommandLine).value = line
                await pilot.press("enter")
                await pilot.pause()
            shown = "\n".join(strip.text for strip in app.query_one("#replies", RichLog).lines)
            # The fork is at #4, the head when it was made (new, two adds, the Orc's leave).
            assert "Branch 'what-if' starts at #4: `switch what-if` to play on it" in shown, shown
            assert "Error: Orc has left the fight: it cannot act until `return Orc`" in shown, shown
            assert "a script runs from the shell: `skirmish run FILE`" in shown, shown
            assert "`skirmish switch" not in shown and "`skirmish return" not in shown, shown

    try:
        asyncio.run(main())
    finally:
        session.close()


BOTH = "bleeding (2 a round), stunned (1 left)"  # ap-countdown's effects as the board names them


@pytest.mark.parametrize(("size", "foe", "shown_as"), [
    ((120, 30), "Orc", "Orc"),
    ((80, 24), "Orc", "Orc"),
    # Too long to leave the effects their 22 columns at 80: the marker 1, side 7, status 8,
    # bar 12, AP 7 and the spaces 12 take 47, so the name gets max(12, 80 - 47 - 22) = 12:
    # its first 7 characters, the ellipsis and its last 4 (the number kept).
    ((80, 24), "Goblin skirmisher 12", "Goblin …r 12"),
], ids=["120-columns", "80-columns", "80-columns-long-name"])
def test_the_board_shows_every_effect_whole(tmp_path: Path, size: tuple[int, int], foe: str, shown_as: str) -> None:
    """Name and side are as wide as their text (at 120 columns the effects follow on the
    same line); the effects wrap within their column, never cut."""
    db = str(tmp_path / "fight.db")
    for line in ("new Ford --rules ap-countdown", "add Hauser --side players --stat qu=1 --stat hits=40",
                 f'add "{foe}" --side foes --stat qu=0 --stat hits=30'):
        assert run_cli(["--db", db, *shlex.split(line)]) == 0, line
    for who in ("Hauser", foe):
        assert run_cli(["--db", db, "effect", who, "bleeding", "--per-round", "2"]) == 0
        assert run_cli(["--db", db, "effect", who, "stunned", "--rounds", "1"]) == 0
    session = Session(db)

    async def main() -> None:
        app = Console(session)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            lines = screen(app).splitlines()
            rows = lines[2:next(i for i, line in enumerate(lines) if line.startswith("pending:"))]
            assert "…" not in "".join(rows).replace(shown_as, ""), screen(app)
            start = rows[0].index("effects")
            for name in ("Hauser", shown_as):
                at = next(i for i, row in enumerate(rows) if row[3:].startswith(name + " "))
                said = [rows[at][start:]]
                for row in rows[at + 1:]:
                    if row[:start].strip():
                        break  # the next combatant's row
                    said.append(row[start:])
                assert " ".join(" ".join(said).split()) == BOTH, screen(app)
            if size[0] == 120:
                # "   Hauser  players  fighting": the name column is the name's width, not a share of the screen.
                assert rows[1].startswith(">  Hauser  players  ") or rows[1].startswith("   Hauser  players  "), rows
                assert rows[1].rstrip().endswith(BOTH), rows

    try:
        asyncio.run(main())
    finally:
        session.close()


def test_pending_actions_that_do_not_fit_say_how_many_more(tmp_path: Path) -> None:
    """The bridge ambush's first 15 lines leave four actions pending (Hauser's and the Orc's
    melee attacks, the Archer's reload, Mira's held shot). At 80 columns the first row holds
    "pending: Hauser melee-attack (on Orc, count 20); Orc melee-attack (on Hauser," (77);
    the second "count 10);" and no room for the Archer's 62 characters beside the tail: the
    Archer's is cut and Mira's not shown, so two more."""
    lines = lines_of(OPENINGS["ap-countdown"])
    db = str(tmp_path / "fight.db")
    for line in lines[:15]:
        assert run_cli(["--db", db, *shlex.split(line)]) == 0, line
    session = Session(db)

    async def main() -> None:
        app = Console(session)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            shown = screen(app).splitlines()
            at = next(i for i, row in enumerate(shown) if row.startswith("pending:"))
            assert shown[at].rstrip() == "pending: Hauser melee-attack (on Orc, count 20); Orc melee-attack (on Hauser,"
            assert shown[at + 1].startswith("count 10); Archer ammo-reload"), screen(app)
            assert shown[at + 1].rstrip().endswith("… (2 more: `state`)"), screen(app)
            assert shown[at + 2].startswith("  #"), screen(app)  # the timeline follows at once

    try:
        asyncio.run(main())
    finally:
        session.close()
