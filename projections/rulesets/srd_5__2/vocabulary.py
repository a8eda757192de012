"""srd-5.2's words: the rules text it cites, its conditions and effects, its actions and how
they are taken, and the small helpers its decisions and its fold share."""

from skirmish.eventlog.commands import Declare
from skirmish.projections.ruleset import ActionInfo, detail_int

RULES = "srd-5.2-combat.md"


def R(section: int) -> str:  # noqa: N802 - reads as the text's own "§N"
    return f"{RULES} §{section}"


LAIR = ""  # the lair's place in the order (no combatant has an empty name)
KNOCKED_OUT = "knocked out"  # §9: wakes after a Short Rest, on healing or first aid
PC_SIDES = frozenset({"party", "players", "pcs", "characters", "heroes"})
INCAPACITATING = frozenset({"incapacitated", "paralyzed", "petrified", "stunned", "unconscious"})
CONDITIONS: dict[str, str] = {
    "blinded": "attacks against it: Advantage; its attacks: Disadvantage (§13)",
    "charmed": "can't attack the charmer (--with by=NAME) (§13)",
    "deafened": "can't hear; nothing the tracker counts (§13)",
    "exhaustion": "a level a receipt, -2 a level on D20 Tests, -5 ft a level; 6: dead; --end removes one (§13)",
    "frightened": "Disadvantage on its attacks (§13)",
    "grappled": "Speed 0; Disadvantage on attacks but against the grappler (--with by=NAME) (§13)",
    "incapacitated": "no action, Bonus Action or Reaction; Concentration ends (§13)",
    "invisible": "Advantage on Initiative and its attacks; attacks against it: Disadvantage (§13)",
    "paralyzed": "Incapacitated, Speed 0; attacks against: Advantage, a melee hit is Critical (§13)",
    "petrified": "Incapacitated, Speed 0; attacks against: Advantage; Resistance to all damage (§13)",
    "poisoned": "Disadvantage on its attacks (§13)",
    "prone": "its attacks: Disadvantage; melee against: Advantage, ranged: Disadvantage (§13)",
    "restrained": "Speed 0; attacks against: Advantage; its attacks: Disadvantage (§13)",
    "stunned": "Incapacitated; attacks against: Advantage (§13)",
    "unconscious": "Incapacitated and Prone, Speed 0; attacks against: Advantage, melee hits Critical (§13)",
}
EFFECTS: dict[str, str] = {
    **CONDITIONS,
    "concentration": "--with spell=NAME: one at a time; --end drops it (§11)",
}
# A mark beside each condition's word on the GM's page (projections/page/gm_lines.py), and
# beside the words the view says of a combatant (death saves, stable, ...): read as well as
# the word, never instead of it.
MARKS: dict[str, str] = {
    "blinded": "\u2298", "charmed": "\u2665", "deafened": "\u266a", "exhaustion": "\u2639", "frightened": "\u26a1",
    "grappled": "\u2297", "incapacitated": "\u2716", "invisible": "\u25cc", "paralyzed": "\u2744",
    "petrified": "\u25c6", "poisoned": "\u2623", "prone": "\u21e9", "restrained": "\u229e", "stunned": "\u2737",
    "unconscious": "\u263e", "concentration": "\u25ce",
    "death saves": "\u271a", "stable": "\u2713", "bloodied": "\u25bc", "ready": "\u25b6", "ready fired": "\u25b6",
    "reaction used": "\u21ba", "temp": "+",
}
USES = ("action", "bonus", "reaction", "legendary", "ready")
# What `declare` reads for each action (ActionInfo.takes), as _declare and the helpers it
# calls read them: how the action is taken (`as`; a legendary use's `cost`, a Bonus
# Action's `by`) for the actions of §4, and each action's own inputs.
_USE = ("as", "cost", "by")
_ACT = (*_USE, "target", "recharge")  # an action of §4 with no inputs of its own (Acted's target and recharge)
ACTIONS: dict[str, ActionInfo] = {
    "attack": ActionInfo("action", "--target WHO --with hit=N --with damage=1d6+2 --with type=T: one attack roll "
                         "(§4, §6)",
                         ("target", "hit", "damage", "type", "extra", "adjust", "range", "cover", "adv", "dis",
                          "opportunity", "knockout", "recharge", *_USE)),
    "dash": ActionInfo("action", "extra movement equal to its Speed this turn (§4)", _ACT),
    "disengage": ActionInfo("action", "no opportunity attacks from its movement this turn (§4, §5)", _ACT),
    "dodge": ActionInfo("action", "attacks against it: Disadvantage until its next turn starts (§4)", _USE),
    "help": ActionInfo("action", "--target ENEMY: an ally's next attack on it has Advantage; a dying ally: "
                       "DC 10 Wis (Medicine) to stabilise (§4, §9)", ("target", "bonus", *_USE)),
    "hide": ActionInfo("action", "--with bonus=N: DC 15 Dex (Stealth); Invisible while hidden (§4)", ("bonus", *_USE)),
    "influence": ActionInfo("action", "a Cha or Wis check (§4)", _ACT),
    "magic": ActionInfo("action", "--with spell=NAME [--with concentration=yes] [--with recharge=yes] (§4, §11)",
                        ("spell", "concentration", *_ACT)),
    "ready": ActionInfo("action", "--trigger TEXT --with then=ACTION: held until it fires (`resolve`) or its next "
                        "turn starts (§4)", ("trigger", "then", "spell", *_USE)),
    "search": ActionInfo("action", "a Wis check (§4)", _ACT),
    "study": ActionInfo("action", "an Int check (§4)", _ACT),
    "utilize": ActionInfo("action", "use an object that needs an action (§4)", _ACT),
    "move": ActionInfo("movement", "--amount FEET [--with terrain=difficult|crawl]: split around the action (§3)",
                       ("amount", "terrain", "as", "cost")),  # as=ready: a readied move fired
    "stand": ActionInfo("half Speed", "stand up from Prone (§3)", ()),
    "prone": ActionInfo("free", "drop Prone (not at Speed 0) (§3)", ()),
    "interact": ActionInfo("free", "one free object interaction a turn; a second is Utilize (§3)", ()),
    "bonus": ActionInfo("Bonus Action", "--with by=WHAT grants it (§3)", ("by",)),
    "legendary": ActionInfo("legendary use", "after another creature's turn [--with cost=N] (§14)",
                            ("cost", "spell", "target")),
    "lair": ActionInfo("lair action", "at count 20 under option lair=count-20 (§14)", ()),
}
ACTION_NAMES = frozenset({"attack", "dash", "disengage", "dodge", "help", "hide", "influence", "magic", "ready",
                          "search", "study", "utilize"})


def uses_spent(cmd: Declare, use: str) -> int:
    """The legendary uses an action taken as one spends (--with cost=N, §14); 1 for any other use."""
    return detail_int(cmd, "cost", 1) if use == "legendary" else 1


def part_key(index: int, who: str) -> str:
    """The dice key of a stat block's damage part: dmg:WHO, then extra:WHO, extra3:WHO..."""
    return f"dmg:{who}" if index == 0 else f"extra:{who}" if index == 1 else f"extra{index + 1}:{who}"


def two_d20_why(adv: list[str], dis: list[str]) -> str:
    """Why a d20 Test rolls one die or two (§6), for a refusal of the faces the GM typed."""
    if adv and dis:
        return (f"Advantage ({', '.join(adv)}) and Disadvantage ({', '.join(dis)}) cancel out: "
                f"one d20 ({R(6)})")
    if adv:
        return f"Advantage ({', '.join(adv)}) rolls two d20s and keeps the higher ({R(6)})"
    if dis:
        return f"Disadvantage ({', '.join(dis)}) rolls two d20s and keeps the lower ({R(6)})"
    return ""


def comma_words(text: str) -> list[str]:
    return [w.strip().lower() for w in text.split(",") if w.strip()]
