"""phases's words: the sections of its rules text cited, its moves, actions and wounds
(phases.md)."""

from typing import Literal


RULES = "phases.md"
R_TURN = f"{RULES}, The Combat Turn"
R_ACTIONS = f"{RULES}, Actions"
R_INIT = f"{RULES}, Initiative"
R_SEQ = f"{RULES}, Turn Sequence"
R_AGILITY = f"{RULES}, Agility and Weapon Bulks"
R_REPEAT = f"{RULES}, Repetition"
R_OPP = f"{RULES}, Opportunity Fire"
R_AMBUSH = f"{RULES}, Ambush"

PHASES = 6
# Movement actions and their distance in metres (phases.md, Actions).
MOVES = {"crawl": 2, "walk": 8, "trot": 15, "run": 30}
# What each kind of melee attack may be combined with (phases.md, Actions: Melee).
MELEE_KINDS = {
    "armed": ("walk", "trot"),
    "strike": ("walk", "trot"),
    "grapple": ("walk", "trot"),
    "escape": ("walk", "trot"),
    "diving-blow": ("walk", "trot", "run"),
}
FIRE_MOVES = ("walk", "trot")  # "with some weapons" (phases.md, Actions: Fire): the GM's call
ACTIONS: dict[str, str] = {
    "fire": "at a target in (or this phase in) line of sight; --with move=walk|trot with some weapons; "
            "opportunity fire when aiming (Opportunity Fire)",
    "aim": "--target NAME or --with area=TEXT; enables fire at a target crossing the line of sight later",
    "reload": "--with reloads=N when the weapon takes several reload actions (the first of them)",
    "melee": "--with melee=armed|strike|grapple|escape|diving-blow, --with move=walk|trot (run: diving blow)",
    "ready": "ready or change equipment; --with bulk=N for the new weapon's bulk",
    "crawl": "2 m, prone",
    "walk": "8 m (4 m when standing up from prone)",
    "trot": "15 m (halved when standing up)",
    "run": "30 m (halved when standing up)",
    "prone": "go prone",
    "stand": "stand up",
    "mount": "get in a vehicle or on a mount",
    "dismount": "get out or off",
    "talk": "a sentence or so; --with talk=TEXT combines it with any action but fire",
}
WOUNDS = {"slight-wound": 1, "serious-wound": 3}
PANIC = "panic"
INTERRUPT_ACTIONS = {"prone-or-cover": "go prone, or move to cover (--with cover=yes)", "prone-only": "go prone"}

How = Literal["call", "repeated", "opportunity"]
