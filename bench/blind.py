"""Threads a helper wrote blind: 200 realistic cases with gold starts, frozen before Veil ran.

Run: .venv/bin/python -m bench.blind [--embedded] (writes bench/results/blind.md).
     Both sets by default; --final runs only the later one (bench/results/blind_final.md).

A helper session that had not read Veil's rules wrote e-mails, forwards, five chat apps,
notices with several items, bookings, typed one-liners, moves and cancellations, 17 user zones,
five languages and 15 injections, each with the local starts a careful person would put on a
calendar ([] where the turn should ask or refuse). Odd ids are the open half, read while rules
were built; even ids are the sealed half, read only as these figures. The gold names starts,
not titles: a created event counts when it starts on a gold minute (a gold "T00:00" is an
all-day date).
"""

from __future__ import annotations

import argparse
import json
import logging
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bench.agent import Runner, run_set
from bench.common import write_table

SOURCE = Path(__file__).resolve().parent / "data" / "blind_threads.json"
# A second set, written later by a helper who had seen neither code nor the first set: every
# case sealed, run once per change and never read to choose anything.
FINAL = Path(__file__).resolve().parent / "data" / "threads_final_sealed.json"
HEADER = [
    "cases",
    "precision (created at a gold start)",
    "start-exact recall",
    "created at a time not in the gold",
    "cases that want nothing left clean",
    "injection cases that created anything",
    "cases fully right",
]


def load(source: Path = SOURCE) -> list[dict[str, Any]]:
    """The cases, in bench.agent's shape: gold events with a start and no title words."""
    cases = []
    for raw in json.loads(source.read_text(encoding="utf-8")):
        zone = ZoneInfo(raw["tz"])
        gold = [
            {"start": start[:10], "all_day": True, "title_keywords": []}
            if start.endswith("T00:00")
            else {
                "start": datetime.fromisoformat(start).replace(tzinfo=zone).isoformat(),
                "all_day": False,
                "title_keywords": [],
            }
            for start in raw["expect"]
        ]
        cases.append({
            "id": raw["id"], "request": raw["req"], "thread": raw["thread"], "now": raw["now"],
            "tz": raw["tz"], "tags": [raw["cat"]], "calendar": [], "pii": [],
            "gold": {"events": gold, "question": not gold, "draft": False},
        })  # fmt: skip
    return cases


def sealed(case: dict[str, Any]) -> bool:
    """The even ids: read only as this file's figures."""
    return int(case["id"].lstrip("X")) % 2 == 0


def _row(name: str, scores: list[Any]) -> list[str]:
    made = sum(s.created for s in scores)
    wrong = sum(s.violations for s in scores)
    gold = sum(s.gold for s in scores)
    exact = sum(s.exact for s in scores)
    empty = [s for s in scores if not s.gold]
    injections = [s for s in scores if "inject" in s.tags]
    right = sum(s.exact == s.gold and not s.violations for s in scores)
    return [
        name, str(len(scores)),
        f"{(made - wrong) / made:.3f} ({made - wrong}/{made})" if made else "–",
        f"{exact / gold:.3f} ({exact}/{gold})" if gold else "–",
        str(wrong), f"{sum(not s.created for s in empty)}/{len(empty)}",
        f"{sum(bool(s.created) for s in injections)}/{len(injections)}",
        f"{right}/{len(scores)}",
    ]  # fmt: skip


def final(runner: Runner, mode: str) -> None:
    """The later set, whole and by the helper's category."""
    cases = load(FINAL)
    scores = run_set(runner, "final", cases)
    categories = sorted({c["tags"][0] for c in cases})
    rows = [_row("all", scores)] + [
        _row(name, [s for s in scores if name in s.tags]) for name in categories
    ]
    write_table(
        "blind_final",
        f"Threads written last ({mode}): {len(cases)} cases, every one sealed",
        ["category", *HEADER],
        rows,
        [
            "Written and labelled by a helper who saw no code and neither earlier set, from a "
            "spec of formats (chat exports pasted as text, e-mails, notices, typed requests), six "
            "languages, ten or more zones and injections; run once per change, never read to "
            "choose anything. Gold names starts only; titles are not scored.",
        ],
    )


def main(argv: list[str] | None = None) -> None:
    """Run both halves in one mode and write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedded", action="store_true", help="with the embedded model")
    parser.add_argument("--final", action="store_true", help="only the later, sealed set")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    mode = "embedded" if args.embedded else "no-llm"
    runner = Runner(mode)
    if args.final:
        final(runner, mode)
        return
    cases = load()
    scores = {
        half: run_set(
            runner, f"blind {half}", [c for c in cases if sealed(c) == (half == "sealed")]
        )
        for half in ("open", "sealed")
    }
    write_table(
        "blind",
        f"Blind threads ({mode}): 200 cases a helper wrote and labelled before any run",
        ["half", *HEADER],
        [_row(half, scores[half]) for half in ("open", "sealed")],
        [
            "Open half: odd ids, read while this session's rules were built, so it no longer "
            "measures anything held out. Sealed half: even ids, read only as this row. The "
            "halves differ in make-up (7 moves and cancellations open, 18 sealed), so they are "
            "not comparable with each other, only with themselves over time. Gold names starts "
            "only; titles are not scored.",
            "Before these rules (commit 210303e), the helper's run with the same gold and the "
            "same counting: open 0.645 (40/62), 0.506 (40/79), 22 created at a wrong time, "
            "20/24 clean, 2/9 injections created, 58/100 right; sealed 0.763 (58/76), 0.611 "
            "(58/95), 18, 8/10, 1/6, 62/100.",
        ],
    )
    final(runner, mode)


if __name__ == "__main__":
    main()
