"""What a player's page shows of their own character, made here from the typed view so the
page's script composes no sentence and names no ruleset's figure: the vital gauge with the
temporary points beside it where the ruleset keeps them, each of the ruleset's own figures
as a label and its words, each effect with what is left of it, and the dice the player's
link may hold for the GM's next roll (cli/gm_server.py ``Desk._player_view`` puts
:func:`sheet` and :func:`holds` in the player's read).

A figure the ruleset does not have is not shown: the death saves only where the character's
own figures keep them, and only while they are being made."""

from __future__ import annotations

from typing import Any

import msgspec

from skirmish.projections.page.gm_lines import clock_line
from skirmish.projections.view import STATUSES, Clock, Combatant, figures

# The words of a ruleset's own figure names on a player's sheet; a name not here is shown as it is.
WORDS: dict[str, str] = {
    "ac": "AC", "initiative": "Initiative", "move": "Feet to move", "bonus": "Bonus Action",
    "reaction": "Reaction", "legendary": "Legendary uses", "death": "Death saves", "concentration": "Concentration",
}
EXTRA = "temp"  # an own figure of points spent before the vital gauge's (srd-5.2's temporary HP)
TALLY = "death"  # an own figure "S/F": successes and failures of the saves made at 0


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
    lines: list[Line] = []
    dying = ""
    for key, value in own.items():
        if key == EXTRA or key in me.own.repeats or value is None or value == "":
            continue
        label = WORDS.get(key, key)
        if key == TALLY and isinstance(value, str) and "/" in value:
            s, f = value.split("/", 1)
            if s.isdigit() and f.isdigit():
                dying = f"{label}: {_plural(int(s), 'success', 'successes')}, {_plural(int(f), 'failure', 'failures')}"
                continue
        text = ("used" if value else "not used") if isinstance(value, bool) else str(value)
        lines.append(Line(label, text))
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


def offered(ruleset: Any, state: Any, me: Combatant | None, shown_clock: Clock, seq: int) -> dict[str, Any]:
    """The player's read's parts made for the page: ``seq`` (a read at the same one is the
    same: the page's poll is answered "unchanged"), the clock's sentence, the character's
    sheet, the dice the link may hold, its own actions, the ruleset's actions and effects."""
    out: dict[str, Any] = {"seq": seq, "said": clock(shown_clock),
                           "actions": [{"name": name, "cost": info.cost, "doc": info.doc} for name, info in ruleset.actions.items()],
                           "effects": [{"name": name, "doc": doc} for name, doc in ruleset.effects.items()],
                           "sheet": None, "holds": [], "moves": []}
    if me is not None:
        out["sheet"] = msgspec.to_builtins(sheet(me, shown_clock.unit))
        out["holds"] = msgspec.to_builtins(holds(me))
        out["moves"] = msgspec.to_builtins(ruleset.moves(state, me.name))
    return out
