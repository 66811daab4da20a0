"""Replies a helper wrote blind: does a start someone else proposed get created only when the
user's own reply in the thread agreed to it?

Run: .venv/bin/python -m bench.stance [PATH] (writes bench/results/stance.md).

`bench/data/stance_blind_sealed.jsonl` holds 120 threads in six languages, written and labelled
by a helper who read only a description of the rule (never code or training data): one person
proposes a weekday and a clock time, the user replies without naming another time, and the
request asks to add it. `want` is `create` when the reply agrees in any words (emoji, thanks,
a logistics question that presumes going) and `hold` when it does not (a no, a dispute, a
hedge, "I didn't say yes"). Each thread runs in a fresh data folder, rules only; a row is right
when an event was created exactly when the gold wants one.
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bench.common import write_table
from lang.frequency import LANGUAGES

SOURCE = Path(__file__).resolve().parent / "data" / "stance_blind_sealed.jsonl"
TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 23, 8, 0, tzinfo=ZoneInfo(TZ))  # a Monday: every weekday is ahead


def run(rows: list[dict[str, Any]]) -> dict[str, tuple[str, bool, str]]:
    """Row id -> (gold want, whether an event was created, language)."""
    from agent.assistant import Turn, build_assistant

    outcome = {}
    for row in rows:
        with tempfile.TemporaryDirectory() as folder:
            assistant = build_assistant(data_dir=Path(folder), no_llm=True)
            bundle = assistant.ask(
                Turn(request=row["request"], thread=row["thread"], now=NOW, tz=TZ)
            )
        created = any(e.status == "created" for e in bundle.events)
        outcome[row["id"]] = (row["want"], created, row["lang"])
    return outcome


def _cells(outcome: list[tuple[str, bool, str]]) -> list[str]:
    agreed = [made for want, made, _ in outcome if want == "create"]
    disputed = [made for want, made, _ in outcome if want == "hold"]
    made = sum(agreed) + sum(disputed)
    precision = f"{sum(agreed) / made:.3f} ({sum(agreed)}/{made})" if made else "–"
    return [
        str(len(outcome)),
        f"{sum(agreed)}/{len(agreed)}",
        f"{len(disputed) - sum(disputed)}/{len(disputed)}",
        precision,
    ]


def main(argv: list[str] | None = None) -> None:
    logging.disable(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=SOURCE)
    args = parser.parse_args(argv)
    text = args.path.read_text(encoding="utf-8")
    outcome = run([json.loads(line) for line in text.splitlines() if line.strip()])
    rows = [["all", *_cells(list(outcome.values()))]]
    for lang in LANGUAGES:
        rows.append([lang, *_cells([o for o in outcome.values() if o[2] == lang])])
    write_table(
        "stance",
        "The user's reply in a thread (no-llm): created only when the user agreed",
        [
            "language",
            "threads",
            "agreed and created",
            "not agreed and not created",
            "precision of created events",
        ],  # fmt: skip
        rows,
        notes=[
            f"{len(outcome)} threads from `{args.path.name}`, written and labelled by a helper "
            "who saw no code and no training data, each with a request to add it. Read twice: "
            "at the reply-stance head's commit (44/60, 54/60, precision 0.880; the commit "
            "before it, b54472f, in the same run: 42/60, 43/60, 0.712), and after a review "
            "added the act model's call-off reading beside the head's and let a yes anywhere "
            "stand (this table). Nothing was chosen on it.",
        ],
    )


if __name__ == "__main__":
    main()
