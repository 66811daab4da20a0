"""Street addresses: "12 Elm St", "2367 Shattuck Avenue", "Flat 3, 22 Baker Street", and the
continental forms "Hauptstraße 5", "12 rue de Rivoli", "Rua Augusta 100", "Calle Mayor 3".

Cities and countries are not addresses: they stay visible for the planner.
"""

from __future__ import annotations

import regex
from presidio_analyzer import Pattern, PatternRecognizer

from lang import data
from privacy.lexicon import is_given_name, is_surname, max_zipf, zipf
from privacy.postal import is_city, is_country

_SUFFIX = (
    r"(?:street|str|st|avenue|ave|av|road|rd|boulevard|blvd|lane|ln|drive|dr|way|court|ct|place|pl"
    r"|terrace|ter|square|sq|parkway|pkwy|highway|hwy|crescent|cres|close|row|mews|circle|cir"
    r"|trail|trl|alley|plaza|walk|gardens|grove|green|hill|heights|park|ridge|loop|pike|path"
    r"|point|crossing|harbor|haven|estates|rise|wharf|embankment|passage|broadway|expressway"
    r"|freeway|turnpike|causeway|junction|village|manor|meadows?|springs?|mill|station|view)"
)
# USPS street suffixes (Publication 28) that are also everyday words ("Key", "Run", "Union"):
# they count only capitalised, after a house number ("11 Rott Crossroad", "420 Gairbekov Rapids").
_SUFFIX_CAPITALISED = (
    r"(?-i:(?:Branch|Bridge|Brooks?|Burgs?|Bypass|Camp|Canyon|Cape|Centers?|Circles?|Cliffs?"
    r"|Club|Common|Corners?|Course|Courts|Coves?|Creek|Crest|Crossroad|Curve|Dale|Dam|Divide"
    r"|Drives|Estate|Extensions?|Falls?|Ferry|Fields?|Flats?|Fords?|Forest|Forges?|Forks?|Fort"
    r"|Freeway|Gardens?|Gateway|Glens?|Greens|Groves|Harbors?|Hills|Hollow|Inlet|Islands?|Isle"
    r"|Junctions|Keys?|Knolls?|Lakes?|Landing|Lights?|Locks?|Lodge|Mall|Manors|Mills|Mission"
    r"|Motorway|Mount|Mountains?|Neck|Orchard|Oval|Overpass|Parks|Parkways|Pass|Pines?|Plains?"
    r"|Points|Ports?|Prairie|Radial|Ramp|Ranch|Rapids?|Rest|Ridges|River|Roads|Route|Run"
    r"|Shoals?|Shores?|Skyway|Spur|Spurs|Squares|Stravenue|Stream|Streets|Summit|Throughway"
    r"|Trace|Track|Trafficway|Tunnel|Underpass|Unions?|Valleys?|Viaduct|Views|Villages|Ville"
    r"|Vista|Walks|Ways|Wells?)\b)"
)
# A house number is never a clock's minutes: "Friday at 12:30, usual place?", "à 13 h 30 à la
# succursale du boulevard Saint-Laurent".
_CLOCK_NOT = r"(?<!\d[:.])(?<!\d[ \t]?[hH][ \t])"
# A unit holds a digit: "Apt. 4B", "no. 12", never "no way".
_UNIT = (
    r"(?:apt|apartment|suite|ste|unit|flat|fl|floor|room|rm|#|no|nr|box)\.?\s*#?\s*"
    r"(?=[\w-]{0,5}\d)[\w-]{1,6}"
)
_WORD = r"[\p{L}][\p{L}'’.\-]*"
# Street names hold no function words: "3 blocks to the park" is a walk, not an address.
_NAME_WORD = rf"(?!(?:the|to|and|a|an|of|in|my|our|your|at|for|with|on|is|are|from|by|or)\b){_WORD}"
# A street's name in an English line is no English day or month: "will take place on Wednesday
# 16 December" is a date, where the French "place" and a day's number fit "Calle Mayor 3"
# (lang/data/times.toml; whole names only: "Calle del Mar 5", "Avenida Domingo Sarmiento 12").
_DAY_NAMES = "|".join(
    sorted(
        {w for form in data.table("times")["weekdays"]["en"] for w in form.split() if len(w) > 4}
        | data.words("times", "month_names", "en"),
        key=len,
        reverse=True,
    )
)
_STREET_WORD = rf"(?!(?i:{_DAY_NAMES})\b){_NAME_WORD}"
# Every weekday and month word, short forms too: "moved to Friday Dec 4" is a date.
_CALENDAR_WORDS = frozenset(
    {
        w
        for forms in data.table("times")["weekdays"].values()
        for form in forms
        for w in form.split()
    }
    | {m[:n] for m in data.words("times", "month_names", "en") for n in (3, 4, len(m))}
)
# Numbered streets: "311 E 62nd St", "7 3rd Main Road".
_ORDINAL = r"\d{1,4}(?:st|nd|rd|th)"
_PARTICLE = r"(?:(?:de|du|des|la|le|l'|del|da|do|dos|das|di|della|dei)\s+)"
# Further words of a street name are capitalised: "31 Rue Al Imam Al Bakri", not "rue X à Paris".
_MORE_WORDS = r"(?:\s+(?-i:\p{Lu})[\p{L}'’.\-]*){0,3}"
# Hungarian, Czech, Polish street words after the name: "Király u. 15.", "Belgrád rkp. 18.".
_AFTER_NAME = (
    r"(?:tér|utca|u\.|út|útja|krt\.|körút|rkp\.|rakpart|köz|sor|fasor|sétány|ulica|ul\.|street"
    r"|road|avenue|lane|stra(?:ss|ß)e|str\.|gate|gata|gatan|vej|vei|veien|tie|katu|allee|weg"
    r"|platz|ring|gasse)"
)
# "the corner of Main St and 5th Ave": two street names, numbered or not.
_CROSS_TOKEN = (
    r"(?!(?:today|tonight|tomorrow|tmrw|now|then|around|before|after|(?:mon|tues|wednes|thurs"
    rf"|fri|satur|sun)day)\b)(?:{_NAME_WORD}|\d{{1,5}}[a-z]?\.?)"
)
_CROSS_STREET = rf"{_CROSS_TOKEN}(?:\s+{_CROSS_TOKEN}){{0,5}}?"
_POSTBOX = (
    r"(?:P\.?\s?O\.?\s?Box|Post(?:al)?\s+(?:Office\s+)?Box|Postbox|Postfach|Apartado(?:\s+de"
    r"\s+Correos)?|Caixa\s+Postal|Boîte\s+Postale)\s*\d{1,6}\b"
)
# "straße", "-weg", "-katu", "-gatan", "-vej", "-laan", "tér", "utca": a street word glued on.
_GLUED = (
    r"[\p{L}'’\-]*(?:stra(?:ss|ß)e|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|steig"
    r"|pfad|katu|kuja|tie|polku|gatan|vägen|gata|väg|vej|gade|laan|straat|gracht|plein|kade"
    r"|steeg|singel)"
)
_ROMANCE = (
    r"(?:ul\.|ulica|al\.|aleja|trg|nám\.|náměstí|rue|rua|rúa|calle|c/|avenida|avda\.?|av\.|(?-i:Av)"
    r"|avenue|boulevard|bd|via|viale|piazzetta|piazza|plaza|praça|praca|travessa|largo|camino|paseo|carrer|allée|allee|chemin|place|quai|impasse|cours"
    r"|rambla|ronda|alameda|estrada|rodovia|carretera|vicolo|corso)"
)


# "27 November 2026", "3 de março 2026", "12. Juni 2026": a day, a month, a year.
_DATE_RE = regex.compile(
    r"(?i)\d{1,2}\.?\s+(?:de\s+)?(?:jan|feb|m[aä]r|apr|ma[iy]|jun|jul|aug|sep|o[ck]t|nov|de[cz]"
    r"|janv|févr|avr|juin|juil|août|déc|ene|abr|ago|dic|set|out|fev|mär)\p{L}*\.?,?\s+(?:de\s+)?"
    r"\d{2,4}\b"
)


_GLUED_WORD_RE = regex.compile(rf"(?i){_GLUED}")
_GLUED_ALONE_RE = regex.compile(r"(\p{L}+)\.?\s+\d{1,5}(?:\s?[a-z])?")


class StreetAddressRecognizer(PatternRecognizer):
    """STREET_ADDRESS: a house number with a street name and a street word, in either order."""

    PATTERNS = [
        Pattern(
            "number street suffix",
            # one line: "Suite 445\n LOW STREET" is a unit, then a town
            rf"(?:\b{_UNIT},?\s+)?{_CLOCK_NOT}\b\d{{1,6}}[a-z]?(?:[-/]\d{{1,4}})?,?[ \t]+"
            rf"(?:(?:{_NAME_WORD}|{_ORDINAL})[ \t]+){{0,4}}?{_SUFFIX}\b\.?"
            # "12 Upper St Martin's Lane": a saint's "St" inside the name, the street word after
            rf"(?:[ \t]+(?-i:\p{{Lu}})[\p{{L}}'’\-]*(?:[ \t]+{_NAME_WORD}){{0,2}}[ \t]+{_SUFFIX}"
            rf"\b\.?)?"
            rf"(?:,?\s+{_UNIT}\b)?",
            0.6,
        ),
        Pattern(
            "number name usps suffix",
            rf"{_CLOCK_NOT}\b\d{{1,6}}[a-z]?,?\s+(?-i:\p{{Lu}})[\p{{L}}'’\-]+(?:\s+(?-i:\p{{Lu}})[\p{{L}}'’\-]+)?"
            rf"\s+{_SUFFIX_CAPITALISED}(?:,?\s+{_UNIT}\b)?",
            0.5,
        ),
        # Bangalore-style numbered mains and crosses: "7, 3rd Main", "42 11th Cross Road"
        Pattern(
            "number numbered main or cross",
            rf"{_CLOCK_NOT}\b\d{{1,5}}[a-z]?(?:[-/]\d{{1,4}})?,?[ \t]+{_ORDINAL}"
            rf"[ \t]+(?-i:Main|Cross)\b"
            rf"(?:[ \t]+(?:Road|Rd)\b\.?)?",
            0.6,
        ),
        Pattern("post box", rf"\b{_POSTBOX}", 0.6),
        Pattern(
            "street corner",
            rf"\b(?:the\s+)?corner\s+of\s+{_CROSS_STREET}\s+(?:and|&)\s+{_CROSS_STREET}"
            rf"(?:\s+{_SUFFIX}\b\.?)?(?=\s*(?:[,.;:!?)]|$)|\s+(?-i:\p{{Ll}}))",
            0.6,
        ),
        Pattern(
            "number romance street",
            rf"{_CLOCK_NOT}\b\d{{1,5}}[a-z]?,?\s+{_ROMANCE}\s+{_PARTICLE}*{_WORD}{_MORE_WORDS}",
            0.6,
        ),
        Pattern(
            "romance street number",
            # after a comma, five digits are a postcode: "rue de Rivoli, 75001 Paris"
            # "our place Wed 12/9" is someone's home and a date ("our Via Dante 12 office" a street)
            rf"(?!(?<=\b(?:our|my|your|their|his|her)\s+)(?-i:place)\b)"
            rf"\b{_ROMANCE}\s+(?:{_STREET_WORD}\s+){{0,4}}?{_STREET_WORD}(?:,\s+(?:n[º°o.]\s*)?\d{{1,4}}|\s+"
            rf"(?:n[º°o.]\s*)?\d{{1,5}})(?!\s?(?:h|am|pm|uhr|:)(?:\b|\d))[a-z]?\b"
            rf"(?:,?\s+{_UNIT}\b)?",
            0.6,
        ),
        Pattern(
            "glued street number",
            rf"\b{_GLUED}\.?\s+\d{{1,5}}(?:\s?[a-z]\b)?\b(?:,?\s+{_UNIT}\b)?",
            0.6,
        ),
        Pattern(
            "word street-word number",
            rf"\b(?:{_NAME_WORD}[ \t]+){{0,2}}{_WORD}[ \t]+{_AFTER_NAME}[ \t]+\d{{1,5}}"
            rf"(?![/:.,]\d)\.?(?:,?\s+{_UNIT}\b)?",
            0.5,
        ),
        Pattern(
            # "2224 Trenerys gate 232", "971 Kesk 53": a house or postal number, a capitalised
            # street name, a number (case-sensitive, so "3 people 2" is no address)
            "number name number",
            r"(?<![:.,/\d])\b\d{2,5}[ \t]+(?-i:\p{Lu}[\p{L}'’\-]+)(?:[ \t]+[\p{L}'’\-]+)?[ \t]+"
            rf"\d{{1,4}}[a-z]?\b(?![:.]\d)(?:,?\s+{_UNIT}\b)*",
            0.4,
        ),
        Pattern("unit", r"\b(?:apt|apartment|suite|ste|unit|flat)\.?\s*#?\s*\d{1,5}[a-z]?\b", 0.4),
        Pattern(
            "military post",
            r"\b(?:(?:PSC|CMR|Unit)\s+\d{4},?\s+Box\s+\d{4}|(?:USNS|USNV|USS|USCGC)\s+[\p{L}'\-]+)"
            r"(?:\s*,?\s*(?:APO|FPO|DPO)\s+(?:AA|AE|AP)\s+\d{5})?",
            0.5,
        ),
    ]
    CONTEXT = ["address", "live", "lives", "street", "apartment", "house", "adresse", "direccion"]

    def __init__(self) -> None:
        super().__init__(
            supported_entity="STREET_ADDRESS",
            patterns=self.PATTERNS,
            context=self.CONTEXT,
            name="StreetAddressRecognizer",
        )

    def validate_result(self, pattern_text: str) -> bool:
        """ "3 pm Friday way" and "27 November 2026" are no streets: times and dates are
        refused."""
        if regex.search(r"(?i)^\d{1,2}\s*(?:am|pm|h|uhr)\b", pattern_text):
            return False
        # "During 1971" ends in "-ring" like "Kaiserring 5": an everyday English word is no street
        glued = _GLUED_ALONE_RE.fullmatch(pattern_text)
        word = glued.group(1) if glued else ""
        if word and _GLUED_WORD_RE.fullmatch(word) and zipf(word.casefold()) >= 3.5:
            return False
        return not _DATE_RE.match(pattern_text)


_TRAILING_STREET_RE = regex.compile(r"(?i)[ \t]+(?:street|st\.?)$")


class NamedStreetRecognizer(PatternRecognizer):
    """STREET_ADDRESS written name first with no street word, as much of the world writes it:
    "lives on Joaquin Suarez 2906", "the station is on Pod Floriánem 1677".

    Only after "on", "at", "to" or "of", and only when a word of the name is in no language
    Veil reads or the name is someone's: "on Platform 9", "at Gate 12" and "in Berlin 2026"
    are no addresses.
    """

    PATTERNS = [
        Pattern(
            "name number after a preposition",
            rf"(?<=\b(?:on|at|to|of)[ \t]+)(?:\d{{2,5}}[ \t]+)?(?:{_NAME_WORD}[ \t]+){{0,2}}"
            # no clock's number: "to THURS 3PM" ("3P" had been a house number, its "M" left)
            rf"{_NAME_WORD}[ \t]+\d{{1,5}}"
            r"(?![ \t]?(?:h|am|pm|a\.m|p\.m|uhr|min|mins|hrs?|hours?|days?|times|x|%)\b)"
            r"[a-z]?(?![\w/:.,-]?\d)"
            r"(?![ \t]?(?:h|am|pm|uhr|min|mins|hrs?|hours?|days?|times|x|%)\b)"
            r"(?:[ \t]+(?:street|st\.?)(?![\p{L}]))?",
            0.4,
        ),
        Pattern(
            # "the restaurant is at 9816 214 Pavlou Drandaki": numbers, then the street's name
            "number name after a preposition",
            rf"(?<=\b(?:on|at|to|of)[ \t]+)\d{{2,5}}(?:[ \t]+\d{{1,5}})?(?:[ \t]+{_NAME_WORD})"
            r"{2,3}(?=[ \t]*(?:[,.;:!?)\n]|$))",
            0.4,
        ),
    ]

    def __init__(self) -> None:
        super().__init__(
            supported_entity="STREET_ADDRESS",
            patterns=self.PATTERNS,
            name="NamedStreetRecognizer",
        )

    def validate_result(self, pattern_text: str) -> bool:
        """A street word at the end, or capitalised words one of which no language uses;
        a leading number is no hour ("at 8 Priya Patel?" is a time and a person)."""
        if _TRAILING_STREET_RE.search(pattern_text):
            return True
        leading = regex.match(r"\d+", pattern_text)
        if leading and int(leading.group()) <= 24:
            return False
        words = [w for w in regex.findall(r"[\p{L}][\p{L}'’.\-]*", pattern_text)]
        if not words or not all(w[0].isupper() for w in words):
            return False
        if all(w.casefold().rstrip(".") in _CALENDAR_WORDS for w in words):
            return False  # "moved to Friday Dec 4"; "on Mar Chiquita 450" is a street
        if is_city(" ".join(words)) or is_country(" ".join(words)):
            return False
        if any(max_zipf(w.casefold().strip(".")) < 3.0 for w in words):
            return True
        # streets named after someone: "Joaquin Suarez 2906", "Peter Zuidhove 188"
        return len(words) > 1 and all(is_given_name(w) or is_surname(w) for w in words)
