"""The model linker: a model picks each unnamed event's time among its own candidates and
titles it, under a grammar whose enums are the candidate IDs; code keeps the final word."""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import Any

from agent.errors import ModelError, ModelOutputError
from agent.extraction.candidate import Candidate, ProposedEvent
from agent.gateway import ModelGateway
from agent.model import Message
from agent.prompts import load_prompt
from privacy import PrivacyGuard
from privacy.entity_map import PLACEHOLDER_RE

logger = logging.getLogger(__name__)


LINK_SCHEMA_MAX_TITLE = 60


def _link_schema(events: list[ProposedEvent], ids: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "events": {
                "type": "array",
                "minItems": len(events),
                "maxItems": len(events),
                "items": {
                    "type": "object",
                    "properties": {
                        "time": {"type": "string", "enum": ids},
                        "title": {"type": "string", "maxLength": LINK_SCHEMA_MAX_TITLE},
                    },
                    "required": ["time", "title"],
                },
            }
        },
        "required": ["events"],
    }


def link_with_model(
    events: list[ProposedEvent],
    found: list[Candidate],
    *,
    request: str,
    thread: str,
    gateway: ModelGateway,
    guard: PrivacyGuard,
    session: str | None = None,
) -> tuple[list[ProposedEvent], bool]:
    """Let the model pick the time of each unnamed event among its candidates and title it.

    Returns the events and whether the model's answer was used. An answer that does not
    parse or names a candidate outside the event's own messages is not used: the rule
    linker's events stand; a title of placeholders or IDs keeps the code's title.
    """
    # Only events code could not name go to the model: a title with the activity word and a
    # time from its own messages are already what the model would be asked for.
    timed = [e for e in events if e.schedulable and not e.all_day and not e.activity]
    if not gateway.is_available or not timed:
        return events, False
    by_id = {c.id: c for c in found}
    ids = sorted({c.id for c in found if c.mention.has_clock_time}, key=lambda i: int(i[1:]))
    if not ids:
        return events, False
    prompt = load_prompt("link")
    listing = "\n".join(
        f"{c.id}: {c.mention.text!r} in: {_context(request, thread, c)}"
        for c in found
        if c.id in ids
    )
    proposals = "\n".join(
        f"{i + 1}. {e.title} (suggested time {e.grounds[-1]})" for i, e in enumerate(timed)
    )
    messages = [
        Message("system", prompt["system"]),
        Message("user", prompt["user"].format(times=listing, events=proposals)),
    ]
    try:
        answer = gateway.complete_json(
            messages,
            guard=guard,
            purpose="link",
            schema=_link_schema(timed, ids),
            schema_name=prompt["schema_name"],
            max_tokens=40 + 30 * len(timed),
            session=session,
        )
    except (ModelError, ModelOutputError) as error:
        logger.warning("event linker model failed, rules stand: %s", error)
        return events, False
    picked = answer.get("events")
    if not isinstance(picked, list) or len(picked) != len(timed):
        return events, False
    updated: dict[int, ProposedEvent] = {}
    for event, choice in zip(timed, picked, strict=True):
        chosen = by_id.get(str(choice.get("time")))
        title = " ".join(str(choice.get("title", "")).split())
        if chosen is None or chosen.id not in event.grounds:
            return events, False  # a time from another message is not this event's
        if PLACEHOLDER_RE.sub("", title).strip(" -:") == "" or re.search(r"\bT\d+\b", title):
            title = event.title  # a title of placeholders or candidate IDs names nothing
        updated[id(event)] = replace(event, title=title or event.title)
    return [updated.get(id(e), e) for e in events], True


def _context(request: str, thread: str, candidate: Candidate) -> str:
    text = request if candidate.mention.source == "request" else thread
    lo = max(0, candidate.mention.start - 60)
    snippet = text[lo : candidate.mention.end + 40].replace("\n", " ")
    return repr(snippet)
