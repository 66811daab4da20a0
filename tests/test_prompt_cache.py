"""Prompt states on disk: a new process reads only the new tail of a prompt, answers the same."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from llama_cpp import LlamaState

from agent.backends import embedded_model_path
from agent.backends.llama_cpp import LlamaCppModel
from agent.backends.prompt_cache import PromptStateCache
from agent.gateway import ModelGateway
from agent.model import GenerationOptions, Message
from privacy import EntityMap, PrivacyGuard

SYSTEM = Message(
    "system",
    "You answer questions about a calendar in one short sentence. " * 12
    + "Never invent events that are not listed.",
)


def _answer(model: LlamaCppModel, question: str) -> str:
    gateway = ModelGateway(model)
    done = gateway.complete(
        [SYSTEM, Message("user", question)],
        guard=PrivacyGuard(EntityMap()),
        purpose="test",
        options=GenerationOptions(max_tokens=12, temperature=0.0, seed=7),
    )
    return done.text


def test_a_new_process_reuses_the_cached_prefix_and_answers_the_same(tmp_path: Path) -> None:
    plain = LlamaCppModel(embedded_model_path())  # no cache: the reference answer
    expected = _answer(plain, "What is on Friday?")

    first = LlamaCppModel(embedded_model_path(), cache_dir=tmp_path)
    _answer(first, "Is Monday free?")
    assert first.cache_dir is not None
    assert list(first.cache_dir.glob("*.state")), "the first answer left no state"

    second = LlamaCppModel(embedded_model_path(), cache_dir=tmp_path)  # a fresh context
    llama = second.load()
    evaluated: list[int] = []
    real_eval = llama.eval

    def counting_eval(tokens: list[int]) -> None:
        evaluated.append(len(tokens))
        real_eval(tokens)

    llama.eval = counting_eval  # type: ignore[method-assign]
    assert _answer(second, "What is on Friday?") == expected
    prompt_tokens = len(llama.tokenize(SYSTEM.content.encode(), add_bos=False))
    # The system prompt came from the cache: what was read is the question and the answer.
    assert evaluated[0] < prompt_tokens / 3


def test_states_depend_on_the_model_and_its_context(tmp_path: Path) -> None:
    base = LlamaCppModel(embedded_model_path(), cache_dir=tmp_path)
    other_ctx = LlamaCppModel(embedded_model_path(), cache_dir=tmp_path, n_ctx=2048)
    assert base.cache_dir != other_ctx.cache_dir
    assert base.cache_dir == LlamaCppModel(embedded_model_path(), cache_dir=tmp_path).cache_dir


def _state(tokens: list[int], size: int) -> LlamaState:
    ids = np.zeros(64, dtype=np.intc)
    ids[: len(tokens)] = tokens
    return LlamaState(
        input_ids=ids,
        scores=np.zeros((1, 8), dtype=np.single),
        n_tokens=len(tokens),
        llama_state=bytes(size),
        llama_state_size=size,
        seed=0,
    )


def test_the_longest_shared_prefix_wins_and_unrelated_prompts_miss(tmp_path: Path) -> None:
    cache = PromptStateCache(tmp_path, n_ctx=64, n_vocab=8, capacity_bytes=1 << 20)
    cache[[1, 2, 3, 4]] = _state([1, 2, 3, 4], 10)
    cache[[1, 2, 9]] = _state([1, 2, 9], 20)
    assert cache[[1, 2, 3, 4, 5, 6]].n_tokens == 4
    assert cache[[1, 2, 9, 9]].llama_state_size == 20
    # must not fire: a prompt that starts differently has no state to reuse
    assert [7, 1, 2, 3] not in cache


def test_the_cache_stays_under_its_capacity_dropping_the_oldest(tmp_path: Path) -> None:
    cache = PromptStateCache(tmp_path, n_ctx=64, n_vocab=8, capacity_bytes=2500)
    for first in range(1, 5):
        cache[[first, 2, 3]] = _state([first, 2, 3], 1000)
    assert cache.cache_size <= 2500
    assert [4, 2, 3] in cache  # the newest stays
    assert [1, 2, 3] not in cache  # the oldest went first


def test_an_unreadable_entry_is_a_miss_not_an_error(tmp_path: Path) -> None:
    cache = PromptStateCache(tmp_path, n_ctx=64, n_vocab=8, capacity_bytes=1 << 20)
    cache[[5, 6, 7]] = _state([5, 6, 7], 10)
    for tokens in tmp_path.glob("*.tokens.npy"):
        tokens.write_bytes(b"not numpy")
    assert [5, 6, 7] not in cache


def test_entries_dropped_by_another_process_are_misses(tmp_path: Path) -> None:
    """The server and a CLI turn share a data folder: one may evict what the other lists."""
    cache = PromptStateCache(tmp_path, n_ctx=64, n_vocab=8, capacity_bytes=1 << 20)
    cache[[1, 2, 3]] = _state([1, 2, 3], 10)
    for state in tmp_path.glob("*.state"):
        state.unlink()
    assert [1, 2, 3] not in cache
    cache[[4, 5]] = _state([4, 5], 10)  # and writing goes on
    assert cache[[4, 5, 6]].n_tokens == 2
