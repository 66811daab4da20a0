"""Conflicts and free slots by interval arithmetic on UTC instants, never by start hour.

Events are half-open intervals [start, end) compared as instants, so a 23:30-00:30 event, an
all-day event and a DST night all behave. Working hours and meal times are local wall times of
the user's zone, turned into instants per day, which keeps them right across DST changes.
A `Schedule` sorts events once (O(n log n)); each query is a bisect plus the events it touches.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal

from memory.event import CalendarEvent, zone

Relation = Literal["overlap", "adjacent", "tight"]

TIGHT_GAP = timedelta(minutes=15)
SLOT_STEP = timedelta(minutes=15)
MEAL_TIMES: dict[str, time] = {
    "breakfast": time(8, 30),
    "brunch": time(11, 0),
    "lunch": time(12, 30),
    "dinner": time(19, 30),
}
MEAL_DURATIONS: dict[str, timedelta] = {
    "breakfast": timedelta(hours=1),
    "brunch": timedelta(hours=1, minutes=30),
    "lunch": timedelta(hours=1),
    "dinner": timedelta(hours=2),
}
# How far from its conventional time a meal may move before it stops being that meal.
MEAL_LEEWAY = timedelta(minutes=90)


@dataclass(frozen=True, slots=True)
class WorkingHours:
    """Local wall-clock hours in which free slots are offered (default 09:00-18:00)."""

    start: time = time(9)
    end: time = time(18)

    def __post_init__(self) -> None:
        if self.end <= self.start:
            raise ValueError(f"working hours must end after they start: {self.start}-{self.end}")


@dataclass(frozen=True, slots=True)
class Conflict:
    """A calendar event that clashes with a proposed time, and how."""

    event: CalendarEvent
    relation: Relation
    gap: timedelta  # zero for overlap and adjacent; the free time in between for tight


@dataclass(frozen=True, slots=True)
class Slot:
    """A free interval in the user's zone; at least as long as was asked for."""

    start: datetime
    end: datetime

    @property
    def duration(self) -> timedelta:
        """Elapsed length (correct across a DST change)."""
        return self.end.astimezone(UTC) - self.start.astimezone(UTC)


def _instant(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"an aware datetime is required, got naive {value.isoformat()}")
    return value.astimezone(UTC)


def _wall(day: date, at: time, tz: str) -> datetime:
    """The instant of a local wall time; a time inside a DST gap moves forward past it."""
    local = datetime.combine(day, at, tzinfo=zone(tz))
    return local.astimezone(UTC)


def _ceil(value: datetime, step: timedelta, tz: str) -> datetime:
    """Round an instant up to the next local multiple of `step` (15-minute proposals)."""
    local = value.astimezone(zone(tz))
    midnight = datetime.combine(local.date(), time())
    rounded = midnight + step * -(-(local.replace(tzinfo=None) - midnight) // step)
    # Rounding into a DST gap could map to an earlier instant; never go back in time.
    return max(rounded.replace(tzinfo=zone(tz)).astimezone(UTC), value)


class Schedule:
    """A calendar indexed for overlap queries: events sorted by start with a running max end."""

    def __init__(
        self,
        events: Iterable[CalendarEvent],
        *,
        tight_gap: timedelta = TIGHT_GAP,
        include_reminders: bool = False,
    ) -> None:
        if tight_gap < timedelta(0):
            raise ValueError("tight_gap cannot be negative")
        self.tight_gap = tight_gap
        # A reminder marks a moment, not busy time: it blocks nothing unless asked.
        # CalendarEvent guarantees aware times, so no per-event check is needed here.
        items = sorted(
            (e.start.astimezone(UTC), e.end.astimezone(UTC), i, e)
            for i, e in enumerate(events)
            if include_reminders or e.kind != "reminder"
        )
        self._starts = [item[0] for item in items]
        self._ends = [item[1] for item in items]
        self._events = [item[3] for item in items]
        # _reach[i] = latest end among events 0..i: a backwards walk can stop once it is
        # behind the query, so long all-day or multi-day events are never missed.
        self._reach: list[datetime] = []
        latest = datetime.min.replace(tzinfo=UTC)
        for end in self._ends:
            latest = max(latest, end)
            self._reach.append(latest)

    def __len__(self) -> int:
        return len(self._events)

    def _touching(self, lo: datetime, hi: datetime) -> Iterator[int]:
        """Indexes of events with start <= hi and end >= lo (closed, to see adjacency)."""
        i = bisect.bisect_right(self._starts, hi) - 1
        while i >= 0 and self._reach[i] >= lo:
            if self._ends[i] >= lo:
                yield i
            i -= 1

    def busy(self, start: datetime, end: datetime) -> list[CalendarEvent]:
        """Events overlapping [start, end), in start order."""
        lo, hi = _instant(start), _instant(end)
        hits = [
            i
            for i in self._touching(lo, hi)
            if self._overlaps(self._starts[i], self._ends[i], lo, hi)
        ]
        return [self._events[i] for i in sorted(hits)]

    @staticmethod
    def _overlaps(s: datetime, e: datetime, lo: datetime, hi: datetime) -> bool:
        """Half-open overlap; a zero-length event counts when it lies inside [lo, hi)."""
        if s == e:
            return lo <= s < hi or (lo == hi == s)
        if lo == hi:
            return s <= lo < e
        return s < hi and lo < e

    def conflicts(
        self, start: datetime, end: datetime, *, ignore_uid: str | None = None
    ) -> list[Conflict]:
        """Every event overlapping, adjacent to, or within `tight_gap` of [start, end)."""
        lo, hi = _instant(start), _instant(end)
        if hi < lo:
            raise ValueError("conflicts() needs end >= start")
        found: list[tuple[int, Conflict]] = []
        for i in self._touching(lo - self.tight_gap, hi + self.tight_gap):
            event = self._events[i]
            if ignore_uid is not None and event.uid == ignore_uid:
                continue
            s, e = self._starts[i], self._ends[i]
            if self._overlaps(s, e, lo, hi):
                found.append((i, Conflict(event, "overlap", timedelta(0))))
                continue
            gap = lo - e if e <= lo else s - hi
            if gap == timedelta(0):
                found.append((i, Conflict(event, "adjacent", gap)))
            elif gap <= self.tight_gap:
                found.append((i, Conflict(event, "tight", gap)))
        return [conflict for _, conflict in sorted(found, key=lambda pair: pair[0])]

    def _gaps(
        self, lo: datetime, hi: datetime, *, all_day_busy: bool
    ) -> Iterator[tuple[datetime, datetime]]:
        """Free intervals inside [lo, hi): a sweep over the merged busy intervals."""
        busy = sorted(
            (max(self._starts[i], lo), min(self._ends[i], hi))
            for i in self._touching(lo, hi)
            if self._starts[i] < hi
            and self._ends[i] > lo
            and (all_day_busy or not self._events[i].all_day)
        )
        cursor = lo
        for s, e in busy:
            if s > cursor:
                yield cursor, s
            cursor = max(cursor, e)
        if cursor < hi:
            yield cursor, hi

    def free_between(self, start: datetime, end: datetime) -> list[Slot]:
        """Every free interval inside [start, end), in start's zone; all-day events are busy."""
        home = start.tzinfo
        return [
            Slot(s.astimezone(home), e.astimezone(home))
            for s, e in self._gaps(_instant(start), _instant(end), all_day_busy=True)
        ]

    def free_slots(
        self,
        duration: timedelta,
        *,
        after: datetime,
        tz: str,
        days: int = 7,
        working_hours: WorkingHours = WorkingHours(),
        include_weekends: bool = False,
        all_day_busy: bool = True,
        step: timedelta = SLOT_STEP,
        limit: int | None = None,
    ) -> list[Slot]:
        """Free intervals of at least `duration` in working hours, from `after` for `days` days.

        Args:
            duration: The time needed.
            after: Nothing starts earlier (usually "now"); the first day is after's local date.
            tz: The user's IANA zone; working hours are wall times in it.
            days: How many local calendar days to search, the first one included.
            working_hours: Local start and end of the working day.
            include_weekends: Saturdays and Sundays are searched only when asked.
            all_day_busy: Whether all-day events block their whole day.
            step: Slot starts are rounded up to this local grid (15 minutes).
            limit: Stop after this many slots.
        """
        if duration <= timedelta(0):
            raise ValueError("duration must be positive")
        if days < 1:
            raise ValueError("days must be at least 1")
        home = zone(tz)
        first_day = _instant(after).astimezone(home).date()
        slots: list[Slot] = []
        for offset in range(days):
            day = first_day + timedelta(days=offset)
            if day.weekday() >= 5 and not include_weekends:
                continue
            lo = max(_wall(day, working_hours.start, tz), _instant(after))
            hi = _wall(day, working_hours.end, tz)
            for gap_start, gap_end in self._gaps(lo, hi, all_day_busy=all_day_busy):
                start = _ceil(gap_start, step, tz)
                if gap_end - start >= duration:
                    slots.append(Slot(start.astimezone(home), gap_end.astimezone(home)))
                    if limit is not None and len(slots) >= limit:
                        return slots
        return slots

    def meal_proposals(
        self,
        meal: str,
        *,
        days: Iterable[date],
        tz: str,
        duration: timedelta | None = None,
        not_before: datetime | None = None,
        step: timedelta = SLOT_STEP,
    ) -> list[Slot]:
        """Per day, the free time nearest the meal's conventional hour (a proposal only).

        The conventional time wins when it is free; otherwise the nearest free start within
        MEAL_LEEWAY of it, earlier or later. A day with nothing free near the meal is skipped.
        """
        if meal not in MEAL_TIMES:
            raise ValueError(f"unknown meal {meal!r}; one of {', '.join(MEAL_TIMES)}")
        length = duration or MEAL_DURATIONS[meal]
        home = zone(tz)
        floor = _instant(not_before) if not_before is not None else None
        proposals = []
        for day in days:
            preferred = _wall(day, MEAL_TIMES[meal], tz)
            offsets = [timedelta(0)]
            for k in range(1, int(MEAL_LEEWAY / step) + 1):
                offsets += [step * k, -step * k]  # nearest first, later before earlier
            for offset in offsets:
                start = preferred + offset
                if floor is not None and start < floor:
                    continue
                if not self.busy(start, start + length):
                    proposals.append(
                        Slot(start.astimezone(home), (start + length).astimezone(home))
                    )
                    break
        return proposals


def working_days(
    after: datetime, tz: str, days: int, *, include_weekends: bool = False
) -> list[date]:
    """The next `days` local dates from after's date, weekends left out unless asked."""
    first = _instant(after).astimezone(zone(tz)).date()
    return [
        first + timedelta(days=k)
        for k in range(days)
        if include_weekends or (first + timedelta(days=k)).weekday() < 5
    ]
