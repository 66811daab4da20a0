"""What an event is, as patterns over activities.toml: the activity words titles are made of,
and whether a capitalised heading names an event ("Winter Concert:") rather than a person."""

from __future__ import annotations

import re

from lang import data


def _alternation(*sections: str) -> str:
    """The phrases of `sections` (all languages) as one alternation source."""
    table = data.table("activities")
    return data.phrases_alternation(
        sorted({p for section in sections for group in table[section].values() for p in group})
    )


# The one-word activities, lower-cased: "add the webinar" names an event, never a person.
ACTIVITY_NAMES = frozenset(
    p.casefold() for group in data.table("activities")["activities"].values() for p in group
    if " " not in p
)  # fmt: skip
# "Zahnarzttermin", "Weihnachtsfeier": a compound ending in an activity is one
_COMPOUNDS = rf"\w*(?:{_alternation('activity_compound_ends')})"
ACTIVITY_WORDS = rf"{_alternation('activities')}|{_COMPOUNDS}"
# "call me back", "call it Gym", "call the event Gym": no call; "@party", "#dinner" are a
# channel's or a group's handle
ACTIVITY_RE = re.compile(
    rf"(?<![\w@#])(?:{ACTIVITY_WORDS})(?!\w)(?!\s+(?:me|you|us|back)\b)"
    r"(?!(?<=call)\s+(?:it|this|that|the\s+event)\b)",
    re.IGNORECASE,
)
# Words that name a kind any plan can be ("appointment", "Termin", "cita"), lower-cased.
PLAN_KINDS = frozenset(
    p.casefold() for g in data.table("activities")["plan_kinds"].values() for p in g
)
# The phrases that do an act on a plan (acts.toml [cancel], [move]): an activity word that opens
# one is the act's verb, not the plan ("call off thursday's lunch" names a lunch, and no call;
# "call the dentist off" still names the dentist).
_ACT_PHRASES = data.phrases_regex([*data.phrases("acts", "cancel"), *data.phrases("acts", "move")])


def named_activities(text: str) -> list[str]:
    """The activities `text` names, lower-cased, less those that open a phrase doing an act."""
    verbs = {m.start() for m in _ACT_PHRASES.finditer(text)}
    return [m.group().casefold() for m in ACTIVITY_RE.finditer(text) if m.start() not in verbs]


# A phrase's last word is its head: "Winter Concert", "Parent Teacher Conferences", "Santa
# Breakfast" and "Book Fair" are events; "Dana Whitfield" and "Mark Jones" are not.
_EVENT_END_RE = re.compile(
    rf"(?<![\w'’])(?:(?:{ACTIVITY_WORDS})(?:e?s)?|{_alternation('event_nouns')})$", re.IGNORECASE
)


# ... or an event's word numbered or lettered: "Session B", "Game 2", "Day 1", "Option A".
_ITEM_LABELS = _alternation("item_labels")
_NUMBERED_EVENT_RE = re.compile(
    rf"(?:{ACTIVITY_WORDS}|{_alternation('event_nouns')}|{_ITEM_LABELS})"
    r"\s+(?:[A-Z]|\d{1,3}|[IVX]{1,4})",
    re.IGNORECASE,
)
# A capital letter that labels an item of a set, right after the word it labels.
_LETTERED_RE = re.compile(rf"(?<![\w'’])(?:{_ITEM_LABELS})\s+$", re.IGNORECASE)


def letters_an_item(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is one capital letter labelling an item ("add session B",
    "Plan B", "Gate C"): no initial of a person, whom a letter alone would not name anyway."""
    letter = text[start:end].rstrip(".")
    return (
        len(letter) == 1
        and letter.isupper()
        and _LETTERED_RE.search(text, max(0, start - 40), start) is not None
    )


def names_event(phrase: str) -> bool:
    """Whether a capitalised phrase of two words or more names an event, as a notice's heading
    does ("Holiday Lights Walk", "New Year's Eve Gala", "Session B"). One word alone never
    does: "Trip:", "Summit:" or "Dance:" may be someone's name or handle."""
    phrase = phrase.rstrip(" .:")
    if len(phrase.split()) < 2:
        return False
    return bool(_EVENT_END_RE.search(phrase) or _NUMBERED_EVENT_RE.fullmatch(phrase))
