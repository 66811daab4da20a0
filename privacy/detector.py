"""The learned PERSON detector: a word tagger for chat text, on onnxruntime.

It is all-MiniLM-L6-v2 fine-tuned on WNUT-17 train and generated chat lines
(training/person_detector.py, `make train-privacy`), shipped as an int8 ONNX file with its
manifest in privacy/models/. It reads context a rule cannot ("dinner with sam", "ravi: lunch
thu?") and gives each word a probability of being part of a person's name; the redactor counts a
span as evidence, weighed with the rest. Loaded once per process, on first use.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from lang.once import once
from privacy.errors import PrivacyError

MODEL_FILE = "person-detector.int8.onnx"
TOKENIZER_FILE = "person-detector.tokenizer.json"
MANIFEST_FILE = "person-detector.json"
MAX_TOKENS = 256  # a longer line is read in windows of this many pieces
_WORD_RE = re.compile(r"\w+(?:['’.-]\w+)*\.?|[^\w\s]", re.UNICODE)


@dataclass(frozen=True)
class PersonSpan:
    start: int
    end: int
    score: float  # the lowest word probability in the span


class PersonDetector:
    """One ONNX session and tokenizer; thread-safe (onnxruntime sessions are)."""

    def __init__(self, folder: Path) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
        self.threshold = float(manifest["threshold"])
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()

    def word_scores(self, text: str) -> list[tuple[int, int, float]]:
        """(start, end, P(person)) for every word of `text`."""
        words = [(m.start(), m.end()) for m in _WORD_RE.finditer(text)]
        if not words:
            return []
        encoding = self._tokenizer.encode([text[s:e] for s, e in words], is_pretokenized=True)
        ids = np.array(encoding.ids, dtype=np.int64)
        word_ids = encoding.word_ids
        scores = np.zeros(len(words))
        for first in range(0, len(ids), MAX_TOKENS):
            window = ids[first : first + MAX_TOKENS][None, :]
            logits = self._session.run(
                ["logits"], {"input_ids": window, "attention_mask": np.ones_like(window)}
            )[0][0]
            exp = np.exp(logits - logits.max(axis=-1, keepdims=True))
            probs = exp / exp.sum(axis=-1, keepdims=True)
            for offset, word_id in enumerate(word_ids[first : first + MAX_TOKENS]):
                if word_id is not None and scores[word_id] == 0:
                    scores[word_id] = max(1.0 - float(probs[offset, 0]), 1e-9)
        return [(s, e, float(p)) for (s, e), p in zip(words, scores, strict=True)]

    def people(
        self,
        text: str,
        threshold: float | None = None,
        scores: list[tuple[int, int, float]] | None = None,
    ) -> list[PersonSpan]:
        """Runs of words scored at or above the threshold: the spans it reads as names.
        `scores` are `word_scores(text)` when the caller already has them."""
        limit = self.threshold if threshold is None else threshold
        scores = self.word_scores(text) if scores is None else scores
        spans: list[PersonSpan] = []
        run: list[tuple[int, int, float]] = []
        for start, end, score in [*scores, (len(text), len(text), 0.0)]:
            word = text[start:end]
            joined = run and text[run[-1][1] : start].strip() == ""
            if score >= limit and word[:1].isalnum() and (not run or joined):
                run.append((start, end, score))
                continue
            if run:
                spans.append(PersonSpan(run[0][0], run[-1][1], min(s for _, _, s in run)))
            run = [(start, end, score)] if score >= limit and word[:1].isalnum() else []
        return spans


def _folder() -> Path:
    return Path(str(resources.files("privacy").joinpath("models")))


@once
def detector() -> PersonDetector:
    """The shipped detector; a clear error when its files are missing."""
    folder = _folder()
    missing = [n for n in (MODEL_FILE, TOKENIZER_FILE, MANIFEST_FILE) if not (folder / n).exists()]
    if missing:
        raise PrivacyError(
            f"the person detector is missing ({', '.join(missing)} in {folder}); "
            "run `make train-privacy` or restore privacy/models/ from the repository"
        )
    return PersonDetector(folder)
