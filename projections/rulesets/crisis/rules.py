"""crisis's declarations: its options (the open points of the text), stats, actions, inputs
and effects, assembled with its decisions, fold and view (package docstring)."""

from skirmish.eventlog.events import EncounterStarted
from skirmish.projections.ruleset import ActionInfo, Detail, Flag, Option, Ruleset, Stat, options_in_force
from skirmish.projections.rulesets.crisis.decide_actions import CrisisActions
from skirmish.projections.rulesets.crisis.decide_turns import CrisisTurns
from skirmish.projections.rulesets.crisis.fold import CrisisFold
from skirmish.projections.rulesets.crisis.state import CrisisState
from skirmish.projections.rulesets.crisis.view import CrisisView
from skirmish.projections.rulesets.crisis.vocabulary import ACTION_DOCS, ACTIONS, COVER, RULES


class Crisis(CrisisTurns, CrisisActions, CrisisFold, CrisisView):
    """The crisis ruleset (package docstring): its declarations, with the decisions, fold and view
    of its mixins."""

    id = "crisis"
    rules_file = RULES
    options = {
        "turn-order": Option("once", ("once", "each-turn"), "roll the turn order once per crisis, or every turn (Turn Order)"),
        "armour-dr": Option(
            "all-damage", ("all-damage", "health-only"),
            "armour DR reduces every hit, or only damage to Health (Damage)",
        ),
        "spill": Option("no", ("no", "yes"), "the excess of the hit that empties Endurance goes on to Health (Damage)"),
        "stun": Option(
            "rest-of-turn", ("rest-of-turn", "next-turn"),
            "a stun stops acting for the rest of the turn, or through the next turn too (Conditions)",
        ),
        "sneak": Option("half-move", ("half-move", "half-speed"), "sneak distance (Speed + 5) / 2, or Speed / 2 + 5 (Available Actions)"),
        "hit-on-tie": Option("yes", ("yes", "no"), "an attack equal to the defence hits (Attacking)"),
    }
    stats = {
        "int": Stat("Intelligence modifier (turn order)"),
        "speed": Stat("Speed modifier (turn order, defence vs ranged, movement)"),
        "endurance": Stat("Endurance pool", minimum=0),
        "health": Stat("Health pool", minimum=1),
        "melee": Stat("Melee skill modifier (defence vs melee)", required=False),
        "might": Stat("Might modifier (defence vs melee)", required=False),
        "armour": Stat("armour's defence modifier", required=False, minimum=0),
        "dr": Stat("armour's damage reduction (DR)", required=False, minimum=0),
        "durability": Stat("armour's Durability", required=False, minimum=0),
        "order-bonus": Stat("perks, flaws or race on turn order (circumstance)", required=False),
    }
    actions = {
        name: ActionInfo("--ap N" if cost is None else f"{cost} AP", ACTION_DOCS[name])
        for name, cost in ACTIONS.items()
    }
    details = {
        "surprise": Detail("NAME[,NAME]: attackers of a surprise round, on the first turn (Surprise Round)", ("round",)),
        "skill": Detail("the attack's skill modifier (Attacking)", ("declare",)),
        "ability": Detail("ability modifier: of the attack, or of its damage (Attacking; Damage)", ("declare", "resolve", "damage")),
        "hit": Detail("the weapon's hit modifier (Attacking)", ("declare",)),
        "circumstance": Detail("perks, flaws, race: on the attack or the damage", ("declare", "resolve", "damage")),
        "range": Detail("which defence the attack meets (Defence)", ("declare",), ("melee", "ranged")),
        "cover": Detail("the target's cover against this attacker (Cover)", ("declare",), tuple(COVER)),
        "enemies": Detail("enemies in the target's melee range, the attacker included (Melee Combat)", ("declare",)),
        "defence": Detail("circumstance on the target's defence (Defence)", ("declare",)),
        "critical": Detail("a critical hit: the weapon's critical damage, to Health (Critical damage)",
                           ("resolve", "damage"), ("yes", "no")),
        "what": Detail("what a custom action or item use is, in the GM's words", ("declare",)),
    }
    flags = {
        "ap": Flag("a custom action's AP: over 6 it goes on in later turns (Action Points)", ("declare",), int),
        "target": Flag("whom the action is aimed at", ("declare",)),
        "hits": Flag("damage dealt to the target: Endurance, then Health (Damage)", ("resolve",)),
        "end": Flag("end the condition now (Conditions)", ("effect",)),
    }
    effects = {
        "drunk": "all Abilities and Skills at -2 (Conditions)",
        "prone": "no melee attacks (Conditions)",
        "stunned": "cannot act this turn and gains no AP at the next (Conditions)",
    }
    state_type = CrisisState
    # The shape of this ruleset's state: raise it when the state structs change (it keys
    # cached snapshots). 2: mutable, fighters by name, conditions by kind.
    state_version = 4  # 3: ``left``; 4: ``budgets``

    # --- initial / apply ------------------------------------------------------------------

    def initial(self, started: EncounterStarted) -> CrisisState:
        options = options_in_force(self, started)
        return CrisisState(options=options, seed=started.seed)


RULESET: Ruleset[CrisisState] = Crisis()
