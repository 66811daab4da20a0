"""Recurring series expanded on a budget: every rule shape ends in bounded time and memory.

recurring-ical-events hands each RRULE to dateutil, which walks from DTSTART, keeps every
occurrence in a cache and builds `between()` as one list. A 565-byte rule (DTSTART in 1900,
FREQ=HOURLY with 60 BYMINUTE x 60 BYSECOND values) grew that past 16 GB. A list of forbidden
frequencies cannot cover every shape (BYSETPOS, a rule that never matches and walks to year 9999,
a huge COUNT), so the expansion pays for its work instead:

* every period dateutil's loop visits and every occurrence it yields is a step; a series that
  needs more than `series_steps` steps is refused on its own (`SeriesTooCostlyError`);
* the whole import has `seconds` of CPU time, checked while iterating (`OutOfTimeError`);
* a rule stops as soon as its loop passes the end of the window, even on days that yield
  nothing (dateutil itself only stops at year 9999 then);
* nothing is cached and occurrences are produced lazily, so memory stays flat.

The library still decides what an occurrence is (EXDATE, RDATE, moved occurrences,
THISANDFUTURE); only how dateutil's rules are iterated changes.
"""

from __future__ import annotations

import time
import types
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

import dateutil.rrule
import recurring_ical_events
from recurring_ical_events.occurrence import Occurrence
from recurring_ical_events.series import Series
from recurring_ical_events.util import (
    compare_greater,
    convert_to_datetime,
    is_pytz,
    is_pytz_dt,
    normalize_pytz,
)

SERIES_STEPS = 300_000  # about 0.4 s of dateutil's loop on this machine
SERIES_SECONDS = 1.0  # one BYSETPOS period can cost milliseconds: steps alone do not bound it
# How far past the window a rule's loop may run before it is stopped: covers any UTC offset
# (at most 14 h) and all-day dates, so no occurrence inside the window is ever cut.
_MARGIN = timedelta(days=2)
_CLOCK_EVERY = 8  # steps between CPU clock reads (a read costs about as much as a step)


class SeriesTooCostlyError(Exception):
    """One series needs more steps than a series may take; the rest of the file can go on.

    Not a ValueError: the expander catches those in places, and this must reach the importer.
    """


class OutOfTimeError(Exception):
    """The import as a whole has used its CPU time; the file is refused."""


class TooManyOccurrencesError(Exception):
    """A series has more occurrences in the window than an import takes from one series."""


class _PastWindowError(Exception):
    """dateutil's loop has passed the last day the window needs: the rule is done."""


@dataclass
class Budget:
    """The work one import may do: CPU seconds in all, steps and seconds for any one series."""

    seconds: float
    series_steps: int = SERIES_STEPS
    series_seconds: float = SERIES_SECONDS
    deadline: float = field(init=False)

    def __post_init__(self) -> None:
        # CPU time of this thread, not wall time: a busy machine must not refuse a good file.
        self.deadline = time.thread_time() + self.seconds

    def check(self) -> None:
        """Raise OutOfTimeError once the import has used its time."""
        if time.thread_time() > self.deadline:
            raise OutOfTimeError(f"more than {self.seconds:g} s of work")


@dataclass
class _Meter:
    """Steps of the series being expanded, checked against the budget as they happen."""

    budget: Budget
    steps: int = 0
    started: float = field(default_factory=time.thread_time)

    def start_series(self) -> None:
        """Count the next series from zero."""
        self.steps = 0
        self.started = time.thread_time()

    def step(self) -> None:
        self.steps += 1
        if self.steps > self.budget.series_steps:
            raise SeriesTooCostlyError(f"more than {self.budget.series_steps:,} steps")
        if self.steps % _CLOCK_EVERY == 0:
            self.budget.check()
            if time.thread_time() - self.started > self.budget.series_seconds:
                raise SeriesTooCostlyError(f"more than {self.budget.series_seconds:g} s")


_METER: ContextVar[_Meter | None] = ContextVar("veil_recurrence_meter", default=None)


class _MeteredIterinfo(dateutil.rrule._iterinfo):
    """dateutil's per-iteration state; each period of the loop passes through the meter.

    No __slots__ here on purpose: the base class initialises `self.__slots__`, which must stay
    its own list.
    """

    def __init__(self, rule: _MeteredRule) -> None:
        super().__init__(rule)
        self.meter: _Meter = rule.meter
        self.last_day: date = rule.last_day

    def _visit(self, first_day: date) -> None:
        self.meter.step()
        if first_day > self.last_day:
            raise _PastWindowError

    def ydayset(self, year: int, month: int, day: int) -> Any:
        self._visit(date(year, 1, 1))
        return super().ydayset(year, month, day)

    def mdayset(self, year: int, month: int, day: int) -> Any:
        self._visit(date(year, month, 1))
        return super().mdayset(year, month, day)

    def wdayset(self, year: int, month: int, day: int) -> Any:
        self._visit(date(year, month, day))
        return super().wdayset(year, month, day)

    def ddayset(self, year: int, month: int, day: int) -> Any:
        self._visit(date(year, month, day))
        return super().ddayset(year, month, day)


def _metered_iter_function() -> types.FunctionType:
    """dateutil's own rrule loop, run with the metered state class instead of its own.

    The loop is the library's code object unchanged; only the global name `_iterinfo` it looks
    up resolves to _MeteredIterinfo. If a dateutil release renames it, fail at import rather
    than run unmetered.
    """
    original = dateutil.rrule.rrule._iter
    if "_iterinfo" not in original.__code__.co_names:
        raise ImportError("dateutil.rrule.rrule._iter changed; update tools/calendar/recurrence")
    namespace = {**vars(dateutil.rrule), "_iterinfo": _MeteredIterinfo}
    return types.FunctionType(
        original.__code__, namespace, original.__name__, original.__defaults__
    )


# dateutil fills these from DTSTART when a rule leaves them out; a rule moved to a later
# DTSTART must keep the original's values, so they are passed explicitly.
_DATE_DEFAULTS = {
    dateutil.rrule.YEARLY: ("bymonth", "bymonthday"),
    dateutil.rrule.MONTHLY: ("bymonthday",),
    dateutil.rrule.WEEKLY: ("byweekday",),
}
_UNIT_SECONDS = {
    dateutil.rrule.HOURLY: 3600,
    dateutil.rrule.MINUTELY: 60,
    dateutil.rrule.SECONDLY: 1,
}


def _later_start(rule: dateutil.rrule.rrule, before: datetime) -> datetime | None:
    """A DTSTART whole periods later than the rule's, at or before `before`, or None.

    From there the rule yields the same occurrences as from its own DTSTART: its periods keep
    their alignment (whole multiples of FREQ x INTERVAL), and what dateutil derives from DTSTART
    is passed explicitly. A rule with COUNT counts from its real start, so it is not moved.
    """
    start: datetime = rule._dtstart
    if rule._count is not None or (start.tzinfo is None) != (before.tzinfo is None):
        return None
    naive = start.replace(tzinfo=None)
    target = before.astimezone(start.tzinfo).replace(tzinfo=None) if start.tzinfo else before
    n, freq = rule._interval, rule._freq
    if freq == dateutil.rrule.YEARLY:
        years = (target.year - 1 - naive.year) // n * n
        moved = naive.replace(year=naive.year + years, month=1, day=1) if years > 0 else None
    elif freq == dateutil.rrule.MONTHLY:
        months = (target.year * 12 + target.month - 2 - naive.year * 12 - naive.month + 1) // n * n
        year, month = divmod(naive.year * 12 + naive.month - 1 + months, 12)
        moved = naive.replace(year=year, month=month + 1, day=1) if months > 0 else None
    elif freq in (dateutil.rrule.WEEKLY, dateutil.rrule.DAILY):
        period = n * (7 if freq == dateutil.rrule.WEEKLY else 1)
        days = ((target.date() - naive.date()).days - period) // period * period
        moved = naive + timedelta(days=days) if days > 0 else None
    else:
        period = n * _UNIT_SECONDS[freq]
        seconds = (int((target - naive).total_seconds()) - period) // period * period
        moved = naive + timedelta(seconds=seconds) if seconds > 0 else None
    return None if moved is None else moved.replace(tzinfo=start.tzinfo)


class _MeteredRule(dateutil.rrule.rrule):
    """An rrule whose loop reports each period to a meter and stops past `last_day`."""

    _iter = _metered_iter_function()
    meter: _Meter
    last_day: date

    @classmethod
    def copy_of(
        cls, rule: dateutil.rrule.rrule, meter: _Meter, first: datetime, last_day: date
    ) -> _MeteredRule:
        """The same rule (what rrule.replace() copies), uncached, metered, and started as
        close before `first` as its periods allow."""
        kwargs: dict[str, Any] = {
            "freq": rule._freq,
            "dtstart": rule._dtstart,
            "interval": rule._interval,
            "wkst": rule._wkst,
            "count": rule._count,
            "until": rule._until,
            **rule._original_rule,
        }
        if rule._bysetpos:  # repeated positions select nothing more; each costs a pass
            kwargs["bysetpos"] = tuple(sorted(set(rule._bysetpos)))
        later = _later_start(rule, first)
        if later is not None:
            start: datetime = rule._dtstart
            explicit = {
                "bymonth": start.month,
                "bymonthday": start.day,
                "byweekday": start.weekday(),
            }
            for name in _DATE_DEFAULTS.get(rule._freq, ()):
                if name in kwargs and kwargs[name] is None:
                    kwargs[name] = explicit[name]
            kwargs["dtstart"] = later
        copy = cls(**kwargs, cache=False)
        copy.meter = meter
        copy.last_day = last_day
        return copy


def _lazy_between(
    rule: dateutil.rrule.rrulebase, start: datetime, stop: datetime, meter: _Meter
) -> Iterator[datetime]:
    """Occurrences of one rule in [start, stop], one at a time (dateutil's `between` is a list)."""
    if not isinstance(rule, dateutil.rrule.rrule):
        # The rruleset of RDATEs and DTSTART: as long as the file's own list of dates.
        yield from rule.between(start, stop, inc=True)
        return
    metered = _MeteredRule.copy_of(rule, meter, start - _MARGIN, (stop + _MARGIN).date())
    try:
        for occurrence in metered:
            meter.step()
            if occurrence > stop:
                return
            if occurrence >= start:
                yield occurrence
    except _PastWindowError:
        return


class _MeteredSeries(Series):
    """A series whose rules are iterated lazily, uncached and on the current meter."""

    class RecurrenceRules(Series.RecurrenceRules):
        """The library's rule strategy with its `rrule_between` made lazy and metered."""

        def rrule_between(self, span_start: Any, span_stop: Any) -> Iterator[Any]:
            """The library's rrule_between, without materialising any list."""
            meter = _METER.get()
            if meter is None:
                raise RuntimeError("expand() sets the meter; a series was iterated outside it")
            span_start_dt = convert_to_datetime(span_start, self.tzinfo)
            span_stop_dt = convert_to_datetime(span_stop, self.tzinfo)
            if is_pytz(self.tzinfo):  # the library's heuristic for pytz at DST changes
                span_start_dt = normalize_pytz(span_start_dt - timedelta(hours=1))
                span_stop_dt = normalize_pytz(span_stop_dt + timedelta(hours=1))
            for rule in self.rrules:
                for start in _lazy_between(rule, span_start_dt, span_stop_dt, meter):
                    if is_pytz_dt(start):
                        start = start.tzinfo.localize(start.replace(tzinfo=None))  # noqa: PLW2901
                    if rule.until is None or not compare_greater(start, rule.until):
                        yield start


_SELECTION = recurring_ical_events.ComponentsWithName("VEVENT", series=_MeteredSeries)


def expand(
    calendar: Any, start: datetime, stop: datetime, *, budget: Budget, max_occurrences: int
) -> list[Occurrence]:
    """Occurrences of the calendar's VEVENT series in [start, stop), on `budget`.

    Raises:
        SeriesTooCostlyError: a series needs more steps than `budget.series_steps`.
        OutOfTimeError: the import's CPU time ran out.
        TooManyOccurrencesError: a series has more than `max_occurrences` in the window.
    """
    meter = _Meter(budget)
    token = _METER.set(meter)
    try:
        found: list[Occurrence] = []
        for series in recurring_ical_events.of(calendar, components=[_SELECTION]).series:
            meter.start_series()
            count = 0
            for occurrence in series.between(start, stop):
                count += 1
                if count > max_occurrences:
                    raise TooManyOccurrencesError(f"more than {max_occurrences} occurrences")
                found.append(occurrence)
        return found
    finally:
        _METER.reset(token)
