"""A long, realistic ap-countdown fight, decided command by command, written in bulk.

A scripted GM proposes what a table would do next at each state (start a round, declare
for whoever may act at the count, advance the count, resolve what is due with hits, now
and then damage, effects, a cancel; the upkeep when the countdown is over), and every
command is decided by the ruleset itself, so the log holds exactly what `skirmish` would
have written. Now and then the GM undoes a command (and sometimes redoes it), forks a
what-if branch a few commands back, plays on it, and returns to the main line.

The commands go through ``Store.append`` inside ``Store.batch`` transactions, as an
import would write them: the hashes, head checks and snapshots are the real ones, and
``verify`` passes on the result.
"""

from __future__ import annotations

import random
import shlex
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import msgspec

from skirmish.eventlog.commands import (
    AddCombatant,
    ApplyEffect,
    Cancel,
    Command,
    Damage,
    Declare,
    Heal,
    Leave,
    Next,
    Resolve,
    Return,
    StartRound,
    Upkeep,
    command_encoder,
)
from skirmish.eventlog.errors import SkirmishError
from skirmish.eventlog.events import Event, tag_of
from skirmish.eventlog.store import Head, NewEvent, Store
from skirmish.projections.write.engine import Encounter, new_encounter
from skirmish.projections.ruleset import Dice
from skirmish.projections.rulesets.ap_countdown import RULESET, ApCountdown
from skirmish.projections.rulesets.ap_countdown.state import ApState, Fighter

ROSTER = (
    ("Hauser", "players", {"qu": "2", "hits": "60"}),
    ("Mira", "players", {"qu": "1", "hits": "45", "penalty": "-10"}),
    ("Brakk", "players", {"qu": "0", "hits": "80"}),
    ("Orc chief", "foes", {"qu": "1", "hits": "70"}),
    ("Orc archer", "foes", {"qu": "3", "hits": "35", "penalty": "-20"}),
    ("Troll", "foes", {"qu": "-2", "hits": "120"}),
)
# What a fighter whose count has come declares, weighted: (action, AP choices, needs a target).
CHOICES = (
    ("melee-attack", (2, 3, 4), True, 30),
    ("ranged-attack", (1, 2, 3), True, 20),
    ("thrown-attack", (2, 4), True, 4),
    ("dodge", (4,), False, 6),
    ("perception", (1, 2), False, 4),
    ("draw", (None,), False, 3),
    ("prone", (None,), False, 1),
    ("first-aid", (8,), True, 2),
    ("static-action", (12,), False, 1),
    ("move", (None,), False, 6),
    ("parry", (None,), True, 5),
    ("held", (2,), True, 3),
)
WEIGHTS = [c[3] for c in CHOICES]
RULES = cast(ApCountdown, RULESET)  # who is down: the ruleset's own reading
BATCH_COMMANDS = 2_000  # commands per transaction while generating


def text_of(cmd: Command) -> str:
    """The command line a GM would have typed (the log stores it beside the command): the
    names first, then each option, the ruleset's own inputs as ``--with KEY=VALUE``."""
    words = [str(cmd.__struct_config__.tag)]
    options: list[str] = []
    own: list[str] = []
    for field in cmd.__struct_fields__:
        value = getattr(cmd, field)
        if value in (None, {}, False) or value is msgspec.UNSET:  # UNSET: whose dice (typed_by), the server's
            continue
        if field in ("who", "action", "name"):
            words.append(shlex.quote(str(value)))
        elif field == "details":
            own += [f"--with {shlex.quote(f'{key}={word}')}" for key, word in value.items()]
        elif field == "rolls":
            options += [f"--roll {shlex.quote(key + '=' + ','.join(map(str, faces)))}" for key, faces in value.items()]
        else:
            options.append(f"--{field.replace('_', '-')} {shlex.quote(str(value))}")
    return " ".join([*words, *options, *own])


class Gm:
    """Proposes the next commands at a state, most wanted first; the first one the ruleset
    accepts is played (a refused one appends nothing, exactly as at the table).

    ``replace_fallen``: a fighter who is down is carried off (its effects ended, it leaves)
    and comes back fresh (healed, it returns): a new fighter in its place, under the same
    name, so the fight goes on as a fight (declarations and resolutions) instead of a clock
    ticking over the fallen (upkeep), and the roster stays the six it started with."""

    def __init__(self, seed: int, replace_fallen: bool = False) -> None:
        self.rng = random.Random(seed)
        self.replace_fallen = replace_fallen

    def proposals(self, state: ApState) -> Iterator[Command]:
        rng = self.rng
        fighters = list(state.fighters.values())
        if len(fighters) < len(ROSTER):
            name, side, stats = ROSTER[len(fighters)]
            yield AddCombatant(name=name, side=side, stats=stats)
            return
        if self.replace_fallen:
            for f in fighters:
                if f.left:
                    # A fresh fighter in the fallen one's place: healed and back in the fight.
                    if f.damage > 0:
                        yield Heal(who=f.name, amount=f.damage)
                    yield Return(who=f.name)
                elif RULES.down(state, f):
                    # Carried off: the GM ends what would tick on without them (bleeding), first.
                    for effect in f.effects:
                        yield ApplyEffect(who=f.name, kind=effect.kind, end=True)
                    yield Leave(who=f.name, reason="carried off")
        names = [f.name for f in fighters]
        roll = rng.random()
        if roll < 0.05:
            yield Damage(who=rng.choice(names), amount=rng.randint(1, 4))
        elif roll < 0.07:
            kind = rng.choice(("stunned", "dazed", "blinded", "stunned-unable-to-parry"))
            yield ApplyEffect(who=rng.choice(names), kind=kind, rounds=rng.randint(1, 2), custom=kind == "blinded")
        elif roll < 0.08 and (not self.replace_fallen or rng.random() < 0.25):
            # Bleeding ticks every round until first aid: in a fight that goes on, a quarter
            # as often, or its ticks would outnumber the blows.
            yield ApplyEffect(who=rng.choice(names), kind="bleeding", per_round=rng.randint(1, 2))
        elif roll < 0.085:
            yield ApplyEffect(who=rng.choice(names), kind="staggered")
        elif roll < 0.09:
            yield ApplyEffect(who="scene", kind="fire", per_round=1, details={"start": str(rng.randint(0, 3))})
        elif roll < 0.093:
            yield ApplyEffect(who="scene", kind="fire", end=True)
        if not state.in_round:
            yield StartRound()
            # Refused only when everyone is down (nobody rolls initiative): the GM heals the
            # one hurt the most, as a table would, and the fight goes on.
            hurt = max(fighters, key=lambda f: f.damage)
            yield Heal(who=hurt.name, amount=hurt.damage)
            return
        count = state.count
        assert count is not None
        for f in fighters:
            a = f.action
            if a is None:
                continue
            if a.step == "resolves" and a.resolves_at is not None and a.resolves_at >= count:
                if rng.random() < 0.04:
                    orientation = rng.choice((None, "near", "success"))
                    yield Cancel(who=f.name, details={"orientation": orientation} if orientation else {})
                if a.target is not None and a.name.endswith("attack"):
                    hit = rng.random() < 0.6
                    yield Resolve(who=f.name, outcome="hit" if hit else "miss", hits=rng.randint(1, 6) if hit else 0)
                yield Resolve(who=f.name)
            elif a.step == "ready" and rng.random() < 0.3:
                yield Resolve(who=f.name)  # the held action's trigger happens
        for f in rng.sample(fighters, len(fighters)):
            if f.action is None and f.ap > 0 and f.initiative is not None and f.initiative >= count:
                yield self._declare(f, [n for n in names if n != f.name])
        yield Next()
        yield Upkeep()

    def _declare(self, f: Fighter, others: list[str]) -> Declare:
        rng = self.rng
        action, aps, targeted, _ = rng.choices(CHOICES, WEIGHTS)[0]
        target = rng.choice(others) if targeted else None
        if action == "move":
            return Declare(who=f.name, action="move", details={"pace": rng.choice(("walk", "run")),
                                                                "penalty": str(rng.choice((0, -10, -20)))})
        if action == "parry":
            return Declare(who=f.name, action="parry", amount=rng.randint(5, 20), target=target)
        if action == "held":
            return Declare(who=f.name, action="ranged-attack", target=target, trigger="if the door opens", details={"ap": "2"})
        ap = rng.choice(aps)
        return Declare(who=f.name, action=action, target=target, details={} if ap is None else {"ap": str(ap)})


@dataclass
class Place:
    """Where the generator stands: a head, the state after it and its depth below the root."""

    head: Head
    state: Any
    depth: int


class Generator:
    """Writes a fight of about ``events`` events into ``store`` (see the module docstring)."""

    UNDO_EVERY = 250  # commands, on average
    FORK_EVERY = 3_000
    BRANCH_LENGTH = 400  # commands played on a what-if branch before going back to main

    def __init__(self, store: Store, seed: int = 7, fight: bool = False) -> None:
        self.store = store
        self.gm = Gm(seed, replace_fallen=fight)
        self.rng = random.Random(seed + 1)
        self.enc = new_encounter(store, f"Benchmark fight {seed}", "ap-countdown", {}, "new", seed=seed)
        root = self.enc.head()
        self.place = Place(root, self.enc.state_at(root.event_id), 0)
        self.recent: OrderedDict[int, tuple[Any, int]] = OrderedDict({root.event_id: (self.place.state, 0)})
        self.on_branch = 0  # commands left on the current what-if branch; 0: on main
        self.main: Place | None = None
        self.commands = 0
        self.forks = 0
        self.deciding = 0.0  # seconds spent by the GM and the ruleset's decide, not the store
        self.seconds = 0.0

    def run(self, events: int) -> Encounter:
        written = self._events()
        started = time.perf_counter()
        while written < events:
            with self.store.batch():
                for _ in range(BATCH_COMMANDS):
                    written += self.step()
                    if written >= events:
                        break
        self.seconds += time.perf_counter() - started
        return self.enc

    @property
    def appending(self) -> float:
        """Seconds spent appending (evolve, encode, hash, insert, snapshots, commit): a bulk
        import's work, without the GM's and the ruleset's deciding."""
        return self.seconds - self.deciding

    def _events(self) -> int:
        return self.store.counts(self.enc.row.id).events

    def step(self) -> int:
        """Play one command (or a head move); return how many events it appended."""
        started = time.perf_counter()
        try:
            return self._step()
        finally:
            self.deciding += time.perf_counter() - started - self._stored

    def _step(self) -> int:
        self._stored = 0.0
        self.commands += 1
        roll = self.rng.random()
        if roll < 1 / self.UNDO_EVERY and self.place.depth > 50:
            self._undo(redo=self.rng.random() < 0.4)
            return 0
        if self.on_branch == 0 and self.main is None and roll > 1 - 1 / self.FORK_EVERY:
            self._fork()
            return 0
        if self.on_branch and self.main is not None:
            self.on_branch -= 1
            if self.on_branch == 0:
                self.enc.switch("main", "switch main")
                self.place, self.main = self.main, None
                self.place.head = self.enc.head()
                return 0
        return self._play()

    def _play(self) -> int:
        place, ruleset, codec = self.place, self.enc.ruleset, self.enc.codec
        dice = Dice.of(self.enc.started, str(place.head.event_id))
        for command in self.gm.proposals(place.state):
            try:
                events: list[Event] = ruleset.decide(place.state, command, dice)
            except SkirmishError:
                continue
            break
        # place.state stays as it was (`recent` may hold it): the generator's copy, not the
        # append's work, so it is left out of the bulk figure.
        state = ruleset.copy(place.state)
        stored = time.perf_counter()
        due = self.enc.advance(state, place.depth, events)
        new = [NewEvent(tag_of(type(e)), type(e).version, codec.encode(e)) for e in events]
        ids = self.store.append(self.enc.row.id, place.head, text_of(command), command_encoder.encode(command), new)
        self.enc.remember(ids, due)
        self._stored = time.perf_counter() - stored
        # Undo and redo land on a command's last event: the state after it is all `_moved` needs.
        self.recent[ids[-1]] = (state, place.depth + len(ids))
        while len(self.recent) > 400:
            self.recent.popitem(last=False)
        self.place = Place(Head(place.head.branch, ids[-1], place.head.seq + 1), state, place.depth + len(ids))
        return len(ids)

    def _moved(self) -> None:
        head = self.enc.head()
        state, depth = self.recent.get(head.event_id) or self.enc.fold_to(head.event_id)
        self.place = Place(head, state, depth)

    def _undo(self, redo: bool) -> None:
        self.enc.undo(1, "undo")
        self._moved()
        if redo:
            self.enc.redo(1, "redo")
            self._moved()

    def _fork(self) -> None:
        """A what-if: a branch from a few commands back, played on for a while."""
        candidates = [i for i, (_, depth) in self.recent.items() if depth < self.place.depth - 5]
        if not candidates:
            return
        at = self.rng.choice(candidates[-60:])
        self.forks += 1
        name = f"what-if-{self.forks}"
        self.enc.fork(name, at, f"branch {name} --at {at}")
        self.enc.switch(name, f"switch {name}")
        self.main = self.place
        self._moved()
        self.on_branch = self.BRANCH_LENGTH


def generate(path: str, events: int, seed: int = 7, fight: bool = False) -> tuple[Store, Encounter]:
    store = Store(path)
    enc = Generator(store, seed, fight).run(events)
    return store, enc


def accepted(enc: Encounter, gm: Gm) -> tuple[Any, list[Event]]:
    """The GM's first proposal at the head that the ruleset accepts, decided dry with the
    dice `execute` will use (a fresh Dice each time: a refused decision may have rolled)."""
    head = enc.head()
    state = enc.fold_to(head.event_id)[0]
    for command in gm.proposals(state):
        try:
            return command, enc.ruleset.decide(state, command, Dice.of(enc.started, str(head.event_id)))
        except SkirmishError:
            continue
    raise AssertionError(f"the GM has nothing to play at event {head.event_id}")


def declare_args(db: str) -> list[str] | None:
    """A declaration the ruleset accepts at the head (playing on until there is one)."""
    store = Store(db, create=False)
    enc = Encounter.open(store)
    gm = Gm(5)
    for _ in range(500):
        command, _events = accepted(enc, gm)
        if isinstance(command, Declare) and command.action in ("melee-attack", "ranged-attack", "dodge"):
            store.close()
            args = ["declare", command.who, command.action]
            if "ap" in command.details:
                args += ["--ap", command.details["ap"]]
            if command.target is not None:
                args += ["--target", command.target]
            return args
        enc.execute(command, text_of(command))
    store.close()
    return None  # a fight where nobody can act any more (the generated ones end so, everyone down)
