"""The user's calendar in SQLite: imported and created events, duplicates refused.

Each row keeps the wall time with its offset and IANA zone (the truth, what the user said) and
the UTC instants (derived, for range queries). The same event — normalised title + start — is
stored once, whichever turn or session tries to create it again.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlite_utils import Database

from memory.errors import StoreError
from memory.event import CalendarEvent
from memory.migrations import migrate
from memory.writer import write

log = logging.getLogger(__name__)

TABLE = "calendar_events"
_COLUMNS = (
    "uid",
    "recurrence_id",
    "title",
    "start_local",
    "end_local",
    "start_utc",
    "end_utc",
    "tz",
    "all_day",
    "location",
    "description",
    "attendees",
    "source",
    "kind",
    "alarm_minutes",
    "dedup_key",
    "created_at",
    "session",
    "sequence",
)
_UPSERT = (
    f"INSERT INTO {TABLE} ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))}) "
    "ON CONFLICT(uid, recurrence_id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS if c not in ("uid", "recurrence_id"))
)
_INSERT = f"INSERT INTO {TABLE} ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"


@dataclass(frozen=True, slots=True)
class AddResult:
    """What add() did: stored the event, or found it already there (then `event` is that one)."""

    added: bool
    event: CalendarEvent
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What import_events() did for one source, all in one transaction."""

    source: str
    stored: int
    removed: int  # events of an earlier import of this source that the new file no longer has


def _utc(value: datetime) -> str:
    """Sortable UTC text for range queries; naive input is a bug upstream."""
    if value.tzinfo is None:
        raise ValueError(f"an aware datetime is required, got naive {value.isoformat()}")
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _local(text: str, tz: str) -> datetime:
    """Stored wall time back in its zone, keeping the side of a DST fold it was written on."""
    written = datetime.fromisoformat(text)
    wall = written.replace(tzinfo=None)
    for fold in (0, 1):
        candidate = wall.replace(tzinfo=ZoneInfo(tz), fold=fold)
        if candidate.utcoffset() == written.utcoffset():
            return candidate
    # The zone's rules changed since the row was written: the wall time is what the user meant.
    return wall.replace(tzinfo=ZoneInfo(tz))


def _row(event: CalendarEvent, created_at: str) -> tuple[Any, ...]:
    """The column values of one event, in _COLUMNS order."""
    return (
        event.uid,
        event.recurrence_id or "",
        event.title,
        event.start.isoformat(),
        event.end.isoformat(),
        _utc(event.start),
        _utc(event.end),
        event.tz,
        int(event.all_day),
        event.location,
        event.description,
        json.dumps(event.attendees, ensure_ascii=False),
        event.source,
        event.kind,
        event.alarm_minutes,
        event.dedup_key(),
        created_at,
        event.session,
        event.sequence,
    )


def _event(row: dict[str, Any]) -> CalendarEvent:
    """A stored row as the shared CalendarEvent contract."""
    return CalendarEvent(
        uid=row["uid"],
        title=row["title"],
        start=_local(row["start_local"], row["tz"]),
        end=_local(row["end_local"], row["tz"]),
        all_day=bool(row["all_day"]),
        tz=row["tz"],
        location=row["location"] or "",
        description=row["description"] or "",
        attendees=json.loads(row["attendees"] or "[]"),
        source=row["source"],
        kind=row["kind"],
        alarm_minutes=row["alarm_minutes"],
        recurrence_id=row["recurrence_id"] or None,
        session=row.get("session") or "",
        sequence=int(row.get("sequence") or 0),
    )


class CalendarStore:
    """Calendar events over one sqlite-utils Database (migrations applied on construction)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        migrate(db)

    def _select(self, where: str, params: Iterable[Any], limit: int | None = None) -> list[dict]:
        sql = f"SELECT * FROM {TABLE} WHERE {where} ORDER BY start_utc, id"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        cursor = self.db.execute(sql, list(params))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]

    def find_duplicate(self, event: CalendarEvent) -> CalendarEvent | None:
        """The stored event that `event` would duplicate (same title + start, or same UID)."""
        rows = self._select(
            "dedup_key = ? OR (uid = ? AND recurrence_id = ?)",
            [event.dedup_key(), event.uid, event.recurrence_id or ""],
            limit=1,
        )
        return _event(rows[0]) if rows else None

    def add(self, event: CalendarEvent) -> AddResult:
        """Store one event unless it is already there; a duplicate is a result, not an error."""
        now = _utc(datetime.now(UTC))
        with write(self.db):
            existing = self.find_duplicate(event)
            if existing is None:
                try:
                    self.db.execute(_INSERT, _row(event, now))
                    log.info("calendar event stored (uid %s)", event.uid)
                    return AddResult(added=True, event=event)
                except sqlite3.IntegrityError:
                    # Another session stored it between our check and insert.
                    existing = self.find_duplicate(event)
                    if existing is None:
                        raise
        when = existing.start.strftime("%a %d %b %Y %H:%M")
        return AddResult(
            added=False,
            event=existing,
            reason=f"already in the calendar: '{existing.title}' on {when} ({existing.tz})",
        )

    def latest_of_chat(self, session: str) -> CalendarEvent | None:
        """The event this chat created or changed last: what "cancel it" and "make it 8:30"
        mean. Imported events never count; neither do other chats' events."""
        if not session:
            return None
        rows = self.db.execute(
            f"SELECT * FROM {TABLE} WHERE source = 'created' AND session = ? "
            "ORDER BY created_at DESC, id DESC LIMIT 1",
            [session],
        )
        names = [d[0] for d in rows.description]
        found = rows.fetchall()
        return _event(dict(zip(names, found[0], strict=True))) if found else None

    def upcoming_of_chat(self, session: str, now: datetime) -> list[CalendarEvent]:
        """The events this chat created that have not ended by `now`, the one it created or
        changed last first: the events a follow-up ("forget dinner", "cancel it") may be
        about. Imported events and other chats' events never count."""
        if not session:
            return []
        rows = self.db.execute(
            f"SELECT * FROM {TABLE} WHERE source = 'created' AND session = ? AND end_utc > ? "
            "ORDER BY created_at DESC, id DESC",
            [session, _utc(now)],
        )
        names = [d[0] for d in rows.description]
        return [_event(dict(zip(names, row, strict=True))) for row in rows.fetchall()]

    def move(self, event: CalendarEvent, start: datetime, end: datetime) -> CalendarEvent:
        """The same event (same UID) at a new time, SEQUENCE raised; the row is rewritten.

        Moving onto an event that already has this title and start is refused, as a second
        create would be.
        """
        moved = replace(event, start=start, end=end, sequence=event.sequence + 1)
        now = _utc(datetime.now(UTC))  # "changed last" orders latest_of_chat
        with write(self.db):
            existing = self.find_duplicate(moved)
            if existing is not None and existing.uid != event.uid:
                raise StoreError(
                    f"already in the calendar: '{existing.title}' on "
                    f"{existing.start:%a %d %b %Y %H:%M} ({existing.tz})"
                )
            self.db.execute(
                f"DELETE FROM {TABLE} WHERE uid = ? AND recurrence_id = ?",
                [event.uid, event.recurrence_id or ""],
            )
            self.db.execute(_INSERT, _row(moved, now))
        return moved

    def remove(self, event: CalendarEvent) -> None:
        """Take an event off the calendar (a cancellation): it no longer blocks its time and
        may be created again."""
        with write(self.db):
            self.db.execute(
                f"DELETE FROM {TABLE} WHERE uid = ? AND recurrence_id = ?",
                [event.uid, event.recurrence_id or ""],
            )

    def remove_created_in(self, session: str) -> int:
        """Take off the calendar every event a chat created (its real names with them, when
        the chat is deleted); imported events stay. Returns how many rows went."""
        if not session:
            return 0
        with write(self.db):
            cursor = self.db.execute(
                f"DELETE FROM {TABLE} WHERE source = 'created' AND session = ?", [session]
            )
        return int(cursor.rowcount or 0)

    def import_events(self, events: Iterable[CalendarEvent], source: str) -> ImportResult:
        """Replace everything imported earlier from `source` with `events`, all or nothing.

        Re-importing an updated file therefore drops events deleted from it; events with a
        UID already stored (say, one Veil created and the user re-exported) are updated.
        """
        if not source.startswith("import:"):
            raise ValueError(f"source must be 'import:<name>', got {source!r}")
        now = _utc(datetime.now(UTC))
        rows = [_row(replace(event, source=source), now) for event in events]
        try:
            with write(self.db):
                old = self.db.execute(
                    f"SELECT uid, recurrence_id FROM {TABLE} WHERE source = ?", [source]
                ).fetchall()
                self.db.execute(f"DELETE FROM {TABLE} WHERE source = ?", [source])
                self.db.conn.executemany(_UPSERT, rows)
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"calendar import from {source} failed and nothing was saved: {error}"
            ) from error
        log.info("imported %d calendar events from %s", len(rows), source)
        removed = {tuple(key) for key in old} - {(row[0], row[1]) for row in rows}
        return ImportResult(source=source, stored=len(rows), removed=len(removed))

    def replace_uids(
        self, source: str, uids: Iterable[str], events: Iterable[CalendarEvent]
    ) -> int:
        """Swap the events of these UIDs from `source` for `events` (a CalDAV sync's changes).

        An event Veil created keeps its own row: when it comes back from the user's server
        (Veil wrote it there), the chat's row is what "move it" and "cancel it" act on.
        Returns how many events were stored. Joins the caller's transaction, if any.
        """
        if not source.startswith("import:"):
            raise ValueError(f"source must be 'import:<name>', got {source!r}")
        now = _utc(datetime.now(UTC))
        gone = list(dict.fromkeys(uids))
        with write(self.db):
            for first in range(0, len(gone), 500):  # SQLite's bound-variable limit
                part = gone[first : first + 500]
                self.db.execute(
                    f"DELETE FROM {TABLE} WHERE source = ? AND uid IN "
                    f"({', '.join('?' * len(part))})",
                    [source, *part],
                )
            own = {
                row[0]
                for row in self.db.execute(f"SELECT uid FROM {TABLE} WHERE source = 'created'")
            }
            rows = [
                _row(replace(event, source=source), now) for event in events if event.uid not in own
            ]
            self.db.conn.executemany(_UPSERT, rows)
        return len(rows)

    def remove_source(self, source: str) -> int:
        """Drop every event of one source (a disconnected CalDAV calendar); returns how many."""
        with write(self.db):
            return self.db.execute(f"DELETE FROM {TABLE} WHERE source = ?", [source]).rowcount

    def between(
        self, start: datetime, end: datetime, *, limit: int | None = None
    ) -> list[CalendarEvent]:
        """Events overlapping [start, end), in start order; zero-length ones if inside.

        `limit` keeps only the first ones, read as such from SQLite.
        """
        if end < start:
            raise ValueError("between() needs end >= start")
        lo, hi = _utc(start), _utc(end)
        rows = self._select(
            "start_utc < ? AND (end_utc > ? OR (end_utc = start_utc AND start_utc >= ?))",
            [hi, lo, lo],
            limit=limit,
        )
        return [_event(row) for row in rows]

    def count_between(self, start: datetime, end: datetime) -> int:
        """How many events `between` would return, counted by SQLite."""
        lo, hi = _utc(start), _utc(end)
        return int(
            self.db.execute(
                f"SELECT count(*) FROM {TABLE} WHERE start_utc < ? AND "
                "(end_utc > ? OR (end_utc = start_utc AND start_utc >= ?))",
                [hi, lo, lo],
            ).fetchone()[0]
        )

    def titled(
        self, words: Iterable[str], start: datetime, end: datetime, *, limit: int = 5
    ) -> list[CalendarEvent]:
        """Events overlapping [start, end) whose title holds every one of `words` (any case)."""
        where = "start_utc < ? AND end_utc > ?"
        params: list[Any] = [_utc(end), _utc(start)]
        for word in words:
            escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            where += " AND title LIKE ? ESCAPE '\\'"
            params.append(f"%{escaped}%")
        return [_event(row) for row in self._select(where, params, limit=limit)]

    def get(self, uid: str, recurrence_id: str | None = None) -> CalendarEvent | None:
        """One stored event by UID (and RECURRENCE-ID for an occurrence of a series)."""
        rows = self._select("uid = ? AND recurrence_id = ?", [uid, recurrence_id or ""], limit=1)
        return _event(rows[0]) if rows else None

    def count(self) -> int:
        """Number of stored events (occurrences of a series count one each)."""
        return int(self.db.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0])
