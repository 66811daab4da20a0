"""Two clock times that are one start and its end become one range mention (lang/data/times.toml).

Each row: text, then the (start, end) pairs of the interval mentions, as "HH:MM" on their own
day. Rows after "must not fire" keep their clock times as separate starts (or Duckling's own
interval, unchanged).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tools.calendar import lang
from tools.calendar.times import TimeParser

TZ = "America/New_York"
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo(TZ))  # a Tuesday


@pytest.fixture(scope="module")
def parser() -> TimeParser:
    return TimeParser(tz=TZ, now=NOW)


RANGE_ROWS = [
    # fires: a connector between, or an end label before the second time
    ("standup Thursday 13:30–14:15", [("11-26 13:30", "11-26 14:15")]),
    ("volunteering saturday 8am–4pm", [("11-28 08:00", "11-28 16:00")]),
    ("workshop friday 10:00 — 11:30", [("11-27 10:00", "11-27 11:30")]),
    ("doors 7pm, ends 11pm", [("11-24 19:00", "11-24 23:00")]),
    ("Departs 6:50 AM\nArrives 9:05 AM", [("11-25 06:50", "11-25 09:05")]),
    ("Freitag 18:00 bis 20:00", [("11-27 18:00", "11-27 20:00")]),
    ("standup moved to Thursday 13:30–14:15", [("11-26 13:30", "11-26 14:15")]),
    ("the night shift friday 22:00 - 02:00", [("11-27 22:00", "11-28 02:00")]),
    # a bare hour, a typographic dash, a time with am/pm
    ("Saturday 5 December, 2–4pm at Jump Zone", [("12-05 14:00", "12-05 16:00")]),
    ("coffee morning friday 10–11:30am", [("11-27 10:00", "11-27 11:30")]),
    # an arrow, also between a departure and an arrival with the places on the way
    ("sync 9:00 -> 10:30 tomorrow", [("11-25 09:00", "11-25 10:30")]),
    (
        "London Euston 08:43 → Manchester Piccadilly 10:51, Monday 7 December 2026",
        [("12-07 08:43", "12-07 10:51")],
    ),
    # an end label joined to the start in one sentence, a preposition before its clock; a
    # start with an afternoon end is the morning's
    ("we start at 9 and end at 3", [("11-25 09:00", "11-25 15:00")]),
    ("buses leave at 8:15 and return by 2:30", [("11-25 08:15", "11-25 14:30")]),
    # a stated day, then two bare hours joined by a dash: a start later than its end is the
    # morning's, one from 1 to 6 the afternoon's
    ("team offsite dec 10 9-5", [("12-10 09:00", "12-10 17:00")]),
    ("yard sale Dec 12, 8-1", [("12-12 08:00", "12-12 13:00")]),
    ("open day saturday 2-4", [("11-28 14:00", "11-28 16:00")]),
    ("dinner sat 7-9pm", [("11-28 19:00", "11-28 21:00")]),
    ("shift 12/12 from 9-12", [("12-12 09:00", "12-12 12:00")]),
    # ... or the evening's, with an evening's word, past midnight too
    ("karaoke fri 10-12", [("11-27 22:00", "11-28 00:00")]),
    ("party sat 9-1", [("11-28 21:00", "11-29 01:00")]),
    ("open house sat 10-2", [("11-28 10:00", "11-28 14:00")]),
    # a journey: the places between its departure and arrival, an end label before the arrival's
    # place, a ticket's date glued ("15DEC")
    (
        "Departs New York Penn 7:05 AM\nArrives Washington Union Station 10:00 AM",
        [("11-25 07:05", "11-25 10:00")],
    ),
    (
        "Departs Boston South Station 8:10 AM, arrives New York Penn 11:52 AM, Thursday Dec 17",
        [("12-17 08:10", "12-17 11:52")],
    ),
    ("6:00 AM  LGA  →  7:35 AM  ORD", [("11-25 06:00", "11-25 07:35")]),
    ("Ferry: Dover 10:35 → Calais 13:05, Sat 19 Dec", [("12-19 10:35", "12-19 13:05")]),
    ("BA 117 LHR 11:30 → JFK 14:25 15DEC", [("12-15 11:30", "12-15 14:25")]),
    ("New York (JFK) 6:30 PM → London (LHR) 6:40 AM (+1 day)", [("11-24 18:30", "11-25 06:40")]),
    # two clocks joined wherever the day is said: after them, or nowhere; a half of the day
    # written at the end holds for a start before it, an evening's word for both
    ("game is 7-9 tonight", [("11-24 19:00", "11-24 21:00")]),
    ("call 4-4:30 friday", [("11-27 16:00", "11-27 16:30")]),
    ("brunch 11 to 1pm tomorrow", [("11-25 11:00", "11-25 13:00")]),
    ("9 to 11 tomorrow", [("11-25 09:00", "11-25 11:00")]),
    ("open house 10 to 2 tomorrow", [("11-25 10:00", "11-25 14:00")]),
    ("meeting 10:00-14:00 friday", [("11-27 10:00", "11-27 14:00")]),
    ("7 till 9 tonight", [("11-24 19:00", "11-24 21:00")]),
    ("yoga 6:30-7:30 tomorrow morning?", [("11-25 06:30", "11-25 07:30")]),  # a morning's word
    # two bare hours, then a weekday: a date that meets the weekday only years away is hours
    ("drinks 5-7 friday", [("11-27 17:00", "11-27 19:00")]),
    ("review call 3-4 thursday?", [("11-26 15:00", "11-26 16:00")]),
    # a meal's hours, the day after them
    ("lunch 12-2 friday", [("11-27 12:00", "11-27 14:00")]),
    ("dinner 7-9 saturday", [("11-28 19:00", "11-28 21:00")]),
    ("after lunch 2-3 friday for the 1:1?", [("11-27 14:00", "11-27 15:00")]),
    # ... and another item's clock after it
    (
        "split it: Monday 4-5 and Wednesday 4-5",
        [("11-30 16:00", "11-30 17:00"), ("11-25 16:00", "11-25 17:00")],
    ),
    # a side time later in the sentence leaves the range a range
    ("the talk is from 2 to 3 tomorrow but doors open at 1:30", [("11-25 14:00", "11-25 15:00")]),
    # a zone after the pair holds for both clocks (Duckling's reading, with the zone)
    ("webinar friday 2-3pm PT", [("11-27 17:00", "11-27 18:00")]),
    ("call friday 9-10am Tokyo time", [("11-26 19:00", "11-26 20:00")]),
    # over midnight, with the day before the start
    ("saturday 8pm to 1am", [("11-28 20:00", "11-29 01:00")]),
    ("Fri 22:00-02:00", [("11-27 22:00", "11-28 02:00")]),
    # must not fire
    ("can we push it 7 to 8 tonight", []),  # an old clock and a new one
    ("can we push it from 7 to 8 tonight", []),  # ... read as the new clock alone
    ("on 12-2 at 3pm", []),  # a date, and its clock
    ("lunch 12-8 at noon", []),  # ... after a meal too
    ("Interview: Tue Dec 8 - 10am", []),  # a day's number, then its clock
    ("8pm until 1am Saturday", []),  # Friday night or Saturday night: open
    ("tickets are 10-20 tonight", []),  # a price
    ("kids 5-8 friday at 4pm", []),  # ages
    ("pages 10-12 friday", []),
    ("12-4 friday", []),  # 4 December is a Friday: a date
    ("the 11-2 monday outage report is attached", []),  # a past date, told of: a recap
    # 1 November and 7 November were a Sunday and a Saturday: those dates, past
    ("brunch 11-1 sunday", [("11-01 11:00", "11-01 13:00")]),
    ("can you cover the shift 11-7 saturday?", []),
    ("the vote was 7-2 friday", []),  # a vote
    ("store hours are 10-6 on saturday", []),  # a shop's hours
    ("we're in room 4-2 tomorrow", []),  # a place's number
    ("el partido terminó 3 a 2 esta noche", []),  # a score: "a" joins hours after "de" only
    ("we won 4-2 tonight lol", []),
    ("20 to 8 tonight", []),  # twenty to eight
    ("Thursday 3pm → Friday 9am", []),
    ("Lunch 12:00 – Dinner 19:00", []),
    ("9:00 - Registration\n9:30 - Keynote", []),
    ("I'm free 11-12", []),
    ("the score was 3-2 on saturday", []),
    ("kids camp dec 28 5-8 year olds", []),
    ("the shop is open tmrw 10-6", []),
    ("dinner at 7 and then drinks at 9", []),
    ("we start at 9 and the room is free at 3", []),
    ("order #4 – 4pm delivery", []),
    ("Thursday 3pm or 4pm", []),
    ("lunch at 1pm. At 3pm I have a call", []),
    ("the standup moved from Thursday 13:30–14:15", []),
    ("Monday 3pm - Tuesday 9am", [("11-30 15:00", "12-01 09:00")]),  # Duckling's, untouched
    ("call at 2pm, then dinner at 7pm", []),
]


@pytest.mark.parametrize(("text", "ranges"), RANGE_ROWS)
def test_ranges(parser: TimeParser, text: str, ranges: list[tuple[str, str]]) -> None:
    found = [
        (f"{m.value:%m-%d %H:%M}", f"{m.end_value:%m-%d %H:%M}")
        for m in parser.parse_input(text)
        if m.kind == "interval" and m.has_clock_time and m.value and m.end_value
    ]
    assert found == ranges


def test_hours_after_a_day_that_may_be_either_half_keep_both(parser: TimeParser) -> None:
    """ "meetup sat 7-10" may be the morning's or the evening's: the gate asks ("party sat 7-10"
    is the evening's)."""
    (party,) = parser.parse_input("meetup sat 7-10")
    assert (f"{party.value:%H:%M}", f"{party.end_value:%H:%M}") == ("07:00", "10:00")
    assert [f"{a:%H:%M}" for a in party.alternatives] == ["19:00"]


def test_a_range_in_a_thread_message_spans_its_lines(parser: TimeParser) -> None:
    thread = "Ana: flight booked!\nMon, Dec 7\nDeparts 6:50 AM\nArrives 9:05 AM\nMe: great"
    mentions = parser.parse_input("add it", thread)
    clocks = [m for m in mentions if m.has_clock_time]
    assert [(m.kind, f"{m.value:%H:%M}", f"{m.end_value:%H:%M}") for m in clocks] == [
        ("interval", "06:50", "09:05")
    ]
    assert thread[clocks[0].start : clocks[0].end] == clocks[0].text


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        # the month and year said once, at the end, hold for the first day too
        ("Konferenz vom 14.–16. Mai 2027", "2027-05-14", "2027-05-16"),
        ("Konferenz vom 14. bis 16. Mai 2027", "2027-05-14", "2027-05-16"),
        ("offsite 14–16 September", "2027-09-14", "2027-09-16"),
        ("Sep 14-16, 2027", "2027-09-14", "2027-09-16"),
    ],
)  # fmt: skip
def test_a_range_of_days_names_its_month_once(
    parser: TimeParser, text: str, first: str, last: str
) -> None:
    [mention] = parser.parse(text)
    assert mention.kind == "interval" and mention.all_day
    assert mention.value.date().isoformat() == first
    assert (mention.end_value.date() - timedelta(days=1)).isoformat() == last


@pytest.mark.parametrize(
    "text",
    [
        "dinner 16 September at 8",  # one day and a time
        "version 2.1 - 16 May",  # a number with a dot is no first day
        "order #4 – 16 May delivery",  # a numbered thing is no first day
    ],
)
def test_what_is_no_range_of_days(parser: TimeParser, text: str) -> None:
    assert not any(m.kind == "interval" and m.all_day for m in parser.parse(text))


# Numbers a label, a count, a score or a version holds: no clock Duckling read in them stands.
# The rows after "must not fire" keep their clock.
NO_CLOCK_ROWS = [
    ("we're in room 4-2 tomorrow", False),
    ("el partido terminó 3 a 2 esta noche", False),
    ("we won 4-2 tomorrow", False),
    ("soccer for ages 9-11 friday", False),
    ("the vote was 7-2 friday", False),
    # a version or a section: a dot, minutes off the five-minute steps, no clock word before
    ("python 3.11 to 3.12 migration friday", False),
    ("section 4.17 friday", False),
    # "one" as a pronoun ("the morning one"), never one o'clock
    ("I prefer the morning one", False),
    ("that one works for me", False),
    # must not fire
    ("the one o'clock meeting friday", True),
    ("lunch at one tomorrow", True),
    ("train at 10.51 tomorrow", True),
    ("meet 7.30 tonight", True),
    ("drinks 8-10 tonight", True),
    ("reunión mañana de 9 a 11", True),
    ("open house saturday 9-1", True),
    ("kids 5-8 friday at 4pm", True),  # the ages go; the clock after them stays
    ("I'm on 7 to 3 friday", True),  # a shift: no score is said with "to"
]


@pytest.mark.parametrize(("text", "clock"), NO_CLOCK_ROWS)
def test_numbers_that_hold_no_clock(parser: TimeParser, text: str, clock: bool) -> None:
    assert any(m.has_clock_time for m in parser.parse_input(text)) is clock


# A dashed pair Duckling took for a month and day months away (or past), with the words after
# it saying their own day and clock: the pair names a shop or counts. A near date stands.
FAR_PAIR_ROWS = [
    ("meet at the 7-11 tonight at 8", ["11-24 20:00"]),
    ("team of 5-6 tonight at 7", ["11-24 19:00"]),
    ("party of 4-6 tomorrow at 8pm", ["11-25 20:00"]),
    ("nos vemos en el 7-11 esta noche a las 8", ["11-24 20:00"]),  # no "el 7" left over
    # must not fire
    ("12-4 friday at 3", ["12-04 15:00"]),  # 4 December is a Friday
    ("on 12-2 at 3pm", ["12-02 15:00"]),  # no day of its own after the pair
    ("the tournament is 4-10 saturday at 8am", ["04-10 08:00"]),  # a Saturday: a real date
]


@pytest.mark.parametrize(("text", "starts"), FAR_PAIR_ROWS)
def test_a_far_date_yields_to_the_day_said_after_it(
    parser: TimeParser, text: str, starts: list[str]
) -> None:
    found = [f"{m.value:%m-%d %H:%M}" for m in parser.parse_input(text) if m.has_clock_time]
    assert found == starts


# A weekday is a whole name or a short one of the table (times.toml [weekdays] and
# [weekday_abbreviations]); a word that only begins like one is none ("lunch 12-8 at noon" was
# read as hours after a Monday, "lun").
@pytest.mark.parametrize(
    ("word", "day"),
    [
        ("Monday", True), ("Thurs", True), ("Mo", True), ("lun.", True), ("sábado", True),
        ("terça-feira", True), ("qua", True), ("miérc.", True), ("Sonnabend", True),
        # must not fire
        ("lunch", False), ("venue", False), ("doing", False), ("some", False), ("sunny", False),
        ("market", False), ("friend", False), ("quarter", False),
    ],
)  # fmt: skip
def test_what_is_a_weekday(word: str, day: bool) -> None:
    assert bool(lang.STAMP_WEEKDAY_RE.search(word)) is day


# A bare hour right before an option's joiner and another clock is a clock on that day too.
@pytest.mark.parametrize(
    ("text", "starts"),
    [
        ("10 or 2 tomorrow?", ["11-25 10:00", "11-25 14:00"]),
        ("10 ou 14h demain ?", ["11-25 10:00", "11-25 14:00"]),
        # must not fire
        ("2 or 3 people tomorrow at 7", ["11-25 07:00"]),  # a count
        ("$10 or 2 tomorrow", ["11-25 14:00"]),  # a price
    ],
)
def test_a_bare_hour_offered_before_another_clock(
    parser: TimeParser, text: str, starts: list[str]
) -> None:
    found = [f"{m.value:%m-%d %H:%M}" for m in parser.parse_input(text) if m.has_clock_time]
    assert found == starts


@pytest.mark.parametrize(
    ("text", "other"),
    [
        # five or ten "to" an hour, as a range, may also be minutes before its end's hour
        ("10 till 4 friday for the dentist?", "15:50"),
        ("drinks 5 to 10 tonight", "21:55"),
        ("10 to 1 tomorrow", "12:50"),
        # must not fire: a range's opener, a few hours on one half of the clock, another
        # number of minutes, a clock written out
        ("from 10 to 4 friday", None),
        ("brunch 10 to 12 sunday", None),
        ("party 7 to 11 saturday", None),
        ("10 to 4pm friday", None),
    ],
)
def test_five_or_ten_to_an_hour_leaves_minutes_before_it_open(
    parser: TimeParser, text: str, other: str | None
) -> None:
    (said,) = [m for m in parser.parse(text) if m.kind == "interval"]
    minutes = [f"{a:%H:%M}" for a in said.alternatives if a.minute]
    assert minutes == ([other] if other else [])
