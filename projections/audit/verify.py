"""Verify an encounter: its hash chain first, then every cached state against the fold of its events.

The order is the policy. The chain's verdict comes first and without the ruleset: an
edited ruleset name is a tampered row, not a ruleset to look for, and whatever fails
while the cached states are checked, a chain that does not hold is the fault named. A
long log's chain is verified by another process while this one folds the events to check
the cached states (eventlog/verifying.py); both read the log at one moment.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from skirmish.eventlog.errors import TamperedLog
from skirmish.projections.write.engine import LogFile


class Verified(msgspec.Struct, frozen=True, kw_only=True):
    """What verify checked and what it found: ``fault`` None is an intact log."""

    encounter: str  # its name, as stored
    dropped: int | None  # cached states deleted before the check (rebuild_snapshots), else None
    digest: str | None  # the chain's digest; None when the chain does not hold
    snapshots: int  # cached states checked against the fold of their events (0 when the chain does not hold)
    expected: str | None  # a digest noted down earlier, compared with the chain's
    fault: str | None  # the first thing found wrong, as a TamperedLog tells it; None: intact

    @property
    def intact(self) -> bool:
        return self.fault is None

    def check(self) -> None:
        """Raise the fault, if there is one, as TamperedLog (exit code 4)."""
        if self.fault is not None:
            raise TamperedLog(self.fault)


def _quiet(_: int) -> None:
    return None


def verify_encounter(
    log_file: LogFile,
    encounter: str | None = None,
    branch: str | None = None,
    *,
    expect: str | None = None,
    rebuild_snapshots: bool = False,
    dropped: Callable[[int], None] = _quiet,
) -> Verified:
    """Check the encounter named ``encounter`` (default: the current one), held on
    ``branch`` if given: its hash chain, every cached state of it, and, given ``expect``,
    that its digest is that one. ``rebuild_snapshots`` deletes every cached state of the
    file first; ``dropped`` is told how many, before the check begins.

    A log found at fault is a result (``fault``); an encounter or branch that is not
    there, or a ruleset that is not installed, is raised as it is by every command, and a
    row that cannot be read while the cached states are checked, unless the chain is at
    fault."""
    row = log_file.encounter(encounter)  # without its ruleset: see the module's docstring
    cleared: int | None = None
    if rebuild_snapshots:
        cleared = log_file.drop_snapshots()
        dropped(cleared)
    expected = expect.strip() if expect is not None else None

    def broken(exc: TamperedLog) -> Verified:
        return Verified(encounter=row.name, dropped=cleared, digest=None, snapshots=0, expected=expected,
                        fault=str(exc))

    with log_file.verifying(row) as chain:
        try:
            checked, bad = log_file.open(encounter, branch).checked_snapshots()
        except Exception:
            try:
                chain()  # a tampered log is named as that, whatever reading it did here
            except TamperedLog as exc:
                return broken(exc)
            raise
        try:
            digest = chain()
        except TamperedLog as exc:
            return broken(exc)
    fault = None
    if bad:
        fault = (f"the log's chain is intact (digest {digest}) but {len(bad)} cached state(s) are not: "
                 f"{bad[0]}; `skirmish verify --rebuild-snapshots` drops them all")
    elif expected is not None and expected.lower() != digest:
        fault = (f"the log is intact but its digest is {digest}, not {expected}: "
                 "events were added or removed since that digest was noted")
    return Verified(encounter=row.name, dropped=cleared, digest=digest, snapshots=checked, expected=expected,
                    fault=fault)
