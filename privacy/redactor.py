"""The privacy facade: `Redactor.redact(text) -> Redacted`, the only way text reaches a model.

Detection (Presidio + spaCy + Veil's recognizers + the contextual name rules) and replacement
(the session's `EntityMap`) stay apart, as Presidio's analyzer and anonymizer do. Presidio types
never leave this package: callers see placeholder types (PERSON, PHONE, EMAIL, ADDRESS, ...).
"""

from __future__ import annotations

import bisect
import locale
import logging
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace

from lang.activities import ACTIVITY_NAMES, letters_an_item
from lang.data import alternation, phrase_pattern
from lang.spelling import misspelt_weekday
from lang.thread import CHAT_ROLES, ThreadLine, is_self, split_thread
from lang.zones import zone_for_place, zone_name_re
from privacy.context import (
    SENDER_BEFORE_RE,
    english_line,
    foreign_line,
    is_brand_shaped,
    is_typo,
    no_name_here,
    nouns_capitalised,
    sentence_start,
)
from privacy.detector import detector
from privacy.engine import get_analyzer
from privacy.entity_map import PLACEHOLDER_RE, EntityMap, fold_accents, normalize_value
from privacy.errors import InputRefusedError, PrivacyError, RedactionFailedError
from privacy.evidence import Candidate, Evidence, grouped, prior, threshold, weigh
from privacy.lexicon import (
    FUNCTION_WORDS,
    HARD_NOT_NAMES,
    LABEL_ACRONYMS,
    NAME_PARTICLES,
    NOT_NAMES,
    ORG_WORDS,
    ROLES,
    SALUTATIONS,
    TIME_WORDS,
    UNIT_WORDS,
    foreign_word,
    is_everyday_word,
    is_given_name,
    is_rare_everywhere,
    is_surname,
    max_zipf,
    zipf,
)
from privacy.names import (
    PLACE_OPENERS,
    employer_before,
    find_names,
    firm_names,
    is_cue_word,
    is_name_word,
    list_neighbours,
    lower_surname_end,
    venue_follows,
)
from privacy.phone import DEFAULT_REGIONS, phone_key
from privacy.postal import PLACE_BEFORE_RE, find_blocks, is_city, is_country, street_end
from privacy.recognizers.titled_name import LEADING_TITLE_RE

logger = logging.getLogger(__name__)

MAX_CHARS = 250_000
# spaCy's memory grows with the document; long pastes are analysed in pieces cut at newlines.
CHUNK_CHARS = 20_000

# Presidio entity -> placeholder type; everything else Presidio finds is kept visible.
PLACEHOLDER_TYPES = {
    "PERSON": "PERSON", "PHONE_NUMBER": "PHONE", "EMAIL_ADDRESS": "EMAIL",
    "STREET_ADDRESS": "ADDRESS", "CREDIT_CARD": "CARD", "IBAN_CODE": "IBAN", "US_SSN": "SSN",
    "IP_ADDRESS": "IP",
}  # fmt: skip
KEPT_TYPES = ("DATE_TIME", "ORGANIZATION", "LOCATION", "NRP")
# Which detection wins where two overlap: checksummed or unmistakable shapes first (an e-mail
# beats the name inside it), then the longer span ("+55 11 98765-4321" over an SSN-shaped
# tail), then this order.
_TIER = {"EMAIL": 0, "CARD": 0, "IBAN": 0}
_PRIORITY = {"EMAIL": 0, "CARD": 1, "IBAN": 1, "SSN": 1, "IP": 1, "PHONE": 2, "ADDRESS": 3,
             "PERSON": 4}  # fmt: skip
# "Sydney time", "Paris time": a place name a time zone follows.
_TIME_AFTER_RE = re.compile(r"\s+time\b", re.IGNORECASE)
_WORD_RE = re.compile(r"[^\W_][\w'’\-]*")
# Evidence no place or street overrides: a speaker label, "Dr. X", a name the session knows.
_SURE_SOURCES = ("speaker", "titled", "known", "signature", "home")
# Readers whose spans are people without weighing: the sure ones, "my cfo Karthik", and the
# members of a named group ("the Nguyens: Anh, Bao and Chi"), a ticket's "NGUYEN/VAN AN MR".
TRUSTED = (*_SURE_SOURCES, "role", "group", "ticket")
# Readers that guess from the words alone, with no rule about the words around them.
GUESSES = frozenset({"spacy", "learned"})
# Every weighed span goes here too when a caller sets a list (training/evidence_weights.py).
EVIDENCE_LOG: list[tuple[str, Evidence]] | None = None
# "Mei Tanaka from Fabrikam Labs": what follows a name and "of", "from" or "at" is where
# they are from.
_OWNER_OF_RE = re.compile(r"[A-ZÀ-Þ][\w'’\-]*[ \t]+[A-ZÀ-Þ][\w'’\-]*[ \t]+(?:of|from|at)[ \t]+$")
# How common the words after a city must be for the span to be a landmark ("Heathrow" 3.4,
# "Euston" 2.8) rather than a rare surname ("Adeyemi" 2.0).
CITY_WORD_ZIPF = 2.5
_OPENER_BEFORE_RE = re.compile(
    rf"\b(?:{alternation('places', 'place_openers')})[ \t]+$", re.IGNORECASE
)
_CAPITAL_NEXT_RE = re.compile(r"[ \t]+[A-ZÀ-Þ]")
# "Museu do Prado", "Hotel Fasano", "Bank of X": a venue's word, then maybe "of", then the span.
_VENUE_BEFORE_RE = re.compile(
    r"([A-ZÀ-Þ][\w'’\-]*)[ \t]+(?:(?:of|the|de|del|do|da|du|des|de[ \t]+la)[ \t]+)?$"
)
# "no fan of X" says little; "the CEO of X" says X is a company.
_OF_BEFORE_RE = re.compile(r"\bof[ \t]+$", re.IGNORECASE)
_ROLE_OF_RE = re.compile(
    rf"\b(?:{'|'.join(sorted(map(re.escape, ROLES), key=len, reverse=True))})[ \t]+of[ \t]+$",
    re.IGNORECASE,
)

# Holidays named with a word that is also a given name ("Christmas Eve", times.toml [holidays])
_HOLIDAY_RE = phrase_pattern("times", "holidays")


@dataclass(frozen=True)
class RedactedSpan:
    """One replaced value: offsets are in the original text."""

    placeholder: str
    type: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class KeptSpan:
    """Something detected and deliberately left visible (a date, a company, a city)."""

    type: str
    text: str
    start: int
    end: int


@dataclass
class Redacted:
    """Redacted text, what was replaced, and what was kept."""

    text: str
    spans: list[RedactedSpan] = field(default_factory=list)
    kept: list[KeptSpan] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """The `run.py redact --json` shape."""
        return {
            "redacted": self.text,
            "entities": [asdict(span) for span in self.spans],
            "kept": [asdict(span) for span in self.kept],
        }


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    type: str
    source: str


# Where a field of a ticket or a form ends: two spaces, the line's end, punctuation.
_FIELD_END_RE = re.compile(r"[ \t]{2,}|[ \t]*(?:$|[,;:.!?()\[\]/|])", re.MULTILINE)
# The next word of a name written in capitals: "NGUYEN VAN" + " AN".
_CAPS_WORD_RE = re.compile(r"[ \t]([^\W\d_a-z]{2,})(?![\w'’])")


def _with_capital_tail(text: str, found: _Found) -> _Found:
    """A name written in capitals ("PASSENGER: NGUYEN VAN AN") runs on over the capitalised
    words after it that are listed given names or surnames, up to four words in all and up to
    where the field ends; "AN" and "LE" are names there, not the words the detector weighs."""
    value = text[found.start : found.end]
    if found.type != "PERSON" or not value.isupper() or len(value.split()) >= 4:
        return found
    end, words, taken = found.end, len(value.split()), found.end
    while words < 4 and (match := _CAPS_WORD_RE.match(text, end)):
        word = match.group(1).casefold()
        if not (is_given_name(word) or is_surname(word)):
            break
        end, words = match.end(1), words + 1
        if _FIELD_END_RE.match(text, end):  # "CALL TOM AN HOUR": no name ends before "HOUR"
            taken = end
    return replace(found, end=taken) if taken != found.end else found


_HANDLE_CHAR_RE = re.compile(r"\w")


def _whole_token(text: str, found: _Found) -> _Found:
    """A name found inside a handle ("ngfisher" of "k1ngfisher", "jas" of "jas_92") takes the
    whole handle: half a handle is still the person's, and the rest no longer reads as a
    speaker label."""
    if found.type != "PERSON":
        return found
    start, end = found.start, found.end
    while start > 0 and _HANDLE_CHAR_RE.match(text[start - 1]):
        start -= 1
    while end < len(text) and _HANDLE_CHAR_RE.match(text[end]):
        end += 1
    return (
        replace(found, start=start, end=end) if (start, end) != (found.start, found.end) else found
    )


def default_region() -> str:
    """The user's phone region from the system locale ("en_GB" -> "GB"), else US."""
    name = locale.getlocale()[0] or ""
    match = re.search(r"_([A-Z]{2})", name)
    return match.group(1) if match else "US"


def _check_input(text: object, max_chars: int) -> str:
    """Refuse what cannot be redacted safely, with a message that says what to do."""
    if not isinstance(text, str):
        raise InputRefusedError(f"the redactor takes text, not {type(text).__name__}: decode it")
    if len(text) > max_chars:
        raise InputRefusedError(
            f"text is {len(text):,} characters; the redactor takes at most {max_chars:,}: "
            "paste the part of the thread that matters"
        )
    sample = text[:10_000]
    control = sum(1 for ch in sample if unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn")
                  and ch not in "\n\r\t")  # fmt: skip
    if sample and control / len(sample) > 0.2:
        raise InputRefusedError("this looks like binary data, not text: paste the text itself")
    return text


def _chunks(text: str) -> Iterable[tuple[int, str]]:
    """(offset, piece) cut at line breaks, so no entity is split between two pieces."""
    start = 0
    while start < len(text):
        end = min(len(text), start + CHUNK_CHARS)
        if end < len(text):
            cut = text.rfind("\n", start, end)
            if cut <= start:  # one long line: cut at a space rather than inside a word
                cut = max(text.rfind(" ", start, end), text.rfind("\t", start, end))
            end = cut + 1 if cut > start else end
        yield start, text[start:end]
        start = end


_AT_BEFORE_RE = re.compile(r"(?:\bat|@)[ \t]+$", re.IGNORECASE)


# A token of a name holds a letter and no digit ("Tom", "O'Neil", "Ji-woo", "Tom,").
_TOKEN_RE = re.compile(r"\S+")
_NAME_TOKEN_RE = re.compile(r"[^\d\s]*[^\W\d_][^\d\s]*")


def _name_part(text: str, start: int, end: int) -> tuple[int, int]:
    """The name inside a span another reader found: no stamp or number around it ("18:20 -
    Tom"), no title before it ("Mr. Leiva"), no possessive after it ("Yefremova's"), and in a
    capitalised name no lower-case word after it ("Tom sync")."""
    tokens = list(_TOKEN_RE.finditer(text, start, end))
    while tokens and not _NAME_TOKEN_RE.fullmatch(tokens[0].group()):
        tokens.pop(0)  # "18:20 - Tom": a stamp and a dash are no part of a name
    while tokens and not _NAME_TOKEN_RE.fullmatch(tokens[-1].group()):
        tokens.pop()
    if tokens:
        start, end = tokens[0].start(), tokens[-1].end()
    title = LEADING_TITLE_RE.match(text[start:end])
    start += title.end() if title else 0
    if text[start:end].endswith(("'s", "’s")):
        end -= 2
    words = list(_WORD_RE.finditer(text, start, end))
    if len(words) > 1 and words[0].group()[:1].isupper():
        while len(words) > 1 and words[-1].group().islower():
            words.pop()
        end = words[-1].end()
    return start, end


def _never_a_name(text: str, start: int, end: int) -> bool:
    """Spans no evidence makes a name: digits, a placeholder, only time or non-name words (a
    misspelt weekday too: "modnay"), or an organisation word ("Q3", "Tomorrow", "Acme Corp")."""
    value = text[start:end]
    words = [w.casefold() for w in _WORD_RE.findall(value)]
    if not words or any(ch.isdigit() for ch in value) or PLACEHOLDER_RE.search(value):
        return True
    lower = value.islower()  # "add the webinar": an event's word, where "Trip:" may be someone
    if value.isupper() and len(words) == 1 and words[0] in LABEL_ACRONYMS:
        return True  # "add the RSVP deadline"
    return all(
        w in NOT_NAMES or w in TIME_WORDS or misspelt_weekday(w) or (lower and w in ACTIVITY_NAMES)
        for w in words
    ) or _names_an_org(value, words)


def _names_an_org(value: str, words: list[str]) -> bool:
    """A word of the span says company or venue ("Acme Corp", "Hyde Park"), unless it is a
    surname after a given name ("Jisoo Park", "Ji-woo Park", "Grace Hall"), which the
    words around it decide (the `venue_surname` check)."""
    return any(w in ORG_WORDS for w in words) and not _given_then_venue_surname(value)


# A romanised double given name joined by a hyphen: "Ji-woo", "Min-jun", "Thanh-Hà", "Jean-Luc".
_HYPHENED_GIVEN_RE = re.compile(r"[^\W\d_][^\W\d_]{0,7}-[^\W\d_]{1,8}")


def _given_then_venue_surname(value: str) -> bool:
    """ "Jisoo Park", "Ji-woo Park", "Sophie Church": a capitalised given name (one or two words),
    then a surname that is also a venue's word, may be a person ("ask Daniel Park") or a place
    ("meet at Victoria Park"); "Hyde Park" and "Olympic Park" open with no given name."""
    words = value.split()
    if not 2 <= len(words) <= 3 or not all(w[:1].isupper() for w in words):
        return False
    *given, last = (w.casefold() for w in words)
    return (
        is_surname(last)
        and last in ORG_WORDS
        and not any(w in ORG_WORDS for w in given)
        and all(is_given_name(w) or bool(_HYPHENED_GIVEN_RE.fullmatch(w)) for w in given)
    )


_POSSESSIVE_AFTER_RE = re.compile(r"['’]s\b")
# Words before a place: "at Victoria Park", "in Lincoln Park", "near the Albert Hall".
_PLACE_BEFORE_RE = re.compile(
    r"(?:\b(?:at|in|near|by|outside|inside|around|behind|opposite)(?:[ \t]+the)?|@)[ \t]+$",
    re.IGNORECASE,
)


def _checks(
    text: str, start: int, end: int, places: list[tuple[int, int]], *, guess: bool, thread: bool
) -> dict[str, bool]:
    """The facts the evidence table weighs for a span read as a person (evidence.toml).

    The guess checks (what a name rule checks itself before it fires) count only for a span
    that no rule proposed."""
    value = text[start:end]
    written = _WORD_RE.findall(value) or [value]
    words = [w.casefold() for w in written]
    one = len(words) == 1
    # in a longer span a given name must be more than a word of another language ("mi" is a
    # Korean name and Spanish for "my")
    given = [is_given_name(w) and (one or not foreign_word(w)) for w in words]
    # ... but written as a name, a listed given name is one: "Fernanda Oliveira", "Jürgen
    # Müller" are common in their languages' text because they are names (a surname alone is
    # not: German writes "Rosengarten", a surname and a noun, with a capital too)
    titled = [w[:1].isupper() and not w.isupper() and len(w) > 2 for w in written]
    named = [
        g or (cap and is_given_name(w)) for w, g, cap in zip(words, given, titled, strict=True)
    ]
    first = value.split()[0] if value.split() else value
    before = text[max(0, start - 30) : start]
    bare_of = bool(_OF_BEFORE_RE.search(before)) and not _ROLE_OF_RE.search(before)
    touches_place = any(s < end and start < e for s, e in places)
    checks = {
        "employer": employer_before(text, start, value) and not bare_of,
        "of_before": bare_of,
        "org_word": _names_an_org(value, words),
        "venue_surname": _given_then_venue_surname(value),
        # ... said where a place goes: "at Victoria Park", "near the Albert Hall"
        "venue_placed": _given_then_venue_surname(value)
        and bool(_PLACE_BEFORE_RE.search(before))
        and not _POSSESSIVE_AFTER_RE.match(text, end),  # "at Daniel Park's apartment"
        "venue_before": _venue_before(before),
        "brand": one and is_brand_shaped(first),
        # "San Jose", "Fort Collins": a place opener before or at the start of a name
        "place_name": bool(_OPENER_BEFORE_RE.search(before))
        or (words[0] in PLACE_OPENERS and bool(_CAPITAL_NEXT_RE.match(text, end)))
        or (len(words) > 1 and words[0] in PLACE_OPENERS),
        "owner_of": bool(_OWNER_OF_RE.search(before)),
        "place_unnamed": not given[0] and touches_place,
        "given_name": any(given),
        "surname": not any(given) and any(map(is_surname, words)),
        "common_word": any(zipf(w) >= 4.0 for w in words),
        "three_words": len(words) >= 3,
        "sender": bool(SENDER_BEFORE_RE.search(text, max(0, start - 30), start))
        and not is_brand_shaped(first),
        "inside_place": any(
            s <= start and end <= e and e - s > end - start
            and not _affiliated(text, start, end, s, e)
            and _names_more(text, start, end, s, e)
            for s, e in places
        ),
        "is_place": touches_place and not value.islower(),
        # "Zac brown band", "the Trump Tower": an organisation's or venue's word follows; after
        # a rule's given name it is what the person does ("drive Leo club practice at 5")
        "venue_after": venue_follows(text, end) and (guess or not any(given)),
        "foreign_line": foreign_line(text, start),
        # how it is written: a capital inside a sentence says more than one opening it
        "capital_inside": value[:1].isupper() and not value.isupper()
        and not sentence_start(text, start),
        "all_caps": value.isupper() and len(value) > 1,
        "in_thread": thread,  # a chat export is full of people's names
        # "9am Sydney time": a place of the zone database, said as a time zone
        "zone_place": bool(_TIME_AFTER_RE.match(text, end)) and zone_for_place(value) is not None,
        # "London Heathrow", "New York Penn": a city of the zone database, then known words that
        # name no one ("Sydney Adeyemi", "Paris Chen" are people: a rare word or a surname)
        "city_first": len(words) > 1
        and zone_for_place(written[0]) is not None
        and not any(given[1:])
        and all(not is_surname(w) and zipf(w) >= CITY_WORD_ZIPF for w in words[1:]),
    }  # fmt: skip
    if not guess:
        return checks
    return checks | {
        "never": _never_a_name(text, start, end),
        # outside English the detector's word is weak: a word no list knows needs a rule
        "foreign_unlisted": checks["foreign_line"] and not any(named),
        # ... unless a listed given name written as a name inside a sentence, where only nouns
        # take a capital too ("con Chiara", "is that Mauro?"; not German's "im Sommer")
        "foreign": all(map(foreign_word, words)) and checks["foreign_line"]
        and (one or not any(named))
        and not (
            checks["capital_inside"] and any(named) and not nouns_capitalised(text, start)
            and not is_city(value) and not is_country(value)  # "a Valencia", "Santiago"
        ),
        "everyday": not any(given) and all(zipf(w) >= 4.5 for w in words),
        "lower_unlisted": value.islower() and not any(given),
        "not_here": no_name_here(text, start, end),
        "at_venue": not given[0] and bool(_AT_BEFORE_RE.search(text, max(0, start - 6), start)),
        "common_lower": one and value.islower() and not given[0] and zipf(words[0]) >= 3.0,
        "short_caps": one and value.isupper() and len(value) <= 4,
        "typo": one and value.islower() and is_typo(value),
    }  # fmt: skip


def _unglued(text: str, candidates: list[Candidate]) -> list[Candidate]:
    """A guess (spaCy's, the detector's) that holds a name a rule found, and more words around
    it that name no one, is cut to the rule's name.

    spaCy reads "call sam" at a line's start as one person, the detector "favore chiama giulia"
    or "liga pra fernanda"; hidden whole, the verb the planner needs goes with the name, and
    weighed whole, a line's words outvote its name. A word that could itself be part of a name
    (a listed given name, a capitalised word, a name word after the rule's) keeps the guess
    whole: then it may be one person's full name, and hiding too much is the safe side.
    """
    rules = [c for c in candidates if c.source not in GUESSES]
    out = []
    for candidate in candidates:
        start, end = candidate.start, candidate.end
        if candidate.source in GUESSES:
            for rule in rules:
                if not (start < rule.end and rule.start < end):
                    continue  # "meet jonas" beside "jonas weber": the guess overlaps the name
                before = _WORD_RE.findall(text, start, rule.start) if start < rule.start else []
                after = _WORD_RE.findall(text, rule.end, end) if rule.end < end else []
                if before and not any(_could_name(w) for w in before):
                    start = rule.start
                if after and not any(_could_name(w) for w in after):
                    end = rule.end
        out.append(Candidate(start, end, candidate.source))
    return out


def _could_name(word: str) -> bool:
    """Whether a word beside a found name may belong to it ("maría López", "Ana Beatriz")."""
    if is_cue_word(f"{word} ") or word.casefold() in FUNCTION_WORDS:
        return False  # "Call sam", "Hey Ana": the cue opens the line with a capital
    return (
        is_given_name(word) or word[:1].isupper() or is_name_word(word, "weak")
        or (is_surname(word) and word.casefold() not in TIME_WORDS)  # "call tom baker"
    )  # fmt: skip


def _venue_before(before: str) -> bool:
    """Whether the text before a span ends in a venue's word: "Museu do", "Hotel", "Bank of"."""
    match = _VENUE_BEFORE_RE.search(before)
    return bool(match) and match.group(1).casefold() in ORG_WORDS


def _between_function_words(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A run of words cut at lower-case function words: "Yuito Hirai of Reed Elsevier" is
    two candidates, each weighed on its own."""
    pieces: list[tuple[int, int]] = []
    run: list[re.Match[str]] = []
    for word in [*_WORD_RE.finditer(text, start, end), None]:
        if word is None or word.group() in FUNCTION_WORDS:
            if run:
                pieces.append((run[0].start(), run[-1].end()))
            run = []
        else:
            run.append(word)
    return pieces


def _everyday_lower(word: str) -> bool:
    """An everyday lower-case word of some language, no name particle and no given name."""
    low = word.casefold()
    given = is_given_name(low) and len(low) > 2  # "je" is a Korean name and French for "I"
    return word.islower() and low not in NAME_PARTICLES and not given and max_zipf(low) >= 4.0


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop greetings and punctuation spaCy glued to a name: "Hey Priya," -> "Priya"; and
    everyday lower-case words before a capitalised name: "je suis Étienne" -> "Étienne"
    ("trump", "black adam" typed in lower case stay whole)."""
    words = list(_WORD_RE.finditer(text, start, end))
    while words and words[0].group().casefold() in SALUTATIONS | HARD_NOT_NAMES:
        words.pop(0)
    capital = next((i for i, w in enumerate(words) if w.group()[:1].isupper()), 0)
    if all(_everyday_lower(w.group()) for w in words[:capital]):
        words = words[capital:]
    while words and words[-1].group().casefold() in SALUTATIONS | HARD_NOT_NAMES | UNIT_WORDS:
        words.pop()  # "Barbara Yudina Apt. 675": the unit belongs to the address after
    return (words[0].start(), words[-1].end()) if words else (start, start)


def _no_person(value: str) -> bool:
    """A word no person is called in a thread: the user's own label, or a chat role written
    in capitals ("KI", "AI"; "Claude" and "Ai" may be people)."""
    return is_self(value) or (value.isupper() and value.casefold() in CHAT_ROLES)


class Redactor:
    """Replaces personal values with the session's placeholders; keeps dates and companies."""

    def __init__(
        self,
        entity_map: EntityMap | None = None,
        contacts: Sequence[str] = (),
        *,
        region: str | None = None,
        max_chars: int = MAX_CHARS,
    ) -> None:
        self.entity_map = entity_map if entity_map is not None else EntityMap()
        self.contacts = [c.strip() for c in contacts if c and c.strip()]
        # Contacts by normalised value and by first word: a session may know 10,000 of them,
        # and every new name would otherwise scan them all.
        self._contact_spelling: dict[str, str] = {}
        self._contacts_by_first: dict[str, list[str]] = {}
        for contact in self.contacts:
            norm = normalize_value(contact)
            self._contact_spelling.setdefault(norm, contact)
            if len(norm.split()) > 1:
                self._contacts_by_first.setdefault(norm.split()[0], []).append(contact)
        self._known_cache: tuple[int, list[tuple[re.Pattern[str], dict[str, str]]]] | None = None
        self._words_cache: tuple[int, re.Pattern[str] | None] | None = None
        own = (region or default_region()).upper()
        self.regions = (own, *(r for r in DEFAULT_REGIONS if r != own))
        self.max_chars = max_chars
        self._index: dict[str, set[str]] = {}
        self._index_size = -1

    def redact(self, text: str) -> Redacted:
        """Redact `text`; every placeholder comes from (and extends) the session's map.

        Fails closed: anything the detectors or rules raise becomes RedactionFailedError, a
        PrivacyError every front-end reports in one line, and no caller gets text to send on.
        """
        text = _check_input(text, self.max_chars)
        if not text.strip():
            return Redacted(text)
        try:
            return self._redact(text)
        except PrivacyError:
            raise
        except Exception as error:  # a bug or a library's failure: never pass the text on
            logger.exception("redaction failed")
            raise RedactionFailedError("the redactor", error) from error

    def _redact(self, text: str) -> Redacted:
        lines = split_thread(text)
        found, kept, scored = self._detect(text, lines)
        chosen = [
            _whole_token(text, _with_capital_tail(text, f))
            for f in _resolve(found, text)
            # the user's own label word ("Me", "Yo", "Ich") is nobody's name, wherever it
            # stands: read as one, it would turn the user's lines into another person's; nor
            # is a chat role in capitals ("KI", "AI", "BOT"), which the injection check reads
            if not (f.type == "PERSON" and _no_person(text[f.start : f.end]))
        ]
        for item in chosen:  # register new values first, so the scan below knows them
            self._placeholder(item.type, text[item.start : item.end])
        # Values known to the session (and just found) are replaced wherever else they appear,
        # but never inside a zone's name: "Europe/London" stays whole when "London Euston" is
        # someone's name here.
        zones = _Spans([m.span() for m in zone_name_re().finditer(text)])
        # ... nor a word inside a longer holiday's name: "Christmas Eve" names a day, not Eve
        # ("Silvester" alone may be someone: it stays redacted)
        holidays = [m.span() for m in _HOLIDAY_RE.finditer(text)]
        known = self._known(text)
        final = [
            f for f in _resolve(chosen + known + self._known_words(text, scored, known), text)
            if not zones.overlaps(f.start, f.end)
            and not any(s <= f.start and f.end <= e and (s, e) != (f.start, f.end)
                        for s, e in holidays)
        ]  # fmt: skip
        assigned = {(f.start, f.end): self._placeholder(f.type, text[f.start : f.end])
                    for f in final}  # fmt: skip
        spans = sorted(
            (RedactedSpan(p, self.entity_map.type_of(p) or "PERSON", text[s:e], s, e)
             for (s, e), p in assigned.items()),
            key=lambda span: span.start,
        )  # fmt: skip
        pieces, position = [], 0
        for span in spans:
            pieces += [text[position : span.start], span.placeholder]
            position = span.end
        pieces.append(text[position:])
        taken = _Spans([(span.start, span.end) for span in spans])
        visible = [k for k in kept if not taken.overlaps(k.start, k.end)]
        logger.debug("redacted %d value(s) from %d characters", len(spans), len(text))
        return Redacted("".join(pieces), spans, visible)

    def _detect(
        self, text: str, lines: list
    ) -> tuple[list[_Found], list[KeptSpan], dict[int, list[tuple[int, int, float]]]]:
        """Everything personal the analyzer and the name rules see, and what stays visible."""
        analyzer = get_analyzer()
        found: list[_Found] = []
        kept: dict[tuple[int, int], KeptSpan] = {}
        venues: list[tuple[int, int]] = []
        fields = _Spans([(line.start, line.body_start) for line in lines
                         if line.kind == "header" and line.field != "wrote"])  # fmt: skip
        scored = self._scored(text)
        candidates: list[Candidate] = []
        for offset, piece in _chunks(text):
            if not piece.strip():
                continue
            for result in analyzer.analyze(text=piece, language="en"):
                start, end = offset + result.start, offset + result.end
                kind = result.entity_type
                if kind in KEPT_TYPES:
                    start, end = _one_line(text, start, end)
                    if kind != "DATE_TIME" and text[start:end].endswith(("'s", "’s")):
                        end -= 2  # "Faina D. Yefremova's": the possessive is no part of a name
                    kept[(start, end)] = KeptSpan(kind, text[start:end], start, end)
                    if kind in ("ORGANIZATION", "LOCATION"):
                        venues.append((start, end))
                elif kind == "PERSON":
                    metadata = result.recognition_metadata or {}
                    start, end = _trim(text, *_one_line(text, start, end))
                    if metadata.get("recognizer_name") == "TitledNameRecognizer":
                        found.append(_Found(start, end, "PERSON", "titled"))  # "Mr. Ramos"
                        continue
                    candidates.append(Candidate(*_name_part(text, start, end), "spacy"))
                elif kind in PLACEHOLDER_TYPES:
                    found.append(_Found(start, end, PLACEHOLDER_TYPES[kind], "presidio"))
        venues.sort()
        starts = [s for s, _ in venues]

        def places_near(start: int, end: int) -> list[tuple[int, int]]:
            """Companies and places that may overlap [start, end) (none is 300 chars long)."""
            return venues[bisect.bisect_left(starts, start - 300) : bisect.bisect_left(starts, end)]

        found, places = _postal(text, found, lines)
        for place in places:
            kept[place] = KeptSpan("LOCATION", text[place[0] : place[1]], *place)
        for hit in find_names(text, lines):
            if hit.source in TRUSTED:
                found.append(_Found(hit.start, hit.end, "PERSON", hit.source))
            else:
                candidates.append(Candidate(hit.start, hit.end, hit.source))
        floor = threshold("detector_floor")
        for offset, piece in _chunks(text):
            if piece.strip():
                for span in detector().people(piece, threshold=floor, scores=scored[offset]):
                    line = _one_line(text, offset + span.start, offset + span.end)
                    for piece_start, piece_end in _between_function_words(text, *line):
                        start, end = _name_part(text, *_trim(text, piece_start, piece_end))
                        candidates.append(Candidate(start, end, "learned"))
        # a chat export: two messages or more with their speakers
        thread = sum(1 for line in lines if line.kind == "message" and line.speaker) >= 2
        words = sorted((offset + s, offset + e, p) for offset, scores in scored.items()
                       for s, e, p in scores)  # fmt: skip
        word_starts = [s for s, _, _ in words]
        for start, end, sources in grouped(_unglued(text, candidates)):
            if fields.overlaps(start, end):
                continue  # "Betreff:" is a header's name, not a person's
            # a name rule has read the words around its hit already; the checks below are
            # for a guess alone (spaCy's, the detector's)
            guess = sources <= GUESSES
            checks = _checks(text, start, end, places_near(start, end), guess=guess, thread=thread)
            # the detector's scores inside the span, found by bisection (a long paste has many)
            inside = words[bisect.bisect_left(word_starts, start) : bisect.bisect_left(
                word_starts, end)]  # fmt: skip
            english = english_line(text, start)  # the detector learned English
            evidence = weigh(
                start, end, sources, prior(text, start, end, inside, english=english), checks
            )
            if EVIDENCE_LOG is not None:
                EVIDENCE_LOG.append((text, evidence))
            if evidence.person:
                end = lower_surname_end(text, end, text[start:end])  # "Kylie minogue"
                found.append(_Found(start, end, "PERSON", "+".join(sorted(sources))))
            elif (street := street_end(text, start, end)) is not None:
                found.append(_Found(start, street, "ADDRESS", "street"))  # "Marina Fort Street"
        found = _not_places(text, found, _Spans(places))
        people_spans = [(f.start, f.end) for f in _resolve(found, text) if f.type == "PERSON"]
        for hit in list_neighbours(text, people_spans):
            # in a list of people, spaCy's one-word "company" is a guess; "Acme Corp" is not
            if not any(s < hit.end and hit.start < e and e - s > hit.end - hit.start
                       for s, e in places_near(hit.start, hit.end)):  # fmt: skip
                found.append(_Found(hit.start, hit.end, "PERSON", hit.source))
        firms = firm_names(text)
        for firm in firms:
            kept[firm] = KeptSpan("ORGANIZATION", text[firm[0] : firm[1]], *firm)
        firm_spans = _Spans(firms)
        found = [f for f in found if f.type != "PERSON" or f.source in _SURE_SOURCES
                 or not firm_spans.overlaps(f.start, f.end)]  # fmt: skip
        # a spaCy place or company that a name rule also found is a person: not kept
        people = _Spans([(f.start, f.end) for f in _resolve(found, text) if f.type == "PERSON"])
        kept = {k: v for k, v in kept.items() if v.type == "DATE_TIME" or not people.overlaps(*k)}
        for line in lines:
            if line.stamp is not None and line.stamp_start is not None:
                span = (line.stamp_start, line.stamp_end or line.stamp_start)
                kept[span] = KeptSpan("DATE_TIME", line.stamp, *span)
        found = [
            f
            for f in found
            if f.end > f.start
            and not _inside_placeholder(text, f)
            and not (f.type == "PERSON" and letters_an_item(text, f.start, f.end))  # "Plan B"
        ]
        return found, sorted(kept.values(), key=lambda k: k.start), scored

    def _scored(self, text: str) -> dict[int, list[tuple[int, int, float]]]:
        """The detector's word scores per chunk offset, in the chunk's own offsets."""
        return {
            offset: detector().word_scores(piece)
            for offset, piece in _chunks(text)
            if piece.strip()
        }

    def _known(self, text: str) -> list[_Found]:
        """Every occurrence of a value the session or the contacts already know, in any case."""
        found = []
        folded = fold_accents(text)  # "josé" is the "Jose" the session knows
        for regex, kinds in self._known_patterns():
            for match in regex.finditer(folded):
                kind = kinds.get(normalize_value(match.group()), "PERSON")
                # "Mark A Watson" is known, and "Mark the location" still is an order
                if kind == "PERSON" and (
                    no_name_here(text, match.start(), match.end())
                    or venue_follows(text, match.end())
                ):
                    continue  # "Ashworth & Partners" is a firm, whoever Ms Ashworth is
                found.append(_Found(match.start(), match.end(), kind, "known"))
        return [f for f in found if not _inside_placeholder(text, f)]

    def _known_words(
        self, text: str, scored: dict[int, list[tuple[int, int, float]]], known: list[_Found]
    ) -> list[_Found]:
        """A known name that is also a word, written as the word ("will" after "Will:" labels
        a message, "hope" after "Hi Hope,"): weighed, not sure. The session knowing the name
        is one reader ("known-word" in evidence.toml); the detector's reading of the words
        around it decides between "yes will, 7pm works" and "I will call"."""
        pattern = self._known_words_pattern()
        if pattern is None:
            return []
        taken = _Spans([(f.start, f.end) for f in known])
        scores = sorted((offset + s, offset + e, p) for offset, rows in scored.items()
                        for s, e, p in rows)  # fmt: skip
        starts = [s for s, _, _ in scores]
        found = []
        for match in pattern.finditer(fold_accents(text)):
            start, end = match.span()
            if taken.overlaps(start, end) or _inside_placeholder(text, _Found(start, end, "", "")):
                continue
            inside = scores[bisect.bisect_left(starts, start) : bisect.bisect_left(starts, end)]
            english = english_line(text, start)
            evidence = weigh(start, end, frozenset({"known-word"}),
                             prior(text, start, end, inside, english=english), {})  # fmt: skip
            if EVIDENCE_LOG is not None:
                EVIDENCE_LOG.append((text, evidence))
            if evidence.person:
                found.append(_Found(start, end, "PERSON", "known-word"))
        return found

    def _known_words_pattern(self) -> re.Pattern[str] | None:
        """The session's one-word names that are also words, any case; recompiled only when
        the map grew, as _known_patterns is."""
        size = self.entity_map.spelling_count()
        if self._words_cache is not None and self._words_cache[0] == size:
            return self._words_cache[1]
        words = sorted({
            fold_accents(value).casefold()
            for placeholder, value in self.entity_map.variants()
            if self.entity_map.type_of(placeholder) == "PERSON"
            and len(value.split()) == 1 and len(value) >= 3 and is_everyday_word(value)
        })  # fmt: skip
        pattern = re.compile(r"(?<![\w@<])(?:" + "|".join(map(re.escape, words)) + r")(?![\w@])",
                             re.IGNORECASE) if words else None  # fmt: skip
        self._words_cache = (size, pattern)
        return pattern

    def _known_patterns(self) -> list[tuple[re.Pattern[str], dict[str, str]]]:
        """The known values as two alternations, recompiled only when the session map grew."""
        size = self.entity_map.spelling_count()
        if self._known_cache is not None and self._known_cache[0] == size:
            return self._known_cache[1]
        values: dict[str, str] = {}
        for placeholder, value in self.entity_map.variants():
            values.setdefault(value, self.entity_map.type_of(placeholder) or "PERSON")
        for contact in self.contacts:
            values.setdefault(contact, _contact_type(contact))
        for value, kind in list(values.items()):
            if kind == "PERSON":  # "Priya" and "Patel" alone link to "Priya Patel"
                for word in _name_parts(value):
                    values.setdefault(word, "PERSON")
        # Two alternations (any case; as written) instead of one regex per value: a session
        # may know thousands of names.
        kinds: dict[str, str] = {}
        loose, strict, owning = [], [], []
        for value in sorted(values, key=len, reverse=True):
            if len(value) < 2 or PLACEHOLDER_RE.fullmatch(value):
                continue
            kinds.setdefault(normalize_value(value), values[value])
            if values[value] == "PERSON" and is_everyday_word(value):
                forms = sorted({value, value.capitalize(), value.upper()})
                strict += [re.escape(fold_accents(f)) for f in forms]
            else:
                words = fold_accents(value).split()  # matched in the text as folded
                loose.append(r"\s+".join(re.escape(word) for word in words))
                if values[value] == "PERSON" and is_rare_everywhere(value.split()[-1] + "s"):
                    owning.append(loose[-1])  # "Floyds bags": chat drops the apostrophe
        alone, owner = r"(?![\w@])", r"(?=s(?![\w@'’]))"  # "Floyd", and "Floyd" in "Floyds"
        patterns = [
            (re.compile(r"(?<![\w@<])(?:" + "|".join(parts) + ")" + end, flags), kinds)
            for parts, flags, end in ((loose, re.IGNORECASE, alone), (strict, 0, alone),
                                      (owning, re.IGNORECASE, owner))
            if parts
        ]  # fmt: skip
        self._known_cache = (size, patterns)
        return patterns

    def _placeholder(self, kind: str, value: str) -> str:
        """The session placeholder for a value: phones by E.164, first names by full name."""
        if kind == "PHONE":
            key = phone_key(value, self.regions)
            return self.entity_map.placeholder_for("PHONE", value, key=key)
        if kind != "PERSON":
            return self.entity_map.placeholder_for(kind, value)
        norm = normalize_value(value)
        found = self.entity_map.find("PERSON", norm)
        if found is not None:
            return found
        # a contact is stored as the user spelled it, whatever case the thread used
        value = self._contact_spelling.get(norm, value)
        words = norm.split()
        index = self._full_names()
        owners = set(index.get(words[0], ()))
        pending = [
            c for c in self._contacts_by_first.get(words[0], ())
            if self.entity_map.find("PERSON", normalize_value(c)) is None
        ]  # fmt: skip
        before = self.entity_map.spelling_count()
        single = self.entity_map.find("PERSON", words[0])
        if len(words) == 1 and len(owners) + len(pending) == 1:
            # a first name or surname alone links to the one known full name that holds it
            owner = (
                owners.pop() if owners else self.entity_map.placeholder_for("PERSON", pending[0])
            )
            index.setdefault(words[0], set()).add(owner)
            placeholder = self.entity_map.link(owner, value)
        elif len(words) > 1 and single is not None and not owners and not pending:
            placeholder = self.entity_map.link(single, value, primary=True)
        else:
            placeholder = self.entity_map.placeholder_for("PERSON", value)
        for part in _name_parts(value):
            index.setdefault(part.casefold(), set()).add(placeholder)
        if self._index_size == before:  # the index saw every spelling so far: keep it
            self._index_size = self.entity_map.spelling_count()
        return placeholder

    def _full_names(self) -> dict[str, set[str]]:
        """First name or surname -> placeholders of full names; rebuilt when the map grew."""
        if self._index_size != self.entity_map.spelling_count():
            self._index = {}
            for placeholder, value in self.entity_map.variants():
                if self.entity_map.type_of(placeholder) == "PERSON":
                    for part in _name_parts(value):
                        self._index.setdefault(part.casefold(), set()).add(placeholder)
            self._index_size = self.entity_map.spelling_count()
        return self._index


def _name_parts(value: str) -> list[str]:
    """The first name and surname of a full name, each of which may stand for it alone.

    A surname that is an everyday word ("Betty White") or a suffix ("DDS", "Jr") is left out:
    alone it is more often the word than the person.
    """
    words = value.split()
    if len(words) < 2:
        return []
    first = words[0]
    # a first name that is also a word ("Ty" = thanks, "Will") stands for the person only as
    # written, capitalised: _known_patterns matches such a value case-sensitively
    capitalised = first[:1].isupper() and first[1:].islower() and len(first) >= 2
    word = first.casefold() in NOT_NAMES
    parts = [first] if not word or (capitalised and first.casefold() not in HARD_NOT_NAMES
                                    - SALUTATIONS) else []  # fmt: skip
    last = words[-1]
    if (
        len(last) >= 3
        and last.isalpha()
        and not last.isupper()
        and last.casefold() not in NOT_NAMES | ORG_WORDS
        and zipf(last.casefold()) < 4.0
    ):
        parts.append(last)
    return parts


_LINE_BREAK_RE = re.compile(r"\n|:[ \t]+")


def _one_line(text: str, start: int, end: int) -> tuple[int, int]:
    """spaCy joins a name to the next line ("Zizi Kónya\nEnigmaio") or to the message after its
    speaker label ("Alex: Thu 3pm?" read "Alex: Thu"): keep its longest piece."""
    parts, position = [], start
    for cut in _LINE_BREAK_RE.finditer(text, start, end):
        parts.append((position, cut.start()))
        position = cut.end()
    if not parts:
        return start, end
    parts.append((position, end))
    return max(parts, key=lambda p: len(text[p[0] : p[1]].strip()))


# "Yuito Hirai of Reed Elsevier", "Pave's Irena Bílá": spaCy's one company span holds a person.
_OF_AFTER_RE = re.compile(r"[ \t]+(?:of|from|at)[ \t]+\S")
_OWNER_BEFORE_RE = re.compile(r"['’]s[ \t]+$")


_PLACE_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*")


def _names_more(text: str, start: int, end: int, span_start: int, span_end: int) -> bool:
    """Whether spaCy's longer company or place adds a name of its own around the candidate:
    "Bank of America" does; "Luda , Jason & Michelle" (a list), "kapil ' s expression" and
    "Jason '" (what spaCy makes of noisy text) add no capitalised word, or hold a list."""
    if "," in text[span_start:span_end]:
        return False
    around = text[span_start:start] + " " + text[end:span_end]
    return any(w[0].isupper() for w in _PLACE_WORD_RE.findall(around))


def _affiliated(text: str, start: int, end: int, span_start: int, span_end: int) -> bool:
    """Whether a full name inside a longer "company" is a person and the company they are with."""
    if len(text[start:end].split()) < 2:
        return False
    return bool(
        _OF_AFTER_RE.match(text, end, span_end) or _OWNER_BEFORE_RE.search(text, span_start, start)
    )


def _postal(
    text: str, found: list[_Found], lines: list[ThreadLine] | None = None
) -> tuple[list[_Found], list[tuple[int, int]]]:
    """Street addresses grown into postal blocks; the postcode hidden, the places kept. A
    block stops before the next chat message ("... is 2301 Camino Ramon." / "Me: yes"): a
    speaker's line is no town line of the address above it."""
    streets = [(f.start, f.end) for f in found if f.type == "ADDRESS"]
    if not streets:
        return found, []
    found = [f for f in found if f.type != "ADDRESS"]
    places: list[tuple[int, int]] = []
    said = sorted(line.start for line in lines or () if line.kind == "message" and line.speaker)
    for block in find_blocks(text, streets):
        later = said[bisect.bisect_right(said, block.start) :]
        if later and later[0] < block.end:  # the block ran into the next message
            end = block.start + len(text[block.start : later[0]].rstrip(" \t\n.,;"))
            found.append(_Found(block.start, end, "ADDRESS", "postal"))
            places += [p for p in block.places if p[1] <= end]
            continue
        found.append(_Found(block.start, block.end, "ADDRESS", "postal"))
        if block.postcode is not None:
            found.append(_Found(*block.postcode, "ADDRESS", "postal"))
        # one capitalised word after a street may be someone addressed ("12 Elm St, Priya")
        if block.postcode is not None or len(block.places) > 1:
            places += block.places
        else:
            places += [p for p in block.places if not is_given_name(text[p[0] : p[1]].split()[0])]
    return found, places


# "Coden is a design agency", "Verdafero is the brainchild of": what follows names a company.
_COMPANY_AFTER_RE = re.compile(
    r"[ \t]+(?:is|was)[ \t]+(?:a|an|the)[ \t]+(?:[\w'’\-]+[ \t]+){0,3}?(?:agency|company|startup"
    r"|start-up|firm|multinational|corporation|organi[sz]ation|non-?profit|charity|brand|business"
    r"|brainchild|501\(c\)\s?3|manufacturer|retailer|provider|platform|consultancy|conglomerate"
    r"|subsidiary)\b(?![ \t]+(?:owner|member|founder|ceo|manager|employee|worker|partner))",
    re.IGNORECASE,
)


def _not_places(text: str, found: list[_Found], places: _Spans) -> list[_Found]:
    """Guesses at people that are towns in an address, streets, or where someone travels."""
    out = []
    for item in found:
        if item.type == "PERSON" and item.source not in _SURE_SOURCES:
            if places.overlaps(item.start, item.end):
                continue
            end = street_end(text, item.start, item.end)
            if end is not None:
                out.append(_Found(item.start, end, "ADDRESS", "street"))
                continue
            if PLACE_BEFORE_RE.search(text, max(0, item.start - 40), item.start):
                continue
            value = text[item.start : item.end]
            if is_country(value) and not is_given_name(value.split()[0]):
                continue  # "from Cyprus"; "Jordan" may be either, and stays a person
            if _COMPANY_AFTER_RE.match(text, _list_end(text, item.end)):
                continue
        out.append(item)
    return out


_LIST_TAIL_RE = re.compile(r"(?:[ \t]*,[ \t]*|[ \t]+(?:and|&)[ \t]+)[A-Z][\w'’\-]*")


def _list_end(text: str, end: int) -> int:
    """End of the list a name opens: "Lopez, Santos and Coleman is a design agency"."""
    for _ in range(4):
        match = _LIST_TAIL_RE.match(text, end)
        if not match:
            break
        end = match.end()
    return end


def _contact_type(contact: str) -> str:
    if "@" in contact:
        return "EMAIL"
    return "PHONE" if phone_key(contact) is not None else "PERSON"


def _inside_placeholder(text: str, found: _Found) -> bool:
    """Text that is already a placeholder ("<PERSON_1>") is never detected again."""
    left = text.rfind("<", max(0, found.start - 20), found.end)
    if left < 0:
        return False
    match = PLACEHOLDER_RE.match(text, left)
    return bool(match and match.start() < found.end and found.start < match.end())


def _resolve(found: list[_Found], text: str) -> list[_Found]:
    """Non-overlapping detections: names found twice merge, then the stronger type wins."""
    people = sorted((f for f in found if f.type == "PERSON"), key=lambda f: (f.start, -f.end))
    merged: list[_Found] = []
    for person in people:
        # overlapping, or "María" + "José" found apart with only a space between them
        if merged and (person.start < merged[-1].end
                       or text[merged[-1].end : person.start] in (" ", "\t")):  # fmt: skip
            last = merged[-1]
            merged[-1] = _Found(last.start, max(last.end, person.end), "PERSON", last.source)
        else:
            merged.append(person)
    others = [f for f in found if f.type != "PERSON"] + merged
    others.sort(
        key=lambda f: (_TIER.get(f.type, 1), -(f.end - f.start), _PRIORITY.get(f.type, 9), f.start)
    )
    chosen: list[_Found] = []
    taken = _Spans([])
    for item in others:
        if not taken.overlaps(item.start, item.end):
            taken.add(item.start, item.end)
            chosen.append(item)
    return sorted(chosen, key=lambda f: f.start)


class _Spans:
    """Non-overlapping (start, end) intervals with a logarithmic overlap test."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = sorted(spans)

    def overlaps(self, start: int, end: int) -> bool:
        index = bisect.bisect_left(self.spans, (start, start))
        neighbours = self.spans[max(0, index - 1) : index + 1]
        return any(s < end and start < e for s, e in neighbours)

    def add(self, start: int, end: int) -> None:
        bisect.insort(self.spans, (start, end))
