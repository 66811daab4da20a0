""".ics import and export on real icalendar: zones, recurrence, broken files, round trips."""

from __future__ import annotations

import re
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest

from memory.event import CalendarEvent, created_uid
from tools.calendar.ics import Refused, export_event, export_events, import_ics
from tools.errors import IcsError

DATA = Path(__file__).parent / "data"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "ics"
WINDOW = {
    "window_start": datetime(2026, 1, 1, tzinfo=UTC),
    "window_end": datetime(2027, 1, 1, tzinfo=UTC),
}
STAMP = datetime(2026, 1, 1, tzinfo=UTC)


def load(name: str, tz: str = "Europe/Berlin", **kwargs: object):
    """Import one sample file from tests/data in the user's zone `tz`."""
    options = {**WINDOW, **kwargs}
    return import_ics((DATA / name).read_bytes(), tz=tz, source=f"import:{name}", **options)


def wrap(*lines: str) -> bytes:
    """A minimal VCALENDAR around some content lines, CRLF as RFC 5545 wants."""
    body = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", *lines, "END:VCALENDAR"]
    return ("\r\n".join(body) + "\r\n").encode()


def vevent(uid: str, *lines: str) -> list[str]:
    return ["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20260101T000000Z", *lines, "END:VEVENT"]


# --- import: zones -------------------------------------------------------------------------


def test_floating_time_is_taken_in_the_users_zone() -> None:
    dentist = next(e for e in load("floating_allday.ics").events if e.uid == "floating-1")
    assert dentist.start == datetime(2026, 4, 10, 10, tzinfo=ZoneInfo("Europe/Berlin"))
    assert dentist.tz == "Europe/Berlin"


def test_utc_time_keeps_its_instant_shown_in_the_users_zone() -> None:
    call = next(e for e in load("floating_allday.ics", tz="Asia/Tokyo").events if e.uid == "utc-1")
    assert call.start.astimezone(UTC) == datetime(2026, 4, 10, 13, tzinfo=UTC)
    assert (call.tz, call.start.hour) == ("Asia/Tokyo", 22)


def test_all_day_runs_local_midnight_to_midnight_end_exclusive() -> None:
    conference = next(e for e in load("floating_allday.ics").events if e.uid == "allday-1")
    berlin = ZoneInfo("Europe/Berlin")
    assert conference.all_day
    assert conference.start == datetime(2026, 4, 12, tzinfo=berlin)
    assert conference.end == datetime(2026, 4, 15, tzinfo=berlin)


def test_bad_items_are_refused_one_by_one_and_the_rest_imported() -> None:
    result = load("floating_allday.ics")
    assert {e.uid for e in result.events} == {"floating-1", "allday-1", "utc-1"}  # no cancelled
    assert Refused("VEVENT 'Broken: no start'", "it has no start time (DTSTART)") in result.refused
    assert any(r.item.startswith("VTODO") for r in result.refused)


@pytest.mark.parametrize(
    ("uid", "tz", "wall"),
    [
        ("outlook-windows-name", "Europe/Berlin", datetime(2026, 1, 15, 10)),
        ("outlook-display-name", "Europe/Amsterdam", datetime(2026, 6, 15, 15)),
    ],
)
def test_outlook_zone_names_map_to_iana_zones_with_the_same_wall_time(
    uid: str, tz: str, wall: datetime
) -> None:
    event = next(e for e in load("outlook_zones.ics", tz="America/Chicago").events if e.uid == uid)
    assert event.tz == tz
    assert event.start.replace(tzinfo=None) == wall


def test_vendor_prefixed_and_unknown_private_zones() -> None:
    data = wrap(
        "BEGIN:VTIMEZONE",
        "TZID:My Office Zone",
        "BEGIN:STANDARD",
        "DTSTART:19700101T000000",
        "TZOFFSETFROM:+0530",
        "TZOFFSETTO:+0530",
        "END:STANDARD",
        "END:VTIMEZONE",
        *vevent("prefixed", "DTSTART;TZID=/mozilla.org/20050126_1/Europe/Paris:20260701T090000"),
        *vevent("private", "DTSTART;TZID=My Office Zone:20260701T090000"),
    )
    events = {e.uid: e for e in import_ics(data, tz="UTC", source="import:z", **WINDOW).events}
    assert events["prefixed"].tz == "Europe/Paris"
    assert events["prefixed"].start.hour == 9
    # No IANA zone is named like it: keep the instant (09:00 at +05:30), show it in the user's.
    assert events["private"].tz == "UTC"
    assert events["private"].start == datetime(2026, 7, 1, 3, 30, tzinfo=UTC)


def test_x_wr_timezone_puts_utc_times_in_the_calendars_zone() -> None:
    data = wrap("X-WR-TIMEZONE:America/Los_Angeles", *vevent("g", "DTSTART:20260701T160000Z"))
    (event,) = import_ics(data, tz="Europe/Berlin", source="import:g", **WINDOW).events
    assert (event.tz, event.start.hour) == ("America/Los_Angeles", 9)


# --- import: recurrence --------------------------------------------------------------------


def test_rrule_exdate_and_moved_occurrence_expand_within_the_window() -> None:
    events = load("recurring_new_york.ics").events
    walls = [(e.title, e.start.strftime("%m-%d %H:%M")) for e in events]
    assert walls == [
        ("Standup", "03-02 09:00"),
        ("Standup", "03-09 09:00"),  # after the US DST change: still 09:00 New York
        ("Standup (moved)", "03-23 14:00"),
        ("Standup", "03-30 09:00"),
        ("Standup", "04-06 09:00"),
    ]  # 03-16 is EXDATE'd
    assert {e.tz for e in events} == {"America/New_York"}
    assert events[2].recurrence_id == "20260323T130000Z"  # the slot it replaces
    assert len({(e.uid, e.recurrence_id) for e in events}) == len(events)


def test_window_bounds_the_expansion() -> None:
    events = load(
        "recurring_new_york.ics",
        window_start=datetime(2026, 3, 20, tzinfo=UTC),
        window_end=datetime(2026, 4, 1, tzinfo=UTC),
    ).events
    assert [e.start.day for e in events] == [23, 30]


def test_a_series_repeating_too_often_is_refused_alone() -> None:
    data = wrap(
        *vevent("spam", "DTSTART:20260101T000000Z", "RRULE:FREQ=HOURLY", "SUMMARY:Spam"),
        *vevent("ok", "DTSTART:20260301T100000Z", "SUMMARY:Fine"),
    )
    result = import_ics(data, tz="UTC", source="import:s", max_occurrences_per_series=100, **WINDOW)
    assert [e.uid for e in result.events] == ["ok"]
    assert result.refused == [
        Refused(
            "VEVENT 'Spam' at 2026-01-01T00:00:00+00:00",
            "it repeats more than 100 times in the window",
        )
    ]


def test_bom_lf_only_and_bare_vevent_files_import() -> None:
    bare = "BEGIN:VEVENT\nUID:b\nDTSTART:20260301T100000\nSUMMARY:Bare\nEND:VEVENT\n"
    (event,) = import_ics(
        b"\xef\xbb\xbf" + bare.encode(), tz="Europe/Berlin", source="import:b", **WINDOW
    ).events
    assert (event.title, event.start.hour) == ("Bare", 10)


# --- import: whole-file refusals -----------------------------------------------------------

BROKEN = [
    pytest.param(b"", "empty", id="empty"),
    pytest.param(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", "PDF", id="pdf-renamed-ics"),
    pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00", "PNG", id="png"),
    pytest.param(b"PK\x03\x04\x14\x00", "ZIP", id="zip"),
    pytest.param(b'["vcalendar", [], []]', "jCal", id="jcal"),
    pytest.param(b"BEGIN:VCARD\r\nFN:Tom\r\nEND:VCARD\r\n", "vCard", id="vcard"),
    pytest.param(b"Hello Tom, lunch at 1?", "BEGIN:VCALENDAR", id="plain-text"),
    pytest.param(b"BEGIN:VCALENDAR\x00\x01\x02", "binary", id="nul-bytes"),
    pytest.param(wrap("Sorry, I cannot come"), "not valid iCalendar", id="bad-line"),
    pytest.param(
        wrap(
            *["BEGIN:VTIMEZONE", "TZID:X", "BEGIN:STANDARD", "DTSTART:19700101T000000"],
            *["TZOFFSETFROM:+0100", "TZOFFSETTO:+5744", "END:STANDARD", "END:VTIMEZONE"],
            *vevent("a", "DTSTART;TZID=X:20260301T100000"),
        ),
        "UTC offset is out of range",
        id="bad-offset",
    ),
    pytest.param(b"BEGIN:VCALENDAR\r\nTZOFFSETTO:+5744\r\n", "truncated", id="no-end"),
    pytest.param(wrap(*vevent("a", "DTSTART:20260301T100000Z"))[:-30], "truncated", id="cut"),
    pytest.param(
        wrap("BEGIN:VEVENT", "BEGIN:VALARM", "END:VEVENT"),
        "END:VEVENT where BEGIN:VALARM",
        id="nest",
    ),
    pytest.param(wrap() + b"END:VEVENT\r\n", "END:VEVENT without a BEGIN", id="stray-end"),
    pytest.param(wrap("SUMMARY:Caf\xe9").replace(b"\xc3\xa9", b"\xe9"), "not UTF-8", id="latin-1"),
    # UTF-16 is read since issue 40: this one then ends too soon, and says so
    pytest.param("BEGIN:VCALENDAR\r\n".encode("utf-16"), "truncated", id="utf-16"),
    pytest.param(b"<!DOCTYPE html><html><body>Sign in</body></html>", "web page", id="html"),
    pytest.param(b"BEGIN:VTIMEZONE\r\nEND:VTIMEZONE\r\n", "no calendar events", id="tz-only"),
]


@pytest.mark.parametrize(("data", "needle"), BROKEN)
def test_unimportable_files_raise_one_line_reasons(data: bytes, needle: str) -> None:
    with pytest.raises(IcsError) as caught:
        import_ics(data, tz="Europe/Berlin", source="import:bad", **WINDOW)
    message = str(caught.value)
    assert needle.lower() in message.lower()
    assert "\n" not in message and len(message) < 120 and "Traceback" not in message


def test_a_malformed_date_refuses_that_event_only() -> None:
    data = wrap(*vevent("x", "DTSTART:20261399T250000"), *vevent("y", "DTSTART:20260301T1000Z"))
    result = import_ics(data, tz="UTC", source="import:d", **WINDOW)
    assert result.events == []
    assert [r.reason for r in result.refused] == [
        "its DTSTART value '20261399T250000' is not a date or date-time",
        "its DTSTART value '20260301T1000Z' is not a date or date-time",
    ]


def test_a_50_mb_file_is_refused_before_parsing() -> None:
    huge = wrap(*vevent("x", "DTSTART:20260301T100000Z", "DESCRIPTION:" + "x" * 50 * 1024 * 1024))
    started = time.perf_counter()
    with pytest.raises(IcsError, match=r"50\.0 MB, over the 20 MB limit"):
        import_ics(huge, tz="UTC", source="import:huge", **WINDOW)
    assert time.perf_counter() - started < 1.0


def test_naive_window_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="aware"):
        import_ics(
            wrap(),
            tz="UTC",
            source="import:x",
            window_start=datetime(2026, 1, 1),
            window_end=datetime(2027, 1, 1, tzinfo=UTC),
        )


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared ics corpus not present")
def test_every_corpus_file_imports_or_is_refused_without_a_crash() -> None:
    files = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".ics", ".jcal"))
    assert len(files) == 478
    tz = ZoneInfo("Europe/Berlin")
    outcome = {"imported": 0, "refused": 0}
    started = time.perf_counter()
    for path in files:
        try:
            result = import_ics(
                path.read_bytes(),
                tz="Europe/Berlin",
                source="import:corpus",
                window_start=datetime(2000, 1, 1, tzinfo=tz),
                window_end=datetime(2031, 1, 1, tzinfo=tz),
            )
        except IcsError as error:
            assert "\n" not in str(error), path
            outcome["refused"] += 1
            continue
        outcome["imported"] += 1
        assert all("\n" not in r.reason for r in result.refused), path
    assert outcome["imported"] + outcome["refused"] == 478
    assert outcome["imported"] > 400
    assert time.perf_counter() - started < 30


# --- export --------------------------------------------------------------------------------


def lunch(**overrides: object) -> CalendarEvent:
    details = {
        "location": "Blue Bottle, Mitte; Berlin",
        "description": "Bring the contract\nand the keys \\o/",
        "attendees": ["Tom Müller", "Ana Lima <ana@example.com>"],
    }
    details.update(overrides)
    return CalendarEvent.new(
        "Lunch, with Tom; finally", datetime(2026, 3, 5, 15), tz="Europe/Berlin", **details
    )


def test_export_keeps_wall_time_and_zone_never_utc() -> None:
    text = export_event(lunch(), now=STAMP).decode()
    assert "DTSTART;TZID=Europe/Berlin:20260305T150000\r\n" in text
    assert "DTEND;TZID=Europe/Berlin:20260305T160000\r\n" in text
    assert "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n" in text
    assert "DTSTAMP:20260101T000000Z\r\n" in text


def test_export_is_rfc5545_text() -> None:
    data = export_event(lunch(description="x" * 300), now=STAMP)
    assert b"\n" not in data.replace(b"\r\n", b"")  # CRLF only
    lines = data.split(b"\r\n")
    assert all(len(line) <= 75 for line in lines)  # folded at 75 octets
    assert lines[:2] == [b"BEGIN:VCALENDAR", b"VERSION:2.0"]
    text = data.decode()
    for needle in ("PRODID:-//Veil//", "METHOD:PUBLISH", "UID:", "SEQUENCE:0"):
        assert needle in text
    unfolded = text.replace("\r\n ", "")
    assert "SUMMARY:Lunch\\, with Tom\\; finally\r\n" in unfolded
    assert "LOCATION:Blue Bottle\\, Mitte\\; Berlin\r\n" in unfolded
    assert 'ATTENDEE;CN="Tom Müller"' in unfolded
    assert "mailto:ana@example.com" in unfolded


def test_export_escapes_description_newlines_and_backslashes() -> None:
    unfolded = export_event(lunch(), now=STAMP).decode().replace("\r\n ", "")
    assert "DESCRIPTION:Bring the contract\\nand the keys \\\\o/\r\n" in unfolded


def test_all_day_export_uses_value_date_and_no_timezone() -> None:
    trip = CalendarEvent.new("Trip", datetime(2026, 7, 1), tz="Europe/Berlin", all_day=True)
    text = export_event(trip, now=STAMP).decode()
    assert "DTSTART;VALUE=DATE:20260701\r\n" in text
    assert "DTEND;VALUE=DATE:20260702\r\n" in text
    assert "VTIMEZONE" not in text


def test_reminder_carries_a_valarm() -> None:
    reminder = CalendarEvent.new(
        "Call mum",
        datetime(2026, 3, 5, 18),
        tz="Europe/Berlin",
        kind="reminder",
        duration=timedelta(0),
        alarm_minutes=10,
    )
    text = export_event(reminder, now=STAMP).decode()
    assert "BEGIN:VALARM\r\nACTION:DISPLAY\r\n" in text
    assert "TRIGGER:-PT10M\r\n" in text


def test_uid_is_stable_for_the_same_event() -> None:
    first, second = lunch(), lunch(location="elsewhere")
    assert first.uid == second.uid == created_uid("Lunch, with Tom; finally", first.start)
    assert first.uid.endswith("@veil.local")
    assert export_event(first, now=STAMP) == export_event(first, now=STAMP)


def test_one_file_for_a_turns_events_has_one_vtimezone_per_zone() -> None:
    events = [
        lunch(),
        CalendarEvent.new("Call", datetime(2026, 3, 6, 9), tz="America/New_York"),
        CalendarEvent.new("Dinner", datetime(2026, 3, 6, 19, 30), tz="Europe/Berlin"),
    ]
    calendar = icalendar.Calendar.from_ical(export_events(events, now=STAMP))
    zones = sorted(str(tz["TZID"]) for tz in calendar.walk("VTIMEZONE"))
    assert zones == ["America/New_York", "Europe/Berlin"]
    used = {str(e["DTSTART"].params["TZID"]) for e in calendar.walk("VEVENT")}
    assert used == set(zones)


ROUND_TRIPS = [
    pytest.param("Europe/Berlin", datetime(2026, 3, 5, 15), False, id="berlin-3pm"),
    pytest.param("America/Los_Angeles", datetime(2026, 11, 1, 1, 30), False, id="la-end-in-fold"),
    pytest.param("Europe/Berlin", datetime(2026, 3, 29, 3, 0), False, id="just-after-spring-gap"),
    pytest.param("Asia/Kolkata", datetime(2026, 12, 31, 23, 45), False, id="half-hour-zone"),
    pytest.param("Australia/Lord_Howe", datetime(2026, 10, 4, 9), False, id="30-min-dst"),
    pytest.param("Pacific/Auckland", datetime(2026, 4, 5, 12), False, id="southern-dst-end"),
    pytest.param("UTC", datetime(2026, 6, 1, 8), False, id="utc"),
    pytest.param("Europe/Berlin", datetime(2026, 10, 25), True, id="all-day-on-dst-day"),
]


@pytest.mark.parametrize(("tz", "wall", "all_day"), ROUND_TRIPS)
def test_round_trip_keeps_wall_time_zone_and_text(tz: str, wall: datetime, all_day: bool) -> None:
    original = CalendarEvent.new(
        "Café ☕ — «planning», part 2/3",
        wall,
        tz=tz,
        all_day=all_day,
        location="Zürich, Bahnhofstr. 1",
        description="line 1\nline 2; done",
        attendees=["Zoë"],
    )
    data = export_event(original, now=STAMP)
    # Read back by a user elsewhere: the event's own zone must win (all-day dates and UTC
    # times are the exceptions by design: they are taken in the reader's zone).
    (back,) = import_ics(
        data,
        tz=tz if all_day or tz == "UTC" else "America/Chicago",
        source="import:rt",
        window_start=datetime(2025, 1, 1, tzinfo=UTC),
        window_end=datetime(2028, 1, 1, tzinfo=UTC),
    ).events
    assert back.start.replace(tzinfo=None) == original.start.replace(tzinfo=None)
    assert back.start.astimezone(UTC) == original.start.astimezone(UTC)
    assert back.end.astimezone(UTC) == original.end.astimezone(UTC)
    assert back.tz == tz
    assert (back.uid, back.title, back.location, back.description, back.attendees) == (
        original.uid,
        original.title,
        original.location,
        original.description,
        ["Zoë"],
    )
    assert back.all_day is all_day
    assert back.dedup_key() == original.dedup_key()


def test_second_of_two_equal_wall_times_is_exported_exactly() -> None:
    # 01:30 happens twice in Los Angeles on 2026-11-01; RFC 5545 reads a TZID wall time as the
    # first, so only the second is written in UTC: the instant survives, never an hour off.
    second = CalendarEvent.new(
        "Night shift", datetime(2026, 11, 1, 1, 30, fold=1), tz="America/Los_Angeles"
    )
    text = export_event(second, now=STAMP).decode()
    assert "DTSTART:20261101T093000Z\r\n" in text
    assert "DTEND;TZID=America/Los_Angeles:20261101T023000\r\n" in text
    (back,) = import_ics(
        text.encode(),
        tz="America/Los_Angeles",
        source="import:f",
        window_start=datetime(2026, 10, 1, tzinfo=UTC),
        window_end=datetime(2026, 12, 1, tzinfo=UTC),
    ).events
    assert back.start.astimezone(UTC) == datetime(2026, 11, 1, 9, 30, tzinfo=UTC)
    assert back.duration == timedelta(hours=1)


def test_round_trip_through_plain_icalendar_has_matching_vtimezone() -> None:
    calendar = icalendar.Calendar.from_ical(export_event(lunch(), now=STAMP))
    (event,) = calendar.walk("VEVENT")
    (tz,) = calendar.walk("VTIMEZONE")
    assert event["DTSTART"].params["TZID"] == tz["TZID"] == "Europe/Berlin"
    assert event["DTSTART"].dt == datetime(2026, 3, 5, 15, tzinfo=ZoneInfo("Europe/Berlin"))
    assert event.decoded("DTSTAMP").tzinfo is not None
    assert re.fullmatch(r"[0-9a-f-]{36}@veil\.local", str(event["UID"]))


def test_export_refuses_an_empty_list() -> None:
    with pytest.raises(ValueError, match="at least one"):
        export_events([])


def test_event_contract_rejects_naive_and_inverted_times() -> None:
    with pytest.raises(ValueError, match="aware"):
        CalendarEvent("u", "t", datetime(2026, 1, 1, 10), datetime(2026, 1, 1, 11), False, "UTC")
    with pytest.raises(ValueError, match="before start"):
        CalendarEvent.new("t", datetime(2026, 1, 1, 10), datetime(2026, 1, 1, 9), tz="UTC")
    with pytest.raises(ValueError, match="unknown time zone"):
        CalendarEvent.new("t", datetime(2026, 1, 1, 10), tz="Mars/Olympus")
    with pytest.raises(ValueError, match="midnight"):
        CalendarEvent.new(
            "t",
            datetime(2026, 1, 1, 10, tzinfo=UTC),
            datetime(2026, 1, 2, tzinfo=UTC),
            tz="UTC",
            all_day=True,
        )
    assert (
        date(2026, 1, 1)
        == CalendarEvent.new("t", datetime(2026, 1, 1), tz="UTC", all_day=True).start.date()
    )


def test_sub_hourly_rule_is_refused_at_once() -> None:
    """A 100-byte FREQ=SECONDLY file once stalled an import for minutes; it is refused by the
    occurrence cap now, with no list of forbidden frequencies (issue 17)."""
    data = (
        b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:s\r\nDTSTART:20261121T100000Z\r\n"
        b"RRULE:FREQ=SECONDLY\r\nSUMMARY:spam\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:ok\r\n"
        b"DTSTART:20261122T100000Z\r\nDTEND:20261122T110000Z\r\nSUMMARY:real\r\nEND:VEVENT\r\n"
        b"END:VCALENDAR\r\n"
    )
    now = datetime(2026, 11, 21, tzinfo=ZoneInfo("UTC"))
    started = time.perf_counter()
    found = import_ics(
        data,
        tz="UTC",
        window_start=now - timedelta(days=30),
        window_end=now + timedelta(days=365),
        source="import:spam.ics",
    )
    assert time.perf_counter() - started < 2
    assert [e.title for e in found.events] == ["real"]
    assert found.refused[0].reason == "it repeats more than 2000 times in the window"


def test_an_event_holding_a_placeholder_is_never_exported() -> None:
    """Files are outputs: a <PERSON_1> in an .ics means a restore was skipped."""
    start = datetime(2026, 11, 26, 13, 0, tzinfo=ZoneInfo("Europe/Berlin"))
    event = CalendarEvent.new(
        title="Lunch with <PERSON_1>",
        start=start,
        end=start + timedelta(hours=1),
        tz="Europe/Berlin",
    )
    with pytest.raises(ValueError, match="placeholder"):
        export_event(event)
