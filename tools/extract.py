"""`extract_events`: the events a thread implies, found by code and linked by the agent's linker.

The linking needs the model gateway and the turn's redacted text, which belong to the agent,
so the agent hands the linker in as the `extract` service; this tool is its catalogue entry.
"""

from __future__ import annotations

from typing import Any

from tools.base import Tool, ToolContext, ToolResult


def extract_events(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    extract = ctx.services.get("extract")
    if extract is None:
        return ToolResult.fail("event extraction is not available in this turn")
    events = extract()
    # "_events" carries the objects for the executor; keys with "_" never reach a model.
    return ToolResult(True, {"events": [e.to_dict() for e in events], "_events": events})


TOOLS: tuple[Tool, ...] = (
    Tool(
        "extract_events",
        "Find the events (title, time, place, people) the request and pasted thread talk about.",
        {"type": "object", "properties": {}, "additionalProperties": False},
        extract_events,
    ),
)
