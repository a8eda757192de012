"""ap-countdown's declarations: its options (the open points of the text), stats, actions,
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
from skirmish.projections.rulesets.ap_countdown.vocabulary import ACTIONS, BLEEDING, RULES, R_INIT, STAGGER
from skirmish.projections.rulesets.ap_countdown.state import ApState, Fighter, bleeding_per_round
from skirmish.projections.rulesets.ap_countdown.fold import ApFold
from skirmish.projections.rulesets.ap_countdown.view import ApView
from skirmish.projections.rulesets.ap_countdown.decide_round import ApRound
from skirmish.projections.rulesets.ap_countdown.decide_actions import ApActions


class ApCountdown(ApRound, ApActions, ApFold, ApView):
    """The ap-countdown ruleset (package docstring): its declarations, with the decisions, fold and
    view of its mixins."""

    id = "ap-countdown"
    rules_file = RULES
    vital = "hits"
    round_rule = R_INIT
    options = {
        "initiative": Option(
            "each-round", ("each-round", "once"),
            "roll 2d10 base initiative every round, or once at the start (Initiative)",
        ),
        "carry-ap": Option(
            "no", ("no", "yes"), "unspent AP carry into the next round (Action Points)"
        ),
        GOES_DOWN: GOES_DOWN_OPTION,
        "pace-penalty": Option(
            "worst", ("worst", "declared"),
            "an action resolved at a harder pace than it was declared at takes that pace's "
            "penalty (Movement: it applies to all other actions performed in the round), or keeps its own",
        ),
    }
    effects = {
        BLEEDING: "--per-round N hits lost at each upkeep, until staunched (Upkeep)",
        "stunned-unable-to-parry": "--rounds N, the most severe stun (Upkeep)",
        "stunned": "--rounds N (Upkeep)",
        "dazed": "--rounds N, the mildest stun (Upkeep)",
        STAGGER: "removed at the upkeep unless 2 AP were spent before it (Upkeep)",
    }
    stats = {
        "qu": Stat("Quickness bonus, added to initiative"),
        "hits": Stat("hits the combatant can take", minimum=1),
        "penalty": Stat(
            "current action penalty, e.g. -20: -1 initiative per full -10",
            required=False, maximum=0,
        ),
    }
    actions = {
        **{
            name: ActionInfo(
                f"{low} AP" if low == high else f"{low}+ AP" if high is None else f"{low}-{high} AP",
                "faster than its maximum at -25 per AP" if high is not None and high > low else "the table's cost",
                ("ap", "target", "trigger"),  # _declare: the cost, the aim, a held action's trigger
            )
            for name, (low, high) in ACTIONS.items()
        },
        "move": ActionInfo("no AP", "change pace: --pace walk|run|... --penalty N (1 pace change a count)",
                           ("pace", "penalty")),  # _move
        "parry": ActionInfo("no AP", "--amount N before the first action of the round; binds a melee attack",
                            ("amount", "target")),  # _parry: the bonus, and the attacker it binds
    }
    details: dict[str, Detail] = {}  # every input has its own flag
    flags = {
        "ap": Flag("AP to spend: fewer than the action's most resolve sooner, at -25 per AP (Actions)", ("declare",), int),
        "target": Flag("whom the action is aimed at", ("declare",)),
        "trigger": Flag("hold the action, ready at its count, until this happens (Conditional Actions)", ("declare",)),
        "pace": Flag("move: the new pace, e.g. walk or run (Movement)", ("declare",), str),
        "penalty": Flag("move: the pace's penalty off the movement table, 0 or less (Movement)", ("declare",), int),
        "amount": Flag("parry: the bonus moved from attack to defence (Parry)", ("declare",)),
        "outcome": Flag("what the roll gave, in the GM's words", ("resolve",)),
        "hits": Flag("hits dealt to the action's target (Resolution)", ("resolve",)),
        "charge": Flag("a melee attack's charge: the relative speed in m/s (Charging)", ("resolve",), int),
        "orientation": Flag("the Orientation Maneuver's result: failure, partial, near or success (Canceling action)",
                            ("cancel",), str),
        "per_round": Flag("bleeding: hits lost at each upkeep; a scene counter: its step (Upkeep)", ("effect",)),
        "rounds": Flag("how many rounds a stun or the GM's own effect lasts (Upkeep)", ("effect",)),
        "start": Flag("a scene counter's starting value", ("effect",), int),
        "end": Flag("end the effect, or the scene counter, now", ("effect",)),
    }
    state_type = ApState
    # ApState's shape: raise it when ApState, Fighter, Action, Effect or Counter change
    # (2: fighters by name, and ``left``).
    state_version = 4  # 3: Action.pace_penalty, Effect.custom; 4: Fighter.had

    def vital_left(self, f: Fighter) -> int:
        return f.hits - f.damage

    def initial(self, started: EncounterStarted) -> ApState:
        options = options_in_force(self, started)
        return ApState(options=options, seed=started.seed)

    def lasting(self, state: ApState, who: str) -> list[CarriedEffect]:
        # Bleeding runs until staunched; stuns count rounds and staggered ends at the upkeep.
        bleed = bleeding_per_round(state.fighter(who))
        return [CarriedEffect(kind=BLEEDING, per_round=bleed)] if bleed > 0 else []


RULESET: Ruleset[ApState] = ApCountdown()
