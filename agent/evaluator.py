"""Judge a tool run from its ToolResult, never from what a model says about it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tools.base import ToolResult

Status = Literal["ok", "failed", "blocked"]
MAX_RETRIES = 2


@dataclass(frozen=True)
class Verdict:
    status: Status
    retry: bool
    detail: str


def judge(result: ToolResult, attempts: int) -> Verdict:
    """ok / failed / blocked; a failure is retried at most MAX_RETRIES times, a block never."""
    if result.blocked:
        return Verdict("blocked", False, result.error or "blocked by the scheduling gate")
    if not result.ok:
        return Verdict("failed", attempts <= MAX_RETRIES, result.error or "the tool failed")
    return Verdict("ok", False, "")
