"""Memory tools: remember a sentence about the user's world, recall the closest ones."""

from __future__ import annotations

from typing import Any

from tools.base import Tool, ToolContext, ToolResult

MAX_FACT_CHARS = 500  # one remembered sentence, from a tool call or typed in a chat


def memory_store(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    if ctx.memory is None:
        return ToolResult.fail("long-term memory is off in this turn")
    try:
        fact = ctx.memory.add_fact(args["text"], ctx.session)
    except ValueError as error:
        return ToolResult.fail(str(error))
    return ToolResult(True, {"stored": fact.text, "id": fact.id})


def memory_recall(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    recall = ctx.services.get("recall")
    if recall is None:
        return ToolResult.fail("long-term memory is off in this turn")
    facts = recall(args["query"], int(args.get("k", 5)))
    return ToolResult(True, {"facts": facts})


TOOLS: tuple[Tool, ...] = (
    Tool(
        "memory_store",
        "Remember one sentence about the user's people, places or preferences for later turns.",
        {
            "type": "object",
            "properties": {"text": {"type": "string", "minLength": 3, "maxLength": MAX_FACT_CHARS}},
            "required": ["text"],
            "additionalProperties": False,
        },
        memory_store,
        writes=True,
    ),
    Tool(
        "memory_recall",
        "Recall remembered sentences closest in meaning to a query.",
        {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 2, "maxLength": 300},
                "k": {"type": "integer", "minimum": 1, "maximum": 10},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        memory_recall,
    ),
)
