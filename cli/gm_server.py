"""The GM's page of `skirmish serve`: the board and every command by taps, live, writing
only with the GM's secret (imported only by `serve`).

Who may write: `serve` makes a random token (``secrets.token_urlsafe``) and prints the GM's
link with it after ``#``, so it never travels in a request line or a Referer. The page
sends it in the ``X-Skirmish-Token`` header of every read of the GM's data and every write
(the stream, which a browser opens without headers, takes it as ``?token=``). A write is a
``POST`` of JSON from the same origin: a request whose ``Origin`` is another site, or whose
``Sec-Fetch-Site`` is not ``same-origin``, is refused before the token is even read, and a
missing or wrong token is 403. Nothing is recorded by a refused request.

One path for every write: a tap posts a typed command, its JSON form
(``{"type": "damage", "who": "Orc", "amount": 7}``, projections/door/requests.py), which the
GM's row of the role table (``ROLES["gm"]``) must name; anything else (a file, a server,
another encounter) is refused in one line before it reaches the desk. The desk runs it
through the library (:meth:`~skirmish.cli.session.Session.perform`) and answers its typed
result; the log keeps the command as it would have been typed. The page also sends the
branch and head its board showed; a write decided on a board that has moved since is
refused (exit 3), as the command line refuses one decided on a moved head, unless it is the
page's own tap again: the same tap id (a retry), or the same command from the same board (a
double tap) is answered with the first one's reply, marked ``repeated``, and done once.

A link per player character: `serve` prints one for each character of the party
(:func:`tell_players`), each with a secret of its own, under :data:`PLAYER_PAGE`. Through it
(the secret in the same header) a player reads their character exactly and the players'
view of the rest (:data:`PLAYER_STATE`, :meth:`Desk.player_view`), and writes
(:data:`PLAYER_RUN`) what the role table's "player" row names, for that character only
(``requests.for_character``): their own ``declare`` with their own dice, ``faces`` held for
their next roll (the GM's next command that rolls that key decides them as the player's:
the Roll's source is "player:NAME"; faces that fit no roll are dropped, never blocking the
GM), and ``propose``, which waits in a bounded queue, in the GM's frame, until the GM's
``accept`` (run as the GM's command, the player's dice in it theirs, with a note naming the
proposer) or ``decline``. The GM's ``revoke-link WHO`` gives WHO a new secret and refuses
the old one. No secret is in anything a player's link reads, nor a branch's name; a
player's reply names the events recorded, not what they did to a foe, and a hidden
combatant is answered as a name nobody has. The link opens the player's page
(projections/page/player.html, .js, .css; its sentences made by player_data.py), which
reads ``/player/state?seen=SEQ`` once a second: a read at the seq it holds is a 204.

Live and incremental: a thread looks at the file five times a second (``data_version``);
when it changed, the GM's pages get one frame: the board (the typed view, a few kB whatever
the log's length), the undo and redo labels, the branches, and the events of the branch
after the last one they had, not the whole log. Frames carry an id; a page that reconnects
(a phone that slept) sends the last one it had (``Last-Event-ID``) and gets the frames it
missed, or the whole board and timeline when they are too old.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
import secrets
import sys
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files

import msgspec
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from skirmish.cli.live import file_identity
from skirmish.cli.session import Session
from skirmish.eventlog import commands as c
from skirmish.eventlog.errors import BadInput, SkirmishError, StoreError
from skirmish.eventlog.events import PLAYER, BandsChosen, CombatantAdded
from skirmish.projections.door import requests as r
from skirmish.projections.door.perform import Result, refused
from skirmish.projections.door.words import as_typed
from skirmish.projections.page import gm_data, player_data
from skirmish.projections.page.gm_lines import BoardLines, Card, board_lines, cards, held_lines
from skirmish.projections.page.shell import json_for_script
from skirmish.projections.ruleset import Move
from skirmish.projections.view import Shown

PAGE, STATE, RUN, EVENTS = "/gm", "/gm/state", "/gm/run", "/gm/events"
PLAYER_PAGE, PLAYER_STATE, PLAYER_RUN = "/player", "/player/state", "/player/run"
PLAYER_DICE = "/player/dice"  # the dice keys a player's own declare would roll, recording nothing
PLAYER_ASSETS_AT = "/player/{name}"  # the player's page's script and style
PLAYER_ASSETS = ("player.js", "player.css")
# The player's shell: its own script and style only, its reads and writes to this server only.
PLAYER_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
              "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
UNUSED = "no roll of this command uses the dice typed for "  # the engine's refusal of typed dice no roll used
HEADER = "x-skirmish-token"
LOOK = 0.2  # seconds between looks at the file
KEPT = 256  # frames kept for a page that reconnects
SHOWN = 60  # events of the branch a new page's timeline starts with
TICK = 0.05  # seconds between looks at a stream's queue (a change reaches a page within 300 ms: LOOK + TICK + its fold)

ROLE = "gm"  # the GM's link's row of the role table (projections/door/requests.py ROLES)
TAPS = 64  # the last taps whose replies are kept, to answer one sent again as already done
TAP_LIMIT = 64  # characters of a tap's id


class Timeline(msgspec.Struct, frozen=True):
    """Events of the branch, oldest first: ``after`` is the event they follow (the page
    appends them when it holds it), None when they are the whole timeline."""

    after: int | None
    events: list[tuple[int, str]]


class Frame(msgspec.Struct, frozen=True):
    seq: int
    board: Shown
    undo: str  # the command `undo` would step over, as typed; "" when there is none
    redo: str
    branches: list[tuple[str, int]]
    timeline: Timeline
    said: BoardLines  # the board's sentences (projections/page/gm_lines.py): the page composes none
    # each card's own actions (a stat block's, projections/page/gm_data.py ``moves``): the page parses no block
    moves: dict[str, tuple[Move, ...]] = {}
    proposals: list[Proposal] = []  # the players' proposals waiting for the GM, oldest first
    held: dict[str, list[str]] = {}  # the keys of faces the players' links hold, by character
    holding: tuple[str, ...] = ()  # ``held`` in sentences (projections/page/gm_lines.py ``held_lines``)
    cards: dict[str, Card] = {}  # what each card says beside its name and gauge (gm_lines.py ``cards``)


class Proposal(msgspec.Struct, frozen=True):
    """A command a player's link proposed, waiting for the GM's accept or decline."""

    id: int
    who: str  # the character whose link proposed it
    command: dict[str, Any]  # its JSON form (projections/door/requests.py)
    text: str  # as it would be typed


class Reply(msgspec.Struct, frozen=True):
    """What a write did (the library's typed result: what was recorded, the refusal, the
    head after it), and the board after it (the page shows it at once, before the stream
    brings it). ``repeated``: the page sent a tap it had sent already (a double tap, a
    retry): this is the first one's reply, and nothing was done again."""

    result: Result
    frame: Frame | None = None
    repeated: bool = False


def secret() -> str:
    return secrets.token_urlsafe(24)


def same_origin(request: Request) -> bool:
    """Whether a browser sent this from the page's own origin: an ``Origin`` naming
    another site, or ``Sec-Fetch-Site`` other than ``same-origin``, is a cross-site form
    or script. A client that sends neither is no browser page: it needs the token anyway.
    The page is served over plain HTTP: an https origin on its host and port is another's."""
    origin = request.headers.get("origin")
    if origin is not None:
        host = request.headers.get("host", "")
        if origin != f"http://{host}":
            return False
    site = request.headers.get("sec-fetch-site")
    return site in (None, "same-origin")


class Desk:
    """The GM's table inside the server: one Session on a thread of its own (it holds the
    SQLite connection), running the page's commands and following the file."""

    def __init__(self, db: str, encounter: str, branch: str, repin: Callable[[str, str], None],
                 say: Callable[[str], None] | None = None) -> None:
        self.db = db
        self.say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        self._identity = file_identity(db)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="skirmish-gm")
        self.session: Session = self._pool.submit(Session, db, encounter, branch).result()
        self.repin = repin  # the players' screens follow the GM's `switch`
        self.frames: deque[tuple[int, bytes]] = deque(maxlen=KEPT)
        self.seq = 0
        self.whole = b""  # the last frame with the whole timeline, for a new page
        self.inputs = b""
        self.error = ""
        self._version = -1
        self._head: int | None = None
        self._taps: OrderedDict[str, Reply] = OrderedDict()
        self.links: dict[str, str] = {}  # character -> its player link's secret
        self.held: dict[str, dict[str, tuple[int, ...]]] = {}  # character -> key -> faces typed on its link
        self.proposals: OrderedDict[int, Proposal] = OrderedDict()
        self._proposed = 0
        self.party: tuple[str, ...] = ()
        self.stopping = threading.Event()
        self._pool.submit(self._first).result()
        self._looker = threading.Thread(target=self._look_loop, name="skirmish-gm-look", daemon=True)

    def start(self) -> None:
        self._looker.start()

    def stop(self) -> None:
        self.stopping.set()
        self._pool.submit(self.session.close)
        self._pool.shutdown(wait=False)

    # --- on the desk's thread ----------------------------------------------------------------

    def _first(self) -> None:
        enc = self.session.encounter()
        self.inputs = json_for_script(gm_data.inputs(enc.ruleset))
        self._publish()

    def _look_loop(self) -> None:
        while not self.stopping.wait(LOOK):
            try:
                self._pool.submit(self._check).result()
            except RuntimeError:  # the pool was shut down: the server is stopping
                return

    def _check(self) -> None:
        try:
            self._same_file()
            version = self.session.log_file.data_version()
            if version != self._version:
                self._publish()
            self.error = ""
        except Exception as exc:  # noqa: BLE001 - on the terminal and the GM's page; the desk goes on
            line = f"the GM's page cannot read {self.db}: {exc}"
            if line != self.error:
                self.say(line)
            self.error = line

    def _same_file(self) -> None:
        """Refuse to go on with a file deleted or replaced under the server: the desk's
        connection holds the old one, and a tap would be recorded where nobody reads it."""
        if file_identity(self.db) != self._identity:
            raise StoreError(f"the database {self.db} was deleted or replaced under the server: "
                             "restart `skirmish serve` to play on the file there now")

    def _labels(self) -> tuple[str, str]:
        enc = self.session.encounter()
        head = enc.head()
        at = enc.event(head.event_id)
        undo = enc.command(at.command_id).text if at.parent is not None else ""
        redo = ""
        target = enc.redo_target()
        if target is not None:
            redo = enc.command(enc.event(target).command_id).text
        return undo, redo

    def _publish(self) -> Frame:
        self._version = self.session.log_file.data_version()
        board = self.session.look()
        moments = self.session.timeline
        ids = [m.id for m in moments]
        if self._head is not None and self._head in ids:
            start = ids.index(self._head) + 1
            timeline = Timeline(self._head, [(m.id, m.text) for m in moments[start:]])
        else:
            timeline = Timeline(None, [(m.id, m.text) for m in moments[-SHOWN:]])
        undo, redo = self._labels()
        branches = [(name, h.event_id) for name, h in self.session.encounter().branches().items()]
        self.seq += 1
        said = board_lines(board)
        enc = self.session.encounter()
        moves = gm_data.moves(enc.ruleset, enc.held_at(board.at))
        waiting = list(self.proposals.values())
        held = {who: sorted(keys) for who, keys in self.held.items() if keys}
        holding = held_lines(held)
        from skirmish.projections.policy import hidden_at

        shown = cards(board, enc.ruleset, hidden_at(enc, board.at))
        frame = Frame(self.seq, board, undo, redo, branches, timeline, said, moves, waiting, held, holding, shown)
        self._head = board.head
        self.frames.append((self.seq, json_for_script(frame)))
        whole = Frame(self.seq, board, undo, redo, branches, Timeline(None, [(m.id, m.text) for m in moments[-SHOWN:]]), said, moves,
                      waiting, held, holding, shown)
        self.whole = json_for_script(whole)
        return frame

    def _run(self, request: r.Anything, branch: str, head: int, tap: str,
             sources: Mapping[str, str] | None = None) -> Reply:
        session = self.session
        # The same tap sent again (a retry), or the same command sent again from the same
        # board (a double tap: two taps, one board): the first one's reply, nothing done again.
        same = f"{branch}\0{head}\0".encode() + msgspec.json.encode(request)
        done = self._taps.get(tap) or self._taps.get(same.decode("utf-8", "replace"))
        if done is not None:
            return msgspec.structs.replace(done, repeated=True, frame=self._publish())
        try:
            self._same_file()
        except StoreError as exc:
            return Reply(refused(exc))
        where = session.where()
        if (where[1], where[2]) != (branch, head):
            # Refused as the command line refuses a command decided on a moved head, saying
            # what moved; the frame shows the board as it is now.
            if where[1] != branch:
                what = f"the table is on branch {where[1]!r} (#{where[2]}), not {branch!r}"
            elif session.encounter().holds(where[2], head):
                what = f"another writer recorded up to #{where[2]}: {session.describe(where[2])}"
            else:
                what = f"branch {where[1]!r} moved back to #{where[2]} (an undo)"
            return Reply(refused(f"the board moved: {what}; look at it and tap again", 3), self._publish())
        session.look()  # the board the GM decided on is the one the session holds
        before = session.log_file.last_ids()
        result = self._decide(request, sources or {})
        if result.ok and isinstance(request, r.Switch):
            # The desk plays where the GM switched (a switch typed in another shell does not
            # move it), and the players' screens follow.
            session.pin_branch(result.branch)
            assert session.branch_pin is not None
            self.repin(session.pinned, session.branch_pin)
        changed = session.log_file.last_ids() != before
        reply = Reply(result, self._publish() if changed or result.ok else None)
        if changed:
            self._taps[tap] = self._taps[same.decode("utf-8", "replace")] = reply
            while len(self._taps) > 2 * TAPS:
                self._taps.popitem(last=False)
        return reply

    def _decide(self, request: r.Anything, sources: Mapping[str, str]) -> Result:
        """Perform ``request``; a command that rolls dice takes the faces the players' links
        hold for keys it was not given (those no roll of it uses stay held), each decided as
        its player's. ``sources``: key -> source of the faces the request carries itself."""
        if not isinstance(request, c.AtTheTable):
            return self.session.perform(request, as_typed(request, self.session.encounter().ruleset))
        given = {k.casefold() for k in request.rolls}
        # The key each held roll goes under in this command -> (whose, faces, its held key). A
        # save the GM asks with `roll DICE --for WHO` takes WHO's ``save:WHO`` as its "dice";
        # faces held under the character's own name are their Initiative: a round's, a turn's.
        held: dict[str, tuple[str, tuple[int, ...], str]] = {}
        for who, keys in self.held.items():
            for key, faces in keys.items():
                if isinstance(request, c.RollDice):
                    if request.who and key.casefold() == f"save:{request.who}".casefold() and "dice" not in given:
                        held["dice"] = who, faces, key
                elif key.casefold() == who.casefold() and not isinstance(request, c.StartRound | c.Next):
                    continue  # under their name: their Initiative, not the d20 of an attack the GM declares
                elif key.casefold() not in given:
                    held[key] = who, faces, key
        while True:
            rolls = {**request.rolls, **{key: faces for key, (_, faces, _) in held.items()}}
            # Whose each key's faces are, kept with the command (amend decides it again as theirs).
            typed_by = {k: v for k, v in sources.items() if k in rolls}
            typed_by.update({key: f"{PLAYER}{who}" for key, (who, _, _) in held.items()})
            command = msgspec.structs.replace(request, rolls=rolls, typed_by=typed_by) if typed_by else request
            result = self.session.perform(command, as_typed(command, self.session.encounter().ruleset))
            unused = {k.strip().casefold() for k in result.error.removeprefix(UNUSED).split(",")} \
                if result.error.startswith(UNUSED) else set()
            # Faces that do not fit the roll ("1d20 for death:Ann takes 1 faces from 1 to 20"):
            # a player's slip never blocks the GM's command; they are dropped, not held.
            unfit = {key for key in held if f" for {key.casefold()} takes " in result.error.casefold()}
            for key in unfit:
                self.held.get(held[key][0], {}).pop(held[key][2], None)
            left = {key: v for key, v in held.items() if key.casefold() not in unused and key not in unfit}
            if result.ok or not held or left == held:
                break
            held = left
        if result.ok:
            for who, _, origin in held.values():
                self.held.get(who, {}).pop(origin, None)
        return result

    def _player(self, who: str, request: r.Anything, branch: str, head: int, tap: str) -> Reply:
        if self.links.get(who) is None:
            return Reply(refused("this player's link was revoked: ask the GM for the new one"))
        if isinstance(request, r.Faces):
            keys = self.held.setdefault(who, {})
            if request.key not in keys and len(keys) >= r.PLAYER_HELD:
                return Reply(refused(f"{who}'s link holds {r.PLAYER_HELD} rolls already: the GM's next commands use them first"))
            keys[request.key] = request.faces
            shown = ",".join(str(f) for f in request.faces)
            reply = Reply(Result(kind="held", lines=[f"{who}'s faces {shown} for {request.key} wait for the GM's next command that rolls them"]))
            self._publish()
            return reply
        if isinstance(request, r.Propose):
            mine = sum(1 for p in self.proposals.values() if p.who == who)
            if mine >= r.PLAYER_PROPOSALS or len(self.proposals) >= r.PROPOSALS:
                why = f"{who} has {mine} proposals waiting" if mine >= r.PLAYER_PROPOSALS \
                    else f"{len(self.proposals)} proposals are waiting"
                return Reply(refused(f"{why}: the GM answers those first"))
            self._proposed += 1
            proposal = Proposal(self._proposed, who, r.to_json(request.command), as_typed(request.command, self.session.encounter().ruleset))
            self.proposals[proposal.id] = proposal
            self._publish()
            return Reply(Result(kind="proposed", lines=[f"Proposed to the GM (#{proposal.id}): `{proposal.text}`"],
                                data={"id": proposal.id}))
        assert isinstance(request, c.AtTheTable)
        hidden, foes = self._unseen()
        unknown = self._unknown_target(request, hidden)
        if unknown is not None:
            return Reply(refused(unknown))
        sources = {key: f"{PLAYER}{who}" for key in request.rolls}
        # The table's branch: a player's link is told no branch's name (the players' policy),
        # only the head its board showed, which must still be the head.
        reply = self._run(request, self.session.where()[1], head, f"{who}\0{tap}", sources)
        return self._told(reply, hidden | self._unseen()[0], foes)

    def _unknown_target(self, request: Any, hidden: frozenset[str]) -> str | None:
        """The refusal of a target (several joined by +) hidden or nobody's name: one answer
        for both, so a link cannot probe; None when each is on the board for the players."""
        target = getattr(request, "target", None)
        if not isinstance(target, str):
            return None
        names = self._names()
        for one in target.split("+"):
            if one in hidden or one not in names:
                return f"no combatant {one[:40]!r} is on the board"
        return None

    def _player_dice(self, who: str, request: r.Anything) -> bytes:
        """The dice keys ``who``'s own declare ``request`` would roll now, as the ruleset
        decides it (projections/page/player_data.py :func:`rolled`), nothing recorded; or why
        the ruleset refuses it, as the players' policy lets the link read it."""
        if self.links.get(who) is None:
            return msgspec.json.encode({"rolls": [], "error": "this player's link was revoked: ask the GM for the new one"})
        hidden, foes = self._unseen()
        error = self._unknown_target(request, hidden) or ""
        found: tuple[player_data.Rolled, ...] = ()
        if not error:
            enc = self.session.encounter()
            try:
                found = player_data.rolled(enc.ruleset, enc.held_at(enc.view().at), enc.started, request)
            except SkirmishError as exc:
                error = self._told(Reply(refused(exc)), hidden, foes).result.error
        return msgspec.json.encode({"rolls": msgspec.to_builtins(found), "error": error})

    def _names(self) -> set[str]:
        return {fighter.name for fighter in self.session.encounter().view().combatants}

    def _unseen(self) -> tuple[frozenset[str], frozenset[str]]:
        """The combatants hidden from the players now, and the foes (the players' policy)."""
        from skirmish.projections.policy import Bands, Players, hidden_at

        enc = self.session.encounter()
        view = enc.view()
        players = Players(self.party or Bands().party)
        return hidden_at(enc, view.at), frozenset(f.name for f in view.combatants if players.foe(f.side))

    @staticmethod
    def _told(reply: Reply, hidden: frozenset[str], foes: frozenset[str]) -> Reply:
        """A player's reply as the players' policy lets them read it: what was recorded by
        its events' numbers (their read shows what it did, banded), a refusal as it is unless
        it names a hidden combatant or a foe's figure."""
        from skirmish.projections.policy import names_any

        result = reply.result
        lines = [f"Recorded #{result.events[0]} to #{result.events[-1]}: the board shows what it did"] \
            if result.events else []
        error = result.error
        if names_any(error, hidden) or (names_any(error, foes) and any(ch.isdigit() for ch in error)):
            error = "the rules refuse it as it stands: ask the GM"
        return Reply(msgspec.structs.replace(result, lines=lines, error=error, data=None), None, reply.repeated)

    def _answer(self, request: r.Anything, branch: str, head: int, tap: str) -> Reply:
        """The GM's answer to the players' links: accept or decline a proposal, revoke a link."""
        if isinstance(request, r.RevokeLink):
            who = next((name for name in self.links if name.casefold() == request.who.casefold()), None)
            if who is None:  # a character who joined the party since `serve` started: their first link
                self._open_links(self.party)
                who = next((name for name in self.links if name.casefold() == request.who.casefold()), None)
            if who is None:
                return Reply(refused(f"no player's link for {request.who[:40]!r}: links are {', '.join(self.links) or 'none'}"))
            self.links[who] = secret()
            self.say(f"{who}'s link was revoked: the new one is {PLAYER_PAGE}#{self.links[who]} on this server")
            return Reply(Result(kind="revoked", lines=[f"{who}'s old link is refused from now on; the new one is on the "
                                                       "server's terminal and here"],
                                data={"who": who, "link": f"{PLAYER_PAGE}#{self.links[who]}"}))
        assert isinstance(request, r.Accept | r.Decline)
        proposal = self.proposals.get(request.id)
        if proposal is None:
            return Reply(refused(f"no proposal #{request.id} is waiting"))
        if isinstance(request, r.Decline):
            del self.proposals[request.id]
            self._publish()
            return Reply(Result(kind="declined", lines=[f"Declined {proposal.who}'s proposal: `{proposal.text}`"]))
        command = r.from_json(msgspec.json.encode(proposal.command))
        # The dice the player typed in it are theirs (the GM accepts what they proposed).
        sources = {key: f"{PLAYER}{proposal.who}" for key in getattr(command, "rolls", {})}
        reply = self._run(command, branch, head, tap, sources)
        if not reply.result.ok or reply.repeated:
            return reply
        del self.proposals[request.id]
        at = reply.result.events[0]  # the command's first event: `explain` of it names the command
        note = c.AddNote(event=at, text=f"proposed by {proposal.who} on {proposal.who}'s link")
        self.session.perform(note, as_typed(note))
        lines = [*reply.result.lines, f"Proposed by {proposal.who} on {proposal.who}'s link (a note on #{at})"]
        return Reply(msgspec.structs.replace(reply.result, lines=lines), self._publish())

    def _open_links(self, party: Iterable[str]) -> dict[str, str]:
        from skirmish.projections.policy import in_party

        self.party = tuple(party)
        enc = self.session.encounter()
        # A ruleset's own mark of a character (srd-5.2's ``pc`` stat, default 1 on a side
        # named party, players, pcs, characters or heroes): theirs too, whatever the side.
        marked = {rec.event.name for rec in enc.events_of_kind(CombatantAdded)
                  if isinstance(rec.event, CombatantAdded) and rec.event.stats.get("pc") == 1}
        for fighter in enc.view().combatants:
            if fighter.name not in self.links and (in_party(fighter.side, self.party) or fighter.name in marked):
                self.links[fighter.name] = secret()
        return dict(self.links)

    def _player_view(self, who: str) -> bytes:
        """What ``who``'s link reads: their character as the GM sees it, the rest as the
        players' page does (projections/policy.py), the table's head (a write
        names it), their held faces' keys and waiting proposals; no secret, no branch's name."""
        from skirmish.projections.policy import Bands, Players, Sight, hidden_at

        enc = self.session.encounter()
        view = enc.view()
        bands = Bands(self.party or Bands().party)
        for rec in enc.events_of_kind(BandsChosen):
            if enc.runs(view.at).depth_of(rec.id) is not None and isinstance(rec.event, BandsChosen):
                bands = bands.chosen(rec.event)
        sight = Sight(bands, hidden_at(enc, view.at))
        players = Players(bands.party)
        shown = players.view(view, sight)
        me = next((fighter for fighter in view.combatants if fighter.name == who), None)
        rest: list[dict[str, Any]] = []
        for fighter in shown.combatants:
            if fighter.name == who:
                continue
            if players.foe(fighter.side):
                rest.append({"name": fighter.name, "side": fighter.side, "status": fighter.status, "acting": fighter.acting,
                             "band": bands.band(fighter, None), "effects": [e.kind for e in fighter.effects]})
            else:
                rest.append(msgspec.to_builtins(fighter))
        head = enc.head()
        data = {"who": who, "me": msgspec.to_builtins(me) if me is not None else None, "rest": rest,
                "clock": msgspec.to_builtins(shown.clock), "pending": msgspec.to_builtins(shown.pending),
                "head": head.event_id, "held": sorted(self.held.get(who, {})),
                "proposals": [{"id": p.id, "text": p.text} for p in self.proposals.values() if p.who == who]}
        # What the player's page shows and offers, made here (projections/page/player_data.py):
        # its sentences, the dice the link may hold, its character's own actions (a stat
        # block's, with their dice keys), the ruleset's actions and effects to propose.
        data.update(player_data.offered(enc.ruleset, enc.held_at(view.at), me, shown.clock, self.seq))
        return msgspec.json.encode(data)

    # --- from the server's loop ---------------------------------------------------------------

    async def run(self, request: r.Anything, branch: str, head: int, tap: str) -> Reply:
        try:
            r.allowed(ROLE, request)
        except SkirmishError as exc:
            return Reply(refused(exc))
        if isinstance(request, r.LINKS):
            return await asyncio.wrap_future(self._pool.submit(self._answer, request, branch, head, tap))
        return await asyncio.wrap_future(self._pool.submit(self._run, request, branch, head, tap))

    async def player_run(self, who: str, request: r.Anything, branch: str, head: int, tap: str) -> Reply:
        try:
            r.for_character(who, request)
        except SkirmishError as exc:
            return Reply(refused(exc))
        return await asyncio.wrap_future(self._pool.submit(self._player, who, request, branch, head, tap))

    async def player_view(self, who: str) -> bytes:
        return await asyncio.wrap_future(self._pool.submit(self._player_view, who))

    async def player_dice(self, who: str, request: r.Anything) -> bytes:
        """The keys ``who``'s declare would roll; refused as a write is outside its role."""
        if not isinstance(request, c.Declare):
            return msgspec.json.encode({"rolls": [], "error": "the dice of a player's own declare only"})
        try:
            r.for_character(who, request)
        except SkirmishError as exc:
            return msgspec.json.encode({"rolls": [], "error": str(exc)})
        return await asyncio.wrap_future(self._pool.submit(self._player_dice, who, request))

    def open_links(self, party: Iterable[str]) -> dict[str, str]:
        """A link's secret for each character of the party (``party``: its sides), made once."""
        return self._pool.submit(self._open_links, party).result()

    def player_of(self, given: str | None) -> str | None:
        """The character whose link's secret is ``given``, or None."""
        if not given:
            return None
        found = None
        for who, kept in list(self.links.items()):
            if secrets.compare_digest(given.encode(), kept.encode()):
                found = who
        return found


async def written(request: Request, page: str) -> tuple[Asked, r.Anything] | Response:
    """A write's body as ``page`` posts it (JSON: the typed command, its board, its tap's id),
    or the answer refusing it: 415 when it is not JSON, 400 naming what is wrong."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return Response("a write is JSON\n", status_code=415, media_type="text/plain")
    try:
        asked = msgspec.json.decode(await request.body(), type=Asked)
        command = r.from_json(asked.command)
        if not asked.tap or len(asked.tap) > TAP_LIMIT:
            raise BadInput(f"a write carries its tap's id, 1 to {TAP_LIMIT} characters")
    except (msgspec.DecodeError, SkirmishError) as exc:
        why = exc if isinstance(exc, SkirmishError) else BadInput(f"not a write of {page}: {exc}")
        return Response(msgspec.json.encode(Reply(refused(why))), status_code=400, media_type="application/json")
    return asked, command


def routes(desk: Desk, token: str, closing: threading.Event) -> list[BaseRoute]:
    def allowed(request: Request, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), token.encode())

    def forbidden(why: str) -> Response:
        return Response(f"{why}\n", status_code=403, media_type="text/plain")

    async def page(request: Request) -> Response:
        # The shell alone: no data of the fight, which comes with the token.
        return Response(_shell(), media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
                                 "Content-Security-Policy": "default-src 'self'; style-src 'self'; script-src 'self'"})

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ("gm.js", "fold.mjs", "gm.css"):
            return Response("not found\n", status_code=404, media_type="text/plain")
        kind = "text/javascript" if name.endswith((".js", ".mjs")) else "text/css"
        return Response(_asset(name), media_type=f"{kind}; charset=utf-8")

    async def state(request: Request) -> Response:
        if not allowed(request, request.headers.get(HEADER)):
            return forbidden("the GM's page needs the GM's link (the token serve printed)")
        body = b'{"inputs":' + desk.inputs + b',"frame":' + desk.whole + b',"error":' + msgspec.json.encode(desk.error) + b"}"
        return Response(body, media_type="application/json", headers={"Cache-Control": "no-store"})

    async def run(request: Request) -> Response:
        if not same_origin(request):
            return forbidden("a write comes from the GM's page only (same origin)")
        if not allowed(request, request.headers.get(HEADER)):
            return forbidden("a write needs the GM's token (the link serve printed)")
        read = await written(request, "the GM's page")
        if isinstance(read, Response):
            return read
        asked, command = read
        try:
            reply = await desk.run(command, asked.branch, asked.head, asked.tap)
        except SkirmishError as exc:
            reply = Reply(refused(exc))
        return Response(msgspec.json.encode(reply), media_type="application/json")

    async def stream(request: Request) -> Response:
        if not allowed(request, request.query_params.get("token")):
            return forbidden("the GM's stream needs the GM's token")
        last = request.headers.get("last-event-id") or request.query_params.get("since") or "0"
        seen = int(last) if last.isdigit() else 0

        async def frames() -> AsyncIterator[bytes]:
            nonlocal seen
            yield b"retry: 1000\n\n"
            idle = 0.0
            while not closing.is_set() and not await request.is_disconnected():
                kept = list(desk.frames)
                if kept and kept[-1][0] > seen:
                    if kept[0][0] > seen + 1:  # missed more than we kept (0: had none): the whole board
                        yield b"id: %d\nevent: change\ndata: " % desk.seq
                        yield desk.whole
                        yield b"\n\n"
                    else:
                        for number, frame in kept:
                            if number > seen:
                                yield b"id: %d\nevent: change\ndata: " % number
                                yield frame
                                yield b"\n\n"
                    seen, idle = kept[-1][0], 0.0
                elif idle >= 15:
                    yield b": still here\n\n"
                    idle = 0.0
                await asyncio.sleep(TICK)
                idle += TICK

        return StreamingResponse(frames(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def player_page(request: Request) -> Response:
        # The shell alone, as the GM's: the data comes with the player's secret.
        return Response(_asset("player.html"), media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
                                 "Content-Security-Policy": PLAYER_CSP})

    async def player_asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in PLAYER_ASSETS:
            return Response("not found\n", status_code=404, media_type="text/plain")
        kind = "text/javascript" if name.endswith((".js", ".mjs")) else "text/css"
        return Response(_asset(name), media_type=f"{kind}; charset=utf-8")

    async def player_state(request: Request) -> Response:
        who = desk.player_of(request.headers.get(HEADER))
        if who is None:
            return forbidden("a player's page needs that player's link (serve printed it; the GM may have revoked it)")
        # The page's poll names the read it holds (?seen=SEQ): nothing moved since, nothing is
        # made or sent (204). Each poll is one short answer: nothing waits or queues for it.
        seen = request.query_params.get("seen", "")
        if seen.isdigit() and int(seen) == desk.seq:
            return Response(status_code=204, headers={"Cache-Control": "no-store"})
        return Response(await desk.player_view(who), media_type="application/json", headers={"Cache-Control": "no-store"})

    async def player_run(request: Request) -> Response:
        if not same_origin(request):
            return forbidden("a write comes from the player's page only (same origin)")
        who = desk.player_of(request.headers.get(HEADER))
        if who is None:
            return forbidden("a write needs the player's link (serve printed it; the GM may have revoked it)")
        read = await written(request, "a player's page")
        if isinstance(read, Response):
            return read
        asked, command = read
        try:
            reply = await desk.player_run(who, command, asked.branch, asked.head, asked.tap)
        except SkirmishError as exc:
            reply = Reply(refused(exc))
        # A player reads no GM frame: the board comes from their own read.
        return Response(msgspec.json.encode(msgspec.structs.replace(reply, frame=None)), media_type="application/json")

    async def player_dice(request: Request) -> Response:
        # A read made of a write's shape (the declare the page would send): asked as one is.
        if not same_origin(request):
            return forbidden("a player's page asks from its own origin only")
        who = desk.player_of(request.headers.get(HEADER))
        if who is None:
            return forbidden("a player's page needs that player's link (serve printed it; the GM may have revoked it)")
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return Response("a question is JSON\n", status_code=415, media_type="text/plain")
        try:
            command = r.from_json(msgspec.json.decode(await request.body(), type=DiceAsked).command)
        except (msgspec.DecodeError, SkirmishError) as exc:
            why = str(exc) if isinstance(exc, SkirmishError) else f"not a question of a player's page: {exc}"
            return Response(msgspec.json.encode({"rolls": [], "error": why}), status_code=400, media_type="application/json")
        return Response(await desk.player_dice(who, command), media_type="application/json", headers={"Cache-Control": "no-store"})

    async def no_icon(request: Request) -> Response:
        return Response(status_code=204)  # a browser asks; an empty answer, not a 404 in its console

    return [Route("/favicon.ico", no_icon), Route(PAGE, page), Route(STATE, state), Route(RUN, run, methods=["POST"]), Route(EVENTS, stream),
            Route("/gm/{name}", asset), Route(PLAYER_PAGE, player_page), Route(PLAYER_STATE, player_state),
            Route(PLAYER_RUN, player_run, methods=["POST"]), Route(PLAYER_DICE, player_dice, methods=["POST"]),
            Route(PLAYER_ASSETS_AT, player_asset)]


class Asked(msgspec.Struct, forbid_unknown_fields=True):
    """A write as the page posts it: a typed command (its JSON form, projections/door/
    requests.py), where its board was, and the tap's id (a tap sent twice is done once)."""

    command: msgspec.Raw
    branch: str
    head: int
    tap: str


class DiceAsked(msgspec.Struct, forbid_unknown_fields=True):
    """The player's page's question: the declare it would send (its JSON form)."""

    command: msgspec.Raw


def _asset(name: str) -> str:
    return files("skirmish.projections.page").joinpath(name).read_text(encoding="utf-8")


def _shell() -> str:
    return _asset("gm.html")


def tell_players(desk: Desk, party: Iterable[str], told: Any, qr: bool, ink: bool,
                 echo: Callable[[str], None] | None = None, show: Callable[[str], None] | None = None) -> None:
    """Print each party character's link (`serve`), with a QR code of it as of the GM's."""
    from skirmish.cli import links

    echo = echo or (lambda line: print(line, file=sys.stderr, flush=True))
    show = show or (lambda line: print(line, flush=True))
    base = told.gm_link.split(PAGE + "#", 1)[0]
    for who, kept in desk.open_links(party).items():
        link = f"{base}{PLAYER_PAGE}#{kept}"
        echo(f"{who}'s link: {link} (theirs alone: it acts for {who}; `revoke-link {who}` on the GM's page replaces it)")
        if qr and not told.no_qr:
            try:
                show("\n".join(links.qr_lines(link, ink=ink)))
            except ImportError:
                return
