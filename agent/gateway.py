"""The one boundary every model call crosses: privacy guard, then backend, then audit log.

No other code calls a backend's `generate` (a contract test greps for it). A prompt is
screened against the session's known raw values first; only the screened text is sent and
logged.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from agent.audit import AuditLog, AuditRecord
from agent.errors import ModelError, ModelOutputError, ModelUnavailableError
from agent.model import ChatModel, GenerationOptions, Message, Usage
from privacy import EntityMap, PrivacyGuard

logger = logging.getLogger(__name__)

FAILURES_BEFORE_REST = 3
REST_S = 60


@dataclass(frozen=True)
class Completion:
    """A finished generation and what it cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    ms: float
    first_token_ms: float | None


class ModelGateway:
    """Wraps the chosen backend (or none) so that nothing reaches it unscreened or unlogged."""

    def __init__(self, model: ChatModel | None, *, audit: AuditLog | None = None) -> None:
        self.model = model
        self.audit = audit
        self._failures = 0
        self._resting_until = 0.0

    @property
    def is_available(self) -> bool:
        """False under --no-llm, and for a while after repeated failures: callers then take
        their rule-based path instead of waiting on a model that is down."""
        return self.model is not None and time.monotonic() >= self._resting_until

    def _record(self, failed: bool) -> None:
        self._failures = self._failures + 1 if failed else 0
        if self._failures >= FAILURES_BEFORE_REST:
            logger.warning("model failed %d times in a row; resting it %ds", self._failures, REST_S)
            self._resting_until = time.monotonic() + REST_S
            self._failures = 0

    @property
    def description(self) -> str:
        """ "backend:model" for bundles and logs."""
        if self.model is None:
            return "none"
        return f"{self.model.backend}:{self.model.model_id}"

    def check(self) -> None:
        """Fail closed at start-up: a model that cannot work is an error, not a fallback."""
        if self.model is not None:
            self.model.check()

    def complete(
        self,
        messages: Sequence[Message],
        *,
        guard: PrivacyGuard,
        purpose: str,
        options: GenerationOptions | None = None,
        session: str | None = None,
        on_text: Any = None,
    ) -> Completion:
        """Screen, generate, log. `on_text(piece)` is called as text streams in."""
        if self.model is None:
            raise ModelUnavailableError("no model configured (--no-llm)")
        if not self.is_available:
            raise ModelUnavailableError("the model failed repeatedly; resting it for a while")
        options = options or GenerationOptions()
        screened: list[Message] = []
        reredacted: set[str] = set()
        for message in messages:
            result = guard.screen(message.content)
            reredacted.update(result.reredacted)
            screened.append(Message(message.role, result.text))
        if reredacted:
            logger.warning("guard re-redacted %d value(s) in a %s prompt", len(reredacted), purpose)
        started = time.perf_counter()
        first_token_ms: float | None = None
        pieces: list[str] = []
        usage = Usage(0, 0)
        error: str | None = None
        try:
            for chunk in self.model.generate(screened, options=options):
                if isinstance(chunk, Usage):
                    usage = chunk
                    continue
                if first_token_ms is None:
                    first_token_ms = (time.perf_counter() - started) * 1000
                pieces.append(chunk)
                if on_text is not None:
                    on_text(chunk)
        except ModelError as failure:
            error = str(failure)
            self._record(failed=True)
            raise
        finally:
            ms = (time.perf_counter() - started) * 1000
            if self.audit is not None:
                self.audit.write(
                    AuditRecord(
                        time=datetime.now(UTC).isoformat(timespec="milliseconds"),
                        backend=self.model.backend,
                        model=self.model.model_id,
                        purpose=purpose,
                        prompt="\n\n".join(f"[{m.role}]\n{m.content}" for m in screened),
                        messages=[m.to_dict() for m in screened],
                        schema_name=options.schema_name,
                        output="".join(pieces),
                        prompt_tokens=usage.prompt_tokens,
                        completion_tokens=usage.completion_tokens,
                        ms=round(ms, 1),
                        first_token_ms=None if first_token_ms is None else round(first_token_ms, 1),
                        reredacted=sorted(reredacted),
                        session=session,
                        error=error,
                    )
                )
        self._record(failed=False)
        return Completion(
            "".join(pieces), usage.prompt_tokens, usage.completion_tokens, ms, first_token_ms
        )

    def prime(self, system_messages: Sequence[Message]) -> None:
        """Read each fixed system prompt once, so its state is cached before a turn needs it.

        The prompts hold no user text; they are screened and logged like any other.
        """
        if self.model is None:
            return
        guard = PrivacyGuard(EntityMap())
        for message in system_messages:
            self.complete(
                [message, Message("user", "")],
                guard=guard,
                purpose="prime",
                options=GenerationOptions(max_tokens=1, temperature=0.0),
            )

    def complete_json(
        self,
        messages: Sequence[Message],
        *,
        guard: PrivacyGuard,
        purpose: str,
        schema: dict[str, Any],
        schema_name: str,
        max_tokens: int = 256,
        session: str | None = None,
    ) -> dict[str, Any]:
        """Generate under a JSON-schema grammar and parse; unparseable output is an error."""
        options = GenerationOptions(
            max_tokens=max_tokens, json_schema=schema, schema_name=schema_name
        )
        completion = self.complete(
            messages, guard=guard, purpose=purpose, options=options, session=session
        )
        try:
            parsed = json.loads(completion.text)
        except json.JSONDecodeError as error:
            raise ModelOutputError(
                f"{purpose}: the model's answer is not JSON ({error})"
            ) from error
        if not isinstance(parsed, dict):
            raise ModelOutputError(f"{purpose}: the model's answer is not a JSON object")
        return parsed
