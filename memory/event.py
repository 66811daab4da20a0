"""The calendar event contract shared by the parser, the gate, the store, slots and .ics files.

An event keeps its wall time in its own IANA zone ("15:00 Europe/Berlin"), never a bare UTC
instant, so that an exported .ics shows the time the user said. All-day events run from local
midnight of their first day to local midnight after their last day (end exclusive, as in RFC 5545).
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

EventKind = Literal["event", "reminder"]

# A fixed namespace makes created UIDs stable across processes and machines.
_UID_NAMESPACE = uuid.UUID("5f0c7a52-2d0e-4c55-9a43-8b1d6c0e7a11")
UID_DOMAIN = "veil.local"
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def zone(tz: str) -> ZoneInfo:
    """The IANA zone named `tz`; ValueError (not ZoneInfoNotFoundError) for an unknown name."""
    if not isinstance(tz, str) or not tz:
        raise ValueError(f"a time zone name is required, got {tz!r}")
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValueError(
            f"unknown time zone {tz!r}; use an IANA name like Europe/Berlin"
        ) from error


def local_midnight(day: date, tz: str) -> datetime:
    """Midnight at the start of `day` in `tz` (the first valid instant if midnight is skipped)."""
    naive = datetime.combine(day, time())
    aware = naive.replace(tzinfo=zone(tz))
    # A few zones (e.g. America/Santiago, Asia/Beirut) jump over midnight itself: move to the
    # first wall time that exists so the all-day event still starts on its own date.
    if aware.astimezone(UTC).astimezone(aware.tzinfo).replace(tzinfo=None) != naive:
        aware = aware.astimezone(UTC).astimezone(aware.tzinfo)
    return aware


def normalise_title(title: str) -> str:
    """Case, accents, punctuation and spacing folded so "Lunch w/ Tom!" == "lunch w tom"."""
    folded = unicodedata.normalize("NFKD", title).casefold()
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return " ".join(_NON_WORD.sub(" ", folded).split())


def dedup_key_for(title: str, start: datetime) -> str:
    """Normalised title plus the start instant (UTC, to the minute): the duplicate test."""
    if start.tzinfo is None:
        raise ValueError("dedup_key_for needs an aware start time")
    instant = start.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")
    return f"{normalise_title(title)}|{instant}"


def created_uid(title: str, start: datetime) -> str:
    """Stable UID for an event Veil creates: the same event always gets the same UID.

    Calendars treat a second file with the same UID as an update, so even an accidental second
    export of the same event never shows up twice in Google, Apple or Outlook.
    """
    return f"{uuid.uuid5(_UID_NAMESPACE, dedup_key_for(title, start))}@{UID_DOMAIN}"


@dataclass(frozen=True, slots=True)
class CalendarEvent:
    """One calendar entry (or one occurrence of a recurring series), with wall time and zone."""

    uid: str
    title: str
    start: datetime
    end: datetime
    all_day: bool
    tz: str
    location: str = ""
    description: str = ""
    attendees: list[str] = field(default_factory=list)
    source: str = "created"
    kind: EventKind = "event"
    alarm_minutes: int | None = None
    recurrence_id: str | None = None
    session: str = ""  # the chat that created it ("" for imported events)
    sequence: int = 0  # raised by every change Veil makes after creating it

    def __post_init__(self) -> None:
        if not isinstance(self.uid, str) or not self.uid.strip():
            raise ValueError("an event needs a non-empty uid")
        if not isinstance(self.title, str):
            raise TypeError(f"title must be a str, got {type(self.title).__name__}")
        home = zone(self.tz)
        for name in ("start", "end"):
            value = getattr(self, name)
            if not isinstance(value, datetime):
                raise TypeError(f"{name} must be a datetime, got {type(value).__name__}")
            if value.tzinfo is None or value.utcoffset() is None:
                raise ValueError(f"{name} must be timezone-aware (got naive {value.isoformat()})")
            # Same instant, shown in the event's own zone: the wall time the user sees.
            object.__setattr__(self, name, value.astimezone(home))
        if self.end.astimezone(UTC) < self.start.astimezone(UTC):
            raise ValueError(f"end {self.end.isoformat()} is before start {self.start.isoformat()}")
        if self.all_day:
            for name in ("start", "end"):
                value = getattr(self, name)
                if value != local_midnight(value.date(), self.tz):
                    raise ValueError(f"an all-day {name} must be local midnight, got {value}")
            if self.end <= self.start:
                raise ValueError("an all-day event must cover at least one day")
        if self.kind not in ("event", "reminder"):
            raise ValueError(f"kind must be 'event' or 'reminder', got {self.kind!r}")
        if self.source != "created" and not self.source.startswith("import:"):
            raise ValueError(f"source must be 'created' or 'import:<name>', got {self.source!r}")
        if self.alarm_minutes is not None and (
            not isinstance(self.alarm_minutes, int) or self.alarm_minutes < 0
        ):
            raise ValueError(
                f"alarm_minutes must be a non-negative int, got {self.alarm_minutes!r}"
            )
        if not all(isinstance(a, str) for a in self.attendees):
            raise TypeError("attendees must be a list of str")

    @classmethod
    def new(
        cls,
        title: str,
        start: datetime,
        end: datetime | None = None,
        *,
        tz: str,
        all_day: bool = False,
        duration: timedelta = timedelta(hours=1),
        location: str = "",
        description: str = "",
        attendees: list[str] | None = None,
        kind: EventKind = "event",
        alarm_minutes: int | None = None,
        session: str = "",
    ) -> CalendarEvent:
        """An event Veil creates: UID derived from title + start, end defaulting to `duration`."""
        home = zone(tz)
        if start.tzinfo is None:
            start = start.replace(tzinfo=home)
        if end is not None and end.tzinfo is None:
            end = end.replace(tzinfo=home)
        if end is None and all_day:
            end = local_midnight(start.astimezone(home).date() + timedelta(days=1), tz)
        elif end is None:
            # Elapsed time, not wall time: a 1-hour meeting at 01:30 on a DST night is 1 hour.
            end = (start.astimezone(UTC) + duration).astimezone(home)
        return cls(
            uid=created_uid(title, start),
            title=title,
            start=start,
            end=end,
            all_day=all_day,
            tz=tz,
            location=location,
            description=description,
            attendees=list(attendees or []),
            kind=kind,
            alarm_minutes=alarm_minutes,
            session=session,
        )

    @property
    def duration(self) -> timedelta:
        """Elapsed time from start to end (an all-day day across DST is 23 or 25 hours)."""
        return self.end.astimezone(UTC) - self.start.astimezone(UTC)

    def dedup_key(self) -> str:
        """Normalised title + start instant: two events with the same key are one event."""
        return dedup_key_for(self.title, self.start)
