"""How likely a start the linker read from a pasted thread is one the user would put on a calendar.

The linker finds a start wherever a thread states a day and a clock. In real mail most of those
are not the reader's plans: a deadline ("feedback by noon on Wednesday"), a market's closing
hour, a newsletter's listings, an agenda's rows, someone else's trip. Over an "add this" the
linker created them all (real Enron mail without any meeting: 24 of 100 got an event). This head
weighs each start the turn would create by named features of where it was said and what kind
of text holds it, and a start below the fitted cut is held: it is offered, and the turn asks,
instead of creating it. A start the user typed in the request, or stated or accepted in the
thread in their own lines ("Me: yes, 3pm works"), is never weighed: the user agreed to it.

Features: the words around the mention in its clause (as `understanding.time_roles` reads
them: by distance, as a bag, as character n-grams) and its own words ("by 3pm Thursday" is one
mention), how many times the thread states, how many recipients its header names, how deep in
forwarded or quoted mail the mention sits, how far ahead the start is, its hour and minute
grain, whether it is a whole day, whether the event names an activity, and how many events the
turn would create. The weights are a logistic
regression fitted by `training/start_trust.py` on third-party mail and threads (sources in its
manifest, `understanding/models/start_trust.json`), the cut chosen out of fold.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Sequence
from datetime import datetime
from importlib import resources
from zoneinfo import ZoneInfo

import numpy as np

from agent.extraction.candidate import Candidate, ProposedEvent
from agent.naming import LETTERS_RE
from lang import data
from privacy.entity_map import PLACEHOLDER_RE
from understanding import time_roles
from understanding.acts import hashed, linear_logits, normalise

# Characters of the thread read on each side of the mention (its clause is cut from them).
BEFORE, AFTER = 120, 60
_FIELDS = data.table("formats")["header_fields"]
# A sender line opens a mail (its own, or a quoted or forwarded one); recipient lines list who
# it went to; a separator line ("-----Original Message-----") opens an older one.
_HEADER_RE = re.compile(
    rf"^\s*(?:>\s*)*(?:{data.phrases_alternation(_FIELDS['from'])})\s*:", re.I | re.M
)
_TO_RE = re.compile(
    rf"^\s*(?:{data.phrases_alternation([*_FIELDS['to'], *_FIELDS['cc']])})\s*:(.*)$", re.I | re.M
)
_SEPARATORS = [data.format_pattern(row["pattern"]) for row in data.table("formats")["separator"]]
# When set (a list), every weighed start appends its features and start: the fit records
# what the turn weighed, exactly as it weighed it (training/start_trust.py).
RECORD: list[dict[str, object]] | None = None


def _bucket(value: float, edges: Sequence[float]) -> int:
    return sum(value >= edge for edge in edges)


def feature_names(
    event: ProposedEvent,
    mention_start: int,
    mention_end: int,
    language: str | None,
    thread: str,
    *,
    mentions: int,
    events: int,
    now: datetime,
    zone: ZoneInfo,
) -> list[str]:
    """The named features of one start the turn would create from `thread`."""
    lo = max(0, mention_start - BEFORE)
    window = thread[lo : mention_end + AFTER]
    names = time_roles.feature_names(window, (mention_start - lo, mention_end - lo), (), language)
    # the mention's own words: Duckling reads "by 3:00 pm Thursday" whole, its "by" with it
    said = normalise(thread[mention_start:mention_end])
    names += [f"in={word}" for word in LETTERS_RE.findall(said)]
    before = thread[:mention_start]
    recipients = max((len(PLACEHOLDER_RE.findall(m.group(1))) for m in _TO_RE.finditer(thread)),
                     default=0)  # fmt: skip
    depth = len(_HEADER_RE.findall(before)) + sum(
        bool(p.fullmatch(line)) for line in before.splitlines() for p in _SEPARATORS
    )
    assert event.start is not None
    start = event.start.astimezone(zone)
    ahead = (start - now).total_seconds() / 86400
    names += [
        f"mentions={_bucket(mentions, (2, 3, 5, 9))}",
        f"recipients={_bucket(recipients, (1, 2, 4, 10))}",
        f"depth={min(depth, 3)}",
        f"ahead={_bucket(ahead, (0, 1, 2, 8, 31, 120))}",
        f"all_day={event.all_day}",
        f"activity={bool(event.activity)}",
        f"events={_bucket(events, (2, 3, 5))}",
        f"lines={_bucket(math.log2(1 + thread.count(chr(10))), (2, 4, 6))}",
    ]
    if not event.all_day:
        names += [
            f"hour={start.hour // 3}",
            f"minute={'round' if start.minute % 15 == 0 else 'odd'}",
        ]
    return names


class StartTrust:
    """The shipped weights: one logistic weight per used feature bucket, and the cut."""

    def __init__(self, buckets: np.ndarray, weights: np.ndarray, bias: float, cut: float) -> None:
        self.buckets = buckets
        self.weights = weights.astype(np.float32).reshape(-1, 1)
        self.bias = np.array([bias], dtype=np.float32)
        self.cut = cut

    def probability(self, names: list[str]) -> float:
        logit = linear_logits(self.buckets, self.weights, self.bias, *hashed(names))[0]
        return float(1.0 / (1.0 + math.exp(-logit)))


@functools.cache
def model() -> StartTrust:
    """The shipped head, loaded once per process."""
    folder = resources.files("understanding").joinpath("models")
    manifest = json.loads(folder.joinpath("start_trust.json").read_text(encoding="utf-8"))
    with folder.joinpath("start_trust.npz").open("rb") as handle, np.load(handle) as arrays:
        return StartTrust(arrays["buckets"], arrays["weights"], float(manifest["bias"]),
                          float(manifest["cut"]))  # fmt: skip


def doubtful(
    events: Sequence[ProposedEvent],
    found: Sequence[Candidate],
    thread: str,
    *,
    now: datetime,
    zone: ZoneInfo,
    typed: Sequence[ProposedEvent] = (),
) -> list[ProposedEvent]:
    """The events (of those the turn would create from `thread`) whose start reads below the
    fitted cut; `typed` are those whose start the user typed, never weighed, and neither are
    those the user's own lines in the thread back."""
    by_id = {c.id: c.mention for c in found}
    weighed = [
        e for e in events
        if e.schedulable and not e.pending and e not in typed
        and "me" not in e.offers.get(e.start, set())  # type: ignore[arg-type]
    ]  # fmt: skip
    thread_mentions = sum(c.mention.source == "thread" for c in found)
    held = []
    for event in weighed:
        grounds = [by_id[g] for g in event.grounds if g in by_id and by_id[g].source == "thread"]
        if not grounds:
            continue
        mention = next((m for m in grounds if m.has_clock_time), grounds[0])
        names = feature_names(
            event, mention.start, mention.end, mention.language, thread,
            mentions=thread_mentions, events=len(weighed), now=now, zone=zone,
        )  # fmt: skip
        if RECORD is not None:
            RECORD.append({"names": names, "start": event.start, "all_day": event.all_day})
            continue
        if model().probability(names) < model().cut:
            held.append(event)
    return held
