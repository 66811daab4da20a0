"""Phone number parsing with region hints: one key (E.164) for every spelling of a number."""

from __future__ import annotations

import re

import phonenumbers

# Regions tried after the user's own, for national formats pasted from abroad.
DEFAULT_REGIONS = ("US", "GB", "DE", "FR", "ES", "PT", "BR", "IT", "NL", "IN", "AU", "CA")
_SEPARATED = re.compile(r"\d[\s().\-/]+\d")
# A date, maybe with the hours after it ("12/12/2026 9-12", "12/12 9-12"): no phone.
_HOURS = r"\s+\d{1,2}(?::\d\d)?\s*[-–]\s*\d{1,2}(?::\d\d)?"
_DATE = re.compile(
    r"\s*(?:(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}[./-]\d{1,2}[./-]\d{1,2})(?:" + _HOURS + r")?"
    r"|\d{4}\s*[-–]\s*\d{4}|\d{1,2}/\d{1,2}" + _HOURS + r")\s*"
)


def parse_phone(
    text: str, regions: tuple[str, ...] = DEFAULT_REGIONS, *, needs_valid: bool = False
) -> phonenumbers.PhoneNumber | None:
    """The number `text` spells, or None when no hinted region makes it a plausible phone.

    `needs_valid` drops national numbers that are merely possible (the right length
    somewhere), for callers that see machine text full of digit runs, such as the prompt guard.
    """
    if _DATE.fullmatch(text):
        return None
    digits = re.sub(r"\D", "", re.split(r"(?i)\s*(?:x|ext\.?)\s*\d+$", text)[0])
    international = text.lstrip("(").startswith(("+", "00"))
    if not 7 <= len(digits) <= 15:
        return None
    # An unseparated run is a phone only when long enough to be one (order numbers are short).
    if not international and not _SEPARATED.search(text) and len(digits) < 9:
        return None
    possible = None
    # "00" is the international prefix in most of the world, though not in the US (011).
    spelled = "+" + text.lstrip("( ")[2:] if text.lstrip("( ").startswith("00") else text
    for region in regions:
        try:
            number = phonenumbers.parse(spelled, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number):
            return number
        if possible is None and phonenumbers.is_possible_number(number):
            possible = number
    # "+44 …" is unmistakably meant as a phone number, even in a range no operator uses
    return None if needs_valid and not international else possible


def phone_key(
    text: str, regions: tuple[str, ...] = DEFAULT_REGIONS, *, needs_valid: bool = False
) -> str | None:
    """E.164 form of a phone number, the placeholder key that merges its spellings."""
    number = parse_phone(text, regions, needs_valid=needs_valid)
    if number is None:
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
