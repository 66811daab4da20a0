""".ics in and out (RFC 5545) on icalendar + recurring-ical-events.

Import is defensive: calendars come from every client ever written and from fuzzers. A file either
imports (with any single bad event listed in `refused` with a one-line reason) or raises IcsError
with a one-line reason; nothing in here lets a parser traceback reach the user. It is also
bounded: ics_text reads the file as text first (structure, encoding, sizes; items far outside
the window are never parsed) and recurrence expands series on a CPU and step budget, so any
file ends in under two seconds and a few MB (issue 17). Export keeps the
wall time in its zone: DTSTART;TZID=Europe/Berlin:...T150000 plus a matching VTIMEZONE, never a
silent conversion to UTC.
"""

from __future__ import annotations

import hashlib
import logging
import re
import uuid
import warnings
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

import icalendar
import x_wr_timezone
from icalendar.timezone.windows_to_olson import WINDOWS_TO_OLSON

from memory.event import CalendarEvent, local_midnight, zone
from privacy.entity_map import PLACEHOLDER_RE
from tools import worker
from tools.calendar import ics_text, recurrence
from tools.errors import IcsError

log = logging.getLogger(__name__)

MAX_ICS_BYTES = 20 * 1024 * 1024
MAX_OCCURRENCES_PER_SERIES = 2_000
MAX_EVENTS = 50_000
# CPU seconds one import may use, parsing and expanding together: the hostile files of issue 17
# (a 565-byte RRULE, 100,000 tiny VEVENTs) are refused in about this time, while a real
# calendar's events in the window take a small part of it (events outside are never parsed).
MAX_IMPORT_SECONDS = 1.5
_TOO_SLOW = (
    "the file needs more than {:g} s of work to import (too many events or repeats in the "
    "window); export a shorter date range"
)
# Offset changes one VTIMEZONE part may list by date (RDATE): real ones list a few dozen.
MAX_ZONE_DATES = 1_000
_EVERY = {
    "SECONDLY": "every second",
    "MINUTELY": "every minute",
    "HOURLY": "every hour",
    "DAILY": "every day",
    "WEEKLY": "every week",
    "MONTHLY": "every month",
}
# Wall-clock seconds an import may take in a worker (tools/worker.py): the CPU budget above
# covers Veil's own loops, this the libraries' (a zone's rules, the parser) as well.
IMPORT_WALL_SECONDS = 4.0
PRODID = "-//Veil//Veil private assistant//EN"
NO_TITLE = "(no title)"

_UTF16 = "UTF-16 text that does not decode; export it again as UTF-8"
_MAGIC = (
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (or an Office document)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"BEGIN:VCARD", "a vCard (contact)"),
    (b"<!DOCTYPE HTML", "a web page (HTML)"),
    (b"<HTML", "a web page (HTML)"),
    (b"<?XML", "an XML document (xCal is not supported)"),
)
_ITEM_NAMES = ("VEVENT", "VTODO", "VJOURNAL")
_PARSE_REASONS = (
    ("content line could not be parsed", "a line is not of the form NAME:value"),
    ("end encountered without", "BEGIN and END lines do not match"),
    ("tzid not found", "a VTIMEZONE has no TZID"),
    ("offset", "a UTC offset is out of range"),
    ("datetime", "a date or time value is malformed"),
    ("date", "a date or time value is malformed"),
    ("month", "a date or time value is malformed"),
    ("unsupported property", "a property name is malformed"),
)


@dataclass(frozen=True, slots=True)
class Refused:
    """One item of a calendar that was not imported, and why (one line)."""

    item: str
    reason: str


@dataclass(slots=True)
class IcsImport:
    """The events of one file expanded within the window, and what was left out."""

    events: list[CalendarEvent] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)


def _one_line(text: str, limit: int = 120) -> str:
    """Printable, single-line, bounded: safe to show whatever a broken file contained."""
    cleaned = "".join(ch if ch.isprintable() else " " for ch in text)
    cleaned = " ".join(cleaned.split())
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def as_utf8(data: bytes) -> bytes:
    """UTF-16 calendars (Outlook on Windows saves them; a BOM, or NULs between ASCII letters)
    as UTF-8; anything else unchanged. Called before control bytes are stripped, which would
    tear UTF-16 apart.

    Raises:
        IcsError: The bytes claim UTF-16 but do not decode.
    """
    head = bytes(data[:12])
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"
    elif head[1::2].startswith(b"BEGIN") and not head[::2].strip(b"\x00"):
        encoding = "utf-16-be"  # "\0B\0E\0G..."
    elif head[::2].startswith(b"BEGIN") and not head[1::2].strip(b"\x00"):
        encoding = "utf-16-le"
    else:
        return bytes(data)
    try:
        return bytes(data).decode(encoding).lstrip("\ufeff").encode("utf-8")
    except UnicodeDecodeError:
        raise IcsError(f"the file is {_UTF16}") from None


def _sniff(data: bytes, max_bytes: int) -> bytes:
    """Refuse what is clearly not an iCalendar file before the parser sees it."""
    if not isinstance(data, bytes | bytearray):
        raise TypeError(f"import_ics needs bytes, got {type(data).__name__}")
    data = as_utf8(data)
    if len(data) > max_bytes:
        raise IcsError(
            f"the file is {len(data) / 1_048_576:.1f} MB, over the {max_bytes / 1_048_576:.0f} MB "
            "limit; export a shorter date range"
        )
    body = bytes(data).removeprefix(b"\xef\xbb\xbf").lstrip()
    if not body:
        raise IcsError("the file is empty")
    for magic, what in _MAGIC:
        if body[: len(magic)].upper() == magic:
            raise IcsError(f"this is {what}, not an iCalendar (.ics) file")
    if body[:1] in (b"[", b"{"):
        raise IcsError("this is a jCal (JSON) calendar; export it as .ics (text/calendar)")
    if b"\x00" in body[:4096]:
        if b"BEGIN:" in (body[:12:2], body[1:12:2]):
            raise IcsError(f"the file is {_UTF16}")
        raise IcsError("this is a binary file, not an iCalendar (.ics) file")
    if not body[:6].upper().startswith(b"BEGIN:"):
        raise IcsError(
            "this is not an iCalendar (.ics) file: it does not start with BEGIN:VCALENDAR"
        )
    return body


def _parse_piece(text: str) -> icalendar.Component:
    """One piece of a calendar (see ics_text), or IcsError with a readable reason."""
    try:
        return icalendar.Calendar.from_ical(text)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as error:
        # The parser's message may quote the file (user text, or binary garbage): classify it,
        # log only its type, and show a line of our own.
        log.info("ics parse failed: %s", type(error).__name__)
        message = str(error).lower()
        reason = next((r for key, r in _PARSE_REASONS if key in message), "the parser rejected it")
        raise IcsError(f"not valid iCalendar: {reason}") from None


def _dt(prop: object) -> object:
    """The value of a date/time property, or None when it is missing or unreadable."""
    try:
        return getattr(prop, "dt", None)
    except icalendar.InvalidCalendar:
        return None


@lru_cache(maxsize=1)
def _known_zones() -> frozenset[str]:
    """Every IANA zone name this machine's tz database knows."""
    return frozenset(available_timezones())


@lru_cache(maxsize=1)
def _zones_by_suffix() -> dict[str, list[str]]:
    """IANA zones indexed by their last path part ("Berlin" -> ["Europe/Berlin"])."""
    index: dict[str, list[str]] = {}
    for name in _known_zones():
        if "/" in name and not name.startswith(("Etc/", "SystemV/", "posix/", "right/")):
            index.setdefault(name.rsplit("/", 1)[1].lower(), []).append(name)
    return index


def _same_rules(candidate: str, tz: tzinfo, around: datetime) -> bool:
    """True when an IANA zone gives the file's offsets in all four seasons of that year."""
    if candidate not in _known_zones():
        return False
    iana = ZoneInfo(candidate)
    naive = around.replace(tzinfo=None)
    probes = [naive.replace(month=month, day=15) for month in (1, 4, 7, 10)]
    try:
        return all(
            p.replace(tzinfo=iana).utcoffset() == p.replace(tzinfo=tz).utcoffset() for p in probes
        )
    except (ValueError, OverflowError, TypeError):
        return False


def _iana_name(value: datetime, tzid: str | None) -> str | None:
    """The IANA name for an aware time from a file: TZID, Windows name, vendor prefix, city."""
    tz = value.tzinfo
    if isinstance(tz, ZoneInfo) and tz.key != "UTC":
        return tz.key
    if tz is None or not tzid:
        return None
    return _iana_name_for(tz, tzid, value.replace(tzinfo=None, month=1, day=1, hour=12, minute=0))


@lru_cache(maxsize=256)
def _iana_name_for(tz: tzinfo, tzid: str, year_start: datetime) -> str | None:
    """_iana_name for a private VTIMEZONE, cached per zone and year (series repeat them)."""
    candidates = [tzid, WINDOWS_TO_OLSON.get(tzid.strip(), "")]
    # "/mozilla.org/20050126_1/Europe/Berlin", "custom_America/New_York": a known zone at the end.
    parts = re.split(r"[^A-Za-z0-9_+\-]+", tzid)
    for start in range(len(parts)):
        candidates.append("/".join(p for p in parts[start:] if p))
    # Outlook's "(UTC+01:00) Amsterdam, Berlin, Bern, Rome": any city that is a zone name.
    for word in re.findall(r"[A-Za-z][A-Za-z_ .'-]+", tzid):
        candidates.extend(_zones_by_suffix().get(word.strip().replace(" ", "_").lower(), []))
    for candidate in candidates:
        if _same_rules(candidate, tz, year_start):
            return candidate
    return None


def _as_event_time(value: date, tzid: str | None, user_tz: str) -> tuple[datetime, str]:
    """A file's DTSTART/DTEND value as (aware time, IANA zone name) without moving the instant."""
    if not isinstance(value, datetime):
        return local_midnight(value, user_tz), user_tz
    if value.tzinfo is None or value.utcoffset() is None:
        # Floating time: "10:00 wherever you are" means the user's zone.
        return value.replace(tzinfo=zone(user_tz)), user_tz
    name = _iana_name(value, tzid)
    if name is None:
        # UTC or a private VTIMEZONE: keep the instant, show it in the user's zone.
        name = user_tz
    return value.astimezone(ZoneInfo(name)), name


def _text(component: icalendar.Component, name: str) -> str:
    """A text property as one plain string ('' when absent or repeated oddly)."""
    value = component.get(name)
    if isinstance(value, list):
        value = value[0] if value else ""
    return str(value or "").strip()


def _attendees(component: icalendar.Component) -> list[str]:
    """Attendees as people read them: the CN, else the e-mail address."""
    raw = component.get("ATTENDEE") or []
    people = []
    for value in raw if isinstance(raw, list) else [raw]:
        params = getattr(value, "params", {}) or {}
        name = str(params.get("CN", "")).strip().strip('"')
        address = re.sub(r"^mailto:", "", str(value), flags=re.IGNORECASE).strip()
        person = name or address
        if person and person not in people:
            people.append(person)
    return people


def _alarm_minutes(component: icalendar.Component) -> int | None:
    """Minutes before start of the first relative VALARM, if any."""
    for alarm in component.walk("VALARM"):
        trigger = alarm.get("TRIGGER")
        offset = _dt(trigger)
        if isinstance(offset, timedelta) and offset <= timedelta(0):
            return int(-offset.total_seconds() // 60)
    return None


def _describe(component: icalendar.Component) -> str:
    """A short label for a refused item: summary and start as written in the file."""
    title = _one_line(_text(component, "SUMMARY"), 60) or NO_TITLE
    when = _dt(component.get("DTSTART"))
    shown = when.isoformat() if isinstance(when, date) else ""
    return f"{component.name} '{title}'" + (f" at {shown}" if shown else "")


# What each date or rule property should hold, for the message when it does not.
_EXPECTED = {
    "DTSTART": "a date or date-time",
    "DTEND": "a date or date-time",
    "RECURRENCE-ID": "a date or date-time",
    "RDATE": "a list of dates or date-times",
    "EXDATE": "a list of dates or date-times",
    "DURATION": "a duration such as PT1H",
    "RRULE": "a recurrence rule such as FREQ=WEEKLY;BYDAY=MO",
}


def _broken(component: icalendar.Component) -> str | None:
    """The first date or rule property the parser could not read, named with its value."""
    for name, expected in _EXPECTED.items():
        values = component.get(name)
        for value in values if isinstance(values, list) else [values]:
            if isinstance(value, icalendar.vBroken):
                shown = _one_line(str(value), 40)
                return f"its {name} value '{shown}' is not {expected}"
    return None


def _check_event(component: icalendar.Component, zones: Collection[str] = ()) -> str | None:
    """Why this VEVENT cannot be imported, or None when it looks usable; `zones` are the
    TZIDs of the file's own VTIMEZONEs."""
    start = component.get("DTSTART")
    if start is None:
        return "it has no start time (DTSTART)"
    if isinstance(start, list):
        return "it has more than one start time (DTSTART)"
    broken = _broken(component)
    if broken:
        return broken
    start_value = _dt(start)
    if not isinstance(start_value, date):
        return f"its DTSTART value '{_one_line(str(start), 40)}' is not a date or date-time"
    for name in ("DTEND", "DURATION", "RECURRENCE-ID"):
        value = component.get(name)
        if isinstance(value, list):
            return f"it has more than one {name}"
        if value is not None and not isinstance(_dt(value), date | timedelta):
            return f"its {name} value '{_one_line(str(value), 40)}' is malformed"
    end_value = _dt(component.get("DTEND"))
    if end_value is not None and isinstance(start_value, datetime) != isinstance(
        end_value, datetime
    ):
        return "its start and end mix a date with a date-time"
    for name, value in (("DTSTART", start), ("DTEND", component.get("DTEND"))):
        # icalendar leaves a time naive when it cannot place its TZID: neither an IANA or
        # Windows name nor a VTIMEZONE beside it. Taken as the user's zone it was an hour or
        # more off, silently (issue 40).
        tzid = str(getattr(value, "params", {}).get("TZID", "") or "")
        moment = _dt(value)
        if tzid and isinstance(moment, datetime) and moment.tzinfo is None and tzid not in zones:
            return (
                f"its {name} time zone '{_one_line(tzid, 40)}' is unknown (not an IANA name "
                "like Europe/Berlin, and the file has no VTIMEZONE for it)"
            )
    if end_value is not None and _ends_before_start(start_value, end_value):
        return "its end (DTEND) is before its start (DTSTART); fix the event and export it again"
    return None


def _ends_before_start(start: date, end: date) -> bool:
    """Whether `end` is earlier than `start` (a naive and an aware time compare as wall times)."""
    if isinstance(start, datetime) and isinstance(end, datetime):
        if (start.tzinfo is None) != (end.tzinfo is None):
            start, end = start.replace(tzinfo=None), end.replace(tzinfo=None)
    return bool(end < start)


def _recurrence_key(value: date, user_tz: str) -> str:
    """RECURRENCE-ID in a stable text form: UTC date-time, or the date for all-day series."""
    if not isinstance(value, datetime):
        return value.strftime("%Y%m%d")
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone(user_tz))
    return value.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _fallback_uid(component: icalendar.Component, source: str) -> str:
    """A stable UID for an event the file left without one (same file, same UID)."""
    digest = hashlib.sha256(
        f"{source}|{_text(component, 'SUMMARY')}|{component.get('DTSTART')!r}".encode()
    ).hexdigest()[:32]
    return f"{digest}@import.veil.local"


@dataclass(frozen=True, slots=True)
class _Details:
    """What an occurrence shares with the component it came from (read once per component)."""

    cancelled: bool
    title: str
    location: str
    description: str
    attendees: list[str]
    alarm_minutes: int | None
    start_tzid: str | None
    end_tzid: str | None
    recurrence_id: date | None  # meaningful for a moved occurrence (a modification) only

    @classmethod
    def of(cls, component: icalendar.Component) -> _Details:
        """Read the descriptive properties of one VEVENT."""
        tzids = [
            getattr(component.get(name), "params", {}).get("TZID") for name in ("DTSTART", "DTEND")
        ]
        return cls(
            cancelled=_text(component, "STATUS").upper() == "CANCELLED",
            title=_text(component, "SUMMARY") or NO_TITLE,
            location=_text(component, "LOCATION"),
            description=_text(component, "DESCRIPTION"),
            attendees=_attendees(component),
            alarm_minutes=_alarm_minutes(component),
            start_tzid=tzids[0],
            end_tzid=tzids[1] or tzids[0],
            recurrence_id=_dt(component.get("RECURRENCE-ID")),
        )


def _event_from(
    occurrence: Any,
    details: _Details,
    *,
    uid: str,
    recurring: bool,
    user_tz: str,
    source: str,
    raw_end: object = None,
) -> CalendarEvent:
    """One expanded occurrence as a CalendarEvent."""
    start, tz = _as_event_time(occurrence.start, details.start_tzid, user_tz)
    # The expander adds (DTEND - DTSTART) to DTSTART as wall time, which is an hour off when
    # the two are in different zones across a DST change; a single event's own DTEND is exact.
    end_value = raw_end if isinstance(raw_end, datetime) and not recurring else occurrence.end
    all_day = not isinstance(occurrence.start, datetime)
    if all_day:
        end_day = end_value if isinstance(end_value, date) else occurrence.start
        end_day = end_day.date() if isinstance(end_day, datetime) else end_day
        end = local_midnight(max(end_day, occurrence.start + timedelta(days=1)), user_tz)
    else:
        end, _ = _as_event_time(end_value, details.end_tzid, user_tz)
        end = max(end, start)
    recurrence_id = None
    if recurring:
        # A moved occurrence keeps the RECURRENCE-ID it replaces; the others are their start.
        moved = occurrence.recurrence_ids and isinstance(details.recurrence_id, date)
        original = details.recurrence_id if moved else occurrence.start
        recurrence_id = _recurrence_key(original, user_tz)
    return CalendarEvent(
        uid=uid,
        title=details.title,
        start=start,
        end=end,
        all_day=all_day,
        tz=tz,
        location=details.location,
        description=details.description,
        attendees=list(details.attendees),
        source=source,
        alarm_minutes=details.alarm_minutes,
        recurrence_id=recurrence_id,
    )


def _series_groups(
    components: Iterable[icalendar.Component],
    source: str,
    refused: list[Refused],
    zones: Collection[str] = (),
) -> dict[str, list[icalendar.Component]]:
    """Usable VEVENTs grouped by UID (a series and its moved occurrences share a UID)."""
    groups: dict[str, list[icalendar.Component]] = {}
    for component in components:
        if component.name != "VEVENT":
            continue
        problem = _check_event(component, zones)
        if problem:
            refused.append(Refused(_describe(component), problem))
            continue
        uid = _text(component, "UID") or _fallback_uid(component, source)
        groups.setdefault(uid, []).append(component)
    return groups


def _rule_text(components: list[icalendar.Component]) -> str:
    """The series' first RRULE as written (shortened), or '' when it has none."""
    for component in components:
        rules = component.get("RRULE")
        rule = rules[0] if isinstance(rules, list) else rules
        if rule is not None:
            text = rule.to_ical().decode(errors="replace") if hasattr(rule, "to_ical") else rule
            return _one_line(str(text).replace("\\;", ";"), 60)
    return ""


def _why(components: list[icalendar.Component]) -> str:
    """One-line reason for a series the expander could not handle."""
    rule = _rule_text(components)
    if rule:
        return f"its recurrence rule could not be expanded ({rule})"
    return "its dates could not be expanded"


def _expand_group(
    timezones: Iterable[icalendar.Component],
    uid: str,
    components: list[icalendar.Component],
    *,
    window: tuple[datetime, datetime],
    user_tz: str,
    source: str,
    max_occurrences: int,
    budget: recurrence.Budget,
) -> list[CalendarEvent]:
    """Every occurrence of one UID inside the window, expanded on the import's budget."""
    single = icalendar.Calendar()
    for timezone in timezones:
        single.add_component(timezone)
    for component in components:
        if not component.get("UID"):
            component.add("UID", uid)
        single.add_component(component)
    recurring = len(components) > 1 or any(
        c.get(name) for c in components for name in ("RRULE", "RDATE", "RECURRENCE-ID")
    )
    events = []
    # Copying the component for every occurrence dominated the import time; the descriptive
    # fields are the same for all occurrences generated from one component, so read them once.
    details: dict[tuple[Any, ...], _Details] = {}
    raw_end = None if recurring else _dt(components[0].get("DTEND"))
    occurrences = recurrence.expand(single, *window, budget=budget, max_occurrences=max_occurrences)
    for occurrence in occurrences:
        key = tuple(occurrence.recurrence_ids)
        if key not in details:
            details[key] = _Details.of(occurrence.as_component(False))
        if details[key].cancelled:
            continue
        events.append(
            _event_from(
                occurrence,
                details[key],
                uid=uid,
                recurring=recurring,
                user_tz=user_tz,
                source=source,
                raw_end=raw_end,
            )
        )
    return events


def _check_zone_rules(component: icalendar.Component) -> None:
    """Refuse a VTIMEZONE whose offsets change more often than real zones do.

    Every zone in use changes its offset at most a few times a year, written as yearly rules.
    dateutil expands a zone's rule from its DTSTART on every offset lookup, outside any budget
    of ours: a STANDARD part repeating every second since 1601 froze a core and grew memory
    without bound (issue 40).
    """
    name = _one_line(_text(component, "TZID"), 40) or "(no TZID)"
    for part in component.subcomponents:
        rules = part.get("RRULE")
        for rule in rules if isinstance(rules, list) else [rules]:
            if rule is None:
                continue
            freq = rule.get("FREQ") if hasattr(rule, "get") else None
            freq = str(freq[0] if isinstance(freq, list) and freq else freq or "").upper()
            if freq != "YEARLY":
                every = _EVERY.get(freq, "by a rule that is not yearly")
                raise IcsError(
                    f"its time zone '{name}' changes offset {every} (real zones change at most "
                    "a few times a year); export the calendar again"
                )
        dates = part.get("RDATE")
        count = sum(
            len(getattr(d, "dts", [d]))
            for d in (dates if isinstance(dates, list) else [dates] if dates else [])
        )
        if count > MAX_ZONE_DATES:
            raise IcsError(
                f"its time zone '{name}' lists more than {MAX_ZONE_DATES} offset changes; "
                "export the calendar again"
            )


def _parse_calendar(
    calendar: ics_text.CalendarText, budget: recurrence.Budget
) -> tuple[list[icalendar.Component], dict[str, icalendar.Component]]:
    """The calendar's items parsed piece by piece, with the VTIMEZONEs they use, on budget."""
    components: list[icalendar.Component] = []
    timezones: dict[str, icalendar.Component] = {}
    for piece in calendar.pieces():
        budget.check()
        parsed = _parse_piece(piece)
        try:
            parsed = x_wr_timezone.to_standard(parsed)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            log.info("X-WR-TIMEZONE not applied: %s", type(error).__name__)
        if str(parsed.get("CALSCALE", "GREGORIAN")).upper() != "GREGORIAN":
            raise IcsError("only Gregorian calendars are supported (CALSCALE)")
        for component in parsed.subcomponents:
            if component.name == "VTIMEZONE":
                _check_zone_rules(component)
                timezones.setdefault(_text(component, "TZID"), component)
            else:
                components.append(component)
    return components, timezones


def import_ics(
    data: bytes,
    *,
    tz: str,
    window_start: datetime,
    window_end: datetime,
    source: str,
    max_bytes: int = MAX_ICS_BYTES,
    max_occurrences_per_series: int = MAX_OCCURRENCES_PER_SERIES,
    max_events: int = MAX_EVENTS,
    max_seconds: float = MAX_IMPORT_SECONDS,
) -> IcsImport:
    """Events of an .ics file within [window_start, window_end), recurring series expanded.

    Args:
        data: The raw file.
        tz: The user's IANA zone: floating times and all-day dates are taken in it.
        window_start: Aware start of the window; occurrences before it are not expanded.
        window_end: Aware end of the window.
        source: Stored on each event, "import:<name>".
        max_bytes: Larger files are refused before parsing.
        max_occurrences_per_series: A series repeating more often in the window is refused.
        max_events: A file expanding to more events is refused as a whole.
        max_seconds: CPU seconds for parsing and expanding; a file needing more is refused.

    Raises:
        IcsError: The file cannot be imported at all; the message is one line.
    """
    zone(tz)
    for name, value in (("window_start", window_start), ("window_end", window_end)):
        if value.tzinfo is None:
            raise ValueError(f"{name} must be timezone-aware")
    if window_end <= window_start:
        raise ValueError("window_end must be after window_start")
    if not source.startswith("import:"):
        raise ValueError(f"source must be 'import:<name>', got {source!r}")
    options = {
        "tz": tz,
        "window_start": window_start,
        "window_end": window_end,
        "source": source,
        "max_bytes": max_bytes,
        "max_occurrences_per_series": max_occurrences_per_series,
        "max_events": max_events,
        "max_seconds": max_seconds,
    }
    pool = worker.shared_pool()
    if pool is None:
        return _import_here(data, **options)
    try:
        return pool.run(
            _import_here, data, seconds=IMPORT_WALL_SECONDS, what="this .ics file", **options
        )
    except (worker.WorkerLimitError, worker.WorkerCrashError) as error:
        raise IcsError(f"{error}; export a shorter date range") from None


def _import_here(
    data: bytes,
    *,
    tz: str,
    window_start: datetime,
    window_end: datetime,
    source: str,
    max_bytes: int,
    max_occurrences_per_series: int,
    max_events: int,
    max_seconds: float,
) -> IcsImport:
    """import_ics in this process (a worker's, or the caller's when none is set)."""
    budget = recurrence.Budget(max_seconds)
    text = ics_text.decode(_sniff(data, max_bytes))
    days = (window_start.astimezone(zone(tz)).date(), window_end.astimezone(zone(tz)).date())
    try:
        calendars, skipped = ics_text.split(text, days, budget.check)
    except recurrence.OutOfTimeError:
        raise IcsError(_TOO_SLOW.format(max_seconds)) from None
    result = IcsImport(refused=[Refused(s.label, s.reason) for s in skipped])
    by_key: dict[tuple[str, str | None], CalendarEvent] = {}
    # Unknown-TZID guesses and similar parser warnings are expected on real-world files.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for calendar in calendars:
                components, timezones = _parse_calendar(calendar, budget)
                groups = _series_groups(components, source, result.refused, timezones.keys())
                for uid, group in groups.items():
                    for event in _expand_series(
                        timezones.values(),
                        uid,
                        group,
                        window=(window_start, window_end),
                        user_tz=tz,
                        source=source,
                        max_occurrences=max_occurrences_per_series,
                        budget=budget,
                        refused=result.refused,
                    ):
                        by_key[(event.uid, event.recurrence_id)] = event
                    if len(by_key) > max_events:
                        raise IcsError(
                            f"the file expands to more than {max_events} events in the window; "
                            "import a shorter date range"
                        )
        except recurrence.OutOfTimeError:
            raise IcsError(_TOO_SLOW.format(max_seconds)) from None
    result.events = sorted(by_key.values(), key=lambda e: (e.start.astimezone(UTC), e.uid))
    return result


def _expand_series(
    timezones: Iterable[icalendar.Component],
    uid: str,
    group: list[icalendar.Component],
    *,
    refused: list[Refused],
    **options: Any,
) -> list[CalendarEvent]:
    """One series' events, or none with the reason in `refused` when it cannot be expanded."""
    try:
        return _expand_group(timezones, uid, group, **options)
    except recurrence.OutOfTimeError:
        raise
    except recurrence.TooManyOccurrencesError:
        reason = f"it repeats more than {options['max_occurrences']} times in the window"
    except recurrence.SeriesTooCostlyError as error:
        reason = (
            f"its recurrence rule needs {error} to reach and fill the window "
            f"({_rule_text(group) or 'its dates'}); shorten the rule"
        )
    # A third-party expander on hostile input can fail in many ways; one series failing must
    # refuse that series only, with a reason, never the whole import.
    except Exception as error:
        log.info("a series was refused: %s", type(error).__name__)
        reason = _why(group)
    refused.append(Refused(_describe(group[0]), reason))
    return []


def _calendar_address(person: str) -> icalendar.vCalAddress:
    """ATTENDEE value: mailto for an address, a stable urn:uuid plus CN for a bare name."""
    match = re.fullmatch(
        r"\s*(?:\"?([^\"<]*?)\"?\s*<)?([^\s<>@]+@[^\s<>@]+\.[^\s<>@]+)>?\s*", person
    )
    if match:
        address = icalendar.vCalAddress(f"mailto:{match.group(2)}")
        name = (match.group(1) or "").strip()
    else:
        address = icalendar.vCalAddress(f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, person)}")
        name = person.strip()
    if name:
        address.params["CN"] = name
    address.params["ROLE"] = "REQ-PARTICIPANT"
    address.params["PARTSTAT"] = "NEEDS-ACTION"
    return address


def _exact(value: datetime) -> datetime:
    """The wall time in its zone, unless it is the second of two equal wall times.

    On a fall-back night 01:30 happens twice and RFC 5545 reads a TZID wall time as the first;
    only the second one is written in UTC, the one way to say it exactly.
    """
    other = value.replace(fold=1 - value.fold)
    if value.fold == 1 and other.utcoffset() != value.utcoffset():
        return value.astimezone(UTC)
    return value


def _vevent(event: CalendarEvent, stamp: datetime, status: str = "CONFIRMED") -> icalendar.Event:
    """One VEVENT: DTSTART/DTEND in the event's zone (TZID), or VALUE=DATE when all-day."""
    component = icalendar.Event()
    component.add("UID", event.uid)
    component.add("DTSTAMP", stamp)
    if event.all_day:
        component.add("DTSTART", event.start.date())
        component.add("DTEND", event.end.date())
    else:
        component.add("DTSTART", _exact(event.start))
        component.add("DTEND", _exact(event.end))
    component.add("SUMMARY", event.title or NO_TITLE)
    if event.location:
        component.add("LOCATION", event.location)
    if event.description:
        component.add("DESCRIPTION", event.description)
    for person in event.attendees:
        component.add("ATTENDEE", _calendar_address(person), encode=False)
    component.add("SEQUENCE", event.sequence)  # a change with a higher one replaces this
    component.add("STATUS", status)
    if event.kind == "reminder" or event.alarm_minutes is not None:
        alarm = icalendar.Alarm()
        alarm.add("ACTION", "DISPLAY")
        alarm.add("DESCRIPTION", event.title or "Reminder")
        alarm.add("TRIGGER", timedelta(minutes=-(event.alarm_minutes or 0)))
        component.add_component(alarm)
    return component


def export_events(
    events: Iterable[CalendarEvent], *, now: datetime | None = None, cancel: bool = False
) -> bytes:
    """One RFC 5545 calendar (CRLF, folded, escaped) with a VTIMEZONE for every TZID used.

    `cancel` makes it a cancellation (METHOD:CANCEL, STATUS:CANCELLED): imported, it removes
    the events of those UIDs that an earlier file added.
    """
    events = list(events)
    if not events:
        raise ValueError("export_events needs at least one event")
    for event in events:
        # Files are outputs: a placeholder in one means restore was skipped (DESIGN.md).
        fields = (event.title, event.location, event.description, *event.attendees)
        if any(PLACEHOLDER_RE.search(text) for text in fields):
            raise ValueError(f"event {event.uid} still holds a placeholder; restore it first")
    stamp = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    calendar = icalendar.Calendar()
    calendar.add("PRODID", PRODID)
    calendar.add("VERSION", "2.0")
    calendar.add("CALSCALE", "GREGORIAN")
    calendar.add("METHOD", "CANCEL" if cancel else "PUBLISH")
    for event in events:
        calendar.add_component(_vevent(event, stamp, "CANCELLED" if cancel else "CONFIRMED"))
    # Transitions from a year before the first event to a year after the last keep the
    # VTIMEZONE short while covering every time in the file.
    first = min(e.start for e in events).date().replace(month=1, day=1)
    last = max(e.end for e in events).date().replace(month=1, day=1)
    calendar.add_missing_timezones(
        first_date=first.replace(year=max(first.year - 1, 1)),
        last_date=last.replace(year=min(last.year + 2, 9999)),
    )
    missing = calendar.get_missing_tzids()
    if missing:
        raise ValueError(f"no VTIMEZONE could be built for {sorted(missing)}")
    return calendar.to_ical()


def export_event(
    event: CalendarEvent, *, now: datetime | None = None, cancel: bool = False
) -> bytes:
    """The .ics file for one event (the "add to calendar" attachment), or its cancellation."""
    return export_events([event], now=now, cancel=cancel)
