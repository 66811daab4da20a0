"""SMCalFlow 2.0 create-event requests as a start-time benchmark: a request alone, third-party.

Run: .venv/bin/python -m bench.smcalflow [--limit N] [--embedded]
(writes bench/results/smcalflow.md).

SMCalFlow's gold is a program, not a time: `(DateAtTimeWithDefaults (NextDOW (Friday))
(NumberPM 3L))`. The programs that fix one day and one clock time are resolved here against a
fixed "now" (a Wednesday, 07:00, America/New_York) into a gold start; a request whose day is
the same weekday as "now" is left out (whether "Wednesday" then means today or next week is
the annotators' convention, not the text's). Requests whose program names no day, no clock
time and no part of day are the negative set: any event created from one is at a time nobody
stated. Only a dialogue's first turn is used (no context to resolve).

Scored with bench.agent's scorer: a created event matches at the same minute with a subject
word in its title; "created at a time not in the gold" is its own row (target 0).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bench.agent import (
    CaseScore,
    Runner,
    content_words,
    percentile,
    run_set,
    summarise,
)
from bench.common import RESULTS, machine

DATA = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
SOURCE = DATA / "smcalflow2_valid_create_event.jsonl"
TZ = "America/New_York"
NOW = datetime(2026, 12, 2, 7, 0, tzinfo=ZoneInfo(TZ))  # a Wednesday
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = (
    "January February March April May June July August September October November December"
).split()

# The one start shape this benchmark resolves: a day, and a clock time, nothing else.
_START_RE = re.compile(
    r"\(Event\.start_\? \(\?= \(DateAtTimeWithDefaults (?P<date>\((?:[^()]|\([^()]*\))*\)) "
    r"(?P<time>\([^()]*\))\)\)\)"
)


def _day(expr: str) -> date | None:
    """A date function of the program, resolved at NOW; None for anything else."""
    today = NOW.date()
    if expr == "(Today)":
        return today
    if expr == "(Tomorrow)":
        return today + timedelta(days=1)
    match = re.fullmatch(r"\(NextDOW \((\w+)\)\)", expr)
    if match and match.group(1) in _DAYS:
        ahead = (_DAYS.index(match.group(1)) - today.weekday()) % 7
        return today + timedelta(days=ahead) if ahead else None  # today's weekday: ambiguous
    match = re.fullmatch(r"\(MD (\d+)L \(Month\.(\w+)\)\)", expr) or re.fullmatch(
        r"\(MD \(Month\.(\w+)\) (\d+)L\)", expr
    )
    if match:
        number, month = (
            (match.group(1), match.group(2))
            if match.group(1).isdigit()
            else (match.group(2), match.group(1))
        )
        names = [m.casefold() for m in _MONTHS]
        if month.casefold() not in names:
            return None
        try:
            day = date(today.year, names.index(month.casefold()) + 1, int(number))
            return day if day >= today else day.replace(year=today.year + 1)
        except ValueError:
            return None
    return None


def _clock(expr: str) -> time | None:
    """A clock function of the program; None for anything it does not pin to a minute."""
    match = re.fullmatch(r"\((\w+)((?: \d+L)*)\)", expr)
    if not match:
        return None
    name, numbers = match.group(1), [int(n[:-1]) for n in match.group(2).split()]
    hour, minute = (numbers + [0, 0])[:2]
    if name == "Noon" and not numbers:
        return time(12, 0)
    if name in ("NumberPM", "HourMinutePm") and 1 <= hour <= 12:
        return time(hour % 12 + 12, minute)
    if name in ("NumberAM", "HourMinuteAm") and 1 <= hour <= 12:
        return time(hour % 12, minute)
    if name in ("HourMinuteMilitary", "HourMilitary") and hour < 24:
        return time(hour, minute)
    return None


def gold_start(record: dict[str, Any]) -> datetime | None:
    """The record's gold start at NOW, or None when its program does not fix one here."""
    match = _START_RE.search(record["lispress"])
    if not match:
        return None
    day, clock = _day(match.group("date")), _clock(match.group("time"))
    if day is None or clock is None:
        return None
    start = datetime.combine(day, clock, tzinfo=ZoneInfo(TZ))
    return start if start > NOW else None


def _unstated(record: dict[str, Any]) -> bool:
    derived = record["derived"]
    return not (
        derived["clock_time_fns"]
        or derived["date_fns"]
        or derived["part_of_day_fns"]
        or derived["has_start_constraint"]
    )


def _case(record: dict[str, Any], start: datetime | None, tag: str) -> dict[str, Any]:
    subject = record["derived"].get("subject") or ""
    events = []
    if start is not None:
        events.append(
            {
                "start": start.isoformat(),
                "all_day": False,
                "title_keywords": content_words(subject) if subject else [""],
            }
        )
    return {
        "id": record["id"],
        "now": NOW.isoformat(),
        "tz": TZ,
        "request": record["text"],
        "thread": "",
        "calendar": [],
        "gold": {"events": events, "question": False, "draft": False},
        "tags": [tag],
        "pii": [],
    }


def load(limit: int | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(timed cases, unstated cases): first turns only, each list cut to `limit`."""
    if not SOURCE.exists():
        raise FileNotFoundError(f"{SOURCE} is missing: the benchmark needs ../shared/benchmarks")
    timed: list[dict[str, Any]] = []
    unstated: list[dict[str, Any]] = []
    with SOURCE.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record["context"] or record["derived"]["uses_refer"]:
                continue
            start = gold_start(record)
            if start is not None:
                timed.append(_case(record, start, "timed"))
            elif _unstated(record):
                unstated.append(_case(record, None, "unstated"))
    if limit is not None:
        timed, unstated = timed[:limit], unstated[:limit]
    return timed, unstated


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole:.3f} ({part}/{whole})" if whole else "– (0/0)"


def report(results: dict[str, tuple[list[CaseScore], list[CaseScore]]]) -> str:
    """The markdown of bench/results/smcalflow.md."""
    modes = list(results)
    header = ["measure", *modes]
    rows: list[list[str]] = []
    timed = {m: summarise(results[m][0]) for m in modes}
    unstated = {m: summarise(results[m][1]) for m in modes}
    rows.append(["requests with a day and a clock time", *(str(timed[m].cases) for m in modes)])
    rows.append(["created-event precision (start and title)",
                 *(_ratio(timed[m].matched, timed[m].made) for m in modes)])  # fmt: skip
    rows.append(["start-exact recall", *(_ratio(timed[m].exact, timed[m].gold) for m in modes)])
    rows.append(["event F1", *(f"{timed[m].prf[2]:.3f}" for m in modes)])
    rows.append(["created at a time not in the gold (events)",
                 *(str(timed[m].violations + unstated[m].made) for m in modes)])  # fmt: skip
    rows.append(["requests with no day, time or part of day",
                 *(str(unstated[m].cases) for m in modes)])  # fmt: skip
    rows.append(["events created from those", *(str(unstated[m].made) for m in modes)])
    rows.append(["turns that raised", *(str(timed[m].errors + unstated[m].errors) for m in modes)])
    rows.append(["seconds per turn p50",
                 *(f"{percentile(timed[m].seconds, 0.5):.2f}" for m in modes)])  # fmt: skip
    lines = [
        "### SMCalFlow 2.0 create-event requests (bench/smcalflow.py)",
        "",
        f"Machine: {machine()}.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
        "First turns of the valid split whose program fixes a day (Today, Tomorrow, NextDOW, MD) "
        "and a clock time, resolved at Wednesday 2026-12-02 07:00 America/New_York; requests "
        "naming Wednesday and starts before now are left out. A created event matches when it "
        "starts on the gold minute and its title holds a word of the program's subject.",
    ]
    for mode in modes:
        scores = results[mode][0] + results[mode][1]
        wrong = [s.id for s in scores if s.violations or (s.gold == 0 and s.created)]
        lines.append(f"- {mode}: created at a time not in the gold: {', '.join(wrong) or 'none'}")
    return "\n".join(lines) + "\n"


def run(limit: int | None = None, modes: Sequence[str] = ("no-llm",)) -> str:
    """Both case lists in each mode; writes bench/results/smcalflow.md and returns it."""
    timed, unstated = load(limit)
    results = {}
    for mode in modes:
        runner = Runner(mode)
        results[mode] = (
            run_set(runner, "smcalflow timed", timed),
            run_set(runner, "smcalflow unstated", unstated),
        )
    text = report(results)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "smcalflow.md").write_text(text, encoding="utf-8")
    print(text)
    return text


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: `python -m bench.smcalflow [--limit N] [--embedded]`."""
    logging.basicConfig(level=os.environ.get("VEIL_LOG_LEVEL", "ERROR"))
    parser = argparse.ArgumentParser(prog="python -m bench.smcalflow", description=__doc__)
    parser.add_argument("--limit", type=int, help="first N cases of each list")
    parser.add_argument("--embedded", action="store_true", help="also run the embedded model")
    args = parser.parse_args(list(argv) if argv is not None else [])
    limit = args.limit
    if limit is None and os.environ.get("VEIL_BENCH_SMCALFLOW_LIMIT", "").strip():
        limit = int(os.environ["VEIL_BENCH_SMCALFLOW_LIMIT"])
    run(limit, ("no-llm", "embedded") if args.embedded else ("no-llm",))


if __name__ == "__main__":
    main(sys.argv[1:])
