"""The candidates a linker works on: time mentions numbered in reading order, the messages
and clauses they sit in (oldest first), and the event a linker proposes."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal

from lang import data
from lang.text import sentence_breaks
from lang.thread import age_order, messages, split_thread
from tools.calendar import lang
from tools.calendar.times import TimeMention


@dataclass(frozen=True)
class Candidate:
    """A time mention with the ID a model may cite, and where in the input it sits."""

    id: str
    mention: TimeMention
    segment: int


@dataclass
class ProposedEvent:
    """An event the input implies, redacted; `grounds` are the candidate IDs its start rests on."""

    title: str
    start: datetime | None
    end: datetime | None
    all_day: bool
    location: str = ""
    attendees: list[str] = field(default_factory=list)
    grounds: list[str] = field(default_factory=list)
    vague: str | None = None  # "dinner friday": what was said instead of a clock time
    day: date | None = None  # the day a vague event is on, when one was said
    # "sometime next week": the days the vague time spans (first day, how many); no one day
    within: tuple[date, int] | None = None
    meal: str | None = None
    kind: Literal["event", "reminder"] = "event"
    undecided: list[str] = field(default_factory=list)  # "1 or 2?": the options, unpicked
    cancelled: bool = False
    postponed: bool = False  # cancelled by a postponement that gave no new time
    turned_down: bool = False  # cancelled because its day was turned down ("can't make Thursday")
    rebooked: bool = False  # the new plan a cancellation notice gives ("we've rebooked you on")
    activity: str = ""
    named: bool = False  # the title is the user's own name for it ("call it Out of office")
    said: int = -1  # the last message that created or changed it
    heard: set[int] = field(default_factory=set, repr=False)  # every message that did
    dated: bool = True  # False: a clock time said with no day yet ("book it for 12:30")
    pending: bool = False  # a reply put it off ("let me check and get back to you")
    # Who said which start, and who last set it: a start another person offered is agreed;
    # one that replaces another person's start is a counter, `awaiting` an answer from anyone
    # but its speaker ("9am?" - "I'd prefer 10"). Speakers only; the request has none.
    offers: dict[datetime, set[str]] = field(default_factory=dict, repr=False)
    setter: str | None = None
    awaiting: str | None = None
    rare_hour: bool = False  # held for a yes: real plans almost never start at that hour
    # why a held start waits, in the reply's words, where it is not the thread leaving it open
    held_because: str = ""

    @property
    def schedulable(self) -> bool:
        return (
            self.start is not None and not self.cancelled and not self.undecided
            and not self.pending
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "start": self.start.isoformat() if self.start else None,
            "end": self.end.isoformat() if self.end else None,
            "all_day": self.all_day,
            "location": self.location,
            "attendees": list(self.attendees),
            "kind": self.kind,
            "vague": self.vague,
            "day": self.day.isoformat() if self.day else None,
            "within": [self.within[0].isoformat(), self.within[1]] if self.within else None,
            "meal": self.meal,
            "undecided": list(self.undecided),
            "pending": self.pending,
            "grounds": list(self.grounds),
        }


@dataclass(frozen=True)
class Segment:
    """One message (or the request) in the order it was written."""

    text: str
    source: str
    start: int  # offset of `text` in its source text
    speaker: str | None
    quoted: bool
    sentence: str = ""  # the whole sentence the clause belongs to
    context: str = ""  # its message and the message before: what the sentence answers
    # An unsigned reply's quoted author ("On Mon, ... Me wrote:"): the reply is someone else's.
    replies_to: str | None = None


# "lunch friday 12:30 and drinks at 6", "market sat 9am, then brunch sunday 11:30": a joiner
# between two parts that each hold a number starts a new clause (a new event may start there).
_JOINER_RE = re.compile(
    r",?\s+(?:and|then|also|plus|und|dann|et|puis|y|luego|e|depois)\s+|,\s+(?:then|dann|puis)\s+",
    re.IGNORECASE,
)


# The words of a part that is only another time for the same plan ("a 7pm and a 9:30 on
# friday"): articles, a clock's preposition, times and days. Such a part starts no new event.
_TIME_ONLY_WORDS = frozenset("a an the at on @ around about maybe or".split())
_WORD_RE = re.compile(r"[^\W\d_][\w'’]*|\d[\w:.]*")
_CLAUSE_MARK_RE = re.compile(r"[,;]\s")
_CHOICE_RE = data.phrase_pattern("acts", "choice")


def _asks_a_pick(clause: str) -> bool:
    """Whether a short clause opens with words that ask for a pick (acts.toml [choice]):
    "which suits?", "so which one?", "let me know", "your pick"; not "let me know if you're
    coming" or "can you pick them up?"."""
    words = _WORD_RE.findall(clause)
    return 0 < len(words) <= _PICK_WORDS and any(
        _CHOICE_RE.match(clause, w.start()) for w in _WORD_RE.finditer(clause) if w.start() < 12
    )


_PICK_WORDS = 4


def _only_a_time(left: str, part: str) -> bool:
    """Whether `part` says nothing but another clock for the plan of `left` ("a 7pm and a 9:30
    on friday"), or does so up to a comma after which a pick is asked ("at 10 and 2 tomorrow,
    which suits?"); with a day on both sides it is another session ("wed at 7pm and thu at
    7pm")."""
    head, *tail = _CLAUSE_MARK_RE.split(part, maxsplit=1)
    if tail and _asks_a_pick(tail[0]):
        part = head
    if lang.states_date(left) and lang.states_date(part):
        return False
    return all(
        w.casefold() in _TIME_ONLY_WORDS or w[0].isdigit() or lang.states_date(w)
        or lang.AM_PM_RE.fullmatch(w) is not None
        for w in _WORD_RE.findall(part.rstrip(" ?!.,"))
    )  # fmt: skip


def _clauses(text: str) -> list[tuple[int, int, int, int]]:
    """(start, end, sentence start, sentence end) of each clause: sentences, split again
    between timed parts."""
    spans: list[tuple[int, int, int, int]] = []
    position = 0
    for piece in [*sentence_breaks(text), None]:
        end = piece.start() if piece else len(text)
        cut = position
        for joiner in _JOINER_RE.finditer(text, position, end):
            left, right = text[cut : joiner.start()], text[joiner.end() : end]
            if re.search(r"\d", left) and re.search(r"\d", right) and not _only_a_time(left, right):
                spans.append((cut, joiner.start(), position, end))
                cut = joiner.end()
        spans.append((cut, end, position, end))
        position = piece.end() if piece else len(text)
    return [span for span in spans if text[span[0] : span[1]].strip()]


def split_segments(request: str, thread: str) -> list[Segment]:
    """Thread clauses oldest first (quoted messages before the reply), then the request's."""
    quoted: list[tuple[tuple[int, int, int], Segment]] = []
    fresh: list[Segment] = []
    previous = ""
    found = messages(thread) if thread.strip() else []
    for index, message in enumerate(found):
        quotes = None
        if not message.quoted and not message.speaker:
            quotes = next((m.speaker for m in found[index + 1 :] if m.quoted and m.speaker), None)
        for line in message.lines:
            if line.kind == "header":
                continue  # a subject names the thread, not an event: see thread_subject
            body = thread[line.body_start : line.body_end]
            for a, b, c, d in _clauses(body):
                segment = Segment(
                    body[a:b], "thread", line.body_start + a, message.speaker, message.quoted,
                    body[c:d], f"{previous}\n{body}", quotes,
                )  # fmt: skip
                if message.quoted:
                    quoted.append((age_order(message), segment))
                else:
                    fresh.append(segment)
            previous = body
    tail = (
        [
            Segment(request[a:b], "request", a, None, False, request[c:d])
            for a, b, c, d in _clauses(request)
        ]
        if request.strip()
        else []
    )
    quoted.sort(key=lambda item: item[0])
    return [segment for _, segment in quoted] + fresh + tail


_REPLY_PREFIX_RE = re.compile(r"^(?:\s*(?:re|fwd?|aw|wg|tr|rv|res|enc)\s*:\s*)+", re.IGNORECASE)


def thread_subject(thread: str) -> str:
    """The thread's subject without "Re:"/"Fwd:" prefixes: a title for an unnamed event."""
    for line in split_thread(thread) if thread.strip() else []:
        if line.kind == "header" and line.field == "subject":
            subject = _REPLY_PREFIX_RE.sub("", thread[line.body_start : line.body_end]).strip()
            return subject[:1].upper() + subject[1:]
    return ""


def notice_spans(thread: str, opens: Callable[[str], bool]) -> list[tuple[int, int]]:
    """The spans of `thread` under each e-mail subject that `opens` ("Canceled: Sprint
    review"): from that header to the next message's headers."""
    spans: list[tuple[int, int]] = []
    lines = split_thread(thread) if thread.strip() else []
    for index, line in enumerate(lines):
        if line.kind != "header" or line.field != "subject":
            continue
        subject = _REPLY_PREFIX_RE.sub("", thread[line.body_start : line.body_end])
        if not opens(subject):
            continue
        end = len(thread)
        seen_body = False
        for later in lines[index + 1 :]:
            if later.kind != "header":
                seen_body = True
            elif seen_body:
                end = later.start
                break
        spans.append((line.end, end))
    return spans


def candidates(request: str, thread: str, mentions: list[TimeMention]) -> list[Candidate]:
    """Every mention, numbered T1..Tn in reading order, tied to its segment."""
    segments = split_segments(request, thread)
    found: list[Candidate] = []
    for index, segment in enumerate(segments):
        lo, hi = segment.start, segment.start + len(segment.text)
        inside = [
            m for m in mentions if m.source == segment.source and lo <= m.start < max(hi, lo + 1)
        ]
        for mention in sorted(inside, key=lambda m: m.start):
            found.append(Candidate(f"T{len(found) + 1}", mention, index))
    return found
