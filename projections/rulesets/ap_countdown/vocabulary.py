"""ap-countdown's words: the rules text's sections, its action table and its numbers."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from typing import Literal


RULES = "ap-countdown.md"
R_AP = f"{RULES}, Action Points"
R_INIT = f"{RULES}, Initiative"
R_RES = f"{RULES}, Resolution"
R_UPKEEP = f"{RULES}, Upkeep"
R_ACTIONS = f"{RULES}, Actions"
R_INSTANT = f"{RULES}, Instantaneous actions"
R_R2R = f"{RULES}, Round to Round Actions"
R_HELD = f"{RULES}, Conditional Actions"
R_CANCEL = f"{RULES}, Canceling action"
R_MOVE = f"{RULES}, Movement"
R_CHARGE = f"{RULES}, Charging"
R_PARRY = f"{RULES}, Parry"

AP_PER_ROUND = 4
COUNT_PER_AP = 5
RANGE_PENALTY_PER_AP = -25

# Action table (ap-countdown.md, Actions): name -> (least AP, most AP; None = no upper bound).
ACTIONS: dict[str, tuple[int, int | None]] = {
    "ranged-attack": (1, 3),
    "melee-attack": (2, 4),
    "thrown-attack": (2, 4),
    "dodge": (4, 4),
    "ammo-reload": (6, 6),
    "use-shield": (0, 0),
    "mount": (4, 4),
    "dismount": (4, 4),
    "rapid-dismount": (2, 2),
    "prone": (1, 1),
    "stand": (1, 1),
    "perception": (1, 2),
    "orientation-maneuver": (0, 0),
    "draw": (1, 1),
    "sheath": (2, 2),
    "get-item": (3, 3),
    "drop-item": (0, 0),
    "shift-item": (1, 1),
    "eat-drink": (2, 2),
    "power-reload": (8, 8),
    "first-aid": (8, 8),
    "pick-lock": (20, 20),
    "disarm-trap": (20, 20),
    "static-action": (8, None),
}
SPECIAL_ACTIONS = ("move", "parry")
MELEE = "melee-attack"

# Stun effects from most to least severe (ap-countdown.md, Upkeep).
STUNS = {"stunned-unable-to-parry": 3, "stunned": 2, "dazed": 1}
STAGGER = "staggered"
BLEEDING = "bleeding"
ORIENTATION = {"failure": None, "partial": -20, "near": -10, "success": 0}
# Charging (ap-countdown.md, Charging): least relative speed in m/s -> (hits x, critical +).
CHARGE = ((12, 4, 3), (6, 3, 2), (3, 2, 1))
LATE_EFFECT_AP = 2  # "spent less than 2 AP before being stunned/staggered"

Step = Literal["resolves", "progresses", "readies", "ready"]
