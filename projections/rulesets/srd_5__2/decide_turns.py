"""srd-5.2's clock: the first ``round`` rolls Initiative for everyone and the order holds for
the whole fight (§1, §2); ``next`` ends a turn and starts the next, with what a turn's start
brings (recharge, death save, the end of effects: §9, §12, §14); a saved fight in progress
taken up by ``resume``."""

from skirmish.eventlog.commands import Next, Resume, StartRound
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Term
from skirmish.projections.ruleset import Dice, decides, find_name
from skirmish.projections.rulesets.srd_5__2.events import (
    DeathSave,
    Fell,
    Healed,
    Initiative,
    MarkEnded,
    ReadyLapsed,
    Recharged,
    RoundEnded,
    RoundStarted,
    Stabilised,
    TurnEnded,
    TurnStarted,
)
from skirmish.projections.rulesets.srd_5__2.state import Fighter, SrdRules, SrdState, can_take_turn
from skirmish.projections.rulesets.srd_5__2.vocabulary import LAIR, R, two_d20_why


class Turns(SrdRules):
    """The decisions of the clock, and ``_emit``, which every decision that follows its own
    events on a working copy shares."""

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
        """A saved fight in progress taken up where its table stopped (__init__.py, "A
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
            roll = dice.roll(key, 2 if mode else 1, 20, two_d20_why(adv, dis))
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
        first = next((n for n in work.order if n != LAIR and can_take_turn(work, n)), None)
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

    def _advance(self, work: SrdState, dice: Dice) -> list[Event]:
        """Start the next turn that can be taken, or end the round."""
        start = -1 if work.turn is None else work.turn
        skipped: list[str] = []
        for index in range(start + 1, len(work.order)):
            name = work.order[index]
            if can_take_turn(work, name):
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


def _held(name: str, score: int) -> Initiative:
    """An initiative a combatant brought from a saved fight (combatant-carried): its place, no d20."""
    return Initiative(who=(name,), score=Derivation(score, "initiative held from where it was carried in",
                                                    (Term("held", score),), R(2)))
