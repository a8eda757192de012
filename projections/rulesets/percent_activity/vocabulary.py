"""percent-activity's words: the rules text's sections, its activity table and its numbers."""

# No `from __future__ import annotations`: a decoder of these Structs would compile each
# annotation written as a string, at every command's start (docs/performance.md).

from typing import Literal


RULES = "percent-activity.md"
R_ROUND = f"{RULES}, Round"
R_INIT = f"{RULES}, Initiative Step"
R_ACTIONS = f"{RULES}, Resolve Actions step"
R_UPKEEP = f"{RULES}, Upkeep step"
R_HELD = f"{RULES}, Conditional Action"
R_INSTANT = f"{RULES}, Instantaneous actions"
R_R2R = f"{RULES}, Round to Round Actions"

ACTIVITY = 100  # % a round (Resolve Actions step)
CONDITION = 4  # each initiative modifier of the table is 4 either way (Initiative Step)

# Activity table (Resolve Actions step): name -> (least %, most %; None = a minimum only).
ACTIONS: dict[str, tuple[int, int | None]] = {
    "move": (10, None),
    "melee-attack": (60, 100),
    "parry": (60, 100),
    "ranged-attack": (30, 60),
    "dodge": (50, 100),
    "ammo-reload": (60, 60),
    "draw": (20, 20),
    "change-weapons": (50, 50),
    "perception": (10, 30),
    "static-maneuver": (100, None),
    "simple-action": (10, 30),
    "complex-action": (20, 100),
}
INSTANT = "instantaneous"
MOVE = "move"
MELEE = "melee-attack"

# Stun effects from most to least severe (Upkeep step).
STUNS = {"stunned-unable-to-parry": 3, "stunned": 2, "dazed": 1}
STAGGER = "staggered"
BLEEDING = "bleeding"
ENCUMBERED = "encumbered"
# Initiative conditions typed on `round`, not kept as effects (Initiative Step).
ROUND_CONDITIONS = {"ready": "weapon ready", "surprised": "surprised"}

Step = Literal["resolves", "held", "progresses", "done"]
