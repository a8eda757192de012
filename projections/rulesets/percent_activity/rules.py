"""percent-activity's declarations: its options (the open points of the text), stats, actions,
flags and effects, assembled with its decisions, fold and view (package docstring)."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from skirmish.eventlog.commands import CarriedEffect
from skirmish.eventlog.events import EncounterStarted
from skirmish.projections.ruleset import (
    ActionInfo,
    Detail,
    Flag,
    GOES_DOWN,
    GOES_DOWN_OPTION,
    Option,
    Ruleset,
    Stat,
    options_in_force,
)
from skirmish.projections.rulesets.percent_activity.vocabulary import (
    ACTIONS,
    BLEEDING,
    ENCUMBERED,
    INSTANT,
    MOVE,
    RULES,
    R_ROUND,
    STAGGER,
)
from skirmish.projections.rulesets.percent_activity.state import Fighter, PaState
from skirmish.projections.rulesets.percent_activity.fold import PaFold
from skirmish.projections.rulesets.percent_activity.view import PaView
from skirmish.projections.rulesets.percent_activity.decide_round import PaRound
from skirmish.projections.rulesets.percent_activity.decide_actions import PaActions, percent_span


class PercentActivity(PaRound, PaActions, PaFold, PaView):
    """The percent-activity ruleset (package docstring): its declarations, with the decisions, fold
    and view of its mixins."""

    state_type = PaState
    id = "percent-activity"
    rules_file = RULES
    vital = "hits"
    round_rule = R_ROUND
    options = {
        "instant-cost": Option(
            "10", ("1", "10", "25"),
            "activity % each instantaneous action after the round's first takes (Instantaneous actions)",
        ),
        GOES_DOWN: GOES_DOWN_OPTION,
    }
    stats = {
        "qu": Stat("Quickness bonus, added to initiative"),
        "hits": Stat("hits the combatant can take (wounded past half of them)", minimum=1),
    }
    actions = {
        **{
            name: ActionInfo(
                percent_span(low, high),
                "faster than its maximum at -1 per % under it" if high is not None and high > low
                else "done as declared; goes beside a held or round-to-round action" if name == MOVE
                else "any % from its minimum; over 100 % it spans rounds" if high is None
                else "the table's share",
            )
            for name, (low, high) in ACTIONS.items()
        },
        INSTANT: ActionInfo("0 % the first a round", "each further one takes the instant-cost option's %"),
    }
    details = {
        "ready": Detail("NAME,NAME: weapon ready, +4 initiative (round 1 only)", ("round",)),
        "surprised": Detail("NAME,NAME: surprised, -4 initiative this round", ("round",)),
    }
    # `round`, `next`, `damage` and `upkeep` read no flag; the engine refuses any given.
    flags = {
        "percent": Flag("the activity it takes: under its most at -1 per % under it (Actions)", ("declare",), int),
        "target": Flag("whom the action is aimed at", ("declare",)),
        "trigger": Flag("hold the action until this happens, or lose it at the upkeep (Conditional Action)",
                        ("declare",)),
        "outcome": Flag("what the roll gave, in the GM's words", ("resolve",)),
        "hits": Flag("hits dealt to the action's target", ("resolve",)),
        "per_round": Flag("bleeding: hits lost at each upkeep (Upkeep)", ("effect",)),
        "rounds": Flag("how many rounds a stun or the GM's own effect lasts (Upkeep)", ("effect",)),
        "end": Flag("end the effect now", ("effect",)),
    }
    # The Upkeep's effects and the condition the text's table names; any other timed
    # effect (a spell) is the GM's own: `effect WHO KIND --rounds N --custom`.
    effects = {
        BLEEDING: "--per-round N hits lost at each upkeep (Upkeep)",
        "stunned-unable-to-parry": "--rounds N, the most severe stun (Upkeep)",
        "stunned": "--rounds N (Upkeep)",
        "dazed": "--rounds N, the mildest stun (Upkeep)",
        STAGGER: "removed at the upkeep (Upkeep)",
        ENCUMBERED: "until ended: a condition of the initiative table (Initiative)",
    }
    state_version = 3  # the shape of this ruleset's state: raise it when the state structs change (it keys cached snapshots)

    def vital_left(self, f: Fighter) -> int:
        return f.hits - f.damage

    def initial(self, started: EncounterStarted) -> PaState:
        options = options_in_force(self, started)
        return PaState(options=options, seed=started.seed)

    def lasting(self, state: PaState, who: str) -> list[CarriedEffect]:
        # Bleeding and encumbered last until ended; the rest count rounds or end at the upkeep.
        return [CarriedEffect(kind=e.kind, per_round=e.per_round or None)
                for e in state.fighters[who].effects.values() if e.kind in (BLEEDING, ENCUMBERED)]


RULESET: Ruleset[PaState] = PercentActivity()
