"""Every built-in tool in one registry: the planner's catalogue and the executor's lookup."""

from __future__ import annotations

from tools import ask_user, documents, email, extract, memory
from tools.base import Registry
from tools.calendar import tools as calendar


def builtin_registry() -> Registry:
    """A fresh registry of the built-in tools, calendar first (the planner reads it in order)."""
    return Registry(
        [
            *calendar.TOOLS,
            *extract.TOOLS,
            *email.TOOLS,
            *documents.TOOLS,
            *memory.TOOLS,
            *ask_user.TOOLS,
        ]
    )
