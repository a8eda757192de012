"""The phases ruleset: a 30-second turn of six 5-second phases, one action a phase.

Rules text: shared/rules/phases.md, cited below by section (the paragraph leads of
"Turn Sequence" - Agility and Weapon Bulks, Repetition, Opportunity Fire, Ambush - are
cited as sections of their own). The clock is the turn's phase, 6 down to 1, and within
a phase the initiative value being called: the start of the phase (repetitive actions)
first, then the phase's own number, then each higher value (Turn Sequence). ``next``
moves to the next call at which someone may act, skipping phases nobody acts in, and
ends the turn after phase 1. There are no dice: initiative is a stat (1 to 6), lowered
by wounds and panic, which the GM records as effects.

Open points of the text, each an option recorded in the encounter's first event:

- ``after-interrupt`` (default ``prone-or-cover``): a character who interrupts a
  repetitive action may take its next action only at its next regular call, and that
  action "may only be to go prone or to duck behind cover" (Repetition). Ducking behind
  cover is not an action of the list (Actions); by default it is a crawl, walk, trot or
  run declared ``--with cover=yes``, the way the list lets a character reach cover.
  ``prone-only`` allows only the one listed action the sentence names, go prone.
- ``wounds`` (default ``worst``): "slightly wounded" lowers initiative by 1, "seriously
  wounded" by 3 (Initiative). The text names a character's state, so by default the
  worst wound counts once; ``each`` subtracts 1 per slight and 3 per serious wound.

Readings chosen where the text is silent, documented here and in docs/rulesets/:

- Initiative (1 to 6) is a stat the GM gives; panic lowers it by the amount the GM rules
  (``effect WHO panic --with by=N``: the text gives no figure); it never goes below 0,
  and at 0 the character does not act at all, repetition and opportunity fire included.
  A change takes effect at once: calls still to come in the turn use the new value.
- A call at which nobody may act is skipped; a character who does not declare when its
  call comes passes that phase (the GM moves on with ``next``).
- Repetition is chosen in phase 6, by a character that has taken no action yet this turn
  (``declare WHO ACTION --with repeat=yes``, at any call of phase 6: the first phase's
  action is conducted then). ``next`` conducts it at the start of every later phase.
  It lasts the turn. ``cancel WHO`` interrupts it; the restriction on the next action
  lasts until that action is taken, across the turn's end if need be.
- Same initiative: when a character fires at or attacks in melee one acting at the same
  call of the same phase (actions that interfere), the action records who goes first: the higher Agility minus weapon bulk;
  equal figures act at the same time. Agility and bulk default to 0; ``ready --with
  bulk=N`` changes the weapon, and so the bulk.
- Aiming ends with any other action, except opportunity fire in a phase in which the
  character could act anyway ("still considered to be aiming", Opportunity Fire). An
  aim enables fire in a later phase only; opportunity fire needs a target that moved
  this phase (it "passes through" the line of sight), counts as the character's action
  for the phase, and in a phase the character could not otherwise act in uses the aim
  up. The first shot is aimed only at the target named when the aim began (it was
  visible then); an aim at an area (``--with area=TEXT``) gives quick shots, as does
  automatic fire (``--with auto=yes``). The same holds for fire at the character's own
  call after an aim. Aiming may be declared before the first turn (an ambush laid).
- Whether a target is (or was this phase) in line of sight, and which weapons may fire
  on the move, are the GM's judgement at the table: the tool records, it does not check.
- Crawling leaves the character prone; a prone character's walk, trot or run, or a move
  combined with fire or melee, stands it up and halves the distance. Go prone and stand
  up are refused when the character already is so; mount and dismount likewise.
- A reload that needs several reload actions (``--with reloads=N`` on the first) keeps
  its progress until done, whatever the character does in between.
- Ambush: ``round --with ambush=SIDE`` on the first turn puts every member of that side
  (the moving force) with an initiative other than 6 on repetitive movement, a walk
  ("simply moving") unless ``--with ambush-move=crawl|trot|run`` says otherwise.
- ``resolve WHO --outcome TEXT`` records what the character's latest action this turn
  achieved: hit rolls and damage belong to other chapters than this text.
- ``upkeep`` ends the turn once phase 1 is under way (those still to be called pass);
  the text has no hits, so ``damage`` is refused in favour of wound effects.
- Treating the whole turn as one, without phases (The Combat Turn), is not modelled:
  the GM runs such a turn outside the tool.

How the view reads the state (projections/view.py):

- The clock counts turns. Its moment is "phase N, start" (where repetitive actions are
  conducted) or "phase N, call I" (initiative I called). ``now`` are those the moment is
  for: called and yet to act, or who took their action at it (opportunity fire answers
  no call, so it puts no one there). ``next`` are those the next ``next`` calls; between
  turns, the first call of the coming turn.
- Combatants are listed in the calling order of the phase under way (phase 6 of the
  coming turn, between turns): repetitive actions at its start, then the phase's own
  initiative and each higher one, equal ones by Agility less bulk (Turn Sequence); those
  who do not act in it after, in the order added. The text orders phases, not turns.
- Initiative is the vital figure (of its value before wounds and panic); at 0 the
  character is ``out``: it "may not act at all" but is "not necessarily unconscious"
  (Initiative). The text has no death, and no hits: ``heal`` is refused, pointing at
  ``effect WHO slight-wound --end`` (a wound taken off raises the initiative again).
  The budget is the turn's actions: those still to come, of those taken and to come.
- ``leave`` takes a character out of every call until ``return`` (status ``left``,
  listed last); its declarations are refused. No ``goes-down`` option: the text's
  initiative 0 is its "out".
- Effects are the text's wounds and panic; no other kind is taken (not even with
  ``--custom``: a phases effect always changes the initiative).
"""

from skirmish.projections.rulesets.phases.rules import RULESET, Phases


__all__ = ["RULESET", "Phases"]
