"""The audit log: one JSON object per model call, holding exactly what the model was sent.

It is how a user checks Veil's promise ("What the model saw"), so it records the screened
prompt — the text that actually left the gateway — never the raw input.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class AuditRecord:
    """One model call as it crossed the boundary."""

    time: str
    backend: str
    model: str
    purpose: str
    prompt: str
    messages: list[dict[str, str]]
    schema_name: str | None
    output: str
    prompt_tokens: int
    completion_tokens: int
    ms: float
    first_token_ms: float | None
    reredacted: list[str] = field(default_factory=list)
    session: str | None = None
    error: str | None = None


class AuditLog:
    """Append-only JSONL file; each line is flushed so a crash keeps every earlier call."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def write(self, record: AuditRecord) -> None:
        """Append one record."""
        line = json.dumps(asdict(record), ensure_ascii=False)
        with self._lock:
            # Created 0600 whatever the umask: prompts are redacted, but still the user's own.
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(descriptor, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
                handle.flush()

    def read(self, *, session: str | None = None) -> Iterator[dict[str, Any]]:
        """Records in order, optionally of one session; a torn last line is skipped."""
        if not self.path.exists():
            return
        # The log grows with every call and a turn reads it twice: lines that cannot be the
        # session's are skipped unparsed (json.dumps writes the key exactly so; the id is hex).
        marker = f'"session": {json.dumps(session, ensure_ascii=False)}' if session else None
        with self.path.open(encoding="utf-8") as handle:
            for line in handle:
                if marker is not None and marker not in line:
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if session is None or record.get("session") == session:
                    yield record
