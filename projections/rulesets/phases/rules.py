"""phases's declarations: its options (the open points of the text), stats, actions and
inputs, assembled with its decisions, fold and view (package docstring)."""


from skirmish.eventlog.events import EncounterStarted
from skirmish.projections.ruleset import ActionInfo, Detail, Flag, Option, Ruleset, Stat, options_in_force
from skirmish.projections.rulesets.phases.decide_actions import PhasesActions
from skirmish.projections.rulesets.phases.decide_turns import PhasesTurns
from skirmish.projections.rulesets.phases.fold import PhasesFold
from skirmish.projections.rulesets.phases.state import PhaseState
from skirmish.projections.rulesets.phases.view import PhasesView
from skirmish.projections.rulesets.phases.vocabulary import (
    ACTIONS,
    INTERRUPT_ACTIONS,
    MELEE_KINDS,
    MOVES,
    PANIC,
    PHASES,
    RULES,
)


class Phases(PhasesTurns, PhasesActions, PhasesFold, PhasesView):
    """The phases ruleset (package docstring): its declarations, with the decisions, fold and view
    of its mixins."""

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


RULESET: Ruleset[PhaseState] = Phases()
