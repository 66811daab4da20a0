"""Times a notice states beside its start (lang/data/times.toml [side_labels]): no start while
the message states another time; alone, they stay. Rows after "must not fire" keep every time."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tools.calendar.times import TimeParser

TZ = "Europe/London"
NOW = datetime(2026, 11, 25, 10, 0, tzinfo=ZoneInfo(TZ))  # a Wednesday


@pytest.fixture(scope="module")
def parser() -> TimeParser:
    return TimeParser(tz=TZ, now=NOW)


ROWS = [
    # the side times go, the start stays
    (
        "The nativity play is on Thursday 10 December at 2:00pm. Doors open at 1:40pm. "
        "The school office closes at 3:30pm.",
        ["12-10 14:00"],
    ),
    (
        "Your booster is booked on 3 December 2026 at 14:20. Cancel by 2 December at 23:59.",
        ["12-03 14:20"],
    ),
    ("Your flight departs Fri 4 Dec at 17:05. Boarding 16:35. Gate closes 16:45.", ["12-04 17:05"]),
    (
        "Your appointment is at 5:40pm on Tuesday 8 December.\n"
        "Bookings close on Friday 4 December at 12 noon.",
        ["12-08 17:40"],
    ),
    (
        "Confirming our call on Tuesday at 2pm.\nBest, Alex\nOffice hours: Mon–Fri 9am–5:30pm",
        ["12-01 14:00"],
    ),
    (
        "Christmas party: Friday 18 December at 10:00. Pick-up is at 12:30 on this day.",
        ["12-18 10:00"],
    ),
    ("Boarding 16:35, departs 17:05 on Friday", ["11-27 17:05"]),  # the label reaches one time
    # a field label heads the lines written under it: the arrival's day and clock are its value
    (
        "Depart: London Heathrow (LHR), Terminal 4\n  Fri 18 Dec 2026\n  06:25\n"
        "Arrive: Amsterdam Schiphol (AMS)\n  Fri 18 Dec 2026\n  08:50",
        ["11-26 06:25"],  # the clock alone; the linker gives it the day above
    ),
    # a place's opening hours are never a start, even with no other time in the message
    (
        "Your parcel is ready for collection. Please collect by Wednesday 2 December. "
        "Opening hours 9am–5:30pm, Mon–Sat.",
        [],
    ),
    ("Öffnungszeiten: Mo–Fr 9–18 Uhr", []),
    # must not fire: a side time alone, a start with no label, a chat's own plans
    ("Bookings close on Friday 4 December at 12 noon.", ["12-04 12:00"]),
    ("I'll pick up the kids at 3pm and dinner is at 7pm", ["11-25 15:00", "11-25 19:00"]),
    ("We're open late on Friday: the party starts at 8pm", ["11-25 20:00"]),
    # must not fire: a sentence under a field label is a message, not the field's value
    ("Deadline: Friday\nTeam, the review is on Monday at 10am.", ["11-30 10:00"]),
]


@pytest.mark.parametrize(("thread", "starts"), ROWS)
def test_side_times(parser: TimeParser, thread: str, starts: list[str]) -> None:
    mentions = parser.parse_input("add it", thread)
    found = [f"{m.value:%m-%d %H:%M}" for m in mentions if m.has_clock_time and m.value]
    assert found == starts
