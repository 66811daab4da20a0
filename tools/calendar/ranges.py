"""A start and its end said as two clock times become one mention: a range, never two starts.

Duckling reads "from 4 to 5:30" as one interval, but not "13:30–14:15", "8am–4pm" or a notice's
"Departs 6:50 AM" / "Arrives 9:05 AM" lines; left as two mentions, the later one (the end) was
read as the start. The words that bind them are data (lang/data/times.toml): a connector
between two clock times on one line, or an end label before the second. "moved from 2pm to
4pm" names an old and a new time, so a move verb before the pair leaves it alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from lang import data
from tools.calendar import lang

if TYPE_CHECKING:  # times.py calls this module; the mention type is only named here
    from tools.calendar.times import TimeMention

_CONNECTOR = data.alternation("times", "range_connectors")
_END_LABEL = data.alternation("times", "end_labels")
_PUNCT = r"[\s,;|·•.]*"
_JOINER = rf"(?:(?:{data.alternation('times', 'end_joiners')})[ \t]+){{0,2}}"
_END_PREPOSITION = rf"(?:(?:{data.alternation('times', 'end_prepositions')})[ \t]*){{0,3}}"
# What may lie between a start and its end: a connector on the same line, or an end label
# (after a comma or on the next line, maybe joined and with a preposition): "8am–4pm", "10:00
# to 12:00", ", ends 11pm", "\nArrives", " and return by ".
# A place's words: "Washington Union Station", "LGA", "New York Penn";
# ... a redacted one too ("<PERSON_1>"), and an airport's code in brackets ("London (LHR)")
_PLACE_WORD = r"(?:<[A-Z_]+_\d+>|\(?[^\W\d_][\w'’.\-()]*)"
_PLACE_WORDS = rf"(?:{_PLACE_WORD}[ \t]+){{0,5}}?"
_LABELLED_END = (
    rf"{_PUNCT}{_JOINER}(?<![^\W\d_])(?:{_END_LABEL})(?![^\W\d_])[\s:.]*{_PLACE_WORDS}"
    rf"{_END_PREPOSITION}"
)
_LABELLED_END_RE = re.compile(_LABELLED_END, re.IGNORECASE)
# ... or a word connector opening the next line: "Fri, Dec 18, 6:00 PM" / "to 10:00 PM" (a dash
# there is a list's bullet: "9:00 Keynote" / "- 10:00 Coffee")
_WORD_CONNECTOR = "|".join(
    re.escape(w)
    for code, words in data.table("times")["range_connectors"].items() if code != "any"
    for w in words.split()
)  # fmt: skip
_BETWEEN_RE = re.compile(
    rf"[ \t]*(?:{_CONNECTOR})[ \t]*|[ \t]*\n[ \t]*(?:{_WORD_CONNECTOR})[ \t]+|{_LABELLED_END}",
    re.IGNORECASE,
)
# An end label on the next line, whatever the rest of the first line says: "Departs Mon 14 Dec
# 11:25 (LHR)" + "Arrives Mon 14 Dec 14:30".
_END_LABEL_RE = re.compile(
    rf"[^\n]*\n[ \t]*(?<![^\W\d_])(?:{_END_LABEL})(?![^\W\d_])[\s:.]*", re.IGNORECASE
)
# A departure, an arrow, the places on the way, the arrival: "08:43 → Manchester Piccadilly 10:51".
# ... also with the departure's place after its time ("6:00 AM  LGA  →  7:35 AM  ORD"). A dash
# is no journey's ("Lunch 12:00 – Dinner 19:00" is two plans).
_JOURNEY_RE = re.compile(
    rf"(?:[ \t]+{_PLACE_WORD}){{0,3}}[ \t]*"
    rf"(?:{data.alternation('times', 'journey_connectors')})[ \t]*{_PLACE_WORDS}"
)


def join_ranges(text: str, mentions: Sequence[TimeMention]) -> list[TimeMention]:
    """`mentions` (offsets into `text`, sorted or not) with each start-and-end pair joined."""
    days = _day_ranges(text, _hours_after_days(text, mentions))
    ordered = sorted(_clock_pairs(text, days), key=lambda m: m.start)
    joined: list[TimeMention] = []
    index = 0
    while index < len(ordered):
        first = ordered[index]
        second = ordered[index + 1] if index + 1 < len(ordered) else None
        if second is not None and _is_range(text, first, second):
            joined.append(_range(text, first, second))
            index += 2
        else:
            joined.append(first)
            index += 1
    return joined


def _is_range(text: str, first: TimeMention, second: TimeMention) -> bool:
    if first.kind != "datetime" or second.kind != "datetime":
        return False  # an interval Duckling read already has its end
    if not (first.has_clock_time and second.has_clock_time):
        return False
    if first.value is None or second.value is None or first.end > second.start:
        return False
    if _journey(text, first, second):
        return True  # "08:43 → Manchester 10:51, Monday 7 December": the arrival dates both
    if lang.states_date(second.text):
        # "Departs Mon 14 Dec 11:25 (LHR)" / "Arrives Mon 14 Dec 14:30": an end label before a
        # dated time makes it the end all the same; "Monday 3pm - Tuesday 9am" is not read here
        labelled = _END_LABEL_RE.match(text, first.end, second.start) or _LABELLED_END_RE.fullmatch(
            text, first.end, second.start
        )  # ", arrives New York Penn 11:52 AM, Thursday Dec 17"
        return bool(labelled) and second.value > first.value
    if not _BETWEEN_RE.fullmatch(text, first.end, second.start):
        return False
    line_start = text.rfind("\n", 0, first.start) + 1
    return not lang.MOVED_FROM_RE.search(text, line_start, first.end)


def _journey(text: str, first: TimeMention, second: TimeMention) -> bool:
    return bool(_JOURNEY_RE.fullmatch(text, first.end, second.start)) and not (
        lang.states_date(first.text) and lang.states_date(second.text)
    )


def _range(text: str, first: TimeMention, second: TimeMention) -> TimeMention:
    start = first.value
    assert start is not None and second.value is not None
    if lang.states_date(second.text) and not lang.states_date(first.text):
        arrival = second.value.astimezone(start.tzinfo)  # the date said once, at the arrival
        start = datetime.combine(arrival.date(), start.time(), start.tzinfo)
    clock = second.value.astimezone(start.tzinfo)
    end = datetime.combine(start.date(), clock.time(), start.tzinfo)
    if lang.states_date(second.text) and lang.states_date(first.text):
        end = clock  # a dated end: an overnight flight lands the next day
    if end <= start and not lang.AM_PM_RE.search(second.text) and end + timedelta(hours=12) > start:
        end += timedelta(hours=12)  # "9 to 5": the afternoon's 5
    elif end <= start:
        end += timedelta(days=1)  # "22:00–02:00" ends after midnight
    # another reading of the start holds only before the end: "start at 9 and end at 3" is 9am
    alternatives = tuple(a for a in first.alternatives if a < end)
    return replace(
        first,
        text=text[first.start : second.end],
        end=second.end,
        kind="interval",
        value=start,
        end_value=end,
        alternatives=alternatives,
    )


# "14.–16. Mai 2027", "14–16 September": a first day, a connector, then a date that names the
# month (and year) for both. Duckling reads the date alone, or the first day in the wrong month.
_FIRST_DAY_RE = re.compile(rf"(?<![\d.#№])(?P<day>\d{{1,2}})\.?[ \t]*(?:{_CONNECTOR})[ \t]*$", re.I)
_DAY_FIRST_RE = re.compile(r"\s*(?P<day>\d{1,2})(?!\d)")
# Duckling's own interval over such a range ("vom 14. bis 16. Mai 2027") with its start outside
# the end's month: the first day belongs to the end's month.
_DAY_PAIR_RE = re.compile(
    rf"\D{{0,6}}?(?P<first>\d{{1,2}})\.?[ \t]*(?:{_CONNECTOR})[ \t]*(?P<last>\d{{1,2}})(?!\d)", re.I
)


def _day_ranges(text: str, mentions: Sequence[TimeMention]) -> list[TimeMention]:
    """All-day ranges whose month and year are said once, at their end, read as one range;
    a mention of the first day alone (Duckling's "14." as this month's 14th) is dropped."""
    out = list(mentions)
    for index, mention in enumerate(out):
        joined = _day_range(text, mention)
        if joined is not None:
            out[index] = joined
    spans = [(m.start, m.end) for m in out if m.kind == "interval" and m.all_day]
    return [
        m for m in out
        if not any(s <= m.start and m.end <= e and (m.start, m.end) != (s, e) for s, e in spans)
    ]  # fmt: skip


def _day_range(text: str, mention: TimeMention) -> TimeMention | None:
    if not mention.all_day or mention.value is None:
        return None
    if mention.kind == "interval" and mention.end_value is not None:
        pair = _DAY_PAIR_RE.match(mention.text)
        last = mention.end_value - timedelta(days=1)
        if pair is None or int(pair.group("last")) != last.day:
            return None
        first = int(pair.group("first"))
        start = mention.value
        if (start.year, start.month) == (last.year, last.month) or not 1 <= first < last.day:
            return None
        return replace(mention, value=last.replace(day=first))
    if mention.kind != "date":
        return None
    own = _DAY_FIRST_RE.match(mention.text)
    before = _FIRST_DAY_RE.search(text, max(0, mention.start - 16), mention.start)
    if own is None or before is None or int(own.group("day")) != mention.value.day:
        return None
    first = int(before.group("day"))
    if not 1 <= first < mention.value.day:
        return None
    return replace(
        mention,
        text=text[before.start() : mention.end],
        start=before.start(),
        kind="interval",
        value=mention.value.replace(day=first),
        end_value=mention.value + timedelta(days=1),
    )


# A stated day, then two bare hours joined by a dash (tools/calendar/lang.py blanks the pair
# for Duckling): one range on that day.
_EARLIEST_MORNING = 7  # a bare start from 7 to 11 is the morning's, 1 to 6 the afternoon's
_UNSURE_STARTS = range(6, 9)  # ... but "7-10" may be an evening's: the gate asks
_SCORE_BELOW = 9  # a bare pair whose start is later than its end starts at 9 or later


def _hours_after_days(text: str, mentions: Sequence[TimeMention]) -> list[TimeMention]:
    """A day, then two bare hours joined by a dash, read as one range on that day; Duckling's
    own readings of the pair are dropped. A start later than its end ("10-2") is the morning's,
    with an afternoon end; a start from 7 to 11 is the morning's, from 1 to 6 the
    afternoon's; one from 6 to 8 ending before noon may be either, so it keeps both."""
    out = list(mentions)
    for mention in mentions:
        # a day ("dec 10", "sat") or a meal on a day ("dinner sat")
        if mention.has_clock_time or mention.kind not in ("date", "vague") or not mention.value:
            continue
        pair = lang.hour_pair(text, mention.end)
        if pair is None or not lang.states_date(mention.text):
            continue
        line = text[text.rfind("\n", 0, mention.start) + 1 : pair.end()]
        start_hour, end_hour, unsure = pair_hours(
            int(pair.group("a")), int(pair.group("b")), pair.group("mer") or "", line
        )
        other_half = timedelta(hours=12 if start_hour < 12 else -12)
        day = mention.value
        start = day.replace(hour=start_hour, minute=0, second=0, microsecond=0)
        end = day.replace(hour=end_hour, minute=0, second=0, microsecond=0)
        if end <= start:
            end += timedelta(days=1)
        joined = replace(
            mention,
            text=text[mention.start : pair.end()],
            end=pair.end(),
            kind="interval",
            value=start,
            end_value=end,
            has_clock_time=True,
            all_day=False,
            grain="hour",
            alternatives=(start + other_half,) if unsure else (),
        )
        said = range(pair.start("pair"), pair.end())  # Duckling's own reading of the pair
        out = [m for m in out if m is not mention and m.start not in said]
        out.append(joined)
    return out


# Words that put hours in the evening ("karaoke fri 10-12", "party sat 9-1", "night shift dec
# 12 11-7") or in the day ("breakfast", "dentist"), as the bare hours' rules read them.
def _daytime(line: str) -> bool:
    return bool(lang.MORNING_RE.search(line) or lang.DAYTIME_RE.search(line))


def pair_hours(a: int, b: int, meridiem: str, line: str) -> tuple[int, int, bool]:
    """The start and end hours of a pair of bare hours `a` and `b` (1 to 12; the end may be past
    midnight), and whether the start's half of the day is unsure. `meridiem` is the end's "a" or
    "p", if written; `line`, the words around them, may put them in the evening or in the day."""
    meridiem = meridiem.casefold()
    if meridiem:  # "7-9pm", "12-2pm", "11-1pm": the start takes the end's half unless later
        pm = meridiem == "p"
        return a % 12 + (12 if pm and (a < b or a == 12) else 0), b % 12 + (12 if pm else 0), False
    if lang.EVENING_RE.search(line) and not _daytime(line):
        # "7-10": 19:00 to 22:00; "10-2", "10-12": 22:00 to 02:00 or midnight, the next day
        return a % 12 + 12, b + 12 if a < b < 12 else b % 12, False
    if a > b:  # "10-2", "12-4": the morning's or noon's start to the afternoon's end
        return (12 if a == 12 else a), b + 12, False
    if a >= _EARLIEST_MORNING:  # "9-11", "7-12"
        return a, b, a in _UNSURE_STARTS and b < 12 and not _daytime(line)
    if lang.MORNING_RE.search(line) and a < b:  # "6:30-7:30 tomorrow morning"
        return a, b, False
    return a + 12, (b + 12) % 24, a in _UNSURE_STARTS  # "1-3", "6-8": the afternoon's


# Two clocks joined by a connector wherever the day is said ("7-9 tonight", "4-4:30 friday",
# "11 to 1pm", "9 to 11 tomorrow", "lunch 12-2 friday"): Duckling reads the end alone, a date
# ("7-9" as 9 July), minutes to the hour ("9 to 11" as 10:51), or a start the day before.
# Neither clock may be part of a date, a count, a price or a length.
_CLOCK = (
    r"(?P<{n}>[01]?\d|2[0-3])(?:[:.h](?P<{n}min>[0-5]\d))?(?:[ \t]*(?P<{n}mer>[ap])\.?m\b\.?|h\b)?"
)
_WORD_CONNECTORS = "|".join(
    sorted(
        (re.escape(w) for w in data.words("times", "range_connectors") if w[0].isalpha()),
        key=len,
        reverse=True,
    )
)
_CLOCK_PAIR_RE = re.compile(
    r"(?<![\w/.:#$€£,\-])"
    + _CLOCK.format(n="a")
    + rf"[ \t]*(?:(?P<word>{_WORD_CONNECTORS})(?![\w'])|{_CONNECTOR})[ \t]*"
    + _CLOCK.format(n="b")
    + r"(?![\w/:%€$]|[.,]\d|-\d|\s*(?:years?|yrs?|y/?o|hours?|hrs?|minutes?|mins?|days?|weeks?"
    r"|months?|times|x|percent|dollars?|euros?|pounds?|bucks|k)\b)",
    re.IGNORECASE,
)


_CLAUSE_END_RE = re.compile(r"[,.!?;\n|]")
_FROM_BEFORE_RE = re.compile(
    rf"(?<![^\W\d_])(?:{data.alternation('times', 'move_from')})[ \t]*$", re.IGNORECASE
)
_NUMBER_LABEL_BEFORE_RE = re.compile(
    rf"(?<![^\W\d_])(?:{data.alternation('times', 'number_labels')})\.?[ \t]*(?:#|no\.?)?[ \t]*$",
    re.IGNORECASE,
)
_RANGE_OPENER_BEFORE_RE = re.compile(
    rf"(?<![^\W\d_])(?:{data.alternation('times', 'range_openers')})[ \t]*$", re.IGNORECASE
)
# English "to" between bare numbers may say minutes to an hour: "20 to 8" is 7:40, never a
# range from 20:00 ("10 to 2" in digits is one). Duckling reads "twenty to eight" and "20 vor
# 8", but took "20 to 8 tonight" for 20:00. A quarter, twenty or twenty-five to an hour is
# always minutes; five or ten only after a clock's preposition or an "about" ("at 10 to 8",
# [clock_prepositions], [approximately]), since "5 to 10 tonight" is also a range. A range's
# opener ("from 20 to 8"), a score's word ("won 20 to 8", [score_before]) or a count or unit
# after the numbers keeps them as they are.
_SPOKEN_TO = frozenset({"to", "till", "til"})
_MINUTES_TO = frozenset({15, 20, 25})
_MINUTES_TO_AFTER_AT = frozenset({5, 10})
_MINUTES_TO_RE = re.compile(
    r"(?:(?<![^\W\d_])(?:(?P<lead>"
    rf"{data.phrases_alternation(data.phrases('times', 'clock_prepositions'))}"
    rf"|{data.alternation('times', 'approximately')})"
    rf"|(?P<other>{data.alternation('times', 'range_openers')}"
    rf"|{data.alternation('times', 'score_before')}))[ \t]+)?"
    rf"(?<![\w:.])(?P<said>(?P<n>\d{{1,2}})[ \t]+(?:{'|'.join(_SPOKEN_TO)})[ \t]+"
    r"(?P<h>1[0-2]|[1-9]))"
    r"(?!\d|[:.]\d|(?:st|nd|rd|th)\b|[ \t]*(?:hours?|hrs?|h\b|mins?\b|minutes?))",
    re.IGNORECASE,
)


def _minutes_to(text: str) -> list[tuple[int, int, str]]:
    """Each "N to H" of `text` that says minutes before an hour: its span and the clock it
    says ("7:40" for "20 to 8")."""
    said = []
    for match in _MINUTES_TO_RE.finditer(text):
        minutes, hour = int(match.group("n")), int(match.group("h"))
        if (
            match.group("other")
            or not (
                minutes in _MINUTES_TO or (minutes in _MINUTES_TO_AFTER_AT and match.group("lead"))
            )
            or numbered_or_counted(text, match.start("said"), match.end())
        ):
            continue
        said.append((*match.span("said"), f"{hour - 1 or 12}:{60 - minutes:02d}"))
    return said


def _minutes_before_end(text: str, pair: re.Match[str], end: datetime) -> tuple[datetime, ...]:
    """The other reading of "10 till 4", "5 to 10" read as a range: five or ten minutes before
    its end's hour (15:50, 21:55), which the words leave open when the range would be long or
    the numbers open their line ("10 to 1 better"); none after a range's opener ("from 10 to
    4"), nor for an event's few hours ("open house 10 to 2", "brunch 10 to 12")."""
    line_start = text.rfind("\n", 0, pair.start()) + 1
    minutes, hour = int(pair.group("a")), int(pair.group("b"))
    opens = not re.search(r"\w", text[line_start : pair.start()].split(":")[-1])
    if (
        (pair.group("word") or "").casefold() in _SPOKEN_TO
        and _bare(pair)
        and minutes in _MINUTES_TO_AFTER_AT
        and ((hour - minutes) % 12 >= _LONG_RANGE_HOURS or opens)
        and not _RANGE_OPENER_BEFORE_RE.search(text, line_start, pair.start())
    ):
        return (end - timedelta(minutes=minutes),)
    return ()


_LONG_RANGE_HOURS = 5


def respell_minutes_to(text: str) -> str:
    """`text` with minutes before an hour written as the clock they say, padded to the same
    length so every offset holds: Duckling reads "7:40   tonight"."""
    for start, end, clock in _minutes_to(text):
        text = text[:start] + clock.ljust(end - start) + text[end:]
    return text


def _clock_pairs(text: str, mentions: Sequence[TimeMention]) -> list[TimeMention]:
    """`mentions` with each pair of clocks joined by a connector read as one range that starts
    at the first clock, on the day the mentions around it say; after a move verb and "from"
    ("moving the dentist from 3 to 4:15pm") as the new clock alone. A pair Duckling read right,
    a move with no "from" ("push it 7 to 8"), or one no time mention touches is left as it is."""
    out = list(mentions)
    for pair in _CLOCK_PAIR_RE.finditer(text):
        if _no_clocks(text, pair):
            # "we're in room 4-2 tomorrow", "terminó 3 a 2 esta noche": Duckling's "2 tomorrow"
            # and "a 2" start inside the numbers, which hold no clock
            out = [m for m in out if not pair.start() <= m.start < pair.end()]
            continue
        touching = [m for m in out if m.start < pair.end() and pair.start() < m.end]
        host = max(
            (m for m in touching if m.value is not None and (m.has_clock_time or m.vague)),
            key=lambda m: m.end - m.start,
            default=None,
        )
        if host is None or host.value is None:
            continue
        if any(
            m.has_clock_time and lang.states_date(m.text) and pair.end() <= m.start < host.end
            for m in out
        ) or (
            _date_then_clock(text, pair)
            and any(m.has_clock_time and m.start >= pair.end() and m not in touching for m in out)
        ):
            # "party of 4-6 tomorrow at 8pm", "el 7-11 esta noche a las 8": the day after the
            # pair has its own clock; the pair counts or names a place, and what Duckling read
            # in its numbers ("6 tomorrow", "el 7") goes
            out = [m for m in out if m not in touching]
            continue
        read = _pair_reading(text, pair, host)
        if read is None or any(_read_right(m, read[0]) for m in touching):
            continue
        start, end, unsure = read
        first = min(pair.start(), *(m.start for m in touching))
        last = max(pair.end(), *(m.end for m in touching))
        joined = replace(
            host,
            text=text[first:last],
            start=first,
            end=last,
            kind="interval",
            value=start,
            end_value=end,
            has_clock_time=True,
            all_day=False,
            grain="minute" if start.minute or end.minute else "hour",
            alternatives=((start + timedelta(hours=12),) if unsure else ())
            + _minutes_before_end(text, pair, end),
        )
        line_start = text.rfind("\n", 0, pair.start()) + 1
        if lang.MOVE_VERB_RE.search(text, line_start, pair.start()):
            # "moving the dentist from 3 to 4:15pm", "spostare ... dalle 10 alle 11": a move
            # from one clock to another; the new one is what the words fix
            joined = replace(
                joined,
                kind="datetime",
                value=end,
                end_value=None,
                alternatives=(end + timedelta(hours=12),) if unsure else (),
            )
        out = [m for m in out if m not in touching] + [joined]
    return out


def _read_right(mention: TimeMention, start: datetime) -> bool:
    """Whether `mention` is already a range from `start` (Duckling's "from 7-9 tonight")."""
    return (
        mention.kind == "interval"
        and mention.value == start
        and mention.end_value is not None
        and timedelta(0) < mention.end_value - mention.value <= timedelta(hours=16)
    )


def _pair_reading(
    text: str, pair: re.Match[str], host: TimeMention
) -> tuple[datetime, datetime, bool] | None:
    """The start and end a pair of clocks says on `host`'s day, and whether the start's half of
    the day is unsure; None when the pair is no range of clocks here."""
    line_start = text.rfind("\n", 0, pair.start()) + 1
    # the words before it on its line and the rest of its clause ("7-9 tonight", "6:30-7:30
    # tomorrow morning"; not "9-5 tomorrow, dinner after")
    clause_end = _CLAUSE_END_RE.search(text, max(pair.end(), host.end))
    clause = text[line_start : clause_end.start() if clause_end else len(text)]
    before = text[line_start : pair.start()]
    if (
        lang.MOVE_VERB_RE.search(before) or lang.MOVED_FROM_RE.search(before)
    ) and not _FROM_BEFORE_RE.search(before):
        return None  # "push it 7 to 8": an old clock and a new one, which the linker reads
    if numbered_or_counted(text, pair.start(), pair.end()):
        return None
    if any(start == pair.start() for start, _, _ in _minutes_to(text[: pair.end() + 12])):
        return None  # "20 to 8", "at 10 to 8pm": minutes before an hour, which Duckling reads
    word = (pair.group("word") or "").casefold()
    if word and _bare(pair):
        # two bare numbers joined by a word: "5 to 10 tonight" may be five to ten, and "3 a 2"
        # is a score unless an opener says a range ("de 9 a 11")
        if (
            word in _SPOKEN_TO
            and int(pair.group("a")) in _MINUTES_TO
            and int(pair.group("b")) <= 12
        ):
            return None
        if len(word) <= 2 and word not in _SPOKEN_TO and not _RANGE_OPENER_BEFORE_RE.search(before):
            return None
    line_end = text.find("\n", pair.end())
    if (
        lang.MONTH_BEFORE_RE.search(before)
        or lang.zone_after(text, pair.end())
        or lang.ZONE_WRITTEN_RE.search(text, pair.end(), len(text) if line_end < 0 else line_end)
    ):
        return None  # "Tue Dec 8 - 10am": a day, then its clock; "02:00-04:00 UTC": Duckling's
    outside = text[host.start : max(host.start, pair.start())] + text[pair.end() : host.end]
    if re.search(r"\d", outside) or _date_then_clock(text, pair):
        return None  # "on 12-2 at 3pm", "lunch 12-8 at noon": a date, its clock elsewhere
    a, b = int(pair.group("a")), int(pair.group("b"))
    a_min, b_min = int(pair.group("amin") or 0), int(pair.group("bmin") or 0)
    if (a, a_min) == (b, b_min) or (b > 12 >= a and not pair.group("amin")):
        return None  # "10-20 tonight": a count or a price, no clocks
    if _bare(pair) and score_like(a, b):
        return None
    if (
        host.has_clock_time
        and host.value is not None
        and host.value.hour % 12 not in (a % 12, b % 12)
        and host.value.minute in (a_min, b_min)  # "7 till 9" is 20:53 to Duckling: no zone
    ):
        return None  # read in a zone the message gives ("Time zone: America/Los_Angeles")
    day = _pair_day(host, pair)
    if day is None:
        return None
    start_hour, end_hour, unsure = _pair_clock_hours(pair, clause)
    start = datetime.combine(day, datetime.min.time(), host.value.tzinfo).replace(  # type: ignore[union-attr]
        hour=start_hour, minute=a_min
    )
    end = start.replace(hour=end_hour, minute=b_min)
    if end <= start:
        end += timedelta(days=1)
    if end - start > timedelta(hours=12):
        return None  # "5 to 11" is no range of one sitting here
    return start, end, unsure


def _no_clocks(text: str, pair: re.Match[str]) -> bool:
    """Whether a pair's numbers are a label's, a count or a score ("room 4-2", "2-3 people",
    "we won 4-2", "3 a 2"), so no clock Duckling read in them stands."""
    word = (pair.group("word") or "").casefold()
    return numbered_or_counted(text, pair.start(), pair.end()) or (
        _bare(pair)
        # a dash or a short word ("3 a 2"); "I'm on 7 to 3 friday" says a shift's hours
        and (not word or (len(word) <= 2 and word not in _SPOKEN_TO))
        and score_like(int(pair.group("a")), int(pair.group("b")))
    )


def _date_then_clock(text: str, pair: re.Match[str]) -> bool:
    """Whether a dashed pair of bare numbers has a clock of its own right after it ("lunch 12-8
    at noon", "el 7-11 esta noche a las 8"): the pair is a date or a name. "from 2 to 3
    tomorrow but doors open at 1:30" is a range, its clock a side time."""
    if pair.group("word") or not _bare(pair):
        return False
    after = text[pair.end() : pair.end() + _NEAR_CLOCK]
    cut = _NEXT_ITEM_RE.search(after)  # "Monday 4-5 and Wednesday 4-5": another item's clock
    return lang.clock_after(after[: cut.start()] if cut else after, 0)


_NEAR_CLOCK = 24  # characters after a pair that its own clock is said within
_NEXT_ITEM_RE = re.compile(
    rf"\b(?:{data.alternation('times', 'option_joiners')})\b|{lang.WEEKDAY_RE.pattern}",
    re.IGNORECASE,
)


def numbered_or_counted(text: str, start: int, end: int) -> bool:
    """Whether the numbers at text[start:end] number a place or a page ("room 4-2", "pages
    10-12", times.toml [number_labels]) or count people ("2-3 people"): no hours."""
    line_start = text.rfind("\n", 0, start) + 1
    return bool(
        _NUMBER_LABEL_BEFORE_RE.search(text, line_start, start)
        or lang.COUNT_AFTER_RE.match(text, end)
    )


def score_like(a: int, b: int) -> bool:
    """Whether two bare numbers read as hours would start before 9 and end earlier still: a
    score or a vote ("we won 4-2", "the vote was 7-2"); "10-2" and "9-1" are hours."""
    return _SCORE_BELOW > a > b


def _bare(pair: re.Match[str]) -> bool:
    """Whether both clocks of a pair are bare hours: no minutes, no half of the day."""
    return not any(pair.group(g) for g in ("amin", "amer", "bmin", "bmer"))


def _pair_day(host: TimeMention, pair: re.Match[str]) -> date | None:
    """The day of a pair's start: the day `host` says. A range over midnight whose day is said
    after it ("8pm until 1am Saturday") may be either night: None."""
    assert host.value is not None
    said_after = host.start >= pair.start() and lang.states_date(host.text)
    if host.kind == "interval" and host.end_value is not None and not lang.states_date(host.text):
        return host.end_value.date()  # "11 to 1pm": the end Duckling read right
    if said_after and int(pair.group("b")) % 12 < int(pair.group("a")) % 12 and pair.group("bmer"):
        return None
    return host.value.date()


def _pair_clock_hours(pair: re.Match[str], clause: str) -> tuple[int, int, bool]:
    """The start and end hours of a pair of clocks, 0 to 23: a half of the day written wins;
    a 24-hour clock is its own; bare hours are read as `pair_hours` reads them."""
    a, b = int(pair.group("a")), int(pair.group("b"))
    a_mer, b_mer = (pair.group("amer") or "").casefold(), (pair.group("bmer") or "").casefold()
    if a > 12 or pair.group("amin") and (b > 12 or pair.group("a").startswith("0")):
        return a, b, False  # "13:30-15", "09:00-11:00", "10:00-14:00": a 24-hour clock
    if a_mer:
        start = a % 12 + (12 if a_mer == "p" else 0)
        end = b % 12 + (12 if (b_mer or a_mer) == "p" else 0)
        if not b_mer and end <= start and end + 12 - start <= 12:
            end = (end + 12) % 24  # "11am-2": the afternoon's 2
        return start, end, False
    if b_mer:
        end = b % 12 + (12 if b_mer == "p" else 0)
        start = a % 12 + (12 if b_mer == "p" else 0)
        if start >= end:  # "11-1pm" is 11am, "12-2pm" noon, "11-1am" the night before's 11pm
            start = (start - 12) % 24
        return start, end, False
    return pair_hours(a, b, "", clause)
