"""Tampering with a log as someone with the sqlite3 shell could: drop the guards, edit, commit."""

from __future__ import annotations

import sqlite3

from skirmish.eventlog.store import Store

TABLES = ("encounters", "commands", "events", "head_moves")


def tamper(store: Store, *statements: str) -> None:
    """What someone with the sqlite3 shell could do: drop the guards, edit, commit."""
    raw = sqlite3.connect(store.file)
    try:
        for table in TABLES:
            raw.execute(f"DROP TRIGGER {table}_refuse_update")
            raw.execute(f"DROP TRIGGER {table}_refuse_delete")
        for sql in statements:
            raw.execute(sql)
        raw.commit()
    finally:
        raw.close()
