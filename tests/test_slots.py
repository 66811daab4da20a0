"""Conflicts and free slots: interval arithmetic, DST days, meals, and the 5,000-event budget."""

from __future__ import annotations

import random
import statistics
from datetime import UTC, date, datetime, time, timedelta
from time import perf_counter
from zoneinfo import ZoneInfo

import pytest

from memory.event import CalendarEvent
from tools.calendar.slots import Schedule, WorkingHours, working_days

TZ = "Europe/Berlin"
BERLIN = ZoneInfo(TZ)
MONDAY = date(2026, 3, 2)


def at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=BERLIN)


def event(title: str, start: datetime, minutes: int = 60, **kwargs: object) -> CalendarEvent:
    return CalendarEvent.new(title, start, tz=TZ, duration=timedelta(minutes=minutes), **kwargs)


MEETING = event("Meeting", at(MONDAY, 10), 60)  # 10:00-11:00


@pytest.mark.parametrize(
    ("start", "end", "relation", "gap_minutes"),
    [
        pytest.param((10, 30), (11, 30), "overlap", 0, id="partial-overlap"),
        pytest.param((9, 0), (12, 0), "overlap", 0, id="contains"),
        pytest.param((10, 15), (10, 45), "overlap", 0, id="inside"),
        pytest.param((10, 0), (11, 0), "overlap", 0, id="identical"),
        pytest.param((9, 0), (10, 0), "adjacent", 0, id="ends-at-start"),
        pytest.param((11, 0), (12, 0), "adjacent", 0, id="starts-at-end"),
        pytest.param((11, 10), (12, 0), "tight", 10, id="10-min-after"),
        pytest.param((8, 45), (9, 45), "tight", 15, id="exactly-15-before"),
        pytest.param((11, 16), (12, 0), None, None, id="16-min-after"),
        pytest.param((14, 0), (15, 0), None, None, id="afternoon"),
        pytest.param((10, 59), (10, 59), "overlap", 0, id="zero-length-inside"),
    ],
)
def test_conflict_relations(
    start: tuple[int, int], end: tuple[int, int], relation: str | None, gap_minutes: int | None
) -> None:
    found = Schedule([MEETING]).conflicts(at(MONDAY, *start), at(MONDAY, *end))
    if relation is None:
        assert found == []
    else:
        (conflict,) = found
        assert conflict.event is MEETING
        assert (conflict.relation, conflict.gap) == (relation, timedelta(minutes=gap_minutes))


def test_tight_gap_is_configurable() -> None:
    schedule = Schedule([MEETING], tight_gap=timedelta(minutes=30))
    (conflict,) = schedule.conflicts(at(MONDAY, 11, 25), at(MONDAY, 12))
    assert (conflict.relation, conflict.gap) == ("tight", timedelta(minutes=25))
    assert (
        Schedule([MEETING], tight_gap=timedelta(0)).conflicts(at(MONDAY, 11, 5), at(MONDAY, 12))
        == []
    )


def test_all_day_and_multi_day_events_conflict_all_day_long() -> None:
    holiday = CalendarEvent.new("Holiday", datetime(2026, 3, 2), tz=TZ, all_day=True)
    trip = CalendarEvent.new(
        "Trip", datetime(2026, 2, 20), datetime(2026, 3, 4), tz=TZ, all_day=True
    )
    found = Schedule([trip, holiday, MEETING]).conflicts(at(MONDAY, 17), at(MONDAY, 18))
    assert [(c.event.title, c.relation) for c in found] == [
        ("Trip", "overlap"),
        ("Holiday", "overlap"),
    ]


def test_event_crossing_midnight_conflicts_next_morning() -> None:
    late = event("Party", at(MONDAY, 23), 180)  # 23:00-02:00
    (conflict,) = Schedule([late]).conflicts(
        at(MONDAY + timedelta(days=1), 1), at(MONDAY + timedelta(days=1), 3)
    )
    assert conflict.relation == "overlap"


def test_event_in_another_zone_is_compared_by_instant() -> None:
    ny_call = CalendarEvent.new(
        "NY call", datetime(2026, 3, 2, 4), tz="America/New_York"
    )  # 10:00 Berlin
    (conflict,) = Schedule([ny_call]).conflicts(at(MONDAY, 10, 30), at(MONDAY, 11))
    assert conflict.relation == "overlap"


def test_reminders_do_not_block_time_unless_asked() -> None:
    reminder = event("Pay rent", at(MONDAY, 10), 0, kind="reminder")
    assert Schedule([reminder]).conflicts(at(MONDAY, 9, 30), at(MONDAY, 10, 30)) == []
    assert Schedule([reminder], include_reminders=True).conflicts(
        at(MONDAY, 9, 30), at(MONDAY, 10, 30)
    )


def test_ignore_uid_skips_the_event_being_moved() -> None:
    assert Schedule([MEETING]).conflicts(MEETING.start, MEETING.end, ignore_uid=MEETING.uid) == []


def test_dst_night_is_measured_in_elapsed_time() -> None:
    # Europe/Berlin skips 02:00-03:00 on 2026-03-29: 01:00 to 03:00 local is one hour.
    night = CalendarEvent.new("Night", datetime(2026, 3, 29, 1), datetime(2026, 3, 29, 3), tz=TZ)
    assert night.duration == timedelta(hours=1)
    (conflict,) = Schedule([night]).conflicts(
        datetime(2026, 3, 29, 3, tzinfo=BERLIN), datetime(2026, 3, 29, 4, tzinfo=BERLIN)
    )
    assert conflict.relation == "adjacent"


# --- free slots ----------------------------------------------------------------------------


def slots_as_text(slots) -> list[str]:
    return [f"{s.start:%a %H:%M}-{s.end:%H:%M}" for s in slots]


def test_free_slots_fill_working_hours_around_events() -> None:
    busy = [MEETING, event("Lunch", at(MONDAY, 12, 30), 60), event("Late", at(MONDAY, 17, 30), 90)]
    slots = Schedule(busy).free_slots(timedelta(hours=1), after=at(MONDAY, 8), tz=TZ, days=1)
    assert slots_as_text(slots) == ["Mon 09:00-10:00", "Mon 11:00-12:30", "Mon 13:30-17:30"]


def test_slots_shorter_than_needed_are_skipped() -> None:
    busy = [event("A", at(MONDAY, 9, 30), 60), event("B", at(MONDAY, 11), 420)]  # free 10:30-11
    schedule = Schedule(busy)
    half_hour = schedule.free_slots(timedelta(minutes=30), after=at(MONDAY, 8), tz=TZ, days=1)
    assert slots_as_text(half_hour) == ["Mon 09:00-09:30", "Mon 10:30-11:00"]
    assert schedule.free_slots(timedelta(minutes=45), after=at(MONDAY, 8), tz=TZ, days=1) == []


def test_starting_mid_morning_rounds_up_to_the_quarter_hour() -> None:
    slots = Schedule([]).free_slots(timedelta(hours=1), after=at(MONDAY, 10, 7), tz=TZ, days=1)
    assert slots_as_text(slots) == ["Mon 10:15-18:00"]


def test_weekends_only_when_asked() -> None:
    friday = date(2026, 3, 6)
    plain = Schedule([]).free_slots(timedelta(hours=1), after=at(friday, 8), tz=TZ, days=4)
    assert slots_as_text(plain) == ["Fri 09:00-18:00", "Mon 09:00-18:00"]
    weekend = Schedule([]).free_slots(
        timedelta(hours=1), after=at(friday, 8), tz=TZ, days=4, include_weekends=True
    )
    assert [s.start.strftime("%a") for s in weekend] == ["Fri", "Sat", "Sun", "Mon"]


def test_working_hours_and_limit_are_configurable() -> None:
    slots = Schedule([]).free_slots(
        timedelta(hours=1),
        after=at(MONDAY, 6),
        tz=TZ,
        days=5,
        working_hours=WorkingHours(start=time(7), end=time(10)),
        limit=2,
    )
    assert slots_as_text(slots) == ["Mon 07:00-10:00", "Tue 07:00-10:00"]
    with pytest.raises(ValueError, match="end after"):
        WorkingHours(start=time(18), end=time(9))


def test_all_day_events_block_the_day_unless_told_otherwise() -> None:
    birthday = CalendarEvent.new("Birthday", datetime(2026, 3, 2), tz=TZ, all_day=True)
    schedule = Schedule([birthday])
    assert schedule.free_slots(timedelta(hours=1), after=at(MONDAY, 8), tz=TZ, days=1) == []
    free = schedule.free_slots(
        timedelta(hours=1), after=at(MONDAY, 8), tz=TZ, days=1, all_day_busy=False
    )
    assert slots_as_text(free) == ["Mon 09:00-18:00"]


@pytest.mark.parametrize(
    ("day", "zone"),
    [
        (date(2026, 3, 30), "Europe/Berlin"),  # first Monday after spring forward
        (date(2026, 10, 26), "Europe/Berlin"),  # first Monday after fall back
        (date(2026, 3, 9), "America/New_York"),
    ],
)
def test_working_hours_stay_local_across_dst(day: date, zone: str) -> None:
    after = datetime(day.year, day.month, day.day, 0, tzinfo=ZoneInfo(zone)) - timedelta(days=1)
    slots = Schedule([]).free_slots(
        timedelta(hours=1), after=after, tz=zone, days=2, include_weekends=True
    )
    assert slots_as_text(slots) == [
        f"{(day - timedelta(days=1)):%a} 09:00-18:00",
        f"{day:%a} 09:00-18:00",
    ]
    assert all(s.duration == timedelta(hours=9) for s in slots)


def test_slot_and_working_days_helpers() -> None:
    assert working_days(at(date(2026, 3, 6), 20), TZ, 4) == [date(2026, 3, 6), date(2026, 3, 9)]
    with pytest.raises(ValueError, match="positive"):
        Schedule([]).free_slots(timedelta(0), after=at(MONDAY, 8), tz=TZ)
    with pytest.raises(ValueError, match="aware"):
        Schedule([]).free_slots(timedelta(hours=1), after=datetime(2026, 3, 2, 8), tz=TZ)


# --- meals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meal", "expected"),
    [("breakfast", "08:30"), ("brunch", "11:00"), ("lunch", "12:30"), ("dinner", "19:30")],
)
def test_meals_propose_their_conventional_time_when_free(meal: str, expected: str) -> None:
    (proposal,) = Schedule([]).meal_proposals(meal, days=[MONDAY], tz=TZ)
    assert f"{proposal.start:%H:%M}" == expected


def test_busy_meal_time_moves_to_the_nearest_free_start() -> None:
    busy = [event("Standup", at(MONDAY, 12), 60)]  # 12:00-13:00 blocks 12:30
    (proposal,) = Schedule(busy).meal_proposals("lunch", days=[MONDAY], tz=TZ)
    assert slots_as_text([proposal]) == ["Mon 13:00-14:00"]


def test_a_day_with_no_room_near_the_meal_gets_no_proposal() -> None:
    busy = [event("Offsite", at(MONDAY, 9), 9 * 60)]
    assert Schedule(busy).meal_proposals("lunch", days=[MONDAY], tz=TZ) == []
    with pytest.raises(ValueError, match="unknown meal"):
        Schedule([]).meal_proposals("supper", days=[MONDAY], tz=TZ)


# --- correctness against brute force, and speed ---------------------------------------------


def random_calendar(count: int, seed: int = 7) -> list[CalendarEvent]:
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    events = []
    for i in range(count):
        begin = start + timedelta(minutes=15 * rng.randrange(0, 4 * 24 * 365))
        if rng.random() < 0.03:
            day = begin.astimezone(BERLIN).date()
            events.append(
                CalendarEvent.new(
                    f"All day {i}", datetime(day.year, day.month, day.day), tz=TZ, all_day=True
                )
            )
        else:
            events.append(
                CalendarEvent.new(
                    f"Event {i}",
                    begin,
                    tz=TZ,
                    duration=timedelta(minutes=15 * rng.randrange(1, 12)),
                )
            )
    return events


def brute_force(
    events: list[CalendarEvent], lo: datetime, hi: datetime, tight: timedelta
) -> set[tuple[str, str]]:
    found = set()
    for e in events:
        if e.start < hi and lo < e.end:
            found.add((e.uid, "overlap"))
        elif e.end == lo or e.start == hi:
            found.add((e.uid, "adjacent"))
        elif timedelta(0) < lo - e.end <= tight or timedelta(0) < e.start - hi <= tight:
            found.add((e.uid, "tight"))
    return found


def test_indexed_conflicts_match_brute_force() -> None:
    events = random_calendar(2_000)
    schedule = Schedule(events)
    rng = random.Random(11)
    for _ in range(300):
        lo = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(
            minutes=5 * rng.randrange(0, 12 * 24 * 365)
        )
        hi = lo + timedelta(minutes=5 * rng.randrange(1, 48))
        got = {(c.event.uid, c.relation) for c in schedule.conflicts(lo, hi)}
        assert got == brute_force(events, lo, hi, timedelta(minutes=15))


def test_free_slot_search_on_5000_events_is_under_50_ms() -> None:
    events = random_calendar(5_000)
    after = datetime(2026, 6, 1, 8, tzinfo=BERLIN)
    timings = []
    for _ in range(5):
        started = perf_counter()
        Schedule(events).free_slots(timedelta(minutes=30), after=after, tz=TZ, days=14)
        timings.append(perf_counter() - started)
    assert statistics.median(timings) < 0.050  # index build included
