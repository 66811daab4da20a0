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
        "Winter Concert - Tuesday, December 15, 7:00 PM, Auditorium. Students report at 6:15.",
        ["12-15 19:00"],
    ),
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
    # a lead time may stand between the label and its clock
    (
        "Reminder: your cleaning is Thursday 10 Dec at 9:00 AM. Please arrive 15 minutes early, "
        "at 8:45 AM.",
        ["12-10 09:00"],
    ),
    (
        "The wedding is on Saturday 12 Dec, ceremony at 3pm. Shuttle leaves the hotel at 2:15 pm.",
        ["11-25 15:00"],
    ),  # the clock alone; the linker gives it the day
    # a clock listed right after a labelled one shares its label: every time is the shuttle's,
    # so none is a start and the linker asks which
    (
        "Shuttle at 9am and 11am tomorrow, the talk is at 10:30am.",
        ["11-25 10:30"],  # the clock alone; the linker gives it the day
    ),
    ("Doors 6:30, 7 or 7:30, the play starts at 8pm Friday", ["11-27 20:00"]),
    # must not fire: a listed clock that names its own activity, one after a clause of its own
    ("Doors 6:30 and 7pm show on Friday", ["11-25 19:00"]),
    ("Shuttle at 9am, and lunch at 12:30 tomorrow", ["11-26 12:30"]),
    ("Boarding 9:10 and the talk at 11 on Friday", ["11-27 11:00"]),
    # must not fire: the clock a lead time counts back from is the start
    (
        "Doors open 30 min before the 8pm show on Saturday 12 Dec. Bar closes at 11pm.",
        ["11-25 20:00"],  # the clock alone; the linker gives it the day
    ),
    (
        "Your appointment is Thursday 10 Dec. For check-in please come along and arrive 15 min "
        "before your 3:00 PM slot. We close at 5 PM.",
        ["11-25 15:00"],
    ),
    # must not fire: a side time alone, a start with no label, a chat's own plans
    ("Bookings close on Friday 4 December at 12 noon.", ["12-04 12:00"]),
    ("I'll pick up the kids at 3pm and dinner is at 7pm", ["11-25 15:00", "11-25 19:00"]),
    ("We're open late on Friday: the party starts at 8pm", ["11-25 20:00"]),
    ("Dana: I'll pick you up at 7:30 on friday", ["11-27 07:30"]),  # nothing stated before it
    ("The bus leaves at 9am on Saturday", ["11-28 09:00"]),
    # must not fire: an arrival with no sentence break is the journey's end (joined, one start)
    ("Departs 6:50 AM\nArrives 12:55 PM on Monday", ["11-30 06:50"]),
    # must not fire: a sentence under a field label is a message, not the field's value
    ("Deadline: Friday\nTeam, the review is on Monday at 10am.", ["11-30 10:00"]),
]


def _clocks(parser: TimeParser, thread: str, asked: str = "add it") -> list[str]:
    """The clock times a pasted thread states, as "MM-DD HH:MM"."""
    mentions = parser.parse_input(asked, thread)
    return [f"{m.value:%m-%d %H:%M}" for m in mentions if m.has_clock_time and m.value]


@pytest.mark.parametrize(
    ("asked", "expected"),
    [
        # the side time the request names by its label stays beside the start
        ("add packet pickup", ["12-12 08:00", "12-11 16:00"]),
        ("add the pick-up", ["12-12 08:00", "12-11 16:00"]),
        # must not fire: a request that names no label, or another one
        ("add the race", ["12-12 08:00"]),
        ("add the check-in", ["12-12 08:00"]),
        ("add the race, I'll skip packet pickup", ["12-12 08:00"]),  # acts.toml [skip_words]
        ("add the race, not the pickup", ["12-12 08:00"]),
    ],
)
def test_a_side_time_the_request_names_stays(
    parser: TimeParser, asked: str, expected: list[str]
) -> None:
    thread = "Jingle Bell 5K - Sat Dec 12, 8:00 AM start\nPacket pickup: Fri Dec 11, 4-7 PM"
    assert _clocks(parser, thread, asked) == expected


# A number of three or four digits with no clock sign, or any number after a room's or a
# seat's label, is a flight, a room or a table, never a clock; with "at" before it or a clock
# word after it, it is one. Rows after "must not fire" keep the clock.
NUMBER_ROWS = [
    ("Your flight UA 123 on Mon, 14 Dec is confirmed.", []),
    ("Meeting in room 204 on Friday", []),
    ("Table 12 for 4 people on Saturday", []),
    # any number after a room's or a seat's label (times.toml [number_labels])
    ("Meeting confirmed for Friday at 14:00, Room 2.01.", ["11-27 14:00"]),
    ("Friday at 14:00 in Room 3.15 please.", ["11-27 14:00"]),
    ("Gate B22, boarding closes Friday 9:40", ["11-27 09:40"]),
    # must not fire
    ("table for 4 at 8pm", ["11-25 20:00"]),
    ("dinner, table 7 at 8pm", ["11-25 20:00"]),
    ("Jo: come by my desk 9.30 tomorrow", ["11-26 09:30"]),
    ("Tennis: court 6-8pm friday", ["11-27 18:00"]),
    ("Platform 9 10:15 train tomorrow", ["11-25 10:15"]),
    ("lunch at 1230 tomorrow", ["11-26 12:30"]),
    ("Dec 14 2026 at 3pm", ["12-14 15:00"]),
    ("Flight BA 287 on Friday at 14:05", ["11-27 14:05"]),
]


# A listing's day, a dash (or "to") and a clock are one start; a day of the month said after a
# month in the same message is in that month; hours joined by a dash are no date. Rows after
# "must not fire" keep Duckling's reading.
READING_ROWS = [
    ("Tuesday 1/12 - 9:00 am - interview", ["12-01 09:00"]),
    ("Friday - 3pm", ["11-27 15:00"]),
    ("can we move standup tomorrow to 9:30?", ["11-26 09:30"]),
    ("The conference is Jan 14-15, 2027. The keynote is at 9am on the 14th.", ["01-14 09:00"]),
    # must not fire: a range of clocks; the 3rd said before the month is named
    ("Friday 3pm - 5pm", ["11-27 15:00"]),
    ("I'm out tomorrow until 3pm", ["11-26 00:00"]),
    ("Call on the 3rd at 9am. The party is on Jan 5.", ["12-03 09:00"]),
]


# The items of an agenda inside the range its message said before them are no starts; a clock
# said in a sentence, or outside the range, stays one.
AGENDA_ROWS = [
    ("Sprint Planning @ Mon Nov 30 10am - 11:30am\nAgenda:\n10:00 - Backlog\n10:30 - Estimation",
     ["11-30 10:00"]),
    ("Workshop on Dec 9, 1-5pm.\nSchedule: 1:00 intro, 3:30 break, 4:45 wrap-up.", ["12-09 13:00"]),
    # must not fire
    ("Sprint Planning Mon Nov 30 10am - 11:30am. Can we start at 10:30 instead?",
     ["11-30 10:00", "11-25 10:30"]),
    ("Workshop on Dec 9, 1-5pm.\nDrinks: 6:00, at the bar", ["12-09 13:00", "11-25 18:00"]),
    # ... a time picked inside someone's free window
    ("Tom: I'm around Saturday 10am-4pm,\n1pm for lunch?", ["11-28 10:00", "11-25 13:00"]),
]  # fmt: skip


# A deadline (a verb that answers or signs up, then "by" right before the time) is no start
# while the thread states another clock, in the same message or another one.
DEADLINE_ROWS = [
    ("Interview on Thursday at 1:30 PM. Please confirm by Monday at noon.", ["11-26 13:30"]),
    ("Please confirm by replying to this e-mail by Monday 12pm. Interview: Thursday at 1:30 PM",
     ["11-26 13:30"]),
    ("Subject: Vendor demo\nWhen: Thursday 2:00 PM\n\nPlease reply by Monday 9am if you can't come",
     ["11-26 14:00"]),
    ("Bitte bis Montag 12 Uhr bestätigen. Termin: Donnerstag um 14 Uhr", ["11-26 14:00"]),
    # must not fire: a deadline alone; "by" with no answering verb; a verb with no "by"
    ("Please register by Friday 5pm", ["11-27 17:00"]),
    ("we'll be done by 5pm friday, dinner at 7pm", ["11-27 17:00", "11-25 19:00"]),
    ("can you confirm we're meeting thursday at 3pm?", ["11-26 15:00"]),
    # ... a clause of its own between the verb and "by"; "before the 9:30 keynote" is its time
    ("Mom: flight lands friday at 5:40pm\nMom: let me know if you can be at arrivals by 6:15",
     ["11-27 17:40", "11-25 18:15"]),
    ("Please register at the front desk before the 9:30 keynote on Thursday.\nLunch is at 12:30.",
     ["11-26 09:30", "11-25 12:30"]),
]  # fmt: skip


# A move names an old time and a new one: the old one is no start. A day said after "to" takes
# the old clock; a move Duckling read as a range is its new clock; "to next week" says no day.
MOVE_ROWS = [
    ("can we move friday's 2pm review to monday?", ["11-30 14:00"]),
    ("can we move friday's 2pm to 3pm?", ["11-27 15:00"]),
    ("can we move our 1:1 from thursday to friday, same time (3pm)?", ["11-25 15:00"]),
    ("lunch next week at 1pm", []),
    # must not fire: no move verb; a range of a plan; a day of the week named
    ("friday's 2pm review, then monday off", ["11-27 14:00"]),
    ("workshop friday from 2pm to 4pm", ["11-27 14:00"]),
    ("lunch wednesday next week at 1pm", ["12-02 13:00"]),
]


# Every table above is one reading: the clock times a thread states.
TABLES = {"side": ROWS, "number": NUMBER_ROWS, "listing": READING_ROWS, "agenda": AGENDA_ROWS,
          "deadline": DEADLINE_ROWS, "move": MOVE_ROWS}  # fmt: skip


@pytest.mark.parametrize(
    ("thread", "starts"),
    [
        pytest.param(t, s, id=f"{name}-{i}")
        for name, rows in TABLES.items()
        for i, (t, s) in enumerate(rows)
    ],
)
def test_the_clocks_a_thread_states(parser: TimeParser, thread: str, starts: list[str]) -> None:
    assert _clocks(parser, thread) == starts


@pytest.mark.parametrize(
    ("span", "dated"),
    [("10-11:30am", False), ("from 9-11am", False), ("12/8", True), ("10-11", True)],
)
def test_hours_joined_by_a_dash_are_no_date(span: str, dated: bool) -> None:
    from tools.calendar.lang import states_date

    assert states_date(span) is dated
