"""srd-5.2's view (what the table reads: §15) and its narration, the words of its events."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from collections.abc import Mapping
from typing import ClassVar

from skirmish.eventlog.events import Event
from skirmish.projections.ruleset import DiceKey, Harm, Move
from skirmish.projections.rulesets.srd_5__2.block import BlockAction, parse_actions
from skirmish.projections.rulesets.srd_5__2.events import (
    Acted,
    Attacked,
    ConcentrationEnded,
    ConcentrationSaved,
    ConcentrationStarted,
    Damaged,
    DeathSave,
    Fell,
    Healed,
    MarkAdded,
    MarkEnded,
    Moved,
    ReadyFired,
    ReadyLapsed,
    Recharged,
    RoundEnded,
    RoundStarted,
    Saved,
    Stabilised,
    TempGained,
    TurnEnded,
    TurnStarted,
)
from skirmish.projections.rulesets.srd_5__2.state import Fighter, SrdRules, SrdState, can_take_turn, hp_max_of, speed_of
from skirmish.projections.rulesets.srd_5__2.vocabulary import LAIR, MARKS, part_key
from skirmish.projections.view import Budget, Clock, Combatant, Effect, Gauge, Own, Pending, Status, View


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
    # The figures a card of the GM's page shows, by their label there, in this order (those
    # the effects say already, temp HP, death saves and concentration, are the effects' words;
    # one empty, "", or false is left out): projections/page/gm_lines.py.
    card: ClassVar[Mapping[str, str]] = {"ac": "AC", "initiative": "init", "legendary": "legendary uses",
                                         "bonus": "bonus action used"}


class ReadyFigures(Own, frozen=True, kw_only=True):
    trigger: str


class Narration(SrdRules):
    """The view of the state, the moves of a stat block, the harm and the words of each event."""

    marks: ClassVar[Mapping[str, str]] = MARKS  # a mark beside each condition's word (the GM's page)
    # The details that name a combatant, by command: the GM's page picks them from the board
    # (projections/page/gm_data.py): an effect's source (the charmer, the grappler) and the
    # one whose turn it is anchored to.
    picks: ClassVar[Mapping[tuple[str, str], str]] = {("effect", "by"): "combatant", ("effect", "of"): "combatant"}

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
                if name != LAIR and can_take_turn(state, name):
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
            speed = speed_of(state, f)
            combatants.append(Combatant(
                name=f.name, side=f.side, status=self._status(state, f), acting=f.name == now,
                vital=Gauge(name="HP", value=f.hp, maximum=hp_max_of(state, f)),
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
        """Its stat block's actions by name (docs/rulesets/srd-5.2.md: Stat blocks), each with its to-hit or
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
    parts = tuple(DiceKey(key=part_key(i, f.name), what=str(p)) for i, p in enumerate(block.damage) if "d" in p.dice)
    if block.attack:
        return Move(name=block.name, use=block.use, label=", ".join(words), spent=spent, aim="one",
                    rolls=(DiceKey(key=f.name, what="d20 to hit"), *parts))
    if block.save:
        return Move(name=block.name, use=block.use, label=", ".join(words), spent=spent, aim="several", rolls=parts,
                    each=(DiceKey(key="save:", what=f"d20 {block.save.capitalize()} save"),))
    return Move(name=block.name, use=block.use, label=", ".join(words), spent=spent)



USE_WORDS = {"bonus": "Bonus Action", "reaction": "Reaction", "legendary": "legendary action"}
