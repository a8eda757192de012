"""The modular ruleset: six-second rounds of turns in initiative order, each turn movement plus three action slots.

Rules text: shared/rules/modular.md. The text has one heading, "Combat Rules"; citations
name it and the paragraph they rely on ("modular.md, Combat Rules, Evade"). The clock is
whose turn it is: ``round`` rolls initiative (1d100 + Agility) for everyone and starts
the first turn, ``next`` ends the turn and starts the next one, and after the last turn
runs the upkeep. On its turn a combatant may move up to its Speed in any number of
``move`` declarations (difficult terrain counts double) and take one primary, one
secondary and one tertiary action; each is recorded when declared (the GM reads any
skill check's result off the dice and records damage with ``damage``).

Open points of the text, each an option recorded in the encounter's first event:

- ``initiative-ties`` (default ``agility``): the text orders initiative from greatest to
  least and says nothing of ties. ``agility``: the higher Agility goes first (the figure
  the formula already counts as readiness); combatants still tied roll off with 1d100,
  higher first, again until settled. ``roll-off``: tied combatants roll off at once.
  Roll-off dice can be typed like any other: ``--roll tie:Hauser=40`` (a second roll-off
  ``tie2:Hauser``, and so on).
- ``goes-down`` (default ``at-0``): the text gives no health (see below), so nothing in
  it says when a combatant goes down: at 0 health left or less (``below-0``: below 0;
  ``never``: the GM takes combatants out with ``leave``). A down combatant rolls no
  initiative and its turn is passed by; its declarations are refused; the damage that
  downs it drops its pending Ready. ``heal`` (never above its health) brings it back,
  from its next turn (the next round, if this round's order was rolled without it).
- ``secondary-list`` (default ``secondary``): the list under "Secondary actions" is
  introduced as "options for primary actions". The paragraph is about secondary actions
  and describes each of them as quick, so five-foot step, retrieve, stash and use item
  are secondary actions by default; ``primary`` takes the sentence literally.

Readings chosen where the text is silent:

- Speed is a stat override for quirks and perks (``--stat speed=N``, at least 5 feet);
  without it, 30 + 5 x floor(Agility / 10). ``init-bonus`` adds quirks' and perks' bonus
  to initiative.
- A combatant acts on its own turn only; slots and movement are per round (each
  combatant has one turn a round). A combatant added during a round acts from the next.
- The text gives no health; combat still needs a figure for who is going down, so each
  combatant has ``health`` and ``damage`` records what the GM reads off the tables.
- Dash doubles the round's movement (Speed x 2, overrides included); movement before the
  Dash counts against that total.
- Ready takes the primary slot and holds the courses of play (``--with then=...`` and
  ``--with else=...``, each actions joined by ``+``, e.g. ``skill+drop-item+move``). Each
  course has exactly one primary action (not Ready) and at most one secondary and one
  tertiary; a secondary, tertiary or ``move`` may be named only if still unused, and is
  then held for the Ready (the combatant cannot use it elsewhere this turn). A course's
  movement is the movement left when Ready was taken, plus Speed if its primary is Dash.
  ``resolve WHO`` plays the triggered course at once, in anyone's turn or between rounds;
  ``resolve WHO --with course=untriggered`` plays the other. When the readied
  combatant's next turn would start with the Ready still pending, ``round``/``next``
  refuse and say to play the other course first. ``cancel WHO`` drops a Ready; its slots
  stay spent.
- Statuses: ``left`` after ``leave`` (its Ready dropped; back with ``return``, from the
  next round), ``down`` as ``goes-down`` says, otherwise ``fighting``.
- The text names no conditions: every effect is the GM's own (``effect WHO KIND --rounds
  N --custom``); a kind already on the table is taken again without ``--custom``.
- Evade lasts until the combatant's next turn starts (in the next round, as initiative is
  re-rolled) or until the combat ends: ``upkeep --with combat=over`` ends the combat at
  any moment, mid-round too, and with it every Evade and pending Ready; no round starts
  after it.
- ``upkeep`` (or ``next`` after the last turn) ends the round: timed effects (``effect
  WHO KIND --rounds N``) lose a round each, one event per tick. ``upkeep`` is refused
  while turns remain: ``next`` skips a turn.
"""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (README: Speed).

from shlex import quote
from typing import Literal

import msgspec

from skirmish.eventlog.commands import (
    CarriedEffect,
    ApplyEffect,
    Heal,
    Leave,
    Cancel,
    Damage,
    Declare,
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
    GOES_DOWN,
    GOES_DOWN_OPTION,
    ActionInfo,
    Detail,
    Dice,
    Flag,
    GoesDown,
    Harm,
    Option,
    Rules,
    Ruleset,
    Stat,
    applies,
    decides,
    detail_int,
    find_name,
    is_down,
    options_in_force,
    suggest,
    why_down,
)
from skirmish.projections.view import Budget, Clock, Combatant, Gauge, Own, Pending, Status, View
from skirmish.projections.view import Effect as Effect_

RULES = "modular.md"
R_COMBAT = f"{RULES}, Combat Rules"
R_SPEED = f"{R_COMBAT}, Speed"
R_INIT = f"{R_COMBAT}, Initiative"
R_TURN = f"{R_COMBAT}, Turn"
R_MOVE = f"{R_COMBAT}, Movement"
R_TERRAIN = f"{R_COMBAT}, Difficult terrain"
R_PRIMARY = f"{R_COMBAT}, Primary actions"
R_DASH = f"{R_COMBAT}, Dash"
R_EVADE = f"{R_COMBAT}, Evade"
R_READY = f"{R_COMBAT}, Ready"
R_SECONDARY = f"{R_COMBAT}, Secondary actions"
R_STEP = f"{R_COMBAT}, Five Foot Step"
R_TERTIARY = f"{R_COMBAT}, Tertiary actions"

BASE_SPEED = 30  # Speed = 30 + 5 x floor(Agility / 10) (Combat Rules, Speed)
SPEED_PER_STEP = 5
AGILITY_STEP = 10
TIE = "tie"

Slot = Literal["primary", "secondary", "tertiary"]
SLOTS: tuple[Slot, ...] = ("primary", "secondary", "tertiary")
MOVE = "move"
READY = "ready"
DASH = "dash"
EVADE = "evade"
SECONDARY_LIST = ("five-foot-step", "retrieve-item", "stash-item", "use-item")
# The action table (Combat Rules): action -> its slot and the paragraph it comes from.
ACTIONS: dict[str, tuple[Slot, str]] = {
    "skill": ("primary", R_PRIMARY),
    DASH: ("primary", R_DASH),
    EVADE: ("primary", R_EVADE),
    READY: ("primary", R_READY),
    "secondary-skill": ("secondary", R_SECONDARY),
    "five-foot-step": ("secondary", R_STEP),
    "retrieve-item": ("secondary", R_SECONDARY),
    "stash-item": ("secondary", R_SECONDARY),
    "use-item": ("secondary", R_SECONDARY),
    "tertiary-skill": ("tertiary", R_TERTIARY),
    "drop-item": ("tertiary", R_TERTIARY),
}


# --- state -------------------------------------------------------------------------------


class Course(msgspec.Struct, frozen=True):
    """One course of play of a Ready: one primary, optional secondary, tertiary and movement."""

    primary: str
    secondary: str | None = None
    tertiary: str | None = None
    move: bool = False

    def words(self) -> str:
        parts = [self.primary, self.secondary, self.tertiary, MOVE if self.move else None]
        return "+".join(p for p in parts if p)


class Held(msgspec.Struct, frozen=True):
    """A pending Ready: its trigger, its two courses and the movement held for them."""

    trigger: str
    then: Course
    otherwise: Course
    feet: int
    round: int


class Effect(msgspec.Struct):
    kind: str
    rounds: int


class Fighter(msgspec.Struct):
    name: str
    side: str
    agility: int
    dodge: int
    health: int
    speed_override: int
    init_bonus: int
    damage: int = 0
    initiative: int | None = None
    feet_moved: int = 0
    dashed: bool = False
    primary: str | None = None
    secondary: str | None = None
    tertiary: str | None = None
    held_feet: int = 0  # movement held for a Ready's courses this round
    ready: Held | None = None
    evade: int | None = None  # the evading dodge class, while Evade lasts
    effects: list[Effect] = []
    left: bool = False  # has left the fight (`leave`); back with `return`

    def slot(self, slot: Slot) -> str | None:
        used: str | None = getattr(self, slot)
        return used

    @property
    def speed(self) -> int:
        return self.speed_override or speed_of(self.agility)

    @property
    def movement(self) -> int:
        """The round's movement allowance: Speed, doubled by a Dash (Combat Rules, Dash)."""
        return self.speed * (2 if self.dashed else 1)

    @property
    def feet_left(self) -> int:
        return max(0, self.movement - self.feet_moved - self.held_feet)


class ModularState(msgspec.Struct):
    """Mutable: the fold applies events to a working copy in place (Rules.apply)."""

    options: dict[str, str]
    seed: int
    round: int = 0
    in_round: bool = False
    order: tuple[str, ...] = ()
    turn: int | None = None  # index into order of whose turn it is
    over: bool = False
    fighters: dict[str, Fighter] = {}  # by name, in the order they were added

    def names(self) -> list[str]:
        return list(self.fighters)

    def fighter(self, name: str) -> Fighter:
        return self.fighters[name]

    @property
    def current(self) -> str | None:
        return self.order[self.turn] if self.turn is not None else None


class ModularFigures(Own, frozen=True, kw_only=True):
    """A combatant's figures under modular beside the view's core (health left is its
    vital figure, slots left its budget)."""

    initiative: int | None
    speed: int
    movement: int
    feet_moved: int
    feet_left: int
    primary: str | None
    secondary: str | None
    tertiary: str | None
    may_still: str
    dodge_class: int
    health: int
    damage: int


class ReadyFigures(Own, frozen=True, kw_only=True):
    """A pending Ready's two courses of play and the movement held for them."""

    then: str
    otherwise: str = msgspec.field(name="else")
    feet_held: int
    declared_round: int


class ModularClock(Own, frozen=True, kw_only=True):
    order: str | None  # this round's initiative order with each figure
    combat_over: bool


def speed_of(agility: int) -> int:
    return BASE_SPEED + SPEED_PER_STEP * (agility // AGILITY_STEP)


# --- events ------------------------------------------------------------------------------


class Initiative(msgspec.Struct, frozen=True):
    who: str
    value: Derivation
    speed: Derivation | None = None  # the round's Speed, quirks and perks included


class TieBreak(msgspec.Struct, frozen=True):
    """A roll-off between combatants tied on initiative: higher goes first."""

    who: str
    attempt: int
    roll: Roll


class RoundStarted(Event, frozen=True, tag="modular.round-started"):
    round: int
    initiatives: tuple[Initiative, ...]
    order: tuple[str, ...]
    ties: tuple[TieBreak, ...] = ()
    tie_rule: str = ""


class TurnStarted(Event, frozen=True, tag="modular.turn-started"):
    who: str
    index: int


class EvadeEnded(Event, frozen=True, tag="modular.evade-ended"):
    who: str
    reason: str


class Moved(Event, frozen=True, tag="modular.moved"):
    who: str
    feet: int
    cost: Derivation
    left: Derivation


class ActionTaken(Event, frozen=True, tag="modular.action-taken"):
    who: str
    action: str
    slot: Slot
    rule: str
    target: str | None = None
    skill: str | None = None
    movement: Derivation | None = None  # Dash: the round's movement allowance
    dodge: Derivation | None = None  # Evade: the evading dodge class


class ReadyDeclared(Event, frozen=True, tag="modular.ready-declared"):
    who: str
    trigger: str
    then: Course
    otherwise: Course
    feet: int  # movement held for the courses


class ReadyResolved(Event, frozen=True, tag="modular.ready-resolved"):
    who: str
    course: Literal["triggered", "untriggered"]
    played: Course
    feet: Derivation | None = None
    movement: Derivation | None = None
    dodge: Derivation | None = None
    outcome: str | None = None


class ReadyCancelled(Event, frozen=True, tag="modular.ready-cancelled"):
    who: str
    reason: str


class DamageTaken(Event, frozen=True, tag="modular.damage-taken"):
    who: str
    amount: Derivation
    health_left: int


class HealthHealed(Event, frozen=True, tag="modular.health-healed"):
    who: str
    amount: Derivation
    health_left: int


class EffectApplied(Event, frozen=True, tag="modular.effect-applied"):
    who: str
    kind: str
    rounds: int


class EffectEnded(Event, frozen=True, tag="modular.effect-ended"):
    who: str
    kind: str
    reason: str


class UpkeepTick(Event, frozen=True, tag="modular.upkeep-tick"):
    """One timed effect loses a round at the end of the round."""

    who: str
    effect: str
    rounds_left: int
    removed: bool


class RoundEnded(Event, frozen=True, tag="modular.round-ended"):
    round: int
    combat_over: bool = False


# --- the ruleset ---------------------------------------------------------------------------


class Modular(GoesDown, Rules[ModularState]):
    id = "modular"
    state_type = ModularState
    rules_file = RULES
    vital = "health"
    round_rule = R_INIT
    options = {
        "initiative-ties": Option(
            "agility", ("agility", "roll-off"),
            "equal initiative: higher Agility first, then a 1d100 roll-off; or a roll-off at once",
        ),
        GOES_DOWN: GOES_DOWN_OPTION,
        "secondary-list": Option(
            "secondary", ("secondary", "primary"),
            "the list under Secondary actions (five-foot step, retrieve, stash, use item) "
            "is secondary, or primary as its introducing sentence says",
        ),
    }
    stats = {
        "agility": Stat("Agility: initiative 1d100 + Agility, Speed 30 + 5 x floor(Agility / 10)", minimum=0),
        "dodge": Stat("dodge class (Evade raises it by half)", minimum=0),
        "health": Stat("health the combatant can lose before going down", minimum=1),
        "speed": Stat(
            "Speed in feet set by quirks and perks (default: from Agility)", required=False, minimum=5
        ),
        "init-bonus": Stat("initiative bonus from quirks and perks", required=False),
    }
    actions = {
        MOVE: ActionInfo("movement", "--amount FEET, up to Speed a round, any number of times; "
                                     "--with terrain=difficult costs double"),
        "skill": ActionInfo("primary", "a skill check marked Primary (--with skill=NAME, --target WHO)"),
        DASH: ActionInfo("primary", "a second movement: the round's movement is twice Speed"),
        EVADE: ActionInfo("primary", "dodge class + floor(dodge class / 2) until the next turn"),
        READY: ActionInfo("primary", "--trigger TEXT --with then=COURSE --with else=COURSE "
                                     "(actions joined by +, one primary each)"),
        "secondary-skill": ActionInfo("secondary", "a skill check marked Secondary"),
        "five-foot-step": ActionInfo("secondary, see option secondary-list", "a step that is not movement and leaves Dash alone"),
        "retrieve-item": ActionInfo("secondary, see option secondary-list", "take an item from a holder, or from the ground here"),
        "stash-item": ActionInfo("secondary, see option secondary-list", "put an item back in a holder"),
        "use-item": ActionInfo("secondary, see option secondary-list", "use an item in hand that is not an attack"),
        "tertiary-skill": ActionInfo("tertiary", "a skill check marked Tertiary"),
        "drop-item": ActionInfo("tertiary", "let an item in hand fall here"),
    }
    details = {
        "terrain": Detail("difficult terrain costs double movement", ("declare", "resolve"), ("normal", "difficult")),
        "skill": Detail("the skill checked", ("declare",)),
        "then": Detail("a Ready's course if the trigger occurs, e.g. skill+drop-item+move", ("declare",)),
        "else": Detail("a Ready's course if it does not", ("declare",)),
        "course": Detail("which course of a Ready is played (default triggered)", ("resolve",),
                         ("triggered", "untriggered")),
        "feet": Detail("feet moved in a Ready's course", ("resolve",)),
        "combat": Detail("the combat ends: every Evade and pending Ready ends", ("upkeep",), ("over",)),
    }
    flags = {
        "target": Flag("whom the action is aimed at", ("declare",)),
        "trigger": Flag("a Ready's trigger (Combat Rules, Ready)", ("declare",)),
        "amount": Flag("move: feet moved, up to Speed a round (Combat Rules, Movement)", ("declare",)),
        "outcome": Flag("what the check gave, in the GM's words", ("resolve",)),
        "rounds": Flag("how many rounds the effect lasts", ("effect",)),
        "end": Flag("end the effect now", ("effect",)),
    }
    state_version = 3  # the shape of this ruleset's state: raise it when the state structs change (it keys cached snapshots)
    stat_fields = {"speed": "speed_override"}

    # --- initial / evolve ---------------------------------------------------------------

    def vital_left(self, f: Fighter) -> int:
        return f.health - f.damage

    def initial(self, started: EncounterStarted) -> ModularState:
        options = options_in_force(self, started)
        return ModularState(options=options, seed=started.seed)

    @applies(CombatantAdded)
    def _added(self, state: ModularState, event: CombatantAdded) -> None:
        stats = event.stats
        state.fighters[event.name] = Fighter(
            name=event.name, side=event.side, agility=stats["agility"], dodge=stats["dodge"],
            health=stats["health"], speed_override=stats.get("speed", 0), init_bonus=stats.get("init-bonus", 0),
        )

    @applies(CombatantCarried)
    def _carried(self, state: ModularState, event: CombatantCarried) -> None:
        f = state.fighter(event.who)
        if event.vital is not None:  # damage taken in an earlier fight (README, the party between fights)
            f.damage = f.health - event.vital

    def lasting(self, state: ModularState, who: str) -> list[CarriedEffect]:
        return []  # every effect here counts rounds, and Evade ends with its turn: none outlasts a fight

    @applies(RoundStarted)
    def _round_started(self, state: ModularState, event: RoundStarted) -> None:
        by_name = {i.who: i.value.value for i in event.initiatives}
        for f in state.fighters.values():
            f.initiative = by_name.get(f.name)
            f.feet_moved = f.held_feet = 0
            f.dashed = False
            f.primary = f.secondary = f.tertiary = None
        state.round, state.in_round, state.order, state.turn = event.round, True, event.order, None

    @applies(TurnStarted)
    def _turn_started(self, state: ModularState, event: TurnStarted) -> None:
        state.turn = event.index

    @applies(EvadeEnded)
    def _evade_ended(self, state: ModularState, event: EvadeEnded) -> None:
        state.fighters[event.who].evade = None

    @applies(Moved)
    def _moved(self, state: ModularState, event: Moved) -> None:
        state.fighters[event.who].feet_moved += event.cost.value

    @applies(ActionTaken)
    def _action_taken(self, state: ModularState, event: ActionTaken) -> None:
        f = state.fighters[event.who]
        setattr(f, event.slot, event.action)
        if event.action == DASH:
            f.dashed = True
        if event.dodge is not None:
            f.evade = event.dodge.value

    @applies(ReadyDeclared)
    def _ready_declared(self, state: ModularState, event: ReadyDeclared) -> None:
        f = state.fighters[event.who]
        courses = (event.then, event.otherwise)
        f.primary, f.held_feet = READY, event.feet
        f.ready = Held(event.trigger, event.then, event.otherwise, event.feet, state.round)
        f.secondary = f.secondary or (READY if any(c.secondary for c in courses) else None)
        f.tertiary = f.tertiary or (READY if any(c.tertiary for c in courses) else None)

    @applies(ReadyResolved)
    def _ready_resolved(self, state: ModularState, event: ReadyResolved) -> None:
        f = state.fighters[event.who]
        f.ready = None
        if event.dodge is not None:
            f.evade = event.dodge.value

    @applies(ReadyCancelled)
    def _ready_cancelled(self, state: ModularState, event: ReadyCancelled) -> None:
        state.fighters[event.who].ready = None

    @applies(DamageTaken)
    def _damage_taken(self, state: ModularState, event: DamageTaken) -> None:
        state.fighters[event.who].damage += event.amount.value

    @applies(HealthHealed)
    def _health_healed(self, state: ModularState, event: HealthHealed) -> None:
        f = state.fighters[event.who]
        f.damage = f.health - event.health_left

    @applies(EffectApplied)
    def _effect_applied(self, state: ModularState, event: EffectApplied) -> None:
        f = state.fighters[event.who]
        f.effects = [*(e for e in f.effects if e.kind != event.kind), Effect(event.kind, event.rounds)]

    @applies(EffectEnded)
    def _effect_ended(self, state: ModularState, event: EffectEnded) -> None:
        f = state.fighters[event.who]
        f.effects = [e for e in f.effects if e.kind != event.kind]

    @applies(UpkeepTick)
    def _upkeep_tick(self, state: ModularState, event: UpkeepTick) -> None:
        f = state.fighters[event.who]
        if event.removed:
            f.effects = [e for e in f.effects if e.kind != event.effect]
            return
        for e in f.effects:
            if e.kind == event.effect:
                e.rounds = event.rounds_left

    @applies(RoundEnded)
    def _round_ended(self, state: ModularState, event: RoundEnded) -> None:
        state.in_round, state.turn, state.over = False, None, state.over or event.combat_over

    # --- decide --------------------------------------------------------------------------

    @decides(Cancel)
    def _cancel(self, state: ModularState, command: Cancel, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        if f.ready is None:
            raise RuleViolation(f"{f.name} has no Ready pending to cancel", R_READY)
        return [ReadyCancelled(who=f.name, reason="cancelled by the GM; its slots stay spent")]

    @decides(Damage)
    def _damage(self, state: ModularState, command: Damage, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        if command.amount < 1:
            raise BadInput(f"damage must be at least 1, not {command.amount}")
        taken = Derivation(command.amount, "damage read off the tables by the GM", rule=R_COMBAT)
        left = f.health - f.damage - command.amount
        events: list[Event] = [DamageTaken(who=f.name, amount=taken, health_left=left)]
        if f.ready is not None and is_down(left, state.options) and not self.down(state, f):
            events.append(ReadyCancelled(who=f.name, reason=f"{f.name} is down ({why_down(left, 'health', state.options)})"))
        return events

    @decides(Heal)
    def _heal(self, state: ModularState, command: Heal, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        if command.amount < 1:
            raise BadInput(f"heal takes at least 1 health, not {command.amount}")
        if f.damage <= 0:
            raise RuleViolation(f"{f.name} has all its {f.health} health: nothing to heal")
        given = Derivation(min(command.amount, f.damage), "health given back by the GM, at most the damage taken",
                           (Term("healed", command.amount), Term("damage taken", f.damage)))
        return [HealthHealed(who=f.name, amount=given, health_left=f.health - f.damage + given.value)]

    @decides(Leave)
    def _leave(self, state: ModularState, command: Leave, dice: Dice) -> list[Event]:
        events = self._decide_leave(state, command, dice)
        f = state.fighter(find_name(state.names(), command.who))
        if f.ready is not None:
            events.append(ReadyCancelled(who=f.name, reason=f"{f.name} leaves the fight"))
        return events

    @decides(StartRound)
    def _start_round(self, state: ModularState, command: StartRound, dice: Dice) -> list[Event]:
        if state.over:
            raise RuleViolation("the combat is over: no more rounds", R_COMBAT)
        if state.in_round:
            raise RuleViolation(
                f"round {state.round} is still under way: `skirmish next` to the end of its turns", R_TURN
            )
        if not state.fighters:
            raise RuleViolation("no combatants yet: add some with `skirmish add NAME --stat ...`")
        for key in command.rolls:
            find_name(state.names(), key.split(":", 1)[1] if key.lower().startswith(TIE) and ":" in key else key)
        able = [f for f in state.fighters.values() if self.able(state, f)]
        if not able:
            raise RuleViolation("nobody can act: every combatant is down or has left")
        inits: list[Initiative] = []
        for f in able:
            roll = dice.roll(f.name, 1, 100)
            terms = (Term("1d100", roll.total), Term("Agility", f.agility), Term("quirks and perks", f.init_bonus))
            value = roll.total + f.agility + f.init_bonus
            inits.append(Initiative(f.name, Derivation(value, "1d100 + Agility", terms, R_INIT, roll), _speed(f)))
        order, ties = self._order(state, inits, dice)
        started = RoundStarted(round=state.round + 1, initiatives=tuple(inits), order=tuple(order), ties=tuple(ties),
                               tie_rule=_tie_rule(state, inits))
        after = self.evolve(state, started)
        return [started, *_start_turn(after, 0)]

    def _order(
        self, state: ModularState, inits: list[Initiative], dice: Dice
    ) -> tuple[list[str], list[TieBreak]]:
        """Greatest initiative first; ties settled per the initiative-ties option (an open point)."""
        ties: list[TieBreak] = []
        by_agility = state.options["initiative-ties"] == "agility"

        def roll_off(names: list[str], attempt: int) -> list[str]:
            if len(names) < 2:
                return names
            key = TIE if attempt == 1 else f"{TIE}{attempt}"
            rolls = {n: dice.roll(f"{key}:{n}", 1, 100) for n in names}
            ties.extend(TieBreak(n, attempt, r) for n, r in rolls.items())
            out: list[str] = []
            for value in sorted({r.total for r in rolls.values()}, reverse=True):
                out += roll_off([n for n in names if rolls[n].total == value], attempt + 1)
            return out

        def settle(names: list[str]) -> list[str]:
            if len(names) < 2 or not by_agility:
                return roll_off(names, 1)
            agility = {n: state.fighter(n).agility for n in names}
            out: list[str] = []
            for value in sorted(set(agility.values()), reverse=True):
                out += roll_off([n for n in names if agility[n] == value], 1)
            return out

        value = {i.who: i.value.value for i in inits}
        order: list[str] = []
        for v in sorted(set(value.values()), reverse=True):
            order += settle([i.who for i in inits if value[i.who] == v])
        return order, ties

    @decides(Next)
    def _next(self, state: ModularState, command: Next, dice: Dice) -> list[Event]:
        self.need_round(state)
        index = self.next_turn(state)
        if index is None:
            return self._upkeep(state, False)
        return _start_turn(state, index)

    @decides(Declare)
    def _declare(self, state: ModularState, cmd: Declare, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        action = cmd.action.lower()
        if action != MOVE and action not in ACTIONS:
            raise BadInput(f"no action {cmd.action!r} in modular ({suggest(action, [MOVE, *ACTIONS])})")
        self.need_round(state)
        self.check_able(state, f)
        if state.current != f.name:
            now = f"it is {state.current}'s turn" if state.current else "no turn has started"
            raise RuleViolation(f"not {f.name}'s turn: {now}", R_TURN)
        if action == MOVE:
            if cmd.target is not None or cmd.trigger is not None:
                raise BadInput("move takes --amount FEET (and --with terrain=difficult), no --target or --trigger")
            return [_move(f, cmd.amount, cmd.details.get("terrain"))]
        if cmd.amount is not None or "terrain" in cmd.details:
            raise BadInput("--amount and --with terrain= go with move only")
        if (cmd.trigger is not None) != (action == READY) or (action != READY and (
                "then" in cmd.details or "else" in cmd.details)):
            raise BadInput("--trigger, --with then= and --with else= go with ready only")
        if "skill" in cmd.details and not action.endswith("skill"):
            raise BadInput(f"--with skill= names the skill of a skill check, not of {action}")
        slot, rule = self._slot(state, action)
        _free(f, slot, action, rule)
        target = find_name(state.names(), cmd.target) if cmd.target is not None else None
        if action == READY:
            return [self._ready(state, f, cmd)]
        return [ActionTaken(
            who=f.name, action=action, slot=slot, rule=rule, target=target, skill=cmd.details.get("skill"),
            movement=_dash(f) if action == DASH else None, dodge=_evade(f) if action == EVADE else None,
        )]

    def _slot(self, state: ModularState, action: str) -> tuple[Slot, str]:
        slot, rule = ACTIONS[action]
        if action in SECONDARY_LIST and state.options["secondary-list"] == "primary":
            return "primary", f"{rule} (option secondary-list=primary)"
        return slot, rule

    def _ready(self, state: ModularState, f: Fighter, cmd: Declare) -> ReadyDeclared:
        assert cmd.trigger is not None
        if not cmd.trigger.strip():
            raise BadInput("ready needs --trigger TEXT, the event that sets off the first course")
        if "then" not in cmd.details or "else" not in cmd.details:
            raise BadInput("ready needs both courses of play: --with then=COURSE --with else=COURSE")
        then = self._course(state, f, cmd.details["then"])
        otherwise = self._course(state, f, cmd.details["else"])
        feet = f.feet_left if then.move or otherwise.move else 0
        return ReadyDeclared(who=f.name, trigger=cmd.trigger.strip(), then=then, otherwise=otherwise, feet=feet)

    def _course(self, state: ModularState, f: Fighter, words: str) -> Course:
        """A course of play: exactly one primary, at most one secondary and one tertiary, and
        only slots and movement still unused when Ready is taken (Combat Rules, Ready)."""
        chosen: dict[str, str] = {}
        move = False
        for raw in words.split("+"):
            word = raw.strip().lower()
            if word == MOVE:
                if move or f.feet_left == 0:
                    raise RuleViolation(f"a course of play takes {f.name}'s remaining movement once, "
                                        f"and only if some is left ({f.feet_left} ft)", R_READY)
                move = True
                continue
            if word not in ACTIONS:
                raise BadInput(f"no action {raw.strip()!r} for a course of play ({suggest(word, [MOVE, *ACTIONS])})")
            if word == READY:
                raise RuleViolation("a course of play cannot itself be a Ready", R_READY)
            slot, _ = self._slot(state, word)
            if slot in chosen:
                raise RuleViolation(f"a course of play has at most one {slot} action: {chosen[slot]} and {word}",
                                    R_READY)
            if slot != "primary" and f.slot(slot) is not None:
                raise RuleViolation(f"{f.name} already used the {slot} action ({f.slot(slot)}) before Ready",
                                    R_READY)
            chosen[slot] = word
        if "primary" not in chosen:
            raise RuleViolation(f"each course of play needs one primary action: {words!r} has none", R_READY)
        return Course(chosen["primary"], chosen.get("secondary"), chosen.get("tertiary"), move)

    @decides(Resolve)
    def _resolve(self, state: ModularState, cmd: Resolve, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), cmd.who))
        held = f.ready
        if held is None:
            raise RuleViolation(
                f"{f.name} has no Ready pending: modular actions take effect when declared", R_READY
            )
        self.check_able(state, f)
        triggered = cmd.details.get("course", "triggered") == "triggered"
        played = held.then if triggered else held.otherwise
        feet = detail_int(cmd, "feet")
        terrain = cmd.details.get("terrain")
        allowance = (held.feet if played.move else 0) + (f.speed if played.primary == DASH else 0)
        cost = None
        if feet or terrain is not None:
            if allowance == 0:
                raise RuleViolation(f"{f.name}'s course {played.words()} has no movement", R_READY)
            cost = _cost(feet, terrain, "--with feet=N")
            if cost.value > allowance:
                raise RuleViolation(
                    f"{f.name}'s course {played.words()} may move {allowance} ft, not {cost.value}", R_READY
                )
        return [ReadyResolved(
            who=f.name, course="triggered" if triggered else "untriggered", played=played, feet=cost,
            movement=_dash(f) if played.primary == DASH else None,
            dodge=_evade(f) if played.primary == EVADE else None, outcome=cmd.outcome,
        )]

    @decides(ApplyEffect)
    def _effect(self, state: ModularState, cmd: ApplyEffect, dice: Dice) -> list[Event]:
        if cmd.who.lower() == "scene":
            raise RuleViolation("modular keeps no scene counters: effects go on combatants")
        f = state.fighter(find_name(state.names(), cmd.who))
        kind = cmd.kind.strip().lower()
        if not kind or kind == EVADE:
            raise BadInput(f"{cmd.kind!r} is not an effect to apply by hand (Evade is an action)")
        if cmd.end:
            if not any(e.kind == kind for e in f.effects):
                raise RuleViolation(f"{f.name} has no {kind} effect to end")
            return [EffectEnded(who=f.name, kind=kind, reason="ended by the GM")]
        if cmd.rounds is None or cmd.rounds < 1:
            raise BadInput(f"{kind} needs --rounds N (1 or more)")
        return [EffectApplied(who=f.name, kind=kind, rounds=cmd.rounds)]

    @decides(Upkeep)
    def _upkeep_command(self, state: ModularState, command: Upkeep, dice: Dice) -> list[Event]:
        return self._upkeep(state, command.details.get("combat") == "over")

    def _upkeep(self, state: ModularState, combat_over: bool) -> list[Event]:
        if state.over:
            raise RuleViolation("the combat is over", R_COMBAT)
        events: list[Event] = []
        if state.in_round:
            following = self.next_turn(state)
            if following is not None and not combat_over:
                left = ", ".join(n for n in state.order[following:] if self.able(state, state.fighter(n)))
                raise RuleViolation(
                    f"round {state.round} has turns left ({left}): `skirmish next` to reach its end", R_TURN
                )
            for f in state.fighters.values():
                for e in f.effects:
                    events.append(UpkeepTick(who=f.name, effect=e.kind, rounds_left=e.rounds - 1,
                                             removed=e.rounds <= 1))
        elif not combat_over:
            raise RuleViolation("no round under way: start one with `skirmish round`", R_TURN)
        if combat_over:
            for f in state.fighters.values():
                if f.evade is not None:
                    events.append(EvadeEnded(who=f.name, reason="the combat is over"))
                if f.ready is not None:
                    events.append(ReadyCancelled(who=f.name, reason="the combat is over"))
        return [*events, RoundEnded(round=state.round, combat_over=combat_over)]

    # --- view and narration ----------------------------------------------------------------

    def view(self, state: ModularState) -> View:
        now = state.current
        following = self.next_turn(state) if state.in_round else None
        upcoming = state.order[following] if following is not None else None
        in_order = [state.fighters[n] for n in state.order] if state.in_round else []
        rest = [f for f in state.fighters.values() if f.name not in set(state.order) or not state.in_round]
        # Those who cannot act go last (the view's acting order).
        in_order, rest = [f for f in in_order if self.able(state, f)], [
            *(f for f in in_order if not self.able(state, f)), *rest]
        rest.sort(key=lambda f: not self.able(state, f))
        position = {name: i for i, name in enumerate(state.order)}
        combatants = []
        pending = []
        for f in [*in_order, *rest]:
            acting = state.in_round and f.initiative is not None
            done = acting and state.turn is not None and position.get(f.name, -1) < state.turn
            used = sum(1 for s in SLOTS if f.slot(s) is not None)
            effects = [Effect_(kind="evading", detail=f"dodge class {f.evade} until its next turn")] if (
                f.evade is not None) else []
            # The text names no conditions: every kind on a combatant is the GM's own.
            effects += [Effect_(kind=e.kind, left=e.rounds, custom=e.kind not in self.effects) for e in f.effects]
            status: Status = "left" if f.left else "down" if self.down(state, f) else "fighting"
            combatants.append(Combatant(
                name=f.name, side=f.side, status=status, acting=f.name == now,
                vital=Gauge(name="health left", value=f.health - f.damage, maximum=f.health),
                budget=Budget(name="slots", left=len(SLOTS) - used, of=len(SLOTS)),
                effects=tuple(effects),
                own=ModularFigures(
                    initiative=f.initiative, speed=f.speed, movement=f.movement, feet_moved=f.feet_moved,
                    feet_left=f.feet_left, primary=f.primary, secondary=f.secondary, tertiary=f.tertiary,
                    may_still=_may_still(f) if acting and not done else "-",
                    dodge_class=f.evade if f.evade is not None else f.dodge, health=f.health, damage=f.damage,
                ),
            ))
            if f.ready is not None:
                r = f.ready
                pending.append(Pending(
                    who=f.name, action=READY, resolves=f"on trigger: {r.trigger}",
                    own=ReadyFigures(then=r.then.words(), otherwise=r.otherwise.words(), feet_held=r.feet,
                                     declared_round=r.round),
                ))
        if state.over:
            moment = "the combat is over"
        elif now is not None:
            moment = f"{now}'s turn"
        elif state.in_round:
            moment = "before the first turn"
        else:
            moment = "before the first round" if state.round == 0 else f"after round {state.round}"
        clock = Clock(
            round=state.round, running=state.in_round, moment=moment,
            now=(now,) if now is not None else (), next=(upcoming,) if upcoming is not None else (),
            own=ModularClock(
                order=", ".join(f"{n} {state.fighters[n].initiative}" for n in state.order) if state.in_round
                else None,
                combat_over=state.over,
            ),
        )
        return View(clock=clock, combatants=tuple(combatants), pending=tuple(pending))

    def harm(self, event: Event) -> Harm | None:
        # modular.md gives no damage rules; the ruleset keeps the table's health (module
        # docstring), and the GM's `damage` is what an attack did.
        match event:
            case DamageTaken(who=who, amount=amount):
                return Harm(who=who, amount=amount.value, unit="health")
            case HealthHealed(who=who, amount=amount):
                return Harm(who=who, amount=amount.value, unit="health", heal=True)
        return None

    def describe(self, event: Event) -> str:
        match event:
            case HealthHealed(who=who, amount=amount, health_left=left):
                return f"{who} is healed {amount.value} ({left} health left)"
            case RoundStarted(round=number, initiatives=inits, order=order, ties=ties, tie_rule=tie_rule):
                value = {i.who: i.value.value for i in inits}
                tail = f"; {tie_rule}" if tie_rule else ""
                if ties:
                    tail += ", roll-off: " + ", ".join(f"{t.who} {t.roll.total}" for t in ties)
                return f"Round {number} begins: initiative " + ", ".join(f"{n} {value[n]}" for n in order) + tail
            case TurnStarted(who=who):
                return f"{who}'s turn"
            case EvadeEnded(who=who, reason=reason):
                return f"{who}'s Evade ends ({reason})"
            case Moved(who=who, feet=feet, cost=cost, left=left):
                extra = f" through difficult terrain ({cost.value} ft of movement)" if cost.value != feet else ""
                return f"{who} moves {feet} ft{extra}, {left.value} ft left"
            case ActionTaken(who=who, action=action, slot=slot, target=target, skill=skill, movement=movement,
                             dodge=dodge):
                what = f"{action} ({skill})" if skill else action
                on = f" on {target}" if target else ""
                extra = f": movement {movement.value} ft this round" if movement else ""
                extra += f": dodge class {dodge.value} until the next turn" if dodge else ""
                return f"{who} takes {what}{on} as the {slot} action{extra}"
            case ReadyDeclared(who=who, trigger=trigger, then=then, otherwise=otherwise, feet=feet):
                held = f", {feet} ft held" if feet else ""
                return f"{who} readies: if {trigger}: {then.words()}; else: {otherwise.words()}{held}"
            case ReadyResolved(who=who, course=course, played=played, feet=feet, dodge=dodge, outcome=outcome):
                moved = f", moves {feet.value} ft" if feet else ""
                evade = f", dodge class {dodge.value}" if dodge else ""
                res = f": {outcome}" if outcome else ""
                return f"{who}'s Ready plays its {course} course: {played.words()}{moved}{evade}{res}"
            case ReadyCancelled(who=who, reason=reason):
                return f"{who}'s Ready is dropped ({reason})"
            case DamageTaken(who=who, amount=amount, health_left=left):
                return f"{who} takes {amount.value} damage ({left} health left)"
            case EffectApplied(who=who, kind=kind, rounds=rounds):
                return f"{who} is {kind} ({rounds} round{'' if rounds == 1 else 's'})"
            case EffectEnded(who=who, kind=kind, reason=reason):
                return f"{who} is no longer {kind} ({reason})"
            case UpkeepTick(who=who, effect=kind, rounds_left=left, removed=removed):
                if removed:
                    return f"Upkeep: {who}'s {kind} ends"
                return f"Upkeep: {who}'s {kind} has {left} round{'' if left == 1 else 's'} left"
            case RoundEnded(round=number, combat_over=over):
                return f"Round {number} ends" + (": the combat is over" if over else "")
        return type(event).__name__


# --- helpers -------------------------------------------------------------------------------


def _start_turn(state: ModularState, index: int) -> list[Event]:
    """The turn of the index-th in initiative order begins: its Evade ends (Combat Rules,
    Evade); a Ready still pending must first play its other course (Combat Rules, Ready)."""
    who = state.fighter(state.order[index])
    if who.ready is not None:
        raise RuleViolation(
            f"{who.name}'s Ready did not trigger before {who.name}'s next turn: play its other course first, "
            f"`skirmish resolve {quote(who.name)} --with course=untriggered`", R_READY,
        )
    events: list[Event] = []
    if who.evade is not None:
        events.append(EvadeEnded(who=who.name, reason=f"{who.name}'s next turn"))
    return [*events, TurnStarted(who=who.name, index=index)]


def _tie_rule(state: ModularState, inits: list[Initiative]) -> str:
    """How ties were settled, when there were any: the option in force and its rule."""
    values = [i.value.value for i in inits]
    if len(set(values)) == len(values):
        return ""
    return f"ties: initiative-ties={state.options['initiative-ties']} ({R_INIT})"


def _free(f: Fighter, slot: Slot, action: str, rule: str) -> None:
    used = f.slot(slot)
    if used is not None:
        held = " (held for a Ready)" if used == READY and slot != "primary" else ""
        raise RuleViolation(f"{f.name} already took a {slot} action this turn ({used}{held}), not {action}", rule)


def _cost(feet: int | None, terrain: str | None, flag: str = "--amount FEET") -> Derivation:
    if feet is None or feet < 1:
        raise BadInput(f"a move needs the feet moved, 1 or more ({flag}), not {feet}")
    if terrain == "difficult":
        return Derivation(feet * 2, "feet x 2 (difficult terrain)", (Term("feet", feet),), R_TERRAIN)
    return Derivation(feet, "feet", (Term("feet", feet),), R_MOVE)


def _move(f: Fighter, feet: int | None, terrain: str | None) -> Moved:
    cost = _cost(feet, terrain)
    assert feet is not None
    if cost.value > f.feet_left:
        held = f" ({f.held_feet} ft held for a Ready)" if f.held_feet else ""
        raise RuleViolation(
            f"{f.name} has {f.feet_left} ft of movement left{held}, not {cost.value}",
            R_TERRAIN if terrain == "difficult" else R_MOVE,
        )
    terms = (Term("movement this round", f.movement), Term("moved before", -f.feet_moved),
             Term("held for a Ready", -f.held_feet), Term("this move", -cost.value))
    left = Derivation(f.feet_left - cost.value, "movement - moved before - held - this move", terms,
                      R_DASH if f.dashed else R_MOVE)
    return Moved(who=f.name, feet=feet, cost=cost, left=left)


def _speed(f: Fighter) -> Derivation:
    if f.speed_override:
        return Derivation(f.speed_override, "Speed set by quirks and perks", (Term("speed", f.speed_override),),
                          R_SPEED)
    steps = f.agility // AGILITY_STEP
    terms = (Term("base", BASE_SPEED), Term("5 x floor(Agility / 10)", SPEED_PER_STEP * steps))
    return Derivation(speed_of(f.agility), "30 + 5 x floor(Agility / 10)", terms, R_SPEED)


def _dash(f: Fighter) -> Derivation:
    speed = _speed(f)
    return Derivation(speed.value * 2, "Speed x 2", (Term("Speed", speed.value),), R_DASH)


def _evade(f: Fighter) -> Derivation:
    """Evade Dodge Class = Dodge Class + floor(Dodge Class / 2) (Combat Rules, Evade)."""
    terms = (Term("dodge class", f.dodge), Term("floor(dodge class / 2)", f.dodge // 2))
    return Derivation(f.dodge + f.dodge // 2, "dodge class + floor(dodge class / 2)", terms, R_EVADE)


def _may_still(f: Fighter) -> str:
    parts = [f"move {f.feet_left} ft"] if f.feet_left else []
    parts += [s for s in SLOTS if f.slot(s) is None]
    return ", ".join(parts) or "nothing"


RULESET: Ruleset[ModularState] = Modular()
