"""The GM's page makes its forms from what each ruleset declares (projections/page/gm_data.py),
so a ruleset added later, like the duel of tests/toy/, gets its forms for free, and the
page's own code names no ruleset."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import pytest

from skirmish.projections.page.gm_data import FORMS, inputs
from skirmish.projections.ruleset import flag_name, get_ruleset, registry

RULESETS = sorted(registry())


def test_the_toy_ruleset_is_among_them() -> None:
    assert "duel" in RULESETS  # tests/conftest.py installs it as a third party's would be


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_flag_detail_action_and_effect_declared_is_on_the_page(ruleset_id: str) -> None:
    ruleset: Any = get_ruleset(ruleset_id)
    made = inputs(ruleset)
    forms = {form.command: form for form in made.forms}
    assert set(forms) == set(FORMS)
    for name, flag in ruleset.flags.items():
        for command in flag.commands:
            if command in forms:
                assert flag_name(name) in [f.flag for f in forms[command].fields], (command, name)
    for key, detail in ruleset.details.items():
        for command in detail.commands:
            if command in forms:
                keys = [f.key for f in forms[command].fields if f.flag == "--with"]
                assert key in keys, (command, key)
    assert [a.name for a in made.actions] == list(ruleset.actions)
    assert [a.cost for a in made.actions] == [info.cost for info in ruleset.actions.values()]
    assert [e.name for e in made.effects] == list(ruleset.effects)
    # the GM's own effect, in every ruleset (README, Effects)
    assert "--custom" in [f.flag for f in forms["effect"].fields]


def test_shared_flags_take_their_fields_kind() -> None:
    """--hits is a number (Resolve.hits: int | None), --end a switch (bool), --outcome text."""
    made = inputs(get_ruleset("ap-countdown"))
    resolve = {f.flag: f.kind for f in next(f for f in made.forms if f.command == "resolve").fields}
    effect = {f.flag: f.kind for f in next(f for f in made.forms if f.command == "effect").fields}
    assert (resolve["--hits"], resolve["--outcome"], effect["--end"]) == ("number", "text", "switch")


@pytest.mark.parametrize("asset", ["gm.js", "gm.html", "gm.css"])
def test_the_pages_code_names_no_ruleset(asset: str) -> None:
    text = files("skirmish.projections.page").joinpath(asset).read_text(encoding="utf-8")
    for ruleset_id in RULESETS:
        assert ruleset_id not in text, (asset, ruleset_id)
    for ruleset_id in RULESETS:  # nor an action of one
        for action in get_ruleset(ruleset_id).actions:
            if len(action) > 5:  # short words ("move", "aim") are English, not a ruleset's
                assert f'"{action}"' not in text, (asset, action)


def test_the_benchmarks_count_the_pads_options_and_the_forms_widgets_as_the_page_makes_them() -> None:
    """benchmarks/gm_live.py's presses: a list is two (open, pick), a box to tick one."""
    from benchmarks.gm_live import presses, widgets

    srd = widgets("srd-5.2")
    # the card, 2 and 1 on the pad, the damage type's list (open, pick), Damage
    assert presses(["damage", "Hauser", "21", "--with", "type=fire"], srd) == 1 + 2 + 2 + 1
    # the card, 5, temporary HP ticked, Heal
    assert presses(["heal", "Hauser", "5", "--with", "temp=yes"], srd) == 1 + 1 + 1 + 1
    # who and action (two each), the target (two), hit typed "4" and its field (two),
    # Advantage ticked (one), the dice "Drake=6" typed (eight), declare (one)
    assert presses(["declare", "Drake", "attack", "--target", "Hauser", "--with", "hit=4", "--with", "adv=yes",
                    "--roll", "Drake=6"], srd) == 2 + 2 + 2 + 2 + 1 + 8 + 1
