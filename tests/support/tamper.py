"""Tampering with a log as someone with the sqlite3 shell could: drop the guards, edit, put the
guards back (a dropped guard is itself reported by `verify`), commit."""

from __future__ import annotations

import sqlite3

from skirmish.eventlog.store import Store

TABLES = ("encounters", "commands", "events", "head_moves")


def unguard(raw: sqlite3.Connection) -> list[str]:
    """Drop the append-only triggers; return their SQL, for ``reguard``."""
    guards = [(name, sql) for name, sql in raw.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%\\_refuse\\_%' ESCAPE '\\'")]
    for name, _ in guards:
        raw.execute(f"DROP TRIGGER {name}")
    return [sql for _, sql in guards]


def made_guards() -> list[str]:
    """The append-only triggers' SQL as skirmish makes them (in a new, in-memory file)."""
    store = Store(":memory:")
    try:
        return [r[0] for r in store.conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger'")]
    finally:
        store.close()


def reguard(raw: sqlite3.Connection, guards: list[str]) -> None:
    """Put the triggers ``unguard`` dropped back, as they were: the edit leaves no other trace."""
    for sql in guards:
        raw.execute(sql)


def tamper(store: Store, *statements: str) -> None:
    """What someone with the sqlite3 shell could do: drop the guards, edit, put them back, commit."""
    raw = sqlite3.connect(store.file)
    try:
        guards = unguard(raw)
        for sql in statements:
            raw.execute(sql)
        reguard(raw, guards)
        raw.commit()
    finally:
        raw.close()
