"""The user's own CalDAV calendar, against a real server: Radicale on a loopback port.

Connect, read into the cache, create, move (same UID, SEQUENCE + 1), cancel, an ETag conflict
(412), a wrong password (401), a server killed mid-write (kept, retried), and the hostile
servers: slow, malformed XML, not TLS, a huge object, script in a SUMMARY. The password must
never reach the database, a log, the audit file, a bundle or the command line's output.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import os
import stat
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest
from caldav import DAVClient
from sqlite_utils import Database

from agent.bundle import TurnBundle
from agent.calendar_link import after_turn, calendar_command
from memory.caldav import CalDAVStore
from memory.calendar import CalendarStore
from memory.event import CalendarEvent
from tests.radicale_server import PASSWORD, USER, RadicaleServer, free_port
from tools.calendar import caldav_sync, caldav_write
from tools.calendar.caldav_secret import SecretStore
from tools.calendar.ics import export_event
from tools.errors import CalDAVError

TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo(TZ))  # a Tuesday


@pytest.fixture
def radicale(tmp_path: Path) -> Iterator[RadicaleServer]:
    """A fresh Radicale with one calendar, "work", of USER; stopped after the test."""
    server = RadicaleServer(tmp_path / "radicale").start()
    try:
        server.make_calendar("work")
        yield server
    finally:
        server.stop()


@pytest.fixture
def phone(radicale: RadicaleServer) -> Iterator[object]:
    """Another client of the same calendar: the user's phone, changing things meanwhile."""
    with DAVClient(
        url=radicale.url, username=USER, password=PASSWORD, enable_rfc6764=False
    ) as client:
        yield client.calendar(url=radicale.calendar_url("work"))


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 12, day, hour, minute, tzinfo=ZoneInfo(TZ))


def connect(data_dir: Path, server: RadicaleServer, password: str = PASSWORD, **kw: object) -> str:
    return connect_url(data_dir, server.url, password=password, **kw)


def connect_url(data_dir: Path, url: str, **kw: object) -> str:
    """`run.py calendar connect URL` as the command line runs it (the file secret store)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    options: dict[str, object] = {"password": PASSWORD, "timeout": 5, **kw}
    return calendar_command(
        "connect", data_dir=data_dir, tz=TZ, now=NOW, url=url, user=USER,
        secrets=SecretStore(data_dir, use_keyring=False), **options,  # type: ignore[arg-type]
    )  # fmt: skip


def db_of(data_dir: Path) -> Database:
    return Database(data_dir / "veil.db")


def cached(data_dir: Path) -> dict[str, CalendarEvent]:
    events = CalendarStore(db_of(data_dir)).between(NOW, NOW + timedelta(days=300))
    return {e.title: e for e in events}


def flush(data_dir: Path, timeout: float = 5) -> list[caldav_write.WriteOutcome]:
    secrets = SecretStore(data_dir, use_keyring=False)
    return caldav_write.flush(db_of(data_dir), secrets, timeout=timeout)


def sync(data_dir: Path) -> caldav_sync.SyncReport:
    secrets = SecretStore(data_dir, use_keyring=False)
    return caldav_sync.sync(db_of(data_dir), secrets, tz=TZ, now=NOW, timeout=5)


def create(data_dir: Path, title: str, start: datetime, *, session: str = "chat") -> Path:
    """What a turn does when it creates an event: store it and write its .ics."""
    event = CalendarEvent.new(title, start, tz=TZ, session=session)
    assert CalendarStore(db_of(data_dir)).add(event).added
    path = data_dir / f"{event.uid[:8]}-{event.sequence}.ics"
    path.write_bytes(export_event(event, now=NOW))
    return path


def change(data_dir: Path, event: CalendarEvent, *, cancel: bool = False) -> Path:
    """What a follow-up does: a move rewrites the event (SEQUENCE + 1), a cancel removes it."""
    store = CalendarStore(db_of(data_dir))
    if cancel:
        store.remove(event)
        event = CalendarEvent(**{**_fields(event), "sequence": event.sequence + 1})
    else:
        event = store.move(event, event.start + timedelta(hours=1), event.end + timedelta(hours=1))
    path = data_dir / f"{event.uid[:8]}-{event.sequence}.ics"
    path.write_bytes(export_event(event, now=NOW, cancel=cancel))
    return path


def _fields(event: CalendarEvent) -> dict[str, object]:
    return {name: getattr(event, name) for name in CalendarEvent.__slots__}


def on_server(phone: object, uid: str) -> icalendar.Event:
    obj = phone.get_event_by_uid(uid)  # type: ignore[attr-defined]
    return icalendar.Calendar.from_ical(obj.data).walk("VEVENT")[0]


# connect and read


def test_connect_reads_the_calendar_into_the_cache(
    data_dir: Path, radicale: RadicaleServer, phone: object
) -> None:
    phone.save_event(  # type: ignore[attr-defined]
        dtstart=at(2, 9), dtend=at(2, 10), summary="Dentist", uid="dentist-1"
    )
    said = connect(data_dir, radicale)
    assert "Connected ana" in said and "reading work" in said and "0600" in said
    dentist = cached(data_dir)["Dentist"]
    assert dentist.start == at(2, 9) and dentist.source.startswith("import:caldav:")
    secret = data_dir / "caldav_secret"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    # The conflict check of a turn reads the cache like an imported .ics.
    from tools.calendar.slots import Schedule

    [clash] = Schedule([dentist]).conflicts(at(2, 9, 30), at(2, 10, 30))
    assert clash.event.uid == "dentist-1"
    # Disconnecting forgets the account, the password and the copy; Veil's own events stay.
    create(data_dir, "Lunch with Sam", at(3, 13))
    secrets = SecretStore(data_dir, use_keyring=False)
    said = calendar_command("disconnect", data_dir=data_dir, tz=TZ, now=NOW, secrets=secrets)
    assert said.startswith("Disconnected")
    assert set(cached(data_dir)) == {"Lunch with Sam"}
    assert CalDAVStore(db_of(data_dir)).account() is None
    assert not secret.exists()
    assert "No CalDAV calendar is connected" in calendar_command(
        "status", data_dir=data_dir, tz=TZ, now=NOW, secrets=secrets
    )


def test_sync_brings_only_the_changes(
    data_dir: Path, radicale: RadicaleServer, phone: object
) -> None:
    for day in (2, 3, 4):
        phone.save_event(  # type: ignore[attr-defined]
            dtstart=at(day, 9), dtend=at(day, 10), summary=f"Standup {day}", uid=f"s{day}"
        )
    connect(data_dir, radicale)
    assert set(cached(data_dir)) == {"Standup 2", "Standup 3", "Standup 4"}
    assert sync(data_dir).changed == 0  # nothing changed: nothing travels
    phone.get_event_by_uid("s3").delete()  # type: ignore[attr-defined]
    moved = phone.get_event_by_uid("s4")  # type: ignore[attr-defined]
    moved.icalendar_component["DTSTART"].dt = at(4, 11)
    moved.icalendar_component["DTEND"].dt = at(4, 12)
    moved.save()
    phone.save_event(dtstart=at(5, 9), dtend=at(5, 10), summary="Review", uid="r5")  # type: ignore[attr-defined]
    report = sync(data_dir)
    assert (report.changed, report.deleted) == (2, 1)
    now_cached = cached(data_dir)
    assert set(now_cached) == {"Standup 2", "Standup 4", "Review"}
    assert now_cached["Standup 4"].start == at(4, 11)


def test_choosing_a_calendar_that_does_not_exist_is_one_line(
    data_dir: Path, radicale: RadicaleServer
) -> None:
    with pytest.raises(CalDAVError, match=r"no calendar 'private' on the server; it has: work"):
        connect(data_dir, radicale, calendars=["private"])
    assert CalDAVStore(db_of(data_dir)).account() is None


def test_caldav_is_off_by_default_and_a_turn_makes_no_connection(
    data_dir: Path, no_network: list[tuple[str, str]]
) -> None:
    data_dir.mkdir(parents=True)
    bundle = TurnBundle(reply="Created lunch.")
    assert after_turn(bundle, data_dir=data_dir, write=False, tz=TZ, now=NOW) is bundle
    assert no_network == []
    asked = after_turn(bundle, data_dir=data_dir, write=True, tz=TZ, now=NOW)
    assert "no CalDAV calendar is connected" in asked.reply
    assert asked.steps[-1].tool == "caldav_write" and asked.steps[-1].status == "failed"


# create, move, cancel


def test_create_move_cancel_write_one_object(
    data_dir: Path, radicale: RadicaleServer, phone: object
) -> None:
    connect(data_dir, radicale)
    path = create(data_dir, "Lunch with Sam", at(3, 13))
    caldav_write.confirm(db_of(data_dir), [path])
    [written] = flush(data_dir)
    assert written.status == "written", written.message
    event = CalendarStore(db_of(data_dir)).latest_of_chat("chat")
    assert event is not None
    first = on_server(phone, event.uid)
    assert int(first["SEQUENCE"]) == 0 and first["DTSTART"].dt == at(3, 13)
    store = CalDAVStore(db_of(data_dir))
    href, etag = store.object_for_uid(event.uid).href, store.object_for_uid(event.uid).etag  # type: ignore[union-attr]

    caldav_write.confirm(db_of(data_dir), [change(data_dir, event)])
    assert [o.status for o in flush(data_dir)] == ["written"]
    moved = on_server(phone, event.uid)
    assert int(moved["SEQUENCE"]) == 1 and moved["DTSTART"].dt == at(3, 14)
    again = CalDAVStore(db_of(data_dir)).object_for_uid(event.uid)
    assert again is not None and again.href == href and again.etag != etag  # same object

    event = CalendarStore(db_of(data_dir)).get(event.uid)
    assert event is not None
    caldav_write.confirm(db_of(data_dir), [change(data_dir, event, cancel=True)])
    assert [o.status for o in flush(data_dir)] == ["written"]
    gone = on_server(phone, event.uid)
    assert int(gone["SEQUENCE"]) == 2 and str(gone["STATUS"]) == "CANCELLED"
    assert len(phone.get_events()) == 1  # type: ignore[attr-defined]  # one object all along
    sync(data_dir)  # the cancelled object does not come back as a busy time
    assert "Lunch with Sam" not in cached(data_dir)


def test_the_command_line_creates_moves_and_cancels_with_write(
    data_dir: Path,
    radicale: RadicaleServer,
    phone: object,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    from run import main

    caplog.set_level(logging.DEBUG)
    monkeypatch.setattr("tools.calendar.caldav_secret.keyring_usable", lambda: False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(PASSWORD + "\n"))
    assert main(["calendar", "connect", radicale.url, "--user", USER, "--password-stdin"]) == 0
    audit = tmp_path / "audit.jsonl"
    common = ["--no-llm", "--now", "2026-11-24T10:00", "--tz", TZ, "--json", "--write",
              "--session", "lunch", "--audit", str(audit)]  # fmt: skip
    bundles = []
    for request in (
        "lunch with Karthik Rao thursday next week at 1",
        "actually make it 12:30",
        "cancel it please",
    ):
        capsys.readouterr()
        assert main(["ask", *common, request]) == 0
        bundles.append(json.loads(capsys.readouterr().out))
    statuses = [[e["status"] for e in b["events"]] for b in bundles]
    assert statuses == [["created"], ["updated"], ["cancelled"]]
    for bundle in bundles:
        [step] = [s for s in bundle["steps"] if s["tool"] == "caldav_write"]
        assert step["status"] == "ok", step["detail"]
        assert any(f["type"] == "ics" for f in bundle["files"])  # the download stays
    [obj] = phone.get_events()  # type: ignore[attr-defined]
    vevent = icalendar.Calendar.from_ical(obj.data).walk("VEVENT")[0]
    assert int(vevent["SEQUENCE"]) == 2 and str(vevent["STATUS"]) == "CANCELLED"
    assert vevent["DTSTART"].dt == at(3, 12, 30)
    # The password went nowhere Veil writes for itself.
    capsys.readouterr()
    assert main(["calendar", "status"]) == 0
    printed = capsys.readouterr()
    encoded = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    texts = {
        "output": printed.out + printed.err + json.dumps(bundles),
        "logs": caplog.text,
        "audit": audit.read_text() if audit.exists() else "",
        "database": (data_dir / "veil.db").read_bytes().decode("latin-1"),
    }
    for wal in data_dir.glob("veil.db-*"):
        texts["database"] += wal.read_bytes().decode("latin-1")
    for where, text in texts.items():
        assert PASSWORD not in text and encoded not in text, where


# conflicts and failures


def test_a_change_on_the_server_is_a_412_conflict_never_overwritten(
    data_dir: Path, radicale: RadicaleServer, phone: object
) -> None:
    connect(data_dir, radicale)
    caldav_write.confirm(db_of(data_dir), [create(data_dir, "Lunch with Sam", at(3, 13))])
    assert [o.status for o in flush(data_dir)] == ["written"]
    event = CalendarStore(db_of(data_dir)).latest_of_chat("chat")
    assert event is not None
    theirs = phone.get_event_by_uid(event.uid)  # type: ignore[attr-defined]
    theirs.icalendar_component["LOCATION"] = "Blue Bottle"  # the user edits it on the phone
    theirs.save()

    caldav_write.confirm(db_of(data_dir), [change(data_dir, event)])
    [outcome] = flush(data_dir)
    assert outcome.status == "conflict" and "412" in outcome.message
    kept = on_server(phone, event.uid)
    assert str(kept["LOCATION"]) == "Blue Bottle" and kept["DTSTART"].dt == at(3, 13)
    assert CalendarStore(db_of(data_dir)).get(event.uid).start == at(3, 14)  # type: ignore[union-attr]
    assert flush(data_dir) == []  # a conflict is not retried behind the user's back
    # After a sync the user confirms again: Veil's change replaces the server's copy.
    sync(data_dir)
    moved = CalendarStore(db_of(data_dir)).get(event.uid)
    assert moved is not None
    path = data_dir / "again.ics"
    path.write_bytes(export_event(moved, now=NOW))
    caldav_write.confirm(db_of(data_dir), [path])
    assert [o.status for o in flush(data_dir)] == ["written"]
    assert on_server(phone, event.uid)["DTSTART"].dt == at(3, 14)


def test_a_wrong_password_is_one_line_and_saves_nothing(
    data_dir: Path, radicale: RadicaleServer
) -> None:
    with pytest.raises(CalDAVError) as raised:
        connect(data_dir, radicale, password="wrong-password")
    assert "refused the user name or password (401)" in str(raised.value)
    assert "wrong-password" not in str(raised.value)
    assert CalDAVStore(db_of(data_dir)).account() is None
    assert not (data_dir / "caldav_secret").exists()


def test_a_password_changed_on_the_server_keeps_the_write_pending(
    data_dir: Path, radicale: RadicaleServer
) -> None:
    connect(data_dir, radicale)
    (radicale.folder / "users").write_text(f"{USER}:rotated\n", encoding="utf-8")
    caldav_write.confirm(db_of(data_dir), [create(data_dir, "Gym", at(4, 7))])
    [outcome] = flush(data_dir)
    assert outcome.status == "pending" and "(401)" in outcome.message
    assert "Gym" in cached(data_dir)  # Veil's store keeps the event
    assert len(CalDAVStore(db_of(data_dir)).outbox("pending")) == 1


def test_a_server_killed_mid_write_loses_nothing_and_a_later_turn_retries(
    data_dir: Path, radicale: RadicaleServer, phone: object
) -> None:
    connect(data_dir, radicale)
    first = create(data_dir, "Lunch with Sam", at(3, 13))
    second = create(data_dir, "Dinner with Ana", at(3, 19))
    caldav_write.confirm(db_of(data_dir), [first, second])
    radicale.kill()
    started = time.perf_counter()
    outcomes = flush(data_dir)
    assert time.perf_counter() - started < 5  # a dead server costs one refusal, not a wait each
    assert [o.status for o in outcomes] == ["pending", "pending"]
    assert "could not reach the CalDAV server at 127.0.0.1" in outcomes[0].message
    assert {"Lunch with Sam", "Dinner with Ana"} <= set(cached(data_dir))
    assert first.exists() and second.exists()  # the .ics files are still offered

    radicale.start()  # the same port and folder: the server is back
    # The first PUT had reached the server before it died; only its reply was lost.
    with DAVClient(url=radicale.url, username=USER, password=PASSWORD,
                   enable_rfc6764=False) as client:  # fmt: skip
        href = caldav_write.object_href(radicale.calendar_url("work"), _uid(first))
        client.request(href, "PUT", caldav_write.caldav_object(first.read_bytes())[2],
                       {"Content-Type": "text/calendar"})  # fmt: skip
    retried = after_turn(
        TurnBundle(reply="Done."), data_dir=data_dir, write=False, tz=TZ, now=NOW,
        secrets=SecretStore(data_dir, use_keyring=False), timeout=5,
    )  # fmt: skip
    assert [s.status for s in retried.steps] == ["ok", "ok"], retried.reply
    with DAVClient(url=radicale.url, username=USER, password=PASSWORD,
                   enable_rfc6764=False) as client:  # fmt: skip
        objects = client.calendar(url=radicale.calendar_url("work")).get_events()
    titles = sorted(str(e.icalendar_component["SUMMARY"]) for e in objects)
    assert titles == ["Dinner with Ana", "Lunch with Sam"]  # each once


def _uid(path: Path) -> str:
    return caldav_write.caldav_object(path.read_bytes())[0]


def test_a_deleted_calendar_is_a_404_line_and_the_write_waits(
    data_dir: Path, radicale: RadicaleServer
) -> None:
    connect(data_dir, radicale)
    with DAVClient(url=radicale.url, username=USER, password=PASSWORD,
                   enable_rfc6764=False) as client:  # fmt: skip
        client.calendar(url=radicale.calendar_url("work")).delete()
    caldav_write.confirm(db_of(data_dir), [create(data_dir, "Gym", at(4, 7))])
    [outcome] = flush(data_dir)
    assert outcome.status == "pending"
    assert "not found on the server (404" in outcome.message or "409" in outcome.message


# hostile servers


class _Hostile(BaseHTTPRequestHandler):
    """Answers every request the way its server's `mode` says."""

    def _answer(self) -> None:
        mode = self.server.mode  # type: ignore[attr-defined]
        if mode == "slow":
            time.sleep(3)
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        body = b"<?xml version='1.0'?><d:multistatus xmlns:d='DAV:'><d:response><d:href>/x</d"
        if mode == "html":
            body = b"<html><body>Welcome to our portal</body></html>"
        self.send_response(207)
        self.send_header("Content-Type", "text/html" if mode == "html" else "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_PROPFIND = do_REPORT = do_GET = do_PUT = do_OPTIONS = _answer  # noqa: N815

    def log_message(self, *args: object) -> None:
        pass


class _HostileServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the client hung up on the slow answer, as it should


@pytest.fixture
def hostile() -> Iterator[ThreadingHTTPServer]:
    server = _HostileServer(("127.0.0.1", free_port()), _Hostile)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("mode", ["garbage", "html"])
def test_a_malformed_reply_is_one_line(
    data_dir: Path, hostile: ThreadingHTTPServer, mode: str
) -> None:
    hostile.mode = mode  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{hostile.server_address[1]}/"
    with pytest.raises(
        CalDAVError, match=r"sent a reply Veil could not read|URL is not a CalDAV server's"
    ) as raised:
        connect_url(data_dir, url)
    assert "\n" not in str(raised.value)
    assert CalDAVStore(db_of(data_dir)).account() is None


def test_a_slow_server_times_out_with_one_line(
    data_dir: Path, hostile: ThreadingHTTPServer
) -> None:
    hostile.mode = "slow"  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{hostile.server_address[1]}/"
    started = time.perf_counter()
    with pytest.raises(CalDAVError, match="did not answer in time"):
        connect_url(data_dir, url, timeout=0.5)
    assert time.perf_counter() - started < 3


def test_tls_to_a_server_without_it_is_one_line(data_dir: Path, radicale: RadicaleServer) -> None:
    url = radicale.url.replace("http://", "https://")
    with pytest.raises(CalDAVError, match=r"^TLS failed with 127\.0\.0\.1"):
        connect_url(data_dir, url, timeout=3)


def test_script_in_a_summary_stays_text_and_a_huge_object_is_refused_alone(
    data_dir: Path, radicale: RadicaleServer, phone: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    hostile_title = "<script>alert('x')</script> Sync"
    phone.save_event(dtstart=at(2, 9), dtend=at(2, 10), summary=hostile_title, uid="x1")  # type: ignore[attr-defined]
    phone.save_event(  # type: ignore[attr-defined]
        dtstart=at(2, 11), dtend=at(2, 12), summary="Huge", uid="huge", description="A" * 20_000
    )
    monkeypatch.setattr(caldav_sync, "MAX_OBJECT_BYTES", 10_000)
    said = connect(data_dir, radicale)
    assert "1 object(s) refused" in said
    assert set(cached(data_dir)) == {hostile_title}  # verbatim text: the page escapes it


def test_an_unreachable_server_at_connect_saves_nothing(data_dir: Path) -> None:
    port = free_port()  # nobody listens there
    with pytest.raises(CalDAVError, match=r"could not reach the CalDAV server at 127\.0\.0\.1"):
        connect_url(data_dir, f"http://127.0.0.1:{port}/")
    assert not (data_dir / "caldav_secret").exists()


def test_a_url_outside_loopback_is_refused_by_the_test_guard_not_reached(
    data_dir: Path, no_network: list[tuple[str, str]]
) -> None:
    # The guard proves the client contacts only the named host: no DNS discovery on the side.
    with pytest.raises(CalDAVError):
        connect_url(data_dir, "https://caldav.example.com/", timeout=1)
    assert {host for _, host in no_network} <= {"caldav.example.com"}


# the secret


def test_the_secret_file_is_0600_and_refused_when_others_may_read_it(tmp_path: Path) -> None:
    secrets = SecretStore(tmp_path, use_keyring=False)
    old = os.umask(0)  # the widest umask: the file must still be 0600
    try:
        assert secrets.save("http://127.0.0.1:1/", USER, PASSWORD) == "file"
    finally:
        os.umask(old)
    assert stat.S_IMODE(secrets.path.stat().st_mode) == 0o600
    assert secrets.load("http://127.0.0.1:1/", USER, "file") == PASSWORD
    secrets.path.chmod(0o644)
    with pytest.raises(CalDAVError, match="chmod 600"):
        secrets.load("http://127.0.0.1:1/", USER, "file")


def test_the_password_goes_to_the_keyring_when_there_is_one(tmp_path: Path) -> None:
    import keyring
    from keyring.backend import KeyringBackend

    class MemoryKeyring(KeyringBackend):
        priority = 10  # type: ignore[assignment]
        stored: dict[tuple[str, str], str] = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.stored.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.stored[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            self.stored.pop((service, username), None)

    before = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    try:
        secrets = SecretStore(tmp_path)
        assert secrets.use_keyring
        assert secrets.save("http://127.0.0.1:1/", USER, PASSWORD) == "keyring"
        assert not secrets.path.exists()
        assert secrets.load("http://127.0.0.1:1/", USER, "keyring") == PASSWORD
        secrets.delete("http://127.0.0.1:1/", USER, "keyring")
        with pytest.raises(CalDAVError, match="no saved CalDAV password"):
            secrets.load("http://127.0.0.1:1/", USER, "keyring")
    finally:
        keyring.set_keyring(before)


def test_the_payload_is_the_offered_ics_without_method(tmp_path: Path) -> None:
    event = CalendarEvent.new("Lunch", at(3, 13), tz=TZ)
    uid, action, text, title = caldav_write.caldav_object(export_event(event, now=NOW))
    assert (uid, action, title) == (event.uid, "put", "Lunch")
    assert "METHOD" not in text and "TZID=Europe/Berlin" in text
    gone = caldav_write.caldav_object(export_event(event, now=NOW, cancel=True))
    assert gone[1] == "cancel" and "STATUS:CANCELLED" in gone[2] and "METHOD" not in gone[2]


# the page's routes


def test_the_page_confirms_one_offered_event_by_file_id(
    data_dir: Path, radicale: RadicaleServer, phone: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory.store import MemoryStore
    from web import create_app

    monkeypatch.setattr("tools.calendar.caldav_secret.keyring_usable", lambda: False)
    app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "NO_LLM": True,
                      "WARM_UP": False})  # fmt: skip
    client = app.test_client()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = client.get("/api/csrf").get_json()["token"]
    store = MemoryStore(db_of(data_dir))
    session = store.create_session("lunch").id
    (data_dir / "files").mkdir(exist_ok=True)
    path = create(data_dir, "Lunch with Sam", at(3, 13))
    offered = data_dir / "files" / path.name
    path.rename(offered)
    record = store.register_file(session, str(offered), "ics", "Lunch with Sam")

    refused = client.post("/api/caldav/confirm", json={"file_id": record.id})
    assert refused.status_code == 422 and "no CalDAV calendar is connected" in refused.json["error"]
    assert client.get("/api/caldav/status").json["connected"] is False

    connect(data_dir, radicale)
    answer = client.post("/api/caldav/confirm", json={"file_id": record.id})
    assert answer.status_code == 200 and answer.json["status"] == "written", answer.json
    assert str(on_server(phone, _uid(offered))["SUMMARY"]) == "Lunch with Sam"
    status = client.get("/api/caldav/status").json
    assert status == {"connected": True, "objects": 1, "pending": 0, "conflicts": 0}
    assert PASSWORD not in json.dumps(status)
    assert client.post("/api/caldav/confirm", json={"file_id": "nope"}).status_code == 404
    synced = client.post("/api/caldav/sync", json={"tz": TZ})
    assert synced.status_code == 200 and synced.json["lines"] == [] and synced.json["connected"]
    assert client.post("/api/caldav/sync", json={"tz": "Mars/Olympus"}).status_code == 400
    assert client.post("/api/caldav/confirm", json=["x"]).status_code == 400


def test_an_object_the_xml_parser_refuses_is_refused_alone_and_the_rest_synced(
    data_dir: Path, radicale: RadicaleServer, phone: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from caldav.collection import Calendar
    from lxml import etree

    for uid, title in (("ok-1", "Standup"), ("poison", "Poison"), ("ok-2", "Review")):
        phone.save_event(dtstart=at(2, 9), dtend=at(2, 10), summary=title, uid=uid)  # type: ignore[attr-defined]
    # Radicale itself refuses objects over 10 MB, so the reply lxml cannot take (a text node
    # over its 10 MB limit, as in a 50 MB calendar) is made at the parser: any multiget that
    # holds the poisoned object fails as lxml fails on such a reply.
    real = Calendar.multiget

    def multiget(self: Calendar, urls: list[object], **kw: object) -> list[object]:
        if any("poison" in str(url) for url in urls):
            raise etree.XMLSyntaxError("xmlSAX2Characters: huge text node", 1, 1, 1)
        return real(self, urls, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Calendar, "multiget", multiget)
    said = connect(data_dir, radicale)
    assert "1 object(s) refused" in said
    assert set(cached(data_dir)) == {"Standup", "Review"}
    assert sync(data_dir).refused == []  # the token moved on: later syncs are not stuck on it


def test_a_turn_answers_from_the_copy_with_the_server_down_and_a_later_turn_sends_it(
    data_dir: Path,
    radicale: RadicaleServer,
    phone: object,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from run import main

    monkeypatch.setattr("tools.calendar.caldav_secret.keyring_usable", lambda: False)
    phone.save_event(dtstart=at(3, 12, 30), dtend=at(3, 14), summary="Dentist", uid="dentist-1")  # type: ignore[attr-defined]
    connect(data_dir, radicale)
    radicale.kill()
    common = ["--no-llm", "--now", "2026-11-24T10:00", "--tz", TZ, "--json"]
    capsys.readouterr()
    assert main(["ask", *common, "--write", "lunch with Sam Lee thursday next week at 1"]) == 0
    bundle = json.loads(capsys.readouterr().out)
    [event] = bundle["events"]
    assert event["status"] == "created" and event["start"] == "2026-12-03T13:00:00+01:00"
    assert [c["title"] for c in event["conflicts"]] == ["Dentist"]  # read from the copy
    [step] = [s for s in bundle["steps"] if s["tool"] == "caldav_write"]
    assert step["status"] == "failed" and "could not reach the CalDAV server" in step["detail"]
    assert "will send it again on the next turn" in bundle["reply"]
    [ics] = [f["path"] for f in bundle["files"] if f["type"] == "ics"]
    assert Path(ics).is_file()

    radicale.start()
    assert main(["ask", *common, "what do I have on friday?"]) == 0  # no --write: a plain turn
    printed = capsys.readouterr()
    json.loads(printed.out)  # the answer is printed whole, before the CalDAV catch-up
    assert "veil: Wrote Lunch with Sam Lee in your CalDAV calendar." in printed.err
    assert str(on_server(phone, _uid(Path(ics)))["SUMMARY"]) == "Lunch with Sam Lee"
    # Without --write an event is only offered: the user learns how to confirm it.
    assert main(["ask", *common, "dinner with Ana Kim friday next week at 7pm"]) == 0
    offered = capsys.readouterr()
    assert [e["status"] for e in json.loads(offered.out)["events"]] == ["created"]
    assert "veil: confirm with --write" in offered.err
    titles = {str(e.icalendar_component["SUMMARY"]) for e in phone.get_events()}  # type: ignore[attr-defined]
    assert titles == {"Dentist", "Lunch with Sam Lee"}  # the dinner is not written unasked


def test_an_unknown_object_in_the_way_is_replaced_only_when_it_is_an_older_one_of_ours(
    data_dir: Path, radicale: RadicaleServer, phone: object
) -> None:
    connect(data_dir, radicale)
    home = radicale.calendar_url("work")
    with DAVClient(url=radicale.url, username=USER, password=PASSWORD,
                   enable_rfc6764=False) as client:  # fmt: skip
        # Lunch: its create reached the server but the reply was lost, then the user moved it.
        lunch = create(data_dir, "Lunch with Sam", at(3, 13))
        href = caldav_write.object_href(home, _uid(lunch))
        client.request(href, "PUT", caldav_write.caldav_object(lunch.read_bytes())[2],
                       {"Content-Type": "text/calendar"})  # fmt: skip
        event = CalendarStore(db_of(data_dir)).get(_uid(lunch))
        assert event is not None
        caldav_write.confirm(db_of(data_dir), [change(data_dir, event)])
        # Gym: something else already sits where Veil would put it (another UID).
        gym = create(data_dir, "Gym", at(4, 7))
        other = caldav_write.caldav_object(gym.read_bytes())[2].replace(_uid(gym), "not-veils")
        client.request(caldav_write.object_href(home, _uid(gym)), "PUT", other,
                       {"Content-Type": "text/calendar"})  # fmt: skip
        caldav_write.confirm(db_of(data_dir), [gym])
    outcomes = {o.title: o.status for o in flush(data_dir)}
    assert outcomes == {"Lunch with Sam": "written", "Gym": "conflict"}
    assert int(on_server(phone, _uid(lunch))["SEQUENCE"]) == 1
    assert str(on_server(phone, "not-veils")["SUMMARY"]) == "Gym"  # left as it was


def test_a_slow_server_at_write_time_costs_one_timeout_and_keeps_both_writes(
    data_dir: Path, hostile: ThreadingHTTPServer
) -> None:
    hostile.mode = "slow"  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{hostile.server_address[1]}/"
    data_dir.mkdir(parents=True)
    secrets = SecretStore(data_dir, use_keyring=False)
    where = secrets.save(url, USER, PASSWORD)
    CalDAVStore(db_of(data_dir)).save_account(url, USER, secret=where, write_calendar=url + "cal/")
    paths = [create(data_dir, "Lunch with Sam", at(3, 13)), create(data_dir, "Gym", at(4, 7))]
    caldav_write.confirm(db_of(data_dir), paths)
    started = time.perf_counter()
    outcomes = flush(data_dir, timeout=0.5)
    assert time.perf_counter() - started < 2.5
    assert [o.status for o in outcomes] == ["pending", "pending"]
    assert "did not answer in time" in outcomes[0].message
    assert len(CalDAVStore(db_of(data_dir)).outbox("pending")) == 2
