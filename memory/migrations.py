"""Veil's SQLite schema as an ordered list of migrations (sqlite-utils 4 `Migrations`).

Each schema change is one new function appended at the end, never an edit of an applied one:
a user's database remembers by name which functions already ran (table `_sqlite_migrations`).
Every migration runs in its own transaction together with the record that it ran.
"""

from __future__ import annotations

import logging

from sqlite_utils import Database, Migrations

from memory.writer import database_file, prepare, writer_lock

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


@MIGRATIONS()
def m002_sessions_and_memory(db: Database) -> None:
    """Sessions with their entity map, messages, turn checkpoints, contacts, facts, files."""
    db.table("sessions").create(
        {
            "id": str,
            "title": str,
            "entity_map": str,  # EntityMap.to_dict() as JSON: real values, on the user's disk
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"title", "entity_map", "created_at", "updated_at"},
        defaults={"title": "", "entity_map": "{}"},
    )
    db.table("messages").create(
        {
            "id": int,
            "session_id": str,
            "turn_id": int,
            "role": str,
            "content": str,
            "created_at": str,
        },
        pk="id",
        not_null={"session_id", "role", "content", "created_at"},
        foreign_keys=[("session_id", "sessions", "id")],
    )
    db.table("messages").create_index(["session_id", "id"])
    db.table("turns").create(
        {
            "id": int,
            "session_id": str,
            "request": str,
            "status": str,  # running | done | interrupted
            "outcome": str,  # JSON
            "started_at": str,
            "ended_at": str,
        },
        pk="id",
        not_null={"session_id", "request", "status", "started_at"},
        foreign_keys=[("session_id", "sessions", "id")],
    )
    db.table("turns").create_index(["status"])
    db.table("turn_steps").create(
        {
            "id": int,
            "turn_id": int,
            "position": int,
            "kind": str,  # plan | step | ...: the agent decides
            "detail": str,  # JSON
            "created_at": str,
        },
        pk="id",
        not_null={"turn_id", "position", "kind", "detail", "created_at"},
        foreign_keys=[("turn_id", "turns", "id")],
    )
    db.table("turn_steps").create_index(["turn_id", "position"], unique=True)
    db.table("contacts").create(
        {
            "id": int,
            "name": str,
            "name_key": str,  # normalised name: one contact per person
            "aliases": str,  # JSON list of str
            "role": str,
            "email": str,
            "phone": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"name", "name_key", "aliases", "updated_at"},
        defaults={"aliases": "[]", "role": "", "email": "", "phone": ""},
    )
    db.table("contacts").create_index(["name_key"], unique=True)
    db.table("facts").create(
        {"id": int, "text": str, "session_id": str, "created_at": str},
        pk="id",
        not_null={"text", "created_at"},
    )
    db.table("facts").create_index(["session_id"])
    db.table("files").create(
        {
            "id": str,
            "session_id": str,
            "path": str,
            "type": str,
            "label": str,
            "created_at": str,
        },
        pk="id",
        not_null={"session_id", "path", "type", "created_at"},
        defaults={"label": ""},
        foreign_keys=[("session_id", "sessions", "id")],
    )
    db.table("files").create_index(["session_id"])
    db.table("preferences").create({"key": str, "value": str}, pk="key", not_null={"value"})


@MIGRATIONS()
def m003_turn_owner(db: Database) -> None:
    """The pid running a turn: only a dead owner's turn is interrupted, not another thread's."""
    db.table("turns").add_column("pid", int)


@MIGRATIONS()
def m004_event_chat_and_sequence(db: Database) -> None:
    """The chat that created an event ("cancel it" means that chat's event) and its SEQUENCE,
    which every change raises so calendars apply the newest .ics (RFC 5545 3.8.7.4)."""
    table = db.table("calendar_events")
    table.add_column("session", str, not_null_default="")
    table.add_column("sequence", int, not_null_default=0)


@MIGRATIONS()
def m005_caldav(db: Database) -> None:
    """The user's CalDAV account (no secret: that lives in the keyring or a 0600 file), the
    cached objects of its calendars with their ETags and sync tokens, and the writes the user
    confirmed that the server has not taken yet (kept across restarts, retried later)."""
    db.table("caldav_account").create(
        {
            "id": int,  # always 1: one account
            "url": str,
            "username": str,
            "secret": str,  # where the password is: "keyring" or "file"
            "write_calendar": str,  # the calendar URL confirmed events go to
            "connected_at": str,
        },
        pk="id",
        not_null={"url", "username", "secret", "write_calendar", "connected_at"},
    )
    db.table("caldav_calendars").create(
        {
            "url": str,
            "name": str,
            "source": str,  # the calendar_events source of its cached events
            "sync_token": str,
            "synced_at": str,
        },
        pk="url",
        not_null={"name", "source"},
    )
    db.table("caldav_objects").create(
        {
            "href": str,  # the object's URL on the server
            "calendar_url": str,
            "uid": str,
            "etag": str,
            "data": str,  # the iCalendar text as the server sent it
        },
        pk="href",
        not_null={"calendar_url", "uid"},
    )
    db.table("caldav_objects").create_index(["uid"])
    db.table("caldav_objects").create_index(["calendar_url"])
    db.table("caldav_outbox").create(
        {
            "id": int,
            "uid": str,
            "action": str,  # put | cancel
            "ics": str,  # the object to write, in real values (the user's own disk)
            "title": str,
            "status": str,  # pending | conflict | done
            "attempts": int,
            "last_error": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"uid", "action", "ics", "status", "attempts", "created_at", "updated_at"},
        defaults={"attempts": 0, "last_error": "", "title": ""},
    )
    db.table("caldav_outbox").create_index(["status", "id"])


def migrate(db: Database) -> None:
    """Apply pending migrations (idempotent) with WAL on for file databases.

    Every store opens through here, so this is also where each connection learns to wait for
    a writer (busy timeout). Changes run under the file's writer lock: two first requests
    racing to create the schema would otherwise both try.
    """
    if db.conn.in_transaction:
        raise ValueError("migrate() must run outside a transaction")
    prepare(db)
    is_file = bool(database_file(db))
    if (is_file and db.journal_mode != "wal") or MIGRATIONS.pending(db):
        with writer_lock(db):
            if is_file:
                db.enable_wal()
            pending = [m.name for m in MIGRATIONS.pending(db)]
            if pending:
                log.info("applying migrations: %s", ", ".join(pending))
                MIGRATIONS.apply(db)
