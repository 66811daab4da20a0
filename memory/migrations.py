"""Veil's SQLite schema as an ordered list of migrations (sqlite-utils 4 `Migrations`).

Each schema change is one new function appended at the end, never an edit of an applied one:
a user's database remembers by name which functions already ran (table `_sqlite_migrations`).
Every migration runs in its own transaction together with the record that it ran.
"""

from __future__ import annotations

import logging

from sqlite_utils import Database, Migrations

log = logging.getLogger(__name__)

MIGRATIONS = Migrations("memory")


@MIGRATIONS()
def m001_calendar_events(db: Database) -> None:
    """Calendar events, imported and created: wall time + zone are the truth, UTC the index."""
    table = db.table("calendar_events")
    table.create(
        {
            "id": int,
            "uid": str,
            "recurrence_id": str,  # "" for a single event, so the unique index sees it
            "title": str,
            "start_local": str,  # ISO wall time with its offset, in `tz`
            "end_local": str,
            "start_utc": str,  # "YYYY-MM-DDTHH:MM:SSZ": sortable, for range queries
            "end_utc": str,
            "tz": str,
            "all_day": int,
            "location": str,
            "description": str,
            "attendees": str,  # JSON list of str
            "source": str,
            "kind": str,
            "alarm_minutes": int,
            "dedup_key": str,
            "created_at": str,
        },
        pk="id",
        not_null={
            "uid",
            "recurrence_id",
            "title",
            "start_local",
            "end_local",
            "start_utc",
            "end_utc",
            "tz",
            "all_day",
            "source",
            "kind",
            "dedup_key",
            "created_at",
        },
        defaults={"recurrence_id": "", "location": "", "description": "", "attendees": "[]"},
    )
    table.create_index(["uid", "recurrence_id"], unique=True)
    table.create_index(["start_utc"])
    table.create_index(["end_utc"])
    table.create_index(["source"])
    table.create_index(["dedup_key"])
    # Two created events with one title + start can never both exist, even if two sessions
    # race past the check in CalendarStore.add: the database itself refuses the second.
    db.execute(
        "CREATE UNIQUE INDEX idx_calendar_events_created_dedup "
        "ON calendar_events(dedup_key) WHERE source = 'created'"
    )


def migrate(db: Database) -> None:
    """Apply pending migrations (idempotent) with WAL on for file databases."""
    if db.conn.in_transaction:
        raise ValueError("migrate() must run outside a transaction")
    if db.execute("PRAGMA database_list").fetchone()[2]:  # "" for an in-memory database
        db.enable_wal()
    pending = [m.name for m in MIGRATIONS.pending(db)]
    if pending:
        log.info("applying migrations: %s", ", ".join(pending))
    MIGRATIONS.apply(db)
