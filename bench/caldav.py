"""CalDAV: turn time with a connected calendar of 5,000 events vs without, and sync time.

Run: .venv/bin/python -m bench.caldav  (writes bench/results/caldav.md)

A real Radicale (the test suite's, tests/radicale_server.py) runs on loopback with one calendar
of 5,000 single events spread over the import window (30 days back, a year ahead: about 13 a
day). Both data folders answer the same requests in the same process, one after the other:
one has no calendar, the other is connected and synced. Turns read the SQLite copy only, so
the difference is the cost of a calendar that size in conflicts, free slots and questions, not
of the network. Sync times are the first full sync (connect), a sync with nothing changed, and
a sync after 20 events changed on the server.
"""

from __future__ import annotations

import logging
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlite_utils import Database

from agent.assistant import Turn, build_assistant
from agent.calendar_link import calendar_command
from bench.common import median, run_notes, shown, timed, write_table
from memory.caldav import CalDAVStore
from memory.calendar import CalendarStore
from tests.radicale_server import PASSWORD, USER, RadicaleServer
from tools.calendar import caldav_sync
from tools.calendar.caldav_secret import SecretStore

log = logging.getLogger(__name__)

TZ = "Europe/Berlin"
EVENTS = 5_000
CHANGED = 20
REPEAT = 5
REQUESTS = (
    ("calendar question", "what do I have on thursday?"),
    ("free slots", "find a free hour for a call with Sam next week"),
    ("create + conflicts", "lunch with Sam Lee thursday next week at 1"),
)


def _object(number: int, start: datetime, title: str) -> str:
    stamp = "%Y%m%dT%H%M%SZ"
    end = start + timedelta(minutes=45)
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//veil bench//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:bench-{number}@example.org\r\nDTSTAMP:{start.strftime(stamp)}\r\n"
        f"DTSTART:{start.astimezone(UTC).strftime(stamp)}\r\n"
        f"DTEND:{end.astimezone(UTC).strftime(stamp)}\r\nSUMMARY:{title}\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def fill(server: RadicaleServer, now: datetime, *, title: str = "Meeting") -> None:
    """Write the events straight into Radicale's folder (5,000 PUTs would time the server)."""
    folder = server.folder / "collections" / "collection-root" / USER / "bench"
    first = now - caldav_sync.WINDOW_PAST + timedelta(hours=1)
    span = (caldav_sync.WINDOW_PAST + caldav_sync.WINDOW_AHEAD - timedelta(days=1)) / EVENTS
    for number in range(EVENTS):
        start = (first + span * number).replace(second=0, microsecond=0)
        (folder / f"bench-{number}.ics").write_text(
            _object(number, start, f"{title} {number}"), encoding="utf-8", newline=""
        )


def turn_seconds(data_dir: Path, request: str, now: datetime) -> list[float]:
    """Seconds of REPEAT turns of one request (a created event is removed after each)."""
    assistant = build_assistant(data_dir=data_dir, no_llm=True)
    assistant.ask(Turn(request="what do I have tomorrow?", now=now, tz=TZ))  # loads the parts

    def one() -> None:
        bundle = assistant.ask(Turn(request=request, now=now, tz=TZ))
        store = CalendarStore(Database(data_dir / "veil.db"))
        for event in bundle.events:
            if event.status == "created":
                for stored in store.titled(event.title.split()[:1], now, now + timedelta(days=30)):
                    if stored.source == "created":
                        store.remove(stored)

    return timed(one, REPEAT)


def main() -> None:
    """Build the server and both data folders, time turns and syncs, write the table."""
    logging.basicConfig(level=logging.WARNING)
    now = datetime.now(ZoneInfo(TZ)).replace(second=0, microsecond=0)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        server = RadicaleServer(root / "radicale").start()
        try:
            server.make_calendar("bench")
            fill(server, now)
            plain, connected = root / "plain", root / "connected"
            plain.mkdir()
            connected.mkdir()
            secrets = SecretStore(connected, use_keyring=False)
            started = time.perf_counter()
            said = calendar_command(
                "connect", data_dir=connected, tz=TZ, now=now, url=server.url, user=USER,
                password=PASSWORD, secrets=secrets, timeout=60,
            )  # fmt: skip
            first_sync = time.perf_counter() - started
            cached = CalDAVStore(Database(connected / "veil.db")).object_count()
            db = Database(connected / "veil.db")
            unchanged = median(
                timed(lambda: caldav_sync.sync(db, secrets, tz=TZ, now=now, timeout=60), REPEAT)
            )
            folder = server.folder / "collections" / "collection-root" / USER / "bench"
            for number in range(CHANGED):
                start = now + timedelta(days=number + 1, hours=2)
                (folder / f"bench-{number}.ics").write_text(
                    _object(number, start, f"Moved {number}"), encoding="utf-8", newline=""
                )
            started = time.perf_counter()
            report = caldav_sync.sync(db, secrets, tz=TZ, now=now, timeout=60)
            changed_sync = time.perf_counter() - started
            # The same full sync again from an empty copy, once the server has read its files:
            # what the first sync costs where the server answers at once (Veil's own part).
            again = root / "again"
            again.mkdir()
            started = time.perf_counter()
            calendar_command(
                "connect", data_dir=again, tz=TZ, now=now, url=server.url, user=USER,
                password=PASSWORD, secrets=SecretStore(again, use_keyring=False), timeout=60,
            )  # fmt: skip
            warm_sync = time.perf_counter() - started
            rows: list[list[object]] = []
            for label, request in REQUESTS:
                without = median(turn_seconds(plain, request, now))
                with_calendar = median(turn_seconds(connected, request, now))
                rows.append([f"turn: {label}", _ms(without), _ms(with_calendar),
                             f"{(with_calendar - without) * 1000:+.0f} ms"])  # fmt: skip
        finally:
            server.stop()
    rows += [
        ["first sync (connect), 5,000 objects", "", shown(first_sync, "s"), ""],
        ["full sync again, server's own cache warm", "", shown(warm_sync, "s"), ""],
        ["sync, nothing changed (median of 5)", "", shown(unchanged, "s"), ""],
        [f"sync, {CHANGED} changed on the server", "", shown(changed_sync, "s"),
         f"{report.changed} fetched"],
    ]  # fmt: skip
    write_table(
        "caldav",
        f"CalDAV: turns with a connected calendar of {EVENTS:,} events, and sync",
        ["what", "no calendar", f"{EVENTS:,}-event CalDAV calendar", "difference"],
        rows,
        [
            f"Radicale {_radicale_version()} on loopback, plain HTTP, one calendar; {cached:,} "
            f"objects cached. Turns: `--no-llm`, median of {REPEAT} after one warm-up turn, "
            "both data folders in one process; turns read only the SQLite copy, never the "
            "network. " + said.split(". ")[-1],
            *run_notes(None),
        ],
    )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _radicale_version() -> str:
    from importlib.metadata import version

    return version("radicale")


if __name__ == "__main__":
    main()
