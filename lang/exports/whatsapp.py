"""WhatsApp's "Export chat" text, from iOS and Android, in any locale, as records.

A line that opens a message carries a stamp in the phone's own format: iOS brackets it
("[03/12/2026, 19:02:11] Priya: hi"), Android dashes it ("03/12/2026, 19:02 - Priya: hi");
a 12-hour phone writes "7:02 PM", often with a narrow no-break space; a German one dots its
dates ("03.12.26"). Lines that open nothing continue the message above. A stamp's numbers say
nothing of their order on their own (03/12 is 3 December or 12 March), so the order is decided
once for the whole export (`date_order`), never line by line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from lang import data
from lang.exports.canonical import ATTACHMENT, ExportError, Record, clean_line

_TABLE = data.table("exports")["whatsapp"]
_PARTS = {"DATE": _TABLE["DATE"], "CLOCK": _TABLE["CLOCK"]}
IOS_RE = re.compile(data.expand(_TABLE["ios"], _PARTS), re.IGNORECASE)
ANDROID_RE = re.compile(data.expand(_TABLE["android"], _PARTS), re.IGNORECASE)
_LABEL_RE = re.compile(_TABLE["label"])
_BIDI = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
_SPACES_RE = re.compile(r"[\s\u00a0\u202f]+")
_HALF_RE = re.compile(r"([ap])\.?\s*m\.?$", re.IGNORECASE)


def _phrases(section: str) -> frozenset[str]:
    """A section's phrases, folded as `_fold` folds a line."""
    return frozenset(_fold(p) for p in data.phrases("exports", section))


def _fold(text: str) -> str:
    """A line as the phrase lists compare it: no bidi marks, one space, case folded."""
    return _SPACES_RE.sub(" ", text.strip(_BIDI + " \t")).strip().casefold()


_OMITTED = _phrases("attachment_omitted")
_NOTHING_SAID = _phrases("nothing_said")
_SYSTEM_RE = data.phrase_pattern("exports", "system")
# A notice that opens a body (an iOS export whose bidi marks were lost on the way).
_NOTICE_RE = re.compile(
    "(?:"
    + "|".join(re.escape(p) for p in data.phrases("exports", "system") if len(p.split()) >= 4)
    + ")",
    re.IGNORECASE,
)
_TAGGED_RE = re.compile(
    r"<(?:" + data.phrases_alternation(data.phrases("exports", "attachment_tags")) + r")\s*:"
    r"[^<>\n]*>",
    re.IGNORECASE,
)
_FILE_ATTACHED_RE = re.compile(
    r"\S.*\((?:" + data.phrases_alternation(data.phrases("exports", "file_attached")) + r")\)",
    re.IGNORECASE,
)
_EDITED_RE = re.compile(
    r"\s*(?:" + "|".join(re.escape(p) for p in data.phrases("exports", "edited")) + r")\s*$",
    re.IGNORECASE,
)


@dataclass(slots=True)
class _Raw:
    """A message as written, before its stamp's order is known."""

    date: str
    clock: str
    rest: str
    more: list[str]


def looks_like(text: str) -> bool:
    """Whether `text` is a WhatsApp export: a stamped line among its first lines, and more
    of them (or it is a single message)."""
    lines = [line for line in text.split("\n", 400)[:400] if line.strip()]
    if not lines:
        return False
    flavour = _flavour(lines)
    if flavour is None:
        return False
    opening = [n for n, line in enumerate(lines) if flavour.fullmatch(line.rstrip("\r"))]
    return bool(opening) and opening[0] < 5 and (len(opening) >= 2 or len(lines) <= 3)


def _flavour(lines: list[str]) -> re.Pattern[str] | None:
    """iOS or Android, by which shape more lines have."""
    ios = sum(1 for line in lines if IOS_RE.fullmatch(line.rstrip("\r")))
    android = sum(1 for line in lines if ANDROID_RE.fullmatch(line.rstrip("\r")))
    if not ios and not android:
        return None
    return IOS_RE if ios >= android else ANDROID_RE


# Messages read into records, the newest: more than the page's box (5,000 lines) or a turn's
# window (200 lines) ever shows. A year of a group chat holds 200,000; building a record for
# each took three quarters of its 8 s.
RECENT = 10_000


@dataclass(frozen=True)
class Chat:
    """A read export: the recent messages oldest first, how many older ones were left unread
    and when the first of them was sent, and notes on how it was read."""

    records: list[Record]
    notes: list[str]
    older: int = 0
    oldest: datetime | None = None


def read(text: str, *, day_first: bool | None = None, recent: int = RECENT) -> Chat:
    """The export's last `recent` messages, oldest first, and what it holds before them.

    `day_first` settles the order of a stamp's day and month only when the export's own dates
    (all of them, read or not) leave it open.

    Raises:
        ExportError: No message line, or dates that fit no one order.
    """
    lines = text.split("\n")
    flavour = _flavour([line for line in lines[:2000] if line.strip()])
    if flavour is None:
        raise ExportError("no WhatsApp message line found")
    raws: list[_Raw] = []
    for line in lines:
        line = line.rstrip("\r")
        match = flavour.fullmatch(line)
        if match and len(re.split(r"[./-]", match.group("date").rstrip("."))) == 3:
            raws.append(_Raw(match.group("date"), match.group("time"), match.group("rest"), []))
            continue
        if raws:
            raws[-1].more.append(line)
    order, notes = date_order([r.date for r in raws], [r.clock for r in raws], day_first)
    android = flavour is ANDROID_RE
    cut = max(0, len(raws) - recent)
    records = [r for r in (_record(raw, order, android=android) for raw in raws[cut:]) if r]
    older = sum(1 for raw in raws[:cut] if raw.rest)  # each a message or an app's line
    oldest = next((r.sent for r in (_record(x, order, android=android) for x in raws[:cut]) if r),
                  None)  # fmt: skip
    if cut:
        notes.append(
            f"The export holds {older + len(records):,} messages; I read the most recent "
            f"{len(records):,}."
        )
    return Chat(records, notes, older, oldest)


def date_order(
    dates: list[str], clocks: list[str], day_first: bool | None
) -> tuple[str, list[str]]:
    """ "ymd", "dmy" or "mdy" for every stamp of an export, and a note when it was a guess.

    A year first is "ymd". Otherwise a field over 12 settles it; if both orders fit every
    date, the one under which the dates run forward (exports are in sent order) wins; if that
    ties too, `day_first`, else the phone's habit: slashes with a 12-hour clock are American,
    dots and 24-hour clocks European.

    Raises:
        ExportError: The dates fit neither order.
    """
    fields = [_fields(d) for d in dates]
    if not fields:
        return "dmy", []
    if all(len(f[0]) == 4 for f in fields):
        return "ymd", []
    fits = {o: all(_valid(f, o) for f in fields) for o in ("dmy", "mdy")}
    if not any(fits.values()):
        raise ExportError(
            "the export's dates fit neither day-first nor month-first order; export the chat "
            "again from the phone"
        )
    if fits["dmy"] != fits["mdy"]:
        return ("dmy" if fits["dmy"] else "mdy"), []
    backwards = {o: _backwards(fields, o) for o in ("dmy", "mdy")}
    if backwards["dmy"] != backwards["mdy"]:
        return min(backwards, key=backwards.__getitem__), []
    if day_first is not None:
        order = "dmy" if day_first else "mdy"
        why = "as your time zone's country writes them"
    else:
        twelve = any(_HALF_RE.search(c.strip()) for c in clocks)
        order = "mdy" if twelve and all("/" in d for d in dates) else "dmy"
        why = "as a phone with a 12-hour clock writes them" if order == "mdy" else (
            "as phones with a 24-hour clock write them")  # fmt: skip
    reading = "day first" if order == "dmy" else "month first"
    return order, [
        f"The export's dates read either way (03/12 as 3 December or 12 March); I read them "
        f"{reading}, {why}."
    ]


def _fields(date: str) -> tuple[str, str, str]:
    """The three numbers of a stamp's date as written: "03.12.26." gives ("03", "12", "26")."""
    parts = re.split(r"[./-]", date.rstrip("."))
    if len(parts) != 3:
        raise ExportError(f"a WhatsApp date {date[:20]!r} has no three numbers")
    return parts[0], parts[1], parts[2]


def _numbers(date: tuple[str, str, str], order: str) -> tuple[int, int, int]:
    """(year, month, day) of a stamp's fields under `order`."""
    a, b, c = (int(x) for x in date)
    if order == "ymd":
        year, month, day = a, b, c
    elif order == "dmy":
        day, month, year = a, b, c
    else:
        month, day, year = a, b, c
    if year < 100:
        year += 2000
    return year, month, day


def _valid(date: tuple[str, str, str], order: str) -> bool:
    try:
        datetime(*_numbers(date, order))
    except ValueError:
        return False
    return True


def _backwards(dates: list[tuple[str, str, str]], order: str) -> int:
    """How often a date is earlier than the one before it under `order`."""
    previous = None
    count = 0
    for date in dates:
        numbers = _numbers(date, order)
        if previous is not None and numbers < previous:
            count += 1
        previous = numbers
    return count


def _clock(text: str) -> tuple[int, int]:
    """(hour, minute) of "19:02", "19:02:11", "7:02 PM", "7:02\u202fp. m."."""
    text = text.strip()
    half = _HALF_RE.search(text)
    numbers = re.split(r"[:.]", _HALF_RE.sub("", text).strip())
    hour, minute = int(numbers[0]), int(numbers[1])
    if half:
        hour = hour % 12 + (12 if half.group(1).lower() == "p" else 0)
    return hour, minute


def _record(raw: _Raw, order: str, *, android: bool) -> Record | None:
    """A message, or None for the app's own lines (a notice, a deleted message, a call)."""
    numbers = _numbers(_fields(raw.date), order)
    try:
        sent = datetime(*numbers, *_clock(raw.clock))
    except ValueError:
        return None  # "25:70": no clock, so no message line
    label = _LABEL_RE.match(raw.rest)
    if label is None:
        return None  # "Priya added Tom": a line of the app's, no one's words
    speaker = clean_line(label.group("speaker")).strip().lstrip("~").strip()
    if android and _SYSTEM_RE.search(speaker):
        return None  # 'Priya changed the subject from "Trip: Lisbon"': a colon in a notice
    first = raw.rest[label.end() :]
    marked = first.lstrip(" \u00a0")[:1] in ("\u200e", "\u200f")
    lines = [_line(line) for line in [first, *raw.more]]
    body = "\n".join(lines).strip()
    if not speaker or _fold(body) in _NOTHING_SAID or _NOTICE_RE.match(body.lstrip()):
        return None
    if marked and lines[0] != ATTACHMENT:
        return None  # iOS marks its own lines: "‎Priya added Tom" under the group's name
    return Record(sent, speaker, tuple(lines))


def _line(line: str) -> str:
    """A line of a message as it is meant: a left-out or attached file as one placeholder
    (its file name holds a date), the "edited" mark gone."""
    line = _TAGGED_RE.sub(ATTACHMENT, _EDITED_RE.sub("", clean_line(line)))
    if _fold(line) in _OMITTED or _FILE_ATTACHED_RE.fullmatch(line.strip()):
        return ATTACHMENT
    return line
