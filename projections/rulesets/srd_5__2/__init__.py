"""The srd-5.2 ruleset: rounds of turns in a fixed Initiative order, attacks against AC, hit points, death saves.

This work includes material from the System Reference Document 5.2 ("SRD 5.2") by Wizards
of the Coast LLC, available at https://www.dndbeyond.com/srd. The SRD 5.2 is licensed under
the Creative Commons Attribution 4.0 International License, available at
https://creativecommons.org/licenses/by/4.0/legalcode.

Rules text: shared/rules/srd-5.2-combat.md, cited by section ("srd-5.2-combat.md §9").
The clock is whose turn it is: the first ``round`` rolls Initiative for everyone (§2) and
the order holds for the whole fight; ``next`` ends the turn (its "until the end" effects
run out) and starts the next one (reaction and legendary uses back, recharge rolled, death
save rolled, "until the start" effects run out: §12); the last turn's ``next`` ends the
round and starts the next in the same order, with no re-roll (§1, §2; under option
``rounds=stop`` or ``reroll`` the GM's ``round`` starts it). Dice typed with ``--roll``: a
combatant's own d20 under its name (initiative, attack, Hide, Help), a group's shared
initiative under the group's name (``Goblin`` for Goblin 1..3), a death save under
``death:NAME`` (the round that rolls a dying character's initiative may start its turn
too), damage under ``dmg:NAME`` (a second damage type's under ``extra:NAME``), a
concentration save under ``con:NAME`` (a second one ``con2:NAME``), a recharge under
``recharge:NAME``, a roll-off under ``tie:NAME``.

Stats: ``hp``, ``ac`` (required), ``dex``, ``init`` (default: ``dex``), ``legendary``,
``pc`` (default 1 on a side named party, players, pcs, characters or heroes, else 0),
``speed``, ``con`` (Con saving throw modifier), ``attacks`` (attack rolls in one Attack
action: Extra Attack, Multiattack), ``recharge`` (X of "Recharge X-6"), ``lair`` (1: in its
lair), and the text stats ``resist``, ``vulnerable``, ``immune`` (damage types, commas;
``immune`` may name conditions too, §7).

Statuses: ``dead`` (a monster at 0 HP under ``monster-death=instant``, massive damage,
three failed death saves, Exhaustion 6: §9, §13), ``down`` (a character at 0 HP:
Unconscious, §9), ``out`` (Incapacitated, Paralyzed, Petrified, Stunned or Unconscious
by an effect while above 0 HP: no action, §13), ``left`` after ``leave``, else
``fighting``.

Open points of the text (§16), each an option recorded in the encounter's first event:
``surprise`` (5.2: Disadvantage on Initiative; 5.1: no move, action or reaction on its
first turn), ``ties`` (ask: ``round --with order=A+B`` orders tied combatants, the round
waits for it; dex: higher modifier then characters, then the order added; rolloff: d20
roll-offs), ``initiative`` (roll or score), ``identical`` (what shares a roll: ``count``,
the creatures one ``add --count`` made, or ``none``), ``late`` (a combatant added after
the first round rolls and takes its place, after any it ties with, or acts ``last``),
``legendary-start`` (full uses before its first turn, or none), ``legendary-repeat`` (1 use after one
creature's turn, or any), ``legendary-skipped`` (uses after a turn that was skipped:
yes or no), ``lair`` (none, or a lair action at count 20 losing ties, by a monster with
``lair=1``), ``concentration-save`` (per-hit: one save a hit, its DC from the hit's whole damage;
per-type: one save a damage type of the hit, ``--with extra=2d6:fire`` being the second,
each DC from that type's damage, typed as ``con:NAME`` then ``con2:NAME``), ``concentration-temp`` (damage wholly
absorbed by temporary HP asks a save, or not), ``temp-at-0`` (damage absorbed by
temporary HP at 0 HP is a failure, or not), ``stable-damage`` (the damage that ends
Stable is also a failure: yes, or no), ``exhaustion-saves`` (Exhaustion lowers death
saves: yes or no), ``monster-death`` (instant, or as a character), ``minute-ends``
(``--with minutes=N`` ends at the start or the end of the creator's turn), ``missed-turn``
(an effect anchored to a turn that never comes ends with the round, or lasts),
``stunned`` (5.2 may move, 5.1 cannot), ``exhaustion`` (5.2 or 5.1), ``dc-cap`` (30 or
none), ``recharge-incapacitated`` (roll or skip).

Readings chosen where the text leaves the tracker free:

- An attack is one ``declare WHO attack --target T --with hit=+5 --with damage=1d6+2
  --with type=slashing`` (``damage=7`` for a stat block's average): the d20, the hit
  against AC, the damage, resistances, temporary HP and what follows are decided at once.
  ``--with as=bonus|reaction|legendary|ready`` takes it as a Bonus Action, a Reaction (an
  opportunity attack), a legendary use or the fired Ready.
- "After another creature's turn" (§14) is the moment ``next`` has ended a turn: a
  legendary use is taken during the following creature's turn (after a round's last
  turn, the next round's first) or, under ``rounds=stop`` or ``reroll``, between rounds,
  once per ended turn under ``legendary-repeat=1``.
- A Bonus Action needs what grants it, ``--with by=WHAT`` (§3).
- Positions are the GM's: ``--with range=ranged`` (melee, within 5 ft, by default),
  ``--with cover=half|three-quarters|total``, ``--with adv=yes``/``dis=yes`` for the
  sources the tracker cannot see (an unseen target, long range); ``--with
  opportunity=yes`` marks a reaction attack as an opportunity attack (refused against a
  creature that took Disengage this turn, §5); ``--with knockout=yes`` leaves a creature a
  melee blow would drop at 1 HP and Unconscious (§9), woken by healing or first aid (a
  Help, DC 10 Wis (Medicine)).
- ``effect WHO KIND --with by=NAME --with spell=S`` ties the effect to NAME's
  Concentration on S: it ends with it (§11).
- Not tracked: saving throws other than death and Concentration saves (the GM types
  their outcome as damage or an effect), spell slots, X/Day uses, rests, mounts and
  shared counts (§2's last point), half damage on a save (the GM types the halved figure).
- ``effect WHO KIND --rounds N`` runs N of the anchor's turns: ``--with at=start|end``
  (default start) of ``--with of=NAME`` (default: the creature whose turn it is, else
  WHO); the current turn's end does not count ("the end of its next turn" is
  ``--rounds 1 --with at=end``). Without ``--rounds`` it lasts until ``--end``.
- Temporary HP: ``heal WHO N --with temp=yes`` while holding some keeps the higher of the
  two (§8: the creature keeps the old or takes the new, never both), or the one
  ``--with keep=new`` or ``keep=old`` names; the event records the choice and the one kept.
- Carried into another fight (``new --carry``): HP, temporary HP (§8: until used up or a
  Long Rest), the Exhaustion level, death saves, Stable, dead, knocked out (§9), and the
  conditions nobody's turn, Concentration or other creature ends; the rest ends with the
  fight, named. A saved fight set up (``new --from``) also brings each initiative: the
  first ``round`` places them by it.
- A saved fight in progress (``new --from`` a fight with a combatant acting) is taken up
  where its table stopped by a ``resume`` after the carries: a round start at its round in
  the order held (the initiatives, highest first, ties as the file orders them: those
  turns were taken, so no ``--with order`` is asked nor a roll-off rolled, §2), then the
  acting combatant's turn start, marked resumed and naming those before it, who have had
  their turns this round: they take none until the next round, and an effect anchored to
  one of them is no missed turn (§16's missed-turn). Where the file is silent (an
  Improved Initiative export keeps hit points, initiative and tags, no more):
  its turn started there, so nothing at its start is done again (no death save, recharge
  roll, Ready lapsing, nor a countdown of effects: II counted its tags down when that turn
  started, §12); its action, Bonus Action, movement and Reaction are all unspent (II does
  not track them: the GM declares what it has taken); every other combatant's Reaction is
  unspent too (who spent one since its turn is not in the file, §3); every creature that
  has had a turn (those before it, or all after round 1) holds its full legendary uses,
  none spent since (§14); and no legendary use follows a turn taken before the fight was
  taken up, whose moment passed there: the first follows the acting combatant's turn.
"""

from skirmish.projections.rulesets.srd_5__2.rules import RULESET, Srd52

__all__ = ["RULESET", "Srd52"]
