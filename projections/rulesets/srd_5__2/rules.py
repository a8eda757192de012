"""srd-5.2's declarations: its id, options (the open points of the text, §16), stats, actions,
effects, flags and details, and ``add``, which checks a combatant's stats against them; the
ruleset assembled from its roster, clock, actions, attacks, fold and view."""

from skirmish.eventlog.commands import AddCombatant
from skirmish.eventlog.events import CombatantAdded, EncounterStarted, Event
from skirmish.projections.ruleset import (
    Detail,
    Dice,
    Flag,
    Option,
    Rules,
    Ruleset,
    Stat,
    decide_add,
    decides,
    options_in_force,
)
from skirmish.projections.rulesets.srd_5__2.block import DAMAGE_TYPES, parse_actions
from skirmish.projections.rulesets.srd_5__2.decide_actions import Actions
from skirmish.projections.rulesets.srd_5__2.fold import Fold
from skirmish.projections.rulesets.srd_5__2.roster import Roster
from skirmish.projections.rulesets.srd_5__2.state import SrdState
from skirmish.projections.rulesets.srd_5__2.view import Narration
from skirmish.projections.rulesets.srd_5__2.vocabulary import ACTIONS, EFFECTS, PC_SIDES, RULES, USES


def _opt(default: str, choices: tuple[str, ...], doc: str) -> Option:
    return Option(default, choices, doc)


class Srd52(Roster, Actions, Fold, Narration, Rules[SrdState]):
    """srd-5.2: its declarations and ``add`` here, its other decisions, fold and view from the mixins."""

    id = "srd-5.2"
    state_type = SrdState
    rules_file = RULES
    state_version = 1
    options = {
        "surprise": _opt("5.2", ("5.2", "5.1"), "5.2: Disadvantage on Initiative; 5.1: no move, action or reaction "
                         "on its first turn (§1)"),
        "ties": _opt("ask", ("ask", "dex", "rolloff"), "Initiative ties: round --with order=A+B (ask), higher Dex "
                     "then characters (dex), or d20 roll-offs (rolloff) (§2)"),
        "initiative": _opt("roll", ("roll", "score"), "d20 + modifier, or the score 10 + modifier, +/-5 (§2)"),
        "identical": _opt("count", ("count", "none"), "who shares a roll: the creatures one `add --count` made, "
                          "or nobody (§2)"),
        "late": _opt("roll", ("roll", "last"), "a combatant added after round 1: rolls and takes its place, or "
                     "acts last (§16)"),
        "legendary-start": _opt("full", ("full", "none"), "legendary uses before the monster's first turn (§16)"),
        "legendary-repeat": _opt("1", ("1", "any"), "legendary uses after the same creature's turn (§16)"),
        "legendary-skipped": _opt("yes", ("yes", "no"), "a legendary use after a turn that was skipped (§16)"),
        "lair": _opt("none", ("none", "count-20"), "5.2 has no lair action; 5.1: one at count 20, losing ties "
                     "(§14)"),
        "concentration-save": _opt("per-hit", ("per-hit", "per-type"), "one save a hit, or one a damage type of "
                                   "the hit (§16)"),
        "concentration-temp": _opt("save", ("save", "no-save"), "damage wholly absorbed by temporary HP asks a "
                                   "save (§16)"),
        "temp-at-0": _opt("failure", ("failure", "none"), "damage absorbed by temporary HP at 0 HP is a failed "
                          "death save (§16)"),
        "stable-damage": _opt("yes", ("yes", "no"), "the damage that ends Stable also counts a failure (§16)"),
        "exhaustion-saves": _opt("yes", ("yes", "no"), "Exhaustion lowers death saves (§16)"),
        "monster-death": _opt("instant", ("instant", "as-character"), "a monster at 0 HP dies, or falls like a "
                              "character (§9)"),
        "minute-ends": _opt("start", ("start", "end"), "--with minutes=N ends at the start or the end of the "
                            "creator's turn (§12, §16)"),
        "missed-turn": _opt("round-end", ("round-end", "lasts"), "an effect anchored to a turn that never "
                            "comes ends with that round, or lasts until ended (§16)"),
        "stunned": _opt("5.2", ("5.2", "5.1"), "5.2: Stunned may move; 5.1: Speed 0 (§13, §16)"),
        "exhaustion": _opt("5.2", ("5.2", "5.1"), "5.2: -2 a level, -5 ft a level; 5.1: six cumulative "
                           "effects (§16)"),
        "dc-cap": _opt("30", ("30", "none"), "the Concentration DC is at most 30 (5.2) or has no cap (§11)"),
        "rounds": _opt("roll-on", ("roll-on", "stop", "reroll"), "roll-on: the next round starts at `next` in the "
                       "same order (§1, §2); stop: each round ends, `round` starts the next in the same order; "
                       "reroll: each round ends, `round` rolls every Initiative again (a house rule)"),
        "recharge-incapacitated": _opt("roll", ("roll", "skip"), "recharge rolled while Incapacitated (§16)"),
    }
    stats = {
        "hp": Stat("Hit Point maximum (§9)", minimum=1),
        "ac": Stat("Armor Class (§6)", minimum=0),
        "dex": Stat("Dexterity modifier", required=False, minimum=-10, maximum=20),
        "init": Stat("Initiative modifier (default: dex) (§2)", required=False, minimum=-10, maximum=30),
        "legendary": Stat("Legendary Action uses a round (§14)", required=False, minimum=0, maximum=10),
        "pc": Stat("1: a character (death saves), 0: a monster; default by side (§9)", required=False,
                   minimum=0, maximum=1),
        "speed": Stat("Speed in feet", required=False, default=30, minimum=0),
        "con": Stat("Constitution saving throw modifier (§11)", required=False, minimum=-10, maximum=30),
        "attacks": Stat("attack rolls in one Attack action (§4)", required=False, default=1, minimum=1, maximum=10),
        "recharge": Stat("X of Recharge X-6; 0: none (§14)", required=False, minimum=0, maximum=6),
        "lair": Stat("1: in its lair (§14)", required=False, minimum=0, maximum=1),
        "resist": Stat("Resistance: damage types, commas (§7)", required=False, kind=str),
        "vulnerable": Stat("Vulnerability: damage types, commas (§7)", required=False, kind=str),
        "immune": Stat("Immunity: damage types or conditions, commas (§7)", required=False, kind=str),
        "xp": Stat("experience points the creature is worth (a bestiary foe's)", required=False, minimum=0),
        "actions": Stat("its stat block's actions: NAME: CLAUSE, ...; NAME: ... (docs/rulesets/srd-5.2.md: Stat blocks)",
                        required=False, kind=str),
        "saves": Stat("saving throw modifiers: dex +6, wis +2 (default: dex and con)", required=False, kind=str),
        "slots": Stat("spell slots by level: 1:4, 2:3 (the Magic action's --with slot=N spends one)",
                      required=False, kind=str),
        "senses": Stat("senses, shown to the GM: darkvision 60, passive 12", required=False, kind=str),
    }
    actions = ACTIONS
    effects = EFFECTS
    flags = {
        "target": Flag("attack, help: whom", ("declare",)),
        "trigger": Flag("ready: what fires it", ("declare",)),
        "amount": Flag("move: feet", ("declare",)),
        "rounds": Flag("effect: the anchor's turns it lasts", ("effect",)),
        "end": Flag("effect: end it now (Exhaustion: one level)", ("effect",)),
    }
    details = {
        "as": Detail("attack or action taken as", ("declare",), USES),
        "hit": Detail("attack bonus, e.g. 5 or -1", ("declare",)),
        "damage": Detail("damage: dice and modifier (1d6+2) or a stat block's average (7)", ("declare",)),
        "type": Detail("damage type", ("declare", "damage"), tuple(sorted(DAMAGE_TYPES))),
        "cover": Detail("attack: the target's cover, +2 or +5 AC; total: no target (§6)", ("declare",),
                        ("half", "three-quarters", "total")),
        "opportunity": Detail("attack as=reaction: an opportunity attack, none against a Disengage (§5)",
                              ("declare",), ("yes",)),
        "knockout": Detail("melee attack: a blow that would drop it leaves it at 1 HP, Unconscious (§9)",
                           ("declare",), ("yes",)),
        "extra": Detail("attack: a second damage type's dice, e.g. 2d6:fire (typed as extra:NAME)", ("declare",)),
        "adjust": Detail("a bonus or penalty to damage before Resistance (§7)", ("declare", "damage")),
        "adv": Detail("Advantage from a source the tracker does not see", ("declare", "round"), ("yes",)),
        "dis": Detail("Disadvantage from a source the tracker does not see", ("declare", "round"), ("yes",)),
        "range": Detail("melee (within 5 ft, default) or ranged", ("declare",), ("melee", "ranged")),
        "then": Detail("ready: the action it holds", ("declare",)),
        "spell": Detail("magic, ready, concentration: the spell; effect: the Concentration (of --with by) "
                        "holding it", ("declare", "effect")),
        "concentration": Detail("magic: the spell needs Concentration", ("declare",), ("yes",)),
        "recharge": Detail("uses the Recharge ability", ("declare",), ("yes",)),
        "slot": Detail("magic or a stat block's action: the level of the spell slot it spends", ("declare",),
                       tuple(str(n) for n in range(1, 10))),
        "half": Detail("a stat block's save: half damage on a success (default: as the block says)", ("declare",),
                       ("yes", "no")),
        "bonus": Detail("hide, help: the check's modifier", ("declare",)),
        "cost": Detail("legendary: uses spent (5.1 options cost 2-3)", ("declare",), ("1", "2", "3")),
        "terrain": Detail("move: difficult terrain or crawling, 1 extra foot a foot", ("declare",),
                          ("difficult", "crawl")),
        "by": Detail("bonus: what grants it; effect: its source", ("declare", "effect")),
        "crit": Detail("damage: from a Critical Hit (two failures at 0 HP)", ("damage",), ("yes",)),
        "surprised": Detail("round 1: the surprised, joined by +", ("round",)),
        "order": Detail("ties=ask: the tied, first to last, joined by +", ("round",)),
        "at": Detail("effect: ends at the start or end of the anchor's turn", ("effect",), ("start", "end")),
        "of": Detail("effect: whose turn it is anchored to", ("effect",)),
        "minutes": Detail("effect: 1 minute = 10 rounds (§12)", ("effect",)),
        "temp": Detail("heal: temporary HP, no stacking with the old (§8)", ("heal",), ("yes",)),
        "keep": Detail("heal --with temp=yes: the grant kept, the higher (default), new or old (§8)", ("heal",),
                       ("higher", "new", "old")),
    }

    def initial(self, started: EncounterStarted) -> SrdState:
        return SrdState(options=options_in_force(self, started))

    # --- add: the stats above checked, then srd-5.2's defaults -------------------------------

    @decides(AddCombatant)
    def _add(self, state: SrdState, command: AddCombatant, dice: Dice) -> list[Event]:
        added = decide_add(self, state.names(), command)
        out: list[Event] = []
        for event in added:
            assert isinstance(event, CombatantAdded)
            stats = dict(event.stats)
            if "init" not in command.stats:
                stats["init"] = stats["dex"]  # §2: d20 + Dex modifier unless the stat block says
            if "pc" not in command.stats:
                stats["pc"] = 1 if event.side.strip().lower() in PC_SIDES else 0
            traits = {key: self.trait_words(key, words) for key, words in event.traits.items()}
            block = parse_actions(traits.get("actions", ""))
            multi = max((a.attacks for a in block), default=0)
            if multi and "attacks" not in command.stats:
                stats["attacks"] = multi  # Multiattack: its attack rolls in one Attack action (§14)
            charged = [a.recharge for a in block if a.recharge]
            if charged and "recharge" not in command.stats:
                stats["recharge"] = charged[0]  # Recharge X-6 (§14)
            out.append(CombatantAdded(name=event.name, side=event.side, stats=stats, traits=traits))
        return out


RULESET: Ruleset[SrdState] = Srd52()
