"""A session report of one branch, for any ruleset: narrative, notes, figures, timelines.

Everything is read off what every ruleset provides: ``describe`` for the narrative, the
``view`` after each event (round, clock, combatants, pending actions) and the commands
stored beside the events. ``collect`` is a pure fold over those steps, so it knows no
ruleset. Readings it makes, the same for every ruleset:

- an action's span runs from the moment it appears in the view's ``pending`` list to the
  moment it leaves it; a moment is one value of the clock's ``moment`` label; one
  declared and resolved within one command is a point;
- damage dealt and taken are what the events record, in the rules' own count
  (``Ruleset.harm``), with the attacker :mod:`skirmish.projections.damage` gives them:
  never the vital figure's drops, which can be something else (phases: initiative lost
  to wounds);
- budget spent is the most of its ``budget`` spent (``of - left``) seen in each round,
  summed over rounds;
- actions declared are the ``declare`` commands on the branch in the combatant's name.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from skirmish.eventlog.events import CombatantRenamed, NoteAdded
from skirmish.projections.notes import Note, notes_shown
from skirmish.projections.damage import Attribution
from skirmish.eventlog.errors import BadInput
from skirmish.projections.write.engine import CommandsAlong, Encounter, Recorded
from skirmish.projections.ruleset import Harm
from skirmish.projections.audit.explain import number_entries
from skirmish.projections.policy import Audience, Bands, Players, Sight, hidden_at, names_any
from skirmish.projections.text.narration import explanation_lines
from skirmish.projections.view import Combatant, Gauge, Shown, View, second_gauge
from skirmish.projections.text.words import event_line


@dataclass(frozen=True)
class Step:
    """One event of the branch, as the report sees it."""

    id: int
    command_id: int
    command: str  # the command's tag: declare, resolve, next, ...
    actor: str | None  # the command's `who`, if it names one
    action: str | None  # the command's `action`, if it names one
    text: str  # the ruleset's describe of the event
    view: View  # the ruleset's view after the event
    note_about: int | None = None  # set when the event is a note
    harm: Harm | None = None  # the damage the event did, with its attacker
    renamed: tuple[str, str] | None = None  # (old, new): a rename (`rename`), whose rows go on under the new name
    bands: Mapping[str, str] = field(default_factory=dict)  # the players' report: each foe's band, for its vital figure


@dataclass
class Line:
    id: int
    text: str
    notes: list[Note] = field(default_factory=list)


@dataclass
class Span:
    """An action from its declaration (it appears in ``pending``) to its resolution."""

    who: str
    action: str
    start: int  # moment index within the round
    end: int | None = None  # None: still pending when the round ended
    carried: bool = False  # pending since an earlier round
    target: str | None = None

    @property
    def point(self) -> bool:
        return self.end == self.start and not self.carried


@dataclass
class Round:
    number: int  # 0: the set-up before the first round
    lines: list[Line] = field(default_factory=list)
    moments: list[str] = field(default_factory=list)  # each moment's label (the clock's ``moment``)
    phases: list[str | None] = field(default_factory=list)  # each moment's phase, if the clock has one
    spans: list[Span] = field(default_factory=list)

    def phase_order(self) -> list[str]:
        return list(dict.fromkeys(p for p in self.phases if p is not None))

    def grid(self) -> dict[tuple[str, str], list[str]]:
        """(combatant, phase) -> what it did then: actions declared (>) and resolved (!)."""
        cells: dict[tuple[str, str], list[str]] = {}
        for s in self.spans:
            begun = self.phases[s.start] if not s.carried else None
            ended = self.phases[s.end] if s.end is not None else None
            if begun is not None:
                cells.setdefault((s.who, begun), []).append(f"{s.action} >")
            if ended is not None:
                cells.setdefault((s.who, ended), []).append(f"{s.action} !")
        return cells


@dataclass
class Figures:
    name: str
    side: str
    vital_start: Any = None
    vital_end: Any = None
    dealt: int = 0
    taken: int = 0
    declared: int = 0
    spent: int = 0
    vital2_start: Any = None  # the second gauge (Combatant.vital2: crisis's Endurance), where there is one
    vital2_end: Any = None


class Rounds:
    """A report's rounds, each written out (encoded, to a temporary file: in memory until it
    grows past SPOOL_IN_MEMORY) as the fold leaves it and read back one at a time, so a
    long fight's narrative is never held whole. Iterable any number of times."""

    def __init__(self) -> None:
        self._file = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)
        self._end = 0
        self.numbers: list[int] = []  # each round's number, in order

    def add(self, r: Round) -> None:
        data = _round_encoder.encode(r)
        self._file.seek(self._end)
        self._file.write(len(data).to_bytes(4, "little") + data)
        self._end += 4 + len(data)
        self.numbers.append(r.number)

    def __iter__(self) -> Iterator[Round]:
        at = 0
        for _ in self.numbers:
            self._file.seek(at)
            size = int.from_bytes(self._file.read(4), "little")
            yield _round_decoder.decode(self._file.read(size))
            at += 4 + size

    def __len__(self) -> int:
        return len(self.numbers)


SPOOL_IN_MEMORY = 8 * 1024 * 1024
_round_encoder = msgspec.msgpack.Encoder()
_round_decoder = msgspec.msgpack.Decoder(Round)


@dataclass
class Report:
    encounter: str
    ruleset: str
    branch: str
    head: int
    options: dict[str, str]
    vital: str
    budget: str
    digest: str
    rounds: Iterable[Round]  # a list, or as the fold writes them out (Rounds)
    figures: list[Figures]
    vital_series: dict[str, list[Any]]  # name -> the vital figure at the end of each round (0: set-up), or now
    notes: list[Note]
    final: Shown  # the view at the head
    vital2: str | None = None  # the second gauge's name (crisis: Endurance), if the views carry one
    vital2_series: dict[str, list[Any]] = field(default_factory=dict)  # as vital_series
    players: PlayersReport | None = None  # the players' version: what they see of the foes


@dataclass(frozen=True)
class PlayersReport:
    """What the players' report needs beyond the GM's: whose figures are banded, and how."""

    party: tuple[str, ...]
    final_bands: dict[str, str]  # each foe's band at the head
    words: str  # the bands, as the report states them


@dataclass
class _Command:
    """What one command did, gathered until its last event is seen."""

    id: int
    tag: str
    actor: str | None
    action: str | None
    started: set[str] = field(default_factory=set)  # who had a span begin


class _ReportFold:
    def __init__(self, notes: list[Note]) -> None:
        self.about: dict[int, list[Note]] = {}
        for n in notes:
            self.about.setdefault(n.about, []).append(n)
        self.rounds: dict[int, Round] = {}  # those not written out yet
        self.done = Rounds()
        self.figures: dict[str, Figures] = {}
        self.series: dict[str, dict[int, Any]] = {}
        self.series2: dict[str, dict[int, Any]] = {}  # the second gauge's, where there is one
        self.spent: dict[tuple[str, int], int] = {}  # of the rounds not written out yet
        self.open: dict[tuple[str, str], Span] = {}
        self.pending_before: set[tuple[str, str]] = set()
        self.moment: str | None = None
        self.round: Round | None = None
        self.cmd: _Command | None = None

    def name(self, who: str | None) -> str | None:
        if who is None:
            return None
        return next((n for n in self.figures if n.lower() == who.lower()), None)

    def step(self, s: Step) -> None:
        view = s.view
        if s.renamed is not None:
            self.rename(*s.renamed)
        if self.cmd is None or self.cmd.id != s.command_id:
            self.flush()
            self.cmd = _Command(s.command_id, s.command, s.actor, s.action)
        number = view.clock.round
        if self.round is None or self.round.number != number:
            self.new_round(number)
        rnd = self.round
        assert rnd is not None
        moment = view.clock.moment or "-"
        if moment != self.moment or not rnd.moments:
            self.moment = moment
            rnd.moments.append(moment)
            rnd.phases.append(view.clock.phase)
        at = len(rnd.moments) - 1
        rnd.lines.append(Line(s.id, s.text, self.about.get(s.id, [])))
        for row in view.combatants:
            self.combatant(row, number, view.clock.running, s.bands.get(row.name))
        if s.harm is not None and not s.harm.heal:
            self.figures[s.harm.who].taken += s.harm.amount
            if s.harm.by is not None:
                self.figures[s.harm.by].dealt += s.harm.amount
        pending = {(p.who, p.action): p for p in view.pending}
        for key, span in list(self.open.items()):
            if key not in pending:
                span.end = at
                del self.open[key]
        for key, p in pending.items():
            if key not in self.open:
                span = Span(key[0], key[1], at, carried=key in self.pending_before, target=p.target)
                rnd.spans.append(span)
                self.open[key] = span
                self.cmd.started.add(key[0].lower())
        self.pending_before = set(pending)

    def combatant(self, row: Combatant, number: int, running: bool, band: str | None = None) -> None:
        name = row.name
        fig = self.figures.get(name)
        vital: int | str = row.vital.value if band is None else band
        if fig is None:
            fig = self.figures[name] = Figures(name, row.side, vital_start=vital)
        fig.vital_end = vital
        self.series.setdefault(name, {})[number] = vital
        if isinstance(row.vital2, Gauge) and band is None:  # a banded foe's second gauge is not the players' either
            if fig.vital2_start is None:
                fig.vital2_start = row.vital2.value
            fig.vital2_end = row.vital2.value
            self.series2.setdefault(name, {})[number] = row.vital2.value
        # What was spent of what it had, while each round runs: the set-up spends nothing,
        # and what was lost (AP at a round's end, phases let pass) was not spent. A banded
        # foe's budget is not the players' to see.
        budget = row.budget
        if budget.of is not None and running and band is None:
            key = (name, number)
            lost = budget.lost if isinstance(budget.lost, int) else 0
            self.spent[key] = max(self.spent.get(key, 0), budget.of - budget.left - lost)

    def rename(self, old: str, new: str) -> None:
        """One row, one series, one budget per combatant, whatever it was called when."""
        if old in self.figures:
            fig = self.figures.pop(old)
            fig.name = new
            self.figures[new] = fig
        if old in self.series:
            self.series[new] = self.series.pop(old)
        for (name, at), spent in list(self.spent.items()):
            if name == old:
                self.spent[(new, at)] = self.spent.pop((name, at))

    def new_round(self, number: int) -> None:
        # Actions still pending are cut at the round's end and carried into the next.
        self.open.clear()
        # The clock counts rounds up: the one left is complete (its spans are cut, its
        # budget spent is known) and is written out.
        if self.round is not None and number > self.round.number:
            self.close(self.round.number)
        self.round = self.rounds.setdefault(number, Round(number))
        self.moment = None

    def close(self, number: int) -> None:
        for (name, at), spent in list(self.spent.items()):
            if at == number:
                self.figures[name].spent += spent
                del self.spent[(name, at)]
        self.done.add(self.rounds.pop(number))

    def finish(self) -> Rounds:
        """The rounds, once the last step is folded."""
        self.flush()
        for number in sorted(self.rounds):
            self.close(number)
        return self.done

    def flush(self) -> None:
        cmd = self.cmd
        if cmd is None:
            return
        actor = self.name(cmd.actor)
        if cmd.tag == "declare" and actor is not None:
            self.figures[actor].declared += 1
            rnd = self.round
            if actor.lower() not in cmd.started and rnd is not None and cmd.action:
                at = len(rnd.moments) - 1
                rnd.spans.append(Span(actor, cmd.action, at, end=at))
        self.cmd = None


def collect(steps: Iterable[Step], *, notes: list[Note]) -> tuple[Rounds, list[Figures], dict[str, list[Any]]]:
    """Fold the branch's steps into rounds, per-combatant figures and the vital series."""
    rounds, figures, series, _ = collect_both(steps, notes=notes)
    return rounds, figures, series


def collect_both(
    steps: Iterable[Step], *, notes: list[Note]
) -> tuple[Rounds, list[Figures], dict[str, list[Any]], dict[str, list[Any]]]:
    """:func:`collect`, with the second gauge's series too (empty where there is none)."""
    fold = _ReportFold(notes)
    for s in steps:
        fold.step(s)
    rounds = fold.finish()
    numbers = rounds.numbers or [0]
    return rounds, list(fold.figures.values()), _by_round(fold.series, numbers), _by_round(fold.series2, numbers)


def _by_round(by_name: dict[str, dict[int, Any]], numbers: list[int]) -> dict[str, list[Any]]:
    """Each combatant's figure at the end of each round the report holds, in its order: not
    every number from 0 up, since a fight taken up mid-way (`resume`) holds no round before its first."""
    series = {name: [by_round.get(r, None) for r in numbers] for name, by_round in by_name.items()}
    # A round in which a combatant's figure was not shown keeps the previous value.
    for values in series.values():
        for i in range(1, len(values)):
            if values[i] is None:
                values[i] = values[i - 1]
    return series


def steps_of(enc: Encounter, head: int, advance: Callable[[int], None]) -> Iterator[Step]:
    for _, _, step in _recorded_steps(enc, head, advance):
        yield step


def _recorded_steps(enc: Encounter, head: int,
                    advance: Callable[[int], None]) -> Iterator[tuple[Recorded, dict[str, Any], Step]]:
    """Each step with its event and its command as parsed."""
    commands = CommandsAlong(enc)
    attribution = Attribution(enc.ruleset)
    for rec, after in enc.replay(head, commands=True):
        command = rec.command_id  # a replay's record reads it when asked: asked once
        _, body = commands.of(command)
        who, action, tag = body.get("who"), body.get("action"), str(body.get("type", ""))
        actor = who if isinstance(who, str) else None
        event = rec.event
        yield rec, body, Step(
            rec.id, command, tag, actor, action if isinstance(action, str) else None,
            event_line(enc, rec), enc.ruleset.view(after),
            note_about=event.about if isinstance(event, NoteAdded) else None,
            harm=attribution.step(event, command, tag, actor),
            renamed=(event.who, event.to) if isinstance(event, CombatantRenamed) else None,
        )
        advance(1)


def players_steps(enc: Encounter, head: int, advance: Callable[[int], None], bands: Bands) -> Iterator[Step]:
    """The steps as the players' policy lets them through (projections/policy.py): no step it
    drops, its lines for the others, the view without what is hidden, each foe's vital
    figure as its band, no damage to a foe, no foe's action before it happens."""
    players, sight = Players(bands.party), Sight(bands)
    first: dict[str, int] = {}
    round_before: int | None = None
    for rec, body, s in _recorded_steps(enc, head, advance):
        before, sight = sight, sight.after(rec.event)
        for c in s.view.combatants:
            first.setdefault(c.name, c.vital.value)
        view = players.view(s.view, sight)
        told = players.told(rec.event, s.text, s.harm, body, before, sight, view,
                            lambda: explanation_lines(number_entries(rec.event)), round_before, s.view.clock.now)
        round_before = view.clock.round
        if told is None:
            continue
        foes = {c.name for c in view.combatants if players.foe(c.side)}
        party = {c.name for c in view.combatants} - foes
        yield replace(
            s, text=told.text, view=view,
            harm=s.harm if told.harm and s.harm is not None and s.harm.who in party else None,
            action=None if s.actor in foes and s.command == "declare" else s.action,
            bands={c.name: sight.bands.band(c, first.get(c.name)) for c in view.combatants if c.name in foes},
        )


def build(enc: Encounter, branch: str | None = None, advance: Callable[[int], None] = lambda _: None,
          audience: Audience = "gm", bands: Bands | None = None) -> Report:
    """The report of a branch (default: the current one) at its head, for the GM or, through
    the players' policy, for the players (of the current branch only)."""
    if audience == "players" and branch is not None and branch != enc.branch:
        raise BadInput("the players' report follows the current branch: the what-if branches are the GM's")
    with enc.verifying() as chain_digest:  # a long log's, on the other core
        return _build(enc, branch, advance, chain_digest, bands or Bands() if audience == "players" else None)


def _build(enc: Encounter, branch: str | None, advance: Callable[[int], None], chain_digest: Callable[[], str],
           bands: Bands | None = None) -> Report:
    head = enc.head(branch)
    path = enc.runs(head.event_id)  # the branch's events, as runs of ids (not read)
    # Notes made on any branch about an event of this one belong in its report.
    notes = sorted((n for about, ns in notes_shown(enc).items() if path.depth_of(about) is not None for n in ns),
                   key=lambda n: n.id)
    if bands is not None:  # the players': no private note, none naming a combatant hidden when it was made
        notes = [n for n in notes if not n.private and not names_any(n.text, hidden_at(enc, n.id))]
    last: list[Step] = []
    seen: set[int] = set()

    def remembered(steps: Iterable[Step]) -> Iterator[Step]:
        for s in steps:
            last[:] = [s]  # the view at the head is the final state: no second fold
            seen.add(s.id)
            yield s

    steps = steps_of(enc, head.event_id, advance) if bands is None else players_steps(enc, head.event_id, advance, bands)
    rounds, figures, series, series2 = collect_both(remembered(steps), notes=notes)
    digest = chain_digest()
    first = enc.event(path.at(0)).event
    final = last[0].view
    someone = final.combatants[0] if final.combatants else None
    return Report(
        encounter=enc.row.name, ruleset=enc.row.ruleset, branch=head.branch, head=head.event_id,
        options=dict(getattr(first, "options", {})),
        vital=someone.vital.name if someone else "vital figure",
        budget=someone.budget.name if someone else "budget",
        digest=digest if bands is None else "",
        rounds=rounds, figures=figures, vital_series=series,
        notes=notes if bands is None else [n for n in notes if n.about in seen and n.id in seen],
        final=Shown(
            encounter=enc.row.name, ruleset=enc.row.ruleset, branch=head.branch, head=head.event_id,
            at=head.event_id, clock=final.clock, combatants=final.combatants, pending=final.pending, own=final.own,
            ended=enc.ended_at(head.event_id), notes=enc.notes_on(head.event_id),  # the report is the GM's
        ),
        vital2=second_gauge(final), vital2_series=series2,
        players=None if bands is None else PlayersReport(bands.party, dict(last[0].bands), bands.words()),
    )


def path_length(enc: Encounter, branch: str | None = None) -> int:
    return enc.path_length(enc.head(branch).event_id)
