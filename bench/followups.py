"""Follow-up conversations a helper wrote blind: what the chat's calendar holds after each turn.

Run: .venv/bin/python -m bench.followups [PATH] (writes bench/results/followups.md).

Each conversation is typed into one chat session as the page and `run.py ask --session` run a
turn (opened, answered, its answer stored for the next turn to read), rules only. After every
turn the calendar is read back from Veil's store, and the local starts of what is on it are
compared with the gold: the starts of every event the conversation should have by then. A turn
is right when the two sets are equal, so a move that also leaves the old time, a question that
changes something, or a cancel that does nothing each count as wrong. A turn's kind is read from
the gold alone (one more event: create; one fewer: cancel; as many at other times: move; the
same: nothing may change), never from what Veil did.
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlite_utils import Database

from bench.common import write_table

SOURCE = Path(__file__).resolve().parent / "data" / "followups_sealed.json"
KINDS = ("create", "move", "cancel", "no change", "other")


def kind(before: list[str], after: list[str]) -> str:
    """What a turn does by its gold: the difference between the calendar before and after."""
    if sorted(before) == sorted(after):
        return "no change"
    if len(after) == len(before) + 1 and set(before) <= set(after):
        return "create"
    if len(after) == len(before) - 1 and set(after) <= set(before):
        return "cancel"
    if len(after) == len(before):
        return "move"
    return "other"


def _starts(store: Any, now: datetime, zone: ZoneInfo) -> list[str]:
    """The local starts of what the chat's calendar holds from a day before `now` on."""
    events = store.between(now - timedelta(days=1), now + timedelta(days=800))
    return sorted(
        f"{e.start.astimezone(zone).date().isoformat()}T00:00"
        if e.all_day
        else e.start.astimezone(zone).strftime("%Y-%m-%dT%H:%M")
        for e in events
    )


def run(conversations: list[dict[str, Any]]) -> dict[str, Any]:
    """Every conversation in a fresh data folder; the tally of right turns by kind."""
    from agent.assistant import Turn, build_assistant
    from agent.session import answer_in_session, close_turn, open_turn
    from memory.calendar import CalendarStore
    from memory.store import MemoryStore
    from web.turns import turn_outcome

    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    whole, wrong = 0, []
    for conversation in conversations:
        zone = ZoneInfo(conversation["tz"])
        now = datetime.fromisoformat(conversation["now"])
        with tempfile.TemporaryDirectory() as folder:
            assistant = build_assistant(data_dir=Path(folder), no_llm=True)
            store = MemoryStore(Database(Path(folder) / "veil.db"))
            calendar = CalendarStore(Database(Path(folder) / "veil.db"))
            session = store.create_session(conversation["id"]).id
            before: list[str] = []
            all_right = True
            for index, turn in enumerate(conversation["turns"]):
                gold = sorted(turn["expect"])
                what = kind(before, gold)
                asked = Turn(
                    request=turn["req"], thread=turn.get("thread") or "", now=now,
                    tz=conversation["tz"], session=session,
                )  # fmt: skip
                try:  # as the page runs a turn: the next one reads this one's stored answer
                    open_turn(store, asked)
                    bundle = answer_in_session(assistant, store, asked)
                    close_turn(store, asked, bundle)
                    outcome = turn_outcome(bundle, asked, store, Path(folder), audit=[])
                    store.finish_turn(asked.id, outcome)
                    got = _starts(calendar, now, zone)
                except Exception as error:  # a raise is a wrong turn, and is named
                    if asked.id is not None:  # as the page does: the turn failed, not running
                        store.finish_turn(asked.id, {"error": str(error)}, status="failed")
                    got = [f"raised {type(error).__name__}"]
                total[what] += 1
                if got == gold:
                    right[what] += 1
                else:
                    all_right = False
                    wrong.append(f"{conversation['id']}#{index + 1} ({what})")
                before = gold
            whole += all_right
    return {"right": right, "total": total, "whole": whole, "n": len(conversations),
            "wrong": wrong}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    logging.disable(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=SOURCE)
    args = parser.parse_args(argv)
    conversations = json.loads(args.path.read_text(encoding="utf-8"))
    tally = run(conversations)
    rows = [[k, f"{tally['right'][k]}/{tally['total'][k]}"] for k in KINDS if tally["total"][k]]
    turns = sum(tally["total"].values())
    rows.append(["all turns", f"{sum(tally['right'].values())}/{turns}"])
    rows.append(["conversations fully right", f"{tally['whole']}/{tally['n']}"])
    write_table(
        "followups",
        "Follow-up conversations (no-llm): the calendar after each turn",
        ["turn kind (from the gold)", "right"],
        rows,
        notes=[
            f"{tally['n']} conversations from `{args.path.name}`, written and labelled by a "
            "helper who saw no code and no earlier set, run once; a turn is right when the "
            "chat's calendar holds exactly the gold's starts after it.",
            "Wrong turns: " + (", ".join(tally["wrong"]) or "none"),
        ],
    )


if __name__ == "__main__":
    main()
