"""Vocabulary lives once, as data, in every language Veil claims (issue 38).

A section of lang/data keyed by language must name each claimed language. A language that has
no such words says so with an empty entry and a comment; a missing key is an omission, and the
reader of that section then silently works in fewer languages than the README claims.
Sections still written in fewer languages are listed in KNOWN_GAPS: their test is expected to
fail, and strictly, so the list shrinks the day one is filled.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib import resources
from typing import Any

import pytest

from lang import data
from lang.frequency import LANGUAGES

_CODE = re.compile(r"^[a-z]{2}$")


def _language_sections(node: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every table under `node` whose keys are all language codes, one of them a claimed one
    (a table of Korean and Chinese syllables, or of zones by city, is no such section)."""
    if not isinstance(node, dict):
        return
    keys = set(node)
    if keys and all(_CODE.match(k) for k in keys) and keys & set(LANGUAGES):
        yield path, node
        return
    for key, value in node.items():
        yield from _language_sections(value, f"{path}.{key}" if path else key)


def _sections() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for entry in sorted(resources.files("lang").joinpath("data").iterdir(), key=str):
        if entry.name.endswith(".toml"):
            name = entry.name.removesuffix(".toml")
            found += [(f"{name}:{path}", s) for path, s in _language_sections(data.table(name), "")]
    return found


SECTIONS = _sections()
# Sections whose rules read English (or one other language) only, so far: each is a gap in what
# Veil understands in the other languages, not a claim that they lack such words.
KNOWN_GAPS = {
    "acts:have_a_clock", "acts:booking_goes_on", "acts:also", "acts:alternative_not",
    "labels:function_words", "labels:subject_verbs", "labels:possessives_others",
    "names:roles_of_nobody", "places:countries", "requests:auxiliary",
    "requests:to_you", "times:all_day_not",
}  # fmt: skip


def test_the_data_has_language_sections_to_check() -> None:
    # the walk above must find the tables it guards: a renamed key shape would pass silently
    assert len(SECTIONS) > 150
    assert KNOWN_GAPS <= {n for n, _ in SECTIONS}  # a gap that is no section any more is stale


@pytest.mark.parametrize(
    ("name", "section"),
    [
        pytest.param(n, s, marks=pytest.mark.xfail(strict=True, reason="one language only so far"))
        if n in KNOWN_GAPS
        else (n, s)
        for n, s in SECTIONS
    ],
    ids=[n for n, _ in SECTIONS],
)
def test_each_vocabulary_section_names_every_claimed_language(
    name: str, section: dict[str, Any]
) -> None:
    missing = sorted(set(LANGUAGES) - set(section))
    assert not missing, f"{name} lacks {missing}: add their words, or an empty entry that says why"
