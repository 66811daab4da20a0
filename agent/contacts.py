"""Contacts the user teaches in passing: "karthik my cfo", "priya (priya@acme.com) is my dentist".

The rules read the *redacted* request, where the privacy layer has already decided who is a
person: a role or an address next to a person placeholder is a fact about that person. Real
values come back from the session map only to be stored (memory keeps real values); the
next session's redactor then knows the name, and `draft_reply` finds the address.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.store import Contact
from privacy import EntityMap

# Words that end a role: "karthik my cfo about lunch" -> "cfo".
_ROLE_STOP = (
    "about|re|regarding|for|to|at|on|in|and|or|but|so|if|that|tomorrow|today|tonight|next|this"
)
_ROLE_WORD = rf"(?!(?:{_ROLE_STOP})\b)[a-z][a-z'-]*"
_ROLE = rf"(?P<role>{_ROLE_WORD}(?:\s+{_ROLE_WORD}){{0,2}})"
_PERSON = r"(?P<person><PERSON_\d+>)"
# "<PERSON_1> my cfo", "<PERSON_1>, my cfo", "<PERSON_1> (my cfo)", "<PERSON_1> who is my cfo",
# "<PERSON_1> is my cfo", "my cfo <PERSON_1>", "my cfo, <PERSON_1>".
_ROLE_AFTER = re.compile(
    rf"{_PERSON}(?:\s*\(?<(?:EMAIL|PHONE)_\d+>\)?)?"  # "<PERSON_1> (<EMAIL_1>) is my ..."
    rf"\s*(?:,|\(|-)?\s*(?:who\s+is\s+|who's\s+|is\s+)?(?:my|our)\s+{_ROLE}",
    re.I,
)
_ROLE_BEFORE = re.compile(rf"\b(?:my|our)\s+{_ROLE}\s*,?\s+{_PERSON}", re.I)
# "<PERSON_1> (<EMAIL_1>)", "<PERSON_1> <EMAIL_1>", "<PERSON_1> at <EMAIL_1>",
# "<PERSON_1>'s email is <EMAIL_1>".
_EMAIL_NEXT = re.compile(
    rf"{_PERSON}\s*(?:'s\s+(?:e-?mail|address)\s+is\s+|\(|<|\bat\s+|,\s*)?\s*(?P<email><EMAIL_\d+>)",
    re.I,
)
# A role right after a person describes that person: "<PERSON_1>, my cfo", "<PERSON_1> is my".
_NAMED_BEFORE = re.compile(r"<PERSON_\d+>\s*(?:,|\(|-|\b(?:who\s+)?(?:is|was)\b)?\s*$", re.I)
_PHONE_NEXT = re.compile(
    rf"{_PERSON}\s*(?:'s\s+(?:phone|number|mobile|cell)\s+is\s+|\(|\bon\s+|,\s*)?\s*"
    r"(?P<phone><PHONE_\d+>)",
    re.I,
)


@dataclass(frozen=True)
class LearnedContact:
    """Real values to store: memory keeps the user's own data, never placeholders."""

    name: str
    role: str = ""
    email: str = ""
    phone: str = ""


def learn_contacts(redacted: str, entity_map: EntityMap) -> list[LearnedContact]:
    """Contacts stated in `redacted` text, with their real values from `entity_map`."""
    found: dict[str, dict[str, str]] = {}

    def note(placeholder: str, key: str, value: str) -> None:
        if entity_map.value_of(placeholder) is not None:
            found.setdefault(placeholder, {})[key] = value

    for pattern in (_ROLE_AFTER, _ROLE_BEFORE):
        for match in pattern.finditer(redacted):
            note(match.group("person"), "role", match.group("role").lower())
    for pattern, key in ((_EMAIL_NEXT, "email"), (_PHONE_NEXT, "phone")):
        for match in pattern.finditer(redacted):
            value = entity_map.value_of(match.group(key))
            if value is not None:
                note(match.group("person"), key, value)
    return [
        LearnedContact(name=entity_map.value_of(placeholder) or "", **values)
        for placeholder, values in found.items()
    ]


def name_roles(redacted: str, contacts: list[Contact], entity_map: EntityMap) -> str:
    """`redacted` with "my cfo" replaced by the placeholder of the contact whose role it is.

    "email my cfo about the Q3 numbers" then has a recipient, and "lunch with my cfo" an
    attendee, in every later chat. A role already next to a person ("<PERSON_1>, my cfo") is
    left alone: it names that person.
    """
    for contact in contacts:
        if not contact.role:
            continue
        pattern = re.compile(
            rf"\b(?:my|our)\s+{re.escape(contact.role)}\b(?!\s*,?\s*<)",
            re.I,
        )

        def swap(match: re.Match[str], name: str = contact.name, text: str = redacted) -> str:
            if _NAMED_BEFORE.search(text[: match.start()]):  # "<PERSON_1> is my cfo"
                return match.group(0)
            return entity_map.placeholder_for("PERSON", name)

        redacted = pattern.sub(swap, redacted)
    return redacted
