"""Fit how often real bookings start at each hour of the day, and which hours are rare enough
that a start there, read from someone else's message, is asked about before it is created.

Why: a start at 3 am is what a misread "3" or an order hidden in a pasted thread produces, and a
wrong event on someone's calendar is worse than a question. Which hours count as rare is not
chosen by hand: they are the least booked hours of third-party bookings, taken while together
they hold at most `ASK_SHARE` of all starts ("ask about at most 1 % of real starts").

Source (data only, read from a `fetch` snapshot): SGD (DSTC8),
google-research-datasets/dstc8-schema-guided-dialogue (CC BY-SA 4.0). Each service call that
books something (a restaurant table, an appointment, a car pickup, a bus, a flight) with a
time slot gives one start hour. The Calendar service is left out: its AddEvent dialogues are
what `bench/agent.py` measures. The train split is fitted (and cross-validated by dialogue);
the dev split is sealed and scored once, after.

    python -m training.start_hours          # writes understanding/models/start_hours.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from training.act_sources import SGD, _commit, _repo, sgd_dialogues

OUT = Path(__file__).resolve().parents[1] / "understanding" / "models" / "start_hours.json"
ASK_SHARE = 0.01  # the policy: ask about at most this share of real starts
FOLDS = 5
_BOOKS = re.compile(r"^(Reserve|Book|Buy|Rent)")  # a call that books, not one that searches
_CLOCK = re.compile(r"^(\d\d):(\d\d)$")


def starts(repo: Path, split: str) -> Iterator[tuple[str, int]]:
    """(dialogue id, start hour) for each booking call of `split` outside the Calendar service."""
    for _path, dialogue in sgd_dialogues(repo, split):
        for turn in dialogue["turns"]:
            for frame in turn["frames"]:
                call = frame.get("service_call")
                if not call or frame["service"].startswith("Calendar"):
                    continue
                if not _BOOKS.match(call["method"]):
                    continue
                for slot, value in call["parameters"].items():
                    clock = _CLOCK.match(value)
                    if slot.endswith("time") and clock:
                        yield dialogue["dialogue_id"], int(clock.group(1))


def rare_hours(counts: Counter[int], share: float = ASK_SHARE) -> list[int]:
    """The least booked hours, rarest first, while together they hold at most `share`."""
    total = sum(counts.values())
    taken: list[int] = []
    held = 0
    for hour in sorted(range(24), key=lambda h: (counts[h], h)):
        if held + counts[hour] > share * total:
            break
        taken.append(hour)
        held += counts[hour]
    return sorted(taken)


def asked_share(hours: list[int], rows: list[tuple[str, int]]) -> float:
    """The share of starts in `rows` whose hour is in `hours`."""
    return sum(h in hours for _, h in rows) / len(rows) if rows else 0.0


def _fold(dialogue: str) -> int:
    return int(hashlib.sha1(dialogue.encode()).hexdigest(), 16) % FOLDS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    repo = _repo(SGD[0])
    train = list(starts(repo, "train"))
    folds = []
    for k in range(FOLDS):
        fitted = rare_hours(Counter(h for d, h in train if _fold(d) != k))
        folds.append(asked_share(fitted, [r for r in train if _fold(r[0]) == k]))
    counts = Counter(h for _, h in train)
    hours = rare_hours(counts)
    sealed = list(starts(repo, "dev"))
    manifest = {
        "rare_hours": hours,
        "ask_share": ASK_SHARE,
        "counts": [counts[h] for h in range(24)],
        "data": f"{SGD[0]} train split, booking calls outside Calendar ({SGD[1]})",
        "commit": _commit(repo),
        "training_rows": len(train),
        "figures": {
            "asked_share_cross_validated": round(sum(folds) / FOLDS, 4),
            "asked_share_sealed_dev": round(asked_share(hours, sealed), 4),
            "sealed_rows": len(sealed),
        },
    }
    args.out.write_text(json.dumps(manifest, indent=1) + "\n")
    print(json.dumps(manifest["figures"]), "rare hours:", hours)


if __name__ == "__main__":
    main()
