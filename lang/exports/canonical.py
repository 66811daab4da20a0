"""The one thread text every export becomes, and the recent window of a long one.

Each message is one line `[2026-12-03 19:30] Priya Patel: first line`, its further lines
indented by two spaces. The stamp is ISO-like, so nothing downstream has to guess whether
03/12 is the 3rd of December or the 12th of March (lang/thread.py reads it as a bracketed
stamp, the time parser as that date). The indent keeps a message's own lines from opening
another one: "Note: bring wine" under a message is that message, not a speaker called Note.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from lang import data
from lang.thread import split_thread

_TABLE = data.table("exports")
ATTACHMENT = _TABLE["placeholders"]["attachment"]
INDENT = "  "
# A canonical message's first line: its stamp, and where the speaker starts.
LINE_RE = re.compile(r"\[(?P<day>\d{4}-\d{2}-\d{2}) (?P<clock>\d{2}:\d{2})\] ")
# Characters that would end or open a stamped label early ("[", "]", ":") or split the line.
_LABEL_BREAKERS_RE = re.compile(r"[\[\]:\r\n\t\u2028\u2029]+")
_NOTE_RE = re.compile(r"\s*\([^()]*\)\s*")
# Bidi marks and a BOM: dropped with str.translate (a regex per line cost a third of a big
# export's read).
_BIDI = dict.fromkeys([0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0xFEFF])
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def alias(number: int) -> str:
    """The label of the `number`th sender an export names by no name: "Contact A", ...,
    "Contact Z", "Contact AA"."""
    letters = ""
    number += 1
    while number:
        number, rest = divmod(number - 1, 26)
        letters = _LETTERS[rest] + letters
    return f"Contact {letters}"


class ExportError(ValueError):
    """An export that cannot be read; the message says why and what to do instead."""


class UnknownFormatError(ExportError):
    """Bytes that are no export Veil knows: binary data, another kind of archive or JSON."""


@dataclass(frozen=True, slots=True)
class Record:
    """One message of an export: when it was sent (wall time as the app showed it), who sent
    it (as the app names them) and its lines."""

    sent: datetime
    speaker: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Export:
    """An export read into the canonical thread text.

    `records` are the messages as read from the export, oldest first, `speakers` the label
    each sender's messages carry in `text` (a name shortened only where the message model
    would not read it as a name), `notes` sentences for the user about how it was read.
    `older` counts the messages before `records` that were left unread (a year of a group chat
    is read from its recent messages only) and `oldest` is when the first of them was sent.
    """

    text: str
    format: str
    records: tuple[Record, ...] = ()
    speakers: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    older: int = 0
    oldest: datetime | None = None

    @property
    def count(self) -> int:
        """How many messages the export holds (a plain paste counts none)."""
        return self.older + len(self.records)

    @property
    def first(self) -> datetime | None:
        """When the oldest message was sent."""
        if self.oldest is not None:
            return self.oldest
        return self.records[0].sent if self.records else None

    @property
    def last(self) -> datetime | None:
        """When the newest message was sent."""
        return self.records[-1].sent if self.records else None

    def slim(self) -> Export:
        """This export without each message's lines (its text holds them): what crosses a
        worker's pipe, at about half the size."""
        records = tuple(Record(r.sent, r.speaker, ()) for r in self.records)
        return replace(self, records=records)

    def summary(self) -> str:
        """One sentence naming the format, the count and the dates ("WhatsApp export: 214
        messages, 12 Nov to 28 Nov 2026.")."""
        if not self.records or self.first is None or self.last is None:
            return f"{FORMAT_NAMES.get(self.format, self.format)}: no messages."
        count = f"{self.count:,} message" + ("" if self.count == 1 else "s")
        return (
            f"{FORMAT_NAMES.get(self.format, self.format)}: {count}, {span(self.first, self.last)}."
        )


FORMAT_NAMES = {
    "whatsapp": "WhatsApp export",
    "telegram": "Telegram export",
    "signal": "Signal export",
    "slack": "Slack export",
    "eml": "E-mail",
    "mbox": "Mailbox",
    "paste": "Pasted text",
}


def span(first: datetime, last: datetime) -> str:
    """Two dates as a reader says them: "12 Nov to 28 Nov 2026", "28 Dec 2025 to 3 Jan 2026",
    "28 Nov 2026"."""
    end = f"{last.day} {last:%b %Y}"
    if first.date() == last.date():
        return end
    start = f"{first.day} {first:%b}" + (f" {first:%Y}" if first.year != last.year else "")
    return f"{start} to {end}"


def clean_line(line: str) -> str:
    """A line without the bidi marks apps put at its start and its trailing blanks."""
    return line.translate(_BIDI).rstrip()


def _reads_as(label: str) -> bool:
    """Whether the message model reads `label` before a stamp as exactly that speaker."""
    if not label or len(label) > 60:
        return False
    line = split_thread(f"[2026-01-01 00:00] {label}: x")
    return bool(line) and line[0].kind == "message" and line[0].speaker == label


def _candidates(name: str) -> Iterable[str]:
    """Ever plainer spellings of a sender's name, the name itself first."""
    plain = " ".join(_LABEL_BREAKERS_RE.sub(" ", name.translate(_BIDI)).split())
    yield plain
    surname, comma, given = plain.partition(",")
    if comma and given.strip() and "," not in given:  # "Lund, Henrik", as address books sort
        yield f"{given.strip()} {surname.strip()}"
    without_note = " ".join(_NOTE_RE.sub(" ", plain).split())  # "Jean-Luc (work)"
    yield without_note
    words = re.sub(r"[^\w\s'’.\-+]", " ", without_note).split()
    yield " ".join(words)
    yield " ".join(w[:1].upper() + w[1:] for w in words)  # "the boys" -> "The Boys"
    yield " ".join(words[:4])  # the message model reads names of up to four words
    yield " ".join(w[:1].upper() + w[1:] for w in words[:3] if not w[:1].isdigit())


def speaker_labels(names: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """Each sender's label in the canonical text, and notes on those changed to be read.

    A name the message model reads as a speaker stays as it is; otherwise the first plainer
    spelling it reads, and failing that "Contact A", "Contact B" ... Two senders never share a
    label.
    """
    unique = list(dict.fromkeys(names))
    # names read as they are go first, so a plainer spelling never takes one of theirs
    labels = {name: name for name in unique if _reads_as(name)}
    if len({label.casefold() for label in labels.values()}) < len(labels):
        labels = {}  # "Tom" and "TOM": two senders the casefolded check below keeps apart
    used = {label.casefold() for label in labels.values()}
    for name in unique:
        if name in labels:
            continue
        label = next(
            (c for c in _candidates(name) if c and c.casefold() not in used and _reads_as(c)),
            None,
        )
        if label is None:
            label = next(alias(n) for n in range(len(used) + 1) if alias(n).casefold() not in used)
        labels[name] = label
        used.add(label.casefold())
    labels = {name: labels[name] for name in unique}
    changed = sum(1 for name, label in labels.items() if label != name)
    notes = []
    if changed:
        notes.append(
            f"{changed} sender name(s) were written more plainly so that each reads as a name."
        )
    return labels, notes


def render(records: Sequence[Record], labels: dict[str, str], *, indent_all: bool = True) -> str:
    """The canonical text of `records`. `indent_all`: every further line of a message is
    indented (chats); otherwise only those the message model would read as a new message
    (e-mail, whose quoted originals and their header lines must stay as they are)."""
    out: list[str] = []
    for record in records:
        lines = list(record.lines) or [""]
        first = lines[0].strip()
        out.append(f"[{record.sent:%Y-%m-%d %H:%M}] {labels[record.speaker]}: {first}".rstrip())
        rest = lines[1:]
        while rest and not rest[-1].strip():
            rest.pop()
        if indent_all:
            out.extend(INDENT + line if line.strip() else "" for line in rest)
        else:
            out.extend(_escaped(rest))
    return "\n".join(out)


def _escaped(lines: list[str]) -> list[str]:
    """The lines with those that would open a message of their own indented."""
    body = "\n".join(lines)
    opening = {
        body.count("\n", 0, line.start)
        for line in split_thread(body)
        if line.kind == "message" and line.quote_depth == 0
    }
    return [INDENT + line if n in opening else line for n, line in enumerate(lines)]


@dataclass(frozen=True)
class Window:
    """The most recent part of a canonical thread that fits a budget, and a sentence for the
    reply when anything was left out."""

    text: str
    note: str
    kept: int
    total: int


def recent_window(
    text: str, *, max_lines: int, max_chars: int, max_line_chars: int
) -> Window | None:
    """The recent window of a canonical thread: whole messages, the newest first, while they
    fit `max_lines` and `max_chars`, then whole days (a day whose earlier messages did not fit
    is left out, unless it is the only one). None when `text` is not canonical.

    A line longer than `max_line_chars` keeps its end, as a pasted thread's does.
    """
    lines = text.split("\n")
    starts = [n for n, line in enumerate(lines) if LINE_RE.match(line)]
    first_text = next((n for n, line in enumerate(lines) if line.strip()), None)
    if not starts or first_text != starts[0]:
        return None
    blocks = [
        (lines[s], [_tail(line, max_line_chars) for line in lines[s:e]])
        for s, e in zip(starts, [*starts[1:], len(lines)], strict=True)
    ]
    kept: list[tuple[str, list[str]]] = []
    size = count = 0
    trimmed = False  # the newest message alone was past the budget
    for head, block in reversed(blocks):
        cost = sum(len(line) + 1 for line in block)
        if kept and (count + len(block) > max_lines or size + cost > max_chars):
            break
        if not kept and (len(block) > max_lines or cost > max_chars):
            block, trimmed = _cut_message(block, max_lines, max_chars), True
            cost = sum(len(line) + 1 for line in block)
        kept.append((head, block))
        size, count = size + cost, count + len(block)
    kept.reverse()
    window = "\n".join(line for _, block in kept for line in block)
    if len(kept) == len(blocks):
        if not trimmed and all(len(line) <= max_line_chars for line in lines):
            return Window(text, "", len(blocks), len(blocks))
        note = (
            "(Some messages are longer than one turn reads, so I read their first line and "
            "their end.)"
        )
        return Window(window, note, len(blocks), len(blocks))
    day = _day(kept[0][0])
    if _day(blocks[-len(kept) - 1][0]) == day:
        whole = [k for k in kept if _day(k[0]) != day]
        kept = whole or kept  # a single busy day keeps the messages of it that fit
        window = "\n".join(line for _, block in kept for line in block)
    first, last = _stamp(kept[0][0]), _stamp(kept[-1][0])
    note = (
        f"(I read the messages from {span(first, last)}, {len(kept):,} of {len(blocks):,}: the "
        "thread is longer than one turn reads. Paste the part that matters if the plan is "
        "older.)"
    )
    if first.date() == last.date():
        note = (
            f"(I read the messages of {span(first, last)} from {first:%H:%M} on, "
            f"{len(kept):,} of {len(blocks):,}: the thread is longer than one turn reads. "
            "Paste the part that matters if the plan is older.)"
        )
    return Window(window, note, len(kept), len(blocks))


def _tail(line: str, limit: int) -> str:
    """A line past `limit` keeps its end, cut at a space; a message's first line keeps its
    stamp and speaker."""
    if len(line) <= limit:
        return line
    head = LINE_RE.match(line)
    keep = line[: line.find(": ", head.end()) + 2] if head and ": " in line else ""
    tail = line[-(limit - len(keep)) :]
    space = tail.find(" ")
    return keep + (tail[space + 1 :] if 0 <= space < 200 else tail)


def _cut_message(block: list[str], max_lines: int, max_chars: int) -> list[str]:
    """One message too long for the budget: its first line, then its last lines that fit."""
    kept = [block[0]]
    size = len(block[0]) + 1
    tail: list[str] = []
    for line in reversed(block[1:]):
        if len(kept) + len(tail) + 1 > max_lines or size + len(line) + 1 > max_chars:
            break
        tail.append(line)
        size += len(line) + 1
    return kept + tail[::-1]


def _day(line: str) -> str:
    match = LINE_RE.match(line)
    return match.group("day") if match else ""


def _stamp(line: str) -> datetime:
    match = LINE_RE.match(line)
    if match is None:
        raise ValueError("not a canonical message line")
    return datetime.fromisoformat(f"{match.group('day')} {match.group('clock')}")
