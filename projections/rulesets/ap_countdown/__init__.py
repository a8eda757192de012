"""The ap-countdown ruleset: five-second rounds counted down by initiative, 4 action points.

Rules text: shared/rules/ap-countdown.md (cited below by section). The clock is the
GM's initiative count. Actual initiative = base initiative + 5 x AP left (Initiative);
an action is declared at the current count and resolves, paid, 5 x AP lower
(Resolution). ``next`` moves the count to the next value at which someone declares or
an action completes, and runs the upkeep when the countdown is over.

Open points of the text, each an option recorded in the encounter's first event:

- ``initiative`` (default ``each-round``): the text says initiative "is rolled anew every
  round" and that base initiative "is rolled once at the start". The section opens with
  the per-round roll and the table in rules/README.md keeps it, so 2d10 is rolled every
  round by default; ``once`` rolls the base in round 1 and keeps it.
- ``carry-ap`` (default ``no``): "Combatants receive 4 Action Points every round"; the
  only carry-over the text names is a round-to-round action, so unspent AP are lost at
  the end of the round. ``yes`` adds them to the next round's 4, at most 4 of them.
- ``goes-down`` (default ``at-0``): the text counts hits but never says when a combatant
  is down. At 0 hits left or less (``below-0``: below 0; ``never``: the GM takes
  combatants out with ``leave``) the combatant is down: the countdown passes it by, its
  declarations are refused, and the hit that downs it cancels its action under way
  (a held action or a round-to-round one included). ``heal`` brings it back; it declares
  again from the next count its initiative allows. Down, or gone (``leave``), when a round
  begins, it is no combatant of that round (Initiative: "every combatant" rolls): no
  initiative, no AP, nothing lost at the upkeep; healed or back, it waits for the next.
- ``pace-penalty`` (default ``worst``): Movement's pace penalty "applies to all other
  actions performed in the round". An action declared before the combatant changed to a
  harder pace and resolved (performed) after it takes the harder pace's penalty: its
  penalty at resolution is its own (range) penalty plus the worse of the two paces',
  recorded on the resolution. ``declared`` keeps the penalty worked out at declaration.

Statuses (the view's): ``left`` after ``leave``; ``down`` as ``goes-down`` says; ``out``
after a failed Orientation Maneuver, for the rest of the round (Canceling action); else
``fighting``.

Readings chosen where the text is silent, documented here and in docs/rulesets/:

- Stun and stagger ask whether the combatant "had spent less than 2 AP before being
  stunned". The AP spent that round is captured when the effect is applied; the check
  governs the first upkeep after it (a stun that landed late in a round does not count
  that round). Later upkeeps reduce it normally, also a milder stun that only becomes
  the most severe after some upkeeps. An effect applied between rounds (after an upkeep,
  before the next round) counts 0 AP spent: the upkeep it meets first is the next
  round's. Only the most severe stun effect loses a round per upkeep (Stunned/Unable to
  Parry, then Stunned, then Dazed).
- "1 pace change allowed per tick": a tick is one initiative count.
- A round-to-round action is one costing more than 4 AP and more than the AP held when
  it is declared. Its AP are paid round by round as each round's share completes;
  interrupting it loses the progress. With carried AP (option carry-ap) a fighter may
  hold an action's whole cost: it is paid and resolves when its AP are spent
  (Resolution), 6 AP declared at 45 resolving at 15.
- A held (conditional) action must fit in the AP left; it readies (AP paid) at the
  count where it would resolve and stays held across rounds until the GM resolves it
  when the trigger happens, or it is cancelled. Declaring any other action except
  movement breaks the concentration and cancels it, as it does a round-to-round action.
  A held instantaneous action would resolve on the count it is declared on: it is ready
  at once.
- A combatant may declare at any count at or below its actual initiative (waiting is
  allowed), never above it: that is declaring out of turn.
- Cancelling is not itself a declared action; the Orientation Maneuver's result, if the
  GM calls for one, is a delay subtracted from initiative for the rest of the round. A
  failure allows no action at all for the rest of the round, a pace change included
  (movement is an action: Actions).
- Parry is declared "at the beginning of the round, or as soon as melee ensues" (Parry):
  before the combatant's first action of the round, or at any count once a melee attack
  involving it is under way (its own, or one declared against it), even after it has
  acted; the parry is then against that attacker unless ``--target`` names another. Once
  a round. When a melee attack against the parrying combatant resolves, the parry is used: the AP of its
  pending melee attack are paid at once and that attack can no longer be cancelled; with
  no melee attack pending, the next action it declares this round must be one. AP left
  over after that melee attack are free for other actions.
- The charging table's speeds are thresholds: 3 to 5 m/s x2 (+1), 6 to 11 x3 (+2), 12 or
  more x4 (+3); below 3 m/s there is no charge bonus.
- First aid (8 AP, "per hit/round") reduces the target's bleeding by 1 hit a round each
  time it resolves.
- The text has no healing: ``heal WHO N`` records hits given back by the GM (a potion, a
  spell), never above the combatant's hits.
- Effects: bleeding, the stuns (stunned-unable-to-parry, stunned, dazed) and staggered
  are the Upkeep's; any other timed effect (a spell) is the GM's own: ``effect WHO KIND
  --rounds N --custom``.

The package, one part a file: vocabulary.py (the text's sections, its action table and
numbers), state.py, events.py (stored: tags and fields never change), decide_round.py (the
round, the count, the upkeep, what the GM does between actions) and decide_actions.py
(declare, resolve, cancel), fold.py (the appliers), view.py (the view and the words of the
events), each a mixin, assembled in rules.py with the declarations into ``ApCountdown``.
"""

from skirmish.projections.rulesets.ap_countdown.rules import RULESET, ApCountdown

__all__ = ["RULESET", "ApCountdown"]
