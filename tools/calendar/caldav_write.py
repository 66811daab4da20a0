"""Writing confirmed events to the user's CalDAV calendar, through a queue that loses nothing.

`confirm` queues what the user confirmed (the turn's own .ics files, exactly as offered), and
`flush` sends the queue: a new event is a PUT with `If-None-Match: *`, a move or cancellation a
PUT of the same object (same UID, SEQUENCE raised, STATUS:CANCELLED for a cancellation) with
`If-Match` on the ETag Veil last saw, so a change made on the server meanwhile is never
overwritten (412: a conflict the user settles by confirming again). A failure leaves the write
pending and says why in one line; the event stays in Veil's store, the .ics is still offered,
and the next turn sends it again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from hashlib import sha1
from pathlib import Path
from typing import Any

import icalendar
from sqlite_utils import Database

from memory.caldav import CachedObject, CalDAVStore, OutboxEntry
from tools.calendar.caldav_client import (
    TIMEOUT_SECONDS,
    canonical_url,
    client_for,
    failures,
    status_error,
    text_of,
)
from tools.calendar.caldav_secret import SecretStore
from tools.errors import CalDAVError, CalDAVUnreachableError

_UNSAFE_NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    """What happened to one queued write: written, still pending (retried later), conflict."""

    uid: str
    title: str
    status: str  # written | pending | conflict
    message: str


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
        client = client_for(store, secrets, timeout)
    except CalDAVError as error:
        return [_keep(store, entry, str(error)) for entry in entries]
    account = store.account()
    if account is None:  # disconnected meanwhile (client_for found one a moment ago)
        return [_keep(store, entry, "the CalDAV account was disconnected") for entry in entries]
    outcomes: list[WriteOutcome] = []
    for position, entry in enumerate(entries):
        try:
            outcomes.append(_write(store, client, entry, account.write_calendar))
        except CalDAVUnreachableError as error:
            outcomes.append(_keep(store, entry, str(error)))
            outcomes += [_keep(store, e, str(error), tried=False) for e in entries[position + 1 :]]
            break
        except CalDAVError as error:
            outcomes.append(_keep(store, entry, str(error)))
    return outcomes


def _keep(store: CalDAVStore, entry: OutboxEntry, why: str, *, tried: bool = True) -> WriteOutcome:
    if tried:
        store.mark(entry.id, "pending", why)
    what = entry.title or "the event"
    change = f"The cancellation of {what} has" if entry.action == "cancel" else f"{what} has"
    return WriteOutcome(
        entry.uid, entry.title, "pending",
        f"{change} not reached your CalDAV calendar yet: {why}. Veil kept it and will send it "
        "again on the next turn; the .ics works meanwhile.",
    )  # fmt: skip


def object_href(calendar_url: str, uid: str) -> str:
    """Where a new event goes: one stable name per UID, so a retried PUT hits the same place."""
    name = _UNSAFE_NAME_RE.sub("-", uid).strip("-")[:120] or sha1(uid.encode()).hexdigest()
    return canonical_url(calendar_url.rstrip("/") + "/" + name + ".ics")


def _write(store: CalDAVStore, client: Any, entry: OutboxEntry, calendar_url: str) -> WriteOutcome:
    """PUT one object, conditional on what Veil knows of the server's copy."""
    known = store.object_for_uid(entry.uid)
    href = known.href if known else object_href(calendar_url, entry.uid)
    home = known.calendar_url if known else calendar_url
    etag = known.etag if known and known.etag else None
    with failures(href):
        if etag is None:
            current = client.request(href, "GET")
            if current.status == 200:  # there already: our own earlier write whose reply was lost?
                theirs = _version(text_of(getattr(current, "_raw_body", None) or current._raw))
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
                raise status_error(current.status, href)
        headers = {"Content-Type": "text/calendar; charset=utf-8"}
        headers.update({"If-Match": etag} if etag else {"If-None-Match": "*"})
        response = client.request(href, "PUT", entry.ics, headers)
        if response.status == 412:
            return _conflict(store, entry)
        if response.status not in (200, 201, 204):
            raise status_error(response.status, href)
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
