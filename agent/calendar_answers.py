"""Questions about the user's own calendar, answered by code from the store.

"what's on thursday?", "am I free thursday afternoon?", "when is lunch with sam?": the answer
is a read of the local calendar, so no model is asked and nothing is created. The phrases of
requests.toml say which kind of answer a request wants (free time, a listing, when something
is); a request in words they do not hold ("how does friday look?") is a calendar question when
the act model (understanding.acts) reads it as one, and gets the listing. The window comes from
the request's time words (TimeParser mentions, in the user's zone); with none, the next 7 days.
Every time is shown in the user's zone with the zone named; an event kept in another zone says
its own wall time too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Literal

from agent.asked import asked
from agent.bundle import PlanItem, StepOutcome, TurnBundle
from agent.naming import content_words, most_named
from memory.calendar import CalendarStore
from memory.event import CalendarEvent, local_midnight, zone
from tools.calendar.slots import Schedule, WorkingHours
from tools.calendar.times import TimeMention
from understanding.acts import read_act

DEFAULT_DAYS = 7
MAX_LISTED = 12
MAX_FREE = 5
WHEN_AHEAD = timedelta(days=365)
FREE_SLOT = timedelta(minutes=30)  # a gap shorter than this is not "free time"
_SPANS = {"week": timedelta(days=7), "day": timedelta(days=1), "hour": timedelta(hours=1)}

Kind = Literal["list", "free", "when"]


@dataclass(frozen=True)
class CalendarQuestion:
    """What the user asked about their calendar, and for which window."""

    kind: Kind
    start: datetime
    end: datetime
    said: str  # the time words as typed ("thursday afternoon"), or ""
    about: tuple[str, ...] = ()  # "when is lunch with sam" -> ("lunch", "sam")


def find_calendar_question(
    request: str, *, thread: str, mentions: list[TimeMention], now: datetime, tz: str
) -> CalendarQuestion | None:
    """The calendar question `request` asks, or None when it asks something else."""
    if thread.strip():
        return None
    found = next(
        (
            (kind, hit)
            for kind, section in (
                ("free", "calendar_free"),
                ("when", "calendar_when"),
                ("list", "calendar_list"),
            )
            if (hit := asked(request, section)) is not None
        ),
        None,
    )
    if found is None:
        if read_act(request, "request").act != "calendar_question":
            return None
        found = ("list", None)
    kind, hit = found
    said = [m for m in mentions if m.source == "request" and m.value is not None]
    if kind == "when" and hit is not None:
        words = tuple(w for w in hit.object_words if len(w) >= 3)
        if not words or said:
            return None  # "when is good for you on friday" is no event's name
        return CalendarQuestion("when", now, now + WHEN_AHEAD, "", words)
    start, end = _window(said, now, tz)
    return CalendarQuestion(kind, start, end, " ".join(m.text for m in said))  # type: ignore[arg-type]


def _window(said: list[TimeMention], now: datetime, tz: str) -> tuple[datetime, datetime]:
    """From the first mention's start to the last one's end; the next 7 days when none."""
    if not said:
        today = now.astimezone(zone(tz)).date()
        return local_midnight(today, tz), local_midnight(today + timedelta(days=DEFAULT_DAYS), tz)
    home = zone(tz)
    first = said[0].value.astimezone(home)  # type: ignore[union-attr]
    last = said[-1]
    if last.end_value is not None:
        end = last.end_value.astimezone(home)
    elif last.has_clock_time:
        end = last.value.astimezone(home) + timedelta(hours=1)  # type: ignore[union-attr]
    else:
        day = last.value.astimezone(home).date()  # type: ignore[union-attr]
        days = 7 if last.grain == "week" else 31 if last.grain == "month" else 1
        end = local_midnight(day + timedelta(days=days), tz)
    return first, max(end, first + timedelta(minutes=1))


def answer_calendar_question(
    question: CalendarQuestion, *, store: CalendarStore, now: datetime, tz: str
) -> TurnBundle:
    """The reply, from the store; nothing is written."""
    if question.kind == "when":
        return _answer_when(question, store=store, now=now, tz=tz)
    start = question.start
    today = local_midnight(now.astimezone(zone(tz)).date(), tz)
    if start < today < question.end:
        start = today  # "this week" on a Thursday: Monday to Wednesday are over
    events = store.between(start, question.end)
    label = _label(question, start, tz)
    if question.kind == "list":
        reply = _listing(events, label, tz)
        tool, detail = "list_events", f"{len(events)} event(s) in the window"
    else:
        reply = _free_busy(events, question, start, label, now=now, tz=tz)
        tool, detail = "find_free_slots", f"{len(events)} busy event(s) in the window"
    plan = [PlanItem(tool, {"start": start.isoformat(), "end": question.end.isoformat()},
                     "answer the calendar question from the local calendar")]  # fmt: skip
    return TurnBundle(reply=reply, plan=plan, steps=[StepOutcome(tool, "ok", 1, detail)])


def _answer_when(
    question: CalendarQuestion, *, store: CalendarStore, now: datetime, tz: str
) -> TurnBundle:
    named = " ".join(question.about)
    words = content_words(named) or list(question.about)
    ahead = most_named(words, store.between(now, question.end))[:3]
    if not ahead:
        past = most_named(words, store.between(now - WHEN_AHEAD, now))
        if past:
            reply = f"The last {_said(past[-1], tz)}. Nothing called “{named}” is coming up."
        else:
            reply = (
                f"I found nothing called “{named}” in your calendar. Ask “what's on my calendar "
                "this week?” to see what is there."
            )
    else:
        reply = f"{_said(ahead[0], tz)}."
        if len(ahead) > 1:
            reply += " After that: " + "; ".join(_said(e, tz) for e in ahead[1:]) + "."
    plan = [PlanItem("list_events", {"title": named}, "find the event the user asked about")]
    return TurnBundle(
        reply=reply, plan=plan, steps=[StepOutcome("list_events", "ok", 1, f"{len(ahead)} found")]
    )


def _label(question: CalendarQuestion, start: datetime, tz: str) -> str:
    """'Thu 26 Nov, 12:00–19:00 (Europe/Berlin)': the window in words, zone named."""
    home = zone(tz)
    first, last = start.astimezone(home), question.end.astimezone(home)
    whole_days = first.time() == time(0) and last.time() == time(0)
    if whole_days and (last.date() - first.date()).days == 1:
        span = f"{first:%a %d %b}"
    elif whole_days:
        span = f"{first:%a %d %b} – {(last - timedelta(days=1)):%a %d %b}"
    elif first.date() == last.date() or last == local_midnight(first.date(), tz) + timedelta(
        days=1
    ):
        span = f"{first:%a %d %b}, {first:%H:%M}–{last:%H:%M}"
    else:
        span = f"{first:%a %d %b %H:%M} – {last:%a %d %b %H:%M}"
    return f"{span} ({tz})" if question.said else f"the next {DEFAULT_DAYS} days ({span}, {tz})"


def _said(event: CalendarEvent, tz: str) -> str:
    """'Lunch with sam is on Fri 27 Nov, 13:00–14:00 (Europe/Berlin)'."""
    return f"{event.title} is on {event_time(event, tz)}"


def event_time(event: CalendarEvent, tz: str) -> str:
    """The event's time in the user's zone, zone named; its own wall time when kept elsewhere."""
    home = zone(tz)
    if event.all_day:
        last = event.end - timedelta(days=1)
        days = f"{event.start:%a %d %b}" + (f" – {last:%a %d %b}" if last > event.start else "")
        return f"{days} (all day)"
    first, last = event.start.astimezone(home), event.end.astimezone(home)
    text = f"{first:%a %d %b}, {first:%H:%M}–{last:%H:%M}"
    if last.date() != first.date():
        text = f"{first:%a %d %b %H:%M} – {last:%a %d %b %H:%M}"
    text += f" ({tz})"
    if event.tz != tz and first.utcoffset() != event.start.utcoffset():
        text += f", {event.start:%H:%M} in its own zone {event.tz}"
    return text


def _on(label: str) -> str:
    return f"in {label}" if label.startswith("the next") else f"on {label}"


def _count(n: int) -> str:
    return f"{n} event" if n == 1 else f"{n} events"


def _listing(events: list[CalendarEvent], label: str, tz: str) -> str:
    if not events:
        return f"Nothing in your calendar for {label}."
    shown = "; ".join(f"{e.title}, {event_time(e, tz)}" for e in events[:MAX_LISTED])
    more = f" (and {len(events) - MAX_LISTED} more)" if len(events) > MAX_LISTED else ""
    return f"{_count(len(events))} for {label}: {shown}{more}."


def _free_busy(
    events: list[CalendarEvent],
    question: CalendarQuestion,
    start: datetime,
    label: str,
    *,
    now: datetime,
    tz: str,
) -> str:
    """Busy or free in the window, and the free times in it (working hours for whole days)."""
    schedule = Schedule(events)
    busy = schedule.busy(start, question.end)
    home = zone(tz)
    lo = max(start, now)
    if busy:
        listed = "; ".join(f"{e.title}, {event_time(e, tz)}" for e in busy[:MAX_LISTED])
        head = f"You have {_count(len(busy))} {_on(label)}: {listed}."
    else:
        head = f"You are free {_on(label)}: nothing in your calendar then."
    if lo >= question.end:
        return head + " That time is already over."
    whole_days = start.astimezone(home).time() == time(0) and question.end.astimezone(
        home
    ).time() == time(0)
    days = max(1, (question.end - lo).days + 1)
    if whole_days:
        slots = schedule.free_slots(FREE_SLOT, after=lo, tz=tz, days=min(days, 31),
                                    include_weekends=days <= 2, limit=MAX_FREE)  # fmt: skip
        slots = [s for s in slots if s.start < question.end]
        hours = WorkingHours()
        where = f" in working hours ({hours.start:%H:%M}–{hours.end:%H:%M})"
    else:
        slots = [s for s in schedule.free_between(lo, question.end) if s.duration >= FREE_SLOT]
        where = ""
    if not busy:
        return head
    if not slots:
        return head + f" No free time of {FREE_SLOT.seconds // 60} minutes or more is left{where}."
    free = ", ".join(
        f"{s.start.astimezone(home):%a %d %b %H:%M}–{s.end.astimezone(home):%H:%M}"
        for s in slots[:MAX_FREE]
    )
    return head + f" Free{where}: {free} ({tz})."
