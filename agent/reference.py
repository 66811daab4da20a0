"""Which of the chat's events a follow-up is about, as named features of one (request, event)
pair, so that a fitted weighting can decide it instead of an ordering of rules (recorded and
fitted; not yet switched in: see training/event_reference.py).

`agent.followup` decides today by rules in sequence: every activity the request names must name
the event, an everyday word names nothing, a counter word vetoes, a day picks among the named.
Each rule was right for the case it was written for ("cancel the meeting, lunch is still on")
and wrong for others ("se suspendió el partido": "partido" is an everyday Spanish word, so it
names nothing). Here every such reading is one number; `training/event_reference.py` records
them for the follow-up conversations of the dev sets, labels them by the gold calendar, and
fits and cross-validates the weights.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from agent.naming import (
    EVERYDAY_ANYWHERE,
    LETTERS_RE,
    content_words,
    holds_person,
    known,
    names_word,
    people_named,
    placeholders,
    roles_lacked,
    title_words,
)
from lang import data
from lang.activities import named_activities
from memory.event import CalendarEvent
from privacy.entity_map import PLACEHOLDER_RE
from tools.calendar.lang import states_date
from tools.calendar.times import TimeMention
from understanding.acts import Group, act_words, counter_words, reads_as

_POINTERS = data.words("acts", "event_pointers")
_PERSON_POINTERS = data.words("acts", "person_pointers")
_FILLER = data.words("acts", "filler")

FEATURES = (
    "activity_names",  # activities of the request that name the title ("dinner")
    "activity_misses",  # activities it names that the title does not hold ("lunch")
    "word_names",  # its other content words that name the title ("aperitivo")
    "plain_names",  # its everyday words that name the title ("partido"), not "with" or "the"
    "people_held",  # people it names whom the event has
    "strangers",  # people, placeholders or roles it names whom the event lacks
    "pointer",  # "it", "that", "lo": points back, naming nothing
    "person_pointer",  # "he", "ela": points back at an event that has a person
    "day_same",  # a date it states is the event's day
    "day_other",  # a date it states that is not the event's day
    "clock_same",  # a clock it states is the event's clock
    "last_changed",  # the chat's event created or changed last
    "unnamed_last",  # ... and the request names nothing: "cancel it", "push to friday"
    "only_one",  # the only event of the chat ahead
    "unexplained",  # its words that are not everyday, act, naming or time words
    "against",  # of those, words that argue against the act
)


@dataclass(frozen=True)
class Context:
    """What is read of the request once, for every event it might be about."""

    request: str
    said: tuple[TimeMention, ...]
    people: tuple[str, ...]
    activities: tuple[str, ...]
    content: tuple[str, ...]
    plain: tuple[str, ...]
    words: tuple[str, ...]
    against: frozenset[str]
    doing: frozenset[str]


def read_request(
    request: str, said: list[TimeMention], group: Group, value_of: Callable[[str], str | None]
) -> Context:
    """The request's words, people and times, read once."""
    spans = [(m.start, m.end) for m in said]
    blanked = PLACEHOLDER_RE.sub(lambda m: " " * len(m.group()), request)
    words = tuple(
        w.group().casefold()
        for w in LETTERS_RE.finditer(blanked)
        if not any(s <= w.start() < e for s, e in spans)
    )
    activities = tuple(named_activities(request))
    content = tuple(w for w in content_words(request) if w not in activities)
    plain = tuple(
        w for w in words if len(w) >= 4 and w not in content and w not in activities
        and w not in _FILLER and known(w) < EVERYDAY_ANYWHERE
    )  # fmt: skip
    against = counter_words(request, group) if reads_as(request, group) else frozenset()
    return Context(
        request=request, said=tuple(said),
        people=tuple(people_named(request, value_of)), activities=activities, content=content,
        plain=plain, words=words, against=frozenset(against),
        doing=frozenset(act_words(request, group)),
    )  # fmt: skip


def features(
    context: Context,
    event: CalendarEvent,
    *,
    rank: int,
    count: int,
    tz: str,
    value_of: Callable[[str], str | None],
) -> dict[str, float]:
    """The named features of the request being about `event`, the `rank`-th of the chat's
    `count` events ahead (0: changed last)."""
    title = title_words(event)
    plain_title = [w.casefold() for w in LETTERS_RE.findall(event.title) if len(w) >= 3]
    zone = ZoneInfo(tz)
    day = event.start.astimezone(zone).date()
    clock = event.start.astimezone(zone).time()
    dates = [
        m.value.astimezone(zone).date()
        for m in context.said
        if m.value is not None and states_date(m.text)
    ]
    clocks = [m.value.astimezone(zone).time() for m in context.said
              if m.value is not None and m.has_clock_time]  # fmt: skip
    strangers = [p for p in context.people if not holds_person(event, p)]
    strangers += [p for p in placeholders(context.request) if not value_of(p)]
    strangers += roles_lacked(context.request, event)
    naming = {w for w in (*context.activities, *context.content) if names_word(w, title)}
    naming |= {w for w in context.plain if w in plain_title}
    explained = set(context.doing) | naming | set(context.activities) | set(context.plain)
    unexplained = [w for w in context.content if w not in explained]
    pointers = _POINTERS | _PERSON_POINTERS
    return {
        "activity_names": float(sum(names_word(a, title) for a in context.activities)),
        "activity_misses": float(sum(not names_word(a, title) for a in context.activities)),
        "word_names": float(sum(names_word(w, title) for w in context.content)),
        "plain_names": float(sum(w in plain_title for w in context.plain)),
        "people_held": float(sum(holds_person(event, p) for p in context.people)),
        "strangers": float(len(strangers)),
        "pointer": float(any(w in _POINTERS for w in context.words)),
        "person_pointer": float(
            bool(event.attendees) and any(w in pointers - _POINTERS for w in context.words)
        ),
        "day_same": float(day in dates),
        "day_other": float(any(d != day for d in dates)),
        "clock_same": float(clock in clocks),
        "last_changed": float(rank == 0),
        "unnamed_last": float(
            rank == 0 and not (context.activities or context.content or context.people)
        ),
        "only_one": float(count == 1),
        "unexplained": float(len(unexplained)),
        "against": float(sum(w in context.against for w in unexplained)),
    }
