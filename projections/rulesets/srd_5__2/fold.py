"""srd-5.2's fold: what each of its events does to a working copy of the state."""

import re

from skirmish.eventlog.events import CombatantAdded, CombatantCarried
from skirmish.projections.ruleset import applies
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
from skirmish.projections.rulesets.srd_5__2.state import Fighter, Mark, SrdRules, SrdState
from skirmish.projections.rulesets.srd_5__2.vocabulary import KNOCKED_OUT, LAIR, comma_words


class Fold(SrdRules):
    """The appliers: each event's change to a working copy of the state (STYLE 7)."""

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
            resist=comma_words(t.get("resist", "")), vulnerable=comma_words(t.get("vulnerable", "")),
            immune=comma_words(t.get("immune", "")), group=group, actions=t.get("actions", ""),
            saves=t.get("saves", ""), slots=t.get("slots", ""), senses=t.get("senses", ""),
            legendary_left=legendary if state.options.get("legendary-start") == "full" else 0,
        )

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
            # Taken up mid-round (__init__.py): those before it have had their turns this
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


def _count(f: Fighter, block: str, slot: int) -> None:
    """A use of a stat block's action and a spell slot spent, counted (§4, §14)."""
    if block:
        f.used = {**f.used, block: f.used.get(block, 0) + 1}
    if slot:
        f.used = {**f.used, f"slot:{slot}": f.used.get(f"slot:{slot}", 0) + 1}


def _follows(state: SrdState, f: Fighter) -> None:
    """A legendary use follows the first ended turn of the gap it has not followed yet."""
    for key in state.gap:
        if key not in f.legendary_after and key.split(":", 1)[1] not in (f.name, LAIR):
            f.legendary_after.append(key)
            return
