"""srd-5.2's attacks, saves against a stat block's action, damage and healing: the d20 against
AC, Advantage and Disadvantage from the conditions, Resistance, Vulnerability and Immunity,
temporary HP, 0 HP, death saves and Concentration (§6-§11, §13)."""

import re

from skirmish.eventlog.commands import Damage, Declare, Heal
from skirmish.eventlog.errors import BadInput
from skirmish.projections.refusals import RuleViolation
from skirmish.eventlog.events import Derivation, Event, Roll, Term
from skirmish.projections.ruleset import Dice, decides, detail_int, find_name
from skirmish.projections.rulesets.srd_5__2.block import DAMAGE_TYPES, BlockAction, parse_saves
from skirmish.projections.rulesets.srd_5__2.events import (
    Acted,
    Attacked,
    ConcentrationEnded,
    ConcentrationSaved,
    Damaged,
    DeathSave,
    Fell,
    Healed,
    MarkAdded,
    MarkEnded,
    Saved,
    TempGained,
)
from skirmish.projections.rulesets.srd_5__2.decide_turns import Turns
from skirmish.projections.rulesets.srd_5__2.state import Fighter, SrdState, exhaustion_terms, hp_max_of, speed_of
from skirmish.projections.rulesets.srd_5__2.vocabulary import KNOCKED_OUT, R, part_key, two_d20_why, uses_spent

_DICE = re.compile(r"^(?:(\d{1,2})d(\d{1,3}))?\s*(?:([+-])\s*(\d{1,4}))?$")


class Attacks(Turns):
    """Attacks, a stat block's saves, ``damage`` and ``heal``: the decisions that hurt and heal."""

    def _attack(self, state: SrdState, f: Fighter, cmd: Declare, use: str, dice: Dice,
                recharge: bool, block: BlockAction | None = None) -> list[Event]:
        if not cmd.target:
            raise BadInput("attack needs --target WHO")
        t = state.fighters[find_name(state.names(), cmd.target)]
        if t.name == f.name:
            raise RuleViolation(f"{f.name} cannot attack itself", R(6))
        if t.left or t.dead:
            raise RuleViolation(f"{t.name} is {'dead' if t.dead else 'out of the fight'}", R(6))
        charm = f.mark("charmed")
        if charm and charm.by == t.name:
            raise RuleViolation(f"{f.name} is Charmed by {t.name}: it can't attack it", R(13))
        reach = "ranged" if block is not None and block.attack == "ranged" else "melee"
        melee = cmd.details.get("range", reach) == "melee"
        if block is not None and block.attack == "melee" and not melee:
            raise BadInput(f"{block.name} is a melee attack (its stat block)")
        if cmd.details.get("opportunity") == "yes":
            if use != "reaction" or not melee:
                raise BadInput("an opportunity attack is a melee attack --with as=reaction")
            if t.disengaged:
                raise RuleViolation(f"{t.name} took Disengage: its movement provokes no opportunity attacks", R(5))
        if cmd.details.get("knockout") == "yes" and not melee:
            raise BadInput("--with knockout=yes is for a melee attack")
        cover = cmd.details.get("cover")
        if cover == "total":
            raise RuleViolation(f"{t.name} has Total Cover: it can't be targeted", R(6))
        ac = t.ac + {"half": 2, "three-quarters": 5}.get(cover or "", 0)
        adv, dis = self._sources(state, f, t, melee)
        if cmd.details.get("adv") == "yes":
            adv.append("--with adv")
        if cmd.details.get("dis") == "yes":
            dis.append("--with dis")
        mode = "advantage" if adv and not dis else "disadvantage" if dis and not adv else ""
        if cmd.details.get("damage") is not None:
            self._check_damage(cmd.details["damage"])
        extra = cmd.details.get("extra")
        if extra is not None:
            spec2, _, dtype2 = extra.partition(":")
            if dtype2 not in DAMAGE_TYPES or cmd.details.get("damage") is None:
                raise BadInput(f"--with extra= takes dice and a damage type (2d6:fire) beside --with damage=, "
                               f"not {extra!r}")
            self._check_damage(spec2, "extra")
        bonus = detail_int(cmd, "hit", block.hit if block is not None else 0)
        roll = dice.roll(f.name, 2 if mode else 1, 20, two_d20_why(adv, dis))
        kept = max(roll.faces) if mode == "advantage" else min(roll.faces) if mode else roll.faces[0]
        terms = [Term("d20", kept), Term("attack bonus", bonus)]
        terms += exhaustion_terms(state, f)
        total = sum(x.value for x in terms)
        d20 = kept  # the die kept is the natural one (§6)
        hit = d20 == 20 or (d20 != 1 and total >= ac)
        crit = d20 == 20 or (hit and melee and (t.has("paralyzed") or t.has("unconscious")))
        why = "; ".join([*(f"+{a}" for a in adv), *(f"-{d}" for d in dis)])
        formula = " + ".join(x.name for x in terms) + f" vs AC {t.ac}" + (
            f" + {ac - t.ac} ({cover} cover)" if ac != t.ac else "")
        if d20 in (1, 20):
            formula += f" (natural {d20})"
        events: list[Event] = [Attacked(
            who=f.name, target=t.name, use=use, roll=Derivation(total, formula, tuple(terms), R(6), roll), ac=ac,
            hit=hit, crit=crit, advantage=mode, why=why, recharge=recharge,
            cost=block.cost if block is not None and use == "legendary" and "cost" not in cmd.details else (
                uses_spent(cmd, use)), block=block.name if block is not None else "")]
        work = self.copy(state)
        self._emit(work, events)
        for m in t.marks:
            if m.kind == "help-against" and state.fighters[m.by].side == f.side:
                events += self._emit(work, [MarkEnded(who=t.name, kind=m.kind, by=m.by, why=f"{f.name}'s attack")])
                break
        hidden = f.mark("invisible")
        if hidden and hidden.by == "hide":
            events += self._emit(work, [MarkEnded(who=f.name, kind="invisible", by="hide",
                                                  why="an attack roll reveals it (§4, §6)")])
        if not hit:
            return events
        spec = cmd.details.get("damage")
        if spec is None and block is not None and block.damage:  # the stat block's damage (§7)
            adjust = detail_int(cmd, "adjust")
            parts = [(self._damage_roll(p.dice, crit, part_key(i, f.name), dice, adjust if i == 0 else 0), p.type)
                     for i, p in enumerate(x for x in block.damage if not x.advantage or mode == "advantage")]
        elif spec is None:
            return events  # the GM types the damage with `damage` (a hit's effect, not its dice)
        else:
            parts = [(self._damage_roll(spec, crit, f"dmg:{f.name}", dice, detail_int(cmd, "adjust")),
                      cmd.details.get("type", ""))]
            if extra is not None:
                spec2, _, dtype2 = extra.partition(":")
                parts.append((self._damage_roll(spec2, crit, f"extra:{f.name}", dice, 0), dtype2))
        events += self._hurt(work, work.fighters[t.name], parts, crit, f.name, dice,
                             knockout=cmd.details.get("knockout") == "yes")
        return events

    def _sources(self, state: SrdState, f: Fighter, t: Fighter, melee: bool) -> tuple[list[str], list[str]]:
        """Advantage and Disadvantage the tracked conditions give an attack (§6, §13)."""
        adv: list[str] = []
        dis: list[str] = []
        for kind in ("blinded", "paralyzed", "petrified", "restrained", "stunned", "unconscious"):
            if t.has(kind):
                adv.append(f"{t.name} {kind.capitalize()}")
        if t.has("prone"):
            (adv if melee else dis).append(f"{t.name} Prone, {'within 5 ft' if melee else 'ranged'}")
        if t.has("invisible"):
            dis.append(f"{t.name} Invisible")
        if t.has("dodging") and not t.incapacitated and speed_of(state, t) > 0:
            dis.append(f"{t.name} Dodging")
        helped = [m for m in t.marks if m.kind == "help-against" and state.fighters[m.by].side == f.side]
        if helped:
            adv.append(f"Help by {helped[0].by}")
        if f.has("invisible"):
            adv.append(f"{f.name} Invisible")
        for kind in ("blinded", "frightened", "poisoned", "prone", "restrained"):
            if f.has(kind):
                dis.append(f"{f.name} {kind.capitalize()}")
        grab = f.mark("grappled")
        if grab and grab.by != t.name:
            dis.append(f"{f.name} Grappled")
        if state.options["exhaustion"] == "5.1" and f.exhaustion >= 3:
            dis.append(f"{f.name} Exhaustion {f.exhaustion} (5.1)")
        return adv, dis

    def _check_damage(self, spec: str, flag: str = "damage") -> tuple[str | None, str | None, str | None, str | None]:
        """A damage spec's parts, or a refusal naming it: checked before any die is rolled."""
        m = _DICE.match(spec.strip().replace(" ", ""))
        if not m or not spec.strip() or (m.group(1) is None and m.group(3) == "-"):
            raise BadInput(f"--with {flag}= takes dice and a modifier (1d6+2) or a number, not {spec!r}")
        count, sides, sign, flat = m.groups()
        if count is not None and not (1 <= int(count) <= 40 and 2 <= int(sides) <= 100):
            raise BadInput(f"--with {flag}={spec}: 1 to 40 dice of 2 to 100 sides")
        return count, sides, sign, flat

    def _damage_roll(self, spec: str, crit: bool, key: str, dice: Dice, adjust: int) -> Derivation:
        count, sides, sign, flat = self._check_damage(spec)
        terms: list[Term] = []
        roll: Roll | None = None
        if count is not None and sides is not None:
            n, s = int(count), int(sides)
            roll = dice.roll(key, 2 * n if crit else n, s)
            label = f"{2 * n}d{s} (Critical Hit: the dice twice)" if crit else f"{n}d{s}"
            terms.append(Term(label, roll.total))
        if flat is not None:
            terms.append(Term("modifier", int(flat) if sign == "+" else -int(flat)))
        if adjust:
            terms.append(Term("adjustment", adjust))
        total = max(0, sum(t.value for t in terms))
        return Derivation(total, " + ".join(t.name for t in terms) or "0", tuple(terms), R(7), roll)

    def _typed(self, t: Fighter, base: Derivation, dtype: str) -> Derivation:
        """One damage type's part after Resistance, then Vulnerability, or Immunity (§7)."""
        amount, formula = base.value, base.formula
        steps: list[str] = []
        if dtype and dtype in t.immune:
            amount, steps = 0, [f"Immunity to {dtype}"]
        else:
            if (dtype and dtype in t.resist) or t.has("petrified"):
                amount //= 2
                steps.append("Resistance: halved, rounded down")
            if dtype and dtype in t.vulnerable:
                amount *= 2
                steps.append("Vulnerability: doubled")
        if steps:
            formula = f"({formula}) -> " + " -> ".join(steps)
        return Derivation(amount, formula, base.terms, R(7), base.roll)

    def _hurt(self, work: SrdState, t: Fighter, parts: list[tuple[Derivation, str]], crit: bool, by: str | None,
              dice: Dice, knockout: bool = False) -> list[Event]:
        """Damage to ``t`` (one part per damage type of the hit): Resistance, Vulnerability
        and Immunity in the text's order, temporary HP first, then 0 HP, death saves and
        Concentration (§7-§11). ``work`` follows the events."""
        typed = [(self._typed(t, base, dtype), dtype) for base, dtype in parts]
        if len(typed) == 1:
            damage = typed[0][0]
        else:
            terms = tuple(Term(f"{d.value} {dtype or 'untyped'} ({d.formula})", d.value) for d, dtype in typed)
            damage = Derivation(sum(d.value for d, _ in typed), " + ".join(x.name for x in terms), terms, R(7),
                                typed[0][0].roll)
        # One hit of several parts names each part's type, "untyped" too: 7 untyped and 11 fire
        # are not 18 fire.
        dtype = ", ".join(x or "untyped" for _, x in typed) if len(typed) > 1 and any(x for _, x in typed) else (
            ", ".join(x for _, x in typed if x))
        amount = damage.value
        absorbed = min(t.temp, amount)
        rest = amount - absorbed
        was = t.hp
        hp = max(0, was - rest)
        knocked = knockout and was > 0 and hp == 0  # §9: left at 1 HP and Unconscious instead
        if knocked:
            hp = 1
        events = self._emit(work, [Damaged(who=t.name, damage=damage, damage_type=dtype, temp_left=t.temp - absorbed,
                                           hp_left=hp, by=by, crit=crit)])
        character = t.pc or work.options["monster-death"] == "as-character"
        if knocked:
            events += self._emit(work, [MarkAdded(who=t.name, kind="unconscious", detail=KNOCKED_OUT)])
            if t.concentration:
                events += self._emit(work, [ConcentrationEnded(who=t.name, spell=t.concentration,
                                                               why="Incapacitated (Unconscious)")])
            return events
        if was > 0 and hp == 0:
            over = rest - was
            if not character:
                events += self._emit(work, [Fell(who=t.name, dead=True, why="a monster at 0 HP",
                                                 rule=R(9) + ", option monster-death=instant")])
            elif over >= t.hp_max:
                left = Derivation(over, f"damage past 0 HP vs HP maximum {t.hp_max}",
                                  (Term("damage after temporary HP", rest), Term("HP before", -was)), R(9))
                events += self._emit(work, [Fell(who=t.name, dead=True, rule=R(9), left_over=left,
                                                 why=f"massive damage: {over} left over >= HP maximum {t.hp_max}")])
            else:
                events += self._emit(work, [Fell(who=t.name, dead=False, rule=R(9), why="0 HP, §9")])
            if t.concentration:
                events += self._emit(work, [ConcentrationEnded(
                    who=t.name, spell=t.concentration, why="dead" if t.dead else "Incapacitated (Unconscious)")])
            return events
        if was == 0 and not t.dead:
            counts = rest > 0 or (absorbed > 0 and work.options["temp-at-0"] == "failure")
            if rest >= t.hp_max:
                # Massive damage at 0 HP: no HP is left to take any of it, so all of it is left over.
                left = Derivation(rest, f"damage at 0 HP vs HP maximum {t.hp_max}",
                                  (Term("damage after temporary HP", rest),), R(9))
                return events + self._emit(work, [Fell(who=t.name, dead=True, rule=R(9), left_over=left,
                                                       why=f"damage at 0 HP: {rest} >= HP maximum {t.hp_max}")])
            if counts:
                add = 2 if crit else 1
                if t.stable:
                    events += self._emit(work, [MarkEnded(who=t.name, kind="stable", why="damage ends Stable (§9)")])
                    if work.options["stable-damage"] == "no":
                        add = 0
                fails = min(3, t.failures + add)
                outcome = "dead" if fails >= 3 else "failure"
                events += self._emit(work, [DeathSave(who=t.name, save=None, successes=t.successes, failures=fails,
                                                      outcome=outcome)])
                if outcome == "dead":
                    events += self._emit(work, [Fell(who=t.name, dead=True, why="three failed death saves",
                                                     rule=R(9))])
            return events
        if t.concentration and not t.dead and (rest > 0 or (
                absorbed > 0 and work.options["concentration-temp"] == "save")):
            # One save a hit, or one a damage type of it (option concentration-save, §16).
            each = [d.value for d, _ in typed] if work.options["concentration-save"] == "per-type" else [amount]
            for number, taken in enumerate(each):
                if taken == 0:
                    continue
                key = f"con:{t.name}" if number == 0 else f"con{number + 1}:{t.name}"
                kept = self._concentration_save(work, t, taken, key, dice, events)
                if not kept:
                    break
        return events

    def _concentration_save(self, work: SrdState, t: Fighter, amount: int, key: str, dice: Dice,
                            events: list[Event]) -> bool:
        """A Concentration save against damage: DC max(10, floor(damage / 2)), capped (§11);
        its events are appended to ``events`` (and applied to ``work``); True if kept."""
        half = amount // 2
        dc_value = max(10, half)
        terms = (Term("damage", amount), Term("floor(damage / 2)", half))
        dc_formula = "max(10, floor(damage / 2))"
        if work.options["dc-cap"] == "30":
            dc_value, dc_formula = min(30, dc_value), "min(30, max(10, floor(damage / 2)))"
        dc = Derivation(dc_value, dc_formula, terms, R(11))
        roll = dice.roll(key, 1, 20)
        sterms = [Term("d20", roll.faces[0]), Term("Con save", t.con), *exhaustion_terms(work, t)]
        total = sum(x.value for x in sterms)
        save = Derivation(total, " + ".join(x.name for x in sterms), tuple(sterms), R(11), roll)
        kept = total >= dc_value
        events += self._emit(work, [ConcentrationSaved(who=t.name, dc=dc, save=save, kept=kept)])
        if not kept:
            events += self._emit(work, [ConcentrationEnded(who=t.name, spell=t.concentration,
                                                           why=f"failed the save, DC {dc_value}")])
        return kept

    @decides(Damage)
    def _damage(self, state: SrdState, cmd: Damage, dice: Dice) -> list[Event]:
        t = state.fighters[find_name(state.names(), cmd.who)]
        if cmd.amount < 0:
            raise BadInput(f"damage takes 0 or more, not {cmd.amount}")
        if t.dead:
            raise RuleViolation(f"{t.name} is dead", R(9))
        adjust = detail_int(cmd, "adjust")
        terms = [Term("damage", cmd.amount)] + ([Term("adjustment", adjust)] if adjust else [])
        base = Derivation(max(0, cmd.amount + adjust), " + ".join(x.name for x in terms), tuple(terms), R(7))
        return self._hurt(self.copy(state), t, [(base, cmd.details.get("type", ""))], cmd.details.get("crit") == "yes",
                          None, dice)

    @decides(Heal)
    def _heal(self, state: SrdState, cmd: Heal, dice: Dice) -> list[Event]:
        f = state.fighters[find_name(state.names(), cmd.who)]
        if cmd.amount < 1:
            raise BadInput(f"heal takes at least 1, not {cmd.amount}")
        if f.dead:
            raise RuleViolation(f"{f.name} is dead: only revival magic brings it back", R(10))
        keep = cmd.details.get("keep")
        if keep is not None and cmd.details.get("temp") != "yes":
            raise BadInput("--with keep= goes with --with temp=yes: it chooses between two grants of temporary HP")
        if cmd.details.get("temp") == "yes":
            if not f.temp:
                return [TempGained(who=f.name, temp=cmd.amount, had=0)]
            keep = keep or "higher"
            kept = "new" if keep == "new" or (keep == "higher" and cmd.amount > f.temp) else "old"
            return [TempGained(who=f.name, temp=cmd.amount, had=f.temp, keep=keep, kept=kept)]
        top = hp_max_of(state, f)
        amount = min(cmd.amount, top - f.hp)
        if amount <= 0:
            raise RuleViolation(f"{f.name} has all its HP ({top})", R(10))
        knocked = any(m.kind == "unconscious" and m.detail == KNOCKED_OUT for m in f.marks)
        return [Healed(who=f.name, amount=amount, hp_left=f.hp + amount, woke=f.hp == 0 or knocked)]

    def _save_action(self, state: SrdState, f: Fighter, cmd: Declare, block: BlockAction, use: str, spent: int,
                     recharge: bool, slot: int, dice: Dice) -> list[Event]:
        """A stat block's action the targets save against: each rolls (or fails outright, §13),
        the damage is rolled once for all, a failure takes it whole and a success half where
        the block says so (``--with half=`` overrides), or none (§7)."""
        if not cmd.target:
            raise BadInput(f"{block.name} needs --target WHO (several joined by +): DC {block.dc} "
                           f"{block.save.upper()} saves")
        targets: list[Fighter] = []
        for typed in cmd.target.split("+"):
            t = state.fighters[find_name(state.names(), typed.strip())]
            if t.dead or t.left:
                raise RuleViolation(f"{t.name} is {'dead' if t.dead else 'out of the fight'}", R(6))
            if t not in targets:
                targets.append(t)
        half = cmd.details.get("half", "yes" if block.half else "no") == "yes"
        work = self.copy(state)
        events = self._emit(work, [Acted(who=f.name, action=block.name, use=use, cost=spent, recharge=recharge,
                                         block=block.name, slot=slot, detail=f"DC {block.dc} {block.save.upper()}",
                                         target=targets[0].name if len(targets) == 1 else None)])
        parts = [(self._damage_roll(p.dice, False, part_key(i, f.name), dice, detail_int(cmd, "adjust") if i == 0
                                    else 0), p.type) for i, p in enumerate(block.damage) if not p.advantage]
        for t in targets:
            events += self._emit(work, [self._saving_throw(work, work.fighters[t.name], f, block, cmd, dice)])
            saved = events[-1]
            assert isinstance(saved, Saved)
            if not parts or (saved.success and not half):
                continue
            taken = parts if not saved.success else [
                (Derivation(d.value // 2, f"({d.formula}) / 2 (saved: half, rounded down)", d.terms, R(7), d.roll), k)
                for d, k in parts]
            events += self._hurt(work, work.fighters[t.name], taken, False, f.name, dice)
        return events

    def _saving_throw(self, state: SrdState, t: Fighter, by: Fighter, block: BlockAction, cmd: Declare,
                      dice: Dice) -> Saved:
        """``t``'s save against ``block``: d20 + its modifier (its block's, else Dex or Con, else 0)
        and Exhaustion, Advantage from Dodge on Dex, Disadvantage from Restrained on Dex;
        Paralyzed, Petrified, Stunned and Unconscious fail Str and Dex saves (§4, §13)."""
        ability = block.save
        fails = [k for k in ("paralyzed", "petrified", "stunned", "unconscious") if t.has(k)]
        if ability in ("str", "dex") and fails:
            return Saved(who=t.name, by=by.name, action=block.name, ability=ability, dc=block.dc, save=None,
                         success=False, why=f"{fails[0].capitalize()}: fails Str and Dex saves ({R(13)})")
        saves = parse_saves(t.saves)
        bonus = saves.get(ability, t.dex if ability == "dex" else t.con if ability == "con" else 0)
        adv = ["Dodge"] if ability == "dex" and t.has("dodging") else []
        dis = ["Restrained"] if ability == "dex" and t.has("restrained") else []
        mode = "advantage" if adv and not dis else "disadvantage" if dis and not adv else ""
        roll = dice.roll(f"save:{t.name}", 2 if mode else 1, 20, two_d20_why(adv, dis))
        kept = max(roll.faces) if mode == "advantage" else min(roll.faces) if mode else roll.faces[0]
        terms = [Term("d20", kept), Term(f"{ability.capitalize()} save", bonus), *exhaustion_terms(state, t)]
        total = sum(x.value for x in terms)
        formula = " + ".join(x.name for x in terms) + f" vs DC {block.dc}" + (f" ({mode})" if mode else "")
        return Saved(who=t.name, by=by.name, action=block.name, ability=ability, dc=block.dc,
                     save=Derivation(total, formula, tuple(terms), R(4), roll), success=total >= block.dc)
