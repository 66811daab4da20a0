"""What a message does: one learned act model for every message, the typed request included.

A request, or a message of a thread, is read as one of `ACTS` (propose, accept, counter, decline,
cancel, move, ...) by a linear model over two kinds of features: hashed word and character
n-grams, which carry the wording of any language the model was fitted on without a word list
here (digits are folded to one sign so "7pm" and "19:30" are the same shape), and the sentence
vector of the shipped MiniLM encoder (memory/encoder.py), which carries meaning across wordings
the fit never saw ("something came up" near "can't make it"). The weights are fitted by
`training/act_model.py` on third-party dialogue corpora and generated scenarios, and ship in
`understanding/models/acts.npz` with their manifest (`acts.json`: data, commit, seed, figures).

The model proposes what a message does; code around it decides what may happen. A reading
below its act's threshold (fitted by cross-validation, stored in the manifest) counts as
`other`, so an unsure reading never moves or cancels anything.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Literal

import numpy as np

from memory.encoder import OnnxEncoder

Act = Literal[
    "propose",
    "accept",
    "counter",
    "decline",
    "cancel",
    "move",
    "confirm",
    "ask_availability",
    "calendar_question",
    "schedule",
    "remember",
    "recall",
    "forget",
    "draft",
    "inform",
    "other",
]
ACTS: tuple[Act, ...] = Act.__args__  # type: ignore[attr-defined]
Context = Literal["request", "thread"]
# What a request's act leads to, whichever of the group's acts the model leans to: a request
# spread between two acts of one group ("drop the dinner, sorry": decline or cancel) is read by
# their summed probability against the group's own threshold, fitted out-of-fold per context
# (requests, thread messages) by `training/act_model.py` and kept in the manifest.
Group = Literal["add", "call_off", "change"]
ACT_GROUPS: dict[str, tuple[Act, ...]] = {
    "add": ("schedule", "accept", "confirm"),  # put something in the calendar
    "call_off": ("cancel", "decline"),  # the plan is off
    "change": ("move", "counter"),  # the plan stands at another time
}

BUCKETS = 1 << 20
CHAR_NGRAMS = (2, 5)
_TOKEN_RE = re.compile(r"\w+|[?!]", re.UNICODE)
_DIGITS_RE = re.compile(r"\d")


def normalise(text: str) -> str:
    """NFKC, case folded, digits as one sign, accents kept: what every feature reads."""
    return _DIGITS_RE.sub("0", unicodedata.normalize("NFKC", text).casefold())


def _bucket(feature: str) -> int:
    return zlib.crc32(feature.encode("utf-8")) & (BUCKETS - 1)


def feature_names(text: str, context: str) -> list[str]:
    """The named features of one message: words, word pairs, character n-grams of each word,
    its first and last words, and the same first words joined with the context (a request's
    "move it" and a thread's "move it" can differ)."""
    tokens = _TOKEN_RE.findall(normalise(text))[:200]
    names = [f"ctx={context}"]
    if not tokens:
        return [*names, "empty"]
    names += [f"w={t}" for t in tokens]
    names += [f"b={a}_{b}" for a, b in zip(tokens, tokens[1:], strict=False)]
    low, high = CHAR_NGRAMS
    for token in tokens:
        padded = f" {token} "
        for n in range(low, high + 1):
            names += [f"c={padded[i : i + n]}" for i in range(len(padded) - n + 1)]
    names += [f"first={tokens[0]}", f"last={tokens[-1]}", f"{context}:first={tokens[0]}"]
    if len(tokens) > 1:
        names.append(f"{context}:first2={tokens[0]}_{tokens[1]}")
    names.append(f"len={min(len(tokens), 12) // 3}")
    return names


def featurise(text: str, context: str) -> tuple[np.ndarray, np.ndarray]:
    """Hashed feature buckets and their weights (log counts, L2-normalised)."""
    return hashed(feature_names(text, context))


def hashed(names: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
    """Named features as hashed buckets and their weights (log counts, L2-normalised): the
    featurising every linear head of this package shares."""
    counts: dict[int, int] = {}
    for name in names:
        bucket = _bucket(name)
        counts[bucket] = counts.get(bucket, 0) + 1
    index = np.fromiter(counts, dtype=np.int64, count=len(counts))
    value = 1.0 + np.log(np.fromiter(counts.values(), dtype=np.float64, count=len(counts)))
    return index, value / np.linalg.norm(value)


def linear_logits(
    buckets: np.ndarray, weights: np.ndarray, bias: np.ndarray, index: np.ndarray, value: np.ndarray
) -> np.ndarray:
    """A linear head's logits: the weight rows of the buckets it knows, the rest ignored."""
    if not len(buckets):
        return bias.copy()
    rows = np.minimum(np.searchsorted(buckets, index), len(buckets) - 1)
    known = buckets[rows] == index
    return bias + value[known] @ weights[rows[known]]


def softmax(logits: np.ndarray) -> np.ndarray:
    exp = np.exp(logits - logits.max())
    return exp / exp.sum()


@functools.cache
def _encoder() -> OnnxEncoder:
    return OnnxEncoder()


def embed(texts: list[str]) -> np.ndarray:
    """Sentence vectors (unit length, 384 wide) of the shipped MiniLM encoder."""
    return _encoder().encode(texts)


@dataclass(frozen=True)
class ActReading:
    """What one message does, with the model's probability for it and for every act."""

    act: Act
    score: float
    scores: dict[str, float]


class ActModel:
    """The shipped weights: a row of class weights per used feature bucket."""

    def __init__(
        self,
        labels: tuple[str, ...],
        buckets: np.ndarray,
        weights: np.ndarray,
        bias: np.ndarray,
        thresholds: dict[str, float],
        dense: np.ndarray | None = None,
        group_thresholds: dict[str, dict[str, float]] | None = None,
    ) -> None:
        self.labels = labels
        self.buckets = buckets
        self.weights = weights.astype(np.float32)
        self.bias = bias.astype(np.float32)
        self.thresholds = thresholds
        self.dense = dense.astype(np.float32) if dense is not None else None
        self.group_thresholds = group_thresholds or {}

    @classmethod
    def load(cls, name: str = "acts") -> ActModel:
        """The shipped weights `models/<name>.npz` with their manifest `<name>.json`."""
        folder = resources.files("understanding").joinpath("models")
        with folder.joinpath(f"{name}.npz").open("rb") as handle, np.load(handle) as arrays:
            buckets, weights, bias = arrays["buckets"], arrays["weights"], arrays["bias"]
            dense = arrays["dense"] if "dense" in arrays.files else None
        manifest = json.loads(folder.joinpath(f"{name}.json").read_text(encoding="utf-8"))
        labels = tuple(manifest["labels"])
        # the act model's manifest must hold both; a two-label head has neither
        thresholds = manifest["thresholds"] if name == "acts" else manifest.get("thresholds", {})
        groups = manifest["group_thresholds"] if name == "acts" else None
        return cls(labels, buckets, weights, bias, thresholds, dense, groups)

    def probabilities(self, text: str, context: str) -> np.ndarray:
        logits = linear_logits(self.buckets, self.weights, self.bias, *featurise(text, context))
        if self.dense is not None:
            logits = logits + embed([text])[0] @ self.dense
        return softmax(logits)

    def reads_as(self, text: str, group: Group, context: Context = "request") -> bool:
        """Whether the group's acts together clear the group's fitted threshold."""
        return _in_group(self.read(text, context), group, self.group_thresholds[context])

    def read(self, text: str, context: Context = "request") -> ActReading:
        """The act of one message; below its threshold the reading is `other`."""
        probabilities = self.probabilities(text, context)
        scores = {label: float(p) for label, p in zip(self.labels, probabilities, strict=True)}
        best = self.labels[int(probabilities.argmax())]
        act = best if scores[best] >= self.thresholds.get(best, 0.0) else "other"
        return ActReading(act, scores[best], scores)  # type: ignore[arg-type]


@functools.cache
def model() -> ActModel:
    """The shipped act model, loaded once per process."""
    return ActModel.load()


@functools.lru_cache(maxsize=256)
def read_act(text: str, context: Context = "request") -> ActReading:
    """What `text` does, read by the shipped act model. A turn asks of its request in several
    places (follow-up, calendar question, recall): the reading is made once."""
    return model().read(text, context)


def reads_as(text: str, group: Group, context: Context = "request") -> bool:
    """Whether `text` does one of the group's acts, by their summed probability against the
    group's fitted threshold: "add this" / "yes please" / "trag das ein" ask for an event (a
    request over a pasted thread that does not only offers the thread's plans), "drop the
    dinner, sorry" calls a plan off, "make it 8" changes it."""
    return _in_group(read_act(text, context), group, model().group_thresholds[context])


def forgets_or_calls_off(text: str, context: Context = "request") -> bool:
    """Whether `text` calls a plan off or asks to forget it, against the call-off group's
    threshold: over an event the chat holds that the words name, forgetting or deleting it
    ("forget the lunch with <PERSON_1>", "supprime le déjeuner de jeudi") is calling it off,
    though alone such words read as the memory act."""
    reading = read_act(text, context)
    acts = (*ACT_GROUPS["call_off"], "forget")
    return (
        sum(reading.scores.get(a, 0.0) for a in acts)
        >= model().group_thresholds[context]["call_off"]
    )


# A word whose removal lowers a group's log-odds by this much (in nats) is part of how the
# message does the act ("spostata" +3.7, "annulé", "desmarca"), not a word about what it is
# done to ("ophtalmo" -1.2, "newsletter" -1.0). Log-odds, not probability: a reading of 0.99
# loses little probability to any one word.
ACT_WORD_DROP = 0.5
# ... and at least this share of what the strongest word carries: beside "cancela" (+6.1),
# "peluquería" (+0.65) is what is cancelled, not how; idioms spread their weight over their
# words ("knock" +1.0 and "head" +0.7 in "knock it on the head") and keep both.
ACT_WORD_SHARE = 0.25
# A text with more words than this is read for none (about 7 ms a word on 2 cores); a
# follow-up that long says more than its act anyway.
ACT_WORDS_MAX = 40
# A word without which a group's log-odds rise by this much argues against the reading: the
# text tells of the act ("cancelled on me last time") more than it does it.
COUNTER_WORD_RISE = 1.0


@functools.lru_cache(maxsize=256)
def act_evidence(text: str, group: Group, context: Context = "request") -> dict[str, float]:
    """How much each word (case-folded) carries the group's reading of `text`: left out one at
    a time, by how much the log-odds of the group's summed probability fall without it (a word
    that argues against the reading rises it: negative). A text of more than ACT_WORDS_MAX
    words is read for none."""
    reader = model()
    acts = [reader.labels.index(act) for act in ACT_GROUPS[group]]
    words = list(re.finditer(r"[^\W\d_]+", text))  # "l'hanno" is "l" and "hanno"
    if len(words) > ACT_WORDS_MAX:
        return {}  # each word is one more reading: a long text pays for none
    variants = [text, *((text[: w.start()] + text[w.end() :]).strip() for w in words)]
    logits = np.stack(
        [linear_logits(reader.buckets, reader.weights, reader.bias, *featurise(v, context))
         for v in variants]
    )  # fmt: skip
    if reader.dense is not None:
        logits = logits + embed(variants) @ reader.dense
    summed = np.clip([softmax(row)[acts].sum() for row in logits], 1e-6, 1 - 1e-6)
    odds = np.log(summed / (1 - summed))
    evidence: dict[str, float] = {}
    for word, without in zip(words, odds[1:], strict=True):
        key = word.group().casefold()  # a word said twice keeps its weaker reading
        evidence[key] = min(evidence.get(key, np.inf), float(odds[0] - without))
    return evidence


def act_words(text: str, group: Group, context: Context = "request") -> frozenset[str]:
    """The words that carry the group's reading of `text` (ACT_WORD_DROP or more of
    `act_evidence`, and ACT_WORD_SHARE of the strongest word's). They say what is done
    ("l'hanno spostata alle 21": moved), so a follow-up's check of what it is about reads the
    other words, in any language the model was fitted on."""
    evidence = act_evidence(text, group, context)
    cut = max(ACT_WORD_DROP, ACT_WORD_SHARE * max(evidence.values(), default=0.0))
    return frozenset(w for w, e in evidence.items() if e >= cut)


def counter_words(text: str, group: Group, context: Context = "request") -> frozenset[str]:
    """The words that argue against the group's reading (COUNTER_WORD_RISE or more): "last
    time", "party" in "<PERSON_1>'s dinner party got cancelled, but ours is still on"."""
    return frozenset(
        w for w, e in act_evidence(text, group, context).items() if e <= -COUNTER_WORD_RISE
    )


def _in_group(reading: ActReading, group: Group, thresholds: dict[str, float]) -> bool:
    return sum(reading.scores.get(act, 0.0) for act in ACT_GROUPS[group]) >= thresholds[group]


@functools.cache
def _stance() -> tuple[ActModel, float, float]:
    """The reply-stance head, its cut below which a reply is a no and from which it is a yes."""
    manifest = resources.files("understanding").joinpath("models", "stance.json")
    cuts = json.loads(manifest.read_text(encoding="utf-8"))
    return ActModel.load("stance"), cuts["no_below"], cuts["yes_from"]


# The head's balanced boundary: a reply at or above it is likelier a yes than a no.
LEANS_YES = 0.5


@functools.lru_cache(maxsize=256)
def _yes_probability(text: str) -> float:
    """The reply-stance head's probability that a reply agrees (one reading per text)."""
    model, _, _ = _stance()
    return float(model.probabilities(text, "thread")[1])


def reply_disagrees(text: str) -> bool:
    """Whether the user's reply to a plan someone just proposed in a thread does not agree to
    it: a no, a hedge, a question back, a denial that anything was agreed. The act model
    spreads such replies and thanks that agree alike over `other`; this two-label head over the
    same features (`training/reply_stance.py`) reads only replies, and calls one a no below the
    probability of a yes its manifest gives (fitted out-of-fold for 0.95 precision)."""
    if not text.strip():
        return False  # nothing said is no reply
    return _yes_probability(text) < _stance()[1]


def reply_agrees(text: str) -> bool:
    """Whether a reply to an offer agrees to it ("wednesday works", "mittwoch passt"), by the
    same head at the probability of a yes its manifest gives (fitted out-of-fold for 0.95
    precision of a yes). Between the two cuts a reply is neither: nothing is decided on it."""
    if not text.strip():
        return False  # nothing said agrees to nothing
    return _yes_probability(text) >= _stance()[2]


def reply_reading(text: str) -> bool | None:
    """A reply read for the user's last word on a plan: True when the head finds it likelier a
    yes than a no (LEANS_YES: "we'll bring the potato salad" 0.84, "wouldn't miss it" 0.75,
    where `reply_disagrees` would let a long deferral through as no no: "Sunday we're at my
    in-laws, I'll tell you tonight" 0.37), False when it is a no by the head's cut
    (`reply_disagrees`: a hedge or a deferral too), None between, where it decides nothing."""
    if not text.strip():
        return None
    probability = _yes_probability(text)
    if probability >= LEANS_YES:
        return True
    return False if probability < _stance()[1] else None


@functools.cache
def _pressure() -> tuple[ActModel, float]:
    """The pressure head and the probability from which it reads a message as pressing."""
    manifest = resources.files("understanding").joinpath("models", "pressure.json")
    return ActModel.load("pressure"), json.loads(manifest.read_text(encoding="utf-8"))[
        "pressure_from"
    ]


def presses(text: str) -> bool:
    """Whether a message someone else wrote pushes a time on the user rather than stating or
    asking it: a booking made for them, "no need to reply, it's settled", a threat if it is not
    in their calendar (`training/pressure_head.py`, its cut fitted out-of-fold for 0.95
    precision)."""
    if not text.strip():
        return False
    model, cut = _pressure()
    return float(model.probabilities(text, "thread")[1]) >= cut
