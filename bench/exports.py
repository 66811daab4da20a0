"""Chat exports: speakers and stamps read exactly, per format and locale, and what it costs.

Run: .venv/bin/python -m bench.exports  (writes bench/results/exports.md)

Each sample of tests/data/exports/ (one per format and locale, gold in expected.json, written
by hand from the sample) is read two ways in the same process:

- export: `lang.exports.read_export` on the file's bytes, then the message model on the
  canonical text, each stamp through the turn's own `TimeParser.stamp_time`;
- paste (the baseline, what Veil did before): the file's text pasted as it is into the message
  model, each stamp through the same `stamp_time`.

A gold message counts as exact when a message read has its sent minute and its sender (the
label the export gave it); "extra" counts messages read that are no one's words (the app's
notices, JSON or header lines). Times are medians of REPEAT runs of the parse alone (bytes to
messages, no Duckling), with the paste path's time as the ratio's base. The last row is a year
of a group chat (18,400 messages): the export read plus the turn's recent window, against the
paste path's window of the raw text.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from agent.assistant import recent_window
from bench.common import median, run_notes, timed, write_table
from lang.exports import read_export
from lang.exports.archive import decode
from lang.thread import messages
from tools.calendar.times import TimeParser

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "exports"
REPEAT = 7
NOW = "2026-12-05T12:00"


def _read(text: str, parser: TimeParser) -> list[tuple[str, str]]:
    """(sent minute, speaker) of each message the message model reads at top level."""
    found = []
    for message in messages(text):
        if message.quoted:
            continue
        sent = parser.stamp_time(message.stamp) if message.stamp else None
        found.append((f"{sent:%Y-%m-%d %H:%M}" if sent else "", message.speaker or ""))
    return found


def _exact(gold: list[tuple[str, str]], read: list[tuple[str, str]]) -> tuple[int, int, int]:
    """Gold messages whose stamp is read, whose stamp and speaker are, and extra messages."""
    stamps = sum((Counter(s for s, _ in gold) & Counter(s for s, _ in read)).values())
    both = sum((Counter(gold) & Counter(read)).values())
    return stamps, both, max(0, len(read) - both)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _year() -> bytes:
    from tests.test_exports import year_of_group_chat

    return year_of_group_chat()


def main() -> None:
    """Measure every sample and the year of a group chat; write the table."""
    gold_file = json.loads((DATA / "expected.json").read_text("utf-8"))
    rows: list[list[object]] = []
    totals = Counter()
    for name, gold_entry in gold_file.items():
        if name.startswith("_"):
            continue
        raw = (DATA / name).read_bytes()
        tz = gold_entry["tz"]
        parser = TimeParser(tz=tz, now=datetime.fromisoformat(NOW).replace(tzinfo=ZoneInfo(tz)))
        export = read_export(raw, name, tz=tz)
        gold = [(s, export.speakers.get(who, who)) for s, who in gold_entry["messages"]]
        raw_gold = [(s, who) for s, who in gold_entry["messages"]]
        new = _exact(gold, _read(export.text, parser))
        pasted = decode(raw, name).text
        old = _exact(raw_gold, _read(pasted, parser))
        export_s = median(timed(lambda r=raw, n=name, z=tz: messages(read_export(r, n, tz=z).text),
                                REPEAT))  # fmt: skip
        paste_s = median(timed(lambda r=raw, n=name: messages(decode(r, n).text), REPEAT))
        count = len(gold)
        totals.update(gold=count, new_stamps=new[0], new_both=new[1], old_stamps=old[0],
                      old_both=old[1], new_extra=new[2], old_extra=old[2])  # fmt: skip
        rows.append([
            f"`{name}`", gold_entry["locale"], count,
            f"{new[0]}/{count}", f"{new[1]}/{count}", new[2],
            f"{old[0]}/{count}", f"{old[1]}/{count}", old[2],
            _ms(export_s), _ms(paste_s), f"{export_s / paste_s:.2f}×",
        ])  # fmt: skip
    rows.append([
        "**all samples**", "", totals["gold"],
        f"{totals['new_stamps']}/{totals['gold']}", f"{totals['new_both']}/{totals['gold']}",
        totals["new_extra"], f"{totals['old_stamps']}/{totals['gold']}",
        f"{totals['old_both']}/{totals['gold']}", totals["old_extra"], "", "", "",
    ])  # fmt: skip
    year = _year()

    def export_year() -> object:
        window, _note = recent_window(read_export(year, "chat.txt").text)
        return messages(window)

    def paste_year() -> object:
        window, _note = recent_window(decode(year, "chat.txt").text)
        return messages(window)

    export_s = median(timed(export_year, 3))
    paste_s = median(timed(paste_year, 3))
    _window, note = recent_window(read_export(year, "chat.txt").text)
    rows.append([
        "a year of a group chat", f"{len(year) / 1e6:.1f} MB, WhatsApp Android en-GB", 18_400,
        "", "", "", "", "", "", _ms(export_s), _ms(paste_s), f"{export_s / paste_s:.2f}×",
    ])  # fmt: skip
    write_table(
        "exports",
        "Chat exports: speakers and stamps exact per format and locale (bench/exports.py)",
        [
            "sample",
            "format, locale",
            "messages",
            "export: stamps exact",
            "export: stamp + speaker exact",
            "export: extra",
            "paste: stamps exact",
            "paste: stamp + speaker exact",
            "paste: extra",
            "export parse",
            "paste parse",
            "export / paste",
        ],
        rows,
        [
            "Exact: a gold message (expected.json, written by hand) whose sent minute, through "
            "the turn's `TimeParser.stamp_time`, and sender the message model reads; extra: "
            "messages read that are nobody's words (notices, JSON, headers). Export: "
            "`read_export` then the message model on the canonical text; paste: the file's "
            f"text pasted as it is (the baseline, Veil before exports). Parse times: median "
            f"of {REPEAT} runs in one process, bytes to messages, no Duckling. `now` is "
            f"{NOW} in each sample's zone.",
            f"Year of a group chat: read and cut to the turn's window ({note.strip('()')}); "
            "the paste path cuts the raw text to its last lines instead. Median of 3.",
            *run_notes(None),
        ],
    )


if __name__ == "__main__":
    main()
