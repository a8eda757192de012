"""The encounter a test plays on, set up once for every file: on a store (`fight`) or through
the command line (`cli_fight`). By default it is ap-countdown's Hauser (players, qu 1, 40
hits) against the Orc (foes, qu 0, 30 hits); a file whose fights differ binds its own with
functools.partial (`fight = partial(fight, rules="crisis", cast=(...))`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skirmish.eventlog.commands import AddCombatant, StartRound
from skirmish.eventlog.store import Store
from skirmish.projections.write.engine import Encounter

from support.cli import Cli, start
from support.encounter import do

Cast = tuple[str, str, dict[str, str]]  # a combatant: name, side, stats

HAUSER: Cast = ("Hauser", "players", {"qu": "1", "hits": "40"})
ORC: Cast = ("Orc", "foes", {"qu": "0", "hits": "30"})


def fight(
    store: Store,
    *added: Cast,
    rules: str = "ap-countdown",
    cast: Sequence[Cast] = (HAUSER, ORC),
    rolls: Mapping[str, tuple[int, ...]] | int | None = None,
    order: str | None = None,
    seed: int = 1,
    **options: str,
) -> Encounter:
    """A new encounter under `rules` (with its `options`, on `seed`) and its combatants added: `added`
    if any is given, else `cast`. With `rolls` round 1 is started on those dice (an int: each
    combatant rolls that one die), `order` its initiative-order detail."""
    enc = start(store, rules, seed, **options)
    combatants = added or tuple(cast)
    for name, side, stats in combatants:
        do(enc, AddCombatant(name=name, side=side, stats=dict(stats)))
    if rolls is not None:
        dice: dict[str, tuple[int, ...]] = (
            {name: (rolls,) for name, _, _ in combatants} if isinstance(rolls, int) else dict(rolls))
        do(enc, StartRound(rolls=dice, details={} if order is None else {"order": order}))
    return enc


def cli_fight(
    cli: Cli,
    name: str = "Bridge ambush",
    *,
    seed: str | None = "5",
    foe: str | None = "Orc",
    then: Sequence[Sequence[str]] = (),
) -> Cli:
    """`skirmish new NAME --rules ap-countdown --seed SEED` (no --seed if None), Hauser and the
    foe (Orc's figures; none if None) added on their sides, then each of the `then` commands."""
    cli.ok("new", name, "--rules", "ap-countdown", *(() if seed is None else ("--seed", seed)))
    cli.ok("add", "Hauser", "--side", "players", "--stat", "qu=1", "--stat", "hits=40")
    if foe is not None:
        cli.ok("add", foe, "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    for words in then:
        cli.ok(*words)
    return cli
