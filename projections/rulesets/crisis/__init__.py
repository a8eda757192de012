"""The crisis ruleset: turns in a fixed order, 6 action points at most, +4 each turn.

Rules text: shared/rules/crisis.md (cited below by section). The clock is the turn and
whose move it is within it: ``round`` starts a turn (the first one rolls the turn order:
3d6 + Intelligence + Speed + circumstance), every combatant gains its AP, and the one at
the top of the order acts; ``next`` passes to the next combatant able to act, and past
the last one ends the turn (``upkeep`` ends it at once). An action is paid when it is
declared; an attack is rolled then and there against the target's defence, and a hit
waits for its damage (``resolve WHO --hits N``).

Open points of the text, each an option recorded in the encounter's first event:

- ``turn-order`` (default ``once``): Turn Order has every character roll when a crisis
  begins and speaks of a new turn beginning once everyone has acted, with no new roll;
  rules/README.md lists the question. ``each-turn`` rolls the order anew every turn.
- ``armour-dr`` (default ``all-damage``): Damage first reduces "the damage taken" by an
  armour's DR, then says DR reduces damage to Health. The first, general paragraph does
  not limit itself to Health and the second does not say "only", so DR applies to every
  hit by default; ``health-only`` applies it only to the part that reaches Health (the
  armour then loses Durability only when some damage reaches Health).
- ``spill`` (default ``no``): once Endurance "has reached 0, all subsequent damage" goes
  to Health: read literally, the excess of the hit that empties Endurance is lost.
  ``yes`` sends that excess on to Health.
- ``stun`` (default ``rest-of-turn``): Stunned "can't act on current turn and does not
  regain AP". By default the stunned combatant cannot act for the rest of the turn the
  stun lands in and gains no AP at the next turn's start (the only AP gain after the
  stun lands), then acts normally. ``next-turn``: it also cannot act in that next turn.
  A stun applied between turns covers the coming turn either way.
- ``sneak`` (default ``half-move``): "half the character's Speed modifier + 5" can be
  half of (Speed + 5), half a Move, or half the modifier, plus 5. A sneak slower than a
  move is the point of the action, so the default halves the whole move; ``half-speed``
  is Speed / 2 + 5. The text rounds neither half: a distance is kept exact, counted in
  half metres (its Derivation's ``per`` is 2), so Speed 2 sneaks 3.5 m.
- ``hit-on-tie`` (default ``yes``): Attacking gives the attack formula and Defence a
  fixed value to beat, but not what a tie does. An attack equal to the defence hits by
  default (a target number reached); ``no`` needs the attack to exceed it.

Readings chosen where the text is silent:

- A surprise round (Surprise Round) is a turn of its own before the first turn of
  combat, numbered like any turn: ``round --with surprise=NAME[,NAME]`` on the very first
  turn. The turn order is rolled for everyone then (the crisis begins); only the named
  attackers gain AP and act in it.
- Ties (Turn Order) are settled by higher Intelligence, then higher Speed (both as in
  force, Drunk included), then by re-rolling 3d6 among those still tied, again until no
  two are tied; each re-roll is recorded with its faces (typed dice: ``--roll NAME-reroll=..``,
  a second re-roll ``NAME-reroll2``, ...). A re-roll only orders the tied ones among
  themselves: their turn order value stays. A combatant added after the order was rolled
  rolls at the next turn's start and takes its place in the order.
- AP carry from turn to turn (the die in front of the player), capped at 6 (Actions).
  A turn's gain is 4, 2 once Endurance is 0 (Damage), none while stunned or dead.
- An action of more than 6 AP (Actions) takes every AP the combatant has when it is
  declared; on each later turn ``resolve WHO`` puts that turn's AP into it (the text's
  "can spend": the player chooses), at most what is still owed, so the flintlock example
  ends with 1 AP left. Declaring any other action cancels it and its progress is lost.
- The table's costs apply unless the GM gives ``--ap N`` (Available Actions: "unless
  stated otherwise"); ``custom`` is any other action and needs ``--ap``.
- Total cover (Cover) makes the target unhittable: the attack is refused, no AP spent.
  Cover is given per attack (``--with cover=``), since it is relative to the attacker.
- Drunk (Conditions) takes 2 off every ability and skill figure a formula uses: Intelligence
  and Speed in turn order, skill and ability in an attack and in damage, Melee and Might
  (or Speed) in defence, Speed in a move's distance.
- Prone forbids a melee attack; Stand Up is only for the prone and ends Prone. Being prone
  facing the attacker counts as heavy cover (Cover): the GM gives ``--with cover=heavy``.
- A critical hit (Critical damage) puts the weapon's critical damage straight on Health.
  Armour with Durability left still reduces it by DR (it is damage to Health, which DR
  reduces under both readings of ``armour-dr``) and loses 2 Durability (never below 0).
- Health at 0 or less: dead (Damage). The dead lose their AP at the next turn's start,
  are skipped in the order and cannot be attacked, damaged further or healed. The text
  has no other down state (Endurance at 0 only halves the AP gain): no ``goes-down``.
- ``heal WHO N`` (the text has no healing): Health first, up to its stat, then
  Endurance, up to its stat; refused for the dead.
- ``leave`` drops the leaver's action under way; a combatant who left is skipped in the
  order (status ``left``) until ``return``, and gains no AP meanwhile.

The view (projections/view.py): the clock counts turns, its moment is whose move it is;
between turns nobody is next (the next turn's start settles who acts). Combatants are
listed in the turn order, the dead in their places, those who joined since it was rolled
after. Status: ``left``, ``dead`` at Health 0 or less, anyone else ``fighting`` (a stunned one too:
it only loses its moments while the stun lasts). The vital figure is Health, with Endurance
beside it (``vital2``: damage empties it first), the budget the AP left of those the
combatant had this turn; a stun shows the turns it still covers, the one under way
included.
"""

from skirmish.projections.rulesets.crisis.rules import RULESET, Crisis


__all__ = ["RULESET", "Crisis"]
