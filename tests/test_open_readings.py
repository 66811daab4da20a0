"""Readings the words leave open never create an event; typing slips and deadlines are read.

Each table has rows the mechanism must fire on and rows it must not."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tools.calendar.gate import check_start
from tools.calendar.lang import fix_typing_slips
from tools.calendar.times import TimeParser

TZ = "America/New_York"
ZONE = ZoneInfo(TZ)
NOW = datetime(2026, 12, 2, 7, 0, tzinfo=ZONE)  # a Wednesday


def _at(*args: int) -> datetime:
    return datetime(*args, tzinfo=ZONE)


@pytest.fixture(scope="module")
def parser() -> TimeParser:
    return TimeParser(tz=TZ, now=NOW)


# (request, a start the model proposes, may it be created?)
GATE_ROWS = [
    # fires: the words allow two starts, so neither is created
    ("create meeting on monday at 8", _at(2026, 12, 7, 8), False),
    ("create meeting on monday at 8", _at(2026, 12, 7, 20), False),
    ("basketball game friday at 7", _at(2026, 12, 4, 7), False),
    ("sync thursday at 9:30", _at(2026, 12, 3, 9, 30), False),
    ("sync thursday at 8:20", _at(2026, 12, 3, 8, 20), False),  # minutes are no 24-hour clock
    ("Book dinner tomorrow for 1 hour at 5pm.", _at(2026, 12, 2, 17), False),
    # a party or drinks at 10 or 11 may be morning or night
    ("drinks friday at 11", _at(2026, 12, 4, 23), False),
    ("drinks friday at 11", _at(2026, 12, 4, 11), False),
    ("party friday at 10", _at(2026, 12, 4, 22), False),
    # must not fire: the words pick one start
    ("create meeting on monday at 8pm", _at(2026, 12, 7, 20), True),
    ("dinner friday at 8", _at(2026, 12, 4, 20), True),
    ("dinner friday at 10", _at(2026, 12, 4, 22), True),
    ("party friday at 8", _at(2026, 12, 4, 20), True),
    ("u free thurs @ 7ish? pub quiz at the red lion", _at(2026, 12, 3, 19), True),
    ("gig friday at 8", _at(2026, 12, 4, 20), True),
    # a weekday and a day number that disagree: the coming 12th is a Saturday
    ("catch-up friday the 12th at 7pm", _at(2026, 12, 12, 19), False),
    ("catch-up friday the 12th at 7pm", _at(2026, 12, 11, 19), False),
    ("catch-up friday the 12th at 7pm", _at(2027, 2, 12, 19), False),  # Duckling's Friday 12th
    ("catch-up saturday the 12th at 7pm", _at(2026, 12, 12, 19), True),
    ("catch-up monday the 14th at 7pm", _at(2026, 12, 14, 19), True),
    # a clinic's hour is a working day's (times.toml [daytime])
    ("dont forget ur dentist friday at 9!!", _at(2026, 12, 4, 9), True),
    ("dont forget ur dentist friday at 9!!", _at(2026, 12, 4, 21), False),
    ("vet friday at 4", _at(2026, 12, 4, 16), True),
    ("concert friday at 10", _at(2026, 12, 4, 22), False),  # early evening words end at 9
    ("party tonight at 10", _at(2026, 12, 2, 22), True),
    ("breakfast friday at 8", _at(2026, 12, 4, 8), True),
    ("dinner thursday at 7:15", _at(2026, 12, 3, 19, 15), True),
    ("sync thursday at 20:15", _at(2026, 12, 3, 20, 15), True),
    ("standup thursday at 09:30", _at(2026, 12, 3, 9, 30), True),
    ("call on monday at 3", _at(2026, 12, 7, 15), True),
    ("review tomorrow at 10", _at(2026, 12, 3, 10), True),
    ("lunch next Tuesday at 1pm", _at(2026, 12, 8, 13), True),
    ("lunch with tom at 1pm", _at(2026, 12, 2, 13), True),  # no other day said: today
    # chat spellings of tonight, and a twin already past (now is 07:00): one reading is left
    ("we still on 2nite?? 8ish", _at(2026, 12, 2, 20), True),
    ("drinks tonite at 9", _at(2026, 12, 2, 21), True),
]


@pytest.mark.parametrize(("request_", "start", "allowed"), GATE_ROWS)
def test_gate_on_open_readings(
    parser: TimeParser, request_: str, start: datetime, allowed: bool
) -> None:
    decision = check_start(start, all_day=False, mentions=parser.parse_input(request_), tz=TZ)
    assert decision.allowed is allowed, decision.reason


def test_an_open_reading_says_what_to_choose(parser: TimeParser) -> None:
    mentions = parser.parse_input("create meeting on monday at 8")
    decision = check_start(_at(2026, 12, 7, 8), all_day=False, mentions=mentions, tz=TZ)
    assert "could mean" in decision.reason and "08:00" in decision.reason
    assert "20:00" in decision.reason


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("on modnay at 3", "on mon    at 3"),
        ("a meeting on Thurday at 4", "a meeting on Thu     at 4"),
        ("wednsday at 2", "wed      at 2"),
        ("at 7|30 pm", "at 7:30 pm"),
        ("at 7;15 pm", "at 7:15 pm"),
        # chat spellings of a day word
        ("gym 2moro @ 5?", "gym tmr   @ 5?"),
        ("call mum TOMOZ 7pm", "call mum tmr   7pm"),
        ("lunch tmw at 1", "lunch tmr at 1"),
        ("Weds 2nd it is", "wed  2nd it is"),
        # phrases Duckling misreads; a typographic dash in "2–4pm"; "12 noon"
        ("el jueves a mediodía", "el jueves a las 12  "),
        ("quinta ao meio-dia", "quinta às 12h     "),
        ("Saturday, 2–4pm", "Saturday, 2-4pm"),
        ("on Friday at 12 noon", "on Friday at    noon"),
        # a dash between a date and its clock separates them
        ("Tuesday 1 Dec 2026 - 15:30 - 16:30", "Tuesday 1 Dec 2026 , 15:30 - 16:30"),
        ("Fri 18 Dec – 10:00", "Fri 18 Dec , 10:00"),
        ("12 noon-ish", "   noon-ish"),
        # must not fire
        ("Mediodía en el parque", "Mediodía en el parque"),
        ("pages 12–14", "pages 12–14"),
        ("order #4 – 4pm", "order #4 – 4pm"),
        ("tmw3 at 4", "tmw3 at 4"),
        ("a wedding at 4", "a wedding at 4"),
        ("Meeting - 10:00", "Meeting - 10:00"),
        ("9 - 10:30", "9 - 10:30"),
        ("Tomozaki at 4", "Tomozaki at 4"),
        ("a sundae on Sunday", "a sundae on Sunday"),
        ("Mondays are hard", "Mondays are hard"),
        ("Fridays at 3", "Fridays at 3"),
        ("room 7|30 and a 3;45 ratio", "room 7|30 and a 3;45 ratio"),
        ("Monday at 3", "Monday at 3"),
    ],
)
def test_typing_slips(text: str, fixed: str) -> None:
    assert fix_typing_slips(text) == fixed
    assert len(fix_typing_slips(text)) == len(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("finish the report by Friday at 5 pm", _at(2026, 12, 4, 17)),
        ("the game is on Monday by 5:30 pm", _at(2026, 12, 2, 17, 30)),
    ],
)
def test_a_deadline_is_its_own_time_not_now(parser: TimeParser, text: str, value: datetime) -> None:
    [*_, mention] = parser.parse(text)
    assert mention.value == value


def test_a_range_that_starts_now_stays_a_range() -> None:
    parser = TimeParser(tz=TZ, now=_at(2026, 12, 2, 10))
    [mention] = parser.parse("from 10 to 11am")
    assert (mention.kind, mention.value, mention.end_value) == (
        "interval", _at(2026, 12, 2, 10), _at(2026, 12, 2, 11),
    )  # fmt: skip


# (text, start, allowed): a sentence that leaves the day open (lang/data/times.toml [open_day])
# makes its undated clock time a proposal; a day said in that sentence still fixes it.
OPEN_DAY_ROWS = [
    # fires
    ("10am is fine any day that week", _at(2026, 12, 2, 10), False),
    ("Jeden Tag um 10 Uhr geht", _at(2026, 12, 2, 10), False),
    ("cualquier día a las 10:00", _at(2026, 12, 2, 10), False),
    ("whichever day suits you, 3pm", _at(2026, 12, 2, 15), False),
    # must not fire
    ("the Monday standup at 9am, any day works for the rest", _at(2026, 12, 7, 9), True),
    ("any day next week works. Thursday at 10am?", _at(2026, 12, 3, 10), True),
    ("call at 10am today", _at(2026, 12, 2, 10), True),
]


@pytest.mark.parametrize(("text", "start", "allowed"), OPEN_DAY_ROWS)
def test_an_open_day_leaves_the_clock_a_proposal(
    parser: TimeParser, text: str, start: datetime, allowed: bool
) -> None:
    mentions = parser.parse_input(text)
    assert check_start(start, all_day=False, mentions=mentions, tz=TZ).allowed is allowed


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # a time is a time: "with Dr Smith" and "via zoom" name no street
        ("dentist at 3:30 with Dr Smith", ["at 3:30"]),
        ("call friday at 5 via zoom", ["friday at 5"]),
        ("appointment on Wed 2 Dec at 08:50 with Dr Khan", ["on Wed 2 Dec at 08:50"]),
        # a message's own stamp is no time of an event
        ("Reply C to confirm. Sent 12/1 at 7:00 PM", []),
        ("Posted on Monday at 9:14", []),
        # must not fire: a house number before its street; "sent" that is no stamp's label
        ("meet at 8 Main St", []),
        ("the invite was sent for friday at 3", ["friday at 3"]),
        ("call at 3, sent from my iPhone", ["at 3"]),
        ("your parcel will be delivered on Friday at 8am", ["on Friday at 8am"]),
    ],
)
def test_what_duckling_reads_as_a_time_and_is_not(
    parser: TimeParser, text: str, said: list[str]
) -> None:
    assert [text[m.start : m.end] for m in parser.parse(text)] == said
