"""Calendar tools the planner can call: read the user's calendar, check, propose, create.

`create_event` and `create_reminder` are the only calendar writes. Each runs the scheduling
gate itself (tools.calendar.gate.check_start against the turn's time mentions) before anything is
stored or written, so no caller can skip it; a blocked start is a final, blocked result.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any

from memory.event import CalendarEvent, local_midnight
from privacy.entity_map import PLACEHOLDER_RE
from tools.base import Tool, ToolContext, ToolFile, ToolResult
from tools.calendar.gate import check_start
from tools.calendar.ics import export_event
from tools.calendar.slots import MEAL_TIMES, Schedule, working_days

MAX_DAYS = 62
_SAFE_NAME_RE = re.compile(r"[^\w.-]+")

_WHEN = {"type": "string", "description": "ISO 8601 local time, e.g. 2026-11-26T13:00"}


def _parse_time(value: str, ctx: ToolContext) -> datetime:
    """An ISO time; a naive one is wall time in the user's zone."""
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=ctx.now.tzinfo).astimezone(ctx.now.tzinfo)
    return parsed


def _schedule(ctx: ToolContext, start: datetime, end: datetime) -> Schedule:
    return Schedule(ctx.calendar.between(start - timedelta(days=1), end + timedelta(days=1)))


def _event_dict(event: CalendarEvent) -> dict[str, Any]:
    return {
        "title": event.title,
        "start": event.start.isoformat(),
        "end": event.end.isoformat(),
        "all_day": event.all_day,
    }


def list_events(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    start = _parse_time(args["start"], ctx) if args.get("start") else ctx.now
    days = int(args.get("days", 7))
    events = ctx.calendar.between(start, start + timedelta(days=days))
    return ToolResult(True, {"events": [_event_dict(e) for e in events[:50]]})


def check_conflicts(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    start = _parse_time(args["start"], ctx)
    end = _parse_time(args["end"], ctx) if args.get("end") else start + timedelta(hours=1)
    if end < start:
        return ToolResult.fail(f"end {end.isoformat()} is before start {start.isoformat()}")
    found = _schedule(ctx, start, end).conflicts(start, end)
    return ToolResult(
        True,
        {
            "conflicts": [
                {
                    **_event_dict(c.event),
                    "relation": c.relation,
                    "gap_minutes": c.gap // timedelta(minutes=1),
                }
                for c in found
            ]
        },
    )


def find_free_slots(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Free slots in working hours, or per-day meal proposals (proposals only, never events)."""
    asked_from = _parse_time(args["after"], ctx) if args.get("after") else ctx.now
    horizon = asked_from + timedelta(days=int(args.get("days", 7)))
    after = max(asked_from, ctx.now)  # never a proposal in the past
    if horizon <= after:
        return ToolResult(True, {"slots": [], "note": "the asked days are already over"})
    # The asked days, less those already over: "this week" asked on a Thursday ends on Sunday.
    days = max(1, (horizon.astimezone(after.tzinfo).date() - after.date()).days)
    schedule = _schedule(ctx, after, horizon)
    meal = args.get("meal")
    if meal:
        day_list = (
            [date.fromisoformat(args["day"])]
            if args.get("day")
            else working_days(after, ctx.tz, days, include_weekends=True)
        )
        slots = schedule.meal_proposals(meal, days=day_list, tz=ctx.tz, not_before=ctx.now)
    else:
        minutes = int(args.get("duration_minutes", 60))
        slots = schedule.free_slots(
            timedelta(minutes=minutes),
            after=after,
            tz=ctx.tz,
            days=days,
            limit=int(args.get("limit", 5)),
        )
    limit = int(args.get("limit", 5))
    return ToolResult(
        True,
        {
            "slots": [
                {"start": s.start.isoformat(), "end": s.end.isoformat()} for s in slots[:limit]
            ]
        },
    )


def _file_name(event: CalendarEvent) -> str:
    stem = _SAFE_NAME_RE.sub("-", event.title.lower()).strip("-")[:40] or "event"
    return f"{event.start:%Y%m%d-%H%M}-{stem}.ics"


def _create(args: dict[str, Any], ctx: ToolContext, kind: str) -> ToolResult:
    """The one write path for events and reminders: gate, duplicate check, store, .ics."""
    leftover = PLACEHOLDER_RE.search(str(args))
    if leftover:
        return ToolResult.fail(f"arguments still hold the placeholder {leftover.group(0)}")
    all_day = bool(args.get("all_day", False))
    try:
        start = _parse_time(args["start"], ctx)
    except ValueError:
        return ToolResult.fail(f"start {args['start']!r} is not an ISO 8601 time")
    decision = check_start(
        start.date() if all_day else start,
        all_day=all_day,
        mentions=ctx.mentions,
        tz=ctx.tz,
        now=ctx.now,
    )
    if not decision.allowed:
        return ToolResult.block(decision.reason, start=start.isoformat())
    if all_day:
        start = local_midnight(start.date(), ctx.tz)
    end = None
    if args.get("end"):
        try:
            end = _parse_time(args["end"], ctx)
        except ValueError:
            return ToolResult.fail(f"end {args['end']!r} is not an ISO 8601 time")
        if all_day:
            end = local_midnight(end.date(), ctx.tz)
    try:
        event = CalendarEvent.new(
            args["title"].strip() or ("Reminder" if kind == "reminder" else "Event"),
            start,
            end,
            tz=ctx.tz,
            all_day=all_day,
            location=args.get("location", ""),
            description=args.get("description", ""),
            attendees=list(args.get("attendees", [])),
            kind=kind,  # type: ignore[arg-type]
            alarm_minutes=int(args.get("alarm_minutes", 0 if kind == "reminder" else 15)),
            session=ctx.session or "",  # "cancel it" later in this chat means this event
        )
    except ValueError as error:
        return ToolResult.fail(str(error))
    stored = ctx.calendar.add(event)
    if not stored.added:
        return ToolResult(True, {"duplicate": True, "reason": stored.reason, **_event_dict(event)})
    ctx.out_dir.mkdir(parents=True, exist_ok=True)
    path = ctx.out_dir / _file_name(event)
    path.write_bytes(export_event(event, now=ctx.now))
    data = {**_event_dict(event), "uid": event.uid, "grounded_by": decision.reason}
    label = f"{event.title} — {event.start:%a %d %b %H:%M}" if not all_day else event.title
    return ToolResult(True, data, files=[ToolFile("ics", str(path), None, label)])


def create_event(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return _create(args, ctx, "event")


def create_reminder(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return _create(args, ctx, "reminder")


_EVENT_PARAMS = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 120},
        "start": _WHEN,
        "end": _WHEN,
        "all_day": {"type": "boolean"},
        "location": {"type": "string", "maxLength": 200},
        "description": {"type": "string", "maxLength": 2000},
        "attendees": {"type": "array", "items": {"type": "string"}, "maxItems": 20},
        "alarm_minutes": {"type": "integer", "minimum": 0, "maximum": 40320},
    },
    "required": ["title", "start"],
    "additionalProperties": False,
}

TOOLS: tuple[Tool, ...] = (
    Tool(
        "list_events",
        "List the user's calendar events from a start time for some days.",
        {
            "type": "object",
            "properties": {
                "start": _WHEN,
                "days": {"type": "integer", "minimum": 1, "maximum": MAX_DAYS},
            },
            "additionalProperties": False,
        },
        list_events,
    ),
    Tool(
        "check_conflicts",
        "Find calendar events that overlap or sit right next to a proposed time.",
        {
            "type": "object",
            "properties": {"start": _WHEN, "end": _WHEN},
            "required": ["start"],
            "additionalProperties": False,
        },
        check_conflicts,
    ),
    Tool(
        "find_free_slots",
        "Propose free times (or meal times) in the user's calendar; never creates anything.",
        {
            "type": "object",
            "properties": {
                "duration_minutes": {"type": "integer", "minimum": 5, "maximum": 720},
                "days": {"type": "integer", "minimum": 1, "maximum": MAX_DAYS},
                "after": _WHEN,
                "meal": {"type": "string", "enum": list(MEAL_TIMES)},
                "day": {"type": "string", "format": "date"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 10},
            },
            "additionalProperties": False,
        },
        find_free_slots,
    ),
    Tool(
        "create_event",
        "Create a calendar event (.ics) at a date and time the user stated.",
        _EVENT_PARAMS,
        create_event,
        writes=True,
    ),
    Tool(
        "create_reminder",
        "Create a reminder (.ics with an alarm) at a date and time the user stated.",
        _EVENT_PARAMS,
        create_reminder,
        writes=True,
    ),
)
