"""The model-boundary guard: every known spelling, any case, plus unseen e-mails and phones."""

from __future__ import annotations

import time

import pytest

from privacy import EntityMap, PrivacyGuard, PrivacyLeakError

# Every test here hands the guard raw values: that is what it is for.
pytestmark = pytest.mark.guard_catches


@pytest.fixture
def session() -> EntityMap:
    known = EntityMap()
    person = known.placeholder_for("PERSON", "Priya Patel")
    known.link(person, "priya")
    known.placeholder_for("PERSON", "Will")
    known.placeholder_for("EMAIL", "tom@x.com")
    return known


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("Lunch with PRIYA PATEL", "Lunch with <PERSON_1>"),
        ("ask priya", "ask <PERSON_1>"),
        ("Will said yes, I will check", "<PERSON_2> said yes, I will check"),
        ("mail TOM@X.COM", "mail <EMAIL_1>"),
        ("new: ann@y.org", "new: <EMAIL_2>"),
        ("call +44 7700 900123", "call <PHONE_1>"),
        ("<PERSON_1> at 2026-11-21T10:00:00+01:00, room 4021", None),
        ("Priyanka and Willow are not known", None),
        ("nothing personal at 3pm on 12/03/2026", None),
    ],
)
def test_screen(session: EntityMap, prompt: str, expected: str | None) -> None:
    screened = PrivacyGuard(session).screen(prompt)
    assert screened.text == (expected if expected is not None else prompt)
    assert bool(screened.reredacted) == (expected is not None)


def test_known_phone_under_another_spelling_keeps_its_placeholder() -> None:
    session = EntityMap()
    session.placeholder_for("PHONE", "(415) 555-0132", key="+14155550132")
    assert PrivacyGuard(session).screen("ring +1 415-555-0132").text == "ring <PHONE_1>"


def test_contacts_are_screened_in_any_case(session: EntityMap) -> None:
    guard = PrivacyGuard(session, contacts=["Xiomara Quispe"])
    assert guard.screen("XIOMARA quispe called").text == "<PERSON_3> called"


def test_refusal(session: EntityMap) -> None:
    with pytest.raises(PrivacyLeakError):
        PrivacyGuard(session, refuse=True).screen("ping priya")
    assert PrivacyGuard(session, refuse=True).screen("ping <PERSON_1>").text == "ping <PERSON_1>"


def test_ten_thousand_known_names_screen_fast() -> None:
    session = EntityMap()
    for number in range(10_000):
        session.placeholder_for("PERSON", f"Person{number:05d} Surname")
    guard = PrivacyGuard(session)
    started = time.perf_counter()
    screened = guard.screen("tell person09999 surname and Person00001 Surname " * 50)
    assert "urname" not in screened.text
    assert time.perf_counter() - started < 10


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("@karthik are you free at 1?", "@<PERSON_1> are you free at 1?"),
        ("karthik.raman: ok", "<PERSON_1>: ok"),
        ("ping @Karthik_Raman now", "ping @<PERSON_1> now"),
        ("RAMAN said no", "<PERSON_1> said no"),
        ("ramanujan is another word", "ramanujan is another word"),
    ],
)
def test_mentions_handles_and_name_parts_of_known_people(text: str, expected: str) -> None:
    """Chat mentions and dotted handles once slipped past the guard (review of issue 2)."""
    known = EntityMap()
    known.placeholder_for("PERSON", "Karthik Raman")
    assert PrivacyGuard(known).screen(text).text == expected
