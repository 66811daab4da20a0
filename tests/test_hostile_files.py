"""Hostile files and text, one row per probe of issue 17, plus fuzzing of the same inputs.

Each .ics row is imported twice: once timed (under 2 s), once under tracemalloc (peak under
200 MB), and must end in the clear message of its row, as a whole-file IcsError or as the
reason one item was refused. The time-parser and e-mail rows check the clear error and that
nothing escaped: no Rust panic text on stderr, no extra header or recipient in the draft.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import dateutil.rrule
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlite_utils import Database

from lang.text import clean_text
from memory.calendar import CalendarStore
from tools.base import ToolContext, ToolResult
from tools.calendar import recurrence
from tools.calendar.ics import IcsImport, import_ics
from tools.calendar.times import TimeParser, _engine
from tools.email import draft_reply, mailto_url
from tools.errors import IcsError, TimeParseError

SECONDS = 2.0
DATA = Path(__file__).parent / "data"
PEAK_BYTES = 200 * 1024**2
TZ = "Europe/Berlin"
NOW = datetime(2026, 3, 1, 12, tzinfo=ZoneInfo(TZ))
WINDOW = {"window_start": NOW - timedelta(days=30), "window_end": NOW + timedelta(days=365)}
FUZZ = settings(
    max_examples=60,
    deadline=None,
    database=None,  # no .hypothesis folder in the repository
    derandomize=True,  # the same examples on every run: a red suite is reproducible
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --- .ics ----------------------------------------------------------------------------------


def calendar(*items: str) -> bytes:
    """A VCALENDAR around some components, CRLF line ends."""
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//probe//EN\r\n" + "".join(items)).encode()


def vevent(uid: object, *lines: str) -> str:
    body = "".join(f"{line}\r\n" for line in lines)
    return f"BEGIN:VEVENT\r\nUID:{uid}\r\n{body}SUMMARY:probe\r\nEND:VEVENT\r\n"


END = "END:VCALENDAR\r\n"
SIXTY = ",".join(map(str, range(60)))
EVERY_POSITION = ",".join(map(str, [*range(1, 367), *range(-366, 0)]))
HOURS = [
    (datetime(2026, 3, 1, 10) + timedelta(hours=i)).strftime("%Y%m%dT%H%M%SZ")
    for i in range(20_000)
]


@dataclass(frozen=True)
class Probe:
    """One hostile file: how to build it, and the message (or event count) it must end in."""

    build: Callable[[], bytes]
    expect: str | int  # a substring of the IcsError or a refused reason; or the event count


ICS_PROBES = {
    # The 565-byte file that drove the server past 16 GB (issue 17).
    "hourly-x-byminute-x-bysecond-from-1900": Probe(
        lambda: calendar(
            vevent(
                "bomb",
                "DTSTART:19000101T000000Z",
                f"RRULE:FREQ=HOURLY;BYMINUTE={SIXTY};BYSECOND={SIXTY}",
            ),
            END,
        ),
        "it repeats more than 2000 times in the window",
    ),
    "bysetpos-every-day-counted-from-year-1": Probe(
        lambda: calendar(
            vevent(
                "setpos",
                "DTSTART:00010101T000000Z",
                "RRULE:FREQ=YEARLY;COUNT=1000000000;BYDAY=MO,TU,WE,TH,FR,SA,SU;"
                f"BYSETPOS={EVERY_POSITION}",
            ),
            END,
        ),
        "needs more than 1 s to reach and fill the window",
    ),
    "count-1e9-daily-from-1900": Probe(
        lambda: calendar(
            vevent("count", "DTSTART:19000101T090000Z", "RRULE:FREQ=DAILY;COUNT=1000000000"), END
        ),
        395,  # one a day in the 395-day window, no more
    ),
    "minutely-from-1900": Probe(
        lambda: calendar(vevent("m", "DTSTART:19000101T000000Z", "RRULE:FREQ=MINUTELY"), END),
        "it repeats more than 2000 times in the window",
    ),
    "secondly-with-huge-count-in-window": Probe(
        lambda: calendar(
            vevent("s", "DTSTART:20260201T000000Z", "RRULE:FREQ=SECONDLY;COUNT=1000000000"), END
        ),
        "it repeats more than 2000 times in the window",
    ),
    "never-matching-rule-from-1900": Probe(  # dateutil walked to year 9999 without a yield
        lambda: calendar(
            vevent("never", "DTSTART:19000101T000000Z", "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30"),
            END,
        ),
        0,
    ),
    "5000-rdates": Probe(
        lambda: calendar(
            vevent("r", "DTSTART:20260301T100000Z", "RDATE:" + ",".join(HOURS[:5000])), END
        ),
        "it repeats more than 2000 times in the window",
    ),
    "20000-rdates": Probe(
        lambda: calendar(vevent("r", "DTSTART:20260301T100000Z", "RDATE:" + ",".join(HOURS)), END),
        "it lists more than 10,000 RDATE/EXDATE dates",
    ),
    "100001-vevents": Probe(
        lambda: calendar(*(vevent(i, "DTSTART:20260305T100000Z") for i in range(100_001)), END),
        "more than 100,000 calendar items",
    ),
    "99000-vevents-in-the-window": Probe(
        lambda: calendar(*(vevent(i, "DTSTART:20260305T100000Z") for i in range(99_000)), END),
        "needs more than 1.5 s of work to import",
    ),
    "20000-minutely-series": Probe(
        lambda: calendar(
            *(vevent(i, "DTSTART:19000101T000000Z", "RRULE:FREQ=MINUTELY") for i in range(20_000)),
            END,
        ),
        "needs more than 1.5 s of work to import",
    ),
    "a-1-mb-event": Probe(
        lambda: calendar(vevent("big", "DTSTART:20260305T100000Z", "X-DATA:" + "x" * 2**20), END),
        "it is over 512 KB",
    ),
    "truncated-no-end-vcalendar": Probe(
        lambda: calendar(vevent("t", "DTSTART:20260305T100000Z")),
        "the file is truncated (incomplete): END:VCALENDAR is missing",
    ),
    "truncated-inside-an-event": Probe(
        lambda: calendar(vevent("t", "DTSTART:20260305T100000Z"))[:-40],
        "the file is truncated (incomplete): it stops inside the VEVENT begun on line 4",
    ),
    "end-does-not-match-begin": Probe(
        lambda: calendar("BEGIN:VEVENT\r\nBEGIN:VALARM\r\nEND:VEVENT\r\n", END),
        "line 6 has END:VEVENT where BEGIN:VALARM (line 5) should end",
    ),
    "bad-dtstart-value": Probe(
        lambda: calendar(vevent("d", "DTSTART:2026-13-45T99"), END),
        "its DTSTART value '2026-13-45T99' is not a date or date-time",
    ),
    "bad-rrule-value": Probe(
        lambda: calendar(vevent("d", "DTSTART:20260305T100000Z", "RRULE:FREQ=SOMETIMES"), END),
        "its RRULE value 'FREQ=SOMETIMES' is not a recurrence rule",
    ),
    "not-icalendar-text": Probe(
        lambda: b"Hi Tom, lunch on Thursday at 1? Blue Bottle is fine.\n",
        "this is not an iCalendar (.ics) file",
    ),
    "a-login-page-saved-as-ics": Probe(
        lambda: b"<!DOCTYPE html>\n<html><body><form>Sign in</form></body></html>",
        "this is a web page (HTML), not an iCalendar (.ics) file",
    ),
    "binary-garbage": Probe(
        lambda: bytes((i * 7919) % 256 for i in range(4096)), "this is a binary file"
    ),
    "undecodable-bytes": Probe(
        lambda: calendar(vevent("l", "DTSTART:20260305T100000Z", "LOCATION:Café"), END).replace(
            "é".encode(), b"\xe9"
        ),
        "the file is not UTF-8 text (byte 0xE9 on line 7",
    ),
    "utf-16": Probe(  # Outlook's UTF-16 is read, not refused (issue 40)
        lambda: calendar(vevent("u", "DTSTART:20260305T100000Z"), END).decode().encode("utf-16"),
        1,
    ),
    "utf-16-le-without-bom": Probe(
        lambda: calendar(vevent("u", "DTSTART:20260305T100000Z"), END).decode().encode("utf-16-le"),
        1,
    ),
    "utf-16-that-does-not-decode": Probe(
        lambda: b"\xff\xfe" + "BEGIN:VCALENDAR".encode("utf-16-le") + b"\x00\xd8",
        "the file is UTF-16 text that does not decode",
    ),
    # Issue 40: a VTIMEZONE repeating every second from 1601 ran inside dateutil's zone code,
    # where no budget of Veil's is checked: 3.2 GB in two minutes.
    "vtimezone-every-second-from-1601": Probe(
        lambda: (DATA / "hostile" / "vtimezone-every-second.ics").read_bytes(),
        "its time zone 'Bomb' changes offset every second",
    ),
    "end-before-start": Probe(
        lambda: calendar(vevent("e", "DTSTART:20260305T100000Z", "DTEND:20260305T090000Z"), END),
        "its end (DTEND) is before its start (DTSTART)",
    ),
    "unknown-tzid": Probe(
        lambda: calendar(vevent("z", "DTSTART;TZID=Mars/Olympus_Mons:20260305T100000"), END),
        "its DTSTART time zone 'Mars/Olympus_Mons' is unknown",
    ),
}


def outcome(data: bytes) -> IcsImport | IcsError:
    """The import's result, or the IcsError it raised (anything else fails the test)."""
    try:
        return import_ics(data, tz=TZ, source="import:probe.ics", **WINDOW)
    except IcsError as error:
        return error


def measured(data: bytes) -> tuple[IcsImport | IcsError, float, int]:
    """The outcome, its CPU seconds on this thread, and the tracemalloc peak of a second run.
    This thread's CPU time, as the importer's own budget counts it: neither another busy
    process nor a thread an earlier test left running inflates it (wall time did, and the
    process's CPU time did in a full run: 2.08 s, against 1.6 s of the import's own work).
    The garbage thousands of earlier tests left is collected first: a full run's collector
    otherwise sweeps it inside the measured import (2.01-2.09 s there, 1.5 s alone), and what
    is still alive is frozen out of the collector's sight while the import runs: a full run's
    live heap (models, earlier fixtures) made each collection the import triggered walk all of
    it (2.13 s in a fresh-clone CI run)."""
    gc.collect()
    gc.freeze()
    try:
        started = time.thread_time()
        result = outcome(data)
        seconds = time.thread_time() - started
    finally:
        gc.unfreeze()
    tracemalloc.start()
    try:
        outcome(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, seconds, peak


@pytest.mark.parametrize("probe", ICS_PROBES.values(), ids=ICS_PROBES.keys())
def test_a_hostile_ics_ends_in_a_clear_message_in_bounded_time_and_memory(probe: Probe) -> None:
    result, seconds, peak = measured(probe.build())
    assert seconds < SECONDS, f"{seconds:.2f} s"
    assert peak < PEAK_BYTES, f"{peak / 2**20:.0f} MB"
    if isinstance(probe.expect, int):
        assert isinstance(result, IcsImport) and not result.refused
        assert len(result.events) == probe.expect
        return
    messages = [str(result)] if isinstance(result, IcsError) else [r.reason for r in result.refused]
    assert any(probe.expect in message for message in messages), messages
    assert all("\n" not in m and "Traceback" not in m and len(m) < 200 for m in messages)


def test_a_good_series_next_to_a_bomb_still_imports() -> None:
    """A refused series costs only itself: the rest of the file arrives."""
    data = calendar(
        vevent("bomb", "DTSTART:19000101T000000Z", f"RRULE:FREQ=HOURLY;BYMINUTE={SIXTY}"),
        vevent("standup", "DTSTART:20150105T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO"),
        END,
    )
    result = import_ics(data, tz=TZ, source="import:mixed.ics", **WINDOW)
    assert {e.uid for e in result.events} == {"standup"}
    assert len(result.events) in (56, 57)  # Mondays in the 395-day window
    assert [r.reason for r in result.refused] == ["it repeats more than 2000 times in the window"]


# --- thread text and the time parser ----------------------------------------------------------


@pytest.fixture(scope="module")
def parser() -> TimeParser:
    return TimeParser(tz=TZ, now=NOW)


@pytest.mark.parametrize(
    "thread",
    [
        "Tom: lunch\x00 tomorrow at 1pm?\nMe: ok",
        "Tom: lunch tomorrow at 1pm?\x00",
        "\x00" * 100,
        "Tom: tomorrow\x1b[31m at 3pm\x07\nMe: sure\x7f",
        "Tom: a\ud800 tomorrow at 3pm",  # a lone surrogate broke lingua's language detection
    ],
    ids=["nul-inside", "nul-at-end", "only-nuls", "escape-codes", "lone-surrogate"],
)
def test_control_characters_never_reach_duckling(
    parser: TimeParser, thread: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """A NUL made Duckling panic in Rust and print the text to stderr (issue 17)."""
    mentions = parser.parse_input("when?", thread=thread)
    assert all(0 <= m.start < m.end <= len(thread) for m in mentions)
    if "3pm" in thread or "1pm" in thread:
        assert any(m.start <= thread.index("pm") < m.end for m in mentions)
    assert "panicked" not in capfd.readouterr().err


@pytest.mark.parametrize("code", ["\x1b[31m", "\x1b[1;31m", "\x1b[0m", "\x1b]0;title\x07", "\x1bc"])
def test_a_terminal_code_is_no_duration(parser: TimeParser, code: str) -> None:
    """ "[31m" left of a colour code was read as a 31-minute duration (issue 40)."""
    thread = clean_text(f"Tom: {code}lunch tomorrow at 3pm{code}\nMe: sure")
    assert "[" not in thread and "m\x07" not in thread
    mentions = parser.parse_input("add lunch", thread=thread)
    assert not [m for m in mentions if m.duration is not None]
    assert 15 in [m.value.hour for m in mentions if m.value is not None and m.has_clock_time]


class PanicException(BaseException):
    """What pyo3 raises for a Rust panic: not an Exception."""


@pytest.mark.parametrize(
    ("raised", "expected"),
    [(PanicException("boom"), TimeParseError), (KeyboardInterrupt(), KeyboardInterrupt)],
    ids=["panic-becomes-a-veil-error", "ctrl-c-still-stops"],
)
def test_a_native_failure_in_duckling_is_a_clear_error(
    parser: TimeParser,
    monkeypatch: pytest.MonkeyPatch,
    raised: BaseException,
    expected: type[BaseException],
) -> None:
    def explode(*args: Any) -> None:
        raise raised

    monkeypatch.setattr(_engine()._duckling, "parse", explode)
    with pytest.raises(expected) as caught:
        parser.parse("lunch tomorrow at 1pm")
    if expected is TimeParseError:
        assert "time parser failed" in str(caught.value) and "lunch" not in str(caught.value)


# --- e-mail drafts -----------------------------------------------------------------------------


def context(tmp_path: Path) -> ToolContext:
    return ToolContext(
        tz=TZ, now=NOW, out_dir=tmp_path / "out", calendar=CalendarStore(Database(memory=True))
    )


SMUGGLED = {
    "crlf-bcc-in-recipient": ({"to": ["a@example.com\r\nBcc: x@evil.example"]}, "line break"),
    "lf-bcc-in-recipient": ({"to": ["a@example.com\nBcc: x@evil.example"]}, "line break"),
    "cr-bcc-in-recipient": ({"to": ["a@example.com\rBcc: x@evil.example"]}, "line break"),
    "bcc-group-after-a-comma": ({"to": ["a@example.com, Bcc: x@evil.example"]}, "group"),
    "nul-in-recipient": ({"to": ["a@example.com\x00"]}, "control character"),
    "crlf-bcc-in-cc": ({"to": ["a@example.com"], "cc": ["b@example.com\r\nBcc: x@e.com"]}, "line"),
    "unquoted-comma-in-a-display-name": (
        {"to": ["Smith, Bob <bob@example.com>"]},
        'a name with a comma must be quoted, like "Smith, Bob"',
    ),
    "display-name-that-is-another-address": (
        {"to": ['"boss@example.com" <x@evil.example>']},
        "looks like another address",
    ),
    "two-addresses-without-a-comma": (
        {"to": ["a@example.com x@evil.example"]},
        "not a plain list of e-mail addresses",
    ),
    "crlf-bcc-in-subject": (
        {"to": ["a@example.com"], "subject": "Lunch\r\nBcc: x@evil.example"},
        "the subject holds a line break",
    ),
    "lf-bcc-in-subject": (
        {"to": ["a@example.com"], "subject": "Lunch\nBcc: x@evil.example"},
        "the subject holds a line break",
    ),
}


@pytest.mark.parametrize(("args", "expect"), SMUGGLED.values(), ids=SMUGGLED.keys())
def test_a_smuggled_header_or_recipient_is_refused(
    tmp_path: Path, args: dict[str, Any], expect: str
) -> None:
    result = draft_reply({"subject": "Lunch", "body": "Thursday at 1?", **args}, context(tmp_path))
    assert not result.ok and expect in (result.error or ""), result.error
    assert not (tmp_path / "out").exists()  # no draft written


def draft_headers(result: ToolResult) -> Any:
    eml = next(f for f in result.files if f.type == "eml")
    return message_from_bytes(Path(eml.path or "").read_bytes(), policy=policy.default)


def test_a_quoted_display_name_with_a_comma_is_one_recipient(tmp_path: Path) -> None:
    result = draft_reply(
        {"to": ['"Smith, Bob" <bob@example.com>'], "subject": "Lunch", "body": "1pm?"},
        context(tmp_path),
    )
    assert result.ok, result.error
    message = draft_headers(result)
    assert [a.addr_spec for a in message["To"].addresses] == ["bob@example.com"]
    assert message["To"].addresses[0].display_name == "Smith, Bob"
    assert message["Bcc"] is None and message["Cc"] is None


@pytest.mark.parametrize(
    ("to", "subject"),
    [(["a@example.com?bcc=x@evil.example"], "Lunch"), (["a@example.com"], "Lunch\r\nBcc: x@e")],
    ids=["query-in-address", "crlf-in-subject"],
)
def test_the_mailto_builder_refuses_what_would_add_fields(to: list[str], subject: str) -> None:
    with pytest.raises(ValueError, match="mailto"):
        mailto_url(to, [], subject, "body")


# --- fuzzing ----------------------------------------------------------------------------------

_DATE_VALUES = st.one_of(
    st.dates(min_value=date(1, 1, 1), max_value=date(9999, 12, 31)).map(
        lambda d: f"{d.year:04d}{d.month:02d}{d.day:02d}"
    ),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)).map(
        lambda d: d.strftime("%Y%m%dT%H%M%S") + "Z"
    ),
    st.text(max_size=20),
)
_NUMBERS = st.lists(st.integers(-400, 400), min_size=1, max_size=80).map(
    lambda xs: ",".join(map(str, xs))
)
_RULE_PARTS = st.lists(
    st.one_of(
        st.sampled_from(
            ["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY", "SECONDLY", "X"]
        ).map(lambda f: f"FREQ={f}"),
        st.integers(-5, 10**10).map(lambda n: f"COUNT={n}"),
        st.integers(-2, 1000).map(lambda n: f"INTERVAL={n}"),
        _DATE_VALUES.map(lambda v: f"UNTIL={v}"),
        st.tuples(
            st.sampled_from(
                ["BYSECOND", "BYMINUTE", "BYHOUR", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO"]
                + ["BYMONTH", "BYSETPOS"]
            ),
            _NUMBERS,
        ).map("=".join),
        st.lists(st.sampled_from(["MO", "TU", "1MO", "-1FR", "53SU", "XX"]), min_size=1).map(
            lambda days: "BYDAY=" + ",".join(days)
        ),
    ),
    min_size=1,
    max_size=6,
).map(";".join)
_LINES = st.one_of(
    st.sampled_from(["BEGIN:VEVENT", "END:VEVENT", "BEGIN:VALARM", "END:VALARM", "END:VCALENDAR"]),
    _DATE_VALUES.map(lambda v: f"DTSTART:{v}"),
    _DATE_VALUES.map(lambda v: f"DTEND:{v}"),
    st.lists(_DATE_VALUES, min_size=1, max_size=30).map(lambda vs: "RDATE:" + ",".join(vs)),
    _RULE_PARTS.map(lambda rule: f"RRULE:{rule}"),
    st.text(max_size=40).map(lambda text: f"SUMMARY:{text}"),
    st.text(max_size=40),
)


@FUZZ
@given(
    lines=st.lists(_LINES, max_size=30),
    newline=st.sampled_from(["\r\n", "\n"]),
    closed=st.booleans(),
)
def test_fuzzed_ics_imports_or_says_why_within_the_budget(
    lines: list[str], newline: str, closed: bool
) -> None:
    text = newline.join(["BEGIN:VCALENDAR", *lines, *(["END:VCALENDAR"] if closed else [])])
    data = text.encode("utf-8", "surrogateescape")
    started = time.process_time()
    result = outcome(data)  # anything but IcsImport or IcsError fails here
    assert time.process_time() - started < SECONDS
    if isinstance(result, IcsError):
        assert "\n" not in str(result)


@FUZZ
@given(data=st.binary(max_size=2000))
def test_fuzzed_bytes_import_or_say_why(data: bytes) -> None:
    result = outcome(b"BEGIN:VCALENDAR\r\n" + data)
    assert isinstance(result, IcsImport | IcsError)


_THREAD_TEXT = st.lists(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_categories=()), max_size=30),
        st.sampled_from(
            ["Tom: ", "\nMe: ", " tomorrow at 3pm", " lunch Thu 1pm", "\x00", "\r\n", "\ud800"]
        ),
    ),
    max_size=12,
).map("".join)


@FUZZ
@given(request=_THREAD_TEXT, thread=_THREAD_TEXT)
def test_fuzzed_thread_text_parses_or_fails_cleanly(
    parser: TimeParser, request: str, thread: str
) -> None:
    try:
        mentions = parser.parse_input(request, thread=thread)
    except TimeParseError:
        return
    assert all(0 <= m.start <= m.end for m in mentions)


_RULES = st.builds(
    lambda freq, interval, parts: ";".join([f"FREQ={freq}", f"INTERVAL={interval}", *parts]),
    st.sampled_from(["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY"]),
    st.integers(1, 13),
    st.lists(
        st.sampled_from(
            ["BYMONTH=2,3", "BYMONTHDAY=29,30,31", "BYMONTHDAY=-1", "BYDAY=MO,FR", "BYDAY=-1FR"]
            + ["BYHOUR=9,17", "BYMINUTE=30", "BYSETPOS=1", "BYSETPOS=-1", "WKST=SU", "BYWEEKNO=1"]
            + ["BYYEARDAY=60,-1", "UNTIL=20260601T000000Z"]
        ),
        max_size=3,
        unique=True,
    ),
)


@FUZZ
@given(
    rule=_RULES,
    start=st.datetimes(min_value=datetime(2012, 1, 1), max_value=datetime(2026, 6, 1)),
    aware=st.booleans(),
)
def test_the_metered_expansion_matches_plain_dateutil(
    rule: str, start: datetime, aware: bool
) -> None:
    """Moving DTSTART forward by whole periods must not change a single occurrence."""
    zone = ZoneInfo(TZ) if aware else None
    text = rule if aware else rule.replace("Z", "")
    try:
        plain = dateutil.rrule.rrulestr(text, dtstart=start.replace(tzinfo=zone, microsecond=0))
    except ValueError:
        return  # a rule dateutil itself refuses never reaches the metered path
    first = NOW.replace(tzinfo=zone) - timedelta(days=3)
    last = first + timedelta(days=120)
    expected = plain.between(first, last, inc=True)
    meter = recurrence._Meter(recurrence.Budget(60, series_steps=10**9, series_seconds=60))
    assert list(recurrence._lazy_between(plain, first, last, meter)) == expected


def test_a_window_in_utc_and_one_in_the_users_zone_agree() -> None:
    """The skip of events outside the window keeps a margin for zones: none is lost."""
    data = calendar(vevent("edge", "DTSTART:20260130T230000Z", "DTEND:20260130T233000Z"), END)
    start = datetime(2026, 1, 31, 0, 0, tzinfo=ZoneInfo(TZ))
    result = import_ics(
        data, tz=TZ, source="import:e", window_start=start, window_end=start + timedelta(days=2)
    )
    assert [e.start.astimezone(UTC).hour for e in result.events] == [23]
