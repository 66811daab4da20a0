"""The .ics corpus (imported / refused / crashed, seconds) and slot search on 5,000 events."""

from __future__ import annotations

import logging
import random
import tracemalloc
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bench.common import median, timed, write_table
from memory.event import CalendarEvent
from tools.calendar.ics import import_ics
from tools.calendar.slots import Schedule
from tools.errors import IcsError

log = logging.getLogger(__name__)

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "ics"
TZ = "Europe/Berlin"
# Wide on purpose: most corpus events lie between 1997 and 2020, and expanding thirty years of
# recurring series is the expensive case.
WINDOW = (datetime(2000, 1, 1, tzinfo=ZoneInfo(TZ)), datetime(2031, 1, 1, tzinfo=ZoneInfo(TZ)))


def run_corpus(files: list[Path]) -> tuple[Counter[str], int, Counter[str]]:
    """Import every file once: outcome counts, events imported, refusal reasons."""
    outcome: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    events = 0
    for path in files:
        try:
            result = import_ics(
                path.read_bytes(),
                tz=TZ,
                source="import:bench",
                window_start=WINDOW[0],
                window_end=WINDOW[1],
            )
        except IcsError as error:
            outcome["refused"] += 1
            reasons[str(error)] += 1
        except Exception:  # counted, not hidden: the benchmark exists to show this is 0
            log.exception("crash on %s", path)
            outcome["crashed"] += 1
        else:
            outcome["imported"] += 1
            events += len(result.events)
            outcome["items refused"] += len(result.refused)
    return outcome, events, reasons


_SIXTY = ",".join(map(str, range(60)))
# Issue 17's probes: (label, file). The first is the 565-byte file that once took 16 GB.
HOSTILE = [
    (
        "HOURLY x 60 BYMINUTE x 60 BYSECOND from 1900",
        f"RRULE:FREQ=HOURLY;BYMINUTE={_SIXTY};BYSECOND={_SIXTY}",
        1,
    ),
    ("MINUTELY from 1900", "RRULE:FREQ=MINUTELY", 1),
    ("DAILY, COUNT=10**9, from 1900", "RRULE:FREQ=DAILY;COUNT=1000000000", 1),
    ("99,000 single VEVENTs in the window", "", 99_000),
]


def hostile_file(rule: str, copies: int) -> bytes:
    """A calendar of `copies` events starting 1900 with `rule`, or in the window without one."""
    start = "DTSTART:19000101T000000Z" if rule else "DTSTART:20260305T100000Z"
    event = "BEGIN:VEVENT\r\nUID:{}\r\n" + start + "\r\n" + (rule + "\r\n" if rule else "")
    event += "SUMMARY:probe\r\nEND:VEVENT\r\n"
    body = "".join(event.format(i) for i in range(copies))
    return f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\n{body}END:VCALENDAR\r\n".encode()


def run_hostile() -> list[list[object]]:
    """Seconds, tracemalloc peak and outcome of importing each hostile file once."""
    now = datetime(2026, 3, 1, 12, tzinfo=ZoneInfo(TZ))
    rows: list[list[object]] = []
    for label, rule, copies in HOSTILE:
        data = hostile_file(rule, copies)

        def run(data: bytes = data) -> str:
            try:
                result = import_ics(
                    data,
                    tz=TZ,
                    source="import:hostile",
                    window_start=now - timedelta(days=30),
                    window_end=now + timedelta(days=365),
                )
            except IcsError as error:
                return f"refused: {error}"
            reasons = "; ".join(r.reason for r in result.refused)
            return f"{len(result.events)} events" + (
                f", item refused: {reasons}" if reasons else ""
            )

        said = run()
        seconds = median(timed(run, repeat=3))
        tracemalloc.start()
        run()  # tracemalloc slows the loop: the budget may end this run sooner
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append(
            [f"{label} ({len(data):,} bytes)", f"{seconds:.2f} s", f"{peak / 2**20:.1f} MB", said]
        )
    return rows


def calendar(count: int, seed: int = 7) -> list[CalendarEvent]:
    """A year of random meetings (3 % all-day) in one zone."""
    rng = random.Random(seed)
    origin = datetime(2026, 1, 1, tzinfo=UTC)
    events = []
    for i in range(count):
        start = origin + timedelta(minutes=15 * rng.randrange(0, 4 * 24 * 365))
        if rng.random() < 0.03:
            day = start.astimezone(ZoneInfo(TZ)).date()
            events.append(
                CalendarEvent.new(
                    f"All day {i}", datetime(day.year, day.month, day.day), tz=TZ, all_day=True
                )
            )
        else:
            minutes = 15 * rng.randrange(1, 12)
            events.append(
                CalendarEvent.new(f"Event {i}", start, tz=TZ, duration=timedelta(minutes=minutes))
            )
    return events


def main(repeat: int = 3) -> None:
    """Measure and write bench/results/ics.md."""
    files = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".ics", ".jcal"))
    if not files:
        raise FileNotFoundError(f"no .ics corpus at {CORPUS}")
    outcome, events, reasons = run_corpus(files)
    corpus_s = median(timed(lambda: run_corpus(files), repeat=repeat))

    events_5k = calendar(5_000)
    after = datetime(2026, 6, 1, 8, tzinfo=ZoneInfo(TZ))
    build_ms = median(timed(lambda: Schedule(events_5k), repeat=20)) * 1000
    schedule = Schedule(events_5k)
    search_ms = (
        median(
            timed(
                lambda: Schedule(events_5k).free_slots(
                    timedelta(minutes=30), after=after, tz=TZ, days=14
                ),
                repeat=20,
            )
        )
        * 1000
    )
    query_ms = (
        median(
            timed(
                lambda: schedule.free_slots(timedelta(minutes=30), after=after, tz=TZ, days=14),
                repeat=50,
            )
        )
        * 1000
    )
    conflict_ms = (
        median(
            timed(
                lambda: schedule.conflicts(after + timedelta(hours=2), after + timedelta(hours=3)),
                repeat=200,
            )
        )
        * 1000
    )
    slots_found = len(schedule.free_slots(timedelta(minutes=30), after=after, tz=TZ, days=14))
    top = "; ".join(f"{n}× {reason}" for reason, n in reasons.most_common(4))
    write_table(
        "ics",
        "Calendar data: .ics corpus import, free slots and conflicts",
        ["measure", "result"],
        [
            ["corpus files", len(files)],
            ["imported", outcome["imported"]],
            ["refused (one-line reason)", outcome["refused"]],
            ["crashed", outcome["crashed"]],
            ["events expanded (window 2000–2030)", events],
            ["single items refused inside imported files", outcome["items refused"]],
            [f"corpus import, total seconds (median of {repeat})", f"{corpus_s:.2f} s"],
            ["index 5,000 events (sort + running max end)", f"{build_ms:.2f} ms"],
            [
                "free-slot search, 5,000 events, 14 days, index build included",
                f"{search_ms:.2f} ms",
            ],
            ["free-slot search on a built index", f"{query_ms:.3f} ms ({slots_found} slots)"],
            ["conflict check, one proposed hour vs 5,000 events", f"{conflict_ms:.3f} ms"],
        ],
        [
            f"Corpus: `../shared/benchmarks/ics/` ({len(files)} files), user zone {TZ}.",
            f"Most frequent refusals: {top}.",
            "Slot figures are medians of 20-200 runs; the 5,000 events are random 15-180 min "
            "meetings over one year, 3 % all-day.",
        ],
    )
    write_table(
        "ics_hostile",
        "Calendar data: hostile .ics files (issue 17), window 30 days back to 365 ahead",
        ["file", "import, median of 3", "tracemalloc peak", "outcome"],
        run_hostile(),
        [
            "Before the budget, the first file grew past 16 GB at 100 % CPU until it was killed "
            "(1.35 GB after 50 s here, still growing). Every import now has 1.5 CPU seconds, a "
            "series 300,000 steps and 1 s, and at most 2,000 occurrences in the window.",
        ],
    )


if __name__ == "__main__":
    main()
