"""The turn bundle made ready for the page: times in words, reasons, slot buttons, file links.

Server paths never reach the browser: each generated file is registered under an id and linked
as /files/<id>; the bundle's `path` fields are dropped here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from tools.calendar.gate import COULD_MEAN, ZONE_UNSAID

Register = Callable[[str, str, str], str]  # (path, type, label) -> file id

_REASONS = {
    "created": "The time was stated in your message and the calendar check passed.",
    "proposed": "No exact time was stated: this is a free slot to confirm, nothing is booked.",
    "blocked": "Not added: Veil could not find this time stated and agreed in a message, so "
    "it booked nothing. Tell me the time to add it.",
    "updated": "Moved as you asked: same event, new time; the .ics replaces the earlier one.",
    "cancelled": "Cancelled as you asked: the .ics removes it from your calendar.",
}


def when(start: str, end: str, all_day: bool) -> str:
    """'Thu 26 Nov 2026, 13:00–14:00' in the wall time the bundle carries (the user's zone)."""
    begin = datetime.fromisoformat(start)
    if all_day:
        return f"{begin:%a %d %b %Y} (all day)"
    finish = datetime.fromisoformat(end) if end else begin
    if finish.date() == begin.date():
        return f"{begin:%a %d %b %Y}, {begin:%H:%M}–{finish:%H:%M}"
    return f"{begin:%a %d %b %Y %H:%M} – {finish:%a %d %b %H:%M}"


def slot_answer(title: str, start: str) -> str:
    """The request a slot button sends: the event with its chosen time spelled out in full."""
    moment = datetime.fromisoformat(start)
    return f"{title} on {moment:%A} {moment:%Y-%m-%d} at {moment:%H:%M}"


def _conflict(conflict: dict[str, Any]) -> dict[str, str]:
    start, end = str(conflict.get("start") or ""), str(conflict.get("end") or "")
    try:
        time_text = when(start, end, bool(conflict.get("all_day"))) if start else ""
    except ValueError:
        time_text = start
    return {
        "title": str(conflict.get("title") or "(no title)"),
        "when": time_text,
        "relation": str(conflict.get("relation") or "overlaps"),
    }


# A blocked card says why in the user's words; the gate's own reason (dates, quoted mention
# text, "the user's input") stays in the trace for whoever wants it.
_BLOCKED = (
    (" is in the past ", "Not added: that time has already passed."),
    (COULD_MEAN, "Not added yet: the time can be read more than one way; answer the question "
     "above and Veil adds it."),
    (ZONE_UNSAID, "Not added yet: the time was said without saying whose time zone; tell me the "
     "zone or the time in yours."),
)  # fmt: skip


def _reason(event: dict[str, Any], blocked_details: list[str]) -> str:
    if event["status"] == "blocked":
        said = " ".join(blocked_details)
        return next((text for cue, text in _BLOCKED if cue in said), _REASONS["blocked"])
    if event["status"] == "created" and event.get("conflicts"):
        return "Created at the time you stated, but it overlaps other events."
    return _REASONS.get(event["status"], "")


def answer_view(bundle: dict[str, Any], *, register: Register, all_url: str) -> dict[str, Any]:
    """What the page renders for one turn; `register` turns a file path into a download id."""
    blocked = [s["detail"] for s in bundle["steps"] if s["status"] == "blocked" and s["detail"]]
    events = [
        {
            "title": e["title"],
            "when": when(e["start"], e["end"], e["all_day"]),
            "start": e["start"],
            "end": e["end"],
            "location": e["location"],
            "attendees": e["attendees"],
            "status": e["status"],
            "reason": _reason(e, blocked),
            "conflicts": [_conflict(c) for c in e.get("conflicts", [])],
            "uid": e.get("uid"),
            "held": e.get("held"),
        }
        for e in bundle["events"]
    ]
    slots = [
        {"label": e["when"], "answer": slot_answer(e["title"], e["start"])}
        for e in events
        if e["status"] == "proposed"
    ]
    files = []
    for item in bundle["files"]:
        if item["type"] == "mailto":
            files.append({"type": "mailto", "label": item["label"], "url": item["url"]})
        elif item.get("path"):
            file_id = register(item["path"], item["type"], item["label"])
            files.append({"type": item["type"], "label": item["label"], "url": f"/files/{file_id}"})
    return {
        "reply": bundle["reply"],
        "question": bundle["question"],
        "events": events,
        "slots": slots,
        "files": files,
        "all_ics": all_url if sum(f["type"] == "ics" for f in files) > 1 else None,
        "plan": bundle["plan"],
        "steps": bundle["steps"],
        "planner": bundle.get("planner", "rules"),
    }
