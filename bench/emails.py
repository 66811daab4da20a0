"""Real e-mails, with and without a meeting: does Veil add only what a person would?

Run: .venv/bin/python -m bench.emails [--embedded] (writes bench/results/emails.md).

A helper who saw no code took real e-mails from a public corpus (sources, commits and licences
in bench/data/emails_real_sealed.SOURCES.md), most of them holding dates and times but no
meeting (deadlines, past meetings, deliveries, phone extensions, newsletters) and some holding
one, and labelled each before Veil ever ran on it. Every case is sealed: run once per change,
never read to choose anything. Each mail is pasted as the thread under two requests, an explicit
"add this to my calendar" and an empty one (the paste alone), in the mail's own "now" and zone.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import Any

from bench.agent import CaseScore, Runner, run_set
from bench.common import write_table

SOURCE = Path(__file__).resolve().parent / "data" / "emails_real_sealed.jsonl"
REQUESTS = {"add": "add this to my calendar", "paste": ""}
HEADER = [
    "request",
    "mails (with a meeting)",
    "precision (created at a gold start)",
    "start-exact recall",
    "created at a time not in the gold",
    "mails without a meeting that got an event",
    "created events whose title holds a gold keyword",
    "turns that raised",
]


def load(request: str, source: Path = SOURCE) -> list[dict[str, Any]]:
    """The mails in bench.agent's case shape, each under `request`."""
    cases = []
    for line in source.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        gold = [
            {
                "start": event["start"][:10] if event.get("all_day") else event["start"],
                "all_day": bool(event.get("all_day")),
                "title_keywords": list(event.get("title_keywords") or []),
            }
            for event in raw["events"]
        ]
        cases.append({
            "id": raw["id"], "request": request, "thread": raw["text"], "now": raw["now"],
            "tz": raw["tz"], "tags": ["meeting" if raw["has_meeting"] else "none"],
            "calendar": [], "pii": [],
            "gold": {"events": gold, "question": not gold, "draft": False},
        })  # fmt: skip
    return cases


def row(name: str, scores: list[CaseScore]) -> list[str]:
    """One request's figures."""
    made = sum(s.created for s in scores)
    wrong = sum(s.violations for s in scores)
    gold = sum(s.gold for s in scores)
    exact = sum(s.exact for s in scores)
    matched = sum(s.matched for s in scores)
    none = [s for s in scores if "none" in s.tags]
    return [
        name,
        f"{len(scores)} ({len(scores) - len(none)})",
        f"{(made - wrong) / made:.3f} ({made - wrong}/{made})" if made else "–",
        f"{exact / gold:.3f} ({exact}/{gold})" if gold else "–",
        str(wrong),
        f"{sum(bool(s.created) for s in none)}/{len(none)}",
        f"{matched}/{made - wrong}" if made - wrong else "–",
        str(sum(bool(s.error) for s in scores)),
    ]


def main(argv: list[str] | None = None) -> None:
    """Run the set under both requests and write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedded", action="store_true", help="with the embedded model")
    args = parser.parse_args(argv)
    if not SOURCE.exists():
        raise SystemExit(f"{SOURCE} is missing: the real e-mail set ships in the repository")
    logging.basicConfig(level=logging.ERROR)
    mode = "embedded" if args.embedded else "no-llm"
    runner = Runner(mode)
    rows = [
        row(name, run_set(runner, f"emails {name}", load(text))) for name, text in REQUESTS.items()
    ]
    write_table(
        "emails",
        f"Real e-mails ({mode}): a helper chose and labelled them before any run; all sealed",
        HEADER,
        rows,
        [
            'Requests: add = "add this to my calendar", paste = an empty request (the mail '
            "alone). A created event counts when it starts on a gold minute; its title counts "
            "when it holds one of the gold keywords. Mails without a meeting have no gold event, "
            "so any event they get is one nobody wanted.",
        ],
    )


if __name__ == "__main__":
    main()
