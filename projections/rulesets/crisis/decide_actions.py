"""crisis's decisions of an action: declared and paid (an attack rolled then and there), a
hit's damage resolved or an action over 6 AP carried on, damage the GM deals, conditions."""

from shlex import quote

from skirmish.eventlog.commands import ApplyEffect, Damage, Declare, Resolve
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Term
from skirmish.projections.ruleset import Dice, Rules, decides, detail_int, find_name, has_left, suggest
from skirmish.projections.rulesets.crisis.decide_turns import hit_waiting, need_turn
from skirmish.projections.rulesets.crisis.events import (
    ActionCancelled,
    ActionProgressed,
    ActionTaken,
    AttackRolled,
    ConditionEnded,
    ConditionSet,
    DamageTaken,
)
from skirmish.projections.rulesets.crisis.state import CrisisState, Fighter
from skirmish.projections.rulesets.crisis.vocabulary import (
    ACTIONS,
    AP_MAX,
    ATTACK_DETAILS,
    CONDITIONS,
    COVER,
    DRUNK,
    PER_EXTRA_ENEMY,
    R_ACTIONS,
    R_ATTACK,
    R_CONDITIONS,
    R_COVER,
    R_CRITICAL,
    R_DAMAGE,
    R_MELEE,
    R_ORDER,
    R_RANGED,
    R_TABLE,
)


class CrisisActions(Rules[CrisisState]):
    """The decisions of an action: declare (an attack rolled at once), resolve, damage, effect."""

    @decides(Damage)
    def _damage_command(self, state: CrisisState, command: Damage, dice: Dice) -> list[Event]:
        f = state.fighter(find_name(state.names(), command.who))
        return [self._damage(state, f, command.amount, command, by=None)]

    @decides(Declare)
    def _declare(self, state: CrisisState, cmd: Declare, dice: Dice) -> list[Event]:
        need_turn(state)
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
                raise RuleViolation(hit_waiting(f), R_DAMAGE)
            events.append(ActionCancelled(
                who=f.name, action=f.action.name,
                reason=f"interrupted by {action}: an action over 6 AP ends when another is taken ({R_ACTIONS})",
            ))
        cost = _cost(action, detail_int(cmd, "ap") if "ap" in cmd.details else None)
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
        need_turn(state)
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
