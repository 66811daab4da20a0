"""What the words around a capitalised word say when it is no name, whatever it looks like.

A word in name position can still be a verb, a filler or a job: "Mark the location as ...",
"Will do", "Can I ...", "Uh, ...", "Rose to the occasion", "a General Practitioner". A redacted
word there becomes a fake person in an event title ("Meeting with Uh"). These checks read the
grammar around the word (what opens the sentence, what follows), never a list of examples, and
every name rule and spaCy's guesses pass through them. "Mark called me", "ask Will" and "with
Rose" are untouched: a verb after the word, or a cue before it, is what a name has.
"""

from __future__ import annotations

import functools
import itertools
import re
import string

from lang.data import words
from lang.frequency import LANGUAGES, WORD_CACHE_SIZE
from privacy.lexicon import (
    ROLES,
    foreign_word,
    is_common_word,
    is_compound_brand,
    is_given_name,
    is_surname,
    zipf,
)

SENTENCE_END = ".!?:;\n\"“(['>¡¿"  # ">" opens a quoted e-mail line

# Fillers, assent and surprise in the five languages Veil reads: never a name on their own.
INTERJECTIONS = words("names", "interjections")
# "Hmmm", "Uhhh", "Yeahhh", "Okaaay": a filler stretched by typing.
_STRETCHED_RE = re.compile(
    r"(?:h+m+|u+h+|u+m+|e+r+m*|a+h+|o+h+|m+h*m+|y+e+a+h+|y+e+p+|y+u+p+|o+k+a+y+|n+a+h+|w+o+w+)",
    re.IGNORECASE,
)
AUXILIARIES = frozenset(
    "can could will would shall should may might must do does did is are was were have has had"
    .split()
)  # fmt: skip
_MODALS = frozenset("can could will would shall should may might must".split())
_PRONOUNS = frozenset("i you we he she they it u ya y'all someone anyone".split())
# What an imperative verb takes next: "Mark the location", "Input it", "Screw bad luck" not.
_OBJECT_WORDS = frozenset(
    """the a an this that these those it them me us my your our his her their its some any all
    everything something""".split()
)
_PARTICLES = frozenset("to up out off down over".split())
_NEXT_RE = re.compile(r"[ \t]+([^\W\d_][\w'’]*)")
_WORD_RE = re.compile(r"[^\W_][\w'’\-]*")
_LIST_BEFORE_RE = re.compile(r"[\w'’][ \t]+(?:and|&|und|et|y|e)[ \t]+$")
_LIST_AFTER_RE = re.compile(r"[ \t]*(?:,[ \t]*|[ \t]+(?:and|&|und|et|y|e)[ \t]+)[A-ZÀ-Þ]")
# Job titles by their make: "Gynecologist", "Stylist", "Pediatrician", "Practitioner".
_ROLE_ENDINGS = ("ologist", "ist", "ician", "iatrist", "itioner", "ographer")


def sentence_start(text: str, position: int) -> bool:
    """Whether the word at `position` opens a sentence, where capitals say nothing."""
    index = position - 1
    while index >= 0 and text[index] in " \t":
        index -= 1
    return index < 0 or text[index] in SENTENCE_END


def _line_words(text: str, position: int, *, written: bool = False) -> list[str]:
    """The first 40 words of the line around `position`, lower case unless `written`."""
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    found = _WORD_RE.finditer(text, line_start, line_end if line_end >= 0 else len(text))
    return [w.group() if written else w.group().casefold() for w in itertools.islice(found, 40)]


def english_line(text: str, position: int) -> bool:
    """Whether the line around `position` is mostly everyday English, where the detector (which
    learned English) can be trusted and "Ramos" is a surname, not branches."""
    words = _line_words(text, position)
    english = sum(1 for w in words if zipf(w) >= 3.0 and not foreign_word(w))
    return bool(words) and english / len(words) >= 0.6


def foreign_line(text: str, position: int) -> bool:
    """Whether the line around `position` shows another language: more of its everyday words
    than English ones. Words common nowhere (names, slang, handles: "Fuck Canelo") speak for
    neither, so a short noisy English line is not taken for a foreign one; nor do given names
    common in another language's text because people there carry them, written as names
    ("is that Mauro?"; "Mañana" at a line's start is still a Spanish word)."""
    written = _line_words(text, position, written=True)
    words = [w.casefold() for w in written]
    foreign = sum(
        1 for i, (w, shown) in enumerate(zip(words, written, strict=True))
        if foreign_word(w) and not (i > 0 and shown[:1].isupper() and is_given_name(w))
    )  # fmt: skip
    english = sum(1 for w in words if zipf(w) >= 3.0) - foreign
    return foreign > 0 and foreign >= english


# Languages that write every noun with a capital: there a capital inside a sentence names no one.
NOUN_CAPITALS = frozenset({"de"})


def nouns_capitalised(text: str, position: int) -> bool:
    """Whether the line around `position` is in a language that capitalises its nouns: its
    everyday words other than names are commonest there ("Treffen im Sommer am Montag")."""
    votes: dict[str, int] = {}
    for word in _line_words(text, position):
        if foreign_word(word) and not is_given_name(word):
            best = max(LANGUAGES[1:], key=lambda code: zipf(word, code))
            votes[best] = votes.get(best, 0) + 1
    return bool(votes) and max(votes, key=votes.__getitem__) in NOUN_CAPITALS


def is_interjection(word: str) -> bool:
    """A filler or a yes/no ("Uh", "Hmmm", "Yeah", "Bora"): never a name on its own."""
    low = word.casefold().strip("'’-")
    return low in INTERJECTIONS or bool(_STRETCHED_RE.fullmatch(low))


def is_role_word(word: str) -> bool:
    """A job rather than a person: "cfo", "Dentist", "Ophthalmologist", "Practitioner"."""
    low = word.casefold()
    if low in ROLES:
        return True
    # an English word with a job's ending that no given name has ("Christ" is no job)
    return (
        low.endswith(_ROLE_ENDINGS)
        and len(low) >= 7
        and zipf(low) >= 2.0
        and not is_given_name(low)
        and not foreign_word(low)
    )


@functools.lru_cache(maxsize=WORD_CACHE_SIZE)
def is_typo(word: str) -> bool:
    """A long rare word one keystroke from a common one: "assitance", "availble", "Dentisry".

    Names this long are rarely one letter from an everyday word; misspelt words after "for",
    "an" or "I'm" would otherwise read as rare names. One keystroke from a name ("draymond",
    "vitoria", "hendersons") is a name's variant, not a slip.
    """
    low = word.casefold()
    if len(low) < 7 or not low.isalpha() or zipf(low) >= 3.0 or is_given_name(low):
        return False
    edits = {low[:i] + low[i + 1 :] for i in range(len(low))}
    edits |= {low[:i] + low[i + 1] + low[i] + low[i + 2 :] for i in range(len(low) - 1)}
    edits |= {low[:i] + ch + low[i:] for i in range(len(low) + 1) for ch in string.ascii_lowercase}
    return any(
        zipf(edit) >= 3.5 and not is_given_name(edit) and not is_surname(edit) for edit in edits
    )


# How invented company names end: "Initech", "Microsoft", "Spotify", "Dropbox", "Globex".
_BRAND_ENDINGS = ("tech", "soft", "corp", "labs", "ware", "works", "hub", "ify", "box", "bank",
                  "mart", "flix", "cloud")  # fmt: skip
# "an email from X", "a text from X": who sent a message is, by default, a person.
SENDER_BEFORE_RE = re.compile(
    r"\b(?:e-?mails?|messages?|texts?|calls?|notes?|letters?|invit(?:e|ation)s?|repl(?:y|ies)"
    r"|mails?|dms?|voicemails?|msgs?|word|news|update)[ \t]+from[ \t]+$",
    re.IGNORECASE,
)


def has_brand_ending(word: str) -> bool:
    """Made like a company's name, with a brand ending: "Initech", "Spotify", "Dropbox"."""
    low = word.casefold()
    stem = next((low[: -len(e)] for e in _BRAND_ENDINGS if low.endswith(e)), "")
    return len(stem) >= 3 and not is_given_name(low)


def is_brand_shaped(word: str) -> bool:
    """Made like a company's name: a brand ending, or two words run together ("Cityscan")."""
    return has_brand_ending(word) or is_compound_brand(word)


def _next_words(text: str, end: int, count: int = 2) -> list[str]:
    words, position = [], end
    for _ in range(count):
        match = _NEXT_RE.match(text, position)
        if not match:
            break
        words.append(match.group(1))
        position = match.end()
    return words


def no_name_here(text: str, start: int, end: int) -> bool:
    """Whether the word(s) at [start, end) are, by grammar, no name: a verb, a filler, a job.

    "Mark the location" (a verb before its object), "Will do" (a modal before a bare verb),
    "Can I" (an auxiliary before its subject), "Rose to the occasion", "Uh", "Stylist visit".
    """
    words = _WORD_RE.findall(text, start, end)
    if not words:
        return False
    first = words[0]
    # "Uh", "Yeah": a filler; "Dale and White were ..." is a list of people, which no filler is
    listed = _LIST_AFTER_RE.match(text, end) or _LIST_BEFORE_RE.search(
        text, max(0, start - 12), start
    )  # a window: searching the whole text before every word made long pastes quadratic
    if len(words) == 1 and is_interjection(first) and not listed:
        return True
    if any(is_role_word(w) for w in (words[0], words[-1])):
        return True
    if len(words) > 1:
        return False
    low = first.casefold()
    after = _next_words(text, end)
    if not after or not first[0].isupper():
        return False
    nxt = after[0]
    # "Can I", "Will you", "May we": an auxiliary before its subject asks a question
    if low in AUXILIARIES and nxt.casefold() in _PRONOUNS:
        return True
    if not sentence_start(text, start):
        return False
    # "Will do", "Can call": a modal before a bare lower-case verb ("Will said" is a person)
    if low in _MODALS and nxt.islower() and not nxt.endswith(("s", "ed")):
        return True
    # "Mark the location", "Input it": an everyday verb before its object opens an order
    if is_common_word(low) and nxt.islower() and nxt in _OBJECT_WORDS:
        return True
    # "Rose to the occasion", "Drew up a plan": a verb, its particle, then its object
    return (
        zipf(low) >= 4.0
        and nxt in _PARTICLES
        and len(after) > 1
        and after[1].casefold() in _OBJECT_WORDS
    )
