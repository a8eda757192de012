"""The percent-activity ruleset: ten-second rounds, 100 % activity a round, turns high to low.

Rules text: shared/rules/percent-activity.md (cited below by section). Each round rolls
initiative anew, 2d10 + Quickness bonus + the table's modifiers (Initiative Step), and
orders the combatants from highest to lowest. The clock is whose turn it is: in its turn
a combatant declares actions, each taking a share of its 100 % activity (Resolve Actions
step), and the GM resolves them; ``next`` passes the turn, and after the last turn runs
the upkeep (Upkeep step).

Open points of the text, each an option recorded in the encounter's first event:

- ``instant-cost`` (default ``10``): Instantaneous actions says the first one of a round
  is free and each further one "takes 1 AP", a unit this system does not have. ``10``
  charges 10 % each: the smallest share any action of the activity table takes
  (Movement, Perception Roll, Simple Actions), and close to the time one AP stands for
  where the text comes from (a quarter of a 5 s round). ``1`` reads "AP" as "%";
  ``25`` reads it as a quarter of the round's activity.

Readings chosen where the text is silent, documented here and in docs/rulesets/:

- One melee attack a round: the table's row "Melee Attack/Parry" leaves open whether a
  parry counts as that one melee action. It never matters: both take at least 60 %, so
  no round holds a parry and a melee attack. Only melee attacks are counted. (For the
  same reason the budget alone forbids a second melee attack; the one-a-round rule is
  checked first, so the refusal names it.)
- "Wounded (taken more than 50% of hits)" needs the combatant's maximum hits: the stat
  ``hits``. The modifier is derived from the damage recorded when initiative is rolled
  (damage x 2 > hits), never typed; damage taken during a round counts from the next.
- Weapon ready (+4) is given as ``round --with ready=NAME,NAME`` and is refused after
  round 1 (first round of combat only); surprised (-4) as ``round --with
  surprised=NAME,...`` for the round being started; encumbered (-4) is a condition,
  ``effect NAME encumbered``, in force until ended with ``--end``.
- Initiative ties: the higher Quickness bonus goes first, then the combatant added first.
- A combatant's turn holds all its actions of the round (up to 100 %); it may declare
  only in its own turn. A held (conditional) action may be resolved at any moment of the
  round, interrupting whoever is acting.
- The activity of an action is spent when it is declared: cancelling it refunds nothing.
  A range action declared without ``--percent`` takes the range's maximum (no penalty);
  an action with only a minimum (Movement, Static Maneuver) takes that minimum.
- Movement is done as it is declared (no resolve) and interrupts nothing: it may be
  combined with a round-to-round or a held action (Round to Round Actions). Any other
  declaration breaks a held action's concentration and a round-to-round action's
  continuity: they are cancelled, their activity lost.
- A round-to-round action is one of more than 100 % (a Static Maneuver over 100 %). It
  takes, at each upkeep, the activity its combatant has left that round (movement
  declared beside it comes off that share); when what remains fits in a round, the next
  round's start sets that much aside and the action is due in its combatant's turn,
  leaving the rest of the 100 % for other actions. An action of 100 % or less must fit
  in the activity left this round.
- A held action must fit in this round's activity; if it is not triggered by the upkeep
  it is lost (Conditional Action), its activity spent.
- Upkeep also ticks any other effect given with ``--rounds`` (one round each upkeep), as
  the Round section's "any ongoing effects" asks; each stun effect level is its own
  effect, and only the most severe one loses a round per upkeep.

- ``goes-down`` (default ``at-0``; an option, as the text never says when a combatant
  is down): at 0 hits left or less (``below-0``: below 0; ``never``: the GM takes
  combatants out with ``leave``) a combatant is down: it rolls no initiative, its turn is
  passed by, its declarations are refused, and the hit that downs it ends its action
  under way. ``heal`` (never above its hits) brings it back, from the next round if this
  one's order was rolled without it, else at its turn.
- ``leave`` ends the leaver's action under way; the one who returns acts from its turn
  (or the next round, if it left before this round's roll).
- Effects: the Upkeep's (bleeding, the stuns, staggered) and encumbered; any other timed
  effect (a spell) is the GM's own (``--custom``).

The view (projections/view.py): the clock's moment is whose turn it is ("Hauser's
turn"), "between rounds", or "before round 1"; ``now`` is the combatant whose turn it
is (a held action may still go off in anyone's turn), ``next`` the next one in this
round's order who can act, none after the last turn. Combatants are listed in this
round's order, those added since after them, those who cannot act (down, left) last.
Status: ``left``, ``down`` (goes-down), else ``fighting``.

The package, one part a file: vocabulary.py (the text's sections, its action table and
numbers), state.py, events.py (stored: tags and fields never change), decide_round.py
(initiative, the turns, the upkeep, what the GM does between actions) and
decide_actions.py (declare, resolve, cancel), fold.py (the appliers), view.py (the view
and the words of the events), each a mixin, assembled in rules.py with the declarations
into ``PercentActivity``.
"""

from skirmish.projections.rulesets.percent_activity.rules import RULESET, PercentActivity

__all__ = ["RULESET", "PercentActivity"]
