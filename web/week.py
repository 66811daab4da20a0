"""The week strip: the user's calendar for seven days in their zone, conflicts marked."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from flask import Blueprint, jsonify, request
from werkzeug.utils import secure_filename

from agent.assistant import local_zone_name, parse_zone
from agent.errors import InputError
from lang.text import clean_text
from memory.calendar import CalendarStore
from memory.event import CalendarEvent
from web.chat import json_body
from web.db import get_store

week = Blueprint("week", __name__)

MAX_EVENTS = 200  # a strip shows what fits in a glance; a packed week is cut, and says so


def _overlaps(a: CalendarEvent, b: CalendarEvent) -> bool:
    return not (a.all_day or b.all_day) and a.start < b.end and b.start < a.end


@week.get("/api/week")
def week_events() -> Any:
    """Seven days from `start` (default: today) in `tz`: imported and created events."""
    tz = clean_text(request.args.get("tz", "")) or local_zone_name()
    zone = parse_zone(tz)
    given = request.args.get("start", "")
    try:
        first = date.fromisoformat(given) if given else datetime.now(zone).date()
    except ValueError as error:
        raise InputError("start must be a date such as 2026-11-23") from error
    begin = datetime.combine(first, time(), zone)
    events = CalendarStore(get_store().db).between(
        begin, begin + timedelta(days=7), limit=MAX_EVENTS + 1
    )
    shown = events[:MAX_EVENTS]
    rows = [
        {
            "title": event.title,
            # An all-day event is its own date wherever the user is; a timed one, their wall time.
            "start": (
                event.start.date() if event.all_day else event.start.astimezone(zone)
            ).isoformat(),
            "end": (event.end.date() if event.all_day else event.end.astimezone(zone)).isoformat(),
            "all_day": event.all_day,
            "kind": "imported" if event.source.startswith("import:") else "created",
            "conflict": any(_overlaps(event, other) for other in shown if other is not event),
        }
        for event in shown
    ]
    return jsonify(start=first.isoformat(), tz=tz, events=rows, more=len(events) > MAX_EVENTS)


@week.post("/api/imports/undo")
def undo_import() -> Any:
    """Take back an .ics import: every event that file brought is removed, nothing else."""
    payload = json_body(default={})
    name = payload.get("name") if isinstance(payload, dict) else None
    if not isinstance(name, str) or not name or secure_filename(name) != name:
        raise InputError("say which import to undo: the file name the upload answered with")
    store = CalendarStore(get_store().db)
    removed = store.import_events([], f"import:{name}").removed
    return jsonify(removed=removed, message=f"Removed {removed} event(s) imported from {name}.")
