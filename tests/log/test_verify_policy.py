"""verify's policy, in the library (projections/audit/verify.py): the chain first, then the
cached states, then the digest noted down; a log at fault is a typed result, and the command
line prints it with the messages and exit codes it always had."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from skirmish.eventlog.errors import TamperedLog, UnknownEncounter
from skirmish.eventlog.store import Store
from skirmish.projections.audit.verify import Verified, verify_encounter
from skirmish.projections.write.engine import LogFile

from support.cli import Cli
from support.tamper import tamper

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "bridge-ambush.skirmish"


@pytest.fixture
def played(cli: Cli) -> Iterator[LogFile]:
    cli.ok("run", str(SAMPLE))
    log_file = LogFile(cli.db)
    yield log_file
    log_file.close()


def digest_of(db: str) -> str:
    store = Store(db)
    try:
        return store.verify(store.current_encounter().id)
    finally:
        store.close()


def test_an_intact_log_is_a_result_with_its_digest_and_what_was_checked(played: LogFile, cli: Cli) -> None:
    told: list[int] = []
    result = verify_encounter(played, dropped=told.append)
    assert isinstance(result, Verified) and result.intact and result.fault is None
    assert result.encounter == "Bridge ambush" and result.digest == digest_of(cli.db)
    assert result.dropped is None and told == [] and result.expected is None
    assert result.snapshots == 0  # the sample is shorter than a snapshot's stretch
    result.check()  # nothing to raise


def test_a_rebuild_says_how_many_it_dropped_before_the_check(played: LogFile) -> None:
    told: list[int] = []
    result = verify_encounter(played, rebuild_snapshots=True, dropped=told.append)
    assert told == [0] and result.dropped == 0 and result.intact


def test_another_digest_is_a_fault_with_the_digest_found(played: LogFile, cli: Cli) -> None:
    digest = digest_of(cli.db)
    result = verify_encounter(played, expect=f"  {'0' * 64}  ")
    assert result.digest == digest and result.expected == "0" * 64
    assert result.fault == (f"the log is intact but its digest is {digest}, not {'0' * 64}: "
                            "events were added or removed since that digest was noted")
    with pytest.raises(TamperedLog) as raised:
        result.check()
    assert str(raised.value) == result.fault and raised.value.exit_code == 4
    assert verify_encounter(played, expect=digest.upper()).intact


def test_a_tampered_chain_is_a_fault_without_a_digest(played: LogFile, cli: Cli) -> None:
    store = Store(cli.db)
    try:
        tamper(store, "UPDATE events SET body = replace(body, '\"value\":12', '\"value\":8') WHERE id = 20")
    finally:
        store.close()
    told: list[int] = []
    result = verify_encounter(played, rebuild_snapshots=True, dropped=told.append)
    assert told == [0] and result.digest is None and result.snapshots == 0
    assert result.fault is not None and "event 20" in result.fault
    # The command line: what was dropped, then the fault as one Error line, exit code 4.
    error = cli.fails("verify", "--rebuild-snapshots")
    assert cli.out == "dropped 0 cached state(s); they are folded again as commands read\n"
    assert error == f"Error: {result.fault}" and cli.code == 4


def test_an_encounter_that_is_not_there_is_raised_before_anything_is_dropped(played: LogFile) -> None:
    told: list[int] = []
    with pytest.raises(UnknownEncounter):
        verify_encounter(played, "No such fight", rebuild_snapshots=True, dropped=told.append)
    assert told == []
