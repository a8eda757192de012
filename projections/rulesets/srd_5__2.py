"""The srd-5.2 ruleset: rounds of turns in a fixed Initiative order, attacks against AC, hit points, death saves.

This work includes material from the System Reference Document 5.2 ("SRD 5.2") by Wizards
of the Coast LLC, available at https://www.dndbeyond.com/srd. The SRD 5.2 is licensed under
the Creative Commons Attribution 4.0 International License, available at
https://creativecommons.org/licenses/by/4.0/legalcode.

Rules text: shared/rules/srd-5.2-combat.md, cited by section ("srd-5.2-combat.md §9").
The clock is whose turn it is: the first ``round`` rolls Initiative for everyone (§2) and
the order holds for the whole fight; ``next`` ends the turn (its "until the end" effects
run out) and starts the next one (reaction and legendary uses back, recharge rolled, death
save rolled, "until the start" effects run out: §12); the last turn's ``next`` ends the
round and starts the next in the same order, with no re-roll (§1, §2; under option
``rounds=stop`` or ``reroll`` the GM's ``round`` starts it). Dice typed with ``--roll``: a
combatant's own d20 under its name (initiative, attack, Hide, Help), a group's shared
initiative under the group's name (``Goblin`` for Goblin 1..3), a death save under
``death:NAME`` (the round that rolls a dying character's initiative may start its turn
too), damage under ``dmg:NAME`` (a second damage type's under ``extra:NAME``), a
concentration save under ``con:NAME`` (a second one ``con2:NAME``), a recharge under
``recharge:NAME``, a roll-off under ``tie:NAME``.

Stats: ``hp``, ``ac`` (required), ``dex``, ``init`` (default: ``dex``), ``legendary``,
``pc`` (default 1 on a side named party, players, pcs, characters or heroes, else 0),
``speed``, ``con`` (Con saving throw modifier), ``attacks`` (attack rolls in one Attack
action: Extra Attack, Multiattack), ``recharge`` (X of "Recharge X-6"), ``lair`` (1: in its
lair), and the text stats ``resist``, ``vulnerable``, ``immune`` (damage types, commas;
``immune`` may name conditions too, §7).

Statuses: ``dead`` (a monster at 0 HP under ``monster-death=instant``, massive damage,
three failed death saves, Exhaustion 6: §9, §13), ``down`` (a character at 0 HP:
Unconscious, §9), ``out`` (Incapacitated, Paralyzed, Petrified, Stunned or Unconscious
by an effect while above 0 HP: no action, §13), ``left`` after ``leave``, else
``fighting``.

Open points of the text (§16), each an option recorded in the encounter's first event:
``surprise`` (5.2: Disadvantage on Initiative; 5.1: no move, action or reaction on its
first turn), ``ties`` (ask: ``round --with order=A+B`` orders tied combatants, the round
waits for it; dex: higher modifier then characters, then the order added; rolloff: d20
roll-offs), ``initiative`` (roll or score), ``identical`` (what shares a roll: ``count``,
the creatures one ``add --count`` made, or ``none``), ``late`` (a combatant added after
the first round rolls and takes its place, after any it ties with, or acts ``last``),
``legendary-start`` (full uses before its first turn, or none), ``legendary-repeat`` (1 use after one
creature's turn, or any), ``legendary-skipped`` (uses after a turn that was skipped:
yes or no), ``lair`` (none, or a lair action at count 20 losing ties, by a monster with
``lair=1``), ``concentration-save`` (per-hit: one save a hit, its DC from the hit's whole damage;
per-type: one save a damage type of the hit, ``--with extra=2d6:fire`` being the second,
each DC from that type's damage, typed as ``con:NAME`` then ``con2:NAME``), ``concentration-temp`` (damage wholly
absorbed by temporary HP asks a save, or not), ``temp-at-0`` (damage absorbed by
temporary HP at 0 HP is a failure, or not), ``stable-damage`` (the damage that ends
Stable is also a failure: yes, or no), ``exhaustion-saves`` (Exhaustion lowers death
saves: yes or no), ``monster-death`` (instant, or as a character), ``minute-ends``
(``--with minutes=N`` ends at the start or the end of the creator's turn), ``missed-turn``
(an effect anchored to a turn that never comes ends with the round, or lasts),
``stunned`` (5.2 may move, 5.1 cannot), ``exhaustion`` (5.2 or 5.1), ``dc-cap`` (30 or
none), ``recharge-incapacitated`` (roll or skip).

Readings chosen where the text leaves the tracker free:

- An attack is one ``declare WHO attack --target T --with hit=+5 --with damage=1d6+2
  --with type=slashing`` (``damage=7`` for a stat block's average): the d20, the hit
  against AC, the damage, resistances, temporary HP and what follows are decided at once.
  ``--with as=bonus|reaction|legendary|ready`` takes it as a Bonus Action, a Reaction (an
  opportunity attack), a legendary use or the fired Ready.
- "After another creature's turn" (§14) is the moment ``next`` has ended a turn: a
  legendary use is taken during the following creature's turn (after a round's last
  turn, the next round's first) or, under ``rounds=stop`` or ``reroll``, between rounds,
  once per ended turn under ``legendary-repeat=1``.
- A Bonus Action needs what grants it, ``--with by=WHAT`` (§3).
- Positions are the GM's: ``--with range=ranged`` (melee, within 5 ft, by default),
  ``--with cover=half|three-quarters|total``, ``--with adv=yes``/``dis=yes`` for the
  sources the tracker cannot see (an unseen target, long range); ``--with
  opportunity=yes`` marks a reaction attack as an opportunity attack (refused against a
  creature that took Disengage this turn, §5); ``--with knockout=yes`` leaves a creature a
  melee blow would drop at 1 HP and Unconscious (§9), woken by healing or first aid (a
  Help, DC 10 Wis (Medicine)).
- ``effect WHO KIND --with by=NAME --with spell=S`` ties the effect to NAME's
  Concentration on S: it ends with it (§11).
- Not tracked: saving throws other than death and Concentration saves (the GM types
  their outcome as damage or an effect), spell slots, X/Day uses, rests, mounts and
  shared counts (§2's last point), half damage on a save (the GM types the halved figure).
- ``effect WHO KIND --rounds N`` runs N of the anchor's turns: ``--with at=start|end``
  (default start) of ``--with of=NAME`` (default: the creature whose turn it is, else
  WHO); the current turn's end does not count ("the end of its next turn" is
  ``--rounds 1 --with at=end``). Without ``--rounds`` it lasts until ``--end``.
- Temporary HP: ``heal WHO N --with temp=yes`` while holding some keeps the higher of the
  two (§8: the creature keeps the old or takes the new, never both), or the one
  ``--with keep=new`` or ``keep=old`` names; the event records the choice and the one kept.
- Carried into another fight (``new --carry``): HP, temporary HP (§8: until used up or a
  Long Rest), the Exhaustion level, death saves, Stable, dead, knocked out (§9), and the
  conditions nobody's turn, Concentration or other creature ends; the rest ends with the
  fight, named. A saved fight set up (``new --from``) also brings each initiative: the
  first ``round`` places them by it.
- A saved fight in progress (``new --from`` a fight with a combatant acting) is taken up
  where its table stopped by a ``resume`` after the carries: a round start at its round in
  the order held (the initiatives, highest first, ties as the file orders them: those
  turns were taken, so no ``--with order`` is asked nor a roll-off rolled, §2), then the
  acting combatant's turn start, marked resumed and naming those before it, who have had
  their turns this round: they take none until the next round, and an effect anchored to
  one of them is no missed turn (§16's missed-turn). Where the file is silent (an
  Improved Initiative export keeps hit points, initiative and tags, no more):
  its turn started there, so nothing at its start is done again (no death save, recharge
  roll, Ready lapsing, nor a countdown of effects: II counted its tags down when that turn
  started, §12); its action, Bonus Action, movement and Reaction are all unspent (II does
  not track them: the GM declares what it has taken); every other combatant's Reaction is
  unspent too (who spent one since its turn is not in the file, §3); every creature that
  has had a turn (those before it, or all after round 1) holds its full legendary uses,
  none spent since (§14); and no legendary use follows a turn taken before the fight was
  taken up, whose moment passed there: the first follows the acting combatant's turn.
"""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (README: Speed).

import re
from collections.abc import Mapping
from typing import ClassVar

import msgspec

from skirmish.eventlog.commands import (
    AddCombatant,
    ApplyEffect,
    Cancel,
    CarriedEffect,
    Damage,
    Declare,
    Heal,
    Next,
    Resolve,
    Resume,
    StartRound,
    Upkeep,
)
from skirmish.eventlog.errors import BadInput, RuleViolation
from skirmish.eventlog.events import CombatantAdded, CombatantCarried, Derivation, EncounterStarted, Event, Roll, Term
from skirmish.projections.ruleset import (
    ActionInfo,
    Detail,
    Dice,
    DiceKey,
    Flag,
    Harm,
    Move,
    Option,
    Rules,
    Ruleset,
    Stat,
    applies,
    decide_add,
    decides,
    detail_int,
    find_name,
    options_in_force,
)
from skirmish.projections.rulesets._srd_block import (
    ABILITIES,
    DAMAGE_TYPES,
    BlockAction,
    find_action,
    format_actions,
    format_saves,
    parse_actions,
    parse_saves,
    parse_slots,
)
from skirmish.projections.view import Budget, Clock, Combatant, Effect, Gauge, Own, Pending, Status, View

RULES = "srd-5.2-combat.md"


def R(section: int) -> str:  # noqa: N802 - reads as the text's own "§N"
    return f"{RULES} §{section}"


LAIR = ""  # the lair's place in the order (no combatant has an empty name)
KNOCKED_OUT = "knocked out"  # §9: wakes after a Short Rest, on healing or first aid
PC_SIDES = frozenset({"party", "players", "pcs", "characters", "heroes"})
INCAPACITATING = frozenset({"incapacitated", "paralyzed", "petrified", "stunned", "unconscious"})
CONDITIONS: dict[str, str] = {
    "blinded": "attacks against it: Advantage; its attacks: Disadvantage (§13)",
    "charmed": "can't attack the charmer (--with by=NAME) (§13)",
    "deafened": "can't hear; nothing the tracker counts (§13)",
    "exhaustion": "a level a receipt, -2 a level on D20 Tests, -5 ft a level; 6: dead; --end removes one (§13)",
    "frightened": "Disadvantage on its attacks (§13)",
    "grappled": "Speed 0; Disadvantage on attacks but against the grappler (--with by=NAME) (§13)",
    "incapacitated": "no action, Bonus Action or Reaction; Concentration ends (§13)",
    "invisible": "Advantage on Initiative and its attacks; attacks against it: Disadvantage (§13)",
    "paralyzed": "Incapacitated, Speed 0; attacks against: Advantage, a melee hit is Critical (§13)",
    "petrified": "Incapacitated, Speed 0; attacks against: Advantage; Resistance to all damage (§13)",
    "poisoned": "Disadvantage on its attacks (§13)",
    "prone": "its attacks: Disadvantage; melee against: Advantage, ranged: Disadvantage (§13)",
    "restrained": "Speed 0; attacks against: Advantage; its attacks: Disadvantage (§13)",
    "stunned": "Incapacitated; attacks against: Advantage (§13)",
    "unconscious": "Incapacitated and Prone, Speed 0; attacks against: Advantage, melee hits Critical (§13)",
}
EFFECTS: dict[str, str] = {
    **CONDITIONS,
    "concentration": "--with spell=NAME: one at a time; --end drops it (§11)",
}
USES = ("action", "bonus", "reaction", "legendary", "ready")
# What `declare` reads for each action (ActionInfo.takes), as _declare and the helpers it
# calls read them: how the action is taken (`as`; a legendary use's `cost`, a Bonus
# Action's `by`) for the actions of §4, and each action's own inputs.
_USE = ("as", "cost", "by")
_ACT = (*_USE, "target", "recharge")  # an action of §4 with no inputs of its own (Acted's target and recharge)
ACTIONS: dict[str, ActionInfo] = {
    "attack": ActionInfo("action", "--target WHO --with hit=N --with damage=1d6+2 --with type=T: one attack roll "
                         "(§4, §6)",
                         ("target", "hit", "damage", "type", "extra", "adjust", "range", "cover", "adv", "dis",
                          "opportunity", "knockout", "recharge", *_USE)),
    "dash": ActionInfo("action", "extra movement equal to its Speed this turn (§4)", _ACT),
    "disengage": ActionInfo("action", "no opportunity attacks from its movement this turn (§4, §5)", _ACT),
    "dodge": ActionInfo("action", "attacks against it: Disadvantage until its next turn starts (§4)", _USE),
    "help": ActionInfo("action", "--target ENEMY: an ally's next attack on it has Advantage; a dying ally: "
                       "DC 10 Wis (Medicine) to stabilise (§4, §9)", ("target", "bonus", *_USE)),
    "hide": ActionInfo("action", "--with bonus=N: DC 15 Dex (Stealth); Invisible while hidden (§4)", ("bonus", *_USE)),
    "influence": ActionInfo("action", "a Cha or Wis check (§4)", _ACT),
    "magic": ActionInfo("action", "--with spell=NAME [--with concentration=yes] [--with recharge=yes] (§4, §11)",
                        ("spell", "concentration", *_ACT)),
    "ready": ActionInfo("action", "--trigger TEXT --with then=ACTION: held until it fires (`resolve`) or its next "
                        "turn starts (§4)", ("trigger", "then", "spell", *_USE)),
    "search": ActionInfo("action", "a Wis check (§4)", _ACT),
    "study": ActionInfo("action", "an Int check (§4)", _ACT),
    "utilize": ActionInfo("action", "use an object that needs an action (§4)", _ACT),
    "move": ActionInfo("movement", "--amount FEET [--with terrain=difficult|crawl]: split around the action (§3)",
                       ("amount", "terrain", "as", "cost")),  # as=ready: a readied move fired
    "stand": ActionInfo("half Speed", "stand up from Prone (§3)", ()),
    "prone": ActionInfo("free", "drop Prone (not at Speed 0) (§3)", ()),
    "interact": ActionInfo("free", "one free object interaction a turn; a second is Utilize (§3)", ()),
    "bonus": ActionInfo("Bonus Action", "--with by=WHAT grants it (§3)", ("by",)),
    "legendary": ActionInfo("legendary use", "after another creature's turn [--with cost=N] (§14)",
                            ("cost", "spell", "target")),
    "lair": ActionInfo("lair action", "at count 20 under option lair=count-20 (§14)", ()),
}
ACTION_NAMES = frozenset({"attack", "dash", "disengage", "dodge", "help", "hide", "influence", "magic", "ready",
                          "search", "study", "utilize"})
_DICE = re.compile(r"^(?:(\d{1,2})d(\d{1,3}))?\s*(?:([+-])\s*(\d{1,4}))?$")


# --- state --------------------------------------------------------------------------------


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
    # Its stat block (_srd_block.py): the actions, saving throws and spell slots lines, as typed
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


# --- events -------------------------------------------------------------------------------


class Initiative(msgspec.Struct, frozen=True):
    who: tuple[str, ...]  # one, or a group sharing the roll
    score: Derivation


class RoundStarted(Event, frozen=True, tag="srd-5.2.round-started", omit_defaults=True):
    round: int
    order: tuple[str, ...]
    rolled: tuple[Initiative, ...] = ()
    surprised: tuple[str, ...] = ()
    tie_rule: str = ""
    resumed: str = ""  # a saved fight in progress taken up at this round: where from (the `resume` command)


class TurnStarted(Event, frozen=True, tag="srd-5.2.turn-started", omit_defaults=True):
    who: str  # LAIR: count 20
    skipped: tuple[str, ...] = ()  # turns passed by since the last one (dead, left)
    # A turn under way in a saved fight taken up (`resume`): it started there, so nothing at
    # its start is done again; ``taken``: those before it in the order, done with theirs.
    resumed: bool = False
    taken: tuple[str, ...] = ()


class TurnEnded(Event, frozen=True, tag="srd-5.2.turn-ended", omit_defaults=True):
    who: str


class RoundEnded(Event, frozen=True, tag="srd-5.2.round-ended", omit_defaults=True):
    round: int


class Acted(Event, frozen=True, tag="srd-5.2.acted", omit_defaults=True):
    """An action, Bonus Action, free interaction, legendary or lair use that changes no HP."""

    who: str
    action: str
    use: str  # action, bonus, reaction, legendary, ready, free, lair
    target: str | None = None
    detail: str = ""
    cost: int = 1
    check: Derivation | None = None
    recharge: bool = False
    block: str = ""  # the stat block's action taken, by name (its uses counted)
    slot: int = 0  # the level of the spell slot spent (§4, Magic)


class Saved(Event, frozen=True, tag="srd-5.2.saved", omit_defaults=True):
    """A target's saving throw against a stat block's action (``by``'s ``action``): ``save``
    None when it fails automatically (``why``: Paralyzed, Stunned...) (§13)."""

    who: str
    by: str
    action: str
    ability: str
    dc: int
    save: Derivation | None
    success: bool
    why: str = ""


class Moved(Event, frozen=True, tag="srd-5.2.moved", omit_defaults=True):
    who: str
    cost: Derivation
    stood: bool = False


class Attacked(Event, frozen=True, tag="srd-5.2.attacked", omit_defaults=True):
    who: str
    target: str
    use: str
    roll: Derivation
    ac: int
    hit: bool
    crit: bool
    advantage: str = ""  # "advantage", "disadvantage" or ""
    why: str = ""
    recharge: bool = False
    cost: int = 1  # legendary uses spent, taken as one (--with as=legendary --with cost=N, §14)
    block: str = ""  # the stat block's attack made, by name


class Damaged(Event, frozen=True, tag="srd-5.2.damaged", omit_defaults=True):
    who: str
    damage: Derivation
    damage_type: str = ""
    temp_left: int = 0
    hp_left: int = 0
    by: str | None = None
    crit: bool = False


class Fell(Event, frozen=True, tag="srd-5.2.fell", omit_defaults=True):
    """To 0 HP: dead, or Unconscious; or dead at 0 HP."""

    who: str
    dead: bool
    why: str
    rule: str
    # Massive damage: what was left over at 0 HP (all of it, taken at 0 HP), against the HP maximum (§9).
    left_over: Derivation | None = None


class DeathSave(Event, frozen=True, tag="srd-5.2.death-save", omit_defaults=True):
    who: str
    save: Derivation | None  # None: a failure from damage
    successes: int
    failures: int
    outcome: str  # success, failure, stable, dead, revived


class Healed(Event, frozen=True, tag="srd-5.2.healed", omit_defaults=True):
    who: str
    amount: int
    hp_left: int
    woke: bool = False


class TempGained(Event, frozen=True, tag="srd-5.2.temp-gained", omit_defaults=True):
    """A grant of ``temp`` temporary HP while holding ``had`` (§8: no stacking). ``keep``: the
    choice (higher, new, old; empty in a log from before it: the new one taken); ``kept``:
    which one the creature holds after it, new or old."""

    who: str
    temp: int
    had: int
    keep: str = ""
    kept: str = "new"


class Stabilised(Event, frozen=True, tag="srd-5.2.stabilised", omit_defaults=True):
    who: str
    by: str
    check: Derivation | None = None


class ConcentrationSaved(Event, frozen=True, tag="srd-5.2.concentration-save", omit_defaults=True):
    who: str
    dc: Derivation
    save: Derivation
    kept: bool


class ConcentrationStarted(Event, frozen=True, tag="srd-5.2.concentration-started", omit_defaults=True):
    who: str
    spell: str


class ConcentrationEnded(Event, frozen=True, tag="srd-5.2.concentration-ended", omit_defaults=True):
    who: str
    spell: str
    why: str


class MarkAdded(Event, frozen=True, tag="srd-5.2.mark-added", omit_defaults=True):
    who: str
    kind: str
    by: str = ""
    anchor: str = ""
    at: str = ""
    left: int | None = None
    skip: bool = False
    detail: str = ""
    custom: bool = False
    spell: str = ""


class MarkEnded(Event, frozen=True, tag="srd-5.2.mark-ended", omit_defaults=True):
    who: str
    kind: str
    why: str
    by: str = ""


class ReadyFired(Event, frozen=True, tag="srd-5.2.ready-fired", omit_defaults=True):
    who: str


class ReadyLapsed(Event, frozen=True, tag="srd-5.2.ready-lapsed", omit_defaults=True):
    who: str
    why: str


class Recharged(Event, frozen=True, tag="srd-5.2.recharged", omit_defaults=True):
    who: str
    roll: Roll
    ready: bool


# --- the view's own parts -----------------------------------------------------------------


class SrdFigures(Own, frozen=True, kw_only=True):
    ac: int
    temp: int
    initiative: int | None
    move: int  # feet left this turn
    bonus: bool  # the Bonus Action used
    reaction: bool  # the Reaction used
    legendary: str  # uses left of its uses, "" without any
    death: str  # "S/F" tallies at 0 HP
    concentration: str

    none_made: ClassVar[Mapping[str, tuple[str, str]]] = {"death": ("0/0", "no death save made")}


class ReadyFigures(Own, frozen=True, kw_only=True):
    trigger: str


# --- the ruleset --------------------------------------------------------------------------


def _opt(default: str, choices: tuple[str, ...], doc: str) -> Option:
    return Option(default, choices, doc)


class Srd52(Rules[SrdState]):
    id = "srd-5.2"
    state_type = SrdState
    rules_file = RULES
    state_version = 1
    options = {
        "surprise": _opt("5.2", ("5.2", "5.1"), "5.2: Disadvantage on Initiative; 5.1: no move, action or reaction "
                         "on its first turn (§1)"),
        "ties": _opt("ask", ("ask", "dex", "rolloff"), "Initiative ties: round --with order=A+B (ask), higher Dex "
                     "then characters (dex), or d20 roll-offs (rolloff) (§2)"),
        "initiative": _opt("roll", ("roll", "score"), "d20 + modifier, or the score 10 + modifier, +/-5 (§2)"),
        "identical": _opt("count", ("count", "none"), "who shares a roll: the creatures one `add --count` made, "
                          "or nobody (§2)"),
        "late": _opt("roll", ("roll", "last"), "a combatant added after round 1: rolls and takes its place, or "
                     "acts last (§16)"),
        "legendary-start": _opt("full", ("full", "none"), "legendary uses before the monster's first turn (§16)"),
        "legendary-repeat": _opt("1", ("1", "any"), "legendary uses after the same creature's turn (§16)"),
        "legendary-skipped": _opt("yes", ("yes", "no"), "a legendary use after a turn that was skipped (§16)"),
        "lair": _opt("none", ("none", "count-20"), "5.2 has no lair action; 5.1: one at count 20, losing ties "
                     "(§14)"),
        "concentration-save": _opt("per-hit", ("per-hit", "per-type"), "one save a hit, or one a damage type of "
                                   "the hit (§16)"),
        "concentration-temp": _opt("save", ("save", "no-save"), "damage wholly absorbed by temporary HP asks a "
                                   "save (§16)"),
        "temp-at-0": _opt("failure", ("failure", "none"), "damage absorbed by temporary HP at 0 HP is a failed "
                          "death save (§16)"),
        "stable-damage": _opt("yes", ("yes", "no"), "the damage that ends Stable also counts a failure (§16)"),
        "exhaustion-saves": _opt("yes", ("yes", "no"), "Exhaustion lowers death saves (§16)"),
        "monster-death": _opt("instant", ("instant", "as-character"), "a monster at 0 HP dies, or falls like a "
                              "character (§9)"),
        "minute-ends": _opt("start", ("start", "end"), "--with minutes=N ends at the start or the end of the "
                            "creator's turn (§12, §16)"),
        "missed-turn": _opt("round-end", ("round-end", "lasts"), "an effect anchored to a turn that never "
                            "comes ends with that round, or lasts until ended (§16)"),
        "stunned": _opt("5.2", ("5.2", "5.1"), "5.2: Stunned may move; 5.1: Speed 0 (§13, §16)"),
        "exhaustion": _opt("5.2", ("5.2", "5.1"), "5.2: -2 a level, -5 ft a level; 5.1: six cumulative "
                           "effects (§16)"),
        "dc-cap": _opt("30", ("30", "none"), "the Concentration DC is at most 30 (5.2) or has no cap (§11)"),
        "rounds": _opt("roll-on", ("roll-on", "stop", "reroll"), "roll-on: the next round starts at `next` in the "
                       "same order (§1, §2); stop: each round ends, `round` starts the next in the same order; "
                       "reroll: each round ends, `round` rolls every Initiative again (a house rule)"),
        "recharge-incapacitated": _opt("roll", ("roll", "skip"), "recharge rolled while Incapacitated (§16)"),
    }
    stats = {
        "hp": Stat("Hit Point maximum (§9)", minimum=1),
        "ac": Stat("Armor Class (§6)", minimum=0),
        "dex": Stat("Dexterity modifier", required=False, minimum=-10, maximum=20),
        "init": Stat("Initiative modifier (default: dex) (§2)", required=False, minimum=-10, maximum=30),
        "legendary": Stat("Legendary Action uses a round (§14)", required=False, minimum=0, maximum=10),
        "pc": Stat("1: a character (death saves), 0: a monster; default by side (§9)", required=False,
                   minimum=0, maximum=1),
        "speed": Stat("Speed in feet", required=False, default=30, minimum=0),
        "con": Stat("Constitution saving throw modifier (§11)", required=False, minimum=-10, maximum=30),
        "attacks": Stat("attack rolls in one Attack action (§4)", required=False, default=1, minimum=1, maximum=10),
        "recharge": Stat("X of Recharge X-6; 0: none (§14)", required=False, minimum=0, maximum=6),
        "lair": Stat("1: in its lair (§14)", required=False, minimum=0, maximum=1),
        "resist": Stat("Resistance: damage types, commas (§7)", required=False, kind=str),
        "vulnerable": Stat("Vulnerability: damage types, commas (§7)", required=False, kind=str),
        "immune": Stat("Immunity: damage types or conditions, commas (§7)", required=False, kind=str),
        "xp": Stat("experience points the creature is worth (a bestiary foe's)", required=False, minimum=0),
        "actions": Stat("its stat block's actions: NAME: CLAUSE, ...; NAME: ... (README: Stat blocks)",
                        required=False, kind=str),
        "saves": Stat("saving throw modifiers: dex +6, wis +2 (default: dex and con)", required=False, kind=str),
        "slots": Stat("spell slots by level: 1:4, 2:3 (the Magic action's --with slot=N spends one)",
                      required=False, kind=str),
        "senses": Stat("senses, shown to the GM: darkvision 60, passive 12", required=False, kind=str),
    }
    actions = ACTIONS
    effects = EFFECTS
    flags = {
        "target": Flag("attack, help: whom", ("declare",)),
        "trigger": Flag("ready: what fires it", ("declare",)),
        "amount": Flag("move: feet", ("declare",)),
        "rounds": Flag("effect: the anchor's turns it lasts", ("effect",)),
        "end": Flag("effect: end it now (Exhaustion: one level)", ("effect",)),
    }
    details = {
        "as": Detail("attack or action taken as", ("declare",), USES),
        "hit": Detail("attack bonus, e.g. 5 or -1", ("declare",)),
        "damage": Detail("damage: dice and modifier (1d6+2) or a stat block's average (7)", ("declare",)),
        "type": Detail("damage type", ("declare", "damage"), tuple(sorted(DAMAGE_TYPES))),
        "cover": Detail("attack: the target's cover, +2 or +5 AC; total: no target (§6)", ("declare",),
                        ("half", "three-quarters", "total")),
        "opportunity": Detail("attack as=reaction: an opportunity attack, none against a Disengage (§5)",
                              ("declare",), ("yes",)),
        "knockout": Detail("melee attack: a blow that would drop it leaves it at 1 HP, Unconscious (§9)",
                           ("declare",), ("yes",)),
        "extra": Detail("attack: a second damage type's dice, e.g. 2d6:fire (typed as extra:NAME)", ("declare",)),
        "adjust": Detail("a bonus or penalty to damage before Resistance (§7)", ("declare", "damage")),
        "adv": Detail("Advantage from a source the tracker does not see", ("declare", "round"), ("yes",)),
        "dis": Detail("Disadvantage from a source the tracker does not see", ("declare", "round"), ("yes",)),
        "range": Detail("melee (within 5 ft, default) or ranged", ("declare",), ("melee", "ranged")),
        "then": Detail("ready: the action it holds", ("declare",)),
        "spell": Detail("magic, ready, concentration: the spell; effect: the Concentration (of --with by) "
                        "holding it", ("declare", "effect")),
        "concentration": Detail("magic: the spell needs Concentration", ("declare",), ("yes",)),
        "recharge": Detail("uses the Recharge ability", ("declare",), ("yes",)),
        "slot": Detail("magic or a stat block's action: the level of the spell slot it spends", ("declare",),
                       tuple(str(n) for n in range(1, 10))),
        "half": Detail("a stat block's save: half damage on a success (default: as the block says)", ("declare",),
                       ("yes", "no")),
        "bonus": Detail("hide, help: the check's modifier", ("declare",)),
        "cost": Detail("legendary: uses spent (5.1 options cost 2-3)", ("declare",), ("1", "2", "3")),
        "terrain": Detail("move: difficult terrain or crawling, 1 extra foot a foot", ("declare",),
                          ("difficult", "crawl")),
        "by": Detail("bonus: what grants it; effect: its source", ("declare", "effect")),
        "crit": Detail("damage: from a Critical Hit (two failures at 0 HP)", ("damage",), ("yes",)),
        "surprised": Detail("round 1: the surprised, joined by +", ("round",)),
        "order": Detail("ties=ask: the tied, first to last, joined by +", ("round",)),
        "at": Detail("effect: ends at the start or end of the anchor's turn", ("effect",), ("start", "end")),
        "of": Detail("effect: whose turn it is anchored to", ("effect",)),
        "minutes": Detail("effect: 1 minute = 10 rounds (§12)", ("effect",)),
        "temp": Detail("heal: temporary HP, no stacking with the old (§8)", ("heal",), ("yes",)),
        "keep": Detail("heal --with temp=yes: the grant kept, the higher (default), new or old (§8)", ("heal",),
                       ("higher", "new", "old")),
    }

    def initial(self, started: EncounterStarted) -> SrdState:
        return SrdState(options=options_in_force(self, started))

    # --- add ------------------------------------------------------------------------------

    @decides(AddCombatant)
    def _add(self, state: SrdState, command: AddCombatant, dice: Dice) -> list[Event]:
        added = decide_add(self, state.names(), command)
        out: list[Event] = []
        for event in added:
            assert isinstance(event, CombatantAdded)
            stats = dict(event.stats)
            if "init" not in command.stats:
                stats["init"] = stats["dex"]  # §2: d20 + Dex modifier unless the stat block says
            if "pc" not in command.stats:
                stats["pc"] = 1 if event.side.strip().lower() in PC_SIDES else 0
            traits = {key: self.trait_words(key, words) for key, words in event.traits.items()}
            block = parse_actions(traits.get("actions", ""))
            multi = max((a.attacks for a in block), default=0)
            if multi and "attacks" not in command.stats:
                stats["attacks"] = multi  # Multiattack: its attack rolls in one Attack action (§14)
            charged = [a.recharge for a in block if a.recharge]
            if charged and "recharge" not in command.stats:
                stats["recharge"] = charged[0]  # Recharge X-6 (§14)
            out.append(CombatantAdded(name=event.name, side=event.side, stats=stats, traits=traits))
        return out

    def trait_words(self, key: str, text: str) -> str:
        """`set resist=fire,cold` mid-fight: the words checked as `add` checks them (§7, §13); a stat
        block's lines read, and kept as they are read back (_srd_block.py)."""
        if key == "actions":
            return format_actions(parse_actions(text))
        if key == "saves":
            return format_saves(parse_saves(text))
        if key == "slots":
            return ", ".join(f"{level}:{count}" for level, count in sorted(parse_slots(text).items()))
        if key == "senses":
            return " ".join(text.split())
        for word in self.unknown_words(key, text):
            kinds = "damage type or condition" if key == "immune" else "damage type"
            raise BadInput(f"{key}={text}: {word!r} is no {kinds} ({R(7)})")
        return ", ".join(_words(text))

    def unknown_words(self, key: str, text: str) -> list[str]:
        """The words of text stat ``key`` (commas between) that are no damage type, nor for
        ``immune`` a condition (§7, §13): `add` refuses them, an import names them."""
        if key not in ("resist", "vulnerable", "immune"):
            return []
        return [w for w in _words(text) if w not in DAMAGE_TYPES and not (key == "immune" and w in CONDITIONS)]

    @applies(CombatantAdded)
    def _added(self, state: SrdState, event: CombatantAdded) -> None:
        s, t = event.stats, event.traits
        group = ""
        if state.options.get("identical") == "count":
            m = re.fullmatch(r"(.+) \d+", event.name)
            group = m.group(1) if m else ""
        legendary = s.get("legendary", 0)
        state.fighters[event.name] = Fighter(
            name=event.name, side=event.side, hp_max=s["hp"], ac=s["ac"], hp=s["hp"], dex=s.get("dex", 0),
            init=s.get("init", s.get("dex", 0)), legendary=legendary, pc=bool(s.get("pc", 0)),
            speed=s.get("speed", 30), con=s.get("con", 0), attacks=s.get("attacks", 1),
            recharge=s.get("recharge", 0), lair=bool(s.get("lair", 0)),
            resist=_words(t.get("resist", "")), vulnerable=_words(t.get("vulnerable", "")),
            immune=_words(t.get("immune", "")), group=group, actions=t.get("actions", ""),
            saves=t.get("saves", ""), slots=t.get("slots", ""), senses=t.get("senses", ""),
            legendary_left=legendary if state.options.get("legendary-start") == "full" else 0,
        )

    def rename_in(self, state: SrdState, old: str, new: str) -> None:
        """The shared rename, and the names it cannot see: the Initiative scores' keys, the turn an
        effect is anchored to, the ended turns ("round:who") legendary uses follow, the lair's list."""
        super().rename_in(state, old, new)
        state.scores = {new if k == old else k: v for k, v in state.scores.items()}
        state.gap = [_renamed_turn(t, old, new) for t in state.gap]
        state.lair_used = [new if n == old else n for n in state.lair_used]
        for f in state.fighters.values():
            f.legendary_after = [_renamed_turn(t, old, new) for t in f.legendary_after]
            for m in f.marks:
                m.anchor = new if m.anchor == old else m.anchor

    # --- carried in: the party between fights, a saved fight set up (docs/adding-a-ruleset.md, step 6)

    # `new --carry` takes the characters' sides by default (projections/carry.py), as `pc` reads them.
    party_sides = ("players", "party", "pcs", "characters", "heroes")
    # The figures a saved fight's seat brings that this applier holds (projections/imports/bring.py).
    seat_figures = frozenset({"temp", "initiative"})

    @applies(CombatantCarried)
    def _carried(self, state: SrdState, event: CombatantCarried) -> None:
        f, got = state.fighters[event.who], event.figures
        if event.vital is not None:
            f.hp = event.vital
        f.temp = got.get("temp", 0)  # they last until used up or a Long Rest (§8)
        if got.get("exhaustion", 0):  # a lasting condition, its level as it stood (§13)
            f.marks.append(Mark(kind="exhaustion", level=got["exhaustion"]))
            if state.options["exhaustion"] == "5.1" and got["exhaustion"] >= 4:
                f.hp = min(f.hp, f.hp_max // 2)
        f.dead = bool(got.get("dead", 0))
        f.successes, f.failures = got.get("successes", 0), got.get("failures", 0)
        f.stable = bool(got.get("stable", 0))
        if f.hp == 0 and not f.dead:  # a character at 0 HP is Unconscious (§9); Prone comes as it stood
            f.marks.append(Mark(kind="unconscious", detail="at 0 HP"))
        if got.get("knocked-out", 0):  # wakes on healing or first aid (§9)
            f.marks.append(Mark(kind="unconscious", detail=KNOCKED_OUT))
        if "initiative" in got:  # a saved fight in progress: its place in the order, taken at the first round
            f.initiative = got["initiative"]

    def carried_figures(self, state: SrdState, who: str) -> dict[str, int]:
        """What outlasts a fight besides hit points, those not 0: temporary HP (§8), the Exhaustion
        level (§13), death saves, Stable, dead (§9), knocked out (§9); an initiative held from a
        saved fight no round has used yet."""
        f = state.fighters[who]
        figures = {"temp": f.temp, "exhaustion": f.exhaustion, "dead": int(f.dead), "successes": f.successes,
                   "failures": f.failures, "stable": int(f.stable),
                   "knocked-out": int(any(m.kind == "unconscious" and m.detail == KNOCKED_OUT for m in f.marks))}
        held = {"initiative": f.initiative} if f.initiative is not None and state.round == 0 else {}
        return {k: v for k, v in figures.items() if v} | held

    def _lasts(self, f: Fighter, m: Mark) -> bool:
        """A condition until ended by nobody's turn, Concentration or another creature: the GM's own,
        Prone, Poisoned...; Exhaustion and 0 HP's Unconscious come in the figures."""
        if m.left is not None or m.spell or m.by or m.kind == "exhaustion":
            return False
        return not (m.kind == "unconscious" and (m.detail == KNOCKED_OUT or (m.detail == "at 0 HP" and f.hp == 0)))

    def lasting(self, state: SrdState, who: str) -> list[CarriedEffect]:
        f = state.fighters[who]
        return [CarriedEffect(kind=m.kind, custom=m.custom) for m in f.marks if self._lasts(f, m)]

    def left_behind(self, state: SrdState, who: str) -> list[str]:
        """What ends with the fight, for `new --carry` to name: effects on a turn's clock or held by
        another creature or a Concentration, the Concentration itself, a Ready."""
        f = state.fighters[who]
        out = [f"{m.kind} ({m.left} rounds left)" if m.left is not None else
               f"{m.kind} (by {m.by})" if m.by else f"{m.kind} (held by {m.spell})"
               for m in f.marks if m.kind != "exhaustion" and not self._lasts(f, m)
               and not (m.kind == "unconscious" and m.detail in (KNOCKED_OUT, "at 0 HP"))]
        if f.concentration:
            out.append(f"concentration on {f.concentration}")
        if f.ready:
            out.append(f"ready ({f.ready})")
        return out

    # --- the clock: round and next ---------------------------------------------------------

    @decides(StartRound)
    def _round(self, state: SrdState, command: StartRound, dice: Dice) -> list[Event]:
        if state.in_round:
            raise RuleViolation(f"round {state.round} is under way (`skirmish next` passes the turn)", R(1))
        able = [f for f in state.fighters.values() if not f.left and not f.dead]
        if not able:
            raise RuleViolation("nobody can take a turn: every combatant is dead or has left", R(1))
        work = self.copy(state)
        surprised: tuple[str, ...] = ()
        raw = command.details.get("surprised")
        if raw is not None:
            if state.round:
                raise RuleViolation("surprise is for the first round, when combat starts", R(1))
            surprised = tuple(find_name(state.names(), n) for n in raw.split("+"))
        new = [f for f in able if f.initiative is None]
        rolled: list[Initiative] = []
        for f in able:  # an initiative held from a saved fight (combatant-carried): its place
            if f.initiative is not None and f.name not in state.order:
                rolled.append(_held(f.name, f.initiative))
        for who, score in self._initiative(state, new, surprised, command, dice):
            rolled.append(Initiative(who=who, score=score))
        scores = dict(state.scores) | {n: i.score.value for i in rolled for n in i.who}
        late = state.round > 0 and state.options.get("late") == "last"
        tie_rule, order = self._order(state, rolled, scores, late, command, dice)
        events: list[Event] = [RoundStarted(round=state.round + 1, order=tuple(order), rolled=tuple(rolled),
                                            surprised=surprised, tie_rule=tie_rule)]
        self.apply(work, events[0])
        events += self._advance(work, dice)
        return events

    @decides(Resume)
    def _resume(self, state: SrdState, command: Resume, dice: Dice) -> list[Event]:
        """A saved fight in progress taken up where its table stopped (module docstring, "A
        saved fight in progress"): its round started in the order held, and the acting
        combatant's turn under way, those before it done with theirs."""
        if state.round or state.in_round:
            raise RuleViolation(f"a saved fight is taken up before the first round, not at round {state.round}",
                                R(1))
        if command.round < 1:
            raise BadInput(f"a saved fight is taken up at round 1 or later, not {command.round}")
        names = state.names()
        order = [find_name(names, n) for n in command.order]
        here = [n for n, f in state.fighters.items() if not f.left]
        if len(set(order)) != len(order) or sorted(order) != sorted(here):
            raise BadInput(f"the order of a saved fight taken up names each combatant once ({', '.join(here)}), "
                           f"not {', '.join(order) or 'nobody'}")
        acting = state.fighters[find_name(names, command.acting)]
        if acting.dead or acting.left:
            why = "is dead" if acting.dead else "has left the fight"
            raise RuleViolation(f"{acting.name} {why}: its turn cannot be under way", R(9) if acting.dead else R(1))
        scores: dict[str, int] = {}
        for name in order:
            score = state.fighters[name].initiative
            if score is None:
                raise RuleViolation(f"{name} holds no initiative to keep its place in the order", R(2))
            scores[name] = score
        for first, then in zip(order, order[1:]):
            if scores[first] < scores[then]:  # the order never changes (§2): it must be one by initiative
                raise RuleViolation(f"the order puts {first} ({scores[first]}) before {then} ({scores[then]}): "
                                    "an initiative order runs from the highest", R(2))
        # The order as that table played it, its ties as it settled them: no `--with order`
        # to ask for, nor a roll-off, since those turns have been taken.
        order = self._with_lair(state, order, scores)
        started = RoundStarted(round=command.round, order=tuple(order),
                               rolled=tuple(_held(n, scores[n]) for n in order if n != LAIR),
                               resumed=command.source)
        taken = tuple(n for n in order[:order.index(acting.name)] if n != LAIR)
        return [started, TurnStarted(who=acting.name, resumed=True, taken=taken)]

    def _initiative(self, state: SrdState, new: list[Fighter], surprised: tuple[str, ...], command: StartRound,
                    dice: Dice) -> list[tuple[tuple[str, ...], Derivation]]:
        groups: dict[str, list[Fighter]] = {}
        for f in new:
            groups.setdefault(f.group or f.name, []).append(f)
        out = []
        for key, members in groups.items():
            f = members[0]
            adv: list[str] = []
            dis: list[str] = []
            if f.has("invisible"):
                adv.append("Invisible")
            if command.details.get("adv") == "yes":
                adv.append("--with adv")
            if any(m.name in surprised for m in members) and state.options["surprise"] == "5.2":
                dis.append("surprised")
            if f.incapacitated:
                dis.append("Incapacitated")
            if command.details.get("dis") == "yes":
                dis.append("--with dis")
            if state.options["exhaustion"] == "5.1" and f.exhaustion >= 1:
                dis.append("Exhaustion 1 (5.1)")
            mode = "advantage" if adv and not dis else "disadvantage" if dis and not adv else ""
            terms = [Term("init", f.init)]
            if state.options["exhaustion"] == "5.2" and f.exhaustion:
                terms.append(Term(f"Exhaustion {f.exhaustion}", -2 * f.exhaustion))
            if state.options["initiative"] == "score":
                terms.insert(0, Term("10", 10))
                if mode:
                    terms.append(Term(mode, 5 if mode == "advantage" else -5))
                value = sum(t.value for t in terms)
                formula = " + ".join(t.name for t in terms)
                out.append((tuple(m.name for m in members), Derivation(value, formula, tuple(terms), R(2))))
                continue
            roll = dice.roll(key, 2 if mode else 1, 20, _two_d20_why(adv, dis))
            kept = max(roll.faces) if mode == "advantage" else min(roll.faces) if mode else roll.faces[0]
            kept_which = "higher" if mode == "advantage" else "lower"
            d20 = f"d20 ({mode}: {kept_which} of {roll.faces[0]}, {roll.faces[1]})" if mode else "d20"
            terms.insert(0, Term(d20, kept))
            value = sum(t.value for t in terms)
            formula = " + ".join(t.name for t in terms)
            out.append((tuple(m.name for m in members), Derivation(value, formula, tuple(terms), R(2), roll)))
        return out

    def _order(self, state: SrdState, rolled: list[Initiative], scores: dict[str, int], late: bool,
               command: StartRound, dice: Dice) -> tuple[str, list[str]]:
        """The whole fight's order: the order so far, the newly rolled placed by their scores."""
        units = [i.who for i in rolled]
        placed = [n for n in state.order if n != LAIR]
        if late:
            order = placed + [n for u in units for n in u]
            return "late arrivals act last (option late=last)", self._with_lair(state, order, scores)
        by_score: dict[int, list[tuple[str, ...]]] = {}
        for unit in units:
            by_score.setdefault(scores[unit[0]], []).append(unit)
        rule = state.options["ties"]
        tie_words = ""
        ranked: dict[tuple[str, ...], tuple[int, ...]] = {}
        for score, tied in by_score.items():
            # Only the newly rolled need settling: one tying with a creature already in the
            # order takes its place after it (the order never changes, §2).
            if len(tied) < 2:
                ranked[tied[0]] = (0,)
                continue
            if rule == "ask":
                wanted = [n.strip().lower() for n in command.details.get("order", "").split("+") if n.strip()]
                keys = {}
                for unit in tied:
                    group = state.fighters[unit[0]].group.lower()
                    at = [i for i, w in enumerate(wanted) if w in {n.lower() for n in unit} or (group and w == group)]
                    if not at:
                        names = ", ".join(" ".join(u) if len(u) == 1 else f"{state.fighters[u[0]].group} ({len(u)})"
                                          for u in tied)
                        raise RuleViolation(f"a tie at {score}: {names}; give the order with --with order=A+B "
                                            "(option ties=ask: the GM and the players settle it)", R(2))
                    keys[unit] = (min(at),)
                ranked.update(keys)
                tie_words = "tied ones in the order given (option ties=ask)"
            elif rule == "dex":
                for unit in tied:
                    f = state.fighters[unit[0]]
                    ranked[unit] = (-f.dex, 0 if f.pc else 1)
                tie_words = "ties: higher Dex, then characters (option ties=dex)"
            else:
                for unit in tied:
                    key = state.fighters[unit[0]].group or unit[0]
                    ranked[unit] = (-dice.roll(f"tie:{key}", 1, 20).faces[0],)
                tie_words = "ties: d20 roll-off, higher first (option ties=rolloff)"
        # Newly placed after those already in the order at the same score (late arrivals).
        everyone: list[tuple[int, int, tuple[int, ...], int, tuple[str, ...]]] = []
        for i, name in enumerate(placed):
            everyone.append((-scores[name], 0, (), i, (name,)))
        for i, unit in enumerate(units):
            everyone.append((-scores[unit[0]], 1, ranked.get(unit, (0,)), i, unit))
        everyone.sort(key=lambda e: (e[0], e[1], e[2], e[3]))
        order = [n for e in everyone for n in e[4]]
        return tie_words, self._with_lair(state, order, scores)

    def _with_lair(self, state: SrdState, order: list[str], scores: dict[str, int]) -> list[str]:
        if state.options["lair"] != "count-20" or not any(f.lair for f in state.fighters.values()):
            return order
        at = next((i for i, n in enumerate(order) if scores[n] < 20), len(order))  # losing ties (§14)
        return [*order[:at], LAIR, *order[at:]]

    @decides(Next)
    def _next(self, state: SrdState, command: Next, dice: Dice) -> list[Event]:
        if not state.in_round:
            if state.round and state.options["rounds"] == "roll-on":  # paused for a legendary use (below)
                return self._round(state, StartRound(rolls=command.rolls), dice)
            raise RuleViolation("no round is under way (`skirmish round` starts one)", R(1))
        work = self.copy(state)
        events: list[Event] = []
        now = state.current
        if now is not None:
            events += self._emit(work, [TurnEnded(who=now)])
            if now != LAIR:
                events += self._expire(work, now, "end")
        events += self._advance(work, dice)
        if work.in_round or state.options["rounds"] != "roll-on":
            return events
        first = next((n for n in work.order if n != LAIR and self._can_take_turn(work, n)), None)
        if first is not None and work.fighters[first].legendary and not work.fighters[first].incapacitated:
            # §14: a legendary use comes after another creature's turn, never its own: the one who
            # acts first next round has its moment after the last turn; the next `next` rolls on.
            return events
        # §1: the next round starts in the same order; a late arrival rolls as `round` has it roll.
        try:
            return events + self._round(work, StartRound(rolls=command.rolls), dice)
        except (BadInput, RuleViolation):
            return events  # nobody able, or a tie to order (ties=ask): the GM's `round` starts it

    def _emit(self, work: SrdState, events: list[Event]) -> list[Event]:
        for event in events:
            self.apply(work, event)
        return events

    def _can_take_turn(self, state: SrdState, name: str) -> bool:
        if name == LAIR:
            return any(self._lair_able(state, f) for f in state.fighters.values())
        f = state.fighters[name]
        return not f.left and not f.dead and name in state.scores

    def _lair_able(self, state: SrdState, f: Fighter) -> bool:
        return (f.lair and not f.left and not f.dead and not f.incapacitated
                and not (state.options["surprise"] == "5.1" and f.surprised and f.turns == 0))

    def _advance(self, work: SrdState, dice: Dice) -> list[Event]:
        """Start the next turn that can be taken, or end the round."""
        start = -1 if work.turn is None else work.turn
        skipped: list[str] = []
        for index in range(start + 1, len(work.order)):
            name = work.order[index]
            if self._can_take_turn(work, name):
                return self._start_turn(work, name, dice, tuple(skipped))
            if name != LAIR:
                skipped.append(name)
        events: list[Event] = []
        if work.options["missed-turn"] == "round-end":
            for f in work.fighters.values():
                for m in list(f.marks):
                    a = work.fighters.get(m.anchor)
                    if m.left is not None and a is not None and a.turned_round < work.round:
                        events += self._emit(work, [MarkEnded(
                            who=f.name, kind=m.kind, by=m.by,
                            why=f"{m.anchor}'s turn never came this round (option missed-turn=round-end)")])
        events += self._emit(work, [RoundEnded(round=work.round)])
        return events

    def _start_turn(self, work: SrdState, name: str, dice: Dice, skipped: tuple[str, ...] = ()) -> list[Event]:
        events = self._emit(work, [TurnStarted(who=name, skipped=skipped)])
        if name == LAIR:
            return events
        f = work.fighters[name]
        if f.ready:
            events += self._emit(work, [ReadyLapsed(who=name, why="its next turn started (§4)")])
        if f.recharge and not f.recharge_ready and not (
                f.incapacitated and work.options["recharge-incapacitated"] == "skip"):
            roll = dice.roll(f"recharge:{name}", 1, 6)
            events += self._emit(work, [Recharged(who=name, roll=roll, ready=roll.faces[0] >= f.recharge)])
        if f.dying and (f.pc or work.options["monster-death"] == "as-character") and not f.stable:
            events += self._death_save(work, f, dice)
        events += self._expire(work, name, "start")
        return events

    def _expire(self, work: SrdState, name: str, at: str) -> list[Event]:
        """The marks whose anchored turns have all passed, ended as events (§12)."""
        events: list[Event] = []
        for f in work.fighters.values():
            for m in list(f.marks):
                if m.anchor == name and m.at == at and m.left == 0:
                    events += self._emit(work, [MarkEnded(who=f.name, kind=m.kind, by=m.by,
                                                          why=f"the {at} of {name}'s turn, §12")])
        return events

    def _death_save(self, work: SrdState, f: Fighter, dice: Dice) -> list[Event]:
        roll = dice.roll(f"death:{f.name}", 1, 20)
        face = roll.faces[0]
        terms = [Term("d20", face)]
        if f.exhaustion and work.options["exhaustion-saves"] == "yes" and work.options["exhaustion"] == "5.2":
            terms.append(Term(f"Exhaustion {f.exhaustion}", -2 * f.exhaustion))
        total = sum(t.value for t in terms)
        save = Derivation(total, " + ".join(t.name for t in terms), tuple(terms), R(9), roll)
        s, fails = f.successes, f.failures
        if face == 20:
            return self._emit(work, [DeathSave(who=f.name, save=save, successes=0, failures=0, outcome="revived"),
                                     Healed(who=f.name, amount=1, hp_left=1, woke=True)])
        if face == 1:
            fails += 2
        elif total >= 10:
            s += 1
        else:
            fails += 1
        outcome = "dead" if fails >= 3 else "stable" if s >= 3 else "success" if s > f.successes else "failure"
        events: list[Event] = [DeathSave(who=f.name, save=save, successes=min(s, 3), failures=min(fails, 3),
                                         outcome=outcome)]
        if outcome == "dead":
            events.append(Fell(who=f.name, dead=True, why="three failed death saves", rule=R(9)))
        elif outcome == "stable":
            events.append(Stabilised(who=f.name, by="three successes"))
        return self._emit(work, events)

    # --- declare --------------------------------------------------------------------------

    @decides(Declare)
    def _declare(self, state: SrdState, cmd: Declare, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        action = cmd.action.strip().lower()
        block: BlockAction | None = None
        if action not in ACTIONS:
            own = parse_actions(f.actions)
            block = find_action(own, cmd.action)
            if block is None:
                listed = f"; {f.name}'s stat block: {', '.join(a.name for a in own)}" if own else ""
                raise BadInput(f"srd-5.2 has no action {cmd.action!r} (actions: {', '.join(ACTIONS)}{listed})")
            if block.attacks and not block.attack:
                attacks = ", ".join(a.name for a in own if a.attack) or "its attacks"
                raise BadInput(f"{block.name} is {block.attacks} attack rolls in one Attack action: declare each "
                               f"by name ({attacks}) (§4, §14)")
            action = "attack" if block.attack else "lair" if block.use == "lair" else block.name
        if f.left:
            raise RuleViolation(f"{f.name} has left the fight: it cannot act until `skirmish return {f.name}`", R(1))
        if f.dead:
            raise RuleViolation(f"{f.name} is dead", R(9))
        use = cmd.details.get("as", "action")
        if block is not None and block.use in ("bonus", "reaction", "legendary"):
            use = block.use
        if action == "legendary":
            use = "legendary"
        if action == "lair":
            return self._lair(state, f)
        spent = block.cost if block is not None and use == "legendary" and "cost" not in cmd.details else (
            _spent(cmd, use))
        if use == "legendary":
            self._check_legendary(state, f, spent)
        elif use == "reaction":
            self._check_reaction(state, f)
        elif use == "ready":
            if not f.fired:
                raise RuleViolation(f"{f.name} has no fired Ready to take (`resolve {f.name}` fires it)", R(4))
        elif action != "legendary":
            self._check_turn(state, f)
        if f.dying:
            raise RuleViolation(f"{f.name} is at 0 HP and Unconscious", R(9))
        if f.incapacitated and action not in ("move", "stand", "prone", "interact"):
            raise RuleViolation(f"{f.name} is Incapacitated: no action, Bonus Action or Reaction", R(13))
        if action == "legendary":
            return [Acted(who=f.name, action="legendary", use="legendary", cost=detail_int(cmd, "cost", 1),
                          detail=cmd.details.get("spell", ""), target=self._target(state, cmd))]
        if action in ("move", "stand"):
            return [self._move(state, f, cmd, action)]
        if action == "prone":
            if self._speed(state, f) == 0:
                raise RuleViolation(f"{f.name} has Speed 0: it cannot drop Prone", R(3))
            if f.has("prone"):
                raise RuleViolation(f"{f.name} is Prone already", R(3))
            return [MarkAdded(who=f.name, kind="prone", detail="dropped")]
        if action == "interact":
            if f.interaction:
                raise RuleViolation(f"{f.name} has had its free object interaction: a second is the Utilize action",
                                    R(3))
            return [Acted(who=f.name, action="interact", use="free")]
        if action == "bonus":
            grant = cmd.details.get("by", "").strip()
            if not grant:
                raise RuleViolation("a Bonus Action needs a feature, spell or stat block granting it: --with by=WHAT",
                                    R(3))
            if f.bonus:
                raise RuleViolation(f"{f.name} has taken its Bonus Action this turn", R(3))
            return [Acted(who=f.name, action="bonus", use="bonus", detail=grant)]
        if use in ("action",):
            self._check_action(state, f, action)
        if use == "bonus":
            if not cmd.details.get("by") and block is None:
                raise RuleViolation("a Bonus Action needs a feature, spell or stat block granting it: --with by=WHAT",
                                    R(3))
            if f.bonus:
                raise RuleViolation(f"{f.name} has taken its Bonus Action this turn", R(3))
        recharge = cmd.details.get("recharge") == "yes" or (block is not None and block.recharge > 0)
        if recharge and not f.recharge:
            raise BadInput(f"{f.name} has no Recharge ability (--stat recharge=X)")
        if recharge and not f.recharge_ready:
            raise RuleViolation(f"{f.name}'s Recharge ability is spent until a recharge roll of {f.recharge}-6", R(14))
        if block is not None and block.per_day and f.used.get(block.name, 0) >= block.per_day:
            raise RuleViolation(f"{f.name} has used {block.name} {block.per_day} time(s): its {block.per_day}/Day "
                                f"are spent", R(14))
        slot = self._slot(f, cmd, action, block)
        if action == "attack":
            return self._attack(state, f, cmd, use, dice, recharge, block)
        if block is not None and block.save:
            return self._save_action(state, f, cmd, block, use, spent, recharge, slot, dice)
        if action == "ready":
            then = cmd.details.get("then", "").strip().lower()
            if not cmd.trigger or not then:
                raise BadInput("ready needs --trigger TEXT and --with then=ACTION (the held action or move)")
            if then not in ACTION_NAMES | {"move"} or then == "ready":
                raise BadInput(f"ready holds an action or a move, not {then!r}")
            events: list[Event] = [Acted(who=f.name, action="ready", use=use, detail=f"{then}: {cmd.trigger}",
                                         cost=spent)]
            spell = cmd.details.get("spell")
            if spell:
                events += self._concentrate(f, spell)
            return events
        if action == "dodge":
            return [Acted(who=f.name, action="dodge", use=use, cost=spent),
                    MarkAdded(who=f.name, kind="dodging", by=f.name, anchor=f.name, at="start", left=1)]
        if action == "help":
            return self._help(state, f, cmd, use, dice)
        if action == "hide":
            roll = dice.roll(f.name, 1, 20)
            terms = [Term("d20", roll.faces[0]), Term("Stealth", detail_int(cmd, "bonus"))]
            terms += self._exhaustion_terms(state, f)
            total = sum(t.value for t in terms)
            check = Derivation(total, " + ".join(t.name for t in terms) + " vs DC 15", tuple(terms), R(4), roll)
            events = [Acted(who=f.name, action="hide", use=use, check=check, cost=spent,
                            detail="hidden" if total >= 15 else "not hidden")]
            if total >= 15:
                events.append(MarkAdded(who=f.name, kind="invisible", by="hide",
                                        detail=f"hidden: Wis (Perception) DC {total} finds it"))
            return events
        events = [Acted(who=f.name, action=action, use=use, detail=cmd.details.get("spell", ""), cost=spent,
                        recharge=recharge, target=self._target(state, cmd), block=block.name if block else "",
                        slot=slot)]
        if action == "magic" and cmd.details.get("concentration") == "yes":
            if not cmd.details.get("spell"):
                raise BadInput("a spell with Concentration needs --with spell=NAME")
            events += self._concentrate(f, cmd.details["spell"])
        return events

    def _slot(self, f: Fighter, cmd: Declare, action: str, block: BlockAction | None) -> int:
        """The level of the spell slot ``--with slot=N`` spends, checked against what is left (§4)."""
        level = detail_int(cmd, "slot", 0)
        if not level:
            return 0
        if action != "magic" and block is None:
            raise BadInput("--with slot=N is for the Magic action or a stat block's action")
        slots = parse_slots(f.slots)
        if level not in slots:
            has = f" (its slots: {f.slots})" if slots else " (--stat slots=1:4,2:3)"
            raise BadInput(f"{f.name} has no level {level} spell slots{has}")
        if f.used.get(f"slot:{level}", 0) >= slots[level]:
            raise RuleViolation(f"{f.name} has spent its {slots[level]} level {level} spell slot(s)", R(4))
        return level

    def _save_action(self, state: SrdState, f: Fighter, cmd: Declare, block: BlockAction, use: str, spent: int,
                     recharge: bool, slot: int, dice: Dice) -> list[Event]:
        """A stat block's action the targets save against: each rolls (or fails outright, §13),
        the damage is rolled once for all, a failure takes it whole and a success half where
        the block says so (``--with half=`` overrides), or none (§7)."""
        if not cmd.target:
            raise BadInput(f"{block.name} needs --target WHO (several joined by +): DC {block.dc} "
                           f"{block.save.upper()} saves")
        targets: list[Fighter] = []
        for typed in cmd.target.split("+"):
            t = state.fighters[find_name(state.names(), typed.strip())]
            if t.dead or t.left:
                raise RuleViolation(f"{t.name} is {'dead' if t.dead else 'out of the fight'}", R(6))
            if t not in targets:
                targets.append(t)
        half = cmd.details.get("half", "yes" if block.half else "no") == "yes"
        work = self.copy(state)
        events = self._emit(work, [Acted(who=f.name, action=block.name, use=use, cost=spent, recharge=recharge,
                                         block=block.name, slot=slot, detail=f"DC {block.dc} {block.save.upper()}",
                                         target=targets[0].name if len(targets) == 1 else None)])
        parts = [(self._damage_roll(p.dice, False, _part_key(i, f.name), dice, detail_int(cmd, "adjust") if i == 0
                                    else 0), p.type) for i, p in enumerate(block.damage) if not p.advantage]
        for t in targets:
            events += self._emit(work, [self._saving_throw(work, work.fighters[t.name], f, block, cmd, dice)])
            saved = events[-1]
            assert isinstance(saved, Saved)
            if not parts or (saved.success and not half):
                continue
            taken = parts if not saved.success else [
                (Derivation(d.value // 2, f"({d.formula}) / 2 (saved: half, rounded down)", d.terms, R(7), d.roll), k)
                for d, k in parts]
            events += self._hurt(work, work.fighters[t.name], taken, False, f.name, dice)
        return events

    def _saving_throw(self, state: SrdState, t: Fighter, by: Fighter, block: BlockAction, cmd: Declare,
                      dice: Dice) -> Saved:
        """``t``'s save against ``block``: d20 + its modifier (its block's, else Dex or Con, else 0)
        and Exhaustion, Advantage from Dodge on Dex, Disadvantage from Restrained on Dex;
        Paralyzed, Petrified, Stunned and Unconscious fail Str and Dex saves (§4, §13)."""
        ability = block.save
        fails = [k for k in ("paralyzed", "petrified", "stunned", "unconscious") if t.has(k)]
        if ability in ("str", "dex") and fails:
            return Saved(who=t.name, by=by.name, action=block.name, ability=ability, dc=block.dc, save=None,
                         success=False, why=f"{fails[0].capitalize()}: fails Str and Dex saves ({R(13)})")
        saves = parse_saves(t.saves)
        bonus = saves.get(ability, t.dex if ability == "dex" else t.con if ability == "con" else 0)
        adv = ["Dodge"] if ability == "dex" and t.has("dodging") else []
        dis = ["Restrained"] if ability == "dex" and t.has("restrained") else []
        mode = "advantage" if adv and not dis else "disadvantage" if dis and not adv else ""
        roll = dice.roll(f"save:{t.name}", 2 if mode else 1, 20, _two_d20_why(adv, dis))
        kept = max(roll.faces) if mode == "advantage" else min(roll.faces) if mode else roll.faces[0]
        terms = [Term("d20", kept), Term(f"{ability.capitalize()} save", bonus), *self._exhaustion_terms(state, t)]
        total = sum(x.value for x in terms)
        formula = " + ".join(x.name for x in terms) + f" vs DC {block.dc}" + (f" ({mode})" if mode else "")
        return Saved(who=t.name, by=by.name, action=block.name, ability=ability, dc=block.dc,
                     save=Derivation(total, formula, tuple(terms), R(4), roll), success=total >= block.dc)

    def _target(self, state: SrdState, cmd: Declare) -> str | None:
        return find_name(state.names(), cmd.target) if cmd.target else None

    def _check_turn(self, state: SrdState, f: Fighter) -> None:
        if state.current != f.name:
            now = f"it is {state.current}'s turn" if state.current else "no turn is under way"
            if state.current == LAIR:
                now = "it is count 20, the lair's"
            raise RuleViolation(f"it is not {f.name}'s turn: {now}", R(3))

    def _check_action(self, state: SrdState, f: Fighter, action: str) -> None:
        if state.options["surprise"] == "5.1" and f.surprised:
            raise RuleViolation(f"{f.name} is surprised: no move or action on its first turn (option surprise=5.1)",
                                R(1))
        if action == "attack" and f.attacks_left > 0:
            return  # the Attack action's further attacks (Extra Attack, Multiattack)
        if f.action:
            raise RuleViolation(f"{f.name} has taken its action this turn", R(3))

    def _check_reaction(self, state: SrdState, f: Fighter) -> None:
        if f.reaction:
            raise RuleViolation(f"{f.name} has used its Reaction: none until its next turn starts", R(3))
        if state.options["surprise"] == "5.1" and f.surprised:
            raise RuleViolation(f"{f.name} is surprised: no Reaction until its first turn ends (option surprise=5.1)",
                                R(1))

    def _check_legendary(self, state: SrdState, f: Fighter, cost: int) -> None:
        if not f.legendary:
            raise RuleViolation(f"{f.name} has no Legendary Action uses (--stat legendary=N)", R(14))
        if state.current == f.name:
            raise RuleViolation("a legendary use comes after another creature's turn, never its own", R(14))
        others = [k for k in state.gap if k.split(":", 1)[1] not in (f.name, LAIR)]
        if not others:
            raise RuleViolation(f"no other creature's turn has ended for {f.name} to follow", R(14))
        if f.incapacitated:
            raise RuleViolation(f"{f.name} is Incapacitated: no legendary use", R(14))
        if state.options["surprise"] == "5.1" and f.surprised and f.turns == 0:
            raise RuleViolation(f"{f.name} is surprised: no legendary use before its first turn (5.1)", R(14))
        if state.options["legendary-repeat"] == "1" and all(k in f.legendary_after for k in others):
            raise RuleViolation(f"{f.name} has used a legendary use after this turn (option legendary-repeat=1)",
                                R(14))
        if f.legendary_left < cost:
            raise RuleViolation(f"{f.name} has {f.legendary_left} legendary use(s) left of {f.legendary}, not {cost}",
                                R(14))

    def _lair(self, state: SrdState, f: Fighter) -> list[Event]:
        if state.options["lair"] != "count-20":
            raise RuleViolation("5.2 has no lair action (option lair=count-20 gives one at count 20)", R(14))
        if state.current != LAIR:
            raise RuleViolation("a lair action is taken at count 20, the lair's moment", R(14))
        if not self._lair_able(state, f):
            raise RuleViolation(f"{f.name} cannot take a lair action now (not in its lair, Incapacitated, or "
                                "surprised before its first turn)", R(14))
        if f.name in state.lair_used:
            raise RuleViolation(f"{f.name} has taken its lair action this round", R(14))
        return [Acted(who=f.name, action="lair", use="lair")]

    def _speed(self, state: SrdState, f: Fighter) -> int:
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

    def _move(self, state: SrdState, f: Fighter, cmd: Declare, action: str) -> Moved:
        if state.options["surprise"] == "5.1" and f.surprised:
            raise RuleViolation(f"{f.name} is surprised: it cannot move on its first turn (option surprise=5.1)", R(1))
        speed = self._speed(state, f)
        if speed == 0:
            raise RuleViolation(f"{f.name} has Speed 0", R(13))
        budget = speed * (1 + f.dashes)
        left = budget - f.moved
        if action == "stand":
            if not f.has("prone"):
                raise RuleViolation(f"{f.name} is not Prone", R(3))
            cost = Derivation(speed // 2, "floor(Speed / 2)", (Term("Speed", speed),), R(3))
        else:
            if cmd.amount is None or cmd.amount < 1:
                raise BadInput("move needs --amount FEET (at least 1)")
            terrain = cmd.details.get("terrain")
            crawl = f.has("prone") or terrain == "crawl"
            if crawl or terrain == "difficult":
                why = "crawling" if crawl else "difficult terrain"
                cost = Derivation(2 * cmd.amount, f"feet x 2 ({why})", (Term("feet", cmd.amount),), R(3))
            else:
                cost = Derivation(cmd.amount, "feet", (Term("feet", cmd.amount),), R(3))
        if cost.value > left:
            raise RuleViolation(f"{f.name} has {left} ft of movement left, not {cost.value}", R(3))
        return Moved(who=f.name, cost=cost, stood=action == "stand")

    def _concentrate(self, f: Fighter, spell: str) -> list[Event]:
        events: list[Event] = []
        if f.concentration:
            events.append(ConcentrationEnded(who=f.name, spell=f.concentration, why=f"{spell} begun"))
        return [*events, ConcentrationStarted(who=f.name, spell=" ".join(spell.split()))]

    def _help(self, state: SrdState, f: Fighter, cmd: Declare, use: str, dice: Dice) -> list[Event]:
        if not cmd.target:
            raise BadInput("help needs --target WHO (an enemy to attack, or an ally)")
        t = state.fighters[find_name(state.names(), cmd.target)]
        if t.name == f.name:
            raise RuleViolation(f"{f.name} cannot help itself", R(4))
        knocked = next((m for m in t.marks if m.kind == "unconscious" and m.detail == KNOCKED_OUT), None)
        if knocked is not None:
            # First aid wakes a creature knocked out: an action, DC 10 Wis (Medicine) (§9).
            roll = dice.roll(f.name, 1, 20)
            terms = [Term("d20", roll.faces[0]), Term("Medicine", detail_int(cmd, "bonus")),
                     *self._exhaustion_terms(state, f)]
            total = sum(x.value for x in terms)
            check = Derivation(total, " + ".join(x.name for x in terms) + " vs DC 10", tuple(terms), R(9), roll)
            events_: list[Event] = [Acted(who=f.name, action="help", use=use, target=t.name, check=check,
                                          cost=_spent(cmd, use),
                                          detail="first aid wakes it" if total >= 10 else "first aid fails")]
            if total >= 10:
                events_.append(MarkEnded(who=t.name, kind="unconscious", why="first aid (§9)"))
            return events_
        if t.dying and not t.stable:
            roll = dice.roll(f.name, 1, 20)
            terms = [Term("d20", roll.faces[0]), Term("Medicine", detail_int(cmd, "bonus"))]
            terms += self._exhaustion_terms(state, f)
            total = sum(t_.value for t_ in terms)
            check = Derivation(total, " + ".join(x.name for x in terms) + " vs DC 10", tuple(terms), R(9), roll)
            events: list[Event] = [Acted(who=f.name, action="help", use=use, target=t.name, check=check,
                                         cost=_spent(cmd, use),
                                         detail="stabilises" if total >= 10 else "fails to stabilise")]
            if total >= 10:
                events.append(Stabilised(who=t.name, by=f.name, check=check))
            return events
        kind = "helped" if t.side == f.side else "help-against"
        detail = "Advantage on its next check" if kind == "helped" else f"{f.name}'s allies' next attack: Advantage"
        return [Acted(who=f.name, action="help", use=use, target=t.name, cost=_spent(cmd, use)),
                MarkAdded(who=t.name, kind=kind, by=f.name, anchor=f.name, at="start", left=1, detail=detail)]

    def _exhaustion_terms(self, state: SrdState, f: Fighter) -> list[Term]:
        if state.options["exhaustion"] == "5.2" and f.exhaustion:
            return [Term(f"Exhaustion {f.exhaustion}", -2 * f.exhaustion)]
        return []

    # --- attacks and damage -------------------------------------------------------------------

    def _attack(self, state: SrdState, f: Fighter, cmd: Declare, use: str, dice: Dice,
                recharge: bool, block: BlockAction | None = None) -> list[Event]:
        if not cmd.target:
            raise BadInput("attack needs --target WHO")
        t = state.fighters[find_name(state.names(), cmd.target)]
        if t.name == f.name:
            raise RuleViolation(f"{f.name} cannot attack itself", R(6))
        if t.left or t.dead:
            raise RuleViolation(f"{t.name} is {'dead' if t.dead else 'out of the fight'}", R(6))
        charm = f.mark("charmed")
        if charm and charm.by == t.name:
            raise RuleViolation(f"{f.name} is Charmed by {t.name}: it can't attack it", R(13))
        reach = "ranged" if block is not None and block.attack == "ranged" else "melee"
        melee = cmd.details.get("range", reach) == "melee"
        if block is not None and block.attack == "melee" and not melee:
            raise BadInput(f"{block.name} is a melee attack (its stat block)")
        if cmd.details.get("opportunity") == "yes":
            if use != "reaction" or not melee:
                raise BadInput("an opportunity attack is a melee attack --with as=reaction")
            if t.disengaged:
                raise RuleViolation(f"{t.name} took Disengage: its movement provokes no opportunity attacks", R(5))
        if cmd.details.get("knockout") == "yes" and not melee:
            raise BadInput("--with knockout=yes is for a melee attack")
        cover = cmd.details.get("cover")
        if cover == "total":
            raise RuleViolation(f"{t.name} has Total Cover: it can't be targeted", R(6))
        ac = t.ac + {"half": 2, "three-quarters": 5}.get(cover or "", 0)
        adv, dis = self._sources(state, f, t, melee)
        if cmd.details.get("adv") == "yes":
            adv.append("--with adv")
        if cmd.details.get("dis") == "yes":
            dis.append("--with dis")
        mode = "advantage" if adv and not dis else "disadvantage" if dis and not adv else ""
        if cmd.details.get("damage") is not None:
            self._check_damage(cmd.details["damage"])
        extra = cmd.details.get("extra")
        if extra is not None:
            spec2, _, dtype2 = extra.partition(":")
            if dtype2 not in DAMAGE_TYPES or cmd.details.get("damage") is None:
                raise BadInput(f"--with extra= takes dice and a damage type (2d6:fire) beside --with damage=, "
                               f"not {extra!r}")
            self._check_damage(spec2, "extra")
        bonus = detail_int(cmd, "hit", block.hit if block is not None else 0)
        roll = dice.roll(f.name, 2 if mode else 1, 20, _two_d20_why(adv, dis))
        kept = max(roll.faces) if mode == "advantage" else min(roll.faces) if mode else roll.faces[0]
        terms = [Term("d20", kept), Term("attack bonus", bonus)]
        terms += self._exhaustion_terms(state, f)
        total = sum(x.value for x in terms)
        d20 = kept  # the die kept is the natural one (§6)
        hit = d20 == 20 or (d20 != 1 and total >= ac)
        crit = d20 == 20 or (hit and melee and (t.has("paralyzed") or t.has("unconscious")))
        why = "; ".join([*(f"+{a}" for a in adv), *(f"-{d}" for d in dis)])
        formula = " + ".join(x.name for x in terms) + f" vs AC {t.ac}" + (
            f" + {ac - t.ac} ({cover} cover)" if ac != t.ac else "")
        if d20 in (1, 20):
            formula += f" (natural {d20})"
        events: list[Event] = [Attacked(
            who=f.name, target=t.name, use=use, roll=Derivation(total, formula, tuple(terms), R(6), roll), ac=ac,
            hit=hit, crit=crit, advantage=mode, why=why, recharge=recharge,
            cost=block.cost if block is not None and use == "legendary" and "cost" not in cmd.details else (
                _spent(cmd, use)), block=block.name if block is not None else "")]
        work = self.copy(state)
        self._emit(work, events)
        for m in t.marks:
            if m.kind == "help-against" and state.fighters[m.by].side == f.side:
                events += self._emit(work, [MarkEnded(who=t.name, kind=m.kind, by=m.by, why=f"{f.name}'s attack")])
                break
        hidden = f.mark("invisible")
        if hidden and hidden.by == "hide":
            events += self._emit(work, [MarkEnded(who=f.name, kind="invisible", by="hide",
                                                  why="an attack roll reveals it (§4, §6)")])
        if not hit:
            return events
        spec = cmd.details.get("damage")
        if spec is None and block is not None and block.damage:  # the stat block's damage (§7)
            adjust = detail_int(cmd, "adjust")
            parts = [(self._damage_roll(p.dice, crit, _part_key(i, f.name), dice, adjust if i == 0 else 0), p.type)
                     for i, p in enumerate(x for x in block.damage if not x.advantage or mode == "advantage")]
        elif spec is None:
            return events  # the GM types the damage with `damage` (a hit's effect, not its dice)
        else:
            parts = [(self._damage_roll(spec, crit, f"dmg:{f.name}", dice, detail_int(cmd, "adjust")),
                      cmd.details.get("type", ""))]
            if extra is not None:
                spec2, _, dtype2 = extra.partition(":")
                parts.append((self._damage_roll(spec2, crit, f"extra:{f.name}", dice, 0), dtype2))
        events += self._hurt(work, work.fighters[t.name], parts, crit, f.name, dice,
                             knockout=cmd.details.get("knockout") == "yes")
        return events

    def _sources(self, state: SrdState, f: Fighter, t: Fighter, melee: bool) -> tuple[list[str], list[str]]:
        """Advantage and Disadvantage the tracked conditions give an attack (§6, §13)."""
        adv: list[str] = []
        dis: list[str] = []
        for kind in ("blinded", "paralyzed", "petrified", "restrained", "stunned", "unconscious"):
            if t.has(kind):
                adv.append(f"{t.name} {kind.capitalize()}")
        if t.has("prone"):
            (adv if melee else dis).append(f"{t.name} Prone, {'within 5 ft' if melee else 'ranged'}")
        if t.has("invisible"):
            dis.append(f"{t.name} Invisible")
        if t.has("dodging") and not t.incapacitated and self._speed(state, t) > 0:
            dis.append(f"{t.name} Dodging")
        helped = [m for m in t.marks if m.kind == "help-against" and state.fighters[m.by].side == f.side]
        if helped:
            adv.append(f"Help by {helped[0].by}")
        if f.has("invisible"):
            adv.append(f"{f.name} Invisible")
        for kind in ("blinded", "frightened", "poisoned", "prone", "restrained"):
            if f.has(kind):
                dis.append(f"{f.name} {kind.capitalize()}")
        grab = f.mark("grappled")
        if grab and grab.by != t.name:
            dis.append(f"{f.name} Grappled")
        if state.options["exhaustion"] == "5.1" and f.exhaustion >= 3:
            dis.append(f"{f.name} Exhaustion {f.exhaustion} (5.1)")
        return adv, dis

    def _check_damage(self, spec: str, flag: str = "damage") -> tuple[str | None, str | None, str | None, str | None]:
        """A damage spec's parts, or a refusal naming it: checked before any die is rolled."""
        m = _DICE.match(spec.strip().replace(" ", ""))
        if not m or not spec.strip() or (m.group(1) is None and m.group(3) == "-"):
            raise BadInput(f"--with {flag}= takes dice and a modifier (1d6+2) or a number, not {spec!r}")
        count, sides, sign, flat = m.groups()
        if count is not None and not (1 <= int(count) <= 40 and 2 <= int(sides) <= 100):
            raise BadInput(f"--with {flag}={spec}: 1 to 40 dice of 2 to 100 sides")
        return count, sides, sign, flat

    def _damage_roll(self, spec: str, crit: bool, key: str, dice: Dice, adjust: int) -> Derivation:
        count, sides, sign, flat = self._check_damage(spec)
        terms: list[Term] = []
        roll: Roll | None = None
        if count is not None and sides is not None:
            n, s = int(count), int(sides)
            roll = dice.roll(key, 2 * n if crit else n, s)
            label = f"{2 * n}d{s} (Critical Hit: the dice twice)" if crit else f"{n}d{s}"
            terms.append(Term(label, roll.total))
        if flat is not None:
            terms.append(Term("modifier", int(flat) if sign == "+" else -int(flat)))
        if adjust:
            terms.append(Term("adjustment", adjust))
        total = max(0, sum(t.value for t in terms))
        return Derivation(total, " + ".join(t.name for t in terms) or "0", tuple(terms), R(7), roll)

    def _typed(self, t: Fighter, base: Derivation, dtype: str) -> Derivation:
        """One damage type's part after Resistance, then Vulnerability, or Immunity (§7)."""
        amount, formula = base.value, base.formula
        steps: list[str] = []
        if dtype and dtype in t.immune:
            amount, steps = 0, [f"Immunity to {dtype}"]
        else:
            if (dtype and dtype in t.resist) or t.has("petrified"):
                amount //= 2
                steps.append("Resistance: halved, rounded down")
            if dtype and dtype in t.vulnerable:
                amount *= 2
                steps.append("Vulnerability: doubled")
        if steps:
            formula = f"({formula}) -> " + " -> ".join(steps)
        return Derivation(amount, formula, base.terms, R(7), base.roll)

    def _hurt(self, work: SrdState, t: Fighter, parts: list[tuple[Derivation, str]], crit: bool, by: str | None,
              dice: Dice, knockout: bool = False) -> list[Event]:
        """Damage to ``t`` (one part per damage type of the hit): Resistance, Vulnerability
        and Immunity in the text's order, temporary HP first, then 0 HP, death saves and
        Concentration (§7-§11). ``work`` follows the events."""
        typed = [(self._typed(t, base, dtype), dtype) for base, dtype in parts]
        if len(typed) == 1:
            damage = typed[0][0]
        else:
            terms = tuple(Term(f"{d.value} {dtype or 'untyped'} ({d.formula})", d.value) for d, dtype in typed)
            damage = Derivation(sum(d.value for d, _ in typed), " + ".join(x.name for x in terms), terms, R(7),
                                typed[0][0].roll)
        # One hit of several parts names each part's type, "untyped" too: 7 untyped and 11 fire
        # are not 18 fire.
        dtype = ", ".join(x or "untyped" for _, x in typed) if len(typed) > 1 and any(x for _, x in typed) else (
            ", ".join(x for _, x in typed if x))
        amount = damage.value
        absorbed = min(t.temp, amount)
        rest = amount - absorbed
        was = t.hp
        hp = max(0, was - rest)
        knocked = knockout and was > 0 and hp == 0  # §9: left at 1 HP and Unconscious instead
        if knocked:
            hp = 1
        events = self._emit(work, [Damaged(who=t.name, damage=damage, damage_type=dtype, temp_left=t.temp - absorbed,
                                           hp_left=hp, by=by, crit=crit)])
        character = t.pc or work.options["monster-death"] == "as-character"
        if knocked:
            events += self._emit(work, [MarkAdded(who=t.name, kind="unconscious", detail=KNOCKED_OUT)])
            if t.concentration:
                events += self._emit(work, [ConcentrationEnded(who=t.name, spell=t.concentration,
                                                               why="Incapacitated (Unconscious)")])
            return events
        if was > 0 and hp == 0:
            over = rest - was
            if not character:
                events += self._emit(work, [Fell(who=t.name, dead=True, why="a monster at 0 HP",
                                                 rule=R(9) + ", option monster-death=instant")])
            elif over >= t.hp_max:
                left = Derivation(over, f"damage past 0 HP vs HP maximum {t.hp_max}",
                                  (Term("damage after temporary HP", rest), Term("HP before", -was)), R(9))
                events += self._emit(work, [Fell(who=t.name, dead=True, rule=R(9), left_over=left,
                                                 why=f"massive damage: {over} left over >= HP maximum {t.hp_max}")])
            else:
                events += self._emit(work, [Fell(who=t.name, dead=False, rule=R(9), why="0 HP, §9")])
            if t.concentration:
                events += self._emit(work, [ConcentrationEnded(
                    who=t.name, spell=t.concentration, why="dead" if t.dead else "Incapacitated (Unconscious)")])
            return events
        if was == 0 and not t.dead:
            counts = rest > 0 or (absorbed > 0 and work.options["temp-at-0"] == "failure")
            if rest >= t.hp_max:
                # Massive damage at 0 HP: no HP is left to take any of it, so all of it is left over.
                left = Derivation(rest, f"damage at 0 HP vs HP maximum {t.hp_max}",
                                  (Term("damage after temporary HP", rest),), R(9))
                return events + self._emit(work, [Fell(who=t.name, dead=True, rule=R(9), left_over=left,
                                                       why=f"damage at 0 HP: {rest} >= HP maximum {t.hp_max}")])
            if counts:
                add = 2 if crit else 1
                if t.stable:
                    events += self._emit(work, [MarkEnded(who=t.name, kind="stable", why="damage ends Stable (§9)")])
                    if work.options["stable-damage"] == "no":
                        add = 0
                fails = min(3, t.failures + add)
                outcome = "dead" if fails >= 3 else "failure"
                events += self._emit(work, [DeathSave(who=t.name, save=None, successes=t.successes, failures=fails,
                                                      outcome=outcome)])
                if outcome == "dead":
                    events += self._emit(work, [Fell(who=t.name, dead=True, why="three failed death saves",
                                                     rule=R(9))])
            return events
        if t.concentration and not t.dead and (rest > 0 or (
                absorbed > 0 and work.options["concentration-temp"] == "save")):
            # One save a hit, or one a damage type of it (option concentration-save, §16).
            each = [d.value for d, _ in typed] if work.options["concentration-save"] == "per-type" else [amount]
            for number, taken in enumerate(each):
                if taken == 0:
                    continue
                key = f"con:{t.name}" if number == 0 else f"con{number + 1}:{t.name}"
                kept = self._concentration_save(work, t, taken, key, dice, events)
                if not kept:
                    break
        return events

    def _concentration_save(self, work: SrdState, t: Fighter, amount: int, key: str, dice: Dice,
                            events: list[Event]) -> bool:
        """A Concentration save against damage: DC max(10, floor(damage / 2)), capped (§11);
        its events are appended to ``events`` (and applied to ``work``); True if kept."""
        half = amount // 2
        dc_value = max(10, half)
        terms = (Term("damage", amount), Term("floor(damage / 2)", half))
        dc_formula = "max(10, floor(damage / 2))"
        if work.options["dc-cap"] == "30":
            dc_value, dc_formula = min(30, dc_value), "min(30, max(10, floor(damage / 2)))"
        dc = Derivation(dc_value, dc_formula, terms, R(11))
        roll = dice.roll(key, 1, 20)
        sterms = [Term("d20", roll.faces[0]), Term("Con save", t.con), *self._exhaustion_terms(work, t)]
        total = sum(x.value for x in sterms)
        save = Derivation(total, " + ".join(x.name for x in sterms), tuple(sterms), R(11), roll)
        kept = total >= dc_value
        events += self._emit(work, [ConcentrationSaved(who=t.name, dc=dc, save=save, kept=kept)])
        if not kept:
            events += self._emit(work, [ConcentrationEnded(who=t.name, spell=t.concentration,
                                                           why=f"failed the save, DC {dc_value}")])
        return kept

    @decides(Damage)
    def _damage(self, state: SrdState, cmd: Damage, dice: Dice) -> list[Event]:
        t = state.fighters[find_name(state.names(), cmd.who)]
        if cmd.amount < 0:
            raise BadInput(f"damage takes 0 or more, not {cmd.amount}")
        if t.dead:
            raise RuleViolation(f"{t.name} is dead", R(9))
        adjust = detail_int(cmd, "adjust")
        terms = [Term("damage", cmd.amount)] + ([Term("adjustment", adjust)] if adjust else [])
        base = Derivation(max(0, cmd.amount + adjust), " + ".join(x.name for x in terms), tuple(terms), R(7))
        return self._hurt(self.copy(state), t, [(base, cmd.details.get("type", ""))], cmd.details.get("crit") == "yes",
                          None, dice)

    @decides(Heal)
    def _heal(self, state: SrdState, cmd: Heal, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        if cmd.amount < 1:
            raise BadInput(f"heal takes at least 1, not {cmd.amount}")
        if f.dead:
            raise RuleViolation(f"{f.name} is dead: only revival magic brings it back", R(10))
        keep = cmd.details.get("keep")
        if keep is not None and cmd.details.get("temp") != "yes":
            raise BadInput("--with keep= goes with --with temp=yes: it chooses between two grants of temporary HP")
        if cmd.details.get("temp") == "yes":
            if not f.temp:
                return [TempGained(who=f.name, temp=cmd.amount, had=0)]
            keep = keep or "higher"
            kept = "new" if keep == "new" or (keep == "higher" and cmd.amount > f.temp) else "old"
            return [TempGained(who=f.name, temp=cmd.amount, had=f.temp, keep=keep, kept=kept)]
        top = self._hp_max(state, f)
        amount = min(cmd.amount, top - f.hp)
        if amount <= 0:
            raise RuleViolation(f"{f.name} has all its HP ({top})", R(10))
        knocked = any(m.kind == "unconscious" and m.detail == KNOCKED_OUT for m in f.marks)
        return [Healed(who=f.name, amount=amount, hp_left=f.hp + amount, woke=f.hp == 0 or knocked)]

    def _hp_max(self, state: SrdState, f: Fighter) -> int:
        if state.options["exhaustion"] == "5.1" and f.exhaustion >= 4:
            return f.hp_max // 2
        return f.hp_max

    # --- resolve, cancel: the Ready ------------------------------------------------------------

    @decides(Resolve)
    def _resolve(self, state: SrdState, cmd: Resolve, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        if not f.ready:
            raise RuleViolation(f"{f.name} has no Ready held", R(4))
        self._check_reaction(state, f)
        if f.incapacitated:
            raise RuleViolation(f"{f.name} is Incapacitated: no Reaction", R(13))
        return [ReadyFired(who=f.name)]

    @decides(Cancel)
    def _cancel(self, state: SrdState, cmd: Cancel, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        if not f.ready:
            raise RuleViolation(f"{f.name} has no Ready held", R(4))
        return [ReadyLapsed(who=f.name, why="the GM let it go")]

    @decides(Upkeep)
    def _upkeep(self, state: SrdState, cmd: Upkeep, dice: Dice) -> list[Event]:
        raise RuleViolation("srd-5.2 has no end-of-round step: `next` ends the turn, and the round after the last",
                            R(12))

    # --- effects and conditions -----------------------------------------------------------------

    @decides(ApplyEffect)
    def _effect(self, state: SrdState, cmd: ApplyEffect, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        kind = cmd.kind.strip().lower()
        if kind == "concentration":
            if cmd.end:
                if not f.concentration:
                    raise RuleViolation(f"{f.name} is concentrating on nothing", R(11))
                return [ConcentrationEnded(who=f.name, spell=f.concentration, why="dropped")]
            spell = cmd.details.get("spell", "").strip()
            if not spell:
                raise BadInput("concentration needs --with spell=NAME")
            if f.incapacitated or f.dead:
                raise RuleViolation(f"{f.name} is Incapacitated: it cannot concentrate", R(11))
            return self._concentrate(f, spell)
        if cmd.end:
            m = f.mark(kind)
            if m is None:
                raise RuleViolation(f"{f.name} is not {kind}", R(13))
            if kind == "exhaustion" and m.level > 1:
                return [MarkAdded(who=f.name, kind="exhaustion", detail=f"level {m.level - 1}",
                                  left=None, by="-1")]
            return [MarkEnded(who=f.name, kind=kind, by=m.by, why="ended")]
        if f.dead:
            raise RuleViolation(f"{f.name} is dead", R(9))
        if kind in f.immune or (kind == "poisoned" and f.has("petrified")):
            raise RuleViolation(f"{f.name} is immune to {kind}", R(7) if kind in f.immune else R(13))
        if kind in CONDITIONS and kind != "exhaustion" and f.has(kind):
            raise RuleViolation(f"{f.name} is {kind} already: conditions don't stack", R(13))
        anchor, at, left, skip = "", "", None, False
        minutes = detail_int(cmd, "minutes")
        if cmd.rounds is not None or minutes:
            if minutes < 0 or (cmd.rounds is not None and cmd.rounds < 1):
                raise BadInput("--rounds and --with minutes= take 1 or more")
            left = cmd.rounds if cmd.rounds is not None else 10 * minutes
            of = cmd.details.get("of")
            anchor = find_name(state.names(), of) if of else (state.current if state.current not in (None, LAIR)
                                                              else f.name) or f.name
            at = cmd.details.get("at") or (state.options["minute-ends"] if minutes else "start")
            skip = at == "end" and state.current == anchor
        by = cmd.details.get("by", "")
        if by:
            by = find_name(state.names(), by)
        if kind == "exhaustion":
            level = f.exhaustion + 1
            events: list[Event] = [MarkAdded(who=f.name, kind=kind, detail=f"level {level}", by="+1")]
            if level >= 6:
                events.append(Fell(who=f.name, dead=True, why="Exhaustion level 6", rule=R(13)))
                if f.concentration:
                    events.append(ConcentrationEnded(who=f.name, spell=f.concentration, why="dead"))
            return events
        spell = " ".join(cmd.details.get("spell", "").split())
        if spell and (not by or state.fighters[by].concentration != spell):
            raise RuleViolation(f"--with spell={spell} holds the effect by the Concentration of --with by=NAME, and "
                                f"{by or 'no one'} is not concentrating on it", R(11))
        events = [MarkAdded(who=f.name, kind=kind, by=by, anchor=anchor, at=at, left=left, skip=skip,
                            custom=cmd.custom, spell=spell)]
        if kind in INCAPACITATING:
            if f.concentration:
                events.append(ConcentrationEnded(who=f.name, spell=f.concentration, why=f"Incapacitated ({kind})"))
            for other in state.fighters.values():
                grab = other.mark("grappled")
                if grab and grab.by == f.name:
                    events.append(MarkEnded(who=other.name, kind="grappled", by=f.name,
                                            why=f"the grappler {f.name} is Incapacitated"))
            if f.has("dodging"):
                events.append(MarkEnded(who=f.name, kind="dodging", by=f.name, why="Incapacitated"))
        return events

    # --- the fold ---------------------------------------------------------------------------------

    @applies(RoundStarted)
    def _round_started(self, state: SrdState, event: RoundStarted) -> None:
        state.round, state.order, state.turn, state.in_round = event.round, list(event.order), None, True
        state.lair_used = []
        for i in event.rolled:
            for name in i.who:
                state.scores[name] = i.score.value
                state.fighters[name].initiative = i.score.value
        for name in event.surprised:
            state.fighters[name].surprised = True

    @applies(TurnStarted)
    def _turn_started(self, state: SrdState, event: TurnStarted) -> None:
        state.turn = state.order.index(event.who)
        if event.who == LAIR:
            return
        f = state.fighters[event.who]
        f.action = f.bonus = f.interaction = f.reaction = f.disengaged = f.fired = False
        f.moved = f.dashes = f.attacks_left = 0
        f.legendary_left = f.legendary
        f.turns += 1
        f.turned_round = state.round
        if event.resumed:
            # Taken up mid-round (module docstring): those before it have had their turns this
            # round, so no effect anchored to them ends as a missed turn; whoever has had a turn
            # holds its full legendary uses. The countdown of effects at this turn's start,
            # below, happened where the fight was saved: it is not done again.
            for name in event.taken:
                state.fighters[name].turns += 1
                state.fighters[name].turned_round = state.round
            for g in state.fighters.values():
                if g.name in event.taken or state.round > 1:
                    g.legendary_left = g.legendary
            return
        if state.options.get("legendary-skipped") == "yes":
            state.gap += [f"{state.round}:{name}" for name in event.skipped]
        for g in state.fighters.values():
            for m in g.marks:
                if m.anchor == event.who and m.at == "start" and m.left:
                    m.left -= 1

    @applies(TurnEnded)
    def _turn_ended(self, state: SrdState, event: TurnEnded) -> None:
        state.gap = [f"{state.round}:{event.who}"]
        if event.who == LAIR:
            return
        for g in state.fighters.values():
            for m in g.marks:
                if m.anchor == event.who and m.at == "end" and m.left:
                    if m.skip:
                        m.skip = False
                    else:
                        m.left -= 1
        f = state.fighters[event.who]
        f.disengaged = False
        if f.surprised and f.turns >= 1:
            f.surprised = False

    @applies(RoundEnded)
    def _round_ended(self, state: SrdState, event: RoundEnded) -> None:
        state.turn, state.in_round = None, False
        if state.options.get("rounds") == "reroll":  # each round's `round` rolls every Initiative again
            state.scores, state.order = {}, []
            for f in state.fighters.values():
                f.initiative = None

    @applies(Acted)
    def _acted(self, state: SrdState, event: Acted) -> None:
        f = state.fighters[event.who]
        if event.use == "action":
            f.action = True
        elif event.use == "bonus":
            f.bonus = True
        elif event.use == "reaction":
            f.reaction = True
        elif event.use == "ready":
            f.fired = False
        elif event.use == "legendary":
            f.legendary_left -= event.cost
            _follows(state, f)
        elif event.use == "free":
            f.interaction = True
        elif event.use == "lair":
            state.lair_used.append(f.name)
        if event.recharge:
            f.recharge_ready = False
        _count(f, event.block, event.slot)
        if event.action == "dash":
            f.dashes += 1
        elif event.action == "disengage":
            f.disengaged = True
        elif event.action == "ready":
            then, _, trigger = event.detail.partition(": ")
            f.ready, f.trigger = then, trigger

    @applies(Moved)
    def _moved(self, state: SrdState, event: Moved) -> None:
        f = state.fighters[event.who]
        f.moved += event.cost.value
        if event.stood:
            f.marks = [m for m in f.marks if m.kind != "prone"]

    @applies(Attacked)
    def _attacked(self, state: SrdState, event: Attacked) -> None:
        f = state.fighters[event.who]
        if event.use == "action":
            if f.attacks_left == 0 and not f.action:
                f.action, f.attacks_left = True, f.attacks
            f.attacks_left -= 1
        elif event.use == "bonus":
            f.bonus = True
        elif event.use == "reaction":
            f.reaction = True
        elif event.use == "ready":
            f.fired = False
        elif event.use == "legendary":
            f.legendary_left -= event.cost
            _follows(state, f)
        if event.recharge:
            f.recharge_ready = False
        _count(f, event.block, 0)

    @applies(Saved)
    def _saved(self, state: SrdState, event: Saved) -> None:
        pass  # a save changes no figure: the damage it leads to comes as its own events

    @applies(Damaged)
    def _damaged(self, state: SrdState, event: Damaged) -> None:
        f = state.fighters[event.who]
        f.temp, f.hp = event.temp_left, event.hp_left

    @applies(Fell)
    def _fell(self, state: SrdState, event: Fell) -> None:
        f = state.fighters[event.who]
        f.hp = 0
        if event.dead:
            f.dead, f.stable = True, False
            f.marks = [m for m in f.marks if m.kind == "exhaustion"]
            return
        for kind in ("unconscious", "prone"):
            if not f.has(kind):
                f.marks.append(Mark(kind=kind, detail="at 0 HP"))
        f.marks = [m for m in f.marks if m.kind != "dodging"]
        f.ready = ""

    @applies(DeathSave)
    def _death_saved(self, state: SrdState, event: DeathSave) -> None:
        f = state.fighters[event.who]
        f.successes, f.failures = event.successes, event.failures

    @applies(Stabilised)
    def _stabilised(self, state: SrdState, event: Stabilised) -> None:
        f = state.fighters[event.who]
        f.stable, f.successes, f.failures = True, 0, 0

    @applies(Healed)
    def _healed(self, state: SrdState, event: Healed) -> None:
        f = state.fighters[event.who]
        f.hp = event.hp_left
        if event.woke:
            f.successes = f.failures = 0
            f.stable = False
            # No longer Unconscious, still Prone (§10).
            f.marks = [m for m in f.marks if not (m.kind == "unconscious" and m.detail in ("at 0 HP", KNOCKED_OUT))]

    @applies(TempGained)
    def _temp(self, state: SrdState, event: TempGained) -> None:
        if event.kept == "new":
            state.fighters[event.who].temp = event.temp

    @applies(ConcentrationSaved)
    def _con_saved(self, state: SrdState, event: ConcentrationSaved) -> None:
        pass  # the save changes nothing by itself; ConcentrationEnded follows a failure

    @applies(ConcentrationStarted)
    def _con_started(self, state: SrdState, event: ConcentrationStarted) -> None:
        state.fighters[event.who].concentration = event.spell

    @applies(ConcentrationEnded)
    def _con_ended(self, state: SrdState, event: ConcentrationEnded) -> None:
        state.fighters[event.who].concentration = ""
        # The effects its Concentration held end with it (§11): `effect ... --with spell=NAME`.
        for f in state.fighters.values():
            f.marks = [m for m in f.marks if not (m.by == event.who and m.spell == event.spell)]

    @applies(MarkAdded)
    def _mark_added(self, state: SrdState, event: MarkAdded) -> None:
        f = state.fighters[event.who]
        if event.kind == "exhaustion":
            m = f.mark("exhaustion")
            step = -1 if event.by == "-1" else 1
            if m is None:
                f.marks.append(Mark(kind="exhaustion", level=1))
            else:
                m.level += step
            level = f.exhaustion
            if state.options["exhaustion"] == "5.1" and level >= 4:
                f.hp = min(f.hp, f.hp_max // 2)
            if level >= 6:
                f.dead = True
            return
        f.marks = [m for m in f.marks if not (m.kind == event.kind and m.by == event.by)]
        f.marks.append(Mark(kind=event.kind, by=event.by, anchor=event.anchor, at=event.at, left=event.left,
                            skip=event.skip, detail=event.detail, custom=event.custom, spell=event.spell))

    @applies(MarkEnded)
    def _mark_ended(self, state: SrdState, event: MarkEnded) -> None:
        f = state.fighters[event.who]
        if event.kind == "stable":
            f.stable = False
            return
        kept = [m for m in f.marks if not (m.kind == event.kind and m.by == event.by)]
        if len(kept) == len(f.marks):
            kept = [m for m in f.marks if m.kind != event.kind]
        f.marks = kept

    @applies(ReadyFired)
    def _ready_fired(self, state: SrdState, event: ReadyFired) -> None:
        f = state.fighters[event.who]
        f.ready, f.trigger, f.fired, f.reaction = "", "", True, True

    @applies(ReadyLapsed)
    def _ready_lapsed(self, state: SrdState, event: ReadyLapsed) -> None:
        f = state.fighters[event.who]
        f.ready, f.trigger = "", ""

    @applies(Recharged)
    def _recharged(self, state: SrdState, event: Recharged) -> None:
        state.fighters[event.who].recharge_ready = event.ready

    # --- view and narration -------------------------------------------------------------------

    def _status(self, state: SrdState, f: Fighter) -> Status:
        if f.left:
            return "left"
        if f.dead:
            return "dead"
        if f.hp == 0:
            return "down"
        if f.incapacitated:
            return "out"
        return "fighting"

    def view(self, state: SrdState) -> View:
        now = state.current
        ordered = [state.fighters[n] for n in state.order if n != LAIR]
        rest = [f for f in state.fighters.values() if f not in ordered]
        start = -1 if state.turn is None else state.turn
        upcoming: tuple[str, ...] = ()
        if state.in_round:
            for name in state.order[start + 1:]:
                if name != LAIR and self._can_take_turn(state, name):
                    upcoming = (name,)
                    break
        combatants = []
        for f in [*ordered, *rest]:
            # Compact, for the 80-column table: what the GM reads at a glance (§15).
            effects: list[Effect] = []
            if f.hp == 0 and not f.dead:
                effects.append(Effect(kind="death saves", detail=f"{f.successes}S {f.failures}F"))
            if f.temp:
                effects.append(Effect(kind=f"temp {f.temp}"))
            if f.reaction:
                effects.append(Effect(kind="reaction used"))
            for m in f.marks:
                detail = "" if m.detail == "at 0 HP" else m.detail
                if m.left is not None:
                    detail = f"{detail + ', ' if detail else ''}{m.at} {m.anchor}"
                if m.by and m.kind in ("grappled", "charmed", "frightened"):
                    detail = f"by {m.by}" + (f", {detail}" if detail else "")
                label = f"{m.kind} {m.level}" if m.kind == "exhaustion" else m.kind
                effects.append(Effect(kind=label, left=m.left, detail=detail, custom=m.custom))
            if f.stable:
                effects.append(Effect(kind="stable"))
            if f.concentration:
                effects.append(Effect(kind="concentration", detail=f.concentration))
            if f.ready:
                effects.append(Effect(kind="ready", detail=f"{f.ready} when {f.trigger}"))
            if not f.dead and 0 < f.hp <= f.hp_max // 2:
                effects.append(Effect(kind="bloodied"))
            if f.fired:
                effects.append(Effect(kind="ready fired", detail=f"declare {f.name} ... --with as=ready"))
            speed = self._speed(state, f)
            combatants.append(Combatant(
                name=f.name, side=f.side, status=self._status(state, f), acting=f.name == now,
                vital=Gauge(name="HP", value=f.hp, maximum=self._hp_max(state, f)),
                budget=Budget(name="action", left=0 if f.action and f.attacks_left == 0 else 1, of=1),
                effects=tuple(effects),
                own=SrdFigures(
                    ac=f.ac, temp=f.temp, initiative=f.initiative,
                    move=max(0, speed * (1 + f.dashes) - f.moved), bonus=f.bonus, reaction=f.reaction,
                    legendary=f"{f.legendary_left}/{f.legendary}" if f.legendary else "",
                    death=f"{f.successes}/{f.failures}" if f.hp == 0 and not f.dead else "",
                    concentration=f.concentration,
                ),
            ))
        pending = tuple(Pending(who=f.name, action=f.ready, resolves=f"on: {f.trigger}",
                                own=ReadyFigures(trigger=f.trigger))
                        for f in state.fighters.values() if f.ready)
        if now == LAIR:
            moment = "count 20 (lair)"
        elif now is not None:
            moment = f"{now}'s turn"
        elif state.in_round:
            moment = "before the first turn"
        else:
            moment = "before the first round" if state.round == 0 else f"after round {state.round}"
        # At count 20 nobody's turn is under way: the lair's moment is the label alone.
        clock = Clock(round=state.round, running=state.in_round, moment=moment,
                      now=(now,) if now else (), next=upcoming)
        return View(clock=clock, combatants=tuple(combatants), pending=pending)

    def moves(self, state: SrdState, who: str) -> tuple[Move, ...]:
        """Its stat block's actions by name (README: Stat blocks), each with its to-hit or
        save, its first damage and what is left of it (recharge, N/day, legendary uses).
        Multiattack is left out: it is declared as each of its attacks by name (§14)."""
        f = state.fighters[who]
        return tuple(_move(f, block) for block in parse_actions(f.actions) if block.attack or not block.attacks)

    def harm(self, event: Event) -> Harm | None:
        match event:
            case Damaged(who=who, damage=damage, by=by):
                return Harm(who=who, amount=damage.value, unit="HP", by=by)
            case Healed(who=who, amount=amount):
                return Harm(who=who, amount=amount, unit="HP", heal=True)
        return None

    def describe(self, event: Event) -> str:
        match event:
            case RoundStarted(round=number, order=order, rolled=rolled, tie_rule=tie_rule, resumed=resumed):
                shown = ", ".join(n or "count 20 (lair)" for n in order)
                rolls = ", ".join(f"{'+'.join(i.who) if len(i.who) < 3 else i.who[0] + '..'} "
                                  f"{i.score.value}" for i in rolled)
                # The one shape every ruleset says a round's start in: "Round N begins: ...".
                taken_up = f"; taken up from {resumed}, in its order" if resumed else ""
                return f"Round {number} begins: " + (f"initiative {rolls}; " if rolls else "") + f"order {shown}" + (
                    f"; {tie_rule}" if tie_rule else "") + taken_up
            case TurnStarted(who=who, resumed=True, taken=taken):
                done = f" ({', '.join(taken)} had theirs this round)" if taken else ""
                return f"{who}'s turn, under way where the fight was taken up{done}"
            case TurnStarted(who=who):
                return "Count 20: the lair acts" if who == LAIR else f"{who}'s turn"
            case TurnEnded(who=who):
                return "Count 20 ends" if who == LAIR else f"{who}'s turn ends"
            case RoundEnded(round=number):
                return f"Round {number} ends"
            case Acted(who=who, action=action, use=use, target=target, detail=detail, check=check):
                used = USE_WORDS.get(use, use)
                what = (f"{who} acts: a {used}" if action == use else
                        f"{who} acts: {action}" + (f" as a {used}" if use not in ("action", "free") else ""))
                what += f" on {target}" if target else ""
                what += f" ({detail})" if detail else ""
                return what + (f": {check.value} ({check.formula})" if check else "")
            case Moved(who=who, cost=cost, stood=stood):
                return f"{who} stands up ({cost.value} ft)" if stood else f"{who} moves ({cost.value} ft of movement)"
            case Attacked(who=who, target=target, roll=roll, hit=hit, crit=crit, advantage=mode, why=why, block=block):
                outcome = "a Critical Hit" if crit else "hits" if hit else "misses"
                extra = f", {mode}: {why}" if mode else ""
                named = f" with {block}" if block else ""
                return f"{who} attacks {target}{named}: {roll.value} ({roll.formula}{extra}), {outcome}"
            case Damaged(who=who, damage=damage, damage_type=dtype, temp_left=temp, hp_left=hp) if ", " in dtype:
                # Two parts of one hit (--with extra=): each its own type, untyped too (§7).
                parts = " + ".join(t.name.split(" (")[0] for t in damage.terms)
                temporary = f", {temp} temporary" if temp else ""
                return f"{who} takes {damage.value} damage ({parts}) ({hp} HP{temporary} left)"
            case Damaged(who=who, damage=damage, damage_type=dtype, temp_left=temp, hp_left=hp):
                kind = f" {dtype}" if dtype else ""
                temporary = f", {temp} temporary" if temp else ""
                return f"{who} takes {damage.value}{kind} damage ({hp} HP{temporary} left)"
            case Fell(who=who, dead=dead, why=why):
                return f"{who} {'dies' if dead else 'falls Unconscious'}: {why}"
            case DeathSave(who=who, save=save, successes=s, failures=fails, outcome=outcome):
                how = f"rolls {save.value}" if save else "takes damage at 0 HP"
                return (f"{who} {how}: death save {outcome} ({s} success{'' if s == 1 else 'es'}, "
                        f"{fails} failure{'' if fails == 1 else 's'})")
            case Healed(who=who, amount=amount, hp_left=hp, woke=woke):
                return f"{who} regains {amount} HP ({hp} HP)" + (", conscious again, still Prone" if woke else "")
            case TempGained(who=who, temp=temp, had=had, keep=keep, kept=kept):
                why = "" if not keep else " (the higher, §8)" if keep == "higher" else f" (keep={keep}, §8)"
                if kept == "old":
                    return f"{who} keeps {had} temporary HP, not {temp}{why}"
                return f"{who} has {temp} temporary HP" + (f" in place of {had}" if had else "") + why
            case Stabilised(who=who, by=by):
                return f"{who} is Stable ({by})"
            case ConcentrationSaved(who=who, dc=dc, save=save, kept=kept):
                return f"{who} rolls {save.value} against DC {dc.value}: Concentration {'kept' if kept else 'lost'}"
            case ConcentrationStarted(who=who, spell=spell):
                return f"{who} concentrates on {spell}"
            case ConcentrationEnded(who=who, spell=spell, why=why):
                return f"{who}'s Concentration on {spell} ends ({why})"
            case MarkAdded(who=who, kind=kind, detail=detail, left=left, anchor=anchor, at=at):
                lasts = f" for {left} ({at} of {anchor}'s turn)" if left is not None else ""
                state = f"has Exhaustion{lasts}" if kind == "exhaustion" else f"is {kind}{lasts}"  # a level it has (§13)
                return f"{who} {state}" + (f" ({detail})" if detail else "")
            case MarkEnded(who=who, kind=kind, why=why):
                state = "has Exhaustion no longer" if kind == "exhaustion" else f"is no longer {kind}"
                return f"{who} {state} ({why})"
            case ReadyFired(who=who):
                return f"{who}'s Ready fires (its Reaction)"
            case ReadyLapsed(who=who, why=why):
                return f"{who}'s Ready lapses ({why})"
            case Saved(who=who, action=action, ability=ability, dc=dc, save=save, success=success, why=why):
                how = f"rolls {save.value}" if save is not None else why
                return (f"{who} {'saves' if success else 'fails'} against {action} "
                        f"(DC {dc} {ability.capitalize()}): {how}")
            case Recharged(who=who, roll=roll, ready=ready):
                return f"{who} rolls {roll.faces[0]} to recharge: {'ready' if ready else 'still spent'}"
        return type(event).__name__


def _held(name: str, score: int) -> Initiative:
    """An initiative a combatant brought from a saved fight (combatant-carried): its place, no d20."""
    return Initiative(who=(name,), score=Derivation(score, "initiative held from where it was carried in",
                                                    (Term("held", score),), R(2)))


def _spent(cmd: Declare, use: str) -> int:
    """The legendary uses an action taken as one spends (--with cost=N, §14); 1 for any other use."""
    return detail_int(cmd, "cost", 1) if use == "legendary" else 1


def _count(f: Fighter, block: str, slot: int) -> None:
    """A use of a stat block's action and a spell slot spent, counted (§4, §14)."""
    if block:
        f.used = {**f.used, block: f.used.get(block, 0) + 1}
    if slot:
        f.used = {**f.used, f"slot:{slot}": f.used.get(f"slot:{slot}", 0) + 1}


def _move(f: Fighter, block: BlockAction) -> Move:
    """One action of ``f``'s stat block as a surface offers it (Ruleset.moves)."""
    words: list[str] = []
    # Nothing of a block is taken by one dead, gone or at 0 HP (§1, §9): every action says so.
    spent = "dead" if f.dead else "left the fight" if f.left else "at 0 HP" if f.hp == 0 else ""
    if block.use == "legendary":
        words.append(f"legendary {block.cost}")
        if f.legendary_left < block.cost:
            spent = spent or f"legendary {block.cost}: {f.legendary_left} left"
    elif block.use != "action":
        words.append(block.use)
    if block.attack:
        words.append(f"{block.hit:+d}")
    if block.save:
        words.append(f"DC {block.dc} {block.save.capitalize()}")
    words += [str(p) for p in block.damage if not p.advantage][:2]
    if block.recharge:
        ready = f.recharge_ready
        words.append(f"recharge {block.recharge}" + ("" if ready else ": spent"))
        spent = spent or ("" if ready else f"recharge {block.recharge}: spent")
    if block.per_day:
        left = max(0, block.per_day - f.used.get(block.name, 0))
        words.append(f"{block.per_day}/day: {left} left")
        spent = spent or ("" if left else f"{block.per_day}/day: 0 left")
    parts = tuple(DiceKey(key=_part_key(i, f.name), what=str(p)) for i, p in enumerate(block.damage) if "d" in p.dice)
    if block.attack:
        return Move(name=block.name, use=block.use, label=", ".join(words), spent=spent, aim="one",
                    rolls=(DiceKey(key=f.name, what="d20 to hit"), *parts))
    if block.save:
        return Move(name=block.name, use=block.use, label=", ".join(words), spent=spent, aim="several", rolls=parts,
                    each=(DiceKey(key="save:", what=f"d20 {block.save.capitalize()} save"),))
    return Move(name=block.name, use=block.use, label=", ".join(words), spent=spent)


def _part_key(index: int, who: str) -> str:
    """The dice key of a stat block's damage part: dmg:WHO, then extra:WHO, extra3:WHO..."""
    return f"dmg:{who}" if index == 0 else f"extra:{who}" if index == 1 else f"extra{index + 1}:{who}"


def _follows(state: SrdState, f: Fighter) -> None:
    """A legendary use follows the first ended turn of the gap it has not followed yet."""
    for key in state.gap:
        if key not in f.legendary_after and key.split(":", 1)[1] not in (f.name, LAIR):
            f.legendary_after.append(key)
            return


def _renamed_turn(turn: str, old: str, new: str) -> str:
    number, _, who = turn.partition(":")
    return f"{number}:{new}" if who == old else turn


USE_WORDS = {"bonus": "Bonus Action", "reaction": "Reaction", "legendary": "legendary action"}


def _two_d20_why(adv: list[str], dis: list[str]) -> str:
    """Why a d20 Test rolls one die or two (§6), for a refusal of the faces the GM typed."""
    if adv and dis:
        return (f"Advantage ({', '.join(adv)}) and Disadvantage ({', '.join(dis)}) cancel out: "
                f"one d20 ({R(6)})")
    if adv:
        return f"Advantage ({', '.join(adv)}) rolls two d20s and keeps the higher ({R(6)})"
    if dis:
        return f"Disadvantage ({', '.join(dis)}) rolls two d20s and keeps the lower ({R(6)})"
    return ""


def _words(text: str) -> list[str]:
    return [w.strip().lower() for w in text.split(",") if w.strip()]


RULESET: Ruleset[SrdState] = Srd52()
