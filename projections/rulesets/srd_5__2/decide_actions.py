"""srd-5.2's ``declare``: the actions of §4 and how each is taken (action, Bonus Action,
Reaction, legendary and lair uses, the Ready), movement (§3), a stat block's actions; and the
GM's ``resolve`` and ``cancel`` of a Ready, and ``effect``: conditions and Concentration
(§11-§13)."""

from skirmish.eventlog.commands import ApplyEffect, Cancel, Declare, Resolve, Upkeep
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Term
from skirmish.projections.ruleset import Dice, decides, detail_int, find_name
from skirmish.projections.rulesets.srd_5__2.block import BlockAction, find_action, parse_actions, parse_slots
from skirmish.projections.rulesets.srd_5__2.decide_attacks import Attacks
from skirmish.projections.rulesets.srd_5__2.events import (
    Acted,
    ConcentrationEnded,
    ConcentrationStarted,
    Fell,
    MarkAdded,
    MarkEnded,
    Moved,
    ReadyFired,
    ReadyLapsed,
    Stabilised,
)
from skirmish.projections.rulesets.srd_5__2.state import Fighter, SrdState, exhaustion_terms, lair_able, speed_of
from skirmish.projections.rulesets.srd_5__2.vocabulary import (
    ACTION_NAMES,
    ACTIONS,
    CONDITIONS,
    INCAPACITATING,
    KNOCKED_OUT,
    LAIR,
    R,
    uses_spent,
)


class Actions(Attacks):
    """``declare`` and its checks, the Ready's ``resolve`` and ``cancel``, ``upkeep``, ``effect``."""

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
            uses_spent(cmd, use))
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
            if speed_of(state, f) == 0:
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
            terms += exhaustion_terms(state, f)
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
        if not lair_able(state, f):
            raise RuleViolation(f"{f.name} cannot take a lair action now (not in its lair, Incapacitated, or "
                                "surprised before its first turn)", R(14))
        if f.name in state.lair_used:
            raise RuleViolation(f"{f.name} has taken its lair action this round", R(14))
        return [Acted(who=f.name, action="lair", use="lair")]

    def _move(self, state: SrdState, f: Fighter, cmd: Declare, action: str) -> Moved:
        if state.options["surprise"] == "5.1" and f.surprised:
            raise RuleViolation(f"{f.name} is surprised: it cannot move on its first turn (option surprise=5.1)", R(1))
        speed = speed_of(state, f)
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
                     *exhaustion_terms(state, f)]
            total = sum(x.value for x in terms)
            check = Derivation(total, " + ".join(x.name for x in terms) + " vs DC 10", tuple(terms), R(9), roll)
            events_: list[Event] = [Acted(who=f.name, action="help", use=use, target=t.name, check=check,
                                          cost=uses_spent(cmd, use),
                                          detail="first aid wakes it" if total >= 10 else "first aid fails")]
            if total >= 10:
                events_.append(MarkEnded(who=t.name, kind="unconscious", why="first aid (§9)"))
            return events_
        if t.dying and not t.stable:
            roll = dice.roll(f.name, 1, 20)
            terms = [Term("d20", roll.faces[0]), Term("Medicine", detail_int(cmd, "bonus"))]
            terms += exhaustion_terms(state, f)
            total = sum(t_.value for t_ in terms)
            check = Derivation(total, " + ".join(x.name for x in terms) + " vs DC 10", tuple(terms), R(9), roll)
            events: list[Event] = [Acted(who=f.name, action="help", use=use, target=t.name, check=check,
                                         cost=uses_spent(cmd, use),
                                         detail="stabilises" if total >= 10 else "fails to stabilise")]
            if total >= 10:
                events.append(Stabilised(who=t.name, by=f.name, check=check))
            return events
        kind = "helped" if t.side == f.side else "help-against"
        detail = "Advantage on its next check" if kind == "helped" else f"{f.name}'s allies' next attack: Advantage"
        return [Acted(who=f.name, action="help", use=use, target=t.name, cost=uses_spent(cmd, use)),
                MarkAdded(who=t.name, kind=kind, by=f.name, anchor=f.name, at="start", left=1, detail=detail)]

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
