"""Word knowledge the name finder leans on: given names of many countries, US surnames, word
frequencies in the five languages Veil reads, and the words that are never names (times,
roles, pronouns).

A name in a chat is often lower-case ("meet priya") or foreign ("Oluwaseun"), and the small
spaCy model misses both; what tells "priya" from "pleasure" is that one is a known given name or
a rare word, the other a common one. The lists ship inside installed packages: no download.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import unicodedata
from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS as EN_STOP

from lang.activities import ACTIVITY_NAMES
from lang.data import table, words
from lang.frequency import LANGUAGES, zipf
from privacy.errors import PrivacyError
from privacy.postal import is_city

logger = logging.getLogger(__name__)

# The vocabulary lives in lang/data/names.toml, per language.
TIME_WORDS = words("names", "time_words")
ROLES = words("names", "roles")
# Words that start or end a greeting, close a message, or address someone: never a name.
SALUTATIONS = words("names", "salutations")
# Never a name, whatever the case: pronouns, articles, prepositions, times, roles, greetings.
FUNCTION_WORDS = words("names", "function_words")
HARD_NOT_NAMES = TIME_WORDS | ROLES | SALUTATIONS | FUNCTION_WORDS
# Words that are not names when written in lower case ("will", "may" can be names capitalised).
# English stop words only: importing spaCy's French module alone takes five seconds, and
# common words of the other languages are caught by their frequency instead.
NOT_NAMES = (
    HARD_NOT_NAMES | frozenset(w.casefold() for w in EN_STOP) | words("names", "lower_not_names")
)
# ... and an event's word written in lower case: "add the webinar" ("Trip:" may be someone).
LOWER_NOT_NAMES = NOT_NAMES | ACTIVITY_NAMES
# A form's label in capitals is its acronym, no one's name: "RSVP", "FYI", "TLDR", "NB".
LABEL_ACRONYMS = words("labels", "label_acronyms")
# Words that open the unit part of an address ("Apt. 4"): never the end of a name.
# English words that open the unit part of an address ("Apt. 4"): never the end of a name. The
# other languages' unit words ("Stock", "Sala", "Piano") are also surnames, so they stay out.
UNIT_WORDS = words("places", "unit_words", "en")
# Lower-case words that may sit inside a name: "María de la Cruz", "Ludwig van Beethoven".
NAME_PARTICLES = words("labels", "name_particles")
# Words that make a capitalised phrase an organisation or a venue, which stays visible.
ORG_WORDS = words("names", "org_words")


@functools.cache
def given_names() -> frozenset[str]:
    """Given names of many countries (gender-guesser's list), lower-cased, minus common words."""
    return listed_given_names() - HARD_NOT_NAMES


def is_listed_given_name(word: str) -> bool:
    """In the given-name list even where the word is also a month or a role ("June", "May"):
    for a place that already says "a person", such as a chat's speaker label."""
    return word.casefold() in listed_given_names()


@functools.cache
def listed_given_names() -> frozenset[str]:
    """gender-guesser's given names, lower-cased, common words included."""
    spec = importlib.util.find_spec("gender_guesser")
    if spec is None or not spec.submodule_search_locations:
        raise PrivacyError("package gender-guesser is missing: pip install gender-guesser")
    path = Path(spec.submodule_search_locations[0]) / "data" / "nam_dict.txt"
    names: set[str] = set()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            # data lines: a gender code, spaces, the name (with "+" for a space), then flags
            if line.startswith("#") or len(line) < 30 or line[0] not in "MF?1=":
                continue
            name = line[3:29].strip().replace("+", " ")
            if name and " " not in name:
                names.add(name.casefold())
    return frozenset(names)


@functools.cache
def surnames() -> frozenset[str]:
    """The US Census surnames (88,799, from the `names` package), lower-cased.

    Many are also words ("Park", "White", "Long"): a surname only counts where the grammar
    already points at people (a list beside a name, the subject of "were").
    """
    spec = importlib.util.find_spec("names")
    if spec is None or not spec.submodule_search_locations:
        raise PrivacyError("package names is missing: pip install names")
    path = Path(spec.submodule_search_locations[0]) / "dist.all.last"
    with path.open(encoding="ascii") as handle:
        return frozenset(line.split()[0].casefold() for line in handle if line.strip())


def is_surname(word: str) -> bool:
    """A known surname (case- and accent-insensitive: the census writes "Lopez" for "López")."""
    return _unaccented(word.casefold()) in surnames()


def max_zipf(word: str) -> float:
    """How common the word is in the most common of Veil's languages."""
    return max(zipf(word, lang) for lang in LANGUAGES)


# Below the floor of wordfreq's small lists in all five languages: a word common nowhere, as a
# surname or a handle is ("minogue", "renallo") and "tmrw" or "lol" are not.
RARE_ZIPF = 3.0


def is_rare_everywhere(word: str) -> bool:
    """A word no language Veil reads uses every day (case-insensitive)."""
    return max_zipf(word.casefold()) < RARE_ZIPF


def is_given_name(word: str) -> bool:
    """A known given name of some country, or a rare word made like a romanised Korean or
    Chinese one (case-insensitive)."""
    low = word.casefold()
    if low in given_names() or _two_syllable_name(low):
        return True
    # "siobhán" is the lists' "siobhan"; "mañana", "qué", "está" are words, not "manana"
    return not low.isascii() and not foreign_word(low) and _unaccented(low) in given_names()


def _unaccented(low: str) -> str:
    """`low` without its accents: the lists write "Siobhan" and "Lopez" for "Siobhán", "López"."""
    if low.isascii():
        return low
    return "".join(c for c in unicodedata.normalize("NFD", low) if not unicodedata.combining(c))


# Syllables of romanised Korean and Chinese given names, per language (names.toml).
_SYLLABLES = tuple(
    frozenset(line.split()) for line in table("names")["given_name_syllables"].values()
)


@functools.cache
def _two_syllable_name(low: str) -> bool:
    """ "jisoo", "ji-soo", "xiaoming": two syllables of one language's given names, and a word
    no language Veil reads uses and no town's name ("minmin" is one; "hansen" and "sunday" are
    not, a syllable table holds neither "sen" nor "day"; "suwon" is a town)."""
    if not 4 <= len(low) <= 10 or not low.replace("-", "").isalpha() or low in HARD_NOT_NAMES:
        return False
    if max_zipf(low.replace("-", "")) >= RARE_ZIPF or is_city(low):
        return False  # "Suwon", "Zhongshan": towns made of the same syllables
    if "-" in low:
        splits = [low.split("-")]
    else:
        splits = [[low[:i], low[i:]] for i in range(2, len(low) - 1)]
    return any(
        len(parts) == 2 and all(p in syllables for p in parts)
        for syllables in _SYLLABLES
        for parts in splits
    )


def is_common_word(word: str, threshold: float = 4.0) -> bool:
    """An everyday English word, which "will", "mark" and "rose" are and "priya" is not."""
    return zipf(word.casefold()) >= threshold


def is_everyday_word(value: str) -> bool:
    """A one-word name that is also an everyday word ("Will", "Mark"): match it as written."""
    low = value.strip().casefold()
    return len(low.split()) == 1 and (low in NOT_NAMES or zipf(low) >= 4.0)


def foreign_word(word: str) -> bool:
    """An everyday word of another language Veil reads that is rare in English ("claro")."""
    low = word.casefold()
    foreign = max(zipf(low, lang) for lang in LANGUAGES[1:])
    return foreign >= 4.0 and zipf(low) < foreign - 1.0


def is_compound_brand(word: str) -> bool:
    """Two everyday English words run together, rare as a whole ("Hellowallet", "Cityscan").

    Brand names are built this way; names people carry are not (or, like "Newman", are
    common enough as a whole to fail the rarity test).
    """
    low = word.casefold()
    if not low.isalpha() or len(low) < 7 or zipf(low) >= 1.5 or is_given_name(low):
        return False
    return any(zipf(low[:cut]) >= 3.5 and zipf(low[cut:]) >= 3.5 for cut in range(3, len(low) - 2))
