"""The links `skirmish serve` prints: addresses a phone on the table's network can open, and
the GM's link as a QR code in the terminal.

A server listening on every address (``--host 0.0.0.0`` or ``::``) has no address of its
own to print: ``http://0.0.0.0:8000/`` opens nothing on a phone. The machine's addresses
are found without sending anything on the network: the source address the system would
use for a route out (``connect`` on a UDP socket only picks a route, no packet leaves),
then the addresses of its interfaces that are up (Linux: ``SIOCGIFADDR`` and
/proc/net/if_inet6), loopback and link-local left out (a phone cannot type a link-local
address's zone); when none is found, the addresses of the machine's name (not the name
itself: the server's Host check answers addresses only, cli/live.py); when none of those
either, 127.0.0.1, said in one line. The QR code (segno) is imported
only when it is printed.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

# The families a wildcard listens on (`::` takes IPv4 too: cli/server.py clears IPV6_V6ONLY),
# IPv4 first: the one a phone on a home or café network is surest to reach.
WILDCARDS: dict[str, tuple[int, ...]] = {"0.0.0.0": (socket.AF_INET,), "::": (socket.AF_INET, socket.AF_INET6)}
# Documentation ranges (RFC 5737, RFC 3849): a route to them is chosen, nothing is sent.
PROBES: dict[int, tuple[str, int]] = {socket.AF_INET: ("192.0.2.1", 9), socket.AF_INET6: ("2001:db8::1", 9)}
SIOCGIFFLAGS, SIOCGIFADDR, IFF_UP = 0x8913, 0x8915, 0x1
QUIET = 4  # modules of light border a QR code needs around it (ISO/IEC 18004, quiet zone)

# Two modules a character, the upper and the lower: dark is ink.
HALVES = {(False, False): " ", (True, False): "\u2580", (False, True): "\u2584", (True, True): "\u2588"}
INK = "\x1b[30;107m"  # black on bright white, whatever the terminal's own colours
PLAIN = "\x1b[0m"


def route_address(family: int) -> str | None:
    """The source address of this machine's route out for ``family``, or None."""
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect(PROBES[family])
            address: str = probe.getsockname()[0]
            return address
    except OSError:
        return None


def interface_addresses(family: int) -> list[str]:
    """The addresses of this machine's interfaces that are up (Linux; elsewhere none)."""
    if family == socket.AF_INET6:
        try:
            rows = Path("/proc/net/if_inet6").read_text().splitlines()
        except OSError:
            return []
        found = []
        for row in rows:
            parts = row.split()
            if len(parts) >= 6 and len(parts[0]) == 32:
                found.append(str(ipaddress.IPv6Address(bytes.fromhex(parts[0]))))
        return found
    try:
        import fcntl
    except ImportError:
        return []
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            asked = struct.pack("256s", name.encode()[:15])
            try:
                flags = struct.unpack_from("H", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, asked), 16)[0]
                if not flags & IFF_UP:
                    continue
                found.append(socket.inet_ntoa(fcntl.ioctl(s.fileno(), SIOCGIFADDR, asked)[20:24]))
            except OSError:  # an interface with no IPv4 address
                continue
    return found


def reachable(address: str) -> bool:
    """Whether a phone on another machine could type this address: not loopback, not
    link-local, not unspecified."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


def named_addresses(family: int) -> list[str]:
    """The addresses the machine's name stands for (its hosts file, most often)."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, family, socket.SOCK_STREAM)
    except OSError:
        return []
    return [str(info[4][0]) for info in infos]


def lan_addresses(families: Iterable[int], route: Callable[[int], str | None] = route_address,
                  interfaces: Callable[[int], list[str]] = interface_addresses,
                  named: Callable[[int], list[str]] = named_addresses) -> list[str]:
    """This machine's addresses a phone on its networks would type, the route out's first;
    failing those, the addresses of the machine's name (not the name itself: the server
    answers a request addressed by IP alone, cli/live.py's Host check); none when none is."""
    families = tuple(families)
    found = _reachable(address for family in families for address in [route(family), *interfaces(family)])
    return found or _reachable(address for family in families for address in named(family))


def _reachable(addresses: Iterable[str | None]) -> list[str]:
    """The reachable ones, each once, in their order."""
    return list(dict.fromkeys(a for a in addresses if a is not None and reachable(a)))


def loopback(host: str) -> bool:
    """Whether only this machine's own browsers reach ``host``."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def shown_hosts(host: str, addresses: Callable[[Iterable[int]], list[str]] = lan_addresses,
                bound: str | None = None) -> list[str]:
    """The hosts to print links with for ``--host host``: the machine's addresses when it
    listens on all of them (127.0.0.1 when it has none a phone could reach); for a name,
    the address it was bound to (``bound``: the server answers addresses, not names, so a
    link with the name would be refused); else ``host`` as given."""
    if host in WILDCARDS:
        return addresses(WILDCARDS[host]) or ["127.0.0.1"]
    if bound is not None and not loopback(host):
        try:
            ipaddress.ip_address(host)
        except ValueError:
            return [bound]
    return [host]


def url(host: str, port: int, path: str = "/") -> str:
    try:
        bracketed = ipaddress.ip_address(host).version == 6
    except ValueError:
        bracketed = False
    return f"http://[{host}]:{port}{path}" if bracketed else f"http://{host}:{port}{path}"


def exposure(host: str, port: int) -> str:
    """One line: what listening on every address opens, and to whom."""
    return (f"Listening on every network of this machine (--host {host}): anyone on them who reaches port {port} "
            "reads the players' page (the GM's version with --for gm), and only the GM's link writes")


@dataclass(frozen=True)
class Told:
    """What `serve` prints as it starts: its lines, the GM's link, and why there is no QR
    code of it ("" when there may be one)."""

    lines: list[str]
    gm_link: str
    no_qr: str


def told(host: str, port: int, gm_page: str, token: str, serving: str,
         addresses: Callable[[Iterable[int]], list[str]] = lan_addresses, bound: str | None = None) -> Told:
    """The links for ``--host host`` (listening on ``bound``): the first address a phone
    would type, the others as "also"; on every address, one line on what that exposes."""
    hosts = shown_hosts(host, addresses, bound)
    also = f" (also {', '.join(url(h, port) for h in hosts[1:])})" if hosts[1:] else ""
    gm_link = url(hosts[0], port, f"{gm_page}#{token}")
    lines = [f"{serving} on {url(hosts[0], port)}{also} (Ctrl+C stops)",
             f"The GM's page: {gm_link} (its link is the secret that writes: keep it off the table's screens)"]
    if host in WILDCARDS:
        lines.append(exposure(host, port))
        if loopback(hosts[0]):
            lines.append(f"No address of this machine a phone could reach (--host {host}): it is on no network but loopback")
    no_qr = ""
    if loopback(hosts[0]):
        no_qr = (f"No QR code: a phone cannot open {hosts[0]}, this machine's own address "
                 "(--host 0.0.0.0 serves the table's network)")
    return Told(lines, gm_link, no_qr)


def qr_lines(text: str, ink: bool = False) -> list[str]:
    """A QR code of ``text``, two modules a character (half blocks), with its quiet zone;
    ``ink``: black on white in ANSI colours, for a terminal of any theme."""
    import segno  # the serve extra's: only when a code is printed

    code = segno.make(text, micro=False, error="m")
    rows = [[bool(module) for module in row] for row in code.matrix_iter(scale=1, border=QUIET)]
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    lines = ["".join(HALVES[top, bottom] for top, bottom in zip(upper, lower)) for upper, lower in zip(rows[::2], rows[1::2])]
    return [f"{INK}{line}{PLAIN}" for line in lines] if ink else lines
