"""CalendarStore on real SQLite: migrations, duplicates across sessions, one-transaction imports."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlite_utils import Database

from memory.calendar import CalendarStore
from memory.errors import StoreError
from memory.event import CalendarEvent
from memory.migrations import MIGRATIONS, migrate
from tools.calendar.ics import import_ics

BERLIN = ZoneInfo("Europe/Berlin")
DATA = Path(__file__).parent / "data"


@pytest.fixture
def store() -> CalendarStore:
    return CalendarStore(Database(memory=True))


def lunch(title: str = "Lunch with Tom", hour: int = 13, **kwargs: object) -> CalendarEvent:
    return CalendarEvent.new(title, datetime(2026, 3, 5, hour), tz="Europe/Berlin", **kwargs)


def imported(
    uid: str, hour: int, title: str = "Busy", source: str = "import:work"
) -> CalendarEvent:
    start = datetime(2026, 3, 5, hour, tzinfo=BERLIN)
    return CalendarEvent(
        uid, title, start, start + timedelta(hours=1), False, "Europe/Berlin", source=source
    )


def test_migrations_are_recorded_and_idempotent(store: CalendarStore) -> None:
    migrate(store.db)
    applied = [m.name for m in MIGRATIONS.applied(store.db)]
    # later issues append their own migrations after this one
    assert applied[0] == "m001_calendar_events"
    assert MIGRATIONS.pending(store.db) == []
    assert "calendar_events" in store.db.table_names()


def test_file_database_uses_wal(tmp_path: Path) -> None:
    db = Database(tmp_path / "veil.db")
    CalendarStore(db)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_add_then_the_same_event_again_is_refused_with_a_reason(store: CalendarStore) -> None:
    first = store.add(lunch())
    assert first.added and first.reason == ""
    again = store.add(lunch(title="  lunch WITH tom! "))
    assert not again.added
    assert again.event == first.event
    assert (
        again.reason
        == "already in the calendar: 'Lunch with Tom' on Thu 05 Mar 2026 13:00 (Europe/Berlin)"
    )
    assert store.count() == 1


@pytest.mark.parametrize(
    ("other", "is_duplicate"),
    [
        pytest.param(lambda: lunch(title="Lunch with Tom."), True, id="punctuation"),
        pytest.param(lambda: lunch(title="Lünch with Tom"), True, id="accents"),
        pytest.param(
            lambda: CalendarEvent.new("Lunch with Tom", datetime(2026, 3, 5, 12), tz="UTC"),
            True,
            id="same-instant-other-zone",
        ),
        pytest.param(lambda: lunch(hour=14), False, id="other-time"),
        pytest.param(lambda: lunch(title="Lunch with Ana"), False, id="other-title"),
        pytest.param(lambda: lunch(duration=timedelta(hours=2)), True, id="other-length"),
    ],
)
def test_duplicate_means_normalised_title_and_start(
    store: CalendarStore, other, is_duplicate: bool
) -> None:
    store.add(lunch())
    assert (store.find_duplicate(other()) is not None) is is_duplicate
    assert store.add(other()).added is not is_duplicate


def test_duplicates_are_refused_across_sessions(tmp_path: Path) -> None:
    path = tmp_path / "veil.db"
    assert CalendarStore(Database(path)).add(lunch()).added
    later_session = CalendarStore(Database(path))
    assert not later_session.add(lunch()).added
    assert later_session.count() == 1


def test_database_refuses_a_created_duplicate_that_slipped_past_the_check(
    store: CalendarStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add(lunch())
    real = store.find_duplicate
    calls: list[CalendarEvent] = []

    def miss_first(event: CalendarEvent) -> CalendarEvent | None:
        calls.append(event)  # the first lookup misses, as if another session raced us
        return None if len(calls) == 1 else real(event)

    monkeypatch.setattr(store, "find_duplicate", miss_first)
    result = store.add(lunch(title="LUNCH with tom", location="elsewhere"))
    assert not result.added and result.event.title == "Lunch with Tom"
    assert len(calls) == 2  # the unique index refused the insert, then the lookup found it
    assert store.count() == 1


def test_an_imported_event_counts_as_existing(store: CalendarStore) -> None:
    store.import_events([imported("g-1", 13, title="Lunch with Tom")], "import:google")
    assert not store.add(lunch()).added


def test_wall_time_zone_and_details_survive_storage(store: CalendarStore) -> None:
    event = lunch(location="Blue Bottle", attendees=["Tom Müller"], alarm_minutes=10)
    store.add(event)
    (back,) = store.between(datetime(2026, 3, 5, tzinfo=UTC), datetime(2026, 3, 6, tzinfo=UTC))
    assert back == event
    assert back.start.isoformat() == "2026-03-05T13:00:00+01:00"


def test_second_of_two_equal_wall_times_stays_the_second(store: CalendarStore) -> None:
    late = CalendarEvent.new("Night", datetime(2026, 10, 25, 2, 30, fold=1), tz="Europe/Berlin")
    store.add(late)
    back = store.get(late.uid)
    assert back is not None
    assert back.start.astimezone(UTC) == datetime(2026, 10, 25, 1, 30, tzinfo=UTC)


def test_all_day_event_round_trips(store: CalendarStore) -> None:
    trip = CalendarEvent.new("Trip", datetime(2026, 3, 29), tz="Europe/Berlin", all_day=True)
    store.add(trip)
    back = store.get(trip.uid)
    assert back == trip and back.duration == timedelta(hours=23)  # spring-forward day


@pytest.mark.parametrize(
    ("start_hour", "end_hour", "expected"),
    [
        (12, 13, []),  # ends exactly when the first event starts: half-open
        (12, 14, ["a"]),
        (13, 14, ["a"]),
        (13, 15, ["a", "b"]),
        (14, 15, ["b"]),
        (15, 16, []),
        (0, 24, ["a", "b"]),
    ],
)
def test_between_is_interval_overlap(
    store: CalendarStore, start_hour: int, end_hour: int, expected: list[str]
) -> None:
    store.import_events([imported("a", 13), imported("b", 14)], "import:work")
    day = datetime(2026, 3, 5, tzinfo=BERLIN)
    found = store.between(day + timedelta(hours=start_hour), day + timedelta(hours=end_hour))
    assert [e.uid for e in found] == expected


def test_between_sees_all_day_and_zero_length_events(store: CalendarStore) -> None:
    store.add(CalendarEvent.new("Holiday", datetime(2026, 3, 5), tz="Europe/Berlin", all_day=True))
    store.add(
        CalendarEvent.new(
            "Pay rent",
            datetime(2026, 3, 5, 9),
            tz="Europe/Berlin",
            kind="reminder",
            duration=timedelta(0),
        )
    )
    found = store.between(
        datetime(2026, 3, 5, 8, tzinfo=BERLIN), datetime(2026, 3, 5, 10, tzinfo=BERLIN)
    )
    assert [e.title for e in found] == ["Holiday", "Pay rent"]


def test_reimport_replaces_the_source_and_leaves_others_alone(store: CalendarStore) -> None:
    store.add(lunch(hour=9))
    store.import_events([imported("a", 13), imported("b", 14)], "import:work")
    store.import_events([imported("x", 10, source="import:home")], "import:home")
    result = store.import_events([imported("b", 15), imported("c", 16)], "import:work")
    assert (result.stored, result.removed) == (2, 1)
    assert store.get("a") is None
    assert store.get("b").start.hour == 15
    assert store.count() == 4  # created lunch + home x + work b, c


def test_import_is_all_or_nothing(store: CalendarStore) -> None:
    store.import_events([imported("a", 13)], "import:work")
    # A database-level failure on the third row must leave the earlier import untouched.
    store.db.execute(
        "CREATE TRIGGER boom BEFORE INSERT ON calendar_events WHEN NEW.title = 'boom' "
        "BEGIN SELECT RAISE(ABORT, 'boom'); END"
    )
    rows = [imported("b", 14), imported("c", 15), imported("d", 16, title="boom")]
    with pytest.raises(StoreError, match="nothing was saved"):
        store.import_events(rows, "import:work")
    assert [
        e.uid
        for e in store.between(datetime(2026, 1, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC))
    ] == ["a"]


def test_import_needs_an_import_source(store: CalendarStore) -> None:
    with pytest.raises(ValueError, match="import:"):
        store.import_events([], "created")


def test_recurring_import_stores_each_occurrence_once(store: CalendarStore) -> None:
    result = import_ics(
        (DATA / "recurring_new_york.ics").read_bytes(),
        tz="Europe/Berlin",
        source="import:ny",
        window_start=datetime(2026, 1, 1, tzinfo=UTC),
        window_end=datetime(2027, 1, 1, tzinfo=UTC),
    )
    store.import_events(result.events, "import:ny")
    store.import_events(result.events, "import:ny")  # importing the same file twice
    assert store.count() == 5
    moved = store.get("standup-1@example.com", "20260323T130000Z")
    assert moved is not None and moved.start.hour == 14 and moved.tz == "America/New_York"


def _busy_week(store: CalendarStore, events: int) -> None:
    first = datetime(2026, 3, 2, 8, tzinfo=BERLIN)
    store.import_events(
        [
            CalendarEvent(
                f"busy-{n}@test",
                f"Call with Dr. Amara Okafor about project {n} and its many long details",
                first + timedelta(minutes=97 * n),
                first + timedelta(minutes=97 * n + 30),
                False,
                "Europe/Berlin",
                source="import:work",
            )
            for n in range(events)
        ],
        "import:work",
    )


def test_between_reads_only_its_limit_and_counts_the_rest(store: CalendarStore) -> None:
    _busy_week(store, 40)
    week = (datetime(2026, 3, 2, tzinfo=BERLIN), datetime(2026, 3, 9, tzinfo=BERLIN))
    assert len(store.between(*week)) == store.count_between(*week) > 3
    assert [e.uid for e in store.between(*week, limit=3)] == [
        e.uid for e in store.between(*week)[:3]
    ]
    # must not count: an empty window
    assert store.count_between(week[1] + timedelta(days=30), week[1] + timedelta(days=31)) == 0


def test_the_planner_sees_a_count_of_the_calendar_and_no_titles(store: CalendarStore) -> None:
    from agent.assistant import _calendar_summary

    now = datetime(2026, 3, 2, 7, tzinfo=BERLIN)
    assert _calendar_summary(store, now) == ""  # must not invent a calendar
    _busy_week(store, 5)
    small = _calendar_summary(store, now)
    _busy_week(store, 100)  # the same first events, many more after them
    big = _calendar_summary(store, now)
    assert small == "5 events in the next 7 days"
    assert big == "100 events in the next 7 days"
    assert "Okafor" not in big and "Amara" not in big
