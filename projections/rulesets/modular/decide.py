"""modular's decisions: the round (initiative and its ties), the turns, the actions in their
slots, movement, Ready's two courses, effects, and what the GM does between turns."""

from shlex import quote

from skirmish.eventlog.commands import (
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
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Term
from skirmish.projections.ruleset import (
    Dice,
    GoesDown,
    Rules,
    decides,
    detail_int,
    find_name,
    is_down,
    suggest,
    why_down,
)
from skirmish.projections.rulesets.modular.events import (
    ActionTaken,
    DamageTaken,
    EffectApplied,
    EffectEnded,
    EvadeEnded,
    HealthHealed,
    Initiative,
    Moved,
    ReadyCancelled,
    ReadyDeclared,
    ReadyResolved,
    RoundEnded,
    RoundStarted,
    TieBreak,
    TurnStarted,
    UpkeepTick,
)
from skirmish.projections.rulesets.modular.state import Course, Fighter, ModularState, speed_of
from skirmish.projections.rulesets.modular.vocabulary import (
    ACTIONS,
    AGILITY_STEP,
    BASE_SPEED,
    DASH,
    EVADE,
    MOVE,
    R_COMBAT,
    R_DASH,
    R_EVADE,
    R_INIT,
    R_MOVE,
    R_READY,
    R_SPEED,
    R_TERRAIN,
    R_TURN,
    READY,
    SECONDARY_LIST,
    SPEED_PER_STEP,
    TIE,
    Slot,
)


class ModularDecide(GoesDown, Rules[ModularState]):
    """The decisions: round and turns, actions in their slots, movement, Ready, effects, upkeep."""

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
