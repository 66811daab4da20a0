"""Which event a line of the user's names: the content words of a request or a question, an
event's title words, and whether one names the other.

A follow-up ("annulla l'aperitivo", "Diego lo cambió a las 3") and a calendar question ("when
is the dentist again?") both ask which of the calendar's events the user's words are about.
Everyday words of any of Veil's languages name nothing, nor do filler words; a word names a
title word when one begins the other (endings: "dinners"), when one holds the other (German
compounds: "Meeting" in "Teammeeting"), or when both are the same meal in two languages.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from lang import data
from lang.activities import ACTIVITY_RE
from lang.frequency import LANGUAGES, WORD_CACHE_SIZE, zipf
from lang.spelling import one_edit
from memory.event import CalendarEvent
from privacy.entity_map import PLACEHOLDER_RE
from tools.calendar.lang import detect_languages, meal_of

_FILLER = data.words("acts", "filler")
LETTERS_RE = re.compile(r"[^\W\d_]+")  # "l'aperitivo" is "l" and "aperitivo"
# Words at least this common in the request's language (Zipf: "the" 7, "para" 6.9, "she" 6.1)
# are pronouns, articles and auxiliaries, which name nothing.
EVERYDAY_ZIPF = 5.5
# A short line's language is often misread ("pásalo a las 3" as French), so a word this common
# in any of Veil's languages ("las" 7.0, "les" 7.2, "mit" 7.0; "casa" 6.0 is not) is one too.
EVERYDAY_ANYWHERE = 6.5
# A word this long inside another names it: "Meeting" in "Teammeeting", "Kino" not in "Kinobar"
COMPOUND_PART = 5
# A word this long one keystroke from a title's word names it ("moive" typed for "movie"), when
# one of the two is no word of any of Veil's languages (Zipf below this): "match" and "watch"
# are two words, not a slip.
SLIP_LETTERS = 5
SLIP_ZIPF = 2.0


def placeholders(text: str) -> list[str]:
    """The placeholders of a redacted text, whole ("<PERSON_1>")."""
    return [m.group(0) for m in PLACEHOLDER_RE.finditer(text)]


def people_named(request: str, value_of: Callable[[str], str | None]) -> list[str]:
    """The real values (case-folded) of the placeholders in the redacted request."""
    found = (value_of(p) for p in placeholders(request))
    return [value.casefold() for value in found if value]


def holds_person(event: CalendarEvent, person: str) -> bool:
    """Whether the event's title, people or place hold a word of the person's name."""
    held = set(LETTERS_RE.findall(" ".join([event.title, *event.attendees, event.location])
                                   .casefold()))  # fmt: skip
    return any(len(part) >= 3 and part in held for part in LETTERS_RE.findall(person))


_ROLES = data.words("names", "roles")


def roles_lacked(text: str, event: CalendarEvent) -> list[str]:
    """The words of `text` that say who someone is to the user ("my boss", "Anna's sister")
    and that the event's title, people and place do not hold; a role that is also an activity
    ("the dentist") names the plan, not a person."""
    held = set(LETTERS_RE.findall(" ".join([event.title, *event.attendees, event.location])
                                  .casefold()))  # fmt: skip
    return [
        w
        for w in (w.casefold() for w in LETTERS_RE.findall(PLACEHOLDER_RE.sub(" ", text)))
        if len(w) >= 3 and w in _ROLES and w not in held and not ACTIVITY_RE.fullmatch(w)
    ]


@functools.lru_cache(maxsize=WORD_CACHE_SIZE)
def _content_words(text: str) -> tuple[str, ...]:
    languages = detect_languages(text)[:2]
    return tuple(
        w.casefold() for w in LETTERS_RE.findall(PLACEHOLDER_RE.sub(" ", text))
        if ACTIVITY_RE.fullmatch(w)  # "call" is as common as "time", and names a plan
        or len(w) >= 3 and w.casefold() not in _FILLER
        and max(zipf(w.casefold(), language) for language in languages) < EVERYDAY_ZIPF
        and known(w.casefold()) < EVERYDAY_ANYWHERE
    )  # fmt: skip


def content_words(text: str) -> list[str]:
    """The words of `text` that can name something: not filler, not everyday words of its
    language (pronouns, articles: "with" must not name "Lunch with Tom"), three letters up, or
    an activity. Read once per text: a question asks it of every title in a year."""
    return list(_content_words(text))


def title_words(event: CalendarEvent) -> list[str]:
    """The words an event's title can be named by: its content words and activities ("1:1")."""
    named = [m.group().casefold() for m in ACTIVITY_RE.finditer(event.title)]
    return [*content_words(event.title), *named]


def names_word(word: str, title: list[str]) -> bool:
    """Whether `word` names a word of the title, allowing for endings ("dinners", "Dinner"),
    compounds ("Meeting" in "Teammeeting"), or the same meal in another language
    ("Mittagessen" for a "Lunch with ..." event), or a slip of the keyboard in either ("movie"
    for the "moive night" the user typed before)."""
    meal = meal_of(word)
    return any(
        t.startswith(word[:4]) or word.startswith(t[:4]) or (meal and meal == meal_of(t))
        or (min(len(word), len(t)) >= COMPOUND_PART and (word in t or t in word))
        or _slip(word, t)
        for t in title
    )  # fmt: skip


def _slip(word: str, other: str) -> bool:
    """Whether one of two words is the other mistyped by a key (see SLIP_LETTERS)."""
    return (
        min(len(word), len(other)) >= SLIP_LETTERS and one_edit(word, other)
        and min(known(word), known(other)) < SLIP_ZIPF
    )  # fmt: skip


@functools.lru_cache(maxsize=WORD_CACHE_SIZE)
def known(word: str) -> float:
    """How common a word is in the language where it is commonest."""
    return max(zipf(word, language) for language in LANGUAGES)


def named_by(activities: list[str], events: list[CalendarEvent]) -> list[CalendarEvent]:
    """The events (in their order) whose title every one of `activities` names: "cancel the
    meeting, lunch is still on" names no event, though the lunch is one (which the act is
    about is not read)."""
    return [e for e in events if all(names_word(a, title_words(e)) for a in activities)]


def naming_count(words: list[str], event: CalendarEvent) -> int:
    """How many of `words` (content words of a request) name a word of the event's title."""
    title = title_words(event)
    return sum(names_word(word, title) for word in words)


def most_named(words: list[str], events: list[CalendarEvent]) -> list[CalendarEvent]:
    """The events (in their order) that the most of `words` name; none when no word names any:
    "when is my mother's birthday again?" finds "Birthday", "Mum's birthday" over "Dinner"."""
    activities = [w for w in words if ACTIVITY_RE.fullmatch(w)]  # "Tom's birthday": a birthday
    events = named_by(activities, events)
    counts = [naming_count(words, event) for event in events]
    best = max(counts, default=0)
    return [e for e, n in zip(events, counts, strict=True) if best and n == best]
