"""A turn's CalDAV part, run after its answer: write what the user confirmed, retry what is
still pending, refresh the cached calendar. The answer itself never waited on the network.

The bundle keeps DESIGN.md's contract: each write is one more step (`caldav_write`, ok or
failed with its one line) and one more sentence of the reply. The .ics files stay in the
bundle whatever the server did, so a refused or unreachable server loses nothing.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlite_utils import Database

from agent.bundle import StepOutcome, TurnBundle
from memory.caldav import OUTBOX_STATUSES as OUTBOX_ALL
from memory.caldav import CalDAVStore
from tools.calendar import caldav_sync, caldav_write
from tools.calendar.caldav_client import TIMEOUT_SECONDS
from tools.calendar.caldav_secret import SecretStore
from tools.errors import CalDAVError

log = logging.getLogger(__name__)

SYNC_EVERY = timedelta(minutes=5)  # a turn refreshes a cache older than this


def is_connected(data_dir: Path) -> bool:
    """Whether the user connected a CalDAV account (CalDAV is off by default)."""
    db = Database(data_dir / "veil.db")
    try:
        return CalDAVStore(db).account() is not None
    finally:
        db.close()


def after_turn(
    bundle: TurnBundle,
    *,
    data_dir: Path,
    write: bool,
    tz: str,
    now: datetime,
    secrets: SecretStore | None = None,
    timeout: float = TIMEOUT_SECONDS,
) -> TurnBundle:
    """The bundle with its CalDAV writes done (when `write`: the user confirmed them)."""
    db = Database(data_dir / "veil.db")
    try:
        store = CalDAVStore(db)
        if store.account() is None:
            if not write:
                return bundle
            why = "no CalDAV calendar is connected; run `run.py calendar connect URL`"
            return _with(bundle, [("failed", f"{why} (the .ics still works)")])
        secrets = secrets or SecretStore(data_dir)
        lines: list[tuple[str, str]] = []
        ics = [f.path for f in bundle.files if f.type == "ics" and f.path]
        if write and ics:
            caldav_write.confirm(db, ics)
        elif write:
            lines.append(("failed", "nothing to write: this turn made no event"))
        outcomes = caldav_write.flush(db, secrets, timeout=timeout)
        lines += [("ok" if o.status == "written" else "failed", o.message) for o in outcomes]
        if not any(o.status == "pending" for o in outcomes) and _stale(store):
            try:
                caldav_sync.sync(db, secrets, tz=tz, now=now, timeout=timeout)
            except CalDAVError as error:  # the cache stays as it was and still answers
                log.info("caldav sync after the turn failed: %s", error)
        return _with(bundle, lines)
    finally:
        db.close()


def catch_up(
    *,
    data_dir: Path,
    tz: str,
    now: datetime,
    offered: int = 0,
    secrets: SecretStore | None = None,
    timeout: float = TIMEOUT_SECONDS,
) -> list[str]:
    """What a turn does for CalDAV once its answer is out: send writes still pending from
    earlier turns, refresh a stale copy. The lines say what happened to those writes, and how
    to write the `offered` events of this turn, which wait for the user's confirmation."""
    done = after_turn(
        TurnBundle(reply=""), data_dir=data_dir, write=False, tz=tz, now=now,
        secrets=secrets, timeout=timeout,
    )  # fmt: skip
    hint = ["confirm with --write to put this turn's event(s) in your CalDAV calendar"]
    return [step.detail for step in done.steps] + (hint if offered else [])


def _stale(store: CalDAVStore) -> bool:
    """Whether a calendar was never synced or not for SYNC_EVERY (the clock, not --now)."""
    synced = [c.synced_at for c in store.calendars() if c.synced_at]
    if len(synced) < len(store.calendars()) or not synced:
        return True
    oldest = min(datetime.fromisoformat(s) for s in synced)
    return datetime.now(UTC) - oldest >= SYNC_EVERY


def _with(bundle: TurnBundle, lines: list[tuple[str, str]]) -> TurnBundle:
    if not lines:
        return bundle
    steps = [StepOutcome("caldav_write", status, 1, text) for status, text in lines]  # type: ignore[arg-type]
    reply = " ".join([bundle.reply, *(text for _, text in lines)]).strip()
    return replace(bundle, reply=reply, steps=[*bundle.steps, *steps])


def calendar_command(
    action: str,
    *,
    data_dir: Path,
    tz: str,
    now: datetime,
    timeout: float = TIMEOUT_SECONDS,
    password: str | None = None,
    url: str | None = None,
    user: str | None = None,
    calendars: list[str] | None = None,
    write_to: str | None = None,
    secrets: SecretStore | None = None,
) -> str:
    """One `run.py calendar ...` action; the text to print. Failures raise CalDAVError."""
    secrets = secrets or SecretStore(data_dir)
    db = Database(data_dir / "veil.db")
    try:
        store = CalDAVStore(db)
        if action == "connect":
            if not url or not user or password is None:
                raise CalDAVError("connect needs the URL, --user and the password")
            chosen, report = caldav_sync.connect(
                db, secrets, url=url, username=user, password=password,
                calendars=calendars or [], write_to=write_to, tz=tz, now=now, timeout=timeout,
            )  # fmt: skip
            account = store.account()
            where = "the OS keyring" if account and account.secret == "keyring" else (
                f"{secrets.path} (0600)")  # fmt: skip
            names = ", ".join(c.name for c in chosen)
            return (
                f"Connected {user} at {url}: reading {names}; confirmed events go to "
                f"{_name_of(store, account.write_calendar if account else '')}. The password "
                f"is in {where}. {report.line()}"
            )
        if action == "sync":
            report = caldav_sync.sync(db, secrets, tz=tz, now=now, timeout=timeout)
            outcomes = caldav_write.flush(db, secrets, timeout=timeout)
            return " ".join([report.line(), *(o.message for o in outcomes)])
        if action == "status":
            account = store.account()
            if account is None:
                return "No CalDAV calendar is connected (CalDAV is off; the .ics files work)."
            counts = store.summary()
            lines = [f"Connected: {account.username} at {account.url}."]
            lines += [
                f"  {c.name}: last synced {c.synced_at or 'never'}" for c in store.calendars()
            ]
            lines.append(
                f"{counts['objects']} object(s) cached; {counts['pending']} write(s) pending, "
                f"{counts['conflicts']} conflict(s)."
            )
            lines += [
                f"  {e.status}: {e.title or e.uid} ({e.last_error or 'not tried yet'})"
                for e in store.outbox("pending", "conflict")
            ]
            return "\n".join(lines)
        if action == "disconnect":
            gone = caldav_sync.disconnect(db, secrets)
            return "Disconnected; the password and the cached copy are gone." if gone else (
                "No CalDAV calendar was connected.")  # fmt: skip
        raise ValueError(f"unknown calendar action {action!r}")
    finally:
        db.close()


def _name_of(store: CalDAVStore, url: str) -> str:
    return next((c.name for c in store.calendars() if c.url == url), url)


def write_file(
    path: Path,
    *,
    data_dir: Path,
    secrets: SecretStore | None = None,
    timeout: float = TIMEOUT_SECONDS,
) -> caldav_write.WriteOutcome:
    """The page's confirm button: queue one offered .ics and send the queue; the outcome of
    that event (written, pending with why, or a conflict). CalDAVError when not connected."""
    db = Database(data_dir / "veil.db")
    try:
        [entry_id] = caldav_write.confirm(db, [path])
        outcomes = caldav_write.flush(db, secrets or SecretStore(data_dir), timeout=timeout)
        uid = next(e.uid for e in CalDAVStore(db).outbox(*OUTBOX_ALL) if e.id == entry_id)
        return next(o for o in reversed(outcomes) if o.uid == uid)
    finally:
        db.close()


def caldav_summary(data_dir: Path) -> dict[str, object]:
    """Whether an account is connected, and the cache and queue counts (no URL, no user)."""
    db = Database(data_dir / "veil.db")
    try:
        store = CalDAVStore(db)
        return {"connected": store.account() is not None, **store.summary()}
    finally:
        db.close()
