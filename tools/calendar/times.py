"""Time understanding for scheduling: Duckling parses, Veil's layer decides what a phrase means.

Duckling knows the grammar of dates in five languages. What it leaves to us, and what this
module decides (every rule is tested in tests/test_times.py):

* Anchor: `now` in the user's zone, DST-correct; a pasted message's relative dates anchor at
  that message's stamp ("[Mon 23:50] tom: lunch tomorrow at 1" means Tuesday). Stamps are
  metadata and never become mentions.
* A bare hour (no am/pm) is a business hour: 1-6 is pm, 7-11 am, 12 noon ("tmrw at 3" is
  15:00, where Duckling says 03:00); evening words ("dinner", "tonight") move 5-11 to pm.
* "next Tuesday" follows Duckling: the Tuesday of next calendar week (weeks start on Monday).
  Said on Friday to Sunday that is the coming Tuesday; said on Monday it is 8 days ahead.
  "Tuesday" and "this Tuesday" are the coming one.
* Interval ends are real ends: "2-3pm" ends at 15:00 (Duckling's exclusive grain end is
  16:00). A day range ends at midnight after its last day ("Jun 3-5" ends Jun 6 00:00), which
  is already the real end and the exclusive DTEND of an all-day event.
* Zones Duckling reads ("15:00 CET") it converts; "3pm PT"/"ET"/"CT"/"MT" are converted here.
* Numeric dates follow the locale (from the zone's country unless given): 4/6 is April 6 in
  America/Chicago and 4 June in Europe/Dublin; ISO dates are unambiguous.
* Vague times stay vague: parts of the day, meals without a time ("dinner friday"), weeks and
  months, "sometime next week", "soon", open intervals ("after 5pm").
* A number is not a time when it counts ("at 5 people") or cites ("John 3:16").
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from lang import data, zones
from lang.activities import ACTIVITY_RE
from lang.once import once
from lang.text import fold_accents
from lang.thread import ZERO_LED_CLOCK_RE, age_order, is_self, messages, speaker_note
from tools import worker
from tools.calendar import lang
from tools.calendar.ranges import (
    join_ranges,
    numbered_or_counted,
    pair_hours,
    respell_minutes_to,
    score_like,
)
from tools.calendar.side_times import drop_deadlines, drop_side_times
from tools.errors import TimeParseError

log = logging.getLogger(__name__)

Kind = Literal["datetime", "date", "interval", "vague", "duration"]
_SUBDAY = {
    "second": timedelta(seconds=1),
    "minute": timedelta(minutes=1),
    "hour": timedelta(hours=1),
}
_LOCALE_RE = re.compile(r"[a-z]{2}_[A-Z]{2}")
# Words before "time" that name a zone without saying which (times.toml [zone_unnamed]).
_UNNAMED = data.words("times", "zone_unnamed")
_DUCKLING_ZONE_RE = re.compile(r"\b[A-Z]{2,5}\b")
_BC_YEAR_RE = re.compile(r'"-\d{4}-|"0000-')
# A 24-hour clock ("10:00", "09.30"), said with a zone abbreviation Duckling reads ("SGT").
_TWO_DIGIT_CLOCK_RE = re.compile(r"(?<![\d:.])(?P<hour>[01]\d|2[0-3])[:.h](?P<minute>[0-5]\d)")


def _clause_start(clean: str, at: int) -> int:
    """Where the clause holding offset `at` starts."""
    return max((b.end() for b in lang.CLAUSE_END_RE.finditer(clean, 0, at)), default=0)


def _old_clock_to_new_day(clean: str, mentions: list[TimeMention]) -> list[TimeMention]:
    """ "can we move friday's 2pm review to monday?": a move's verb, a dated clock or a day (the
    plan's old time), then "to" and a day with no clock in the same clause: the old time is no
    start, and the plan moves to that day at the old clock ("... to next week" says no day).
    A move Duckling read as a range ("move friday's 2pm to 3pm") is its new clock."""
    out = list(mentions)
    for old in mentions:
        clause_start = _clause_start(clean, old.start)
        if not lang.MOVE_VERB_RE.search(clean, clause_start, old.start):
            continue
        to = lang.MOVE_TO_RE.search(old.text)
        if old.kind == "interval" and old.has_clock_time and old.end_value and to:
            # "move friday's 2pm to 3pm": Duckling's range is the old time and the new one
            out = [m if m is not old else _to_the_new_clock(old) for m in out]
            continue
        if old.value is None or old.kind == "vague" or not lang.states_date(old.text):
            continue
        new = next(
            (m for m in out if m.start >= old.end and not m.has_clock_time and m.value), None
        )
        if new is None or lang.CLAUSE_END_RE.search(clean, old.end, new.start):
            continue
        if not lang.MOVE_TO_RE.search(clean[old.end - 1 : new.start + 1]):
            continue
        out = [m for m in out if m is not old]
        if not (old.has_clock_time and new.all_day):  # "... to next week": no new time said
            continue
        clock = old.value.astimezone(new.value.tzinfo)
        moved = new.value.replace(hour=clock.hour, minute=clock.minute)
        out = [m for m in out if m is not new]
        out.append(replace(new, kind="datetime", value=moved, has_clock_time=True, all_day=False))
    return sorted(out, key=lambda m: m.start)


def _unnested(mentions: list[TimeMention]) -> list[TimeMention]:
    """Clock times said inside a longer one, as its zone reached them: Duckling read "Dec 15,
    21:00" and "21:00 UTC" apart, and the zone after the first made them one."""
    return [
        m for m in mentions
        if not m.has_clock_time or not any(
            o is not m and o.has_clock_time and o.start <= m.start and m.end <= o.end
            and o.end - o.start > m.end - m.start
            for o in mentions
        )
    ]  # fmt: skip


def _replaced(clean: str, mentions: list[TimeMention]) -> list[TimeMention]:
    """ "on Thursday instead of Tuesday, 6:30-8pm": the time after "instead of" is the old one,
    no start; a clock said with it belongs to the new day before it in the same clause."""
    out = list(mentions)
    for old in mentions:
        if old.value is None or not lang.REPLACED_BEFORE_RE.search(clean, 0, old.start):
            continue
        out = [m for m in out if m is not old]
        clause_start = _clause_start(clean, old.start)
        new = next(
            (m for m in reversed(out) if clause_start <= m.start < old.start and m.value), None
        )
        if new is None:
            continue
        if new.has_clock_time and not lang.states_date(new.text) and lang.states_date(old.text):
            # "4pm instead of 3pm tomorrow": the day said with the old clock is the new one's
            day = old.value.astimezone(new.value.tzinfo)  # type: ignore[union-attr]
            value = new.value.replace(year=day.year, month=day.month, day=day.day)  # type: ignore[union-attr]
            end = new.end_value and value + (new.end_value - new.value)  # type: ignore[operator]
            out = [replace(m, value=value, end_value=end) if m is new else m for m in out]
            continue
        if new.has_clock_time or not old.has_clock_time:
            continue
        clock = old.value.astimezone(new.value.tzinfo)  # type: ignore[union-attr]
        day = new.value.replace(hour=clock.hour, minute=clock.minute)  # type: ignore[union-attr]
        end = None
        if old.end_value is not None:
            end = day + (old.end_value - old.value)
        moved = replace(new, kind="interval" if end else "datetime", value=day, end_value=end,
                        has_clock_time=True, all_day=False)  # fmt: skip
        out = [moved if m is new else m for m in out]
    return out


def _to_the_new_clock(move: TimeMention) -> TimeMention:
    """A move read as a range ("friday's 2pm to 3pm"): the new clock on the old time's day."""
    assert move.value is not None and move.end_value is not None
    new = move.end_value.astimezone(move.value.tzinfo)
    value = move.value.replace(hour=new.hour, minute=new.minute)
    return replace(move, kind="datetime", value=value, end_value=None, alternatives=())


def _as_written_in_zone(span: str, when: datetime) -> datetime:
    """A 24-hour clock said in a zone Duckling reads, at the hour written: Duckling took "10:00
    SGT" for 22:00 there when 10:00 fell outside the user's day it resolved."""
    clock, zone = _TWO_DIGIT_CLOCK_RE.search(span), lang.KNOWN_ZONE_RE.search(span)
    if clock is None or zone is None or lang.AM_PM_RE.search(span):
        return when  # "10:00 PM JST" says its half of the day
    offset = lang.ZONE_OFFSETS[zone.group(0).upper()]
    there = when.astimezone(timezone(timedelta(hours=offset)))
    hour = int(clock.group("hour"))
    if there.hour != hour and there.hour % 12 == hour % 12:
        return when + timedelta(hours=hour - there.hour)
    return when


# A bare number of one to three digits, a word of its own: not part of "5:30", "3/4/20",
# "2 / 15", "2019-03-07", "'19", "18q4" or "7th", and no era ("in 14 a.d.").
_SHORT_NUMBER_RE = re.compile(
    r"(?<![\w/.:'’-])(?<![/.:-]\s)\d{1,3}(?![\w/:-]|\.\d|\s[/:-]|\s*(?:a\.?d\b|b\.?c\b|b?ce\b))",
    re.IGNORECASE,
)
_ALTERNATIVE_RE = re.compile(r"\b(?:or|oder|ou|o)\b", re.IGNORECASE)
# A clock as written: "10:45", "7pm", "at 8", "@ 9".
_WRITTEN_CLOCK_RE = re.compile(
    rf"\d{{1,2}}[:.h]\d{{2}}\b|\d\s*[ap]\.?m\b|(?:^|\W)(?:{lang.CLOCK_PREPOSITIONS})\s*\d",
    re.IGNORECASE,
)
_LOOK_AROUND = 30, 20  # characters before and after a time whose words may set its half
_FAR_CLAUSE = 40  # characters of the clause after a break that may state its own time


def _own_clause(text: str, start: int, end: int) -> tuple[int, int]:
    """The span around the time at text[start:end] whose words may set its half of the day:
    up to 30 characters before and 20 after, short of a clause that states a clock of its own
    (or, after it, two hours joined by a dash, or an activity and its day: "lands 10:45,
    dinner 8-10 tonight"), or a day other than the time's own. The text as written: a pair
    blanked for ranges.py is still another time. A date past a break ("Movie night on Dec 12.
    See you at 8!") is no clock, and its words stay."""
    lo, hi = max(0, start - _LOOK_AROUND[0]), end + _LOOK_AROUND[1]
    for found in lang.CLAUSE_BREAK_RE.finditer(text, lo, start):
        far = text[lo : found.start()]
        if _WRITTEN_CLOCK_RE.search(far) or (
            lang.states_date(far) and lang.states_date(text[found.end() : end])
        ):  # "I'm free tonight! coffee tomorrow at 10:15?": two days, two clauses
            lo = found.end()
    for found in lang.CLAUSE_BREAK_RE.finditer(text, end, hi):
        rest = text[found.end() : found.end() + _FAR_CLAUSE]
        if (
            _WRITTEN_CLOCK_RE.search(rest)
            or lang.DASHED_PAIR_RE.search(rest)
            or (ACTIVITY_RE.search(rest) and lang.states_date(rest))  # "... dinner tonight?"
        ):
            return lo, found.start()
    return lo, hi


# A part of day or am/pm right after "H:MM" says it is a clock time ("Its 5:30 in the evening").
_DAYPART_AFTER_RE = re.compile(
    r"\s*(?:[ap]\.?m\b|o'?clock\b|tonight\b|(?:in\s+the\s+|this\s+|at\s+)?"
    r"(?:morning|afternoon|evening|night)\b)",
    re.IGNORECASE,
)


def _years(value: dict[str, Any]) -> set[int]:
    """The years of a Duckling time value's first reading (the others are later repeats)."""
    parts = (value, value.get("from"), value.get("to"))
    return {
        int(part["value"][:4])
        for part in parts
        if isinstance(part, dict) and str(part.get("value", ""))[:4].isdigit()
    }


def _without_short_years(clean: str, entities: list[dict[str, Any]], ref: datetime) -> str:
    """`clean` with blanks over the bare 1-3 digit numbers Duckling took as the year itself:
    a year far from now is written in full ("in 1620"), so "on March 7th in 620" (a street
    number) holds no year. Two-digit shorthand ("14th April 15" is 2015) is Duckling's to read."""
    spans: list[tuple[int, int]] = []
    for entity in entities:
        if entity["dim"] != "time":
            continue
        far = {year for year in _years(entity["value"]) if abs(year - ref.year) > 1}
        for match in _SHORT_NUMBER_RE.finditer(clean, entity["start"], entity["end"]):
            number = int(match.group(0))
            if number in far:
                spans.append(match.span())
    for lo, hi in spans:
        clean = clean[:lo] + " " * (hi - lo) + clean[hi:]
    return clean


@functools.cache
def _range_words(code: str) -> re.Pattern[str]:
    """The range connectors of language `code` and of every language ("-", "→"): Spanish "a"
    is no connector in "for an hour and a half"."""
    words = data.words("times", "range_connectors", "any", code)
    alternation = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![^\W\d_])(?:{alternation})(?![^\W\d_])", re.IGNORECASE)


_NOT_HOLIDAY_WORDS = frozenset({"day", "s", "the", "of"})


def _letters(text: str) -> str:
    return "".join(re.findall(r"[^\W\d_]+", text.casefold()))


# The hour written after "at" ("at 10 for 2 hours"), and the word that opens a length before it.
_AT_HOUR_RE = re.compile(
    rf"(?:(?<![^\W\d_])(?:{data.alternation('times', 'range_openers')})|@)\s*(\d{{1,2}})"
    r"(?![\d/.-]|st|nd|rd|th)",
    re.IGNORECASE,
)
# "9 to 11" in digits: a range of hours, which Duckling reads as nine minutes to eleven.
_DIGITS_TO_RE = re.compile(r"(?<![\d:.])(\d{1,2})\s+to\s+\d{1,2}(?![\d:.])", re.IGNORECASE)
_LENGTH_OPENER_RE = re.compile(r"\bfor\s+(?:an?\s+)?$", re.IGNORECASE)


def _inside(entity: dict[str, Any], others: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entities of `others` that lie wholly inside `entity`."""
    return [o for o in others if entity["start"] <= o["start"] and o["end"] <= entity["end"]]


# The clock right before a range's dash or word ([range_connectors]): "10a-1p", "11 to 1pm".
_DASH_START_RE = re.compile(  # "9:30 - 11", "9h30 - 11h00", "10pm-1am"
    r"(?<![\d:./h])(\d{1,2})(?:[:h](\d{2})|h)?[ \t]*(?:[ap]\.?m?\.?)?[ \t]*"
    rf"(?:{data.alternation('times', 'range_connectors')})[ \t]*\d",
    re.IGNORECASE,
)


def _written_start(body: str) -> tuple[int, int] | None:
    """The hour and minute an interval's words write first: after "at", "from", "between"
    ([range_openers]), else right before its dash."""
    written = _AT_HOUR_RE.search(body)
    if written:
        return int(written.group(1)), 0
    dashed = _DASH_START_RE.search(body)
    if dashed is None or lang.MONTH_BEFORE_RE.search(body, 0, dashed.start()):
        return None  # "Dec 8 - 10am": a day, then the clock
    return int(dashed.group(1)), int(dashed.group(2) or 0)


def _other_hour(value: dict[str, Any], body: str) -> bool:
    """Whether an interval starts at another hour than the one its words write first."""
    if lang.ZONE_WRITTEN_RE.search(body):
        return False
    written = _written_start(body)
    lower = value.get("from") or {}
    begins = lower.get("value", "") if lower.get("grain") in ("hour", "minute") else ""
    return bool(written and begins) and written[0] % 12 != int(begins[11:13]) % 12


def _clock_written(body: str) -> bool:
    """Whether words Duckling read as a time write a clock in digits ("at 10", "9:00", "3pm",
    "9h"), not only a day ("Tuesday 12/8")."""
    return bool(_AT_HOUR_RE.search(body) or re.search(r"\d\s*(?::|[ap]\.?m\b|h\b)", body, re.I))


def _overnight(value: dict[str, Any]) -> bool:
    """Whether an interval's two ends fall on different days, as written."""
    ends = [(value.get(k) or {}).get("value", "") for k in ("from", "to")]
    return all(ends) and ends[0][:10] != ends[1][:10]


_WEEKDAY_LEFT_RE = re.compile(rf"\b(?:{lang.DAY_NAMES})\b\.?,?[ \t]*$", re.IGNORECASE)
_CLOCK_RIGHT_RE = re.compile(
    r",?[ \t]*(?:[^\W\d_]{1,5}[ \t]+)?\d{1,2}(?:[:h.]\d{2}|h)", re.IGNORECASE
)
# A day and month in numbers with no year ("17/12"), as the languages after English write it.
_DAY_MONTH_RE = re.compile(r"(?<![\d/.:,])(?P<day>[0-3]?\d)/(?P<month>[01]?\d)(?![/.:]?\d)")


def _day_month_numbers(
    clean: str, entities: list[dict[str, Any]], ref: datetime
) -> list[dict[str, Any]]:
    """A day-first "17/12" no entity covers, as the next such date: some of Duckling's
    grammars read it ("jeudi 17/12"), Portuguese's does not."""
    added = []
    for match in _DAY_MONTH_RE.finditer(clean):
        if any(e["start"] < match.end() and match.start() < e["end"] for e in entities):
            continue
        before = clean[max(0, match.start() - 16) : match.start()]
        if not (_WEEKDAY_LEFT_RE.search(before) or _CLOCK_RIGHT_RE.match(clean, match.end())):
            continue  # "o placar foi 3/2": a date only beside a weekday or a clock
        day, month = int(match.group("day")), int(match.group("month"))
        for year in (ref.year, ref.year + 1):
            try:
                when = datetime(year, month, day, tzinfo=ref.tzinfo)
            except ValueError:
                break
            if when.date() >= ref.date():
                value = {"type": "value", "value": when.isoformat(), "grain": "day"}
                added.append({"dim": "time", "start": match.start(), "end": match.end(),
                              "body": match.group(0), "value": value})  # fmt: skip
                break
    return sorted(entities + added, key=lambda e: e["start"])


def _holiday_beside_a_date(clean: str, entity: dict[str, Any]) -> bool:
    """Whether `entity` is a holiday and its text states a date of the month elsewhere."""
    if entity["dim"] != "time" or not entity["value"].get("holidayBeta"):
        return False
    before, after = clean[: entity["start"]], clean[entity["end"] :]
    return bool(lang.DAY_OF_MONTH_RE.search(before) or lang.DAY_OF_MONTH_RE.search(after))


def _misread_words(
    clean: str,
    entities: list[dict[str, Any]],
    lengths: Callable[[], list[dict[str, Any]]],
    code: str,
) -> str:
    """`clean` with blanks over the words that made Duckling misread a plain day and clock:
    - a holiday it found in a common word ("lunch with my boss Friday at 1" is Boss's Day,
      October next year): the holiday's words when the text does not name the whole holiday;
    - a range nobody said, in an interval whose words hold no range connector: one over a
      night ("tonight at 8:00 pm" is yesterday 20:00 to today 13:00), or one that starts at
      another hour than the clock written ("at 10 for 2 hours tomorrow" is 00:00 to 01:00).
      The length inside it is blanked ("at 10 tomorrow" reads right), else its "at"
      ("tonight 8:00 pm" does). `lengths` reads Duckling's durations, only when needed."""
    spans: list[tuple[int, int]] = []
    for entity in entities:
        if entity["dim"] != "time":
            continue
        value, body = entity["value"], clean[entity["start"] : entity["end"]]
        holiday = value.get("holidayBeta")
        if holiday:
            named = set(re.findall(r"[^\W\d_]+", holiday.casefold())) - _NOT_HOLIDAY_WORDS
            if _letters(holiday) not in _letters(body):  # "Mothers day" names Mother's Day
                for word in re.finditer(r"[^\W\d_]+", body):
                    if word.group().casefold() in named:
                        spans.append((entity["start"] + word.start(), entity["start"] + word.end()))
        elif (
            value.get("type") == "interval"
            and not _range_words(code).search(body)
            and not lang.DEADLINE_RE.match(body)  # "by 5pm": its own reading below
            and (_overnight(value) or _other_hour(value, body))
        ):
            inside = _inside(entity, lengths())
            if inside and not _other_hour(value, body):
                continue  # "at 7pm for 4 hours" may end after midnight: read right
            for length in inside:
                opener = _LENGTH_OPENER_RE.search(clean, entity["start"], length["start"])
                spans.append((opener.start() if opener else length["start"], length["end"]))
            if not inside:
                for word in re.finditer(r"\bat\b", body, re.IGNORECASE):
                    spans.append((entity["start"] + word.start(), entity["start"] + word.end()))
        elif value.get("type") == "value" and (to := _DIGITS_TO_RE.search(body)):
            minute = str(value.get("value") or "")[14:16]
            if minute.isdigit() and int(minute) == (60 - int(to.group(1))) % 60:
                word = to.start() + to.group(0).lower().index("to", len(to.group(1)))
                at = entity["start"] + word
                spans.append((at, at + 2))  # read again as hours, or as no clock at all
    for lo, hi in spans:
        clean = clean[:lo] + " " * (hi - lo) + clean[hi:]
    return clean


_CLAUSE_END_RE = re.compile(r"[,.;!?\n]")
_PAIR_FIRST_RE = re.compile(r"(?P<a>\d{1,2})[ \t]*[-–—][ \t]*(?P<b>\d{1,2})(?=[ \t])")


def _far_pairs(clean: str, entities: list[dict[str, Any]], ref: datetime) -> list[tuple[int, int]]:
    """The spans of dashed pairs that Duckling took for a month and day months away, or past,
    while the rest of the clause says its own day and clock: "meet at the 7-11 tonight at 8"
    (11 July next year), "team of 5-6 tonight at 7". The pair names a place or counts; the
    words after it are the time. A near date stands ("12-4 friday at 3"), and so does a far
    one on the weekday said after it ("the tournament is 4-10 saturday at 8am")."""
    spans: list[tuple[int, int]] = []
    for entity in entities:
        said = _PAIR_FIRST_RE.match(clean, entity["start"])
        value = entity["value"].get("value") if entity["dim"] == "time" else None
        if said is None or said.end() > entity["end"] or not isinstance(value, str):
            continue
        clause = _CLAUSE_END_RE.search(clean, said.end())
        rest = clean[said.end() : clause.start() if clause else len(clean)]
        try:
            when = datetime.fromisoformat(value)
        except ValueError:  # "in 2014 BC": no year Python has; read on as it is
            continue
        pair = {(int(said.group("a")), int(said.group("b")))}
        named = lang.WEEKDAY_RE.search(rest)
        if (
            pair & {(when.month, when.day), (when.day, when.month)}
            and not timedelta(0) <= when - ref < _NEAR_DATE
            and lang.states_date(rest)
            and lang.states_clock_time(rest)
            and not (named and lang.weekday_of(named.group(0)) == when.weekday())
        ):
            spans.append(said.span())
    return spans


def _as_written(entity: dict[str, Any], clean: str) -> dict[str, Any]:
    """`entity` with the first of Duckling's readings whose start is the hour written first
    ("tuesday between 10 and 2" reads 00:00 to 03:00 first, 10:00 to 15:00 second); as it is
    when none is, or the first already is."""
    value, body = entity.get("value") or {}, clean[entity["start"] : entity["end"]]
    if entity["dim"] != "time" or value.get("type") != "interval" or not _other_hour(value, body):
        return entity
    hour, minute = _written_start(body)  # type: ignore[misc]
    for reading in value.get("values", []):
        begins = (reading.get("from") or {}).get("value", "")
        if reading.get("type") == "interval" and begins and int(begins[11:13]) % 12 == hour % 12:
            rest = [r for r in value["values"] if r is not reading]
            return {**entity, "value": {**reading, "values": [reading, *rest]}}
    # none does ("10a-1p" is 00:00 to 14:00): the written start in the twelve hours before the
    # end that was read right
    ends = (value.get("to") or {}).get("value", "")
    if not ends or hour > 12 or minute > 59:
        return entity
    until = datetime.fromisoformat(ends)
    starts = []
    for h in (hour % 12, hour % 12 + 12):  # on the end's day: "8pm until 1am" stays open
        begin = until.replace(hour=h, minute=minute)
        if timedelta(0) < until - begin <= timedelta(hours=12):
            starts.append(begin)
    to = value["to"]
    if not starts:
        night = _night_from_the_day(body, until, hour, minute)
        if night is None:
            return entity
        starts, to = [night], {**to, "value": (until + timedelta(days=1)).isoformat()}
    begins = max(starts).isoformat()
    reading = {"type": "interval", "from": {**value["from"], "value": begins}, "to": to}
    return {**entity, "value": {**reading, "values": [reading]}}


# A day, then a start clock whose half of the day is written: "saturday 8pm to 1am", "Fri
# 22:00-02:00". Duckling puts the day on the end's hour.
_DAY_THEN_START_RE = re.compile(
    rf"^\W*(?:{lang.DAY_NAMES})\w*\.?,?(?:[ \t]+(?:night|evening))?[ \t]+(?:at[ \t]+|from[ \t]+)?"
    r"(?P<hour>\d{1,2})(?::\d{2})?(?P<mer>[ \t]*[ap]\.?m\b)?",
    re.IGNORECASE,
)


def _night_from_the_day(body: str, until: datetime, hour: int, minute: int) -> datetime | None:
    """The start of a range over midnight whose day is written before its start ("saturday
    8pm to 1am" starts on Saturday, at 20:00), or None: without a day before it, or a half of the
    day written for the start, the night it starts is open ("8pm until 1am Saturday")."""
    said = _DAY_THEN_START_RE.match(body)
    if said is None or int(said.group("hour")) != hour or hour > 23 or minute > 59:
        return None
    if said.group("mer"):
        hour = hour % 12 + (12 if "p" in said.group("mer").casefold() else 0)
    elif hour <= 12:
        return None
    begin = until.replace(hour=hour, minute=minute)
    return begin if begin > until else None


# A word, then a number: where a preposition ("al", "a") may have been read as a clock's "at".
_WORD_THEN_NUMBER_RE = re.compile(r"[^\W\d_]+[ \t]+(?=\d)")


def _wrong_start(entity: dict[str, Any], clean: str) -> bool:
    """A range whose start is another hour than the one written first ("from 10pm to 1am" is
    00:00 to 02:00 to Duckling): no reading of it can be trusted."""
    value, body = entity.get("value") or {}, clean[entity["start"] : entity["end"]]
    return (
        entity["dim"] == "time"
        and value.get("type") == "interval"
        and not lang.DEADLINE_RE.match(body)  # "by Friday at 5 pm" runs from now
        and _other_hour(value, body)
    )


# Letters a reading in the zone's language must add to the detected one's: weekday
# abbreviations ("do", "mer", "dim", "sam") are English words or parts of them.
ZONE_WORD_LETTERS = 4


def _said_in_words(mention: TimeMention) -> bool:
    """Whether a mention is more than a two-letter word: read in the language of the user's
    zone into a line detected as another, German finds Thursday in an English "can we do 3?"
    ("Do")."""
    return len(re.sub(r"[\W_]", "", mention.text)) > 2


def _moment_of_writing(mention: TimeMention, ref: datetime) -> bool:
    """Whether a thread's mention is the instant its message was written ("now", Italian "a
    che ora?" read as "ora"): no plan's time, and no day for the clocks said after it."""
    return (
        mention.grain == "second" and mention.end_value is None and mention.value is not None
        and abs(mention.value - ref) < timedelta(minutes=1)
    )  # fmt: skip


def _unread(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The times of a first reading that no time of a second reading overlaps."""
    return [
        e for e in first
        if e["dim"] == "time" and not any(
            a["dim"] == "time" and a["start"] < e["end"] and e["start"] < a["end"] for a in second
        )
    ]  # fmt: skip


def _starts_inside_a_number(clean: str, start: int) -> bool:
    """A reading that begins inside another number is a fragment: the "30 in the evening" of
    "5:30 in the evening", which Duckling also reads as the evening of 2030."""
    before = clean[max(0, start - 2) : start]
    return (
        start < len(clean)
        and clean[start].isdigit()
        and (
            before[-1:].isdigit()
            or (len(before) == 2 and before[0].isdigit() and before[1] in ":.")
        )
    )


@dataclass(frozen=True)
class TimeMention:
    """One time expression found in the user's input, resolved in the user's zone."""

    text: str
    start: int
    end: int
    kind: Kind
    value: datetime | None
    end_value: datetime | None
    has_clock_time: bool
    all_day: bool
    vague: str | None
    language: str
    source: str
    grain: str | None = None  # Duckling's grain of `value`: "minute", "hour", "day", "week" ...
    duration: timedelta | None = None  # for kind "duration" ("for 90 minutes")
    # Other starts the same words allow ("at 8": 20:00 too; "next Friday": a week earlier):
    # such a mention proposes a time but never grounds a created event on its own.
    alternatives: tuple[datetime, ...] = ()
    # A bare hour read as a time only for the words around it, that change or answer a time
    # ("make it 9", "9 better?", "ok 9"): it reads in the half of the day of the clock before.
    answers: bool = False
    # Said in the zone of someone whose zone the input never names ("9am my time" from a
    # contact): read in the user's zone, it grounds nothing and the gate asks.
    zone_unsaid: bool = False
    # A duration said as a move of the plan on the table ("30 min later", "push it back an
    # hour"): the signed amount. Only stated start + stated amount may ground such a start.
    shift: timedelta | None = None
    # A day said as the plan's new day that keeps its clock ("same time but tuesday?",
    # "thursday instead?", acts.toml [same_time] [instead]): it may carry a clock said before.
    keeps_clock: bool = False
    # The place in time of the message that said it (0 oldest; -1 for the request), which in
    # a reply chain runs against the text's order: the quoted original sits below the reply.
    said_order: int = -1

    def __post_init__(self) -> None:
        # another reading is another start: never the value itself, never twice ("Tue Dec 8 -
        # 10am" asked "10:00 or 10:00?")
        others = tuple(a for a in dict.fromkeys(self.alternatives) if a != self.value)
        if others != self.alternatives:
            object.__setattr__(self, "alternatives", others)


@dataclass(frozen=True)
class Speaker:
    """Who said a text, for the zone of "9am my time": the user, or someone whose zone a
    label names ("Aiko (Tokyo):") or nothing does (zone None)."""

    is_user: bool = True
    zone: str | None = None
    # The zone the message says all its times are in ("all times in this email are IST"): a
    # time said with no zone of its own is read there, not in the user's zone.
    times_in: tzinfo | None = None
    # The message says its times are local to places in another zone than the user's ("All
    # times are local", a flight from New York): which zone each is in, nothing says.
    times_unclear: bool = False


USER = Speaker()


# Words that fix am or pm: "8pm", "8 a.m.", "noon", a 24-hour "08:30", "19h", "um 8 Uhr".
# A clock of twelve, which Duckling sometimes reads as midnight alone ("lunch at 12 tomorrow");
# a twelve in a date ("on the 12th at 0:30") is none.
_TWELVE_RE = re.compile(r"(?:\bat|@)\s*12(?::[0-5]\d)?(?![\d/.-]|st|nd|rd|th)", re.IGNORECASE)
# "until 11am" after a delay's words (times.toml [delayed_until]): the bound is the new start.
_UNTIL = data.alternation("times", "until_words")
_UNTIL_RE = re.compile(rf"(?:{_UNTIL})\b", re.IGNORECASE)
_DELAYED_UNTIL_RE = re.compile(
    rf"{data.phrase_pattern('times', 'delayed_until').pattern}\s+(?:{_UNTIL})$", re.IGNORECASE
)
_MERIDIEM_RE = re.compile(
    r"\b[ap]\.?\s?m\b\.?|\d\s*[ap]\.?\s?m\b|\b(?:noon|midnight|uhr)\b|\d\s*h(?:\d{2})?\b|\d{2}[:.h]\d{2}"
    r"|(?<![\d:.])(?:1[3-9]|2[0-3])(?!\d)",  # an hour past 12, not the minutes of "7:15"
    re.IGNORECASE,
)


# How far ahead of this machine's clock a stamp may be and still be "just now" (another
# device's clock, a paste made within the minute), not the same time a day or a year ago.
STAMP_SKEW = timedelta(minutes=15)
# How far back a pasted chat's stamps go before a reading of them is unlikely: a month.
RECENT_STAMP = timedelta(days=31)
# A stamp's own "today": it is never another day, whatever its clock says.
_TODAY_RE = re.compile(rf"\b(?:{data.alternation('times', 'today_words')})\b", re.IGNORECASE)


def _across_commas(clean: str, entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Without the readings Duckling makes across a list's commas ("Thu 26 Nov 11:00, Fri 27
    Nov 15:00" also held "26 Nov 11:00, Fri 27 Nov" in 2027): a time with a comma inside that
    overlaps a time read before it. ("lunch Wednesday" and "Wednesday at 11" both stay.)"""
    kept: list[dict[str, Any]] = []
    for entity in sorted(entities, key=lambda e: (e["start"], -e["end"])):
        if (
            entity["dim"] == "time"
            and "," in clean[entity["start"] : entity["end"]]
            and any(
                k["dim"] == "time" and k["start"] < entity["end"] and entity["start"] < k["end"]
                for k in kept
            )
        ):
            continue
        kept.append(entity)
    return kept


def _counts_of_durations(clean: str, entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ "by 30 minutes": Duckling also reads "by 30" as the year 2030. A time whose last number
    is the count of a duration running on past it is that duration, not a time; so is one
    that holds a duration said as a move ("push back by 1h" is no 01:00)."""
    durations = [e for e in entities if e["dim"] == "duration"]

    def a_count(e: dict[str, Any], d: dict[str, Any]) -> bool:
        if e["start"] < d["start"] < e["end"] < d["end"]:
            return True
        # a time holding a length is that length ("1h later", "at 3pm (1h)"), unless "for"
        # opens it after the start ("at 10 for 2 hours")
        return (
            e["start"] <= d["start"]
            and d["end"] <= e["end"]
            and not _LENGTH_OPENER_RE.search(clean, e["start"], d["start"])
        )

    return [e for e in entities if e["dim"] != "time" or not any(a_count(e, d) for d in durations)]


def _said_as_a_move(clean: str, entity: dict[str, Any]) -> bool:
    """Whether a time's number follows words that move a plan by an amount ("push it back by
    1h", which Duckling reads as by one o'clock)."""
    if entity["dim"] != "time":
        return False
    digit = re.search(r"\d", clean[entity["start"] : entity["end"]])
    return bool(digit) and _shift_before(clean, entity["start"] + digit.start())[0] != 0


# "2h" in English text is two hours ("block 2h tomorrow at 9"); "19h", "à 9h" are clocks.
_HOURS_WRITTEN_RE = re.compile(r"(?<![\d:.])(?:[1-9]|1[0-2])\s?h(?![\w:.])", re.IGNORECASE)


def _a_length(clean: str, entity: dict[str, Any], code: str) -> bool:
    """Whether a time Duckling read is a length: said as a move ("push it back by 1h"), or a
    few hours written "2h" in an English line with no clock word before it."""
    if _said_as_a_move(clean, entity):
        return True
    if code != "en" or entity["dim"] != "time":
        return False
    written = _HOURS_WRITTEN_RE.search(clean, entity["start"], entity["end"])
    return written is not None and not lang.CLOCK_PREPOSITION_BEFORE_RE.search(
        clean[: written.start()]
    )


def _moves_as_lengths(
    clean: str, entities: list[dict[str, Any]], lengths: list[dict[str, Any]], code: str
) -> list[dict[str, Any]]:
    """`entities` with each time that is a length replaced by the durations read inside it."""
    kept: list[dict[str, Any]] = []
    for entity in entities:
        inside = _inside(entity, lengths)
        kept.extend(inside if inside and _a_length(clean, entity, code) else [entity])
    return kept


def _shift_before(clean: str, at: int) -> tuple[int, int]:
    """+1 or -1 when the words ending at `at` move a plan later or earlier ("push it back",
    "bring it forward by"), and where those words start; (0, at) when they do not."""
    before = fold_accents(clean[max(0, at - 40) : at])
    for pattern, sign in ((lang.SHIFT_LATER_BEFORE_RE, 1), (lang.SHIFT_EARLIER_BEFORE_RE, -1)):
        found = pattern.search(before)
        if found:
            return sign, at - len(before) + found.start()
    return 0, at


def _shift_after(clean: str, at: int) -> tuple[int, int]:
    """+1 or -1 when the words from `at` move a plan ("later", "earlier") and end its clause
    but for a word or two ("30 min later then?"), and where they end; (0, at) otherwise."""
    after = clean[at:]
    for pattern, sign in ((lang.SHIFT_LATER_AFTER_RE, 1), (lang.SHIFT_EARLIER_AFTER_RE, -1)):
        found = pattern.match(after, len(after) - len(after.lstrip()))
        if found:
            rest = lang.SHIFT_CLAUSE_END_RE.split(after[found.end() :], maxsplit=1)[0]
            return (sign, at + found.end()) if len(rest.split()) <= 2 else (0, at)
    return 0, at


def _shifted(text: str, clean: str, mention: TimeMention) -> TimeMention:
    """A duration said as a move ("30 min later", "bring it forward by 30 minutes") carries its
    signed amount, and its span takes in the words that make it one; any other duration ("it
    takes 30 min, later I ...") is left as it is."""
    if mention.kind != "duration" or mention.duration is None:
        return mention
    sign, start = _shift_before(clean, mention.start)
    end = mention.end
    if not sign:
        sign, end = _shift_after(clean, mention.end)
    if not sign:
        return mention
    return replace(
        mention, text=text[start:end], start=start, end=end, shift=sign * mention.duration
    )


def _deadline_open(entity: dict[str, Any], ref: datetime) -> dict[str, Any]:
    """Duckling reads "by Friday at 5pm" as now..Friday 17:00. Said of an event ("the game
    is on Monday by 5:30 pm") or a task ("finish it by Friday at 5 pm"), the time stated is
    the end; "now" was never said. Such an interval becomes its end, as a single time."""
    value = entity.get("value") or {}
    lower, upper = value.get("from"), value.get("to")
    if value.get("type") != "interval" or not lower or not upper or "value" not in lower:
        return entity
    if not lang.DEADLINE_RE.match(str(entity.get("body", ""))):
        return entity
    try:
        begins = datetime.fromisoformat(lower["value"])
    except ValueError:
        return entity
    if abs(begins - ref) >= timedelta(minutes=1):
        return entity
    grain = lower.get("grain") if lower.get("grain") in ("minute", "hour") else "minute"
    if not lang.states_clock_time(lang.DAY_OF_MONTH_RE.sub(" ", str(entity.get("body", "")))):
        grain = "day"  # "collect by Wednesday 2 December": a day, no clock time
    return {**entity, "value": {"type": "value", "value": upper["value"], "grain": grain}}


# "the 14th", "on the 3rd": a day of the month with no month of its own.
_ORDINAL_DAY_RE = re.compile(r"\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b", re.IGNORECASE)
_MONTH_NAMED_RE = re.compile(rf"\b{lang.MONTHS}|\d{{1,2}}[/.]\d{{1,2}}", re.IGNORECASE)


def _in_the_month_said(mentions: list[TimeMention]) -> list[TimeMention]:
    """A message's "on the 14th" in the month its other dates name ("the offsite is Jan 14-15
    ... shuttle leaves at 7:30am on the 14th"): Duckling takes the coming 14th, a month early.
    Only after the month is named, when the message's dates name one month, and only later."""
    named = [m for m in mentions if m.value is not None and _MONTH_NAMED_RE.search(m.text)]
    months = {(m.value.year, m.value.month) for m in named if m.value is not None}
    if len(months) != 1:
        return mentions
    (year, month) = months.pop()
    first = min(m.start for m in named)
    out = []
    for mention in mentions:
        day = _ORDINAL_DAY_RE.search(mention.text)
        value = mention.value
        if (
            day
            and value is not None
            and mention.start > first
            and not _MONTH_NAMED_RE.search(mention.text)
            and (value.year, value.month) != (year, month)
        ):
            try:
                moved = value.replace(year=year, month=month, day=int(day.group(1)))
            except ValueError:
                moved = value
            if moved > value:
                end = mention.end_value + (moved - value) if mention.end_value else None
                mention = replace(mention, value=moved, end_value=end, alternatives=())
        out.append(mention)
    return out


_DAY_CLOCK_JOINER_RE = re.compile(
    rf"[ \t]+(?:{data.alternation('times', 'day_clock_joiners')})[ \t]+", re.IGNORECASE
)


def _day_then_clock(entity: dict[str, Any]) -> dict[str, Any]:
    """Duckling reads a listing's "Tuesday 12/8 - 9:00 am" and "move it tomorrow to 9:30" as a
    range from midnight. A day, a dash or "to", and a clock are one start (times.toml
    [day_clock_joiners]): a range needs a clock at both ends."""
    value = entity.get("value") or {}
    lower, upper = value.get("from"), value.get("to")
    if value.get("type") != "interval" or not lower or not upper or "value" not in upper:
        return entity
    parts = _DAY_CLOCK_JOINER_RE.split(str(entity.get("body", "")))
    if len(parts) != 2 or not lang.states_date(parts[0]) or lang.states_date(parts[1]):
        return entity
    if _clock_written(parts[0]) or not _clock_written(parts[1]):
        return entity
    grain = upper.get("grain", "minute")
    try:
        start = datetime.fromisoformat(upper["value"]) - _SUBDAY.get(grain, timedelta(0))
    except ValueError:
        return entity
    return {**entity, "value": {"type": "value", "value": start.isoformat(), "grain": grain}}


def _start_only(entity: dict[str, Any], clean: str) -> dict[str, Any]:
    """Duckling reads "lunch from 12 tomorrow" as an interval with no end, the meal part of it.
    Asked for so, that is a start ("after 5pm" stays a bound, "I'm working from 9am" a window):
    the interval becomes its start."""
    value = entity.get("value") or {}
    lower = value.get("from")
    if value.get("type") != "interval" or not lower or value.get("to") or "value" not in lower:
        return entity
    body = clean[entity["start"] : entity["end"]]
    if lower.get("grain") not in ("minute", "hour") or not lang.FROM_WORD_RE.search(body):
        return entity
    if lang.FROM_WORD_RE.match(body):
        return entity  # "he's in meetings from 9am": only a meal read with it starts there
    sentence = re.split(r"[.!?\n]", clean[: entity["start"]])[-1] + body
    if lang.NOT_A_START_RE.search(sentence):
        return entity  # "I'm working from 9am", "the dentist moved from 3pm": no start
    values = [
        {"type": "value", "value": v["from"]["value"], "grain": v["from"].get("grain", "hour")}
        for v in value.get("values", [value])
        if "value" in (v.get("from") or {}) and not v.get("to")
    ]
    return {**entity, "value": {**values[0], "values": values}} if values else entity


def _zoneinfo_dir() -> str:
    """The zone database Duckling reads: the system's, else the tzdata package's copy."""
    try:
        return zones.zoneinfo_dir()
    except FileNotFoundError as exc:
        raise TimeParseError(str(exc)) from exc


# Wall-clock seconds one Duckling call may take in a worker (tools/worker.py): a real message's
# line takes milliseconds; a line built to stall it is stopped here (issue 40).
DUCKLING_SECONDS = 3.0

# Control characters (tab, newline, CR kept) and lone surrogates: what the native parser cannot
# take; see _DucklingEngine.parse.
_NATIVE_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
# Per language, its words that Duckling reads as zones (times.toml [zone_lookalikes]), in lower
# case: blanked before Duckling reads the text, offsets kept.
_ZONE_LOOKALIKES = {
    code: re.compile(rf"\b(?:{'|'.join(sorted(data.words('times', 'zone_lookalikes', code)))})\b")
    for code, entry in data.table("times")["zone_lookalikes"].items()
    if entry  # a language none of whose words Duckling misreads has nothing to blank
}
# A number alone that can be an hour ("8", "8:30"), not part of a longer number or a code.
_BARE_HOUR_RE = re.compile(r"(?<![\w.,:/])(?:[01]?\d|2[0-4])(?::[0-5]\d)?(?![\w.,:/%])")


class _DucklingEngine:
    """Duckling with its zone database and locales loaded once per process."""

    def __init__(self) -> None:
        import duckling

        self._duckling = duckling
        self.zoneinfo_dir = _zoneinfo_dir()
        self._tzdb = duckling.load_time_zones(self.zoneinfo_dir)
        self._dims = duckling.parse_dimensions(["time", "duration"])
        self._length_dims = duckling.parse_dimensions(["duration"])
        self._locales: dict[tuple[str, str | None], Any] = {}

    def _locale(self, language: str, locale: str | None) -> Any:
        key = (language, locale)
        if key not in self._locales:
            default = self._duckling.default_locale_lang(
                self._duckling.parse_lang(language.upper())
            )
            self._locales[key] = (
                self._duckling.parse_locale(locale.upper(), default) if locale else default
            )
        return self._locales[key]

    def parse(
        self,
        text: str,
        *,
        tz: str,
        ref: datetime,
        language: str,
        locale: str | None,
        latent: bool = False,
        lengths_only: bool = False,
    ) -> list[dict[str, Any]]:
        """Duckling's entities for `text`, anchored at `ref` in `tz` (only its durations, where
        `lengths_only`: "by 1h" is also one o'clock to it).

        A NUL made Duckling's Rust code panic (and print the text to stderr from its panic
        hook, before Python could catch anything); a lone surrogate cannot cross into Rust.
        Both become spaces of the same length, so offsets still point into `text`. A native
        failure that is not an Exception (pyo3's PanicException) becomes a TimeParseError.
        """
        text = _NATIVE_UNSAFE.sub(" ", text)
        if language in _ZONE_LOOKALIKES:
            text = _ZONE_LOOKALIKES[language].sub(lambda m: " " * len(m.group()), text)
        pool = worker.shared_pool()
        if pool is not None:  # Duckling can spin on one line for minutes: a killable worker
            try:
                return pool.run(
                    _parse_in_worker, text, tz=tz, timestamp=int(ref.timestamp()),
                    language=language, locale=locale, latent=latent, lengths_only=lengths_only,
                    seconds=DUCKLING_SECONDS, what="the times in this text",
                )  # fmt: skip
            except (worker.WorkerLimitError, worker.WorkerCrashError) as error:
                raise TimeParseError(
                    f"{error}. Paste a shorter part of the thread (the messages that matter)."
                ) from None
        return self.parse_here(
            text, tz=tz, timestamp=int(ref.timestamp()), language=language, locale=locale,
            latent=latent, lengths_only=lengths_only,
        )  # fmt: skip

    def parse_here(
        self,
        text: str,
        *,
        tz: str,
        timestamp: int,
        language: str,
        locale: str | None,
        latent: bool,
        lengths_only: bool,
    ) -> list[dict[str, Any]]:
        """`parse` in this process, on text already made safe for the native code."""
        try:
            ref_time = self._duckling.parse_ref_time(self._tzdb, tz, timestamp)
            context = self._duckling.Context(ref_time, self._locale(language, locale))
            dims = self._length_dims if lengths_only else self._dims
            return self._duckling.parse(text, context, dims, latent)
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException as error:  # pyo3 PanicException derives from BaseException
            log.warning("Duckling failed: %s", type(error).__name__)  # never the text itself
            raise TimeParseError(
                "the time parser failed on this text; remove unusual characters and try again"
            ) from None


@once
def _engine() -> _DucklingEngine:
    return _DucklingEngine()


def warm_engine() -> None:
    """Load Duckling (a worker calls this once at start, before its memory is capped)."""
    _engine()


def _parse_in_worker(text: str, **options: Any) -> list[dict[str, Any]]:
    """A worker's half of _DucklingEngine.parse."""
    return _engine().parse_here(text, **options)


# A weekday right before a day of the month: "Friday the 12th", "Fri, 12 December" (a bare
# number must carry an ordinal or a month, so "Friday 7 pm" is no day).
_WEEKDAY_NUMBER_RE = re.compile(
    rf"(?<![\w-])(?P<day>{lang.DAY_NAMES}),?\s+(?:the\s+)?(?P<n>[1-9]|[12]\d|3[01])"
    rf"(?:(?:st|nd|rd|th)\b(?P<m1>\s+(?:of\s+)?{lang.MONTHS})?|\.?\s+(?P<m2>{lang.MONTHS}))",
    re.IGNORECASE,
)

# ... and as US dates write it, the month first: "Saturday Dec 13", "Sat, December 13th".
_WEEKDAY_MONTH_NUMBER_RE = re.compile(
    rf"(?<![\w-])(?P<day>{lang.DAY_NAMES}),?\s+(?P<m>{lang.MONTHS})\.?\s+"
    r"(?P<n>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?\b",
    re.IGNORECASE,
)


# A weekday and a month with no day of the month: "Tuesday, April", "a Tuesday in April".
_WEEKDAY_MONTH_RE = re.compile(
    rf"(?<![\w-])(?:{lang.DAY_NAMES})\b.{{0,12}}?\b(?:{lang.MONTHS})\b", re.IGNORECASE
)
# (a German or Nordic ordinal's dot is the day's own: "Dienstag, 8. Dezember"; "7.30" a clock)
_DAY_NUMBER_RE = re.compile(
    r"(?<![\d:.])(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?"
    r"(?![\d:]|\.\d|\s*(?:[ap]\.?m|h\b|o'clock))",
    re.IGNORECASE,
)


_PLURAL_BEFORE_RE = re.compile(
    rf"{lang.PLURAL_WEEKDAY_RE.pattern}[ \t]*(?:(?:{lang.CLOCK_PREPOSITIONS})[ \t]*)?$",
    re.IGNORECASE,
)


def _repeating(clean: str, mention: TimeMention) -> TimeMention:
    """A clock said with a word that repeats it ("standup every day at 9", "weekdays at 10 for
    30 minutes", "Saturdays 7 AM") names no one day: vague, so the turn asks instead of placing
    it once."""
    if not mention.has_clock_time:
        return mention
    before = re.split(r"[.!?;\n]", clean[: mention.start])[-1][-30:]
    clause = before + clean[mention.start : mention.end]
    # (a plural weekday right before the clock or in it: "Saturdays 7 AM", "los sábados a las
    # 10"; not "Fridays are bad, Thursday 3pm?")
    plural = lang.PLURAL_WEEKDAY_RE.search(mention.text) or _PLURAL_BEFORE_RE.search(before)
    if not (lang.RECURRENCE_RE.search(clause) or plural):
        return mention
    return replace(
        mention, kind="vague", has_clock_time=False, all_day=False, vague=mention.text.lower()
    )


# A clock with the texting and calendar shorthand for the morning: "6a", "6:30a" (Duckling
# reads "7p" as 19:00 but leaves "6a" open between 06:00 and 18:00).
_MORNING_SHORTHAND_RE = re.compile(r"(?<![\w:.])(\d{1,2})(?::(\d{2}))?a(?![\w'’])", re.IGNORECASE)


def _shorthand_half(mention: TimeMention, zone: ZoneInfo) -> TimeMention:
    """`mention` read in the morning when its clock is written with that shorthand."""
    said = _MORNING_SHORTHAND_RE.search(mention.text)
    if said is None or not mention.alternatives or mention.value is None:
        return mention
    hour, minute = int(said.group(1)) % 12, int(said.group(2) or 0)
    morning = [
        r
        for r in (mention.value, *mention.alternatives)
        if (r.astimezone(zone).hour, r.astimezone(zone).minute) == (hour, minute)
    ]
    return replace(mention, value=morning[0], alternatives=()) if len(morning) == 1 else mention


def _week_shift(clean: str, mention: TimeMention, ref: datetime) -> TimeMention:
    """A later week said with the same time ("same time next week?", "même heure la semaine
    prochaine"): the plan moved by whole weeks, its weekday and clock kept."""
    if mention.grain != "week" or mention.value is None:
        return mention
    # the same time said right beside the week ("same time next week?"), or with a move's verb
    # ("push to next week? same time"); "at the same time next week" is someone else's plan
    beside = re.search(rf"(?:{lang.SAME_TIME_MOVE_RE.pattern})\W{{0,3}}$", clean[: mention.start])
    if not (beside or (lang.SAME_TIME_MOVE_RE.search(clean) and lang.MOVE_VERB_RE.search(clean))):
        return mention
    this_week = ref.date() - timedelta(days=ref.weekday())
    weeks = (mention.value.astimezone(ref.tzinfo).date() - this_week).days // 7
    if weeks <= 0:
        return mention
    amount = timedelta(weeks=weeks)
    return replace(mention, kind="duration", value=None, duration=amount, shift=amount)


def _no_day_in_month(mention: TimeMention) -> TimeMention:
    """ "7 PM on Tuesday, April": Duckling picks the first Tuesday of April, a day nobody said.
    With no day number the words name any Tuesday of that month: a vague time, asked about."""
    if mention.value is None or mention.kind not in ("date", "datetime"):
        return mention
    if not _WEEKDAY_MONTH_RE.search(mention.text) or _DAY_NUMBER_RE.search(mention.text):
        return mention
    return replace(mention, kind="vague", has_clock_time=False, all_day=False, vague="month")


class TimeParser:
    """Find and resolve the time expressions of one user's input, at `now` in zone `tz`."""

    def __init__(self, *, tz: str, now: datetime, locale: str | None = None) -> None:
        try:
            self.zone = ZoneInfo(tz)
        except (ZoneInfoNotFoundError, ValueError) as error:
            raise TimeParseError(
                f"Unknown time zone {tz!r}; use an IANA name like Europe/Berlin"
            ) from error
        if now.tzinfo is None:
            raise TimeParseError(
                "`now` has no zone; pass an aware datetime (e.g. --now with an offset)"
            )
        if locale is not None and not _LOCALE_RE.fullmatch(locale):
            raise TimeParseError(f"Locale {locale!r} is not like en_US or en_IE")
        self.tz = tz
        self.now = now.astimezone(self.zone)
        self._engine = _engine()
        self.locale = locale or lang.locale_for_zone(tz, self._engine.zoneinfo_dir)
        self.zone_language = lang.language_of_zone(tz, self._engine.zoneinfo_dir)

    # ------------------------------------------------------------------ public API
    def parse(
        self,
        text: str,
        *,
        source: str = "request",
        sent_at: datetime | None = None,
        language: str | None = None,
        context: Sequence[str] = (),
        speaker: Speaker = USER,
        changes: bool = False,
    ) -> list[TimeMention]:
        """Every time expression in `text`; relative ones anchor at `sent_at` when given.

        `changes` says the text was read as changing a time (the act model read a request as a
        move or a counter: "shift that to 8", "rück das auf 8"): a bare hour in it is that new
        time, in whatever words, as "make it 8" is by its own.

        `context` names the languages of the text around it (a thread's, detected once on the
        whole thread, likelier first) and replaces detection on `text` alone: a short line is
        where detection is least sure ("Pilates lundi 19h et mardi 19h ?" reads as English,
        "Fine, I can do that." as German, whose "Do" is Thursday).
        """
        if language is not None and language not in lang.TIME_LANGUAGES:
            raise TimeParseError(
                f"Language {language!r} is not one of {', '.join(lang.TIME_LANGUAGES)}"
            )
        if not text.strip():
            return []
        ref = (sent_at or self.now).astimezone(self.zone)
        # Same length, so offsets still point into `text`; lingua and Duckling are native code.
        t = text
        clean = lang.unwrap_zones(
            lang.respell_offsets(
                respell_minutes_to(
                    lang.blank_counts(
                        lang.blank_greetings(
                            lang.fix_typing_slips(lang.fix_ocr_digits(_NATIVE_UNSAFE.sub(" ", t)))
                        ),
                        ref.date(),
                    )
                )
            )
        )
        if language:
            candidates = [language]
        elif context:
            candidates = list(context)
        else:
            candidates = lang.detect_languages(clean)
        # More text read wins; on a tie the surrounding text's language does, else the default
        # one, since a short line ("7a", "tmrw at 3") is where detection is least sure.
        preferred = context[0] if context and not language else lang.DEFAULT_LANGUAGE
        best: list[TimeMention] = []
        best_key = (-1, False)
        for code in candidates:
            mentions = self._parse_language(
                text, clean, code, ref, source, speaker, changes=changes
            )
            key = (sum(m.end - m.start for m in mentions), code == preferred)
            if key > best_key:
                best, best_key = mentions, key
        zone = self.zone_language
        if zone is not None and zone not in candidates and not language and not context:
            best = self._in_zone_language(text, clean, zone, best, ref, source, speaker, changes)
        return join_ranges(
            text,
            [
                _no_day_in_month(
                    self._clashing_day(self._same_weekday(self._next_weekday(m, ref), ref), ref)
                )
                for m in best
                if source == "request" or not _moment_of_writing(m, ref)
            ],
        )

    def _in_zone_language(
        self,
        text: str,
        clean: str,
        code: str,
        best: list[TimeMention],
        ref: datetime,
        source: str,
        speaker: Speaker,
        changes: bool,
    ) -> list[TimeMention]:
        """`best`, or the reading of the text in the language of the user's zone where that
        reads more of the same: a line too short for its own language to be detected ("a las
        6 de la tarde" reads as German to lingua, and as nothing in English) is likely written
        in it. Only a reading that holds every time `best` read, and states a day or a clock
        beyond it in a word of ZONE_WORD_LETTERS or more (any, where `best` read no time),
        replaces it: German "dinner" is no time beside English "at 8", French "mer 3"
        (Wednesday the 3rd) not "3pm", and German "do 18:30" (Thursday) nor French "dim"
        (Sunday) in "dim sum 10:30" English ones."""
        read = self._parse_language(text, clean, code, ref, source, speaker, changes=changes)
        mentions = [
            m for m in read
            if _said_in_words(m) and m.value is not None
            and (m.has_clock_time or lang.states_date(m.text))
        ]  # fmt: skip
        timed = [m for m in best if m.value is not None]  # a meal word alone states no time
        holds_all = all(any(o.start <= m.start and m.end <= o.end for o in mentions) for m in timed)
        added = list(text)
        for m in timed:
            added[m.start : m.end] = " " * (m.end - m.start)
        letters = sum(ch.isalpha() for m in mentions for ch in added[m.start : m.end])
        adds_a_word = letters >= ZONE_WORD_LETTERS or not timed  # "às 18h" when English read none
        return mentions if mentions and holds_all and adds_a_word else best

    def _clashing_day(self, mention: TimeMention, ref: datetime) -> TimeMention:
        """ "Friday the 12th" when the coming 12th is a Saturday: Duckling finds a Friday 12th
        months away. The words meant the coming 12th or the Friday beside it, and the gate asks
        which. (`_weekday_day_numbers` handles the number Duckling drops; this, the one it
        keeps.)"""
        if mention.value is None or mention.kind not in ("datetime", "date"):
            return mention
        said = _WEEKDAY_NUMBER_RE.search(mention.text)  # "Friday the 12th", not "closest to"
        month_first = _WEEKDAY_MONTH_NUMBER_RE.search(mention.text)  # "Saturday Dec 13"
        if said is None and month_first is None:
            return mention
        weekday = lang.weekday_of((said or month_first).group("day"))
        value = mention.value.astimezone(self.zone)
        if weekday is None:
            return mention
        number = int((said or month_first).group("n"))
        # Duckling keeps a month that is named; the clash is then only in the year.
        named = month_first is not None or said.group("m1") or said.group("m2")  # type: ignore[union-attr]
        month = value.month if named else None
        coming: list[date] = []  # the next two days with that number (one, in that month)
        day = ref.astimezone(self.zone).date()
        while len(coming) < (1 if month else 2) and day - ref.date() < timedelta(days=400):
            if day.day == number and month in (None, day.month):
                coming.append(day)
            day += timedelta(days=1)
        if not coming or any(abs(value.date() - d) <= timedelta(days=1) for d in coming):
            # "Monday 13th" for next month's Monday the 13th: no clash; nor "Wed 9 Dec, 4:00 PM
            # GMT", which falls on Thursday the 10th in Sydney
            return mention
        day = coming[0]
        near = day + timedelta(days=(weekday - day.weekday() + 3) % 7 - 3)  # its weekday beside
        numbered = datetime.combine(day, value.timetz())
        beside = datetime.combine(near, value.timetz())
        return replace(mention, value=numbered, alternatives=(beside,))

    def _same_weekday(self, mention: TimeMention, ref: datetime) -> TimeMention:
        """ "Wed 2pm works" said on a Wednesday: today, or the Wednesday a week on (people say
        "today" for today), so both readings stand and the gate asks. "this Wednesday" and a
        date say which."""
        if (
            mention.value is None
            or mention.kind not in ("datetime", "date")
            or not lang.weekday_only(mention.text)
            or lang.THIS_RE.search(mention.text)
            or mention.value.astimezone(self.zone).date() != ref.astimezone(self.zone).date()
        ):
            return mention
        week = timedelta(days=7)
        later = (mention.value + week, *(o + week for o in mention.alternatives))
        return replace(mention, alternatives=(*mention.alternatives, *later))

    def _next_weekday(self, mention: TimeMention, ref: datetime) -> TimeMention:
        """ "next Friday" said on a Wednesday: this week's Friday or next week's, and nothing
        says which (English speakers split, Duckling's languages disagree), so both readings
        stand and the gate asks. Said on a Saturday, the coming Friday is next week's: one
        reading. "next week Friday" and "next Friday the 4th" say which."""
        match = lang.NEXT_WEEKDAY_RE.search(mention.text)
        weekday = lang.weekday_of(match.group("day") or match.group("before")) if match else None
        if (
            weekday is None
            or mention.value is None
            or mention.kind not in ("datetime", "date", "interval")
            or lang.WEEK_WORD_RE.search(mention.text)
            or lang.DAY_OF_MONTH_RE.search(mention.text)
        ):
            return mention
        today = ref.astimezone(self.zone).date()
        coming = today + timedelta(days=(weekday - today.weekday()) % 7 or 7)
        later = coming + timedelta(days=7)
        both = coming.isocalendar()[:2] == today.isocalendar()[:2]
        readings = [coming, later] if both else [coming]
        start = mention.value.astimezone(self.zone)
        day = start.date() if start.date() in readings else coming

        def on(new_day: date, value: datetime) -> datetime:
            local = value.astimezone(self.zone)
            moved = datetime.combine(local.date() + (new_day - start.date()), local.time())
            return moved.replace(tzinfo=self.zone)

        others = tuple(on(r, start) for r in readings if r != day)
        return replace(
            mention,
            value=on(day, start),
            end_value=on(day, mention.end_value) if mention.end_value is not None else None,
            alternatives=mention.alternatives + others,
        )

    def parse_input(
        self, request: str, thread: str = "", ocr: str = "", *, changes: bool = False
    ) -> list[TimeMention]:
        """Mentions in the whole user input; thread and OCR offsets are into their own text.
        `changes`: the request was read as changing a time (see `parse`)."""
        mentions = self.parse(request, source="request", changes=changes)
        for text, source in ((thread, "thread"), (ocr, "ocr")):
            if text.strip():
                mentions.extend(self._parse_thread(text, source, asked=request))
        return mentions

    def _on_the_lines_date(self, mentions: list[TimeMention]) -> list[TimeMention]:
        """A weekday said on a line that states the date of that weekday is that date: "Jan
        22: Dr. Imani Brooks, Friday, 3:30pm" is January 22nd, not the coming Friday, and
        "quinta-feira, 17/12" the 17th."""
        dated = [
            m.value.astimezone(self.zone).date() for m in mentions
            if m.value is not None and not m.alternatives
            and (lang.DAY_OF_MONTH_RE.search(m.text) or _DAY_MONTH_RE.search(m.text))
        ]  # fmt: skip
        out = []
        for mention in mentions:
            named = lang.WEEKDAY_RE.search(mention.text)
            weekday = lang.weekday_of(named.group(0)) if named else None
            day = next((d for d in dated if d.weekday() == weekday), None)
            if mention.value is not None and lang.weekday_only(mention.text) and day is not None:
                local = mention.value.astimezone(self.zone)
                value = datetime.combine(day, local.timetz())
                end = mention.end_value and value + (mention.end_value - mention.value)
                mention = replace(mention, value=value, end_value=end, alternatives=())
            out.append(mention)
        return out

    # ------------------------------------------------------------------ threads
    def _parse_thread(self, text: str, source: str, asked: str = "") -> list[TimeMention]:
        """Parse what each message says; its own stamp (metadata only) anchors its relative
        dates. Headers, receipts, dividers and separators are never parsed for event times.
        `asked`, the request, may name a side time or an agenda's item it wants."""
        sent_at: datetime | None = None
        whereabouts: dict[str, str | None] = {}  # speaker -> the zone they said they are in
        told: list[tuple[tuple[int, int, int], list[TimeMention]]] = []
        found = list(messages(text, screen=source == "ocr"))
        said = " ".join(text[ln.body_start : ln.body_end] for m in found for ln in m.lines)
        context = lang.detect_languages(_NATIVE_UNSAFE.sub(" ", said)) if said.strip() else []
        for message in found:
            if message.stamp:
                sent_at = self.stamp_time(message.stamp) or sent_at
            said: list[TimeMention] = []
            body = " ".join(text[ln.body_start : ln.body_end] for ln in message.lines)
            located = _LOCATED_IN_RE.search(body)
            if located and message.speaker and not is_self(message.speaker):
                place = zones.zone_for_place(located.group("place"), self._engine.zoneinfo_dir)
                whereabouts[message.speaker.casefold()] = place or whereabouts.get(
                    message.speaker.casefold()
                )
            speaker = replace(
                self._speaker(
                    message.speaker, speaker_note(text, message),
                    whereabouts.get((message.speaker or "").casefold()),
                ),
                times_in=self._times_in(body),
                times_unclear=self._times_unclear(body),
            )  # fmt: skip
            for line in message.lines:
                body = text[line.body_start : line.body_end]
                for mention in self._on_the_lines_date(
                    self.parse(
                        body, source=source, sent_at=sent_at, context=context, speaker=speaker
                    )
                ):
                    said.append(
                        replace(
                            mention,
                            start=mention.start + line.body_start,
                            end=mention.end + line.body_start,
                        )
                    )
            # A start and its end on two lines of one message ("Departs 6:50" / "Arrives 9:05").
            # then the doors, boarding or deadline times said beside the start
            said = drop_side_times(text, _in_the_month_said(join_ranges(text, said)), asked)
            if lang.KEEPS_CLOCK_RE.search(body):
                said = [replace(m, keeps_clock=not m.has_clock_time) for m in said]
            told.append((age_order(message), said))
        # a bare hour answers the clock said before it in time: quoted mail is older
        told.sort(key=lambda item: item[0])
        told = [(age, [replace(m, said_order=n) for m in ms]) for n, (age, ms) in enumerate(told)]
        said_all = drop_deadlines(text, [m for _, ms in told for m in ms], asked)
        mentions = _near_the_clock_before(said_all, self.zone)
        bodies = [" ".join(text[ln.body_start : ln.body_end] for ln in m.lines) for m in found]
        mentions = _half_of_day_said(mentions, _half_asked(asked, bodies), self.zone, text)
        return sorted(mentions, key=lambda m: m.start)

    def _speaker(self, label: str | None, note: str | None, located: str | None = None) -> Speaker:
        """Who said a pasted message: the user ("Me:", a screenshot's right-hand bubble), or
        someone whose zone their label's note names ("Aiko (Tokyo):"), or their own words
        ("I'm in Chicago"), or nothing names (an unsigned e-mail is someone else's too)."""
        if is_self(label):
            return USER
        zone = zones.zone_for_place(note, self._engine.zoneinfo_dir) if note else None
        if note and zone is None:  # "Jordan (NYC office):", "Priya (Bangalore team):"
            named = zones.zones_named(note, self._engine.zoneinfo_dir)
            zone = next(iter(named)) if len(named) == 1 else None
        return Speaker(is_user=False, zone=zone or located)

    def stamp_time(self, stamp: str) -> datetime | None:
        """When a message was sent, from its stamp as written; always the past, never a mention."""
        has_date = bool(lang.STAMP_DATE_RE.search(stamp))
        has_weekday = not has_date and bool(lang.STAMP_WEEKDAY_RE.search(stamp))
        # Duckling resolves forwards, so anchor one cycle back: the result is the latest past one.
        ref = self.now if has_date else self.now - timedelta(days=7 if has_weekday else 1)
        # A stamp is written in its mail client's language ("El lun, 3 ago 2026 a las 18:20"):
        # another grammar's reading wins only where it covers more of the stamp than English.
        entities: list[dict[str, Any]] = []
        cover = 0
        for code in lang.TIME_LANGUAGES:
            found = [
                e
                for e in self._engine.parse(
                    stamp,
                    tz=self.tz,
                    ref=ref,
                    language=code,
                    locale=self.locale if code == "en" else None,
                )
                if e["dim"] == "time" and e["value"]["type"] == "value"
            ]
            longest = max((e["end"] - e["start"] for e in found), default=0)
            if longest > cover:
                entities, cover = found, longest
                if code != "en":
                    entities = sorted(found, key=lambda e: e["start"] - e["end"])
        if not entities:
            return None
        value = entities[0]["value"]
        candidates = [self._local(v["value"]) for v in value.get("values", [value]) if "value" in v]
        clock = re.search(r"(\d{1,2})[:.](\d{2})\s*([ap])?", stamp, re.IGNORECASE)
        if clock:  # a stamp's "10:02" is 24-hour unless it says am/pm
            hour = int(clock.group(1)) % 12 + (12 if (clock.group(3) or "").lower() == "p" else 0)
            if not clock.group(3):
                hour = int(clock.group(1))
            candidates = [c for c in candidates if c.hour == hour] or candidates
        past = [c for c in candidates if c <= self.now]
        sent = max(past) if past else candidates[0]
        if (
            not has_date
            and not has_weekday
            and timedelta(0) < sent + timedelta(days=1) - self.now <= STAMP_SKEW
        ):
            return self.now  # a bare "10:02" two minutes ahead of this clock: today, not yesterday
        swapped = _day_month_swapped(stamp, sent)
        recent = self.now - RECENT_STAMP
        if (
            swapped is not None
            and swapped <= self.now
            and (sent > self.now or swapped >= recent > sent)
        ):
            # "12/04/27" from a day-first phone, read month-first by the locale: the reading in
            # the future is not it, and a pasted chat is recent: "[03/12/2026, 19:02]" on 4
            # December is yesterday, not last March (two readings within the month: the
            # locale's stands)
            return swapped
        if sent > self.now and (_TODAY_RE.search(stamp) or sent - self.now <= STAMP_SKEW):
            return self.now  # "Today at 10:02", or a stamp minutes ahead of this clock: just now
        if sent > self.now and not lang.STAMP_YEAR_RE.search(stamp):
            if has_date:
                return sent.replace(year=sent.year - 1)
            return sent - timedelta(days=7 if has_weekday else 1)
        return sent

    # ------------------------------------------------------------------ one language
    def _first_word_read_as_hour(
        self,
        clean: str,
        entities: list[dict[str, Any]],
        ref: datetime,
        code: str,
        locale: str | None,
    ) -> list[dict[str, Any]]:
        """A word before a day's number that Duckling read as "at": its Spanish takes "al 4 de
        diciembre" ("to the 4th of December") for 4 o'clock on the month's first day. When the
        same words without the first one read as that day and nothing finer, the day stands.
        Only a reading on a month's first day with no 1 written in it is tried again, so a
        plain "at 3pm" costs nothing."""
        kept: list[dict[str, Any]] = []
        for entity in entities:
            value = entity.get("value") or {}
            lead = _WORD_THEN_NUMBER_RE.match(clean, entity["start"], entity["end"])
            when = str(value.get("value", ""))
            if (
                entity["dim"] != "time" or lead is None
                or value.get("grain") not in ("hour", "minute") or when[8:10] != "01"
                or "1" in clean[entity["start"] : entity["end"]]
            ):  # fmt: skip
                kept.append(entity)
                continue
            rest = clean[lead.end() : entity["end"]]
            again = self._engine.parse(rest, tz=self.tz, ref=ref, language=code, locale=locale)
            other_day = [  # the words alone name another day: "4 de diciembre (por la tarde)"
                a for a in again
                if a["dim"] == "time" and a["start"] == 0 and a["end"] == len(rest)
                and str((a.get("value") or {}).get("value", ""))[:10] != when[:10]
            ]  # fmt: skip
            if not other_day:
                kept.append(entity)
                continue
            kept.append({**other_day[0], "start": lead.end(), "end": entity["end"], "body": rest})
        # "al 4 de diciembre a las 10": the re-read day lies inside the reading with its clock
        return [
            e for e in kept
            if e in entities or not any(
                o is not e and o["start"] <= e["start"] and e["end"] <= o["end"]
                and (o["start"], o["end"]) != (e["start"], e["end"])
                for o in kept
            )
        ]  # fmt: skip

    def _parse_language(
        self,
        text: str,
        clean: str,
        code: str,
        ref: datetime,
        source: str,
        speaker: Speaker,
        *,
        changes: bool = False,
    ) -> list[TimeMention]:
        locale = self.locale if code == "en" else None
        entities = self._engine.parse(clean, tz=self.tz, ref=ref, language=code, locale=locale)
        entities = [e for e in entities if not _starts_inside_a_number(clean, e["start"])]
        entities = self._first_word_read_as_hour(clean, entities, ref, code, locale)
        unyeared = _without_short_years(clean, entities, ref)
        if unyeared != clean:  # "on March 7th in 620": read again without the street number
            clean = unyeared
            entities = self._engine.parse(clean, tz=self.tz, ref=ref, language=code, locale=locale)
            entities = [e for e in entities if not _starts_inside_a_number(clean, e["start"])]
        misread = _misread_words(
            clean,
            entities,
            lambda: self._engine.parse(
                clean, tz=self.tz, ref=ref, language=code, locale=locale, lengths_only=True
            ),
            code,
        )
        far = _far_pairs(misread, entities, ref)
        for lo, hi in far:
            misread = misread[:lo] + " " * (hi - lo) + misread[hi:]
        if misread != clean:  # "my boss Friday at 1p.m.", "tonight at 8:00 pm": read again
            again = self._engine.parse(misread, tz=self.tz, ref=ref, language=code, locale=locale)
            again = [e for e in again if not _starts_inside_a_number(misread, e["start"])]
            # a reading the second pass finds no time in stays, with its words ("by 1h" after
            # "push it back" is read as a length below)
            kept = [  # none of a far pair's readings ("el 7" of "el 7-11 esta noche")
                e for e in _unread(entities, again)
                if not any(lo < e["end"] and e["start"] < hi for lo, hi in far)
            ]  # fmt: skip
            for entity in kept:
                lo, hi = entity["start"], entity["end"]
                misread = misread[:lo] + clean[lo:hi] + misread[hi:]
            entities = sorted(again + kept, key=lambda e: e["start"])
            clean = misread
        # "O jantar de Natal ... sexta-feira, 18 de dezembro", "Christmas party on Dec 18": with
        # a date said beside it, a holiday names the event, not its day
        entities = [e for e in entities if not _holiday_beside_a_date(clean, e)]
        if code != "en":  # "quinta-feira, 17/12, às 19h30": Duckling's Portuguese skips "17/12"
            entities = _day_month_numbers(clean, entities, ref.astimezone(self.zone))
        if changes or (
            code == "en"
            and (lang.PART_NUMBER_RE.search(clean) or lang.CHANGED_HOUR_RE.search(clean))
        ):
            entities = self._with_part_number(clean, entities, ref, locale, changes=changes)
        entities = [_as_written(e, clean) for e in entities]
        entities = [
            _day_then_clock(_deadline_open(e, ref)) for e in entities if not _wrong_start(e, clean)
        ]
        if source == "request":  # in a thread, "I'm around from 2" is a window, not a start
            entities = [_start_only(e, clean) for e in entities]
        mentions: list[TimeMention] = []
        entities = _counts_of_durations(clean, _across_commas(clean, entities))
        if any(_a_length(clean, e, code) for e in entities):  # "push it back by 1h": a length
            lengths = self._engine.parse(
                clean, tz=self.tz, ref=ref, language=code, locale=locale, lengths_only=True
            )
            entities = _moves_as_lengths(clean, entities, lengths, code)
        time_spans = [(e["start"], e["end"]) for e in entities if e["dim"] == "time"]
        for entity in entities:
            if entity["dim"] == "time" and _BC_YEAR_RE.search(json.dumps(entity["value"])):
                mention = None  # "in 2014 BC": Python's datetime has no year before 1
            elif entity["dim"] == "time":
                mention = self._time_mention(text, clean, entity, code, source, speaker)
            elif not any(s < entity["end"] and entity["start"] < e for s, e in time_spans):
                mention = self._duration_mention(text, entity, code, source)
            else:
                mention = None
            if mention is not None:
                mentions.append(mention)
        mentions = self._attach_vague_words(text, clean, mentions, code, source)
        mentions = self._weekday_day_numbers(text, clean, mentions)
        mentions = [self._weekday_before(text, clean, m, mentions) for m in mentions]
        mentions = [self._week_after(text, clean, m) for m in mentions]
        mentions = [self._moved_to(text, clean, m, code, ref, source, speaker) for m in mentions]
        mentions = _old_clock_to_new_day(clean, mentions)
        mentions = _replaced(clean, mentions)
        mentions = [_shifted(text, clean, m) for m in mentions]
        mentions = [_repeating(clean, m) for m in mentions]
        mentions = [_shorthand_half(m, self.zone) for m in mentions]
        mentions = [_week_shift(clean, m, ref.astimezone(self.zone)) for m in mentions]
        mentions = _hours_before_weekday(clean, mentions, ref)
        mentions = self._bare_hours_offered(clean, _unnested(mentions))
        return _day_said_once(clean, _open_days(clean, mentions))

    def _bare_hours_offered(self, clean: str, mentions: list[TimeMention]) -> list[TimeMention]:
        """A bare hour offered before another clock ("10 or 2 tomorrow?", "3 or 4 on
        friday"): Duckling reads only the second, which then stood alone as the plan. The first
        is a clock on the same day, its half of the day read as any bare hour's."""
        out = list(mentions)
        for mention in mentions:
            if (
                mention.kind != "datetime"
                or not mention.has_clock_time
                or mention.value is None
                or not mention.text[:1].isdigit()
            ):
                continue
            line_start = clean.rfind("\n", 0, mention.start) + 1
            said = _BARE_OPTION_RE.search(clean, line_start, mention.start)
            if (
                said is None
                or any(m.start < said.end() and said.start() < m.end for m in out)
                or _COUNTED_AFTER_RE.search(clean, line_start, said.start())
                or numbered_or_counted(clean, said.start(), said.end())  # "gate 4 or 5"
            ):
                continue
            hour, minute = int(said.group("h")) % 12, int(said.group("m") or 0)
            local = mention.value.astimezone(self.zone)
            starts = [
                local.replace(hour=hour, minute=minute),
                local.replace(hour=hour + 12, minute=minute),
            ]
            context = clean[line_start : mention.end]
            span = f"at {said.group('clock')}"
            chosen = self._business_hour(starts, span, context)
            out.append(
                replace(
                    mention,
                    text=said.group("clock"),
                    start=said.start(),
                    end=said.start() + len(said.group("clock")),
                    value=chosen,
                    end_value=None,
                    alternatives=self._open_readings(starts, chosen, span, context),
                    grain="minute" if minute else "hour",
                )
            )
        return sorted(out, key=lambda m: m.start)

    def _weekday_before(
        self, text: str, clean: str, mention: TimeMention, mentions: list[TimeMention]
    ) -> TimeMention:
        """ "brunch sun 11:30": a weekday right before a clock that Duckling read without it
        (it reads "sun" as no day) is the clock's day, the coming one."""
        if not mention.has_clock_time or mention.value is None or lang.states_date(mention.text):
            return mention
        before = _WEEKDAY_BEFORE_RE.search(clean, max(0, mention.start - 16), mention.start)
        if before is None or any(m.start <= before.start() < m.end for m in mentions):
            return mention
        weekday = lang.weekday_of(before.group("day"))
        if weekday is None:
            return mention
        local = mention.value.astimezone(self.zone)
        today = self.now.astimezone(self.zone)
        ahead = (weekday - today.weekday()) % 7
        if ahead == 0:
            return mention  # today's weekday: today or a week on, which is unclear
        at = datetime.combine(today.date() + timedelta(days=ahead), local.time(), self.zone)
        others = tuple(
            datetime.combine(at.date(), o.astimezone(self.zone).time(), self.zone)
            for o in mention.alternatives
        )
        return replace(
            mention, value=at, alternatives=others, start=before.start(),
            text=text[before.start() : mention.end],
        )  # fmt: skip

    def _week_after(self, text: str, clean: str, mention: TimeMention) -> TimeMention:
        """ "lunch wed nxt wk @ 1": a weekday with words after it that put it in the coming week
        (times.toml [week_after], spellings Duckling does not read) is that week's day."""
        if mention.value is None or mention.kind not in ("date", "datetime", "vague"):
            return mention
        named = lang.WEEKDAY_RE.search(mention.text)
        after = _WEEK_AFTER_RE.match(clean, mention.end)
        before = _WEEK_BEFORE_RE.search(clean, max(0, mention.start - 24), mention.start)
        # the words' span: "wed nxt wk" runs on after the day, "nxt wk thurs" starts before it
        start, end = mention.start, after.end() if after else mention.end
        if after is None and before is not None:
            start = before.start()
        if (
            named is None
            or (after is None and before is None)
            or lang.DAY_OF_MONTH_RE.search(mention.text)
            or mention.text.rstrip()[-1:] in tuple(".,;!?")  # "fri. nxt wk": another sentence
        ):
            return mention
        weekday = lang.weekday_of(named.group(0))
        if weekday is None:
            return mention
        today = self.now.astimezone(self.zone).date()
        day = today + timedelta(days=7 - today.weekday() + weekday)
        local = mention.value.astimezone(self.zone)
        moved = day - local.date()
        return replace(
            mention,
            value=datetime.combine(day, local.time(), self.zone),
            end_value=(
                datetime.combine(mention.end_value.astimezone(self.zone).date() + moved,
                                 mention.end_value.astimezone(self.zone).time(), self.zone)
                if mention.end_value is not None else None
            ),
            alternatives=tuple(
                datetime.combine(o.astimezone(self.zone).date() + moved,
                                 o.astimezone(self.zone).time(), self.zone)
                for o in mention.alternatives
            ),
            start=start,
            end=end,
            text=text[start:end],
        )  # fmt: skip

    def _moved_to(
        self,
        text: str,
        clean: str,
        mention: TimeMention,
        code: str,
        ref: datetime,
        source: str,
        speaker: Speaker,
    ) -> TimeMention:
        """ "postponed from Friday 4 December to Friday 11 December", "moves from Tuesday to
        Thursday, 6.30pm": Duckling reads a range, or the old day; the move's new day is the
        mention. Only where the part after "to" names a day ("moved from 2pm to 4pm" is the
        linker's, which keeps the event's day)."""
        to = lang.MOVE_TO_RE.search(clean, mention.start, mention.end)
        if to is None or not lang.states_date(clean[to.end() : mention.end]):
            return mention
        line_start = clean.rfind("\n", 0, mention.start) + 1
        if not lang.MOVED_FROM_RE.search(clean, line_start, to.start()):
            return mention
        new = self._parse_language(
            text[to.end() : mention.end], clean[to.end() : mention.end], code, ref, source, speaker
        )
        if len(new) != 1:
            return mention
        return replace(new[0], start=new[0].start + to.end(), end=new[0].end + to.end())

    def _weekday_day_numbers(
        self, text: str, clean: str, mentions: list[TimeMention]
    ) -> list[TimeMention]:
        """ "fri 18 at 7:30pm": Duckling drops the day of the month after a weekday, or reads it
        as a year ("sat 28 at 2pm" in 2028). The nearest coming date that is both (within
        DAY_NUMBER_DAYS) is the day; when none is, the day is left open (vague). After a date
        alone, the clause must state its clock elsewhere, so the number cannot be the hour
        ("sat 12" alone may be noon)."""
        clocks = [m for m in mentions if m.has_clock_time]
        out = []
        for mention in mentions:
            inside = _WEEKDAY_DAY_NUMBER_RE.match(clean, mention.start, mention.end)
            after = _DAY_NUMBER_AFTER_RE.match(clean, mention.end)
            if mention.value is None or mention.kind not in ("date", "datetime", "vague"):
                out.append(mention)
                continue
            hour_too = False
            if (
                inside
                and not lang.DAY_OF_MONTH_RE.search(clean, inside.end(), mention.end)
                and not _MONTH_AFTER_RE.match(clean, inside.end())  # "Wed 9 Dec": all said
            ):
                number, end = inside, mention.end
            elif (
                mention.kind in ("date", "vague")
                and lang.weekday_only(mention.text)
                and after is not None
            ):  # "fri 18 at 7pm", "night fri 7?"
                number, end = after, after.end()
                # "they offered Wednesday 11": with no clock on its line, the number may be
                # the hour; an ordinal ("wed 11th") is always the day
                line = (
                    clean.rfind("\n", 0, mention.start) + 1,
                    clean.find("\n", end) % (len(clean) + 1),
                )
                hour_too = not number.group(0).rstrip()[-1].isalpha() and not any(
                    line[0] <= c.start < line[1] for c in clocks
                )
                if not hour_too and not any(c.start >= after.end() for c in clocks):
                    out.append(mention)
                    continue
            else:
                out.append(mention)
                continue
            named = lang.WEEKDAY_RE.search(mention.text)
            weekday = lang.weekday_of(named.group(0)) if named else None
            day = int(number.group("day"))
            today = self.now.astimezone(self.zone).date()
            found = next(
                (
                    d for k in range(DAY_NUMBER_DAYS)
                    if (d := today + timedelta(days=k)).day == day and d.weekday() == weekday
                ),
                None,
            )  # fmt: skip
            if weekday is None:
                out.append(mention)
            elif hour_too and found is None and day <= 23:  # no Wednesday the 11th near: 11:00
                out.append(self._weekday_at_hour(text, clean, mention, day, end))
            elif found is None or hour_too:  # "fri 13" with no Friday the 13th near, or "fri 8"
                # with one (the 8th, or 8 o'clock): which day or time is unclear
                out.append(replace(mention, kind="vague", has_clock_time=False, all_day=False,
                                   vague=text[mention.start:end].lower(), end=end,
                                   text=text[mention.start:end]))  # fmt: skip
            else:
                local = mention.value.astimezone(self.zone)
                at = datetime.combine(found, local.time() if mention.has_clock_time else time(),
                                      self.zone)  # fmt: skip
                out.append(replace(mention, value=at, end=end, text=text[mention.start : end]))
        return out

    def _weekday_at_hour(
        self, text: str, clean: str, mention: TimeMention, hour: int, end: int
    ) -> TimeMention:
        """ "Wednesday 11" read as that weekday at that hour, am or pm as a bare hour's words
        decide ("drinks sat 8" is 20:00); when none do, the other half stays open."""
        day = mention.value.astimezone(self.zone).date()
        hours = [hour, hour + 12] if hour < 12 else [hour]
        starts = [datetime.combine(day, time(h), self.zone) for h in hours]
        span = clean[mention.start : end]
        context = clean[max(0, mention.start - 30) : end + 20]
        chosen = self._business_hour(starts, span, context) if hour <= 12 else starts[0]
        return replace(
            mention, kind="datetime", has_clock_time=True, all_day=False, grain="hour",
            value=chosen, end=end, text=text[mention.start : end],
            alternatives=self._open_readings(starts, chosen, span, context) if hour < 12 else (),
        )  # fmt: skip

    def _with_part_number(
        self,
        clean: str,
        entities: list[dict[str, Any]],
        ref: datetime,
        locale: str | None,
        *,
        changes: bool = False,
    ) -> list[dict[str, Any]]:
        """Add Duckling's latent "evening 5" and "make it 4" readings; other latent ones (a bare
        "7") stay out, unless the text was read as changing a time (`changes`): then its one
        bare hour after a clock or move preposition answers ("shift that to 8")."""
        changed = {
            match.span(group)
            for match in lang.CHANGED_HOUR_RE.finditer(clean)
            for group in ("hour", "first", "alone", "judged")
            if match.group(group)
        }
        if changes and len(_BARE_HOUR_RE.findall(clean)) == 1:  # one number: the new time
            changed |= {match.span("hour") for match in lang.NEW_HOUR_RE.finditer(clean)}
        extra = [
            e
            for e in self._engine.parse(
                clean, tz=self.tz, ref=ref, language="en", locale=locale, latent=True
            )
            if e["dim"] == "time"
            and e["latent"]
            and (lang.PART_NUMBER_RE.search(e["body"]) or (e["start"], e["end"]) in changed)
        ]
        kept = [
            # "make it 9:30": Duckling reads a clock with minutes itself; it answers all the same
            {**e, "answered": True} if (e["start"], e["end"]) in changed else e
            for e in entities
            if not any(
                x["start"] <= e["start"]
                and e["end"] <= x["end"]
                and e["end"] - e["start"] < x["end"] - x["start"]
                for x in extra
            )
        ]
        return kept + [
            {**x, "answered": (x["start"], x["end"]) in changed}
            for x in extra
            if not any(e["start"] <= x["start"] and x["end"] <= e["end"] for e in kept)
        ]

    def _duration_mention(
        self, text: str, entity: dict[str, Any], code: str, source: str
    ) -> TimeMention:
        seconds = entity["value"]["normalized"]["value"]
        return TimeMention(
            text[entity["start"] : entity["end"]], entity["start"], entity["end"], "duration",
            None, None, False, False, None, code, source,
            grain=entity["value"].get("unit"), duration=timedelta(seconds=seconds),
        )  # fmt: skip

    def _local(self, iso: str, *, wall: bool = True) -> datetime:
        """Duckling's value in the user's zone. Its clock reading is the wall time said, but its
        UTC offset can be the one before a DST change on the change day ("March 10th at 8:45
        am" came back as 08:45-08:00, i.e. 09:45 PDT): a wall time keeps its clock and takes
        the zone's offset at that date. An offset from now ("in 3 hours", `wall=False`) is an
        instant, which Duckling's offset gets right."""
        value = datetime.fromisoformat(iso)
        if wall:
            value = value.replace(tzinfo=None).replace(tzinfo=self.zone)
            return value.astimezone(UTC).astimezone(self.zone)  # 2:30 in a gap -> 3:30
        return value.astimezone(self.zone)

    def _time_mention(
        self,
        text: str,
        clean: str,
        entity: dict[str, Any],
        code: str,
        source: str,
        speaker: Speaker = USER,
    ) -> TimeMention | None:
        start, end = entity["start"], entity["end"]
        span = clean[start:end]
        value = entity["value"]
        if value["type"] == "interval":
            first = value.get("from") or value.get("to")
        else:
            first = value
        grain = first["grain"]
        if grain in _SUBDAY and self._is_not_a_time(clean, start, end):
            return None
        clock = lang.states_clock_time(span)
        local = functools.partial(self._local, wall=grain not in _SUBDAY or clock)
        # am/pm words of an alternative are not this time's: "Friday at 4 or Saturday morning",
        # nor those of a clause with a time of its own: "lands 10:45, dinner 8-10 tonight"
        lo, hi = _own_clause(text, start, end)
        before = _ALTERNATIVE_RE.split(clean[lo:start])[-1]
        after = _ALTERNATIVE_RE.split(clean[end:hi])[0]
        context = before + span + after
        make = functools.partial(
            TimeMention, text[start:end], start, end, language=code, source=source, grain=grain
        )
        if value["type"] == "value":
            choices = [v for v in value.get("values", [value]) if v.get("type", "value") == "value"]
            starts = [local(v["value"]) for v in choices] or [local(value["value"])]
            if grain in _SUBDAY and clock:
                when = self._business_hour(starts, span, context)
                when, others = self._future_first(
                    when, self._open_readings(starts, when, span, context), span
                )
                shifted, end, unsaid = self._explicit_zone(clean, span, end, when, speaker)
                others = tuple(o + (shifted - when) for o in others)
                return replace(
                    make("datetime", shifted, None, True, False, None),
                    end=end,
                    text=text[start:end],
                    alternatives=others,
                    zone_unsaid=unsaid,
                    answers=bool(entity.get("answered")),
                )
            if grain == "day":
                if lang.DASHED_PAIR_RE.fullmatch(span) and not lang.DATE_BEFORE_RE.search(
                    clean[max(0, start - 8) : start]
                ):
                    return None  # "I'm free 11-12": hours, not the 11th of December
                return replace(
                    make("date", starts[0], None, False, True, None),
                    alternatives=self._open_readings(starts, starts[0], span, context),
                )
            return make("vague", starts[0], None, False, False, span.lower())
        lower, upper = value.get("from"), value.get("to")
        until = _UNTIL_RE.match(span)
        if (
            lower is None
            and upper is not None
            and until is not None
            and grain in _SUBDAY
            and clock
            and _DELAYED_UNTIL_RE.search(before + until.group(0))
        ):  # "standup postponed until 11am", "not until 9pm": the new start
            when = self._business_hour([local(upper["value"])], span, context)
            return replace(
                make("datetime", when, None, True, False, None),
                alternatives=self._open_readings([when], when, span, context),
            )  # "doesn't start until 8": am or pm, the gate asks
        if lower is None or upper is None:  # "after 5pm", "before 3pm": a bound, not a start
            return make("vague", local(first["value"]), None, False, False, span.lower())
        if grain in _SUBDAY and clock:
            pairs = [
                (local(v["from"]["value"]), local(v["to"]["value"]))
                for v in value.get("values", [value])
                if "from" in v and "to" in v
            ] or [(local(lower["value"]), local(upper["value"]))]
            begin = self._business_hour([p[0] for p in pairs], span, context)
            finish = next(
                (p[1] for p in pairs if p[0] == begin), begin + (pairs[0][1] - pairs[0][0])
            )
            finish = (finish - _SUBDAY[upper["grain"]]).astimezone(self.zone)
            others = self._open_readings([p[0] for p in pairs], begin, span, context)
            shifted, end, unsaid = self._explicit_zone(clean, span, end, begin, speaker)
            finish = finish + (shifted - begin)
            return replace(
                make("interval", shifted, finish, True, False, None),
                end=end,
                text=text[start:end],
                alternatives=tuple(o + (shifted - begin) for o in others),
                zone_unsaid=unsaid,
            )
        if grain == "day" and not (
            # "Spring", "this summer": a season is weeks long and names no day
            not any(ch.isdigit() for ch in span)
            and not lang.states_date(span)
            and local(upper["value"]) - local(lower["value"]) > SEASON_DAYS
        ):
            return make(
                "interval",
                local(lower["value"]),
                local(upper["value"]),
                False,
                True,
                None,
            )
        return make(
            "vague",
            local(lower["value"]),
            local(upper["value"]),
            False,
            False,
            span.lower(),
        )

    def _is_not_a_time(self, clean: str, start: int, end: int) -> bool:
        """Counts ("at 5 people"), house numbers ("at 1 East 161 Street"), "in 1" (a minute
        from now, Duckling says), citations ("John 3:16"), versions ("python 3.11") and a
        message's own stamp ("Sent 25/11 at 19:00") that Duckling reads as times."""
        span = clean[start:end].strip()
        if lang.BARE_HOUR_RE.fullmatch(span) and (
            lang.COUNT_AFTER_RE.match(clean, end) or lang.STREET_AFTER_RE.match(clean, end)
        ):
            return True
        if re.fullmatch(r"in\s+\d{1,2}", span, re.IGNORECASE):
            return True
        if re.search(r"\d$", span) and lang.STREET_AFTER_RE.match(clean, end):
            return True  # "at 1 East 161" + " Street": an address Duckling read as a time
        before = clean[:start]
        if lang.STAMP_BEFORE_RE.search(before[-40:]):
            return True  # "Sent 25/11 at 19:00": when the message was sent
        if lang.OFFSET_BEFORE_RE.search(before[-12:]):
            return True  # "(UTC+01:00)": a zone's offset
        dotted = _DOTTED_CLOCKS_RE.match(span)
        if (
            dotted is not None
            and any(int(m) % 5 for m in dotted.group("m", "m2") if m)
            and not lang.TIME_WORD_RE.search(before[-20:])
            and not lang.CLOCK_PREPOSITION_BEFORE_RE.search(before[-20:])
            and not _DAYPART_AFTER_RE.match(clean, end)
            and not lang.JOURNEY_AFTER_RE.match(clean, end)
        ):
            return True  # "python 3.11 to 3.12 migration": versions ("at 10.51" is a clock)
        return bool(
            lang.CITED_HM_RE.fullmatch(span)
            and lang.CITATION_BEFORE_RE.search(before)
            and not lang.TIME_WORD_RE.search(before)
            and not _DAYPART_AFTER_RE.match(clean, end)
            and not lang.JOURNEY_AFTER_RE.match(clean, end)
        )

    def _business_hour(self, starts: Sequence[datetime], span: str, context: str) -> datetime:
        """The first reading, unless am/pm was left open: then the business-hour one.

        The hour is judged as written: "8:00 GMT" is 8 in the morning in GMT, whatever hour
        that is in the user's zone.
        """
        written = lang.KNOWN_ZONE_RE.search(span)
        there = (
            timezone(timedelta(hours=lang.ZONE_OFFSETS[written.group(0).upper()]))
            if written
            else self.zone
        )
        local = [s.astimezone(there) for s in starts]
        first = local[0]
        if (
            13 <= first.hour <= 16 and not _MERIDIEM_RE.search(span)
            and lang.small_hours_said(first.hour - 12, context)
        ):  # fmt: skip
            # "alle 3:15 di notte" read as 15:15: the night words put it after midnight
            return first.replace(hour=first.hour - 12).astimezone(self.zone)
        twin = [s for s in local if s.hour == (first.hour + 12) % 24 and s.minute == first.minute]
        if not twin and (
            _MERIDIEM_RE.search(span)
            or first.hour > 12
            or (
                first.hour == 0
                and not (
                    _TWELVE_RE.search(span)
                    and not lang.LATE_EVENING_RE.search(context)
                    and not lang.MORNING_RE.search(context)  # "at 12 in the morning"
                )
            )
        ):  # "at 5pm", "17:00", "0:30", "tonight at 12": the words chose ("lunch at 12" did not)
            return starts[0]
        if ZERO_LED_CLOCK_RE.search(span):  # "06:45" is a 24-hour clock: the morning
            return next((c for c, seen in zip(starts, local, strict=True) if seen.hour < 12), first)
        if lang.FOUR_DIGIT_CLOCK_RE.search(span):  # "0907", "at 1600": the hour as written
            return starts[0]
        hour = first.hour % 12 or 12
        if lang.small_hours_said(hour, context):
            pm = False  # "at 3 at night"
        elif lang.evening_holds(hour, context) or lang.afternoon_said(hour, span):
            pm = True
        elif lang.MORNING_RE.search(context):
            pm = hour == 12
        else:
            pm = 1 <= hour <= 6 or hour == 12
        target = hour % 12 + (12 if pm else 0)
        for candidate, seen in zip(starts, local, strict=True):
            if seen.hour == target and seen.minute == first.minute:
                return candidate
        wall = first.replace(tzinfo=None, hour=target)
        return wall.replace(tzinfo=there).astimezone(self.zone)

    def _open_readings(
        self, starts: Sequence[datetime], chosen: datetime, span: str, context: str
    ) -> tuple[datetime, ...]:
        """The other starts `span` allows when nothing in the words picks one.

        A bare hour in OPEN_MERIDIEM_HOURS with no am/pm and no morning or evening word has a
        twin twelve hours away, unless that twin is already past.
        """
        others: list[datetime] = []
        local = chosen.astimezone(self.zone)
        hour = local.hour % 12
        # "at 8" with no evening word; "party at 10": a party may be at ten in the morning too
        open_hour = hour in lang.OPEN_MERIDIEM_HOURS or (
            hour in lang.LATE_MORNING_HOURS and bool(lang.EVENING_RE.search(context))
        )
        if (
            lang.states_clock_time(span)
            and not _MERIDIEM_RE.search(span)
            and not lang.FOUR_DIGIT_CLOCK_RE.search(span)
            and not lang.MORNING_RE.search(context)
            and not lang.DAYTIME_RE.search(context)
            and open_hour
            and not lang.evening_holds(hour, context)
            and not lang.afternoon_said(hour, span)
        ):
            twin = [s for s in starts if s != chosen and abs(s - chosen) == timedelta(hours=12)]
            others.append(twin[0] if twin else chosen + timedelta(hours=12 if local.hour < 12
                                                                  else -12))  # fmt: skip
        # a reading already past is none: "today at 8" said at noon is 20:00; a clock alone
        # ("at 8") may go with a day said elsewhere, where both readings are ahead
        if lang.states_date(span):
            return tuple(o for o in others if o >= self.now or chosen < self.now)
        return tuple(others)

    def _future_first(
        self, when: datetime, others: tuple[datetime, ...], span: str
    ) -> tuple[datetime, tuple[datetime, ...]]:
        """ "today at 8" said at noon: of its two readings only 20:00 is still ahead."""
        ahead = [o for o in others if o >= self.now]
        if when < self.now and len(ahead) == 1 and len(others) == 1 and lang.states_date(span):
            return ahead[0], ()
        return when, others

    def _on_the_written_day(self, span: str, when: datetime) -> datetime:
        """A date and a clock said in a zone Duckling reads, on the date written: Duckling
        moves the clock into the user's zone but sometimes keeps the written date ("Dec 15,
        9pm UTC" came out Dec 15 05:00 in Singapore, where it is Dec 16) and sometimes not. The
        date is read again from the words without the zone; the clock, in that zone."""
        zone = lang.KNOWN_ZONE_RE.search(span)
        if zone is None or not lang.DAY_OF_MONTH_RE.search(span):  # "tomorrow" it moves right
            return when
        bare = span[: zone.start()] + " " * len(zone.group(0)) + span[zone.end() :]
        read = [
            e for e in self._engine.parse(bare, tz=self.tz, ref=self.now, language="en",
                                          locale=self.locale)
            if e["dim"] == "time" and e["value"].get("type") == "value"
        ]  # fmt: skip
        if not read:
            return when
        day = datetime.fromisoformat(read[0]["value"]["value"]).date()
        there = timezone(timedelta(hours=lang.ZONE_OFFSETS[zone.group(0).upper()]))
        written = datetime.combine(day, when.astimezone(there).time(), there)
        return written.astimezone(when.tzinfo)

    def _explicit_zone(
        self, clean: str, span: str, end: int, when: datetime, speaker: Speaker
    ) -> tuple[datetime, int, bool]:
        """`_zone_said`, and a time whose message says it is local to places of another zone
        than the user's ("All times are local") when no zone of its own moved it: unsaid."""
        shifted, stop, unsaid = self._zone_said(clean, span, end, when, speaker)
        return shifted, stop, unsaid or (speaker.times_unclear and shifted == when)

    def _zone_said(
        self, clean: str, span: str, end: int, when: datetime, speaker: Speaker
    ) -> tuple[datetime, int, bool]:
        """A wall time followed by a zone Duckling does not read, converted to the user's zone:
        "3pm PT", "9am Tokyo time", "9am my time" (the zone of whoever said it), "4pm your
        time" (the other side's). Also whether that zone is one the input never names."""
        match = lang.ZONE_AFTER_RE.match(clean, end)
        if _DUCKLING_ZONE_RE.search(span.replace("AM", "").replace("PM", "")):
            return self._on_the_written_day(span, _as_written_in_zone(span, when)), end, False
        if match is None and speaker.times_in is not None:  # "all times are IST" said above
            there = when.replace(tzinfo=None).replace(tzinfo=speaker.times_in)
            return there.astimezone(self.zone), end, False
        if match is None:  # no zone said: unclear when the speaker is in another one
            return when, end, self._elsewhere(speaker, when)
        if match.group("offset"):  # "(UTC+01:00)": a fixed offset, as Outlook writes it
            there = when.replace(tzinfo=None).replace(tzinfo=timezone(lang.offset_of(match)))
            return there.astimezone(self.zone), match.end(), False
        word = match.group("zone") or ""
        if len(word) <= 3 and not word.isupper():  # "19h et 20h": French "and", not ET
            word = ""
        where = match.group("place") or match.group("place_after")
        if not (word or where or match.group("speaker") or match.group("listener")):
            return when, end, self._elsewhere(speaker, when)
        if match.group("speaker") or match.group("listener"):
            # "my time" from the user, or "your time" said to the user, is the user's zone.
            if speaker.is_user == bool(match.group("speaker")):
                return when, match.end(), False
            name = speaker.zone if not speaker.is_user else None
        else:
            name = zones.zone_for_place(word or where, self._engine.zoneinfo_dir)
            place = where or ""
            named = place.startswith("<") or place[:1].isupper()
            if name is None and match.group("local") and named:
                # "(JFK local time)": a named place Veil cannot place; "the local time" names none
                return when, match.end(), True
            if name is None and (place.split() or [""])[-1].casefold() in _UNNAMED:
                return when, match.end(), True  # "9pm server time": some zone, but which?
            if name is None:  # "at 3pm the latest time": no place, no zone
                return when, end, self._elsewhere(speaker, when)
        if name is None:
            return when, match.end(), True
        there = when.replace(tzinfo=None).replace(tzinfo=ZoneInfo(name))
        return there.astimezone(self.zone), match.end(), False

    def _times_in(self, body: str) -> tzinfo | None:
        """The zone a message gives all its times ("all times in this email are IST")."""
        said = _TIMES_ARE_IN_RE.search(body)
        if said is None:
            return None
        named = zones.zone_name_re().match(body, said.start("place"))
        if named:  # "Time zone: America/Chicago", as a calendar's invitation writes it
            try:
                return ZoneInfo(named.group(0))
            except (ValueError, ZoneInfoNotFoundError):
                pass
        words = said.group("place").split()
        if words[0].upper() in lang.ZONE_OFFSETS:  # "IST", "CET"
            return timezone(timedelta(hours=lang.ZONE_OFFSETS[words[0].upper()]))
        for size in range(len(words), 0, -1):  # "New York", "India"
            name = zones.zone_for_place(" ".join(words[:size]), self._engine.zoneinfo_dir)
            if name:
                return ZoneInfo(name)
        return None

    def _times_unclear(self, body: str) -> bool:
        """Whether a message's times are "local" to places of another zone than the user's."""
        if not _TIMES_LOCAL_RE.search(body):
            return False
        now = self.now.replace(tzinfo=None)
        named = zones.zones_named(body, self._engine.zoneinfo_dir)
        return any(ZoneInfo(z).utcoffset(now) != self.zone.utcoffset(now) for z in named)

    def _elsewhere(self, speaker: Speaker, when: datetime) -> bool:
        """Whether someone said a time with no zone from a zone other than the user's ("I'm in
        Chicago all week, let's talk Thursday at 4"): theirs or the user's, nothing says."""
        if speaker.is_user or speaker.zone is None:
            return False
        wall = when.replace(tzinfo=None)
        return ZoneInfo(speaker.zone).utcoffset(wall) != self.zone.utcoffset(wall)

    # ------------------------------------------------------------------ vague words
    def _attach_vague_words(
        self, text: str, clean: str, mentions: list[TimeMention], code: str, source: str
    ) -> list[TimeMention]:
        """Meals, parts of day and hedges: absorbed by a clock time, else they make it vague."""
        result = list(mentions)
        for match in lang.VAGUE_RE.finditer(clean):
            _, label, word_kind = lang.VAGUE_WORDS[int(str(match.lastgroup)[1:])]
            start, end = match.span()
            index = self._host(clean, result, start, end)
            if index is None:
                word = match.group(0).lower() if word_kind == "hedge" else label
                result.append(
                    TimeMention(
                        text[start:end],
                        start,
                        end,
                        "vague",
                        None,
                        None,
                        False,
                        False,
                        word,
                        code,
                        source,
                    )
                )
                continue
            host = result[index]
            if host.has_clock_time or host.kind == "duration":
                continue  # "dinner at 7", "lunch tomorrow at 1": the clock time decides
            lo, hi = min(start, host.start), max(end, host.end)
            word = text[lo:hi].lower() if word_kind == "hedge" else label
            result[index] = replace(
                host, text=text[lo:hi], start=lo, end=hi, kind="vague", all_day=False, vague=word
            )
            rest = re.findall(r"\w+", (clean[lo:start] + " " + clean[end:hi]).casefold())
            if rest and all(w in _APPROXIMATELY for w in rest):
                # "about lunch": Duckling's day is its own default, not a word of the text
                result[index] = replace(result[index], value=None, end_value=None, grain=None)
        return result

    @staticmethod
    def _host(clean: str, mentions: Sequence[TimeMention], start: int, end: int) -> int | None:
        """The mention a vague word overlaps or qualifies ("dinner on friday", "friday dinner");
        of two, the one in its own clause, then the nearer: "lands at 10:45, dinner      tonight"
        is dinner tonight, and 10:45 is no dinner's clock."""
        for index, mention in enumerate(mentions):
            if start < mention.end and mention.start < end:
                return index
        near: list[tuple[bool, int, int]] = []
        for index, mention in enumerate(mentions):
            gap = clean[end : mention.start] if end <= mention.start else clean[mention.end : start]
            if len(gap) <= 20 and lang.JOINER_RE.fullmatch(gap):
                near.append(("," in gap, len(gap.strip()), index))
        return min(near)[2] if near else None


_NUMERIC_DATE_RE = re.compile(r"\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})\b")


_OPEN_DAY_RE = data.phrase_pattern("times", "open_day")
_APPROXIMATELY = data.words("times", "approximately")
_WORDS_RE = re.compile(r"[^\W\d_]+")
_SENTENCE_END_RE = re.compile(r"[.!?\n]")


# A weekday right before a clock: "sun 11:30", "Sat @ 9".
_WEEKDAY_BEFORE_RE = re.compile(
    rf"(?<![\w-])(?P<day>{lang.DAY_NAMES})"
    rf"\.?,?[ \t]+(?:(?:{lang.CLOCK_PREPOSITIONS})[ \t]*)?$",
    re.IGNORECASE,
)
# A day of the month right after a weekday: "fri 18", "sat 12th"; not an hour ("fri 18:00",
# "sat 12pm", "Montag 18 Uhr"), nor a month's day ("sat 12 dec", which Duckling reads whole).
_DAY_NUMBER = (
    r"[ \t]+(?P<day>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?"
    r"(?![\d:.h/]|-\d|[ \t]*(?:[ap]\.?m\b|uhr\b|h\b|hrs?\b|heures?\b|horas?\b|o'?clock\b))"
    rf"(?![ \t]*(?:of[ \t]+)?{lang.MONTHS})"  # "Tuesday 12/8": a numeric date, not the 12th
)
_DAY_NUMBER_AFTER_RE = re.compile(_DAY_NUMBER, re.IGNORECASE)


def _phrase_then_place(section: str) -> re.Pattern[str]:
    """A phrase of times.toml `section`, then up to three capitalised words (a zone or a
    place) as group "place": "I'm in New York", "all times in this email are IST"."""
    return re.compile(
        rf"{data.phrase_pattern('times', section).pattern}[ \t]+(?:the[ \t]+)?"
        r"(?P<place>(?-i:[A-Z][\w'’-]*)(?:[ \t]+(?-i:[A-Z][\w'’-]*)){0,2})",
        re.IGNORECASE,
    )


_TIMES_ARE_IN_RE = _phrase_then_place("times_are_in")
_TIMES_LOCAL_RE = data.phrase_pattern("times", "times_local")
_LOCATED_IN_RE = _phrase_then_place("located_in")
_WEEK_AFTER_RE = re.compile(
    rf"[ \t]+(?:{data.phrase_pattern('times', 'week_after').pattern})", re.IGNORECASE
)
# ... or before it: "dentist nxt wk thurs 9.15"
_WEEK_BEFORE_RE = re.compile(
    rf"(?:{data.phrase_pattern('times', 'week_after').pattern})[ \t]+$", re.IGNORECASE
)
_WEEKDAY_DAY_NUMBER_RE = re.compile(
    rf"(?:on[ \t]+)?{lang.WEEKDAY_RE.pattern}\.?,?{_DAY_NUMBER}", re.IGNORECASE
)
_MONTH_AFTER_RE = re.compile(rf"[ \t]*(?:de[ \t]+)?{lang.MONTHS}\b", re.IGNORECASE)
# How far ahead such a day may be: the next two months.
DAY_NUMBER_DAYS = 63
# A range of days said with no number nor day name longer than this is a season, not a date.
SEASON_DAYS = timedelta(days=14)


# A clock reading must beat the other reading (am or pm) by this much in closeness to the
# time it answers: "make it 8:30" for a 19:30 dinner is 20:30, for a 14:00 meeting unclear.
MOVE_CLOSER_BY = timedelta(hours=4)


def _apart(reading: datetime, said: datetime, zone: ZoneInfo) -> timedelta:
    """How far apart two times of day are, around the clock."""
    first, second = reading.astimezone(zone), said.astimezone(zone)
    gap = abs((first.hour - second.hour) * 60 + first.minute - second.minute)
    return timedelta(minutes=min(gap, 24 * 60 - gap))


def _near_the_clock_before(mentions: list[TimeMention], zone: ZoneInfo) -> list[TimeMention]:
    """A bare hour that changes or answers a time ("fri 8pm?" - "9 better?", "how about 9",
    "ok 9") reads two ways; the reading clearly nearer the last clock said plainly before it
    (`mentions` are in the order they were said) is the one meant. Only such bare hours: "at
    8" in a new sentence keeps both readings."""
    out: list[TimeMention] = []
    last: TimeMention | None = None  # the last clock said plainly so far
    for mention in mentions:
        plain = mention.has_clock_time or (  # "6ish", "around 6": a clock, roughly
            mention.kind == "vague" and mention.grain in ("hour", "minute")
            and any(ch.isdigit() for ch in mention.text)
            and any(w in _APPROXIMATELY for w in _WORDS_RE.findall(mention.text.casefold()))
        )  # fmt: skip
        if mention.answers and not mention.alternatives and mention.value and last is not None:
            mention = _half_nearest(mention, last)  # "9pm?" - "make it 11:30": 23:30
            last = mention
        elif plain and not mention.alternatives and mention.value:
            last = mention
        elif mention.answers and mention.alternatives and mention.value and last is not None:
            said = last.value
            readings = sorted(
                [mention.value, *mention.alternatives], key=lambda r: _apart(r, said, zone)
            )
            gaps = [_apart(r, said, zone) for r in readings]
            if len(readings) == 2 and gaps[1] - gaps[0] >= MOVE_CLOSER_BY:
                mention = replace(mention, value=readings[0], alternatives=())
        out.append(mention)
    return out


_TWELVE_HOUR_CLOCK_RE = re.compile(r"(?<![\d:.])(?:[1-9]|1[0-2])(?:[:.]\d{2})?(?![\d:.])")


def _half_nearest(mention: TimeMention, last: TimeMention) -> TimeMention:
    """An answering clock the words gave one half of the day ("make it 11:30", read 11:30)
    in the half clearly nearer the clock it answers ("drinks at 9pm?": 23:30), over midnight
    too ("11pm?" - "make it 12:30": 00:30 the next day). A half written is kept."""
    assert mention.value is not None and last.value is not None
    if lang.AM_PM_RE.search(mention.text) or not _TWELVE_HOUR_CLOCK_RE.search(mention.text):
        return mention
    zone = mention.value.tzinfo
    half = timedelta(hours=12)
    said = _apart(mention.value, last.value, zone)  # type: ignore[arg-type]
    twin = _apart(mention.value + half, last.value, zone)  # type: ignore[arg-type]
    if said - twin < MOVE_CLOSER_BY:
        return mention
    # the twin on the side of the clock it answers: after "11pm", 00:30 is the next day's
    later, earlier = mention.value + half, mention.value - half
    value = min((later, earlier), key=lambda r: abs(r - last.value))  # type: ignore[operator]
    return replace(mention, value=value)


# A message that only says which half of the day: "pm obviously", "AM lol", "p.m."
_HALF_ANSWER_RE = re.compile(
    r"(?![^\n]*\bor\b)\W*(?:(?:definitely|obviously|def|probably|prob|its|it's)[ \t]+)?"
    r"(?P<half>[ap])\.?m\b\.?"
    r"(?:[ \t]+(?:obviously|lol|haha|please|pls|ofc|for[ \t]+sure|of[ \t]+course))?"
    r"[ \t]*(?:[,.;!]|$)",
    re.IGNORECASE,
)


# A meal thanked for or looked back on ("thanks for dinner!", "loved brunch") is no plan's.
_THANKED_FOR_RE = re.compile(rf"{lang.THANKED_FOR}[^\W\d_]+", re.IGNORECASE)


def _half_asked(request: str, bodies: list[str]) -> tuple[str, bool] | None:
    """The half of the day the request's plan or the thread's own answer settles ("add the
    dinner" is an evening's, "pm obviously" answers "am or pm?"), and whether it was said as an
    answer; None when nothing, or both."""
    answers = {m.group("half").lower() for b in bodies if (m := _HALF_ANSWER_RE.match(b))}
    if len(answers) == 1:
        return ("pm" if answers == {"p"} else "am"), True
    # a meal or a part of the day the thread (or the request over it) says, and never the other
    # half ("Dinner this Saturday?" ... "8?"); a bar or a party says no hour ("the bar mitzvah");
    # a meal thanked for ("thanks for dinner!") and a greeting ("good evening!") say none
    said = lang.blank_greetings(_THANKED_FOR_RE.sub(" ", " ".join([request, *bodies])))
    evening = lang.LATE_EVENING_RE.search(said)
    morning = lang.MORNING_RE.search(said)
    if bool(evening) != bool(morning):
        return ("pm" if evening else "am"), False
    return None


def _other_activities(text: str) -> list[str]:
    """The activities `text` names besides the words of a half of the day ("dinner", "morning")."""
    return [
        a
        for a in ACTIVITY_RE.findall(text)
        if not lang.EVENING_RE.fullmatch(a) and not lang.MORNING_RE.fullmatch(a)
    ]


def _half_of_day_said(
    mentions: list[TimeMention], said: tuple[str, bool] | None, zone: ZoneInfo, text: str
) -> list[TimeMention]:
    """A bare hour left open between morning and evening ("Booked for 8:15 actually"), in a
    thread whose request or answer says the half: that half's reading, and no question. Not
    one said with another plan ("dinner's off, let's grab coffee Sat at 8:30 instead")."""
    if said is None:
        return mentions
    half, answered = said
    out = []
    for mention in mentions:
        line = text[
            text.rfind("\n", 0, mention.start) + 1 : text.find("\n", mention.end) % (len(text) + 1)
        ]
        if _other_activities(line) and not answered:
            out.append(mention)
            continue
        readings = [r.astimezone(zone) for r in (mention.value, *mention.alternatives) if r]
        if len(readings) == 2 and abs(readings[0] - readings[1]) == timedelta(hours=12):
            chosen = next(r for r in readings if (r.hour >= 12) == (half == "pm"))
            mention = replace(mention, value=chosen, alternatives=())
        out.append(mention)
    return out


# Between two clocks offered for one day: a joiner ([option_joiners]), then maybe an article or
# a clock's preposition ("a 7pm and a 9:30 on friday", "at 7 or at 9 on friday").
_OPTION_JOINER_RE = re.compile(
    rf"[ \t]*(?:{data.alternation('times', 'option_joiners')})[ \t]*"
    rf"(?:(?:a|an|the|{lang.CLOCK_PREPOSITIONS})[ \t]+)?",
    re.IGNORECASE,
)
_JOINER_WORDS = "|".join(w for w in data.words("times", "option_joiners") if w.isalpha())
# A number after a count's word ("table for 4 or 6", "we'll be 2 or 3", [count_before]).
_COUNTED_AFTER_RE = re.compile(rf"\b(?:{lang.COUNT_WORDS})[ \t]+$", re.IGNORECASE)
# A bare hour right before an option's joiner word ("10 or ", "3 oder "), not a count's, a
# label's, a price's or a date's number ("table for 4 or 6", "gate 4 or 5", "$10 or 12").
_BARE_OPTION_RE = re.compile(
    r"(?<![\w:/.,\-$€£#])(?P<clock>(?P<h>1[0-2]|0?[1-9])(?::(?P<m>[0-5]\d))?)"
    rf"[ \t]+(?:{_JOINER_WORDS})[ \t]+$",
    re.IGNORECASE,
)
# Clocks written with a dot, alone or as a pair: with minutes off the five-minute steps and
# no clock word before them they number versions or sections ("3.11 to 3.12", "4.17").
_DOTTED_CLOCKS_RE = re.compile(
    r"(?:[01]?\d|2[0-3])\.(?P<m>[0-5]\d)"
    r"(?:\s*(?:-|–|to|till|until)\s*(?:[01]?\d|2[0-3])\.(?P<m2>[0-5]\d))?",
    re.IGNORECASE,
)


# Two bare hours, then a weekday: "drinks 5-7 friday", "review call 3-4 thursday".
_HOURS_THEN_WEEKDAY_RE = re.compile(
    rf"(?P<a>1[0-2]|0?[1-9])[ \t]*[-–—][ \t]*(?P<b>1[0-2]|0?[1-9])[ \t]+(?:on[ \t]+)?"
    rf"(?P<day>{lang.DAY_NAMES})\b\.?",
    re.IGNORECASE,
)
_NEAR_DATE = timedelta(days=62)


def _meal_word_first(mention: TimeMention) -> int:
    """The length of the meal's word a mention begins with ("brunch 11-1 sunday"), or 0."""
    meal = lang.MEAL_FIRST_RE.match(mention.text)
    return meal.end() if meal else 0


def _hours_before_weekday(
    clean: str, mentions: list[TimeMention], ref: datetime
) -> list[TimeMention]:
    """ "drinks 5-7 friday": Duckling reads the pair as a month and day that falls on that
    weekday, years ahead (7 May 2027). A date that only meets its weekday that far off is two
    hours on the coming weekday, after a meal's word too ("lunch 12-2 friday"); "12-4 friday"
    said in November is the Friday 4 December, and "the 11-1 sunday session" 1 November."""
    out = []
    for mention in mentions:
        skip = _meal_word_first(mention)
        said = _HOURS_THEN_WEEKDAY_RE.fullmatch(mention.text[skip:].strip())
        skip = mention.text.find(said.group(), skip) if said else 0
        value = mention.value
        if (
            said is None
            or value is None
            or (mention.has_clock_time and not skip)  # a meal's own hours yield to the pair
            or (value.month, value.day) != (int(said.group("a")), int(said.group("b")))
            # a near date stands, and a past one: "was the 11-1 sunday session recorded?"
            or value - ref < _NEAR_DATE
            or score_like(int(said.group("a")), int(said.group("b")))
            or numbered_or_counted(clean, at := mention.start + skip, at + said.end("b"))
            or lang.window_before(clean, at)  # "store hours are 10-6 on saturday"
        ):
            out.append(mention)
            continue
        local = ref.astimezone(value.tzinfo)
        ahead = (lang.WEEKDAY_INDEX[said.group("day").casefold()] - local.weekday()) % 7
        line_start = clean.rfind("\n", 0, mention.start) + 1
        start_hour, end_hour, unsure = pair_hours(
            int(said.group("a")), int(said.group("b")), "", clean[line_start : mention.end]
        )
        day = datetime.combine(local.date() + timedelta(days=ahead), time(), value.tzinfo)
        start = day.replace(hour=start_hour)
        end = day.replace(hour=end_hour) + timedelta(days=1 if end_hour <= start_hour else 0)
        out.append(
            replace(
                mention, kind="interval", value=start, end_value=end, has_clock_time=True,
                all_day=False, grain="hour",
                alternatives=(start + timedelta(hours=12),) if unsure else (),
            )
        )  # fmt: skip
    return out


def _day_said_once(clean: str, mentions: list[TimeMention]) -> list[TimeMention]:
    """Clocks offered as options with the day said once, before the first or after the last
    ("friday 7pm or 9:30?", "a 7pm and a 9:30 on friday", "9, 11 or 2 on friday"): the clocks
    said without it are on that day too. Duckling put them on today."""
    out = sorted(mentions, key=lambda m: m.start)
    clocks = [m.kind == "datetime" and m.has_clock_time and m.value is not None for m in out]
    days = [
        m.value.date() if c and lang.states_date(m.text) else None
        for m, c in zip(out, clocks, strict=True)
    ]
    joined = [
        clocks[i]
        and clocks[i + 1]
        and _OPTION_JOINER_RE.fullmatch(clean, out[i].end, out[i + 1].start) is not None
        for i in range(len(out) - 1)
    ]
    order = [*range(len(out) - 1), *reversed(range(len(out) - 1))]
    for step, i in enumerate(order):
        said, bare = (i, i + 1) if step < len(out) - 1 else (i + 1, i)
        if joined[i] and days[said] is not None and days[bare] is None:
            days[bare] = days[said]
            mention = out[bare]
            moved = days[said] - mention.value.date()  # type: ignore[union-attr]
            out[bare] = replace(
                mention,
                value=mention.value + moved,  # type: ignore[operator]
                alternatives=tuple(a + moved for a in mention.alternatives),
            )
    return out


def _open_days(clean: str, mentions: list[TimeMention]) -> list[TimeMention]:
    """A clock time said with no day in a sentence that leaves the day open ("10am is fine any
    day that week"), or with a week and no day of it ("lunch next week at 1pm", which Duckling
    puts on the Monday), is vague: it proposes, it never creates."""
    result = []
    for mention in mentions:
        if mention.has_clock_time and lang.week_only(mention.text):
            week = lang.WEEK_SPAN_RE.search(mention.text)
            mention = replace(
                mention, kind="vague", has_clock_time=False, vague=week.group(0).lower()
            )
        if mention.has_clock_time and not lang.states_date(mention.text):
            ends = _SENTENCE_END_RE.finditer(clean, 0, mention.start)
            lo = max((m.end() for m in ends), default=0)
            after = _SENTENCE_END_RE.search(clean, mention.end)
            hi = after.start() if after else len(clean)
            said = _OPEN_DAY_RE.search(clean, lo, hi)
            dated = any(  # "the Monday standup at 9am, any day works for the rest"
                lo <= m.start < hi and (m.all_day or lang.states_date(m.text))
                for m in mentions
                if m is not mention
            )
            if said is not None and not dated:
                mention = replace(
                    mention, kind="vague", has_clock_time=False, vague=said.group(0).lower()
                )
        result.append(mention)
    return result


def _day_month_swapped(stamp: str, sent: datetime) -> datetime | None:
    """`sent` with day and month exchanged, when the stamp's numeric date could be read
    either way ("12/04/27")."""
    match = _NUMERIC_DATE_RE.search(stamp)
    if not match:
        return None
    first, second = int(match.group(1)), int(match.group(2))
    if first == second or first > 12 or second > 12:
        return None
    try:
        return sent.replace(month=sent.day, day=sent.month)
    except ValueError:
        return None
