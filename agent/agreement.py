"""Whether the user agreed to a start read from a pasted thread, by what the thread's people
wrote: the user's last word on it where they wrote, the other side's pressure where they did not.

The assistant asks this of every start the user did not type when the thread holds lines of the
user's (or gives the assistant orders): "add this" is then no yes to a time the user's own lines
do not end on a yes to. Where the user wrote nothing, "add this" is their yes, unless what sets
the time pushes it on them (a booking made for them, "no need to reply", a threat if it is not
in their calendar). Wording is read by fitted heads (`understanding.acts`: the reply-stance
head, the pressure head); this module only says which messages are read, and in what order.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from agent.extraction import ProposedEvent
from lang.thread import Message, age_order, is_self
from tools.calendar.lang import HOUR_RE, STAMP_DATE_RE, states_date
from tools.calendar.times import TimeMention
from understanding.acts import presses, reply_disagrees, reply_reading

# A clause: up to a comma, a stop or a dash set between spaces ("the 9th is impossible - I'm
# away until the 11th" is two).
_CLAUSE_RE = re.compile(r"(?:[^,;.!?\n\s]|\s(?![-–—]\s))+")


# A number standing apart in a mention: a date's ("9 Dec", "the 9th", "14/12") unless it is a
# clock's hour (`HOUR_RE`: "4pm", "16 Uhr", "10h", "9:40").
_NUMBER_RE = re.compile(r"(?<![\d:.])\d{1,4}(?!\d)")


def written(thread: str, message: Message) -> str:
    """What a message's sender wrote: its message and text lines, not a mail's "Subject: Re:
    ..." line (a reply's subject carries the original's words) or its headers."""
    return "\n".join(
        thread[line.body_start : line.body_end]
        for line in message.lines
        if line.kind in ("message", "text") and line.body_end > line.body_start
    )


def days_named(mention: TimeMention, zone: ZoneInfo) -> set[date]:
    """The days a dated mention may name: its own, and for a weekday with no date ("Dienstag
    früh", "Wednesday 4pm"), every date of that weekday within a fortnight of it (a message's
    "Tuesday" can be the Tuesday a week on, read from another day's stamp)."""
    assert mention.value is not None
    own = mention.value.astimezone(zone).date()
    if any(not HOUR_RE.match(mention.text, n.start()) for n in _NUMBER_RE.finditer(mention.text)):
        return {own}
    return {own + timedelta(days=7 * k) for k in (-2, -1, 0, 1, 2)}


@dataclass
class _Reading:
    """One start weighed against one thread: which mentions say it, which name its day, and
    the thread's messages oldest first."""

    thread: str
    event: ProposedEvent
    zone: ZoneInfo
    said: list[TimeMention]
    dated: list[tuple[TimeMention, set[date]]]
    aged: list[Message]
    rank: dict[int, int] = field(init=False)

    def __post_init__(self) -> None:
        self.rank = {message.index: n for n, message in enumerate(self.aged)}

    @property
    def day(self) -> date:
        assert self.event.start is not None
        return self.event.start.astimezone(self.zone).date()

    @staticmethod
    def span(message: Message) -> tuple[int, int]:
        return message.lines[0].start, message.lines[-1].end

    def says(self, message: Message) -> bool:
        begin, end = self.span(message)
        return any(begin <= m.start < end for m in self.said)

    def names_day(self, message: Message) -> bool:
        begin, end = self.span(message)
        return any(begin <= m.start < end and self.day in days for m, days in self.dated)

    def asks_else(self, message: Message) -> bool:
        """Whether another's message leaves a question about something else open: a question
        in it after its last word on the plan ("ok friday 8pm it is. can you bring wine?"), or
        anywhere in one that does not name the plan ("mind if I add Jonah?")."""
        text = self.thread
        begin, end = self.span(message)
        about = [m.end for m in self.said if begin <= m.start < end] + [
            m.end for m, days in self.dated if begin <= m.start < end and self.day in days
        ]
        if about:  # the question that says the plan asks about it ("dinner friday 8pm?")
            stop = re.compile(r"[.!?\n]").search(text, max(about))
            after = stop.end() if stop else end
        else:
            after = begin
        return any(
            "?" in text[max(line.body_start, after) : line.body_end]
            for line in message.lines
            if line.kind in ("message", "text") and line.body_end > after
        )

    def answering(self, written_order: list[Message]) -> set[int]:
        """The user's messages that answer the plan: in the order written, no question of
        another's about something else since the last message about it ("ok" answers the
        question just before it)."""
        answers: set[int] = set()
        open_else = True  # nothing about the plan said yet
        for message in written_order:
            if self.says(message) or self.names_day(message):  # the plan is the topic again
                open_else = self.asks_else(message)
            elif is_self(message.speaker):
                if not open_else:
                    answers.add(message.index)
            elif "?" in written(self.thread, message):
                open_else = True
        return answers

    def day_clauses(self, message: Message) -> list[tuple[str, bool]] | None:
        """The user's message's clauses to read for the plan's day when it names that day,
        its clauses about other days the thread offers left out ("lundi oui, mardi non je
        peux pas" keeps "lundi oui"; "ti dico stasera" stays), each with whether it names the
        day; [] when the message names no day, None when it names only others."""
        begin, end = self.span(message)
        mine = [(m, days) for m, days in self.dated if begin <= m.start < end]
        if not mine:
            return []
        offered = {d for m, days in self.dated if not begin <= m.start < end for d in days}
        kept: list[tuple[str, bool]] = []
        names_it = False
        for line in message.lines:
            if line.kind not in ("message", "text"):
                continue
            for clause in _CLAUSE_RE.finditer(self.thread, line.body_start, line.body_end):
                named = [days for m, days in mine if clause.start() <= m.start < clause.end()]
                if any(self.day not in days and days & offered for days in named):
                    continue  # "mardi non": about another day the thread offers
                naming = self.day in set().union(*named)
                names_it = names_it or naming
                if re.search(r"\w", clause.group()):  # not a rule of dashes
                    kept.append((clause.group(), naming))
        return kept if names_it else None


def _reading_of(
    thread: str,
    ordered: list[Message],
    event: ProposedEvent,
    mentions: list[TimeMention],
    zone: ZoneInfo,
) -> _Reading:
    assert event.start is not None
    day = event.start.astimezone(zone).date()
    wall = event.start.astimezone(zone).time()
    dated = [
        (m, days_named(m, zone)) for m in mentions
        if m.source == "thread" and m.value is not None and states_date(m.text)
    ]  # fmt: skip
    if event.all_day:  # an all-day plan is said by its day ("the summit is Oct 8, all day")
        said = [m for m, days in dated if not m.has_clock_time and day in days]
    else:  # its clock, on its day where the mention says one ("coffee Tuesday 10am?" says
        # no Wednesday 10:00)
        said = [
            m for m in mentions
            if m.source == "thread" and m.has_clock_time and m.value is not None
            and m.value.astimezone(zone).time() == wall
            and (not states_date(m.text) or day in days_named(m, zone))
        ]  # fmt: skip
    aged = sorted((message for message in ordered if message.lines), key=age_order)
    return _Reading(thread, event, zone, said, dated, aged)


def agreed_in_thread(
    thread: str,
    ordered: list[Message],
    event: ProposedEvent,
    mentions: list[TimeMention],
    zone: ZoneInfo,
    sent_at: Callable[[str], datetime | None],
) -> bool:
    """Whether the user's own messages in the pasted thread end on a yes to `event`'s start:
    the user's last word on it decides. A message of theirs is about the start when it says
    it, names its day (its clauses about other days left out: "lundi oui, mardi non"), or
    answers it: written after the time was first said, with no question of another's about
    something else in between ("mind if I add Jonah?" - "ok" answers Jonah). The reply-stance
    head reads each as a yes, a no (a deferral too: "let me check with my boss first") or a
    hedge; one that says the time is a yes unless it turns it down ("7am on a Saturday? Hard
    pass"), the user's own offer of it is a yes, and a question back ("which ones?") takes
    nothing back. A yes stands only when no no of the user's comes after it, by the dates of
    the messages' stamps where both have one (a forged quote of the user's yes carries their
    real reply's stamp), else in page order or oldest first (mail pasted newest first reads
    either way). Where the user wrote nothing after the time was said, or only hedged, the
    linker's reading of their clause as backing it (`event.offers`) decides."""
    assert event.start is not None
    reading = _reading_of(thread, ordered, event, mentions, zone)
    if not reading.said:
        return False

    def dated(message: Message) -> datetime | None:
        stamp = message.stamp or ""
        return sent_at(stamp) if STAMP_DATE_RE.search(stamp) else None

    def later(one: Message, other: Message) -> bool:
        one_sent, other_sent = dated(one), dated(other)
        if one_sent is not None and other_sent is not None and one_sent != other_sent:
            return one_sent > other_sent
        return one.index > other.index or reading.rank[one.index] > reading.rank[other.index]

    first = next((message for message in reading.aged if reading.says(message)), None)
    sent = {m.index: when for m in reading.aged if (when := dated(m)) is not None}
    if len(sent) == len(reading.aged):  # a chat export pasted newest first reads by its stamps
        answering = reading.answering(sorted(reading.aged, key=lambda m: sent[m.index]))
    else:  # mail pasted newest or oldest first: either order
        paged = sorted(reading.aged, key=lambda m: m.index)
        answering = reading.answering(reading.aged) | reading.answering(paged)
    yes: list[Message] = []
    no: list[Message] = []
    answered = hedged = False
    for message in sorted(reading.aged, key=lambda m: m.index):
        if not is_self(message.speaker):
            continue
        body = written(thread, message)
        after = first is not None and later(message, first)
        answered = answered or after
        if reading.says(message):  # the user's own offer of the time, or a reply that says
            # it ("Tuesday 15:00 works"); one that says it to turn it down is a no
            offer = first is not None and message.index == first.index
            (no if not offer and reply_disagrees(body) else yes).append(message)
            continue
        clauses = reading.day_clauses(message)
        if clauses is None:  # names only other days: about another plan
            continue
        if not clauses and not (after and message.index in answering):
            continue
        if not clauses and body.rstrip().endswith("?"):
            continue  # a question back ("which ones?") takes back no yes given before it
        heard = reply_reading(", ".join(text for text, _ in clauses) if clauses else body)
        if clauses:
            heard = _with_the_day(
                heard, reply_reading(", ".join(text for text, naming in clauses if naming))
            )
        if heard is None:
            hedged = True
        else:
            (yes if heard else no).append(message)
    if any(not any(later(n, y) for n in no) for y in yes):
        return True
    return not no and (not answered or hedged) and "me" in event.offers.get(event.start, set())


def _with_the_day(message: bool | None, day: bool | None) -> bool | None:
    """A message's reading (True a yes, False a no, None a hedge) checked against its clauses
    that name the plan's day read alone: a greeting or an aside can blur a no that the day's
    clause still says ("Bonjour, le 11 ne m'arrange pas du tout, ..."). A yes stands when
    the day's clause is no no, a no when it is no yes ("Friday? I can't, sorry"), and a
    blurred message is a no only when the day's clause says no; otherwise it decides
    nothing."""
    if message is True:
        return True if day is not False else None
    if message is False:
        return None if day is True else False
    return False if day is False else None


def pressed(
    thread: str,
    ordered: list[Message],
    event: ProposedEvent,
    mentions: list[TimeMention],
    zone: ZoneInfo,
) -> bool:
    """Whether what others wrote from the message that first says `event`'s start on (oldest
    first) presses it on the user, by the pressure head: each of their messages, and each run
    of their messages read as one ("booked us a table for Friday 20:30" / "and told them
    you're coming"). What they wrote is read, not a mail's subject line."""
    reading = _reading_of(thread, ordered, event, mentions, zone)
    runs: list[list[str]] = [[]]
    opened = not reading.said
    for message in reading.aged:
        opened = opened or reading.says(message)
        if not opened:
            continue
        if is_self(message.speaker):
            runs.append([])
        elif text := written(thread, message):
            runs[-1].append(text)
    readings = [*("\n".join(run) for run in runs if len(run) > 1), *(t for r in runs for t in r)]
    return any(presses(text) for text in readings)
