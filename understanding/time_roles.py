"""What a time said in a message is for: offered, turned down, or something else.

"can't do 3, how about 5?" holds two clocks; the message as a whole is a counter, and only the
clock's own surroundings say that 3 is refused and 5 offered. This head reads one mention at a
time, with that mention marked and every other time mention masked, as hashed features of the
words right before and after it within its clause (by distance, as words and as character
n-grams, so a refusal in any of Veil's languages reads alike), the words of the whole message,
where the other mentions stand, and the mention's language. Roles:

- `offered`: proposed, accepted, confirmed or restated as when the plan happens;
- `turned_down`: refused for the plan ("8 is impossible for me", "not 10, 11");
- `other`: the writer's other commitment, a past time, a side time or a deadline.

The weights are a linear model fitted by `training/time_roles.py` on generated messages in six
languages and third-party booking dialogues (SGD), and ship in `models/time_roles.npz` with
their manifest (data, commit, seed, figures, and the probability from which a mention reads
as turned down, fitted out-of-fold for precision). A mention below that cut is not turned down:
an unsure reading never drops a start.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from importlib import resources

import numpy as np

from understanding.acts import hashed, linear_logits, normalise, softmax

ROLES = ("offered", "turned_down", "other")
MARK, MASK = "\u27e6t\u27e7", "\u27e6u\u27e7"  # the mention read, and every other time mention
WINDOW = 4  # words each side read by distance
BAG = 8  # words each side read as a bag
CHAR_NGRAMS = (3, 5)
_TOKEN_RE = re.compile(rf"{MARK}|{MASK}|\w+|[?!,;.]", re.UNICODE)
_CLAUSE_ENDS = frozenset(",;.")

Span = tuple[int, int]


def marked(text: str, mention: Span, others: Sequence[Span] = ()) -> str:
    """`text` with the mention read replaced by MARK and every other mention by MASK."""
    spans = sorted({*others, mention}, reverse=True)
    for start, end in spans:
        sign = MARK if (start, end) == tuple(mention) else MASK
        text = f"{text[:start]} {sign} {text[end:]}"
    return text


def _own_clause(tokens: list[str]) -> list[str]:
    """The tokens of the mark's own clause, between the commas, semicolons or full stops on
    either side of it: the words read by distance stop there, so a refusal in the next clause
    ("10 works, sadly I can't stay long", "Donnerstag passt, Mittwoch leider nicht") is only
    one of the message's words, not a word beside the time."""
    if MARK not in tokens:
        return tokens
    at = tokens.index(MARK)
    start = max((i + 1 for i in range(at) if tokens[i] in _CLAUSE_ENDS), default=0)
    end = next((i for i in range(at + 1, len(tokens)) if tokens[i] in _CLAUSE_ENDS), len(tokens))
    return tokens[start:end]


def feature_names(
    text: str, mention: Span, others: Sequence[Span] = (), language: str | None = None
) -> list[str]:
    """The named features of one mention in its message. `language`, the mention's language
    as the time parser read it, is joined to the words right beside the mention: the same
    word can refuse in one language and not in another (Portuguese "às 19h30, no salão")."""
    every = _TOKEN_RE.findall(normalise(marked(text, mention, others)))[:200]
    tokens = _own_clause(every)
    if MARK not in tokens:
        return ["no-mark"]
    at = tokens.index(MARK)
    left, right = tokens[:at][::-1], tokens[at + 1 :]
    names = [f"w={t}" for t in every if t not in (MARK, MASK)]
    names.append(f"lang={language}")
    for side, words in (("l", left), ("r", right)):
        for k, word in enumerate(words[:WINDOW], 1):
            names.append(f"{side}{k}={word}")
            if k <= 2:
                names.append(f"{language}:{side}{k}={word}")
        if len(words) > 1:
            names.append(f"{side}12={words[0]}_{words[1]}")
        names += [f"{side}b={w}" for w in words[:BAG]]
        low, high = CHAR_NGRAMS
        for word in words[:BAG]:
            if word in (MARK, MASK):
                continue
            padded = f" {word} "
            for n in range(low, high + 1):
                names += [f"{side}c={padded[i : i + n]}" for i in range(len(padded) - n + 1)]
        names.append(f"{side}len={min(len(words), 9) // 3}")
        names.append(f"{side}mask={sum(w == MASK for w in words)}")
        names.append(f"{side}q={'?' in words[:BAG]}")
    return names


def featurise(
    text: str, mention: Span, others: Sequence[Span] = (), language: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Hashed feature buckets and their weights, as the act model hashes its own."""
    return hashed(feature_names(text, mention, others, language))


class TimeRoleModel:
    """The shipped weights: a row of role weights per used feature bucket."""

    def __init__(
        self, buckets: np.ndarray, weights: np.ndarray, bias: np.ndarray, turned_down_from: float
    ) -> None:
        self.buckets = buckets
        self.weights = weights.astype(np.float32)
        self.bias = bias.astype(np.float32)
        self.turned_down_from = turned_down_from

    @classmethod
    def load(cls) -> TimeRoleModel:
        folder = resources.files("understanding").joinpath("models")
        with folder.joinpath("time_roles.npz").open("rb") as handle, np.load(handle) as arrays:
            buckets, weights, bias = arrays["buckets"], arrays["weights"], arrays["bias"]
        manifest = json.loads(folder.joinpath("time_roles.json").read_text(encoding="utf-8"))
        if tuple(manifest["labels"]) != ROLES:
            raise ValueError(f"time_roles.json names roles {manifest['labels']}, not {ROLES}")
        return cls(buckets, weights, bias, float(manifest["turned_down_from"]))

    def probabilities(
        self, text: str, mention: Span, others: Sequence[Span] = (), language: str | None = None
    ) -> np.ndarray:
        features = featurise(text, mention, others, language)
        return softmax(linear_logits(self.buckets, self.weights, self.bias, *features))


@functools.cache
def model() -> TimeRoleModel:
    """The shipped head, loaded once per process."""
    return TimeRoleModel.load()


def turned_down(
    text: str, mention: Span, others: Sequence[Span] = (), language: str | None = None
) -> bool:
    """Whether the writer of `text` refuses the time at `mention` (offsets into `text`) for the
    plan: its probability of `turned_down` reaches the manifest's fitted cut. `others`: the
    spans of the message's other time mentions, which the features mask; `language`: the
    mention's, as the time parser read it."""
    head = model()
    return float(head.probabilities(text, mention, others, language)[1]) >= head.turned_down_from
