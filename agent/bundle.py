"""The turn bundle: the one contract between a turn and every front-end (DESIGN.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo


@dataclass
class BundleEvent:
    """An event as the user sees it: real names, local wall times with their offset."""

    title: str
    start: str
    end: str
    all_day: bool
    location: str
    attendees: list[str]
    status: Literal["created", "updated", "cancelled", "proposed", "blocked"]
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    uid: str | None = None  # the calendar UID of an event Veil created, changed or cancelled
    # Why a proposed event whose start the input states was not created, so a bare "yes" to
    # the question creates it at that start: "unagreed" (no one else's yes in the thread) or
    # "rare_hour" (an hour plans almost never start at). None for Veil's own suggestions.
    held: Literal["unagreed", "rare_hour"] | None = None


def in_zone(conflict: dict[str, Any], tz: str) -> dict[str, Any]:
    """A conflict's times in the user's zone: an event kept in another zone, shown in its
    own, would not look like the overlap it is. All-day dates stay as they are."""
    if conflict.get("all_day"):
        return dict(conflict)
    home = ZoneInfo(tz)
    moved = dict(conflict)
    for key in ("start", "end"):
        if conflict.get(key):
            moved[key] = datetime.fromisoformat(str(conflict[key])).astimezone(home).isoformat()
    return moved


@dataclass
class BundleFile:
    """A file the turn produced: an .ics, an .eml, or a mailto URL."""

    type: Literal["ics", "eml", "mailto"]
    path: str | None
    url: str | None
    label: str


@dataclass
class PlanItem:
    """One planned step: which tool, with which (redacted) arguments, and why."""

    tool: str
    args: dict[str, Any]
    purpose: str


@dataclass
class StepOutcome:
    """How a planned step ended."""

    tool: str
    status: Literal["ok", "failed", "blocked"]
    attempts: int
    detail: str


@dataclass
class TurnBundle:
    """Everything one turn produced."""

    reply: str
    question: str | None = None
    events: list[BundleEvent] = field(default_factory=list)
    files: list[BundleFile] = field(default_factory=list)
    plan: list[PlanItem] = field(default_factory=list)
    steps: list[StepOutcome] = field(default_factory=list)
    planner: str = "rules"  # which planner made `plan`: "model" or "rules"

    def to_dict(self) -> dict[str, Any]:
        """The keys of DESIGN.md's contract in its order, then which planner made the plan."""
        return {
            "reply": self.reply,
            "question": self.question,
            "events": [asdict(e) for e in self.events],
            "files": [asdict(f) for f in self.files],
            "plan": [asdict(p) for p in self.plan],
            "steps": [asdict(s) for s in self.steps],
            "planner": self.planner,
        }
