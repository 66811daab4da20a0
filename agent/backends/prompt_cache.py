"""Prompt states on disk: a cold process skips re-reading the prompts of earlier turns.

On two cores llama.cpp reads about 330 prompt tokens a second, so the planner's 600-token
prompt cost 1.9 s before its first token on every cold start. Its system prompt and tool list
never change, so the model state after an earlier prompt (the KV cache, 13 MB for 600 tokens)
is kept in the data folder and loaded when a new prompt starts the same way; only the new
tail is read.

llama-cpp-python's own caches keep a copy of the logits buffer with each state (100 MB at the
default batch size): its RAM cache grew the server by 500 MB, and its disk cache would write
that much a turn. Veil keeps the KV state and the tokens only; sampling never reads the old
logits, since llama.cpp always re-evaluates the last prompt token.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from llama_cpp import BaseLlamaCache, LlamaState

logger = logging.getLogger(__name__)

STATE_SUFFIX = ".state"
TOKENS_SUFFIX = ".tokens.npy"


def _common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    n = min(len(a), len(b))
    differ = np.flatnonzero(a[:n] != b[:n])
    return int(differ[0]) if len(differ) else n


class PromptStateCache(BaseLlamaCache):
    """The newest states, one pair of files each, bounded in bytes (oldest dropped first)."""

    def __init__(self, folder: Path, *, n_ctx: int, n_vocab: int, capacity_bytes: int) -> None:
        super().__init__(capacity_bytes)
        self.folder = folder
        self.n_ctx = n_ctx
        self.n_vocab = n_vocab
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)

    @property
    def cache_size(self) -> int:
        return sum(self._size(name) for name in self._names())

    def _names(self) -> list[Path]:
        """Entries, oldest use first (a read touches its entry). Another process (the server and
        a CLI turn on one data folder) may drop an entry meanwhile: it is simply not listed."""
        found = []
        for state in self.folder.glob(f"*{STATE_SUFFIX}"):
            try:
                found.append((state.stat().st_mtime_ns, state))
            except OSError:
                continue
        return [state for _, state in sorted(found) if self._tokens(state).is_file()]

    @staticmethod
    def _tokens(state: Path) -> Path:
        return state.with_name(state.name.removesuffix(STATE_SUFFIX) + TOKENS_SUFFIX)

    def _size(self, state: Path) -> int:
        try:
            return state.stat().st_size + self._tokens(state).stat().st_size
        except OSError:
            return 0

    def _best(self, key: Sequence[int]) -> tuple[Path | None, int]:
        wanted = np.asarray(key, dtype=np.intc)
        best, best_len = None, 0
        for state in self._names():
            try:
                tokens = np.load(self._tokens(state), allow_pickle=False)
            except (OSError, ValueError):
                continue
            length = _common_prefix(tokens, wanted)
            if length > best_len:
                best, best_len = state, length
        return best, best_len

    def __contains__(self, key: Sequence[int]) -> bool:
        return self._best(key)[0] is not None

    def __getitem__(self, key: Sequence[int]) -> LlamaState:
        state_file, _ = self._best(key)
        if state_file is None:
            raise KeyError("no cached prompt starts like this one")
        try:
            tokens = np.load(self._tokens(state_file), allow_pickle=False)
            data = state_file.read_bytes()
        except (OSError, ValueError) as error:
            raise KeyError(f"cached prompt state unreadable: {error}") from error
        with contextlib.suppress(OSError):
            os.utime(state_file)  # most recently used: dropped last
        input_ids = np.zeros(self.n_ctx, dtype=np.intc)
        input_ids[: len(tokens)] = tokens
        return LlamaState(
            input_ids=input_ids,
            # load_state copies these into its logits rows; one zero row broadcasts to any
            # number, and no sampler reads them (the last prompt token is always re-read).
            scores=np.zeros((1, self.n_vocab), dtype=np.single),
            n_tokens=len(tokens),
            llama_state=data,
            llama_state_size=len(data),
            seed=0,
        )

    def __setitem__(self, key: Sequence[int], value: LlamaState) -> None:
        tokens = np.asarray(value.input_ids[: value.n_tokens], dtype=np.intc)
        name = hashlib.sha256(tokens.tobytes()).hexdigest()[:24]
        state_file = self.folder / f"{name}{STATE_SUFFIX}"
        try:
            for target, write in (
                (self._tokens(state_file), lambda h: np.save(h, tokens, allow_pickle=False)),
                (state_file, lambda h: h.write(value.llama_state)),
            ):
                scratch = target.with_name(target.name + f".{os.getpid()}.tmp")
                descriptor = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(descriptor, "wb") as handle:
                    write(handle)
                os.replace(scratch, target)  # a crash leaves the old entry or none, never half
        except OSError as error:  # a full disk costs speed, never the turn
            logger.warning("prompt state not cached: %s", error)
            return
        names = self._names()
        total = sum(self._size(p) for p in names)
        while total > self.capacity_bytes and len(names) > 1:
            oldest = names.pop(0)
            total -= self._size(oldest)
            for path in (oldest, self._tokens(oldest)):
                path.unlink(missing_ok=True)
