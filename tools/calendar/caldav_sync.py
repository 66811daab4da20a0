"""The user's own CalDAV calendar: connect, sync a cached copy, write confirmed events.

This is Veil's one outbound connection, to the server the user named, and it is off until they
connect. Reading and writing are kept apart from turns on purpose:

- `sync` copies the chosen calendars into SQLite (memory/caldav.py) with RFC 6578 sync tokens
  and ETags: only changed objects travel, fetched in calendar-multiget batches. Conflicts, free
  slots and calendar questions read that copy like an imported .ics, so a turn never waits on
  the network and works offline.
- `confirm` queues what the user confirmed (the turn's own .ics files), and `flush` sends the
  queue: a new event is a PUT with `If-None-Match: *`, a move or cancellation a PUT of the same
  object (same UID, SEQUENCE raised, STATUS:CANCELLED for a cancellation) with `If-Match` on the
  ETag Veil last saw, so a change made on the server meanwhile is never overwritten.

Every failure becomes one line (CalDAVError or a pending WriteOutcome) and loses nothing: the
event stays in Veil's store, the .ics is still offered, and the queued write is sent again on
the next turn. Deliberately no DNS discovery (RFC 6764): the URL the user gave is the only
address contacted.
"""

from __future__ import annotations

import logging
import re
import ssl
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from hashlib import sha1
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import icalendar
from sqlite_utils import Database

from memory.caldav import CachedCalendar, CachedObject, CalDAVStore, ObjectChange, OutboxEntry
from tools.calendar.caldav_secret import SecretStore
from tools.calendar.ics import import_ics
from tools.errors import CalDAVError, IcsError

log = logging.getLogger(__name__)
# caldav logs every request and response body at DEBUG: event titles, attendees, real names.
logging.getLogger("caldav").setLevel(logging.INFO)

TIMEOUT_SECONDS = 10.0
# A server may think long before its first sync reply (Radicale reads every object of a
# 5,000-event calendar first: ~15 s here), so a sync waits longer for an answer; connecting
# to the server still gives up after the short timeout.
SYNC_READ_SECONDS = 60.0
BATCH = 100  # objects per calendar-multiget REPORT
MAX_OBJECT_BYTES = 1_000_000  # one event larger than this is refused, not cached
WINDOW_PAST = timedelta(days=30)  # the same window as an .ics import
WINDOW_AHEAD = timedelta(days=365)
_UID_RE = re.compile(r"^UID(?:;[^:\r\n]*)?:(.*?)\r?$", re.M)
_UNSAFE_NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")


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


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    """What happened to one queued write: written, still pending (retried later), conflict."""

    uid: str
    title: str
    status: str  # written | pending | conflict
    message: str


# connecting


def open_client(url: str, username: str, password: str, *, timeout: float = TIMEOUT_SECONDS):
    """A caldav client for exactly this URL: no DNS discovery, no second address."""
    from caldav import DAVClient

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CalDAVError(f"{url!r} is not an http(s) URL; give the CalDAV URL of your server")
    if parts.username or parts.password:
        raise CalDAVError("put the user name in --user and the password in the prompt, not the URL")
    return DAVClient(
        url=url,
        username=username,
        password=password,
        timeout=timeout,  # type: ignore[arg-type]  # niquests takes float seconds
        enable_rfc6764=False,
    )


def list_calendars(client: Any) -> list[ServerCalendar]:
    """The account's calendars (CalDAVError for a refused login, a wrong URL, a dead server)."""
    with failures(client.url):
        found = client.principal().calendars()
        return [ServerCalendar(_href(c.url), _name(c)) for c in found]


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
        hits = [c for c in found if want in (c.name, c.url) or _href(want) == c.url]
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


def _client_for(store: CalDAVStore, secrets: SecretStore, timeout: float) -> Any:
    account = store.account()
    if account is None:
        raise CalDAVError("no CalDAV calendar is connected; run `run.py calendar connect URL`")
    password = secrets.load(account.url, account.username, account.secret)
    return open_client(account.url, account.username, password, timeout=timeout)


def _source(calendar_url: str) -> str:
    """The calendar_events source of one calendar's cached events."""
    return f"import:caldav:{sha1(calendar_url.encode()).hexdigest()[:10]}"


def _href(url: object) -> str:
    from caldav.lib.url import URL

    return str(URL.objectify(str(url)).canonical())


# reading


def sync(
    db: Database, secrets: SecretStore, *, tz: str, now: datetime, timeout: float = TIMEOUT_SECONDS
) -> SyncReport:
    """Bring the cached copy up to date with the server (CalDAVError on any failure: the
    copy is then as it was, and still answers turns)."""
    store = CalDAVStore(db)
    return _sync(store, _client_for(store, secrets, timeout), tz=tz, now=now)


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
    removed = {_href(u) for u in listing.deleted_urls}
    listed: dict[str, Any] = {}
    for obj in listing:
        href = _href(obj.url)
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
            changes.append((href, _etag_of(listed[href]), _text(data)))
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
        return [(_href(o.url), _etag_of(o), _text(o.data)) for o in remote.multiget(urls)]
    except Exception as error:
        if not describe(error, remote.url).startswith("the CalDAV server at"):
            raise  # the network or the login: the whole sync fails and is tried again later
        if len(urls) == 1:
            report.refused.append(f"{_href(urls[0])}: {describe(error, remote.url)}")
            return []
        return [change for url in urls for change in _fetch(remote, [url], report)]


def _etag_of(obj: Any) -> str:
    from caldav.elements import dav

    return str((getattr(obj, "props", None) or {}).get(dav.GetEtag.tag) or "")


def _text(data: object) -> str:
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data or "")


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


def caldav_object(ics: bytes) -> tuple[str, str, str, str]:
    """(uid, action, object text, title) of one of Veil's .ics files, as a CalDAV resource:
    METHOD goes (RFC 4791 5.3.2 forbids it in a stored object), the rest is the same file."""
    try:
        calendar = icalendar.Calendar.from_ical(ics)
    except ValueError as error:
        raise CalDAVError(f"the .ics cannot be read ({error})") from None
    events = calendar.walk("VEVENT")
    if len(events) != 1 or not str(events[0].get("UID", "")):
        raise CalDAVError("a CalDAV write takes an .ics with exactly one event and its UID")
    event = events[0]
    calendar.pop("METHOD", None)
    cancelled = str(event.get("STATUS", "")).upper() == "CANCELLED"
    return (
        str(event["UID"]),
        "cancel" if cancelled else "put",
        calendar.to_ical().decode("utf-8"),
        str(event.get("SUMMARY", "")),
    )


def confirm(db: Database, paths: Iterable[str | Path]) -> list[int]:
    """Queue the events of these .ics files (what the user confirmed); returns entry ids."""
    store = CalDAVStore(db)
    if store.account() is None:
        raise CalDAVError("no CalDAV calendar is connected; run `run.py calendar connect URL`")
    queued = []
    for path in paths:
        uid, action, text, title = caldav_object(Path(path).read_bytes())
        queued.append(store.enqueue(uid, action, text, title))
    return queued


def flush(
    db: Database, secrets: SecretStore, *, timeout: float = TIMEOUT_SECONDS
) -> list[WriteOutcome]:
    """Send every pending write, oldest first. A failure leaves the write pending (network,
    login, missing calendar) or marks a conflict (the server's copy changed); the first
    network failure stops the round, so a dead server costs one timeout, not one per write."""
    store = CalDAVStore(db)
    entries = store.outbox("pending")
    if not entries:
        return []
    try:
        client = _client_for(store, secrets, timeout)
    except CalDAVError as error:
        return [_keep(store, entry, str(error)) for entry in entries]
    account = store.account()
    assert account is not None  # _client_for raised otherwise
    outcomes: list[WriteOutcome] = []
    for position, entry in enumerate(entries):
        try:
            outcomes.append(_write(store, client, entry, account.write_calendar))
        except CalDAVError as error:
            outcomes.append(_keep(store, entry, str(error)))
            if _unreachable(error):
                outcomes += [
                    _keep(store, e, str(error), tried=False) for e in entries[position + 1 :]
                ]
                break
    return outcomes


def _keep(store: CalDAVStore, entry: OutboxEntry, why: str, *, tried: bool = True) -> WriteOutcome:
    if tried:
        store.mark(entry.id, "pending", why)
    return WriteOutcome(
        entry.uid, entry.title, "pending",
        f"{entry.title or 'the event'} is not in your CalDAV calendar yet: {why}. Veil kept it "
        "and will send it again on the next turn; the .ics works meanwhile.",
    )  # fmt: skip


def _unreachable(error: CalDAVError) -> bool:
    return str(error).startswith(("could not reach", "the CalDAV server did not answer", "TLS"))


def _object_href(calendar_url: str, uid: str) -> str:
    """Where a new event goes: one stable name per UID, so a retried PUT hits the same place."""
    name = _UNSAFE_NAME_RE.sub("-", uid).strip("-")[:120] or sha1(uid.encode()).hexdigest()
    return _href(calendar_url.rstrip("/") + "/" + name + ".ics")


def _write(store: CalDAVStore, client: Any, entry: OutboxEntry, calendar_url: str) -> WriteOutcome:
    """PUT one object, conditional on what Veil knows of the server's copy."""
    known = store.object_for_uid(entry.uid)
    href = known.href if known else _object_href(calendar_url, entry.uid)
    home = known.calendar_url if known else calendar_url
    etag = known.etag if known and known.etag else None
    with failures(href):
        if etag is None:
            current = client.request(href, "GET")
            if current.status == 200:  # there already: our own earlier write whose reply was lost?
                theirs = _version(_text(getattr(current, "_raw_body", None) or current._raw))
                ours = _version(entry.ics)
                etag = str(current.headers.get("ETag") or "") or None
                if theirs == ours:
                    store.save_object(CachedObject(href, home, entry.uid, etag or "", entry.ics))
                    store.mark(entry.id, "done")
                    return WriteOutcome(entry.uid, entry.title, "written", _written(entry))
                # Only an older version of our own event (a lost reply, then a move) may be
                # replaced; anything else there is someone else's and is never overwritten.
                if etag is None or theirs is None or ours is None or theirs[0] != ours[0] or (
                    theirs[1] > ours[1]):  # fmt: skip
                    return _conflict(store, entry)
            elif current.status == 404 and entry.action == "cancel":
                store.mark(entry.id, "done")  # never reached the server: nothing to cancel there
                return WriteOutcome(entry.uid, entry.title, "written", _written(entry))
            elif current.status not in (200, 404):
                raise _status_error(current.status, href)
        headers = {"Content-Type": "text/calendar; charset=utf-8"}
        headers.update({"If-Match": etag} if etag else {"If-None-Match": "*"})
        response = client.request(href, "PUT", entry.ics, headers)
        if response.status == 412:
            return _conflict(store, entry)
        if response.status not in (200, 201, 204):
            raise _status_error(response.status, href)
        new_etag = str(response.headers.get("ETag") or "")
        if not new_etag:  # some servers change the object on PUT and send no ETag
            new_etag = str(client.request(href, "GET").headers.get("ETag") or "")
    store.save_object(CachedObject(href, home, entry.uid, new_etag, entry.ics))
    store.mark(entry.id, "done")
    return WriteOutcome(entry.uid, entry.title, "written", _written(entry))


def _version(text: str) -> tuple[str, int] | None:
    """(UID, SEQUENCE) of an object's event: which event, and which change of it."""
    try:
        event = icalendar.Calendar.from_ical(text).walk("VEVENT")[0]
        return str(event.get("UID", "")), int(event.get("SEQUENCE", 0))
    except (ValueError, IndexError, TypeError):
        return None


def _written(entry: OutboxEntry) -> str:
    done = "Cancelled" if entry.action == "cancel" else "Wrote"
    return f"{done} {entry.title or 'the event'} in your CalDAV calendar."


def _conflict(store: CalDAVStore, entry: OutboxEntry) -> WriteOutcome:
    why = "the server's copy changed since Veil last read it (412)"
    store.mark(entry.id, "conflict", why)
    return WriteOutcome(
        entry.uid, entry.title, "conflict",
        f"{entry.title or 'the event'} was not written: {why}. Veil did not overwrite it; run "
        "`run.py calendar sync`, check the event, and confirm again to replace it.",
    )  # fmt: skip


def _status_error(status: int, href: str) -> CalDAVError:
    if status == 404:
        return CalDAVError(
            f"the calendar was not found on the server (404 for {_where(href)}); "
            "check the URL with `run.py calendar connect`"
        )
    if status in (401, 403):
        return CalDAVError(_REFUSED)
    if status == 409:
        return CalDAVError(
            f"the server refused the event (409 for {_where(href)}): the calendar may be gone; "
            "check with `run.py calendar status` and connect again"
        )
    return CalDAVError(f"the CalDAV server answered {status} for {_where(href)}")


def _where(url: object) -> str:
    parts = urlsplit(str(url))
    return f"{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"


_REFUSED = (
    "the CalDAV server refused the user name or password (401); "
    "run `run.py calendar connect` again with the right ones (an app password for iCloud)"
)


@contextmanager
def failures(url: object) -> Iterator[None]:
    """Turns every way a CalDAV request can fail into one CalDAVError line."""
    try:
        yield
    except CalDAVError:
        raise
    except Exception as error:
        # The type only: a library's message may quote the server's reply, with event text.
        log.debug("CalDAV request to %s failed: %s", _where(url), type(error).__name__)
        raise CalDAVError(describe(error, url)) from None


def describe(error: Exception, url: object = "") -> str:
    """One line for a failed CalDAV request, without the password or the server's body."""
    import niquests
    from caldav.lib import error as dav_error
    from lxml import etree

    host = urlsplit(str(url)).hostname or "the server"
    if isinstance(error, dav_error.AuthorizationError):
        return _REFUSED
    if isinstance(error, dav_error.NotFoundError):
        return f"the calendar was not found on the server (404 at {_where(url)}); check the URL"
    if isinstance(error, niquests.exceptions.Timeout | TimeoutError):
        return f"the CalDAV server did not answer in time ({host}); try again later"
    if isinstance(error, niquests.exceptions.SSLError | ssl.SSLError):
        return (
            f"TLS failed with {host}: its certificate could not be verified; check the URL "
            "(https) and the server's certificate"
        )
    if isinstance(error, niquests.exceptions.ConnectionError | ConnectionError):
        return f"could not reach the CalDAV server at {host} (is it running, is the URL right?)"
    if isinstance(error, etree.XMLSyntaxError | dav_error.DAVError | ValueError | KeyError):
        return (
            f"the CalDAV server at {host} sent a reply Veil could not read "
            f"({type(error).__name__}); nothing was changed"
        )
    return f"the CalDAV request to {host} failed ({type(error).__name__})"
