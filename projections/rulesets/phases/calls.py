"""Who phases calls when: initiative after wounds, the callers of a phase's call, the next
call with someone to act. Read by its decisions and its view alike."""


from skirmish.eventlog.events import Derivation, Term
from skirmish.projections.ruleset import Rules
from skirmish.projections.rulesets.phases.state import Fighter, PhaseState, Wounds, wounds_of
from skirmish.projections.rulesets.phases.vocabulary import PHASES, R_AGILITY, R_INIT


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


class PhasesCalls(Rules[PhaseState]):
    """Who acts at which call of which phase: what the decisions and the view both read."""

    def _init(self, state: PhaseState, f: Fighter) -> int:
        return initiative(f, state.options["wounds"]).value

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
