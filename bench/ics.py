"""The .ics corpus (imported / refused / crashed, seconds) and slot search on 5,000 events."""

from __future__ import annotations

import logging
import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bench.common import median, timed, write_table
from tools.calendar.event import CalendarEvent
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


if __name__ == "__main__":
    main()
