"""The user's own CalDAV calendar: connect, and keep a cached copy of it in sync.

This is Veil's one outbound connection, to the server the user named, and it is off until they
connect. Reading and writing are kept apart from turns on purpose:

- `sync` copies the chosen calendars into SQLite (memory/caldav.py) with RFC 6578 sync tokens
  and ETags: only changed objects travel, fetched in calendar-multiget batches. Conflicts, free
  slots and calendar questions read that copy like an imported .ics, so a turn never waits on
  the network and works offline.
- writing confirmed events is tools/calendar/caldav_write.py, through a queue.

Every failure becomes one line (CalDAVError or a pending WriteOutcome) and loses nothing: the
event stays in Veil's store, the .ics is still offered, and the queued write is sent again on
the next turn. Deliberately no DNS discovery (RFC 6764): the URL the user gave is the only
address contacted.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from hashlib import sha1
from typing import Any

from sqlite_utils import Database

from memory.caldav import CachedCalendar, CalDAVStore, ObjectChange
from tools.calendar.caldav_client import (
    TIMEOUT_SECONDS,
    canonical_url,
    client_for,
    describe,
    failures,
    is_unreachable,
    open_client,
    text_of,
)
from tools.calendar.caldav_secret import SecretStore
from tools.calendar.ics import import_ics
from tools.errors import CalDAVError, IcsError

log = logging.getLogger(__name__)

# A server may think long before its first sync reply (Radicale reads every object of a
# 5,000-event calendar first: ~15 s here), so a sync waits longer for an answer; connecting
# to the server still gives up after the short timeout.
SYNC_READ_SECONDS = 60.0
BATCH = 100  # objects per calendar-multiget REPORT
MAX_OBJECT_BYTES = 1_000_000  # one event larger than this is refused, not cached
WINDOW_PAST = timedelta(days=30)  # the same window as an .ics import
WINDOW_AHEAD = timedelta(days=365)
_UID_RE = re.compile(r"^UID(?:;[^:\r\n]*)?:(.*?)\r?$", re.M)


@dataclass(frozen=True, slots=True)
class ServerCalendar:
    """A calendar the server lists for the account."""

    url: str
    name: str


@dataclass(slots=True)
class SyncReport:
    """What one sync did, in figures and one line."""

    calendars: int = 0
    changed: int = 0
    deleted: int = 0
    events: int = 0
    refused: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""  # why the sync stopped (the copy is then as it was before)

    def line(self) -> str:
        """One sentence for the command line and the page."""
        if self.error:
            return f"The sync did not finish: {self.error}; `run.py calendar sync` tries again."
        refused = f"; {len(self.refused)} object(s) refused" if self.refused else ""
        return (
            f"Synced {self.calendars} calendar(s): {self.changed} changed, {self.deleted} "
            f"removed, {self.events} event(s) cached in {self.seconds:.1f} s{refused}."
        )


def list_calendars(client: Any) -> list[ServerCalendar]:
    """The account's calendars (CalDAVError for a refused login, a wrong URL, a dead server)."""
    with failures(client.url):
        found = client.principal().calendars()
        return [ServerCalendar(canonical_url(c.url), _name(c)) for c in found]


def _name(calendar: Any) -> str:
    try:
        name = calendar.get_display_name()
    except Exception:  # a server without displayname: the URL's last part names it
        name = None
    return str(name or str(calendar.url).rstrip("/").rsplit("/", 1)[-1])


def choose(found: Sequence[ServerCalendar], wanted: Sequence[str]) -> list[ServerCalendar]:
    """The calendars the user named (by name or URL), or all of them when none was named."""
    if not found:
        raise CalDAVError(
            "found no calendars there: either the URL is not a CalDAV server's (see "
            "docs/caldav.md for each provider's) or the account has none yet"
        )
    if not wanted:
        return list(found)
    chosen = []
    for want in wanted:
        hits = [c for c in found if want in (c.name, c.url) or canonical_url(want) == c.url]
        if not hits:
            names = ", ".join(c.name for c in found)
            raise CalDAVError(f"no calendar {want!r} on the server; it has: {names}")
        chosen += [c for c in hits if c not in chosen]
    return chosen


def connect(
    db: Database,
    secrets: SecretStore,
    *,
    url: str,
    username: str,
    password: str,
    calendars: Sequence[str] = (),
    write_to: str | None = None,
    tz: str,
    now: datetime,
    timeout: float = TIMEOUT_SECONDS,
) -> tuple[list[ServerCalendar], SyncReport]:
    """Check the login, choose calendars, keep the password, and run a first sync.

    Nothing is saved unless the server accepted the login and listed the calendars.
    """
    client = open_client(url, username, password, timeout=timeout)
    chosen = choose(list_calendars(client), calendars)
    target = choose(chosen, [write_to])[0] if write_to else chosen[0]
    where = secrets.save(url, username, password)
    store = CalDAVStore(db)
    store.save_account(url, username, secret=where, write_calendar=target.url)
    store.keep_calendars((c.url, c.name, _source(c.url)) for c in chosen)
    try:
        return chosen, _sync(store, client, tz=tz, now=now)
    except CalDAVError as error:  # connected all the same: the login and calendars were fine
        return chosen, SyncReport(error=str(error))


def disconnect(db: Database, secrets: SecretStore) -> bool:
    """Forget the account, its password, its cached events and unsent writes."""
    store = CalDAVStore(db)
    account = store.account()
    if account is None:
        return False
    secrets.delete(account.url, account.username, account.secret)
    store.delete_account()
    return True


def _source(calendar_url: str) -> str:
    """The calendar_events source of one calendar's cached events."""
    return f"import:caldav:{sha1(calendar_url.encode()).hexdigest()[:10]}"


# reading


def sync(
    db: Database, secrets: SecretStore, *, tz: str, now: datetime, timeout: float = TIMEOUT_SECONDS
) -> SyncReport:
    """Bring the cached copy up to date with the server (CalDAVError on any failure: the
    copy is then as it was, and still answers turns)."""
    store = CalDAVStore(db)
    return _sync(store, client_for(store, secrets, timeout), tz=tz, now=now)


def _sync(store: CalDAVStore, client: Any, *, tz: str, now: datetime) -> SyncReport:
    short = client.timeout if isinstance(client.timeout, int | float) else TIMEOUT_SECONDS
    client.timeout = (short, max(short, SYNC_READ_SECONDS))  # (connect, read) for niquests
    report = SyncReport()
    started = time.perf_counter()
    for calendar in store.calendars():
        with failures(calendar.url):
            _sync_calendar(store, client, calendar, report, tz=tz, now=now)
        report.calendars += 1
    report.seconds = time.perf_counter() - started
    log.info("caldav sync: %d changed, %d deleted", report.changed, report.deleted)
    return report


def _sync_calendar(
    store: CalDAVStore,
    client: Any,
    calendar: CachedCalendar,
    report: SyncReport,
    *,
    tz: str,
    now: datetime,
) -> None:
    """One calendar: list what changed since the token, fetch those, apply all at once."""
    remote = client.calendar(url=calendar.url)
    listing = remote.get_objects_by_sync_token(calendar.sync_token or None, load_objects=False)
    token = str(listing.sync_token) if listing.sync_token else None
    # No token sent, or the server could not use ours: the listing is the whole calendar.
    full = not calendar.sync_token or (token or "").startswith("fake-")
    known = store.etags(calendar.url)
    removed = {canonical_url(u) for u in listing.deleted_urls}
    listed: dict[str, Any] = {}
    for obj in listing:
        href = canonical_url(obj.url)
        if href not in removed:
            listed[href] = obj
    deleted = (set(known) - set(listed)) if full else (removed & set(known))
    wanted = [href for href, obj in listed.items() if not known.get(href) or
              known[href] != _etag_of(obj)]  # fmt: skip
    changes: list[tuple[str, str, str]] = []  # href, etag, data
    unloaded = []
    for href in wanted:
        data = getattr(listed[href], "_data", None)
        if data:
            changes.append((href, _etag_of(listed[href]), text_of(data)))
        else:
            unloaded.append(listed[href].url)
    for first in range(0, len(unloaded), BATCH):
        changes += _fetch(remote, unloaded[first : first + BATCH], report)
    parsed = _parse(changes, calendar.source, report, tz=tz, now=now)
    report.events += store.apply_sync(calendar, changed=parsed, deleted=deleted, sync_token=token)
    report.changed += len(parsed)
    report.deleted += len(deleted)


def _fetch(remote: Any, urls: list[Any], report: SyncReport) -> list[tuple[str, str, str]]:
    """(href, etag, data) of a batch in one calendar-multiget. A reply that cannot be read (an
    object too large for the XML parser, a broken one) is asked again object by object, so one
    bad object is refused alone instead of stopping every later sync."""
    try:
        return [(canonical_url(o.url), _etag_of(o), text_of(o.data)) for o in remote.multiget(urls)]
    except Exception as error:
        from caldav.lib.error import AuthorizationError

        if is_unreachable(error) or isinstance(error, AuthorizationError):
            raise  # the network or the login: the whole sync fails and is tried again later
        if len(urls) == 1:
            report.refused.append(f"{canonical_url(urls[0])}: {describe(error, remote.url)}")
            return []
        return [change for url in urls for change in _fetch(remote, [url], report)]


def _etag_of(obj: Any) -> str:
    from caldav.elements import dav

    return str((getattr(obj, "props", None) or {}).get(dav.GetEtag.tag) or "")


def _parse(
    changes: list[tuple[str, str, str]], source: str, report: SyncReport, *, tz: str, now: datetime
) -> list[ObjectChange]:
    """Objects as events in the import window; an object that cannot be read is refused alone."""
    kept: list[tuple[str, str, str, str]] = []
    for href, etag, data in changes:
        match = _UID_RE.search(re.sub(r"\r?\n[ \t]", "", data[:MAX_OBJECT_BYTES]))
        if len(data) > MAX_OBJECT_BYTES:
            report.refused.append(f"{href}: larger than {MAX_OBJECT_BYTES:,} bytes")
        elif match is None or not match.group(1).strip():
            report.refused.append(f"{href}: no UID")
        else:
            kept.append((href, match.group(1).strip(), etag, data))
    events: dict[str, list] = {}
    for first in range(0, len(kept), BATCH):
        batch = kept[first : first + BATCH]
        for uid, found in _import([data for *_, data in batch], source, tz, now, report).items():
            events.setdefault(uid, []).extend(found)
    return [
        ObjectChange(href, uid, etag, data, events.get(uid, [])) for href, uid, etag, data in kept
    ]


def _import(
    datas: list[str], source: str, tz: str, now: datetime, report: SyncReport
) -> dict[str, list]:
    """Events by UID of a batch of objects; a batch the importer refuses is read one by one."""
    window = {"window_start": now - WINDOW_PAST, "window_end": now + WINDOW_AHEAD}
    try:
        found = import_ics("\r\n".join(datas).encode(), tz=tz, source=source, **window)
    except IcsError:
        if len(datas) == 1:
            raise
        by_uid: dict[str, list] = {}
        for data in datas:
            try:
                for uid, events in _import([data], source, tz, now, report).items():
                    by_uid.setdefault(uid, []).extend(events)
            except IcsError as error:
                report.refused.append(str(error))
        return by_uid
    report.refused += [f"{r.item}: {r.reason}" for r in found.refused]
    grouped: dict[str, list] = {}
    for event in found.events:
        grouped.setdefault(event.uid, []).append(event)
    return grouped


# writing
