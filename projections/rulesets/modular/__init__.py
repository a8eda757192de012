"""The modular ruleset: six-second rounds of turns in initiative order, each turn movement plus three action slots.

Rules text: shared/rules/modular.md. The text has one heading, "Combat Rules"; citations
name it and the paragraph they rely on ("modular.md, Combat Rules, Evade"). The clock is
whose turn it is: ``round`` rolls initiative (1d100 + Agility) for everyone and starts
the first turn, ``next`` ends the turn and starts the next one, and after the last turn
runs the upkeep. On its turn a combatant may move up to its Speed in any number of
``move`` declarations (difficult terrain counts double) and take one primary, one
secondary and one tertiary action; each is recorded when declared (the GM reads any
skill check's result off the dice and records damage with ``damage``).

Open points of the text, each an option recorded in the encounter's first event:

- ``initiative-ties`` (default ``agility``): the text orders initiative from greatest to
  least and says nothing of ties. ``agility``: the higher Agility goes first (the figure
  the formula already counts as readiness); combatants still tied roll off with 1d100,
  higher first, again until settled. ``roll-off``: tied combatants roll off at once.
  Roll-off dice can be typed like any other: ``--roll tie:Hauser=40`` (a second roll-off
  ``tie2:Hauser``, and so on).
- ``goes-down`` (default ``at-0``): the text gives no health (see below), so nothing in
  it says when a combatant goes down: at 0 health left or less (``below-0``: below 0;
  ``never``: the GM takes combatants out with ``leave``). A down combatant rolls no
  initiative and its turn is passed by; its declarations are refused; the damage that
  downs it drops its pending Ready. ``heal`` (never above its health) brings it back,
  from its next turn (the next round, if this round's order was rolled without it).
- ``secondary-list`` (default ``secondary``): the list under "Secondary actions" is
  introduced as "options for primary actions". The paragraph is about secondary actions
  and describes each of them as quick, so five-foot step, retrieve, stash and use item
  are secondary actions by default; ``primary`` takes the sentence literally.

Readings chosen where the text is silent:

- Speed is a stat override for quirks and perks (``--stat speed=N``, at least 5 feet);
  without it, 30 + 5 x floor(Agility / 10). ``init-bonus`` adds quirks' and perks' bonus
  to initiative.
- A combatant acts on its own turn only; slots and movement are per round (each
  combatant has one turn a round). A combatant added during a round acts from the next.
- The text gives no health; combat still needs a figure for who is going down, so each
  combatant has ``health`` and ``damage`` records what the GM reads off the tables.
- Dash doubles the round's movement (Speed x 2, overrides included); movement before the
  Dash counts against that total.
- Ready takes the primary slot and holds the courses of play (``--with then=...`` and
  ``--with else=...``, each actions joined by ``+``, e.g. ``skill+drop-item+move``). Each
  course has exactly one primary action (not Ready) and at most one secondary and one
  tertiary; a secondary, tertiary or ``move`` may be named only if still unused, and is
  then held for the Ready (the combatant cannot use it elsewhere this turn). A course's
  movement is the movement left when Ready was taken, plus Speed if its primary is Dash.
  ``resolve WHO`` plays the triggered course at once, in anyone's turn or between rounds;
  ``resolve WHO --with course=untriggered`` plays the other. When the readied
  combatant's next turn would start with the Ready still pending, ``round``/``next``
  refuse and say to play the other course first. ``cancel WHO`` drops a Ready; its slots
  stay spent.
- Statuses: ``left`` after ``leave`` (its Ready dropped; back with ``return``, from the
  next round), ``down`` as ``goes-down`` says, otherwise ``fighting``.
- The text names no conditions: every effect is the GM's own (``effect WHO KIND --rounds
  N --custom``); a kind already on the table is taken again without ``--custom``.
- Evade lasts until the combatant's next turn starts (in the next round, as initiative is
  re-rolled) or until the combat ends: ``upkeep --with combat=over`` ends the combat at
  any moment, mid-round too, and with it every Evade and pending Ready; no round starts
  after it.
- ``upkeep`` (or ``next`` after the last turn) ends the round: timed effects (``effect
  WHO KIND --rounds N``) lose a round each, one event per tick. ``upkeep`` is refused
  while turns remain: ``next`` skips a turn.
"""

from skirmish.projections.rulesets.modular.rules import RULESET, Modular


__all__ = ["RULESET", "Modular"]
