"""phases's decisions of an action: declared at its call (or out of turn as an
interrupt), combined moves, aims and reloads, and opportunity fire."""

from shlex import quote

from msgspec.structs import replace

from skirmish.eventlog.commands import Declare
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Term
from skirmish.projections.ruleset import Dice, decides, detail_int, find_name, has_left, suggest
from skirmish.projections.rulesets.phases.calls import PhasesCalls, agility_less_bulk
from skirmish.projections.rulesets.phases.decide_turns import _distance
from skirmish.projections.rulesets.phases.events import ActionTaken
from skirmish.projections.rulesets.phases.state import Fighter, PhaseState
from skirmish.projections.rulesets.phases.vocabulary import (
    ACTIONS,
    FIRE_MOVES,
    INTERRUPT_ACTIONS,
    MELEE_KINDS,
    MOVES,
    PHASES,
    R_ACTIONS,
    R_AGILITY,
    R_INIT,
    R_OPP,
    R_REPEAT,
    R_SEQ,
    How,
)


class PhasesActions(PhasesCalls):
    """The decisions of an action: declared at its call or as an interrupt, opportunity fire."""

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
