"""Times a notice states beside its start: doors, boarding, deadlines, office hours.

"The nativity play is on Thursday at 2:00pm. Doors open at 1:40pm. The office closes at
3:30pm": one start and two side times. Read as equals, the linker took the last one. A clock
time whose label (times.toml [side_labels], [replaced_openers]) sits right before it is no
start while its message states a time without one; alone ("Bookings close Friday at noon") it
stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from lang import data
from lang.activities import ACTIVITY_RE
from tools.calendar import lang

if TYPE_CHECKING:  # times.py calls this module; the mention type is only named here
    from tools.calendar.times import TimeMention

# ... and the old time a new one replaces: "4pm instead of 3pm" ([replaced_openers])
_LABEL = data.phrases_regex(
    data.phrases("times", "side_labels") + data.phrases("times", "replaced_openers")
).pattern
# The label, then up to three words with no number between it and the time: "Please arrive no
# earlier than 14:10", "Pick-up is at 12:30"; not "Boarding 16:35, departs 17:05". A lead time
# may stand between ("Please arrive 15 minutes early, at 8:45"): a number with its unit
# (times.toml [lead_units]) is no clock.
_LEAD = data.word_pattern("times", "lead_units").pattern
_WORD = rf"(?:\d+[ \t]*{_LEAD}|[^\W\d][^\s\d]*)[ \t]*"
_SIDE_RE = re.compile(rf"(?P<label>{_LABEL})[:\s]*(?:{_WORD}){{0,3}}$", re.IGNORECASE)
# "30 min before the 8pm show": the clock is what the lead time counts back from.
_RELATION_RE = data.word_pattern("times", "lead_relations")
# A business's hours: never a start (times.toml [hours_labels]).
# (anywhere before the time in its clause: "Opening hours 9am–5:30pm, Mon–Sat")
_HOURS_RE = data.phrase_pattern("times", "hours_labels")
_LOOK_BACK = 120  # characters: a label and three words fit; a long message costs no more


def _clause_before(text: str, start: int) -> str:
    """The clause written before offset `start`, up to _LOOK_BACK characters of it."""
    return lang.CLAUSE_END_RE.split(text[max(0, start - _LOOK_BACK) : start])[-1]


# A field label that opens a line ("Arrive: Amsterdam Schiphol (AMS)"): the lines under it
# that open no field of their own ("  Fri 18 Dec 2026", "  08:50") are its value.
_FIELD_RE = re.compile(r"^[ \t]*(?P<label>[^\W\d][\w' -]{0,30}?)[ \t]*:(?!\d)", re.MULTILINE)
_SIDE_LABEL_RE = re.compile(rf"^(?:{_LABEL})$", re.IGNORECASE)
_BLOCK_LINES = 4  # a field's value runs over a few lines at most


_VALUE_LINE_RE = re.compile(r"^(?:[ \t]+\S.*|[^.!?]{1,30})$")


def _field_of(text: str, mention: TimeMention) -> str:
    """The label of the field block `mention` sits in, or "": the lines from the label down
    to the mention's are a field's value, indented or short ("  Fri 18 Dec 2026", "08:50"),
    never a sentence of a message."""
    end = text.find("\n", mention.end)
    lines = text[: end if end >= 0 else len(text)].split("\n")
    for line in reversed(lines[-_BLOCK_LINES:]):
        field = _FIELD_RE.match(line)
        if field:
            return field.group("label").strip()
        if not _VALUE_LINE_RE.match(line):
            return ""
    return ""


_DEADLINE_VERB_RE = data.phrase_pattern("times", "deadline_verbs")
_DEADLINE_BREAK_RE = data.word_pattern("times", "deadline_breaks")
# (no English "the": "before the 9:30 keynote" is the keynote's time)
_BY = (
    rf"(?<![^\W\d_])(?:{data.alternation('times', 'deadline_prepositions')})"
    r"(?:[ \t]+(?:del|de|le|la|dem|den|il|o|a))?(?![^\W\d_])[ \t]*"
)
_DEADLINE_BY_RE = re.compile(rf"{_BY}$", re.IGNORECASE)
_LEADING_BY_RE = re.compile(_BY, re.IGNORECASE)  # Duckling keeps "by" in "by Monday at noon"
# A request that asks for the deadline, or for another side time, by its name.
_ASKS_SIDE_RE = re.compile(rf"{_DEADLINE_VERB_RE.pattern}|{_LABEL}", re.IGNORECASE)


def asks_for_side(asked: str) -> bool:
    """Whether a request asks for a deadline or another side time by its name ("add the
    deadline", "add the check-in")."""
    return bool(_ASKS_SIDE_RE.search(asked))


def is_deadline(text: str, mention: TimeMention) -> bool:
    """Whether `mention` is when to answer by: a deadline's preposition right before it and
    a verb that answers or signs up earlier in its clause ("Please confirm by Monday at noon"),
    with no clause of its own between them."""
    lead = _LEADING_BY_RE.match(mention.text)
    clause = _clause_before(text, mention.start) + (lead.group(0) if lead else "")
    found = _DEADLINE_BY_RE.search(clause)
    if not found:
        return False
    verbs = list(_DEADLINE_VERB_RE.finditer(clause, 0, found.start()))
    return bool(verbs) and not _DEADLINE_BREAK_RE.search(clause, verbs[-1].end(), found.start())


def _date_only(mention: TimeMention) -> TimeMention:
    """A dated deadline's day, without its clock: "confirm the venue by 2pm tomorrow, then
    let's call at 4" still says which day the call is."""
    assert mention.value is not None
    day = mention.value.replace(hour=0, minute=0, second=0, microsecond=0)
    return replace(
        mention, kind="date", value=day, end_value=None, has_clock_time=False, all_day=True,
        grain="day", alternatives=(),
    )  # fmt: skip


# A clock listed right after another, a joiner of times.toml [option_joiners] and maybe a
# clock's preposition between: "shuttle at 9am and 11am", "doors 6, 6:30 or 7".
_LISTED_AFTER_RE = re.compile(
    r"(?P<clock>\d{1,2}(?:[:.]\d{2})?(?:[ \t]*[ap]\.?m\.?)?)[ \t]*"
    rf"(?:{data.alternation('times', 'option_joiners')})[ \t]*"
    rf"(?:(?:{data.phrases_alternation(data.phrases('times', 'clock_prepositions'))})[ \t]+)?$",
    re.IGNORECASE,
)


def is_side_time(text: str, mention: TimeMention) -> bool:
    """Whether a side-time label sits right before `mention` in its sentence, or before the
    clock it is listed after ("shuttle at 9am and 11am"), or heads the field block it is
    written under ("Arrive: Amsterdam (AMS)" / "Fri 18 Dec" / "08:50"), or `mention` is a
    deadline to answer by."""
    return is_deadline(text, mention) or bool(_label_of(text, mention))


def _label_of(text: str, mention: TimeMention) -> str:
    """The side label `mention` is written under, as is_side_time finds it; "" when none."""
    # a listed clock that names its own activity is that one's ("doors 6:30 and 7pm show")
    listed = not ACTIVITY_RE.match(text[mention.end :].lstrip())
    field = _field_of(text, mention)
    return _label_before(text, mention.start, listed=listed) or (
        field if _SIDE_LABEL_RE.match(field) else ""
    )


def _label_before(text: str, start: int, *, listed: bool) -> str:
    """The side label right before offset `start`, or (`listed`) before the clock listed just
    before it; "" when none."""
    clause = _clause_before(text, start)
    found = _SIDE_RE.search(clause)
    if found and not _RELATION_RE.search(found.string, found.end("label"), found.end()):
        return found.group("label")
    before = _LISTED_AFTER_RE.search(clause) if listed else None
    if before is None:
        return ""
    return _label_before(text, start - len(clause) + before.start("clock"), listed=True)


_LABEL_WORD_RE = re.compile(_LABEL, re.IGNORECASE)


# Words before a label that say it is not wanted (acts.toml [negation], [skip_words]).
_NOT_WANTED_RE = re.compile(
    rf"(?<![^\W\d_])(?:{data.alternation('acts', 'negation')}"
    rf"|{data.alternation('acts', 'skip_words')})(?:[ \t]+(?:the|a|an))?[ \t]+[^\s,.;]*[ \t]*$",
    re.IGNORECASE,
)


def _plain(label: str) -> str:
    """A label as compared: "Pick-up" and "pickup" are one."""
    return re.sub(r"[\s-]+", "", label.casefold())


def is_opening_hours(text: str, mention: TimeMention) -> bool:
    """Whether `mention` is a place's hours ("Opening hours 9am–5:30pm")."""
    return bool(_HOURS_RE.search(_clause_before(text, mention.start)))


# Where an agenda's item starts: a line's start, maybe a bullet, or a list's comma or colon
# ("10:00 - Review backlog", "Schedule: 1:00 intro, 3:30 break").
_ITEM_OPENING_RE = re.compile(r"(?:^|\n)[ \t]*[-•*·>]?[ \t]*$|[,:;][ \t]*$")
_PLAIN_WORDS = data.words("names", "function_words") | data.words("labels", "request_verbs")


def _named_in(asked: str, line: str) -> bool:
    """Whether the request names a word of `line`: "add the coding interview" wants the item
    "10:00 - Coding with Priya"."""
    wanted = {w for w in re.findall(r"[^\W\d_]{4,}", asked.casefold()) if w not in _PLAIN_WORDS}
    return bool(wanted & set(re.findall(r"[^\W\d_]{4,}", line.casefold())))


def is_agenda_item(
    text: str, mention: TimeMention, mentions: Sequence[TimeMention], asked: str = ""
) -> bool:
    """Whether `mention` is an item of an agenda inside a range its message said before it:
    "Sprint Planning 10am - 11:30am" / "10:30 - Estimation". A clock said in a sentence ("can
    we start at 10:30?"), an item the request names, and a time inside someone's free window
    are no items."""
    if not mention.has_clock_time or mention.value is None or mention.kind != "datetime":
        return False
    if not _ITEM_OPENING_RE.search(text, max(0, mention.start - 40), mention.start):
        return False
    line_end = text.find("\n", mention.end)
    line = text[text.rfind("\n", 0, mention.start) + 1 : line_end if line_end >= 0 else None]
    if asked and _named_in(asked, line):
        return False
    clocks = [reading.timetz() for reading in (mention.value, *mention.alternatives)]
    return any(
        m.kind == "interval"
        and m.has_clock_time
        and m.end <= mention.start
        and m.value is not None
        and m.end_value is not None
        and m.value.date() == m.end_value.date()
        and any(m.value.timetz() <= clock < m.end_value.timetz() for clock in clocks)
        # "I'm free tomorrow 9am-5pm, 11 is best": a window's hours to pick in
        and not lang.WINDOW_WORD_RE.search(_clause_before(text, m.start) + m.text)
        for m in mentions
    )


def drop_side_times(
    text: str, mentions: Sequence[TimeMention], asked: str = ""
) -> list[TimeMention]:
    """`mentions` of one message without its side times, when it states a start beside them,
    without the items of an agenda inside its range, and without a place's opening hours.
    A deadline the request asks for (`asked`: "add the deadline") stays."""
    mentions = [m for m in mentions if not (m.has_clock_time and is_opening_hours(text, m))]
    mentions = [m for m in mentions if not is_agenda_item(text, m, mentions, asked)]
    keep_deadlines = asks_for_side(asked)
    # the side time the request names by its label stays: "add packet pickup" over "Packet
    # pickup: Fri Dec 11, 4-7 PM"
    wanted = {
        _plain(m.group())
        for m in _LABEL_WORD_RE.finditer(asked)
        if not _NOT_WANTED_RE.search(asked, max(0, m.start() - 20), m.start())
    }  # "add the game, not the warm-up", "I'll skip packet pickup": not asked for
    side = [
        m
        for m in mentions
        if m.has_clock_time
        and is_side_time(text, m)
        and not (keep_deadlines and is_deadline(text, m))
        and not (wanted and _plain(_label_of(text, m)) in wanted)
    ]
    if not side or not any(m.has_clock_time and m not in side for m in mentions):
        return list(mentions)
    # a dated side time leaves its day to the message's clocks that say none
    undated = not any(
        lang.states_date(m.text) for m in mentions if m.has_clock_time and m not in side
    )
    out = []
    for mention in mentions:
        if mention not in side:
            out.append(mention)
        elif undated and lang.states_date(mention.text):
            out.append(_date_only(mention))  # "Doors open at 7pm Friday, the show ... 8pm"
    return out


def drop_deadlines(
    text: str, mentions: Sequence[TimeMention], asked: str = ""
) -> list[TimeMention]:
    """A thread's `mentions` without its deadlines, when any message states another clock:
    "When: Thursday 2:00 PM" in an invitation's header block, "Please reply by Monday 9am" in
    its body. A deadline alone ("register by Friday 5pm"), or one the request asks for ("add
    the deadline"), stays."""
    if asks_for_side(asked):
        return list(mentions)
    deadlines = [m for m in mentions if m.has_clock_time and is_deadline(text, m)]
    if not any(m.has_clock_time and m not in deadlines for m in mentions):
        return list(mentions)
    return [m for m in mentions if m not in deadlines]
