"""The GM's console (`skirmish play`), driven by Textual's headless pilot in every ruleset:
commands typed as on the command line, a refusal that records nothing, undo and redo by
key, a step back through the timeline, a branch from there and a switch between branches,
explain of the selected event, another process's writes followed live, and completion.

Expected bars are worked by hand: the bar has six cells, filled in proportion to what is
left, rounded to the nearest cell ("#####. 25/30": 25/30 of 6 cells is 5).
"""

from __future__ import annotations

import asyncio
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console as RichConsole

from skirmish.cli.main import run_cli
from skirmish.eventlog.store import Store
from skirmish.projections.ruleset import BUILT_IN

from support.rulesets import Fight, support_for

pytest.importorskip("textual")  # a dependency of skirmish: this only names it if it is missing
from skirmish.cli.console import CommandLine, Console, bar, board, safe  # noqa: E402
from skirmish.cli.session import Completer, Session  # noqa: E402


def _fight(ruleset: str) -> Fight:
    """A built-in ruleset's fight, from its support module (tests/support/<ruleset>.py)."""
    fight = support_for(ruleset).console
    if fight is None:
        pytest.fail(f"tests/support/{ruleset.replace('-', '_')}.py gives {ruleset} no console fight")
    return fight


FIGHTS = {ruleset: _fight(ruleset) for ruleset in sorted(BUILT_IN)}


def test_every_built_in_ruleset_has_a_console_fight() -> None:
    assert set(FIGHTS) == set(BUILT_IN)


def start(db: str, lines: tuple[str, ...]) -> None:
    for line in lines:
        assert run_cli(["--db", db, *shlex.split(line)]) == 0, line


def screen(app: Console) -> str:
    """The screen as the GM sees it, one line of text per row."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def row(app: Console, name: str) -> str:
    """The board's row of one combatant, as shown."""
    found = [line for line in screen(app).splitlines() if f" {name} " in line and "/" in line]
    assert found, f"no row for {name} on\n{screen(app)}"
    return found[0]


async def type_line(pilot: object, app: Console, line: str) -> None:
    app.query_one(CommandLine).value = ""
    await pilot.press(*line)  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", sorted(FIGHTS))
def test_a_fight_through_the_console(tmp_path: Path, ruleset: str) -> None:
    fight = FIGHTS[ruleset]
    db = str(tmp_path / "fight.db")
    start(db, fight.setup)
    session = Session(db)

    async def play() -> None:
        app = Console(session)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert fight.full in row(app, fight.target)
            assert all(len(line) <= 80 for line in screen(app).splitlines())

            # A blow, typed as after `skirmish`: the board shows what it left.
            await type_line(pilot, app, fight.hit)
            assert fight.after_hit in row(app, fight.target), screen(app)
            first_hit = session.encounter().head().event_id
            assert f"#{first_hit} " in screen(app)  # the reply names the event it recorded
            assert app.query_one(CommandLine).value == ""

            # A refusal shows in place, keeps the line to fix, and records nothing.
            recorded = session.log_file.last_ids()
            await type_line(pilot, app, "declare Nobody-at-all melee-attack")
            assert session.log_file.last_ids() == recorded
            assert "Error:" in screen(app) and "Nothing was recorded" in screen(app)
            assert app.query_one(CommandLine).value == "declare Nobody-at-all melee-attack"

            # Undo and redo by key.
            await pilot.press("ctrl+z")
            await pilot.pause()
            assert fight.full in row(app, fight.target)
            await pilot.press("ctrl+y")
            await pilot.pause()
            assert fight.after_hit in row(app, fight.target)
            assert session.encounter().head().event_id == first_hit

            await type_line(pilot, app, fight.second)
            assert fight.after_second in row(app, fight.hurt)
            head = session.encounter().head().event_id

            # A step back in the timeline: the board then, marked as the past.
            await pilot.press("pageup")
            await pilot.pause()
            assert f"PAST #{first_hit}" in screen(app)
            assert fight.hurt_before in row(app, fight.hurt)
            assert fight.after_hit in row(app, fight.target)
            assert session.encounter().head().event_id == head  # looking records nothing

            # Explain of the selected event, over the board until Esc.
            await pilot.press("ctrl+o")
            await pilot.pause()
            assert f"#{first_hit} " in screen(app) and "command: " + fight.hit in screen(app)
            await pilot.press("escape")
            await pilot.pause()
            assert "command: " not in screen(app) and f"PAST #{first_hit}" in screen(app)

            # A branch from there, and a switch onto it and back.
            await pilot.press("ctrl+b")
            await pilot.pause()
            assert app.query_one(CommandLine).value == f"branch what-if-1 --at {first_hit}"
            await pilot.press("enter")
            await pilot.pause()
            assert set(session.encounter().branches()) == {"main", "what-if-1"}
            assert "PAST" not in screen(app)
            await pilot.press("ctrl+t")
            await pilot.pause()
            assert "branch what-if-1" in screen(app)
            assert fight.hurt_before in row(app, fight.hurt)
            assert fight.after_hit in row(app, fight.target)
            await pilot.press("ctrl+t")
            await pilot.pause()
            assert "branch main" in screen(app)
            assert fight.after_second in row(app, fight.hurt)

    try:
        asyncio.run(play())
    finally:
        session.close()
    # What the console recorded is what the command line reads back.
    store = Store(db, create=False)
    try:
        texts = store.command_texts(store.current_encounter().id, 50)
    finally:
        store.close()
    assert fight.hit in texts and fight.second in texts and "declare Nobody-at-all melee-attack" not in texts


def test_the_board_follows_another_process_and_refuses_a_command_on_a_moved_log(tmp_path: Path) -> None:
    fight = FIGHTS["ap-countdown"]
    db = str(tmp_path / "fight.db")
    start(db, fight.setup)
    session = Session(db)

    async def play() -> None:
        app = Console(session)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            # A co-GM damages the Orc from a second terminal: the board follows within a second.
            assert run_cli(["--db", db, "damage", "Orc", "5"]) == 0
            for _ in range(100):  # the console looks twice a second; a loaded machine is slower
                await pilot.pause(0.05)
                if fight.after_hit in row(app, "Orc"):
                    break
            assert fight.after_hit in row(app, "Orc")
            assert "another process recorded up to #5" in screen(app)

            # The log moves between the board drawn and Enter (the watcher paused to make the
            # race certain): the command is refused, nothing recorded, the board redrawn.
            app.watching = False
            assert run_cli(["--db", db, "damage", "Orc", "10"]) == 0
            recorded = session.log_file.last_ids()
            await type_line(pilot, app, "damage Orc 1")
            assert session.log_file.last_ids() == recorded
            assert "Error: another process recorded up to #6" in screen(app)
            assert "###... 15/30" in row(app, "Orc")  # 30 - 5 - 10, the other process's blows
            assert app.query_one(CommandLine).value == "damage Orc 1"
            # Typed again on the board as it now is, it lands.
            await pilot.press("enter")
            await pilot.pause()
            assert "###... 14/30" in row(app, "Orc")  # 14/30 of 6 is 2.8 -> 3 cells

    try:
        asyncio.run(play())
    finally:
        session.close()


@pytest.mark.slow
def test_the_console_keeps_its_encounter_when_another_process_uses_another(tmp_path: Path) -> None:
    db = str(tmp_path / "fight.db")
    start(db, FIGHTS["ap-countdown"].setup)
    session = Session(db)

    async def play() -> None:
        app = Console(session)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            # A co-GM starts another fight in the same file: it becomes the file's current one.
            start(db, ('new "Elsewhere" --rules ap-countdown', "add Orc --side foes --stat qu=0 --stat hits=50"))
            await pilot.pause(0.7)
            assert "Bridge (ap-countdown)" in screen(app) and "###### 30/30" in row(app, "Orc")
            await type_line(pilot, app, "damage Orc 5")  # not refused: this table did not move
            assert "#####. 25/30" in row(app, "Orc")
            # `use` typed here moves the console with it.
            await type_line(pilot, app, "use Elsewhere")
            assert "Elsewhere (ap-countdown)" in screen(app) and "###### 50/50" in row(app, "Orc")

    try:
        asyncio.run(play())
    finally:
        session.close()
    assert run_cli(["--db", db, "--encounter", "Elsewhere", "state"]) == 0


def test_tab_completes_commands_names_and_the_history_comes_back(tmp_path: Path) -> None:
    db = str(tmp_path / "fight.db")
    start(db, FIGHTS["ap-countdown"].setup + ("damage Orc 2",))
    session = Session(db)

    async def play() -> None:
        app = Console(session)
        async with app.run_test(size=(80, 24)) as pilot:
            line = app.query_one(CommandLine)
            await pilot.press(*"decl", "tab")
            assert line.value == "declare "
            await pilot.press(*"Ha", "tab")
            assert line.value == "declare Hauser "
            await pilot.press(*"melee", "tab")
            assert line.value == "declare Hauser melee-attack "
            # Up brings back the commands typed on this encounter, in earlier sessions too.
            line.value = ""
            await pilot.press("up")
            assert line.value == "damage Orc 2"
            await pilot.press("up")
            assert line.value.startswith("round ")
            await pilot.press("down", "down")
            assert line.value == ""

    try:
        asyncio.run(play())
    finally:
        session.close()


def test_completion_of_a_half_typed_line(tmp_path: Path) -> None:
    db = str(tmp_path / "fight.db")
    start(db, ('new "Bridge" --rules ap-countdown', "add Kara --side players --stat qu=1 --stat hits=40",
               "add Goblin --side foes --stat qu=0 --stat hits=9 --count 2", "effect Kara bleeding --per-round 1"))
    session = Session(db)
    try:
        complete = Completer(session).candidates
        assert complete("decl") == ["declare"]
        assert complete("dam") == ["damage"]
        assert complete("declare K") == ["declare Kara"]
        # Names with spaces come quoted, and an open quote is completed.
        assert complete("damage Gob") == ["damage 'Goblin 1'", "damage 'Goblin 2'"]
        assert complete("damage 'Goblin 2") == ["damage 'Goblin 2'"]
        assert "declare Kara melee-attack" in complete("declare Kara mel")
        assert complete("declare Kara melee-attack --ta") == ["declare Kara melee-attack --target"]
        assert complete("declare Kara melee-attack --target G") == [
            "declare Kara melee-attack --target 'Goblin 1'", "declare Kara melee-attack --target 'Goblin 2'"]
        assert "effect Kara bleeding" in complete("effect Kara blee")
        assert complete("switch m") == ["switch main"]
        assert complete("use Bri") == ["use Bridge"]
        assert complete("ne") == ["next"]  # `new` is the shell's: the console plays its encounter's commands
        assert complete("nosuchcommand ") == []
        assert not any(c.startswith("play") for c in complete("pla"))  # not inside the console
    finally:
        session.close()


def test_the_console_runs_no_other_console_script_or_database(tmp_path: Path) -> None:
    db = str(tmp_path / "fight.db")
    start(db, FIGHTS["ap-countdown"].setup)
    session = Session(db)
    try:
        for line, word in (("play", "console"), ("run x.skirmish", "script"), ("--db other.db state", "no --db"),
                           ("state --db=other.db", "no --db"), ('damage "Orc 5', "quote")):
            outcome = session.run(line)
            assert outcome.code == 2 and word in outcome.err and not outcome.changed, (line, outcome)
        assert session.run("state").code == 0 and "Orc" in session.run("state").out
    finally:
        session.close()


def test_the_bar_reads_without_colour() -> None:
    from skirmish.projections.view import Budget, Combatant, Gauge

    def at(value: int, most: int) -> str:
        return bar(Combatant(name="X", side="s", vital=Gauge(name="hits", value=value, maximum=most),
                             budget=Budget(name="AP", left=0, of=0)))

    assert at(30, 30) == "###### 30/30"
    assert at(25, 30) == "#####. 25/30"
    assert at(1, 30) == "#..... 1/30"  # a sliver left is not an empty bar
    assert at(0, 30) == "...... 0/30"
    assert at(-4, 30) == "...... -4/30"
    assert at(40, 30) == "###### 40/30"  # above the maximum: full, the number says more


def test_what_the_last_command_changed_is_in_reverse_video(tmp_path: Path) -> None:
    db = str(tmp_path / "fight.db")
    start(db, FIGHTS["ap-countdown"].setup)
    session = Session(db)
    try:
        before = session.look()
        assert session.run("damage Orc 5").code == 0
        after = session.look()
    finally:
        session.close()
    out = RichConsole(width=80, record=True, color_system="standard", force_terminal=True)
    out.print(board(after, before))
    cells = {(seg.text.strip(), bool(seg.style and seg.style.reverse)) for seg in out._record_buffer
             if seg.text.strip()}
    assert ("#####. 25/30", True) in cells
    assert ("###### 40/40", True) not in cells and ("###### 40/40", False) in cells


@pytest.mark.slow
def test_a_name_in_rich_markup_is_shown_as_typed_everywhere_on_the_screen(tmp_path: Path) -> None:
    """A name, side, effect or note that reads as Rich markup (`[bold]`, `[link=...]`) is
    text: the board, the timeline, the pending actions and the replies show its brackets."""
    db = str(tmp_path / "fight.db")
    start(db, ('new "[b]Bridge[/b]" --rules ap-countdown',
               "add '[red]Orc[/red]' --side '[i]foes[/i]' --stat qu=0 --stat hits=30",
               "add Hauser --side players --stat qu=1 --stat hits=40",
               "effect '[red]Orc[/red]' '[blink]hex[/blink]' --custom --rounds 2",
               "round --roll Hauser=6,8 --roll '[red]Orc[/red]'=5,5"))
    session = Session(db)

    async def play() -> None:
        app = Console(session)
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.pause()
            await type_line(pilot, app, "declare Hauser melee-attack --ap 3 --target '[red]Orc[/red]'")
            shown = screen(app)
            assert "[b]Bridge[/b] (ap-countdown)" in shown, shown
            assert "[red]Orc[/red]" in row(app, "[red]Orc[/red]") and "[i]foes[/i]" in shown
            assert "[blink]hex[/blink]" in shown
            assert "melee-attack on [red]Orc[/red]" in shown  # the pending action and the reply

    try:
        asyncio.run(play())
    finally:
        session.close()


def test_hostile_text_is_shown_as_codes() -> None:
    assert safe("Orc\x1b]0;pwned\x07") == "Orc\\x1b]0;pwned\\x07"
    assert safe("a\u202eb\u200bc\nd") == "a\\u202eb\\u200bc\\nd"
    assert safe("Goblin 1") == "Goblin 1"


def test_play_needs_a_database_and_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["--db", str(tmp_path / "none.db"), "play"]) == 2
    assert "no database at" in capsys.readouterr().err
    db = str(tmp_path / "fight.db")
    start(db, FIGHTS["ap-countdown"].setup)
    capsys.readouterr()
    assert run_cli(["--db", db, "play"]) == 2  # stdin is not a terminal under pytest
    assert "needs a terminal" in capsys.readouterr().err


@pytest.mark.slow
def test_only_play_imports_textual(tmp_path: Path) -> None:
    db = str(tmp_path / "fight.db")
    start(db, FIGHTS["ap-countdown"].setup)
    probe = (
        "import sys\nfrom skirmish.cli.main import run_cli\n"
        f"codes = [run_cli(['--db', {db!r}, *w.split()]) for w in ('state', 'declare Hauser melee-attack --ap 3 "
        "--target Orc', 'log', 'undo', 'branches')]\n"
        "print(codes, sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[0, 0, 0, 0, 0] []"
