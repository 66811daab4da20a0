"""Where Duckling misreads a plain day and clock, and where the words leave a reading open:
each table has rows the rule must not fire on."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tools.calendar.times import TimeMention, TimeParser

CHICAGO = ZoneInfo("America/Chicago")
NOW = datetime(2026, 3, 4, 10, 0, tzinfo=CHICAGO)  # a Wednesday


@pytest.fixture(scope="module")
def parser() -> TimeParser:
    return TimeParser(tz="America/Chicago", now=NOW)


def _timed(parser: TimeParser, text: str) -> TimeMention:
    [mention] = [m for m in parser.parse(text) if m.kind != "duration" and m.value is not None]
    return mention


def _at(*args: int) -> datetime:
    return datetime(*args, tzinfo=CHICAGO)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        # a range nobody said: Duckling reads yesterday 20:00 to today 13:00
        ("tonight at 8:00 pm", _at(2026, 3, 4, 20), None),
        ("I need a room for tonight at 8:00pm.", _at(2026, 3, 4, 20), None),
        ("this evening at 7:00 pm", _at(2026, 3, 4, 19), None),
        # a holiday found in a common word: Boss's Day is in October
        ("lunch with my boss Friday at 1p.m.", _at(2026, 3, 6, 13), None),
        # must not fire: a range that is said, a holiday that is named
        ("from 8 to 9 tonight", _at(2026, 3, 4, 20), _at(2026, 3, 4, 21)),
        ("brunch on Mother's Day at 11", _at(2026, 5, 10, 11), None),
        ("tonight at 8:30pm", _at(2026, 3, 4, 20, 30), None),
        # must not fire: a start and a length, on one day
        ("tennis friday at 10 for 2 hours", _at(2026, 3, 6, 10), _at(2026, 3, 6, 12)),
        ("tennis on friday at 4 for 2 hours", _at(2026, 3, 6, 16), _at(2026, 3, 6, 18)),
        # a start and a length Duckling reads at another hour (00:00 to 01:00): the length goes
        ("add a call at 10 for 2 hours tomorrow", _at(2026, 3, 5, 10), None),
        # a window read from another hour first (00:00 to 03:00): the reading of the hour
        # written after its opener (times.toml [range_openers])
        ("plumber is coming tuesday between 10 and 2", _at(2026, 3, 10, 10), _at(2026, 3, 10, 14)),
        ("Lieferung am Dienstag zwischen 8 und 12 Uhr", _at(2026, 3, 10, 8), _at(2026, 3, 10, 12)),
        # must not fire: the first reading already starts at the hour written
        ("friday between 2 and 4", _at(2026, 3, 6, 14), _at(2026, 3, 6, 16)),
    ],
)  # fmt: skip
def test_misread_words_are_read_again(
    parser: TimeParser, text: str, start: datetime, end: datetime | None
) -> None:
    mention = _timed(parser, text)
    assert mention.value == start
    assert mention.end_value == end


@pytest.mark.parametrize(
    ("text", "start", "clock"),
    [
        ("Book Club meeting on Sunday at 1600.", _at(2026, 3, 8, 16), True),
        ("create a meeting 0907 tomorrow", _at(2026, 3, 5, 9, 7), True),
        # must not fire: a room number, a year
        ("room 1600 on sunday", None, False),
        ("since 1999 on friday", None, False),
    ],
)  # fmt: skip
def test_a_four_digit_clock_is_a_24_hour_clock(
    parser: TimeParser, text: str, start: datetime | None, clock: bool
) -> None:
    clocks = [m for m in parser.parse(text) if m.has_clock_time and m.kind == "datetime"]
    assert bool(clocks) == clock
    if clock:
        assert clocks[0].value == start
        assert clocks[0].alternatives == ()


@pytest.mark.parametrize(
    ("text", "start", "readings"),
    [
        # a colon dropped in chat: a clock beside a day's word or after "@"
        ("pickup kids @ 315 thu", _at(2026, 3, 5, 15, 15), 1),
        ("standup moved to 945 tmrw", _at(2026, 3, 5, 9, 45), 2),  # am or pm: the gate asks
        # must not fire: a labelled number, a count, a number far from any day
        ("flight 945 tmrw", None, 0),
        ("we had 730 people on friday", None, 0),
        ("order 315 arrived, see you at the office", None, 0),
        # a house number after "at", its street redacted
        ("Viewing on March 10th, 10 am, at 350 <ADDRESS_1>.", _at(2026, 3, 10, 10), 1),
    ],
)  # fmt: skip
def test_a_clock_written_without_its_colon_beside_a_day_is_a_clock(
    parser: TimeParser, text: str, start: datetime | None, readings: int
) -> None:
    clocks = [m for m in parser.parse(text) if m.has_clock_time]
    assert [m.value for m in clocks] == ([start] if start else [])
    assert all(len(m.alternatives) + 1 == readings for m in clocks)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        # the morning's shorthand ("6a") reads the morning; a range's first end keeps its own
        ("gym 6a sat", _at(2026, 3, 7, 6), None),
        ("class 8a-9:15a tue", _at(2026, 3, 10, 8), _at(2026, 3, 10, 9, 15)),
        ("class 10a-1p tue", _at(2026, 3, 10, 10), _at(2026, 3, 10, 13)),
        ("shift 7a-3p sat", _at(2026, 3, 7, 7), _at(2026, 3, 7, 15)),
        # must not fire: "7p" Duckling reads, a zone written with the clocks (read in it)
        ("drinks 7p fri", _at(2026, 3, 6, 19), None),
        ("maintenance Mar 7, 02:00-04:00 UTC", _at(2026, 3, 6, 20), _at(2026, 3, 6, 22)),
    ],
)  # fmt: skip
def test_a_clock_in_shorthand_reads_as_written(
    parser: TimeParser, text: str, start: datetime, end: datetime | None
) -> None:
    mention = _timed(parser, text)
    assert (mention.value, mention.end_value, mention.alternatives) == (start, end, ())


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("7 PM on Tuesday, April", "vague"),  # which Tuesday of April?
        ("a Tuesday in April at 3pm", "vague"),
        # must not fire: the day number is said
        ("Tuesday, April 7th at 3pm", "datetime"),
        ("Friday March 6 at 2pm", "datetime"),
        ("Depart: Tue 08 Dec 2026 11:20", "datetime"),
        # a German ordinal's dot belongs to its day number
        ("Ihr Termin am Dienstag, 10. März 2026, um 10:15 Uhr", "datetime"),
    ],
)
def test_a_weekday_in_a_month_with_no_day_number_names_no_day(
    parser: TimeParser, text: str, kind: str
) -> None:
    assert _timed(parser, text).kind == kind


@pytest.mark.parametrize(
    ("text", "start", "twin"),
    [
        ("tomorrow at 6", _at(2026, 3, 5, 18), _at(2026, 3, 5, 6)),  # the gym or drinks
        ("gym at 6 tomorrow", _at(2026, 3, 5, 18), _at(2026, 3, 5, 6)),
        # must not fire: the words pick the half of the day
        ("drinks at 6 tomorrow", _at(2026, 3, 5, 18), None),
        ("tomorrow at 6am", _at(2026, 3, 5, 6), None),
        ("tomorrow at 5", _at(2026, 3, 5, 17), None),
        # a clinic keeps working hours, whatever the plural or possessive
        ("doctors appointment on thursday at 9", _at(2026, 3, 5, 9), None),
        ("the dentist's on thursday at 9", _at(2026, 3, 5, 9), None),
    ],
)  # fmt: skip
def test_a_bare_hour_is_open_where_both_halves_are_awake(
    parser: TimeParser, text: str, start: datetime, twin: datetime | None
) -> None:
    mention = _timed(parser, text)
    assert mention.value == start
    assert mention.alternatives == ((twin,) if twin else ())


@pytest.mark.parametrize(
    ("text", "source", "kind", "start"),
    [
        # a meal Duckling read with its "from" and a clock, asked for: the start
        ("lunch from 12 tomorrow", "request", "datetime", _at(2026, 3, 5, 12)),
        # must not fire: a "from" Duckling read without an activity ("he's in meetings from
        # 9am"), a bound, a range with its end, someone's window in a thread, a move, a "not"
        ("yoga from 6:30pm on friday", "request", "vague", _at(2026, 3, 6, 18, 30)),
        ("after 5pm tomorrow", "request", "vague", _at(2026, 3, 5, 17)),
        ("before 3pm friday", "request", "vague", _at(2026, 3, 6, 15)),
        ("from 9 to 11 tomorrow", "request", "interval", _at(2026, 3, 5, 9)),
        ("lunch from 12 tomorrow", "thread", "vague", _at(2026, 3, 5, 12)),
        ("the dentist moved from 3pm thursday", "request", "vague", _at(2026, 3, 5, 15)),
        ("add it, but not from 10am tomorrow", "request", "vague", _at(2026, 3, 5, 10)),
        ("anytime from 2pm friday works", "request", "vague", _at(2026, 3, 6, 14)),
    ],
)  # fmt: skip
def test_a_from_with_no_end_is_a_start_only_when_asked_for(
    parser: TimeParser, text: str, source: str, kind: str, start: datetime
) -> None:
    [mention] = parser.parse(text, source=source)
    assert (mention.kind, mention.value) == (kind, start)


@pytest.mark.parametrize(
    ("text", "start"),
    [
        # Duckling's only reading of a bare twelve may be midnight
        ("lunch at 12 tomorrow", _at(2026, 3, 5, 12)),
        ("at 12:30 tomorrow", _at(2026, 3, 5, 12, 30)),
        # must not fire: the words say midnight
        ("tomorrow at 12am", _at(2026, 3, 5, 0)),
        ("midnight on friday", _at(2026, 3, 6, 0)),
        ("tomorrow at 00:30", _at(2026, 3, 5, 0, 30)),
        ("the party tonight at 12", _at(2026, 3, 5, 0)),
        ("on the 12th at 0:30", _at(2026, 3, 12, 0, 30)),
    ],
)  # fmt: skip
def test_a_bare_twelve_is_noon_unless_the_words_say_midnight(
    parser: TimeParser, text: str, start: datetime
) -> None:
    assert _timed(parser, text).value == start


@pytest.mark.parametrize(
    ("text", "shift"),
    [
        # Duckling reads "by 1h" as by one o'clock: after words that move a plan it is a length
        ("can we push it back by 1h?", timedelta(hours=1)),
        ("bring it forward by 2h", timedelta(hours=-2)),
        ("push back by 1 hour", timedelta(hours=1)),
        # must not fire: a deadline, a clock with no move before it
        ("finish it by 5pm", None),
        ("dinner by 8", None),
    ],
)  # fmt: skip
def test_a_move_by_an_amount_is_a_length_not_a_clock(
    parser: TimeParser, text: str, shift: timedelta | None
) -> None:
    [mention] = parser.parse(text)
    assert mention.shift == shift
    assert (mention.kind == "duration") is (shift is not None)


@pytest.mark.parametrize(
    ("text", "clocks"),
    [
        # Duckling's readings that start at another hour than the one written: no clock is
        # trusted, so the turn asks ("9 to 11" was 10:51, "from 10pm to 1am" 00:00 to 01:00)
        ("add meeting tomorrow 9 to 11", []),
        ("launch party tomorrow from 10pm to 1am", []),
        # must not fire: ranges read right
        ("from 8 to 9 tonight", [_at(2026, 3, 4, 20)]),
        ("from 9am to 5pm friday", [_at(2026, 3, 6, 9)]),
    ],
)  # fmt: skip
def test_a_range_read_at_another_hour_is_no_clock(
    parser: TimeParser, text: str, clocks: list[datetime]
) -> None:
    assert [m.value for m in parser.parse(text) if m.has_clock_time] == clocks


def test_a_deadline_is_no_range_read_at_another_hour(parser: TimeParser) -> None:
    [mention] = parser.parse("I need to finish the book by Friday at 5 pm")
    assert mention.value == _at(2026, 3, 6, 17)


@pytest.mark.parametrize(
    ("text", "clocks", "lengths"),
    [
        # "2h" in an English line is two hours, not two o'clock
        ("block 2h tomorrow at 9 for deep work", [_at(2026, 3, 5, 9)], [timedelta(hours=2)]),
        # must not fire: a clock word before it, French, hours with minutes
        ("réunion à 9h demain", [_at(2026, 3, 5, 9)], []),
        ("tomorrow 9h30", [_at(2026, 3, 5, 9, 30)], []),
    ],
)  # fmt: skip
def test_hours_written_with_h_in_english_are_a_length(
    parser: TimeParser, text: str, clocks: list[datetime], lengths: list[timedelta]
) -> None:
    found = parser.parse(text)
    assert [m.value for m in found if m.has_clock_time] == clocks
    assert [m.duration for m in found if m.kind == "duration"] == lengths


# A date and a clock in a zone other than the user's fall on the day it is there: Duckling kept
# the written date while moving the clock ("Dec 15, 9pm UTC" read Dec 15 05:00 in Singapore).
@pytest.mark.parametrize(
    ("text", "tz", "start"),
    [
        ("the call is on Dec 15 at 9pm UTC", "Asia/Singapore", "2026-12-16T05:00:00+08:00"),
        ("call on Dec 15, 21:00 UTC", "Asia/Singapore", "2026-12-16T05:00:00+08:00"),
        ("Wed 9 Dec, 4:00 PM GMT (London)", "Australia/Sydney", "2026-12-10T03:00:00+11:00"),
        ("Dec 15 at 2am UTC", "America/Chicago", "2026-12-14T20:00:00-06:00"),
        # must not fire: the zone's day is the written one
        ("Dec 15 at 3pm EST", "America/New_York", "2026-12-15T15:00:00-05:00"),
        ("Wed 9 Dec at 4pm", "Australia/Sydney", "2026-12-09T16:00:00+11:00"),
    ],
)
def test_a_zones_time_falls_on_its_own_day_here(text: str, tz: str, start: str) -> None:
    now = datetime(2026, 12, 2, 7, 0, tzinfo=ZoneInfo(tz))
    [mention] = [m for m in TimeParser(tz=tz, now=now).parse(text) if m.value is not None]
    assert mention.value.isoformat() == start


# A weekday that does not fall on the date said beside it: the date in this year, and the
# weekday's day beside it, both open (Duckling found "Saturday Dec 13" in 2031).
@pytest.mark.parametrize(
    ("text", "start", "other"),
    [
        ("party Saturday Dec 13 at 8pm", "2026-12-13T20:00:00-06:00", "2026-12-12T20:00:00-06:00"),
        ("Friday the 12th at 3pm", "2026-12-12T15:00:00-06:00", "2026-12-11T15:00:00-06:00"),
        # must not fire: the weekday is the date's
        ("party Saturday Dec 12 at 8pm", "2026-12-12T20:00:00-06:00", None),
    ],
)
def test_a_weekday_that_clashes_with_its_date(text: str, start: str, other: str | None) -> None:
    now = datetime(2026, 12, 2, 7, 0, tzinfo=CHICAGO)
    [mention] = [m for m in TimeParser(tz="America/Chicago", now=now).parse(text) if m.value]
    assert mention.value.isoformat() == start
    assert [o.isoformat() for o in mention.alternatives] == ([other] if other else [])


@pytest.mark.parametrize(
    ("text", "start"),
    [
        # Duckling's Spanish reads "al 4" as "at 4" on the month's first day
        ("Pásalo al 4 de diciembre", _at(2026, 12, 4)),
        ("muévelo al 9 de abril", _at(2026, 4, 9)),
        ("muévelo al 4 de diciembre a las 10", _at(2026, 12, 4, 10)),
        # must not fire: an hour that is said, a first of the month that is said
        ("nos vemos el 1 de diciembre a las 4", _at(2026, 12, 1, 16)),
        ("at 4 on Dec 1", _at(2026, 12, 1, 16)),
        ("quedamos a las 4 de la tarde", _at(2026, 3, 4, 16)),
    ],
)
def test_a_preposition_before_a_day_number_is_no_clock(
    parser: TimeParser, text: str, start: datetime
) -> None:
    assert _timed(parser, text).value == start
