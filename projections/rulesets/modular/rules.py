"""modular's declarations: its options (the open points of the text), stats, actions and
inputs, assembled with its decisions, fold and view (package docstring)."""

from skirmish.eventlog.events import EncounterStarted
from skirmish.projections.ruleset import (
    GOES_DOWN,
    GOES_DOWN_OPTION,
    ActionInfo,
    Detail,
    Flag,
    Option,
    Ruleset,
    Stat,
    options_in_force,
)
from skirmish.projections.rulesets.modular.decide import ModularDecide
from skirmish.projections.rulesets.modular.fold import ModularFold
from skirmish.projections.rulesets.modular.state import Fighter, ModularState
from skirmish.projections.rulesets.modular.view import ModularView
from skirmish.projections.rulesets.modular.vocabulary import DASH, EVADE, MOVE, R_INIT, READY, RULES


class Modular(ModularDecide, ModularFold, ModularView):
    """The modular ruleset (package docstring): its declarations, with the decisions, fold and view
    of its mixins."""

    id = "modular"
    state_type = ModularState
    rules_file = RULES
    vital = "health"
    round_rule = R_INIT
    options = {
        "initiative-ties": Option(
            "agility", ("agility", "roll-off"),
            "equal initiative: higher Agility first, then a 1d100 roll-off; or a roll-off at once",
        ),
        GOES_DOWN: GOES_DOWN_OPTION,
        "secondary-list": Option(
            "secondary", ("secondary", "primary"),
            "the list under Secondary actions (five-foot step, retrieve, stash, use item) "
            "is secondary, or primary as its introducing sentence says",
        ),
    }
    stats = {
        "agility": Stat("Agility: initiative 1d100 + Agility, Speed 30 + 5 x floor(Agility / 10)", minimum=0),
        "dodge": Stat("dodge class (Evade raises it by half)", minimum=0),
        "health": Stat("health the combatant can lose before going down", minimum=1),
        "speed": Stat(
            "Speed in feet set by quirks and perks (default: from Agility)", required=False, minimum=5
        ),
        "init-bonus": Stat("initiative bonus from quirks and perks", required=False),
    }
    actions = {
        MOVE: ActionInfo("movement", "--amount FEET, up to Speed a round, any number of times; "
                                     "--with terrain=difficult costs double"),
        "skill": ActionInfo("primary", "a skill check marked Primary (--with skill=NAME, --target WHO)"),
        DASH: ActionInfo("primary", "a second movement: the round's movement is twice Speed"),
        EVADE: ActionInfo("primary", "dodge class + floor(dodge class / 2) until the next turn"),
        READY: ActionInfo("primary", "--trigger TEXT --with then=COURSE --with else=COURSE "
                                     "(actions joined by +, one primary each)"),
        "secondary-skill": ActionInfo("secondary", "a skill check marked Secondary"),
        "five-foot-step": ActionInfo("secondary, see option secondary-list", "a step that is not movement and leaves Dash alone"),
        "retrieve-item": ActionInfo("secondary, see option secondary-list", "take an item from a holder, or from the ground here"),
        "stash-item": ActionInfo("secondary, see option secondary-list", "put an item back in a holder"),
        "use-item": ActionInfo("secondary, see option secondary-list", "use an item in hand that is not an attack"),
        "tertiary-skill": ActionInfo("tertiary", "a skill check marked Tertiary"),
        "drop-item": ActionInfo("tertiary", "let an item in hand fall here"),
    }
    details = {
        "terrain": Detail("difficult terrain costs double movement", ("declare", "resolve"), ("normal", "difficult")),
        "skill": Detail("the skill checked", ("declare",)),
        "then": Detail("a Ready's course if the trigger occurs, e.g. skill+drop-item+move", ("declare",)),
        "else": Detail("a Ready's course if it does not", ("declare",)),
        "course": Detail("which course of a Ready is played (default triggered)", ("resolve",),
                         ("triggered", "untriggered")),
        "feet": Detail("feet moved in a Ready's course", ("resolve",)),
        "combat": Detail("the combat ends: every Evade and pending Ready ends", ("upkeep",), ("over",)),
    }
    flags = {
        "target": Flag("whom the action is aimed at", ("declare",)),
        "trigger": Flag("a Ready's trigger (Combat Rules, Ready)", ("declare",)),
        "amount": Flag("move: feet moved, up to Speed a round (Combat Rules, Movement)", ("declare",)),
        "outcome": Flag("what the check gave, in the GM's words", ("resolve",)),
        "rounds": Flag("how many rounds the effect lasts", ("effect",)),
        "end": Flag("end the effect now", ("effect",)),
    }
    state_version = 3  # the shape of this ruleset's state: raise it when the state structs change (it keys cached snapshots)
    stat_fields = {"speed": "speed_override"}

    # --- initial / evolve ---------------------------------------------------------------

    def vital_left(self, f: Fighter) -> int:
        return f.health - f.damage

    def initial(self, started: EncounterStarted) -> ModularState:
        options = options_in_force(self, started)
        return ModularState(options=options, seed=started.seed)


RULESET: Ruleset[ModularState] = Modular()
