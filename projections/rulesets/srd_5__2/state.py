"""srd-5.2's state: the fighters and their marks (conditions and effects), the order and the
clock; and what every decision and the view read of them: Speed, the HP maximum, who can take
a turn, Exhaustion's penalty to a d20 Test (§2, §3, §9, §13, §14)."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from typing import TYPE_CHECKING

import msgspec

from skirmish.eventlog.events import Term
from skirmish.projections.ruleset import Rules
from skirmish.projections.rulesets.srd_5__2.vocabulary import INCAPACITATING, LAIR


class Mark(msgspec.Struct):
    """A condition or effect on a fighter, with what ends it."""

    kind: str
    by: str = ""  # its source: the grappler, the charmer, the helper, the creator
    anchor: str = ""  # whose turn ends it
    at: str = ""  # "start" or "end" of that turn
    left: int | None = None  # anchored turns still to pass; None: until ended
    skip: bool = False  # the anchor's current turn end does not count
    level: int = 1
    detail: str = ""
    custom: bool = False
    spell: str = ""  # held by ``by``'s Concentration on this spell: ends with it (§11)


class Fighter(msgspec.Struct):
    name: str
    side: str
    hp_max: int
    ac: int
    hp: int
    dex: int = 0
    init: int = 0
    legendary: int = 0
    pc: bool = False
    speed: int = 30
    con: int = 0
    attacks: int = 1
    recharge: int = 0
    lair: bool = False
    resist: list[str] = []
    vulnerable: list[str] = []
    immune: list[str] = []
    # Its stat block (block.py): the actions, saving throws and spell slots lines, as typed
    actions: str = ""
    saves: str = ""
    slots: str = ""
    senses: str = ""
    used: dict[str, int] = {}  # uses of its block's actions by name, and "slot:N" spell slots spent
    group: str = ""  # the name its initiative is shared under
    temp: int = 0
    initiative: int | None = None
    dead: bool = False
    stable: bool = False
    successes: int = 0
    failures: int = 0
    marks: list[Mark] = []
    concentration: str = ""
    # The turn's budget (§3, §15)
    action: bool = False
    bonus: bool = False
    interaction: bool = False
    reaction: bool = False
    moved: int = 0
    dashes: int = 0
    disengaged: bool = False
    attacks_left: int = 0
    legendary_left: int = 0
    legendary_after: list[str] = []  # the ended turns ("round:who") it has used a use after
    recharge_ready: bool = True
    ready: str = ""
    trigger: str = ""
    fired: bool = False
    surprised: bool = False
    turns: int = 0  # turns it has started
    turned_round: int = 0  # the last round it had a turn in
    left: bool = False

    def has(self, kind: str) -> bool:
        return any(m.kind == kind for m in self.marks)

    def mark(self, kind: str) -> Mark | None:
        return next((m for m in self.marks if m.kind == kind), None)

    @property
    def exhaustion(self) -> int:
        m = self.mark("exhaustion")
        return m.level if m else 0

    @property
    def incapacitated(self) -> bool:
        return any(m.kind in INCAPACITATING for m in self.marks)

    @property
    def dying(self) -> bool:
        return self.hp == 0 and not self.dead


class SrdState(msgspec.Struct):
    options: dict[str, str]
    round: int = 0
    order: list[str] = []  # the fixed Initiative order; LAIR marks count 20
    scores: dict[str, int] = {}
    turn: int | None = None  # index into order of the moment now
    in_round: bool = False
    # "round:who" of the turns a legendary use may follow now: the one that ended last, and
    # those passed by since (option legendary-skipped=yes).
    gap: list[str] = []
    lair_used: list[str] = []
    fighters: dict[str, Fighter] = {}

    def names(self) -> list[str]:
        return list(self.fighters)

    @property
    def current(self) -> str | None:
        if self.turn is None or not self.in_round:
            return None
        return self.order[self.turn]


def speed_of(state: SrdState, f: Fighter) -> int:
    """Its Speed now: 0 under a condition that stops it, less by Exhaustion (§3, §13)."""
    zero = {"grappled", "restrained", "paralyzed", "petrified", "unconscious"}
    if state.options["stunned"] == "5.1":
        zero.add("stunned")
    if any(m.kind in zero for m in f.marks):
        return 0
    level = f.exhaustion
    if state.options["exhaustion"] == "5.1":
        if level >= 5:
            return 0
        return f.speed // 2 if level >= 2 else f.speed
    return max(0, f.speed - 5 * level)


def hp_max_of(state: SrdState, f: Fighter) -> int:
    """Its HP maximum now: halved from Exhaustion 4 under option exhaustion=5.1 (§13, §16)."""
    if state.options["exhaustion"] == "5.1" and f.exhaustion >= 4:
        return f.hp_max // 2
    return f.hp_max


def can_take_turn(state: SrdState, name: str) -> bool:
    """Whether a turn of the order (LAIR: count 20) is taken now, or passed by (§2, §14)."""
    if name == LAIR:
        return any(lair_able(state, f) for f in state.fighters.values())
    f = state.fighters[name]
    return not f.left and not f.dead and name in state.scores


def lair_able(state: SrdState, f: Fighter) -> bool:
    """Whether ``f`` can take a lair action at count 20 (§14)."""
    return (f.lair and not f.left and not f.dead and not f.incapacitated
            and not (state.options["surprise"] == "5.1" and f.surprised and f.turns == 0))


def exhaustion_terms(state: SrdState, f: Fighter) -> list[Term]:
    """Exhaustion's penalty to a d20 Test under 5.2: -2 a level (§13)."""
    if state.options["exhaustion"] == "5.2" and f.exhaustion:
        return [Term(f"Exhaustion {f.exhaustion}", -2 * f.exhaustion)]
    return []


# The base of the ruleset's mixins (roster.py, decide_*.py, fold.py, view.py): each is checked
# as the Rules it is mixed into, while at run time Srd52 alone derives from Rules (rules.py), so
# the handlers are gathered once and a command's import makes one generic subclass, not seven.
if TYPE_CHECKING:
    SrdRules = Rules[SrdState]
else:
    SrdRules = object
