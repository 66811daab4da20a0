"""llama.cpp in-process: the embedded SmolLM2 GGUF, or any GGUF chat model by path."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import psutil

from agent.errors import ModelError
from agent.model import Chunk, GenerationOptions, Message, Usage

logger = logging.getLogger(__name__)

# Prompt states kept on disk per model (agent/backends/prompt_cache.py): about 13 MB for a
# 600-token prompt, so a handful of prompt shapes (plan, link, reply, tools) fit.
PROMPT_CACHE_BYTES = 160 << 20
# Tokens per llama.cpp batch. Prompt speed on 2 cores is the same at 64 as at 512 (330 tokens/s
# measured), and llama-cpp-python keeps a logits buffer of batch x vocabulary floats: 12 MB
# instead of 100 MB.
N_BATCH = 64

GGUF_MAGIC = b"GGUF"


def check_gguf(path: Path) -> None:
    """Fail with a fix-it message before llama.cpp prints a wall of C logs."""
    if not path.is_file():
        raise ModelError(
            f"Model file not found at {path}; pass --model PATH.gguf or set VEIL_MODEL"
        )
    with path.open("rb") as handle:
        if handle.read(4) != GGUF_MAGIC:
            raise ModelError(f"{path} is not a GGUF model file (bad header); pass a .gguf file")


def _closed(schema: Any) -> Any:
    """`schema` with no properties beyond those named, as llama.cpp's JSON grammar reads it
    (an object schema that lists properties admits only those)."""
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {key: _closed(value) for key, value in schema.items()}
    if "properties" in closed and "additionalProperties" not in closed:
        closed["additionalProperties"] = False
    return closed


def _fits(text: str, schema: dict[str, Any]) -> bool:
    """Whether `text` is one JSON object the grammar of `schema` would also have produced:
    valid, with no property the schema does not name."""
    try:
        jsonschema.validate(json.loads(text), _closed(schema))
    except (ValueError, jsonschema.ValidationError, jsonschema.SchemaError):
        return False
    return True


def threads_for(cpus: int, others_busy: float) -> int:
    """llama.cpp threads for a generation: the cores other processes leave free, at least one.

    Its threads spin-wait for each other at every step, so a thread that has to share a core
    with another busy process stalls them all: on 2 cores under load, one reply took 69.8 s
    with 2 threads and 5.5 s with 1.
    """
    return max(1, min(cpus, round(cpus - others_busy)))


class CpuUsage:
    """How many cores *other* processes kept busy since the previous reading."""

    MIN_INTERVAL_S = 0.25  # shorter windows are noise: the last figure stands

    def __init__(self) -> None:
        self._me = psutil.Process()
        self._busy = 0.0
        self._at = 0.0
        self._read()  # the first reading only sets the baseline

    def others_busy(self) -> float:
        if time.monotonic() - self._at >= self.MIN_INTERVAL_S:
            self._read()
        return self._busy

    def _read(self) -> None:
        total = psutil.cpu_percent(interval=None) / 100 * (os.cpu_count() or 1)
        mine = self._me.cpu_percent(interval=None) / 100
        self._busy, self._at = max(0.0, total - mine), time.monotonic()


class LlamaCppModel:
    """A GGUF chat model run by llama-cpp-python, loaded on first use.

    llama.cpp contexts are not thread-safe, so one lock serialises generations: the web
    app's queue sits in front of it and the CLI never runs two at once anyway.
    """

    backend = "llama.cpp"
    supports_schema = True

    def __init__(
        self,
        path: Path,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        lora_path: str | Path | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        check_gguf(path)
        if lora_path is not None and not Path(lora_path).is_file():
            raise ModelError(f"Adapter file not found at {lora_path}; pass --no-adapter")
        self.path = path
        # The audit log and the bundle say which adapter, if any, shaped an answer.
        self.model_id = f"{path.stem}+{Path(lora_path).stem}" if lora_path else path.stem
        self.n_ctx = n_ctx
        self.cpus = max(1, os.cpu_count() or 1)
        self.n_threads = n_threads  # None: as many as the cores other processes leave free
        self._usage = CpuUsage()
        self.lora_path = str(lora_path) if lora_path else None
        # States depend on the weights: one folder per model file, adapter and context size.
        self.cache_dir = (
            cache_dir / hashlib.sha256(f"{self.model_id}:{n_ctx}".encode()).hexdigest()[:16]
            if cache_dir is not None
            else None
        )
        self._llama: Any = None
        self._lock = threading.Lock()
        self.load_seconds: float | None = None

    def load(self) -> Any:
        """Build the llama.cpp context once; later calls return it."""
        if self._llama is None:
            from llama_cpp import Llama

            started = time.perf_counter()
            try:
                self._llama = Llama(
                    model_path=str(self.path),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads or self.cpus,
                    n_threads_batch=self.n_threads or self.cpus,
                    n_batch=N_BATCH,
                    n_ubatch=N_BATCH,
                    lora_path=self.lora_path,
                    verbose=False,
                )
            except (ValueError, RuntimeError) as error:
                raise ModelError(
                    f"llama.cpp could not load {self.path} ({error}); the file may be corrupt "
                    "or not a chat model: pass another --model"
                ) from error
            # Prompts share long fixed prefixes (each purpose's system prompt and tool list);
            # states kept on disk let alternating purposes, and the next cold start, skip
            # re-reading them.
            if self.cache_dir is not None:
                from agent.backends.prompt_cache import PromptStateCache

                self._llama.set_cache(
                    PromptStateCache(
                        self.cache_dir,
                        n_ctx=self.n_ctx,
                        n_vocab=self._llama.n_vocab(),
                        capacity_bytes=PROMPT_CACHE_BYTES,
                    )
                )
            self.load_seconds = time.perf_counter() - started
            logger.info("loaded %s in %.2f s", self.path.name, self.load_seconds)
        return self._llama

    @staticmethod
    def _greedy_json(
        llama: Any, kwargs: dict[str, Any], schema: dict[str, Any]
    ) -> tuple[str, int] | None:
        """A greedy answer without the grammar, kept only if it is one JSON object that fits
        `schema`; None sends the caller to the grammar-constrained path.

        llama-cpp-python applies a JSON grammar to the whole 49,152-token vocabulary at every
        step: 5.7 ms a token here, half the decode time. At temperature 0 a grammar only ever
        changes a token the model would have chosen wrongly, so an unconstrained answer that
        the grammar would have accepted token by token is the same answer; one that fits the
        schema is a valid plan either way. Generation stops where the object closes, and at
        once when the answer does not start with "{".
        """
        text, tokens, depth = "", 0, 0
        started = in_string = escaped = False
        try:
            for chunk in llama.create_chat_completion(**kwargs):
                piece = chunk["choices"][0]["delta"].get("content")
                if not piece:
                    continue
                tokens += 1
                for offset, char in enumerate(piece):
                    if not started:
                        if char.isspace():
                            continue
                        if char != "{":
                            return None
                        started = True
                    if in_string:
                        if escaped:
                            escaped = False
                        elif char == "\\":
                            escaped = True
                        elif char == '"':
                            in_string = False
                    elif char == '"':
                        in_string = True
                    elif char == "{":
                        depth += 1
                    elif char == "}":
                        depth -= 1
                        if depth == 0:
                            text += piece[: offset + 1]
                            if not _fits(text, schema):
                                return None
                            if llama.cache is not None:  # stopped early: keep its state too
                                llama.cache[llama._input_ids.tolist()] = llama.save_state()
                            return text.strip(), tokens
                text += piece
        except (ValueError, RuntimeError):
            return None  # the grammar path reports the error with its message
        return None

    def check(self) -> None:
        """Loading is the only real check that a GGUF file is a usable chat model."""
        with self._lock:
            self.load()

    def generate(
        self, messages: Sequence[Message], *, options: GenerationOptions
    ) -> Iterator[Chunk]:
        """Stream text pieces, then a `Usage`; the lock is held for the whole stream."""
        with self._lock:
            llama = self.load()
            threads = self.n_threads or threads_for(self.cpus, self._usage.others_busy())
            llama._ctx.set_n_threads(threads, threads)
            kwargs: dict[str, Any] = {
                "messages": [m.to_dict() for m in messages],
                "max_tokens": options.max_tokens,
                "temperature": options.temperature,
                "seed": options.seed,
                "stop": options.stop or None,
                "stream": True,
            }
            prompt_text = "".join(m.content for m in messages)
            prompt_tokens = len(llama.tokenize(prompt_text.encode("utf-8"), add_bos=False))
            completion_tokens = 0
            if options.json_schema is not None and options.temperature == 0.0:
                found = self._greedy_json(llama, kwargs, options.json_schema)
                if found is not None:
                    text, completion_tokens = found
                    yield text
                    yield Usage(prompt_tokens, completion_tokens)
                    return
            if options.json_schema is not None:
                kwargs["response_format"] = {"type": "json_object", "schema": options.json_schema}
            try:
                for chunk in llama.create_chat_completion(**kwargs):
                    piece = chunk["choices"][0]["delta"].get("content")
                    if piece:
                        completion_tokens += 1
                        yield piece
            except (ValueError, RuntimeError) as error:
                # e.g. "Requested tokens (6126) exceed context window of 4096"
                raise ModelError(f"{self.model_id} could not answer: {error}") from error
            yield Usage(prompt_tokens, completion_tokens)
