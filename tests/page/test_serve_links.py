"""The links `skirmish serve` prints (cli/links.py): a phone's addresses in place of 0.0.0.0
and ::, found with the address finders faked and for real, and the GM's link as a terminal QR
code, read back from its half blocks and decoded by zbarimg (Debian's zbar-tools, which
.ci/run installs), not by the library that drew it."""

from __future__ import annotations

import ipaddress
import os
import pty
import re
import select
import socket
import struct
import subprocess
import time
import urllib.request
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from skirmish.cli import links
from support.cli import Cli
from support.served import SCRIPT, free_port

ZBARIMG = "/usr/bin/zbarimg"
# The half blocks read back as their two modules (upper, lower); dark is ink.
MODULES = {" ": (0, 0), "\u2580": (1, 0), "\u2584": (0, 1), "\u2588": (1, 1)}


def matrix(lines: list[str]) -> list[list[int]]:
    rows: list[list[int]] = []
    for line in lines:
        pairs = [MODULES[ch] for ch in line]
        rows.append([p[0] for p in pairs])
        rows.append([p[1] for p in pairs])
    return rows


def png(rows: list[list[int]], path: Path, scale: int = 6) -> None:
    """An 8-bit greyscale PNG of the modules (dark: 0), drawn here with zlib and struct."""
    raw = b"".join(b"\x00" + bytes(0 if dark else 255 for dark in row for _ in range(scale))
                   for row in rows for _ in range(scale))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", len(rows[0]) * scale, len(rows) * scale, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def decoded(lines: list[str], tmp_path: Path) -> str:
    assert Path(ZBARIMG).exists(), "the QR tests need Debian's zbar-tools (.ci/run installs it)"
    picture = tmp_path / "qr.png"
    png(matrix(lines), picture)
    done = subprocess.run([ZBARIMG, "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(picture)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.rstrip("\n")


def check_quiet_zone(lines: list[str]) -> None:
    """Four light modules on every side (ISO/IEC 18004's quiet zone): two blank lines of
    half blocks above, and the first four and last four columns blank."""
    assert len({len(line) for line in lines}) == 1
    assert lines[0].strip() == lines[1].strip() == ""
    assert all(line[:4] == "    " and line[-4:] == "    " for line in lines)
    rows = matrix(lines)
    assert not any(any(row) for row in rows[-4 - (len(rows) % 2):])  # the last four module rows, and a padding row
    assert len(rows[0]) - 8 in range(21, 178, 4)  # a QR code's side: 17 + 4 x version


# --- the addresses, faked -----------------------------------------------------------------

def test_a_wildcard_is_shown_as_the_addresses_a_phone_types() -> None:
    asked: list[int] = []

    def route(family: int) -> str | None:
        asked.append(family)
        return {socket.AF_INET: "192.168.1.20", socket.AF_INET6: None}[family]

    def interfaces(family: int) -> list[str]:
        if family == socket.AF_INET:
            return ["127.0.0.1", "192.168.1.20", "169.254.3.4", "10.0.0.5"]
        return ["::1", "fe80::fc:ff:fe00:1", "fd00::2"]

    def found(families: Iterable[int]) -> list[str]:
        return links.lan_addresses(families, route, interfaces, lambda family: ["192.168.1.99"])

    # The route out first; loopback, link-local and repeats left out; the name's not needed.
    assert links.shown_hosts("0.0.0.0", found) == ["192.168.1.20", "10.0.0.5"]
    assert asked == [socket.AF_INET]  # 0.0.0.0 listens on IPv4 alone
    asked.clear()
    assert links.shown_hosts("::", found) == ["192.168.1.20", "10.0.0.5", "fd00::2"]  # `::` takes both, IPv4 first
    assert asked == [socket.AF_INET, socket.AF_INET6]
    assert links.shown_hosts("192.168.1.20", found) == ["192.168.1.20"]  # an address given is kept
    assert links.url("fd00::2", 8000, "/gm#abc") == "http://[fd00::2]:8000/gm#abc"
    assert links.url("192.168.1.20", 8000) == "http://192.168.1.20:8000/"


def test_no_address_found_falls_back_to_the_machines_names_then_to_loopback() -> None:
    """The name's addresses, not the name: the server answers requests addressed by IP
    alone (cli/live.py's Host check refuses a name with 421)."""
    named = {socket.AF_INET: ["127.0.1.1", "192.168.7.7"]}
    assert links.lan_addresses([socket.AF_INET], lambda f: None, lambda f: ["127.0.0.1"],
                               lambda f: named.get(f, [])) == ["192.168.7.7"]
    assert links.lan_addresses([socket.AF_INET], lambda f: None, lambda f: [], lambda f: ["127.0.1.1"]) == []

    def nowhere(families: Iterable[int]) -> list[str]:
        return links.lan_addresses(families, lambda f: None, lambda f: [], lambda f: [])

    assert links.shown_hosts("0.0.0.0", nowhere) == ["127.0.0.1"]


@pytest.mark.parametrize(("host", "only_here"), [("127.0.0.1", True), ("127.0.1.1", True), ("::1", True),
                                                 ("localhost", True), ("192.168.1.20", False), ("gm-laptop", False)])
def test_loopback(host: str, only_here: bool) -> None:
    assert links.loopback(host) is only_here


# --- the addresses, for real --------------------------------------------------------------

def test_the_addresses_found_are_this_machines() -> None:
    """Each address found binds a socket here (so it is one of this machine's), none is
    loopback or link-local, and the route out's is among the interfaces' (Linux)."""
    for family in (socket.AF_INET, socket.AF_INET6):
        found = links.lan_addresses([family])
        for address in found:
            ip = ipaddress.ip_address(address)
            assert not (ip.is_loopback or ip.is_link_local), address
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.bind((address, 0))
        route = links.route_address(family)
        if route is not None and Path("/proc/net/if_inet6").exists():
            assert route in links.interface_addresses(family)


# --- the QR code --------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("link", ["http://192.168.1.20:8000/gm#Z0pX-y_1aBcDeFgHiJkLmNoPqRsTuVwX",
                                  "http://[fd00::2]:65535/gm#" + "A" * 32])
def test_the_qr_code_is_of_exactly_the_link(link: str, tmp_path: Path) -> None:
    lines = links.qr_lines(link)
    check_quiet_zone(lines)
    assert decoded(lines, tmp_path) == link
    # In a terminal, the same blocks, black on white whatever the terminal's theme.
    inked = links.qr_lines(link, ink=True)
    assert [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in inked] == lines
    assert all(line.startswith("\x1b[30;107m") and line.endswith("\x1b[0m") for line in inked)


# --- `serve` as the GM runs it ------------------------------------------------------------

@contextmanager
def serve(db: str, tmp_path: Path, *options: str, terminal: bool = False,
          env: dict[str, str] | None = None) -> Iterator[tuple[Path, Path | int]]:
    """`skirmish serve` on a free port; its stderr in a file, its stdout in a file or a
    pseudo-terminal (the master's descriptor)."""
    assert SCRIPT
    err, out = tmp_path / "err.txt", tmp_path / "out.txt"
    environ = {**{k: v for k, v in os.environ.items() if not k.startswith("SKIRMISH_")}, **(env or {})}
    master = slave = -1
    with err.open("w") as err_file, out.open("w") as out_file:
        if terminal:
            master, slave = pty.openpty()
        process = subprocess.Popen([SCRIPT, "--db", db, "serve", "--port", str(free_port()), *options],
                                   stdout=slave if terminal else out_file, stderr=err_file, env=environ)
    if terminal:
        os.close(slave)
    try:
        deadline = time.monotonic() + 30
        while "The GM's page" not in err.read_text():
            assert process.poll() is None, err.read_text()
            assert time.monotonic() < deadline, err.read_text()
            time.sleep(0.05)
        time.sleep(0.3)  # what follows the GM's line
        yield err, (master if terminal else out)
    finally:
        process.terminate()
        process.wait(10)
        if terminal:
            os.close(master)


@pytest.fixture
def table(cli: Cli) -> Cli:
    cli.ok("new", "Bridge", "--rules", "ap-countdown")
    cli.ok("add", "Orc", "--side", "foes", "--stat", "qu=0", "--stat", "hits=30")
    return cli


@pytest.mark.slow
def test_serve_on_every_address_prints_a_phones_links_and_their_qr_code(table: Cli, tmp_path: Path) -> None:
    with serve(table.db, tmp_path, "--host", "0.0.0.0", "--qr") as (err, out):
        said = err.read_text()
        assert "http://0.0.0.0" not in said and "Listening on every network of this machine (--host 0.0.0.0): anyone" in said
        assert len([line for line in said.splitlines() if "every network" in line]) == 1
        players = re.search(r"on (http://(\S+):(\d+)/) ", said)
        gm = re.search(r"The GM's page: (http://\S+)", said)
        assert players and gm
        assert players.group(2) in links.lan_addresses([socket.AF_INET])
        # The players' link opens the page, from this machine as from a phone on its network.
        with urllib.request.urlopen(players.group(1), timeout=10) as answer:
            assert answer.status == 200
        assert isinstance(out, Path)
        lines = out.read_text().splitlines()
        check_quiet_zone(lines)
        assert decoded(lines, tmp_path) == gm.group(1)


@pytest.mark.slow
def test_a_loopback_link_gets_one_line_and_no_qr_code(table: Cli, tmp_path: Path) -> None:
    with serve(table.db, tmp_path, "--qr") as (err, out):
        assert isinstance(out, Path) and out.read_text() == ""
        said = err.read_text()
        assert "No QR code: a phone cannot open 127.0.0.1, this machine's own address (--host 0.0.0.0 serves the table's network)" in said
        assert "every network" not in said


@pytest.mark.slow
def test_without_segno_one_line_says_so_and_the_server_serves(table: Cli, tmp_path: Path) -> None:
    """An install from before the serve extra drew QR codes: no traceback."""
    (tmp_path / "gone" / "segno").mkdir(parents=True)
    (tmp_path / "gone" / "segno" / "__init__.py").write_text("raise ImportError('gone', name='segno')\n")
    address = links.lan_addresses([socket.AF_INET])[0]
    with serve(table.db, tmp_path, "--host", address, "--qr", env={"PYTHONPATH": str(tmp_path / "gone")}) as (err, out):
        said = err.read_text()
        assert "No QR code: segno is missing (pip install 'skirmish-log[serve]')" in said and "Traceback" not in said
        assert isinstance(out, Path) and out.read_text() == ""
        players = re.search(r"on (http://\S+/) ", said)
        assert players
        with urllib.request.urlopen(players.group(1), timeout=10) as answer:
            assert answer.status == 200


@pytest.mark.slow
def test_the_qr_code_is_printed_to_a_terminal_unless_no_qr(table: Cli, tmp_path: Path) -> None:
    address = links.lan_addresses([socket.AF_INET])[0]
    with serve(table.db, tmp_path, "--host", address, terminal=True) as (err, master):
        assert isinstance(master, int)
        shown = b""
        while select.select([master], [], [], 1.0)[0]:  # until the terminal is quiet for a second
            shown += os.read(master, 65536)
        gm = re.search(r"The GM's page: (http://\S+)", err.read_text())
        assert gm and gm.group(1).startswith(f"http://{address}:")
        lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in shown.decode().splitlines()]
        assert decoded(lines, tmp_path) == gm.group(1)
    with serve(table.db, tmp_path, "--host", address, "--no-qr", terminal=True) as (err, master):
        assert isinstance(master, int)
        os.set_blocking(master, False)
        try:
            assert os.read(master, 65536) == b""
        except BlockingIOError:
            pass  # nothing was printed on the terminal
    with serve(table.db, tmp_path, "--host", address) as (err, out):  # not a terminal: no code unless --qr
        assert isinstance(out, Path) and out.read_text() == ""


def test_what_serve_says_on_every_address_with_the_addresses_faked() -> None:
    def two(families: Iterable[int]) -> list[str]:
        return ["192.168.1.20", "fd00::2"]

    said = links.told("::", 8000, "/gm", "SECRET", "Serving 'Bridge' (the players' version)", two)
    assert said.lines == [
        "Serving 'Bridge' (the players' version) on http://192.168.1.20:8000/ (also http://[fd00::2]:8000/) (Ctrl+C stops)",
        "The GM's page: http://192.168.1.20:8000/gm#SECRET (its link is the secret that writes: keep it off the table's screens)",
        "Listening on every network of this machine (--host ::): anyone on them who reaches port 8000 reads the players' "
        "page (the GM's version with --for gm), and only the GM's link writes",
    ]
    assert (said.gm_link, said.no_qr) == ("http://192.168.1.20:8000/gm#SECRET", "")

    alone = links.told("0.0.0.0", 8000, "/gm", "SECRET", "Serving 'Bridge' (the players' version)", lambda f: [])
    assert alone.lines[0] == "Serving 'Bridge' (the players' version) on http://127.0.0.1:8000/ (Ctrl+C stops)"
    assert alone.lines[3] == "No address of this machine a phone could reach (--host 0.0.0.0): it is on no network but loopback"
    assert alone.no_qr.startswith("No QR code: a phone cannot open 127.0.0.1")

    given = links.told("192.168.1.20", 8000, "/gm", "SECRET", "Serving 'Bridge' (the players' version)", two)
    assert len(given.lines) == 2 and given.no_qr == ""  # an address given: no word on every network
    assert links.told("::1", 8000, "/gm", "S", "Serving", two).lines[0] == "Serving on http://[::1]:8000/ (Ctrl+C stops)"


def test_a_name_given_is_shown_as_the_address_it_was_bound_to() -> None:
    """The server answers requests addressed by IP (cli/live.py's Host check refuses a name
    with 421): `--host gm-laptop.local` prints the address the name gave the socket."""
    def none(families: Iterable[int]) -> list[str]:
        return []

    said = links.told("gm-laptop.local", 8000, "/gm", "S", "Serving", none, bound="192.168.1.20")
    assert said.gm_link == "http://192.168.1.20:8000/gm#S"
    assert links.shown_hosts("localhost", none, bound="127.0.0.1") == ["localhost"]  # localhost is answered
    assert links.shown_hosts("192.168.1.20", none, bound="192.168.1.20") == ["192.168.1.20"]
