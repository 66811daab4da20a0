"""The reply: written from step results (templates, or the model within a length limit), then
held to the integrity check, with the real free slots and the question appended where a
schedule was asked for and not made."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from agent.errors import ModelError
from agent.executor import TurnState, _when
from agent.gateway import ModelGateway
from agent.integrity import check_claims
from agent.model import GenerationOptions, Message
from agent.prompts import load_prompt
from privacy import PrivacyGuard
from privacy.entity_map import PLACEHOLDER_RE

logger = logging.getLogger(__name__)
_NUMBER_RE = re.compile(r"\d+")

MAX_REPLY_TOKENS = 60


# What a failed step was doing, for "I could not ...: <why>."
_DOING = {
    "draft_reply": "write the draft",
    "list_events": "read your calendar",
    "find_free_slots": "look for free time",
    "check_conflicts": "check your calendar",
    "memory_store": "remember that",
    "memory_recall": "look in what I remember",
    "read_email": "read that e-mail",
    "list_emails": "read your mail folder",
}
NOTHING_FOUND = (
    "I found no event, calendar question or draft to write in this. You can paste a thread, "
    "or ask for example “lunch with Sam friday at 1”, “what's on thursday?”, “am I free "
    "tomorrow afternoon?” or “reply to Sam that friday works”."
)

_RELATIONS = {
    "overlap": "It overlaps",
    "adjacent": "It is right next to",
    "tight": "It leaves little time around",
}


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _numbers(text: str) -> set[str]:
    return {n.lstrip("0") or "0" for n in _NUMBER_RE.findall(text)}


def _faithful(written: str, template: str) -> bool:
    """The model's wording may replace the template only if it says the same facts.

    Every number (times, dates) and every person of the facts must be there and nothing
    else: a new number is a made-up time, a missing one a dropped event or slot. A reply
    cut off by the token limit is not a reply.
    """
    if not written or written[-1] not in ".!?":
        return False
    people = set(PLACEHOLDER_RE.findall(template))
    return _numbers(written) == _numbers(template) and people <= set(
        PLACEHOLDER_RE.findall(written)
    )


def _span(start: str, end: str | None, all_day: bool, tz: str | None = None) -> str:
    """'Thu 26 Nov, 13:00–14:00', shown in `tz` when given (a conflict may be kept in another
    zone: shown in its own, an overlap would not look like one)."""
    first = datetime.fromisoformat(start)
    if all_day:
        return f"{first:%a %d %b} (all day)"
    home = ZoneInfo(tz) if tz else first.tzinfo
    first = first.astimezone(home)
    if not end:
        return _when(first.isoformat())
    last = datetime.fromisoformat(end).astimezone(home)
    return f"{first:%a %d %b}, {first:%H:%M}–{last:%H:%M}"


def facts(
    state: TurnState,
    *,
    tz: str,
    injections: list[str],
    intent: str,
    failures: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """What the turn established, one sentence each; the template reply and the model's input."""
    lines: list[str] = []
    for outcome in state.outcomes:
        event = outcome.event
        if outcome.status == "created":
            lines.append(
                f"Created {'a reminder' if event.kind == 'reminder' else 'an event'}: "
                f"{event.title}, {_span(event.start.isoformat(), _iso(event.end), event.all_day)}"
                f" ({tz}); "
                "download the .ics to add it to your calendar."
            )
            for conflict in outcome.conflicts[:3]:
                relation = _RELATIONS.get(conflict["relation"], "It touches")
                when = _span(conflict["start"], conflict["end"], conflict["all_day"], tz)
                lines.append(f"{relation} {conflict['title']} ({when}, {tz}).")
        elif outcome.duplicate:
            lines.append(f"{event.title} is already in your calendar; I did not add it again.")
        elif outcome.status == "blocked":
            lines.append(f"I did not create {event.title}: {outcome.reason}.")
        elif event.undecided:
            lines.append(
                f"Several times were offered for {event.title} and none was picked, "
                "so nothing is scheduled yet."
            )
        elif event.rare_hour and event.start is not None:
            when = _span(event.start.isoformat(), _iso(event.end), event.all_day)
            lines.append(
                f"{event.title} would be on {when} ({tz}), an hour plans almost never start "
                "at, so I have not added it: say yes if that time is right."
            )
        elif event.pending and event.start is not None:
            when = _span(event.start.isoformat(), _iso(event.end), event.all_day)
            why = event.held_because or "the thread leaves it open"
            lines.append(
                f"{event.title} was proposed for {when} ({tz}), but {why}, "
                "so nothing is scheduled yet."
            )
        elif event.start is None:
            said = f" ({event.vague})" if event.vague else ""
            lines.append(
                f"No exact time was fixed for {event.title}{said}, so nothing is scheduled yet."
            )
        elif outcome.reason:
            lines.append(f"I could not create {event.title}: {outcome.reason}.")
    called_off = state.extracted and not state.outcomes and state.called_off
    for event in state.called_off[:3] if called_off else []:
        when = (
            f"{_span(event.start.isoformat(), _iso(event.end), event.all_day)} ({tz})"
            if event.start is not None
            else f"{event.day:%a %d %b}"
            if event.day is not None
            else ""
        )
        done = "postponed with no new time" if event.postponed else "called off"
        lines.append(
            f"{event.title}{f' on {when}' if when else ''} was {done} in the thread, "
            "so nothing is scheduled."
        )
    if (
        state.extracted
        and not state.outcomes
        and not called_off
        and intent in ("schedule", "remind")
    ):
        lines.append("I found no event with a date and time in this, so nothing is scheduled.")
    if state.slots and not called_off and not any(o.status == "created" for o in state.outcomes):
        times = ", ".join(_when(s["start"]) for s in state.slots[:3])
        lines.append(f"Free in your calendar: {times} ({tz}).")
    if state.listed:
        shown = "; ".join(
            f"{e['title']} ({_span(e['start'], e['end'], e['all_day'], tz)})"
            for e in state.listed[:5]
        )
        lines.append(f"Coming up in your calendar ({tz}): {shown}.")
    elif intent == "question" and not state.outcomes:
        lines.append("Your calendar has nothing in the next 7 days.")
    if state.draft is not None:
        unresolved = state.draft.get("unresolved") or []
        to = ", ".join(state.draft.get("to") or [])
        subject = state.draft.get("subject") or ""
        lines.append(
            f"I drafted an e-mail{f' to {to}' if to else ''} (“{subject}”) you can open in your "
            "mail app; nothing was sent."
        )
        if unresolved:
            lines.append(f"Add the address of {', '.join(unresolved)} before sending.")
        elif not state.draft.get("to"):
            lines.append(
                "It has no recipient yet: add one in your mail app, or name them here "
                "(“email Sam about …”)."
            )
    lines.extend(state.notes[:3])
    for tool, why in failures:
        lines.append(f"I could not {_DOING.get(tool, tool.replace('_', ' '))}: {why}.")
    if injections:
        lines.append(
            "I ignored instructions inside the pasted text that were addressed to me "
            f'("{injections[0][:60]}").'
        )
    return lines


def write_reply(
    lines: list[str],
    *,
    request: str,
    gateway: ModelGateway,
    guard: PrivacyGuard,
    session: str | None,
    has_ics: bool,
    has_eml: bool,
) -> tuple[str, tuple[str, ...]]:
    """The reply text (redacted) and the sentences the integrity check removed."""
    template = " ".join(lines) or NOTHING_FOUND
    text = template
    # One fact is already its sentence: the model only copied it back (1-1.5 s on 2 cores);
    # joining several is where its wording helps.
    if gateway.is_available and len(lines) > 1:
        prompt = load_prompt("reply")
        messages = [
            Message("system", prompt["system"]),
            Message("user", prompt["user"].format(request=request[:600], facts="\n".join(lines))),
        ]
        try:
            written = gateway.complete(
                messages,
                guard=guard,
                purpose="reply",
                options=GenerationOptions(max_tokens=MAX_REPLY_TOKENS),
                session=session,
            ).text.strip()
        except ModelError as error:
            logger.warning("reply model failed, template used: %s", error)
            written = ""
        if _faithful(written, template):
            text = written
    checked = check_claims(text, has_ics=has_ics, has_eml=has_eml)
    if text is not template and len(checked.text) < 20:
        checked = check_claims(template, has_ics=has_ics, has_eml=has_eml)
    return checked.text, checked.removed
