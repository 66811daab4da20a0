"""Time understanding on real Duckling at a fixed `now`: every case named in issue 4."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tools.calendar.times import TimeMention, TimeParser
from tools.errors import TimeParseError

CHICAGO = ZoneInfo("America/Chicago")
NOW = datetime(2026, 3, 4, 10, 0, tzinfo=CHICAGO)  # Wednesday; US DST starts Sun 2026-03-08


@pytest.fixture(scope="module")
def parser() -> TimeParser:
    return TimeParser(tz="America/Chicago", now=NOW)


def _at(*args: int, tz: ZoneInfo = CHICAGO) -> datetime:
    return datetime(*args, tzinfo=tz)


def _first(mentions: list[TimeMention]) -> TimeMention:
    timed = [m for m in mentions if m.kind != "duration"]
    if not timed:
        raise AssertionError("no time mention")
    return timed[0]


@pytest.mark.parametrize(
    ("text", "value", "clock"),
    [
        ("tmrw at 3", _at(2026, 3, 5, 15), True),  # business hour, Duckling says 03:00
        ("lunch tomorrow at 1", _at(2026, 3, 5, 13), True),
        ("tomorrow at noon", _at(2026, 3, 5, 12), True),
        ("half past four", _at(2026, 3, 4, 16, 30), True),
        ("dinner at 7", _at(2026, 3, 4, 19), True),  # evening word: pm
        ("breakfast at 8 tomorrow", _at(2026, 3, 5, 8), True),
        ("tomorrow at 10", _at(2026, 3, 5, 10), True),
        ("tomorrow at 3am", _at(2026, 3, 5, 3), True),  # stated am stays am
        ("3pm PT", _at(2026, 3, 4, 17), True),  # Duckling has no PT
        ("Friday 10am ET", _at(2026, 3, 6, 9), True),
        ("15:00 CET", _at(2026, 3, 5, 8), True),  # Duckling converts; 08:00 today is past
        ("Thu at 8 GMT", _at(2026, 3, 5, 2), True),  # 8 am as written in GMT
        ("meet at Ipm", _at(2026, 3, 4, 13), True),  # OCR: I for 1
        ("l0am tomorrow", _at(2026, 3, 5, 10), True),  # OCR: l for 1
        ("1O:30 tomorrow", _at(2026, 3, 5, 10, 30), True),  # OCR: O for 0
        ("three pm", _at(2026, 3, 4, 15), True),
        ("evening 7", _at(2026, 3, 4, 19), True),  # chat shorthand, latent in Duckling
        ("Friday at 4 or Saturday morning?", _at(2026, 3, 6, 16), True),  # the other's morning
        ("Friday at 9 or Saturday?", _at(2026, 3, 6, 9), True),
        ("Departure: Sat 7 Mar 2026, 06:45", _at(2026, 3, 7, 6, 45), True),  # zero-led: 24-hour
        ("Sat 7 Mar 2026, 6:45", _at(2026, 3, 7, 18, 45), True),  # open: business hours
        ("today at 9", _at(2026, 3, 4, 21), True),  # 09:00 is past at 10:00: the evening
        ("tomorrow at 9", _at(2026, 3, 5, 9), True),  # both ahead: business hours
        ("2026-04-06", _at(2026, 4, 6), False),
        ("collect by Friday 6 March", _at(2026, 3, 6), False),  # a day's deadline: no midnight
        ("next Tuesday", _at(2026, 3, 10), False),
    ],
)
def test_datetimes(parser: TimeParser, text: str, value: datetime, clock: bool) -> None:
    mention = _first(parser.parse(text))
    assert mention.value == value
    assert mention.value.tzinfo is not None
    assert mention.has_clock_time is clock
    assert mention.all_day is (not clock)


@pytest.mark.parametrize(
    ("text", "start", "end", "all_day"),
    [
        ("Jun 3-5", _at(2026, 6, 3), _at(2026, 6, 6), True),  # day range: midnight after last day
        ("2-3pm", _at(2026, 3, 4, 14), _at(2026, 3, 4, 15), False),  # real end, not 16:00
        ("from 3 to 4:30", _at(2026, 3, 4, 15), _at(2026, 3, 4, 16, 30), False),
        ("from 9 to 11 tomorrow", _at(2026, 3, 5, 9), _at(2026, 3, 5, 11), False),
    ],
)
def test_ranges(
    parser: TimeParser, text: str, start: datetime, end: datetime, all_day: bool
) -> None:
    mention = _first(parser.parse(text))
    assert (mention.kind, mention.value, mention.end_value) == ("interval", start, end)
    assert mention.all_day is all_day
    assert mention.has_clock_time is not all_day


@pytest.mark.parametrize(
    ("text", "vague"),
    [
        ("evening", "evening"),
        ("tomorrow evening", "evening"),
        ("after lunch", "after lunch"),
        ("lunch", "lunch"),
        ("dinner friday", "dinner"),
        ("friday dinner", "dinner"),
        ("sometime next week", "sometime next week"),
        ("soon", "soon"),
        ("this weekend", "weekend"),
        ("next month", "next month"),
        ("after 5pm", "after 5pm"),
        ("Abendessen am Freitag", "dinner"),
    ],
)
def test_vague(parser: TimeParser, text: str, vague: str) -> None:
    mentions = parser.parse(text)
    assert [m.vague for m in mentions] == [vague]
    assert not any(m.has_clock_time or m.all_day for m in mentions)


@pytest.mark.parametrize(
    "text",
    [
        "John 3:16 is my favourite verse",  # a citation, not 03:16
        "a table at 5 people",  # a count
        "room 404 tomorrow",  # only the date is a time
        "on Friday for 3 hours",
        "in 3 days",
        "thanks, see you!",  # no-match row
    ],
)
def test_not_clock_times(parser: TimeParser, text: str) -> None:
    assert not any(m.has_clock_time for m in parser.parse(text))


def test_no_match(parser: TimeParser) -> None:
    assert parser.parse("ok thanks") == []
    assert parser.parse("") == []


@pytest.mark.parametrize(
    ("text", "language", "value"),
    [
        ("Treffen morgen um 15 Uhr", "de", _at(2026, 3, 5, 15)),
        ("On se voit demain à 14h ?", "fr", _at(2026, 3, 5, 14)),
        ("¿Nos vemos mañana a las 4 de la tarde?", "es", _at(2026, 3, 5, 16)),
        ("Vamos jantar amanhã às 19h30?", "pt", _at(2026, 3, 5, 19, 30)),
    ],
)
def test_languages(parser: TimeParser, text: str, language: str, value: datetime) -> None:
    mention = _first(parser.parse(text))
    assert (mention.language, mention.value, mention.has_clock_time) == (language, value, True)


@pytest.mark.parametrize(
    ("tz", "locale", "expected"),
    [
        ("America/Chicago", "en_US", (4, 6)),  # April 6
        ("Europe/Dublin", "en_IE", (6, 4)),  # 4 June
        ("Europe/Berlin", "en_GB", (6, 4)),  # no Duckling locale: day first
    ],
)
def test_numeric_dates_follow_the_zone(tz: str, locale: str, expected: tuple[int, int]) -> None:
    local = TimeParser(tz=tz, now=NOW.astimezone(ZoneInfo(tz)))
    assert local.locale == locale
    for text in ("4/6", "2026-04-06"):
        mention = _first(local.parse(text))
        want = expected if text == "4/6" else (4, 6)
        assert (mention.value.month, mention.value.day) == want


@pytest.mark.parametrize(
    ("now", "text", "value", "other"),
    [
        # "next <weekday>" while that weekday is still ahead this week: this week's or next
        # week's, both stand (the gate asks); Duckling's reading stays first
        (_at(2026, 3, 9, 10), "next tuesday", _at(2026, 3, 17), _at(2026, 3, 10)),  # Monday
        (_at(2026, 3, 9, 10), "next friday at 10", _at(2026, 3, 20, 10), _at(2026, 3, 13, 10)),
        (_at(2026, 3, 9, 10), "el viernes que viene a las 10", _at(2026, 3, 20, 10),
         _at(2026, 3, 13, 10)),
        # the coming one is already next week's: one reading, whatever Duckling said
        (_at(2026, 3, 4, 10), "next tuesday", _at(2026, 3, 10), None),  # said on Wednesday
        (_at(2026, 3, 6, 10), "next tuesday", _at(2026, 3, 10), None),  # said on Friday
        (_at(2026, 3, 4, 10), "el martes que viene a las 10", _at(2026, 3, 10, 10), None),
        # must not fire: a plain weekday, "this", the week said, a date said
        (_at(2026, 3, 9, 10), "tuesday", _at(2026, 3, 10), None),
        (_at(2026, 3, 9, 10), "this tuesday", _at(2026, 3, 10), None),
        (_at(2026, 3, 9, 10), "tuesday next week", _at(2026, 3, 17), None),
        (_at(2026, 3, 9, 10), "next friday the 20th", _at(2026, 3, 20), None),
    ],
)  # fmt: skip
def test_next_weekday_has_two_readings_while_it_is_ahead_this_week(
    now: datetime, text: str, value: datetime, other: datetime | None
) -> None:
    mention = _first(TimeParser(tz="America/Chicago", now=now).parse(text))
    assert mention.value == value
    assert mention.alternatives == ((other,) if other else ())


@pytest.mark.parametrize(
    ("tz", "now", "text", "utc_offset_hours", "hour"),
    [
        ("America/Chicago", _at(2026, 3, 7, 12), "tomorrow at 3pm", -5, 15),  # spring forward
        ("America/Chicago", _at(2026, 10, 31, 12), "tomorrow at 3pm", -6, 15),  # fall back
        (
            "Europe/Berlin",
            datetime(2026, 3, 28, 12, tzinfo=ZoneInfo("Europe/Berlin")),
            "tomorrow at 9",
            2,
            9,
        ),  # fmt: skip
    ],
)
def test_dst(tz: str, now: datetime, text: str, utc_offset_hours: int, hour: int) -> None:
    mention = _first(TimeParser(tz=tz, now=now).parse(text))
    assert mention.value.hour == hour
    assert mention.value.utcoffset().total_seconds() == utc_offset_hours * 3600


def test_thread_anchors_relative_dates_at_the_message_stamp(parser: TimeParser) -> None:
    thread = "[Mon 23:50] tom: lunch tomorrow at 1\n[Tue 08:10] me: ok, works\n"
    mentions = parser.parse_input("add it", thread=thread)
    assert [(m.text, m.value, m.source) for m in mentions] == [
        ("lunch tomorrow at 1", _at(2026, 3, 3, 13), "thread")  # Tuesday, not Thursday
    ]
    assert thread[mentions[0].start : mentions[0].end] == "lunch tomorrow at 1"


@pytest.mark.parametrize(
    "thread",
    [
        "[10:02] Priya: hi",
        "12/03/26, 10:02 - Priya: are you there?",
        "From: Ann <ann@example.org>\nTo: me <me@example.org>\nSent: Tue 3:14 PM\n\nhi",
    ],
)
def test_stamps_are_never_mentions(parser: TimeParser, thread: str) -> None:
    assert parser.parse_input("", thread=thread) == []


@pytest.mark.parametrize(
    ("stamp", "sent"),
    [
        ("Mon 23:50", _at(2026, 3, 2, 23, 50)),
        ("Tue 3:14 PM", _at(2026, 3, 3, 15, 14)),
        ("10:30", _at(2026, 3, 3, 10, 30)),  # later than now, beyond a clock skew: yesterday
        ("09:15", _at(2026, 3, 4, 9, 15)),
        ("Yesterday 10:02", _at(2026, 3, 3, 10, 2)),
        # WhatsApp from a day-first phone in a month-first zone: April 3 would be the future
        ("04/03/26, 09:15", _at(2026, 3, 4, 9, 15)),
        ("03/04/26, 09:15", _at(2026, 3, 4, 9, 15)),  # month-first and in the past: as read
        ("02/03/26, 18:20", _at(2026, 2, 3, 18, 20)),  # both readings past: the locale's stands
        # ... unless it is months old and the other is this month's: a paste is recent
        ("[01/03/2026, 19:02]", _at(2026, 3, 1, 19, 2)),
        ("[03/01/2026, 19:02]", _at(2026, 3, 1, 19, 2)),
        ("[12/02/2026, 19:02]", _at(2026, 2, 12, 19, 2)),
        # A quote header in the mail client's language (English read "3 ago" as some other day).
        ("lun, 2 mar 2026 a las 18:20", _at(2026, 3, 2, 18, 20)),
        ("Mo., 2. März 2026 um 18:20", _at(2026, 3, 2, 18, 20)),
        ("lun. 2 mars 2026 à 18:20", _at(2026, 3, 2, 18, 20)),
        ("seg., 2 de mar. de 2026 às 18:20", _at(2026, 3, 2, 18, 20)),
    ],
)
def test_stamp_time(parser: TimeParser, stamp: str, sent: datetime) -> None:
    assert parser.stamp_time(stamp) == sent


def test_email_subject_is_parsed_and_sent_header_anchors_the_body(parser: TimeParser) -> None:
    thread = (
        "From: Ann <ann@example.org>\nTo: me <me@example.org>\nSent: Mon 9:00 AM\n"
        "Subject: planning\n\nCan we meet tomorrow at 2?\n"
    )
    mentions = parser.parse_input("", thread=thread)
    assert [(m.value, m.has_clock_time) for m in mentions] == [(_at(2026, 3, 3, 14), True)]


def test_a_quoted_message_anchors_at_its_own_language_header(parser: TimeParser) -> None:
    thread = (
        "¿Podemos pasarla a las 16:30?\n\nEl lun, 2 mar 2026 a las 18:20, escribiste:\n"
        "> Te confirmo la entrevista para mañana a las 15:00.\n"
    )
    mentions = parser.parse_input("", thread=thread)
    assert [m.value for m in mentions] == [_at(2026, 3, 4, 16, 30), _at(2026, 3, 3, 15)]


def test_ocr_source_and_other_language_thread(parser: TimeParser) -> None:
    mentions = parser.parse_input("", ocr="[Tue 18:00] Ana: Treffen morgen um 15 Uhr?")
    assert [(m.value, m.language, m.source) for m in mentions] == [
        (_at(2026, 3, 4, 15), "de", "ocr")
    ]


def test_duration(parser: TimeParser) -> None:
    durations = [m for m in parser.parse("a call for 90 minutes") if m.kind == "duration"]
    assert [d.duration.total_seconds() for d in durations if d.duration] == [5400]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tz": "Mars/Olympus", "now": NOW}, "Unknown time zone"),
        ({"tz": "UTC", "now": datetime(2026, 3, 4)}, "has no zone"),
        ({"tz": "UTC", "now": NOW, "locale": "english"}, "Locale"),
    ],
)
def test_bad_setup(kwargs: dict, message: str) -> None:
    with pytest.raises(TimeParseError, match=message):
        TimeParser(**kwargs)


LOS_ANGELES = ZoneInfo("America/Los_Angeles")
SGD_NOW = datetime(2019, 3, 1, 9, 0, tzinfo=LOS_ANGELES)  # US DST starts Sun 2019-03-10 02:00


@pytest.mark.parametrize(
    ("now", "text", "value"),
    [
        # Duckling gave the clock with the offset before the change (08:45-08:00 = 09:45 PDT).
        (SGD_NOW, "March 10th at 8:45 am", _at(2019, 3, 10, 8, 45, tz=LOS_ANGELES)),
        (SGD_NOW, "on March 10th from 8:45 to 10", _at(2019, 3, 10, 8, 45, tz=LOS_ANGELES)),
        (SGD_NOW, "March 10 at 2:30am", _at(2019, 3, 10, 3, 30, tz=LOS_ANGELES)),  # in the gap
        (
            _at(2019, 3, 10, 0, 30, tz=LOS_ANGELES),
            "at 4am",
            _at(2019, 3, 10, 4, tz=LOS_ANGELES),
        ),  # fmt: skip
        (
            _at(2019, 3, 10, 0, 30, tz=LOS_ANGELES),
            "in 3 hours",
            _at(2019, 3, 10, 4, 30, tz=LOS_ANGELES),
        ),  # an offset from now is an instant: three real hours
        (
            datetime(2019, 3, 25, 9, tzinfo=ZoneInfo("Europe/Berlin")),
            "am 31. März um 9 Uhr",
            datetime(2019, 3, 31, 9, tzinfo=ZoneInfo("Europe/Berlin")),
        ),  # fmt: skip
    ],
)
def test_wall_time_is_kept_on_a_dst_change_day(now: datetime, text: str, value: datetime) -> None:
    mention = _first(TimeParser(tz=str(now.tzinfo), now=now).parse(text))
    assert mention.value == value
    assert mention.value.utcoffset() == value.utcoffset()


@pytest.fixture(scope="module")
def sgd_parser() -> TimeParser:
    return TimeParser(tz="America/Los_Angeles", now=SGD_NOW)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "30 in the evening" (the minutes of 5:30) was read as the evening of 2030.
        ("Its 5:30 in the evening", [("5:30", _at(2019, 3, 1, 17, 30, tz=LOS_ANGELES))]),
        ("at 5:30 in the evening", [("at 5:30", _at(2019, 3, 1, 17, 30, tz=LOS_ANGELES))]),
        # A bare number is no year: "in 620" is a street number, not the year 620.
        ("on March 7th in 620", [("on March 7th", _at(2019, 3, 7, tz=LOS_ANGELES))]),
        ("Friday the 8th in 12", [("Friday the 8th", _at(2019, 3, 8, tz=LOS_ANGELES))]),
        ("14th April 15 at 9am", [("14th April 15 at 9am", _at(2015, 4, 14, 9, tz=LOS_ANGELES))]),
        # A year written in full stays one.
        ("March 7th 2020 at 3pm", [("March 7th 2020 at 3pm", _at(2020, 3, 7, 15, tz=LOS_ANGELES))]),
        ("3/4/20", [("3/4/20", _at(2020, 3, 4, tz=LOS_ANGELES))]),
        ("John 3:16 is my favourite verse", []),  # no-match row: still a citation
    ],
)
def test_numbers_inside_other_numbers_are_no_times(
    sgd_parser: TimeParser, text: str, expected: list[tuple[str, datetime]]
) -> None:
    mentions = [m for m in sgd_parser.parse(text) if m.value is not None]
    assert [(m.text, m.value) for m in mentions] == expected


@pytest.mark.parametrize(
    ("text", "day"),
    [
        # an approximation word and a meal say no day: Duckling's "today" is its own default
        ("email Karthik about lunch", None),
        ("around dinner", None),
        # a day word, or a word that means today, still dates it
        ("about lunch tomorrow", "2026-03-05"),
        ("tonight", "2026-03-04"),
        ("this evening", "2026-03-04"),
    ],
)
def test_an_approximate_meal_names_no_day(parser: TimeParser, text: str, day: str | None) -> None:
    [mention] = [m for m in parser.parse(text) if m.kind == "vague"]
    assert (mention.value.date().isoformat() if mention.value else None) == day


@pytest.mark.parametrize(
    ("text", "hour"),
    [
        # a bare hour that changes, offers or accepts a time (times.toml [bare_hour_*])
        ("I'd prefer 10 if possible", 10),
        ("could we do 10?", 10),
        ("actually make it 4", 16),
        ("6 works", 18),
        ("10 is impossible for me", 10),
        ("wait 6 would be better, 5 i have a call", 18),
        ("hmm let's keep 11", 11),
        ("ok 11", 11),
        ("np 6", 18),
        # must not fire: counts, pages, a number doing something else
        ("table for 7 people", None),
        ("she does 10 pushups a day", None),
        ("chapter 9 is long", None),
        ("ok 2 things to sort first", None),  # a yes and a count, not a yes and an hour
        ("I have 2 better ideas", None),
        ("keep 2 seats for us", None),
    ],
)
def test_bare_hours_said_as_times(parser: TimeParser, text: str, hour: int | None) -> None:
    clocks = [m for m in parser.parse(text) if m.has_clock_time]
    assert [m.value.hour for m in clocks] == ([hour] if hour is not None else [])


@pytest.mark.parametrize(
    ("text", "open_"),
    [
        ("today at 9", False),  # 09:00 has passed (now is 10:00): only 21:00 is left
        # must not fire: a clock alone may go with a day said elsewhere, where both are ahead
        ("at 9", True),
        ("ok 9 then", True),
    ],
)
def test_a_past_reading_is_dropped_only_for_a_day_said_with_it(
    parser: TimeParser, text: str, open_: bool
) -> None:
    [mention] = [m for m in parser.parse(text) if m.has_clock_time]
    assert bool(mention.alternatives) is open_


@pytest.mark.parametrize(
    ("stamp", "sent"),
    [
        ("10:05 AM", NOW),  # minutes ahead of this clock: another device's, just now
        ("Today at 10:20 AM", NOW),  # "today" is never another day
        ("Today at 9:00 AM", _at(2026, 3, 4, 9)),
        # must not fire: far ahead is yesterday's
        ("10:30 AM", _at(2026, 3, 3, 10, 30)),
    ],
)
def test_a_stamp_a_little_ahead_of_the_clock_is_now(
    parser: TimeParser, stamp: str, sent: datetime
) -> None:
    assert parser.stamp_time(stamp) == sent


# A duration said as a move carries its signed amount (times.toml [shift_*]); one said as a
# length, or followed by another clause, does not.
@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("can we do 30 min later?", 30),
        ("could we push it back an hour?", 60),
        ("push the review back 15 minutes", 15),
        ("can we bring it forward by 30 minutes?", -30),  # no year 2030 in "by 30"
        ("move it up 15 min", -15),
        ("half an hour earlier?", -30),
        ("eine Stunde früher?", -60),
        ("can we push it 30 min?", 30),
        ("oops can we push it a day?", 1440),
        ("push the board meeting back a day", 1440),  # what is moved, three words
        ("bring the team sync forward 30 minutes", -30),
        # must not fire
        ("it takes 30 min, later I have gym", None),
        ("push through the 30 min workout", None),
        ("the meeting lasts 2 hours", None),
        ("the move back took an hour", None),
        ("30 min later than the others we arrived", None),
    ],
)
def test_a_move_by_an_amount(parser: TimeParser, text: str, minutes: int | None) -> None:
    durations = [m for m in parser.parse(text) if m.kind == "duration"]
    assert durations, "no duration read"
    shift = durations[0].shift
    assert (None if shift is None else shift.total_seconds() / 60) == minutes


# A numeric day with dots is day.month ("4.12.", "04.12.2026"); "7.30" and "6.45" are clocks.
@pytest.mark.parametrize(
    ("span", "dated"),
    [
        ("4.12.", True),
        ("04.12.2026", True),
        ("12/03", True),
        ("2026-12-01", True),
        ("fri 8", True),
        # must not
        ("7.30", False),
        ("6.45pm", False),
        ("at 9.30", False),
        ("at 4", False),
    ],
)
def test_which_spans_name_their_day(span: str, dated: bool) -> None:
    from tools.calendar.lang import states_date

    assert states_date(span) is dated


# A weekday and a bare number with no clock on the line: the hour when no such day of the
# month is near ("Monday 10": no Monday the 10th within two months), am or pm as a bare hour's
# words decide; unclear when such a day is near
# ("Friday 3": the 3rd of April is a Friday, or 3 o'clock). NOW is Wednesday 2026-03-04.
@pytest.mark.parametrize(
    ("text", "kind", "value", "others"),
    [
        ("they offered Monday 10", "datetime", _at(2026, 3, 9, 10), []),
        ("Tuesday 4 fine", "datetime", _at(2026, 3, 10, 16), []),
        ("Monday 8?", "datetime", _at(2026, 3, 9, 8), [_at(2026, 3, 9, 20)]),  # 8 is open
        ("drinks Monday 8?", "datetime", _at(2026, 3, 9, 20), []),  # drinks: evening
        ("pizza night Friday 7?", "datetime", _at(2026, 3, 6, 19), []),
        ("Thursday 15?", "datetime", _at(2026, 3, 5, 15), []),
        ("Tuesday 14?", "vague", None, []),  # Tuesday the 14th of April, or 2pm
        # must not read an hour
        ("bowling Friday 3?", "vague", None, []),
        ("see you Monday 13th", "date", _at(2026, 4, 13), []),
        ("Monday 10 at 2pm", "vague", None, []),  # the clock is said: 10 is a day, not near
    ],
)
def test_a_weekday_and_a_bare_number(
    parser: TimeParser, text: str, kind: str, value: datetime | None, others: list[datetime]
) -> None:
    mention = _first(parser.parse(text))
    assert mention.kind == kind
    if value is not None:
        assert mention.value == value
        assert list(mention.alternatives) == others


# A weekday with words after it that put it in the coming week, as chat spells them
# (times.toml [week_after]). NOW is Wednesday 2026-03-04.
@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("lunch fri nxt wk @ 1?", "03-13"),
        ("call tues next wk", "03-10"),
        ("Dienstag nächste Woche um 10", "03-10"),
        # must not fire
        ("drinks fri nxt wknd?", "03-06"),
        ("call fri. nxt wk is busy", "03-06"),
    ],
)
def test_a_weekday_in_the_coming_week(parser: TimeParser, text: str, day: str) -> None:
    mention = [m for m in parser.parse(text) if m.value is not None][0]
    assert f"{mention.value:%m-%d}" == day


# A season names no day: no all-day event from "Spring" (a range of weeks said with no number).
@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Spring Pottery (8 weeks) starts in January", "vague"),
        ("this summer", "vague"),
        # must not: a range with its days said
        ("Dec 14-16", "interval"),
        ("from March 10 to April 20", "interval"),
    ],
)
def test_a_season_is_no_date_range(parser: TimeParser, text: str, kind: str) -> None:
    assert _first(parser.parse(text)).kind == kind


def test_a_list_of_times_is_read_one_by_one(parser: TimeParser) -> None:
    """Duckling also reads across a list's commas ("5 Mar 11:00, Fri 6 Mar" in another year)."""
    found = parser.parse("Could you do Thu 5 Mar 11:00, Fri 6 Mar 15:00 or Mon 9 Mar 09:30?")
    assert [f"{m.value:%m-%d %H:%M}" for m in found] == [
        "03-05 11:00",
        "03-06 15:00",
        "03-09 09:30",
    ]


# A weekday said on that weekday: today, or a week on; "today" or a date says which.
# NOW is Wednesday 2026-03-04 10:00.
@pytest.mark.parametrize(
    ("text", "others"),
    [
        ("Wednesday at 2pm works", [_at(2026, 3, 11, 14)]),
        # must not fire
        ("Thursday at 2pm works", []),
        ("today at 2pm works", []),
        ("Wednesday March 11 at 2pm", []),
    ],
)
def test_todays_weekday_could_be_next_week(
    parser: TimeParser, text: str, others: list[datetime]
) -> None:
    assert list(_first(parser.parse(text)).alternatives) == others


def test_a_zone_in_parentheses_after_a_range_is_the_whole_ranges() -> None:
    """Duckling applied "(PST)" to "1pm - 2pm"'s end only: the start came out 8 hours early."""
    london = TimeParser(
        tz="Europe/London", now=datetime(2026, 11, 25, 10, tzinfo=ZoneInfo("Europe/London"))
    )
    [mention] = london.parse("Roadmap review @ Thu Dec 3, 2026 1pm - 2pm (PST)")
    assert (mention.value.hour, mention.end_value.hour) == (21, 22)


# A 24-hour clock in a zone Duckling reads is at the hour written there: Duckling took "10:00
# SGT" for 22:00 there when 10:00 fell outside the user's day. A clock with am/pm, or a
# single-digit hour, keeps Duckling's reading.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("standup tomorrow at 10:00 SGT?", "12-02 21:00"),
        ("call tomorrow at 10:00 JST?", "12-02 20:00"),
        ("team call Friday at 10:00 SAST?", "12-04 03:00"),
        # must not fire
        ("call friday at 15:00 CET", "12-04 09:00"),
        ("call friday at 3pm PST", "12-04 18:00"),
        ("call tomorrow at 10pm SGT", "12-03 09:00"),
        ("Call with Tokyo on Friday 10:00 PM JST", "12-04 08:00"),
    ],
)
def test_a_24_hour_clock_in_another_zone_is_as_written(text: str, expected: str) -> None:
    new_york = TimeParser(tz="America/New_York", now=datetime(2026, 12, 2, 7, tzinfo=ZoneInfo(
        "America/New_York")))  # fmt: skip
    assert f"{_first(new_york.parse(text)).value:%m-%d %H:%M}" == expected


# Codes glued of letters and digits are no times and no years ("in 30C1" was read as 2030, a
# flight "BA0117 at 11:20" as 13:17); "9h30" and "2nd" are no codes.
@pytest.mark.parametrize(
    ("text", "clock"),
    [
        ("rescheduled to Thursday, March 5 at 10:00 am in 30C1.", "03-05 10:00"),
        ("flight BA0117 at 11:20", "03-04 11:20"),
        ("Q3 review friday at 2pm", "03-06 14:00"),
        ("our 1:1 friday at 2pm", "03-06 14:00"),
        # must not blank
        ("mardi à 9h30", "03-10 09:30"),
        ("meet 2nd of april at 3pm", "04-02 15:00"),
    ],
)
def test_codes_are_no_times(parser: TimeParser, text: str, clock: str) -> None:
    assert f"{_first(parser.parse(text)).value:%m-%d %H:%M}" == clock


# A bare hour left open between morning and evening takes the half the request's plan or the
# thread's own answer says; with neither, or both, it stays open.
@pytest.mark.parametrize(
    ("request_text", "thread", "hour", "open_"),
    [
        ("add the dinner", "Tom: Dinner this week?\nTom: Fri it is. Lucali at 8? I'll book\n"
         "Tom: Booked for 8:15", 20, False),
        ("add breakfast", "Ana: breakfast tomorrow? at 7?\nMe: ok", 7, False),
        ("add the call", "Sis: call mom thursday around 8\nMe: am or pm lol\nSis: pm obviously", 20,
         False),
        # the thread alone, or the request alone, says the meal of the plan
        ("add this to my calendar", "Tomasz: dinner at Lupa friday?\nEllie: yes!! what time\n"
         "Tomasz: 7:30?\nEllie: perfect, I'll book", 19, False),
        ("add the dinner", "Tom: Fri it is. Lucali at 8? I'll book", 20, False),
        # must not fire: no meal, a meal thanked for (last night's), a bar or a party, "Am so
        # in!", both halves said
        ("add it", "Ana: thanks for dinner! can you drop the kids at school tomorrow at 8?",
         None, True),
        ("add it", "Tom: Fri it is. Lucali at 8? I'll book", None, True),
        ("add the bar mitzvah", "Rabbi: services begin at 9:30 on Saturday", None, True),
        ("add it", "Sam: poker thursday at 8?\nMe: Am so in!", None, True),
        ("add the dinner", "Sam: dinner's off, let's grab coffee Sat at 8:30 instead", None, True),
        ("add breakfast and dinner", "Ana: tomorrow at 7?\nMe: ok", None, True),
        ("add the call", "Sis: call mom thursday around 8\nMe: am or pm?", None, True),
        ("add it", "Ana: tomorrow at 7?\nMe: I am late, sorry", None, True),
    ],
)  # fmt: skip
def test_the_half_of_day_a_request_or_answer_says(
    parser: TimeParser, request_text: str, thread: str, hour: int | None, open_: bool
) -> None:
    [clock] = [
        m for m in parser.parse_input(request_text, thread)
        if m.source == "thread" and m.value is not None and (m.has_clock_time or m.alternatives)
    ][-1:]  # fmt: skip
    assert bool(clock.alternatives) == open_
    if hour is not None:
        assert clock.value.hour == hour


# A weekday on a line that states that weekday's date is that date; another weekday is not.
@pytest.mark.parametrize(
    ("thread", "start"),
    [
        ("Jan 22: Dr. Imani Brooks, \"Sparse Models\", Friday, 3:30pm, Hadley Hall 204",
         "2027-01-22 15:30"),
        ("Dec 12 (Sat) - Wreath sales, Saturday 9am", "2026-12-12 09:00"),
        # must not fire: the line's date is another weekday's
        ("Jan 21: slides due; the talk is Friday, 3:30pm", "2026-03-06 15:30"),
    ],
)  # fmt: skip
def test_a_weekday_takes_the_date_its_line_states(
    parser: TimeParser, thread: str, start: str
) -> None:
    [clock] = [m for m in parser.parse_input("add it", thread) if m.has_clock_time]
    assert clock.value.strftime("%Y-%m-%d %H:%M") == start


def test_another_reading_is_never_the_value_itself() -> None:
    """ "Tue Dec 8 - 10am" once asked "10:00 or 10:00?": a mention keeps only other starts."""
    ten = datetime(2026, 12, 8, 10, 0, tzinfo=ZoneInfo("America/New_York"))
    ten_pm = ten.replace(hour=22)
    mention = TimeMention(
        text="Tue Dec 8 - 10am", start=0, end=16, kind="datetime", value=ten, end_value=None,
        has_clock_time=True, all_day=False, vague=None, language="en", source="thread",
        alternatives=(ten, ten_pm, ten_pm),
    )  # fmt: skip
    assert mention.alternatives == (ten_pm,)


@pytest.mark.parametrize(
    ("text", "days"),
    [
        # clocks offered as options, the day said once: they share it (NOW is a Wednesday)
        ("There's a 7pm and a 9:30pm on friday. Which?", ["03-06", "03-06"]),
        ("7pm or 9pm on friday?", ["03-06", "03-06"]),
        ("friday 7pm or 9pm?", ["03-06", "03-06"]),
        ("samedi 19h ou 21h ?", ["03-07", "03-07"]),
        # must not fire: another plan between them, two days said, no joiner
        ("lunch at 1pm and dinner friday at 7pm", ["03-04", "03-06"]),
        ("thursday 7pm or friday 9pm?", ["03-05", "03-06"]),
        ("the 1pm slot is gone, friday at 5pm?", ["03-04", "03-06"]),
    ],
)
def test_a_day_said_once_holds_for_the_clocks_offered_with_it(
    parser: TimeParser, text: str, days: list[str]
) -> None:
    clocks = [m for m in parser.parse(text) if m.has_clock_time]
    assert [f"{m.value:%m-%d}" for m in clocks] == days


@pytest.mark.parametrize(
    ("text", "clocks"),
    [
        # an evening word of another clause with its own time leaves a clock as it is: the
        # landing is in the morning, and the meal takes its own hours
        ("flight lands 10:45, dinner 8-10 tonight?", ["10:45", "20:00"]),
        ("dinner at 8 tonight, flight lands 10:45", ["20:00", "10:45"]),
        ("flight arrives at 10:45. dinner at 8 tonight?", ["10:45", "20:00"]),
        # ... or a day of its own, or a clock further on in its clause
        ("I'm free tonight! coffee tomorrow at 10:15?", ["10:15"]),
        ("meeting at 10:30, then dinner tonight at 8?", ["10:30", "20:00"]),
        # must not fire: the evening word in the clock's own clause, or past a break with no
        # time of its own beyond it
        ("drinks at 10:45 tonight", ["22:45"]),
        ("dinner at 8, tonight?", ["20:00"]),
        ("tonight, at 9:30", ["21:30"]),
        ("Dinner! tomorrow at 8?", ["20:00"]),
        ("Dinner on Dec 12. See you at 8!", ["20:00"]),
    ],
)
def test_a_clocks_half_of_day_comes_from_its_own_clause(
    parser: TimeParser, text: str, clocks: list[str]
) -> None:
    said = sorted((m for m in parser.parse(text) if m.has_clock_time), key=lambda m: m.start)
    assert [f"{m.value:%H:%M}" for m in said] == clocks


@pytest.mark.parametrize(
    ("text", "clock"),
    [
        # minutes before an hour, in digits: a quarter, twenty or twenty-five alone; five or
        # ten after a clock's preposition or an "about"
        ("meet 20 to 8 tonight at the bar", "19:40"),
        ("25 to 12 tomorrow", "11:35"),
        ("15 to 9 tomorrow morning", "08:45"),
        ("20 to 8pm tomorrow", "19:40"),
        ("at 10 to 8 tonight", "19:50"),
        ("around 5 to 3 tomorrow", "14:55"),
        # must not fire: a range, a range's opener, a count, a unit
        ("5 to 10 tonight", "17:00"),
        ("from 20 to 8 tomorrow", "20:00"),
        ("drinks 20 to 8 people tonight", None),
        ("the drive is 20 to 25 minutes tomorrow", None),
    ],
)
def test_minutes_before_an_hour_in_digits(parser: TimeParser, text: str, clock: str | None) -> None:
    said = [m for m in parser.parse(text) if m.has_clock_time]
    assert [f"{m.value:%H:%M}" for m in said] == ([clock] if clock else [])


@pytest.mark.parametrize(
    ("text", "hour"),
    [
        ("shift that to 8", 8),
        ("move that to 2 please", 14),
        ("rück das auf 3 bitte", 15),
        ("move it to room 2", None),
        ("move it to table 5", None),  # a noun's number
        ("mueve la comida a la mesa 5", None),
        ("can we move it, I have 3 meetings", None),
    ],
)
def test_a_bare_hour_is_a_time_only_in_a_text_read_as_a_change(text: str, hour: int | None) -> None:
    """Duckling reads a lone "8" only latently; a request the act model read as changing a time
    (`changes`) makes it the new time, whatever the verb. Without that reading it is no time,
    and a number that belongs to something else ("room 2") never is one."""
    parser = TimeParser(
        tz="Europe/Berlin", now=datetime(2026, 11, 23, 9, 0, tzinfo=ZoneInfo("Europe/Berlin"))
    )
    changed = [m for m in parser.parse(text, changes=True) if m.has_clock_time]
    assert [m.value.hour for m in changed] == ([hour] if hour is not None else [])
    assert all(m.answers for m in changed)
    assert not [m for m in parser.parse(text) if m.has_clock_time]


@pytest.mark.parametrize(
    ("text", "language", "hour"),
    [
        ("9 Uhr ist mir zu früh", "de", 9),  # German "is", once read as India's IST (04:30)
        ("le rendez-vous est à 9h", "fr", 9),  # French "is", once read as US Eastern
        ("um 9 Uhr IST", "de", 4),  # in capitals it is the zone: 09:00 IST is 04:30 in Berlin
    ],
)
def test_a_word_that_looks_like_a_zone_is_a_word_in_lower_case(
    text: str, language: str, hour: int
) -> None:
    berlin = ZoneInfo("Europe/Berlin")
    local = TimeParser(tz="Europe/Berlin", now=datetime(2026, 11, 23, 8, 0, tzinfo=berlin))
    found = [m for m in local.parse(text, language=language) if m.has_clock_time]
    assert [m.value.astimezone(berlin).hour for m in found] == [hour]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text", ["yes! ok now what time?", "si! a che ora?", "¿y ahora a qué hora?"]
)
def test_the_moment_a_thread_line_was_written_is_no_time_of_it(
    parser: TimeParser, text: str
) -> None:
    """ "now" (and Italian "a che ora?", which Duckling reads as "ora") in a pasted message is
    when it was written: no plan's time, and no day for a clock said after it ("padel
    thursday?" - "ok now what time?" - "18:30?" is Thursday's 18:30)."""
    assert not parser.parse(text, source="thread")
    assert parser.parse("can you call me now?", source="request")  # the user's own word stays


@pytest.mark.parametrize(
    ("tz", "text"),
    [
        ("America/Santiago", "el jueves a las 6 de la tarde"),
        ("America/Santiago", "a las 6 de la tarde"),  # too short to detect: the zone's language
        ("America/Sao_Paulo", "às 6 da tarde"),
        ("Europe/Rome", "domani alle 6 del pomeriggio"),
        ("Europe/Berlin", "morgen um 6 am Nachmittag"),
        ("America/Chicago", "tomorrow at 6 in the afternoon"),
    ],
)
def test_an_afternoon_word_puts_a_bare_hour_after_noon(tz: str, text: str) -> None:
    parser = TimeParser(tz=tz, now=datetime(2027, 1, 18, 10, 0, tzinfo=ZoneInfo(tz)))
    [mention] = parser.parse(text)
    assert mention.value is not None and mention.value.hour == 18 and not mention.alternatives


@pytest.mark.parametrize(
    "text",
    ["at 7 tomorrow morning, then afternoon golf", "school run at 7 tomorrow, afternoon free"],
)
def test_an_afternoon_said_for_another_plan_leaves_the_hour(text: str) -> None:
    parser = TimeParser(
        tz="Europe/Berlin", now=datetime(2027, 1, 18, 10, tzinfo=ZoneInfo("Europe/Berlin"))
    )
    first = parser.parse(text)[0]
    assert first.value is not None and first.value.hour == 7


def test_a_two_letter_word_read_in_the_zones_language_is_no_time() -> None:
    """English in Berlin is also read as German (a short line's language is often not
    detected), where "do" is Thursday: "can we do 3?" is 3 o'clock, never Thursday."""
    berlin = TimeParser(
        tz="Europe/Berlin", now=datetime(2026, 11, 24, 10, tzinfo=ZoneInfo("Europe/Berlin"))
    )
    assert all(m.grain != "day" for m in berlin.parse("can we do 3?"))
    assert not berlin.parse("what do you know about the Okafors?")


@pytest.mark.parametrize("tz", ["Europe/Berlin", "Europe/Paris", "Europe/Rome", "America/Toronto"])
def test_a_meal_and_a_clock_stay_english_in_any_zone(tz: str) -> None:
    """The zone's language replaces an English reading only where it reads all of it and more:
    German "dinner" is no time beside English "at 8", French "mer 3" not "3pm"."""
    parser = TimeParser(tz=tz, now=datetime(2027, 2, 8, 8, tzinfo=ZoneInfo(tz)))
    [dinner] = [m for m in parser.parse("dinner at 8") if m.value is not None]
    assert dinner.value.astimezone(ZoneInfo(tz)).strftime("%d %H:%M") == "08 20:00"
    assert all(m.language == "en" for m in parser.parse("mer 3pm?"))
    for said in ("drinks with Anna, let's do 18:30", "family dim sum 10:30"):  # "Do", "dim"
        assert all(m.language == "en" and m.grain != "day" for m in parser.parse(said))


@pytest.mark.parametrize(
    ("text", "hour"),
    [
        ("thursday at 3:15 at night", 3),
        ("giovedì alle 3:15 di notte", 3),
        ("Donnerstag um 3 in der Nacht", 3),
        ("jeudi à 3h de la nuit", 3),
        ("jueves a las 2 de la noche", 2),
        ("thursday at 11 at night", 23),  # late evening, not the small hours
        ("giovedì alle 10 di notte", 22),
        ("thursday at 3", 15),  # no night words: the business hour
    ],
)
def test_night_words_put_a_small_hour_after_midnight(
    parser: TimeParser, text: str, hour: int
) -> None:
    [first, *_] = [m for m in parser.parse(text) if m.has_clock_time]
    assert first.value is not None and first.value.hour == hour


@pytest.mark.parametrize(
    "text", ["thursday 9h30 - 11h00", "thursday 9h30-11h00", "jeudi 9h30 - 11h00"]
)
def test_a_range_of_clocks_written_with_h_starts_at_its_first(
    parser: TimeParser, text: str
) -> None:
    """ "9h30 - 11h00" (French-style clocks): the hour written first is 9, not the 30 of its
    minutes, so the range is trusted and starts at 9:30."""
    [mention] = [m for m in parser.parse(text) if m.has_clock_time]
    assert mention.value is not None and (mention.value.hour, mention.value.minute) == (9, 30)
