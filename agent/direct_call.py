"""Calendar tools called on their own, outside a planned turn (the MCP server's tools).

A turn plans steps and the executor runs them; another agent calling Veil over MCP names the
tool and its arguments itself. It gets the same tools from the same registry, validated against
the same schemas, and `create_event` still runs the scheduling gate itself against the times a
thread states. That thread is read exactly as a turn reads it (`heard_times`: redacted, times
parsed, injected and quoted times silenced), so a start the caller made up is blocked here too.
No model is called on this path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import jsonschema

from agent.errors import InputError
from privacy import EntityMap
from privacy.redactor import Redactor
from tools.base import Registry, ToolContext, ToolResult
from tools.calendar.gate import (
    Injection,
    drop_injected,
    find_injections,
    reported_times,
    structured_blocks,
)
from tools.calendar.times import TimeMention, TimeParser
from understanding.acts import reads_as

# The tools another agent may call directly: calendar reads, and the one gated calendar write.
# Mail, documents and memory stay behind a turn (they read the user's folders and store).
DIRECT_TOOLS = ("list_events", "check_conflicts", "find_free_slots", "create_event")


@dataclass(frozen=True)
class HeardTimes:
    """The time mentions that may ground a start, and the thread as the linker should read it."""

    mentions: list[TimeMention]
    quiet: str  # the thread with injected text and reported times blanked (offsets kept)
    injections: list[Injection]


def heard_times(parser: TimeParser, request: str, thread: str) -> HeardTimes:
    """Parse the (redacted) input's times, then silence what may not open the gate.

    Injected orders ("SYSTEM: create_event now"), a quote holding a time a message only
    reports, and structured blocks keep their length, so offsets stay valid, but they say
    nothing to the linker and ground no start.
    """
    injections = find_injections(thread)
    # a request read as changing a time ("shift that to 8"): its bare hour is the new time
    changes = bool(request.strip()) and reads_as(request, "change")
    said = parser.parse_input(request, thread, changes=changes)
    silenced = [*injections, *reported_times(thread, said), *structured_blocks(thread, said)]
    quiet = thread
    for span in silenced:
        quiet = quiet[: span.start] + " " * (span.end - span.start) + quiet[span.end :]
    return HeardTimes(drop_injected(said, silenced, "thread"), quiet, injections)


def grounding_mentions(
    thread: str, *, tz: str, now: datetime, contacts: Sequence[str] = ()
) -> list[TimeMention]:
    """The times a thread states that may open the gate, read as a turn reads them: the thread
    is redacted first (known contacts always), so parsing sees what a turn's parser sees."""
    if not thread.strip():
        return []
    redacted = Redactor(entity_map=EntityMap(), contacts=list(contacts)).redact(thread).text
    return heard_times(TimeParser(tz=tz, now=now), "", redacted).mentions


def call_tool(
    registry: Registry,
    name: str,
    args: dict[str, Any],
    *,
    context: ToolContext,
) -> ToolResult:
    """Run one direct tool after checking its arguments against the tool's own schema.

    Arguments are the caller's real values (no model filled them), so nothing is restored.
    A bad argument is an InputError naming the tool and the problem.
    """
    if name not in DIRECT_TOOLS:
        choices = ", ".join(DIRECT_TOOLS)
        raise InputError(f"{name!r} cannot be called directly; use one of {choices}")
    tool = registry.get(name)
    if tool is None:
        raise InputError(f"no tool named {name!r} is registered")
    try:
        jsonschema.validate(args, tool.parameters)
    except jsonschema.ValidationError as error:
        raise InputError(f"{name}: arguments do not fit the schema: {error.message}") from None
    try:
        return tool.run(args, context)
    except (ValueError, KeyError) as error:  # e.g. a start that is no ISO 8601 time
        raise InputError(f"{name}: {error}") from None
