"""The CalDAV side of the calendar in SQLite: the account, a cached copy of its calendars, and
the writes the user confirmed that the server has not taken yet.

A turn reads only this cache (and the calendar_events rows a sync keeps in step with it), so it
never waits on the network and works offline. The server's password is never stored here: the
account row names where it lives (the OS keyring or a 0600 file, tools/calendar/caldav_secret).
A confirmed write is queued first and sent second, so a server that is down, slow or refusing
loses nothing: the next turn sends what is still pending.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlite_utils import Database

from memory.calendar import CalendarStore
from memory.event import CalendarEvent
from memory.migrations import migrate
from memory.writer import write

OUTBOX_STATUSES = ("pending", "conflict", "done", "superseded")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class CalDAVAccount:
    """The one connected account: where, who, and where its password lives (never what)."""

    url: str
    username: str
    secret: str  # "keyring" or "file"
    write_calendar: str
    connected_at: str


@dataclass(frozen=True, slots=True)
class CachedCalendar:
    """One calendar Veil reads, with the sync token of its last sync."""

    url: str
    name: str
    source: str
    sync_token: str | None
    synced_at: str | None


@dataclass(frozen=True, slots=True)
class CachedObject:
    """One calendar object resource as last seen on the server."""

    href: str
    calendar_url: str
    uid: str
    etag: str
    data: str


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """A write the user confirmed: the whole object to PUT (a change or a cancellation)."""

    id: int
    uid: str
    action: str  # put | cancel
    ics: str
    title: str
    status: str
    attempts: int
    last_error: str


@dataclass(frozen=True, slots=True)
class ObjectChange:
    """One object of a sync that is new or changed, with the events it expands to."""

    href: str
    uid: str
    etag: str
    data: str
    events: list[CalendarEvent]


class CalDAVStore:
    """The CalDAV tables over one sqlite-utils Database (migrations applied on construction)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        migrate(db)
        self.calendar = CalendarStore(db)

    # the account

    def account(self) -> CalDAVAccount | None:
        """The connected account, or None when CalDAV is off (the default)."""
        row = self.db.execute(
            "SELECT url, username, secret, write_calendar, connected_at FROM caldav_account "
            "WHERE id = 1"
        ).fetchone()
        return CalDAVAccount(*row) if row else None

    def save_account(
        self, url: str, username: str, *, secret: str, write_calendar: str
    ) -> CalDAVAccount:
        """Connect (or reconnect) the one account; a different server starts a fresh cache."""
        if secret not in ("keyring", "file"):
            raise ValueError(f"secret must be 'keyring' or 'file', got {secret!r}")
        with write(self.db):
            old = self.account()
            if old is not None and (old.url, old.username) != (url, username):
                self._forget_cache()
            self.db.execute(
                "INSERT INTO caldav_account (id, url, username, secret, write_calendar, "
                "connected_at) VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                "url = excluded.url, username = excluded.username, secret = excluded.secret, "
                "write_calendar = excluded.write_calendar, connected_at = excluded.connected_at",
                [url, username, secret, write_calendar, _now()],
            )
        account = self.account()
        if account is None:  # the insert above makes this unreachable
            raise RuntimeError("the CalDAV account was not saved")
        return account

    def delete_account(self) -> None:
        """Disconnect: the account, the cache and its events go; the outbox goes too."""
        with write(self.db):
            self._forget_cache()
            self.db.execute("DELETE FROM caldav_outbox")
            self.db.execute("DELETE FROM caldav_account")

    def _forget_cache(self) -> None:
        for calendar in self.calendars():
            self.calendar.remove_source(calendar.source)
        self.db.execute("DELETE FROM caldav_objects")
        self.db.execute("DELETE FROM caldav_calendars")

    # the calendars read

    def calendars(self) -> list[CachedCalendar]:
        """The calendars Veil reads, by name."""
        rows = self.db.execute(
            "SELECT url, name, source, sync_token, synced_at FROM caldav_calendars ORDER BY name"
        ).fetchall()
        return [CachedCalendar(*row) for row in rows]

    def keep_calendars(self, chosen: Iterable[tuple[str, str, str]]) -> None:
        """Read exactly these (url, name, source) calendars; the others' cache is dropped."""
        chosen = list(chosen)
        urls = {url for url, _, _ in chosen}
        with write(self.db):
            for calendar in self.calendars():
                if calendar.url not in urls:
                    self.calendar.remove_source(calendar.source)
                    self.db.execute(
                        "DELETE FROM caldav_objects WHERE calendar_url = ?", [calendar.url]
                    )
                    self.db.execute("DELETE FROM caldav_calendars WHERE url = ?", [calendar.url])
            for url, name, source in chosen:
                self.db.execute(
                    "INSERT INTO caldav_calendars (url, name, source) VALUES (?, ?, ?) "
                    "ON CONFLICT(url) DO UPDATE SET name = excluded.name",
                    [url, name, source],
                )

    # cached objects

    def etags(self, calendar_url: str) -> dict[str, str]:
        """href -> ETag of every cached object of one calendar."""
        rows = self.db.execute(
            "SELECT href, etag FROM caldav_objects WHERE calendar_url = ?", [calendar_url]
        )
        return {href: etag or "" for href, etag in rows}

    def object_for_uid(self, uid: str) -> CachedObject | None:
        """The cached object holding this UID (where a change of that event must go)."""
        row = self.db.execute(
            "SELECT href, calendar_url, uid, etag, data FROM caldav_objects WHERE uid = ? "
            "ORDER BY href LIMIT 1",
            [uid],
        ).fetchone()
        return CachedObject(*row) if row else None

    def object_count(self) -> int:
        """How many objects the cache holds."""
        return int(self.db.execute("SELECT count(*) FROM caldav_objects").fetchone()[0])

    def save_object(self, obj: CachedObject) -> None:
        """Remember an object as the server now has it (after Veil wrote it)."""
        with write(self.db):
            self.db.execute(
                "INSERT INTO caldav_objects (href, calendar_url, uid, etag, data) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(href) DO UPDATE SET "
                "calendar_url = excluded.calendar_url, uid = excluded.uid, "
                "etag = excluded.etag, data = excluded.data",
                [obj.href, obj.calendar_url, obj.uid, obj.etag, obj.data],
            )

    def apply_sync(
        self,
        calendar: CachedCalendar,
        *,
        changed: list[ObjectChange],
        deleted: Iterable[str],
        sync_token: str | None,
    ) -> int:
        """One calendar's sync, all or nothing: objects, their events, then the new token.

        The token moves on only with the changes it stands for, so a sync cut short by the
        network is simply done again. Returns how many events were stored.
        """
        deleted = list(dict.fromkeys(deleted))
        with write(self.db):
            gone_uids: list[str] = []
            for first in range(0, len(deleted), 500):
                part = deleted[first : first + 500]
                marks = ", ".join("?" * len(part))
                gone_uids += [
                    row[0]
                    for row in self.db.execute(
                        f"SELECT uid FROM caldav_objects WHERE href IN ({marks})", part
                    )
                ]
                self.db.execute(f"DELETE FROM caldav_objects WHERE href IN ({marks})", part)
            old_uids = [
                row[0]
                for change in changed
                for row in self.db.execute(
                    "SELECT uid FROM caldav_objects WHERE href = ?", [change.href]
                )
            ]
            self.db.conn.executemany(
                "INSERT INTO caldav_objects (href, calendar_url, uid, etag, data) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(href) DO UPDATE SET uid = excluded.uid, "
                "etag = excluded.etag, data = excluded.data",
                [(c.href, calendar.url, c.uid, c.etag, c.data) for c in changed],
            )
            stored = self.calendar.replace_uids(
                calendar.source,
                [*gone_uids, *old_uids, *(c.uid for c in changed)],
                [event for change in changed for event in change.events],
            )
            self.db.execute(
                "UPDATE caldav_calendars SET sync_token = ?, synced_at = ? WHERE url = ?",
                [sync_token, _now(), calendar.url],
            )
        return stored

    # the outbox

    def enqueue(self, uid: str, action: str, ics: str, title: str = "") -> int:
        """Queue the newest state of one event; earlier unsent states of it are superseded
        (the server needs only the last one, and a conflict is settled by confirming again)."""
        if action not in ("put", "cancel"):
            raise ValueError(f"action must be 'put' or 'cancel', got {action!r}")
        now = _now()
        with write(self.db):
            self.db.execute(
                "UPDATE caldav_outbox SET status = 'superseded', updated_at = ? "
                "WHERE uid = ? AND status IN ('pending', 'conflict')",
                [now, uid],
            )
            cursor = self.db.execute(
                "INSERT INTO caldav_outbox (uid, action, ics, title, status, attempts, "
                "last_error, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', 0, '', ?, ?)",
                [uid, action, ics, title, now, now],
            )
        return int(cursor.lastrowid or 0)

    def outbox(self, *statuses: str) -> list[OutboxEntry]:
        """Queued writes in the order confirmed, of the given statuses (default: pending)."""
        wanted = statuses or ("pending",)
        marks = ", ".join("?" * len(wanted))
        rows = self.db.execute(
            "SELECT id, uid, action, ics, title, status, attempts, last_error FROM caldav_outbox "
            f"WHERE status IN ({marks}) ORDER BY id",
            list(wanted),
        ).fetchall()
        return [OutboxEntry(*row) for row in rows]

    def mark(self, entry_id: int, status: str, error: str = "") -> None:
        """Record one attempt at a queued write: done, still pending (why), or a conflict."""
        if status not in OUTBOX_STATUSES:
            raise ValueError(f"unknown outbox status {status!r}")
        with write(self.db):
            self.db.execute(
                "UPDATE caldav_outbox SET status = ?, attempts = attempts + 1, last_error = ?, "
                "updated_at = ? WHERE id = ?",
                [status, error, _now(), entry_id],
            )

    def summary(self) -> dict[str, Any]:
        """Counts for `calendar status` and the page."""
        counts = dict(self.db.execute("SELECT status, count(*) FROM caldav_outbox GROUP BY status"))
        return {
            "objects": self.object_count(),
            "pending": int(counts.get("pending", 0)),
            "conflicts": int(counts.get("conflict", 0)),
        }
