"""Hypothesis's profiles: `ci` runs every property with the examples its test asks for, `dev`
(the default off CI) a quarter of them, for a quick loop at the desk.

    HYPOTHESIS_PROFILE=ci pytest        # as CI runs it (CI=true picks it too)

A test asks for ``examples(N)``: N under `ci`, N // 4 (at least 3) under `dev`; a test that
asks nothing runs hypothesis's 100 under `ci`, 25 under `dev`."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, max_examples=25)  # hypothesis asks 100 by default
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
settings.load_profile(PROFILE)


def examples(n: int) -> int:
    """How many examples a property that asks for ``n`` runs under the loaded profile."""
    return n if PROFILE == "ci" else max(3, n // 4)
