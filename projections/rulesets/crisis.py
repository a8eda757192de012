"""The crisis ruleset: turns in a fixed order, 6 action points at most, +4 each turn.

Rules text: shared/rules/crisis.md (cited below by section). The clock is the turn and
whose move it is within it: ``round`` starts a turn (the first one rolls the turn order:
3d6 + Intelligence + Speed + circumstance), every combatant gains its AP, and the one at
the top of the order acts; ``next`` passes to the next combatant able to act, and past
the last one ends the turn (``upkeep`` ends it at once). An action is paid when it is
declared; an attack is rolled then and there against the target's defence, and a hit
waits for its damage (``resolve WHO --hits N``).

Open points of the text, each an option recorded in the encounter's first event:

- ``turn-order`` (default ``once``): Turn Order has every character roll when a crisis
  begins and speaks of a new turn beginning once everyone has acted, with no new roll;
  rules/README.md lists the question. ``each-turn`` rolls the order anew every turn.
- ``armour-dr`` (default ``all-damage``): Damage first reduces "the damage taken" by an
  armour's DR, then says DR reduces damage to Health. The first, general paragraph does
  not limit itself to Health and the second does not say "only", so DR applies to every
  hit by default; ``health-only`` applies it only to the part that reaches Health (the
  armour then loses Durability only when some damage reaches Health).
- ``spill`` (default ``no``): once Endurance "has reached 0, all subsequent damage" goes
  to Health: read literally, the excess of the hit that empties Endurance is lost.
  ``yes`` sends that excess on to Health.
- ``stun`` (default ``rest-of-turn``): Stunned "can't act on current turn and does not
  regain AP". By default the stunned combatant cannot act for the rest of the turn the
  stun lands in and gains no AP at the next turn's start (the only AP gain after the
  stun lands), then acts normally. ``next-turn``: it also cannot act in that next turn.
  A stun applied between turns covers the coming turn either way.
- ``sneak`` (default ``half-move``): "half the character's Speed modifier + 5" can be
  half of (Speed + 5), half a Move, or half the modifier, plus 5. A sneak slower than a
  move is the point of the action, so the default halves the whole move; ``half-speed``
  is Speed / 2 + 5. The text rounds neither half: a distance is kept exact, counted in
  half metres (its Derivation's ``per`` is 2), so Speed 2 sneaks 3.5 m.
- ``hit-on-tie`` (default ``yes``): Attacking gives the attack formula and Defence a
  fixed value to beat, but not what a tie does. An attack equal to the defence hits by
  default (a target number reached); ``no`` needs the attack to exceed it.

Readings chosen where the text is silent:

- A surprise round (Surprise Round) is a turn of its own before the first turn of
  combat, numbered like any turn: ``round --with surprise=NAME[,NAME]`` on the very first
  turn. The turn order is rolled for everyone then (the crisis begins); only the named
  attackers gain AP and act in it.
- Ties (Turn Order) are settled by higher Intelligence, then higher Speed (both as in
  force, Drunk included), then by re-rolling 3d6 among those still tied, again until no
  two are tied; each re-roll is recorded with its faces (typed dice: ``--roll NAME-reroll=..``,
  a second re-roll ``NAME-reroll2``, ...). A re-roll only orders the tied ones among
  themselves: their turn order value stays. A combatant added after the order was rolled
  rolls at the next turn's start and takes its place in the order.
- AP carry from turn to turn (the die in front of the player), capped at 6 (Actions).
  A turn's gain is 4, 2 once Endurance is 0 (Damage), none while stunned or dead.
- An action of more than 6 AP (Actions) takes every AP the combatant has when it is
  declared; on each later turn ``resolve WHO`` puts that turn's AP into it (the text's
  "can spend": the player chooses), at most what is still owed, so the flintlock example
  ends with 1 AP left. Declaring any other action cancels it and its progress is lost.
- The table's costs apply unless the GM gives ``--ap N`` (Available Actions: "unless
  stated otherwise"); ``custom`` is any other action and needs ``--ap``.
- Total cover (Cover) makes the target unhittable: the attack is refused, no AP spent.
  Cover is given per attack (``--with cover=``), since it is relative to the attacker.
- Drunk (Conditions) takes 2 off every ability and skill figure a formula uses: Intelligence
  and Speed in turn order, skill and ability in an attack and in damage, Melee and Might
  (or Speed) in defence, Speed in a move's distance.
- Prone forbids a melee attack; Stand Up is only for the prone and ends Prone. Being prone
  facing the attacker counts as heavy cover (Cover): the GM gives ``--with cover=heavy``.
- A critical hit (Critical damage) puts the weapon's critical damage straight on Health.
  Armour with Durability left still reduces it by DR (it is damage to Health, which DR
  reduces under both readings of ``armour-dr``) and loses 2 Durability (never below 0).
- Health at 0 or less: dead (Damage). The dead lose their AP at the next turn's start,
  are skipped in the order and cannot be attacked, damaged further or healed. The text
  has no other down state (Endurance at 0 only halves the AP gain): no ``goes-down``.
- ``heal WHO N`` (the text has no healing): Health first, up to its stat, then
  Endurance, up to its stat; refused for the dead.
- ``leave`` drops the leaver's action under way; a combatant who left is skipped in the
  order (status ``left``) until ``return``, and gains no AP meanwhile.

The view (projections/view.py): the clock counts turns, its moment is whose move it is;
between turns nobody is next (the next turn's start settles who acts). Combatants are
listed in the turn order, the dead in their places, those who joined since it was rolled
after. Status: ``left``, ``dead`` at Health 0 or less, anyone else ``fighting`` (a stunned one too:
it only loses its moments while the stun lasts). The vital figure is Health, with Endurance
beside it (``vital2``: damage empties it first), the budget the AP left of those the
combatant had this turn; a stun shows the turns it still covers, the one under way
included.
"""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (README: Speed).

from collections.abc import Iterable, Mapping
from shlex import quote
from typing import Literal

import msgspec

from skirmish.eventlog.commands import (
    CarriedEffect,
    ApplyEffect,
    Cancel,
    Damage,
    Declare,
    Heal,
    Leave,
    Next,
    Resolve,
    StartRound,
    Upkeep,
)
from skirmish.eventlog.errors import BadInput, RuleViolation
from skirmish.eventlog.events import (
    CombatantCarried,
    CombatantAdded,
    Derivation,
    EncounterStarted,
    Event,
    Roll,
    Term,
)
from skirmish.projections.ruleset import (
    ActionInfo,
    Detail,
    Dice,
    Flag,
    Harm,
    Option,
    Rules,
    Ruleset,
    Stat,
    applies,
    decides,
    detail_int,
    find_name,
    options_in_force,
    suggest,
    has_left,
)
from skirmish.projections.view import Budget, Clock, Combatant, Effect, Gauge, Own, Pending, View

RULES = "crisis.md"
R_ORDER = f"{RULES}, Turn Order"
R_SURPRISE = f"{RULES}, Surprise Round"
R_ACTIONS = f"{RULES}, Actions"
R_TABLE = f"{RULES}, Available Actions"
R_CONDITIONS = f"{RULES}, Conditions"
R_ATTACK = f"{RULES}, Attacking"
R_MELEE = f"{RULES}, Melee Combat"
R_RANGED = f"{RULES}, Ranged Combat"
R_COVER = f"{RULES}, Cover"
R_DAMAGE = f"{RULES}, Damage"
R_CRITICAL = f"{RULES}, Critical damage"

AP_MAX = 6  # Actions: AP never exceed 6 nor fall below 0
AP_PER_TURN = 4
AP_PER_TURN_EXHAUSTED = 2  # Damage: Endurance at 0
DRUNK = -2  # Conditions: Drunk
PER_EXTRA_ENEMY = -2  # Melee Combat
CONDITIONS = ("drunk", "prone", "stunned")

# Available Actions: name -> AP (None: the GM gives --ap).
ACTIONS: dict[str, int | None] = {
    "attack": 2,
    "draw": 1,
    "hide": 3,
    "move": 1,
    "sneak": 1,
    "stand-up": 2,
    "use-item": 2,
    "custom": None,
}
ACTION_DOCS = {
    "attack": "attack with a normal weapon: rolled at once against --target's defence",
    "draw": "draw a weapon and make it ready",
    "hide": "hide from those without direct vision",
    "move": "move up to Speed + 5 m",
    "sneak": "move quietly, half a move (option sneak)",
    "stand-up": "stand up when prone (ends Prone)",
    "use-item": "use an item; the item may state its own AP (--ap)",
    "custom": "any other action, at the AP the GM gives (--ap N); over 6 AP spans turns",
}
COVER: dict[str, int | None] = {"none": 0, "cover": 1, "heavy": 3, "total": None}
ATTACK_DETAILS = ("skill", "ability", "hit", "circumstance", "range", "cover", "enemies", "defence")

Kind = Literal["spanning", "hit"]


# --- state -------------------------------------------------------------------------------


class Condition(msgspec.Struct, frozen=True):
    kind: str
    until: int | None = None  # stunned: the last turn it cannot act in


class Under(msgspec.Struct):
    """An action still under way: a spanning one (over 6 AP) or a hit awaiting its damage."""

    name: str
    kind: Kind
    cost: int
    progress: int = 0
    target: str | None = None


# Mutable: the fold changes a working copy in place (STYLE 7); decide only reads them.
class Fighter(msgspec.Struct):
    name: str
    side: str
    stats: dict[str, int]
    endurance: int
    health: int
    durability: int
    order: int | None = None
    ap: int = 0
    spent: int = 0
    conditions: dict[str, Condition] = {}  # kind -> the condition, in the order they came
    no_gain_turn: int | None = None  # Stunned: the turn start at which it gains no AP
    action: Under | None = None
    left: bool = False  # has left the fight (`leave`); back with `return`

    def has(self, kind: str) -> bool:
        return kind in self.conditions

    @property
    def dead(self) -> bool:
        return self.health <= 0

    def figure(self, key: str) -> int:
        """An ability or skill modifier as in force: Drunk takes 2 off (Conditions)."""
        return self.stats[key] + (DRUNK if self.has("drunk") else 0)


class CrisisState(msgspec.Struct):
    options: dict[str, str]
    seed: int
    turn: int = 0
    in_turn: bool = False
    surprise: tuple[str, ...] = ()  # the surprise round's attackers, while it lasts
    sequence: tuple[str, ...] = ()  # the turn order, first to act first
    acting: str | None = None
    fighters: dict[str, Fighter] = {}  # by name, in the order they were added
    budgets: bool = False  # TurnStarted.budgets: the budget is of the AP had this turn

    def names(self) -> list[str]:
        return list(self.fighters)

    def fighter(self, name: str) -> Fighter:
        return self.fighters[name]

    def stunned(self, f: Fighter) -> bool:
        return _stunned(f, self.turn)

    def may_act(self, f: Fighter) -> bool:
        return f.order is not None and _able(f, self.turn, self.surprise)

    def first_able(self, names: Iterable[str], turn: int, surprise: tuple[str, ...]) -> str | None:
        """The first of ``names`` (in the turn order) able to act in ``turn``."""
        return next((n for n in names if _able(self.fighters[n], turn, surprise)), None)

    def after_acting(self) -> str | None:
        """Who acts once the one acting now is done (None: the turn ends)."""
        if self.acting is None:
            return None
        later = self.sequence[self.sequence.index(self.acting) + 1:]
        return next((n for n in later if self.may_act(self.fighters[n])), None)


def _stunned(f: Fighter, turn: int) -> bool:
    c = f.conditions.get("stunned")
    return c is not None and (c.until is None or c.until >= turn)


def _able(f: Fighter, turn: int, surprise: tuple[str, ...]) -> bool:
    """Turn Order: acts when its place comes, unless dead (Damage), stunned (Conditions) or,
    in a surprise round, not one of the attackers (Surprise Round)."""
    return not f.dead and not f.left and not _stunned(f, turn) and (not surprise or f.name in surprise)


# --- view parts (projections/view.py) ----------------------------------------------------


class CrisisClock(Own, frozen=True, kw_only=True):
    surprise_round: bool = False  # Surprise Round: only its attackers act


class CrisisFigures(Own, frozen=True, kw_only=True):
    turn_order: int | None  # None: rolls at the next turn's start (Turn Order)
    ap_spent: int  # this turn
    endurance: int
    durability: int  # the armour's


class CrisisPending(Own, frozen=True, kw_only=True):
    ap: int  # what the action costs in all (an action over 6 AP spans turns); 0 for a hit
    progress: int  # AP put in so far


def _moment(state: CrisisState) -> str:
    if not state.in_turn:
        return "before the first turn" if state.turn == 0 else "between turns"
    who = f"{state.acting}'s turn" if state.acting is not None else "nobody left to act"
    return f"surprise round, {who}" if state.surprise else who


def _effect(state: CrisisState, c: Condition) -> Effect:
    """Drunk and Prone last until ended; a stun covers the turns up to its last, the one
    under way included."""
    if c.until is None:
        return Effect(kind=c.kind, custom=c.kind not in CONDITIONS)
    left = max(0, c.until - state.turn + (1 if state.in_turn else 0))
    return Effect(kind=c.kind, left=left, detail=f"cannot act through turn {c.until}")


# --- events ------------------------------------------------------------------------------


class OrderRoll(msgspec.Struct, frozen=True):
    who: str
    total: Derivation
    rerolls: tuple[Roll, ...] = ()  # Turn Order: "roll again" while still tied


class Gain(msgspec.Struct, frozen=True):
    who: str
    ap: Derivation  # the AP after the turn's gain, capped at 6


class TurnStarted(Event, frozen=True, tag="crisis.turn-started"):
    """A turn's start: the order, its rolls and the AP gained. (``budgets`` is UNSET, so
    left out, in an older turn start: it reads and prints exactly as it was stored.)"""

    turn: int
    sequence: tuple[str, ...]
    rolls: tuple[OrderRoll, ...] = ()
    gains: tuple[Gain, ...] = ()
    acting: str | None = None
    surprise: tuple[str, ...] = ()
    # The AP budget reads against the AP each had this turn (left + spent), not the cap of
    # 6; older logs showed the cap, and still do.
    budgets: bool | msgspec.UnsetType = msgspec.UNSET


class TurnPassed(Event, frozen=True, tag="crisis.turn-passed"):
    by: str | None
    to: str | None


class ActionTaken(Event, frozen=True, tag="crisis.action-taken"):
    who: str
    action: str
    cost: Derivation
    paid: int
    spans: bool = False  # over 6 AP: carried on over later turns (Actions)
    target: str | None = None
    distance: Derivation | None = None
    what: str | None = None


class AttackRolled(Event, frozen=True, tag="crisis.attack-rolled"):
    who: str
    target: str
    attack: Derivation
    defence: Derivation
    hit: bool


class ActionProgressed(Event, frozen=True, tag="crisis.action-progressed"):
    who: str
    action: str
    paid: int
    progress: int
    cost: int

    @property
    def done(self) -> bool:
        return self.progress >= self.cost


class ActionCancelled(Event, frozen=True, tag="crisis.action-cancelled"):
    who: str
    action: str
    reason: str


class Healed(Event, frozen=True, tag="crisis.healed"):
    """The GM's healing (the text has none): Health first, then Endurance, each up to its stat."""

    who: str
    amount: Derivation
    to_health: int
    to_endurance: int


class DamageTaken(Event, frozen=True, tag="crisis.damage-taken"):
    who: str
    amount: Derivation  # Damage: weapon damage + ability + circumstance
    taken: Derivation  # after armour's DR
    to_endurance: int
    to_health: int
    durability_lost: int
    endurance_left: int
    health_left: int
    critical: bool = False
    by: str | None = None  # the attacker whose hit this damage resolves


class ConditionSet(Event, frozen=True, tag="crisis.condition-set"):
    who: str
    kind: str
    until: int | None = None
    no_gain_turn: int | None = None


class ConditionEnded(Event, frozen=True, tag="crisis.condition-ended"):
    who: str
    kind: str
    reason: str


class TurnEnded(Event, frozen=True, tag="crisis.turn-ended"):
    turn: int


# --- the ruleset ---------------------------------------------------------------------------


class Crisis(Rules[CrisisState]):
    id = "crisis"
    rules_file = RULES
    options = {
        "turn-order": Option("once", ("once", "each-turn"), "roll the turn order once per crisis, or every turn (Turn Order)"),
        "armour-dr": Option(
            "all-damage", ("all-damage", "health-only"),
            "armour DR reduces every hit, or only damage to Health (Damage)",
        ),
        "spill": Option("no", ("no", "yes"), "the excess of the hit that empties Endurance goes on to Health (Damage)"),
        "stun": Option(
            "rest-of-turn", ("rest-of-turn", "next-turn"),
            "a stun stops acting for the rest of the turn, or through the next turn too (Conditions)",
        ),
        "sneak": Option("half-move", ("half-move", "half-speed"), "sneak distance (Speed + 5) / 2, or Speed / 2 + 5 (Available Actions)"),
        "hit-on-tie": Option("yes", ("yes", "no"), "an attack equal to the defence hits (Attacking)"),
    }
    stats = {
        "int": Stat("Intelligence modifier (turn order)"),
        "speed": Stat("Speed modifier (turn order, defence vs ranged, movement)"),
        "endurance": Stat("Endurance pool", minimum=0),
        "health": Stat("Health pool", minimum=1),
        "melee": Stat("Melee skill modifier (defence vs melee)", required=False),
        "might": Stat("Might modifier (defence vs melee)", required=False),
        "armour": Stat("armour's defence modifier", required=False, minimum=0),
        "dr": Stat("armour's damage reduction (DR)", required=False, minimum=0),
        "durability": Stat("armour's Durability", required=False, minimum=0),
        "order-bonus": Stat("perks, flaws or race on turn order (circumstance)", required=False),
    }
    actions = {
        name: ActionInfo("--ap N" if cost is None else f"{cost} AP", ACTION_DOCS[name])
        for name, cost in ACTIONS.items()
    }
    details = {
        "surprise": Detail("NAME[,NAME]: attackers of a surprise round, on the first turn (Surprise Round)", ("round",)),
        "skill": Detail("the attack's skill modifier (Attacking)", ("declare",)),
        "ability": Detail("ability modifier: of the attack, or of its damage (Attacking; Damage)", ("declare", "resolve", "damage")),
        "hit": Detail("the weapon's hit modifier (Attacking)", ("declare",)),
        "circumstance": Detail("perks, flaws, race: on the attack or the damage", ("declare", "resolve", "damage")),
        "range": Detail("which defence the attack meets (Defence)", ("declare",), ("melee", "ranged")),
        "cover": Detail("the target's cover against this attacker (Cover)", ("declare",), tuple(COVER)),
        "enemies": Detail("enemies in the target's melee range, the attacker included (Melee Combat)", ("declare",)),
        "defence": Detail("circumstance on the target's defence (Defence)", ("declare",)),
        "critical": Detail("a critical hit: the weapon's critical damage, to Health (Critical damage)",
                           ("resolve", "damage"), ("yes", "no")),
        "what": Detail("what a custom action or item use is, in the GM's words", ("declare",)),
    }
    flags = {
        "ap": Flag("a custom action's AP: over 6 it goes on in later turns (Action Points)", ("declare",)),
        "target": Flag("whom the action is aimed at", ("declare",)),
        "hits": Flag("damage dealt to the target: Endurance, then Health (Damage)", ("resolve",)),
        "end": Flag("end the condition now (Conditions)", ("effect",)),
    }
    effects = {
        "drunk": "all Abilities and Skills at -2 (Conditions)",
        "prone": "no melee attacks (Conditions)",
        "stunned": "cannot act this turn and gains no AP at the next (Conditions)",
    }
    state_type = CrisisState
    # The shape of this ruleset's state: raise it when the state structs change (it keys
    # cached snapshots). 2: mutable, fighters by name, conditions by kind.
    state_version = 4  # 3: ``left``; 4: ``budgets``

    # --- initial / apply ------------------------------------------------------------------

    def initial(self, started: EncounterStarted) -> CrisisState:
        options = options_in_force(self, started)
        return CrisisState(options=options, seed=started.seed)

    @applies(CombatantAdded)
    def _added(self, state: CrisisState, event: CombatantAdded) -> None:
        full = {key: spec.default for key, spec in self.stats.items()} | dict(event.stats)
        state.fighters[event.name] = Fighter(
            name=event.name, side=event.side, stats=full, endurance=full["endurance"], health=full["health"],
            durability=full["durability"],
        )

    def restat(self, fighter: Fighter, stats: Mapping[str, int], was: Mapping[str, int]) -> Fighter:
        """`set`: Endurance, Health and Durability are pools (Damage): a new size keeps the
        damage taken, so the pool moves by as much as its size, never below 0."""
        after: Fighter = super().restat(fighter, stats, was)
        for pool in ("endurance", "health", "durability"):
            if pool in stats:
                setattr(after, pool, max(0, getattr(after, pool) + stats[pool] - was[pool]))
        return after

    @applies(CombatantCarried)
    def _carried(self, state: CrisisState, event: CombatantCarried) -> None:
        f = state.fighters[event.who]
        if event.vital is not None:  # Health lost in an earlier fight
            f.health = event.vital
        # The text is silent on rest between fights: Endurance and armour Durability come as they were.
        f.endurance = event.figures.get("endurance", f.endurance)
        f.durability = event.figures.get("durability", f.durability)

    def carried_figures(self, state: CrisisState, who: str) -> dict[str, int]:
        f = state.fighters[who]
        return {"endurance": f.endurance, "durability": f.durability}

    def lasting(self, state: CrisisState, who: str) -> list[CarriedEffect]:
        # Stunned runs to a turn of this fight; drunk, prone and the GM's own last until ended.
        return [CarriedEffect(kind=c.kind, custom=c.kind not in CONDITIONS)
                for c in state.fighters[who].conditions.values() if c.until is None and c.kind != "stunned"]

    @applies(TurnStarted)
    def _turn_started(self, state: CrisisState, event: TurnStarted) -> None:
        fighters = state.fighters
        for f in fighters.values():
            f.spent = 0
        for r in event.rolls:
            fighters[r.who].order = r.total.value
        for g in event.gains:
            fighters[g.who].ap = g.ap.value
        state.turn, state.in_turn, state.sequence = event.turn, True, event.sequence
        state.acting, state.surprise = event.acting, event.surprise
        state.budgets = event.budgets is True

    @applies(TurnPassed)
    def _passed(self, state: CrisisState, event: TurnPassed) -> None:
        state.acting = event.to

    @applies(ActionTaken)
    def _taken(self, state: CrisisState, event: ActionTaken) -> None:
        f = state.fighters[event.who]
        f.ap -= event.paid
        f.spent += event.paid
        f.action = Under(event.action, "spanning", event.cost.value, event.paid, event.target) if event.spans else None

    @applies(AttackRolled)
    def _rolled(self, state: CrisisState, event: AttackRolled) -> None:
        state.fighters[event.who].action = Under("attack", "hit", 0, target=event.target) if event.hit else None

    @applies(ActionProgressed)
    def _progressed(self, state: CrisisState, event: ActionProgressed) -> None:
        f = state.fighters[event.who]
        f.ap -= event.paid
        f.spent += event.paid
        if event.done:
            f.action = None
        else:
            assert f.action is not None
            f.action.progress = event.progress

    @applies(ActionCancelled)
    def _cancelled(self, state: CrisisState, event: ActionCancelled) -> None:
        state.fighters[event.who].action = None

    @applies(DamageTaken)
    def _damaged(self, state: CrisisState, event: DamageTaken) -> None:
        f = state.fighters[event.who]
        f.endurance, f.health = event.endurance_left, event.health_left
        f.durability -= event.durability_lost
        if event.by is not None:
            state.fighters[event.by].action = None

    @applies(ConditionSet)
    def _condition_set(self, state: CrisisState, event: ConditionSet) -> None:
        f = state.fighters[event.who]
        f.conditions.pop(event.kind, None)  # set again: it moves to the end
        f.conditions[event.kind] = Condition(event.kind, event.until)
        if event.no_gain_turn is not None:
            f.no_gain_turn = event.no_gain_turn

    @applies(ConditionEnded)
    def _condition_ended(self, state: CrisisState, event: ConditionEnded) -> None:
        state.fighters[event.who].conditions.pop(event.kind, None)

    @applies(TurnEnded)
    def _turn_ended(self, state: CrisisState, event: TurnEnded) -> None:
        state.in_turn, state.acting, state.surprise = False, None, ()

    # --- decide --------------------------------------------------------------------------

    @decides(Upkeep)
    def _upkeep(self, state: CrisisState, command: Upkeep, dice: Dice) -> list[Event]:
        _need_turn(state)
        _no_hit_waiting(state.fighters.values())
        return self._end_turn(state)

    @decides(Cancel)
    def _cancel(self, state: CrisisState, command: Cancel, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        if f.action is None:
            raise RuleViolation(f"{f.name} has no action under way to cancel", R_ACTIONS)
        return [ActionCancelled(who=f.name, action=f.action.name, reason="cancelled by the GM")]

    @decides(Damage)
    def _damage_command(self, state: CrisisState, command: Damage, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        return [self._damage(state, f, command.amount, command, by=None)]

    @decides(Heal)
    def _heal(self, state: CrisisState, command: Heal, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        if command.amount < 1:
            raise BadInput(f"heal takes at least 1, not {command.amount}")
        if f.dead:
            raise RuleViolation(f"{f.name} is dead: nothing in the text brings the dead back", R_DAMAGE)
        to_health = min(command.amount, f.stats["health"] - f.health)
        to_endurance = min(command.amount - to_health, f.stats["endurance"] - f.endurance)
        if to_health + to_endurance == 0:
            raise RuleViolation(f"{f.name} has all its Health and Endurance: nothing to heal")
        given = Derivation(to_health + to_endurance, "Health first, then Endurance, each up to its stat",
                           (Term("healed", command.amount), Term("Health taken", f.stats["health"] - f.health),
                            Term("Endurance taken", f.stats["endurance"] - f.endurance)))
        return [Healed(who=f.name, amount=given, to_health=to_health, to_endurance=to_endurance)]

    @decides(Leave)
    def _leave(self, state: CrisisState, command: Leave, dice: Dice) -> list[Event]:
        events = self._decide_leave(state, command, dice)
        f = state.fighter(find_name(state.names(), command.who))
        if f.action is not None:
            events.append(ActionCancelled(who=f.name, action=f.action.name, reason=f"{f.name} leaves the fight"))
        return events

    @applies(Healed)
    def _healed(self, state: CrisisState, event: Healed) -> None:
        f = state.fighters[event.who]
        f.health += event.to_health
        f.endurance += event.to_endurance

    @decides(StartRound)
    def _start_turn(self, state: CrisisState, command: StartRound, dice: Dice) -> list[Event]:
        if state.in_turn:
            raise RuleViolation(
                f"turn {state.turn} is still under way: `skirmish next` through it or `skirmish upkeep`", R_ORDER
            )
        if not state.fighters:
            raise RuleViolation("no combatants yet: add some with `skirmish add NAME --stat ...`")
        turn = state.turn + 1
        surprise = self._surprisers(state, command)
        each_turn = state.options["turn-order"] == "each-turn"
        # Turn Order: every *involved* character rolls: the dead and those who left do not
        # (a dead one keeps its place; one who left and never rolled rolls on its return).
        to_roll = [f for f in state.fighters.values() if (f.order is None or each_turn) and not (f.dead or f.left)]
        rolled_names = {f.name.lower() for f in to_roll}
        for key in command.rolls:
            name = key.lower()
            if name not in rolled_names and name in {n.lower() for n in state.names()}:
                f = state.fighter(find_name(state.names(), name))
                if f.dead or f.left:
                    why = "is dead" if f.dead else "has left the fight"
                    raise RuleViolation(f"{f.name} {why}: it rolls no turn order", R_ORDER)
                raise RuleViolation(
                    f"{find_name(state.names(), name)}'s turn order was rolled when the crisis began "
                    "(option turn-order=once)", R_ORDER,
                )
        totals = {f.name: _order_total(f, dice.roll(f.name, 3, 6)) for f in to_roll}
        orders = {f.name: totals[f.name].value if f.name in totals else f.order for f in state.fighters.values()}
        sequence, rerolls = _settle_order(state, orders, dice)
        rolls = tuple(OrderRoll(name, total, rerolls.get(name, ())) for name, total in totals.items())
        # A re-roll between combatants who were not rolled this turn is recorded too.
        rolls += tuple(
            OrderRoll(name, Derivation(orders[name] or 0, "turn order rolled earlier", rule=R_ORDER), faces)
            for name, faces in rerolls.items() if name not in totals
        )
        # Actions: the dead and those who left gain nothing; listed only when that changes
        # their AP (the dead lose what they had).
        gains = tuple(
            Gain(f.name, gain) for f in state.fighters.values()
            for gain in (_gain(state, f, turn, surprise),) if not ((f.dead or f.left) and gain.value == f.ap)
        )
        acting = state.first_able(sequence, turn, surprise)
        return [TurnStarted(turn=turn, sequence=sequence, rolls=rolls, gains=gains, acting=acting, surprise=surprise,
                            budgets=True)]

    def _surprisers(self, state: CrisisState, command: StartRound) -> tuple[str, ...]:
        raw = command.details.get("surprise")
        if raw is None:
            return ()
        if state.turn > 0:
            raise RuleViolation("a surprise round comes before combat starts: only on the first turn", R_SURPRISE)
        names = tuple(dict.fromkeys(find_name(state.names(), n.strip()) for n in raw.split(",") if n.strip()))
        if not names:
            raise BadInput("--with surprise= takes the attackers' names, e.g. surprise=Jack,Mira")
        if len(names) == len(state.fighters):
            raise RuleViolation("a surprise round needs someone who has not noticed the attackers", R_SURPRISE)
        return names

    @decides(Next)
    def _next(self, state: CrisisState, command: Next, dice: Dice) -> list[Event]:
        _need_turn(state)
        if state.acting is None:
            return self._end_turn(state)
        _no_hit_waiting([state.fighter(state.acting)])
        to = state.after_acting()
        passed: list[Event] = [TurnPassed(by=state.acting, to=to)]
        return passed if to is not None else passed + self._end_turn(state)

    def _end_turn(self, state: CrisisState) -> list[Event]:
        events: list[Event] = []
        for f in state.fighters.values():
            c = f.conditions.get("stunned")
            if c is not None and c.until is not None and c.until <= state.turn:
                events.append(ConditionEnded(who=f.name, kind="stunned", reason=f"turn {state.turn} is over"))
        return [*events, TurnEnded(turn=state.turn)]

    @decides(Declare)
    def _declare(self, state: CrisisState, cmd: Declare, dice: Dice) -> list[Event]:
        _need_turn(state)
        f = state.fighter(find_name(state.names(), cmd.who))
        action = cmd.action.lower()
        if action not in ACTIONS:
            raise BadInput(f"no action {cmd.action!r} in the crisis table ({suggest(action, list(ACTIONS))})")
        if action != "attack":
            extra = [k for k in cmd.details if k in ATTACK_DETAILS]
            if extra:
                raise BadInput(f"--with {extra[0]}= goes with attack only")
            if cmd.target is not None and action not in ("use-item", "custom"):
                raise BadInput(f"{action} takes no --target")
        if f.left:
            raise has_left(f.name)
        if f.dead:
            raise RuleViolation(f"{f.name} is dead", R_DAMAGE)
        if state.stunned(f):
            raise RuleViolation(f"{f.name} is stunned and cannot act this turn", R_CONDITIONS)
        if f.name != state.acting:
            now = f"{state.acting} acts now" if state.acting else "nobody is left to act this turn"
            raise RuleViolation(f"not {f.name}'s turn: {now}", R_ORDER)
        events: list[Event] = []
        if f.action is not None:
            if f.action.kind == "hit":
                raise RuleViolation(_hit_waiting(f), R_DAMAGE)
            events.append(ActionCancelled(
                who=f.name, action=f.action.name,
                reason=f"interrupted by {action}: an action over 6 AP ends when another is taken ({R_ACTIONS})",
            ))
        cost = _cost(action, cmd.ap)
        spans = cost.value > AP_MAX
        if spans and f.ap < 1:
            raise RuleViolation(f"{f.name} has no AP left to start {action}", R_ACTIONS)
        if not spans and cost.value > f.ap:
            raise RuleViolation(f"{f.name} has {f.ap} AP left, {action} needs {cost.value}", R_ACTIONS)
        if action == "stand-up" and not f.has("prone"):
            raise RuleViolation(f"{f.name} is not prone", R_TABLE)
        target = find_name(state.names(), cmd.target) if cmd.target is not None else None
        paid = f.ap if spans else cost.value
        distance = _distance(state, f, action)
        what = cmd.details.get("what")
        if action != "attack":
            events.append(ActionTaken(who=f.name, action=action, cost=cost, paid=paid, spans=spans,
                                      target=target, distance=distance, what=what))
            if action == "stand-up":
                events.append(ConditionEnded(who=f.name, kind="prone", reason="stood up"))
            return events
        if target is None:
            raise BadInput("an attack needs --target WHO")
        return [*events, *self._attack(state, f, state.fighter(target), cost, cmd, dice)]

    def _attack(
        self, state: CrisisState, f: Fighter, target: Fighter, cost: Derivation, cmd: Declare, dice: Dice
    ) -> list[Event]:
        if target.name == f.name:
            raise RuleViolation(f"{f.name} cannot attack itself", R_ATTACK)
        if target.dead:
            raise RuleViolation(f"{target.name} is dead", R_DAMAGE)
        ranged = cmd.details.get("range", "melee") == "ranged"
        if not ranged and f.has("prone"):
            raise RuleViolation(f"{f.name} is prone and cannot melee attack", R_CONDITIONS)
        cover = COVER[cmd.details.get("cover", "none")]
        if cover is None:
            raise RuleViolation(f"{target.name} is in total cover from {f.name}: unhittable", R_COVER)
        defence = defence_vs_ranged(target, cover, cmd) if ranged else defence_vs_melee(target, cover, cmd)
        roll = dice.roll(f.name, 3, 6)
        terms = [Term("3d6", roll.total)]
        for key, name in (("skill", "skill"), ("ability", "ability"), ("hit", "weapon hit"), ("circumstance", "circumstance")):
            terms.append(Term(name, detail_int(cmd, key)))
        if f.has("drunk"):
            terms += [Term("drunk: skill", DRUNK), Term("drunk: ability", DRUNK)]
        value = sum(t.value for t in terms)
        attack = Derivation(value, "3d6 + skill + ability + hit + circumstance", tuple(terms), R_ATTACK, roll)
        hit = value > defence.value or (value == defence.value and state.options["hit-on-tie"] == "yes")
        return [
            ActionTaken(who=f.name, action="attack", cost=cost, paid=cost.value, target=target.name,
                        what=cmd.details.get("what")),
            AttackRolled(who=f.name, target=target.name, attack=attack, defence=defence, hit=hit),
        ]

    @decides(Resolve)
    def _resolve(self, state: CrisisState, cmd: Resolve, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        a = f.action
        if a is None:
            raise RuleViolation(f"{f.name} has no action under way to resolve", R_ACTIONS)
        if a.kind == "hit":
            if cmd.hits is None:
                raise BadInput(f"{f.name}'s hit on {a.target} needs its damage: --hits N (the weapon's damage)")
            assert a.target is not None
            target = state.fighter(a.target)
            if target.dead:
                return [ActionCancelled(who=f.name, action=a.name, reason=f"{target.name} is already dead")]
            return [self._damage(state, target, cmd.hits, cmd, by=f.name)]
        if cmd.hits is not None or cmd.details:
            raise BadInput(f"{f.name}'s {a.name} deals no damage: resolve {quote(f.name)} alone carries it on")
        _need_turn(state)
        if f.name != state.acting:
            raise RuleViolation(f"not {f.name}'s turn: {a.name} is carried on in its own turn", R_ORDER)
        if f.ap < 1:
            raise RuleViolation(f"{f.name} has no AP to put into {a.name}", R_ACTIONS)
        paid = min(f.ap, a.cost - a.progress)
        return [ActionProgressed(who=f.name, action=a.name, paid=paid, progress=a.progress + paid, cost=a.cost)]

    def _damage(self, state: CrisisState, f: Fighter, weapon: int, cmd: Resolve | Damage, by: str | None) -> DamageTaken:
        if weapon < 0:
            raise BadInput(f"damage is 0 or more, not {weapon}")
        if f.dead:
            raise RuleViolation(f"{f.name} is already dead", R_DAMAGE)
        critical = cmd.details.get("critical") == "yes"
        terms = [Term("critical damage" if critical else "weapon damage", weapon),
                 Term("ability", detail_int(cmd, "ability")), Term("circumstance", detail_int(cmd, "circumstance"))]
        if by is not None and state.fighter(by).has("drunk"):
            terms.append(Term("drunk: ability", DRUNK))
        value = max(0, sum(t.value for t in terms))
        amount = Derivation(value, "damage + ability + circumstance, at least 0", tuple(terms),
                            R_CRITICAL if critical else R_DAMAGE)
        return _apply_damage(state, f, amount, critical, by)

    @decides(ApplyEffect)
    def _condition(self, state: CrisisState, cmd: ApplyEffect, dice: Dice) -> list[Event]:
        kind = cmd.kind.lower()
        if cmd.who.lower() == "scene":
            raise RuleViolation("crisis keeps no scene counters: conditions are on combatants", R_CONDITIONS)
        f = state.fighter(find_name(state.names(), cmd.who))
        if kind not in CONDITIONS and not cmd.custom and not f.has(kind):
            raise BadInput(f"no condition {cmd.kind!r} in crisis ({suggest(kind, list(CONDITIONS))})")
        if cmd.end:
            if not f.has(kind):
                raise RuleViolation(f"{f.name} is not {kind}", R_CONDITIONS)
            return [ConditionEnded(who=f.name, kind=kind, reason="ended by the GM")]
        if f.has(kind):
            raise RuleViolation(f"{f.name} is already {kind}", R_CONDITIONS)
        if kind != "stunned":
            return [ConditionSet(who=f.name, kind=kind)]
        # Conditions, Stunned: the next turn start brings no AP; acting stops for the rest of
        # this turn, or through the next one too (option stun). Between turns it is the next.
        coming = state.turn + 1
        until = state.turn if state.in_turn and state.options["stun"] == "rest-of-turn" else coming
        return [ConditionSet(who=f.name, kind=kind, until=until, no_gain_turn=coming)]

    # --- view and narration ----------------------------------------------------------------

    def view(self, state: CrisisState) -> View:
        fighters = state.fighters
        # Acting order: this turn's order (Turn Order), the dead in their places; those who
        # joined since it was rolled after, in the order they were added.
        placed = set(state.sequence)
        ordered = [fighters[n] for n in state.sequence]
        ordered += [f for f in fighters.values() if f.name not in placed]
        now = (state.acting,) if state.acting is not None else ()
        # Between turns the next to act is not known: the next turn's start settles it.
        after = state.after_acting() if state.in_turn else None
        clock = Clock(
            round=state.turn, unit="turn", running=state.in_turn, moment=_moment(state), now=now,
            next=(after,) if after is not None else (), own=CrisisClock(surprise_round=bool(state.surprise)),
        )
        combatants = tuple(
            Combatant(
                name=f.name, side=f.side, status="left" if f.left else "dead" if f.dead else "fighting",
                acting=f.name == state.acting,
                vital=Gauge(name="Health", value=f.health, maximum=f.stats["health"]),
                # Damage: Endurance takes damage first, and at 0 halves the AP gain: shown beside Health.
                vital2=Gauge(name="Endurance", value=f.endurance, maximum=f.stats["endurance"]),
                # What it had this turn: AP carry and only payments lower them within it.
                budget=Budget(name="AP", left=f.ap, of=f.ap + f.spent if state.budgets else AP_MAX),
                effects=tuple(_effect(state, c) for c in f.conditions.values()),
                own=CrisisFigures(turn_order=f.order, ap_spent=f.spent, endurance=f.endurance, durability=f.durability),
            )
            for f in ordered
        )
        pending = tuple(
            Pending(
                who=f.name, action=f.action.name, target=f.action.target,
                resolves="awaits damage" if f.action.kind == "hit" else "spans turns",
                own=CrisisPending(ap=f.action.cost, progress=f.action.progress),
            )
            for f in ordered if f.action is not None
        )
        return View(clock=clock, combatants=combatants, pending=pending)

    def harm(self, event: Event) -> Harm | None:
        # Damage reduces Endurance, then Health (crisis.md, Damage): what was taken is both,
        # after armour's DR; the attacker is recorded on the event.
        match event:
            case DamageTaken(who=who, to_endurance=end, to_health=health, by=by):
                return Harm(who=who, amount=end + health, unit="Endurance and Health", by=by)
            case Healed(who=who, to_endurance=end, to_health=health):
                return Harm(who=who, amount=end + health, unit="Endurance and Health", heal=True)
        return None

    def describe(self, event: Event) -> str:
        match event:
            case TurnStarted(turn=turn, sequence=sequence, rolls=rolls, gains=gains, acting=acting, surprise=surprise):
                kind = f"a surprise round for {', '.join(surprise)}; " if surprise else ""
                order = ", ".join(
                    f"{r.who} {r.total.value}" + (f" (re-roll {', '.join(str(x.total) for x in r.rerolls)})"
                                                  if r.rerolls else "") for r in rolls
                )
                ap = ", ".join(f"{g.who} {g.ap.value}" for g in gains)
                rolled = f"; turn order rolled: {order}" if order else ""
                return (f"Turn {turn} begins: {kind}order {', '.join(sequence)}{rolled}; AP {ap}; "
                        + (f"{acting} acts" if acting else "nobody can act"))
            case TurnPassed(by=by, to=to):
                return f"{by} is done; {to} acts" if to else f"{by} is done: everyone has acted"
            case ActionTaken(who=who, action=action, cost=cost, paid=paid, spans=spans, target=target,
                             distance=distance, what=what):
                on = f" on {target}" if target else ""
                name = f"{action} ({what})" if what else action
                far = f", up to {distance.shown()} m" if distance else ""
                if spans:
                    return f"{who} starts {name}{on}: {cost.value} AP over several turns, {paid} put in now"
                return f"{who} acts: {name}{on} ({paid} AP{far})"
            case AttackRolled(who=who, target=target, attack=attack, defence=defence, hit=hit):
                return (f"{who} attacks {target}: {attack.value} against defence {defence.value}: "
                        + ("hit" if hit else "miss"))
            case ActionProgressed(who=who, action=action, paid=paid, progress=progress, cost=cost):
                tail = ": done" if event.done else ""
                return f"{who} puts {paid} AP into {action} ({progress} of {cost}){tail}"
            case ActionCancelled(who=who, action=action, reason=reason):
                return f"{who}'s {action} is cancelled: {reason}"
            case Healed(who=who, amount=amount, to_health=health, to_endurance=end):
                parts = [f"{n} {what}" for n, what in ((health, "Health"), (end, "Endurance")) if n]
                return f"{who} is healed {amount.value} ({', '.join(parts)})"
            case DamageTaken(who=who, amount=amount, taken=taken, to_endurance=end, to_health=health,
                             endurance_left=end_left, health_left=health_left, durability_lost=lost, critical=critical):
                parts = [f"{end} to Endurance ({end_left} left)"] if end else []
                parts += [f"{health} to Health ({health_left} left)"] if health or critical else []
                off = "".join(f", {t.name} {t.value:+d}" for t in taken.terms[1:])
                armour = f", armour loses {lost} Durability" if lost else ""
                crit = "critical " if critical else ""
                down = "; dead" if health_left <= 0 else "; Endurance spent: 2 AP a turn" if end and end_left == 0 else ""
                return f"{who} takes {amount.value} {crit}damage: {', '.join(parts) or 'none'}{off}{armour}{down}"
            case ConditionSet(who=who, kind=kind, until=until):
                return f"{who} is {kind}" + (f" (cannot act through turn {until})" if until is not None else "")
            case ConditionEnded(who=who, kind=kind, reason=reason):
                return f"{who} is no longer {kind} ({reason})"
            case TurnEnded(turn=turn):
                return f"Turn {turn} ends"
        return type(event).__name__


# --- helpers -------------------------------------------------------------------------------


def _need_turn(state: CrisisState) -> None:
    if not state.in_turn:
        raise RuleViolation("no turn under way: start one with `skirmish round`", R_ORDER)


def _hit_waiting(f: Fighter) -> str:
    assert f.action is not None
    return (f"{f.name}'s hit on {f.action.target} awaits its damage: "
            f"`skirmish resolve {quote(f.name)} --hits N` or `skirmish cancel {quote(f.name)}`")


def _no_hit_waiting(fighters: Iterable[Fighter]) -> None:
    for f in fighters:
        if f.action is not None and f.action.kind == "hit":
            raise RuleViolation(_hit_waiting(f), R_DAMAGE)


def _order_total(f: Fighter, roll: Roll) -> Derivation:
    # Turn Order: 3d6 + Intelligence + Speed + circumstance (perks, flaws, race).
    terms = (Term("3d6", roll.total), Term("Intelligence", f.figure("int")), Term("Speed", f.figure("speed")),
             Term("circumstance", f.stats["order-bonus"]))
    return Derivation(sum(t.value for t in terms), "3d6 + Intelligence + Speed + circumstance", terms, R_ORDER, roll)


def _settle_order(
    state: CrisisState, orders: dict[str, int | None], dice: Dice
) -> tuple[tuple[str, ...], dict[str, tuple[Roll, ...]]]:
    """Highest first; ties by Intelligence, then Speed, then re-rolls among the still tied."""
    ranked = [state.fighter(n) for n, o in orders.items() if o is not None]

    def key(f: Fighter) -> tuple[int, int, int]:
        return (orders[f.name] or 0, f.figure("int"), f.figure("speed"))

    groups: dict[tuple[int, int, int], list[str]] = {}
    for f in ranked:
        groups.setdefault(key(f), []).append(f.name)
    rerolls: dict[str, list[Roll]] = {}
    sequence: list[str] = []
    placed = {name: i for i, name in enumerate(state.sequence)}
    for k in sorted(groups, reverse=True):
        tied = groups[k]
        if all(name in placed for name in tied) and len(tied) > 1:
            # Settled when their order was rolled (option turn-order=once): not again.
            sequence += sorted(tied, key=placed.__getitem__)
        else:
            # The dead and those who left keep their place but roll no more (Turn Order:
            # every *involved* character rolls): the others settle the tie, before them.
            gone = [n for n in tied if state.fighter(n).dead or state.fighter(n).left]
            sequence += _reroll([n for n in tied if n not in gone], dice, rerolls)
            sequence += sorted(gone, key=lambda n: placed.get(n, len(placed)))
    return tuple(sequence), {n: tuple(r) for n, r in rerolls.items()}


def _reroll(tied: list[str], dice: Dice, rerolls: dict[str, list[Roll]]) -> list[str]:
    """Turn Order: "if there is still a tie, roll again", as often as it takes."""
    if len(tied) == 1:
        return tied
    results: dict[int, list[str]] = {}
    for name in tied:
        done = rerolls.setdefault(name, [])
        roll = dice.roll(f"{name}-reroll" + (str(len(done) + 1) if done else ""), 3, 6)
        done.append(roll)
        results.setdefault(roll.total, []).append(name)
    return [n for total in sorted(results, reverse=True) for n in _reroll(results[total], dice, rerolls)]


def _gain(state: CrisisState, f: Fighter, turn: int, surprise: tuple[str, ...]) -> Derivation:
    # Actions: +4 at the start of each turn, capped at 6; Damage: 2 once Endurance is 0;
    # Conditions: none while stunned; Surprise Round: only the attackers gain in it.
    if f.dead:
        gain, why = -f.ap, "dead: no AP"
    elif f.left:
        gain, why = 0, "has left the fight"
    elif surprise and f.name not in surprise:
        gain, why = 0, "surprised"
    elif f.no_gain_turn == turn:
        gain, why = 0, "stunned: no AP regained"
    elif f.endurance <= 0:
        gain, why = AP_PER_TURN_EXHAUSTED, "Endurance 0"
    else:
        gain, why = AP_PER_TURN, "start of turn"
    over = max(0, f.ap + gain - AP_MAX)
    terms = (Term("AP left", f.ap), Term(why, gain), Term("over 6, lost", -over))
    rule = R_CONDITIONS if why.startswith("stunned") else R_DAMAGE if why.startswith(("Endurance", "dead")) else R_ACTIONS
    return Derivation(f.ap + gain - over, "AP left + turn's gain, at most 6", terms, rule)


def _cost(action: str, ap: int | None) -> Derivation:
    table = ACTIONS[action]
    if ap is None:
        if table is None:
            raise BadInput(f"{action} needs --ap N, the AP it takes")
        return Derivation(table, f"{action}: the table's cost", rule=R_TABLE)
    if ap < 1:
        raise BadInput(f"an action takes 1 AP or more, not {ap}")
    return Derivation(ap, f"{action} at {ap} AP, as stated for it", rule=R_TABLE)


def _distance(state: CrisisState, f: Fighter, action: str) -> Derivation | None:
    if action not in ("move", "sneak"):
        return None
    speed = f.figure("speed")
    if action == "move":
        return Derivation(max(0, speed + 5), "Speed + 5 m", (Term("Speed", speed), Term("base", 5)), R_TABLE)
    # The text never rounds a half (Available Actions, Sneak): kept exact, in half metres.
    if state.options["sneak"] == "half-speed":
        return Derivation(max(0, speed + 10), "Speed / 2 + 5 m (option sneak)",
                          (Term("Speed", speed), Term("base", 5)), R_TABLE, per=2)
    return Derivation(max(0, speed + 5), "(Speed + 5) / 2 m (option sneak)",
                      (Term("Speed", speed), Term("base", 5)), R_TABLE, per=2)


def _defence(base: list[Term], target: Fighter, cover: int, cmd: Declare, formula: str, rule: str) -> Derivation:
    terms = [Term("base", 10), *base, Term("armour", target.stats["armour"]),
             Term("circumstance", detail_int(cmd, "defence"))]
    if cover:
        terms.append(Term("cover", cover))
    return Derivation(sum(t.value for t in terms), formula, tuple(terms), rule)


def defence_vs_melee(target: Fighter, cover: int, cmd: Declare) -> Derivation:
    """Melee Combat: 10 + Melee + Might + armour + circumstance, -2 per enemy beyond the first."""
    enemies = detail_int(cmd, "enemies", 1)
    if enemies < 1:
        raise BadInput(f"--with enemies= counts the attacker too: 1 or more, not {enemies}")
    base = [Term("Melee", target.figure("melee")), Term("Might", target.figure("might"))]
    if enemies > 1:
        base.append(Term(f"{enemies - 1} more enemies in melee range", PER_EXTRA_ENEMY * (enemies - 1)))
    return _defence(base, target, cover, cmd, "10 + Melee + Might + armour + circumstance - 2 per extra enemy", R_MELEE)


def defence_vs_ranged(target: Fighter, cover: int, cmd: Declare) -> Derivation:
    """Ranged Combat: 10 + Speed + armour + circumstance."""
    if "enemies" in cmd.details:
        raise BadInput("--with enemies= counts enemies in melee range: it goes with range=melee")
    return _defence([Term("Speed", target.figure("speed"))], target, cover, cmd,
                    "10 + Speed + armour + circumstance", R_RANGED)


def _apply_damage(state: CrisisState, f: Fighter, amount: Derivation, critical: bool, by: str | None) -> DamageTaken:
    """Damage: Endurance first, then Health; armour with Durability left takes off its DR."""
    dr, durable = f.stats["dr"], f.durability > 0
    health_only = state.options["armour-dr"] == "health-only"
    value = amount.value
    terms = [Term("damage", value)]
    if durable and dr and (critical or not health_only):
        cut = min(dr, value)
        terms.append(Term("armour DR", -cut))
        value -= cut
    if critical:
        # Critical damage: all of it to Health.
        to_end, reaching = 0, value
    else:
        to_end = min(value, f.endurance)
        reaching = value - to_end
        if reaching and f.endurance > 0 and state.options["spill"] == "no":
            terms.append(Term("past emptied Endurance, lost (option spill)", -reaching))
            reaching = 0
    to_health = reaching
    if health_only and durable and dr and reaching and not critical:
        cut = min(dr, reaching)
        terms.append(Term("armour DR on Health (option armour-dr)", -cut))
        to_health -= cut
    engaged = durable and (critical or not health_only or reaching > 0)
    lost = min(f.durability, 2 if critical else 1) if engaged else 0  # Critical damage: 2, not 1
    rule = R_CRITICAL if critical else R_DAMAGE
    taken = Derivation(to_end + to_health, "damage - armour DR while Durability lasts", tuple(terms), rule)
    return DamageTaken(
        who=f.name, amount=amount, taken=taken, to_endurance=to_end, to_health=to_health, durability_lost=lost,
        endurance_left=f.endurance - to_end, health_left=f.health - to_health, critical=critical, by=by,
    )


RULESET: Ruleset[CrisisState] = Crisis()
