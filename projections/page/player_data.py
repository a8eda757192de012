"""What a player's page shows of their own character, made here from the typed view so the
page's script composes no sentence and names no ruleset's figure: the vital gauge with the
temporary points beside it where the ruleset keeps them, each of the ruleset's own figures
the GM's cards show by their labels (the ruleset's own), each effect with what is left of it, and the dice the player's
link may hold for the GM's next roll (cli/gm_server.py ``Desk._player_view`` puts
:func:`sheet` and :func:`holds` in the player's read).

A figure the ruleset does not have is not shown: the death saves only where the character's
own figures keep them, and only while they are being made."""

from __future__ import annotations

from typing import Any

import msgspec

from skirmish.projections.page.gm_lines import clock_line
from skirmish.projections.view import STATUSES, Clock, Combatant, figures

EXTRA = "temp"  # an own figure of points spent before the vital gauge's (srd-5.2's temporary HP)
TALLY = "death"  # an own figure "S/F": successes and failures of the saves made at 0
TALLIED = "Death saves"  # what the sheet calls those saves


class Line(msgspec.Struct, frozen=True):
    label: str
    text: str


class Bar(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    value: int
    maximum: int | None
    extra: int  # temporary points on top of the gauge (0: none)
    line: str  # "HP 17 of 20, 5 temporary"


class Sheet(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    status: str  # "down: still in the fight, but cannot act (...)"
    bar: Bar
    budget: str  # "action: 0 of 1 left"
    figures: tuple[Line, ...]
    effects: tuple[str, ...]  # "poisoned: 3 rounds left (start Ann)"
    dying: str  # "Death saves: 1 success, 2 failures"; "" when none is being made
    acting: bool


def _plural(n: int, word: str, many: str) -> str:
    return f"{n} {word if n == 1 else many}"


def sheet(me: Combatant, unit: str = "round") -> Sheet:
    own: dict[str, Any] = figures(me.own)
    extra = own.get(EXTRA)
    extra = extra if isinstance(extra, int) and not isinstance(extra, bool) else 0
    gauge = me.vital
    line = f"{gauge.name} {gauge.value}" + (f" of {gauge.maximum}" if gauge.maximum is not None else "")
    if extra:
        line += f", {extra} temporary"
    # The figures a card of the GM's page shows, by the ruleset's own labels for them (its
    # figures' ``card``: projections/page/gm_lines.py ``cards``), so the two pages say the same
    # words: one empty or false is left out, one true is its label with a tick. Then its other
    # numbers by their own names (srd-5.2's feet left to move); the rest the effects say.
    labels: dict[str, str] = dict(getattr(type(me.own), "card", {}))
    lines: list[Line] = []
    for key, label in labels.items():
        value = own.get(key)
        if value is None or value == "" or value is False or key in me.own.repeats:
            continue
        lines.append(Line(label, "\u2713" if value is True else str(value)))
    for key, value in own.items():
        if key not in labels and key != EXTRA and key not in me.own.repeats and isinstance(value, int) \
                and not isinstance(value, bool):
            lines.append(Line(key, str(value)))
    dying = ""
    tally = own.get(TALLY)
    if isinstance(tally, str) and "/" in tally:
        s, f = tally.split("/", 1)
        if s.isdigit() and f.isdigit():
            dying = f"{TALLIED}: {_plural(int(s), 'success', 'successes')}, {_plural(int(f), 'failure', 'failures')}"
    effects = tuple(e.kind + (": " + _plural(e.left, unit + " left", unit + "s left") if e.left is not None else "")
                    + (f" ({e.detail})" if e.detail else "") + (" (the GM's own)" if e.custom else "") for e in me.effects)
    b = me.budget
    return Sheet(name=me.name, status=f"{me.status}: {STATUSES.get(me.status, '')}".rstrip(": "),
                 bar=Bar(name=gauge.name, value=gauge.value, maximum=gauge.maximum, extra=extra, line=line),
                 budget=f"{b.name}: {b.left}" + (f" of {b.of}" if b.of is not None else "") + " left",
                 figures=tuple(lines), effects=effects, dying=dying, acting=me.acting)


class Hold(msgspec.Struct, frozen=True):
    key: str  # the dice key the faces are held under
    what: str  # what the die is, as the button says it


def holds(me: Combatant) -> tuple[Hold, ...]:
    """The dice a player's link may type for the GM's next roll (cli/gm_server.py
    ``Desk._decide``): their Initiative (under their name), the save the GM asks (``save:``),
    and the saves the ruleset makes of its own figures: a death save where the character
    makes death saves now (at 0 HP), a Concentration save while it concentrates."""
    own = figures(me.own)
    found = [Hold(me.name, "Initiative d20")]
    if own.get(TALLY):
        found.append(Hold(f"death:{me.name}", "Death save d20"))
    if own.get("concentration"):
        found.append(Hold(f"con:{me.name}", "Concentration save d20"))
    found.append(Hold(f"save:{me.name}", "A save the GM asks: d20"))
    return tuple(found)


def clock(shown: Clock) -> str:
    return clock_line(shown)


# The declare form's fields a player's own action does not ask: the actor is their character,
# the action is picked, the dice come from :func:`rolled`, the target has its own picker.
_NOT_DETAILS = frozenset({"who", "action", "target"})


_DETAILS: dict[str, list[dict[str, Any]]] = {}  # by ruleset id: made once


def details(ruleset: Any) -> list[dict[str, Any]]:
    """The inputs the ruleset declares for `declare` (projections/page/gm_data.py ``form``:
    its flags and details), each with its key, where it goes, its kind, label, words and
    choices; the page shows an action's own (its ``takes``) and names none itself."""
    from skirmish.eventlog import commands as c
    from skirmish.projections.page.gm_data import form

    made = _DETAILS.get(ruleset.id)
    if made is None:
        made = _DETAILS[ruleset.id] = [
            {"key": f.key, "goes": f.goes, "kind": f.kind, "label": f.label, "doc": f.doc, "choices": list(f.choices)}
            for f in form(ruleset, "declare", c.Declare).fields if f.goes in ("field", "detail") and f.key not in _NOT_DETAILS]
    return made


class Rolled(msgspec.Struct, frozen=True):
    key: str  # the dice key, as `--roll KEY=FACES` types it
    what: str  # "1d20", "1d8", with the ruleset's why where it gives one


def rolled(ruleset: Any, state: Any, started: Any, command: Any) -> tuple[Rolled, ...]:
    """The dice keys ``command`` (a declare) may roll at ``state``, in the order it rolls
    them: the ruleset decides it on recording dice and nothing is kept (``decide`` leaves
    the state as it was). What a die shows decides what is rolled next (a miss rolls no
    damage), so it is decided twice, every die one under its highest face, then every die
    on its highest (a hit however high the AC), and the keys of both are given, each with
    its dice as first rolled. A refusal is raised as the ruleset words it."""
    from skirmish.eventlog.errors import SkirmishError
    from skirmish.eventlog.events import Roll
    from skirmish.projections.ruleset import Dice, check_details, check_flags

    keys: dict[str, Rolled] = {}

    class Recording(Dice):
        under = 1

        def roll(self, who: str, count: int, sides: int, why: str = "") -> Roll:
            keys.setdefault(who.casefold(), Rolled(who, f"{count}d{sides}" + (f" ({why})" if why else "")))
            return Roll(dice=f"{count}d{sides}", faces=(max(1, sides - self.under),) * count, source="tool")

    check_details(ruleset, command)
    check_flags(ruleset, command)
    high = Recording.of(started, "0")
    assert isinstance(high, Recording)
    ruleset.decide(state, command, high)
    high.under = 0
    try:
        ruleset.decide(state, command, high)
    except SkirmishError:  # the first decision stands; a second on other faces adds keys only
        pass
    return tuple(keys.values())


def offered(ruleset: Any, state: Any, me: Combatant | None, shown_clock: Clock, seq: int) -> dict[str, Any]:
    """The player's read's parts made for the page: ``seq`` (a read at the same one is the
    same: the page's poll is answered "unchanged"), the clock's sentence, the character's
    sheet, the dice the link may hold, its own actions, the ruleset's actions (each with
    the declare inputs it ``takes``: None, any) and effects, and those inputs (:func:`details`)."""
    out: dict[str, Any] = {"seq": seq, "said": clock(shown_clock),
                           "actions": [{"name": name, "cost": info.cost, "doc": info.doc, "takes": info.takes}
                                       for name, info in ruleset.actions.items()],
                           "details": details(ruleset),
                           "effects": [{"name": name, "doc": doc} for name, doc in ruleset.effects.items()],
                           "sheet": None, "holds": [], "moves": []}
    if me is not None:
        out["sheet"] = msgspec.to_builtins(sheet(me, shown_clock.unit))
        out["holds"] = msgspec.to_builtins(holds(me))
        out["moves"] = msgspec.to_builtins(ruleset.moves(state, me.name))
    return out
