"""Times as people write them in threads, at a fixed `now` (Wednesday 25 November 2026, London).

A time said with a zone is read in that zone: a zone word ("PT"), any place of the zone
database followed by "time" ("Tokyo time", "India time"), a UTC offset, or the zone of whoever
said it ("my time" from a contact whose label names a city); a zone nobody names makes the gate
ask. Numbers that are no start (a party's size, an offset, an hour pair) stay out; a weekday
with its day of the month, and a move's new day, are the day. Each table has rows that must
not fire.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from lang.thread import is_self, messages, speaker_note
from lang.zones import zone_for_place
from tools.calendar.gate import check_start, which_one
from tools.calendar.times import USER, Speaker, TimeParser

LONDON = ZoneInfo("Europe/London")
NOW = datetime(2026, 11, 25, 10, 0, tzinfo=LONDON)  # a Wednesday


@pytest.fixture(scope="module")
def parser() -> TimeParser:
    return TimeParser(tz="Europe/London", now=NOW)


def _at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute, tzinfo=LONDON)


def _monday(hour: int) -> datetime:
    return datetime(2026, 11, 30, hour, tzinfo=LONDON)


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("call friday 9am Tokyo time", _at(27, 0)),
        ("Friday 2pm Sydney time", _at(27, 3)),
        ("thursday 10am India time", _at(26, 4, 30)),  # a country with one zone
        ("friday 10am (New York time)", _at(27, 15)),
        ("friday 3pm PT", _at(27, 23)),
        ("friday 3pm in Berlin", _at(27, 14)),
        ("friday noon Pacific", _at(27, 20)),
        ("friday 11am Mumbai time", _at(27, 5, 30)),  # a city the database files under Kolkata
        # a zone by its long name, as invites write it; "Central" alone is the US one
        ("friday 10:00 Central European Time", _at(27, 9)),
        ("Friday 27 Nov 2026 - 15:30 - 16:30 (Central European Time - Berlin)", _at(27, 14, 30)),
        ("friday 9am Central", _at(27, 15)),
        # another language's "X time", the place after the word; accents do not count
        ("el viernes a las 10:00 (hora de Ciudad de México)", _at(27, 16)),
        ("vendredi à 15h (heure de New York)", _at(27, 20)),
        ("friday 9am Bogotá time", _at(27, 14)),
        # must not fire: no place, a lower-case abbreviation, French "et"
        ("friday 3pm the latest time", _at(27, 15)),
        ("friday 3pm pt", _at(27, 15)),
        ("friday 4pm your time", _at(27, 16)),  # said to the user: the user's own zone
        ("friday 6:30pm (Tokyo local time)", _at(27, 9, 30)),
        ("el viernes a las 10:00 (hora de llegada)", _at(27, 10)),  # "arrival time": no place
    ],
)
def test_a_zone_said_after_a_time_converts_it(
    parser: TimeParser, text: str, start: datetime
) -> None:
    said = [m for m in parser.parse(text, speaker=Speaker(is_user=False)) if m.has_clock_time]
    assert [m.value for m in said] == [start]
    assert not said[0].zone_unsaid


def test_french_et_between_two_hours_is_no_zone(parser: TimeParser) -> None:
    said = [m for m in parser.parse("vendredi 19h ou 20h") if m.has_clock_time]
    assert said and all(m.value.hour in (19, 20) for m in said)


@pytest.mark.parametrize(
    ("speaker", "text", "start", "unsaid"),
    [
        (USER, "monday 9am my time", _monday(9), False),
        (Speaker(False, "Asia/Tokyo"), "monday 9am my time", _monday(0), False),
        (Speaker(False, None), "monday 9am my time", _monday(9), True),
        (Speaker(False, None), "lundi 9h mon heure", _monday(9), True),
        (USER, "friday 4pm your time", _at(27, 16), True),  # the other side's zone
        (Speaker(False, None), "friday 4pm your time", _at(27, 16), False),
    ],
)  # fmt: skip
def test_my_time_is_the_speakers_zone(
    parser: TimeParser, speaker: Speaker, text: str, start: datetime, unsaid: bool
) -> None:
    said = [m for m in parser.parse(text, speaker=speaker) if m.has_clock_time]
    assert [(m.value, m.zone_unsaid) for m in said] == [(start, unsaid)]


def test_a_label_note_names_the_speakers_zone(parser: TimeParser) -> None:
    thread = "Aiko (Tokyo): Let's talk Monday 9am my time\nMe: ok that works"
    found = messages(thread)
    assert [m.speaker for m in found] == ["Aiko", "Me"]
    assert [speaker_note(thread, m) for m in found] == ["Tokyo", None]
    assert is_self("Me") and is_self(" moi ") and not is_self("Aiko") and not is_self(None)
    said = [m for m in parser.parse_input("", thread) if m.has_clock_time]
    assert [m.value for m in said] == [datetime(2026, 11, 30, 0, tzinfo=LONDON)]


@pytest.mark.parametrize(
    ("label", "start"),
    [
        ("Aiko (Tokyo)", datetime(2026, 11, 30, 2, tzinfo=LONDON)),
        # a place among other words of the note: "(NYC office)", "(Bangalore team)"
        ("Jordan Blake (NYC office)", datetime(2026, 11, 30, 16, tzinfo=LONDON)),
        ("Priya (Bangalore team)", datetime(2026, 11, 30, 5, 30, tzinfo=LONDON)),
        # must not fire: a note naming no place, or two places, names no zone
        ("Sam (marketing)", None),
        ("Sam (NYC or Tokyo)", None),
    ],
)
def test_a_place_in_a_label_note_names_the_speakers_zone(
    parser: TimeParser, label: str, start: datetime | None
) -> None:
    said = [m for m in parser.parse_input("", f"{label}: Monday 11am my time?") if m.has_clock_time]
    assert [m.value if not m.zone_unsaid else None for m in said] == [start]


@pytest.mark.parametrize(
    ("thread", "unsaid"),
    [
        # someone who says they are in another zone gives a time with no zone: theirs or ours?
        ("Mike: I'm in Chicago all this week, let's talk Thursday at 4\nMe: 4 works", [True]),
        ("Aiko (Tokyo): Let's talk Monday at 9?\nMe: ok", [True]),
        ("Mike: I'm in Chicago all week\nMike: Thursday at 4?", [True]),  # said before
        # a zone named by what keeps it, not where (times.toml [zone_unnamed])
        ("Sam: we running it thursday 9pm server time?", [True]),
        ("Sam: call at 10am office time", [True]),
        # must not fire: the user's own zone, no place, a zone said with the time
        ("Mike: I'm in London all this week, let's talk Thursday at 4", [False]),
        ("Mike: I'm in a meeting, let's talk Thursday at 4", [False]),
        ("Mike: thursday 3pm at the latest, same time as last week", [False]),
        ("Mike: I'm in Chicago all this week, let's talk Thursday at 10am your time", [False]),
        ("Me: I'm in Chicago this week, let's talk Thursday at 4", [False]),
    ],
)
def test_a_speaker_in_another_zone_leaves_the_zone_unsaid(
    parser: TimeParser, thread: str, unsaid: list[bool]
) -> None:
    said = [m for m in parser.parse_input("", thread) if m.has_clock_time]
    assert [m.zone_unsaid for m in said][: len(unsaid)] == unsaid


@pytest.mark.parametrize(
    ("thread", "hours"),
    [
        # a message that gives the zone of all its times ("all times in this email are IST")
        ("Priya: Let's meet Friday at 4pm.\nPriya Sharma | all times in this email are IST",
         [10]),
        ("Ana: all times are CET. Dinner fri at 8pm?", [19]),
        # ... or a calendar invitation's "Time zone:" line, with the zone's IANA name
        ("Team lunch\nFriday, December 4 · 12:00 – 1:00pm\nTime zone: America/Los_Angeles", [20]),
        # must not: another message's times, a zone the time names itself
        ("Ana: all times are CET.\nMe: dinner fri at 8pm?", [20]),
        ("Ana: all times are CET. Dinner fri at 8pm UK time?", [20]),
    ],
)  # fmt: skip
def test_a_message_can_give_the_zone_of_its_times(
    parser: TimeParser, thread: str, hours: list[int]
) -> None:
    said = [m for m in parser.parse_input("", thread) if m.has_clock_time]
    assert [m.value.hour for m in said] == hours


@pytest.mark.parametrize(
    ("ticket", "unsaid"),
    [
        # "All times are local" on a ticket from another zone: which zone, nothing says
        ("BA0178 New York JFK -> London Heathrow\nDepart: Fri 11 Dec 2026 19:30\n"
         "All times are local to the airport.", True),
        # must not: a trip within the user's zone, or no such words
        ("LNER London Kings Cross -> Edinburgh\nDepart: Tue 08 Dec 2026 11:00\n"
         "All times are local.", False),
        ("BA0178 New York JFK -> London Heathrow\nDepart: Fri 11 Dec 2026 19:30", False),
    ],
)  # fmt: skip
def test_times_local_to_another_zone_leave_the_zone_unsaid(
    parser: TimeParser, ticket: str, unsaid: bool
) -> None:
    said = [m for m in parser.parse_input("", ticket) if m.has_clock_time]
    assert said and said[0].zone_unsaid is unsaid


def test_the_gate_asks_for_a_zone_nobody_names(parser: TimeParser) -> None:
    thread = "Aiko: Let's talk Monday 9am my time\nMe: ok that works"
    mentions = parser.parse_input("", thread)
    decision = check_start(
        _monday(9), all_day=False, mentions=mentions, tz="Europe/London", now=NOW
    )
    assert not decision.allowed
    assert which_one("Talk", decision.reason) == (
        "Which time zone is 'Monday 9am my time' in, for Talk?"
    )


@pytest.mark.parametrize(
    ("name", "zone"),
    [
        ("Tokyo", "Asia/Tokyo"),
        ("new  york", "America/New_York"),
        ("Japan", "Asia/Tokyo"),
        ("São Paulo", "America/Sao_Paulo"),
        # must not fire: people, words, countries of several zones
        ("Dan", None),
        ("the latest", None),
        ("United States", None),
    ],
)
def test_places_come_from_the_zone_database(name: str, zone: str | None) -> None:
    assert zone_for_place(name) == zone


def test_the_zone_database_has_the_tables_the_places_need() -> None:
    from lang.zones import zoneinfo_dir

    assert (Path(zoneinfo_dir()) / "iso3166.tab").exists()


@pytest.mark.parametrize(
    ("text", "start"),
    [
        # an offset as Outlook and people write it
        ("When: Friday, November 27, 2026 2:00 PM-3:00 PM (UTC-05:00) Eastern Time", _at(27, 19)),
        ("call friday at 3pm GMT-5", _at(27, 20)),
        ("call friday 9am UTC+05:30", _at(27, 3, 30)),
        # must not fire: an offset of no zone Veil knows stays as written; a plain clock
        ("call friday at 3pm", _at(27, 15)),
    ],
)
def test_a_utc_offset_after_a_time_converts_it(
    parser: TimeParser, text: str, start: datetime
) -> None:
    said = [m for m in parser.parse(text) if m.has_clock_time]
    assert [m.value for m in said] == [start]


@pytest.mark.parametrize(
    ("text", "clocks", "dates"),
    [
        ("table for 4 at 7:15 on friday", ["07:15"], []),  # a party's size, then its time
        ("tomorrow? I'm free 11-12 or after 3", [], ["11-26"]),  # hours, not 11 December
        # must not fire: a date word before the pair, a real count-free time
        ("see you on 11-12 at 3pm", ["15:00"], []),
        ("book it for 4 tomorrow", ["16:00"], []),
    ],
)
def test_numbers_that_are_no_time(
    parser: TimeParser, text: str, clocks: list[str], dates: list[str]
) -> None:
    found = parser.parse(text)
    assert [f"{m.value:%H:%M}" for m in found if m.has_clock_time] == clocks
    assert [f"{m.value:%m-%d}" for m in found if m.kind == "date"] == dates


@pytest.mark.parametrize(
    ("text", "day"),
    [
        # a weekday and its day of the month, which Duckling drops or reads as a year
        ("xmas dinner fri 18 at 7:30pm?", "12-18"),
        ("party sat 12 at 8pm?", "12-12"),
        ("sat 28 at 2pm", "11-28"),
        # a move names its new day
        ("Sports Day has been postponed from Friday 4 December to Friday 11 December.", "12-11"),
        ("club night moves from Tuesday to Thursday, 6.30pm", "11-26"),
        # a weekday right before a clock Duckling read without it ("sun" is no day to it)
        ("brunch sun 11:30?", "11-29"),
        # must not fire: an hour after the weekday, a month after the number, no clock elsewhere
        ("Montag 18 Uhr", "11-30"),
        ("sat 12 dec at 8pm", "12-12"),
        ("the fair runs from Friday 4 December to Sunday 6 December", "12-04"),
    ],
)
def test_the_day_a_message_names(parser: TimeParser, text: str, day: str) -> None:
    dated = [m for m in parser.parse(text) if m.value is not None and m.kind != "vague"]
    assert f"{dated[0].value:%m-%d}" == day


def test_a_weekday_and_a_day_number_that_never_meet_leave_the_day_open(
    parser: TimeParser,
) -> None:
    found = parser.parse("fri 13 at 8pm")  # no Friday the 13th in the next two months
    assert [m.kind for m in found if "13" in m.text] == ["vague"]
    # Saturday the 12th of December, or Saturday at noon: neither day nor hour is sure
    assert [m.kind for m in parser.parse("sat 12?")] == ["vague"]


@pytest.mark.parametrize(
    ("text", "unsaid"),
    [
        ("Departs Sat 19 Dec 2026 18:30 (JFK local time)", True),  # a place Veil cannot place
        ("Departs Sat 19 Dec 2026 18:30 (<PERSON_1> local time)", True),  # one redacted
        # must not fire: local time with no place, a known place
        ("Departs Sat 19 Dec 2026 18:30 local time", False),
        ("Departs Sat 19 Dec 2026 18:30 (Tokyo local time)", False),
    ],
)
def test_a_local_time_of_an_unknown_place_leaves_the_zone_open(
    parser: TimeParser, text: str, unsaid: bool
) -> None:
    [mention] = [m for m in parser.parse(text) if m.has_clock_time]
    assert mention.zone_unsaid is unsaid


def test_an_arrival_with_its_own_date_ends_the_departure(parser: TimeParser) -> None:
    text = "Departs Sat 19 Dec 2026 18:30\nArrives Sun 20 Dec 2026 06:40"
    [flight] = [m for m in parser.parse_input("", text) if m.has_clock_time]
    assert (flight.value, flight.end_value) == (
        datetime(2026, 12, 19, 18, 30, tzinfo=LONDON),
        datetime(2026, 12, 20, 6, 40, tzinfo=LONDON),
    )
