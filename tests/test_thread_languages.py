"""A thread's lines are read in the thread's language, detected once on the whole thread.

Language detection on one short line is a guess: "Fine, I can do that." reads as German, whose
"Do" is Thursday; "Pilates lundi 19h et mardi 19h ?" reads as English, which finds no day.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tools.calendar.times import TimeParser

NOW = datetime(2026, 9, 24, 20, 0, tzinfo=ZoneInfo("Europe/Paris"))  # a Thursday

ENGLISH = (
    "Me: Can we look at the flat on the 10th?\n"
    "Agent: Sure, the 10th works.\n"
    "Me: Fine, I can do that.\n"
    "Agent: Anything else?\n"
)
FRENCH = (
    "Léa : Pilates lundi 19h et mardi 19h ?\n"
    "Moi : lundi oui, mardi non je peux pas\n"
    "Léa : ok, juste lundi alors\n"
)


@pytest.mark.parametrize(
    ("thread", "line", "expected"),
    [
        # must not fire: English words that are day names elsewhere
        (ENGLISH, "Fine, I can do that.", []),
        (ENGLISH, "Agent: Anything else?", []),
        # the thread's language reads what one line alone would miss
        (FRENCH, "Pilates lundi 19h et mardi 19h ?", ["2026-09-28 19:00", "2026-09-29 19:00"]),
        (FRENCH, "ok, juste lundi alors", ["2026-09-28 00:00"]),
    ],
)
def test_lines_are_read_in_their_threads_language(
    thread: str, line: str, expected: list[str]
) -> None:
    parser = TimeParser(tz="Europe/Paris", now=NOW)
    start = thread.index(line)
    found = [
        f"{m.value:%Y-%m-%d %H:%M}"
        for m in parser.parse_input("", thread)
        if start <= m.start < start + len(line) and m.value is not None
    ]
    assert found == expected


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        # a day name says its language, whatever lingua's trigrams guessed for the line
        ("réunion lundi à 10h pour le budget", ["2026-09-28 10:00"]),
        ("Treffen am Montag um 10", ["2026-09-28 10:00"]),
        ("cena el viernes a las 8pm", ["2026-09-25 20:00"]),
        # must not fire: English words that are abbreviations or names elsewhere
        ("lunch with sam on monday at 1", ["2026-09-28 13:00"]),
        ("set up a call at 4 tomorrow", ["2026-09-25 16:00"]),
    ],
)  # fmt: skip
def test_a_day_name_adds_its_language_to_the_request(
    request_text: str, expected: list[str]
) -> None:
    parser = TimeParser(tz="Europe/Paris", now=NOW)
    found = [f"{m.value:%Y-%m-%d %H:%M}" for m in parser.parse(request_text) if m.value]
    assert found == expected


@pytest.mark.parametrize(
    ("text", "languages"),
    [
        ("réunion lundi à 10h", ["fr"]),
        ("aujourd'hui à 15h", ["fr"]),
        ("Reunião segunda às 10h", ["pt"]),
        ("Cinema domingo às 18h?", ["es", "pt"]),
        ("Réunion mardi à 18h", ["fr"]),
        # must not fire: English words, and abbreviations that are English words
        ("lunch with sam on mon at 1", []),
        ("set up a call in april", []),
        ("the mars mission", []),
    ],
)
def test_day_names_name_only_their_own_language(text: str, languages: list[str]) -> None:
    from tools.calendar.lang import named_languages

    assert named_languages(text) == languages
