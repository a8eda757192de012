"""The `export` and `import` commands: jsonl round trips, the Markdown report, the replay page."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from skirmish.cli.app import AudienceOpt, BadlyOpt, PartyOpt, command, invocation, say
from skirmish.cli.progress import progress
from skirmish.cli.stopping import stopped_like_ctrl_c
from skirmish.eventlog.connection import file_of
from skirmish.eventlog.errors import BadInput

if TYPE_CHECKING:
    from skirmish.projections.write.transfer import Patch

FORMATS = ("jsonl", "md", "html")


def _write(chunks: Iterable[bytes | Patch], out: Path | None) -> None:
    """To stdout, or to OUT written whole: the chunks go to a hidden temp file beside it,
    renamed over OUT once complete (a Patch writes over what was written, at its offset).
    A failure, Ctrl-C, `kill` or a closed terminal removes the temp file and leaves OUT as
    it was (only SIGKILL, which nothing can catch, may leave a `.OUT.*.part` behind)."""
    from skirmish.projections.write.transfer import Patch

    if out is None:
        for chunk in chunks:
            assert not isinstance(chunk, Patch), "standard output cannot be written over"
            typer.echo(chunk, nl=False)  # bytes as they are: a page is not decoded and encoded again
        return
    import tempfile  # here: only a file written needs it, and every command imports this module

    folder = out.parent if str(out.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{out.name}.", suffix=".part")
    except OSError as exc:
        raise BadInput(f"cannot write {out}: {exc.strerror}") from None
    try:
        with stopped_like_ctrl_c(), os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                if isinstance(chunk, Patch):
                    end = f.tell()
                    f.seek(chunk.at)
                    f.write(chunk.data)
                    f.seek(end)
                else:
                    f.write(chunk)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp's file is private; the export is an ordinary file
            os.replace(tmp, out)
    except BaseException as exc:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise BadInput(f"cannot write {out}: {exc.strerror}") from None
        raise


@command(reads=True)
def export(
    ctx: typer.Context,
    format_: Annotated[str, typer.Option("--format", help="jsonl (the whole tree, for `import`), md (a session report) or html (a replay page).")] = "jsonl",
    out: Annotated[Path | None, typer.Option("--out", help="File to write (default: standard output).")] = None,
    branch: Annotated[str | None, typer.Option(help="The branch a report follows (default: the current one).")] = None,
    audience: AudienceOpt = "gm",
    party: PartyOpt = None,
    badly: BadlyOpt = 50,
) -> None:
    """Export the current encounter: its whole tree as jsonl, a session report (md), or a
    replay page (html)."""
    if format_ not in FORMATS:
        raise BadInput(f"--format takes {', '.join(FORMATS)}, not {format_!r}")
    enc = invocation(ctx).encounter()
    if out is not None:
        db = invocation(ctx).log_file().path
        what = file_of(db, str(out))
        if what is not None:
            raise BadInput(f"--out {out} is {what} ({db}): write the export to another file")
    if format_ == "jsonl" and (audience != "gm" or party or badly != 50):
        raise BadInput("--for, --party and --badly-hurt are for the replay page and the report (--format html, md)")
    if format_ == "html":
        from skirmish.projections.page import data as page_data, shell as page_shell

        if branch is not None:
            raise BadInput("--branch is for the md report: the replay page holds every branch")
        bands = page_data.bands(party, badly)
        with progress("replay page", lambda: page_data.event_count(enc)) as bar:
            data = page_data.build(enc, page_data.audience(audience), bands, bar.advance)
        _write([page_shell.html(data)], out)
    elif format_ == "jsonl":
        from skirmish.projections.write.transfer import export_jsonl, row_count

        if branch is not None:
            raise BadInput("--branch is for reports: a jsonl export holds every branch")
        with progress("export", lambda: row_count(enc)) as bar:
            _write(export_jsonl(enc, bar.advance, seekable=out is not None), out)
    else:
        from skirmish.projections import policy
        from skirmish.projections.report import data as report_data, markdown as report_markdown

        reader, bands = policy.audience(audience), policy.bands(party, badly)
        with progress("report", lambda: report_data.path_length(enc, branch)) as bar:
            built = report_data.build(enc, branch, bar.advance, reader, bands)
        _write(report_markdown.markdown_chunks(built), out)
    if out is not None:
        say(f"Wrote {out} ({format_}) for {enc.row.name!r}", err=True)


@command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="A jsonl file written by `skirmish export --format jsonl`.")],
) -> None:
    """Import an exported encounter exactly as it was (same events, branches, digest)."""
    from skirmish.projections.write.transfer import import_jsonl

    try:
        source = file.open("rb")
        size = os.fstat(source.fileno()).st_size
    except OSError as exc:
        raise BadInput(f"cannot read {file}: {exc.strerror}") from None
    invocation(ctx).records = True
    # Read a line at a time and inserted a chunk at a time: memory flat in the file's size.
    with source, progress("import", lambda: size) as bar:
        try:
            done = import_jsonl(invocation(ctx).log_file(create=True), source, str(file), bar.advance)
        except OSError as exc:
            raise BadInput(f"cannot read {file}: {exc.strerror}") from None
    name = done.encounter.name
    if done.already:
        say(f"Encounter {name!r} is already here with the same log (digest {done.digest}): nothing imported")
        return
    say(
        f"Imported {name!r} ({done.encounter.ruleset}): {done.events} events, {done.commands} commands, "
        f"{done.moves} head moves; digest {done.digest}. It is now current in {invocation(ctx).db}"
    )


@command()
def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0: every network of this machine).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    audience: AudienceOpt = "players",
    party: PartyOpt = None,
    badly: BadlyOpt = 50,
    qr: Annotated[bool | None, typer.Option("--qr/--no-qr", help="A QR code of the GM's link for a phone "
                                            "(default: when the output is a terminal).")] = None,
) -> None:
    """Serve the replay page live (read-only) for the table's screens and phones: it follows
    the branch head as the GM plays. The players' version unless --for gm."""
    from skirmish.projections.page import data as page_data

    run = invocation(ctx)
    chosen, bands = page_data.audience(audience), page_data.bands(party, badly)
    enc = run.encounter()  # refuses a missing database, encounter or branch in one line, before serving
    name = enc.row.name
    # The server keeps to the table it started on (pinned or not): another shell's `use` or
    # `switch` does not move every screen to another fight or branch.
    branch = enc.branch
    pins = name, branch
    run.close()
    try:
        import uvicorn  # noqa: F401 - the serve extra's

        from skirmish.cli import live, server
    except ImportError as exc:
        raise BadInput(f"`serve` needs the serve extra: pip install 'skirmish-log[serve]' ({exc.name} is missing)") from None
    from skirmish.cli import gm_server

    from skirmish.cli import links

    sock = server.listen(host, port)
    closing = threading.Event()
    follower = live.Follower(run.db, chosen, bands, *pins)
    token = gm_server.secret()
    desk = gm_server.Desk(run.db, name, branch, follower.repin, follower.say)
    shown = "the GM's version" if chosen == "gm" else "the players' version"
    where = f"{name!r}, branch {branch!r}" if run.branch_pin else repr(name)
    told = links.told(host, port, gm_server.PAGE, token, f"Serving {where} ({shown})", bound=sock.getsockname()[0])
    for line in told.lines:
        typer.echo(line, err=True)
    terminal = sys.stdout.isatty()
    if qr if qr is not None else terminal:
        if told.no_qr:
            typer.echo(told.no_qr, err=True)
        else:
            try:
                typer.echo("\n".join(links.qr_lines(told.gm_link, ink=terminal)))
            except ImportError as exc:  # an install from before the serve extra drew QR codes
                typer.echo(f"No QR code: {exc.name} is missing (pip install 'skirmish-log[serve]')", err=True)
    gm_server.tell_players(desk, bands.party, told, bool(qr if qr is not None else terminal), terminal, lambda line: typer.echo(line, err=True), typer.echo)
    desk.start()
    try:
        stopped_by_hand = server.run(live.app(follower, closing, gm_server.routes(desk, token, closing)), sock, closing)
    finally:
        desk.stop()
    if stopped_by_hand:
        typer.echo("Stopped.", err=True)
