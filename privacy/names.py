"""Names the small spaCy model misses, found from where they stand rather than how they look.

A chat says who someone is by position: after "meet", "email to", "Hey", "with", before ", my
cfo", on a speaker label, alone under "Best,". The word there is a name when it is a known
given name or a rare word; "meet tomorrow" and "with pleasure" are not. The same cues are read
in German, French, Spanish and Portuguese. These rules need the text around a word, and lists
("with Marcela, paty and bebel") need the previous match, so they live here, beside the Presidio
recognizers rather than as one of them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import regex

from lang.data import alternation, phrase_pattern, regex_alternation, words
from lang.thread import ThreadLine, is_self
from privacy.context import (
    english_line,
    foreign_line,
    has_brand_ending,
    is_brand_shaped,
    is_interjection,
    is_role_word,
    is_typo,
    no_name_here,
    nouns_capitalised,
    sentence_start,
)
from privacy.lexicon import (
    FUNCTION_WORDS,
    HARD_NOT_NAMES,
    LANGUAGES,
    LOWER_NOT_NAMES,
    NOT_NAMES,
    ORG_WORDS,
    ROLES,
    SALUTATIONS,
    TIME_WORDS,
    UNIT_WORDS,
    foreign_word,
    is_compound_brand,
    is_given_name,
    is_listed_given_name,
    is_rare_everywhere,
    is_surname,
    max_zipf,
    zipf,
)
from privacy.postal import PLACE_BEFORE_RE, is_city, is_country

Strength = Literal["strong", "weak", "free"]

# Letters only: no name holds a digit ("Q3", "Q0042x"), and "Franciska's" is "Franciska".
TOKEN = r"[^\W\d_]+(?:['’\-](?![sS]\b)[^\W\d_]+)*['’\-]?(?!\w)"
_TOKEN_RE = re.compile(TOKEN)

# Words before a name, per language: lang/data/names.toml.
_STRONG_CUES = regex_alternation("names", "strong_cues")
_WEAK_CUES = regex_alternation("names", "weak_cues")
# Portuguese and colloquial Spanish/German put an article before a name: "com a Ana".
_ARTICLE = r"(?:(?:a|o|la|el|der|die|den|dem)[ \t]+(?=[^\W\d_]))?"
_CUE_RE = re.compile(
    rf"(?<![\w@<])(?:(?P<strong>{_STRONG_CUES})|(?P<weak>{_WEAK_CUES}))[,:!?]?[ \t]+{_ARTICLE}"
    rf"(?P<name>{TOKEN})",
    re.IGNORECASE,
)
_LIST_RE = re.compile(
    rf"[ \t]*(?:,[ \t]*(?:(?:and|und|et|y|e|&)[ \t]+)?|[ \t]+(?:and|und|et|y|e|&|or|oder|ou|o)"
    rf"[ \t]+)(?P<name>{TOKEN})",
    re.IGNORECASE,
)
# "my cfo", "the dentist": a possessive (labels.toml [possessives]) or "the" before a role.
_POSSESSIVE = (
    rf"the|{alternation('labels', 'possessives')}|{alternation('labels', 'possessives_others')}"
)
_ROLE_WORDS = "|".join(sorted(map(re.escape, ROLES), key=len, reverse=True))
_ROLE_AFTER_RE = re.compile(
    rf"(?<![\w<])(?P<name>{TOKEN})[ \t]*,?[ \t]+(?:who[ \t]+is[ \t]+|who's[ \t]+|is[ \t]+)?"
    rf"(?:{_POSSESSIVE})[ \t]+(?:new[ \t]+|old[ \t]+)?(?:{_ROLE_WORDS})\b",
    re.IGNORECASE,
)
_FAMILY_TITLE_RE = re.compile(
    rf"(?<![\w<])(?:{alternation('names', 'family_titles')})[ \t]+(?P<name>{TOKEN})", re.IGNORECASE
)
# "Sharma ji", "Tanaka-san": one word, then an honorific said after a name
_HONORIFIC_AFTER_RE = re.compile(
    rf"(?<![\w<'’\-])(?P<name>[^\W\d_]+)(?:[ \t]+|-)(?:{alternation('names', 'honorifics_after')})"
    r"(?![\w'’\-])",
    re.IGNORECASE,
)
_ROLE_BEFORE_RE = re.compile(
    rf"\b(?:{_POSSESSIVE})[ \t]+(?:{_ROLE_WORDS}),?[ \t]+(?P<name>{TOKEN})", re.IGNORECASE
)
_SIGNOFF_LINE_RE = re.compile(
    r"\s*(?:best(?:\s+regards|\s+wishes)?|kind\s+regards|warm\s+regards|regards|cheers|thanks"
    r"|thank\s+you|many\s+thanks|love|lots\s+of\s+love|xoxo|xo|sincerely|yours(?:\s+truly)?"
    r"|talk\s+soon|lg|vg|mfg|(?:viele|liebe|beste|herzliche)\s+grüße|mit\s+freundlichen\s+grüßen"
    r"|grüße|cordialement|bien\s+à\s+vous|bises|bisous|amitiés|saludos|un\s+abrazo|abrazos|besos"
    r"|atentamente|atenciosamente|abraços|beijos|obrigad[oa]|gracias|merci|danke)[\s,!.]*",
    re.IGNORECASE,
)
# "— Tom", "— Dolores Mayfield, People Ops": a name after a dash, then maybe the team's name.
_DASH_SIGNATURE_RE = re.compile(
    rf"\s*[-–—~]+\s*(?P<name>{TOKEN}(?:[ \t]+{TOKEN})?)(?:[ \t]*,[ \t]*[^\n,]{{1,40}})?\s*"
)


@dataclass(frozen=True)
class NameHit:
    """A name's offsets and which rule found it (for tests and debugging)."""

    start: int
    end: int
    source: str


def _rare(low: str) -> bool:
    """Rare in every language Veil reads: "paty", "oluwaseun", not "amigo" or "cheese"."""
    if len(low) < 3 or zipf(low) >= 3.0:
        return False
    return all(zipf(low, lang) < 3.5 for lang in LANGUAGES[1:])


def is_name_word(word: str, strength: Strength) -> bool:
    """Whether `word` reads as a name in a position of the given strength."""
    low = word.casefold()
    if len(word) < 2 or low in HARD_NOT_NAMES or low.strip("'’-") in ORG_WORDS:
        return False
    if is_interjection(word) or is_role_word(word) or is_typo(word):
        return False  # "with Uh", "An Ophthalmologist", "for assitance"
    if word[0].isupper():
        if word.isupper() and len(word) <= 4 and not is_given_name(word):
            return False  # acronyms: "CFO", "NYC", "IBM"
        if strength == "free":  # "Tom" (4.8) passes; "Mark", "Will", "Hope" (5+) need a cue
            return is_given_name(word) and zipf(low) < 5.0 and not foreign_word(low)
        if strength == "weak" and foreign_word(low) and not is_given_name(word):
            return False  # "con Claro" is no name; "Hola Sol" after a greeting may be
        if has_brand_ending(word):
            return False  # "meeting with Initech": made like a company's name
        return is_given_name(word) or max_zipf(low) < 4.0
    if low in LOWER_NOT_NAMES or strength == "free":
        return False
    # "con claro" is a word; "email ana", "tell pedro", "con maría", "com joão": a given name
    # that its own language's text is full of, after a cue, is still someone (a leaked name
    # costs more than "con sol" hidden)
    if foreign_word(low) and not (is_given_name(low) and max_zipf(low) < 5.5):
        return False
    given = is_given_name(low) and zipf(low) < (5.5 if strength == "strong" else 4.0)
    return given or _rare(low)


def _is_surname(word: str, first: str) -> bool:
    """A second word of a full name: capitalised like the first, not a venue word."""
    if len(word) < 2:
        return False  # "Can I": a lone letter is an initial only before a surname
    if not first[0].isupper() or not word[0].isupper():
        # "maría lópez", "jonas weber": a surname no everyday English word is, after a name
        written_lower = not first[0].isupper()
        surname = (
            is_surname(word)
            and zipf(word.casefold()) < 4.0
            and word.casefold() not in (TIME_WORDS | FUNCTION_WORDS | ORG_WORDS)
        )
        return written_lower and (is_name_word(word, "weak") or surname)
    low = word.casefold()
    # "Nguyễn Văn An": capitalised inside a name, "An" is no article; times and venues end it.
    blocked = TIME_WORDS | ROLES | SALUTATIONS | ORG_WORDS | UNIT_WORDS
    return low not in blocked and not (word.isupper() and len(word) > 1)


# A middle initial, with or without its full stop: "Iva D. Grusová", "Julieta S Almeida".
_SURNAME_RE = re.compile(rf"(?:[ \t]+(?P<initial>[^\W\d_])(?P<dot>\.)?)?[ \t]+({TOKEN})")
# Lower-case one-letter words of the five languages: never an undotted initial ("tom a lot").
_LETTER_WORDS = frozenset("a à e é i o ó u y".split())


def _extend(text: str, start: int, end: int, first: str) -> int:
    """Grow a one-word name over following surname words ("Priya Patel", "Iva D. Grusová")."""
    for _ in range(3):
        match = _SURNAME_RE.match(text, end)
        if not match or not _is_surname(match.group(3), first):
            break
        initial = match.group("initial")
        if (
            initial
            and not match.group("dot")
            and (initial.isupper() != first[0].isupper() or initial in _LETTER_WORDS)
        ):
            break
        end = match.end()
    return end


def lower_surname_end(text: str, end: int, first: str) -> int:
    """The end of a capitalised name grown over one lower-case surname after it, else `end`:
    "Kylie minogue"; an everyday, chat or time word there ("tmrw", "lol") is no surname."""
    match = _NEXT_WORD_RE.match(text, end)
    if match is None or not first[:1].isupper():
        return end
    word = match.group(1)
    low = word.casefold()
    if (
        not word.isalpha()
        or not word.islower()
        or len(word) < 3
        or low in NOT_NAMES  # holds the time words, roles and greetings too
        or is_interjection(low)
        or not is_rare_everywhere(low)
    ):
        return end
    return match.end(1)


def _list_items(text: str, end: int, first: str, source: str) -> Iterator[NameHit]:
    """Names that follow a found name in a list: ", paty and bebel" (as sure as the first)."""
    while True:
        match = _LIST_RE.match(text, end)
        if not match or not is_name_word(match.group("name"), "weak"):
            return
        end = _extend(text, match.start("name"), match.end("name"), first)
        yield NameHit(match.start("name"), end, source)


_NEXT_WORD_RE = re.compile(rf"[ \t]+({TOKEN})")
_ORG_NEXT_RE = re.compile(rf"[ \t]+(?:&[ \t]+)?({TOKEN})")
_BEFORE_AND_RE = re.compile(
    rf"(?<![\w<])({TOKEN})(?:[ \t]*,[ \t]*|[ \t]+(?:and|und|et|y|e|&)[ \t]+)$"
)


def venue_follows(text: str, end: int) -> bool:
    """ "with Acme Corp", "Ashworth & Partners": an organisation word follows: no person."""
    match = _ORG_NEXT_RE.match(text, end)
    return bool(match and match.group(1).casefold() in ORG_WORDS)


def _cue_names(text: str) -> Iterator[NameHit]:
    position = 0
    while match := _CUE_RE.search(text, position):
        # a rejected word may itself be the next cue: "remind me to email karthikeyan"
        position = match.start("name")
        name = match.group("name")
        if ":" in text[match.start() : match.start("name")] and _at_line_start(text, match.start()):
            continue  # "Yo: Déjame ver": a speaker label, not the greeting "yo Tom"
        strength: Strength = "strong" if match.group("strong") else "weak"
        if name.islower() and _SELF_CUE_RE.fullmatch(match.group("strong") or ""):
            strength = "weak"  # "I am fine", "I'm kinda bored": a state, not "i'm priya"
        if (match.group("strong") or "").casefold() == "im" and foreign_line(text, position):
            continue  # chat's "im ryan" is "I'm"; German "im Sommer" is "in the"
        weak = match.group("weak")
        if weak and weak[0].isupper() and not sentence_start(text, match.start("weak")):
            continue  # "Standard And Poors": a capitalised "And" is inside a title
        if not is_name_word(name, strength):
            continue
        if weak and weak.casefold() == "an" and english_line(text, match.start()):
            continue  # "An Ophthalmologist": the English article, not German "an Anna"
        if strength == "weak" and employer_before(text, match.start("name"), name):
            continue  # "I work for Thinknum", "Luiza is from Xignite": an employer
        end = _extend(text, match.start("name"), match.end("name"), name)
        position = end
        if venue_follows(text, end) or no_name_here(text, match.start("name"), end):
            continue  # "with Acme Corp", "thanks! Can you ..."
        if name.islower() and _noun_cue(text, match):
            continue  # "the client call ran over": a noun, not the verb "call"
        source = "cue" if strength == "strong" else "weak-cue"
        if re.match(r"casa|chez", match.group("strong") or "", re.IGNORECASE):
            source = "home"  # someone's home: no place or venue guess overrides it
        yield NameHit(match.start("name"), end, source)
        yield from _list_items(text, end, name, source)
        # "Will and Rose": the capitalised given name before a listed name is one too.
        before = _BEFORE_AND_RE.search(text, max(0, match.start() - 40), match.start("name"))
        if before and before.group(1)[0].isupper() and is_given_name(before.group(1)):
            if before.group(1).casefold() not in HARD_NOT_NAMES:
                yield NameHit(before.start(1), before.end(1), "list")


_CUE_WORD_RE = re.compile(rf"(?:{_STRONG_CUES})[,:!?]?[ \t]+", re.IGNORECASE)


def is_cue_word(piece: str) -> bool:
    """Whether `piece` is only a strong cue and the blank after it: "call ", "Hey, "."""
    return bool(_CUE_WORD_RE.fullmatch(piece))


def _at_line_start(text: str, position: int) -> bool:
    """Whether only blanks stand between `position` and the start of its line."""
    return not text[text.rfind("\n", 0, position) + 1 : position].strip()


_SELF_CUE_RE = re.compile(r"i'?m|i\s+am|ich\s+bin|soy|sou", re.IGNORECASE)
# "the call", "our weekly call", "a quick text": the cue word is a noun there, not a verb.
_DETERMINER_BEFORE_RE = re.compile(
    r"\b(?:the|a|an|this|that|our|your|my|their|his|her|its)[ \t]+(?:[a-z][\w\-]*[ \t]+)?$",
    re.IGNORECASE,
)


def _noun_cue(text: str, match: re.Match[str]) -> bool:
    """Whether a one-word cue is a noun after a determiner ("the client call ran over")."""
    cue = match.group("strong")
    if not cue or not cue.isalpha():
        return False  # "the meeting with priya": the preposition still introduces someone
    start = match.start("strong")
    return bool(_DETERMINER_BEFORE_RE.search(text, max(0, start - 30), start))


def _role_names(text: str) -> Iterator[NameHit]:
    for pattern in (_ROLE_AFTER_RE, _ROLE_BEFORE_RE):
        for match in pattern.finditer(text):
            start = match.start("name")
            if employer_before(text, start, match.group("name")):
                continue  # "Dudek of Lexisnexis is the CEO": the company, not the person
            if is_name_word(match.group("name"), "strong"):
                yield NameHit(match.start("name"), match.end("name"), "role")
    for match in _FAMILY_TITLE_RE.finditer(text):  # "Grandma Rose's", "Tía Carmen"
        name = match.group("name")
        if not name[0].isupper() or not is_name_word(name, "strong"):
            continue
        end = _extend(text, match.start("name"), match.end("name"), name)
        if employer_before(text, match.start(), match.group(0)) or venue_follows(text, end):
            continue  # "I work for Aunt Bertha Inc": a firm named like a relative
        yield NameHit(match.start("name"), end, "role")
    for match in _HONORIFIC_AFTER_RE.finditer(text):  # "mehmood sahab", "Tanaka-san"
        if is_name_word(match.group("name"), "strong"):
            yield NameHit(match.start("name"), match.end("name"), "role")


def _signature_names(text: str, lines: list[ThreadLine]) -> Iterator[NameHit]:
    """The name alone on the line under "Best," or after a dash: "— Tom"."""
    for index, line in enumerate(lines):
        body = (line.body_start, line.body_end)
        dash = _DASH_SIGNATURE_RE.fullmatch(text, *body)
        if dash and all(is_name_word(w, "strong") for w in dash.group("name").split()):
            yield NameHit(dash.start("name"), dash.end("name"), "signature")
        if index + 1 < len(lines) and _SIGNOFF_LINE_RE.fullmatch(text, *body):
            following = lines[index + 1]
            words = list(_TOKEN_RE.finditer(text, following.body_start, following.body_end))
            span = text[following.body_start : following.body_end]
            if 1 <= len(words) <= 3 and " ".join(w.group() for w in words) == " ".join(
                span.split()
            ):
                if all(is_name_word(w.group(), "strong") for w in words):
                    yield NameHit(words[0].start(), words[-1].end(), "signature")


# A capitalised label opening a line the thread model did not take for a speaker (a bulletin's
# "MUSIC:" beside a chat's "BEN:", a heading-like contact name "Mike Gym:"): one that opens with
# a known given name is still someone, up to its first word that reads as no name.
_HEADING_LABEL_RE = regex.compile(
    r"[ \t]*(?P<label>\p{Lu}[\p{L}'’\-]*(?:[ \t]+\p{Lu}[\p{L}'’\-]*){0,3})[ \t]*:"
)


def _heading_name(text: str, line: ThreadLine) -> NameHit | None:
    """The given name opening a label the thread model read as a heading, if it has one."""
    label = _HEADING_LABEL_RE.match(text, line.body_start, line.body_end)
    if line.speaker is not None or label is None:
        return None
    words = list(_TOKEN_RE.finditer(text, label.start("label"), label.end("label")))
    if not words or not is_given_name(words[0].group()):
        return None
    named = [words[0]]
    for word in words[1:]:
        if not is_name_word(word.group(), "strong"):
            break
        named.append(word)
    return NameHit(named[0].start(), named[-1].end(), "speaker")


def _speaker_names(text: str, lines: list[ThreadLine]) -> Iterator[NameHit]:
    """Chat speaker labels and e-mail display names, minus "Me" and numbers.

    In a chat (two messages with speakers or more) the thread model has already told labels
    from headings, so a label that is a listed given name is a person even where the word is
    also a month or a verb ("June:", "Will:")."""
    chat = sum(1 for line in lines if line.kind == "message" and line.speaker) >= 2
    writers = Counter(line.speaker for line in lines if line.kind == "message" and line.speaker)
    for line in lines:
        heading = _heading_name(text, line)
        if heading is not None:
            yield heading
        labels = line.names or (
            ((line.speaker, line.speaker_start, line.speaker_end),) if line.speaker else ()
        )
        for label, start, end in labels:
            if label is None or start is None or end is None:
                continue
            words = [w for w in _TOKEN_RE.finditer(text, start, end)]
            if chat and _given_label(label, words):
                yield NameHit(words[0].start(), words[-1].end(), "speaker")
                continue
            # a greeting word before a name ("Dear John:", "Hola Maria:") is no name; in a
            # chat, a label that writes several messages is its writer's name, a capitalised
            # first word too ("Ty Burrell:" on every line)
            greets = chat and len(words) > 1 and writers[label] >= 2
            if any(w.group().casefold() in ORG_WORDS for w in words):
                continue  # "From: Harbourside Dental <bookings@...>", "Hotel:": a business
            if chat and len(words) == 1 and _word_label(words[0].group()):
                yield NameHit(words[0].start(), words[0].end(), "speaker")
                continue
            named = [
                w for w in words
                if w.group().casefold() not in HARD_NOT_NAMES
                or greets and w.group()[:1].isupper() and w.group().casefold() in SALUTATIONS
            ]  # fmt: skip
            if not named or len(words) == 1 and words[0].group().casefold() in NOT_NAMES:
                continue
            yield NameHit(named[0].start(), named[-1].end(), "speaker")


def _word_label(word: str) -> bool:
    """A one-word chat label that is also a common word ("Ty:", "Will:", "Bill:"): the thread
    model took it for a writer, and a writer that is no role, greeting, time or function word
    is someone; hiding a nickname like "Boss:" costs a word, showing "Ty:" leaks a person. A
    greeting counts ("ty" is also "thank you"): a label that says only "Hi:" is rarer than a
    person so called."""
    low = word.casefold()
    return (
        word[:1].isupper() and low not in TIME_WORDS | ROLES | FUNCTION_WORDS and not is_self(word)
    )


def _given_label(label: str, words: list[re.Match[str]]) -> bool:
    """A chat label made of listed given names, none of them a role, a greeting or the user."""
    return (
        bool(words)
        and not is_self(label)
        and all(
            is_listed_given_name(w.group())
            and w.group().casefold() not in ROLES | SALUTATIONS | FUNCTION_WORDS
            for w in words
        )
    )


_ALONE_RE = re.compile(rf"(?:({TOKEN})[ \t]*[?!.,…]*[ \t]*){{1,3}}")


def _alone_names(text: str, lines: list[ThreadLine]) -> Iterator[NameHit]:
    """A message that is only a name or two: "Ikaika? Marisol?", "Tom!"."""
    for line in lines:
        if line.kind != "message" or not _ALONE_RE.fullmatch(text, line.body_start, line.body_end):
            continue
        words = list(_TOKEN_RE.finditer(text, line.body_start, line.body_end))
        if all(
            w.group()[0].isupper()
            and w.group().casefold() not in NOT_NAMES
            and not is_interjection(w.group())
            and not is_role_word(w.group())
            and (is_given_name(w.group()) or max_zipf(w.group().casefold()) < 3.5)
            for w in words
        ):
            yield from (NameHit(w.start(), w.end(), "alone") for w in words)


_NAME_LINE_RE = re.compile(
    rf"[ \t>?*]*({TOKEN}(?:[ \t]+(?:[^\W\d_]\.?[ \t]+)?{TOKEN}){{1,2}})[ \t]*"
)


def _name_lines(text: str, lines: list[ThreadLine]) -> Iterator[NameHit]:
    """A line that is only a full name, as in signatures and address blocks: "leone mazzi"."""
    for line in lines:
        if line.kind != "text":
            continue
        match = _NAME_LINE_RE.fullmatch(text, line.start, line.end)
        if not match:
            continue
        words = match.group(1).split()
        initial = any(len(w.rstrip(".")) == 1 for w in words[1:-1])
        first, rest = words[0], [w for w in words[1:] if len(w.rstrip(".")) > 1]
        # names share their case ("Leone Mazzi", "leone mazzi"); "Priya confirmed" is prose
        same_case = all(w[0].isupper() == first[0].isupper() for w in rest)
        plain = all(w.casefold() not in NOT_NAMES and w.casefold() not in ORG_WORDS
                    and (w[0].isupper() or zipf(w.casefold()) < 4.0 or is_given_name(w))
                    for w in rest)  # fmt: skip
        if not (same_case and plain and rest):
            continue
        # "Christophe Björklund", "Ella H. Snider": a given name that is also a French or
        # Spanish word still opens a name when a rare surname or an initial follows it
        surnamed = initial or all(max_zipf(w.casefold()) < 3.5 for w in rest)
        given = (
            is_given_name(first)
            and zipf(first.casefold()) < 5.0
            and (surnamed or not foreign_word(first))
        )
        # "Dreux Joly", "Tzigane Lantos": capitalised words no language Veil reads uses
        unknown = first[0].isupper() and all(
            zipf(w.casefold()) < 3.0 and max_zipf(w.casefold()) < 4.0 for w in [first, *rest]
        )
        if given or unknown:
            yield NameHit(match.start(1), match.end(1), "name-line")


# "at Hilton", "the Globex renewal": a capitalised word after these is a place or a thing.
_VENUE_BEFORE_RE = re.compile(
    r"(?:\b(?:at|in|the|this|that|our|your|their|its|bei|im|chez|au|en|em|no|na)|@)[ \t]+$",
    re.IGNORECASE,
)


# "CEO of Guidestar", "I work for Thinknum": an unknown word there is an organisation.
_EMPLOYER_BEFORE_RE = re.compile(
    r"\b(?:of|work(?:s|ed|ing)?\s+(?:for|at)|joined)[ \t]+$", re.IGNORECASE
)
# "Holzman from Predilytics", "Luiza is from Xignite": someone, then where they work.
_FROM_AFTER_NAME_RE = re.compile(
    r"(?<![\w<])(?P<who>[A-ZÀ-Þ][\w'’\-]*)[ \t]+(?:(?:is|was|'s)[ \t]+)?from[ \t]+$"
)


def employer_before(text: str, start: int, word: str) -> bool:
    """Whether the words before `start` make `word` someone's employer, not a person: "CEO
    of", "I work for", "Luiza is from"; a known given name there is still someone, and so is
    whoever an "Email from" or "Hi from" comes from (those words are no one's name)."""
    if is_given_name(word.split()[0]):
        return False
    if _EMPLOYER_BEFORE_RE.search(text, max(0, start - 16), start):
        return True
    after_name = _FROM_AFTER_NAME_RE.search(text, max(0, start - 45), start)
    if after_name is None:
        return False
    who = after_name.group("who")
    return is_given_name(who) or zipf(who.casefold()) < 4.0


# Words that open place names ("San Jose", "Santa Rosa", "Fort Worth"), never a full name.
PLACE_OPENERS = words("places", "place_openers")
# A capitalised article opens a venue's name inside other text: "El Mansour", "La Taberna".
_ARTICLE_BEFORE_RE = re.compile(r"\b(?:El|La|Le|Los|Las|Les|Il|Lo|Der|Die|Das)[ \t]+$")
# "Priya's place", "at Tom's house": a possessive before a home is a person's.
_HOME_AFTER_RE = re.compile(
    r"['’]s[ \t]+(?:place|house|home|flat|apartment|apt|pad|parents|wedding|birthday|party)\b",
    re.IGNORECASE,
)


def _not_capitalised_name(text: str, start: int, end: int, word: str) -> bool:
    """Capitalised words whose neighbours make them a place, a venue, a verb or a filler."""
    if _ARTICLE_BEFORE_RE.search(text, max(0, start - 5), start):
        return True
    if word.casefold() in PLACE_OPENERS and end > start + len(word):
        return True  # "San Jose", not "San Zhang": a place opener before another capital
    return no_name_here(text, start, end)


_PREVIOUS_WORD_RE = re.compile(r"([^\W\d_][\w'’\-]*)[ \t]+$")
_HOLIDAY_RE = re.compile(phrase_pattern("times", "holidays").pattern, re.IGNORECASE)


def _word_before(text: str, at: int) -> str | None:
    """The word just before `at` on its line, if any (read in a short window, not the text)."""
    match = _PREVIOUS_WORD_RE.search(text, max(0, at - 60), at)
    return match.group(1) if match else None


def _named_inside(text: str, at: int, word: str) -> bool:
    """Whether a capitalised given name at `at` is written as a name: inside a sentence of a
    language where only names take capitals, not a town or a holiday ("a Valencia", "de
    Noël"), nor the second word of a capitalised place ("Bahía Blanca", "Avenida Bolívar")."""
    previous = _word_before(text, at)
    return (
        is_given_name(word)
        and not sentence_start(text, at)
        and (previous is None or not previous[:1].isupper() or is_given_name(previous))
        and not _HOLIDAY_RE.fullmatch(word)
        and not is_city(word) and not is_country(word)
        and not nouns_capitalised(text, at)
    )  # fmt: skip


def _capitalised_names(text: str) -> Iterator[NameHit]:
    """Given names by their capital letter: mid-sentence, or opening one when rare or full."""
    for match in _TOKEN_RE.finditer(text):
        word = match.group()
        if not word[0].isupper() or word.isupper():
            continue
        home = _HOME_AFTER_RE.match(text, match.end())
        if not home and _VENUE_BEFORE_RE.search(text, max(0, match.start() - 8), match.start()):
            continue
        # a word of another language that is also a given name counts only where it is
        # written as a name ("poi chiamo Chiara"); "Parfait", "Bitte", "Claro" are words there
        foreign = foreign_word(word.casefold())
        if foreign and not _named_inside(text, match.start(), word):
            continue
        if not is_given_name(word):
            # a word no language Veil reads uses, capitalised mid-sentence: "Chukwuemeka"
            employer = employer_before(text, match.start(), word)
            if (len(word) >= 4 and word.isalpha() and not sentence_start(text, match.start())
                    and max_zipf(word.casefold()) < 2.0 and not employer
                    and not is_compound_brand(word) and not is_typo(word)
                    and not no_name_here(text, match.start(), match.end())):  # fmt: skip
                yield NameHit(match.start(), match.end(), "rare")
            continue
        cue = _CUE_RE.match(text, match.start())
        if cue and cue.group("strong") and cue.start("name") > match.start():
            continue  # "Tell Priya": the verb is a cue, not a first name before a surname
        end = _extend(text, match.start(), match.end(), word)
        full = end > match.end()
        if sentence_start(text, match.start()):
            # "Darren is ...": a given name, not an everyday word, before a lower-case word
            verb = _NEXT_WORD_RE.match(text, match.end())
            subject = bool(verb and verb.group(1).islower()) and zipf(word.casefold()) < 5.0
            if not full and zipf(word.casefold()) >= 3.5 and not subject:
                continue
        elif not full and not is_name_word(word, "free") and not foreign:
            continue  # (a foreign word got here only as a name written inside a sentence)
        if _not_capitalised_name(text, match.start(), end, word):
            continue
        yield NameHit(match.start(), end, "capitalised")


# Verbs only people do: a rare word before one opens a sentence as its subject ("Trivo lives
# on ...", "Mourik began writing"). "is" and "has" are left out: "Verdafero is a startup".
_PERSON_VERBS = frozenset(
    """said says told tells asked asks replied replies wrote writes texted called calls emailed
    lives lived began begins shouted yelled thinks thought wants wanted feels felt loves loved
    hates knows knew agreed agrees confirmed mentioned cancelled canceled arrived left joined
    met sent smiled laughed cried sings sang""".split()
)
# After a lower-case given name, auxiliaries also mark a subject: "tom is running late".
_SUBJECT_VERBS = _PERSON_VERBS | frozenset("is was has had will can could would 's".split())
_SUBJECT_RE = re.compile(
    rf"(?P<first>{TOKEN})(?:[ \t]+(?P<second>{TOKEN}))??(?P<comma>[ \t]*,)?[ \t]+"
    rf"(?P<verb>[^\W\d_]+(?:'s)?)"
)
_SENTENCE_RE = re.compile(r"(?:^|(?<=[.!?])[ \t]+)[ \t>]*", re.MULTILINE)
_VOCATIVE_NEXT = frozenset("can could would will please do did are is have i you".split())


def _subject(text: str, position: int) -> re.Match[str] | None:
    """The shortest "Name [Surname] verb" at `position` whose verb is a subject's verb."""
    match = _SUBJECT_RE.match(text, position)
    if match and match.group("verb").casefold() not in _SUBJECT_VERBS | _VOCATIVE_NEXT:
        longer = re.compile(_SUBJECT_RE.pattern.replace(")??", ")?", 1))
        match = longer.match(text, position)
    return match


def _subject_names(text: str) -> Iterator[NameHit]:
    """A name opening a sentence as its subject, in lower case or rare: "eva kleist lives"."""
    for opening in _SENTENCE_RE.finditer(text):
        match = _subject(text, opening.end())
        if not match:
            continue
        first, second = match.group("first"), match.group("second")
        verb = match.group("verb").casefold()
        low = first.casefold()
        if first.islower():
            # "bill said" is someone; "bill is due" is not: auxiliaries need a rarer name
            ceiling = 5.0 if verb in _PERSON_VERBS else 4.0
            if match.group("comma") or verb not in _SUBJECT_VERBS or low in NOT_NAMES:
                continue
            if not is_given_name(low) or zipf(low) >= ceiling or foreign_word(low):
                continue
            if second and not (second.islower() and is_name_word(second, "weak")):
                continue
            yield NameHit(match.start("first"), match.end("second" if second else "first"),
                          "subject")  # fmt: skip
        elif not is_given_name(first) and not first.isupper():
            if not second:
                rare = len(first) >= 4 and max_zipf(low) < 2.0
                vocative = bool(match.group("comma")) and verb in _VOCATIVE_NEXT
                if rare and (verb in _PERSON_VERBS and not match.group("comma") or vocative):
                    if not is_compound_brand(first) and not is_typo(first):
                        yield NameHit(match.start("first"), match.end("first"), "rare")
            elif hit := _unknown_full_name(text, match.start("first"), first):
                yield hit


_NEXT_LOWER_RE = re.compile(r"[ \t]+([^\W\d_]+)")

# A full name written out: two or three capitalised words, maybe a middle initial and the
# particles surnames carry ("Willemine ten Pas", "Vide A. Persson", "Ana de la Cruz").
_FULL_NAME_RE = regex.compile(
    r"(?<![\p{L}\d<@'’\-])(?P<first>\p{Lu}\p{Ll}+(?:-\p{Lu}\p{Ll}+)?)"
    r"(?P<rest>(?:[ \t]+\p{Lu}\.?)?(?:[ \t]+(?:(?:van|von|de|der|den|ten|ter|da|dos|du|la|le"
    r"|del|di|bin|ibn|al|el)[ \t]+){0,2}\p{Lu}\p{Ll}+(?:-\p{Lu}\p{Ll}+)?){1,2})(?![\p{L}\d])"
)


def _plain_surname(word: str, given: bool, particle: bool) -> bool:
    """A capitalised word that can close a full name: rare, or no everyday English word after a
    given name or a particle ("Steffen Mauer", "Willemine ten Pas")."""
    low = word.casefold()
    if low in HARD_NOT_NAMES or low in ORG_WORDS or low in UNIT_WORDS or is_role_word(word):
        return False
    if is_brand_shaped(word):
        return False  # no typo test: "Persson" is one letter from "persons" and a surname
    return max_zipf(low) < 3.0 or ((given or particle) and zipf(low) < 3.5)


def _full_names(text: str) -> Iterator[NameHit]:
    """A full name that no language uses as words, wherever it stands ("Wisława Szczepańska's
    killers", "Yuito Hirai of ..."), unless it is a town or comes after "at" or "in".

    spaCy's small model often calls such a pair a company or a place; a town of that shape
    ("Phnom Penh") is in the gazetteer, and a company is made like a brand ("Mandasoft").
    """
    taken_until = 0
    for match in _FULL_NAME_RE.finditer(text, overlapped=True):
        if match.start() < taken_until:
            continue
        first = match.group("first")
        low = first.casefold()
        given = is_given_name(first) and zipf(low) < 4.0 and not foreign_word(low)
        rest = match.group("rest").split()
        initial = any(len(w) == 2 and w.endswith(".") for w in rest)
        # "Vide A. Persson": a dotted middle initial makes a name of words that are not rare
        if not (given or max_zipf(low) < 3.0 or initial and zipf(low) < 4.0):
            continue
        if is_brand_shaped(first) or is_typo(first):
            continue
        surnames = [(w, i > 0 and rest[i - 1].islower()) for i, w in enumerate(rest)
                    if len(w.rstrip(".")) > 1 and w[0].isupper()]  # fmt: skip
        if not all(_plain_surname(w, given or initial, p) for w, p in surnames):
            continue
        value = match.group()
        start = match.start()
        before = text[max(0, start - 8) : start]
        # "at Kokkari Estiatorio", "in Phnom Penh"; "the Steffen Mauer version" is someone's
        venue = _VENUE_BEFORE_RE.search(before)
        if venue and not ((given or initial) and venue.group().strip().casefold() == "the"):
            continue
        if is_city(value) or is_country(value) or venue_follows(text, match.end()):
            continue
        if PLACE_BEFORE_RE.search(text, max(0, start - 40), start):
            continue
        if not given and employer_before(text, start, value):
            continue  # "I work for Wolters Kluwer"
        taken_until = match.end()
        yield NameHit(start, match.end(), "full-name")


# Words for a group of people, before a colon and the list of who: "founders: Kónya, Becker".
_PEOPLE_LIST_RE = regex.compile(
    r"(?i)\b(?:co-?founders|founders|attendees|participants|guests|invitees|speakers"
    r"|panell?ists|hosts|organi[sz]ers|authors|cast|members|people|teilnehmer|gäste|invités"
    r"|invitados|participantes|convidados)[ \t]*:[ \t]*"
)
# "Usamov and Bowers were engineers": capitalised words joined by "and", then a plural verb.
_PLURAL_SUBJECT_RE = regex.compile(
    rf"(?<![\w<])(?P<items>{TOKEN}(?:[ \t]*,[ \t]*{TOKEN}){{0,3}},?[ \t]+(?:and|&)[ \t]+{TOKEN})"
    r"[ \t]+(?:were|are|have|had|met|said|told|asked|agreed|founded|started|wrote|joined|left"
    r"|both|will|would|can|could)\b"
)


def _person_word(word: str) -> bool:
    """A word that is a name where the grammar points at people: a given name, a surname or a
    rare word, and no company, time, role or everyday word of another kind."""
    low = word.casefold()
    if low in NOT_NAMES or low in ORG_WORDS or is_role_word(word) or is_interjection(word):
        return False
    if word.isupper() and len(word) <= 4 or is_brand_shaped(word) or is_typo(word):
        return False
    return is_given_name(word) or is_surname(word) or max_zipf(low) < 3.0


def _group_names(text: str) -> Iterator[NameHit]:
    """People listed after a word for people ("founders: Kónya, Becker and Vasquez") and the
    names a plural verb has as its subject ("Usamov and Bowers were precision engineers")."""
    for opener in _PEOPLE_LIST_RE.finditer(text):
        item = _TOKEN_RE.match(text, opener.end())
        while item and _person_word(item.group()):
            end = _extend(text, item.start(), item.end(), item.group())
            yield NameHit(item.start(), end, "group")
            following = _LIST_NEXT_RE.match(text, end)
            item = _TOKEN_RE.match(text, following.start("name")) if following else None
    for match in _PLURAL_SUBJECT_RE.finditer(text):
        items = list(_TOKEN_RE.finditer(text, *match.span("items")))
        words = [w.group() for w in items if w.group().casefold() not in ("and", "&")]
        if not all(w[0].isupper() and _person_word(w) for w in words):
            continue
        if all(zipf(w.casefold()) >= 4.0 for w in words):
            continue  # "Black and White were ...": everyday words, names or not
        for word in items:
            if word.group().casefold() not in ("and", "&"):
                yield NameHit(word.start(), word.end(), "group")


def _unknown_full_name(text: str, start: int, first: str) -> NameHit | None:
    """Two or three capitalised words no language uses, then a verb: "Csanád P Gere lives"."""
    end = _extend(text, start, start + len(first), first)
    words = [w for w in text[start:end].split() if len(w.rstrip(".")) > 1]
    after = _NEXT_LOWER_RE.match(text, end)
    # "Rościsław Dudek of Lexisnexis", "Zargan Vedzizhev from Acme": a person and their company
    if len(words) < 2 or not after or after.group(1) not in _SUBJECT_VERBS | {"of", "from"}:
        return None
    if not after.group(1).islower() or any(w.casefold() in ORG_WORDS for w in words):
        return None
    if all(zipf(w.casefold()) < 3.0 and max_zipf(w.casefold()) < 4.0 for w in words):
        return NameHit(start, end, "rare")
    return None


_LIST_NEXT_RE = re.compile(
    rf"[ \t]*(?:,[ \t]*(?:(?:and|und|et|y|e|&)[ \t]+)?|[ \t]+(?:and|und|et|y|e|&)[ \t]+)"
    rf"(?P<name>{TOKEN})",
    re.IGNORECASE,
)


def _listed(word: str, first: str) -> bool:
    """A word listed beside a name is one too when it is written like one."""
    low = word.casefold()
    if word[0].isupper() != first[0].isupper() or low in NOT_NAMES or low in ORG_WORDS:
        return False
    if is_interjection(word) or is_role_word(word) or is_typo(word):
        return False
    if word.isupper() and len(word) <= 4 and not is_given_name(word):
        return False
    if word[0].isupper():
        return (
            is_given_name(word)
            or max_zipf(low) < 3.5
            or zipf(low) < 3.0
            or (is_surname(word) and zipf(low) < 4.0)
        )
    return (is_given_name(low) and zipf(low) < 5.0) or _rare(low)


def list_neighbours(text: str, people: list[tuple[int, int]]) -> list[NameHit]:
    """Names listed beside names already found: "founders: Eklund, Michael and Hodge"."""
    queue = list(people)
    seen = set(people)
    hits = []
    while queue:
        start, end = queue.pop()
        first = text[start:end]
        after = _LIST_NEXT_RE.match(text, end)
        before = _BEFORE_AND_RE.search(text, max(0, start - 40), start)
        for match, group in ((after, "name"), (before, 1)):
            if match is None:
                continue
            s, e = match.span(group)
            word = match.group(group)
            if (s, e) in seen or not _listed(word, first):
                continue
            if group == "name":
                e = _extend(text, s, e, word)
                if venue_follows(text, e):
                    continue
            elif _VENUE_BEFORE_RE.search(text, max(0, s - 8), s):
                continue
            seen.add((s, e))
            queue.append((s, e))
            hits.append(NameHit(s, e, "list"))
    return hits


# "Jones, Mitchell and Williams": a firm named after its partners, three surnames in one case.
_FIRM_RE = regex.compile(
    r"(?<![\p{L}<])(?P<a>\p{L}[\p{L}'’\-]+)[ \t]*,[ \t]*(?P<b>\p{L}[\p{L}'’\-]+)[ \t]*,?[ \t]+"
    r"(?:and|&)[ \t]+(?P<c>\p{L}[\p{L}'’\-]+?)(?P<owner>['’]s)?(?![\p{L}])"
)
# Where a firm stands: "a year at", "is from", "CEO of", "the address of", "joined".
_FIRM_BEFORE_RE = regex.compile(r"(?i)\b(?:at|from|of|for|by|joined|@)[ \t]+$")
_LINE_MARKS = " \t>*•·|?"


def firm_names(text: str) -> list[tuple[int, int]]:
    """Firms named after their partners, where the text says a firm stands there.

    Three surnames in a list are as often three people, so the shape alone decides nothing:
    the list must sit after "at", "from" or "of", before a company word or a possessive, or
    alone on its line (a signature or an address block).
    """
    firms = []
    for match in _FIRM_RE.finditer(text):
        words = [match.group(k) for k in "abc"]
        if len({w[0].isupper() for w in words}) > 1 or not all(map(is_surname, words)):
            continue
        start, end = match.start(), match.end("c")
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        alone = not text[line_start:start].strip(_LINE_MARKS) and not text[end:line_end].strip()
        if (
            alone
            or match.group("owner")
            or venue_follows(text, end)
            or _FIRM_BEFORE_RE.search(text, max(0, start - 12), start)
        ):
            firms.append((start, end))
    return firms


# The name element of tickets and boarding passes (IATA): SURNAME/GIVEN NAMES TITLE, in capitals.
_TICKET_NAME_RE = re.compile(
    r"(?<![\w/])(?P<name>[A-Z][A-Z'\-]+/[A-Z][A-Z'\-]*(?:[ \t]+[A-Z][A-Z'\-]*){0,3}?)"
    r"[ \t]+(?:MR|MRS|MS|MISS|MSTR|DR|PROF|MX)\b"
)


# Without a title the slash pair must read as names itself: "SMITH/JOHN", not "AC/DC" or "TCP/IP".
_UNTITLED_TICKET_RE = re.compile(
    r"(?<![\w/])(?P<surname>[A-Z][A-Z'\-]+)/(?P<given>[A-Z][A-Z'\-]+)(?![\w/])"
)


_DETERMINERS = frozenset("the a an this that my your our their his her its".split())
_POSSESSIVE_RE = re.compile(r"(?<![\w'’])([^\W\d_][\w\-]*)(?=['’]s\b)")


def _possessive_names(text: str) -> Iterator[NameHit]:
    """A given name written in lower case before "'s": "drinks at tom's", "kiki's party". The
    owner of a place or a day is someone; an everyday word ("today's", "mark's") needs more."""
    for match in _POSSESSIVE_RE.finditer(text):
        word = match.group(1)
        low = word.casefold()
        owner = _word_before(text, match.start())
        if owner is not None and owner.casefold() in _DETERMINERS:
            continue  # "the dean's office": a role's, not someone's
        if (
            word.islower() and is_given_name(low) and low not in LOWER_NOT_NAMES
            and zipf(low) < 5.0 and not foreign_word(low)
        ):  # fmt: skip
            yield NameHit(match.start(1), match.end(1), "possessive")


_HYPHENATED_RE = re.compile(r"(?<![\w\-])([^\W\d_]{2,})-([^\W\d_]{2,})(?![\w\-])")


def _hyphenated_names(text: str) -> Iterator[NameHit]:
    """Two given names joined by a hyphen, typed in lower case: "jo-ann", "hans-peter", "wei-ling",
    "marie-claire". A compound word rarely joins two names ("well-known", "check-in" join
    none); a name often does."""
    for match in _HYPHENATED_RE.finditer(text):
        first, second = match.group(1), match.group(2)
        if (
            match.group().islower()  # typed; "Harley-Davidson", "Winston-Salem" are written
            and is_given_name(first) and is_given_name(second)
            and not {first.casefold(), second.casefold()} & HARD_NOT_NAMES
            and not any(is_city(part) or is_country(part) for part in (first, second))
        ):  # fmt: skip
            yield NameHit(match.start(), match.end(), "full-name")


def _ticket_names(text: str) -> Iterator[NameHit]:
    """ "NGUYEN/VAN AN MR", "OKAFOR/CHIDI MRS": a passenger's whole name, title after;
    "SMITH/JOHN" with no title when a surname and a given name make it up."""
    for match in _TICKET_NAME_RE.finditer(text):
        yield NameHit(match.start("name"), match.end("name"), "ticket")
    for match in _UNTITLED_TICKET_RE.finditer(text):
        surname, given = match.group("surname"), match.group("given")
        if is_given_name(given) and (is_surname(surname) or is_rare_everywhere(surname)):
            yield NameHit(match.start(), match.end(), "ticket")


def find_names(text: str, lines: list[ThreadLine]) -> list[NameHit]:
    """Every name the contextual rules find in `text` (lines come from `split_thread`)."""
    hits = [
        *_speaker_names(text, lines),
        *_cue_names(text),
        *_role_names(text),
        *_signature_names(text, lines),
        *_alone_names(text, lines),
        *_name_lines(text, lines),
        *_capitalised_names(text),
        *_subject_names(text),
        *_full_names(text),
        *_group_names(text),
        *_ticket_names(text),
        *_possessive_names(text),
        *_hyphenated_names(text),
    ]
    return sorted(hits, key=lambda hit: (hit.start, -hit.end))
