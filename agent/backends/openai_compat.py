"""Any OpenAI-compatible chat server: llama.cpp's server, Ollama, vLLM.

This is how a user who outgrows the laptop model serves a bigger one. Only redacted text
reaches it: the gateway screens every prompt before a backend sees it. Plain `urllib`, so
no HTTP client library joins the dependency list for one POST.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit

from agent.errors import ModelError
from agent.model import Chunk, GenerationOptions, Message, Usage


def chat_completions_url(base: str) -> str:
    """Accept "http://host:port", ".../v1" or the full endpoint, as users paste any of them."""
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ModelError(
            f"--llm-url must be an http(s) URL like http://127.0.0.1:8080, got {base!r}"
        )
    path = parts.path.rstrip("/")
    if path.endswith("/chat/completions"):
        return base
    if not path.endswith("/v1"):
        path += "/v1"
    return f"{parts.scheme}://{parts.netloc}{path}/chat/completions"


class OpenAICompatModel:
    """Streams chat completions from a server over HTTP (server-sent events)."""

    backend = "openai-compatible"
    supports_schema = True

    def __init__(self, url: str, *, model: str | None = None, timeout: float = 120.0) -> None:
        self.url = chat_completions_url(url)
        self.model_id = model or "default"
        self.timeout = timeout

    def _open(self, request: urllib.request.Request | str, timeout: float) -> Any:
        """urlopen with failures turned into one-line errors that name --llm-url."""
        url = request if isinstance(request, str) else request.full_url
        try:
            return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310
        except urllib.error.HTTPError as error:
            detail = error.read(300).decode("utf-8", "replace").strip()
            raise ModelError(f"model server at {url} answered {error.code}: {detail}") from error
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise ModelError(
                f"cannot reach the model server at {url} ({reason}); start it or fix --llm-url"
            ) from error

    def check(self) -> None:
        """Ask the server for its model list, so a wrong URL fails at start, not mid-turn."""
        models_url = self.url.rsplit("/chat/completions", 1)[0] + "/models"
        with self._open(models_url, min(self.timeout, 10.0)) as response:
            body = response.read(1 << 20)
        if self.model_id == "default":
            # Ollama and vLLM reject an unknown model name: use the one the server serves.
            try:
                served = [m["id"] for m in json.loads(body).get("data", []) if m.get("id")]
            except (ValueError, TypeError, AttributeError) as error:
                raise ModelError(f"{models_url} did not answer with a model list") from error
            if served:
                self.model_id = served[0]

    def _payload(self, messages: Sequence[Message], options: GenerationOptions) -> bytes:
        body: dict[str, Any] = {
            "model": self.model_id,
            "messages": [m.to_dict() for m in messages],
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            "seed": options.seed,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if options.stop:
            body["stop"] = options.stop
        if options.json_schema is not None:
            # llama.cpp's server reads "schema"; vLLM and Ollama read "json_schema".
            body["response_format"] = {
                "type": "json_object",
                "schema": options.json_schema,
                "json_schema": {
                    "name": options.schema_name or "answer",
                    "schema": options.json_schema,
                },
            }
        return json.dumps(body).encode("utf-8")

    def generate(
        self, messages: Sequence[Message], *, options: GenerationOptions
    ) -> Iterator[Chunk]:
        """Stream text pieces from the server's SSE answer, then a `Usage`."""
        request = urllib.request.Request(
            self.url,
            data=self._payload(messages, options),
            headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
        )
        response = self._open(request, self.timeout)
        try:
            yield from self._stream(response)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ModelError(f"model server at {self.url} sent a broken answer: {error}") from error

    def _stream(self, response: Any) -> Iterator[Chunk]:
        """Text pieces of one SSE response, then a `Usage`."""
        usage = Usage(0, 0)
        pieces = 0
        with response:
            for raw in response:
                line = raw.decode("utf-8", "replace").strip()
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                event = json.loads(data)
                if event.get("usage"):
                    usage = Usage(
                        int(event["usage"].get("prompt_tokens", 0)),
                        int(event["usage"].get("completion_tokens", 0)),
                    )
                for choice in event.get("choices") or []:
                    piece = (choice.get("delta") or {}).get("content")
                    if piece:
                        pieces += 1
                        yield piece
        yield usage if usage.completion_tokens else Usage(usage.prompt_tokens, pieces)
