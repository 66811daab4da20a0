"""`ask_user`: the one clear question a turn ends with when code cannot decide for the user."""

from __future__ import annotations

from typing import Any

from tools.base import Tool, ToolContext, ToolResult


def ask_user(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    question = " ".join(str(args.get("question", "")).split())
    if not question:
        return ToolResult.fail("a question needs text")
    return ToolResult(True, {"question": question if question.endswith("?") else question + "?"})


TOOLS: tuple[Tool, ...] = (
    Tool(
        "ask_user",
        "Ask the user one clear question (e.g. which time) instead of guessing.",
        {
            "type": "object",
            "properties": {"question": {"type": "string", "minLength": 3, "maxLength": 300}},
            "required": ["question"],
            "additionalProperties": False,
        },
        ask_user,
    ),
)
