"""The tool contract: what a tool declares, what it is given, and what it returns.

A tool is a plain function behind a name, a description and a JSON-schema for its arguments.
The executor validates arguments against that schema before a run and reads the outcome only
from the returned ToolResult, never from model prose. Write tools (`writes=True`) receive real
(restored) arguments and may create files; read tools receive redacted arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from memory.calendar import CalendarStore
    from memory.store import MemoryStore
    from tools.calendar.times import TimeMention

FileType = Literal["ics", "eml", "mailto"]


@dataclass(frozen=True)
class ToolFile:
    """A file (or mailto URL) a tool produced this turn; the integrity check counts these."""

    type: FileType
    path: str | None
    url: str | None
    label: str


@dataclass
class ToolResult:
    """How a run ended. `blocked` is final (the gate said no); `ok=False` alone may be retried."""

    ok: bool
    data: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    files: list[ToolFile] = field(default_factory=list)
    blocked: bool = False

    @classmethod
    def fail(cls, error: str) -> ToolResult:
        return cls(ok=False, error=error)

    @classmethod
    def block(cls, reason: str, **data: Any) -> ToolResult:
        return cls(ok=False, error=reason, blocked=True, data=data)


@dataclass
class ToolContext:
    """What every tool may read: the turn's clock and zone, the user's stores and folders."""

    tz: str
    now: datetime
    out_dir: Path
    calendar: CalendarStore
    mentions: list[TimeMention] = field(default_factory=list)
    memory: MemoryStore | None = None
    session: str | None = None
    email_dir: Path | None = None
    documents_dir: Path | None = None
    # Turn-level services the agent supplies (event linking needs the model gateway).
    services: dict[str, Callable[..., Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Tool:
    """One capability the planner may call."""

    name: str
    description: str
    parameters: dict[str, Any]
    run: Callable[[dict[str, Any], ToolContext], ToolResult]
    writes: bool = False

    def spec(self) -> dict[str, Any]:
        """The catalogue entry a planner sees."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }


class Registry:
    """Tools by name, in registration order; the planner's tool enum comes from here."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is registered twice")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def catalogue(self) -> list[dict[str, Any]]:
        return [tool.spec() for tool in self._tools.values()]

    def __contains__(self, name: object) -> bool:
        return name in self._tools
