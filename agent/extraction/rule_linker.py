"""The deterministic linker: message by message, the latest word on each event wins."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from agent.extraction.candidate import (
    Candidate,
    ProposedEvent,
    Segment,
    notice_spans,
    split_segments,
    thread_subject,
)
from agent.extraction.cue import (
    ACCEPT_RE,
    ADD_MINE_RE,
    ALL_DAY_RE,
    ALSO_RE,
    AVAILABILITY_RE,
    AWAY_RE,
    BOOKING_ENDS_RE,
    BY_RE,
    CALENDAR_QUESTION_RE,
    CLOCK_SAID_RE,
    CONFIRM_RE,
    CORRECT_RE,
    COUNTER_END_RE,
    DECIDE_RE,
    DECLINE_AFTER_RE,
    DECLINE_BEFORE_RE,
    DECLINE_RE,
    DEFER_RE,
    DEFINITE_RE,
    DISMISS_RE,
    ESTIMATE_RE,
    GENERIC_EVENT_RE,
    HAVE_A_CLOCK_RE,
    HEDGE_RE,
    MANY_RE,
    MOVE_RE,
    NEGATION_RE,
    NONE_NOTICE_RE,
    NOT_BOOKED_RE,
    ONE_RE,
    OPTIONS_GAP_RE,
    OR_OPENS_RE,
    OR_RE,
    OTHERS_PLAN_RE,
    POSSESSIVE_RE,
    PREFER_RE,
    RANGE_RE,
    REBOOKED_RE,
    RESCHEDULE_RE,
    RESTATED_DAY_RE,
    RETURN_LEG_RE,
    SCHEDULE_QUESTION_RE,
    WANT_MINE_RE,
    WISH_RE,
    asks_nothing_more,
    calls_off,
    cancel_notice,
    declines_alone,
    declines_only_self,
    due_said,
    picked_place,
    puts_off,
    told_as_past,
)
from agent.extraction.title import (
    ACTIVITY_RE,
    LABEL_RE,
    activity_title,
    answered_name,
    meal_in,
    named_title,
    people_in,
    place_in,
    reminder_title,
    request_subject,
    request_title,
    role_in,
    stems,
    words_around,
)
from lang import data
from lang.thread import is_self
from privacy.entity_map import PLACEHOLDER_RE
from tools.calendar import lang
from tools.calendar.side_times import asks_for_side, is_deadline
from tools.calendar.slots import MEAL_DURATIONS
from tools.calendar.times import TimeMention
from understanding import time_roles
from understanding.acts import reads_as, reply_agrees, reply_disagrees

DEFAULT_DURATION = timedelta(hours=1)
_SERVICE_LABELS = data.words("labels", "service_labels")
MAX_EVENTS = 10


def _day_of(candidate: Candidate, zone: ZoneInfo) -> Candidate:
    """`candidate` as the whole day its clock falls on: its day said, its clock set aside."""
    value = candidate.mention.value
    assert value is not None
    midnight = datetime.combine(value.astimezone(zone).date(), time(0), zone)
    mention = replace(candidate.mention, value=midnight, end_value=None, has_clock_time=False,
                      all_day=True, kind="date", grain="day", alternatives=())  # fmt: skip
    return replace(candidate, mention=mention)


def _starts_at(event: ProposedEvent | None, mention: TimeMention, zone: ZoneInfo) -> bool:
    """Whether the event starts at the mention's (first) clock time."""
    if event is None or event.start is None or mention.value is None:
        return False
    return event.start.astimezone(zone).time() == mention.value.astimezone(zone).time()


# "can't do 10:30, how about 1?": the time right after a refusal is the one turned down.
_REFUSED_RE = re.compile(
    r"(?:\b(?:can'?t|cannot|can\s+not|won'?t)\s+(?:do|make)(?:\s+it)?|\binstead\s+of|\bnot)"
    r"\s*(?:at\s+)?$",
    re.IGNORECASE,
)


def _proposes(sentence: str) -> bool:
    """Whether a sentence offers or settles a time: a question, "let's", "how about"."""
    return "?" in sentence or bool(DECIDE_RE.search(sentence) or RESCHEDULE_RE.search(sentence))


def _turned_down(
    text: str, mention: TimeMention, offset: int, others: Sequence[TimeMention] = ()
) -> bool:
    """A day or time said with no: "tuesday no", "8pm won't work", "can't thursday". A clock is
    also read by the fitted time-role head (`understanding/time_roles.py`) in its clause, the
    `others` masked ("can't do 3, how about 5?" turns down 3 only), which finds refusals no
    phrase holds ("16:00 is impossible for me"); the refusal phrases read days and clocks,
    except a word that is no refusal in the mention's language ("às 19h30, no salão")."""
    if mention.has_clock_time and time_roles.turned_down(
        text,
        (mention.start - offset, mention.end - offset),
        [(o.start - offset, o.end - offset) for o in others if o is not mention],
        mention.language,
    ):
        return True
    return refused_by_phrases(text, mention.start - offset, mention.end - offset, mention.language)


def refused_by_phrases(text: str, start: int, end: int, language: str | None) -> bool:
    """Whether acts.toml's refusal phrases stand right before or after `text[start:end]`."""
    after = DECLINE_AFTER_RE.match(text, end)
    if after is not None and after.group().strip(" \t,:–-").casefold() in _NO_REFUSAL.get(
        language or "", frozenset()
    ):
        after = None
    return bool(after or DECLINE_BEFORE_RE.search(text[:start]))


_NO_REFUSAL = {
    code: data.words("acts", "decline_after_not", code)
    for code in data.table("acts")["decline_after_not"]
}


def _label_before(section: str) -> re.Pattern[str]:
    """A label of times.toml `section` right before a clock, maybe with an end's preposition
    ([end_prepositions]), an "about" ([approximately]) or "~" between ("return ~2p Sun", "ends
    around 10")."""
    return re.compile(
        rf"(?<![^\W\d_])(?:{data.alternation('times', section)})[\s:~]*"
        rf"(?:(?:{data.alternation('times', 'end_prepositions')}"
        rf"|{data.alternation('times', 'approximately')})\.?\s+)?~?$",
        re.IGNORECASE,
    )


# The words a mention opens with before its first number ("around " of "around 2-4").
_BEFORE_NUMBER_RE = re.compile(r"\D*")
# An end's label ([end_labels], arrivals too), and one that never opens a plan ([finish_labels]).
_END_BEFORE_RE = _label_before("end_labels")
_FINISH_BEFORE_RE = _label_before("finish_labels")
# How far ahead a day said with no year may be, and a year written out ("2027", "'27").
_YEAR_AHEAD = timedelta(days=400)
_YEAR_RE = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)|['’]\d\d\b")


def _plainest(
    clocks: list[Candidate], text: str, offset: int, *, ends_asked: bool = False
) -> Candidate:
    """The clock time a message sets: the last one that plainly is a time of day and is not
    the one the message turns down, nor an end said after a start ("depart 8a Sat ...,
    return ~2p Sun") unless the request asks for that leg (`ends_asked`: "the return trip")."""
    kept = [c for c in clocks if not _REFUSED_RE.search(text[: c.mention.start - offset])]
    kept = kept or clocks
    if not ends_asked:
        starts = [c for c in kept if not _END_BEFORE_RE.search(text[: c.mention.start - offset])]
        kept = starts or kept
    said = [c for c in kept if CLOCK_SAID_RE.search(c.mention.text)]
    return (said or kept)[-1]


def _state(event: ProposedEvent) -> tuple[object, ...]:
    return (event.start, event.day, event.title, event.cancelled, event.undecided, event.vague)


def _current(events: list[ProposedEvent], *, timed: bool = False) -> ProposedEvent | None:
    """The live event the thread spoke of last: the one "call it X" or "make it 4" means;
    `timed`: one with a decided start, agreed or still waiting for a yes."""
    live = [
        e
        for e in events
        if not e.cancelled and (not timed or (e.start is not None and not e.undecided))
    ]
    return max(live, key=lambda e: e.said, default=None)


def _moved_subject(text: str) -> bool:
    """Whether the activity is what was moved ("the all-hands got moved to 11"), said before
    the change word, rather than said after it ("actually make it 1:30, call me")."""
    subject, change = ACTIVITY_RE.search(text), RESCHEDULE_RE.search(text)
    return bool(subject and change and subject.start() < change.start())


def _said_after(candidate_id: str, event: ProposedEvent) -> bool:
    """Whether a candidate came after every one the event rests on (IDs are in reading order)."""
    return all(int(candidate_id[1:]) > int(g[1:]) for g in event.grounds)


# Between two clock times of a list: a comma, maybe after a note in brackets.
_LISTED_RE = re.compile(r"\s*(?:\([^()\n]{0,40}\))?\s*,\s*")
_LETTERS_RE = re.compile(r"[^\W\d_]+")


def _same_turn(
    event: ProposedEvent, previous: Segment | None, segment: Segment, index: int
) -> bool:
    """Whether `previous`, the clause just before `segment` in the same message, touched
    `event`."""
    return (
        previous is not None
        and event.said == index - 1
        and previous.source == segment.source
        and previous.speaker == segment.speaker
    )


def _listed_after(
    segment: Segment, previous: Segment | None, event: ProposedEvent, index: int
) -> bool:
    """Whether `segment` opens a line of the message whose line before it set `event`: the
    lines of a listing ("Dec 5 – Toy drive 10am-2pm" / "Dec 12 – Farmers market 9am-1pm"),
    not a correction of it (acts.toml [correct])."""
    if not _same_turn(event, previous, segment, index) or previous is None:
        return False
    if CORRECT_RE.search(segment.text) or RESCHEDULE_RE.search(segment.text):
        return False  # "correction – Thu 2:30pm": the line changes the plan above it
    line = segment.context.rpartition("\n")[2]
    sentence = segment.sentence or segment.text
    return (
        sentence in line and not line[: line.find(sentence)].strip() and "\n" in (segment.context)
    )


def _whole_day(text: str, activity: str) -> bool:
    """Whether a clause names a whole day's plan: an all-day word ("offsite", "Urlaub"), or
    something due that is what the clause is about ("self-reviews due 12/18", "Final project
    due Friday") rather than beside another plan ("Staff meeting Friday (timesheets due)")."""
    if ALL_DAY_RE.search(text):
        return True
    due = due_said(text)
    if due is None:
        return False
    if not activity:
        return True
    said = list(ACTIVITY_RE.finditer(text, 0, due.start()))
    return (
        bool(said)
        and re.fullmatch(r"(?:e?s)?\s+(?:(?:is|are)\s+)?", text[said[-1].end() : due.start()])
        is not None
    )


def _by_day(segment: Segment, mention: TimeMention) -> bool:
    """Whether a day is when to answer or hand in by ("RSVP by Friday, Dec 11")."""
    shifted = replace(mention, start=mention.start - segment.start, end=mention.end - segment.start)
    return shifted.start >= 0 and is_deadline(segment.text, shifted)


# What may stand between a day and the words that call it off: "Tonight is off", "cancel
# friday", "friday's cancelled" (two words at most, no clause break).
_NEXT_TO_RE = re.compile(r"(?:['’]s)?[ \t]*(?:[^\W\d_]+[ \t]+){0,2}")


_THE_BEFORE_RE = re.compile(
    rf"(?<![^\W\d_])(?:{data.alternation('labels', 'definite_articles')})\s+$", re.IGNORECASE
)


def _names_the_plan(text: str, mention: TimeMention, offset: int) -> bool:
    """Whether a request's day word, with no clock, sits between a definite article
    (labels.toml [definite_articles]) and an activity it qualifies: "the christmas dinner",
    "the friday standup" name an event of the thread."""
    start, end = mention.start - offset, mention.end - offset
    return (
        not mention.has_clock_time
        and mention.value is not None  # a day, not a meal alone ("the dinner")
        and _THE_BEFORE_RE.search(text[:start]) is not None
        and (
            ACTIVITY_RE.match(text[end:].lstrip()) is not None
            or ACTIVITY_RE.search(text[start:end]) is not None
        )
    )


def _more_specific(said: str, had: str) -> bool:
    """Whether a confirmation's activity names the plan more closely than the one it had: a
    qualifier before its activity word, and not the old name's words ("GP appointment",
    "Property appointment" over "Visit"; not "the appointment" over "Dentist")."""
    words = said.split()
    return (
        len(words) >= 2
        and ACTIVITY_RE.fullmatch(words[-1]) is not None
        and had.casefold() not in said.casefold()
    )


def _sentence_asks(segment: Segment) -> bool:
    """Whether a segment's sentence is a question."""
    return (segment.sentence or segment.text).rstrip().endswith("?")


def _who(segment: Segment) -> str | None:
    """Who said a message, to tell a counter from an answer; None for the request, whose
    word is the user's own decision, and for text nobody signed that quotes nobody."""
    if segment.source == "request":
        return None
    if not segment.speaker and segment.replies_to:
        # an unsigned e-mail reply above a quoted message is not by the one it quotes
        quoted = _who(replace(segment, speaker=segment.replies_to, replies_to=None))
        return "them" if quoted == "me" else f"not {quoted}"
    if not segment.speaker:
        return None
    name = segment.speaker.strip().casefold()
    return "me" if is_self(name) else name


def _offered(
    event: ProposedEvent, who: str | None, *, picked: bool = False, deferred: bool = False
) -> None:
    """`who` said the event's start: a start someone else offered before (or picked from the
    options offered, `picked`) is agreed, unless the message puts it off (`deferred`); a new
    start that replaces another person's is a counter and waits for someone else's yes."""
    if who is None or event.start is None:
        return
    backers = event.offers.setdefault(event.start, set())
    if picked or backers - {who}:
        if event.awaiting is not None:  # "could we do 10?" - "10 is impossible" - "ok 9 then"
            event.pending, event.awaiting = deferred, None
    elif event.setter is not None and event.setter != who:
        event.pending, event.awaiting = True, who  # "Monday 9am?" - "How about 10 instead?"
    elif any(others - {who} for start, others in event.offers.items() if start != event.start):
        # "Friday 3pm?" - "ok" - "actually could we do 4?": a change to what another agreed
        event.pending, event.awaiting = True, who
    elif event.awaiting is not None:
        event.pending = True  # the counter's own speaker again: still no one else's yes
        event.awaiting = who  # ... or another's counter, which waits for someone else's
    backers.add(who)
    event.setter = who


def _unanswered(event: ProposedEvent, said: list[Segment]) -> bool:
    """ "Me: run on Saturday at 8am?" and no one else's word on it: the user asked, nobody
    agreed. (Another person's question is answered by the user's request to add it.)"""
    if event.start is None or event.pending or event.setter != "me" or not said:
        return False
    if event.offers.get(event.start, set()) - {"me"}:
        return False
    asked = said[-1]  # the message that said the start: the user's own question
    return _who(asked) == "me" and "?" in (asked.sentence or asked.text)


def _passed_over(
    event: ProposedEvent,
    segments: list[Segment],
    found: list[Candidate],
    others: frozenset[int] = frozenset(),
) -> bool:
    """Another person's start that the user answered in the thread with no yes, only a reply
    that does not agree or a question: the user turned it down or disputed it ("Thursday
    doesn't work for me", "we never spoke on the phone" - "Great, so Thursday 10:00 is
    confirmed"; read by the reply-stance head, `reply_disagrees`, or as a call-off by the act
    model, each catching noes the other misses: "nein"), or questioned it and its
    own side then took it as agreed ("transfer at 3am tomorrow" - "Me: what? why at 3am?" -
    "so that's a yes"). A proposer's yes to their
    own offer is none, and the user's request to add it asks first. A no that names another
    day ("monday yes, tuesday no"), or that the linker read as about another event (`others`:
    "lunch yes, drinks I can't"), and a question that offers a start or day of its own ("how
    about 9?") belong to the linker's reading of each clause, not to this.
    A yes is the act model's reading in thread context (`add`)."""
    if event.start is None or event.pending or event.cancelled:
        return False
    said = [  # the whole start, day and clock: "can we push to monday?" changes it
        c for c in found
        if c.mention.source == "thread" and c.mention.has_clock_time
        and c.mention.value == event.start
    ]  # fmt: skip
    zone = event.start.tzinfo
    wall = event.start.time()
    mine_said = [  # the user's own mentions of this start; a clock alone names the day on the
        c for c in found  # table ("Freitag 9 Uhr?" - "9 Uhr ist mir zu früh")
        if c.mention.source == "thread" and c.mention.has_clock_time
        and c.mention.value is not None and _who(segments[c.segment]) == "me"
        and (
            c.mention.value == event.start
            or (
                not lang.states_date(c.mention.text)
                and c.mention.value.astimezone(zone).time() == wall
            )
        )
    ]  # fmt: skip
    refused = [c.segment for c in mine_said if _refused(c, found, segments)]
    taken = {c.segment for c in mine_said if c.segment not in refused}  # "tant pis, 9h alors"
    if refused and not any(  # the user turned this very start down ("jeudi 10h ne va pas") and
        # said no yes after, however often the other side restates it ("on garde jeudi 10h")
        _who(segments[i]) == "me"
        and (
            i in taken
            or reads_as(segments[i].text, "add", "thread")
            or reply_agrees(segments[i].text)
        )
        for i in range(max(refused) + 1, len(segments))
    ):
        return True
    stated = sorted(c.segment for c in said if c.segment not in refused)
    if not stated or _who(segments[stated[0]]) in (None, "me") or not event.heard:
        return False
    proposers = {_who(segments[i]) for i in stated} - {None, "me"}
    first = min(event.heard) + 1
    later = [i for i in range(first, len(segments)) if segments[i].source == "thread"]
    mine = [i for i in later if _who(segments[i]) == "me"]
    if not mine:
        return False
    if any(
        reply_agrees(segments[i].text)
        or (reads_as(segments[i].text, "add", "thread") and not reply_disagrees(segments[i].text))
        or ("?" not in segments[i].text and _opens_with_yes(segments[i].text))
        for i in mine
        if i > stated[0]  # an "ok" to what was asked before the start was said ("send me the
        # report?" - "ok" - "so Tuesday 11:00 is settled, you said ok") is no yes to it; a no
        # before it still is ("offsite this week?" - "not sure yet" - "Wednesday 13:00")
    ):  # a yes anywhere stands ("great, thanks!" - ... - "which ones?"), and a reply that
        return False  # opens with one ("yes, ignore the other message"), asking nothing

    day = event.start.date()

    def only_this_day(index: int) -> bool:
        return all(
            c.mention.value.astimezone(event.start.tzinfo).date() == day  # type: ignore[union-attr]
            for c in found if c.segment == index and c.mention.value is not None
        )  # fmt: skip

    if any(
        (reply_disagrees(segments[i].text) or reads_as(segments[i].text, "call_off", "thread"))
        and only_this_day(i)
        and (i in event.heard or i not in others)  # "lunch yes, drinks I can't": the drinks'
        for i in mine
    ):  # fmt: skip
        return True
    asked = next((i for i in mine if "?" in segments[i].text), None)
    return asked is not None and any(
        _who(segments[i]) in proposers and reads_as(segments[i].text, "add", "thread")
        for i in later
        if i > asked
    )


def _refused(said: Candidate, found: list[Candidate], segments: list[Segment]) -> bool:
    """Whether a time is turned down where it was said (`_turned_down`, in its clause)."""
    segment = segments[said.segment]
    own = [c.mention for c in found if c.segment == said.segment]
    return _turned_down(segment.text, said.mention, segment.start, own)


# What a start turned down waits on: a new offer, never a bare yes.
_TURNED_DOWN = "\0turned down"


def _opens_with_yes(text: str) -> bool:
    """Whether a message opens with a yes ("ok", "yes, ignore the other text"), past the dashes
    and punctuation a chat puts before it."""
    return ACCEPT_RE.match(text.lstrip(" \t-–—:,.!")) is not None


def _answers(event: ProposedEvent, who: str | None, text: str) -> bool:
    """Whether a message with no time of its own says yes to the counter `event` waits on."""
    if event.awaiting in (None, _TURNED_DOWN) or who is None or who == event.awaiting:
        return False
    if calls_off(text) or any(p.search(text) for p in (DECLINE_RE, DEFER_RE, RESCHEDULE_RE)):
        return False  # "ok, what about friday?": a yes that counters again is none
    return bool(_opens_with_yes(text) or DECIDE_RE.search(text))


_FILLERS = data.words("acts", "accept_fillers") | data.words("acts", "filler")


def _takes_day(text: str, message: str, dates: list[Candidate]) -> bool:
    """Whether a message that names a day says yes to it: the day alone ("tuesday", "friday
    then"), or with a yes or a preference ("Tuesday suits me better"); never with a no, a
    question or another plan ("tuesday is my kid's recital", "can't do tuesday")."""
    if len(dates) != 1 or re.search(r"\bbut\b", text, re.IGNORECASE):
        return False  # "tuesday is better than monday", "Tuesday but earlier"
    if "?" in message or HEDGE_RE.search(message) or PLACEHOLDER_RE.search(message):
        return False  # "Bob, Tuesday ok?", "if Bob can join", "Tuesday suits <PERSON_2> better"
    if NEGATION_RE.search(text) or AWAY_RE.search(text) or DECLINE_RE.search(text):
        return False
    rest = text.lstrip(" \t-–—:,.!")
    yes = ACCEPT_RE.match(rest)  # "ok tuesday"; not "I'm in Chicago on tuesday"
    rest = rest[yes.end() :] if yes else rest
    for day in dates:
        rest = rest.replace(day.mention.text, " ")
    if all(w.casefold() in _FILLERS for w in re.findall(r"[^\W\d_]+", rest)):
        return True  # "tuesday", "ok tuesday", "tuesday then, please"
    return bool(DECIDE_RE.search(text) or PREFER_RE.search(text))


def _of_the_plan(text: str, event: ProposedEvent) -> bool:
    """Whether `text` speaks of the plan itself: by a pronoun, or by its activity's word."""
    words = {w.casefold() for w in re.findall(r"[^\W\d_]+", text)}
    named = (event.activity or "").split()[-1:]
    return bool(words & {"it", "that", "this"}) or any(w.casefold() in words for w in named)


def _length_said(own: list[Candidate], clock: TimeMention) -> timedelta | None:
    """The one length a clause says beside its clock ("for 2 hours", "(1h)"), not a move by an
    amount ("1h later"), when the clock itself holds none."""
    if clock.kind == "interval":
        return None
    lengths = [
        c.mention.duration for c in own
        if c.mention.kind == "duration" and c.mention.shift is None and c.mention.duration
        and timedelta(minutes=10) <= c.mention.duration <= timedelta(hours=16)
    ]  # fmt: skip
    return lengths[0] if len(lengths) == 1 else None


def _asked_for(event: ProposedEvent, found: list[Candidate]) -> bool:
    """Whether every time `event` stands on was said in the typed request."""
    said = {c.id: c.mention.source for c in found}
    return bool(event.grounds) and all(said.get(g) == "request" for g in event.grounds)


def _ends_a_name(after: str) -> int | None:
    """Where the activity `after` opens with ends, when it ends its phrase: "meeting on
    Tuesday", not "meeting notes doc" or "meeting link"."""
    found = ACTIVITY_RE.match(after)
    if found is None:
        return None
    rest = after[found.end() :].lstrip()
    if not rest or not rest[0].isalpha() or _CLAUSE_GOES_ON_RE.match(rest):
        return found.end()
    return None


_CLAUSE_GOES_ON_RE = re.compile(
    r"(?:on|at|for|with|in|tomorrow|today|tonight|this|next|and|please)\b", re.IGNORECASE
)


# A reply that is a number alone ("4", "10:30!"): an hour, when options wait for a pick.
_BARE_NUMBER_RE = re.compile(r"[^\w]*(?P<h>1[0-2]|0?[1-9])(?::(?P<m>[0-5]\d))?[^\w]*")


def _possessed(text: str) -> bool:
    """Whether `text` names an activity as someone's own ("cancel my lunch", "our call"): a
    plan already on a calendar, not one the thread is making."""
    return any(POSSESSIVE_RE.search(text[: m.start()]) for m in ACTIVITY_RE.finditer(text))


def _unnamed(event: ProposedEvent) -> bool:
    """An event a notice names only by its kind ("your appointment", "the booking")."""
    return not event.named and (
        not event.activity or bool(GENERIC_EVENT_RE.fullmatch(event.activity))
    )


def _at(day: date, clock: time, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, clock).replace(tzinfo=zone)


class RuleLinker:
    """The deterministic linker: message by message, the latest word on each event wins."""

    def __init__(self, tz: str, now: datetime) -> None:
        self.zone = ZoneInfo(tz)
        self.now = now
        # The plans the input called off, titled, after `link`: what a reply reports instead
        # of "no event found".
        self.called_off: list[ProposedEvent] = []
        self.talkers: set[str] = set()  # who speaks in the thread being linked
        self.segments: list[Segment] = []
        self.request = ""  # the request being linked, and the times found in it
        self.request_mentions: list[TimeMention] = []
        self.thread_days: set[date] = set()  # the days the thread's numbers state
        self._two_sides = True  # the thread has the user and at most one other speaker
        self.ends_asked = False  # the request asks for a journey's way back
        self.asks_side = False  # the request asks for a deadline or another side time

    def link(
        self, request: str, thread: str, found: list[Candidate], *, intent: str = "schedule"
    ) -> list[ProposedEvent]:
        segments = split_segments(request, thread)
        speakers = [s.speaker for s in segments if s.speaker and not is_self(s.speaker)]
        self._two_sides = len({s.casefold() for s in speakers}) <= 1
        events: list[ProposedEvent] = []
        last_day: tuple[date, str] | None = None
        # A notice's lines come one segment each: "You're on the waiting list" two lines
        # above the time (or "if a place becomes available" below it) still books nothing.
        # A notice that calls off what it goes on to describe ("Canceled a meeting" above the
        # title and time; a mail under "Subject: Canceled: Sprint review") names a plan that is
        # off, line by line after it.
        called_off = notice_spans(thread, cancel_notice)
        self.ends_asked = bool(RETURN_LEG_RE.search(request))  # "add the return trip"
        self.asks_side = asks_for_side(request)
        self.talkers = {w for w in map(_who, segments) if w is not None}
        self.segments = segments
        self.request = request
        self.request_mentions = [c.mention for c in found if c.mention.source == "request"]
        self.thread_days = {
            c.mention.value.astimezone(self.zone).date()
            for c in found
            if c.mention.source == "thread"
            and c.mention.value is not None
            and lang.states_date(c.mention.text)
            and re.search(r"\d", c.mention.text)  # "18 de dezembro", not a holiday's name
        }
        run: list[ProposedEvent] = []
        run_waits = run_off = False
        for index, segment in enumerate(segments):
            before = {id(e): _state(e) for e in events}
            previous = segments[index - 1] if index else None
            if previous is None or (previous.speaker, previous.source) != (
                segment.speaker, segment.source
            ):  # fmt: skip
                run, run_waits, run_off = [], False, False
            run_off |= segment.source == "thread" and (
                (cancel_notice(segment.text) and not REBOOKED_RE.search(segment.text))
                or any(lo <= segment.start < hi for lo, hi in called_off)
            )  # "This meeting has been cancelled and replaced by the one below": not what's below
            if (
                segment.source == "thread"
                and NONE_NOTICE_RE.match(segment.text)
                and not declines_alone(segment.text)  # "no puedo": a no to the plan
            ):
                continue  # "No 5:30 PM Saturday vigil on Dec. 26": a plan that will not be
            try:
                last_day = self._read(segment, index, found, events, last_day, intent, previous)
            finally:  # the event a message touched is the one the next "call it X" names
                line = segment.context.rpartition("\n")[2]
                run_waits |= segment.source != "request" and bool(NOT_BOOKED_RE.search(line))
                for event in events:
                    if before.get(id(event)) != _state(event):
                        event.said = index
                        event.heard.add(index)
                        run.append(event)
                if run_waits:
                    for event in run:
                        if event.start is not None and not event.pending:
                            event.pending, event.awaiting = True, _who(segment) or "them"
                if run_off:
                    for event in run:  # "We've rebooked you on UA 1234, Sat Dec 12" stays
                        if event.said == index and REBOOKED_RE.search(segment.text):
                            event.rebooked = True
                        if not event.rebooked:
                            event.cancelled = True
        for event in events:  # where its start was said counts too ("cancel Thursday's 10am
            # review" ... "Thursday 10am is back on")
            if event.start is not None:
                event.heard |= {
                    c.segment for c in found
                    if c.mention.has_clock_time and c.mention.value == event.start
                }  # fmt: skip
        out = next((i for i, s in enumerate(segments) if OTHERS_PLAN_RE.search(s.text)), None)
        for event in events:  # "you two should meet" ... what the others settle is theirs
            if (
                out is not None and event.start is not None and not event.pending
                and event.said > out and "me" not in event.offers.get(event.start, set())
                and any(_who(segments[i]) not in (None, "me") for i in event.heard)
            ):  # fmt: skip
                event.pending, event.awaiting = True, "me"
        by_id = {c.id: c for c in found}

        def others_heard(event: ProposedEvent) -> frozenset[int]:
            """The messages the linker read as about events at other starts (a plan turned
            down and then called settled at the same start is this one)."""
            return frozenset().union(
                *(e.heard for e in events if e is not event and e.start != event.start)
            )

        for event in events:  # the user's own question that no one else answered
            said = [segments[by_id[g].segment] for g in event.grounds if g in by_id]
            if _unanswered(event, said):
                event.pending, event.awaiting = True, "them"
            elif _passed_over(event, segments, found, others_heard(event)):
                event.pending, event.awaiting = True, "me"
                event.held_because = "your own reply in the thread is no yes to it"
        talkers = {w for w in map(_who, segments) if w is not None}
        for event in events:  # a booking dialogue: the user's request says yes to the service
            # ("Agent: how about Wednesday at 4:30 pm?"); a person's change waits for the user's
            if event.awaiting in _SERVICE_LABELS and talkers <= {"me", event.awaiting}:
                event.pending, event.awaiting = False, None
        return self._finish(events, request, thread, speakers, intent, segments)

    def _read(
        self,
        segment: Segment,
        index: int,
        found: list[Candidate],
        events: list[ProposedEvent],
        last_day: tuple[date, str] | None,
        intent: str,
        previous: Segment | None = None,
    ) -> tuple[date, str] | None:
        """Read one message: create, move, name or cancel events; returns the last day said.
        `previous` is the clause read just before this one."""
        # A street number read as a year ("on March 7th in 620") is no date.
        own = [
            c
            for c in found
            if c.segment == index and (c.mention.value is None or self._plausible(c.mention))
        ]
        text = segment.text
        if segment.source == "request" and self.thread_days:
            # "add the christmas dinner" over a pasted invitation for the 18th: a day word
            # between "the" and the activity names the thread's event, it sets no day of its
            # own; one of the thread's days picks ("add the saturday hike")
            own = [
                c
                for c in own
                if not _names_the_plan(text, c.mention, segment.start)
                or c.mention.value.astimezone(self.zone).date() in self.thread_days  # type: ignore[union-attr]
            ]
        # "Ski trip Jan 8-10. Pay the deposit by Dec 15", "Dinner at 7pm?" / "Please confirm
        # by Friday": when to answer or pay by is no day of a plan; alone, it is its own
        sides = [c for c in own if _by_day(segment, c.mention)]
        if (
            sides
            and not self.asks_side  # "add the deadline": the one asked for
            and (any(not e.cancelled for e in events) or len(sides) < len(own))
        ):
            own = [c for c in own if c not in sides]
        turned = self._decline(text, own, segment.start, events)
        own = [c for c in own if c.id not in turned]  # "can't make Thursday" sets no day
        # a meal is a time and an activity: "called dinner" names the event
        spans = [
            (c.mention.start - segment.start, c.mention.end - segment.start)
            for c in own
            if c.mention.kind != "vague"
            or not ACTIVITY_RE.fullmatch(
                text[c.mention.start - segment.start : c.mention.end - segment.start]
            )
        ]
        name, anaphoric = named_title(text, spans)
        if not name:  # "What name should I use?" - "Doctor visit, please.", "House at 11:30."
            name = answered_name(text, segment.context.rpartition("\n")[0], spans)
            anaphoric = bool(name)
        activity = name or activity_title(text)
        if intent == "remind" and segment.source == "request":
            activity = reminder_title(text) or activity
        current = _current(events)
        if name and anaphoric and current is not None:  # "call it X": the event spoken of
            current.title = current.activity = name
            current.named = True
        clocks = [c for c in own if self._is_event_time(c, segment, own)]
        dates = [c for c in own if c.mention.all_day and c.mention.value is not None] or [
            _day_of(c, self.zone) for c in own if self._finish_on_a_day(c, segment)
        ]  # "dinner ending monday at 10pm": when it ends is no start, but Monday is its day
        vague = [c for c in own if c.mention.kind == "vague"]
        moving = (
            bool(
                RESCHEDULE_RE.search(text)
                or lang.SAME_TIME_MOVE_RE.search(text)
                or lang.CORRECTION_OPENS_RE.match(text)  # "oops I meant Friday at 11"
            )
            or any(
                c.mention.has_clock_time
                and COUNTER_END_RE.match(text, c.mention.end - segment.start)
                and len(_LETTERS_RE.findall(text[: c.mention.start - segment.start])) <= 2
                for c in own
            )
        )  # "Sunday at 7 then", "ok 8 then?"; not "I'll pick up the wine at 6 then"
        target = self._target(events, activity, text, request=segment.source == "request")
        if moving and target is None and not activity:
            # "the VP can't make Thursday. Can we slide it to Friday at the same time?": the
            # plan whose day was turned down is the one that moves
            declined = next((e for e in reversed(events) if e.turned_down), None)
            if declined is not None:
                declined.cancelled = declined.turned_down = False
                target = declined
        current = _current(events)
        # "Please confirm: ...", "Date of the event: March 12th at 11:15 am": the event being
        # set up, said again with its day and time
        line = segment.context.rpartition("\n")[2]
        opened = line[: max(0, line.find(segment.sentence))] if segment.sentence else ""
        asked = list(CONFIRM_RE.finditer(opened))
        # only a confirmation that states no time itself goes on in the sentences after it
        opened = "" if not asked or re.search(r"\d", opened[asked[-1].start() :]) else opened
        confirming = bool(clocks) and bool(
            CONFIRM_RE.search(segment.sentence or text)
            or RESTATED_DAY_RE.search(segment.sentence or text)
            # "Can you confirm the following details? ... It's scheduled for next Monday at
            # 2:30 pm.": a sentence naming no activity goes on with the confirmation before it
            or (not activity and CONFIRM_RE.search(opened))
        )
        if (
            current is not None
            and current.start is not None
            and target in (None, current)
            and (confirming or (activity and target is current))
        ):  # "Please confirm: the dentist at 3 pm on March 14th", "the appointment is at 4"
            target, moving = current, moving or confirming
            if (
                activity
                and not name
                and current.activity
                and (current.named or not self._renames(activity, current.activity))
            ):
                activity = current.activity  # its own name stays; an unnamed one takes this
                # ("Please confirm a GP appointment ..." names a "visit" more closely)
        if moving and not activity:
            target = _current(events, timed=True) or target
        elif (
            moving
            and target is None
            and any(e.schedulable for e in events)
            and not (activity and not name and _moved_subject(text))
        ):
            target = _current(events, timed=True)
            activity = ""  # "actually make it 1:30, call me": a change, not a new event
        if calls_off(text) and not (moving and clocks):
            # "drinks are off", "can't make it, skip it"; with no activity of its own ("need to
            # call off monday"), the plan on the table. Cancelling too much costs a question.
            called_off = target or _current(events)
            # "make a doctors appointment ... and cancel my lunch": the request's own new event
            # stays; the lunch is a plan of the calendar's
            own_new = (
                called_off is not None
                and target is None
                and segment.source == "request"
                and _possessed(text)
                and _asked_for(called_off, found)
            )
            # "Maya: can't make it this time" in a group the others still join: Maya is out
            # (with three, the one who says no may be the one the plan is with)
            one_out = (
                declines_only_self(text)
                and len(self.talkers) >= 4
                and _who(segment) not in (None, "me")
                and called_off is not None
                and called_off.setter != _who(segment)
            )
            if (
                called_off is not None
                and not own_new
                and not one_out
                and not self._on_other_days(called_off, own, text, segment.start)
            ):
                called_off.cancelled = True
            return last_day  # a plan called off in the same breath is no event either
        if puts_off(text) and not own:  # "client asked to postpone, new date TBC"
            put_off = target or _current(events)
            if put_off is not None and (put_off.start is not None or put_off.day is not None):
                put_off.cancelled = put_off.postponed = True
            return last_day
        if (
            DISMISS_RE.search(text)
            and not (own or segment.source == "request")
            and not _opens_with_yes(text)  # "yes, ignore the other text"
        ):
            # "looks like phishing": the plan on the table came from a fake, not a person
            dismissed = target or _current(events)
            if dismissed is not None:
                dismissed.cancelled = True
            return last_day
        deferred = bool(DEFER_RE.search(text))
        if deferred and not clocks:  # "I'll let you know tomorrow": a day, but no new time
            # "let me check and get back to you": the plan on the table is proposed, not agreed
            put_off = target or _current(events)
            if put_off is not None and put_off.start is not None:
                put_off.pending = True
            return last_day
        who = _who(segment)
        if (
            not own
            and who is not None
            and current is not None
            and current.start is not None
            and _opens_with_yes(text)
        ):  # "ok": the speaker backs the start on the table ("3 it is" later restores it)
            current.offers.setdefault(current.start, set()).add(who)
        settled = current if current is not None and current.pending else None
        if settled is not None and settled.awaiting is not None:
            if not clocks and _answers(settled, _who(segment), text):  # "4:30?" - "perfect"
                settled.pending, settled.awaiting = False, None
        elif settled is not None and segment.source != "request" and DECIDE_RE.search(text):
            settled.pending = False  # "ok, that works": settled after all
        if DECLINE_RE.search(text) and not (clocks or dates or vague):
            # "That doesn't work anymore": the plan on the table (a quoted original too) is off;
            # with a time or day of its own the same words are a counter, read below.
            declined = target or _current(events)
            if declined is not None:
                declined.cancelled = True
            return last_day
        if declines_alone(segment.context.rpartition("\n")[2]) and not (clocks or dates or vague):
            # "dinner fri 7pm?" - "can't, sorry": that time is not agreed, the plan may go on
            # ("how about saturday same time?"); only as the answer to the message that offered
            # it, between two people ("can you bring wine?" - "can't" answers another question)
            offered = target or _current(events)
            who = _who(segment)
            if offered is None or offered.start is None or len(self.talkers) > 2:
                return last_day
            if self._answers_offer(offered, index):
                # that start waits for another offer: no bare yes settles it again ("ok next
                # time!" acknowledges the no; "no can do" - "11?" - "yep" is no 10am)
                offered.pending, offered.awaiting = True, _TURNED_DOWN
            elif who in offered.offers.get(offered.start, set()) and not self._asked_before(index):
                offered.cancelled = True  # "sync at 2pm?" - "sure" - "actually can't, sorry"
            return last_day
        pick = picked_place(text)
        # a time of its own outside the pick's words ("the second" is a date, "second one" a
        # duration to Duckling) makes it no pick
        timed = pick is not None and any(
            c.mention.kind != "duration"
            and not (
                c.mention.start - segment.start < pick[1].end()
                and pick[1].start() < c.mention.end - segment.start
            )
            for c in own
        )
        offered = next((e for e in reversed(events) if e.undecided and not e.cancelled), None)
        picked = None
        if pick and not timed and offered is not None and abs(pick[0]) <= len(offered.undecided):
            # "Thu 11:00, Fri 15:00 or Mon 09:30?" - "The second one please."
            wanted = offered.undecided[pick[0] - 1 if pick[0] > 0 else pick[0]]
            picked = next((c for c in found if c.id == wanted), None)
        elif (
            offered is not None
            and dates
            and not (clocks or vague)
            and _who(segment) in ("me", None)  # the user's own pick, not another's
            and self._two_sides  # in a group chat, a third person may still turn it down
            and _takes_day(text, segment.context.rpartition("\n")[2], dates)
        ):
            # "mon 6pm or tue 6pm?" - "Tuesday suits me better": the one offered on that day
            picked = self._on_day(offered, found, dates[-1])
        elif (
            offered is not None
            and (number := _BARE_NUMBER_RE.fullmatch(text.strip())) is not None
            and _who(segment) in ("me", None)
            and self._answers_offer(offered, index)
        ):
            # "3 or 4 tomorrow?" - "4": Duckling reads no clock in a number alone; the one
            # option at that hour is the pick ("5 or 6 tomorrow? how many kids are you
            # bringing?" - "5" answers the count)
            picked = self._at_hour(offered, found, int(number.group("h")), number.group("m"))
        if offered is not None and picked is not None:
            offered.start, offered.grounds, offered.dated = self._resolve(picked, None, None, [])
            offered.end = self._end(picked.mention, offered.start, offered.activity)
            offered.undecided = []
            _offered(offered, _who(segment), picked=True)
            return last_day
        if OR_OPENS_RE.match(text) and (clocks or dates) and not moving:
            # "Party Dec 12. 8pm? or 9pm?", "Brunch at 11 on Dec 13. Or Dec 20": the sentence
            # before offered one start, this one another; neither is decided
            offered = _current(events, timed=True)
            other = (clocks or dates)[0].mention.value
            if (
                offered is not None
                and offered.grounds
                and _same_turn(offered, previous, segment, index)
                and other is not None
                and other != offered.start  # "Or, if the room's booked, Friday at 2pm in ..."
            ):
                offered.undecided = [*(offered.undecided or offered.grounds[:1]),
                                     (clocks or dates)[0].id]  # fmt: skip
                offered.said = index
                return last_day
        for candidate in own:  # the last day anyone named: "1pm works" means that day
            said = candidate.mention
            if said.value is not None and (
                said.all_day or (said.has_clock_time and lang.states_date(said.text))
            ):
                last_day = (said.value.astimezone(self.zone).date(), candidate.id)
        if not clocks and not dates and self._shifted(own, segment, events):
            return last_day
        if not clocks:
            if (
                activity
                and not (dates or vague)
                and current is not None
                and not current.activity
                and current.start is not None
                and _same_turn(current, previous, segment, index)
            ):  # "At 3, please. It's a Hairdresser appointment.": the turn that timed it names it
                current.title = current.activity = activity
                return last_day
            if (
                target is not None
                and not activity
                and dates
                and _whole_day(text, "")
                and _listed_after(segment, previous, target, index)
            ):
                target = None  # "Dec 7 - Team meeting" / "Dec 24 - Holiday", "Final project
                # due Friday Dec 11": a listing's next whole-day item, not the day above it
                # ("Holiday party 6pm" / "Dec 18 - Main hall" gives the party its day)
            self._dates_and_vague(events, segment, activity, dates, vague, target, intent)
            return last_day
        options = self._options(text, own, clocks, segment.start)
        chosen = (
            _plainest(clocks, text, segment.start, ends_asked=self.ends_asked)
            if not options
            else clocks[0]
        )
        mention = chosen.mention
        if not name and len(ACTIVITY_RE.findall(text)) > 1:
            # "flight lands 10:45, dinner 8-10 tonight?": the start's own clause names it
            at = mention.start - segment.start
            opens = max((m.end() for m in lang.CLAUSE_BREAK_RE.finditer(text, 0, at)), default=0)
            activity = activity_title(text[opens : mention.end - segment.start]) or activity
        own_day = lang.states_date(mention.text)
        # A bare time said again is an echo; with a day of the clause's own it may move the day.
        echo = self._echo(events, mention) if not (own_day or dates or moving) else None
        if echo is None and own_day and not (dates or moving or activity):
            if lang.weekday_only(mention.text):  # "Wednesday at 11 works", of "Wed Dec 2 at 11?"
                echo = self._echo(events, mention, weekday=True)
        if echo is not None:  # "9:30 is tight but fine": the agreed time, said again
            echo.said = index  # and so the event spoken of last
            echo.pending = deferred
            _offered(echo, _who(segment), deferred=deferred)
            return last_day
        listed = (
            target is not None
            and bool(dates or own_day)
            and _listed_after(segment, previous, target, index)
        )
        if (
            target is not None
            and not moving
            and target.start is not None
            and (not activity or listed)
        ):
            # a listing's line with its own day: "Dec 5 – Toy drive 10am-2pm" / "Dec 12 – ..."
            # (or "Tuesday 12/8 - 9:00 am - A" / "Tuesday 12/8 - 1:30 pm - B", one day's slots,
            # or a schedule's "Game 1 - Sat 12/5 - 9:00" / "Game 2 - Sat 12/12 - 10:30")
            # a whole day's plan takes no clock from a clause with another day of its own
            dated = listed or (target.all_day and bool(dates))
            day = mention.value if own_day else dates[-1].mention.value if dated else None
            start = target.start.astimezone(self.zone)
            if (
                day is not None
                and (
                    start.date() != day.astimezone(self.zone).date()
                    or (listed and start.time() != mention.value.astimezone(self.zone).time())
                )
                and not target.undecided  # "Friday at 4 or Saturday?" - "Saturday 10am it is"
            ):
                target = None  # "the plumber comes monday at 8": its own day, its own event
        # "lunch wed nxt wk @ 1": a meal said with its day gives the clock its day; a week
        # ("next week, same time") gives it none
        days = dates or [
            c
            for c in vague
            if lang.states_date(c.mention.text) and not lang.week_only(c.mention.text)
        ]
        start, grounds, dated = self._resolve(chosen, target, last_day, days)
        if (
            own_day
            and dates
            and dates[-1].mention.start > mention.end
            and lang.SAME_TIME_MOVE_RE.search(text[mention.end - segment.start :])
            and not ALSO_RE.search(text)  # "yoga today at 6, same time tomorrow too?": both
        ):  # "great call today at 11, same time tomorrow?": the later day keeps the clock
            later = dates[-1].mention.value.astimezone(self.zone).date()
            start = _at(later, mention.value.astimezone(self.zone).time(), self.zone)
            grounds, dated = [dates[-1].id, chosen.id], True
        if (
            moving
            and mention.kind == "interval"
            and lang.FROM_TO_RE.search(mention.text)
            and mention.end_value is not None
            and (lang.MOVED_FROM_RE.search(text) or _starts_at(target, mention, self.zone))
        ):  # "moved from 4pm to 11am": the new time is the end; "let's do 2 to 3" is a range
            new = mention.end_value.astimezone(self.zone)
            said_to = lang.MOVE_TO_RE.split(mention.text)[-1]
            day = new.date() if lang.states_date(said_to) else start.astimezone(self.zone).date()
            start = _at(day, new.time(), self.zone)  # "... to Friday, March 9 at 9": its day
        end = self._end(chosen.mention, start, activity or (target.activity if target else ""))
        said_length = _length_said(own, chosen.mention)
        if said_length is not None:  # "call at 3pm (1h)", "my 10am review tomorrow (2 hours)"
            end = start + said_length
        if (
            target is not None
            and not (activity or moving or options)
            and target.start is not None
            and target.end is not None
            and not target.all_day
            and target.start < start < target.end
            and any(  # a range of clocks the words state, not a default length or a "night",
                # in this same message ("Sam: dinner 6-10pm" / "Sam: let's say 8" counters)
                c.id in target.grounds
                and c.mention.kind == "interval"
                and len(re.findall(r"\d+", c.mention.text)) >= 2
                and self.segments[c.segment].context == segment.context
                for c in found
            )
            and _who(segment) == target.setter
            and not _sentence_asks(segment)
            and not self._asked_by_name(segment)
        ):  # "Holiday Market ... 10am-4pm. Live music at noon.": an item inside it, said by
            # the one who set it; "dinner 7-9? 8?" still counters, and an item the request
            # names ("add the coding interview") is the one asked for
            return last_day
        fresh = activity and (target is None or (target.start is not None and not moving))
        if target is not None and not (fresh and target.activity != activity):
            picked = bool(target.undecided)  # "1pm or 2pm?" - "2pm works"
            target.start, target.end, target.grounds = start, end, grounds
            target.all_day, target.vague, target.cancelled = False, None, False
            target.pending = deferred  # "4:30 could work, let me check": still not agreed
            target.dated = dated
            target.undecided = [c.id for c in options]
            if activity and (
                not target.activity
                or (not target.named and (name or self._renames(activity, target.activity)))
            ):
                target.title, target.activity, target.named = activity, activity, bool(name)
            if not target.location:
                target.location = place_in(text, [c.mention for c in own], segment.start)
            _offered(target, _who(segment), picked=picked, deferred=deferred)
            return last_day
        same = next((e for e in events if e.start == start and not e.cancelled), None)
        if same is not None:  # the same time restated with a name: one event, best title
            same.said = index
            _offered(same, _who(segment), deferred=deferred)
            if activity and (not same.activity or same.start is None or name) and not same.named:
                same.title, same.activity, same.named = activity, activity, bool(name)
            return last_day
        events.append(
            ProposedEvent(
                title=activity
                or words_around(text, mention.start - segment.start, mention.end - segment.start),
                start=start,
                end=end,
                all_day=False,
                location=place_in(text, [c.mention for c in own], segment.start),
                attendees=people_in(text),
                grounds=grounds,
                meal=meal_in(activity or text),
                kind="reminder" if intent == "remind" else "event",
                undecided=[c.id for c in options],
                activity=activity,
                named=bool(name),
                dated=dated,
                pending=deferred,
            )
        )
        _offered(events[-1], _who(segment))
        return last_day

    # ------------------------------------------------------------------ pieces
    def _asked_by_name(self, segment: Segment) -> bool:
        """Whether the request names a word the segment says ("add the coding interview")."""
        return bool(self._request_words() & stems(segment.text))

    def _request_words(self) -> set[str]:
        return {word for item in request_subject(self.request) for word in item}

    def _renames(self, said: str, had: str) -> bool:
        """Whether a read-back's activity renames the plan: more closely than its own name,
        which the request does not use ("add the haircut" keeps "Haircut")."""
        return _more_specific(said, had) and not (self._request_words() & stems(had))

    def _shifted(self, own: list[Candidate], segment: Segment, events: list[ProposedEvent]) -> bool:
        """ "can we do 30 min later?", "push it back an hour?": the timed plan on the table moves
        by the amount said, as a counter that waits for someone else's yes. The gate lets the
        new start through only as that stated start moved by that stated amount."""
        moved = _current(events, timed=True)
        shifts = [c for c in own if c.mention.shift is not None]
        if not shifts or moved is None or moved.start is None:
            return False
        said = shifts[-1]
        length = moved.end - moved.start if moved.end else DEFAULT_DURATION
        moved.start = moved.start + said.mention.shift
        moved.end = moved.start + length
        moved.grounds = [said.id]
        who = _who(segment)
        if who is not None:  # a change to an agreed plan, even one's own: the others' yes
            moved.offers.setdefault(moved.start, set()).add(who)
            moved.setter, moved.pending, moved.awaiting = who, True, who
        return True

    def _plausible(self, mention: TimeMention) -> bool:
        """Whether a mention's day could be meant: within five years, and no more than a year
        ahead unless its words write a year ("ages 6-9, Sunday" is no Sunday 9 June 2030)."""
        assert mention.value is not None
        if abs(mention.value.year - self.now.year) > 5:
            return False
        return mention.value - self.now <= _YEAR_AHEAD or bool(_YEAR_RE.search(mention.text))

    def _finish_on_a_day(self, candidate: Candidate, segment: Segment) -> bool:
        """Whether `candidate` is a clock after an end's label that also states its day."""
        mention = candidate.mention
        return (
            mention.has_clock_time
            and mention.value is not None
            # "next Friday" (either week) states no one day; "at 8" (either half) does
            and all(a.date() == mention.value.date() for a in mention.alternatives)
            and lang.states_date(mention.text)
            and _FINISH_BEFORE_RE.search(segment.text[: mention.start - segment.start]) is not None
        )

    def _is_event_time(
        self, candidate: Candidate, segment: Segment, own: Sequence[Candidate] = ()
    ) -> bool:
        """A stated clock time that could start an event: not "I'm free from 2 to 5", not
        "my 2pm is running long" (someone's other commitment), not "tuesday 8pm won't work".
        `own`: every time said in the clause."""
        mention = candidate.mention
        if not mention.has_clock_time or mention.value is None:
            return False
        if _turned_down(segment.text, mention, segment.start, [c.mention for c in own]):
            return False  # a time answered with no is turned down, never a start
        if mention.value > self.now and told_as_past(
            segment.text, mention.start - segment.start, mention.end - segment.start
        ):
            # "dinner 7-9 saturday was so much fun", "thanks for lunch 11-6 friday": the words
            # read as a day ahead were the last one (a day read as past is the gate's, and
            # stays for "same time this sunday?" to take its clock)
            return False
        before = segment.text[: mention.start - segment.start]
        if _FINISH_BEFORE_RE.search(before):
            return False  # "ends around 10", "should finish at 5": when it ends
        sentence = segment.sentence or segment.text
        if AWAY_RE.search(sentence) and not _proposes(sentence):
            return False  # "my sister's wedding is Saturday at 2, so I'm out": another plan
        if (
            segment.source != "request"
            # "I've got a 10am that opened up, want it?" offers it; "I have a 2pm, so 12?" not
            and not (
                sentence.rstrip().endswith("?")
                and not re.search(r"\d", segment.text[mention.end - segment.start :])
            )
            and HAVE_A_CLOCK_RE.search(before)
            and BOOKING_ENDS_RE.match(segment.text, mention.end - segment.start)
        ):
            return False  # "I have a 5pm that always runs over": a booking the speaker has
        if AVAILABILITY_RE.search(sentence) and (
            RANGE_RE.search(sentence) or mention.kind == "interval"
        ):
            return False
        number = mention.start - segment.start + len(_BEFORE_NUMBER_RE.match(mention.text).group())
        if mention.kind == "interval" and (
            lang.window_before(segment.text, mention.start - segment.start)
            # Duckling keeps "around" in "I'm around 2-4 tomorrow", and "dinner around 7-9"
            # is a meal's rough time
            or (
                lang.window_before(segment.text, number)
                and not ACTIVITY_RE.search(segment.sentence or segment.text)
            )
        ):
            return False  # "I work 9-5 tomorrow", "I'm around 2-4": hours to pick in, no start
        if (
            mention.kind == "interval"
            and not BY_RE.match(mention.text)
            and AVAILABILITY_RE.search(segment.context)
            and not ACTIVITY_RE.search(sentence)
            and not DECIDE_RE.search(sentence)
        ):  # "Any other time available?" - "There is another between 8:30 pm and 10 pm."
            return False
        if not POSSESSIVE_RE.search(before):
            return True
        # "add my 2:00 pm meeting on Tuesday": a plan of the user's own, asked for, is the event
        # ("move my 2pm meeting" names the one to move; "lunch after my 2pm meeting" another);
        # so is one a request opens with, when nothing else is asked ("I need my 2pm meeting on
        # tuesday in the calendar", not "my 2pm meeting on tuesday, can we do lunch after?")
        after = segment.text[mention.end - segment.start :]
        name = _ends_a_name(after.lstrip(" ,"))
        if (
            segment.source != "request"
            or name is None
            or RESCHEDULE_RE.search(segment.text)
            or calls_off(segment.text)
        ):
            return False
        if ADD_MINE_RE.search(before) is not None:
            return True
        # "my 3pm dentist on tuesday": the whole request after the plan's name says no more
        # than its day and a wish for the entry ("my 2pm meeting on tuesday what room" asks)
        tail_start = mention.end + (len(after) - len(after.lstrip(" ,"))) + name
        tail = list(self.request[tail_start:])
        for other in self.request_mentions:
            if other.end > tail_start:
                if other.has_clock_time:
                    return False  # "my 9am standup tomorrow is at 10 now": a second clock
                for i in range(max(other.start, tail_start), other.end):
                    tail[i - tail_start] = " "
        return (
            WANT_MINE_RE.fullmatch(before) is not None
            and not NEGATION_RE.search(before)
            and "?" not in tail
            and asks_nothing_more(PLACEHOLDER_RE.sub(" ", "".join(tail)))
        )

    def _echo(
        self, events: list[ProposedEvent], mention: TimeMention, *, weekday: bool = False
    ) -> ProposedEvent | None:
        """A live event already at this clock time, which a bare time just repeats; with
        `weekday`, one on that weekday too: "Wednesday at 11 works" answers "Wednesday Dec 2 at
        11?" though the coming Wednesday is another date."""
        wall = mention.value.astimezone(self.zone)
        # either reading of a bare hour: "7ish 👍" after "pub 2nite @ 7ish?" is 19:00 said again
        clocks = {
            (r.astimezone(self.zone).hour, r.astimezone(self.zone).minute)
            for r in (mention.value, *(() if weekday else mention.alternatives))
        }
        for event in events:
            if (event.schedulable or event.pending) and not event.all_day:
                start = event.start.astimezone(self.zone)
                if (start.hour, start.minute) not in clocks:
                    continue
                if not weekday or (
                    start.weekday() == wall.weekday() and start.date() != wall.date()
                ):
                    return event
        return None

    def _on_other_days(
        self, event: ProposedEvent, own: list[Candidate], text: str, offset: int
    ) -> bool:
        """Whether a message calls off only days other than the event's: "moved to tomorrow
        7pm" / "Tonight is off" calls off tonight, not the plan it moved to. The day must be
        what is called off, next to the words ("sick since yesterday, have to cancel" is not)."""
        off = calls_off(text)
        if event.start is None or off is None:
            return False
        days = set()
        for said in (c.mention for c in own):
            if said.value is None or said.grain not in (None, "day", "hour", "minute"):
                continue
            lo, hi = said.start - offset, said.end - offset
            between = text[hi : off.start()] if hi <= off.start() else text[off.end() : lo]
            if not _NEXT_TO_RE.fullmatch(between):
                continue
            if lang.week_only(said.text) or not (
                lang.states_date(said.text) or said.kind == "vague"
            ):
                continue
            if said.end_value is None or said.end_value <= said.value + timedelta(days=1):
                days.add(said.value.astimezone(self.zone).date())
        return bool(days) and event.start.astimezone(self.zone).date() not in days

    def _said_apart(self, activity: str, events: list[ProposedEvent]) -> bool:
        """Whether the thread says the request's name for a plan on a line that set no event:
        "add check-in" over "Check-in: Friday (after 3 PM)" / "Check-out: Sunday (by 11:00
        AM)" names the first line, not the one timed event ("movie tonight at 9?", moved to
        tomorrow, set the event it names)."""
        words = stems(activity)
        heard = set().union(*(e.heard for e in events))
        return any(
            words <= stems(s.text)
            for i, s in enumerate(self.segments)
            if s.source != "request" and i not in heard
        )

    def _target(
        self, events: list[ProposedEvent], activity: str, text: str, *, request: bool = False
    ) -> ProposedEvent | None:
        """The event this message talks about: same activity, else the one spoken of last. The
        request's own name for the one timed event a notice calls only "your appointment"
        ("add my haircut") is that event."""
        live = [e for e in events if not e.cancelled]
        if activity:
            key = activity.split()[-1].lower()
            for event in reversed(live):
                if event.activity and event.activity.split()[-1].lower() == key:
                    return event
            timed = [e for e in live if e.start is not None]
            if (
                request
                and len(timed) == 1
                and _unnamed(timed[0])
                and not self._said_apart(activity, events)
            ):
                return timed[0]
            if GENERIC_EVENT_RE.fullmatch(activity) and DEFINITE_RE.search(
                text[: text.lower().find(activity.split()[0].lower())]
            ):  # "the appointment", "your booking": the one spoken of
                return _current(events)
            untimed = [e for e in live if e.start is None and not e.all_day]
            return untimed[-1] if untimed else None
        return _current(events)

    def _message_before(self, index: int) -> list[int]:
        """The clauses of the message before segment `index`, last first: the run of clauses
        one other speaker said right before it."""
        if index == 0:
            return []
        said_by = self.segments[index - 1].speaker
        run = []
        for back in range(index - 1, -1, -1):
            if self.segments[back].speaker != said_by or self.segments[back].source != "thread":
                break
            run.append(back)
        return run

    def _answers_offer(self, offered: ProposedEvent, index: int) -> bool:
        """Whether the message before segment `index`, another person's, said `offered` last
        and asked nothing after it, in a chat of two."""
        message = self._message_before(index)
        if len(self.talkers) > 2 or not message:
            return False
        if self.segments[message[0]].speaker == self.segments[index].speaker:
            return False
        if offered.said not in message:
            return False
        return not any("?" in self.segments[i].text for i in message if i > offered.said)

    def _asked_before(self, index: int) -> bool:
        """Whether the message before segment `index` asks something ("can you bring wine?"):
        a "can't" after it answers that question."""
        return any("?" in self.segments[i].text for i in self._message_before(index))

    def _options(
        self, text: str, own: list[Candidate], clocks: list[Candidate], offset: int
    ) -> list[Candidate]:
        """Times offered as alternatives ("1 or 2?", "Friday at 4 or Saturday morning?"):
        none of them is decided yet. An end's clock is none ("lands 10:45, dinner 8-10"), nor
        is a listed one that names its own meal."""
        ends = [c for c in clocks if _END_BEFORE_RE.search(text[: c.mention.start - offset])]
        if ends and len(ends) < len(clocks):
            own = [c for c in own if c not in ends]
            clocks = [c for c in clocks if c not in ends]
        said = sorted(own, key=lambda c: c.mention.start)
        for first, second in zip(said, said[1:], strict=False):
            gap = text[first.mention.end - offset : second.mention.start - offset]
            if OR_RE.match(gap) and (first in clocks or second in clocks):
                return clocks
            if (
                OPTIONS_GAP_RE.fullmatch(gap)
                and first in clocks
                and second in clocks
                and not (
                    lang.states_date(first.mention.text) and lang.states_date(second.mention.text)
                )
            ):
                return clocks  # "a 7pm and a 9:30 on friday": two showings to pick from; "wed
                # at 7pm and thu at 7pm" is two sessions
            if (
                first in clocks
                and second in clocks
                and _LISTED_RE.fullmatch(gap)
                and not ACTIVITY_RE.match(second.mention.text)  # "call 2-3, dinner 7-9"
                and not RESCHEDULE_RE.search(text)
                and not _REFUSED_RE.search(text[: first.mention.start - offset])
            ):
                return clocks  # "Thursday Dec. 24: 4 PM (Children's Mass), 6 PM, 10 PM"
        return []

    def _at_hour(
        self, offered: ProposedEvent, found: list[Candidate], hour: int, minute: str | None
    ) -> Candidate | None:
        """The one option of `offered` at `hour` (1 to 12, either half) and `minute`, if
        exactly one is."""
        options = [c for c in found if c.id in offered.undecided and c.mention.value is not None]
        on = [
            c for c in options
            if (local := c.mention.value.astimezone(self.zone)).hour % 12 == hour % 12
            and local.minute == int(minute or 0)
        ]  # fmt: skip
        return on[0] if len(on) == 1 else None

    def _on_day(
        self, offered: ProposedEvent, found: list[Candidate], day: Candidate
    ) -> Candidate | None:
        """The one option of `offered` on the day `day` names, if exactly one is."""
        said = day.mention.value.astimezone(self.zone).date()
        options = [c for c in found if c.id in offered.undecided and c.mention.value is not None]
        on = [c for c in options if c.mention.value.astimezone(self.zone).date() == said]
        return on[0] if len(on) == 1 else None

    def _decline(
        self, text: str, own: list[Candidate], offset: int, events: list[ProposedEvent]
    ) -> set[str]:
        """A day answered with no ("lundi oui, mardi non") calls off the event set on it; so
        does an activity answered with no ("lunch yes, drinks I can't"). Returns the ids of
        the days turned down."""
        turned: set[str] = set()
        said_clock = any(c.mention.has_clock_time for c in own)
        for event in events:
            if event.cancelled or not event.activity or said_clock:
                continue
            named = re.search(rf"(?<!\w){re.escape(event.activity.split()[-1])}(?!\w)", text, re.I)
            if named and DECLINE_AFTER_RE.match(text, named.end()):
                event.cancelled = True
        clocks = [c.mention for c in own if c.mention.has_clock_time and c.mention.value]
        said = [c.mention for c in own]
        if len(clocks) == 1 and refused_by_phrases(
            text, clocks[0].start - offset, clocks[0].end - offset, clocks[0].language
        ):  # "oh no, 10am just got taken": the one time said is the plan's, and it is off (the
            # phrases only: the head's refusal is the writer's own, "Sam: 8pm is too late for
            # me, have fun" leaves the others' dinner standing)
            current = _current(events, timed=True)
            if current is not None and _starts_at(current, clocks[0], self.zone):
                current.cancelled = True
        for candidate in own:
            mention = candidate.mention
            if not mention.all_day or mention.value is None:
                continue
            if not _turned_down(text, mention, offset, said):
                continue
            turned.add(candidate.id)
            day = mention.value.astimezone(self.zone).date()
            for event in events:
                if event.start is not None and event.start.astimezone(self.zone).date() == day:
                    event.cancelled = event.turned_down = True
        return turned

    def _resolve(
        self,
        chosen: Candidate,
        target: ProposedEvent | None,
        last_day: tuple[date, str] | None,
        dates: list[Candidate],
    ) -> tuple[datetime, list[str], bool]:
        """A clock time's datetime: its own day if it names one, else the day it belongs to;
        and whether that day was said at all (False: the parser's next such hour)."""
        mention = chosen.mention
        value = mention.value.astimezone(self.zone)
        if mention.alternatives and target is not None and target.start is not None:
            # "6.45?" - "can do 7.30": of 07:30 and 19:30, the reading nearer the time on the
            # table (the gate still asks, since the words allow both)
            was = target.start.astimezone(self.zone)
            value = min(
                (v.astimezone(self.zone) for v in (mention.value, *mention.alternatives)),
                key=lambda v: abs((v.hour * 60 + v.minute) - (was.hour * 60 + was.minute)),
            )
        if mention.kind == "interval" and mention.end_value and BY_RE.match(mention.text):
            value = (mention.end_value + timedelta(seconds=1)).astimezone(self.zone)
        if lang.states_date(mention.text):
            return value, [chosen.id], True
        if dates:
            day = dates[-1].mention.value.astimezone(self.zone).date()
            clock = value.timetz().replace(tzinfo=None)
            return _at(day, clock, self.zone), [dates[-1].id, chosen.id], True
        if target is not None and target.start is not None and not target.all_day:
            day = target.start.astimezone(self.zone).date()
            if target.undecided and last_day is not None and _said_after(last_day[1], target):
                day = last_day[0]  # "Friday at 4 or Saturday?" - "Saturday works." - "10am?"
            grounds = [g for g in target.grounds if g != target.grounds[-1]] or target.grounds[:1]
            return _at(day, value.time(), self.zone), [*grounds[:1], chosen.id], target.dated
        if target is not None and target.day is not None:
            said = int(target.grounds[0][1:]) if target.grounds else 0
            if last_day is None or int(last_day[1][1:]) <= said:  # unless a later day was named
                grounds = [*target.grounds[:1], chosen.id]
                return _at(target.day, value.time(), self.zone), grounds, True
        if last_day is not None:
            return _at(last_day[0], value.time(), self.zone), [last_day[1], chosen.id], True
        return value, [chosen.id], False

    def _end(self, mention: TimeMention, start: datetime, activity: str) -> datetime:
        if mention.kind == "interval" and mention.end_value and not BY_RE.match(mention.text):
            length = mention.end_value - mention.value
            if timedelta(0) < length <= timedelta(hours=16):
                return start + length
        meal = meal_in(activity)
        return start + (MEAL_DURATIONS[meal] if meal else DEFAULT_DURATION)

    def _dates_and_vague(
        self,
        events: list[ProposedEvent],
        segment: Segment,
        activity: str,
        dates: list[Candidate],
        vague: list[Candidate],
        target: ProposedEvent | None,
        intent: str,
    ) -> None:
        """A message with a day but no clock time: an all-day event, or a vague one to ask about."""
        text = segment.text
        if not dates and not vague:
            unnamed = [e for e in events if not e.cancelled and not e.activity]
            if activity and unnamed and LABEL_RE.search(text):
                unnamed[-1].title = unnamed[-1].activity = activity  # "title it The Hives Concert"
                return
            if activity and target is not None and target.start is not None and _unnamed(target):
                target.title = target.activity = activity  # "add my haircut": the notice's event
                return
            if activity and target is None:
                events.append(
                    ProposedEvent(activity, None, None, False, attendees=people_in(text),
                                  location=place_in(text, [], segment.start), activity=activity,
                                  meal=meal_in(activity), vague=activity.lower())
                )  # fmt: skip
            return
        if (
            AVAILABILITY_RE.search(segment.sentence or text)
            or SCHEDULE_QUESTION_RE.search(text)
            or (CALENDAR_QUESTION_RE.search(segment.sentence or text) and not MOVE_RE.search(text))
        ):
            return  # "am I free on the 13th?": a day asked about, not an event
        day_candidate = dates[-1] if dates else None
        day = day_candidate.mention.value.astimezone(self.zone).date() if day_candidate else None
        within = None
        if day is None and vague and vague[-1].mention.value is not None:
            first, span = _days_spanned(vague[-1].mention, self.zone)
            if span > 1:  # "sometime next week" is seven days to propose from, not Monday
                within = (first, span)
            elif lang.states_date(vague[-1].mention.text) or not re.search(
                r"\d", vague[-1].mention.text
            ):  # "friday evening", "this afternoon"; a bound on a clock ("after 3") names no day
                day = first
        said = (vague[-1].mention.text if vague else day_candidate.mention.text).strip()
        if target is not None and (not activity or target.activity == activity):
            if target.start is None:
                target.day = day or target.day
                target.within = within or target.within
                target.vague = said
                if day_candidate:
                    target.grounds = [day_candidate.id]
                return
            # "book it for 12:30" ... "for next Friday": the day completes the time
            # "4 pm on the 5th." - "I want to see it on the 3rd": a day of one's own against a
            # time only others offered is a counter; the day moves and waits for their yes
            who = _who(segment)
            backers = target.offers.get(target.start, set())
            counter = (
                who is not None and bool(backers) and who not in backers
                and day_candidate is not None  # a date said, not "no, not now"
                # of the plan itself ("see it on the 3rd"), not of another ("I have the kids
                # on sunday", "I'm away saturday")
                and _of_the_plan(text, target)
                and WISH_RE.search(text) is not None  # not "I'll prep for it on friday"
                and not (AWAY_RE.search(text) or DECLINE_RE.search(text))
                and day != target.start.astimezone(self.zone).date()
                and not target.undecided  # "Montag ja, Dienstag nein": a pick, not a counter
                and not any(
                    e.start is not None and e.start.astimezone(self.zone).date() == day
                    for e in events if not e.cancelled
                )
                and not (ACCEPT_RE.search(text) or DECIDE_RE.search(text))  # "wed no problem"
            )  # fmt: skip
            moves = (
                RESCHEDULE_RE.search(text) or not target.dated
                or lang.SAME_TIME_MOVE_RE.search(text) or lang.CORRECTION_OPENS_RE.match(text)
                or RESTATED_DAY_RE.search(segment.sentence or text) or counter
            ) and not AWAY_RE.search(segment.sentence or text)  # fmt: skip
            # ("I mean, I'm away Sunday anyway": the day the speaker is away is no new day)
            if moves and day is None and within is not None and not target.all_day:
                # "can we push to next week?": moved, to no day or time yet; the gate asks
                target.start = target.end = None
                target.vague, target.within, target.grounds = said, within, []
                target.awaiting = None
                return
            if moves and day is not None and not target.all_day:
                moved = _at(day, target.start.astimezone(self.zone).time(), self.zone)
                length = target.end - target.start if target.end else DEFAULT_DURATION
                grounds = [day_candidate.id] if day_candidate else []
                target.start, target.end = moved, moved + length
                target.grounds = grounds + target.grounds[-1:]
                target.dated = bool(grounds) or target.dated
                _offered(target, who)  # a change to another's plan waits for their yes
                return
            if target.start is not None:
                return
        # an all-day word ("offsite", "Urlaub"), or a range of whole days ("14.–16. Mai"):
        # no meal or meeting lasts for days
        all_day = (
            day_candidate is not None
            and not vague
            and (
                _whole_day(text, activity)
                or _days_long(day_candidate.mention) >= 2
                # "Please submit the form by Sunday, Dec 13": the day to have it done by
                or (not activity and _by_day(segment, day_candidate.mention))
            )
        )
        if all_day and day_candidate and ESTIMATE_RE.search(segment.sentence or text):
            # "Estimated delivery: 2-4 December": one day of these, nobody knows which
            all_day, day = False, None
            within = (day_candidate.mention.value.astimezone(self.zone).date(),
                      max(_days_long(day_candidate.mention), 1))  # fmt: skip
        said_at = (dates or vague)[-1].mention
        event = ProposedEvent(
            title=activity
            or words_around(text, said_at.start - segment.start, said_at.end - segment.start),
            start=None,
            end=None,
            all_day=all_day,
            location=place_in(text, [], segment.start),
            attendees=people_in(text),
            grounds=[day_candidate.id] if day_candidate else [],
            vague=None if all_day else said,
            day=day,
            within=within,
            meal=meal_in(activity or text),
            kind="reminder" if intent == "remind" else "event",
            activity=activity,
        )
        if all_day and day_candidate is not None:
            mention = day_candidate.mention
            first = mention.value.astimezone(self.zone)
            last = mention.end_value.astimezone(self.zone) if mention.end_value else None
            event.start = first.replace(hour=0, minute=0, second=0, microsecond=0)
            event.end = last if last and last > first else event.start + timedelta(days=1)
            event.vague = None
        events.append(event)

    def _finish(
        self,
        events: list[ProposedEvent],
        request: str,
        thread: str,
        speakers: list[str],
        intent: str,
        segments: list[Segment],
    ) -> list[ProposedEvent]:
        """Titles and attendees for the events that stand; cancelled ones are dropped."""
        items = request_subject(request)
        named = {word for item in items for word in item}  # "add my <PERSON_1>": what, not who
        said = [*people_in(" ".join(speakers)), *people_in(request), *people_in(thread)]
        people = list(dict.fromkeys(p for p in said if p.casefold() not in named))
        fallback = (
            (
                reminder_title(request) or activity_title(request)
                if intent == "remind"
                else activity_title(request)
            )
            or request_title(request)
            or thread_subject(thread)
        )
        events = _merged(events)
        unnamed = [e for e in events if not e.activity and not e.cancelled]
        events = _named_by_request(events, items, segments)
        if ONE_RE.search(request) and not MANY_RE.search(request):
            events = _the_one(events)
        kept: list[ProposedEvent] = []
        timed = any(e.schedulable for e in events)
        # a role said for one plan: with two ("lunch with my boss and gym on tuesday"), which
        # one it goes with is not read
        role = role_in(request) if sum(not e.cancelled for e in events) == 1 else None
        self.called_off = []
        for event in events:
            if event.cancelled and (event.start is not None or event.day is not None):
                event.title = event.title or fallback or "Meeting"
                self.called_off.append(event)
            if event.cancelled or (timed and event.start is None and event.day is None):
                continue
            if not event.activity and fallback and len(unnamed) == 1 and len(items) < 2:
                event.title = fallback  # "add the crit": the user's own name for it; "add the
                # breakfast and the gala" names two, and the gala keeps the thread's name
            if not event.title:
                event.title = fallback or ("Reminder" if event.kind == "reminder" else "Meeting")
            event.attendees = list(dict.fromkeys([*event.attendees, *people]))[:8]
            if event.kind == "event" and event.attendees and not PLACEHOLDER_RE.search(event.title):
                event.title = f"{event.title} with {' and '.join(event.attendees[:2])}"
            elif (
                event.kind == "event"
                and role
                and role.split()[-1].casefold() not in (event.title.casefold().split())
            ):  # "lunch with my boss": the role is who it is with ("Lunch", and a follow-up
                # about "the accountant" could not find the "Meeting" it was)
                event.title = f"{event.title} {role}"
            kept.append(event)
        return kept[:MAX_EVENTS]


def _days_long(mention: TimeMention) -> int:
    """How many whole days an all-day range covers (0 for anything else)."""
    if not mention.all_day or mention.value is None or mention.end_value is None:
        return 0
    return (mention.end_value.date() - mention.value.date()).days


def _merged(events: list[ProposedEvent]) -> list[ProposedEvent]:
    """Two live timed events at the same minute are one event said twice ("Booking the
    dentist at 11:30" ... "call it Appointment, at 11:30"): keep the best title. One of them
    agreed ("2:30" - "Please confirm: errand at 2:30") makes the one kept agreed."""

    def timed(event: ProposedEvent) -> bool:
        return event.start is not None and not event.cancelled and not event.undecided

    kept: list[ProposedEvent] = []
    for event in _dated_later(events):
        twin = next(
            (
                k
                for k in kept
                if timed(event) and timed(k) and k.start == event.start
                and k.all_day == event.all_day
            ),
            None,
        )  # fmt: skip
        if twin is None:
            kept.append(event)
            continue
        best, other = (event, twin) if (event.named, bool(event.activity), event.said) > (
            twin.named, bool(twin.activity), twin.said
        ) else (twin, event)  # fmt: skip
        if best.pending and not other.pending:
            best.pending, best.awaiting = False, None
        best.heard |= other.heard
        kept[kept.index(twin)] = best
    return kept


def _dated_later(events: list[ProposedEvent]) -> list[ProposedEvent]:
    """A clock time said with no day ("book the salon at 5") and the same clock said later with
    its day ("the appointment is March 4th at 5 pm") are one plan: the day completes the time,
    and the undated one (today only by the parser's default) goes, its name kept."""
    kept = list(events)
    for at, event in enumerate(events):
        if event.dated or event.start is None or event.cancelled or event.all_day:
            continue
        clock = (event.start.hour, event.start.minute)  # both in the linker's zone
        later = next(
            (
                e for e in events[at + 1 :]
                if e.dated and e.start is not None and not e.cancelled and not e.all_day
                and (e.start.hour, e.start.minute) == clock and e.start != event.start
            ),
            None,
        )  # fmt: skip
        if later is None:
            continue
        if event.named and not later.named:
            later.title, later.activity, later.named = event.title, event.activity, True
        later.said, later.heard = max(later.said, event.said), later.heard | event.heard
        kept.remove(event)
    return kept


def _the_one(events: list[ProposedEvent]) -> list[ProposedEvent]:
    """The one event a singular request means: among several timed ones, the one the user
    named for the calendar, else the one the thread settled last."""
    timed = [e for e in events if e.schedulable]
    if len(timed) < 2:
        return events
    best = max(timed, key=lambda e: (e.named, e.said))
    return [e for e in events if e is best or not e.schedulable]


def _named_by_request(
    events: list[ProposedEvent], items: list[list[str]], segments: list[Segment]
) -> list[ProposedEvent]:
    """ "add the design crit": only the events whose messages say most of the words the request
    names it by; "add the book club and the gingerbread workshop": those of each thing named.
    A name the thread never says ("add book club") is the user's own, and picks nothing."""
    whole = [word for item in items for word in item]
    if len(items) > 1 and max(_scores(events, whole, segments).values(), default=0) == len(whole):
        items = [whole]  # "add the Mac and Cheese Cookoff": one thing whose name has an "and"
    picks = [p for p in (_named_by(events, words, segments) for words in items) if p is not None]
    if not picks:
        return events
    chosen = {id(e) for pick in picks for e in pick}
    return [e for e in events if id(e) in chosen]


def _scores(
    events: list[ProposedEvent], subject: list[str], segments: list[Segment]
) -> dict[int, int]:
    """How many of a name's words each event's messages say (by `id` of the event)."""

    def score(event: ProposedEvent) -> int:
        from_thread = [i for i in event.heard if segments[i].source != "request"]
        if not from_thread:  # the request's own: its time names it; with none it only asks
            return len(subject) if event.start is not None else 0
        heard = set().union(*(stems(segments[i].text) for i in from_thread))
        heard |= stems(event.activity)
        return sum(word in heard for word in subject)

    return {id(e): score(e) for e in events}


def _named_by(
    events: list[ProposedEvent], subject: list[str], segments: list[Segment]
) -> list[ProposedEvent] | None:
    """The events one name in a request picks, or None when the thread never says it. When the
    thread says those words but no timed event comes from where it does ("add parents'
    evening" to a newsletter that dates only the last day of term), no other event stands in
    for it: only the untimed ones stay, and the turn asks."""

    def said(index: int) -> set[str]:
        return stems(segments[index].text)

    scores = _scores(events, subject, segments)
    best = max(scores.values(), default=0)
    if best:
        return [e for e in events if scores[id(e)] == best]
    thread = [i for i, s in enumerate(segments) if s.source != "request"]
    # a notice's first line names the whole of it ("Eurostar - Booking confirmation"); a
    # person's first message, or a line that dates something, is one of the thread's
    heading = [
        i
        for i in thread[:1]
        if segments[i].speaker is None
        and not re.search(r"\d", PLACEHOLDER_RE.sub("", segments[i].text))
    ]
    in_thread = set().union(*(said(i) for i in thread if i not in heading))
    if any(word in in_thread for word in subject):
        return [e for e in events if e.start is None and not e.all_day]
    return None


def _days_spanned(mention: TimeMention, zone: ZoneInfo) -> tuple[date, int]:
    """The first local day a vague mention covers and how many days ("next week": 7)."""
    first = mention.value.astimezone(zone)  # type: ignore[union-attr]
    if lang.week_only(mention.text):
        # "some evening next week": any day of that week ("wednesday next week" is one day)
        monday = first.date() - timedelta(days=first.weekday())
        return monday, 7
    if mention.end_value is not None:
        last = mention.end_value.astimezone(zone)
        days = (last.date() - first.date()).days + (last.time() != time(0))
        return first.date(), max(days, 1)
    return first.date(), {"week": 7, "month": 30}.get(mention.grain or "", 1)
