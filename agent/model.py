"""The one small interface every model backend implements, and how Veil picks a backend.

Callers never hold a backend directly: `agent.gateway.ModelGateway` wraps whichever one is
chosen, so every prompt passes the privacy guard and lands in the audit log.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field


@dataclass(frozen=True)
class Message:
    """One chat message sent to a model."""

    role: Literal["system", "user", "assistant"]
    content: str

    def to_dict(self) -> dict[str, str]:
        """OpenAI-style message mapping, the form llama.cpp and every server take."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class Usage:
    """Token counts a backend reports after a generation (the last chunk of a stream)."""

    prompt_tokens: int
    completion_tokens: int


Chunk = str | Usage


class GenerationOptions(BaseModel):
    """How to generate; unknown options are an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid")

    max_tokens: int = Field(256, ge=1, le=8192, description="Upper bound on generated tokens.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="0 gives repeatable output.")
    seed: int = Field(0, description="Sampling seed, so runs can be repeated.")
    json_schema: dict[str, Any] | None = Field(
        None, description="JSON schema the output must follow (grammar-constrained)."
    )
    schema_name: str | None = Field(None, description="Name of the schema, for the audit log.")
    stop: list[str] = Field(default_factory=list, description="Strings that end generation.")


class ChatModel(Protocol):
    """A chat model: messages in, text out, optionally constrained by a JSON schema."""

    model_id: str
    backend: str
    supports_schema: bool

    def check(self) -> None:
        """Fail now, with a message naming the setting to fix, if the backend cannot work."""
        ...

    def generate(
        self, messages: Sequence[Message], *, options: GenerationOptions
    ) -> Iterator[Chunk]:
        """Stream the answer as text pieces, ending with one `Usage`."""
        ...
