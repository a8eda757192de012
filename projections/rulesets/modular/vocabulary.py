"""modular's words: the sections of its rules text cited, its figures, and its actions with
the slot each takes (modular.md, Combat Rules)."""

from typing import Literal


RULES = "modular.md"
R_COMBAT = f"{RULES}, Combat Rules"
R_SPEED = f"{R_COMBAT}, Speed"
R_INIT = f"{R_COMBAT}, Initiative"
R_TURN = f"{R_COMBAT}, Turn"
R_MOVE = f"{R_COMBAT}, Movement"
R_TERRAIN = f"{R_COMBAT}, Difficult terrain"
R_PRIMARY = f"{R_COMBAT}, Primary actions"
R_DASH = f"{R_COMBAT}, Dash"
R_EVADE = f"{R_COMBAT}, Evade"
R_READY = f"{R_COMBAT}, Ready"
R_SECONDARY = f"{R_COMBAT}, Secondary actions"
R_STEP = f"{R_COMBAT}, Five Foot Step"
R_TERTIARY = f"{R_COMBAT}, Tertiary actions"

BASE_SPEED = 30  # Speed = 30 + 5 x floor(Agility / 10) (Combat Rules, Speed)
SPEED_PER_STEP = 5
AGILITY_STEP = 10
TIE = "tie"

Slot = Literal["primary", "secondary", "tertiary"]
SLOTS: tuple[Slot, ...] = ("primary", "secondary", "tertiary")
MOVE = "move"
READY = "ready"
DASH = "dash"
EVADE = "evade"
SECONDARY_LIST = ("five-foot-step", "retrieve-item", "stash-item", "use-item")
# The action table (Combat Rules): action -> its slot and the paragraph it comes from.
ACTIONS: dict[str, tuple[Slot, str]] = {
    "skill": ("primary", R_PRIMARY),
    DASH: ("primary", R_DASH),
    EVADE: ("primary", R_EVADE),
    READY: ("primary", R_READY),
    "secondary-skill": ("secondary", R_SECONDARY),
    "five-foot-step": ("secondary", R_STEP),
    "retrieve-item": ("secondary", R_SECONDARY),
    "stash-item": ("secondary", R_SECONDARY),
    "use-item": ("secondary", R_SECONDARY),
    "tertiary-skill": ("tertiary", R_TERTIARY),
    "drop-item": ("tertiary", R_TERTIARY),
}
