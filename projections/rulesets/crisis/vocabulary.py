"""crisis's words: the sections of its rules text cited, its figures, conditions, actions and
cover (crisis.md)."""

RULES = "crisis.md"
R_ORDER = f"{RULES}, Turn Order"
R_SURPRISE = f"{RULES}, Surprise Round"
R_ACTIONS = f"{RULES}, Actions"
R_TABLE = f"{RULES}, Available Actions"
R_CONDITIONS = f"{RULES}, Conditions"
R_ATTACK = f"{RULES}, Attacking"
R_MELEE = f"{RULES}, Melee Combat"
R_RANGED = f"{RULES}, Ranged Combat"
R_COVER = f"{RULES}, Cover"
R_DAMAGE = f"{RULES}, Damage"
R_CRITICAL = f"{RULES}, Critical damage"

AP_MAX = 6  # Actions: AP never exceed 6 nor fall below 0
AP_PER_TURN = 4
AP_PER_TURN_EXHAUSTED = 2  # Damage: Endurance at 0
DRUNK = -2  # Conditions: Drunk
PER_EXTRA_ENEMY = -2  # Melee Combat
CONDITIONS = ("drunk", "prone", "stunned")

# Available Actions: name -> AP (None: the GM gives --ap).
ACTIONS: dict[str, int | None] = {
    "attack": 2,
    "draw": 1,
    "hide": 3,
    "move": 1,
    "sneak": 1,
    "stand-up": 2,
    "use-item": 2,
    "custom": None,
}
ACTION_DOCS = {
    "attack": "attack with a normal weapon: rolled at once against --target's defence",
    "draw": "draw a weapon and make it ready",
    "hide": "hide from those without direct vision",
    "move": "move up to Speed + 5 m",
    "sneak": "move quietly, half a move (option sneak)",
    "stand-up": "stand up when prone (ends Prone)",
    "use-item": "use an item; the item may state its own AP (--ap)",
    "custom": "any other action, at the AP the GM gives (--ap N); over 6 AP spans turns",
}
COVER: dict[str, int | None] = {"none": 0, "cover": 1, "heavy": 3, "total": None}
ATTACK_DETAILS = ("skill", "ability", "hit", "circumstance", "range", "cover", "enemies", "defence")

