"""The phases ruleset: a 30-second turn of six 5-second phases, one action a phase.

Rules text: shared/rules/phases.md, cited below by section (the paragraph leads of
"Turn Sequence" - Agility and Weapon Bulks, Repetition, Opportunity Fire, Ambush - are
cited as sections of their own). The clock is the turn's phase, 6 down to 1, and within
a phase the initiative value being called: the start of the phase (repetitive actions)
first, then the phase's own number, then each higher value (Turn Sequence). ``next``
moves to the next call at which someone may act, skipping phases nobody acts in, and
ends the turn after phase 1. There are no dice: initiative is a stat (1 to 6), lowered
by wounds and panic, which the GM records as effects.

Open points of the text, each an option recorded in the encounter's first event:

- ``after-interrupt`` (default ``prone-or-cover``): a character who interrupts a
  repetitive action may take its next action only at its next regular call, and that
  action "may only be to go prone or to duck behind cover" (Repetition). Ducking behind
  cover is not an action of the list (Actions); by default it is a crawl, walk, trot or
  run declared ``--with cover=yes``, the way the list lets a character reach cover.
  ``prone-only`` allows only the one listed action the sentence names, go prone.
- ``wounds`` (default ``worst``): "slightly wounded" lowers initiative by 1, "seriously
  wounded" by 3 (Initiative). The text names a character's state, so by default the
  worst wound counts once; ``each`` subtracts 1 per slight and 3 per serious wound.

Readings chosen where the text is silent, documented here and in the README:

- Initiative (1 to 6) is a stat the GM gives; panic lowers it by the amount the GM rules
  (``effect WHO panic --with by=N``: the text gives no figure); it never goes below 0,
  and at 0 the character does not act at all, repetition and opportunity fire included.
  A change takes effect at once: calls still to come in the turn use the new value.
- A call at which nobody may act is skipped; a character who does not declare when its
  call comes passes that phase (the GM moves on with ``next``).
- Repetition is chosen in phase 6, by a character that has taken no action yet this turn
  (``declare WHO ACTION --with repeat=yes``, at any call of phase 6: the first phase's
  action is conducted then). ``next`` conducts it at the start of every later phase.
  It lasts the turn. ``cancel WHO`` interrupts it; the restriction on the next action
  lasts until that action is taken, across the turn's end if need be.
- Same initiative: when a character fires at or attacks in melee one acting at the same
  call of the same phase (actions that interfere), the action records who goes first: the higher Agility minus weapon bulk;
  equal figures act at the same time. Agility and bulk default to 0; ``ready --with
  bulk=N`` changes the weapon, and so the bulk.
- Aiming ends with any other action, except opportunity fire in a phase in which the
  character could act anyway ("still considered to be aiming", Opportunity Fire). An
  aim enables fire in a later phase only; opportunity fire needs a target that moved
  this phase (it "passes through" the line of sight), counts as the character's action
  for the phase, and in a phase the character could not otherwise act in uses the aim
  up. The first shot is aimed only at the target named when the aim began (it was
  visible then); an aim at an area (``--with area=TEXT``) gives quick shots, as does
  automatic fire (``--with auto=yes``). The same holds for fire at the character's own
  call after an aim. Aiming may be declared before the first turn (an ambush laid).
- Whether a target is (or was this phase) in line of sight, and which weapons may fire
  on the move, are the GM's judgement at the table: the tool records, it does not check.
- Crawling leaves the character prone; a prone character's walk, trot or run, or a move
  combined with fire or melee, stands it up and halves the distance. Go prone and stand
  up are refused when the character already is so; mount and dismount likewise.
- A reload that needs several reload actions (``--with reloads=N`` on the first) keeps
  its progress until done, whatever the character does in between.
- Ambush: ``round --with ambush=SIDE`` on the first turn puts every member of that side
  (the moving force) with an initiative other than 6 on repetitive movement, a walk
  ("simply moving") unless ``--with ambush-move=crawl|trot|run`` says otherwise.
- ``resolve WHO --outcome TEXT`` records what the character's latest action this turn
  achieved: hit rolls and damage belong to other chapters than this text.
- ``upkeep`` ends the turn once phase 1 is under way (those still to be called pass);
  the text has no hits, so ``damage`` is refused in favour of wound effects.
- Treating the whole turn as one, without phases (The Combat Turn), is not modelled:
  the GM runs such a turn outside the tool.

How the view reads the state (projections/view.py):

- The clock counts turns. Its moment is "phase N, start" (where repetitive actions are
  conducted) or "phase N, call I" (initiative I called). ``now`` are those the moment is
  for: called and yet to act, or who took their action at it (opportunity fire answers
  no call, so it puts no one there). ``next`` are those the next ``next`` calls; between
  turns, the first call of the coming turn.
- Combatants are listed in the calling order of the phase under way (phase 6 of the
  coming turn, between turns): repetitive actions at its start, then the phase's own
  initiative and each higher one, equal ones by Agility less bulk (Turn Sequence); those
  who do not act in it after, in the order added. The text orders phases, not turns.
- Initiative is the vital figure (of its value before wounds and panic); at 0 the
  character is ``out``: it "may not act at all" but is "not necessarily unconscious"
  (Initiative). The text has no death, and no hits: ``heal`` is refused, pointing at
  ``effect WHO slight-wound --end`` (a wound taken off raises the initiative again).
  The budget is the turn's actions: those still to come, of those taken and to come.
- ``leave`` takes a character out of every call until ``return`` (status ``left``,
  listed last); its declarations are refused. No ``goes-down`` option: the text's
  initiative 0 is its "out".
- Effects are the text's wounds and panic; no other kind is taken (not even with
  ``--custom``: a phases effect always changes the initiative).
"""

from __future__ import annotations

from shlex import quote
from typing import Literal, NamedTuple

import msgspec
from msgspec.structs import replace

from skirmish.eventlog.commands import (
    CarriedEffect,
    ApplyEffect,
    Cancel,
    Damage,
    Declare,
    Heal,
    Next,
    Resolve,
    StartRound,
    Upkeep,
)
from skirmish.eventlog.errors import BadInput, RuleViolation
from skirmish.eventlog.events import CombatantAdded, Derivation, EncounterStarted, Event, Term
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

RULES = "phases.md"
R_TURN = f"{RULES}, The Combat Turn"
R_ACTIONS = f"{RULES}, Actions"
R_INIT = f"{RULES}, Initiative"
R_SEQ = f"{RULES}, Turn Sequence"
R_AGILITY = f"{RULES}, Agility and Weapon Bulks"
R_REPEAT = f"{RULES}, Repetition"
R_OPP = f"{RULES}, Opportunity Fire"
R_AMBUSH = f"{RULES}, Ambush"

PHASES = 6
# Movement actions and their distance in metres (phases.md, Actions).
MOVES = {"crawl": 2, "walk": 8, "trot": 15, "run": 30}
# What each kind of melee attack may be combined with (phases.md, Actions: Melee).
MELEE_KINDS = {
    "armed": ("walk", "trot"),
    "strike": ("walk", "trot"),
    "grapple": ("walk", "trot"),
    "escape": ("walk", "trot"),
    "diving-blow": ("walk", "trot", "run"),
}
FIRE_MOVES = ("walk", "trot")  # "with some weapons" (phases.md, Actions: Fire): the GM's call
ACTIONS: dict[str, str] = {
    "fire": "at a target in (or this phase in) line of sight; --with move=walk|trot with some weapons; "
            "opportunity fire when aiming (Opportunity Fire)",
    "aim": "--target NAME or --with area=TEXT; enables fire at a target crossing the line of sight later",
    "reload": "--with reloads=N when the weapon takes several reload actions (the first of them)",
    "melee": "--with melee=armed|strike|grapple|escape|diving-blow, --with move=walk|trot (run: diving blow)",
    "ready": "ready or change equipment; --with bulk=N for the new weapon's bulk",
    "crawl": "2 m, prone",
    "walk": "8 m (4 m when standing up from prone)",
    "trot": "15 m (halved when standing up)",
    "run": "30 m (halved when standing up)",
    "prone": "go prone",
    "stand": "stand up",
    "mount": "get in a vehicle or on a mount",
    "dismount": "get out or off",
    "talk": "a sentence or so; --with talk=TEXT combines it with any action but fire",
}
WOUNDS = {"slight-wound": 1, "serious-wound": 3}
PANIC = "panic"
INTERRUPT_ACTIONS = {"prone-or-cover": "go prone, or move to cover (--with cover=yes)", "prone-only": "go prone"}

How = Literal["call", "repeated", "opportunity"]


# --- state -------------------------------------------------------------------------------
# The state is a working copy the fold changes in place (STYLE 7): the structs it mutates
# are mutable; Aim and Repeat are values, replaced whole.


class Aim(msgspec.Struct, frozen=True):
    turn: int
    phase: int  # 7: before the first turn
    target: str | None = None
    area: str | None = None


class Repeat(msgspec.Struct, frozen=True):
    action: str
    target: str | None = None
    area: str | None = None
    move: str | None = None
    melee: str | None = None


class Last(msgspec.Struct):
    """The character's latest action this turn: what it was, when, and whether it moved."""

    action: str
    phase: int
    call: int
    how: str
    moved: bool
    resolved: bool = False


class Fighter(msgspec.Struct):
    name: str
    side: str
    base: int
    agility: int
    bulk: int
    slight: int = 0
    serious: int = 0
    panic: int = 0
    prone: bool = False
    mounted: bool = False
    acted: list[int] = []  # phases acted in this turn
    # Half metres are kept exact (standing up halves a move). int | float, as Derivation.amount:
    # typed float, a whole number held as an int came back from a snapshot as a float and
    # encoded to other bytes than the state it was cached from.
    moved_m: int | float = 0
    left: bool = False  # has left the fight (`leave`); back with `return`
    repeat: Repeat | None = None
    restricted: bool = False  # interrupted a repetitive action: next action is limited
    aim: Aim | None = None
    reload: tuple[int, int] | None = None  # (reload actions done, needed)
    last: Last | None = None
    had: int | None = None  # actions it had when the turn began (TurnStarted.budgets); None: older logs


class PhaseState(msgspec.Struct):
    options: dict[str, str]
    turn: int = 0
    in_turn: bool = False
    phase: int | None = None
    call: int = 0  # 0: the start of the phase, where repetitive actions are conducted
    fighters: dict[str, Fighter] = {}  # by name, in the order added

    def names(self) -> list[str]:
        return list(self.fighters)


class Wounds(NamedTuple):
    """What lowers a character's initiative: wounds of each kind, and panic (Initiative)."""

    slight: int
    serious: int
    panic: int


def wounds_of(f: Fighter) -> Wounds:
    return Wounds(f.slight, f.serious, f.panic)


def wounds_after(f: Fighter, kind: str, change: int) -> Wounds:
    """A wound more or less, or panic set (change > 0: by that much) or ended (Initiative)."""
    if kind == PANIC:
        return Wounds(f.slight, f.serious, max(0, change))
    step = 1 if change > 0 else -1
    if kind == "slight-wound":
        return Wounds(f.slight + step, f.serious, f.panic)
    return Wounds(f.slight, f.serious + step, f.panic)


# --- view parts ----------------------------------------------------------------------------


class PhasesClock(Own, frozen=True, kw_only=True):
    """The clock's place in the turn: ``call`` is the initiative value called (0: the start
    of the phase, where repetitive actions are conducted); both None between turns."""

    phase: int | None = None
    call: int | None = None


class PhasesFigures(Own, frozen=True, kw_only=True):
    agility_less_bulk: int  # who goes first at equal initiative (Agility and Weapon Bulks)
    actions: int  # taken this turn
    acts_in: tuple[int, ...]  # the phases still to come this turn (the next, between turns)
    moved_m: float
    prone: bool
    mounted: bool
    aiming: str | None  # the target or area
    repeating: str | None  # the action repeated every phase this turn
    restricted: bool  # after an interrupted repetition: the next action is limited
    reload: str | None  # reload actions done/needed, while a slow reload is under way


class PhasesPending(Own, frozen=True, kw_only=True):
    repeat: bool = False
    area: str | None = None
    progress: str | None = None  # of a reload: done/needed


# --- events ------------------------------------------------------------------------------


class Initiative(msgspec.Struct, frozen=True):
    who: str
    initiative: Derivation


class TurnStarted(Event, frozen=True, tag="phases.turn-started"):
    turn: int
    initiatives: tuple[Initiative, ...]
    ambush: str | None = None
    # The actions budget reads against the actions each had when the turn began (its
    # initiative: Turn Sequence), not those it acted in or may still take; UNSET, so left
    # out, in an older turn start, which reads and prints as it was stored.
    budgets: bool | msgspec.UnsetType = msgspec.UNSET


class ClockAdvanced(Event, frozen=True, tag="phases.clock-advanced"):
    """The clock moves to a call: ``call`` 0 is the start of the phase (repetitive actions)."""

    phase: int
    call: int
    acting: tuple[str, ...] = ()  # at a call: in Agility - bulk order (Agility and Weapon Bulks)


class ActionTaken(Event, frozen=True, tag="phases.action-taken"):
    who: str
    action: str
    phase: int
    call: int
    how: How
    repeat: bool = False  # chosen for the whole turn here (Repetition)
    target: str | None = None
    area: str | None = None
    move: str | None = None  # a move combined with fire or melee
    melee: str | None = None
    talk: str | None = None
    distance: Derivation | None = None
    prone: bool | None = None  # the character's posture after the action
    mounted: bool | None = None
    reload: tuple[int, int] | None = None  # (done, needed) after this action
    bulk: int | None = None
    cover: bool = False
    aimed: Derivation | None = None  # shots counted as aimed (Opportunity Fire)
    keeps_aim: bool = False
    order: Derivation | None = None  # Agility - bulk against a target acting at the same call
    first: str | None = None
    reason: str = ""


class ActionResolved(Event, frozen=True, tag="phases.action-resolved"):
    who: str
    action: str
    outcome: str


class RepetitionInterrupted(Event, frozen=True, tag="phases.repetition-interrupted"):
    who: str
    action: str
    phase: int


class EffectApplied(Event, frozen=True, tag="phases.effect-applied"):
    who: str
    kind: str
    by: int
    initiative: Derivation  # the character's initiative from now on


class EffectEnded(Event, frozen=True, tag="phases.effect-ended"):
    who: str
    kind: str
    initiative: Derivation


class TurnEnded(Event, frozen=True, tag="phases.turn-ended"):
    turn: int
    actions: dict[str, int] = {}


def initiative(f: Fighter, wounds: str, held: Wounds | None = None) -> Derivation:
    """Initiative after wounds and panic (``held``: those the character would have), never
    below 0 (phases.md, Initiative)."""
    w = wounds_of(f) if held is None else held
    if wounds == "each":
        slight, serious = -w.slight, -3 * w.serious
    else:
        serious = -3 if w.serious else 0
        slight = -1 if w.slight and not w.serious else 0
    terms = [Term("initiative", f.base)]
    terms += [Term("slightly wounded", slight)] if slight else []
    terms += [Term("seriously wounded", serious)] if serious else []
    terms += [Term("panic", -w.panic)] if w.panic else []
    value = max(0, sum(t.value for t in terms))
    formula = "initiative - wounds - panic, at least 0" + (" (each wound)" if wounds == "each" else " (worst wound)")
    return Derivation(value, formula, tuple(terms), R_INIT)


def agility_less_bulk(f: Fighter) -> Derivation:
    return Derivation(f.agility - f.bulk, "Agility - weapon bulk",
                      (Term("Agility", f.agility), Term("weapon bulk", -f.bulk)), R_AGILITY)


# --- the ruleset ---------------------------------------------------------------------------


class Phases(Rules[PhaseState]):
    id = "phases"
    rules_file = RULES
    options = {
        "after-interrupt": Option(
            "prone-or-cover", tuple(INTERRUPT_ACTIONS),
            "after interrupting a repetitive action the next action is: go prone or move to "
            "cover, or go prone only (Repetition)",
        ),
        "wounds": Option(
            "worst", ("worst", "each"),
            "initiative falls by the worst wound (slight 1, serious 3), or by each wound (Initiative)",
        ),
    }
    stats = {
        "initiative": Stat("Initiative, 1 to 6", minimum=1, maximum=PHASES),
        "agility": Stat("Agility: who goes first at equal initiative", required=False),
        "bulk": Stat("bulk of the weapon in hand, subtracted from Agility", required=False, minimum=0),
    }
    actions = {name: ActionInfo("one phase", doc) for name, doc in ACTIONS.items()}
    details = {
        "repeat": Detail("the same action every phase of the turn (Repetition)", ("declare",), ("yes",)),
        "move": Detail("a move combined with fire or melee", ("declare",), ("walk", "trot", "run")),
        "melee": Detail("the kind of melee attack (default armed)", ("declare",), tuple(MELEE_KINDS)),
        "talk": Detail("words spoken with the action (not with fire)", ("declare",)),
        "reloads": Detail("reload actions the weapon needs (default 1)", ("declare",)),
        "bulk": Detail("bulk of the weapon readied", ("declare",)),
        "area": Detail("the area aimed at, when no one is in sight", ("declare",)),
        "cover": Detail("the move ducks behind cover (after an interrupted repetition)", ("declare",), ("yes",)),
        "auto": Detail("automatic fire: no shot counts as aimed", ("declare",), ("yes",)),
        "ambush": Detail("the side ambushed on the first turn (Ambush)", ("round",)),
        "ambush-move": Detail("how the ambushed force moves (default walk)", ("round",), tuple(MOVES)),
        "by": Detail("points of initiative lost to panic", ("effect",)),
    }
    effects = {
        "slight-wound": "Initiative -1 (Wounds)",
        "serious-wound": "Initiative -3 (Wounds)",
        PANIC: "--with by=N: Initiative lowered by N until ended",
    }
    # The flags read; the engine refuses the rest. One action a phase, no hits and no
    # timed effects: no AP, percent, pace, trigger, hits, charge, orientation or rounds.
    flags = {
        "target": Flag("whom the action is aimed at", ("declare",)),
        "outcome": Flag("what the action gave, in the GM's words", ("resolve",)),
        "end": Flag("end the wound or the panic now", ("effect",)),
    }
    # The shape of this ruleset's state: raise it when the state structs change (it keys cached snapshots).
    state_version = 4  # 3: ``left``; metres moved kept in halves; 4: Fighter.had
    stat_fields = {"initiative": "base"}  # `set WHO initiative=N`: wounds still count from it
    state_type = PhaseState

    def initial(self, started: EncounterStarted) -> PhaseState:
        options = options_in_force(self, started)
        return PhaseState(options=options)

    # --- the fold: each event applied in place to a working copy ---------------------------

    @applies(CombatantAdded)
    def _added(self, state: PhaseState, e: CombatantAdded) -> None:
        state.fighters[e.name] = Fighter(
            name=e.name, side=e.side, base=e.stats["initiative"],
            agility=e.stats.get("agility", 0), bulk=e.stats.get("bulk", 0),
        )

    def lasting(self, state: PhaseState, who: str) -> list[CarriedEffect]:
        # Wounds and panic last until ended; they are the vital figure's drop (Wounds), so a
        # carried combatant's Initiative follows from them and needs no combatant-carried applier.
        f = state.fighters[who]
        return ([CarriedEffect(kind="slight-wound")] * f.slight + [CarriedEffect(kind="serious-wound")] * f.serious
                + ([CarriedEffect(kind=PANIC, details={"by": str(f.panic)})] if f.panic else []))

    @applies(TurnStarted)
    def _turn_started(self, state: PhaseState, e: TurnStarted) -> None:
        state.turn, state.in_turn, state.phase, state.call = e.turn, True, PHASES, 0
        # Turn Sequence: an initiative of N acts in phases N to 1, N actions (at most 6).
        had = {i.who: min(i.initiative.value, PHASES) for i in e.initiatives} if e.budgets is True else {}
        for f in state.fighters.values():
            f.had = had.get(f.name)

    @applies(ClockAdvanced)
    def _clock_advanced(self, state: PhaseState, e: ClockAdvanced) -> None:
        state.phase, state.call = e.phase, e.call

    @applies(ActionTaken)
    def _action_taken(self, state: PhaseState, e: ActionTaken) -> None:
        f = state.fighters[e.who]
        if e.action == "aim":
            f.aim = Aim(turn=state.turn, phase=e.phase, target=e.target, area=e.area)
        elif not e.keeps_aim:
            f.aim = None  # any other action ends the aim (Opportunity Fire)
        if e.reload is not None:
            f.reload = e.reload if e.reload[0] < e.reload[1] else None
        if e.repeat:
            f.repeat = Repeat(action=e.action, target=e.target, area=e.area, move=e.move, melee=e.melee)
        if e.phase > PHASES:  # before the fight
            f.last = None
        else:
            f.acted.append(e.phase)
            f.last = Last(e.action, e.phase, e.call, e.how, e.distance is not None)
        if e.distance is not None:
            f.moved_m += e.distance.amount
        if e.prone is not None:
            f.prone = e.prone
        if e.mounted is not None:
            f.mounted = e.mounted
        if e.bulk is not None:
            f.bulk = e.bulk
        f.restricted = False  # the limited next action is taken (or none was owed)

    @applies(ActionResolved)
    def _action_resolved(self, state: PhaseState, e: ActionResolved) -> None:
        last = state.fighters[e.who].last
        assert last is not None
        last.resolved = True

    @applies(RepetitionInterrupted)
    def _repetition_interrupted(self, state: PhaseState, e: RepetitionInterrupted) -> None:
        f = state.fighters[e.who]
        f.repeat, f.restricted = None, True

    @applies(EffectApplied)
    def _effect_applied(self, state: PhaseState, e: EffectApplied) -> None:
        f = state.fighters[e.who]
        f.slight, f.serious, f.panic = wounds_after(f, e.kind, e.by)

    @applies(EffectEnded)
    def _effect_ended(self, state: PhaseState, e: EffectEnded) -> None:
        f = state.fighters[e.who]
        f.slight, f.serious, f.panic = wounds_after(f, e.kind, -1)

    @applies(TurnEnded)
    def _turn_ended(self, state: PhaseState, e: TurnEnded) -> None:
        state.in_turn, state.phase, state.call = False, None, 0
        for f in state.fighters.values():
            f.acted.clear()
            f.moved_m, f.repeat, f.last = 0, None, None

    # --- decide: never changes the state it is given --------------------------------------

    @decides(Damage)
    def _damage(self, state: PhaseState, cmd: Damage, dice: Dice) -> list[Event]:
        find_name(state.names(), cmd.who)
        raise RuleViolation(
            "phases.md counts wounds, not hits: `skirmish effect WHO slight-wound` or `serious-wound`", R_INIT,
        )

    @decides(Heal)
    def _heal(self, state: PhaseState, cmd: Heal, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        raise RuleViolation(
            f"phases.md counts wounds, not hits: `skirmish effect {quote(f.name)} slight-wound --end` "
            "(or serious-wound) takes a wound off", R_INIT,
        )

    @decides(Upkeep)
    def _upkeep(self, state: PhaseState, cmd: Upkeep, dice: Dice) -> list[Event]:
        _need_turn(state)
        if state.phase != 1:
            raise RuleViolation(
                f"phase {state.phase} is under way: the turn ends after phase 1 (`skirmish next`)", R_SEQ
            )
        return [self._end(state)]

    def _init(self, state: PhaseState, f: Fighter) -> int:
        return initiative(f, state.options["wounds"]).value

    @decides(StartRound)
    def _start_turn(self, state: PhaseState, cmd: StartRound, dice: Dice) -> list[Event]:
        if state.in_turn:
            raise RuleViolation(
                f"turn {state.turn} is still under way (phase {state.phase}): `skirmish next` walks it to its end",
                R_SEQ,
            )
        if not state.fighters:
            raise RuleViolation("no combatants yet: add some with `skirmish add NAME --stat initiative=N`")
        turn = state.turn + 1
        fighters = list(state.fighters.values())
        inits = tuple(Initiative(f.name, initiative(f, state.options["wounds"])) for f in fighters)
        side = cmd.details.get("ambush")
        move = cmd.details.get("ambush-move", "walk")
        if side is None:
            if "ambush-move" in cmd.details:
                raise BadInput("--with ambush-move= goes with --with ambush=SIDE")
            return [TurnStarted(turn=turn, initiatives=inits, budgets=True)]
        if turn != 1:
            raise RuleViolation("an ambush is sprung on the first combat turn", R_AMBUSH)
        sides = {f.side.lower(): f.side for f in fighters}
        if side.lower() not in sides:
            raise BadInput(f"no side {side!r} to ambush (sides: {', '.join(sorted(set(sides.values())))})")
        side = sides[side.lower()]
        events: list[Event] = [TurnStarted(turn=turn, initiatives=inits, ambush=side, budgets=True)]
        for f, init in zip(fighters, inits, strict=True):
            # The moving force walks on, every phase, except those with initiative 6 (Ambush).
            if f.side != side or init.initiative.value in (0, PHASES):
                continue
            distance = _distance(f, move)
            events.append(ActionTaken(
                who=f.name, action=move, phase=PHASES, call=0, how="repeated", repeat=True,
                distance=distance, prone=move == "crawl",
                reason=f"ambushed with initiative {init.initiative.value}, not 6 ({R_AMBUSH})",
            ))
        return events

    def _callers(self, state: PhaseState, phase: int, call: int) -> list[Fighter]:
        """Who may act when initiative ``call`` is called in ``phase`` (Turn Sequence)."""
        found = [
            f for f in state.fighters.values()
            if not f.left and self._init(state, f) == call and call >= phase and phase not in f.acted
            and f.repeat is None
        ]
        # Equal initiative: higher Agility less weapon bulk first (Agility and Weapon Bulks).
        return sorted(found, key=lambda f: -(f.agility - f.bulk))

    def _upcoming(self, state: PhaseState, phase: int, call: int) -> tuple[int, int, list[Fighter]] | None:
        """The next moment after ``call`` of ``phase`` at which someone acts, as (phase, call,
        who), or None: the turn ends after phase 1 (Turn Sequence)."""
        for at in range(max(call + 1, phase), PHASES + 1):
            callers = self._callers(state, phase, at)
            if callers:
                return phase, at, callers
        for later in range(phase - 1, 0, -1):
            repeaters = [f for f in state.fighters.values()
                         if f.repeat is not None and not f.left and self._init(state, f) > 0]
            if repeaters:
                # Repetitive actions come at the start of the phase, whatever the initiative (Repetition).
                return later, 0, repeaters
            for at in range(later, PHASES + 1):
                callers = self._callers(state, later, at)
                if callers:
                    return later, at, callers
        return None

    @decides(Next)
    def _next(self, state: PhaseState, cmd: Next, dice: Dice) -> list[Event]:
        _need_turn(state)
        assert state.phase is not None
        upcoming = self._upcoming(state, state.phase, state.call)
        if upcoming is None:
            return [self._end(state)]
        phase, call, acting = upcoming
        events: list[Event] = [ClockAdvanced(phase=phase, call=call, acting=tuple(f.name for f in acting))]
        if call == 0:
            events += [_repeated(f, phase) for f in acting]
        return events

    def _end(self, state: PhaseState) -> TurnEnded:
        return TurnEnded(turn=state.turn, actions={f.name: len(f.acted) for f in state.fighters.values() if f.acted})

    # --- declare -----------------------------------------------------------------------

    @decides(Declare)
    def _declare(self, state: PhaseState, cmd: Declare, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        action = cmd.action.lower()
        if action not in ACTIONS:
            raise BadInput(f"no action {cmd.action!r} in the phases list ({suggest(action, list(ACTIONS))})")
        details = cmd.details
        target = find_name(state.names(), cmd.target) if cmd.target is not None else None
        if target is not None and action not in ("fire", "aim", "melee", "talk"):
            raise BadInput(f"{action} takes no --target")
        if target == f.name:
            raise BadInput(f"{f.name} cannot take itself as the target")
        if f.left:
            raise has_left(f.name)
        init = self._init(state, f)
        if init == 0:
            raise RuleViolation(f"{f.name}'s initiative is 0: {f.name} may not act at all", R_INIT)
        if not state.in_turn:
            if action == "aim" and state.turn == 0 and "repeat" not in details:
                # An ambush is laid before the fight: the aim counts as taken in an earlier phase.
                return [self._act(state, f, action, target, cmd, PHASES + 1, 0, "call")]
            raise RuleViolation("no turn under way: start one with `skirmish round`", R_SEQ)
        phase = state.phase
        assert phase is not None
        if f.repeat is not None:
            raise RuleViolation(
                f"{f.name} repeats {f.repeat.action} every phase this turn: "
                f"`skirmish cancel {quote(f.name)}` interrupts it", R_REPEAT,
            )
        if details.get("repeat"):
            if phase != PHASES or f.acted:
                raise RuleViolation(
                    f"repetition is chosen for the whole turn: in phase 6, before {f.name}'s first action", R_REPEAT
                )
            if f.restricted:
                raise RuleViolation(_restricted(f, state), R_REPEAT)
            return [self._act(state, f, action, target, cmd, phase, state.call, "call")]
        if phase in f.acted:
            assert f.last is not None
            if f.last.how == "opportunity":
                raise RuleViolation(
                    f"{f.name} fired opportunity fire this phase: that was its action for phase {phase}", R_OPP
                )
            raise RuleViolation(f"{f.name} has already acted in phase {phase}: one action a phase", R_ACTIONS)
        if state.call == init:
            if f.restricted and not _allowed_after_interrupt(state, action, details):
                raise RuleViolation(_restricted(f, state), R_REPEAT)
            return [self._act(state, f, action, target, cmd, phase, state.call, "call")]
        if action == "fire" and f.aim is not None:
            return [self._opportunity(state, f, target, details, phase, init)]
        raise RuleViolation(_not_now(f, init, phase, state.call), R_SEQ)

    def _act(
        self, state: PhaseState, f: Fighter, action: str, target: str | None, cmd: Declare,
        phase: int, call: int, how: How,
    ) -> ActionTaken:
        """One action at the character's call (or chosen for the whole turn), checked and computed."""
        details = cmd.details
        melee = _melee_kind(action, details)
        move = _combined_move(action, melee, details)
        talk = details.get("talk")
        if action == "fire" and talk is not None:
            raise RuleViolation("talking cannot be combined with firing", R_ACTIONS)
        if details.get("auto") and action != "fire":
            raise BadInput("--with auto=yes goes with fire")
        area = details.get("area")
        if area is not None and action != "aim":
            raise BadInput("--with area= goes with aim")
        if action == "aim" and (target is None) == (area is None):
            raise BadInput("aim takes --target NAME or --with area=TEXT (one of them)")
        cover = details.get("cover") == "yes"
        if cover and action not in MOVES:
            raise BadInput("--with cover=yes goes with a crawl, walk, trot or run")
        event = ActionTaken(
            who=f.name, action=action, phase=phase, call=call, how=how, repeat=bool(details.get("repeat")),
            target=target, area=area, move=move, melee=melee, talk=talk, cover=cover,
        )
        event = _posture(f, event)
        if action == "reload":
            event = replace(event, reload=_reload(f, cmd))
        elif "reloads" in details:
            raise BadInput("--with reloads= goes with reload")
        if action == "ready":
            bulk = detail_int(cmd, "bulk", f.bulk)
            if bulk < 0:
                raise BadInput(f"a weapon's bulk is 0 or more, not {bulk}")
            event = replace(event, bulk=bulk)
        elif "bulk" in details:
            raise BadInput("--with bulk= goes with ready")
        if action == "fire":
            event = replace(event, aimed=_aimed(f, target, details, "fire after an aim"))
        if target is not None and action in ("fire", "melee") and how == "call" and phase <= PHASES:
            event = self._order(state, f, target, phase, call, event)
        return event

    def _order(
        self, state: PhaseState, f: Fighter, target: str, phase: int, call: int, event: ActionTaken
    ) -> ActionTaken:
        """Acting on someone at the same call: higher Agility less bulk goes first (Agility and Weapon Bulks)."""
        t = state.fighters[target]
        if call == 0 or self._init(state, t) != call or t.repeat is not None or not self._acts_at(state, t, phase, call):
            return event
        mine, theirs = agility_less_bulk(f), agility_less_bulk(t)
        order = Derivation(
            mine.value - theirs.value, f"{f.name}'s Agility - bulk less {t.name}'s",
            (Term(f"{f.name} Agility - bulk", mine.value), Term(f"{t.name} Agility - bulk", -theirs.value)),
            R_AGILITY,
        )
        first = f.name if order.value > 0 else t.name if order.value < 0 else None
        return replace(event, order=order, first=first)

    def _opportunity(
        self, state: PhaseState, f: Fighter, target: str | None, details: dict[str, str], phase: int, init: int
    ) -> ActionTaken:
        aim = f.aim
        assert aim is not None
        if f.restricted:
            raise RuleViolation(_restricted(f, state), R_REPEAT)
        if (aim.turn, aim.phase) == (state.turn, phase):
            raise RuleViolation(f"{f.name} aimed this phase: the aim enables fire in a later phase", R_OPP)
        if target is None:
            raise BadInput("opportunity fire needs --target: the enemy crossing the line of sight")
        t = state.fighters[target]
        if t.last is None or t.last.phase != phase or not t.last.moved:
            raise RuleViolation(
                f"{t.name} has not moved this phase: opportunity fire is at a target passing through the line of sight",
                R_OPP,
            )
        if details.get("talk") is not None:
            raise RuleViolation("talking cannot be combined with firing", R_ACTIONS)
        for key in details:
            if key not in ("auto",):
                raise BadInput(f"opportunity fire takes no --with {key}=")
        could_act = init >= phase
        reason = (
            "counts as its action for this phase; still aiming next phase" if could_act
            else f"in a phase {f.name} could not act in (initiative {init}): aim again before the next"
        )
        return ActionTaken(
            who=f.name, action="fire", phase=phase, call=state.call, how="opportunity", target=t.name,
            aimed=_aimed(f, t.name, details, "opportunity fire"), keeps_aim=could_act, reason=reason,
        )

    # --- resolve, interrupt, effects -------------------------------------------------------

    @decides(Resolve)
    def _resolve(self, state: PhaseState, cmd: Resolve, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        if cmd.outcome is None or not cmd.outcome.strip():
            raise BadInput("resolve takes --outcome TEXT: what the action achieved")
        if f.last is None:
            raise RuleViolation(f"{f.name} has taken no action this turn to resolve", R_ACTIONS)
        if f.last.resolved:
            raise RuleViolation(f"{f.name}'s {f.last.action} is already resolved", R_ACTIONS)
        return [ActionResolved(who=f.name, action=f.last.action, outcome=cmd.outcome.strip())]

    @decides(Cancel)
    def _interrupt(self, state: PhaseState, cmd: Cancel, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        if f.repeat is None or state.phase is None:
            raise RuleViolation(f"{f.name} is not repeating an action: nothing to interrupt", R_REPEAT)
        return [RepetitionInterrupted(who=f.name, action=f.repeat.action, phase=state.phase)]

    @decides(ApplyEffect)
    def _effect(self, state: PhaseState, cmd: ApplyEffect, dice: Dice) -> list[Event]:
        if cmd.who.lower() == "scene":
            raise RuleViolation("phases.md keeps no scene counters", R_TURN)
        f = state.fighters[find_name(state.names(), cmd.who)]
        kind = cmd.kind.lower()
        if kind not in (*WOUNDS, PANIC):
            raise BadInput(f"phases effects are slight-wound, serious-wound and panic, not {cmd.kind!r}")
        if cmd.end:
            if "by" in cmd.details:
                raise BadInput("--with by= goes with a new panic, not its end")
            has = {PANIC: f.panic, "slight-wound": f.slight, "serious-wound": f.serious}[kind]
            if not has:
                raise RuleViolation(f"{f.name} has no {kind} to end")
            held = wounds_after(f, kind, -1)
            return [EffectEnded(who=f.name, kind=kind, initiative=initiative(f, state.options["wounds"], held))]
        if kind == PANIC:
            by = detail_int(cmd, "by", 0)
            if by < 1:
                raise BadInput("panic needs --with by=N: the initiative points the GM rules it costs")
        else:
            if "by" in cmd.details:
                raise BadInput(f"a {kind} lowers initiative by the rule, not --with by=")
            by = WOUNDS[kind]
        held = wounds_after(f, kind, by)
        return [EffectApplied(who=f.name, kind=kind, by=by, initiative=initiative(f, state.options["wounds"], held))]

    # --- view and narration ----------------------------------------------------------------

    def view(self, state: PhaseState) -> View:
        inits = {name: self._init(state, f) for name, f in state.fighters.items()}
        now = self._now(state)
        upcoming = self._upcoming(state, state.phase, state.call) if state.in_turn and state.phase else (
            self._upcoming(state, PHASES, 0)  # between turns: the first call of the turn to come
        )
        clock = Clock(
            round=state.turn, unit="turn", running=state.in_turn, moment=_moment(state),
            now=tuple(f.name for f in now), next=tuple(f.name for f in upcoming[2]) if upcoming else (),
            phase=str(state.phase) if state.phase is not None else None,
            own=PhasesClock(phase=state.phase, call=state.call if state.in_turn else None),
        )
        acting = {f.name for f in now}
        return View(
            clock=clock,
            combatants=tuple(
                self._combatant(state, f, inits[f.name], f.name in acting) for f in self._acting_order(state, inits)
            ),
            pending=tuple(p for f in state.fighters.values() for p in _pending(f)),
        )

    def _acts_at(self, state: PhaseState, f: Fighter, phase: int, call: int) -> bool:
        """Whether the character acts at this call of the phase: called and yet to act, or it
        took its action there (opportunity fire is no call); at call 0, a repetitive action."""
        last = f.last
        if f.left:
            return False
        if last is not None and (last.phase, last.call) == (phase, call) and last.how != "opportunity":
            return True
        return call >= phase and phase not in f.acted and f.repeat is None and self._init(state, f) == call

    def _now(self, state: PhaseState) -> list[Fighter]:
        """Who acts at the clock's moment, in the order called (Agility and Weapon Bulks)."""
        if not state.in_turn or state.phase is None:
            return []
        phase, call = state.phase, state.call
        found = [f for f in state.fighters.values() if self._acts_at(state, f, phase, call)]
        return sorted(found, key=lambda f: -(f.agility - f.bulk))

    def _acting_order(self, state: PhaseState, inits: dict[str, int]) -> list[Fighter]:
        """The phase's order (phase 6 of the coming turn, between turns): repetitive actions at its
        start (Repetition), then initiative equal to the phase, then each higher value (Turn
        Sequence), equal ones by Agility less bulk (Agility and Weapon Bulks); the rest after,
        in the order added."""
        phase = state.phase if state.in_turn and state.phase is not None else PHASES
        fighters = list(state.fighters.values())
        ordered = [f for f in fighters if f.repeat is not None and inits[f.name] > 0]
        ordered += sorted(
            (f for f in fighters if f.repeat is None and inits[f.name] >= phase),
            key=lambda f: (inits[f.name], -(f.agility - f.bulk)),
        )
        ordered = [f for f in ordered if not f.left]
        placed = {f.name for f in ordered}
        return ordered + sorted((f for f in fighters if f.name not in placed), key=lambda f: f.left)

    def _combatant(self, state: PhaseState, f: Fighter, init: int, acting: bool) -> Combatant:
        acts_in = self._phases_left(state, f, init)
        effects = [Effect(kind="slight-wound")] * f.slight + [Effect(kind="serious-wound")] * f.serious
        effects += [Effect(kind=PANIC, detail=f"-{f.panic} initiative")] if f.panic else []
        return Combatant(
            name=f.name,
            side=f.side,
            # Initiative 0: "may not act at all", though not necessarily unconscious (Initiative).
            status="left" if f.left else "out" if init == 0 else "fighting",
            acting=acting,
            vital=Gauge(name="Initiative", value=init, maximum=f.base),
            budget=self._budget(state, f, acts_in),
            effects=tuple(effects),
            own=PhasesFigures(
                agility_less_bulk=f.agility - f.bulk,
                actions=len(f.acted),
                acts_in=tuple(acts_in),
                moved_m=f.moved_m,
                prone=f.prone,
                mounted=f.mounted,
                aiming=(f.aim.target or f.aim.area) if f.aim else None,
                repeating=f.repeat.action if f.repeat else None,
                restricted=f.restricted,
                reload=_progress(f.reload) if f.reload else None,
            ),
        )

    def _budget(self, state: PhaseState, f: Fighter, acts_in: list[int]) -> Budget:
        """The actions left of those the character had this turn (Turn Sequence): as many as
        its initiative when the turn began, or more (a repetitive action acts in every phase:
        Repetition). Phases it let pass are lost, not spent. Between turns: the coming turn's.
        (Older logs, before TurnStarted.budgets: of those taken or still to take.)"""
        taken_or_left = len(f.acted) + len(acts_in)
        if not state.in_turn or f.had is None:
            return Budget(name="actions", left=len(acts_in), of=taken_or_left)
        had = max(f.had, taken_or_left)
        lost = had - taken_or_left
        return Budget(name="actions", left=len(acts_in), of=had, lost=lost if lost else msgspec.UNSET)

    def _phases_left(self, state: PhaseState, f: Fighter, init: int) -> list[int]:
        """The phases of this turn (of the next, between turns) in which the character may still act."""
        if init == 0:
            return []
        if not state.in_turn or state.phase is None:
            return list(range(min(init, PHASES), 0, -1))
        later = [p for p in range(state.phase - 1, 0, -1) if f.repeat is not None or init >= p]
        now = state.phase not in f.acted and f.repeat is None and init >= state.phase and state.call <= init
        return ([state.phase] if now else []) + later

    def harm(self, event: Event) -> Harm | None:
        # phases.md counts wounds, not hits (Initiative): a wound is the damage, whatever
        # initiative it costs; taking one off (`--end`) gives it back.
        match event:
            case EffectApplied(who=who, kind=kind) if kind in WOUNDS:
                return Harm(who=who, amount=1, unit="wounds")
            case EffectEnded(who=who, kind=kind) if kind in WOUNDS:
                return Harm(who=who, amount=1, unit="wounds", heal=True)
        return None

    def describe(self, event: Event) -> str:
        match event:
            case TurnStarted(turn=turn, initiatives=inits, ambush=ambush):
                order = ", ".join(f"{i.who} {i.initiative.value}" for i in inits)
                tail = f"; ambush: the {ambush} side is caught moving" if ambush else ""
                return f"Turn {turn} begins: initiative {order}; phase 6 first{tail}"
            case ClockAdvanced(phase=phase, call=call, acting=acting):
                if call == 0:
                    return f"Phase {phase} begins: repetitive actions first ({', '.join(acting)})"
                return f"Phase {phase}, initiative {call} acts: {', '.join(acting)}"
            case ActionTaken():
                return _narrate(event)
            case ActionResolved(who=who, action=action, outcome=outcome):
                return f"{who}'s {action}: {outcome}"
            case RepetitionInterrupted(who=who, action=action, phase=phase):
                return (f"{who} stops repeating {action} in phase {phase}: the next action, at {who}'s "
                        "next regular call, is limited")
            case EffectApplied(who=who, kind=kind, by=by, initiative=init):
                return f"{who}: {kind} (-{by}), initiative now {init.value}"
            case EffectEnded(who=who, kind=kind, initiative=init):
                return f"{who} is rid of a {kind}, initiative now {init.value}"
            case TurnEnded(turn=turn, actions=actions):
                done = ", ".join(f"{k} {v}" for k, v in actions.items()) or "nobody acted"
                return f"Turn {turn} ends; actions taken: {done}"
        return type(event).__name__


# --- helpers -------------------------------------------------------------------------------


def _need_turn(state: PhaseState) -> None:
    if not state.in_turn:
        raise RuleViolation("no turn under way: start one with `skirmish round`", R_SEQ)


def _not_now(f: Fighter, init: int, phase: int, call: int) -> str:
    now = "the start of the phase" if call == 0 else f"initiative {call}"
    if init < phase:
        return f"{f.name} (initiative {init}) does not act in phase {phase}"
    return f"not {f.name}'s call: phase {phase} is at {now}, {f.name} acts at initiative {init}"


def _restricted(f: Fighter, state: PhaseState) -> str:
    allowed = INTERRUPT_ACTIONS[state.options["after-interrupt"]]
    return f"{f.name} interrupted a repetitive action: the next action may only be to {allowed}"


def _allowed_after_interrupt(state: PhaseState, action: str, details: dict[str, str]) -> bool:
    if action == "prone":
        return True
    return state.options["after-interrupt"] == "prone-or-cover" and action in MOVES and details.get("cover") == "yes"


def _melee_kind(action: str, details: dict[str, str]) -> str | None:
    kind = details.get("melee")
    if action != "melee":
        if kind is not None:
            raise BadInput("--with melee= goes with melee")
        return None
    return kind or "armed"


def _combined_move(action: str, melee: str | None, details: dict[str, str]) -> str | None:
    move = details.get("move")
    if move is None:
        return None
    if action == "fire":
        allowed: tuple[str, ...] = FIRE_MOVES
    elif melee is not None:
        allowed = MELEE_KINDS[melee]
    else:
        raise RuleViolation(f"{action} cannot be combined with a move: only fire and melee can", R_ACTIONS)
    if move not in allowed:
        what = "fire" if action == "fire" else f"a {melee} attack"
        raise RuleViolation(f"{what} combines with {' or '.join(allowed)}, not {move}", R_ACTIONS)
    return move


def _distance(f: Fighter, move: str) -> Derivation:
    """Metres moved: the action's distance, halved when it stands the character up (Actions)."""
    metres = MOVES[move]
    if f.prone and move != "crawl":
        # "Standing up cuts the distance moved in an action in half" (Actions): never rounded,
        # kept exact in half metres.
        return Derivation(metres, f"{move} {metres} m, halved: standing up",
                          (Term(f"{move} m", metres),), R_ACTIONS, per=2)
    return Derivation(metres, f"{move} {metres} m", (Term(f"{move} m", metres),), R_ACTIONS)


def _posture(f: Fighter, event: ActionTaken) -> ActionTaken:
    """Where the action leaves the character: moved, prone or standing, mounted or not (Actions)."""
    action = event.action
    move = action if action in MOVES else event.move
    if move is not None:
        return replace(event, distance=_distance(f, move), prone=move == "crawl")
    if action == "prone":
        if f.prone:
            raise RuleViolation(f"{f.name} is already prone", R_ACTIONS)
        return replace(event, prone=True)
    if action == "stand":
        if not f.prone:
            raise RuleViolation(f"{f.name} is not prone: nothing to stand up from", R_ACTIONS)
        return replace(event, prone=False)
    if action in ("mount", "dismount"):
        if f.mounted == (action == "mount"):
            raise RuleViolation(f"{f.name} is {'already' if f.mounted else 'not'} mounted", R_ACTIONS)
        return replace(event, mounted=action == "mount")
    return event


def _reload(f: Fighter, cmd: Declare) -> tuple[int, int]:
    """Reload actions done and needed: some weapons take several (Actions: Reload)."""
    if f.reload is not None:
        if "reloads" in cmd.details:
            raise RuleViolation(
                f"{f.name}'s reload is under way ({f.reload[0]}/{f.reload[1]}): no new --with reloads=", R_ACTIONS
            )
        return (f.reload[0] + 1, f.reload[1])
    needed = detail_int(cmd, "reloads", 1)
    if needed < 1:
        raise BadInput(f"a reload takes 1 or more reload actions, not {needed}")
    return (1, needed)


def _aimed(f: Fighter, target: str | None, details: dict[str, str], what: str) -> Derivation:
    """How many shots count as aimed: the first, if the target was the one in sight when the aim began."""
    aim = f.aim
    if details.get("auto"):
        return Derivation(0, "automatic fire: no shot counts as aimed", rule=R_OPP)
    if aim is None:
        return Derivation(0, "no aim: quick shots", rule=R_ACTIONS)
    if aim.target is None or aim.target != target:
        seen = f"aimed at {aim.area!r}" if aim.target is None else f"aimed at {aim.target}"
        return Derivation(0, f"{what}: {seen}, the target was not in sight when the aim began: quick shots",
                          rule=R_OPP)
    return Derivation(1, f"{what}: {target} was in sight when the aim began: the first shot is aimed", rule=R_OPP)


def _repeated(f: Fighter, phase: int) -> ActionTaken:
    """The same action again, at the start of the phase (Repetition)."""
    r = f.repeat
    assert r is not None
    move = r.action if r.action in MOVES else r.move
    event = ActionTaken(
        who=f.name, action=r.action, phase=phase, call=0, how="repeated", target=r.target, area=r.area,
        move=r.move, melee=r.melee, reason=f"repeated at the start of the phase ({R_REPEAT})",
    )
    if move is not None:
        event = replace(event, distance=_distance(f, move), prone=move == "crawl")
    if r.action == "reload" and f.reload is not None:
        event = replace(event, reload=(f.reload[0] + 1, f.reload[1]))
    return event


def _moment(state: PhaseState) -> str:
    if state.in_turn:
        return f"phase {state.phase}, start" if state.call == 0 else f"phase {state.phase}, call {state.call}"
    return "before the first turn" if state.turn == 0 else "between turns"


def _progress(reload: tuple[int, int]) -> str:
    return f"{reload[0]}/{reload[1]}"


def _pending(f: Fighter) -> list[Pending]:
    """What the character has under way: a repetition, an aim, a slow reload."""
    out = []
    if f.repeat is not None:
        out.append(Pending(
            who=f.name, action=f.repeat.action, target=f.repeat.target, resolves="start of each phase, this turn",
            own=PhasesPending(repeat=True, area=f.repeat.area),
        ))
    if f.aim is not None:
        out.append(Pending(
            who=f.name, action="aim", target=f.aim.target,
            resolves="at a later call, or on trigger: a target crosses the line of sight",
            own=PhasesPending(area=f.aim.area),
        ))
    if f.reload is not None:
        left = f.reload[1] - f.reload[0]
        out.append(Pending(
            who=f.name, action="reload", resolves=f"after {left} more reload action{'s' if left > 1 else ''}",
            own=PhasesPending(progress=_progress(f.reload)),
        ))
    return out


def _narrate(e: ActionTaken) -> str:
    what = f"melee ({e.melee})" if e.melee and e.melee != "armed" else e.action
    what += f" at {e.target or e.area}" if e.target or e.area else ""
    notes = []
    if e.move:
        notes.append(f"on the {e.move}")
    if e.distance is not None:
        halved = e.distance.per == 2 or len(e.distance.terms) > 1  # older events: a halving term
        notes.append(f"{e.distance.shown()} m" + (" (stands up: halved)" if halved else ""))
    if e.cover:
        notes.append("to cover")
    if e.reload is not None:
        notes.append(f"{e.reload[0]} of {e.reload[1]}" + (": done" if e.reload[0] >= e.reload[1] else ""))
    if e.bulk is not None:
        notes.append(f"bulk {e.bulk}")
    if e.aimed is not None:
        notes.append("first shot aimed" if e.aimed.value else "quick shots")
    if e.talk:
        notes.append(f'saying "{e.talk}"')
    what += f", {', '.join(notes)}" if notes else ""
    if e.how == "opportunity":
        return f"Phase {e.phase}: {e.who} fires opportunity fire {what.removeprefix('fire ')}; {e.reason}"
    when = "before the fight" if e.phase > PHASES else f"phase {e.phase}"
    verb = "repeats" if e.how == "repeated" and not e.repeat else "acts:"
    line = f"{e.who} {verb} {what} ({when})"
    if e.repeat:
        line += ", every phase this turn" + (f": {e.reason}" if e.reason else "")
    if e.order is not None:
        line += f"; {e.first} goes first" if e.first else "; equal Agility - bulk: at the same time"
        line += f" (Agility - bulk {e.order.terms[0].value} vs {-e.order.terms[1].value})"
    return line


RULESET: Ruleset[PhaseState] = Phases()
