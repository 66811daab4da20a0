"""Contacts taught in passing are learned from the redacted request, with real values kept."""

from __future__ import annotations

import pytest

from agent.contacts import LearnedContact, learn_contacts
from privacy import EntityMap


def _map(**values: str) -> EntityMap:
    entity_map = EntityMap()
    for placeholder_type, value in values.items():
        entity_map.placeholder_for(placeholder_type.rstrip("0123456789"), value)
    return entity_map


@pytest.mark.parametrize(
    ("redacted", "expected"),
    [
        ("email <PERSON_1> my cfo about lunch", [LearnedContact("Karthik", role="cfo")]),
        ("<PERSON_1>, my CFO, wants the deck", [LearnedContact("Karthik", role="cfo")]),
        ("<PERSON_1> who is my cfo", [LearnedContact("Karthik", role="cfo")]),
        ("<PERSON_1> is my new manager.", [LearnedContact("Karthik", role="new manager")]),
        ("ask my dentist <PERSON_1> for a slot", [LearnedContact("Karthik", role="dentist")]),
        (
            "<PERSON_1> (<EMAIL_1>) is our accountant",
            [LearnedContact("Karthik", role="accountant", email="k@acme.test")],
        ),
        ("<PERSON_1>'s email is <EMAIL_1>", [LearnedContact("Karthik", email="k@acme.test")]),
        ("call <PERSON_1> on <PHONE_1>", [LearnedContact("Karthik", phone="+49 151 2345678")]),
        # no role, no address: nothing to learn
        ("lunch with <PERSON_1> thursday next week at 1", []),
        ("my cfo wants the deck by friday", []),
        # a placeholder the session does not know is nobody
        ("<PERSON_7> my cfo", []),
    ],
)
def test_learned_contacts(redacted: str, expected: list[LearnedContact]) -> None:
    entity_map = _map(PERSON="Karthik", EMAIL="k@acme.test", PHONE="+49 151 2345678")
    assert learn_contacts(redacted, entity_map) == expected
