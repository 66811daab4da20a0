"""An .ics file read as text before any parser sees it: encoding, nesting, size, pieces.

icalendar parses a whole file in one call (about a second per megabyte here) and has little to
say about a damaged one: a file cut short loses its unclosed calendar and reads as "no events".
One pass over the BEGIN/END lines first lets the import say what is wrong (truncated, mismatched,
not UTF-8, not iCalendar), set aside what it will never import (events far outside the window,
oversized items) without parsing them, and hand the parser the rest in pieces, so that the
import's time budget is checked between pieces instead of after a parse that never ends.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta

from tools.errors import IcsError

MAX_COMPONENTS = 100_000  # BEGIN lines in one file
MAX_ITEM_CHARS = 512 * 1024  # one VEVENT; more is an embedded attachment or an attack
MAX_ZONE_CHARS = 1024 * 1024  # all VTIMEZONEs of a calendar: each piece may repeat them
MAX_DATE_VALUES = 10_000  # RDATE and EXDATE values in one VEVENT
# The parser gets at most about this much text at a time. The budget is looked at between
# pieces, so a piece's parse is how far a hostile file can run past it: 128 KB took 0.3 s
# here and 0.5 s on CI (2.02 s in all); 32 KB takes 0.08 s and imports as fast.
PIECE_CHARS = 32 * 1024
CHECK_EVERY = 2_000  # items read between two looks at the clock
ITEM_NAMES = ("VEVENT", "VTODO", "VJOURNAL")
# Calendar-level properties the import reads; other calendar-level lines are checked for syntax
# and otherwise left out of the pieces, so a hostile header is not parsed once per piece.
_HEADER_NAMES = frozenset({"VERSION", "PRODID", "CALSCALE", "METHOD", "X-WR-TIMEZONE"})
# Two days either side of the window cover any UTC offset and all-day dates.
_MARGIN = timedelta(days=2)

# BEGIN:VEVENT, also folded around its colon as some writers do ("BEGIN\r\n :VEVENT").
_BOUNDARY = re.compile(
    r"^(BEGIN|END)[ \t]*(?:\r?\n[ \t]+)?:[ \t]*(?:\r?\n[ \t]+)?([^\r\n]*?)[ \t]*\r?$",
    re.M | re.I,
)
# NAME;params:value with quoted parameters ("(UTC+01:00) Amsterdam" holds a colon).
_PROPERTY = re.compile(
    r"^(DTSTART|DTEND|DURATION|RRULE|RDATE|EXRULE|EXDATE|RECURRENCE-ID|SUMMARY|TZID)"
    r'((?:;(?:"[^"]*"|[^";:\r\n])*)*):([^\r\n]*)',
    re.M | re.I,
)
_UNFOLD = re.compile(r"\r?\n[ \t]")
_TZID_PARAM = re.compile(r';TZID=(?:"([^"]*)"|([^;:\r\n]*))', re.I)


@dataclass(slots=True)
class Block:
    """One component's lines as they stand in the file."""

    name: str
    text: str
    line: int

    def properties(self) -> dict[str, list[tuple[str, str]]]:
        """Its date, rule, summary and TZID properties as (params, value), unfolded."""
        found: dict[str, list[tuple[str, str]]] = {}
        for match in _PROPERTY.finditer(_UNFOLD.sub("", self.text)):
            found.setdefault(match.group(1).upper(), []).append((match.group(2), match.group(3)))
        return found

    def label(self, properties: dict[str, list[tuple[str, str]]] | None = None) -> str:
        """How a refusal names it: kind, summary as written, line."""
        summary = (properties or self.properties()).get("SUMMARY", [("", "")])[0][1]
        title = " ".join("".join(c if c.isprintable() else " " for c in summary).split())
        title = title if len(title) <= 60 else title[:59] + "…"
        return f"{self.name} '{title or '(no title)'}' (line {self.line})"


@dataclass(slots=True)
class CalendarText:
    """One VCALENDAR (or the bare items of a file without one), split for parsing."""

    header: list[str] = field(default_factory=list)
    timezones: dict[str, Block] = field(default_factory=dict)  # by TZID
    items: list[Block] = field(default_factory=list)

    def pieces(self) -> Iterator[str]:
        """Whole VCALENDARs of at most about PIECE_CHARS, each with the zones its items use."""
        batch: list[Block] = []
        size = 0
        for item in self.items:
            if batch and size + len(item.text) > PIECE_CHARS:
                yield self._wrap(batch)
                batch, size = [], 0
            batch.append(item)
            size += len(item.text)
        if batch:
            yield self._wrap(batch)

    def _wrap(self, items: list[Block]) -> str:
        used = {m.group(1) or m.group(2) for b in items for m in _TZID_PARAM.finditer(b.text)}
        if used <= self.timezones.keys():
            zones = [self.timezones[tzid].text for tzid in sorted(used)]
        else:  # a TZID written differently from its VTIMEZONE: let the parser match them
            zones = [zone.text for zone in self.timezones.values()]
        lines = ["BEGIN:VCALENDAR", *self.header, *zones, *(b.text for b in items)]
        return "\r\n".join(line.rstrip("\r\n") for line in lines) + "\r\nEND:VCALENDAR\r\n"


@dataclass(slots=True)
class Skipped:
    """An item set aside before parsing that the user should hear about."""

    label: str
    reason: str


def decode(body: bytes) -> str:
    """The file as text; iCalendar is UTF-8, and a file that is not says where it breaks."""
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as error:
        line = body.count(b"\n", 0, error.start) + 1
        raise IcsError(
            f"the file is not UTF-8 text (byte 0x{body[error.start]:02X} on line {line} is not "
            "UTF-8); save or export it again as UTF-8"
        ) from None


def _iso_day(value: str) -> date | None:
    """The date at the start of a DATE or DATE-TIME value, None when it is not one."""
    digits = value.strip()[:8]
    if len(digits) != 8 or not digits.isdigit():
        return None
    try:
        return date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
    except ValueError:
        return None


def _outside(properties: dict[str, list[tuple[str, str]]], first: date, last: date) -> bool:
    """True only for a single event that certainly ends before or starts after the window."""
    if any(name in properties for name in ("RRULE", "RDATE", "EXRULE", "RECURRENCE-ID")):
        return False
    if "DURATION" in properties or len(properties.get("DTSTART", [])) != 1:
        return False
    start = _iso_day(properties["DTSTART"][0][1])
    ends = properties.get("DTEND", [])
    end = _iso_day(ends[0][1]) if len(ends) == 1 else (start if not ends else None)
    if start is None or end is None:
        return False  # the parser will say what is wrong with it, if anything
    return start > last + _MARGIN or max(start, end) < first - _MARGIN


def _refusal(block: Block, properties: dict[str, list[tuple[str, str]]]) -> str | None:
    """Why an item is refused without parsing it, or None."""
    if len(block.text) > MAX_ITEM_CHARS:
        return f"it is over {MAX_ITEM_CHARS // 1024} KB (an attachment?)"
    if block.name != "VEVENT":
        return f"a {block.name} is not an event"
    values = sum(v.count(",") + 1 for n in ("RDATE", "EXDATE") for _, v in properties.get(n, []))
    if values > MAX_DATE_VALUES:
        return f"it lists more than {MAX_DATE_VALUES:,} RDATE/EXDATE dates"
    return None


def _unescape(value: str) -> str:
    """A TEXT value as meant: "Pacific Time (US & Canada)\\, Tijuana" is the TZID parameter
    "Pacific Time (US & Canada), Tijuana"."""
    return re.sub(r"\\([\\;,])", r"\1", value)


def _header_lines(segment: str, first_line: int) -> list[str]:
    """The calendar-level lines the import reads; a line that is not NAME:value is an error."""
    logical: list[tuple[int, list[str]]] = []  # (line number, its physical lines)
    for offset, line in enumerate(segment.splitlines()):
        if line[:1] in (" ", "\t") and logical:  # folded: continues the line before
            logical[-1][1].append(line)
        elif line.strip():
            logical.append((first_line + offset, [line]))
    kept = []
    for number, lines in logical:
        unfolded = "".join([lines[0], *(more[1:] for more in lines[1:])])
        if ":" not in unfolded or unfolded[0] in ";:":
            raise IcsError(f"not valid iCalendar: line {number} is not of the form NAME:value")
        if re.split("[;:]", unfolded, maxsplit=1)[0].strip().upper() in _HEADER_NAMES:
            kept.append("\r\n".join(lines))
    return kept


def _name(raw: str) -> str:
    """A component name as a message may show it: upper case, printable, short."""
    name = raw.upper()
    if len(name) <= 20 and name.isprintable():
        return name
    name = "".join(c for c in name if c.isprintable())
    return name if len(name) <= 20 else name[:19] + "…"


def split(
    text: str, window: tuple[date, date], check: Callable[[], None] = lambda: None
) -> tuple[list[CalendarText], list[Skipped]]:
    """The file's calendars with the items worth parsing, and the items refused unparsed;
    `check` is called every CHECK_EVERY items (the import's time budget).

    Raises:
        IcsError: truncated, BEGIN/END not matching, too many components, no calendar at all,
            or a calendar-level line that is not iCalendar.
    """
    begins = re.finditer(r"^BEGIN[ \t]*:", text, re.M | re.I)
    if sum(1 for _ in itertools.islice(begins, MAX_COMPONENTS + 1)) > MAX_COMPONENTS:
        raise IcsError(
            f"the file holds more than {MAX_COMPONENTS:,} calendar items; "
            "export a shorter date range"
        )
    first, last = window
    calendars: list[CalendarText] = []
    loose = CalendarText()
    skipped: list[Skipped] = []
    found_items = 0
    stack: list[tuple[str, int, int]] = []  # (name, offset, line) of each open component
    current: CalendarText | None = None
    header_from, header_line = 0, 0  # where the calendar-level lines not yet read begin
    line, seen = 1, 0
    for match in _BOUNDARY.finditer(text):
        line += text.count("\n", seen, match.start())
        seen = match.start()
        kind, name = match.group(1).upper(), _name(match.group(2))
        if kind == "BEGIN":
            if len(stack) == 1 and current is not None:
                current.header += _header_lines(text[header_from : match.start()], header_line)
            stack.append((name, match.start(), line))
            if len(stack) == 1 and name == "VCALENDAR":
                current = CalendarText()
                header_from, header_line = match.end(), line
            continue
        if not stack:
            raise IcsError(f"not valid iCalendar: line {line} has END:{name} without a BEGIN")
        open_name, start, open_line = stack.pop()
        if name != open_name:
            raise IcsError(
                f"not valid iCalendar: line {line} has END:{name} where BEGIN:{open_name} "
                f"(line {open_line}) should end"
            )
        if not stack and name == "VCALENDAR" and current is not None:
            current.header += _header_lines(text[header_from : match.start()], header_line)
            calendars.append(current)
            current = None
            continue
        if len(stack) == 1:
            header_from, header_line = match.end(), line
        into = current if len(stack) == 1 else loose if not stack else None
        if into is None:
            continue  # a subcomponent (VALARM, STANDARD) stays in its parent's text
        block = Block(name, text[start : match.end()], open_line)
        if name == "VTIMEZONE":
            tzid = _unescape(block.properties().get("TZID", [("", "")])[0][1].strip())
            into.timezones.setdefault(tzid, block)
            if sum(len(zone.text) for zone in into.timezones.values()) > MAX_ZONE_CHARS:
                raise IcsError(
                    f"the time zone definitions are over {MAX_ZONE_CHARS // 1024**2} MB; "
                    "this is not a calendar export"
                )
        elif name in ITEM_NAMES:
            if not found_items % CHECK_EVERY:
                check()
            found_items += 1
            properties = block.properties()
            reason = _refusal(block, properties)
            if reason:
                skipped.append(Skipped(block.label(properties), reason))
            elif not _outside(properties, first, last):
                into.items.append(block)
    if stack:
        name, _, open_line = stack[-1]
        if len(stack) == 1:
            problem = f"END:{name} is missing at the end"
        else:
            problem = f"it stops inside the {name} begun on line {open_line}"
        raise IcsError(
            f"the file is truncated (incomplete): {problem}; download or export it again"
        )
    if not calendars and not found_items:
        raise IcsError("no calendar events inside (no VCALENDAR or VEVENT)")
    if loose.items:
        calendars.append(loose)
    return calendars, skipped
